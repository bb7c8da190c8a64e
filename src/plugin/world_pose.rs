//! The world-pose path, for crowds: each bone's `GlobalTransform` written
//! straight from the library's composition (the client's numbers), posed
//! over all cores, with no `Transform` writes and no second composition by
//! Bevy's transform propagation.

use bevy::asset::Assets;
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemChangeTick;
use bevy::math::{Affine3A, Quat, Vec3};
use bevy::transform::components::{GlobalTransform, Transform};
use bevy::utils::Parallel;

use crate::anim::BonePose;

use super::assets::AniClip;
use super::axes::Axes;
use super::binding::{AniBinding, Io3dBone, NO_PARENT};
use super::evaluate::{Posing, ToPose, pose_player};
use super::player::{ModelPoses, PoseOutput};
use super::write::LastPlayer;

/// What one thread reuses from player to player.
#[derive(Default)]
pub(crate) struct Scratch {
    posing: Posing,
    /// Each bone's pose relative to its chain's anchor, in the files' axes.
    chained: Vec<BonePose>,
    /// Each chain's anchor (where a bone's chain starts) relative to the
    /// player, in Bevy's axes.
    anchors: Vec<Affine3A>,
}

/// Blends and composes the model poses of players that write
/// [`PoseOutput::GlobalTransform`], over all cores, and fills their
/// [`RootMotion`](super::RootMotion).
pub(crate) fn pose_world(
    clips: Res<Assets<AniClip>>,
    mut players: Query<(ToPose, Pose)>,
    transforms: Query<&Transform>,
    scratch: Local<Parallel<Scratch>>,
    ticks: SystemChangeTick,
) {
    // A crowd all on the other path has nothing to pose here.
    if players.iter().all(|(_, (_, output, poses))| *output != PoseOutput::GlobalTransform && poses.0.is_empty()) {
        return;
    }
    players.par_iter_mut().for_each_init(
        || scratch.borrow_local_mut(),
        |scratch, ((entity, mut player, binding, lod, mut motion), (&axes, output, mut poses))| {
            if !binding.is_bound() || *output != PoseOutput::GlobalTransform {
                poses.0.clear();
                return;
            }
            let Scratch { posing, chained, anchors } = &mut **scratch;
            let player = (&mut *player, binding, lod.map(Mut::into_inner), entity.index_u32(), ticks.this_run());
            let posed = pose_player(player, &clips, &mut motion, axes, posing);
            compose(binding, posed.iter().copied(), axes, &transforms, (chained, anchors), &mut poses.0);
        },
    );
}

/// Where a player's poses go, and in which axes.
type Pose = (&'static Axes, &'static PoseOutput, &'static mut ModelPoses);

/// Each bone's pose relative to the player from the local ones (the
/// binding's order has parents first).
fn compose(
    binding: &AniBinding,
    local: impl Iterator<Item = BonePose>,
    axes: Axes,
    transforms: &Query<&Transform>,
    scratch: (&mut Vec<BonePose>, &mut Vec<Affine3A>),
    model: &mut Vec<Affine3A>,
) {
    model.clear();
    scratch.0.clear();
    scratch.1.clear();
    if binding.one_chain {
        compose_chain(binding, local, axes, scratch.0, model);
    } else {
        compose_mixed(binding, local, axes, transforms, scratch, model);
    }
}

/// The common rig: every bone the player's, of unit scale, right below
/// another: one chain of the client's arithmetic ([`BonePose::under`]).
fn compose_chain(
    binding: &AniBinding,
    local: impl Iterator<Item = BonePose>,
    axes: Axes,
    chained: &mut Vec<BonePose>,
    model: &mut Vec<Affine3A>,
) {
    for (&parent, local) in binding.parents.iter().zip(local) {
        let pose = if parent == NO_PARENT { local } else { local.under(chained[parent as usize]) };
        model.push(bevy_affine(axes, &pose));
        chained.push(pose);
    }
}

/// Any other hierarchy. A bone the player writes, of unit scale and right
/// below a bone or the player, extends its parent's chain by the client's
/// arithmetic; any other starts a chain at an anchor composed with
/// Bevy's: its parent's model pose, the entities between, and (for a bone
/// the player does not write) its own `Transform`.
fn compose_mixed(
    binding: &AniBinding,
    local: impl Iterator<Item = BonePose>,
    axes: Axes,
    transforms: &Query<&Transform>,
    (chained, anchors): (&mut Vec<BonePose>, &mut Vec<Affine3A>),
    model: &mut Vec<Affine3A>,
) {
    let at_rest = BonePose { position: Vec3::ZERO, rotation: Quat::IDENTITY };
    let transform_of = |entity| transforms.get(entity).map_or(Affine3A::IDENTITY, Transform::compute_affine);
    for (i, (bone, local)) in binding.bones.iter().zip(local).enumerate() {
        let parent = bone.parent.map_or(Affine3A::IDENTITY, |p| model[p]);
        let (anchor, pose) = match bone.parent {
            _ if !binding.owns(i) => (parent * between(bone, transform_of) * transform_of(bone.entity), at_rest),
            _ if !bone.between.is_empty() || bone.rest.scale != Vec3::ONE => {
                let scale = Affine3A::from_scale(bone.rest.scale);
                (parent * between(bone, transform_of) * bevy_affine(axes, &local) * scale, at_rest)
            }
            Some(p) => (anchors[p], local.under(chained[p])),
            None => (Affine3A::IDENTITY, local),
        };
        model.push(anchor * bevy_affine(axes, &pose));
        chained.push(pose);
        anchors.push(anchor);
    }
}

/// A pose in the files' axes as an affine transform in Bevy's, its
/// rotation as it is (the client builds its matrices from its slightly
/// short rotations the same way).
fn bevy_affine(axes: Axes, pose: &BonePose) -> Affine3A {
    Affine3A::from_rotation_translation(axes.rotation(pose.rotation), axes.position(pose.position))
}

/// The entities between a bone and the bone (or player) above it, composed.
fn between(bone: &super::binding::Bone, transform_of: impl Fn(Entity) -> Affine3A) -> Affine3A {
    bone.between.iter().fold(Affine3A::IDENTITY, |sum, &entity| sum * transform_of(entity))
}

/// Writes the `GlobalTransform` of each bone of a player that writes
/// [`PoseOutput::GlobalTransform`]: the player's own (just propagated)
/// times the bone's model pose, over all cores.
pub(crate) fn write_world_poses(
    players: Query<(&ModelPoses, &GlobalTransform)>,
    mut bones: Query<(&Io3dBone, &mut GlobalTransform), Without<ModelPoses>>,
) {
    // A crowd all on the `Transform` path has no bone to write here.
    if players.iter().all(|(poses, _)| poses.0.is_empty()) {
        return;
    }
    let find = |player| players.get(player).ok().map(|(poses, global)| (poses, global.affine()));
    bones.par_iter_mut().for_each_init(LastPlayer::default, |last, (bone, mut global)| {
        let Some((poses, player)) = last.get(bone.player, find) else { return };
        if let Some(pose) = poses.0.get(bone.index) {
            *global = GlobalTransform::from(player * *pose);
        }
    });
}
