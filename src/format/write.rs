//! Why a value cannot be written as a file the client reads back.

use thiserror::Error;

use super::place::Place;
use super::string::MAX_STRING_LEN;

/// A value that cannot be written: the file would not load in the client
/// as the value says.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("cannot write {place}: {problem}")]
pub struct WriteError {
    /// Where in the file.
    pub place: Place,
    /// What is wrong.
    pub problem: WriteProblem,
}

/// What makes a value unwritable.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum WriteProblem {
    /// A string the client's 260-byte buffer cannot hold.
    #[error("{what} is {len} bytes long; the client's buffer holds {} bytes at most", MAX_STRING_LEN - 1)]
    StringTooLong {
        /// Which string.
        what: &'static str,
        /// Its length.
        len: usize,
    },
    /// More items than an `i32` count can say.
    #[error("{count} {what} do not fit in a 32-bit count")]
    CountTooLarge {
        /// What is counted.
        what: &'static str,
        /// How many there are.
        count: usize,
    },
    /// A rotation with no direction (zero, NaN or infinite) cannot be
    /// compressed for versions 4001 and 4002.
    #[error("rotation {0:?} cannot be normalised for compression")]
    Unencodable([f32; 4]),
    /// A mesh array whose length is not the vertex count (or that is not
    /// empty while its mask bit is clear).
    #[error("{what} has {len} entries, but the mask and vertex count say {expected}")]
    ArrayLength {
        /// Which array.
        what: &'static str,
        /// Entries it has.
        len: usize,
        /// Entries the file stores.
        expected: usize,
    },
    /// A block present without its mask bit, or missing with it.
    #[error("{what} is {} but mask bit {bit} is {}", if *present { "present" } else { "missing" }, if *present { "clear" } else { "set" })]
    MaskBit {
        /// Which block.
        what: &'static str,
        /// The bit.
        bit: u32,
        /// Whether the block is there.
        present: bool,
    },
    /// An index list that does not end on a whole triangle.
    #[error("{0} indices do not make whole triangles")]
    PartialFace(usize),
    /// Control points in a mesh whose version does not store them.
    #[error("{count} control points, but only version 2002 stores them (this mesh is version {version})")]
    ControlPointsNeed2002 {
        /// How many there are.
        count: usize,
        /// The mesh's version.
        version: i32,
    },
}

impl WriteProblem {
    /// Puts the problem at a place in the file.
    pub fn at(self, place: Place) -> WriteError {
        WriteError { place, problem: self }
    }
}
