//! Forward kinematics: an animation's pose on a skeleton, bone by bone.

use crate::format::{HierarchyError, Skeleton};

use super::blend::PoseBlend;
use super::clip::{Clip, Hints};
use super::names::BoneNames;
use super::sample::BonePose;

/// A skeleton ready to pose: rest poses and parent links in an order where
/// parents come first, so local-to-world is one forward pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Rig {
    /// Bone names as the client compares them (C strings).
    pub names: Vec<Vec<u8>>,
    /// Each bone's rest pose relative to its parent.
    pub rest: Vec<BonePose>,
    /// Each bone's stored inverse bind pose (model space into the bone's
    /// space), which skinning uses rather than one computed from `rest`.
    pub inverse_binds: Vec<BonePose>,
    /// Bone indices, parents before children.
    pub order: Vec<usize>,
    /// Each bone's parent, `None` for the root.
    pub parents: Vec<Option<usize>>,
    /// The first bone of each name, as tracks meet bones.
    pub by_name: BoneNames,
}

/// How an animation's tracks meet a rig's bones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Binding {
    /// For each track, the bone it drives, or `None` when no bone has its
    /// name (the client would drive the root with it; we skip it).
    pub track_bones: Vec<Option<usize>>,
    /// Bones no track drives: they stay at rest.
    pub bones_without_track: Vec<usize>,
}

impl Binding {
    /// Tracks whose bone is not in the rig.
    pub fn unbound_tracks(&self) -> impl Iterator<Item = usize> + '_ {
        self.track_bones.iter().enumerate().filter(|(_, b)| b.is_none()).map(|(t, _)| t)
    }
}

impl Rig {
    /// A rig from a skeleton whose bones form one tree.
    pub fn new(skeleton: &Skeleton) -> Result<Self, HierarchyError> {
        let hierarchy = skeleton.hierarchy()?;
        Ok(Self {
            names: skeleton.bones.iter().map(|b| b.name.c_str().to_vec()).collect(),
            by_name: BoneNames::new(skeleton.bones.iter().map(|b| b.name.c_str())),
            rest: skeleton.bones.iter().map(|b| BonePose { position: b.position, rotation: b.rotation }).collect(),
            inverse_binds: skeleton
                .bones
                .iter()
                .map(|b| BonePose { position: b.inverse_bind_position, rotation: b.inverse_bind_rotation })
                .collect(),
            order: hierarchy.order,
            parents: hierarchy.parents,
        })
    }

    /// The number of bones.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the rig has no bones.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The first bone named `name` (stored bytes, up to the first zero),
    /// by the rule of [`super::names`].
    pub fn bone(&self, name: &[u8]) -> Option<usize> {
        self.by_name.get(name)
    }

    /// Matches tracks to bones by name ([`super::names`]).
    pub fn bind(&self, clip: &Clip) -> Binding {
        let track_bones: Vec<Option<usize>> = clip.tracks.iter().map(|t| self.by_name.of(&t.bone)).collect();
        let mut driven = vec![false; self.len()];
        for bone in track_bones.iter().flatten() {
            driven[*bone] = true;
        }
        let bones_without_track = (0..self.len()).filter(|&b| !driven[b]).collect();
        Binding { track_bones, bones_without_track }
    }

    /// Each bone's pose relative to its parent at `t` ms of the clip's own
    /// time, as the client poses a clip playing alone: the rest pose, and
    /// the bone's tracks blended over it ([`PoseBlend`]; a lone track of
    /// positive weight shows in full, one of weight 0 or less leaves the
    /// bone at rest, two tracks of one bone blend by their weights). Tracks
    /// with no bone of their name are skipped (the client would drive the
    /// root with them).
    pub fn local_pose(&self, clip: &Clip, t: f32) -> Vec<BonePose> {
        let binding = self.bind(clip);
        let mut blend = PoseBlend::default();
        blend.reset(&self.rest);
        blend.add_clip(clip, &binding.track_bones, t, 1.0, &mut Hints::default());
        blend.lock();
        blend.poses().collect()
    }

    /// Model-space poses from local ones, parents first.
    pub fn to_world(&self, local: &[BonePose]) -> Vec<BonePose> {
        let mut world = local.to_vec();
        for &bone in &self.order {
            if let Some(parent) = self.parents[bone] {
                world[bone] = local[bone].under(world[parent]);
            }
        }
        world
    }

    /// Each bone's model-space pose at `t` ms of the clip's own time, as
    /// the client computes it: its sampled rotations are about 0.9996 long
    /// and it composes them as they are, so joints drift from the exact
    /// geometry by up to about half a unit at the hands.
    pub fn world_pose(&self, clip: &Clip, t: f32) -> Vec<BonePose> {
        self.to_world(&self.local_pose(clip, t))
    }

    /// [`Rig::world_pose`] with every sampled rotation made unit length
    /// first: the shape the keys describe, free of the client's drift. Tools
    /// that derive new keys from poses (mirror, retarget) work on it, so
    /// that their keys play back in the client as the source does.
    pub fn unit_world_pose(&self, clip: &Clip, t: f32) -> Vec<BonePose> {
        self.unit_to_world(&self.local_pose(clip, t))
    }

    /// [`Rig::to_world`] with every rotation made unit length first.
    pub fn unit_to_world(&self, local: &[BonePose]) -> Vec<BonePose> {
        let unit: Vec<BonePose> = local
            .iter()
            .map(|pose| BonePose { position: pose.position, rotation: pose.rotation.normalize() })
            .collect();
        self.to_world(&unit)
    }
}
