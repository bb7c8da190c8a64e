//! Rigs: bone entities spawned from a skeleton asset.

use bevy::animation::{AnimatedBy, AnimationPlayer};
use bevy::asset::{Asset, AssetEvent, AssetId, Assets, Handle};
use bevy::ecs::name::Name;
use bevy::ecs::prelude::*;
use bevy::reflect::{Reflect, std_traits::ReflectDefault};
use bevy::transform::components::Transform;

use super::assets::SklSkeleton;
use super::axes::Axes;
use super::binding::FileBoneName;
use super::export::bone_target;
use super::palette::PaletteOutput;

/// Put on an entity to give it the bones of a skeleton as descendants:
/// one entity per bone with its `Name`, its rest `Transform` (in `axes`),
/// a [`BoneRest`] and an `AnimationTargetId` for exported clips, parented
/// as in the skeleton. On a rig that has Bevy's `AnimationPlayer` (now or
/// later), the bones also get `AnimatedBy` the rig, so a `#BevyClip` plays
/// on them with no hand work; other rigs' bones go without, since Bevy
/// visits every `AnimatedBy` entity each frame, player or not, which a
/// crowd driven by [`super::AniPlayer`] should not pay for. The bones are spawned once the asset is loaded, and
/// again when it is reloaded or the component's skeleton or axes change.
#[derive(Component, Debug, Clone, Default, Reflect)]
#[reflect(Component, Default)]
#[require(Transform, Axes)]
pub struct SklRig {
    /// The skeleton. Its axes become Bevy's as the entity's [`Axes`] says.
    pub skeleton: Handle<SklSkeleton>,
}

impl SklRig {
    /// A rig of `skeleton`.
    pub fn new(skeleton: Handle<SklSkeleton>) -> Self {
        Self { skeleton }
    }
}

/// The bone entities of a spawned [`SklRig`], in the skeleton's order.
#[derive(Component, Debug, Clone, Reflect)]
#[reflect(Component)]
pub struct RigBones(pub Vec<Entity>);

/// A bone's rest transform: where it returns when no track drives it.
/// Spawned rigs carry their skeleton's rest pose; other bones get the
/// transform they had when a player first bound them.
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Component)]
pub struct BoneRest(pub Transform);

/// The skeleton and axes a rig's bones were spawned from, and whether
/// they are entities (not on the palette path).
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Component)]
pub struct RigSource(AssetId<SklSkeleton>, Axes, bool);

/// A rig, its axes, and its bones and what they were spawned from, once
/// they are.
type RigToSpawn = (
    Entity,
    &'static SklRig,
    &'static Axes,
    Option<&'static RigBones>,
    Option<&'static RigSource>,
    (Has<AnimationPlayer>, Has<PaletteOutput>),
);

/// Spawns the bones of loaded rigs, and respawns them when the skeleton
/// file changes, or the [`SklRig`] points at another skeleton, or its
/// [`Axes`] or its player's path change. A rig whose player is on the
/// palette path gets no bone entities (an empty [`RigBones`]): its player
/// binds the skeleton's bones as they are.
pub(crate) fn spawn_rigs(
    mut commands: Commands,
    mut changes: MessageReader<AssetEvent<SklSkeleton>>,
    skeletons: Res<Assets<SklSkeleton>>,
    rigs: Query<RigToSpawn>,
) {
    let changed = modified(&mut changes);
    for (entity, rig, &axes, bones, source, (bevy_player, palette)) in &rigs {
        let wanted = RigSource(rig.skeleton.id(), axes, !palette);
        let stale = changed.contains(&rig.skeleton.id()) || source != Some(&wanted);
        if bones.is_some() && !stale {
            continue;
        }
        let Some(skeleton) = skeletons.get(&rig.skeleton) else { continue };
        if let Some(&root) = bones.and_then(|RigBones(old)| old.first()) {
            commands.entity(root).despawn();
        }
        let spawned = if palette { Vec::new() } else { spawn_bones(&mut commands, entity, skeleton, axes) };
        if bevy_player {
            animated_by(&mut commands, entity, &spawned);
        }
        commands.entity(entity).insert((RigBones(spawned), wanted));
    }
}

/// Links the bones of a rig that gets Bevy's `AnimationPlayer` after its
/// bones were spawned to that player.
pub(crate) fn link_bevy_player(event: On<Add, AnimationPlayer>, rigs: Query<&RigBones>, mut commands: Commands) {
    if let Ok(RigBones(bones)) = rigs.get(event.entity) {
        animated_by(&mut commands, event.entity, bones);
    }
}

fn animated_by(commands: &mut Commands, rig: Entity, bones: &[Entity]) {
    for &bone in bones {
        commands.entity(bone).try_insert(AnimatedBy(rig));
    }
}

/// The assets whose files changed (reloaded) since the reader last read.
pub(crate) fn modified<A: Asset>(changes: &mut MessageReader<AssetEvent<A>>) -> Vec<AssetId<A>> {
    changes
        .read()
        .filter_map(|e| match e {
            AssetEvent::Modified { id } => Some(*id),
            _ => None,
        })
        .collect()
}

fn spawn_bones(commands: &mut Commands, rig: Entity, skeleton: &SklSkeleton, axes: Axes) -> Vec<Entity> {
    let mut bones = vec![Entity::PLACEHOLDER; skeleton.rig.len()];
    for &i in &skeleton.rig.order {
        let stored = &skeleton.rig.names[i];
        let name = crate::anim::names::bone_name(stored).into_owned();
        let parent = skeleton.rig.parents[i].map_or(rig, |p| bones[p]);
        let rest = axes.transform(&skeleton.rig.rest[i]);
        let mut bone = commands.spawn((bone_target(stored), rest, BoneRest(rest), ChildOf(parent)));
        if stored.as_slice() != name.as_bytes() {
            bone.insert(FileBoneName(stored.clone()));
        }
        bones[i] = bone.insert(Name::new(name)).id();
    }
    bones
}
