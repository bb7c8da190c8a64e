//! The io3D file formats as plain Rust values, read and written byte for
//! byte. Nothing here knows about time or Bevy.

pub mod ani;
pub mod bytes;
pub mod config;
pub mod place;
pub mod rotation;
pub mod skl;
pub mod string;
pub mod write;

pub use ani::{AniError, AniLayout, AniVersion, Animation, Event, Key, ReadOptions, Track};
pub use bytes::ReadError;
pub use config::{ConfigError, ModelConfig};
pub use place::Place;
pub use rotation::PackedRotation;
pub use skl::{Bone, Hierarchy, HierarchyError, HierarchyProblem, Skeleton, SklError, SklLayout};
pub use string::FileString;
pub use write::{WriteError, WriteProblem};
