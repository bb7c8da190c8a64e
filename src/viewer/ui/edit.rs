//! Editing in the panels: the events (add at the playhead, change type,
//! sub info and time, remove) and the selected bone's keys (add the pose at
//! the playhead as a key, delete, move, set position and rotation). Every
//! change is one undoable edit; a drag on a field is one in all.

use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::math::{EulerRot, Quat, Vec3};
use bevy_egui::egui;

use crate::format::{Event, FileString};
use crate::viewer::editing::UndoStep;
use crate::viewer::view::StatusLine;
use crate::viewer::workspace::{Stores, Workspace};

/// What the editors keep between frames.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct EditDrafts {
    /// The event being edited, with its draft fields.
    pub event: Option<EventDraft>,
    /// A drag on a key field has made an undo step that its next frames
    /// continue.
    pub dragging: bool,
}

/// An event's fields while they are being edited.
#[derive(Debug, Clone, PartialEq)]
pub struct EventDraft {
    /// Which event.
    pub index: usize,
    /// Its type.
    pub kind: String,
    /// Its sub info.
    pub sub_info: String,
    /// Its time in ms.
    pub time_ms: f32,
}

/// The editors' state and where they report an edit that failed.
#[derive(SystemParam)]
pub struct Editing<'w> {
    /// The drafts.
    pub drafts: ResMut<'w, EditDrafts>,
    /// The status line.
    pub status: ResMut<'w, StatusLine>,
}

/// The events of the current animation, each editable.
pub fn events_editor(
    ui: &mut egui::Ui,
    workspace: &mut Workspace,
    stores: &mut Stores,
    editing: &mut Editing,
    time_ms: f32,
) {
    let Some(current) = workspace.current() else { return };
    let events: Vec<Event> = current.file.value.events.clone();
    let played = current.sidecar.as_ref().map(|s| s.events.len());
    let mut result = None;
    egui::CollapsingHeader::new(format!("Events ({})", events.len())).show(ui, |ui| {
        if let Some(played) = played {
            ui.label(format!(
                "The game plays the {played} events of the .ant sidecar beside this file (the timeline's), \
                 not the file's own below."
            ));
        }
        for (i, event) in events.iter().enumerate() {
            let chosen = editing.drafts.event.as_ref().is_some_and(|d| d.index == i);
            let text = format!("{:>7.1} ms  {}  {}", event.time_ms, event.kind, event.sub_info);
            if ui.selectable_label(chosen, text).clicked() {
                editing.drafts.event = (!chosen).then(|| EventDraft {
                    index: i,
                    kind: event.kind.to_text(),
                    sub_info: event.sub_info.to_text(),
                    time_ms: event.time_ms,
                });
            }
        }
        if ui.button("Add an event at the playhead").clicked() {
            let event =
                Event { kind: "motion_sound".into(), sub_info: FileString::default(), time_ms: time_ms.round() };
            result = Some(workspace.edit_current(stores, |a| {
                let index = a.add_event(event);
                editing.drafts.event = Some(EventDraft {
                    index,
                    kind: "motion_sound".into(),
                    sub_info: String::new(),
                    time_ms: time_ms.round(),
                });
                Ok::<_, String>(())
            }));
        }
        if let Some(draft) = &mut editing.drafts.event
            && let Some(applied) = event_fields(ui, draft, workspace, stores)
        {
            result = Some(applied);
        }
    });
    if let Some(Err(error)) = result {
        editing.status.0 = Some(error);
    }
    if editing
        .drafts
        .event
        .as_ref()
        .is_some_and(|d| workspace.current().is_none_or(|c| d.index >= c.file.value.events.len()))
    {
        editing.drafts.event = None;
    }
}

fn event_fields(
    ui: &mut egui::Ui,
    draft: &mut EventDraft,
    workspace: &mut Workspace,
    stores: &mut Stores,
) -> Option<Result<(), String>> {
    ui.separator();
    egui::Grid::new("event fields").num_columns(2).show(ui, |ui| {
        ui.label("type");
        ui.text_edit_singleline(&mut draft.kind);
        ui.end_row();
        ui.label("sub info");
        ui.text_edit_singleline(&mut draft.sub_info);
        ui.end_row();
        ui.label("time");
        ui.add(egui::DragValue::new(&mut draft.time_ms).suffix(" ms"));
        ui.end_row();
    });
    let draft = draft.clone();
    let mut result = None;
    ui.horizontal(|ui| {
        if ui.button("Apply").clicked() {
            result = Some(workspace.edit_current(stores, |a| {
                let event = a.event_mut(draft.index)?;
                event.kind = FileString::encode_text(&draft.kind);
                event.sub_info = FileString::encode_text(&draft.sub_info);
                event.time_ms = draft.time_ms;
                Ok::<_, crate::anim::EditError>(())
            }));
        }
        if ui.button("Remove").clicked() {
            result = Some(workspace.edit_current(stores, |a| a.remove_event(draft.index).map(drop)));
        }
    });
    result
}

/// The selected bone's key at the playhead: add, delete, move, set.
pub fn key_editor(
    ui: &mut egui::Ui,
    workspace: &mut Workspace,
    stores: &mut Stores,
    editing: &mut Editing,
    bone: &[u8],
    time_ms: f32,
) {
    let Some(current) = workspace.current() else { return };
    let Some(track) = current.file.value.track_index(bone) else { return };
    let now = time_ms.round() as i32;
    let keys = &current.file.value.tracks[track].keys;
    let at = keys.iter().rposition(|k| k.time_ms == now);
    ui.separator();
    ui.label(format!("Key at {now} ms:"));
    let mut result = None;
    match at {
        None => {
            if ui.button("Add the pose here as a key").clicked() {
                result = Some(workspace.edit_current(stores, |a| a.insert_sampled_key(track, now).map(drop)));
            }
        }
        Some(key) => {
            let stored = keys[key];
            let mut time = stored.time_ms;
            let mut position = stored.position.to_array();
            let (x, y, z) = stored.rotation.to_euler(EulerRot::XYZ);
            let mut euler = [x, y, z].map(f32::to_degrees);
            let (mut changed, mut dragging) = (false, false);
            let mut field = |ui: &mut egui::Ui, value: egui::DragValue| {
                let response = ui.add(value);
                changed |= response.changed();
                dragging |= response.dragged();
            };
            egui::Grid::new("key fields").num_columns(4).show(ui, |ui| {
                ui.label("time");
                field(ui, egui::DragValue::new(&mut time).suffix(" ms"));
                ui.end_row();
                ui.label("position");
                for v in &mut position {
                    field(ui, egui::DragValue::new(v).speed(0.1));
                }
                ui.end_row();
                ui.label("euler XYZ°");
                for v in &mut euler {
                    field(ui, egui::DragValue::new(v).speed(0.5));
                }
                ui.end_row();
            });
            // The frames of one drag make one undo step.
            let step = if editing.drafts.dragging { UndoStep::ContinuesLast } else { UndoStep::New };
            editing.drafts.dragging &= dragging;
            if changed {
                let rotation = Quat::from_euler(
                    EulerRot::XYZ,
                    euler[0].to_radians(),
                    euler[1].to_radians(),
                    euler[2].to_radians(),
                );
                let rotation_changed = [x, y, z].map(f32::to_degrees) != euler;
                let edited = workspace.edit_current_as(stores, step, |a| {
                    a.set_key(track, key, Some(Vec3::from_array(position)), rotation_changed.then_some(rotation))?;
                    a.move_key(track, key, time).map(drop)
                });
                editing.drafts.dragging |= dragging && edited.is_ok();
                result = Some(edited);
            }
            if ui.button("Delete this key").clicked() {
                result = Some(workspace.edit_current(stores, |a| a.delete_key(track, key).map(drop)));
            }
        }
    }
    if let Some(Err(error)) = result {
        editing.status.0 = Some(error);
    }
}
