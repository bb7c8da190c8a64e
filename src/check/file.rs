//! One file's lint, whatever its kind: what `io3d check` runs on each file
//! it finds and what the viewer runs on a preview's files.

use std::path::Path;

use super::{Finding, Rule, check_ani, check_cms, check_dds, check_material, check_msh, check_skl};
use crate::format::{BinaryKind, Magic, ModelConfig, Skeleton, sniff};
use crate::resource::{ResourceKind, text_kind};

/// The findings of the file at `path` holding `bytes`: its kind by its
/// magic, else by its extension (a `.txt` by its text), the rest read as
/// an `.ani`. Meshes and animations are checked against `skeleton` when
/// given. A `.txt` that is neither a config nor a script is a finding only
/// when it was `named` (asked for, not met in a folder).
pub fn check_file(path: &Path, bytes: &[u8], skeleton: Option<&Skeleton>, named: bool) -> Vec<Finding> {
    let extension = |ext: &str| path.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext));
    match sniff(bytes) {
        Some(Magic::Binary(BinaryKind::Skl)) => check_skl(bytes),
        Some(Magic::Binary(BinaryKind::Msh)) => check_msh(bytes, skeleton),
        Some(Magic::Binary(BinaryKind::Cms)) => check_cms(bytes),
        Some(Magic::Dds) => check_dds(bytes),
        _ if extension("txt") => check_text(path, bytes, named),
        _ if extension("msh") => check_msh(bytes, skeleton),
        _ if extension("cms") => check_cms(bytes),
        _ if extension("skl") => check_skl(bytes),
        _ if extension("dds") => check_dds(bytes),
        _ => check_ani(bytes, skeleton),
    }
}

/// A `.txt`: a material script's lint, or whether a config parses.
fn check_text(path: &Path, bytes: &[u8], named: bool) -> Vec<Finding> {
    match text_kind(path, bytes) {
        Some(ResourceKind::Material) => check_material(bytes),
        Some(_) => match ModelConfig::parse(bytes) {
            Ok(_) => Vec::new(),
            Err(error) => vec![unreadable(error.to_string())],
        },
        None if named => {
            vec![unreadable(
                "neither a model config (no #SECTION lines) nor a material script (no material block)".into(),
            )]
        }
        None => Vec::new(),
    }
}

/// The finding for a file or folder that cannot be read or searched.
pub fn unreadable(message: String) -> Finding {
    Finding::new(Rule::Unreadable, 0, message)
}
