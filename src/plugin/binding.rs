//! Binding clips to the bones below a player, by name.

use std::collections::HashMap;

use bevy::asset::{AssetEvent, AssetId, Assets, Handle};
use bevy::ecs::name::Name;
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::transform::components::Transform;

use crate::anim::BonePose;

use super::assets::AniClip;
use super::axes::Axes;
use super::player::AniPlayer;
use super::rig::{BoneRest, RigBones, SklRig};

/// A bone below a player.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Bone {
    pub entity: Entity,
    pub name: String,
    /// Its rest transform, where it returns when no clip drives it.
    pub rest: Transform,
}

/// How one clip's tracks meet the bones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClipBinding {
    /// For each track, the index of the bone it drives among the player's
    /// bones; `None` when no bone has its name (the client would drive the
    /// root with it; we skip it).
    pub(super) tracks: Vec<Option<usize>>,
    /// Tracks no bone has the name of.
    pub unbound_tracks: Vec<String>,
    /// Named entities below the player that no track names: they stay at
    /// rest while this clip plays alone.
    pub bones_without_track: Vec<String>,
}

/// The bones below a player and how each playing clip's tracks meet them,
/// kept up to date when clips, files or the hierarchy change.
#[derive(Component, Debug, Clone, Default)]
pub struct AniBinding {
    pub(super) bones: Vec<Bone>,
    /// The bones' rest poses in the files' axes, for `rest_axes`.
    pub(super) rest: Vec<BonePose>,
    rest_axes: Option<Axes>,
    built: bool,
    main_bound: bool,
    by_name: HashMap<String, usize>,
    clips: HashMap<AssetId<AniClip>, ClipBinding>,
    /// Tracks of the main clip ([`AniPlayer::clip`]) that no bone has the
    /// name of.
    pub unbound_tracks: Vec<String>,
    /// Named entities below the player that no track of the main clip
    /// drives.
    pub bones_without_track: Vec<String>,
}

impl AniBinding {
    /// Whether the bones are known and the main clip (if any is set) has
    /// been bound to them; on an [`SklRig`], once its bones are spawned.
    pub fn is_bound(&self) -> bool {
        self.built && self.main_bound
    }

    /// How `clip`'s tracks met the bones, once it has been bound.
    pub fn clip(&self, clip: AssetId<AniClip>) -> Option<&ClipBinding> {
        self.clips.get(&clip)
    }

    /// The index of the first bone named `name`.
    pub(super) fn bone_index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// Keeps the rest poses in the files' axes as `axes` reads them.
    fn follow_axes(&mut self, axes: Axes) {
        if self.rest_axes != Some(axes) {
            let pose = |t: &Transform| BonePose {
                position: axes.position(t.translation),
                rotation: axes.rotation(t.rotation),
            };
            self.rest = self.bones.iter().map(|b| pose(&b.rest)).collect();
            self.rest_axes = Some(axes);
        }
    }

    fn bind_clip(&self, clip: &AniClip) -> ClipBinding {
        let names: Vec<String> = clip.clip.tracks.iter().map(|t| t.bone.name_text().into_owned()).collect();
        let tracks: Vec<Option<usize>> = names.iter().map(|n| self.by_name.get(n).copied()).collect();
        let mut named = vec![false; self.bones.len()];
        tracks.iter().flatten().for_each(|&b| named[b] = true);
        ClipBinding {
            unbound_tracks: names.iter().zip(&tracks).filter(|(_, b)| b.is_none()).map(|(n, _)| n.clone()).collect(),
            bones_without_track: self
                .bones
                .iter()
                .zip(&named)
                .filter(|(_, n)| !**n)
                .map(|(b, _)| b.name.clone())
                .collect(),
            tracks,
        }
    }

    fn set_bones(&mut self, bones: Vec<Bone>) {
        self.by_name.clear();
        for (index, bone) in bones.iter().enumerate().rev() {
            self.by_name.insert(bone.name.clone(), index);
        }
        self.bones = bones;
        self.rest_axes = None;
        self.built = true;
        self.clips.clear();
    }
}

/// A change that can alter what a player's tracks bind to.
type Regrowth = Or<(Changed<Children>, Changed<Name>)>;

/// Players ready to bind: any but an [`SklRig`] whose bones are not
/// spawned yet.
type Bindable = Or<(Without<SklRig>, With<RigBones>)>;

/// The hierarchy as binding sees it: links both ways, and what changed.
#[derive(SystemParam)]
pub struct Hierarchy<'w, 's> {
    /// Entities whose children or name changed this frame.
    changed: Query<'w, 's, Entity, Regrowth>,
    parents: Query<'w, 's, &'static ChildOf>,
    children: Query<'w, 's, &'static Children>,
    names: Query<'w, 's, (&'static Name, &'static Transform, Option<&'static BoneRest>)>,
}

impl Hierarchy<'_, '_> {
    /// The named descendants of `player`, giving those seen for the first
    /// time a [`BoneRest`] of their current transform.
    fn bones(&self, commands: &mut Commands, player: Entity) -> Vec<Bone> {
        self.children
            .iter_descendants(player)
            .filter_map(|entity| {
                let (name, transform, rest) = self.names.get(entity).ok()?;
                if rest.is_none() {
                    commands.entity(entity).insert(BoneRest(*transform));
                }
                Some(Bone { entity, name: name.as_str().to_owned(), rest: rest.map_or(*transform, |r| r.0) })
            })
            .collect()
    }
}

/// Finds each player's bones when it first can and whenever the hierarchy
/// below it changes, and binds each clip it plays when the clip arrives or
/// its file is reloaded. A player on an [`SklRig`] waits for the rig's
/// bones, so that a clip loaded before its skeleton is never reported as
/// bound with every track unbound.
pub fn bind_players(
    mut commands: Commands,
    mut clip_events: MessageReader<AssetEvent<AniClip>>,
    hierarchy: Hierarchy,
    clips: Res<Assets<AniClip>>,
    mut players: Query<(Entity, &AniPlayer, &mut AniBinding), Bindable>,
) {
    let reloaded: Vec<AssetId<AniClip>> = clip_events
        .read()
        .filter_map(|e| match e {
            AssetEvent::Modified { id } => Some(*id),
            _ => None,
        })
        .collect();
    // Players at or above a changed entity see a changed hierarchy.
    let mut regrown: Vec<Entity> = Vec::new();
    for changed in &hierarchy.changed {
        let at_or_above = std::iter::once(changed).chain(hierarchy.parents.iter_ancestors(changed));
        regrown.extend(at_or_above.filter(|e| players.contains(*e)));
    }
    for (entity, player, mut binding) in &mut players {
        if !binding.built || regrown.contains(&entity) {
            binding.set_bones(hierarchy.bones(&mut commands, entity));
        }
        binding.follow_axes(player.axes);
        let main = player.clip.id();
        let in_use = || player.instances().map(|i| i.clip).chain(Some(main));
        // The common frame: every clip playing is bound already.
        if reloaded.is_empty() && in_use().all(|id| binding.clips.contains_key(&id)) {
            continue;
        }
        let in_use: Vec<AssetId<AniClip>> = in_use().collect();
        binding.clips.retain(|id, _| in_use.contains(id) && !reloaded.contains(id));
        let main_rebinds = !binding.clips.contains_key(&main);
        for id in in_use {
            if binding.clips.contains_key(&id) {
                continue;
            }
            if let Some(clip) = clips.get(id) {
                let bound = binding.bind_clip(clip);
                binding.clips.insert(id, bound);
            }
        }
        let main_bound = player.clip == Handle::default() || binding.clips.contains_key(&main);
        if main_bound != binding.main_bound || main_rebinds {
            let report = binding.clips.get(&main).cloned().unwrap_or_default();
            binding.unbound_tracks = report.unbound_tracks;
            binding.bones_without_track = report.bones_without_track;
            binding.main_bound = main_bound;
        }
    }
}
