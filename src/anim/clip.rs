//! A clip compiled for playing: each track's key times, positions and
//! rotations in flat arrays, built once when a file loads.
//!
//! [`crate::format::Animation`] stays the lossless document (stored words,
//! string bytes, file order); a [`Clip`] holds only what sampling reads, 32
//! bytes a key, and finds keys as the client does: from a hint, so that
//! forward play costs O(1) a bone.

use std::ops::Range;

use glam::{Quat, Vec3};

use crate::format::ani::event_order;
use crate::format::c_text;
use crate::format::{Animation, Event, EventKind, FileString, Key};

use super::bone_blend::BoneBlend;
use super::sample::{BonePose, between};

/// A track of a [`Clip`]: its bone, weight and where its keys lie.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipTrack {
    /// The bone's name as the file stores it.
    pub bone: FileString,
    /// The file's track weight (only relative weights matter).
    pub weight: f32,
    keys: Range<usize>,
    /// Whether key times never decrease, so a found key can be searched
    /// from (the client's hint gives "the first later key" only then).
    in_order: bool,
}

impl ClipTrack {
    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }
}

/// An event of a [`Clip`], in the order the client plays them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipEvent {
    /// Its index among the file's events.
    pub index: usize,
    /// When it fires, in ms.
    pub time_ms: f32,
    /// For a `jump_anitime` event, the time it sets the clip to (its sub
    /// info as C's `atof` reads it).
    pub jump_to_ms: Option<f32>,
}

/// An animation compiled for sampling.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Clip {
    /// The header's total time, in ms.
    pub total_ms: i32,
    /// The tracks, in file order.
    pub tracks: Vec<ClipTrack>,
    /// The events by time (a stable sort, so ties keep file order; the
    /// client's sort leaves their order undefined).
    pub events: Vec<ClipEvent>,
    keys: Vec<ClipKey>,
}

/// One key as sampling reads it: 32 bytes, time, position and rotation side
/// by side, so that a sample touches one or two cache lines rather than
/// one in each of three arrays (the clips of many characters playing at
/// different times are read all over).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct ClipKey {
    time: f32,
    position: Vec3,
    rotation: [f32; 4],
}

impl ClipKey {
    fn pose(&self) -> BonePose {
        BonePose { position: self.position, rotation: Quat::from_array(self.rotation) }
    }
}

/// Where each track's last sample was found: the client keeps one key index
/// a track to start the next search from. Any value is safe, and a fresh
/// one fits any clip; a stale one only costs a longer search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hints(Vec<u32>);

impl Clip {
    /// Compiles `animation`; key times become `f32` as in the client.
    pub fn new(animation: &Animation) -> Self {
        Self::with_events(animation, &animation.events)
    }

    /// Compiles `animation` to play `events` instead of its own, as the
    /// client plays the events of an `.ant` sidecar.
    pub fn with_events(animation: &Animation, events: &[Event]) -> Self {
        let keys = animation.key_count();
        let mut clip = Self {
            total_ms: animation.total_ms,
            tracks: Vec::with_capacity(animation.tracks.len()),
            events: event_order(events).into_iter().map(|index| event(events, index)).collect(),
            keys: Vec::with_capacity(keys),
        };
        for track in &animation.tracks {
            let start = clip.keys.len();
            let key =
                |k: &Key| ClipKey { time: k.time_ms as f32, position: k.position, rotation: k.rotation.to_array() };
            clip.keys.extend(track.keys.iter().map(key));
            let in_order = track.keys.windows(2).all(|w| w[0].time_ms <= w[1].time_ms);
            let keys = start..clip.keys.len();
            clip.tracks.push(ClipTrack { bone: track.bone.clone(), weight: track.weight, keys, in_order });
        }
        clip
    }

    /// Bytes the keys take: 32 a key.
    pub fn key_bytes(&self) -> usize {
        self.keys.len() * size_of::<ClipKey>()
    }

    /// The pose of track `track` at `t` ms by the client's rule (the first
    /// key later than `t`; hold the first key before it and the last after
    /// the end; otherwise blend the key before it with it, [`between`]).
    /// `None` for a track
    /// with no keys. `hints` remembers where the key was found.
    pub fn sample(&self, track: usize, t: f32, hints: &mut Hints) -> Option<BonePose> {
        if hints.0.len() < self.tracks.len() {
            hints.0.resize(self.tracks.len(), 0);
        }
        self.sample_from(track, t, &mut hints.0[track])
    }

    /// [`Clip::sample`] with one track's hint.
    fn sample_from(&self, track: usize, t: f32, hint: &mut u32) -> Option<BonePose> {
        let info = &self.tracks[track];
        let keys = &self.keys[info.keys.clone()];
        let next = first_later(keys, t, *hint as usize, info.in_order);
        let (pose, found) = match next {
            _ if keys.is_empty() => return None,
            0 => (keys[0].pose(), 0),
            n if n == keys.len() => (keys[n - 1].pose(), n - 1),
            n => {
                let (a, b) = (&keys[n - 1], &keys[n]);
                (between((a.time, a.pose()), (b.time, b.pose()), t), n - 1)
            }
        };
        *hint = found as u32;
        Some(pose)
    }

    /// Bone `name`'s pose at `t` ms from every track of that name (compared
    /// as C strings), blended as the client blends a clip's tracks on one
    /// bone ([`crate::anim::PoseBlend`]): one track shows in full, two blend by their
    /// weights, none of positive weight (or none at all) gives `None`. The
    /// one rule for two tracks of a bone, shared by posing and the root
    /// path.
    pub fn bone_pose(&self, name: &[u8], t: f32, hints: &mut Hints) -> Option<BonePose> {
        self.blended(|track| self.tracks[track].bone.c_str() == name, t, Some(hints))
    }

    /// The pose of the tracks (by index) `is_bone` picks at `t` ms, blended
    /// as [`Clip::bone_pose`] blends the tracks of one name. Without
    /// `hints` it allocates nothing (each key search starts from key 0).
    pub fn blended(
        &self,
        mut is_bone: impl FnMut(usize) -> bool,
        t: f32,
        mut hints: Option<&mut Hints>,
    ) -> Option<BonePose> {
        let mut bone = BoneBlend::new(BonePose::IDENTITY);
        for index in (0..self.tracks.len()).filter(|&i| is_bone(i)) {
            let sampled = match hints.as_deref_mut() {
                Some(hints) => self.sample(index, t, hints),
                None => self.sample_from(index, t, &mut 0),
            };
            if let Some(pose) = sampled {
                bone.add(self.tracks[index].weight, pose);
            }
        }
        bone.lock();
        bone.posed()
    }

    /// [`Clip::sample`] without a hint to keep.
    pub fn sample_at(&self, track: usize, t: f32) -> Option<BonePose> {
        self.sample_from(track, t, &mut 0)
    }
}

fn event(events: &[Event], index: usize) -> ClipEvent {
    let event = &events[index];
    let jump = EventKind::of(&event.kind) == EventKind::JumpAniTime;
    let jump_to_ms = jump.then(|| c_text::atof(event.sub_info.c_str()).0);
    ClipEvent { index, time_ms: event.time_ms, jump_to_ms }
}

/// The index of the first of `keys` later than `t` (`keys.len()` when
/// none is), searched as `ioRcAniTrack::GetFrameIndex` does: on from the
/// key after `hint` when the hint's key is earlier than `t`, otherwise from
/// the start. On keys in time order the search gallops (1, 2, 4, ... keys
/// on) and then halves, so forward play costs O(1) and a seek O(log n)
/// rather than the client's O(n); on keys out of order it scans from key
/// 0, which is the client's answer whenever its hint is 0.
fn first_later(keys: &[ClipKey], t: f32, hint: usize, in_order: bool) -> usize {
    let later = |key: &ClipKey| key.time > t;
    if !in_order {
        return keys.iter().position(later).unwrap_or(keys.len());
    }
    let hint = hint.min(keys.len().saturating_sub(1));
    let mut low = if keys.get(hint).is_some_and(|key| key.time < t) { hint + 1 } else { 0 };
    let mut span = 1;
    let high = loop {
        let probe = low + span - 1;
        match keys.get(probe) {
            None => break keys.len(),
            Some(key) if later(key) => break probe + 1,
            Some(_) => {
                low = probe + 1;
                span *= 2;
            }
        }
    };
    low + keys[low..high].partition_point(|key| !later(key))
}

#[cfg(test)]
mod tests {
    use super::*;
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

    fn keys(times: &[f32]) -> Vec<ClipKey> {
        times.iter().map(|&time| ClipKey { time, position: Vec3::ZERO, rotation: [0.0, 0.0, 0.0, 1.0] }).collect()
    }

    #[test]
    fn hints_give_the_first_later_key_from_anywhere() {
        let mut times: Vec<f32> = [0, 10, 10, 20, 35, 50, 50, 50, 90].map(|t| t as f32).to_vec();
        times.extend((0..40).map(|i| 100.0 + i as f32 * 10.0));
        for hint in 0..times.len() + 3 {
            for t in [-5.0, 0.0, 5.0, 10.0, 12.0, 20.0, 49.0, 50.0, 60.0, 90.0, 100.0, 255.0, 490.0, 600.0, f32::NAN] {
                assert_eq!(first_later(&keys(&times), t, hint, true), scan(&times, t), "hint {hint}, t {t}");
            }
        }
        assert_eq!(first_later(&keys(&[0.0, 100.0, 50.0]), 60.0, 2, false), 1);
        assert_eq!(size_of::<ClipKey>(), 32);
    }

    #[test]
    fn sampling_holds_blends_and_keeps_its_hint() {
        let clip = clip(&[100, 200, 300]);
        let mut hints = Hints::default();
        let x = |t: f32, hints: &mut Hints| clip.sample(0, t, hints).unwrap().position.x;
        assert_eq!(x(0.0, &mut hints), 100.0);
        assert_eq!(x(150.0, &mut hints), 150.0);
        assert_eq!(hints, Hints(vec![0]));
        assert_eq!(x(250.0, &mut hints), 250.0);
        assert_eq!(hints, Hints(vec![1]));
        assert_eq!(x(999.0, &mut hints), 300.0);
        assert_eq!(x(120.0, &mut hints), 120.0, "a seek back finds its key");
        assert_eq!(clip.key_bytes(), 3 * 32);
        assert_eq!(super::Clip::new(&Animation::new(AniVersion::V4000, 0)).tracks.len(), 0);
        let empty = clip_with_no_keys();
        assert_eq!(empty.sample_at(0, 5.0), None);
    }

    fn clip_with_no_keys() -> Clip {
        let mut animation = Animation::new(AniVersion::V4000, 1000);
        animation.tracks.push(Track { bone: FileString::encode_text("Bip01"), weight: 1.0, keys: vec![] });
        Clip::new(&animation)
    }
}
