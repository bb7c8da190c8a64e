//! `.ant` event sidecars: a text file beside an `.ani` (`<stem>.ant`, the
//! stem being the `.ani` name up to its first dot) whose events replace
//! the `.ani`'s own when the client finds it. One value a line: a version
//! (read and ignored), the event count, then per event its time, the
//! length of its type, the type (only when that length is above 0), the
//! length of its sub info and the sub info (likewise).
//!
//! Read by the client's rules (`ioAnimationEventManager`): lines end at
//! `\n` and are trimmed of spaces, tabs and `\r`; a line is read into 512
//! bytes, so one longer than 511 bytes is cut there, its 512th byte lost
//! and the rest read as the next line; numbers are read as C's `atoi` and
//! `atof` read them (0 when there is none); lengths only count as above 0
//! or not; blank lines are not skipped. Nothing makes the client refuse a
//! sidecar, so neither does this reader: what looks wrong is a warning with
//! its line.

use super::c_text::{atof, atoi};
use super::{Event, FileString};

/// The longest line the client reads whole.
pub const MAX_LINE: usize = 511;

/// A sidecar's events, and what in it looked wrong.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EventSidecar {
    /// The events, in file order (the client plays them sorted by time).
    pub events: Vec<Event>,
    /// Lines that read as the client reads them but probably not as their
    /// author meant: `(line number from 1, what)`.
    pub warnings: Vec<(usize, String)>,
}

/// The file name of the sidecar of an `.ani` named `ani_name`: its name up
/// to the first dot, then `.ant`; `None` for a name without a dot, for
/// which the client looks for none.
pub fn sidecar_name(ani_name: &str) -> Option<String> {
    let (stem, extension) = ani_name.split_once('.')?;
    (!stem.is_empty() && !extension.is_empty()).then(|| format!("{stem}.ant"))
}

/// The events the client plays for an `.ani` whose own events are `file`:
/// its sidecar's when it has one (even one of no events), else the file's.
pub fn events_played<'a>(file: &'a [Event], sidecar: Option<&'a EventSidecar>) -> &'a [Event] {
    sidecar.map_or(file, |s| &s.events)
}

/// The lines as the client's 512-byte line reader returns them, trimmed.
fn client_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let text = &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())];
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        if end > MAX_LINE {
            lines.push(trim(&rest[..MAX_LINE]));
            rest = &rest[MAX_LINE + 1..];
        } else {
            lines.push(trim(&rest[..end]));
            rest = rest.get(end + 1..).unwrap_or_default();
        }
    }
    lines
}

fn trim(line: &[u8]) -> &[u8] {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    let start = line.iter().position(|b| !blank(b)).unwrap_or(line.len());
    let end = line.iter().rposition(|b| !blank(b)).map_or(start, |e| e + 1);
    &line[start..end]
}

/// The client's lines, read one at a time.
struct Lines<'a> {
    lines: Vec<&'a [u8]>,
    /// Lines read so far (the number of the last one read).
    read: usize,
}

impl<'a> Lines<'a> {
    /// The next line, or an empty one (with a warning) past the end.
    fn next(&mut self, sidecar: &mut EventSidecar, what: &str) -> &'a [u8] {
        self.read += 1;
        match self.lines.get(self.read - 1) {
            Some(line) => line,
            None => {
                sidecar.warn(self.read, format!("the file ends before the {what}"));
                &[]
            }
        }
    }

    fn ended(&self) -> bool {
        self.read >= self.lines.len()
    }
}

impl EventSidecar {
    /// Reads a sidecar as the client does; this never fails.
    pub fn read(bytes: &[u8]) -> Self {
        let mut sidecar = Self::default();
        if bytes.split(|&b| b == b'\n').any(|l| l.len() > MAX_LINE) {
            let cut = format!(
                "a line is longer than {MAX_LINE} bytes: the client cuts it and reads the rest as the next line"
            );
            sidecar.warn(0, cut);
        }
        let mut lines = Lines { lines: client_lines(bytes), read: 0 };
        lines.next(&mut sidecar, "version");
        let (count, _) = atoi(lines.next(&mut sidecar, "event count"));
        for index in 0..count.max(0) {
            if lines.ended() {
                sidecar.warn(lines.read, format!("the count says {count} events, the file holds {index}"));
                break;
            }
            let time_line = lines.next(&mut sidecar, "event time");
            let (time_ms, whole) = atof(time_line);
            if !whole {
                let text = String::from_utf8_lossy(time_line);
                sidecar.warn(lines.read, format!("event {index}: time '{text}' reads as {time_ms}"));
            }
            let kind = sidecar.string(&mut lines, index, "type");
            let sub_info = sidecar.string(&mut lines, index, "sub info");
            sidecar.events.push(Event { kind, sub_info, time_ms });
        }
        sidecar
    }

    /// A length line and, when it reads above 0, the string line after it.
    fn string(&mut self, lines: &mut Lines<'_>, index: i32, what: &str) -> FileString {
        let (length, _) = atoi(lines.next(self, &format!("{what} length")));
        if length <= 0 {
            return FileString::default();
        }
        let text = lines.next(self, what);
        if usize::try_from(length).ok() != Some(text.len()) {
            let says = format!("event {index}: {what} length says {length}, the {what} has {} bytes", text.len());
            self.warn(lines.read, says);
        }
        FileString::from(text)
    }

    fn warn(&mut self, line: usize, what: String) {
        self.warnings.push((line, what));
    }
}

/// Why events cannot be written as a sidecar the client reads back the same.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AntWriteError {
    /// A string the line reader would change (a line break, a zero byte,
    /// blanks at either end) or cut (over 511 bytes), or a NaN time.
    #[error("event {event}: its {what} cannot be a line the client reads back whole")]
    Unwritable {
        /// The event's index.
        event: usize,
        /// "time", "type" or "sub info".
        what: &'static str,
    },
}

/// A time as a line `atof` reads back to the same `f32`: the value's exact
/// decimal (through `f64`, where it is exact, so that the client's
/// `atof`-then-`float` meets no double rounding), and for infinities a
/// number beyond `f32`'s range. `None` for NaN, which `atof` never makes.
fn time_line(time_ms: f32) -> Option<String> {
    match time_ms {
        t if t.is_nan() => None,
        t if t.is_infinite() => Some(if t > 0.0 { "1e39\n".into() } else { "-1e39\n".into() }),
        t => Some(format!("{}\n", f64::from(t))),
    }
}

/// `events` as a sidecar the client reads back to the same events, with
/// `version` on its first line (the client ignores it; the `.ani`'s
/// version number is a fair choice).
pub fn write(events: &[Event], version: i32) -> Result<Vec<u8>, AntWriteError> {
    let mut out = format!("{version}\n{}\n", events.len()).into_bytes();
    for (event, e) in events.iter().enumerate() {
        out.extend_from_slice(
            time_line(e.time_ms).ok_or(AntWriteError::Unwritable { event, what: "time" })?.as_bytes(),
        );
        for (what, s) in [("type", &e.kind), ("sub info", &e.sub_info)] {
            let bytes = s.as_bytes();
            let changes = bytes.len() > MAX_LINE || trim(bytes) != bytes || bytes.iter().any(|&b| b == b'\n' || b == 0);
            if changes {
                return Err(AntWriteError::Unwritable { event, what });
            }
            out.extend_from_slice(format!("{}\n", bytes.len()).as_bytes());
            if !bytes.is_empty() {
                out.extend_from_slice(bytes);
                out.push(b'\n');
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: &str, sub_info: &str, time_ms: f32) -> Event {
        Event { kind: kind.into(), sub_info: sub_info.into(), time_ms }
    }

    #[test]
    fn reads_as_the_client_and_writes_back() {
        let text = b"4002\r\n3\r\n500\r\n10\r\nauto_sound\r\n13\r\n  sfx_swing.wav \r\n120.5\r\n7\r\ntrail_e\r\n0\r\n650\r\n0\r\n0\r\n";
        let sidecar = EventSidecar::read(text);
        let expected =
            vec![event("auto_sound", "sfx_swing.wav", 500.0), event("trail_e", "", 120.5), event("", "", 650.0)];
        assert_eq!(sidecar.events, expected);
        assert!(sidecar.warnings.is_empty(), "{:?}", sidecar.warnings);
        let written = write(&expected, 4002).unwrap();
        assert_eq!(EventSidecar::read(&written).events, expected);
        assert_eq!(sidecar_name("attack_01.ani").as_deref(), Some("attack_01.ant"));
        assert_eq!(sidecar_name("a.b.ani").as_deref(), Some("a.ant"), "up to the first dot");
        assert_eq!(sidecar_name("noext"), None);
    }

    #[test]
    fn never_fails_and_says_what_looks_wrong() {
        // A count larger than the file, a length that lies, junk numbers.
        let sidecar = EventSidecar::read(b"x\n5\n1e2junk\n3\nmotion_sound\n");
        assert_eq!(sidecar.events, vec![event("motion_sound", "", 100.0)]);
        assert_eq!(sidecar.warnings.len(), 4, "{:?}", sidecar.warnings);
        // A long line is cut at 511 bytes and its rest read as the next line.
        let long = format!("1\n1\n0\n600\n{}\n0\n", "a".repeat(600));
        let sidecar = EventSidecar::read(long.as_bytes());
        assert_eq!(sidecar.events[0].kind.len(), 511);
        assert!(sidecar.warnings.iter().any(|(_, w)| w.contains("longer than 511")));
        assert_eq!(EventSidecar::read(b"").events, vec![]);
        assert_eq!(EventSidecar::read(b"1\n-3\n").events, vec![]);
        assert!(write(&[event("a\nb", "", 0.0)], 1).is_err());
        assert!(write(&[event("ok", " padded", 0.0)], 1).is_err());
    }
}
