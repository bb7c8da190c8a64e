//! Posing N Biped rigs for one frame: with this crate's `AniPlayer`, and
//! with Bevy's own `AnimationPlayer` playing the exported clip on
//! identical rigs, in the same run. An app with the rigs and no player is
//! the baseline that both include (transform propagation, scheduling).
//!
//! Run: `cargo bench --no-default-features --features plugin --bench pose`

use std::time::Duration;

use bevy::animation::graph::{AnimationGraph, AnimationGraphHandle};
use bevy::animation::{AnimatedBy, AnimationClip, AnimationPlayer};
use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_io3d::anim::Rig;
use bevy_io3d::format::{Animation, Skeleton};
use bevy_io3d::plugin::{AniClip, AniPlayer, Axes, Io3dPlugin, RigBones, SklRig, SklSkeleton, to_bevy_clip};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

#[derive(Clone, Copy, PartialEq)]
enum Player {
    None,
    Ours,
    Bevys,
}

fn asset(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))).expect("the bundled samples")
}

/// An app with `rigs` Biped rigs, each at a different time of the walk.
fn app(rigs: usize, player: Player) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin, Io3dPlugin));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_micros(16_667)));
    let skeleton = Skeleton::from_bytes(&asset("biped.skl")).expect("a skeleton");
    let rig = Rig::new(&skeleton).expect("a tree");
    let walk = Animation::from_bytes(&asset("biped_walk_4002.ani")).expect("an animation");
    let bevy_clip = to_bevy_clip(&walk, Axes::default());
    let skeleton = app.world_mut().resource_mut::<Assets<SklSkeleton>>().add(SklSkeleton { skeleton, rig });
    let clip = app.world_mut().resource_mut::<Assets<AniClip>>().add(AniClip::new(walk));
    let bevy_clip = app.world_mut().resource_mut::<Assets<AnimationClip>>().add(bevy_clip);
    let (graph, node) = AnimationGraph::from_clip(bevy_clip);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    let entities: Vec<Entity> = (0..rigs).map(|_| app.world_mut().spawn(SklRig::new(skeleton.clone())).id()).collect();
    app.update();
    for (i, &entity) in entities.iter().enumerate() {
        let at_ms = (i * 37 % 1000) as f64;
        match player {
            Player::None => {}
            Player::Ours => {
                let mut ours = AniPlayer::new(clip.clone());
                ours.seek(at_ms);
                app.world_mut().entity_mut(entity).insert(ours);
            }
            Player::Bevys => {
                let bones = app.world().get::<RigBones>(entity).expect("spawned bones").0.clone();
                for bone in bones {
                    app.world_mut().entity_mut(bone).insert(AnimatedBy(entity));
                }
                let mut theirs = AnimationPlayer::default();
                theirs.play(node).repeat().seek_to(at_ms as f32 / 1000.0);
                app.world_mut().entity_mut(entity).insert((theirs, AnimationGraphHandle(graph.clone())));
            }
        }
    }
    app.update();
    app
}

fn pose(c: &mut Criterion) {
    let mut group = c.benchmark_group("pose one frame");
    group.sample_size(20);
    for rigs in [1, 100, 1000] {
        for (name, player) in [
            ("no player (baseline)", Player::None),
            ("AniPlayer", Player::Ours),
            ("Bevy AnimationPlayer", Player::Bevys),
        ] {
            let mut app = app(rigs, player);
            group.bench_with_input(BenchmarkId::new(name, rigs), &rigs, |b, _| b.iter(|| app.update()));
        }
    }
    group.finish();
}

criterion_group!(benches, pose);
criterion_main!(benches);
