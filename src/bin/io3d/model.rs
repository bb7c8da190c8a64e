//! `io3d import IN.glb --model OUT_DIR`: a glTF character or prop as a
//! resource folder the game reads (or, for `OUT.zip`, that folder's files
//! in one archive, as the browser viewer downloads them).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use bevy_io3d::gltf::{ExportOptions, GltfDocument, ModelOptions, import_model};

use crate::edit::bone_map;
use crate::load;

/// What `io3d import --model` was given.
pub struct ModelImport<'a> {
    pub input: &'a Path,
    pub out: &'a Path,
    pub skeleton: Option<&'a Path>,
    pub map: Option<&'a Path>,
    pub name: Option<String>,
}

pub fn import(args: ModelImport) -> Result<ExitCode> {
    let file = GltfDocument::open(args.input)?;
    let skeleton = match args.skeleton {
        Some(path) => {
            let name = path.file_name().context("--skeleton names no file")?.to_string_lossy().into_owned();
            Some((name, load::skeleton(path)?))
        }
        None => None,
    };
    let name = args
        .name
        .unwrap_or_else(|| args.input.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned()));
    let options = ModelOptions {
        name,
        skeleton,
        map: args.map.map(bone_map).transpose()?,
        scale: ExportOptions::default().scale,
    };
    let model = import_model(&file, &options).with_context(|| args.input.display().to_string())?;
    for warning in &model.warnings {
        eprintln!("warning: {warning}");
    }
    if is_zip(args.out) {
        bevy_io3d::file::write_atomic(args.out, &model.zip()?).with_context(|| args.out.display().to_string())?;
        for path in model.files.keys() {
            println!("{}", path.display());
        }
    } else {
        model.write(args.out)?;
        for path in model.files.keys() {
            println!("{}", args.out.join(path).display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn is_zip(out: &Path) -> bool {
    out.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}
