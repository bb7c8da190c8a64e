//! Stress: N Biped characters, each playing one of the bundled clips
//! (walk, idle, attack; every version) from its own time and at its own
//! speed, with events observed. Prints the CPU time of a frame (mean and
//! 99th percentile over 300 frames): posing, events, transform propagation
//! and scheduling, without drawing.
//!
//! Run: `cargo run --release --no-default-features --features plugin
//! --example stress -- 2000` (one count), or with no count, doubling from
//! 250 until a frame no longer fits in 16.7 ms, to find the largest N that
//! holds 60 frames a second. (Without `--no-default-features` the viewer's
//! renderer is built in release too, for nothing.)

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_io3d::anim::Rig;
use bevy_io3d::format::{Animation, Skeleton};
use bevy_io3d::plugin::{AniClip, AniEventFired, AniPlayer, Io3dPlugin, SklRig, SklSkeleton};

const FRAME_BUDGET: Duration = Duration::from_micros(16_667);
const FRAMES: usize = 300;

fn asset(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))).expect("the bundled samples")
}

/// Counts events fired, so that observing them is part of the work.
#[derive(Resource, Default)]
struct EventsFired(u64);

fn app(characters: usize) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin, Io3dPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME_BUDGET))
        .init_resource::<EventsFired>()
        .add_observer(|_: On<AniEventFired>, mut fired: ResMut<EventsFired>| fired.0 += 1);
    let skeleton = Skeleton::from_bytes(&asset("biped.skl")).expect("a skeleton");
    let rig = Rig::new(&skeleton).expect("a tree");
    let skeleton = app.world_mut().resource_mut::<Assets<SklSkeleton>>().add(SklSkeleton { skeleton, rig });
    let clips: Vec<Handle<AniClip>> = ["walk", "idle", "attack"]
        .iter()
        .flat_map(|clip| [4000, 4001, 4002].map(|v| format!("biped_{clip}_{v}.ani")))
        .map(|name| Animation::from_bytes(&asset(&name)).expect("an animation"))
        .map(|animation| app.world_mut().resource_mut::<Assets<AniClip>>().add(AniClip::new(animation)))
        .collect();
    for i in 0..characters {
        let mut player = AniPlayer::new(clips[i % clips.len()].clone());
        player.seek((i * 37 % 1000) as f64);
        player.speed = 0.5 + (i % 7) as f64 * 0.25;
        let place = Transform::from_xyz((i % 50) as f32 * 100.0, 0.0, (i / 50) as f32 * 100.0);
        app.world_mut().spawn((SklRig::new(skeleton.clone()), player, place));
    }
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
