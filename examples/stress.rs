//! Stress: N characters of the game's size (the Biped with fingers, 52
//! bones), each playing a loop 20 s long at 100 keys a second from its own
//! time, and every few seconds crossfading to an action over it and back
//! (clear with 100 ms fades, start with 100 ms fades), as the game changes
//! state, with events observed. Prints the CPU time of a frame (mean and
//! 99th percentile over 300 frames): the clips' clocks, the blend,
//! events, transform propagation and scheduling, without drawing. The app
//! gives every core to Bevy's compute pool (its default leaves one thread
//! on two cores) and the clips are written and read back as 4002 files,
//! so that their keys decode when sampled as a game's do.
//!
//! Run: `cargo run --release --no-default-features --features plugin
//! --example stress -- 1000` (one count), or with no count, doubling from
//! 250 until a frame no longer fits in 16.7 ms, to find the largest N that
//! holds 60 frames a second. (Without `--no-default-features` the viewer's
//! renderer is built in release too, for nothing.)
//!
//! `--still` spawns the same characters with no player: the baseline
//! (the hierarchy, propagation and scheduling) that the work of a player
//! is measured above.
//!
//! `--crowd` poses through the crowd path ([`PoseOutput::GlobalTransform`]):
//! bones' world transforms written straight, over all cores. `--moving`
//! walks every character's entity a little each frame, as a game moves
//! them, so that Bevy propagates every bone again.
//!
//! `--lod=N` gives every player a level of detail ([`AniLod`]): its clips
//! posed every N frames, its bones interpolated in between (players
//! spread over the frames).
//!
//! `--palette` poses through the palette path ([`PoseOutput::Palette`]):
//! no bone entities at all, each character's skinning matrices written
//! into its slot of one frame-wide slab ([`SkinPalettes`]), the slab a
//! renderer uploads whole.
//!
//! `--bevy` plays the same clips on the same rigs with Bevy's own
//! `AnimationPlayer` instead (the clips exported by
//! [`to_bevy_clip`], crossfaded by `AnimationTransitions` on the same
//! schedule, their events observed as [`AniClipEvent`]s): the baseline
//! the crate's paths are measured against.
//!
//! `--meshes` (with `--features characters`) dresses every character in
//! four skinned meshes, the bundled body three times and its sword (1,788
//! vertices, 52 bones), with bounds that follow the joints: the frame then
//! also updates those bounds and the meshes' visibility and transforms.
//! Drawing is not measured (no renderer runs): this is the main world's
//! CPU work, as a game's is before its render world extracts.
//!
//! Each line ends with the bytes of skinning matrices a frame hands to the
//! GPU, reckoned, since no renderer runs here: on the palette path the
//! slab's size (its render world writes the slab whole each frame, and
//! counts it in `PaletteDrawing::uploaded`); on the others, with
//! `--meshes`, what Bevy's skinning uploads for the `SkinnedMesh`es (64
//! bytes a joint of each mesh entity, as Bevy writes its whole joint
//! buffer every frame); without meshes, none.

use std::time::{Duration, Instant};

use bevy::animation::graph::{AnimationGraph, AnimationGraphHandle, AnimationNodeIndex};
use bevy::animation::{AnimationClip, AnimationPlayer, transition::AnimationTransitions};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_io3d::anim::{Action, Loop, Rig};
use bevy_io3d::format::Animation;
use bevy_io3d::format::{Event, FileString};
use bevy_io3d::plugin::{
    AniClip, AniClipEvent, AniEventFired, AniLod, AniPlayer, Axes, ClipSpace, Io3dPlugin, PoseOutput, SkinPalettes,
    SklRig, SklSkeleton, to_bevy_clip,
};

#[path = "../benches/common/mod.rs"]
mod common;

#[cfg(feature = "characters")]
#[path = "make_samples/character.rs"]
#[allow(dead_code)]
mod character;

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

/// The same two clips as nodes of one Bevy animation graph (`--bevy`).
#[derive(Resource)]
struct BevyNodes(AnimationNodeIndex, AnimationNodeIndex);

/// Whether character `i` changes state on `frame`, and to the action.
fn change(i: usize, frame: usize) -> Option<bool> {
    (i + frame).is_multiple_of(CHANGE_EVERY).then(|| ((i + frame) / CHANGE_EVERY).is_multiple_of(2))
}

/// Every frame some characters change state, spread over the frames.
fn change_states(mut frame: Local<usize>, clips: Res<Clips>, mut players: Query<&mut AniPlayer>) {
    *frame += 1;
    for (i, mut player) in players.iter_mut().enumerate() {
        let Some(to_action) = change(i, *frame) else { continue };
        player.clear_all_actions(100.0, false);
        if to_action {
            player.play_action(clips.1.clone(), Action { hold_last_frame: true, ..Action::faded(100.0, 100.0) });
        } else {
            player.clear_all_loops(100.0, false);
            player.play_loop(clips.0.clone(), Loop::faded(100.0));
        }
    }
}

/// [`change_states`] for Bevy's player: the same changes on the same
/// frames, crossfaded over 100 ms by `AnimationTransitions`.
fn change_bevy_states(
    mut frame: Local<usize>,
    nodes: Res<BevyNodes>,
    mut players: Query<(&mut AnimationPlayer, &mut AnimationTransitions)>,
) {
    *frame += 1;
    let fade = Duration::from_millis(100);
    for (i, (mut player, mut transitions)) in players.iter_mut().enumerate() {
        match change(i, *frame) {
            Some(true) => {
                transitions.play(&mut player, nodes.1, fade);
            }
            Some(false) => {
                transitions.play(&mut player, nodes.0, fade).repeat();
            }
            None => {}
        }
    }
}

/// Bevy's player on a character, its graph's walk looping from `at_ms`.
fn bevy_player(nodes: &BevyNodes, at_ms: f32) -> (AnimationPlayer, AnimationTransitions) {
    let (mut player, mut transitions) = (AnimationPlayer::default(), AnimationTransitions::new());
    transitions.play(&mut player, nodes.0, Duration::ZERO).repeat().seek_to(at_ms / 1000.0);
    (player, transitions)
}

/// The clips exported for Bevy's player, as one graph (`--bevy`).
fn bevy_graph(app: &mut App, clips: [&Animation; 2]) -> (Handle<AnimationGraph>, BevyNodes) {
    let space = ClipSpace::new(Axes::default());
    let clips = clips.map(|clip| {
        let exported = to_bevy_clip(clip, &clip.events, &space);
        app.world_mut().resource_mut::<Assets<AnimationClip>>().add(exported)
    });
    let (graph, nodes) = AnimationGraph::from_clips(clips);
    (app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph), BevyNodes(nodes[0], nodes[1]))
}

/// Moves every character a little, as a game moves them.
fn walk_characters(mut characters: Query<&mut Transform, With<SklRig>>) {
    for mut place in &mut characters {
        place.translation.x += 0.01;
    }
}

/// What a run measures.
#[derive(Debug, Clone, Copy, Default)]
struct Options {
    meshes: bool,
    still: bool,
    crowd: bool,
    palette: bool,
    moving: bool,
    /// Bevy's own player instead of ours.
    bevy: bool,
    /// Pose each player's clips every this many frames.
    lod: u32,
}

/// Makes the meshes every character wears (see the module docs).
#[cfg(feature = "characters")]
fn wardrobe(app: &mut App, skeleton: &bevy_io3d::format::Skeleton) -> bevy_io3d::plugin::character::RigMeshes {
    use bevy::ecs::system::SystemState;
    use bevy_io3d::format::MaterialScript;
    use bevy_io3d::plugin::character::CharacterStores;
    app.add_plugins((
        bevy::mesh::MeshPlugin,
        bevy::image::ImagePlugin::default(),
        bevy::camera::visibility::VisibilityPlugin,
    ))
    .init_asset::<StandardMaterial>();
    let mut state: SystemState<CharacterStores> = SystemState::new(app.world_mut());
    let mut stores = state.get_mut(app.world_mut()).expect("the mesh stores");
    let script = MaterialScript::parse(b"material Body\n{\n technique\n {\n  pass\n  {\n  }\n }\n}\n").ok();
    let mut add = |name: &str, mesh| stores.add_mesh(name, mesh, script.clone(), |_| Err("none".into())).0;
    let (body, sword) = (add("body", character::body(skeleton)), add("sword", character::sword(skeleton)));
    bevy_io3d::plugin::character::RigMeshes(vec![body.clone(), body.clone(), body, sword])
}

/// The palette's GPU copy as a game with a renderer has it, for the
/// palette path's meshes (`--meshes`): their slots and bounds are kept as
/// there. No renderer writes the slab here.
#[cfg(feature = "characters")]
fn palette_upload(app: &mut App) {
    use bevy_io3d::plugin::character::{PaletteDrawing, PaletteMaterial};
    app.init_asset::<bevy::render::storage::ShaderBuffer>()
        .init_asset::<PaletteMaterial>()
        .init_resource::<PaletteDrawing>();
}

fn app(characters: usize, options: Options) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(common::cores::all_cores()),
        AssetPlugin::default(),
        TransformPlugin,
        Io3dPlugin::default(),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME_BUDGET))
    .init_resource::<EventsFired>()
    .add_systems(Update, change_states)
    .add_systems(Update, change_bevy_states.run_if(resource_exists::<BevyNodes>))
    .add_systems(Update, walk_characters.run_if(move || options.moving))
    .add_observer(|_: On<AniEventFired>, mut fired: ResMut<EventsFired>| fired.0 += 1)
    .add_observer(|_: On<AniClipEvent>, mut fired: ResMut<EventsFired>| fired.0 += 1);
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
    let bevy = options.bevy.then(|| bevy_graph(&mut app, [&walk, &attack]));
    #[cfg(feature = "characters")]
    let wardrobe = options.meshes.then(|| wardrobe(&mut app, &skeleton));
    #[cfg(feature = "characters")]
    if options.palette {
        palette_upload(&mut app);
    }
    let skeleton = app.world_mut().resource_mut::<Assets<SklSkeleton>>().add(SklSkeleton { skeleton, rig });
    let mut add = |animation| app.world_mut().resource_mut::<Assets<AniClip>>().add(AniClip::new(animation));
    let clips = Clips(add(walk), add(attack));
    for i in 0..characters {
        let mut player = AniPlayer::default();
        player.play_loop(clips.0.clone(), Loop::default());
        player.seek((i * 37 % 20_000) as f32);
        let place = Transform::from_xyz((i % 50) as f32 * 100.0, 0.0, (i / 50) as f32 * 100.0);
        let output = match (options.crowd, options.palette) {
            (true, _) => PoseOutput::GlobalTransform,
            (_, true) => PoseOutput::Palette,
            _ => PoseOutput::Transform,
        };
        let mut character = app.world_mut().spawn((SklRig::new(skeleton.clone()), place));
        match &bevy {
            Some((graph, nodes)) => {
                character.insert((bevy_player(nodes, (i * 37 % 20_000) as f32), AnimationGraphHandle(graph.clone())));
            }
            None if !options.still => {
                character.insert((player, output));
            }
            None => {}
        }
        if options.lod > 1 {
            character.insert(AniLod::every(options.lod));
        }
        #[cfg(feature = "characters")]
        if let Some(wardrobe) = &wardrobe {
            character.insert(wardrobe.clone());
        }
        #[cfg(not(feature = "characters"))]
        let _ = &mut character;
    }
    app.insert_resource(clips);
    if let Some((_, nodes)) = bevy {
        app.insert_resource(nodes);
    }
    // Spawn the bones and meshes and bind the players before measuring.
    app.update();
    app.update();
    app.update();
    #[cfg(feature = "characters")]
    if let Some(wardrobe) = &wardrobe {
        let mut parts = app.world_mut().query::<&bevy_io3d::plugin::character::MeshPart>();
        assert_eq!(parts.iter(app.world()).count(), characters * wardrobe.0.len(), "every mesh is on");
    }
    app
}

/// The bytes of skinning matrices a frame hands to the GPU (see the
/// module docs).
fn uploaded(app: &mut App) -> usize {
    let slab = size_of_val(app.world().resource::<SkinPalettes>().matrices());
    let mut skins = app.world_mut().query::<&bevy::mesh::skinning::SkinnedMesh>();
    slab + skins.iter(app.world()).map(|skin| skin.joints.len() * 64).sum::<usize>()
}

/// Mean and 99th percentile frame time for `characters`, the events fired
/// and the bytes uploaded a frame.
fn measure(characters: usize, options: Options) -> (Duration, Duration, u64, usize) {
    let mut app = app(characters, options);
    let mut times: Vec<Duration> = (0..FRAMES)
        .map(|_| {
            let start = Instant::now();
            app.update();
            start.elapsed()
        })
        .collect();
    times.sort();
    let mean = times.iter().sum::<Duration>() / FRAMES as u32;
    (mean, times[FRAMES * 99 / 100], app.world().resource::<EventsFired>().0, uploaded(&mut app))
}

fn report(characters: usize, options: Options) -> bool {
    let (mean, p99, events, bytes) = measure(characters, options);
    let fits = p99 <= FRAME_BUDGET;
    println!(
        "{characters:>6} characters: mean {:>6.2} ms, p99 {:>6.2} ms, {events} events in {FRAMES} frames, uploaded {bytes} bytes a frame  {}",
        mean.as_secs_f64() * 1000.0,
        p99.as_secs_f64() * 1000.0,
        if fits { "holds 60 fps" } else { "over 16.7 ms" }
    );
    fits
}

const USAGE: &str =
    "usage: stress [--still | --crowd | --palette | --bevy] [--moving] [--lod=N] [--meshes] [CHARACTERS]";

/// The options and the count, or what is wrong with the arguments: a
/// flag it does not know is refused, never measured as the default path.
fn parse(args: &[String]) -> Result<(Options, Option<usize>), String> {
    let mut options = Options { lod: 1, ..Options::default() };
    let mut count = None;
    for arg in args {
        match arg.as_str() {
            "--meshes" => options.meshes = true,
            "--still" => options.still = true,
            "--crowd" => options.crowd = true,
            "--palette" => options.palette = true,
            "--moving" => options.moving = true,
            "--bevy" => options.bevy = true,
            flag if flag.starts_with("--lod=") => {
                let frames = flag["--lod=".len()..].parse::<u32>().ok().filter(|n| *n > 0);
                options.lod = frames.ok_or_else(|| format!("{flag}: --lod=N needs a whole number of frames"))?;
            }
            flag if flag.starts_with('-') => return Err(format!("{flag}: no such option")),
            n => count = Some(n.parse::<usize>().map_err(|_| format!("{n}: not a number of characters"))?),
        }
    }
    if [options.still, options.crowd, options.palette, options.bevy].into_iter().filter(|&on| on).count() > 1 {
        return Err("--still, --crowd, --palette and --bevy each choose what plays: give one".into());
    }
    if options.bevy && options.lod > 1 {
        return Err("--lod=N is the crate's level of detail: Bevy's player (--bevy) has none".into());
    }
    if options.meshes && !cfg!(feature = "characters") {
        return Err("--meshes needs --features characters".into());
    }
    Ok((options, count))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (options, count) = parse(&args).unwrap_or_else(|error| {
        eprintln!("{error}\n{USAGE}");
        std::process::exit(2)
    });
    match count {
        Some(characters) => {
            report(characters, options);
        }
        None => {
            // Double until a frame misses the budget, then halve the gap.
            let (mut low, mut high) = (0, 250);
            while report(high, options) {
                low = high;
                high *= 2;
            }
            while high - low > high / 16 {
                let middle = (low + high) / 2;
                if report(middle, options) { low = middle } else { high = middle }
            }
            println!("largest N that holds 60 fps here: about {low}");
        }
    }
}
