//! How the client draws a material, read once as a lit or unlit surface
//! that physically based renderers can show. The Bevy plugin turns it into
//! a `StandardMaterial` and the glTF export into a glTF material, so both
//! show a script the same way (`docs/material.md` gives the whole reading).
//!
//! The client draws each pass with its own effect; this reads the first
//! pass, the one that lays down the colour:
//! - the material's `diffuse` and `emissive` colours are the numbers the
//!   client hands Direct3D 9, which draws into a frame buffer without
//!   linearisation: they are sRGB-encoded colours, both of them;
//! - the diffuse texture is the first unit of the pass that names a file;
//! - `alpha_test` is a mask; a blend is a blend, an add or a multiply
//!   ([`Transparency`]);
//! - `cull` says which faces are drawn ([`Faces`]), `lighting false` is
//!   unlit.
//!
//! - the diffuse unit's `scroll_anim`, `rotate_anim` and `wave_xform`
//!   lines move its UVs over time ([`motion`]);
//! - an `AnimateOutLine` pass is an outline: an inverted hull in its
//!   `OutLineColor`, about `OutLineThickness` pixels wide ([`Outline`]).
//!
//! What it does not read: the toon ramp (replaced by a rough,
//! non-metallic surface with little specular) and the multiply pass.

pub mod motion;

pub use motion::{UvMotion, WaveShape, WaveTarget, uv_motions, uv_transform};

use crate::format::material::CustomValue;
use crate::format::{AddressMode, BlendFactor, BlendOp, Cull, Filtering, Material, Pass};

/// A surface's perceptual roughness: the toon-shaded client has no
/// highlights to speak of.
pub const ROUGHNESS: f32 = 0.9;
/// Its reflectance at normal incidence (Bevy's 0.5 is a plastic's).
pub const REFLECTANCE: f32 = 0.2;

/// What the first pass of a material looks like.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// The `diffuse` colour, sRGB-encoded, with its alpha.
    pub base_color: [f32; 4],
    /// The `emissive` colour, sRGB-encoded.
    pub emissive: [f32; 3],
    /// The colour texture, if the pass names one.
    pub texture: Option<SurfaceTexture>,
    /// How the pass covers what is behind it.
    pub transparency: Transparency,
    /// Which faces the pass draws.
    pub faces: Faces,
    /// `lighting false`: drawn without lighting.
    pub unlit: bool,
    /// How the diffuse texture's UVs move over time.
    pub uv_motion: Vec<UvMotion>,
    /// The outline pass, if the material has one.
    pub outline: Option<Outline>,
}

/// An `AnimateOutLine` pass: the client draws the mesh again, pushed out
/// along its normals, with the faces that turn away (an inverted hull),
/// in one colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outline {
    /// `OutLineColor`, sRGB-encoded, with its alpha (black when unset).
    pub color: [f32; 4],
    /// `OutLineThickness`: the client's push grows with the field of view
    /// over the viewport's width, so this is about a width in pixels,
    /// the same at any distance (1 when unset).
    pub thickness: f32,
    /// The faces it draws (the pass's `cull`; `cull clockwise`, the
    /// inverted hull, in the game's scripts).
    pub faces: Faces,
}

impl Outline {
    /// The outline `pass` draws, if it is an `AnimateOutLine` pass.
    fn of(pass: &Pass) -> Option<Self> {
        let group = pass.shader_group.as_deref()?;
        if !group.eq_ignore_ascii_case("AnimateOutLine") {
            return None;
        }
        let param = |name: &str| pass.custom_params.iter().find(|p| p.name.eq_ignore_ascii_case(name));
        let color = match param("OutLineColor").map(|p| p.value) {
            Some(CustomValue::Color(c) | CustomValue::Vector4(c)) => c,
            _ => [0.0, 0.0, 0.0, 1.0],
        };
        let thickness = match param("OutLineThickness").map(|p| p.value) {
            Some(CustomValue::Float(t)) => t,
            _ => 1.0,
        };
        Some(Self { color, thickness, faces: faces(pass) })
    }
}

/// The colour texture of a surface and how it is sampled.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceTexture {
    /// The file name as the script writes it.
    pub name: String,
    /// The UV set it reads (0 or 1).
    pub uv_set: usize,
    /// What UVs outside 0..1 sample.
    pub address: AddressMode,
    /// How texels are filtered.
    pub filtering: Filtering,
}

/// How a pass covers what is behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Transparency {
    /// Covers it.
    Opaque,
    /// `alpha_test`: pixels with alpha below the cutoff (0..1) are dropped.
    Mask(f32),
    /// Mixed by alpha (`src_alpha inv_src_alpha` and other blends).
    Blend,
    /// Added to it (`src_alpha one`, `one one`).
    Add,
    /// Multiplied with it (`zero src_color`, `dest_color zero`).
    Multiply,
}

/// Which faces a pass draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Faces {
    /// Both sides (`cull none`).
    Both,
    /// The side facing the viewer (`cull counter_clockwise`, the default).
    Front,
    /// The side facing away (`cull clockwise`): an inverted hull.
    Back,
}

impl Surface {
    /// The surface of `material`'s first pass (a material with no pass is
    /// opaque, one-sided and lit).
    pub fn of(material: &Material) -> Self {
        let [er, eg, eb, _] = material.emissive;
        let pass = material.passes().first();
        Self {
            base_color: material.diffuse,
            emissive: [er, eg, eb],
            texture: material.diffuse_texture().map(|unit| SurfaceTexture {
                name: unit.texture.clone().unwrap_or_default(),
                uv_set: unit.uv_set,
                address: unit.address,
                filtering: unit.filtering,
            }),
            transparency: pass.map_or(Transparency::Opaque, transparency),
            faces: pass.map_or(Faces::Front, faces),
            unlit: pass.is_some_and(|pass| !pass.lighting),
            uv_motion: material.diffuse_texture().map(uv_motions).unwrap_or_default(),
            outline: material.passes().iter().find_map(Outline::of),
        }
    }

    /// The base colour in linear RGB, with its alpha.
    pub fn base_color_linear(&self) -> [f32; 4] {
        let [r, g, b, a] = self.base_color;
        [srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b), a]
    }

    /// The emissive colour in linear RGB.
    pub fn emissive_linear(&self) -> [f32; 3] {
        self.emissive.map(srgb_to_linear)
    }
}

/// Which faces a pass draws, by its `cull`.
fn faces(pass: &Pass) -> Faces {
    match pass.cull {
        Cull::None => Faces::Both,
        Cull::Clockwise => Faces::Back,
        Cull::CounterClockwise => Faces::Front,
    }
}

/// How a pass's alpha test and blend cover what is behind it.
fn transparency(pass: &Pass) -> Transparency {
    use BlendFactor::{DestColor, One, SrcAlpha, SrcColor, Zero};
    if let Some(test) = pass.alpha_test {
        return Transparency::Mask(test.value.clamp(0, 255) as f32 / 255.0);
    }
    if !pass.is_transparent() {
        return Transparency::Opaque;
    }
    match (pass.blend.op, pass.blend.src, pass.blend.dest) {
        (BlendOp::Add, SrcAlpha | One, One) => Transparency::Add,
        (BlendOp::Add, Zero, SrcColor) | (BlendOp::Add, DestColor, Zero) => Transparency::Multiply,
        _ => Transparency::Blend,
    }
}

/// The sRGB transfer function undone (IEC 61966-2-1), for one channel;
/// values past 1 (over-bright script colours) follow the same curve.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::MaterialScript;

    fn surface(script: &str) -> Surface {
        Surface::of(&MaterialScript::parse(script.as_bytes()).unwrap().materials[0])
    }

    const PASS: &str = "material m\n{\ndiffuse 1 0.5 0 1\nemissive 0.5 0.5 0.5 1\ntechnique\n{\npass\n{\n";

    #[test]
    fn colours_are_srgb_both_of_them() {
        let s = surface(&format!("{PASS}}}\n}}\n}}\n"));
        assert_eq!(s.base_color, [1.0, 0.5, 0.0, 1.0]);
        assert!((s.base_color_linear()[1] - 0.214).abs() < 1e-3);
        assert!((s.emissive_linear()[0] - 0.214).abs() < 1e-3, "emissive is decoded like diffuse");
        assert_eq!((s.transparency, s.faces, s.unlit), (Transparency::Opaque, Faces::Front, false));
    }

    #[test]
    fn passes_read_as_transparency_and_faces() {
        let s = surface(&format!("{PASS}alpha_test greater_equal 128\ncull clockwise\nlighting false\n}}\n}}\n}}\n"));
        assert_eq!((s.transparency, s.faces, s.unlit), (Transparency::Mask(128.0 / 255.0), Faces::Back, true));
        let s = surface(&format!("{PASS}scene_blend add src_alpha one\ncull none\n}}\n}}\n}}\n"));
        assert_eq!((s.transparency, s.faces), (Transparency::Add, Faces::Both));
        let s = surface(&format!("{PASS}scene_blend add zero src_color\n}}\n}}\n}}\n"));
        assert_eq!(s.transparency, Transparency::Multiply);
    }

    #[test]
    fn an_outline_pass_and_texture_motion_are_read() {
        let outline = "pass\n{\nshader_group AnimateOutLine\ncull clockwise\ncustom_param OutLineColor colorvalue 0.2 0 0 1\ncustom_param OutLineThickness float 0.6\n}\n";
        let unit = "texture_unit\n{\ntexture a.dds\nscroll_anim 0.5 0\n}\n";
        let s = surface(&format!("{PASS}{unit}}}\n{outline}}}\n}}\n"));
        assert_eq!(s.outline, Some(Outline { color: [0.2, 0.0, 0.0, 1.0], thickness: 0.6, faces: Faces::Back }));
        assert_eq!(s.uv_motion, [UvMotion::Scroll(glam::Vec2::new(0.5, 0.0))]);
        assert_eq!(surface(&format!("{PASS}}}\n}}\n}}\n")).outline, None, "no outline pass, no outline");
    }
}
