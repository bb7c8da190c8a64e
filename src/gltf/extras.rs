//! What glTF has no place for, kept in an animation's `extras` under
//! `"io3d"`: the `.ani` version, its total time (glTF clips end at their
//! last key), its events and any track weight other than 1.
//!
//! ```json
//! "extras": { "io3d": { "version": 4002, "total_ms": 1000,
//!   "events": [ { "type": "sound", "sub_info": "step.wav", "time_ms": 250.0 } ] } }
//! ```
//!
//! The same are kept again in the scene's extras, by animation name
//! (`{"io3d": {"animations": {"walk": {...}}}}`): Blender drops animation
//! extras on import but keeps the scene's as custom properties, and writes
//! them back when its export includes custom properties.

use std::collections::BTreeMap;

use ::gltf::json::Extras;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::GltfError;
use crate::format::{Animation, Event, FileString};

/// The `"io3d"` object of an animation's extras.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnimationExtras {
    /// The `.ani` version it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i32>,
    /// The header's total time in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<i32>,
    /// The events, in the file's order.
    #[serde(default)]
    pub events: Vec<EventExtra>,
    /// Track weights other than 1, by bone name (glTF channels have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<TrackWeight>,
}

/// A track's weight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrackWeight {
    /// The track's bone.
    pub bone: String,
    /// Its weight.
    pub weight: f32,
}

/// One event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventExtra {
    /// The event type (`sound`, `fire_s`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Its sub info (a sound file, an effect name, ...).
    #[serde(default)]
    pub sub_info: String,
    /// When it fires.
    pub time_ms: f32,
}

#[derive(Serialize, Deserialize)]
struct Wrapper<T> {
    io3d: T,
}

/// The `"io3d"` object of the scene's extras.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct SceneExtras {
    #[serde(default)]
    animations: BTreeMap<String, AnimationExtras>,
}

/// The scene's extras for the animations written, by name.
pub fn scene_extras(animations: &[(String, AnimationExtras)]) -> Result<Box<RawValue>, GltfError> {
    let io3d = SceneExtras { animations: animations.iter().cloned().collect() };
    serde_json::value::to_raw_value(&Wrapper { io3d }).map_err(|e| GltfError::Write(e.to_string()))
}

/// The extras a scene keeps for the animation `name`: `None` without
/// them, an error naming the field when they are malformed.
pub fn from_scene(extras: &Extras, name: &str) -> Result<Option<AnimationExtras>, String> {
    let Some(raw) = extras else { return Ok(None) };
    let value: serde_json::Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    let Some(io3d) = value.get("io3d") else { return Ok(None) };
    let mut scene = SceneExtras::deserialize(io3d).map_err(|e| format!("scene extras.io3d: {e}"))?;
    Ok(scene.animations.remove(name))
}

impl AnimationExtras {
    /// What an animation keeps in extras.
    pub fn of(animation: &Animation) -> Self {
        let events = (animation.events.iter())
            .map(|e| EventExtra { kind: e.kind.to_text(), sub_info: e.sub_info.to_text(), time_ms: e.time_ms })
            .collect();
        let weights = (animation.tracks.iter())
            .filter(|t| t.weight != 1.0)
            .map(|t| TrackWeight { bone: t.bone.name_text().into_owned(), weight: t.weight })
            .collect();
        Self { version: Some(animation.version.number()), total_ms: Some(animation.total_ms), events, weights }
    }

    /// The weight recorded for a bone's track: 1 unless recorded.
    pub fn weight(&self, bone: &str) -> f32 {
        self.weights.iter().find(|w| w.bone == bone).map_or(1.0, |w| w.weight)
    }

    /// As glTF extras.
    pub fn to_raw(&self) -> Result<Box<RawValue>, GltfError> {
        serde_json::value::to_raw_value(&Wrapper { io3d: self }).map_err(|e| GltfError::Write(e.to_string()))
    }

    /// Reads an animation's extras: `None` without an `"io3d"` object (a
    /// file from another tool), an error naming the field when it is
    /// malformed.
    pub fn from_extras(extras: &Extras) -> Result<Option<Self>, String> {
        let Some(raw) = extras else { return Ok(None) };
        let value: serde_json::Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
        match value.get("io3d") {
            None => Ok(None),
            Some(io3d) => Self::deserialize(io3d).map(Some).map_err(|e| format!("extras.io3d: {e}")),
        }
    }

    /// The events as the format's.
    pub fn file_events(&self) -> Vec<Event> {
        (self.events.iter())
            .map(|e| Event {
                kind: FileString::encode_text(&e.kind),
                sub_info: FileString::encode_text(&e.sub_info),
                time_ms: e.time_ms,
            })
            .collect()
    }
}
