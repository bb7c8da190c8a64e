//! `io3d pose`: every bone's model-space pose at a time, and skinned meshes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use bevy_io3d::anim::skin::{control_points, skin_on};
use bevy_io3d::anim::{BonePose, Clip, RepeatMode, Rig};
use bevy_io3d::format::Mesh;
use bevy_io3d::json::values::{JsonF32, JsonString, floats};
use glam::Vec3;
use serde::Serialize;

#[derive(Serialize)]
struct PoseDoc {
    at_ms: JsonF32,
    bones: Vec<BoneDoc>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    meshes: Vec<MeshDoc>,
}

#[derive(Serialize)]
struct BoneDoc {
    name: JsonString,
    world_position: [JsonF32; 3],
    world_rotation: [JsonF32; 4],
}

/// A mesh skinned as the client skins it, in the file's vertex order.
#[derive(Serialize)]
struct MeshDoc {
    file: PathBuf,
    positions: Vec<[JsonF32; 3]>,
    normals: Vec<[JsonF32; 3]>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    control_points: Vec<PointDoc>,
}

#[derive(Serialize)]
struct PointDoc {
    #[serde(rename = "type")]
    kind: JsonString,
    position: [JsonF32; 3],
}

/// What to pose.
pub struct Request<'a> {
    pub animation: &'a Path,
    pub skeleton: &'a Path,
    pub meshes: &'a [PathBuf],
    pub at_ms: f32,
    pub looping: bool,
}

pub fn run(request: Request) -> Result<ExitCode> {
    let animation = crate::load::animation(request.animation)?;
    let skeleton_value = crate::load::skeleton(request.skeleton)?;
    let meshes = request.meshes.iter().map(|path| crate::load::mesh(path)).collect::<Result<Vec<_>>>()?;
    let rig = Rig::new(&skeleton_value).with_context(|| request.skeleton.display().to_string())?;
    let mode = if request.looping { RepeatMode::Loop } else { RepeatMode::Once };
    let pose = rig.world_pose(&Clip::new(&animation), mode.animation_time(request.at_ms, animation.total_ms));
    let bones = skeleton_value
        .bones
        .iter()
        .zip(&pose)
        .map(|(bone, world)| BoneDoc {
            name: JsonString::from(&bone.name),
            world_position: floats(world.position.to_array()),
            world_rotation: floats(world.rotation.to_array()),
        })
        .collect();
    let meshes = request.meshes.iter().zip(&meshes).map(|(path, mesh)| skinned(path, mesh, &rig, &pose)).collect();
    let doc = PoseDoc { at_ms: JsonF32(request.at_ms), bones, meshes };
    println!("{}", serde_json::to_string_pretty(&doc).context("cannot print the pose")?);
    Ok(ExitCode::SUCCESS)
}

/// Skins one mesh, saying on standard error which of its bone names the
/// skeleton lacks (the client skins those vertices on the root).
fn skinned(path: &Path, mesh: &Mesh, rig: &Rig, pose: &[BonePose]) -> MeshDoc {
    let vertices = skin_on(mesh, rig, pose);
    for name in &vertices.unknown_bones {
        eprintln!(
            "io3d: {}: the skeleton has no bone '{name}'; its vertices follow the root, as in the client",
            path.display()
        );
    }
    let points = |values: &[Vec3]| values.iter().map(|v| floats(v.to_array())).collect();
    MeshDoc {
        file: path.to_path_buf(),
        positions: points(&vertices.positions),
        normals: points(&vertices.normals),
        control_points: mesh
            .control_points
            .iter()
            .zip(control_points(mesh, rig, pose))
            .map(|(cp, at)| PointDoc { kind: (&cp.kind).into(), position: floats(at.to_array()) })
            .collect(),
    }
}
