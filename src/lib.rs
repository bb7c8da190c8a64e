//! Read, write, check and play the animation files of the io3D engine, the
//! engine of the online game Lost Saga.
//!
//! ```
//! use bevy_io3d::prelude::*;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/biped_walk_4002.ani"))?;
//! let walk = Animation::from_bytes(&bytes)?;
//! // Unchanged values write back the same bytes.
//! assert_eq!(walk.to_bytes()?, bytes);
//!
//! let skeleton = Skeleton::from_bytes(&std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/biped.skl"))?)?;
//! let rig = Rig::new(&skeleton)?;
//! let pose = rig.world_pose(&Clip::new(&walk), 500.0);
//! println!("Bip01 at 500 ms: {}", pose[0].position);
//! # Ok(())
//! # }
//! ```
//!
//! - [`format`](mod@format): `.ani`, `.skl`, `.msh`, `.cms`, model configs and
//!   material scripts as plain values, read and
//!   written byte for byte, with errors that say where.
//! - [`anim`]: sampling by the client's rules, clocks, forward kinematics.
//! - [`resource`]: resource folders as the client searches them, and model
//!   configs resolved into characters (skeleton, meshes, materials,
//!   textures, animations).
//! - [`surface`]: how the client draws a material, read once for the
//!   plugin's materials and the glTF export.
//! - [`check`]: the lint behind `io3d check`: what would break in the game.
//! - `gltf` (feature `gltf`): glTF 2.0 export of skeletons, meshes and
//!   animations, and import of animations from any tool.
//! - `json` (feature `json`): the JSON form behind `io3d dump` and
//!   `io3d build`.
//! - `plugin` (feature `plugin`): the Bevy plugin that plays `.ani`
//!   clips on any rig, as the client plays them; its page is the guide,
//!   with the README's example compiled.
//! - [`viewer`] (feature `viewer`, default): the desktop viewer behind
//!   `io3d-viewer`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod anim;
pub mod check;
pub mod file;
pub mod format;
#[cfg(feature = "gltf")]
pub mod gltf;
#[cfg(feature = "json")]
pub mod json;
mod lanes;
#[cfg(feature = "plugin")]
pub mod plugin;
pub mod resource;
pub mod surface;
#[cfg(feature = "viewer")]
pub mod viewer;

/// The types most programs need. It holds no name Bevy's prelude also
/// has, so that both globs can be used together (the file format's
/// `Event` is [`format::Event`]):
///
/// ```
/// # #[cfg(feature = "characters")] {
/// use bevy::prelude::*;
/// use bevy_io3d::prelude::*;
///
/// // Every name of this prelude, next to Bevy's.
/// fn names(_: (Action, BonePose, Clip, Loop, Mixer<u32>, PoseBlend, RepeatMode, Rig)) {}
/// fn format(_: (AniVersion, Animation, EventKind, FileString, Key, ModelConfig, Skeleton, Track)) {}
/// fn plugin(_: (AniClip, AniClipEnded, AniEventFired, AniPlayer, Axes, Io3dPlugin, RootMotion, SklRig)) {}
/// fn rig(_: (AniLod, AniLodFocus, AniPlayback, SklSkeleton)) {}
/// fn characters(_: (HiddenMeshes, Io3dCharacter, Io3dMesh, Io3dModel, RigMeshes)) {}
/// # }
/// ```
pub mod prelude {
    pub use crate::anim::{Action, BonePose, Clip, Loop, Mixer, PoseBlend, RepeatMode, Rig};
    pub use crate::format::{AniVersion, Animation, EventKind, FileString, Key, ModelConfig, Skeleton, Track};
    #[cfg(feature = "characters")]
    pub use crate::plugin::character::{HiddenMeshes, Io3dCharacter, Io3dMesh, Io3dModel, RigMeshes};
    #[cfg(feature = "plugin")]
    pub use crate::plugin::{
        AniClip, AniClipEnded, AniEventFired, AniLod, AniLodFocus, AniPlayback, AniPlayer, Axes, Io3dPlugin,
        RootMotion, SklRig, SklSkeleton,
    };
}
