//! A model config resolved into the files of a whole character, each
//! found by the client's rules and read, or the reason it is missing.

use std::path::{Path, PathBuf};

use super::source::FileSource;
use super::{ResourceFolder, ResourceKind, lookup, resource_root, strip_extension};
use crate::format::{ConfigError, MaterialScript, Mesh, ModelConfig, Skeleton};

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
        strip_extension(&self.mesh.link.name, ".msh")
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
    /// The resource folder it lies in (by [`resource_root`]), if any.
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
    pub fn load(source: &dyn FileSource, config_path: &Path) -> Result<Self, CharacterError> {
        let bytes = source
            .read(config_path)
            .map_err(|source| CharacterError::Read { path: config_path.to_path_buf(), source })?;
        let config = ModelConfig::parse(&bytes)
            .map_err(|source| CharacterError::Config { path: config_path.to_path_buf(), source })?;
        let resolver = Resolver { source, from: config_path, own: ResourceKind::Model };
        let skeleton = config.skeleton.as_deref().map(|name| {
            resolver.read(ResourceKind::Skeleton, name, |b| Skeleton::from_bytes(b).map_err(|e| e.to_string()))
        });
        let meshes = config.meshes.iter().map(|name| resolver.mesh(name)).collect();
        let animations = config.animations.iter().map(|name| resolver.link(ResourceKind::Animation, name)).collect();
        let collision = config.collision_mesh.as_deref().map(|name| resolver.link(ResourceKind::Mesh, name));
        Ok(Self {
            config_path: config_path.to_path_buf(),
            config_bytes: bytes,
            folder: resource_root(config_path, Some(ResourceKind::Model)).map(ResourceFolder::new),
            config,
            skeleton,
            meshes,
            animations,
            collision,
        })
    }
}

/// Finds the files a file (a config, or a mesh on its own) names, by
/// [`lookup`]: in the kind's folder of its resource folder, or beside a
/// file that is in none.
struct Resolver<'a> {
    /// Where the files are.
    source: &'a dyn FileSource,
    /// The naming file.
    from: &'a Path,
    /// Its kind.
    own: ResourceKind,
}

impl Resolver<'_> {
    fn link(&self, kind: ResourceKind, name: &str) -> Link {
        let path = lookup(self.from, self.own, kind, name).find(self.source);
        Link { name: name.to_owned(), kind, path }
    }

    fn read<T>(&self, kind: ResourceKind, name: &str, parse: impl FnOnce(&[u8]) -> Result<T, String>) -> Linked<T> {
        let link = self.link(kind, name);
        let value = match &link.path {
            None => Err(format!("no {} file named '{name}'", kind.folder())),
            Some(path) => (self.source.read(path))
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
    pub fn load(source: &dyn FileSource, path: &Path) -> Self {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let resolver = Resolver { source, from: path, own: ResourceKind::Mesh };
        let value = (source.read(path))
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

/// A mesh with the files it is drawn with, as bytes: what the glTF export
/// writes and the viewer keeps to export what it shows.
#[derive(Debug, Clone)]
pub struct MeshFiles {
    /// Its name (the file's stem).
    pub name: String,
    /// The mesh.
    pub mesh: Mesh,
    /// Its material script, if found.
    pub script: Option<MaterialScript>,
    /// The texture files the script names: the name as written, and the
    /// file's bytes or why they could not be read.
    pub textures: Vec<(String, Result<Vec<u8>, String>)>,
}

impl MeshFiles {
    /// A character's mesh with its script and texture files, read from
    /// where the client found them; an error when the mesh itself is
    /// missing or broken. A missing script or texture is kept as such (the
    /// export then warns).
    pub fn read(source: &dyn FileSource, part: &CharacterMesh) -> Result<Self, String> {
        let mesh = part.mesh.value.clone()?;
        let textures = (part.textures.iter())
            .map(|link| {
                let bytes = match &link.path {
                    Some(path) => source.read(path).map_err(|e| format!("{}: {e}", path.display())),
                    None => Err(format!("no texture file named '{}'", link.name)),
                };
                (link.name.clone(), bytes)
            })
            .collect();
        Ok(Self { name: part.name().to_owned(), mesh, script: part.material.get().cloned(), textures })
    }

    /// The file a script's texture name refers to, matched without case as
    /// the client matches names: its bytes, or why it could not be read.
    pub fn texture(&self, name: &str) -> Option<Result<&[u8], &str>> {
        let (_, bytes) = self.textures.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))?;
        Some(bytes.as_deref().map_err(String::as_str))
    }
}
