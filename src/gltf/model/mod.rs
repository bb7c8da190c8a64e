//! A glTF character or prop as the game's files (`io3d import --model`):
//! a resource folder laid out as the client reads one.
//!
//! - A skinned glTF gives `model/animodel/NAME.txt` naming its skeleton,
//!   meshes and animations; any other gives `model/staticmodel/NAME.txt`
//!   with `#AABOX`, `#SPHERE` and `#COLLISION_MESH`.
//! - Each mesh node gives a `.msh` ([`mesh`]: one submesh a primitive, at
//!   most three weights a vertex) and a material script of the game's
//!   templates, one material a submesh; each image a `.dds`.
//! - Nodes named `*_collision` give the `.cms` ([`collision`]).
//! - Weights land on the skeleton given, through a bone map (a joint the
//!   skeleton lacks hands its weights to its nearest mapped ancestor, and
//!   the import says so), or on a skeleton made from the glTF's armature.
//! - The glTF's animations become `.ani`s on that skeleton.
//!
//! Nothing is written until every file is made; then they appear together
//! ([`ImportedModel::write`]), or as one `.zip` ([`ImportedModel::zip`]).
//! A given skeleton is written with them, so that the folder is whole.

mod archive;
mod collision;
mod folder;
mod look;
mod mesh;
mod names;
#[cfg(test)]
mod tests;

use std::path::Path;

use crate::anim::{BoneMap, BoneNames, suggest_map};
use crate::format::material::template;
use crate::format::{FileString, ModelConfig, Skeleton};
use crate::resource::{ResourceKind, config_path};

pub use folder::Files;
pub use mesh::MAX_WEIGHTS;

use self::look::Textures;
use self::mesh::Scene;
use self::names::{file_stem, name_stem, unused};
use super::{ArmatureOptions, GltfDocument, GltfError, ImportOptions, SourceNodes, import};

/// How to import a model.
#[derive(Debug, Clone)]
pub struct ModelOptions {
    /// The model's name: its config's and its skeleton's file stem.
    pub name: String,
    /// The game skeleton the weights and animations land on, with the file
    /// name the config gives it; `None` makes one of the glTF's armature.
    pub skeleton: Option<(String, Skeleton)>,
    /// glTF node name to skeleton bone name; `None` suggests one from the
    /// names.
    pub map: Option<BoneMap>,
    /// glTF units a game unit: the export's scale (0.01, metres).
    pub scale: f32,
}

/// A model's files, by their path under the output folder, and what the
/// import did that the user should know.
#[derive(Debug, Clone, Default)]
pub struct ImportedModel {
    /// The files.
    pub files: Files,
    /// Joints moved to an ancestor, materials approximated, ...
    pub warnings: Vec<String>,
}

impl ImportedModel {
    /// Writes the files under `out` (made when missing), all or none; a
    /// file already there with other bytes stops it before anything is
    /// written (one with the same bytes is left as it is).
    pub fn write(&self, out: &Path) -> std::io::Result<()> {
        folder::write_into(out, &self.files)
    }

    /// The files as one `.zip`, each under its path in the folder
    /// [`write`](Self::write) would fill: the same files, the same bytes.
    pub fn zip(&self) -> std::io::Result<Vec<u8>> {
        archive::zip(&self.files)
    }
}

/// The glTF `file` as a resource folder's files.
pub fn import_model(file: &GltfDocument, options: &ModelOptions) -> Result<ImportedModel, GltfError> {
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err(GltfError::Scale(options.scale));
    }
    let nodes = SourceNodes::new(&file.document)?;
    let world = nodes.rest_matrices();
    let scene = Scene { file, world: &world, scale: options.scale };
    let (collision_nodes, mesh_nodes): (Vec<_>, Vec<_>) =
        file.document.nodes().filter(|n| n.mesh().is_some()).partition(collision::is_collision);
    if mesh_nodes.is_empty() {
        return Err(GltfError::Unsupported("no mesh to import (only nodes named *_collision, or none)".into()));
    }
    let name = file_stem(&options.name);
    let mut out = ImportedModel::default();
    let skinned = mesh_nodes.iter().any(|n| n.skin().is_some());
    let bones = if skinned { Some(Bones::new(file, &nodes, options, &mut out)?) } else { None };
    let mut config = ModelConfig::default();
    let mut textures = Textures::default();
    let mut all_positions = Vec::new();
    for node in &mesh_nodes {
        let bone = |joint: usize| bones.as_ref().map_or_else(FileString::default, |b| b.stored(joint, &nodes));
        let mesh = mesh::convert(&scene, node, &bone)?;
        let stem =
            unused(&file_stem(node.name().or(node.mesh().and_then(|m| m.name())).unwrap_or("mesh")), &config.meshes);
        let script = script(file, node, mesh.is_skinned(), &mut textures)?;
        all_positions.extend_from_slice(&mesh.positions);
        let bytes = mesh.to_bytes().map_err(|e| GltfError::Write(format!("mesh '{stem}': {e}")))?;
        out.files.insert(ResourceKind::Mesh.path(&format!("{stem}.msh")), bytes);
        out.files.insert(ResourceKind::Material.path(&format!("{stem}.txt")), script);
        config.meshes.push(stem);
    }
    if let Some(bones) = &bones {
        out.warnings.extend(bones.moved.iter().cloned());
    }
    for (texture, bytes) in textures.files {
        out.files.insert(ResourceKind::Texture.path(&texture), bytes);
    }
    out.warnings.extend(textures.warnings);
    match bones {
        Some(bones) => {
            if !collision_nodes.is_empty() {
                out.warnings.push("the *_collision nodes are left out: a character's config has no collision".into());
            }
            // Made of the armature, every joint is its own bone: motion
            // maps by name as the weights do.
            let map = if bones.given.is_none() { Some(bones.map.clone()) } else { options.map.clone() };
            animated(file, &name, bones, map, &mut config, &mut out)?
        }
        None => static_model(&scene, &name, &collision_nodes, &all_positions, &mut config, &mut out)?,
    }
    out.files.insert(config_path(skinned, &format!("{name}.txt")), config.to_text().into_bytes());
    Ok(out)
}

/// A mesh node's material script: one material a primitive, each from the
/// game's template for its glTF material.
fn script(
    file: &GltfDocument,
    node: &::gltf::Node,
    skinned: bool,
    textures: &mut Textures,
) -> Result<Vec<u8>, GltfError> {
    let mesh = node.mesh().expect("a mesh node");
    let mut templates = Vec::new();
    for primitive in mesh.primitives() {
        let material = primitive.material();
        let name = material.name().map_or_else(|| format!("material{}", primitive.index()), str::to_owned);
        templates.push((file_stem(&name), look::template(file, &material, skinned, textures)?));
    }
    let script = template::script(templates.iter().map(|(name, t)| (name.as_str(), t)))
        .map_err(|e| GltfError::Unsupported(format!("mesh '{}': {e}", mesh.name().unwrap_or_default())))?;
    Ok(script.to_bytes())
}

/// A character's config: its skeleton (made from the armature when none
/// was given), its animations (through `map`, else a map suggested as
/// `io3d import` suggests one).
fn animated(
    file: &GltfDocument,
    name: &str,
    bones: Bones,
    map: Option<BoneMap>,
    config: &mut ModelConfig,
    out: &mut ImportedModel,
) -> Result<(), GltfError> {
    // A given skeleton goes too, so that the folder is whole (over the
    // game's own file, it is the same bytes and left alone).
    let skeleton_file = bones.given.clone().unwrap_or_else(|| format!("{name}.skl"));
    let bytes = bones.skeleton.to_bytes().map_err(|e| GltfError::Write(format!("{skeleton_file}: {e}")))?;
    out.files.insert(ResourceKind::Skeleton.path(&skeleton_file), bytes);
    config.skeleton = Some(skeleton_file);
    let mut taken = Vec::new();
    for (index, animation) in file.animation_labels().into_iter().enumerate() {
        let options = ImportOptions { map: map.clone(), ..ImportOptions::nth_animation(index) };
        let imported = import(file, &bones.skeleton, &options)?;
        out.warnings.extend(imported.warnings.into_iter().map(|w| format!("animation '{animation}': {w}")));
        let stem = unused(&name_stem(&animation), &taken);
        let file_name = format!("{stem}.ani");
        let bytes = imported.animation.to_bytes().map_err(|e| GltfError::Write(format!("{file_name}: {e}")))?;
        out.files.insert(ResourceKind::Animation.path(&file_name), bytes);
        config.animations.push(file_name);
        taken.push(stem);
    }
    Ok(())
}

/// A prop's config: its box and sphere, around every vertex, and its
/// collision.
fn static_model(
    scene: &Scene,
    name: &str,
    collision_nodes: &[::gltf::Node],
    positions: &[glam::Vec3],
    config: &mut ModelConfig,
    out: &mut ImportedModel,
) -> Result<(), GltfError> {
    let bounds = crate::format::msh::Bounds::of(positions);
    config.aabox = Some([bounds.min.to_array(), bounds.max.to_array()]);
    config.sphere = Some((((bounds.min + bounds.max) / 2.0).to_array(), bounds.radius));
    if !collision_nodes.is_empty() {
        let collision = collision::collision(scene, collision_nodes)?;
        let file_name = format!("{name}.cms");
        let bytes = collision.to_bytes().map_err(|e| GltfError::Write(format!("{file_name}: {e}")))?;
        out.files.insert(ResourceKind::Mesh.path(&file_name), bytes);
        config.collision_mesh = Some(file_name);
    }
    Ok(())
}

/// Where a skinned model's weights land: the skeleton, and for each
/// joint node the bone it names.
struct Bones {
    skeleton: Skeleton,
    /// The skeleton's bone names, found by text (as maps and nodes name
    /// them).
    names: BoneNames,
    /// The file name the config gives a skeleton that was given.
    given: Option<String>,
    /// Node name to bone name.
    map: BoneMap,
    /// What was moved to an ancestor, said once a joint.
    moved: Vec<String>,
}

impl Bones {
    fn new(
        file: &GltfDocument,
        nodes: &SourceNodes,
        options: &ModelOptions,
        out: &mut ImportedModel,
    ) -> Result<Self, GltfError> {
        let (skeleton, given) = match &options.skeleton {
            Some((file_name, skeleton)) => (skeleton.clone(), Some(file_name.clone())),
            None => {
                let made =
                    super::armature(file, &ArmatureOptions { skin: None, scale: options.scale, bind_at_rest: true })?;
                out.warnings.extend(made.warnings);
                (made.skeleton, None)
            }
        };
        let bones: Vec<String> = skeleton.bones.iter().map(|b| b.name.name_text().into_owned()).collect();
        let map = match (&options.map, &given) {
            (Some(map), _) => map.clone(),
            (None, Some(_)) => suggest_map(&nodes.names, &bones),
            // Made from the armature: every joint is its own bone.
            (None, None) => BoneMap(bones.iter().map(|b| (b.clone(), b.clone())).collect()),
        };
        let names = BoneNames::new(skeleton.bones.iter().map(|b| b.name.as_bytes()));
        let mut bones = Self { skeleton, names, given, map, moved: Vec::new() };
        bones.moved = bones.report_moved(file, nodes);
        Ok(bones)
    }

    /// Each skin joint that weights another bone than its own, said once.
    fn report_moved(&self, file: &GltfDocument, nodes: &SourceNodes) -> Vec<String> {
        let mut joints: Vec<usize> =
            file.document.skins().flat_map(|s| s.joints().map(|j| j.index()).collect::<Vec<_>>()).collect();
        joints.sort_unstable();
        joints.dedup();
        joints
            .into_iter()
            .filter(|&joint| self.map.target(&nodes.names[joint]) != Some(self.of(joint, nodes).as_str()))
            .map(|joint| {
                format!(
                    "joint '{}' is not in the skeleton: its weights go to '{}'",
                    nodes.names[joint],
                    self.of(joint, nodes)
                )
            })
            .collect()
    }

    /// The stored name of the bone [`Bones::of`] gives, byte for byte as
    /// the skeleton holds it (a CP949 name stays CP949, as the client
    /// compares bytes).
    fn stored(&self, joint: usize, nodes: &SourceNodes) -> FileString {
        let name = self.of(joint, nodes);
        let bone = self.names.by_text(&name).map(|i| &self.skeleton.bones[i]);
        bone.map_or_else(FileString::default, |b| b.name.clone())
    }

    /// The bone joint node `joint` weights: its own through the map, else
    /// its nearest ancestor's that maps, else the skeleton's first bone.
    fn of(&self, joint: usize, nodes: &SourceNodes) -> String {
        let has = |name: &str| self.names.by_text(name).is_some();
        let mapped = |node: usize| self.map.target(&nodes.names[node]).filter(|b| has(b)).map(str::to_owned);
        nodes.chain(joint).find_map(mapped).unwrap_or_else(|| {
            self.skeleton.bones.first().map_or_else(String::new, |b| b.name.name_text().into_owned())
        })
    }
}
