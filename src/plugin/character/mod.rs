//! Whole characters (feature `characters`): `.msh` meshes, `.cms`
//! collision meshes, material scripts, `.dds` textures and model configs as
//! Bevy assets, and characters spawned from a config with every mesh
//! skinned to the rig's bones as the client skins them.
//!
//! Its modules, each private, its public types re-exported here:
//!
//! | module | what it holds |
//! |---|---|
//! | `mesh` | `.msh` to Bevy meshes (axes, winding, the client's weights) and inverse binds |
//! | `texture` | `.dds` to images (BC on the GPU, or decoded on the CPU), checkers for missing ones |
//! | `material` | material scripts to `StandardMaterial`s, and what is approximated |
//! | `paths` | the client's folder rules on asset paths |
//! | `assets` | the mesh, collision and model config assets and loaders |
//! | `direct` | the same assets built from files a program reads itself |
//! | `spawn` | the systems that dress an [`Io3dCharacter`] and skin its [`RigMeshes`] (equipment) |
//! | `events` | the client's mesh events (`hide_mesh`, `show_mesh`, `hide_weapon`, `show_weapon`) on a rig's meshes |
//! | `outline` | the outline pass as an inverted hull a mesh part carries |
//! | `toon` | the toon pass as a material, on the rigs that ask for it |

mod assets;
pub(crate) mod components;
mod direct;
mod events;
mod material;
pub(crate) mod mesh;
mod outline;
mod palette;
mod paths;
mod spawn;
pub(crate) mod texture;
mod toon;
mod upload;

pub use assets::{
    AnimationLoading, CmsLoader, Io3dCollision, Io3dMesh, Io3dModel, ModelLoader, ModelLoaderSettings, MshLoader,
};
pub use components::{HiddenMeshes, Io3dCharacter, MeshPart, RigMeshes, SpawnedParts};
pub use direct::CharacterStores;
pub use material::{Io3dMaterial, MaterialLoader, TextureClock, to_standard_material};
pub use mesh::{inverse_bindposes, submesh_meshes};
pub use outline::{OutlineHull, Outlines};
pub use palette::{
    ATTRIBUTE_PALETTE_JOINTS, ATTRIBUTE_PALETTE_WEIGHTS, PaletteDrawing, PaletteMaterial, PaletteReach, PaletteSkin,
    PaletteToon, PaletteToonMaterial,
};
pub use texture::{DdsLoader, checker, to_image};
pub use toon::{Shadeable, ToonLight, ToonMaterial, ToonShaded, ToonShading};

use bevy::app::{App, PostUpdate};
use bevy::asset::{AssetApp, Assets};
use bevy::ecs::schedule::IntoScheduleConfigs;
use bevy::ecs::schedule::common_conditions::resource_exists;
use bevy::image::{CompressedImageFormatSupport, CompressedImageFormats};
use bevy::mesh::skinning::SkinnedMeshInverseBindposes;
use bevy::pbr::StandardMaterial;

use bevy::camera::visibility::VisibilitySystems;

use super::{Io3dSystems, rig};

/// Registers the character assets and types (from `Io3dPlugin::build`).
pub(super) fn build(app: &mut App) {
    // Toon shading draws, so its material needs Bevy's renderer; its
    // system runs wherever its materials are assets.
    if app.is_plugin_added::<bevy::pbr::PbrPlugin>() {
        bevy::asset::embedded_asset!(app, "toon.wgsl");
        app.add_plugins(bevy::pbr::MaterialPlugin::<ToonMaterial>::default());
        // WebGL2 has no storage buffers: the palette path falls back to
        // the crowd path there (`player::NoPalette`).
        #[cfg(not(target_arch = "wasm32"))]
        {
            bevy::asset::embedded_asset!(app, "palette.wgsl");
            app.add_plugins((
                bevy::pbr::MaterialPlugin::<PaletteMaterial>::default(),
                bevy::pbr::MaterialPlugin::<PaletteToonMaterial>::default(),
            ));
        }
    }
    // The palette path's drawing, wherever its slab has a GPU copy (see
    // `finish`).
    app.add_systems(
        PostUpdate,
        (
            (upload::size_palette_buffer, palette::follow_slots).after(Io3dSystems::Pose),
            palette::follow_surfaces
                .after(material::animate_textures)
                .run_if(resource_exists::<Assets<StandardMaterial>>),
        )
            .before(VisibilitySystems::CalculateBounds)
            .run_if(resource_exists::<PaletteDrawing>),
    );
    app.add_systems(
        PostUpdate,
        (
            toon::apply_toon::<StandardMaterial>.run_if(resource_exists::<Assets<ToonMaterial>>),
            toon::apply_toon::<PaletteMaterial>.run_if(resource_exists::<Assets<PaletteToonMaterial>>),
        )
            .after(Io3dSystems::Spawn)
            .before(Io3dSystems::Bind),
    );
    app.init_asset::<Io3dMesh>()
        .init_asset::<Io3dCollision>()
        .init_asset::<Io3dMaterial>()
        .init_asset::<Io3dModel>()
        .register_asset_loader(MshLoader)
        .register_asset_loader(CmsLoader)
        .register_asset_loader(ModelLoader)
        .register_type::<Io3dCharacter>()
        .register_type::<RigMeshes>()
        .register_type::<MeshPart>()
        .register_type::<HiddenMeshes>()
        .register_type::<OutlineHull>()
        .init_resource::<Outlines>()
        .init_resource::<TextureClock>()
        .init_resource::<toon::ToonMaterials<StandardMaterial>>()
        .init_resource::<toon::ToonMaterials<PaletteMaterial>>()
        .register_type::<ToonShaded>()
        .register_type::<TextureClock>()
        .register_type::<components::DressedFrom>()
        .register_type::<components::SpawnedParts>()
        .add_observer(events::follow_mesh_events)
        .add_systems(PostUpdate, events::show_meshes.after(Io3dSystems::Advance).before(Io3dSystems::Pose))
        // Apps without Bevy's materials only animate.
        .add_systems(
            PostUpdate,
            material::animate_textures.in_set(Io3dSystems::Pose).run_if(resource_exists::<Assets<StandardMaterial>>),
        )
        .add_systems(
            PostUpdate,
            (
                spawn::dress_characters.before(rig::spawn_rigs),
                spawn::skin_meshes
                    .after(rig::spawn_rigs)
                    // Apps without Bevy's meshes only animate.
                    .run_if(resource_exists::<Assets<SkinnedMeshInverseBindposes>>)
                    .run_if(resource_exists::<Assets<StandardMaterial>>),
            )
                .in_set(Io3dSystems::Spawn),
        )
        // Skinned meshes' bounds follow the joints written after propagation.
        .configure_sets(PostUpdate, Io3dSystems::WorldPose.before(VisibilitySystems::CalculateBounds));
}

/// Registers the loaders that make images (from `Io3dPlugin::finish`,
/// once the renderer has said which compressed formats the GPU takes).
pub(super) fn finish(app: &mut App) {
    let formats =
        app.world().get_resource::<CompressedImageFormatSupport>().map_or(CompressedImageFormats::NONE, |s| s.0);
    app.register_asset_loader(MaterialLoader { formats }).register_asset_loader(DdsLoader { formats });
    if app.world().contains_resource::<Assets<bevy::render::storage::ShaderBuffer>>()
        && app.world().contains_resource::<Assets<PaletteMaterial>>()
    {
        app.init_resource::<PaletteDrawing>();
        if let Some(render) = app.get_sub_app_mut(bevy::render::RenderApp) {
            render.add_systems(bevy::render::ExtractSchedule, upload::write_palettes);
        }
    }
}
