//! A Mixamo-shaped character built in code, for the plugin's tests and the
//! pose bench: the Biped's joints under Mixamo's names and parents, below
//! an `Armature` node scaled 0.01, as a Mixamo character comes into
//! Blender and out as glTF.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_io3d::anim::{BoneNames, BonePose, Rig};
use bevy_io3d::plugin::Axes;

/// The Biped's names in Mixamo's spelling, and Mixamo's parents (the thighs
/// under the hips, no `Bip01`).
pub const MIXAMO: [(&str, &str, Option<&str>); 21] = [
    ("Bip01 Pelvis", "mixamorig:Hips", None),
    ("Bip01 Spine", "mixamorig:Spine", Some("mixamorig:Hips")),
    ("Bip01 Spine1", "mixamorig:Spine1", Some("mixamorig:Spine")),
    ("Bip01 Neck", "mixamorig:Neck", Some("mixamorig:Spine1")),
    ("Bip01 Head", "mixamorig:Head", Some("mixamorig:Neck")),
    ("Bip01 L Thigh", "mixamorig:LeftUpLeg", Some("mixamorig:Hips")),
    ("Bip01 L Calf", "mixamorig:LeftLeg", Some("mixamorig:LeftUpLeg")),
    ("Bip01 L Foot", "mixamorig:LeftFoot", Some("mixamorig:LeftLeg")),
    ("Bip01 L Toe0", "mixamorig:LeftToeBase", Some("mixamorig:LeftFoot")),
    ("Bip01 R Thigh", "mixamorig:RightUpLeg", Some("mixamorig:Hips")),
    ("Bip01 R Calf", "mixamorig:RightLeg", Some("mixamorig:RightUpLeg")),
    ("Bip01 R Foot", "mixamorig:RightFoot", Some("mixamorig:RightLeg")),
    ("Bip01 R Toe0", "mixamorig:RightToeBase", Some("mixamorig:RightFoot")),
    ("Bip01 L Clavicle", "mixamorig:LeftShoulder", Some("mixamorig:Neck")),
    ("Bip01 L UpperArm", "mixamorig:LeftArm", Some("mixamorig:LeftShoulder")),
    ("Bip01 L Forearm", "mixamorig:LeftForeArm", Some("mixamorig:LeftArm")),
    ("Bip01 L Hand", "mixamorig:LeftHand", Some("mixamorig:LeftForeArm")),
    ("Bip01 R Clavicle", "mixamorig:RightShoulder", Some("mixamorig:Neck")),
    ("Bip01 R UpperArm", "mixamorig:RightArm", Some("mixamorig:RightShoulder")),
    ("Bip01 R Forearm", "mixamorig:RightForeArm", Some("mixamorig:RightArm")),
    ("Bip01 R Hand", "mixamorig:RightHand", Some("mixamorig:RightForeArm")),
];

/// Each Mixamo bone's rest relative to its parent, in the files' axes and
/// units, in [`MIXAMO`]'s order: the Biped's joints (`biped` at rest), the
/// upper arms turned by `arm_turn` radians (0 for the Biped's rest, more
/// for a T-pose-like one).
pub fn rest(biped: &Rig, arm_turn: f32) -> Vec<BonePose> {
    let world = biped.unit_to_world(&biped.rest);
    let at = |name: &str| world[biped.bone(name.as_bytes()).expect("a Biped bone")];
    let parent_of = |name: &str| MIXAMO.iter().find(|(_, n, _)| *n == name).expect("a parent").0;
    MIXAMO
        .iter()
        .map(|&(biped_name, name, parent)| {
            let own = at(biped_name);
            let local = parent.map_or(own, |parent| {
                let up = at(parent_of(parent));
                let inverse = up.rotation.inverse();
                BonePose { position: inverse * (own.position - up.position), rotation: inverse * own.rotation }
            });
            let upper_arm = name.ends_with("Arm") && !name.ends_with("ForeArm");
            let turn = if upper_arm { Quat::from_rotation_z(arm_turn) } else { Quat::IDENTITY };
            BonePose { rotation: local.rotation * turn, ..local }
        })
        .collect()
}

/// The same as a rig in game units (no armature node).
#[allow(dead_code)] // The pose bench's: the tests check against the Biped itself.
pub fn rig(biped: &Rig, arm_turn: f32) -> Rig {
    let names: Vec<Vec<u8>> = MIXAMO.iter().map(|(_, name, _)| name.as_bytes().to_vec()).collect();
    let index = |name: &str| MIXAMO.iter().position(|(_, n, _)| *n == name).expect("a parent");
    Rig {
        by_name: BoneNames::new(&names),
        names,
        rest: rest(biped, arm_turn),
        inverse_binds: vec![BonePose::IDENTITY; MIXAMO.len()],
        order: (0..MIXAMO.len()).collect(),
        parents: MIXAMO.iter().map(|(_, _, parent)| parent.map(index)).collect(),
    }
}

/// Spawns the rig below `root`: an `Armature` node scaled 0.01 over the
/// bones at [`rest`]. Returns the bones by Mixamo name.
pub fn spawn_bones(world: &mut World, root: Entity, biped: &Rig, arm_turn: f32) -> HashMap<&'static str, Entity> {
    let armature = world.spawn((Name::new("Armature"), Transform::from_scale(Vec3::splat(0.01)), ChildOf(root))).id();
    let mut bones = HashMap::new();
    for ((_, name, parent), local) in MIXAMO.iter().zip(rest(biped, arm_turn)) {
        let parent = parent.map_or(armature, |p| bones[p]);
        let transform = Axes::EngineToBevy.transform(&local);
        bones.insert(*name, world.spawn((Name::new(*name), transform, ChildOf(parent))).id());
    }
    bones
}
