//! `.msh`, `.cms` and model configs as Bevy assets, with their loaders.

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext, RenderAssetUsages};
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use bevy::reflect::TypePath;
use serde::{Deserialize, Serialize};

use crate::format::{Collision, ModelConfig, msh};
use crate::plugin::assets::{AniClip, SklSkeleton, read_all};
use crate::plugin::axes::Axes;
use crate::plugin::{Io3dAssetLabel, Io3dLoadError};
use crate::resource::ResourceKind;

use super::material::Io3dMaterial;
use super::mesh::submesh_meshes;
use super::paths::linked_path;
use crate::anim::swapped_triangles;

/// A mesh loaded from a `.msh`, with its material script.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct Io3dMesh {
    /// The mesh's name: its file name without the extension.
    pub name: String,
    /// The file's contents.
    pub mesh: msh::Mesh,
    /// One Bevy mesh a submesh record (sub-assets `Submesh0`, ...), `None`
    /// for a submesh without faces ([`super::submesh_meshes`]).
    pub parts: Vec<Option<Handle<Mesh>>>,
    /// The script named after the mesh, from the resource folder's
    /// `material` folder (or beside a mesh in no resource folder): submesh
    /// i draws with its i-th material, and without one it is not drawn, as
    /// in the client.
    pub material: Handle<Io3dMaterial>,
}

/// A collision mesh loaded from a `.cms`, with a Bevy mesh of its
/// triangles (sub-asset `Mesh`) to show it.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct Io3dCollision {
    /// The file's contents.
    pub collision: Collision,
    /// Its triangles in Bevy's axes, without normals.
    pub mesh: Handle<Mesh>,
}

/// A model config loaded with every file it names.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct Io3dModel {
    /// What the config says.
    pub config: ModelConfig,
    /// `#SKELETON`.
    pub skeleton: Option<Handle<SklSkeleton>>,
    /// `#MESH_LIST`, in order.
    pub meshes: Vec<Handle<Io3dMesh>>,
    /// `#ANIMATION_LIST`: each name as written, with its clip, for the
    /// clips loaded with the config (all of them by default; see
    /// [`ModelLoaderSettings`]).
    pub animations: Vec<(String, Handle<AniClip>)>,
    /// `#ANIMATION_LIST`: each name as written, with the asset path the
    /// game's folder rules give it, loaded or not.
    pub animation_paths: Vec<(String, AssetPath<'static>)>,
}

impl Io3dModel {
    /// The clip the config lists under `name`, matched without case and
    /// with or without `.ani`, when it was loaded with the config.
    pub fn animation(&self, name: &str) -> Option<&Handle<AniClip>> {
        self.animations.iter().find(|(listed, _)| same_animation(listed, name)).map(|(_, clip)| clip)
    }

    /// Where the clip the config lists under `name` is, to load it when a
    /// game needs it (`asset_server.load(path)`).
    pub fn animation_path(&self, name: &str) -> Option<&AssetPath<'static>> {
        self.animation_paths.iter().find(|(listed, _)| same_animation(listed, name)).map(|(_, path)| path)
    }
}

/// Whether two animation names are the same by the client's rule.
fn same_animation(a: &str, b: &str) -> bool {
    crate::resource::name_key(a, ".ani") == crate::resource::name_key(b, ".ani")
}

/// Which of a config's animations load with it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AnimationLoading {
    /// Every one listed.
    #[default]
    All,
    /// Only the first, which a character plays when it is dressed: the
    /// game's configs list hundreds; load others through
    /// [`Io3dModel::animation_path`] when they are needed.
    First,
}

/// Per-load settings of [`ModelLoader`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelLoaderSettings {
    /// Which animations load with the config.
    pub animations: AnimationLoading,
}

/// Loads `.msh` files as [`Io3dMesh`]es in Bevy's axes, and their material
/// scripts as dependencies.
#[derive(Debug, Default, TypePath)]
pub struct MshLoader;

impl AssetLoader for MshLoader {
    type Asset = Io3dMesh;
    type Settings = ();
    type Error = Io3dLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<Io3dMesh, Io3dLoadError> {
        let mesh = msh::Mesh::from_bytes(&read_all(reader).await?)?;
        let parts = submesh_meshes(&mesh, Axes::EngineToBevy)
            .into_iter()
            .enumerate()
            .map(|(i, part)| part.map(|part| context.add_labeled_asset(Io3dAssetLabel::Submesh(i).to_string(), part)))
            .collect();
        let path = context.path().path();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let script = linked_path(context.path(), ResourceKind::Mesh, ResourceKind::Material, &format!("{name}.txt"));
        let material = context.load::<Io3dMaterial>(script);
        Ok(Io3dMesh { name, mesh, parts, material })
    }

    fn extensions(&self) -> &[&str] {
        &["msh"]
    }
}

/// Loads `.cms` files as [`Io3dCollision`]s in Bevy's axes.
#[derive(Debug, Default, TypePath)]
pub struct CmsLoader;

impl AssetLoader for CmsLoader {
    type Asset = Io3dCollision;
    type Settings = ();
    type Error = Io3dLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<Io3dCollision, Io3dLoadError> {
        let collision = Collision::from_bytes(&read_all(reader).await?)?;
        let axes = Axes::EngineToBevy;
        let positions: Vec<[f32; 3]> = collision.positions.iter().map(|&p| axes.position(p).to_array()).collect();
        let indices = swapped_triangles(&collision.indices, positions.len());
        let mesh = Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
            .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
            .with_inserted_indices(Indices::U16(indices));
        let mesh = context.add_labeled_asset(Io3dAssetLabel::CollisionMesh.to_string(), mesh);
        Ok(Io3dCollision { collision, mesh })
    }

    fn extensions(&self) -> &[&str] {
        &["cms"]
    }
}

/// Loads model configs (`.txt`, the model folder's) as [`Io3dModel`]s,
/// with the skeleton, meshes and animations they name as dependencies,
/// found by the client's folder rules. Material scripts are `.txt` too:
/// load configs as `Handle<Io3dModel>` so that Bevy picks this loader.
#[derive(Debug, Default, TypePath)]
pub struct ModelLoader;

impl AssetLoader for ModelLoader {
    type Asset = Io3dModel;
    type Settings = ModelLoaderSettings;
    type Error = Io3dLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &ModelLoaderSettings,
        context: &mut LoadContext<'_>,
    ) -> Result<Io3dModel, Io3dLoadError> {
        let config = ModelConfig::parse(&read_all(reader).await?)?;
        let here = context.path().clone_owned();
        let path = |kind, name: &str| linked_path(&here, ResourceKind::Model, kind, name);
        let skeleton = config.skeleton.as_deref().map(|name| context.load(path(ResourceKind::Skeleton, name)));
        let meshes =
            config.meshes.iter().map(|name| context.load(path(ResourceKind::Mesh, &format!("{name}.msh")))).collect();
        let animation_paths: Vec<(String, AssetPath<'static>)> =
            config.animations.iter().map(|name| (name.clone(), path(ResourceKind::Animation, name))).collect();
        let loaded = match settings.animations {
            AnimationLoading::All => animation_paths.len(),
            AnimationLoading::First => 1,
        };
        let animations = (animation_paths.iter().take(loaded))
            .map(|(name, path)| (name.clone(), context.load(path.clone())))
            .collect();
        Ok(Io3dModel { config, skeleton, meshes, animations, animation_paths })
    }

    fn extensions(&self) -> &[&str] {
        &["txt"]
    }
}
