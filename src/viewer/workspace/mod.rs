//! The files open in the viewer: animations, the skeleton (given or
//! guessed), their facts and findings, and reloading them when they change
//! on disk. Files are read with the format library directly, not through
//! Bevy's asset server, so that any path works (dropped, typed or picked)
//! and a file that stops parsing keeps its last good version on screen.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use bevy::asset::{Assets, Handle};
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::time::{Real, Time, Timer, TimerMode};
use bevy::window::FileDragAndDrop;

use crate::anim::{GuessedSkeleton, ParentRule, Rig, RootPath, guess_skeleton, root_path};
use crate::check::{Finding, check_ani};
use crate::format::{Animation, Dds, EventSidecar, MaterialScript, Mesh, Skeleton};
use crate::gltf::{self, GltfDocument, ImportOptions};
use crate::plugin::character::{CharacterStores, Io3dMesh};
use crate::plugin::{AniClip, SklSkeleton};
use crate::resource::{Character, CharacterMesh, Disk, FileIndex, FileSource, MeshFiles, ResourceFolder, ResourceKind};

/// The bone whose path the viewer draws and measures.
pub const ROOT_BONE: &str = crate::anim::biped::ROOT;

/// Root path samples are this far apart, in ms.
pub const PATH_STEP_MS: f32 = 10.0;

/// Where a file came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file on disk, watched for changes.
    File(PathBuf),
    /// A sample built into the viewer.
    Bundled(&'static str),
    /// Made in the viewer (a join, a mirror, ...) and not saved yet.
    New(String),
}

impl Origin {
    /// The name to show.
    pub fn name(&self) -> String {
        match self {
            Self::File(path) => {
                path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into())
            }
            Self::Bundled(name) => format!("{name} (bundled)"),
            Self::New(name) => format!("{name} (new)"),
        }
    }

    /// A file name for it: its own, or its name with `extension` added.
    pub fn file_name(&self, extension: &str) -> String {
        match self {
            Self::File(path) => path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            Self::Bundled(name) => (*name).to_owned(),
            Self::New(name) => format!("{name}{extension}"),
        }
    }

    /// The path on disk, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::File(path) => Some(path),
            Self::Bundled(_) | Self::New(_) => None,
        }
    }
}

/// A file's last good contents, and what went wrong since.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// Where it came from.
    pub origin: Origin,
    /// The last version that parsed.
    pub value: T,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The file's modification time when last read, to notice changes.
    pub modified: Option<SystemTime>,
    /// Why the file on disk no longer parses; the value is the last good one.
    pub error: Option<String>,
}

/// An open animation.
#[derive(Debug, Clone)]
pub struct OpenAnimation {
    /// The file.
    pub file: Loaded<Animation>,
    /// The `.ant` sidecar beside it, whose events play in the game (and
    /// so in the viewer) instead of the file's.
    pub sidecar: Option<EventSidecar>,
    /// Its asset, played by the viewer's rig.
    pub handle: Handle<AniClip>,
    /// The root's path over the clip.
    pub root_path: Option<RootPath>,
    /// What `io3d check` finds, against the current skeleton when one was
    /// given.
    pub findings: Vec<Finding>,
    /// Whether it has edits not saved yet.
    pub dirty: bool,
    /// Earlier versions, for undo (newest last).
    pub undo: Vec<Animation>,
    /// Versions undone, for redo (newest last).
    pub redo: Vec<Animation>,
}

/// A mesh drawn on the rig, from a model config (or the bundled sample).
#[derive(Debug, Clone)]
pub struct OpenMesh {
    /// Its name, as the config lists it.
    pub name: String,
    /// Its asset, skinned to the viewed rig.
    pub handle: Handle<Io3dMesh>,
    /// What is wrong with it: a missing material script (the client then
    /// does not draw it), textures that are missing or broken (they show a
    /// checker).
    pub findings: Vec<String>,
    /// Why the client would not draw it (no material script, or one with
    /// no material), when so: the viewer draws it in clay instead and says
    /// why on the stage.
    pub undrawn: Option<String>,
    /// Its files on disk (the mesh first, then its script and textures)
    /// with their modification times when read: a change rebuilds it.
    pub files: Vec<(PathBuf, Option<SystemTime>)>,
    /// The mesh, script and texture files it was built from, for export.
    pub source: MeshFiles,
}

/// The open files and the skeleton the rig shows.
#[derive(Resource, Debug, Default)]
pub struct Workspace {
    /// Open animations, in the order opened.
    pub animations: Vec<OpenAnimation>,
    /// The one playing.
    pub current: usize,
    /// The skeleton given (a `.skl`, or the one a model config names).
    pub skeleton: Option<Loaded<Skeleton>>,
    /// The skeleton guessed from the current animation when none is given.
    pub guess: Option<GuessedSkeleton>,
    /// What the rig shows: the given skeleton or the guess.
    pub rig_skeleton: Handle<SklSkeleton>,
    /// The meshes of the character opened last, drawn on the rig.
    pub meshes: Vec<OpenMesh>,
    /// The files of the resource folder opened last, by kind (model
    /// configs first), to open from.
    pub folder: Vec<(ResourceKind, Vec<PathBuf>)>,
    /// Textures, material scripts and collision meshes opened on their
    /// own, in the order opened.
    pub previews: Vec<OpenPreview>,
    /// Files that could not be opened, and why (newest last).
    pub problems: Vec<String>,
    /// What opening said of files that did open: a glTF import's warnings
    /// and what the lint finds in the files it made (newest last).
    pub notes: Vec<String>,
    /// The folders glTF models were written into to be shown as the game
    /// would load them, kept while the viewer runs.
    pub import_folders: Vec<tempfile::TempDir>,
    /// The game's files made of the glTF model opened last, and its name:
    /// what File > Save imported model saves as one `.zip`.
    pub imported: Option<(String, crate::gltf::ImportedModel)>,
    /// Where files are read from: the disk, or in a browser the files the
    /// page was handed.
    pub source: Files,
}

/// The source the workspace reads from, shared with whoever hands it files
/// (the page's reader in a browser).
#[derive(Clone)]
pub struct Files {
    source: Arc<dyn FileSource>,
    /// The index, when the files are in memory (a browser's).
    memory: Option<FileIndex>,
}

impl Files {
    /// Files handed over to (or fetched by) a page, in memory.
    pub fn new(index: FileIndex) -> Self {
        Self { source: Arc::new(index.clone()), memory: Some(index) }
    }

    /// The index, when the files are in memory: files the viewer makes
    /// (a glTF model's game files) are kept there rather than written.
    pub fn memory(&self) -> Option<&FileIndex> {
        self.memory.as_ref()
    }
}

impl Default for Files {
    fn default() -> Self {
        Self { source: Arc::new(Disk), memory: None }
    }
}

impl std::fmt::Debug for Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Files")
    }
}

impl std::ops::Deref for Files {
    type Target = dyn FileSource;

    fn deref(&self) -> &Self::Target {
        &*self.source
    }
}

/// The asset stores the workspace fills.
#[derive(SystemParam)]
pub struct Stores<'w> {
    /// Animations.
    pub clips: ResMut<'w, Assets<AniClip>>,
    /// Skeletons.
    pub skeletons: ResMut<'w, Assets<SklSkeleton>>,
    /// Meshes, their materials and textures.
    pub character: CharacterStores<'w>,
}

mod bundled;
mod clay;
mod import_preview;
mod open;
mod preview;
mod reload;

pub use preview::{OpenPreview, Shown};
pub use reload::{ReloadTimer, reload_files};

impl Workspace {
    /// The animation playing, if any is open.
    pub fn current(&self) -> Option<&OpenAnimation> {
        self.animations.get(self.current)
    }

    /// The skeleton the rig shows: the one given, or the one guessed.
    pub fn shown_skeleton(&self) -> Option<&Skeleton> {
        self.given_skeleton().or(self.guess.as_ref().map(|g| &g.skeleton))
    }

    /// Recomputes what depends on the files: each animation's root path
    /// and findings (against the given skeleton), then the rig.
    pub fn refresh(&mut self, stores: &mut Stores) {
        let given = self.skeleton.as_ref().map(|s| &s.value);
        for open in &mut self.animations {
            open.root_path = root_path(&open.file.value, ROOT_BONE.as_bytes(), PATH_STEP_MS);
            open.findings = check_ani(&open.file.bytes, given);
        }
        self.refresh_rig(stores);
    }

    /// Sets the rig's skeleton: the given one, or one guessed from the
    /// current animation. The asset is replaced only when the skeleton
    /// differs, since a replacement respawns the rig's bones.
    pub fn refresh_rig(&mut self, stores: &mut Stores) {
        self.current = self.current.min(self.animations.len().saturating_sub(1));
        let given = self.skeleton.as_ref().map(|s| &s.value);
        self.guess = match given {
            Some(_) => None,
            None => self.current().and_then(|open| guess_skeleton(&open.file.value)),
        };
        let Some(skeleton) = given.or(self.guess.as_ref().map(|g| &g.skeleton)) else { return };
        if stores.skeletons.get(&self.rig_skeleton).is_some_and(|shown| shown.skeleton == *skeleton) {
            return;
        }
        let Ok(rig) = Rig::new(skeleton) else { return };
        let asset = SklSkeleton { skeleton: skeleton.clone(), rig };
        if self.rig_skeleton == Handle::default() {
            self.rig_skeleton = stores.skeletons.add(asset);
        } else {
            stores.skeletons.insert(&self.rig_skeleton, asset).ok();
        }
    }

    /// What the stage says of the meshes it draws that the game would
    /// not: one line a mesh, with why and how it is shown instead.
    pub fn stage_notices(&self) -> Vec<String> {
        // Skinned meshes stand at their bind pose on no rig.
        let unrigged = self.shown_skeleton().is_none();
        let notice = |open: &OpenMesh| {
            let why = open.undrawn.as_ref()?;
            let skinned = open.source.mesh.is_skinned() && open.source.mesh.weights.is_some();
            let pose = if unrigged && skinned { ", at its bind pose (no skeleton with its bones is open)" } else { "" };
            Some(format!("The game would not draw {}: {why}. Shown in clay{pose}.", open.name))
        };
        self.meshes.iter().filter_map(notice).collect()
    }

    /// A glTF read from the source; buffers in other files are looked for
    /// beside it, on disk or among the files a page was handed.
    fn gltf_document(&self, path: &Path) -> Result<GltfDocument, gltf::GltfError> {
        let bytes = self.source.read(path).map_err(|e| gltf::GltfError::Read(format!("{}: {e}", path.display())))?;
        match (self.source.memory(), path.parent()) {
            // A page's `.gltf` reads its buffer files from what it was handed.
            (Some(index), Some(folder)) => GltfDocument::from_index(&bytes, index.clone(), folder),
            _ => GltfDocument::from_slice(&bytes, path.parent()),
        }
    }

    /// How many files of each list are open, to take back what an open
    /// added ([`Self::take_back`]).
    pub fn mark(&self) -> Mark {
        Mark {
            animations: self.animations.len(),
            meshes: self.meshes.len(),
            previews: self.previews.len(),
            problems: self.problems.len(),
            notes: self.notes.len(),
        }
    }

    /// Takes back what was added since `mark`: an open that read a file
    /// not read yet runs again once it is, and adds it all then.
    pub fn take_back(&mut self, mark: Mark, stores: &mut Stores) {
        self.animations.truncate(mark.animations);
        self.meshes.truncate(mark.meshes);
        self.previews.truncate(mark.previews);
        self.problems.truncate(mark.problems);
        self.notes.truncate(mark.notes);
        self.refresh_rig(stores);
    }

    /// A line saying how the skeleton was guessed, when it was.
    pub fn guess_summary(&self) -> Option<String> {
        let guess = self.guess.as_ref()?;
        Some(format!(
            "No skeleton given: guessed from the track names ({} bones: {} by the Biped, {} by numbering, {} by name prefix, {} under the root). Rest pose = first key.",
            guess.rules.len(),
            guess.count(ParentRule::Biped),
            guess.count(ParentRule::Numbered),
            guess.count(ParentRule::Prefix),
            guess.count(ParentRule::Fallback),
        ))
    }
}

/// How long the workspace's lists were ([`Workspace::mark`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    animations: usize,
    meshes: usize,
    previews: usize,
    problems: usize,
    notes: usize,
}

/// A skeleton the rig can pose: it reads and its bones form one tree.
fn parse_skeleton(bytes: &[u8]) -> Result<Skeleton, String> {
    let skeleton = Skeleton::from_bytes(bytes).map_err(|e| e.to_string())?;
    Rig::new(&skeleton).map_err(|e| e.to_string())?;
    Ok(skeleton)
}

/// When a file was last changed, if it can be told.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Opens files dropped on the window.
pub fn open_dropped(mut drops: MessageReader<FileDragAndDrop>, mut workspace: ResMut<Workspace>, mut stores: Stores) {
    let paths: Vec<PathBuf> = drops
        .read()
        .filter_map(|d| match d {
            FileDragAndDrop::DroppedFile { path_buf, .. } => Some(path_buf.clone()),
            _ => None,
        })
        .collect();
    if !paths.is_empty() {
        workspace.open(&paths, &mut stores);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use bevy::ecs::system::SystemState;

    use super::*;
    use crate::plugin::character::Io3dMaterial;

    /// A world holding every store the workspace fills.
    pub(crate) fn stores_world() -> World {
        let mut world = World::new();
        world.insert_resource(Assets::<AniClip>::default());
        world.insert_resource(Assets::<SklSkeleton>::default());
        world.insert_resource(Assets::<Io3dMesh>::default());
        world.insert_resource(Assets::<Io3dMaterial>::default());
        world.insert_resource(Assets::<bevy::mesh::Mesh>::default());
        world.insert_resource(Assets::<bevy::pbr::StandardMaterial>::default());
        world.insert_resource(Assets::<bevy::image::Image>::default());
        world
    }

    #[test]
    fn a_characters_mesh_rebuilds_when_its_texture_changes_on_disk() {
        let mut world = stores_world();
        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        let dir = tempfile::tempdir().unwrap();
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource");
        for kind in ["skeleton", "animation", "mesh", "material", "texture", "model/animodel"] {
            std::fs::create_dir_all(dir.path().join(kind)).unwrap();
            for entry in std::fs::read_dir(source.join(kind)).unwrap() {
                let path = entry.unwrap().path();
                std::fs::copy(&path, dir.path().join(kind).join(path.file_name().unwrap())).unwrap();
            }
        }
        let mut workspace = Workspace::default();
        workspace.open(&[dir.path().join("model/animodel/biped.txt")], &mut stores);
        assert_eq!((workspace.meshes.len(), workspace.animations.len()), (2, 3), "{:?}", workspace.problems);
        assert_eq!(workspace.meshes[0].files.len(), 3, "mesh, script and texture are watched");
        let before = workspace.meshes[0].handle.clone();
        assert!(!workspace.reload_changed(&mut stores), "nothing changed yet");
        std::fs::remove_file(dir.path().join("texture/biped.dds")).unwrap();
        assert!(workspace.reload_changed(&mut stores));
        let body = &workspace.meshes[0];
        assert_ne!(body.handle, before, "rebuilt");
        assert!(body.findings.iter().any(|f| f.contains("biped.dds") && f.contains("checker")), "{:?}", body.findings);
        assert!(!workspace.reload_changed(&mut stores), "a missing file is not a change twice");
    }

    #[test]
    fn a_resource_folder_lists_its_characters_and_an_attached_mesh_brings_its_script_and_texture() {
        let mut world = stores_world();
        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        let mut workspace = Workspace::default();
        workspace.open_bundled(&mut stores);
        assert_eq!(workspace.meshes.len(), 2);
        let sword = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource/mesh/biped_sword.msh");
        assert_eq!(workspace.attach_mesh(&sword, &mut stores), "attached biped_sword");
        let attached = workspace.meshes.last().unwrap();
        assert_eq!(attached.findings, Vec::<String>::new());
        let material = &stores.character.meshes.get(&attached.handle).unwrap().material;
        let material = stores.character.materials.get(material).unwrap();
        assert_eq!(material.materials.len(), 1);
        assert!(material.missing_textures.is_empty());
        workspace.open_folder(&Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource/mesh"));
        let listed = |kind: ResourceKind| -> Vec<_> {
            let files = workspace.folder.iter().find(|(k, _)| *k == kind).map(|(_, f)| f.clone()).unwrap_or_default();
            files.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect()
        };
        // Characters and static models, meshes and collision meshes.
        assert_eq!(listed(ResourceKind::Model), ["biped.txt", "stage.txt"]);
        assert_eq!(listed(ResourceKind::Mesh), ["biped_body.msh", "biped_sword.msh", "stage.cms", "stage.msh"]);
        assert_eq!(listed(ResourceKind::Texture), ["biped.dds"]);
        assert_eq!(workspace.folder[0].0, ResourceKind::Model, "configs first");
        // A skinned mesh opened alone brings the skeleton that has its bones.
        let mut alone = Workspace::default();
        alone.open(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource/mesh/biped_body.msh")], &mut stores);
        assert_eq!(alone.skeleton.as_ref().map(|s| s.origin.name()), Some("biped.skl".to_owned()));
        assert_eq!(alone.meshes.len(), 1);
        let message = workspace.attach_mesh(Path::new("/no/such/axe.msh"), &mut stores);
        assert!(message.contains("axe.msh") && message.contains("cannot read"), "{message}");
        assert_eq!(workspace.meshes.len(), 3);
    }

    #[test]
    fn a_lone_mesh_without_its_script_is_drawn_in_clay_and_the_stage_says_the_game_would_not() {
        let mut world = stores_world();
        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        // A weapon exported under its own name, beside another's script.
        let dir = tempfile::tempdir().unwrap();
        let resource = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource");
        let mesh = dir.path().join("shovel.msh");
        std::fs::copy(resource.join("mesh/biped_sword.msh"), &mesh).unwrap();
        std::fs::copy(resource.join("material/biped_sword.txt"), dir.path().join("patriot.txt")).unwrap();
        let mut workspace = Workspace::default();
        workspace.open(&[mesh], &mut stores);
        assert_eq!((workspace.meshes.len(), workspace.problems.len()), (1, 0), "{:?}", workspace.problems);
        assert!(workspace.skeleton.is_none(), "no skeleton lies beside it");
        let open = &workspace.meshes[0];
        assert!(open.source.script.is_none(), "the file's own script stays missing, for export");
        assert!(open.findings[0].contains("'shovel.txt'") && open.findings[0].contains("does not draw"));
        let asset = stores.character.meshes.get(&open.handle).unwrap();
        let material = stores.character.materials.get(&asset.material).unwrap();
        assert_eq!(material.materials.len(), open.source.mesh.submeshes.len(), "a clay material a submesh");
        let notices = workspace.stage_notices();
        assert_eq!(notices.len(), 1);
        assert!(
            notices[0].starts_with("The game would not draw shovel: ") && notices[0].contains("at its bind pose"),
            "{notices:?}"
        );
        // On a skeleton, a skinned mesh is no longer at its bind pose.
        workspace.open(&[resource.join("skeleton/biped.skl")], &mut stores);
        assert!(!workspace.stage_notices()[0].contains("bind pose"), "{:?}", workspace.stage_notices());
    }
}
