//! A crowd: hundreds of textured characters, each crossfading between its
//! clips on its own schedule, posed through the crowd path
//! ([`PoseOutput::GlobalTransform`]): their bones' world transforms are
//! written straight from the client's composition, over all cores, and
//! nothing is parented to their bones. Frame rates are logged.
//!
//! `--palette` draws them on the palette path ([`PoseOutput::Palette`]):
//! no bone entities, each character's meshes skinned on the GPU from its
//! slot of one slab uploaded once a frame. `--look` draws the game's look
//! (toon shading with the sample skin colour, and the outlines the
//! materials ask for). `--screenshot PATH` saves the window's picture
//! after 240 frames and exits.
//!
//! Run: `cargo run --release --example crowd -- [CHARACTERS] [--palette]
//! [--look] [--screenshot PATH]` (400 characters by default).

use bevy::camera::Projection;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::diagnostic::{FrameTimeDiagnosticsPlugin, LogDiagnosticsPlugin};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy_io3d::plugin::character::ToonShaded;
use bevy_io3d::plugin::{GameFilesPlugin, PoseOutput};
use bevy_io3d::prelude::*;

/// Room between two characters, in game units.
const SPACING: f32 = 120.0;

/// Frames before `--screenshot` takes its picture: the pipelines have
/// compiled by then, even under a software renderer.
const SCREENSHOT_FRAME: u32 = 240;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut crowd = Crowd { count: 400, output: PoseOutput::GlobalTransform, look: false, screenshot: None };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--palette" => crowd.output = PoseOutput::Palette,
            "--look" => crowd.look = true,
            "--screenshot" => crowd.screenshot = args.next().cloned(),
            count => match count.parse() {
                Ok(count) => crowd.count = count,
                Err(_) => {
                    eprintln!(
                        "{count}: neither a number of characters nor an option\nusage: crowd [CHARACTERS] [--palette] [--look] [--screenshot PATH]"
                    );
                    std::process::exit(2);
                }
            },
        }
    }
    App::new()
        .add_plugins((GameFilesPlugin::new("assets"), DefaultPlugins, Io3dPlugin::default()))
        .add_plugins((FrameTimeDiagnosticsPlugin::default(), LogDiagnosticsPlugin::default()))
        .insert_resource(crowd)
        .add_systems(Startup, setup)
        .add_systems(Update, (change_clips, screenshot))
        .run();
}

/// What to spawn and how to draw it.
#[derive(Resource)]
struct Crowd {
    count: usize,
    output: PoseOutput,
    look: bool,
    screenshot: Option<String>,
}

/// Saves the window's picture after [`SCREENSHOT_FRAME`] frames, and exits
/// once it is written.
fn screenshot(mut commands: Commands, crowd: Res<Crowd>, mut frame: Local<u32>) {
    let Some(path) = &crowd.screenshot else { return };
    *frame += 1;
    if *frame == SCREENSHOT_FRAME {
        let path = path.clone();
        commands.spawn(Screenshot::primary_window()).observe(
            move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                save_to_disk(path.clone())(captured);
                exit.write(AppExit::Success);
            },
        );
    }
}

/// The clips the crowd switches between.
#[derive(Resource)]
struct Clips([Handle<AniClip>; 3]);

fn setup(mut commands: Commands, assets: Res<AssetServer>, crowd: Res<Crowd>) {
    let side = (crowd.count as f32).sqrt().ceil() as usize;
    let extent = side as f32 * SPACING;
    commands.spawn((
        Camera3d::default(),
        // Bevy is built without the tonemapping tables (`tonemapping_luts`).
        Tonemapping::None,
        // The crowd spans thousands of units: a far plane beyond it.
        Projection::from(PerspectiveProjection { far: extent * 4.0, ..default() }),
        Transform::from_xyz(0.0, extent * 0.6, -extent * 0.9).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 8000.0, ..default() },
        Transform::from_xyz(300.0, 300.0, -500.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    let clips = ["idle", "walk", "attack"].map(|c| assets.load(format!("resource/animation/biped_{c}_4002.ani")));
    let model = assets.load("resource/model/animodel/biped.txt");
    for i in 0..crowd.count {
        let (row, column) = ((i / side) as f32, (i % side) as f32);
        let place = Vec3::new(column - side as f32 / 2.0, 0.0, row - side as f32 / 2.0) * SPACING;
        // Each from its own time, so that the crowd does not march in step.
        let mut player = AniPlayer::default().with_in_place(true);
        player.play_loop(clips[i % 2].clone(), Loop { start_ms: Some((i * 37 % 1000) as f32), ..default() });
        let mut character = commands.spawn((
            Io3dCharacter::new(model.clone()),
            player,
            crowd.output,
            Transform::from_translation(place).with_rotation(Quat::from_rotation_y(i as f32)),
        ));
        if crowd.look {
            character.insert(ToonShaded { skin: Some(ToonShaded::SAMPLE_SKIN), ..default() });
        }
    }
    commands.insert_resource(Clips(clips));
}

/// Every frame a few characters change clip, crossfading over 100 ms as
/// the game does: each changes about every two seconds.
fn change_clips(time: Res<Time>, clips: Res<Clips>, mut players: Query<&mut AniPlayer>) {
    let frame = (time.elapsed_secs() * 60.0) as usize;
    for (i, mut player) in players.iter_mut().enumerate() {
        if !(i + frame).is_multiple_of(120) {
            continue;
        }
        player.clear_all_actions(100.0, false);
        player.clear_all_loops(100.0, false);
        match (i + frame / 120) % 3 {
            2 => {
                player.play_action(clips.0[2].clone(), Action { hold_last_frame: true, ..Action::faded(100.0, 100.0) })
            }
            clip => player.play_loop(clips.0[clip].clone(), Loop::faded(100.0)),
        };
    }
}
