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

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;
    use bevy::math::{Affine3A, Quat, Vec3};

    use super::*;

    /// A bone's `GlobalTransform` is its player's times its model pose;
    /// players with no model poses (the other path) leave theirs alone.
    #[test]
    fn a_bone_is_placed_by_its_player_times_its_model_pose() {
        bevy::tasks::ComputeTaskPool::get_or_init(bevy::tasks::TaskPool::default);
        let mut world = World::new();
        let pose = Affine3A::from_rotation_translation(Quat::from_rotation_x(0.3), Vec3::new(0.0, 1.0, 0.0));
        let placed = Affine3A::from_translation(Vec3::new(5.0, 0.0, -2.0));
        let player = world.spawn((ModelPoses(vec![pose]), GlobalTransform::from(placed))).id();
        let other = world.spawn((ModelPoses::default(), GlobalTransform::IDENTITY)).id();
        let bone = world.spawn((Io3dBone { player, index: 0 }, GlobalTransform::IDENTITY)).id();
        let left = world.spawn((Io3dBone { player: other, index: 0 }, GlobalTransform::IDENTITY)).id();
        world.run_system_once(write_world_poses).unwrap();
        assert_eq!(world.get::<GlobalTransform>(bone).map(GlobalTransform::affine), Some(placed * pose));
        assert_eq!(world.get::<GlobalTransform>(left), Some(&GlobalTransform::IDENTITY));
    }
}
