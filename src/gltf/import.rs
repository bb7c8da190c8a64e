//! A glTF animation onto the game's skeleton, as an `.ani`.
//!
//! The animation is sampled by glTF's rules on its own node tree, in model
//! space, and retargeted as `io3d retarget` does ([`Retargeter`]): each
//! mapped bone turns as its source turns from the source's rest pose, bones
//! keep the game skeleton's lengths (or the source's animated offset where
//! both rest alike, which makes a round trip exact), and the root's travel
//! is scaled by the ratio of root heights, which also converts any unit.
//!
//! Keys: a bone gets one key at each key time of the channels that move it
//! (its own and its ancestors'), rounded to whole milliseconds, so the
//! source's keys come back where they were. [`reduce_keys`] then drops the
//! ones the client's interpolation rebuilds within a tolerance.

use std::collections::HashMap;

use super::GltfError;
use super::document::GltfDocument;
use super::source::{SourceAnimation, SourceNodes};
use crate::anim::reduce::{Tolerance, reduce_keys};
use crate::anim::{BoneMap, BonePose, RestPoses, Retargeter, Rig, suggest_map};
use crate::format::{AniVersion, Animation, Key, Skeleton, Track};

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The glTF animation to import: by name, or `#N` by its index in the
    /// file (0 first), for files whose animations share a name (merged
    /// Mixamo files name every one `mixamo.com`); `None` takes the only
    /// one. A name several animations share is refused, not guessed.
    pub animation: Option<String>,
    /// glTF node name to skeleton bone name; `None` uses
    /// [`suggested_map`].
    pub map: Option<BoneMap>,
    /// The version to write; `None` keeps the one recorded in the
    /// animation's extras, or writes 4002.
    pub version: Option<AniVersion>,
    /// Drop keys the client rebuilds within this; `None` keeps every key.
    pub tolerance: Option<Tolerance>,
    /// How the source's rest pose meets the skeleton's (aligned by
    /// default, so a T-pose rig plays on the game's A-pose skeleton).
    pub rest: RestPoses,
    /// The `.ani` this import replaces: what the glTF does not carry
    /// (tools such as Blender drop the `io3d` extras) comes from it: the
    /// version, total time, events and track weights, and the tracks of
    /// bones the glTF does not animate, in the base's track order.
    pub base: Option<Animation>,
}

impl ImportOptions {
    /// Options that import the file's animation `index` (0 first),
    /// whatever its name.
    pub fn nth_animation(index: usize) -> Self {
        Self { animation: Some(format!("#{index}")), ..Self::default() }
    }
}

/// An imported animation and how it was made.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The `.ani`.
    pub animation: Animation,
    /// The map used.
    pub map: BoneMap,
    /// Animated glTF nodes no skeleton bone took motion from.
    pub unmapped: Vec<String>,
    /// The root travel scale (target height over source height).
    pub scale: f32,
    /// Keys before reduction (equal to the written ones without a
    /// tolerance).
    pub keys_before: usize,
    /// What was left out (morph target channels, ...).
    pub warnings: Vec<String>,
    /// How the rest poses were aligned ([`Retargeter::alignment_report`]).
    pub alignment: Vec<String>,
}

/// A map from a glTF file's nodes to the skeleton's bones by
/// [`suggest_map`]'s names (Biped, `Bip001`, Mixamo, ...). When no node
/// maps to the skeleton's root (Mixamo and Blender rigs have their hips at
/// the top, the Biped has `Bip01` above its pelvis), the node mapped to the
/// root's child (the hips) drives the root instead, so that its travel
/// moves the character; the pelvis then follows the root as at rest.
pub fn suggested_map(nodes: &[String], skeleton: &Skeleton) -> BoneMap {
    let bones: Vec<String> = skeleton.bones.iter().map(|b| b.name.name_text().into_owned()).collect();
    let mut map = suggest_map(nodes, &bones);
    let Ok(rig) = Rig::new(skeleton) else { return map };
    let Some(&root) = rig.order.first() else { return map };
    if map.0.iter().any(|(_, to)| *to == bones[root]) {
        return map;
    }
    let child = (0..rig.len()).find(|&b| rig.parents[b] == Some(root) && map.0.iter().any(|(_, to)| *to == bones[b]));
    if let Some(pair) = child.and_then(|c| map.0.iter_mut().find(|(_, to)| *to == bones[c])) {
        pair.1 = bones[root].clone();
    }
    map
}

/// Imports one animation of a glTF file onto `skeleton`.
pub fn import(file: &GltfDocument, skeleton: &Skeleton, options: &ImportOptions) -> Result<Imported, GltfError> {
    let rig = Rig::new(skeleton).map_err(|e| GltfError::Skeleton(e.to_string()))?;
    let source = SourceAnimation::read(file, pick_animation(file, options.animation.as_deref())?)?;
    let nodes = SourceNodes::new(&file.document)?;
    let map = options.map.clone().unwrap_or_else(|| suggested_map(&nodes.names, skeleton));
    let retargeter = Retargeter::new(&map, &nodes.retarget_source(), &rig, options.rest);
    if retargeter.mapped().next().is_none() {
        return Err(GltfError::NoBones(source.name.clone()));
    }
    let mut poses = PoseCache { source: &source, nodes: &nodes, at: HashMap::new() };
    let mut tracks = Vec::new();
    for (bone, src) in retargeter.mapped() {
        let times = source.key_times(nodes.chain(src));
        let keys: Vec<Key> = key_instants(&times)
            .into_iter()
            .map(|(ms, seconds)| {
                let pose = retargeter.local(poses.at(seconds), bone);
                Key::new(ms, pose.position, pose.rotation)
            })
            .collect();
        if !times.is_empty() {
            let weight = source.extras.as_ref().map_or(1.0, |e| e.weight(&nodes.names[src]));
            tracks.push(Track { bone: skeleton.bones[bone].name.clone(), weight, keys });
        }
    }
    let extras = source.extras.clone();
    let version = options.version.or(extras.as_ref().and_then(|e| e.version.and_then(AniVersion::from_number)));
    let mut animation = Animation {
        version: version.unwrap_or(AniVersion::V4002),
        events: extras.as_ref().map(|e| e.file_events()).unwrap_or_default(),
        total_ms: extras.as_ref().and_then(|e| e.total_ms).unwrap_or_else(|| (source.end() * 1000.0).round() as i32),
        tracks,
        trailing: Vec::new(),
    };
    if let Some(base) = &options.base
        && extras.is_none()
    {
        animation = onto_base(animation, base, options.version);
    }
    let keys_before = animation.key_count();
    if let Some(tolerance) = options.tolerance {
        reduce_keys(&mut animation, tolerance);
    }
    let unmapped = unmapped_nodes(&source, &nodes, &map);
    Ok(Imported {
        animation,
        map,
        unmapped,
        scale: retargeter.scale(),
        keys_before,
        warnings: source.skipped.clone(),
        alignment: retargeter.alignment_report(),
    })
}

/// `imported` laid over the `.ani` it replaces: the base's version (unless
/// one was asked for), total time, events and trailing bytes; its tracks
/// in order, each replaced by the imported track of its bone (keeping the
/// base's weight) where there is one; then imported tracks the base lacks.
fn onto_base(imported: Animation, base: &Animation, version: Option<AniVersion>) -> Animation {
    let mut fresh: Vec<Option<Track>> = imported.tracks.into_iter().map(Some).collect();
    let mut tracks: Vec<Track> = (base.tracks.iter())
        .map(|old| {
            let new = fresh.iter_mut().find(|t| t.as_ref().is_some_and(|t| t.bone.is_named(old.bone.as_bytes())));
            match new.and_then(Option::take) {
                Some(new) => Track { weight: old.weight, ..new },
                None => old.clone(),
            }
        })
        .collect();
    tracks.extend(fresh.into_iter().flatten());
    let mut animation = Animation { tracks, ..base.clone() };
    if let Some(version) = version.filter(|&v| v != base.version) {
        animation.version = version;
        // Keys carried over from the base are re-encoded for the version
        // asked for; the imported ones are new values anyway.
        for key in animation.tracks.iter_mut().flat_map(|t| t.keys.iter_mut()) {
            key.packed = None;
        }
    }
    animation
}

/// The animation asked for ([`ImportOptions::animation`]): the one of
/// that name, else `#N` by index, or the only one.
fn pick_animation<'a>(file: &'a GltfDocument, asked: Option<&str>) -> Result<::gltf::Animation<'a>, GltfError> {
    let names = file.animation_names();
    let index = match asked {
        Some(asked) => {
            let named: Vec<usize> = (0..names.len()).filter(|&i| names[i] == asked).collect();
            if named.len() > 1 {
                return Err(GltfError::SharedAnimationName { name: asked.to_owned(), indices: named });
            }
            let by_index = asked.strip_prefix('#').and_then(|n| n.parse::<usize>().ok());
            named.first().copied().or(by_index)
        }
        None if names.len() == 1 => Some(0),
        None => None,
    };
    index
        .and_then(|i| file.document.animations().nth(i))
        .ok_or_else(|| GltfError::NoAnimation { asked: asked.map(str::to_owned), found: names })
}

/// Key times closer than this (in seconds) are a jump when the first is
/// off the whole millisecond: the export writes the first key of a jump
/// [`JUMP_S`](super::export::JUMP_S) before the time (0.5 ms), and an
/// `.ani`'s own keys are at whole milliseconds, so a key 1 ms before a
/// jump is not taken for its start.
const JUMP_WINDOW_S: f64 = 0.00075;

/// Key times (seconds, sorted) as the keys to write: at whole
/// milliseconds, sampled at the source's own time. Times that round to one
/// millisecond give one key, the last; but two closer than
/// [`JUMP_WINDOW_S`] are a jump (as the exporter writes keys sharing a
/// time), and give two keys at the later one's millisecond, which the
/// client plays as a jump.
fn key_instants(times: &[f32]) -> Vec<(i32, f32)> {
    let ms = |t: f32| (f64::from(t) * 1000.0).round() as i32;
    let mut keys: Vec<(i32, f32)> = Vec::with_capacity(times.len());
    let mut jump_ends_at = None;
    let mut rest = times;
    while let [t, tail @ ..] = rest {
        rest = tail;
        if let [next, after @ ..] = tail
            && next > t
            && f64::from(next - t) < JUMP_WINDOW_S
            && off_whole_ms(*t)
        {
            keys.extend([(ms(*next), *t), (ms(*next), *next)]);
            jump_ends_at = Some(ms(*next));
            rest = after;
            continue;
        }
        match keys.last_mut() {
            Some(last) if last.0 == ms(*t) && jump_ends_at != Some(last.0) => *last = (ms(*t), *t),
            _ => keys.push((ms(*t), *t)),
        }
    }
    keys
}

/// Whether a time in seconds lies off the whole milliseconds (by more
/// than a quarter of one).
fn off_whole_ms(t: f32) -> bool {
    let ms = f64::from(t) * 1000.0;
    (ms - ms.round()).abs() > 0.25
}

/// Animated nodes whose name the map does not take.
fn unmapped_nodes(source: &SourceAnimation, nodes: &SourceNodes, map: &BoneMap) -> Vec<String> {
    (0..nodes.names.len())
        .filter(|&n| !source.key_times([n]).is_empty() && map.target(&nodes.names[n]).is_none())
        .map(|n| nodes.names[n].clone())
        .collect()
}

/// Source poses by time, each worked out once.
struct PoseCache<'a> {
    source: &'a SourceAnimation,
    nodes: &'a SourceNodes,
    at: HashMap<u32, Vec<BonePose>>,
}

impl PoseCache<'_> {
    fn at(&mut self, seconds: f32) -> &[BonePose] {
        let (source, nodes) = (self.source, self.nodes);
        self.at.entry(seconds.to_bits()).or_insert_with(|| source.world(nodes, seconds))
    }
}
