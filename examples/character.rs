//! One character as a game has it: a model config gives the rig, the
//! meshes and the clips; the sword is equipment, taken off and put back
//! on; the clips' events reach the game (printed here), and the client's
//! mesh events show and hide meshes by themselves.
//!
//! Keys: Space attacks over the walk, E takes the sword off or puts it on.
//!
//! Run: `cargo run --release --example character`

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy_io3d::plugin::GameFilesPlugin;
use bevy_io3d::plugin::character::{Io3dMesh, ToonShaded};
use bevy_io3d::prelude::*;

fn main() {
    App::new()
        // The game's folders match names without case: the plugin's asset
        // source finds `Resource/Mesh/Biped_Sword.MSH` as the game would.
        .add_plugins((GameFilesPlugin::new("assets"), DefaultPlugins, Io3dPlugin::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, (attack, equip))
        .run();
}

/// The character and the sword it can wear.
#[derive(Resource)]
struct Hero {
    entity: Entity,
    sword: Handle<Io3dMesh>,
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    let look_at = Vec3::new(0.0, 90.0, 0.0);
    commands.spawn((
        Camera3d::default(),
        // Bevy is built without the tonemapping tables (`tonemapping_luts`).
        Tonemapping::None,
        Transform::from_xyz(160.0, 150.0, -300.0).looking_at(look_at, Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 8000.0, ..default() },
        Transform::from_xyz(300.0, 300.0, -500.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    // The config would start its first clip; this player walks on the
    // spot instead (the game moves the character by its root motion).
    let walk = AniPlayer::new(assets.load("resource/animation/biped_walk_4002.ani")).with_in_place(true);
    let entity = commands
        // Drawn as the game draws it: toon-shaded, with the scripts' outlines.
        .spawn((Io3dCharacter::new(assets.load("resource/model/animodel/biped.txt")), walk, ToonShaded::default()))
        .observe(|event: On<AniEventFired>| {
            // A game plays `event.sub_info` for a `motion_sound`, and so on.
            println!("{:>7.1} ms  {:?}  {}", event.time_ms, event.kind, event.sub_info);
        })
        .id();
    commands.insert_resource(Hero { entity, sword: assets.load("resource/mesh/biped_sword.msh") });
    println!("Space: attack   E: take the sword off or put it on");
}

/// Space plays the config's attack once over the walk, faded in and out
/// over 100 ms, as the game starts an action.
fn attack(
    keys: Res<ButtonInput<KeyCode>>,
    hero: Res<Hero>,
    models: Res<Assets<Io3dModel>>,
    mut characters: Query<(&Io3dCharacter, &mut AniPlayer)>,
) {
    if !keys.just_pressed(KeyCode::Space) {
        return;
    }
    let Ok((character, mut player)) = characters.get_mut(hero.entity) else { return };
    let Some(attack) = models.get(&character.model).and_then(|m| m.animation("biped_attack_4002")) else { return };
    player.clear_all_actions(100.0, false);
    player.play_action(attack.clone(), Action::faded(100.0, 100.0));
}

/// E takes the sword off the rig or puts it back on: equipment is a mesh
/// skinned to the rig's bones, added to or taken from its `RigMeshes`.
fn equip(keys: Res<ButtonInput<KeyCode>>, hero: Res<Hero>, mut meshes: Query<&mut RigMeshes>) {
    if !keys.just_pressed(KeyCode::KeyE) {
        return;
    }
    let Ok(mut meshes) = meshes.get_mut(hero.entity) else { return };
    if let Some(worn) = meshes.0.iter().position(|m| m.id() == hero.sword.id()) {
        meshes.0.remove(worn);
    } else {
        meshes.0.push(hero.sword.clone());
    }
}
