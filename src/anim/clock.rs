//! How a play time maps onto an animation's own time, and which events a
//! frame passes.

use std::cmp::Ordering;

/// What happens at the end of an animation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum RepeatMode {
    /// Wrap on the total time as the client does (`if t > total { t -= total }`):
    /// a jump from the last key to the first, with no blend between them.
    #[default]
    Loop,
    /// Play once and hold the end (action clips): clamp to `0..=total`.
    Once,
}

/// The client's loop wrap, once: `if t > total { t -= total }`. A time of
/// exactly `total` stays at the end; the mixer applies it once a frame, as
/// the client does, and [`RepeatMode`] as often as a jump needs.
pub fn wrap_once(t: f32, total: f32) -> f32 {
    if t > total { t - total } else { t }
}

impl RepeatMode {
    /// The animation time shown at play time `t` ms, for an animation of
    /// `total_ms`. Looping keeps the client's range `0..=total` for
    /// `t >= 0` (a time of exactly `total` shows the end, not the start);
    /// times before 0, from reverse play, wrap from the end. An animation of
    /// zero or negative length does not wrap (the client's subtraction
    /// would change nothing).
    pub fn animation_time(self, t: f32, total_ms: i32) -> f32 {
        let total = total_ms as f32;
        match self {
            Self::Once => t.clamp(0.0, total.max(0.0)),
            Self::Loop if total <= 0.0 || (0.0..=total).contains(&t) => t,
            Self::Loop if t > total => {
                let r = t % total;
                if r == 0.0 { total } else { r }
            }
            Self::Loop => t.rem_euclid(total),
        }
    }
}

/// One step of a playhead: where it was, where it is, and how many times
/// it wrapped on the way (negative when playing backwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Animation time before the step, in ms.
    pub from_ms: f64,
    /// Animation time after it.
    pub to_ms: f64,
    /// How far the step meant to move, in ms, before a clip played once
    /// clamped it (the client's window runs that far: see [`EventWindow`]).
    pub moved_ms: f64,
    /// Loop wraps passed: +1 for each end passed forwards, -1 for each
    /// start passed backwards.
    pub wraps: i64,
    /// The length of the animation.
    pub total_ms: f64,
    /// Whether the clip loops (an event at its end then never fires).
    pub looping: bool,
}

impl RepeatMode {
    /// Moves a playhead at `time_ms` (animation time) by `delta_ms`
    /// (negative plays backwards). Times are `f64`, so hours of play in
    /// small frame steps do not drift.
    pub fn step(self, time_ms: f64, delta_ms: f64, total_ms: i32) -> Step {
        let total = f64::from(total_ms.max(0));
        let unwrapped = time_ms + delta_ms;
        let (to_ms, wraps) = match self {
            Self::Once => (unwrapped.clamp(0.0, total), 0),
            // The client's `t -= total` changes nothing: time runs on.
            Self::Loop if total == 0.0 => (unwrapped, 0),
            // As the client: a time of exactly `total` stays at the end.
            Self::Loop => {
                let wraps =
                    if unwrapped > total { ((unwrapped - total) / total).ceil() } else { (unwrapped / total).floor() };
                let wraps = if unwrapped >= 0.0 && unwrapped <= total { 0.0 } else { wraps };
                (unwrapped - wraps * total, wraps as i64)
            }
        };
        Step { from_ms: time_ms, to_ms, moved_ms: delta_ms, wraps, total_ms: total, looping: self == Self::Loop }
    }
}

/// The client's event window, the one rule for which events a clip's time
/// passes in one frame, used by the mixer ([`super::Mixer`]) and by every
/// [`Step`]. Forwards from `pre` to `cur` it passes the times in
/// `[pre, cur)`; a loop that wrapped passes `[pre, full)` and `[0, cur)`,
/// so an event at exactly a loop's full time never fires; a clip's time
/// that did not move passes nothing. Events fire in the clip's event order
/// (by time; across a wrap an event at 10 ms fires before one at 95 ms),
/// each at most once a frame. Backwards (reverse play, which the client
/// never does) is the mirror: `(cur, pre]`, and a wrap past the start
/// passes `[0, pre]` and `(cur, full)`. See `docs/playback.md`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventWindow {
    /// The time did not move.
    Still,
    /// `[pre, cur)`, with `pre < cur`; `cur` may lie past a clip's end.
    Forward {
        /// The time before the frame, in ms.
        pre: f64,
        /// The time after it.
        cur: f64,
    },
    /// A loop that passed its end: `[pre, full)` and `[0, cur)`.
    Wrapped {
        /// The time before the frame, in ms.
        pre: f64,
        /// The time after it.
        cur: f64,
        /// The clip's length.
        full: f64,
    },
    /// `(cur, pre]`, with `cur < pre`.
    Backward {
        /// The time before the frame, in ms.
        pre: f64,
        /// The time after it.
        cur: f64,
    },
    /// A loop played backwards past its start: `[0, pre]` and `(cur, full)`.
    WrappedBackward {
        /// The time before the frame, in ms.
        pre: f64,
        /// The time after it.
        cur: f64,
        /// The clip's length.
        full: f64,
    },
}

impl EventWindow {
    /// The window of a time that moved from `pre` to `cur` without a wrap
    /// (an action's time before it is clamped to its end).
    pub fn between(pre: f64, cur: f64) -> Self {
        match pre.partial_cmp(&cur) {
            Some(Ordering::Less) => Self::Forward { pre, cur },
            Some(Ordering::Greater) => Self::Backward { pre, cur },
            _ => Self::Still,
        }
    }

    /// The window of a loop of length `full` whose time went forwards
    /// from `pre` to `cur` (already wrapped once): a time that went down
    /// wrapped.
    pub fn of_loop(pre: f64, cur: f64, full: f64) -> Self {
        if cur < pre { Self::Wrapped { pre, cur, full } } else { Self::between(pre, cur) }
    }

    /// Whether the window passes an event at `t` ms.
    pub fn passes(&self, t: f64) -> bool {
        match *self {
            Self::Still => false,
            Self::Forward { pre, cur } => pre <= t && t < cur,
            Self::Wrapped { pre, cur, full } => (pre <= t && t < full) || (0.0 <= t && t < cur),
            Self::Backward { pre, cur } => cur < t && t <= pre,
            Self::WrappedBackward { pre, cur, full } => (0.0 <= t && t <= pre) || (cur < t && t < full),
        }
    }

    /// The events it passes, by index into `times` (the clip's event
    /// times, in the clip's order), in that order.
    pub fn passed<'a>(&'a self, times: &'a [f32]) -> impl Iterator<Item = usize> + 'a {
        times.iter().enumerate().filter(|(_, t)| self.passes(f64::from(**t))).map(|(index, _)| index)
    }
}

impl Step {
    /// The step's [`EventWindow`]. A loop passes each of its events at most
    /// once a step, as the client wraps at most once a frame, however many
    /// laps a long step covers. A clip played once passes `[from, from +
    /// moved)` (or its mirror) before it is clamped, as the client's action
    /// does, so the event at its end fires in a step that runs past the end
    /// and not in one that lands on it.
    pub fn window(&self) -> EventWindow {
        let (pre, cur, full) = (self.from_ms, self.to_ms, self.total_ms);
        if !self.looping {
            return EventWindow::between(pre, pre + self.moved_ms);
        }
        // A loop stepping back from exactly its end starts just below it:
        // a loop's end event never fires.
        let pre = if self.moved_ms < 0.0 && pre >= full && full > 0.0 { full.next_down() } else { pre };
        match self.wraps {
            0 => EventWindow::between(pre, cur),
            wraps if wraps > 0 => EventWindow::Wrapped { pre, cur, full },
            _ => EventWindow::WrappedBackward { pre, cur, full },
        }
    }

    /// The events this step passes, as `(index, time)` pairs in the clip's
    /// order, by [`Step::window`]. `times` are the events' times in ms.
    pub fn events_passed(&self, times: &[f32]) -> Vec<(usize, f32)> {
        self.window().passed(times).map(|index| (index, times[index])).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::RepeatMode::*;

    #[test]
    fn loop_wraps_like_the_client() {
        assert_eq!(Loop.animation_time(250.0, 1000), 250.0);
        assert_eq!(Loop.animation_time(1000.0, 1000), 1000.0);
        assert_eq!(Loop.animation_time(1250.0, 1000), 250.0);
        assert_eq!(Loop.animation_time(2000.0, 1000), 1000.0);
        assert_eq!(Loop.animation_time(-250.0, 1000), 750.0);
        assert_eq!(Loop.animation_time(5.0, 0), 5.0);
    }

    #[test]
    fn steps_wrap_and_count_their_loops() {
        let step = Loop.step(900.0, 250.0, 1000);
        assert_eq!((step.to_ms, step.wraps), (150.0, 1));
        let step = Loop.step(100.0, -250.0, 1000);
        assert_eq!((step.to_ms, step.wraps), (850.0, -1));
        assert_eq!(Loop.step(900.0, 100.0, 1000).to_ms, 1000.0);
        assert_eq!(Loop.step(900.0, 2100.0, 1000).wraps, 2);
        assert_eq!(Loop.step(900.0, 100.0, 0).to_ms, 1000.0, "no length: no wrap, as animation_time");
        let once = Once.step(900.0, 250.0, 1000);
        assert_eq!(once.to_ms, 1000.0);
        // Many small steps land exactly where one big step does.
        let mut t = 0.0;
        for _ in 0..360_000 {
            t = Loop.step(t, 1000.0 / 60.0, 1000).to_ms;
        }
        assert!((t - Loop.step(0.0, 6_000_000.0, 1000).to_ms).abs() < 1e-6, "{t}");
    }

    #[test]
    fn events_fire_once_per_pass() {
        let times = [0.0, 250.0, 750.0, 1000.0];
        let indices = |step: super::Step| step.events_passed(&times).into_iter().map(|(i, _)| i).collect::<Vec<_>>();
        assert_eq!(indices(Loop.step(0.0, 300.0, 1000)), [0, 1]);
        assert_eq!(indices(Loop.step(250.0, 10.0, 1000)), [1], "the start of a step is inside");
        assert_eq!(indices(Loop.step(700.0, 400.0, 1000)), [0, 2], "across the wrap, in the clip's order");
        assert_eq!(indices(Loop.step(900.0, 100.0, 1000)), Vec::<usize>::new(), "a loop's end never fires");
        assert_eq!(indices(Loop.step(1000.0, 16.0, 1000)), [0], "the start fires after the wrap");
        assert_eq!(indices(Loop.step(300.0, -100.0, 1000)), [1], "backwards: (to, from]");
        assert_eq!(indices(Loop.step(100.0, -200.0, 1000)), [0], "backwards across the start, not the end");
        assert_eq!(indices(Loop.step(0.0, 2000.0, 1000)), [0, 1, 2], "once a step, however many laps");
        assert_eq!(indices(Once.step(900.0, 500.0, 1000)), [3], "once: the end fires running past it");
        assert_eq!(indices(Once.step(900.0, 100.0, 1000)), Vec::<usize>::new(), "not landing on it");
        assert_eq!(indices(Once.step(1000.0, -16.0, 1000)), [3], "backwards: on leaving the end");
        assert_eq!(indices(Loop.step(0.0, 0.0, 1000)), Vec::<usize>::new());
    }

    #[test]
    fn once_clamps() {
        assert_eq!(Once.animation_time(1250.0, 1000), 1000.0);
        assert_eq!(Once.animation_time(-5.0, 1000), 0.0);
        assert_eq!(Once.animation_time(5.0, -10), 0.0);
    }
}
