//! A game skeleton (`.skl`) from a glTF skin, as the client reads one:
//! each bone's rest pose relative to its parent, its parent and children by
//! name, its inverse bind pose and its ObjectTM, in the engine's axes and
//! units.
//!
//! - Bones: the skin's joints, in the skin's order but with the root first,
//!   since the client builds the hierarchy from the first bone. A joint's
//!   parent is its nearest ancestor node that is a joint; nodes between
//!   joints give their transforms to the poses, not a bone.
//! - Axes and units: the inverse of [`export()`](super::export())'s. Positions
//!   are mirrored on X and divided by [`ArmatureOptions::scale`] (glTF
//!   units a game unit: metres to the engine's unit by default), rotations
//!   mirrored ([`crate::anim::axes`]). Model space is the glTF scene's:
//!   the root rests where the scene puts it, armature object included. A
//!   scale on the way (an armature object scaled 0.01, as a Mixamo
//!   character comes out of Blender) stays in the positions and leaves the
//!   rotations, since the engine's bones have no scale.
//! - Inverse binds: the skin's inverse bind matrices, which map a skinned
//!   vertex, in the scene's space (glTF ignores the transform of a skinned
//!   mesh's node), into its joint's. The engine's bones have no scale, so
//!   each matrix first takes on its joint's scale in the scene (the 0.01
//!   of such an armature object): the client's `bone * inverse bind` then
//!   moves vertices as glTF's `joint * inverse bind matrix` does. A skin
//!   without matrices (glTF would bind every vertex in its joint's own
//!   space, which no tool means) binds at the rest pose, said in a warning.
//! - ObjectTM: each bone's rest pose in model space, as the game's exporter
//!   writes it.
//! - Names: stored as the export reads them back
//!   ([`FileString::encode_text`], the inverse of
//!   [`FileString::name_text`]), so a Korean (CP949) bone name comes back
//!   byte for byte. Names the client cannot tell apart or hold are refused.
//! - Several roots (joints with no joint above them): the nearest node
//!   above them all becomes the root bone, at its rest pose, said in a
//!   warning (Blender's armature object, when its bones have several
//!   roots); with no such node, an error names the roots.

use ::gltf::accessor::{DataType, Dimensions};
use glam::{Mat4, Quat};

use super::GltfError;
use super::document::GltfDocument;
use super::export::ExportOptions;
use super::source::{SourceNodes, check_accessor};
use crate::anim::BonePose;
use crate::anim::axes::{mirror_x_position, mirror_x_rotation};
use crate::format::string::MAX_STRING_LEN;
use crate::format::{Bone, FileString, Skeleton};

/// A bind pose this far from the rest pose (game units, degrees) is worth
/// a warning: most tools bind at rest.
const BIND_AWAY: (f32, f32) = (0.01, 0.01);

/// How to read an armature.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmatureOptions {
    /// The skin, by name or as `skin N`; `None` takes the only one.
    pub skin: Option<String>,
    /// glTF units a game unit, as [`ExportOptions::scale`]: 0.01 by
    /// default (glTF's metres).
    pub scale: f32,
    /// Bind at the rest pose whatever the skin's matrices say: for meshes
    /// whose vertices are written where the scene puts them at rest (the
    /// model import), which the rest pose's inverse then skins as glTF
    /// does.
    pub bind_at_rest: bool,
}

impl Default for ArmatureOptions {
    fn default() -> Self {
        Self { skin: None, scale: ExportOptions::default().scale, bind_at_rest: false }
    }
}

/// A skeleton read from a glTF skin.
#[derive(Debug, Clone)]
pub struct Armature {
    /// The skeleton, ready to write as an `.skl`.
    pub skeleton: Skeleton,
    /// Each bone's glTF node.
    pub nodes: Vec<usize>,
    /// For each joint of the skin, by its place in the skin's list, the
    /// bone it became: what a vertex's `JOINTS_0` index becomes.
    pub joint_bones: Vec<usize>,
    /// What was chosen for the file, one line each (a root added, binds
    /// made from the rest pose, binds away from rest, ...).
    pub warnings: Vec<String>,
}

/// Reads the skin of a glTF file as a game skeleton.
pub fn armature(file: &GltfDocument, options: &ArmatureOptions) -> Result<Armature, GltfError> {
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err(GltfError::Scale(options.scale));
    }
    let skin = pick_skin(file, options.skin.as_deref())?;
    let tree = SourceNodes::new(&file.document)?;
    let joints: Vec<usize> = skin.joints().map(|node| node.index()).collect();
    let joint_at = places(&joints, tree.names.len())
        .map_err(|twice| GltfError::Invalid(format!("the skin lists node {twice} ('{}') twice", tree.names[twice])))?;
    let mut warnings = Vec::new();
    let nodes = bone_nodes(&tree, &joints, &joint_at, &mut warnings)?;
    let bone_at = places(&nodes, tree.names.len()).expect("joints listed once, and a root above them is none of them");
    let parents: Vec<Option<usize>> = nodes.iter().map(|&n| tree.chain(n).skip(1).find_map(|a| bone_at[a])).collect();
    let scene = tree.rest_matrices();
    let pose = |m: Mat4, node: usize, what: &str| {
        engine_pose(m, options.scale).ok_or_else(|| {
            GltfError::Invalid(format!("node {node} ('{}'): its {what} is not a rigid transform", tree.names[node]))
        })
    };
    let rest: Vec<BonePose> =
        nodes.iter().map(|&n| pose(scene[n], n, "place in the scene")).collect::<Result<_, _>>()?;
    let binds = match options.bind_at_rest {
        true => None,
        false => bind_matrices(file, &skin, &joints, &scene, &mut warnings)?,
    };
    let bind: Vec<BonePose> = (nodes.iter().zip(&rest))
        .map(|(&node, &at_rest)| match (binds.as_ref(), joint_at[node]) {
            (Some(binds), Some(joint)) => pose(binds[joint], node, "inverse bind matrix"),
            _ => Ok(at_rest),
        })
        .collect::<Result<_, _>>()?;
    warn_bind_away(&tree, &nodes, &rest, &bind, &mut warnings);
    let names = bone_names(&tree, &nodes)?;
    let bones = (0..nodes.len()).map(|b| bone(b, &names, &parents, &rest, bind[b])).collect();
    let joint_bones = joints.iter().filter_map(|&j| bone_at[j]).collect();
    let skeleton = Skeleton { bones, linked_skeleton: FileString::default(), trailing: Vec::new() };
    Ok(Armature { skeleton, nodes, joint_bones, warnings })
}

/// The named skin (its name, or `skin N`), or the only one.
fn pick_skin<'a>(file: &'a GltfDocument, name: Option<&str>) -> Result<::gltf::Skin<'a>, GltfError> {
    let label = |skin: &::gltf::Skin<'_>| skin.name().map_or_else(|| format!("skin {}", skin.index()), str::to_owned);
    let skins: Vec<::gltf::Skin<'a>> = file.document.skins().collect();
    let found = match name {
        Some(name) => skins.iter().find(|s| label(s) == name || format!("skin {}", s.index()) == name),
        None if skins.len() == 1 => skins.first(),
        None => None,
    };
    found.cloned().ok_or_else(|| {
        let list: Vec<String> = skins.iter().map(label).collect();
        GltfError::Skeleton(match (name, list.is_empty()) {
            (_, true) => "the file has no skin: export the armature with a mesh bound to it".into(),
            (Some(name), false) => format!("no skin named '{name}'; the file has: {}", list.join(", ")),
            (None, false) => format!("the file has {} skins ({}); choose one by name", list.len(), list.join(", ")),
        })
    })
}

/// Each of `count` nodes' place in `list`; `Err` with a node listed twice.
fn places(list: &[usize], count: usize) -> Result<Vec<Option<usize>>, usize> {
    let mut at = vec![None; count];
    for (i, &node) in list.iter().enumerate() {
        if at[node].replace(i).is_some() {
            return Err(node);
        }
    }
    Ok(at)
}

/// The bones' nodes: the root first, then the joints in the skin's order.
/// Several roots hang from the nearest node above them all, added as the
/// root; roots with no common node are refused.
fn bone_nodes(
    tree: &SourceNodes,
    joints: &[usize],
    joint_at: &[Option<usize>],
    warnings: &mut Vec<String>,
) -> Result<Vec<usize>, GltfError> {
    let name = |node: usize| format!("'{}' (node {node})", tree.names[node]);
    let is_joint = |node: usize| joint_at[node].is_some();
    let roots: Vec<usize> = joints.iter().copied().filter(|&j| !tree.chain(j).skip(1).any(is_joint)).collect();
    let root = match roots.as_slice() {
        [] => return Err(GltfError::Skeleton("the skin has no joints".into())),
        [root] => *root,
        [first, others @ ..] => {
            let above_all = |node: &usize| others.iter().all(|&r| tree.chain(r).skip(1).any(|a| a == *node));
            let Some(common) = tree.chain(*first).skip(1).find(above_all) else {
                let roots: Vec<String> = roots.iter().map(|&r| name(r)).collect();
                return Err(GltfError::Skeleton(format!(
                    "the joints have {} roots ({}) and no node above them all: the game's skeleton is one tree; \
                     parent them to one bone",
                    roots.len(),
                    roots.join(", ")
                )));
            };
            warnings.push(format!(
                "the joints have {} roots; node {} above them all is the root bone, at its rest pose",
                roots.len(),
                name(common)
            ));
            common
        }
    };
    Ok(std::iter::once(root).chain(joints.iter().copied().filter(|&j| j != root)).collect())
}

/// A glTF transform (scene space, glTF's axes and units) as the engine's
/// rigid pose: scale taken out, mirrored, in game units. `None` where it
/// is not a transform (a zero scale, numbers that are not finite).
fn engine_pose(matrix: Mat4, scale: f32) -> Option<BonePose> {
    let (_, rotation, translation) = matrix.to_scale_rotation_translation();
    let pose = BonePose {
        position: mirror_x_position(translation) / scale,
        rotation: mirror_x_rotation(rotation.normalize()),
    };
    (pose.position.is_finite() && pose.rotation.is_finite()).then_some(pose)
}

/// Each joint's transform in the scene at bind, with its scale at rest
/// taken out: the inverse of its inverse bind matrix after that scale.
/// `None` (and a warning) where the skin has no matrices.
fn bind_matrices(
    file: &GltfDocument,
    skin: &::gltf::Skin<'_>,
    joints: &[usize],
    scene: &[Mat4],
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<Mat4>>, GltfError> {
    let Some(accessor) = skin.inverse_bind_matrices() else {
        warnings.push("the skin has no inverse bind matrices: every bone binds at its rest pose".into());
        return Ok(None);
    };
    let invalid = |why: String| GltfError::Invalid(format!("skin {}: {why}", skin.index()));
    check_accessor(&accessor, "inverse bind matrices", &[DataType::F32], Dimensions::Mat4).map_err(invalid)?;
    if accessor.count() < joints.len() {
        return Err(invalid(format!("{} inverse bind matrices for {} joints", accessor.count(), joints.len())));
    }
    let matrices = skin
        .reader(|buffer| file.buffer(buffer))
        .read_inverse_bind_matrices()
        .ok_or_else(|| invalid(format!("accessor {}: its data lies outside its buffer", accessor.index())))?;
    let unscaled = |(matrix, &joint): ([[f32; 4]; 4], &usize)| {
        let (scale, _, _) = scene[joint].to_scale_rotation_translation();
        (Mat4::from_scale(scale) * Mat4::from_cols_array_2d(&matrix)).inverse()
    };
    Ok(Some(matrices.zip(joints).map(unscaled).collect()))
}

/// One warning for the joints bound away from their rest pose: the `.skl`
/// keeps both, and the client skins by the binds.
fn warn_bind_away(
    tree: &SourceNodes,
    nodes: &[usize],
    rest: &[BonePose],
    bind: &[BonePose],
    warnings: &mut Vec<String>,
) {
    let gaps: Vec<(usize, f32, f32)> = (0..nodes.len())
        .map(|b| (b, rest[b].position.distance(bind[b].position), rest[b].rotation.angle_between(bind[b].rotation)))
        .filter(|&(_, far, turn)| far > BIND_AWAY.0 || turn.to_degrees() > BIND_AWAY.1)
        .collect();
    let Some(&(first, _, _)) = gaps.first() else { return };
    let far = gaps.iter().map(|g| g.1).fold(0.0, f32::max);
    let turn = gaps.iter().map(|g| g.2.to_degrees()).fold(0.0, f32::max);
    warnings.push(format!(
        "{} joints bind away from their rest pose (up to {far:.3} units and {turn:.2} degrees), first '{}': \
         the client skins by the binds",
        gaps.len(),
        tree.names[nodes[first]]
    ));
}

/// The bones' names as stored; a name the client could not hold or tell
/// from another is refused, naming its node.
fn bone_names(tree: &SourceNodes, nodes: &[usize]) -> Result<Vec<FileString>, GltfError> {
    let mut names: Vec<FileString> = Vec::with_capacity(nodes.len());
    for &node in nodes {
        let text = &tree.names[node];
        let stored = FileString::encode_text(text);
        let why = match stored.len() {
            0 => Some("an empty name: tracks and meshes find bones by name".to_owned()),
            _ if stored.has_zero_byte() => Some("a zero byte in its name, where the client's names end".into()),
            len if len >= MAX_STRING_LEN => {
                Some(format!("a name of {len} bytes; the client holds {}", MAX_STRING_LEN - 1))
            }
            _ => names.iter().position(|n| *n == stored).map(|b| format!("the same name as node {}", nodes[b])),
        };
        if let Some(why) = why {
            return Err(GltfError::Skeleton(format!("node {node} ('{text}'): {why}")));
        }
        names.push(stored);
    }
    Ok(names)
}

/// Bone `b` as the game's exporter writes it: rest relative to its parent,
/// the inverse of its bind pose, ObjectTM its rest in model space.
fn bone(b: usize, names: &[FileString], parents: &[Option<usize>], rest: &[BonePose], bind: BonePose) -> Bone {
    let world = rest[b];
    let local = parents[b].map_or(world, |p| {
        let up: Quat = rest[p].rotation.inverse();
        BonePose { position: up * (world.position - rest[p].position), rotation: (up * world.rotation).normalize() }
    });
    let unbind = bind.rotation.inverse();
    Bone {
        name: names[b].clone(),
        position: local.position,
        rotation: local.rotation,
        inverse_bind_position: -(unbind * bind.position),
        inverse_bind_rotation: unbind,
        object_tm: Mat4::from_rotation_translation(world.rotation, world.position).to_cols_array(),
        // The game's tools name the root's parent so.
        parent: parents[b].map_or_else(|| FileString::from("NoParent"), |p| names[p].clone()),
        children: (0..names.len()).filter(|&c| parents[c] == Some(b)).map(|c| names[c].clone()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::Rig;
    use crate::gltf::export;

    fn biped() -> Skeleton {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/biped.skl");
        Skeleton::from_bytes(&std::fs::read(path).unwrap()).unwrap()
    }

    /// `skeleton` exported by the crate and read back at `scale`.
    fn round_trip(skeleton: &Skeleton, scale: f32) -> Armature {
        let glb = export(skeleton, &[], &[], ExportOptions { scale }).unwrap().bytes;
        armature(&GltfDocument::from_slice(&glb, None).unwrap(), &ArmatureOptions { scale, ..Default::default() })
            .unwrap()
    }

    /// The largest difference of two quaternions as the same turn (`q` and
    /// `-q` alike), component by component.
    fn turn_gap(a: Quat, b: Quat) -> f32 {
        let b = if a.dot(b) < 0.0 { -b } else { b };
        (a - b).to_array().iter().fold(0.0, |m, d| m.max(d.abs()))
    }

    /// The largest gaps between two skeletons' bones: positions (rest and
    /// inverse bind), rotations (both) and ObjectTM entries.
    fn gaps(a: &Skeleton, b: &Skeleton) -> (f32, f32, f32) {
        let mut gap = (0.0f32, 0.0f32, 0.0f32);
        for (x, y) in a.bones.iter().zip(&b.bones) {
            assert_eq!((&x.name, &x.parent, &x.children), (&y.name, &y.parent, &y.children));
            gap.0 = gap
                .0
                .max(x.position.distance(y.position))
                .max(x.inverse_bind_position.distance(y.inverse_bind_position));
            gap.1 = gap
                .1
                .max(turn_gap(x.rotation, y.rotation))
                .max(turn_gap(x.inverse_bind_rotation, y.inverse_bind_rotation));
            let tm = x.object_tm.iter().zip(&y.object_tm).fold(0.0f32, |m, (p, q)| m.max((p - q).abs()));
            gap.2 = gap.2.max(tm);
        }
        gap
    }

    #[test]
    fn the_biped_comes_back_from_its_export_as_it_was() {
        let skeleton = biped();
        for scale in [0.01, 1.0] {
            let read = round_trip(&skeleton, scale);
            assert!(read.warnings.is_empty(), "{:?}", read.warnings);
            assert_eq!(read.skeleton.bones.len(), skeleton.bones.len());
            assert_eq!(read.joint_bones, (0..skeleton.bones.len()).collect::<Vec<_>>());
            assert_eq!(read.nodes, read.joint_bones);
            let (positions, rotations, object_tm) = gaps(&read.skeleton, &skeleton);
            eprintln!(
                "scale {scale}: positions within {positions:e} units, rotations {rotations:e}, ObjectTM {object_tm:e}"
            );
            assert!(positions < 1e-4 && rotations < 1e-4 && object_tm < 1e-4, "{positions} {rotations} {object_tm}");
            let bytes = read.skeleton.to_bytes().unwrap();
            let back = Skeleton::from_bytes(&bytes).unwrap();
            assert_eq!(back, read.skeleton);
            assert_eq!(Rig::new(&back).unwrap().parents, Rig::new(&skeleton).unwrap().parents);
        }
    }

    /// Renames a bone everywhere its name is stored.
    fn rename(skeleton: &mut Skeleton, from: &str, to: FileString) {
        for bone in &mut skeleton.bones {
            let names = std::iter::once(&mut bone.name).chain(Some(&mut bone.parent)).chain(&mut bone.children);
            names.filter(|n| **n == from).for_each(|n| *n = to.clone());
        }
    }

    #[test]
    fn a_korean_name_comes_back_byte_for_byte_and_binds_away_from_rest_are_kept_and_said() {
        let mut skeleton = biped();
        let korean = FileString::encode_text("골반");
        assert_ne!(korean.as_utf8(), Some("골반"), "stored as CP949");
        rename(&mut skeleton, "Bip01 Pelvis", korean.clone());
        skeleton.bones[3].inverse_bind_position.y += 2.0;
        let read = round_trip(&skeleton, 0.01);
        assert_eq!(read.skeleton.bones.iter().filter(|b| b.name == korean).count(), 1);
        assert!(gaps(&read.skeleton, &skeleton).0 < 1e-4);
        assert_eq!(read.warnings.len(), 1, "{:?}", read.warnings);
        assert!(
            read.warnings[0].starts_with("1 joints bind away from their rest pose (up to 2.000 units"),
            "{:?}",
            read.warnings
        );
    }

    /// A node: name, parent, translation and uniform scale.
    type Node<'a> = (&'a str, Option<usize>, [f32; 3], f32);

    /// A `.gltf`'s JSON of nodes and skins (name, joints), with no
    /// buffers: no inverse bind matrices.
    fn json(nodes: &[Node<'_>], skins: &[(&str, &[usize])]) -> serde_json::Value {
        let nodes: Vec<serde_json::Value> = (0..nodes.len())
            .map(|i| {
                let (name, _, translation, scale) = nodes[i];
                let children: Vec<usize> = (0..nodes.len()).filter(|&c| nodes[c].1 == Some(i)).collect();
                let mut node =
                    serde_json::json!({ "name": name, "translation": translation, "scale": [scale, scale, scale] });
                if !children.is_empty() {
                    node["children"] = children.into();
                }
                node
            })
            .collect();
        let skins: Vec<serde_json::Value> =
            skins.iter().map(|(name, joints)| serde_json::json!({ "name": name, "joints": joints })).collect();
        let mut root = serde_json::json!({ "asset": { "version": "2.0" }, "nodes": nodes });
        if !skins.is_empty() {
            root["skins"] = skins.into();
        }
        root
    }

    /// Gives the first skin inverse bind matrices, in a data URI.
    fn with_binds(mut root: serde_json::Value, matrices: &[Mat4]) -> serde_json::Value {
        use base64::Engine;
        let bytes: Vec<u8> = matrices.iter().flat_map(|m| m.to_cols_array()).flat_map(f32::to_le_bytes).collect();
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bytes)
        );
        root["buffers"] = serde_json::json!([{ "byteLength": bytes.len(), "uri": uri }]);
        root["bufferViews"] = serde_json::json!([{ "buffer": 0, "byteLength": bytes.len() }]);
        root["accessors"] =
            serde_json::json!([{ "bufferView": 0, "componentType": 5126, "count": matrices.len(), "type": "MAT4" }]);
        root["skins"][0]["inverseBindMatrices"] = 0.into();
        root
    }

    fn document(root: &serde_json::Value) -> GltfDocument {
        GltfDocument::from_slice(root.to_string().as_bytes(), None).unwrap()
    }

    fn gltf(nodes: &[Node<'_>], skins: &[(&str, &[usize])]) -> GltfDocument {
        document(&json(nodes, skins))
    }

    fn read(file: &GltfDocument) -> Result<Armature, String> {
        armature(file, &ArmatureOptions::default()).map_err(|e| e.to_string())
    }

    #[test]
    fn several_roots_hang_from_the_node_above_them_in_the_scene_s_place_and_units() {
        // An armature object 1 m up, scaled 0.01, bones in centimetres.
        let file = gltf(
            &[
                ("Armature", None, [0.0, 1.0, 0.0], 0.01),
                ("hips", Some(0), [0.0, 10.0, 0.0], 1.0),
                ("ik_target", Some(0), [20.0, 0.0, 5.0], 1.0),
                ("spine", Some(1), [0.0, 30.0, 0.0], 1.0),
            ],
            &[("rig", &[1, 3, 2])],
        );
        let made = read(&file).unwrap();
        let names: Vec<String> = made.skeleton.bones.iter().map(|b| b.name.to_text()).collect();
        assert_eq!(names, ["Armature", "hips", "spine", "ik_target"]);
        assert_eq!(
            (made.nodes.as_slice(), made.joint_bones.as_slice()),
            ([0, 1, 3, 2].as_slice(), [1, 2, 3].as_slice())
        );
        assert_eq!(made.warnings.len(), 2, "{:?}", made.warnings);
        assert!(made.warnings[0].contains("2 roots; node 'Armature' (node 0)"), "{:?}", made.warnings);
        assert!(made.warnings[1].contains("no inverse bind matrices"), "{:?}", made.warnings);
        let bones = &made.skeleton.bones;
        assert_eq!((bones[0].parent.to_text(), bones[1].parent.to_text()), ("NoParent".into(), "Armature".into()));
        assert_eq!(bones[0].children, [FileString::from("hips"), FileString::from("ik_target")]);
        // Metres to game units; glTF's +X is the engine's -X.
        assert!(bones[0].position.abs_diff_eq(glam::Vec3::new(0.0, 100.0, 0.0), 1e-4));
        assert!(bones[2].position.abs_diff_eq(glam::Vec3::new(0.0, 30.0, 0.0), 1e-4));
        assert!(bones[3].position.abs_diff_eq(glam::Vec3::new(-20.0, 0.0, 5.0), 1e-4));
        let rig = Rig::new(&made.skeleton).unwrap();
        let world = rig.to_world(&rig.rest);
        assert!(world[2].position.abs_diff_eq(glam::Vec3::new(0.0, 140.0, 0.0), 1e-3));
        // Bound at rest: the inverse bind undoes the rest pose.
        let ib = BonePose { position: bones[2].inverse_bind_position, rotation: bones[2].inverse_bind_rotation };
        assert!(world[2].under(ib).position.abs_diff_eq(glam::Vec3::ZERO, 1e-3));
    }

    #[test]
    fn bad_armatures_are_refused_naming_the_nodes() {
        let two_roots = gltf(&[("a", None, [0.0; 3], 1.0), ("b", None, [1.0; 3], 1.0)], &[("s", &[0, 1])]);
        let error = read(&two_roots).unwrap_err();
        assert!(error.contains("2 roots ('a' (node 0), 'b' (node 1)) and no node above them all"), "{error}");
        let twins = gltf(&[("a", None, [0.0; 3], 1.0), ("a", Some(0), [1.0; 3], 1.0)], &[("s", &[0, 1])]);
        assert_eq!(read(&twins).unwrap_err(), "skeleton: node 1 ('a'): the same name as node 0");
        let empty = gltf(&[("", None, [0.0; 3], 1.0)], &[("s", &[0])]);
        assert!(read(&empty).unwrap_err().contains("node 0 (''): an empty name"));
        let long = "x".repeat(MAX_STRING_LEN);
        assert!(read(&gltf(&[(&long, None, [0.0; 3], 1.0)], &[("s", &[0])])).unwrap_err().contains("260 bytes"));
        let flat = gltf(&[("a", None, [0.0; 3], 0.0)], &[("s", &[0])]);
        assert!(read(&flat).unwrap_err().contains("node 0 ('a'): its place in the scene is not a rigid transform"));
        let twice = gltf(&[("a", None, [0.0; 3], 1.0)], &[("s", &[0, 0])]);
        assert!(read(&twice).unwrap_err().contains("the skin lists node 0 ('a') twice"));
    }

    #[test]
    fn the_skin_is_the_only_one_or_one_named() {
        let nodes = [("a", None, [0.0; 3], 1.0), ("b", None, [0.0; 3], 1.0)];
        assert!(read(&gltf(&nodes, &[])).unwrap_err().contains("the file has no skin"));
        let two = gltf(&nodes, &[("first", &[0]), ("second", &[1])]);
        assert!(read(&two).unwrap_err().contains("2 skins (first, second); choose one by name"));
        let pick = |skin: &str| armature(&two, &ArmatureOptions { skin: Some(skin.into()), ..Default::default() });
        assert_eq!(pick("second").unwrap().skeleton.bones[0].name, "b");
        assert_eq!(pick("skin 0").unwrap().skeleton.bones[0].name, "a");
        assert!(pick("third").unwrap_err().to_string().contains("no skin named 'third'; the file has: first, second"));
        let bad_scale = armature(&two, &ArmatureOptions { scale: -1.0, ..Default::default() }).unwrap_err();
        assert!(matches!(bad_scale, GltfError::Scale(_)));
    }

    /// An armature object 1 m up, scaled 0.01, its bones in centimetres,
    /// as Blender writes a Mixamo character: the inverse bind matrices
    /// undo each joint's place in the scene, scale and all.
    #[test]
    fn binds_of_a_scaled_armature_are_rigid_and_bind_at_rest_unless_moved() {
        let nodes = [
            ("Armature", None, [0.0, 1.0, 0.0], 0.01),
            ("hips", Some(0), [0.0, 100.0, 0.0], 1.0),
            ("spine", Some(1), [0.0, 20.0, 10.0], 1.0),
        ];
        let root = json(&nodes, &[("rig", &[1, 2])]);
        let scene = SourceNodes::new(&document(&root).document).unwrap().rest_matrices();
        let at_rest = [scene[1].inverse(), scene[2].inverse()];
        let made = read(&document(&with_binds(root.clone(), &at_rest))).unwrap();
        assert!(made.warnings.is_empty(), "{:?}", made.warnings);
        let spine = &made.skeleton.bones[1];
        // 2.2 m up and 0.1 m forward: 220 and 10 units; bound there.
        assert!(spine.inverse_bind_position.abs_diff_eq(glam::Vec3::new(0.0, -220.0, -10.0), 1e-3), "{spine:?}");
        assert!(spine.inverse_bind_rotation.abs_diff_eq(Quat::IDENTITY, 1e-6));
        // 1 cm along the joint's own X: 1 unit.
        let moved = [at_rest[0], Mat4::from_translation(glam::Vec3::X) * at_rest[1]];
        let made = read(&document(&with_binds(root.clone(), &moved))).unwrap();
        assert!(
            made.warnings[0].starts_with("1 joints bind away from their rest pose (up to 1.000 units"),
            "{:?}",
            made.warnings
        );
        let few = read(&document(&with_binds(root.clone(), &at_rest[..1]))).unwrap_err();
        assert!(few.contains("skin 0: 1 inverse bind matrices for 2 joints"), "{few}");
        let mut vec4 = with_binds(root, &at_rest);
        vec4["accessors"][0]["type"] = "VEC4".into();
        let wrong = read(&document(&vec4)).unwrap_err();
        assert!(wrong.contains("skin 0: inverse bind matrices accessor 0 holds Vec4 F32"), "{wrong}");
    }
}
