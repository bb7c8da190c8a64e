//! Forward kinematics: an animation's pose on a skeleton, bone by bone.

use crate::format::{Animation, HierarchyError, Skeleton};

use super::sample::{BonePose, track_pose};

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

    /// The index of the bone named `name` (compared as a C string).
    pub fn bone(&self, name: &[u8]) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Matches tracks to bones by exact name.
    pub fn bind(&self, animation: &Animation) -> Binding {
        let track_bones: Vec<Option<usize>> = animation.tracks.iter().map(|t| self.bone(t.bone.c_str())).collect();
        let mut driven = vec![false; self.len()];
        for bone in track_bones.iter().flatten() {
            driven[*bone] = true;
        }
        let bones_without_track = (0..self.len()).filter(|&b| !driven[b]).collect();
        Binding { track_bones, bones_without_track }
    }

    /// Each bone's pose relative to its parent at `t` ms of the animation's
    /// own time: the rest pose, overwritten by the bone's track
    /// ([`track_pose`]). Tracks with no bone of their name are skipped;
    /// where two tracks name one bone, the later wins, as the client applies
    /// tracks in file order.
    pub fn local_pose(&self, animation: &Animation, t: f32) -> Vec<BonePose> {
        let mut pose = self.rest.clone();
        let binding = self.bind(animation);
        for (track, bone) in animation.tracks.iter().zip(binding.track_bones) {
            if let (Some(bone), Some(sampled)) = (bone, track_pose(track, t)) {
                pose[bone] = sampled;
            }
        }
        pose
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

    /// Each bone's model-space pose at `t` ms of the animation's own time.
    pub fn world_pose(&self, animation: &Animation, t: f32) -> Vec<BonePose> {
        self.to_world(&self.local_pose(animation, t))
    }
}
