//! The files open in the viewer: animations, the skeleton (given or
//! guessed), their facts and findings, and reloading them when they change
//! on disk. Files are read with the format library directly, not through
//! Bevy's asset server, so that any path works (dropped, typed or picked)
//! and a file that stops parsing keeps its last good version on screen.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use bevy::asset::{Assets, Handle};
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::time::{Real, Time, Timer, TimerMode};
use bevy::window::FileDragAndDrop;

use crate::anim::{GuessedSkeleton, ParentRule, Rig, RootPath, guess_skeleton, root_path};
use crate::check::{Finding, check_ani};
use crate::format::{Animation, Dds, MaterialScript, Mesh, Skeleton};
use crate::gltf::{self, ExportMesh, GltfDocument, ImportOptions};
use crate::plugin::character::{CharacterStores, Io3dMesh};
use crate::plugin::{AniClip, SklSkeleton};
use crate::resource::{Character, CharacterMesh, ResourceFolder, ResourceKind};

/// The sample opened when no file is given: the Biped character of
/// `assets/resource` walking, with the other bundled clips beside it.
const BUNDLED_SKELETON: (&str, &[u8]) = ("biped.skl", include_bytes!("../../assets/resource/skeleton/biped.skl"));
const BUNDLED_ANIMATIONS: [(&str, &[u8]); 3] = [
    ("biped_walk_4002.ani", include_bytes!("../../assets/resource/animation/biped_walk_4002.ani")),
    ("biped_idle_4002.ani", include_bytes!("../../assets/resource/animation/biped_idle_4002.ani")),
    ("biped_attack_4002.ani", include_bytes!("../../assets/resource/animation/biped_attack_4002.ani")),
];
/// The bundled character's meshes: name, mesh and material script.
const BUNDLED_MESHES: [(&str, &[u8], &[u8]); 2] = [
    (
        "biped_body",
        include_bytes!("../../assets/resource/mesh/biped_body.msh"),
        include_bytes!("../../assets/resource/material/biped_body.txt"),
    ),
    (
        "biped_sword",
        include_bytes!("../../assets/resource/mesh/biped_sword.msh"),
        include_bytes!("../../assets/resource/material/biped_sword.txt"),
    ),
];
/// The texture the bundled scripts name.
const BUNDLED_TEXTURE: (&str, &[u8]) = ("biped.dds", include_bytes!("../../assets/resource/texture/biped.dds"));

/// The bone whose path the viewer draws and measures.
pub const ROOT_BONE: &str = "Bip01";

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
    /// Its files on disk (the mesh first, then its script and textures)
    /// with their modification times when read: a change rebuilds it.
    pub files: Vec<(PathBuf, Option<SystemTime>)>,
    /// The mesh, script and texture files it was built from, for export.
    pub source: ExportMesh,
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
    /// The model configs of the resource folder opened last, to pick a
    /// character from.
    pub characters: Vec<PathBuf>,
    /// Files that could not be opened, and why (newest last).
    pub problems: Vec<String>,
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

impl Workspace {
    /// The animation playing, if any is open.
    pub fn current(&self) -> Option<&OpenAnimation> {
        self.animations.get(self.current)
    }

    /// Opens the bundled Biped skeleton and clips.
    pub fn open_bundled(&mut self, stores: &mut Stores) {
        let (name, bytes) = BUNDLED_SKELETON;
        self.add_file(Origin::Bundled(name), bytes.to_vec(), stores);
        for (name, bytes) in BUNDLED_ANIMATIONS {
            self.add_file(Origin::Bundled(name), bytes.to_vec(), stores);
        }
        for (name, mesh, script) in BUNDLED_MESHES {
            let script = MaterialScript::parse(script).map_err(|e| e.to_string());
            let source = Mesh::from_bytes(mesh).map_err(|e| e.to_string()).map(|mesh| ExportMesh {
                name: name.to_owned(),
                mesh,
                script: script.clone().ok(),
                textures: vec![(BUNDLED_TEXTURE.0.to_owned(), Ok(BUNDLED_TEXTURE.1.to_vec()))],
            });
            self.add_mesh(name, source, script.err(), stores);
        }
        self.current = 0;
        self.refresh(stores);
    }

    /// Opens files: `.ani`, `.skl` (by their magic), model configs
    /// (`.txt`, which bring their skeleton and animations) and glTF files
    /// (whose animations are imported onto the skeleton). What cannot be
    /// opened is listed in [`Self::problems`]. The first new animation
    /// becomes the current one (the first imported one, if any).
    pub fn open(&mut self, paths: &[PathBuf], stores: &mut Stores) {
        let before = self.animations.len();
        let mut imported = None;
        for path in paths {
            let count = self.animations.len();
            let gltf = self.open_path(path, stores);
            if imported.is_none() && gltf && self.animations.len() > count {
                imported = Some(count);
            }
        }
        if self.animations.len() > before {
            // A character opened with a glTF clip shows that clip.
            self.current = imported.unwrap_or(before);
        }
        self.refresh(stores);
    }

    /// Opens one file; returns whether it was a glTF (imported).
    fn open_path(&mut self, path: &Path, stores: &mut Stores) -> bool {
        match std::fs::read(path) {
            Err(error) => self.problems.push(format!("{}: cannot read: {error}", path.display())),
            Ok(bytes) if is_config(path, &bytes) => self.open_config(path, stores),
            Ok(bytes) if gltf::is_gltf(path, &bytes) => {
                self.import_gltf(path, stores);
                return true;
            }
            Ok(bytes) => {
                if let Some(at) = self.animations.iter().position(|a| a.file.origin.path() == Some(path)) {
                    self.current = at;
                } else {
                    self.add_file(Origin::File(path.to_owned()), bytes, stores);
                }
            }
        }
        false
    }

    /// The skeleton the rig shows: the one given, or the one guessed.
    pub fn shown_skeleton(&self) -> Option<&Skeleton> {
        self.given_skeleton().or(self.guess.as_ref().map(|g| &g.skeleton))
    }

    /// Imports each animation of a glTF onto the shown skeleton as a new
    /// animation; the first becomes current and plays. Returns a line for
    /// each (failures are also listed in [`Self::problems`]).
    pub fn import_gltf(&mut self, path: &Path, stores: &mut Stores) -> Vec<String> {
        let failed = |this: &mut Self, line: String| {
            this.problems.push(line.clone());
            vec![line]
        };
        let Some(skeleton) = self.shown_skeleton().cloned() else {
            return failed(self, format!("{}: open a skeleton to import onto", path.display()));
        };
        let file = match GltfDocument::open(path) {
            Ok(file) => file,
            Err(error) => return failed(self, format!("{}: {error}", path.display())),
        };
        let first = self.animations.len();
        let mut report = Vec::new();
        for name in file.animation_names() {
            let options = ImportOptions { animation: Some(name.clone()), ..Default::default() };
            match gltf::import(&file, &skeleton, &options) {
                Ok(imported) => {
                    report.push(format!("imported '{name}': {} tracks", imported.animation.tracks.len()));
                    self.add_new(name, imported.animation, stores);
                }
                Err(error) => report.extend(failed(self, format!("{}: '{name}': {error}", path.display()))),
            }
        }
        if self.animations.len() > first {
            self.current = first;
            self.refresh(stores);
        }
        if report.is_empty() {
            report.push(format!("{}: no animations", path.display()));
        }
        report
    }

    /// Opens a model config's skeleton and animations, found by the
    /// client's folder rules, and draws its meshes on the rig in place of
    /// the ones shown before.
    fn open_config(&mut self, path: &Path, stores: &mut Stores) {
        let character = match Character::load(path) {
            Ok(character) => character,
            Err(error) => return self.problems.push(error.to_string()),
        };
        for link in character.skeleton.iter().map(|s| &s.link).chain(&character.animations) {
            match &link.path {
                Some(found) => {
                    self.open_path(found, stores);
                }
                None => self.problems.push(format!(
                    "{}: names '{}', which is not in its {} folder",
                    path.display(),
                    link.name,
                    link.kind.folder()
                )),
            }
        }
        self.meshes.clear();
        for part in &character.meshes {
            self.add_part(part, stores);
        }
    }

    /// Opens a resource folder (or a folder inside one): lists its model
    /// configs in [`Self::characters`], to pick one from.
    pub fn open_folder(&mut self, path: &Path) {
        let Some(folder) = ResourceFolder::around(path) else {
            return self
                .problems
                .push(format!("{}: not in a resource folder (no model, mesh, animation, ... folder)", path.display()));
        };
        self.characters = folder
            .files(ResourceKind::Model)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt")))
            .collect();
        if self.characters.is_empty() {
            self.problems.push(format!("{}: its model folder holds no configs", folder.root.display()));
        }
    }

    /// Puts a `.msh` on the character, with the material script and
    /// textures the client would find for it; returns what happened.
    pub fn attach_mesh(&mut self, path: &Path, stores: &mut Stores) -> String {
        let part = CharacterMesh::load(path);
        let (name, before) = (part.name().to_owned(), self.problems.len());
        self.add_part(&part, stores);
        match self.problems.get(before) {
            Some(problem) => problem.clone(),
            None => format!("attached {name}"),
        }
    }

    /// Adds a mesh found on disk, watching its files; returns whether it
    /// read.
    fn add_part(&mut self, part: &CharacterMesh, stores: &mut Stores) -> bool {
        let script_error = part.material.value.as_ref().err().cloned();
        let added = self.add_mesh(part.name(), ExportMesh::read(part), script_error, stores);
        let links = [&part.mesh.link, &part.material.link].into_iter().chain(&part.textures);
        if added && let Some(open) = self.meshes.last_mut() {
            open.files = links
                .filter_map(|link| link.path.clone())
                .map(|path| {
                    let when = modified(&path);
                    (path, when)
                })
                .collect();
        }
        added
    }

    /// Rebuilds the meshes whose mesh, script or texture files changed on
    /// disk; one that no longer reads keeps its last version, with the
    /// problem listed. Returns whether any was rebuilt.
    fn reload_meshes(&mut self, stores: &mut Stores) -> bool {
        let mut changed = false;
        for i in 0..self.meshes.len() {
            let files = &self.meshes[i].files;
            if files.iter().all(|(path, when)| modified(path) == *when) {
                continue;
            }
            let Some((mesh_path, _)) = files.first().cloned() else { continue };
            changed = true;
            if self.add_part(&CharacterMesh::load(&mesh_path), stores) {
                let rebuilt = self.meshes.pop().expect("just added");
                self.meshes[i] = rebuilt;
            } else {
                // Check again only when the files change again.
                self.meshes[i].files.iter_mut().for_each(|(path, when)| *when = modified(path));
            }
        }
        changed
    }

    /// Adds a mesh to draw on the rig (with its script, unless
    /// `script_error` says why there is none), or its problem when it did
    /// not read; returns whether it was added.
    fn add_mesh(
        &mut self,
        name: &str,
        source: Result<ExportMesh, String>,
        script_error: Option<String>,
        stores: &mut Stores,
    ) -> bool {
        let source = match source {
            Ok(source) => source,
            Err(error) => {
                self.problems.push(format!("mesh '{name}': {error}"));
                return false;
            }
        };
        let mut findings = Vec::new();
        if let Some(error) = script_error {
            findings.push(format!("material script: {error}; the client does not draw this mesh"));
        }
        let texture = |texture: &str| match source.texture(texture) {
            None => Err(format!("no texture '{texture}'")),
            Some(Err(why)) => Err(why.to_owned()),
            Some(Ok(bytes)) => Dds::from_bytes(bytes).map_err(|e| e.to_string()),
        };
        let (handle, missing) = stores.character.add_mesh(name, source.mesh.clone(), source.script.clone(), texture);
        findings.extend(
            missing.into_iter().map(|(texture, why)| format!("texture '{texture}': {why}; shown as a checker")),
        );
        self.meshes.push(OpenMesh { name: name.to_owned(), handle, findings, files: Vec::new(), source });
        true
    }

    /// Reads a file's bytes into the workspace as an animation or the
    /// skeleton, by its magic.
    fn add_file(&mut self, origin: Origin, bytes: Vec<u8>, stores: &mut Stores) {
        let modified = origin.path().and_then(modified);
        // Problems name a file by its whole path, as given.
        let who = origin.path().map_or_else(|| origin.name(), |path| path.display().to_string());
        match bytes.get(..4) {
            Some(b"SKL\0") => match parse_skeleton(&bytes) {
                Ok(skeleton) => {
                    self.skeleton = Some(Loaded { origin, value: skeleton, bytes, modified, error: None });
                }
                Err(error) => self.problems.push(format!("{who}: {error}")),
            },
            _ => match Animation::from_bytes(&bytes) {
                Ok(animation) => {
                    let file = Loaded { origin, value: animation, bytes, modified, error: None };
                    self.animations.push(OpenAnimation::new(file, stores));
                }
                Err(error) => self.problems.push(format!("{who}: {error}")),
            },
        }
    }

    /// Rereads every file whose modification time changed. One that no
    /// longer parses keeps its last good value, with the error beside it.
    /// Returns whether anything changed.
    pub fn reload_changed(&mut self, stores: &mut Stores) -> bool {
        // Meshes change no animation's path or findings: no refresh.
        let meshes_changed = self.reload_meshes(stores);
        let mut changed = false;
        for open in &mut self.animations {
            if let Some(bytes) = changed_bytes(&mut open.file) {
                changed = true;
                if open.dirty {
                    open.file.error = Some("changed on disk; your unsaved edits are kept (Save overwrites it)".into());
                    continue;
                }
                match Animation::from_bytes(&bytes) {
                    Ok(animation) => {
                        stores.clips.insert(&open.handle, AniClip::new(animation.clone())).ok();
                        open.file = Loaded { value: animation, bytes, error: None, ..open.file.clone() };
                        open.dirty = false;
                    }
                    Err(error) => open.file.error = Some(error.to_string()),
                }
            }
        }
        if let Some(file) = &mut self.skeleton
            && let Some(bytes) = changed_bytes(file)
        {
            changed = true;
            match parse_skeleton(&bytes) {
                Ok(skeleton) => *file = Loaded { value: skeleton, bytes, error: None, ..file.clone() },
                Err(error) => file.error = Some(error),
            }
        }
        if changed {
            self.refresh(stores);
        }
        changed || meshes_changed
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

/// Reads a texture a material script names, from where the config's
/// resource folder has it.
fn parse_skeleton(bytes: &[u8]) -> Result<Skeleton, String> {
    let skeleton = Skeleton::from_bytes(bytes).map_err(|e| e.to_string())?;
    Rig::new(&skeleton).map_err(|e| e.to_string())?;
    Ok(skeleton)
}

fn is_config(path: &Path, bytes: &[u8]) -> bool {
    let magic = matches!(bytes.get(..4), Some(b"ANI\0" | b"SKL\0"));
    !magic && path.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt"))
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The file's new bytes when its modification time changed. A file that
/// went missing is reported once and keeps its last good value.
fn changed_bytes<T>(file: &mut Loaded<T>) -> Option<Vec<u8>> {
    let path = file.origin.path()?.to_owned();
    let now = modified(&path);
    if now == file.modified {
        return None;
    }
    file.modified = now;
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            file.error = Some(format!("cannot read: {error} (showing the last version read)"));
            None
        }
    }
}

/// How often files are checked for changes.
#[derive(Resource)]
pub struct ReloadTimer(pub Timer);

impl Default for ReloadTimer {
    fn default() -> Self {
        Self(Timer::from_seconds(0.5, TimerMode::Repeating))
    }
}

/// Polls the open files' modification times.
pub fn reload_files(
    time: Res<Time<Real>>,
    mut timer: ResMut<ReloadTimer>,
    mut workspace: ResMut<Workspace>,
    mut stores: Stores,
) {
    if timer.0.tick(time.delta()).just_finished() {
        workspace.reload_changed(&mut stores);
    }
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
        let configs: Vec<_> = workspace.characters.iter().map(|p| p.file_name().unwrap().to_owned()).collect();
        assert_eq!(configs, ["biped.txt"]);
        let message = workspace.attach_mesh(Path::new("/no/such/axe.msh"), &mut stores);
        assert!(message.contains("axe.msh") && message.contains("cannot read"), "{message}");
        assert_eq!(workspace.meshes.len(), 3);
    }
}
