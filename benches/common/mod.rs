//! Characters of the game's size for benchmarks and the stress example:
//! the Biped with fingers (52 bones) and clips as long as the community
//! makes them (seconds at 100 keys a second), and (`cores`) the task
//! pools the apps that pose them run on.

use bevy_io3d::anim::biped;
use bevy_io3d::format::{AniVersion, Animation, Bone, FileString, Key, Skeleton, Track};
use glam::{Mat4, Quat, Vec3};

// For the targets that run an app (the sample bench runs none).
#[cfg(feature = "plugin")]
#[allow(dead_code)]
pub mod cores;

/// The bundled Biped with five three-joint fingers on each hand: 52 bones,
/// the size of the game's characters.
pub fn game_skeleton() -> Skeleton {
    let mut skeleton = biped::skeleton();
    for side in ["L", "R"] {
        let hand = format!("Bip01 {side} Hand");
        for finger in 0..5 {
            let mut parent = hand.clone();
            for joint in 0..3 {
                let name = if joint == 0 {
                    format!("Bip01 {side} Finger{finger}")
                } else {
                    format!("Bip01 {side} Finger{finger}{joint}")
                };
                let spread = (finger as f32 - 2.0) * 1.5;
                let position = if joint == 0 { Vec3::new(8.0, spread, 0.0) } else { Vec3::new(2.5, 0.0, 0.0) };
                skeleton.bones.push(Bone {
                    name: name.as_str().into(),
                    position,
                    rotation: Quat::IDENTITY,
                    inverse_bind_position: Vec3::ZERO,
                    inverse_bind_rotation: Quat::IDENTITY,
                    object_tm: Mat4::IDENTITY.to_cols_array(),
                    parent: parent.as_str().into(),
                    children: Vec::new(),
                });
                let parent_bone =
                    skeleton.bones.iter_mut().find(|b| b.name.as_bytes() == parent.as_bytes()).expect("the parent");
                parent_bone.children.push(FileString::from(name.as_str()));
                parent = name;
            }
        }
    }
    skeleton
}

/// A 4002 clip of `seconds` with a key every 10 ms on every bone of
/// `skeleton`: each bone swings about its rest pose, `phase` apart from
/// other clips, and the root walks forward. Its keys keep their stored
/// words, as a file's do once loaded ([`as_loaded`]).
pub fn long_clip(skeleton: &Skeleton, seconds: i32, phase: f32) -> Animation {
    as_loaded(&made_clip(skeleton, seconds, phase), AniVersion::V4002)
}

/// `animation` written as `version` and read back, as a player gets it
/// from a file: rotations in the file's words, which sampling decodes.
pub fn as_loaded(animation: &Animation, version: AniVersion) -> Animation {
    let mut animation = animation.clone();
    animation.version = version;
    Animation::from_bytes(&animation.to_bytes().expect("writable")).expect("readable")
}

/// The keys of [`long_clip`], as made in code.
fn made_clip(skeleton: &Skeleton, seconds: i32, phase: f32) -> Animation {
    let total_ms = seconds * 1000;
    let mut animation = Animation::new(AniVersion::V4002, total_ms);
    for (b, bone) in skeleton.bones.iter().enumerate() {
        let keys = (0..=total_ms / 10)
            .map(|k| {
                let t = (k * 10) as f32 / 1000.0;
                let swing = Quat::from_rotation_z(0.4 * (t * 6.0 + phase + b as f32).sin());
                let walk = if b == 0 { Vec3::new(0.0, 0.0, 140.0 * t) } else { Vec3::ZERO };
                Key::new(k * 10, bone.position + walk, (bone.rotation * swing).normalize())
            })
            .collect();
        animation.tracks.push(Track { bone: bone.name.clone(), weight: 1.0, keys });
    }
    animation
}
