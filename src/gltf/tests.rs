//! Round trips, imports from rigs unlike the game's, and files from other
//! tools' habits (matrices, `STEP`, `CUBICSPLINE`, sparse accessors).

use std::borrow::Cow;
use std::path::Path;

use ::gltf::json::{self, Index};
use glam::{Quat, Vec3};

use super::*;
use crate::anim::{BoneMap, Clip, Rig, biped};
use crate::format::{AniVersion, Animation, Event, FileString, Skeleton, Track};
use crate::resource::MeshFiles;

fn read(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/assets/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn clip(name: &str) -> Animation {
    Animation::from_bytes(&read(name)).unwrap()
}

fn skeleton() -> Skeleton {
    Skeleton::from_bytes(&read("biped.skl")).unwrap()
}

use crate::anim::reduce::angle_degrees as degrees;

fn export_one(skeleton: &Skeleton, name: &str, animation: &Animation, scale: f32) -> Vec<u8> {
    let exported = export(skeleton, &[], &[(name.to_owned(), animation)], ExportOptions { scale }).unwrap();
    assert!(exported.warnings.is_empty(), "{:?}", exported.warnings);
    exported.bytes
}

#[test]
fn every_bundled_clip_comes_back_with_its_keys_and_events() {
    let skeleton = skeleton();
    for version in ["4000", "4001", "4002"] {
        for clip_name in ["walk", "idle", "attack"] {
            let name = format!("biped_{clip_name}_{version}");
            let mut source = clip(&format!("{name}.ani"));
            source.events.push(Event { kind: "sound".into(), sub_info: FileString::from("step.wav"), time_ms: 12.5 });
            source.tracks[4].weight = 0.25;
            let glb = export_one(&skeleton, &name, &source, 0.01);
            let file = GltfDocument::from_slice(&glb, None).unwrap();
            let back = import(&file, &skeleton, &ImportOptions::default()).unwrap();
            let bytes = back.animation.to_bytes().unwrap();
            let back = Animation::from_bytes(&bytes).unwrap();
            assert_eq!((back.version, back.total_ms), (source.version, source.total_ms), "{name}");
            assert_eq!(back.events, source.events, "{name}");
            assert_eq!(back.tracks.len(), source.tracks.len(), "{name}");
            let precision = match source.version {
                AniVersion::V4000 => 1e-3,
                AniVersion::V4001 => 0.5,
                AniVersion::V4002 => 0.06,
            };
            for (a, b) in source.tracks.iter().zip(&back.tracks) {
                assert_eq!((&a.bone, a.weight), (&b.bone, b.weight));
                assert_eq!(a.keys.len(), b.keys.len(), "{name} {}", a.bone);
                for (x, y) in a.keys.iter().zip(&b.keys) {
                    assert_eq!(x.time_ms, y.time_ms);
                    assert!(
                        x.position.distance(y.position) < 1e-3,
                        "{name} {}: {} vs {}",
                        a.bone,
                        x.position,
                        y.position
                    );
                    let angle = degrees(x.rotation, y.rotation);
                    assert!(angle <= precision, "{name} {} at {} ms: {angle} degrees", a.bone, x.time_ms);
                }
            }
        }
    }
}

#[test]
fn tracks_gltf_cannot_hold_are_left_out_or_blended_with_a_warning() {
    let skeleton = skeleton();
    let mut walk = clip("biped_walk_4002.ani");
    let mut stray = walk.tracks[3].clone();
    stray.bone = FileString::from("Nobody");
    walk.tracks.push(stray);
    walk.tracks.push(walk.tracks[2].clone());
    let exported = export(&skeleton, &[], &[("walk".into(), &walk)], ExportOptions::default()).unwrap();
    assert_eq!(exported.warnings.len(), 2, "{:?}", exported.warnings);
    assert!(exported.warnings[0].contains("2 tracks of one bone, exported as the client blends them"));
    assert!(exported.warnings[1].contains("'Nobody' names no bone"));
    let file = GltfDocument::from_slice(&exported.bytes, None).unwrap();
    assert_eq!(import(&file, &skeleton, &ImportOptions::default()).unwrap().animation.tracks.len(), 22);
}

#[test]
fn keys_sharing_a_time_come_back_as_a_jump() {
    let skeleton = skeleton();
    let mut animation = clip("biped_walk_4000.ani");
    let keys = &mut animation.tracks[0].keys;
    let at = keys[2].time_ms;
    let mut jumped = keys[2];
    jumped.position.y += 5.0;
    keys.insert(3, jumped);
    keys[3].time_ms = at;
    let glb = export_one(&skeleton, "jump", &animation, 1.0);
    let back = import(&GltfDocument::from_slice(&glb, None).unwrap(), &skeleton, &ImportOptions::default()).unwrap();
    let times: Vec<i32> = back.animation.tracks[0].keys.iter().map(|k| k.time_ms).collect();
    assert_eq!(times, animation.tracks[0].keys.iter().map(|k| k.time_ms).collect::<Vec<_>>());
    assert!((back.animation.tracks[0].keys[3].position.y - jumped.position.y).abs() < 1e-3);
}

/// The Biped renamed, with every bone's frame turned (as other tools
/// orient bones) while its joints stay put, and the walk's keys rewritten
/// for those frames: the same motion on a rig unlike the game's.
fn foreign_rig(skeleton: &Skeleton, walk: &Animation) -> (Skeleton, Animation) {
    let rig = Rig::new(skeleton).unwrap();
    let twist = |bone: usize| Quat::from_rotation_x(0.5 + bone as f32 * 0.1) * Quat::from_rotation_y(0.3);
    let relocal = |bone: usize, position: Vec3, rotation: Quat| {
        let parent = rig.parents[bone].map_or(Quat::IDENTITY, twist).inverse();
        (parent * position, parent * rotation * twist(bone))
    };
    let mut other = skeleton.clone();
    for (i, bone) in other.bones.iter_mut().enumerate() {
        (bone.position, bone.rotation) = relocal(i, bone.position, bone.rotation);
        let rename = |name: &FileString| FileString::from(format!("other:{name}").as_str());
        bone.name = rename(&bone.name);
        bone.parent = rename(&bone.parent);
        bone.children = bone.children.iter().map(rename).collect();
    }
    let mut moved = walk.clone();
    for track in &mut moved.tracks {
        let bone = rig.bone(track.bone.c_str()).unwrap();
        for key in &mut track.keys {
            (key.position, key.rotation) = relocal(bone, key.position, key.rotation);
        }
        track.bone = FileString::from(format!("other:{}", track.bone).as_str());
    }
    (other, moved)
}

/// A `.glb` with its scene's roots put under one more node.
fn under_a_node(glb: &[u8], node: json::Node) -> Vec<u8> {
    let mut root = ::gltf::Gltf::from_slice(glb).unwrap().document.into_json();
    let children = root.scenes[0].nodes.clone();
    let wrapper = root.push(json::Node { children: Some(children), ..node });
    root.scenes[0].nodes = vec![wrapper];
    with_json(root, glb)
}

#[test]
fn a_rig_with_other_names_frames_units_and_facing_moves_the_game_skeleton_alike() {
    let skeleton = skeleton();
    let walk = clip("biped_walk_4000.ani");
    let (other, moved) = foreign_rig(&skeleton, &walk);
    let glb = export_one(&other, "walk", &moved, 0.037);
    // The whole rig doubled in size and turned to face the other way.
    let turned = json::Node {
        rotation: Some(json::scene::UnitQuaternion(Quat::from_rotation_y(std::f32::consts::PI).to_array())),
        scale: Some([2.0; 3]),
        ..Default::default()
    };
    let file = GltfDocument::from_slice(&under_a_node(&glb, turned), None).unwrap();
    let map = BoneMap(skeleton.bones.iter().map(|b| (format!("other:{}", b.name), b.name.to_text())).collect());
    let options = ImportOptions { map: Some(map), ..ImportOptions::default() };
    let imported = import(&file, &skeleton, &options).unwrap();
    let rig = Rig::new(&skeleton).unwrap();
    let (ours, source) = (Clip::new(&imported.animation), Clip::new(&walk));
    for t in [0.0, 250.0, 500.0, 900.0] {
        let (a, b) = (rig.unit_world_pose(&ours, t), rig.unit_world_pose(&source, t));
        for (bone, (x, y)) in a.iter().zip(&b).enumerate() {
            let name = skeleton.bones[bone].name.to_text();
            assert!(x.position.distance(y.position) < 0.05, "{name} at {t}: {} vs {}", x.position, y.position);
            assert!(degrees(x.rotation, y.rotation) < 0.05, "{name} at {t}: {}", degrees(x.rotation, y.rotation));
        }
    }
}

#[test]
fn suggested_maps_let_the_hips_drive_the_root() {
    let skeleton = skeleton();
    let names: Vec<String> =
        ["Armature", "mixamorig:Hips", "mixamorig:Spine", "mixamorig:LeftUpLeg", "mixamorig:RightUpLeg"]
            .map(String::from)
            .to_vec();
    let map = suggested_map(&names, &skeleton);
    assert_eq!(map.target("mixamorig:Hips"), Some("Bip01"));
    assert_eq!(map.target("mixamorig:LeftUpLeg"), Some("Bip01 L Thigh"));
    assert_eq!(map.target("Armature"), None);
}

#[test]
fn a_tolerance_drops_keys_the_client_rebuilds() {
    let skeleton = skeleton();
    let walk = clip("biped_walk_4000.ani");
    let file = GltfDocument::from_slice(&export_one(&skeleton, "walk", &walk, 0.01), None).unwrap();
    let tolerance = "0.5,0.05".parse().unwrap();
    let reduced =
        import(&file, &skeleton, &ImportOptions { tolerance: Some(tolerance), ..Default::default() }).unwrap();
    assert_eq!(reduced.keys_before, walk.key_count());
    assert!(reduced.animation.key_count() < walk.key_count());
    let rig = Rig::new(&skeleton).unwrap();
    for t in (0..=walk.total_ms).step_by(10) {
        let a = rig.local_pose(&Clip::new(&reduced.animation), t as f32);
        let b = rig.local_pose(&Clip::new(&walk), t as f32);
        for (x, y) in a.iter().zip(&b) {
            // Between keys, each side interpolates its own keys.
            assert!(degrees(x.rotation, y.rotation) < 1.5, "{t} ms");
        }
    }
}

/// A two-node file written here the way other tools write theirs: node
/// matrices, `STEP` translations, `CUBICSPLINE` rotations, a sparse
/// accessor, and no extras.
fn other_tools_file() -> Vec<u8> {
    use ::gltf::json::animation::{Channel, Interpolation, Property, Sampler, Target};
    use ::gltf::json::validation::Checked::Valid;
    let mut glb = glb::GlbBuilder::new();
    let child = glb.root.push(json::Node {
        name: Some("Spine".into()),
        matrix: Some(glam::Mat4::from_translation(Vec3::new(0.0, 0.5, 0.0)).to_cols_array()),
        ..Default::default()
    });
    glb.root.push(json::Node {
        name: Some("Hips".into()),
        matrix: Some(glam::Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0)).to_cols_array()),
        children: Some(vec![child]),
        ..Default::default()
    });
    let times = glb.accessor(&[0.0f32, 0.5, 1.0], None, true);
    let steps = glb.accessor(&[[0.0f32, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 1.0, 2.0]], None, false);
    let q = |angle: f32| Quat::from_rotation_y(angle).to_array();
    let zero = [0.0f32; 4];
    let cubic = glb.accessor(&[zero, q(0.0), zero, zero, q(0.5), zero, zero, q(1.0), zero], None, false);
    // Sparse: a constant scale of 1 whose middle key is replaced.
    let base = glb.accessor(&[[1.0f32; 3]; 3], None, false);
    let mut scales = glb.root.accessors[base.value()].clone();
    let indices = glb.accessor(&[1u16], None, false);
    let values = glb.accessor(&[[1.0f32, 1.0, 1.0]], None, false);
    let view = |a: Index<json::Accessor>, root: &json::Root| root.accessors[a.value()].buffer_view.unwrap();
    scales.sparse = Some(json::accessor::sparse::Sparse {
        count: json::validation::USize64(1),
        indices: json::accessor::sparse::Indices {
            buffer_view: view(indices, &glb.root),
            byte_offset: json::validation::USize64(0),
            component_type: Valid(json::accessor::IndexComponentType(json::accessor::ComponentType::U16)),
            extensions: None,
            extras: Default::default(),
        },
        values: json::accessor::sparse::Values {
            buffer_view: view(values, &glb.root),
            byte_offset: json::validation::USize64(0),
            extensions: None,
            extras: Default::default(),
        },
        extensions: None,
        extras: Default::default(),
    });
    let scales = glb.root.push(scales);
    let channels = [
        (Property::Translation, Interpolation::Step, steps),
        (Property::Rotation, Interpolation::CubicSpline, cubic),
        (Property::Scale, Interpolation::Linear, scales),
    ];
    let mut animation = json::Animation {
        extensions: None,
        extras: None,
        channels: vec![],
        name: Some("Run".into()),
        samplers: vec![],
    };
    for (i, (property, interpolation, output)) in channels.into_iter().enumerate() {
        animation.samplers.push(Sampler {
            extensions: None,
            extras: Default::default(),
            input: times,
            interpolation: Valid(interpolation),
            output,
        });
        animation.channels.push(Channel {
            sampler: Index::new(i as u32),
            target: Target { extensions: None, extras: Default::default(), node: Index::new(1), path: Valid(property) },
            extensions: None,
            extras: Default::default(),
        });
    }
    glb.root.push(animation);
    let scene = glb.root.push(json::Scene { extensions: None, extras: None, name: None, nodes: vec![Index::new(1)] });
    glb.root.scene = Some(scene);
    glb.finish().unwrap()
}

#[test]
fn steps_cubic_splines_matrices_and_sparse_accessors_are_read_by_gltfs_rules() {
    let file = GltfDocument::from_slice(&other_tools_file(), None).unwrap();
    let nodes = SourceNodes::new(&file.document).unwrap();
    let animation = SourceAnimation::read(&file, file.document.animations().next().unwrap()).unwrap();
    let hips = nodes.names.iter().position(|n| n == "Hips").unwrap();
    let at = |t: f32| animation.world(&nodes, t)[hips];
    // STEP holds until the next key; positions are mirrored on X.
    assert!(at(0.49).position.abs_diff_eq(Vec3::new(0.0, 1.0, 0.0), 1e-6));
    assert!(at(0.5).position.abs_diff_eq(Vec3::new(0.0, 1.0, 1.0), 1e-6));
    assert!(at(7.0).position.abs_diff_eq(Vec3::new(0.0, 1.0, 2.0), 1e-6));
    // With zero tangents the Hermite curve eases the components: a quarter
    // of the way from the 0.5 rad key to the 1.0 rad one, 5/32 of the way.
    let h = 3.0 * 0.0625 - 2.0 * 0.015625;
    let (a, b) = (glam::Vec4::from(Quat::from_rotation_y(0.5)), glam::Vec4::from(Quat::from_rotation_y(1.0)));
    let eased = a * (1.0 - h) + b * h;
    let expected = crate::anim::axes::mirror_x_rotation(Quat::from_vec4(eased).normalize());
    let angle = degrees(at(0.625).rotation, expected);
    assert!(angle < 1e-3, "{angle} degrees off");
    assert_eq!(animation.key_times([hips]), [0.0, 0.5, 1.0]);
    // The import maps Hips to the Biped's root and Spine to its spine.
    let skeleton = biped::skeleton();
    let imported = import(&file, &skeleton, &ImportOptions::default()).unwrap();
    assert_eq!(imported.map.target("Hips"), Some("Bip01"));
    assert_eq!(imported.animation.total_ms, 1000);
    assert_eq!(imported.animation.tracks[0].keys.len(), 3);
}

#[test]
fn buffers_in_separate_files_and_data_uris_are_read() {
    use base64::Engine;
    let skeleton = skeleton();
    let walk = clip("biped_walk_4002.ani");
    let glb = export_one(&skeleton, "walk", &walk, 0.01);
    let parsed = ::gltf::Gltf::from_slice(&glb).unwrap();
    let (mut root, blob) = (parsed.document.into_json(), parsed.blob.unwrap());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("walk data.bin"), &blob).unwrap();
    root.buffers[0].uri = Some("walk%20data.bin".into());
    let path = dir.path().join("walk.gltf");
    std::fs::write(&path, json::serialize::to_vec(&root).unwrap()).unwrap();
    let expected = import(&GltfDocument::from_slice(&glb, None).unwrap(), &skeleton, &Default::default()).unwrap();
    let separate = import(&GltfDocument::open(&path).unwrap(), &skeleton, &Default::default()).unwrap();
    assert_eq!(separate.animation, expected.animation);
    let encoded = base64::engine::general_purpose::STANDARD.encode(&blob);
    root.buffers[0].uri = Some(format!("data:application/octet-stream;base64,{encoded}"));
    let text = json::serialize::to_vec(&root).unwrap();
    let embedded = import(&GltfDocument::from_slice(&text, None).unwrap(), &skeleton, &Default::default()).unwrap();
    assert_eq!(embedded.animation, expected.animation);

    // Handed to a page with its folder: the buffer file is read from the
    // index, once it has arrived; a name out of the folder is refused.
    root.buffers[0].uri = Some("walk%20data.bin".into());
    let text = json::serialize::to_vec(&root).unwrap();
    let index = crate::resource::FileIndex::new();
    index.add_name(Path::new("mods/walk data.bin"));
    assert_eq!(files_named(&text), [Path::new("walk data.bin")], "the file that comes with it");
    let handed = || GltfDocument::from_index(&text, index.clone(), Path::new("mods"));
    let waiting = handed().err().map(|e| e.to_string()).unwrap_or_default();
    assert!(waiting.contains("buffer 0 ('walk%20data.bin')"), "{waiting}");
    assert_eq!(index.take_wanted(), [Path::new("mods/walk data.bin")]);
    index.arrive(Path::new("mods/walk data.bin"), blob.clone());
    let from_page = import(&handed().unwrap(), &skeleton, &Default::default()).unwrap();
    assert_eq!(from_page.animation, expected.animation);
    root.buffers[0].uri = Some("../walk%20data.bin".into());
    let text = json::serialize::to_vec(&root).unwrap();
    let out = GltfDocument::from_index(&text, index.clone(), Path::new("mods")).err().map(|e| e.to_string());
    assert!(out.unwrap_or_default().contains("without '..'"));
}

#[test]
fn bad_files_are_refused_with_the_part_named() {
    let skeleton = skeleton();
    let walk = clip("biped_walk_4002.ani");
    let glb = export(&skeleton, &[], &[("walk".into(), &walk), ("idle".into(), &walk)], ExportOptions::default())
        .unwrap()
        .bytes;
    let file = GltfDocument::from_slice(&glb, None).unwrap();
    let error = import(&file, &skeleton, &ImportOptions::default()).unwrap_err().to_string();
    assert!(error.contains("2 animations (walk, idle)"), "{error}");
    let error = export(&skeleton, &[], &[], ExportOptions { scale: 0.0 }).unwrap_err().to_string();
    assert!(error.contains("positive number"), "{error}");
    let options = ImportOptions { animation: Some("run".into()), ..Default::default() };
    let error = import(&file, &skeleton, &options).unwrap_err().to_string();
    assert!(error.contains("no animation named 'run'"), "{error}");
    let twins = [("walk".into(), &walk), ("walk".into(), &clip("biped_attack_4002.ani"))];
    let twins =
        GltfDocument::from_slice(&export(&skeleton, &[], &twins, ExportOptions::default()).unwrap().bytes, None);
    let twins = twins.unwrap();
    let options = ImportOptions { animation: Some("walk".into()), ..Default::default() };
    let error = import(&twins, &skeleton, &options).unwrap_err().to_string();
    assert!(error.contains("2 animations are named 'walk' (#0, #1): choose one by index, as '#0'"), "{error}");
    let second = import(&twins, &skeleton, &ImportOptions::nth_animation(1)).unwrap();
    assert_eq!(second.animation.total_ms, clip("biped_attack_4002.ani").total_ms, "#1 is the second");
    let error = import(&twins, &skeleton, &ImportOptions::nth_animation(2)).unwrap_err().to_string();
    assert!(error.contains("no animation named '#2'"), "{error}");

    let mut root = ::gltf::Gltf::from_slice(&glb).unwrap().document.into_json();
    root.extensions_required.push("EXT_meshopt_compression".into());
    let text = json::serialize::to_vec(&root).unwrap();
    let error = GltfDocument::from_slice(&text, None).err().unwrap().to_string();
    assert!(error.contains("EXT_meshopt_compression"), "{error}");

    root.extensions_required.clear();
    root.buffers[0].uri = Some("missing.bin".into());
    let text = json::serialize::to_vec(&root).unwrap();
    let error = GltfDocument::from_slice(&text, None).err().unwrap().to_string();
    assert!(error.contains("buffer 0 ('missing.bin')"), "{error}");

    // What the gltf crate's validation leaves to its users (found by
    // fuzzing): an unknown target path, a node past the file.
    let fresh = ::gltf::Gltf::from_slice(&glb).unwrap().document.into_json();
    let text = String::from_utf8(json::serialize::to_vec(&fresh).unwrap()).unwrap();
    for (from, to, expected) in [
        ("\"path\":\"translation\"", "\"path\":\"bogus\"", "target path is none of"),
        ("\"node\":0,", "\"node\":99,", "targets node 99, but the file has 22"),
    ] {
        let bad = with_json_text(text.replacen(from, to, 1).into_bytes(), &glb);
        let file = GltfDocument::from_slice(&bad, None).unwrap();
        let options = ImportOptions { animation: Some("walk".into()), ..Default::default() };
        let error = import(&file, &skeleton, &options).unwrap_err().to_string();
        assert!(error.contains("animation 'walk': channel 0") && error.contains(expected), "{error}");
    }

    // A rotation channel whose output is the translations' accessor.
    let mut root = ::gltf::Gltf::from_slice(&glb).unwrap().document.into_json();
    let translation = root.animations[0].samplers[0].output;
    root.animations[0].samplers[1].output = translation;
    let bad = with_json(root, &glb);
    let file = GltfDocument::from_slice(&bad, None).unwrap();
    let options = ImportOptions { animation: Some("walk".into()), ..Default::default() };
    let error = import(&file, &skeleton, &options).unwrap_err().to_string();
    assert!(error.contains("channel 1 (rotation of node 0)") && error.contains("expected Vec4"), "{error}");
}

/// A `.glb` from a changed document and the original's binary chunk.
fn with_json(root: json::Root, original: &[u8]) -> Vec<u8> {
    with_json_text(json::serialize::to_vec(&root).unwrap(), original)
}

/// A `.glb` from JSON text and the original's binary chunk.
fn with_json_text(text: Vec<u8>, original: &[u8]) -> Vec<u8> {
    let blob = ::gltf::Gltf::from_slice(original).unwrap().blob;
    let glb = ::gltf::binary::Glb {
        header: ::gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
        json: Cow::Owned(text),
        bin: blob.map(Cow::Owned),
    };
    glb.to_vec().unwrap()
}

/// The bundled character's skeleton and meshes, as the export takes them.
fn bundled_character() -> (Skeleton, Vec<MeshFiles>) {
    let config = format!("{}/assets/resource/model/animodel/biped.txt", env!("CARGO_MANIFEST_DIR"));
    let character = crate::resource::Character::load(&crate::resource::Disk, std::path::Path::new(&config)).unwrap();
    let skeleton = character.skeleton.as_ref().unwrap().get().unwrap().clone();
    (skeleton, character.meshes.iter().map(|m| MeshFiles::read(&crate::resource::Disk, m).unwrap()).collect())
}

#[test]
fn what_gltf_cannot_draw_is_approximated_and_said() {
    let (skeleton, mut meshes) = bundled_character();
    let pass = &mut meshes[1].script.as_mut().unwrap().materials[0].techniques[0].passes[0];
    pass.cull = crate::format::Cull::Clockwise;
    pass.blend = crate::format::SceneBlend {
        op: crate::format::BlendOp::Add,
        src: crate::format::BlendFactor::One,
        dest: crate::format::BlendFactor::One,
    };
    let exported = export(&skeleton, &meshes, &[], ExportOptions::default()).unwrap();
    let said = exported.warnings.join("\n");
    assert!(said.contains("blends by add") && said.contains("back faces only"), "{said}");
    let file = GltfDocument::from_slice(&exported.bytes, None).unwrap();
    let sword = file.document.meshes().find(|m| m.name() == Some("biped_sword")).unwrap();
    let material = sword.primitives().next().unwrap().material();
    assert_eq!(material.alpha_mode(), ::gltf::material::AlphaMode::Blend);
    assert!(!material.double_sided());
}

#[test]
fn characters_export_with_skins_materials_and_png_textures() {
    let (skeleton, mut meshes) = bundled_character();
    let skeleton = &skeleton;
    // The sword drawn without lighting.
    let sword = meshes[1].script.as_mut().unwrap();
    sword.materials[0].techniques[0].passes[0].lighting = false;
    let walk = clip("resource/animation/biped_walk_4002.ani");
    let exported = export(skeleton, &meshes, &[("walk".into(), &walk)], ExportOptions::default()).unwrap();
    assert!(exported.warnings.is_empty(), "{:?}", exported.warnings);
    let file = GltfDocument::from_slice(&exported.bytes, None).unwrap();
    let document = &file.document;
    assert_eq!(document.skins().len(), 1);
    assert_eq!(document.skins().next().unwrap().joints().count(), skeleton.bones.len());
    let body = document.meshes().find(|m| m.name() == Some("biped_body")).unwrap();
    let primitive = body.primitives().next().unwrap();
    let reader = primitive.reader(|b| file.buffer(b));
    assert_eq!(reader.read_positions().unwrap().count(), meshes[0].mesh.positions.len());
    let weights: Vec<[f32; 4]> = reader.read_weights(0).unwrap().into_f32().collect();
    assert!(weights.iter().all(|w| (w.iter().sum::<f32>() - 1.0).abs() < 1e-5));
    let texture = primitive.material().pbr_metallic_roughness().base_color_texture().unwrap().texture();
    let ::gltf::image::Source::View { view, mime_type } = texture.source().source() else { panic!("embedded") };
    assert_eq!(mime_type, "image/png");
    let png = &file.buffers[0][view.offset()..view.offset() + view.length()];
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let info = decoder.read_info().unwrap();
    assert_eq!((info.info().width, info.info().height), (64, 64));
    assert_eq!(document.extensions_used().collect::<Vec<_>>(), ["KHR_materials_unlit"]);
    let unlit = |name: &str| {
        let mesh = document.meshes().find(|m| m.name() == Some(name)).unwrap();
        mesh.primitives().next().unwrap().material().unlit()
    };
    assert!(unlit("biped_sword") && !unlit("biped_body"));
    // Vertices in metres, mirrored on X: the character faces +Z.
    let first = reader.read_positions().unwrap().next().unwrap();
    let stored = meshes[0].mesh.positions[0];
    assert!(Vec3::from(first).abs_diff_eq(Vec3::new(-stored.x, stored.y, stored.z) * 0.01, 1e-6));
}

/// The walk as a `.gltf` in a fresh folder whose buffer is the file
/// `uri` says; returns the folder, the `.gltf` path and the buffer's bytes.
fn walk_gltf(uri: &str) -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let glb = export_one(&skeleton(), "walk", &clip("biped_walk_4002.ani"), 0.01);
    let parsed = ::gltf::Gltf::from_slice(&glb).unwrap();
    let (mut root, blob) = (parsed.document.into_json(), parsed.blob.unwrap());
    root.buffers[0].uri = Some(uri.into());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("walk.gltf");
    std::fs::write(&path, json::serialize::to_vec(&root).unwrap()).unwrap();
    (dir, path, blob)
}

#[test]
fn hostile_buffer_uris_read_nothing_outside_the_folder() {
    let refused = |uri: &str, setup: &dyn Fn(&std::path::Path, &[u8])| {
        let (dir, path, blob) = walk_gltf(uri);
        setup(dir.path(), &blob);
        GltfDocument::open(&path).err().map(|e| e.to_string()).unwrap_or_default()
    };
    let nothing = |_: &std::path::Path, _: &[u8]| {};
    assert!(refused("/etc/passwd", &nothing).contains("relative to the glTF's folder"));
    assert!(refused("../walk.bin", &nothing).contains("without '..'"));
    assert!(refused("sub/../../walk.bin", &nothing).contains("without '..'"));
    let link_out =
        refused("zero.bin", &|dir, _| std::os::unix::fs::symlink("/dev/zero", dir.join("zero.bin")).unwrap());
    assert!(link_out.contains("outside the glTF's folder"), "{link_out}");
    let fifo = refused("pipe.bin", &|dir, _| {
        let made = std::process::Command::new("mkfifo").arg(dir.join("pipe.bin")).status().unwrap();
        assert!(made.success());
    });
    assert!(fifo.contains("not a regular file"), "{fifo}");
    let short =
        refused("walk.bin", &|dir, blob| std::fs::write(dir.join("walk.bin"), &blob[..blob.len() - 8]).unwrap());
    assert!(short.contains("bytes declared"), "{short}");
    let long =
        refused("walk.bin", &|dir, blob| std::fs::write(dir.join("walk.bin"), [blob, b"more"].concat()).unwrap());
    assert!(long.contains("bytes declared"), "{long}");
    let fine = refused("walk.bin", &|dir, blob| std::fs::write(dir.join("walk.bin"), blob).unwrap());
    assert_eq!(fine, "", "the same file, well formed, reads");
}

#[test]
fn a_base_ani_gives_back_what_a_tool_dropped() {
    let skeleton = skeleton();
    let mut walk = clip("biped_walk_4002.ani");
    walk.tracks[3].weight = 0.5;
    let glb = export_one(&skeleton, "walk", &walk, 0.01);
    // What Blender's default export keeps: no extras anywhere, and the
    // clip ends at its last key.
    let mut root = ::gltf::Gltf::from_slice(&glb).unwrap().document.into_json();
    root.animations[0].extras = None;
    root.scenes[0].extras = None;
    let file = GltfDocument::from_slice(&with_json(root, &glb), None).unwrap();
    let bare = import(&file, &skeleton, &ImportOptions::default()).unwrap().animation;
    assert!(bare.events.is_empty() && bare.tracks[3].weight == 1.0, "without the base, they are lost");
    // The base also holds a track the glTF lacks (a bone not in the
    // skeleton): it stays, in its place.
    let mut base = walk.clone();
    base.tracks
        .insert(1, Track { bone: FileString::from("Bip01 Ponytail"), weight: 1.0, keys: walk.tracks[1].keys.clone() });
    let options = ImportOptions { base: Some(base.clone()), ..ImportOptions::default() };
    let back = import(&file, &skeleton, &options).unwrap().animation;
    assert_eq!((back.version, back.total_ms, &back.events), (base.version, base.total_ms, &base.events));
    let names = |a: &Animation| a.tracks.iter().map(|t| t.bone.to_text()).collect::<Vec<_>>();
    assert_eq!(names(&back), names(&base));
    assert_eq!(back.tracks[1], base.tracks[1], "the track the glTF lacks is the base's, words and all");
    assert_eq!(back.tracks[4].weight, 0.5);
    let times = |a: &Animation, t: usize| a.tracks[t].keys.iter().map(|k| k.time_ms).collect::<Vec<_>>();
    assert_eq!(times(&back, 4), times(&walk, 3), "the glTF's keys, where it has them");
}

#[test]
fn scene_extras_carry_the_clip_where_a_tool_dropped_the_animations() {
    let skeleton = skeleton();
    let walk = clip("biped_walk_4002.ani");
    let glb = export_one(&skeleton, "walk", &walk, 0.01);
    let parsed = ::gltf::Gltf::from_slice(&glb).unwrap();
    let mut root = parsed.document.into_json();
    root.animations[0].extras = None;
    let back = import(&GltfDocument::from_slice(&with_json(root, &glb), None).unwrap(), &skeleton, &Default::default())
        .unwrap()
        .animation;
    assert_eq!((back.total_ms, &back.events, back.version), (walk.total_ms, &walk.events, walk.version));
}

#[test]
fn jumps_are_written_half_a_millisecond_wide_and_read_back_as_jumps() {
    let mut walk = clip("biped_walk_4000.ani");
    let track = &mut walk.tracks[0];
    let at = track.keys[10].time_ms;
    let mut jumped = track.keys[10];
    jumped.position.y += 20.0;
    track.keys.insert(11, jumped);
    // A key 1 ms before the jump, as close as an `.ani` allows: it stays
    // where it is, not taken for the jump's start.
    let mut before = track.keys[9];
    before.time_ms = at - 1;
    track.keys[9] = before;
    let skeleton = skeleton();
    let glb = export_one(&skeleton, "walk", &walk, 0.01);
    let file = GltfDocument::from_slice(&glb, None).unwrap();
    let times: Vec<f32> = {
        let channel = file.document.animations().next().unwrap().channels().next().unwrap();
        channel.reader(|b| file.buffer(b)).read_inputs().unwrap().collect()
    };
    let step = times.windows(2).map(|w| w[1] - w[0]).fold(f32::INFINITY, f32::min);
    assert!((step - 0.0005).abs() < 1e-6, "the narrowest step is the jump's: {step}");
    let back = import(&file, &skeleton, &Default::default()).unwrap().animation;
    let keys = &back.tracks[0].keys;
    let pair: Vec<_> = keys.iter().filter(|k| k.time_ms == at).collect();
    assert_eq!(pair.len(), 2, "two keys at {at} ms: a jump");
    assert_eq!(keys.iter().filter(|k| k.time_ms == at - 1).count(), 1, "the key 1 ms before stays");
    assert!((pair[1].position.y - pair[0].position.y - 20.0).abs() < 1e-3);
}

/// The bundled static model (a stage: no skeleton) as the export takes it:
/// its mesh and its collision mesh.
fn bundled_stage() -> (MeshFiles, crate::format::Collision) {
    let config = format!("{}/assets/resource/model/staticmodel/stage.txt", env!("CARGO_MANIFEST_DIR"));
    let character = crate::resource::Character::load(&crate::resource::Disk, std::path::Path::new(&config)).unwrap();
    assert!(character.skeleton.is_none());
    let collision = std::fs::read(character.collision.unwrap().path.unwrap()).unwrap();
    (
        MeshFiles::read(&crate::resource::Disk, &character.meshes[0]).unwrap(),
        crate::format::Collision::from_bytes(&collision).unwrap(),
    )
}

/// A node's triangles as glTF holds them (its axes, units and winding).
fn node_triangles(file: &GltfDocument, node: &str) -> Vec<[Vec3; 3]> {
    let node = file.document.nodes().find(|n| n.name() == Some(node)).unwrap();
    let mut triangles = Vec::new();
    for primitive in node.mesh().unwrap().primitives() {
        let reader = primitive.reader(|b| file.buffer(b));
        let positions: Vec<Vec3> = reader.read_positions().unwrap().map(Vec3::from).collect();
        let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
        triangles.extend(indices.chunks_exact(3).map(|t| [0, 1, 2].map(|k| positions[t[k] as usize])));
    }
    triangles
}

/// The volume a closed surface holds: positive when its triangles face
/// out in glTF's right-handed axes and counter-clockwise front faces.
fn signed_volume(triangles: &[[Vec3; 3]]) -> f32 {
    triangles.iter().map(|[a, b, c]| a.dot(b.cross(*c))).sum::<f32>() / 6.0
}

#[test]
fn a_static_model_exports_unskinned_with_its_collision_as_a_node_on_it() {
    let (stage, collision) = bundled_stage();
    let scale = 0.01;
    let parts = ModelParts {
        meshes: std::slice::from_ref(&stage),
        collisions: &[("stage".into(), &collision)],
        ..Default::default()
    };
    let exported = export_model(parts, ExportOptions { scale }).unwrap();
    assert!(exported.warnings.is_empty(), "{:?}", exported.warnings);
    let file = GltfDocument::from_slice(&exported.bytes, None).unwrap();
    let document = &file.document;
    assert_eq!((document.skins().len(), document.animations().len()), (0, 0));
    let names: Vec<&str> = document.nodes().filter_map(|n| n.name()).collect();
    assert_eq!(names, ["stage", "stage_collision"]);
    assert_eq!(document.default_scene().unwrap().name(), Some("stage"));
    // The mesh: no joints or weights, its script's material and texture.
    let primitive = document.meshes().next().unwrap().primitives().next().unwrap();
    let semantics: Vec<_> = primitive.attributes().map(|(semantic, _)| semantic).collect();
    use ::gltf::Semantic::{Normals, Positions, TexCoords};
    assert_eq!(semantics, [Positions, Normals, TexCoords(0)]);
    assert!(primitive.material().pbr_metallic_roughness().base_color_texture().is_some());
    // The mesh's faces turn to its normals in glTF's winding.
    let reader = primitive.reader(|b| file.buffer(b));
    let normals: Vec<Vec3> = reader.read_normals().unwrap().map(Vec3::from).collect();
    let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
    let mesh = node_triangles(&file, "stage");
    for (t, [a, b, c]) in mesh.iter().enumerate() {
        assert!((*b - *a).cross(*c - *a).dot(normals[indices[3 * t] as usize]) > 0.0, "triangle {t} faces in");
    }
    // The collision: positions only, no material, the .cms's triangles
    // once the export's mirror, scale and winding are undone.
    let node = document.nodes().find(|n| n.name() == Some("stage_collision")).unwrap();
    let primitive = node.mesh().unwrap().primitives().next().unwrap();
    assert_eq!(primitive.attributes().count(), 1);
    assert!(primitive.material().index().is_none());
    let written = node_triangles(&file, "stage_collision");
    let undone = |p: Vec3| crate::anim::axes::mirror_x_position(p) / scale;
    let triangles: Vec<[Vec3; 3]> = written.iter().map(|[a, b, c]| [undone(*a), undone(*c), undone(*b)]).collect();
    let corner = |i: u16| collision.positions[usize::from(i)];
    let stored: Vec<[Vec3; 3]> = collision.indices.chunks_exact(3).map(|t| [0, 1, 2].map(|k| corner(t[k]))).collect();
    assert_eq!(triangles.len(), stored.len());
    let gap = triangles.iter().flatten().zip(stored.iter().flatten()).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(gap < 1e-3, "{gap} units");
    // It faces as the mesh does: both hold the same blocks, facing out.
    let (solid, hull) = (signed_volume(&mesh), signed_volume(&written));
    assert!(solid > 0.0 && (hull - solid).abs() < 1e-4 * solid, "mesh {solid} m³, collision {hull} m³");
    eprintln!("{} collision triangles within {gap} units; volumes: mesh {solid} m³, collision {hull} m³", stored.len());
}

#[test]
fn a_model_without_a_skeleton_cannot_hold_what_moves_with_bones() {
    let (_, meshes) = bundled_character();
    let walk = clip("biped_walk_4002.ani");
    let parts = ModelParts { meshes: &meshes[..1], animations: &[("walk".into(), &walk)], ..Default::default() };
    let error = export_model(parts, ExportOptions::default()).unwrap_err();
    assert_eq!(error.to_string(), "no skeleton, but skinned meshes (biped_body) and 1 animations need one");
    // An empty collision mesh is left out, and said.
    let empty = crate::format::Collision::default();
    let parts = ModelParts { collisions: &[("crate".into(), &empty)], ..Default::default() };
    let exported = export_model(parts, ExportOptions::default()).unwrap();
    assert_eq!(exported.warnings, ["collision mesh 'crate': no triangle; left out"]);
}
