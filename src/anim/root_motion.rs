//! The root's motion over a frame, as a game moves a character by it, and
//! in-place play.
//!
//! Each playing clip reports its own step of its root track (across a
//! loop's wrap adding the clip's whole travel, so that the steps add up to
//! the distance walked however the frames fall); the steps are mixed by
//! the clips' weights as the pose mixes the clips. The blended root
//! position cannot give this: it jumps back at every wrap.

use glam::Vec3;

use super::bone_blend::{BoneBlend, Mix};
use super::math::{lerp, lerp_f32, yaw_between};
use super::mixer::Kind;
use super::{BonePose, Step};

/// One clip's part in a frame's root motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipRootStep {
    /// The step its clock made this frame.
    pub step: Step,
    /// Whether it plays as an action or a loop: the pose blends the two
    /// groups apart, actions first.
    pub kind: Kind,
    /// Its weight in the blend.
    pub weight: f32,
    /// The root's pose at the step's start and end.
    pub before: BonePose,
    /// See `before`.
    pub now: BonePose,
    /// The root's pose at the clip's first and last key: one lap's travel.
    pub first: BonePose,
    /// See `first`.
    pub last: BonePose,
}

impl ClipRootStep {
    /// Its travel and turn, whole laps included.
    fn travel(&self) -> RootStep {
        let step = RootStep {
            delta: self.now.position - self.before.position,
            yaw: yaw_between(self.before.rotation, self.now.rotation),
        };
        // Most frames wrap no loop: the lap's turn (an arc tangent) is
        // worked out only on those that do.
        if self.step.wraps == 0 {
            return step;
        }
        let laps = self.step.wraps as f32;
        RootStep {
            delta: step.delta + (self.last.position - self.first.position) * laps,
            yaw: step.yaw + yaw_between(self.first.rotation, self.last.rotation) * laps,
        }
    }
}

/// The root's travel and turn about up (Y, radians) over one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RootStep {
    /// Travel, in the files' axes.
    pub delta: Vec3,
    /// Turn about Y, in radians.
    pub yaw: f32,
}

impl Mix for RootStep {
    fn mix(self, other: Self, s: f32) -> Self {
        Self { delta: lerp(self.delta, other.delta, s), yaw: lerp_f32(self.yaw, other.yaw, s) }
    }
}

/// The frame's motion: each clip's step mixed by the clips' weights by
/// the pose's rule (a running weighted mean of the actions, then of the
/// loops, each group left out where it weighs nothing), so that the root
/// moves as far as its blended pose does; nothing where nothing weighs.
/// `steps` come in the mixer's order, actions first.
pub fn mixed(steps: impl IntoIterator<Item = ClipRootStep>) -> RootStep {
    let mut blend = BoneBlend::new(RootStep::default());
    let mut group = None;
    for step in steps {
        if group.is_some_and(|kind| kind != step.kind) {
            blend.lock();
        }
        group = Some(step.kind);
        blend.add(step.weight, step.travel());
    }
    blend.lock();
    blend.posed().unwrap_or_default()
}

/// How far `to` is from `from` over the ground (X and Z).
pub fn ground_distance(from: Vec3, to: Vec3) -> f32 {
    let apart = to - from;
    Vec3::new(apart.x, 0.0, apart.z).length()
}

/// The root's pose held in place: its position over the ground put back
/// where `start` has it, its height and rotation as they are.
pub fn held_in_place(pose: BonePose, start: Vec3) -> BonePose {
    BonePose { position: Vec3::new(start.x, pose.position.y, start.z), ..pose }
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;
    use crate::anim::RepeatMode;

    /// A walk of 1000 ms going 100 units along Z and turning a quarter
    /// about Y, linearly.
    fn walk_at(t: f64) -> BonePose {
        let f = (t / 1000.0) as f32;
        let rotation = Quat::from_rotation_y(f * std::f32::consts::FRAC_PI_2);
        BonePose { position: Vec3::new(0.0, 40.0, 100.0 * f), rotation }
    }

    fn part(step: Step, weight: f32) -> ClipRootStep {
        let (before, now) = (walk_at(step.from_ms), walk_at(step.to_ms));
        ClipRootStep { step, kind: Kind::Loop, weight, before, now, first: walk_at(0.0), last: walk_at(1000.0) }
    }

    #[test]
    fn steps_add_up_to_the_laps_walked_however_the_frames_fall() {
        let (mut t, mut played, mut travel, mut yaw) = (0.0, 0.0, Vec3::ZERO, 0.0);
        for frame in 0..250 {
            let delta = 7.0 + f64::from(frame % 5);
            let step = RepeatMode::Loop.step(t, delta, 1000);
            (t, played) = (step.to_ms, played + delta);
            let moved = mixed([part(step, 1.0)]);
            travel += moved.delta;
            yaw += moved.yaw;
        }
        assert!(played > 2000.0, "more than two laps");
        assert!((travel.z - played as f32 / 10.0).abs() < 1e-2, "{travel} over {played} ms");
        assert!((yaw - played as f32 / 1000.0 * std::f32::consts::FRAC_PI_2).abs() < 1e-3, "{yaw}");
    }

    #[test]
    fn clips_mix_by_weight_and_no_weight_is_no_motion() {
        let slow = RepeatMode::Loop.step(0.0, 10.0, 1000);
        let fast = RepeatMode::Loop.step(0.0, 30.0, 1000);
        let moved = mixed([part(slow, 0.25), part(fast, 0.75)]);
        assert!((moved.delta.z - 2.5).abs() < 1e-4, "{}", moved.delta);
        assert_eq!(mixed([part(fast, 0.0)]), RootStep::default());
    }

    #[test]
    fn in_place_keeps_height_and_distance_is_over_the_ground() {
        let held = held_in_place(walk_at(500.0), Vec3::new(1.0, 0.0, 2.0));
        assert_eq!(held.position, Vec3::new(1.0, 40.0, 2.0));
        assert_eq!(ground_distance(Vec3::ZERO, Vec3::new(3.0, 9.0, 4.0)), 5.0);
    }
}
