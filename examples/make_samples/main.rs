//! Makes the bundled samples in `assets/` with this crate's own code: the
//! standard Biped skeleton, and a walk (whose root moves forward), an idle
//! and an attack with events, each saved as `.ani` versions 4000, 4001 and
//! 4002, plus a model config naming them; and the same Biped as a whole
//! character in the game's `resource/` layout (`character.rs`): skeleton,
//! the 4002 clips, a skinned body, a sword with trail points, their
//! material scripts, a texture and a model config; and a static model
//! beside it (`stage.rs`): a mesh with no weights, its script, its
//! collision mesh and a config with no skeleton.
//!
//! Run it again after changing the motions:
//! `cargo run --no-default-features --example make_samples [OUT_DIR]`

use std::f32::consts::TAU;
use std::path::Path;

mod character;
mod stage;

use bevy_io3d::anim::biped;
use bevy_io3d::file::write_atomic;
use bevy_io3d::format::{AniVersion, Animation, Event, FileString, Key, Skeleton, Track};
use glam::{EulerRot, Quat, Vec3};

/// Frames a second of the exported keys, as 3ds Max exports them.
const FPS: f32 = 30.0;

/// A pose as bends of bones about their own axes, in degrees (x twists
/// along the bone; z swings legs and arms forward (-) and back (+), bends
/// knees back (+) and elbows forward (-), and leans the spine forward (+)),
/// plus the root's position.
#[derive(Clone, Default)]
struct Pose {
    bends: Vec<(&'static str, Vec3)>,
    root: Vec3,
}

impl Pose {
    fn new(root: Vec3) -> Self {
        Self { bends: Vec::new(), root }
    }

    fn bend(mut self, bone: &'static str, x: f32, y: f32, z: f32) -> Self {
        self.bends.push((bone, Vec3::new(x, y, z)));
        self
    }

    /// The bends of both sides: `left` for `Bip01 L <part>`, `right` for R.
    fn sides(self, part: &str, left: Vec3, right: Vec3) -> Self {
        let name = |side: &str| -> &'static str {
            biped::BONES
                .iter()
                .find(|(n, _)| *n == format!("Bip01 {side} {part}"))
                .map(|(n, _)| *n)
                .expect("a Biped part")
        };
        self.bend(name("L"), left.x, left.y, left.z).bend(name("R"), right.x, right.y, right.z)
    }

    fn bend_of(&self, bone: &str) -> Vec3 {
        self.bends.iter().filter(|(b, _)| *b == bone).map(|(_, v)| *v).sum()
    }

    /// A blend of two poses, `s` from 0 (`self`) to 1 (`other`).
    fn mix(&self, other: &Pose, s: f32) -> Pose {
        let mut bends: Vec<(&'static str, Vec3)> = Vec::new();
        for (bone, _) in biped::BONES {
            bends.push((bone, self.bend_of(bone).lerp(other.bend_of(bone), s)));
        }
        Pose { bends, root: self.root.lerp(other.root, s) }
    }
}

/// An animation sampled from `pose_at` every frame from 0 to `total_ms`,
/// one track per Biped bone, in the skeleton's order.
fn bake(skeleton: &Skeleton, total_ms: i32, pose_at: impl Fn(f32) -> Pose) -> Animation {
    let frames = (total_ms as f32 * FPS / 1000.0).round() as i32;
    let times: Vec<i32> = (0..=frames).map(|f| (f as f32 * 1000.0 / FPS).round() as i32).collect();
    let poses: Vec<Pose> = times.iter().map(|&t| pose_at(t as f32)).collect();
    let mut animation = Animation::new(AniVersion::V4000, total_ms);
    for bone in &skeleton.bones {
        let name = bone.name.to_text();
        let keys = times
            .iter()
            .zip(&poses)
            .map(|(&t, pose)| {
                let [x, y, z] = pose.bend_of(&name).to_array().map(f32::to_radians);
                let rotation = bone.rotation * Quat::from_euler(EulerRot::XYZ, x, y, z);
                let position = if name == "Bip01" { pose.root } else { bone.position };
                Key::new(t, position, rotation.normalize())
            })
            .collect();
        animation.tracks.push(Track { bone: bone.name.clone(), weight: 1.0, keys });
    }
    animation
}

/// A one-second walk cycle: the root moves 140 units forward (+Z) a cycle,
/// bobbing as the legs spread; arms swing against the legs.
fn walk(skeleton: &Skeleton) -> Animation {
    let mut walk = bake(skeleton, 1000, |t| {
        let phase = TAU * t / 1000.0;
        let (s, c) = phase.sin_cos();
        let swing = |c: f32| 55.0 * c.max(0.0).powi(2);
        let push = |s: f32| (-s).max(0.0);
        let thigh = |s: f32| -5.0 - 22.0 * s;
        let calf = |c: f32| 5.0 + swing(c);
        let foot = |s: f32, c: f32| -(thigh(s) + calf(c)) + 12.0 * push(s);
        Pose::new(Vec3::new(1.5 * c, 77.0 + 3.0 * (2.0 * phase).cos(), 140.0 * t / 1000.0))
            .bend("Bip01 Pelvis", 6.0 * s, 0.0, 0.0)
            .bend("Bip01 Spine", -3.0 * s, 0.0, 4.0)
            .bend("Bip01 Spine1", -4.0 * s, 0.0, 2.0)
            .bend("Bip01 Head", 5.0 * s, 0.0, -5.0)
            .sides("Thigh", Vec3::Z * thigh(s), Vec3::Z * thigh(-s))
            .sides("Calf", Vec3::Z * calf(c), Vec3::Z * calf(-c))
            .sides("Foot", Vec3::Z * foot(s, c), Vec3::Z * foot(-s, -c))
            .sides("Toe0", Vec3::Z * -15.0 * push(s), Vec3::Z * -15.0 * push(-s))
            .sides("UpperArm", Vec3::Z * 18.0 * s, Vec3::Z * -18.0 * s)
            .sides("Forearm", Vec3::Z * (-15.0 - 12.0 * push(s)), Vec3::Z * (-15.0 - 12.0 * push(-s)))
    });
    let step = |sub: &str, time_ms| Event { kind: "motion_sound".into(), sub_info: sub.into(), time_ms };
    walk.events = vec![step("sound/step_left.wav", 250.0), step("sound/step_right.wav", 750.0)];
    walk
}

/// A two-second idle: breathing, a slight sway, knees soft.
fn idle(skeleton: &Skeleton) -> Animation {
    bake(skeleton, 2000, |t| {
        let (s, c) = (TAU * t / 2000.0).sin_cos();
        Pose::new(Vec3::new(1.2 * s, 79.0 + 0.6 * c, 0.0))
            .bend("Bip01 Spine", 0.0, 0.0, 2.0 + 1.5 * s)
            .bend("Bip01 Spine1", 0.0, 0.0, 1.0 * s)
            .bend("Bip01 Head", 2.0 * s, 0.0, -2.0 - 1.5 * s)
            .sides("Thigh", Vec3::new(0.0, 0.0, -4.0), Vec3::new(0.0, 0.0, -2.0))
            .sides("Calf", Vec3::Z * (7.0 - 2.0 * c), Vec3::Z * (4.0 + 2.0 * c))
            .sides("Foot", Vec3::Z * (-3.0 + 2.0 * c), Vec3::Z * (-2.0 - 2.0 * c))
            .sides("UpperArm", Vec3::Z * 3.0 * s, Vec3::Z * 3.0 * s)
            .sides("Forearm", Vec3::Z * (-14.0 + 2.0 * c), Vec3::Z * (-14.0 + 2.0 * c))
    })
}

/// A 1.2-second right-handed punch, played once: guard, wind up, strike
/// with a step forward, hold, recover. The root ends 25 units forward.
fn attack(skeleton: &Skeleton) -> Animation {
    let guard = |root_z: f32| {
        Pose::new(Vec3::new(0.0, 75.0, root_z))
            .sides("Thigh", Vec3::Z * -18.0, Vec3::Z * -10.0)
            .sides("Calf", Vec3::Z * 28.0, Vec3::Z * 22.0)
            .sides("Foot", Vec3::Z * -10.0, Vec3::Z * -12.0)
            .sides("UpperArm", Vec3::Z * -35.0, Vec3::Z * -30.0)
            .sides("Forearm", Vec3::Z * -105.0, Vec3::Z * -110.0)
            .bend("Bip01 Spine", 0.0, 0.0, 6.0)
    };
    let windup = guard(-5.0)
        .bend("Bip01 Spine", 20.0, 0.0, 0.0)
        .bend("Bip01 Spine1", 10.0, 0.0, 0.0)
        .sides("UpperArm", Vec3::ZERO, Vec3::Z * 45.0)
        .sides("Forearm", Vec3::ZERO, Vec3::Z * -15.0);
    let strike = guard(25.0)
        .bend("Bip01 Spine", -12.0, 0.0, 4.0)
        .bend("Bip01 Spine1", -6.0, 0.0, 0.0)
        .bend("Bip01 Head", 20.0, 0.0, 0.0)
        .sides("Thigh", Vec3::Z * -20.0, Vec3::Z * 18.0)
        .sides("Calf", Vec3::Z * 5.0, Vec3::Z * -10.0)
        .sides("Foot", Vec3::Z * 8.0, Vec3::Z * -8.0)
        .sides("UpperArm", Vec3::Z * 10.0, Vec3::Z * -55.0)
        .sides("Forearm", Vec3::Z * 20.0, Vec3::Z * 105.0);
    let keys = [(0.0, guard(0.0)), (300.0, windup), (450.0, strike.clone()), (650.0, strike), (1200.0, guard(25.0))];
    let mut attack = bake(skeleton, 1200, |t| {
        let i = keys.iter().rposition(|(at, _)| *at <= t).unwrap_or(0).min(keys.len() - 2);
        let ((t0, a), (t1, b)) = (&keys[i], &keys[i + 1]);
        let s = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
        a.mix(b, s * s * (3.0 - 2.0 * s))
    });
    // "기합.wav" (a fighter's shout) in CP949, as the game's Korean paths are.
    let (shout, _, _) = encoding_rs::EUC_KR.encode("sound/기합.wav");
    attack.events = vec![
        Event { kind: "motion_sound".into(), sub_info: "sound/swing_01.wav".into(), time_ms: 300.0 },
        Event { kind: "attack_hit".into(), sub_info: "right_hand".into(), time_ms: 450.0 },
        Event { kind: "motion_sound".into(), sub_info: FileString::from(shout.as_ref()), time_ms: 250.0 },
    ];
    attack
}

const CONFIG: &str = "; The bundled Biped sample, made by examples/make_samples.rs.
#MODEL_CFG
#SKELETON
biped.skl
#ANIMATION_LIST
biped_walk_4002.ani
biped_idle_4002.ani
biped_attack_4002.ani
#ANIMATION_LIST_END
#MESH_LIST
#MESH_LIST_END
#MODEL_END
";

fn save(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    write_atomic(&path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    println!("wrote {} ({} bytes)", path.display(), bytes.len());
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/assets").to_owned());
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).expect("cannot create the output folder");
    let skeleton = biped::skeleton();
    save(dir, "biped.skl", &skeleton.to_bytes().expect("the Biped is writable"));
    for (name, animation) in [("walk", walk(&skeleton)), ("idle", idle(&skeleton)), ("attack", attack(&skeleton))] {
        for version in AniVersion::ALL {
            let mut converted = animation.clone();
            converted.convert(version).expect("sample rotations are unit quaternions");
            save(dir, &format!("biped_{name}_{version}.ani"), &converted.to_bytes().expect("samples are writable"));
        }
    }
    save(dir, "biped.txt", CONFIG.as_bytes());
    save_character(&dir.join("resource"), &skeleton);
    save_stage(&dir.join("resource"));
}

/// The sample character in the game's folders, under `root`.
fn save_character(root: &Path, skeleton: &Skeleton) {
    let folder = |name: &str| {
        let path = root.join(name);
        std::fs::create_dir_all(&path).expect("cannot create the resource folders");
        path
    };
    save(&folder("skeleton"), "biped.skl", &skeleton.to_bytes().expect("the Biped is writable"));
    for (name, mut animation) in [("walk", walk(skeleton)), ("idle", idle(skeleton)), ("attack", attack(skeleton))] {
        animation.convert(AniVersion::V4002).expect("sample rotations are unit quaternions");
        let bytes = animation.to_bytes().expect("samples are writable");
        save(&folder("animation"), &format!("biped_{name}_4002.ani"), &bytes);
    }
    for (name, mesh) in [("biped_body", character::body(skeleton)), ("biped_sword", character::sword(skeleton))] {
        save(&folder("mesh"), &format!("{name}.msh"), &mesh.to_bytes().expect("sample meshes are writable"));
        save(&folder("material"), &format!("{name}.txt"), character::material_script("biped.dds").as_bytes());
    }
    save(&folder("texture"), "biped.dds", &character::texture().to_bytes());
    let config = CONFIG.replace("#MESH_LIST\n", "#MESH_LIST\nbiped_body\nbiped_sword\n");
    save(&folder("model/animodel"), "biped.txt", config.as_bytes());
}

/// The sample static model in the game's folders, under `root`, painted
/// with the character's texture.
fn save_stage(root: &Path) {
    let mesh = stage::mesh();
    let folder = |name: &str| root.join(name);
    std::fs::create_dir_all(folder("model/staticmodel")).expect("cannot create the resource folders");
    save(&folder("mesh"), "stage.msh", &mesh.to_bytes().expect("the stage is writable"));
    save(&folder("mesh"), "stage.cms", &stage::collision().to_bytes().expect("the collision is writable"));
    save(&folder("material"), "stage.txt", stage::material_script("biped.dds").as_bytes());
    save(&folder("model/staticmodel"), "stage.txt", stage::config(&mesh).as_bytes());
}
