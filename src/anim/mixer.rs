//! The client's animation controller (`ioAniController`, `ioAnimation`):
//! a list of actions (one-shot clips) and a list of loops, every entry
//! blended every frame with linear fades in milliseconds, weights, rates,
//! waits and pre-delays. `../shared/PLAYBACK.md` describes it.
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
//! The generated `end_animation` and `clear_animation` notifications are
//! not produced: nothing here sets the flags that ask for them.

use std::cmp::Ordering;

use super::blend::PoseBlend;
use super::clip::{Clip, Hints};
use super::clock::wrap_once;
use super::sample::BonePose;

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
    /// its last frame (`SetActionAniForTime`).
    pub fn lasting(self, total_ms: i32, play_ms: f32) -> Self {
        Self { rate: total_ms as f32 / play_ms, hold_last_frame: true, ..self }
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

/// One playing clip and its clock (`ioAnimation`'s fields).
#[derive(Debug, Clone, PartialEq)]
pub struct Instance<C> {
    /// Its id.
    pub id: InstanceId,
    /// Its clip.
    pub clip: C,
    kind: Kind,
    state: State,
    full: f32,
    pre: f32,
    cur: f32,
    mid_start: f32,
    target: f32,
    weight: f32,
    rate: f32,
    fade_in: f32,
    fade_out: f32,
    pre_delay: f32,
    pre_delay_past: f32,
    force_out: f32,
    loop_fade_out: f32,
    release_left: f32,
    wait_left: f32,
    hold: bool,
    /// Whether a held action has passed the events at its end once.
    end_passed: bool,
    hints: Hints,
}

impl<C: Copy> Instance<C> {
    fn new(id: InstanceId, clip: C, kind: Kind) -> Self {
        Self {
            id,
            clip,
            kind,
            state: State::Wait,
            full: 0.0,
            pre: 0.0,
            cur: 0.0,
            mid_start: 0.0,
            target: 0.0,
            weight: 0.0,
            rate: 1.0,
            fade_in: 0.0,
            fade_out: 0.0,
            pre_delay: 0.0,
            pre_delay_past: 0.0,
            force_out: 0.0,
            loop_fade_out: 0.0,
            release_left: 0.0,
            wait_left: 0.0,
            hold: false,
            end_passed: false,
            hints: Hints::default(),
        }
    }

    /// Action or loop.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Its clip time, in ms.
    pub fn time_ms(&self) -> f32 {
        self.cur
    }

    /// Its time factor.
    pub fn rate(&self) -> f32 {
        self.rate
    }

    /// Its clip time before the last advance, in ms.
    pub fn previous_time_ms(&self) -> f32 {
        self.pre
    }

    /// Its clip's length as of the last advance (0 before the first).
    pub fn total_ms(&self) -> f32 {
        self.full
    }

    /// Its current weight.
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// The weight it fades towards.
    pub fn target_weight(&self) -> f32 {
        self.target
    }

    /// `SetCurTime`: clamped to the clip, as the client's `max(0, min(t,
    /// full))` (NaN becomes the end).
    fn set_time(&mut self, t: f32) {
        let at_most = if t < self.full { t } else { self.full };
        self.cur = if 0.0 > at_most { 0.0 } else { at_most };
    }

    /// `ForceEndAction`.
    fn clear_action(&mut self, fade_out: f32) {
        if matches!(self.state, State::Guarantee | State::GuaranteeRelease | State::GuaranteeEnd)
            || (self.state == State::Cleared && self.force_out < fade_out)
        {
            return;
        }
        self.state = State::Cleared;
        self.fade_out = fade_out;
        self.force_out = fade_out;
        if fade_out == 0.0 {
            self.weight = 0.0;
            self.state = State::End;
        }
        self.hold = false;
    }

    /// `EndLoop`: a loop fading out keeps its fade.
    fn clear_loop(&mut self, fade_out: f32, also_waiting: bool) {
        if self.state == State::FadeOut {
            return;
        }
        self.state = State::FadeOut;
        if !also_waiting || self.wait_left == 0.0 {
            self.fade_out = fade_out;
            self.loop_fade_out = fade_out.max(1.0);
        } else {
            self.fade_out = 0.0;
            self.loop_fade_out = 1.0;
        }
        self.mid_start = 0.0;
        self.rate = 1.0;
    }

    fn advance(&mut self, dt: f32, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        self.full = clip.total_ms as f32;
        let d = dt * self.rate;
        match self.kind {
            Kind::Action => self.advance_action(d, clip, fired),
            Kind::Loop => self.advance_loop(d, clip, fired),
        }
    }

    fn advance_action(&mut self, mut d: f32, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        match self.state {
            State::Guarantee => return,
            State::GuaranteeRelease => {
                self.release_left -= d;
                if self.release_left > 0.0 {
                    self.weight = (self.release_left / 100.0 * 0.5).max(0.1);
                } else {
                    self.weight = 0.0;
                    self.state = State::GuaranteeEnd;
                }
                return;
            }
            State::Cleared => {
                let base = if self.cur < self.fade_in { self.cur / self.fade_in * self.target } else { self.target };
                self.force_out -= d;
                if self.force_out > 0.0 {
                    self.weight = self.force_out / self.fade_out * base;
                } else {
                    self.force_out = 0.0;
                    self.weight = 0.0;
                    self.state = State::End;
                }
                return;
            }
            State::Wait => {
                self.wait_left -= d;
                if self.wait_left > 0.0 {
                    return;
                }
                self.state = State::FadeIn;
                d = -self.wait_left;
                self.wait_left = 0.0;
                self.cur = 0.0;
            }
            _ => {}
        }
        self.pre = self.cur;
        if self.pre_delay_past < self.pre_delay {
            if self.rate != 0.0 {
                self.pre_delay_past += d / self.rate;
            }
            if self.pre_delay_past > self.pre_delay {
                self.cur = self.pre_delay_past - self.pre_delay;
                self.pre_delay_past = self.pre_delay;
            }
        } else {
            self.cur += d;
        }
        self.fire_action_events(clip, fired);
        self.settle_action();
    }

    /// The action's state checks after its time moved.
    fn settle_action(&mut self) {
        if self.state == State::FadeIn {
            if self.cur < self.fade_in {
                self.weight = (self.pre_delay_past + self.cur) / (self.pre_delay + self.fade_in) * self.target;
            } else {
                self.state = State::Play;
                self.weight = self.target;
            }
        }
        if self.state == State::Play && self.cur >= self.full - self.fade_out {
            self.state = State::FadeOut;
        }
        if self.state == State::FadeOut {
            if self.hold {
                self.cur = self.cur.min(self.full);
            } else if self.cur < self.full {
                self.weight = (self.full - self.cur) / self.fade_out * self.target;
            } else {
                self.cur = self.full;
                self.fade_out = 0.0;
                self.weight = 0.0;
                self.state = State::End;
            }
        }
    }

    /// Events in `[pre, cur)`; a held action at its end passes the event
    /// at the end once (see the module docs).
    fn fire_action_events(&mut self, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        if self.pre.partial_cmp(&self.cur) != Some(Ordering::Less) {
            return;
        }
        if self.hold && self.pre >= self.full {
            if self.end_passed {
                return;
            }
            self.end_passed = true;
        }
        for event in &clip.events {
            if self.pre <= event.time_ms && event.time_ms < self.cur {
                self.fire(event.index, event.time_ms, fired);
                if let Some(to) = event.jump_to_ms {
                    self.jump(to, clip, fired);
                }
            }
        }
    }

    fn advance_loop(&mut self, mut d: f32, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        if self.state == State::Wait {
            self.wait_left -= d;
            if self.wait_left > 0.0 {
                return;
            }
            self.state = State::FadeIn;
            d += self.wait_left;
            self.wait_left = 0.0;
            self.cur = 0.0;
        }
        self.pre = self.cur;
        self.cur += d;
        self.settle_loop_fade_in();
        self.cur = wrap_once(self.cur, self.full);
        self.fire_loop_events(clip, fired);
        if self.state == State::FadeOut {
            self.fade_out -= d;
            if self.fade_out > 0.0 {
                self.weight = self.fade_out / self.loop_fade_out * self.target;
            } else {
                self.fade_out = 0.0;
                self.weight = 0.0;
                self.state = State::End;
            }
        }
    }

    fn settle_loop_fade_in(&mut self) {
        if self.state != State::FadeIn {
            return;
        }
        let past =
            if self.cur >= self.mid_start { self.cur - self.mid_start } else { self.cur + self.full - self.mid_start };
        if past < self.fade_in {
            self.weight = past / self.fade_in * self.target;
        } else {
            self.state = State::Play;
            self.weight = self.target;
            self.mid_start = 0.0;
        }
    }

    /// Events in `[pre, cur)`, or across the wrap `[pre, full)` and
    /// `[0, cur)`; a fading-out loop is silent, and a jump applies only
    /// without a wrap.
    fn fire_loop_events(&mut self, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        for event in &clip.events {
            let t = event.time_ms;
            let audible = self.state != State::FadeOut;
            if self.pre < self.cur {
                if self.pre <= t && t < self.cur {
                    if audible {
                        self.fire(event.index, t, fired);
                    }
                    if let Some(to) = event.jump_to_ms {
                        self.jump(to, clip, fired);
                    }
                }
            } else if self.pre > self.cur && ((self.pre <= t && t < self.full) || (0.0 <= t && t < self.cur)) && audible
            {
                self.fire(event.index, t, fired);
            }
        }
    }

    fn fire(&self, event: usize, time_ms: f32, fired: &mut Vec<Fired<C>>) {
        fired.push(Fired { instance: self.id, clip: self.clip, event, time_ms });
    }

    /// `jump_anitime`: the time set, then an update of no time at it (which
    /// leaves the window empty, so the frame's later events stay silent).
    fn jump(&mut self, to: f32, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        self.set_time(to);
        self.advance(0.0, clip, fired);
    }
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
}

impl<C> Default for Mixer<C> {
    fn default() -> Self {
        Self { actions: Vec::new(), loops: Vec::new(), guarantee: true, stopped: false, next_id: 0 }
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
        id
    }

    /// Starts or restarts the loop of `clip` (`SetLoopAni`, or
    /// `SetLoopAniInMid` with a start time): a loop of that clip already
    /// playing or fading out starts again from 0 at weight 0; one still
    /// fading in only takes the new weight and rate.
    pub fn play_loop(&mut self, clip: C, settings: Loop) -> InstanceId {
        let index = match self.loops.iter().position(|l| l.clip == clip) {
            Some(index) => index,
            None => {
                let id = self.next_id();
                self.loops.insert(0, Instance::new(id, clip, Kind::Loop));
                0
            }
        };
        let l = &mut self.loops[index];
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
        let id = l.id;
        self.release_guarantees();
        id
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

    /// Sets an instance's clip time, clamped to the clip (`SetCurTime`); no
    /// event fires. A clip that has not advanced yet clamps on its first
    /// frame.
    pub fn seek(&mut self, instance: InstanceId, time_ms: f32) {
        if let Some(i) = self.instance_mut(instance) {
            if i.full > 0.0 { i.set_time(time_ms) } else { i.cur = time_ms.max(0.0) }
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

    /// `ClearEndedAnimation`: loops first, then actions; an action that
    /// ends with no loop left and no live action newer than it becomes a
    /// guarantee on its last frame.
    fn remove_ended(&mut self) {
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

#[cfg(test)]
mod tests {
    //! Expected weights and poses are worked out here from PLAYBACK.md's
    //! rules (linear ramps, the running weighted mean), not by the code
    //! under test.

    use glam::{Quat, Vec3};

    use super::*;
    use crate::format::{AniVersion, Animation, Event, FileString, Key, Track};

    /// A clip of `total_ms` moving the one bone along X from `from` to
    /// `to`, with events at `events` ms.
    fn clip(total_ms: i32, from: f32, to: f32, events: &[f32]) -> Clip {
        let mut animation = Animation::new(AniVersion::V4000, total_ms);
        let key = |t: i32, x: f32| Key::new(t, Vec3::new(x, 0.0, 0.0), Quat::IDENTITY);
        let keys = vec![key(0, from), key(total_ms, to)];
        animation.tracks.push(Track { bone: FileString::encode_text("Bip01"), weight: 1.0, keys });
        for &time_ms in events {
            let kind = FileString::encode_text("motion_sound");
            animation.events.push(Event { kind, sub_info: FileString::default(), time_ms });
        }
        Clip::new(&animation)
    }

    struct Stage {
        clips: Vec<Clip>,
        mixer: Mixer<usize>,
        fired: Vec<Fired<usize>>,
    }

    const BONES: [Option<usize>; 1] = [Some(0)];

    impl Stage {
        fn new(clips: Vec<Clip>) -> Self {
            Self { clips, mixer: Mixer::new(), fired: Vec::new() }
        }

        fn step(&mut self, dt: f32) {
            self.fired.clear();
            let clips = &self.clips;
            self.mixer.advance(dt, |c| clips.get(c), &mut self.fired);
        }

        fn x(&mut self) -> f32 {
            let mut blend = PoseBlend::default();
            let clips = &self.clips;
            self.mixer.pose(&[BonePose::IDENTITY], |c| clips.get(c).map(|c| (c, &BONES[..])), &mut blend);
            blend.pose(0).unwrap().position.x
        }

        fn weight(&self, id: InstanceId) -> Option<f32> {
            self.mixer.instance(id).map(Instance::weight)
        }

        fn fired_clips(&self) -> Vec<usize> {
            self.fired.iter().map(|f| f.clip).collect()
        }
    }

    fn near(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn a_crossfade_from_a_loop_to_an_action() {
        // Loop 0 walks x 0 -> 100 over 1000 ms; action 1 holds x at 500.
        let mut stage = Stage::new(vec![clip(1000, 0.0, 100.0, &[50.0, 450.0]), clip(600, 500.0, 500.0, &[20.0])]);
        let walk = stage.mixer.play_loop(0, Loop::default());
        for _ in 0..20 {
            stage.step(10.0);
        }
        assert_eq!(stage.weight(walk), Some(1.0));
        assert!(near(stage.x(), 20.0));
        // The game's state change: clear with 100 ms, start with 100/100.
        stage.mixer.clear_all_loops(100.0, false);
        let hit = stage.mixer.play_action(1, Action { hold_last_frame: true, ..Action::faded(100.0, 100.0) });
        for frame in 1..=10 {
            stage.step(10.0);
            let t = 10.0 * frame as f32;
            // Loop: weight = remaining / fade x target, still animating.
            let w_loop = (100.0 - t) / 100.0;
            // Action: (pre-delay 0 + t) / (0 + fade in) x target.
            let w_action = t / 100.0;
            if frame < 10 {
                assert!(near(stage.weight(walk).unwrap(), w_loop), "frame {frame}");
            }
            if frame < 10 {
                assert!(near(stage.weight(hit).unwrap(), w_action), "frame {frame}");
            }
            // Actions alone make A; the loop mixes in by l / (a + l).
            let walk_x = (200.0 + t) / 10.0;
            let expected = if frame < 10 { 500.0 + (walk_x - 500.0) * (w_loop / (w_action + w_loop)) } else { 500.0 };
            assert!(near(stage.x(), expected), "frame {frame}: {} vs {expected}", stage.x());
            // Events: the fading loop is silent (its event at 250 would
            // not be reached anyway); the action fires at 20 ms.
            assert_eq!(stage.fired_clips(), if frame == 3 { vec![1] } else { vec![] }, "frame {frame}");
        }
        assert_eq!(stage.weight(walk), None, "the loop ended and left");
        assert_eq!(stage.mixer.instance(hit).unwrap().state(), State::Play);
    }

    #[test]
    fn a_fading_loop_is_silent_and_a_fading_in_one_fires() {
        let mut stage = Stage::new(vec![clip(1000, 0.0, 0.0, &[5.0]), clip(1000, 0.0, 0.0, &[5.0])]);
        stage.mixer.play_loop(0, Loop::default());
        stage.step(1.0);
        stage.mixer.clear_loop(0, 100.0, false);
        stage.mixer.play_loop(1, Loop::faded(100.0));
        stage.step(10.0);
        assert_eq!(stage.fired_clips(), vec![1]);
        assert_eq!(stage.fired[0].event, 0);
    }

    #[test]
    fn a_held_action_stays_and_releases_over_100_ms() {
        let mut stage = Stage::new(vec![clip(300, 0.0, 30.0, &[300.0]), clip(1000, 70.0, 70.0, &[])]);
        let swing = stage.mixer.play_action(0, Action { hold_last_frame: true, ..Action::faded(0.0, 100.0) });
        let mut fired_at_end = 0;
        for _ in 0..40 {
            stage.step(10.0);
            fired_at_end += stage.fired.len();
        }
        let held = stage.mixer.instance(swing).unwrap();
        assert_eq!((held.state(), held.time_ms(), held.weight()), (State::FadeOut, 300.0, 1.0));
        assert_eq!(fired_at_end, 1, "the event at the end fires once, not every frame");
        assert!(near(stage.x(), 30.0));
        // Released: weight falls from the target over 100 ms; the time stays.
        stage.mixer.clear_all_actions(100.0, false);
        stage.mixer.play_loop(1, Loop::faded(100.0));
        for frame in 1..=9 {
            stage.step(10.0);
            let t = 10.0 * frame as f32;
            let (w_action, w_loop) = ((100.0 - t) / 100.0, t / 100.0);
            assert!(near(stage.weight(swing).unwrap(), w_action), "frame {frame}");
            let expected = 30.0 + (70.0 - 30.0) * (w_loop / (w_action + w_loop));
            assert!(near(stage.x(), expected), "frame {frame}: {} vs {expected}", stage.x());
        }
        stage.step(10.0);
        assert_eq!(stage.weight(swing), None);
        assert!(near(stage.x(), 70.0));
    }

    #[test]
    fn an_ended_action_is_guaranteed_until_something_new_starts() {
        let mut stage = Stage::new(vec![clip(100, 0.0, 40.0, &[]), clip(1000, 90.0, 90.0, &[])]);
        let jab = stage.mixer.play_action(0, Action::default());
        for _ in 0..11 {
            stage.step(10.0);
        }
        let kept = stage.mixer.instance(jab).unwrap();
        assert_eq!((kept.state(), kept.time_ms(), kept.weight()), (State::Guarantee, 100.0, 0.5));
        assert!(near(stage.x(), 40.0), "its last frame, not the rest pose");
        stage.mixer.play_loop(1, Loop::default());
        // Released: max(0.1, remaining / 100 x 0.5), while the new loop (no
        // fade) is at 1.
        for frame in 1..=9 {
            stage.step(10.0);
            let w = ((100.0 - 10.0 * frame as f32) / 100.0 * 0.5f32).max(0.1);
            assert!(near(stage.weight(jab).unwrap(), w), "frame {frame}");
            let expected = 40.0 + (90.0 - 40.0) * (1.0 / (w + 1.0));
            assert!(near(stage.x(), expected), "frame {frame}");
        }
        stage.step(10.0);
        assert_eq!(stage.weight(jab), None);
        // Without guarantee mode an ended action just leaves.
        let mut plain = Stage::new(vec![clip(100, 0.0, 40.0, &[])]);
        plain.mixer.guarantee = false;
        plain.mixer.play_action(0, Action::default());
        for _ in 0..11 {
            plain.step(10.0);
        }
        assert!(plain.mixer.is_idle());
    }

    #[test]
    fn three_aiming_loops_blend_by_forced_weights() {
        let mut stage =
            Stage::new(vec![clip(500, 0.0, 0.0, &[]), clip(500, 60.0, 60.0, &[]), clip(500, 120.0, 120.0, &[])]);
        let ids: Vec<InstanceId> = (0..3).map(|c| stage.mixer.play_loop(c, Loop::default())).collect();
        stage.step(10.0);
        for (weights, pitch) in [([1.0, 0.0, 0.0], 0.0), ([0.0, 0.5, 0.5], 90.0), ([0.25, 0.5, 0.25], 60.0)] {
            for (&id, &w) in ids.iter().zip(&weights) {
                stage.mixer.force_weight(id, w);
            }
            assert!(near(stage.x(), pitch), "{weights:?}: {}", stage.x());
            stage.step(10.0);
            assert!(near(stage.x(), pitch), "{weights:?} a frame later");
        }
    }

    #[test]
    fn waits_rates_and_pre_delays_run_as_the_client_counts_them() {
        let mut stage = Stage::new(vec![clip(1000, 0.0, 1000.0, &[])]);
        // Twice as fast, after 50 ms of real wait: 30 ms later it is at 60.
        let fast = stage.mixer.play_action(0, Action { rate: 2.0, wait_ms: 50.0, ..Action::default() });
        stage.step(50.0);
        assert_eq!(stage.mixer.instance(fast).unwrap().time_ms(), 0.0);
        stage.step(30.0);
        assert_eq!(stage.mixer.instance(fast).unwrap().time_ms(), 60.0);
        // A pre-delay holds the first frame while the weight rises over
        // pre-delay + fade in.
        let mut stage = Stage::new(vec![clip(1000, 0.0, 1000.0, &[])]);
        let late = stage.mixer.play_action(0, Action { pre_delay_ms: 40.0, ..Action::faded(60.0, 0.0) });
        stage.step(20.0);
        let i = stage.mixer.instance(late).unwrap();
        assert_eq!((i.time_ms(), i.weight()), (0.0, 0.2));
        stage.step(30.0);
        let i = stage.mixer.instance(late).unwrap();
        assert_eq!(i.time_ms(), 10.0, "the overflow past the pre-delay");
        assert!(near(i.weight(), 0.5));
    }

    #[test]
    fn a_loop_wraps_once_a_frame_and_fires_across_the_wrap() {
        let mut stage = Stage::new(vec![clip(100, 0.0, 0.0, &[10.0, 95.0, 100.0])]);
        let id = stage.mixer.play_loop(0, Loop::default());
        stage.step(90.0);
        assert_eq!(stage.fired.iter().map(|f| f.time_ms).collect::<Vec<_>>(), [10.0]);
        stage.step(30.0);
        assert_eq!(stage.mixer.instance(id).unwrap().time_ms(), 20.0);
        assert_eq!(
            stage.fired.iter().map(|f| f.time_ms).collect::<Vec<_>>(),
            [10.0, 95.0],
            "the event at the end never fires"
        );
        stage.mixer.stop();
        stage.step(30.0);
        assert_eq!(stage.mixer.instance(id).unwrap().time_ms(), 20.0);
        stage.mixer.resume();
        stage.step(30.0);
        assert_eq!(stage.mixer.instance(id).unwrap().time_ms(), 50.0);
    }
}
