//! The third stage on the `Transform` path: each bone's blended pose
//! written as its local `Transform`, for Bevy's propagation to compose.
//!
//! Two passes, each over all cores: every player blends into its own
//! [`LocalPoses`], then every bone copies its pose from its player's. A
//! player cannot write its bones' `Transform`s while other players are
//! posed beside it (Bevy lends one query's items to one thread), and a
//! pass over bones can: each bone belongs to one player ([`Io3dBone`]).

use bevy::asset::Assets;
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemChangeTick;
use bevy::transform::components::Transform;
use bevy::utils::Parallel;

use super::assets::AniClip;
use super::axes::Axes;
use super::binding::Io3dBone;
use super::evaluate::{Posing, ToPose, pose_player};
use super::player::{AniPlayer, LocalPoses, PoseOutput};

/// Blends each bound player's clips into its [`LocalPoses`] and reports
/// the root's motion, over all cores: players that write
/// [`PoseOutput::Transform`] (the world-pose path is
/// [`super::world_pose::pose_world`]). A paused (or stopped) player still
/// poses its clips at their times, so a seek shows.
pub(crate) fn pose_players(
    clips: Res<Assets<AniClip>>,
    mut players: Query<(ToPose, Pose)>,
    posings: Local<Parallel<Posing>>,
    ticks: SystemChangeTick,
) {
    // A crowd all on the other path has nothing to pose here.
    if players.iter().all(|(_, (_, output, locals))| *output != PoseOutput::Transform && locals.0.is_empty()) {
        return;
    }
    players.par_iter_mut().for_each_init(
        || posings.borrow_local_mut(),
        |posing, ((entity, mut player, binding, lod, mut motion), (&axes, output, mut locals))| {
            let locals = &mut locals.0;
            locals.clear();
            if !binding.is_bound() || *output != PoseOutput::Transform {
                return;
            }
            let player = (&mut *player, binding, lod.map(Mut::into_inner), entity.index_u32(), ticks.this_run());
            let posed = pose_player(player, &clips, &mut motion, axes, posing);
            locals.extend(posed.iter().map(|pose| (axes.position(pose.position), axes.rotation(pose.rotation))));
        },
    );
}

/// Where a player's poses go, and in which axes.
type Pose = (&'static Axes, &'static PoseOutput, &'static mut LocalPoses);

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

/// The player the bone before was looked up in, with what was found: a
/// player's bones lie side by side in Bevy's tables, so passes over bones
/// look each player up about once rather than once a bone.
pub(super) struct LastPlayer<T>(Option<(Entity, Option<T>)>);

impl<T> Default for LastPlayer<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<T: Copy> LastPlayer<T> {
    /// What `find` gives for `player`, from the last lookup when it was the
    /// same player.
    pub(super) fn get(&mut self, player: Entity, find: impl FnOnce(Entity) -> Option<T>) -> Option<T> {
        match self.0 {
            Some((last, found)) if last == player => found,
            _ => {
                let found = find(player);
                self.0 = Some((player, found));
                found
            }
        }
    }
}
