//! The viewer as a user runs it: offscreen captures through the software
//! Vulkan driver, and the real window under Xvfb. These render, so they
//! need a Vulkan driver (`mesa-vulkan-drivers` gives lavapipe) and, for
//! the window, `xvfb-run`; `.ci/run` installs both.

mod browser;
mod common;
mod palette;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A decoded RGB(A) picture.
struct Picture {
    width: usize,
    height: usize,
    channels: usize,
    pixels: Vec<u8>,
}

impl Picture {
    fn read(path: &Path) -> Self {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().expect("a PNG");
        let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut pixels).expect("one frame");
        let channels = info.line_size / info.width as usize;
        pixels.truncate(info.line_size * info.height as usize);
        Self { width: info.width as usize, height: info.height as usize, channels, pixels }
    }

    fn rgb(&self, x: usize, y: usize) -> [u8; 3] {
        let at = (y * self.width + x) * self.channels;
        [self.pixels[at], self.pixels[at + 1], self.pixels[at + 2]]
    }

    /// Pixels in the bones' colour (a light blue-grey, bluer than egui's
    /// grey text): their count and bounding box.
    fn bone_pixels(&self) -> (usize, [usize; 4]) {
        let mut count = 0;
        let mut bounds = [usize::MAX, usize::MAX, 0, 0];
        for y in 0..self.height {
            for x in 0..self.width {
                let [r, g, b] = self.rgb(x, y);
                if r > 150 && g > 150 && b > 170 && b as i32 - r as i32 >= 10 {
                    count += 1;
                    bounds = [bounds[0].min(x), bounds[1].min(y), bounds[2].max(x), bounds[3].max(y)];
                }
            }
        }
        (count, bounds)
    }
}

impl Picture {
    /// Pixels in the bundled texture's shirt colours, lit or in shade:
    /// blue stripes and yellow stripes.
    fn shirt_pixels(&self) -> (usize, usize) {
        let (mut blue, mut yellow) = (0, 0);
        for y in 0..self.height {
            for x in 0..self.width {
                let [r, g, b] = self.rgb(x, y).map(i32::from);
                blue += usize::from(b > r + 50 && b > g + 30 && b > 60);
                yellow += usize::from(r > b + 60 && g > b + 50 && r > 80);
            }
        }
        (blue, yellow)
    }

    /// Pixels in the collision edges' green.
    fn green_pixels(&self) -> usize {
        let mut count = 0;
        for y in 0..self.height {
            for x in 0..self.width {
                let [r, g, b] = self.rgb(x, y);
                count += usize::from(g > 180 && r < 150 && b < 150);
            }
        }
        count
    }

    /// Pixels black enough to be an outline (the stage's clear colour and
    /// lit surfaces are lighter).
    fn black_pixels(&self) -> usize {
        let mut count = 0;
        for y in 0..self.height {
            for x in 0..self.width {
                count += usize::from(self.rgb(x, y).iter().all(|&c| c < 12));
            }
        }
        count
    }
}

impl Picture {
    /// Pixels of the clay a mesh without a material is drawn in (a light
    /// warm grey, lit or in shade; not the stage's blue-greys nor the
    /// banner's ambers): their count and bounding box.
    fn clay_pixels(&self) -> (usize, [usize; 4]) {
        let mut count = 0;
        let mut bounds = [usize::MAX, usize::MAX, 0, 0];
        for y in 0..self.height {
            for x in 0..self.width {
                let [r, g, b] = self.rgb(x, y).map(i32::from);
                if r > 90 && r >= g && g >= b && (12..60).contains(&(r - b)) {
                    count += 1;
                    bounds = [bounds[0].min(x), bounds[1].min(y), bounds[2].max(x), bounds[3].max(y)];
                }
            }
        }
        (count, bounds)
    }

    /// Pixels of the banner's dark amber strip in the top fifth of the
    /// picture, where the stage says what the game would not draw.
    fn banner_pixels(&self) -> usize {
        let mut count = 0;
        for y in 0..self.height / 5 {
            for x in 0..self.width {
                let [r, g, b] = self.rgb(x, y);
                count += usize::from(r.abs_diff(74) < 8 && g.abs_diff(46) < 8 && b.abs_diff(8) < 8);
            }
        }
        count
    }
}

impl Picture {
    /// The bounding box of the stage's clear colour (a dark blue-grey,
    /// unlike egui's neutral greys), as a share of the picture.
    fn stage_share(&self) -> f64 {
        let mut bounds = [usize::MAX, usize::MAX, 0, 0];
        for y in 0..self.height {
            for x in 0..self.width {
                let [r, g, b] = self.rgb(x, y).map(i32::from);
                if r < 45 && b - r >= 5 && b > g {
                    bounds = [bounds[0].min(x), bounds[1].min(y), bounds[2].max(x), bounds[3].max(y)];
                }
            }
        }
        let [left, top, right, bottom] = bounds;
        ((right + 1).saturating_sub(left) * (bottom + 1).saturating_sub(top)) as f64 / (self.width * self.height) as f64
    }
}

/// Runs the viewer, killing it (and failing the test) if it has not
/// exited within three minutes: a capture must never hang a batch job.
fn viewer(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_io3d-viewer"));
    command.args(args.iter().map(|a| a.as_ref()));
    common::output_within(command, Duration::from_secs(180)).unwrap_or_else(|| {
        panic!("io3d-viewer {:?} did not exit within 180 s", args.iter().map(|a| a.as_ref()).collect::<Vec<_>>())
    })
}

fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "io3d-viewer failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

fn walk() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/biped_walk_4002.ani")
}

fn skeleton() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/biped.skl")
}

#[test]
fn offscreen_captures_show_the_walk_moving_in_the_middle_of_the_stage() {
    let dir = tempfile::tempdir().unwrap();
    let mut pictures = Vec::new();
    for at in ["0", "500"] {
        let png = dir.path().join(format!("walk-{at}.png"));
        let output = viewer(&[&skeleton(), &walk(), &"--screenshot", &png, &"--at-ms", &at, &"--size", &"960x600"]);
        assert_success(&output);
        let picture = Picture::read(&png);
        assert_eq!((picture.width, picture.height), (960, 600));
        let (count, [left, top, right, bottom]) = picture.bone_pixels();
        assert!(count > 300, "at {at} ms the bones cover {count} pixels");
        // The panels take the sides and the bottom; the rig stands framed
        // in the space between them.
        let centre = (left + right) / 2;
        assert!((250..710).contains(&centre), "at {at} ms the rig is centred at x {centre}");
        assert!(bottom - top > 150, "at {at} ms the rig is {} pixels tall", bottom - top);
        pictures.push(picture);
    }
    let differing = pictures[0].pixels.iter().zip(&pictures[1].pixels).filter(|(a, b)| a != b).count();
    assert!(differing > 1000, "0 ms and 500 ms differ in only {differing} bytes");
}

/// The bundled character, skinned and textured: its shirt's two stripe
/// colours show (the texture, not one flat shade), and it moves.
#[test]
fn the_bundled_character_is_drawn_textured_and_walks() {
    let dir = tempfile::tempdir().unwrap();
    let differing = shirt_at_two_instants(dir.path(), &[], ["0", "500"]);
    assert!(differing > 3000, "0 ms and 500 ms differ in only {differing} bytes");
}

/// Captures the files `opened` (the bundled sample when none) at two
/// instants with the panels hidden, checks that the bundled texture's shirt
/// shows in each, and returns how many bytes of the two pictures differ.
fn shirt_at_two_instants(dir: &Path, opened: &[&dyn AsRef<std::ffi::OsStr>], times: [&str; 2]) -> usize {
    let pictures: Vec<Picture> = times
        .iter()
        .map(|at| {
            let png = dir.join(format!("shirt-{at}.png"));
            let args: [&dyn AsRef<std::ffi::OsStr>; 9] =
                [&"--screenshot", &png, &"--at-ms", at, &"--size", &"960x600", &"--panels", &"none", &"--look"];
            assert_success(&viewer(&[opened, &args[..], &[&"lit"]].concat()));
            let picture = Picture::read(&png);
            let (blue, yellow) = picture.shirt_pixels();
            assert!(blue > 400 && yellow > 400, "at {at} ms the shirt shows {blue} blue and {yellow} yellow pixels");
            picture
        })
        .collect();
    pictures[0].pixels.iter().zip(&pictures[1].pixels).filter(|(a, b)| a != b).count()
}

/// A copy of the bundled resource folder with a static model config (no
/// skeleton) showing the bundled body: the folder and the config.
fn statue(dir: &Path) -> (PathBuf, PathBuf) {
    let resource = dir.join("resource");
    common::copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource"), &resource);
    let statue = resource.join("model/staticmodel/statue.txt");
    std::fs::create_dir_all(statue.parent().unwrap()).unwrap();
    std::fs::write(&statue, "#MODEL_CFG\n#MESH_LIST\nbiped_body\n#MESH_LIST_END\n#MODEL_END\n").unwrap();
    (resource, statue)
}

/// A model config with no skeleton (a map, a prop, a weapon on a stand)
/// and a mesh opened alone are drawn with their scripts' textures, skinned
/// meshes at their bind pose, framed; their captures settle.
#[test]
fn a_static_model_and_a_lone_mesh_are_drawn_without_a_skeleton() {
    let dir = tempfile::tempdir().unwrap();
    let (resource, statue) = statue(dir.path());
    for (what, file) in [("static model", statue), ("lone mesh", resource.join("mesh/biped_body.msh"))] {
        let png = dir.path().join("static.png");
        assert_success(&viewer(&[&file, &"--screenshot", &png, &"--size", &"960x600"]));
        let picture = Picture::read(&png);
        let (blue, yellow) = picture.shirt_pixels();
        assert!(blue > 400 && yellow > 400, "the {what}'s shirt shows {blue} blue and {yellow} yellow pixels");
        assert_eq!(picture.banner_pixels(), 0, "the game draws the {what}: no banner");
    }
}

/// How long a capture may take (the viewer's own limit).
const CAPTURE_LIMIT: Duration = Duration::from_secs(30);

/// A mesh with no weights: the static kind (props, maps).
fn unskinned(mut mesh: bevy_io3d::format::Mesh) -> bevy_io3d::format::Mesh {
    use bevy_io3d::format::msh::VertexMask;
    mesh.mesh_type = 0;
    mesh.mask = VertexMask(mesh.mask.0 & !(VertexMask::WEIGHTS | VertexMask::INDICES));
    mesh.weights = None;
    mesh.control_points.clear();
    mesh
}

/// Meshes opened alone, with no material script and no skeleton for them
/// (extracted without their resource folder, or exported under another
/// name than the script beside them): each is drawn in clay, framed, a
/// skinned one at its bind pose, and the stage and the log say the game
/// would not draw it, within the capture's limit.
#[test]
fn a_lone_mesh_with_no_script_or_skeleton_is_drawn_in_clay_and_said_undrawn() {
    let skeleton = common::biped();
    let skinned = common::arm(&skeleton);
    assert!(skinned.weights.as_ref().is_some_and(|w| !w.names.is_empty()), "weights and bone names");
    let chain = ["Bip01 L UpperArm", "Bip01 L Forearm"];
    let prop = unskinned(common::tube(&skeleton, &chain, glam::Vec3::new(20.0, 0.0, 0.0), 8.0));
    for (name, mesh) in [("shovel_knight_body", skinned), ("crate", prop)] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(format!("{name}.msh"));
        std::fs::write(&file, mesh.to_bytes().unwrap()).unwrap();
        std::fs::write(dir.path().join("patriot_body.txt"), common::material_script("patriot.dds")).unwrap();
        let png = dir.path().join("clay.png");
        let started = Instant::now();
        let output = viewer(&[&file, &"--screenshot", &png, &"--size", &"960x600", &"--panels", &"none"]);
        let took = started.elapsed();
        assert_success(&output);
        assert!(took < CAPTURE_LIMIT, "{name}: written after {took:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let notice = format!("The game would not draw {name}: material script: no material file named '{name}.txt'");
        assert!(stderr.contains(&notice), "{name}: the log says why the game would not draw it: {stderr}");
        assert_eq!(stderr.contains("at its bind pose"), mesh.is_skinned(), "{name}: {stderr}");
        let picture = Picture::read(&png);
        let (clay, [left, top, right, bottom]) = picture.clay_pixels();
        assert!(clay > 3000, "{name}: the clay covers {clay} pixels");
        let centre = [(left + right) / 2, (top + bottom) / 2];
        assert!((240..720).contains(&centre[0]) && (150..450).contains(&centre[1]), "{name}: centred at {centre:?}");
        assert!(right - left > 240 || bottom - top > 150, "{name}: framed, {left}..{right} x {top}..{bottom}");
        let banner = picture.banner_pixels();
        assert!(banner > 2000, "{name}: the banner covers {banner} pixels");
    }
}

/// A capture is saved as every file is: over a file marked read-only it
/// fails, naming it, and leaves it as it was, with no temporary file.
#[test]
fn a_capture_over_a_read_only_file_fails_and_leaves_it() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("kept.png");
    std::fs::write(&png, b"not replaced").unwrap();
    let mut permissions = std::fs::metadata(&png).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&png, permissions).unwrap();
    let output = viewer(&[&skeleton(), &"--screenshot", &png, &"--size", &"320x200"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the capture must fail: {stderr}");
    assert!(stderr.contains(&format!("{}: cannot write", png.display())) && stderr.contains("read-only"), "{stderr}");
    assert_eq!(std::fs::read(&png).unwrap(), b"not replaced");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
}

/// A capture that cannot complete (a mesh with no faces leaves nothing to
/// frame) gives up at the limit, saying what it was still waiting for,
/// and writes nothing.
#[test]
fn a_capture_that_cannot_complete_gives_up_at_the_limit_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let mut mesh = unskinned(common::arm(&common::biped()));
    mesh.indices.clear();
    mesh.submeshes.iter_mut().for_each(|submesh| submesh.face_count = 0);
    let file = dir.path().join("nothing.msh");
    std::fs::write(&file, mesh.to_bytes().unwrap()).unwrap();
    let png = dir.path().join("never.png");
    let started = Instant::now();
    let output = viewer(&[&file, &"--screenshot", &png, &"--size", &"320x200"]);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the capture must fail: {stderr}");
    assert!(stderr.contains("not written: after 30s still waiting for the camera to frame"), "{stderr}");
    assert!(took < CAPTURE_LIMIT + Duration::from_secs(20), "gave up after {took:?}");
    assert!(!png.exists());
}

/// The game look draws each script's outline pass: dark pixels around the
/// silhouette that the plain lit look lacks.
#[test]
fn the_game_look_outlines_the_character() {
    let dir = tempfile::tempdir().unwrap();
    let mut black = Vec::new();
    for look in ["game", "lit"] {
        let png = dir.path().join(format!("{look}.png"));
        let args: [&dyn AsRef<std::ffi::OsStr>; 9] =
            [&"--screenshot", &png, &"--at-ms", &"250", &"--size", &"960x600", &"--panels", &"none", &"--look"];
        assert_success(&viewer(&[&args[..], &[&look]].concat()));
        black.push(Picture::read(&png).black_pixels());
    }
    assert!(black[0] > black[1] + 300, "outline pixels: {} with the game look, {} without", black[0], black[1]);
}

/// The game look toon-shades the character: surfaces turned to the light
/// show their texture's own colours (ramp x light + ambient reaches 1 with
/// the game's default light), where lit PBR surfaces are shaded.
#[test]
fn the_game_look_toon_shades_lit_faces_in_the_textures_own_colours() {
    let dir = tempfile::tempdir().unwrap();
    let texture =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource/texture/biped.dds")).unwrap();
    let texels = bevy_io3d::format::Dds::from_bytes(&texture).unwrap().decode(0);
    let mut palette: Vec<[u8; 3]> = texels.chunks_exact(4).map(|t| [t[0], t[1], t[2]]).collect();
    palette.sort();
    palette.dedup();
    let mut exact = Vec::new();
    for look in ["game", "lit"] {
        let png = dir.path().join(format!("{look}.png"));
        let args: [&dyn AsRef<std::ffi::OsStr>; 9] =
            [&"--screenshot", &png, &"--at-ms", &"250", &"--size", &"960x600", &"--panels", &"none", &"--look"];
        assert_success(&viewer(&[&args[..], &[&look]].concat()));
        let picture = Picture::read(&png);
        let near = |c: [u8; 3], t: &[u8; 3]| c.iter().zip(t).all(|(a, b)| a.abs_diff(*b) <= 3);
        let count = (0..picture.height)
            .flat_map(|y| (0..picture.width).map(move |x| (x, y)))
            .filter(|&(x, y)| palette.iter().any(|t| near(picture.rgb(x, y), t)))
            .count();
        exact.push(count);
    }
    assert!(
        exact[0] > 1000 && exact[0] > 3 * exact[1],
        "texels shown as they are: {} toon, {} lit",
        exact[0],
        exact[1]
    );
}

/// A script's `scroll_anim` moves its texture: two captures of a still
/// statue at two instants differ, each showing the shirt.
#[test]
fn a_scrolling_texture_moves_between_two_captures() {
    let dir = tempfile::tempdir().unwrap();
    let (resource, statue) = statue(dir.path());
    let script = resource.join("material/biped_body.txt");
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(&script, text.replace("tex_coord_set 0", "tex_coord_set 0\n\t\t\t\tscroll_anim 0.5 0")).unwrap();
    let differing = shirt_at_two_instants(dir.path(), &[&statue], ["0", "250"]);
    assert!(differing > 1000, "the texture did not move: {differing} bytes differ");
}

/// A texture, a material script and a collision mesh each open on their
/// own: the texture on a card, the script's material on a ball, the
/// collision's edges.
#[test]
fn a_texture_a_script_and_a_collision_mesh_open_on_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let texture = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resource/texture/biped.dds");
    let script = dir.path().join("red.txt");
    let unlit_red = "material Red\n{\n diffuse 1 0 0 1\n technique\n {\n  pass\n  {\n   lighting false\n  }\n }\n}\n";
    std::fs::write(&script, unlit_red).unwrap();
    let cms = dir.path().join("floor.cms");
    std::fs::write(&cms, floor().to_bytes().unwrap()).unwrap();
    let count = |png: &Path, test: fn([u8; 3]) -> bool| {
        let picture = Picture::read(png);
        (0..picture.height)
            .flat_map(|y| (0..picture.width).map(move |x| (x, y)))
            .filter(|&(x, y)| test(picture.rgb(x, y)))
            .count()
    };
    let shot = |file: &Path, name: &str| {
        let png = dir.path().join(name);
        assert_success(&viewer(&[&file, &"--screenshot", &png, &"--size", &"960x600", &"--panels", &"none"]));
        png
    };
    let (blue, yellow) = Picture::read(&shot(&texture, "texture.png")).shirt_pixels();
    assert!(blue > 400 && yellow > 400, "the texture's stripes: {blue} blue and {yellow} yellow pixels");
    let red = count(&shot(&script, "script.png"), |[r, g, b]| r > 200 && g < 40 && b < 40);
    assert!(red > 2000, "the script's red ball covers {red} pixels");
    let green = Picture::read(&shot(&cms, "collision.png")).green_pixels();
    assert!(green > 300, "the collision's edges cover {green} pixels");
}

/// A collision mesh opened alone comes with the model that names it: its
/// edges over the model.
#[test]
fn a_collision_mesh_opens_over_the_model_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let (resource, statue) = statue(dir.path());
    let config = "#MODEL_CFG\n#MESH_LIST\nbiped_body\n#MESH_LIST_END\n#COLLISION_MESH\nfloor.cms\n#MODEL_END\n";
    std::fs::write(&statue, config).unwrap();
    let cms = resource.join("mesh/floor.cms");
    std::fs::write(&cms, floor().to_bytes().unwrap()).unwrap();
    let png = dir.path().join("collision.png");
    assert_success(&viewer(&[&cms, &"--screenshot", &png, &"--size", &"960x600", &"--panels", &"none"]));
    let picture = Picture::read(&png);
    let (blue, yellow) = picture.shirt_pixels();
    assert!(blue > 150 && yellow > 150, "the model, framed with the floor: {blue} blue and {yellow} yellow pixels");
    assert!(picture.green_pixels() > 300, "the collision's edges: {} pixels", picture.green_pixels());
}

/// A square floor 400 units wide, as a collision mesh.
fn floor() -> bevy_io3d::format::Collision {
    let corners = [(-200.0, -200.0), (200.0, -200.0), (200.0, 200.0), (-200.0, 200.0)];
    bevy_io3d::format::Collision {
        positions: corners.iter().map(|&(x, z)| glam::Vec3::new(x, 0.0, z)).collect(),
        indices: vec![0, 1, 2, 0, 2, 3],
        trailing: Vec::new(),
    }
}

/// At the smallest size the panels shrink and leave the stage over half
/// of the window; `--panels none` leaves it all of it.
#[test]
fn the_stage_keeps_half_the_window_at_640x360_and_all_of_it_without_panels() {
    let dir = tempfile::tempdir().unwrap();
    for (panels, least) in [("all", 0.5), ("none", 0.97)] {
        let png = dir.path().join(format!("{panels}.png"));
        assert_success(&viewer(&[&"--screenshot", &png, &"--size", &"640x360", &"--panels", &panels]));
        let share = Picture::read(&png).stage_share();
        assert!(share >= least, "--panels {panels}: the stage takes {share:.2} of the window");
    }
}

#[test]
fn an_animation_alone_gets_a_guessed_skeleton_and_a_skeleton_alone_stands_at_rest() {
    let dir = tempfile::tempdir().unwrap();
    for (name, file) in [("guess.png", walk()), ("rest.png", skeleton())] {
        let png = dir.path().join(name);
        assert_success(&viewer(&[&file, &"--screenshot", &png, &"--size", &"800x500"]));
        let (count, _) = Picture::read(&png).bone_pixels();
        assert!(count > 200, "{name}: the rig is drawn ({count} pixels)");
    }
}

/// Files the viewer cannot open, one of each kind of fault the `io3d`
/// fault suite covers, made in `dir`.
fn unopenable(dir: &Path) -> Vec<PathBuf> {
    let walk = std::fs::read(walk()).unwrap();
    let skeleton = std::fs::read(skeleton()).unwrap();
    let mut files = Vec::new();
    let mut file = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        files.push(path);
    };
    file("header.ani", b"ANI\0\x40\x0f\0\0");
    file("cut.ani", &walk[..777]);
    let with = |at: usize, value: i32, bytes: &[u8]| {
        let mut changed = bytes.to_vec();
        changed[at..at + 4].copy_from_slice(&value.to_le_bytes());
        changed
    };
    file("version.ani", &with(4, 4003, &walk));
    file("huge.ani", &with(8, i32::MAX, &walk));
    file("magic.ani", &with(0, 0, &walk));
    file("empty.ani", b"");
    file("cut.skl", &skeleton[..300]);
    file("config.txt", b"#MODEL_CFG\r\n#SKELETON\r\nnone.skl\r\n#MODEL_END\r\n");
    let folder = dir.join("folder.ani");
    std::fs::create_dir(&folder).unwrap();
    let dangling = dir.join("dangling.ani");
    std::os::unix::fs::symlink(dir.join("nowhere.ani"), &dangling).unwrap();
    files.extend([folder, dangling, dir.join("missing.ani")]);
    files
}

#[test]
fn a_capture_of_files_that_do_not_open_fails_at_once_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let files = unopenable(dir.path());
    let out = tempfile::tempdir().unwrap();
    let mut cases: Vec<Vec<&dyn AsRef<std::ffi::OsStr>>> =
        files.iter().map(|f| vec![f as &dyn AsRef<std::ffi::OsStr>]).collect();
    let good = walk();
    cases.push(vec![&good, &files[0]]);
    for files in cases {
        let png = out.path().join("never.png");
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = files.to_vec();
        args.extend([&"--screenshot" as &dyn AsRef<std::ffi::OsStr>, &png, &"--size", &"320x200"]);
        let started = Instant::now();
        let output = viewer(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let named = files.last().unwrap().as_ref().to_string_lossy().into_owned();
        assert!(!output.status.success(), "{named}: the capture must fail");
        assert!(stderr.contains(&named) && stderr.contains("not written"), "{named} is named: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!png.exists(), "no picture for {named}");
        assert!(started.elapsed() < Duration::from_secs(60), "{named}: took {:?}", started.elapsed());
    }
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "no temporary file left");
}

#[test]
fn the_window_opens_under_xvfb_takes_a_screenshot_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("window.png");
    let output = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_io3d-viewer"))
        .args(["--window", "--at-ms", "250", "--screenshot"])
        .arg(&png)
        .output()
        .expect("xvfb-run is installed (Debian package xvfb; .ci/run installs it)");
    assert_success(&output);
    let picture = Picture::read(&png);
    assert_eq!((picture.width, picture.height), (1280, 720));
    let (count, _) = picture.bone_pixels();
    assert!(count > 300, "the window shows the rig ({count} pixels)");
    let (blue, yellow) = picture.shirt_pixels();
    assert!(blue > 400 && yellow > 400, "the window shows the textured character ({blue} blue, {yellow} yellow)");
    // The panels are there: the left one is egui's panel grey, not the
    // stage's clear colour.
    let [r, g, b] = picture.rgb(20, 360);
    assert!(r.abs_diff(g) < 8 && g.abs_diff(b) < 8 && r > 20, "left panel pixel {r},{g},{b}");
}

/// Pixels mostly of the red and mostly of the blue of the texture Blender
/// paints (`tests/tools/blender.py props`), however lit.
fn paint_pixels(picture: &Picture) -> (usize, usize) {
    let (mut red, mut blue) = (0, 0);
    for y in 0..picture.height {
        for x in 0..picture.width {
            let [r, g, b] = picture.rgb(x, y).map(usize::from);
            red += usize::from(r > 90 && r > 2 * b && r > 2 * g);
            blue += usize::from(b > 90 && b > 2 * r && b > g + 30);
        }
    }
    (red, blue)
}

/// Models Blender builds and exports with its defaults (a sword of a
/// textured blade and a plain grip; a Mixamo-named fighter weighted to its
/// armature, some vertices to four bones), brought in with `io3d import
/// --model`: `io3d check` finds no error and no warning in the folder
/// written, the game's rules hold (at most 3 weights summing to 1, the
/// indices bit with the weights, bounds that hold every vertex), and the
/// viewer draws each in its texture's colours, from the folder written
/// and from the glTF itself. The fighter dresses on the game's Biped
/// (`--skeleton`) as cleanly. Its `.skl`, made of its armature,
/// goes back through `io3d export` into Blender with every bone's head
/// within 0.1 mm.
#[test]
fn models_blender_builds_come_into_the_game_and_draw_in_their_colours() {
    use bevy_io3d::format::{Mesh, VertexMask};
    if !common::have_blender() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let built = common::blender(&[&"props", &dir.path()]);
    for (name, both_colours) in [("sword", false), ("fighter", true)] {
        let out = dir.path().join(format!("{name}_mod"));
        let glb = built[name].as_str().unwrap();
        let io3d = |args: &[&dyn AsRef<std::ffi::OsStr>]| {
            let output = Command::new(env!("CARGO_BIN_EXE_io3d")).args(args.iter().map(|a| a.as_ref())).output();
            let output = output.unwrap();
            assert!(output.status.success(), "{name}: {}", String::from_utf8_lossy(&output.stderr));
            String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
        };
        io3d(&[&"import", &glb, &"--model", &out]);
        let report = io3d(&[&"check", &out]);
        assert!(report.contains(": 0 errors, 0 warnings"), "{name}: {report}");
        for entry in std::fs::read_dir(out.join("resource/mesh")).unwrap() {
            let mesh = Mesh::from_bytes(&std::fs::read(entry.unwrap().path()).unwrap()).unwrap();
            assert_eq!(mesh.bounds, bevy_io3d::format::msh::Bounds::of(&mesh.positions), "{name}: bounds");
            let Some(weights) = &mesh.weights else { continue };
            assert!(mesh.mask.has(VertexMask::WEIGHTS | VertexMask::INDICES), "{name}: the indices bit");
            for vertex in 0..mesh.positions.len() {
                let influences: Vec<f32> = weights.influences(vertex).map(|(_, w)| w).collect();
                let sum: f32 = influences.iter().sum();
                assert!(influences.len() <= 3 && (sum - 1.0).abs() < 1e-4, "{name}: vertex {vertex} {influences:?}");
            }
        }
        let kind = if both_colours { "animodel" } else { "staticmodel" };
        let config = out.join(format!("resource/model/{kind}/{name}.txt"));
        if both_colours {
            // Dressed on the game's Biped: weights on its bones through the
            // suggested map, a joint it lacks on its nearest mapped
            // ancestor, said.
            let dressed = dir.path().join("fighter_on_biped");
            let biped = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/biped.skl");
            let said = io3d(&[&"import", &glb, &"--model", &dressed, &"--skeleton", &biped]);
            assert!(
                said.contains("joint 'mixamorig:Spine2' is not in the skeleton: its weights go to 'Bip01 Spine1'"),
                "{said}"
            );
            assert!(io3d(&[&"check", &dressed]).contains(": 0 errors, 0 warnings"));
            let body = Mesh::from_bytes(&std::fs::read(dressed.join("resource/mesh/Body.msh")).unwrap()).unwrap();
            let names: Vec<String> = body.weights.unwrap().palette().iter().map(|n| n.to_text()).collect();
            assert!(names.iter().all(|n| n.starts_with("Bip01")), "{names:?}");
            // The .skl made of the armature, exported again and read by
            // Blender: every bone's head where Blender had it.
            let glb_back = dir.path().join("fighter_back.glb");
            io3d(&[&"export", &config, &"-o", &glb_back]);
            let back = common::blender(&[&"rest", &glb_back]);
            let head =
                |bone: &serde_json::Value| -> [f64; 3] { std::array::from_fn(|i| bone["head"][i].as_f64().unwrap()) };
            let back_bones = back["bones"].as_array().unwrap();
            for bone in built["fighter_bones"].as_array().unwrap() {
                let found = back_bones.iter().find(|b| b["name"] == bone["name"]).unwrap_or_else(|| panic!("{bone}"));
                let gap = head(bone).iter().zip(head(found)).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
                assert!(gap < 1e-4, "{}: {gap} m from Blender's head", bone["name"]);
            }
        }
        // The folder written, and the glTF itself (shown as the import
        // would write it).
        for (what, opened) in [("config", config.as_os_str()), ("glTF", glb.as_ref())] {
            let png = dir.path().join(format!("{name}.png"));
            assert_success(&viewer(&[&opened, &"--screenshot", &png, &"--size", &"640x360", &"--panels", &"none"]));
            let (red, blue) = paint_pixels(&Picture::read(&png));
            assert!(red > 300, "{name} {what}: {red} red pixels");
            assert!(!both_colours || blue > 300, "{name} {what}: {blue} blue pixels");
        }
    }
}

/// The palette path draws the bundled character as the entity path does,
/// at the same time, plain and toon-shaded in the game's look: beside the crowd path (bone entities placed by the
/// same composition, skinned by Bevy), fewer than 1% of the pixels the
/// character covers (about 5,600 of 256x256) differ by more than 4 levels
/// of 255 in any channel, and fewer than 0.5% by more than 16 (the two
/// skin in different f32 arithmetic, and the toon ramp turns a face
/// whose light sits at its step: when this was written, 20 pixels by 4
/// and none by 16 plain, 10 and 6 toon-shaded). The `Transform` path composes through Bevy's matrices and
/// parts from both by up to 0.61 units at the hands (`tests/plugin.rs`),
/// which turns the sleeves' stripes by a pixel. The palette path uploads
/// one matrix of 48 bytes a bone (22 bones), the entity path none; a
/// later instant of the walk is drawn differently, so the comparison is
/// not of two rest poses.
#[test]
fn the_palette_path_draws_the_character_as_the_entity_path_does() {
    use bevy_io3d::plugin::PoseOutput;
    for toon in [false, true] {
        let (entities, none) = palette::draw_biped(PoseOutput::GlobalTransform, 350.0, toon);
        let (slab, uploaded) = palette::draw_biped(PoseOutput::Palette, 350.0, toon);
        assert_eq!((none, uploaded), (0, 22 * 48));
        let covered = palette::covered(&entities);
        assert!(covered > 2000, "the character is drawn ({covered} pixels)");
        let [four, sixteen] = [4, 16].map(|levels| palette::differing(&entities, &slab, levels));
        let what = format!("toon {toon}: {four} of {covered} pixels differ by over 4 levels, {sixteen} by 16");
        assert!(sixteen * 200 < covered && four * 100 < covered, "{what}");
    }
    let (slab, _) = palette::draw_biped(PoseOutput::Palette, 350.0, false);
    let (later, _) = palette::draw_biped(PoseOutput::Palette, 700.0, false);
    let moved = palette::differing(&slab, &later, 16);
    assert!(moved * 20 > palette::covered(&slab), "a later instant is another pose ({moved} pixels differ)");
}
