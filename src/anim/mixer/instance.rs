//! One playing clip's clock, weight and state machine (`ioAnimation`):
//! fades, waits, pre-delays, holds and the events it passes.

use std::cmp::Ordering;

use super::*;
use crate::anim::clock::{EventWindow, Step, wrap_once};

/// One playing clip and its clock (`ioAnimation`'s fields).
#[derive(Debug, Clone, PartialEq)]
pub struct Instance<C> {
    /// Its id.
    pub id: InstanceId,
    /// Its clip.
    pub clip: C,
    pub(super) kind: Kind,
    pub(super) state: State,
    pub(super) full: f32,
    pub(super) pre: f32,
    pub(super) cur: f32,
    pub(super) mid_start: f32,
    pub(super) target: f32,
    pub(super) weight: f32,
    pub(super) rate: f32,
    pub(super) fade_in: f32,
    pub(super) fade_out: f32,
    pub(super) pre_delay: f32,
    pub(super) pre_delay_past: f32,
    pub(super) force_out: f32,
    pub(super) loop_fade_out: f32,
    pub(super) release_left: f32,
    pub(super) wait_left: f32,
    pub(super) hold: bool,
    /// Whether a held action has passed the events at its end once.
    pub(super) end_passed: bool,
    /// Held still by [`Mixer::pause_instance`] (not a client call).
    pub(super) paused: bool,
    /// Whether a clear call ended it, rather than its own end.
    pub(super) cleared: bool,
    /// A seek made before its first frame, when its length was unknown:
    /// the time is clamped once the length is known.
    pub(super) seek_unclamped: bool,
    pub(super) hints: Hints,
}

impl<C: Copy> Instance<C> {
    pub(super) fn new(id: InstanceId, clip: C, kind: Kind) -> Self {
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
            paused: false,
            cleared: false,
            seek_unclamped: false,
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

    /// The step its last advance made: from its previous time to its
    /// time, a loop whose time went down having wrapped once (the client
    /// wraps a loop at most once a frame).
    pub fn step(&self) -> Step {
        let (from, to) = (self.pre, self.cur);
        let looping = self.kind == Kind::Loop;
        let wrapped = looping && to < from;
        let total = f64::from(self.full);
        Step {
            from_ms: f64::from(from),
            to_ms: f64::from(to),
            moved_ms: f64::from(to) - f64::from(from) + if wrapped { total } else { 0.0 },
            wraps: i64::from(wrapped),
            total_ms: total,
            looping,
        }
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

    /// Whether [`Mixer::pause_instance`] holds it.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// `SetCurTime`: clamped to the clip, as the client's `max(0, min(t,
    /// full))` (NaN becomes the end).
    pub(super) fn set_time(&mut self, t: f32) {
        let at_most = if t < self.full { t } else { self.full };
        self.cur = if 0.0 > at_most { 0.0 } else { at_most };
    }

    /// [`Mixer::seek`]: clamped to the clip; before its first frame (its
    /// length not known yet), kept (at least 0) and clamped on that frame.
    pub(super) fn seek(&mut self, t: f32) {
        if self.full > 0.0 {
            self.set_time(t)
        } else {
            self.cur = t.max(0.0);
            self.seek_unclamped = true;
        }
    }

    /// `ForceEndAction`.
    pub(super) fn clear_action(&mut self, fade_out: f32) {
        if matches!(self.state, State::Guarantee | State::GuaranteeRelease | State::GuaranteeEnd)
            || (self.state == State::Cleared && self.force_out < fade_out)
        {
            return;
        }
        self.state = State::Cleared;
        self.cleared = true;
        self.fade_out = fade_out;
        self.force_out = fade_out;
        if fade_out == 0.0 {
            self.weight = 0.0;
            self.state = State::End;
        }
        self.hold = false;
    }

    /// `EndLoop`: a loop fading out keeps its fade.
    pub(super) fn clear_loop(&mut self, fade_out: f32, also_waiting: bool) {
        if self.state == State::FadeOut {
            return;
        }
        self.state = State::FadeOut;
        self.cleared = true;
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

    pub(super) fn advance(&mut self, dt: f32, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        self.full = clip.total_ms as f32;
        if std::mem::take(&mut self.seek_unclamped) {
            self.set_time(self.cur);
        }
        if self.paused {
            return;
        }
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

    /// Events in the action's window ([`EventWindow::between`] its time
    /// before and after the frame, before the clamp to its end); a held
    /// action at its end passes the event at the end once (see the module
    /// docs).
    fn fire_action_events(&mut self, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        if self.pre.partial_cmp(&self.cur) != Some(Ordering::Less) {
            return;
        }
        if self.hold && self.pre >= self.full && self.end_passed {
            return;
        }
        // The window reaches past the end: the event there fires now, and
        // not again while the action holds its end.
        self.end_passed |= self.hold && self.cur > self.full;
        let window = EventWindow::between(self.pre.into(), self.cur.into());
        for event in &clip.events {
            if window.passes(event.time_ms.into()) {
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

    /// Events in the loop's window ([`EventWindow::of_loop`]); a
    /// fading-out loop is silent, and a jump applies only without a wrap.
    fn fire_loop_events(&mut self, clip: &Clip, fired: &mut Vec<Fired<C>>) {
        let window = EventWindow::of_loop(self.pre.into(), self.cur.into(), self.full.into());
        let audible = self.state != State::FadeOut;
        for event in &clip.events {
            if !window.passes(event.time_ms.into()) {
                continue;
            }
            if audible {
                self.fire(event.index, event.time_ms, fired);
            }
            if let (Some(to), EventWindow::Forward { .. }) = (event.jump_to_ms, window) {
                self.jump(to, clip, fired);
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
