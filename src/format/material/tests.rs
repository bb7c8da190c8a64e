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
    assert_eq!(multiply.blend, SceneBlend { op: BlendOp::Add, src: BlendFactor::Zero, dest: BlendFactor::SrcColor });
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
    let text = format!("material m\n{{\ntechnique\n{{\npass\n{{\ntexture_unit\n{{\ntexture {name}\n}}\n}}\n}}\n}}\n");
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
        ["line 2: `ambient` outside any material block: the client ignores the line (`ambient` belongs in a material)"]
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
