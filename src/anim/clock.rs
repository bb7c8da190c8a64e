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
    fn once_clamps() {
        assert_eq!(Once.animation_time(1250.0, 1000), 1000.0);
        assert_eq!(Once.animation_time(-5.0, 1000), 0.0);
        assert_eq!(Once.animation_time(5.0, -10), 0.0);
    }
}
