//! A glTF mesh node as a `.msh`: one submesh a primitive, positions at
//! the bind pose in the engine's axes and units, the client's winding, at
//! most three weights a vertex, and the bounds the client culls with.

use ::gltf::mesh::Mode;
use glam::{Mat4, Vec2, Vec3};

use crate::anim::axes::mirror_x_position;
use crate::anim::swapped_triangles;
use crate::format::msh::{ANIMATED_MESH, Bounds, MAX_PALETTE, MAX_VERTICES};
use crate::format::{FileString, Mesh, Submesh, VertexMask, Weights};

use super::super::source::check_accessor;
use super::super::{GltfDocument, GltfError};

/// The most weights a vertex keeps: with four positive weights the
/// client's software skinner reads on into the next vertex.
pub const MAX_WEIGHTS: usize = 3;

/// One primitive's vertices, read and posed at bind, still in glTF's axes.
/// Only the first UV set is read: the game's templates draw the diffuse
/// texture with set 1, which reads the first where a mesh has one set
/// ([`Mesh::uv_set`]), and a second set (a bake, a lightmap) would take
/// its place.
#[derive(Debug, Default)]
struct Vertices {
    positions: Vec<Vec3>,
    normals: Option<Vec<Vec3>>,
    uv0: Vec<Vec2>,
    /// Per vertex, up to [`MAX_WEIGHTS`] (skin joint, weight) pairs.
    influences: Option<Vec<Vec<(u16, f32)>>>,
}

/// What turns glTF's scene into the engine's: where each node is at rest,
/// the export's scale, and the name of each skin joint's bone.
pub struct Scene<'a> {
    /// The document and its buffers.
    pub file: &'a GltfDocument,
    /// Each node's transform in the scene at rest.
    pub world: &'a [Mat4],
    /// glTF units a game unit (the export's scale, 0.01 by default).
    pub scale: f32,
}

impl Scene<'_> {
    /// A point of the scene in the engine's axes and units.
    pub fn position(&self, p: Vec3) -> Vec3 {
        mirror_x_position(p) / self.scale
    }
}

/// A mesh node's mesh as the game's, its submeshes in primitive order;
/// `bone` names the bone of a skin's joint (by node index).
pub fn convert(scene: &Scene, node: &::gltf::Node, bone: &dyn Fn(usize) -> FileString) -> Result<Mesh, GltfError> {
    let mesh = node.mesh().ok_or_else(|| GltfError::Invalid(format!("node {}: has no mesh", node.index())))?;
    let name = mesh.name().or(node.name()).map_or_else(|| format!("mesh {}", mesh.index()), str::to_owned);
    let limit = |primitive: usize, why: String| GltfError::GameLimit { mesh: name.clone(), primitive, why };
    let mut out = Mesh { version: 2000, ..Mesh::default() };
    let mut palette: Vec<FileString> = Vec::new();
    // Primitives that share their vertex accessors (one vertex buffer
    // under several materials, as the game's meshes and this crate's
    // export have it) share their vertices.
    let mut shared: Vec<(Vec<usize>, usize, usize)> = Vec::new();
    for primitive in mesh.primitives() {
        let p = primitive.index();
        if primitive.mode() != Mode::Triangles {
            return Err(limit(p, format!("{:?} primitives; the game draws triangles only", primitive.mode())));
        }
        let key: Vec<usize> = primitive.attributes().map(|(_, accessor)| accessor.index()).collect();
        let (first, count) = match shared.iter().find(|(k, ..)| *k == key) {
            Some(&(_, first, count)) => (first, count),
            None => {
                let vertices = read(scene, node, &primitive).map_err(|why| limit(p, why))?;
                let (first, count) = (out.positions.len(), vertices.positions.len());
                if first + count > MAX_VERTICES {
                    return Err(limit(p, format!("{} vertices; a mesh holds at most {MAX_VERTICES}", first + count)));
                }
                if vertices.influences.is_some() != out.weights.is_some() && first > 0 {
                    return Err(limit(
                        p,
                        "weighted where the mesh's other primitives are not, or not where they are".into(),
                    ));
                }
                append(scene, &mut out, vertices, &mut palette, &|joint| skin_joint(node, joint).map(bone));
                shared.push((key, first, count));
                (first, count)
            }
        };
        let indices = triangles(scene, &primitive, count).map_err(|why| limit(p, why))?;
        let index_start = out.indices.len() as i32;
        out.indices.extend(swapped_triangles(&indices, count).iter().map(|&i| i + first as u16));
        out.submeshes.push(Submesh {
            min_index: first as i32,
            vertex_count: count as i32,
            index_start,
            face_count: (indices.len() / 3) as i32,
        });
        if palette.len() > MAX_PALETTE {
            return Err(limit(
                p,
                format!("{} bones weighted; a mesh's palette holds at most {MAX_PALETTE}", palette.len()),
            ));
        }
    }
    finish(&mut out, palette);
    Ok(out)
}

/// The node index of a skin's joint `joint`.
fn skin_joint(node: &::gltf::Node, joint: u16) -> Option<usize> {
    node.skin()?.joints().nth(usize::from(joint)).map(|j| j.index())
}

/// Each attribute the import reads, and the indices, checked as every
/// accessor is before the `gltf` crate reads it (its readers assume the
/// types glTF allows, and panic otherwise).
pub fn check_types(primitive: &::gltf::Primitive) -> Result<(), String> {
    use ::gltf::Semantic;
    use ::gltf::accessor::{DataType, Dimensions};
    let (floats, integers) = ([DataType::F32].as_slice(), [DataType::U8, DataType::U16].as_slice());
    let either = [DataType::F32, DataType::U8, DataType::U16].as_slice();
    for (semantic, accessor) in primitive.attributes() {
        let (types, dimensions) = match semantic {
            Semantic::Positions | Semantic::Normals => (floats, Dimensions::Vec3),
            Semantic::TexCoords(_) => (either, Dimensions::Vec2),
            Semantic::Joints(_) => (integers, Dimensions::Vec4),
            Semantic::Weights(_) => (either, Dimensions::Vec4),
            _ => continue,
        };
        check_accessor(&accessor, &format!("{semantic:?}"), types, dimensions)?;
    }
    match primitive.indices() {
        Some(indices) => {
            check_accessor(&indices, "indices", &[DataType::U8, DataType::U16, DataType::U32], Dimensions::Scalar)
        }
        None => Ok(()),
    }
}

/// A primitive's vertices at the bind pose, in the scene: a skinned one
/// through its joints' rest times their inverse binds (what a renderer
/// draws at rest), any other through its node's transform.
fn read(scene: &Scene, node: &::gltf::Node, primitive: &::gltf::Primitive) -> Result<Vertices, String> {
    check_types(primitive)?;
    let reader = primitive.reader(|buffer| scene.file.buffer(buffer));
    let positions: Vec<Vec3> = reader.read_positions().ok_or("no positions")?.map(Vec3::from).collect();
    let uv = |set| reader.read_tex_coords(set).map(|t| t.into_f32().map(Vec2::from).collect::<Vec<_>>());
    let uv0 = uv(0).ok_or("no UVs (TEXCOORD_0); the game's meshes are textured")?;
    let normals: Option<Vec<Vec3>> = reader.read_normals().map(|n| n.map(Vec3::from).collect());
    let skinned = node.skin().zip(reader.read_joints(0)).zip(reader.read_weights(0));
    let (matrices, influences) = match skinned {
        Some(((skin, joints), weights)) => {
            let joints: Vec<[u16; 4]> = joints.into_u16().collect();
            let weights: Vec<[f32; 4]> = weights.into_f32().collect();
            let influences: Vec<Vec<(u16, f32)>> = joints.iter().zip(&weights).map(|(j, w)| strongest(j, w)).collect();
            let binds = bind_matrices(scene, &skin)?;
            let matrices = influences.iter().map(|inf| blended(&binds, inf)).collect::<Result<Vec<_>, _>>()?;
            (matrices, Some(influences))
        }
        None => (vec![scene.world[node.index()]; positions.len()], None),
    };
    let counts = [uv0.len(), normals.as_ref().map_or(positions.len(), Vec::len), matrices.len()];
    if counts.iter().any(|&n| n != positions.len()) {
        return Err(format!("attributes of different lengths ({} positions, {counts:?})", positions.len()));
    }
    let posed = positions.iter().zip(&matrices).map(|(p, m)| m.transform_point3(*p)).collect();
    let normals =
        normals.map(|n| n.iter().zip(&matrices).map(|(n, m)| m.transform_vector3(*n).normalize_or(Vec3::Y)).collect());
    Ok(Vertices { positions: posed, normals, uv0, influences })
}

/// Each joint's rest transform times its inverse bind.
fn bind_matrices(scene: &Scene, skin: &::gltf::Skin) -> Result<Vec<Mat4>, String> {
    if let Some(accessor) = skin.inverse_bind_matrices() {
        use ::gltf::accessor::{DataType, Dimensions};
        check_accessor(&accessor, "inverse bind matrices", &[DataType::F32], Dimensions::Mat4)?;
    }
    let reader = skin.reader(|buffer| scene.file.buffer(buffer));
    let inverse: Vec<Mat4> = match reader.read_inverse_bind_matrices() {
        Some(matrices) => matrices.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
        None => vec![Mat4::IDENTITY; skin.joints().len()],
    };
    skin.joints()
        .zip(inverse)
        .map(|(joint, inverse)| Ok(scene.world[joint.index()] * inverse))
        .collect::<Result<_, String>>()
}

/// A vertex's skinning matrix at rest: its weights' blend.
fn blended(binds: &[Mat4], influences: &[(u16, f32)]) -> Result<Mat4, String> {
    let mut sum = Mat4::ZERO;
    for &(joint, weight) in influences {
        let bind = binds.get(usize::from(joint)).ok_or(format!("joint {joint} is past the skin's {}", binds.len()))?;
        sum += *bind * weight;
    }
    Ok(if influences.is_empty() { Mat4::IDENTITY } else { sum })
}

/// The [`MAX_WEIGHTS`] largest positive weights, summing to 1; a vertex
/// with none (which glTF forbids, and the client would collapse) is
/// bound wholly to its first joint.
fn strongest(joints: &[u16; 4], weights: &[f32; 4]) -> Vec<(u16, f32)> {
    let positive = |&(_, w): &(u16, f32)| w.is_finite() && w > 0.0;
    let mut pairs: Vec<(u16, f32)> = joints.iter().copied().zip(weights.iter().copied()).filter(positive).collect();
    if pairs.is_empty() {
        return vec![(joints[0], 1.0)];
    }
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1));
    pairs.truncate(MAX_WEIGHTS);
    let sum: f32 = pairs.iter().map(|p| p.1).sum();
    pairs.iter().map(|&(joint, weight)| (joint, weight / sum)).collect()
}

/// A primitive's triangles (its indices, or its vertices in order).
fn triangles(scene: &Scene, primitive: &::gltf::Primitive, count: usize) -> Result<Vec<u16>, String> {
    let reader = primitive.reader(|buffer| scene.file.buffer(buffer));
    let indices: Vec<u32> = match reader.read_indices() {
        Some(indices) => indices.into_u32().collect(),
        None => (0..count as u32).collect(),
    };
    if !indices.len().is_multiple_of(3) {
        return Err(format!("{} indices, not whole triangles", indices.len()));
    }
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= count) {
        return Err(format!("index {bad} is past the last of {count} vertices"));
    }
    Ok(indices.into_iter().map(|i| i as u16).collect())
}

/// Adds a primitive's vertices to the mesh, in the engine's axes, their
/// bones added to `palette` as `bone` names them.
fn append(
    scene: &Scene,
    out: &mut Mesh,
    vertices: Vertices,
    palette: &mut Vec<FileString>,
    bone: &dyn Fn(u16) -> Option<FileString>,
) {
    let count = vertices.positions.len();
    out.positions.extend(vertices.positions.iter().map(|&p| scene.position(p)));
    let normals = vertices.normals.unwrap_or_else(|| vec![Vec3::ZERO; count]);
    out.normals.extend(normals.iter().map(|&n| mirror_x_position(n)));
    out.uv0.extend(vertices.uv0);
    let Some(influences) = vertices.influences else { return };
    let weights = out.weights.get_or_insert_with(Weights::default);
    for vertex in influences {
        let (mut w, mut b) = ([0.0; 4], [0.0; 4]);
        for (k, (joint, weight)) in vertex.into_iter().enumerate() {
            let name = bone(joint).unwrap_or_default();
            let index = palette.iter().position(|n| *n == name).unwrap_or_else(|| {
                palette.push(name);
                palette.len() - 1
            });
            (w[k], b[k]) = (weight, index as f32);
        }
        weights.weights.push(w);
        weights.bones.push(b);
    }
}

/// The header as the game's tools write it: the mask of the arrays held,
/// the type, the bounds and the palette.
fn finish(out: &mut Mesh, palette: Vec<FileString>) {
    out.vertex_count = out.positions.len();
    let mut mask = VertexMask::POSITION | VertexMask::UV0;
    if out.normals.iter().all(|n| *n != Vec3::ZERO) {
        mask |= VertexMask::NORMAL;
    } else {
        out.normals.clear();
    }
    if let Some(weights) = &mut out.weights {
        weights.names = palette;
        mask |= VertexMask::WEIGHTS | VertexMask::INDICES;
        out.mesh_type = ANIMATED_MESH;
    }
    out.mask = VertexMask(mask);
    out.bounds = Bounds::of(&out.positions);
}
