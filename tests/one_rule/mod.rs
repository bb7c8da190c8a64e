//! Each of the client's rules lives in one place: these tests pit the
//! places that once held copies of a rule against each other, and push
//! names of every kind (random bytes, CP949, empty, 300 bytes) through the
//! edits.

use bevy_io3d::anim::biped;
use bevy_io3d::anim::mixer::{Action, Loop, Mixer};
use bevy_io3d::anim::retarget::{rename, retarget, suggest_map};
use bevy_io3d::anim::side::{Side, partner, side_of};
use bevy_io3d::anim::{Clip, MeshBinding, RepeatMode, RestPoses, Rig, guess_skeleton, join, mirror, resample, trim};
use bevy_io3d::check::check_ani;
use bevy_io3d::format::{AniVersion, Animation, Event, FileString, Key, Skeleton, Track};
use bevy_io3d::gltf::{ExportOptions, export};
use glam::{Quat, Vec3};
use proptest::prelude::*;

use crate::common;

/// A clip `total_ms` long with `motion_sound` events at `times`.
fn clip_with_events(total_ms: i32, times: &[i32]) -> Clip {
    let mut animation = Animation::new(AniVersion::V4002, total_ms);
    let key = Key::new(0, Vec3::ZERO, Quat::IDENTITY);
    animation.tracks.push(Track { bone: "Bip01".into(), weight: 1.0, keys: vec![key] });
    for &t in times {
        let kind = FileString::from("motion_sound");
        animation.events.push(Event { kind, sub_info: FileString::default(), time_ms: t as f32 });
    }
    Clip::new(&animation)
}

/// A frame's length: a number of ms, or as far as the clip's end.
#[derive(Debug, Clone, Copy)]
enum Frame {
    Ms(i32),
    ToEnd,
}

fn frames(longest: i32) -> impl Strategy<Value = Vec<Frame>> {
    let frame = prop_oneof![4 => (0..=longest).prop_map(Frame::Ms), 1 => Just(Frame::ToEnd)];
    prop::collection::vec(frame, 1..40)
}

/// Plays `clip` in a mixer frame by frame and asks, for each frame, the
/// one event window through a [`bevy_io3d::anim::Step`] from the same
/// time: both must fire the same events in the same order. A held action
/// is compared until it reaches its end, and then fires its end event at
/// most once.
fn compare_with_mixer(clip: &Clip, looping: bool, hold: bool, frames: &[Frame]) -> Result<(), TestCaseError> {
    let clips = [clip.clone()];
    let mut mixer: Mixer<usize> = Mixer::new();
    let id = if looping {
        mixer.play_loop(0, Loop::default())
    } else {
        mixer.play_action(0, Action { hold_last_frame: hold, ..Action::default() })
    };
    let times: Vec<f32> = clip.events.iter().map(|e| e.time_ms).collect();
    let total = clip.total_ms;
    let mode = if looping { RepeatMode::Loop } else { RepeatMode::Once };
    let mut end_fired = 0;
    for frame in frames {
        let Some(instance) = mixer.instance(id) else { break };
        let from = instance.time_ms();
        let dt = match *frame {
            Frame::Ms(ms) => ms as f32,
            Frame::ToEnd => (total as f32 - from).max(0.0),
        };
        let mut fired = Vec::new();
        mixer.advance(dt, |c| clips.get(c), &mut fired);
        let by_mixer: Vec<usize> = fired.iter().map(|f| f.event).collect();
        if !looping && from >= total as f32 {
            end_fired += by_mixer.len();
            prop_assert!(end_fired <= times.iter().filter(|t| **t == total as f32).count(), "held: {:?}", fired);
            continue;
        }
        let step = mode.step(f64::from(from), f64::from(dt), total);
        let by_window: Vec<usize> = step.events_passed(&times).iter().map(|(i, _)| clip.events[*i].index).collect();
        prop_assert_eq!(&by_mixer, &by_window, "from {} ms by {} ms ({:?})", from, dt, step.window());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_event_window_fires_what_the_mixer_fires(
        total in 1i32..3000,
        picks in prop::collection::vec(0.0f64..=1.0, 0..6),
        ends in prop::collection::vec(any::<bool>(), 2),
        looping in any::<bool>(),
        hold in any::<bool>(),
        seed_frames in frames(3000),
    ) {
        let mut times: Vec<i32> = picks.iter().map(|p| (p * f64::from(total)).round() as i32).collect();
        // Events at the very start and end, where the windows' edges lie.
        if ends[0] { times.push(0) }
        if ends[1] { times.push(total) }
        let clip = clip_with_events(total, &times);
        // The client wraps a loop once a frame: its frames are shorter
        // than the loop.
        let frames: Vec<Frame> = seed_frames
            .into_iter()
            .map(|f| match f {
                Frame::Ms(ms) if looping => Frame::Ms(ms % total),
                other => other,
            })
            .collect();
        compare_with_mixer(&clip, looping, hold, &frames)?;
    }

    #[test]
    fn a_backward_step_fires_each_event_it_crosses_once(
        total in 1i32..3000,
        times in prop::collection::vec(0i32..3000, 0..6),
        from in 0.0f64..=1.0,
        back in 0i32..6000,
        looping in any::<bool>(),
    ) {
        let times: Vec<f32> = times.iter().map(|t| (t % (total + 1)) as f32).collect();
        let mode = if looping { RepeatMode::Loop } else { RepeatMode::Once };
        let from = (from * f64::from(total)).round();
        let step = mode.step(from, -f64::from(back), total);
        let passed = step.events_passed(&times);
        let mut seen: Vec<usize> = passed.iter().map(|(i, _)| *i).collect();
        seen.dedup();
        prop_assert_eq!(seen.len(), passed.len(), "each once");
        for (index, t) in passed {
            let t = f64::from(t);
            let crossed = if step.wraps == 0 { step.to_ms.min(from + step.moved_ms) < t && t <= from } else { true };
            prop_assert!(crossed, "event {} at {} not between {} and {}", index, t, from, step.to_ms);
            prop_assert!(!(looping && t == f64::from(total)), "a loop's end never fires");
        }
    }
}

/// A bone name of any kind a file may hold.
fn any_name() -> impl Strategy<Value = Vec<u8>> {
    let cp949 =
        "[가-힣]{1,6}( [LR] [가-힣A-Za-z]{1,4})?".prop_map(|text| FileString::encode_text(&text).as_bytes().to_vec());
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..40),
        cp949,
        Just(Vec::new()),
        prop::collection::vec(any::<u8>(), 300..=300),
        prop::sample::select(biped::BONES.map(|(name, _)| name.as_bytes().to_vec()).to_vec()),
        "(Bip01 )?(L|R|left_|right_)?[A-Za-z]{1,8}(\\.L|\\.R|_l|_r)?".prop_map(String::into_bytes),
    ]
}

fn any_key() -> impl Strategy<Value = Key> {
    (-50i32..3000, prop::array::uniform3(-100.0f32..100.0), prop::array::uniform4(-1.0f32..1.0)).prop_map(
        |(t, p, q)| {
            let q = Quat::from_array(q);
            let rotation = if q.length() > 1e-3 { q.normalize() } else { Quat::IDENTITY };
            Key::new(t, Vec3::from_array(p), rotation)
        },
    )
}

fn any_clip() -> impl Strategy<Value = Animation> {
    let track = (any_name(), -1.0f32..2.0, prop::collection::vec(any_key(), 0..5));
    let event = (any_name(), any_name(), -10.0f32..3000.0);
    (prop::collection::vec(track, 0..6), prop::collection::vec(event, 0..4), 0i32..3000).prop_map(
        |(tracks, events, total)| {
            let mut animation = Animation::new(AniVersion::V4002, total);
            animation.tracks = (tracks.into_iter())
                .map(|(name, weight, keys)| Track { bone: FileString::from(name), weight, keys })
                .collect();
            animation.events = (events.into_iter())
                .map(|(kind, info, time_ms)| Event { kind: kind.into(), sub_info: info.into(), time_ms })
                .collect();
            animation
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// What `io3d mirror`, `retarget`, `join`, `trim`, `resample` and
    /// `events` run, on names and keys of every kind: no panic, and the
    /// names that come out are the ones the edit's rule gives, byte for
    /// byte: each track's partner's for a mirror (up to the first zero, as
    /// the client reads names), the map's targets for a rename, A's
    /// tracks then B's new ones for a join, the same names for a trim or a
    /// resample.
    #[test]
    fn edits_take_any_bone_names(a in any_clip(), b in any_clip(), cut in (0i32..3000, 0i32..3000), step in -5i32..500) {
        let biped_rig = Rig::new(&biped::skeleton()).unwrap();
        let names = |clip: &Animation| clip.tracks.iter().map(|t| t.bone.as_bytes().to_vec()).collect::<Vec<_>>();
        let mirrored = mirror(&a, &biped_rig);
        let partners: Vec<Vec<u8>> = a.tracks.iter().map(|t| partner(t.bone.c_str())).collect();
        prop_assert_eq!(names(&mirrored), partners);
        for track in &a.tracks {
            let (name, other) = (track.bone.as_bytes(), partner(track.bone.as_bytes()));
            prop_assert!(partner(&other).eq_ignore_ascii_case(name), "a partner's partner is the name");
            prop_assert_eq!(side_of(&other), side_of(name).map(Side::other));
        }
        if let Some(guess) = guess_skeleton(&a) {
            let rig = Rig::new(&guess.skeleton).expect("a guess is one tree");
            let _ = mirror(&a, &rig);
            let source: Vec<String> = a.tracks.iter().map(|t| t.bone.to_text()).collect();
            let target: Vec<String> = biped::BONES.iter().map(|(n, _)| (*n).to_owned()).collect();
            let map = suggest_map(&source, &target);
            let renamed = rename(&a, &map).0;
            let targets: Vec<Vec<u8>> =
                a.tracks.iter().filter_map(|t| map.target_of(&t.bone)).map(|t| t.as_bytes().to_vec()).collect();
            prop_assert_eq!(names(&renamed), targets);
            for rest in [RestPoses::Align, RestPoses::Keep] {
                let _ = retarget(&a, &map, &rig, &biped_rig, rest);
            }
        }
        if let Ok(joined) = join(&a, &b) {
            let new_in_b = b.tracks.iter().filter(|t| a.track(t.bone.c_str()).is_none()).map(|t| t.bone.as_bytes().to_vec());
            prop_assert_eq!(names(&joined), names(&a).into_iter().chain(new_in_b).collect::<Vec<_>>());
        }
        if let Ok(trimmed) = trim(&a, cut.0, cut.1) {
            prop_assert_eq!(names(&trimmed), names(&a));
        }
        if let Ok(resampled) = resample(&a, step) {
            prop_assert_eq!(names(&resampled), names(&a));
        }
        let mut edited = a.clone();
        let added = edited.add_event(b.events.first().cloned().unwrap_or(Event {
            kind: FileString::from("motion_sound"),
            sub_info: FileString::default(),
            time_ms: 0.0,
        }));
        let _ = edited.retime_event(added, cut.0 as f32);
        let _ = edited.remove_event(added);
        let _ = edited.to_bytes();
    }
}

#[test]
fn a_partner_is_its_own_partners_partner_on_a_korean_name() {
    let name = [0xbf, 0xde, b' ', b'L', b' ', b'A'];
    assert_eq!(partner(&name), [0xbf, 0xde, b' ', b'R', b' ', b'A']);
}

/// The Biped with its left hand named `name`.
fn with_hand_named(name: &FileString) -> Skeleton {
    let mut skeleton = common::biped();
    let old = FileString::from("Bip01 L Hand");
    for bone in &mut skeleton.bones {
        if bone.name == old {
            bone.name = name.clone();
        }
        if bone.parent == old {
            bone.parent = name.clone();
        }
        bone.children.iter_mut().filter(|c| **c == old).for_each(|c| *c = name.clone());
    }
    skeleton
}

/// What each layer says of a track (and a mesh bone) named `track` on a
/// skeleton whose hand is named `bone`: whether it binds in the rig, in
/// skinning and in the glTF export, and the lint's rule for it.
fn answers(bone: &FileString, track: &FileString) -> (bool, bool, bool, Option<String>) {
    let skeleton = with_hand_named(bone);
    let rig = Rig::new(&skeleton).unwrap();
    let mut walk = Animation::from_bytes(&std::fs::read(common::asset("biped_walk_4002.ani")).unwrap()).unwrap();
    let index = walk.track_index(b"Bip01 L Hand").unwrap();
    walk.tracks[index].bone = track.clone();
    let in_rig = rig.bone(track.c_str()).is_some();
    let mut arm = common::arm(&common::biped());
    let weights = arm.weights.as_mut().unwrap();
    let at = weights.names.iter().position(|n| n.c_str() == b"Bip01 L Hand").unwrap();
    weights.names[at] = track.clone();
    let in_skin = MeshBinding::new(weights, &rig).unknown.is_empty();
    let exported = export(&skeleton, &[], &[("walk".into(), &walk)], ExportOptions::default()).unwrap();
    let in_gltf = !exported.warnings.iter().any(|w| w.contains("names no bone"));
    let lint = check_ani(&walk.to_bytes().unwrap(), Some(&skeleton));
    let rule = lint.iter().find(|f| f.message.contains(&track.to_text())).map(|f| f.rule.id().to_owned());
    (in_rig, in_skin, in_gltf, rule)
}

#[test]
fn names_spelt_in_cp949_or_utf8_get_one_answer_from_every_layer() {
    let cp949 = FileString::encode_text("왼손");
    let utf8 = FileString::from("왼손");
    assert_ne!(cp949.as_bytes(), utf8.as_bytes());
    for spelling in [&cp949, &utf8] {
        assert_eq!(answers(spelling, spelling), (true, true, true, None), "{:?}", spelling.as_bytes());
    }
    for (bone, track) in [(&cp949, &utf8), (&utf8, &cp949)] {
        let (rig, skin, gltf, rule) = answers(bone, track);
        assert_eq!((rig, skin, gltf), (false, false, false), "the client compares bytes");
        assert_eq!(rule.as_deref(), Some("loose-bone"), "the lint names the bone it meant");
    }
}

/// `asked` as a name to look up: as drawn, or `stored` with other bytes
/// after a zero (which the client never sees).
fn asked_name(stored: &[u8], asked: Vec<u8>, cut: bool) -> Vec<u8> {
    match cut {
        true => [bevy_io3d::format::string::c_str(stored), b"\0junk"].concat(),
        false => asked,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// One name rule: a file's track, a skeleton's bone, a stored name
    /// asked directly and `BoneNames` answer alike, and a bone map (names
    /// as text) finds what `BoneNames`' text rule finds, whatever the
    /// bytes (a zero inside, CP949, any case). The places that compared
    /// bytes up to a zero with a whole name, or a whole name as text,
    /// once answered otherwise.
    #[test]
    fn every_name_lookup_follows_the_one_rule(stored in any_name(), asked in any_name(), cut in any::<bool>()) {
        use bevy_io3d::anim::{BoneMap, BoneNames, names::bone_name};
        let asked = asked_name(&stored, asked, cut);
        let names = BoneNames::new([&stored]);
        let rule = names.get(&asked).is_some();
        let file = FileString::from(stored.clone());
        prop_assert_eq!(file.is_named(&asked), rule);
        let mut animation = Animation::new(AniVersion::V4002, 100);
        animation.tracks.push(Track { bone: file.clone(), weight: 1.0, keys: vec![Key::new(0, Vec3::ZERO, Quat::IDENTITY)] });
        prop_assert_eq!(animation.track(&asked).is_some(), rule);
        let skeleton = with_hand_named(&file);
        let every = BoneNames::new(skeleton.bones.iter().map(|b| b.name.as_bytes()));
        prop_assert_eq!(skeleton.bone_index(&asked), every.get(&asked));
        let text = bone_name(&asked).into_owned();
        let map = BoneMap(vec![(text.clone(), "Hips".into())]);
        let by_text = names.by_text(&text).is_some();
        prop_assert_eq!(map.target_of(&file).is_some(), by_text);
        prop_assert_eq!(rename(&animation, &map).0.tracks.len() == 1, by_text);
    }
}

/// A clip of 1000 ms whose root goes along X from 0 to `to`.
fn travelling(to: f32) -> Clip {
    let mut animation = Animation::new(AniVersion::V4002, 1000);
    let key = |t: i32, x: f32| Key::new(t, Vec3::new(x, 0.0, 0.0), Quat::IDENTITY);
    animation.tracks.push(Track { bone: "Bip01".into(), weight: 1.0, keys: vec![key(0, 0.0), key(1000, to)] });
    Clip::new(&animation)
}

fn any_weight() -> impl Strategy<Value = f32> {
    prop_oneof![Just(0.0f32), Just(-0.5f32), Just(1.0f32), -1.0f32..2.0]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// One blending rule: a frame's root motion (each clip's step mixed by
    /// the clips' weights) moves the root as far as its blended pose moves,
    /// whatever the weights (zero, negative, groups that weigh nothing). A
    /// flat weighted mean of the steps once gave another answer where an
    /// action or the loops weighed nothing in sum.
    #[test]
    fn root_motion_mixes_clips_as_the_pose_does(
        weights in prop::array::uniform3(any_weight()),
        start in 0.0f32..400.0,
        frame in 1.0f32..300.0,
    ) {
        use bevy_io3d::anim::root_motion::{ClipRootStep, mixed};
        use bevy_io3d::anim::{BonePose, Hints, PoseBlend};

        let clips = [travelling(100.0), travelling(-40.0), travelling(250.0)];
        let mut mixer: Mixer<usize> = Mixer::new();
        let ids = [
            mixer.play_action(0, Action::default()),
            mixer.play_loop(1, Loop::default()),
            mixer.play_loop(2, Loop::default()),
        ];
        let mut fired = Vec::new();
        mixer.advance(start, |c| clips.get(c), &mut fired);
        for (id, weight) in ids.iter().zip(weights) {
            mixer.force_weight(*id, weight);
        }
        let root = |mixer: &mut Mixer<usize>| {
            let mut blend = PoseBlend::default();
            mixer.pose(&[BonePose::IDENTITY], |c| clips.get(c).map(|c| (c, &[Some(0)][..])), &mut blend);
            blend.pose(0).unwrap().position
        };
        let before = root(&mut mixer);
        mixer.advance(frame, |c| clips.get(c), &mut fired);
        let after = root(&mut mixer);
        let mut hints = Hints::default();
        let steps: Vec<ClipRootStep> = mixer
            .instances()
            .map(|i| {
                let clip = &clips[i.clip];
                let mut at = |t: f64| clip.bone_pose(b"Bip01", t as f32, &mut hints).unwrap();
                let step = i.step();
                let (first, last) = (at(0.0), at(1000.0));
                ClipRootStep { step, kind: i.kind(), weight: i.weight(), before: at(step.from_ms), now: at(step.to_ms), first, last }
            })
            .collect();
        prop_assume!(steps.len() == 3 && steps.iter().all(|s| s.step.wraps == 0));
        let moved = mixed(steps).delta;
        prop_assert!((moved - (after - before)).length() < 1e-3, "mixed {} against the pose's {}", moved, after - before);
    }
}
