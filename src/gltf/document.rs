//! Reading any valid glTF 2.0: `.glb` or `.gltf`, buffers in the binary
//! chunk, in data URIs or in files beside it.

use std::path::{Path, PathBuf};

use ::gltf::json::validation::Validate;
use ::gltf::{Document, Gltf};
use base64::Engine;

use super::GltfError;

/// Extensions a file may require without changing what an animation
/// import reads (they concern materials, lights, textures or mesh data).
const HARMLESS_EXTENSIONS: [&str; 5] =
    ["KHR_materials_", "KHR_texture_", "KHR_lights_punctual", "KHR_draco_mesh_compression", "KHR_mesh_quantization"];

/// A parsed glTF with its buffers' bytes.
pub struct GltfDocument {
    /// The document.
    pub document: Document,
    /// Each buffer's bytes, by index.
    pub buffers: Vec<Vec<u8>>,
}

impl GltfDocument {
    /// Reads a `.glb` or `.gltf` file; buffers in other files are looked
    /// for beside it.
    pub fn open(path: &Path) -> Result<Self, GltfError> {
        let bytes = std::fs::read(path).map_err(|e| GltfError::Read(format!("{}: {e}", path.display())))?;
        Self::from_slice(&bytes, path.parent())
    }

    /// Parses a `.glb` or `.gltf` in memory; `base` is where relative buffer
    /// URIs are looked for (none: such buffers are an error).
    pub fn from_slice(bytes: &[u8], base: Option<&Path>) -> Result<Self, GltfError> {
        let Gltf { document, blob } =
            Gltf::from_slice_without_validation(bytes).map_err(|e| GltfError::Invalid(e.to_string()))?;
        validate(&document)?;
        let buffers = document
            .buffers()
            .map(|buffer| {
                let bytes = match buffer.source() {
                    ::gltf::buffer::Source::Bin => blob.clone().ok_or_else(|| {
                        GltfError::Invalid(format!(
                            "buffer {}: refers to a binary chunk the file lacks",
                            buffer.index()
                        ))
                    })?,
                    ::gltf::buffer::Source::Uri(uri) => read_uri(uri, base).map_err(|why| {
                        GltfError::Read(format!("buffer {} ('{}'): {why}", buffer.index(), short(uri)))
                    })?,
                };
                if bytes.len() < buffer.length() {
                    return Err(GltfError::Invalid(format!(
                        "buffer {}: {} bytes declared, {} found",
                        buffer.index(),
                        buffer.length(),
                        bytes.len()
                    )));
                }
                Ok(bytes)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { document, buffers })
    }

    /// A buffer's bytes, for the `gltf` crate's readers.
    pub fn buffer(&self, buffer: ::gltf::Buffer<'_>) -> Option<&[u8]> {
        self.buffers.get(buffer.index()).map(Vec::as_slice)
    }

    /// The animations' names (`animation N` for unnamed ones).
    pub fn animation_names(&self) -> Vec<String> {
        self.document.animations().map(|a| animation_name(&a)).collect()
    }
}

/// Whether a file is glTF: a binary one by its magic, or either kind by its
/// extension (`.glb`, `.gltf`), so that a broken one is read as glTF and
/// its error says so.
pub fn is_gltf(path: &Path, bytes: &[u8]) -> bool {
    let extension = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"));
    bytes.starts_with(b"glTF") || extension
}

/// An animation's name, or `animation N`.
pub fn animation_name(animation: &::gltf::Animation<'_>) -> String {
    animation.name().map_or_else(|| format!("animation {}", animation.index()), str::to_owned)
}

/// The glTF schema checks, but with required extensions judged here: a
/// file that needs an extension this import does not read is refused by
/// name, one whose extensions only concern drawing is read.
fn validate(document: &Document) -> Result<(), GltfError> {
    let root = document.as_json();
    let mut problems = Vec::new();
    root.validate(root, ::gltf::json::Path::new, &mut |path, error| {
        let path = path().to_string();
        if !path.starts_with("extensionsRequired") {
            problems.push(format!("{path}: {error}"));
        }
    });
    if !problems.is_empty() {
        return Err(GltfError::Invalid(problems.join("; ")));
    }
    let unsupported: Vec<&str> = (root.extensions_required.iter())
        .map(String::as_str)
        .filter(|name| !HARMLESS_EXTENSIONS.iter().any(|known| name.starts_with(known)))
        .collect();
    if !unsupported.is_empty() {
        return Err(GltfError::Unsupported(format!("required extension {}", unsupported.join(", "))));
    }
    Ok(())
}

/// A buffer URI's bytes: a base64 data URI, or a file relative to `base`.
fn read_uri(uri: &str, base: Option<&Path>) -> Result<Vec<u8>, String> {
    if let Some(data) = uri.strip_prefix("data:") {
        let (_, payload) = data.split_once(";base64,").ok_or("a data URI that is not base64")?;
        return base64::engine::general_purpose::STANDARD.decode(payload).map_err(|e| e.to_string());
    }
    if uri.contains("://") {
        return Err("only data URIs and relative file names are read".into());
    }
    let base = base.ok_or("a file name, but the glTF was not read from a folder")?;
    let path: PathBuf = base.join(&*percent_encoding::percent_decode_str(uri).decode_utf8_lossy());
    std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// A URI for messages: data URIs are long.
fn short(uri: &str) -> String {
    if uri.len() > 60 { format!("{}...", &uri[..uri.floor_char_boundary(60)]) } else { uri.to_owned() }
}
