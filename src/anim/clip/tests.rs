use glam::{Quat, Vec3};
use proptest::prelude::*;

use super::timeline::first_later;
use super::*;
use crate::anim::{PoseBlend, sample_keys};
use crate::format::{AniVersion, Key, Track};

fn clip(times: &[i32]) -> Clip {
    let mut animation = Animation::new(AniVersion::V4000, 1000);
    let keys = times.iter().map(|&t| Key::new(t, Vec3::new(t as f32, 0.0, 0.0), Quat::IDENTITY)).collect();
    animation.tracks.push(Track { bone: FileString::encode_text("Bip01"), weight: 1.0, keys });
    Clip::new(&animation)
}

/// The client's search written out plainly: scan from 0 for the first
/// later key.
fn scan(times: &[f32], t: f32) -> usize {
    times.iter().position(|&x| x > t).unwrap_or(times.len())
}

#[test]
fn hints_give_the_first_later_key_from_anywhere() {
    let mut times: Vec<f32> = [0, 10, 10, 20, 35, 50, 50, 50, 90].map(|t| t as f32).to_vec();
    times.extend((0..40).map(|i| 100.0 + i as f32 * 10.0));
    for hint in 0..times.len() + 3 {
        for t in [-5.0, 0.0, 5.0, 10.0, 12.0, 20.0, 49.0, 50.0, 60.0, 90.0, 100.0, 255.0, 490.0, 600.0, f32::NAN] {
            assert_eq!(first_later(&times, t, hint, true), scan(&times, t), "hint {hint}, t {t}");
        }
    }
    assert_eq!(first_later(&[0.0, 100.0, 50.0], 60.0, 2, false), 1);
}

#[test]
fn sampling_holds_blends_and_keeps_its_hint() {
    let clip = clip(&[100, 200, 300]);
    let mut hints = Hints::default();
    let x = |t: f32, hints: &mut Hints| clip.sample(0, t, hints).unwrap().position.x;
    assert_eq!(x(0.0, &mut hints), 100.0);
    assert_eq!(x(150.0, &mut hints), 150.0);
    assert_eq!(hints, Hints(vec![Found { next: 1, factor: 0.5 }]));
    assert_eq!(x(250.0, &mut hints), 250.0);
    assert_eq!(hints.0[0].next, 2);
    assert_eq!(x(999.0, &mut hints), 300.0);
    assert_eq!(x(120.0, &mut hints), 120.0, "a seek back finds its key");
    assert_eq!(clip.key_bytes(), 3 * (4 + 28), "version 4000: a time and seven f32 a key");
    assert_eq!(Clip::new(&Animation::new(AniVersion::V4000, 0)).tracks.len(), 0);
    let mut animation = Animation::new(AniVersion::V4000, 1000);
    animation.tracks.push(Track { bone: FileString::encode_text("Bip01"), weight: 1.0, keys: vec![] });
    assert_eq!(Clip::new(&animation).sample_at(0, 5.0), None);
}

/// A clip of `tracks` tracks keyed every 33 ms, `keys` keys each, as
/// `version` stores it.
fn made(version: AniVersion, tracks: usize, keys: usize) -> (Animation, Vec<u8>) {
    let mut animation = Animation::new(version, (keys * 33) as i32);
    for t in 0..tracks {
        let key = |k: usize| {
            let a = (t * 7 + k) as f32 * 0.01;
            Key::new(
                (k * 33) as i32,
                Vec3::new(a, 2.0 * a, -a),
                Quat::from_euler(glam::EulerRot::YXZ, a, 0.5 - a, 2.0 * a),
            )
        };
        let bone = FileString::encode_text(&format!("Bip01 Bone{t}"));
        animation.tracks.push(Track { bone, weight: 1.0, keys: (0..keys).map(key).collect() });
    }
    let bytes = animation.to_bytes().unwrap();
    (Animation::from_bytes(&bytes).unwrap(), bytes)
}

#[test]
fn a_file_of_words_plays_in_less_memory_than_it_takes_on_disk() {
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut files = 0;
    for entry in std::fs::read_dir(assets).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ani") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let animation = Animation::from_bytes(&bytes).unwrap();
        if animation.version != AniVersion::V4000 {
            let clip = Clip::new(&animation);
            assert!(clip.memory_size() <= bytes.len(), "{}: {} bytes", path.display(), clip.memory_size());
            files += 1;
        }
    }
    assert!(files >= 6, "the bundled 4001 and 4002 clips");
    assert_eq!(size_of::<ClipTrack>(), 48);
    let (animation, bytes) = made(AniVersion::V4002, 52, 2000);
    let clip = Clip::new(&animation);
    assert_eq!(clip.key_bytes(), 2000 * 4 + 52 * 2000 * 20, "one time a key for all tracks, 20 bytes a key");
    assert!(clip.memory_size() <= bytes.len(), "{} bytes for a file of {}", clip.memory_size(), bytes.len());
}

#[test]
fn an_edited_key_keeps_only_its_timeline_in_floats() {
    let (mut animation, _) = made(AniVersion::V4001, 3, 4);
    animation.tracks[2].keys.pop();
    let words = Clip::new(&animation).key_bytes();
    assert_eq!(words, 4 * 4 + 2 * 4 * 16 + 3 * 4 + 3 * 16);
    animation.tracks[2].keys[1].rotation = Quat::from_rotation_x(0.25);
    assert_eq!(Clip::new(&animation).key_bytes(), words + 3 * 12, "only the edited track's timeline as f32");
}

fn bits(pose: BonePose) -> [u32; 7] {
    let [x, y, z] = pose.position.to_array();
    let [i, j, k, w] = pose.rotation.to_array();
    [x, y, z, i, j, k, w].map(f32::to_bits)
}

fn poses_bits(blend: &PoseBlend) -> Vec<[u32; 7]> {
    blend.poses().map(bits).collect()
}

/// Key times: any (out of order, repeated), or in order with repeats.
fn any_times() -> impl Strategy<Value = Vec<i32>> {
    let steps = prop::collection::vec(0i32..60, 0..10);
    prop_oneof![
        prop::collection::vec(-50i32..400, 0..6),
        steps.prop_map(|steps| steps.iter().scan(-20, |t, s| Some(std::mem::replace(t, *t + s))).collect()),
    ]
}

fn any_rotation() -> impl Strategy<Value = Quat> {
    prop::array::uniform4(-1.0f32..1.0).prop_map(|q| {
        let q = Quat::from_array(q);
        if q.length() > 1e-3 { q.normalize() } else { Quat::IDENTITY }
    })
}

/// A track: on one of the shared timelines (`Ok`) or on times of its own,
/// a bone name among three, a weight and values for up to 12 keys.
type MadeTrack = (Result<usize, Vec<i32>>, u8, f32, Vec<(Vec3, Quat)>);

fn any_track() -> impl Strategy<Value = MadeTrack> {
    let on = prop_oneof![3 => (0usize..3).prop_map(Ok), 1 => any_times().prop_map(Err)];
    let value = (prop::array::uniform3(-100.0f32..100.0).prop_map(Vec3::from_array), any_rotation());
    (on, 0u8..3, prop_oneof![-1.0f32..2.0, Just(0.0), Just(1.0)], prop::collection::vec(value, 12))
}

/// How the clip is made: read from a file of a version, or in code (no
/// words).
fn any_making() -> impl Strategy<Value = Option<AniVersion>> {
    prop_oneof![Just(None), prop::sample::select(AniVersion::ALL.to_vec()).prop_map(Some)]
}

fn any_time() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => (-100i32..500).prop_map(|t| t as f32),
        4 => -100.0f32..500.0,
        1 => prop::sample::select(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0]),
    ]
}

fn animation(
    shared: &[Vec<i32>],
    tracks: &[MadeTrack],
    making: Option<AniVersion>,
    edit: Option<(usize, usize, Quat)>,
) -> Animation {
    let mut animation = Animation::new(making.unwrap_or(AniVersion::V4002), 400);
    for (on, name, weight, values) in tracks {
        let times = on.as_ref().map_or_else(|own| own, |&i| &shared[i]);
        let keys =
            times.iter().zip(values).map(|(&t, &(position, rotation))| Key::new(t, position, rotation)).collect();
        let bone = FileString::encode_text(["a", "b", "c"][*name as usize]);
        animation.tracks.push(Track { bone, weight: *weight, keys });
    }
    if making.is_some() {
        animation = Animation::from_bytes(&animation.to_bytes().unwrap()).unwrap();
    }
    if let Some((track, key, rotation)) = edit
        && !animation.tracks.is_empty()
    {
        let count = animation.tracks.len();
        let keys = &mut animation.tracks[track % count].keys;
        if !keys.is_empty() {
            let len = keys.len();
            keys[key % len].rotation = rotation;
        }
    }
    animation
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Every way of sampling a clip gives, to the bit, what the plain rule
    /// gives on the file's keys: on words or floats, shared timelines or
    /// own, keys in order or not, forward, backward and anywhere, hints
    /// kept.
    #[test]
    fn sampling_is_the_plain_rule_to_the_bit(
        shared in prop::collection::vec(any_times(), 3),
        tracks in prop::collection::vec(any_track(), 0..8),
        making in any_making(),
        edit in prop::option::of((0usize..8, 0usize..12, any_rotation())),
        bones in prop::collection::vec(prop::option::of(0usize..3), 8),
        weight in prop_oneof![0.0f32..2.0, Just(1.0), Just(-1.0)],
        times in prop::collection::vec(any_time(), 1..12),
    ) {
        let file = animation(&shared, &tracks, making, edit);
        let clip = Clip::new(&file);
        let mut forward = times.clone();
        forward.sort_by(f32::total_cmp);
        let order = forward.iter().chain(forward.iter().rev()).chain(&times);
        let track_bones = &bones[..file.tracks.len()];
        let rest = [BonePose::IDENTITY; 3];
        let (mut one, mut all, mut added, mut named) = (Hints::default(), Hints::default(), Hints::default(), Hints::default());
        for &t in order {
            let plain: Vec<Option<BonePose>> = file.tracks.iter().map(|track| sample_keys(&track.keys, t)).collect();
            for (index, want) in plain.iter().enumerate() {
                prop_assert_eq!(clip.sample(index, t, &mut one).map(bits), want.map(bits), "track {} at {}", index, t);
                prop_assert_eq!(clip.sample_at(index, t).map(bits), want.map(bits));
            }
            let mut sampled = Vec::new();
            clip.sample_tracks(t, &mut all, &mut Vec::new(), |index, pose| sampled.push((index, bits(pose))));
            let want: Vec<(usize, [u32; 7])> =
                plain.iter().enumerate().filter_map(|(index, pose)| Some((index, bits((*pose)?)))).collect();
            prop_assert_eq!(sampled, want, "at {}", t);

            let (mut blend, mut reference) = (PoseBlend::default(), PoseBlend::default());
            blend.reset(&rest);
            blend.add_clip(&clip, track_bones, t, weight, &mut added);
            blend.lock();
            reference.reset(&rest);
            for (index, (bone, pose)) in track_bones.iter().zip(&plain).enumerate() {
                if let (Some(bone), Some(pose)) = (bone, pose) {
                    reference.add(*bone, file.tracks[index].weight * weight, *pose);
                }
            }
            reference.lock();
            prop_assert_eq!(poses_bits(&blend), poses_bits(&reference), "add_clip at {}", t);

            for name in [b"a", b"b", b"c"] {
                let mut reference = PoseBlend::default();
                reference.reset(&[BonePose::IDENTITY]);
                for (track, pose) in file.tracks.iter().zip(&plain) {
                    if let Some(pose) = pose.filter(|_| track.bone.is_named(name)) {
                        reference.add(0, track.weight, pose);
                    }
                }
                reference.lock();
                let want = reference.is_posed(0).then(|| bits(reference.pose(0).unwrap()));
                prop_assert_eq!(clip.bone_pose(name, t, &mut named).map(bits), want, "bone {:?} at {}", name, t);
            }
        }
    }
}
