//! The desktop viewer behind `io3d-viewer`: open `.ani`, `.skl` and model
//! configs, play them on a skeleton (given or guessed), scrub a millisecond
//! timeline, inspect bones, findings and root motion, and take pictures.
//!
//! The viewer is a thin shell over the library and the plugin: files are
//! read with [`crate::format`], checked with [`crate::check`], and played
//! by the plugin's [`crate::plugin::AniPlayer`] on a
//! [`crate::plugin::SklRig`], so what it shows is what a game embedding the
//! plugin shows, and what `io3d pose` prints.
//!
//! | module | what it holds |
//! |---|---|
//! | [`workspace`] | open files, their facts and findings, reloading, drag and drop |
//! | [`stage`] | cameras, the rig, gizmos: grid, bones, root path |
//! | [`character`] | the meshes: toggles, events that hide them, weight tint, control points |
//! | [`camera`] | orbit, pan, zoom, framing |
//! | [`ui`] | the egui panels: files, bones, timeline, root motion, overlay |
//! | [`capture`] | the screenshot button and `--screenshot` captures |
//! | [`editing`] | undoable edits, saving |
//! | [`requests`] | what the panels ask of the workspace (open, attach, save), as messages |
//!
//! Each area is a Bevy plugin ([`WorkspacePlugin`], [`StagePlugin`],
//! [`PanelsPlugin`], [`CapturePlugin`]); the panels draw and ask, and file
//! work happens in the workspace's systems.

pub mod camera;
pub mod capture;
pub mod character;
pub mod editing;
pub mod frames;
pub mod output;
pub mod preview;
pub mod requests;
pub mod stage;
pub mod ui;
pub mod view;
#[cfg(target_arch = "wasm32")]
pub mod web;
pub mod workspace;

use std::path::PathBuf;
use std::time::Duration;

use bevy::DefaultPlugins;
use bevy::app::{App, AppExit, Plugin, PluginGroup, PostUpdate, ScheduleRunnerPlugin, Startup, Update};
use bevy::camera::RenderTarget;
use bevy::ecs::prelude::*;
use bevy::image::Image;
use bevy::math::UVec2;
use bevy::render::render_resource::TextureFormat;
use bevy::transform::TransformSystems;
use bevy::window::{ExitCondition, Window, WindowPlugin};
use bevy::winit::WinitPlugin;
use bevy_egui::{EguiGlobalSettings, EguiPlugin, EguiPrimaryContextPass};

use crate::plugin::Io3dPlugin;
use capture::{Capture, CaptureState, CaptureTarget};
use workspace::{Files, ReloadTimer, Stores, Workspace};

/// What the viewer opens and whether it only takes a picture.
#[derive(Debug, Clone, Default)]
pub struct ViewerOptions {
    /// Files to open; none opens the bundled sample.
    pub files: Vec<PathBuf>,
    /// Start paused at this time, in ms.
    pub at_ms: Option<f32>,
    /// Take one picture, write it here and exit.
    pub screenshot: Option<PathBuf>,
    /// Take the picture from a real window (with `screenshot`) instead of
    /// rendering offscreen.
    pub window: bool,
    /// Window or picture size in pixels.
    pub size: UVec2,
    /// Show bone names from the start.
    pub names: bool,
    /// How materials are drawn at the start.
    pub look: view::Look,
    /// Start with the panels hidden, for a picture of the stage alone
    /// (Tab toggles them).
    pub hide_panels: bool,
    /// Start with this bone selected.
    pub select: Option<String>,
    /// Where the files are read from.
    pub source: Files,
    /// Measure the mean frame time over this many seconds, log it, and
    /// (on the desktop) exit.
    pub frame_times: Option<f32>,
}

/// Runs the viewer until its window closes or its capture is written.
pub fn run(options: ViewerOptions) -> AppExit {
    app(options).run()
}

/// The viewer's app, ready to run.
pub fn app(options: ViewerOptions) -> App {
    let mut app = App::new();
    let offscreen = options.screenshot.is_some() && !options.window;
    let window = Window {
        title: "io3d viewer".into(),
        resolution: options.size.into(),
        // In a browser, the page's canvas, at the page's size.
        #[cfg(target_arch = "wasm32")]
        canvas: Some("#io3d".into()),
        #[cfg(target_arch = "wasm32")]
        fit_canvas_to_parent: true,
        ..Window::default()
    };
    if offscreen {
        // No window and no display: render into an image.
        let plugins = DefaultPlugins
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                ..WindowPlugin::default()
            })
            .disable::<WinitPlugin>();
        app.add_plugins((plugins, ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(1.0 / 60.0))));
    } else {
        // Closing asks first when there are unsaved edits.
        let windows =
            WindowPlugin { primary_window: Some(window), close_when_requested: false, ..WindowPlugin::default() };
        app.add_plugins(DefaultPlugins.set(windows)).add_systems(Update, ui::menu::on_close_requested);
    }
    app.add_plugins((EguiPlugin::default(), Io3dPlugin::default()))
        // egui draws through its own camera above the 3D one.
        .insert_resource(EguiGlobalSettings { auto_create_primary_context: false, ..EguiGlobalSettings::default() })
        .insert_resource(view::ViewState {
            show_names: options.names,
            look: options.look,
            panels: !options.hide_panels,
            selected: options.select.as_ref().map(|name| name.as_bytes().to_vec()),
            ..view::ViewState::default()
        })
        .init_resource::<view::StatusLine>()
        .init_resource::<view::StageRect>()
        .init_resource::<ui::menu::ClosePrompt>()
        .configure_sets(Update, (ViewerSystems::Workspace, ViewerSystems::Stage).chain())
        .add_plugins((
            WorkspacePlugin,
            StagePlugin,
            PanelsPlugin,
            CapturePlugin { screenshot: options.screenshot.is_some(), at_ms: options.at_ms },
        ))
        .add_systems(Startup, setup(options.clone(), offscreen));
    if let Some(span) = options.frame_times {
        capture::add_pipeline_watch(&mut app);
        app.insert_resource(frames::FrameTimes::new(span)).add_systems(Update, frames::measure_frames);
    }
    app
}

/// The viewer's areas, in the order they run in `Update`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewerSystems {
    /// Files are read, reloaded and saved.
    Workspace,
    /// The rigs follow the files; meshes, camera and viewport follow the
    /// view.
    Stage,
}

/// The open files: reloading them when they change, dropped files, and
/// the file work the panels ask for ([`requests::FileRequest`]).
pub struct WorkspacePlugin;

impl Plugin for WorkspacePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Workspace>()
            .init_resource::<ReloadTimer>()
            .init_resource::<requests::Retries>()
            .add_message::<requests::FileRequest>()
            .add_systems(
                Update,
                (workspace::open_dropped, requests::retry_when_read, requests::handle_file_requests)
                    .chain()
                    .in_set(ViewerSystems::Workspace),
            );
        // A page cannot see its files change.
        #[cfg(not(target_arch = "wasm32"))]
        app.add_systems(
            Update,
            workspace::reload_files.before(workspace::open_dropped).in_set(ViewerSystems::Workspace),
        );
    }
}

/// The 3D stage: the rigs playing the workspace's files, their meshes,
/// the camera, and the gizmos drawn over them.
pub struct StagePlugin;

impl Plugin for StagePlugin {
    fn build(&self, app: &mut App) {
        stage::add_bone_gizmos(app);
        // It stays off, with a warning, where the GPU draws no lines from
        // polygons.
        app.add_plugins(bevy::pbr::wireframe::WireframePlugin::default());
        app.init_resource::<stage::EventLog>();
        app.add_systems(
            Update,
            (
                stage::follow_workspace,
                preview::show_previews,
                character::show_meshes,
                character::apply_look,
                character::tint_by_weight,
                camera::orbit_with_mouse,
                camera::apply_orbit,
                stage::fit_viewport,
            )
                .chain()
                .in_set(ViewerSystems::Stage),
        )
        .add_systems(
            PostUpdate,
            (stage::draw_stage, character::draw_control_points, preview::draw_collisions)
                .after(TransformSystems::Propagate),
        );
    }
}

/// The egui panels, each taking its side of what the earlier ones left;
/// the rest is the stage.
pub struct PanelsPlugin;

impl Plugin for PanelsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ui::FreeSpace>()
            .init_resource::<ui::mixer::MixDraft>()
            .init_resource::<ui::edit::EditDrafts>()
            .add_message::<requests::ScreenshotRequest>()
            .add_systems(
                EguiPrimaryContextPass,
                (
                    ui::begin_layout,
                    ui::menu::menu_bar,
                    ui::timeline::timeline_panel,
                    ui::files::files_panel,
                    ui::bones::bones_panel,
                    ui::stage_overlay::stage_overlay,
                )
                    .chain(),
            );
    }
}

/// Pictures: the screenshot button, or a `--screenshot` capture (which
/// waits for the render pipelines and exits) and `--at-ms`.
pub struct CapturePlugin {
    /// Take one picture and exit, instead of serving the button.
    pub screenshot: bool,
    /// Hold the player paused at this time, in ms.
    pub at_ms: Option<f32>,
}

impl Plugin for CapturePlugin {
    fn build(&self, app: &mut App) {
        if let Some(at_ms) = self.at_ms {
            app.add_systems(PostUpdate, capture::hold_at(at_ms).before(crate::plugin::Io3dSystems::Advance));
        }
        if self.screenshot {
            capture::add_pipeline_watch(app);
            app.add_systems(Update, capture::run_capture.run_if(resource_exists::<Capture>));
        } else {
            app.add_systems(Update, capture::screenshot_button);
        }
    }
}

/// Opens the files (or the bundled sample) and sets up the stage and, for
/// a capture, its target.
fn setup(
    options: ViewerOptions,
    offscreen: bool,
) -> impl FnMut(Commands, ResMut<Workspace>, Stores, ResMut<requests::Retries>) {
    move |mut commands, mut workspace, mut stores, mut retries| {
        workspace.source = options.source.clone();
        if options.files.is_empty() {
            workspace.open_bundled(&mut stores);
        } else {
            let mark = workspace.mark();
            workspace.open(&options.files, &mut stores);
            if workspace.source.is_waiting() {
                // Opened again once the page has read the files.
                workspace.take_back(mark, &mut stores);
                retries.push(requests::FileRequest::Open(options.files.clone()));
            }
            for problem in &workspace.problems {
                bevy::log::error!("{problem}");
            }
            for notice in workspace.notes.iter().cloned().chain(workspace.stage_notices()) {
                bevy::log::warn!("{notice}");
            }
        }
        let (target, capture_target) = if offscreen {
            let image = stores.character.images.add(Image::new_target_texture(
                options.size.x,
                options.size.y,
                TextureFormat::Rgba8UnormSrgb,
                None,
            ));
            (RenderTarget::Image(image.clone().into()), CaptureTarget::Image(image))
        } else {
            (RenderTarget::default(), CaptureTarget::Window)
        };
        stage::spawn_stage(&mut commands, target, &workspace);
        if let Some(path) = &options.screenshot {
            // A batch capture of files that did not all open writes no
            // picture and fails at once, naming them (logged above).
            let state = match workspace.problems.len() {
                0 => CaptureState::Waiting(0),
                n => CaptureState::Done(Err(format!(
                    "{}: not written: {n} of the files given could not be opened",
                    path.display()
                ))),
            };
            commands.insert_resource(Capture { path: path.clone(), target: capture_target, state });
        }
    }
}
