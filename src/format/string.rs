//! Strings as the files store them: raw bytes with no implied encoding.

use std::borrow::Cow;
use std::fmt;

/// The client reads strings into a 260-byte C buffer: a string this long or
/// longer overflows it, so we never write one.
pub const MAX_STRING_LEN: usize = 260;

/// A string from a file, kept as raw bytes so that it writes back byte for
/// byte. Names are usually ASCII; event sub info can hold Korean text in
/// CP949. Decode only for display ([`FileString::to_text`]).
///
/// The client reads a length of zero or less as the empty string; the stored
/// length of such a string is kept (`empty_length`) so that a file holding,
/// say, `-1` writes back `-1`.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileString {
    bytes: Vec<u8>,
    empty_length: i32,
}

impl FileString {
    /// The empty string as stored with a length field of `len` (zero or
    /// negative; a positive value is taken as zero).
    pub fn empty_with_length(len: i32) -> Self {
        Self { bytes: Vec::new(), empty_length: len.min(0) }
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Bytes reserved on the heap for it.
    pub fn capacity(&self) -> usize {
        self.bytes.capacity()
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The length field this string writes: its byte length, or the stored
    /// zero-or-negative length when empty.
    pub fn length_field(&self) -> i32 {
        if self.bytes.is_empty() { self.empty_length } else { self.bytes.len() as i32 }
    }

    /// The bytes the client sees ([`c_str`]). Bone names are matched on
    /// this.
    pub fn c_str(&self) -> &[u8] {
        c_str(&self.bytes)
    }

    /// Whether this is the name `name` by the client's rule: the bytes up
    /// to the first zero of each, compared exactly (case and encoding
    /// included). [`crate::anim::BoneNames`] indexes names by this rule.
    pub fn is_named(&self, name: &[u8]) -> bool {
        self.c_str() == c_str(name)
    }

    /// Whether a zero byte cuts the string short in the client.
    pub fn has_zero_byte(&self) -> bool {
        self.c_str().len() != self.bytes.len()
    }

    /// The bytes as UTF-8, if they are.
    pub fn as_utf8(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }

    /// Text for display: UTF-8 when valid (ASCII names are), otherwise
    /// decoded as CP949, the Korean code page the game's files use.
    pub fn to_text(&self) -> String {
        decode_text(&self.bytes).into_owned()
    }

    /// The name the client compares as text ([`name_text`]).
    pub fn name_text(&self) -> Cow<'_, str> {
        name_text(&self.bytes)
    }
}

/// The bytes the client sees of a stored string: everything before the
/// first zero byte, since it handles names as C strings.
pub fn c_str(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// A stored name as text: the bytes the client compares ([`c_str`])
/// decoded ([`decode_text`]). What a bone entity is called and what bone
/// maps and glTF nodes spell, so that Korean names bind too.
pub fn name_text(bytes: &[u8]) -> Cow<'_, str> {
    decode_text(c_str(bytes))
}

/// Bytes from a file as text: UTF-8 when valid (ASCII is), otherwise
/// CP949, the Korean code page the game's files use.
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => encoding_rs::EUC_KR.decode_without_bom_handling(bytes).0,
    }
}

impl FileString {
    /// Typed text as the game stores it: CP949 (which holds ASCII as is
    /// and Korean as the client shows it), or UTF-8 for text CP949 cannot
    /// hold.
    pub fn encode_text(text: &str) -> Self {
        let (bytes, _, unmappable) = encoding_rs::EUC_KR.encode(text);
        if unmappable { Self::from(text) } else { Self::from(bytes.into_owned()) }
    }
}

impl From<&[u8]> for FileString {
    fn from(bytes: &[u8]) -> Self {
        Self { bytes: bytes.to_vec(), empty_length: 0 }
    }
}

impl From<Vec<u8>> for FileString {
    fn from(bytes: Vec<u8>) -> Self {
        Self { bytes, empty_length: 0 }
    }
}

impl From<&str> for FileString {
    fn from(s: &str) -> Self {
        Self::from(s.as_bytes())
    }
}

impl PartialEq<str> for FileString {
    fn eq(&self, other: &str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl PartialEq<&str> for FileString {
    fn eq(&self, other: &&str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl fmt::Display for FileString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl fmt::Debug for FileString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_utf8() {
            Some(s) => write!(f, "{s:?}"),
            None => write!(f, "b{:?}", self.to_text()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_is_stored_as_cp949() {
        let korean = FileString::encode_text("발소리");
        assert_ne!(korean.as_bytes(), "발소리".as_bytes());
        assert_eq!(korean.to_text(), "발소리");
        assert_eq!(FileString::encode_text("step.wav"), "step.wav");
        assert_eq!(FileString::encode_text("🎵").to_text(), "🎵");
    }

    #[test]
    fn cp949_text_decodes_for_display() {
        // "공격" (attack) in CP949.
        let s = FileString::from(&[0xB0, 0xF8, 0xB0, 0xDD][..]);
        assert_eq!(s.as_utf8(), None);
        assert_eq!(s.to_text(), "공격");
    }

    #[test]
    fn zero_byte_cuts_the_client_name() {
        let s = FileString::from(&b"Bip01\0junk"[..]);
        assert!(s.has_zero_byte());
        assert_eq!(s.c_str(), b"Bip01");
    }
}
