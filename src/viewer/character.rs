//! The character's meshes on the stage: shown or hidden by the toggles and
//! by the clip's events, tinted by the selected bone's weights, and their
//! control points drawn.

use bevy::asset::{AssetId, Assets};
use bevy::camera::visibility::Visibility;
use bevy::color::Srgba;
use bevy::ecs::prelude::*;
use bevy::gizmos::gizmos::Gizmos;
use bevy::math::{Isometry3d, Vec3};
use bevy::mesh::{Mesh, Mesh3d};
use bevy::pbr::wireframe::Wireframe;
use bevy::transform::components::GlobalTransform;

use super::stage::{BoneGizmos, ViewedRig};
use super::view::ViewState;
use crate::anim::MeshBinding;
use crate::format::{EventKind, msh};
use crate::plugin::character::mesh::inverse_bind;
use crate::plugin::character::{Io3dMesh, MeshPart};
use crate::plugin::{AniClip, AniEventFired, AniPlayer, Axes, RigBones, SklRig, SklSkeleton};

const TRAIL: Srgba = Srgba::rgb(1.0, 0.35, 0.75);

/// Meshes the viewed clip's events have hidden.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct HiddenMeshes {
    /// Meshes hidden by `hide_mesh`, by name (lower case), with whether the
    /// event said `restore` (shown again when the clip ends).
    pub meshes: Vec<(String, bool)>,
    /// `hide_weapon` was the last weapon event.
    pub weapon: bool,
}

impl HiddenMeshes {
    /// Applies a `show_mesh`, `hide_mesh`, `show_weapon` or `hide_weapon`
    /// event; others change nothing.
    pub fn apply(&mut self, kind: EventKind, sub_info: &str) {
        let mut words = sub_info.split_whitespace();
        let name = words.next().map(mesh_key).unwrap_or_default();
        let restore = words.any(|w| w.eq_ignore_ascii_case("restore"));
        match kind {
            EventKind::HideMesh => {
                self.meshes.retain(|(n, _)| *n != name);
                self.meshes.push((name, restore));
            }
            EventKind::ShowMesh => self.meshes.retain(|(n, _)| *n != name),
            EventKind::HideWeapon => self.weapon = true,
            EventKind::ShowWeapon => self.weapon = false,
            _ => {}
        }
    }

    /// The clip ended or was left: meshes hidden with `restore` come back.
    pub fn restore(&mut self) {
        self.meshes.retain(|(_, restore)| !restore);
    }

    fn hides(&self, part: &MeshPart, mesh: Option<&Io3dMesh>) -> bool {
        self.meshes.iter().any(|(n, _)| *n == mesh_key(&part.name))
            || (self.weapon && mesh.is_some_and(|m| is_weapon(&m.mesh)))
    }
}

/// A mesh name as events and configs match it: no case, no `.msh`.
fn mesh_key(name: &str) -> String {
    crate::resource::name_key(name, ".msh")
}

/// The viewer's guess at a weapon, which the game knows from its item
/// tables: a mesh skinned only to hands and forearms, as weapons are.
fn is_weapon(mesh: &msh::Mesh) -> bool {
    mesh.weights.as_ref().is_some_and(|w| {
        let palette = w.palette();
        !palette.is_empty()
            && palette.iter().all(|name| {
                let name = String::from_utf8_lossy(name.c_str()).to_ascii_lowercase();
                name.ends_with("hand") || name.ends_with("forearm")
            })
    })
}

/// Follows the mesh events the viewed rig fires.
pub fn follow_mesh_events(
    event: On<AniEventFired>,
    viewed: Query<(), With<ViewedRig>>,
    mut hidden: ResMut<HiddenMeshes>,
) {
    if viewed.contains(event.entity) {
        hidden.apply(event.event_kind, &event.sub_info);
    }
}

/// Shows the viewed rig's meshes unless the mesh toggle is off or an
/// event hid them, with their wireframe when asked. Meshes hidden with
/// `restore` come back when the clip starts over, and every mesh when
/// another clip is shown.
pub fn show_meshes(
    view: Res<ViewState>,
    mut hidden: ResMut<HiddenMeshes>,
    meshes: Res<Assets<Io3dMesh>>,
    mut parts: Query<(Entity, &MeshPart, &ChildOf, &mut Visibility, Has<Wireframe>)>,
    viewed: Query<&AniPlayer, With<ViewedRig>>,
    mut last: Local<(f64, AssetId<AniClip>)>,
    mut commands: Commands,
) {
    if let Some(player) = viewed.iter().next() {
        if player.clip.id() != last.1 {
            *hidden = HiddenMeshes::default();
        } else if player.time_ms() < last.0 {
            hidden.restore();
        }
        *last = (player.time_ms(), player.clip.id());
    }
    for (entity, part, parent, mut visibility, wireframe) in &mut parts {
        if !viewed.contains(parent.parent()) {
            continue;
        }
        match (view.wireframe, wireframe) {
            (true, false) => drop(commands.entity(entity).insert(Wireframe)),
            (false, true) => drop(commands.entity(entity).remove::<Wireframe>()),
            _ => {}
        }
        let shown = view.show_mesh && !hidden.hides(part, meshes.get(part.mesh));
        let wanted = if shown { Visibility::Inherited } else { Visibility::Hidden };
        visibility.set_if_neq(wanted);
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
    rigs: Query<(&SklRig, &RigBones), With<ViewedRig>>,
    transforms: Query<&GlobalTransform>,
) {
    for (part, parent) in &parts {
        let Ok((rig, bones)) = rigs.get(parent.parent()) else { continue };
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
                let bind = inverse_bind(&skeleton.rig, bone, rig.axes);
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

    #[test]
    fn events_hide_and_restore_meshes_by_name() {
        let mut hidden = HiddenMeshes::default();
        hidden.apply(EventKind::HideMesh, "Cape.msh restore");
        hidden.apply(EventKind::HideMesh, "helmet");
        let part = |name: &str| MeshPart { mesh: Default::default(), name: name.into(), submesh: 0 };
        assert!(hidden.hides(&part("cape"), None) && hidden.hides(&part("HELMET"), None));
        hidden.restore();
        assert!(!hidden.hides(&part("cape"), None) && hidden.hides(&part("helmet"), None));
        hidden.apply(EventKind::ShowMesh, "Helmet");
        assert_eq!(hidden, HiddenMeshes::default());
        hidden.apply(EventKind::HideWeapon, "");
        assert!(hidden.weapon);
    }

    #[test]
    fn the_viewed_rigs_mesh_events_reach_the_preview_and_others_do_not() {
        let mut world = World::new();
        world.init_resource::<HiddenMeshes>();
        world.add_observer(follow_mesh_events);
        let viewed = world.spawn(ViewedRig).id();
        let compared = world.spawn_empty().id();
        let fired = |entity, sub_info: &str| AniEventFired {
            entity,
            instance: Default::default(),
            clip: Default::default(),
            index: 0,
            kind: "hide_mesh".into(),
            event_kind: EventKind::HideMesh,
            sub_info: sub_info.into(),
            time_ms: 0.0,
        };
        world.trigger(fired(compared, "cape"));
        assert_eq!(*world.resource::<HiddenMeshes>(), HiddenMeshes::default(), "the compared rig hides nothing");
        world.trigger(fired(viewed, "Cape.msh restore"));
        assert_eq!(world.resource::<HiddenMeshes>().meshes, [("cape".to_owned(), true)]);
    }
}
