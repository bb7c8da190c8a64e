//! Collision going in: the nodes named `*_collision` as one `.cms`.

use glam::Vec3;

use crate::anim::swapped_triangles;
use crate::format::Collision;

use super::super::{COLLISION_SUFFIX, GltfError};
use super::mesh::{Scene, check_types};
use crate::format::msh::MAX_VERTICES;

/// Whether a mesh node is collision: it or its mesh is named `*_collision`.
pub fn is_collision(node: &::gltf::Node) -> bool {
    let named = |name: Option<&str>| name.is_some_and(|n| n.to_ascii_lowercase().ends_with(COLLISION_SUFFIX));
    named(node.name()) || named(node.mesh().and_then(|m| m.name()))
}

/// Every triangle of `nodes` where the scene puts it, in the engine's axes
/// and units, wound as the client winds faces: walkable from the side its
/// normals face.
pub fn collision(scene: &Scene, nodes: &[::gltf::Node]) -> Result<Collision, GltfError> {
    let mut out = Collision::default();
    for node in nodes {
        let Some(mesh) = node.mesh() else { continue };
        let name = mesh.name().or(node.name()).unwrap_or_default().to_owned();
        let world = scene.world[node.index()];
        for primitive in mesh.primitives() {
            let limit = |why: String| GltfError::GameLimit { mesh: name.clone(), primitive: primitive.index(), why };
            if primitive.mode() != ::gltf::mesh::Mode::Triangles {
                return Err(limit(format!("{:?} primitives; collision is triangles", primitive.mode())));
            }
            check_types(&primitive).map_err(limit)?;
            let reader = primitive.reader(|buffer| scene.file.buffer(buffer));
            let positions: Vec<Vec3> =
                reader.read_positions().ok_or_else(|| limit("no positions".into()))?.map(Vec3::from).collect();
            let first = out.positions.len();
            if first + positions.len() > MAX_VERTICES {
                return Err(limit(format!(
                    "{} collision vertices; a .cms holds at most {MAX_VERTICES}",
                    first + positions.len()
                )));
            }
            let indices: Vec<u32> = match reader.read_indices() {
                Some(indices) => indices.into_u32().collect(),
                None => (0..positions.len() as u32).collect(),
            };
            if !indices.len().is_multiple_of(3) || indices.iter().any(|&i| i as usize >= positions.len()) {
                return Err(limit("indices that are not whole triangles of its vertices".into()));
            }
            out.positions.extend(positions.iter().map(|&p| scene.position(world.transform_point3(p))));
            // Mirroring turns the winding: the meshes' rule turns it back.
            let indices: Vec<u16> = indices.into_iter().map(|i| i as u16).collect();
            out.indices.extend(swapped_triangles(&indices, positions.len()).iter().map(|&i| i + first as u16));
        }
    }
    Ok(out)
}
