//! `.dds` textures as the game ships them: DXT1, DXT3 and DXT5 blocks, or
//! uncompressed pixels described by bit masks, with their mip levels.
//!
//! Only what Direct3D 9's loader takes from these files is read: the
//! 128-byte header (`"DDS "`, then the 124-byte `DDS_HEADER`), then each
//! level's bytes in turn. Cube maps, volumes and the DX10 extension header
//! are refused with a clear error: the game's character and map textures
//! are none of those. The header is parsed here rather than by a general
//! DDS crate so that every refusal names its byte offset; the blocks are
//! decoded by `bcdec_rs`. [`Dds::encode`] makes new textures for the game
//! from RGBA pixels (DXT1 or DXT5, every mip level), written by the same
//! [`Dds::to_bytes`].

use thiserror::Error;

use super::bytes::{ReadError, Reader};

mod encode;

pub use encode::{Blocks, EncodeError, EncodeProblem};
#[cfg(feature = "gltf")]
pub use encode::{EncodedImage, Resized};

/// The four bytes every `.dds` starts with.
pub const DDS_MAGIC: [u8; 4] = *b"DDS ";

/// Bytes before the first level: the magic and the header.
pub const HEADER_LEN: usize = 128;

/// The longest side, in pixels, Direct3D 9 loads.
pub const MAX_SIDE: u32 = 16384;

/// Byte offset of the pixel format's flags.
const PIXEL_FORMAT_AT: usize = 80;
/// `DDPF_ALPHAPIXELS`: the alpha mask is meaningful.
const ALPHA_PIXELS: u32 = 0x1;
/// `DDPF_FOURCC`: the pixels are compressed, named by the FourCC.
const FOURCC: u32 = 0x4;
/// `DDSD_MIPMAPCOUNT`: the mip count field is meaningful.
const MIPMAP_COUNT: u32 = 0x2_0000;
/// `DDSCAPS2_CUBEMAP` and `DDSCAPS2_VOLUME`.
const CUBE_OR_VOLUME: u32 = 0x200 | 0x20_0000;

/// How the pixels of a texture are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DdsFormat {
    /// DXT1 (BC1): 8 bytes a 4x4 block, 1-bit alpha.
    Dxt1,
    /// DXT3 (BC2): 16 bytes a block, explicit 4-bit alpha.
    Dxt3,
    /// DXT5 (BC3): 16 bytes a block, interpolated alpha.
    Dxt5,
    /// Uncompressed: `bits` a pixel (8, 16, 24 or 32), each channel where
    /// its mask says; a zero alpha mask means opaque.
    Masked {
        /// Bits a pixel.
        bits: u32,
        /// Red, green, blue and alpha masks.
        masks: [u32; 4],
    },
}

impl DdsFormat {
    /// Bytes a 4x4 block holds, for the compressed formats.
    pub fn block_bytes(self) -> Option<usize> {
        match self {
            Self::Dxt1 => Some(8),
            Self::Dxt3 | Self::Dxt5 => Some(16),
            Self::Masked { .. } => None,
        }
    }

    /// Bytes one level of `width` x `height` pixels takes.
    pub fn level_len(self, width: u32, height: u32) -> usize {
        let (w, h) = (width.max(1) as usize, height.max(1) as usize);
        match self {
            Self::Masked { bits, .. } => w * h * (bits as usize / 8),
            compressed => w.div_ceil(4) * h.div_ceil(4) * compressed.block_bytes().unwrap_or(0),
        }
    }
}

/// A texture read from a `.dds`: its size, its format and the bytes of
/// each level, largest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dds {
    /// Width of the first level, in pixels.
    pub width: u32,
    /// Height of the first level, in pixels.
    pub height: u32,
    /// How the pixels are stored.
    pub format: DdsFormat,
    /// Each level's bytes, as stored.
    pub levels: Vec<Vec<u8>>,
}

/// Why bytes are not a `.dds` this crate reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DdsError {
    /// The file does not start with `"DDS "`.
    #[error("not a .dds file: it starts with {found:02x?}, not \"DDS \"")]
    BadMagic {
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// The bytes end early.
    #[error(transparent)]
    Truncated(#[from] ReadError),
    /// A header field holds something the game's textures never do.
    #[error("byte {at}: {what}")]
    Unsupported {
        /// Byte offset of the field.
        at: usize,
        /// What it holds.
        what: String,
    },
}

impl DdsError {
    /// The byte offset the error is about.
    pub fn offset(&self) -> usize {
        match self {
            Self::BadMagic { .. } => 0,
            Self::Truncated(cause) => cause.offset(),
            Self::Unsupported { at, .. } => *at,
        }
    }
}

impl Dds {
    /// Reads a `.dds`. Bytes after the last level are ignored, as Direct3D
    /// ignores them.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DdsError> {
        if bytes.get(..4) != Some(&DDS_MAGIC) {
            return Err(DdsError::BadMagic { found: bytes.iter().take(4).copied().collect() });
        }
        let field = |at: usize| reader_at(bytes, at).and_then(|mut r| r.u32("DDS header field"));
        let flags = field(8)?;
        let (height, width) = (field(12)?, field(16)?);
        let unsupported = |at: usize, what: String| Err(DdsError::Unsupported { at, what });
        if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
            return unsupported(12, format!("a {width} x {height} texture is not one Direct3D 9 loads"));
        }
        let caps2 = field(112)?;
        if caps2 & CUBE_OR_VOLUME != 0 {
            return unsupported(112, "a cube map or volume texture; the game's meshes use flat ones".into());
        }
        let format = pixel_format(bytes)?;
        let full_chain = 32 - width.max(height).leading_zeros();
        let stored = if flags & MIPMAP_COUNT != 0 { field(28)?.max(1) } else { 1 };
        let mut reader = reader_at(bytes, HEADER_LEN)?;
        let levels = (0..stored.min(full_chain))
            .map(|level| {
                let len = format.level_len(width >> level, height >> level);
                reader.take(len, "texture level").map(<[u8]>::to_vec)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { width, height, format, levels })
    }

    /// The file's bytes: a standard header for the size, format and levels
    /// (flags as Direct3D's own writer sets them), then the levels.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut header = [0u32; 31];
        let linear = matches!(self.format, DdsFormat::Masked { .. });
        header[0] = 124;
        header[1] = 0x1 | 0x2 | 0x4 | 0x1000 | if linear { 0x8 } else { 0x8_0000 } | MIPMAP_COUNT;
        (header[2], header[3]) = (self.height, self.width);
        header[4] = match self.format {
            DdsFormat::Masked { bits, .. } => self.width * bits / 8,
            compressed => compressed.level_len(self.width, self.height) as u32,
        };
        header[6] = self.levels.len() as u32;
        header[18] = 32;
        match self.format {
            DdsFormat::Masked { bits, masks } => {
                header[19] = 0x40 | if masks[3] != 0 { ALPHA_PIXELS } else { 0 };
                header[21] = bits;
                header[22..26].copy_from_slice(&masks);
            }
            compressed => {
                header[19] = FOURCC;
                header[20] = u32::from_le_bytes(match compressed {
                    DdsFormat::Dxt1 => *b"DXT1",
                    DdsFormat::Dxt3 => *b"DXT3",
                    _ => *b"DXT5",
                });
            }
        }
        header[26] = 0x1000 | if self.levels.len() > 1 { 0x40_0008 } else { 0 };
        let mut bytes = DDS_MAGIC.to_vec();
        bytes.extend(header.iter().flat_map(|v| v.to_le_bytes()));
        self.levels.iter().for_each(|level| bytes.extend_from_slice(level));
        bytes
    }

    /// The size of a level, in pixels.
    pub fn level_size(&self, level: usize) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }

    /// Whether the file holds every level down to 1 x 1. The client builds
    /// the missing ones itself.
    pub fn has_full_chain(&self) -> bool {
        self.levels.len() == self.full_chain_len()
    }

    /// How many levels a full chain of this size has (down to 1 x 1).
    pub fn full_chain_len(&self) -> usize {
        (32 - self.width.max(self.height).leading_zeros()) as usize
    }

    /// The format's name, with the block format GPUs know it by.
    pub fn format_name(&self) -> String {
        match self.format {
            DdsFormat::Dxt1 => "DXT1 (BC1: 8 bytes a 4 x 4 block, 1-bit alpha)".into(),
            DdsFormat::Dxt3 => "DXT3 (BC2: 16 bytes a 4 x 4 block, explicit alpha)".into(),
            DdsFormat::Dxt5 => "DXT5 (BC3: 16 bytes a 4 x 4 block, interpolated alpha)".into(),
            DdsFormat::Masked { bits, masks } => {
                let alpha = if masks[3] == 0 { "no alpha" } else { "with alpha" };
                format!("uncompressed, {bits} bits a pixel, {alpha} (masks {masks:x?})")
            }
        }
    }

    /// A level as 8-bit RGBA pixels, rows top to bottom. DXT1's
    /// transparent texels get alpha 0; masked formats without alpha get 255.
    /// Texels the level's bytes do not cover are transparent black.
    pub fn decode(&self, level: usize) -> Vec<u8> {
        let (width, height) = self.level_size(level);
        let data = self.levels.get(level).map_or(&[][..], Vec::as_slice);
        let mut rgba = match self.format {
            DdsFormat::Masked { bits, masks } => decode_masked(data, bits, masks),
            compressed => decode_blocks(compressed, data, width as usize, height as usize),
        };
        // A level made in code may hold fewer bytes than its size needs.
        rgba.resize(width as usize * height as usize * 4, 0);
        rgba
    }
}

/// A reader at byte `at` of the header.
fn reader_at(bytes: &[u8], at: usize) -> Result<Reader<'_>, ReadError> {
    let mut reader = Reader::new(bytes);
    reader.take(at, "DDS header")?;
    Ok(reader)
}

/// The pixel format at bytes 76..108.
fn pixel_format(bytes: &[u8]) -> Result<DdsFormat, DdsError> {
    let mut reader = reader_at(bytes, PIXEL_FORMAT_AT)?;
    let flags = reader.u32("pixel format flags")?;
    let fourcc = reader.take(4, "pixel format FourCC")?;
    let bits = reader.u32("bits a pixel")?;
    let masks =
        [reader.u32("red mask")?, reader.u32("green mask")?, reader.u32("blue mask")?, reader.u32("alpha mask")?];
    if flags & FOURCC != 0 {
        return match fourcc {
            b"DXT1" => Ok(DdsFormat::Dxt1),
            b"DXT2" | b"DXT3" => Ok(DdsFormat::Dxt3),
            b"DXT4" | b"DXT5" => Ok(DdsFormat::Dxt5),
            other => Err(DdsError::Unsupported {
                at: PIXEL_FORMAT_AT + 4,
                what: format!(
                    "pixel format '{}' is not one the game ships (DXT1, DXT3, DXT5 or uncompressed)",
                    String::from_utf8_lossy(other)
                ),
            }),
        };
    }
    if !matches!(bits, 8 | 16 | 24 | 32) {
        return Err(DdsError::Unsupported { at: PIXEL_FORMAT_AT + 8, what: format!("{bits} bits a pixel") });
    }
    let alpha = if flags & ALPHA_PIXELS != 0 || masks[..3] == [0; 3] { masks[3] } else { 0 };
    Ok(DdsFormat::Masked { bits, masks: [masks[0], masks[1], masks[2], alpha] })
}

/// Decodes DXT blocks into RGBA rows, clipping the blocks at the edges of
/// levels smaller than 4 pixels or not a multiple of 4.
fn decode_blocks(format: DdsFormat, data: &[u8], width: usize, height: usize) -> Vec<u8> {
    let block_bytes = format.block_bytes().unwrap_or(16);
    let mut rgba = vec![0; width * height * 4];
    let mut block = [0u8; 64];
    let blocks_wide = width.div_ceil(4);
    for (i, compressed) in data.chunks_exact(block_bytes).enumerate() {
        match format {
            DdsFormat::Dxt1 => bcdec_rs::bc1(compressed, &mut block, 16),
            DdsFormat::Dxt3 => bcdec_rs::bc2(compressed, &mut block, 16),
            _ => bcdec_rs::bc3(compressed, &mut block, 16),
        }
        let (bx, by) = (i % blocks_wide * 4, i / blocks_wide * 4);
        for row in 0..4.min(height.saturating_sub(by)) {
            let columns = 4.min(width - bx);
            let at = ((by + row) * width + bx) * 4;
            rgba[at..at + columns * 4].copy_from_slice(&block[row * 16..row * 16 + columns * 4]);
        }
    }
    rgba
}

/// Decodes uncompressed pixels by their masks into RGBA.
fn decode_masked(data: &[u8], bits: u32, masks: [u32; 4]) -> Vec<u8> {
    let size = bits as usize / 8;
    let channel = |pixel: u32, mask: u32, absent: u8| {
        if mask == 0 {
            return absent;
        }
        let value = (pixel & mask) >> mask.trailing_zeros();
        let max = mask >> mask.trailing_zeros();
        ((u64::from(value) * 255 + u64::from(max) / 2) / u64::from(max)) as u8
    };
    data.chunks_exact(size)
        .flat_map(|px| {
            let mut word = [0u8; 4];
            word[..size].copy_from_slice(px);
            let pixel = u32::from_le_bytes(word);
            // A luminance-only file has one mask: it stands for grey.
            let red = channel(pixel, masks[0], 0);
            let grey = masks[1] == 0 && masks[2] == 0;
            let green = if grey { red } else { channel(pixel, masks[1], 0) };
            let blue = if grey { red } else { channel(pixel, masks[2], 0) };
            [red, green, blue, channel(pixel, masks[3], 255)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DXT1 block of one colour (RGB565) everywhere.
    fn solid_dxt1(colour: u16) -> [u8; 8] {
        let [lo, hi] = colour.to_le_bytes();
        [lo, hi, lo, hi, 0, 0, 0, 0]
    }

    #[test]
    fn dxt1_levels_round_trip_and_decode() {
        let levels = vec![
            [solid_dxt1(0xF800), solid_dxt1(0x07E0), solid_dxt1(0x001F), solid_dxt1(0xFFFF)].concat(),
            solid_dxt1(0xF800).to_vec(),
            solid_dxt1(0x07E0).to_vec(),
            solid_dxt1(0x001F).to_vec(),
        ];
        let dds = Dds { width: 8, height: 6, format: DdsFormat::Dxt1, levels };
        let bytes = dds.to_bytes();
        let read = Dds::from_bytes(&bytes).unwrap();
        assert_eq!(read, dds);
        assert!(read.has_full_chain());
        assert_eq!(read.to_bytes(), bytes);
        let top = read.decode(0);
        assert_eq!(top.len(), 8 * 6 * 4);
        assert_eq!(top[..4], [255, 0, 0, 255]);
        assert_eq!(top[4 * 4..4 * 4 + 4], [0, 255, 0, 255]);
        // Row 4 is the second row of blocks: blue, then white.
        assert_eq!(top[4 * 8 * 4..4 * 8 * 4 + 4], [0, 0, 255, 255]);
        assert_eq!(read.decode(2), [0, 255, 0, 255, 0, 255, 0, 255]);
    }

    #[test]
    fn masked_pixels_decode_by_their_masks() {
        let masks = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000];
        let dds = Dds {
            width: 2,
            height: 1,
            format: DdsFormat::Masked { bits: 32, masks },
            levels: vec![vec![0x30, 0x20, 0x10, 0x80, 1, 2, 3, 4]],
        };
        let read = Dds::from_bytes(&dds.to_bytes()).unwrap();
        assert_eq!(read.decode(0), [0x10, 0x20, 0x30, 0x80, 3, 2, 1, 4]);
        let rgb565 = DdsFormat::Masked { bits: 16, masks: [0xF800, 0x07E0, 0x001F, 0] };
        assert_eq!(decode_masked(&0xF81Fu16.to_le_bytes(), 16, [0xF800, 0x07E0, 0x001F, 0]), [255, 0, 255, 255]);
        assert_eq!(rgb565.level_len(3, 2), 12);
    }

    #[test]
    fn refusals_name_the_byte() {
        let good = Dds { width: 4, height: 4, format: DdsFormat::Dxt5, levels: vec![vec![0; 16]] }.to_bytes();
        assert!(matches!(Dds::from_bytes(b"PNG"), Err(DdsError::BadMagic { .. })));
        let short = Dds::from_bytes(&good[..good.len() - 1]).unwrap_err();
        assert_eq!(short.offset(), HEADER_LEN);
        assert!(short.to_string().contains("texture level"), "{short}");
        let mut ati = good.clone();
        ati[84..88].copy_from_slice(b"ATI2");
        let error = Dds::from_bytes(&ati).unwrap_err();
        assert_eq!(error.offset(), 84);
        assert!(error.to_string().contains("'ATI2'"), "{error}");
        let mut cube = good.clone();
        cube[112] = 0x00;
        cube[113] = 0x02;
        assert_eq!(Dds::from_bytes(&cube).unwrap_err().offset(), 112);
        let mut huge = good;
        huge[12..16].copy_from_slice(&0u32.to_le_bytes());
        assert_eq!(Dds::from_bytes(&huge).unwrap_err().offset(), 12);
    }

    #[test]
    fn a_level_count_beyond_the_chain_stops_at_one_by_one() {
        let mut bytes = Dds { width: 4, height: 4, format: DdsFormat::Dxt1, levels: vec![vec![0; 8]; 3] }.to_bytes();
        bytes[28..32].copy_from_slice(&40u32.to_le_bytes());
        assert_eq!(Dds::from_bytes(&bytes).unwrap().levels.len(), 3);
    }
}
