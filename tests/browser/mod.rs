//! The viewer's browser build (`web/build.sh` into `target/web`) in a real
//! browser: Debian's Chromium, headless, WebGL2 through SwiftShader,
//! driven by `tests/tools/browser.mjs` (puppeteer-core). Where the build,
//! Chromium or puppeteer-core is missing these say so and pass, but in CI,
//! which installs them all, they must run (unless rustup refused the
//! wasm32 target: `.ci/run` then says the web went unchecked).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use bevy_io3d::anim;
use bevy_io3d::format::{Animation, Skeleton};
use serde_json::Value;

use super::{Picture, assert_success, common, viewer};

/// How far the browser's picture of the bundled walk may stray from the
/// desktop's: the mean difference of a channel, out of 255, and the share
/// of pixels whose colour differs by more than [`NEAR`] in a channel. The
/// two software renderers
/// (SwiftShader's WebGL2, lavapipe's Vulkan) round, filter and antialias
/// differently, and the page frames the character a little smaller and
/// lower (measured: 10.3 and 10.7%), so the rig's place and size are
/// held apart, to [`PLACE_LIMIT`] pixels and [`SIZE_LIMIT`] of its height.
const MEAN_LIMIT: f64 = 12.0;
const FAR_SHARE_LIMIT: f64 = 0.13;
const NEAR: i32 = 48;
const PLACE_LIMIT: usize = 40;
const SIZE_LIMIT: f64 = 0.15;

fn crate_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// Whether the browser build and the tools to drive it are here.
fn have_browser() -> bool {
    if std::env::var_os("IO3D_WEB_UNCHECKED").is_some() {
        eprintln!("skipped: the wasm32 target could not be installed (see .ci/run)");
        return false;
    }
    let built = crate_path("target/web/index.html").is_file();
    common::have("the browser build (target/web)", built, "bash web/build.sh")
        && common::have("chromium", Path::new("/usr/bin/chromium").is_file(), "apt-get install chromium")
        && common::have(
            "puppeteer-core",
            crate_path("target/tools/node_modules/puppeteer-core").is_dir(),
            "npm install --prefix target/tools puppeteer-core@25.19.0",
        )
}

/// The folder the test's server serves: the page, and files to open made
/// by the project's own writer (a walk trimmed to 800 ms, the idle, the
/// skeleton), a damaged file, and a game folder with a character.
fn served_folder(dir: &Path) -> PathBuf {
    let served = dir.join("served");
    common::copy_tree(&crate_path("target/web"), &served);
    let read = |name: &str| std::fs::read(crate_path(&format!("assets/resource/{name}"))).unwrap();
    let walk = Animation::from_bytes(&read("animation/biped_walk_4002.ani")).unwrap();
    let short = anim::trim(&walk, 0, 800).unwrap();
    std::fs::write(served.join("walk.ani"), short.to_bytes().unwrap()).unwrap();
    // The whole walk, as read and written back, for the save.
    std::fs::write(served.join("whole.ani"), walk.to_bytes().unwrap()).unwrap();
    let idle = Animation::from_bytes(&read("animation/biped_idle_4002.ani")).unwrap();
    std::fs::write(served.join("idle.ani"), idle.to_bytes().unwrap()).unwrap();
    let skeleton = Skeleton::from_bytes(&read("skeleton/biped.skl")).unwrap();
    std::fs::write(served.join("biped.skl"), skeleton.to_bytes().unwrap()).unwrap();
    let bytes = short.to_bytes().unwrap();
    std::fs::write(served.join("broken.ani"), &bytes[..bytes.len() / 2]).unwrap();
    common::copy_tree(&crate_path("assets/resource"), &served.join("game/resource"));
    // The bundled character as a glTF model, to open as the game's files.
    let config = crate_path("assets/resource/model/animodel/biped.txt");
    io3d(&[config.as_os_str(), "-o".as_ref(), served.join("biped.glb").as_os_str()], "export");
    split_glb(&served.join("biped.glb"), &served.join("biped.gltf"), "biped.bin");
    served
}

/// Writes a `.glb` as a `.gltf` with its buffer in a file beside it,
/// named `bin`, as Blender's "glTF Separate" writes one.
fn split_glb(glb: &Path, gltf: &Path, bin: &str) {
    let bytes = std::fs::read(glb).unwrap();
    let chunk = |at: usize| {
        let length = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        (&bytes[at + 8..at + 8 + length], at + 8 + length)
    };
    let (json, next) = chunk(12);
    let (blob, _) = chunk(next);
    let mut root: Value = serde_json::from_slice(json).unwrap();
    let length = root["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
    root["buffers"][0]["uri"] = Value::from(bin);
    std::fs::write(gltf, serde_json::to_vec(&root).unwrap()).unwrap();
    std::fs::write(gltf.with_file_name(bin), &blob[..length]).unwrap();
}

/// Runs `io3d COMMAND ARGS`, which must succeed.
fn io3d(args: &[&std::ffi::OsStr], command: &str) {
    let output = Command::new(env!("CARGO_BIN_EXE_io3d")).arg(command).args(args).output().expect("io3d runs");
    assert!(output.status.success(), "io3d {command}: {}", String::from_utf8_lossy(&output.stderr));
}

/// Seconds each viewer plays for its frame time.
const FRAME_SECONDS: &str = "10";

/// The desktop viewer's mean frame time for the bundled walk in a
/// 1280x720 window under Xvfb, as it measures it (`--frame-times`).
fn desktop_frame_time() -> f64 {
    let mut command = Command::new("xvfb-run");
    command.args([
        "-a",
        "-s",
        "-screen 0 1280x720x24",
        env!("CARGO_BIN_EXE_io3d-viewer"),
        "--frame-times",
        FRAME_SECONDS,
    ]);
    let output = common::output_within(command, Duration::from_secs(180)).expect("the viewer exits");
    assert_success(&output);
    let log = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let line = log.lines().find_map(|l| l.split_once("frame time: mean ")).map(|(_, rest)| rest.to_owned());
    let mean = line.as_deref().and_then(|rest| rest.split(' ').next()).and_then(|ms| ms.parse().ok());
    mean.unwrap_or_else(|| panic!("no frame time in the viewer's log:\n{log}"))
}

/// Runs the browser script over the served folder; its results.
fn drive(served: &Path, out: &Path) -> Value {
    let mut command = Command::new("node");
    command.current_dir(env!("CARGO_MANIFEST_DIR")).arg(crate_path("tests/tools/browser.mjs")).arg(served).arg(out);
    command.env("IO3D_FRAME_SECONDS", FRAME_SECONDS);
    let output =
        common::output_within(command, Duration::from_secs(900)).expect("the browser script ends in 15 minutes");
    assert!(
        output.status.success(),
        "browser.mjs failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    serde_json::from_str(&text).expect("JSON")
}

fn scenario<'a>(results: &'a Value, name: &str) -> &'a Value {
    let found = &results[name];
    assert!(found["failed"].is_null(), "{name}: {}", found["failed"]);
    found
}

fn no_errors(found: &Value, name: &str) {
    assert_eq!(found["errors"], Value::Array(Vec::new()), "{name}: the console has errors");
}

/// No console error but the browser's own line for each file the server
/// lacks: the client's lookup asks for files that may not be there (an
/// `.ani`'s `.ant` sidecar), and a page cannot ask without a request.
fn no_errors_but_missing(found: &Value, name: &str) {
    let errors = found["errors"].as_array().expect("a list");
    let missing = |e: &&Value| e.as_str().is_some_and(|e| e.contains("status of 404"));
    assert!(errors.iter().all(|e| missing(&e)), "{name}: the console has errors: {errors:?}");
}

/// The mean channel difference and the share of far pixels between two
/// pictures of one size.
fn difference(a: &Picture, b: &Picture) -> (f64, f64) {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let (mut sum, mut far) = (0u64, 0usize);
    for y in 0..a.height {
        for x in 0..a.width {
            let (p, q) = (a.rgb(x, y).map(i32::from), b.rgb(x, y).map(i32::from));
            let gaps = [0, 1, 2].map(|c| (p[c] - q[c]).abs());
            sum += gaps.iter().map(|&g| g as u64).sum::<u64>();
            far += usize::from(gaps.iter().any(|&g| g > NEAR));
        }
    }
    let pixels = (a.width * a.height) as f64;
    (sum as f64 / (pixels * 3.0), far as f64 / pixels)
}

#[test]
fn the_viewer_runs_in_a_browser_as_on_the_desktop() {
    if !have_browser() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let served = served_folder(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let desktop = out.join("desktop.png");
    let size = ["--at-ms", "250", "--size", "1280x720", "--panels", "none"];
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"--screenshot", &desktop];
    args.extend(size.iter().map(|a| a as &dyn AsRef<std::ffi::OsStr>));
    assert_success(&viewer(&args));
    let desktop_frame_ms = desktop_frame_time();
    let results = drive(&served, &out);
    eprintln!("{}", serde_json::to_string_pretty(&results).unwrap());
    frame_times(&results, desktop_frame_ms);
    bundled_as_on_the_desktop(&results, &out.join("bundled.png"), &desktop);
    drops(&results);
    picked_folder(&results, &out);
    saved(&results, &served, dir.path());
    zipped(&results, &served, dir.path());
    separate(&results);
    address(&results);
}

/// A `.gltf` dropped with its buffer file opens as the `.glb` does.
fn separate(results: &Value) {
    let separate = scenario(results, "separate");
    no_errors_but_missing(separate, "separate");
    assert_eq!(separate["facts"]["io3dImported"], "biped", "{separate}");
    assert_eq!(separate["facts"]["io3dProblems"], "", "{separate}");
}

fn frame_times(results: &Value, desktop_frame_ms: f64) {
    let frames = scenario(results, "frames");
    no_errors(frames, "frames");
    let browser_frame_ms = frames["mean_ms"].as_f64().expect("a frame time");
    eprintln!(
        "the bundled walk at 1280x720, mean frame time: {browser_frame_ms:.1} ms in Chromium (SwiftShader), \
         {desktop_frame_ms:.1} ms on the desktop (lavapipe, Xvfb)"
    );
    assert!(browser_frame_ms > 0.0 && desktop_frame_ms > 0.0);
}

/// The bundled character at 250 ms, as the desktop draws it.
fn bundled_as_on_the_desktop(results: &Value, picture: &Path, desktop: &Path) {
    let bundled = scenario(results, "bundled");
    no_errors(bundled, "bundled");
    assert_eq!(bundled["facts"]["io3d"], "ready", "{bundled}");
    eprintln!("from opening the page to the first frame drawn (ready): {} ms", bundled["ms"]);
    let (browser, desktop) = (Picture::read(picture), Picture::read(desktop));
    let (blue, yellow) = browser.shirt_pixels();
    assert!(blue > 200 && yellow > 200, "the browser's character is textured: {blue} blue, {yellow} yellow");
    let (mean, far) = difference(&browser, &desktop);
    eprintln!("browser against desktop at 250 ms: mean difference {mean:.2} of 255, {:.2}% far", far * 100.0);
    assert!(mean < MEAN_LIMIT && far < FAR_SHARE_LIMIT, "mean {mean:.2}, far {:.3}", far);
    let ((_, [l1, t1, r1, b1]), (_, [l2, t2, r2, b2])) = (browser.bone_pixels(), desktop.bone_pixels());
    let (centre1, centre2) = (((l1 + r1) / 2, (t1 + b1) / 2), ((l2 + r2) / 2, (t2 + b2) / 2));
    eprintln!("the rig's bones: {:?} in the browser, {:?} on the desktop", [l1, t1, r1, b1], [l2, t2, r2, b2]);
    assert!(centre1.0.abs_diff(centre2.0) < PLACE_LIMIT && centre1.1.abs_diff(centre2.1) < PLACE_LIMIT);
    let (height1, height2) = ((b1 - t1) as f64, (b2 - t2) as f64);
    assert!((height1 / height2 - 1.0).abs() < SIZE_LIMIT, "heights {height1} and {height2}");
}

/// Dropped files play; a damaged one is said, and the page goes on.
fn drops(results: &Value) {
    let drop = scenario(results, "drop");
    no_errors(drop, "drop");
    assert_eq!(drop["opened"]["io3dLengthMs"], "800", "the timeline's length: {drop}");
    let problems = drop["broken"]["io3dProblems"].as_str().unwrap_or_default();
    assert!(problems.contains("broken.ani:") && problems.contains("byte"), "{problems}");
    assert_eq!(drop["after"]["io3d"], "ready");
}

/// A game folder picked whole opens its character, textured.
fn picked_folder(results: &Value, out: &Path) {
    let folder = scenario(results, "folder");
    no_errors(folder, "folder");
    assert_eq!(folder["facts"]["io3dFindings"], "", "no missing script or texture: {folder}");
    let (blue, yellow) = Picture::read(&out.join("folder.png")).shirt_pixels();
    assert!(blue > 100 && yellow > 100, "the picked character is textured: {blue} blue, {yellow} yellow");
}

/// An edit, then Save: the download is what `io3d` writes for it (the
/// whole walk converted to version 4001, its rotations re-encoded). A
/// mirror, or a conversion of the trimmed walk, comes out a few last bits
/// apart in wasm32: its float arithmetic is not the desktop's.
fn saved(results: &Value, served: &Path, dir: &Path) {
    let save = scenario(results, "save");
    no_errors_but_missing(save, "save");
    let saved = save["saved"].as_str().unwrap_or_else(|| panic!("no download: {save}"));
    let expected = dir.join("expected.ani");
    let whole = served.join("whole.ani");
    io3d(&[whole.as_os_str(), "--version".as_ref(), "4001".as_ref(), "-o".as_ref(), expected.as_os_str()], "convert");
    let same = std::fs::read(saved).unwrap() == std::fs::read(&expected).unwrap();
    assert!(same, "the download differs from io3d convert");
}

/// A glTF model dropped, then File > Save imported model: the download
/// holds the files `io3d import --model OUT.zip` writes for it, the meshes,
/// scripts, textures and config byte for byte. The skeleton and clips are
/// made by quaternion arithmetic that wasm32 rounds otherwise in a few
/// last bits (its math library and glam's code paths are not the
/// desktop's): they are held to [`NUMBER_LIMIT`], below what a 4002 file
/// stores (its rotations are packed to about 1e-4).
fn zipped(results: &Value, served: &Path, dir: &Path) {
    let zip = scenario(results, "zip");
    no_errors_but_missing(zip, "zip");
    assert_eq!(zip["facts"]["io3dImported"], "biped", "{zip}");
    let saved = zip["saved"].as_str().unwrap_or_else(|| panic!("no download: {zip}"));
    let expected = dir.join("expected.zip");
    io3d(&[served.join("biped.glb").as_os_str(), "--model".as_ref(), expected.as_os_str()], "import");
    let (got, want) = (zip_entries(Path::new(saved)), zip_entries(&expected));
    let names = |entries: &[(String, Vec<u8>)]| entries.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&got), names(&want), "the files of the download");
    for ((name, got), (_, want)) in got.iter().zip(&want) {
        if name.ends_with(".ani") {
            same_animation(name, got, want);
        } else if name.ends_with(".skl") {
            same_skeleton(name, got, want);
        } else {
            assert!(got == want, "{name} differs from io3d import --model");
        }
    }
}

/// How far a number of the browser's skeleton and clips may stray from
/// the desktop's.
const NUMBER_LIMIT: f32 = 1e-4;

fn zip_entries(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).expect("a zip");
    (0..archive.len())
        .map(|i| {
            let mut entry = archive.by_index(i).unwrap();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
            (entry.name().expect("a name").into_owned(), bytes)
        })
        .collect()
}

fn near(name: &str, what: &str, a: &[f32], b: &[f32]) {
    let gap = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
    assert!(a.len() == b.len() && gap <= NUMBER_LIMIT, "{name}: {what} {a:?} and {b:?}");
}

fn same_animation(name: &str, got: &[u8], want: &[u8]) {
    let (got, want) = (Animation::from_bytes(got).unwrap(), Animation::from_bytes(want).unwrap());
    assert_eq!((got.version, got.total_ms, &got.events), (want.version, want.total_ms, &want.events), "{name}");
    assert_eq!(got.tracks.len(), want.tracks.len(), "{name}");
    for (a, b) in got.tracks.iter().zip(&want.tracks) {
        assert_eq!((&a.bone, a.weight, a.keys.len()), (&b.bone, b.weight, b.keys.len()), "{name}");
        for (x, y) in a.keys.iter().zip(&b.keys) {
            assert_eq!(x.time_ms, y.time_ms, "{name}");
            near(name, "position", &x.position.to_array(), &y.position.to_array());
            // q and -q are one rotation (angle_between's acos is too coarse
            // for rotations this close).
            let other = if x.rotation.dot(y.rotation) < 0.0 { -y.rotation } else { y.rotation };
            near(name, "rotation", &x.rotation.to_array(), &other.to_array());
        }
    }
}

fn same_skeleton(name: &str, got: &[u8], want: &[u8]) {
    let (got, want) = (Skeleton::from_bytes(got).unwrap(), Skeleton::from_bytes(want).unwrap());
    assert_eq!(got.bones.len(), want.bones.len(), "{name}");
    for (a, b) in got.bones.iter().zip(&want.bones) {
        assert_eq!((&a.name, &a.parent, &a.children), (&b.name, &b.parent, &b.children), "{name}");
        near(name, "position", &a.position.to_array(), &b.position.to_array());
        near(name, "rotation", &a.rotation.to_array(), &b.rotation.to_array());
        near(name, "inverse bind", &a.inverse_bind_position.to_array(), &b.inverse_bind_position.to_array());
        near(name, "inverse bind", &a.inverse_bind_rotation.to_array(), &b.inverse_bind_rotation.to_array());
        near(name, "ObjectTM", &a.object_tm, &b.object_tm);
    }
}

/// Files named in the address, at a time; a config by the layout; a
/// missing file an error on the page.
fn address(results: &Value) {
    let address = scenario(results, "address");
    no_errors_but_missing(address, "address");
    no_errors_but_missing(&address["config"], "address's config");
    assert_eq!(address["facts"]["io3dClip"], "walk.ani");
    assert_eq!(address["facts"]["io3dTimeMs"], "500");
    assert_eq!(address["config"]["facts"]["io3dMeshes"], "2", "{address}");
    assert_eq!(address["config"]["facts"]["io3dFindings"], "", "{address}");
    assert_eq!(address["missing"]["io3d"], "error");
    assert!(address["missing"]["error"].as_str().unwrap_or_default().contains("nowhere.ani"), "{address}");
}
