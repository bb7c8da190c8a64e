//! Pictures: the screenshot button, and capturing one frame at a given
//! time and exiting (`--screenshot`), offscreen or from the window.
//!
//! A frame taken too early shows only the clear colour, because pipelines
//! compile in the background; the capture waits until the render world has
//! no pipeline left waiting for several frames in a row, and until the rig
//! is posed and framed. It waits [`CAPTURE_LIMIT`] at most, then fails
//! saying what it was still waiting for.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bevy::app::{App, AppExit};
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::render::render_resource::{CachedPipeline, PipelineCache, PipelineDescriptor};
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::time::{Real, Time};

use super::requests::ScreenshotRequest;
use super::stage::ViewedRig;
use super::view::{StageRect, StatusLine, ViewState};
use super::workspace::Workspace;
use crate::plugin::character::TextureClock;
use crate::plugin::character::components::SpawnedParts;
use crate::plugin::{AniBinding, AniPlayer, RigBones};

/// Frames in a row with nothing compiling before a capture.
const SETTLED_FRAMES: u32 = 8;

/// How long a capture may take before giving up, so that a batch job
/// never hangs: software rendering settles in a few seconds.
pub const CAPTURE_LIMIT: Duration = Duration::from_secs(30);

/// A frame to capture once the picture is complete, then exit.
#[derive(Resource, Debug, Clone)]
pub struct Capture {
    /// The PNG to write.
    pub path: PathBuf,
    /// Capture the window (with a window) rather than the offscreen image.
    pub target: CaptureTarget,
    /// Where the capture stands.
    pub state: CaptureState,
}

/// What a capture takes its picture of.
#[derive(Debug, Clone)]
pub enum CaptureTarget {
    /// The primary window.
    Window,
    /// The offscreen image the cameras render to.
    Image(bevy::asset::Handle<bevy::image::Image>),
}

/// Where a capture stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureState {
    /// Waiting for the picture to be complete, counting settled frames.
    Waiting(u32),
    /// The screenshot is on its way.
    Taken,
    /// Written, or failed with the reason.
    Done(Result<(), String>),
}

/// The number of pipelines the render world is still compiling, shared
/// with the main world.
#[derive(Resource, Debug, Clone, Default)]
pub struct PipelinesWaiting(Arc<AtomicUsize>);

/// Counts waiting pipelines in the render world.
pub fn add_pipeline_watch(app: &mut App) {
    if app.world().contains_resource::<PipelinesWaiting>() {
        return;
    }
    let waiting = PipelinesWaiting::default();
    app.insert_resource(waiting.clone());
    if let Some(render) = app.get_sub_app_mut(RenderApp) {
        render.insert_resource(waiting).add_systems(Render, count_waiting.in_set(RenderSystems::Cleanup));
    }
}

/// Counts the render pipelines still waiting. Compute pipelines are left
/// out: the picture needs none, and where the GPU runs no compute (WebGL2)
/// Bevy's sparse buffer update pipeline waits forever.
fn count_waiting(cache: Res<PipelineCache>, waiting: Res<PipelinesWaiting>) {
    let pipelines: Vec<&CachedPipeline> = cache.pipelines().collect();
    let drawing = |id: &usize| {
        pipelines.get(*id).is_some_and(|p| matches!(p.descriptor, PipelineDescriptor::RenderPipelineDescriptor(_)))
    };
    waiting.0.store(cache.waiting_pipelines().filter(drawing).count(), Ordering::Relaxed);
}

/// What says whether the picture is complete.
#[derive(SystemParam)]
pub struct Picture<'w, 's> {
    waiting: Res<'w, PipelinesWaiting>,
    view: Res<'w, ViewState>,
    stage: Res<'w, StageRect>,
    workspace: Res<'w, Workspace>,
    rigs: Query<'w, 's, RigState, With<ViewedRig>>,
}

/// Whether the viewed rig is bound, has bones, and has its meshes drawn.
type RigState = (&'static AniBinding, Has<RigBones>, Has<SpawnedParts>);

impl Picture<'_, '_> {
    /// What the picture still waits for; nothing once it is complete:
    /// nothing compiling, the rig posed by its clip (or a skeleton alone
    /// standing at rest, or a model with no skeleton drawn), and framed in
    /// the stage.
    pub(crate) fn waiting_for(&self) -> Vec<String> {
        let at_rest = self.workspace.animations.is_empty();
        let no_rig = self.workspace.shown_skeleton().is_none();
        let posed = self.rigs.iter().any(|(binding, bones, drawn)| {
            binding.is_bound() || (at_rest && bones) || (no_rig && (drawn || self.workspace.meshes.is_empty()))
        });
        let compiling = self.waiting.0.load(Ordering::Relaxed);
        let waits = [
            (compiling > 0, format!("{compiling} render pipelines to compile")),
            (!posed, "the rig to be posed (its clip bound, or its bones or meshes spawned)".to_owned()),
            (self.view.frame_requested, "the camera to frame what is shown (nothing drawn has an extent)".to_owned()),
            (self.stage.0.is_none(), "the panels to leave the stage its place".to_owned()),
        ];
        waits.into_iter().filter_map(|(waits, what)| waits.then_some(what)).collect()
    }
}

/// Why a capture gave up at the limit, by where it stood.
fn stalled(path: &Path, state: &CaptureState, picture: &Picture) -> String {
    let what = match state {
        CaptureState::Taken => "the renderer to deliver the screenshot".to_owned(),
        _ => match picture.waiting_for() {
            waits if waits.is_empty() => "the picture to hold still".to_owned(),
            waits => waits.join(", "),
        },
    };
    format!("{}: not written: after {}s still waiting for {what}", path.display(), CAPTURE_LIMIT.as_secs())
}

/// Takes the capture when the picture is complete, and exits once it is
/// written (with an error status if it could not be, or if the picture
/// never settles).
pub fn run_capture(
    mut commands: Commands,
    mut capture: ResMut<Capture>,
    picture: Picture,
    time: Res<Time<Real>>,
    mut exit: MessageWriter<AppExit>,
) {
    if !matches!(capture.state, CaptureState::Done(_)) && time.elapsed() > CAPTURE_LIMIT {
        capture.state = CaptureState::Done(Err(stalled(&capture.path, &capture.state, &picture)));
    }
    match capture.state.clone() {
        CaptureState::Waiting(settled) => {
            capture.state = CaptureState::Waiting(if picture.waiting_for().is_empty() { settled + 1 } else { 0 });
            if settled + 1 >= SETTLED_FRAMES {
                let screenshot = match &capture.target {
                    CaptureTarget::Window => Screenshot::primary_window(),
                    CaptureTarget::Image(image) => Screenshot::image(image.clone()),
                };
                commands.spawn(screenshot).observe(save_capture);
                capture.state = CaptureState::Taken;
            }
        }
        CaptureState::Taken => {}
        CaptureState::Done(Ok(())) => {
            exit.write(AppExit::Success);
        }
        CaptureState::Done(Err(error)) => {
            bevy::log::error!("{error}");
            exit.write(AppExit::error());
        }
    }
}

fn save_capture(captured: On<ScreenshotCaptured>, mut capture: ResMut<Capture>) {
    let result = save_png(&captured.image, &capture.path);
    if result.is_ok() {
        bevy::log::info!("wrote {}", capture.path.display());
    }
    capture.state = CaptureState::Done(result);
}

/// Writes an image as an RGB PNG as every save is written
/// ([`super::output::save`]): whole or not at all, and never over a
/// read-only file (in a browser, downloaded).
pub fn save_png(image: &bevy::image::Image, path: &Path) -> Result<(), String> {
    let fail = |what: &str, error: &dyn std::fmt::Display| format!("{}: cannot {what}: {error}", path.display());
    let pixels = image.clone().try_into_dynamic().map_err(|e| fail("convert the picture", &e))?.to_rgb8();
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, pixels.width(), pixels.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let written = encoder.write_header().and_then(|mut writer| writer.write_image_data(pixels.as_raw()));
    written.map_err(|e| fail("encode the PNG", &e))?;
    super::output::save(path, &png).map_err(|e| fail("write", &e))
}

/// Saves the window when the screenshot button was pressed, to
/// `io3d-<seconds since 1970>.png` in the working folder.
pub fn screenshot_button(mut commands: Commands, mut requests: MessageReader<ScreenshotRequest>) {
    if requests.read().count() == 0 {
        return;
    }
    let seconds = super::output::seconds_now();
    let path = PathBuf::from(format!("io3d-{seconds}.png"));
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut status: ResMut<StatusLine>| {
            status.0 = Some(match save_png(&captured.image, &path) {
                Ok(()) => format!("saved {}", path.display()),
                Err(error) => error,
            });
        },
    );
}

/// The viewer's players, by entity.
type ViewedPlayers<'w, 's> = Query<'w, 's, (Entity, &'static mut AniPlayer), With<ViewedRig>>;

/// Starts the player paused at `time_ms`, and texture animation held at
/// the same instant, for captures and `--at-ms`: each viewed player once,
/// on the frame it first has a clip (in a browser the files arrive after
/// the rig is spawned).
pub fn hold_at(time_ms: f32) -> impl FnMut(ViewedPlayers, ResMut<TextureClock>, Local<Vec<Entity>>) {
    move |mut players, mut clock, mut held| {
        for (entity, mut player) in &mut players {
            if player.clip.is_none() || held.contains(&entity) {
                continue;
            }
            held.push(entity);
            player.paused = true;
            player.seek(time_ms);
        }
        if !clock.paused {
            *clock = TextureClock { seconds: time_ms / 1000.0, paused: true };
        }
    }
}
