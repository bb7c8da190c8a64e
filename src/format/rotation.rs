//! The compressed rotations of `.ani` versions 4001 and 4002, decoded and
//! encoded exactly as the client does (`docs/ani.md`).

use glam::{Quat, UVec4};

use crate::lanes::Lanes;

/// A rotation as a compressed `.ani` key stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackedRotation {
    /// Version 4001: the index of the dropped component in bits 31-30 and
    /// three 10-bit numbers.
    SmallThree(u32),
    /// Version 4002: two words, first (high) then second (low) as stored;
    /// x and y in the first, z and w in the second, 16 bits each.
    EightBytes([u32; 2]),
}

/// What decoding a small-three word found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmallThreeDecoded {
    /// The rotation, with the dropped component clamped at 0 where the
    /// client would compute `sqrt` of a negative number.
    pub rotation: Quat,
    /// Whether the client computes NaN for this word (the three stored
    /// components square to more than 1).
    pub nan_in_client: bool,
}

impl PackedRotation {
    /// The rotation the client decodes (with NaN clamped to 0 for 4001).
    pub fn decode(self) -> Quat {
        match self {
            Self::SmallThree(word) => decode_small_three(word).rotation,
            Self::EightBytes(words) => decode_eight_bytes(words),
        }
    }
}

/// The value of every 10-bit number of a 4001 word, `2 * (n / 1023) - 1`,
/// computed once in `f32` exactly as the client computes it per key.
const SMALL_THREE_VALUES: [f32; 1024] = {
    let mut table = [0.0; 1024];
    let mut n = 0;
    while n < 1024 {
        table[n] = 2.0 * (n as f32 / 1023.0) - 1.0;
        n += 1;
    }
    table
};

/// Decodes a 4001 word: `idx` in bits 31-30 names the dropped component,
/// the others are 10-bit numbers mapped to `2 * (n / 1023) - 1` in `f32`.
pub fn decode_small_three(word: u32) -> SmallThreeDecoded {
    let ([x, y, z, w], square) = small_three_from(small_three_parts(word));
    SmallThreeDecoded { rotation: Quat::from_xyzw(x, y, z, w), nan_in_client: square < 0.0 }
}

/// A 4001 word's three stored numbers, and the index of the component it
/// drops (0 to 3, as an `f32`).
pub(crate) fn small_three_parts(word: u32) -> [f32; 4] {
    let unpack = |shift: u32| SMALL_THREE_VALUES[((word >> shift) & 0x3ff) as usize];
    [unpack(20), unpack(10), unpack(0), (word >> 30) as f32]
}

/// The rotation a 4001 word's parts ([`small_three_parts`]) decode to, and
/// the square of the dropped component before it is clamped at 0: written
/// once for one word or four side by side ([`Lanes`]).
pub(crate) fn small_three_from<L: Lanes>([a, b, c, idx]: [L; 4]) -> ([L; 4], L) {
    let square = L::splat(1.0) - a * a - b * b - c * c;
    let d = square.at_least_zero().sqrt();
    // The stored three fill the other components in order; chosen without
    // branches, since `idx` changes from key to key.
    let (first, second, third) = (idx.at_most(0.0), idx.at_most(1.0), idx.at_most(2.0));
    let rotation = [
        L::select(first, d, a),
        L::select(first, a, L::select(second, d, b)),
        L::select(second, b, L::select(third, d, c)),
        L::select(third, c, d),
    ];
    (rotation, square)
}

/// Decodes a 4002 pair of words. The client does not renormalise.
pub fn decode_eight_bytes([first, second]: [u32; 2]) -> Quat {
    // One vector division: each lane is the same IEEE `n / 65535` the
    // client computes one component at a time.
    let n = UVec4::new(first >> 16, first & 0xffff, second >> 16, second & 0xffff).as_vec4() / 65535.0;
    let signed = 2.0 * n - 1.0;
    Quat::from_xyzw(signed.x, signed.y, signed.z, n.w)
}

/// Normalises a quaternion for encoding, or `None` when it has no
/// direction (zero, NaN or infinite components).
fn normalised(q: Quat) -> Option<[f32; 4]> {
    let len = q.length();
    (len.is_finite() && len > 0.0).then(|| (q / len).to_array())
}

/// Maps a component in -1..=1 onto `0..=max` as the client's encoder does:
/// `clamp(trunc(((c + 1) * 0.5) * max), 0, max)`.
fn quantise_signed(c: f32, max: u32) -> u32 {
    quantise_unit((c + 1.0) * 0.5, max)
}

fn quantise_unit(c: f32, max: u32) -> u32 {
    ((c * max as f32).trunc() as i64).clamp(0, i64::from(max)) as u32
}

/// Encodes a rotation as a 4001 word with the client's own rules, or `None`
/// for a quaternion that cannot be normalised.
pub fn encode_small_three(q: Quat) -> Option<u32> {
    let mut c = normalised(q)?;
    let mut idx = 0;
    for i in 1..4 {
        if c[i].abs() > c[idx].abs() {
            idx = i;
        }
    }
    if c[idx] < 0.0 {
        c = c.map(|v| -v);
    }
    let mut word = (idx as u32) << 30;
    let mut shift: u32 = 20;
    for (i, v) in c.iter().enumerate() {
        if i != idx {
            word |= quantise_signed(*v, 1023) << shift;
            shift = shift.saturating_sub(10);
        }
    }
    Some(word)
}

/// Encodes a rotation as a 4002 pair of words with the client's own rules,
/// or `None` for a quaternion that cannot be normalised.
pub fn encode_eight_bytes(q: Quat) -> Option<[u32; 2]> {
    let mut c = normalised(q)?;
    if c[3] < 0.0 {
        c = c.map(|v| -v);
    }
    let [x, y, z, w] = c;
    let first = quantise_signed(x, 65535) << 16 | quantise_signed(y, 65535);
    let second = quantise_signed(z, 65535) << 16 | quantise_unit(w, 65535);
    Some([first, second])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounded(q: Quat) -> [f32; 4] {
        q.to_array().map(|v| (v * 1e6).round() / 1e6)
    }

    #[test]
    fn small_three_test_vectors() {
        assert_eq!(rounded(decode_small_three(0xDFF7FDFF).rotation), [-0.000978, -0.000978, -0.000978, 0.999999]);
        assert_eq!(rounded(decode_small_three(0x1FF7FDFF).rotation), [0.999999, -0.000978, -0.000978, -0.000978]);
        assert_eq!(rounded(decode_small_three(0xC007FDFF).rotation), [-1.0, -0.000978, -0.000978, 0.0]);
        let zero = decode_small_three(0);
        assert!(zero.nan_in_client);
        assert_eq!(zero.rotation.to_array(), [0.0, -1.0, -1.0, -1.0]);
        assert!(!decode_small_three(0xDFF7FDFF).nan_in_client);
    }

    #[test]
    fn the_table_holds_what_the_client_computes() {
        for n in 0..1024u32 {
            assert_eq!(SMALL_THREE_VALUES[n as usize].to_bits(), (2.0 * (n as f32 / 1023.0) - 1.0).to_bits());
        }
        for idx in 0..4u32 {
            let q = decode_small_three(idx << 30 | 100 << 20 | 200 << 10 | 300).rotation.to_array();
            let stored: Vec<f32> = (0..4).filter(|&i| i != idx as usize).map(|i| q[i]).collect();
            assert_eq!(stored, [100, 200, 300].map(|n| SMALL_THREE_VALUES[n]));
        }
    }

    #[test]
    fn eight_bytes_lanes_match_scalar_arithmetic() {
        for n in (0..=65535u32).step_by(7).chain([65535]) {
            let q = decode_eight_bytes([n << 16 | n, n << 16 | n]);
            let signed = 2.0 * (n as f32 / 65535.0) - 1.0;
            assert_eq!(q.to_array().map(f32::to_bits), [signed, signed, signed, n as f32 / 65535.0].map(f32::to_bits));
        }
    }

    #[test]
    fn eight_bytes_test_vectors() {
        assert_eq!(rounded(decode_eight_bytes([0x80008000, 0x8000FFFF])), [0.000015, 0.000015, 0.000015, 1.0]);
        assert_eq!(decode_eight_bytes([0xFFFFFFFF, 0xFFFFFFFF]).to_array(), [1.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn encoders_follow_the_client_rules() {
        // Identity: w is the largest; the others map to trunc(0.5 * max).
        assert_eq!(encode_small_three(Quat::IDENTITY), Some(3 << 30 | 511 << 20 | 511 << 10 | 511));
        assert_eq!(encode_eight_bytes(Quat::IDENTITY), Some([32767 << 16 | 32767, 32767 << 16 | 65535]));
        // A negative largest component flips the whole quaternion.
        let q = Quat::from_xyzw(-0.8, 0.6, 0.0, 0.0);
        assert_eq!(encode_small_three(q), Some(204 << 20 | 511 << 10 | 511), "index 0 in the top bits");
        // Ties: the first component wins.
        let tie = Quat::from_xyzw(0.5, 0.5, 0.5, 0.5);
        assert_eq!(encode_small_three(tie).unwrap() >> 30, 0);
        assert_eq!(encode_small_three(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)), None);
        assert_eq!(encode_eight_bytes(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)), None);
    }

    #[test]
    fn encode_then_decode_stays_close() {
        for i in 0..500 {
            let t = i as f32 * 0.37;
            let q = Quat::from_euler(glam::EulerRot::YXZ, t, t * 0.7 - 1.0, t * 1.3 + 0.2);
            let a = decode_small_three(encode_small_three(q).unwrap()).rotation;
            let b = decode_eight_bytes(encode_eight_bytes(q).unwrap());
            assert!(q.angle_between(a).to_degrees() < 0.6, "{q} {a}");
            assert!(q.angle_between(b.normalize()).to_degrees() < 0.06, "{q} {b}");
        }
    }
}
