//! Bone names as tracks meet bones, the one rule for the library's rigs
//! and the plugin's entities: a track drives the first bone whose name is
//! the track's, compared exactly (case counts), and a track with no such
//! bone drives nothing (the client would drive the root with it; the
//! binding reports it instead).
//!
//! Names are compared as text: the bytes up to the first zero, decoded as
//! UTF-8 when valid and CP949 otherwise ([`FileString::name_text`]), which is
//! what a Bevy `Name` holds. The client compares the bytes; the two agree
//! for every name that is valid text in either encoding.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::format::FileString;
use crate::format::string::decode_text;

/// Bone names and the first bone holding each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoneNames {
    first: HashMap<String, usize>,
}

impl BoneNames {
    /// The index of names given in bone order.
    pub fn new<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Self {
        let mut first = HashMap::new();
        for (index, name) in names.into_iter().enumerate() {
            first.entry(name.as_ref().to_owned()).or_insert(index);
        }
        Self { first }
    }

    /// The first bone named `name`.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.first.get(name).copied()
    }

    /// The first bone with the name a file stores (a track's or a mesh's
    /// bone name).
    pub fn of(&self, name: &FileString) -> Option<usize> {
        self.get(&name.name_text())
    }
}

/// A name as stored bytes (a C string) read as a bone name.
pub fn bone_name(bytes: &[u8]) -> Cow<'_, str> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    decode_text(&bytes[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bone_of_a_name_wins_and_case_counts() {
        let names = BoneNames::new(["Bip01", "Bip01 Spine", "Bip01"]);
        assert_eq!(names.get("Bip01"), Some(0));
        assert_eq!(names.get("bip01"), None);
        assert_eq!(names.of(&FileString::from("Bip01 Spine\0junk".as_bytes())), Some(1));
    }

    #[test]
    fn korean_names_match_their_text() {
        let stored = FileString::encode_text("왼손");
        let names = BoneNames::new([bone_name(stored.as_bytes())]);
        assert_eq!(names.get("왼손"), Some(0));
    }
}
