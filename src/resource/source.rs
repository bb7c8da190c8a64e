//! Where files come from: a folder on disk, or the files a browser page
//! was handed (dropped, picked or fetched). The client's lookup rules
//! ([`super::root`], [`super::folder`], [`super::Character`]) run over a
//! [`FileSource`], so the desktop and the web find the same files by the
//! same code; only reading and listing differ.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// What a path names in a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A file.
    File,
    /// A folder.
    Folder,
}

/// A tree of files: what is at a path, what a folder holds, a file's
/// bytes. Paths are as the source spells them; matching names without
/// case is the lookup's work ([`FileSource::find_without_case`]), done
/// once for every source.
pub trait FileSource: Send + Sync {
    /// What `path` is, if anything.
    fn entry(&self, path: &Path) -> Option<EntryKind>;

    /// The entries right in the folder `dir`: their paths (`dir` joined
    /// with each name) and kinds. Nothing for a path that is no folder.
    fn list(&self, dir: &Path) -> Vec<(PathBuf, EntryKind)>;

    /// The bytes of the file at `path`. A source that reads files only
    /// when asked (a browser's) answers [`io::ErrorKind::WouldBlock`] for
    /// a file it has not read yet, and reads it for a later call.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// Whether a file was read before its bytes arrived, and they have not
    /// arrived (nor failed) since: whoever read it then reads again later.
    /// Never, for a source that reads at once.
    fn is_waiting(&self) -> bool {
        false
    }

    /// Finds `name` under `dir` as the client does, without regard to
    /// case, one path component at a time (names may hold `/` or `\`). The
    /// exact spelling is tried first, so a folder with thousands of files
    /// is listed only when it misses.
    fn find_without_case(&self, dir: &Path, name: &str) -> Option<PathBuf> {
        let mut path = dir.to_path_buf();
        for part in name.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".") {
            path = self.entry_without_case(&path, part, None)?;
        }
        (self.entry(&path) == Some(EntryKind::File)).then_some(path)
    }

    /// The entry of `dir` named `name` in any case, of `kind` when given;
    /// the exact spelling is tried first.
    fn entry_without_case(&self, dir: &Path, name: &str, kind: Option<EntryKind>) -> Option<PathBuf> {
        let wanted = |found: Option<EntryKind>| found.is_some() && (kind.is_none() || found == kind);
        let exact = dir.join(name);
        if wanted(self.entry(&exact)) {
            return Some(exact);
        }
        let same_name =
            |path: &PathBuf| path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case(name));
        self.list(dir).into_iter().find(|(path, found)| same_name(path) && wanted(Some(*found))).map(|(path, _)| path)
    }
}

/// The files on this machine's disks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Disk;

impl FileSource for Disk {
    fn entry(&self, path: &Path) -> Option<EntryKind> {
        let meta = std::fs::metadata(path).ok()?;
        Some(if meta.is_dir() { EntryKind::Folder } else { EntryKind::File })
    }

    fn list(&self, dir: &Path) -> Vec<(PathBuf, EntryKind)> {
        // An empty path is the working folder, as `Path::join` reads it.
        let listed = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        let entries = std::fs::read_dir(listed).into_iter().flatten().filter_map(Result::ok);
        // Links are not followed as folders: they can loop.
        let kind = |e: &std::fs::DirEntry| match e.file_type() {
            Ok(t) if t.is_dir() => EntryKind::Folder,
            _ => EntryKind::File,
        };
        entries.map(|e| (dir.join(e.file_name()), kind(&e))).collect()
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

/// Files known by name, whose bytes arrive when they are first wanted: the
/// files dropped on (or picked in, or fetched by) a browser page. Indexing
/// a folder of thousands of files costs their names only; a read of a file
/// not read yet answers [`io::ErrorKind::WouldBlock`] and puts it on the
/// [`FileIndex::take_wanted`] list, for the page to read and
/// [`FileIndex::arrive`].
///
/// Paths are relative, with `/` between folders, as the page gives them
/// (`resource/mesh/body.msh`); `.` and `..` are resolved.
#[derive(Debug, Clone, Default)]
pub struct FileIndex {
    inner: Arc<Mutex<Index>>,
}

#[derive(Debug, Default)]
struct Index {
    /// Every file, with its bytes once read.
    files: BTreeMap<PathBuf, Contents>,
    /// Every folder that holds a file, at any depth.
    folders: BTreeSet<PathBuf>,
    /// Files read before their bytes arrived and not yet handed to the
    /// page to read, in the order first wanted.
    wanted: Vec<PathBuf>,
    /// Files the page is reading.
    reading: BTreeSet<PathBuf>,
    /// Whether any path it does not know may be a file on the page's
    /// server, to fetch when read.
    served: bool,
    /// The first folders of the paths it was given: below them it knows
    /// every file, and serves none.
    given: BTreeSet<PathBuf>,
}

/// A file's bytes, as far as the index has them.
#[derive(Debug, Clone)]
enum Contents {
    /// Known by name; not read yet.
    Named,
    /// Read.
    Read(Arc<[u8]>),
    /// The page could not read it, for this reason.
    Failed(String),
    /// The server has no such file (said how).
    Missing(String),
}

impl FileIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// An index of the files a page's server has, as well as those handed
    /// to it: a path it does not know is taken to be a file there (or a
    /// folder, without an extension), and read by fetching it. The lookup
    /// then finds a file as the client's layout spells it, and a server
    /// that lacks it makes the read an error. Below the first folder of a
    /// path given to it ([`Self::add_name`], [`Self::add`]) it knows
    /// every file: keep what the page hands over apart from the server's
    /// paths by a folder of its own (`dropped/…`).
    pub fn served() -> Self {
        let index = Self::default();
        index.index().served = true;
        index
    }

    fn index(&self) -> std::sync::MutexGuard<'_, Index> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a file by name, its bytes to come when wanted (again, for a
    /// file handed over anew).
    pub fn add_name(&self, path: &Path) {
        let path = normal(path);
        let mut index = self.index();
        index.given(&path);
        index.arrived(&path);
        index.files.insert(path, Contents::Named);
    }

    /// Adds a file with its bytes.
    pub fn add(&self, path: &Path, bytes: impl Into<Arc<[u8]>>) {
        self.index().given(&normal(path));
        self.arrive(path, bytes);
    }

    /// Gives a file that was wanted (one given by name, or the server's)
    /// its bytes.
    pub fn arrive(&self, path: &Path, bytes: impl Into<Arc<[u8]>>) {
        let path = normal(path);
        let mut index = self.index();
        index.add_folders(&path);
        index.arrived(&path);
        index.files.insert(path, Contents::Read(bytes.into()));
    }

    /// Records that the page could not read a file: reading it is then an
    /// error that says `why`.
    pub fn fail(&self, path: &Path, why: impl Into<String>) {
        let path = normal(path);
        let mut index = self.index();
        index.arrived(&path);
        index.files.insert(path, Contents::Failed(why.into()));
    }

    /// Records that the page's server has no file at `path`: it is then
    /// absent, and reading it says `why`.
    pub fn missing(&self, path: &Path, why: impl Into<String>) {
        let path = normal(path);
        let mut index = self.index();
        index.arrived(&path);
        index.files.insert(path, Contents::Missing(why.into()));
    }

    /// Files that were read before their bytes arrived, oldest first, for
    /// the page to read: each is handed out once.
    pub fn take_wanted(&self) -> Vec<PathBuf> {
        let mut index = self.index();
        let wanted = std::mem::take(&mut index.wanted);
        index.reading.extend(wanted.iter().cloned());
        wanted
    }

    /// How many files it knows.
    pub fn len(&self) -> usize {
        self.index().files.len()
    }

    /// Whether it knows no file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl FileSource for FileIndex {
    fn entry(&self, path: &Path) -> Option<EntryKind> {
        let path = normal(path);
        let index = self.index();
        match index.files.get(&path) {
            Some(Contents::Missing(_)) => None,
            Some(_) => Some(EntryKind::File),
            None if path.as_os_str().is_empty() || index.folders.contains(&path) => Some(EntryKind::Folder),
            None if index.may_be_served(&path) && path.extension().is_some() => Some(EntryKind::File),
            None if index.may_be_served(&path) => Some(EntryKind::Folder),
            None => None,
        }
    }

    fn list(&self, dir: &Path) -> Vec<(PathBuf, EntryKind)> {
        let dir = normal(dir);
        let index = self.index();
        let in_dir = |path: &&PathBuf| path.parent() == Some(dir.as_path());
        let folders = index.folders.iter().filter(in_dir).map(|p| (p.clone(), EntryKind::Folder));
        let files = index.files.keys().filter(in_dir).map(|p| (p.clone(), EntryKind::File));
        folders.chain(files).collect()
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let path = normal(path);
        let mut index = self.index();
        if !index.files.contains_key(&path) && index.may_be_served(&path) {
            index.files.insert(path.clone(), Contents::Named);
        }
        match index.files.get(&path) {
            Some(Contents::Read(bytes)) => Ok(bytes.to_vec()),
            Some(Contents::Failed(why)) => Err(io::Error::other(why.clone())),
            Some(Contents::Missing(why)) => Err(io::Error::new(io::ErrorKind::NotFound, why.clone())),
            Some(Contents::Named) => {
                if !index.wanted.contains(&path) && !index.reading.contains(&path) {
                    index.wanted.push(path);
                }
                Err(io::Error::new(io::ErrorKind::WouldBlock, "not read yet"))
            }
            None => Err(io::Error::new(io::ErrorKind::NotFound, "no such file among those given")),
        }
    }

    fn is_waiting(&self) -> bool {
        let index = self.index();
        !index.wanted.is_empty() || !index.reading.is_empty()
    }
}

impl Index {
    fn arrived(&mut self, path: &Path) {
        self.wanted.retain(|p| p != path);
        self.reading.remove(path);
    }

    /// Records the folders that hold `path`.
    fn add_folders(&mut self, path: &Path) {
        self.folders.extend(path.ancestors().skip(1).filter(|p| !p.as_os_str().is_empty()).map(Path::to_path_buf));
    }

    /// Records a path given with its folders.
    fn given(&mut self, path: &Path) {
        self.add_folders(path);
        self.given.extend(path.components().next().map(|first| PathBuf::from(first.as_os_str())));
    }

    /// Whether `path`, which it does not know, may be on the server.
    fn may_be_served(&self, path: &Path) -> bool {
        let first = path.components().next().map(|first| PathBuf::from(first.as_os_str()));
        self.served && !first.is_some_and(|first| self.given.contains(&first))
    }
}

/// `path` with `.` and `..` resolved and no leading `/`.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same tree on disk and in an index: every question gets the same
    /// answer from both, so the lookup cannot drift between the desktop
    /// and the web.
    #[test]
    fn disk_and_index_answer_alike() {
        let dir = tempfile::tempdir().unwrap();
        // No two names differ by case alone, as on the game's disks.
        let files = ["Resource/Mesh/Weapons/Sword.MSH", "Resource/model/animodel/hero.txt", "Resource/Mesh/a.msh"];
        let index = FileIndex::new();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, file).unwrap();
            index.add(Path::new(file), file.as_bytes());
        }
        let base = dir.path();
        let on_disk = |p: Option<PathBuf>| p.map(|p| p.strip_prefix(base).unwrap().to_path_buf());
        for (folder, name) in [
            ("Resource", "mesh/weapons/sword.msh"),
            ("Resource", "MESH\\A.msh"),
            ("Resource", "mesh/b.msh"),
            ("", "resource/model/animodel/HERO.txt"),
            ("Resource", "mesh"),
        ] {
            let found = Disk.find_without_case(&base.join(folder), name);
            assert_eq!(on_disk(found), index.find_without_case(Path::new(folder), name), "{folder} {name}");
        }
        let mut listed: Vec<_> =
            Disk.list(&base.join("Resource")).into_iter().map(|(p, k)| (on_disk(Some(p)).unwrap(), k)).collect();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(listed, index.list(Path::new("Resource")));
        assert_eq!(index.entry(Path::new("Resource/Mesh")), Some(EntryKind::Folder));
        assert_eq!(index.read(Path::new("./Resource/Mesh/../Mesh/a.msh")).unwrap(), b"Resource/Mesh/a.msh");
    }

    #[test]
    fn a_file_known_by_name_is_read_when_wanted() {
        let index = FileIndex::new();
        index.add_name(Path::new("res/skeleton/biped.skl"));
        assert_eq!(index.entry(Path::new("res/skeleton")), Some(EntryKind::Folder));
        let error = index.read(Path::new("res/skeleton/biped.skl")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        assert!(index.is_waiting());
        assert_eq!(index.read(Path::new("res/none.skl")).unwrap_err().kind(), io::ErrorKind::NotFound);
        assert_eq!(index.take_wanted(), [PathBuf::from("res/skeleton/biped.skl")]);
        assert!(index.is_waiting(), "still reading");
        assert!(index.read(Path::new("res/skeleton/biped.skl")).is_err());
        assert_eq!(index.take_wanted(), Vec::<PathBuf>::new(), "handed out once");
        index.arrive(Path::new("res/skeleton/biped.skl"), &b"SKL"[..]);
        assert!(!index.is_waiting());
        assert_eq!(index.read(Path::new("res/skeleton/biped.skl")).unwrap(), b"SKL");
    }

    /// A page's server is asked for the file the layout names, as spelled;
    /// one it lacks is then absent, with the server's word.
    #[test]
    fn a_served_file_is_fetched_as_the_layout_spells_it() {
        let index = FileIndex::served();
        let found = index.find_without_case(Path::new("game/resource"), "mesh\\Body.msh");
        assert_eq!(found, Some(PathBuf::from("game/resource/mesh/Body.msh")));
        assert_eq!(index.read(&found.clone().unwrap()).unwrap_err().kind(), io::ErrorKind::WouldBlock);
        assert_eq!(index.take_wanted(), [found.clone().unwrap()]);
        index.missing(found.as_ref().unwrap(), "404 Not Found");
        assert!(!index.is_waiting());
        assert_eq!(index.entry(found.as_ref().unwrap()), None);
        assert_eq!(index.read(&found.unwrap()).unwrap_err().to_string(), "404 Not Found");
        // Below a folder it was given, it knows every file.
        index.add_name(Path::new("dropped/walk.ani"));
        assert_eq!(index.find_without_case(Path::new("dropped"), "walk.ant"), None);
        assert_eq!(index.read(Path::new("dropped/walk.ant")).unwrap_err().kind(), io::ErrorKind::NotFound);
        assert!(index.find_without_case(Path::new("served"), "walk.ant").is_some());
    }
}
