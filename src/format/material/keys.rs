//! Each key of a block as the client reads it: its arguments, what it sets
//! and the warnings for what the client would only log.

use super::*;
use crate::format::c_text;

/// Where warnings about the current line go.
pub(super) struct Log<'a> {
    pub(super) line: usize,
    pub(super) key: &'a str,
    pub(super) warnings: &'a mut Vec<MaterialWarning>,
}

impl Log<'_> {
    fn warn(&mut self, message: impl Into<String>) {
        self.warnings.push(MaterialWarning { line: self.line, message: format!("`{}`: {}", self.key, message.into()) });
    }

    /// A float as the client reads it (`atof`), with a warning when the text
    /// is not entirely a number.
    fn float(&mut self, word: &str) -> f32 {
        let (value, whole) = c_text::atof(word);
        if !whole {
            self.warn(format!("`{word}` is not a number: the client reads {value}"));
        }
        value
    }

    /// An integer as the client reads it (`atoi`).
    fn int(&mut self, word: &str) -> i32 {
        let (value, whole) = c_text::atoi(word);
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
pub(super) fn material_key(material: &mut Material, key: &str, args: &str, log: &mut Log<'_>) -> bool {
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
pub(super) fn pass_key(pass: &mut Pass, key: &str, args: &str, log: &mut Log<'_>) -> bool {
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
pub(super) fn unit_key(unit: &mut TextureUnit, key: &str, args: &str, log: &mut Log<'_>) -> bool {
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
