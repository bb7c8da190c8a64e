//! An imported model's files as one `.zip`: what a browser downloads
//! (it has no folder to write into) and `io3d import --model out.zip`
//! writes. The same files give the same bytes (every entry dated
//! 1980-01-01, in path order), so a download can be checked against the
//! command line's.

use std::io::{self, Cursor, Write};
use std::path::Path;

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use super::folder::Files;

/// The files, each under its path (with `/` between folders, as zip
/// wants on every system), deflated.
pub fn zip(files: &Files) -> io::Result<Vec<u8>> {
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default())
        .unix_permissions(0o644);
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (path, bytes) in files {
        writer.start_file(entry_name(path)?, options).map_err(io::Error::other)?;
        writer.write_all(bytes)?;
    }
    Ok(writer.finish().map_err(io::Error::other)?.into_inner())
}

/// `resource/mesh/x.msh` whatever the system's separator; a path that is
/// not plain relative names is refused (an import makes none).
fn entry_name(path: &Path) -> io::Result<String> {
    let mut parts = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::Normal(name) => parts.push(name.to_string_lossy()),
            _ => return Err(io::Error::other(format!("{}: not a path inside the model's folder", path.display()))),
        }
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::path::PathBuf;

    fn files() -> Files {
        [
            ("resource/mesh/box.msh", b"MSH\0".repeat(100)),
            ("resource/model/staticmodel/box.txt", b"#MODEL_CFG".to_vec()),
        ]
        .into_iter()
        .map(|(path, bytes)| (PathBuf::from(path), bytes))
        .collect()
    }

    #[test]
    fn the_zip_holds_each_file_under_its_path_and_repeats_byte_for_byte() {
        let bytes = zip(&files()).unwrap();
        assert_eq!(bytes, zip(&files()).unwrap(), "the same files, the same bytes");
        let mut archive = zip::ZipArchive::new(Cursor::new(&bytes)).unwrap();
        assert_eq!(archive.len(), 2);
        for (path, want) in files() {
            let mut entry = archive.by_name(path.to_str().unwrap()).unwrap();
            let mut got = Vec::new();
            entry.read_to_end(&mut got).unwrap();
            assert_eq!(got, want, "{}", path.display());
        }
        assert!(bytes.len() < 400 + 100, "the repeated mesh is deflated: {} bytes", bytes.len());
    }

    #[test]
    fn a_path_leaving_the_folder_is_refused() {
        let mut files = files();
        files.insert(PathBuf::from("../outside.txt"), Vec::new());
        let error = zip(&files).unwrap_err();
        assert!(error.to_string().contains("../outside.txt: not a path inside"), "{error}");
    }
}
