//! Stress: N characters of the game's size (the Biped with fingers, 52
//! bones), each playing a loop 20 s long at 100 keys a second from its own
//! time, and every few seconds crossfading to an action over it and back
//! (clear with 100 ms fades, start with 100 ms fades), as the game changes
//! state, with events observed. Prints the CPU time of a frame (mean and
//! 99th percentile over 300 frames): the clips' clocks, the blend,
//! events, transform propagation and scheduling, without drawing.
//!
//! Run: `cargo run --release --no-default-features --features plugin
//! --example stress -- 1000` (one count), or with no count, doubling from
//! 250 until a frame no longer fits in 16.7 ms, to find the largest N that
//! holds 60 frames a second. (Without `--no-default-features` the viewer's
//! renderer is built in release too, for nothing.)

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_io3d::anim::{Action, Loop, Rig};
use bevy_io3d::format::{Event, FileString};
use bevy_io3d::plugin::{AniClip, AniEventFired, AniPlayer, Io3dPlugin, SklRig, SklSkeleton};

#[path = "../benches/common/mod.rs"]
mod common;

const FRAME_BUDGET: Duration = Duration::from_micros(16_667);
const FRAMES: usize = 300;
/// Frames between two state changes of one character.
const CHANGE_EVERY: usize = 120;

/// Counts events fired, so that observing them is part of the work.
#[derive(Resource, Default)]
struct EventsFired(u64);

/// The two clips every character switches between.
#[derive(Resource)]
struct Clips(Handle<AniClip>, Handle<AniClip>);

/// Every frame some characters change state, spread over the frames.
fn change_states(mut frame: Local<usize>, clips: Res<Clips>, mut players: Query<&mut AniPlayer>) {
    *frame += 1;
    for (i, mut player) in players.iter_mut().enumerate() {
        if !(i + *frame).is_multiple_of(CHANGE_EVERY) {
            continue;
        }
        player.clear_all_actions(100.0, false);
        if ((i + *frame) / CHANGE_EVERY).is_multiple_of(2) {
            player.play_action(clips.1.clone(), Action { hold_last_frame: true, ..Action::faded(100.0, 100.0) });
        } else {
            player.clear_all_loops(100.0, false);
            player.play_loop(clips.0.clone(), Loop::faded(100.0));
        }
    }
}

fn app(characters: usize) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin, Io3dPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME_BUDGET))
        .init_resource::<EventsFired>()
        .add_systems(Update, change_states)
        .add_observer(|_: On<AniEventFired>, mut fired: ResMut<EventsFired>| fired.0 += 1);
    let skeleton = common::game_skeleton();
    let rig = Rig::new(&skeleton).expect("a tree");
    let mut walk = common::long_clip(&skeleton, 20, 0.0);
    // A footstep every half second.
    walk.events = (0..40)
        .map(|i| Event {
            kind: "motion_sound".into(),
            sub_info: FileString::from("step.wav"),
            time_ms: i as f32 * 500.0,
        })
        .collect();
    let attack = common::long_clip(&skeleton, 20, 1.5);
    let skeleton = app.world_mut().resource_mut::<Assets<SklSkeleton>>().add(SklSkeleton { skeleton, rig });
    let mut add = |animation| app.world_mut().resource_mut::<Assets<AniClip>>().add(AniClip::new(animation));
    let clips = Clips(add(walk), add(attack));
    for i in 0..characters {
        let mut player = AniPlayer::default();
        player.play_loop(clips.0.clone(), Loop::default());
        player.seek((i * 37 % 20_000) as f64);
        let place = Transform::from_xyz((i % 50) as f32 * 100.0, 0.0, (i / 50) as f32 * 100.0);
        app.world_mut().spawn((SklRig::new(skeleton.clone()), player, place));
    }
    app.insert_resource(clips);
    // Spawn the bones and bind the players before measuring.
    app.update();
    app.update();
    app
}

/// Mean and 99th percentile frame time for `characters`.
fn measure(characters: usize) -> (Duration, Duration, u64) {
    let mut app = app(characters);
    let mut times: Vec<Duration> = (0..FRAMES)
        .map(|_| {
            let start = Instant::now();
            app.update();
            start.elapsed()
        })
        .collect();
    times.sort();
    let mean = times.iter().sum::<Duration>() / FRAMES as u32;
    (mean, times[FRAMES * 99 / 100], app.world().resource::<EventsFired>().0)
}

fn report(characters: usize) -> bool {
    let (mean, p99, events) = measure(characters);
    let fits = p99 <= FRAME_BUDGET;
    println!(
        "{characters:>6} characters: mean {:>6.2} ms, p99 {:>6.2} ms, {events} events in {FRAMES} frames  {}",
        mean.as_secs_f64() * 1000.0,
        p99.as_secs_f64() * 1000.0,
        if fits { "holds 60 fps" } else { "over 16.7 ms" }
    );
    fits
}

fn main() {
    match std::env::args().nth(1).map(|n| n.parse::<usize>()) {
        Some(Ok(characters)) => {
            report(characters);
        }
        Some(Err(_)) => eprintln!("usage: stress [CHARACTERS]"),
        None => {
            // Double until a frame misses the budget, then halve the gap.
            let (mut low, mut high) = (0, 250);
            while report(high) {
                low = high;
                high *= 2;
            }
            while high - low > high / 16 {
                let middle = (low + high) / 2;
                if report(middle) { low = middle } else { high = middle }
            }
            println!("largest N that holds 60 fps here: about {low}");
        }
    }
}
