//! The root bone's path over a whole clip: where the character goes and
//! which way it faces, how fast, and whether a loop closes, in travel and
//! in turn. Turns are measured as the plugin's root motion measures them
//! ([`yaw_between`]).

use glam::{Vec3, Vec3Swizzles};

use super::math::yaw_between;
use crate::format::{Animation, Track};

use super::clip::{Clip, Hints};

/// The root track sampled at even steps over `0..=total_ms`, in engine axes
/// (Y up).
#[derive(Debug, Clone, PartialEq)]
pub struct RootPath {
    /// Sample times in ms, from 0 to the total time.
    pub times: Vec<f32>,
    /// The root's position at each time.
    pub positions: Vec<Vec3>,
    /// Its heading at each time: how far it has turned about up (Y) since
    /// the clip's start, in radians, followed through whole turns.
    pub headings: Vec<f32>,
    /// Length of the path on the ground (X and Z), in file units.
    pub distance: f32,
    /// The last key's position minus the first's: a walk cycle moves on by
    /// this much each loop; for a loop that should stand still, anything
    /// but zero is a jump at the seam.
    pub key_offset: Vec3,
    /// The last key's heading turned from the first's, in radians
    /// (`-PI..=PI`): what a loop turns the character by each time round,
    /// and for a loop that should not turn, a jump at the seam.
    pub key_turn: f32,
}

impl RootPath {
    /// Ground speed in units a second between each sample and the next,
    /// at the first sample's time.
    pub fn speeds(&self) -> impl Iterator<Item = (f32, f32)> + '_ {
        self.times.windows(2).zip(self.positions.windows(2)).map(|(t, p)| {
            let dt = (t[1] - t[0]) / 1000.0;
            (t[0], (p[1] - p[0]).xz().length() / dt)
        })
    }

    /// How far the root turns over the clip, in radians (the last
    /// heading): beyond a half turn where the clip spins.
    pub fn turn(&self) -> f32 {
        self.headings.last().copied().unwrap_or(0.0)
    }

    /// Distance over the clip's length, in units a second (zero for a
    /// clip of no length).
    pub fn average_speed(&self) -> f32 {
        match self.times.last() {
            Some(&total) if total > 0.0 => self.distance / (total / 1000.0),
            _ => 0.0,
        }
    }
}

/// The path of bone `root` (compared as a C string) every `step_ms` ms,
/// plus the total time, posed as the rig poses it ([`Clip::bone_pose`]:
/// every track of that name, blended); `None` when no track of that name
/// poses it.
pub fn root_path(animation: &Animation, root: &[u8], step_ms: f32) -> Option<RootPath> {
    let clip = Clip::new(animation);
    let mut hints = Hints::default();
    let total = animation.total_ms.max(0) as f32;
    let last_key = |track: &Track| track.keys.iter().map(|k| k.time_ms).max().unwrap_or(0);
    let end = animation.tracks.iter().filter(|t| t.bone.is_named(root)).map(last_key).max()?;
    let first = clip.bone_pose(root, f32::NEG_INFINITY, &mut hints)?;
    let last = clip.bone_pose(root, end as f32, &mut hints)?;
    let step = if step_ms > 0.0 { step_ms } else { 1.0 };
    let count = (total / step).ceil() as usize;
    let times: Vec<f32> = (0..count).map(|i| i as f32 * step).chain(std::iter::once(total)).collect();
    let poses: Vec<_> = times.iter().map(|&t| clip.bone_pose(root, t, &mut hints).unwrap_or(first)).collect();
    let positions: Vec<Vec3> = poses.iter().map(|pose| pose.position).collect();
    let distance = positions.windows(2).map(|p| (p[1] - p[0]).xz().length()).sum();
    // Each step's turn added up, so that a spin reads past a half turn.
    let mut heading = 0.0;
    let mut previous = first.rotation;
    let headings = poses
        .iter()
        .map(|pose| {
            heading += yaw_between(previous, pose.rotation);
            previous = pose.rotation;
            heading
        })
        .collect();
    let key_turn = yaw_between(first.rotation, last.rotation);
    Some(RootPath { times, positions, headings, distance, key_offset: last.position - first.position, key_turn })
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;
    use crate::format::{AniVersion, Key, Track};

    #[test]
    fn a_straight_walk_has_its_length_and_speed() {
        let mut animation = Animation::new(AniVersion::V4002, 1000);
        let keys =
            vec![Key::new(0, Vec3::ZERO, Quat::IDENTITY), Key::new(1000, Vec3::new(0.0, 5.0, 140.0), Quat::IDENTITY)];
        animation.tracks.push(Track { bone: "Bip01".into(), weight: 1.0, keys });
        let path = root_path(&animation, b"Bip01", 300.0).unwrap();
        assert_eq!(path.times, [0.0, 300.0, 600.0, 900.0, 1000.0]);
        assert!((path.distance - 140.0).abs() < 1e-3, "height does not count: {}", path.distance);
        assert!((path.average_speed() - 140.0).abs() < 1e-3);
        assert_eq!(path.key_offset, Vec3::new(0.0, 5.0, 140.0));
        assert!(path.speeds().all(|(_, v)| (v - 140.0).abs() < 1e-2));
        assert!(root_path(&animation, b"Bip02", 10.0).is_none());
        assert!(path.headings.iter().all(|&h| h == 0.0) && path.key_turn == 0.0 && path.turn() == 0.0);
    }

    /// A clip turning three quarters of a turn about up: the headings climb
    /// past the half turn, the key gap says the quarter the other way.
    #[test]
    fn a_turning_clip_has_its_headings_and_its_gap_in_turn() {
        use std::f32::consts::{FRAC_PI_2, PI};
        let mut animation = Animation::new(AniVersion::V4002, 1500);
        let key = |t: i32, quarters: f32| Key::new(t, Vec3::ZERO, Quat::from_rotation_y(quarters * FRAC_PI_2));
        animation.tracks.push(Track {
            bone: "Bip01".into(),
            weight: 1.0,
            keys: vec![key(0, 0.0), key(500, 1.0), key(1000, 2.0), key(1500, 3.0)],
        });
        let path = root_path(&animation, b"Bip01", 100.0).unwrap();
        assert!((path.turn() - 3.0 * FRAC_PI_2).abs() < 1e-3, "{}", path.turn());
        assert!(path.headings.windows(2).all(|h| h[1] >= h[0] - 1e-5), "{:?}", path.headings);
        assert!((path.headings[5] - FRAC_PI_2).abs() < 1e-3);
        assert!((path.key_turn + FRAC_PI_2).abs() < 1e-3, "three quarters on is a quarter back: {}", path.key_turn);
        assert!(path.key_turn.abs() <= PI);
    }

    #[test]
    fn two_tracks_of_the_root_blend_as_the_rig_poses_them() {
        let mut animation = Animation::new(AniVersion::V4002, 1000);
        let still = |x: f32| vec![Key::new(0, Vec3::new(x, 0.0, 0.0), Quat::IDENTITY)];
        animation.tracks.push(Track { bone: "Bip01".into(), weight: 1.0, keys: still(0.0) });
        animation.tracks.push(Track { bone: "Bip01".into(), weight: 3.0, keys: still(40.0) });
        let path = root_path(&animation, b"Bip01", 500.0).unwrap();
        // The running mean: 0 + (40 - 0) x 3 / (1 + 3).
        assert!(path.positions.iter().all(|p| *p == Vec3::new(30.0, 0.0, 0.0)), "{:?}", path.positions);
    }
}
