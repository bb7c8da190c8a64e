//! The format library against the bundled files and generated ones:
//! byte-exact round trips, conversion precision, and damaged input.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

mod common;
mod one_rule;

use bevy_io3d::anim::skin::skin_on;
use bevy_io3d::anim::{BonePose, Clip, Rig};
use bevy_io3d::check::{check_ani, check_cms, check_material, check_msh, check_skl};
use bevy_io3d::format::rotation::{decode_eight_bytes, decode_small_three};
use bevy_io3d::format::{AniVersion, Animation, Event, FileString, Key, ModelConfig, PackedRotation, Skeleton, Track};
use bevy_io3d::format::{Collision, MaterialScript, Mesh};
use bevy_io3d::json::{Document, from_json, to_json};
use glam::{Quat, Vec3};
use proptest::prelude::*;

fn asset(name: &str) -> Vec<u8> {
    let path = format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn ani_assets() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for clip in ["walk", "idle", "attack"] {
        for version in AniVersion::ALL {
            let name = format!("biped_{clip}_{version}.ani");
            out.push((name.clone(), asset(&name)));
        }
    }
    out
}

#[test]
fn bundled_files_round_trip_byte_for_byte() {
    for (name, bytes) in ani_assets() {
        let animation = Animation::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(animation.to_bytes().unwrap(), bytes, "{name}");
        let built = from_json(&to_json(&Document::Ani(animation))).unwrap();
        assert_eq!(built.to_bytes().unwrap(), bytes, "{name} through JSON");
        assert_eq!(check_ani(&bytes, None), [], "{name} is clean");
    }
    let bytes = asset("biped.skl");
    let skeleton = Skeleton::from_bytes(&bytes).unwrap();
    assert_eq!(skeleton.to_bytes().unwrap(), bytes);
    assert_eq!(from_json(&to_json(&Document::Skl(skeleton))).unwrap().to_bytes().unwrap(), bytes);
    let config = ModelConfig::parse(&asset("biped.txt")).unwrap();
    assert_eq!(config.skeleton.as_deref(), Some("biped.skl"));
    assert_eq!(config.animations.len(), 3);
}

#[test]
fn bundled_samples_are_what_the_issue_asks_for() {
    let skeleton = Skeleton::from_bytes(&asset("biped.skl")).unwrap();
    let rig = bevy_io3d::anim::Rig::new(&skeleton).unwrap();
    let walk = Animation::from_bytes(&asset("biped_walk_4000.ani")).unwrap();
    assert_eq!(check_ani(&asset("biped_walk_4000.ani"), Some(&skeleton)), []);
    let clip = Clip::new(&walk);
    let root = |t: f32| rig.world_pose(&clip, t)[0].position;
    assert!((70.0..90.0).contains(&root(0.0).y), "Bip01 about 80 units up");
    assert!(root(1000.0).z - root(0.0).z > 100.0, "the walk moves forward along +Z");
    let thigh = skeleton.bone_index(b"Bip01 L Thigh").unwrap();
    assert_eq!(skeleton.bones[thigh].parent, "Bip01 Spine");
    let attack = Animation::from_bytes(&asset("biped_attack_4002.ani")).unwrap();
    assert_eq!(attack.events.len(), 3);
    let times: Vec<f32> = attack.events_by_time().iter().map(|e| e.time_ms).collect();
    assert_eq!(times, [250.0, 300.0, 450.0]);
    assert_eq!(attack.events[2].sub_info.to_text(), "sound/기합.wav");
}

/// The angle between two rotations, computed in `f64` as
/// `4 atan2(|a - b|, |a + b|)` (the rotation angle is twice the angle
/// between the quaternions), which stays precise for tiny angles where
/// `acos` of an `f32` dot product does not.
fn angle_degrees(a: Quat, b: Quat) -> f32 {
    let [a, b] = [a, b].map(|q| q.as_dquat().normalize());
    let b = if a.dot(b) < 0.0 { -b } else { b };
    (4.0 * (a - b).length().atan2((a + b).length())).to_degrees() as f32
}

/// The largest rotation change, over all keys, from converting `a` to
/// `version` and back to 4000; positions and times must not change at all.
fn conversion_error(a: &Animation, version: AniVersion) -> f32 {
    let mut converted = a.clone();
    converted.convert(version).unwrap();
    let mut back = Animation::from_bytes(&converted.to_bytes().unwrap()).unwrap();
    back.convert(AniVersion::V4000).unwrap();
    let mut worst = 0.0f32;
    for (t0, t1) in a.tracks.iter().zip(&back.tracks) {
        for (k0, k1) in t0.keys.iter().zip(&t1.keys) {
            assert_eq!((k0.time_ms, k0.position), (k1.time_ms, k1.position));
            worst = worst.max(angle_degrees(k0.rotation, k1.rotation));
        }
    }
    worst
}

fn random_rotations(n: usize) -> Animation {
    let mut a = Animation::new(AniVersion::V4000, n as i32);
    let mut x: u32 = 7;
    let mut next = || {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (x >> 8) as f32 / (1 << 24) as f32 * 2.0 - 1.0
    };
    let keys = (0..n)
        .map(|i| {
            let q = Quat::from_xyzw(next(), next(), next(), next()).normalize();
            Key::new(i as i32, Vec3::new(next(), next(), next()) * 100.0, q)
        })
        .collect();
    a.tracks.push(Track { bone: "Bip01".into(), weight: 1.0, keys });
    a
}

#[test]
fn conversion_keeps_rotations_within_the_versions_precision() {
    // The client's encoder truncates rather than rounds, so a 4001 key can
    // be off by up to about 0.67 degrees for the worst rotations (measured
    // over many random ones); the bundled motions stay under 0.6.
    let walk = Animation::from_bytes(&asset("biped_walk_4000.ani")).unwrap();
    let random = random_rotations(20_000);
    for (a, small_three_bound) in [(&walk, 0.6), (&random, 0.7)] {
        let small_three = conversion_error(a, AniVersion::V4001);
        let eight_bytes = conversion_error(a, AniVersion::V4002);
        eprintln!("worst rotation change: 4001 {small_three} degrees, 4002 {eight_bytes} degrees");
        assert!(small_three < small_three_bound, "4000 -> 4001 -> 4000 moved a rotation by {small_three} degrees");
        assert!(eight_bytes < 0.06, "4000 -> 4002 -> 4000 moved a rotation by {eight_bytes} degrees");
    }
}

/// Every prefix of a valid file, and every single-bit flip of it, reads as
/// an error or as a value that writes back exactly the bytes read.
fn damage_walk(bytes: &[u8], read_and_write: impl Fn(&[u8]) -> Option<Vec<u8>>) {
    for len in 0..bytes.len() {
        if let Some(written) = read_and_write(&bytes[..len]) {
            assert_eq!(written, &bytes[..len], "prefix of {len} bytes");
        }
    }
    let mut flipped = bytes.to_vec();
    for i in 0..bytes.len() {
        // Every bit in the first 64 bytes (magic, version, counts), one a byte after.
        let bits = if i < 64 { 0..8 } else { (i % 8)..(i % 8 + 1) };
        for bit in bits {
            flipped[i] ^= 1 << bit;
            if let Some(written) = read_and_write(&flipped) {
                assert_eq!(written, flipped, "bit {bit} of byte {i} flipped");
            }
            flipped[i] ^= 1 << bit;
        }
    }
}

#[test]
fn damaged_files_never_panic_and_accepted_ones_round_trip() {
    let ani = |b: &[u8]| {
        let _ = check_ani(b, None);
        Animation::from_bytes(b).ok().map(|a| a.to_bytes().expect("a value read is writable"))
    };
    for name in ["biped_attack_4000.ani", "biped_attack_4001.ani", "biped_attack_4002.ani"] {
        damage_walk(&asset(name), ani);
    }
    damage_walk(&asset("biped.skl"), |b| {
        let _ = check_skl(b);
        Skeleton::from_bytes(b).ok().map(|s| s.to_bytes().expect("a value read is writable"))
    });
    damage_walk(&asset("biped.txt"), |b| {
        let _ = ModelConfig::parse(b);
        None
    });
}

#[test]
fn damaged_meshes_and_scripts_never_panic_and_accepted_ones_round_trip() {
    let skeleton = common::biped();
    for mesh in [common::arm(&skeleton), common::sword(&skeleton)] {
        damage_walk(&mesh.to_bytes().unwrap(), |b| {
            let _ = check_msh(b, Some(&skeleton));
            Mesh::from_bytes(b).ok().map(|m| m.to_bytes().expect("a value read is writable"))
        });
    }
    let collision =
        Collision { positions: common::arm(&skeleton).positions, indices: vec![0, 1, 2, 2, 3, 0], trailing: vec![] };
    damage_walk(&collision.to_bytes().unwrap(), |b| {
        let _ = check_cms(b);
        Collision::from_bytes(b).ok().map(|c| c.to_bytes().expect("a value read is writable"))
    });
    damage_walk(common::material_script("body.dds").as_bytes(), |b| {
        let _ = check_material(b);
        MaterialScript::parse(b).ok().map(|m| m.to_bytes())
    });
}

/// `v` times the rotation matrix Direct3D builds from `q`
/// (`D3DXMatrixRotationQuaternion`, row vectors), written out as the client
/// uses it, without assuming `q` is of unit length.
fn rotate_row(q: Quat, v: Vec3) -> Vec3 {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let rows = [
        Vec3::new(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w)),
        Vec3::new(2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w)),
        Vec3::new(2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y)),
    ];
    rows[0] * v.x + rows[1] * v.y + rows[2] * v.z
}

/// The client's skinning written out in the test, apart from the code under
/// test: for each leading positive weight, the bind position through the
/// bone's stored inverse bind, then through its world pose (each a
/// rotation matrix and a translation row), weighted and summed.
fn client_skinned(skeleton: &Skeleton, mesh: &Mesh, world: &[BonePose]) -> Vec<Vec3> {
    let weights = mesh.weights.as_ref().unwrap();
    let names: Vec<&FileString> = weights.names.iter().filter(|n| n.length_field() > 0).collect();
    let bone_of = |entry: f32| {
        let name = names[entry as usize].c_str();
        skeleton.bones.iter().position(|b| b.name.c_str() == name).unwrap_or(0)
    };
    (0..mesh.vertex_count)
        .map(|v| {
            let mut sum = Vec3::ZERO;
            for k in 0..4 {
                let w = weights.weights[v][k];
                if w <= 0.0 {
                    break;
                }
                let bone = bone_of(weights.bones[v][k]);
                let b = &skeleton.bones[bone];
                let in_bone = rotate_row(b.inverse_bind_rotation, mesh.positions[v]) + b.inverse_bind_position;
                sum += (rotate_row(world[bone].rotation, in_bone) + world[bone].position) * w;
            }
            sum
        })
        .collect()
}

#[test]
fn skinned_vertices_follow_the_clients_formula() {
    let skeleton = common::biped();
    let rig = Rig::new(&skeleton).unwrap();
    let walk = Clip::new(&Animation::from_bytes(&asset("biped_walk_4002.ani")).unwrap());
    for mesh in [common::arm(&skeleton), common::sword(&skeleton)] {
        // At rest the bind positions come back.
        let rest = skin_on(&mesh, &rig, &rig.to_world(&rig.rest));
        for (got, bind) in rest.positions.iter().zip(&mesh.positions) {
            assert!(got.abs_diff_eq(*bind, 1e-3), "{got} vs {bind}");
        }
        for t in [0.0, 250.0, 625.0] {
            let world = rig.world_pose(&walk, t);
            let skinned = skin_on(&mesh, &rig, &world);
            let expected = client_skinned(&skeleton, &mesh, &world);
            let moved = skinned.positions.iter().zip(&mesh.positions).any(|(p, bind)| p.distance(*bind) > 1.0);
            assert!(moved, "the walk moves the mesh at {t} ms");
            for (v, (got, want)) in skinned.positions.iter().zip(&expected).enumerate() {
                assert!(got.distance(*want) <= 1e-5 * want.length().max(1.0), "vertex {v} at {t} ms: {got} vs {want}");
            }
            assert!(skinned.normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-4));
        }
    }
}

/// Counts, per thread, the bytes allocated and not yet freed, and their
/// peak, so a test can see what a read reserves. Per thread, since the
/// tests of this binary run side by side.
struct CountingAllocator;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count_allocation(change: isize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + change);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

// SAFETY: every call is passed on to the system allocator unchanged; the
// counting only touches const-initialised thread locals, which never
// allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            count_allocation(layout.size() as isize);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(block, layout) };
        count_allocation(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            count_allocation(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The most bytes this thread held at once while running `f`, beyond what
/// it held before.
fn peak_allocation(f: impl FnOnce()) -> usize {
    let before = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    f();
    (PEAK.with(Cell::get) - before).max(0) as usize
}

/// Reading and linting `bytes` (as an `.ani` or `.skl`) and dropping the
/// result and any error, at its peak.
fn read_peak(bytes: &[u8]) -> usize {
    peak_allocation(|| {
        if bytes.starts_with(b"SKL\0") {
            drop(Skeleton::from_bytes(bytes));
            drop(check_skl(bytes));
        } else if bytes.starts_with(b"MSH\0") {
            drop(Mesh::from_bytes(bytes));
            drop(check_msh(bytes, None));
        } else if bytes.starts_with(b"CMS\0") {
            drop(Collision::from_bytes(bytes));
            drop(check_cms(bytes));
        } else {
            drop(Animation::from_bytes(bytes));
            drop(check_ani(bytes, None));
        }
    })
}

#[test]
fn a_tiny_file_claiming_two_billion_keys_is_refused_without_allocating_them() {
    let mut bytes = b"ANI\0".to_vec();
    for v in [4001i32, 0, 1000, 1, 5] {
        bytes.extend(v.to_le_bytes());
    }
    bytes.extend(b"Bip01");
    bytes.extend(1.0f32.to_le_bytes());
    bytes.extend(2_000_000_000i32.to_le_bytes());
    let err = Animation::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "track 0 'Bip01', key 0: rotation needs 4 bytes at byte 37, but the file ends at byte 37"
    );
    assert!(read_peak(&bytes) < 4096, "{} bytes reserved for a 37-byte file", read_peak(&bytes));
}

#[test]
fn reading_reserves_at_most_a_small_multiple_of_the_file() {
    let huge = 2_000_000_000i32;
    let header = |magic: &[u8], fields: &[i32]| {
        let mut bytes = magic.to_vec();
        fields.iter().for_each(|v| bytes.extend(v.to_le_bytes()));
        bytes
    };
    let claims = [
        ("two billion events", header(b"ANI\0", &[4000, huge])),
        ("two billion tracks", header(b"ANI\0", &[4002, 0, 1000, huge])),
        ("a two-billion-byte bone name", header(b"ANI\0", &[4000, 0, 1000, 1, huge])),
        ("two billion bones", header(b"SKL\0", &[1000, huge])),
        ("two billion submeshes", header(b"MSH\0", &[2002, 1, 1, 0, 0, 0, 0, 0, 0, 0, huge])),
        ("two billion vertices", header(b"MSH\0", &[2002, 1, 1 | 8, 0, 0, 0, 0, 0, 0, 0, 0, huge])),
        ("two billion mesh bone names", header(b"MSH\0", &[2002, 1, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1, huge])),
        ("two billion faces", header(b"MSH\0", &[2000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, huge])),
        ("two billion control points", header(b"MSH\0", &[2002, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, huge])),
        ("two billion collision vertices", header(b"CMS\0", &[5000, huge])),
    ];
    for (what, bytes) in &claims {
        let peak = read_peak(bytes);
        assert!(peak < 4096, "{what}: {peak} bytes reserved for {} bytes", bytes.len());
    }
    // Whole files: reading or linting peaks at 1.6 to 2.6 times the file
    // (a 4001 key grows from 20 bytes to 48 in memory).
    let mut files = ani_assets();
    files.push(("biped.skl".to_owned(), asset("biped.skl")));
    for (name, bytes) in files {
        let peak = read_peak(&bytes);
        let ratio = peak as f64 / bytes.len() as f64;
        // At least the file: the value read holds every key (this also
        // shows the counting works).
        assert!((1.0..=3.0).contains(&ratio), "{name}: {peak} bytes reserved for {} bytes", bytes.len());
    }
}

fn file_string() -> impl Strategy<Value = FileString> {
    prop_oneof![
        4 => "[ -~]{0,24}".prop_map(|s| FileString::from(s.as_str())),
        2 => prop::collection::vec(any::<u8>(), 1..24).prop_map(FileString::from),
        1 => (i32::MIN..=0).prop_map(FileString::empty_with_length),
    ]
}

fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![3 => -1000.0f32..1000.0, 1 => any::<u32>().prop_map(f32::from_bits)]
}

fn key(version: AniVersion) -> impl Strategy<Value = Key> {
    let rotation = match version {
        AniVersion::V4000 => prop::array::uniform4(any_f32()).prop_map(|q| (Quat::from_array(q), None)).boxed(),
        AniVersion::V4001 => {
            any::<u32>().prop_map(|w| (decode_small_three(w).rotation, Some(PackedRotation::SmallThree(w)))).boxed()
        }
        AniVersion::V4002 => {
            any::<[u32; 2]>().prop_map(|w| (decode_eight_bytes(w), Some(PackedRotation::EightBytes(w)))).boxed()
        }
    };
    (any::<i32>(), prop::array::uniform3(any_f32()), rotation).prop_map(|(time_ms, p, (rotation, packed))| Key {
        time_ms,
        position: Vec3::from_array(p),
        rotation,
        packed,
    })
}

fn animation() -> impl Strategy<Value = Animation> {
    prop::sample::select(AniVersion::ALL.to_vec()).prop_flat_map(|version| {
        let event = (file_string(), file_string(), any_f32()).prop_map(|(kind, sub_info, time_ms)| Event {
            kind,
            sub_info,
            time_ms,
        });
        let track = (file_string(), any_f32(), prop::collection::vec(key(version), 0..6))
            .prop_map(|(bone, weight, keys)| Track { bone, weight, keys });
        (
            prop::collection::vec(event, 0..4),
            any::<i32>(),
            prop::collection::vec(track, 0..5),
            prop::collection::vec(any::<u8>(), 0..6),
        )
            .prop_map(move |(events, total_ms, tracks, trailing)| Animation {
                version,
                events,
                total_ms,
                tracks,
                trailing,
            })
    })
}

proptest! {
    #[test]
    fn any_animation_round_trips_through_bytes_and_json(animation in animation()) {
        let bytes = animation.to_bytes().unwrap();
        let read = Animation::from_bytes(&bytes).unwrap();
        prop_assert_eq!(&read.to_bytes().unwrap(), &bytes);
        let built = from_json(&to_json(&Document::Ani(read))).unwrap();
        prop_assert_eq!(built.to_bytes().unwrap(), bytes);
    }

    #[test]
    fn any_skeleton_round_trips_through_bytes_and_json(
        bones in prop::collection::vec((file_string(), prop::array::uniform32(any_f32()), file_string(), prop::collection::vec(file_string(), 0..3)), 0..4),
        linked in file_string(),
        trailing in prop::collection::vec(any::<u8>(), 0..6),
    ) {
        let bones = bones.into_iter().map(|(name, f, parent, children)| bevy_io3d::format::Bone {
            name,
            position: Vec3::new(f[0], f[1], f[2]),
            rotation: Quat::from_xyzw(f[3], f[4], f[5], f[6]),
            inverse_bind_position: Vec3::new(f[7], f[8], f[9]),
            inverse_bind_rotation: Quat::from_xyzw(f[10], f[11], f[12], f[13]),
            object_tm: std::array::from_fn(|i| f[16 + i]),
            parent,
            children,
        }).collect();
        let skeleton = Skeleton { bones, linked_skeleton: linked, trailing };
        let bytes = skeleton.to_bytes().unwrap();
        prop_assert_eq!(&Skeleton::from_bytes(&bytes).unwrap().to_bytes().unwrap(), &bytes);
        prop_assert_eq!(from_json(&to_json(&Document::Skl(skeleton))).unwrap().to_bytes().unwrap(), bytes);
    }
}

fn unit_quat() -> impl Strategy<Value = Quat> {
    prop::array::uniform4(-1.0f32..1.0).prop_filter_map("a direction", |q| {
        let q = Quat::from_array(q);
        (q.length() > 0.1).then(|| q.normalize())
    })
}

fn sorted_keys() -> impl Strategy<Value = Vec<Key>> {
    prop::collection::vec((1i32..100, prop::array::uniform3(-100.0f32..100.0), unit_quat()), 2..8).prop_map(|raw| {
        let mut time = 0;
        raw.into_iter()
            .map(|(gap, p, q)| {
                time += gap;
                Key::new(time, Vec3::from_array(p), q)
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn sampling_hits_every_key_and_is_continuous_between_them(keys in sorted_keys()) {
        use bevy_io3d::anim::sample_keys;
        for (i, key) in keys.iter().enumerate() {
            let at = sample_keys(&keys, key.time_ms as f32).unwrap();
            prop_assert_eq!(at.position, key.position, "key {} is hit exactly", i);
            prop_assert!(angle_degrees(at.rotation, key.rotation) < 1e-3);
            if let Some(next) = keys.get(i + 1) {
                // Just before the next key, the pose is almost the next key's.
                let before = sample_keys(&keys, next.time_ms as f32 - 1e-3).unwrap();
                let span = (next.position - key.position).length();
                prop_assert!(before.position.distance(next.position) <= span * 2e-3 + 1e-3);
                prop_assert!(angle_degrees(before.rotation, next.rotation) < 0.2);
            }
        }
    }

    #[test]
    fn looping_never_leaves_the_clip(t in -1e7f32..1e7, total in 1i32..100_000, delta in -1e6f64..1e6) {
        use bevy_io3d::anim::RepeatMode;
        let shown = RepeatMode::Loop.animation_time(t, total);
        prop_assert!((0.0..=total as f32).contains(&shown), "{} ms shows {}", t, shown);
        let step = RepeatMode::Loop.step(f64::from(shown), delta, total);
        prop_assert!((0.0..=f64::from(total)).contains(&step.to_ms), "{:?}", step);
        let once = RepeatMode::Once.step(f64::from(shown), delta, total);
        prop_assert!((0.0..=f64::from(total)).contains(&once.to_ms));
    }
}
