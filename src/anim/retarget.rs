//! Retargeting: renaming tracks through a bone map, suggesting a map by
//! normalised names, and with both skeletons, correcting rotations for the
//! difference in rest pose and scaling root travel by the hip heights.

use std::collections::{BTreeMap, HashMap};

use thiserror::Error;

use crate::format::{Animation, FileString, Key, Track};

use super::clip::Clip;
use super::names::{BoneNames, bone_name};
use super::rig::Rig;
use super::sample::BonePose;
use super::side::{self, Side, side_of};

/// Source bone name to target bone name, in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoneMap(pub Vec<(String, String)>);

/// Why a bone map does not read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoneMapError {
    /// A line that is not `source = target`.
    #[error("line {line}: expected 'source bone = target bone', found '{text}'")]
    Line {
        /// Line number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// A map in JSON that is not an object of names.
    #[error("line {line}: not a JSON object of bone names: {why}")]
    Json {
        /// Line number, from 1.
        line: usize,
        /// What the JSON reader said.
        why: String,
    },
}

impl BoneMap {
    /// Parses `source = target` lines; blank lines and lines starting with
    /// `#` or `;` are skipped. Names are trimmed and may hold spaces.
    pub fn parse(text: &str) -> Result<Self, BoneMapError> {
        let mut pairs = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            match line.split_once('=').map(|(a, b)| (a.trim(), b.trim())) {
                Some((source, target)) if !source.is_empty() && !target.is_empty() => {
                    pairs.push((source.to_owned(), target.to_owned()))
                }
                _ => return Err(BoneMapError::Line { line: i + 1, text: line.to_owned() }),
            }
        }
        Ok(Self(pairs))
    }

    /// Reads a map file as `io3d retarget --map` and the plugin read one:
    /// `source = target` lines ([`BoneMap::parse`]), or a JSON object of
    /// source names to target names.
    #[cfg(any(feature = "json", feature = "gltf", feature = "plugin"))]
    pub fn read(text: &str) -> Result<Self, BoneMapError> {
        if !text.trim_start().starts_with('{') {
            return Self::parse(text);
        }
        let pairs: std::collections::BTreeMap<String, String> =
            serde_json::from_str(text).map_err(|e| BoneMapError::Json { line: e.line(), why: e.to_string() })?;
        Ok(Self(pairs.into_iter().collect()))
    }

    /// The map as `source = target` lines, which [`BoneMap::parse`] reads.
    pub fn to_text(&self) -> String {
        self.0.iter().map(|(s, t)| format!("{s} = {t}\n")).collect()
    }

    /// The target for a source name, as text.
    pub fn target(&self, source: &str) -> Option<&str> {
        self.0.iter().find(|(s, _)| s == source).map(|(_, t)| t.as_str())
    }

    /// The target for a name a file stores (a track's), by the text rule
    /// of [`super::names`]: its bytes up to the first zero, as text.
    pub fn target_of(&self, stored: &FileString) -> Option<&str> {
        self.target(&stored.name_text())
    }
}

/// The common name of a bone across rigs, for suggesting maps (the loose
/// rule of [`super::names`], looser still): its side by [`super::side`]'s
/// rule (`l` or `r` first), then the body part, with rig prefixes
/// (`Bip01`, `Bip001`, `mixamorig:`, Rigify's `DEF-`), separators and case
/// removed and other rigs' words for a part turned into the Biped's.
pub fn normalise(name: &str) -> String {
    let side = side::side_of(name.as_bytes()).map(Side::letter);
    let rest = String::from_utf8_lossy(&side::without_side(name.as_bytes())).to_lowercase();
    let rest = rest.replace(['-', '_', '.', ':'], " ");
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let prefix = |w: &str| w.starts_with("bip0") || w.starts_with("mixamorig") || w == "def";
    if words.first().is_some_and(|w| prefix(w)) && words.len() > 1 {
        words.remove(0);
    }
    let joined = words.join("");
    let part = match joined.as_str() {
        "hips" => "pelvis",
        "upleg" | "upperleg" => "thigh",
        "leg" | "lowerleg" | "shin" => "calf",
        "toebase" | "toe" | "ball" => "toe0",
        "shoulder" => "clavicle",
        "arm" => "upperarm",
        "lowerarm" => "forearm",
        other => other,
    };
    side.map_or_else(|| part.to_owned(), |side| format!("{side}{part}"))
}

/// A map from source to target bones whose names normalise alike, in the
/// source's order; each target is used once.
pub fn suggest_map(source: &[String], target: &[String]) -> BoneMap {
    let mut by_key: HashMap<String, &String> = HashMap::new();
    for name in target.iter().rev() {
        by_key.insert(normalise(name), name);
    }
    let mut used = Vec::new();
    let mut pairs = Vec::new();
    for name in source {
        if let Some(found) = by_key.get(&normalise(name)).filter(|t| !used.contains(*t)) {
            used.push(*found);
            pairs.push((name.clone(), (*found).clone()));
        }
    }
    BoneMap(pairs)
}

/// The clip with its tracks renamed through `map`; tracks with no mapping
/// are dropped and their names returned. Keys are untouched (words kept).
pub fn rename(animation: &Animation, map: &BoneMap) -> (Animation, Vec<String>) {
    let mut dropped = Vec::new();
    let tracks = animation
        .tracks
        .iter()
        .filter_map(|track| match map.target_of(&track.bone) {
            Some(target) => Some(Track { bone: FileString::from(target), ..track.clone() }),
            None => {
                dropped.push(track.bone.to_text());
                None
            }
        })
        .collect();
    (Animation { tracks, ..animation.clone() }, dropped)
}

/// Retargets with both skeletons: each mapped target bone turns in model
/// space as its source bone turns away from the source's rest pose, after
/// the rest poses are aligned as `rest` says (see [`RestPoses`]); bones
/// keep the target's lengths (rest positions) unless the source bone rests
/// at the same offset, when its animated offset is kept; the root's travel
/// is scaled by the ratio of root heights at rest. Keys are at the source
/// track's times. The clip is in `animation`'s version, with the tracks of
/// mapped bones in the target's order.
pub fn retarget(animation: &Animation, map: &BoneMap, source: &Rig, target: &Rig, rest: RestPoses) -> Retargeted {
    Retargeter::new(map, &RetargetSource::of(source), target, rest).retarget(animation, map, source)
}

/// A retargeted clip and what was done to make it.
#[derive(Debug, Clone, PartialEq)]
pub struct Retargeted {
    /// The clip on the target skeleton.
    pub animation: Animation,
    /// Source tracks the map has no target for.
    pub dropped: Vec<String>,
    /// How the rest poses were aligned, a line each (see
    /// [`Retargeter::alignment_report`]).
    pub alignment: Vec<String>,
}

/// How the source's rest pose meets the target's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum RestPoses {
    /// Each mapped bone is first turned so that, at the source's rest
    /// pose, it points where its source bone points (from its joint to
    /// the next mapped joint down its chain): a T-pose rig's motion plays
    /// on an A-pose skeleton with the limbs where the source's are, not
    /// off by the difference of the rest poses. Where both rest alike the
    /// turns are nothing.
    #[default]
    Align,
    /// The source's rest pose becomes the target's: each bone turns from
    /// its own rest as its source turns from the source's. Right only when
    /// both skeletons rest alike.
    Keep,
}

/// How one target bone's rest was aligned to its source's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Alignment {
    /// Not aligned: no source bone, or the root (whose turn is the whole
    /// body's), or [`RestPoses::Keep`].
    None,
    /// Turned by this many degrees to point where its source points.
    Turned(f32),
    /// An end of a chain (a hand, a foot's toe, the head): no mapped joint
    /// below to point at, so it takes its nearest aligned parent's turn,
    /// this many degrees, twist included: it keeps its rest orientation
    /// to that bone, as the source's end keeps its own.
    AsParent(f32),
    /// Mapped, but no mapped joint further down its chain and no aligned
    /// bone above (a chain the source lacks): it turns as its source turns
    /// from rest, unaligned.
    NoDirection,
}

/// The skeleton poses come from: any hierarchy of named bones (a `.skl`,
/// a glTF node tree), in the engine's axes.
#[derive(Debug, Clone, PartialEq)]
pub struct RetargetSource {
    /// Bone names.
    pub names: Vec<String>,
    /// Each bone's parent.
    pub parents: Vec<Option<usize>>,
    /// Each bone's model-space rest pose.
    pub rest: Vec<BonePose>,
}

impl RetargetSource {
    /// A rig as a source.
    pub fn of(rig: &Rig) -> Self {
        Self {
            names: rig.names.iter().map(|n| bone_name(n).into_owned()).collect(),
            parents: rig.parents.clone(),
            rest: rig.unit_to_world(&rig.rest),
        }
    }
}

/// What turns a source pose into the target's: both rigs' model-space
/// rest poses, the bone correspondence and the root travel scale.
#[derive(Debug, Clone)]
pub struct Retargeter<'a> {
    target: &'a Rig,
    /// The target's model-space rest pose.
    rest: Vec<BonePose>,
    /// The source's parents and model-space rest pose.
    source_parents: Vec<Option<usize>>,
    source_rest: Vec<BonePose>,
    /// For each target bone, its source bone.
    from: Vec<Option<usize>>,
    /// The turn about Y that makes the source face as the target does.
    facing: glam::Quat,
    /// For each target bone, whether its source rests at the same offset
    /// from its parent (after scaling), so that its animated offset is kept.
    same_offset: Vec<bool>,
    /// Target root height over source root height, at rest.
    scale: f32,
    /// The top mapped bone: the first mapped bone no mapped bone is above
    /// (the root, or a rig's hips under an unmapped armature node). It
    /// carries the source's travel, scaled.
    top: Option<usize>,
    /// For each target bone, the model-space turn that lays its rest
    /// direction on its source's ([`RestPoses::Align`]), and what was done.
    align: Vec<(glam::Quat, Alignment)>,
}

impl<'a> Retargeter<'a> {
    /// The rig it retargets onto.
    pub fn target(&self) -> &Rig {
        self.target
    }

    /// `animation`, played on `source`, on the target through `map` (the
    /// map this retargeter was made with): a track for each mapped target
    /// bone whose source bone has one, a key at each of its keys' times.
    /// The source's model-space pose is composed once a key time, however
    /// many tracks key it (not once a key), so that one retargeter serves
    /// every clip of a rig.
    pub fn retarget(&self, animation: &Animation, map: &BoneMap, source: &Rig) -> Retargeted {
        let clip = Clip::new(animation);
        let mut worlds: BTreeMap<i32, Vec<BonePose>> = BTreeMap::new();
        let mut tracks = Vec::new();
        for (bone, src) in self.mapped() {
            let Some(track) = animation.track(&source.names[src]) else { continue };
            let mut keys = Vec::with_capacity(track.keys.len());
            for key in &track.keys {
                let world =
                    worlds.entry(key.time_ms).or_insert_with(|| source.unit_world_pose(&clip, key.time_ms as f32));
                let pose = self.local(world, bone);
                keys.push(Key::new(key.time_ms, pose.position, pose.rotation));
            }
            tracks.push(Track { bone: FileString::from(self.target.names[bone].clone()), weight: track.weight, keys });
        }
        let unmapped = animation.tracks.iter().filter(|t| map.target_of(&t.bone).is_none());
        let dropped = unmapped.map(|t| t.bone.to_text()).collect();
        Retargeted { animation: Animation { tracks, ..animation.clone() }, dropped, alignment: self.alignment_report() }
    }

    /// Matches `map`'s names in both skeletons. The scale is the target
    /// root's rest height over that of the source bone mapped to it (or
    /// of the source's first bone).
    pub fn new(map: &BoneMap, source: &RetargetSource, target: &'a Rig, rest_poses: RestPoses) -> Self {
        let source_names = BoneNames::new(&source.names);
        let from: Vec<Option<usize>> = (target.names.iter())
            .map(|name| {
                let name = bone_name(name);
                map.0.iter().find(|(_, to)| *to == name).and_then(|(from, _)| source_names.get(from.as_bytes()))
            })
            .collect();
        let rest = target.unit_to_world(&target.rest);
        let facing = facing(target, &from, &source.rest, &rest);
        let source_rest: Vec<BonePose> = source.rest.iter().map(|&pose| turned(facing, pose)).collect();
        let top = top_mapped(target, &from);
        let root = top.or(target.order.first().copied());
        let source_root = root.and_then(|r| from[r]).unwrap_or(0);
        let target_height = root.map_or(1.0, |r| rest[r].position.y);
        let scale = match source_rest.get(source_root).map_or(0.0, |p| p.position.y) {
            h if h.abs() > f32::EPSILON && target_height.abs() > f32::EPSILON => target_height / h,
            _ => 1.0,
        };
        let mut retargeter = Self {
            target,
            rest,
            source_parents: source.parents.clone(),
            source_rest,
            from,
            facing,
            same_offset: Vec::new(),
            scale,
            top,
            align: Vec::new(),
        };
        retargeter.same_offset = (0..target.len())
            .map(|bone| {
                let (Some(src), Some(_)) = (retargeter.from[bone], target.parents[bone]) else { return false };
                let offset = retargeter.source_offset(&retargeter.source_rest, src);
                let own = target.rest[bone].position;
                offset.distance(own) <= 1e-3 * own.length().max(1.0)
            })
            .collect();
        retargeter.align = (0..target.len())
            .map(|bone| match rest_poses {
                RestPoses::Align => retargeter.alignment(bone),
                RestPoses::Keep => (glam::Quat::IDENTITY, Alignment::None),
            })
            .collect();
        retargeter
    }

    /// The turn that lays target `bone`'s rest direction (from its joint
    /// to the next mapped joint down its chain) on its source's.
    fn alignment(&self, bone: usize) -> (glam::Quat, Alignment) {
        let none = (glam::Quat::IDENTITY, Alignment::None);
        let (Some(src), Some(_)) = (self.from[bone], self.target.parents[bone]) else { return none };
        let Some((child, src_child)) = self.chain_child(bone, src) else {
            return self.end_alignment(bone);
        };
        let own = self.rest[child].position - self.rest[bone].position;
        let wanted = self.source_rest[src_child].position - self.source_rest[src].position;
        match (own.try_normalize(), wanted.try_normalize()) {
            (Some(own), Some(wanted)) => {
                let turn = glam::Quat::from_rotation_arc(own, wanted);
                (turn, Alignment::Turned(own.angle_between(wanted).to_degrees()))
            }
            _ => (glam::Quat::IDENTITY, Alignment::NoDirection),
        }
    }

    /// An end bone's alignment: its nearest mapped ancestor's turn, when
    /// that one points somewhere.
    fn end_alignment(&self, bone: usize) -> (glam::Quat, Alignment) {
        let mut above = self.target.parents[bone];
        while let Some(parent) = above {
            if self.from[parent].is_some() {
                return match self.alignment(parent) {
                    (turn, Alignment::Turned(degrees) | Alignment::AsParent(degrees)) => {
                        (turn, Alignment::AsParent(degrees))
                    }
                    _ => (glam::Quat::IDENTITY, Alignment::NoDirection),
                };
            }
            above = self.target.parents[parent];
        }
        (glam::Quat::IDENTITY, Alignment::NoDirection)
    }

    /// The next mapped joint down `bone`'s chain, with its source: the
    /// first mapped descendant (no mapped bone between) whose source lies
    /// below `src`, on the bone's own side where there is a choice (a spine
    /// continues up its spine, not into an arm).
    fn chain_child(&self, bone: usize, src: usize) -> Option<(usize, usize)> {
        let below = |mut b: usize, top: usize, parents: &[Option<usize>]| {
            while let Some(p) = parents[b] {
                if p == top {
                    return true;
                }
                b = p;
            }
            false
        };
        let nearest_mapped = |mut b: usize| {
            while let Some(p) = self.target.parents[b] {
                if self.from[p].is_some() {
                    return Some(p);
                }
                b = p;
            }
            None
        };
        let side = side_of(&self.target.names[bone]);
        let candidates: Vec<(usize, usize)> = (self.target.order.iter())
            .filter_map(|&c| Some((c, self.from[c]?)))
            .filter(|&(c, sc)| nearest_mapped(c) == Some(bone) && below(sc, src, &self.source_parents))
            .collect();
        let same_side = candidates.iter().find(|&&(c, _)| side_of(&self.target.names[c]) == side);
        same_side.or(candidates.first()).copied()
    }

    /// How each target bone's rest was aligned to its source's.
    pub fn alignments(&self) -> impl Iterator<Item = (usize, Alignment)> + '_ {
        self.align.iter().enumerate().map(|(bone, (_, how))| (bone, *how))
    }

    /// The alignment in words: how many bones turned, the largest turns,
    /// and the mapped bones left unaligned.
    pub fn alignment_report(&self) -> Vec<String> {
        let name = |bone: usize| bone_name(&self.target.names[bone]).into_owned();
        let mut turned: Vec<(usize, f32)> = (self.alignments())
            .filter_map(|(bone, how)| match how {
                Alignment::Turned(degrees) if degrees >= 0.5 => Some((bone, degrees)),
                _ => None,
            })
            .collect();
        turned.sort_by(|a, b| b.1.total_cmp(&a.1));
        let unaligned: Vec<String> =
            self.alignments().filter(|(_, how)| *how == Alignment::NoDirection).map(|(bone, _)| name(bone)).collect();
        let mut lines = Vec::new();
        if !turned.is_empty() {
            let largest: Vec<String> =
                turned.iter().take(4).map(|&(bone, degrees)| format!("{} {degrees:.1}°", name(bone))).collect();
            lines.push(format!(
                "rest poses differ: {} bones turned to point as the source's do (largest: {})",
                turned.len(),
                largest.join(", ")
            ));
        }
        if !unaligned.is_empty() {
            lines.push(format!("no mapped joint below, so not aligned to the source's rest: {}", unaligned.join(", ")));
        }
        lines
    }

    /// Target bones with a source bone, parents first, with it.
    pub fn mapped(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.target.order.iter().filter_map(|&bone| self.from[bone].map(|src| (bone, src)))
    }

    /// The top mapped bone, which carries the source's travel: the root,
    /// or the hips of a rig whose armature node has no source.
    pub fn top(&self) -> Option<usize> {
        self.top
    }

    /// Target root height over source root height, at rest: what root
    /// travel and kept offsets are multiplied by.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// A source bone's offset from its parent in the parent's frame,
    /// scaled to the target's size, in the source pose `world`.
    fn source_offset(&self, world: &[BonePose], src: usize) -> glam::Vec3 {
        let parent = self.source_parents[src].map_or(BonePose::IDENTITY, |p| world[p]);
        parent.rotation.inverse() * (world[src].position - parent.position) * self.scale
    }

    /// A source bone's model-space pose turned to face as the target does.
    fn source_pose(&self, world: &[BonePose], src: usize) -> BonePose {
        turned(self.facing, world[src])
    }

    /// Target model-space rotation of `bone`: its source's turn from rest
    /// applied to its own rest; an unmapped bone follows its parent at rest.
    fn world_rotation(&self, world: &[BonePose], bone: usize) -> glam::Quat {
        match (self.from[bone], self.target.parents[bone]) {
            (Some(src), _) => {
                self.source_pose(world, src).rotation
                    * self.source_rest[src].rotation.inverse()
                    * self.align[bone].0
                    * self.rest[bone].rotation
            }
            (None, Some(parent)) => self.world_rotation(world, parent) * self.target.rest[bone].rotation.normalize(),
            (None, None) => self.rest[bone].rotation,
        }
    }

    /// The pose, relative to its parent, of target `bone` for the source's
    /// model-space pose `world`: the target's bone length (or the source's
    /// animated offset where both rest alike), and for the root the source's
    /// position scaled.
    pub fn local(&self, world: &[BonePose], bone: usize) -> BonePose {
        let rotation = self.world_rotation(world, bone);
        match (self.target.parents[bone], self.from[bone]) {
            // The top mapped bone under unmapped ones (at rest): the
            // source's travel, scaled, in its parent's frame.
            (Some(parent), Some(src)) if self.top == Some(bone) => {
                let parent_rotation = self.world_rotation(world, parent);
                let travel = self.source_pose(world, src).position * self.scale - self.rest[parent].position;
                BonePose {
                    position: parent_rotation.inverse() * travel,
                    rotation: parent_rotation.inverse() * rotation,
                }
            }
            (Some(parent), src) => BonePose {
                position: match src {
                    Some(src) if self.same_offset[bone] => self.source_offset(world, src),
                    _ => self.target.rest[bone].position,
                },
                rotation: self.world_rotation(world, parent).inverse() * rotation,
            },
            (None, Some(src)) => BonePose { position: self.source_pose(world, src).position * self.scale, rotation },
            (None, None) => self.target.rest[bone],
        }
    }
}

/// The first mapped bone, parents first, with no mapped bone above it.
fn top_mapped(target: &Rig, from: &[Option<usize>]) -> Option<usize> {
    let mapped_above = |mut bone: usize| {
        while let Some(parent) = target.parents[bone] {
            if from[parent].is_some() {
                return true;
            }
            bone = parent;
        }
        false
    };
    target.order.iter().copied().find(|&bone| from[bone].is_some() && !mapped_above(bone))
}

/// A model-space pose turned about the model's origin.
fn turned(turn: glam::Quat, pose: BonePose) -> BonePose {
    BonePose { position: turn * pose.position, rotation: turn * pose.rotation }
}

/// The quarter turn about Y that lays the source's left-to-right
/// direction on the target's, from the rest positions of mapped bone pairs
/// named alike but for their side (thighs, upper arms, ...), rounded to the
/// axes rigs face along: a rig facing +Z (Mixamo) onto one facing -Z, or a
/// scene that turned the whole rig. Rounding keeps a difference of pose
/// from passing for one of facing. Identity when no pair is mapped.
fn facing(target: &Rig, from: &[Option<usize>], source_rest: &[BonePose], target_rest: &[BonePose]) -> glam::Quat {
    let keys: Vec<String> = target.names.iter().map(|n| normalise(&bone_name(n))).collect();
    let flat = |p: glam::Vec3| glam::Vec2::new(p.x, p.z);
    let (mut source, mut target_side) = (glam::Vec2::ZERO, glam::Vec2::ZERO);
    for (left, key) in keys.iter().enumerate() {
        let Some(part) = key.strip_prefix('l') else { continue };
        let Some(right) = keys.iter().position(|k| k.strip_prefix('r') == Some(part)) else { continue };
        if let (Some(l), Some(r)) = (from[left], from[right]) {
            source += flat(source_rest[l].position - source_rest[r].position).normalize_or_zero();
            target_side += flat(target_rest[left].position - target_rest[right].position).normalize_or_zero();
        }
    }
    let quarters = (source.perp_dot(target_side).atan2(source.dot(target_side)) / std::f32::consts::FRAC_PI_2).round();
    if source == glam::Vec2::ZERO || target_side == glam::Vec2::ZERO || quarters == 0.0 {
        return glam::Quat::IDENTITY;
    }
    // (x, z) turned towards z is a turn the other way about Y.
    glam::Quat::from_rotation_y(-quarters * std::f32::consts::FRAC_PI_2)
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::anim::axes::{mirror_position, mirror_rotation, mirror_x_position, mirror_x_rotation};
    use crate::anim::biped;
    use crate::format::Skeleton;

    fn walk() -> Animation {
        let bytes = std::fs::read(format!("{}/assets/biped_walk_4002.ani", env!("CARGO_MANIFEST_DIR"))).unwrap();
        Animation::from_bytes(&bytes).unwrap()
    }

    fn names(skeleton: &Skeleton) -> Vec<String> {
        skeleton.bones.iter().map(|b| b.name.to_text()).collect()
    }

    #[test]
    fn maps_parse_and_print() {
        let map = BoneMap::parse("# Biped to Mixamo\nBip01 L Thigh = LeftUpLeg\n\n; more\nBip01 Head=Head\n").unwrap();
        assert_eq!(map.target("Bip01 Head"), Some("Head"));
        assert_eq!(BoneMap::parse(&map.to_text()).unwrap(), map);
        let error = BoneMap::parse("a = b\nno equals sign").unwrap_err();
        assert_eq!(error, BoneMapError::Line { line: 2, text: "no equals sign".into() });
    }

    #[cfg(any(feature = "json", feature = "gltf", feature = "plugin"))]
    #[test]
    fn maps_read_as_lines_or_json() {
        let json = BoneMap::read("{\n  \"Bip01 Head\": \"Head\"\n}").unwrap();
        assert_eq!(json, BoneMap::read("Bip01 Head = Head").unwrap());
        let error = BoneMap::read("{\n  \"a\": 3\n}").unwrap_err();
        assert!(matches!(error, BoneMapError::Json { line: 2, .. }), "{error}");
    }

    #[test]
    fn names_normalise_across_rigs() {
        for (a, b) in [
            ("Bip01 L UpperArm", "Bip001 L UpperArm"),
            ("Bip01 L UpperArm", "Bip01-L-UpperArm"),
            ("Bip01 L UpperArm", "LeftArm"),
            ("Bip01 R Thigh", "mixamorig:RightUpLeg"),
            ("Bip01 L Calf", "LeftLeg"),
            ("Bip01 Pelvis", "Hips"),
            ("Bip01 R Clavicle", "RightShoulder"),
            ("Bip01 L UpperArm", "upper_arm.L"),
            ("Bip01 L UpperArm", "DEF-upper_arm.L"),
            ("Bip01 R Calf", "shin.R"),
            ("Bip01 L Forearm", "lowerarm_l"),
            ("Bip01 R Thigh", "thigh_r"),
            ("Bip01 L Toe0", "ball_l"),
            ("Bip01 L Hand", "mixamorig1:LeftHand"),
        ] {
            assert_eq!(normalise(a), normalise(b), "{a} / {b}");
        }
        assert_ne!(normalise("Bip01 L Hand"), normalise("Bip01 R Hand"));
        let biped = names(&biped::skeleton());
        let other: Vec<String> =
            ["Hips", "LeftUpLeg", "RightUpLeg", "Spine", "Head", "LeftArm", "Tail"].map(String::from).to_vec();
        let map = suggest_map(&biped, &other);
        assert_eq!(map.target("Bip01 Pelvis"), Some("Hips"));
        assert_eq!(map.target("Bip01 L Thigh"), Some("LeftUpLeg"));
        assert_eq!(map.target("Bip01 L UpperArm"), Some("LeftArm"));
        assert_eq!(map.0.len(), 6);
    }

    #[test]
    fn renaming_drops_unmapped_tracks_and_keeps_words() {
        let walk = walk();
        let map = BoneMap(vec![("Bip01".into(), "root".into()), ("Bip01 Head".into(), "head".into())]);
        let (renamed, dropped) = rename(&walk, &map);
        assert_eq!(renamed.tracks.len(), 2);
        assert_eq!(dropped.len(), walk.tracks.len() - 2);
        assert_eq!(renamed.track(b"head").unwrap().keys, walk.track(b"Bip01 Head").unwrap().keys);
    }

    #[test]
    fn retargeting_to_the_same_rig_changes_nothing_and_scales_the_root() {
        let skeleton = biped::skeleton();
        let rig = Rig::new(&skeleton).unwrap();
        let walk = walk();
        let identity = suggest_map(&names(&skeleton), &names(&skeleton));
        let Retargeted { animation: same, dropped, alignment } =
            retarget(&walk, &identity, &rig, &rig, RestPoses::Align);
        assert!(dropped.is_empty());
        assert!(alignment.iter().all(|line| !line.contains("turned")), "alike rests need no turn: {alignment:?}");
        for t in [0.0, 333.0, 750.0] {
            let (a, b) = (rig.world_pose(&Clip::new(&walk), t), rig.world_pose(&Clip::new(&same), t));
            // 4002 rotations are not exactly unit length; composing and
            // inverting them again moves joints by hundredths of a unit.
            for (x, y) in a.iter().zip(&b) {
                assert!(x.position.abs_diff_eq(y.position, 5e-2), "{} vs {}", x.position, y.position);
            }
        }
        // A target with its root twice as high, and every other bone's
        // frame turned in its rest pose (as rigs from other tools orient
        // their bones differently) while the joints stay where they were:
        // the walk travels twice as far and each foot turns as the source's.
        let mut tall = skeleton.clone();
        tall.bones[0].position *= Vec3::new(1.0, 2.0, 1.0);
        let twist = |bone: usize| if bone == 0 { Quat::IDENTITY } else { Quat::from_rotation_x(0.5) };
        for (i, bone) in tall.bones.iter_mut().enumerate() {
            let parent_twist = rig.parents[i].map_or(Quat::IDENTITY, twist).inverse();
            bone.position = parent_twist * bone.position;
            bone.rotation = parent_twist * bone.rotation * twist(i);
        }
        let tall_rig = Rig::new(&tall).unwrap();
        let moved = retarget(&walk, &identity, &rig, &tall_rig, RestPoses::Align).animation;
        let travel = |a: &Animation, r: &Rig| {
            r.world_pose(&Clip::new(a), 1000.0)[0].position.z - r.world_pose(&Clip::new(a), 0.0)[0].position.z
        };
        assert!((travel(&moved, &tall_rig) - 2.0 * travel(&walk, &rig)).abs() < 1e-2);
        let turn = |a: &Animation, r: &Rig, t: f32| {
            let w = r.world_pose(&Clip::new(a), t);
            let rest = r.to_world(&r.rest);
            let foot = r.bone(b"Bip01 L Foot").unwrap();
            w[foot].rotation * rest[foot].rotation.inverse()
        };
        for t in [100.0, 600.0] {
            let (a, b) = (turn(&moved, &tall_rig, t), turn(&walk, &rig, t));
            assert!(a.normalize().dot(b.normalize()).abs() > 0.9999, "the foot turns alike at {t}: {a} vs {b}");
        }
    }

    #[test]
    fn retargeting_onto_the_biped_exported_in_metres_keeps_every_joint() {
        // The crate's glTF export as the plugin reads it back: positions in
        // metres, rotations normalised, glTF's X mirror read through the
        // plugin's Z mirror (the whole rig turned half round about Y). The
        // exact geometry of the keys must come through: a joint off by more
        // than a thousandth of a unit is the retargeter's doing (measured:
        // 0.0001, float rounding).
        let skeleton = biped::skeleton();
        let source = Rig::new(&skeleton).unwrap();
        let scale = 0.01;
        let mut target = source.clone();
        for pose in &mut target.rest {
            *pose = BonePose {
                position: mirror_position(mirror_x_position(pose.position)) * scale,
                rotation: mirror_rotation(mirror_x_rotation(pose.rotation).normalize()),
            };
        }
        let walk = walk();
        let identity = suggest_map(&names(&skeleton), &names(&skeleton));
        let made = retarget(&walk, &identity, &source, &target, RestPoses::Align);
        assert!(made.alignment.is_empty(), "alike rests need no turn: {:?}", made.alignment);
        let back = Quat::from_rotation_y(std::f32::consts::PI);
        for t in (0..=walk.total_ms).step_by(50).map(|t| t as f32) {
            let want = source.unit_world_pose(&Clip::new(&walk), t);
            let got = target.unit_world_pose(&Clip::new(&made.animation), t);
            for (bone, (a, b)) in want.iter().zip(&got).enumerate() {
                let gap = a.position.distance(back * b.position / scale);
                assert!(gap < 1e-3, "{} at {t} ms: {gap} units off", target.names[bone].escape_ascii());
            }
        }
    }

    /// The Biped with its upper arms raised at rest by `degrees` about the
    /// forward axis (towards a T-pose), joints below them kept as they are
    /// relative to the arm.
    fn raised_arms(degrees: f32) -> Skeleton {
        let mut skeleton = biped::skeleton();
        let rig = Rig::new(&skeleton).unwrap();
        let rest = rig.to_world(&rig.rest);
        for side in ["L", "R"] {
            let arm = rig.bone(format!("Bip01 {side} UpperArm").as_bytes()).unwrap();
            let parent = rig.parents[arm].unwrap();
            let outwards = rest[arm].position.x.signum();
            // A turn about the model's forward axis (Z) in the parent's frame.
            let turn = Quat::from_rotation_z(outwards * degrees.to_radians());
            let local_turn = rest[parent].rotation.inverse() * turn * rest[parent].rotation;
            skeleton.bones[arm].rotation = local_turn * skeleton.bones[arm].rotation;
        }
        skeleton
    }

    /// World direction from `bone` to `child`.
    fn direction(rig: &Rig, world: &[BonePose], bone: &str, child: &str) -> Vec3 {
        let (b, c) = (rig.bone(bone.as_bytes()).unwrap(), rig.bone(child.as_bytes()).unwrap());
        (world[c].position - world[b].position).normalize()
    }

    #[test]
    fn a_source_resting_otherwise_moves_the_limbs_where_its_own_point() {
        // The same motion on a skeleton resting with raised arms (as a
        // T-pose rig rests): the walk's keys are whole local poses, so the
        // source's limbs move exactly as on the Biped; only the rest poses
        // differ, which copying turns from rest would add to the arms.
        let target = Rig::new(&biped::skeleton()).unwrap();
        let source = Rig::new(&raised_arms(70.0)).unwrap();
        let walk = walk();
        let map = suggest_map(&names(&biped::skeleton()), &names(&biped::skeleton()));
        let aligned = retarget(&walk, &map, &source, &target, RestPoses::Align);
        assert!(aligned.alignment.iter().any(|l| l.contains("UpperArm 70.0°")), "{:?}", aligned.alignment);
        let kept = retarget(&walk, &map, &source, &target, RestPoses::Keep).animation;
        for t in [0.0, 400.0] {
            let from = source.world_pose(&Clip::new(&walk), t);
            let onto = target.world_pose(&Clip::new(&aligned.animation), t);
            let old = target.world_pose(&Clip::new(&kept), t);
            for side in ["L", "R"] {
                let (arm, forearm) = (format!("Bip01 {side} UpperArm"), format!("Bip01 {side} Forearm"));
                let want = direction(&source, &from, &arm, &forearm);
                let got = direction(&target, &onto, &arm, &forearm).angle_between(want).to_degrees();
                let off = direction(&target, &old, &arm, &forearm).angle_between(want).to_degrees();
                assert!(got < 1.0, "{side} arm at {t} ms: {got}° from the source's");
                assert!(off > 60.0, "keeping the rests leaves it {off}° off");
            }
        }
    }
}
