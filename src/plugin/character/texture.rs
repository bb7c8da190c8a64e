//! `.dds` textures as Bevy images, sampled as a material's texture unit
//! says, with a checker for textures that are missing.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext, RenderAssetUsages};
use bevy::image::{
    CompressedImageFormats, Image, ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor,
};
use bevy::reflect::TypePath;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use crate::format::{AddressMode, Dds, DdsFormat, Filtering, TextureUnit};
use crate::plugin::Io3dLoadError;
use crate::plugin::assets::read_all;

/// A texture as Bevy image, colour in sRGB.
///
/// DXT files go to the GPU as they are (BC1, BC2, BC3) when it takes BC
/// formats (`formats`), the file holds every mip level and its size is a
/// multiple of 4. Otherwise the levels are decoded on the CPU into RGBA
/// and the missing levels are built by averaging, as the client builds a
/// full mip chain for files that hold one level.
pub fn to_image(dds: &Dds, formats: CompressedImageFormats, sampler: ImageSamplerDescriptor) -> Image {
    let bc = match dds.format {
        DdsFormat::Dxt1 => Some(TextureFormat::Bc1RgbaUnormSrgb),
        DdsFormat::Dxt3 => Some(TextureFormat::Bc2RgbaUnormSrgb),
        DdsFormat::Dxt5 => Some(TextureFormat::Bc3RgbaUnormSrgb),
        DdsFormat::Masked { .. } => None,
    };
    let direct = formats.contains(CompressedImageFormats::BC)
        && dds.has_full_chain()
        && dds.width.is_multiple_of(4)
        && dds.height.is_multiple_of(4);
    let (format, levels) = match bc.filter(|_| direct) {
        Some(format) => (format, dds.levels.clone()),
        None => (TextureFormat::Rgba8UnormSrgb, rgba_chain(dds)),
    };
    image(dds.width, dds.height, format, levels, sampler)
}

/// A 4 x 4 magenta and black checker: what a missing or unreadable texture
/// shows, so that it is seen, where the client draws a plain placeholder.
pub fn checker() -> Image {
    let pixels =
        (0..16).flat_map(|i| if (i % 4 + i / 4) % 2 == 0 { [255, 0, 255, 255] } else { [0, 0, 0, 255] }).collect();
    image(4, 4, TextureFormat::Rgba8UnormSrgb, vec![pixels], sampler(Filtering::None, AddressMode::Wrap))
}

/// The sampler a texture unit asks for: its address mode on both axes
/// (wrap by default) and its filtering (bilinear by default).
pub fn unit_sampler(unit: &TextureUnit) -> ImageSamplerDescriptor {
    sampler(unit.filtering, unit.address)
}

/// A sampler filtering and addressing as Direct3D's states of those names.
fn sampler(filtering: Filtering, address: AddressMode) -> ImageSamplerDescriptor {
    let linear = ImageSamplerDescriptor::linear();
    let mut sampler = match filtering {
        Filtering::None => ImageSamplerDescriptor::nearest(),
        Filtering::Bilinear => ImageSamplerDescriptor { mipmap_filter: ImageFilterMode::Nearest, ..linear },
        Filtering::Trilinear => linear,
        Filtering::Anisotropic => ImageSamplerDescriptor { anisotropy_clamp: 16, ..linear },
    };
    let mode = match address {
        AddressMode::Wrap => ImageAddressMode::Repeat,
        AddressMode::Clamp => ImageAddressMode::ClampToEdge,
        AddressMode::Mirror => ImageAddressMode::MirrorRepeat,
    };
    (sampler.address_mode_u, sampler.address_mode_v) = (mode, mode);
    sampler
}

/// An image of `levels` (largest first) of a `width` x `height` texture.
fn image(
    width: u32,
    height: u32,
    format: TextureFormat,
    levels: Vec<Vec<u8>>,
    sampler: ImageSamplerDescriptor,
) -> Image {
    let size = Extent3d { width, height, depth_or_array_layers: 1 };
    let mut image = Image::new_uninit(size, TextureDimension::D2, format, RenderAssetUsages::default());
    image.texture_descriptor.mip_level_count = levels.len() as u32;
    image.data = Some(levels.concat());
    image.sampler = ImageSampler::Descriptor(sampler);
    image
}

/// Every level down to 1 x 1 as RGBA: the file's own, decoded, then the
/// rest built by averaging 2 x 2 texels.
fn rgba_chain(dds: &Dds) -> Vec<Vec<u8>> {
    let mut levels: Vec<Vec<u8>> = (0..dds.levels.len().max(1)).map(|level| dds.decode(level)).collect();
    let mut size = dds.level_size(levels.len() - 1);
    while size != (1, 1) {
        let next = ((size.0 / 2).max(1), (size.1 / 2).max(1));
        let half = half_size(levels.last().map_or(&[][..], Vec::as_slice), size, next);
        levels.push(half);
        size = next;
    }
    levels
}

/// A level averaged down to `to` from `from`.
fn half_size(rgba: &[u8], from: (u32, u32), to: (u32, u32)) -> Vec<u8> {
    let (fw, fh) = (from.0 as usize, from.1 as usize);
    let texel = |x: usize, y: usize, c: usize| u32::from(rgba[(y.min(fh - 1) * fw + x.min(fw - 1)) * 4 + c]);
    let mut out = Vec::with_capacity(to.0 as usize * to.1 as usize * 4);
    for y in 0..to.1 as usize {
        for x in 0..to.0 as usize {
            for c in 0..4 {
                let (x2, y2) = (x * 2, y * 2);
                let sum = texel(x2, y2, c) + texel(x2 + 1, y2, c) + texel(x2, y2 + 1, c) + texel(x2 + 1, y2 + 1, c);
                out.push(((sum + 2) / 4) as u8);
            }
        }
    }
    out
}

/// Loads `.dds` files as sRGB [`Image`]s, wrapping and bilinear as the
/// client samples them by default.
#[derive(Debug, Default, TypePath)]
pub struct DdsLoader {
    /// The BC formats the GPU takes; others are decoded on the CPU.
    pub formats: CompressedImageFormats,
}

impl AssetLoader for DdsLoader {
    type Asset = Image;
    type Settings = ();
    type Error = Io3dLoadError;

    async fn load(&self, reader: &mut dyn Reader, _: &(), _: &mut LoadContext<'_>) -> Result<Image, Io3dLoadError> {
        let dds = Dds::from_bytes(&read_all(reader).await?)?;
        Ok(to_image(&dds, self.formats, sampler(Filtering::Bilinear, AddressMode::Wrap)))
    }

    fn extensions(&self) -> &[&str] {
        &["dds"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_level_files_get_the_whole_chain_on_the_cpu() {
        let dds = Dds { width: 8, height: 4, format: DdsFormat::Dxt1, levels: vec![vec![0; 16]] };
        let image = to_image(&dds, CompressedImageFormats::BC, ImageSamplerDescriptor::linear());
        assert_eq!(image.texture_descriptor.format, TextureFormat::Rgba8UnormSrgb);
        assert_eq!(image.texture_descriptor.mip_level_count, 4);
        assert_eq!(image.data.as_ref().unwrap().len(), (32 + 8 + 2 + 1) * 4);
    }

    #[test]
    fn full_chains_go_to_the_gpu_as_bc_when_it_takes_them() {
        let levels = vec![vec![0; 16], vec![0; 8], vec![0; 8]];
        let dds = Dds { width: 4, height: 4, format: DdsFormat::Dxt1, levels };
        let bc = to_image(&dds, CompressedImageFormats::BC, ImageSamplerDescriptor::linear());
        assert_eq!(bc.texture_descriptor.format, TextureFormat::Bc1RgbaUnormSrgb);
        assert_eq!(bc.data.as_ref().unwrap().len(), 32);
        let cpu = to_image(&dds, CompressedImageFormats::NONE, ImageSamplerDescriptor::linear());
        assert_eq!(cpu.texture_descriptor.format, TextureFormat::Rgba8UnormSrgb);
        assert_eq!(cpu.data.as_ref().unwrap().len(), (16 + 4 + 1) * 4);
    }

    #[test]
    fn averaging_rounds_and_clamps_at_odd_edges() {
        let rgba = [[0, 0, 0, 255], [255, 255, 255, 255], [10, 20, 30, 40]].concat();
        assert_eq!(half_size(&rgba, (3, 1), (1, 1)), [128, 128, 128, 255]);
    }
}
