//! The last stage on the world-pose path, for crowds: each bone's
//! `GlobalTransform` written straight from its player's [`ModelPoses`]
//! (which evaluation composed by the client's numbers), over all cores,
//! after Bevy's propagation has placed the player: no `Transform` writes
//! and no second composition.

use bevy::ecs::prelude::*;
use bevy::transform::components::GlobalTransform;

use super::binding::Io3dBone;
use super::by_player::LastPlayer;
use super::player::ModelPoses;

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
