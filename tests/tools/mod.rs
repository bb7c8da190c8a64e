//! The tools users have, run on the project's glTF files: Blender 5.0.1
//! (the `bpy` module from PyPI, its bundled glTF add-on) imports and
//! re-exports them through `blender.py`, and the Khronos validator (npm
//! `gltf-validator`) checks every export through `validate.js`.
//!
//! `.ci/run` installs both. On a machine without them each test says what
//! is missing and how to install it, and passes; with `CI` set, a missing
//! tool fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

use bevy_io3d::anim::{Clip, Rig};
use bevy_io3d::format::{Animation, Skeleton};
use glam::Vec3;
use serde_json::Value;

use super::{asset, io3d, stdout};
use crate::common::{blender, have, have_blender};

/// Where `.ci/run` installs the validator's npm package.
fn validator_modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/node_modules")
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools").join(name)
}

fn have_validator() -> bool {
    let found = validator_modules().join("gltf-validator").is_dir();
    have("the Khronos glTF validator", found, "npm install --prefix target/tools gltf-validator@2.0.0-dev.3.10")
}

/// The validator's report on each file.
fn validate(files: &[&Path]) -> Vec<Value> {
    let output = Command::new("node")
        .arg(script("validate.js"))
        .args(files)
        .env("NODE_PATH", validator_modules())
        .output()
        .expect("node runs");
    assert!(output.status.success(), "validate.js failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// A position in the engine's axes and units as Blender shows it after
/// importing our export: glTF mirrors X and uses metres; Blender turns
/// glTF's Y up into Z up.
fn in_blender(p: Vec3) -> Vec3 {
    Vec3::new(-p.x, -p.z, p.y) * 0.01
}

fn vec3(value: &Value) -> Vec3 {
    let xyz: Vec<f32> = value.as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
    Vec3::new(xyz[0], xyz[1], xyz[2])
}

fn skeleton() -> Skeleton {
    Skeleton::from_bytes(&std::fs::read(asset("biped.skl")).unwrap()).unwrap()
}

fn animation(path: &Path) -> Animation {
    Animation::from_bytes(&std::fs::read(path).unwrap()).unwrap()
}

/// Exports made the ways users make them: a whole character, a skeleton
/// with clips and no mesh, a skeleton with one mesh, and a static model
/// with its collision mesh.
fn exports(dir: &Path) -> Vec<PathBuf> {
    let character = dir.join("character.glb");
    stdout(&io3d(&[&"export", &asset("resource/model/animodel/biped.txt"), &"-o", &character]));
    let skeleton_only = dir.join("skeleton.glb");
    let walk = asset("biped_walk_4002.ani");
    stdout(&io3d(&[&"export", &"--skeleton", &asset("biped.skl"), &walk, &"-o", &skeleton_only]));
    let body = dir.join("body.glb");
    let mesh = asset("resource/mesh/biped_body.msh");
    let attack = asset("biped_attack_4001.ani");
    stdout(&io3d(&[&"export", &"--skeleton", &asset("biped.skl"), &"--mesh", &mesh, &attack, &"-o", &body]));
    let stage = dir.join("stage.glb");
    stdout(&io3d(&[&"export", &asset("resource/model/staticmodel/stage.txt"), &"-o", &stage]));
    vec![character, skeleton_only, body, stage]
}

#[test]
fn every_export_has_no_error_and_no_warning_from_the_khronos_validator() {
    if !have_validator() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = exports(dir.path());
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    for report in validate(&paths) {
        eprintln!("{report}");
        assert_eq!((&report["errors"], &report["warnings"]), (&Value::from(0), &Value::from(0)), "{report}");
    }
}

#[test]
fn blender_imports_every_export_as_an_armature_posed_as_the_keys_say() {
    if !have_blender() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = exports(dir.path());
    let rig = Rig::new(&skeleton()).unwrap();
    let walk = Clip::new(&animation(&asset("biped_walk_4002.ani")));
    let times = [0.0, 250.0, 500.0, 875.0];
    for (file, action) in [(&files[0], "biped_walk_4002"), (&files[1], "biped_walk_4002")] {
        let args: Vec<String> = times.iter().map(|t| t.to_string()).collect();
        let mut call: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"pose", file, &action];
        call.extend(args.iter().map(|a| a as &dyn AsRef<std::ffi::OsStr>));
        let seen = blender(&call);
        assert_eq!((seen["armatures"].as_u64(), seen["bones"].as_u64()), (Some(1), Some(22)), "{}", file.display());
        assert_eq!(seen["empties"], 0, "{}: bones, not empties", file.display());
        let mut gap = 0.0f32;
        for (i, &ms) in times.iter().enumerate() {
            // The exact geometry of the keys: the file holds unit
            // rotations, where the client composes slightly short ones.
            let pose = rig.unit_world_pose(&walk, ms);
            for (bone, name) in rig.names.iter().enumerate() {
                let head = vec3(&seen["heads"][String::from_utf8_lossy(name).as_ref()][i]);
                gap = gap.max(head.distance(in_blender(pose[bone].position)));
            }
        }
        eprintln!("{}: Blender's bone heads within {gap:.6} m of the keys' poses", file.display());
        assert!(gap < 2e-4, "{}: {gap} m", file.display());
    }
}

/// The world poses of two clips on one rig, compared at `times`: the
/// largest distance between joints.
fn pose_gap(rig: &Rig, a: &Animation, b: &Animation, times: &[f32]) -> f32 {
    let (a, b) = (Clip::new(a), Clip::new(b));
    let mut gap = 0.0f32;
    for &t in times {
        for (x, y) in rig.unit_world_pose(&a, t).iter().zip(rig.unit_world_pose(&b, t)) {
            gap = gap.max(x.position.distance(y.position));
        }
    }
    gap
}

#[test]
fn a_clip_comes_back_from_blender_with_its_length_events_and_poses() {
    if !have_blender() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = asset("biped_attack_4002.ani");
    let original = animation(&source);
    let glb = dir.path().join("attack.glb");
    stdout(&io3d(&[&"export", &"--skeleton", &asset("biped.skl"), &source, &"-o", &glb]));
    let rig = Rig::new(&skeleton()).unwrap();
    let times: Vec<f32> = (0..=120).map(|i| i as f32 * 10.0).collect();
    for settings in ["recommended", "default"] {
        let back = dir.path().join(format!("{settings}.glb"));
        blender(&[&"roundtrip", &glb, &back, &settings]);
        let ani = dir.path().join(format!("{settings}.ani"));
        let skeleton = asset("biped.skl");
        let mut call: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"import", &back, &"--skeleton", &skeleton];
        // Blender's default export drops what glTF keeps in extras: the
        // original `.ani` gives it back.
        if settings == "default" {
            call.extend([&"--base" as &dyn AsRef<std::ffi::OsStr>, &source]);
        }
        call.extend([&"-o" as &dyn AsRef<std::ffi::OsStr>, &ani]);
        stdout(&io3d(&call));
        let imported = animation(&ani);
        assert_eq!(imported.total_ms, original.total_ms, "{settings}: the length");
        assert_eq!(imported.events, original.events, "{settings}: the events");
        assert_eq!(imported.version, original.version, "{settings}: the version");
        let gap = pose_gap(&rig, &original, &imported, &times);
        eprintln!("{settings} export: poses within {gap:.3} units every 10 ms");
        // Without forced sampling the keys come back as they were; the
        // default samples 24 frames a second, which moves poses between
        // frames.
        let bound = if settings == "recommended" { 0.05 } else { 6.0 };
        assert!(gap < bound, "{settings}: {gap} units");
    }
}

/// The world direction, as Blender shows it, from one joint to the next.
fn direction(rig: &Rig, pose: &[bevy_io3d::anim::BonePose], from: &str, to: &str) -> Vec3 {
    let (a, b) = (rig.bone(from.as_bytes()).unwrap(), rig.bone(to.as_bytes()).unwrap());
    in_blender(pose[b].position - pose[a].position).normalize()
}

#[test]
fn rigs_resting_in_a_t_pose_or_an_a_pose_move_the_biped_where_their_limbs_point() {
    if !have_blender() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (t_pose, a_pose) = (dir.path().join("t.glb"), dir.path().join("a.glb"));
    let times = [0.0f32, 250.0, 500.0, 750.0];
    let seen = blender(&[&"rigs", &t_pose, &a_pose, &"0", &"250", &"500", &"750"]);
    let biped = |mixamo: &str| match mixamo {
        "LeftArm" => "Bip01 L UpperArm",
        "LeftForeArm" => "Bip01 L Forearm",
        "LeftHand" => "Bip01 L Hand",
        "RightArm" => "Bip01 R UpperArm",
        "RightForeArm" => "Bip01 R Forearm",
        "RightHand" => "Bip01 R Hand",
        "LeftUpLeg" => "Bip01 L Thigh",
        "LeftLeg" => "Bip01 L Calf",
        "LeftFoot" => "Bip01 L Foot",
        "RightUpLeg" => "Bip01 R Thigh",
        "RightLeg" => "Bip01 R Calf",
        "RightFoot" => "Bip01 R Foot",
        other => panic!("no Biped bone for {other}"),
    };
    let rig = Rig::new(&skeleton()).unwrap();
    for (glb, key) in [(&t_pose, "t"), (&a_pose, "a")] {
        for rest in ["align", "keep"] {
            let ani = dir.path().join(format!("{key}_{rest}.ani"));
            stdout(&io3d(&[&"import", glb, &"--skeleton", &asset("biped.skl"), &"--rest", &rest, &"-o", &ani]));
            let clip = Clip::new(&animation(&ani));
            let mut worst = 0.0f32;
            for (limb, directions) in seen["directions"][key].as_object().unwrap() {
                let (from, to) = limb.split_once('>').unwrap();
                for (i, &ms) in times.iter().enumerate() {
                    let pose = rig.world_pose(&clip, ms);
                    let got = direction(&rig, &pose, biped(from), biped(to));
                    worst = worst.max(got.angle_between(vec3(&directions[i])).to_degrees());
                }
            }
            eprintln!("{key}-pose rig, rest {rest}: limbs within {worst:.2} degrees of the source's");
            match (key, rest) {
                (_, "align") => assert!(worst < 2.0, "{key}-pose rig: {worst} degrees"),
                ("t", _) => assert!(worst > 60.0, "keeping a T-pose's rest turns the arms away: {worst}"),
                _ => {}
            }
        }
    }
}

/// Blender's own armatures, exported at its defaults (a Mixamo-named one
/// under an armature object scaled 0.01 with its bones in centimetres, and
/// a `.L`/`.R` one in metres, each with a mesh bound to it), read by
/// `gltf::armature` as game skeletons: every bone's head, from the
/// skeleton's rest poses composed as the client composes them, within
/// 0.1 mm of where Blender has it, parents as Blender's, and bound at
/// rest (no warning).
#[test]
fn blender_armatures_become_skeletons_with_every_joint_where_blender_has_it() {
    use bevy_io3d::anim::axes::mirror_x_position;
    use bevy_io3d::gltf::{ArmatureOptions, GltfDocument, armature};
    if !have_blender() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let built = blender(&[&"characters", &dir.path()]);
    for key in ["mixamo", "blender_lr"] {
        let file = GltfDocument::open(Path::new(built[key]["file"].as_str().unwrap())).unwrap();
        let made = armature(&file, &ArmatureOptions::default()).unwrap();
        assert!(made.warnings.is_empty(), "{key}: {:?}", made.warnings);
        let skeleton = Skeleton::from_bytes(&made.skeleton.to_bytes().unwrap()).unwrap();
        let rig = Rig::new(&skeleton).unwrap();
        let world = rig.to_world(&rig.rest);
        let bones = built[key]["bones"].as_array().unwrap();
        assert_eq!(bones.len(), rig.len(), "{key}: one bone a Blender bone");
        let mut gap = 0.0f32;
        for bone in bones {
            let name = bone["name"].as_str().unwrap();
            let b = rig.bone(name.as_bytes()).unwrap_or_else(|| panic!("{key}: no bone '{name}'"));
            let parent = rig.parents[b].map(|p| String::from_utf8_lossy(&rig.names[p]).into_owned());
            assert_eq!(parent.as_deref(), bone["parent"].as_str(), "{key}: the parent of '{name}'");
            // Game units to metres, the engine's axes to glTF's.
            let head = mirror_x_position(world[b].position) * 0.01;
            gap = gap.max(head.distance(vec3(&bone["head"])));
        }
        eprintln!("{key}: {} bones, heads within {:.4} mm of Blender's", rig.len(), gap * 1000.0);
        assert!(gap < 1e-4, "{key}: {gap} m");
    }
}
