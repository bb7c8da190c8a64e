//! `io3d check`: the lint over files and folders, in parallel.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use bevy_io3d::check::{Finding, Severity, check_ani, check_skl, unreadable};
use bevy_io3d::format::{ModelConfig, Skeleton};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::load::{self, has_extension};

/// A finding with the file it is in.
#[derive(Serialize)]
struct FileFinding {
    file: PathBuf,
    #[serde(flatten)]
    finding: Finding,
}

pub fn run(paths: &[PathBuf], skeleton: Option<&Path>, json: bool) -> Result<ExitCode> {
    let skeleton = skeleton.map(load::skeleton).transpose()?;
    let (files, unsearchable) = collect(paths);
    let progress = ProgressBar::new(files.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} files {msg}").expect("a valid progress template"),
    );
    let mut findings: Vec<FileFinding> = files
        .par_iter()
        .flat_map_iter(|file| {
            let found = check_file(file, skeleton.as_ref());
            progress.inc(1);
            found.into_iter().map(|finding| FileFinding { file: file.clone(), finding })
        })
        .chain(unsearchable)
        .collect();
    progress.finish_and_clear();
    findings.sort_by(|a, b| a.file.cmp(&b.file).then(a.finding.offset.cmp(&b.finding.offset)));
    if json {
        println!("{}", serde_json::to_string_pretty(&findings).context("cannot print findings")?);
    } else {
        for f in &findings {
            println!("{}: {}", f.file.display(), f.finding);
        }
    }
    let count = |s| findings.iter().filter(|f| f.finding.severity == s).count();
    let errors = count(Severity::Error);
    eprintln!(
        "checked {} files: {errors} errors, {} warnings, {} notes",
        files.len(),
        count(Severity::Warning),
        count(Severity::Info)
    );
    Ok(if errors > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The files named, with folders searched for `.ani` and `.skl` files;
/// a folder that cannot be searched is a finding, and the search goes on.
fn collect(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<FileFinding>) {
    let (mut files, mut unsearchable) = (Vec::new(), Vec::new());
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
            match entry {
                Ok(entry) if entry.file_type().is_file() && is_checked(entry.path()) => {
                    files.push(entry.into_path());
                }
                Ok(_) => {}
                Err(error) => unsearchable.push(FileFinding {
                    file: error.path().unwrap_or(path).to_path_buf(),
                    finding: unreadable(0, format!("cannot search: {error}")),
                }),
            }
        }
    }
    (files, unsearchable)
}

fn is_checked(path: &Path) -> bool {
    has_extension(path, "ani") || has_extension(path, "skl")
}

fn check_file(path: &Path, skeleton: Option<&Skeleton>) -> Vec<Finding> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => return vec![unreadable(0, format!("cannot read: {error}"))],
    };
    match bytes.get(..4) {
        Some(b"SKL\0") => check_skl(&bytes),
        _ if has_extension(path, "txt") => match ModelConfig::parse(&bytes) {
            Ok(_) => Vec::new(),
            Err(error) => vec![unreadable(0, error.to_string())],
        },
        _ => check_ani(&bytes, skeleton),
    }
}
