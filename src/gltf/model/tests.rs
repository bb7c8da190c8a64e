//! The bundled character through the export and back through the model
//! import: the same vertices, faces, weights and looks.

use std::path::{Path, PathBuf};

use glam::Vec3;

use super::*;
use crate::format::msh::MAX_VERTICES;
use crate::format::{Animation, MaterialScript, Mesh, ModelConfig, VertexMask};
use crate::gltf::{ExportOptions, export};
use crate::resource::{Character, Disk, MeshFiles};
use crate::surface::Surface;

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource")
}

/// The bundled character's parts and its walk, exported to a `.glb` and
/// imported back onto `skeleton` (or the armature's).
fn round_trip(skeleton: Option<(String, Skeleton)>) -> (Vec<MeshFiles>, ImportedModel) {
    let character = Character::load(&Disk, &assets().join("model/animodel/biped.txt")).unwrap();
    let original = character.skeleton.as_ref().unwrap().get().unwrap().clone();
    let meshes: Vec<MeshFiles> = character.meshes.iter().map(|m| MeshFiles::read(&Disk, m).unwrap()).collect();
    let walk = Animation::from_bytes(&std::fs::read(assets().join("animation/biped_walk_4002.ani")).unwrap()).unwrap();
    let glb = export(&original, &meshes, &[("biped_walk_4002".into(), &walk)], ExportOptions::default()).unwrap().bytes;
    let file = GltfDocument::from_slice(&glb, None).unwrap();
    let options = ModelOptions { name: "biped".into(), skeleton, map: None, scale: ExportOptions::default().scale };
    (meshes, import_model(&file, &options).unwrap())
}

fn mesh(model: &ImportedModel, name: &str) -> Mesh {
    Mesh::from_bytes(&model.files[&ResourceKind::Mesh.path(&format!("{name}.msh"))]).unwrap()
}

/// Each vertex's influences as (bone name, weight), strongest first.
fn influences(mesh: &Mesh, vertex: usize) -> Vec<(String, f32)> {
    let weights = mesh.weights.as_ref().unwrap();
    let palette = weights.palette();
    let mut pairs: Vec<(String, f32)> =
        weights.influences(vertex).map(|(bone, w)| (palette[bone as usize].to_text(), w)).collect();
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    pairs
}

fn far(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter().zip(b).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max)
}

fn assert_same_mesh(original: &Mesh, back: &Mesh, name: &str) {
    assert_eq!(back.positions.len(), original.positions.len(), "{name}: vertices");
    assert_eq!(back.indices, original.indices, "{name}: the same faces, wound alike");
    assert_eq!(back.submeshes, original.submeshes, "{name}: submeshes");
    assert!(far(&original.positions, &back.positions) < 0.001, "{name}: positions");
    assert!(far(&original.normals, &back.normals) < 1e-4, "{name}: normals");
    let uv = original.uv0.iter().zip(&back.uv0).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(uv < 1e-5, "{name}: UVs {uv}");
    assert_eq!(back.bounds, crate::format::msh::Bounds::of(&back.positions), "{name}: bounds around its vertices");
    if original.weights.is_none() {
        assert!(back.weights.is_none() && back.mesh_type == 0, "{name}: static");
        return;
    }
    for v in 0..original.positions.len() {
        let (want, got) = (influences(original, v), influences(back, v));
        assert_eq!(want.len(), got.len(), "{name}: vertex {v} {want:?} against {got:?}");
        for ((wb, ww), (gb, gw)) in want.iter().zip(&got) {
            assert!(wb == gb && (ww - gw).abs() <= 1.0 / 255.0, "{name}: vertex {v} {want:?} against {got:?}");
        }
    }
    assert!(back.mask.has(VertexMask::WEIGHTS | VertexMask::INDICES), "{name}: the indices bit with the weights bit");
}

#[test]
fn the_bundled_character_comes_back_with_the_same_vertices_faces_weights_and_looks() {
    let (meshes, model) = round_trip(None);
    let config = ModelConfig::parse(&model.files[&config_path(true, "biped.txt")]).unwrap();
    assert_eq!(config.meshes, ["biped_body", "biped_sword"]);
    assert_eq!(config.skeleton.as_deref(), Some("biped.skl"));
    // The clip comes back onto the skeleton made of the armature.
    assert_eq!(config.animations, ["biped_walk_4002.ani"]);
    let walk = Animation::from_bytes(&std::fs::read(assets().join("animation/biped_walk_4002.ani")).unwrap()).unwrap();
    let back = Animation::from_bytes(&model.files[&ResourceKind::Animation.path("biped_walk_4002.ani")]).unwrap();
    assert_eq!((back.key_count(), back.total_ms, &back.events), (walk.key_count(), walk.total_ms, &walk.events));
    for original in &meshes {
        let back = mesh(&model, &original.name);
        assert_same_mesh(&original.mesh, &back, &original.name);
        let script =
            MaterialScript::parse(&model.files[&ResourceKind::Material.path(&format!("{}.txt", original.name))])
                .unwrap();
        let want: Vec<Surface> = original.script.as_ref().unwrap().materials.iter().map(Surface::of).collect();
        let got: Vec<Surface> = script.materials.iter().map(Surface::of).collect();
        assert_eq!(got.len(), want.len(), "{}: a material a submesh", original.name);
        for (want, got) in want.iter().zip(&got) {
            let texture = |s: &Surface| s.texture.as_ref().map(|t| t.name.to_ascii_lowercase());
            assert_eq!(texture(got), texture(want), "{}: the same texture", original.name);
            assert_eq!((got.transparency, got.faces), (want.transparency, want.faces), "{}", original.name);
            assert_eq!(got.outline.is_some(), want.outline.is_some(), "{}: the outline pass", original.name);
        }
    }
    assert!(model.files.contains_key(&ResourceKind::Texture.path("biped.dds")));
}

#[test]
fn on_a_given_skeleton_the_config_names_it_and_the_folder_holds_its_bytes() {
    let bytes = std::fs::read(assets().join("skeleton/biped.skl")).unwrap();
    let (meshes, model) = round_trip(Some(("biped.skl".into(), Skeleton::from_bytes(&bytes).unwrap())));
    assert_eq!(model.files[&ResourceKind::Skeleton.path("biped.skl")], bytes, "the game's file, byte for byte");
    for original in &meshes {
        assert_same_mesh(&original.mesh, &mesh(&model, &original.name), &original.name);
    }
}

/// Merged Mixamo files name every animation `mixamo.com`: each imports as
/// itself, not all as the first.
#[test]
fn animations_sharing_a_name_each_import() {
    let character = Character::load(&Disk, &assets().join("model/animodel/biped.txt")).unwrap();
    let skeleton = character.skeleton.as_ref().unwrap().get().unwrap().clone();
    let read =
        |name: &str| Animation::from_bytes(&std::fs::read(assets().join("animation").join(name)).unwrap()).unwrap();
    let (walk, attack) = (read("biped_walk_4002.ani"), read("biped_attack_4002.ani"));
    let named = [("mixamo.com".to_owned(), &walk), ("mixamo.com".to_owned(), &attack)];
    let meshes: Vec<MeshFiles> = character.meshes.iter().map(|m| MeshFiles::read(&Disk, m).unwrap()).collect();
    let glb = export(&skeleton, &meshes, &named, ExportOptions::default()).unwrap().bytes;
    let file = GltfDocument::from_slice(&glb, None).unwrap();
    assert_eq!(file.animation_labels(), ["mixamo.com #0", "mixamo.com #1"]);
    let options = ModelOptions { name: "fighter".into(), skeleton: None, map: None, scale: 0.01 };
    let model = import_model(&file, &options).unwrap();
    let config = ModelConfig::parse(&model.files[&config_path(true, "fighter.txt")]).unwrap();
    let totals: Vec<i32> = (config.animations.iter())
        .map(|name| Animation::from_bytes(&model.files[&ResourceKind::Animation.path(name)]).unwrap().total_ms)
        .collect();
    assert_eq!(totals, [walk.total_ms, attack.total_ms], "{:?}", config.animations);
}

#[test]
fn the_bundled_static_model_and_its_collision_come_back() {
    use crate::format::Collision;
    use crate::gltf::{ModelParts, export_model};
    let character = Character::load(&Disk, &assets().join("model/staticmodel/stage.txt")).unwrap();
    let meshes: Vec<MeshFiles> = character.meshes.iter().map(|m| MeshFiles::read(&Disk, m).unwrap()).collect();
    let cms = character.collision.as_ref().and_then(|link| link.path.clone()).unwrap();
    let collision = Collision::from_bytes(&std::fs::read(cms).unwrap()).unwrap();
    let collisions = [("stage".to_owned(), &collision)];
    let parts = ModelParts { skeleton: None, meshes: &meshes, animations: &[], collisions: &collisions };
    let glb = export_model(parts, ExportOptions::default()).unwrap().bytes;
    let file = GltfDocument::from_slice(&glb, None).unwrap();
    let options = ModelOptions { name: "stage".into(), skeleton: None, map: None, scale: 0.01 };
    let model = import_model(&file, &options).unwrap();
    let config = ModelConfig::parse(&model.files[&config_path(false, "stage.txt")]).unwrap();
    assert_eq!(
        (config.meshes.as_slice(), config.collision_mesh.as_deref()),
        (["stage".to_owned()].as_slice(), Some("stage.cms"))
    );
    assert!(config.skeleton.is_none() && config.animations.is_empty());
    let back = mesh(&model, "stage");
    assert_same_mesh(&meshes[0].mesh, &back, "stage");
    let bounds = crate::format::msh::Bounds::of(&back.positions);
    assert_eq!(config.aabox, Some([bounds.min.to_array(), bounds.max.to_array()]));
    assert_eq!(config.sphere.map(|s| s.1), Some(bounds.radius));
    let back = Collision::from_bytes(&model.files[&ResourceKind::Mesh.path("stage.cms")]).unwrap();
    assert_eq!(back.indices, collision.indices, "the same triangles, wound alike");
    assert!(far(&back.positions, &collision.positions) < 0.001);
    assert_eq!(back.positions.len(), collision.positions.len());
}

/// A glTF of one mesh node whose one primitive has `mode` and the given
/// attributes (name, accessor type, values: `JOINTS_0` written as
/// unsigned shorts when `JOINTS_0` names it, else floats), skinned to
/// `joints` joint nodes when there are any.
fn gltf_with(mode: u32, attributes: &[(&str, &str, Vec<f32>)], joints: usize) -> GltfDocument {
    GltfDocument::from_slice(gltf_json(mode, attributes, joints).to_string().as_bytes(), None).unwrap()
}

/// [`gltf_with`]'s document as JSON, to change before it is read.
fn gltf_json(mode: u32, attributes: &[(&str, &str, Vec<f32>)], joints: usize) -> serde_json::Value {
    use base64::Engine;
    use serde_json::json;
    let mut bytes: Vec<u8> = Vec::new();
    let (mut views, mut accessors, mut named) = (Vec::new(), Vec::new(), serde_json::Map::new());
    for (i, (name, kind, data)) in attributes.iter().enumerate() {
        let width = match *kind {
            "VEC2" => 2,
            "VEC3" => 3,
            _ => 4,
        };
        let start = bytes.len();
        let component = if *name == "JOINTS_0" {
            bytes.extend(data.iter().flat_map(|&v| (v as u16).to_le_bytes()));
            5123
        } else {
            bytes.extend(data.iter().flat_map(|v| v.to_le_bytes()));
            5126
        };
        views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": bytes.len() - start}));
        let mut accessor =
            json!({"bufferView": i, "componentType": component, "count": data.len() / width, "type": kind});
        if *name == "POSITION" {
            accessor["min"] = json!([-1e9, -1e9, -1e9]);
            accessor["max"] = json!([1e9, 1e9, 1e9]);
        }
        accessors.push(accessor);
        named.insert((*name).to_owned(), json!(i));
    }
    // The joints hang under one root node, after them.
    let mut nodes = vec![json!({"name": "thing", "mesh": 0})];
    nodes.extend((0..joints).map(|j| json!({"name": format!("bone{j}")})));
    nodes.push(json!({"name": "root", "children": (1..=joints).collect::<Vec<_>>()}));
    let mut root = json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0, joints + 1]}],
        "meshes": [{"name": "thing", "primitives": [{"mode": mode, "attributes": named}]}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": bytes.len(), "uri": format!("data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bytes))}],
    });
    if joints > 0 {
        nodes[0]["skin"] = json!(0);
        root["skins"] = json!([{"joints": (1..=joints).collect::<Vec<_>>()}]);
    }
    root["nodes"] = json!(nodes);
    root
}

/// What importing `file` says, as text.
fn refusal(file: &GltfDocument) -> String {
    let options = ModelOptions { name: "thing".into(), skeleton: None, map: None, scale: 0.01 };
    import_model(file, &options).unwrap_err().to_string()
}

/// Corners of `n` triangles, all distinct vertices.
fn corners(n: usize) -> (Vec<f32>, Vec<f32>) {
    let positions = (0..n * 3).flat_map(|v| [v as f32, (v % 3) as f32, 0.0]).collect();
    let uvs = (0..n * 3).flat_map(|v| [(v % 2) as f32, 0.5]).collect();
    (positions, uvs)
}

#[test]
fn what_the_game_cannot_take_is_refused_naming_the_mesh_primitive_and_count() {
    let (positions, uvs) = corners(1);
    let no_uvs = gltf_with(4, &[("POSITION", "VEC3", positions.clone())], 0);
    assert_eq!(refusal(&no_uvs), "mesh 'thing', primitive 0: no UVs (TEXCOORD_0); the game's meshes are textured");
    let lines = gltf_with(1, &[("POSITION", "VEC3", positions.clone()), ("TEXCOORD_0", "VEC2", uvs)], 0);
    assert_eq!(refusal(&lines), "mesh 'thing', primitive 0: Lines primitives; the game draws triangles only");
    let (positions, uvs) = corners(MAX_VERTICES / 3 + 1);
    let big = gltf_with(4, &[("POSITION", "VEC3", positions), ("TEXCOORD_0", "VEC2", uvs)], 0);
    assert_eq!(refusal(&big), "mesh 'thing', primitive 0: 65538 vertices; a mesh holds at most 65536");
    // Joints as floats: refused, not a panic in the glTF reader.
    let (positions, uvs) = corners(1);
    let attributes = [
        ("POSITION", "VEC3", positions),
        ("TEXCOORD_0", "VEC2", uvs),
        ("JOINTS_1", "VEC4", vec![0.0; 12]),
        ("WEIGHTS_0", "VEC4", [1.0, 0.0, 0.0, 0.0].repeat(3)),
    ];
    let floats = gltf_with(4, &attributes, 1);
    assert_eq!(
        refusal(&floats),
        "mesh 'thing', primitive 0: Joints(1) accessor 2 holds Vec4 F32, expected Vec4 of [U8, U16]"
    );
    // Each vertex weighted to its own joint: 258 bones.
    let (positions, uvs) = corners(86);
    let joints: Vec<f32> = (0..258).flat_map(|j| [j as f32, 0.0, 0.0, 0.0]).collect();
    let weights: Vec<f32> = (0..258).flat_map(|_| [1.0, 0.0, 0.0, 0.0]).collect();
    let attributes = [
        ("POSITION", "VEC3", positions),
        ("TEXCOORD_0", "VEC2", uvs),
        ("JOINTS_0", "VEC4", joints),
        ("WEIGHTS_0", "VEC4", weights),
    ];
    let many = gltf_with(4, &attributes, 258);
    assert_eq!(refusal(&many), "mesh 'thing', primitive 0: 258 bones weighted; a mesh's palette holds at most 256");
}

/// A skin that binds away from its rest pose (its one joint rests 0.1 m
/// along X, its inverse bind is the identity: bound at the origin): the
/// mesh is written where glTF draws it at rest, and the skeleton binds
/// there too, so the client's skinning at rest leaves every vertex where
/// glTF shows it.
#[test]
fn a_skin_bound_away_from_rest_is_drawn_by_the_client_where_gltf_draws_it() {
    use crate::anim::axes::mirror_x_position;
    use crate::anim::{Rig, skin_on};
    let (positions, uvs) = corners(1);
    let attributes = [
        ("POSITION", "VEC3", positions.clone()),
        ("TEXCOORD_0", "VEC2", uvs),
        ("JOINTS_0", "VEC4", vec![0.0; 12]),
        ("WEIGHTS_0", "VEC4", [1.0, 0.0, 0.0, 0.0].repeat(3)),
    ];
    let mut json = gltf_json(4, &attributes, 1);
    json["nodes"][1]["translation"] = serde_json::json!([0.1, 0.0, 0.0]);
    // The identity inverse bind, in a buffer of its own.
    use base64::Engine;
    let identity: Vec<u8> = glam::Mat4::IDENTITY.to_cols_array().iter().flat_map(|v| v.to_le_bytes()).collect();
    let uri =
        format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&identity));
    json["buffers"].as_array_mut().unwrap().push(serde_json::json!({"byteLength": 64, "uri": uri}));
    let view = json["bufferViews"].as_array().unwrap().len();
    json["bufferViews"].as_array_mut().unwrap().push(serde_json::json!({"buffer": 1, "byteLength": 64}));
    let accessor = json["accessors"].as_array().unwrap().len();
    let ibm = serde_json::json!({"bufferView": view, "componentType": 5126, "count": 1, "type": "MAT4"});
    json["accessors"].as_array_mut().unwrap().push(ibm);
    json["skins"][0]["inverseBindMatrices"] = serde_json::json!(accessor);
    let file = GltfDocument::from_slice(json.to_string().as_bytes(), None).unwrap();
    let options = ModelOptions { name: "thing".into(), skeleton: None, map: None, scale: 0.01 };
    let model = import_model(&file, &options).unwrap();
    let mesh = mesh(&model, "thing");
    let skeleton = Skeleton::from_bytes(&model.files[&ResourceKind::Skeleton.path("thing.skl")]).unwrap();
    let drawn: Vec<Vec3> =
        positions.chunks(3).map(|p| mirror_x_position(Vec3::new(p[0] + 0.1, p[1], p[2])) / 0.01).collect();
    assert!(far(&mesh.positions, &drawn) < 1e-3, "{:?} against {drawn:?}", mesh.positions);
    let rig = Rig::new(&skeleton).unwrap();
    let skinned = skin_on(&mesh, &rig, &rig.to_world(&rig.rest));
    assert!(far(&skinned.positions, &drawn) < 1e-3, "{:?} against {drawn:?}", skinned.positions);
}
