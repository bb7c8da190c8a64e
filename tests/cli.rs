//! The `io3d` command line as a user runs it.

use std::process::{Command, Output};

mod common;
mod faults;
mod tools;

use bevy_io3d::anim::skin::skin_on;
use bevy_io3d::anim::{Clip, RepeatMode, Rig};
use bevy_io3d::format::{Animation, Mesh, Skeleton};
use common::asset;

fn io3d(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_io3d")).args(args.iter().map(|a| a.as_ref())).output().expect("io3d runs")
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "io3d failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn dump_then_build_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["biped.skl", "biped_walk_4000.ani", "biped_idle_4001.ani", "biped_attack_4002.ani"] {
        let json = dir.path().join("dump.json");
        std::fs::write(&json, stdout(&io3d(&[&"dump", &asset(name)]))).unwrap();
        let out = dir.path().join("built");
        stdout(&io3d(&[&"build", &json, &"-o", &out]));
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(asset(name)).unwrap(), "{name}");
    }
}

#[test]
fn dump_prints_the_documented_shape() {
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&io3d(&[&"dump", &asset("biped_walk_4002.ani")]))).unwrap();
    assert_eq!(json["format"], "ani");
    assert_eq!(json["version"], 4002);
    assert_eq!(json["total_ms"], 1000);
    assert_eq!(json["events"][0]["type"], "motion_sound");
    let key = &json["tracks"][0]["keys"][0];
    assert_eq!(json["tracks"][0]["bone"], "Bip01");
    assert_eq!(key["position"].as_array().unwrap().len(), 3);
    assert_eq!(key["rotation"].as_array().unwrap().len(), 4);
    assert_eq!(key["packed"].as_array().unwrap().len(), 2);
}

#[test]
fn convert_changes_version_and_keeps_what_it_can() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk.ani");
    stdout(&io3d(&[&"convert", &asset("biped_walk_4002.ani"), &"-o", &out, &"--version", &"4001"]));
    let converted = Animation::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    let original = Animation::from_bytes(&std::fs::read(asset("biped_walk_4002.ani")).unwrap()).unwrap();
    assert_eq!(converted.version.number(), 4001);
    assert_eq!(converted.events, original.events);
    assert_eq!(converted.key_count(), original.key_count());
    let info = stdout(&io3d(&[&"info", &out]));
    assert!(info.contains("version 4001"), "{info}");
    assert!(!info.contains("sidecar"), "{info}");
    // An event sidecar beside it, in another case, is named with its events.
    std::fs::write(dir.path().join("WALK.ANT"), b"1\n1\n250\n10\nauto_sound\n0\n").unwrap();
    let info = stdout(&io3d(&[&"info", &out]));
    assert!(info.contains("WALK.ANT replaces them in the game: 1 events"), "{info}");
    assert!(!info.contains("    line "), "no warnings on a well-made sidecar: {info}");
    // Without --version, converting to JSON and back is exact.
    let json = dir.path().join("walk.json");
    stdout(&io3d(&[&"convert", &out, &"-o", &json]));
    let back = dir.path().join("back.ani");
    stdout(&io3d(&[&"convert", &json, &"-o", &back]));
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&out).unwrap());
}

#[test]
fn pose_matches_the_library() {
    let at_ms = 1375.5;
    let output = io3d(&[
        &"pose",
        &asset("biped_walk_4001.ani"),
        &"--skeleton",
        &asset("biped.skl"),
        &"--at-ms",
        &"1375.5",
        &"--loop",
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["at_ms"], 1375.5);
    let skeleton = Skeleton::from_bytes(&std::fs::read(asset("biped.skl")).unwrap()).unwrap();
    let walk = Animation::from_bytes(&std::fs::read(asset("biped_walk_4001.ani")).unwrap()).unwrap();
    let pose = Rig::new(&skeleton)
        .unwrap()
        .world_pose(&Clip::new(&walk), RepeatMode::Loop.animation_time(at_ms, walk.total_ms));
    let bones = json["bones"].as_array().unwrap();
    assert_eq!(bones.len(), skeleton.bones.len());
    for ((bone, expected), printed) in skeleton.bones.iter().zip(&pose).zip(bones) {
        assert_eq!(printed["name"], bone.name.to_text());
        let floats = |v: &serde_json::Value| {
            v.as_array().unwrap().iter().map(|f| f.as_f64().unwrap() as f32).collect::<Vec<_>>()
        };
        assert_eq!(floats(&printed["world_position"]), expected.position.to_array());
        assert_eq!(floats(&printed["world_rotation"]), expected.rotation.to_array());
    }
    // Playing once clamps at the end; looping wraps: 1375.5 ms shows 375.5 ms.
    let once =
        io3d(&[&"pose", &asset("biped_walk_4001.ani"), &"--skeleton", &asset("biped.skl"), &"--at-ms", &"1375.5"]);
    assert_ne!(stdout(&once).replace("1375.5", ""), stdout(&output).replace("1375.5", ""));
}

#[test]
fn check_reports_errors_with_file_and_offset_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let good = io3d(&[&"check", &asset(""), &"--skeleton", &asset("biped.skl")]);
    stdout(&good);
    assert!(stderr(&good).contains("checked 25 files: 0 errors"), "{}", stderr(&good));

    // A walk whose second track lost its keys, and junk beside it.
    let mut walk = Animation::from_bytes(&std::fs::read(asset("biped_walk_4002.ani")).unwrap()).unwrap();
    walk.tracks[1].keys.clear();
    std::fs::write(dir.path().join("broken.ani"), walk.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.path().join("junk.ani"), b"not an animation at all").unwrap();
    std::fs::write(dir.path().join("notes.md"), b"ignored").unwrap();
    let bad = io3d(&[&"check", &dir.path(), &"--json"]);
    assert_eq!(bad.status.code(), Some(1));
    let findings: serde_json::Value = serde_json::from_slice(&bad.stdout).unwrap();
    let findings = findings.as_array().unwrap();
    let empty = findings.iter().find(|f| f["rule"] == "empty-track").expect("the empty track is found");
    assert!(empty["file"].as_str().unwrap().ends_with("broken.ani"));
    assert_eq!(empty["severity"], "error");
    assert!(empty["offset"].as_u64().unwrap() > 0);
    assert!(empty["message"].as_str().unwrap().starts_with("track 1 'Bip01 Pelvis' has no keys"));
    let junk = findings.iter().find(|f| f["file"].as_str().unwrap().ends_with("junk.ani")).unwrap();
    assert_eq!((junk["rule"].as_str(), junk["offset"].as_u64()), (Some("unreadable"), Some(0)));
    assert!(stderr(&bad).contains("checked 2 files: 2 errors"), "{}", stderr(&bad));
}

/// `check --rules` prints the catalogue, a rule a line in aligned columns,
/// and checks nothing; `check` with neither paths nor `--rules` is refused.
#[test]
fn check_rules_prints_the_catalogue() {
    use bevy_io3d::check::Rule;
    let printed = stdout(&io3d(&[&"check", &"--rules"]));
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), Rule::ALL.len(), "{printed}");
    let mut doc_columns = std::collections::HashSet::new();
    for (line, rule) in lines.iter().zip(Rule::ALL) {
        let words: Vec<&str> = line.split_whitespace().take(2).collect();
        assert_eq!(words, [rule.id(), &rule.severity().to_string()], "{line}");
        assert!(line.ends_with(rule.doc()), "{line}");
        doc_columns.insert(line.len() - rule.doc().len());
    }
    assert_eq!(doc_columns.len(), 1, "the meanings start in one column:\n{printed}");
    assert!(lines.iter().any(|l| l.starts_with("loose-bone ")), "{printed}");
    assert!(!io3d(&[&"check", &"--rules", &"--json"]).status.success());
    assert!(!io3d(&[&"check"]).status.success());
}

#[test]
fn failures_are_one_clear_line_and_leave_no_half_written_file() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(asset("biped_walk_4002.ani")).unwrap();
    let cut = dir.path().join("cut.ani");
    std::fs::write(&cut, &bytes[..bytes.len() - 30]).unwrap();
    let out = dir.path().join("out.ani");
    std::fs::write(&out, b"precious").unwrap();
    let failed = io3d(&[&"convert", &cut, &"-o", &out, &"--version", &"4000"]);
    assert!(!failed.status.success());
    let message = stderr(&failed);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("cut.ani") && message.contains("track 21 'Bip01 R Hand', key 29"), "{message}");
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");

    let json = dir.path().join("bad.json");
    std::fs::write(&json, r#"{"format":"ani","version":4005,"total_ms":0,"events":[],"tracks":[]}"#).unwrap();
    let failed = io3d(&[&"build", &json, &"-o", &out]);
    assert!(
        stderr(&failed).contains(".ani version 4005 is unknown (accepted: 4000, 4001 or 4002)"),
        "{}",
        stderr(&failed)
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3, "no temporary file left behind");

    // A model import the game cannot take (bones and a clip: no mesh)
    // leaves no folder and nothing beside it.
    let glb = dir.path().join("bones.glb");
    let walk = asset("biped_walk_4002.ani");
    assert!(io3d(&[&"export", &"--skeleton", &asset("biped.skl"), &walk, &"-o", &glb]).status.success());
    let failed = io3d(&[&"import", &glb, &"--model", &dir.path().join("mod")]);
    assert!(stderr(&failed).contains("no mesh to import"), "{}", stderr(&failed));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4, "no model folder, no staging folder");
}

#[test]
fn edits_write_files_that_check_clean_and_keep_untouched_words() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name);
    let walk = asset("biped_walk_4001.ani");
    let attack = asset("biped_attack_4001.ani");
    let original = Animation::from_bytes(&std::fs::read(&walk).unwrap()).unwrap();

    stdout(&io3d(&[&"join", &walk, &attack, &"-o", &out("join.ani")]));
    let joined = Animation::from_bytes(&std::fs::read(out("join.ani")).unwrap()).unwrap();
    let attack_clip = Animation::from_bytes(&std::fs::read(&attack).unwrap()).unwrap();
    assert_eq!(joined.total_ms, original.total_ms + attack_clip.total_ms);
    assert_eq!(joined.events.len(), original.events.len() + attack_clip.events.len());
    // The walk's keys are stored in the joined file with their words.
    let first = &joined.tracks[3].keys[..original.tracks[3].keys.len()];
    assert_eq!(first, &original.tracks[3].keys[..]);

    stdout(&io3d(&[&"trim", &walk, &"--from-ms", &"250", &"--to-ms", &"750", &"-o", &out("trim.ani")]));
    stdout(&io3d(&[&"resample", &walk, &"--step-ms", &"50", &"-o", &out("resample.ani")]));
    stdout(&io3d(&[&"mirror", &walk, &"--skeleton", &asset("biped.skl"), &"-o", &out("mirror.ani")]));
    std::fs::write(out("map.txt"), "Bip01 = Bip01\nBip01 Pelvis = Bip01 Pelvis\n").unwrap();
    let renamed = io3d(&[&"retarget", &walk, &"--map", &out("map.txt"), &"-o", &out("renamed.ani")]);
    assert!(stderr(&renamed).contains("dropped 20 tracks with no mapping"), "{}", stderr(&renamed));
    let suggested =
        stdout(&io3d(&[&"retarget", &"--suggest", &"--from", &asset("biped.skl"), &"--to", &asset("biped.skl")]));
    assert_eq!(suggested.lines().count(), 22);
    assert!(suggested.contains("Bip01 L Thigh = Bip01 L Thigh"), "{suggested}");
    std::fs::write(out("map.txt"), &suggested).unwrap();
    let skl = asset("biped.skl");
    stdout(&io3d(&[
        &"retarget",
        &walk,
        &"--map",
        &out("map.txt"),
        &"--from",
        &skl,
        &"--to",
        &skl,
        &"-o",
        &out("retarget.ani"),
    ]));

    let events = out("events.ani");
    std::fs::copy(&walk, &events).unwrap();
    stdout(&io3d(&[&"events", &events, &"--add", &"motion_sound", &"--sub-info", &"발소리.wav", &"--at-ms", &"125"]));
    stdout(&io3d(&[&"events", &events, &"--retime", &"0", &"--at-ms", &"10"]));
    stdout(&io3d(&[&"events", &events, &"--remove", &"1"]));
    let listed = stdout(&io3d(&[&"events", &events, &"--list"]));
    assert!(listed.contains("발소리.wav") && listed.contains("10 ms"), "{listed}");
    let edited = Animation::from_bytes(&std::fs::read(&events).unwrap()).unwrap();
    assert_eq!(edited.events.len(), original.events.len());
    assert_eq!(edited.tracks, original.tracks, "event edits leave every key and its words alone");
    let failed = io3d(&[&"events", &events, &"--remove", &"99"]);
    assert!(stderr(&failed).contains("there is no event 99"), "{}", stderr(&failed));

    for name in ["join.ani", "trim.ani", "resample.ani", "mirror.ani", "renamed.ani", "retarget.ani", "events.ani"] {
        let checked = io3d(&[&"check", &out(name)]);
        let said = String::from_utf8_lossy(&checked.stdout);
        assert!(checked.status.success(), "{name}: {said}{}", stderr(&checked));
    }
}

#[test]
fn meshes_scripts_and_collisions_go_through_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let config = common::resource_folder(dir.path());
    let root = dir.path();
    let sword = root.join("Mesh/sword.msh");
    let script = root.join("Material/sword.txt");
    let collision = root.join("Mesh/body.cms");
    let cms = bevy_io3d::format::Collision {
        positions: vec![glam::Vec3::ZERO, glam::Vec3::X, glam::Vec3::Y],
        indices: vec![0, 1, 2],
        trailing: vec![],
    };
    std::fs::write(&collision, cms.to_bytes().unwrap()).unwrap();

    let info = stdout(&io3d(&[&"info", &sword, &script, &collision, &config]));
    for said in [
        "mesh, version 2002, animated (skinned)",
        "bones       1 (Bip01 R Hand)",
        "point       trailend_1 on Bip01 R Hand",
        "material script",
        "AnimateToonShade",
        "Sword.DDS (uv0)",
        "collision mesh",
        "meshes      arm, sword",
    ] {
        assert!(info.contains(said), "'{said}' not in {info}");
    }

    for file in [&sword, &script, &collision] {
        let json = root.join("dump.json");
        std::fs::write(&json, stdout(&io3d(&[&"dump", file]))).unwrap();
        let built = root.join("built");
        stdout(&io3d(&[&"build", &json, &"-o", &built]));
        assert_eq!(std::fs::read(&built).unwrap(), std::fs::read(file).unwrap(), "{}", file.display());
    }

    let refused = io3d(&[&"convert", &sword, &"-o", &root.join("old.msh"), &"--version", &"2000"]);
    assert!(stderr(&refused).contains("cannot store the mesh's 2 control points"), "{}", stderr(&refused));
    let arm_2001 = root.join("arm_2001.msh");
    let mut arm = Mesh::from_bytes(&std::fs::read(root.join("Mesh/arm.msh")).unwrap()).unwrap();
    arm.control_points.clear();
    std::fs::write(&arm_2001, arm.to_bytes().unwrap()).unwrap();
    stdout(&io3d(&[&"convert", &arm_2001, &"-o", &arm_2001, &"--version", &"2001"]));
    assert_eq!(Mesh::from_bytes(&std::fs::read(&arm_2001).unwrap()).unwrap().version, 2001);
}

/// The game's script templates pass the lint where a user meets them: in
/// a character's folder, as the script of its arm, beside the textures
/// they name.
#[test]
fn template_scripts_pass_the_lint_in_a_characters_folder() {
    use bevy_io3d::format::material::template::{self, Alpha, OutlinePass, Template, TemplateKind};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    common::resource_folder(root);
    std::fs::write(root.join("Texture/arm_lm.dds"), common::texture()).unwrap();
    let lightmap = TemplateKind::Lightmap { lightmap: "arm_lm.dds".into() };
    for kind in [TemplateKind::Toon, TemplateKind::ToonSkin, TemplateKind::Static, lightmap] {
        for alpha in [Alpha::Opaque, Alpha::Test(0.5), Alpha::Blend] {
            let outline = Some(OutlinePass::default());
            let template = Template { alpha, two_sided: true, outline, ..Template::new(kind.clone(), "arm.dds") };
            let script = template::script([("Arm", &template)]).unwrap();
            std::fs::write(root.join("Material/arm.txt"), script.to_bytes()).unwrap();
            let checked = io3d(&[&"check", &root]);
            let said = format!("{template:?}: {}{}", String::from_utf8_lossy(&checked.stdout), stderr(&checked));
            assert!(checked.status.success() && stderr(&checked).contains(": 0 errors, 0 warnings"), "{said}");
        }
    }
}

#[test]
fn a_character_is_checked_with_the_links_between_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let config = common::resource_folder(dir.path());
    let root = dir.path();
    let clean = io3d(&[&"check", &root]);
    assert!(clean.status.success(), "{}{}", String::from_utf8_lossy(&clean.stdout), stderr(&clean));
    assert!(stderr(&clean).contains("checked 9 files: 0 errors, 0 warnings"), "{}", stderr(&clean));

    // Break one link of each kind.
    std::fs::remove_file(root.join("Material/sword.txt")).unwrap();
    std::fs::remove_file(root.join("Texture/arm.dds")).unwrap();
    std::fs::remove_file(root.join("Animation/biped_walk_4002.ani")).unwrap();
    let mut arm = Mesh::from_bytes(&std::fs::read(root.join("Mesh/arm.msh")).unwrap()).unwrap();
    arm.weights.as_mut().unwrap().names[2] = "Bip01 L Claw".into();
    std::fs::write(root.join("Mesh/arm.msh"), arm.to_bytes().unwrap()).unwrap();

    let broken = io3d(&[&"check", &config, &"--json"]);
    assert_eq!(broken.status.code(), Some(1));
    let findings: serde_json::Value = serde_json::from_slice(&broken.stdout).unwrap();
    let find = |rule: &str| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule} in {findings:#}"))
            .clone()
    };
    let no_script = find("no-material-script");
    assert!(no_script["file"].as_str().unwrap().ends_with("hero.txt"));
    assert!(
        no_script["message"].as_str().unwrap().starts_with("line 6: mesh 'sword' has no material script"),
        "{no_script}"
    );
    let texture = find("missing-texture");
    assert!(texture["file"].as_str().unwrap().ends_with("arm.txt"));
    assert!(texture["message"].as_str().unwrap().contains("'arm.dds'"), "{texture}");
    let animation = find("missing-file");
    assert!(animation["message"].as_str().unwrap().contains("biped_walk_4002.ani"), "{animation}");
    let bone = find("unknown-bone");
    assert!(bone["file"].as_str().unwrap().ends_with("arm.msh"));
    assert!(bone["message"].as_str().unwrap().contains("'Bip01 L Claw'"), "{bone}");
}

/// Textures go through `info` and `check`, and a folder's meshes are
/// paired with their scripts as the client pairs them, before any config
/// names them.
#[test]
fn textures_and_the_scripts_of_a_folders_meshes_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    common::resource_folder(dir.path());
    let root = dir.path();
    let full = root.join("Texture/arm.dds");
    let info = stdout(&io3d(&[&"info", &full]));
    for said in
        ["texture", "DXT1 (BC1", "4 x 4", "mip levels  3 of 3 (4 x 4 down to 1 x 1)", "uses the file's mip chain"]
    {
        assert!(info.contains(said), "'{said}' not in {info}");
    }
    let mut partial = bevy_io3d::format::Dds::from_bytes(&common::texture()).unwrap();
    partial.levels.truncate(1);
    let partial_path = root.join("Texture/partial.dds");
    std::fs::write(&partial_path, partial.to_bytes()).unwrap();
    assert!(stdout(&io3d(&[&"info", &partial_path])).contains("builds the other 2 mip levels"));
    // An add-on export whose meshes and scripts do not match.
    std::fs::copy(root.join("Mesh/sword.msh"), root.join("Mesh/shovel_knight_body.msh")).unwrap();
    std::fs::copy(root.join("Material/sword.txt"), root.join("Material/patriot_body.txt")).unwrap();
    std::fs::write(root.join("Texture/broken.dds"), b"DDS stand-in").unwrap();
    let checked = io3d(&[&"check", &root]);
    let text = String::from_utf8_lossy(&checked.stdout);
    assert_eq!(checked.status.code(), Some(1));
    for said in [
        "shovel_knight_body.msh: error [no-material-script] at byte 0: no material script 'shovel_knight_body.txt'",
        "patriot_body.txt: warning [unused-script] at byte 0: no mesh 'patriot_body.msh'",
        "partial.dds: info [partial-mip-chain] at byte 28: holds 1 of 3 mip levels",
        "broken.dds: error [unreadable]",
    ] {
        assert!(text.contains(said), "'{said}' not in {text}");
    }
}

/// A modder's folder of packs, each a resource folder (one deeper than the
/// others): every pack's meshes are paired with their scripts, as when the
/// pack is checked alone.
#[test]
fn every_resource_folder_in_a_folder_of_packs_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let packs = dir.path().join("packs");
    let arm = common::arm(&common::biped()).to_bytes().unwrap();
    let roots = ["a/resource", "b/Resource", "c/more/res"].map(|r| packs.join(r));
    for (i, root) in roots.iter().enumerate() {
        for sub in ["Mesh", "Material"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join("Mesh/arm.msh"), &arm).unwrap();
        std::fs::write(root.join("Material/arm.txt"), common::material_script("arm.dds")).unwrap();
        std::fs::write(root.join(format!("Mesh/bare_{i}.msh")), &arm).unwrap();
    }
    let no_script = |path: &std::path::Path| -> Vec<String> {
        let checked = io3d(&[&"check", &path, &"--json"]);
        assert_eq!(checked.status.code(), Some(1), "{}", stderr(&checked));
        let findings: serde_json::Value = serde_json::from_slice(&checked.stdout).unwrap();
        let findings = findings.as_array().unwrap().iter();
        let missing = findings.filter(|f| f["rule"] == "no-material-script");
        missing.map(|f| f["file"].as_str().unwrap().to_owned()).collect()
    };
    let expected: Vec<String> =
        roots.iter().enumerate().map(|(i, r)| r.join(format!("Mesh/bare_{i}.msh")).display().to_string()).collect();
    assert_eq!(no_script(&packs), expected);
    for (root, file) in roots.iter().zip(&expected) {
        assert_eq!(no_script(root), std::slice::from_ref(file), "{} alone", root.display());
    }
}

#[test]
fn the_text_lint_groups_runs_of_keys_and_counts_rules() {
    let dir = tempfile::tempdir().unwrap();
    let mut walk = Animation::from_bytes(&std::fs::read(asset("biped_walk_4000.ani")).unwrap()).unwrap();
    for key in &mut walk.tracks[2].keys[3..9] {
        key.rotation *= 2.0;
    }
    // The same keys of five more tracks: one line for all.
    for track in &mut walk.tracks[10..15] {
        track.keys[3..9].iter_mut().for_each(|key| key.rotation *= 2.0);
    }
    let path = dir.path().join("long.ani");
    std::fs::write(&path, walk.to_bytes().unwrap()).unwrap();
    let checked = io3d(&[&"check", &path]);
    let text = stdout(&checked);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].contains("[not-unit] on 6 tracks (36 findings at bytes"), "{text}");
    assert!(lines[0].contains("keys 3 to 8 (6 keys; key 3: rotation has length 2.0000, far from 1)"), "{text}");
    assert!(stderr(&checked).contains("by rule: not-unit 36"), "{}", stderr(&checked));
    let json: serde_json::Value = serde_json::from_str(&stdout(&io3d(&[&"check", &path, &"--json"]))).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 36, "--json keeps every finding");
}

#[test]
fn pose_skins_meshes_as_the_library_does() {
    let dir = tempfile::tempdir().unwrap();
    common::resource_folder(dir.path());
    let (walk, skl) = (asset("biped_walk_4002.ani"), asset("biped.skl"));
    let (arm, sword) = (dir.path().join("Mesh/arm.msh"), dir.path().join("Mesh/sword.msh"));
    let output = io3d(&[&"pose", &walk, &"--skeleton", &skl, &"--at-ms", &"250", &"--mesh", &arm, &"--mesh", &sword]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let skeleton = common::biped();
    let rig = Rig::new(&skeleton).unwrap();
    let world = rig.world_pose(&Clip::new(&Animation::from_bytes(&std::fs::read(&walk).unwrap()).unwrap()), 250.0);
    let meshes = json["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 2);
    for (printed, path) in meshes.iter().zip([&arm, &sword]) {
        let mesh = Mesh::from_bytes(&std::fs::read(path).unwrap()).unwrap();
        let expected = skin_on(&mesh, &rig, &world);
        assert!(printed["file"].as_str().unwrap().ends_with(path.file_name().unwrap().to_str().unwrap()));
        let positions = printed["positions"].as_array().unwrap();
        assert_eq!(positions.len(), mesh.vertex_count);
        assert_eq!(printed["normals"].as_array().unwrap().len(), mesh.vertex_count);
        for (p, want) in positions.iter().zip(&expected.positions) {
            let got: Vec<f32> = p.as_array().unwrap().iter().map(|f| f.as_f64().unwrap() as f32).collect();
            assert_eq!(got, want.to_array());
        }
    }
    assert_eq!(meshes[1]["control_points"].as_array().unwrap().len(), 2);
}

#[test]
fn gltf_export_and_import_round_trip_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("biped.glb");
    let config = asset("resource/model/animodel/biped.txt");
    let printed = stdout(&io3d(&[&"export", &config, &"-o", &glb]));
    assert!(printed.contains("22 bones, 2 meshes, 3 animations"), "{printed}");
    let skeleton = asset("biped.skl");
    let several = io3d(&[&"import", &glb, &"--skeleton", &skeleton, &"-o", &dir.path().join("x.ani")]);
    assert!(!several.status.success());
    assert!(stderr(&several).contains("choose one by name"), "{}", stderr(&several));
    assert!(!dir.path().join("x.ani").exists());

    let out = dir.path().join("walk.ani");
    let walk = "biped_walk_4002";
    stdout(&io3d(&[&"import", &glb, &"--skeleton", &skeleton, &"--animation", &walk, &"-o", &out]));
    let original =
        Animation::from_bytes(&std::fs::read(asset("resource/animation/biped_walk_4002.ani")).unwrap()).unwrap();
    let back = Animation::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!((back.version, back.total_ms, &back.events), (original.version, original.total_ms, &original.events));
    assert_eq!(back.key_count(), original.key_count());

    let printed = stdout(&io3d(&[
        &"import",
        &glb,
        &"--skeleton",
        &skeleton,
        &"--animation",
        &walk,
        &"--tolerance",
        &"0.5,0.05",
        &"--version",
        &"4001",
        &"-o",
        &out,
    ]));
    let reduced = Animation::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(reduced.version.number(), 4001);
    assert!(reduced.key_count() < original.key_count(), "{printed}");
    assert!(printed.contains("before reduction"), "{printed}");

    let info = stdout(&io3d(&[&"info", &glb]));
    assert!(info.contains("glTF 2.0, 24 nodes, 1 skins, 2 meshes, 3 animations"), "{info}");
    assert!(info.contains("'biped_walk_4002': 22 nodes moved, 1000 ms, from version 4002 with 2 events"), "{info}");
    let map = stdout(&io3d(&[&"import", &glb, &"--skeleton", &skeleton, &"--suggest"]));
    assert!(map.contains("Bip01 L Thigh = Bip01 L Thigh"), "{map}");
    let bad =
        io3d(&[&"export", &"--skeleton", &skeleton, &asset("biped_walk_4000.ani"), &"-o", &dir.path().join("a.gltf")]);
    assert!(stderr(&bad).contains("must end in .glb"), "{}", stderr(&bad));

    // The whole model into a folder, and into one .zip: the same files.
    let (folder, zip) = (dir.path().join("mod"), dir.path().join("mod.zip"));
    stdout(&io3d(&[&"import", &glb, &"--model", &folder]));
    let listed = stdout(&io3d(&[&"import", &glb, &"--model", &zip]));
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&zip).unwrap()).unwrap();
    assert_eq!(archive.len(), listed.lines().count(), "{listed}");
    for name in listed.lines() {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut archive.by_name(name).unwrap(), &mut bytes).unwrap();
        assert_eq!(bytes, std::fs::read(folder.join(name)).unwrap(), "{name}");
    }
    assert!(listed.contains("resource/model/animodel/biped.txt"), "{listed}");
}

/// The bundled static model's collision mesh, as triangles of positions.
#[cfg(feature = "viewer")]
fn stage_collision_triangles() -> Vec<[glam::Vec3; 3]> {
    let cms = bevy_io3d::format::Collision::from_bytes(&std::fs::read(asset("resource/mesh/stage.cms")).unwrap());
    let cms = cms.unwrap();
    cms.indices.chunks_exact(3).map(|t| [0, 1, 2].map(|k| cms.positions[usize::from(t[k])])).collect()
}

/// The largest distance between the corners of two lists of triangles of
/// the same length.
#[cfg(feature = "viewer")]
fn triangle_gap(a: &[[glam::Vec3; 3]], b: &[[glam::Vec3; 3]]) -> f32 {
    assert_eq!(a.len(), b.len(), "triangles");
    a.iter().flatten().zip(b.iter().flatten()).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max)
}

#[test]
fn a_static_model_exports_with_its_collision_and_without_a_skeleton() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("stage.glb");
    let printed = stdout(&io3d(&[&"export", &asset("resource/model/staticmodel/stage.txt"), &"-o", &glb]));
    assert!(printed.contains("no skeleton, 1 meshes, 0 animations, 1 collision meshes"), "{printed}");
    let info = stdout(&io3d(&[&"info", &glb]));
    assert!(info.contains("glTF 2.0, 2 nodes, 0 skins, 2 meshes, 0 animations"), "{info}");
    // A config with no skeleton naming what moves with bones: an error
    // naming the config and what needs one, and no file.
    let resource = dir.path().join("resource");
    common::copy_tree(&asset("resource"), &resource);
    let statue = resource.join("model/staticmodel/statue.txt");
    let text = "#MODEL_CFG\n#MESH_LIST\nstage\nbiped_body\n#MESH_LIST_END\n#ANIMATION_LIST\nbiped_walk_4002.ani\n#ANIMATION_LIST_END\n#MODEL_END\n";
    std::fs::write(&statue, text).unwrap();
    let out = dir.path().join("statue.glb");
    let failed = io3d(&[&"export", &statue, &"-o", &out]);
    assert!(!failed.status.success());
    let said = format!("{}: no skeleton, but skinned meshes (biped_body) and 1 animations need one", statue.display());
    assert!(stderr(&failed).contains(&said), "{}", stderr(&failed));
    assert!(!out.exists());
}

/// Bevy's glTF loader, an independent reader, reads the static export: the
/// stage's mesh with no joints, and the collision node whose triangles are
/// the `.cms`'s once the export's metres, mirror and winding are undone.
#[cfg(feature = "viewer")]
#[test]
fn bevys_gltf_loader_reads_a_static_export_with_its_collision() {
    use bevy::asset::{AssetApp, AssetPlugin, AssetServer, Assets, Handle};
    use bevy::gltf::{Gltf, GltfMesh, GltfNode, GltfPlugin};
    use bevy::mesh::{Mesh as BevyMesh, VertexAttributeValues};
    use bevy::prelude::{App, MinimalPlugins, StandardMaterial, TransformPlugin, default};
    use bevy::world_serialization::WorldSerializationPlugin;

    let dir = tempfile::tempdir().unwrap();
    stdout(&io3d(&[&"export", &asset("resource/model/staticmodel/stage.txt"), &"-o", &dir.path().join("stage.glb")]));
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin { file_path: dir.path().display().to_string(), ..default() },
        TransformPlugin,
        bevy::mesh::MeshPlugin,
        bevy::image::ImagePlugin::default(),
        WorldSerializationPlugin,
        GltfPlugin::default(),
        bevy_io3d::plugin::Io3dPlugin::default(),
    ));
    app.init_asset::<StandardMaterial>();
    app.finish();
    let gltf: Handle<Gltf> = app.world().resource::<AssetServer>().load("stage.glb");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !app.world().resource::<AssetServer>().is_loaded_with_dependencies(&gltf) {
        assert!(std::time::Instant::now() < deadline, "timed out loading the glTF");
        app.update();
    }
    let world = app.world();
    let gltf = world.resource::<Assets<Gltf>>().get(&gltf).unwrap();
    let node = |name: &str| world.resource::<Assets<GltfNode>>().get(&gltf.named_nodes[name]).unwrap();
    let mesh = |node: &GltfNode| {
        let mesh = world.resource::<Assets<GltfMesh>>().get(node.mesh.as_ref().unwrap()).unwrap();
        world.resource::<Assets<BevyMesh>>().get(&mesh.primitives[0].mesh).unwrap()
    };
    let (stage, collision) = (node("stage"), node("stage_collision"));
    assert!(stage.skin.is_none() && collision.skin.is_none());
    let stage_mesh = mesh(stage);
    assert!(stage_mesh.attribute(BevyMesh::ATTRIBUTE_JOINT_INDEX).is_none());
    let stored = Mesh::from_bytes(&std::fs::read(asset("resource/mesh/stage.msh")).unwrap()).unwrap();
    assert_eq!(stage_mesh.count_vertices(), stored.positions.len());
    // Without normals, the loader gives the collision flat ones, a vertex
    // a corner (and no indices).
    let collision = mesh(collision);
    let Some(VertexAttributeValues::Float32x3(positions)) = collision.attribute(BevyMesh::ATTRIBUTE_POSITION) else {
        panic!("positions")
    };
    let corners: Vec<usize> = match collision.indices() {
        Some(indices) => indices.iter().collect(),
        None => (0..positions.len()).collect(),
    };
    let undone = |i: usize| glam::Vec3::new(-positions[i][0], positions[i][1], positions[i][2]) / 0.01;
    let triangles: Vec<[glam::Vec3; 3]> =
        corners.chunks_exact(3).map(|t| [undone(t[0]), undone(t[2]), undone(t[1])]).collect();
    let gap = triangle_gap(&triangles, &stage_collision_triangles());
    eprintln!("bevy_gltf: {} collision triangles within {gap} units of the .cms", triangles.len());
    assert!(gap < 1e-3, "{gap} units");
}
