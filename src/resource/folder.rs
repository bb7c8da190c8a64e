//! Finding files in a resource folder as the client does: one folder a
//! kind, names matched without case.

use std::path::{Path, PathBuf};

use super::ResourceKind;

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

    /// The resource folder a file lies in: the nearest folder at or above
    /// `path` that holds a folder of some kind (`mesh`, `skeleton`, ...).
    pub fn around(path: &Path) -> Option<Self> {
        path.ancestors()
            .filter(|dir| dir.is_dir())
            .find(|dir| ResourceKind::ALL.iter().any(|kind| find_folder(dir, kind.folder()).is_some()))
            .map(Self::new)
    }

    /// The folder of a kind, in whatever case it is spelled on disk.
    pub fn folder(&self, kind: ResourceKind) -> Option<PathBuf> {
        find_folder(&self.root, kind.folder())
    }

    /// A file of a kind by name, matched without case.
    pub fn find(&self, kind: ResourceKind, name: &str) -> Option<PathBuf> {
        find_without_case(&self.folder(kind)?, name)
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

/// The entry of `dir` named `name` in any case that `wanted` accepts; the
/// exact spelling is tried first, so a large folder is listed only when it
/// misses.
fn entry_without_case(dir: &Path, name: &str, wanted: fn(&Path) -> bool) -> Option<PathBuf> {
    let exact = dir.join(name);
    if wanted(&exact) {
        return Some(exact);
    }
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e.path()))
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
}
