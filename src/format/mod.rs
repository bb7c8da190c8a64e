//! The io3D file formats as plain Rust values, read and written byte for
//! byte: animations, skeletons, meshes, collision meshes, model configs and
//! material scripts. Nothing here knows about time or Bevy.

pub mod ani;
pub mod ant;
pub mod bytes;
pub mod c_text;
pub mod cms;
pub mod config;
pub mod dds;
pub mod error;
pub mod event_kind;
pub mod material;
pub mod msh;
pub mod place;
pub mod rotation;
pub mod skl;
pub mod sniff;
pub mod string;
pub mod write;

pub use ani::{AniError, AniLayout, AniVersion, Animation, Event, Key, ReadOptions, Track};
pub use ant::EventSidecar;
pub use bytes::ReadError;
pub use cms::{CmsError, Collision};
pub use config::{ConfigError, ModelConfig};
pub use dds::{Blocks, Dds, DdsError, DdsFormat, EncodeError, EncodeProblem};
pub use error::{BinaryKind, FormatError};
pub use event_kind::{EventKind, Handler, MeshSwitch};
pub use material::{
    AddressMode, AlphaTest, BlendFactor, BlendOp, CompareFunc, Cull, CustomParam, CustomValue, Filtering, Material,
    MaterialError, MaterialScript, MaterialWarning, Pass, SceneBlend, Technique, TextureUnit,
};
pub use msh::{ControlPoint, Mesh, MshError, MshLayout, Submesh, VertexArray, VertexMask, Weights};
pub use place::Place;
pub use rotation::PackedRotation;
pub use skl::{Bone, Hierarchy, HierarchyError, HierarchyProblem, Skeleton, SklError, SklLayout};
pub use sniff::{Magic, sniff};
pub use string::FileString;
pub use write::{WriteError, WriteProblem};
