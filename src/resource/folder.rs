//! Finding files in a resource folder as the client does: one folder a
//! kind, names matched without case. Where a root is comes from
//! [`super::root`].

use std::path::{Path, PathBuf};

use super::ResourceKind;
use super::root::{in_kind_folder, kind_of_folder, resource_root};
use super::source::{EntryKind, FileSource};

/// A resource folder: the root holding one folder per kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceFolder {
    /// The root (usually named `resource`).
    pub root: PathBuf,
}

impl ResourceFolder {
    /// A resource folder at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The resource folder `path` is or lies in: `path` itself when it is a
    /// folder holding a kind's folder (`mesh`, `Skeleton`, ...), else the
    /// root above the nearest of its folders named as a kind's
    /// ([`resource_root`]).
    pub fn around(source: &dyn FileSource, path: &Path) -> Option<Self> {
        if subfolders(source, path).any(|dir| dir.file_name().and_then(kind_of_folder).is_some()) {
            return Some(Self::new(path));
        }
        resource_root(path, None).map(Self::new)
    }

    /// Every resource folder below `dir`, and `dir` itself when it is one:
    /// the parent of each folder named as a kind's, sorted. A kind's folder
    /// holds files, not resource folders, so it is not searched; nor are
    /// links to folders, which can loop.
    pub fn all_under(source: &dyn FileSource, dir: &Path) -> Vec<Self> {
        let mut roots = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for sub in subfolders(source, &dir) {
                if sub.file_name().and_then(kind_of_folder).is_none() {
                    stack.push(sub);
                } else if roots.last() != Some(&dir) {
                    roots.push(dir.clone());
                }
            }
        }
        roots.sort();
        roots.into_iter().map(Self::new).collect()
    }

    /// The folder of a kind, in whatever case it is spelled.
    pub fn folder(&self, source: &dyn FileSource, kind: ResourceKind) -> Option<PathBuf> {
        source.entry_without_case(&self.root, kind.folder(), Some(EntryKind::Folder))
    }

    /// A file of a kind by name, matched without case.
    pub fn find(&self, source: &dyn FileSource, kind: ResourceKind, name: &str) -> Option<PathBuf> {
        source.find_without_case(&self.root, &in_kind_folder(kind, name))
    }

    /// Every file of a kind, sorted by path.
    pub fn files(&self, source: &dyn FileSource, kind: ResourceKind) -> Vec<PathBuf> {
        let Some(folder) = self.folder(source, kind) else { return Vec::new() };
        let mut files = Vec::new();
        let mut stack = vec![folder];
        while let Some(dir) = stack.pop() {
            for (path, kind) in source.list(&dir) {
                match kind {
                    EntryKind::Folder => stack.push(path),
                    EntryKind::File => files.push(path),
                }
            }
        }
        files.sort();
        files
    }
}

/// The folders right in `dir`, not following links.
fn subfolders(source: &dyn FileSource, dir: &Path) -> impl Iterator<Item = PathBuf> {
    source.list(dir).into_iter().filter(|(_, kind)| *kind == EntryKind::Folder).map(|(path, _)| path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Disk;

    #[test]
    fn names_match_without_case_in_any_folder_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("Resource");
        std::fs::create_dir_all(root.join("Mesh/Weapons")).unwrap();
        std::fs::create_dir_all(root.join("model/animodel")).unwrap();
        std::fs::write(root.join("Mesh/Weapons/Sword.MSH"), b"x").unwrap();
        let config = root.join("model/animodel/hero.txt");
        std::fs::write(&config, b"").unwrap();
        let folder = ResourceFolder::around(&Disk, &config).unwrap();
        assert_eq!(folder.root, root);
        let found = folder.find(&Disk, ResourceKind::Mesh, "weapons\\sword.msh").unwrap();
        assert_eq!(found, root.join("Mesh/Weapons/Sword.MSH"));
        assert_eq!(folder.find(&Disk, ResourceKind::Skeleton, "sword.msh"), None);
        assert_eq!(folder.files(&Disk, ResourceKind::Mesh), [found]);
    }

    /// Every way to find a root gives the same one: from a folder of packs
    /// (each pack's root, however deep), from the root itself, from a
    /// folder or a file inside it, and for a config the character's.
    #[test]
    fn every_way_to_a_root_agrees() {
        let dir = tempfile::tempdir().unwrap();
        let packs = dir.path().join("packs");
        let roots = ["a/resource", "b/Resource", "c/more/res"].map(|r| packs.join(r));
        for root in &roots {
            for sub in ["Mesh/weapons", "material", "Model/AniModel", "texture/model"] {
                std::fs::create_dir_all(root.join(sub)).unwrap();
            }
            std::fs::write(root.join("Mesh/weapons/sword.msh"), b"").unwrap();
            std::fs::write(root.join("Model/AniModel/hero.txt"), b"#MODEL_CFG\r\n#MODEL_END\r\n").unwrap();
        }
        std::fs::create_dir_all(packs.join("notes/drafts")).unwrap();
        let all: Vec<PathBuf> = ResourceFolder::all_under(&Disk, &packs).into_iter().map(|f| f.root).collect();
        assert_eq!(all, roots);
        for root in &roots {
            let config = root.join("Model/AniModel/hero.txt");
            let around = |path: &Path| ResourceFolder::around(&Disk, path).map(|f| f.root);
            for inside in
                [root.clone(), root.join("Mesh/weapons/sword.msh"), root.join("Model/AniModel"), config.clone()]
            {
                assert_eq!(around(&inside).as_ref(), Some(root), "{}", inside.display());
            }
            assert_eq!(ResourceFolder::all_under(&Disk, root), [ResourceFolder::new(root)]);
            assert_eq!(super::super::Character::load(&Disk, &config).unwrap().folder, Some(ResourceFolder::new(root)));
        }
        assert_eq!(ResourceFolder::around(&Disk, &packs.join("notes")), None);
    }
}
