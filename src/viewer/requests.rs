//! What the panels ask of the workspace, as messages: the panels draw and
//! ask, and [`handle_file_requests`] does the file work (reading, saving)
//! outside them, one frame later at most, writing what happened to the
//! status line.

use std::path::{Path, PathBuf};

use bevy::app::AppExit;
use bevy::ecs::prelude::*;

use super::view::StatusLine;
use super::workspace::{Shown, Stores, Workspace};
use crate::anim::{self, BoneMap};
use crate::format::{AniVersion, Animation, Collision, Skeleton};
use crate::gltf::{self, ExportOptions, ModelParts};
use crate::resource::MeshFiles;

/// A request that reads or writes files.
#[derive(Message, Debug, Clone, PartialEq)]
pub enum FileRequest {
    /// Open files: `.ani`, `.skl`, model configs, glTF (imported).
    Open(Vec<PathBuf>),
    /// List the characters of a resource folder.
    OpenFolder(PathBuf),
    /// Put a `.msh` on the character.
    AttachMesh(PathBuf),
    /// Save the current animation, in a version.
    Save(PathBuf, AniVersion),
    /// Rename the current animation's tracks through a bone map file and
    /// open the result.
    Retarget(PathBuf),
    /// Save every edited file that has a path, and quit if all saved.
    SaveAllAndQuit,
    /// Write what is shown as a binary glTF: the skeleton, the meshes and
    /// every open animation, or a static model's meshes; and the collision
    /// meshes shown.
    ExportGltf(PathBuf),
    /// Save the game's files made of the glTF model opened last as one
    /// `.zip` (what `io3d import --model OUT.zip` writes).
    SaveImported(PathBuf),
    /// Import every animation of a glTF onto the skeleton and play the
    /// first.
    ImportGltf(PathBuf),
}

impl FileRequest {
    /// Whether it only writes: anything else reads files, and runs again
    /// when it read one the source had not read yet.
    fn only_writes(&self) -> bool {
        matches!(self, Self::Save(..) | Self::SaveAllAndQuit | Self::ExportGltf(_) | Self::SaveImported(_))
    }
}

/// Requests that read a file before its bytes arrived (a browser reads a
/// file only when it is wanted): each runs again, whole, once the source
/// waits for nothing. What they opened and said the first time is taken
/// back ([`Workspace::take_back`]), so each file opens once.
#[derive(Resource, Debug, Default)]
pub struct Retries(Vec<FileRequest>);

impl Retries {
    /// Whether no request waits to run again.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Runs `request` again when the source waits for nothing.
    pub fn push(&mut self, request: FileRequest) {
        if !self.0.contains(&request) {
            self.0.push(request);
        }
    }
}

/// Sends the waiting requests again once their files arrived.
pub fn retry_when_read(
    mut retries: ResMut<Retries>,
    workspace: Res<Workspace>,
    mut requests: MessageWriter<FileRequest>,
) {
    if !retries.0.is_empty() && !workspace.source.is_waiting() {
        requests.write_batch(std::mem::take(&mut retries.0));
    }
}

/// What the status line says while a request waits for its files.
const READING: &str = "reading files…";

/// Save the window to a PNG.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScreenshotRequest;

/// Carries out the file requests of the frame.
pub fn handle_file_requests(
    mut requests: MessageReader<FileRequest>,
    mut workspace: ResMut<Workspace>,
    mut stores: Stores,
    mut status: ResMut<StatusLine>,
    mut exit: MessageWriter<AppExit>,
    mut retries: ResMut<Retries>,
) {
    for request in requests.read() {
        let mark = workspace.mark();
        let outcome = match request {
            FileRequest::Open(paths) => {
                workspace.open(paths, &mut stores);
                None
            }
            FileRequest::OpenFolder(path) => {
                workspace.open_folder(path);
                None
            }
            FileRequest::AttachMesh(path) => Some(workspace.attach_mesh(path, &mut stores)),
            FileRequest::Save(path, version) => Some(save(&mut workspace, &mut stores, path, *version)),
            FileRequest::Retarget(path) => Some(retarget(&mut workspace, &mut stores, path)),
            FileRequest::ExportGltf(path) => Some(export_gltf(&workspace, path)),
            FileRequest::SaveImported(path) => Some(save_imported(&workspace, path)),
            FileRequest::ImportGltf(path) => Some(workspace.import_gltf(path, &mut stores).join("\n")),
            FileRequest::SaveAllAndQuit => {
                let problems = save_all(&mut workspace, &mut stores);
                if problems.is_empty() {
                    exit.write(AppExit::Success);
                }
                Some(problems.join("\n")).filter(|p| !p.is_empty())
            }
        };
        if !request.only_writes() && workspace.source.is_waiting() {
            workspace.take_back(mark, &mut stores);
            retries.push(request.clone());
            status.0 = Some(READING.into());
        } else if outcome.is_some() || status.0.as_deref() == Some(READING) {
            status.0 = outcome;
        }
    }
}

/// Saves the current animation to `path`; says how it went.
fn save(workspace: &mut Workspace, stores: &mut Stores, path: &std::path::Path, version: AniVersion) -> String {
    let skeleton = workspace.given_skeleton().cloned();
    let current = workspace.current;
    let Some(open) = workspace.animations.get_mut(current) else { return "no animation is open".into() };
    match open.save_as(path, version, stores, skeleton.as_ref()) {
        Ok(()) => format!("saved {}", path.display()),
        Err(error) => error,
    }
}

/// Renames the current animation's tracks through the map at `path` and
/// opens the result.
fn retarget(workspace: &mut Workspace, stores: &mut Stores, path: &std::path::Path) -> String {
    let map = match (workspace.source.read(path))
        .map_err(|e| e.to_string())
        .and_then(|bytes| String::from_utf8(bytes).map_err(|e| e.to_string()))
        .and_then(|t| BoneMap::parse(&t).map_err(|e| e.to_string()))
    {
        Ok(map) => map,
        Err(error) => return format!("{}: {error}", path.display()),
    };
    let Some(current) = workspace.current() else { return "no animation is open".into() };
    let (renamed, dropped) = anim::retarget::rename(&current.file.value, &map);
    let name = format!("{} retargeted", current.file.origin.name());
    workspace.add_new(name, renamed, stores);
    if dropped.is_empty() {
        "retargeted: every track mapped".into()
    } else {
        format!("dropped {} unmapped tracks: {}", dropped.len(), dropped.join(", "))
    }
}

/// Writes what is shown to a `.glb`: the rig, meshes and open animations,
/// or a static model (meshes, no skeleton), with the collision meshes
/// shown; says how it went.
fn export_gltf(workspace: &Workspace, path: &Path) -> String {
    let animations: Vec<(String, &Animation)> = (workspace.animations.iter())
        .map(|a| (a.file.origin.name().trim_end_matches(".ani").to_owned(), &a.file.value))
        .collect();
    let meshes: Vec<MeshFiles> = workspace.meshes.iter().map(|m| m.source.clone()).collect();
    let collisions = shown_collisions(workspace);
    let skeleton = workspace.shown_skeleton();
    if skeleton.is_none() && meshes.is_empty() && collisions.is_empty() {
        return "nothing to export: open a character, a static model or a skeleton".into();
    }
    let parts = ModelParts { skeleton, meshes: &meshes, animations: &animations, collisions: &collisions };
    let exported = match gltf::export_model(parts, ExportOptions::default()) {
        Ok(exported) => exported,
        Err(error) => return error.to_string(),
    };
    if let Err(error) = super::output::save(path, &exported.bytes) {
        return format!("{}: cannot write: {error}", path.display());
    }
    let (meshes, collisions) = (meshes.len(), collisions.len());
    let mut status = format!(
        "exported {meshes} meshes, {collisions} collision meshes and {} animations to {}",
        animations.len(),
        path.display()
    );
    for warning in exported.warnings {
        status.push_str(&format!("\n{warning}"));
    }
    status
}

/// Saves the files of the glTF model opened last as one `.zip`; says how
/// it went.
fn save_imported(workspace: &Workspace, path: &Path) -> String {
    let Some((_, model)) = &workspace.imported else { return "no glTF model is open".into() };
    let saved = model.zip().and_then(|bytes| super::output::save(path, &bytes));
    match saved {
        Ok(()) => format!("saved {} files of the game's to {}", model.files.len(), path.display()),
        Err(error) => format!("{}: cannot write: {error}", path.display()),
    }
}

/// The collision meshes on the stage, named after their files' stems; a
/// file opened twice is written once, as last opened.
fn shown_collisions(workspace: &Workspace) -> Vec<(String, &Collision)> {
    let mut collisions: Vec<(String, &Collision)> = Vec::new();
    for preview in &workspace.previews {
        let Some(Shown::Collision(collision)) = &preview.shown else { continue };
        let name = Path::new(&preview.name).file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        collisions.retain(|(other, _)| *other != name);
        collisions.push((name, collision));
    }
    collisions
}

/// Saves every edited file that has a path; returns what could not be
/// saved.
fn save_all(workspace: &mut Workspace, stores: &mut Stores) -> Vec<String> {
    let skeleton: Option<Skeleton> = workspace.given_skeleton().cloned();
    let mut problems = Vec::new();
    for open in workspace.animations.iter_mut().filter(|a| a.dirty) {
        match open.file.origin.path().map(|p| p.to_owned()) {
            Some(path) => {
                let version = open.file.value.version;
                if let Err(error) = open.save_as(&path, version, stores, skeleton.as_ref()) {
                    problems.push(error);
                }
            }
            None => problems.push(format!("{} has no file yet: use Save as", open.file.origin.name())),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::SystemState;

    use super::*;
    use crate::viewer::workspace::tests::stores_world;

    #[test]
    fn the_bundled_character_exports_and_its_clips_come_back_playing() {
        let mut world = stores_world();
        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        let mut workspace = Workspace::default();
        workspace.open_bundled(&mut stores);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("biped.glb");
        let status = export_gltf(&workspace, &path);
        let written = "exported 2 meshes, 0 collision meshes and 3 animations";
        assert_eq!(status, format!("{written} to {}", path.display()));
        let first = workspace.animations.len();
        let status = workspace.import_gltf(&path, &mut stores).join("\n");
        assert_eq!(workspace.animations.len(), first + 3, "{status}");
        assert_eq!(workspace.current, first, "the first imported clip is the one playing");
        let (source, imported) = (&workspace.animations[0].file.value, &workspace.current().unwrap().file.value);
        assert_eq!((imported.key_count(), imported.total_ms), (source.key_count(), source.total_ms));
        assert!(workspace.current().unwrap().dirty, "new, not saved yet");
        // Opening the file (from the command line, or dropped on the
        // window) imports it too.
        workspace.open(&[path], &mut stores);
        assert_eq!(workspace.animations.len(), first + 6, "{:?}", workspace.problems);
    }

    #[test]
    fn a_static_model_exports_its_meshes_and_its_collision() {
        let mut world = stores_world();
        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        let mut workspace = Workspace::default();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stage.glb");
        assert!(export_gltf(&workspace, &path).starts_with("nothing to export"));
        // Opened twice: its collision mesh shows twice, and goes out once.
        let stage = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource/model/staticmodel/stage.txt");
        workspace.open(&[stage.clone(), stage], &mut stores);
        assert!(workspace.problems.is_empty() && workspace.shown_skeleton().is_none(), "{:?}", workspace.problems);
        let status = export_gltf(&workspace, &path);
        let written = "exported 1 meshes, 1 collision meshes and 0 animations";
        assert_eq!(status, format!("{written} to {}", path.display()));
        let file = gltf::GltfDocument::open(&path).unwrap();
        let names: Vec<&str> = file.document.nodes().filter_map(|n| n.name()).collect();
        assert_eq!(names, ["stage", "stage_collision"]);
        assert_eq!(file.document.skins().len(), 0);
        // An animation with no skeleton to guess from cannot go out.
        workspace.add_new("still".into(), Animation::new(AniVersion::V4002, 100), &mut stores);
        assert_eq!(export_gltf(&workspace, &path), "no skeleton, but 1 animations need one");
    }

    /// A character opened from files known by name only (a browser's): the
    /// open waits for the files it reads, runs again when they arrive, and
    /// ends as the same open from disk does, each file once, having read
    /// only the files the character needs.
    #[test]
    fn an_open_that_reads_files_not_read_yet_runs_again_once_they_are() {
        use bevy::ecs::schedule::Schedule;

        use crate::resource::{FileIndex, FileSource};
        use crate::viewer::workspace::Files;

        let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let index = FileIndex::new();
        let mut stack = vec![assets.join("resource")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                match path.is_dir() {
                    true => stack.push(path),
                    false => index.add_name(path.strip_prefix(&assets).unwrap()),
                }
            }
        }
        let mut world = stores_world();
        world.insert_resource(Workspace { source: Files::new(index.clone()), ..Workspace::default() });
        world.init_resource::<StatusLine>();
        world.init_resource::<Retries>();
        world.init_resource::<bevy::ecs::message::Messages<FileRequest>>();
        world.init_resource::<bevy::ecs::message::Messages<AppExit>>();
        world.write_message(FileRequest::Open(vec!["resource/model/animodel/biped.txt".into()]));
        let mut schedule = Schedule::default();
        schedule.add_systems((retry_when_read, handle_file_requests).chain());
        let mut read = Vec::new();
        for _ in 0..10 {
            schedule.run(&mut world);
            let wanted = index.take_wanted();
            if wanted.is_empty() {
                break;
            }
            for path in wanted {
                index.arrive(&path, std::fs::read(assets.join(&path)).unwrap());
                read.push(path);
            }
        }
        assert!(world.resource::<Retries>().is_empty() && !index.is_waiting(), "every file arrived");
        assert!(read.len() > 1, "the open waited for its files: {read:?}");
        assert!(read.iter().all(|p| !p.to_string_lossy().contains("stage")), "read what it needed: {read:?}");

        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        let mut disk = Workspace::default();
        disk.open(&[assets.join("resource/model/animodel/biped.txt")], &mut stores);
        let workspace = world.resource::<Workspace>();
        let names = |w: &Workspace| -> (Vec<String>, Vec<String>, usize) {
            let clips = w.animations.iter().map(|a| a.file.origin.name()).collect();
            (clips, w.meshes.iter().map(|m| m.name.clone()).collect(), w.previews.len())
        };
        assert_eq!(names(workspace), names(&disk));
        assert!(workspace.problems.is_empty() && workspace.skeleton.is_some(), "{:?}", workspace.problems);
        let findings = |w: &Workspace| w.meshes.iter().map(|m| m.findings.clone()).collect::<Vec<_>>();
        assert_eq!(findings(workspace), findings(&disk), "textures found and read alike");
        assert_eq!(
            index.read(Path::new("resource/mesh/stage.msh")).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock
        );
    }

    /// An `.ani` with an `.ant` sidecar beside it (named in another case,
    /// as the client finds it) plays the sidecar's events, as the game
    /// does, while the file keeps its own.
    #[test]
    fn an_animation_plays_the_events_of_its_sidecar() {
        use crate::format::{Event, ant};

        let mut world = stores_world();
        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        let dir = tempfile::tempdir().unwrap();
        let walk = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource/animation/biped_walk_4002.ani");
        let path = dir.path().join("walk.ani");
        std::fs::copy(&walk, &path).unwrap();
        let swing = Event { kind: "motion_sound".into(), sub_info: "swing".into(), time_ms: 120.0 };
        std::fs::write(dir.path().join("WALK.ant"), ant::write(std::slice::from_ref(&swing), 4002).unwrap()).unwrap();
        let mut workspace = Workspace::default();
        workspace.open(&[path], &mut stores);
        let open = workspace.current().expect("the walk is open");
        assert_eq!(open.file.value.events.len(), 2, "the file keeps its own");
        assert_eq!(open.events_played(), std::slice::from_ref(&swing));
        let played = stores.clips.get(&open.handle).expect("the clip the rig plays");
        assert_eq!(played.events(), [swing]);
    }

    /// A glTF model opened shows as the game's files; File > Save imported
    /// model writes them as the `.zip` the command line writes.
    #[test]
    fn an_imported_model_saves_as_one_zip() {
        use crate::gltf::{ExportOptions, GltfDocument, ModelOptions, import_model};

        let mut world = stores_world();
        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        let mut workspace = Workspace::default();
        let dir = tempfile::tempdir().unwrap();
        let zip = dir.path().join("biped.zip");
        assert_eq!(save_imported(&workspace, &zip), "no glTF model is open");
        workspace.open_bundled(&mut stores);
        let glb = dir.path().join("biped.glb");
        export_gltf(&workspace, &glb);
        let mut fresh = Workspace::default();
        fresh.open(std::slice::from_ref(&glb), &mut stores);
        assert_eq!(fresh.imported.as_ref().map(|(name, _)| name.as_str()), Some("biped"));
        let status = save_imported(&fresh, &zip);
        let model = fresh.imported.as_ref().unwrap().1.clone();
        assert_eq!(status, format!("saved {} files of the game's to {}", model.files.len(), zip.display()));
        let options =
            ModelOptions { name: "biped".into(), skeleton: None, map: None, scale: ExportOptions::default().scale };
        let again = import_model(&GltfDocument::open(&glb).unwrap(), &options).unwrap();
        assert_eq!(std::fs::read(&zip).unwrap(), again.zip().unwrap(), "what io3d import --model writes");
    }
}
