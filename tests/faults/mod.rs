//! The fault suite: every `io3d` command on a corpus of broken files made
//! by code, and saves that fail midway. Each run must end in bounded time,
//! exit non-zero exactly when something failed, name the file (and the
//! byte or place the reader names), never panic, leave no partial output or
//! temporary file, and report the other files of a multi-file command.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use bevy_io3d::check::{Severity, check_ani, check_character, check_cms, check_material, check_msh, check_skl};
use bevy_io3d::format::{
    AniLayout, Animation, Collision, FileString, MaterialScript, Mesh, ModelConfig, ReadOptions, Skeleton,
};
use bevy_io3d::resource::Character;

use crate::common;

/// How long one command may take before it counts as a hang.
const LIMIT: Duration = Duration::from_secs(20);

/// What a corpus file is meant to be.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Ani,
    Skl,
    Config,
    Msh,
    Cms,
    Material,
}

impl Kind {
    fn extension(self) -> &'static str {
        match self {
            Self::Ani => "ani",
            Self::Skl => "skl",
            Self::Config | Self::Material => "txt",
            Self::Msh => "msh",
            Self::Cms => "cms",
        }
    }

    /// Why the strict reader refuses the bytes, if it does: the oracle for
    /// commands that read the file.
    fn refusal(self, bytes: &[u8]) -> Option<String> {
        match self {
            Self::Ani => Animation::from_bytes(bytes).err().map(|e| e.to_string()),
            Self::Skl => Skeleton::from_bytes(bytes).err().map(|e| e.to_string()),
            Self::Config => ModelConfig::parse(bytes).err().map(|e| e.to_string()),
            Self::Msh => Mesh::from_bytes(bytes).err().map(|e| e.to_string()),
            Self::Cms => Collision::from_bytes(bytes).err().map(|e| e.to_string()),
            Self::Material => MaterialScript::parse(bytes).err().map(|e| e.to_string()),
        }
    }

    /// The magic a binary file starts with.
    fn magic(self) -> Option<&'static [u8]> {
        match self {
            Self::Ani => Some(b"ANI\0"),
            Self::Skl => Some(b"SKL\0"),
            Self::Msh => Some(b"MSH\0"),
            Self::Cms => Some(b"CMS\0"),
            Self::Config | Self::Material => None,
        }
    }

    /// Whether the lint finds an error: the oracle for `io3d check`.
    fn lint_fails(self, bytes: &[u8]) -> bool {
        let findings = match self {
            Self::Ani => check_ani(bytes, None),
            Self::Skl => check_skl(bytes),
            Self::Config => return ModelConfig::parse(bytes).is_err(),
            Self::Msh => check_msh(bytes, None),
            Self::Cms => check_cms(bytes),
            Self::Material => check_material(bytes),
        };
        findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// One corpus entry: a path (a file, or something in place of one).
struct Case {
    label: String,
    path: PathBuf,
    kind: Kind,
    /// Why the file cannot be read, when it cannot: every command that
    /// reads it must fail.
    refusal: Option<String>,
    /// The reader's own error, when the tool hands the bytes to the reader
    /// (the magic is right): the message must carry it, place and byte
    /// included.
    place: Option<String>,
    /// Whether `io3d check` must exit 1.
    lint_fails: bool,
}

struct Corpus {
    dir: PathBuf,
    cases: Vec<Case>,
}

impl Corpus {
    fn file(&mut self, kind: Kind, label: &str, bytes: &[u8]) {
        let path = self.dir.join(format!("{}-{label}.{}", self.cases.len(), kind.extension()));
        std::fs::write(&path, bytes).unwrap();
        self.add(kind, label, path, bytes);
    }

    fn add(&mut self, kind: Kind, label: &str, path: PathBuf, bytes: &[u8]) {
        let refusal = kind.refusal(bytes);
        let place = refusal.clone().filter(|_| kind.magic().is_none_or(|m| bytes.starts_with(m)));
        let lint_fails = if kind == Kind::Config { config_lint_fails(&path) } else { kind.lint_fails(bytes) };
        self.cases.push(Case { label: format!("{kind:?} {label}"), path, kind, refusal, place, lint_fails });
    }

    /// Something that is not a readable file where a file should be; `io3d
    /// check` fails on it unless it is a folder (which it searches).
    fn not_a_file(&mut self, kind: Kind, label: &str, path: PathBuf) {
        let (refusal, lint_fails) = (Some("cannot read".to_owned()), !path.is_dir());
        self.cases.push(Case { label: format!("{kind:?} {label}"), path, kind, refusal, place: None, lint_fails });
    }

    /// The file cut at each offset, each bit flip, and each four-byte
    /// field set to a huge count.
    fn damaged(&mut self, kind: Kind, name: &str, bytes: &[u8], cuts: &[usize], fields: &[usize]) {
        self.file(kind, &format!("{name} whole"), bytes);
        for &cut in cuts.iter().filter(|&&c| c < bytes.len()) {
            self.file(kind, &format!("{name} cut at {cut}"), &bytes[..cut]);
        }
        for &at in fields.iter().filter(|&&at| at + 4 <= bytes.len()) {
            let mut flipped = bytes.to_vec();
            flipped[at] ^= 0x80;
            self.file(kind, &format!("{name} bit 7 of byte {at} flipped"), &flipped);
            let mut huge = bytes.to_vec();
            huge[at..at + 4].copy_from_slice(&0x7fff_fff0i32.to_le_bytes());
            self.file(kind, &format!("{name} huge value at {at}"), &huge);
        }
        let mut magic = bytes.to_vec();
        magic[..4.min(bytes.len())].copy_from_slice(&b"XYZW"[..4.min(bytes.len())]);
        self.file(kind, &format!("{name} wrong magic"), &magic);
        self.file(kind, &format!("{name} empty"), b"");
    }
}

fn ani_cuts(bytes: &[u8]) -> (Vec<usize>, Vec<usize>) {
    let (animation, layout): (Animation, AniLayout) = Animation::read(bytes, ReadOptions::default()).unwrap();
    let last = animation.tracks.len() - 1;
    let mut cuts = vec![2, 4, 8, 12, layout.total_ms, layout.total_ms + 4, layout.total_ms + 8, layout.trailer - 1];
    cuts.extend(layout.events.iter().map(|e| e + 2));
    for t in [0, 1, last] {
        cuts.extend([
            layout.tracks[t].0,
            layout.tracks[t].0 + 3,
            layout.tracks[t].1,
            layout.key(animation.version, t, 1) + 3,
        ]);
    }
    let fields = vec![4, 8, layout.total_ms + 4, layout.tracks[0].0, layout.tracks[0].1 - 4, layout.tracks[1].1];
    (cuts, fields)
}

fn skl_cuts(bytes: &[u8]) -> (Vec<usize>, Vec<usize>) {
    let (_, layout) = Skeleton::read(bytes, false).unwrap();
    let mut cuts = vec![2, 4, 8, 12, layout.trailer, layout.trailer + 2];
    cuts.extend(layout.bones.iter().step_by(5).flat_map(|&b| [b, b + 6, b + 100]));
    (cuts, vec![4, 8, layout.bones[0], layout.bones[1] + 4 + 12])
}

fn msh_cuts(bytes: &[u8]) -> (Vec<usize>, Vec<usize>) {
    let (_, layout) = Mesh::read(bytes, false).unwrap();
    let mut cuts = vec![2, 4, 8, 12, layout.mask, layout.bounds, layout.bounds + 20, layout.faces, layout.face(1) + 1];
    cuts.extend(layout.submeshes.iter().map(|s| s + 6));
    cuts.extend(layout.arrays.iter().flat_map(|(_, at)| [*at, at + 13]));
    cuts.extend(layout.bone_names.iter().map(|b| b + 5));
    cuts.extend(layout.control_points.iter().flat_map(|c| [*c, c + 9]));
    let fields = vec![4, 8, 12, 44, 48 + 16, layout.faces, layout.bone_names[0] - 4, layout.bone_names[0]];
    (cuts, fields)
}

fn corpus(dir: &Path) -> Corpus {
    let mut corpus = Corpus { dir: dir.to_path_buf(), cases: Vec::new() };
    for version in ["4000", "4001", "4002"] {
        let bytes = std::fs::read(common::asset(&format!("biped_walk_{version}.ani"))).unwrap();
        let (cuts, fields) = ani_cuts(&bytes);
        corpus.damaged(Kind::Ani, &format!("walk {version}"), &bytes, &cuts, &fields);
        let mut wrong = bytes.clone();
        wrong[4..8].copy_from_slice(&4003i32.to_le_bytes());
        corpus.file(Kind::Ani, &format!("walk {version} version 4003"), &wrong);
    }
    let skl = std::fs::read(common::asset("biped.skl")).unwrap();
    let (cuts, fields) = skl_cuts(&skl);
    corpus.damaged(Kind::Skl, "biped", &skl, &cuts, &fields);
    let skeleton = common::biped();
    let sword = common::sword(&skeleton).to_bytes().unwrap();
    let (cuts, fields) = msh_cuts(&sword);
    corpus.damaged(Kind::Msh, "sword", &sword, &cuts, &fields);
    let collision =
        Collision { positions: common::arm(&skeleton).positions, indices: vec![0, 1, 2, 2, 3, 0], trailing: vec![] };
    let cms = collision.to_bytes().unwrap();
    corpus.damaged(
        Kind::Cms,
        "collision",
        &cms,
        &[2, 6, 8, 12, 20, cms.len() - 6, cms.len() - 1],
        &[4, 8, cms.len() - 16],
    );
    let script = common::material_script("arm.dds");
    let line_starts: Vec<usize> = script.match_indices('\n').map(|(i, _)| i + 1).collect();
    corpus.damaged(Kind::Material, "script", script.as_bytes(), &line_starts, &[]);
    corpus.file(Kind::Material, "no material", b"// nothing\r\n");
    name_cases(&mut corpus);
    config_cases(&mut corpus);
    path_cases(&mut corpus);
    corpus
}

/// The labels of the clips with names of every kind, whose edits the
/// suite counts.
const NAMES: &str = "names";

/// The walk with its track names (and an event's text) replaced by names
/// of every kind a file may hold: CP949 with a side word inside, empty,
/// 259 bytes (the longest the client takes), 300 bytes (which overflows
/// its buffer: the strict reader refuses it) and pseudo-random bytes.
fn name_cases(corpus: &mut Corpus) {
    let walk = Animation::from_bytes(&std::fs::read(common::asset("biped_walk_4002.ani")).unwrap()).unwrap();
    let named = |names: &[Vec<u8>]| {
        let mut clip = walk.clone();
        for (track, name) in clip.tracks.iter_mut().zip(names.iter().cycle()) {
            track.bone = FileString::from(name.as_slice());
        }
        if let Some(event) = clip.events.first_mut() {
            event.sub_info = FileString::from(names[0].as_slice());
        }
        clip.to_bytes().unwrap()
    };
    let korean = FileString::encode_text("왼손").as_bytes().to_vec();
    let cases: [(&str, Vec<Vec<u8>>); 4] = [
        (
            "CP949",
            vec![vec![0xbf, 0xde, b' ', b'L', b' ', b'A'], korean.clone(), [b"Bip01 R ".as_slice(), &korean].concat()],
        ),
        ("empty", vec![Vec::new()]),
        ("259 bytes", vec![vec![b'L'; 259], [b"Bip01 L ".as_slice(), &[0xb0; 251]].concat()]),
        ("random bytes", (0..22u32).map(random_name).collect()),
    ];
    for (label, names) in cases {
        corpus.file(Kind::Ani, &format!("{NAMES} {label}"), &named(&names));
    }
    // 300 bytes cannot be written by the crate's writer: lengthen a
    // 259-byte name in place.
    let mut bytes = named(&[vec![b'x'; 259]]);
    let at = bytes.windows(4).position(|w| w == 259i32.to_le_bytes()).unwrap();
    bytes[at..at + 4].copy_from_slice(&300i32.to_le_bytes());
    bytes.splice(at + 4..at + 4, [b'x'; 41]);
    corpus.file(Kind::Ani, &format!("{NAMES} 300 bytes"), &bytes);
}

/// A name of `seed`-chosen bytes, zero bytes and bytes above 127 included.
fn random_name(seed: u32) -> Vec<u8> {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(12_345);
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let len = (next() % 40) as usize;
    (0..len).map(|_| (next() & 0xff) as u8).collect()
}

/// Model configs: one whose files are all beside it, one naming missing
/// files, one cut inside a list.
fn config_cases(corpus: &mut Corpus) {
    for name in ["biped.skl", "biped_walk_4002.ani", "biped_idle_4002.ani", "biped_attack_4002.ani"] {
        std::fs::copy(common::asset(name), corpus.dir.join(name)).unwrap();
    }
    let config = std::fs::read(common::asset("biped.txt")).unwrap();
    corpus.file(Kind::Config, "biped", &config);
    let missing = String::from_utf8(config.clone())
        .unwrap()
        .replace("biped_idle_4002.ani", "gone.ani")
        .replace("biped.skl", "none.skl");
    corpus.file(Kind::Config, "names missing files", missing.as_bytes());
    let text = String::from_utf8(config).unwrap();
    let cut = text.find("#ANIMATION_LIST_END").unwrap();
    corpus.file(Kind::Config, "cut inside a list", &text.as_bytes()[..cut]);
}

/// The oracle for `io3d check` on a config: it does not parse, or the
/// links between its files or the files themselves have an error.
fn config_lint_fails(path: &Path) -> bool {
    let Ok(character) = Character::load(&bevy_io3d::resource::Disk, path) else { return true };
    let links = check_character(&character);
    let error = |findings: Vec<bevy_io3d::check::Finding>| findings.iter().any(|f| f.severity == Severity::Error);
    error(links.findings.into_iter().map(|(_, f)| f).collect())
        || links.files.iter().any(|(file, _)| {
            let bytes = std::fs::read(file).unwrap_or_default();
            match bytes.get(..4) {
                Some(b"SKL\0") => error(check_skl(&bytes)),
                _ => error(check_ani(&bytes, None)),
            }
        })
}

/// Paths where no readable file is: a folder, a dangling link, a link
/// loop, a path through a file, a name too long for the file system; and a
/// good file under a non-UTF-8 name and under a long path, which must work.
fn path_cases(corpus: &mut Corpus) {
    let dir = corpus.dir.clone();
    let folder = dir.join("folder.ani");
    std::fs::create_dir(&folder).unwrap();
    corpus.not_a_file(Kind::Ani, "a folder", folder);
    let dangling = dir.join("dangling.ani");
    std::os::unix::fs::symlink(dir.join("nowhere.ani"), &dangling).unwrap();
    corpus.not_a_file(Kind::Ani, "a dangling link", dangling);
    let (a, b) = (dir.join("loop-a.skl"), dir.join("loop-b.skl"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    corpus.not_a_file(Kind::Skl, "a link loop", a);
    corpus.not_a_file(Kind::Msh, "a path through a file", dir.join("biped.skl").join("sword.msh"));
    corpus.not_a_file(Kind::Ani, "a name too long", dir.join(format!("{}.ani", "n".repeat(300))));
    let walk = std::fs::read(common::asset("biped_walk_4001.ani")).unwrap();
    let korean = dir.join(OsStr::from_bytes_unix(b"\xb0\xf8\xb0\xdd-walk.ani"));
    std::fs::write(&korean, &walk).unwrap();
    corpus.add(Kind::Ani, "a CP949 (non-UTF-8) file name", korean, &walk);
    let mut deep = dir.join("deep");
    for i in 0..12 {
        deep = deep.join(format!("{i:02}-{}", "d".repeat(60)));
    }
    std::fs::create_dir_all(&deep).unwrap();
    let long = deep.join("walk.ani");
    std::fs::write(&long, &walk).unwrap();
    corpus.add(Kind::Ani, "a path of 800 bytes", long, &walk);
}

/// `OsStr` from raw bytes on Unix.
trait FromBytes {
    fn from_bytes_unix(bytes: &[u8]) -> &OsStr;
}

impl FromBytes for OsStr {
    fn from_bytes_unix(bytes: &[u8]) -> &OsStr {
        std::os::unix::ffi::OsStrExt::from_bytes(bytes)
    }
}

/// Runs `io3d` with a time limit; `None` when it had to be killed.
fn spawn_io3d(args: &[OsString]) -> Option<Output> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_io3d"));
    command.args(args).stdin(Stdio::null());
    common::output_within(command, LIMIT)
}

/// One command of the suite on one case.
struct Run {
    command: &'static str,
    args: Vec<OsString>,
    /// The file it writes, if any.
    output: Option<PathBuf>,
    /// Whether the case's file is what the command reads (so a refused
    /// file must fail it); otherwise it may fail or not, cleanly.
    reads_case: bool,
    /// For `check`: it must exit 1 exactly when the lint finds an error.
    lint: bool,
    /// The file a failure must name, when not the case's own (an edit
    /// made on a copy).
    names: Option<PathBuf>,
    /// Other files of a multi-file command, each of which must still be
    /// reported on standard output.
    others: Vec<PathBuf>,
}

fn os(values: &[&dyn AsRef<OsStr>]) -> Vec<OsString> {
    values.iter().map(|v| v.as_ref().to_owned()).collect()
}

/// Every command that takes a file of the case's kind.
fn runs(case: &Case, out: &Path) -> Vec<Run> {
    let f = &case.path;
    let (walk, skl) = (common::asset("biped_walk_4002.ani"), common::asset("biped.skl"));
    let json = out.join("out.json");
    let written = |ext: &str| out.join(format!("out.{ext}"));
    let reading = |command, args: Vec<OsString>, output: Option<PathBuf>| Run {
        command,
        args,
        output,
        reads_case: true,
        lint: false,
        names: None,
        others: Vec::new(),
    };
    let mut runs = vec![
        reading("info", os(&[&"info", f]), None),
        reading("check", os(&[&"check", f]), None),
        reading("build", os(&[&"build", f, &"-o", &written("bin")]), Some(written("bin"))),
    ];
    runs[1].lint = true;
    let info = reading("info", os(&[&walk, f, &skl]), None);
    runs.push(Run {
        args: [OsString::from("info")].into_iter().chain(info.args).collect(),
        others: vec![walk.clone(), skl.clone()],
        ..info
    });
    if case.kind != Kind::Config {
        runs.push(reading("dump", os(&[&"dump", f]), None));
        runs.push(reading("convert", os(&[&"convert", f, &"-o", &json]), Some(json.clone())));
    }
    match case.kind {
        Kind::Ani => {
            let ani = written("ani");
            let map = out.join("map.txt");
            std::fs::write(&map, "Bip01 = Bip01\n").unwrap();
            let copy = out.join("edited.ani");
            std::fs::remove_file(&copy).ok();
            let copied = std::fs::copy(f, &copy).is_ok();
            runs.extend([
                reading("convert", os(&[&"convert", f, &"-o", &ani, &"--version", &"4000"]), Some(ani.clone())),
                reading("pose", os(&[&"pose", f, &"--skeleton", &skl, &"--at-ms", &"250"]), None),
                reading("join", os(&[&"join", f, &walk, &"-o", &ani]), Some(ani.clone())),
                reading(
                    "trim",
                    os(&[&"trim", f, &"--from-ms", &"100", &"--to-ms", &"500", &"-o", &ani]),
                    Some(ani.clone()),
                ),
                reading("resample", os(&[&"resample", f, &"--step-ms", &"50", &"-o", &ani]), Some(ani.clone())),
                reading("mirror", os(&[&"mirror", f, &"--skeleton", &skl, &"-o", &ani]), Some(ani.clone())),
                reading("retarget", os(&[&"retarget", f, &"--map", &map, &"-o", &ani]), Some(ani.clone())),
                reading("events", os(&[&"events", f, &"--list"]), None),
            ]);
            if copied {
                let add = reading("events", os(&[&"events", &copy, &"--add", &"x", &"--at-ms", &"5"]), None);
                runs.push(Run { names: Some(copy), ..add });
            }
        }
        Kind::Skl => {
            let ani = written("ani");
            let given = |command, args| reading(command, args, None);
            runs.push(given("pose", os(&[&"pose", &walk, &"--skeleton", f, &"--at-ms", &"250"])));
            runs.push(Run {
                output: Some(ani.clone()),
                ..given("mirror", os(&[&"mirror", &walk, &"--skeleton", f, &"-o", &ani]))
            });
            runs.push(given("retarget", os(&[&"retarget", &"--suggest", &"--from", f, &"--to", &skl])));
            runs.push(given("check", os(&[&"check", &walk, &"--skeleton", f])));
        }
        Kind::Msh => {
            runs.push(reading(
                "pose",
                os(&[&"pose", &walk, &"--skeleton", &skl, &"--at-ms", &"250", &"--mesh", f]),
                None,
            ));
            let msh = written("msh");
            runs.push(reading("convert", os(&[&"convert", f, &"-o", &msh, &"--version", &"2002"]), Some(msh)));
        }
        Kind::Config | Kind::Cms | Kind::Material => {}
    }
    runs
}

/// What went wrong with one run, if anything.
fn verdict(case: &Case, run: &Run, out: &Path, output: Option<Output>) -> Result<(), String> {
    let output = output.ok_or_else(|| format!("did not end within {LIMIT:?}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("panicked") || output.status.code().is_none_or(|c| c == 101) {
        return Err(format!("panicked or was killed: {stderr}"));
    }
    let failed = !output.status.success();
    let stdout = String::from_utf8_lossy(&output.stdout);
    if let Some(missing) = run.others.iter().find(|o| !stdout.contains(&o.display().to_string())) {
        return Err(format!("{} is not reported beside the broken file", missing.display()));
    }
    let leftovers: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".io3d-"))
        .collect();
    if !leftovers.is_empty() {
        return Err(format!("left a temporary file: {:?}", leftovers[0].path()));
    }
    // `build` reads JSON, which no corpus file is.
    let must_fail = run.reads_case && case.refusal.is_some();
    if run.lint {
        let must = case.lint_fails;
        if failed != must {
            return Err(format!("check exited {:?}, expected failure: {must}", output.status.code()));
        }
    } else if must_fail && !failed {
        return Err("succeeded on a file it cannot read".into());
    }
    if failed && !run.lint {
        let name = run.names.as_ref().unwrap_or(&case.path).file_name().unwrap().to_string_lossy();
        let named = stderr.contains(name.as_ref())
            || run.output.as_ref().is_some_and(|o| stderr.contains(&o.display().to_string()));
        if !named {
            return Err(format!("the message does not name the file: {stderr}"));
        }
        let place = case.place.as_deref().filter(|_| run.reads_case);
        if let Some(refusal) = place
            && !stderr.contains(refusal)
        {
            return Err(format!("the message lacks the reader's '{refusal}': {stderr}"));
        }
        if let Some(written) = &run.output
            && written.exists()
        {
            return Err(format!("left partial output {}", written.display()));
        }
    }
    Ok(())
}

#[test]
fn every_command_on_every_broken_file_ends_fails_clearly_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(&dir.path().join("corpus").tap_create());
    // Two workers, each with its own output folder.
    let results: Vec<Verdict> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|k| {
                let (cases, out) = (&corpus.cases, dir.path().join(format!("out-{k}")).tap_create());
                scope.spawn(move || {
                    cases.iter().skip(k).step_by(2).flat_map(|case| run_case(case, &out)).collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    let mut table: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    for verdict in &results {
        let entry = table.entry(verdict.command).or_default();
        entry.0 += 1;
        entry.1 += usize::from(verdict.result.is_ok());
    }
    println!("command   cases   handled");
    for (command, (run, handled)) in &table {
        println!("{command:<9} {run:>5}   {handled:>7}");
    }
    println!("{} corpus files", corpus.cases.len());
    // Every edit ran on the clips named in every way.
    let on_names = |command: &str| {
        results.iter().filter(|v| v.command == command && v.case.contains(&format!("Ani {NAMES} "))).count()
    };
    for command in ["mirror", "retarget", "join", "trim", "resample", "events"] {
        println!("{command:<9} on {:>2} clips with names of every kind", on_names(command));
        assert!(on_names(command) >= 5, "{command} ran on {} clips with odd names", on_names(command));
    }
    let failures: Vec<String> = results
        .iter()
        .filter_map(|v| v.result.as_ref().err().map(|why| format!("{}: {}: {why}", v.case, v.command)))
        .collect();
    assert!(failures.is_empty(), "{} cases not handled:\n{}", failures.len(), failures.join("\n"));
}

/// How one command did on one case.
struct Verdict {
    case: String,
    command: &'static str,
    result: Result<(), String>,
}

/// Every command on one case, each in a clean output folder.
fn run_case(case: &Case, out: &Path) -> Vec<Verdict> {
    runs(case, out)
        .into_iter()
        .map(|run| {
            clear(out);
            let result = verdict(case, &run, out, spawn_io3d(&run.args));
            Verdict { case: format!("{} ({})", case.label, case.path.display()), command: run.command, result }
        })
        .collect()
}

/// Empties the output folder between runs (keeping the bone map and the
/// copy an edit works on).
fn clear(out: &Path) {
    for entry in std::fs::read_dir(out).unwrap().filter_map(Result::ok) {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with("out.") {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
}

trait TapCreate {
    fn tap_create(self) -> Self;
}

impl TapCreate for PathBuf {
    /// The folder, created.
    fn tap_create(self) -> Self {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}

/// A save that cannot complete: every writing command, into a folder that
/// is missing, a folder that takes no new file (`/proc/self`, which even
/// root cannot write: permission bits stop nothing for root), over a file
/// marked read-only (refused by the tool, since a rename would replace it
/// whatever its bits), and past a file size limit (`ulimit -f`). The
/// original stays byte-identical, the message names the file and the
/// cause, and no temporary file is left.
#[test]
fn saves_that_fail_keep_the_original_and_leave_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let (walk, skl) = (common::asset("biped_walk_4002.ani"), common::asset("biped.skl"));
    let original = std::fs::read(&walk).unwrap();
    let map = dir.path().join("map.txt");
    std::fs::write(&map, "Bip01 = Bip01\nBip01 Pelvis = Bip01 Pelvis\n").unwrap();
    let writes = |target: &Path| -> Vec<(&'static str, Vec<OsString>)> {
        vec![
            ("convert", os(&[&"convert", &walk, &"-o", &target, &"--version", &"4000"])),
            ("build", os(&[&"build", &walk, &"-o", &target])),
            ("join", os(&[&"join", &walk, &walk, &"-o", &target])),
            ("trim", os(&[&"trim", &walk, &"--from-ms", &"0", &"--to-ms", &"900", &"-o", &target])),
            ("resample", os(&[&"resample", &walk, &"--step-ms", &"20", &"-o", &target])),
            ("mirror", os(&[&"mirror", &walk, &"--skeleton", &skl, &"-o", &target])),
            ("retarget", os(&[&"retarget", &walk, &"--map", &map, &"-o", &target])),
            ("events", os(&[&"events", &walk, &"--add", &"x", &"--at-ms", &"5", &"-o", &target])),
        ]
    };
    let mut handled = BTreeMap::new();
    let mut failures = Vec::new();
    let folder = dir.path().join("saves");
    for fault in ["a missing folder", "a folder that takes no file", "a read-only file", "the file size limit"] {
        std::fs::create_dir_all(&folder).unwrap();
        let target = match fault {
            "a missing folder" => folder.join("missing").join("out.ani"),
            "a folder that takes no file" => PathBuf::from("/proc/self/io3d-out.ani"),
            _ => folder.join("out.ani"),
        };
        for (command, args) in writes(&target) {
            if fault != "a folder that takes no file" && target.parent().unwrap().is_dir() {
                std::fs::write(&target, &original).unwrap();
                set_readonly(&target, fault == "a read-only file");
            }
            let output = if fault == "the file size limit" {
                let mut shell = vec![OsString::from("-c"), OsString::from("ulimit -f 1; exec \"$0\" \"$@\"")];
                shell.push(env!("CARGO_BIN_EXE_io3d").into());
                shell.extend(args);
                Command::new("sh").args(&shell).stdin(Stdio::null()).output().ok()
            } else {
                spawn_io3d(&args)
            };
            let verdict = save_verdict(&target, &original, fault, output);
            let entry: &mut (usize, usize) = handled.entry(command).or_default();
            entry.0 += 1;
            match verdict {
                Ok(()) => entry.1 += 1,
                Err(why) => failures.push(format!("{command} with {fault}: {why}")),
            }
            set_readonly(&target, false);
        }
        let leftovers: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().starts_with(".io3d-"))
            .collect();
        assert!(leftovers.is_empty(), "{fault}: temporary files left: {leftovers:?}");
        std::fs::remove_dir_all(&folder).unwrap();
    }
    println!("save fault   cases   handled");
    for (command, (run, ok)) in &handled {
        println!("{command:<12} {run:>5}   {ok:>7}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn set_readonly(path: &Path, readonly: bool) {
    if let Ok(meta) = std::fs::metadata(path) {
        let mut permissions = meta.permissions();
        permissions.set_readonly(readonly);
        std::fs::set_permissions(path, permissions).unwrap();
    }
}

/// What went wrong with a save that had to fail, if anything.
fn save_verdict(target: &Path, original: &[u8], fault: &str, output: Option<Output>) -> Result<(), String> {
    let output = output.ok_or("did not end in time")?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        return Err("succeeded".into());
    }
    if stderr.contains("panicked") || output.status.code().is_none() {
        return Err(format!("panicked or was killed ({}): {stderr}", output.status));
    }
    let cause = match fault {
        "a missing folder" | "a folder that takes no file" => "No such file or directory",
        "a read-only file" => "read-only",
        _ => "File too large",
    };
    if !stderr.contains(&target.display().to_string()) || !stderr.contains(cause) {
        return Err(format!("the message lacks the file or '{cause}': {stderr}"));
    }
    if target.exists() && std::fs::read(target).unwrap() != original {
        return Err("the original changed".into());
    }
    Ok(())
}
