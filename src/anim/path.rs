//! The root bone's path over a whole clip: where the character goes, how
//! fast, and whether a loop closes.

use glam::{Vec3, Vec3Swizzles};

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
    /// Length of the path on the ground (X and Z), in file units.
    pub distance: f32,
    /// The last key's position minus the first's: a walk cycle moves on by
    /// this much each loop; for a loop that should stand still, anything
    /// but zero is a jump at the seam.
    pub key_offset: Vec3,
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
    let first = clip.bone_pose(root, f32::NEG_INFINITY, &mut hints)?.position;
    let last = clip.bone_pose(root, end as f32, &mut hints)?.position;
    let step = if step_ms > 0.0 { step_ms } else { 1.0 };
    let count = (total / step).ceil() as usize;
    let times: Vec<f32> = (0..count).map(|i| i as f32 * step).chain(std::iter::once(total)).collect();
    let positions: Vec<Vec3> =
        times.iter().map(|&t| clip.bone_pose(root, t, &mut hints).map_or(first, |pose| pose.position)).collect();
    let distance = positions.windows(2).map(|p| (p[1] - p[0]).xz().length()).sum();
    Some(RootPath { times, positions, distance, key_offset: last - first })
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
