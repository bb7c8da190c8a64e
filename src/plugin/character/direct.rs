//! Meshes built from files a program reads itself, outside the asset
//! server (the viewer reads any path it is given): the same assets the
//! loaders make, stored straight into `Assets`.

use bevy::asset::{Assets, Handle};
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::image::{CompressedImageFormatSupport, CompressedImageFormats, Image};
use bevy::mesh::Mesh;
use bevy::pbr::StandardMaterial;

use crate::format::{Dds, MaterialScript, msh};
use crate::plugin::axes::Axes;

use super::assets::Io3dMesh;
use super::material::Io3dMaterial;
use super::mesh::submesh_meshes;

/// The asset stores a mesh, its material script and its textures go into.
#[derive(SystemParam)]
pub struct CharacterStores<'w> {
    /// The meshes.
    pub meshes: ResMut<'w, Assets<Io3dMesh>>,
    /// Their material scripts.
    pub materials: ResMut<'w, Assets<Io3dMaterial>>,
    /// The Bevy meshes of their submeshes.
    pub parts: ResMut<'w, Assets<Mesh>>,
    /// The materials of their submeshes.
    pub standard: ResMut<'w, Assets<StandardMaterial>>,
    /// Their textures.
    pub images: ResMut<'w, Assets<Image>>,
    /// The BC formats the GPU takes, once the renderer has said.
    pub formats: Option<Res<'w, CompressedImageFormatSupport>>,
}

impl CharacterStores<'_> {
    /// Adds a mesh named `name` with its material script (`None` when the
    /// mesh has none: then, as in the client, it is not drawn), reading
    /// each texture the script names through `texture`. Returns the mesh
    /// and the textures that could not be read, with why (they show a
    /// checker).
    pub fn add_mesh(
        &mut self,
        name: &str,
        mesh: msh::Mesh,
        script: Option<MaterialScript>,
        mut texture: impl FnMut(&str) -> Result<Dds, String>,
    ) -> (Handle<Io3dMesh>, Vec<(String, String)>) {
        let formats = self.formats.as_ref().map_or(CompressedImageFormats::NONE, |f| f.0);
        let script = script.unwrap_or_else(|| MaterialScript {
            source: Vec::new(),
            materials: Vec::new(),
            warnings: Vec::new(),
        });
        let textures = script
            .materials
            .iter()
            .map(|m| m.diffuse_texture().and_then(|u| u.texture.clone()).map(|n| (n.clone(), texture(&n))))
            .collect();
        let (images, standard) = (&mut self.images, &mut self.standard);
        let material = Io3dMaterial::build(script, textures, formats, |_, image, mut material| {
            material.base_color_texture = image.map(|image| images.add(image));
            standard.add(material)
        });
        let missing = material.missing_textures.clone();
        let parts =
            submesh_meshes(&mesh, Axes::EngineToBevy).into_iter().map(|p| p.map(|p| self.parts.add(p))).collect();
        let material = self.materials.add(material);
        let handle = self.meshes.add(Io3dMesh { name: name.to_owned(), mesh, parts, material });
        (handle, missing)
    }
}
