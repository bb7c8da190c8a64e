//! A state machine as the game drives its characters: idle, walk and
//! attack, each change crossfaded the client's way (everything playing
//! fades out over 100 ms while the new clip fades in over 100 ms), and the
//! character moved through the level by its clips' root motion.
//!
//! Keys: hold W to walk, A and D to turn, Space to attack.
//!
//! Run: `cargo run --release --example state_machine`

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy::transform::TransformSystems;
use bevy_io3d::anim::InstanceId;
use bevy_io3d::anim::mixer::State as MixState;
use bevy_io3d::plugin::{GameFilesPlugin, Io3dSystems};
use bevy_io3d::prelude::*;

fn main() {
    App::new()
        .add_plugins((GameFilesPlugin::new("assets"), DefaultPlugins, Io3dPlugin::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, (steer, change_state).chain())
        // Root motion is known once the clips are posed: move the character
        // then, before Bevy propagates its transform.
        .add_systems(PostUpdate, walk_by_root_motion.after(Io3dSystems::Pose).before(TransformSystems::Propagate))
        .add_systems(PostUpdate, follow_with_camera.after(walk_by_root_motion).before(TransformSystems::Propagate))
        .add_systems(Update, draw_ground)
        .run();
}

/// Where the camera stays from the character (in front of it: the
/// characters face -Z).
const CAMERA_OFFSET: Vec3 = Vec3::new(250.0, 350.0, -550.0);

/// What the character is doing.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Idle,
    Walk,
    /// Attacking, with the action's instance.
    Attack(InstanceId),
}

/// The clips of each state.
#[derive(Resource)]
struct Clips {
    idle: Handle<AniClip>,
    walk: Handle<AniClip>,
    attack: Handle<AniClip>,
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera3d::default(),
        // Bevy is built without the tonemapping tables (`tonemapping_luts`).
        Tonemapping::None,
        Transform::from_translation(CAMERA_OFFSET).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 8000.0, ..default() },
        Transform::from_xyz(300.0, 300.0, -500.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    let clips = Clips {
        idle: assets.load("resource/animation/biped_idle_4002.ani"),
        walk: assets.load("resource/animation/biped_walk_4002.ani"),
        attack: assets.load("resource/animation/biped_attack_4002.ani"),
    };
    // The clips hold the root's travel; the game moves the entity instead.
    let mut player = AniPlayer::default().with_in_place(true);
    player.play_loop(clips.idle.clone(), Loop::default());
    commands.spawn((Io3dCharacter::new(assets.load("resource/model/animodel/biped.txt")), player, Mode::Idle));
    commands.insert_resource(clips);
    println!("W: walk   A/D: turn   Space: attack");
}

/// A and D turn the character.
fn steer(time: Res<Time>, keys: Res<ButtonInput<KeyCode>>, mut characters: Query<&mut Transform, With<Mode>>) {
    let turn = f32::from(keys.pressed(KeyCode::KeyA)) - f32::from(keys.pressed(KeyCode::KeyD));
    for mut place in &mut characters {
        place.rotate_y(turn * 2.0 * time.delta_secs());
    }
}

/// A state to change to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Idle,
    Walk,
    Attack,
}

/// The transitions: Space attacks from any state; once the attack fades
/// out, or when W is pressed or let go, the character walks or idles.
fn change_state(
    keys: Res<ButtonInput<KeyCode>>,
    clips: Res<Clips>,
    mut characters: Query<(&mut AniPlayer, &AniPlayback, &mut Mode)>,
) {
    for (mut player, playback, mut mode) in &mut characters {
        let change = match *mode {
            _ if keys.just_pressed(KeyCode::Space) => Change::Attack,
            Mode::Attack(id) if attacking(playback, id) => continue,
            Mode::Walk if keys.pressed(KeyCode::KeyW) => continue,
            Mode::Idle if !keys.pressed(KeyCode::KeyW) => continue,
            _ if keys.pressed(KeyCode::KeyW) => Change::Walk,
            _ => Change::Idle,
        };
        // The game's crossfade: what plays fades out, the new clip in.
        player.clear_all_actions(100.0, false);
        player.clear_all_loops(100.0, false);
        *mode = match change {
            Change::Idle => {
                player.play_loop(clips.idle.clone(), Loop::faded(100.0));
                Mode::Idle
            }
            Change::Walk => {
                player.play_loop(clips.walk.clone(), Loop::faded(100.0));
                Mode::Walk
            }
            Change::Attack => Mode::Attack(player.play_action(clips.attack.clone(), Action::faded(100.0, 100.0))),
        };
    }
}

/// Whether the attack still plays before its fade out (the plugin
/// started it when it last advanced the player).
fn attacking(playback: &AniPlayback, id: InstanceId) -> bool {
    playback.instance(id).is_some_and(|i| matches!(i.state(), MixState::Wait | MixState::FadeIn | MixState::Play))
}

/// Moves each character by its root's horizontal motion this frame, turned
/// with the character.
fn walk_by_root_motion(mut characters: Query<(&mut Transform, &RootMotion), With<Mode>>) {
    for (mut place, motion) in &mut characters {
        let step = Vec3::new(motion.delta.x, 0.0, motion.delta.z);
        let turned = place.rotation * step;
        place.translation += turned;
    }
}

/// The camera keeps its offset from the character.
fn follow_with_camera(
    characters: Query<&Transform, (With<Mode>, Without<Camera3d>)>,
    mut cameras: Query<&mut Transform, With<Camera3d>>,
) {
    let (Ok(character), Ok(mut camera)) = (characters.single(), cameras.single_mut()) else { return };
    *camera =
        Transform::from_translation(character.translation + CAMERA_OFFSET).looking_at(character.translation, Vec3::Y);
}

/// A grid on the ground, so that the walk shows.
fn draw_ground(mut gizmos: Gizmos) {
    let flat = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    gizmos.grid(Isometry3d::new(Vec3::ZERO, flat), UVec2::splat(60), Vec2::splat(100.0), Color::srgb(0.4, 0.4, 0.45));
}
