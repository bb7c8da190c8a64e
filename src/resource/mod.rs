//! Resource folders as the client reads them, and a model config resolved
//! into a whole character.
//!
//! The game keeps one folder per kind of file (`resource/{animation,
//! material, mesh, model/animodel, model/staticmodel, skeleton, texture}`)
//! and reads from pack files or Windows disks, so names match without case.
//! A config's skeleton, meshes, material scripts, textures and animations
//! are each looked up in their kind's folder, with no fallbacks. A config
//! outside any resource folder (loose files, such as the bundled samples)
//! finds them beside itself instead. [`lookup`] and [`resource_root`] are the one rule for where a
//! root is and where a named file is looked for; the plugin's asset paths
//! use it too. They run over a [`FileSource`]: the [`Disk`], or a
//! [`FileIndex`] of the files a browser page was handed.

use std::path::{Path, PathBuf};

use crate::format::EventSidecar;
use crate::format::ant::sidecar_name;

mod character;
mod folder;
mod root;
mod source;

pub use character::{Character, CharacterError, CharacterMesh, Link, Linked, MeshFiles, texture_names};
pub use folder::ResourceFolder;
pub use root::{Lookup, kind_of_folder, lookup, resource_root};
pub use source::{Disk, EntryKind, FileIndex, FileSource};

/// The usual name of a resource folder's root (the client's own).
pub const ROOT: &str = "resource";

/// The folders under `model/` for the configs of characters (skinned, on
/// a skeleton) and of static models.
pub const MODEL_FOLDERS: [&str; 2] = ["animodel", "staticmodel"];

/// The kinds of file a resource folder holds, each in its own folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// `.ani` files.
    Animation,
    /// Material scripts, `<mesh name>.txt`.
    Material,
    /// `.msh` and `.cms` files.
    Mesh,
    /// Model configs (under `model/animodel` and `model/staticmodel`).
    Model,
    /// `.skl` files.
    Skeleton,
    /// Textures (`.dds` and the other formats Direct3D 9 reads).
    Texture,
}

impl ResourceKind {
    /// Every kind.
    pub const ALL: [Self; 6] =
        [Self::Animation, Self::Material, Self::Mesh, Self::Model, Self::Skeleton, Self::Texture];

    /// The kind's folder under the resource root.
    pub fn folder(self) -> &'static str {
        match self {
            Self::Animation => "animation",
            Self::Material => "material",
            Self::Mesh => "mesh",
            Self::Model => "model",
            Self::Skeleton => "skeleton",
            Self::Texture => "texture",
        }
    }

    /// Where a file of this kind named `name` goes in a resource folder
    /// laid out as the client reads one: `resource/<folder>/<name>`.
    pub fn path(self, name: &str) -> PathBuf {
        [ROOT, self.folder(), name].iter().collect()
    }
}

/// Where a model config named `name` goes: under `model/animodel` for a
/// character (skinned), `model/staticmodel` otherwise.
pub fn config_path(skinned: bool, name: &str) -> PathBuf {
    ResourceKind::Model.path(MODEL_FOLDERS[usize::from(!skinned)]).join(name)
}

/// What a `.txt` file is: a model config or a material script, by the
/// folder it is in (`model` or `material`, any case) or else by its text (a
/// config's lines start with `#` sections, a script's with `material`).
/// `None` for text that is neither.
pub fn text_kind(path: &Path, bytes: &[u8]) -> Option<ResourceKind> {
    // The nearest `material` or `model` folder above decides.
    let folder = path.parent().into_iter().flat_map(Path::ancestors).find_map(|dir| {
        kind_of_folder(dir.file_name()?).filter(|k| matches!(k, ResourceKind::Material | ResourceKind::Model))
    });
    if folder.is_some() {
        return folder;
    }
    let text = crate::format::string::decode_text(bytes);
    let mut words =
        text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with(';'));
    words.find_map(|line| match line.split_whitespace().next() {
        Some(word) if word.starts_with('#') => Some(ResourceKind::Model),
        Some("material") => Some(ResourceKind::Material),
        _ => None,
    })
}

/// A file name as the client compares names: without case, and without
/// `extension` (such as `".msh"`, in any case) when it ends with it. One
/// rule for the mesh names of events and configs and the animation names
/// of configs.
pub fn name_key(name: &str, extension: &str) -> String {
    strip_extension(name, extension).to_ascii_lowercase()
}

/// The `.ant` sidecar of the `.ani` at `ani`, found as the client finds it
/// (its name up to the first dot, in the same folder, whatever the case),
/// and read: its events play in the game instead of the file's.
pub fn sidecar(source: &dyn FileSource, ani: &Path) -> Option<(PathBuf, EventSidecar)> {
    let name = sidecar_name(ani.file_name()?.to_str()?)?;
    let folder = ani.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let ant = source.find_without_case(folder, &name)?;
    let bytes = source.read(&ant).ok()?;
    Some((ant, EventSidecar::read(&bytes)))
}

/// `name` without `extension` (such as `".msh"`) where it ends with it in
/// any case, as written otherwise.
pub fn strip_extension<'a>(name: &'a str, extension: &str) -> &'a str {
    let cut = name.len().checked_sub(extension.len()).filter(|&at| name.is_char_boundary(at));
    match cut {
        Some(at) if name[at..].eq_ignore_ascii_case(extension) => &name[..at],
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout a model import writes ([`ResourceKind::path`],
    /// [`config_path`]) is the one the lookup reads: each file in its
    /// kind's folder under one root, which a config there resolves into.
    #[test]
    fn the_layout_written_is_the_layout_read() {
        let config = config_path(true, "hero.txt");
        assert_eq!(text_kind(&config, b""), Some(ResourceKind::Model));
        assert_eq!(text_kind(&config_path(false, "stage.txt"), b""), Some(ResourceKind::Model));
        let root = resource_root(&config, Some(ResourceKind::Model)).unwrap();
        for kind in ResourceKind::ALL {
            let path = kind.path("file.bin");
            assert_eq!(path.parent().and_then(Path::file_name).and_then(kind_of_folder), Some(kind));
            assert_eq!(resource_root(&path, Some(kind)), Some(root), "{}", path.display());
            assert_eq!(lookup(&config, ResourceKind::Model, kind, "file.bin").path(), path, "{kind:?}");
        }
    }

    #[test]
    fn text_files_are_told_apart_by_folder_then_text() {
        let script = b"// body\r\nmaterial Body\r\n{\r\n}\r\n";
        assert_eq!(text_kind(Path::new("a/b.txt"), script), Some(ResourceKind::Material));
        assert_eq!(text_kind(Path::new("a/b.txt"), b"; x\n#MODEL_CFG\n"), Some(ResourceKind::Model));
        assert_eq!(text_kind(Path::new("res/Material/b.txt"), b""), Some(ResourceKind::Material));
        assert_eq!(text_kind(Path::new("res/model/animodel/b.txt"), b""), Some(ResourceKind::Model));
        assert_eq!(text_kind(Path::new("material/res/model/b.txt"), b""), Some(ResourceKind::Model));
        assert_eq!(text_kind(Path::new("readme.txt"), b"Hello"), None);
    }

    #[test]
    fn names_compare_without_case_or_extension() {
        assert_eq!(name_key("Body_01.MSH", ".msh"), "body_01");
        assert_eq!(name_key("walk", ".ani"), "walk");
        assert_eq!(name_key("walk.ani.bak", ".ani"), "walk.ani.bak");
        assert_eq!(strip_extension("Sword.Msh", ".msh"), "Sword");
        assert_eq!(strip_extension("한.msh", ".msh"), "한");
        assert_eq!(strip_extension("sh", ".msh"), "sh");
    }
}
