//! io3D clips on any rig: a player with [`AniRetarget`] plays each clip
//! retargeted at run time onto the bones below it (a Mixamo or Blender
//! character loaded by bevy_gltf, a rig of another skeleton), by the
//! library's retargeter ([`mod@crate::anim::retarget`]): a bone map, rest
//! poses aligned so that limbs point where the source's point, and the
//! source's travel carried by the top mapped bone (the hips under an
//! armature node), scaled by the ratio of hip heights.
//!
//! A retargeted clip is made once per clip, source skeleton, map and rig
//! shape (names, parents and rest poses), and shared by every rig of that
//! shape ([`RetargetedClips`]); a reloaded clip or skeleton is made again.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetId, AssetLoader, Assets, Handle, LoadContext};
use bevy::ecs::prelude::*;
use bevy::reflect::{Reflect, TypePath};

use crate::anim::retarget::{RetargetSource, Retargeter, suggest_map};
use crate::anim::{BoneMap, BoneNames, BonePose, Clip, RestPoses, Rig};

use super::assets::{AniClip, Io3dLoadError, SklSkeleton, read_all};
use super::binding::AniBinding;

/// Put on a player to play its clips retargeted onto its bones.
#[derive(Component, Debug, Clone, Reflect)]
#[reflect(Component)]
pub struct AniRetarget {
    /// The skeleton the clips were made on (the game's `biped.skl`): its
    /// rest pose is what the clips' motion is measured from.
    pub source: Handle<SklSkeleton>,
    /// Which source bone drives which of the player's bones.
    #[reflect(ignore)]
    pub map: RetargetMap,
}

/// Where a retargeting player's bone map comes from.
#[derive(Debug, Clone, Default)]
pub enum RetargetMap {
    /// Suggested from the names ([`suggest_map`]: Biped, Mixamo, `.L`/`.R`,
    /// `_l`/`_r`, `left_`/`right_`).
    #[default]
    Suggested,
    /// Given in code: source bone name to the player's bone name.
    Given(BoneMap),
    /// A map file loaded as an asset ([`AniBoneMap`]); the player waits
    /// for it, and editing it remakes the player's clips.
    File(Handle<AniBoneMap>),
}

impl AniRetarget {
    /// Clips made on `source`, with a bone map suggested from the names.
    pub fn new(source: Handle<SklSkeleton>) -> Self {
        Self { source, map: RetargetMap::Suggested }
    }

    /// The same with the bone map given.
    pub fn with_map(self, map: BoneMap) -> Self {
        Self { map: RetargetMap::Given(map), ..self }
    }

    /// The same with the bone map of a file (`*.bonemap`).
    pub fn with_map_file(self, map: Handle<AniBoneMap>) -> Self {
        Self { map: RetargetMap::File(map), ..self }
    }
}

/// A bone map file: `source = target` lines or a JSON object, as
/// `io3d retarget --map` reads it ([`BoneMap::read`]), loaded from files
/// named `*.bonemap` or `*.bonemap.txt`.
#[derive(Asset, TypePath, Debug, Clone, PartialEq)]
pub struct AniBoneMap(pub BoneMap);

/// Loads [`AniBoneMap`]s.
#[derive(Debug, Default, TypePath)]
pub struct BoneMapLoader;

impl AssetLoader for BoneMapLoader {
    type Asset = AniBoneMap;
    type Settings = ();
    type Error = Io3dLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        _: &mut LoadContext<'_>,
    ) -> Result<AniBoneMap, Io3dLoadError> {
        let bytes = read_all(reader).await?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not UTF-8 text: {e}")))?;
        Ok(AniBoneMap(BoneMap::read(text)?))
    }

    fn extensions(&self) -> &[&str] {
        &["bonemap", "bonemap.txt"]
    }
}

/// What a player plays instead of a clip's own tracks: the clip made for
/// its rig, and the bone that carries the travel (its root bone for root
/// motion).
#[derive(Debug, Clone)]
pub struct RetargetedClip {
    /// The clip on the player's bones.
    pub clip: Arc<Clip>,
    /// The player's bone that carries the source's travel.
    pub travel_bone: Option<String>,
}

/// What a player's clips are retargeted with, once all of it has loaded.
#[derive(Debug, Clone, Copy)]
pub(super) struct Retargeting<'a> {
    /// The source skeleton's asset.
    pub source_id: AssetId<SklSkeleton>,
    /// The source skeleton.
    pub source: &'a SklSkeleton,
    /// The map given or loaded; `None` for a suggested one.
    pub map: Option<&'a BoneMap>,
}

impl<'a> Retargeting<'a> {
    /// `settings` with its skeleton and map file, `None` while either is
    /// still loading.
    pub(super) fn of(
        settings: &'a AniRetarget,
        skeletons: &'a Assets<SklSkeleton>,
        maps: &'a Assets<AniBoneMap>,
    ) -> Option<Self> {
        let map = match &settings.map {
            RetargetMap::Suggested => None,
            RetargetMap::Given(map) => Some(map),
            RetargetMap::File(file) => Some(&maps.get(file)?.0),
        };
        let source = skeletons.get(&settings.source)?;
        Some(Self { source_id: settings.source.id(), source, map })
    }

    /// Whether this retargeting is made from a file in `changed`.
    pub(super) fn uses(
        settings: &AniRetarget,
        skeletons: &[AssetId<SklSkeleton>],
        maps: &[AssetId<AniBoneMap>],
    ) -> bool {
        let map_changed = matches!(&settings.map, RetargetMap::File(file) if maps.contains(&file.id()));
        map_changed || skeletons.contains(&settings.source.id())
    }
}

/// Every retargeted clip made so far, by clip, source skeleton and rig
/// shape.
#[derive(Resource, Debug, Default)]
pub struct RetargetedClips(HashMap<(AssetId<AniClip>, AssetId<SklSkeleton>, u64), RetargetedClip>);

impl RetargetedClips {
    /// Each of `clips` retargeted onto the player's bones, in order: shared
    /// where made already, else made now. The bones are read as a rig, and
    /// the map suggested, once for them all; the retargeter is built once,
    /// and only when a clip must be made.
    pub(super) fn get(
        &mut self,
        clips: &[(AssetId<AniClip>, &AniClip)],
        with: Retargeting,
        binding: &AniBinding,
    ) -> Vec<RetargetedClip> {
        if clips.is_empty() {
            return Vec::new();
        }
        let Retargeting { source_id, source, map } = with;
        let target = target_rig(binding);
        let map = map.cloned().unwrap_or_else(|| suggested(&source.rig, &target));
        let shape = shape(&target, &map);
        let mut retargeter = None;
        let mut made = Vec::with_capacity(clips.len());
        for &(id, clip) in clips {
            let key = (id, source_id, shape);
            if let Some(shared) = self.0.get(&key) {
                made.push(shared.clone());
                continue;
            }
            let retargeter = retargeter.get_or_insert_with(|| {
                Retargeter::new(&map, &RetargetSource::of(&source.rig), &target, RestPoses::Align)
            });
            let new = make(clip, retargeter, &map, &source.rig);
            self.0.insert(key, new.clone());
            made.push(new);
        }
        made
    }

    /// Forgets what was made from a clip or a skeleton whose file changed
    /// (a changed map file makes another key).
    pub(super) fn forget(&mut self, clips: &[AssetId<AniClip>], skeletons: &[AssetId<SklSkeleton>]) {
        self.0.retain(|(clip, source, _), _| !clips.contains(clip) && !skeletons.contains(source));
    }
}

fn make(clip: &AniClip, retargeter: &Retargeter, map: &BoneMap, source: &Rig) -> RetargetedClip {
    let made = retargeter.retarget(&clip.animation, map, source);
    let travel_bone =
        retargeter.top().map(|bone| crate::anim::names::bone_name(&retargeter.target().names[bone]).into_owned());
    let mut played = Clip::new(&made.animation);
    // The clip's events (an `.ant` sidecar's too) as the player fires them.
    played.events.clone_from(&clip.clip.events);
    RetargetedClip { clip: Arc::new(played), travel_bone }
}

fn suggested(source: &Rig, target: &Rig) -> BoneMap {
    let names = |rig: &Rig| rig.names.iter().map(|n| crate::anim::names::bone_name(n).into_owned()).collect();
    let (source, target): (Vec<String>, Vec<String>) = (names(source), names(target));
    suggest_map(&source, &target)
}

/// The bones below a player as a rig in the files' axes: names as they
/// bind, parents, and rest poses (found breadth first, so parents come
/// first).
fn target_rig(binding: &AniBinding) -> Rig {
    let names: Vec<Vec<u8>> = binding.bones.iter().map(|b| b.key.clone()).collect();
    Rig {
        by_name: BoneNames::new(&names),
        names,
        rest: binding.rest.to_vec(),
        inverse_binds: vec![BonePose::IDENTITY; binding.bones.len()],
        order: (0..binding.bones.len()).collect(),
        parents: binding.bones.iter().map(|b| b.parent).collect(),
    }
}

/// A rig's shape and the map, hashed: what makes two rigs play one
/// retargeted clip.
fn shape(rig: &Rig, map: &BoneMap) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    rig.names.hash(&mut hasher);
    rig.parents.hash(&mut hasher);
    for pose in &rig.rest {
        pose.position.to_array().map(f32::to_bits).hash(&mut hasher);
        pose.rotation.to_array().map(f32::to_bits).hash(&mut hasher);
    }
    map.0.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::binding::biped;

    /// The Biped's walk retargeted onto bones shaped as the Biped itself:
    /// the bones must end where the walk puts them, and the root carries
    /// the travel. Made once a clip and rig shape, shared after, made again
    /// once its file is forgotten; another shape gets its own.
    #[test]
    fn a_clip_is_made_once_a_rig_shape_and_onto_its_own_shape_plays_as_itself() {
        let mut world = World::new();
        let (source, walk) = biped::skeleton_and_walk();
        let rig = &source.rig;
        let walk_id = AssetId::<AniClip>::default();
        let binding = biped::binding(biped::bones(&mut world, rig), (walk_id, &walk));
        let with = Retargeting { source_id: AssetId::default(), source: &source, map: None };
        let mut made = RetargetedClips::default();

        let first = made.get(&[(walk_id, &walk)], with, &binding).remove(0);
        assert_eq!(first.travel_bone.as_deref(), Some(crate::anim::biped::ROOT));
        for t in [0.0, 333.0, 1000.0] {
            let (own, moved) = (rig.unit_world_pose(&walk.clip, t), rig.unit_world_pose(&first.clip, t));
            for (bone, (own, moved)) in own.iter().zip(&moved).enumerate() {
                let gap = own.position.distance(moved.position);
                assert!(gap < 1e-2, "bone {bone} at {t} ms is {gap} from where the walk puts it");
            }
        }
        let again = made.get(&[(walk_id, &walk)], with, &binding).remove(0);
        assert!(Arc::ptr_eq(&first.clip, &again.clip), "shared, not made again");

        let mut other = binding.clone();
        let mut rest = other.rest.to_vec();
        rest[1].position.y += 1.0;
        other.rest = rest.into();
        let reshaped = made.get(&[(walk_id, &walk)], with, &other).remove(0);
        assert!(!Arc::ptr_eq(&first.clip, &reshaped.clip), "another rig shape has its own");

        made.forget(&[walk_id], &[]);
        let remade = made.get(&[(walk_id, &walk)], with, &binding).remove(0);
        assert!(!Arc::ptr_eq(&first.clip, &remade.clip), "a reloaded clip is made again");
    }
}
