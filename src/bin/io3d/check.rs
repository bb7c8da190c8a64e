//! `io3d check`: the lint over files and folders, in parallel, with the
//! links between a character's files.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use bevy_io3d::check::{
    Finding, Severity, catalogue, check_character, check_file, check_mesh_scripts, group, unreadable,
};
use bevy_io3d::format::Skeleton;
use bevy_io3d::resource::{Character, Disk, ResourceFolder, ResourceKind, text_kind};
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

/// A file to lint, against which skeleton, and whether it was named (on
/// the command line or by a config) rather than found in a folder.
struct Lint {
    file: PathBuf,
    skeleton: Option<PathBuf>,
    named: bool,
}

/// Each file to lint and the skeleton to lint it against, with whether it
/// was named ([`Lint::named`]).
type LintPlan = HashMap<(PathBuf, Option<PathBuf>), bool>;

/// A file to check, and whether it was named (rather than found in a
/// folder, where text files that are neither configs nor scripts are
/// skipped).
struct Target {
    path: PathBuf,
    named: bool,
}

pub fn run(paths: &[PathBuf], skeleton: Option<&Path>, json: bool) -> Result<ExitCode> {
    let given = skeleton.map(|path| load::skeleton(path).map(|s| (path.to_path_buf(), s))).transpose()?;
    let (targets, mut findings) = collect(paths);
    let progress = ProgressBar::new(targets.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} files {msg}").expect("a valid progress template"),
    );
    progress.set_message("read");
    let (found, lints) = plan(&targets, given.as_ref().map(|(path, _)| path), &progress);
    findings.extend(found);
    let skeletons = Skeletons::load(lints.keys().filter_map(|(_, s)| s.as_ref()), given);
    progress.set_position(0);
    progress.set_length(lints.len() as u64);
    progress.set_message("checked");
    findings.par_extend(lints.par_iter().flat_map_iter(|((file, skeleton), named)| {
        let found = lint_file(file, skeleton.as_ref().and_then(|s| skeletons.get(s)), *named);
        progress.inc(1);
        found
    }));
    progress.finish_and_clear();
    let files: HashSet<&Path> = lints.keys().map(|(file, _)| file.as_path()).collect();
    report(&sorted_unique(findings), files.len(), json)
}

/// `io3d check --rules`: the lint's catalogue of rules.
pub fn print_rules() -> Result<ExitCode> {
    print!("{}", catalogue());
    Ok(ExitCode::SUCCESS)
}

/// What to lint, against which skeleton, and whether it was named (on the
/// command line or by a config; a file also found in a folder counts as
/// named): every file found, and every file a config names, each once for
/// each skeleton it meets. Configs' link findings come with it.
fn plan(targets: &[Target], given: Option<&PathBuf>, progress: &ProgressBar) -> (Vec<FileFinding>, LintPlan) {
    let checked: Vec<(Vec<FileFinding>, Vec<Lint>)> = targets
        .par_iter()
        .map(|target| {
            let found = check_target(target, given);
            progress.inc(1);
            found
        })
        .collect();
    let mut findings = Vec::new();
    let mut lints = LintPlan::new();
    for (found, to_lint) in checked {
        findings.extend(found);
        for Lint { file, skeleton, named } in to_lint {
            *lints.entry((file, skeleton)).or_default() |= named;
        }
    }
    (findings, lints)
}

/// Prints the findings (grouped, or every one as JSON) and the summary;
/// exits 1 when any is an error.
fn report(findings: &[FileFinding], files: usize, json: bool) -> Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string_pretty(findings).context("cannot print findings")?);
    } else {
        print_grouped(findings);
    }
    let count = |s| findings.iter().filter(|f| f.finding.severity == s).count();
    let errors = count(Severity::Error);
    eprintln!(
        "checked {files} files: {errors} errors, {} warnings, {} notes",
        count(Severity::Warning),
        count(Severity::Info)
    );
    if !findings.is_empty() {
        eprintln!("by rule: {}", rule_counts(findings));
    }
    Ok(if errors > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The skeletons files are linted against, each read once by path.
struct Skeletons(HashMap<PathBuf, Skeleton>);

impl Skeletons {
    fn load<'a>(paths: impl Iterator<Item = &'a PathBuf>, given: Option<(PathBuf, Skeleton)>) -> Self {
        let mut skeletons: HashMap<PathBuf, Skeleton> = given.into_iter().collect();
        for path in paths {
            if !skeletons.contains_key(path)
                && let Some(skeleton) = std::fs::read(path).ok().and_then(|b| Skeleton::from_bytes(&b).ok())
            {
                skeletons.insert(path.clone(), skeleton);
            }
        }
        Self(skeletons)
    }

    /// A skeleton that read (one that did not is a finding of its own).
    fn get(&self, path: &Path) -> Option<&Skeleton> {
        self.0.get(path)
    }
}

/// Sorted by file and offset; a finding reached twice (a mesh shared by two
/// characters) is kept once.
fn sorted_unique(findings: Vec<FileFinding>) -> Vec<FileFinding> {
    let mut seen = HashSet::new();
    let mut unique: Vec<FileFinding> = findings
        .into_iter()
        .filter(|f| seen.insert((f.file.clone(), f.finding.offset, f.finding.rule, f.finding.message.clone())))
        .collect();
    unique.sort_by(|a, b| a.file.cmp(&b.file).then(a.finding.offset.cmp(&b.finding.offset)));
    unique
}

/// The findings as [`group`] lines: runs on consecutive items, and a rule
/// met on many parts of a file, each as one line.
fn print_grouped(findings: &[FileFinding]) {
    for file in findings.chunk_by(|a, b| a.file == b.file) {
        let of_file: Vec<Finding> = file.iter().map(|f| f.finding.clone()).collect();
        for line in group(&of_file) {
            println!("{}: {line}", file[0].file.display());
        }
    }
}

/// "not-unit 180, key-order 12", most common first.
fn rule_counts(findings: &[FileFinding]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in findings {
        *counts.entry(f.finding.rule.id()).or_default() += 1;
    }
    let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
    counts.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    counts.iter().map(|(rule, n)| format!("{rule} {n}")).collect::<Vec<_>>().join(", ")
}

/// The files named, with folders searched for the kinds the lint knows; a
/// folder that cannot be searched is a finding, and the search goes on.
/// Every resource folder a folder holds, however deep (a modder's folder of
/// packs), or else the one it lies in, also has its meshes paired with
/// their material scripts, each as if given alone.
fn collect(paths: &[PathBuf]) -> (Vec<Target>, Vec<FileFinding>) {
    let (mut targets, mut unsearchable) = (Vec::new(), Vec::new());
    let mut resource_folders = Vec::new();
    for path in paths {
        if !path.is_dir() {
            targets.push(Target { path: path.clone(), named: true });
            continue;
        }
        let mut found = ResourceFolder::all_under(&Disk, path);
        if found.is_empty() {
            found.extend(ResourceFolder::around(&Disk, path));
        }
        for folder in found {
            if !resource_folders.contains(&folder) {
                resource_folders.push(folder);
            }
        }
        for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
            match entry {
                Ok(entry) if entry.file_type().is_file() && is_checked(entry.path()) => {
                    targets.push(Target { path: entry.into_path(), named: false });
                }
                Ok(_) => {}
                Err(error) => unsearchable.push(FileFinding {
                    file: error.path().unwrap_or(path).to_path_buf(),
                    finding: unreadable(format!("cannot search: {error}")),
                }),
            }
        }
    }
    for folder in &resource_folders {
        let paired = check_mesh_scripts(folder).into_iter();
        unsearchable.extend(paired.map(|(file, finding)| FileFinding { file, finding }));
    }
    (targets, unsearchable)
}

fn is_checked(path: &Path) -> bool {
    ["ani", "skl", "msh", "cms", "dds", "txt"].iter().any(|ext| has_extension(path, ext))
}

/// A target's findings, and the files it asks to lint: itself (against
/// the skeleton given), or for a model config every file it names (against
/// the character's skeleton) beside the findings about its links.
fn check_target(target: &Target, skeleton: Option<&PathBuf>) -> (Vec<FileFinding>, Vec<Lint>) {
    let path = &target.path;
    let itself = Lint { file: path.clone(), skeleton: skeleton.cloned(), named: target.named };
    let is_config = has_extension(path, "txt")
        && std::fs::read(path).is_ok_and(|bytes| text_kind(path, &bytes) == Some(ResourceKind::Model));
    if !is_config {
        return (Vec::new(), vec![itself]);
    }
    let unreadable_config = |message: String| vec![FileFinding { file: path.clone(), finding: unreadable(message) }];
    match Character::load(&Disk, path) {
        Ok(character) => {
            let links = check_character(&character);
            let findings = links.findings.into_iter().map(|(file, finding)| FileFinding { file, finding }).collect();
            let named = links.files.into_iter().map(|(file, skeleton)| Lint { file, skeleton, named: true });
            (findings, named.chain([itself]).collect())
        }
        Err(error) => (unreadable_config(error.to_string()), vec![itself]),
    }
}

/// The lint of one file by its kind. `named` files that are text but
/// neither a config nor a script are a finding; found in a folder, they
/// are skipped.
fn lint_file(path: &Path, skeleton: Option<&Skeleton>, named: bool) -> Vec<FileFinding> {
    let findings = match std::fs::read(path) {
        Ok(bytes) => check_file(path, &bytes, skeleton, named),
        Err(error) => vec![unreadable(format!("cannot read: {error}"))],
    };
    findings.into_iter().map(|finding| FileFinding { file: path.to_path_buf(), finding }).collect()
}
