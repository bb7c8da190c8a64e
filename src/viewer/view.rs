//! What the user chose to see: the selected bone, overlays, the event log.

use std::collections::VecDeque;

use bevy::ecs::prelude::*;
use bevy::math::Rect;

/// The most events the log keeps.
const LOG_LINES: usize = 200;

/// View choices shared by the panels and the 3D stage.
#[derive(Resource, Debug, Clone)]
pub struct ViewState {
    /// The selected bone, by its name's bytes as the files store it (a C
    /// string), so that names in any encoding select.
    pub selected: Option<Vec<u8>>,
    /// Show the panels and the menu bar (Tab hides them all).
    pub panels: bool,
    /// Draw every bone's name in 3D.
    pub show_names: bool,
    /// Key ticks of every track on the timeline, not only the selected one.
    pub all_ticks: bool,
    /// Draw the root's path on the ground.
    pub show_path: bool,
    /// Draw the character's meshes.
    pub show_mesh: bool,
    /// Draw the bones.
    pub show_bones: bool,
    /// Draw the meshes' triangle edges over them (where the GPU draws
    /// lines from polygons).
    pub wireframe: bool,
    /// Hold the rig in the skeleton's rest pose, the pose its meshes are
    /// bound in, instead of playing.
    pub bind_pose: bool,
    /// Frame the rig on the next frame its bones are posed.
    pub frame_requested: bool,
    /// Events as they fired, newest last.
    pub event_log: VecDeque<String>,
    /// The part of the window the 3D view gets (logical pixels), left over
    /// by the panels.
    pub stage_rect: Option<Rect>,
    /// The last outcome worth a line: where a screenshot went, what
    /// failed to save.
    pub status: Option<String>,
    /// Another open animation to play beside the current one.
    pub compare: Option<usize>,
    /// Ask before closing: there are unsaved edits.
    pub confirm_close: bool,
    /// The event being edited, with its draft fields.
    pub event_draft: Option<EventDraft>,
    /// A drag on a key field has made an undo step that its next frames
    /// continue.
    pub dragging_edit: bool,
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

impl Default for ViewState {
    fn default() -> Self {
        Self {
            selected: None,
            panels: true,
            show_names: false,
            all_ticks: false,
            show_path: true,
            show_mesh: true,
            show_bones: true,
            wireframe: false,
            bind_pose: false,
            frame_requested: true,
            event_log: VecDeque::new(),
            stage_rect: None,
            status: None,
            compare: None,
            confirm_close: false,
            event_draft: None,
            dragging_edit: false,
        }
    }
}

impl ViewState {
    /// Adds a line to the event log, dropping the oldest past the limit.
    pub fn log(&mut self, line: String) {
        if self.event_log.len() == LOG_LINES {
            self.event_log.pop_front();
        }
        self.event_log.push_back(line);
    }
}
