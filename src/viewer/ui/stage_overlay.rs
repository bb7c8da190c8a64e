//! What egui draws over the 3D stage: bone names on demand, the notice
//! that the skeleton was guessed, the hint for the mouse, and the banner
//! naming what is drawn that the game would not draw.

use bevy::camera::Camera;
use bevy::ecs::prelude::*;
use bevy::transform::components::GlobalTransform;
use bevy_egui::{EguiContexts, egui};

use super::FreeSpace;
use crate::format::string::decode_text;
use crate::plugin::RigBones;
use crate::viewer::camera::to_screen;
use crate::viewer::stage::{StageCamera, ViewedRig, bone_points};
use crate::viewer::view::{StageRect, ViewState};
use crate::viewer::workspace::Workspace;

/// Gives the space the panels left to the 3D stage and draws over it.
#[allow(clippy::too_many_arguments)]
pub fn stage_overlay(
    mut contexts: EguiContexts,
    free: Res<FreeSpace>,
    workspace: Res<Workspace>,
    view: Res<ViewState>,
    mut stage_rect: ResMut<StageRect>,
    cameras: Query<(&Camera, &GlobalTransform), With<StageCamera>>,
    rigs: Query<&RigBones, With<ViewedRig>>,
    transforms: Query<&GlobalTransform>,
    names: Query<&bevy::ecs::name::Name>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let rect = free.0;
    let stage = bevy::math::Rect::new(rect.min.x, rect.min.y, rect.max.x, rect.max.y);
    if stage_rect.0 != Some(stage) {
        stage_rect.0 = Some(stage);
    }
    let painter =
        ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new("stage"))).with_clip_rect(rect);
    let text = egui::Color32::from_gray(200);
    let mut notice = String::from("drag: orbit · right drag: pan · wheel: zoom · F: frame · Tab: panels");
    if let Some(summary) = workspace.guess_summary() {
        notice = format!("{summary}\n{notice}");
    }
    // With the panels hidden the stage stands alone, without the notice.
    let mut top = rect.top() + 6.0;
    if view.panels {
        let hint = painter.text(
            egui::pos2(rect.left() + 8.0, top),
            egui::Align2::LEFT_TOP,
            notice,
            egui::FontId::proportional(12.0),
            text,
        );
        top = hint.bottom() + 6.0;
    }
    // A picture of the stage alone must not pass for what the game shows.
    banner(&painter, rect, top, &workspace.stage_notices());
    let Ok((camera, camera_transform)) = cameras.single() else { return Ok(()) };
    let Some(rig) = rigs.iter().next() else { return Ok(()) };
    let points = bone_points(rig, &transforms);
    for (bone, point) in rig.0.iter().zip(points) {
        let Ok(name) = names.get(*bone) else { continue };
        let selected = view.selected.as_deref().map(decode_text).as_deref() == Some(name.as_str());
        if !(view.show_names || selected) {
            continue;
        }
        if let Some(at) = to_screen(camera, camera_transform, point) {
            let color = if selected { egui::Color32::from_rgb(255, 205, 30) } else { text };
            painter.text(
                egui::pos2(at.x + 5.0, at.y),
                egui::Align2::LEFT_CENTER,
                name.as_str(),
                egui::FontId::proportional(11.0),
                color,
            );
        }
    }
    Ok(())
}

/// Notices on a dark amber strip across the stage from `top`, wrapped to
/// its width; nothing when there are none.
fn banner(painter: &egui::Painter, stage: egui::Rect, top: f32, notices: &[String]) {
    if notices.is_empty() {
        return;
    }
    let margin = egui::vec2(8.0, 5.0);
    let width = (stage.width() - 4.0 * margin.x).max(40.0);
    let galley = painter.layout(notices.join("\n"), egui::FontId::proportional(13.0), BANNER_TEXT, width);
    let at = egui::pos2(stage.left() + margin.x, top);
    let strip = egui::Rect::from_min_size(at, galley.size() + 2.0 * margin);
    painter.rect_filled(strip, 3.0, BANNER);
    painter.galley(at + margin, galley, BANNER_TEXT);
}

/// The banner's colours: light amber on dark amber, unlike the stage's
/// blue-grey and the clay's grey.
const BANNER: egui::Color32 = egui::Color32::from_rgb(74, 46, 8);
const BANNER_TEXT: egui::Color32 = egui::Color32::from_rgb(255, 206, 120);
