//! Character files made by code for the tests: meshes skinned to the
//! bundled Biped, material scripts, and a resource folder laid out as the
//! game's.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use bevy_io3d::anim::Rig;
use bevy_io3d::format::msh::{ANIMATED_MESH, Bounds, ControlPoint, Submesh, VertexMask, Weights};
use bevy_io3d::format::{FileString, Mesh, Skeleton};
use glam::{Vec2, Vec3};

pub fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join(name)
}

pub fn biped() -> Skeleton {
    Skeleton::from_bytes(&std::fs::read(asset("biped.skl")).unwrap()).unwrap()
}

/// A four-sided tube along a chain of bones at bind pose: a ring of
/// vertices at each joint and at the chain's end, each ring weighted to its
/// bone, and the rings at inner joints shared half and half with the bone
/// before (the smooth two-bone weights the game's characters have).
pub fn tube(skeleton: &Skeleton, chain: &[&str], end: Vec3, radius: f32) -> Mesh {
    let rig = Rig::new(skeleton).unwrap();
    let world = rig.to_world(&rig.rest);
    let bone = |name: &str| rig.bone(name.as_bytes()).unwrap_or_else(|| panic!("no bone {name}"));
    let mut centres: Vec<(Vec3, glam::Quat)> =
        chain.iter().map(|n| (world[bone(n)].position, world[bone(n)].rotation)).collect();
    let (last_at, last_rotation) = *centres.last().unwrap();
    centres.push((last_at + last_rotation * end, last_rotation));
    let mut mesh = Mesh {
        version: 2002,
        mesh_type: ANIMATED_MESH,
        mask: VertexMask(
            VertexMask::POSITION | VertexMask::NORMAL | VertexMask::UV0 | VertexMask::WEIGHTS | VertexMask::INDICES,
        ),
        weights: Some(Weights { names: chain.iter().map(|n| FileString::from(*n)).collect(), ..Weights::default() }),
        ..Mesh::default()
    };
    let weights = mesh.weights.as_mut().unwrap();
    for (ring, (at, rotation)) in centres.iter().enumerate() {
        let owner = ring.min(chain.len() - 1);
        for side in 0..4 {
            let angle = side as f32 * std::f32::consts::FRAC_PI_2;
            let out = *rotation * Vec3::new(0.0, angle.cos(), angle.sin());
            mesh.positions.push(*at + out * radius);
            mesh.normals.push(out);
            mesh.uv0.push(Vec2::new(side as f32 / 4.0, ring as f32 / centres.len() as f32));
            let shared = ring > 0 && ring < chain.len();
            let (w, b) = if shared {
                ([0.5, 0.5, 0.0, 0.0], [(owner - 1) as f32, owner as f32, 0.0, 0.0])
            } else {
                ([1.0, 0.0, 0.0, 0.0], [owner as f32, 0.0, 0.0, 0.0])
            };
            weights.weights.push(w);
            weights.bones.push(b);
        }
    }
    for ring in 0..centres.len() - 1 {
        for side in 0..4u16 {
            let (a, b) = (ring as u16 * 4 + side, ring as u16 * 4 + (side + 1) % 4);
            mesh.indices.extend([a, b, a + 4, b, b + 4, a + 4]);
        }
    }
    mesh.vertex_count = mesh.positions.len();
    let faces = (mesh.indices.len() / 3) as i32;
    mesh.submeshes =
        vec![Submesh { min_index: 0, vertex_count: mesh.vertex_count as i32, index_start: 0, face_count: faces }];
    let (min, max) = mesh.positions.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    mesh.bounds = Bounds { min, max, radius: (max - min).length() / 2.0 };
    mesh.control_points = vec![ControlPoint {
        kind: "trailstart_1".into(),
        bone: (*chain.last().unwrap()).into(),
        extra: FileString::default(),
        point: centres.last().unwrap().0,
    }];
    mesh
}

/// The left arm: upper arm, forearm and hand.
pub fn arm(skeleton: &Skeleton) -> Mesh {
    tube(skeleton, &["Bip01 L UpperArm", "Bip01 L Forearm", "Bip01 L Hand"], Vec3::new(8.0, 0.0, 0.0), 3.0)
}

/// A sword held in the right hand: a thin tube from the hand, weighted to it
/// alone, with a trail from hilt to tip.
pub fn sword(skeleton: &Skeleton) -> Mesh {
    let mut sword = tube(skeleton, &["Bip01 R Hand"], Vec3::new(60.0, 0.0, 0.0), 0.5);
    let tip = sword.positions[4..].iter().copied().sum::<Vec3>() / 4.0;
    sword.control_points.push(ControlPoint {
        kind: "trailend_1".into(),
        bone: "Bip01 R Hand".into(),
        point: tip,
        ..ControlPoint::default()
    });
    sword
}

/// The script of one textured, toon-shaded material.
pub fn material_script(texture: &str) -> String {
    format!(
        "// made by the tests\r\nmaterial Body\r\n{{\r\n\ttechnique\r\n\t{{\r\n\t\tpass\r\n\t\t{{\r\n\t\t\tshader_group AnimateToonShade\r\n\t\t\ttexture_unit\r\n\t\t\t{{\r\n\t\t\t\tuse_light_texture true\r\n\t\t\t}}\r\n\t\t\ttexture_unit\r\n\t\t\t{{\r\n\t\t\t\ttexture {texture}\r\n\t\t\t\ttex_coord_set 0\r\n\t\t\t}}\r\n\t\t}}\r\n\t}}\r\n}}\r\n"
    )
}

/// A resource folder as the game lays it out (folder names in mixed case,
/// as unpacked on Windows), holding the Biped, its walk, an arm and a sword
/// with their scripts and textures, and `model/animodel/hero.txt` naming
/// them. Returns the config's path.
/// A 4 x 4 DXT1 texture with its whole mip chain (4, 2 and 1 pixels).
pub fn texture() -> Vec<u8> {
    let format = bevy_io3d::format::DdsFormat::Dxt1;
    bevy_io3d::format::Dds { width: 4, height: 4, format, levels: vec![vec![0x55; 8]; 3] }.to_bytes()
}

pub fn resource_folder(root: &Path) -> PathBuf {
    let skeleton = biped();
    let dirs = ["Skeleton", "Animation", "Mesh", "Material", "Texture", "Model/AniModel"];
    for dir in dirs {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::fs::copy(asset("biped.skl"), root.join("Skeleton/Biped.skl")).unwrap();
    std::fs::copy(asset("biped_walk_4002.ani"), root.join("Animation/biped_walk_4002.ani")).unwrap();
    std::fs::write(root.join("Mesh/arm.msh"), arm(&skeleton).to_bytes().unwrap()).unwrap();
    std::fs::write(root.join("Mesh/sword.msh"), sword(&skeleton).to_bytes().unwrap()).unwrap();
    std::fs::write(root.join("Material/arm.txt"), material_script("arm.dds")).unwrap();
    std::fs::write(root.join("Material/sword.txt"), material_script("Sword.DDS")).unwrap();
    std::fs::write(root.join("Texture/arm.dds"), texture()).unwrap();
    std::fs::write(root.join("Texture/sword.dds"), texture()).unwrap();
    let config = root.join("Model/AniModel/hero.txt");
    std::fs::write(
        &config,
        "#MODEL_CFG\r\n#SKELETON\r\nbiped.skl\r\n#MESH_LIST\r\narm\r\nsword\r\n#MESH_LIST_END\r\n#ANIMATION_LIST\r\nbiped_walk_4002.ani\r\n#ANIMATION_LIST_END\r\n#MODEL_END\r\n",
    )
    .unwrap();
    config
}

/// Runs a command to its end with its output captured, or kills it once
/// `limit` has passed (`None`): a test must never hang on a tool that does.
pub fn output_within(mut command: std::process::Command, limit: std::time::Duration) -> Option<std::process::Output> {
    use std::process::Stdio;
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the program runs");
    let id = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let output = child.wait_with_output().expect("the program's output");
        done.send(()).ok();
        output
    });
    if finished.recv_timeout(limit).is_err() {
        std::process::Command::new("kill").arg("-9").arg(id.to_string()).status().ok();
        return None;
    }
    Some(waiter.join().expect("the waiting thread"))
}

/// Copies a folder and everything in it.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() { copy_tree(&path, &target) } else { std::fs::copy(&path, target).map(drop).unwrap() }
    }
}

/// Whether a tool is here; says how to get it when it is not, and fails
/// in CI, which must have it (`.ci/run` installs it).
pub fn have(tool: &str, present: bool, install: &str) -> bool {
    if !present {
        assert!(std::env::var_os("CI").is_none(), "{tool} is missing in CI: .ci/run installs it ({install})");
        eprintln!("skipped: {tool} is not installed here ({install})");
    }
    present
}

/// Whether Blender (the `bpy` module) is here.
pub fn have_blender() -> bool {
    let python = std::process::Command::new("python3").args(["-c", "import bpy"]).output();
    have("Blender's bpy module", python.is_ok_and(|o| o.status.success()), "pip install bpy==5.0.1")
}

/// Runs `tests/tools/blender.py` and reads the JSON it prints last.
pub fn blender(args: &[&dyn AsRef<std::ffi::OsStr>]) -> serde_json::Value {
    let output = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/blender.py"))
        .args(args.iter().map(|a| a.as_ref()))
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "blender.py failed: {text}\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_str(text.lines().last().unwrap_or_default()).expect("blender.py ends with JSON")
}
