//! The mixer: plays other open clips over the current one as the game
//! would (an action over a loop, several loops by weight) and shows every
//! playing clip on its own strip.

use bevy::asset::AssetId;
use bevy::ecs::resource::Resource;
use bevy_egui::egui;

use crate::anim::mixer::{Instance, Kind};
use crate::anim::{Action, Loop};
use crate::plugin::{AniClip, AniPlayback, AniPlayer};
use crate::viewer::workspace::OpenAnimation;

/// The clip and settings the mixer starts next.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct MixDraft {
    /// Which open animation.
    pub clip: usize,
    /// Start it as a loop rather than an action.
    pub as_loop: bool,
    /// Fade in, in ms.
    pub fade_in_ms: f32,
    /// Fade out, in ms (actions).
    pub fade_out_ms: f32,
    /// Target weight.
    pub weight: f32,
    /// Time factor.
    pub rate: f32,
    /// Hold the last frame (actions).
    pub hold: bool,
}

impl Default for MixDraft {
    /// The game's usual action: 100 ms fades, held on its last frame.
    fn default() -> Self {
        Self { clip: 0, as_loop: false, fade_in_ms: 100.0, fade_out_ms: 100.0, weight: 1.0, rate: 1.0, hold: true }
    }
}

/// The mixer's controls and one strip per playing clip.
pub fn mixer(
    ui: &mut egui::Ui,
    (player, playback): (&mut AniPlayer, &AniPlayback),
    animations: &[OpenAnimation],
    draft: &mut MixDraft,
) {
    if animations.is_empty() {
        return;
    }
    draft.clip = draft.clip.min(animations.len() - 1);
    ui.horizontal_wrapped(|ui| {
        egui::ComboBox::from_id_salt("mix clip").selected_text(animations[draft.clip].file.origin.name()).show_ui(
            ui,
            |ui| {
                for (i, open) in animations.iter().enumerate() {
                    ui.selectable_value(&mut draft.clip, i, open.file.origin.name());
                }
            },
        );
        ui.selectable_value(&mut draft.as_loop, false, "action");
        ui.selectable_value(&mut draft.as_loop, true, "loop");
        number(ui, &mut draft.fade_in_ms, "fade in ms", 0.0..=2000.0);
        if !draft.as_loop {
            number(ui, &mut draft.fade_out_ms, "fade out ms", 0.0..=2000.0);
            ui.checkbox(&mut draft.hold, "hold last frame");
        }
        number(ui, &mut draft.weight, "weight", 0.0..=10.0);
        number(ui, &mut draft.rate, "rate", 0.05..=10.0);
        let clip = animations[draft.clip].handle.clone();
        if ui.button("Play over").on_hover_text("Start it over what plays").clicked() {
            start(player, clip.clone(), draft);
        }
        let switch = "Clear everything with 100 ms fades and start it, as the game changes state";
        if ui.button("Switch to").on_hover_text(switch).clicked() {
            player.clear_all_actions(100.0, false);
            player.clear_all_loops(100.0, false);
            start(player, clip, draft);
        }
    });
    let names: Vec<(AssetId<AniClip>, String)> =
        animations.iter().map(|open| (open.handle.id(), open.file.origin.name())).collect();
    for instance in playback.instances() {
        strip(ui, player, instance, &names);
    }
}

fn number(ui: &mut egui::Ui, value: &mut f32, label: &str, range: std::ops::RangeInclusive<f32>) {
    ui.add(egui::DragValue::new(value).range(range).speed(1.0).prefix(format!("{label} ")));
}

fn start(player: &mut AniPlayer, clip: bevy::asset::Handle<AniClip>, draft: &MixDraft) {
    if draft.as_loop {
        let settings = Loop { weight: draft.weight, rate: draft.rate, ..Loop::faded(draft.fade_in_ms) };
        player.play_loop(clip, settings);
    } else {
        let action = Action {
            weight: draft.weight,
            rate: draft.rate,
            hold_last_frame: draft.hold,
            ..Action::faded(draft.fade_in_ms, draft.fade_out_ms)
        };
        player.play_action(clip, action);
    }
}

/// One playing clip: its name, kind and state, its time on a bar, its
/// weight (dragging forces it), and a button to clear it.
fn strip(
    ui: &mut egui::Ui,
    player: &mut AniPlayer,
    instance: &Instance<AssetId<AniClip>>,
    names: &[(AssetId<AniClip>, String)],
) {
    let name = names.iter().find(|(id, _)| *id == instance.clip).map_or("(closed)", |(_, n)| n.as_str());
    ui.horizontal(|ui| {
        let kind = if instance.kind() == Kind::Loop { "loop" } else { "action" };
        ui.label(format!("{name} · {kind} · {:?}", instance.state()));
        let total = instance.total_ms().max(1.0);
        let bar = egui::ProgressBar::new(instance.time_ms() / total).desired_width(220.0).text(format!(
            "{:.0} / {:.0} ms",
            instance.time_ms(),
            instance.total_ms()
        ));
        ui.add(bar);
        let mut weight = instance.weight();
        let response = ui.add(egui::Slider::new(&mut weight, 0.0..=2.0).text("weight"));
        if response.changed() {
            player.force_weight(instance.id, weight);
        }
        if ui.button("Clear").on_hover_text("Fade it out over 100 ms").clicked() {
            player.clear_instance(instance.id, 100.0);
        }
    });
}
