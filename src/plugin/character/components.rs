//! A character's data: the components a game puts on an entity or reads
//! back ([`Io3dCharacter`], [`RigMeshes`], [`MeshPart`], [`HiddenMeshes`])
//! and those the plugin keeps. The systems that fill them live in
//! [`super::spawn`] and [`super::events`], which both read this module and
//! not each other.

use bevy::asset::{AssetId, Handle};
use bevy::camera::visibility::Visibility;
use bevy::ecs::prelude::*;
use bevy::reflect::{Reflect, std_traits::ReflectDefault};
use bevy::transform::components::Transform;

use crate::anim::InstanceId;
use crate::format::{EventKind, msh};
use crate::plugin::AniEvent;
use crate::plugin::axes::Axes;
use crate::resource::name_key;

use super::assets::{Io3dMesh, Io3dModel};

/// Put on an entity to make it the character a model config describes:
/// once the config is loaded the entity gets the config's skeleton as a
/// [`SklRig`](crate::plugin::SklRig), its meshes as [`RigMeshes`] and, unless it has one, an
/// [`AniPlayer`](crate::plugin::AniPlayer) playing the first animation listed ([`Io3dModel::animation`]
/// finds the others by name). Changing the handle or reloading the config
/// dresses it again.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_io3d::prelude::*;
/// fn setup(mut commands: Commands, assets: Res<AssetServer>) {
///     commands.spawn(Io3dCharacter::new(assets.load("resource/model/animodel/biped.txt")));
/// }
/// ```
#[derive(Component, Debug, Clone, Default, Reflect)]
#[reflect(Component, Default)]
#[require(Transform, Visibility)]
pub struct Io3dCharacter {
    /// The model config.
    pub model: Handle<Io3dModel>,
}

impl Io3dCharacter {
    /// The character of a model config.
    pub fn new(model: Handle<Io3dModel>) -> Self {
        Self { model }
    }
}

/// The meshes drawn on a rig ([`SklRig`](crate::plugin::SklRig)), skinned to its bones. Push or
/// remove handles to add or take off equipment on a live character (a
/// weapon is a mesh skinned to `Bip01 R Hand`): the rig's mesh entities
/// are spawned again. On an entity without a [`SklRig`](crate::plugin::SklRig) (a map, a prop,
/// a weapon on a stand: a model config with no skeleton) the meshes are
/// drawn as they are stored, skinned ones at their bind pose.
#[derive(Component, Debug, Clone, Default, Reflect)]
#[reflect(Component, Default)]
#[require(Visibility, HiddenMeshes, Axes)]
pub struct RigMeshes(pub Vec<Handle<Io3dMesh>>);

/// One drawn submesh of a rig's mesh: a child of the rig with `Mesh3d`,
/// its material and, for skinned meshes, a `SkinnedMesh` on the rig's bones
/// (with bounds that follow the joints, so an animated mesh is never
/// culled by its bind-pose box).
#[derive(Component, Debug, Clone, PartialEq, Reflect)]
#[reflect(Component)]
pub struct MeshPart {
    /// The mesh.
    pub mesh: AssetId<Io3dMesh>,
    /// Its name ([`Io3dMesh::name`]), for events that show and hide meshes.
    pub name: String,
    /// The submesh record it draws.
    pub submesh: usize,
    /// Its material is skin by the client's rule
    /// ([`Material::is_skin`](crate::format::Material::is_skin)): a toon
    /// look shows the character's skin colour
    /// ([`ToonShaded::skin`](super::ToonShaded::skin)) where its texture's
    /// alpha is low.
    pub skin: bool,
}

/// The model a character was dressed from.
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Component)]
pub struct DressedFrom(pub(super) AssetId<Io3dModel>);

/// The mesh entities spawned for a rig's [`RigMeshes`].
#[derive(Component, Debug, Clone, Default, Reflect)]
#[reflect(Component, Default)]
pub struct SpawnedParts(pub(super) Vec<Entity>);

impl SpawnedParts {
    /// The part entities ([`MeshPart`]).
    pub fn parts(&self) -> &[Entity] {
        &self.0
    }
}

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
    pub fn apply(&mut self, event: &AniEvent, instance: InstanceId) {
        let switched = event.mesh.as_ref().map(|switch| (name_key(&switch.mesh, ".msh"), switch.restore));
        match (event.kind, switched) {
            (EventKind::HideMesh, Some((name, restore))) => {
                self.meshes.retain(|(n, _)| *n != name);
                self.meshes.push((name, restore.then_some(instance)));
            }
            (EventKind::ShowMesh, Some((name, _))) => self.meshes.retain(|(n, _)| *n != name),
            (EventKind::HideWeapon, _) => self.weapon = true,
            (EventKind::ShowWeapon, _) => self.weapon = false,
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
                let name = crate::anim::names::loose_key(name.as_bytes());
                name.ends_with("hand") || name.ends_with("forearm")
            })
    })
}
