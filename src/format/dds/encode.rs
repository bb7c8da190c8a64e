//! `.dds` textures written for the game: RGBA pixels as DXT1 or DXT5
//! blocks with every mip level, down to 1 x 1.
//!
//! The blocks are encoded by `texpresso` (squish's cluster fit, in pure
//! Rust); the header is [`Dds::to_bytes`]'s, so the crate's reader is the
//! judge of what is written. Each level is the one above it averaged over
//! 2 x 2 pixels, in the stored values as Direct3D's own box filter does.
//!
//! Sizes: the client loads textures with `D3DXCreateTextureFromFileInMemoryEx`
//! at width and height 0 ("from the file, rounded up to a power of two")
//! and no filter, so a side that is not a power of two is padded, not
//! scaled, and the mesh's UVs miss the picture. [`Dds::encode`] refuses
//! such pixels, naming the image and the sizes to resize it to: its
//! callers make their pixels and choose. [`Dds::encode_image`] (feature
//! `gltf`), for the PNG and JPEG files a glTF model brings, resizes them
//! to the nearest powers of two itself and tells its caller, who warns.

use thiserror::Error;

use super::{Dds, DdsFormat, MAX_SIDE};

/// Which block format to write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Blocks {
    /// DXT1 when every pixel is opaque (alpha 255), DXT5 otherwise: half
    /// the bytes where alpha is not used, smooth alpha where it is.
    #[default]
    ByAlpha,
    /// DXT1: 1-bit alpha, pixels of alpha below 128 become transparent.
    Dxt1,
    /// DXT5: interpolated alpha.
    Dxt5,
}

/// Why an image could not be written as a `.dds`, naming the image.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("texture '{image}': {problem}")]
pub struct EncodeError {
    /// The image's name, as the caller gave it.
    pub image: String,
    /// What is wrong with it.
    pub problem: EncodeProblem,
}

/// What is wrong with an image given to [`Dds::encode`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeProblem {
    /// The pixels are not width x height x 4 bytes.
    #[error("{width} x {height} RGBA pixels are {expected} bytes, {found} given")]
    PixelBytes {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// The bytes that size needs.
        expected: usize,
        /// The bytes given.
        found: usize,
    },
    /// A side of 0 or more than Direct3D 9 loads.
    #[error("{width} x {height}: each side must be 1 to {MAX_SIDE} pixels")]
    Size {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// A side that is not a power of two.
    #[error(
        "{width} x {height} is not a power of two on each side: the game pads such a texture to {} x {} \
         without scaling it, so UVs miss the picture; resize it to {} x {} or {} x {}",
        width.next_power_of_two(), height.next_power_of_two(),
        below(*width), below(*height), width.next_power_of_two(), height.next_power_of_two()
    )]
    NotPowerOfTwo {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// Image bytes this crate does not decode, or a broken image.
    #[error("{0}")]
    Image(String),
}

/// The power of two at or below `side`.
fn below(side: u32) -> u32 {
    1 << (31 - side.max(1).leading_zeros())
}

impl Dds {
    /// Encodes `width` x `height` RGBA pixels (rows top to bottom, 8 bits a
    /// channel) as a texture the game loads, with a full mip chain. `image`
    /// names the image in errors.
    pub fn encode(image: &str, width: u32, height: u32, rgba: &[u8], blocks: Blocks) -> Result<Self, EncodeError> {
        let refuse = |problem| Err(EncodeError { image: image.to_owned(), problem });
        if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
            return refuse(EncodeProblem::Size { width, height });
        }
        let expected = width as usize * height as usize * 4;
        if rgba.len() != expected {
            return refuse(EncodeProblem::PixelBytes { width, height, expected, found: rgba.len() });
        }
        if !width.is_power_of_two() || !height.is_power_of_two() {
            return refuse(EncodeProblem::NotPowerOfTwo { width, height });
        }
        let format = match blocks {
            Blocks::ByAlpha if rgba.chunks_exact(4).all(|px| px[3] == 255) => DdsFormat::Dxt1,
            Blocks::Dxt1 => DdsFormat::Dxt1,
            Blocks::ByAlpha | Blocks::Dxt5 => DdsFormat::Dxt5,
        };
        let mut levels = Vec::new();
        let mut level = (width, height, rgba.to_vec());
        loop {
            let (w, h, pixels) = &level;
            levels.push(compress(format, *w, *h, pixels));
            if (*w, *h) == (1, 1) {
                break;
            }
            level = half(*w, *h, pixels);
        }
        Ok(Self { width, height, format, levels })
    }
}

/// One level's blocks.
fn compress(format: DdsFormat, width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let blocks = match format {
        DdsFormat::Dxt1 => texpresso::Format::Bc1,
        _ => texpresso::Format::Bc3,
    };
    let mut out = vec![0; format.level_len(width, height)];
    blocks.compress(rgba, width as usize, height as usize, texpresso::Params::default(), &mut out);
    out
}

/// The next level: each pixel the rounded mean of the 2 x 2 above it (of
/// the 2 x 1 or 1 x 2 once a side is 1).
fn half(width: u32, height: u32, rgba: &[u8]) -> (u32, u32, Vec<u8>) {
    let (w, h) = (width as usize, height as usize);
    let (half_w, half_h) = ((w / 2).max(1), (h / 2).max(1));
    let texel = |x: usize, y: usize, c: usize| u32::from(rgba[(y.min(h - 1) * w + x.min(w - 1)) * 4 + c]);
    let mut out = Vec::with_capacity(half_w * half_h * 4);
    for y in 0..half_h {
        for x in 0..half_w {
            let (x0, y0) = (2 * x, 2 * y);
            for c in 0..4 {
                let sum = texel(x0, y0, c) + texel(x0 + 1, y0, c) + texel(x0, y0 + 1, c) + texel(x0 + 1, y0 + 1, c);
                out.push(((sum + 2) / 4) as u8);
            }
        }
    }
    (half_w as u32, half_h as u32, out)
}

/// An image file made a texture by [`Dds::encode_image`].
#[cfg(feature = "gltf")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedImage {
    /// The texture.
    pub dds: Dds,
    /// Set when a side was not a power of two and the picture was
    /// resized: the caller says so, as the texture is not its source's size.
    pub resized: Option<Resized>,
}

/// A picture resized to powers of two, from and to (width, height).
#[cfg(feature = "gltf")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resized {
    /// The image's own size.
    pub from: (u32, u32),
    /// The texture's size.
    pub to: (u32, u32),
}

#[cfg(feature = "gltf")]
impl std::fmt::Display for Resized {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let Self { from, to } = self;
        write!(
            f,
            "{} x {} resized to {} x {}, as the game would pad it without scaling and UVs would miss the picture",
            from.0, from.1, to.0, to.1
        )
    }
}

#[cfg(feature = "gltf")]
impl Dds {
    /// [`Dds::encode`] of an image file's bytes, as glTF embeds them: PNG
    /// of any colour type and depth or JPEG (baseline or progressive), made
    /// 8-bit RGBA. A side that is not a power of two is resized to the
    /// nearest one (which the game would otherwise pad, see the module's
    /// doc), and [`EncodedImage::resized`] says so.
    pub fn encode_image(image: &str, bytes: &[u8], blocks: Blocks) -> Result<EncodedImage, EncodeError> {
        let picture = decode(bytes).map_err(|problem| EncodeError { image: image.to_owned(), problem })?;
        let from = picture.dimensions();
        let to = (nearest_power_of_two(from.0), nearest_power_of_two(from.1));
        let (picture, resized) =
            if from == to { (picture, None) } else { (resize(picture, to), Some(Resized { from, to })) };
        let dds = Self::encode(image, to.0, to.1, picture.as_raw(), blocks)?;
        Ok(EncodedImage { dds, resized })
    }
}

/// A PNG or JPEG as 8-bit RGBA; its size is checked before its pixels are
/// read, so a huge image is refused rather than allocated.
#[cfg(feature = "gltf")]
fn decode(bytes: &[u8]) -> Result<image::RgbaImage, EncodeProblem> {
    use image::{DynamicImage, ImageDecoder, ImageFormat};
    let (format, name) = match image::guess_format(bytes) {
        Ok(ImageFormat::Png) => (ImageFormat::Png, "PNG"),
        Ok(ImageFormat::Jpeg) => (ImageFormat::Jpeg, "JPEG"),
        _ => {
            let found: Vec<u8> = bytes.iter().take(8).copied().collect();
            return Err(EncodeProblem::Image(format!("neither PNG nor JPEG: it starts with {found:02x?}")));
        }
    };
    let broken = |e: image::ImageError| EncodeProblem::Image(format!("a broken {name}: {e}"));
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    // The sides are checked here instead: the library's default memory
    // limit (512 MiB) would refuse a 16384 x 16384 texture the game loads.
    reader.no_limits();
    let decoder = reader.into_decoder().map_err(broken)?;
    let (width, height) = decoder.dimensions();
    if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
        return Err(EncodeProblem::Size { width, height });
    }
    Ok(DynamicImage::from_decoder(decoder).map_err(broken)?.into_rgba8())
}

/// The power of two nearest `side` (the larger at a tie, keeping detail);
/// never above [`MAX_SIDE`], itself a power of two, for a side within it.
#[cfg(feature = "gltf")]
fn nearest_power_of_two(side: u32) -> u32 {
    let (low, high) = (below(side), side.next_power_of_two());
    if side - low < high - side { low } else { high }
}

/// `picture` resized to `width` x `height` with a Lanczos3 filter, in
/// colours premultiplied by alpha (as the filter assumes), so that the
/// colour of transparent pixels, often black, does not darken the edges of
/// what is drawn. In floats, so that faint pixels keep their colour.
#[cfg(feature = "gltf")]
fn resize(picture: image::RgbaImage, (width, height): (u32, u32)) -> image::RgbaImage {
    use image::imageops::{self, FilterType};
    let mut premultiplied = image::DynamicImage::ImageRgba8(picture).into_rgba32f();
    for pixel in premultiplied.pixels_mut() {
        let alpha = pixel[3];
        pixel.0[..3].iter_mut().for_each(|c| *c *= alpha);
    }
    let mut resized = imageops::resize(&premultiplied, width, height, FilterType::Lanczos3);
    for pixel in resized.pixels_mut() {
        // Lanczos rings a little past 0 and 1.
        let alpha = pixel[3].clamp(0.0, 1.0);
        pixel.0[..3].iter_mut().for_each(|c| *c = if alpha > 0.0 { *c / alpha } else { 0.0 });
        pixel[3] = alpha;
    }
    image::DynamicImage::ImageRgba32F(resized).into_rgba8()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `width` x `height` pixels of `pixel` (x, y).
    fn image(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
        (0..height).flat_map(|y| (0..width).map(move |x| (x, y))).flat_map(|(x, y)| pixel(x, y)).collect()
    }

    /// A test picture as textures are: colours changing smoothly (red
    /// across, green down, blue in rings), alpha from `alpha` (x, y).
    fn picture(width: u32, height: u32, alpha: impl Fn(u32, u32) -> u8) -> Vec<u8> {
        let (w, h) = (width as f32, height as f32);
        image(width, height, |x, y| {
            let ring = ((x as f32 - w / 2.0).hypot(y as f32 - h / 2.0) * 0.15).sin();
            [(255 * x / width) as u8, (255 * y / height) as u8, (127.0 + 60.0 * ring) as u8, alpha(x, y)]
        })
    }

    /// The largest difference of a channel and the root mean square one,
    /// between two RGBA images; `channels` picks which (0..3 colour, 3 alpha).
    fn error(a: &[u8], b: &[u8], channels: std::ops::Range<usize>) -> (u8, f64) {
        assert_eq!(a.len(), b.len());
        let diffs: Vec<u8> = (a.chunks_exact(4).zip(b.chunks_exact(4)))
            .flat_map(|(p, q)| channels.clone().map(move |c| p[c].abs_diff(q[c])))
            .collect();
        let mean_square = diffs.iter().map(|&d| f64::from(d).powi(2)).sum::<f64>() / diffs.len() as f64;
        (diffs.iter().copied().max().unwrap_or(0), mean_square.sqrt())
    }

    /// The top level decoded by texpresso itself: what the encoder meant
    /// its blocks to show.
    fn texpresso_decode(dds: &Dds) -> Vec<u8> {
        let format = if dds.format == DdsFormat::Dxt1 { texpresso::Format::Bc1 } else { texpresso::Format::Bc3 };
        let mut out = vec![0; dds.width as usize * dds.height as usize * 4];
        format.decompress(&dds.levels[0], dds.width as usize, dds.height as usize, &mut out);
        out
    }

    /// Written, read back by [`Dds::from_bytes`], and the same value.
    fn through_the_reader(dds: &Dds) -> Dds {
        let read = Dds::from_bytes(&dds.to_bytes()).unwrap();
        assert_eq!(&read, dds);
        read
    }

    /// Encodes, reads back, and measures colour and alpha against the
    /// source: (largest, root mean square) each, and the largest gap
    /// between the crate's decoder and the encoder's.
    fn measure(rgba: &[u8], w: u32, h: u32, blocks: Blocks) -> (Dds, (u8, f64), (u8, f64), u8) {
        let dds = through_the_reader(&Dds::encode("picture", w, h, rgba, blocks).unwrap());
        let decoded = dds.decode(0);
        let decoders = error(&texpresso_decode(&dds), &decoded, 0..4).0;
        (dds.clone(), error(rgba, &decoded, 0..3), error(rgba, &decoded, 3..4), decoders)
    }

    #[test]
    fn an_opaque_image_is_dxt1_and_decodes_within_dxt_error() {
        let (dds, (colour, rms), _, decoders) = measure(&picture(128, 64, |_, _| 255), 128, 64, Blocks::ByAlpha);
        eprintln!("DXT1: colour within {colour} (rms {rms:.2}); the decoders differ by {decoders}");
        assert_eq!(dds.format, DdsFormat::Dxt1);
        assert!(colour <= 16 && rms < 3.5, "{colour} {rms}");
        assert!(decoders <= 1, "{decoders}");
        assert!(dds.decode(0).chunks_exact(4).all(|px| px[3] == 255));
    }

    #[test]
    fn an_image_with_alpha_is_dxt5_and_keeps_its_alpha() {
        let rgba = picture(128, 64, |x, y| (x + y) as u8);
        let (dds, (colour, rms), (alpha, alpha_rms), decoders) = measure(&rgba, 128, 64, Blocks::ByAlpha);
        eprintln!(
            "DXT5: colour within {colour} (rms {rms:.2}), alpha within {alpha} (rms {alpha_rms:.2}); \
             the decoders differ by {decoders}"
        );
        assert_eq!(dds.format, DdsFormat::Dxt5);
        assert!(colour <= 16 && rms < 3.5, "{colour} {rms}");
        assert!(alpha <= 2 && alpha_rms < 0.5, "{alpha} {alpha_rms}");
        assert!(decoders <= 1, "{decoders}");
    }

    #[test]
    fn one_pixel_below_255_alpha_makes_it_dxt5_and_the_caller_may_choose() {
        let mut rgba = picture(8, 8, |_, _| 255);
        let choose = |rgba: &[u8], blocks| Dds::encode("x", 8, 8, rgba, blocks).unwrap().format;
        assert_eq!(choose(&rgba, Blocks::Dxt5), DdsFormat::Dxt5);
        rgba[4 * 37 + 3] = 254;
        assert_eq!(choose(&rgba, Blocks::ByAlpha), DdsFormat::Dxt5);
        assert_eq!(choose(&rgba, Blocks::Dxt1), DdsFormat::Dxt1);
        // DXT1's one bit: below 128 is transparent, the rest opaque.
        rgba[4 * 37 + 3] = 100;
        let cut = Dds::encode("x", 8, 8, &rgba, Blocks::Dxt1).unwrap().decode(0);
        assert_eq!((cut[4 * 37 + 3], cut[4 * 36 + 3]), (0, 255));
    }

    #[test]
    fn every_level_down_to_one_by_one_is_the_box_mean_of_the_one_above() {
        let rgba = picture(64, 16, |x, _| if x < 32 { 255 } else { 0 });
        let dds = through_the_reader(&Dds::encode("mips", 64, 16, &rgba, Blocks::ByAlpha).unwrap());
        assert!(dds.has_full_chain());
        let sizes: Vec<(u32, u32)> = (0..dds.levels.len()).map(|l| dds.level_size(l)).collect();
        assert_eq!(sizes, [(64, 16), (32, 8), (16, 4), (8, 2), (4, 1), (2, 1), (1, 1)]);
        for (l, level) in dds.levels.iter().enumerate() {
            let (w, h) = sizes[l];
            assert_eq!(level.len(), DdsFormat::Dxt5.level_len(w, h), "level {l}");
        }
        // Left half opaque, right half transparent, down to 2 x 1; then
        // half and half.
        assert_eq!(dds.decode(5).iter().skip(3).step_by(4).copied().collect::<Vec<_>>(), [255, 0]);
        let one = dds.decode(6);
        assert!(one[3].abs_diff(128) <= 1, "{one:?}");
        let checkers = [0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255];
        assert_eq!(half(2, 2, &checkers), (1, 1, vec![128, 128, 128, 255]));
    }

    #[test]
    fn sizes_below_a_block_and_long_thin_ones_round_trip() {
        let mut worst = 0;
        for (w, h) in [(1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 8), (8, 2), (16, 4), (128, 4)] {
            // A grey ramp (on one DXT colour line, with less range in a
            // block than its four colours span) and two alphas.
            let rgba = image(w, h, |x, y| {
                let grey = (4 * (x + y)).min(255) as u8;
                [grey, grey, grey, if (x + y) % 3 == 0 { 255 } else { 40 }]
            });
            let (dds, (colour, _), (alpha, _), _) = measure(&rgba, w, h, Blocks::ByAlpha);
            assert_eq!(dds.levels.len(), (w.max(h).ilog2() + 1) as usize, "{w} x {h}");
            assert!(dds.has_full_chain());
            worst = worst.max(colour).max(alpha);
        }
        eprintln!("sizes below a block and thin ones: within {worst} a channel");
        assert!(worst <= 8, "{worst}");
    }

    #[test]
    fn bad_sizes_and_pixel_counts_are_refused_naming_the_image() {
        let refused = |w: u32, h: u32, len: usize| Dds::encode("skin.png", w, h, &vec![0; len], Blocks::ByAlpha);
        let npot = refused(300, 200, 300 * 200 * 4).unwrap_err();
        assert_eq!(npot.problem, EncodeProblem::NotPowerOfTwo { width: 300, height: 200 });
        let text = npot.to_string();
        assert!(text.starts_with("texture 'skin.png': 300 x 200 is not a power of two"), "{text}");
        assert!(text.contains("resize it to 256 x 128 or 512 x 256"), "{text}");
        assert!(matches!(refused(3, 4, 48).unwrap_err().problem, EncodeProblem::NotPowerOfTwo { .. }));
        assert!(matches!(refused(0, 4, 0).unwrap_err().problem, EncodeProblem::Size { .. }));
        assert!(matches!(refused(32768, 1, 32768 * 4).unwrap_err().problem, EncodeProblem::Size { .. }));
        let short = refused(4, 4, 63).unwrap_err();
        assert_eq!(short.problem, EncodeProblem::PixelBytes { width: 4, height: 4, expected: 64, found: 63 });
    }

    /// A PNG of `data` in the given colour type and depth.
    #[cfg(feature = "gltf")]
    fn png(width: u32, height: u32, color: png::ColorType, depth: png::BitDepth, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(color);
        encoder.set_depth(depth);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(data).unwrap();
        writer.finish().unwrap();
        out
    }

    /// The texture of an image file, which must need no resizing.
    #[cfg(feature = "gltf")]
    fn from_file(bytes: &[u8]) -> Dds {
        let encoded = Dds::encode_image("a.png", bytes, Blocks::ByAlpha).unwrap();
        assert_eq!(encoded.resized, None);
        encoded.dds
    }

    /// Why an image file is refused, as said.
    #[cfg(feature = "gltf")]
    fn refused(bytes: &[u8]) -> String {
        Dds::encode_image("body.jpg", bytes, Blocks::ByAlpha).unwrap_err().to_string()
    }

    #[cfg(feature = "gltf")]
    #[test]
    fn png_of_any_colour_type_encodes_as_its_rgba() {
        use png::{BitDepth, ColorType};
        let rgba = picture(16, 8, |x, _| (x * 16) as u8);
        let rgb: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        let opaque: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2], 255]).collect();
        let as_rgba = |pixels: &[u8]| Dds::encode("a.png", 16, 8, pixels, Blocks::ByAlpha).unwrap();
        assert_eq!(from_file(&png(16, 8, ColorType::Rgba, BitDepth::Eight, &rgba)), as_rgba(&rgba));
        assert_eq!(from_file(&png(16, 8, ColorType::Rgb, BitDepth::Eight, &rgb)), as_rgba(&opaque));
        // Grey and alpha, 16 bits a channel, scaled to 8 (v * 257 is v).
        let grey16: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[0], p[3], p[3]]).collect();
        let grey: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[0], p[0], p[3]]).collect();
        assert_eq!(from_file(&png(16, 8, ColorType::GrayscaleAlpha, BitDepth::Sixteen, &grey16)), as_rgba(&grey));
    }

    #[cfg(feature = "gltf")]
    #[test]
    fn broken_unknown_and_huge_images_are_refused_naming_them() {
        use png::{BitDepth, ColorType};
        assert!(refused(b"GIF89a").contains("neither PNG nor JPEG: it starts with [47, 49, 46, 38, 39, 61]"));
        let mut cut = png(16, 8, ColorType::Rgb, BitDepth::Eight, &[7; 16 * 8 * 3]);
        cut.truncate(cut.len() / 2);
        assert!(refused(&cut).starts_with("texture 'body.jpg': a broken PNG"), "{}", refused(&cut));
        let header_only = refused(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F']);
        assert!(header_only.starts_with("texture 'body.jpg': a broken JPEG"), "{header_only}");
        let wide = png(20000, 1, ColorType::Grayscale, BitDepth::One, &[0; 2500]);
        assert!(refused(&wide).contains("20000 x 1: each side must be 1 to 16384 pixels"), "{}", refused(&wide));
    }

    /// The source's pixel under each pixel's centre of an image resized
    /// from `from` to `to`.
    #[cfg(feature = "gltf")]
    fn sampled(rgba: &[u8], from: (u32, u32), to: (u32, u32)) -> Vec<u8> {
        let under = |x: u32, to: u32, from: u32| ((x as f32 + 0.5) * from as f32 / to as f32) as usize;
        image(to.0, to.1, |x, y| {
            let at = (under(y, to.1, from.1) * from.0 as usize + under(x, to.0, from.0)) * 4;
            rgba[at..at + 4].try_into().unwrap()
        })
    }

    #[cfg(feature = "gltf")]
    #[test]
    fn a_baseline_jpeg_encodes_within_jpeg_and_dxt_error() {
        let rgba = picture(128, 64, |_, _| 255);
        let rgb: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
            .encode(&rgb, 128, 64, image::ExtendedColorType::Rgb8)
            .unwrap();
        let dds = through_the_reader(&from_file(&jpeg));
        let (colour, rms) = error(&rgba, &dds.decode(0), 0..3);
        eprintln!("baseline JPEG (quality 90) and DXT1: colour within {colour} (rms {rms:.2})");
        assert_eq!((dds.width, dds.height, dds.format), (128, 64, DdsFormat::Dxt1));
        assert!(dds.has_full_chain());
        assert!(colour <= 24 && rms < 4.0, "{colour} {rms}");
    }

    /// A 16 x 16 progressive JPEG (ImageMagick, quality 95, no chroma
    /// subsampling) of four 8 x 8 squares: the colours of [`QUADRANTS`].
    #[cfg(feature = "gltf")]
    const PROGRESSIVE_JPEG: &str = concat!(
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoK",
        "CgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoK",
        "CgoKCgoKCgr/wgARCAAQABADAREAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwYJ/8QAGAEAAgMAAAAAAAAAAAAAAAAABggC",
        "Bwn/2gAMAwEAAhADEAAAAR8JaC+lneVt8eaYJfZ3/8QAFBABAAAAAAAAAAAAAAAAAAAAIP/aAAgBAQABBQIf/8QAFBEBAAAAAAAA",
        "AAAAAAAAAAAAIP/aAAgBAwEBPwEf/8QAFBEBAAAAAAAAAAAAAAAAAAAAIP/aAAgBAgEBPwEf/8QAFBABAAAAAAAAAAAAAAAAAAAA",
        "IP/aAAgBAQAGPwIf/8QAFBABAAAAAAAAAAAAAAAAAAAAIP/aAAgBAQABPyEf/9oADAMBAAIAAwAAABAAD//EABQRAQAAAAAAAAAA",
        "AAAAAAAAACD/2gAIAQMBAT8QH//EABQRAQAAAAAAAAAAAAAAAAAAACD/2gAIAQIBAT8QH//EABQQAQAAAAAAAAAAAAAAAAAAACD/",
        "2gAIAQEAAT8QH//Z",
    );

    /// Top left, top right, bottom left, bottom right.
    #[cfg(feature = "gltf")]
    const QUADRANTS: [[u8; 3]; 4] = [[0xc0, 0x20, 0x20], [0x20, 0xa0, 0x40], [0x20, 0x40, 0xc0], [0xf0, 0xe0, 0xa0]];

    #[cfg(feature = "gltf")]
    #[test]
    fn a_progressive_jpeg_encodes_within_jpeg_and_dxt_error() {
        use base64::Engine;
        let jpeg = base64::engine::general_purpose::STANDARD.decode(PROGRESSIVE_JPEG).unwrap();
        // SOF2: progressive, Huffman coded.
        assert!(jpeg.windows(2).any(|m| m == [0xFF, 0xC2]));
        let expected = image(16, 16, |x, y| {
            let [r, g, b] = QUADRANTS[(y / 8 * 2 + x / 8) as usize];
            [r, g, b, 255]
        });
        let dds = through_the_reader(&from_file(&jpeg));
        let (colour, rms) = error(&expected, &dds.decode(0), 0..3);
        eprintln!("progressive JPEG (quality 95) and DXT1: colour within {colour} (rms {rms:.2})");
        assert_eq!((dds.width, dds.height, dds.format), (16, 16, DdsFormat::Dxt1));
        assert!(dds.has_full_chain());
        assert!(colour <= 8 && rms < 2.0, "{colour} {rms}");
    }

    #[cfg(feature = "gltf")]
    #[test]
    fn sides_not_powers_of_two_are_resized_to_the_nearest_and_said() {
        use png::{BitDepth, ColorType};
        let rgba = picture(300, 200, |x, y| (x + y).min(255) as u8);
        let file = png(300, 200, ColorType::Rgba, BitDepth::Eight, &rgba);
        let encoded = Dds::encode_image("skin.png", &file, Blocks::ByAlpha).unwrap();
        let resized = encoded.resized.unwrap();
        assert_eq!(resized, Resized { from: (300, 200), to: (256, 256) });
        assert!(resized.to_string().starts_with("300 x 200 resized to 256 x 256, as the game would pad it"));
        let dds = through_the_reader(&encoded.dds);
        assert_eq!((dds.width, dds.height, dds.format, dds.levels.len()), (256, 256, DdsFormat::Dxt5, 9));
        assert!(dds.has_full_chain());
        let decoded = dds.decode(0);
        let under = sampled(&rgba, (300, 200), (256, 256));
        let ((colour, rms), (alpha, alpha_rms)) = (error(&under, &decoded, 0..3), error(&under, &decoded, 3..4));
        eprintln!(
            "300 x 200 to 256 x 256 and DXT5, against the source under each pixel: colour within {colour} \
             (rms {rms:.2}), alpha within {alpha} (rms {alpha_rms:.2})"
        );
        assert!(colour <= 24 && rms < 4.0, "{colour} {rms}");
        assert!(alpha <= 6 && alpha_rms < 2.0, "{alpha} {alpha_rms}");
        let sides: Vec<u32> = [1, 2, 3, 5, 6, 7, 12, 300, 383, 384, 385, 16383].map(nearest_power_of_two).into();
        assert_eq!(sides, [1, 2, 4, 4, 8, 8, 16, 256, 256, 512, 512, 16384]);
    }

    #[cfg(feature = "gltf")]
    #[test]
    fn resizing_does_not_darken_what_borders_transparent_pixels() {
        // White on the right, transparent black on the left.
        let rgba = image(12, 4, |x, _| if x < 6 { [0; 4] } else { [255; 4] });
        let resized = resize(image::RgbaImage::from_raw(12, 4, rgba).unwrap(), (16, 4));
        let seen: Vec<[u8; 4]> = resized.pixels().map(|p| p.0).filter(|p| p[3] > 0).collect();
        assert!(seen.iter().any(|p| p[3] < 255), "{seen:?}");
        assert!(seen.iter().all(|p| p[..3] == [255; 3]), "{seen:?}");
    }
}
