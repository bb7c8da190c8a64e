//! A clip compiled for playing, built once when a file loads.
//!
//! [`crate::format::Animation`] stays the lossless document (stored words,
//! string bytes, file order); a [`Clip`] holds only what sampling reads:
//! tracks of the same key times share one timeline, whose times are
//! stored once and searched once a sample of the whole clip (`timeline`),
//! and keys stay in the file's words, decoded when sampled as the client
//! does (`keys`). So a 4001 or 4002 clip whose tracks share their times
//! takes less memory than its file. Keys are found as the client finds
//! them: from a hint, so that forward play costs O(1) a timeline.

mod keys;
mod timeline;

use crate::format::ani::event_order;
use crate::format::c_text;
use crate::format::{Animation, Event, EventKind, FileString, Track};

use super::bone_blend::BoneBlend;
use super::sample::BonePose;
use keys::Keys;
use timeline::{Found, Timeline};

/// A track of a [`Clip`]: its bone, weight and where its keys lie.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipTrack {
    /// The bone's name as the file stores it.
    pub bone: FileString,
    /// The file's track weight (only relative weights matter).
    pub weight: f32,
    /// Its timeline, its place among the timeline's tracks and its number
    /// of keys (the timeline's), in 32 bits to keep a track at 48 bytes.
    timeline: u32,
    slot: u32,
    keys: u32,
}

impl ClipTrack {
    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.keys as usize
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
    timelines: Vec<Timeline>,
    /// The times of every timeline, one after another.
    times: Vec<f32>,
    keys: Keys,
}

/// Where each timeline's last sample was found: the client keeps one key
/// index a track to start the next search from, and tracks that share
/// their times share one here. Any value is safe, and a fresh one fits
/// any clip; a stale one only costs a longer search.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hints(Vec<Found>);

// Equality is reflexive: a found factor is never NaN (see `Found`).
impl Eq for Hints {}

impl Hints {
    /// A hint for each of `timelines` timelines at least.
    fn fit(&mut self, timelines: usize) -> &mut [Found] {
        if self.0.len() < timelines {
            self.0.resize(timelines, Found::default());
        }
        &mut self.0
    }
}

impl Clip {
    /// Compiles `animation`; key times become `f32` as in the client.
    pub fn new(animation: &Animation) -> Self {
        Self::with_events(animation, &animation.events)
    }

    /// Compiles `animation` to play `events` instead of its own, as the
    /// client plays the events of an `.ant` sidecar.
    pub fn with_events(animation: &Animation, events: &[Event]) -> Self {
        let mut clip = Self {
            total_ms: animation.total_ms,
            events: event_order(events).into_iter().map(|index| event(events, index)).collect(),
            ..Self::default()
        };
        let mut places = vec![(0, 0); animation.tracks.len()];
        let mut column = 0;
        for (index, group) in timeline::group(&animation.tracks).iter().enumerate() {
            let tracks: Vec<_> = group.iter().map(|&track| &animation.tracks[track]).collect();
            let stores = (&mut clip.times, &mut clip.keys);
            clip.timelines.push(Timeline::new(&tracks, animation.version, stores, column));
            column += tracks.len();
            for (slot, &track) in group.iter().enumerate() {
                places[track] = (index, slot);
            }
        }
        let track = |(track, (timeline, slot)): (&Track, (usize, usize))| ClipTrack {
            bone: track.bone.clone(),
            weight: track.weight,
            timeline: small(timeline),
            slot: small(slot),
            keys: small(track.keys.len()),
        };
        clip.tracks = animation.tracks.iter().zip(places).map(track).collect();
        clip.tracks.shrink_to_fit();
        clip.events.shrink_to_fit();
        clip.timelines.shrink_to_fit();
        clip.times.shrink_to_fit();
        clip.keys.shrink_to_fit();
        clip
    }

    /// Bytes the keys take: their times (once a timeline), positions and
    /// rotations (in the file's words where they decode to the keys'
    /// rotations).
    pub fn key_bytes(&self) -> usize {
        size_of_val(&self.times[..]) + self.keys.bytes()
    }

    /// Bytes this clip holds in memory: itself, its vectors' capacities
    /// and its track names, for comparing with the file's size.
    pub fn memory_size(&self) -> usize {
        let names: usize = self.tracks.iter().map(|track| track.bone.capacity()).sum();
        size_of::<Self>()
            + self.tracks.capacity() * size_of::<ClipTrack>()
            + names
            + self.events.capacity() * size_of::<ClipEvent>()
            + self.timelines.capacity() * size_of::<Timeline>()
            + self.times.capacity() * size_of::<f32>()
            + self.keys.capacity_bytes()
    }

    /// The pose of track `track` at `t` ms by the client's rule (the first
    /// key later than `t`; hold the first key before it and the last after
    /// the end; otherwise blend the key before it with it,
    /// [`crate::anim::between`]). `None` for a track with no keys. `hints`
    /// remembers where the key was found.
    pub fn sample(&self, track: usize, t: f32, hints: &mut Hints) -> Option<BonePose> {
        let timeline = self.tracks[track].timeline as usize;
        self.sample_from(track, t, &mut hints.fit(self.timelines.len())[timeline])
    }

    /// [`Clip::sample`] without a hint to keep.
    pub fn sample_at(&self, track: usize, t: f32) -> Option<BonePose> {
        self.sample_from(track, t, &mut Found::default())
    }

    /// [`Clip::sample`] of every track at `t` ms, each timeline searched
    /// once and its tracks interpolated together: calls `each` with the
    /// index and pose of every track that has keys, in track order (blends
    /// depend on it). `room` holds the poses meanwhile; reusing it from
    /// sample to sample spares allocating.
    pub fn sample_tracks(
        &self,
        t: f32,
        hints: &mut Hints,
        room: &mut Vec<BonePose>,
        mut each: impl FnMut(usize, BonePose),
    ) {
        let found = hints.fit(self.timelines.len());
        room.resize(self.tracks.len(), BonePose::IDENTITY);
        for (timeline, found) in self.timelines.iter().zip(found.iter_mut()) {
            timeline.find(&self.times, t, found);
            timeline.poses(&self.keys, *found, &mut room[timeline.columns()]);
        }
        for (index, track) in self.tracks.iter().enumerate() {
            let timeline = &self.timelines[track.timeline as usize];
            if track.keys > 0 {
                each(index, room[timeline.column(track.slot as usize)]);
            }
        }
    }

    /// [`Clip::sample`] with its timeline's hint.
    fn sample_from(&self, track: usize, t: f32, found: &mut Found) -> Option<BonePose> {
        let track = &self.tracks[track];
        self.timelines[track.timeline as usize].find(&self.times, t, found);
        self.pose(track, *found)
    }

    /// `track`'s pose where its timeline's sample was `found`.
    fn pose(&self, track: &ClipTrack, found: Found) -> Option<BonePose> {
        let (rotations, read) = self.timelines[track.timeline as usize].read(found, track.slot as usize)?;
        Some(self.keys.pose(rotations, read))
    }

    /// Bone `name`'s pose at `t` ms from every track of that name (compared
    /// as C strings), blended as the client blends a clip's tracks on one
    /// bone ([`crate::anim::PoseBlend`]): one track shows in full, two blend by their
    /// weights, none of positive weight (or none at all) gives `None`. The
    /// one rule for two tracks of a bone, shared by posing and the root
    /// path.
    pub fn bone_pose(&self, name: &[u8], t: f32, hints: &mut Hints) -> Option<BonePose> {
        self.blended(|&track| self.tracks[track].bone.is_named(name), t, Some(hints))
    }

    /// The pose of the tracks (by index) `is_bone` picks at `t` ms, blended
    /// as [`Clip::bone_pose`] blends the tracks of one name. Without
    /// `hints` it allocates nothing (each key search starts from key 0).
    pub fn blended(&self, is_bone: impl FnMut(&usize) -> bool, t: f32, hints: Option<&mut Hints>) -> Option<BonePose> {
        self.blended_tracks((0..self.tracks.len()).filter(is_bone), t, hints)
    }

    /// [`Clip::blended`] of the tracks `tracks` lists, in track order: for
    /// a caller that found a bone's tracks once (root motion, every frame)
    /// rather than asking of every track each time.
    pub fn blended_tracks(
        &self,
        tracks: impl IntoIterator<Item = usize>,
        t: f32,
        mut hints: Option<&mut Hints>,
    ) -> Option<BonePose> {
        let mut bone = BoneBlend::new(BonePose::IDENTITY);
        for index in tracks {
            let sampled = match hints.as_deref_mut() {
                Some(hints) => self.sample(index, t, hints),
                None => self.sample_at(index, t),
            };
            if let Some(pose) = sampled {
                bone.add(self.tracks[index].weight, pose);
            }
        }
        bone.lock();
        bone.posed()
    }
}

/// A count or index as a track keeps it: the file's counts are `i32`, and
/// a clip made in code that needs more would not fit in memory.
fn small(n: usize) -> u32 {
    u32::try_from(n).expect("a clip's counts fit in 32 bits")
}

fn event(events: &[Event], index: usize) -> ClipEvent {
    let event = &events[index];
    let jump = EventKind::of(&event.kind) == EventKind::JumpAniTime;
    let jump_to_ms = jump.then(|| c_text::atof(event.sub_info.c_str()).0);
    ClipEvent { index, time_ms: event.time_ms, jump_to_ms }
}

#[cfg(test)]
mod tests;
