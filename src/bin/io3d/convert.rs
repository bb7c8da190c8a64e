//! `io3d dump`, `io3d build` and `io3d convert`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use bevy_io3d::file::write_atomic;
use bevy_io3d::format::AniVersion;
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
        let version = number.parse().ok().and_then(AniVersion::from_number).context("unknown version")?;
        match &mut document {
            Document::Ani(animation) => animation.convert(version).with_context(|| input.display().to_string())?,
            Document::Skl(_) => bail!("{}: --version is for .ani files; a skeleton has one version", input.display()),
        }
    }
    save(&document, output, has_extension(output, "json"))
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
