//! `io3d pose`: every bone's model-space pose at a time.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use bevy_io3d::anim::{RepeatMode, Rig};
use bevy_io3d::json::values::{JsonF32, JsonString, floats};
use serde::Serialize;

#[derive(Serialize)]
struct PoseDoc {
    at_ms: JsonF32,
    bones: Vec<BoneDoc>,
}

#[derive(Serialize)]
struct BoneDoc {
    name: JsonString,
    world_position: [JsonF32; 3],
    world_rotation: [JsonF32; 4],
}

pub fn run(animation: &Path, skeleton: &Path, at_ms: f32, looping: bool) -> Result<ExitCode> {
    let animation = crate::load::animation(animation)?;
    let skeleton_value = crate::load::skeleton(skeleton)?;
    let rig = Rig::new(&skeleton_value).with_context(|| skeleton.display().to_string())?;
    let mode = if looping { RepeatMode::Loop } else { RepeatMode::Once };
    let pose = rig.world_pose(&animation, mode.animation_time(at_ms, animation.total_ms));
    let bones = skeleton_value
        .bones
        .iter()
        .zip(pose)
        .map(|(bone, world)| BoneDoc {
            name: JsonString::from(&bone.name),
            world_position: floats(world.position.to_array()),
            world_rotation: floats(world.rotation.to_array()),
        })
        .collect();
    let doc = PoseDoc { at_ms: JsonF32(at_ms), bones };
    println!("{}", serde_json::to_string_pretty(&doc).context("cannot print the pose")?);
    Ok(ExitCode::SUCCESS)
}
