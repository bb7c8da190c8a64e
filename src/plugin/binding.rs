//! Binding clips to the bones below a player, by name.

use std::sync::Arc;

use bevy::asset::AssetId;
use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::prelude::*;
use bevy::math::{Affine3A, Vec3};
use bevy::reflect::{Reflect, std_traits::ReflectDefault};
use bevy::transform::components::Transform;

use crate::anim::retarget::suggest_map;
use crate::anim::{BoneMap, BoneNames, BonePose, Clip, Rig};

use super::assets::AniClip;
use super::axes::Axes;
use super::palette::{inverse_bind, palette_index};

/// A bone below a player.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Bone {
    pub entity: Entity,
    pub name: String,
    /// The bytes tracks are compared with: its [`FileBoneName`], or else
    /// its `Name`'s UTF-8.
    pub key: Vec<u8>,
    /// Its rest transform, where it returns when no clip drives it.
    pub rest: Transform,
    /// The nearest bone above it, by index; `None` below the player.
    pub parent: Option<usize>,
    /// The entities that are not bones between that bone (or the player)
    /// and this one, top down: usually none.
    pub between: Vec<Entity>,
}

/// How one clip's tracks meet the bones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClipBinding {
    /// For each track, the index of the bone it drives among the player's
    /// bones; `None` when no bone has its name (the client would drive the
    /// root with it; we skip it).
    pub(super) tracks: Arc<[Option<usize>]>,
    /// Tracks no bone has the name of.
    pub unbound_tracks: Vec<String>,
    /// Named entities below the player that no track names: they stay at
    /// rest while this clip plays alone.
    pub bones_without_track: Vec<String>,
    /// Where the clip puts the root bone at its start and at its end, when
    /// a track drives the root: root motion reads them every frame.
    pub(super) root_ends: Option<(BonePose, BonePose)>,
    /// The tracks that drive the root bone, in track order: found once
    /// here, since root motion samples them twice a frame.
    pub(super) root_tracks: Arc<[usize]>,
    /// The clip made for these bones, when the player retargets
    /// ([`super::retarget`]): played instead of the clip's own tracks.
    pub(super) retargeted: Option<Arc<Clip>>,
}

impl ClipBinding {
    /// What plays: the retargeted clip, or the clip's own.
    pub(super) fn played<'a>(&'a self, own: &'a Clip) -> &'a Clip {
        self.retargeted.as_deref().unwrap_or(own)
    }
}

/// How a rebind changed the bones a player writes
/// ([`AniBinding::take_ownership`]).
#[derive(Default)]
pub(super) struct Ownership {
    /// Bones below it that it writes no more, with their rest transforms.
    pub released: Vec<(Entity, Transform)>,
    /// Bones it wrote that are no longer below it.
    pub left: Vec<Entity>,
    /// Bones it writes now and did not, with their indices.
    pub gained: Vec<(usize, Entity)>,
}

/// A bone right below the player in [`AniBinding::parents`].
pub(super) const NO_PARENT: u32 = u32::MAX;

/// Each clip a player plays with how it binds: a handful, so a list
/// searched in order beats hashing (this is looked up every frame).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ClipBindings(Vec<(AssetId<AniClip>, ClipBinding)>);

impl ClipBindings {
    pub fn get(&self, clip: AssetId<AniClip>) -> Option<&ClipBinding> {
        self.0.iter().find(|(id, _)| *id == clip).map(|(_, binding)| binding)
    }

    pub fn contains(&self, clip: AssetId<AniClip>) -> bool {
        self.get(clip).is_some()
    }

    /// The clips bound.
    pub fn ids(&self) -> impl Iterator<Item = AssetId<AniClip>> + '_ {
        self.0.iter().map(|(id, _)| *id)
    }

    /// Adds or replaces the binding of `clip`.
    pub fn insert(&mut self, clip: AssetId<AniClip>, binding: ClipBinding) {
        self.0.retain(|(id, _)| *id != clip);
        self.0.push((clip, binding));
    }

    pub fn retain(&mut self, keep: impl Fn(AssetId<AniClip>) -> bool) {
        self.0.retain(|(id, _)| keep(*id));
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// Marks a bone a player writes, with the player: the bones of a rig
/// spawned from a skeleton, or the named descendants a playing clip's
/// track names. A player writes no other entity below it, so a game's own
/// children under a rig (attachments, camera booms), named or not, are
/// left alone; nor anything below a nested player.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct Io3dBone {
    /// The player that writes it.
    pub player: Entity,
    /// Its index among the player's bones (the order [`AniBinding`]
    /// found them in, breadth first), where the world-pose path
    /// ([`PoseOutput::GlobalTransform`](super::PoseOutput::GlobalTransform)) keeps its pose.
    pub index: usize,
}

/// A bone's name as its file stores it, where that is not the UTF-8 of its
/// `Name`: a skeleton's CP949 name, which its `Name` holds decoded. Tracks
/// bind by these bytes, as the client compares them
/// ([`crate::anim::names`]), so a CP949 track binds its CP949 bone and not
/// a bone spelt in UTF-8.
#[derive(Component, Debug, Clone, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct FileBoneName(pub Vec<u8>);

/// The bones below a player and how each playing clip's tracks meet them,
/// kept up to date when clips, files or the hierarchy change.
#[derive(Component, Debug, Clone, Default, Reflect)]
#[reflect(Component, Default)]
pub struct AniBinding {
    #[reflect(ignore)]
    pub(super) bones: Vec<Bone>,
    /// The bones' rest poses in the files' axes, for `rest_axes`: shared
    /// by every player of a skeleton on the palette path, so that a
    /// crowd's blends start from one copy in the cache.
    #[reflect(ignore)]
    pub(super) rest: Arc<[BonePose]>,
    #[reflect(ignore)]
    pub(super) rest_axes: Option<Axes>,
    #[reflect(ignore)]
    pub(super) built: bool,
    #[reflect(ignore)]
    pub(super) main_bound: bool,
    #[reflect(ignore)]
    pub(super) by_name: BoneNames,
    #[reflect(ignore)]
    pub(super) clips: ClipBindings,
    /// For each bone, whether the player writes it ([`Io3dBone`]).
    #[reflect(ignore)]
    pub(super) owned: Vec<bool>,
    /// The bones the player wrote before its bones were found again
    /// ([`AniBinding::set_bones`]): released unless it still writes them.
    #[reflect(ignore)]
    pub(super) were_owned: Vec<Entity>,
    /// Whether the player writes every bone, each of unit scale right
    /// below a bone or the player: then one chain of the client's
    /// arithmetic composes the world pose.
    #[reflect(ignore)]
    pub(super) one_chain: bool,
    /// Each bone's parent bone ([`Bone::parent`]) packed small, for the
    /// world-pose path's pass over every bone of every player each frame
    /// ([`NO_PARENT`] below the player).
    #[reflect(ignore)]
    pub(super) parents: Arc<[u32]>,
    /// The bones' stored inverse binds, in their order, on the palette
    /// path ([`super::palette`]); empty on the others.
    #[reflect(ignore)]
    pub(super) inverse_binds: Arc<[Affine3A]>,
    /// The root bone's name as the clips were bound, and its index.
    #[reflect(ignore)]
    pub(super) root: (String, Option<usize>),
    /// Tracks of the main clip ([`AniPlayer::clip`](super::AniPlayer::clip)) that no bone has the
    /// name of.
    pub unbound_tracks: Vec<String>,
    /// Named entities below the player that no track of the main clip
    /// drives.
    pub bones_without_track: Vec<String>,
    /// When fewer than half of the main clip's tracks bind: a bone map from
    /// its track names to the bones' names, suggested by the loose rule
    /// ([`crate::anim::retarget::suggest_map`]), in the text form `io3d
    /// retarget --map` reads. The player logs it once, with the counts.
    #[reflect(ignore)]
    pub suggested_map: Option<BoneMap>,
}

impl AniBinding {
    /// Whether the bones are known and the main clip (if any is set) has
    /// been bound to them; on an [`SklRig`](super::SklRig), once its bones are spawned.
    pub fn is_bound(&self) -> bool {
        self.built && self.main_bound
    }

    /// How `clip`'s tracks met the bones, once it has been bound.
    pub fn clip(&self, clip: AssetId<AniClip>) -> Option<&ClipBinding> {
        self.clips.get(clip)
    }

    /// Each bone entity a track of `clip` (bound, with its asset `own`)
    /// drives, with the track's name: the retargeted clip's, when the
    /// player retargets. None on the palette path, which has no bone
    /// entities.
    pub fn driven(&self, clip: AssetId<AniClip>, own: &AniClip) -> Vec<(Entity, String)> {
        let Some(bound) = self.clips.get(clip) else { return Vec::new() };
        let played = bound.played(&own.clip);
        let tracks = played.tracks.iter().zip(bound.tracks.iter());
        tracks
            .filter_map(|(track, bone)| Some((self.bones[(*bone)?].entity, track.bone.name_text().into_owned())))
            .filter(|(entity, _)| *entity != Entity::PLACEHOLDER)
            .collect()
    }

    /// Each bone found below the player with the bone above it: (parent,
    /// child) entities, parents first, to draw the skeleton by (none on
    /// the palette path).
    pub fn bone_links(&self) -> impl Iterator<Item = (Entity, Entity)> + '_ {
        let links = self.bones.iter().filter_map(|bone| Some((self.bones[bone.parent?].entity, bone.entity)));
        links.filter(|(_, child)| *child != Entity::PLACEHOLDER)
    }

    /// The index of the bone named `name`: as its file stores it (as
    /// tracks meet bones) or else as its `Name` shows it.
    pub(super) fn bone_index(&self, name: &[u8]) -> Option<usize> {
        self.by_name.get(name).or_else(|| self.bones.iter().position(|bone| bone.name.as_bytes() == name))
    }

    /// How many bones the player has.
    pub fn bone_count(&self) -> usize {
        self.bones.len()
    }

    /// Whether the player writes bone `index`.
    pub(super) fn owns(&self, index: usize) -> bool {
        self.owned.get(index).copied().unwrap_or(false)
    }

    /// Takes the bones the player writes: every bone of the rig spawned
    /// from a skeleton (`rig`), and the bones a bound clip's track names.
    /// Returns what changed: bones it wrote and no longer does (also
    /// those no longer below it since [`AniBinding::set_bones`]), and
    /// bones it writes now with their indices (every one after
    /// `set_bones`, since indices move), so that a rebind that changes
    /// neither marks no bone again.
    pub(super) fn take_ownership(&mut self, rig: &[Entity]) -> Ownership {
        let rig: EntityHashSet = rig.iter().copied().collect();
        let mut owned: Vec<bool> = self.bones.iter().map(|b| rig.contains(&b.entity)).collect();
        for bone in self.clips.0.iter().flat_map(|(_, c)| c.tracks.iter().flatten()) {
            owned[*bone] = true;
        }
        // Empty after `set_bones`: then every bone is marked again, with
        // its (maybe new) index.
        let before = std::mem::replace(&mut self.owned, owned);
        let were = std::mem::take(&mut self.were_owned);
        let had = |i: usize| before.get(i).copied().unwrap_or(false);
        let mut ownership = Ownership::default();
        for (i, (bone, &owned)) in self.bones.iter().zip(&self.owned).enumerate() {
            match (had(i) || were.contains(&bone.entity), owned) {
                (true, false) => ownership.released.push((bone.entity, bone.rest)),
                (_, true) if !had(i) => ownership.gained.push((i, bone.entity)),
                _ => {}
            }
        }
        let below: EntityHashSet = self.bones.iter().map(|b| b.entity).collect();
        ownership.left = were.into_iter().filter(|e| !below.contains(e)).collect();
        self.one_chain = self.owned.iter().all(|o| *o)
            && self.bones.iter().all(|b| b.between.is_empty() && b.rest.scale == Vec3::ONE);
        ownership
    }

    /// Takes every bone, none of them an entity (the palette path): one
    /// chain of the client's arithmetic composes them.
    pub(super) fn own_every_bone(&mut self) {
        self.owned = vec![true; self.bones.len()];
        self.one_chain = true;
    }

    /// Keeps the root bone's index for `name`; clips bound for another
    /// root are bound again.
    pub(super) fn follow_root(&mut self, name: &str) {
        if self.root.0 != name {
            self.root = (name.to_owned(), self.by_name.get(name.as_bytes()));
            self.clips.clear();
        }
    }

    /// The root bone's index.
    pub(super) fn root(&self) -> Option<usize> {
        self.root.1
    }

    /// Keeps the rest poses in the files' axes as `axes` reads them.
    pub(super) fn follow_axes(&mut self, axes: Axes) {
        if self.rest_axes != Some(axes) {
            self.set_rest(rest_poses(&self.bones, axes), axes);
        }
    }

    /// Takes `rest` ([`rest_poses`] of its bones in `axes`) as the rest
    /// poses, shared.
    pub(super) fn set_rest(&mut self, rest: Arc<[BonePose]>, axes: Axes) {
        self.rest = rest;
        self.rest_axes = Some(axes);
    }

    /// How `clip` (or the clip `retargeted` from it for these bones)
    /// meets the bones.
    pub(super) fn bind_clip(&self, clip: &AniClip, retargeted: Option<Arc<Clip>>) -> ClipBinding {
        let played = retargeted.as_deref().unwrap_or(&clip.clip);
        let tracks: Vec<Option<usize>> = played.tracks.iter().map(|t| self.by_name.of(&t.bone)).collect();
        let root_tracks: Arc<[usize]> = match self.root() {
            Some(root) => (0..tracks.len()).filter(|&track| tracks[track] == Some(root)).collect(),
            None => Arc::default(),
        };
        let root_at = |t: f32| played.blended_tracks(root_tracks.iter().copied(), t, None);
        let root_ends = root_at(0.0).zip(root_at(played.total_ms as f32));
        let mut named = vec![false; self.bones.len()];
        tracks.iter().flatten().for_each(|&b| named[b] = true);
        let unbound = played.tracks.iter().zip(&tracks).filter(|(_, bone)| bone.is_none());
        ClipBinding {
            unbound_tracks: unbound.map(|(track, _)| track.bone.name_text().into_owned()).collect(),
            bones_without_track: self
                .bones
                .iter()
                .zip(&named)
                .filter(|(_, n)| !**n)
                .map(|(b, _)| b.name.clone())
                .collect(),
            root_ends,
            root_tracks,
            tracks: tracks.into(),
            retargeted,
        }
    }

    /// Suggests a map for `main` when fewer than half of its tracks bind.
    pub(super) fn suggest_map(&mut self, main: Option<&AniClip>) {
        self.suggested_map = main.filter(|clip| self.binds_too_little(clip)).map(|clip| {
            let tracks: Vec<String> = clip.clip.tracks.iter().map(|t| t.bone.name_text().into_owned()).collect();
            let bones: Vec<String> = self.bones.iter().map(|b| b.name.clone()).collect();
            suggest_map(&tracks, &bones)
        });
    }

    fn binds_too_little(&self, clip: &AniClip) -> bool {
        let tracks = clip.clip.tracks.len();
        tracks > 0 && 2 * (tracks - self.unbound_tracks.len()) < tracks
    }

    /// The one warning a player whose main clip binds fewer than half of
    /// its tracks logs: the entity, the counts and the suggested map.
    pub(super) fn warning(&self, entity: Entity) -> Option<String> {
        let map = self.suggested_map.as_ref()?;
        let unbound = self.unbound_tracks.len();
        let mut text = format!(
            "AniPlayer on {entity}: {unbound} of the clip's tracks name no bone below it (the names are compared as the game compares them, byte for byte)"
        );
        if map.0.is_empty() {
            text.push_str("; no bone map could be suggested from the names");
        } else {
            text.push_str(&format!("; a suggested bone map ({} pairs):\n{}", map.0.len(), map.to_text()));
        }
        Some(text)
    }

    pub(super) fn set_bones(&mut self, bones: Vec<Bone>) {
        let owned = self.bones.iter().zip(&self.owned).filter(|(_, o)| **o).map(|(b, _)| b.entity);
        // A palette player's bones are no entities.
        self.were_owned.extend(owned.filter(|&entity| entity != Entity::PLACEHOLDER));
        self.inverse_binds = Arc::default();
        self.parents = parent_indices(&bones);
        self.by_name = BoneNames::new(bones.iter().map(|b| &b.key));
        self.bones = bones;
        self.rest_axes = None;
        self.built = true;
        self.clips.clear();
        self.owned.clear();
        self.root = (String::new(), None);
    }
}

/// A skeleton's bones as a palette player's: in palette order
/// ([`palette_index`]), at rest in `axes`, with no entities (this path
/// spawns none), and the stored inverse binds in the same order.
pub(super) fn rig_bones(rig: &Rig, axes: Axes) -> (Vec<Bone>, Vec<Affine3A>) {
    let index = palette_index(rig);
    let bone = |i: usize| Bone {
        entity: Entity::PLACEHOLDER,
        name: crate::anim::names::bone_name(&rig.names[i]).into_owned(),
        key: rig.names[i].clone(),
        rest: axes.transform(&rig.rest[i]),
        parent: rig.parents[i].map(|p| index[p] as usize),
        between: Vec::new(),
    };
    rig.order.iter().map(|&i| (bone(i), inverse_bind(rig, i, axes))).unzip()
}

/// Each bone's parent among `bones`, [`NO_PARENT`] for none, as
/// [`AniBinding::parents`] keeps them.
pub(super) fn parent_indices(bones: &[Bone]) -> Arc<[u32]> {
    bones.iter().map(|b| b.parent.map_or(NO_PARENT, |p| p as u32)).collect()
}

/// The rest poses of `bones` in the files' axes, as `axes` reads them.
pub(super) fn rest_poses(bones: &[Bone], axes: Axes) -> Arc<[BonePose]> {
    let pose = |t: &Transform| BonePose { position: axes.position(t.translation), rotation: axes.rotation(t.rotation) };
    bones.iter().map(|b| pose(&b.rest)).collect()
}

/// The bundled Biped as a player's bones, for the stages' tests.
#[cfg(test)]
pub(super) mod biped {
    use super::*;
    use crate::format::{Animation, Skeleton};
    use crate::plugin::SklSkeleton;

    /// The Biped's skeleton (with its rig) and its walk, read from the
    /// bundled samples.
    pub fn skeleton_and_walk() -> (SklSkeleton, AniClip) {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/");
        let skeleton = Skeleton::from_bytes(&std::fs::read(format!("{folder}biped.skl")).unwrap()).unwrap();
        let walk = Animation::from_bytes(&std::fs::read(format!("{folder}biped_walk_4002.ani")).unwrap()).unwrap();
        let rig = Rig::new(&skeleton).unwrap();
        (SklSkeleton { skeleton, rig }, AniClip::new(walk))
    }

    /// The rig's bones as entities of `world`, in the rig's order, at rest
    /// in the files' axes.
    pub fn bones(world: &mut World, rig: &Rig) -> Vec<Bone> {
        let rest = |pose: &BonePose| Transform::from_translation(pose.position).with_rotation(pose.rotation);
        (0..rig.names.len())
            .map(|i| Bone {
                entity: world.spawn_empty().id(),
                name: String::from_utf8_lossy(&rig.names[i]).into_owned(),
                key: rig.names[i].clone(),
                rest: rest(&rig.rest[i]),
                parent: rig.parents[i],
                between: Vec::new(),
            })
            .collect()
    }

    /// A binding of those bones, in the files' axes, with `clip` bound as
    /// `id` and the Biped's root followed.
    pub fn binding(bones: Vec<Bone>, (id, clip): (AssetId<AniClip>, &AniClip)) -> AniBinding {
        let mut binding = AniBinding::default();
        binding.set_bones(bones);
        binding.follow_axes(Axes::AsIs);
        binding.follow_root(crate::anim::biped::ROOT);
        let bound = binding.bind_clip(clip, None);
        binding.clips.insert(id, bound);
        binding.main_bound = true;
        binding
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every track of the walk binds its Biped bone by its bytes, the root
    /// is found, and the ends of its root track are read once.
    #[test]
    fn a_clip_binds_its_tracks_by_name_and_reads_its_roots_ends() {
        let mut world = World::new();
        let (biped, walk) = biped::skeleton_and_walk();
        let rig = &biped.rig;
        let binding = biped::binding(biped::bones(&mut world, rig), (AssetId::default(), &walk));
        let bound = binding.clip(AssetId::default()).unwrap();
        let expected: Vec<Option<usize>> = walk.clip.tracks.iter().map(|t| rig.bone(t.bone.c_str())).collect();
        assert_eq!(bound.tracks[..], expected[..]);
        assert!(bound.unbound_tracks.is_empty() && expected.iter().all(Option::is_some));
        let root = binding.root().unwrap();
        assert_eq!(rig.names[root], crate::anim::biped::ROOT.as_bytes());
        let first = rig.local_pose(&walk.clip, 0.0)[root].position;
        assert_eq!(bound.root_ends.map(|(start, _)| start.position), Some(first));
    }

    /// Ownership changes are reported once: every bone gained on the first
    /// take, nothing on a take that changes nothing, and a bone no track
    /// names any more released with its rest pose.
    #[test]
    fn ownership_is_reported_once_and_a_bone_no_track_drives_is_released_to_rest() {
        let mut world = World::new();
        let (biped, mut walk) = biped::skeleton_and_walk();
        let rig = &biped.rig;
        let bones = biped::bones(&mut world, rig);
        let mut binding = biped::binding(bones.clone(), (AssetId::default(), &walk));
        let first = binding.take_ownership(&[]);
        assert_eq!(first.gained.len(), bones.len());
        assert!(first.released.is_empty() && first.left.is_empty());
        let again = binding.take_ownership(&[]);
        assert!(again.gained.is_empty() && again.released.is_empty() && again.left.is_empty());

        let last = bones.len() - 1;
        walk.clip.tracks.retain(|track| rig.bone(track.bone.c_str()) != Some(last));
        let bound = binding.bind_clip(&walk, None);
        binding.clips.insert(AssetId::default(), bound);
        let dropped = binding.take_ownership(&[]);
        assert_eq!(dropped.released, [(bones[last].entity, bones[last].rest)]);
        assert!(dropped.gained.is_empty());
        assert!(binding.take_ownership(&[bones[last].entity]).gained.contains(&(last, bones[last].entity)));
    }
}
