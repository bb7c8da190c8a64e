//! The client's mesh events on a rig's meshes: `hide_mesh NAME [restore]`
//! and `show_mesh NAME` hide and show the rig's mesh of that name (without
//! case or `.msh`), and a mesh hidden with `restore` comes back when the
//! clip that hid it ends or is cleared; `hide_weapon` and `show_weapon`
//! hide and show its weapons. The game knows its weapons from its item
//! tables; this crate takes a mesh skinned only to hands and forearms for
//! one ([`super::components::is_weapon`]).

use bevy::asset::Assets;
use bevy::camera::visibility::Visibility;
use bevy::ecs::prelude::*;

use crate::anim::InstanceId;
use crate::anim::mixer::State;
use crate::format::EventKind;
use crate::plugin::{AniEventFired, AniPlayback};

use super::assets::Io3dMesh;
use super::components::{HiddenMeshes, MeshPart, SpawnedParts};

/// Follows the mesh events each rig's player fires (others leave the rig's
/// [`HiddenMeshes`] untouched, so that [`show_meshes`] has nothing to do).
pub(crate) fn follow_mesh_events(event: On<AniEventFired>, mut rigs: Query<&mut HiddenMeshes>) {
    use EventKind::{HideMesh, HideWeapon, ShowMesh, ShowWeapon};
    if !matches!(event.kind, HideMesh | ShowMesh | HideWeapon | ShowWeapon) {
        return;
    }
    if let Ok(mut hidden) = rigs.get_mut(event.entity) {
        hidden.apply(&event, event.instance);
    }
}

/// Shows or hides each rig's drawn parts as its clips' events left them,
/// after restoring what ended clips hid; only where that or the parts
/// changed, not every frame.
pub(crate) fn show_meshes(
    meshes: Res<Assets<Io3dMesh>>,
    mut rigs: Query<(&mut HiddenMeshes, Ref<SpawnedParts>, Option<&AniPlayback>)>,
    mut parts: Query<(&MeshPart, &mut Visibility)>,
) {
    for (mut hidden, spawned, player) in &mut rigs {
        if let Some(player) = player {
            // Ended (a guarantee is an ended action kept posed) or cleared.
            let playing = |id: InstanceId| player.instances().any(|i| i.id == id && i.state() < State::Cleared);
            if hidden.meshes.iter().any(|(_, by)| by.is_some_and(|by| !playing(by))) {
                hidden.restore_ended(playing);
            }
        }
        if !hidden.is_changed() && !spawned.is_changed() {
            continue;
        }
        for &entity in spawned.parts() {
            let Ok((part, mut visibility)) = parts.get_mut(entity) else { continue };
            let wanted =
                if hidden.hides(part, meshes.get(part.mesh)) { Visibility::Hidden } else { Visibility::Inherited };
            visibility.set_if_neq(wanted);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::AniEvent;

    #[test]
    fn events_hide_and_restore_meshes_by_name() {
        let mut hidden = HiddenMeshes::default();
        let (a, b) = (InstanceId(1), InstanceId(2));
        let event = |kind: &str, sub_info: &str| {
            AniEvent::new(&crate::format::Event { kind: kind.into(), sub_info: sub_info.into(), time_ms: 0.0 })
        };
        hidden.apply(&event("hide_mesh", "Cape.msh restore"), a);
        hidden.apply(&event("hide_mesh", "helmet"), b);
        let part = |name: &str| MeshPart { mesh: Default::default(), name: name.into(), submesh: 0, skin: false };
        assert!(hidden.hides(&part("cape"), None) && hidden.hides(&part("HELMET"), None));
        hidden.restore_ended(|id| id == b);
        assert!(!hidden.hides(&part("cape"), None), "the clip that hid it with restore ended");
        assert!(hidden.hides(&part("helmet"), None), "no restore: stays hidden");
        hidden.apply(&event("show_mesh", "Helmet"), b);
        assert_eq!(hidden, HiddenMeshes::default());
        hidden.apply(&event("hide_weapon", ""), a);
        assert!(hidden.weapon);
    }
}
