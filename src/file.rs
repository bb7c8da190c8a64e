//! Saving without ever leaving a half-written file behind.

use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// renamed over `path` only once complete: what was on disk survives any
/// failure on the way. A file marked read-only is refused, not replaced
/// (a rename would replace it whatever its permissions, and root may
/// write anything).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".io3d-").suffix(".tmp");
    // Keep the permissions of the file replaced; a new one gets the usual
    // rw-r--r-- rather than the temporary file's private rw-------.
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.permissions().readonly() => {
            return Err(io::Error::new(io::ErrorKind::PermissionDenied, "the file is read-only; it is left as it was"));
        }
        Ok(meta) => {
            builder.permissions(meta.permissions());
        }
        Err(_) => new_file_permissions(&mut builder),
    }
    let mut tmp = builder.tempfile_in(dir).map_err(without_temporary_path)?;
    tmp.write_all(bytes).map_err(without_temporary_path)?;
    tmp.as_file().sync_all().map_err(without_temporary_path)?;
    tmp.persist(path).map_err(|e| without_temporary_path(e.error))?;
    Ok(())
}

/// The error without the temporary file's name that `tempfile` appends
/// (`... at path "/x/.io3d-Ab12.tmp"`): the caller names the file being
/// saved, and the temporary one is gone.
fn without_temporary_path(error: io::Error) -> io::Error {
    let text = error.to_string();
    match text.rsplit_once(" at path \"") {
        Some((cause, _)) if error.get_ref().is_some() => io::Error::new(error.kind(), cause.to_owned()),
        _ => error,
    }
}

/// Gives a temporary file the permissions of a new file (rw-r--r--), not
/// the private rw------- it is made with, for files renamed into place.
#[cfg(unix)]
fn new_file_permissions(builder: &mut tempfile::Builder) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(std::fs::Permissions::from_mode(0o644));
}

/// Elsewhere a temporary file already has a new file's permissions.
#[cfg(not(unix))]
fn new_file_permissions(_: &mut tempfile::Builder) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ani");
        std::fs::write(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_save_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no such folder").join("a.ani");
        assert!(write_atomic(&missing, b"new").is_err());
        let locked = dir.path().join("locked.ani");
        std::fs::write(&locked, b"old").unwrap();
        let mut permissions = std::fs::metadata(&locked).unwrap().permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&locked, permissions).unwrap();
        let error = write_atomic(&locked, b"new").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(std::fs::read(&locked).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }
}
