//! Reading any valid glTF 2.0: `.glb` or `.gltf`, buffers in the binary
//! chunk, in data URIs or in files beside it.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use ::gltf::json::validation::Validate;
use ::gltf::{Document, Gltf};
use base64::Engine;

use super::GltfError;
use crate::resource::{FileIndex, FileSource};

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
    /// Where the files it names are looked for.
    files: Beside,
}

/// Where a `.gltf`'s own files (buffers, images) are read from: by the
/// names it gives them, relative to its folder.
#[derive(Clone)]
enum Beside {
    /// Nowhere: it was read from bytes alone.
    Nothing,
    /// Its folder on disk.
    Folder(PathBuf),
    /// Its folder among the files a page was handed, read when first
    /// wanted.
    Handed(FileIndex, PathBuf),
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
        Self::parse(bytes, base.map_or(Beside::Nothing, |base| Beside::Folder(base.to_path_buf())))
    }

    /// Parses a `.gltf` handed to a page with the files beside it: buffer
    /// files are read from `index`, in `folder`. One not read yet is an
    /// error while the index reads it ([`FileSource::is_waiting`]): the
    /// reader tries again once it arrives.
    pub fn from_index(bytes: &[u8], index: FileIndex, folder: &Path) -> Result<Self, GltfError> {
        Self::parse(bytes, Beside::Handed(index, folder.to_path_buf()))
    }

    fn parse(bytes: &[u8], files: Beside) -> Result<Self, GltfError> {
        let Gltf { document, mut blob } =
            Gltf::from_slice_without_validation(bytes).map_err(|e| GltfError::Invalid(e.to_string()))?;
        validate(&document)?;
        let buffers = document
            .buffers()
            .map(|buffer| {
                let (index, declared) = (buffer.index(), buffer.length());
                match buffer.source() {
                    // Only the first buffer may be the binary chunk: it is
                    // taken, not copied.
                    ::gltf::buffer::Source::Bin => {
                        let chunk = blob.take().filter(|_| index == 0).ok_or_else(|| {
                            GltfError::Invalid(format!("buffer {index}: refers to a binary chunk the file lacks"))
                        })?;
                        // The chunk is padded to 4 bytes.
                        check_length(index, declared, chunk.len(), 3)?;
                        Ok(chunk)
                    }
                    ::gltf::buffer::Source::Uri(uri) => read_uri(uri, &files, Some(declared))
                        .map_err(|why| GltfError::Read(format!("buffer {index} ('{}'): {why}", short(uri)))),
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { document, buffers, files })
    }

    /// A buffer's bytes, for the `gltf` crate's readers.
    pub fn buffer(&self, buffer: ::gltf::Buffer<'_>) -> Option<&[u8]> {
        self.buffers.get(buffer.index()).map(Vec::as_slice)
    }

    /// An image's encoded bytes (PNG or JPEG, as glTF holds them): in a
    /// buffer view, a data URI or a file beside the glTF.
    pub fn image(&self, image: &::gltf::Image<'_>) -> Result<Vec<u8>, GltfError> {
        let what = || format!("image {} ('{}')", image.index(), image.name().unwrap_or_default());
        match image.source() {
            ::gltf::image::Source::View { view, .. } => {
                let buffer = self.buffer(view.buffer()).unwrap_or_default();
                let end = view.offset().saturating_add(view.length());
                let bytes = buffer.get(view.offset()..end);
                bytes
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| GltfError::Invalid(format!("{}: past its buffer's end", what())))
            }
            ::gltf::image::Source::Uri { uri, .. } => {
                read_uri(uri, &self.files, None).map_err(|why| GltfError::Read(format!("{}: {why}", what())))
            }
        }
    }

    /// The animations' names (`animation N` for unnamed ones).
    pub fn animation_names(&self) -> Vec<String> {
        self.document.animations().map(|a| animation_name(&a)).collect()
    }

    /// The animations' names to show, told apart: a name other
    /// animations share gets its index (`mixamo.com #1`), as
    /// [`ImportOptions::animation`](super::ImportOptions::animation) asks
    /// for it.
    pub fn animation_labels(&self) -> Vec<String> {
        let names = self.animation_names();
        let shared = |name: &String| names.iter().filter(|n| *n == name).count() > 1;
        names
            .iter()
            .enumerate()
            .map(|(i, name)| if shared(name) { format!("{name} #{i}") } else { name.clone() })
            .collect()
    }
}

/// Whether a file is glTF: a binary one by its magic, or either kind by its
/// extension (`.glb`, `.gltf`), so that a broken one is read as glTF and
/// its error says so.
pub fn is_gltf(path: &Path, bytes: &[u8]) -> bool {
    let extension = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"));
    crate::format::sniff(bytes) == Some(crate::format::Magic::Glb) || extension
}

/// The files beside it that a `.gltf` names for its buffers and images,
/// as paths relative to its folder (data URIs and names out of the folder
/// left out): the files that come with it, which are not opened on their
/// own. Nothing for a file that is not a `.gltf`'s JSON.
pub fn files_named(bytes: &[u8]) -> Vec<PathBuf> {
    let Ok(Gltf { document, .. }) = Gltf::from_slice_without_validation(bytes) else { return Vec::new() };
    let buffers = document.buffers().filter_map(|buffer| match buffer.source() {
        ::gltf::buffer::Source::Uri(uri) => Some(uri),
        ::gltf::buffer::Source::Bin => None,
    });
    let images = document.images().filter_map(|image| match image.source() {
        ::gltf::image::Source::Uri { uri, .. } => Some(uri),
        ::gltf::image::Source::View { .. } => None,
    });
    let file = |uri: &str| match named(uri) {
        Ok(Named::File(path)) => Some(path),
        _ => None,
    };
    buffers.chain(images).filter_map(file).collect()
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

/// A buffer of `declared` bytes holding `found`: refused unless they agree
/// (within `padding` bytes more).
fn check_length(index: usize, declared: usize, found: usize, padding: usize) -> Result<(), GltfError> {
    if found < declared || found > declared.saturating_add(padding) {
        return Err(GltfError::Invalid(format!("buffer {index}: {declared} bytes declared, {found} found")));
    }
    Ok(())
}

/// The most bytes an image file is read for: a texture the game loads is
/// far smaller.
const MAX_IMAGE_BYTES: usize = 256 << 20;

/// A URI's bytes, `declared` of them where a buffer declares its length
/// (an image does not): a base64 data URI, or a file beside the glTF
/// ([`read_inside`] on disk, [`read_handed`] in a page).
fn read_uri(uri: &str, files: &Beside, declared: Option<usize>) -> Result<Vec<u8>, String> {
    let relative = match named(uri)? {
        Named::Data(data) => return read_data(data, declared),
        Named::File(relative) => relative,
    };
    match files {
        Beside::Nothing => Err("a file name, but the glTF was not read from a folder".into()),
        Beside::Folder(base) => read_inside(base, &relative, declared),
        Beside::Handed(index, folder) => read_handed(index, &folder.join(relative), declared),
    }
}

/// What a glTF's URI names.
enum Named<'a> {
    /// Bytes in the URI itself: what follows `data:`.
    Data(&'a str),
    /// A file beside the glTF, relative to its folder and never out of it.
    File(PathBuf),
}

/// What `uri` names: a data URI, or a file named relative to the glTF's
/// folder (percent-decoded; no root, no `..`). Any other URI is refused.
fn named(uri: &str) -> Result<Named<'_>, String> {
    if let Some(data) = uri.strip_prefix("data:") {
        return Ok(Named::Data(data));
    }
    if uri.contains("://") {
        return Err("only data URIs and relative file names are read".into());
    }
    let name = percent_encoding::percent_decode_str(uri).decode_utf8_lossy();
    let relative = Path::new(name.as_ref());
    if !relative.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err("a buffer file must be named relative to the glTF's folder, without '..'".into());
    }
    Ok(Named::File(relative.to_path_buf()))
}

/// A base64 data URI's bytes (`data` follows `data:`), `declared` of them
/// where a buffer declares its length.
fn read_data(data: &str, declared: Option<usize>) -> Result<Vec<u8>, String> {
    let (_, payload) = data.split_once(";base64,").ok_or("a data URI that is not base64")?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(payload).map_err(|e| e.to_string())?;
    if let Some(declared) = declared.filter(|&d| d != bytes.len()) {
        return Err(format!("{declared} bytes declared, the data URI holds {}", bytes.len()));
    }
    Ok(bytes)
}

/// The file at `path` among those a page was handed, of `declared` bytes
/// (or at most [`MAX_IMAGE_BYTES`]).
fn read_handed(index: &FileIndex, path: &Path, declared: Option<usize>) -> Result<Vec<u8>, String> {
    let bytes = index.read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    match declared {
        Some(declared) if bytes.len() != declared => {
            Err(format!("{declared} bytes declared, {} holds {}", path.display(), bytes.len()))
        }
        None if bytes.len() > MAX_IMAGE_BYTES => {
            Err(format!("{} holds {} bytes, more than an image is read for", path.display(), bytes.len()))
        }
        _ => Ok(bytes),
    }
}

/// The file `relative` ([`named`]) inside the folder `base`,
/// which must be a regular file of `declared` bytes (or at most
/// [`MAX_IMAGE_BYTES`]): a hostile `.gltf` cannot go through a link out of
/// its folder or hang on a device or a FIFO, and no more than it declares
/// is read.
fn read_inside(base: &Path, relative: &Path, declared: Option<usize>) -> Result<Vec<u8>, String> {
    let folder = base.canonicalize().map_err(|e| format!("{}: {e}", base.display()))?;
    let path: PathBuf = folder.join(relative);
    let resolved = path.canonicalize().map_err(|e| format!("{}: {e}", path.display()))?;
    if !resolved.starts_with(&folder) {
        return Err(format!("{} leads outside the glTF's folder", path.display()));
    }
    let metadata = std::fs::metadata(&resolved).map_err(|e| format!("{}: {e}", path.display()))?;
    if !metadata.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    let found = metadata.len();
    let declared = match declared {
        Some(declared) if found != declared as u64 => {
            return Err(format!("{declared} bytes declared, {} holds {found}", path.display()));
        }
        Some(declared) => declared,
        None if found > MAX_IMAGE_BYTES as u64 => {
            return Err(format!("{} holds {found} bytes, more than an image is read for", path.display()));
        }
        None => found as usize,
    };
    let mut bytes = Vec::with_capacity(declared);
    let file = std::fs::File::open(&resolved).map_err(|e| format!("{}: {e}", path.display()))?;
    file.take(declared as u64).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() != declared {
        return Err(format!("{declared} bytes declared, {} gave {}", path.display(), bytes.len()));
    }
    Ok(bytes)
}

/// A URI for messages: data URIs are long.
fn short(uri: &str) -> String {
    if uri.len() > 60 { format!("{}...", &uri[..uri.floor_char_boundary(60)]) } else { uri.to_owned() }
}
