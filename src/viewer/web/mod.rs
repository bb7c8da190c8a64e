//! The viewer in a browser page (`wasm32`, WebGL2): the same app as on
//! the desktop, with the page's glue around it (`web/index.html`).
//!
//! - Files come from the page: what is dropped or picked is indexed by
//!   name ([`FileIndex`]), and a file is read only when the viewer reads
//!   it (an open that reads one not read yet runs again once it is:
//!   [`super::requests::Retries`]). Files named in the address
//!   (`?file=`) and those the client's layout finds from them are fetched
//!   from the page's server.
//! - Saves become downloads ([`super::output`]).
//! - The address's parameters mirror the desktop's flags: `file`
//!   (repeatable), `at_ms`, `look`, `panels`, `names`, `select`,
//!   `frame_times`.
//! - `document.body.dataset.io3d` says where the page stands: `loading`,
//!   `ready` once the first frame of what was opened is drawn, or `error`
//!   (a file named in the address did not open, or the viewer panicked)
//!   with the message shown over the canvas. Beside it, what the panels
//!   show, for scripts and tests (egui draws its text into the canvas):
//!   `io3dClip` (the current clip's name), `io3dLengthMs`, `io3dTimeMs`,
//!   `io3dMeshes` (the meshes drawn), `io3dImported` (the glTF model
//!   opened as the game's files, to save as a `.zip`), `io3dFindings`
//!   (the meshes' findings, a line each), `io3dProblems` (what could
//!   not be opened, a line each), `io3dNotes` (what opening said of files
//!   that opened: a glTF import's warnings), `io3dFrameMs` (with `frame_times`, the
//!   mean frame time measured); while loading, `io3dWaiting` says what
//!   for.
//!
//! There is no file watching: a page cannot see a file change.

mod page;

use std::path::{Path, PathBuf};

use bevy::app::{App, AppExit, Plugin, Update};
use bevy::ecs::prelude::*;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::capture::{Picture, add_pipeline_watch};
use super::frames::FrameTimes;
use super::requests::{FileRequest, Retries};
use super::stage::ViewedRig;
use super::view::Look;
use super::workspace::{Files, Workspace};
use super::{ViewerOptions, ViewerSystems};
use crate::plugin::AniPlayback;
use crate::resource::{EntryKind, FileIndex, FileSource, ResourceFolder, ResourceKind};

pub use page::io3d_dropped;

/// Frames in a row with the picture complete before the page says
/// `ready`, as a capture waits.
const SETTLED_FRAMES: u32 = 8;

/// The folder the files handed over by the page are indexed under, apart
/// from the paths of the page's server.
const HANDED: &str = "dropped";

/// Runs the viewer in the page, with what its address asks for.
pub fn run() -> AppExit {
    page::set_state("loading");
    let index = FileIndex::served();
    let options = options_from_address(index.clone());
    let mut app = super::app(options);
    app.add_plugins(WebPlugin { index });
    show_panics();
    app.run()
}

/// The options the page's address gives (`?file=a.ani&at_ms=250`): those
/// it cannot read are said in the console and left at their defaults.
fn options_from_address(index: FileIndex) -> ViewerOptions {
    let query = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    let params = web_sys::UrlSearchParams::new_with_str(&query).ok();
    let get = |name: &str| params.as_ref().and_then(|p| p.get(name));
    let files =
        params.as_ref().map(|p| p.get_all("file")).map(|all| all.iter().filter_map(|v| v.as_string()).collect());
    let files: Vec<String> = files.unwrap_or_default();
    let at_ms = get("at_ms").and_then(|v| v.parse().ok().or_else(|| said_wrong("at_ms", &v)));
    let look = get("look")
        .and_then(|v| <Look as clap::ValueEnum>::from_str(&v, true).ok().or_else(|| said_wrong("look", &v)))
        .unwrap_or_default();
    let panels = get("panels").and_then(|v| match v.as_str() {
        "all" => Some(true),
        "none" => Some(false),
        _ => said_wrong("panels", &v),
    });
    ViewerOptions {
        files: files.iter().map(|f| PathBuf::from(f.trim_start_matches('/'))).collect(),
        at_ms,
        look,
        hide_panels: panels == Some(false),
        names: get("names").is_some(),
        frame_times: get("frame_times").and_then(|v| v.parse().ok().or_else(|| said_wrong("frame_times", &v))),
        select: get("select"),
        source: Files::new(index),
        ..ViewerOptions::default()
    }
}

fn said_wrong<T>(name: &str, value: &str) -> Option<T> {
    bevy::log::warn!("the address's '{name}={value}' is not understood; ignored");
    None
}

/// Shows a panic over the canvas, after Bevy's hook has written it to the
/// console.
fn show_panics() {
    let console = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        console(info);
        page::fail(&format!("The viewer stopped: {info}"));
    }));
}

/// The page's side: files handed over, files read when wanted, where the
/// page stands.
struct WebPlugin {
    index: FileIndex,
}

/// The files the page handed over or fetched, shared with the workspace.
#[derive(Resource, Clone)]
struct PageFiles(FileIndex);

impl Plugin for WebPlugin {
    fn build(&self, app: &mut App) {
        add_pipeline_watch(app);
        app.insert_resource(PageFiles(self.index.clone())).add_systems(
            Update,
            (take_handed, read_wanted, report_state, show_facts).chain().after(ViewerSystems::Workspace),
        );
    }
}

/// Turns what the page handed over into requests: files open, a folder
/// lists its resource folder's files and opens its first model config, a
/// menu's pick goes where the menu asked.
fn take_handed(files: Res<PageFiles>, mut requests: MessageWriter<FileRequest>) {
    for handed in page::take_handed() {
        for file in &handed.files {
            files.0.add_name(&Path::new(HANDED).join(file));
        }
        let tops: Vec<PathBuf> = handed.tops.iter().map(|top| Path::new(HANDED).join(top)).collect();
        let first = tops.first().cloned();
        match (handed.purpose.as_str(), first) {
            ("attach", _) => {
                requests.write_batch(tops.into_iter().map(FileRequest::AttachMesh));
            }
            ("bone-map", Some(path)) => {
                requests.write(FileRequest::Retarget(path));
            }
            ("import-gltf", Some(path)) => {
                requests.write(FileRequest::ImportGltf(path));
            }
            _ => open_handed(&files.0, tops, &mut requests),
        }
    }
}

fn open_handed(index: &FileIndex, tops: Vec<PathBuf>, requests: &mut MessageWriter<FileRequest>) {
    let (folders, opened): (Vec<PathBuf>, Vec<PathBuf>) =
        tops.into_iter().partition(|top| index.entry(top) == Some(EntryKind::Folder));
    for folder in folders {
        let found = ResourceFolder::around(index, &folder)
            .or_else(|| ResourceFolder::all_under(index, &folder).into_iter().next());
        let Some(resource) = found else {
            requests.write(FileRequest::OpenFolder(folder));
            continue;
        };
        let is_txt = |p: &PathBuf| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt"));
        let config = resource.files(index, ResourceKind::Model).into_iter().find(is_txt);
        requests.write(FileRequest::OpenFolder(resource.root));
        requests.write_batch(config.map(|config| FileRequest::Open(vec![config])));
    }
    if !opened.is_empty() {
        requests.write(FileRequest::Open(opened));
    }
}

/// Starts reading each file the viewer wanted and the page has not read.
fn read_wanted(files: Res<PageFiles>) {
    for path in files.0.take_wanted() {
        let index = files.0.clone();
        let read = match path.strip_prefix(HANDED) {
            Ok(handed) => page::read_handed(&handed.to_string_lossy()),
            Err(_) => page::fetch_served(&path.to_string_lossy()),
        };
        wasm_bindgen_futures::spawn_local(async move {
            match JsFuture::from(read).await {
                Ok(bytes) => index.arrive(&path, js_sys::Uint8Array::new(&bytes).to_vec()),
                Err(error) => {
                    let field = |key: &str| js_sys::Reflect::get(&error, &JsValue::from_str(key)).ok();
                    let message = field("message").and_then(|m| m.as_string()).unwrap_or_else(|| format!("{error:?}"));
                    match field("status").and_then(|s| s.as_f64()) {
                        Some(404.0) => index.missing(&path, message),
                        _ => index.fail(&path, message),
                    }
                }
            }
        });
    }
}

/// Where the page stands, said once: `ready` once the picture of what was
/// opened is complete for a few frames, `error` when a file the address
/// named did not open.
fn report_state(
    picture: Picture,
    workspace: Res<Workspace>,
    retries: Res<Retries>,
    mut said: Local<bool>,
    mut settled: Local<u32>,
) {
    if *said {
        return;
    }
    if !retries.is_empty() || workspace.source.is_waiting() {
        *settled = 0;
        return;
    }
    if !workspace.problems.is_empty() {
        page::fail(&workspace.problems.join("\n"));
        *said = true;
        return;
    }
    let waiting = picture.waiting_for();
    *settled = if waiting.is_empty() { *settled + 1 } else { 0 };
    if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
        body.dataset().set("io3dWaiting", &waiting.join("; ")).ok();
    }
    if *settled >= SETTLED_FRAMES {
        page::set_state("ready");
        *said = true;
    }
}

/// Opens the page's file picker (a folder's, with `folder`); the files
/// picked come back for `purpose` (`open`, `attach`, `bone-map`,
/// `import-gltf`).
pub fn pick(purpose: &str, folder: bool) {
    page::pick(purpose, folder);
}

/// Writes what the panels show into the page's dataset, where it changed.
fn show_facts(
    workspace: Res<Workspace>,
    frames: Option<Res<FrameTimes>>,
    players: Query<&AniPlayback, With<ViewedRig>>,
    mut shown: Local<Option<Vec<String>>>,
) {
    let current = workspace.current();
    let time = players.iter().next().map_or(0.0, |p| p.time_ms());
    let findings = workspace.meshes.iter().flat_map(|m| m.findings.iter().map(move |f| format!("{}: {f}", m.name)));
    let facts = [
        ("io3dClip", current.map(|c| c.file.origin.name()).unwrap_or_default()),
        ("io3dLengthMs", current.map(|c| c.file.value.total_ms.to_string()).unwrap_or_default()),
        ("io3dTimeMs", format!("{}", time.round())),
        ("io3dMeshes", workspace.meshes.len().to_string()),
        ("io3dImported", workspace.imported.as_ref().map(|(name, _)| name.clone()).unwrap_or_default()),
        ("io3dFindings", findings.collect::<Vec<_>>().join("\n")),
        ("io3dProblems", workspace.problems.join("\n")),
        ("io3dNotes", workspace.notes.join("\n")),
        ("io3dFrameMs", frames.and_then(|f| f.mean_ms).map(|ms| format!("{ms:.1}")).unwrap_or_default()),
    ];
    let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) else { return };
    // Every key is written the first time, empty or not.
    let shown = shown.get_or_insert_with(|| vec!["\u{0}".into(); facts.len()]);
    for ((key, value), was) in facts.into_iter().zip(shown.iter_mut()) {
        if *was != value {
            body.dataset().set(key, &value).ok();
            *was = value;
        }
    }
}

/// Offers bytes saved as `path` as a download of its file name.
pub fn download(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map_or_else(|| "io3d-file".into(), |n| n.to_string_lossy().into_owned());
    let mime = match path.extension().and_then(|e| e.to_str()) {
        Some("png") => "image/png",
        Some("glb") => "model/gltf-binary",
        Some("zip") => "application/zip",
        _ => "application/octet-stream",
    };
    page::download(&name, bytes, mime);
    Ok(())
}
