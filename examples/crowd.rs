//! A crowd: hundreds of textured characters, each crossfading between its
//! clips on its own schedule, posed through the crowd path
//! ([`PoseOutput::GlobalTransform`]): their bones' world transforms are
//! written straight from the client's composition, over all cores, and
//! nothing is parented to their bones. Frame rates are logged.
//!
//! Run: `cargo run --release --example crowd -- [CHARACTERS]` (400 by
//! default).

use bevy::camera::Projection;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::diagnostic::{FrameTimeDiagnosticsPlugin, LogDiagnosticsPlugin};
use bevy::prelude::*;
use bevy_io3d::plugin::{GameFilesPlugin, PoseOutput};
use bevy_io3d::prelude::*;

/// Room between two characters, in game units.
const SPACING: f32 = 120.0;

fn main() {
    let count = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(400);
    App::new()
        .add_plugins((GameFilesPlugin::new("assets"), DefaultPlugins, Io3dPlugin::default()))
        .add_plugins((FrameTimeDiagnosticsPlugin::default(), LogDiagnosticsPlugin::default()))
        .insert_resource(Crowd(count))
        .add_systems(Startup, setup)
        .add_systems(Update, change_clips)
        .run();
}

/// How many characters to spawn.
#[derive(Resource)]
struct Crowd(usize);

/// The clips the crowd switches between.
#[derive(Resource)]
struct Clips([Handle<AniClip>; 3]);

fn setup(mut commands: Commands, assets: Res<AssetServer>, crowd: Res<Crowd>) {
    let side = (crowd.0 as f32).sqrt().ceil() as usize;
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
    for i in 0..crowd.0 {
        let (row, column) = ((i / side) as f32, (i % side) as f32);
        let place = Vec3::new(column - side as f32 / 2.0, 0.0, row - side as f32 / 2.0) * SPACING;
        // Each from its own time, so that the crowd does not march in step.
        let mut player = AniPlayer::default().with_in_place(true);
        player.play_loop(clips[i % 2].clone(), Loop { start_ms: Some((i * 37 % 1000) as f32), ..default() });
        commands.spawn((
            Io3dCharacter::new(model.clone()),
            player,
            PoseOutput::GlobalTransform,
            Transform::from_translation(place).with_rotation(Quat::from_rotation_y(i as f32)),
        ));
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
