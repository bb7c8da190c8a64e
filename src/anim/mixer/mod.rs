//! The client's animation controller (`ioAniController`, `ioAnimation`):
//! a list of actions (one-shot clips) and a list of loops, every entry
//! blended every frame with linear fades in milliseconds, weights, rates,
//! waits and pre-delays. `docs/playback.md` describes it.
//!
//! A [`Mixer`] does not own clips: it names them by a key `C` (an index, a
//! Bevy asset id) and is handed a lookup when it advances and poses, so a
//! clip that is not loaded yet simply waits.
//!
//! The client's quirks, and what this does with each:
//! - an unknown bone name drives bone 0 in the client: fixed, such tracks
//!   are skipped (the binding reports them);
//! - restarting a playing or fading-out loop sets it back to 0 ms and
//!   weight 0 (a visible pop): reproduced;
//! - a loop that starts fading out snaps back to rate 1: reproduced;
//! - a held action passes an event stamped exactly at its end every frame:
//!   fixed, it fires once, since a game's observers would otherwise run
//!   every frame;
//! - a loop leaving its wait advances by the wait left at the start of the
//!   frame, not by the overshoot: reproduced;
//! - a pre-delay's overflow is real time, assigned to the clip's time:
//!   reproduced (a rate of 0 during a pre-delay divides by zero in the
//!   client: here the pre-delay does not advance);
//! - a forced fade-out starts from the target weight, not the current one:
//!   reproduced;
//! - an action cleared with no fade still advances and fires its events
//!   once before it is removed: reproduced;
//! - clearing a loop still in its wait makes it play while it fades out:
//!   reproduced.
//!
//! The generated `end_animation` and `clear_animation` notifications,
//! which the client sends for clips that ask, become a report of every
//! clip that ends or is cleared ([`Mixer::take_removed`]). Two controls are
//! not the client's: one clip's rate and pause ([`Mixer::set_rate`],
//! [`Mixer::pause_instance`]).

use super::blend::PoseBlend;
use super::clip::{Clip, Hints};
use super::clock::{RepeatMode, Step};
use super::sample::BonePose;

mod call;
mod instance;
#[cfg(test)]
mod tests;

pub use call::Call;
pub use instance::Instance;

/// One started clip: two starts of one action are two instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct InstanceId(pub u64);

/// Which list an instance is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A one-shot clip.
    Action,
    /// A looping clip (unique by clip).
    Loop,
}

/// Where an instance is in its life, the client's states in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum State {
    /// Waiting to start: not advanced, not blended.
    Wait,
    /// Weight rising to the target.
    FadeIn,
    /// At the target weight.
    Play,
    /// Weight falling towards the end (or frozen, holding the last frame).
    FadeOut,
    /// An action cleared: its time frozen, its weight falling to 0; silent.
    Cleared,
    /// Finished: removed (or kept as a guarantee) after this frame's advance.
    End,
    /// An ended action kept on its last frame at weight 0.5 so that the
    /// character does not snap to its rest pose ("guarantee" mode).
    Guarantee,
    /// A guarantee fading out over 100 ms because something new started.
    GuaranteeRelease,
    /// A released guarantee, removed after this frame's advance.
    GuaranteeEnd,
}

/// How to start an action (`SetActionAni`). Times in ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Action {
    /// Fade in, in the clip's time.
    pub fade_in_ms: f32,
    /// Fade out before the end, in the clip's time.
    pub fade_out_ms: f32,
    /// Target weight (only relative weights matter).
    pub weight: f32,
    /// Time factor: 2 plays twice as fast.
    pub rate: f32,
    /// Real time to wait before starting.
    pub wait_ms: f32,
    /// Real time spent on the first frame while the weight already rises.
    pub pre_delay_ms: f32,
    /// Stay on the last frame at the target weight instead of ending.
    pub hold_last_frame: bool,
}

impl Default for Action {
    fn default() -> Self {
        Self {
            fade_in_ms: 0.0,
            fade_out_ms: 0.0,
            weight: 1.0,
            rate: 1.0,
            wait_ms: 0.0,
            pre_delay_ms: 0.0,
            hold_last_frame: false,
        }
    }
}

impl Action {
    /// An action with these fades, as the game starts nearly every one.
    pub fn faded(fade_in_ms: f32, fade_out_ms: f32) -> Self {
        Self { fade_in_ms, fade_out_ms, ..Self::default() }
    }

    /// The same action lasting `play_ms` of a clip `total_ms` long, holding
    /// its last frame (`SetActionAniForTime`). A length that is not a
    /// positive number (which the client would divide by) keeps the rate.
    pub fn lasting(self, total_ms: i32, play_ms: f32) -> Self {
        let rate = if play_ms > 0.0 && play_ms.is_finite() { total_ms as f32 / play_ms } else { self.rate };
        Self { rate, hold_last_frame: true, ..self }
    }
}

/// How to start a loop (`SetLoopAni`, `SetLoopAniInMid`). Times in ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loop {
    /// Fade in, in the clip's time.
    pub fade_in_ms: f32,
    /// Target weight.
    pub weight: f32,
    /// Time factor.
    pub rate: f32,
    /// Real time to wait before starting (ignored with `start_ms`).
    pub wait_ms: f32,
    /// Start here rather than at 0 (`SetLoopAniInMid`); the fade counts
    /// from here, around the wrap.
    pub start_ms: Option<f32>,
}

impl Default for Loop {
    fn default() -> Self {
        Self { fade_in_ms: 0.0, weight: 1.0, rate: 1.0, wait_ms: 0.0, start_ms: None }
    }
}

impl Loop {
    /// A loop fading in over `fade_in_ms`.
    pub fn faded(fade_in_ms: f32) -> Self {
        Self { fade_in_ms, ..Self::default() }
    }
}

/// An event passed by an instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fired<C> {
    /// The instance that passed it.
    pub instance: InstanceId,
    /// Its clip.
    pub clip: C,
    /// The event's index among the file's events.
    pub event: usize,
    /// The event's time, in ms.
    pub time_ms: f32,
}

/// An instance that left the mixer: its clip ended, or it was cleared.
/// The client's generated `end_animation` and `clear_animation` are these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Removed<C> {
    /// The instance.
    pub instance: InstanceId,
    /// Its clip.
    pub clip: C,
    /// Whether a clear call ended it (else it played to its end).
    pub cleared: bool,
}

/// The client's controller for one character: actions and loops.
#[derive(Debug, Clone, PartialEq)]
pub struct Mixer<C> {
    /// Newest first.
    actions: Vec<Instance<C>>,
    /// Most recently created first.
    loops: Vec<Instance<C>>,
    /// "Guarantee" mode: an action that ends with nothing else live stays
    /// on its last frame (on in the game).
    pub guarantee: bool,
    stopped: bool,
    next_id: u64,
    /// Instances removed since [`Mixer::take_removed`] last ran.
    removed: Vec<Removed<C>>,
}

impl<C> Default for Mixer<C> {
    fn default() -> Self {
        Self {
            actions: Vec::new(),
            loops: Vec::new(),
            guarantee: true,
            stopped: false,
            next_id: 0,
            removed: Vec::new(),
        }
    }
}

impl<C: Copy + PartialEq> Mixer<C> {
    /// An idle mixer with guarantee mode on, as the game runs it.
    pub fn new() -> Self {
        Self::default()
    }

    fn next_id(&mut self) -> InstanceId {
        self.next_id += 1;
        InstanceId(self.next_id)
    }

    /// Starts `clip` as a new action at the front of the list
    /// (`SetActionAni`).
    pub fn play_action(&mut self, clip: C, action: Action) -> InstanceId {
        let id = self.next_id();
        self.play_action_as(id, clip, action);
        id
    }

    /// [`Mixer::play_action`] under an id the caller chose
    /// ([`Call::PlayAction`]).
    fn play_action_as(&mut self, id: InstanceId, clip: C, action: Action) {
        let mut instance = Instance::new(id, clip, Kind::Action);
        instance.state = if action.wait_ms > 0.0 { State::Wait } else { State::FadeIn };
        instance.wait_left = action.wait_ms * action.rate;
        instance.target = action.weight;
        if action.wait_ms == 0.0 && action.fade_in_ms == 0.0 {
            instance.state = State::Play;
            instance.weight = action.weight;
        }
        instance.rate = action.rate;
        instance.fade_in = action.fade_in_ms;
        instance.fade_out = action.fade_out_ms;
        instance.pre_delay = action.pre_delay_ms;
        instance.hold = action.hold_last_frame;
        self.actions.insert(0, instance);
        self.release_guarantees();
    }

    /// Starts or restarts the loop of `clip` (`SetLoopAni`, or
    /// `SetLoopAniInMid` with a start time): a loop of that clip already
    /// playing or fading out starts again from 0 at weight 0; one still
    /// fading in only takes the new weight and rate.
    pub fn play_loop(&mut self, clip: C, settings: Loop) -> InstanceId {
        let id = match self.loops.iter().find(|l| l.clip == clip) {
            Some(playing) => playing.id,
            None => self.next_id(),
        };
        self.play_loop_as(id, clip, settings);
        id
    }

    /// [`Mixer::play_loop`] under an id the caller chose
    /// ([`Call::PlayLoop`]): a loop of `clip` already playing takes it.
    fn play_loop_as(&mut self, id: InstanceId, clip: C, settings: Loop) {
        let index = match self.loops.iter().position(|l| l.clip == clip) {
            Some(index) => index,
            None => {
                self.loops.insert(0, Instance::new(id, clip, Kind::Loop));
                0
            }
        };
        let l = &mut self.loops[index];
        l.id = id;
        match (settings.start_ms, l.state) {
            (Some(start), _) => {
                l.state = State::FadeIn;
                l.wait_left = 0.0;
                l.cur = start;
                l.weight = 0.0;
                l.fade_in = settings.fade_in_ms;
            }
            (None, State::Wait | State::Play | State::FadeOut) => {
                let restart = l.state != State::Wait;
                l.state = if settings.wait_ms > 0.0 && !restart { State::Wait } else { State::FadeIn };
                l.wait_left = settings.wait_ms * settings.rate;
                l.cur = 0.0;
                l.weight = 0.0;
                l.fade_in = settings.fade_in_ms;
            }
            (None, _) => {}
        }
        l.mid_start = settings.start_ms.unwrap_or(0.0);
        l.target = settings.weight;
        l.rate = settings.rate;
        l.fade_out = 0.0;
        l.loop_fade_out = 0.0;
        self.release_guarantees();
    }

    /// `CheckGuaranteeOut`: anything new releases the kept actions.
    fn release_guarantees(&mut self) {
        if !self.guarantee {
            return;
        }
        for action in self.actions.iter_mut().filter(|a| a.state == State::Guarantee) {
            action.state = State::GuaranteeRelease;
            action.release_left = 100.0;
        }
    }

    /// Clears every action of `clip` over `fade_out_ms` (`ClearActionAni`).
    pub fn clear_action(&mut self, clip: C, fade_out_ms: f32) {
        self.actions.iter_mut().filter(|a| a.clip == clip).for_each(|a| a.clear_action(fade_out_ms));
    }

    /// Clears every action (`ClearAllActionAni`); waiting ones only with
    /// `also_waiting`.
    pub fn clear_all_actions(&mut self, fade_out_ms: f32, also_waiting: bool) {
        for action in self.actions.iter_mut().filter(|a| also_waiting || a.state != State::Wait) {
            action.clear_action(fade_out_ms);
        }
    }

    /// Fades the loop of `clip` out (`ClearLoopAni`); with `also_waiting`
    /// a loop still waiting ends at once.
    pub fn clear_loop(&mut self, clip: C, fade_out_ms: f32, also_waiting: bool) {
        if let Some(l) = self.loops.iter_mut().find(|l| l.clip == clip) {
            l.clear_loop(fade_out_ms, also_waiting);
        }
    }

    /// Fades every loop out (`ClearAllLoopAni`).
    pub fn clear_all_loops(&mut self, fade_out_ms: f32, also_waiting: bool) {
        self.loops.iter_mut().for_each(|l| l.clear_loop(fade_out_ms, also_waiting));
    }

    /// Fades every loop but that of `clip` out, if `clip` loops; otherwise
    /// all of them (`ClearAllLoopAniExceptOne`). Whether `clip` loops.
    pub fn clear_all_loops_except(&mut self, clip: C, fade_out_ms: f32, also_waiting: bool) -> bool {
        let kept = self.loops.iter().any(|l| l.clip == clip);
        for l in self.loops.iter_mut().filter(|l| !kept || l.clip != clip) {
            l.clear_loop(fade_out_ms, also_waiting);
        }
        kept
    }

    /// Clears one instance over `fade_out_ms`: an action as
    /// `ClearActionAni` clears it, a loop as `ClearLoopAni` does.
    pub fn clear_instance(&mut self, instance: InstanceId, fade_out_ms: f32) {
        if let Some(i) = self.instance_mut(instance) {
            match i.kind {
                Kind::Action => i.clear_action(fade_out_ms),
                Kind::Loop => i.clear_loop(fade_out_ms, false),
            }
        }
    }

    /// Sets an instance's target weight, and its weight while it plays
    /// (`ForceWeight`): how the game steers a blend of aiming loops.
    pub fn force_weight(&mut self, instance: InstanceId, weight: f32) {
        if let Some(i) = self.instance_mut(instance) {
            i.target = weight;
            if i.state == State::Play {
                i.weight = weight;
            }
        }
    }

    /// Sets an instance's time factor from now on (2 plays twice as fast):
    /// not a client call (the client sets it when a clip starts), for a
    /// game that steers one clip's speed.
    pub fn set_rate(&mut self, instance: InstanceId, rate: f32) {
        if let Some(i) = self.instance_mut(instance) {
            i.rate = rate;
        }
    }

    /// Holds one instance still (`true`) or lets it run again: no time
    /// passes for it, its fades stand and it fires nothing, while the
    /// others play on. Not a client call ([`Mixer::stop`] holds them all).
    pub fn pause_instance(&mut self, instance: InstanceId, paused: bool) {
        if let Some(i) = self.instance_mut(instance) {
            i.paused = paused;
        }
    }

    /// The instances that ended since the last call: each action that
    /// played to its end or was cleared (one kept on its last frame by
    /// guarantee mode counts as ended then), each loop cleared. A held
    /// action never ends by itself. [`Mixer::remove`] reports nothing.
    pub fn take_removed(&mut self) -> Vec<Removed<C>> {
        std::mem::take(&mut self.removed)
    }

    /// Sets an instance's clip time, clamped to the clip (`SetCurTime`); no
    /// event fires. A clip that has not advanced yet clamps on its first
    /// frame.
    pub fn seek(&mut self, instance: InstanceId, time_ms: f32) {
        if let Some(i) = self.instance_mut(instance) {
            i.seek(time_ms);
        }
    }

    /// Drops an instance at once, with no fade and no event: not a client
    /// call, for tools that cut from one clip to another.
    pub fn remove(&mut self, instance: InstanceId) {
        self.actions.retain(|i| i.id != instance);
        self.loops.retain(|i| i.id != instance);
    }

    /// Freezes everything (`StopAllPlayingAnimation`): no time passes and
    /// the pose stays as it was.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// Undoes [`Mixer::stop`]; the time stopped is not made up.
    pub fn resume(&mut self) {
        self.stopped = false;
    }

    /// Whether [`Mixer::stop`] holds.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Every instance: actions newest first, then loops.
    pub fn instances(&self) -> impl Iterator<Item = &Instance<C>> {
        self.actions.iter().chain(&self.loops)
    }

    /// The instance `id`, while it lives.
    pub fn instance(&self, id: InstanceId) -> Option<&Instance<C>> {
        self.instances().find(|i| i.id == id)
    }

    fn instance_mut(&mut self, id: InstanceId) -> Option<&mut Instance<C>> {
        self.actions.iter_mut().chain(&mut self.loops).find(|i| i.id == id)
    }

    /// Whether nothing plays.
    pub fn is_idle(&self) -> bool {
        self.actions.is_empty() && self.loops.is_empty()
    }

    /// One frame of `dt_ms` (`ioAniController::Update` before the blend):
    /// actions newest first, then loops, each moved by `dt_ms` times its
    /// rate, their events added to `fired`; then ended clips removed (or
    /// kept as guarantees). An instance whose clip `clips` cannot give yet
    /// does not move.
    pub fn advance<'c>(&mut self, dt_ms: f32, clips: impl Fn(C) -> Option<&'c Clip>, fired: &mut Vec<Fired<C>>) {
        if self.stopped {
            return;
        }
        for instance in self.actions.iter_mut().chain(&mut self.loops) {
            if let Some(clip) = clips(instance.clip) {
                instance.advance(dt_ms, clip, fired);
            }
        }
        self.remove_ended();
    }

    /// Plays every started clip backwards by `dt_ms` (negative) times its
    /// rate, by the transport's clock ([`RepeatMode::step`]: loops wrap,
    /// actions clamp), adding the events passed to `fired` in the order
    /// met; states, weights and fades stay. Not a client call: a tool's
    /// reverse scrub. Returns each moved instance's step.
    pub fn rewind<'c>(
        &mut self,
        dt_ms: f32,
        clips: impl Fn(C) -> Option<&'c Clip>,
        fired: &mut Vec<Fired<C>>,
    ) -> Vec<(InstanceId, Step)> {
        let mut steps = Vec::new();
        let started = self.actions.iter_mut().chain(&mut self.loops).filter(|i| i.state != State::Wait);
        for instance in started {
            let Some(clip) = clips(instance.clip) else { continue };
            let mode = if instance.kind == Kind::Loop { RepeatMode::Loop } else { RepeatMode::Once };
            let step = mode.step(f64::from(instance.cur), f64::from(dt_ms * instance.rate), clip.total_ms);
            let times: Vec<f32> = clip.events.iter().map(|e| e.time_ms).collect();
            for (sorted, time_ms) in step.events_passed(&times) {
                let event = clip.events[sorted].index;
                fired.push(Fired { instance: instance.id, clip: instance.clip, event, time_ms });
            }
            instance.seek(step.to_ms as f32);
            steps.push((instance.id, step));
        }
        steps
    }

    /// `ClearEndedAnimation`: loops first, then actions; an action that
    /// ends with no loop left and no live action newer than it becomes a
    /// guarantee on its last frame.
    fn remove_ended(&mut self) {
        let ended = self.actions.iter().chain(&self.loops).filter(|i| i.state == State::End);
        let ended: Vec<Removed<C>> =
            ended.map(|i| Removed { instance: i.id, clip: i.clip, cleared: i.cleared }).collect();
        self.removed.extend(ended);
        self.loops.retain(|l| l.state != State::End);
        let keep_last_frame = self.guarantee && self.loops.is_empty();
        let mut newest_live = true;
        self.actions.retain_mut(|a| match a.state {
            State::End if keep_last_frame && newest_live => {
                a.state = State::Guarantee;
                a.pre = a.full;
                a.cur = a.full;
                a.weight = 0.5;
                true
            }
            State::End | State::GuaranteeEnd => false,
            State::Guarantee | State::GuaranteeRelease => true,
            _ => {
                newest_live = false;
                true
            }
        });
    }

    /// Blends every instance but waiting ones into `blend` over `rest`
    /// (`UpdateSkeleton`): the actions as one group, then the loops. `clips`
    /// gives each clip and the bone of each of its tracks.
    pub fn pose<'c>(
        &mut self,
        rest: &[BonePose],
        clips: impl Fn(C) -> Option<(&'c Clip, &'c [Option<usize>])>,
        blend: &mut PoseBlend,
    ) {
        blend.reset(rest);
        for group in [&mut self.actions, &mut self.loops] {
            for instance in group.iter_mut().filter(|i| i.state != State::Wait) {
                if let Some((clip, bones)) = clips(instance.clip) {
                    blend.add_clip(clip, bones, instance.cur, instance.weight, &mut instance.hints);
                }
            }
            blend.lock();
        }
    }
}
