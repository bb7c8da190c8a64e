//! Checks of a whole character: the files a model config names, whether the
//! client finds them, and whether they fit together (skeleton, meshes,
//! material per mesh, textures, animations).

use std::path::{Path, PathBuf};

use super::{Finding, LineStarts, Rule, line_of};
use crate::format::Mesh;
use crate::format::msh::submesh_offset;
use crate::resource::{Character, CharacterMesh, Disk, Link, ResourceFolder, ResourceKind, name_key};

/// What checking a character's links finds, and the files it names.
#[derive(Debug, Clone, Default)]
pub struct CharacterCheck {
    /// Findings about the links, each with the file it is in: files the
    /// client would not find, meshes without a material script, too few
    /// materials, missing textures, `#SKELETON` after `#MESH_LIST`.
    pub findings: Vec<(PathBuf, Finding)>,
    /// Every file the config names that was found, with the skeleton to
    /// lint it against (for animations and meshes): run the file lint on
    /// each. A tool checking many characters lints a file shared by them
    /// once for each skeleton.
    pub files: Vec<(PathBuf, Option<PathBuf>)>,
}

/// Checks the links between a character's files, as the client builds it:
/// the skeleton, each mesh, a material script per mesh with enough
/// materials for the submeshes that draw, the textures the scripts name,
/// the animations and the collision mesh.
pub fn check_character(character: &Character) -> CharacterCheck {
    let c = LinkCheck { character, config_bytes: &character.config_bytes, out: CharacterCheck::default() };
    c.run()
}

struct LinkCheck<'a> {
    character: &'a Character,
    config_bytes: &'a [u8],
    out: CharacterCheck,
}

impl LinkCheck<'_> {
    fn run(mut self) -> CharacterCheck {
        let skeleton = self.skeleton();
        self.order();
        for mesh in &self.character.meshes {
            self.mesh(mesh, skeleton.as_ref());
        }
        for link in &self.character.animations {
            if let Some(path) = self.found(link, &link.name, Rule::MissingFile, "") {
                self.out.files.push((path, skeleton.clone()));
            }
        }
        if let Some(link) = &self.character.collision
            && let Some(path) = self.found(link, &link.name, Rule::MissingCollision, " (the model has no collision)")
        {
            self.out.files.push((path, None));
        }
        self.out
    }

    fn config_finding(&mut self, rule: Rule, name: &str, message: String) {
        let lines = LineStarts::new(self.config_bytes);
        let line = line_of(self.config_bytes, name);
        let finding = Finding::new(rule, lines.offset(line), format!("line {line}: {message}"));
        self.out.findings.push((self.character.config_path.clone(), finding));
    }

    /// The path of a linked file, or a finding of `rule` on the config line
    /// that names it (`written`) that it is missing.
    fn found(&mut self, link: &Link, written: &str, rule: Rule, consequence: &str) -> Option<PathBuf> {
        if link.path.is_none() {
            let message = format!(
                "no {} file named '{}' {}{consequence}",
                link.kind.folder(),
                link.name,
                self.searched(link.kind)
            );
            self.config_finding(rule, written, message);
        }
        link.path.clone()
    }

    /// Where files of a kind were looked for, for messages.
    fn searched(&self, kind: ResourceKind) -> String {
        match &self.character.folder {
            Some(folder) => {
                let searched = folder.folder(&Disk, kind).unwrap_or_else(|| folder.root.join(kind.folder()));
                format!("in {}", searched.display())
            }
            None => "beside the config (which is in no resource folder)".into(),
        }
    }

    /// The skeleton's path, once found (it is linted like the other files).
    fn skeleton(&mut self) -> Option<PathBuf> {
        let Some(linked) = &self.character.skeleton else {
            // Static props have no skeleton; animations and skinned meshes
            // need one.
            let skinned = self.character.meshes.iter().any(|m| m.mesh.get().is_some_and(Mesh::is_skinned));
            if skinned || !self.character.config.animations.is_empty() {
                self.config_finding(
                    Rule::NoSkeleton,
                    "#MODEL_CFG",
                    "the config names no #SKELETON, but it has animations or skinned meshes, which need one".into(),
                );
            }
            return None;
        };
        let path =
            self.found(&linked.link, &linked.link.name, Rule::MissingFile, ": nothing can be skinned or animated")?;
        self.out.files.push((path.clone(), None));
        Some(path)
    }

    /// `#SKELETON` must come before `#MESH_LIST`: a skinned mesh built with
    /// no skeleton yet gets no palette.
    fn order(&mut self) {
        let (skeleton, meshes) = (line_of(self.config_bytes, "#SKELETON"), line_of(self.config_bytes, "#MESH_LIST"));
        if self.character.config.skeleton.is_some() && !self.character.config.meshes.is_empty() && meshes < skeleton {
            self.config_finding(
                Rule::SkeletonOrder,
                "#SKELETON",
                "#SKELETON comes after #MESH_LIST: the client builds the meshes with no skeleton, so they get no bones"
                    .into(),
            );
        }
    }

    fn mesh(&mut self, entry: &CharacterMesh, skeleton: Option<&PathBuf>) {
        let name = entry.name().to_owned();
        let Some(mesh_path) =
            self.found(&entry.mesh.link, &name, Rule::MissingFile, ": the client does not load the model")
        else {
            return;
        };
        self.out.files.push((mesh_path.clone(), skeleton.cloned()));
        let Some(script_path) = entry.material.link.path.clone() else {
            self.config_finding(
                Rule::NoMaterialScript,
                &name,
                format!(
                    "mesh '{name}' has no material script '{}' {}: the client does not load the mesh and stops building the model",
                    entry.material.link.name,
                    self.searched(ResourceKind::Material)
                ),
            );
            return;
        };
        // Textures come from a script that parsed: its bytes are at hand.
        let script_bytes = entry.material.get().map_or(&[][..], |s| s.source.as_slice());
        self.out.files.push((script_path.clone(), None));
        if let (Some(mesh), Some(script)) = (entry.mesh.get(), entry.material.get()) {
            self.materials_cover(&mesh_path, mesh, script.materials.len(), &script_path);
        }
        let lines = LineStarts::new(script_bytes);
        for texture in entry.textures.iter().filter(|t| t.path.is_none()) {
            let line = line_of(script_bytes, &format!("texture {}", texture.name));
            self.out.findings.push((
                script_path.clone(),
                Finding::new(
                    Rule::MissingTexture,
                    lines.offset(line),
                    format!(
                        "line {line}: no texture file named '{}' {}: the client draws a 2x2 placeholder",
                        texture.name,
                        self.searched(ResourceKind::Texture)
                    ),
                ),
            ));
        }
    }

    /// Each submesh that draws faces needs the material at its position.
    fn materials_cover(&mut self, mesh_path: &Path, mesh: &Mesh, materials: usize, script_path: &Path) {
        for (s, submesh) in mesh.submeshes.iter().enumerate().skip(materials) {
            if submesh.face_count > 0 {
                let message = format!(
                    "submesh {s} has {} faces, but the material script {} has only {materials} materials: the client makes one submesh a material and does not draw this one",
                    submesh.face_count,
                    script_path.display()
                );
                let finding = Finding::new(Rule::FewMaterials, submesh_offset(s), message);
                self.out.findings.push((mesh_path.to_path_buf(), finding));
            }
        }
    }
}

/// Checks a resource folder's meshes against its material scripts, as the
/// client pairs them (`<mesh name>.txt`, without case), before any model
/// config names them: a mesh without its script is not loaded, and a
/// script no mesh is named after is never used.
pub fn check_mesh_scripts(folder: &ResourceFolder) -> Vec<(PathBuf, Finding)> {
    let with_extension = |kind, extension: &str| -> Vec<PathBuf> {
        let files = folder.files(&Disk, kind).into_iter();
        files.filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(extension))).collect()
    };
    // Names compare as the client's lookup compares them (`find` matches
    // them so too).
    let stem = |path: &Path| name_key(&path.file_stem().unwrap_or_default().to_string_lossy(), "");
    let (meshes, scripts) = (with_extension(ResourceKind::Mesh, "msh"), with_extension(ResourceKind::Material, "txt"));
    let mut out = Vec::new();
    for mesh in &meshes {
        if !scripts.iter().any(|script| stem(script) == stem(mesh)) {
            let message = format!(
                "no material script '{}.txt' in the material folder: the client does not load this mesh",
                stem(mesh)
            );
            out.push((mesh.clone(), Finding::new(Rule::NoMaterialScript, 0, message)));
        }
    }
    for script in &scripts {
        if !meshes.iter().any(|mesh| stem(mesh) == stem(script)) {
            let message =
                format!("no mesh '{}.msh' in the mesh folder: the client never uses this script", stem(script));
            out.push((script.clone(), Finding::new(Rule::UnusedScript, 0, message)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Meshes meet their scripts only where the client's lookup finds the
    /// script: case folds in ASCII alone, so a Kelvin sign (which Unicode
    /// lowercases to `k`) is not a `k`.
    #[test]
    fn meshes_pair_with_scripts_as_the_lookup_finds_them() {
        let dir = tempfile::tempdir().unwrap();
        let folder = ResourceFolder::new(dir.path());
        for sub in ["Mesh", "Material"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        for file in ["Mesh/Sword.MSH", "Material/sword.txt", "Mesh/\u{212A}nife.msh", "Material/knife.txt"] {
            std::fs::write(dir.path().join(file), b"").unwrap();
        }
        let found: Vec<(String, Rule)> = check_mesh_scripts(&folder)
            .into_iter()
            .map(|(path, finding)| (path.file_name().unwrap().to_string_lossy().into_owned(), finding.rule))
            .collect();
        assert_eq!(
            found,
            [("\u{212A}nife.msh".into(), Rule::NoMaterialScript), ("knife.txt".into(), Rule::UnusedScript)]
        );
        assert!(folder.find(&Disk, ResourceKind::Material, "sword.txt").is_some());
        assert_eq!(folder.find(&Disk, ResourceKind::Material, "\u{212A}nife.txt"), None);
    }
}
