//! A bounds-checked little-endian reader and a growable writer.
//!
//! Every read names what it is reading, so that a short file produces an
//! error such as "position needs 12 bytes at byte 9004, but the file ends at
//! byte 9012" instead of a panic. Room is reserved for no more items than
//! the bytes left can hold, so a tiny file claiming two billion keys
//! allocates nothing much.

use glam::{Quat, Vec3};
use thiserror::Error;

use super::string::{FileString, MAX_STRING_LEN};
use super::write::WriteProblem;

/// A failure while decoding bytes, before the format gives it a place
/// (the track, key or bone being read).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReadError {
    /// The file ends before a value that should be there.
    #[error("{what} needs {needed} bytes at byte {at}, but the file ends at byte {len}")]
    Truncated {
        /// What was being read ("position", "key count", ...).
        what: &'static str,
        /// Byte offset where the value starts.
        at: usize,
        /// Bytes the value needs.
        needed: usize,
        /// Length of the whole file.
        len: usize,
    },
    /// A count field is negative.
    #[error("{what} at byte {at} is negative ({count})")]
    NegativeCount {
        /// What is being counted.
        what: &'static str,
        /// Byte offset of the count field.
        at: usize,
        /// The value stored.
        count: i32,
    },
    /// A string of 260 bytes or more, which overflows the client's buffer.
    #[error("{what} at byte {at} is {len} bytes long; the client's buffer holds {} bytes at most", MAX_STRING_LEN - 1)]
    StringTooLong {
        /// What the string is ("bone name", ...).
        what: &'static str,
        /// Byte offset of the length field.
        at: usize,
        /// The length stored.
        len: i32,
    },
}

impl ReadError {
    /// The byte offset where the failed value starts.
    pub fn offset(&self) -> usize {
        match self {
            Self::Truncated { at, .. } | Self::NegativeCount { at, .. } | Self::StringTooLong { at, .. } => *at,
        }
    }
}

/// Reads little-endian values from a byte slice, tracking the offset.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Accept strings of 260 bytes or more (for the lint, which reports them).
    pub allow_long_strings: bool,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0, allow_long_strings: false }
    }

    /// The current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The length of the whole input.
    pub fn file_len(&self) -> usize {
        self.data.len()
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ReadError> {
        if n > self.remaining() {
            return Err(ReadError::Truncated { what, at: self.pos, needed: n, len: self.data.len() });
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    /// Takes everything that is left.
    pub fn rest(&mut self) -> &'a [u8] {
        let bytes = &self.data[self.pos..];
        self.pos = self.data.len();
        bytes
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ReadError> {
        let bytes = self.take(N, what)?;
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// Reads a little-endian `i32`.
    pub fn i32(&mut self, what: &'static str) -> Result<i32, ReadError> {
        self.array(what).map(i32::from_le_bytes)
    }

    /// Reads a little-endian `u16`.
    pub fn u16(&mut self, what: &'static str) -> Result<u16, ReadError> {
        self.array(what).map(u16::from_le_bytes)
    }

    /// Reads a little-endian `u32`.
    pub fn u32(&mut self, what: &'static str) -> Result<u32, ReadError> {
        self.array(what).map(u32::from_le_bytes)
    }

    /// Reads a little-endian `f32`, keeping its exact bits.
    pub fn f32(&mut self, what: &'static str) -> Result<f32, ReadError> {
        self.u32(what).map(f32::from_bits)
    }

    /// Reads `N` consecutive `f32`s.
    pub fn f32s<const N: usize>(&mut self, what: &'static str) -> Result<[f32; N], ReadError> {
        self.take(4 * N, what).map(f32s_at)
    }

    /// Reads a `vec3` (x, y, z).
    pub fn vec3(&mut self, what: &'static str) -> Result<Vec3, ReadError> {
        self.f32s::<3>(what).map(Vec3::from_array)
    }

    /// Reads a `quat` stored as x, y, z, w.
    pub fn quat(&mut self, what: &'static str) -> Result<Quat, ReadError> {
        self.f32s::<4>(what).map(Quat::from_array)
    }

    /// Reads a count of items, refusing a negative one. The count is not
    /// trusted for allocation: see [`Reader::capacity`].
    pub fn count(&mut self, what: &'static str) -> Result<usize, ReadError> {
        let at = self.pos;
        let count = self.i32(what)?;
        usize::try_from(count).map_err(|_| ReadError::NegativeCount { what, at, count })
    }

    /// How many of `count` items of at least `item_size` bytes to reserve
    /// room for: no more than the bytes left can hold, so that a tiny file
    /// claiming two billion keys allocates nothing much. Reading then stops
    /// at the first item the file is too short for, naming it.
    pub fn capacity(&self, count: usize, item_size: usize) -> usize {
        count.min(self.remaining() / item_size.max(1))
    }

    /// Reads `count` items of `size` bytes each (vertices, indices) in one
    /// piece, each decoded by `parse`. A file too short for all of them
    /// fails at the first item it cannot hold, returning that item's index
    /// with the error, so that a message can name the vertex or face.
    pub fn items<T>(
        &mut self,
        count: usize,
        size: usize,
        what: &'static str,
        parse: impl Fn(&[u8]) -> T,
    ) -> Result<Vec<T>, (usize, ReadError)> {
        Ok(self.item_bytes(count, size, what)?.chunks_exact(size.max(1)).map(parse).collect())
    }

    /// The bytes of `count` items of `size` bytes each, as
    /// [`Reader::items`] reads them.
    pub fn item_bytes(
        &mut self,
        count: usize,
        size: usize,
        what: &'static str,
    ) -> Result<&'a [u8], (usize, ReadError)> {
        match count.checked_mul(size) {
            Some(total) if total <= self.remaining() => self.take(total, what).map_err(|e| (0, e)),
            _ => {
                let whole = self.remaining() / size.max(1);
                self.pos += whole * size;
                Err((whole, ReadError::Truncated { what, at: self.pos, needed: size, len: self.data.len() }))
            }
        }
    }

    /// Reads a string: an `i32` length, then that many bytes. A length of
    /// zero or less is the empty string and consumes nothing more, as in the
    /// client; the stored length is kept so the file writes back the same.
    pub fn string(&mut self, what: &'static str) -> Result<FileString, ReadError> {
        let at = self.pos;
        let len = self.i32(what)?;
        if len <= 0 {
            return Ok(FileString::empty_with_length(len));
        }
        if len as usize >= MAX_STRING_LEN && !self.allow_long_strings {
            return Err(ReadError::StringTooLong { what, at, len });
        }
        Ok(FileString::from(self.take(len as usize, what)?))
    }
}

/// Decodes a little-endian `vec3` from 12 bytes (for [`Reader::items`]).
pub fn vec3_at(bytes: &[u8]) -> Vec3 {
    Vec3::from_array(f32s_at(bytes))
}

/// Decodes `N` little-endian `f32`s from the start of `bytes`.
pub fn f32s_at<const N: usize>(bytes: &[u8]) -> [f32; N] {
    std::array::from_fn(|i| f32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]]))
}

/// Decodes `N` little-endian `i32`s from the start of `bytes`.
pub fn i32s_at<const N: usize>(bytes: &[u8]) -> [i32; N] {
    std::array::from_fn(|i| i32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]]))
}

/// Appends little-endian values to a byte vector.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    /// An empty writer with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Self { bytes: Vec::with_capacity(capacity) }
    }

    /// The bytes written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Appends an `i32`.
    pub fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }

    /// Appends a `u16`.
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    /// Appends an `f32` with its exact bits.
    pub fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }

    /// Appends consecutive `f32`s.
    pub fn f32s(&mut self, values: &[f32]) {
        for v in values {
            self.f32(*v);
        }
    }

    /// Appends a `vec3`.
    pub fn vec3(&mut self, v: Vec3) {
        self.f32s(&v.to_array());
    }

    /// Appends a `quat` as x, y, z, w.
    pub fn quat(&mut self, q: Quat) {
        self.f32s(&q.to_array());
    }

    /// Appends the count of `what`, refusing one that an `i32` cannot hold.
    pub fn count(&mut self, count: usize, what: &'static str) -> Result<(), WriteProblem> {
        let n = i32::try_from(count).map_err(|_| WriteProblem::CountTooLarge { what, count })?;
        self.i32(n);
        Ok(())
    }

    /// Appends a string, refusing one the client could not read back
    /// (260 bytes or more).
    pub fn string(&mut self, s: &FileString, what: &'static str) -> Result<(), WriteProblem> {
        if s.len() >= MAX_STRING_LEN {
            return Err(WriteProblem::StringTooLong { what, len: s.len() });
        }
        self.i32(s.length_field());
        self.bytes(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_read_names_what_and_where() {
        let mut r = Reader::new(&[1, 2, 3]);
        let err = r.i32("key count").unwrap_err();
        assert_eq!(err.to_string(), "key count needs 4 bytes at byte 0, but the file ends at byte 3");
    }

    #[test]
    fn counts_are_not_trusted_for_allocation() {
        let mut data = 2_000_000_000i32.to_le_bytes().to_vec();
        data.extend([0; 64]);
        let mut r = Reader::new(&data);
        let count = r.count("key count").unwrap();
        assert_eq!(r.capacity(count, 20), 3);
        let err = Reader::new(&(-1i32).to_le_bytes()).count("key count").unwrap_err();
        assert!(matches!(err, ReadError::NegativeCount { count: -1, .. }));
    }

    #[test]
    fn non_positive_string_length_reads_empty_and_writes_back() {
        let data = (-7i32).to_le_bytes();
        let mut r = Reader::new(&data);
        let s = r.string("name").unwrap();
        assert!(s.is_empty());
        assert_eq!(r.remaining(), 0);
        let mut w = Writer::default();
        w.string(&s, "name").unwrap();
        assert_eq!(w.into_bytes(), data);
    }

    #[test]
    fn long_strings_are_refused_unless_allowed() {
        let mut data = 260i32.to_le_bytes().to_vec();
        data.extend([b'a'; 260]);
        assert!(matches!(Reader::new(&data).string("name"), Err(ReadError::StringTooLong { len: 260, .. })));
        let mut lenient = Reader::new(&data);
        lenient.allow_long_strings = true;
        assert_eq!(lenient.string("name").unwrap().len(), 260);
        assert!(Writer::default().string(&FileString::from(&[b'a'; 260][..]), "name").is_err());
    }
}
