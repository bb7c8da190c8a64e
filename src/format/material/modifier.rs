//! What the client rewrites in a material once it has read it (its script
//! modifiers), by the game's light quality, and the one rule for which
//! materials are skin (`docs/material.md`, "What the client rewrites").
//!
//! The toon shader the game draws with reads other texture stages than a
//! script lists: scripts carry a toon pass, a multiply pass and an outline,
//! and the client folds the multiply pass into the toon pass as it loads
//! them. Whether a material is skin, and so shows the race's colour, is
//! decided by that rewrite from the script alone, never from mesh names.

use super::{BlendFactor, BlendOp, Material, Pass, SceneBlend, TextureUnit};

/// The game's light quality option, which decides how the client rewrites
/// toon materials as it loads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LightQuality {
    /// No pixel shaders: a technique of three passes or more loses its
    /// toon pass, and the multiply pass draws alone, opaque and lit.
    Low,
    /// The default: the toon pass takes in the multiply pass.
    #[default]
    Middle,
    /// As middle, plus a pass that adds point lights to toon materials.
    High,
}

/// The rewrite the client picks for a technique from its first pass's
/// shader group and its passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToonRewrite {
    /// `AnimateToonShade` whose second pass has at most one unit.
    Plain,
    /// `AnimateToonShade` whose second pass has more than one unit:
    /// becomes `AnimateToonShadeSkin`.
    Skin,
    /// `StaticToonShade`.
    Static,
}

/// Which rewrite a technique's passes get, if any: only techniques of two
/// passes or more whose first pass is a toon group (the group compared
/// without case, as the client lowercases it).
fn toon_rewrite(passes: &[Pass]) -> Option<ToonRewrite> {
    let [first, second, ..] = passes else { return None };
    let group = first.shader_group.as_deref()?;
    if group.eq_ignore_ascii_case("AnimateToonShade") {
        Some(if second.texture_units.len() > 1 { ToonRewrite::Skin } else { ToonRewrite::Plain })
    } else if group.eq_ignore_ascii_case("StaticToonShade") {
        Some(ToonRewrite::Static)
    } else {
        None
    }
}

impl Material {
    /// Whether the client draws this material as skin: its texture's low
    /// alpha shows the race's skin colour (which comes from the game's
    /// tables, not from the files). Decided from the script as the client's
    /// modifiers decide it, with the same answer for the material as
    /// written and as [`Material::as_loaded`] makes it: the first
    /// technique's
    ///
    /// - first pass is `AnimateToonShade` and its second pass has more than
    ///   one texture unit (the client renames it `AnimateToonShadeSkin`), or
    /// - first pass is already a skin toon group (`AnimateToonShadeSkin`,
    ///   `StaticToonShadeSkin`), or
    /// - first pass is a plain group (`Animate`, `Static`) whose first unit's
    ///   `color_blend` is `blend_texture_alpha` (the texture's alpha blends
    ///   it with the skin colour).
    pub fn is_skin(&self) -> bool {
        let passes = self.passes();
        toon_rewrite(passes) == Some(ToonRewrite::Skin)
            || passes.first().is_some_and(|pass| is_skin_group(pass) || blends_skin(pass))
    }

    /// The material as the client holds it after its load-time modifier, at
    /// `quality`: what it draws, pass by pass. Techniques are rewritten in
    /// order until one has no pass or no shader group, where the client
    /// stops. Units the client creates carry their pass's line.
    ///
    /// - middle and high: a toon pass (`AnimateToonShade` with two units)
    ///   loses `light_iterate` and the second pass is deleted (whatever it
    ///   holds: scripts put the multiply pass there). Skin ([`Material::is_skin`]):
    ///   the group becomes `AnimateToonShadeSkin` and unit 1 modulates
    ///   current by texture, with the deleted pass's first unit's
    ///   filtering. Otherwise (and `StaticToonShade`, whose second pass
    ///   must have a unit): a unit adding `tfactor` is put in at 1 (on UV
    ///   set 1) and the texture unit moves to 2 (on UV set 2), modulating;
    ///   the static one takes the deleted pass's filtering.
    /// - high: `AnimateToonShade` materials whose first pass is opaque get a
    ///   last pass for point lights: a copy of the toon pass added over the
    ///   frame (`add inv_dest_color one`), without depth writes, shadows or
    ///   the directional light, iterating lights, with one texture unit
    ///   after the light ramp.
    /// - low: a technique of three passes or more whose first group is an
    ///   `Animate` or `Static` one loses its first pass; a multiply pass
    ///   (`zero src_color`) left first becomes opaque, lit, writing depth
    ///   and casting shadows, with only its first unit (a `modulate` one
    ///   selecting the texture).
    ///
    /// The outline pass is switched on and off as a whole by a game option,
    /// which this does not model.
    pub fn as_loaded(&self, quality: LightQuality) -> Material {
        let mut material = self.clone();
        for technique in &mut material.techniques {
            let Some(group) = technique.passes.first().and_then(|pass| pass.shader_group.clone()) else { break };
            match quality {
                LightQuality::Low => without_pixel_shaders(&mut technique.passes, &group),
                LightQuality::Middle | LightQuality::High => {
                    let rewrite = toon_rewrite(&technique.passes);
                    if let Some(rewrite) = rewrite {
                        fold_multiply_pass(&mut technique.passes, rewrite);
                    }
                    if quality == LightQuality::High && matches!(rewrite, Some(ToonRewrite::Plain | ToonRewrite::Skin))
                    {
                        add_point_light_pass(&mut technique.passes);
                    }
                }
            }
        }
        material
    }
}

/// A toon group the client has already made skin.
fn is_skin_group(pass: &Pass) -> bool {
    pass.shader_group.as_deref().is_some_and(|group| group.to_ascii_lowercase().ends_with("toonshadeskin"))
}

/// A plain (`Animate`, `Static`) pass whose first unit blends the texture
/// with the skin colour by its alpha.
fn blends_skin(pass: &Pass) -> bool {
    let plain = pass.shader_group.as_deref().is_some_and(|g| ["animate", "static"].contains(&&*g.to_ascii_lowercase()));
    plain && pass.texture_units.first().and_then(color_op).as_deref() == Some("blend_texture_alpha")
}

/// The operation of the unit's last `color_blend` line of three words (the
/// client ignores the others), lowercased as the client reads it.
fn color_op(unit: &TextureUnit) -> Option<String> {
    unit.other.iter().rev().find_map(|(key, args)| {
        let words: Vec<&str> = args.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
        (key == "color_blend" && words.len() == 3).then(|| words[0].to_ascii_lowercase())
    })
}

/// Sets a key kept as written ([`Pass::other`], [`TextureUnit::other`]),
/// replacing its earlier lines.
fn set(other: &mut Vec<(String, String)>, key: &str, value: &str) {
    unset(other, key);
    other.push((key.to_owned(), value.to_owned()));
}

fn unset(other: &mut Vec<(String, String)>, key: &str) {
    other.retain(|(k, _)| k != key);
}

/// Middle and high quality: the toon pass takes in the second pass, which
/// is deleted.
fn fold_multiply_pass(passes: &mut Vec<Pass>, rewrite: ToonRewrite) {
    let filtering = passes[1].texture_units.first().map(|unit| unit.filtering);
    let toon = &mut passes[0];
    if toon.texture_units.len() != 2 || (rewrite == ToonRewrite::Static && filtering.is_none()) {
        return;
    }
    unset(&mut toon.other, "light_iterate");
    if rewrite == ToonRewrite::Skin {
        toon.shader_group = Some("AnimateToonShadeSkin".to_owned());
        let unit = &mut toon.texture_units[1];
        stage(unit, "modulate current texture", "modulate current texture");
        unit.filtering = filtering.unwrap_or(unit.filtering);
    } else {
        let mut added = TextureUnit::new(toon.line, 1);
        stage(&mut added, "add current tfactor", "selectarg1 current tfactor");
        toon.texture_units.insert(1, added);
        let texture = &mut toon.texture_units[2];
        stage(texture, "modulate current texture", "modulate current texture");
        texture.uv_set = 2;
        if rewrite == ToonRewrite::Static {
            texture.filtering = filtering.unwrap_or(texture.filtering);
        }
    }
    passes.remove(1);
}

fn stage(unit: &mut TextureUnit, color: &str, alpha: &str) {
    set(&mut unit.other, "color_blend", color);
    set(&mut unit.other, "alpha_blend", alpha);
}

/// High quality: a copy of the toon pass that adds point lights.
fn add_point_light_pass(passes: &mut Vec<Pass>) {
    if passes.first().is_none_or(Pass::is_transparent) {
        return;
    }
    let toon = passes.iter().find(|pass| {
        pass.shader_group.as_deref().is_some_and(|group| group.to_ascii_lowercase().contains("toonshade"))
    });
    let Some(mut light) = toon.cloned() else { return };
    light.depth_write = false;
    light.blend = SceneBlend { op: BlendOp::Add, src: BlendFactor::InvDestColor, dest: BlendFactor::One };
    set(&mut light.other, "light_iterate", "true");
    unset(&mut light.other, "shadow_cast");
    set(&mut light.other, "remove_light_type", "directional");
    if light.texture_units.len() == 3 {
        light.texture_units.remove(1);
    }
    if let Some(unit) = light.texture_units.get_mut(1) {
        stage(unit, "selectarg1 current texture", "modulate current texture");
        unit.uv_set = 1;
    }
    passes.push(light);
}

/// Low quality: no toon pass; a multiply pass left first draws alone.
fn without_pixel_shaders(passes: &mut Vec<Pass>, group: &str) {
    let group = group.to_ascii_lowercase();
    if !(group.contains("static") || group.contains("animate")) || passes.len() < 3 {
        return;
    }
    passes.remove(0);
    let pass = &mut passes[0];
    if (pass.blend.src, pass.blend.dest) != (BlendFactor::Zero, BlendFactor::SrcColor) {
        return;
    }
    pass.blend = SceneBlend::OPAQUE;
    (pass.depth_write, pass.lighting) = (true, true);
    set(&mut pass.other, "shadow_cast", "true");
    pass.texture_units.truncate(1);
    if let Some(unit) = pass.texture_units.first_mut()
        && color_op(unit).as_deref() == Some("modulate")
    {
        set(&mut unit.other, "color_blend", "selectarg1 texture diffuse");
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Filtering, MaterialScript};
    use super::*;

    /// A toon pass (light ramp, texture), a multiply pass whose units are
    /// `multiply`, and an outline.
    fn toon(multiply: &str) -> Material {
        let text = format!(
            "material m\n{{\ntechnique\n{{\n\
             pass\n{{\nshader_group AnimateToonShade\nshadow_cast true\nlight_iterate true\n\
             texture_unit\n{{\nuse_light_texture true\n}}\ntexture_unit\n{{\ntexture body.dds\ntex_coord_set 1\n}}\n}}\n\
             pass\n{{\nshader_group Animate\nscene_blend add zero src_color\ndepth_write false\n{multiply}\n}}\n\
             pass\n{{\nshader_group AnimateOutLine\ncull clockwise\n}}\n}}\n}}\n"
        );
        let script = MaterialScript::parse(text.as_bytes()).unwrap();
        assert_eq!(script.warnings, []);
        script.materials[0].clone()
    }

    fn first(text: &str) -> Material {
        MaterialScript::parse(text.as_bytes()).unwrap().materials[0].clone()
    }

    /// One pass of `group` with one unit holding `unit`.
    fn one_pass(group: &str, unit: &str) -> Material {
        first(&format!(
            "material m\n{{\ntechnique\n{{\npass\n{{\nshader_group {group}\ntexture_unit\n{{\n{unit}\n}}\n}}\n}}\n}}\n"
        ))
    }

    const ONE_UNIT: &str = "texture_unit\n{\ntexture body.dds\nfiltering trilinear\n}";
    const TWO_UNITS: &str = "texture_unit\n{\ntexture body.dds\nfiltering trilinear\n\
        color_blend blend_texture_alpha texture tfactor\n}\ntexture_unit\n{\ncolor_blend modulate current diffuse\n}";

    fn groups(material: &Material) -> Vec<&str> {
        material.passes().iter().map(|pass| pass.shader_group.as_deref().unwrap_or("")).collect()
    }

    fn ops(unit: &TextureUnit) -> Vec<(&str, &str)> {
        unit.other.iter().map(|(key, args)| (key.as_str(), args.as_str())).collect()
    }

    #[test]
    fn skin_is_found_from_the_script_as_the_client_finds_it() {
        assert!(toon(TWO_UNITS).is_skin(), "a multiply pass of two units");
        assert!(!toon(ONE_UNIT).is_skin(), "a multiply pass of one unit");
        assert!(!toon("").is_skin(), "a second pass of no unit");
        let blend = "texture body.dds\ncolor_blend blend_texture_alpha texture tfactor";
        assert!(one_pass("Animate", blend).is_skin());
        assert!(
            one_pass("STATIC", &blend.replace("blend_texture_alpha", "BLEND_TEXTURE_ALPHA")).is_skin(),
            "groups and operations are read without case"
        );
        assert!(one_pass("AnimateToonShadeSkin", "texture body.dds").is_skin(), "already the skin group");
        assert!(!one_pass("Animate", "color_blend blend_texture_alpha texture").is_skin(), "a line the client ignores");
        assert!(!one_pass("Animate", "color_blend modulate texture current").is_skin());
        assert!(!one_pass("LightMap", blend).is_skin(), "not a plain group");
        assert!(!one_pass("AnimateToonShade", "texture body.dds").is_skin(), "no second pass");
        for material in [toon(TWO_UNITS), toon(ONE_UNIT), toon("")] {
            for quality in [LightQuality::Low, LightQuality::Middle, LightQuality::High] {
                let loaded = material.as_loaded(quality);
                assert_eq!(loaded.is_skin(), material.is_skin(), "the same once loaded, at {quality:?}");
            }
        }
    }

    #[test]
    fn middle_quality_folds_the_multiply_pass_into_the_toon_pass() {
        let plain = toon(ONE_UNIT).as_loaded(LightQuality::Middle);
        assert_eq!(groups(&plain), ["AnimateToonShade", "AnimateOutLine"]);
        let pass = &plain.passes()[0];
        assert_eq!(pass.other, [("shadow_cast".to_owned(), "true".to_owned())], "light_iterate goes");
        let units = &pass.texture_units;
        assert_eq!(units.len(), 3);
        assert!(units[0].light_texture);
        assert_eq!((units[1].texture.as_deref(), units[1].uv_set), (None, 1));
        assert_eq!(
            ops(&units[1]),
            [("color_blend", "add current tfactor"), ("alpha_blend", "selectarg1 current tfactor")]
        );
        assert_eq!((units[2].texture.as_deref(), units[2].uv_set), (Some("body.dds"), 2));
        assert_eq!(
            ops(&units[2]),
            [("color_blend", "modulate current texture"), ("alpha_blend", "modulate current texture")]
        );
        assert_eq!(units[2].filtering, Filtering::Bilinear, "the animated toon pass keeps its own");
        assert_eq!(plain.as_loaded(LightQuality::Middle), plain, "loading again changes nothing more");

        let skin = toon(TWO_UNITS).as_loaded(LightQuality::default());
        assert_eq!(groups(&skin), ["AnimateToonShadeSkin", "AnimateOutLine"]);
        let units = &skin.passes()[0].texture_units;
        assert_eq!(units.len(), 2);
        assert_eq!((units[1].texture.as_deref(), units[1].filtering), (Some("body.dds"), Filtering::Trilinear));
        assert_eq!(
            ops(&units[1]),
            [("color_blend", "modulate current texture"), ("alpha_blend", "modulate current texture")]
        );

        let mut static_toon = toon(ONE_UNIT);
        static_toon.techniques[0].passes[0].shader_group = Some("StaticToonShade".into());
        let loaded = static_toon.as_loaded(LightQuality::Middle);
        assert_eq!(
            loaded.passes()[0].texture_units[2].filtering,
            Filtering::Trilinear,
            "the static one takes the multiply pass's"
        );
        static_toon.techniques[0].passes[1].texture_units.clear();
        assert_eq!(static_toon.as_loaded(LightQuality::Middle), static_toon, "a static toon pass needs a unit there");
    }

    #[test]
    fn high_quality_adds_a_point_light_pass_and_low_quality_drops_the_toon_pass() {
        let high = toon(TWO_UNITS).as_loaded(LightQuality::High);
        assert_eq!(groups(&high), ["AnimateToonShadeSkin", "AnimateOutLine", "AnimateToonShadeSkin"]);
        let light = &high.passes()[2];
        assert_eq!(
            light.blend,
            SceneBlend { op: BlendOp::Add, src: BlendFactor::InvDestColor, dest: BlendFactor::One }
        );
        assert!(!light.depth_write);
        let states: Vec<&str> = light.other.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(states, ["light_iterate", "remove_light_type"], "no shadows");
        assert_eq!(ops(&light.texture_units[1]).first(), Some(&("color_blend", "selectarg1 current texture")));
        let plain = toon(ONE_UNIT).as_loaded(LightQuality::High);
        assert_eq!(plain.passes()[2].texture_units.len(), 2, "the tfactor unit left out");
        let mut blended = toon(ONE_UNIT);
        blended.techniques[0].passes[0].blend = SceneBlend::named("src_alpha").unwrap();
        assert_eq!(blended.as_loaded(LightQuality::High).passes().len(), 2, "none over a transparent pass");

        let low = toon(TWO_UNITS).as_loaded(LightQuality::Low);
        assert_eq!(groups(&low), ["Animate", "AnimateOutLine"]);
        let pass = &low.passes()[0];
        assert_eq!(pass.blend, SceneBlend::OPAQUE);
        assert!(pass.depth_write && pass.lighting);
        assert_eq!(pass.other, [("shadow_cast".to_owned(), "true".to_owned())]);
        assert_eq!(pass.texture_units.len(), 1);
        assert!(low.is_skin(), "the blend with the skin colour stays");
        let low = toon(ONE_UNIT.replace("}", "color_blend modulate texture current\n}").as_str());
        let low = low.as_loaded(LightQuality::Low);
        assert_eq!(ops(&low.passes()[0].texture_units[0]), [("color_blend", "selectarg1 texture diffuse")]);
        let two_passes = one_pass("Animate", "texture a.dds");
        assert_eq!(two_passes.as_loaded(LightQuality::Low), two_passes, "fewer than three passes stay");
    }
}
