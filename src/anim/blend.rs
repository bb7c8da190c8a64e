//! Blending several contributions into each bone, as `ioBiped` does:
//! a running weighted mean per group, and the groups (actions, then loops)
//! mixed by their total weights.

use super::bone_blend::BoneBlend;
use super::clip::{Clip, Hints};
use super::sample::BonePose;

/// Local poses being blended: [`PoseBlend::reset`] to rest, then for each
/// group [`PoseBlend::add`] every contribution and [`PoseBlend::lock`].
#[derive(Debug, Clone, Default)]
pub struct PoseBlend {
    bones: Vec<BoneBlend>,
    /// Room for a clip's sampled tracks ([`Clip::sample_tracks`]).
    sampled: Vec<BonePose>,
}

impl PoseBlend {
    /// Every bone back to `rest`, nothing accumulated (`ClearBlend`).
    pub fn reset(&mut self, rest: &[BonePose]) {
        if self.bones.len() == rest.len() {
            // The common case, every frame: overwrite in place.
            for (bone, &pose) in self.bones.iter_mut().zip(rest) {
                *bone = BoneBlend::new(pose);
            }
        } else {
            self.bones.clear();
            self.bones.extend(rest.iter().map(|&pose| BoneBlend::new(pose)));
        }
    }

    /// Adds `pose` at `weight` to bone `bone`'s open group (`Blend`): the
    /// first contribution while the group's weight is 0 is copied, each
    /// later one blended in by `weight / total so far`, so that earlier
    /// contributions outweigh later ones of the same weight in rounding
    /// only. Bones out of range are ignored.
    pub fn add(&mut self, bone: usize, weight: f32, pose: BonePose) {
        if let Some(b) = self.bones.get_mut(bone) {
            b.add(weight, pose);
        }
    }

    /// Adds every track of `clip` at `t` ms to the open group, each on the
    /// bone `track_bones` gives it, at the track's weight times `weight`
    /// (the clip's), in track order. Tracks with no bone or no keys add
    /// nothing. Each of the clip's timelines is searched once
    /// ([`Clip::sample_tracks`]).
    pub fn add_clip(&mut self, clip: &Clip, track_bones: &[Option<usize>], t: f32, weight: f32, hints: &mut Hints) {
        let Self { bones, sampled } = self;
        clip.sample_tracks(t, hints, sampled, |track, pose| {
            if let Some(bone) = track_bones.get(track).copied().flatten().and_then(|bone| bones.get_mut(bone)) {
                bone.add(clip.tracks[track].weight * weight, pose);
            }
        });
    }

    /// Closes the open group on every bone (`LockBlend`): a group of
    /// positive weight replaces the pose when it is the first, and is
    /// otherwise mixed in by its share of the total. A group of weight 0 or
    /// less (or NaN) leaves the bone as it was.
    pub fn lock(&mut self) {
        self.bones.iter_mut().for_each(BoneBlend::lock);
    }

    /// The blended local poses.
    pub fn poses(&self) -> impl ExactSizeIterator<Item = BonePose> + '_ {
        self.bones.iter().map(BoneBlend::pose)
    }

    /// Bone `bone`'s blended pose.
    pub fn pose(&self, bone: usize) -> Option<BonePose> {
        self.bones.get(bone).map(BoneBlend::pose)
    }

    /// Whether anything was locked into bone `bone` since the reset (it is
    /// not at rest).
    pub fn is_posed(&self, bone: usize) -> bool {
        self.bones.get(bone).is_some_and(|b| b.posed().is_some())
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    fn at(x: f32) -> BonePose {
        BonePose { position: Vec3::new(x, 0.0, 0.0), rotation: Quat::IDENTITY }
    }

    #[test]
    fn one_contribution_shows_in_full_at_any_positive_weight() {
        let mut blend = PoseBlend::default();
        blend.reset(&[at(0.0), at(0.0)]);
        blend.add(0, 0.1, at(5.0));
        blend.add(1, -1.0, at(5.0));
        blend.lock();
        assert_eq!(blend.pose(0), Some(at(5.0)));
        assert_eq!(blend.pose(1), Some(at(0.0)), "a negative group leaves the rest pose");
        assert!(blend.is_posed(0) && !blend.is_posed(1));
    }

    #[test]
    fn groups_mix_by_their_total_weights() {
        let mut blend = PoseBlend::default();
        blend.reset(&[at(0.0)]);
        // Actions: 10 at 1 and 40 at 3 -> 10 + (40 - 10) * 3/4 = 32.5, weight 4.
        blend.add(0, 1.0, at(10.0));
        blend.add(0, 3.0, at(40.0));
        blend.lock();
        assert_eq!(blend.pose(0).unwrap().position.x, 32.5);
        // Loops: 100 at 1 -> 32.5 + (100 - 32.5) * 1/5 = 46.
        blend.add(0, 1.0, at(100.0));
        blend.lock();
        assert_eq!(blend.pose(0).unwrap().position.x, 46.0);
    }
}
