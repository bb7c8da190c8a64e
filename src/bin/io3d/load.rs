//! Reading any supported file, with errors that name it.

use std::path::Path;

use anyhow::{Context, Result, bail};
use bevy_io3d::format::{
    Animation, BinaryKind, Collision, Dds, Magic, MaterialScript, Mesh, ModelConfig, Skeleton, sniff,
};
use bevy_io3d::json::{self, Document};
use bevy_io3d::resource::{ResourceKind, text_kind};

/// A file of any kind the tool reads.
pub enum Loaded {
    /// A binary file (`.ani`, `.skl`, `.msh`, `.cms`), a material script,
    /// or one built from JSON.
    Document(Document),
    /// A model config.
    Config(ModelConfig),
    /// A `.dds` texture.
    Texture(Dds),
}

/// Reads a file's bytes, naming the file on failure.
pub fn bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}

/// Reads binary files by their magic, JSON dumps by their extension, and
/// `.txt` files as model configs or material scripts
/// ([`text_kind`]).
pub fn any(path: &Path) -> Result<Loaded> {
    let bytes = bytes(path)?;
    let context = || path.display().to_string();
    let document = match sniff(&bytes) {
        Some(Magic::Dds) => return Ok(Loaded::Texture(Dds::from_bytes(&bytes).with_context(context)?)),
        Some(Magic::Binary(BinaryKind::Ani)) => Document::Ani(Animation::from_bytes(&bytes).with_context(context)?),
        Some(Magic::Binary(BinaryKind::Skl)) => Document::Skl(Skeleton::from_bytes(&bytes).with_context(context)?),
        Some(Magic::Binary(BinaryKind::Msh)) => {
            Document::Msh(Box::new(Mesh::from_bytes(&bytes).with_context(context)?))
        }
        Some(Magic::Binary(BinaryKind::Cms)) => Document::Cms(Collision::from_bytes(&bytes).with_context(context)?),
        _ if has_extension(path, "json") => {
            let text = std::str::from_utf8(&bytes).with_context(|| format!("{}: JSON is not UTF-8", context()))?;
            json::from_json(text).with_context(context)?
        }
        _ if has_extension(path, "txt") => match text_kind(path, &bytes) {
            Some(ResourceKind::Material) => Document::Material(MaterialScript::parse(&bytes).with_context(context)?),
            Some(_) => return Ok(Loaded::Config(ModelConfig::parse(&bytes).with_context(context)?)),
            None => bail!(
                "{}: neither a model config (no #SECTION lines) nor a material script (no material block)",
                context()
            ),
        },
        _ => bail!(
            "{}: not an .ani, .skl, .msh, .cms, .dds, model config or material script .txt, or JSON dump (it starts with {:02x?})",
            context(),
            &bytes[..bytes.len().min(4)]
        ),
    };
    Ok(Loaded::Document(document))
}

/// Reads a binary, script or JSON file that must not be a model config.
pub fn document(path: &Path) -> Result<Document> {
    match any(path)? {
        Loaded::Document(document) => Ok(document),
        Loaded::Config(_) => bail!("{}: a model config; this command takes the files it names", path.display()),
        Loaded::Texture(_) => {
            bail!("{}: a texture; this command takes animations, skeletons and meshes", path.display())
        }
    }
}

/// Reads an animation.
pub fn animation(path: &Path) -> Result<Animation> {
    match document(path)? {
        Document::Ani(animation) => Ok(animation),
        other => bail!("{}: {}, not an animation", path.display(), other.kind()),
    }
}

/// Reads a skeleton.
pub fn skeleton(path: &Path) -> Result<Skeleton> {
    match document(path)? {
        Document::Skl(skeleton) => Ok(skeleton),
        other => bail!("{}: {}, not a skeleton", path.display(), other.kind()),
    }
}

/// Reads a mesh.
pub fn mesh(path: &Path) -> Result<Mesh> {
    match document(path)? {
        Document::Msh(mesh) => Ok(*mesh),
        other => bail!("{}: {}, not a mesh", path.display(), other.kind()),
    }
}

/// Whether the path ends in `.ext`, in any case.
pub fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}
