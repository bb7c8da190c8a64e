//! The last stage on the `Transform` path: each bone's blended pose, which
//! evaluation left in its player's [`LocalPoses`], written as its local
//! `Transform`, for Bevy's propagation to compose.
//!
//! A pass over bones, over all cores: a player cannot write its bones'
//! `Transform`s while other players are posed beside it (Bevy lends one
//! query's items to one thread), and a pass over bones can: each bone
//! belongs to one player ([`Io3dBone`]).

use bevy::ecs::prelude::*;
use bevy::transform::components::Transform;

use super::binding::Io3dBone;
use super::by_player::LastPlayer;
use super::player::{AniPlayer, LocalPoses};

/// Writes each bone's pose from its player's [`LocalPoses`] into its
/// `Transform` (keeping its scale), over all cores; a bone whose pose did
/// not change is not marked changed, so Bevy's propagation skips it.
pub(crate) fn write_local_poses(
    players: Query<&LocalPoses>,
    mut bones: Query<(&Io3dBone, &mut Transform), Without<AniPlayer>>,
) {
    // A crowd all on the other path has no bone to write here.
    if players.iter().all(|poses| poses.0.is_empty()) {
        return;
    }
    bones.par_iter_mut().for_each_init(
        Default::default,
        |last: &mut LastPlayer<&LocalPoses>, (bone, mut transform)| {
            let Some(poses) = last.get(bone.player, |player| players.get(player).ok()) else { return };
            if let Some(&(translation, rotation)) = poses.0.get(bone.index) {
                let mut posed = *transform;
                posed.translation = translation;
                posed.rotation = rotation;
                transform.set_if_neq(posed);
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;
    use bevy::math::{Quat, Vec3};

    use super::*;

    /// Each bone takes its player's pose at its index and keeps its scale;
    /// a bone whose pose did not change is not marked changed, and a bone
    /// whose index the poses lack is left alone.
    #[test]
    fn bones_take_their_players_poses_and_keep_their_scale() {
        bevy::tasks::ComputeTaskPool::get_or_init(bevy::tasks::TaskPool::default);
        let mut world = World::new();
        let pose = (Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.5));
        let player = world.spawn((AniPlayer::default(), LocalPoses(vec![pose]))).id();
        let scaled = Transform::from_scale(Vec3::splat(2.0));
        let bone = world.spawn((Io3dBone { player, index: 0 }, scaled)).id();
        let beyond = world.spawn((Io3dBone { player, index: 1 }, scaled)).id();
        world.run_system_once(write_local_poses).unwrap();
        let posed = Transform { translation: pose.0, rotation: pose.1, scale: Vec3::splat(2.0) };
        assert_eq!(world.get::<Transform>(bone), Some(&posed));
        assert_eq!(world.get::<Transform>(beyond), Some(&scaled));

        world.clear_trackers();
        world.run_system_once(write_local_poses).unwrap();
        let ticks = world.entity(bone).get_ref::<Transform>().unwrap();
        assert!(!ticks.is_changed(), "the same pose again marks nothing");
    }
}
