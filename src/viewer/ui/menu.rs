//! The menu bar: File (open, save, save as any version), Edit (undo,
//! redo), Clip (join, trim, resample, mirror, retarget: each result opens as
//! a new animation beside its source), Compare; and the prompt before
//! closing with unsaved changes.

use bevy::app::AppExit;
use bevy::ecs::prelude::*;
use bevy::window::WindowCloseRequested;
use bevy_egui::{EguiContexts, egui};
use egui_file::FileDialog;

use super::{FreeSpace, in_free_space};
use crate::anim::{self, Rig};
use crate::format::AniVersion;
use crate::viewer::requests::FileRequest;
use crate::viewer::view::{StatusLine, ViewState};
use crate::viewer::workspace::{Stores, Workspace};

/// What the menus are in the middle of: dialogs and their fields.
#[derive(Default)]
pub struct MenuState {
    dialog: Option<(FileDialog, Pick)>,
    /// In a browser: a pick to hand to the page (its pickers, or a
    /// download).
    #[cfg(target_arch = "wasm32")]
    page_pick: Option<Pick>,
    trim: (i32, i32),
    step_ms: i32,
    message: Option<String>,
}

/// Closing was asked for with unsaved edits: the prompt is up.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClosePrompt(pub bool);

/// What an open file dialog picks a path for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    /// Where to save the current animation, in this version.
    Save(AniVersion),
    /// A mesh to put on the character.
    Attach,
    /// A bone map to retarget with.
    BoneMap,
    /// Where to export the glTF.
    ExportGltf,
    /// A glTF to import animations from.
    ImportGltf,
    /// Where to save the imported model's files (`.zip`).
    SaveImported,
}

impl MenuState {
    /// In a browser the page picks (or downloads): see [`page_pick`].
    #[cfg(target_arch = "wasm32")]
    fn pick(&mut self, _title: &str, _save: bool, pick: Pick) {
        self.page_pick = Some(pick);
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn pick(&mut self, title: &str, save: bool, pick: Pick) {
        let mut dialog = if save { FileDialog::save_file() } else { FileDialog::open_file() }.title(title);
        dialog.open();
        self.dialog = Some((dialog, pick));
    }
}

/// Draws the menu bar and runs what was chosen.
#[allow(clippy::too_many_arguments)] // A system: one parameter a store it touches.
pub fn menu_bar(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeSpace>,
    mut workspace: ResMut<Workspace>,
    mut stores: Stores,
    mut view: ResMut<ViewState>,
    (mut prompt, status): (ResMut<ClosePrompt>, Res<StatusLine>),
    mut state: Local<MenuState>,
    mut exit: MessageWriter<AppExit>,
    mut requests: MessageWriter<FileRequest>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let rig = stores.skeletons.get(&workspace.rig_skeleton).map(|s| s.rig.clone());
    undo_keys(&ctx, &mut workspace, &mut stores);
    in_free_space(&ctx, &mut free, "menu", |ui| {
        if !view.panels {
            return;
        }
        egui::Panel::top("menu").show(ui, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                ui.menu_button("File", |ui| file_menu(ui, &workspace, &mut state, &mut requests));
                ui.menu_button("Edit", |ui| {
                    if ui.button("Undo (Ctrl+Z)").clicked() {
                        undo(&mut workspace, &mut stores, false);
                    }
                    if ui.button("Redo (Ctrl+Y)").clicked() {
                        undo(&mut workspace, &mut stores, true);
                    }
                });
                ui.menu_button("Clip", |ui| clip_menu(ui, &mut workspace, &mut stores, &mut state, rig.as_ref()));
                compare_menu(ui, &workspace, &mut view);
                if let Some(message) = &state.message {
                    ui.separator();
                    ui.label(message);
                }
            });
        });
    });
    #[cfg(target_arch = "wasm32")]
    if let Some(pick) = state.page_pick.take() {
        page_pick(pick, &workspace, &mut requests);
    }
    dialogs(&ctx, &mut state, &mut requests);
    if prompt.0 && close_prompt(&ctx, &workspace, &mut prompt, &status, &mut requests) {
        exit.write(AppExit::Success);
    }
    Ok(())
}

fn undo(workspace: &mut Workspace, stores: &mut Stores, redo: bool) {
    let skeleton = workspace.given_skeleton().cloned();
    let current = workspace.current;
    if let Some(open) = workspace.animations.get_mut(current) {
        if redo {
            open.redo(stores, skeleton.as_ref())
        } else {
            open.undo(stores, skeleton.as_ref())
        };
    }
}

fn undo_keys(ctx: &egui::Context, workspace: &mut Workspace, stores: &mut Stores) {
    if ctx.egui_wants_keyboard_input() {
        return;
    }
    let (undo_pressed, redo_pressed) = ctx.input(|i| {
        let z = i.modifiers.command && i.key_pressed(egui::Key::Z);
        (z && !i.modifiers.shift, (z && i.modifiers.shift) || (i.modifiers.command && i.key_pressed(egui::Key::Y)))
    });
    if undo_pressed || redo_pressed {
        undo(workspace, stores, redo_pressed);
    }
}

fn file_menu(
    ui: &mut egui::Ui,
    workspace: &Workspace,
    state: &mut MenuState,
    requests: &mut MessageWriter<FileRequest>,
) {
    if ui
        .button("Attach mesh…")
        .on_hover_text("Put a .msh on the character, skinned to its bones (a weapon, a costume)")
        .clicked()
    {
        state.pick("Attach a mesh", false, Pick::Attach);
    }
    if ui
        .button("Export glTF…")
        .on_hover_text("The skeleton, meshes and every open animation as one .glb, for Blender and other tools")
        .clicked()
    {
        state.pick("Export glTF (.glb)", true, Pick::ExportGltf);
    }
    if ui
        .button("Import glTF animation…")
        .on_hover_text("Bring the animations of a .glb or .gltf onto this skeleton (bones mapped by name)")
        .clicked()
    {
        state.pick("Import glTF animation", false, Pick::ImportGltf);
    }
    if ui
        .add_enabled(workspace.imported.is_some(), egui::Button::new("Save imported model (.zip)…"))
        .on_hover_text("The game's files made of the glTF model opened, as `io3d import --model` writes them")
        .clicked()
    {
        state.pick("Save imported model (.zip)", true, Pick::SaveImported);
    }
    ui.separator();
    let Some(current) = workspace.current() else {
        ui.label("No animation open.");
        return;
    };
    let (path, version) = (current.file.origin.path().map(|p| p.to_owned()), current.file.value.version);
    if ui.add_enabled(path.is_some(), egui::Button::new("Save")).clicked()
        && let Some(path) = path
    {
        requests.write(FileRequest::Save(path, version));
    }
    for version in [AniVersion::V4000, AniVersion::V4001, AniVersion::V4002] {
        if ui.button(format!("Save as version {}…", version.number())).clicked() {
            state.pick(&format!("Save as version {}", version.number()), true, Pick::Save(version));
        }
    }
}

fn clip_menu(
    ui: &mut egui::Ui,
    workspace: &mut Workspace,
    stores: &mut Stores,
    state: &mut MenuState,
    rig: Option<&Rig>,
) {
    let Some(current) = workspace.current() else { return };
    let source = current.file.value.clone();
    let name = current.file.origin.name();
    let mut made = None;
    ui.menu_button("Join with", |ui| {
        let others = workspace.animations.iter().enumerate().filter(|(i, _)| *i != workspace.current).map(|(_, o)| o);
        for other in others {
            if ui.button(other.file.origin.name()).clicked() {
                made = Some(
                    anim::join(&source, &other.file.value)
                        .map(|a| (format!("{name} + {}", other.file.origin.name()), a)),
                );
            }
        }
    });
    ui.horizontal(|ui| {
        ui.add(egui::DragValue::new(&mut state.trim.0).range(0..=source.total_ms).suffix(" ms"));
        ui.add(egui::DragValue::new(&mut state.trim.1).range(0..=source.total_ms).suffix(" ms"));
        if ui.button("Trim").clicked() {
            made = Some(
                anim::trim(&source, state.trim.0, state.trim.1)
                    .map(|a| (format!("{name} {}-{} ms", state.trim.0, state.trim.1), a)),
            );
        }
    });
    ui.horizontal(|ui| {
        state.step_ms = state.step_ms.max(1);
        ui.add(egui::DragValue::new(&mut state.step_ms).range(1..=1000).suffix(" ms"));
        if ui.button("Resample").clicked() {
            made =
                Some(anim::resample(&source, state.step_ms).map(|a| (format!("{name} every {} ms", state.step_ms), a)));
        }
    });
    if ui.add_enabled(rig.is_some(), egui::Button::new("Mirror")).clicked()
        && let Some(rig) = rig
    {
        made = Some(Ok((format!("{name} mirrored"), anim::mirror(&source, rig))));
    }
    if ui.button("Retarget with a bone map…").clicked() {
        state.pick("Bone map: 'source = target' lines", false, Pick::BoneMap);
    }
    match made {
        Some(Ok((name, animation))) => {
            workspace.add_new(name, animation, stores);
            state.message = None;
        }
        Some(Err(error)) => state.message = Some(error.to_string()),
        None => {}
    }
}

fn compare_menu(ui: &mut egui::Ui, workspace: &Workspace, view: &mut ViewState) {
    ui.menu_button("Compare", |ui| {
        if ui.radio(view.compare.is_none(), "nothing beside").clicked() {
            view.compare = None;
        }
        for (i, open) in workspace.animations.iter().enumerate() {
            if ui.radio(view.compare == Some(i), format!("{} beside", open.file.origin.name())).clicked() {
                view.compare = Some(i);
            }
        }
    });
}

/// The open file dialog, while open; the path picked becomes a request.
fn dialogs(ctx: &egui::Context, state: &mut MenuState, requests: &mut MessageWriter<FileRequest>) {
    let Some((dialog, pick)) = &mut state.dialog else { return };
    if !dialog.show(ctx).selected() {
        return;
    }
    let (path, pick) = (dialog.path().map(|p| p.to_owned()), *pick);
    state.dialog = None;
    if let Some(path) = path {
        requests.write(match pick {
            Pick::Save(version) => FileRequest::Save(path, version),
            Pick::Attach => FileRequest::AttachMesh(path),
            Pick::BoneMap => FileRequest::Retarget(path),
            Pick::ExportGltf => FileRequest::ExportGltf(path.with_extension("glb")),
            Pick::ImportGltf => FileRequest::ImportGltf(path),
            Pick::SaveImported => FileRequest::SaveImported(path.with_extension("zip")),
        });
    }
}

/// In a browser: a save becomes a download of the file's name, and an
/// open the page's file picker.
#[cfg(target_arch = "wasm32")]
fn page_pick(pick: Pick, workspace: &Workspace, requests: &mut MessageWriter<FileRequest>) {
    use crate::viewer::web;
    let named = |name: String| std::path::PathBuf::from(name);
    match pick {
        Pick::Save(version) => {
            if let Some(current) = workspace.current() {
                requests.write(FileRequest::Save(named(current.file.origin.file_name(".ani")), version));
            }
        }
        Pick::ExportGltf => {
            let stem = workspace.current().map_or_else(|| "io3d".into(), |c| c.file.origin.file_name(""));
            requests.write(FileRequest::ExportGltf(named(stem).with_extension("glb")));
        }
        Pick::SaveImported => {
            if let Some((name, _)) = &workspace.imported {
                requests.write(FileRequest::SaveImported(named(format!("{name}.zip"))));
            }
        }
        Pick::Attach => web::pick("attach", false),
        Pick::BoneMap => web::pick("bone-map", false),
        Pick::ImportGltf => web::pick("import-gltf", false),
    }
}

/// Asks what to do with unsaved edits; returns whether to quit now.
fn close_prompt(
    ctx: &egui::Context,
    workspace: &Workspace,
    prompt: &mut ClosePrompt,
    status: &StatusLine,
    requests: &mut MessageWriter<FileRequest>,
) -> bool {
    let mut quit = false;
    egui::Modal::new(egui::Id::new("unsaved")).show(ctx, |ui| {
        ui.heading("Unsaved changes");
        for open in workspace.animations.iter().filter(|a| a.dirty) {
            ui.label(open.file.origin.name());
        }
        ui.horizontal(|ui| {
            if ui.button("Save all and quit").clicked() {
                requests.write(FileRequest::SaveAllAndQuit);
            }
            if ui.button("Quit without saving").clicked() {
                quit = true;
            }
            if ui.button("Cancel").clicked() {
                prompt.0 = false;
            }
        });
        if let Some(status) = &status.0 {
            ui.label(status);
        }
    });
    quit
}

/// Closing the window asks first when there are unsaved edits.
pub fn on_close_requested(
    mut requests: MessageReader<WindowCloseRequested>,
    workspace: Res<Workspace>,
    mut prompt: ResMut<ClosePrompt>,
    mut exit: MessageWriter<AppExit>,
) {
    if requests.read().count() == 0 {
        return;
    }
    if workspace.has_unsaved() {
        prompt.0 = true;
    } else {
        exit.write(AppExit::Success);
    }
}
