//! The game's own material scripts, as templates for meshes made outside
//! the game (`io3d import --model`): the toon pass and its multiply pass
//! (plain or skin), a static pass, a lightmapped pass, and the outline
//! pass, with the options a glTF material gives (alpha test or blend,
//! two sides, unlit). `docs/material.md` ("Templates") shows their text.
//!
//! The text is written here once and read back with
//! [`MaterialScript::parse`], so a template is held as any script is: its
//! bytes, kept as written.

use std::fmt::Display;

use thiserror::Error;

use super::{MAX_LINE_BYTES, MaterialError, MaterialScript};

/// The look of one material, from the game's scripts.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// Which of the game's scripts.
    pub kind: TemplateKind,
    /// The colour texture's file name, as the texture folder holds it.
    pub texture: String,
    /// How the texture's alpha cuts or blends the surface.
    pub alpha: Alpha,
    /// `cull none` on the passes that draw the texture.
    pub two_sided: bool,
    /// `lighting false` on the first pass.
    pub unlit: bool,
    /// An outline pass after the others.
    pub outline: Option<OutlinePass>,
}

/// The game's kinds of material script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateKind {
    /// A character's: the `AnimateToonShade` pass (light ramp, then the
    /// texture adding `tfactor`), then the multiply pass (`Animate`,
    /// `zero src_color`) with the texture.
    Toon,
    /// A character's skin: as [`TemplateKind::Toon`], with a multiply pass
    /// of two units, the first blending the texture with the skin colour
    /// by its alpha. The client makes it `AnimateToonShadeSkin`
    /// ([`super::Material::is_skin`]).
    ToonSkin,
    /// A prop's: one `Static` pass with the texture.
    Static,
    /// A lightmapped map piece's: one `LightMap` pass, the lightmap on UV
    /// set 0 added to the diffuse colour, then the texture on UV set 1.
    Lightmap {
        /// The lightmap's file name.
        lightmap: String,
    },
}

/// How a texture's alpha covers what is behind the surface (glTF's
/// `alphaMode`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Alpha {
    /// Alpha ignored.
    Opaque,
    /// Pixels whose alpha is below the cutoff (0 to 1) are not drawn:
    /// `alpha_test greater_equal` the cutoff on Direct3D's 0..255 scale.
    Test(f32),
    /// Mixed by alpha (`scene_blend add src_alpha inv_src_alpha`), without
    /// depth writes.
    Blend,
}

/// The outline pass (`AnimateOutLine`): the mesh drawn again as an
/// inverted hull (`cull clockwise`) in one colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutlinePass {
    /// `OutLineColor colorvalue r g b a`, each 0 to 1, sRGB as the client
    /// hands it on.
    pub color: [f32; 4],
    /// `OutLineThickness float t`, about a width in pixels.
    pub thickness: f32,
}

impl Default for OutlinePass {
    /// The game's usual outline: black, 0.6 thick.
    fn default() -> Self {
        Self { color: [0.0, 0.0, 0.0, 1.0], thickness: 0.6 }
    }
}

/// Why a template cannot be written as a script the client reads as
/// meant.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TemplateError {
    /// A file or material name the script cannot carry.
    #[error("{what} {name:?}: {why}")]
    Name {
        /// Which name.
        what: &'static str,
        /// The name as given.
        name: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A number out of its range.
    #[error("{what} {value}: {why}")]
    Number {
        /// Which number.
        what: &'static str,
        /// The value as given.
        value: f32,
        /// Its range.
        why: &'static str,
    },
    /// No material at all: the client does not load a mesh whose script
    /// has no material block.
    #[error("no material: the client does not load a mesh whose script has no material block")]
    NoMaterial,
    /// The text did not read back.
    #[error("the script written does not read back: {0}")]
    Unreadable(#[from] MaterialError),
}

/// A script of one material block a submesh, in submesh order: each named
/// (the client ignores the name; people read it to tell submeshes apart)
/// and drawn as its template says. Lines end in CR LF and indent with
/// tabs, as the game's Windows tools write them.
pub fn script<'a>(
    materials: impl IntoIterator<Item = (&'a str, &'a Template)>,
) -> Result<MaterialScript, TemplateError> {
    let mut text = Text::default();
    for (name, template) in materials {
        template.write(name, &mut text)?;
    }
    if text.out.is_empty() {
        return Err(TemplateError::NoMaterial);
    }
    Ok(MaterialScript::parse(text.out.as_bytes())?)
}

impl Template {
    /// An opaque, one-sided, lit material of `kind` showing `texture`,
    /// without an outline.
    pub fn new(kind: TemplateKind, texture: impl Into<String>) -> Self {
        Self { kind, texture: texture.into(), alpha: Alpha::Opaque, two_sided: false, unlit: false, outline: None }
    }

    fn write(&self, name: &str, text: &mut Text) -> Result<(), TemplateError> {
        self.check(name)?;
        let texture = format!("texture {}", self.texture);
        text.block(format_args!("material {name}"), |text| {
            text.block("technique", |text| {
                match &self.kind {
                    TemplateKind::Toon | TemplateKind::ToonSkin => {
                        self.toon_pass(text, &texture);
                        self.multiply_pass(text, &texture);
                    }
                    TemplateKind::Static => text.block("pass", |text| {
                        self.pass_head(text, "Static");
                        texture_unit(text, &[&texture]);
                    }),
                    TemplateKind::Lightmap { lightmap } => text.block("pass", |text| {
                        self.pass_head(text, "LightMap");
                        texture_unit(text, &[&format!("texture {lightmap}"), "color_blend add texture diffuse"]);
                        texture_unit(text, &[&texture, "tex_coord_set 1", "color_blend modulate texture current"]);
                    }),
                }
                if let Some(outline) = &self.outline {
                    outline.write(text);
                }
            });
        });
        Ok(())
    }

    /// Every name and number, against what the script and the client take.
    fn check(&self, name: &str) -> Result<(), TemplateError> {
        material_name(name)?;
        file_name("texture", &self.texture)?;
        if let TemplateKind::Lightmap { lightmap } = &self.kind {
            file_name("lightmap", lightmap)?;
        }
        if let Alpha::Test(cutoff) = self.alpha {
            unit_range("alpha cutoff", cutoff)?;
        }
        if let Some(outline) = &self.outline {
            outline.color.iter().try_for_each(|&c| unit_range("outline colour component", c))?;
            if !(outline.thickness.is_finite() && outline.thickness >= 0.0) {
                let why = "must be a finite number, 0 or more";
                return Err(TemplateError::Number { what: "outline thickness", value: outline.thickness, why });
            }
        }
        Ok(())
    }

    /// The toon pass: the light ramp, then the texture adding `tfactor`.
    fn toon_pass(&self, text: &mut Text, texture: &str) {
        text.block("pass", |text| {
            self.pass_head(text, "AnimateToonShade");
            text.line("shadow_cast true");
            text.line("light_iterate true");
            let ramp = ["use_light_texture true", "tex_address_mode clamp", "alpha_blend selectarg2 texture diffuse"];
            texture_unit(text, &ramp);
            let add = "color_blend add current tfactor";
            texture_unit(text, &[texture, "tex_coord_set 1", add, "alpha_blend modulate current texture"]);
        });
    }

    /// The multiply pass over the toon pass; for skin, the texture blended
    /// with the skin colour by its alpha, then modulated by the diffuse
    /// colour.
    fn multiply_pass(&self, text: &mut Text, texture: &str) {
        text.block("pass", |text| {
            text.line("shader_group Animate");
            text.line(match self.alpha {
                Alpha::Blend => "scene_blend add src_alpha inv_src_alpha",
                Alpha::Opaque | Alpha::Test(_) => "scene_blend add zero src_color",
            });
            text.line("depth_write false");
            text.line("lighting false");
            self.shared_states(text);
            if self.kind == TemplateKind::ToonSkin {
                let skin = "color_blend blend_texture_alpha texture tfactor";
                texture_unit(text, &[texture, skin, "alpha_blend selectarg1 diffuse diffuse"]);
                let modulate = "color_blend modulate current diffuse";
                texture_unit(text, &["tex_coord_set 1", modulate, "alpha_blend selectarg1 diffuse current"]);
            } else {
                texture_unit(text, &[texture]);
            }
        });
    }

    /// The first pass's group and the states the options set on it.
    fn pass_head(&self, text: &mut Text, group: &str) {
        text.line(format_args!("shader_group {group}"));
        if self.alpha == Alpha::Blend {
            text.line("scene_blend add src_alpha inv_src_alpha");
            text.line("depth_write false");
        }
        if self.unlit {
            text.line("lighting false");
        }
        self.shared_states(text);
    }

    /// The states every pass drawing the texture takes from the options.
    fn shared_states(&self, text: &mut Text) {
        if self.two_sided {
            text.line("cull none");
        }
        if let Alpha::Test(cutoff) = self.alpha {
            // The cutoff is checked to be from 0 to 1: the reference fits 0..=255.
            text.line(format_args!("alpha_test greater_equal {}", (cutoff * 255.0).round() as u8));
        }
    }
}

impl OutlinePass {
    fn write(&self, text: &mut Text) {
        let [r, g, b, a] = self.color;
        text.block("pass", |text| {
            text.line("shader_group AnimateOutLine");
            text.line("cull clockwise");
            text.line(format_args!("custom_param OutLineColor colorvalue {r} {g} {b} {a}"));
            text.line(format_args!("custom_param OutLineThickness float {}", self.thickness));
            texture_unit(text, &["color_blend selectarg2 texture diffuse", "alpha_blend selectarg2 texture diffuse"]);
        });
    }
}

fn texture_unit(text: &mut Text, lines: &[&str]) {
    text.block("texture_unit", |text| lines.iter().for_each(|line| text.line(line)));
}

/// The longest name a line holds: the client reads at most
/// [`MAX_LINE_BYTES`] a line, and a name sits after up to four tabs and
/// its key (`material `, `texture `).
const MAX_NAME_BYTES: usize = MAX_LINE_BYTES - 4 - "material ".len();

/// A texture's file name: the client looks it up by the script's bytes,
/// in the game's (Korean) code page, so only ASCII is found the same
/// everywhere.
fn file_name(what: &'static str, name: &str) -> Result<(), TemplateError> {
    let why = if name.is_empty() {
        "empty: the script would name no file"
    } else if !name.is_ascii() || name.contains(|c: char| c.is_ascii_control()) {
        "only ASCII without control characters: the client reads file names in the game's code page"
    } else {
        return on_one_line(what, name);
    };
    Err(TemplateError::Name { what, name: name.to_owned(), why })
}

/// A material's name: any text on one line (the client ignores it).
fn material_name(name: &str) -> Result<(), TemplateError> {
    if name.contains(char::is_control) {
        let why = "holds a control character, which would break its line";
        return Err(TemplateError::Name { what: "material name", name: name.to_owned(), why });
    }
    on_one_line("material name", name)
}

/// A name that reads back as written after its key: no blanks at its
/// ends (the client trims them off), short enough for the line.
fn on_one_line(what: &'static str, name: &str) -> Result<(), TemplateError> {
    let why = if name.trim_matches([' ', '\t']) != name {
        "starts or ends with a blank, which the client trims off"
    } else if name.len() > MAX_NAME_BYTES {
        "too long for one line of the script (the client reads 511 bytes a line)"
    } else {
        return Ok(());
    };
    Err(TemplateError::Name { what, name: name.to_owned(), why })
}

/// A number from 0 to 1.
fn unit_range(what: &'static str, value: f32) -> Result<(), TemplateError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(TemplateError::Number { what, value, why: "must be from 0 to 1" })
    }
}

/// Script text being written: blocks indented with tabs, lines ending in
/// CR LF.
#[derive(Default)]
struct Text {
    out: String,
    depth: usize,
}

impl Text {
    fn line(&mut self, line: impl Display) {
        use std::fmt::Write;
        // Writing to a String cannot fail.
        let _ = write!(self.out, "{}{line}\r\n", "\t".repeat(self.depth));
    }

    /// `keyword`, then `{`, the body one level in, and `}`.
    fn block(&mut self, keyword: impl Display, body: impl FnOnce(&mut Self)) {
        self.line(keyword);
        self.line("{");
        self.depth += 1;
        body(self);
        self.depth -= 1;
        self.line("}");
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CompareFunc, Cull, CustomValue, LightQuality};
    use super::*;
    use crate::check::check_material;
    use crate::surface::{Faces, Surface, Transparency};

    fn one(template: &Template) -> MaterialScript {
        script([("Body", template)]).unwrap()
    }

    /// The game's character script, as the toon template writes it.
    const TOON: &str = "material Body
{
	technique
	{
		pass
		{
			shader_group AnimateToonShade
			shadow_cast true
			light_iterate true
			texture_unit
			{
				use_light_texture true
				tex_address_mode clamp
				alpha_blend selectarg2 texture diffuse
			}
			texture_unit
			{
				texture body.dds
				tex_coord_set 1
				color_blend add current tfactor
				alpha_blend modulate current texture
			}
		}
		pass
		{
			shader_group Animate
			scene_blend add zero src_color
			depth_write false
			lighting false
			texture_unit
			{
				texture body.dds
			}
		}
		pass
		{
			shader_group AnimateOutLine
			cull clockwise
			custom_param OutLineColor colorvalue 0 0 0 1
			custom_param OutLineThickness float 0.6
			texture_unit
			{
				color_blend selectarg2 texture diffuse
				alpha_blend selectarg2 texture diffuse
			}
		}
	}
}
";

    #[test]
    fn the_toon_template_is_the_games_character_script() {
        let template =
            Template { outline: Some(OutlinePass::default()), ..Template::new(TemplateKind::Toon, "body.dds") };
        assert_eq!(String::from_utf8(one(&template).to_bytes()).unwrap(), TOON.replace('\n', "\r\n"));
    }

    #[test]
    fn every_template_reads_back_clean_and_as_meant() {
        let kinds = [
            TemplateKind::Toon,
            TemplateKind::ToonSkin,
            TemplateKind::Static,
            TemplateKind::Lightmap { lightmap: "body_lm.dds".into() },
        ];
        let outline = OutlinePass { color: [0.25, 0.5, 0.75, 1.0], thickness: 1.25 };
        for kind in kinds {
            for alpha in [Alpha::Opaque, Alpha::Test(0.5), Alpha::Blend] {
                for (two_sided, unlit, outline) in [(false, false, None), (true, true, Some(outline))] {
                    let template =
                        Template { kind: kind.clone(), texture: "body.dds".into(), alpha, two_sided, unlit, outline };
                    let what = format!("{template:?}");
                    let other = Template::new(TemplateKind::Static, "other.dds");
                    let script = script([("Body", &template), ("Other", &other)]).unwrap();
                    assert_eq!(script.warnings, [], "{what}");
                    assert_eq!(check_material(&script.to_bytes()), [], "{what}");
                    assert_eq!(MaterialScript::parse(&script.to_bytes()).unwrap(), script, "{what}");
                    assert_eq!(script.materials.len(), 2);
                    let material = &script.materials[0];
                    let surface = Surface::of(material);
                    let transparency = match alpha {
                        Alpha::Opaque => Transparency::Opaque,
                        Alpha::Test(_) => Transparency::Mask(128.0 / 255.0),
                        Alpha::Blend => Transparency::Blend,
                    };
                    assert_eq!(surface.transparency, transparency, "{what}");
                    assert_eq!(surface.faces, if two_sided { Faces::Both } else { Faces::Front }, "{what}");
                    assert_eq!(surface.unlit, unlit, "{what}");
                    assert_eq!(
                        surface.outline.map(|o| (o.color, o.thickness, o.faces)),
                        outline.map(|o| (o.color, o.thickness, Faces::Back))
                    );
                    let drawing: Vec<_> = material
                        .passes()
                        .iter()
                        .filter(|p| p.shader_group.as_deref() != Some("AnimateOutLine"))
                        .collect();
                    for pass in &drawing {
                        let test = pass.alpha_test.map(|t| (t.func, t.value));
                        assert_eq!(
                            test,
                            matches!(alpha, Alpha::Test(_)).then_some((CompareFunc::GreaterEqual, 128)),
                            "{what}"
                        );
                        assert_eq!(pass.cull == Cull::None, two_sided, "{what}");
                        let textures: Vec<_> = pass.texture_units.iter().filter_map(|u| u.texture.as_deref()).collect();
                        assert!(textures.contains(&"body.dds"), "{what}");
                    }
                    let skin = kind == TemplateKind::ToonSkin;
                    assert_eq!(material.is_skin(), skin, "{what}");
                    let loaded = material.as_loaded(LightQuality::Middle);
                    if matches!(kind, TemplateKind::Toon | TemplateKind::ToonSkin) {
                        let group = if skin { "AnimateToonShadeSkin" } else { "AnimateToonShade" };
                        assert_eq!(loaded.passes()[0].shader_group.as_deref(), Some(group), "{what}");
                        assert_eq!(
                            loaded.passes().len(),
                            1 + usize::from(outline.is_some()),
                            "the multiply pass folded in"
                        );
                    }
                    let color =
                        loaded.passes().iter().flat_map(|p| &p.custom_params).find(|p| p.name == "OutLineColor");
                    assert_eq!(color.map(|p| p.value), outline.map(|o| CustomValue::Color(o.color)), "{what}");
                }
            }
        }
    }

    #[test]
    fn bad_names_and_numbers_are_errors() {
        let toon = Template::new(TemplateKind::Toon, "body.dds");
        let error = |template: &Template| script([("Body", template)]).unwrap_err().to_string();
        for (texture, said) in [
            ("", "empty"),
            ("k\u{f6}rper.dds", "only ASCII"),
            ("a\nb.dds", "only ASCII without control characters"),
            (" body.dds", "trims"),
            (&"a".repeat(600), "too long"),
        ] {
            let message = error(&Template::new(TemplateKind::Static, texture));
            assert!(message.starts_with("texture ") && message.contains(said), "{message}");
        }
        let lightmap = Template::new(TemplateKind::Lightmap { lightmap: String::new() }, "body.dds");
        assert!(error(&lightmap).starts_with("lightmap \"\": empty"), "{}", error(&lightmap));
        let named = script([("a\r\nb", &toon)]).unwrap_err().to_string();
        assert!(named.contains("control character"), "{named}");
        for (alpha, said) in [(Alpha::Test(1.5), "alpha cutoff 1.5"), (Alpha::Test(f32::NAN), "alpha cutoff NaN")] {
            assert!(error(&Template { alpha, ..toon.clone() }).starts_with(said));
        }
        let colour = OutlinePass { color: [0.0, -0.5, 0.0, 1.0], ..OutlinePass::default() };
        assert!(
            error(&Template { outline: Some(colour), ..toon.clone() }).starts_with("outline colour component -0.5")
        );
        let thick = OutlinePass { thickness: f32::INFINITY, ..OutlinePass::default() };
        assert!(error(&Template { outline: Some(thick), ..toon.clone() }).starts_with("outline thickness inf"));
        assert_eq!(script([]), Err(TemplateError::NoMaterial));
        assert!(script([("", &toon)]).is_ok(), "a material needs no name");
    }
}
