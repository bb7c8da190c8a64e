//! An `.ani` as Bevy's own [`AnimationClip`], for games that play clips
//! with `AnimationPlayer` and animation graphs.

use bevy::animation::animated_field;
use bevy::animation::prelude::{AnimatableCurve, AnimatableKeyframeCurve, AnimatedField};
use bevy::animation::{AnimationClip, AnimationEvent, AnimationTargetId};
use bevy::ecs::name::Name;
use bevy::math::curve::{ConstantCurve, Interval};
use bevy::platform::collections::HashMap;
use bevy::transform::components::Transform;
use serde::{Deserialize, Serialize};

use crate::anim::bone_tracks::bone_tracks;
use crate::anim::names::bone_name;
use crate::anim::{Rig, keyframes_in_seconds};
use crate::format::ani::event_order;
use crate::format::string::c_str;
use crate::format::{Animation, Event, EventKind};

use super::axes::Axes;

/// A clip's event as a Bevy animation event, for clips played by Bevy's
/// `AnimationPlayer` ([`to_bevy_clip`]); [`super::AniEventFired`] is its
/// counterpart for [`super::AniPlayer`].
#[derive(AnimationEvent, Debug, Clone, PartialEq)]
pub struct AniClipEvent {
    /// Its index among the events the clip was made with.
    pub index: usize,
    /// The event type as the file names it, such as `motion_sound`.
    pub kind: String,
    /// What that type is to the client and the game.
    pub event_kind: EventKind,
    /// Its sub info (decoded from CP949 where it is not UTF-8).
    pub sub_info: String,
    /// Its time in the clip, in milliseconds.
    pub time_ms: f32,
}

/// The target id a bone gets in exported clips, from its name as stored
/// (compared as the client compares names, [`crate::anim::names`]). A
/// UTF-8 name (ASCII is) gets `AnimationTargetId::from_name`, so a clip
/// plays on any hierarchy whose bone entities carry that (rigs spawned by
/// this plugin do). Other bytes (CP949) get an id of their own bytes, so a
/// CP949 track never targets the bone of the same text in UTF-8.
pub fn bone_target(name: &[u8]) -> AnimationTargetId {
    let name = c_str(name);
    match std::str::from_utf8(name) {
        Ok(text) => AnimationTargetId::from_name(&Name::new(text.to_owned())),
        Err(_) => {
            let hex: String = name.iter().map(|b| format!("{b:02x}")).collect();
            AnimationTargetId::from_iter(["\0io3d stored bytes", &hex])
        }
    }
}

/// How a Bevy clip's curves name the bones they move.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum TargetIds {
    /// By the bone's name alone ([`bone_target`]): rigs spawned by
    /// [`super::SklRig`], or any hierarchy whose bones carry those ids.
    #[default]
    Names,
    /// As bevy_gltf names a glTF scene's nodes: by the path of names from
    /// the scene's root node down to the bone ([`TargetIds::paths`]).
    Paths(HashMap<Vec<u8>, AnimationTargetId>),
}

impl TargetIds {
    /// The ids bevy_gltf gives the bones of a glTF scene of `rig`'s
    /// skeleton (the crate's own export, or the same bones under an
    /// armature): each bone's path of names from the scene's root node,
    /// `above` (the names of the nodes over the skeleton's root, such as
    /// Blender's `Armature`) first, then the bone's ancestors and itself,
    /// named as the export names them. bevy_gltf gives these ids only to a
    /// scene whose file holds an animation; on any other, put them on the
    /// nodes with `AnimatedBy`.
    pub fn paths(rig: &Rig, above: &[String]) -> Self {
        let mut paths: Vec<Vec<Name>> = vec![Vec::new(); rig.len()];
        for &bone in &rig.order {
            let mut path = match rig.parents[bone] {
                Some(parent) => paths[parent].clone(),
                None => above.iter().map(|name| Name::new(name.clone())).collect(),
            };
            path.push(Name::new(bone_name(&rig.names[bone]).into_owned()));
            paths[bone] = path;
        }
        let ids = (rig.names.iter().zip(&paths))
            .map(|(name, path)| (c_str(name).to_vec(), AnimationTargetId::from_names(path.iter())));
        Self::Paths(ids.collect())
    }

    /// The id of the bone named `name` (stored bytes); by name where a
    /// path is not known.
    pub fn of(&self, name: &[u8]) -> AnimationTargetId {
        match self {
            Self::Paths(paths) => paths.get(c_str(name)).copied().unwrap_or_else(|| bone_target(name)),
            Self::Names => bone_target(name),
        }
    }
}

/// The hierarchy a Bevy clip is made for: its axes, its units and how its
/// bones are named.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipSpace {
    /// The axes of the clip's transforms.
    pub axes: Axes,
    /// What positions are multiplied by: 1 for rigs in game units, 0.01
    /// for a glTF in metres as `io3d export` writes it.
    pub scale: f32,
    /// The ids of the bones the curves move.
    pub targets: TargetIds,
}

impl ClipSpace {
    /// In `axes`, in game units, bones by name: rigs this plugin spawns.
    pub fn new(axes: Axes) -> Self {
        Self { axes, scale: 1.0, targets: TargetIds::Names }
    }
}

/// Which [`TargetIds`] an `.ani`'s Bevy clip is made with, as loader
/// settings ([`super::AniLoaderSettings::targets`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BevyTargets {
    /// [`TargetIds::Names`].
    #[default]
    Names,
    /// [`TargetIds::paths`] of the skeleton at the asset path `skeleton`
    /// (read as a dependency: editing it remakes the clip), under the
    /// nodes named `above`.
    Paths {
        /// The `.skl` the clip's bones hang in, as an asset path.
        skeleton: String,
        /// The names of the scene's nodes above the skeleton's root.
        above: Vec<String>,
    },
}

/// Adds a keyframe curve of `$field`, or a constant one where the keys are
/// all at one time (Bevy's keyframe curves need two distinct times). A
/// macro, since the field types differ and their reflection bounds are many.
macro_rules! add_curve {
    ($clip:expr, $target:expr, $field:expr, $keys:expr) => {{
        let keys: Vec<_> = $keys.collect();
        let last = keys.last().map(|(_, value)| *value);
        match AnimatableKeyframeCurve::new(keys) {
            Ok(curve) => $clip.add_curve_to_target($target, AnimatableCurve::new($field, curve)),
            Err(_) => {
                if let Some(value) = last {
                    let curve = ConstantCurve::new(Interval::EVERYWHERE, value);
                    $clip.add_curve_to_target($target, AnimatableCurve::new($field, curve));
                }
            }
        }
    }};
}

/// The animation as an [`AnimationClip`] in seconds, one translation and one
/// rotation curve per track, converted to `space`'s axes and units, each
/// bone's curves aimed at the id its targets give it. Keys hold before the
/// first and after the last, as the client's do. A bone's tracks go as the
/// one track the client's blend of them makes ([`bone_tracks`]): tracks
/// that pose nothing (no keys, weight 0 or less) are left out, so those
/// bones keep their transform, and two tracks of a bone are one curve.
/// Bevy's curves sort their keys: keys out of time order (which
/// `io3d check` reports) play sorted, not as the client plays them.
///
/// `events` (the file's, or its `.ant` sidecar's) become Bevy animation
/// events ([`AniClipEvent`], triggered on the `AnimationPlayer`'s entity),
/// in the client's play order. Bevy passes them by its own window, not the
/// client's (`docs/playback.md`, Events): for the client's, play the clip
/// with [`super::AniPlayer`].
pub fn to_bevy_clip(animation: &Animation, events: &[Event], space: &ClipSpace) -> AnimationClip {
    let mut clip = AnimationClip::default();
    for index in event_order(events) {
        let event = &events[index];
        let fired = AniClipEvent {
            index,
            kind: event.kind.to_text(),
            event_kind: EventKind::of(&event.kind),
            sub_info: event.sub_info.to_text(),
            time_ms: event.time_ms,
        };
        clip.add_event(event.time_ms.max(0.0) / 1000.0, fired);
    }
    for track in bone_tracks(animation) {
        let target = space.targets.of(track.bone.c_str());
        let steps = keyframes_in_seconds(&track.keys, 0.0);
        let positions = steps.iter().map(|(t, k)| (*t, space.axes.position(k.position) * space.scale));
        let rotations = steps.iter().map(|(t, k)| (*t, space.axes.rotation(k.rotation)));
        add_curve!(clip, target, animated_field!(Transform::translation), positions);
        add_curve!(clip, target, animated_field!(Transform::rotation), rotations);
    }
    clip.set_duration(animation.total_ms.max(0) as f32 / 1000.0);
    clip
}

#[cfg(test)]
mod tests {
    use bevy::math::curve::Curve;
    use bevy::math::{Quat, Vec3};

    use super::*;
    use crate::anim::sample_keys;
    use crate::format::Key;

    #[test]
    fn keys_sharing_a_time_play_as_in_the_client() {
        let key = |t, x| Key::new(t, Vec3::new(x, 0.0, 0.0), Quat::IDENTITY);
        let keys = [key(0, 1.0), key(0, 2.0), key(100, 3.0), key(100, 4.0), key(100, 5.0), key(200, 6.0)];
        let steps = keyframes_in_seconds(&keys, 0.0);
        let curve = AnimatableKeyframeCurve::new(steps.iter().map(|(t, k)| (*t, k.position))).unwrap();
        for ms in [-5.0f32, 0.0, 50.0, 99.0, 99.99, 100.0, 150.0, 200.0, 300.0] {
            let ours = sample_keys(&keys, ms).unwrap().position;
            let bevy = curve.sample_clamped(ms / 1000.0);
            assert!(ours.distance(bevy) < 1e-3, "{ms} ms: client {ours}, exported {bevy}");
        }
    }
}
