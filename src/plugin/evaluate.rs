//! The second stage: each player's clips blended per bone over its
//! rest pose as the client blends them, in the files' axes, and the root's
//! motion ([`crate::anim::root_motion`]), or, for a player with a level of
//! detail ([`super::lod`]), its last poses interpolated on the frames it
//! skips; over all cores. Each player's result is left for the last stage
//! in its output's form: local poses in Bevy's axes ([`LocalPoses`], for
//! `write`) or, on the crowd and palette paths, model poses composed by
//! the client's arithmetic ([`ModelPoses`], for `world_pose` or
//! [`super::palette`]).

use bevy::asset::{AssetId, Assets};
use bevy::ecs::prelude::*;
use bevy::math::{Affine3A, Vec3};
use bevy::transform::components::Transform;
use bevy::utils::Parallel;

use crate::anim::mixer::{Kind, State};
use crate::anim::root_motion::{self, ClipRootStep};
use crate::anim::{BonePose, PoseBlend};

use super::assets::AniClip;
use super::axes::Axes;
use super::binding::AniBinding;
use super::compose::compose;
use super::lod::AniLod;
use super::palette::{PaletteOutput, SkinPalettes};
use super::player::{AniPlayback, AniPlayer, LocalOutput, LocalPoses, ModelPoses, RootMotion, WorldOutput};

type Id = AssetId<AniClip>;

/// What posing reads and writes of a player, on either path.
type ToPose = (
    Entity,
    &'static AniPlayer,
    &'static mut AniPlayback,
    &'static AniBinding,
    Option<&'static mut AniLod>,
    &'static mut RootMotion,
);

/// What one thread reuses from player to player while posing.
#[derive(Default)]
pub(crate) struct Posing {
    blend: PoseBlend,
    posed: Vec<BonePose>,
}

/// Blends each bound player's clips into its [`LocalPoses`] and reports
/// the root's motion, over all cores: players that write
/// [`super::PoseOutput::Transform`] (the world-pose path is
/// [`pose_world`]). A paused (or stopped) player still
/// poses its clips at their times, so a seek shows.
pub(crate) fn pose_players(
    clips: Res<Assets<AniClip>>,
    mut players: Query<(ToPose, LocalPose), With<LocalOutput>>,
    posings: Local<Parallel<Posing>>,
) {
    players.par_iter_mut().for_each_init(
        || posings.borrow_local_mut(),
        |posing, ((entity, player, mut playback, binding, lod, mut motion), (&axes, mut locals))| {
            let locals = &mut locals.0;
            locals.clear();
            if !binding.is_bound() {
                return;
            }
            let player = (player, &mut *playback, binding, lod.map(Mut::into_inner), entity.index_u32());
            let posed = pose_player(player, &clips, &mut motion, axes, posing);
            locals.extend(posed.iter().map(|pose| (axes.position(pose.position), axes.rotation(pose.rotation))));
        },
    );
}

/// Where a player's poses go, and in which axes.
type LocalPose = (&'static Axes, &'static mut LocalPoses);

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
/// [`super::PoseOutput::GlobalTransform`] or [`super::PoseOutput::Palette`],
/// over all cores, and fills their [`RootMotion`]; a palette player's
/// skinning matrices go into its slot of the slab ([`SkinPalettes`]).
pub(crate) fn pose_world(
    clips: Res<Assets<AniClip>>,
    mut players: Query<(ToPose, WorldPose), ComposedOutput>,
    transforms: Query<&Transform>,
    mut palettes: ResMut<SkinPalettes>,
    scratch: Local<Parallel<Scratch>>,
) {
    // A palette player's matrices are written while its model pose is
    // still in the cache: a pass of their own read the model poses of
    // every player back from memory.
    let ranges = palettes.ranges();
    players.par_iter_mut().for_each_init(
        || scratch.borrow_local_mut(),
        |scratch, ((entity, player, mut playback, binding, lod, mut motion), (&axes, mut poses))| {
            if !binding.is_bound() {
                poses.0.clear();
                return;
            }
            let Scratch { posing, chained, anchors } = &mut **scratch;
            let player = (player, &mut *playback, binding, lod.map(Mut::into_inner), entity.index_u32());
            let posed = pose_player(player, &clips, &mut motion, axes, posing);
            compose(binding, posed.iter().copied(), axes, &transforms, (chained, anchors), &mut poses.0);
            ranges.fill(entity, &poses.0, &binding.inverse_binds);
        },
    );
}

/// The players whose poses are composed by the client's arithmetic: the
/// crowd path's and the palette path's.
type ComposedOutput = Or<(With<WorldOutput>, With<PaletteOutput>)>;

/// Where a player's poses go, and in which axes.
type WorldPose = (&'static Axes, &'static mut ModelPoses);

/// A player to pose, as the pose passes hand it over: with what it
/// plays, its binding, its level of detail and where it is staggered
/// among the others.
type PlayerToPose<'a> = (&'a AniPlayer, &'a mut AniPlayback, &'a AniBinding, Option<&'a mut AniLod>, u32);

/// Poses `player`'s bones, each relative to its parent in the files' axes
/// with the root held where in-place play holds it, and fills `motion`:
/// its clips blended over the bones' rest poses, or, on a frame its level
/// of detail (`lod`, with where it is `stagger`ed among the others) skips,
/// its last two poses interpolated. Root motion is the clips' either way.
fn pose_player<'a>(
    (player, playback, binding, lod, stagger): PlayerToPose,
    clips: &Assets<AniClip>,
    motion: &mut RootMotion,
    axes: Axes,
    posing: &'a mut Posing,
) -> &'a [BonePose] {
    let Posing { blend, posed } = posing;
    match lod.and_then(|lod| (!lod.is_full()).then_some(lod)) {
        None => {
            blend_clips(playback, binding, clips, blend);
            posed.clear();
            posed.extend(blend.poses());
        }
        Some(lod) => {
            if lod.poses_now(binding.bones.len(), stagger) {
                blend_clips(playback, binding, clips, blend);
                lod.keep(blend.poses());
            }
            lod.show(posed);
        }
    }
    let root = binding.root();
    let root_pose = root.and_then(|root| posed.get(root).copied());
    // Where the main clip starts the root, for both the distance reported
    // and the in-place hold.
    let start = main_root_start((player, playback), binding);
    *motion = root_pose
        .and_then(|pose| root_motion(playback, binding, clips, pose.position, start))
        .map(|motion| motion.in_axes(axes))
        .unwrap_or_default();
    if let Some((pose, start)) = root.and_then(|root| posed.get_mut(root)).zip(start).filter(|_| player.in_place) {
        *pose = root_motion::held_in_place(*pose, start);
    }
    posed
}

/// Blends `player`'s clips over the bones' rest poses into `blend`.
fn blend_clips(playback: &mut AniPlayback, binding: &AniBinding, clips: &Assets<AniClip>, blend: &mut PoseBlend) {
    let bound = |id: Id| {
        let bound = binding.clip(id)?;
        Some((bound.played(&clips.get(id)?.clip), &bound.tracks[..]))
    };
    playback.mixer.pose(&binding.rest, bound, blend);
}

/// Where the clip `clip` puts the root bone at `t` ms: every track bound
/// to it, blended as the pose blends them.
fn root_at(clip: &AniClip, binding: &AniBinding, id: Id, t: f32) -> Option<BonePose> {
    let bound = binding.clip(id)?;
    bound.played(&clip.clip).blended_tracks(bound.root_tracks.iter().copied(), t, None)
}

/// Where the main clip puts the root bone at its start: the transport's
/// clip ([`AniPlayer::clip`]), or, for a player steered by the client's
/// calls, the loop started last (else the action started last), so that
/// holding in place and the distance work whichever way a clip was
/// started.
fn main_root_start(player: (&AniPlayer, &AniPlayback), binding: &AniBinding) -> Option<Vec3> {
    Some(binding.clip(main_clip(player)?)?.root_ends?.0.position)
}

/// The clip that stands for the player's motion (see [`main_root_start`]).
fn main_clip((player, playback): (&AniPlayer, &AniPlayback)) -> Option<Id> {
    if let Some(main) = &player.clip {
        return Some(main.id());
    }
    let newest = |kind: Kind| playback.instances().filter(|i| i.kind() == kind).max_by_key(|i| i.id).map(|i| i.clip);
    newest(Kind::Loop).or_else(|| newest(Kind::Action))
}

/// The root's motion: the blended position, each clip's own step of its
/// root track mixed by the clips' weights, and the distance from `start`
/// (the main clip's start). `None` when no clip has a root track.
fn root_motion(
    playback: &AniPlayback,
    binding: &AniBinding,
    clips: &Assets<AniClip>,
    position: Vec3,
    start: Option<Vec3>,
) -> Option<RootMotion> {
    let ends = |clip: Id| binding.clip(clip).and_then(|c| c.root_ends);
    if !playback.instances().any(|i| ends(i.clip).is_some()) {
        return None;
    }
    let steps = playback.steps.iter().filter_map(|(id, step)| {
        // Waiting clips are not in the pose, nor in its motion.
        let instance = playback.instance(*id).filter(|i| i.state() != State::Wait)?;
        let clip = clips.get(instance.clip)?;
        let at = |t: f64| root_at(clip, binding, instance.clip, t as f32);
        let (first, last) = ends(instance.clip)?;
        let (before, now) = (at(step.from_ms)?, at(step.to_ms)?);
        Some(ClipRootStep { step: *step, kind: instance.kind(), weight: instance.weight(), before, now, first, last })
    });
    let moved = root_motion::mixed(steps);
    let distance = start.map_or(0.0, |start| root_motion::ground_distance(start, position));
    Some(RootMotion { position, delta: moved.delta, yaw_delta: moved.yaw, distance_this_loop: distance })
}

#[cfg(test)]
mod tests {
    use bevy::asset::Handle;

    use super::*;
    use crate::anim::Loop;
    use crate::anim::mixer::Call;
    use crate::plugin::binding::biped;

    /// One clip at weight 1 poses each bone as the library samples it, to
    /// the bit; root motion reports the root where the clip has it, and
    /// in-place play holds it over the ground at the clip's start.
    #[test]
    fn one_clip_poses_as_the_library_samples_and_in_place_holds_the_root() {
        let mut world = World::new();
        let (biped, walk) = biped::skeleton_and_walk();
        let rig = &biped.rig;
        let (mut clips, handle) = (Assets::<AniClip>::default(), Handle::<AniClip>::default());
        let binding = biped::binding(biped::bones(&mut world, rig), (handle.id(), &walk));
        clips.insert(&handle, walk).unwrap();
        let mut playback = AniPlayback::default();
        let id = crate::anim::InstanceId(1);
        playback.mixer.apply(Call::PlayLoop { id, clip: handle.id(), settings: Loop::default() });
        playback.mixer.advance(500.0, |id| clips.get(id).map(|c| &c.clip), &mut Vec::new());
        let expected = rig.local_pose(&clips.get(&handle).unwrap().clip, 500.0);
        let root = binding.root().unwrap();

        let mut player = AniPlayer::default();
        let (mut motion, mut posing) = (RootMotion::default(), Posing::default());
        let posed =
            pose_player((&player, &mut playback, &binding, None, 0), &clips, &mut motion, Axes::AsIs, &mut posing);
        assert_eq!(posed, expected);
        assert_eq!(motion.position, expected[root].position);

        player.in_place = true;
        let posed =
            pose_player((&player, &mut playback, &binding, None, 0), &clips, &mut motion, Axes::AsIs, &mut posing);
        let start = binding.clip(handle.id()).unwrap().root_ends.unwrap().0.position;
        assert_eq!(posed[root], root_motion::held_in_place(expected[root], start));
        assert_ne!(posed[root].position, expected[root].position, "the walk has moved by 500 ms");
        assert_eq!(motion.position, expected[root].position, "the motion is still reported");
        assert_eq!(posed[..root], expected[..root]);
    }
}
