//! The Bevy plugin: `.ani` and `.skl` files as assets, rigs spawned from
//! skeletons, and the client's controller on them, bound to bones by name:
//! actions and loops with fades and weights, in milliseconds. With feature
//! `characters`, whole characters too (module `character`).
//!
//! This is the guide; `docs/plugin.md` in the repository goes into each
//! part further. The README's example, compiled here:
//!
//! ```no_run
//! use bevy::input::common_conditions::input_just_pressed;
//! use bevy::prelude::*;
//! use bevy_io3d::prelude::*;
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((DefaultPlugins, Io3dPlugin::default()))
//!         .add_systems(Startup, setup)
//!         .add_systems(Update, punch.run_if(input_just_pressed(KeyCode::Space)))
//!         .run();
//! }
//!
//! fn setup(mut commands: Commands, assets: Res<AssetServer>) {
//!     // The one-line case: loop one clip.
//!     commands
//!         .spawn((SklRig::new(assets.load("biped.skl")), AniPlayer::new(assets.load("biped_walk_4002.ani"))))
//!         .observe(|event: On<AniEventFired>| info!("{:?} {} at {} ms", event.kind, event.sub_info, event.time_ms));
//! }
//!
//! // As the game changes state: everything out over 100 ms, the punch in
//! // over 100 ms, held on its last frame.
//! fn punch(mut players: Query<&mut AniPlayer>, assets: Res<AssetServer>) {
//!     for mut player in &mut players {
//!         player.clear_all_actions(100.0, false);
//!         player.clear_all_loops(100.0, false);
//!         let action = Action { hold_last_frame: true, ..Action::faded(100.0, 100.0) };
//!         player.play_action(assets.load("biped_attack_4002.ani"), action);
//!     }
//! }
//! ```
//!
//! - **What a game writes**: [`AniPlayer`], and only that. Its transport
//!   (`clip`, `repeat`, `speed`, `paused`, [`AniPlayer::seek`]) plays one
//!   clip; its calls are the client's controller's
//!   ([`AniPlayer::play_action`], [`AniPlayer::play_loop`], the clears,
//!   [`AniPlayer::force_weight`], ...), recorded and made when the plugin
//!   next advances the player, this frame for a call made in `Update`.
//!   `Changed<AniPlayer>` means the game asked for something.
//! - **What a game reads**: [`AniPlayback`] (each playing clip's time,
//!   weight and state, under the id its call returned), [`RootMotion`]
//!   (the root's step and turn this frame, after [`Io3dSystems::Pose`]),
//!   [`AniBinding`] (what bound, what did not) and the events,
//!   [`AniEventFired`] (a typed [`AniEvent`]: match on its `kind`) and
//!   [`AniClipEnded`], triggered on the player's entity for observers.
//! - **Where poses go**: [`PoseOutput`] picks the path. `Transform` (the
//!   default) writes each bone's local `Transform`, so that anything
//!   parented to a bone follows; `GlobalTransform` writes world
//!   transforms after Bevy's propagation, for crowds; `Palette` spawns no
//!   bone entities and writes each player's skinning matrices into its
//!   slot of one slab ([`SkinPalettes`]), with [`AniSocket`]s and
//!   [`PaletteBones`] for what a game hangs on or asks of a bone.
//!   [`AniLod`] poses a far player every few frames and interpolates
//!   between.
//! - **Which rigs**: any hierarchy of named entities. A [`SklRig`] spawns
//!   the engine's skeleton; a glTF scene binds by its node names;
//!   [`AniRetarget`] plays the engine's clips on another skeleton (a
//!   Mixamo or Blender character) by a bone map, suggested or read from a
//!   file ([`AniBoneMap`]).
//! - **Bevy's own player**: every loaded [`AniClip`] also carries a Bevy
//!   `AnimationClip` ([`to_bevy_clip`]), for games that drive
//!   `AnimationPlayer` themselves.
//!
//! Systems, all in `PostUpdate`, in the sets of [`Io3dSystems`] (the first
//! four chained, inside Bevy's `AnimationSystems`, after
//! `AssetEventSystems` and before `TransformSystems::Propagate`;
//! `WorldPose` after it):
//!
//! | set | system | what it does |
//! |---|---|---|
//! | `Spawn` | `character::spawn::dress_characters` (feature `characters`) | gives each `Io3dCharacter` its rig, meshes and player once its config loads |
//! | `Spawn` | `rig::spawn_rigs` | spawns the bones of each loaded [`SklRig`] (none on the palette path), again when its file, axes or path changes |
//! | `Spawn` | `character::spawn::skin_meshes` (feature `characters`) | spawns each rig's `RigMeshes` as skinned parts on its bones (on the palette path, parts that skin from its slot), again when they change |
//! | `Bind` | `binder::bind_players` | finds each player's named descendants (none below a nested player; on the palette path, its skeleton's bones), binds each clip it plays to them, again when a clip, its file or the hierarchy changes, and marks the bones it writes with [`Io3dBone`] |
//! | `Advance` | `advance::advance_players` | moves each player's clips by the frame's time in ms, by the client's rules, and triggers [`AniEventFired`] for the events passed |
//! | `Advance` | `lod::lod_by_distance` | sets each [`AniLod`] by its player's distance to the nearest [`AniLodFocus`], where there is one |
//! | `Pose` | `evaluate::pose_players` | blends the clips per bone as the client does (on the frames its [`AniLod`] skips, interpolates its last two poses), over all cores, into each player's [`LocalPoses`] (a skeleton's bones at rest where nothing plays) and fills [`RootMotion`] |
//! | `Pose`, after it | `write::write_local_poses` | copies those poses into the local transforms of the players' bones ([`Io3dBone`]), over all cores |
//! | `Pose` | `evaluate::pose_world` | the same for players that write [`PoseOutput::GlobalTransform`] or [`PoseOutput::Palette`], over all cores: each bone's pose relative to the player, composed by the client's arithmetic, into [`ModelPoses`], and for a palette player its skinning matrices (model pose after the stored inverse bind) into its slot of [`SkinPalettes`] |
//! | `Pose`, before `pose_world` | `skinning::assign_slots` | gives each bound player on [`PoseOutput::Palette`] a [`PaletteSlot`] of as many matrices as it has bones |
//! | `Pose`, after `pose_world` | `socket::place_sockets` | moves each [`AniSocket`] to its bone's model pose |
//! | `WorldPose` (after `TransformSystems::Propagate`) | `world_pose::write_world_poses` | writes those players' bones' `GlobalTransform`s: the player's own times the bone's model pose |
//! | after `Pose` | `character::upload::size_palette_buffer`, `character::palette::follow_slots` (feature `characters`, with a renderer) | sizes the slab's GPU copy when the slab changed size, and gives each palette character's parts its slot (`MeshTag`) and bounds around its root bone |
//! | `ExtractSchedule` of the render app | `character::upload::write_palettes` (feature `characters`, with a renderer) | writes the whole slab straight into its GPU copy (one write a frame, no copy on the way, counted) |
//! | after `Advance`, before `Pose` | `character::events::show_meshes` (feature `characters`) | hides and shows each rig's meshes as its clips' mesh events left them (an observer of [`AniEventFired`] keeps each rig's `HiddenMeshes`) |
//!
//! "Over all cores" means over Bevy's `ComputeTaskPool`, which Bevy's
//! default pools give a single thread on a machine of three cores or
//! fewer (a quarter of the cores goes to I/O and a quarter to async work,
//! at least one thread each): there every such pass runs on one core. A
//! game that poses crowds there gives compute every core through
//! `TaskPoolPlugin` (`docs/plugin.md`'s "Cores" shows how).
//!
//! Read [`RootMotion`] after `Io3dSystems::Pose` (or in `Update` of the
//! next frame, a frame late): it is filled there.
//!
//! Add the plugin after `DefaultPlugins`: it adds Bevy's `AnimationPlugin`
//! only when it is missing, for the exported [`AnimationClip`] sub-assets.

mod advance;
mod assets;
mod axes;
mod binder;
mod binding;
mod by_player;
#[cfg(feature = "characters")]
pub mod character;
mod compose;
mod evaluate;
mod export;
// A reader of a folder on disk: in a browser there is none (Bevy's web
// source fetches paths from the page's server as they are written).
#[cfg(not(target_arch = "wasm32"))]
mod game_files;
mod lod;
mod palette;
mod player;
mod retarget;
mod rig;
mod skinning;
mod socket;
mod world_pose;
mod write;

use bevy::animation::{AnimationClip, AnimationPlugin};
use bevy::app::{AnimationSystems, App, Plugin, PostUpdate};
use bevy::asset::{AssetApp, AssetEventSystems};
use bevy::ecs::schedule::{IntoScheduleConfigs, SystemSet};
use bevy::transform::TransformSystems;

pub use assets::{
    AniClip, AniEvent, AniLoader, AniLoaderSettings, Io3dAssetLabel, Io3dLoadError, SklLoader, SklSkeleton,
};
pub use axes::Axes;
pub use binding::{AniBinding, ClipBinding, FileBoneName, Io3dBone};
pub use export::{AniClipEvent, BevyTargets, ClipSpace, TargetIds, bone_target, to_bevy_clip};
#[cfg(not(target_arch = "wasm32"))]
pub use game_files::{GameFileReader, GameFilesPlugin};
pub use lod::{AniLod, AniLodFocus};
pub use palette::{PaletteMatrix, PaletteSlot, SkinPalettes, palette_affine, palette_joints};
pub use player::{AniClipEnded, AniEventFired, AniPlayback, AniPlayer, LocalPoses, ModelPoses, PoseOutput, RootMotion};
pub use retarget::{AniBoneMap, AniRetarget, BoneMapLoader, RetargetMap, RetargetedClips};
pub use rig::{BoneRest, RigBones, SklRig};
pub use socket::{AniSocket, PaletteBones};

/// Registers the `.ani` and `.skl` assets and the player's systems.
#[derive(Debug, Clone, Default)]
pub struct Io3dPlugin {
    /// The axes `.ani` loads export Bevy clips in, unless a load's
    /// [`AniLoaderSettings`] say otherwise.
    pub axes: Axes,
}

/// The plugin's system sets, in the order they run in `PostUpdate`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Io3dSystems {
    /// Rigs get their bones.
    Spawn,
    /// Players bind tracks to bones.
    Bind,
    /// Clocks advance; events fire.
    Advance,
    /// Bones are posed; root motion is reported.
    Pose,
    /// After Bevy's transform propagation: the `GlobalTransform`s of the
    /// bones of players that write [`PoseOutput::GlobalTransform`].
    WorldPose,
}

impl Plugin for Io3dPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<AnimationPlugin>() {
            app.add_plugins(AnimationPlugin);
        }
        debug_assert!(app.world().contains_resource::<bevy::asset::Assets<AnimationClip>>());
        app.init_asset::<AniClip>()
            .init_asset::<SklSkeleton>()
            .register_asset_loader(AniLoader { axes: self.axes })
            .register_type::<AniPlayer>()
            .register_type::<RootMotion>()
            .register_type::<SklRig>()
            .register_type::<RigBones>()
            .register_type::<BoneRest>()
            .register_type::<AniBinding>()
            .register_type::<Io3dBone>()
            .register_type::<FileBoneName>()
            .register_type::<AniRetarget>()
            .init_resource::<RetargetedClips>()
            .init_resource::<SkinPalettes>()
            .register_type::<rig::RigSource>()
            .register_type::<PoseOutput>()
            .register_type::<ModelPoses>()
            .register_type::<LocalPoses>()
            .register_type::<AniLod>()
            .register_type::<AniLodFocus>()
            .register_type::<AniSocket>()
            .init_asset_loader::<SklLoader>()
            .init_asset::<AniBoneMap>()
            .init_asset_loader::<BoneMapLoader>()
            .add_observer(rig::link_bevy_player)
            .configure_sets(
                PostUpdate,
                (Io3dSystems::Spawn, Io3dSystems::Bind, Io3dSystems::Advance, Io3dSystems::Pose)
                    .chain()
                    // Bevy's own animation set: systems ordered after it
                    // see posed bones.
                    .in_set(AnimationSystems)
                    // A reloaded file's asset changes in PreUpdate, its event
                    // comes here: rebind in the same frame.
                    .after(AssetEventSystems)
                    .before(TransformSystems::Propagate),
            )
            .configure_sets(PostUpdate, Io3dSystems::WorldPose.after(TransformSystems::Propagate))
            .add_systems(
                PostUpdate,
                (
                    rig::spawn_rigs.in_set(Io3dSystems::Spawn),
                    binder::bind_players.in_set(Io3dSystems::Bind),
                    advance::advance_players.in_set(Io3dSystems::Advance),
                    lod::lod_by_distance.in_set(Io3dSystems::Advance),
                    (evaluate::pose_players, write::write_local_poses).chain().in_set(Io3dSystems::Pose),
                    (skinning::assign_slots, evaluate::pose_world, socket::place_sockets)
                        .chain()
                        .in_set(Io3dSystems::Pose),
                    world_pose::write_world_poses.in_set(Io3dSystems::WorldPose),
                ),
            );
        // A browser's WebGL2 has no storage buffers for the palette.
        #[cfg(target_arch = "wasm32")]
        app.init_resource::<player::NoPalette>();
        #[cfg(feature = "characters")]
        character::build(app);
    }

    #[cfg(feature = "characters")]
    fn finish(&self, app: &mut App) {
        character::finish(app);
    }
}

#[cfg(test)]
mod layering {
    use std::collections::{BTreeMap, BTreeSet};

    /// Each module of the plugin's top level and the sibling modules its
    /// `use super::…` lines name.
    fn imports() -> BTreeMap<String, BTreeSet<String>> {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/src/plugin");
        let mut graph = BTreeMap::new();
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            let Some(module) = path.file_stem().and_then(|s| s.to_str()).filter(|_| path.is_file()) else { continue };
            let text = std::fs::read_to_string(&path).unwrap();
            let used = text
                .lines()
                .filter_map(|line| line.trim().strip_prefix("use super::"))
                .filter_map(|rest| rest.split([':', ';', '{']).next())
                .map(str::to_owned)
                .collect();
            graph.insert(module.to_owned(), used);
        }
        graph
    }

    fn reaches(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str, seen: &mut BTreeSet<String>) -> bool {
        graph
            .get(from)
            .into_iter()
            .flatten()
            .any(|next| next == to || (seen.insert(next.clone()) && reaches(graph, next, to, seen)))
    }

    /// How many modules deep `module` stands: 1 for one that imports no
    /// sibling (the graph has no circles: see below).
    fn depth(graph: &BTreeMap<String, BTreeSet<String>>, module: &str) -> usize {
        1 + graph.get(module).into_iter().flatten().map(|next| depth(graph, next)).max().unwrap_or(0)
    }

    #[test]
    fn no_module_of_the_plugin_imports_itself_through_others() {
        let graph = imports();
        assert!(graph.contains_key("advance") && graph.contains_key("evaluate"), "{graph:?}");
        for module in graph.keys() {
            assert!(!reaches(&graph, module, module, &mut BTreeSet::new()), "{module} imports itself: {graph:?}");
        }
    }

    /// The pose pipeline's stages stand side by side, a module each:
    /// advance (clocks, events), evaluate (blend, root motion, the output's
    /// form), write (local `Transform`s), world_pose (`GlobalTransform`s
    /// on the crowd path) and skinning (the palette path's matrices). Each reads the player's state it needs; none
    /// imports another, even through other modules; and no module stands
    /// more than 7 deep.
    #[test]
    fn the_stages_stand_side_by_side_and_the_modules_shallow() {
        const STAGES: [&str; 5] = ["advance", "evaluate", "write", "world_pose", "skinning"];
        let graph = imports();
        for stage in STAGES {
            for other in STAGES.iter().filter(|&&other| other != stage) {
                let through = reaches(&graph, stage, other, &mut BTreeSet::new());
                assert!(!through, "{stage} imports {other}: {graph:?}");
            }
        }
        let deepest = graph.keys().map(|module| (depth(&graph, module), module)).max().unwrap();
        assert!(deepest.0 <= 7, "{} stands {} deep: {graph:?}", deepest.1, deepest.0);
    }

    /// The README's plugin example is this module's doctest, word for
    /// word, so that it compiles.
    #[test]
    fn the_readme_example_is_the_modules_doctest() {
        let code_after = |text: &str, fence: &str| -> String {
            let start = text.find(fence).unwrap() + fence.len();
            text[start..text[start..].find("```").unwrap() + start].to_owned()
        };
        let root = env!("CARGO_MANIFEST_DIR");
        let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
        let module = std::fs::read_to_string(format!("{root}/src/plugin/mod.rs")).unwrap();
        let docs: String = module
            .lines()
            .filter_map(|l| l.strip_prefix("//!"))
            .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
            .collect();
        let section = &readme[readme.find("## Playing animations in a Bevy game").unwrap()..];
        assert_eq!(code_after(section, "```rust\n"), code_after(&docs, "```no_run\n"));
    }
}
