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

/// The part of the screen no panel has taken yet this frame.
#[derive(Resource, Debug, Clone, Copy)]
pub struct FreeSpace(pub egui::Rect);

impl Default for FreeSpace {
    fn default() -> Self {
        Self(egui::Rect::NOTHING)
    }
}

/// Starts the frame's layout with the whole screen free.
pub fn begin_layout(mut contexts: EguiContexts, mut free: ResMut<FreeSpace>) -> Result {
    free.0 = contexts.ctx_mut()?.content_rect();
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
