//! Skinning a mesh on the CPU as the client does: a palette built from the
//! mesh's own bone-name list, each entry the bone's model-space pose times
//! its stored inverse bind; each vertex moved by its leading positive
//! weights, not renormalised.

use glam::{Mat4, Vec3};

use super::rig::Rig;
use super::sample::BonePose;
use crate::format::{FileString, Mesh, Weights};

/// How a mesh's bone names meet a rig, by the client's rule: exact,
/// case-sensitive names (as C strings); an unknown name silently becomes
/// bone 0, the root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MeshBinding {
    /// The rig bone of each palette entry ([`Weights::palette`] order).
    pub palette: Vec<usize>,
    /// Palette entries whose name the rig lacks (they drive the root), with
    /// the name.
    pub unknown: Vec<(usize, FileString)>,
}

impl MeshBinding {
    /// Binds a mesh's weights block to a rig.
    pub fn new(weights: &Weights, rig: &Rig) -> Self {
        let mut binding = Self::default();
        for (entry, name) in weights.palette().into_iter().enumerate() {
            let bone = rig.bone(name.c_str());
            if bone.is_none() {
                binding.unknown.push((entry, name.clone()));
            }
            binding.palette.push(bone.unwrap_or(0));
        }
        binding
    }

    /// The palette matrices for a world pose of the rig: for each entry,
    /// `world(bone) * inverse_bind(bone)` in column-vector terms (the
    /// client's `inverse_bind * world` with row vectors).
    pub fn matrices(&self, rig: &Rig, world: &[BonePose]) -> Vec<Mat4> {
        self.palette.iter().map(|&bone| bone_matrix(rig, world, bone)).collect()
    }
}

/// One bone's skinning matrix: its model-space pose after its stored
/// inverse bind.
pub fn bone_matrix(rig: &Rig, world: &[BonePose], bone: usize) -> Mat4 {
    let (w, ib) = (world[bone], rig.inverse_binds[bone]);
    Mat4::from_rotation_translation(w.rotation, w.position) * Mat4::from_rotation_translation(ib.rotation, ib.position)
}

/// A mesh's vertices in model space after skinning, in the file's vertex
/// order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkinnedVertices {
    /// Positions.
    pub positions: Vec<Vec3>,
    /// Normals, unit length (empty when the mesh stores none).
    pub normals: Vec<Vec3>,
    /// Bone names of the mesh the rig lacks (skinned on the root, as the
    /// client does); filled by [`skin_on`].
    pub unknown_bones: Vec<FileString>,
}

/// Skins `mesh` with palette `matrices` ([`MeshBinding::matrices`]) as the
/// client does: `v' = sum of w * (M * v)` over the leading weights above 0,
/// normals through the same blended matrix and then normalised. A stored
/// bone index outside the palette (which the client reads out of bounds)
/// uses `root`, the root bone's matrix; the lint reports it. A mesh the
/// client does not skin (not mesh type 1, or no weights block) keeps its
/// stored vertices.
pub fn skin(mesh: &Mesh, matrices: &[Mat4], root: Mat4) -> SkinnedVertices {
    let Some(weights) = mesh.weights.as_ref().filter(|_| mesh.is_skinned()) else {
        return SkinnedVertices {
            positions: mesh.positions.clone(),
            normals: mesh.normals.clone(),
            ..Default::default()
        };
    };
    let blended = |v: usize| {
        weights.influences(v).fold(Mat4::ZERO, |sum, (index, weight)| {
            let m = usize::try_from(index).ok().and_then(|i| matrices.get(i)).unwrap_or(&root);
            sum + *m * weight
        })
    };
    let mut out = SkinnedVertices {
        positions: Vec::with_capacity(mesh.positions.len()),
        normals: Vec::with_capacity(mesh.normals.len()),
        unknown_bones: Vec::new(),
    };
    for v in 0..mesh.vertex_count.min(weights.weights.len()) {
        let m = blended(v);
        if let Some(p) = mesh.positions.get(v) {
            out.positions.push(m.transform_point3(*p));
        }
        if let Some(n) = mesh.normals.get(v) {
            out.normals.push(m.transform_vector3(*n).normalize_or_zero());
        }
    }
    out
}

/// Where each control point of a version 2002 mesh is: on a skinned mesh
/// moved by its linked bone like a vertex of weight 1 (an unknown bone name
/// means the root); on any other mesh where stored, as its vertices.
pub fn control_points(mesh: &Mesh, rig: &Rig, world: &[BonePose]) -> Vec<Vec3> {
    let moved = |bone: &FileString, point: Vec3| {
        bone_matrix(rig, world, rig.bone(bone.c_str()).unwrap_or(0)).transform_point3(point)
    };
    mesh.control_points.iter().map(|cp| if mesh.is_skinned() { moved(&cp.bone, cp.point) } else { cp.point }).collect()
}

/// Joint indices and weights a vertex, for GPU skinning (Bevy, glTF): the
/// client's influences, the rest zero. Joint `j` is palette entry `j`
/// ([`Weights::palette`]); a stored index outside the palette, which the
/// client reads out of bounds, becomes joint `palette.len()`, for the
/// caller to bind to the root.
pub fn vertex_influences(weights: &Weights, count: usize) -> (Vec<[u16; 4]>, Vec<[f32; 4]>) {
    let palette = weights.palette().len();
    let root = u16::try_from(palette).unwrap_or(u16::MAX);
    (0..count)
        .map(|vertex| {
            let (mut joints, mut amounts) = ([0u16; 4], [0f32; 4]);
            for (k, (bone, weight)) in weights.influences(vertex).enumerate() {
                joints[k] = usize::try_from(bone).ok().filter(|&b| b < palette).map_or(root, |b| b as u16);
                amounts[k] = weight;
            }
            (joints, amounts)
        })
        .unzip()
}

/// A submesh's triangles with their winding swapped, for axes mirrored on
/// Z (where front faces would otherwise turn to the back), less any that
/// name a vertex past the buffer (the lint reports those).
pub fn swapped_triangles(indices: &[u16], vertices: usize) -> Vec<u16> {
    indices
        .chunks_exact(3)
        .filter(|t| t.iter().all(|&i| usize::from(i) < vertices))
        .flat_map(|t| [t[0], t[2], t[1]])
        .collect()
}

/// Skins a mesh on a rig at a world pose: binding, palette and vertices in
/// one call, for tools that pose a mesh once.
pub fn skin_on(mesh: &Mesh, rig: &Rig, world: &[BonePose]) -> SkinnedVertices {
    let binding = mesh.weights.as_ref().map(|w| MeshBinding::new(w, rig)).unwrap_or_default();
    let mut skinned = skin(mesh, &binding.matrices(rig, world), bone_matrix(rig, world, 0));
    skinned.unknown_bones = binding.unknown.into_iter().map(|(_, name)| name).collect();
    skinned
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;
    use crate::anim::biped;
    use crate::format::msh::{ANIMATED_MESH, VertexMask};

    /// Two vertices on the left forearm's bind pose, one fully on it and one
    /// split with the upper arm, plus one naming a bone the Biped lacks.
    fn arm_mesh(rig: &Rig) -> Mesh {
        let rest = rig.to_world(&rig.rest);
        let forearm = rig.bone(b"Bip01 L Forearm").unwrap();
        let at = rest[forearm].position + rest[forearm].rotation * Vec3::new(5.0, 1.0, 0.0);
        Mesh {
            version: 2000,
            mesh_type: ANIMATED_MESH,
            mask: VertexMask(VertexMask::POSITION | VertexMask::NORMAL | VertexMask::WEIGHTS | VertexMask::INDICES),
            vertex_count: 3,
            positions: vec![at, at + Vec3::Y, Vec3::new(1.0, 2.0, 3.0)],
            normals: vec![Vec3::Y; 3],
            weights: Some(Weights {
                names: vec!["Bip01 L Forearm".into(), "Bip01 L UpperArm".into(), "Tail".into()],
                weights: vec![[1.0, 0.0, 0.0, 0.0], [0.3, 0.7, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
                bones: vec![[0.0; 4], [0.0, 1.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]],
            }),
            ..Mesh::default()
        }
    }

    #[test]
    fn at_rest_the_bind_positions_come_back() {
        let rig = Rig::new(&biped::skeleton()).unwrap();
        let mesh = arm_mesh(&rig);
        let skinned = skin_on(&mesh, &rig, &rig.to_world(&rig.rest));
        for (got, want) in skinned.positions.iter().zip(&mesh.positions) {
            assert!(got.abs_diff_eq(*want, 1e-3), "{got} vs {want}");
        }
        assert!(skinned.normals.iter().all(|n| n.abs_diff_eq(Vec3::Y, 1e-5)));
    }

    #[test]
    fn unknown_names_drive_the_root_and_are_reported() {
        let rig = Rig::new(&biped::skeleton()).unwrap();
        let mesh = arm_mesh(&rig);
        let binding = MeshBinding::new(mesh.weights.as_ref().unwrap(), &rig);
        assert_eq!(binding.unknown, vec![(2, FileString::from("Tail"))]);
        assert_eq!(binding.palette[2], 0);
        // Move the root: the "Tail" vertex moves with it.
        let mut local = rig.rest.clone();
        local[0].position += Vec3::new(0.0, 0.0, 10.0);
        let skinned = skin_on(&mesh, &rig, &rig.to_world(&local));
        assert!(skinned.positions[2].abs_diff_eq(mesh.positions[2] + Vec3::Z * 10.0, 1e-3));
    }

    #[test]
    fn a_static_mesh_is_not_skinned() {
        let rig = Rig::new(&biped::skeleton()).unwrap();
        let mut mesh = arm_mesh(&rig);
        mesh.mesh_type = 0;
        let mut local = rig.rest.clone();
        local[0].rotation = Quat::from_rotation_y(1.0);
        assert_eq!(skin_on(&mesh, &rig, &rig.to_world(&local)).positions, mesh.positions);
    }
}
