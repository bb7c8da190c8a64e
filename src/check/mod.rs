//! The lint behind `io3d check`: what in a file would break or misbehave in
//! the game, each finding with its byte offset and a one-line reason.

mod ani;
mod skl;

pub use ani::check_ani;
pub use skl::check_skl;

use std::fmt;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "json", derive(serde::Serialize), serde(rename_all = "lowercase"))]
pub enum Severity {
    /// Worth knowing; harmless in the game.
    Info,
    /// Plays, but probably not as meant.
    Warning,
    /// Breaks in the game (a crash, NaN, a wrong bone) or does not load.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        })
    }
}

/// One thing the lint found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Finding {
    /// How bad it is.
    pub severity: Severity,
    /// A short stable name for the kind of finding, such as `empty-track`.
    pub rule: &'static str,
    /// Byte offset in the file of the part it is about.
    pub offset: usize,
    /// The reason, in one line, naming the part ("track 3 'Bip01 Spine'").
    pub message: String,
}

impl Finding {
    /// A finding.
    pub fn new(severity: Severity, rule: &'static str, offset: usize, message: impl Into<String>) -> Self {
        Self { severity, rule, offset, message: message.into() }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}] at byte {}: {}", self.severity, self.rule, self.offset, self.message)
    }
}

/// The finding for a file that does not load.
pub fn unreadable(offset: usize, message: String) -> Finding {
    Finding::new(Severity::Error, "unreadable", offset, message)
}

/// Findings shared by every format: strings the client cuts or overflows.
fn check_string(out: &mut Vec<Finding>, offset: usize, what: &str, s: &crate::format::FileString) {
    if s.len() >= crate::format::string::MAX_STRING_LEN {
        out.push(Finding::new(
            Severity::Warning,
            "long-string",
            offset,
            format!("{what} is {} bytes long and overflows the client's 260-byte buffer", s.len()),
        ));
    }
    if s.has_zero_byte() {
        out.push(Finding::new(
            Severity::Warning,
            "zero-byte",
            offset,
            format!("{what} '{}' holds a zero byte: the client cuts it to '{}'", s.to_text(), s.name_text()),
        ));
    }
}

fn check_trailing(out: &mut Vec<Finding>, offset: usize, trailing: &[u8]) {
    if !trailing.is_empty() {
        out.push(Finding::new(
            Severity::Warning,
            "trailing-bytes",
            offset,
            format!("{} bytes after the end of the data; the client ignores them", trailing.len()),
        ));
    }
}

/// How far from unit length a rotation may be before it is reported
/// (4002 keys are never renormalised, and are off by about 1e-5).
const UNIT_TOLERANCE: f32 = 0.01;
