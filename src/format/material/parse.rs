//! The client's line-by-line reading of a script: blocks, braces and which
//! block a key belongs to.

use super::keys::{Log, material_key, pass_key, unit_key};
use super::*;

/// The four kinds of block, by nesting depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Block {
    Material,
    Technique,
    Pass,
    TextureUnit,
}

impl Block {
    pub(super) fn word(self) -> &'static str {
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
pub(super) struct Parser {
    pub(super) materials: Vec<Material>,
    pub(super) warnings: Vec<MaterialWarning>,
    /// The open blocks, outermost first, with the line each opened on.
    pub(super) open: Vec<(Block, usize)>,
    /// A block keyword was just read: the next line should be `{`.
    pub(super) brace_after: Option<(Block, usize)>,
}

impl Parser {
    pub(super) fn warn(&mut self, line: usize, message: impl Into<String>) {
        self.warnings.push(MaterialWarning { line, message: message.into() });
    }

    /// One line as the client sees it: trimmed, at most 511 bytes.
    pub(super) fn line(&mut self, line: usize, text: &str) {
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
