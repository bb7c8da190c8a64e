//! The right panel: the bone tree, and the selected bone's track and pose
//! at the current time (in the file's axes, as `io3d pose` prints it).

use bevy::ecs::prelude::*;
use bevy::math::EulerRot;
use bevy_egui::{EguiContexts, egui};

use super::{FreeSpace, edit, in_free_space, side_size, vec3_text};
use crate::anim::{Clip, Hints, Rig};
use crate::format::Animation;
use crate::format::string::decode_text;
use crate::plugin::AniPlayback;
use crate::viewer::stage::ViewedRig;
use crate::viewer::view::ViewState;
use crate::viewer::workspace::{Stores, Workspace};

/// Draws the right panel.
pub fn bones_panel(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeSpace>,
    mut workspace: ResMut<Workspace>,
    mut stores: Stores,
    mut view: ResMut<ViewState>,
    mut editing: edit::Editing,
    players: Query<&AniPlayback, With<ViewedRig>>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    if !view.panels {
        return Ok(());
    }
    let time_ms = players.iter().next().map_or(0.0, |p| p.time_ms());
    let (width, most) = (side_size(&ctx, false, 260.0), side_size(&ctx, false, 500.0));
    in_free_space(&ctx, &mut free, "bones", |ui| {
        egui::Panel::right("bones").default_size(width).max_size(most).show(ui, |ui| {
            ui.heading("Bones");
            let Some(rig) = stores.skeletons.get(&workspace.rig_skeleton).map(|s| s.rig.clone()) else {
                ui.label("No skeleton yet.");
                return;
            };
            let tree_height = (ui.available_height() * 0.55).max(120.0);
            egui::ScrollArea::both().max_height(tree_height).show(ui, |ui| bone_tree(ui, &rig, &mut view.selected));
            ui.separator();
            if let (Some(name), Some(open)) = (view.selected.clone(), workspace.current()) {
                let clip = stores.clips.get(&open.handle).map(|c| &c.clip);
                track_details(ui, &open.file.value, clip, &name, time_ms);
                edit::key_editor(ui, &mut workspace, &mut stores, &mut editing, &name, time_ms);
            } else {
                ui.label("Select a bone to see its track.");
            }
        });
    });
    Ok(())
}

/// The bones in depth-first order, indented by depth; clicking selects.
fn bone_tree(ui: &mut egui::Ui, rig: &Rig, selected: &mut Option<Vec<u8>>) {
    let mut depth = vec![0usize; rig.len()];
    for &bone in &rig.order {
        depth[bone] = rig.parents[bone].map_or(0, |p| depth[p] + 1);
        let name = &rig.names[bone];
        ui.horizontal(|ui| {
            ui.add_space(depth[bone] as f32 * 10.0);
            let is_selected = selected.as_ref() == Some(name);
            if ui.selectable_label(is_selected, decode_text(name)).clicked() {
                *selected = if is_selected { None } else { Some(name.clone()) };
            }
        });
    }
}

fn track_details(ui: &mut egui::Ui, animation: &Animation, clip: Option<&Clip>, name: &[u8], time_ms: f32) {
    ui.strong(decode_text(name));
    let Some(index) = animation.track_index(name) else {
        ui.label("No track: the bone stays at rest.");
        return;
    };
    let track = &animation.tracks[index];
    egui::Grid::new("track").num_columns(2).show(ui, |ui| {
        let mut row = |label: &str, value: String| {
            ui.label(label);
            ui.label(value);
            ui.end_row();
        };
        row("track", index.to_string());
        row("keys", track.keys.len().to_string());
        row("weight", track.weight.to_string());
        let tracks = animation.tracks.iter().filter(|t| t.bone.is_named(name)).count();
        if tracks > 1 {
            row("tracks of this bone", format!("{tracks}, blended by weight"));
        }
        // The pose the rig shows: every track of the bone, blended.
        match clip.and_then(|clip| clip.bone_pose(name, time_ms, &mut Hints::default())) {
            Some(pose) => {
                let (x, y, z) = pose.rotation.to_euler(EulerRot::XYZ);
                row("position", vec3_text(pose.position));
                let q = pose.rotation;
                row("rotation", format!("{:.4}, {:.4}, {:.4}, {:.4}", q.x, q.y, q.z, q.w));
                row("euler XYZ°", format!("{:.1}, {:.1}, {:.1}", x.to_degrees(), y.to_degrees(), z.to_degrees()));
            }
            None => row("pose", "ignored (no keys, or a weight of 0 or less): at rest".into()),
        }
    });
}
