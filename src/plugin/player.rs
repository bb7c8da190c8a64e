//! The player component: the client's controller on a rig, with a one-line
//! form for the common case of one clip.

use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::asset::{AssetId, Handle};
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::prelude::*;
use bevy::ecs::world::DeferredWorld;
use bevy::math::{Affine3A, Quat, Vec3};
use bevy::reflect::{Reflect, reflect_remote, std_traits::ReflectDefault};
use bevy::transform::components::Transform;

use crate::anim::math::yaw_between;
use crate::anim::mixer::{Call, Instance, Kind};
use crate::anim::{Action, InstanceId, Loop, Mixer, RepeatMode, Step};

use super::assets::{AniClip, AniEvent};
use super::axes::Axes;
use super::binding::AniBinding;
use super::palette::{PaletteOutput, PaletteSlot};

/// [`RepeatMode`] as Bevy reflects it: the library below the plugin knows
/// nothing of Bevy.
#[reflect_remote(RepeatMode)]
#[derive(Debug, Clone, Copy, PartialEq)]
enum ReflectedRepeatMode {
    Loop,
    Once,
}

/// Plays [`AniClip`]s on the named descendants of its entity (a rig
/// spawned by [`super::SklRig`], a glTF scene, or any hierarchy of named
/// entities), as the client plays them: a list of actions and a list of
/// loops, each with its fades, weight and rate, blended per bone
/// ([`crate::anim::Mixer`] has the rules and the quirks kept or fixed).
///
/// It holds what the game writes, and only that, so that
/// `Changed<AniPlayer>` means the game asked for something. The simple
/// case is one line: [`AniPlayer::new`] loops one clip, and `clip`,
/// `repeat`, [`AniPlayer::seek`], `speed` and `paused` steer it like a
/// transport. A game starts and clears clips with the client's calls
/// instead ([`AniPlayer::play_action`], [`AniPlayer::play_loop`],
/// [`AniPlayer::clear_all_actions`], ...), usually on a player made with
/// [`AniPlayer::default`]; the calls are made when the plugin next
/// advances the player, this frame if made before
/// [`super::Io3dSystems::Advance`]. What plays, and each clip's time, is
/// the plugin's to keep: read it in [`AniPlayback`].
///
/// Every time is an `f32` in milliseconds, the client's own unit and
/// type: its controller keeps clip times as `float` ms, so the same type
/// gives the same numbers and loses nothing within a clip (an hour is
/// still exact to a quarter of a millisecond).
#[derive(Component, Debug, Clone, Reflect)]
#[reflect(Component, Default)]
#[require(AniBinding, RootMotion, Transform, Axes, PoseOutput, ModelPoses, LocalPoses, AniPlayback, ClipsInUse)]
pub struct AniPlayer {
    /// The main clip, which `repeat`, [`AniPlayer::seek`] and
    /// [`AniPlayback::time_ms`] act on: changing it cuts to the new clip
    /// from its start (or from a seek made with the change). `None` (the
    /// default) leaves the clips started by calls alone.
    pub clip: Option<Handle<AniClip>>,
    /// The main clip as a loop (as the client loops) or as an action held
    /// on its last frame; changing it keeps the time.
    #[reflect(remote = ReflectedRepeatMode)]
    pub repeat: RepeatMode,
    /// A factor on the frame's time for every clip: 1 is real time. Below
    /// 0 the transport runs backwards (a viewer's feature, not the
    /// client's): times wrap or clamp and each clip's events fire as they
    /// are passed, with no fades or state changes.
    pub speed: f32,
    /// Whether time stands still for every clip (the pose still follows
    /// seeks): the one pause, which [`AniPlayer::stop`] and
    /// [`AniPlayer::resume`] (the client's names) also set.
    pub paused: bool,
    /// Keep the root bone's horizontal position at the main clip's start
    /// and report the movement in [`RootMotion`] only, for games that move
    /// the character themselves. The main clip is `clip`, or without one
    /// the loop started last (else the action started last), however it
    /// was started.
    pub in_place: bool,
    /// The bone that carries the movement through the level.
    pub root_bone: String,
    /// Whether an ended action is kept on its last frame at weight 0.5
    /// until something new starts, so that the character does not snap to
    /// its rest pose (the client's "guarantee" mode, on by default).
    pub guarantee: bool,
    /// The calls made since the plugin last advanced the player.
    #[reflect(ignore)]
    pub(super) calls: Vec<Call<AssetId<AniClip>>>,
    /// Strong handles of the clips those calls start, so that they load.
    #[reflect(ignore)]
    pub(super) started: Vec<Handle<AniClip>>,
    #[reflect(ignore)]
    pub(super) pending_seek: Option<f32>,
    /// Which player this is: one put in its place (inserted again or
    /// assigned) starts afresh, as a new value of the component should.
    #[reflect(ignore)]
    pub(super) token: u64,
}

/// Instance ids and player tokens, unique in the process: an id a game
/// kept from a player that was replaced can never name a clip of the new
/// one.
static LAST_ID: AtomicU64 = AtomicU64::new(0);

/// A number no other call to it returns.
fn unique() -> u64 {
    LAST_ID.fetch_add(1, Ordering::Relaxed) + 1
}

/// The id for a new start, the game's or the transport's.
fn next_id() -> InstanceId {
    InstanceId(unique())
}

/// A player with nothing to play, for a game that starts clips with the
/// client's calls.
impl Default for AniPlayer {
    fn default() -> Self {
        Self {
            clip: None,
            repeat: RepeatMode::Loop,
            speed: 1.0,
            paused: false,
            in_place: false,
            root_bone: crate::anim::biped::ROOT.to_owned(),
            guarantee: true,
            calls: Vec::new(),
            started: Vec::new(),
            pending_seek: None,
            token: unique(),
        }
    }
}

impl AniPlayer {
    /// A player looping `clip` at normal speed: a convenience over
    /// [`AniPlayer::play_loop`] that the transport fields steer.
    pub fn new(clip: Handle<AniClip>) -> Self {
        Self { clip: Some(clip), ..Self::default() }
    }

    /// The same player with another repeat mode.
    pub fn with_repeat(mut self, repeat: RepeatMode) -> Self {
        self.repeat = repeat;
        self
    }

    /// The same player holding the root in place or not
    /// ([`AniPlayer::in_place`]).
    pub fn with_in_place(mut self, in_place: bool) -> Self {
        self.in_place = in_place;
        self
    }

    /// Puts every playing clip at `time_ms` (clamped to each clip, as the
    /// client's `SetCurTime`) on the next frame, which then moves no
    /// further: no event fires and root motion reports no movement for the
    /// jump. A time that is not finite is ignored.
    pub fn seek(&mut self, time_ms: f32) {
        if time_ms.is_finite() {
            self.pending_seek = Some(time_ms);
        }
    }

    /// Starts `clip` as a new action over what plays (`SetActionAni`); the
    /// game's usual form is `Action::faded(100.0, 100.0)` after clearing
    /// everything with 100 ms fades.
    ///
    /// It returns the instance's id, the handle for every later call on it
    /// ([`AniPlayer::set_rate`], [`AniPlayer::pause_instance`],
    /// [`AniPlayer::seek_instance`], [`AniPlayer::force_weight`],
    /// [`AniPlayer::clear_instance`]) and the key to find it in
    /// [`AniPlayback`], where Bevy's `play()` returns
    /// `&mut ActiveAnimation`: in the client's model a clip's instance may
    /// be removed by any frame (ended, cleared, replaced by a restart), so
    /// no reference to it could outlive this call, and a call on an id
    /// that is gone does nothing.
    pub fn play_action(&mut self, clip: Handle<AniClip>, action: Action) -> InstanceId {
        let id = next_id();
        self.calls.push(Call::PlayAction { id, clip: clip.id(), action });
        self.started.push(clip);
        id
    }

    /// Starts or restarts the loop of `clip` (`SetLoopAni`, or
    /// `SetLoopAniInMid` with [`Loop::start_ms`]). A loop of `clip`
    /// already playing takes the id returned, and its old id is gone.
    pub fn play_loop(&mut self, clip: Handle<AniClip>, settings: Loop) -> InstanceId {
        let id = next_id();
        self.calls.push(Call::PlayLoop { id, clip: clip.id(), settings });
        self.started.push(clip);
        id
    }

    /// Clears every action of `clip` over `fade_out_ms` (`ClearActionAni`).
    pub fn clear_action(&mut self, clip: &Handle<AniClip>, fade_out_ms: f32) {
        self.calls.push(Call::ClearAction { clip: clip.id(), fade_out_ms });
    }

    /// Clears every action (`ClearAllActionAni`).
    pub fn clear_all_actions(&mut self, fade_out_ms: f32, also_waiting: bool) {
        self.calls.push(Call::ClearAllActions { fade_out_ms, also_waiting });
    }

    /// Fades the loop of `clip` out (`ClearLoopAni`).
    pub fn clear_loop(&mut self, clip: &Handle<AniClip>, fade_out_ms: f32, also_waiting: bool) {
        self.calls.push(Call::ClearLoop { clip: clip.id(), fade_out_ms, also_waiting });
    }

    /// Fades every loop out (`ClearAllLoopAni`).
    pub fn clear_all_loops(&mut self, fade_out_ms: f32, also_waiting: bool) {
        self.calls.push(Call::ClearAllLoops { fade_out_ms, also_waiting });
    }

    /// Fades every loop but that of `clip` out, if `clip` loops, else all
    /// of them (`ClearAllLoopAniExceptOne`). Whether `clip` loops is
    /// [`AniPlayback`]'s to tell, once the call is made.
    pub fn clear_all_loops_except(&mut self, clip: &Handle<AniClip>, fade_out_ms: f32, also_waiting: bool) {
        self.calls.push(Call::ClearAllLoopsExcept { clip: clip.id(), fade_out_ms, also_waiting });
    }

    /// Clears one instance over `fade_out_ms`.
    pub fn clear_instance(&mut self, id: InstanceId, fade_out_ms: f32) {
        self.calls.push(Call::ClearInstance { id, fade_out_ms });
    }

    /// Sets an instance's weight (`ForceWeight`), as aiming steers three
    /// loops.
    pub fn force_weight(&mut self, id: InstanceId, weight: f32) {
        self.calls.push(Call::ForceWeight { id, weight });
    }

    /// Sets one instance's time factor from now on (2 plays twice as
    /// fast), whatever the others do.
    pub fn set_rate(&mut self, id: InstanceId, rate: f32) {
        self.calls.push(Call::SetRate { id, rate });
    }

    /// Holds one instance still, or lets it run again: no time passes for
    /// it and it fires nothing, while the other clips play on.
    pub fn pause_instance(&mut self, id: InstanceId, paused: bool) {
        self.calls.push(Call::PauseInstance { id, paused });
    }

    /// Sets one instance's time (`SetCurTime`); no event fires.
    pub fn seek_instance(&mut self, id: InstanceId, time_ms: f32) {
        self.calls.push(Call::Seek { id, time_ms });
    }

    /// Freezes every clip (`StopAllPlayingAnimation`): sets
    /// [`AniPlayer::paused`], which stops the player's mixer
    /// ([`crate::anim::Mixer::stop`]) from the next frame: no time passes,
    /// no event fires, and cleared or ended clips stay until it resumes.
    pub fn stop(&mut self) {
        self.paused = true;
    }

    /// Undoes [`AniPlayer::stop`] (`ResumeAllPlayingAnimation`).
    pub fn resume(&mut self) {
        self.paused = false;
    }
}

/// What a player plays: its clips' instances, with their times, weights
/// and states, as the plugin's advance left them this frame. The plugin
/// owns it and writes it every frame; a game reads it, and steers through
/// [`AniPlayer`]. (Not reflected: its state is the library's mixer.)
#[derive(Component, Debug, Clone, Default)]
pub struct AniPlayback {
    /// The [`AniPlayer::token`] of the player it plays for.
    pub(super) token: u64,
    pub(super) mixer: Mixer<AssetId<AniClip>>,
    /// Strong handles of the clips started by calls, so that they stay
    /// loaded while they play.
    pub(super) handles: Vec<Handle<AniClip>>,
    /// The transport's clip and kind, and the action playing it (a loop
    /// is found by its clip: a call may restart it under another id).
    pub(super) main: Option<(AssetId<AniClip>, RepeatMode, InstanceId)>,
    /// Each instance's last step, for root motion.
    pub(super) steps: Vec<(InstanceId, Step)>,
    /// A seek or a new main clip waits to be settled by an update of no
    /// time, even while paused (until every clip playing has loaded).
    pub(super) unsettled: bool,
}

impl AniPlayback {
    /// The main clip's time in ms (or the newest clip's when there is no
    /// main clip; 0 when nothing plays).
    pub fn time_ms(&self) -> f32 {
        let main = self.main_instance();
        main.or_else(|| self.mixer.instances().next()).map_or(0.0, Instance::time_ms)
    }

    /// The instance playing the transport's clip, while one does.
    fn main_instance(&self) -> Option<&Instance<AssetId<AniClip>>> {
        match self.main? {
            (clip, RepeatMode::Loop, _) => self.loop_of(clip),
            (_, RepeatMode::Once, id) => self.mixer.instance(id),
        }
    }

    /// The loop of `clip`: the client has one loop a clip.
    fn loop_of(&self, clip: AssetId<AniClip>) -> Option<&Instance<AssetId<AniClip>>> {
        self.mixer.instances().find(|i| i.kind() == Kind::Loop && i.clip == clip)
    }

    /// Makes the calls `player` recorded, keeping their clips loaded; for
    /// a player that is not the one this played for (a new value put in
    /// the old one's place), from nothing.
    pub(super) fn take_calls(&mut self, player: &mut AniPlayer) {
        if self.token != player.token {
            *self = Self { token: player.token, ..Self::default() };
        }
        player.calls.drain(..).for_each(|call| self.mixer.apply(call));
        for clip in player.started.drain(..) {
            if !self.handles.contains(&clip) {
                self.handles.push(clip);
            }
        }
    }

    /// The playing clips: actions newest first, then loops.
    pub fn instances(&self) -> impl Iterator<Item = &Instance<AssetId<AniClip>>> {
        self.mixer.instances()
    }

    /// The instance `id`, while it plays.
    pub fn instance(&self, id: InstanceId) -> Option<&Instance<AssetId<AniClip>>> {
        self.mixer.instance(id)
    }

    /// Keeps the mixer's main instance on the transport's `clip` and
    /// `repeat`: started when the clip is set, cut to the new clip when it
    /// changes, restarted as the other kind at the same time when `repeat`
    /// changes. A main clip that a call cleared stays cleared until one of
    /// them changes. Whether it started an instance.
    pub(super) fn follow_main_clip(&mut self, player: &mut AniPlayer) -> bool {
        let wanted = player.clip.as_ref().map(|clip| (clip.id(), player.repeat));
        if let Some((clip, repeat, _)) = self.main {
            if Some((clip, repeat)) == wanted {
                return false;
            }
            let playing = self.main_instance().map(|i| (i.id, i.time_ms()));
            if let Some((id, time)) = playing {
                self.mixer.remove(id);
                if Some(clip) == wanted.map(|w| w.0) && player.pending_seek.is_none() {
                    player.pending_seek = Some(time);
                }
            }
        }
        self.main = None;
        let Some((clip, repeat)) = wanted else { return false };
        let id = match repeat {
            // A loop of the clip a call started keeps its id, as the
            // client's one loop a clip is restarted.
            RepeatMode::Loop => self.loop_of(clip).map_or_else(next_id, |i| i.id),
            RepeatMode::Once => next_id(),
        };
        self.mixer.apply(match repeat {
            RepeatMode::Loop => Call::PlayLoop { id, clip, settings: Loop::default() },
            RepeatMode::Once => {
                Call::PlayAction { id, clip, action: Action { hold_last_frame: true, ..Action::default() } }
            }
        });
        self.main = Some((clip, repeat, id));
        true
    }
}

/// The clips a player plays, and its main clip: the clips binding binds.
/// Advance rewrites it only when they change, so that binding finds the
/// players with work by Bevy's change detection.
#[derive(Component, Debug, Clone, Default)]
pub(super) struct ClipsInUse {
    ids: Vec<AssetId<AniClip>>,
    /// Whether binding found every one of them bound, and no other, when
    /// it last looked.
    pub all_bound: bool,
}

impl ClipsInUse {
    /// Sets the clips to `playback`'s and `player`'s main clip, marking
    /// the component changed only if they differ.
    pub fn follow(mut this: Mut<Self>, player: &AniPlayer, playback: &AniPlayback) {
        let now = || playback.instances().map(|i| i.clip).chain(player.clip.as_ref().map(Handle::id));
        if !this.ids.iter().copied().eq(now()) {
            this.ids = now().collect();
        }
    }

    /// The clips binding binds for `player`: those in use when it last
    /// advanced, its main clip and those its calls since then start (so
    /// that a clip started this frame is bound before it is posed).
    pub fn wanted<'a>(&'a self, player: &'a AniPlayer) -> impl Iterator<Item = AssetId<AniClip>> + 'a {
        let main = player.clip.as_ref().map(Handle::id);
        self.ids.iter().copied().chain(main).chain(player.started.iter().map(Handle::id))
    }

    /// Whether every clip wanted for `player` is bound in `binding`, and
    /// no other (a clip that stopped must let its bones go).
    pub fn only_bound(&self, player: &AniPlayer, binding: &AniBinding) -> bool {
        self.wanted(player).all(|id| binding.clips.contains(id))
            && binding.clips.ids().all(|bound| self.wanted(player).any(|id| id == bound))
    }
}

/// Which of its bones' transforms a player writes.
///
/// Choose [`PoseOutput::Transform`] (the default) when anything is
/// parented to a bone (a weapon in a hand, an effect, a camera boom) or a
/// system reads bones' `Transform`s; choose
/// [`PoseOutput::GlobalTransform`] for many characters whose bones only
/// skin meshes: it costs about half as much a bone and spreads over the
/// cores.
///
/// It is immutable: insert another to change the path (the plugin then
/// marks the player for that path's passes, which pick their players by
/// a query filter, and empties the other path's poses).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Reflect)]
#[component(immutable, on_insert = mark_output)]
#[reflect(Component, Default)]
pub enum PoseOutput {
    /// Each bone's local `Transform`, in [`super::Io3dSystems::Pose`];
    /// Bevy's propagation composes them into `GlobalTransform`s, and
    /// everything parented to a bone follows it.
    #[default]
    Transform,
    /// Each bone's `GlobalTransform`, in [`super::Io3dSystems::WorldPose`]
    /// (after Bevy's propagation): the player's own `GlobalTransform`
    /// times the bone's pose composed by the client's arithmetic, as
    /// [`crate::anim::Rig::to_world`] composes it. Bones' `Transform`s
    /// stay at rest, so Bevy skips them while the character stands still.
    /// Entities parented below a bone do not follow the pose: Bevy places
    /// them from the bone's resting `Transform`. Where a bone has a scale
    /// other than 1, or entities that are not bones sit between bones,
    /// the chain below is composed with Bevy's arithmetic instead.
    GlobalTransform,
    /// No bone entities at all: the player's skinning matrices (each
    /// bone's pose relative to the player after its stored inverse bind)
    /// in its slot of the frame-wide [`SkinPalettes`](super::SkinPalettes),
    /// which the character's meshes skin from. For crowds. The player
    /// needs an [`SklRig`](super::SklRig), which then spawns no bones;
    /// [`AniSocket`](super::AniSocket)s carry things on named bones, and
    /// [`PaletteBones`](super::PaletteBones) tells where a bone is.
    Palette,
}

/// Marks a player whose poses go into bones' local `Transform`s
/// ([`PoseOutput::Transform`]): the `Transform` path's passes pick these.
#[derive(Component, Debug, Default)]
pub(super) struct LocalOutput;

/// Marks a player whose poses go into bones' `GlobalTransform`s
/// ([`PoseOutput::GlobalTransform`]): the crowd path's passes pick these.
#[derive(Component, Debug, Default)]
pub(super) struct WorldOutput;

/// Says that the palette path cannot draw here: in a browser's WebGL2,
/// which has no storage buffers. Players asking for
/// [`PoseOutput::Palette`] then take the crowd path, bone entities and
/// all, so that their characters' meshes skin as Bevy skins them.
#[derive(Resource, Debug, Default)]
pub(super) struct NoPalette;

/// Marks the player for its output's passes, and empties the other
/// path's poses, so that no pass writes its bones from poses left there
/// (as commands, applied right after the insert; a player despawned
/// before then is left alone).
fn mark_output(mut world: DeferredWorld, context: HookContext) {
    let Some(&output) = world.get::<PoseOutput>(context.entity) else { return };
    let output = match output {
        PoseOutput::Palette if world.contains_resource::<NoPalette>() => {
            bevy::log::warn_once!(
                "PoseOutput::Palette: no storage buffers for the palette here (WebGL2); such players take the crowd path (PoseOutput::GlobalTransform)"
            );
            PoseOutput::GlobalTransform
        }
        output => output,
    };
    let mut commands = world.commands();
    let mut player = commands.entity(context.entity);
    match output {
        PoseOutput::Transform => player
            .try_remove::<(WorldOutput, PaletteOutput, PaletteSlot)>()
            .try_insert((LocalOutput, ModelPoses::default())),
        PoseOutput::GlobalTransform => player
            .try_remove::<(LocalOutput, PaletteOutput, PaletteSlot)>()
            .try_insert((WorldOutput, LocalPoses::default())),
        PoseOutput::Palette => player.try_remove::<(LocalOutput, WorldOutput)>().try_insert((
            PaletteOutput,
            PaletteSlot::NONE,
            LocalPoses::default(),
        )),
    };
}

/// Each bone's pose relative to the player, in Bevy's axes, in the order
/// of the player's bones ([`super::Io3dBone::index`]): filled each frame for a
/// player that writes [`PoseOutput::GlobalTransform`], empty otherwise.
#[derive(Component, Debug, Clone, Default, PartialEq, Reflect)]
#[reflect(Component, Default)]
pub struct ModelPoses(pub Vec<Affine3A>);

/// Each bone's blended pose relative to its parent, in Bevy's axes, in the
/// order of the player's bones ([`super::Io3dBone::index`]): filled each
/// frame for a player that writes [`PoseOutput::Transform`], empty
/// otherwise. Posing fills it for every player at once over all cores, and
/// a second pass over every bone copies it into the bones' `Transform`s,
/// so that neither pass needs one player's access to another's bones.
#[derive(Component, Debug, Clone, Default, PartialEq, Reflect)]
#[reflect(Component, Default)]
pub struct LocalPoses(pub Vec<(Vec3, Quat)>);

/// The root bone's motion, in the player's output axes, relative to the
/// root bone's parent (the rig).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Reflect)]
#[reflect(Component, Default)]
pub struct RootMotion {
    /// Where the blended clips put the root bone now (before any in-place
    /// removal).
    pub position: Vec3,
    /// Its change over the last frame: each clip's own change (across a
    /// loop wrap including the clip's whole travel, so it adds up to the
    /// distance walked), mixed by the clips' weights.
    pub delta: Vec3,
    /// Its turn about the up axis over the last frame, in radians (counter
    /// clockwise seen from above in the output axes), mixed as `delta` is:
    /// what a turning clip asks the character to turn by.
    pub yaw_delta: f32,
    /// The horizontal distance from where the main clip (see
    /// [`AniPlayer::in_place`]) put the root at its start.
    pub distance_this_loop: f32,
}

impl RootMotion {
    /// The motion, worked out in the files' axes, in the rig's.
    pub(super) fn in_axes(self, axes: Axes) -> Self {
        let turn = axes.rotation(Quat::from_rotation_y(self.yaw_delta));
        Self {
            position: axes.position(self.position),
            delta: axes.position(self.delta),
            yaw_delta: yaw_between(Quat::IDENTITY, turn),
            ..self
        }
    }
}

/// Triggered on the player's entity when a clip passes one of its file's
/// events, by the client's rules: which clips fire (not waiting, cleared
/// or fading-out loops), the window `[before, now)`, across a loop's wrap.
/// Never on a seek.
///
/// It reads as the [`AniEvent`] fired (`event.kind`, `event.sub_info`,
/// `event.time_ms`), which the clip read once when it was made and every
/// firing shares: a firing allocates nothing.
#[derive(EntityEvent, Debug, Clone, PartialEq)]
pub struct AniEventFired {
    /// The player's entity.
    pub entity: Entity,
    /// The playing instance that passed it.
    pub instance: InstanceId,
    /// Its clip.
    pub clip: AssetId<AniClip>,
    /// The event's index among the events that play: the file's, or its
    /// `.ant` sidecar's when it has one ([`AniClip::events`]).
    pub index: usize,
    /// The clip's events, shared.
    events: Arc<[AniEvent]>,
}

impl AniEventFired {
    /// The event `index` of `clip`'s, fired by `instance` of `entity`'s
    /// player; `None` for an index the clip lacks.
    pub(super) fn new(
        entity: Entity,
        instance: InstanceId,
        (id, clip): (AssetId<AniClip>, &AniClip),
        index: usize,
    ) -> Option<Self> {
        (index < clip.fired.len()).then(|| Self { entity, instance, clip: id, index, events: clip.fired.clone() })
    }
}

impl Deref for AniEventFired {
    type Target = AniEvent;

    fn deref(&self) -> &AniEvent {
        &self.events[self.index]
    }
}

/// Triggered on the player's entity when one of its clips leaves it: an
/// action that played to its end (or ended on its last frame, kept there
/// by guarantee mode), or an action or loop cleared, once its fade out is
/// over. The client's generated `end_animation` and `clear_animation`.
/// A held action never ends by itself.
#[derive(EntityEvent, Debug, Clone, Copy, PartialEq)]
pub struct AniClipEnded {
    /// The player's entity.
    pub entity: Entity,
    /// The instance that ended.
    pub instance: InstanceId,
    /// Its clip.
    pub clip: AssetId<AniClip>,
    /// Whether a clear call ended it (else it played to its end).
    pub cleared: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pause_and_a_guarantee_switch() {
        let mut player = AniPlayer::default();
        player.stop();
        assert!(player.paused, "the client's stop is the one pause");
        player.resume();
        assert!(!player.paused);
        assert!(player.guarantee, "on, as in the game");
        assert_eq!(player.root_bone, crate::anim::biped::ROOT);
    }

    /// Where the palette cannot draw (WebGL2), a player asking for it takes
    /// the crowd path; elsewhere it takes the palette path.
    #[test]
    fn the_palette_path_falls_back_to_the_crowd_path_where_it_cannot_draw() {
        for (fallback, expected) in [(false, (false, true)), (true, (true, false))] {
            let mut world = World::new();
            if fallback {
                world.init_resource::<NoPalette>();
            }
            let player = world.spawn((AniPlayer::default(), PoseOutput::Palette)).id();
            world.flush();
            let paths = (world.get::<WorldOutput>(player).is_some(), world.get::<PaletteOutput>(player).is_some());
            assert_eq!(paths, expected, "with the fallback: {fallback}");
            assert_eq!(world.get::<PaletteSlot>(player).is_some(), !fallback);
        }
    }
}
