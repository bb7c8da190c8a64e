//! An `.ani` as Bevy's own [`AnimationClip`], for games that play clips
//! with `AnimationPlayer` and animation graphs.

use bevy::animation::animated_field;
use bevy::animation::prelude::{AnimatableCurve, AnimatableKeyframeCurve, AnimatedField};
use bevy::animation::{AnimationClip, AnimationTargetId};
use bevy::ecs::name::Name;
use bevy::math::curve::{ConstantCurve, Interval};
use bevy::transform::components::Transform;

use crate::format::{Animation, Key};

use super::axes::Axes;

/// The target id a bone gets in exported clips: from its name alone, so a
/// clip plays on any hierarchy whose bone entities carry
/// `AnimationTargetId::from_name(&name)` (rigs spawned by this plugin do).
pub fn bone_target(name: &str) -> AnimationTargetId {
    AnimationTargetId::from_name(&Name::new(name.to_owned()))
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
/// rotation curve per track, converted to `axes`. Keys hold before the
/// first and after the last, as the client's do; tracks the client ignores
/// (no keys, weight 0) are left out, so those bones keep their transform.
pub fn to_bevy_clip(animation: &Animation, axes: Axes) -> AnimationClip {
    let mut clip = AnimationClip::default();
    for track in &animation.tracks {
        if track.keys.is_empty() || track.weight == 0.0 || track.weight.is_nan() {
            continue;
        }
        let target = bone_target(&String::from_utf8_lossy(track.bone.c_str()));
        let seconds = |k: &Key| k.time_ms as f32 / 1000.0;
        let positions = track.keys.iter().map(|k| (seconds(k), axes.position(k.position)));
        let rotations = track.keys.iter().map(|k| (seconds(k), axes.rotation(k.rotation)));
        add_curve!(clip, target, animated_field!(Transform::translation), positions);
        add_curve!(clip, target, animated_field!(Transform::rotation), rotations);
    }
    clip.set_duration(animation.total_ms.max(0) as f32 / 1000.0);
    clip
}
