//! The one rule for where a resource folder's root is and where a file that
//! another names is looked for. It reads folder names only, never the disk,
//! so that the command line, the lint, the viewer and the plugin's asset
//! paths (which may be on no disk) all find the same root.
//!
//! The client has one root with a folder per kind (`mesh`, `material`,
//! `model/animodel`, ...). A tool given any path finds that root by the
//! mark it leaves: a folder named as a kind's, in any case, whose parent is
//! the root.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::ResourceKind;
use super::source::FileSource;

/// The kind whose folder `name` is (`mesh`, `Model`, ... in any case).
pub fn kind_of_folder(name: &OsStr) -> Option<ResourceKind> {
    let name = name.to_str()?;
    ResourceKind::ALL.into_iter().find(|kind| name.eq_ignore_ascii_case(kind.folder()))
}

/// The resource root `path` lies in: the parent of the nearest folder at or
/// above `path` named as `kind`'s folder, or as any kind's for `None`.
/// `None` for a path in no kind's folder (loose files, or a root itself:
/// see [`super::ResourceFolder::around`]). Knowing the kind makes the rule
/// exact where a kind's folder holds folders named as other kinds
/// (`texture/model/`).
pub fn resource_root(path: &Path, kind: Option<ResourceKind>) -> Option<&Path> {
    let is_mark = |dir: &&Path| {
        let found = dir.file_name().and_then(kind_of_folder);
        found.is_some() && (kind.is_none() || found == kind)
    };
    path.ancestors().find(is_mark).and_then(Path::parent)
}

/// Where the client looks for a file of `kind` named `name` (as a config or
/// script writes it; `\` separates folders, as on Windows) that the file
/// of kind `own` at `from` names: in the root's folder for `kind` when
/// `from` lies in a resource folder, else beside `from`.
pub fn lookup<'a>(from: &'a Path, own: ResourceKind, kind: ResourceKind, name: &str) -> Lookup<'a> {
    match resource_root(from, Some(own)) {
        Some(root) => Lookup { base: root, relative: in_kind_folder(kind, name) },
        None => Lookup { base: from.parent().unwrap_or(Path::new("")), relative: name.to_owned() },
    }
}

/// `name` in `kind`'s folder, relative to the root.
pub(super) fn in_kind_folder(kind: ResourceKind, name: &str) -> String {
    format!("{}/{name}", kind.folder())
}

/// Where a named file is looked for: a folder that exists as spelled (the
/// root, or the naming file's folder) and the name below it, which the
/// client matches without case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup<'a> {
    base: &'a Path,
    relative: String,
}

impl Lookup<'_> {
    /// The path as written (the kind's folder in lower case, `/` between
    /// folders), for file systems that find names in any case (Windows, a
    /// pack file, the plugin's game files source) or that are spelled so.
    pub fn path(&self) -> PathBuf {
        self.base.join(self.relative.replace('\\', "/"))
    }

    /// The file in `source`, matched without case below the base folder.
    pub fn find(&self, source: &dyn FileSource) -> Option<PathBuf> {
        source.find_without_case(self.base, &self.relative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ResourceKind::{Material, Mesh, Model, Skeleton, Texture};

    #[test]
    fn the_root_is_above_the_nearest_kind_folder() {
        let root = |path: &str, kind| resource_root(Path::new(path), kind).map(Path::to_path_buf);
        assert_eq!(root("game/Resource/Model/AniModel/hero.txt", Some(Model)), Some("game/Resource".into()));
        assert_eq!(root("game/Resource/Model/AniModel/hero.txt", None), Some("game/Resource".into()));
        assert_eq!(root("packs/a/resource/MESH", None), Some("packs/a/resource".into()));
        assert_eq!(root("res/texture/model/x.dds", Some(Texture)), Some("res".into()));
        assert_eq!(root("res/texture/model/x.dds", None), Some("res/texture".into()));
        assert_eq!(root("chars/hero.txt", Some(Model)), None);
        assert_eq!(root("chars/model.txt", None), None);
    }

    #[test]
    fn named_files_are_in_their_kind_folder_or_beside() {
        let config = Path::new("game/resource/Model/animodel/hero.txt");
        let mesh = lookup(config, Model, Mesh, "weapons\\sword.msh");
        assert_eq!(mesh.path(), Path::new("game/resource/mesh/weapons/sword.msh"));
        let loose = lookup(Path::new("chars/hero.txt"), Model, Skeleton, "hero.skl");
        assert_eq!(loose.path(), Path::new("chars/hero.skl"));
        let texture = lookup(Path::new("resource/material/body.txt"), Material, Texture, "Body.DDS");
        assert_eq!(texture.path(), Path::new("resource/texture/Body.DDS"));
    }
}
