//! The player: a millisecond clock, binding tracks to bones by name,
//! posing them, firing events and reporting root motion.

use std::borrow::Cow;
use std::collections::HashMap;

use bevy::asset::{AssetEvent, AssetId, Assets, Handle};
use bevy::ecs::name::Name;
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::math::Vec3;
use bevy::time::Time;
use bevy::transform::components::Transform;

use crate::anim::{BonePose, RepeatMode, Step, poses, track_pose};
use crate::format::Track;

use super::assets::AniClip;
use super::axes::Axes;
use super::rig::{BoneRest, RigBones, SklRig};

/// Plays an [`AniClip`] on the named descendants of its entity (a rig
/// spawned by [`super::SklRig`], a glTF scene, or any hierarchy of named
/// entities).
#[derive(Component, Debug, Clone)]
#[require(AniBinding, RootMotion, Transform)]
pub struct AniPlayer {
    /// The clip to play.
    pub clip: Handle<AniClip>,
    /// Playback speed: 1 is real time, negative plays backwards.
    pub speed: f64,
    /// Whether time stands still.
    pub paused: bool,
    /// Loop (as the client does) or play once and hold the end.
    pub repeat: RepeatMode,
    /// How the file's axes become the bones'.
    pub axes: Axes,
    /// Keep the root bone's horizontal position at the clip's start and
    /// report the movement in [`RootMotion`] only, for games that move the
    /// character themselves.
    pub in_place: bool,
    /// The bone that carries the movement through the level.
    pub root_bone: String,
    time_ms: f64,
    step: Option<Step>,
    seeked: bool,
    /// The clip the clock last stepped, so that a new clip starts afresh.
    stepped: Option<AssetId<AniClip>>,
}

impl AniPlayer {
    /// A player at the start of `clip`, looping at normal speed.
    pub fn new(clip: Handle<AniClip>) -> Self {
        Self {
            clip,
            speed: 1.0,
            paused: false,
            repeat: RepeatMode::Loop,
            axes: Axes::default(),
            in_place: false,
            root_bone: "Bip01".to_owned(),
            time_ms: 0.0,
            step: None,
            seeked: false,
            stepped: None,
        }
    }

    /// The same player with another repeat mode.
    pub fn with_repeat(mut self, repeat: RepeatMode) -> Self {
        self.repeat = repeat;
        self
    }

    /// The same player with other axes.
    pub fn with_axes(mut self, axes: Axes) -> Self {
        self.axes = axes;
        self
    }

    /// The animation time shown, in milliseconds.
    pub fn time_ms(&self) -> f64 {
        self.time_ms
    }

    /// Jumps to `time_ms` exactly (clamped or wrapped to the clip when it is
    /// loaded); no event fires and root motion reports no movement for the
    /// jump. A time that is not finite is ignored.
    pub fn seek(&mut self, time_ms: f64) {
        if time_ms.is_finite() {
            self.time_ms = time_ms;
            self.seeked = true;
        }
    }

    /// The last step of the clock, once the clip is playing.
    pub fn last_step(&self) -> Option<Step> {
        self.step
    }
}

/// How a player's tracks met the bones below it, kept up to date when the
/// clip, the file or the hierarchy changes.
#[derive(Component, Debug, Clone, Default)]
pub struct AniBinding {
    clip: Option<AssetId<AniClip>>,
    /// The root bone's name this binding was made for.
    root_bone: String,
    /// For each track, the bone it poses: `None` when no bone has its name
    /// or the track never poses ([`poses`]).
    tracks: Vec<Option<Entity>>,
    /// Bones no track poses, with their rest transforms.
    at_rest: Vec<(Entity, Transform)>,
    root: Option<usize>,
    /// Tracks no bone has the name of: skipped (the client would drive the
    /// root bone with them).
    pub unbound_tracks: Vec<String>,
    /// Named entities below the player that no track drives: they stay at
    /// rest.
    pub bones_without_track: Vec<String>,
}

impl AniBinding {
    /// Whether the clip has been bound (on an [`SklRig`], to its spawned
    /// bones).
    pub fn is_bound(&self) -> bool {
        self.clip.is_some()
    }
}

/// The root bone's motion, in the player's output axes, relative to the
/// root bone's parent (the rig).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct RootMotion {
    /// Where the clip puts the root bone now (before any in-place removal).
    pub position: Vec3,
    /// Its change over the last frame; across a loop wrap this includes the
    /// clip's whole travel, so it adds up to the distance walked.
    pub delta: Vec3,
    /// The horizontal distance from where the root was at the start of this
    /// loop.
    pub distance_this_loop: f32,
}

/// Triggered on the player's entity when playback passes one of the file's
/// events: once per pass, in the order passed, never on a seek.
#[derive(EntityEvent, Debug, Clone, PartialEq)]
pub struct AniEventFired {
    /// The player's entity.
    pub entity: Entity,
    /// The event's index in the file.
    pub index: usize,
    /// The event type, such as `motion_sound`.
    pub kind: String,
    /// Its sub info (decoded from CP949 where it is not UTF-8).
    pub sub_info: String,
    /// Its time in the clip, in milliseconds.
    pub time_ms: f32,
}

/// A change that can alter what a player's tracks bind to.
type Regrowth = Or<(Changed<Children>, Changed<Name>)>;

/// Players ready to bind: any but an [`SklRig`] whose bones are not
/// spawned yet.
type Bindable = Or<(Without<SklRig>, With<RigBones>)>;

/// The hierarchy as binding sees it: links both ways, and what changed.
#[derive(SystemParam)]
pub struct Hierarchy<'w, 's> {
    /// Entities whose children or name changed this frame.
    changed: Query<'w, 's, Entity, Regrowth>,
    parents: Query<'w, 's, &'static ChildOf>,
    children: Query<'w, 's, &'static Children>,
}

/// Binds each player's tracks to its descendants by name when the clip
/// arrives or changes, the file is reloaded, or the hierarchy changes. A
/// player on an [`SklRig`] waits for the rig's bones, so that a clip loaded
/// before its skeleton is never reported as bound with every track
/// unbound.
pub fn bind_players(
    mut commands: Commands,
    mut clip_events: MessageReader<AssetEvent<AniClip>>,
    hierarchy: Hierarchy,
    clips: Res<Assets<AniClip>>,
    mut players: Query<(Entity, &AniPlayer, &mut AniBinding), Bindable>,
    names: Query<(&Name, &Transform, Option<&BoneRest>)>,
) {
    let reloaded: Vec<AssetId<AniClip>> = clip_events
        .read()
        .filter_map(|e| match e {
            AssetEvent::Modified { id } | AssetEvent::LoadedWithDependencies { id } => Some(*id),
            _ => None,
        })
        .collect();
    // Players at or above a changed entity see a changed hierarchy.
    let mut regrown: Vec<Entity> = Vec::new();
    for changed in &hierarchy.changed {
        let at_or_above = std::iter::once(changed).chain(hierarchy.parents.iter_ancestors(changed));
        regrown.extend(at_or_above.filter(|e| players.contains(*e)));
    }
    for (entity, player, mut binding) in &mut players {
        let id = player.clip.id();
        let current = binding.clip == Some(id)
            && binding.root_bone == player.root_bone
            && !reloaded.contains(&id)
            && !regrown.contains(&entity);
        let Some(clip) = clips.get(id).filter(|_| !current) else { continue };
        let bones: Vec<(Entity, &Name, Transform)> = hierarchy
            .children
            .iter_descendants(entity)
            .filter_map(|e| {
                let (name, transform, rest) = names.get(e).ok()?;
                if rest.is_none() {
                    commands.entity(e).insert(BoneRest(*transform));
                }
                Some((e, name, rest.map_or(*transform, |r| r.0)))
            })
            .collect();
        *binding = bind(clip, &bones, &player.root_bone);
        binding.clip = Some(id);
    }
}

/// Matches tracks to bones by name (the file's bytes as
/// [`crate::format::FileString::name_text`] decodes them), the first bone
/// of a name winning. As in [`crate::anim::Rig::local_pose`], tracks that
/// never pose are skipped: a bone keeps an earlier track's pose, or rest.
fn bind(clip: &AniClip, bones: &[(Entity, &Name, Transform)], root_bone: &str) -> AniBinding {
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(bones.len());
    for (index, (_, name, _)) in bones.iter().enumerate().rev() {
        by_name.insert(name.as_str(), index);
    }
    let tracks = &clip.animation.tracks;
    let names: Vec<Cow<str>> = tracks.iter().map(|t| t.bone.name_text()).collect();
    let found: Vec<Option<usize>> = names.iter().map(|n| by_name.get(n.as_ref()).copied()).collect();
    let (mut named, mut posed) = (vec![false; bones.len()], vec![false; bones.len()]);
    for (track, bone) in tracks.iter().zip(&found) {
        if let Some(bone) = *bone {
            named[bone] = true;
            posed[bone] |= poses(track);
        }
    }
    let posing = |(bone, track): (&Option<usize>, &Track)| bone.filter(|_| poses(track)).map(|b| bones[b].0);
    AniBinding {
        clip: None,
        root_bone: root_bone.to_owned(),
        tracks: found.iter().zip(tracks).map(posing).collect(),
        at_rest: bones.iter().zip(&posed).filter(|(_, p)| !**p).map(|((e, _, rest), _)| (*e, *rest)).collect(),
        root: names.iter().position(|n| n == root_bone),
        unbound_tracks: names.iter().zip(&found).filter(|(_, b)| b.is_none()).map(|(n, _)| n.to_string()).collect(),
        bones_without_track: bones
            .iter()
            .zip(&named)
            .filter(|(_, n)| !**n)
            .map(|((_, name, _), _)| name.as_str().to_owned())
            .collect(),
    }
}

/// Advances each playing clock by the frame's time and triggers the events
/// it passes.
pub fn advance_players(
    mut commands: Commands,
    time: Res<Time>,
    clips: Res<Assets<AniClip>>,
    mut players: Query<(Entity, &mut AniPlayer)>,
) {
    let delta_ms = time.delta_secs_f64() * 1000.0;
    for (entity, mut player) in &mut players {
        let Some(clip) = clips.get(&player.clip) else { continue };
        let total = clip.animation.total_ms;
        let mode = player.repeat;
        if player.stepped != Some(player.clip.id()) {
            // Another clip: start it from its beginning, or where a seek
            // made before it played put it.
            player.stepped = Some(player.clip.id());
            if !player.seeked {
                player.time_ms = 0.0;
            }
            player.step = None;
        }
        let step = if std::mem::take(&mut player.seeked) || player.step.is_none() {
            // A seek (or the first frame) moves nowhere: the playhead just
            // starts where it is put.
            let at = mode.step(player.time_ms, 0.0, total).to_ms;
            mode.step(at, 0.0, total)
        } else {
            let delta = delta_ms * player.speed;
            let delta = if player.paused || !delta.is_finite() { 0.0 } else { delta };
            mode.step(player.time_ms, delta, total)
        };
        for (sorted, time_ms) in step.events_passed(&clip.event_times) {
            let index = clip.events_by_time[sorted];
            let event = &clip.animation.events[index];
            commands.trigger(AniEventFired {
                entity,
                index,
                kind: event.kind.to_text(),
                sub_info: event.sub_info.to_text(),
                time_ms,
            });
        }
        player.time_ms = step.to_ms;
        player.step = Some(step);
    }
}

/// Writes each player's pose into its bones' transforms and reports the
/// root's motion.
pub fn pose_players(
    clips: Res<Assets<AniClip>>,
    mut players: Query<(&AniPlayer, &AniBinding, &mut RootMotion)>,
    mut transforms: Query<&mut Transform, Without<AniPlayer>>,
) {
    for (player, binding, mut motion) in &mut players {
        let (Some(clip), Some(step)) = (clips.get(&player.clip), player.step) else { continue };
        // Never pose with a binding made for another version of the file.
        if binding.clip != Some(player.clip.id()) || binding.tracks.len() != clip.animation.tracks.len() {
            continue;
        }
        let t = step.to_ms as f32;
        let tracks = &clip.animation.tracks;
        for (i, (track, bone)) in tracks.iter().zip(&binding.tracks).enumerate() {
            let Some(mut transform) = bone.and_then(|b| transforms.get_mut(b).ok()) else { continue };
            let Some(mut pose) = track_pose(track, t) else { continue };
            if player.in_place && binding.root == Some(i) {
                pose.position = hold_horizontal(track, pose.position);
            }
            player.axes.apply(&pose, &mut transform);
        }
        for (bone, rest) in &binding.at_rest {
            if let Ok(mut transform) = transforms.get_mut(*bone) {
                *transform = *rest;
            }
        }
        let root = binding.root.and_then(|r| tracks.get(r));
        *motion = root.and_then(|root| root_motion(root, step, player.axes)).unwrap_or_default();
    }
}

/// The root position with its horizontal part (engine X and Z) held at the
/// clip's start.
fn hold_horizontal(root: &Track, position: Vec3) -> Vec3 {
    let start = track_pose(root, 0.0).map_or(position, |p| p.position);
    Vec3::new(start.x, position.y, start.z)
}

fn root_motion(root: &Track, step: Step, axes: Axes) -> Option<RootMotion> {
    let at = |t: f64| track_pose(root, t as f32).map(|p: BonePose| p.position);
    let (now, before) = (at(step.to_ms)?, at(step.from_ms)?);
    let (start, end) = (at(0.0)?, at(step.total_ms)?);
    let delta = now - before + (end - start) * step.wraps as f32;
    let from_start = now - start;
    Some(RootMotion {
        position: axes.position(now),
        delta: axes.position(delta),
        distance_this_loop: Vec3::new(from_start.x, 0.0, from_start.z).length(),
    })
}
