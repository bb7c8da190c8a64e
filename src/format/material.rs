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
//! the text is its own lossless form, so nothing here builds text from
//! values.

use std::borrow::Cow;
use std::fmt;

use thiserror::Error;

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

/// The four kinds of block, by nesting depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Material,
    Technique,
    Pass,
    TextureUnit,
}

impl Block {
    fn word(self) -> &'static str {
        match self {
            Self::Material => "material",
            Self::Technique => "technique",
            Self::Pass => "pass",
            Self::TextureUnit => "texture_unit",
        }
    }

    /// The block a key (other than a block keyword) is read in, if any.
    fn of_key(key: &str) -> Option<Self> {
        Some(match key {
            "ambient" | "diffuse" | "specular" | "emissive" | "specularlv" | "specular_power" | "local_glow" => {
                Self::Material
            }
            "scene_blend" | "depth_check" | "depth_write" | "depth_func" | "alpha_test" | "color_write"
            | "fill_mode" | "cull" | "lighting" | "shading" | "depth_bias" | "shader_group" | "shadow_cast"
            | "shadow_recv" | "light_iterate" | "remove_light_type" | "custom_param" => Self::Pass,
            "texture" | "anim_texture" | "tex_coord_set" | "tex_address_mode" | "scroll_anim" | "rotate_anim"
            | "wave_xform" | "color_xform" | "filtering" | "max_anisotropy" | "color_blend" | "alpha_blend"
            | "use_light_texture" | "scale_uv_on_center" | "custom_value" => Self::TextureUnit,
            _ => return None,
        })
    }

    /// The keyword that opens a block inside this one.
    fn child(this: Option<Self>) -> (&'static str, Self) {
        match this {
            None => ("material", Self::Material),
            Some(Self::Material) => ("technique", Self::Technique),
            Some(Self::Technique) => ("pass", Self::Pass),
            Some(Self::Pass | Self::TextureUnit) => ("texture_unit", Self::TextureUnit),
        }
    }
}

/// The client's reading state, plus what it has built.
#[derive(Default)]
struct Parser {
    materials: Vec<Material>,
    warnings: Vec<MaterialWarning>,
    /// The open blocks, outermost first, with the line each opened on.
    open: Vec<(Block, usize)>,
    /// A block keyword was just read: the next line should be `{`.
    brace_after: Option<(Block, usize)>,
}

impl Parser {
    fn warn(&mut self, line: usize, message: impl Into<String>) {
        self.warnings.push(MaterialWarning { line, message: message.into() });
    }

    /// One line as the client sees it: trimmed, at most 511 bytes.
    fn line(&mut self, line: usize, text: &str) {
        if text.is_empty() || text.starts_with("//") {
            return;
        }
        if let Some((block, opened)) = self.brace_after.take() {
            if text != "{" {
                self.warn(
                    line,
                    format!(
                        "`{{` expected after `{}` on line {opened}: the client skips `{text}` and opens the block anyway",
                        block.word()
                    ),
                );
            }
            return;
        }
        let current = self.open.last().map(|&(block, _)| block);
        if text == "}" {
            if self.open.pop().is_none() {
                self.warn(line, "`}` with no block open: the client ignores it");
            }
            return;
        }
        let (key, args) = match text.find([' ', '\t']) {
            Some(at) => (&text[..at], text[at..].trim_start_matches([' ', '\t'])),
            None => (text, ""),
        };
        let (keyword, child) = Block::child(current);
        if key == keyword && current != Some(Block::TextureUnit) {
            self.open_block(child, line, args);
            return;
        }
        let mut log = Log { line, key, warnings: &mut self.warnings };
        let known = match current {
            None => false,
            Some(Block::Material) => self.materials.last_mut().is_none_or(|m| material_key(m, key, args, &mut log)),
            Some(Block::Technique) => false,
            Some(Block::Pass) => last_pass(&mut self.materials).is_none_or(|p| pass_key(p, key, args, &mut log)),
            Some(Block::TextureUnit) => last_pass(&mut self.materials)
                .is_none_or(|p| p.texture_units.last_mut().is_none_or(|u| unit_key(u, key, args, &mut log))),
        };
        if !known {
            let message = unknown_key(current, key);
            self.warn(line, message);
        }
    }

    fn open_block(&mut self, block: Block, line: usize, args: &str) {
        match block {
            Block::Material => self.materials.push(Material::new(args, line)),
            Block::Technique => {
                if let Some(material) = self.materials.last_mut() {
                    material.techniques.push(Technique { line, passes: Vec::new() });
                }
            }
            Block::Pass => {
                if let Some(technique) = self.materials.last_mut().and_then(|m| m.techniques.last_mut()) {
                    technique.passes.push(Pass::new(line));
                }
            }
            Block::TextureUnit => {
                if let Some(pass) = last_pass(&mut self.materials) {
                    let index = pass.texture_units.len();
                    pass.texture_units.push(TextureUnit::new(line, index));
                }
            }
        }
        self.open.push((block, line));
        self.brace_after = Some((block, line));
    }
}

fn last_pass(materials: &mut [Material]) -> Option<&mut Pass> {
    materials.last_mut()?.techniques.last_mut()?.passes.last_mut()
}

/// The block keywords, outermost first.
const BLOCK_WORDS: [&str; 4] = ["material", "technique", "pass", "texture_unit"];

/// The warning for a key the current block does not know, with a hint where
/// one helps.
fn unknown_key(current: Option<Block>, key: &str) -> String {
    let mut message = match current {
        None => format!("`{key}` outside any material block: the client ignores the line"),
        Some(block) => format!("unknown key `{key}` in a {}: the client ignores the line", block.word()),
    };
    let lower = key.to_ascii_lowercase();
    let home = Block::of_key(key).or_else(|| {
        let depth = BLOCK_WORDS.iter().position(|&word| word == key)?;
        [Block::Material, Block::Technique, Block::Pass, Block::TextureUnit].get(depth).copied()
    });
    if key == "{" {
        message.push_str(" (a `{` belongs only on the line right after a block keyword)");
    } else if key.starts_with('}') {
        message.push_str(" and does not close the block (a `}` must stand alone on its line)");
    } else if key.starts_with('\u{feff}') {
        message.push_str(" (the file starts with a byte order mark, which the client reads as part of the key)");
    } else if let Some(home) = home {
        let inside = match home {
            Block::Material => "at the top level",
            Block::Technique => "in a material",
            Block::Pass => "in a technique",
            Block::TextureUnit => "in a pass",
        };
        if Block::of_key(key).is_some() {
            message.push_str(&format!(" (`{key}` belongs in a {})", home.word()));
        } else {
            message.push_str(&format!(" (`{key}` opens a block only {inside})"));
        }
    } else if lower != key && (Block::of_key(&lower).is_some() || BLOCK_WORDS.contains(&lower.as_str())) {
        message.push_str(&format!(" (keys are case-sensitive: `{lower}`)"));
    }
    message
}

/// Where warnings about the current line go.
struct Log<'a> {
    line: usize,
    key: &'a str,
    warnings: &'a mut Vec<MaterialWarning>,
}

impl Log<'_> {
    fn warn(&mut self, message: impl Into<String>) {
        self.warnings.push(MaterialWarning { line: self.line, message: format!("`{}`: {}", self.key, message.into()) });
    }

    /// A float as the client reads it (`atof`), with a warning when the text
    /// is not entirely a number.
    fn float(&mut self, word: &str) -> f32 {
        let (value, whole) = c_atof(word);
        if !whole {
            self.warn(format!("`{word}` is not a number: the client reads {value}"));
        }
        value
    }

    /// An integer as the client reads it (`atoi`).
    fn int(&mut self, word: &str) -> i32 {
        let (value, whole) = c_atoi(word);
        if !whole {
            self.warn(format!("`{word}` is not an integer: the client reads {value}"));
        }
        value
    }

    fn floats<const N: usize>(&mut self, words: &[&str]) -> [f32; N] {
        let mut out = [0.0; N];
        for (slot, word) in out.iter_mut().zip(words) {
            *slot = self.float(word);
        }
        out
    }

    /// `true`/`false` in any case; anything else keeps `current`.
    fn boolean(&mut self, args: &str, current: &mut bool) {
        match args.to_ascii_lowercase().as_str() {
            "true" => *current = true,
            "false" => *current = false,
            _ => self.warn(format!("takes true or false, not `{args}`: the client keeps {current}")),
        }
    }

    /// A switch only `true` turns on: anything but `true`/`false` does
    /// nothing, silently in the client.
    fn switch_on(&mut self, args: &str) -> bool {
        match args.to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                self.warn(format!("`{args}` does nothing: only `true` turns it on"));
                false
            }
        }
    }

    /// Whether `word` (already lowercased where the client lowercases) is
    /// one of `allowed`; warns with what the client does otherwise.
    fn one_of(&mut self, word: &str, allowed: &[&str], otherwise: &str) -> bool {
        let ok = allowed.contains(&word);
        if !ok {
            self.warn(format!("`{word}` is not one of {}: the client {otherwise}", allowed.join(", ")));
        }
        ok
    }

    /// Whether there are `counts` words; warns otherwise.
    fn count(&mut self, words: &[&str], counts: &[usize], otherwise: &str) -> bool {
        let ok = counts.contains(&words.len());
        if !ok {
            let wanted: Vec<String> = counts.iter().map(ToString::to_string).collect();
            self.warn(format!("takes {} values, not {}: the client {otherwise}", wanted.join(" or "), words.len()));
        }
        ok
    }
}

/// The arguments split at spaces and tabs, as the client splits them: an
/// empty argument is one empty word.
fn words(args: &str) -> Vec<&str> {
    let words: Vec<&str> = args.split([' ', '\t']).filter(|word| !word.is_empty()).collect();
    if words.is_empty() { vec![""] } else { words }
}

fn show(color: [f32; 4]) -> String {
    format!("{} {} {} {}", color[0], color[1], color[2], color[3])
}

fn color(args: &str, target: &mut [f32; 4], log: &mut Log<'_>) {
    let words = words(args);
    if log.count(&words, &[3, 4], &format!("keeps {}", show(*target))) {
        let rgb: [f32; 3] = log.floats(&words);
        let alpha = if words.len() == 4 { log.float(words[3]) } else { 1.0 };
        *target = [rgb[0], rgb[1], rgb[2], alpha];
    }
}

/// A material key; false when unknown.
fn material_key(material: &mut Material, key: &str, args: &str, log: &mut Log<'_>) -> bool {
    match key {
        "ambient" => color(args, &mut material.ambient, log),
        "diffuse" => color(args, &mut material.diffuse, log),
        "specular" => color(args, &mut material.specular, log),
        "emissive" => color(args, &mut material.emissive, log),
        "specularlv" => material.specular_level = log.float(args),
        "specular_power" => material.specular_power = log.float(args),
        "local_glow" => log.boolean(args, &mut material.local_glow),
        _ => return false,
    }
    true
}

const TEXTURE_OPS: &[&str] = &[
    "disable",
    "selectarg1",
    "selectarg2",
    "modulate",
    "modulate2x",
    "modulate4x",
    "add",
    "addsinged",
    "addsinged2x",
    "subtract",
    "blend_diffuse_alpha",
    "blend_texture_alpha",
    "blend_current_alpha",
    "modulate_alpha_addcolor",
    "modulate_color_addalpha",
    "modulate_invalpha_addcolor",
    "modulate_invcolor_addalpha",
    "dotproduct3",
];
const TEXTURE_ARGS: &[&str] = &["current", "diffuse", "specular", "texture", "tfactor"];
const WAVES: &[&str] = &["sine", "triangle", "square", "sawtooth", "inverse_sawtooth"];

/// A pass key; false when unknown.
fn pass_key(pass: &mut Pass, key: &str, args: &str, log: &mut Log<'_>) -> bool {
    let lower = args.to_ascii_lowercase();
    match key {
        "shader_group" => {
            if args.is_empty() {
                log.warn("no name: the pass has no shader group");
            }
            pass.shader_group = (!args.is_empty()).then(|| args.to_owned());
        }
        "scene_blend" => {
            let words = words(&lower);
            let keeps = format!("keeps `{}`", pass.blend);
            if log.count(&words, &[1, 3], &keeps) {
                if let [word] = words[..] {
                    match SceneBlend::named(word) {
                        Some(blend) => pass.blend = blend,
                        None => log.warn(format!("unknown blend `{word}`: the client {keeps}")),
                    }
                } else {
                    let op = BlendOp::from_word(words[0]).unwrap_or_else(|| {
                        log.warn(format!("unknown operation `{}`: the client uses add", words[0]));
                        BlendOp::Add
                    });
                    let mut factor = |word: &str| {
                        BlendFactor::from_word(word).unwrap_or_else(|| {
                            log.warn(format!("unknown factor `{word}`: the client uses one"));
                            BlendFactor::One
                        })
                    };
                    pass.blend = SceneBlend { op, src: factor(words[1]), dest: factor(words[2]) };
                }
            }
        }
        "cull" => {
            let keeps = format!("keeps {}", pass.cull.word());
            match Cull::from_word(&lower) {
                Some(cull) => pass.cull = cull,
                None => log.warn(format!("`{args}` is not none, clockwise or counter_clockwise: the client {keeps}")),
            }
        }
        "depth_write" => log.boolean(args, &mut pass.depth_write),
        "depth_check" => log.boolean(args, &mut pass.depth_check),
        "lighting" => log.boolean(args, &mut pass.lighting),
        "color_write" => log.boolean(args, &mut pass.color_write),
        "depth_func" => pass.depth_func = compare_func(&lower, log),
        "alpha_test" => {
            let words = words(&lower);
            if log.count(&words, &[2], "keeps the previous alpha test") {
                let func = compare_func(words[0], log);
                let value = log.int(words[1]);
                if !(0..=255).contains(&value) {
                    log.warn(format!("{value} is outside Direct3D's alpha range 0..255"));
                }
                pass.alpha_test = (func != CompareFunc::Never).then_some(AlphaTest { func, value });
            }
        }
        "custom_param" => custom_param(pass, args, log),
        _ if pass_other_key(key, args, log) => pass.other.push((key.to_owned(), args.to_owned())),
        _ => return false,
    }
    true
}

/// A pass key the client knows and this crate keeps as written
/// ([`Pass::other`]), checked as the client reads it; false when unknown.
fn pass_other_key(key: &str, args: &str, log: &mut Log<'_>) -> bool {
    let lower = args.to_ascii_lowercase();
    match key {
        "depth_bias" => {
            let words = words(args);
            if log.count(&words, &[2], "ignores the line") {
                let _: [f32; 2] = log.floats(&words);
            }
        }
        "fill_mode" => {
            log.one_of(&lower, &["solid", "wireframe", "point"], "ignores the line");
        }
        "shading" => {
            log.one_of(&lower, &["flat", "gouraud", "phong"], "ignores the line");
        }
        "shadow_cast" | "shadow_recv" | "light_iterate" => {
            log.switch_on(args);
        }
        "remove_light_type" => {
            log.one_of(&lower, &["directional", "point", "spot"], "ignores the line");
        }
        _ => return false,
    }
    true
}

fn compare_func(word: &str, log: &mut Log<'_>) -> CompareFunc {
    CompareFunc::from_word(word).unwrap_or_else(|| {
        log.warn(format!("unknown comparison `{word}`: the client uses less_equal"));
        CompareFunc::LessEqual
    })
}

fn custom_param(pass: &mut Pass, args: &str, log: &mut Log<'_>) {
    let words = words(args);
    if words.len() < 3 {
        log.warn("takes a name, a type and values: the client ignores the line");
        return;
    }
    let (wanted, kind) = match words[1] {
        "float" => (1, "float"),
        "vector3" => (3, "vector3"),
        "vector4" => (4, "vector4"),
        "colorvalue" => (4, "colorvalue"),
        other => {
            log.warn(format!("unknown type `{other}` (types are float, vector3, vector4, colorvalue, lowercase): the client reads it as vector4"));
            (4, "vector4")
        }
    };
    let values = &words[2..];
    if values.len() != wanted {
        log.warn(format!("{kind} takes {wanted} values, not {}: the client drops the parameter", values.len()));
        return;
    }
    let value = match kind {
        "float" => CustomValue::Float(log.float(values[0])),
        "vector3" => CustomValue::Vector3(log.floats(values)),
        "colorvalue" => CustomValue::Color(log.floats(values)),
        _ => CustomValue::Vector4(log.floats(values)),
    };
    pass.custom_params.push(CustomParam { line: log.line, name: words[0].to_owned(), value });
}

/// A texture unit key; false when unknown.
fn unit_key(unit: &mut TextureUnit, key: &str, args: &str, log: &mut Log<'_>) -> bool {
    let lower = args.to_ascii_lowercase();
    match key {
        "texture" => {
            if args.is_empty() {
                log.warn("no file name: the unit has no texture");
            }
            unit.texture = (!args.is_empty()).then(|| args.to_owned());
        }
        "tex_coord_set" => {
            let set = log.int(args);
            match usize::try_from(set) {
                Ok(set) => unit.uv_set = set,
                Err(_) => log.warn(format!("a negative UV set; taken as {}", unit.uv_set)),
            }
        }
        "use_light_texture" => unit.light_texture |= log.switch_on(args),
        "tex_address_mode" => {
            let keeps = format!("keeps {}", unit.address.word());
            match AddressMode::from_word(&lower) {
                Some(mode) => unit.address = mode,
                None => log.warn(format!("`{args}` is not wrap, clamp or mirror: the client {keeps}")),
            }
        }
        "filtering" => {
            let keeps = format!("keeps {}", unit.filtering.word());
            match Filtering::from_word(&lower) {
                Some(filtering) => unit.filtering = filtering,
                None => {
                    log.warn(format!("`{args}` is not none, bilinear, trilinear or anisotropic: the client {keeps}"))
                }
            }
        }
        _ if unit_other_key(key, args, unit.texture.is_some(), log) => {
            unit.other.push((key.to_owned(), args.to_owned()))
        }
        _ => return false,
    }
    true
}

/// A texture unit key the client knows and this crate keeps as written
/// ([`TextureUnit::other`]), checked as the client reads it; false when
/// unknown. `has_texture`: a `texture` came before it in the unit.
fn unit_other_key(key: &str, args: &str, has_texture: bool, log: &mut Log<'_>) -> bool {
    let lower = args.to_ascii_lowercase();
    match key {
        "anim_texture" => {
            let words = words(args);
            if log.count(&words, &[2, 3], "ignores the line") {
                if log.int(words[0]) < 1 {
                    log.warn("needs at least 1 frame: the client ignores the line");
                } else if !has_texture {
                    log.warn("comes before any `texture`: the client ignores the line");
                }
                log.float(words[1]);
            }
        }
        "scroll_anim" => {
            let words = words(args);
            if log.count(&words, &[2, 3], "ignores the line") {
                let _: [f32; 2] = log.floats(&words);
            }
        }
        "rotate_anim" => {
            let words = words(args);
            if log.count(&words, &[1, 2], "ignores the line") {
                log.float(words[0]);
            }
        }
        "wave_xform" | "color_xform" => {
            let words = words(&lower);
            if log.count(&words, &[6, 7], "ignores the line") {
                let targets: &[&str] = if key == "wave_xform" {
                    &["translate_u", "translate_v", "rotate", "scale_u", "scale_v"]
                } else {
                    &["ambient", "diffuse", "specular", "emissive"]
                };
                if log.one_of(words[0], targets, "ignores the line") && log.one_of(words[1], WAVES, "ignores the line")
                {
                    let _: [f32; 4] = log.floats(&words[2..6]);
                }
            }
        }
        "color_blend" | "alpha_blend" => {
            let words = words(&lower);
            if log.count(&words, &[3], "ignores the line") {
                log.one_of(words[0], TEXTURE_OPS, "uses disable (note the client's spelling `addsinged`)");
                log.one_of(words[1], TEXTURE_ARGS, "uses current");
                log.one_of(words[2], TEXTURE_ARGS, "uses current");
            }
        }
        "max_anisotropy" | "custom_value" => {
            log.int(args);
        }
        "scale_uv_on_center" => {
            log.switch_on(args);
        }
        _ => return false,
    }
    true
}

/// C's `atof` on the bytes the client sees: the longest leading decimal
/// number, 0 when there is none. Also whether that was the whole text.
pub(crate) fn c_atof(text: &str) -> (f32, bool) {
    let bytes = text.as_bytes();
    let digits_from = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        at
    };
    let mut end = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let int_end = digits_from(end);
    let mut digits = int_end - end;
    end = int_end;
    if bytes.get(end) == Some(&b'.') {
        let frac_end = digits_from(end + 1);
        digits += frac_end - end - 1;
        if digits > 0 {
            end = frac_end;
        }
    }
    if digits == 0 {
        return (0.0, false);
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
        let exp_end = digits_from(end + 1 + sign);
        if exp_end > end + 1 + sign {
            end = exp_end;
        }
    }
    let value = text[..end].parse::<f64>().unwrap_or(0.0) as f32;
    (value, end == text.len())
}

/// C's `atoi`: the leading integer, saturated to `i32`, 0 when there is
/// none. Also whether that was the whole text.
fn c_atoi(text: &str) -> (i32, bool) {
    let bytes = text.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let start = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let mut end = start;
    let mut value: i64 = 0;
    while let Some(digit) = bytes.get(end).filter(|b| b.is_ascii_digit()) {
        value = (value * 10 + i64::from(digit - b'0')).min(i64::from(i32::MAX) + 1);
        end += 1;
    }
    let value = if negative { -value } else { value };
    let value = value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    (value, end > start && end == text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typical character script: toon pass, multiply pass, outline.
    const CHARACTER: &str = "\
// body of a character
material Body
{
\tdiffuse 0.8 0.8 0.8
\ttechnique
\t{
\t\tpass
\t\t{
\t\t\tshader_group AnimateToonShade
\t\t\tcull none
\t\t\ttexture_unit
\t\t\t{
\t\t\t\tuse_light_texture true
\t\t\t}
\t\t\ttexture_unit
\t\t\t{
\t\t\t\ttexture body.dds
\t\t\t\ttex_coord_set 1
\t\t\t}
\t\t}
\t\tpass
\t\t{
\t\t\tshader_group Animate
\t\t\tscene_blend add zero src_color
\t\t\tdepth_write false
\t\t\ttexture_unit
\t\t\t{
\t\t\t\ttexture body_spec.dds
\t\t\t}
\t\t}
\t\tpass
\t\t{
\t\t\tshader_group AnimateOutLine
\t\t\tcull clockwise
\t\t\tcustom_param OutLineColor colorvalue 0 0 0 1
\t\t\tcustom_param OutLineThickness float 0.6
\t\t}
\t}
}
";

    fn parse(text: &str) -> MaterialScript {
        MaterialScript::parse(text.as_bytes()).unwrap()
    }

    /// A script with one pass holding `body`.
    fn pass_with(body: &str) -> MaterialScript {
        parse(&format!("material m\n{{\ntechnique\n{{\npass\n{{\n{body}\n}}\n}}\n}}\n"))
    }

    fn messages(script: &MaterialScript) -> Vec<String> {
        script.warnings.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn reads_the_typical_character_script() {
        let script = parse(CHARACTER);
        assert_eq!(script.warnings, []);
        assert_eq!(script.materials.len(), 1);
        let body = &script.materials[0];
        assert_eq!((body.name.as_str(), body.line), ("Body", 2));
        assert_eq!(body.diffuse, [0.8, 0.8, 0.8, 1.0]);
        assert_eq!(body.techniques.len(), 1);
        let passes = body.passes();
        assert_eq!(passes.len(), 3);

        let toon = &passes[0];
        assert_eq!((toon.line, toon.shader_group.as_deref()), (7, Some("AnimateToonShade")));
        assert!(toon.is_two_sided() && !toon.is_transparent());
        assert_eq!(toon.texture_units.len(), 2);
        let ramp = &toon.texture_units[0];
        assert!(ramp.light_texture && ramp.texture.is_none());
        assert_eq!((ramp.line, ramp.uv_set), (11, 0));
        let diffuse = &toon.texture_units[1];
        assert_eq!(diffuse.texture.as_deref(), Some("body.dds"));
        assert_eq!(diffuse.uv_set, 1);
        assert!(!diffuse.light_texture);
        assert_eq!(body.diffuse_texture(), Some(diffuse));

        let multiply = &passes[1];
        assert_eq!(
            multiply.blend,
            SceneBlend { op: BlendOp::Add, src: BlendFactor::Zero, dest: BlendFactor::SrcColor }
        );
        assert_eq!(multiply.blend.to_string(), "add zero src_color");
        assert!(multiply.is_transparent() && !multiply.is_two_sided());
        assert!(!multiply.depth_write && multiply.depth_check);

        let outline = &passes[2];
        assert_eq!(outline.cull, Cull::Clockwise);
        assert!(!outline.is_two_sided() && !outline.is_transparent());
        assert_eq!(
            outline.custom_params,
            [
                CustomParam { line: 35, name: "OutLineColor".into(), value: CustomValue::Color([0.0, 0.0, 0.0, 1.0]) },
                CustomParam { line: 36, name: "OutLineThickness".into(), value: CustomValue::Float(0.6) },
            ]
        );
        assert_eq!(script.to_bytes(), CHARACTER.as_bytes());
    }

    #[test]
    fn defaults_match_the_client() {
        let script = pass_with("texture_unit\n{\n}\ntexture_unit\n{\n}");
        assert_eq!(script.warnings, []);
        let material = &script.materials[0];
        assert_eq!((material.ambient, material.diffuse, material.specular), ([1.0; 4], [1.0; 4], [1.0; 4]));
        assert_eq!(material.emissive, [0.0; 4]);
        assert_eq!((material.specular_power, material.specular_level, material.local_glow), (0.0, 0.0, false));
        let pass = &material.passes()[0];
        assert_eq!(pass.blend, SceneBlend::OPAQUE);
        assert_eq!(pass.blend, SceneBlend::default());
        assert_eq!(pass.cull, Cull::CounterClockwise);
        assert!(pass.depth_check && pass.depth_write && pass.lighting && pass.color_write);
        assert_eq!(pass.depth_func, CompareFunc::LessEqual);
        assert_eq!(pass.alpha_test, None);
        assert_eq!(pass.shader_group, None);
        assert!(!pass.is_transparent() && !pass.is_two_sided());
        let uv_sets: Vec<usize> = pass.texture_units.iter().map(|unit| unit.uv_set).collect();
        assert_eq!(uv_sets, [0, 1]);
        for unit in &pass.texture_units {
            assert_eq!((unit.address, unit.filtering), (AddressMode::Wrap, Filtering::Bilinear));
            assert!(unit.texture.is_none() && !unit.light_texture && unit.other.is_empty());
        }
        assert_eq!(material.diffuse_texture(), None);
    }

    #[test]
    fn one_word_blends_expand_as_in_the_client() {
        use BlendFactor::*;
        let cases = [
            ("no_alpha", BlendOp::Add, One, Zero, false),
            ("src_alpha", BlendOp::Add, SrcAlpha, InvSrcAlpha, true),
            ("color_key", BlendOp::Add, SrcAlpha, InvSrcAlpha, true),
            ("add", BlendOp::Add, SrcAlpha, One, true),
            ("screen", BlendOp::Add, InvDestColor, One, true),
            ("lighten", BlendOp::Max, One, One, true),
            ("darken", BlendOp::Min, One, One, true),
            ("subtract", BlendOp::Subtract, SrcAlpha, One, true),
            ("rev_subtract", BlendOp::RevSubtract, SrcAlpha, One, true),
        ];
        for (word, op, src, dest, transparent) in cases {
            // The client lowercases the argument.
            let script = pass_with(&format!("scene_blend {}", word.to_uppercase()));
            assert_eq!(script.warnings, [], "{word}");
            let pass = &script.materials[0].passes()[0];
            assert_eq!(pass.blend, SceneBlend { op, src, dest }, "{word}");
            assert_eq!(pass.is_transparent(), transparent, "{word}");
            assert_eq!(SceneBlend::named(word), Some(pass.blend));
        }
        assert_eq!(SceneBlend::named("alpha_blend"), None);
    }

    #[test]
    fn transparency_follows_the_source_factor_too() {
        for (src, transparent) in [
            ("src_color", true),
            ("inv_dest_color", true),
            ("dest_alpha", true),
            ("inv_dest_alpha", true),
            ("src_alpha", false),
            ("dest_color", false),
        ] {
            let script = pass_with(&format!("scene_blend add {src} zero"));
            assert_eq!(script.materials[0].passes()[0].is_transparent(), transparent, "{src}");
        }
    }

    #[test]
    fn bad_blends_warn_and_fall_back_like_the_client() {
        let script = pass_with("scene_blend add bogus one\nscene_blend shiny\nscene_blend add one");
        let pass = &script.materials[0].passes()[0];
        assert_eq!(pass.blend, SceneBlend { op: BlendOp::Add, src: BlendFactor::One, dest: BlendFactor::One });
        assert_eq!(
            messages(&script),
            [
                "line 7: `scene_blend`: unknown factor `bogus`: the client uses one",
                "line 8: `scene_blend`: unknown blend `shiny`: the client keeps `add one one`",
                "line 9: `scene_blend`: takes 1 or 3 values, not 2: the client keeps `add one one`",
            ]
        );
    }

    #[test]
    fn alpha_test_reads_function_and_integer_reference() {
        let script = pass_with("alpha_test Greater_Equal 128");
        assert_eq!(script.warnings, []);
        let test = script.materials[0].passes()[0].alpha_test;
        assert_eq!(test, Some(AlphaTest { func: CompareFunc::GreaterEqual, value: 128 }));

        // `never` turns it off again; a bad function becomes less_equal.
        let script = pass_with("alpha_test greater 10\nalpha_test never 0");
        assert_eq!((script.materials[0].passes()[0].alpha_test, script.warnings.len()), (None, 0));
        let script = pass_with("alpha_test bigger 12.5");
        let test = script.materials[0].passes()[0].alpha_test;
        assert_eq!(test, Some(AlphaTest { func: CompareFunc::LessEqual, value: 12 }));
        assert_eq!(
            messages(&script),
            [
                "line 7: `alpha_test`: unknown comparison `bigger`: the client uses less_equal",
                "line 7: `alpha_test`: `12.5` is not an integer: the client reads 12",
            ]
        );
        let script = pass_with("alpha_test 128");
        assert_eq!(script.materials[0].passes()[0].alpha_test, None);
        assert_eq!(
            messages(&script),
            ["line 7: `alpha_test`: takes 2 values, not 1: the client keeps the previous alpha test"]
        );
    }

    #[test]
    fn crlf_tabs_and_comments_read_like_plain_lines() {
        let crlf = CHARACTER.replace('\n', "\r\n");
        let spaced = CHARACTER.replace('\t', "    ");
        for text in [crlf.as_str(), spaced.as_str()] {
            let script = parse(text);
            assert_eq!(script.warnings, []);
            assert_eq!(script.materials, parse(CHARACTER).materials);
            assert_eq!(script.to_bytes(), text.as_bytes());
        }
        // Comments and blank lines still count for line numbers.
        let script = parse("// one\r\n\r\n   // three\r\nmaterial x\r\n{\r\n\tfoo 1\r\n}\r\n");
        assert_eq!(script.materials[0].line, 4);
        assert_eq!(messages(&script), ["line 6: unknown key `foo` in a material: the client ignores the line"]);
    }

    #[test]
    fn cp949_names_decode_and_bytes_stay() {
        // "한.dds" in CP949.
        let mut bytes = b"material m\n{\ntechnique\n{\npass\n{\ntexture_unit\n{\ntexture ".to_vec();
        bytes.extend_from_slice(&[0xC7, 0xD1]);
        bytes.extend_from_slice(b".dds\n}\n}\n}\n}\n");
        assert!(std::str::from_utf8(&bytes).is_err());
        let script = MaterialScript::parse(&bytes).unwrap();
        assert_eq!(script.warnings, []);
        let unit = script.materials[0].diffuse_texture().unwrap();
        assert_eq!(unit.texture.as_deref(), Some("\u{D55C}.dds"));
        assert_eq!(script.to_bytes(), bytes);
    }

    #[test]
    fn a_missing_brace_swallows_the_line_and_opens_the_block() {
        let script = parse("material m\n{\ntechnique\n{\npass\ncull none\n}\n}\n}\n");
        let pass = &script.materials[0].passes()[0];
        assert_eq!(pass.cull, Cull::CounterClockwise);
        assert_eq!(
            messages(&script),
            ["line 6: `{` expected after `pass` on line 5: the client skips `cull none` and opens the block anyway"]
        );
        // A swallowed `}` leaves the block open.
        let err = MaterialScript::parse(b"material m\n}\n").unwrap_err();
        assert_eq!(err, MaterialError::UnclosedBlock { line: 1, block: "material" });
    }

    #[test]
    fn unknown_keys_warn_with_line_and_block() {
        let script = pass_with("shininess 5\nTexture a.dds\ntexture a.dds\ntechnique\n{");
        assert_eq!(
            messages(&script),
            [
                "line 7: unknown key `shininess` in a pass: the client ignores the line",
                "line 8: unknown key `Texture` in a pass: the client ignores the line (keys are case-sensitive: `texture`)",
                "line 9: unknown key `texture` in a pass: the client ignores the line (`texture` belongs in a texture_unit)",
                "line 10: unknown key `technique` in a pass: the client ignores the line (`technique` opens a block only in a material)",
                "line 11: unknown key `{` in a pass: the client ignores the line (a `{` belongs only on the line right after a block keyword)",
            ]
        );
        assert!(script.materials[0].passes()[0].texture_units.is_empty());
    }

    #[test]
    fn unbalanced_braces_name_the_line() {
        let err = MaterialScript::parse(b"material m\n{\ntechnique\n{\npass\n{\n}\n}\n").unwrap_err();
        assert_eq!(err, MaterialError::UnclosedBlock { line: 1, block: "material" });
        assert_eq!(
            err.to_string(),
            "line 1: this `material` block is never closed, so the client rejects the whole script"
        );
        // A script cut short names the innermost open block.
        let cut = &CHARACTER[..CHARACTER.find("tex_coord_set 1\n").unwrap()];
        assert_eq!(parse_err(cut), MaterialError::UnclosedBlock { line: 15, block: "texture_unit" });
        // A `}` missing right before a block keyword goes unnoticed: the
        // keyword and its `{` are unknown keys inside the open block, which
        // the next `}` closes, and the braces balance again.
        let text = CHARACTER.replace("use_light_texture true\n\t\t\t}\n", "use_light_texture true\n");
        let script = parse(&text);
        assert_eq!(script.materials[0].passes()[0].texture_units.len(), 1);
        assert_eq!(script.warnings.iter().map(|w| w.line).collect::<Vec<_>>(), [14, 15]);
        // `} // end` does not close anything.
        let err = parse_err("material m\n{\n} // end\n");
        assert_eq!(err, MaterialError::UnclosedBlock { line: 1, block: "material" });
        // A stray `}` outside every block is only logged by the client.
        let script = parse("material m\n{\n}\n}\nmore\n");
        assert_eq!(script.materials.len(), 1);
        assert_eq!(
            messages(&script),
            [
                "line 4: `}` with no block open: the client ignores it",
                "line 5: `more` outside any material block: the client ignores the line",
            ]
        );
    }

    fn parse_err(text: &str) -> MaterialError {
        MaterialScript::parse(text.as_bytes()).unwrap_err()
    }

    #[test]
    fn a_long_line_is_read_in_pieces() {
        let name = "a".repeat(592);
        let text =
            format!("material m\n{{\ntechnique\n{{\npass\n{{\ntexture_unit\n{{\ntexture {name}\n}}\n}}\n}}\n}}\n");
        let script = parse(&text);
        let unit = &script.materials[0].passes()[0].texture_units[0];
        // 511 bytes: `texture ` and 503 letters; byte 512 is dropped and the
        // last 88 letters are a line of their own.
        assert_eq!(unit.texture.as_deref(), Some("a".repeat(503).as_str()));
        let rest = "a".repeat(88);
        assert_eq!(
            messages(&script),
            [
                "line 9: the line is 600 bytes long; the client reads at most 511 at a time, drops the byte after them and reads the rest as further lines".to_owned(),
                format!("line 9: unknown key `{rest}` in a texture_unit: the client ignores the line"),
            ]
        );
        assert_eq!(script.to_bytes(), text.as_bytes());
        // Exactly 511 bytes is fine.
        let script = pass_with(&format!("shader_group {}", "s".repeat(511 - 13)));
        assert_eq!(script.warnings, []);
        assert_eq!(script.materials[0].passes()[0].shader_group.as_ref().map(String::len), Some(498));
    }

    #[test]
    fn submeshes_take_materials_in_order() {
        let script = parse("material first\n{\n}\nmaterial second\n{\ntechnique\n{\n}\n}\n");
        assert_eq!(script.material_for_submesh(0).map(|m| m.name.as_str()), Some("first"));
        assert_eq!(script.material_for_submesh(1).map(|m| m.line), Some(4));
        assert_eq!(script.material_for_submesh(2), None);
        assert!(script.materials[0].passes().is_empty());
        assert!(script.materials[1].passes().is_empty());
        assert_eq!(script.materials[1].diffuse_texture(), None);
    }

    #[test]
    fn diffuse_texture_is_the_first_named_unit_of_the_first_pass() {
        let script = parse(
            "material m\n{\ntechnique\n{\npass\n{\ntexture_unit\n{\ntexture\n}\ntexture_unit\n{\ntexture light.dds\n}\n\
             texture_unit\n{\ntexture diffuse.dds\n}\n}\n}\ntechnique\n{\npass\n{\ntexture_unit\n{\ntexture other.dds\n}\n}\n}\n}\n",
        );
        assert_eq!(messages(&script), ["line 9: `texture`: no file name: the unit has no texture"]);
        let unit = script.materials[0].diffuse_texture().unwrap();
        assert_eq!((unit.texture.as_deref(), unit.uv_set, unit.line), (Some("light.dds"), 1, 11));
        assert_eq!(script.materials[0].techniques.len(), 2);
    }

    #[test]
    fn material_values_parse_like_atof() {
        let script = parse(
            "material m\n{\nambient 0.5 abc 1\ndiffuse 1 1\nemissive 0.25 .5 1e-1\nspecular 1 2 3 4\n\
             specular_power 8\nspecularlv 0.5x\nlocal_glow TRUE\n}\n",
        );
        let m = &script.materials[0];
        assert_eq!(m.ambient, [0.5, 0.0, 1.0, 1.0]);
        assert_eq!(m.diffuse, [1.0; 4]);
        assert_eq!(m.emissive, [0.25, 0.5, 0.1, 1.0]);
        assert_eq!(m.specular, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!((m.specular_power, m.specular_level, m.local_glow), (8.0, 0.5, true));
        assert_eq!(
            messages(&script),
            [
                "line 3: `ambient`: `abc` is not a number: the client reads 0",
                "line 4: `diffuse`: takes 3 or 4 values, not 2: the client keeps 1 1 1 1",
                "line 8: `specularlv`: `0.5x` is not a number: the client reads 0.5",
            ]
        );
    }

    #[test]
    fn pass_and_unit_settings() {
        let script = pass_with(
            "depth_check FALSE\nlighting false\ncolor_write off\ndepth_func greater\ncull sideways\n\
             depth_bias 1 2\nshadow_cast true\ncustom_param P Float 1 2 3 4\ncustom_param Q vector3 1 2\n\
             texture_unit\n{\ntexture a.dds\ntex_coord_set 3\ntex_address_mode CLAMP\nfiltering trilinear\n\
             scroll_anim 0.1 0\ncolor_blend modulate texture diffuse\nalpha_blend addsigned texture diffuse\n}",
        );
        let pass = &script.materials[0].passes()[0];
        assert!(!pass.depth_check && !pass.lighting && pass.color_write);
        assert_eq!((pass.depth_func, pass.cull), (CompareFunc::Greater, Cull::CounterClockwise));
        assert_eq!(pass.other, [("depth_bias".into(), "1 2".into()), ("shadow_cast".into(), "true".into())]);
        assert_eq!(pass.custom_params.len(), 1);
        assert_eq!(pass.custom_params[0].value, CustomValue::Vector4([1.0, 2.0, 3.0, 4.0]));
        let unit = &pass.texture_units[0];
        assert_eq!((unit.uv_set, unit.address, unit.filtering), (3, AddressMode::Clamp, Filtering::Trilinear));
        assert_eq!(unit.other.len(), 3);
        assert_eq!(
            messages(&script),
            [
                "line 9: `color_write`: takes true or false, not `off`: the client keeps true",
                "line 11: `cull`: `sideways` is not none, clockwise or counter_clockwise: the client keeps counter_clockwise",
                "line 14: `custom_param`: unknown type `Float` (types are float, vector3, vector4, colorvalue, lowercase): the client reads it as vector4",
                "line 15: `custom_param`: vector3 takes 3 values, not 2: the client drops the parameter",
                "line 24: `alpha_blend`: `addsigned` is not one of disable, selectarg1, selectarg2, modulate, modulate2x, \
                 modulate4x, add, addsinged, addsinged2x, subtract, blend_diffuse_alpha, blend_texture_alpha, \
                 blend_current_alpha, modulate_alpha_addcolor, modulate_color_addalpha, modulate_invalpha_addcolor, \
                 modulate_invcolor_addalpha, dotproduct3: the client uses disable (note the client's spelling `addsinged`)",
            ]
        );
    }

    #[test]
    fn no_material_parses_empty_with_warnings() {
        let script = parse("// nothing\nambient 1 1 1\n");
        assert!(script.materials.is_empty());
        assert_eq!(
            messages(&script),
            [
                "line 2: `ambient` outside any material block: the client ignores the line (`ambient` belongs in a material)"
            ]
        );
        assert!(MaterialScript::parse(b"").unwrap().materials.is_empty());
        // A byte order mark hides the first keyword from the client.
        let script = parse("\u{feff}material m\n{\n}\n");
        assert!(script.materials.is_empty());
        assert!(script.warnings[0].message.contains("byte order mark"), "{:?}", script.warnings);
    }

    #[test]
    fn a_zero_byte_ends_the_line() {
        let script = MaterialScript::parse(b"material m\0{\n}\n").unwrap();
        assert_eq!(script.materials.len(), 1);
        assert_eq!(script.warnings.len(), 1);
        assert_eq!(script.warnings[0].line, 1);
    }

    #[test]
    fn c_number_parsing() {
        assert_eq!(c_atof("1."), (1.0, true));
        assert_eq!(c_atof("-.5e1"), (-5.0, true));
        assert_eq!(c_atof("2e"), (2.0, false));
        assert_eq!(c_atof("."), (0.0, false));
        assert_eq!(c_atof(""), (0.0, false));
        assert_eq!(c_atoi("+42"), (42, true));
        assert_eq!(c_atoi("-7x"), (-7, false));
        assert_eq!(c_atoi("99999999999"), (i32::MAX, true));
        assert_eq!(c_atoi("-99999999999"), (i32::MIN, true));
        assert_eq!(c_atoi("-"), (0, false));
    }

    #[test]
    fn any_bytes_parse_without_panicking() {
        const ALPHABET: &[u8] = b"material technique pass texture_unit {}\n\t\r/0.e-x\xC7\xD1\0";
        let mut state = 0x2545_f491_u32;
        for len in 0..600 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    ALPHABET[state as usize % ALPHABET.len()]
                })
                .collect();
            if let Ok(script) = MaterialScript::parse(&bytes) {
                assert_eq!(script.to_bytes(), bytes);
            }
        }
    }
}
