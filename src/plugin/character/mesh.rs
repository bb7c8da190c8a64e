//! `.msh` meshes as Bevy meshes: one Bevy mesh per drawn submesh, in
//! Bevy's axes, with the client's skinning weights.

use bevy::asset::RenderAssetUsages;
use bevy::math::{Mat4, Vec3};
use bevy::mesh::{Indices, Mesh, PrimitiveTopology, VertexAttributeValues};

use crate::anim::{MeshBinding, Rig, swapped_triangles, vertex_influences};
use crate::format::msh;
use crate::plugin::axes::Axes;

/// The Bevy meshes of a `.msh`, one per submesh record (`None` for a
/// submesh with no faces, which the client does not draw).
///
/// Positions and normals are mirrored by `axes` and every triangle's
/// winding is swapped, so front faces stay front faces: the client's
/// default `cull counter_clockwise` becomes Bevy's back-face culling.
/// UVs are kept as stored (Direct3D and wgpu share the top-left origin).
/// Each mesh holds the whole vertex buffer (characters have one to three
/// submeshes) and only its own triangles; a triangle naming a vertex past
/// the buffer is dropped (the lint reports it).
///
/// A skinned mesh ([`msh::Mesh::is_skinned`]) gets joint indices and weights
/// by the client's rule: the leading weights above 0, not renormalised.
/// Joint `j` is palette entry `j` ([`msh::Weights::palette`]); a stored
/// index outside the palette, which the client reads out of bounds, is
/// joint `palette.len()`, the root ([`inverse_bindposes`] lists it last).
pub fn submesh_meshes(mesh: &msh::Mesh, axes: Axes) -> Vec<Option<Mesh>> {
    let base = base_mesh(mesh, axes);
    mesh.submeshes
        .iter()
        .map(|submesh| {
            let indices = swapped_triangles(mesh.submesh_indices(submesh), mesh.positions.len());
            (!indices.is_empty()).then(|| {
                let mut part = base.clone();
                part.insert_indices(Indices::U16(indices));
                if mesh.is_skinned() {
                    // Bounds per joint, so that an animated mesh is never
                    // culled by its bind-pose box.
                    part.generate_skinned_mesh_bounds().ok();
                }
                part
            })
        })
        .collect()
}

/// The inverse bind matrices of a mesh's joints on `rig`, in Bevy's axes:
/// the skeleton's stored inverse bind of each palette entry's bone, then
/// the root's for out-of-palette indices (see [`submesh_meshes`]).
pub fn inverse_bindposes(binding: &MeshBinding, rig: &Rig, axes: Axes) -> Vec<Mat4> {
    binding.palette.iter().chain([&0]).map(|&bone| inverse_bind(rig, bone, axes)).collect()
}

/// One bone's stored inverse bind in `axes` (identity past the rig), as a
/// `Mat4` for Bevy's skins: the palette path's rule
/// ([`crate::plugin::palette::inverse_bind`]).
pub fn inverse_bind(rig: &Rig, bone: usize, axes: Axes) -> Mat4 {
    Mat4::from(crate::plugin::palette::inverse_bind(rig, bone, axes))
}

/// Vertex attributes shared by every submesh of `mesh`.
fn base_mesh(mesh: &msh::Mesh, axes: Axes) -> Mesh {
    let mut base = Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default());
    let count = mesh.positions.len();
    let convert = |points: &[Vec3]| points.iter().map(|&p| axes.position(p).to_array()).collect::<Vec<_>>();
    base.insert_attribute(Mesh::ATTRIBUTE_POSITION, convert(&mesh.positions));
    if mesh.normals.len() == count {
        let normals: Vec<Vec3> = mesh.normals.iter().map(|n| n.normalize_or(Vec3::Y)).collect();
        base.insert_attribute(Mesh::ATTRIBUTE_NORMAL, convert(&normals));
    }
    // The second set is the first where the mesh has one set only, so a
    // script's `tex_coord_set 1` reads what the client reads.
    for (set, attribute) in [Mesh::ATTRIBUTE_UV_0, Mesh::ATTRIBUTE_UV_1].into_iter().enumerate() {
        if let Some(uvs) = mesh.uvs(set) {
            base.insert_attribute(attribute, uvs.iter().map(|uv| uv.to_array()).collect::<Vec<_>>());
        }
    }
    if let Some(weights) = mesh.weights.as_ref().filter(|_| mesh.is_skinned()) {
        let (joints, weights) = vertex_influences(weights, count);
        base.insert_attribute(Mesh::ATTRIBUTE_JOINT_INDEX, VertexAttributeValues::Uint16x4(joints));
        base.insert_attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT, weights);
    }
    base
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{FileString, Submesh, Weights};
    use bevy::math::Vec2;

    fn triangle() -> msh::Mesh {
        let mut mesh = msh::Mesh { version: 2001, mesh_type: msh::ANIMATED_MESH, ..msh::Mesh::default() };
        mesh.positions = vec![Vec3::new(0.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 1.0), Vec3::new(0.0, 1.0, 1.0)];
        mesh.normals = vec![Vec3::new(0.0, 0.0, -2.0); 3];
        mesh.uv0 = vec![Vec2::ZERO, Vec2::X, Vec2::Y];
        mesh.weights = Some(Weights {
            names: vec![FileString::from("A"), FileString::from("B")],
            weights: vec![[0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.3, 0.0], [0.2, 0.8, 0.0, 0.0]],
            bones: vec![[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [7.0, 0.0, 0.0, 0.0]],
        });
        mesh.indices = vec![0, 1, 2, 0, 1, 9];
        mesh.submeshes = vec![
            Submesh { min_index: 0, vertex_count: 3, index_start: 0, face_count: 2 },
            Submesh { min_index: 0, vertex_count: 0, index_start: 0, face_count: 0 },
        ];
        mesh
    }

    #[test]
    fn submeshes_mirror_swap_winding_and_carry_the_clients_weights() {
        let parts = submesh_meshes(&triangle(), Axes::EngineToBevy);
        assert_eq!(parts.len(), 2);
        assert!(parts[1].is_none(), "a submesh without faces is not drawn");
        let part = parts[0].as_ref().unwrap();
        let Some(Indices::U16(indices)) = part.indices() else { panic!("u16 indices") };
        assert_eq!(indices, &[0, 2, 1], "the triangle past the buffer is dropped, the other one turned");
        let positions = part.attribute(Mesh::ATTRIBUTE_POSITION).unwrap().as_float3().unwrap();
        assert_eq!(positions[1], [1.0, 0.0, -1.0]);
        let Some(VertexAttributeValues::Float32x3(normals)) = part.attribute(Mesh::ATTRIBUTE_NORMAL) else {
            panic!("normals")
        };
        assert_eq!(normals[0], [0.0, 0.0, 1.0]);
        let Some(VertexAttributeValues::Uint16x4(joints)) = part.attribute(Mesh::ATTRIBUTE_JOINT_INDEX) else {
            panic!("joints")
        };
        let Some(VertexAttributeValues::Float32x4(weights)) = part.attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT) else {
            panic!("weights")
        };
        assert_eq!(weights[1], [1.0, 0.0, 0.0, 0.0], "weights stop at the first that is not above 0");
        assert_eq!(joints[2], [2, 0, 0, 0], "index 7 is past the palette: the root's extra joint");
        assert_eq!(weights[2], [0.2, 0.8, 0.0, 0.0], "not renormalised");
        assert!(part.skinned_mesh_bounds().is_some());
    }
}
