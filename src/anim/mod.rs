//! Playing animations by the client's rules: sampling keys, clocks,
//! forward kinematics over a skeleton and skinning meshes on it; editing them as the game's tools do
//! (events, keys, join, trim, resample, mirror, retarget, key reduction). Pure math over the [`crate::format`]
//! values; nothing here knows about Bevy.

pub mod axes;
pub mod biped;
pub mod blend;
mod bone_blend;
pub mod bone_tracks;
pub mod clip;
pub mod clock;
pub mod edit;
pub mod guess;
pub mod math;
pub mod mirror;
pub mod mixer;
pub mod names;
pub mod path;
pub mod reduce;
pub mod retarget;
pub mod rig;
pub mod root_motion;
pub mod sample;
pub mod side;
pub mod skin;

pub use blend::PoseBlend;
pub use clip::{Clip, ClipTrack, Hints};
pub use clock::{EventWindow, RepeatMode, Step};
pub use edit::{EditError, join, resample, trim};
pub use guess::{GuessedSkeleton, ParentRule, guess_skeleton};
pub use math::slerp;
pub use mirror::mirror;
pub use mixer::{Action, Fired, InstanceId, Loop, Mixer, Removed};
pub use names::BoneNames;
pub use path::{RootPath, root_path};
pub use retarget::{Alignment, BoneMap, RestPoses, RetargetSource, Retargeted, Retargeter, retarget, suggest_map};
pub use rig::{Binding, Rig};
pub use sample::{BonePose, between, keyframes_in_seconds, poses, sample_keys, track_pose};
pub use side::{Side, side_of};
pub use skin::{MeshBinding, SkinnedVertices, skin, skin_on, swapped_triangles, vertex_influences};
