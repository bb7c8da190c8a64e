//! Playing animations by the client's rules: sampling keys, clocks, and
//! forward kinematics over a skeleton. Pure math over the [`crate::format`]
//! values; nothing here knows about Bevy.

pub mod biped;
pub mod clock;
pub mod rig;
pub mod sample;

pub use clock::{RepeatMode, Step};
pub use rig::{Binding, Rig};
pub use sample::{BonePose, sample_keys, slerp, track_pose};
