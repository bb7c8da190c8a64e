//! Characters: a rig from a model config with its meshes skinned to the
//! rig's bones, and meshes added to or taken from a live rig.

use bevy::asset::{AssetEvent, AssetId, Assets, Handle};
use bevy::camera::visibility::{DynamicSkinnedMeshBounds, Visibility};
use bevy::ecs::prelude::*;
use bevy::log::warn;
use bevy::math::Mat4;
use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};
use bevy::mesh::{Mesh, Mesh3d};
use bevy::pbr::{MeshMaterial3d, StandardMaterial};

use crate::anim::MeshBinding;
use crate::format::Material;
use crate::format::msh::Weights;
use crate::format::string::decode_text;
use crate::plugin::assets::SklSkeleton;
use crate::plugin::axes::Axes;
use crate::plugin::player::AniPlayer;
use crate::plugin::rig::{RigBones, SklRig, modified};
use crate::surface::Surface;

use super::assets::{Io3dMesh, Io3dModel};
use super::components::{DressedFrom, Io3dCharacter, MeshPart, RigMeshes, SpawnedParts};
use super::material::Io3dMaterial;
use super::mesh::inverse_bindposes;
use super::outline::{OutlineHull, Outlines};

/// Gives characters their rig, meshes and player once their config is
/// loaded, and again when it is reloaded or replaced.
pub(crate) fn dress_characters(
    mut commands: Commands,
    mut changes: MessageReader<AssetEvent<Io3dModel>>,
    models: Res<Assets<Io3dModel>>,
    characters: Query<(Entity, &Io3dCharacter, Option<&DressedFrom>, Has<AniPlayer>)>,
) {
    let modified = modified(&mut changes);
    for (entity, character, dressed, has_player) in &characters {
        let id = character.model.id();
        if dressed == Some(&DressedFrom(id)) && !modified.contains(&id) {
            continue;
        }
        let Some(model) = models.get(id) else { continue };
        let mut entity = commands.entity(entity);
        entity.insert((RigMeshes(model.meshes.clone()), DressedFrom(id)));
        if let Some(skeleton) = &model.skeleton {
            entity.insert(SklRig::new(skeleton.clone()));
        }
        if let (false, Some((_, clip))) = (has_player, model.animations.first()) {
            entity.insert(AniPlayer::new(clip.clone()));
        }
    }
}

/// The asset stores [`skin_meshes`] reads.
#[derive(bevy::ecs::system::SystemParam)]
pub struct MeshStores<'w> {
    meshes: Res<'w, Assets<Io3dMesh>>,
    skeletons: Res<'w, Assets<SklSkeleton>>,
    drawing: Drawing<'w>,
}

/// The stores a mesh's parts are drawn from.
#[derive(bevy::ecs::system::SystemParam)]
pub struct Drawing<'w> {
    materials: Res<'w, Assets<Io3dMaterial>>,
    bindposes: ResMut<'w, Assets<SkinnedMeshInverseBindposes>>,
    standard: ResMut<'w, Assets<StandardMaterial>>,
    parts: ResMut<'w, Assets<Mesh>>,
    outlines: ResMut<'w, Outlines>,
}

/// An entity with meshes to draw, its rig and bones if it has them, and
/// what was spawned for them.
type DressedRig = (
    Entity,
    Ref<'static, RigMeshes>,
    Option<&'static SklRig>,
    &'static Axes,
    Option<Ref<'static, RigBones>>,
    Option<&'static SpawnedParts>,
);

/// Spawns the mesh entities of rigs whose meshes, bones, mesh files or
/// material scripts changed (a mesh appears once it and its script are
/// loaded).
pub(crate) fn skin_meshes(
    mut commands: Commands,
    mut mesh_events: MessageReader<AssetEvent<Io3dMesh>>,
    mut material_events: MessageReader<AssetEvent<Io3dMaterial>>,
    mut stores: MeshStores,
    rigs: Query<DressedRig>,
) {
    let touched_meshes: Vec<_> = mesh_events.read().map(event_id).collect();
    let touched_materials: Vec<_> = material_events.read().map(event_id).collect();
    for (entity, meshes, rig, &axes, bones, spawned) in &rigs {
        let touched = meshes.0.iter().any(|h| {
            touched_meshes.contains(&h.id())
                || stores.meshes.get(h).is_some_and(|m| touched_materials.contains(&m.material.id()))
        });
        let bones_changed = bones.as_ref().is_some_and(|b| b.is_changed());
        if spawned.is_some() && !touched && !meshes.is_changed() && !bones_changed {
            continue;
        }
        // A rig waits for its skeleton and bones; without one, meshes are
        // drawn unskinned.
        let skin = match (rig, &bones) {
            (None, _) => None,
            (Some(rig), Some(bones)) => match stores.skeletons.get(&rig.skeleton) {
                Some(skeleton) => Some((&**bones, skeleton)),
                None => continue,
            },
            (Some(_), None) => continue,
        };
        for &part in spawned.map_or(&[][..], |s| &s.0) {
            commands.entity(part).despawn();
        }
        // Meshes load in Bevy's axes: a rig kept in the files' would draw
        // them mirrored against its bones. None are spawned, and the rig is
        // looked at again only when its meshes or bones change.
        let parts = if axes == Axes::EngineToBevy {
            let target = Target { entity, skin, axes };
            (meshes.0.iter())
                .filter_map(|h| stores.meshes.get(h).map(|mesh| (h.id(), mesh)))
                .flat_map(|(id, mesh)| spawn_parts(&mut commands, &mut stores.drawing, &target, id, mesh))
                .collect()
        } else {
            warn!("meshes are drawn only on rigs in Axes::EngineToBevy, not {axes:?}: left off");
            Vec::new()
        };
        commands.entity(entity).insert(SpawnedParts(parts));
    }
}

fn event_id<A: bevy::asset::Asset>(event: &AssetEvent<A>) -> AssetId<A> {
    match *event {
        AssetEvent::Added { id }
        | AssetEvent::Modified { id }
        | AssetEvent::Removed { id }
        | AssetEvent::Unused { id }
        | AssetEvent::LoadedWithDependencies { id } => id,
    }
}

/// The entities of one mesh's drawn submeshes: those with a material
/// block in the mesh's script (the client draws no others).
fn spawn_parts(
    commands: &mut Commands,
    drawing: &mut Drawing,
    target: &Target,
    id: AssetId<Io3dMesh>,
    mesh: &Io3dMesh,
) -> Vec<Entity> {
    let Target { entity: rig, skin, axes } = *target;
    let Drawing { materials, bindposes, standard: standard_materials, parts: part_meshes, outlines } = drawing;
    let Some(material) = materials.get(&mesh.material) else { return Vec::new() };
    let weights = mesh.mesh.weights.as_ref().filter(|_| mesh.mesh.is_skinned());
    let bindposes = &mut **bindposes;
    let skin = weights.map(|weights| match skin {
        Some((bones, skeleton)) => skin_to_rig(weights, mesh, bones, skeleton, (rig, axes), bindposes),
        None => bind_pose(weights, rig, bindposes),
    });
    let parts = mesh.parts.iter().zip(&material.materials).zip(&material.script.materials).enumerate();
    parts
        .filter_map(|(submesh, ((part, standard), block))| Some((submesh, part.as_ref()?, standard, block)))
        .map(|(submesh, part, standard, block)| {
            // No `Name`: players bind named descendants as bones.
            let tag = MeshPart { mesh: id, name: mesh.name.clone(), submesh, skin: block.is_skin() };
            // Visibility of its own, for the mesh events (`events`).
            let drawn = (Mesh3d(part.clone()), MeshMaterial3d(standard.clone()), Visibility::default());
            let entity = commands.spawn((tag, drawn, ChildOf(rig))).id();
            let stores = (&mut **part_meshes, &mut **standard_materials);
            let hull =
                outline_hull(outlines, stores, part, block).map(|hull| commands.spawn((hull, ChildOf(entity))).id());
            for drawn in std::iter::once(entity).chain(hull) {
                if let Some(skin) = &skin {
                    commands.entity(drawn).insert((skin.clone(), DynamicSkinnedMeshBounds));
                }
            }
            entity
        })
        .collect()
}

/// The outline hull of a part whose material has an outline pass: a child
/// of the part, so that it shows and hides with it.
fn outline_hull(
    outlines: &mut Outlines,
    (meshes, materials): (&mut Assets<Mesh>, &mut Assets<StandardMaterial>),
    part: &Handle<Mesh>,
    block: &Material,
) -> Option<impl Bundle> {
    let outline = Surface::of(block).outline?;
    let hull = outlines.hull(meshes, part, &outline)?;
    let material = outlines.material(materials, &outline);
    Some((OutlineHull, Mesh3d(hull), MeshMaterial3d(material), Visibility::default()))
}

/// A skinned mesh's skin on a rig's bones, with the skeleton's stored
/// inverse binds.
fn skin_to_rig(
    weights: &Weights,
    mesh: &Io3dMesh,
    bones: &RigBones,
    skeleton: &SklSkeleton,
    (rig, axes): (Entity, Axes),
    bindposes: &mut Assets<SkinnedMeshInverseBindposes>,
) -> SkinnedMesh {
    let binding = MeshBinding::new(weights, &skeleton.rig);
    for (_, name) in &binding.unknown {
        warn!(
            "mesh '{}': bone '{}' is not in the skeleton; it follows the root, as in the client",
            mesh.name,
            decode_text(name.c_str())
        );
    }
    let joints = binding.palette.iter().chain([&0]).map(|&bone| bones.0.get(bone).copied().unwrap_or(rig)).collect();
    let poses = bindposes.add(SkinnedMeshInverseBindposes::from(inverse_bindposes(&binding, &skeleton.rig, axes)));
    SkinnedMesh { inverse_bindposes: poses, joints }
}

/// A skinned mesh with no skeleton, at its bind pose: every joint the
/// entity itself, with identity inverse binds (its vertices are stored
/// at bind pose; Bevy draws a mesh with joint weights only with a skin).
fn bind_pose(weights: &Weights, entity: Entity, bindposes: &mut Assets<SkinnedMeshInverseBindposes>) -> SkinnedMesh {
    let joints = weights.palette().len() + 1;
    let poses = bindposes.add(SkinnedMeshInverseBindposes::from(vec![Mat4::IDENTITY; joints]));
    SkinnedMesh { inverse_bindposes: poses, joints: vec![entity; joints] }
}

/// The entity a mesh is drawn on, and the bones and skeleton it is
/// skinned to (none on an entity without a rig).
#[derive(Clone, Copy)]
struct Target<'a> {
    entity: Entity,
    skin: Option<(&'a RigBones, &'a SklSkeleton)>,
    /// The rig's axes, for the inverse binds. Meshes load in
    /// [`Axes::EngineToBevy`], the default rig axes.
    axes: Axes,
}
