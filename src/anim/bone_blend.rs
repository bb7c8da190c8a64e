//! One bone's blend as `ioBiped` accumulates it: a running weighted mean
//! of the open group, locked into the bone's pose group by group. A clip's
//! tracks of one bone ([`super::Clip`]) and a whole pose's groups
//! ([`super::PoseBlend`]) both blend through it.

use super::math;
use super::sample::BonePose;

/// One bone's blend state (`ioBiped`'s accumulators).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BoneBlend {
    /// The bone's pose so far: rest, then each locked group mixed in.
    pose: BonePose,
    /// The total weight of the groups locked in so far.
    locked: f32,
    /// The running mean of the open group and its total weight.
    group: BonePose,
    group_weight: f32,
}

impl BoneBlend {
    /// At `rest`, nothing accumulated.
    pub(crate) fn new(rest: BonePose) -> Self {
        Self { pose: rest, locked: 0.0, group: rest, group_weight: 0.0 }
    }

    /// The bone's pose so far.
    pub(crate) fn pose(&self) -> BonePose {
        self.pose
    }

    /// `Blend`: see [`super::PoseBlend::add`].
    pub(crate) fn add(&mut self, weight: f32, pose: BonePose) {
        if self.group_weight == 0.0 {
            self.group_weight = weight;
            self.group = pose;
        } else {
            self.group_weight += weight;
            let s = weight / self.group_weight;
            self.group = BonePose {
                position: math::lerp(self.group.position, pose.position, s),
                rotation: math::slerp(self.group.rotation, pose.rotation, s),
            };
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
                self.pose = BonePose {
                    position: math::lerp(self.pose.position, self.group.position, s),
                    rotation: math::slerp(self.pose.rotation, self.group.rotation, s),
                };
            }
        }
        self.group_weight = 0.0;
    }

    /// The pose, once a group of positive weight was locked in.
    pub(crate) fn posed(&self) -> Option<BonePose> {
        (self.locked != 0.0).then_some(self.pose)
    }
}
