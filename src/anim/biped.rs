//! The standard 3ds Max Biped, the rig of the game's characters: its bone
//! names and parents, and a skeleton with human proportions in engine axes
//! (Y up, about a centimetre a unit, facing +Z, bones along local +X).

use glam::{Mat3, Mat4, Quat, Vec3};

use super::side::{Side, side_of};
use crate::format::{Bone, FileString, Skeleton};

/// The root bone of a Biped, which carries the character through the
/// level: the bone root motion is read from.
pub const ROOT: &str = "Bip01";

/// Biped bone names with their parents, parents first. The thighs hang
/// under `Bip01 Spine` and the clavicles under `Bip01 Neck`, as Biped
/// builds them.
pub const BONES: [(&str, Option<&str>); 22] = [
    ("Bip01", None),
    ("Bip01 Pelvis", Some("Bip01")),
    ("Bip01 Spine", Some("Bip01 Pelvis")),
    ("Bip01 L Thigh", Some("Bip01 Spine")),
    ("Bip01 L Calf", Some("Bip01 L Thigh")),
    ("Bip01 L Foot", Some("Bip01 L Calf")),
    ("Bip01 L Toe0", Some("Bip01 L Foot")),
    ("Bip01 R Thigh", Some("Bip01 Spine")),
    ("Bip01 R Calf", Some("Bip01 R Thigh")),
    ("Bip01 R Foot", Some("Bip01 R Calf")),
    ("Bip01 R Toe0", Some("Bip01 R Foot")),
    ("Bip01 Spine1", Some("Bip01 Spine")),
    ("Bip01 Neck", Some("Bip01 Spine1")),
    ("Bip01 Head", Some("Bip01 Neck")),
    ("Bip01 L Clavicle", Some("Bip01 Neck")),
    ("Bip01 L UpperArm", Some("Bip01 L Clavicle")),
    ("Bip01 L Forearm", Some("Bip01 L UpperArm")),
    ("Bip01 L Hand", Some("Bip01 L Forearm")),
    ("Bip01 R Clavicle", Some("Bip01 Neck")),
    ("Bip01 R UpperArm", Some("Bip01 R Clavicle")),
    ("Bip01 R Forearm", Some("Bip01 R UpperArm")),
    ("Bip01 R Hand", Some("Bip01 R Forearm")),
];

/// The Biped parent of `name`, if it is a standard Biped bone name.
pub fn parent_of(name: &str) -> Option<Option<&'static str>> {
    BONES.iter().find(|(bone, _)| *bone == name).map(|(_, parent)| *parent)
}

/// Where each joint stands in the rest pose (engine axes, facing +Z, the
/// character's left at -X, arms hanging in an A pose), and where the bone
/// points: at its first child, or for end bones at their tip.
fn joint(name: &str) -> (Vec3, Vec3) {
    let side = |x: f32, name: &str| match side_of(name.as_bytes()) {
        Some(Side::Left) => Vec3::new(-x, 0.0, 0.0),
        _ => Vec3::new(x, 0.0, 0.0),
    };
    let limb = |name: &str, points: [[f32; 3]; 2]| {
        let [a, b] = points.map(|[x, y, z]| side(x, name) + Vec3::new(0.0, y, z));
        (a, b)
    };
    match name {
        "Bip01" => (Vec3::new(0.0, 80.0, 0.0), Vec3::new(10.0, 80.0, 0.0)),
        "Bip01 Pelvis" => (Vec3::new(0.0, 80.0, 0.0), Vec3::new(0.0, 88.0, -1.0)),
        "Bip01 Spine" => (Vec3::new(0.0, 88.0, -1.0), Vec3::new(0.0, 106.0, -1.0)),
        "Bip01 Spine1" => (Vec3::new(0.0, 106.0, -1.0), Vec3::new(0.0, 137.0, -2.0)),
        "Bip01 Neck" => (Vec3::new(0.0, 137.0, -2.0), Vec3::new(0.0, 145.0, 0.0)),
        "Bip01 Head" => (Vec3::new(0.0, 145.0, 0.0), Vec3::new(0.0, 165.0, 1.0)),
        n if n.ends_with("Thigh") => limb(n, [[9.0, 80.0, 0.0], [9.5, 44.0, 0.5]]),
        n if n.ends_with("Calf") => limb(n, [[9.5, 44.0, 0.5], [10.0, 8.0, -1.5]]),
        n if n.ends_with("Foot") => limb(n, [[10.0, 8.0, -1.5], [10.0, 1.5, 9.0]]),
        n if n.ends_with("Toe0") => limb(n, [[10.0, 1.5, 9.0], [10.0, 1.5, 15.0]]),
        n if n.ends_with("Clavicle") => limb(n, [[1.5, 135.0, -1.0], [17.0, 133.0, -2.0]]),
        n if n.ends_with("UpperArm") => limb(n, [[17.0, 133.0, -2.0], [22.0, 105.0, -2.0]]),
        n if n.ends_with("Forearm") => limb(n, [[22.0, 105.0, -2.0], [25.0, 80.0, 1.0]]),
        n if n.ends_with("Hand") => limb(n, [[25.0, 80.0, 1.0], [26.0, 71.0, 2.0]]),
        _ => unreachable!("every Biped bone has a joint: {name}"),
    }
}

/// A rotation whose +X points along `direction`. Bones that run mostly
/// sideways keep +Z forward; the others keep +Z toward the character's
/// right, so that knees and elbows bend about local Z.
fn along(direction: Vec3) -> Quat {
    let x = direction.normalize();
    let reference = if x.x.abs() > 0.7 { Vec3::Z } else { Vec3::X };
    let z = (reference - x * x.dot(reference)).normalize();
    Quat::from_mat3(&Mat3::from_cols(x, z.cross(x), z))
}

/// The standard Biped skeleton with the parents of [`BONES`], written as
/// the game's exporter writes it: rest poses relative to the parent, the
/// inverse bind pose, ObjectTM and `NoParent` for the root.
pub fn skeleton() -> Skeleton {
    let world: Vec<(Vec3, Quat)> = BONES
        .iter()
        .map(|(name, _)| {
            let (at, toward) = joint(name);
            let rotation = if *name == "Bip01" { Quat::IDENTITY } else { along(toward - at) };
            (at, rotation)
        })
        .collect();
    let index = |name: &str| BONES.iter().position(|(bone, _)| *bone == name).expect("a Biped bone");
    let bones = BONES
        .iter()
        .enumerate()
        .map(|(i, (name, parent))| {
            let (position, rotation) = world[i];
            let (local_position, local_rotation) = match parent {
                None => (position, rotation),
                Some(parent) => {
                    let (pp, pr) = world[index(parent)];
                    (pr.inverse() * (position - pp), pr.inverse() * rotation)
                }
            };
            let inverse = rotation.inverse();
            Bone {
                name: (*name).into(),
                position: local_position,
                rotation: local_rotation.normalize(),
                inverse_bind_position: -(inverse * position),
                inverse_bind_rotation: inverse,
                object_tm: Mat4::from_rotation_translation(rotation, position).to_cols_array(),
                parent: parent.unwrap_or("NoParent").into(),
                children: BONES
                    .iter()
                    .filter(|(_, p)| *p == Some(*name))
                    .map(|(child, _)| FileString::from(*child))
                    .collect(),
            }
        })
        .collect();
    Skeleton { bones, linked_skeleton: FileString::default(), trailing: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::Rig;

    #[test]
    fn skeleton_is_one_tree_with_the_joints_in_place() {
        let skeleton = skeleton();
        let rig = Rig::new(&skeleton).unwrap();
        let world = rig.to_world(&rig.rest);
        for (i, (name, _)) in BONES.iter().enumerate() {
            let (at, toward) = joint(name);
            assert!(world[i].position.abs_diff_eq(at, 1e-3), "{name}: {} vs {at}", world[i].position);
            if *name != "Bip01" {
                let x = world[i].rotation * Vec3::X;
                assert!(x.angle_between(toward - at) < 1e-3, "{name} points along +X");
            }
        }
        assert_eq!(parent_of("Bip01 L Thigh"), Some(Some("Bip01 Spine")));
        assert_eq!(parent_of("Bip01 Mantle01"), None);
    }
}
