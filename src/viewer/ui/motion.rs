//! The root-motion section: the root's position, heading and ground speed
//! over the clip, with distance, turn, average speed and the gap between
//! first and last key in travel and in turn (a loop that does not close
//! shows there). Turns are what the plugin's `RootMotion::yaw_delta` adds
//! up to, in degrees about up.

use bevy_egui::egui;
use egui_plot::{Legend, Line, Plot, VLine};

use super::vec3_text;
use crate::viewer::workspace::{OpenAnimation, ROOT_BONE};

/// Draws the section for the current animation at `time_ms`.
pub fn root_motion(ui: &mut egui::Ui, open: &OpenAnimation, time_ms: f32) {
    egui::CollapsingHeader::new("Root motion").default_open(true).show(ui, |ui| {
        let Some(path) = &open.root_path else {
            ui.label(format!("No '{ROOT_BONE}' track with keys."));
            return;
        };
        egui::Grid::new("root stats").num_columns(2).show(ui, |ui| {
            ui.label("distance");
            ui.label(format!("{:.1} units", path.distance));
            ui.end_row();
            ui.label("average speed");
            ui.label(format!("{:.1} units/s", path.average_speed()));
            ui.end_row();
            ui.label("turn");
            ui.label(format!("{:.1}°", path.turn().to_degrees()));
            ui.end_row();
            ui.label("last − first key");
            ui.add(egui::Label::new(vec3_text(path.key_offset)).wrap());
            ui.end_row();
            ui.label("turn, last − first key");
            ui.label(format!("{:.1}°", path.key_turn.to_degrees()));
            ui.end_row();
        });
        let series = |axis: usize| -> Vec<[f64; 2]> {
            path.times.iter().zip(&path.positions).map(|(t, p)| [f64::from(*t), f64::from(p[axis])]).collect()
        };
        let speed: Vec<[f64; 2]> = path.speeds().map(|(t, v)| [f64::from(t), f64::from(v)]).collect();
        let heading: Vec<[f64; 2]> =
            path.times.iter().zip(&path.headings).map(|(t, h)| [f64::from(*t), f64::from(h.to_degrees())]).collect();
        Plot::new("root position").height(110.0).legend(Legend::default()).allow_scroll(false).show(ui, |plot| {
            plot.line(Line::new("x", series(0)));
            plot.line(Line::new("y (up)", series(1)));
            plot.line(Line::new("z", series(2)));
            plot.vline(VLine::new("now", f64::from(time_ms)));
        });
        Plot::new("root heading").height(80.0).legend(Legend::default()).allow_scroll(false).show(ui, |plot| {
            plot.line(Line::new("heading °", heading));
            plot.vline(VLine::new("now", f64::from(time_ms)));
        });
        Plot::new("root speed").height(80.0).legend(Legend::default()).allow_scroll(false).show(ui, |plot| {
            plot.line(Line::new("ground speed /s", speed));
            plot.vline(VLine::new("now", f64::from(time_ms)));
        });
    });
}
