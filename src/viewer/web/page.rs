//! The page's side of the bridge: the functions its script gives the
//! viewer (`window.io3d`, in `web/index.html`) and the ones the viewer
//! gives the script, which queue what the page hands over for the app to
//! take in its next frame.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// Reads a file the page was handed (by its path as handed): resolves
    /// to its bytes, rejects with `{ status, message }`.
    #[wasm_bindgen(js_namespace = io3d, js_name = readHanded)]
    pub fn read_handed(path: &str) -> js_sys::Promise;

    /// Fetches a file from the page's server (relative to the page):
    /// resolves to its bytes, rejects with `{ status, message }`.
    #[wasm_bindgen(js_namespace = io3d, js_name = fetchServed)]
    pub fn fetch_served(path: &str) -> js_sys::Promise;

    /// Offers bytes as a download named `name`.
    #[wasm_bindgen(js_namespace = io3d)]
    pub fn download(name: &str, bytes: &[u8], mime: &str);

    /// Opens the page's file picker: `files` or `folder`, the picked files
    /// handed back through [`io3d_dropped`] with `purpose`.
    #[wasm_bindgen(js_namespace = io3d)]
    pub fn pick(purpose: &str, folder: bool);

    /// Shows an error over the canvas and marks the page as failed.
    #[wasm_bindgen(js_namespace = io3d)]
    pub fn fail(message: &str);

    /// Says where the page stands (`document.body.dataset.io3d`).
    #[wasm_bindgen(js_namespace = io3d, js_name = setState)]
    pub fn set_state(state: &str);
}

/// What the page handed over since the last frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handed {
    /// Every file, by its path relative to what was dropped or picked.
    pub files: Vec<String>,
    /// What was dropped or picked itself: files, and folders holding the
    /// rest.
    pub tops: Vec<String>,
    /// What they are for: `open`, or a menu's pick (`attach`, `bone-map`,
    /// `import-gltf`).
    pub purpose: String,
}

thread_local! {
    static HANDED: RefCell<Vec<Handed>> = const { RefCell::new(Vec::new()) };
}

/// Takes what the page handed over since the last call.
pub fn take_handed() -> Vec<Handed> {
    HANDED.with(|queue| std::mem::take(&mut *queue.borrow_mut()))
}

/// Called by the page when files are dropped or picked: `files` are the
/// paths of every file (relative, `/` between folders), `tops` what was
/// dropped or picked itself. The page keeps the files and reads one when
/// the viewer asks for it ([`read_handed`]).
#[wasm_bindgen]
pub fn io3d_dropped(files: Vec<String>, tops: Vec<String>, purpose: String) {
    HANDED.with(|queue| queue.borrow_mut().push(Handed { files, tops, purpose }));
}
