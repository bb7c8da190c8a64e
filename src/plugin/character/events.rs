//! The client's mesh events on a rig's meshes: `hide_mesh NAME [restore]`
//! and `show_mesh NAME` hide and show the rig's mesh of that name (without
//! case or `.msh`), and a mesh hidden with `restore` comes back when the
//! clip that hid it ends or is cleared; `hide_weapon` and `show_weapon`
//! hide and show its weapons. The game knows its weapons from its item
//! tables; this crate takes a mesh skinned only to hands and forearms for
//! one ([`is_weapon`]).

use bevy::asset::Assets;
use bevy::camera::visibility::Visibility;
use bevy::ecs::prelude::*;
use bevy::reflect::Reflect;
use bevy::reflect::std_traits::ReflectDefault;

use crate::anim::InstanceId;
use crate::anim::mixer::State;
use crate::format::{EventKind, msh};
use crate::plugin::{AniEventFired, AniPlayer};
use crate::resource::name_key;

use super::assets::Io3dMesh;
use super::spawn::{MeshPart, SpawnedParts};

/// What a rig's clips have hidden of its meshes ([`super::RigMeshes`]),
/// kept by the plugin from the events its player fires.
#[derive(Component, Debug, Clone, Default, PartialEq, Reflect)]
#[reflect(Component, Default)]
pub struct HiddenMeshes {
    /// Meshes hidden by `hide_mesh`, by name (lower case, no `.msh`), with
    /// the instance that hid them when the event said `restore`.
    #[reflect(ignore)]
    pub meshes: Vec<(String, Option<InstanceId>)>,
    /// `hide_weapon` was the last weapon event.
    pub weapon: bool,
}

impl HiddenMeshes {
    /// Applies an event passed by `instance`; events other than the four
    /// mesh events change nothing.
    pub fn apply(&mut self, kind: EventKind, sub_info: &str, instance: InstanceId) {
        let mut words = sub_info.split_whitespace();
        let name = words.next().map(|n| name_key(n, ".msh")).unwrap_or_default();
        let restore = words.any(|w| w.eq_ignore_ascii_case("restore"));
        match kind {
            EventKind::HideMesh => {
                self.meshes.retain(|(n, _)| *n != name);
                self.meshes.push((name, restore.then_some(instance)));
            }
            EventKind::ShowMesh => self.meshes.retain(|(n, _)| *n != name),
            EventKind::HideWeapon => self.weapon = true,
            EventKind::ShowWeapon => self.weapon = false,
            _ => {}
        }
    }

    /// Shows again the meshes hidden with `restore` by instances that no
    /// longer play (ended or cleared).
    pub fn restore_ended(&mut self, playing: impl Fn(InstanceId) -> bool) {
        self.meshes.retain(|(_, by)| by.is_none_or(&playing));
    }

    /// Whether a drawn part is hidden.
    pub fn hides(&self, part: &MeshPart, mesh: Option<&Io3dMesh>) -> bool {
        let name = name_key(&part.name, ".msh");
        self.meshes.iter().any(|(n, _)| *n == name) || (self.weapon && mesh.is_some_and(|m| is_weapon(&m.mesh)))
    }
}

/// Whether a mesh is taken for a weapon: skinned only to hands and
/// forearms, as the game's weapons are (the game itself knows them from
/// its item tables).
pub fn is_weapon(mesh: &msh::Mesh) -> bool {
    mesh.weights.as_ref().is_some_and(|w| {
        let palette = w.palette();
        !palette.is_empty()
            && palette.iter().all(|name| {
                let name = String::from_utf8_lossy(name.c_str()).to_ascii_lowercase();
                name.ends_with("hand") || name.ends_with("forearm")
            })
    })
}

/// Follows the mesh events each rig's player fires (others leave the rig's
/// [`HiddenMeshes`] untouched, so that [`show_meshes`] has nothing to do).
pub fn follow_mesh_events(event: On<AniEventFired>, mut rigs: Query<&mut HiddenMeshes>) {
    use EventKind::{HideMesh, HideWeapon, ShowMesh, ShowWeapon};
    if !matches!(event.event_kind, HideMesh | ShowMesh | HideWeapon | ShowWeapon) {
        return;
    }
    if let Ok(mut hidden) = rigs.get_mut(event.entity) {
        hidden.apply(event.event_kind, &event.sub_info, event.instance);
    }
}

/// Shows or hides each rig's drawn parts as its clips' events left them,
/// after restoring what ended clips hid; only where that or the parts
/// changed, not every frame.
pub fn show_meshes(
    meshes: Res<Assets<Io3dMesh>>,
    mut rigs: Query<(&mut HiddenMeshes, Ref<SpawnedParts>, Option<&AniPlayer>)>,
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

    #[test]
    fn events_hide_and_restore_meshes_by_name() {
        let mut hidden = HiddenMeshes::default();
        let (a, b) = (InstanceId(1), InstanceId(2));
        hidden.apply(EventKind::HideMesh, "Cape.msh restore", a);
        hidden.apply(EventKind::HideMesh, "helmet", b);
        let part = |name: &str| MeshPart { mesh: Default::default(), name: name.into(), submesh: 0 };
        assert!(hidden.hides(&part("cape"), None) && hidden.hides(&part("HELMET"), None));
        hidden.restore_ended(|id| id == b);
        assert!(!hidden.hides(&part("cape"), None), "the clip that hid it with restore ended");
        assert!(hidden.hides(&part("helmet"), None), "no restore: stays hidden");
        hidden.apply(EventKind::ShowMesh, "Helmet", b);
        assert_eq!(hidden, HiddenMeshes::default());
        hidden.apply(EventKind::HideWeapon, "", a);
        assert!(hidden.weapon);
    }
}
