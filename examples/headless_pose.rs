//! A real Bevy app with no window loads an animation and a skeleton through
//! the asset server, plays to T milliseconds and prints every bone's world
//! pose as `io3d pose` does (JSON, engine axes, skeleton order), read back
//! from the bones' `GlobalTransform`s. With `--crowd` the player takes the
//! crowd path ([`PoseOutput::GlobalTransform`]), which writes those
//! straight from the client's composition.
//!
//! Run: `cargo run --features plugin --example headless_pose -- assets/biped_walk_4002.ani --skeleton assets/biped.skl --at-ms 250 [--crowd]`

use std::path::Path;

use bevy::asset::{AssetPlugin, UnapprovedPathMode};
use bevy::prelude::*;
use bevy_io3d::anim::RepeatMode;
use bevy_io3d::plugin::{AniBinding, AniPlayer, Axes, Io3dPlugin, PoseOutput, RigBones, SklRig};

/// Where to pose, as `io3d pose` takes it.
pub struct Request<'a> {
    /// The `.ani` file.
    pub animation: &'a Path,
    /// The `.skl` file.
    pub skeleton: &'a Path,
    /// The time in milliseconds.
    pub at_ms: f32,
    /// Wrap on the total time instead of playing once.
    pub looping: bool,
    /// Which transforms the player writes.
    pub output: PoseOutput,
}

/// Each bone's name and world pose in engine axes, posed by the plugin.
pub fn pose(request: &Request) -> Vec<(String, Vec3, Quat)> {
    let absolute = |p: &Path| std::path::absolute(p).expect("a path").display().to_string();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin { unapproved_path_mode: UnapprovedPathMode::Allow, ..default() },
        TransformPlugin,
        Io3dPlugin::default(),
    ));
    let server = app.world().resource::<AssetServer>().clone();
    let repeat = if request.looping { RepeatMode::Loop } else { RepeatMode::Once };
    let mut player = AniPlayer::new(server.load(absolute(request.animation))).with_repeat(repeat);
    player.paused = true;
    let skeleton = SklRig::new(server.load(absolute(request.skeleton)));
    let rig = app.world_mut().spawn((skeleton, player, request.output)).id();
    while !app.world().get::<AniBinding>(rig).is_some_and(|b| b.is_bound()) {
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // Play to the time: the player's clock wraps or clamps it as it plays.
    app.world_mut().get_mut::<AniPlayer>(rig).expect("the player").seek(0.0);
    app.update();
    let mut player = app.world_mut().get_mut::<AniPlayer>(rig).expect("the player");
    player.paused = false;
    player.speed = request.at_ms;
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(std::time::Duration::from_millis(1)));
    app.update();
    let names = app.world().get::<RigBones>(rig).expect("spawned bones").0.clone();
    names
        .iter()
        .map(|&bone| {
            let name = app.world().get::<Name>(bone).expect("a named bone").as_str().to_owned();
            let (_, rotation, translation) =
                app.world().get::<GlobalTransform>(bone).expect("a posed bone").to_scale_rotation_translation();
            (name, Axes::EngineToBevy.position(translation), Axes::EngineToBevy.rotation(rotation))
        })
        .collect()
}

#[allow(dead_code, reason = "the tests include this file for `pose` alone")]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1));
    let (Some(animation), Some(skeleton), Some(at_ms)) = (args.first(), value("--skeleton"), value("--at-ms")) else {
        eprintln!("usage: headless_pose ANIM.ani --skeleton S.skl --at-ms T [--loop] [--crowd]");
        std::process::exit(2);
    };
    let Ok(at_ms) = at_ms.parse::<f32>() else {
        eprintln!("headless_pose: --at-ms {at_ms} is not a number");
        std::process::exit(2);
    };
    let looping = args.iter().any(|a| a == "--loop");
    let output = if args.iter().any(|a| a == "--crowd") { PoseOutput::GlobalTransform } else { PoseOutput::Transform };
    let request = Request { animation: Path::new(animation), skeleton: Path::new(skeleton), at_ms, looping, output };
    let bones: Vec<String> = pose(&request)
        .into_iter()
        .map(|(name, p, q)| {
            format!(
                "{{\"name\":{name:?},\"world_position\":[{},{},{}],\"world_rotation\":[{},{},{},{}]}}",
                p.x, p.y, p.z, q.x, q.y, q.z, q.w
            )
        })
        .collect();
    println!("{{\"at_ms\":{at_ms},\"bones\":[{}]}}", bones.join(","));
}
