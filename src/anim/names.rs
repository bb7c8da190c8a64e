//! Bone names as tracks meet bones: the one rule for the library's rigs,
//! the lint, skinning, the glTF export and the plugin's entities.
//!
//! **The client's rule** ([`BoneNames::get`]): a name is the bytes up to
//! the first zero (a C string), compared exactly, case and encoding
//! included. A track drives the first bone so named; a track or mesh bone
//! with no such bone gets the root in the client (we report it instead).
//! So `왼손` stored in CP949 does not bind a bone stored in UTF-8, in the
//! client and here alike.
//!
//! **The text rule** ([`BoneNames::by_text`]): the name as text
//! ([`bone_name`]), compared exactly. For names that come through text, as
//! bone maps and glTF nodes do: a CP949 bone exported as `왼손` is found
//! again by that text.
//!
//! **The loose rule** ([`BoneNames::loosely`], [`loose_key`]): the same
//! text whatever its encoding and case. It binds nothing; it serves where a
//! person asks for a suggestion (retarget and import maps, the Biped
//! guess) and the lint, which names the bone a track meant.
//!
//! Which side of the body a name is on is [`super::side`]'s rule.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::format::FileString;
use crate::format::string::{c_str, name_text};

/// Bone names and the first bone holding each, by the client's rule and by
/// the loose one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoneNames {
    first: HashMap<Vec<u8>, usize>,
    text: HashMap<String, usize>,
    loose: HashMap<String, usize>,
}

impl BoneNames {
    /// The index of names given in bone order, as stored bytes (or text,
    /// whose UTF-8 bytes are what a Bevy `Name` or a glTF node stores).
    pub fn new<S: AsRef<[u8]>>(names: impl IntoIterator<Item = S>) -> Self {
        let mut index = Self::default();
        for (bone, name) in names.into_iter().enumerate() {
            let name = c_str(name.as_ref());
            index.first.entry(name.to_vec()).or_insert(bone);
            index.text.entry(bone_name(name).into_owned()).or_insert(bone);
            index.loose.entry(loose_key(name)).or_insert(bone);
        }
        index
    }

    /// The first bone named `name`, by the client's rule (bytes up to the
    /// first zero, compared exactly).
    pub fn get(&self, name: &[u8]) -> Option<usize> {
        self.first.get(c_str(name)).copied()
    }

    /// The first bone with the name a file stores (a track's or a mesh's
    /// bone name), by the client's rule.
    pub fn of(&self, name: &FileString) -> Option<usize> {
        self.get(name.c_str())
    }

    /// The first bone whose name reads as the text `name` (case counts):
    /// for names that came through text (bone maps, glTF nodes).
    pub fn by_text(&self, name: &str) -> Option<usize> {
        self.text.get(name).copied()
    }

    /// The first bone whose name is `name` by the loose rule (any encoding,
    /// any case): for suggestions and reports only, never for binding.
    pub fn loosely(&self, name: &[u8]) -> Option<usize> {
        self.loose.get(&loose_key(c_str(name))).copied()
    }
}

/// A name as stored bytes (a C string) read as text, for display and for
/// naming entities: UTF-8 when valid, CP949 otherwise ([`name_text`]).
pub fn bone_name(bytes: &[u8]) -> Cow<'_, str> {
    name_text(bytes)
}

/// The loose rule's key: the name as text in lower case, so that one name
/// spelt in CP949 or UTF-8, in any case, has one key.
pub fn loose_key(bytes: &[u8]) -> String {
    bone_name(bytes).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bone_of_a_name_wins_and_case_counts() {
        let names = BoneNames::new(["Bip01", "Bip01 Spine", "Bip01"]);
        assert_eq!(names.get(b"Bip01"), Some(0));
        assert_eq!(names.get(b"bip01"), None);
        assert_eq!(names.loosely(b"bip01"), Some(0));
        assert_eq!(names.of(&FileString::from("Bip01 Spine\0junk".as_bytes())), Some(1));
    }

    #[test]
    fn a_name_binds_only_in_its_own_encoding() {
        let cp949 = FileString::encode_text("왼손");
        assert_ne!(cp949.as_bytes(), "왼손".as_bytes());
        let names = BoneNames::new(["왼손"]);
        assert_eq!(names.get("왼손".as_bytes()), Some(0));
        assert_eq!(names.of(&cp949), None, "the client compares bytes");
        assert_eq!(names.loosely(cp949.as_bytes()), Some(0), "a suggestion sees one name");
        assert_eq!(bone_name(cp949.as_bytes()), "왼손");
    }
}
