//! The one error shape of the binary readers (`.ani`, `.skl`, `.msh`,
//! `.cms`): a wrong magic, a version the client refuses, or bytes that end
//! early or hold an impossible value, each with the byte offset it is
//! about.

use std::fmt;

use thiserror::Error;

use super::bytes::ReadError;
use super::place::Place;

/// The binary files the readers take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryKind {
    /// `.ani` animations.
    Ani,
    /// `.skl` skeletons.
    Skl,
    /// `.msh` meshes.
    Msh,
    /// `.cms` collision meshes.
    Cms,
}

impl BinaryKind {
    /// The four bytes a file of the kind starts with.
    pub fn magic(self) -> &'static [u8; 4] {
        match self {
            Self::Ani => b"ANI\0",
            Self::Skl => b"SKL\0",
            Self::Msh => b"MSH\0",
            Self::Cms => b"CMS\0",
        }
    }

    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Ani => ".ani",
            Self::Skl => ".skl",
            Self::Msh => ".msh",
            Self::Cms => ".cms",
        }
    }

    /// The versions the client loads, in words.
    fn versions(self) -> &'static str {
        match self {
            Self::Ani => "the client accepts 4000, 4001 and 4002",
            Self::Skl => "the only version is 1000",
            Self::Msh => "the client reads any version as 2000 but 2002",
            Self::Cms => "the client loads only 5000",
        }
    }
}

impl fmt::Display for BinaryKind {
    /// The kind with its article: "an .ani file".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Ani => "an .ani file",
            Self::Skl => "an .skl file",
            Self::Msh => "a .msh file",
            Self::Cms => "a .cms file",
        })
    }
}

/// Why bytes are not a file the client would load.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FormatError {
    /// The file does not start with the kind's magic.
    #[error("not {kind}: it starts with {found:02x?}, not {:?}", String::from_utf8_lossy(kind.magic()))]
    BadMagic {
        /// What the file should have been.
        kind: BinaryKind,
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// The version (at byte 4) is not one the client accepts.
    #[error("unknown {} version {found} at byte 4 ({})", kind.extension(), kind.versions())]
    UnknownVersion {
        /// What the file is.
        kind: BinaryKind,
        /// The version stored.
        found: i32,
    },
    /// The bytes end early or hold an impossible count or string.
    #[error("{place}: {cause}")]
    Malformed {
        /// Where it happened.
        place: Place,
        /// What went wrong.
        cause: ReadError,
    },
}

impl FormatError {
    /// The byte offset the error is about: 0 for the magic, 4 for the
    /// version, else where the failed value starts.
    pub fn offset(&self) -> usize {
        match self {
            Self::BadMagic { .. } => 0,
            Self::UnknownVersion { .. } => 4,
            Self::Malformed { cause, .. } => cause.offset(),
        }
    }

    /// Wraps a read error at `place` (for `map_err`).
    pub(crate) fn at(place: Place) -> impl Fn(ReadError) -> Self + Clone {
        move |cause| Self::Malformed { place: place.clone(), cause }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_errors_say_what_the_file_should_be() {
        let magic = FormatError::BadMagic { kind: BinaryKind::Ani, found: b"SKL\0".to_vec() };
        assert_eq!(magic.to_string(), r#"not an .ani file: it starts with [53, 4b, 4c, 00], not "ANI\0""#);
        let version = FormatError::UnknownVersion { kind: BinaryKind::Cms, found: 7 };
        assert_eq!(version.to_string(), "unknown .cms version 7 at byte 4 (the client loads only 5000)");
        assert_eq!(version.offset(), 4);
    }
}
