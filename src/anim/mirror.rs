//! Mirroring a clip left to right: left and right tracks swap (by the
//! names' sides, [`super::side`]) and the motion is reflected across the character's
//! side-to-side plane (engine X becomes -X).
//!
//! Left and right bones of a rig do not have mirror-image local axes (a
//! reflection would make them left-handed), so the reflection is done on
//! model-space poses and corrected by the rest pose: each bone's mirrored
//! rest pose is its own rest pose, and its motion is its partner's,
//! reflected.

use glam::{Quat, Vec3};

use crate::format::{Animation, FileString, Key, Track};

use super::clip::Clip;
use super::rig::Rig;
use super::sample::BonePose;
use super::side::partner;

/// Reflects a rotation across the YZ plane.
fn reflect_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

fn reflect_position(p: Vec3) -> Vec3 {
    Vec3::new(-p.x, p.y, p.z)
}

/// `animation` mirrored on `rig` (its skeleton, or one guessed from the
/// clip). Track `i` of the result drives the partner of track `i`'s bone,
/// with keys at the same times; events and weights stay. Tracks whose bone
/// is not in the rig are reflected in their own space.
pub fn mirror(animation: &Animation, rig: &Rig) -> Animation {
    let partners: Vec<Option<usize>> = (0..rig.len()).map(|b| rig.bone(&partner(&rig.names[b]))).collect();
    let rest_world = rig.to_world(&rig.rest);
    let clip = Clip::new(animation);
    let tracks = animation
        .tracks
        .iter()
        .map(|track| {
            let mirrored_name = partner(track.bone.c_str());
            let keys = match rig.bone(&mirrored_name) {
                Some(bone) if partners[bone].is_some() => track
                    .keys
                    .iter()
                    .map(|key| {
                        let world = rig.unit_world_pose(&clip, key.time_ms as f32);
                        let pose = mirrored_local(rig, &partners, &rest_world, &world, bone);
                        Key::new(key.time_ms, pose.position, pose.rotation)
                    })
                    .collect(),
                _ => track
                    .keys
                    .iter()
                    .map(|k| Key::new(k.time_ms, reflect_position(k.position), reflect_rotation(k.rotation)))
                    .collect(),
            };
            Track { bone: FileString::from(mirrored_name), keys, weight: track.weight }
        })
        .collect();
    Animation { tracks, ..animation.clone() }
}

/// The mirrored model-space pose of `bone`: its partner's pose reflected,
/// corrected so that the partner's rest pose maps onto this bone's.
fn mirrored_world(partners: &[Option<usize>], rest: &[BonePose], world: &[BonePose], bone: usize) -> BonePose {
    let other = partners[bone].unwrap_or(bone);
    let correction = reflect_rotation(rest[other].rotation).inverse() * rest[bone].rotation;
    BonePose {
        position: reflect_position(world[other].position),
        rotation: reflect_rotation(world[other].rotation) * correction,
    }
}

/// The mirrored pose of `bone` relative to its (mirrored) parent.
fn mirrored_local(
    rig: &Rig,
    partners: &[Option<usize>],
    rest: &[BonePose],
    world: &[BonePose],
    bone: usize,
) -> BonePose {
    let pose = mirrored_world(partners, rest, world, bone);
    match rig.parents[bone] {
        None => pose,
        Some(parent) => {
            let parent = mirrored_world(partners, rest, world, parent);
            let inverse = parent.rotation.inverse();
            BonePose { position: inverse * (pose.position - parent.position), rotation: inverse * pose.rotation }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::biped;
    use crate::format::{AniVersion, Animation};

    fn asset(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn korean_track_names_swap_side_on_their_bytes() {
        let rig = Rig::new(&biped::skeleton()).unwrap();
        let mut animation = Animation::new(AniVersion::V4002, 100);
        let key = Key::new(0, Vec3::X, Quat::IDENTITY);
        let name = [0xbf, 0xde, b' ', b'L', b' ', b'A'];
        animation.tracks.push(Track { bone: FileString::from(&name[..]), weight: 1.0, keys: vec![key] });
        let mirrored = mirror(&animation, &rig);
        assert_eq!(mirrored.tracks[0].bone.as_bytes(), [0xbf, 0xde, b' ', b'R', b' ', b'A']);
        assert_eq!(mirrored.tracks[0].keys[0].position, -Vec3::X);
    }

    #[test]
    fn a_mirrored_walk_leads_with_the_other_foot_and_mirrors_back() {
        let rig = Rig::new(&biped::skeleton()).unwrap();
        let walk = Animation::from_bytes(&asset("biped_walk_4000.ani")).unwrap();
        assert_eq!(walk.version, AniVersion::V4000);
        let mirrored = mirror(&walk, &rig);
        let foot = |side: &[u8]| rig.bone(side).unwrap();
        let (left, right) = (foot(b"Bip01 L Foot"), foot(b"Bip01 R Foot"));
        for t in [0.0, 250.0, 600.0] {
            let before = rig.unit_world_pose(&Clip::new(&walk), t);
            let after = rig.unit_world_pose(&Clip::new(&mirrored), t);
            for (a, b) in [(left, right), (right, left)] {
                let expected = reflect_position(before[a].position);
                assert!(after[b].position.abs_diff_eq(expected, 1e-2), "at {t}: {} vs {expected}", after[b].position);
            }
        }
        let back = mirror(&mirrored, &rig);
        for (a, b) in walk.tracks.iter().zip(&back.tracks) {
            assert_eq!(a.bone, b.bone);
            for (x, y) in a.keys.iter().zip(&b.keys) {
                assert!(x.position.abs_diff_eq(y.position, 1e-2), "{}: {} vs {}", a.bone, x.position, y.position);
                assert!(x.rotation.dot(y.rotation).abs() > 0.9999, "{}", a.bone);
            }
        }
    }
}
