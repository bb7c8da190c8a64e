//! Timelines: the key times tracks share. Exporters key every bone at the
//! same frames, so a clip's tracks mostly have one timeline between them:
//! its times are stored once and searched once a sample of the whole clip,
//! and its keys lie time-major (key `k` of every track on it side by side),
//! so that a pose reads two contiguous blocks.

use std::collections::HashMap;
use std::ops::Range;

use crate::format::{AniVersion, Track};

use crate::anim::sample::BonePose;

use super::keys::{Keys, Read, Rotations};

/// The tracks of the same key times (count and `i32` times alike), by
/// index, in the order of their first tracks; each list in track order.
pub(super) fn group(tracks: &[Track]) -> Vec<Vec<usize>> {
    let mut by_times: HashMap<Vec<i32>, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (index, track) in tracks.iter().enumerate() {
        let times = track.keys.iter().map(|k| k.time_ms).collect();
        let group = *by_times.entry(times).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[group].push(index);
    }
    groups
}

/// Key times shared by some tracks, and where their keys lie.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Timeline {
    /// Its times in the clip's times.
    times: Range<usize>,
    /// Whether the times never decrease, so a found key can be searched
    /// from (the client's hint gives "the first later key" only then).
    in_order: bool,
    /// The form of its rotations, and where its first key lies in the
    /// [`Keys`] of that form.
    rotations: Rotations,
    first_key: usize,
    /// The number of tracks on it: the stride from one time to the next.
    width: usize,
    /// Where its tracks' poses start among a sample of every timeline
    /// ([`Timeline::columns`]).
    column: usize,
}

/// Where a timeline's last sample was found: the first key later than the
/// time, and how far the time lies from the key before it to that one.
/// The client keeps such a hint a track to search on from.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Found {
    pub(super) next: u32,
    /// `(t - t0) / (t1 - t0)` when the time lies between two keys; never
    /// NaN, since then `t0 <= t < t1` and both are whole milliseconds.
    pub(super) factor: f32,
}

impl Timeline {
    /// Stores the keys of `tracks` (which share their times), time-major,
    /// in `times` and `keys`. Their rotations stay in the file's words when
    /// every key's words decode to its rotation bit for bit.
    /// Its tracks' poses start at `column` in a sample of every timeline.
    pub(super) fn new(
        tracks: &[&Track],
        version: AniVersion,
        (times, keys): (&mut Vec<f32>, &mut Keys),
        column: usize,
    ) -> Self {
        let first = &tracks[0].keys;
        let start = times.len();
        times.extend(first.iter().map(|k| k.time_ms as f32));
        let time_major = (0..first.len()).flat_map(|k| tracks.iter().map(move |track| &track.keys[k]));
        let (rotations, first_key) = keys.push(time_major, first.len() * tracks.len(), version);
        Self {
            times: start..times.len(),
            in_order: first.windows(2).all(|w| w[0].time_ms <= w[1].time_ms),
            rotations,
            first_key,
            width: tracks.len(),
            column,
        }
    }

    /// Where its tracks' poses lie in a sample of every timeline, by slot.
    pub(super) fn columns(&self) -> Range<usize> {
        self.column..self.column + self.width
    }

    /// The column of the track in `slot`.
    pub(super) fn column(&self, slot: usize) -> usize {
        self.column + slot
    }

    /// The poses of all its tracks where its sample was `found`, into
    /// `out` (one a slot); nothing when it has no keys.
    pub(super) fn poses(&self, keys: &Keys, found: Found, out: &mut [BonePose]) {
        if let Some((rotations, row)) = self.read(found, 0) {
            keys.poses(rotations, row, out);
        }
    }

    /// Finds `t` among the times (of all the clip's `times`) by the client's
    /// rule, searching on from where `found` was.
    pub(super) fn find(&self, times: &[f32], t: f32, found: &mut Found) {
        let times = &times[self.times.clone()];
        let next = first_later(times, t, (found.next as usize).saturating_sub(1), self.in_order);
        let factor = match next {
            n if n > 0 && n < times.len() => (t - times[n - 1]) / (times[n] - times[n - 1]),
            _ => 0.0,
        };
        *found = Found { next: next as u32, factor };
    }

    /// The keys of the track in `slot` that a sample `found` here reads, by
    /// the client's rule: before the first key hold it, after the last hold
    /// that, otherwise blend the two around the time. `None` when there are
    /// no keys.
    pub(super) fn read(&self, found: Found, slot: usize) -> Option<(Rotations, Read)> {
        let len = self.times.len();
        let key = |k: usize| self.first_key + k * self.width + slot;
        let read = match found.next as usize {
            _ if len == 0 => return None,
            0 => Read::Hold(key(0)),
            n if n >= len => Read::Hold(key(len - 1)),
            n => Read::Blend(key(n - 1), key(n), found.factor),
        };
        Some((self.rotations, read))
    }
}

/// The index of the first of `times` later than `t` (`times.len()` when
/// none is), searched as `ioRcAniTrack::GetFrameIndex` does: on from the
/// key after `hint` when the hint's key is earlier than `t`, otherwise from
/// the start. On times in order the search gallops (1, 2, 4, ... keys on)
/// and then halves, so forward play costs O(1) and a seek O(log n) rather
/// than the client's O(n); on times out of order it scans from key 0,
/// which is the client's answer whenever its hint is 0.
pub(super) fn first_later(times: &[f32], t: f32, hint: usize, in_order: bool) -> usize {
    let later = |time: &f32| *time > t;
    if !in_order {
        return times.iter().position(later).unwrap_or(times.len());
    }
    let hint = hint.min(times.len().saturating_sub(1));
    let mut low = if times.get(hint).is_some_and(|&time| time < t) { hint + 1 } else { 0 };
    let mut span = 1;
    let high = loop {
        let probe = low + span - 1;
        match times.get(probe) {
            None => break times.len(),
            Some(time) if later(time) => break probe + 1,
            Some(_) => {
                low = probe + 1;
                span *= 2;
            }
        }
    };
    low + times[low..high].partition_point(|time| !later(time))
}
