//! The stage's side of files opened on their own
//! ([`OpenPreview`](super::workspace::OpenPreview)): a
//! texture on a card, a material on a ball, a collision mesh's edges over
//! the model, in a row beside the origin.

use bevy::asset::Assets;
use bevy::camera::primitives::Aabb;
use bevy::color::Srgba;
use bevy::ecs::prelude::*;
use bevy::gizmos::gizmos::Gizmos;
use bevy::math::primitives::{Rectangle, Sphere};
use bevy::math::{Quat, Vec3};
use bevy::mesh::{Mesh, Mesh3d, Meshable};
use bevy::pbr::{MeshMaterial3d, StandardMaterial};
use bevy::transform::components::Transform;

use super::view::ViewState;
use super::workspace::{Shown, Workspace};
use crate::anim::axes::mirror_position;

/// Marks what the stage spawned for a preview.
#[derive(Component, Debug, Clone, Copy)]
pub struct PreviewPart;

/// The height of a card or a ball, in units (a character's half).
const SIZE: f32 = 100.0;
/// The collision edges' colour.
const EDGES: Srgba = Srgba::rgb(0.3, 1.0, 0.4);

/// Spawns the previews again when one is opened, and asks for framing.
pub fn show_previews(
    mut commands: Commands,
    workspace: Res<Workspace>,
    mut view: ResMut<ViewState>,
    spawned: Query<Entity, With<PreviewPart>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut shown: Local<usize>,
) {
    if *shown == workspace.previews.len() {
        return;
    }
    *shown = workspace.previews.len();
    spawned.iter().for_each(|entity| commands.entity(entity).despawn());
    for (i, preview) in workspace.previews.iter().enumerate() {
        // Cards and balls in a row to the side; collisions where they are.
        let place = Vec3::new(-(i as f32 + 1.0) * SIZE * 1.5, SIZE * 0.6, 0.0);
        let spawned = match &preview.shown {
            Some(Shown::Texture(image, aspect)) => {
                let card = meshes.add(Rectangle::new(SIZE * aspect, SIZE).mesh());
                let material = StandardMaterial {
                    base_color_texture: Some(image.clone()),
                    unlit: true,
                    cull_mode: None,
                    ..StandardMaterial::default()
                };
                // Facing -Z, where the camera starts.
                let turned =
                    Transform::from_translation(place).with_rotation(Quat::from_rotation_y(std::f32::consts::PI));
                Some((Mesh3d(card), MeshMaterial3d(materials.add(material)), turned))
            }
            Some(Shown::Material(material)) => {
                let ball = meshes.add(Sphere::new(SIZE / 2.0).mesh().uv(32, 18));
                Some((Mesh3d(ball), MeshMaterial3d(material.clone()), Transform::from_translation(place)))
            }
            Some(Shown::Collision(collision)) => {
                let bounds = Aabb::enclosing(collision.positions.iter().map(|&p| mirror_position(p)));
                commands.spawn((PreviewPart, Transform::IDENTITY, bounds.unwrap_or_default()));
                None
            }
            None => None,
        };
        if let Some(parts) = spawned {
            commands.spawn((PreviewPart, parts));
        }
    }
    view.frame_requested = true;
}

/// Draws each collision mesh's triangle edges.
pub fn draw_collisions(mut gizmos: Gizmos, workspace: Res<Workspace>) {
    for preview in &workspace.previews {
        let Some(Shown::Collision(collision)) = &preview.shown else { continue };
        let at = |i: u16| collision.positions.get(usize::from(i)).map(|&p| mirror_position(p));
        for face in collision.indices.chunks_exact(3) {
            if let (Some(a), Some(b), Some(c)) = (at(face[0]), at(face[1]), at(face[2])) {
                gizmos.linestrip([a, b, c, a], EDGES);
            }
        }
    }
}
