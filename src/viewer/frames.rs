//! `--frame-times SECONDS` (in a browser, `?frame_times=SECONDS`): the
//! mean frame time over that span, measured once the first picture is
//! complete, logged as `frame time: mean X ms over N frames`; the desktop
//! viewer then exits, and a page writes it into its dataset
//! (`io3dFrameMs`). The same measure on both, for comparing them.

use bevy::app::AppExit;
use bevy::ecs::prelude::*;
use bevy::time::{Real, Time};

use super::capture::Picture;

/// The span to measure, and what was measured so far.
#[derive(Resource, Debug, Clone, Default)]
pub struct FrameTimes {
    /// Seconds to measure for.
    pub span: f32,
    /// Frames measured and their summed time, in seconds, once started.
    measured: Option<(u32, f32)>,
    /// The mean, in ms, once measured.
    pub mean_ms: Option<f32>,
}

impl FrameTimes {
    /// Measures for `span` seconds.
    pub fn new(span: f32) -> Self {
        Self { span, ..Self::default() }
    }
}

/// Adds each frame's time once the picture is complete; at the end of the
/// span logs the mean and, on the desktop, exits.
pub fn measure_frames(
    mut times: ResMut<FrameTimes>,
    time: Res<Time<Real>>,
    picture: Picture,
    mut exit: MessageWriter<AppExit>,
) {
    if times.mean_ms.is_some() {
        return;
    }
    let span = times.span;
    let Some((frames, seconds)) = &mut times.measured else {
        if picture.waiting_for().is_empty() {
            times.measured = Some((0, 0.0));
        }
        return;
    };
    *frames += 1;
    *seconds += time.delta_secs();
    if *seconds >= span {
        let (frames, mean) = (*frames, *seconds * 1000.0 / *frames as f32);
        bevy::log::info!("frame time: mean {mean:.1} ms over {frames} frames");
        times.mean_ms = Some(mean);
        if !cfg!(target_arch = "wasm32") {
            exit.write(AppExit::Success);
        }
    }
}
