//! Pictures: the screenshot button, and capturing one frame at a given
//! time and exiting (`--screenshot`), offscreen or from the window.
//!
//! A frame taken too early shows only the clear colour, because pipelines
//! compile in the background; the capture waits until the render world has
//! no pipeline left waiting for several frames in a row, and until the rig
//! is posed and framed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bevy::app::{App, AppExit};
use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::render::render_resource::PipelineCache;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::time::{Real, Time};

use super::requests::ScreenshotRequest;
use super::stage::ViewedRig;
use super::view::{StageRect, StatusLine, ViewState};
use super::workspace::Workspace;
use crate::file::new_file_permissions;
use crate::plugin::character::TextureClock;
use crate::plugin::character::components::SpawnedParts;
use crate::plugin::{AniBinding, AniPlayer, RigBones};

/// Frames in a row with nothing compiling before a capture.
const SETTLED_FRAMES: u32 = 8;

/// How long a capture may wait for its picture before giving up, so that a
/// batch job never hangs (software rendering takes a few seconds).
const CAPTURE_TIMEOUT: Duration = Duration::from_secs(120);

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
    let waiting = PipelinesWaiting::default();
    app.insert_resource(waiting.clone());
    if let Some(render) = app.get_sub_app_mut(RenderApp) {
        render.insert_resource(waiting).add_systems(Render, count_waiting.in_set(RenderSystems::Cleanup));
    }
}

fn count_waiting(cache: Res<PipelineCache>, waiting: Res<PipelinesWaiting>) {
    waiting.0.store(cache.waiting_pipelines().count(), Ordering::Relaxed);
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
    /// Nothing compiling, the rig posed by its clip (or a skeleton alone
    /// standing at rest, or a model with no skeleton drawn), and framed in
    /// the stage.
    fn complete(&self) -> bool {
        let at_rest = self.workspace.animations.is_empty();
        let no_rig = self.workspace.shown_skeleton().is_none();
        let posed = self.rigs.iter().any(|(binding, bones, drawn)| {
            binding.is_bound() || (at_rest && bones) || (no_rig && (drawn || self.workspace.meshes.is_empty()))
        });
        self.waiting.0.load(Ordering::Relaxed) == 0 && posed && !self.view.frame_requested && self.stage.0.is_some()
    }
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
    if matches!(capture.state, CaptureState::Waiting(_)) && time.elapsed() > CAPTURE_TIMEOUT {
        let reason =
            format!("{}: not written: the picture did not settle in {CAPTURE_TIMEOUT:?}", capture.path.display());
        capture.state = CaptureState::Done(Err(reason));
    }
    match capture.state.clone() {
        CaptureState::Waiting(settled) => {
            capture.state = CaptureState::Waiting(if picture.complete() { settled + 1 } else { 0 });
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

/// Writes an image as an RGB PNG, through a temporary file renamed over
/// `path` only once complete (with a new file's usual permissions).
pub fn save_png(image: &bevy::image::Image, path: &Path) -> Result<(), String> {
    let fail = |what: &str, error: &dyn std::fmt::Display| format!("{}: cannot {what}: {error}", path.display());
    let pixels = image.clone().try_into_dynamic().map_err(|e| fail("convert the picture", &e))?.to_rgb8();
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".io3d-").suffix(".png");
    new_file_permissions(&mut builder);
    let temporary = builder.tempfile_in(folder).map_err(|e| fail("create a file beside it", &e))?;
    pixels.save(temporary.path()).map_err(|e| fail("write the PNG", &e))?;
    temporary.persist(path).map_err(|e| fail("rename the finished file", &e.error))?;
    Ok(())
}

/// Saves the window when the screenshot button was pressed, to
/// `io3d-<seconds since 1970>.png` in the working folder.
pub fn screenshot_button(mut commands: Commands, mut requests: MessageReader<ScreenshotRequest>) {
    if requests.read().count() == 0 {
        return;
    }
    let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
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

/// Starts the player paused at `time_ms`, and texture animation held at
/// the same instant, for captures and `--at-ms`.
pub fn hold_at(time_ms: f32) -> impl FnMut(Query<&mut AniPlayer, Added<ViewedRig>>, ResMut<TextureClock>) {
    move |mut players, mut clock| {
        for mut player in &mut players {
            player.paused = true;
            player.seek(time_ms);
        }
        if !clock.paused {
            *clock = TextureClock { seconds: time_ms / 1000.0, paused: true };
        }
    }
}
