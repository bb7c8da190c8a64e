//! Writing an imported model's files into a resource folder whole or not
//! at all: they are written into a folder beside the output first, and
//! moved into place only when every one is written.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Files by their path under the output folder (`resource/mesh/x.msh`).
pub type Files = BTreeMap<PathBuf, Vec<u8>>;

/// Writes `files` under `out`. A file already there with the same bytes
/// is left as it is (the game's own skeleton, say); one with other bytes
/// is an error before anything is written (nothing of the game's is
/// overwritten); a failure part way leaves `out` as it was.
pub fn write_into(out: &Path, files: &Files) -> io::Result<()> {
    let mut new = Files::new();
    for (path, bytes) in files {
        let target = out.join(path);
        match std::fs::read(&target) {
            Ok(there) if there == *bytes => {}
            Ok(_) => {
                let message = format!("{} is already there", target.display());
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, message));
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                new.insert(path.clone(), bytes.clone());
            }
            Err(error) => return Err(io::Error::new(error.kind(), format!("{}: {error}", target.display()))),
        }
    }
    let stage = staging_folder(out)?;
    let written = write_all(stage.path(), &new);
    let moved = written.and_then(|()| move_into(stage.path(), out, &new));
    moved.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", out.display())))
}

/// A new empty folder beside `out` (on its file system, so that moving
/// out of it is a rename), removed when dropped.
fn staging_folder(out: &Path) -> io::Result<tempfile::TempDir> {
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)?;
    tempfile::Builder::new().prefix(".io3d-import-").tempdir_in(parent)
}

fn write_all(stage: &Path, files: &Files) -> io::Result<()> {
    for (path, bytes) in files {
        let path = stage.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(stage))?;
        let mut file = std::fs::File::create(&path)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    Ok(())
}

/// The staged files into `out`: the whole folder at once when `out` is
/// not there yet (with a folder's usual permissions: the staging folder
/// was private), else file by file, each a rename, the ones moved taken
/// back out if one fails.
fn move_into(stage: &Path, out: &Path, files: &Files) -> io::Result<()> {
    if !out.exists() {
        std::fs::rename(stage, out)?;
        return open_up(out);
    }
    let mut moved = Vec::new();
    for path in files.keys() {
        let target = out.join(path);
        let result = std::fs::create_dir_all(target.parent().unwrap_or(out))
            .and_then(|()| std::fs::rename(stage.join(path), &target));
        if let Err(error) = result {
            moved.iter().for_each(|done: &PathBuf| drop(std::fs::remove_file(done)));
            return Err(error);
        }
        moved.push(target);
    }
    Ok(())
}

/// Gives a folder (once private) the permissions new folders get.
#[cfg(unix)]
fn open_up(folder: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn open_up(_: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Files {
        [("resource/mesh/box.msh", b"MSH\0".to_vec()), ("resource/model/staticmodel/box.txt", b"#MODEL_CFG".to_vec())]
            .into_iter()
            .map(|(path, bytes)| (PathBuf::from(path), bytes))
            .collect()
    }

    #[test]
    fn a_new_folder_appears_whole_and_nothing_is_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("mod");
        write_into(&out, &files()).unwrap();
        assert_eq!(std::fs::read(out.join("resource/mesh/box.msh")).unwrap(), b"MSH\0");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers, ["mod"], "no staging folder is left");
        // Into a folder that is there: a file that exists stops it all.
        std::fs::write(out.join("resource/mesh/box.msh"), b"theirs").unwrap();
        std::fs::remove_file(out.join("resource/model/staticmodel/box.txt")).unwrap();
        let error = write_into(&out, &files()).unwrap_err();
        assert!(error.to_string().contains("box.msh is already there"), "{error}");
        assert_eq!(std::fs::read(out.join("resource/mesh/box.msh")).unwrap(), b"theirs");
        assert!(!out.join("resource/model/staticmodel/box.txt").exists());
        // The same bytes there already: left as they are.
        std::fs::write(out.join("resource/mesh/box.msh"), b"MSH\0").unwrap();
        write_into(&out, &files()).unwrap();
        assert!(out.join("resource/model/staticmodel/box.txt").exists());
    }
}
