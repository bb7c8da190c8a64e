//! The sample static model, as maps and props are made: a small stage (a
//! floor, a raised platform and two pillars) as a mesh with no weights,
//! painted from the Biped's texture with one `Static` pass; its collision
//! mesh (`.cms`: the same blocks, their corners shared as collision meshes
//! share them); and a config in `model/staticmodel` with `#AABOX`,
//! `#SPHERE` and `#COLLISION_MESH` and no skeleton.

use bevy_io3d::format::msh::Bounds;
use bevy_io3d::format::{Collision, Mesh, Submesh, VertexMask};
use glam::{Vec2, Vec3};

/// An axis-aligned block: its centre, half its size, and the area of the
/// texture its faces are painted with (u from, u to, v from, v to).
struct Block {
    centre: Vec3,
    half: Vec3,
    area: [f32; 4],
}

/// The texture's bands (see `character.rs`): trousers, shoes, steel.
const FLOOR: [f32; 4] = [0.0, 1.0, 0.5, 0.75];
const WOOD: [f32; 4] = [0.0, 0.5, 0.75, 1.0];
const STEEL: [f32; 4] = [0.5, 1.0, 0.75, 1.0];

/// The stage, in game units (about a centimetre): a 6 m floor whose top is
/// at 0, a platform 40 units high at the back (+Z) and two 2 m pillars.
const BLOCKS: [Block; 4] = [
    Block { centre: Vec3::new(0.0, -10.0, 0.0), half: Vec3::new(300.0, 10.0, 300.0), area: FLOOR },
    Block { centre: Vec3::new(0.0, 20.0, 180.0), half: Vec3::new(150.0, 20.0, 80.0), area: WOOD },
    Block { centre: Vec3::new(-240.0, 100.0, 240.0), half: Vec3::new(20.0, 100.0, 20.0), area: STEEL },
    Block { centre: Vec3::new(240.0, 100.0, 240.0), half: Vec3::new(20.0, 100.0, 20.0), area: STEEL },
];

/// A face of a block: its outward normal and its corners, as signs of the
/// half size on each axis, going round the face.
fn faces() -> impl Iterator<Item = (Vec3, [Vec3; 4])> {
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)].into_iter().flat_map(|(a, b, c)| {
        [1.0, -1.0].map(|sign| {
            let normal = Vec3::AXES[a] * sign;
            let corner = |s: f32, t: f32| normal + Vec3::AXES[b] * s + Vec3::AXES[c] * t;
            (normal, [corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)])
        })
    })
}

/// A face's two triangles, as the client keeps them facing out: in the
/// files' (Direct3D) winding, `(b - a) x (c - a)` points out.
fn triangles(corners: [u16; 4], positions: &[Vec3], outward: Vec3) -> [u16; 6] {
    let facing = |[a, b, c]: [u16; 3]| {
        let [pa, pb, pc] = [a, b, c].map(|i| positions[usize::from(i)]);
        if (pb - pa).cross(pc - pa).dot(outward) >= 0.0 { [a, b, c] } else { [a, c, b] }
    };
    let [first, second] = [[corners[0], corners[1], corners[2]], [corners[0], corners[2], corners[3]]].map(facing);
    [first[0], first[1], first[2], second[0], second[1], second[2]]
}

/// The stage's mesh: static (mesh type 0), four vertices a face with its
/// normal and UVs, one submesh.
pub fn mesh() -> Mesh {
    let mut mesh = Mesh {
        version: 2000,
        mask: VertexMask(VertexMask::POSITION | VertexMask::NORMAL | VertexMask::UV0),
        ..Mesh::default()
    };
    for block in &BLOCKS {
        let [u0, u1, v0, v1] = block.area;
        for (normal, corners) in faces() {
            let first = mesh.positions.len() as u16;
            // The texture's area spans the face, corner by corner.
            for (corner, [s, t]) in corners.iter().zip([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]) {
                mesh.positions.push(block.centre + block.half * *corner);
                mesh.normals.push(normal);
                mesh.uv0.push(Vec2::new(u0 + (u1 - u0) * s, v0 + (v1 - v0) * t));
            }
            let corners = [0, 1, 2, 3].map(|k| first + k);
            mesh.indices.extend(triangles(corners, &mesh.positions, normal));
        }
    }
    mesh.vertex_count = mesh.positions.len();
    mesh.bounds = Bounds::of(&mesh.positions);
    let face_count = (mesh.indices.len() / 3) as i32;
    mesh.submeshes = vec![Submesh { min_index: 0, vertex_count: mesh.vertex_count as i32, index_start: 0, face_count }];
    mesh
}

/// The stage's collision mesh: the same blocks, eight corners each, shared
/// by the faces that meet there; the same winding as the mesh.
pub fn collision() -> Collision {
    let mut collision = Collision::default();
    for block in &BLOCKS {
        let first = collision.positions.len() as u16;
        // Corner k has the signs of its bits: x from bit 0, y 1, z 2.
        let signs = |k: u16| [1, 2, 4].map(|bit| if k & bit != 0 { 1.0 } else { -1.0 });
        collision.positions.extend((0..8).map(|k| block.centre + block.half * Vec3::from(signs(k))));
        for (normal, corners) in faces() {
            let index = |corner: Vec3| first + (0..8).find(|&k| Vec3::from(signs(k)) == corner).expect("a corner");
            collision.indices.extend(triangles(corners.map(index), &collision.positions, normal));
        }
    }
    collision
}

/// A map's or a prop's script: one `Static` pass with one texture.
pub fn material_script(texture: &str) -> String {
    format!(
        "// Made by examples/make_samples.
material Stage
{{
\ttechnique
\t{{
\t\tpass
\t\t{{
\t\t\tshader_group Static
\t\t\ttexture_unit
\t\t\t{{
\t\t\t\ttexture {texture}
\t\t\t}}
\t\t}}
\t}}
}}
"
    )
}

/// The static model's config: the mesh, the box and sphere the client culls
/// it by (from the mesh's bounds) and the collision mesh; no skeleton.
pub fn config(mesh: &Mesh) -> String {
    let Bounds { min, max, radius } = mesh.bounds;
    let line = |p: Vec3| format!("{} {} {}", p.x, p.y, p.z);
    format!(
        "; The bundled static model, made by examples/make_samples.
#MODEL_CFG
#MESH_LIST
stage
#MESH_LIST_END
#AABOX
{}
{}
#SPHERE
{}
{radius}
#COLLISION_MESH
stage.cms
#MODEL_END
",
        line(min),
        line(max),
        line((min + max) / 2.0)
    )
}
