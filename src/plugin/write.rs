//! The third stage on the `Transform` path: each bone's blended pose
//! written as its local `Transform`, for Bevy's propagation to compose.

use bevy::asset::Assets;
use bevy::ecs::prelude::*;
use bevy::transform::components::Transform;

use crate::anim::PoseBlend;

use super::assets::AniClip;
use super::axes::Axes;
use super::binding::AniBinding;
use super::evaluate::{blend_player, local_poses};
use super::player::{AniPlayer, PoseOutput, RootMotion};

/// Blends each bound player's clips into its bones' transforms and reports
/// the root's motion: players that write [`PoseOutput::Transform`] (the
/// world-pose path is [`super::world_pose::pose_world`]). A paused (or
/// stopped) player still poses its clips at their times, so a seek shows.
pub fn pose_players(
    clips: Res<Assets<AniClip>>,
    mut players: Query<(&mut AniPlayer, &AniBinding, &mut RootMotion, &Axes, &PoseOutput)>,
    mut transforms: Query<&mut Transform, Without<AniPlayer>>,
    mut blend: Local<PoseBlend>,
) {
    for (mut player, binding, mut motion, &axes, output) in &mut players {
        if !binding.is_bound() || *output != PoseOutput::Transform {
            continue;
        }
        let held = blend_player(&mut player, binding, &clips, &mut motion, axes, &mut blend);
        for (i, (bone, pose)) in binding.bones.iter().zip(local_poses(&blend, held)).enumerate() {
            if !binding.owns(i) {
                continue;
            }
            let Ok(mut transform) = transforms.get_mut(bone.entity) else { continue };
            let mut posed = *transform;
            axes.apply(&pose, &mut posed);
            transform.set_if_neq(posed);
        }
    }
}
