//! An io3D clip on any character: a glTF scene (a Mixamo or Blender
//! character, the crate's own export) loaded by bevy_gltf plays a clip made
//! on the game's Biped through `AniPlayer`, retargeted at run time
//! (`AniRetarget`, with a bone map suggested from the names), its travel
//! carried by the hips.
//!
//! - `cargo run --release --example any_rig -- SCENE.glb CLIP.ani --at-ms T
//!   [--skeleton SOURCE.skl]` plays to T ms with no window and prints JSON
//!   for every named node: `{"bones": [{"node", "track", "world_position"}]}`
//!   (Bevy's world axes, the scene at the origin; `track` names the clip's
//!   track that drives the node, or is null).
//! - Without `--at-ms` it opens a window with the character walking, its
//!   bones drawn as lines; `--screenshot OUT.png` saves the window once the
//!   character plays (held at `--at-ms` when given) and exits.
//!
//! The source skeleton defaults to the bundled `assets/biped.skl`.

use std::path::{Path, PathBuf};

use bevy::asset::{AssetPlugin, UnapprovedPathMode};
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::gltf::{Gltf, GltfPlugin};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::world_serialization::{WorldAssetRoot, WorldSerializationPlugin};
use bevy_io3d::plugin::{AniBinding, AniClip, AniPlayer, AniRetarget, Io3dPlugin};

/// What to play.
pub struct Request {
    /// The glTF scene.
    pub scene: PathBuf,
    /// The `.ani` clip.
    pub clip: PathBuf,
    /// The skeleton the clip was made on.
    pub skeleton: PathBuf,
    /// Play to this time and print the pose (or, with a screenshot, hold
    /// the window there).
    pub at_ms: Option<f32>,
    /// Save the window to this PNG once the character plays, and exit.
    pub screenshot: Option<PathBuf>,
}

fn main() {
    let request = match parse(std::env::args().skip(1).collect()) {
        Ok(request) => request,
        Err(why) => {
            eprintln!(
                "any_rig: {why}\nusage: any_rig SCENE.glb CLIP.ani [--at-ms T] [--skeleton SOURCE.skl] [--screenshot OUT.png]"
            );
            std::process::exit(2);
        }
    };
    match (request.at_ms, &request.screenshot) {
        (Some(at_ms), None) => println!("{}", headless_pose(&request, at_ms)),
        _ => windowed(request),
    }
}

fn parse(args: Vec<String>) -> Result<Request, String> {
    let mut paths = Vec::new();
    let (mut at_ms, mut screenshot) = (None, None);
    let mut skeleton = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/biped.skl");
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--at-ms" => {
                let value = args.next().ok_or("--at-ms needs a time")?;
                at_ms = Some(value.parse::<f32>().map_err(|e| format!("--at-ms {value}: {e}"))?);
            }
            "--skeleton" => skeleton = args.next().ok_or("--skeleton needs a file")?.into(),
            "--screenshot" => screenshot = Some(args.next().ok_or("--screenshot needs a file")?.into()),
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    let [scene, clip] = <[PathBuf; 2]>::try_from(paths).map_err(|_| "give a scene and a clip")?;
    Ok(Request { scene, clip, skeleton, at_ms, screenshot })
}

/// The path the asset server loads a file by.
fn asset_path(path: &Path) -> String {
    std::path::absolute(path).expect("a path").display().to_string()
}

/// Spawns the scene playing the clip retargeted, looping.
fn spawn(world: &mut World, request: &Request) -> Entity {
    let server = world.resource::<AssetServer>().clone();
    let gltf: Handle<Gltf> = server.load(asset_path(&request.scene));
    let player = AniPlayer::new(server.load(asset_path(&request.clip)));
    let retarget = AniRetarget::new(server.load(asset_path(&request.skeleton)));
    world.spawn((ScenePending(gltf), player, retarget)).id()
}

/// A scene root waiting for its glTF to load.
#[derive(Component)]
struct ScenePending(Handle<Gltf>);

fn start_scenes(mut commands: Commands, pending: Query<(Entity, &ScenePending)>, gltfs: Res<Assets<Gltf>>) {
    for (entity, ScenePending(gltf)) in &pending {
        let Some(scene) = gltfs.get(gltf).and_then(|g| g.default_scene.clone()) else { continue };
        commands.entity(entity).remove::<ScenePending>().insert(WorldAssetRoot(scene));
    }
}

/// A Bevy app that loads glTF scenes (through `assets`) and plays clips,
/// with no window and no renderer.
pub fn headless_app(assets: AssetPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        assets,
        TransformPlugin,
        bevy::mesh::MeshPlugin,
        bevy::image::ImagePlugin::default(),
        WorldSerializationPlugin,
        GltfPlugin::default(),
        Io3dPlugin::default(),
    ));
    app.init_asset::<StandardMaterial>();
    register_scene_types(&mut app);
    app.finish();
    app
}

/// The components Bevy's glTF scenes hold: spawning a scene copies them by
/// reflection, and without `DefaultPlugins` (and with this crate's few Bevy
/// features) nothing registers them.
pub fn register_scene_types(app: &mut App) {
    use bevy::animation::{AnimatedBy, AnimationTargetId};
    use bevy::camera::primitives::Aabb;
    use bevy::camera::visibility::{DynamicSkinnedMeshBounds, InheritedVisibility, ViewVisibility, VisibilityClass};
    use bevy::gltf::{GltfMaterialName, GltfMeshName, GltfSceneName};
    use bevy::mesh::skinning::SkinnedMesh;
    use bevy::transform::components::TransformTreeChanged;
    app.register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<TransformTreeChanged>()
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<VisibilityClass>()
        .register_type::<Name>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<Mesh3d>()
        .register_type::<MeshMaterial3d<StandardMaterial>>()
        .register_type::<SkinnedMesh>()
        .register_type::<DynamicSkinnedMeshBounds>()
        .register_type::<Aabb>()
        .register_type::<AnimationPlayer>()
        .register_type::<AnimationTargetId>()
        .register_type::<AnimatedBy>()
        .register_type::<GltfSceneName>()
        .register_type::<bevy::gltf::GltfSceneExtras>()
        .register_type::<GltfMeshName>()
        .register_type::<GltfMaterialName>();
}

/// Plays to `at_ms` and gives every named node's world position as JSON.
pub fn headless_pose(request: &Request, at_ms: f32) -> String {
    let mut app = headless_app(AssetPlugin { unapproved_path_mode: UnapprovedPathMode::Allow, ..default() });
    app.add_systems(Update, start_scenes);
    let root = spawn(app.world_mut(), request);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while driven_nodes(app.world(), root).is_empty() {
        assert!(std::time::Instant::now() < deadline, "the scene or the clip did not load");
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    app.world_mut().get_mut::<AniPlayer>(root).expect("the player").seek(at_ms);
    app.update();
    let mut names = app.world_mut().query::<(Entity, &Name, &GlobalTransform)>();
    let driven = driven_nodes(app.world(), root);
    let bones: Vec<String> = names
        .iter(app.world())
        .map(|(entity, name, global)| {
            let track = driven.iter().find(|(e, _)| *e == entity).map(|(_, t)| format!("{t:?}"));
            let [x, y, z] = global.translation().to_array();
            let track = track.unwrap_or_else(|| "null".into());
            format!("{{\"node\": {:?}, \"track\": {track}, \"world_position\": [{x}, {y}, {z}]}}", name.as_str())
        })
        .collect();
    format!("{{\"bones\": [{}]}}", bones.join(", "))
}

/// Each node a track of the main clip drives, with that track's name
/// (none before the scene and the clip are bound).
fn driven_nodes(world: &World, player: Entity) -> Vec<(Entity, String)> {
    match (world.get::<AniPlayer>(player), world.get::<AniBinding>(player)) {
        (Some(player), Some(binding)) => driven_by(player, binding, world.resource::<Assets<AniClip>>()),
        _ => Vec::new(),
    }
}

fn driven_by(player: &AniPlayer, binding: &AniBinding, clips: &Assets<AniClip>) -> Vec<(Entity, String)> {
    let main = player.clip.as_ref().map(Handle::id);
    let clip = main.and_then(|id| Some((id, clips.get(id)?)));
    clip.filter(|_| binding.is_bound()).map_or_else(Vec::new, |(id, clip)| binding.driven(id, clip))
}

fn windowed(request: Request) {
    let mut app = App::new();
    app.add_plugins((
        DefaultPlugins.set(AssetPlugin { unapproved_path_mode: UnapprovedPathMode::Allow, ..default() }),
        Io3dPlugin::default(),
    ));
    register_scene_types(&mut app);
    app.add_systems(Update, (start_scenes, draw_bones, hold_and_capture));
    // Bones drawn over the meshes.
    app.world_mut().resource_mut::<GizmoConfigStore>().config_mut::<DefaultGizmoConfigGroup>().0.depth_bias = -1.0;
    let root = spawn(app.world_mut(), &request);
    app.world_mut().entity_mut(root).insert(Transform::default());
    // No tonemapping: its default needs a Bevy feature this crate leaves
    // out (its lookup tables).
    let camera = Transform::from_xyz(2.0, 1.4, 3.0).looking_at(Vec3::Y * 0.9, Vec3::Y);
    app.world_mut().spawn((Camera3d::default(), Tonemapping::None, camera));
    app.world_mut()
        .spawn((DirectionalLight::default(), Transform::from_xyz(1.0, 3.0, 2.0).looking_at(Vec3::ZERO, Vec3::Y)));
    app.insert_resource(Shot { player: root, at_ms: request.at_ms, path: request.screenshot, frames: 0 });
    app.run();
}

/// The window's hold and capture: the player, the time to hold it at, and
/// where to save the picture.
#[derive(Resource)]
struct Shot {
    player: Entity,
    at_ms: Option<f32>,
    path: Option<PathBuf>,
    /// Frames since the character first played.
    frames: u32,
}

/// Frames a capture waits after the character plays, so that its meshes
/// and their skinning are on screen.
const SETTLE_FRAMES: u32 = 30;

/// Holds the player at the time asked for once it plays, and saves the
/// window after [`SETTLE_FRAMES`], then exits.
fn hold_and_capture(world: &mut World) {
    let player = world.resource::<Shot>().player;
    if driven_nodes(world, player).is_empty() {
        return;
    }
    let mut shot = world.resource_mut::<Shot>();
    shot.frames += 1;
    let (frames, at_ms, path) = (shot.frames, shot.at_ms, shot.path.clone());
    if frames == 1
        && let Some(at_ms) = at_ms
        && let Some(mut player) = world.get_mut::<AniPlayer>(player)
    {
        player.seek(at_ms);
        player.paused = true;
    }
    if frames == SETTLE_FRAMES
        && let Some(path) = path
    {
        world.spawn(Screenshot::primary_window()).observe(
            move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                match bevy_io3d::viewer::capture::save_png(&captured.image, &path) {
                    Ok(()) => {
                        info!("wrote {}", path.display());
                        exit.write(AppExit::Success);
                    }
                    Err(why) => {
                        error!("{why}");
                        exit.write(AppExit::error());
                    }
                }
            },
        );
    }
}

/// Each bone the clip drives, drawn as a line from its parent bone, over
/// the meshes.
fn draw_bones(
    mut gizmos: Gizmos,
    players: Query<(&AniPlayer, &AniBinding)>,
    clips: Res<Assets<AniClip>>,
    globals: Query<&GlobalTransform>,
) {
    for (player, binding) in &players {
        let driven: Vec<Entity> = driven_by(player, binding, &clips).into_iter().map(|(entity, _)| entity).collect();
        for (parent, bone) in binding.bone_links().filter(|(p, b)| driven.contains(p) && driven.contains(b)) {
            if let (Ok(from), Ok(to)) = (globals.get(parent), globals.get(bone)) {
                gizmos.line(from.translation(), to.translation(), Color::srgb(1.0, 0.8, 0.2));
            }
        }
    }
}
