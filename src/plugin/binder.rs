//! The system that binds each player's clips to the bones below it, by
//! name ([`crate::anim::names`]), into its [`AniBinding`].

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use bevy::asset::{AssetEvent, AssetId, Assets, Handle};
use bevy::ecs::name::Name;
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::log::warn;
use bevy::math::Affine3A;
use bevy::transform::components::Transform;

use crate::anim::BonePose;

use super::assets::{AniClip, SklSkeleton};
use super::axes::Axes;
use super::binding::{
    AniBinding, Bone, ClipBinding, FileBoneName, Io3dBone, Ownership, parent_indices, rest_poses, rig_bones,
};
use super::palette::PaletteOutput;
use super::player::{AniPlayer, ClipsInUse};
use super::retarget::{AniBoneMap, AniRetarget, RetargetedClips, Retargeting};
use super::rig::{BoneRest, RigBones, SklRig, modified};

/// A change that can alter what a player's tracks bind to.
type Regrowth = Or<(Changed<Children>, Changed<Name>)>;

/// Players ready to bind: any but an [`SklRig`] whose bones are not
/// spawned yet.
type Bindable = Or<(Without<SklRig>, With<RigBones>)>;

/// A player with its binding, rig (and whether it is on the palette
/// path), axes and retargeting, if any.
type PlayerToBind = (
    Entity,
    (Ref<'static, AniPlayer>, Mut<'static, ClipsInUse>),
    &'static mut AniBinding,
    (Option<Ref<'static, RigBones>>, Option<&'static SklRig>, Has<PaletteOutput>),
    &'static Axes,
    Option<Ref<'static, AniRetarget>>,
);

/// The hierarchy as binding sees it: links both ways, and what changed.
#[derive(SystemParam)]
pub(crate) struct Hierarchy<'w, 's> {
    /// Entities whose children or name changed this frame.
    changed: Query<'w, 's, Entity, Regrowth>,
    /// Entities whose last child left (their `Children` goes).
    childless: RemovedComponents<'w, 's, Children>,
    /// Players that stopped retargeting.
    unretargeted: RemovedComponents<'w, 's, AniRetarget>,
    parents: Query<'w, 's, &'static ChildOf>,
    children: Query<'w, 's, &'static Children>,
    names: Query<'w, 's, (&'static Name, Option<&'static FileBoneName>, &'static Transform, Option<&'static BoneRest>)>,
    nested: Query<'w, 's, (), With<AniPlayer>>,
}

impl Hierarchy<'_, '_> {
    /// The players at or above an entity whose children or name changed
    /// or whose last child left, and those that stopped retargeting: their
    /// bones or root may have changed. (This looks at every named entity
    /// each frame, on one core: over all cores it saved 0.5 ms of a
    /// 5,000-character frame and cost small crowds a parallel pass.)
    fn regrown(&mut self, players: &Query<PlayerToBind, Bindable>) -> Vec<Entity> {
        let mut regrown = Vec::new();
        for changed in &self.changed {
            regrown.extend(players_at_or_above(changed, &self.parents, players));
        }
        for childless in self.childless.read() {
            regrown.extend(players_at_or_above(childless, &self.parents, players));
        }
        regrown.extend(self.unretargeted.read());
        regrown
    }

    /// The named descendants of `player`, breadth first (so the bone
    /// nearest the player wins a name two bones share), but none at or
    /// below another player (a nested rig is its own player's), giving
    /// those seen for the first time a [`BoneRest`] of their current
    /// transform.
    fn bones(&self, commands: &mut Commands, player: Entity) -> Vec<Bone> {
        let mut bones = Vec::new();
        // Each entity with the nearest bone above it and the entities
        // between them.
        let mut queue: VecDeque<(Entity, Option<usize>, Vec<Entity>)> = VecDeque::new();
        let below = |entity: Entity| self.children.get(entity).into_iter().flat_map(|c| c.iter());
        queue.extend(below(player).map(|child| (child, None, Vec::new())));
        while let Some((entity, parent, between)) = queue.pop_front() {
            if self.nested.contains(entity) {
                continue;
            }
            if let Ok((name, stored, transform, rest)) = self.names.get(entity) {
                if rest.is_none() {
                    commands.entity(entity).insert(BoneRest(*transform));
                }
                let rest = rest.map_or(*transform, |r| r.0);
                let key = stored.map_or_else(|| name.as_str().as_bytes().to_vec(), |s| s.0.clone());
                bones.push(Bone { entity, name: name.as_str().to_owned(), key, rest, parent, between });
                queue.extend(below(entity).map(|child| (child, Some(bones.len() - 1), Vec::new())));
            } else {
                let path = |child| (child, parent, between.iter().copied().chain([entity]).collect());
                queue.extend(below(entity).map(path));
            }
        }
        bones
    }
}

/// The players among `entity` and its ancestors.
fn players_at_or_above<'a>(
    entity: Entity,
    parents: &'a Query<&ChildOf>,
    players: &'a Query<PlayerToBind, Bindable>,
) -> impl Iterator<Item = Entity> + 'a {
    std::iter::once(entity).chain(parents.iter_ancestors(entity)).filter(|e| players.contains(*e))
}

/// The files bindings are made from, and the messages that say which
/// changed.
#[derive(SystemParam)]
pub(crate) struct BindingFiles<'w, 's> {
    clip_events: MessageReader<'w, 's, AssetEvent<AniClip>>,
    skeleton_events: MessageReader<'w, 's, AssetEvent<SklSkeleton>>,
    map_events: MessageReader<'w, 's, AssetEvent<AniBoneMap>>,
    clips: Res<'w, Assets<AniClip>>,
    skeletons: Res<'w, Assets<SklSkeleton>>,
    maps: Res<'w, Assets<AniBoneMap>>,
}

/// Finds each player's bones when it first can and whenever the hierarchy
/// below it changes, and binds each clip it plays when the clip arrives or
/// its file is reloaded. A player on an [`SklRig`] waits for the rig's
/// bones, so that a clip loaded before its skeleton is never reported as
/// bound with every track unbound.
pub(crate) fn bind_players(
    mut commands: Commands,
    mut files: BindingFiles,
    mut hierarchy: Hierarchy,
    mut retargeted: ResMut<RetargetedClips>,
    mut players: Query<PlayerToBind, Bindable>,
    mut skeleton_bones: Local<SkeletonBones>,
) {
    let reloaded = modified(&mut files.clip_events);
    let reloaded_skeletons = modified(&mut files.skeleton_events);
    skeleton_bones.forget(&reloaded, &reloaded_skeletons);
    let reloaded_maps = modified(&mut files.map_events);
    let BindingFiles { clips, skeletons, maps, .. } = files;
    retargeted.forget(&reloaded, &reloaded_skeletons);
    let regrown = hierarchy.regrown(&players);
    let files_changed = !(reloaded.is_empty() && reloaded_skeletons.is_empty() && reloaded_maps.is_empty());
    for (entity, (player, mut in_use), mut binding, (rig, skl, palette), &axes, retarget) in &mut players {
        let respawned = rig.as_ref().is_some_and(Ref::is_changed);
        let outside_unchanged = !files_changed
            && !respawned
            && !regrown.contains(&entity)
            && !retarget.as_ref().is_some_and(Ref::is_changed);
        if outside_unchanged && settled((&player, &in_use), &binding, axes) {
            continue;
        }
        in_use.all_bound = false;
        let retarget = retarget.as_deref();
        let skeleton = skl.and_then(|skl| Some((skl.skeleton.id(), skeletons.get(&skl.skeleton)?)));
        // A palette player's clips bind to its skeleton's bones, as every
        // other such player's do.
        let shared = skeleton.map(|(id, _)| id).filter(|_| palette);
        match skeleton.filter(|_| palette) {
            // The palette path binds the skeleton itself: it has no bone
            // entities to look for.
            Some((id, skeleton)) if !binding.built || respawned => {
                let shared = skeleton_bones.of((id, skeleton), axes);
                binding.set_bones(shared.bones.clone());
                binding.parents = Arc::clone(&shared.parents);
                binding.inverse_binds = Arc::clone(&shared.inverse_binds);
                binding.set_rest(Arc::clone(&shared.rest), axes);
            }
            Some(_) => {}
            None if palette => continue,
            None if !binding.built || regrown.contains(&entity) => {
                binding.set_bones(hierarchy.bones(&mut commands, entity));
            }
            None => {}
        }
        binding.follow_axes(axes);
        // A retargeting player waits for its source skeleton and map file.
        let with = retarget.map(|settings| Retargeting::of(settings, &skeletons, &maps));
        if with.is_some_and(|w| w.is_none()) {
            continue;
        }
        match retarget {
            // Clips made from a skeleton or map that reloaded are made again.
            Some(settings) if Retargeting::uses(settings, &reloaded_skeletons, &reloaded_maps) => binding.clips.clear(),
            Some(_) => {}
            None => binding.follow_root(&player.root_bone),
        }
        let with = with.flatten();
        let main = player.clip.as_ref().map(Handle::id);
        // The common frame: the clips playing are the clips bound.
        if reloaded.is_empty() && in_use.only_bound(&player, &binding) {
            in_use.all_bound = true;
            continue;
        }
        let wanted: Vec<AssetId<AniClip>> = in_use.wanted(&player).collect();
        binding.clips.retain(|id| wanted.contains(&id) && !reloaded.contains(&id));
        let main_rebinds = main.is_some_and(|main| !binding.clips.contains(main));
        let mut to_bind: Vec<(AssetId<AniClip>, &AniClip)> = Vec::new();
        for id in wanted {
            let new = !binding.clips.contains(id) && !to_bind.iter().any(|(bound, _)| *bound == id);
            if let Some(clip) = clips.get(id).filter(|_| new) {
                to_bind.push((id, clip));
            }
        }
        // Retargeted together: the player's bones are read as a rig once.
        let mut made = with.map(|with| retargeted.get(&to_bind, with, &binding)).unwrap_or_default().into_iter();
        for (id, clip) in to_bind {
            let made = with.and(made.next());
            if let Some(travel) = made.as_ref().and_then(|m| m.travel_bone.as_deref()) {
                binding.follow_root(travel);
            }
            let bound = match (made, shared.filter(|_| retarget.is_none())) {
                (None, Some(skeleton)) => skeleton_bones.clip((skeleton, axes), (id, clip), &binding),
                (made, _) => binding.bind_clip(clip, made.map(|m| m.clip)),
            };
            binding.clips.insert(id, bound);
        }
        let main_bound = main.is_none_or(|main| binding.clips.contains(main));
        if main_bound != binding.main_bound || main_rebinds {
            let report = main.and_then(|main| binding.clips.get(main)).cloned().unwrap_or_default();
            binding.unbound_tracks = report.unbound_tracks;
            binding.bones_without_track = report.bones_without_track;
            binding.main_bound = main_bound;
            binding.suggest_map(main.and_then(|main| clips.get(main)));
            if let Some(warning) = binding.warning(entity) {
                warn!("{warning}");
            }
        }
        in_use.all_bound = in_use.only_bound(&player, &binding);
        if palette {
            binding.own_every_bone();
            continue;
        }
        let Ownership { released, left, gained } = binding.take_ownership(rig.as_ref().map_or(&[], |r| &r.0));
        // A bone the player lets go of returns to rest, as one no track
        // drives does; one taken from under it is the game's to place.
        for (bone, rest) in released {
            commands.entity(bone).try_remove::<Io3dBone>().try_insert(rest);
        }
        for bone in left {
            commands.entity(bone).try_remove::<Io3dBone>();
        }
        for (index, bone) in gained {
            commands.entity(bone).try_insert(Io3dBone { player: entity, index });
        }
    }
}

/// What palette players bind of each skeleton (its bones, parents,
/// inverse binds, rest poses, and each clip's binding), made once for
/// each skeleton and axes: every player of a crowd then reads one copy of
/// what posing reads of the skeleton each frame, which stays in the cache
/// (a copy for each player read some 30 MB a frame back from memory at
/// 5,000 characters).
#[derive(Default)]
pub(crate) struct SkeletonBones(HashMap<(AssetId<SklSkeleton>, Axes), SkeletonBinding>);

/// What [`SkeletonBones`] keeps of one skeleton in one set of axes: also
/// how each clip binds to its bones, by clip and root bone, whose track
/// map posing reads every frame.
pub(crate) struct SkeletonBinding {
    bones: Vec<Bone>,
    parents: Arc<[u32]>,
    inverse_binds: Arc<[Affine3A]>,
    rest: Arc<[BonePose]>,
    clips: HashMap<(AssetId<AniClip>, Option<usize>), ClipBinding>,
}

impl SkeletonBones {
    /// Drops what was made from files that changed.
    fn forget(&mut self, clips: &[AssetId<AniClip>], skeletons: &[AssetId<SklSkeleton>]) {
        self.0.retain(|(skeleton, _), _| !skeletons.contains(skeleton));
        for shared in self.0.values_mut() {
            shared.clips.retain(|(clip, _), _| !clips.contains(clip));
        }
    }

    /// How `clip` binds to `binding`'s bones, those of `skeleton` in
    /// `axes`: made once for every player of that skeleton and root bone.
    fn clip(
        &mut self,
        skeleton: (AssetId<SklSkeleton>, Axes),
        (id, clip): (AssetId<AniClip>, &AniClip),
        binding: &AniBinding,
    ) -> ClipBinding {
        match self.0.get_mut(&skeleton) {
            Some(shared) => {
                shared.clips.entry((id, binding.root())).or_insert_with(|| binding.bind_clip(clip, None)).clone()
            }
            None => binding.bind_clip(clip, None),
        }
    }

    fn of(&mut self, (id, skeleton): (AssetId<SklSkeleton>, &SklSkeleton), axes: Axes) -> &SkeletonBinding {
        self.0.entry((id, axes)).or_insert_with(|| {
            let (bones, inverse_binds) = rig_bones(&skeleton.rig, axes);
            let (parents, rest) = (parent_indices(&bones), rest_poses(&bones, axes));
            SkeletonBinding { bones, parents, inverse_binds: inverse_binds.into(), rest, clips: HashMap::new() }
        })
    }
}

/// Whether binding has nothing to do for `player` this frame: it was
/// found with every clip it plays bound, and neither it, its clips nor
/// its axes changed since. Reloaded files and changes to the hierarchy or
/// to retargeting are the caller's to check. This spares every settled
/// player of a crowd the lookups a full check makes in memory no other
/// pass of the frame touches (its root's name, its clips' bindings).
fn settled((player, in_use): (&Ref<AniPlayer>, &Mut<ClipsInUse>), binding: &AniBinding, axes: Axes) -> bool {
    let unchanged = !player.is_changed() && !in_use.is_changed();
    unchanged && in_use.all_bound && binding.is_bound() && binding.rest_axes == Some(axes)
}

#[cfg(test)]
mod tests {
    use bevy::asset::Handle;
    use bevy::ecs::message::Messages;

    use super::*;
    use crate::plugin::binding::biped;

    /// A world with what binding reads, and the walk as a clip.
    fn world() -> (World, Handle<AniClip>) {
        let mut world = World::new();
        world.init_resource::<Messages<AssetEvent<AniClip>>>();
        world.init_resource::<Messages<AssetEvent<SklSkeleton>>>();
        world.init_resource::<Messages<AssetEvent<AniBoneMap>>>();
        world.init_resource::<Assets<SklSkeleton>>();
        world.init_resource::<Assets<AniBoneMap>>();
        world.init_resource::<RetargetedClips>();
        let (mut clips, handle) = (Assets::<AniClip>::default(), Handle::<AniClip>::default());
        clips.insert(&handle, biped::skeleton_and_walk().1).unwrap();
        world.insert_resource(clips);
        (world, handle)
    }

    /// Binding finds the named entities below a player (not those below a
    /// nested one), binds the main clip to them and marks the bones a
    /// track names; run again with nothing changed, it leaves the player
    /// alone; a renamed bone makes it look again.
    #[test]
    fn binds_named_descendants_once_and_again_only_when_something_changed() {
        let (mut world, walk) = world();
        let player = world.spawn((AniPlayer::new(walk), Axes::AsIs)).id();
        let hips = world.spawn((Name::new("Bip01"), Transform::default(), ChildOf(player))).id();
        let spine = world.spawn((Name::new("Bip01 Spine"), Transform::default(), ChildOf(hips))).id();
        let nested = world.spawn((AniPlayer::default(), ChildOf(hips))).id();
        let theirs = world.spawn((Name::new("Bip01 Neck"), Transform::default(), ChildOf(nested))).id();
        let bind = world.register_system(bind_players);
        world.run_system(bind).unwrap();
        let binding = world.get::<AniBinding>(player).unwrap();
        assert!(binding.is_bound());
        assert!(binding.unbound_tracks.iter().any(|t| t == "Bip01 Neck"), "the nested rig's bone is not this one's");
        for bone in [hips, spine] {
            assert_eq!(world.get::<Io3dBone>(bone).map(|b| b.player), Some(player));
        }
        assert_eq!(world.get::<Io3dBone>(theirs), None);

        world.clear_trackers();
        world.run_system(bind).unwrap();
        assert!(!world.entity(player).get_ref::<AniBinding>().unwrap().is_changed(), "a settled player is skipped");

        world.get_mut::<Name>(theirs).unwrap().set("Bip01 Neck2");
        world.entity_mut(spine).insert(Name::new("Bip01 Neck"));
        world.run_system(bind).unwrap();
        let binding = world.get::<AniBinding>(player).unwrap();
        assert!(binding.unbound_tracks.iter().any(|t| t == "Bip01 Spine"), "the renamed bone is found again");
        assert!(!binding.unbound_tracks.iter().any(|t| t == "Bip01 Neck"));
    }

    /// Palette players of one skeleton share what posing reads of it
    /// every frame (the inverse binds, the rest poses, the parents, each
    /// clip's track map): a copy for each player made a crowd's frame
    /// read megabytes of the same numbers back from memory.
    #[test]
    fn palette_players_of_one_skeleton_share_what_posing_reads() {
        let (mut world, walk) = world();
        let skeleton = world.resource_mut::<Assets<SklSkeleton>>().add(biped::skeleton_and_walk().0);
        let spawn = |world: &mut World| {
            let rig = (SklRig::new(skeleton.clone()), RigBones(Vec::new()), crate::plugin::PoseOutput::Palette);
            world.spawn((AniPlayer::new(walk.clone()), Axes::AsIs, rig)).id()
        };
        let players = [spawn(&mut world), spawn(&mut world)];
        let bind = world.register_system(bind_players);
        world.run_system(bind).unwrap();
        let [a, b] = players.map(|player| world.get::<AniBinding>(player).unwrap());
        assert!(a.is_bound() && b.is_bound() && a.bone_count() > 1);
        assert!(Arc::ptr_eq(&a.inverse_binds, &b.inverse_binds));
        assert!(Arc::ptr_eq(&a.rest, &b.rest) && Arc::ptr_eq(&a.parents, &b.parents));
        let [one, other] = [a, b].map(|binding| binding.clip(walk.id()).unwrap());
        assert!(Arc::ptr_eq(&one.tracks, &other.tracks) && one.tracks.iter().all(Option::is_some));
        assert!(Arc::ptr_eq(&one.root_tracks, &other.root_tracks) && one.root_tracks.len() == 1);
    }
}
