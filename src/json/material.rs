//! The JSON form of a material script: its exact text, which is what
//! builds the file, beside what the client makes of it, for people (ignored
//! when building).
//!
//! ```json
//! {"format":"material","source":"material Body\n{\n ...\n}\n",
//!  "materials":[{"name":"Body","line":1,"passes":[{"line":5,"shader_group":"Static","scene_blend":"...",
//!    "cull":"counter_clockwise","transparent":false,"two_sided":false,
//!    "texture_units":[{"line":8,"texture":"body.dds","uv_set":0,"light_texture":false}]}]}],
//!  "warnings":[]}
//! ```

use serde::{Deserialize, Serialize};

use super::JsonError;
use super::values::JsonString;
use crate::format::material::{Material, Pass, TextureUnit};
use crate::format::{FileString, MaterialScript, Place};

#[derive(Serialize, Deserialize)]
pub(super) struct MaterialDoc {
    format: String,
    /// The script's bytes: UTF-8 text, or hex for CP949.
    source: JsonString,
    #[serde(default, skip_deserializing)]
    materials: Vec<MaterialView>,
    #[serde(default, skip_deserializing)]
    warnings: Vec<String>,
}

#[derive(Serialize, Default)]
struct MaterialView {
    name: String,
    line: usize,
    passes: Vec<PassView>,
}

#[derive(Serialize)]
struct PassView {
    line: usize,
    shader_group: Option<String>,
    scene_blend: String,
    cull: String,
    transparent: bool,
    two_sided: bool,
    alpha_test: Option<String>,
    texture_units: Vec<UnitView>,
}

#[derive(Serialize)]
struct UnitView {
    line: usize,
    texture: Option<String>,
    uv_set: usize,
    light_texture: bool,
}

impl From<&MaterialScript> for MaterialDoc {
    fn from(script: &MaterialScript) -> Self {
        Self {
            format: "material".into(),
            source: (&FileString::from(script.source.as_slice())).into(),
            materials: script.materials.iter().map(view).collect(),
            warnings: script.warnings.iter().map(ToString::to_string).collect(),
        }
    }
}

fn view(material: &Material) -> MaterialView {
    let unit = |u: &TextureUnit| UnitView {
        line: u.line,
        texture: u.texture.clone(),
        uv_set: u.uv_set,
        light_texture: u.light_texture,
    };
    let pass = |p: &Pass| PassView {
        line: p.line,
        shader_group: p.shader_group.clone(),
        scene_blend: p.blend.to_string(),
        cull: p.cull.word().into(),
        transparent: p.is_transparent(),
        two_sided: p.is_two_sided(),
        alpha_test: p.alpha_test.map(|a| format!("{} {}", a.func.word(), a.value)),
        texture_units: p.texture_units.iter().map(unit).collect(),
    };
    MaterialView {
        name: material.name.clone(),
        line: material.line,
        passes: material.passes().iter().map(pass).collect(),
    }
}

impl MaterialDoc {
    pub(super) fn into_script(self) -> Result<MaterialScript, JsonError> {
        let bytes =
            self.source.to_file_string().map_err(|problem| JsonError::BadValue { place: Place::Header, problem })?;
        MaterialScript::parse(bytes.as_bytes()).map_err(|e| JsonError::BadValue {
            place: Place::Header,
            problem: format!("the source is not a script the client reads: {e}"),
        })
    }
}
