//! Material scripts (`<material folder>/<mesh name>.txt`): how each submesh
//! of a mesh is drawn, as text in nested blocks (`material`, `technique`,
//! `pass`, `texture_unit`).
//!
//! The reader follows the client line for line, quirks included, so that
//! what it reports is what the game does: a line of more than 511 bytes is
//! read in pieces, the line after a block keyword is swallowed whatever it
//! holds, keys are case-sensitive, and a value that is not a number counts
//! as whatever C's `atof`/`atoi` make of it. Everything the client would
//! only log becomes a [`MaterialWarning`]; the one thing that makes it
//! reject the script, a block still open at the end, is a [`MaterialError`].
//!
//! Scripts are written back byte for byte as read ([`MaterialScript::to_bytes`]):
//! the text is its own lossless form. The one text built from values is
//! the game's own scripts as [`template`]s, read back like any other.
//!
//! What the client changes once it has read a script, and which materials
//! are skin, is in [`Material::as_loaded`] and [`Material::is_skin`].

use std::borrow::Cow;
use std::fmt;

use thiserror::Error;

mod keys;
mod modifier;
mod parse;
pub mod template;
#[cfg(test)]
mod tests;

pub use modifier::LightQuality;
use parse::Parser;

/// The longest line the client reads in one go, in bytes. It reads a longer
/// line as several: the first 511 bytes, then (after dropping byte 512)
/// the rest, again in pieces of at most 511.
pub const MAX_LINE_BYTES: usize = 511;

/// A whole material script: the bytes as read and what the client makes of
/// them.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialScript {
    /// The file's bytes, exactly as read (UTF-8 or CP949, any line ends).
    pub source: Vec<u8>,
    /// The `material` blocks in file order: the i-th is used by submesh i.
    ///
    /// Empty when the script has none. The client then refuses the script
    /// and the mesh does not load; [`MaterialScript::parse`] still succeeds
    /// so that the warnings can be shown, and the lint reports the empty
    /// list.
    pub materials: Vec<Material>,
    /// What the client would log while reading, in line order.
    pub warnings: Vec<MaterialWarning>,
}

/// One `material` block: colours for the fixed-function lighting and the
/// techniques that draw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// The word after `material`. The client ignores it (it names
    /// materials by script and position), but people use it to say which
    /// submesh is meant.
    pub name: String,
    /// Line number (from 1) of the `material` keyword.
    pub line: usize,
    /// `ambient r g b [a]`; default all 1.
    pub ambient: [f32; 4],
    /// `diffuse r g b [a]`; default all 1.
    pub diffuse: [f32; 4],
    /// `specular r g b [a]`; default all 1.
    pub specular: [f32; 4],
    /// `emissive r g b [a]`; default all 0. Like the other colours, three
    /// values set alpha to 1.
    pub emissive: [f32; 4],
    /// `specular_power`: Direct3D's material power; default 0.
    pub specular_power: f32,
    /// `specularlv`: the strength the specular shaders use; default 0.
    pub specular_level: f32,
    /// `local_glow true`: the glow post-process picks this material up.
    pub local_glow: bool,
    /// The `technique` blocks in file order.
    pub techniques: Vec<Technique>,
}

/// One `technique` block: a complete way of drawing the material.
#[derive(Debug, Clone, PartialEq)]
pub struct Technique {
    /// Line number (from 1) of the `technique` keyword.
    pub line: usize,
    /// The passes, drawn in this order.
    pub passes: Vec<Pass>,
}

/// One `pass` block: one draw of the submesh with its own render states.
#[derive(Debug, Clone, PartialEq)]
pub struct Pass {
    /// Line number (from 1) of the `pass` keyword.
    pub line: usize,
    /// `shader_group NAME`: the HLSL effect group (`AnimateToonShade`,
    /// `Static`, ...). `None` draws with the fixed-function pipeline.
    pub shader_group: Option<String>,
    /// `scene_blend`: how the pass's colour mixes with what is drawn.
    pub blend: SceneBlend,
    /// `cull`: which faces are dropped.
    pub cull: Cull,
    /// `depth_write`; default on.
    pub depth_write: bool,
    /// `depth_check`; default on.
    pub depth_check: bool,
    /// `depth_func`; default `less_equal`.
    pub depth_func: CompareFunc,
    /// `lighting`; default on.
    pub lighting: bool,
    /// `color_write`; default on.
    pub color_write: bool,
    /// `alpha_test FUNC VALUE`. `None` when off: the default, and what
    /// `alpha_test never ...` means, since the client turns the test off
    /// for `never`.
    pub alpha_test: Option<AlphaTest>,
    /// The `texture_unit` blocks, one per sampler stage.
    pub texture_units: Vec<TextureUnit>,
    /// `custom_param` lines: values handed to the shader group by name.
    pub custom_params: Vec<CustomParam>,
    /// Pass keys the client knows but this crate does not model
    /// (`depth_bias`, `fill_mode`, `shading`, `shadow_cast`, `shadow_recv`,
    /// `light_iterate`, `remove_light_type`): key and argument as written,
    /// in file order, including values the client rejects (those come with
    /// a warning).
    pub other: Vec<(String, String)>,
}

/// One `texture_unit` block: a texture and how it is sampled.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureUnit {
    /// Line number (from 1) of the `texture_unit` keyword.
    pub line: usize,
    /// `texture NAME`: the file name as written, extension included, looked
    /// up in the texture folder without any search.
    pub texture: Option<String>,
    /// Which UV set of the mesh it samples: the unit's position in the pass
    /// unless `tex_coord_set` says otherwise.
    pub uv_set: usize,
    /// `use_light_texture true`: the unit holds the engine's toon light
    /// ramp instead of a file.
    pub light_texture: bool,
    /// `tex_address_mode`; default wrap.
    pub address: AddressMode,
    /// `filtering`; default bilinear.
    pub filtering: Filtering,
    /// Unit keys the client knows but this crate does not model
    /// (`anim_texture`, `scroll_anim`, `rotate_anim`, `wave_xform`,
    /// `color_xform`, `color_blend`, `alpha_blend`, `max_anisotropy`,
    /// `scale_uv_on_center`, `custom_value`): key and argument as written.
    pub other: Vec<(String, String)>,
}

/// `scene_blend`: `result = src * SRC op dest * DEST`, Direct3D 9's frame
/// buffer blend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SceneBlend {
    /// How the two terms combine.
    pub op: BlendOp,
    /// The factor for the pass's colour.
    pub src: BlendFactor,
    /// The factor for the colour already drawn.
    pub dest: BlendFactor,
}

/// The operation of a [`SceneBlend`] (Direct3D's `D3DBLENDOP`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlendOp {
    /// `add`: src + dest.
    Add,
    /// `subtract`: src - dest.
    Subtract,
    /// `rev_subtract`: dest - src.
    RevSubtract,
    /// `min`: the smaller of the two (factors ignored).
    Min,
    /// `max`: the larger of the two (factors ignored).
    Max,
}

/// A factor of a [`SceneBlend`] (Direct3D's `D3DBLEND`): the ten the client
/// knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlendFactor {
    /// `zero`.
    Zero,
    /// `one`.
    One,
    /// `src_color`.
    SrcColor,
    /// `inv_src_color`.
    InvSrcColor,
    /// `src_alpha`.
    SrcAlpha,
    /// `inv_src_alpha`.
    InvSrcAlpha,
    /// `dest_alpha`.
    DestAlpha,
    /// `inv_dest_alpha`.
    InvDestAlpha,
    /// `dest_color`.
    DestColor,
    /// `inv_dest_color`.
    InvDestColor,
}

/// `cull`: which triangles the pass drops, by their winding on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cull {
    /// `none`: both sides drawn.
    None,
    /// `clockwise`: drops the faces the default keeps, i.e. the front
    /// faces (the outline pass draws the inverted hull this way).
    Clockwise,
    /// `counter_clockwise`, the default: drops back faces in the files'
    /// winding.
    #[default]
    CounterClockwise,
}

/// A comparison (Direct3D's `D3DCMPFUNC`), for `alpha_test` and
/// `depth_func`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareFunc {
    /// `never`.
    Never,
    /// `less`.
    Less,
    /// `equal`.
    Equal,
    /// `less_equal`, what the client uses for a name it does not know.
    LessEqual,
    /// `greater`.
    Greater,
    /// `not_equal`.
    NotEqual,
    /// `greater_equal`.
    GreaterEqual,
    /// `always`.
    Always,
}

/// `alpha_test FUNC VALUE`: a pixel is kept when `alpha FUNC value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlphaTest {
    /// The comparison; never [`CompareFunc::Never`], which turns the test
    /// off.
    pub func: CompareFunc,
    /// The reference as written, an integer on Direct3D's 0..=255 alpha
    /// scale (the client reads it with `atoi` and scales it by the
    /// object's fade).
    pub value: i32,
}

/// `tex_address_mode`: what UVs outside 0..1 sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AddressMode {
    /// `wrap`, the default: the texture repeats.
    #[default]
    Wrap,
    /// `clamp`: the edge texels stretch.
    Clamp,
    /// `mirror`: the texture repeats mirrored.
    Mirror,
}

/// `filtering`: how the texture is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filtering {
    /// `none`: nearest, or bilinear without mipmaps, by a client setting.
    None,
    /// `bilinear`, the default.
    #[default]
    Bilinear,
    /// `trilinear`.
    Trilinear,
    /// `anisotropic`.
    Anisotropic,
}

/// A `custom_param NAME TYPE values...` line of a pass.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomParam {
    /// Line number (from 1).
    pub line: usize,
    /// The shader parameter it sets (`OutLineColor`, `OutLineThickness`).
    pub name: String,
    /// The value, by type.
    pub value: CustomValue,
}

/// The value of a [`CustomParam`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CustomValue {
    /// `float x`.
    Float(f32),
    /// `vector3 x y z`.
    Vector3([f32; 3]),
    /// `vector4 x y z w`, also what the client makes of a type it does
    /// not know.
    Vector4([f32; 4]),
    /// `colorvalue r g b a`.
    Color([f32; 4]),
}

/// Something the client logs and gets past: an unknown key, a value it
/// cannot use, a line it cuts or skips.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialWarning {
    /// Line number (from 1) in the file.
    pub line: usize,
    /// What happened and what the client does about it.
    pub message: String,
}

impl fmt::Display for MaterialWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Why the client rejects a whole material script.
///
/// A script with no `material` block is rejected by the client too, but is
/// not an error here: see [`MaterialScript::materials`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MaterialError {
    /// The file ends inside a block; the client drops the whole script and
    /// the mesh does not load.
    #[error("line {line}: this `{block}` block is never closed, so the client rejects the whole script")]
    UnclosedBlock {
        /// Line number (from 1) where the innermost open block starts.
        line: usize,
        /// Its keyword.
        block: &'static str,
    },
}

impl MaterialScript {
    /// Reads a script from its bytes, which may be UTF-8 or CP949 with any
    /// line ends.
    ///
    /// Fails only where the client rejects the script (a block left open);
    /// everything the client logs and skips is in
    /// [`MaterialScript::warnings`].
    pub fn parse(bytes: &[u8]) -> Result<Self, MaterialError> {
        // Decide the encoding for the whole file: CP949 pairs can look like
        // UTF-8 one line at a time.
        let utf8 = std::str::from_utf8(bytes).is_ok();
        let mut parser = Parser::default();
        let mut pos = 0;
        let mut number = 1;
        let mut long_warned = 0;
        while pos < bytes.len() {
            let rest = &bytes[pos..];
            let end = rest.iter().position(|&b| b == b'\n' || b == 0).unwrap_or(rest.len());
            let line = number;
            let piece = if end > MAX_LINE_BYTES {
                if long_warned != line {
                    long_warned = line;
                    let length = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                    parser.warn(
                        line,
                        format!(
                            "the line is {length} bytes long; the client reads at most {MAX_LINE_BYTES} at a time, \
                             drops the byte after them and reads the rest as further lines"
                        ),
                    );
                }
                pos += MAX_LINE_BYTES + 1;
                &rest[..MAX_LINE_BYTES]
            } else {
                match rest.get(end) {
                    Some(b'\n') => number += 1,
                    Some(_) => {
                        parser.warn(line, "a zero byte: the client ends the line there and reads on from the next byte")
                    }
                    None => {}
                }
                pos += end + 1;
                &rest[..end]
            };
            let text: Cow<'_, str> = if utf8 {
                String::from_utf8_lossy(piece)
            } else {
                encoding_rs::EUC_KR.decode_without_bom_handling(piece).0
            };
            parser.line(line, text.trim_matches([' ', '\t', '\r']));
        }
        if let Some(&(block, line)) = parser.open.last() {
            return Err(MaterialError::UnclosedBlock { line, block: block.word() });
        }
        Ok(Self { source: bytes.to_vec(), materials: parser.materials, warnings: parser.warnings })
    }

    /// The script's bytes: exactly those read.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.source.clone()
    }

    /// The material submesh `submesh` (from 0) is drawn with: the block at
    /// that position. `None` where the script has fewer blocks than that.
    pub fn material_for_submesh(&self, submesh: usize) -> Option<&Material> {
        self.materials.get(submesh)
    }
}

impl Material {
    fn new(name: &str, line: usize) -> Self {
        Self {
            name: name.to_owned(),
            line,
            ambient: [1.0; 4],
            diffuse: [1.0; 4],
            specular: [1.0; 4],
            emissive: [0.0; 4],
            specular_power: 0.0,
            specular_level: 0.0,
            local_glow: false,
            techniques: Vec::new(),
        }
    }

    /// The passes of the first technique, the one drawn (the client takes
    /// the first one the hardware supports). Empty when there is no
    /// technique.
    pub fn passes(&self) -> &[Pass] {
        self.techniques.first().map_or(&[], |technique| &technique.passes)
    }

    /// The unit holding the submesh's colour texture: the first unit of the
    /// first pass that names a `texture`. Units before it are usually the
    /// toon light ramp or a lightmap.
    pub fn diffuse_texture(&self) -> Option<&TextureUnit> {
        self.passes().first()?.texture_units.iter().find(|unit| unit.texture.is_some())
    }
}

impl Pass {
    fn new(line: usize) -> Self {
        Self {
            line,
            shader_group: None,
            blend: SceneBlend::OPAQUE,
            cull: Cull::CounterClockwise,
            depth_write: true,
            depth_check: true,
            depth_func: CompareFunc::LessEqual,
            lighting: true,
            color_write: true,
            alpha_test: None,
            texture_units: Vec::new(),
            custom_params: Vec::new(),
            other: Vec::new(),
        }
    }

    /// Whether the pass blends with what is behind it, by the client's rule:
    /// the destination factor is not zero, or the source factor reads the
    /// destination or is the source colour. The client draws such passes
    /// after the opaque ones.
    pub fn is_transparent(&self) -> bool {
        self.blend.dest != BlendFactor::Zero
            || matches!(
                self.blend.src,
                BlendFactor::SrcColor | BlendFactor::InvDestColor | BlendFactor::DestAlpha | BlendFactor::InvDestAlpha
            )
    }

    /// Whether both sides of each triangle are drawn (`cull none`).
    pub fn is_two_sided(&self) -> bool {
        self.cull == Cull::None
    }
}

impl TextureUnit {
    fn new(line: usize, index: usize) -> Self {
        Self {
            line,
            texture: None,
            uv_set: index,
            light_texture: false,
            address: AddressMode::Wrap,
            filtering: Filtering::Bilinear,
            other: Vec::new(),
        }
    }
}

impl SceneBlend {
    /// The default: the pass replaces what is behind it (`add one zero`).
    pub const OPAQUE: Self = Self { op: BlendOp::Add, src: BlendFactor::One, dest: BlendFactor::Zero };

    /// The blend a one-word `scene_blend` stands for (`no_alpha`,
    /// `src_alpha`, `color_key`, `add`, `screen`, `lighten`, `darken`,
    /// `subtract`, `rev_subtract`), as the client expands it. The client
    /// lowercases the word first; this does not.
    pub fn named(word: &str) -> Option<Self> {
        use BlendFactor::{InvDestColor, InvSrcAlpha, One, SrcAlpha};
        let (op, src, dest) = match word {
            "no_alpha" => return Some(Self::OPAQUE),
            "src_alpha" | "color_key" => (BlendOp::Add, SrcAlpha, InvSrcAlpha),
            "add" => (BlendOp::Add, SrcAlpha, One),
            "screen" => (BlendOp::Add, InvDestColor, One),
            "lighten" => (BlendOp::Max, One, One),
            "darken" => (BlendOp::Min, One, One),
            "subtract" => (BlendOp::Subtract, SrcAlpha, One),
            "rev_subtract" => (BlendOp::RevSubtract, SrcAlpha, One),
            _ => return None,
        };
        Some(Self { op, src, dest })
    }
}

impl Default for SceneBlend {
    fn default() -> Self {
        Self::OPAQUE
    }
}

impl fmt::Display for SceneBlend {
    /// The three-word form the script would use: `add one zero`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.op.word(), self.src.word(), self.dest.word())
    }
}

/// Script words for an enum, both ways.
macro_rules! words {
    ($name:ident { $($variant:ident = $word:literal),* $(,)? }) => {
        impl $name {
            /// The word a script uses for it.
            pub fn word(self) -> &'static str {
                match self {
                    $(Self::$variant => $word,)*
                }
            }

            fn from_word(word: &str) -> Option<Self> {
                match word {
                    $($word => Some(Self::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

words!(BlendOp { Add = "add", Subtract = "subtract", RevSubtract = "rev_subtract", Min = "min", Max = "max" });
words!(BlendFactor {
    Zero = "zero",
    One = "one",
    SrcColor = "src_color",
    InvSrcColor = "inv_src_color",
    SrcAlpha = "src_alpha",
    InvSrcAlpha = "inv_src_alpha",
    DestAlpha = "dest_alpha",
    InvDestAlpha = "inv_dest_alpha",
    DestColor = "dest_color",
    InvDestColor = "inv_dest_color",
});
words!(Cull { None = "none", Clockwise = "clockwise", CounterClockwise = "counter_clockwise" });
words!(CompareFunc {
    Never = "never",
    Less = "less",
    Equal = "equal",
    LessEqual = "less_equal",
    Greater = "greater",
    NotEqual = "not_equal",
    GreaterEqual = "greater_equal",
    Always = "always",
});
words!(AddressMode { Wrap = "wrap", Clamp = "clamp", Mirror = "mirror" });
words!(Filtering { None = "none", Bilinear = "bilinear", Trilinear = "trilinear", Anisotropic = "anisotropic" });
