//! The model config text format (`resource/Model/*.txt`): which skeleton,
//! animations and meshes make up a model.

use thiserror::Error;

/// What a model config names. File names are as written; the client looks
/// skeletons up under `Skeleton`, animations under `Animation` and meshes as
/// `<name>.msh` under `Mesh`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelConfig {
    /// The skeleton file, from `#SKELETON`.
    pub skeleton: Option<String>,
    /// Animation files, from `#ANIMATION_LIST`.
    pub animations: Vec<String>,
    /// Mesh names, from `#MESH_LIST`.
    pub meshes: Vec<String>,
    /// The collision mesh file (`.cms`, or a `.msh`), from
    /// `#COLLISION_MESH`.
    pub collision_mesh: Option<String>,
}

/// Why a text is not a model config.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// `#SKELETON` or `#COLLISION_MESH` is the last line, with no file
    /// name after it.
    #[error("line {line}: {token} has no file name after it")]
    MissingFileName {
        /// Line number (from 1) of the token.
        line: usize,
        /// The token.
        token: &'static str,
    },
    /// A list has no end token.
    #[error("line {line}: {section} is never closed by {end}")]
    UnclosedList {
        /// Line number (from 1) where the list starts.
        line: usize,
        /// The list's token.
        section: &'static str,
        /// The token that should close it.
        end: &'static str,
    },
    /// A section token appears inside a list.
    #[error("line {line}: {token} inside {section}, which is not closed by {end} yet")]
    TokenInList {
        /// Line number (from 1) of the token.
        line: usize,
        /// The token found.
        token: String,
        /// The open list.
        section: &'static str,
        /// The token that should close it.
        end: &'static str,
    },
}

/// The lists a config holds: token, closing token.
const ANIMATIONS: (&str, &str) = ("#ANIMATION_LIST", "#ANIMATION_LIST_END");
const MESHES: (&str, &str) = ("#MESH_LIST", "#MESH_LIST_END");

impl ModelConfig {
    /// Parses a config from its bytes, which may be UTF-8 or CP949.
    /// Lines starting with `;` are comments; unknown sections are skipped.
    pub fn parse(bytes: &[u8]) -> Result<Self, ConfigError> {
        let text = crate::format::FileString::from(bytes).to_text();
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, line)| (i + 1, line.trim()))
            .filter(|(_, line)| !line.is_empty() && !line.starts_with(';'));
        let mut config = Self::default();
        while let Some((number, line)) = lines.next() {
            match line {
                "#SKELETON" => config.skeleton = Some(file_name(&mut lines, number, "#SKELETON")?),
                "#COLLISION_MESH" => config.collision_mesh = Some(file_name(&mut lines, number, "#COLLISION_MESH")?),
                "#MODEL_END" => break,
                _ if line == ANIMATIONS.0 => config.animations = read_list(&mut lines, number, ANIMATIONS)?,
                _ if line == MESHES.0 => config.meshes = read_list(&mut lines, number, MESHES)?,
                // #MODEL_CFG, other sections and their values.
                _ => {}
            }
        }
        Ok(config)
    }
}

fn file_name<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    line: usize,
    token: &'static str,
) -> Result<String, ConfigError> {
    lines.next().map(|(_, name)| name.to_owned()).ok_or(ConfigError::MissingFileName { line, token })
}

fn read_list<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    start: usize,
    (section, end): (&'static str, &'static str),
) -> Result<Vec<String>, ConfigError> {
    let mut items = Vec::new();
    for (line, item) in lines {
        if item == end {
            return Ok(items);
        }
        if item.starts_with('#') {
            return Err(ConfigError::TokenInList { line, token: item.to_owned(), section, end });
        }
        items.push(item.to_owned());
    }
    Err(ConfigError::UnclosedList { line: start, section, end })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_skips_unknown_sections() {
        let text = "; a model\r\n#MODEL_CFG\r\n#SKELETON\r\n  biped.skl\r\n#AABOX\r\n-1 0 -1\r\n1 2 1\r\n\
                    #ANIMATION_LIST\r\nwalk.ani\r\n; old: run.ani\r\nidle.ani\r\n#ANIMATION_LIST_END\r\n\
                    #MESH_LIST\r\nbody\r\n#MESH_LIST_END\r\n#COLLISION_MESH\r\nbody.cms\r\n#MODEL_END\r\n#SKELETON\r\nignored.skl\r\n";
        let config = ModelConfig::parse(text.as_bytes()).unwrap();
        assert_eq!(config.skeleton.as_deref(), Some("biped.skl"));
        assert_eq!(config.animations, ["walk.ani", "idle.ani"]);
        assert_eq!(config.meshes, ["body"]);
        assert_eq!(config.collision_mesh.as_deref(), Some("body.cms"));
    }

    #[test]
    fn errors_name_the_line() {
        let err = ModelConfig::parse(b"#MODEL_CFG\n#ANIMATION_LIST\nwalk.ani\n").unwrap_err();
        assert_eq!(err.to_string(), "line 2: #ANIMATION_LIST is never closed by #ANIMATION_LIST_END");
        let err = ModelConfig::parse(b"#ANIMATION_LIST\nwalk.ani\n#MESH_LIST\n").unwrap_err();
        assert!(matches!(err, ConfigError::TokenInList { line: 3, .. }));
        assert_eq!(
            ModelConfig::parse(b"#SKELETON\n").unwrap_err(),
            ConfigError::MissingFileName { line: 1, token: "#SKELETON" }
        );
    }
}
