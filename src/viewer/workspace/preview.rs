//! Files shown on their own, as the client would use them: a texture on a
//! card, a material script's first material on a ball, a collision mesh's
//! edges.

use std::path::Path;

use bevy::asset::Handle;
use bevy::image::{CompressedImageFormats, Image, ImageSamplerDescriptor};
use bevy::pbr::StandardMaterial;

use super::{Stores, Workspace};
use crate::format::{BinaryKind, Collision, Dds, Magic, MaterialScript, sniff};
use crate::plugin::character::Io3dMaterial;
use crate::plugin::character::texture::to_image;
use crate::resource::{self, FileSource, ResourceKind};

/// A file shown on its own.
#[derive(Debug, Clone)]
pub struct OpenPreview {
    /// The file's name.
    pub name: String,
    /// What it holds, a line each.
    pub facts: Vec<String>,
    /// What the reader or the client would warn about.
    pub findings: Vec<String>,
    /// How the stage shows it (nothing for a script with no material).
    pub shown: Option<Shown>,
}

/// How the stage shows a previewed file.
#[derive(Debug, Clone)]
pub enum Shown {
    /// A texture on a card of its proportions (width over height).
    Texture(Handle<Image>, f32),
    /// A material on a ball.
    Material(Handle<StandardMaterial>),
    /// A collision mesh's triangle edges, where the model stands.
    Collision(Collision),
}

impl Workspace {
    /// Shows `bytes` on their own if they are a texture, a collision mesh
    /// or a material script; returns whether they were one of these.
    pub(super) fn open_preview(&mut self, path: &Path, bytes: &[u8], stores: &mut Stores) -> bool {
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
        let who = path.display();
        let preview = match sniff(bytes) {
            Some(Magic::Dds) => {
                Dds::from_bytes(bytes).map(|dds| texture(name, &dds, stores)).map_err(|e| e.to_string())
            }
            Some(Magic::Binary(BinaryKind::Cms)) => {
                Collision::from_bytes(bytes).map(|c| collision(name, c)).map_err(|e| e.to_string())
            }
            _ if is_script(path, bytes) => MaterialScript::parse(bytes)
                .map(|s| material(&*self.source, name, path, s, stores))
                .map_err(|e| e.to_string()),
            _ => return false,
        };
        match preview {
            Ok(preview) => self.previews.push(preview),
            Err(error) => self.problems.push(format!("{who}: {error}")),
        }
        true
    }
}

/// Whether a `.txt` is a material script (by its folder or its blocks).
fn is_script(path: &Path, bytes: &[u8]) -> bool {
    crate::resource::text_kind(path, bytes) == Some(ResourceKind::Material)
}

fn formats(stores: &Stores) -> CompressedImageFormats {
    stores.character.formats.as_ref().map_or(CompressedImageFormats::NONE, |f| f.0)
}

fn texture(name: String, dds: &Dds, stores: &mut Stores) -> OpenPreview {
    let (stored, full) = (dds.levels.len(), dds.full_chain_len());
    let (last_w, last_h) = dds.level_size(stored.saturating_sub(1));
    let chain = if stored < full {
        format!("the client builds the other {} mip levels", full - stored)
    } else {
        "the client uses the file's mip chain".into()
    };
    let facts = vec![
        dds.format_name(),
        format!("{} x {}", dds.width, dds.height),
        format!("mip levels: {stored} of {full} ({} x {} down to {last_w} x {last_h})", dds.width, dds.height),
        chain,
    ];
    let image = to_image(dds, formats(stores), ImageSamplerDescriptor::linear());
    let shown = Shown::Texture(stores.character.images.add(image), dds.width as f32 / dds.height as f32);
    OpenPreview { name, facts, findings: Vec::new(), shown: Some(shown) }
}

fn collision(name: String, collision: Collision) -> OpenPreview {
    let facts = vec![format!("{} vertices, {} faces", collision.positions.len(), collision.indices.len() / 3)];
    OpenPreview { name, facts, findings: Vec::new(), shown: Some(Shown::Collision(collision)) }
}

/// The script's first material, with its texture found by the client's
/// folder rules ([`resource::lookup`], as the plugin's loaders find it):
/// in the texture folder of the script's resource folder, or beside a
/// loose script.
fn material(
    source: &dyn FileSource,
    name: String,
    path: &Path,
    script: MaterialScript,
    stores: &mut Stores,
) -> OpenPreview {
    let formats = formats(stores);
    let read = |texture: &str| -> Result<Dds, String> {
        let found = resource::lookup(path, ResourceKind::Material, ResourceKind::Texture, texture).find(source);
        let bytes = source.read(&found.ok_or("not where the client looks for it")?).map_err(|e| e.to_string())?;
        Dds::from_bytes(&bytes).map_err(|e| e.to_string())
    };
    let name_of = |m: &crate::format::Material| m.diffuse_texture().and_then(|u| u.texture.clone());
    let textures = script.materials.iter().map(|m| name_of(m).map(|n| (n.clone(), read(&n)))).collect();
    let facts =
        script.materials.iter().map(|m| format!("material '{}': {} passes", m.name, m.passes().len())).collect();
    let mut findings: Vec<String> = script.warnings.iter().map(ToString::to_string).collect();
    let (images, standard) = (&mut stores.character.images, &mut stores.character.standard);
    let built = Io3dMaterial::build(script, textures, formats, |_, image, mut material| {
        material.base_color_texture = image.map(|image| images.add(image));
        standard.add(material)
    });
    findings.extend(built.missing_textures.iter().map(|(texture, why)| format!("texture '{texture}': {why}")));
    let shown = built.materials.first().map(|first| Shown::Material(first.clone()));
    if shown.is_none() {
        findings.push("no material block: the client draws no mesh with this script".into());
    }
    OpenPreview { name, facts, findings, shown }
}
