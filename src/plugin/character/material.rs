//! Material scripts as Bevy's `StandardMaterial`s: each material's
//! [`Surface`], the one reading of a script that
//! the glTF export shares, with its diffuse texture loaded from `.dds`.

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Assets, Handle, LoadContext};
use bevy::color::Color;
use bevy::ecs::prelude::*;
use bevy::image::{CompressedImageFormats, Image};
use bevy::log::warn;
use bevy::material::AlphaMode;
use bevy::mesh::UvChannel;
use bevy::pbr::StandardMaterial;
use bevy::reflect::TypePath;
use bevy::reflect::{Reflect, std_traits::ReflectDefault};
use bevy::render::render_resource::Face;
use bevy::time::Time;

use crate::format::{Dds, Material, MaterialScript};
use crate::plugin::assets::read_all;
use crate::plugin::{Io3dAssetLabel, Io3dLoadError};
use crate::resource::ResourceKind;
use crate::surface::{Faces, REFLECTANCE, ROUGHNESS, Surface, SurfaceTexture, Transparency, UvMotion, uv_transform};

use super::paths::linked_path;
use super::texture::{checker, to_image, unit_sampler};

/// The `StandardMaterial` that stands for a material (its [`Surface`]),
/// with `texture` as its diffuse texture.
pub fn to_standard_material(material: &Material, texture: Option<Handle<Image>>) -> StandardMaterial {
    let surface = Surface::of(material);
    let [r, g, b, a] = surface.base_color;
    let [er, eg, eb] = surface.emissive;
    let cull_mode = culled(surface.faces);
    let double_sided = cull_mode.is_none();
    StandardMaterial {
        base_color: Color::srgba(r, g, b, a),
        base_color_texture: texture,
        base_color_channel: match surface.texture {
            Some(SurfaceTexture { uv_set: 1, .. }) => UvChannel::Uv1,
            _ => UvChannel::Uv0,
        },
        emissive: Color::srgb(er, eg, eb).into(),
        perceptual_roughness: ROUGHNESS,
        metallic: 0.0,
        reflectance: REFLECTANCE,
        alpha_mode: match surface.transparency {
            Transparency::Opaque => AlphaMode::Opaque,
            Transparency::Mask(cutoff) => AlphaMode::Mask(cutoff),
            Transparency::Blend => AlphaMode::Blend,
            Transparency::Add => AlphaMode::Add,
            Transparency::Multiply => AlphaMode::Multiply,
        },
        unlit: surface.unlit,
        double_sided,
        cull_mode,
        ..StandardMaterial::default()
    }
}

/// The faces Bevy culls so that `faces` are drawn (meshes load with their
/// winding swapped with the axes, so the script's sides hold).
pub fn culled(faces: Faces) -> Option<Face> {
    match faces {
        Faces::Both => None,
        Faces::Back => Some(Face::Front),
        Faces::Front => Some(Face::Back),
    }
}

/// A material script loaded as an asset: the script, and one
/// `StandardMaterial` a material block (sub-assets `Material0`, ...), the
/// i-th for submesh i.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct Io3dMaterial {
    /// The script as read.
    pub script: MaterialScript,
    /// One a material block, in order.
    pub materials: Vec<Handle<StandardMaterial>>,
    /// Texture names the script asks for that could not be read or
    /// decoded, with why; they show a checker.
    pub missing_textures: Vec<(String, String)>,
    /// How each material's diffuse texture moves (`scroll_anim`, ...),
    /// which `animate_textures` plays.
    pub uv_motions: Vec<Vec<UvMotion>>,
}

/// The clock texture animation runs on, in seconds: the frame's time
/// while it runs. A tool that shows a fixed instant sets it and pauses it.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Reflect)]
#[reflect(Resource, Default)]
pub struct TextureClock {
    /// Seconds since it started.
    pub seconds: f32,
    /// Whether it stands still.
    pub paused: bool,
}

/// Moves the UVs of every material whose script animates its texture, by
/// the client's rules ([`crate::surface::motion`]).
pub(crate) fn animate_textures(
    time: Res<Time>,
    mut clock: ResMut<TextureClock>,
    scripts: Res<Assets<Io3dMaterial>>,
    mut standard: ResMut<Assets<StandardMaterial>>,
) {
    if !clock.paused {
        clock.seconds += time.delta_secs();
    }
    for (_, script) in scripts.iter() {
        for (handle, motions) in script.materials.iter().zip(&script.uv_motions).filter(|(_, m)| !m.is_empty()) {
            if let Some(mut material) = standard.get_mut(handle) {
                material.uv_transform = uv_transform(motions, clock.seconds);
            }
        }
    }
}

/// Loads material scripts (`.txt`, the material folder's) as
/// [`Io3dMaterial`]s. Model configs are `.txt` too: load scripts as
/// `Handle<Io3dMaterial>` so that Bevy picks this loader.
///
/// Textures are read by this loader, from the resource folder's `texture`
/// folder (or beside a script that is in no resource folder), and stored
/// as sub-assets (`Texture0`, ...): a texture that is missing or broken
/// becomes a checker instead of a failed load, and editing a texture
/// reloads the materials that use it.
#[derive(Debug, Default, TypePath)]
pub struct MaterialLoader {
    /// The BC formats the GPU takes; others are decoded on the CPU.
    pub formats: CompressedImageFormats,
}

impl Io3dMaterial {
    /// The asset for `script`, given each material's diffuse texture as
    /// read (`None` where a material names none, an error where it could
    /// not be read or decoded: a checker then stands in). `store` keeps
    /// each material's texture, when it has one, and its material (which
    /// should point at the stored texture) and returns the material's
    /// handle: sub-assets in a loader, `Assets` elsewhere.
    pub fn build(
        script: MaterialScript,
        textures: Vec<Option<(String, Result<Dds, String>)>>,
        formats: CompressedImageFormats,
        mut store: impl FnMut(usize, Option<Image>, StandardMaterial) -> Handle<StandardMaterial>,
    ) -> Self {
        let mut missing_textures = Vec::new();
        let mut materials = Vec::new();
        for (index, (material, texture)) in script.materials.iter().zip(textures).enumerate() {
            let unit = material.diffuse_texture();
            let image = texture.zip(unit).map(|((name, dds), unit)| match dds {
                Ok(dds) => to_image(&dds, formats, unit_sampler(unit)),
                Err(why) => {
                    missing_textures.push((name, why));
                    checker()
                }
            });
            materials.push(store(index, image, to_standard_material(material, None)));
        }
        let uv_motions = script.materials.iter().map(|m| Surface::of(m).uv_motion).collect();
        Self { script, materials, missing_textures, uv_motions }
    }
}

impl AssetLoader for MaterialLoader {
    type Asset = Io3dMaterial;
    type Settings = ();
    type Error = Io3dLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<Io3dMaterial, Io3dLoadError> {
        let script = MaterialScript::parse(&read_all(reader).await?)?;
        let mut textures = Vec::new();
        for material in &script.materials {
            let name = material.diffuse_texture().and_then(|unit| unit.texture.clone());
            textures.push(match name {
                Some(name) => {
                    let path = linked_path(context.path(), ResourceKind::Material, ResourceKind::Texture, &name);
                    let read = context.read_asset_bytes(path.clone()).await.map_err(|e| e.to_string());
                    let dds = read.and_then(|bytes| Dds::from_bytes(&bytes).map_err(|e| e.to_string()));
                    Some((name, dds.map_err(|why| format!("{path}: {why}"))))
                }
                None => None,
            });
        }
        let material = Io3dMaterial::build(script, textures, self.formats, |index, image, mut standard| {
            standard.base_color_texture =
                image.map(|image| context.add_labeled_asset(Io3dAssetLabel::Texture(index).to_string(), image));
            context.add_labeled_asset(Io3dAssetLabel::Material(index).to_string(), standard)
        });
        for (name, why) in &material.missing_textures {
            warn!("{}: texture '{name}': {why}; showing a checker", context.path());
        }
        Ok(material)
    }

    fn extensions(&self) -> &[&str] {
        &["txt"]
    }
}
