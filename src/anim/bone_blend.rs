//! One bone's blend as `ioBiped` accumulates it: a running weighted mean
//! of the open group, locked into the bone's pose group by group. A clip's
//! tracks of one bone ([`super::Clip`]), a whole pose's groups
//! ([`super::PoseBlend`]) and the clips' root steps
//! ([`super::root_motion::mixed`]) all blend through it, so that weights of
//! zero or less (a group that weighs nothing is left out) count alike.

use super::sample::BonePose;

/// What the running mean blends: two of them mixed, `s` from 0 (`self`)
/// to 1 (`other`).
pub(crate) trait Mix: Copy {
    fn mix(self, other: Self, s: f32) -> Self;
}

impl Mix for BonePose {
    fn mix(self, other: Self, s: f32) -> Self {
        BonePose::mix(self, other, s)
    }
}

/// One bone's blend state (`ioBiped`'s accumulators).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BoneBlend<T = BonePose> {
    /// The bone's pose so far: rest, then each locked group mixed in.
    pose: T,
    /// The total weight of the groups locked in so far.
    locked: f32,
    /// The running mean of the open group and its total weight.
    group: T,
    group_weight: f32,
}

impl<T: Mix> BoneBlend<T> {
    /// At `rest`, nothing accumulated.
    pub(crate) fn new(rest: T) -> Self {
        Self { pose: rest, locked: 0.0, group: rest, group_weight: 0.0 }
    }

    /// The bone's pose so far.
    pub(crate) fn pose(&self) -> T {
        self.pose
    }

    /// `Blend`: see [`super::PoseBlend::add`].
    pub(crate) fn add(&mut self, weight: f32, pose: T) {
        if self.group_weight == 0.0 {
            self.group_weight = weight;
            self.group = pose;
        } else {
            self.group_weight += weight;
            self.group = self.group.mix(pose, weight / self.group_weight);
        }
    }

    /// `LockBlend`: see [`super::PoseBlend::lock`].
    pub(crate) fn lock(&mut self) {
        if self.group_weight > 0.0 {
            if self.locked == 0.0 {
                self.locked = self.group_weight;
                self.pose = self.group;
            } else {
                let mut s = 1.0;
                if self.locked > 0.0 {
                    self.locked += self.group_weight;
                    s = self.group_weight / self.locked;
                }
                self.pose = self.pose.mix(self.group, s);
            }
        }
        self.group_weight = 0.0;
    }

    /// The pose, once a group of positive weight was locked in.
    pub(crate) fn posed(&self) -> Option<T> {
        (self.locked != 0.0).then_some(self.pose)
    }
}
