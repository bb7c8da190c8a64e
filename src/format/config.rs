//! The model config text format (`resource/Model/*.txt`): which skeleton,
//! animations and meshes make up a model.

use thiserror::Error;

/// What a model config names. File names are as written; the client looks
/// skeletons up under `Skeleton`, animations under `Animation` and meshes as
/// `<name>.msh` under `Mesh`.
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// The box a static model is culled and picked by, from `#AABOX` (a
    /// minimum line and a maximum line).
    pub aabox: Option<[[f32; 3]; 2]>,
    /// Its sphere, from `#SPHERE` (a centre line and a radius line).
    pub sphere: Option<([f32; 3], f32)>,
}

/// Why a text is not a model config.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// `#SKELETON`, `#COLLISION_MESH`, `#AABOX` or `#SPHERE` is the last
    /// line, with nothing after it.
    #[error("line {line}: {token} has nothing after it")]
    MissingFileName {
        /// Line number (from 1) of the token.
        line: usize,
        /// The token.
        token: &'static str,
    },
    /// A line of `#AABOX` or `#SPHERE` that is not the numbers it needs.
    #[error("line {line}: {token} needs {count} numbers here, found '{text}'")]
    Numbers {
        /// Line number (from 1).
        line: usize,
        /// The section.
        token: &'static str,
        /// How many numbers the line needs.
        count: usize,
        /// The line.
        text: String,
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
                "#AABOX" => {
                    config.aabox = Some([point(&mut lines, number, "#AABOX")?, point(&mut lines, number, "#AABOX")?])
                }
                "#SPHERE" => {
                    let centre = point(&mut lines, number, "#SPHERE")?;
                    config.sphere = Some((centre, numbers::<1>(&mut lines, number, "#SPHERE")?[0]));
                }
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

impl ModelConfig {
    /// The text the game's tools write for the config: the sections it
    /// holds, in the order the client reads them (`#SKELETON` before
    /// `#MESH_LIST`), CRLF line ends; [`ModelConfig::parse`] reads it back.
    pub fn to_text(&self) -> String {
        let mut lines = vec!["#MODEL_CFG".to_owned()];
        if let Some(skeleton) = &self.skeleton {
            lines.extend(["#SKELETON".to_owned(), skeleton.clone()]);
        }
        for (items, (start, end)) in [(&self.animations, ANIMATIONS), (&self.meshes, MESHES)] {
            if !items.is_empty() {
                lines.push(start.to_owned());
                lines.extend(items.iter().cloned());
                lines.push(end.to_owned());
            }
        }
        let join = |p: &[f32; 3]| format!("{} {} {}", p[0], p[1], p[2]);
        if let Some([min, max]) = &self.aabox {
            lines.extend(["#AABOX".to_owned(), join(min), join(max)]);
        }
        if let Some((centre, radius)) = &self.sphere {
            lines.extend(["#SPHERE".to_owned(), join(centre), radius.to_string()]);
        }
        if let Some(collision) = &self.collision_mesh {
            lines.extend(["#COLLISION_MESH".to_owned(), collision.clone()]);
        }
        lines.push("#MODEL_END".to_owned());
        lines.iter().map(|line| format!("{line}\r\n")).collect()
    }
}

/// The next line's `N` numbers, for `token`.
fn numbers<'a, const N: usize>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    line: usize,
    token: &'static str,
) -> Result<[f32; N], ConfigError> {
    let (at, text) = lines.next().ok_or(ConfigError::MissingFileName { line, token })?;
    let values: Vec<f32> = text.split_whitespace().filter_map(|word| word.parse().ok()).collect();
    values.try_into().map_err(|_| ConfigError::Numbers { line: at, token, count: N, text: text.to_owned() })
}

fn point<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    line: usize,
    token: &'static str,
) -> Result<[f32; 3], ConfigError> {
    numbers::<3>(lines, line, token)
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
        assert_eq!(config.aabox, Some([[-1.0, 0.0, -1.0], [1.0, 2.0, 1.0]]));
    }

    #[test]
    fn written_configs_read_back() {
        let config = ModelConfig {
            skeleton: None,
            animations: Vec::new(),
            meshes: vec!["crate".into(), "crate_lid".into()],
            collision_mesh: Some("crate.cms".into()),
            aabox: Some([[-1.5, 0.0, -1.0], [1.5, 2.25, 1.0]]),
            sphere: Some(([0.0, 1.125, 0.0], 2.1)),
        };
        let text = config.to_text();
        assert!(text.starts_with("#MODEL_CFG\r\n#MESH_LIST\r\ncrate\r\n"), "{text}");
        assert_eq!(ModelConfig::parse(text.as_bytes()).unwrap(), config);
        let err = ModelConfig::parse(b"#AABOX\n1 2\n3 4 5\n").unwrap_err();
        assert_eq!(err.to_string(), "line 2: #AABOX needs 3 numbers here, found '1 2'");
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
