//! Materials and textures going in: each glTF material as one of the
//! game's script templates, each image it shows as a `.dds`.

use std::collections::BTreeMap;

use ::gltf::material::AlphaMode;

use crate::format::dds::{Blocks, Dds};
use crate::format::material::template::{Alpha, OutlinePass, Template, TemplateKind};

use super::super::{GltfDocument, GltfError};
use super::names::{name_stem, unused};

/// The textures made so far, by file name, and which image or colour
/// each stands for.
#[derive(Debug, Default)]
pub struct Textures {
    /// File name to `.dds` bytes.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Image index (or colour) to file name.
    made: BTreeMap<Source, String>,
    /// Images resized to powers of two, said once each: the textures
    /// are not their sources' sizes.
    pub warnings: Vec<String>,
}

/// What a texture is made from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Image(usize),
    /// An untextured material's colour, as sRGB bytes.
    Colour([u8; 4]),
}

/// The template for a submesh drawn with `material` (glTF's default one
/// for a primitive that names none), on a character (`skinned`: the toon
/// look with its outline) or a prop; its texture made into `textures`.
pub fn template(
    file: &GltfDocument,
    material: &::gltf::Material,
    skinned: bool,
    textures: &mut Textures,
) -> Result<Template, GltfError> {
    let kind = if skinned { TemplateKind::Toon } else { TemplateKind::Static };
    let pbr = material.pbr_metallic_roughness();
    let texture = match pbr.base_color_texture() {
        Some(info) => textures.image(file, &info.texture().source())?,
        None => textures.colour(pbr.base_color_factor())?,
    };
    let mut template = Template::new(kind, texture);
    template.alpha = match material.alpha_mode() {
        AlphaMode::Opaque => Alpha::Opaque,
        AlphaMode::Mask => Alpha::Test(material.alpha_cutoff().unwrap_or(0.5)),
        AlphaMode::Blend => Alpha::Blend,
    };
    template.two_sided = material.double_sided();
    template.unlit = material.unlit();
    template.outline = skinned.then(OutlinePass::default);
    Ok(template)
}

impl Textures {
    /// The `.dds` of a glTF image, made once.
    fn image(&mut self, file: &GltfDocument, image: &::gltf::Image) -> Result<String, GltfError> {
        if let Some(name) = self.made.get(&Source::Image(image.index())) {
            return Ok(name.clone());
        }
        let stem = image.name().map_or_else(|| format!("image_{}", image.index()), name_stem);
        let name = self.unused(&stem);
        let bytes = file.image(image)?;
        let encoded =
            Dds::encode_image(&name, &bytes, Blocks::ByAlpha).map_err(|e| GltfError::Unsupported(e.to_string()))?;
        if let Some(resized) = encoded.resized {
            self.warnings.push(format!("texture '{name}': {resized}"));
        }
        self.add(Source::Image(image.index()), name, &encoded.dds)
    }

    /// A small texture of one colour (glTF's linear factor), for a
    /// material with no image: every game script names a texture.
    fn colour(&mut self, linear: [f32; 4]) -> Result<String, GltfError> {
        let srgb = |c: f32| {
            (if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 } * 255.0).round() as u8
        };
        let rgba = [srgb(linear[0]), srgb(linear[1]), srgb(linear[2]), (linear[3] * 255.0).round() as u8];
        if let Some(name) = self.made.get(&Source::Colour(rgba)) {
            return Ok(name.clone());
        }
        let name = self.unused(&format!("colour_{:02x}{:02x}{:02x}{:02x}", rgba[0], rgba[1], rgba[2], rgba[3]));
        let pixels = rgba.repeat(16);
        let dds =
            Dds::encode(&name, 4, 4, &pixels, Blocks::ByAlpha).map_err(|e| GltfError::Unsupported(e.to_string()))?;
        self.add(Source::Colour(rgba), name, &dds)
    }

    fn add(&mut self, source: Source, name: String, dds: &Dds) -> Result<String, GltfError> {
        self.files.insert(name.clone(), dds.to_bytes());
        self.made.insert(source, name.clone());
        Ok(name)
    }

    /// `stem.dds`, or `stem_2.dds`, ... where that name is taken.
    fn unused(&self, stem: &str) -> String {
        let taken: Vec<String> = self.files.keys().map(|n| n.trim_end_matches(".dds").to_owned()).collect();
        format!("{}.dds", unused(stem, &taken))
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine;

    use super::*;

    #[test]
    fn an_image_whose_sides_are_not_powers_of_two_is_resized_and_said_once() {
        let mut png = Vec::new();
        let mut encoder = png::Encoder::new(&mut png, 300, 200);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[90; 300 * 200 * 3]).unwrap();
        writer.finish().unwrap();
        let uri = base64::engine::general_purpose::STANDARD.encode(&png);
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"images":[{{"name":"skin","uri":"data:image/png;base64,{uri}"}}]}}"#
        );
        let file = GltfDocument::from_slice(json.as_bytes(), None).unwrap();
        let image = file.document.images().next().unwrap();
        let mut textures = Textures::default();
        assert_eq!(textures.image(&file, &image).unwrap(), "skin.dds");
        assert_eq!(textures.image(&file, &image).unwrap(), "skin.dds");
        assert_eq!(
            textures.warnings,
            ["texture 'skin.dds': 300 x 200 resized to 256 x 256, as the game would pad it without scaling and \
              UVs would miss the picture"]
        );
        let dds = Dds::from_bytes(&textures.files["skin.dds"]).unwrap();
        assert_eq!((dds.width, dds.height), (256, 256));
        // One grey, within DXT1's 5 and 6 bits a channel.
        assert!(dds.decode(0).chunks_exact(4).all(|p| p[..3].iter().all(|c| c.abs_diff(90) <= 2) && p[3] == 255));
    }
}
