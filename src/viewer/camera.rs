//! The 3D camera: orbits a focus point (left drag), pans (right or middle
//! drag), zooms (wheel), and frames the rig on open and on demand.

use bevy::camera::{Camera, Viewport};
use bevy::ecs::prelude::*;
use bevy::input::ButtonInput;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseButton, MouseScrollUnit};
use bevy::math::{EulerRot, Quat, Vec3};
use bevy::transform::components::{GlobalTransform, Transform};
use bevy_egui::input::EguiWantsInput;

/// The camera's place around its focus, in Bevy axes (Y up).
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Orbit {
    /// The point looked at.
    pub focus: Vec3,
    /// Turn about Y, in radians; 0 looks along -Z.
    pub yaw: f32,
    /// Tilt, in radians; positive looks down.
    pub pitch: f32,
    /// Distance from the focus.
    pub distance: f32,
}

impl Default for Orbit {
    fn default() -> Self {
        // In front of the character (which faces Bevy's -Z), a little to its
        // left and above, looking back at it.
        Self { focus: Vec3::new(0.0, 90.0, 0.0), yaw: std::f32::consts::PI + 0.6, pitch: 0.25, distance: 420.0 }
    }
}

impl Orbit {
    /// The camera transform for this orbit.
    pub fn transform(&self) -> Transform {
        let rotation = Quat::from_euler(EulerRot::YXZ, self.yaw, -self.pitch, 0.0);
        Transform { translation: self.focus + rotation * Vec3::Z * self.distance, rotation, ..Transform::default() }
    }

    /// Looks at the sphere around `points` so that all of it is in view
    /// for a vertical field of view of `fov` radians. Returns false, and
    /// moves nothing, when the points have no extent yet (bones just
    /// spawned, all at the origin).
    pub fn frame(&mut self, points: impl IntoIterator<Item = Vec3>, fov: f32) -> bool {
        let points: Vec<Vec3> = points.into_iter().filter(|p| p.is_finite()).collect();
        let Some((min, max)) = points.iter().map(|p| (*p, *p)).reduce(|(lo, hi), (p, _)| (lo.min(p), hi.max(p))) else {
            return false;
        };
        if (max - min).length() < 1.0 {
            return false;
        }
        let radius = ((max - min).length() / 2.0).max(10.0);
        self.focus = (min + max) / 2.0;
        self.distance = radius / (fov / 2.0).sin() * 1.1;
        true
    }
}

/// Moves the camera with the mouse, unless egui has the pointer.
pub fn orbit_with_mouse(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    egui: Option<Res<EguiWantsInput>>,
    mut cameras: Query<&mut Orbit>,
) {
    if egui.is_some_and(|e| e.wants_any_pointer_input()) {
        return;
    }
    for mut orbit in &mut cameras {
        let delta = motion.delta;
        if buttons.pressed(MouseButton::Left) {
            orbit.yaw -= delta.x * 0.008;
            orbit.pitch = (orbit.pitch + delta.y * 0.008).clamp(-1.5, 1.5);
        } else if buttons.pressed(MouseButton::Right) || buttons.pressed(MouseButton::Middle) {
            let rotation = orbit.transform().rotation;
            let scale = orbit.distance * 0.0015;
            orbit.focus += rotation * Vec3::new(-delta.x * scale, delta.y * scale, 0.0);
        }
        let lines = match scroll.unit {
            MouseScrollUnit::Line => scroll.delta.y,
            MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
        };
        if lines != 0.0 {
            orbit.distance = (orbit.distance * 0.9f32.powf(lines)).clamp(5.0, 20_000.0);
        }
    }
}

/// Writes each orbit into its camera's transform.
pub fn apply_orbit(mut cameras: Query<(&Orbit, &mut Transform), Changed<Orbit>>) {
    for (orbit, mut transform) in &mut cameras {
        *transform = orbit.transform();
    }
}

/// Where a world point appears in egui's coordinates (logical pixels from
/// the target's top left, which is what `world_to_viewport` gives here,
/// viewport offset included), if it is in front of the camera.
pub fn to_screen(camera: &Camera, transform: &GlobalTransform, point: Vec3) -> Option<bevy::math::Vec2> {
    camera.world_to_viewport(transform, point).ok()
}

/// The viewport for a rectangle given in logical pixels.
pub fn viewport(min: bevy::math::Vec2, size: bevy::math::Vec2, scale: f32) -> Option<Viewport> {
    let physical_size = (size * scale).as_uvec2();
    (physical_size.x > 0 && physical_size.y > 0).then(|| Viewport {
        physical_position: (min * scale).as_uvec2(),
        physical_size,
        ..Viewport::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_view_looks_at_the_front_of_the_character() {
        let orbit = Orbit::default();
        let t = orbit.transform();
        // The character faces -Z: the camera stands on that side.
        assert!(t.translation.z < 0.0, "{}", t.translation);
        let forward = t.rotation * Vec3::NEG_Z;
        assert!((orbit.focus - t.translation).normalize().dot(forward) > 0.999);
    }

    #[test]
    fn framing_fits_the_points() {
        let mut orbit = Orbit::default();
        assert!(!orbit.frame([Vec3::ZERO, Vec3::ZERO], 0.8), "no extent: nothing to frame");
        assert!(orbit.frame([Vec3::new(-10.0, 0.0, 0.0), Vec3::new(10.0, 170.0, 0.0)], 0.8));
        assert_eq!(orbit.focus, Vec3::new(0.0, 85.0, 0.0));
        assert!(orbit.distance > 85.0 / 0.4f32.sin());
    }
}
