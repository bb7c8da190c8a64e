//! Finding files in a resource folder as the client does: one folder a
//! kind, names matched without case. Where a root is comes from
//! [`super::root`].

use std::path::{Path, PathBuf};

use super::ResourceKind;
use super::root::{in_kind_folder, kind_of_folder, resource_root};

/// Finds `name` under `dir` without regard to case, one path component at a
/// time (names may hold `/` or `\`). The exact spelling is tried first, so
/// a folder with thousands of files is listed only when it misses.
pub fn find_without_case(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut path = dir.to_path_buf();
    for part in name.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".") {
        path = entry_without_case(&path, part, Path::exists)?;
    }
    path.is_file().then_some(path)
}

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
    pub fn around(path: &Path) -> Option<Self> {
        if subfolders(path).any(|dir| dir.file_name().and_then(kind_of_folder).is_some()) {
            return Some(Self::new(path));
        }
        resource_root(path, None).map(Self::new)
    }

    /// Every resource folder below `dir`, and `dir` itself when it is one:
    /// the parent of each folder named as a kind's, sorted. A kind's folder
    /// holds files, not resource folders, so it is not searched; nor are
    /// links to folders, which can loop.
    pub fn all_under(dir: &Path) -> Vec<Self> {
        let mut roots = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for sub in subfolders(&dir) {
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

    /// The folder of a kind, in whatever case it is spelled on disk.
    pub fn folder(&self, kind: ResourceKind) -> Option<PathBuf> {
        find_folder(&self.root, kind.folder())
    }

    /// A file of a kind by name, matched without case.
    pub fn find(&self, kind: ResourceKind, name: &str) -> Option<PathBuf> {
        find_without_case(&self.root, &in_kind_folder(kind, name))
    }

    /// Every file of a kind, sorted by path.
    pub fn files(&self, kind: ResourceKind) -> Vec<PathBuf> {
        let Some(folder) = self.folder(kind) else { return Vec::new() };
        let mut files = Vec::new();
        let mut stack = vec![folder];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().filter_map(Result::ok) {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }
}

fn find_folder(dir: &Path, name: &str) -> Option<PathBuf> {
    entry_without_case(dir, name, Path::is_dir)
}

/// The folders right in `dir`, not following links.
fn subfolders(dir: &Path) -> impl Iterator<Item = PathBuf> {
    let entries = std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok);
    entries.filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path())
}

/// The entry of `dir` named `name` in any case that `wanted` accepts; the
/// exact spelling is tried first, so a large folder is listed only when it
/// misses.
fn entry_without_case(dir: &Path, name: &str, wanted: fn(&Path) -> bool) -> Option<PathBuf> {
    let exact = dir.join(name);
    if wanted(&exact) {
        return Some(exact);
    }
    let listed = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    std::fs::read_dir(listed)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), dir.join(e.file_name())))
        .find(|(n, path)| n.to_str().is_some_and(|n| n.eq_ignore_ascii_case(name)) && wanted(path))
        .map(|(_, path)| path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_without_case_in_any_folder_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("Resource");
        std::fs::create_dir_all(root.join("Mesh/Weapons")).unwrap();
        std::fs::create_dir_all(root.join("model/animodel")).unwrap();
        std::fs::write(root.join("Mesh/Weapons/Sword.MSH"), b"x").unwrap();
        let config = root.join("model/animodel/hero.txt");
        std::fs::write(&config, b"").unwrap();
        let folder = ResourceFolder::around(&config).unwrap();
        assert_eq!(folder.root, root);
        let found = folder.find(ResourceKind::Mesh, "weapons\\sword.msh").unwrap();
        assert_eq!(found, root.join("Mesh/Weapons/Sword.MSH"));
        assert_eq!(folder.find(ResourceKind::Skeleton, "sword.msh"), None);
        assert_eq!(folder.files(ResourceKind::Mesh), [found]);
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
        let all: Vec<PathBuf> = ResourceFolder::all_under(&packs).into_iter().map(|f| f.root).collect();
        assert_eq!(all, roots);
        for root in &roots {
            let config = root.join("Model/AniModel/hero.txt");
            let around = |path: &Path| ResourceFolder::around(path).map(|f| f.root);
            for inside in
                [root.clone(), root.join("Mesh/weapons/sword.msh"), root.join("Model/AniModel"), config.clone()]
            {
                assert_eq!(around(&inside).as_ref(), Some(root), "{}", inside.display());
            }
            assert_eq!(ResourceFolder::all_under(root), [ResourceFolder::new(root)]);
            assert_eq!(super::super::Character::load(&config).unwrap().folder, Some(ResourceFolder::new(root)));
        }
        assert_eq!(ResourceFolder::around(&packs.join("notes")), None);
    }
}
