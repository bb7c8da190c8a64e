//! Where in a file something happened, for error messages and findings.

use std::fmt;

use super::string::FileString;

/// A part of a file, named the way a person looks for it: "track 3 'Bip01
/// Spine', key 17". Indices count from 0, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The magic, version and counts at the top of the file.
    Header,
    /// An event of an `.ani`.
    Event(usize),
    /// A track of an `.ani`, with its bone name once read.
    Track(usize, Option<FileString>),
    /// A key of a track.
    Key {
        /// Track index.
        track: usize,
        /// The track's bone name.
        bone: FileString,
        /// Key index within the track.
        key: usize,
    },
    /// A bone of a `.skl`, with its name once read.
    Bone(usize, Option<FileString>),
    /// A child name in a bone's child list.
    Child {
        /// Bone index.
        bone: usize,
        /// The bone's name.
        name: FileString,
        /// Index in the child list.
        child: usize,
    },
    /// A part of a mesh named by what it holds ("vertices", "faces",
    /// "weights", "control points"), for its counts.
    Section(&'static str),
    /// A submesh record of a `.msh`.
    Submesh(usize),
    /// A vertex in one of a mesh's arrays (`"position"`, `"weights"`, ...).
    Vertex {
        /// The array.
        array: &'static str,
        /// Vertex index.
        vertex: usize,
    },
    /// A name in a mesh's bone-name list (counted as stored, skipped
    /// entries included).
    MeshBone(usize),
    /// A triangle of a mesh's index list.
    Face(usize),
    /// A control point of a version 2002 `.msh`.
    ControlPoint(usize),
    /// Whatever follows the last track or bone.
    Trailer,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Header => write!(f, "header"),
            Self::Event(i) => write!(f, "event {i}"),
            Self::Track(i, None) => write!(f, "track {i}"),
            Self::Track(i, Some(name)) => write!(f, "track {i} '{name}'"),
            Self::Key { track, bone, key } => write!(f, "track {track} '{bone}', key {key}"),
            Self::Bone(i, None) => write!(f, "bone {i}"),
            Self::Bone(i, Some(name)) => write!(f, "bone {i} '{name}'"),
            Self::Child { bone, name, child } => write!(f, "bone {bone} '{name}', child {child}"),
            Self::Section(name) => f.write_str(name),
            Self::Submesh(i) => write!(f, "submesh {i}"),
            Self::Vertex { array, vertex } => write!(f, "{array} of vertex {vertex}"),
            Self::MeshBone(i) => write!(f, "bone name {i} of the weights"),
            Self::Face(i) => write!(f, "face {i}"),
            Self::ControlPoint(i) => write!(f, "control point {i}"),
            Self::Trailer => write!(f, "trailer"),
        }
    }
}
