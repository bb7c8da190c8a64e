//! Characters: a rig from a model config with its meshes skinned to the
//! rig's bones, and meshes added to or taken from a live rig.

use bevy::asset::{AssetEvent, AssetId, Assets, Handle};
use bevy::camera::primitives::Aabb;
use bevy::camera::visibility::{DynamicSkinnedMeshBounds, NoAutoAabb, Visibility};
use bevy::ecs::prelude::*;
use bevy::log::warn;
use bevy::math::Mat4;
use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};
use bevy::mesh::{Mesh, Mesh3d, MeshTag};
use bevy::pbr::{MeshMaterial3d, StandardMaterial};

use crate::anim::{MeshBinding, Rig};
use crate::format::Material;
use crate::format::msh::Weights;
use crate::format::string::decode_text;
use crate::plugin::assets::SklSkeleton;
use crate::plugin::axes::Axes;
use crate::plugin::palette::PaletteOutput;
use crate::plugin::player::AniPlayer;
use crate::plugin::rig::{RigBones, SklRig, modified};
use crate::surface::Surface;

use super::assets::{Io3dMesh, Io3dModel};
use super::components::{DressedFrom, Io3dCharacter, MeshPart, RigMeshes, SpawnedParts};
use super::material::Io3dMaterial;
use super::mesh::inverse_bindposes;
use super::outline::{OutlineHull, Outlines};
use super::palette::{PaletteDrawing, PaletteMaterial, PaletteReach};

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
    scripts: Res<'w, Assets<Io3dMaterial>>,
    skeletons: Res<'w, Assets<SklSkeleton>>,
    drawing: Drawing<'w>,
}

/// The stores a mesh's parts are drawn from.
#[derive(bevy::ecs::system::SystemParam)]
pub struct Drawing<'w> {
    bindposes: ResMut<'w, Assets<SkinnedMeshInverseBindposes>>,
    standard: ResMut<'w, Assets<StandardMaterial>>,
    parts: ResMut<'w, Assets<Mesh>>,
    outlines: ResMut<'w, Outlines>,
    /// The palette path's meshes and materials, where they are assets.
    palette: Option<(ResMut<'w, PaletteDrawing>, ResMut<'w, Assets<PaletteMaterial>>)>,
}

/// An entity with meshes to draw, its rig and bones if it has them, and
/// what was spawned for them.
type DressedRig = (
    Entity,
    Ref<'static, RigMeshes>,
    Option<&'static SklRig>,
    &'static Axes,
    Option<Ref<'static, RigBones>>,
    (Option<&'static SpawnedParts>, Has<PaletteOutput>),
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
    for (entity, meshes, rig, &axes, bones, (spawned, palette)) in &rigs {
        let touched = meshes.0.iter().any(|h| {
            touched_meshes.contains(&h.id())
                || stores.meshes.get(h).is_some_and(|m| touched_materials.contains(&m.material.id()))
        });
        let bones_changed = bones.as_ref().is_some_and(|b| b.is_changed());
        if spawned.is_some() && !touched && !meshes.is_changed() && !bones_changed {
            continue;
        }
        // A rig waits for its skeleton and bones; without one, meshes are
        // drawn unskinned. On the palette path, they skin from the slab.
        let skin = match (rig, &bones) {
            (None, _) => None,
            (Some(rig), Some(bones)) => match stores.skeletons.get(&rig.skeleton) {
                Some(skeleton) if palette => Some(Skin::Palette(rig.skeleton.id(), skeleton)),
                Some(skeleton) => Some(Skin::Bones(bones, skeleton)),
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
                .flat_map(|(id, mesh)| {
                    let script = stores.scripts.get(&mesh.material);
                    spawn_parts(&mut commands, &mut stores.drawing, &target, (id, mesh), script)
                })
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
    (id, mesh): (AssetId<Io3dMesh>, &Io3dMesh),
    material: Option<&Io3dMaterial>,
) -> Vec<Entity> {
    let Target { entity: rig, skin, axes } = *target;
    let Some(material) = material else { return Vec::new() };
    let weights = mesh.mesh.weights.as_ref().filter(|_| mesh.mesh.is_skinned());
    let bindposes = &mut *drawing.bindposes;
    let skin = weights.map(|weights| match skin {
        Some(Skin::Bones(bones, skeleton)) => {
            Drawn::Bones(skin_to_rig(weights, mesh, bones, skeleton, (rig, axes), bindposes))
        }
        Some(Skin::Palette(id, skeleton)) => Drawn::Palette(mesh_binding(weights, mesh, skeleton), (id, &skeleton.rig)),
        None => Drawn::Bones(bind_pose(weights, rig, bindposes)),
    });
    let parts = mesh.parts.iter().zip(&material.materials).zip(&material.script.materials).enumerate();
    parts
        .filter_map(|(submesh, ((part, standard), block))| Some((submesh, part.as_ref()?, standard, block)))
        .map(|(submesh, part, standard, block)| {
            // No `Name`: players bind named descendants as bones.
            let tag = MeshPart { mesh: id, name: mesh.name.clone(), submesh, skin: block.is_skin() };
            // Visibility of its own, for the mesh events (`events`).
            let entity = commands.spawn((tag, Visibility::default(), ChildOf(rig))).id();
            let stores = (&mut *drawing.parts, &mut *drawing.standard);
            let hull = outline_hull(&mut drawing.outlines, stores, part, block);
            let hull = hull.map(|(mesh, material)| {
                (commands.spawn((OutlineHull, Visibility::default(), ChildOf(entity))).id(), mesh, material)
            });
            let surfaces = std::iter::once((entity, part.clone(), standard.clone())).chain(hull);
            for (drawn, part, standard) in surfaces {
                draw(commands.entity(drawn), (part, standard), skin.as_ref(), drawing);
            }
            entity
        })
        .collect()
}

/// How a rig's skinned meshes are skinned: on its bone entities, or from
/// its player's palette slot.
#[derive(Clone, Copy)]
enum Skin<'a> {
    Bones(&'a RigBones, &'a SklSkeleton),
    Palette(AssetId<SklSkeleton>, &'a SklSkeleton),
}

/// How one mesh's parts are drawn: skinned on entities (Bevy's skinning),
/// or from a palette slot, with the mesh's binding to the rig.
enum Drawn<'a> {
    Bones(SkinnedMesh),
    Palette(MeshBinding, (AssetId<SklSkeleton>, &'a Rig)),
}

/// Gives a part or hull its mesh and material, and its skin: Bevy's
/// (bounds following the joints), or on the palette path the palette
/// mesh and material (bounds following the root bone, slot given by
/// [`super::palette::follow_slots`]). A palette part drawn where no
/// palette material is an asset (no renderer) keeps its plain mesh.
fn draw(
    mut entity: EntityCommands,
    (part, standard): (Handle<Mesh>, Handle<StandardMaterial>),
    skin: Option<&Drawn>,
    drawing: &mut Drawing,
) {
    if let (Some(Drawn::Palette(binding, rig)), Some((palette, materials))) = (skin, drawing.palette.as_mut())
        && let Some((mesh, reach)) = palette.mesh(&part, (binding, *rig), &mut drawing.parts)
    {
        let material = palette.material(&standard, (&drawing.standard, materials));
        let bounds = (PaletteReach(reach), Aabb::default(), NoAutoAabb, MeshTag(0));
        entity.insert((Mesh3d(mesh), MeshMaterial3d(material), bounds));
        return;
    }
    entity.insert((Mesh3d(part), MeshMaterial3d(standard)));
    if let Some(Drawn::Bones(skin)) = skin {
        entity.insert((skin.clone(), DynamicSkinnedMeshBounds));
    }
}

/// The mesh and material of the outline hull of a part whose material has
/// an outline pass (drawn as a child of the part, so that it shows and
/// hides with it).
fn outline_hull(
    outlines: &mut Outlines,
    (meshes, materials): (&mut Assets<Mesh>, &mut Assets<StandardMaterial>),
    part: &Handle<Mesh>,
    block: &Material,
) -> Option<(Handle<Mesh>, Handle<StandardMaterial>)> {
    let outline = Surface::of(block).outline?;
    let hull = outlines.hull(meshes, part, &outline)?;
    Some((hull, outlines.material(materials, &outline)))
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
    let binding = mesh_binding(weights, mesh, skeleton);
    let joints = binding.palette.iter().chain([&0]).map(|&bone| bones.0.get(bone).copied().unwrap_or(rig)).collect();
    let poses = bindposes.add(SkinnedMeshInverseBindposes::from(inverse_bindposes(&binding, &skeleton.rig, axes)));
    SkinnedMesh { inverse_bindposes: poses, joints }
}

/// How a mesh's bones meet the skeleton, with a warning for each bone the
/// skeleton lacks.
fn mesh_binding(weights: &Weights, mesh: &Io3dMesh, skeleton: &SklSkeleton) -> MeshBinding {
    let binding = MeshBinding::new(weights, &skeleton.rig);
    for (_, name) in &binding.unknown {
        warn!(
            "mesh '{}': bone '{}' is not in the skeleton; it follows the root, as in the client",
            mesh.name,
            decode_text(name.c_str())
        );
    }
    binding
}

/// A skinned mesh with no skeleton, at its bind pose: every joint the
/// entity itself, with identity inverse binds (its vertices are stored
/// at bind pose; Bevy draws a mesh with joint weights only with a skin).
fn bind_pose(weights: &Weights, entity: Entity, bindposes: &mut Assets<SkinnedMeshInverseBindposes>) -> SkinnedMesh {
    let joints = weights.palette().len() + 1;
    let poses = bindposes.add(SkinnedMeshInverseBindposes::from(vec![Mat4::IDENTITY; joints]));
    SkinnedMesh { inverse_bindposes: poses, joints: vec![entity; joints] }
}

/// The entity a mesh is drawn on, and how it is skinned (not at all on an
/// entity without a rig).
#[derive(Clone, Copy)]
struct Target<'a> {
    entity: Entity,
    skin: Option<Skin<'a>>,
    /// The rig's axes, for the inverse binds. Meshes load in
    /// [`Axes::EngineToBevy`], the default rig axes.
    axes: Axes,
}
