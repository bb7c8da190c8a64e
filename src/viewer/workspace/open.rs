//! Opening files: animations, skeletons, model configs, resource folders,
//! meshes put on the character and glTF animations imported onto it.

use super::*;
use crate::format::{BinaryKind, Magic, sniff};
use crate::resource;

impl Workspace {
    /// Opens files: `.ani`, `.skl` (by their magic), model configs
    /// (`.txt`, which bring their skeleton and animations) and glTF files
    /// (a character or prop shown as the import would write it, or
    /// animations alone imported onto the skeleton). What cannot be
    /// opened is listed in [`Self::problems`]. The first new animation
    /// becomes the current one (the first imported one, if any).
    pub fn open(&mut self, paths: &[PathBuf], stores: &mut Stores) {
        let before = self.animations.len();
        let mut imported = None;
        let companions = self.gltf_companions(paths);
        for path in paths.iter().filter(|path| !companions.contains(path)) {
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

    /// The files among `paths` that a `.gltf` among them names (its
    /// buffers and images): they come with it and open with it, not on
    /// their own.
    fn gltf_companions(&self, paths: &[PathBuf]) -> Vec<PathBuf> {
        let gltf = |path: &&PathBuf| path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gltf"));
        let named = |path: &PathBuf| {
            let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
            let bytes = self.source.read(path).unwrap_or_default();
            gltf::files_named(&bytes).into_iter().map(move |name| folder.join(name))
        };
        paths.iter().filter(gltf).flat_map(named).filter(|named| paths.contains(named)).collect()
    }

    /// Opens one file; returns whether it was a glTF (imported).
    fn open_path(&mut self, path: &Path, stores: &mut Stores) -> bool {
        match self.source.read(path) {
            Err(error) => self.problems.push(format!("{}: cannot read: {error}", path.display())),
            // A collision mesh comes with the model it belongs to, if one
            // in its folder names it and none is shown.
            Ok(bytes) if sniff::is(&bytes, BinaryKind::Cms) && self.meshes.is_empty() => {
                if let Some(owner) = owning_config(&*self.source, path) {
                    self.open_config(&owner, stores);
                } else {
                    self.open_preview(path, &bytes, stores);
                }
            }
            Ok(bytes) if self.open_preview(path, &bytes, stores) => {}
            Ok(bytes) if is_config(path, &bytes) => self.open_config(path, stores),
            // A mesh alone is drawn with the script and textures the
            // client would find for it (on the skeleton shown, if any; at
            // its bind pose without one).
            Ok(bytes) if sniff::is(&bytes, BinaryKind::Msh) => {
                if self.skeleton.is_none()
                    && let Some(skeleton) = fitting_skeleton(&*self.source, path, &bytes)
                {
                    self.open_path(&skeleton, stores);
                }
                self.attach_mesh(path, stores);
            }
            // A glTF with meshes is shown as the game's files the import
            // makes of it; one of animations alone plays on the skeleton.
            Ok(bytes) if gltf::is_gltf(path, &bytes) => {
                if !self.open_gltf_model(path, stores) {
                    self.import_gltf(path, stores);
                }
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
        let file = match self.gltf_document(path) {
            Ok(file) => file,
            Err(error) => return failed(self, format!("{}: {error}", path.display())),
        };
        let first = self.animations.len();
        let mut report = Vec::new();
        for (index, name) in file.animation_labels().into_iter().enumerate() {
            let options = ImportOptions::nth_animation(index);
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
    pub(super) fn open_config(&mut self, path: &Path, stores: &mut Stores) {
        let character = match Character::load(&*self.source, path) {
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
        // Its collision mesh, over the model.
        if let Some(collision) = character.collision.as_ref().and_then(|link| link.path.clone())
            && let Ok(bytes) = self.source.read(&collision)
        {
            self.open_preview(&collision, &bytes, stores);
        }
    }

    /// Opens a resource folder (or a folder inside one): lists its files
    /// of every kind in [`Self::folder`], model configs first, to open
    /// from.
    pub fn open_folder(&mut self, path: &Path) {
        let Some(folder) = ResourceFolder::around(&*self.source, path) else {
            return self
                .problems
                .push(format!("{}: not in a resource folder (no model, mesh, animation, ... folder)", path.display()));
        };
        let kinds = [
            (ResourceKind::Model, &["txt"][..]),
            (ResourceKind::Mesh, &["msh", "cms"]),
            (ResourceKind::Animation, &["ani"]),
            (ResourceKind::Skeleton, &["skl"]),
            (ResourceKind::Material, &["txt"]),
            (ResourceKind::Texture, &["dds"]),
        ];
        let of_kind = |kind: ResourceKind, extensions: &[&str]| {
            let files = folder.files(&*self.source, kind).into_iter();
            let known =
                |p: &PathBuf| p.extension().is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)));
            (kind, files.filter(known).collect::<Vec<_>>())
        };
        self.folder = kinds
            .into_iter()
            .map(|(kind, extensions)| of_kind(kind, extensions))
            .filter(|(_, f)| !f.is_empty())
            .collect();
        if self.folder.is_empty() {
            self.problems.push(format!("{}: holds no file of the game's kinds", folder.root.display()));
        }
    }

    /// Puts a `.msh` on the character, with the material script and
    /// textures the client would find for it; returns what happened.
    pub fn attach_mesh(&mut self, path: &Path, stores: &mut Stores) -> String {
        let part = CharacterMesh::load(&*self.source, path);
        let (name, before) = (part.name().to_owned(), self.problems.len());
        self.add_part(&part, stores);
        match self.problems.get(before) {
            Some(problem) => problem.clone(),
            None => format!("attached {name}"),
        }
    }

    /// Adds a mesh found on disk, watching its files; returns whether it
    /// read.
    pub(super) fn add_part(&mut self, part: &CharacterMesh, stores: &mut Stores) -> bool {
        let script_error = part.material.value.as_ref().err().cloned();
        let added = self.add_mesh(part.name(), MeshFiles::read(&*self.source, part), script_error, stores);
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

    /// Adds a mesh to draw on the rig (with its script, unless
    /// `script_error` says why there is none), or its problem when it did
    /// not read; returns whether it was added.
    pub(super) fn add_mesh(
        &mut self,
        name: &str,
        source: Result<MeshFiles, String>,
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
        let undrawn = clay::undrawn(source.script.as_ref(), script_error.as_deref());
        let mut findings: Vec<String> =
            undrawn.iter().map(|why| format!("{why}; the client does not draw this mesh (shown in clay)")).collect();
        let texture = |texture: &str| match source.texture(texture) {
            None => Err(format!("no texture '{texture}'")),
            Some(Err(why)) => Err(why.to_owned()),
            Some(Ok(bytes)) => Dds::from_bytes(bytes).map_err(|e| e.to_string()),
        };
        // The file's script stays in `source` as read (an export warns of
        // it); only what is drawn is clay.
        let drawn = match undrawn {
            None => source.script.clone(),
            Some(_) => Some(clay::clay_script(source.mesh.submeshes.len())),
        };
        let (handle, missing) = stores.character.add_mesh(name, source.mesh.clone(), drawn, texture);
        findings.extend(
            missing.into_iter().map(|(texture, why)| format!("texture '{texture}': {why}; shown as a checker")),
        );
        let open = OpenMesh { name: name.to_owned(), handle, findings, undrawn, files: Vec::new(), source };
        self.meshes.push(open);
        true
    }

    /// Reads a file's bytes into the workspace as an animation or the
    /// skeleton, by its magic.
    pub(super) fn add_file(&mut self, origin: Origin, bytes: Vec<u8>, stores: &mut Stores) {
        let modified = origin.path().and_then(modified);
        // Problems name a file by its whole path, as given.
        let who = origin.path().map_or_else(|| origin.name(), |path| path.display().to_string());
        match sniff(&bytes) {
            Some(Magic::Binary(BinaryKind::Skl)) => match parse_skeleton(&bytes) {
                Ok(skeleton) => {
                    self.skeleton = Some(Loaded { origin, value: skeleton, bytes, modified, error: None });
                }
                Err(error) => self.problems.push(format!("{who}: {error}")),
            },
            _ => match Animation::from_bytes(&bytes) {
                Ok(animation) => {
                    // The sidecar the game would play the events of.
                    let sidecar = origin.path().and_then(|path| resource::sidecar(&*self.source, path));
                    let file = Loaded { origin, value: animation, bytes, modified, error: None };
                    self.animations.push(OpenAnimation::new(file, sidecar.map(|(_, s)| s), stores));
                }
                Err(error) => self.problems.push(format!("{who}: {error}")),
            },
        }
    }
}

/// The model config in a collision mesh's resource folder that names it.
fn owning_config(source: &dyn FileSource, collision: &Path) -> Option<PathBuf> {
    let folder = ResourceFolder::around(source, collision)?;
    let wanted = same_file(collision);
    let configs = folder.files(source, ResourceKind::Model).into_iter();
    configs.filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt"))).find(|config| {
        let names = |character: Character| character.collision.and_then(|link| link.path);
        let found = Character::load(source, config).ok().and_then(names).map(|p| same_file(&p));
        found.is_some_and(|p| p == wanted)
    })
}

/// A path as it compares with another naming the same file: resolved on
/// a disk (links, `..`), as given elsewhere.
fn same_file(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A skeleton in a skinned mesh's resource folder that has every bone the
/// mesh is skinned to, as the client matches names.
fn fitting_skeleton(source: &dyn FileSource, path: &Path, bytes: &[u8]) -> Option<PathBuf> {
    let mesh = Mesh::from_bytes(bytes).ok()?;
    let weights = mesh.weights.as_ref().filter(|_| mesh.is_skinned())?;
    let names = weights.palette();
    let folder = ResourceFolder::around(source, path)?;
    let skeletons = folder.files(source, ResourceKind::Skeleton).into_iter();
    skeletons.filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("skl"))).find(|skl| {
        let rig = source.read(skl).ok().and_then(|b| Skeleton::from_bytes(&b).ok()).and_then(|s| Rig::new(&s).ok());
        rig.is_some_and(|rig| names.iter().all(|name| rig.bone(name.c_str()).is_some()))
    })
}

fn is_config(path: &Path, bytes: &[u8]) -> bool {
    let magic = matches!(sniff(bytes), Some(Magic::Binary(BinaryKind::Ani | BinaryKind::Skl)));
    !magic && path.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt"))
}
