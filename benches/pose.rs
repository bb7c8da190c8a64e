//! Posing N rigs for one frame: with this crate's `AniPlayer` (writing
//! local transforms, and on the crowd path writing world transforms), and with
//! Bevy's own `AnimationPlayer` playing the exported clips through an
//! `AnimationGraph` on identical rigs, in the same run: one short clip,
//! and an action crossfading over a loop with clips as long as the
//! community's, on the Biped and on a skeleton of the game's size. An app with the rigs and no player is
//! the baseline that both include (transform propagation, scheduling).
//! The crowd path's level of detail ([`AniLod`]) is measured apart,
//! against itself posing every frame; so is what retargeting costs at bind
//! time (a Mixamo character given ten clips, from its spawn to its first
//! pose).
//!
//! Run: `cargo bench --no-default-features --features plugin --bench pose`

use std::time::Duration;

use bevy::animation::graph::{AnimationGraph, AnimationGraphHandle};
use bevy::animation::{AnimationClip, AnimationPlayer};
use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_io3d::anim::{Action, Loop, RestPoses, Rig, biped, retarget, suggest_map};
use bevy_io3d::format::{Animation, Skeleton};
use bevy_io3d::plugin::{
    AniBinding, AniClip, AniLod, AniPlayer, AniRetarget, Axes, ClipSpace, Io3dPlugin, PoseOutput, RigBones, SklRig,
    SklSkeleton, to_bevy_clip,
};
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};

mod common;
#[path = "../tests/mixamo/mod.rs"]
mod mixamo;

#[derive(Clone, Copy, PartialEq)]
enum Player {
    None,
    /// No player, but every bone turned each frame by a trivial system:
    /// what writing the bones and propagating their transforms costs.
    Turned,
    Ours,
    /// Ours on the crowd path ([`PoseOutput::GlobalTransform`]).
    Crowd,
    /// The crowd path with a level of detail: clips posed every this many
    /// frames ([`AniLod`]).
    CrowdLod(u32),
    Bevys,
}

/// Marks rigs whose bones [`turn_bones`] turns.
#[derive(Component)]
struct Turned;

fn turn_bones(mut frame: Local<f32>, rigs: Query<&RigBones, With<Turned>>, mut transforms: Query<&mut Transform>) {
    *frame += 1.0;
    for bones in &rigs {
        for &bone in &bones.0 {
            if let Ok(mut transform) = transforms.get_mut(bone) {
                transform.rotation = Quat::from_rotation_z(*frame * 0.001);
            }
        }
    }
}

fn asset(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))).expect("the bundled samples")
}

/// What every rig plays: a loop alone, or an action crossfading over it.
struct Scene {
    skeleton: Skeleton,
    looped: Animation,
    action: Option<Animation>,
}

/// An app with `rigs` rigs of the scene's skeleton, each at a different time.
fn app(rigs: usize, player_kind: Player, scene: &Scene) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(common::cores::all_cores()),
        AssetPlugin::default(),
        TransformPlugin,
        Io3dPlugin::default(),
    ));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_micros(16_667)));
    app.add_systems(PostUpdate, turn_bones.before(TransformSystems::Propagate));
    let rig = Rig::new(&scene.skeleton).expect("a tree");
    let skeleton = app
        .world_mut()
        .resource_mut::<Assets<SklSkeleton>>()
        .add(SklSkeleton { skeleton: scene.skeleton.clone(), rig });
    let clips: Vec<&Animation> = std::iter::once(&scene.looped).chain(&scene.action).collect();
    let ours: Vec<Handle<AniClip>> = clips
        .iter()
        .map(|a| app.world_mut().resource_mut::<Assets<AniClip>>().add(AniClip::new((*a).clone())))
        .collect();
    let theirs: Vec<Handle<AnimationClip>> = clips
        .iter()
        .map(|a| {
            let space = ClipSpace::new(Axes::default());
            app.world_mut().resource_mut::<Assets<AnimationClip>>().add(to_bevy_clip(a, &a.events, &space))
        })
        .collect();
    let (graph, nodes) = AnimationGraph::from_clips(theirs);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    let entities: Vec<Entity> = (0..rigs).map(|_| app.world_mut().spawn(SklRig::new(skeleton.clone())).id()).collect();
    app.update();
    for (i, &entity) in entities.iter().enumerate() {
        let at_ms = (i * 37 % 1000) as f32;
        match player_kind {
            Player::None => {}
            Player::Turned => {
                app.world_mut().entity_mut(entity).insert(Turned);
            }
            Player::Ours | Player::Crowd | Player::CrowdLod(_) => {
                let mut player = AniPlayer::default();
                player.play_loop(ours[0].clone(), Loop::default());
                if let Some(action) = ours.get(1) {
                    // A fade in long enough to last the measurement: both
                    // clips blend every frame.
                    player.play_action(action.clone(), Action { hold_last_frame: true, ..Action::faded(1e6, 100.0) });
                }
                player.seek(at_ms);
                let mut character = app.world_mut().entity_mut(entity);
                match player_kind {
                    Player::Ours => character.insert((player, PoseOutput::Transform)),
                    Player::CrowdLod(every) => {
                        character.insert((player, PoseOutput::GlobalTransform, AniLod::every(every)))
                    }
                    _ => character.insert((player, PoseOutput::GlobalTransform)),
                };
            }
            Player::Bevys => {
                let mut player = AnimationPlayer::default();
                for &node in &nodes {
                    player.play(node).repeat().seek_to(at_ms / 1000.0).set_weight(1.0 / nodes.len() as f32);
                }
                app.world_mut().entity_mut(entity).insert((player, AnimationGraphHandle(graph.clone())));
            }
        }
    }
    app.update();
    app
}

const PLAYERS: [(&str, Player); 4] = [
    ("no player (baseline)", Player::None),
    ("AniPlayer", Player::Ours),
    ("AniPlayer crowd path", Player::Crowd),
    ("Bevy AnimationPlayer", Player::Bevys),
];

/// One bundled clip (1 s) on the 22-bone Biped.
fn one_clip(c: &mut Criterion) {
    let skeleton = Skeleton::from_bytes(&asset("biped.skl")).expect("a skeleton");
    let looped = Animation::from_bytes(&asset("biped_walk_4002.ani")).expect("an animation");
    let scene = Scene { skeleton, looped, action: None };
    let mut group = c.benchmark_group("pose one frame");
    group.sample_size(20);
    for rigs in [1, 100, 1000] {
        for (name, player) in PLAYERS {
            let mut app = app(rigs, player, &scene);
            group.bench_with_input(BenchmarkId::new(name, rigs), &rigs, |b, _| b.iter(|| app.update()));
        }
    }
    group.finish();
}

/// An action crossfading over a loop, both 20 s at 100 keys a second, on
/// the 22-bone Biped and on the 52-bone Biped with fingers; with the second
/// baseline (bones turned by a trivial system), which leaves each player's
/// own work when subtracted.
fn crossfade(c: &mut Criterion) {
    for (label, skeleton) in [("22 bones", biped::skeleton()), ("52 bones", common::game_skeleton())] {
        let scene = Scene {
            looped: common::long_clip(&skeleton, 20, 0.0),
            action: Some(common::long_clip(&skeleton, 20, 1.5)),
            skeleton,
        };
        let mut group = c.benchmark_group(format!("crossfade, {label}"));
        group.sample_size(10);
        for rigs in [100, 1000] {
            let turned = ("bones turned, no player (baseline 2)", Player::Turned);
            for (name, player) in PLAYERS.into_iter().chain([turned]) {
                let mut app = app(rigs, player, &scene);
                group.bench_with_input(BenchmarkId::new(name, rigs), &rigs, |b, _| b.iter(|| app.update()));
            }
        }
        group.finish();
    }
}

/// The crowd path crossfading on 1,000 rigs of 52 bones with a level of
/// detail: clips posed every frame (its baseline), every second and every
/// fourth frame, the bones moving every frame.
fn level_of_detail(c: &mut Criterion) {
    let skeleton = common::game_skeleton();
    let scene = Scene {
        looped: common::long_clip(&skeleton, 20, 0.0),
        action: Some(common::long_clip(&skeleton, 20, 1.5)),
        skeleton,
    };
    let mut group = c.benchmark_group("crowd path, level of detail, 52 bones");
    group.sample_size(10);
    for every in [1, 2, 4] {
        let mut app = app(1000, Player::CrowdLod(every), &scene);
        group.bench_with_input(BenchmarkId::new(format!("posed every {every} frames"), 1000), &1000, |b, _| {
            b.iter(|| app.update())
        });
    }
    group.finish();
}

/// How a Mixamo-shaped crowd plays the Biped's walk.
#[derive(Clone, Copy, PartialEq)]
enum Mixamo {
    /// No player: the hierarchy's own cost.
    Still,
    /// A clip made for the rig beforehand (`io3d retarget`), played as is.
    OwnClip,
    /// The Biped's clip with `AniRetarget`: retargeted once at bind time,
    /// the one clip shared by every character.
    Retargeted,
}

/// An app with `count` Mixamo-shaped characters (21 bones under an
/// armature scaled 0.01) playing the walk as `how` says, each at its own
/// time.
fn mixamo_app(count: usize, how: Mixamo) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(common::cores::all_cores()),
        AssetPlugin::default(),
        TransformPlugin,
        Io3dPlugin::default(),
    ));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_micros(16_667)));
    let skeleton = Skeleton::from_bytes(&asset("biped.skl")).expect("a skeleton");
    let biped = Rig::new(&skeleton).expect("a tree");
    let walk = Animation::from_bytes(&asset("biped_walk_4002.ani")).expect("an animation");
    let target = mixamo::rig(&biped, 0.7);
    let names = |rig: &Rig| rig.names.iter().map(|n| String::from_utf8_lossy(n).into_owned()).collect::<Vec<_>>();
    let map = suggest_map(&names(&biped), &names(&target));
    let own = retarget(&walk, &map, &biped, &target, RestPoses::Align).animation;
    let world = app.world_mut();
    let source = world.resource_mut::<Assets<SklSkeleton>>().add(SklSkeleton { skeleton, rig: biped.clone() });
    let clip =
        world.resource_mut::<Assets<AniClip>>().add(AniClip::new(if how == Mixamo::OwnClip { own } else { walk }));
    for i in 0..count {
        let root = world.spawn_empty().id();
        mixamo::spawn_bones(world, root, &biped, 0.7);
        let mut player = AniPlayer::new(clip.clone());
        player.seek((i * 37 % 1000) as f32);
        match how {
            Mixamo::Still => {}
            Mixamo::OwnClip => {
                world.entity_mut(root).insert(player);
            }
            Mixamo::Retargeted => {
                world.entity_mut(root).insert((player, AniRetarget::new(source.clone())));
            }
        }
    }
    app.update();
    app.update();
    let mut bindings = app.world_mut().query::<&AniBinding>();
    let bound = bindings.iter(app.world()).filter(|b| b.is_bound() && b.unbound_tracks.is_empty()).count();
    assert_eq!(bound, if how == Mixamo::Still { 0 } else { count }, "every character plays every track");
    app
}

/// 1,000 Mixamo-shaped characters sharing one retargeted walk, against
/// the same crowd playing a clip made for its rig, and against no player.
fn retargeted(c: &mut Criterion) {
    let mut group = c.benchmark_group("Mixamo crowd, walk");
    group.sample_size(10);
    let cases = [
        ("no player (baseline)", Mixamo::Still),
        ("own-rig clip", Mixamo::OwnClip),
        ("retargeted, one clip shared", Mixamo::Retargeted),
    ];
    for (name, how) in cases {
        let mut app = mixamo_app(1000, how);
        group.bench_with_input(BenchmarkId::new(name, 1000), &1000, |b, _| b.iter(|| app.update()));
    }
    group.finish();
}

/// How many clips [`retarget_at_bind`]'s character plays.
const CLIPS: usize = 10;

/// An app with one Mixamo-shaped character, not updated yet, playing
/// [`CLIPS`] clips of the Biped (the walk, idle and attack, each its own
/// asset) as loops, retargeted: nothing is made for its bones yet.
fn ten_clip_app() -> (App, Entity, Vec<AssetId<AniClip>>) {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin, Io3dPlugin::default()));
    let skeleton = Skeleton::from_bytes(&asset("biped.skl")).expect("a skeleton");
    let biped = Rig::new(&skeleton).expect("a tree");
    let files = ["biped_walk_4002.ani", "biped_idle_4002.ani", "biped_attack_4002.ani"];
    let animations: Vec<Animation> = files.map(|f| Animation::from_bytes(&asset(f)).expect("an animation")).into();
    let world = app.world_mut();
    let source = world.resource_mut::<Assets<SklSkeleton>>().add(SklSkeleton { skeleton, rig: biped.clone() });
    let mut player = AniPlayer::default();
    let mut ids = Vec::new();
    for i in 0..CLIPS {
        let clip = world.resource_mut::<Assets<AniClip>>().add(AniClip::new(animations[i % 3].clone()));
        ids.push(clip.id());
        player.play_loop(clip, Loop::faded(100.0));
    }
    let root = world.spawn((player, AniRetarget::new(source))).id();
    mixamo::spawn_bones(world, root, &biped, 0.7);
    (app, root, ids)
}

/// A Mixamo-shaped character given ten clips to play retargeted, from its
/// spawn to its first pose: binding makes each clip for its bones (a new
/// app each time, so nothing is shared from before).
fn retarget_at_bind(c: &mut Criterion) {
    let mut group = c.benchmark_group("Mixamo character, retargeted at bind");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("spawn to first pose, clips", CLIPS), |b| {
        b.iter_batched(
            ten_clip_app,
            |(mut app, root, ids)| {
                app.update();
                let binding = app.world().get::<AniBinding>(root).expect("a player");
                assert!(ids.iter().all(|&id| binding.clip(id).is_some()), "every clip bound on the first frame");
                app
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, one_clip, crossfade, level_of_detail, retargeted, retarget_at_bind);
criterion_main!(benches);
