//! The client's outline pass (`AnimateOutLine`): the mesh drawn again,
//! pushed out along its normals, with only the faces that turn away from
//! the camera (an inverted hull), in the outline's colour.
//!
//! The client pushes in its vertex shader by an amount that grows with the
//! field of view over the viewport's width, so `OutLineThickness` is about
//! a width in pixels at any distance. This draws the hull as a mesh pushed
//! by a fixed amount in the model's units ([`UNITS_PER_THICKNESS`] a unit of
//! thickness), right at the distance a character is usually seen from;
//! farther away the line thins, closer it thickens (`docs/material.md`).

use std::collections::HashMap;

use bevy::asset::{AssetId, Assets, Handle};
use bevy::color::Color;
use bevy::ecs::prelude::*;
use bevy::mesh::{Mesh, VertexAttributeValues};
use bevy::pbr::StandardMaterial;
use bevy::reflect::{Reflect, std_traits::ReflectDefault};

use super::material::culled;
use crate::surface::Outline;

/// Model units a unit of `OutLineThickness` pushes the hull. The game's
/// scripts say 0.6 and the game shows a line one to two pixels wide on a
/// character filling a third of a 768-line screen: about 1.5 units, so
/// 2.5 units a unit of thickness. The client's exact push is in shader
/// files that are not public; this is the closest reading.
pub const UNITS_PER_THICKNESS: f32 = 2.5;

/// Marks the outline hull of a mesh part (a child of the part, so that it
/// shows and hides with it).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Default)]
pub struct OutlineHull;

/// The hulls and outline materials made so far, shared by every character
/// that draws the same mesh part or material.
#[derive(Resource, Debug, Default)]
pub struct Outlines {
    hulls: HashMap<(AssetId<Mesh>, u32), Option<Handle<Mesh>>>,
    materials: HashMap<(u32, u32, u32, u32, u32), Handle<StandardMaterial>>,
}

impl Outlines {
    /// The hull of `part` for `outline`, made once (none for a part
    /// without normals).
    pub fn hull(&mut self, meshes: &mut Assets<Mesh>, part: &Handle<Mesh>, outline: &Outline) -> Option<Handle<Mesh>> {
        let push = outline.thickness * UNITS_PER_THICKNESS;
        let key = (part.id(), push.to_bits());
        let made = self.hulls.entry(key).or_insert_with(|| {
            let hull = pushed_out(meshes.get(part)?, push)?;
            Some(meshes.add(hull))
        });
        made.clone()
    }

    /// The unlit material of `outline`, drawing the faces its pass does.
    pub fn material(
        &mut self,
        materials: &mut Assets<StandardMaterial>,
        outline: &Outline,
    ) -> Handle<StandardMaterial> {
        let [r, g, b, a] = outline.color;
        let faces = outline.faces;
        let key = (r.to_bits(), g.to_bits(), b.to_bits(), a.to_bits(), faces as u32);
        let material = || StandardMaterial {
            base_color: Color::srgba(r, g, b, a),
            unlit: true,
            cull_mode: culled(faces),
            ..StandardMaterial::default()
        };
        self.materials.entry(key).or_insert_with(|| materials.add(material())).clone()
    }
}

/// `mesh` with every vertex pushed `push` units along its normal.
fn pushed_out(mesh: &Mesh, push: f32) -> Option<Mesh> {
    let Some(VertexAttributeValues::Float32x3(normals)) = mesh.attribute(Mesh::ATTRIBUTE_NORMAL) else { return None };
    let Some(VertexAttributeValues::Float32x3(positions)) = mesh.attribute(Mesh::ATTRIBUTE_POSITION) else {
        return None;
    };
    let pushed: Vec<[f32; 3]> = positions
        .iter()
        .zip(normals)
        .map(|(p, n)| [p[0] + n[0] * push, p[1] + n[1] * push, p[2] + n[2] * push])
        .collect();
    let mut hull = mesh.clone();
    hull.insert_attribute(Mesh::ATTRIBUTE_POSITION, pushed);
    Some(hull)
}
