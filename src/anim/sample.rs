//! Sampling a track at a time in milliseconds, as the client does.

use glam::{Quat, Vec3};

use crate::format::{Key, Track};

use super::math;

/// A bone's transform: rotation and position, relative to its parent (a
/// local pose) or to the model (a world pose), in engine axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BonePose {
    /// Position.
    pub position: Vec3,
    /// Rotation.
    pub rotation: Quat,
}

impl BonePose {
    /// No rotation, at the origin.
    pub const IDENTITY: Self = Self { position: Vec3::ZERO, rotation: Quat::IDENTITY };

    /// The client's one way between two poses, for keys and for blends
    /// alike: positions by [`math::lerp`], rotations by its
    /// [`math::slerp`], `s` from 0 (`self`) to 1 (`other`).
    pub fn mix(self, other: Self, s: f32) -> Self {
        Self {
            position: math::lerp(self.position, other.position, s),
            rotation: math::slerp(self.rotation, other.rotation, s),
        }
    }

    /// This pose placed under `parent` as `ioNode::UpdateFromParent` does:
    /// rotations by [`math::mul`] (not renormalised), the local position
    /// turned by [`math::rotate`] and the parent's position added (the files
    /// have no scale).
    pub fn under(self, parent: BonePose) -> BonePose {
        BonePose {
            position: math::rotate(parent.rotation, self.position) + parent.position,
            rotation: math::mul(parent.rotation, self.rotation),
        }
    }
}

impl From<&Key> for BonePose {
    fn from(key: &Key) -> Self {
        Self { position: key.position, rotation: key.rotation }
    }
}

/// The pose of a track's keys at `t` milliseconds, by the client's rule:
/// find the first key later than `t`; before the first key hold it, after
/// the last hold that; otherwise blend the key before it with it. `None`
/// for a track with no keys (the client would read out of range).
pub fn sample_keys(keys: &[Key], t: f32) -> Option<BonePose> {
    let next = keys.iter().position(|k| k.time_ms as f32 > t);
    match next {
        None => keys.last().map(BonePose::from),
        Some(0) => Some(BonePose::from(&keys[0])),
        Some(i) => {
            let (a, b) = (&keys[i - 1], &keys[i]);
            Some(between((a.time_ms as f32, a.into()), (b.time_ms as f32, b.into()), t))
        }
    }
}

/// The pose at `t` between two keys `(time, pose)` with `t0 <= t < t1`:
/// `s = (t - t0) / (t1 - t0)`, mixed by [`BonePose::mix`].
pub fn between((t0, a): (f32, BonePose), (t1, b): (f32, BonePose), t: f32) -> BonePose {
    a.mix(b, (t - t0) / (t1 - t0))
}

/// A track's pose at `t` ms, or `None` where the client leaves the bone at
/// rest: a track with no keys (the client would read out of range) or with
/// a weight that is not positive (the client's blend drops a group whose
/// weight is 0, negative or NaN; the lint reports such weights). Any
/// positive weight poses the bone fully: only relative weights matter when
/// clips blend.
pub fn track_pose(track: &Track, t: f32) -> Option<BonePose> {
    if !poses(track) {
        return None;
    }
    sample_keys(&track.keys, t)
}

/// Whether [`track_pose`] gives a pose at all: it does at every time or at
/// none, so players can drop the tracks that never pose once, at binding.
pub fn poses(track: &Track) -> bool {
    !track.keys.is_empty() && track.weight > 0.0
}

/// The keys as keyframes in seconds for players that keep one key a time
/// and interpolate linearly (Bevy's curves, glTF's `LINEAR`). Where keys
/// share a time, the client (looking for the first key later than now)
/// blends toward the first of them until that time and from the last of
/// them on: so the first goes `jump_s` seconds before the time (one step
/// of `f32` when 0) and the last at it.
pub fn keyframes_in_seconds(keys: &[Key], jump_s: f32) -> Vec<(f32, &Key)> {
    let mut steps = Vec::with_capacity(keys.len());
    for same_time in keys.chunk_by(|a, b| a.time_ms == b.time_ms) {
        let (first, last) = (&same_time[0], &same_time[same_time.len() - 1]);
        let at = first.time_ms as f32 / 1000.0;
        if same_time.len() > 1 {
            steps.push((if jump_s > 0.0 { at - jump_s } else { at.next_down() }, first));
        }
        steps.push((at, last));
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(t: i32, x: f32, angle: f32) -> Key {
        Key::new(t, Vec3::new(x, 0.0, 0.0), Quat::from_rotation_y(angle))
    }

    #[test]
    fn holds_before_first_and_after_last() {
        let keys = [key(100, 1.0, 0.0), key(200, 3.0, 1.0)];
        assert_eq!(sample_keys(&keys, 0.0).unwrap().position.x, 1.0);
        assert_eq!(sample_keys(&keys, 100.0).unwrap().position.x, 1.0);
        assert_eq!(sample_keys(&keys, 150.0).unwrap().position.x, 2.0);
        assert_eq!(sample_keys(&keys, 200.0).unwrap().position.x, 3.0);
        assert_eq!(sample_keys(&keys, 5000.0).unwrap().position.x, 3.0);
        assert_eq!(sample_keys(&keys[..1], 150.0).unwrap().position.x, 1.0);
        assert_eq!(sample_keys(&[], 0.0), None);
    }

    #[test]
    fn rotation_takes_the_short_way() {
        let a = Quat::from_rotation_y(0.2);
        let b = -Quat::from_rotation_y(0.6);
        let keys = [Key::new(0, Vec3::ZERO, a), Key::new(100, Vec3::ZERO, b)];
        let mid = sample_keys(&keys, 50.0).unwrap().rotation;
        assert!(mid.normalize().abs_diff_eq(Quat::from_rotation_y(0.4), 1e-5), "{mid}");
    }

    #[test]
    fn unsorted_keys_use_the_first_later_key() {
        let keys = [key(0, 0.0, 0.0), key(100, 10.0, 0.0), key(50, 20.0, 0.0)];
        // First key later than 60 is the one at 100: blend 0..100.
        assert_eq!(sample_keys(&keys, 60.0).unwrap().position.x, 6.0);
    }

    #[test]
    fn under_composes_like_a_transform_hierarchy() {
        let parent = BonePose {
            position: Vec3::new(0.0, 10.0, 0.0),
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        };
        let child = BonePose { position: Vec3::X * 5.0, rotation: Quat::IDENTITY };
        let world = child.under(parent);
        assert!(world.position.abs_diff_eq(Vec3::new(0.0, 15.0, 0.0), 1e-5));
        assert_eq!(world.rotation, parent.rotation);
    }
}
