//! `io3d export` and `io3d import`: the bridge to glTF 2.0 tools.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use bevy_io3d::anim::RestPoses;
use bevy_io3d::anim::reduce::Tolerance;
use bevy_io3d::file::write_atomic;
use bevy_io3d::format::{AniVersion, Animation, Collision, Skeleton};
use bevy_io3d::gltf::{self, ExportOptions, GltfDocument, ImportOptions, ModelParts, SourceNodes};
use bevy_io3d::json::Document;
use bevy_io3d::resource::{Character, CharacterMesh, Disk, Link, MeshFiles};

use crate::edit::{bone_map, save};
use crate::load::{self, has_extension};

/// What `io3d export` was given.
pub struct Export<'a> {
    /// A model config, or animations (with --skeleton).
    pub inputs: &'a [PathBuf],
    pub skeleton: Option<&'a Path>,
    pub meshes: &'a [PathBuf],
    pub scale: f32,
    pub output: &'a Path,
}

pub fn export(args: Export) -> Result<ExitCode> {
    if !has_extension(args.output, "glb") {
        bail!("{}: the output is a binary glTF and must end in .glb", args.output.display());
    }
    let (config, animation_paths): (Vec<&PathBuf>, Vec<&PathBuf>) =
        args.inputs.iter().partition(|path| has_extension(path, "txt"));
    let Parts { skeleton, mut meshes, mut animations, collisions } = match (config.as_slice(), args.skeleton) {
        ([config], None) => character_parts(config)?,
        ([], Some(skeleton)) => Parts { skeleton: Some(load::skeleton(skeleton)?), ..Parts::default() },
        ([], None) => bail!("give a model config, or --skeleton with the animations"),
        (_, _) => bail!("give one model config, or --skeleton, not both"),
    };
    for path in args.meshes {
        meshes.push(MeshFiles::read(&Disk, &CharacterMesh::load(&Disk, path)).map_err(anyhow::Error::msg)?);
    }
    for path in animation_paths {
        animations.push((stem(path), load::animation(path)?));
    }
    let named: Vec<(String, &Animation)> = animations.iter().map(|(name, a)| (name.clone(), a)).collect();
    let collisions: Vec<(String, &Collision)> = collisions.iter().map(|(name, c)| (name.clone(), c)).collect();
    let parts =
        ModelParts { skeleton: skeleton.as_ref(), meshes: &meshes, animations: &named, collisions: &collisions };
    let exported = gltf::export_model(parts, ExportOptions { scale: args.scale });
    // What the config names is wrong, when there is one.
    let exported = match config.first() {
        Some(config) => exported.with_context(|| config.display().to_string())?,
        None => exported?,
    };
    for warning in &exported.warnings {
        eprintln!("warning: {warning}");
    }
    write_atomic(args.output, &exported.bytes).with_context(|| format!("{}: cannot write", args.output.display()))?;
    let bones = skeleton.as_ref().map_or_else(|| "no skeleton".to_owned(), |s| format!("{} bones", s.bones.len()));
    println!(
        "{}: {bones}, {} meshes, {} animations, {} collision meshes, {} KiB",
        args.output.display(),
        meshes.len(),
        animations.len(),
        collisions.len(),
        exported.bytes.len().div_ceil(1024)
    );
    Ok(ExitCode::SUCCESS)
}

/// What goes into a `.glb`.
#[derive(Default)]
struct Parts {
    /// `None` for a static model.
    skeleton: Option<Skeleton>,
    meshes: Vec<MeshFiles>,
    /// Animations named after their files.
    animations: Vec<(String, Animation)>,
    /// Collision meshes named after their files' stems.
    collisions: Vec<(String, Collision)>,
}

/// A model config's skeleton (none for a static model), meshes, animations
/// and collision mesh, read where the client finds them; missing meshes,
/// animations and collision meshes are warned about and left out.
fn character_parts(config: &Path) -> Result<Parts> {
    let character = Character::load(&Disk, config)?;
    let skeleton = character.skeleton.as_ref().map(|linked| linked.value.clone().map_err(anyhow::Error::msg));
    let skeleton = skeleton.transpose()?;
    let mut meshes = Vec::new();
    for part in &character.meshes {
        match MeshFiles::read(&Disk, part) {
            Ok(mesh) => meshes.push(mesh),
            Err(why) => eprintln!("warning: mesh '{}' left out: {why}", part.name()),
        }
    }
    let mut animations = Vec::new();
    for link in &character.animations {
        match &link.path {
            Some(path) => animations.push((stem(path), load::animation(path)?)),
            None => eprintln!("warning: animation '{}' left out: not found", link.name),
        }
    }
    let collisions =
        character.collision.iter().filter_map(|link| collision(link).transpose()).collect::<Result<_>>()?;
    Ok(Parts { skeleton, meshes, animations, collisions })
}

/// A collision mesh a config names, named after the file as the config
/// writes it: a `.cms`, or a `.msh` (whose positions and faces the client
/// takes); `None` (and a warning) when it is not found.
fn collision(link: &Link) -> Result<Option<(String, Collision)>> {
    let Some(path) = &link.path else {
        eprintln!("warning: collision mesh '{}' left out: not found", link.name);
        return Ok(None);
    };
    let collision = match load::document(path)? {
        Document::Cms(collision) => collision,
        Document::Msh(mesh) => Collision { positions: mesh.positions, indices: mesh.indices, trailing: Vec::new() },
        other => bail!("{}: {}, not a collision mesh (.cms or .msh)", path.display(), other.kind()),
    };
    Ok(Some((stem(Path::new(&link.name)), collision)))
}

fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// What `io3d import` was given.
pub struct Import<'a> {
    pub input: &'a Path,
    pub skeleton: &'a Path,
    pub animation: Option<String>,
    pub map: Option<&'a Path>,
    pub suggest: bool,
    pub version: Option<&'a str>,
    pub tolerance: Option<Tolerance>,
    pub rest: RestPoses,
    pub base: Option<&'a Path>,
    pub output: Option<&'a Path>,
}

pub fn import(args: Import) -> Result<ExitCode> {
    let file = GltfDocument::open(args.input)?;
    let skeleton = load::skeleton(args.skeleton)?;
    if args.suggest {
        let nodes = SourceNodes::new(&file.document)?;
        print!("{}", gltf::suggested_map(&nodes.names, &skeleton).to_text());
        return Ok(ExitCode::SUCCESS);
    }
    let Some(output) = args.output else { bail!("import needs --output (or --suggest to print a bone map)") };
    let version = match args.version {
        Some(number) => Some(
            number.parse().ok().and_then(AniVersion::from_number).context("an .ani version is 4000, 4001 or 4002")?,
        ),
        None => None,
    };
    let map = args.map.map(bone_map).transpose()?;
    let base = args.base.map(load::animation).transpose()?;
    let options =
        ImportOptions { animation: args.animation, map, version, tolerance: args.tolerance, rest: args.rest, base };
    let imported = gltf::import(&file, &skeleton, &options).with_context(|| args.input.display().to_string())?;
    for warning in &imported.warnings {
        eprintln!("warning: {warning}");
    }
    if !imported.unmapped.is_empty() {
        eprintln!("warning: animated nodes with no bone: {}", imported.unmapped.join(", "));
    }
    imported.alignment.iter().for_each(|line| eprintln!("{line}"));
    let animation = &imported.animation;
    let keys = animation.key_count();
    println!(
        "{}: {} tracks, {} keys ({} before reduction, {:.0}% kept), {} ms, {} events, root travel x{:.4}",
        output.display(),
        animation.tracks.len(),
        keys,
        imported.keys_before,
        100.0 * keys as f64 / imported.keys_before.max(1) as f64,
        animation.total_ms,
        animation.events.len(),
        imported.scale
    );
    save(animation, output)
}
