//! The player's frame: time and events, then the blended pose and the
//! root's motion.

use bevy::asset::{AssetId, Assets};
use bevy::ecs::prelude::*;
use bevy::math::Vec3;
use bevy::time::Time;
use bevy::transform::components::Transform;
use bevy::utils::Parallel;

use crate::anim::math::yaw_between;
use crate::anim::mixer::{Fired, Instance, Kind, Removed, State};
use crate::anim::{BonePose, Clip, InstanceId, PoseBlend, RepeatMode, Step};
use crate::format::EventKind;

use super::assets::AniClip;
use super::axes::Axes;
use super::binding::AniBinding;
use super::player::{AniClipEnded, AniEventFired, AniPlayer, RootMotion};
use super::world_pose::PoseOutput;

type Id = AssetId<AniClip>;

/// Advances each player by the frame's time in ms (times its speed), over
/// all cores, and triggers [`AniEventFired`] for the events its clips
/// pass, each player's in the order passed.
pub fn advance_players(
    mut commands: Commands,
    time: Res<Time>,
    clips: Res<Assets<AniClip>>,
    mut players: Query<(Entity, &mut AniPlayer)>,
    mut fired: Local<Parallel<FiredBy>>,
) {
    let delta_ms = time.delta_secs() * 1000.0;
    players.par_iter_mut().for_each_init(
        || fired.borrow_local_mut(),
        |fired, (entity, mut player)| {
            let FiredBy { passed, by, ended } = &mut **fired;
            passed.clear();
            advance(&mut player, delta_ms, &clips, passed);
            by.extend(passed.drain(..).map(|event| (entity, event)));
            ended.extend(player.mixer.take_removed().into_iter().map(|removed| (entity, removed)));
        },
    );
    for fired in fired.iter_mut() {
        for (entity, event) in fired.by.drain(..) {
            trigger(&mut commands, entity, &clips, &event);
        }
        for (entity, Removed { instance, clip, cleared }) in fired.ended.drain(..) {
            commands.trigger(AniClipEnded { entity, instance, clip, cleared });
        }
    }
}

/// The events one thread's players passed this frame.
#[derive(Default)]
pub struct FiredBy {
    /// One player's, as its mixer reports them.
    passed: Vec<Fired<Id>>,
    /// Every player's, with the player.
    by: Vec<(Entity, Fired<Id>)>,
    /// The clips that left each player.
    ended: Vec<(Entity, Removed<Id>)>,
}

/// Moves one player's clips by `delta_ms` times its speed, adding the
/// events passed to `fired`.
fn advance(player: &mut AniPlayer, delta_ms: f32, clips: &Assets<AniClip>, fired: &mut Vec<Fired<Id>>) {
    let restarted = player.main.map(|m| m.0);
    player.follow_main_clip();
    let restarted = player.main.map(|m| m.0) != restarted;
    let seek = player.pending_seek.take();
    if let Some(t) = seek {
        let ids: Vec<InstanceId> = player.mixer.instances().map(|i| i.id).collect();
        ids.into_iter().for_each(|id| player.mixer.seek(id, t));
    }
    // A seek, a new clip or a pause moves nowhere this frame.
    let delta = delta_ms * player.speed;
    let still_by_request = seek.is_some() || restarted;
    let still = still_by_request || !delta.is_finite();
    let delta = if still || player.paused { 0.0 } else { delta };
    let lookup = |id: Id| clips.get(id).map(|c| &c.clip);
    // The one pause is the mixer's stop (`StopAllPlayingAnimation`): no
    // time passes, no event fires and nothing ends or is removed. A frame
    // that seeks or starts a new main clip still settles it by no time,
    // so that a paused player shows the clip it was given (its weight
    // rises from 0 on that update).
    player.unsettled |= still_by_request;
    if player.paused && !player.unsettled {
        player.mixer.stop()
    } else {
        player.mixer.resume()
    }
    if player.mixer.is_stopped() {
        player.steps.clear();
    } else if delta >= 0.0 {
        player.mixer.advance(delta, lookup, fired);
        player.steps.clear();
        player.steps.extend(player.mixer.instances().map(|i| (i.id, forward_step(i))));
        player.unsettled = !player.mixer.instances().all(|i| lookup(i.clip).is_some());
    } else {
        player.steps = rewind(player, delta, lookup, fired);
    }
    let AniPlayer { handles, mixer, .. } = player;
    handles.retain(|h| mixer.instances().any(|i| i.clip == h.id()));
}

fn trigger(commands: &mut Commands, entity: Entity, clips: &Assets<AniClip>, fired: &Fired<Id>) {
    let Some(event) = clips.get(fired.clip).and_then(|c| c.events().get(fired.event)) else { return };
    commands.trigger(AniEventFired {
        entity,
        instance: fired.instance,
        clip: fired.clip,
        index: fired.event,
        kind: event.kind.to_text(),
        event_kind: EventKind::of(&event.kind),
        sub_info: event.sub_info.to_text(),
        time_ms: fired.time_ms,
    });
}

/// The step an instance just made: a loop whose time went down wrapped.
fn forward_step(instance: &Instance<Id>) -> Step {
    let (from, to) = (instance.previous_time_ms(), instance.time_ms());
    let wrapped = instance.kind() == Kind::Loop && to < from;
    let total = f64::from(instance.total_ms());
    Step {
        from_ms: f64::from(from),
        to_ms: f64::from(to),
        moved_ms: f64::from(to) - f64::from(from) + if wrapped { total } else { 0.0 },
        wraps: i64::from(wrapped),
        total_ms: total,
        looping: instance.kind() == Kind::Loop,
    }
}

/// Plays every started clip backwards by `delta` ms times its rate, by the
/// transport's clock ([`RepeatMode::step`]: loops wrap, actions clamp),
/// passing events in the order met; states and weights stay.
fn rewind<'c>(
    player: &mut AniPlayer,
    delta: f32,
    clips: impl Fn(Id) -> Option<&'c Clip>,
    fired: &mut Vec<Fired<Id>>,
) -> Vec<(InstanceId, Step)> {
    let mut steps = Vec::new();
    let moving: Vec<(InstanceId, Id, Kind, f32, f32)> = player
        .mixer
        .instances()
        .filter(|i| i.state() != State::Wait)
        .map(|i| (i.id, i.clip, i.kind(), i.time_ms(), i.rate()))
        .collect();
    for (id, clip_id, kind, time, rate) in moving {
        let Some(clip) = clips(clip_id) else { continue };
        let mode = if kind == Kind::Loop { RepeatMode::Loop } else { RepeatMode::Once };
        let step = mode.step(f64::from(time), f64::from(delta * rate), clip.total_ms);
        let times: Vec<f32> = clip.events.iter().map(|e| e.time_ms).collect();
        for (sorted, time_ms) in step.events_passed(&times) {
            fired.push(Fired { instance: id, clip: clip_id, event: clip.events[sorted].index, time_ms });
        }
        player.mixer.seek(id, step.to_ms as f32);
        steps.push((id, step));
    }
    steps
}

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

/// Where in-place play holds the root: the bone and the position whose
/// horizontal part it keeps.
pub(super) type Held = Option<(usize, Vec3)>;

/// Blends `player`'s clips over the bones' rest poses into `blend` and
/// fills `motion`; returns where in-place play holds the root.
pub(super) fn blend_player(
    player: &mut AniPlayer,
    binding: &AniBinding,
    clips: &Assets<AniClip>,
    motion: &mut RootMotion,
    axes: Axes,
    blend: &mut PoseBlend,
) -> Held {
    let bound = |id: Id| {
        let bound = binding.clip(id)?;
        Some((bound.played(&clips.get(id)?.clip), &bound.tracks[..]))
    };
    player.mixer.pose(&binding.rest, bound, blend);
    let root = binding.root();
    let root_pose = root.and_then(|root| blend.pose(root));
    // Where the main clip starts the root, for both the distance reported
    // and the in-place hold.
    let start = main_root_start(player, binding);
    *motion = root
        .zip(root_pose)
        .and_then(|(root, pose)| root_motion(player, binding, clips, root, pose.position, start))
        .map(|motion| motion.in_axes(axes))
        .unwrap_or_default();
    root.zip(start).filter(|_| player.in_place)
}

/// Each bone's blended pose relative to its parent, in the files' axes,
/// with the root held in place where `held` says.
pub(super) fn local_poses(blend: &PoseBlend, held: Held) -> impl Iterator<Item = BonePose> + '_ {
    blend.poses().enumerate().map(move |(i, mut pose)| {
        if let Some((_, start)) = held.filter(|(root, _)| *root == i) {
            pose.position.x = start.x;
            pose.position.z = start.z;
        }
        pose
    })
}

/// Where the clip `clip` puts bone `root` at `t` ms: every track bound to
/// it, blended as the pose blends them.
fn root_at(clip: &AniClip, binding: &AniBinding, id: Id, root: usize, t: f32) -> Option<BonePose> {
    let bound = binding.clip(id)?;
    let is_root = |track: usize| bound.tracks[track] == Some(root);
    bound.played(&clip.clip).blended(is_root, t, None)
}

/// Where the main clip puts the root bone at its start: the transport's
/// clip ([`AniPlayer::clip`]), or, for a player steered by the client's
/// calls, the loop started last (else the action started last), so that
/// holding in place and the distance work whichever way a clip was
/// started.
fn main_root_start(player: &AniPlayer, binding: &AniBinding) -> Option<Vec3> {
    Some(binding.clip(main_clip(player)?)?.root_ends?.0.position)
}

/// The clip that stands for the player's motion (see [`main_root_start`]).
fn main_clip(player: &AniPlayer) -> Option<Id> {
    if let Some(main) = player.main_clip_id() {
        return Some(main);
    }
    let newest = |kind: Kind| player.instances().filter(|i| i.kind() == kind).max_by_key(|i| i.id).map(|i| i.clip);
    newest(Kind::Loop).or_else(|| newest(Kind::Action))
}

/// The root's motion: the blended position, each clip's own step of its
/// root track mixed by the clips' weights, and the distance from `start`
/// (the main clip's start). `None` when no clip has a root track.
fn root_motion(
    player: &AniPlayer,
    binding: &AniBinding,
    clips: &Assets<AniClip>,
    root: usize,
    position: Vec3,
    start: Option<Vec3>,
) -> Option<RootMotion> {
    let ends = |clip: Id| binding.clip(clip).and_then(|c| c.root_ends);
    if !player.instances().any(|i| ends(i.clip).is_some()) {
        return None;
    }
    let (mut delta, mut yaw, mut weight) = (Vec3::ZERO, 0.0, 0.0);
    for (id, step) in &player.steps {
        let Some(instance) = player.mixer.instance(*id) else { continue };
        let Some(clip) = clips.get(instance.clip) else { continue };
        let at = |t: f64| root_at(clip, binding, instance.clip, root, t as f32);
        let (Some(now), Some(before), Some((start, end))) = (at(step.to_ms), at(step.from_ms), ends(instance.clip))
        else {
            continue;
        };
        let w = instance.weight();
        let laps = step.wraps as f32;
        delta += (now.position - before.position + (end.position - start.position) * laps) * w;
        yaw += (yaw_between(before.rotation, now.rotation) + yaw_between(start.rotation, end.rotation) * laps) * w;
        weight += w;
    }
    let (delta, yaw) = if weight > 0.0 { (delta / weight, yaw / weight) } else { (Vec3::ZERO, 0.0) };
    let distance = start.map_or(0.0, |start| {
        let from_start = position - start;
        Vec3::new(from_start.x, 0.0, from_start.z).length()
    });
    Some(RootMotion { position, delta, yaw_delta: yaw, distance_this_loop: distance })
}
