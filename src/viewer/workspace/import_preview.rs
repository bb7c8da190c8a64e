//! A glTF character or prop opened as what `io3d import --model` would
//! write: the files are made into a folder of their own (kept while the
//! viewer runs), opened as any model config is, and linted as `io3d check`
//! lints them.

use super::*;
use crate::check::{Severity, check_file};
use crate::gltf::{ExportOptions, ImportedModel, ModelOptions, import_model};

impl Workspace {
    /// Opens a glTF with meshes as the model the import would make of it;
    /// `false` for one with no mesh (its animations are imported onto the
    /// skeleton shown instead).
    pub(super) fn open_gltf_model(&mut self, path: &Path, stores: &mut Stores) -> bool {
        let file = match self.gltf_document(path) {
            Ok(file) => file,
            Err(error) => {
                self.problems.push(format!("{}: {error}", path.display()));
                return true;
            }
        };
        if !file.document.nodes().any(|node| node.mesh().is_some()) {
            return false;
        }
        let name = path.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
        let options =
            ModelOptions { name: name.clone(), skeleton: None, map: None, scale: ExportOptions::default().scale };
        let written = import_model(&file, &options).map_err(|e| e.to_string()).and_then(|model| {
            let root = self.keep_files(&model)?;
            Ok((model, root))
        });
        match written {
            Ok((model, root)) => {
                self.open_written_model(path, &model.files, model.warnings.clone(), &root, stores);
                self.imported = Some((name, model));
            }
            Err(error) => self.problems.push(format!("{}: as the game's files: {error}", path.display())),
        }
        true
    }

    /// Keeps the files an import made where the workspace reads them: in
    /// a folder of their own, kept while the viewer runs (or, in memory,
    /// under a name of their own); returns that folder.
    fn keep_files(&mut self, model: &ImportedModel) -> Result<PathBuf, String> {
        if let Some(memory) = self.source.memory() {
            // The index only grows: its size names a folder not used yet.
            let root = PathBuf::from(format!("imported/{}", memory.len()));
            for (path, bytes) in &model.files {
                memory.add(&root.join(path), bytes.clone());
            }
            return Ok(root);
        }
        let folder = tempfile::Builder::new().prefix("io3d-preview-").tempdir().map_err(|e| e.to_string())?;
        model.write(folder.path()).map_err(|e| e.to_string())?;
        let root = folder.path().to_path_buf();
        self.import_folders.push(folder);
        Ok(root)
    }

    /// Opens the config the import wrote and says what the lint finds in
    /// its files (a mesh's findings with the mesh).
    fn open_written_model(
        &mut self,
        source: &Path,
        files: &crate::gltf::Files,
        warnings: Vec<String>,
        root: &Path,
        stores: &mut Stores,
    ) {
        let models = crate::resource::ResourceKind::Model.path("");
        let Some(config) = files.keys().find(|path| path.starts_with(&models)) else { return };
        self.open_config(&root.join(config), stores);
        let skeleton = self.given_skeleton().cloned();
        let mut lines: Vec<String> = warnings.into_iter().map(|w| format!("{}: {w}", source.display())).collect();
        for (path, bytes) in files {
            let findings = check_file(path, bytes, skeleton.as_ref(), true);
            let said = findings.iter().map(|f| format!("{}: {}", severity(f.severity), f.message));
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            match self.meshes.iter_mut().find(|m| m.name.eq_ignore_ascii_case(&stem) && has_msh(path)) {
                Some(mesh) => mesh.findings.extend(said),
                None => lines.extend(said.map(|line| format!("{}: {line}", path.display()))),
            }
        }
        self.notes.extend(lines);
    }
}

fn has_msh(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("msh"))
}

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}
