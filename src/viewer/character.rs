//! The character's meshes on the stage: shown or hidden by the toggles
//! (the clip's mesh events act through the plugin), tinted by the selected
//! bone's weights, and their control points drawn.

use bevy::asset::{AssetId, Assets};
use bevy::camera::visibility::Visibility;
use bevy::color::Srgba;
use bevy::ecs::prelude::*;
use bevy::gizmos::gizmos::Gizmos;
use bevy::math::{Isometry3d, Vec3};
use bevy::mesh::{Mesh, Mesh3d};
use bevy::pbr::StandardMaterial;
use bevy::pbr::wireframe::Wireframe;
use bevy::transform::components::GlobalTransform;

use super::stage::{BoneGizmos, ViewedRig};
use super::view::{Look, ViewState};
use crate::anim::MeshBinding;
use crate::format::msh;
use crate::plugin::character::mesh::inverse_bind;
use crate::plugin::character::{HiddenMeshes, Io3dMaterial, Io3dMesh, MeshPart, OutlineHull, RigMeshes, ToonShaded};
use crate::plugin::{AniClip, AniPlayer, Axes, RigBones, SklRig, SklSkeleton};

const TRAIL: Srgba = Srgba::rgb(1.0, 0.35, 0.75);

/// A rig the stage shows meshes on: its visibility, what its clips hid,
/// its player and whether it is the viewed one.
type DressedRig = (&'static mut Visibility, Option<&'static mut HiddenMeshes>, &'static AniPlayer, Has<ViewedRig>);

/// Shows the rigs' meshes unless the mesh toggle is off, with their
/// wireframe when asked; the clip's mesh events hide and show them through
/// the plugin ([`HiddenMeshes`]). A preview starts a newly shown clip with
/// every mesh back.
pub fn show_meshes(
    view: Res<ViewState>,
    mut rigs: Query<DressedRig, With<RigMeshes>>,
    parts: Query<(Entity, &ChildOf, Has<Wireframe>), With<MeshPart>>,
    mut last_clip: Local<Option<AssetId<AniClip>>>,
    mut commands: Commands,
) {
    for (mut visibility, hidden, player, viewed) in &mut rigs {
        visibility.set_if_neq(if view.show_mesh { Visibility::Inherited } else { Visibility::Hidden });
        let clip = player.clip.as_ref().map(bevy::asset::Handle::id);
        if viewed && clip != *last_clip {
            *last_clip = clip;
            if let Some(mut hidden) = hidden {
                *hidden = HiddenMeshes::default();
            }
        }
    }
    for (entity, parent, wireframe) in &parts {
        if !rigs.contains(parent.parent()) {
            continue;
        }
        match (view.wireframe, wireframe) {
            (true, false) => drop(commands.entity(entity).insert(Wireframe)),
            (false, true) => drop(commands.entity(entity).remove::<Wireframe>()),
            _ => {}
        }
    }
}

/// Draws materials as the chosen [`Look`] says: toon shading and outline
/// hulls only in the game look, every surface unlit in the unlit one (and
/// those whose script says `lighting false` in any).
pub fn apply_look(
    mut commands: Commands,
    view: Res<ViewState>,
    rigs: Query<(Entity, Has<ToonShaded>), With<RigMeshes>>,
    mut hulls: Query<&mut Visibility, With<OutlineHull>>,
    scripts: Res<Assets<Io3dMaterial>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let game = view.look == Look::Game;
    for (rig, shaded) in &rigs {
        match (game, shaded) {
            (true, false) => {
                // The viewer shows no race: skin parts take a sample colour.
                let shaded = ToonShaded { skin: Some(ToonShaded::SAMPLE_SKIN), ..ToonShaded::default() };
                commands.entity(rig).insert(shaded);
            }
            (false, true) => drop(commands.entity(rig).remove::<ToonShaded>()),
            _ => {}
        }
    }
    let shown = if game { Visibility::Inherited } else { Visibility::Hidden };
    for mut visibility in &mut hulls {
        visibility.set_if_neq(shown);
    }
    for (_, script) in scripts.iter() {
        for (handle, block) in script.materials.iter().zip(&script.script.materials) {
            let unlit = view.look == Look::Unlit || block.passes().first().is_some_and(|pass| !pass.lighting);
            if materials.get(handle).is_some_and(|m| m.unlit != unlit)
                && let Some(mut material) = materials.get_mut(handle)
            {
                material.unlit = unlit;
            }
        }
    }
}

/// Draws each control point where its bone carries it (a vertex of weight
/// 1), and each `trailstart_N`-`trailend_N` pair as the span the weapon
/// trail sweeps.
pub fn draw_control_points(
    mut gizmos: Gizmos<BoneGizmos>,
    meshes: Res<Assets<Io3dMesh>>,
    skeletons: Res<Assets<SklSkeleton>>,
    parts: Query<(&MeshPart, &ChildOf)>,
    rigs: Query<(&SklRig, &RigBones, &Axes), With<ViewedRig>>,
    transforms: Query<&GlobalTransform>,
) {
    for (part, parent) in &parts {
        let Ok((rig, bones, &axes)) = rigs.get(parent.parent()) else { continue };
        let (Some(mesh), Some(skeleton)) = (meshes.get(part.mesh), skeletons.get(&rig.skeleton)) else { continue };
        if part.submesh != 0 || mesh.mesh.control_points.is_empty() {
            continue;
        }
        let placed: Vec<(String, Vec3)> = mesh
            .mesh
            .control_points
            .iter()
            .filter_map(|point| {
                let bone = skeleton.rig.bone(point.bone.c_str())?;
                let world = transforms.get(*bones.0.get(bone)?).ok()?.to_matrix();
                let bind = inverse_bind(&skeleton.rig, bone, axes);
                let at = (world * bind).transform_point3(Axes::EngineToBevy.position(point.point));
                Some((String::from_utf8_lossy(point.kind.c_str()).into_owned(), at))
            })
            .collect();
        for (kind, at) in &placed {
            gizmos.sphere(Isometry3d::from_translation(*at), 1.2, TRAIL).resolution(6);
            if let Some(index) = kind.strip_prefix("trailstart_")
                && let Some((_, end)) = placed.iter().find(|(k, _)| k.strip_prefix("trailend_") == Some(index))
            {
                gizmos.line(*at, *end, TRAIL);
            }
        }
    }
}

/// Tints the viewed rig's meshes by the selected bone's weight, from
/// white (not moved by it) to red (moved by it alone), through vertex
/// colours; no selection, no tint. Redone when the selection or the meshes
/// change.
pub fn tint_by_weight(
    view: Res<ViewState>,
    sources: Res<Assets<Io3dMesh>>,
    skeletons: Res<Assets<SklSkeleton>>,
    mut meshes: ResMut<Assets<Mesh>>,
    parts: Query<(Entity, &MeshPart, &Mesh3d, &ChildOf)>,
    rigs: Query<&SklRig, With<ViewedRig>>,
    mut shown: Local<(Option<Vec<u8>>, Vec<Entity>)>,
) {
    let entities: Vec<Entity> = parts.iter().map(|(entity, ..)| entity).collect();
    if shown.0 == view.selected && shown.1 == entities {
        return;
    }
    *shown = (view.selected.clone(), entities);
    for (_, part, mesh, parent) in &parts {
        let Ok(rig) = rigs.get(parent.parent()) else { continue };
        let (Some(source), Some(skeleton)) = (sources.get(part.mesh), skeletons.get(&rig.skeleton)) else { continue };
        let Some(mut mesh) = meshes.get_mut(&mesh.0) else { continue };
        let bone = view.selected.as_deref().and_then(|name| skeleton.rig.bone(name));
        match (bone, source.mesh.weights.as_ref().filter(|_| source.mesh.is_skinned())) {
            (Some(bone), Some(weights)) => {
                let weight =
                    bone_weights(weights, &MeshBinding::new(weights, &skeleton.rig), bone, source.mesh.positions.len());
                let colours: Vec<[f32; 4]> =
                    weight.into_iter().map(|w| [1.0, 1.0 - 0.8 * w, 1.0 - 0.8 * w, 1.0]).collect();
                mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colours);
            }
            _ => {
                mesh.remove_attribute(Mesh::ATTRIBUTE_COLOR);
            }
        }
    }
}

/// How much `bone` moves each of `count` vertices, by the client's rules:
/// the leading positive weights whose palette entry is the bone (an index
/// past the palette drives the root, bone 0).
fn bone_weights(weights: &msh::Weights, binding: &MeshBinding, bone: usize, count: usize) -> Vec<f32> {
    let bone_of = |index: i64| usize::try_from(index).ok().and_then(|i| binding.palette.get(i).copied()).unwrap_or(0);
    (0..count).map(|v| weights.influences(v).filter(|&(i, _)| bone_of(i) == bone).map(|(_, w)| w).sum()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bone_weights_follow_the_palette_and_the_clients_rules() {
        let weights = msh::Weights {
            names: Vec::new(),
            weights: vec![[0.25, 0.75, 0.0, 0.0], [1.0, 0.0, 0.5, 0.0], [0.5, 0.5, 0.0, 0.0]],
            bones: vec![[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0], [7.0, 1.0, 0.0, 0.0]],
        };
        let binding = MeshBinding { palette: vec![0, 5], unknown: Vec::new() };
        assert_eq!(bone_weights(&weights, &binding, 5, 3), [0.75, 1.0, 0.5], "the weight after a zero one is not used");
        assert_eq!(bone_weights(&weights, &binding, 0, 3), [0.25, 0.0, 0.5], "index 7 is past the palette: the root");
    }
}
