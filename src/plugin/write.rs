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
