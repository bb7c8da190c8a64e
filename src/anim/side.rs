//! Which side of the body a bone's name puts it on: the one rule that
//! mirroring ([`mod@super::mirror`]), map suggestions ([`mod@super::retarget`]) and
//! the Biped rest pose ([`super::biped`]) share.
//!
//! A name marks its side with a word, words being split at ` `, `_`, `.`,
//! `-` and `:`:
//!
//! - the word `L` or `R`, in either case: the Biped's `Bip01 L Hand`,
//!   Blender's `hand.L`, Unreal's `hand_l`;
//! - a word starting `left` or `right`, in any case: the game's own
//!   `Bip01 left_eyeball`, Mixamo's `mixamorig:LeftHand`.
//!
//! The first mark decides. The rule works on the stored bytes: the
//! separators and letters it looks for are ASCII, which CP949 never uses
//! inside a Korean character's second byte after a separator, so Korean
//! names keep every byte but the mark.

use std::ops::Range;

/// A side of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The character's left.
    Left,
    /// The character's right.
    Right,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Self {
        match self {
            Self::Left => Self::Right,
            Self::Right => Self::Left,
        }
    }

    /// The side's one-letter key, as map suggestions write it.
    pub fn letter(self) -> char {
        match self {
            Self::Left => 'l',
            Self::Right => 'r',
        }
    }
}

/// Where a name marks its side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideMark {
    /// The side marked.
    pub side: Side,
    /// The mark's bytes in the name: one letter, or `left`/`right`.
    pub at: Range<usize>,
}

/// The bytes that split a name into words.
const SEPARATORS: &[u8] = b" _.-:";

/// The first side mark of `name`, if any.
pub fn side_mark(name: &[u8]) -> Option<SideMark> {
    words(name).find_map(|word| {
        let text = &name[word.clone()];
        let side = match text {
            [b'l' | b'L'] => Some((Side::Left, 1)),
            [b'r' | b'R'] => Some((Side::Right, 1)),
            _ if starts_with_ignoring_case(text, b"left") => Some((Side::Left, 4)),
            _ if starts_with_ignoring_case(text, b"right") => Some((Side::Right, 5)),
            _ => None,
        };
        side.map(|(side, len)| SideMark { side, at: word.start..word.start + len })
    })
}

/// The side `name` is on; `None` on the middle line.
pub fn side_of(name: &[u8]) -> Option<Side> {
    side_mark(name).map(|mark| mark.side)
}

/// The bone on the other side: `Bip01 L Hand` for `Bip01 R Hand`,
/// `hand.l` for `hand.r`, `RightHand` for `LeftHand` (the mark's case
/// kept); a bone on the middle line is its own partner.
pub fn partner(name: &[u8]) -> Vec<u8> {
    let Some(mark) = side_mark(name) else { return name.to_vec() };
    let old = &name[mark.at.clone()];
    let new: &[u8] = match (mark.side, old.len()) {
        (Side::Left, 1) => b"r",
        (Side::Right, 1) => b"l",
        (Side::Left, _) => b"right",
        (Side::Right, _) => b"left",
    };
    let all_upper = old.iter().all(u8::is_ascii_uppercase);
    let cased = new.iter().enumerate().map(|(i, b)| match (all_upper, i, old[0].is_ascii_uppercase()) {
        (true, _, _) | (false, 0, true) => b.to_ascii_uppercase(),
        _ => *b,
    });
    [&name[..mark.at.start], &cased.collect::<Vec<u8>>(), &name[mark.at.end..]].concat()
}

/// `name` without its side mark, for comparing the part it names.
pub fn without_side(name: &[u8]) -> Vec<u8> {
    match side_mark(name) {
        Some(mark) => [&name[..mark.at.start], &name[mark.at.end..]].concat(),
        None => name.to_vec(),
    }
}

/// The byte ranges of a name's words.
fn words(name: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = 0;
    (0..=name.len()).filter_map(move |i| {
        if i < name.len() && !SEPARATORS.contains(&name[i]) {
            return None;
        }
        let word = start..i;
        start = i + 1;
        (!word.is_empty()).then_some(word)
    })
}

fn starts_with_ignoring_case(text: &[u8], prefix: &[u8]) -> bool {
    text.len() >= prefix.len() && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rigs_spelling_has_a_side_and_a_partner() {
        let pairs: [(&str, &str); 9] = [
            ("Bip01 L Hand", "Bip01 R Hand"),
            ("Bip01 left_eyeball", "Bip01 right_eyeball"),
            ("right_eyebrow", "left_eyebrow"),
            ("hand.L", "hand.R"),
            ("DEF-upper_arm.l", "DEF-upper_arm.r"),
            ("thigh_l", "thigh_r"),
            ("mixamorig:LeftHand", "mixamorig:RightHand"),
            ("LEFT_FOOT", "RIGHT_FOOT"),
            ("L Clavicle", "R Clavicle"),
        ];
        for (name, other) in pairs {
            assert_eq!(String::from_utf8(partner(name.as_bytes())).unwrap(), other, "{name}");
            assert_eq!(String::from_utf8(partner(other.as_bytes())).unwrap(), name, "{other}");
            assert_eq!(side_of(name.as_bytes()).map(Side::other), side_of(other.as_bytes()));
            assert!(side_of(name.as_bytes()).is_some());
        }
    }

    #[test]
    fn middle_line_bones_are_their_own_partners() {
        for name in ["Bip01", "Bip01 Spine1", "Hips", "mixamorig:Head", "Lower", "shoulder.rig", "", "Bip01 Lr"] {
            assert_eq!(side_of(name.as_bytes()), None, "{name}");
            assert_eq!(partner(name.as_bytes()), name.as_bytes());
        }
    }

    #[test]
    fn korean_names_keep_their_bytes() {
        // CP949 `와` then " L A": the mark is the ASCII word, not a byte
        // inside the Korean character.
        let name = [0xbf, 0xde, b' ', b'L', b' ', b'A'];
        assert_eq!(partner(&name), [0xbf, 0xde, b' ', b'R', b' ', b'A']);
        assert_eq!(without_side(&name), [0xbf, 0xde, b' ', b' ', b'A']);
        let trail_l = [0xb0, b'L', b' ', b'x'];
        assert_eq!(side_of(&trail_l), None, "an L inside a Korean character is no mark");
    }
}
