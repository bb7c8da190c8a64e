//! Reading any supported file, with errors that name it.

use std::path::Path;

use anyhow::{Context, Result, bail};
use bevy_io3d::format::{Animation, ModelConfig, Skeleton};
use bevy_io3d::json::{self, Document};

/// A file of any kind the tool reads.
pub enum Loaded {
    /// A binary `.ani` or `.skl`, or one built from JSON.
    Document(Document),
    /// A model config.
    Config(ModelConfig),
}

/// Reads a file's bytes, naming the file on failure.
pub fn bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}

/// Reads `.ani` and `.skl` by their magic, JSON dumps and model configs by
/// their extension.
pub fn any(path: &Path) -> Result<Loaded> {
    let bytes = bytes(path)?;
    let context = || path.display().to_string();
    let document = match bytes.get(..4) {
        Some(b"ANI\0") => Document::Ani(Animation::from_bytes(&bytes).with_context(context)?),
        Some(b"SKL\0") => Document::Skl(Skeleton::from_bytes(&bytes).with_context(context)?),
        _ if has_extension(path, "json") => {
            let text = std::str::from_utf8(&bytes).with_context(|| format!("{}: JSON is not UTF-8", context()))?;
            json::from_json(text).with_context(context)?
        }
        _ if has_extension(path, "txt") => {
            return Ok(Loaded::Config(ModelConfig::parse(&bytes).with_context(context)?));
        }
        _ => bail!(
            "{}: not an .ani, .skl, model config .txt or JSON dump (it starts with {:02x?})",
            context(),
            &bytes[..bytes.len().min(4)]
        ),
    };
    Ok(Loaded::Document(document))
}

/// Reads a binary or JSON file that must be an `.ani` or `.skl`.
pub fn document(path: &Path) -> Result<Document> {
    match any(path)? {
        Loaded::Document(document) => Ok(document),
        Loaded::Config(_) => bail!("{}: a model config, not an .ani or .skl", path.display()),
    }
}

/// Reads an animation.
pub fn animation(path: &Path) -> Result<Animation> {
    match document(path)? {
        Document::Ani(animation) => Ok(animation),
        Document::Skl(_) => bail!("{}: a skeleton, not an animation", path.display()),
    }
}

/// Reads a skeleton.
pub fn skeleton(path: &Path) -> Result<Skeleton> {
    match document(path)? {
        Document::Skl(skeleton) => Ok(skeleton),
        Document::Ani(_) => bail!("{}: an animation, not a skeleton", path.display()),
    }
}

/// Whether the path ends in `.ext`, in any case.
pub fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}
