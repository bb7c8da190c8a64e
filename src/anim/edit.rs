//! Edits as the game's animation studio makes them: events, keys and
//! tracks one at a time, and whole-clip edits (join, trim, resample). Keys
//! an edit does not change keep their stored rotation words, so a save
//! re-encodes only what was edited.

use thiserror::Error;

use crate::format::{Animation, Event, FileString, Key, Track};

use super::sample::sample_keys;

/// Why an edit was refused. Nothing is changed when an edit fails.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EditError {
    /// No event with this index.
    #[error("there is no event {index} (the animation has {count})")]
    NoEvent {
        /// The index asked for.
        index: usize,
        /// How many there are.
        count: usize,
    },
    /// No track with this index.
    #[error("there is no track {index} (the animation has {count})")]
    NoTrack {
        /// The index asked for.
        index: usize,
        /// How many there are.
        count: usize,
    },
    /// No key with this index in the track.
    #[error("track {track} '{bone}' has no key {index} (it has {count})")]
    NoKey {
        /// The track.
        track: usize,
        /// Its bone.
        bone: String,
        /// The index asked for.
        index: usize,
        /// How many keys it has.
        count: usize,
    },
    /// A track with no keys cannot be sampled (the client would crash on
    /// it too).
    #[error("track {track} '{bone}' has no keys to sample")]
    NoKeys {
        /// The track.
        track: usize,
        /// Its bone.
        bone: String,
    },
    /// A time range that is empty or not inside the clip.
    #[error("the range {from}..{to} ms is empty or not inside the clip (0..{total} ms)")]
    BadRange {
        /// Start asked for.
        from: i32,
        /// End asked for.
        to: i32,
        /// The clip's total time.
        total: i32,
    },
    /// A key step of less than one millisecond.
    #[error("the key step must be at least 1 ms, not {0}")]
    BadStep(i32),
    /// Times that would not fit the file's 32-bit milliseconds.
    #[error("the joined clip would last longer than the file can store ({0} ms)")]
    TooLong(i64),
}

impl Animation {
    fn track_mut(&mut self, index: usize) -> Result<&mut Track, EditError> {
        let count = self.tracks.len();
        self.tracks.get_mut(index).ok_or(EditError::NoTrack { index, count })
    }

    fn key_index(&self, track: usize, index: usize) -> Result<(), EditError> {
        let t = self.tracks.get(track).ok_or(EditError::NoTrack { index: track, count: self.tracks.len() })?;
        if index < t.keys.len() {
            Ok(())
        } else {
            Err(EditError::NoKey { track, bone: t.bone.to_text(), index, count: t.keys.len() })
        }
    }

    /// An event, to change its type or sub info in place.
    pub fn event_mut(&mut self, index: usize) -> Result<&mut Event, EditError> {
        let count = self.events.len();
        self.events.get_mut(index).ok_or(EditError::NoEvent { index, count })
    }

    /// Adds an event after the others in file order (the client plays
    /// events by time whatever their order); returns its index.
    pub fn add_event(&mut self, event: Event) -> usize {
        self.events.push(event);
        self.events.len() - 1
    }

    /// Removes an event and returns it.
    pub fn remove_event(&mut self, index: usize) -> Result<Event, EditError> {
        self.event_mut(index)?;
        Ok(self.events.remove(index))
    }

    /// Moves an event to another time.
    pub fn retime_event(&mut self, index: usize, time_ms: f32) -> Result<(), EditError> {
        self.event_mut(index)?.time_ms = time_ms;
        Ok(())
    }

    /// Adds a track after the others; returns its index.
    pub fn add_track(&mut self, track: Track) -> usize {
        self.tracks.push(track);
        self.tracks.len() - 1
    }

    /// Removes a track and returns it.
    pub fn remove_track(&mut self, index: usize) -> Result<Track, EditError> {
        self.track_mut(index)?;
        Ok(self.tracks.remove(index))
    }

    /// Gives a track another bone name.
    pub fn rename_track(&mut self, index: usize, bone: impl Into<FileString>) -> Result<(), EditError> {
        self.track_mut(index)?.bone = bone.into();
        Ok(())
    }

    /// Sets a track's blend weight.
    pub fn set_weight(&mut self, index: usize, weight: f32) -> Result<(), EditError> {
        self.track_mut(index)?.weight = weight;
        Ok(())
    }

    /// Inserts a key at `time_ms` holding the track's pose there (sampled
    /// by the client's rule, so playback does not change), after any keys
    /// at the same time; returns its index. A key already at that time is
    /// left as it is and its index returned.
    pub fn insert_sampled_key(&mut self, track: usize, time_ms: i32) -> Result<usize, EditError> {
        let t = self.track_mut(track)?;
        if let Some(at) = t.keys.iter().rposition(|k| k.time_ms == time_ms) {
            return Ok(at);
        }
        let pose =
            sample_keys(&t.keys, time_ms as f32).ok_or_else(|| EditError::NoKeys { track, bone: t.bone.to_text() })?;
        let at = t.keys.partition_point(|k| k.time_ms <= time_ms);
        t.keys.insert(at, Key::new(time_ms, pose.position, pose.rotation));
        Ok(at)
    }

    /// Deletes a key and returns it.
    pub fn delete_key(&mut self, track: usize, key: usize) -> Result<Key, EditError> {
        self.key_index(track, key)?;
        Ok(self.tracks[track].keys.remove(key))
    }

    /// Moves a key to another time, keeping the keys in time order (after
    /// keys already at that time); returns its new index. Its stored words
    /// stay: the rotation did not change.
    pub fn move_key(&mut self, track: usize, key: usize, time_ms: i32) -> Result<usize, EditError> {
        self.key_index(track, key)?;
        let keys = &mut self.tracks[track].keys;
        let mut moved = keys.remove(key);
        moved.time_ms = time_ms;
        let at = keys.partition_point(|k| k.time_ms <= time_ms);
        keys.insert(at, moved);
        Ok(at)
    }

    /// Sets a key's position and/or rotation. A new rotation drops the
    /// stored words, so the writer encodes it afresh.
    pub fn set_key(
        &mut self,
        track: usize,
        key: usize,
        position: Option<glam::Vec3>,
        rotation: Option<glam::Quat>,
    ) -> Result<(), EditError> {
        self.key_index(track, key)?;
        let k = &mut self.tracks[track].keys[key];
        if let Some(position) = position {
            k.position = position;
        }
        if let Some(rotation) = rotation {
            k.rotation = rotation;
            k.packed = None;
        }
        Ok(())
    }
}

/// Clip `b` after clip `a`, in `a`'s version. `b`'s times shift by `a`'s
/// total; tracks are matched by bone name (in `a`'s order, then `b`'s
/// new bones); events of both are kept; the total is the sum.
///
/// The client holds a track's first key before it and its last key after
/// it, and blends toward the next key in between. So that the join plays
/// exactly `a` then `b`: a matched track gets a key at the seam holding
/// `a`'s end pose (when `a`'s last key is earlier) and one starting `b`
/// (when `b`'s first key is later than 0); a bone in one clip only holds
/// its pose through the other's span without extra keys.
pub fn join(a: &Animation, b: &Animation) -> Result<Animation, EditError> {
    let offset = a.total_ms.max(0);
    let total = i64::from(offset) + i64::from(b.total_ms.max(0));
    let last_key = b.tracks.iter().flat_map(|t| t.keys.iter()).map(|k| i64::from(k.time_ms) + i64::from(offset)).max();
    let too_long = total.max(last_key.unwrap_or(0));
    if too_long > i64::from(i32::MAX) {
        return Err(EditError::TooLong(too_long));
    }
    let shift = |keys: &[Key]| -> Vec<Key> { keys.iter().map(|k| Key { time_ms: k.time_ms + offset, ..*k }).collect() };
    let mut joined = Animation { events: a.events.clone(), total_ms: total as i32, tracks: Vec::new(), ..a.clone() };
    for track in &a.tracks {
        let mut keys = track.keys.clone();
        if let Some(other) = b
            .track(track.bone.c_str())
            .filter(|_| a.track(track.bone.c_str()).is_some_and(|first| std::ptr::eq(first, track)))
        {
            hold_to(&mut keys, offset);
            let mut start = shift(&other.keys);
            if let Some(first) = other.keys.first().filter(|k| k.time_ms > 0) {
                start.insert(0, Key { time_ms: offset, ..*first });
            }
            keys.extend(start);
        }
        joined.tracks.push(Track { keys, ..track.clone() });
    }
    for track in b.tracks.iter().filter(|t| a.track(t.bone.c_str()).is_none()) {
        joined.tracks.push(Track { keys: shift(&track.keys), ..track.clone() });
    }
    joined.events.extend(b.events.iter().map(|e| Event { time_ms: e.time_ms + offset as f32, ..e.clone() }));
    Ok(joined)
}

/// Appends a copy of the last key at `time_ms` when the keys end earlier,
/// so that blending toward a later key starts only there.
fn hold_to(keys: &mut Vec<Key>, time_ms: i32) {
    if let Some(last) = keys.last().filter(|k| k.time_ms < time_ms).copied() {
        keys.push(Key { time_ms, ..last });
    }
}

/// The part of a clip from `from` to `to` ms, starting at 0. Each track
/// keeps its keys inside the range (their words kept) and gets a key at each
/// cut holding the pose there (the existing key when one is exactly at the
/// cut). Events inside the range are kept.
pub fn trim(animation: &Animation, from: i32, to: i32) -> Result<Animation, EditError> {
    if !(0 <= from && from < to && to <= animation.total_ms) {
        return Err(EditError::BadRange { from, to, total: animation.total_ms });
    }
    let tracks = animation
        .tracks
        .iter()
        .map(|track| {
            let inside = track.keys.iter().filter(|k| from < k.time_ms && k.time_ms < to).copied();
            let keys = if track.keys.is_empty() {
                Vec::new()
            } else {
                std::iter::once(key_at(&track.keys, from))
                    .chain(inside)
                    .chain(std::iter::once(key_at(&track.keys, to)))
                    .collect()
            };
            Track { keys: keys.into_iter().map(|k| Key { time_ms: k.time_ms - from, ..k }).collect(), ..track.clone() }
        })
        .collect();
    let events = animation
        .events
        .iter()
        .filter(|e| (from as f32..=to as f32).contains(&e.time_ms))
        .map(|e| Event { time_ms: e.time_ms - from as f32, ..e.clone() })
        .collect();
    Ok(Animation { events, total_ms: to - from, tracks, ..animation.clone() })
}

/// The key the client would show at `time_ms`: the one stored there (the
/// last of that time, as sampling uses it), or a new sampled one.
/// `keys` must not be empty.
fn key_at(keys: &[Key], time_ms: i32) -> Key {
    match keys.iter().rev().find(|k| k.time_ms == time_ms) {
        Some(key) => *key,
        None => {
            let pose = sample_keys(keys, time_ms as f32).expect("keys are not empty");
            Key::new(time_ms, pose.position, pose.rotation)
        }
    }
}

/// The clip with keys every `step_ms` from 0 to the total time (and one at
/// the total), each holding the pose there; keys already at those times are
/// kept as they are.
pub fn resample(animation: &Animation, step_ms: i32) -> Result<Animation, EditError> {
    if step_ms < 1 {
        return Err(EditError::BadStep(step_ms));
    }
    let total = animation.total_ms.max(0);
    let times: Vec<i32> =
        (0..=total).step_by(step_ms as usize).chain((total % step_ms != 0).then_some(total)).collect();
    let tracks = animation
        .tracks
        .iter()
        .map(|track| {
            let keys = if track.keys.is_empty() {
                Vec::new()
            } else {
                times.iter().map(|&t| key_at(&track.keys, t)).collect()
            };
            Track { keys, ..track.clone() }
        })
        .collect();
    Ok(Animation { tracks, ..animation.clone() })
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::anim::sample::track_pose;
    use crate::format::AniVersion;

    fn key(t: i32, x: f32) -> Key {
        Key::new(t, Vec3::new(x, 0.0, 0.0), Quat::from_rotation_y(x / 100.0))
    }

    fn clip(total: i32, tracks: &[(&str, &[(i32, f32)])]) -> Animation {
        let mut animation = Animation::new(AniVersion::V4002, total);
        for (bone, keys) in tracks {
            animation.tracks.push(Track {
                bone: (*bone).into(),
                weight: 1.0,
                keys: keys.iter().map(|&(t, x)| key(t, x)).collect(),
            });
        }
        animation
    }

    fn x_at(animation: &Animation, bone: &str, t: f32) -> f32 {
        track_pose(animation.track(bone.as_bytes()).unwrap(), t).unwrap().position.x
    }

    #[test]
    fn joined_clips_play_a_then_b() {
        let mut a = clip(1000, &[("Bip01", &[(0, 0.0), (800, 8.0)]), ("A only", &[(0, 1.0), (500, 2.0)])]);
        a.add_event(Event { kind: "sound".into(), sub_info: "a".into(), time_ms: 100.0 });
        let mut b = clip(500, &[("Bip01", &[(100, 20.0), (500, 30.0)]), ("B only", &[(0, 5.0), (500, 6.0)])]);
        b.add_event(Event { kind: "sound".into(), sub_info: "b".into(), time_ms: 50.0 });
        let joined = join(&a, &b).unwrap();
        assert_eq!(joined.total_ms, 1500);
        assert_eq!(joined.events.iter().map(|e| e.time_ms).collect::<Vec<_>>(), [100.0, 1050.0]);
        for t in [0.0, 400.0, 800.0, 900.0, 999.0] {
            assert_eq!(x_at(&joined, "Bip01", t), x_at(&a, "Bip01", t), "A at {t}");
            assert_eq!(x_at(&joined, "A only", t), x_at(&a, "A only", t), "A only at {t}");
            assert_eq!(x_at(&joined, "B only", t), 5.0, "B only holds its start at {t}");
        }
        for t in [0.0, 50.0, 100.0, 300.0, 500.0] {
            assert_eq!(x_at(&joined, "Bip01", t + 1000.0), x_at(&b, "Bip01", t), "B at {t}");
            assert_eq!(x_at(&joined, "B only", t + 1000.0), x_at(&b, "B only", t), "B only at {t}");
            assert_eq!(x_at(&joined, "A only", t + 1000.0), 2.0, "A only holds its end at {t}");
        }
        let too_long = clip(i32::MAX - 10, &[]);
        assert_eq!(join(&too_long, &b), Err(EditError::TooLong(i64::from(i32::MAX) - 10 + 500)));
    }

    #[test]
    fn trim_and_resample_keep_the_motion_and_the_untouched_keys() {
        let mut walk = clip(1000, &[("Bip01", &[(0, 0.0), (250, 10.0), (500, 20.0), (1000, 40.0)])]);
        walk.tracks[0].keys[1].packed = Some(crate::format::PackedRotation::EightBytes([1, 2]));
        walk.add_event(Event { kind: "step".into(), sub_info: FileString::default(), time_ms: 300.0 });
        walk.add_event(Event { kind: "step".into(), sub_info: FileString::default(), time_ms: 900.0 });
        let cut = trim(&walk, 200, 600).unwrap();
        assert_eq!(cut.total_ms, 400);
        assert_eq!(cut.tracks[0].keys.iter().map(|k| k.time_ms).collect::<Vec<_>>(), [0, 50, 300, 400]);
        assert_eq!(cut.tracks[0].keys[1].packed, walk.tracks[0].keys[1].packed, "the kept key keeps its words");
        assert_eq!(cut.events.len(), 1);
        assert_eq!(cut.events[0].time_ms, 100.0);
        for t in [0.0, 50.0, 123.0, 400.0] {
            assert_eq!(x_at(&cut, "Bip01", t), x_at(&walk, "Bip01", t + 200.0));
        }
        assert!(trim(&walk, 600, 600).is_err() && trim(&walk, 0, 1001).is_err());
        let even = resample(&walk, 300).unwrap();
        assert_eq!(even.tracks[0].keys.iter().map(|k| k.time_ms).collect::<Vec<_>>(), [0, 300, 600, 900, 1000]);
        assert_eq!(x_at(&even, "Bip01", 600.0), x_at(&walk, "Bip01", 600.0));
        assert_eq!(resample(&walk, 0), Err(EditError::BadStep(0)));
    }

    #[test]
    fn key_edits_keep_order_and_other_keys_words() {
        let mut walk = clip(1000, &[("Bip01", &[(0, 0.0), (500, 10.0), (1000, 20.0)])]);
        let words = Some(crate::format::PackedRotation::EightBytes([7, 8]));
        walk.tracks[0].keys[2].packed = words;
        let at = walk.insert_sampled_key(0, 250).unwrap();
        assert_eq!((at, walk.tracks[0].keys[at].position.x), (1, 5.0));
        assert_eq!(walk.insert_sampled_key(0, 250), Ok(1), "a key already there stays");
        assert_eq!(walk.move_key(0, 1, 750), Ok(2));
        assert_eq!(walk.tracks[0].keys.iter().map(|k| k.time_ms).collect::<Vec<_>>(), [0, 500, 750, 1000]);
        walk.set_key(0, 0, None, Some(Quat::from_rotation_x(1.0))).unwrap();
        assert_eq!(walk.tracks[0].keys[3].packed, words);
        assert!(matches!(walk.delete_key(0, 9), Err(EditError::NoKey { count: 4, .. })));
        assert!(walk.insert_sampled_key(3, 0).is_err());
        walk.add_track(Track { bone: "Empty".into(), weight: 1.0, keys: Vec::new() });
        assert!(matches!(walk.insert_sampled_key(1, 0), Err(EditError::NoKeys { .. })));
        walk.rename_track(1, "Other").unwrap();
        walk.set_weight(1, 0.5).unwrap();
        assert_eq!(walk.remove_track(1).unwrap().weight, 0.5);
        let e = walk.add_event(Event { kind: "a".into(), sub_info: "b".into(), time_ms: 1.0 });
        walk.retime_event(e, 2.0).unwrap();
        walk.event_mut(e).unwrap().kind = "c".into();
        assert_eq!(walk.remove_event(e).unwrap().kind.to_text(), "c");
        assert!(walk.remove_event(0).is_err());
    }
}
