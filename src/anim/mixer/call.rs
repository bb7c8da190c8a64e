//! The controller's calls as values: what a game asks of a character now
//! and the mixer carries out when it next runs, so that whoever records
//! the calls (a Bevy component the game writes) need not own the mixer
//! (the plugin's state, which every frame writes).

use super::{Action, InstanceId, Loop, Mixer};

/// One call on a [`Mixer`], recorded to be made by [`Mixer::apply`].
///
/// A call that starts a clip carries the id its instance will have, which
/// the recorder hands out at once: ids must then come from the recorder
/// alone, one counter for every start, never from [`Mixer::play_action`]
/// or [`Mixer::play_loop`] on the same mixer.
#[derive(Debug, Clone, PartialEq)]
pub enum Call<C> {
    /// [`Mixer::play_action`] (`SetActionAni`).
    PlayAction {
        /// The new instance's id.
        id: InstanceId,
        /// The clip to start.
        clip: C,
        /// How it starts, plays and ends.
        action: Action,
    },
    /// [`Mixer::play_loop`] (`SetLoopAni`): a loop of the clip already
    /// playing restarts under this id, and its old id is gone (no removal
    /// is reported for it: the loop plays on).
    PlayLoop {
        /// The (re)started loop's id.
        id: InstanceId,
        /// The clip to loop.
        clip: C,
        /// How it starts and plays.
        settings: Loop,
    },
    /// [`Mixer::clear_action`] (`ClearActionAni`).
    ClearAction {
        /// The clip whose actions end.
        clip: C,
        /// Their fade out.
        fade_out_ms: f32,
    },
    /// [`Mixer::clear_all_actions`] (`ClearAllActionAni`).
    ClearAllActions {
        /// Their fade out.
        fade_out_ms: f32,
        /// Whether actions still waiting to start end too.
        also_waiting: bool,
    },
    /// [`Mixer::clear_loop`] (`ClearLoopAni`).
    ClearLoop {
        /// The clip whose loop ends.
        clip: C,
        /// Its fade out.
        fade_out_ms: f32,
        /// Whether a loop still waiting to start ends too.
        also_waiting: bool,
    },
    /// [`Mixer::clear_all_loops`] (`ClearAllLoopAni`).
    ClearAllLoops {
        /// Their fade out.
        fade_out_ms: f32,
        /// Whether loops still waiting to start end too.
        also_waiting: bool,
    },
    /// [`Mixer::clear_all_loops_except`] (`ClearAllLoopAniExceptOne`).
    ClearAllLoopsExcept {
        /// The clip whose loop stays, if it loops.
        clip: C,
        /// The others' fade out.
        fade_out_ms: f32,
        /// Whether loops still waiting to start end too.
        also_waiting: bool,
    },
    /// [`Mixer::clear_instance`].
    ClearInstance {
        /// The instance to end.
        id: InstanceId,
        /// Its fade out.
        fade_out_ms: f32,
    },
    /// [`Mixer::force_weight`] (`ForceWeight`).
    ForceWeight {
        /// The instance.
        id: InstanceId,
        /// Its weight from now on.
        weight: f32,
    },
    /// [`Mixer::set_rate`].
    SetRate {
        /// The instance.
        id: InstanceId,
        /// Its time factor from now on.
        rate: f32,
    },
    /// [`Mixer::pause_instance`].
    PauseInstance {
        /// The instance.
        id: InstanceId,
        /// Whether it stands still.
        paused: bool,
    },
    /// [`Mixer::seek`] (`SetCurTime`).
    Seek {
        /// The instance.
        id: InstanceId,
        /// Its new time, clamped to its clip.
        time_ms: f32,
    },
}

impl<C: Copy + PartialEq> Mixer<C> {
    /// Makes a recorded call, as the method it names would have made it.
    pub fn apply(&mut self, call: Call<C>) {
        match call {
            Call::PlayAction { id, clip, action } => self.play_action_as(id, clip, action),
            Call::PlayLoop { id, clip, settings } => self.play_loop_as(id, clip, settings),
            Call::ClearAction { clip, fade_out_ms } => self.clear_action(clip, fade_out_ms),
            Call::ClearAllActions { fade_out_ms, also_waiting } => self.clear_all_actions(fade_out_ms, also_waiting),
            Call::ClearLoop { clip, fade_out_ms, also_waiting } => self.clear_loop(clip, fade_out_ms, also_waiting),
            Call::ClearAllLoops { fade_out_ms, also_waiting } => self.clear_all_loops(fade_out_ms, also_waiting),
            Call::ClearAllLoopsExcept { clip, fade_out_ms, also_waiting } => {
                self.clear_all_loops_except(clip, fade_out_ms, also_waiting);
            }
            Call::ClearInstance { id, fade_out_ms } => self.clear_instance(id, fade_out_ms),
            Call::ForceWeight { id, weight } => self.force_weight(id, weight),
            Call::SetRate { id, rate } => self.set_rate(id, rate),
            Call::PauseInstance { id, paused } => self.pause_instance(id, paused),
            Call::Seek { id, time_ms } => self.seek(id, time_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::mixer::State;

    /// Recorded calls leave the mixer as the direct calls do, ids
    /// included, but for a restarted loop, which takes the new id.
    #[test]
    fn recorded_calls_do_what_the_calls_do() {
        let (mut direct, mut recorded) = (Mixer::<u8>::new(), Mixer::<u8>::new());
        let walk = direct.play_loop(1, Loop::default());
        let punch = direct.play_action(2, Action::faded(100.0, 100.0));
        direct.force_weight(walk, 0.5);
        direct.clear_action(2, 50.0);
        let calls = [
            Call::PlayLoop { id: walk, clip: 1, settings: Loop::default() },
            Call::PlayAction { id: punch, clip: 2, action: Action::faded(100.0, 100.0) },
            Call::ForceWeight { id: walk, weight: 0.5 },
            Call::ClearAction { clip: 2, fade_out_ms: 50.0 },
        ];
        calls.into_iter().for_each(|call| recorded.apply(call));
        assert!(recorded.instances().eq(direct.instances()));
        assert_eq!(recorded.instance(punch).map(|i| i.state()), Some(State::Cleared));

        let again = InstanceId(9);
        recorded.apply(Call::PlayLoop { id: again, clip: 1, settings: Loop::default() });
        assert!(recorded.instance(walk).is_none(), "the restarted loop's old id is gone");
        assert_eq!(recorded.instance(again).map(|i| (i.clip, i.time_ms())), Some((1, 0.0)));
        assert_eq!(recorded.instances().count(), 2);
    }
}
