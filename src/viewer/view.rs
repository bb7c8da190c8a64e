//! What the user chose to see (the selected bone, overlays, the compared
//! clip), and the two small resources every area shares: the status line
//! and the stage's part of the window.

use bevy::ecs::prelude::*;
use bevy::math::Rect;

/// View choices the panels make and the 3D stage follows.
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
    /// Another open animation to play beside the current one.
    pub compare: Option<usize>,
    /// How materials are drawn.
    pub look: Look,
}

/// How the viewer draws materials.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Look {
    /// As near the game as is known: the scripts' outline passes drawn
    /// (the toon ramp itself is not public; surfaces stay rough and lit).
    #[default]
    Game,
    /// Lit surfaces, no outline.
    Lit,
    /// Flat texture colours, no light, no outline.
    Unlit,
}

impl Look {
    /// Every look, in menu order.
    pub const ALL: [Self; 3] = [Self::Game, Self::Lit, Self::Unlit];

    /// Its name in the menu.
    pub fn label(self) -> &'static str {
        match self {
            Self::Game => "game look",
            Self::Lit => "plain lit",
            Self::Unlit => "unlit",
        }
    }
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
            compare: None,
            look: Look::Game,
        }
    }
}

/// The last outcome worth a line (where a screenshot went, what failed to
/// save or edit): written by whichever area did the work, shown by the
/// panels.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct StatusLine(pub Option<String>);

/// The part of the window the 3D view gets (logical pixels), left over by
/// the panels: written by the panels' layout, read by the stage's camera
/// and by captures.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq)]
pub struct StageRect(pub Option<Rect>);
