//! A clip as one track a bone, for players that take one curve a property
//! (glTF's channels, Bevy's `AnimationClip`): the one rule for a clip's
//! tracks that share a bone or have a weight of 0 or less, so that every
//! exported form plays what the client plays.
//!
//! The client blends every track of a bone by its weight ([`Clip::blended`]):
//! a lone track of weight 0, negative or NaN poses nothing, a track of
//! weight 0 beside others drops out, a negative one beside a positive one
//! pushes the mean away. A bone with one track that poses keeps that
//! track's keys as they are; a bone with several gets keys at the union of
//! their times, each the client's blend at that time (exact at every key,
//! interpolated between them).

use std::borrow::Cow;

use crate::format::{Animation, FileString, Key};

use super::clip::Clip;
use super::sample::poses;
use crate::format::string::c_str;

/// The one track of a bone.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneTrack<'a> {
    /// The bone's name, as its first track stores it.
    pub bone: &'a FileString,
    /// The keys, in time order as the file holds them.
    pub keys: Cow<'a, [Key]>,
    /// How many of the clip's tracks went into it (more than 1: blended).
    pub tracks: usize,
}

/// Each bone's one track, in the order of each bone's first track; bones
/// whose tracks pose nothing are left out (they stay as they are).
pub fn bone_tracks(animation: &Animation) -> Vec<BoneTrack<'_>> {
    let mut bones: Vec<(&[u8], Vec<usize>)> = Vec::new();
    for (index, track) in animation.tracks.iter().enumerate() {
        let name = c_str(track.bone.as_bytes());
        match bones.iter_mut().find(|(bone, _)| *bone == name) {
            Some((_, tracks)) => tracks.push(index),
            None => bones.push((name, vec![index])),
        }
    }
    let clip = Clip::new(animation);
    bones.into_iter().filter_map(|(_, tracks)| one_track(animation, &clip, &tracks)).collect()
}

fn one_track<'a>(animation: &'a Animation, clip: &Clip, tracks: &[usize]) -> Option<BoneTrack<'a>> {
    let first = &animation.tracks[tracks[0]];
    if let [_] = tracks {
        let keys = Cow::Borrowed(first.keys.as_slice());
        return poses(first).then_some(BoneTrack { bone: &first.bone, keys, tracks: 1 });
    }
    let mut times: Vec<i32> = tracks.iter().flat_map(|&t| animation.tracks[t].keys.iter().map(|k| k.time_ms)).collect();
    times.sort_unstable();
    times.dedup();
    let keys = times
        .into_iter()
        .map(|time| {
            let pose = clip.blended_tracks(tracks.iter().copied(), time as f32, None)?;
            Some(Key::new(time, pose.position, pose.rotation))
        })
        .collect::<Option<Vec<Key>>>()?;
    Some(BoneTrack { bone: &first.bone, keys: Cow::Owned(keys), tracks: tracks.len() })
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::format::{AniVersion, Track};

    fn track(name: &str, weight: f32, x: f32) -> Track {
        let keys = vec![Key::new(0, Vec3::new(x, 0.0, 0.0), Quat::IDENTITY), Key::new(100, Vec3::ZERO, Quat::IDENTITY)];
        Track { bone: name.into(), weight, keys }
    }

    #[test]
    fn shared_bones_blend_and_weightless_tracks_drop_out() {
        let mut animation = Animation::new(AniVersion::V4002, 100);
        animation.tracks = vec![
            track("a", 1.0, 2.0),
            track("b", 0.0, 5.0),
            track("a", 3.0, 6.0),
            track("c", -1.0, 1.0),
            track("d", 0.0, 1.0),
            track("d", 2.0, 7.0),
        ];
        let one = bone_tracks(&animation);
        let names: Vec<String> = one.iter().map(|t| t.bone.to_text()).collect();
        assert_eq!(names, ["a", "d"], "lone tracks of weight 0 or less pose nothing");
        assert_eq!(one[0].tracks, 2);
        assert_eq!(one[0].keys[0].position.x, 5.0, "(2 x 1 + 6 x 3) / 4");
        assert_eq!(one[1].keys[0].position.x, 7.0, "a weight of 0 beside another drops out");
        let clip = Clip::new(&animation);
        let played = clip.bone_pose(b"a", 0.0, &mut crate::anim::Hints::default()).unwrap();
        assert_eq!(played.position, one[0].keys[0].position, "as the player poses it");
    }
}
