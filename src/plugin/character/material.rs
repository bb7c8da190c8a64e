//! Material scripts as Bevy's `StandardMaterial`s.
//!
//! The client draws each pass of a material with an HLSL effect; Bevy has
//! one physically based material. The first pass, the one that lays down
//! the colour, becomes a `StandardMaterial`:
//!
//! - its diffuse texture (the first unit that names a file) on the unit's
//!   UV set, sampled with the unit's address mode and filtering;
//! - the material's diffuse colour as base colour, its emissive colour;
//! - `scene_blend` and `alpha_test` as the alpha mode: alpha test is a
//!   mask, `src_alpha`-style blends are blends, `add` adds and a multiply
//!   multiplies; DXT alpha is otherwise ignored (in these files it is
//!   often a mask for the shader, not transparency);
//! - `cull none` two-sided, `cull clockwise` culling front faces;
//!   `lighting false` unlit.
//!
//! Approximations: the toon ramp of `AnimateToonShade` (the light texture
//! unit) is replaced by a rough, non-metallic surface with little
//! specular; later passes are not drawn, so the `AnimateOutLine` hull
//! and the `Animate` multiply pass are missing; texture animation
//! (`scroll_anim`, `anim_texture`, ...) does not run.

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Handle, LoadContext};
use bevy::color::{Color, LinearRgba};
use bevy::image::{CompressedImageFormats, Image};
use bevy::log::warn;
use bevy::material::AlphaMode;
use bevy::mesh::UvChannel;
use bevy::pbr::StandardMaterial;
use bevy::reflect::TypePath;
use bevy::render::render_resource::Face;
use thiserror::Error;

use crate::format::{BlendFactor, BlendOp, Cull, Dds, Material, MaterialError, MaterialScript, Pass};
use crate::plugin::assets::read_all;
use crate::resource::ResourceKind;

use super::paths::linked_path;
use super::texture::{checker, to_image, unit_sampler};

/// The `StandardMaterial` that stands for a material (see the module
/// docs), with `texture` as its diffuse texture.
pub fn to_standard_material(material: &Material, texture: Option<Handle<Image>>) -> StandardMaterial {
    let [r, g, b, a] = material.diffuse;
    let [er, eg, eb, _] = material.emissive;
    let mut standard = StandardMaterial {
        base_color: Color::srgba(r, g, b, a),
        base_color_texture: texture,
        emissive: LinearRgba::rgb(er, eg, eb),
        perceptual_roughness: 0.9,
        metallic: 0.0,
        reflectance: 0.2,
        ..StandardMaterial::default()
    };
    if let Some(unit) = material.diffuse_texture() {
        standard.base_color_channel = if unit.uv_set == 1 { UvChannel::Uv1 } else { UvChannel::Uv0 };
    }
    if let Some(pass) = material.passes().first() {
        standard.alpha_mode = alpha_mode(pass);
        standard.unlit = !pass.lighting;
        (standard.double_sided, standard.cull_mode) = match pass.cull {
            Cull::None => (true, None),
            Cull::Clockwise => (false, Some(Face::Front)),
            Cull::CounterClockwise => (false, Some(Face::Back)),
        };
    }
    standard
}

/// How a pass's blend and alpha test look in Bevy's alpha modes.
fn alpha_mode(pass: &Pass) -> AlphaMode {
    use BlendFactor::{DestColor, One, SrcAlpha, SrcColor, Zero};
    if let Some(test) = pass.alpha_test {
        return AlphaMode::Mask(test.value.clamp(0, 255) as f32 / 255.0);
    }
    if !pass.is_transparent() {
        return AlphaMode::Opaque;
    }
    match (pass.blend.op, pass.blend.src, pass.blend.dest) {
        (BlendOp::Add, SrcAlpha | One, One) => AlphaMode::Add,
        (BlendOp::Add, Zero, SrcColor) | (BlendOp::Add, DestColor, Zero) => AlphaMode::Multiply,
        _ => AlphaMode::Blend,
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

/// Why a material script did not load.
#[derive(Debug, Error)]
pub enum MaterialLoadError {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
    /// The script is not one the client reads.
    #[error(transparent)]
    Format(#[from] MaterialError),
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
        Self { script, materials, missing_textures }
    }
}

impl AssetLoader for MaterialLoader {
    type Asset = Io3dMaterial;
    type Settings = ();
    type Error = MaterialLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<Io3dMaterial, MaterialLoadError> {
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
                image.map(|image| context.add_labeled_asset(format!("Texture{index}"), image));
            context.add_labeled_asset(format!("Material{index}"), standard)
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
