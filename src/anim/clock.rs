//! How a play time maps onto an animation's own time.

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

/// The most loops one step passes events for: a frame that spans more
/// (a huge speed, a long stall) fires each event this many times at most.
pub const MAX_WRAPS_PER_STEP: i64 = 64;

/// One step of a playhead: where it was, where it is, and how many times
/// it wrapped on the way (negative when playing backwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Animation time before the step, in ms.
    pub from_ms: f64,
    /// Animation time after it.
    pub to_ms: f64,
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
        Step { from_ms: time_ms, to_ms, wraps, total_ms: total, looping: self == Self::Loop }
    }
}

/// The client's event window, the one rule for which events a clip's time
/// passes: moving forwards from `from` to `to` passes the times in
/// `[from, to)`, backwards (reverse play, which the client never does) the
/// mirror `(to, from]`, and not moving passes nothing. A loop that wraps
/// passes `[from, full)` and then `[0, to)`, so an event at exactly a
/// loop's full time never fires (see `docs/playback.md`).
pub fn passes(t: f64, from: f64, to: f64) -> bool {
    if to >= from { from <= t && t < to } else { to < t && t <= from }
}

impl Step {
    /// The events this step passes, as `(index, time)` pairs in the order
    /// they are passed (forwards in time, or backwards when playing in
    /// reverse), each once per lap, by the client's window ([`passes`]).
    /// `times` are the events' times in ms. In a loop, an event at exactly
    /// the total time never fires, as in the client. A clip played once
    /// passes its end on reaching it (the client's action runs past its
    /// end before it stops), so an event there fires once, and not again
    /// while the clip holds its end.
    pub fn events_passed(&self, times: &[f32]) -> Vec<(usize, f32)> {
        let total = self.total_ms;
        let wraps = self.wraps.clamp(-MAX_WRAPS_PER_STEP, MAX_WRAPS_PER_STEP);
        let (start, end) = (self.from_ms, self.to_ms + wraps as f64 * total);
        let forward = end >= start;
        // (unwrapped time, lap, index, time): at one instant, the end of a lap
        // comes before the start of the next.
        let mut passed: Vec<(f64, i64, usize, f32)> = Vec::new();
        for (index, &time) in times.iter().enumerate() {
            let t = f64::from(time);
            let at_end = t == total;
            if !(0.0..=total).contains(&t) || (at_end && self.looping && total > 0.0) {
                continue;
            }
            // Every copy of the event on the unwrapped time line in range.
            let laps = if total > 0.0 { -(wraps.abs() + 1)..=(wraps.abs() + 1) } else { 0..=0 };
            for lap in laps {
                let at = t + lap as f64 * total;
                let inside = if at_end && forward { start < at && at <= end } else { passes(at, start, end) };
                if inside {
                    passed.push((at, lap, index, time));
                }
            }
        }
        passed.sort_by(|a, b| {
            let order = a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
            if forward { order } else { order.reverse() }
        });
        passed.into_iter().map(|(_, _, index, time)| (index, time)).collect()
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
        assert_eq!(indices(Loop.step(700.0, 400.0, 1000)), [2, 0], "across the wrap, in order");
        assert_eq!(indices(Loop.step(900.0, 100.0, 1000)), Vec::<usize>::new(), "a loop's end never fires");
        assert_eq!(indices(Loop.step(1000.0, 16.0, 1000)), [0], "the start fires after the wrap");
        assert_eq!(indices(Loop.step(300.0, -100.0, 1000)), [1], "backwards: (to, from]");
        assert_eq!(indices(Loop.step(100.0, -200.0, 1000)), [0], "backwards across the start, not the end");
        assert_eq!(indices(Loop.step(0.0, 2000.0, 1000)), [0, 1, 2, 0, 1, 2], "two loops, twice each");
        assert_eq!(indices(Once.step(900.0, 500.0, 1000)), [3], "once: the end fires on reaching it");
        assert_eq!(indices(Once.step(1000.0, 16.0, 1000)), Vec::<usize>::new(), "and only once");
        assert_eq!(indices(Loop.step(0.0, 0.0, 1000)), Vec::<usize>::new());
    }

    #[test]
    fn once_clamps() {
        assert_eq!(Once.animation_time(1250.0, 1000), 1000.0);
        assert_eq!(Once.animation_time(-5.0, 1000), 0.0);
        assert_eq!(Once.animation_time(5.0, -10), 0.0);
    }
}
