//! `io3d dump`, `io3d build` and `io3d convert`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use bevy_io3d::file::write_atomic;
use bevy_io3d::format::msh::{CONTROL_POINT_VERSION, MSH_VERSIONS};
use bevy_io3d::format::{AniVersion, Mesh};
use bevy_io3d::json::{self, Document};

use crate::load::{self, has_extension};

pub fn dump(path: &Path) -> Result<ExitCode> {
    let text = json::to_json(&load::document(path)?);
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

pub fn build(path: &Path, output: &Path) -> Result<ExitCode> {
    let document = load::document(path)?;
    save(&document, output, false)
}

pub fn convert(input: &Path, output: &Path, version: Option<&str>) -> Result<ExitCode> {
    let mut document = load::document(input)?;
    if let Some(number) = version {
        match &mut document {
            Document::Ani(animation) => {
                let version = number
                    .parse()
                    .ok()
                    .and_then(AniVersion::from_number)
                    .context("an .ani version is 4000, 4001 or 4002")?;
                animation.convert(version).with_context(|| input.display().to_string())?
            }
            Document::Msh(mesh) => convert_mesh(mesh, number).with_context(|| input.display().to_string())?,
            other => bail!("{}: --version is for .ani and .msh files, not {}", input.display(), other.kind()),
        }
    }
    save(&document, output, has_extension(output, "json"))
}

/// Sets a mesh's version. Only 2002 stores control points, so leaving it
/// is refused while the mesh has some (they would be lost).
fn convert_mesh(mesh: &mut Mesh, number: &str) -> Result<()> {
    let version: i32 =
        number.parse().ok().filter(|v| MSH_VERSIONS.contains(v)).context("a .msh version is 2000, 2001 or 2002")?;
    if version != CONTROL_POINT_VERSION && !mesh.control_points.is_empty() {
        bail!(
            "version {version} cannot store the mesh's {} control points (only 2002 does)",
            mesh.control_points.len()
        );
    }
    mesh.version = version;
    Ok(())
}

/// Writes the document as its binary file or as JSON, atomically.
fn save(document: &Document, output: &Path, as_json: bool) -> Result<ExitCode> {
    let bytes = if as_json {
        json::to_json(document).into_bytes()
    } else {
        document.to_bytes().with_context(|| output.display().to_string())?
    };
    write_atomic(output, &bytes).with_context(|| format!("{}: cannot write", output.display()))?;
    Ok(ExitCode::SUCCESS)
}
