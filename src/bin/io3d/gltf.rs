//! `io3d export` and `io3d import`: the bridge to glTF 2.0 tools.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use bevy_io3d::anim::RestPoses;
use bevy_io3d::anim::reduce::Tolerance;
use bevy_io3d::file::write_atomic;
use bevy_io3d::format::{AniVersion, Animation, Skeleton};
use bevy_io3d::gltf::{self, ExportOptions, GltfDocument, ImportOptions, SourceNodes};
use bevy_io3d::resource::{Character, CharacterMesh, MeshFiles};

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
    let Parts { skeleton, mut meshes, mut animations } = match (config.as_slice(), args.skeleton) {
        ([config], None) => character_parts(config)?,
        ([], Some(skeleton)) => {
            Parts { skeleton: load::skeleton(skeleton)?, meshes: Vec::new(), animations: Vec::new() }
        }
        ([], None) => bail!("give a model config, or --skeleton with the animations"),
        (_, _) => bail!("give one model config, or --skeleton, not both"),
    };
    for path in args.meshes {
        meshes.push(MeshFiles::read(&CharacterMesh::load(path)).map_err(anyhow::Error::msg)?);
    }
    for path in animation_paths {
        animations.push((stem(path), load::animation(path)?));
    }
    let named: Vec<(String, &Animation)> = animations.iter().map(|(name, a)| (name.clone(), a)).collect();
    let exported = gltf::export(&skeleton, &meshes, &named, ExportOptions { scale: args.scale })?;
    for warning in &exported.warnings {
        eprintln!("warning: {warning}");
    }
    write_atomic(args.output, &exported.bytes).with_context(|| format!("{}: cannot write", args.output.display()))?;
    println!(
        "{}: {} bones, {} meshes, {} animations, {} KiB",
        args.output.display(),
        skeleton.bones.len(),
        meshes.len(),
        animations.len(),
        exported.bytes.len().div_ceil(1024)
    );
    Ok(ExitCode::SUCCESS)
}

/// What goes into a `.glb`.
struct Parts {
    skeleton: Skeleton,
    meshes: Vec<MeshFiles>,
    /// Animations named after their files.
    animations: Vec<(String, Animation)>,
}

/// A model config's skeleton, meshes and animations, read where the client
/// finds them; missing meshes and animations are warned about and left out.
fn character_parts(config: &Path) -> Result<Parts> {
    let character = Character::load(config)?;
    let skeleton = match &character.skeleton {
        Some(linked) => linked.value.clone().map_err(anyhow::Error::msg)?,
        None => bail!("{}: names no #SKELETON", config.display()),
    };
    let mut meshes = Vec::new();
    for part in &character.meshes {
        match MeshFiles::read(part) {
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
    Ok(Parts { skeleton, meshes, animations })
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
