//! How a game embeds the plugin: load the bundled Biped and its walk, play
//! it, and react to the file's events (here: footstep sounds, logged).
//! Runs headless for three seconds of game time, then exits.
//!
//! Run: `cargo run --features plugin --example embed`

use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy_io3d::plugin::{AniEventFired, AniPlayer, Io3dPlugin, Io3dSystems, RootMotion, SklRig};

fn main() {
    App::new()
        .add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(1.0 / 60.0))),
            AssetPlugin::default(),
            TransformPlugin,
            Io3dPlugin::default(),
        ))
        .init_resource::<Travelled>()
        .add_systems(Startup, spawn_walker)
        // Root motion is filled in `Io3dSystems::Pose`: read it after that
        // set, in the same frame (in `Update` it would be a frame late).
        .add_systems(PostUpdate, report_motion.after(Io3dSystems::Pose))
        .add_systems(Update, quit_after_three_seconds)
        .run();
}

fn spawn_walker(mut commands: Commands, assets: Res<AssetServer>) {
    commands
        .spawn((SklRig::new(assets.load("biped.skl")), AniPlayer::new(assets.load("biped_walk_4002.ani"))))
        .observe(|event: On<AniEventFired>| {
            // A game would play `event.sub_info` here.
            println!("{:>7.1} ms  {}  {}", event.time_ms, event.name, event.sub_info);
        });
}

/// How far the walk's root motion has carried the character: a game would
/// move the character by each frame's delta.
#[derive(Resource, Default)]
struct Travelled(Vec3);

fn report_motion(mut travelled: ResMut<Travelled>, walkers: Query<&RootMotion, With<AniPlayer>>) {
    for motion in &walkers {
        travelled.0 += motion.delta;
    }
}

fn quit_after_three_seconds(time: Res<Time>, travelled: Res<Travelled>, mut exit: MessageWriter<AppExit>) {
    if time.elapsed_secs() > 3.0 {
        println!("walked {:.1} units in {:.1} s", travelled.0.length(), time.elapsed_secs());
        exit.write(AppExit::Success);
    }
}
