//! Resource folders as the client reads them, and a model config resolved
//! into a whole character.
//!
//! The game keeps one folder per kind of file (`resource/{animation,
//! material, mesh, model/animodel, model/staticmodel, skeleton, texture}`)
//! and reads from pack files or Windows disks, so names match without case.
//! A config's skeleton, meshes, material scripts, textures and animations
//! are each looked up in their kind's folder, with no fallbacks. A config
//! outside any resource folder (loose files, such as the bundled samples)
//! finds them beside itself instead.

use std::path::{Path, PathBuf};

use crate::format::{ConfigError, MaterialScript, Mesh, ModelConfig, Skeleton};

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
}

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

/// What a `.txt` file is: a model config or a material script, by the
/// folder it is in (`model` or `material`, any case) or else by its text (a
/// config's lines start with `#` sections, a script's with `material`).
/// `None` for text that is neither.
pub fn text_kind(path: &Path, bytes: &[u8]) -> Option<ResourceKind> {
    // The nearest `material` or `model` folder above decides.
    let folder = path.parent().into_iter().flat_map(Path::ancestors).find_map(|dir| {
        let name = dir.file_name()?.to_str()?;
        [ResourceKind::Material, ResourceKind::Model].into_iter().find(|k| name.eq_ignore_ascii_case(k.folder()))
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

/// A file a config or script names, and where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The name as written.
    pub name: String,
    /// The kind of file it is.
    pub kind: ResourceKind,
    /// Where it is; `None` when the kind's folder (or, for a config in no
    /// resource folder, the config's own folder) does not have it.
    pub path: Option<PathBuf>,
}

/// A file that was found and read, or why not.
#[derive(Debug, Clone)]
pub struct Linked<T> {
    /// Where it was looked for and found.
    pub link: Link,
    /// The parsed file, or why it is missing or unreadable.
    pub value: Result<T, String>,
}

impl CharacterMesh {
    /// The mesh's name as the config writes it (no extension).
    pub fn name(&self) -> &str {
        self.mesh.link.name.strip_suffix(".msh").unwrap_or(&self.mesh.link.name)
    }
}

impl<T> Linked<T> {
    /// The value, if the file was found and read.
    pub fn get(&self) -> Option<&T> {
        self.value.as_ref().ok()
    }
}

/// A mesh of a character with its material script and the textures the
/// script names.
#[derive(Debug, Clone)]
pub struct CharacterMesh {
    /// `<name>.msh` from the mesh folder.
    pub mesh: Linked<Mesh>,
    /// `<name>.txt` from the material folder: without one the client does
    /// not load the mesh.
    pub material: Linked<MaterialScript>,
    /// Every texture file the script names, in order, once each.
    pub textures: Vec<Link>,
}

/// A model config resolved into the files that make up the character.
#[derive(Debug, Clone)]
pub struct Character {
    /// The config file.
    pub config_path: PathBuf,
    /// Its bytes, as read (for messages that point at its lines).
    pub config_bytes: Vec<u8>,
    /// What it says.
    pub config: ModelConfig,
    /// The resource folder it lies in, if any.
    pub folder: Option<ResourceFolder>,
    /// The skeleton (`#SKELETON`).
    pub skeleton: Option<Linked<Skeleton>>,
    /// The meshes of `#MESH_LIST`, in order.
    pub meshes: Vec<CharacterMesh>,
    /// The animations of `#ANIMATION_LIST`, found but not read (a character
    /// can list hundreds).
    pub animations: Vec<Link>,
    /// The collision mesh (`#COLLISION_MESH`), found but not read.
    pub collision: Option<Link>,
}

/// Why a model config cannot be resolved at all.
#[derive(Debug, thiserror::Error)]
pub enum CharacterError {
    /// The config cannot be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The config.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The config does not parse.
    #[error("{path}: {source}")]
    Config {
        /// The config.
        path: PathBuf,
        /// Why.
        source: ConfigError,
    },
}

impl Character {
    /// Reads a model config and every file it names (but animations and the
    /// collision mesh, which are only found). Missing and broken parts are
    /// kept as errors in their place, so that a tool can show the rest.
    pub fn load(config_path: &Path) -> Result<Self, CharacterError> {
        let bytes = std::fs::read(config_path)
            .map_err(|source| CharacterError::Read { path: config_path.to_path_buf(), source })?;
        let config = ModelConfig::parse(&bytes)
            .map_err(|source| CharacterError::Config { path: config_path.to_path_buf(), source })?;
        let resolver = Resolver {
            beside: config_path.parent().unwrap_or(Path::new(".")),
            folder: ResourceFolder::around(config_path),
        };
        let skeleton = config.skeleton.as_deref().map(|name| {
            resolver.read(ResourceKind::Skeleton, name, |b| Skeleton::from_bytes(b).map_err(|e| e.to_string()))
        });
        let meshes = config.meshes.iter().map(|name| resolver.mesh(name)).collect();
        let animations = config.animations.iter().map(|name| resolver.link(ResourceKind::Animation, name)).collect();
        let collision = config.collision_mesh.as_deref().map(|name| resolver.link(ResourceKind::Mesh, name));
        Ok(Self {
            config_path: config_path.to_path_buf(),
            config_bytes: bytes,
            folder: resolver.folder,
            config,
            skeleton,
            meshes,
            animations,
            collision,
        })
    }
}

/// Finds the files a config names: in the kind's folder of its resource
/// folder, or beside a config that is in none.
struct Resolver<'a> {
    beside: &'a Path,
    folder: Option<ResourceFolder>,
}

impl Resolver<'_> {
    fn link(&self, kind: ResourceKind, name: &str) -> Link {
        let path = match &self.folder {
            Some(folder) => folder.find(kind, name),
            None => find_without_case(self.beside, name),
        };
        Link { name: name.to_owned(), kind, path }
    }

    fn read<T>(&self, kind: ResourceKind, name: &str, parse: impl FnOnce(&[u8]) -> Result<T, String>) -> Linked<T> {
        let link = self.link(kind, name);
        let value = match &link.path {
            None => Err(format!("no {} file named '{name}'", kind.folder())),
            Some(path) => std::fs::read(path)
                .map_err(|e| format!("{}: cannot read: {e}", path.display()))
                .and_then(|bytes| parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))),
        };
        Linked { link, value }
    }

    fn mesh(&self, name: &str) -> CharacterMesh {
        let mesh = self.read(ResourceKind::Mesh, &format!("{name}.msh"), parse_mesh);
        self.dress(mesh, name)
    }

    /// A mesh with the material script named after it and the textures the
    /// script names.
    fn dress(&self, mesh: Linked<Mesh>, name: &str) -> CharacterMesh {
        let material = self.read(ResourceKind::Material, &format!("{name}.txt"), |b| {
            MaterialScript::parse(b).map_err(|e| e.to_string())
        });
        let mut names: Vec<&str> = Vec::new();
        for texture in material.get().into_iter().flat_map(texture_names) {
            if !names.iter().any(|n| n.eq_ignore_ascii_case(texture)) {
                names.push(texture);
            }
        }
        let textures = names.into_iter().map(|n| self.link(ResourceKind::Texture, n)).collect();
        CharacterMesh { mesh, material, textures }
    }
}

fn parse_mesh(bytes: &[u8]) -> Result<Mesh, String> {
    Mesh::from_bytes(bytes).map_err(|e| e.to_string())
}

impl CharacterMesh {
    /// A mesh file on its own, to put on a character (equipment), with the
    /// material script and textures the client finds for it: in the kind
    /// folders of the resource folder it lies in, or beside it.
    pub fn load(path: &Path) -> Self {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let resolver =
            Resolver { beside: path.parent().unwrap_or(Path::new(".")), folder: ResourceFolder::around(path) };
        let value = std::fs::read(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))
            .and_then(|bytes| parse_mesh(&bytes).map_err(|e| format!("{}: {e}", path.display())));
        let link = Link { name: format!("{name}.msh"), kind: ResourceKind::Mesh, path: Some(path.to_path_buf()) };
        resolver.dress(Linked { link, value }, &name)
    }
}

/// The texture files a script's materials draw with (the passes of each
/// material's first technique), in order.
pub fn texture_names(script: &MaterialScript) -> impl Iterator<Item = &str> {
    script.materials.iter().flat_map(|m| m.passes()).flat_map(|p| &p.texture_units).filter_map(|u| u.texture.as_deref())
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
}
