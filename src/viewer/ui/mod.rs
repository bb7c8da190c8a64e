//! The egui panels. Each panel is its own system; they run in order in
//! `EguiPrimaryContextPass`, each taking its side of the space the earlier
//! ones left ([`FreeSpace`]); what remains is the 3D stage.

pub mod bones;
pub mod edit;
pub mod files;
pub mod menu;
pub mod mixer;
pub mod motion;
pub mod stage_overlay;
pub mod timeline;

use bevy::ecs::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::view::ViewState;

/// The part of the screen no panel has taken yet this frame.
#[derive(Resource, Debug, Clone, Copy)]
pub struct FreeSpace(pub egui::Rect);

impl Default for FreeSpace {
    fn default() -> Self {
        Self(egui::Rect::NOTHING)
    }
}

/// The most of the window's width the left and the right panel may
/// take, and of its height the menu bar and the timeline: the 3D stage
/// keeps at least 0.7 x 0.74, over half of the window, at any size.
const LEFT_SHARE: f32 = 0.16;
const RIGHT_SHARE: f32 = 0.14;
const BOTTOM_SHARE: f32 = 0.26;

/// How wide a side panel may be: its share of the window, never below
/// the 90 points a column of short text needs; a window too small for that
/// is covered by the stage's share first.
pub fn side_size(ctx: &egui::Context, left: bool, wanted: f32) -> f32 {
    let share = if left { LEFT_SHARE } else { RIGHT_SHARE };
    wanted.min((ctx.content_rect().width() * share).max(90.0)).round()
}

/// How tall the timeline may be, below the menu bar's share.
pub fn bottom_size(ctx: &egui::Context, wanted: f32) -> f32 {
    wanted.min(ctx.content_rect().height() * BOTTOM_SHARE - 24.0).max(60.0).round()
}

/// Starts the frame's layout with the whole screen free; the panel key
/// (Tab) shows or hides every panel and the menu bar.
pub fn begin_layout(mut contexts: EguiContexts, mut free: ResMut<FreeSpace>, mut view: ResMut<ViewState>) -> Result {
    let ctx = contexts.ctx_mut()?;
    free.0 = ctx.content_rect();
    if !ctx.egui_wants_keyboard_input() && ctx.input(|i| i.key_pressed(egui::Key::Tab)) {
        view.panels = !view.panels;
    }
    Ok(())
}

/// Shows `add` inside the free space and takes what it used from it.
pub fn in_free_space<R>(
    ctx: &egui::Context,
    free: &mut FreeSpace,
    id: &str,
    add: impl FnOnce(&mut egui::Ui) -> R,
) -> R {
    let builder = egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(free.0);
    let mut ui = egui::Ui::new(ctx.clone(), egui::Id::new(id), builder);
    let out = add(&mut ui);
    free.0 = ui.available_rect_before_wrap();
    out
}

/// A vector as short text.
pub fn vec3_text(v: bevy::math::Vec3) -> String {
    format!("{:.2}, {:.2}, {:.2}", v.x, v.y, v.z)
}
