//! The left panel: open animations (click to switch) with their facts, the
//! skeleton, the findings of `io3d check`, the root motion, and the file
//! browser.

use std::path::PathBuf;

use bevy::ecs::prelude::*;
use bevy_egui::{EguiContexts, egui};
use egui_file::FileDialog;

use super::{FreeSpace, edit, in_free_space, motion, side_size};
use crate::check::{Severity, group};
use crate::plugin::{AniBinding, AniPlayback};
use crate::resource::ResourceKind;
use crate::viewer::requests::FileRequest;
use crate::viewer::stage::ViewedRig;
use crate::viewer::view::ViewState;
use crate::viewer::workspace::{OpenAnimation, Stores, Workspace};

/// The file browser, while open, and whether it picks a folder. It is
/// drawn with egui, so it needs no desktop services.
#[derive(Default)]
pub struct OpenDialog(Option<(FileDialog, bool)>);

impl OpenDialog {
    /// Opens the file browser, for a folder or a file; in a browser, the
    /// page's picker (what it picks comes back as a drop does).
    fn open(&mut self, folder: bool) {
        #[cfg(target_arch = "wasm32")]
        return crate::viewer::web::pick("open", folder);
        #[cfg(not(target_arch = "wasm32"))]
        {
            let mut browser = match folder {
                true => FileDialog::select_folder().title("Open a resource folder"),
                false => FileDialog::open_file().title("Open a file"),
            };
            browser.open();
            self.0 = Some((browser, folder));
        }
    }
}

/// Draws the left panel.
#[allow(clippy::too_many_arguments)] // A system: one parameter a store it touches.
pub fn files_panel(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeSpace>,
    mut workspace: ResMut<Workspace>,
    mut stores: Stores,
    mut dialog: Local<OpenDialog>,
    view: Res<ViewState>,
    mut editing: edit::Editing,
    players: Query<(&AniPlayback, &AniBinding), With<ViewedRig>>,
    mut requests: MessageWriter<FileRequest>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    if !view.panels {
        return Ok(());
    }
    let player = players.iter().next();
    let mut open: Vec<PathBuf> = Vec::new();
    let mut switch_to = None;
    in_free_space(&ctx, &mut free, "files", |ui| {
        let (width, most) = (side_size(&ctx, true, 300.0), side_size(&ctx, true, 600.0));
        egui::Panel::left("files").default_size(width).max_size(most).show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                // Everything wraps to the panel's width: at 1280 x 720 it
                // is about 200 points.
                ui.horizontal_wrapped(|ui| {
                    ui.heading("Files");
                    if ui
                        .button("Open…")
                        .on_hover_text("Open .ani, .skl, .msh, .dds, .cms, a model config or a material script")
                        .clicked()
                    {
                        dialog.open(false);
                    }
                    if ui.button("Folder…").on_hover_text("Open a resource folder and pick a character").clicked() {
                        dialog.open(true);
                    }
                });
                if let Some(file) = folder_list(ui, &workspace) {
                    open.push(file);
                }
                switch_to = animation_list(ui, &workspace);
                ui.separator();
                if let Some(current) = workspace.current() {
                    facts(ui, current);
                }
                skeleton_facts(ui, &workspace);
                mesh_facts(ui, &workspace, &stores);
                preview_facts(ui, &workspace);
                if let (Some(current), Some((player, binding))) = (workspace.current(), player) {
                    findings(ui, current, binding);
                    motion::root_motion(ui, current, player.time_ms());
                    edit::events_editor(ui, &mut workspace, &mut stores, &mut editing, player.time_ms());
                }
                for problem in &workspace.problems {
                    ui.colored_label(egui::Color32::LIGHT_RED, problem);
                }
                for note in &workspace.notes {
                    ui.colored_label(egui::Color32::YELLOW, note);
                }
            });
        });
    });
    if let Some((browser, folder)) = &mut dialog.0
        && browser.show(&ctx).selected()
    {
        match (browser.path().map(|p| p.to_owned()), *folder) {
            (Some(path), true) => {
                requests.write(FileRequest::OpenFolder(path));
            }
            (path, _) => open.extend(path),
        }
        dialog.0 = None;
    }
    if let Some(index) = switch_to {
        workspace.current = index;
        workspace.refresh_rig(&mut stores);
    }
    if !open.is_empty() {
        requests.write(FileRequest::Open(open));
    }
    Ok(())
}

/// The characters of the open resource folder; returns the config
/// clicked, which opens with its skeleton, animations and meshes.
fn folder_list(ui: &mut egui::Ui, workspace: &Workspace) -> Option<PathBuf> {
    let mut clicked = None;
    for (kind, files) in &workspace.folder {
        let title = match kind {
            ResourceKind::Model => "Model configs",
            ResourceKind::Mesh => "Meshes and collisions",
            ResourceKind::Animation => "Animations",
            ResourceKind::Skeleton => "Skeletons",
            ResourceKind::Material => "Material scripts",
            ResourceKind::Texture => "Textures",
        };
        // Configs are what a modder picks first; the rest start folded.
        let header = egui::CollapsingHeader::new(format!("{title} ({})", files.len()));
        header.default_open(*kind == ResourceKind::Model).show(ui, |ui| {
            egui::ScrollArea::vertical().id_salt(title).max_height(160.0).show(ui, |ui| {
                for file in files {
                    let name =
                        file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into());
                    if ui.selectable_label(false, name).on_hover_text(file.display().to_string()).clicked() {
                        clicked = Some(file.clone());
                    }
                }
            });
        });
    }
    clicked
}

/// The list of open animations; returns the one clicked.
fn animation_list(ui: &mut egui::Ui, workspace: &Workspace) -> Option<usize> {
    let mut clicked = None;
    for (i, open) in workspace.animations.iter().enumerate() {
        let mut label = open.file.origin.name();
        if open.dirty {
            label.push_str(" *");
        }
        if open.file.error.is_some() {
            label.push_str(" ⚠");
        }
        let response = ui.selectable_label(i == workspace.current, label);
        let response = match open.file.origin.path() {
            Some(path) => response.on_hover_text(path.display().to_string()),
            None => response,
        };
        if response.clicked() {
            clicked = Some(i);
        }
    }
    clicked
}

fn facts(ui: &mut egui::Ui, open: &OpenAnimation) {
    let animation = &open.file.value;
    egui::Grid::new("facts").num_columns(2).show(ui, |ui| {
        let rows = [
            ("version", format!("{} ({})", animation.version.number(), animation.version.precision())),
            ("total", format!("{} ms", animation.total_ms)),
            ("tracks", animation.tracks.len().to_string()),
            ("keys", animation.key_count().to_string()),
            ("events", animation.events.len().to_string()),
            ("size", format!("{} bytes", open.file.bytes.len())),
        ];
        for (name, value) in rows {
            ui.label(name);
            ui.add(egui::Label::new(value).wrap());
            ui.end_row();
        }
    });
    if let Some(error) = &open.file.error {
        ui.colored_label(
            egui::Color32::LIGHT_RED,
            format!("The file on disk no longer loads; showing the last good version.\n{error}"),
        );
    }
}

fn skeleton_facts(ui: &mut egui::Ui, workspace: &Workspace) {
    ui.separator();
    match (&workspace.skeleton, workspace.guess_summary()) {
        (Some(skeleton), _) => {
            ui.label(format!("Skeleton: {} ({} bones)", skeleton.origin.name(), skeleton.value.bones.len()));
            if let Some(error) = &skeleton.error {
                ui.colored_label(egui::Color32::LIGHT_RED, format!("The skeleton on disk no longer loads: {error}"));
            }
        }
        (None, Some(summary)) => {
            ui.colored_label(egui::Color32::from_rgb(240, 200, 90), summary);
        }
        (None, None) => {
            ui.label("No skeleton.");
        }
    }
}

/// The character's meshes: size, control points and what is wrong with
/// them (a missing script, missing textures).
fn mesh_facts(ui: &mut egui::Ui, workspace: &Workspace, stores: &Stores) {
    if workspace.meshes.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("Meshes ({})", workspace.meshes.len())).default_open(true).show(ui, |ui| {
        for open in &workspace.meshes {
            let facts = stores.character.meshes.get(&open.handle).map(|m| {
                let points = m.mesh.control_points.len();
                let points = if points > 0 { format!(", {points} control points") } else { String::new() };
                format!(": {} vertices, {} faces{points}", m.mesh.positions.len(), m.mesh.face_count())
            });
            ui.label(format!("{}{}", open.name, facts.unwrap_or_default()));
            for finding in &open.findings {
                ui.colored_label(egui::Color32::from_rgb(240, 200, 90), format!("  {finding}"));
            }
        }
    });
}

/// The files opened on their own: what they hold and what the client
/// would warn about.
fn preview_facts(ui: &mut egui::Ui, workspace: &Workspace) {
    for preview in &workspace.previews {
        egui::CollapsingHeader::new(&preview.name).default_open(true).show(ui, |ui| {
            for fact in &preview.facts {
                ui.label(fact);
            }
            for finding in &preview.findings {
                ui.colored_label(severity_color(Severity::Warning), finding);
            }
        });
    }
}

/// The lint's findings as `io3d check` prints them: one line a run or a
/// rule met on many tracks.
fn findings(ui: &mut egui::Ui, open: &OpenAnimation, binding: &AniBinding) {
    let lines = group(&open.findings);
    let count = lines.len()
        + usize::from(!binding.unbound_tracks.is_empty())
        + usize::from(!binding.bones_without_track.is_empty());
    egui::CollapsingHeader::new(format!("Findings ({count})")).default_open(true).show(ui, |ui| {
        if !binding.unbound_tracks.is_empty() {
            ui.colored_label(
                severity_color(Severity::Warning),
                format!("Tracks with no bone: {}", binding.unbound_tracks.join(", ")),
            );
        }
        if !binding.bones_without_track.is_empty() {
            ui.colored_label(
                severity_color(Severity::Info),
                format!("Bones without a track: {}", binding.bones_without_track.join(", ")),
            );
        }
        for line in &lines {
            ui.colored_label(severity_color(line.first.severity), line.to_string());
        }
        if count == 0 {
            ui.label("Nothing found.");
        }
    });
}

fn severity_color(severity: Severity) -> egui::Color32 {
    match severity {
        Severity::Info => egui::Color32::LIGHT_BLUE,
        Severity::Warning => egui::Color32::from_rgb(240, 200, 90),
        Severity::Error => egui::Color32::LIGHT_RED,
    }
}
