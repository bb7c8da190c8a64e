//! Numbers in the client's text files (material scripts, `.ant` sidecars,
//! `jump_anitime` sub info) read as the C runtime reads them: `atof` and
//! `atoi` take the longest leading number and give 0 when there is none,
//! so `"12abc"` is 12 and `"abc"` is 0, never an error. Each function also
//! says whether the number was the whole text, so callers can warn about
//! what the client reads silently. One copy, for every reader of the
//! client's text (see `docs/material.md`).

/// Blanks C's `isspace` skips before a number.
fn skip_blanks(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c));
    &bytes[start.unwrap_or(bytes.len())..]
}

/// The end of the run of ASCII digits in `bytes` from `at`.
fn digits_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}

/// C's `atof`: the longest leading decimal number after blanks (sign,
/// digits, fraction, exponent), 0 when there is none, rounded to `f32` as
/// the client stores it. Also whether that number was the whole text.
pub fn atof(text: impl AsRef<[u8]>) -> (f32, bool) {
    let bytes = skip_blanks(text.as_ref());
    let mut end = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let int_end = digits_end(bytes, end);
    let mut digits = int_end - end;
    end = int_end;
    if bytes.get(end) == Some(&b'.') {
        let frac_end = digits_end(bytes, end + 1);
        digits += frac_end - end - 1;
        if digits > 0 {
            end = frac_end;
        }
    }
    if digits == 0 {
        return (0.0, false);
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
        let exp_end = digits_end(bytes, end + 1 + sign);
        if exp_end > end + 1 + sign {
            end = exp_end;
        }
    }
    // Only ASCII digits, signs, a dot and an exponent: always UTF-8.
    let number = std::str::from_utf8(&bytes[..end]).unwrap_or("0");
    let value = number.parse::<f64>().unwrap_or(0.0) as f32;
    (value, end == bytes.len())
}

/// C's `atoi` as the client's 32-bit `int` holds it: the leading integer
/// after blanks, saturated to `i32` (as the Windows runtime's `strtol`
/// does), 0 when there is none. Also whether that was the whole text.
pub fn atoi(text: impl AsRef<[u8]>) -> (i32, bool) {
    let bytes = skip_blanks(text.as_ref());
    let negative = bytes.first() == Some(&b'-');
    let start = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let end = digits_end(bytes, start);
    let magnitude = bytes[start..end]
        .iter()
        .fold(0_i64, |value, digit| (value * 10 + i64::from(digit - b'0')).min(i64::from(i32::MAX) + 1));
    let value = if negative { -magnitude } else { magnitude };
    let value = value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    (value, end > start && end == bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atof_reads_the_leading_number() {
        assert_eq!(atof("1."), (1.0, true));
        assert_eq!(atof("-.5e1"), (-5.0, true));
        assert_eq!(atof("2e"), (2.0, false));
        assert_eq!(atof("."), (0.0, false));
        assert_eq!(atof(""), (0.0, false));
        assert_eq!(atof("  250.5ms"), (250.5, false), "blanks skipped, the tail ignored");
        assert_eq!(atof(b"\t12".as_slice()), (12.0, true));
    }

    #[test]
    fn atoi_saturates_to_the_clients_int() {
        assert_eq!(atoi("+42"), (42, true));
        assert_eq!(atoi("-7x"), (-7, false));
        assert_eq!(atoi("99999999999"), (i32::MAX, true));
        assert_eq!(atoi("-99999999999"), (i32::MIN, true));
        assert_eq!(atoi("-"), (0, false));
        assert_eq!(atoi(" 3"), (3, true), "blanks skipped as C does");
        assert_eq!(atoi("3000000000").0, i32::MAX, "an `.ant` count past an int saturates, not a 64-bit value");
    }
}
