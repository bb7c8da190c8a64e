//! The bundled character drawn on the palette path beside the same
//! character on the entity path, at the same time, in one process: a
//! Bevy app with the renderer and no window, its camera drawing into an
//! image that is read back.

use std::time::{Duration, Instant};

use bevy::camera::RenderTarget;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::image::Image;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy_io3d::plugin::character::{Io3dCharacter, MeshPart, PaletteDrawing, ToonShaded};
use bevy_io3d::plugin::{AniPlayer, GameFilesPlugin, Io3dPlugin, PoseOutput};

/// The picture's side, in pixels.
const SIDE: u32 = 256;

/// The last picture read back, and how many have been.
#[derive(Resource, Default)]
struct Shots(Vec<Vec<u8>>);

/// The bundled Biped, dressed from its model config, walking paused at
/// `at_ms` (held in place) on `output`, toon-shaded in the game's look or
/// not (`toon`), seen from the front: the RGBA
/// pixels once two pictures in a row agree (pipelines compile in the
/// background, so the first frames show less), and the bytes the palette
/// path uploaded in the last frame.
pub fn draw_biped(output: PoseOutput, at_ms: f32, toon: bool) -> (Vec<u8>, usize) {
    let mut app = App::new();
    let assets = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");
    let no_window = WindowPlugin { primary_window: None, exit_condition: ExitCondition::DontExit, ..default() };
    app.add_plugins(GameFilesPlugin::new(assets))
        .add_plugins(DefaultPlugins.set(no_window).disable::<WinitPlugin>())
        .add_plugins(Io3dPlugin::default())
        .init_resource::<Shots>();
    app.finish();
    app.cleanup();
    let target = Image::new_target_texture(SIDE, SIDE, TextureFormat::Rgba8UnormSrgb, None);
    let target = app.world_mut().resource_mut::<Assets<Image>>().add(target);
    let server = app.world().resource::<AssetServer>().clone();
    let world = app.world_mut();
    world.spawn((
        Camera3d::default(),
        Tonemapping::None,
        RenderTarget::Image(target.clone().into()),
        Transform::from_xyz(0.0, 90.0, 320.0).looking_at(Vec3::new(0.0, 90.0, 0.0), Vec3::Y),
    ));
    world.spawn((
        DirectionalLight { illuminance: 6000.0, ..default() },
        Transform::from_xyz(-200.0, 400.0, 300.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    let mut player = AniPlayer::new(server.load("resource/animation/biped_walk_4002.ani")).with_in_place(true);
    player.paused = true;
    player.seek(at_ms);
    let model = server.load("resource/model/animodel/biped.txt");
    let mut character = world.spawn((Io3dCharacter::new(model), player, output));
    if toon {
        character.insert(ToonShaded { skin: Some(ToonShaded::SAMPLE_SKIN), ..default() });
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut frame = 0;
    loop {
        app.update();
        frame += 1;
        let shots = &app.world().resource::<Shots>().0;
        let steady = match &shots[..] {
            [.., before, last] if before == last && covered(last) > 500 => Some(last.clone()),
            _ => None,
        };
        if let Some(last) = steady {
            let uploaded = app.world().get_resource::<PaletteDrawing>().map_or(0, PaletteDrawing::uploaded);
            let mut parts = app.world_mut().query::<&MeshPart>();
            assert!(parts.iter(app.world()).count() > 0, "{output:?}: the parts are drawn");
            return (last, uploaded);
        }
        assert!(Instant::now() < deadline, "{output:?}: no steady picture after {frame} frames");
        if frame % 20 == 0 {
            let shot = Screenshot::image(target.clone());
            app.world_mut().spawn(shot).observe(|captured: On<ScreenshotCaptured>, mut shots: ResMut<Shots>| {
                shots.0.push(captured.image.data.clone().unwrap_or_default());
            });
        }
    }
}

/// How many pixels are not the clear colour's.
pub fn covered(pixels: &[u8]) -> usize {
    let clear = &pixels[..4];
    pixels.chunks_exact(4).filter(|p| p != &clear).count()
}

/// How many pixels of two pictures differ by more than `levels` in any
/// channel.
pub fn differing(a: &[u8], b: &[u8], levels: u8) -> usize {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > levels))
        .count()
}
