//! Expected weights and poses are worked out here from the rules of
//! `docs/playback.md` (linear ramps, the running weighted mean), not by the code
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
fn a_held_actions_end_event_fires_once_when_a_frame_runs_past_the_end() {
    let mut stage = Stage::new(vec![clip(300, 0.0, 30.0, &[300.0])]);
    stage.mixer.play_action(0, Action { hold_last_frame: true, ..Action::faded(0.0, 100.0) });
    let mut fired_at_end = 0;
    for _ in 0..20 {
        stage.step(70.0);
        fired_at_end += stage.fired.len();
    }
    assert_eq!(fired_at_end, 1, "the frame passing 300 ms fires it; the held frames after do not");
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

#[test]
fn an_action_lasting_no_time_keeps_its_rate() {
    assert_eq!(Action::default().lasting(1000, 500.0).rate, 2.0);
    for play_ms in [0.0, -5.0, f32::NAN, f32::INFINITY] {
        assert_eq!(Action::default().lasting(1000, play_ms).rate, 1.0, "{play_ms}");
    }
}

#[test]
fn ended_and_cleared_instances_are_reported_once_and_one_can_pause_or_change_rate() {
    let mut stage = Stage::new(vec![clip(100, 0.0, 1.0, &[50.0]), clip(1000, 0.0, 1.0, &[])]);
    stage.mixer.guarantee = false;
    let action = stage.mixer.play_action(0, Action::default());
    let walk = stage.mixer.play_loop(1, Loop::default());
    stage.mixer.pause_instance(action, true);
    stage.step(60.0);
    assert!(stage.fired.is_empty(), "a paused instance fires nothing");
    assert_eq!(stage.mixer.instance(action).unwrap().time_ms(), 0.0);
    stage.mixer.pause_instance(action, false);
    stage.mixer.set_rate(action, 2.0);
    stage.step(30.0);
    assert_eq!(stage.mixer.instance(action).unwrap().time_ms(), 60.0, "twice as fast");
    stage.step(30.0);
    let removed = stage.mixer.take_removed();
    assert_eq!(removed, [Removed { instance: action, clip: 0, cleared: false }]);
    stage.mixer.clear_loop(1, 0.0, false);
    stage.step(10.0);
    assert_eq!(stage.mixer.take_removed(), [Removed { instance: walk, clip: 1, cleared: true }]);
    stage.step(10.0);
    assert!(stage.mixer.take_removed().is_empty(), "once");
}

#[test]
fn a_rewind_wraps_loops_clamps_actions_and_passes_events_backwards() {
    let mut stage = Stage::new(vec![clip(100, 0.0, 0.0, &[10.0, 50.0]), clip(200, 0.0, 0.0, &[150.0])]);
    let looped = stage.mixer.play_loop(0, Loop::default());
    let action = stage.mixer.play_action(1, Action::default());
    stage.step(20.0);
    assert_eq!(stage.mixer.instance(looped).unwrap().step().moved_ms, 20.0);
    let clips = stage.clips.clone();
    let mut fired = Vec::new();
    let steps = stage.mixer.rewind(-30.0, |c| clips.get(c), &mut fired);
    assert_eq!(stage.mixer.instance(looped).unwrap().time_ms(), 90.0, "a loop wraps backwards");
    assert_eq!(stage.mixer.instance(action).unwrap().time_ms(), 0.0, "an action stops at its start");
    assert_eq!(fired.iter().map(|f| (f.clip, f.time_ms)).collect::<Vec<_>>(), [(0, 10.0)]);
    let wraps: Vec<i64> = steps.iter().map(|(_, step)| step.wraps).collect();
    assert_eq!(wraps, [0, -1], "the action's step, then the loop's wrap");
    stage.step(20.0);
    let step = stage.mixer.instance(looped).unwrap().step();
    assert_eq!((step.from_ms, step.to_ms, step.moved_ms, step.wraps), (90.0, 10.0, 20.0, 1));
}

/// A seek made before a clip's first frame (its length unknown yet) is
/// clamped on that frame, as one made after it is: a loop of 1000 ms
/// sought to 2500 ms stands at its end, not wrapped to 1500 ms.
#[test]
fn a_seek_before_the_first_frame_is_clamped_once_the_length_is_known() {
    for (before, after) in [(2500.0, 1000.0), (-30.0, 0.0), (400.0, 400.0)] {
        let mut stage = Stage::new(vec![clip(1000, 0.0, 1.0, &[])]);
        let id = stage.mixer.play_loop(0, Loop::default());
        stage.mixer.seek(id, before);
        stage.step(0.0);
        assert_eq!(stage.mixer.instance(id).unwrap().time_ms(), after, "sought to {before}");
        // Sought again once the length is known: the same rule.
        stage.mixer.seek(id, before);
        assert_eq!(stage.mixer.instance(id).unwrap().time_ms(), after, "sought again to {before}");
    }
}
