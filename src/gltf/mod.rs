//! glTF 2.0 in and out, through the `gltf` crate (feature `gltf`).
//!
//! - [`export()`]: a skeleton, its meshes (with materials and textures) and
//!   animations as one `.glb`, for Blender, three.js, Godot or Bevy;
//!   [`export_model()`] also a static model (meshes with no skeleton) and
//!   collision meshes, as nodes named `<name>_collision`.
//! - [`import()`]: an animation from any glTF (Blender, Mixamo, motion
//!   capture) retargeted onto a game skeleton, as an `.ani`.
//!
//! Both convert between the engine's left-handed axes and glTF's
//! right-handed, Y-up ones by mirroring X ([`crate::anim::axes`]: the
//! character faces +Z, glTF's front), and keep
//! what glTF has no place for (version, total time, events, track weights) in the
//! animation's extras ([`AnimationExtras`]), so a round trip gives back the
//! same keys and events.
//!
//! ```
//! use bevy_io3d::format::{Animation, Skeleton};
//! use bevy_io3d::gltf::{ExportOptions, GltfDocument, ImportOptions, export, import};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let assets = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");
//! let skeleton = Skeleton::from_bytes(&std::fs::read(format!("{assets}/biped.skl"))?)?;
//! let walk = Animation::from_bytes(&std::fs::read(format!("{assets}/biped_walk_4002.ani"))?)?;
//! // The skeleton and the walk as a .glb, in metres.
//! let glb = export(&skeleton, &[], &[("walk".into(), &walk)], ExportOptions::default())?.bytes;
//! // ... and back onto the skeleton, bones mapped by their names.
//! let back = import(&GltfDocument::from_slice(&glb, None)?, &skeleton, &ImportOptions::default())?;
//! assert_eq!(back.animation.key_count(), walk.key_count());
//! assert_eq!(back.animation.events, walk.events);
//! # Ok(())
//! # }
//! ```

mod armature;
mod document;
mod export;
mod extras;
mod glb;
mod import;
mod model;
mod source;
#[cfg(test)]
mod tests;

pub use armature::{Armature, ArmatureOptions, armature};
pub use document::{GltfDocument, files_named, is_gltf};
pub use export::{COLLISION_SUFFIX, ExportOptions, Exported, ModelParts, dds_to_png, export, export_model};
pub use extras::{AnimationExtras, EventExtra, TrackWeight};
pub use import::{ImportOptions, Imported, import, suggested_map};
pub use model::{Files, ImportedModel, MAX_WEIGHTS, ModelOptions, import_model};
pub use source::{SourceAnimation, SourceNodes};

/// Why a glTF could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    /// The skeleton's bones do not form one tree.
    #[error("skeleton: {0}")]
    Skeleton(String),
    /// A model with no skeleton holds what moves with bones: animations or
    /// skinned meshes (which, and how many).
    #[error("no skeleton, but {0} need one")]
    NoSkeleton(String),
    /// The file could not be read (itself or a buffer it names).
    #[error("cannot read: {0}")]
    Read(String),
    /// The file breaks the glTF 2.0 rules; the message names the part.
    #[error("not valid glTF 2.0: {0}")]
    Invalid(String),
    /// Valid glTF that this crate does not read; the message names the part.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// No animation by the asked name, or several and none asked for.
    #[error("{}", no_animation(.asked, .found))]
    NoAnimation {
        /// The name asked for.
        asked: Option<String>,
        /// The file's animations.
        found: Vec<String>,
    },
    /// Several animations have the name asked for: which is not guessed.
    #[error("{}", shared_name(.name, .indices))]
    SharedAnimationName {
        /// The name asked for.
        name: String,
        /// The indices of the animations of that name.
        indices: Vec<usize>,
    },
    /// No node of the animation maps to a bone of the skeleton.
    #[error("animation '{0}': no glTF node maps to a bone of the skeleton (give a map with source = target lines)")]
    NoBones(String),
    /// The export scale is not a positive number.
    #[error("the scale must be a positive number of glTF units a game unit, not {0}")]
    Scale(f32),
    /// A mesh the game cannot take: too many vertices or bones, no UVs,
    /// primitives that are not triangles.
    #[error("mesh '{mesh}', primitive {primitive}: {why}")]
    GameLimit {
        /// The glTF mesh's name.
        mesh: String,
        /// The primitive's index in the mesh.
        primitive: usize,
        /// What the game cannot take, with the count.
        why: String,
    },
    /// The `.glb` could not be put together.
    #[error("cannot write the glTF: {0}")]
    Write(String),
}

fn no_animation(asked: &Option<String>, found: &[String]) -> String {
    let list = if found.is_empty() { "none".to_owned() } else { found.join(", ") };
    match asked {
        Some(name) => format!("no animation named '{name}'; the file has: {list}"),
        None => format!(
            "the file has {} animations ({list}); choose one by name, or by index as '#0' to '#{}'",
            found.len(),
            found.len().saturating_sub(1)
        ),
    }
}

/// Why a name several animations share picks none, and how to pick one.
fn shared_name(name: &str, indices: &[usize]) -> String {
    let asked: Vec<String> = indices.iter().map(|i| format!("#{i}")).collect();
    let first = asked.first().map_or("#0", String::as_str);
    format!("{} animations are named '{name}' ({}): choose one by index, as '{first}'", indices.len(), asked.join(", "))
}
