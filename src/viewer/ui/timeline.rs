//! The bottom panel: transport controls, the millisecond timeline with key
//! ticks and event markers, and the log of events as they fire. The
//! keyboard shortcuts drive the same actions.

use bevy::ecs::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::mixer::MixDraft;
use super::{FreeSpace, bottom_size, in_free_space};
use crate::anim::RepeatMode;
use crate::format::Animation;
use crate::plugin::{AniPlayback, AniPlayer};
use crate::viewer::requests::ScreenshotRequest;
use crate::viewer::stage::{EventLog, ViewedRig};
use crate::viewer::view::{Look, StatusLine, ViewState};
use crate::viewer::workspace::{OpenAnimation, Stores, Workspace};

/// One display frame at 60 Hz, in ms: what "step one frame" moves.
const FRAME_MS: f32 = 1000.0 / 60.0;

/// Something the user asked the player to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Play or pause.
    TogglePlay,
    /// Go to the key before or after the current time.
    StepKey(i8),
    /// Move one 60 Hz frame back or on.
    StepFrame(i8),
    /// Go to the start.
    Start,
    /// Go to the end.
    End,
    /// Toggle looping.
    ToggleLoop,
    /// Go to a time (pauses).
    Seek(f32),
}

/// Applies an action to the player, at `now` ms in an animation with
/// `keys` (sorted key times) and `total_ms`.
pub fn apply(action: Action, (player, now): (&mut AniPlayer, f32), keys: &[i32], total_ms: i32) {
    let total = total_ms.max(0) as f32;
    match action {
        Action::TogglePlay => player.paused = !player.paused,
        Action::ToggleLoop => {
            player.repeat = if player.repeat == RepeatMode::Loop { RepeatMode::Once } else { RepeatMode::Loop }
        }
        Action::StepKey(direction) => {
            player.paused = true;
            if let Some(t) = neighbour_key(keys, now, direction) {
                player.seek(t as f32);
            }
        }
        Action::StepFrame(direction) => {
            player.paused = true;
            player.seek((now + f32::from(direction) * FRAME_MS).clamp(0.0, total));
        }
        Action::Start => player.seek(0.0),
        Action::End => player.seek(total),
        Action::Seek(t) => {
            player.paused = true;
            player.seek(t.clamp(0.0, total));
        }
    }
}

/// The key time before (`direction < 0`) or after `now`.
pub fn neighbour_key(keys: &[i32], now: f32, direction: i8) -> Option<i32> {
    if direction < 0 {
        keys.iter().rev().copied().find(|&k| (k as f32) < now - 1e-3)
    } else {
        keys.iter().copied().find(|&k| (k as f32) > now + 1e-3)
    }
}

/// Sorted distinct key times of the tracks of `bone` (a C-string name), or
/// of every track.
pub fn key_times(animation: &Animation, bone: Option<&[u8]>) -> Vec<i32> {
    let tracks = animation.tracks.iter().filter(|t| bone.is_none_or(|b| t.bone.is_named(b)));
    let mut times: Vec<i32> = tracks.flat_map(|t| t.keys.iter().map(|k| k.time_ms)).collect();
    times.sort_unstable();
    times.dedup();
    times
}

/// What the pointer did on the time strip.
#[derive(Debug, Clone, Copy, PartialEq)]
enum StripInput {
    /// Clicked or dragged the playhead to a time.
    Seek(f32),
    /// Dragged an event marker to a time.
    MoveEvent(usize, f32),
}

/// Draws the bottom panel and handles the keyboard.
#[allow(clippy::too_many_arguments)] // A system: one parameter a store it touches.
pub fn timeline_panel(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeSpace>,
    mut workspace: ResMut<Workspace>,
    mut stores: Stores,
    mut view: ResMut<ViewState>,
    mut mix: ResMut<MixDraft>,
    mut status: ResMut<StatusLine>,
    log: Res<EventLog>,
    mut players: Query<(&mut AniPlayer, &AniPlayback), With<ViewedRig>>,
    mut screenshots: MessageWriter<ScreenshotRequest>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let Some((mut player, playback)) = players.iter_mut().next() else { return Ok(()) };
    let now = playback.time_ms();
    let Some(open) = workspace.current() else { return Ok(()) };
    let animation = &open.file.value;
    let ticks = key_times(animation, if view.all_ticks { None } else { view.selected.as_deref() });
    let keys = key_times(animation, view.selected.as_deref());
    let total_ms = animation.total_ms;
    let mut actions = keyboard(&ctx, &mut view);
    let mut moved = None;
    let (height, most) = (bottom_size(&ctx, 190.0), bottom_size(&ctx, 600.0));
    // With the panels hidden (Tab) the shortcuts still work.
    in_free_space(&ctx, &mut free, "timeline", |ui| {
        if !view.panels {
            return;
        }
        egui::Panel::bottom("timeline").default_size(height).max_size(most).show(ui, |ui| {
            // A short window scrolls the timeline rather than the stage.
            egui::ScrollArea::vertical().show(ui, |ui| {
                controls(ui, (&mut player, now), &mut view, total_ms, &mut actions, &mut screenshots, &status);
                match timeline(ui, open, &ticks, now) {
                    Some(StripInput::Seek(t)) => actions.push(Action::Seek(t)),
                    Some(StripInput::MoveEvent(i, t)) => moved = Some((i, t)),
                    None => {}
                }
                egui::CollapsingHeader::new("Mixer: clips over this one, as the game blends them").show(ui, |ui| {
                    super::mixer::mixer(ui, (&mut player, playback), &workspace.animations, &mut mix);
                });
                event_log(ui, &log);
            });
        });
    });
    for action in actions {
        apply(action, (&mut player, now), &keys, total_ms);
    }
    if let Some((index, time_ms)) = moved
        && let Err(error) = workspace.edit_current(&mut stores, |a| a.retime_event(index, time_ms))
    {
        status.0 = Some(error);
    }
    Ok(())
}

/// Shortcuts, when no text field has the keyboard.
fn keyboard(ctx: &egui::Context, view: &mut ViewState) -> Vec<Action> {
    if ctx.egui_wants_keyboard_input() {
        return Vec::new();
    }
    ctx.input(|input| {
        let mut actions = Vec::new();
        let pressed = |key| input.key_pressed(key);
        for (key, action) in [
            (egui::Key::Space, Action::TogglePlay),
            (egui::Key::ArrowLeft, Action::StepKey(-1)),
            (egui::Key::ArrowRight, Action::StepKey(1)),
            (egui::Key::Home, Action::Start),
            (egui::Key::End, Action::End),
            (egui::Key::L, Action::ToggleLoop),
        ] {
            if pressed(key) {
                actions.push(action);
            }
        }
        if pressed(egui::Key::F) {
            view.frame_requested = true;
        }
        actions
    })
}

fn controls(
    ui: &mut egui::Ui,
    (player, now): (&mut AniPlayer, f32),
    view: &mut ViewState,
    total_ms: i32,
    actions: &mut Vec<Action>,
    screenshots: &mut MessageWriter<ScreenshotRequest>,
    status: &StatusLine,
) {
    ui.horizontal(|ui| {
        let buttons = [
            ("⏮", "Start (Home)", Action::Start),
            ("⏪", "Previous key (←)", Action::StepKey(-1)),
            ("◀", "One frame back", Action::StepFrame(-1)),
            (if player.paused { "▶" } else { "⏸" }, "Play or pause (Space)", Action::TogglePlay),
            ("▶|", "One frame on", Action::StepFrame(1)),
            ("⏩", "Next key (→)", Action::StepKey(1)),
            ("⏭", "End (End)", Action::End),
        ];
        for (text, hint, action) in buttons {
            if ui.button(text).on_hover_text(hint).clicked() {
                actions.push(action);
            }
        }
        let mut looping = player.repeat == RepeatMode::Loop;
        if ui.checkbox(&mut looping, "loop (L)").changed() {
            actions.push(Action::ToggleLoop);
        }
        let mut reverse = player.speed < 0.0;
        let mut speed = player.speed.abs();
        ui.add(egui::Slider::new(&mut speed, 0.1..=4.0).logarithmic(true).text("speed"));
        ui.checkbox(&mut reverse, "reverse");
        player.speed = if reverse { -speed } else { speed };
        ui.checkbox(&mut player.in_place, "in place");
        ui.separator();
        ui.monospace(format!("{now:8.1} / {total_ms} ms"));
    });
    ui.horizontal(|ui| {
        ui.checkbox(&mut view.all_ticks, "ticks of all tracks");
        ui.checkbox(&mut view.show_names, "bone names");
        ui.checkbox(&mut view.show_path, "root path");
        ui.checkbox(&mut view.show_mesh, "mesh");
        ui.checkbox(&mut view.show_bones, "bones");
        ui.checkbox(&mut view.wireframe, "wireframe");
        egui::ComboBox::from_id_salt("look").selected_text(view.look.label()).show_ui(ui, |ui| {
            for look in Look::ALL {
                ui.selectable_value(&mut view.look, look, look.label());
            }
        });
        ui.checkbox(&mut view.bind_pose, "bind pose")
            .on_hover_text("The skeleton's rest pose, which the meshes are bound in");
        if ui.button("Frame (F)").clicked() {
            view.frame_requested = true;
        }
        if ui.button("Screenshot").clicked() {
            screenshots.write(ScreenshotRequest);
        }
        if let Some(status) = &status.0 {
            ui.label(status);
        }
    });
}

/// The time strip: ticks for keys, markers for the events that play (type
/// and sub info on hover; drag one to move the event, when they are the
/// file's own and not an `.ant` sidecar's), the playhead.
fn timeline(ui: &mut egui::Ui, open: &OpenAnimation, ticks: &[i32], now: f32) -> Option<StripInput> {
    let (animation, events) = (&open.file.value, open.events_played());
    let movable = open.sidecar.is_none();
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 54.0), egui::Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);
    let total = animation.total_ms.max(1) as f32;
    let x_of = |t: f32| rect.left() + (t / total).clamp(0.0, 1.0) * rect.width();
    let t_of = |x: f32| (x - rect.left()) / rect.width() * total;
    let text = visuals.weak_text_color();
    for t in scale_marks(total) {
        let x = x_of(t as f32);
        painter.line_segment([egui::pos2(x, rect.bottom() - 12.0), egui::pos2(x, rect.bottom())], (1.0, text));
        painter.text(
            egui::pos2(x + 2.0, rect.bottom() - 12.0),
            egui::Align2::LEFT_BOTTOM,
            format!("{t}"),
            egui::FontId::proportional(10.0),
            text,
        );
    }
    for &k in ticks {
        let x = x_of(k as f32);
        painter.line_segment(
            [egui::pos2(x, rect.top() + 16.0), egui::pos2(x, rect.top() + 30.0)],
            (1.0, egui::Color32::LIGHT_GRAY),
        );
    }
    let pointer = response.hover_pos();
    let top = rect.top() + 2.0;
    let marker_at = |p: egui::Pos2| {
        let near = |e: &crate::format::Event| (p.x - x_of(e.time_ms)).abs() < 6.0 && p.y < top + 14.0;
        events.iter().position(near).filter(|_| movable)
    };
    let drag_id = response.id.with("event");
    if response.drag_started()
        && let Some(index) = response.interact_pointer_pos().and_then(marker_at)
    {
        ui.memory_mut(|m| m.data.insert_temp(drag_id, index));
    }
    let dragging: Option<usize> = ui.memory(|m| m.data.get_temp(drag_id));
    for event in events {
        let x = x_of(event.time_ms);
        let marker = vec![egui::pos2(x - 5.0, top), egui::pos2(x + 5.0, top), egui::pos2(x, top + 10.0)];
        painter.add(egui::Shape::convex_polygon(marker, egui::Color32::from_rgb(255, 150, 60), egui::Stroke::NONE));
        if pointer.is_some_and(|p| (p.x - x).abs() < 6.0 && p.y < top + 14.0) {
            let kind = crate::format::EventKind::of(&event.kind);
            let from = if movable { "" } else { "\n(from the .ant sidecar beside the file)" };
            response.clone().on_hover_text(format!(
                "{} ms: {} {}\n{}{from}",
                event.time_ms,
                event.kind,
                event.sub_info,
                kind.description()
            ));
        }
    }
    let x = x_of(now);
    painter.line_segment(
        [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
        (2.0, egui::Color32::from_rgb(255, 80, 80)),
    );
    let pointer_time = response.interact_pointer_pos().map(|p| t_of(p.x).clamp(0.0, total).round());
    if let Some(index) = dragging {
        if let Some(t) = pointer_time {
            let x = x_of(t);
            painter.line_segment(
                [egui::pos2(x, top), egui::pos2(x, top + 14.0)],
                (2.0, egui::Color32::from_rgb(255, 150, 60)),
            );
        }
        if response.drag_stopped() {
            ui.memory_mut(|m| m.data.remove::<usize>(drag_id));
            return pointer_time.map(|t| StripInput::MoveEvent(index, t));
        }
        return None;
    }
    let pressed = response.clicked() || response.dragged();
    pressed.then_some(pointer_time).flatten().map(StripInput::Seek)
}

/// Round times for the scale under the strip: about ten marks.
fn scale_marks(total: f32) -> Vec<i64> {
    let rough = total / 10.0;
    let step = [1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000]
        .into_iter()
        .find(|&s| s as f32 >= rough)
        .unwrap_or(120_000);
    (0..).map(|i| i * step).take_while(|&t| t as f32 <= total).collect()
}

fn event_log(ui: &mut egui::Ui, log: &EventLog) {
    ui.label("Events fired:");
    egui::ScrollArea::vertical().max_height(ui.available_height()).stick_to_bottom(true).show(ui, |ui| {
        for line in &log.0 {
            ui.monospace(line);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_step_to_their_neighbours() {
        let keys = [0, 100, 250];
        assert_eq!(neighbour_key(&keys, 100.0, 1), Some(250));
        assert_eq!(neighbour_key(&keys, 100.0, -1), Some(0));
        assert_eq!(neighbour_key(&keys, 120.5, -1), Some(100));
        assert_eq!(neighbour_key(&keys, 250.0, 1), None);
    }

    #[test]
    fn the_scale_has_round_marks() {
        assert_eq!(scale_marks(1000.0), [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
        assert_eq!(scale_marks(1200.0).get(1), Some(&200));
    }
}
