//! Where the viewer's saves go (an edited `.ani`, a glTF export, a
//! screenshot): on the desktop a file written whole or not at all
//! ([`crate::file::write_atomic`]); in a browser, which has no disk to
//! write, a download of the file's name.

use std::io;
use std::path::Path;

/// Saves `bytes` as `path`: written there, or downloaded as its name.
pub fn save(path: &Path, bytes: &[u8]) -> io::Result<()> {
    #[cfg(not(target_arch = "wasm32"))]
    return crate::file::write_atomic(path, bytes);
    #[cfg(target_arch = "wasm32")]
    return super::web::download(path, bytes);
}

/// Seconds since 1970, for names that do not repeat (the standard clock
/// panics in a browser).
pub fn seconds_now() -> u64 {
    #[cfg(not(target_arch = "wasm32"))]
    return std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    #[cfg(target_arch = "wasm32")]
    return (js_sys::Date::now() / 1000.0) as u64;
}
