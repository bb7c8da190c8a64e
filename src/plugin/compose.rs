//! A player's bones composed into poses relative to the player, by the
//! client's arithmetic where it can (the crowd path's model poses): not a
//! stage, what evaluation uses on that path.

use bevy::ecs::prelude::*;
use bevy::math::{Affine3A, Quat, Vec3};
use bevy::transform::components::Transform;

use crate::anim::BonePose;

use super::axes::Axes;
use super::binding::{AniBinding, Bone, NO_PARENT};

/// Each bone's pose relative to the player from the local ones (the
/// binding's order has parents first).
pub(super) fn compose(
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
fn between(bone: &Bone, transform_of: impl Fn(Entity) -> Affine3A) -> Affine3A {
    bone.between.iter().fold(Affine3A::IDENTITY, |sum, &entity| sum * transform_of(entity))
}
