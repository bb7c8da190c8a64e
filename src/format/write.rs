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
}

impl WriteProblem {
    /// Puts the problem at a place in the file.
    pub fn at(self, place: Place) -> WriteError {
        WriteError { place, problem: self }
    }
}
