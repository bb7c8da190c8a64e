//! The Bevy plugin in small headless apps with a manual clock: loading,
//! binding, posing, events, root motion, hot reload and the export to
//! Bevy's own `AnimationPlayer`.

use std::path::Path;
use std::time::Duration;

use bevy::animation::graph::AnimationGraphHandle;
use bevy::animation::{AnimatedBy, AnimationClip, AnimationPlayer, AnimationTargetId, graph::AnimationGraph};
use bevy::asset::{AssetLoadFailedEvent, AssetPlugin, LoadState};
use bevy::math::Affine3A;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_io3d::anim::{Clip, RepeatMode, Rig};
use bevy_io3d::format::{Animation, FileString, FormatError, Skeleton};
use bevy_io3d::plugin::{
    AniBinding, AniClip, AniEventFired, AniLoaderSettings, AniLod, AniLodFocus, AniPlayback, AniPlayer, Axes,
    BevyTargets, Io3dAssetLabel, Io3dBone, Io3dLoadError, Io3dPlugin, LocalPoses, ModelPoses, PaletteSlot, PoseOutput,
    RigBones, RootMotion, SkinPalettes, SklRig, SklSkeleton, palette_affine, palette_joints,
};

mod common;
mod mixamo;

const STEP_MS: u64 = 10;

/// A folder holding copies of the bundled samples (the character's
/// `resource` folders too), served as the asset root.
fn asset_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"), dir.path());
    dir
}

fn app(dir: &Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin { file_path: dir.display().to_string(), watch_for_changes_override: Some(true), ..default() },
        TransformPlugin,
        Io3dPlugin::default(),
    ));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(STEP_MS)));
    app.init_resource::<Fired>();
    app.add_observer(|event: On<AniEventFired>, mut fired: ResMut<Fired>| fired.0.push(event.event().clone()));
    app
}

#[derive(Resource, Default)]
struct Fired(Vec<AniEventFired>);

/// Updates until `done` holds (waiting for the asset server's threads and
/// the file watcher), for up to half a minute of wall time: CI machines
/// running every test at once can be slow.
fn run_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("timed out waiting for {what}");
}

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join(name)).unwrap()
}

/// A rig of the bundled Biped playing `clip`, bound and posed once.
fn spawn_walker(app: &mut App, clip: &str, repeat: RepeatMode) -> Entity {
    let server = app.world().resource::<AssetServer>().clone();
    let player = AniPlayer::new(server.load(clip.to_owned())).with_repeat(repeat);
    let rig = app.world_mut().spawn((SklRig::new(server.load("biped.skl")), player)).id();
    run_until(app, "the rig to bind", |app| app.world().get::<AniBinding>(rig).is_some_and(|b| b.is_bound()));
    rig
}

fn seek(app: &mut App, rig: Entity, ms: f32) {
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().seek(ms);
    app.update();
}

/// The world poses of the rig's bones, back in engine axes, skeleton order.
fn bevy_pose(app: &mut App, rig: Entity) -> Vec<(Vec3, Quat)> {
    let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
    world_poses(app, &bones, 1.0, BEVY_AXES)
}

/// The world poses of bone entities, back in engine axes and in game units
/// from Bevy units at `scale` a game unit.
fn world_poses(app: &App, bones: &[Entity], scale: f32, mirror: Mirror) -> Vec<(Vec3, Quat)> {
    bones
        .iter()
        .map(|&b| {
            let (_, rotation, translation) =
                app.world().get::<GlobalTransform>(b).unwrap().to_scale_rotation_translation();
            (mirror.0(translation / scale), mirror.1(rotation))
        })
        .collect()
}

/// How world poses go back into the engine's axes (each mirror is its own
/// inverse).
struct Mirror(fn(Vec3) -> Vec3, fn(Quat) -> Quat);

/// The plugin's axes ([`Axes::EngineToBevy`]).
const BEVY_AXES: Mirror = Mirror(bevy_io3d::anim::axes::mirror_position, bevy_io3d::anim::axes::mirror_rotation);

/// The glTF export's axes.
#[cfg(feature = "viewer")]
const GLTF_AXES: Mirror = Mirror(bevy_io3d::anim::axes::mirror_x_position, bevy_io3d::anim::axes::mirror_x_rotation);

/// The largest distance between joints and the largest angle between
/// bone rotations (degrees) of two world poses.
fn pose_gap(bevy: &[(Vec3, Quat)], expected: &[bevy_io3d::anim::BonePose]) -> (f32, f32) {
    assert_eq!(bevy.len(), expected.len());
    let mut gap = (0.0f32, 0.0f32);
    for ((p, q), e) in bevy.iter().zip(expected) {
        gap.0 = gap.0.max(p.distance(e.position));
        gap.1 = gap.1.max(q.normalize().angle_between(e.rotation.normalize()).to_degrees());
    }
    gap
}

/// How far Bevy's world poses may lie from the client's, as (units,
/// degrees). The local transforms are the client's to the bit (checked
/// apart), but the client's sampled rotations are about 0.9996 long and it
/// composes them as they are, so its limbs shrink a little down each chain,
/// where Bevy composes through matrices: on the bundled clips joints part
/// by up to 0.61 units (at the hands, nine bones from the root) and bones
/// by up to 0.20 degrees.
const CLIENT_GAP: (f32, f32) = (0.65, 0.25);

/// How far Bevy's own `AnimationPlayer` (true slerp, unit rotations) lies
/// from our player in Bevy: measured up to 0.18 units and 0.15 degrees.
const SLERP_GAP: (f32, f32) = (0.2, 0.2);

/// How far Bevy's skinned vertices may lie from the client's: the joints'
/// gap ([`CLIENT_GAP`]) carried out to the vertices, which sit up to 14
/// units off their bones. Measured on the bundled walk: 0.82 units from the
/// client's skinning, 0.22 from exact geometry (unit rotations).
#[cfg(feature = "characters")]
const SKIN_GAP: f32 = 1.0;

fn assert_pose_eq(bevy: &[(Vec3, Quat)], expected: &[bevy_io3d::anim::BonePose], bound: (f32, f32), what: &str) {
    let (units, degrees) = pose_gap(bevy, expected);
    assert!(units <= bound.0 && degrees <= bound.1, "{what}: joints {units} units apart, bones {degrees} degrees");
}

#[test]
fn poses_match_the_pure_sampler_on_a_spawned_rig() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop);
    let skeleton = Skeleton::from_bytes(&sample("biped.skl")).unwrap();
    let walk = Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap();
    let pure = Rig::new(&skeleton).unwrap();
    for ms in [0.0, 125.5, 500.0, 999.0, 1000.0] {
        seek(&mut app, rig, ms);
        assert_eq!(app.world().get::<AniPlayback>(rig).unwrap().time_ms(), ms, "seeking is exact");
        assert_pose_eq(
            &bevy_pose(&mut app, rig),
            &pure.world_pose(&Clip::new(&walk), ms),
            CLIENT_GAP,
            &format!("{ms} ms"),
        );
        // Local transforms are the pure sampler's, bit for bit.
        let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
        for (bone, local) in bones.iter().zip(pure.local_pose(&Clip::new(&walk), ms)) {
            assert_eq!(*app.world().get::<Transform>(*bone).unwrap(), Axes::EngineToBevy.transform(&local));
        }
    }
    // Playing on: 100 frames of 10 ms land exactly 1 s later (wrapped).
    seek(&mut app, rig, 250.0);
    for _ in 0..100 {
        app.update();
    }
    assert_eq!(app.world().get::<AniPlayback>(rig).unwrap().time_ms(), 250.0);
}

/// The world-pose path writes each bone's `GlobalTransform` as the client
/// composes it: the library's `Rig::to_world`, mirrored into Bevy's axes
/// and placed by the rig's own transform, bit for bit.
#[test]
fn the_world_pose_path_writes_the_clients_numbers() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop);
    let place = Transform::from_xyz(100.0, 0.0, -50.0).with_rotation(Quat::from_rotation_y(0.7));
    app.world_mut().entity_mut(rig).insert((PoseOutput::GlobalTransform, place));
    let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
    let locals: Vec<Transform> = bones.iter().map(|&b| *app.world().get::<Transform>(b).unwrap()).collect();
    let walk = Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap();
    let pure = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap();
    let axes = Axes::EngineToBevy;
    for ms in [0.0, 125.5, 999.0] {
        seek(&mut app, rig, ms);
        let world = pure.to_world(&pure.local_pose(&Clip::new(&walk), ms));
        for (bone, pose) in bones.iter().zip(&world) {
            let model = Affine3A::from_rotation_translation(axes.rotation(pose.rotation), axes.position(pose.position));
            let global = app.world().get::<GlobalTransform>(*bone).unwrap().affine();
            assert_eq!(global, place.compute_affine() * model, "{ms} ms");
        }
    }
    let still: Vec<Transform> = bones.iter().map(|&b| *app.world().get::<Transform>(b).unwrap()).collect();
    assert_eq!(still, locals, "no local transform is written");
    app.world_mut().entity_mut(rig).insert(PoseOutput::Transform);
    app.update();
    assert!(app.world().get::<ModelPoses>(rig).unwrap().0.is_empty(), "back on Transforms, no stale model poses");
    assert_eq!(app.world().get::<LocalPoses>(rig).unwrap().0.len(), bones.len());
}

/// The palette path spawns no bone entity, and the Biped's body skinned
/// by the shader's formula from the player's slot (its joints remapped to
/// the slot, each vertex moved by its weights' blend of the slot's
/// matrices, not renormalised) lands where the library's CPU skinning
/// (the client's) puts it, within 1e-3 game units on a body about 180
/// tall (f32 rounding through two different products). Back on
/// `Transform`s, the bones come back and the slot goes.
#[test]
fn the_palette_path_skins_as_the_client_with_no_bone_entities() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let player = AniPlayer::new(server.load("biped_walk_4002.ani"));
    let rig = app.world_mut().spawn((SklRig::new(server.load("biped.skl")), player, PoseOutput::Palette)).id();
    run_until(&mut app, "the palette rig to bind", |app| {
        app.world().get::<AniBinding>(rig).is_some_and(|b| b.is_bound())
    });
    assert_eq!(app.world().get::<RigBones>(rig).map(|b| b.0.len()), Some(0), "no bone entities");
    let mut bones = app.world_mut().query::<&Io3dBone>();
    assert_eq!(bones.iter(app.world()).count(), 0);
    assert_eq!(app.world().get::<AniBinding>(rig).unwrap().bone_links().count(), 0, "no links to draw");

    let walk = Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap();
    let pure = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap();
    let body = bevy_io3d::format::Mesh::from_bytes(&sample("resource/mesh/biped_body.msh")).unwrap();
    let weights = body.weights.as_ref().unwrap();
    let binding = bevy_io3d::anim::MeshBinding::new(weights, &pure);
    let (joints, amounts) = bevy_io3d::anim::vertex_influences(weights, body.positions.len());
    let joints = palette_joints(&joints, &binding, &pure);
    let axes = Axes::EngineToBevy;
    for ms in [0.0, 333.0, 910.5] {
        seek(&mut app, rig, ms);
        let cpu = bevy_io3d::anim::skin_on(&body, &pure, &pure.to_world(&pure.local_pose(&Clip::new(&walk), ms)));
        let slot = app.world().get::<PaletteSlot>(rig).unwrap();
        let matrices = app.world().resource::<SkinPalettes>().slot(slot);
        assert_eq!(matrices.len(), pure.len());
        for (v, expected) in cpu.positions.iter().enumerate() {
            let blended = joints[v].iter().zip(amounts[v]).fold([Vec4::ZERO; 3], |sum, (&joint, w)| {
                let m = matrices[usize::from(joint)];
                [sum[0] + m[0] * w, sum[1] + m[1] * w, sum[2] + m[2] * w]
            });
            let p = axes.position(body.positions[v]).extend(1.0);
            let shader = Vec3::new(blended[0].dot(p), blended[1].dot(p), blended[2].dot(p));
            let gap = shader.distance(axes.position(*expected));
            assert!(gap < 1e-3, "{ms} ms, vertex {v}: {shader} against {expected} ({gap})");
        }
        let root = palette_affine(&matrices[0]);
        assert!(root.is_finite());
    }
    app.world_mut().entity_mut(rig).insert(PoseOutput::Transform);
    run_until(&mut app, "the bones to come back", |app| {
        app.world().get::<RigBones>(rig).is_some_and(|b| b.0.len() == pure.len())
            && app.world().get::<AniBinding>(rig).is_some_and(|b| b.is_bound())
    });
    assert!(app.world().get::<PaletteSlot>(rig).is_none());
    let before = bevy_pose(&mut app, rig);
    seek(&mut app, rig, 333.0);
    assert_ne!(bevy_pose(&mut app, rig), before, "the bones are posed");
}

/// The palette path plays as the crowd path plays, frame by frame: the
/// same model poses and root motion, bit for bit, and the same events,
/// with a level of detail, with retargeting, and through a crossfade to
/// an action started by a call; each slot follows its player's poses.
#[test]
fn the_palette_path_plays_as_the_crowd_path_with_lod_retargeting_and_calls() {
    use bevy::ecs::system::RunSystemOnce;
    use bevy_io3d::anim::Action;
    use bevy_io3d::plugin::{AniRetarget, PaletteBones};
    let dir = asset_dir();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let attack = server.load("biped_attack_4002.ani");
    let names = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap().names;
    type Setup = fn(&mut EntityWorldMut, &AssetServer);
    let options: [(&str, Setup); 3] = [
        ("plain", |_, _| {}),
        ("lod", |rig, _| {
            rig.insert(AniLod::every(3));
        }),
        ("retarget", |rig, server| {
            rig.insert(AniRetarget::new(server.load("biped.skl")));
        }),
    ];
    for (what, option) in options {
        // A level of detail staggers players by their entities' indices:
        // the pair's share their place among three.
        let mut first = None;
        let pair = [PoseOutput::GlobalTransform, PoseOutput::Palette].map(|output| {
            let world = app.world_mut();
            let entity = std::iter::repeat_with(|| world.spawn_empty().id())
                .find(|e| first.is_none_or(|f: Entity| e.index_u32() % 3 == f.index_u32() % 3))
                .unwrap();
            first.get_or_insert(entity);
            let player = AniPlayer::new(server.load("biped_walk_4002.ani"));
            let mut rig = world.entity_mut(entity);
            rig.insert((SklRig::new(server.load("biped.skl")), player, output));
            option(&mut rig, &server);
            entity
        });
        run_until(&mut app, "both rigs to bind", |app| {
            pair.iter().all(|&rig| app.world().get::<AniBinding>(rig).is_some_and(|b| b.is_bound()))
        });
        app.world_mut().resource_mut::<Fired>().0.clear();
        for frame in 0..90 {
            if frame == 20 {
                for rig in pair {
                    let mut player = app.world_mut().get_mut::<AniPlayer>(rig).unwrap();
                    player.play_action(attack.clone(), Action { fade_in_ms: 100.0, ..Action::default() });
                }
            }
            app.update();
            // Each path keeps its bones in its own order: compared by name.
            let [crowd, palette] = pair.map(|rig| {
                let names = names.clone();
                let by_name = move |bones: PaletteBones| names.iter().map(|n| bones.model(rig, n)).collect::<Vec<_>>();
                app.world_mut().run_system_once(by_name).unwrap()
            });
            assert!(crowd.iter().all(Option::is_some), "{what}, frame {frame}: posed");
            assert_eq!(crowd, palette, "{what}, frame {frame}: the same model poses");
            let [a, b] = pair.map(|rig| *app.world().get::<RootMotion>(rig).unwrap());
            assert_eq!(a, b, "{what}, frame {frame}: the same root motion");
            let slot = app.world().get::<PaletteSlot>(pair[1]).unwrap();
            assert_eq!(app.world().resource::<SkinPalettes>().slot(slot).len(), names.len());
        }
        let fired = app.world().resource::<Fired>();
        let count = |rig| fired.0.iter().filter(|e| e.entity == rig).count();
        assert!(count(pair[0]) > 0 && count(pair[0]) == count(pair[1]), "{what}: the same events");
        for rig in pair {
            app.world_mut().despawn(rig);
        }
    }
    app.update();
    assert!(app.world().resource::<SkinPalettes>().matrices().len() <= 52, "despawned players' slots are reused");
}

/// A hand-built hierarchy with a scaled, turned armature the clip does not
/// name, and an entity that is not a bone between two bones, poses alike
/// through both paths.
#[test]
fn both_pose_paths_agree_on_scaled_hierarchies_with_gaps() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let clip: Handle<AniClip> = app.world().resource::<AssetServer>().load("biped_walk_4000.ani");
    let mut rig = |output: PoseOutput, x: f32| -> Vec<Entity> {
        let world = app.world_mut();
        let root = world.spawn((AniPlayer::new(clip.clone()), output, Transform::from_xyz(x, 0.0, 0.0))).id();
        let turned = Transform::from_rotation(Quat::from_rotation_x(-1.2)).with_scale(Vec3::splat(0.01));
        let armature = world.spawn((Name::new("Armature"), turned, ChildOf(root))).id();
        let hips = world.spawn((Name::new("Bip01"), Transform::default(), ChildOf(armature))).id();
        let gap = world.spawn((Transform::from_xyz(1.0, 2.0, 3.0), ChildOf(hips))).id();
        let pelvis = world.spawn((Name::new("Bip01 Pelvis"), Transform::default(), ChildOf(gap))).id();
        let spine = world.spawn((Name::new("Bip01 Spine"), Transform::default(), ChildOf(pelvis))).id();
        vec![root, armature, hips, pelvis, spine]
    };
    let (local, world) = (rig(PoseOutput::Transform, 0.0), rig(PoseOutput::GlobalTransform, 10.0));
    run_until(&mut app, "binding", |app| {
        [local[0], world[0]].iter().all(|&p| app.world().get::<AniBinding>(p).unwrap().is_bound())
    });
    for player in [local[0], world[0]] {
        app.world_mut().get_mut::<AniPlayer>(player).unwrap().seek(420.0);
    }
    app.update();
    for (a, b) in local.iter().zip(&world).skip(1) {
        let parts = |e: &Entity| app.world().get::<GlobalTransform>(*e).unwrap().to_scale_rotation_translation();
        let ((scale_a, rotation_a, at_a), (scale_b, rotation_b, at_b)) = (parts(a), parts(b));
        assert!((at_b - at_a - Vec3::X * 10.0).length() < 1e-3, "{at_a} and {at_b}");
        assert!(rotation_a.angle_between(rotation_b) < 0.005, "{rotation_a} and {rotation_b}");
        assert!(scale_a.abs_diff_eq(scale_b, 1e-4), "{scale_a} and {scale_b}");
    }
}

#[test]
fn binds_by_name_on_a_hand_built_hierarchy_and_reports_what_is_unbound() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let clip = app.world().resource::<AssetServer>().load("biped_walk_4000.ani");
    let prop_rest = Transform::from_xyz(1.0, 2.0, 3.0);
    let root = app.world_mut().spawn((AniPlayer::new(clip), Axes::AsIs)).id();
    let hips = app.world_mut().spawn((Name::new("Bip01"), Transform::default(), ChildOf(root))).id();
    let thigh = app.world_mut().spawn((Name::new("Bip01 L Thigh"), Transform::default(), ChildOf(hips))).id();
    let prop = app.world_mut().spawn((Name::new("Sword"), prop_rest, ChildOf(thigh))).id();
    let mixamo = app.world_mut().spawn((Name::new("mixamorig:RightUpLeg"), Transform::default(), ChildOf(hips))).id();
    run_until(&mut app, "binding", |app| app.world().get::<AniBinding>(root).unwrap().is_bound());
    let binding = app.world().get::<AniBinding>(root).unwrap().clone();
    assert_eq!(binding.bones_without_track, ["mixamorig:RightUpLeg", "Sword"]);
    assert_eq!(binding.unbound_tracks.len(), 20);
    assert!(binding.unbound_tracks.contains(&"Bip01 Head".to_owned()));
    // Fewer than half bind: a map is suggested (and logged once).
    let map = binding.suggested_map.clone().expect("a suggested map");
    assert_eq!(map.target("Bip01 R Thigh"), Some("mixamorig:RightUpLeg"));
    app.world_mut().entity_mut(mixamo).despawn();
    seek(&mut app, root, 250.0);
    let walk = Animation::from_bytes(&sample("biped_walk_4000.ani")).unwrap();
    let expected = bevy_io3d::anim::track_pose(walk.track(b"Bip01 L Thigh").unwrap(), 250.0).unwrap();
    let posed = app.world().get::<Transform>(thigh).unwrap();
    assert_eq!((posed.translation, posed.rotation), (expected.position, expected.rotation), "AsIs keeps engine axes");
    assert_eq!(*app.world().get::<Transform>(prop).unwrap(), prop_rest, "a child no track names is not written");
    use bevy_io3d::plugin::Io3dBone;
    assert_eq!(app.world().get::<Io3dBone>(thigh).map(|b| b.player), Some(root));
    assert_eq!(app.world().get::<Io3dBone>(prop), None, "the game's own child is not the player's");
    // A new bone joins the hierarchy: the player rebinds.
    app.world_mut().spawn((Name::new("Bip01 Head"), Transform::default(), ChildOf(hips)));
    app.update();
    assert_eq!(app.world().get::<AniBinding>(root).unwrap().unbound_tracks.len(), 19);
}

/// A game's own children under a rig, named or not, and a nested rig
/// with its own player are left alone: the player writes only its bones.
#[test]
fn the_player_writes_its_bones_and_leaves_the_games_children_and_nested_rigs_alone() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let (walk, idle) = (server.load("biped_walk_4000.ani"), server.load("biped_idle_4000.ani"));
    let rig = app.world_mut().spawn((AniPlayer::new(walk), SklRig::new(server.load("biped.skl")))).id();
    run_until(&mut app, "the rig's bones", |app| app.world().get::<AniBinding>(rig).unwrap().is_bound());
    let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
    let hand = bones[rig_bone(&app, &bones, "Bip01 R Hand")];
    let moved = Transform::from_xyz(5.0, 6.0, 7.0);
    // The game's own: a named boom, an unnamed child, and a whole nested
    // rig whose bones have the outer clip's names.
    let boom = app.world_mut().spawn((Name::new("Camera Boom"), moved, ChildOf(hand))).id();
    let plain = app.world_mut().spawn((moved, ChildOf(hand))).id();
    let inner = app.world_mut().spawn((AniPlayer::new(idle), Transform::default(), ChildOf(hand))).id();
    let inner_hips = app.world_mut().spawn((Name::new("Bip01"), Transform::default(), ChildOf(inner))).id();
    run_until(&mut app, "the nested rig", |app| app.world().get::<AniBinding>(inner).unwrap().is_bound());
    app.update();
    // The game moves its own children after they were first seen.
    let swung = Transform::from_xyz(-1.0, 0.5, 2.0);
    for entity in [boom, plain] {
        *app.world_mut().get_mut::<Transform>(entity).unwrap() = swung;
    }
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(*app.world().get::<Transform>(boom).unwrap(), swung, "a named child no track names");
    assert_eq!(*app.world().get::<Transform>(plain).unwrap(), swung, "an unnamed child");
    use bevy_io3d::plugin::Io3dBone;
    assert_eq!(app.world().get::<Io3dBone>(inner_hips).map(|b| b.player), Some(inner), "the inner player's");
    assert_eq!(app.world().get::<Io3dBone>(hand).map(|b| b.player), Some(rig));
    assert_eq!(app.world().get::<Io3dBone>(boom), None);
}

/// A bone the game takes from under its player (a weapon handed to
/// another character) is the player's no more: it loses its `Io3dBone`
/// and keeps what the game gives it, and the bones that stay are marked
/// with their new places.
#[test]
fn a_bone_moved_away_from_its_player_is_released() {
    use bevy_io3d::plugin::Io3dBone;
    let dir = asset_dir();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "biped_walk_4000.ani", RepeatMode::Loop);
    let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
    let hand = bones[rig_bone(&app, &bones, "Bip01 R Hand")];
    let holder = app.world_mut().spawn(Transform::default()).id();
    app.world_mut().entity_mut(hand).insert(ChildOf(holder));
    app.update();
    let given = Transform::from_xyz(1.0, 2.0, 3.0);
    *app.world_mut().get_mut::<Transform>(hand).unwrap() = given;
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().get::<Io3dBone>(hand), None, "released");
    assert_eq!(*app.world().get::<Transform>(hand).unwrap(), given, "the game's to move");
    // The bones that stay pose as before, each from its new place.
    let walk = Animation::from_bytes(&sample("biped_walk_4000.ani")).unwrap();
    let pure = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap();
    seek(&mut app, rig, 300.0);
    let local = pure.local_pose(&Clip::new(&walk), 300.0);
    for (i, &bone) in bones.iter().enumerate().filter(|&(_, &bone)| bone != hand) {
        let up: Vec<Entity> =
            std::iter::successors(Some(bone), |&b| app.world().get::<ChildOf>(b).map(ChildOf::parent)).collect();
        let stays = up.contains(&rig) && !up.contains(&hand);
        let marked = app.world().get::<Io3dBone>(bone).map(|b| b.player);
        assert_eq!(marked, stays.then_some(rig), "bone {i}");
        if stays {
            assert_eq!(
                *app.world().get::<Transform>(bone).unwrap(),
                Axes::EngineToBevy.transform(&local[i]),
                "bone {i}"
            );
        }
    }
}

/// The index in `bones` of the bone named `name`.
fn rig_bone(app: &App, bones: &[Entity], name: &str) -> usize {
    bones.iter().position(|&b| app.world().get::<Name>(b).is_some_and(|n| n.as_str() == name)).unwrap()
}

#[test]
fn events_fire_once_per_pass_across_wraps_and_in_reverse_but_not_on_seek() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop);
    let fired = |app: &mut App| std::mem::take(&mut app.world_mut().resource_mut::<Fired>().0);
    fired(&mut app);
    seek(&mut app, rig, 0.0);
    // 250 frames of 10 ms: 2.5 loops pass 250, 750, 250, 750, 250.
    for _ in 0..250 {
        app.update();
    }
    let forward = fired(&mut app);
    let times: Vec<f32> = forward.iter().map(|e| e.time_ms).collect();
    assert_eq!(times, [250.0, 750.0, 250.0, 750.0, 250.0]);
    // Each firing shares the clip's event: its text was not copied.
    assert!(std::ptr::eq(&*forward[0].sub_info, &*forward[2].sub_info), "one event, read once");
    seek(&mut app, rig, 760.0);
    assert!(fired(&mut app).is_empty(), "a seek fires nothing");
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().speed = -1.0;
    for _ in 0..60 {
        app.update();
    }
    let events = fired(&mut app);
    let times: Vec<f32> = events.iter().map(|e| e.time_ms).collect();
    assert_eq!(times, [750.0, 250.0], "backwards, in the order passed");
    assert_eq!((&*events[0].name, &*events[0].sub_info), ("motion_sound", "sound/step_right.wav"));
    assert_eq!(events[0].kind, bevy_io3d::format::EventKind::MotionSound);
    assert_eq!(events[0].entity, rig);
}

#[test]
fn root_motion_adds_up_to_the_walk_and_in_place_holds_the_root() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop);
    seek(&mut app, rig, 0.0);
    let mut travelled = Vec3::ZERO;
    for _ in 0..200 {
        app.update();
        travelled += app.world().get::<RootMotion>(rig).unwrap().delta;
    }
    // Two loops of 140 units forward: engine +Z is Bevy -Z.
    assert!(travelled.abs_diff_eq(Vec3::new(0.0, 0.0, -280.0), 0.01), "{travelled}");
    seek(&mut app, rig, 500.0);
    let motion = *app.world().get::<RootMotion>(rig).unwrap();
    // From (1.5, 80, 0) at the start of the loop to (-1.5, 80, -70) now.
    assert_eq!(motion.position, Vec3::new(-1.5, 80.0, -70.0));
    assert!((motion.distance_this_loop - 70.0f32.hypot(3.0)).abs() < 1e-3, "{motion:?}");
    assert_eq!(motion.delta, Vec3::ZERO, "a seek moves nothing");

    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().in_place = true;
    let root_bone = app.world().get::<RigBones>(rig).unwrap().0[0];
    let mut seen = Vec::new();
    for _ in 0..50 {
        app.update();
        let t = app.world().get::<Transform>(root_bone).unwrap().translation;
        seen.push(Vec3::new(t.x, 0.0, t.z));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "the root stays in place: {seen:?}");
    assert!(app.world().get::<RootMotion>(rig).unwrap().delta.z < 0.0, "and the motion is still reported");
}

/// A player with a level of detail of three frames shows, on every third
/// frame, the pose a player without one showed two frames before, and
/// moves its bones on the frames between; its events and root motion are
/// the other's, frame for frame. On both pose paths.
#[test]
fn a_level_of_detail_poses_every_third_frame_a_pose_behind_with_the_same_events_and_motion() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    for output in [PoseOutput::Transform, PoseOutput::GlobalTransform] {
        let [full, lod] = [0, 1].map(|_| spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop));
        app.world_mut().entity_mut(full).insert(output);
        app.world_mut().entity_mut(lod).insert((output, AniLod::every(3)));
        for rig in [full, lod] {
            app.world_mut().get_mut::<AniPlayer>(rig).unwrap().seek(0.0);
        }
        app.world_mut().resource_mut::<Fired>().0.clear();
        let (mut poses, mut shown) = (Vec::new(), Vec::new());
        for _ in 0..60 {
            app.update();
            let [a, b] = [full, lod].map(|rig| *app.world().get::<RootMotion>(rig).unwrap());
            assert_eq!(a.delta, b.delta, "{output:?}: the same motion every frame");
            poses.push(bevy_pose(&mut app, full));
            shown.push(bevy_pose(&mut app, lod));
        }
        let behind = |frame: usize| shown[frame] == poses[frame - 2];
        let phase =
            (3..6).find(|&frame| behind(frame)).unwrap_or_else(|| panic!("{output:?}: never two frames behind"));
        assert!((phase..60).step_by(3).all(behind), "{output:?}: every third frame");
        assert!((4..60).all(|f| shown[f] != shown[f - 1]), "{output:?}: moving every frame");
        let fired = app.world().resource::<Fired>();
        let count = |rig| fired.0.iter().filter(|e| e.entity == rig).count();
        assert!(count(full) > 0 && count(full) == count(lod), "{output:?}: the same events");
    }
}

/// A focus sets the level of detail of the players around it by distance.
#[test]
fn a_focus_sets_the_level_of_detail_by_distance() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    app.world_mut().spawn((Transform::from_xyz(10.0, 0.0, 0.0), AniLodFocus { steps: vec![(100.0, 2), (500.0, 4)] }));
    let rigs = [0.0, 150.0, 1000.0].map(|x| {
        let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop);
        app.world_mut().entity_mut(rig).insert((AniLod::default(), Transform::from_xyz(10.0, 0.0, x)));
        rig
    });
    app.update();
    app.update();
    assert_eq!(rigs.map(|rig| app.world().get::<AniLod>(rig).unwrap().every), [1, 2, 4]);
}

#[test]
fn a_clip_ending_or_cleared_is_triggered_and_one_clip_can_pause() {
    use bevy_io3d::anim::{Action, Loop};
    use bevy_io3d::plugin::AniClipEnded;
    let dir = asset_dir();
    let mut app = app(dir.path());
    #[derive(Resource, Default)]
    struct Ended(Vec<AniClipEnded>);
    app.init_resource::<Ended>();
    app.add_observer(|event: On<AniClipEnded>, mut ended: ResMut<Ended>| ended.0.push(*event.event()));
    let server = app.world().resource::<AssetServer>().clone();
    let (walk, attack) = (server.load("biped_walk_4002.ani"), server.load("biped_attack_4002.ani"));
    let mut player = AniPlayer::default();
    player.guarantee = false;
    let rig = app.world_mut().spawn((SklRig::new(server.load("biped.skl")), player)).id();
    run_until(&mut app, "the clips", |app| {
        let server = app.world().resource::<AssetServer>();
        server.is_loaded(&walk) && server.is_loaded(&attack) && app.world().get::<RigBones>(rig).is_some()
    });
    let mut player = app.world_mut().get_mut::<AniPlayer>(rig).unwrap();
    let looping = player.play_loop(walk.clone(), Loop::default());
    let action = player.play_action(attack.clone(), Action::default());
    player.pause_instance(looping, true);
    for _ in 0..20 {
        app.update();
    }
    let time = |app: &App, id| {
        app.world().get::<AniPlayback>(rig).unwrap().instances().find(|i| i.id == id).map(|i| i.time_ms())
    };
    assert_eq!(time(&app, looping), Some(0.0), "the paused loop stands");
    assert!(time(&app, action).unwrap() > 150.0, "the action plays on");
    run_until(&mut app, "the action's end", |app| !app.world().resource::<Ended>().0.is_empty());
    let ended = app.world().resource::<Ended>().0.clone();
    assert_eq!(ended, [AniClipEnded { entity: rig, instance: action, clip: attack.id(), cleared: false }]);
    let mut player = app.world_mut().get_mut::<AniPlayer>(rig).unwrap();
    player.pause_instance(looping, false);
    player.clear_all_loops(50.0, false);
    run_until(&mut app, "the loop's fade out", |app| app.world().resource::<Ended>().0.len() == 2);
    assert!(app.world().resource::<Ended>().0[1].cleared);
}

#[test]
fn root_motion_reports_the_roots_turn_about_up() {
    use bevy_io3d::format::{AniVersion, Key, Track};
    let dir = asset_dir();
    // The root turns a quarter about up over a second, from the Biped's
    // own tilted rest orientation, looping.
    let rest = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap().rest[0];
    let mut turn = Animation::new(AniVersion::V4000, 1000);
    let key = |t: i32, yaw: f32| Key::new(t, rest.position, Quat::from_rotation_y(yaw) * rest.rotation);
    let keys = vec![key(0, 0.0), key(1000, std::f32::consts::FRAC_PI_2)];
    turn.tracks.push(Track { bone: FileString::from("Bip01"), weight: 1.0, keys });
    std::fs::write(dir.path().join("turn.ani"), turn.to_bytes().unwrap()).unwrap();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "turn.ani", RepeatMode::Loop);
    seek(&mut app, rig, 0.0);
    let mut turned = 0.0;
    for _ in 0..150 {
        app.update();
        turned += app.world().get::<RootMotion>(rig).unwrap().yaw_delta;
    }
    // 1.5 s: a loop and a half, each loop a quarter turn, mirrored into
    // Bevy's axes (engine +Z is Bevy -Z, so a turn reverses).
    let expected = -1.5 * std::f32::consts::FRAC_PI_2;
    assert!((turned - expected).abs() < 1e-3, "{turned} against {expected}");
}

/// A game's usual player, steered by the client's calls with no transport
/// clip: holding in place and the distance this loop work as they do for
/// a clip started through `clip`.
#[test]
fn every_feature_works_on_a_loop_started_by_a_call() {
    use bevy_io3d::anim::Loop;
    let dir = asset_dir();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let walk: Handle<AniClip> = server.load("biped_walk_4002.ani");
    let mut player = AniPlayer::default();
    player.in_place = true;
    let rig = app.world_mut().spawn((SklRig::new(server.load("biped.skl")), player)).id();
    run_until(&mut app, "the rig and the clip", |app| {
        app.world().get::<RigBones>(rig).is_some() && app.world().resource::<AssetServer>().is_loaded(&walk)
    });
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().play_loop(walk, Loop::default());
    let root_bone = app.world().get::<RigBones>(rig).unwrap().0[0];
    let mut seen = Vec::new();
    for _ in 0..40 {
        app.update();
        let t = app.world().get::<Transform>(root_bone).unwrap().translation;
        seen.push(Vec3::new(t.x, 0.0, t.z));
    }
    assert!(seen[2..].windows(2).all(|w| w[0] == w[1]), "the root stays in place: {seen:?}");
    let motion = *app.world().get::<RootMotion>(rig).unwrap();
    assert!(motion.distance_this_loop > 30.0, "the distance is measured: {motion:?}");
    assert!(motion.delta.length() > 0.5, "root motion is reported: {motion:?}");
    // Seek and events, as on a transport's clip.
    seek(&mut app, rig, 200.0);
    assert_eq!(
        app.world().get::<AniPlayback>(rig).unwrap().time_ms(),
        200.0,
        "a seek reaches a clip started by a call"
    );
    app.world_mut().resource_mut::<Fired>().0.clear();
    for _ in 0..10 {
        app.update();
    }
    let fired = &app.world().resource::<Fired>().0;
    assert_eq!(fired.iter().map(|e| e.time_ms).collect::<Vec<_>>(), [250.0], "the footstep at 250 ms fires: {fired:?}");
}

/// What a clip keeps is a load setting: Bevy's own clip by default, none
/// for a game that plays only through `AniPlayer`.
#[test]
fn a_clip_loads_without_its_bevy_clip_when_asked() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let full: Handle<AniClip> = server.load("biped_walk_4000.ani");
    let lean: Handle<AniClip> = server
        .load_builder()
        .with_settings(|s: &mut AniLoaderSettings| s.bevy_clip = false)
        .load("biped_idle_4000.ani");
    run_until(&mut app, "both clips", |app| {
        let server = app.world().resource::<AssetServer>();
        server.is_loaded(&full) && server.is_loaded(&lean)
    });
    let clips = app.world().resource::<Assets<AniClip>>();
    assert!(clips.get(&full).unwrap().bevy_clip.is_some());
    assert!(clips.get(&lean).unwrap().bevy_clip.is_none());
}

#[test]
fn load_failures_arrive_typed_and_hot_reload_keeps_playing() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    std::fs::write(dir.path().join("broken.ani"), &sample("biped_walk_4002.ani")[..100]).unwrap();
    let broken: Handle<AniClip> = app.world().resource::<AssetServer>().load("broken.ani");
    let mut failure = None;
    run_until(&mut app, "the load failure", |app| {
        let mut messages = app.world_mut().resource_mut::<Messages<AssetLoadFailedEvent<AniClip>>>();
        failure = messages.drain().find(|f| f.id == broken.id());
        failure.is_some()
    });
    let bevy::asset::AssetLoadError::AssetLoaderError(error) = failure.take().unwrap().error else {
        panic!("a loader error")
    };
    let ani = error.error().downcast_ref::<Io3dLoadError>().expect("our typed error");
    assert!(matches!(ani, Io3dLoadError::Format(FormatError::Malformed { .. })), "{ani}");
    assert_eq!(ani.to_string(), "header: total time needs 4 bytes at byte 99, but the file ends at byte 100");
    // A Bevy clip aimed at the paths of a skeleton that is not there.
    let targets = BevyTargets::Paths { skeleton: "gone.skl".into(), above: Vec::new() };
    let server = app.world().resource::<AssetServer>().clone();
    let aimed: Handle<AniClip> = server
        .load_builder()
        .with_settings(move |s: &mut AniLoaderSettings| s.targets = targets.clone())
        .load("biped_walk_4002.ani");
    run_until(&mut app, "the missing skeleton", |app| {
        let mut messages = app.world_mut().resource_mut::<Messages<AssetLoadFailedEvent<AniClip>>>();
        failure = messages.drain().find(|f| f.id == aimed.id());
        failure.is_some()
    });
    let message = failure.take().unwrap().error.to_string();
    assert!(message.contains("cannot name the Bevy clip's bones by the skeleton gone.skl"), "{message}");
    let skl: Handle<SklSkeleton> = app.world().resource::<AssetServer>().load("biped.skl");
    run_until(&mut app, "the skeleton", |app| app.world().resource::<AssetServer>().is_loaded(&skl));

    // Hot reload: the walk file becomes the idle; the player keeps its time.
    std::fs::copy(dir.path().join("biped_walk_4002.ani"), dir.path().join("play.ani")).unwrap();
    let rig = spawn_walker(&mut app, "play.ani", RepeatMode::Loop);
    seek(&mut app, rig, 600.0);
    let paused = |app: &mut App| app.world_mut().get_mut::<AniPlayer>(rig).unwrap().paused = true;
    paused(&mut app);
    std::fs::write(dir.path().join("play.ani"), sample("biped_idle_4002.ani")).unwrap();
    let clip = app.world().get::<AniPlayer>(rig).unwrap().clip.clone().unwrap();
    run_until(&mut app, "the reload", |app| {
        app.world().resource::<Assets<AniClip>>().get(&clip).unwrap().animation.total_ms == 2000
    });
    app.update();
    assert_eq!(app.world().get::<AniPlayback>(rig).unwrap().time_ms(), 600.0);
    let idle = Animation::from_bytes(&sample("biped_idle_4002.ani")).unwrap();
    let pure = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap();
    assert_pose_eq(
        &bevy_pose(&mut app, rig),
        &pure.world_pose(&Clip::new(&idle), 600.0),
        CLIENT_GAP,
        "after the reload",
    );

    // A reload that no longer parses keeps the last good clip, and says why.
    std::fs::write(dir.path().join("play.ani"), b"ANI\0junk").unwrap();
    let mut failed = false;
    run_until(&mut app, "the failed reload", |app| {
        let mut messages = app.world_mut().resource_mut::<Messages<AssetLoadFailedEvent<AniClip>>>();
        failed |= messages.drain().any(|f| f.id == clip.id());
        failed
    });
    assert_eq!(app.world().resource::<Assets<AniClip>>().get(&clip).unwrap().animation.total_ms, 2000);
    assert!(!matches!(app.world().resource::<AssetServer>().load_state(&clip), LoadState::Loading));

    // Deleting the file while it plays keeps the last good clip playing.
    std::fs::remove_file(dir.path().join("play.ani")).unwrap();
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().paused = false;
    for _ in 0..50 {
        app.update();
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(app.world().resource::<Assets<AniClip>>().get(&clip).unwrap().animation.total_ms, 2000);
    assert_eq!(app.world().get::<AniPlayback>(rig).unwrap().time_ms(), 600.0 + 50.0 * STEP_MS as f32, "still playing");
}

/// Two rigs of the bundled Biped: ours playing `clip` once through
/// `AniPlayer`, and theirs with Bevy's `AnimationPlayer` on its
/// `#BevyClip`, paused at 0 ms. Returns both and the graph node.
fn both_players(app: &mut App, clip: &str) -> (Entity, Entity, AnimationNodeIndex) {
    let ours = spawn_walker(app, clip, RepeatMode::Once);
    let server = app.world().resource::<AssetServer>().clone();
    let bevy_clip: Handle<AnimationClip> = server.load(Io3dAssetLabel::BevyClip.from_asset(clip.to_owned()));
    run_until(app, "the exported clip", |app| app.world().resource::<AssetServer>().is_loaded(&bevy_clip));
    let (graph, node) = AnimationGraph::from_clip(bevy_clip);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    let theirs = app.world_mut().spawn((SklRig::new(server.load("biped.skl")), AnimationGraphHandle(graph))).id();
    run_until(app, "the second rig", |app| app.world().get::<RigBones>(theirs).is_some());
    app.update();
    let mut player = AnimationPlayer::default();
    player.play(node).seek_to(0.0);
    player.pause_all();
    app.world_mut().entity_mut(theirs).insert(player);
    app.update();
    (ours, theirs, node)
}

#[test]
fn the_exported_clip_poses_like_our_player() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let (ours, theirs, node) = both_players(&mut app, "biped_attack_4001.ani");
    // Nothing inserted by hand: the rig links its bones to Bevy's player.
    for bone in app.world().get::<RigBones>(theirs).unwrap().0.clone() {
        assert_eq!(app.world().get::<AnimatedBy>(bone).map(|a| a.0), Some(theirs));
        assert!(app.world().get::<AnimationTargetId>(bone).is_some());
    }
    let ours_bones = app.world().get::<RigBones>(ours).unwrap().0.clone();
    assert!(app.world().get::<AnimatedBy>(ours_bones[0]).is_none(), "our player's rig pays nothing for Bevy's");
    for ms in [0.0f32, 180.0, 450.0, 777.0, 1200.0] {
        app.world_mut().get_mut::<AniPlayer>(ours).unwrap().seek(ms);
        app.world_mut().get_mut::<AnimationPlayer>(theirs).unwrap().animation_mut(node).unwrap().seek_to(ms / 1000.0);
        app.update();
        let expected: Vec<_> = bevy_pose(&mut app, ours)
            .into_iter()
            .map(|(position, rotation)| bevy_io3d::anim::BonePose { position, rotation })
            .collect();
        assert_pose_eq(&bevy_pose(&mut app, theirs), &expected, SLERP_GAP, &format!("AnimationPlayer at {ms} ms"));
    }
}

#[test]
fn bevys_player_triggers_the_clips_events_from_its_bevy_clip() {
    use bevy_io3d::plugin::AniClipEvent;
    let dir = asset_dir();
    let mut app = app(dir.path());
    #[derive(Resource, Default)]
    struct Seen(Vec<AniClipEvent>);
    app.init_resource::<Seen>();
    app.add_observer(|event: On<AniClipEvent>, mut seen: ResMut<Seen>| seen.0.push(event.event().clone()));
    let server = app.world().resource::<AssetServer>().clone();
    let clip: Handle<AnimationClip> = server.load(Io3dAssetLabel::BevyClip.from_asset("biped_attack_4002.ani"));
    run_until(&mut app, "the exported clip", |app| app.world().resource::<AssetServer>().is_loaded(&clip));
    let (graph, node) = AnimationGraph::from_clip(clip);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    let mut player = AnimationPlayer::default();
    player.play(node);
    app.world_mut().spawn((SklRig::new(server.load("biped.skl")), AnimationGraphHandle(graph), player));
    run_until(&mut app, "three events", |app| app.world().resource::<Seen>().0.len() >= 3);
    let seen: Vec<(f32, String)> =
        app.world().resource::<Seen>().0.iter().map(|e| (e.time_ms, e.sub_info.clone())).collect();
    assert_eq!(
        seen[..3],
        [(250.0, "sound/기합.wav".into()), (300.0, "sound/swing_01.wav".into()), (450.0, "right_hand".into())]
    );
}

#[cfg(feature = "viewer")]
#[allow(dead_code, reason = "the tests use its app and its JSON, not its window")]
#[path = "../examples/any_rig.rs"]
mod any_rig;

#[path = "../examples/headless_pose.rs"]
mod headless_pose;

#[test]
fn the_headless_pose_example_agrees_with_io3d_pose() {
    let skeleton_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/biped.skl");
    let skeleton = Skeleton::from_bytes(&sample("biped.skl")).unwrap();
    let rig = Rig::new(&skeleton).unwrap();
    let skeleton_names: Vec<String> = skeleton.bones.iter().map(|b| b.name.to_text()).collect();
    // The world-pose path is the client's composition, joints to the
    // thousandth; its matrices are built from the client's rotations as
    // they are (about 0.996 long at the hands), so a rotation read back
    // out of one parts from the quaternion by up to 0.65 degrees.
    let outputs = [(PoseOutput::Transform, CLIENT_GAP), (PoseOutput::GlobalTransform, (1e-3, 0.7))];
    for clip in ["walk", "idle", "attack"] {
        for version in [4000, 4001, 4002] {
            let name = format!("biped_{clip}_{version}.ani");
            let animation = Animation::from_bytes(&sample(&name)).unwrap();
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join(&name);
            let times = [(0.0, false), (333.0, true), (1750.5, true), (5000.0, false)];
            for ((at_ms, looping), (output, gap)) in times.into_iter().zip(outputs.into_iter().cycle()) {
                let (animation_path, skeleton) = (&path, &skeleton_path);
                let request = headless_pose::Request { animation: animation_path, skeleton, at_ms, looping, output };
                let posed = headless_pose::pose(&request);
                let mode = if looping { RepeatMode::Loop } else { RepeatMode::Once };
                let expected = rig.world_pose(&Clip::new(&animation), mode.animation_time(at_ms, animation.total_ms));
                let names: Vec<String> = skeleton_names.clone();
                assert_eq!(posed.iter().map(|(n, _, _)| n.clone()).collect::<Vec<_>>(), names);
                let pose: Vec<(Vec3, Quat)> = posed.into_iter().map(|(_, p, q)| (p, q)).collect();
                assert_pose_eq(&pose, &expected, gap, &format!("{name} at {at_ms} ms, {output:?}"));
            }
        }
    }
}

#[test]
fn a_new_clip_starts_at_its_beginning_and_a_bad_speed_stands_still() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Once);
    seek(&mut app, rig, 900.0);
    let attack: Handle<AniClip> = app.world().resource::<AssetServer>().load("biped_attack_4002.ani");
    run_until(&mut app, "the attack", |app| app.world().resource::<AssetServer>().is_loaded(&attack));
    let walk = app.world().get::<AniPlayer>(rig).unwrap().clip.clone();
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().clip = Some(attack.clone());
    app.update();
    assert_eq!(app.world().get::<AniPlayback>(rig).unwrap().time_ms(), 0.0);
    assert_eq!(app.world().get::<RootMotion>(rig).unwrap().delta, Vec3::ZERO, "no jump from the old clip");
    // A seek made with the new clip starts it there.
    let mut player = app.world_mut().get_mut::<AniPlayer>(rig).unwrap();
    player.clip = walk;
    player.seek(300.0);
    app.update();
    assert_eq!(app.world().get::<AniPlayback>(rig).unwrap().time_ms(), 300.0);
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().clip = Some(attack);
    app.update();
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().speed = f32::INFINITY;
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().seek(f32::NAN);
    app.update();
    assert_eq!(app.world().get::<AniPlayback>(rig).unwrap().time_ms(), 0.0);
}

#[test]
fn korean_names_bind_a_silent_duplicate_track_changes_nothing_and_the_root_bone_can_change() {
    use bevy_io3d::format::{FileString, Track};
    let dir = asset_dir();
    // The left thigh renamed in Korean (CP949 bytes, as the game stores
    // text), in the skeleton and the walk; the walk also gets a second,
    // weight-0 head track after the real one.
    let korean = FileString::encode_text("왼쪽 허벅지");
    let thigh = FileString::from("Bip01 L Thigh");
    let rename = |s: &mut FileString| {
        if *s == thigh {
            *s = korean.clone();
        }
    };
    let mut skeleton = Skeleton::from_bytes(&sample("biped.skl")).unwrap();
    for bone in &mut skeleton.bones {
        rename(&mut bone.name);
        rename(&mut bone.parent);
        bone.children.iter_mut().for_each(rename);
    }
    let mut walk = Animation::from_bytes(&sample("biped_walk_4000.ani")).unwrap();
    walk.tracks.iter_mut().for_each(|t| rename(&mut t.bone));
    let head = walk.track(b"Bip01 Head").unwrap().clone();
    walk.tracks.push(Track { weight: 0.0, ..head });
    std::fs::write(dir.path().join("korean.skl"), skeleton.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.path().join("korean.ani"), walk.to_bytes().unwrap()).unwrap();

    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let player = AniPlayer::new(server.load("korean.ani"));
    let rig = app.world_mut().spawn((SklRig::new(server.load("korean.skl")), player.clone())).id();
    // A rig whose skeleton never arrives never binds, though its clip has.
    let waiting = app.world_mut().spawn((SklRig::new(server.load("missing.skl")), player)).id();
    run_until(&mut app, "the rig to bind", |app| app.world().get::<AniBinding>(rig).is_some_and(|b| b.is_bound()));
    assert!(app.world().get::<AniBinding>(rig).unwrap().unbound_tracks.is_empty());
    assert!(!app.world().get::<AniBinding>(waiting).unwrap().is_bound());
    seek(&mut app, rig, 250.0);
    let pure = Rig::new(&skeleton).unwrap();
    let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
    for ((bone, local), name) in bones.iter().zip(pure.local_pose(&Clip::new(&walk), 250.0)).zip(&pure.names) {
        assert_eq!(
            *app.world().get::<Transform>(*bone).unwrap(),
            Axes::EngineToBevy.transform(&local),
            "{} is posed as the client poses it",
            String::from_utf8_lossy(name)
        );
    }
    let names: Vec<String> = bones.iter().map(|b| app.world().get::<Name>(*b).unwrap().to_string()).collect();
    assert!(names.contains(&"왼쪽 허벅지".to_owned()), "the bone is named in Korean: {names:?}");

    // Root motion follows another root bone once it is named.
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().root_bone = "Bip01 Pelvis".to_owned();
    seek(&mut app, rig, 250.0);
    let pelvis = bevy_io3d::anim::track_pose(walk.track(b"Bip01 Pelvis").unwrap(), 250.0).unwrap();
    let motion = app.world().get::<RootMotion>(rig).unwrap();
    assert_eq!(motion.position, Axes::EngineToBevy.position(pelvis.position));
}

#[test]
fn a_name_spelt_in_utf8_does_not_bind_its_cp949_bone_in_the_player_or_bevys_clip() {
    let dir = asset_dir();
    let korean = FileString::encode_text("왼손");
    let hand = FileString::from("Bip01 L Hand");
    let mut skeleton = Skeleton::from_bytes(&sample("biped.skl")).unwrap();
    for bone in &mut skeleton.bones {
        for name in [&mut bone.name, &mut bone.parent].into_iter().chain(bone.children.iter_mut()) {
            if *name == hand {
                *name = korean.clone();
            }
        }
    }
    std::fs::write(dir.path().join("korean.skl"), skeleton.to_bytes().unwrap()).unwrap();
    let mut walk = Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap();
    let at = walk.track_index(hand.as_bytes()).unwrap();
    walk.tracks[at].bone = FileString::from("왼손");
    std::fs::write(dir.path().join("utf8.ani"), walk.to_bytes().unwrap()).unwrap();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let rig =
        app.world_mut().spawn((SklRig::new(server.load("korean.skl")), AniPlayer::new(server.load("utf8.ani")))).id();
    run_until(&mut app, "the rig to bind", |app| app.world().get::<AniBinding>(rig).is_some_and(|b| b.is_bound()));
    let binding = app.world().get::<AniBinding>(rig).unwrap();
    assert_eq!(binding.unbound_tracks, ["왼손"], "the client compares bytes");
    assert_eq!(binding.bones_without_track, ["왼손"]);
    let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
    let hand_bone = bones[skeleton.bone_index(korean.as_bytes()).unwrap()];
    let target = *app.world().get::<AnimationTargetId>(hand_bone).unwrap();
    assert_eq!(target, bevy_io3d::plugin::bone_target(korean.as_bytes()));
    assert_ne!(target, bevy_io3d::plugin::bone_target("왼손".as_bytes()), "no Bevy clip track reaches it either");
    assert_eq!(app.world().get::<Name>(hand_bone).unwrap().as_str(), "왼손", "named as text all the same");
}

/// The walk with two tracks on the left thigh (the second turned and
/// weighted 3), a lone head track of weight 0 and a lone neck track of
/// weight -1.
fn mixed_walk() -> Animation {
    let mut walk = Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap();
    let mut second = walk.track(b"Bip01 L Thigh").unwrap().clone();
    for key in &mut second.keys {
        *key = bevy_io3d::format::Key::new(key.time_ms, key.position * 1.1, key.rotation * Quat::from_rotation_z(0.6));
    }
    second.weight = 3.0;
    walk.tracks.push(second);
    let index = |walk: &Animation, name: &[u8]| walk.track_index(name).unwrap();
    let head = index(&walk, b"Bip01 Head");
    walk.tracks[head].weight = 0.0;
    let neck = index(&walk, b"Bip01 Neck");
    walk.tracks[neck].weight = -1.0;
    walk
}

#[test]
fn two_tracks_of_a_bone_and_weightless_tracks_play_alike_in_the_player_bevys_clip_and_gltf() {
    let dir = asset_dir();
    let walk = mixed_walk();
    std::fs::write(dir.path().join("mixed.ani"), walk.to_bytes().unwrap()).unwrap();
    let skeleton = Skeleton::from_bytes(&sample("biped.skl")).unwrap();
    let pure = Rig::new(&skeleton).unwrap();
    let clip = Clip::new(&walk);
    let at = |name: &[u8]| pure.bone(name).unwrap();
    let (thigh, head, neck) = (at(b"Bip01 L Thigh"), at(b"Bip01 Head"), at(b"Bip01 Neck"));
    let times: Vec<f32> =
        walk.track(b"Bip01 L Thigh").unwrap().keys.iter().step_by(7).map(|k| k.time_ms as f32).collect();

    // The library poses as the client: the thigh's tracks blended by
    // weight, the head and neck at rest.
    let local = pure.local_pose(&clip, times[1]);
    assert_eq!((local[head], local[neck]), (pure.rest[head], pure.rest[neck]));
    assert_ne!(local[thigh], bevy_io3d::anim::track_pose(walk.track(b"Bip01 L Thigh").unwrap(), times[1]).unwrap());

    // The plugin's player and Bevy's `AnimationPlayer` on `#BevyClip`.
    let mut app = app(dir.path());
    let (ours, theirs, node) = both_players(&mut app, "mixed.ani");

    // glTF: exported and read back by the crate's own importer, which
    // samples by glTF's rules.
    #[cfg(feature = "gltf")]
    let from_gltf = {
        let exported = bevy_io3d::gltf::export(&skeleton, &[], &[("walk".into(), &walk)], Default::default()).unwrap();
        let document = bevy_io3d::gltf::GltfDocument::from_slice(&exported.bytes, None).unwrap();
        Clip::new(&bevy_io3d::gltf::import(&document, &skeleton, &Default::default()).unwrap().animation)
    };

    for &ms in &times {
        app.world_mut().get_mut::<AniPlayer>(ours).unwrap().seek(ms);
        app.world_mut().get_mut::<AnimationPlayer>(theirs).unwrap().animation_mut(node).unwrap().seek_to(ms / 1000.0);
        app.update();
        let expected = pure.to_world(&pure.local_pose(&clip, ms));
        assert_pose_eq(&bevy_pose(&mut app, ours), &expected, CLIENT_GAP, &format!("our player at {ms} ms"));
        assert_pose_eq(&bevy_pose(&mut app, theirs), &expected, CLIENT_GAP, &format!("Bevy's clip at {ms} ms"));
        // Both composed with unit rotations: the import writes its own
        // words, which the client reads to other lengths.
        #[cfg(feature = "gltf")]
        {
            let gltf = pure.unit_world_pose(&from_gltf, ms);
            let unit = pure.unit_world_pose(&clip, ms);
            let (joints, degrees) = pose_gap(&gltf.iter().map(|p| (p.position, p.rotation)).collect::<Vec<_>>(), &unit);
            assert!(joints < 0.05 && degrees < 0.1, "glTF at {ms} ms: {joints} units, {degrees} degrees");
        }
    }
}

#[test]
fn a_paused_player_keeps_a_cleared_clip_until_it_resumes() {
    let dir = asset_dir();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let walk = server.load("biped_walk_4002.ani");
    let rig = app.world_mut().spawn((SklRig::new(server.load("biped.skl")), AniPlayer::default())).id();
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().play_loop(walk, bevy_io3d::anim::Loop::default());
    run_until(&mut app, "the loop to play", |app| {
        app.world().get::<AniPlayback>(rig).unwrap().instances().any(|i| i.time_ms() > 100.0)
    });
    let count = |app: &App| app.world().get::<AniPlayback>(rig).unwrap().instances().count();
    let mut player = app.world_mut().get_mut::<AniPlayer>(rig).unwrap();
    player.stop();
    player.clear_all_loops(0.0, true);
    let fired = app.world().resource::<Fired>().0.len();
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(count(&app), 1, "stopped: nothing ends or is removed");
    assert_eq!(app.world().resource::<Fired>().0.len(), fired, "and nothing fires");
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().resume();
    app.update();
    assert_eq!(count(&app), 0, "resumed: the cleared loop goes");
}

/// The game's state change on a rig: a walk loop cleared over 100 ms while
/// an attack fades in over 100 ms. Every frame the bones' local transforms
/// are those of the library's mixer run beside it on the same frames, to
/// the bit, and the events name the instance that passed them.
#[test]
fn a_crossfade_poses_as_the_library_mixer_does() {
    use bevy_io3d::anim::{Action, Loop, Mixer, PoseBlend};
    let dir = asset_dir();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let (walk, attack): (Handle<AniClip>, Handle<AniClip>) =
        (server.load("biped_walk_4002.ani"), server.load("biped_attack_4001.ani"));
    let rig = app.world_mut().spawn((SklRig::new(server.load("biped.skl")), AniPlayer::default())).id();
    run_until(&mut app, "the clips", |app| {
        let server = app.world().resource::<AssetServer>();
        server.is_loaded(&walk) && server.is_loaded(&attack) && app.world().get::<RigBones>(rig).is_some()
    });
    let skeleton = Skeleton::from_bytes(&sample("biped.skl")).unwrap();
    let pure = Rig::new(&skeleton).unwrap();
    let clips = [
        Clip::new(&Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap()),
        Clip::new(&Animation::from_bytes(&sample("biped_attack_4001.ani")).unwrap()),
    ];
    let bindings: Vec<Vec<Option<usize>>> = clips.iter().map(|c| pure.bind(c).track_bones).collect();
    let mut mixer = Mixer::new();
    let walking = app.world_mut().get_mut::<AniPlayer>(rig).unwrap().play_loop(walk.clone(), Loop::default());
    mixer.play_loop(0, Loop::default());
    let mut fired = Vec::new();
    let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
    for frame in 0..120 {
        if frame == 40 {
            let mut player = app.world_mut().get_mut::<AniPlayer>(rig).unwrap();
            player.clear_all_loops(100.0, false);
            player.play_action(attack.clone(), Action { hold_last_frame: true, ..Action::faded(100.0, 100.0) });
            mixer.clear_all_loops(100.0, false);
            mixer.play_action(1, Action { hold_last_frame: true, ..Action::faded(100.0, 100.0) });
        }
        app.update();
        mixer.advance(STEP_MS as f32, |c| clips.get(c), &mut fired);
        let mut blend = PoseBlend::default();
        mixer.pose(&pure.rest, |c| Some((&clips[c], &bindings[c][..])), &mut blend);
        for (bone, local) in bones.iter().zip(blend.poses()) {
            assert_eq!(
                *app.world().get::<Transform>(*bone).unwrap(),
                Axes::EngineToBevy.transform(&local),
                "frame {frame}"
            );
        }
    }
    let events = std::mem::take(&mut app.world_mut().resource_mut::<Fired>().0);
    let walk_events: Vec<f32> = events.iter().filter(|e| e.instance == walking).map(|e| e.time_ms).collect();
    assert_eq!(walk_events, [250.0], "the walk fires before its fade, and is silent while it fades");
    assert!(events.iter().any(|e| e.clip == attack.id()), "the attack fires: {events:?}");
    let player = app.world().get::<AniPlayback>(rig).unwrap();
    assert_eq!(player.instances().count(), 1, "the walk has ended");
}

/// An `.ant` beside the `.ani` replaces its events, as in the client.
#[test]
fn an_ant_sidecar_replaces_the_files_events() {
    use bevy_io3d::format::{Event, EventKind, ant};
    let dir = asset_dir();
    let swing = Event { kind: "auto_sound".into(), sub_info: "swing.wav".into(), time_ms: 100.0 };
    std::fs::write(dir.path().join("biped_walk_4002.ant"), ant::write(&[swing], 4002).unwrap()).unwrap();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop);
    seek(&mut app, rig, 0.0);
    std::mem::take(&mut app.world_mut().resource_mut::<Fired>().0);
    for _ in 0..100 {
        app.update();
    }
    let fired = std::mem::take(&mut app.world_mut().resource_mut::<Fired>().0);
    let seen: Vec<(f32, &str, EventKind)> = fired.iter().map(|e| (e.time_ms, &*e.sub_info, e.kind)).collect();
    assert_eq!(seen, [(100.0, "swing.wav", EventKind::AutoSound)], "the footsteps of the .ani are replaced");
}

/// A headless app that also holds meshes, images and materials (no
/// renderer), with the plugin finished so its image loaders are there.
#[cfg(feature = "characters")]
fn character_app(dir: &Path) -> App {
    let mut app = unfinished_character_app(dir);
    app.finish();
    app
}

/// [`character_app`] before `finish`, for tests that add plugins of their
/// own.
#[cfg(feature = "characters")]
fn unfinished_character_app(dir: &Path) -> App {
    let mut app = app(dir);
    app.add_plugins((bevy::mesh::MeshPlugin, bevy::image::ImagePlugin::default()));
    app.init_asset::<bevy::pbr::StandardMaterial>();
    app
}

/// The client's mesh events on a live character: `hide_mesh` with
/// `restore` hides the sword until the action that hid it ends, and
/// without it the body stays hidden until `show_mesh`.
#[cfg(feature = "characters")]
#[test]
fn mesh_events_hide_and_restore_a_characters_meshes() {
    use bevy::camera::visibility::Visibility;
    use bevy_io3d::anim::Action;
    use bevy_io3d::format::{Event, FileString};
    use bevy_io3d::plugin::character::{Io3dCharacter, MeshPart};

    let dir = asset_dir();
    let mut sheathe = Animation::from_bytes(&sample("biped_attack_4002.ani")).unwrap();
    let event = |kind: &str, sub_info: &str, time_ms: f32| Event {
        kind: FileString::from(kind),
        sub_info: FileString::from(sub_info),
        time_ms,
    };
    sheathe.events =
        vec![event("hide_mesh", "Biped_Sword.MSH restore", 100.0), event("hide_mesh", "biped_body", 200.0)];
    std::fs::write(dir.path().join("resource/animation/sheathe.ani"), sheathe.to_bytes().unwrap()).unwrap();
    let mut app = character_app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let character = app.world_mut().spawn(Io3dCharacter::new(server.load("resource/model/animodel/biped.txt"))).id();
    let shown = |app: &mut App, name: &str| {
        let mut query = app.world_mut().query::<(&MeshPart, &Visibility)>();
        let all: Vec<(String, bool)> =
            query.iter(app.world()).map(|(p, v)| (p.name.clone(), *v != Visibility::Hidden)).collect();
        let found: Vec<bool> = all.iter().filter(|(n, _)| n == name).map(|(_, v)| *v).collect();
        assert!(!found.is_empty(), "no part of {name} in {all:?}");
        found.iter().all(|v| *v)
    };
    let parts = |app: &mut App| app.world_mut().query::<&MeshPart>().iter(app.world()).count();
    run_until(&mut app, "the character's meshes", |app| parts(app) == 2);
    let clip: Handle<AniClip> = server.load("resource/animation/sheathe.ani");
    run_until(&mut app, "the clip", |app| app.world().resource::<AssetServer>().is_loaded(&clip));
    app.world_mut().get_mut::<AniPlayer>(character).unwrap().play_action(clip, Action::default());
    run_until(&mut app, "the hide events", |app| !shown(app, "biped_sword") && !shown(app, "biped_body"));
    // The action ends (kept posed as a guarantee): the sword comes back,
    // the body hidden without `restore` stays hidden.
    run_until(&mut app, "the sword's restore", |app| shown(app, "biped_sword"));
    assert!(!shown(&mut app, "biped_body"));
}

/// A game's resource folder as it comes from Windows, in mixed case: with
/// [`GameFilesPlugin`] the asset server finds every file the config names
/// as the game does, without case.
#[cfg(feature = "characters")]
#[test]
fn a_mixed_case_resource_folder_loads_through_the_asset_server() {
    use bevy_io3d::plugin::GameFilesPlugin;
    use bevy_io3d::plugin::character::{Io3dCharacter, MeshPart};

    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("Resource");
    for (folder, renamed) in [
        ("model/animodel", "Model/AniModel"),
        ("skeleton", "SKELETON"),
        ("mesh", "Mesh"),
        ("material", "Material"),
        ("texture", "Texture"),
        ("animation", "Animation"),
    ] {
        std::fs::create_dir_all(root.join(renamed)).unwrap();
        for entry in std::fs::read_dir(from.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_uppercase();
            std::fs::copy(&path, root.join(renamed).join(name)).unwrap();
        }
    }
    let mut app = App::new();
    app.add_plugins(GameFilesPlugin::new(dir.path().display().to_string()));
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin, Io3dPlugin::default()));
    app.add_plugins((bevy::mesh::MeshPlugin, bevy::image::ImagePlugin::default()));
    app.init_asset::<bevy::pbr::StandardMaterial>();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(STEP_MS)));
    app.finish();
    let server = app.world().resource::<AssetServer>().clone();
    app.world_mut().spawn(Io3dCharacter::new(server.load("resource/model/animodel/biped.txt")));
    let parts = |app: &mut App| app.world_mut().query::<&MeshPart>().iter(app.world()).count();
    run_until(&mut app, "the character's meshes, found without case", |app| parts(app) == 2);
    let mut players = app.world_mut().query::<&AniPlayer>();
    assert!(players.iter(app.world()).next().is_some_and(|p| p.clip.is_some()), "its first clip");
}

/// A model config with no skeleton (a map, a prop) is drawn all the same:
/// its meshes on the character's entity, a skinned one at its bind pose
/// (every joint the entity itself), and no player.
#[cfg(feature = "characters")]
#[test]
fn a_static_model_is_drawn_without_a_rig() {
    use bevy::mesh::skinning::SkinnedMesh;
    use bevy_io3d::plugin::character::{Io3dCharacter, MeshPart};
    let dir = asset_dir();
    let statue = dir.path().join("resource/model/staticmodel/statue.txt");
    std::fs::create_dir_all(statue.parent().unwrap()).unwrap();
    std::fs::write(&statue, "#MODEL_CFG\n#MESH_LIST\nbiped_body\nbiped_sword\n#MESH_LIST_END\n#MODEL_END\n").unwrap();
    let mut app = character_app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let character =
        app.world_mut().spawn(Io3dCharacter::new(server.load("resource/model/staticmodel/statue.txt"))).id();
    let parts = |app: &mut App| app.world_mut().query::<&MeshPart>().iter(app.world()).count();
    run_until(&mut app, "the statue's meshes", |app| parts(app) == 2);
    // The parts and, below them, their outline hulls.
    let mut skins = app.world_mut().query::<(&SkinnedMesh, &ChildOf, Has<MeshPart>)>();
    for (skin, parent, part) in skins.iter(app.world()) {
        if part {
            assert_eq!(parent.parent(), character);
        }
        assert!(skin.joints.iter().all(|&joint| joint == character), "at bind pose on the entity");
    }
    let mut hulls = app.world_mut().query_filtered::<&ChildOf, With<bevy_io3d::plugin::character::OutlineHull>>();
    assert_eq!(hulls.iter(app.world()).count(), 2, "the script's outline pass: a hull a part");
    assert!(app.world().get::<AniPlayer>(character).is_none(), "nothing to play");
}

/// A config's animations load with it by default; a game whose configs
/// list hundreds loads only the first (which the character plays) and
/// finds the others' paths when it needs them.
#[cfg(feature = "characters")]
#[test]
fn a_config_can_load_only_its_first_animation() {
    use bevy_io3d::plugin::character::{AnimationLoading, Io3dModel, ModelLoaderSettings};
    let dir = asset_dir();
    let mut app = character_app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let lean: Handle<Io3dModel> = server
        .load_builder()
        .with_settings(|s: &mut ModelLoaderSettings| s.animations = AnimationLoading::First)
        .load("resource/model/animodel/biped.txt");
    run_until(&mut app, "the config", |app| app.world().resource::<AssetServer>().is_loaded(&lean));
    let models = app.world().resource::<Assets<Io3dModel>>();
    let model = models.get(&lean).unwrap();
    assert_eq!((model.animations.len(), model.animation_paths.len()), (1, 3));
    assert!(model.animation("biped_idle_4002").is_none());
    let idle = model.animation_path("BIPED_IDLE_4002.ani").unwrap().clone();
    assert_eq!(idle.to_string(), "resource/animation/biped_idle_4002.ani");
    let clip: Handle<AniClip> = server.load(idle);
    run_until(&mut app, "the clip found later", |app| app.world().resource::<AssetServer>().is_loaded(&clip));
}

/// Meshes load in Bevy's axes, so a rig kept in the files' axes draws
/// none, and says so once rather than every frame.
#[cfg(feature = "characters")]
#[test]
fn meshes_are_left_off_a_rig_in_the_files_axes() {
    use bevy_io3d::plugin::character::{Io3dCharacter, Io3dMaterial, Io3dMesh, MeshPart, SpawnedParts};
    let dir = asset_dir();
    let mut app = character_app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let model = server.load("resource/model/animodel/biped.txt");
    let rig = app.world_mut().spawn((Io3dCharacter::new(model), Axes::AsIs)).id();
    run_until(&mut app, "the meshes and their scripts", |app| {
        let world = app.world();
        world.resource::<Assets<Io3dMesh>>().len() == 2 && world.resource::<Assets<Io3dMaterial>>().len() == 2
    });
    for _ in 0..3 {
        app.update();
    }
    let parts = |app: &mut App| app.world_mut().query::<&MeshPart>().iter(app.world()).count();
    assert_eq!(parts(&mut app), 0);
    assert!(app.world().get::<SpawnedParts>(rig).unwrap().parts().is_empty());
}

/// Which parts are skin comes from their scripts, as the client finds
/// it: with the toon look, a body whose script is the game's skin template
/// shows the rig's skin colour, the sword's plain toon script does not,
/// and a new colour on the live rig recolours the body.
#[cfg(feature = "characters")]
#[test]
fn skin_scripts_show_the_rigs_skin_colour_and_others_do_not() {
    use bevy::pbr::MeshMaterial3d;
    use bevy_io3d::format::material::template::{self, OutlinePass, Template, TemplateKind};
    use bevy_io3d::plugin::character::{Io3dCharacter, MeshPart, ToonMaterial, ToonShaded};

    let dir = asset_dir();
    let skin = Template { outline: Some(OutlinePass::default()), ..Template::new(TemplateKind::ToonSkin, "biped.dds") };
    let script = template::script([("Body", &skin)]).unwrap();
    std::fs::write(dir.path().join("resource/material/biped_body.txt"), script.to_bytes()).unwrap();
    // The toon look without a renderer: its materials as assets (which
    // Bevy's renderer registers), where the plugin's system runs.
    let mut app = unfinished_character_app(dir.path());
    app.init_asset::<ToonMaterial>();
    app.finish();
    let server = app.world().resource::<AssetServer>().clone();
    let shaded = ToonShaded { skin: Some([242, 209, 140]), ..default() };
    let rig =
        app.world_mut().spawn((Io3dCharacter::new(server.load("resource/model/animodel/biped.txt")), shaded)).id();
    let skins = |app: &mut App| -> Vec<(String, bool, Vec4)> {
        let mut parts = app.world_mut().query::<(&MeshPart, &MeshMaterial3d<ToonMaterial>)>();
        let toon = app.world().resource::<Assets<ToonMaterial>>();
        let mut found: Vec<_> = parts
            .iter(app.world())
            .filter_map(|(part, material)| {
                Some((part.name.clone(), part.skin, toon.get(&material.0)?.extension.light.skin))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    };
    let colour = |[r, g, b]: [u8; 3]| Vec4::new(f32::from(r) / 255.0, f32::from(g) / 255.0, f32::from(b) / 255.0, 1.0);
    run_until(&mut app, "the toon-shaded parts", |app| skins(app).len() == 2);
    let expected =
        |body| vec![("biped_body".to_owned(), true, colour(body)), ("biped_sword".to_owned(), false, Vec4::ZERO)];
    assert_eq!(skins(&mut app), expected([242, 209, 140]));
    app.world_mut().get_mut::<ToonShaded>(rig).unwrap().skin = Some([120, 80, 60]);
    run_until(&mut app, "the new skin colour", |app| skins(app) == expected([120, 80, 60]));
}

/// The bundled character through the asset server: its meshes skinned by
/// Bevy (joint matrices times inverse binds, weighted) land where the
/// library's client skinning puts them, within the client's own gap.
#[cfg(feature = "characters")]
#[test]
fn a_character_from_its_config_skins_as_the_client_does() {
    use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};
    use bevy::mesh::{Mesh, Mesh3d, VertexAttributeValues};
    use bevy_io3d::anim::{MeshBinding, skin};
    use bevy_io3d::format::Mesh as MshMesh;
    use bevy_io3d::plugin::character::{Io3dCharacter, Io3dMesh, Io3dModel, MeshPart, RigMeshes};

    let dir = asset_dir();
    let mut app = character_app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let model: Handle<Io3dModel> = server.load("resource/model/animodel/biped.txt");
    let character = app.world_mut().spawn(Io3dCharacter::new(model.clone())).id();
    let parts = |app: &mut App| {
        let mut query = app.world_mut().query::<(&MeshPart, &Mesh3d, &SkinnedMesh, &ChildOf)>();
        let world = app.world();
        query.iter(world).map(|(p, m, s, c)| (p.clone(), m.0.clone(), s.clone(), c.parent())).collect::<Vec<_>>()
    };
    run_until(&mut app, "the character's meshes", |app| parts(app).len() == 2);
    let walk = app.world().resource::<Assets<Io3dModel>>().get(&model).unwrap().animation("BIPED_WALK_4002").cloned();
    assert!(walk.is_some(), "animations are found by name, without case");
    assert_eq!(app.world().get::<RigMeshes>(character).unwrap().0.len(), 2);

    let skeleton = Skeleton::from_bytes(&sample("biped.skl")).unwrap();
    let pure = Rig::new(&skeleton).unwrap();
    let clip = Clip::new(&Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap());
    let mut worst = 0.0f32;
    for at in [0.0, 375.0, 700.0] {
        seek(&mut app, character, at);
        let world = pure.world_pose(&clip, at);
        for (part, mesh, skinned, parent) in parts(&mut app) {
            assert_eq!(parent, character);
            let world_ref = app.world();
            let source = &world_ref.resource::<Assets<Io3dMesh>>().get(part.mesh).unwrap().mesh;
            let expected = client_skin(source, &pure, &world);
            let bevy_mesh = world_ref.resource::<Assets<Mesh>>().get(&mesh).unwrap();
            let binds =
                world_ref.resource::<Assets<SkinnedMeshInverseBindposes>>().get(&skinned.inverse_bindposes).unwrap();
            let joints: Vec<Mat4> = skinned
                .joints
                .iter()
                .zip(binds.iter())
                .map(|(&j, ib)| world_ref.get::<GlobalTransform>(j).unwrap().to_matrix() * *ib)
                .collect();
            let positions = bevy_mesh.attribute(Mesh::ATTRIBUTE_POSITION).unwrap().as_float3().unwrap();
            let Some(VertexAttributeValues::Uint16x4(indices)) = bevy_mesh.attribute(Mesh::ATTRIBUTE_JOINT_INDEX)
            else {
                panic!("joint indices")
            };
            let Some(VertexAttributeValues::Float32x4(weights)) = bevy_mesh.attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT)
            else {
                panic!("joint weights")
            };
            for (v, position) in positions.iter().enumerate() {
                let p = Vec3::from_array(*position);
                let moved: Vec3 =
                    (0..4).map(|k| joints[usize::from(indices[v][k])].transform_point3(p) * weights[v][k]).sum();
                worst = worst.max(Axes::EngineToBevy.position(moved).distance(expected[v]));
            }
        }
    }
    assert!(worst <= SKIN_GAP, "skinned vertices {worst} units from the client's");

    // Equipment: the sword comes off and goes back on a live character.
    let sword = app.world().get::<RigMeshes>(character).unwrap().0[1].clone();
    app.world_mut().get_mut::<RigMeshes>(character).unwrap().0.pop();
    run_until(&mut app, "the sword to come off", |app| parts(app).len() == 1);
    app.world_mut().get_mut::<RigMeshes>(character).unwrap().0.push(sword);
    run_until(&mut app, "the sword to go back on", |app| parts(app).len() == 2);
    let names: Vec<String> = parts(&mut app).into_iter().map(|(part, ..)| part.name).collect();
    assert!(names.contains(&"biped_sword".to_owned()), "{names:?}");

    fn client_skin(mesh: &MshMesh, rig: &Rig, world: &[bevy_io3d::anim::BonePose]) -> Vec<Vec3> {
        let binding = MeshBinding::new(mesh.weights.as_ref().unwrap(), rig);
        let root = bevy_io3d::anim::skin::bone_matrix(rig, world, 0);
        skin(mesh, &binding.matrices(rig, world), root).positions
    }
}

/// Editing a mesh file of a live character reloads it through the asset
/// server and the character wears the new version; a `.cms` loads as a
/// collision mesh with its triangles turned to Bevy's winding.
#[cfg(feature = "characters")]
#[test]
fn a_character_mesh_edited_on_disk_reloads_and_collision_meshes_load() {
    use bevy::mesh::{Mesh, Mesh3d};
    use bevy_io3d::format::Collision;
    use bevy_io3d::plugin::character::{Io3dCharacter, Io3dCollision, MeshPart};

    let dir = asset_dir();
    let mut app = character_app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let character = app.world_mut().spawn(Io3dCharacter::new(server.load("resource/model/animodel/biped.txt"))).id();
    let sword_vertices = |app: &mut App| {
        let mut parts = app.world_mut().query::<(&MeshPart, &Mesh3d, &ChildOf)>();
        let world = app.world();
        let meshes = world.resource::<Assets<Mesh>>();
        parts
            .iter(world)
            .filter(|(part, _, parent)| part.name == "biped_sword" && parent.parent() == character)
            .find_map(|(_, mesh, _)| meshes.get(&mesh.0).map(Mesh::count_vertices))
    };
    run_until(&mut app, "the sword", |app| sword_vertices(app) == Some(72));
    // The sword's file now holds the body.
    let mesh_dir = dir.path().join("resource/mesh");
    std::fs::copy(mesh_dir.join("biped_body.msh"), mesh_dir.join("biped_sword.msh")).unwrap();
    run_until(&mut app, "the sword to reload as the body", |app| sword_vertices(app) == Some(572));

    let collision = Collision {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Z],
        indices: vec![0, 1, 2, 0, 1, 9],
        trailing: Vec::new(),
    };
    std::fs::write(dir.path().join("floor.cms"), collision.to_bytes().unwrap()).unwrap();
    let floor: Handle<Io3dCollision> = server.load("floor.cms");
    run_until(&mut app, "the collision mesh", |app| app.world().resource::<AssetServer>().is_loaded(&floor));
    let world = app.world();
    let loaded = world.resource::<Assets<Io3dCollision>>().get(&floor).unwrap();
    assert_eq!(loaded.collision, collision);
    let mesh = world.resource::<Assets<Mesh>>().get(&loaded.mesh).unwrap();
    let Some(bevy::mesh::Indices::U16(indices)) = mesh.indices() else { panic!("u16 indices") };
    assert_eq!(indices, &[0, 2, 1], "the triangle naming vertex 9 is dropped, the other turned");
}

/// How far Bevy's glTF playback of our export lies from the exact geometry
/// of the keys (our sampler with unit rotations): glTF interpolates
/// rotations by true slerp where the client uses its warped nlerp, which
/// differ only between keys. Measured: 0.007 units, and 0.04 degrees, which
/// is the floor of `angle_between` in `f32`.
#[cfg(feature = "viewer")]
const GLTF_GAP: (f32, f32) = (0.02, 0.1);

/// The bundled character and its clips exported to `.glb` and read back by
/// an independent reader, Bevy's own glTF loader: every clip, played by
/// Bevy's `AnimationPlayer` on the spawned scene, poses the bones as our
/// sampler does at several times; so does an `.ani`'s `#BevyClip` made
/// with bevy_gltf's target ids (paths of names) in glTF's axes.
#[cfg(feature = "viewer")]
#[test]
fn a_gltf_export_plays_in_bevys_gltf_loader_as_in_our_player() {
    use bevy::gltf::{Gltf, GltfPlugin};
    use bevy::world_serialization::{WorldAssetRoot, WorldSerializationPlugin};
    use bevy_io3d::gltf::{ExportOptions, export};
    use bevy_io3d::resource::Character;
    use bevy_io3d::resource::MeshFiles;

    let dir = asset_dir();
    let config = dir.path().join("resource/model/animodel/biped.txt");
    let character = Character::load(&bevy_io3d::resource::Disk, &config).unwrap();
    let skeleton = character.skeleton.as_ref().unwrap().get().unwrap().clone();
    let meshes: Vec<MeshFiles> =
        character.meshes.iter().map(|m| MeshFiles::read(&bevy_io3d::resource::Disk, m).unwrap()).collect();
    let clips: Vec<(String, Animation)> = ["biped_walk_4000", "biped_idle_4001", "biped_attack_4002"]
        .map(|name| (name.to_owned(), Animation::from_bytes(&sample(&format!("{name}.ani"))).unwrap()))
        .to_vec();
    let named: Vec<(String, &Animation)> = clips.iter().map(|(n, a)| (n.clone(), a)).collect();
    let exported = export(&skeleton, &meshes, &named, ExportOptions::default()).unwrap();
    assert!(exported.warnings.is_empty(), "{:?}", exported.warnings);
    std::fs::write(dir.path().join("biped.glb"), &exported.bytes).unwrap();

    let mut app = unfinished_character_app(dir.path());
    app.add_plugins((WorldSerializationPlugin, GltfPlugin::default()));
    any_rig::register_scene_types(&mut app);
    app.finish();
    let server = app.world().resource::<AssetServer>().clone();
    let gltf: Handle<Gltf> = server.load("biped.glb");
    run_until(&mut app, "the glTF", |app| app.world().resource::<AssetServer>().is_loaded_with_dependencies(&gltf));
    let (scene, animations) = {
        let gltf = app.world().resource::<Assets<Gltf>>().get(&gltf).unwrap();
        assert_eq!(gltf.named_meshes.len(), 2);
        (gltf.default_scene.clone().unwrap(), gltf.named_animations.clone())
    };
    let root = app.world_mut().spawn(WorldAssetRoot(scene)).id();
    let bones = |app: &mut App| {
        let mut query = app.world_mut().query::<(Entity, &Name)>();
        let found: Vec<(Entity, String)> = query.iter(app.world()).map(|(e, n)| (e, n.to_string())).collect();
        skeleton
            .bones
            .iter()
            .map(|b| found.iter().find(|(_, n)| *n == b.name.to_text()).map(|(e, _)| *e))
            .collect::<Vec<Option<Entity>>>()
    };
    run_until(&mut app, "the scene", |app| bones(app).iter().all(Option::is_some));
    let bones: Vec<Entity> = bones(&mut app).into_iter().map(Option::unwrap).collect();
    let player = {
        let mut query = app.world_mut().query_filtered::<Entity, With<AnimationPlayer>>();
        query.single(app.world()).unwrap()
    };
    assert!(app.world().get::<ChildOf>(root).is_none());

    let rig = Rig::new(&skeleton).unwrap();
    for (name, animation) in &clips {
        let (graph, node) = AnimationGraph::from_clip(animations[name.as_str()].clone());
        let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
        let mut animation_player = AnimationPlayer::default();
        animation_player.play(node);
        animation_player.pause_all();
        app.world_mut().entity_mut(player).insert((animation_player, AnimationGraphHandle(graph)));
        // A new graph is prepared for playing in the frame after it is added.
        app.update();
        let clip = Clip::new(animation);
        for ms in [0, 180, 450, 777, animation.total_ms] {
            let mut player_ref = app.world_mut().get_mut::<AnimationPlayer>(player).unwrap();
            player_ref.animation_mut(node).unwrap().seek_to(ms as f32 / 1000.0);
            app.update();
            let theirs = world_poses(&app, &bones, ExportOptions::default().scale, GLTF_AXES);
            let ours = rig.unit_world_pose(&clip, ms as f32);
            assert_pose_eq(&theirs, &ours, GLTF_GAP, &format!("{name} at {ms} ms in Bevy's glTF loader"));
        }
    }

    // A clip the file does not hold, loaded as an `.ani` with its Bevy
    // clip aimed at the scene's paths, in glTF's axes and metres.
    let settings = |s: &mut AniLoaderSettings| {
        s.targets = BevyTargets::Paths { skeleton: "biped.skl".into(), above: Vec::new() };
        (s.axes, s.scale) = (Some(Axes::EngineToGltf), ExportOptions::default().scale);
    };
    let walk: Handle<AniClip> = server.load_builder().with_settings(settings).load("biped_walk_4002.ani");
    run_until(&mut app, "the walk", |app| app.world().resource::<AssetServer>().is_loaded_with_dependencies(&walk));
    let bevy_clip = app.world().resource::<Assets<AniClip>>().get(&walk).unwrap().bevy_clip.clone().unwrap();
    let (graph, node) = AnimationGraph::from_clip(bevy_clip);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    let mut animation_player = AnimationPlayer::default();
    animation_player.play(node).pause();
    app.world_mut().entity_mut(player).insert((animation_player, AnimationGraphHandle(graph)));
    app.update();
    let clip = Clip::new(&Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap());
    for ms in [0.0, 333.0, 700.0] {
        app.world_mut().get_mut::<AnimationPlayer>(player).unwrap().animation_mut(node).unwrap().seek_to(ms / 1000.0);
        app.update();
        let theirs = world_poses(&app, &bones, ExportOptions::default().scale, GLTF_AXES);
        assert_pose_eq(&theirs, &rig.unit_world_pose(&clip, ms), GLTF_GAP, &format!("the walk's #BevyClip at {ms} ms"));
    }
}

/// A player of the walk retargeted from the bundled Biped onto a
/// Mixamo-named rig ([`mixamo::spawn_bones`]) with its upper arms turned
/// by `arm_turn`. Returns the player and the bones by Mixamo name.
fn mixamo_rig(app: &mut App, arm_turn: f32) -> (Entity, std::collections::HashMap<&'static str, Entity>) {
    let biped = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap();
    let server = app.world().resource::<AssetServer>().clone();
    let player = AniPlayer::new(server.load("biped_walk_4002.ani"));
    let retarget = bevy_io3d::plugin::AniRetarget::new(server.load("biped.skl"));
    let root = app.world_mut().spawn((player, retarget)).id();
    (root, mixamo::spawn_bones(app.world_mut(), root, &biped, arm_turn))
}

#[test]
fn a_mixamo_rig_plays_the_walk_retargeted_with_limbs_where_the_bipeds_point() {
    use bevy_io3d::anim::axes::mirror_position;
    let dir = asset_dir();
    let walk = Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap();
    let biped = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap();
    let limbs = [
        ("Bip01 L UpperArm", "Bip01 L Forearm", "mixamorig:LeftArm", "mixamorig:LeftForeArm"),
        ("Bip01 R Forearm", "Bip01 R Hand", "mixamorig:RightForeArm", "mixamorig:RightHand"),
        ("Bip01 L Thigh", "Bip01 L Calf", "mixamorig:LeftUpLeg", "mixamorig:LeftLeg"),
        ("Bip01 R Calf", "Bip01 R Foot", "mixamorig:RightLeg", "mixamorig:RightFoot"),
    ];
    for arm_turn in [0.0, 0.7] {
        let mut app = app(dir.path());
        let (root, bones) = mixamo_rig(&mut app, arm_turn);
        run_until(&mut app, "the retargeted binding", |app| {
            app.world().get::<AniBinding>(root).is_some_and(|b| b.is_bound() && b.unbound_tracks.is_empty())
        });
        let position = |app: &App, name: &str| app.world().get::<GlobalTransform>(bones[name]).unwrap().translation();
        let mut hips = Vec::new();
        for ms in [100.0f32, 400.0, 700.0] {
            seek(&mut app, root, ms);
            let source = biped.unit_world_pose(&Clip::new(&walk), ms);
            let joint = |name: &str| mirror_position(source[biped.bone(name.as_bytes()).unwrap()].position);
            for (a, b, ta, tb) in limbs {
                let (want, got) = (joint(b) - joint(a), position(&app, tb) - position(&app, ta));
                let angle = want.angle_between(got).to_degrees();
                assert!(angle < 5.0, "{ta} at {ms} ms (arms turned {arm_turn}): {angle} degrees off");
            }
            // Where the rig rests as the Biped does, the answer needs no
            // retargeter: each bone whose parent is its Biped bone's parent
            // points from it as the Biped's does, as long, in the
            // armature's units (0.01), to 1% of its length (measured: 0.36%
            // at most, the player writing the client's slightly short
            // rotations, which Bevy composes as matrices).
            if arm_turn == 0.0 {
                let biped_of = |mixamo: &str| mixamo::MIXAMO.iter().find(|m| m.1 == mixamo).map(|m| m.0);
                for (biped_name, mixamo_name, parent) in mixamo::MIXAMO {
                    let Some(parent) = parent else { continue };
                    let biped_parent = biped.parents[biped.bone(biped_name.as_bytes()).unwrap()];
                    let biped_parent = biped_parent.map(|p| String::from_utf8_lossy(&biped.names[p]).into_owned());
                    if biped_parent.as_deref() != biped_of(parent) {
                        continue;
                    }
                    let want = (joint(biped_name) - joint(biped_of(parent).unwrap())) * 0.01;
                    let got = position(&app, mixamo_name) - position(&app, parent);
                    assert!(
                        got.distance(want) < 1e-2 * want.length(),
                        "{mixamo_name} at {ms} ms: {got} against the Biped's {want}"
                    );
                }
            }
            hips.push((position(&app, "mixamorig:Hips"), joint("Bip01 Pelvis")));
        }
        // The hips carry the Biped's travel, in the armature's units.
        let travelled = hips[2].0 - hips[0].0;
        let expected = (hips[2].1 - hips[0].1) * 0.01;
        assert!(travelled.distance(expected) < 0.05 * expected.length(), "{travelled} against {expected}");
    }
}

/// Binding skips a player that nothing changed since it was last posed
/// bound: a change after that still reaches it, whether to its
/// retargeting (removed: the bones it let go of return to rest), to the
/// player (a clip started) or to its axes.
#[test]
fn a_settled_player_still_binds_what_changes_after_it_settles() {
    use bevy_io3d::anim::{Action, Loop};
    use bevy_io3d::plugin::{AniRetarget, BoneRest, Io3dBone};
    let dir = asset_dir();
    let mut app = app(dir.path());
    let settle = |app: &mut App| (0..3).for_each(|_| app.update());
    let (root, bones) = mixamo_rig(&mut app, 0.0);
    let binding = |app: &App, player| app.world().get::<AniBinding>(player).unwrap().clone();
    run_until(&mut app, "the retargeted binding", |app| {
        binding(app, root).is_bound() && binding(app, root).unbound_tracks.is_empty()
    });
    settle(&mut app);
    // Without retargeting, the Biped's track names meet no Mixamo bone.
    app.world_mut().entity_mut(root).remove::<AniRetarget>();
    app.update();
    assert!(!binding(&app, root).unbound_tracks.is_empty(), "the walk's own tracks are bound again");
    app.update();
    for (name, &bone) in &bones {
        assert_eq!(app.world().get::<Io3dBone>(bone), None, "{name} let go");
        let (now, rest) = (app.world().get::<Transform>(bone).unwrap(), app.world().get::<BoneRest>(bone).unwrap());
        assert_eq!(*now, rest.0, "{name} back at rest");
    }
    settle(&mut app);
    let server = app.world().resource::<AssetServer>().clone();
    let attack: Handle<AniClip> = server.load("biped_attack_4002.ani");
    app.world_mut().get_mut::<AniPlayer>(root).unwrap().play_action(attack.clone(), Action::faded(100.0, 100.0));
    run_until(&mut app, "the attack bound", |app| binding(app, root).clip(attack.id()).is_some());

    // A bone of a clip at weight 0 stays at rest, in whatever axes.
    let walk = server.load("biped_walk_4000.ani");
    let mut player = AniPlayer::default();
    player.play_loop(walk, Loop { weight: 0.0, ..Loop::default() });
    let still = app.world_mut().spawn(player).id();
    let rest = Transform::from_xyz(1.0, 2.0, 3.0);
    let hips = app.world_mut().spawn((Name::new("Bip01"), rest, ChildOf(still))).id();
    run_until(&mut app, "the still player", |app| binding(app, still).is_bound());
    settle(&mut app);
    assert_eq!(*app.world().get::<Transform>(hips).unwrap(), rest);
    app.world_mut().entity_mut(still).insert(Axes::EngineToGltf);
    app.update();
    assert_eq!(*app.world().get::<Transform>(hips).unwrap(), rest, "at rest in the new axes");
}

/// A bone map in a file (`*.bonemap`), loaded as an asset, overrides the
/// suggested one, and editing the file remakes the player's clips: a map
/// without the arms leaves them at rest; the whole map moves them.
#[test]
fn a_bone_map_file_drives_the_retarget_and_reloads() {
    use bevy_io3d::plugin::AniRetarget;
    let dir = asset_dir();
    let mut app = app(dir.path());
    let map = |arms: bool| -> String {
        let wanted =
            mixamo::MIXAMO.iter().filter(|(_, name, _)| arms || !name.contains("Arm") && !name.contains("Shoulder"));
        wanted.map(|(biped, mixamo, _)| format!("{biped} = {mixamo}\n")).collect()
    };
    std::fs::write(dir.path().join("mixamo.bonemap"), map(false)).unwrap();
    let (root, bones) = mixamo_rig(&mut app, 0.0);
    let server = app.world().resource::<AssetServer>().clone();
    let retarget = AniRetarget::new(server.load("biped.skl")).with_map_file(server.load("mixamo.bonemap"));
    app.world_mut().entity_mut(root).insert(retarget);
    let arm_bound = |app: &App| {
        let binding = app.world().get::<AniBinding>(root).filter(|b| b.is_bound())?;
        Some(!binding.bones_without_track.iter().any(|name| name == "mixamorig:LeftArm"))
    };
    run_until(&mut app, "the binding by the map file", |app| arm_bound(app) == Some(false));
    let arm = |app: &App| app.world().get::<Transform>(bones["mixamorig:LeftArm"]).copied().unwrap();
    let thigh = |app: &App| app.world().get::<Transform>(bones["mixamorig:LeftUpLeg"]).copied().unwrap();
    let (arm_rest, thigh_rest) = (arm(&app), thigh(&app));
    seek(&mut app, root, 400.0);
    assert_eq!(arm(&app), arm_rest, "an arm the map leaves out stays at rest");
    assert!(thigh(&app).rotation.angle_between(thigh_rest.rotation) > 0.05, "a mapped leg walks");
    std::fs::write(dir.path().join("mixamo.bonemap"), map(true)).unwrap();
    run_until(&mut app, "the edited map to rebind", |app| arm_bound(app) == Some(true));
    seek(&mut app, root, 400.0);
    assert!(arm(&app).rotation.angle_between(arm_rest.rotation) > 0.01, "the arm swings once mapped");
}

/// Where each Biped limb's joints are on a character Blender built, by
/// the Blender rig's bone names: (Biped joint, next Biped joint, the rig's
/// joint, its next joint).
#[cfg(feature = "viewer")]
type Limb = (&'static str, &'static str, &'static str, &'static str);

#[cfg(feature = "viewer")]
const MIXAMO_LIMBS: [Limb; 8] = [
    ("Bip01 L UpperArm", "Bip01 L Forearm", "mixamorig:LeftArm", "mixamorig:LeftForeArm"),
    ("Bip01 L Forearm", "Bip01 L Hand", "mixamorig:LeftForeArm", "mixamorig:LeftHand"),
    ("Bip01 R UpperArm", "Bip01 R Forearm", "mixamorig:RightArm", "mixamorig:RightForeArm"),
    ("Bip01 R Forearm", "Bip01 R Hand", "mixamorig:RightForeArm", "mixamorig:RightHand"),
    ("Bip01 L Thigh", "Bip01 L Calf", "mixamorig:LeftUpLeg", "mixamorig:LeftLeg"),
    ("Bip01 L Calf", "Bip01 L Foot", "mixamorig:LeftLeg", "mixamorig:LeftFoot"),
    ("Bip01 R Thigh", "Bip01 R Calf", "mixamorig:RightUpLeg", "mixamorig:RightLeg"),
    ("Bip01 R Calf", "Bip01 R Foot", "mixamorig:RightLeg", "mixamorig:RightFoot"),
];

#[cfg(feature = "viewer")]
const BLENDER_LIMBS: [Limb; 8] = [
    ("Bip01 L UpperArm", "Bip01 L Forearm", "upper_arm.L", "forearm.L"),
    ("Bip01 L Forearm", "Bip01 L Hand", "forearm.L", "hand.L"),
    ("Bip01 R UpperArm", "Bip01 R Forearm", "upper_arm.R", "forearm.R"),
    ("Bip01 R Forearm", "Bip01 R Hand", "forearm.R", "hand.R"),
    ("Bip01 L Thigh", "Bip01 L Calf", "thigh.L", "shin.L"),
    ("Bip01 L Calf", "Bip01 L Foot", "shin.L", "foot.L"),
    ("Bip01 R Thigh", "Bip01 R Calf", "thigh.R", "shin.R"),
    ("Bip01 R Calf", "Bip01 R Foot", "shin.R", "foot.R"),
];

/// The named entity `name`, once there is one.
#[cfg(feature = "viewer")]
fn entity(app: &mut App, name: &str) -> Option<Entity> {
    let mut names = app.world_mut().query::<(Entity, &Name)>();
    names.iter(app.world()).find(|(_, n)| n.as_str() == name).map(|(e, _)| e)
}

/// An app with `file`'s scene, loaded by bevy_gltf, playing `clip` (made
/// on the bundled Biped) through `AniPlayer` with `AniRetarget`, bound
/// once the bone `waits_for` is spawned. Returns the app and the player.
#[cfg(feature = "viewer")]
fn retargeted_scene(dir: &Path, file: &str, clip: &str, waits_for: &str) -> (App, Entity) {
    use bevy::gltf::Gltf;
    use bevy::world_serialization::WorldAssetRoot;
    use bevy_io3d::plugin::AniRetarget;
    let mut app = any_rig::headless_app(AssetPlugin { file_path: dir.display().to_string(), ..default() });
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(STEP_MS)));
    let server = app.world().resource::<AssetServer>().clone();
    let gltf: Handle<Gltf> = server.load(file.to_owned());
    run_until(&mut app, file, |app| app.world().resource::<AssetServer>().is_loaded_with_dependencies(&gltf));
    let scene = app.world().resource::<Assets<Gltf>>().get(&gltf).unwrap().default_scene.clone().unwrap();
    let player = AniPlayer::new(server.load(clip.to_owned()));
    let root = app.world_mut().spawn((WorldAssetRoot(scene), player, AniRetarget::new(server.load("biped.skl")))).id();
    run_until(&mut app, "the character to bind", |app| {
        entity(app, waits_for).is_some()
            && app.world().get::<AniBinding>(root).is_some_and(|b| b.is_bound() && b.unbound_tracks.is_empty())
    });
    (app, root)
}

/// How far (game units) the crate's own export, played retargeted, puts a
/// joint from the Biped's own pose as the player shows it in Bevy:
/// measured up to 0.0008 units (float rounding through metres). From the
/// exact geometry of the keys (`unit_world_pose`) the player puts joints
/// up to 0.20 units off at the toes, on the Biped itself as on the export:
/// its sampled rotations are about 0.9996 long (the client's slerp), and
/// Bevy composes them through matrices (a short rotation makes a matrix
/// that is not quite a turn), which bends each limb a little.
#[cfg(feature = "viewer")]
const EXPORT_GAP: f32 = 0.01;

/// The joints `AniPlayer` gives `rig` playing `clip` at `ms` in Bevy, in
/// the files' axes: its local poses (the pure sampler's, to the bit)
/// composed as Bevy's propagation composes transforms, rotations as they
/// are.
#[cfg(feature = "viewer")]
fn composed_as_bevy(rig: &Rig, clip: &Clip, ms: f32) -> Vec<Vec3> {
    let local = rig.local_pose(clip, ms);
    let mut world = vec![Affine3A::IDENTITY; rig.len()];
    for &bone in &rig.order {
        let own = Affine3A::from_rotation_translation(local[bone].rotation, local[bone].position);
        world[bone] = rig.parents[bone].map_or(own, |parent| world[parent] * own);
    }
    world.iter().map(|pose| Vec3::from(pose.translation)).collect()
}

/// The crate's own export of the bundled Biped (in metres, glTF's axes),
/// loaded by bevy_gltf, plays the walk through `AniPlayer` with
/// `AniRetarget`: every joint within [`EXPORT_GAP`] units (times the
/// export's scale) of where the player puts the Biped's own joints,
/// turned to glTF's axes.
#[cfg(feature = "viewer")]
#[test]
fn the_crates_own_export_plays_through_aniplayer_in_metres() {
    use bevy_io3d::anim::axes::mirror_x_position;
    use bevy_io3d::gltf::{ExportOptions, export};
    let dir = asset_dir();
    let skeleton = Skeleton::from_bytes(&sample("biped.skl")).unwrap();
    let options = ExportOptions::default();
    let exported = export(&skeleton, &[], &[], options).unwrap();
    std::fs::write(dir.path().join("biped.glb"), &exported.bytes).unwrap();
    let (mut app, root) = retargeted_scene(dir.path(), "biped.glb", "biped_walk_4002.ani", "Bip01 R Hand");
    let biped = Rig::new(&skeleton).unwrap();
    let walk = Clip::new(&Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap());
    for ms in [0.0f32, 250.0, 500.0, 750.0] {
        seek(&mut app, root, ms);
        let joints = composed_as_bevy(&biped, &walk, ms);
        for (bone, name) in biped.names.iter().enumerate() {
            let name = String::from_utf8_lossy(name);
            let found = entity(&mut app, &name).unwrap();
            let got = app.world().get::<GlobalTransform>(found).unwrap().translation();
            let want = mirror_x_position(joints[bone]) * options.scale;
            assert!(got.distance(want) < EXPORT_GAP * options.scale, "{name} at {ms} ms: {got} against {want}");
        }
    }
}

/// Characters built by Blender itself (a Mixamo-named one in a T-pose
/// under a 0.01 armature, and a `.L`/`.R` one in an A-pose), exported at
/// Blender's defaults, loaded by bevy_gltf and played through `AniPlayer`
/// with `AniRetarget` and a suggested map: the upper arms, forearms,
/// thighs and calves point within 5 degrees of the Biped's, both facing
/// the same way, and the hips travel the Biped's travel times the ratio
/// of hip heights, within 5%.
#[cfg(feature = "viewer")]
#[test]
fn characters_blender_built_play_the_walk_and_attack_retargeted() {
    use bevy_io3d::anim::axes::mirror_x_position;
    if !common::have_blender() {
        return;
    }
    let dir = asset_dir();
    let built = common::blender(&[&"characters", &dir.path()]);
    // The hips' rest height (glTF's Y, metres) as Blender built them.
    let rest_height = |file: &str, hips: &str| {
        let bones = built[file.trim_end_matches(".glb")]["bones"].as_array().unwrap();
        bones.iter().find(|b| b["name"] == hips).unwrap()["head"][1].as_f64().unwrap() as f32
    };
    let biped = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap();
    let pelvis_height = biped.unit_to_world(&biped.rest)[biped.bone(b"Bip01 Pelvis").unwrap()].position.y;
    let mixamo_ends = [
        ("Bip01 L Hand", "mixamorig:LeftHand"),
        ("Bip01 R Hand", "mixamorig:RightHand"),
        ("Bip01 L Foot", "mixamorig:LeftFoot"),
        ("Bip01 R Foot", "mixamorig:RightFoot"),
    ];
    let blender_ends = [
        ("Bip01 L Hand", "hand.L"),
        ("Bip01 R Hand", "hand.R"),
        ("Bip01 L Foot", "foot.L"),
        ("Bip01 R Foot", "foot.R"),
    ];
    let characters = [
        ("mixamo.glb", MIXAMO_LIMBS, mixamo_ends, "mixamorig:Hips"),
        ("blender_lr.glb", BLENDER_LIMBS, blender_ends, "hips"),
    ];
    for (file, limbs, ends, hips) in characters {
        for clip in ["biped_walk_4002.ani", "biped_attack_4002.ani"] {
            let (mut app, root) = retargeted_scene(dir.path(), file, clip, hips);
            let position = |app: &mut App, name: &str| {
                let bone = entity(app, name).unwrap();
                app.world().get::<GlobalTransform>(bone).unwrap().translation()
            };
            seek(&mut app, root, 0.0);
            let hips_rest_height = rest_height(file, hips);
            let animation = Animation::from_bytes(&sample(clip)).unwrap();
            let source = Clip::new(&animation);
            let mut travel = Vec::new();
            for ms in [0.0f32, 300.0, 600.0] {
                seek(&mut app, root, ms);
                let pose = biped.unit_world_pose(&source, ms);
                let joint = |name: &str| mirror_x_position(pose[biped.bone(name.as_bytes()).unwrap()].position);
                for (a, b, ta, tb) in limbs {
                    let want = joint(b) - joint(a);
                    let got = position(&mut app, tb) - position(&mut app, ta);
                    let angle = want.angle_between(got).to_degrees();
                    assert!(angle < 5.0, "{file} {clip}: {ta} at {ms} ms is {angle} degrees off");
                }
                // Hands and feet (ends of their chains) by the way they
                // point: a Biped bone along its X, a Blender bone along its Y.
                for (biped_bone, bone) in ends {
                    let turn = pose[biped.bone(biped_bone.as_bytes()).unwrap()].rotation;
                    let want = mirror_x_position(turn * Vec3::X);
                    let found = entity(&mut app, bone).unwrap();
                    let got = app.world().get::<GlobalTransform>(found).unwrap().rotation() * Vec3::Y;
                    let angle = want.angle_between(got).to_degrees();
                    assert!(angle < 10.0, "{file} {clip}: {bone} at {ms} ms points {angle} degrees off");
                }
                travel.push((position(&mut app, hips), joint("Bip01 Pelvis")));
            }
            if clip.contains("walk") {
                // The example's JSON names the same joints where the app
                // put them.
                let request = any_rig::Request {
                    scene: dir.path().join(file),
                    clip: common::asset(clip),
                    skeleton: common::asset("biped.skl"),
                    at_ms: Some(600.0),
                    screenshot: None,
                };
                let json: serde_json::Value = serde_json::from_str(&any_rig::headless_pose(&request, 600.0)).unwrap();
                let bones = json["bones"].as_array().unwrap();
                let hip = bones.iter().find(|b| b["node"] == hips).expect("the hips in the JSON");
                assert_eq!(hip["track"], hips, "driven by the retargeted clip's track");
                let at: Vec<f32> =
                    hip["world_position"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
                assert!(Vec3::from_slice(&at).distance(travel[2].0) < 1e-3, "{at:?} against {}", travel[2].0);
            }
            let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
            let travelled = flat(travel[2].0 - travel[0].0);
            let expected = flat(travel[2].1 - travel[0].1) * (hips_rest_height / pelvis_height);
            let tolerance = 0.05 * expected.length().max(0.01);
            assert!(travelled.distance(expected) <= tolerance, "{file} {clip}: hips {travelled}, expected {expected}");
        }
    }
}

/// A clip that stops lets go of the bones only it drove: they lose their
/// `Io3dBone` and return to rest, while the clip still playing keeps its
/// own (the binder once kept them marked for as long as every clip still
/// playing stayed bound).
#[test]
fn a_clip_that_stops_lets_its_bones_go_back_to_rest() {
    use bevy_io3d::anim::Loop;
    use bevy_io3d::plugin::{BoneRest, Io3dBone};
    let dir = asset_dir();
    let mut hips_only = Animation::from_bytes(&sample("biped_walk_4000.ani")).unwrap();
    hips_only.tracks.retain(|track| track.bone.c_str() == b"Bip01");
    std::fs::write(dir.path().join("hips.ani"), hips_only.to_bytes().unwrap()).unwrap();
    let mut app = app(dir.path());
    let server = app.world().resource::<AssetServer>().clone();
    let (walk, hips): (Handle<AniClip>, Handle<AniClip>) =
        (server.load("biped_walk_4000.ani"), server.load("hips.ani"));
    let mut player = AniPlayer::default();
    player.play_loop(walk.clone(), Loop::default());
    player.play_loop(hips.clone(), Loop::default());
    let root = app.world_mut().spawn((player, Axes::AsIs)).id();
    let hip = app.world_mut().spawn((Name::new("Bip01"), Transform::default(), ChildOf(root))).id();
    let rest = Transform::from_xyz(1.0, 2.0, 3.0);
    let thigh = app.world_mut().spawn((Name::new("Bip01 L Thigh"), rest, ChildOf(hip))).id();
    run_until(&mut app, "both clips bound", |app| {
        let binding = app.world().get::<AniBinding>(root).unwrap();
        binding.clip(walk.id()).is_some() && binding.clip(hips.id()).is_some()
    });
    app.update();
    assert_eq!(app.world().get::<Io3dBone>(thigh).map(|b| b.player), Some(root), "the walk drives the thigh");
    assert_ne!(*app.world().get::<Transform>(thigh).unwrap(), rest);
    app.world_mut().get_mut::<AniPlayer>(root).unwrap().clear_loop(&walk, 0.0, false);
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().get::<Io3dBone>(thigh), None, "the thigh is let go");
    assert_eq!(*app.world().get::<Transform>(thigh).unwrap(), rest, "and back at rest");
    assert_eq!(app.world().get::<BoneRest>(thigh).map(|r| r.0), Some(rest));
    assert_eq!(app.world().get::<Io3dBone>(hip).map(|b| b.player), Some(root), "the hips still play");
    assert!(app.world().get::<AniBinding>(root).unwrap().clip(walk.id()).is_none());
}

/// The game's component changes only when the game writes it: playing on
/// leaves `Changed<AniPlayer>` false, frame after frame. A call made in
/// `Update` is made that same frame: its clip is bound, started under the
/// id the call returned, advanced and posed before the frame ends.
#[test]
fn only_the_game_changes_the_player_and_a_call_plays_the_frame_it_is_made() {
    use bevy_io3d::anim::Action;
    use bevy_io3d::anim::mixer::State;
    #[derive(Resource, Default)]
    struct Changes(Vec<bool>);
    let dir = asset_dir();
    let mut app = app(dir.path());
    app.init_resource::<Changes>();
    app.add_systems(Last, |players: Query<Ref<AniPlayer>>, mut changes: ResMut<Changes>| {
        changes.0.extend(players.iter().map(|player| player.is_changed()));
    });
    let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop);
    let attack: Handle<AniClip> = app.world().resource::<AssetServer>().load("biped_attack_4002.ani");
    run_until(&mut app, "the attack", |app| app.world().resource::<AssetServer>().is_loaded(&attack));
    app.world_mut().resource_mut::<Changes>().0.clear();
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(app.world().resource::<Changes>().0, [false; 10], "playing on is not the game's change");
    let id = app.world_mut().get_mut::<AniPlayer>(rig).unwrap().play_action(attack.clone(), Action::default());
    app.update();
    assert_eq!(app.world().resource::<Changes>().0.last(), Some(&true), "the call is");
    let playback = app.world().get::<AniPlayback>(rig).unwrap();
    let started = playback.instance(id).map(|i| (i.clip, i.state(), i.time_ms()));
    assert_eq!(started, Some((attack.id(), State::Play, STEP_MS as f32)), "started and advanced this frame");
    assert!(app.world().get::<AniBinding>(rig).unwrap().clip(attack.id()).is_some(), "bound this frame");
    // Posed too: most bones leave the walk's pose at the walk's time.
    let pure = Rig::new(&Skeleton::from_bytes(&sample("biped.skl")).unwrap()).unwrap();
    let walk = Animation::from_bytes(&sample("biped_walk_4002.ani")).unwrap();
    let now = app.world().get::<AniPlayback>(rig).unwrap().time_ms();
    let walking = pure.local_pose(&Clip::new(&walk), now).into_iter().map(|local| Axes::EngineToBevy.transform(&local));
    let bones = app.world().get::<RigBones>(rig).unwrap().0.clone();
    let attacked =
        bones.iter().zip(walking).filter(|(bone, walking)| app.world().get::<Transform>(**bone) != Some(walking));
    assert!(attacked.count() > bones.len() / 2, "and posed: the attack moves most bones");
}

/// A player put in another's place starts afresh, and the ids it hands out
/// name none of the old one's clips. A call restarting the transport's
/// loop leaves it the transport's: the time reads it, and a new clip
/// replaces it rather than playing beside it.
#[test]
fn a_new_player_starts_afresh_and_a_call_on_the_transports_loop_keeps_it_the_transports() {
    use bevy_io3d::anim::{Action, Loop};
    let dir = asset_dir();
    let mut app = app(dir.path());
    let rig = spawn_walker(&mut app, "biped_walk_4002.ani", RepeatMode::Loop);
    let server = app.world().resource::<AssetServer>().clone();
    let (walk, attack): (Handle<AniClip>, Handle<AniClip>) =
        (server.load("biped_walk_4002.ani"), server.load("biped_attack_4002.ani"));
    run_until(&mut app, "the attack", |app| app.world().resource::<AssetServer>().is_loaded(&attack));
    let clips = |app: &App| {
        let playback = app.world().get::<AniPlayback>(rig).unwrap();
        playback.instances().map(|i| (i.id, i.clip)).collect::<Vec<_>>()
    };

    // The game restarts the transport's loop: one loop, under the call's id.
    let restarted = app.world_mut().get_mut::<AniPlayer>(rig).unwrap().play_loop(walk.clone(), Loop::default());
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(clips(&app), [(restarted, walk.id())]);
    assert_eq!(app.world().get::<AniPlayback>(rig).unwrap().time_ms(), 10.0 * STEP_MS as f32);
    app.world_mut().get_mut::<AniPlayer>(rig).unwrap().clip = Some(attack.clone());
    app.update();
    let playing = clips(&app);
    assert_eq!(playing.len(), 1, "the attack replaced the walk: {playing:?}");
    assert_eq!(playing[0].1, attack.id());

    // Another player in its place: the old clips go, and its ids are new.
    let old = playing[0].0;
    let mut fresh = AniPlayer::default();
    let punch = fresh.play_action(attack.clone(), Action::default());
    app.world_mut().entity_mut(rig).insert(fresh);
    app.update();
    assert_eq!(clips(&app), [(punch, attack.id())]);
    assert_ne!(punch, old);
    *app.world_mut().get_mut::<AniPlayer>(rig).unwrap() = AniPlayer::new(walk.clone());
    app.update();
    assert_eq!(clips(&app).iter().map(|(_, clip)| *clip).collect::<Vec<_>>(), [walk.id()], "assigned afresh too");
}
