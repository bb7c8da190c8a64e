//! The sample character: a low-poly body skinned to the Biped with smooth
//! two-bone weights at the joints, a sword (a version 2002 mesh with trail
//! control points) skinned to the right hand, their material scripts and a
//! small DXT1 texture with a full mip chain.

use bevy_io3d::format::msh::{ANIMATED_MESH, Bounds, CONTROL_POINT_VERSION};
use bevy_io3d::format::{ControlPoint, Dds, DdsFormat, FileString, Mesh, Skeleton, Submesh, VertexMask, Weights};
use glam::{Quat, Vec2, Vec3};

/// Sides of each limb's tube.
const SIDES: usize = 8;

/// The texture's four bands, top to bottom: skin, shirt, trousers, and
/// shoes (left half) beside steel (right half).
#[derive(Clone, Copy)]
enum Band {
    Skin,
    Shirt,
    Trousers,
    Shoes,
    Steel,
}

impl Band {
    /// Where the band lies in the texture: (u from, u to, v from, v to).
    fn area(self) -> [f32; 4] {
        match self {
            Band::Skin => [0.0, 1.0, 0.0, 0.25],
            Band::Shirt => [0.0, 1.0, 0.25, 0.5],
            Band::Trousers => [0.0, 1.0, 0.5, 0.75],
            Band::Shoes => [0.0, 0.5, 0.75, 1.0],
            Band::Steel => [0.5, 1.0, 0.75, 1.0],
        }
    }

    /// The colour of texel (x, y) of the 64 x 64 texture: stripes on the
    /// shirt, a seam on the trousers, a sheen on the steel.
    fn texel(x: usize, y: usize) -> [u8; 3] {
        match (y / 16, x) {
            (0, _) => [232, 190, 150],
            (1, _) if (x / 8).is_multiple_of(2) => [50, 90, 180],
            (1, _) => [230, 200, 60],
            (2, _) if x % 32 < 4 => [90, 90, 110],
            (2, _) => [45, 45, 60],
            (_, 0..32) => [110, 60, 30],
            _ => [200, 205, 215],
        }
    }
}

/// Where a segment of the body ends.
enum End {
    /// At the joint of this bone, which shares the joint's weights.
    Child(&'static str),
    /// This far along the bone's own axis, weighted to the bone alone.
    Tip(f32),
}

/// The body's segments: bone, end, radius and band. Left and right limbs
/// are listed once, with `*` for the side.
const SEGMENTS: [(&str, End, f32, Band); 13] = [
    ("Bip01 Pelvis", End::Child("Bip01 Spine"), 12.0, Band::Trousers),
    ("Bip01 Spine", End::Child("Bip01 Spine1"), 13.0, Band::Shirt),
    ("Bip01 Spine1", End::Child("Bip01 Neck"), 14.0, Band::Shirt),
    ("Bip01 Neck", End::Child("Bip01 Head"), 5.0, Band::Skin),
    ("Bip01 Head", End::Tip(20.0), 9.0, Band::Skin),
    ("Bip01 * Thigh", End::Child("Bip01 * Calf"), 7.0, Band::Trousers),
    ("Bip01 * Calf", End::Child("Bip01 * Foot"), 5.5, Band::Trousers),
    ("Bip01 * Foot", End::Child("Bip01 * Toe0"), 4.5, Band::Shoes),
    ("Bip01 * Toe0", End::Tip(6.0), 4.0, Band::Shoes),
    ("Bip01 * UpperArm", End::Child("Bip01 * Forearm"), 4.5, Band::Shirt),
    ("Bip01 * Forearm", End::Child("Bip01 * Hand"), 4.0, Band::Skin),
    ("Bip01 * Hand", End::Tip(9.0), 3.5, Band::Skin),
    ("Bip01 * Clavicle", End::Child("Bip01 * UpperArm"), 4.0, Band::Shirt),
];

/// Model-space bind poses of the skeleton's bones, from their stored
/// inverse binds (exact, where the client's chain of products is not).
fn bind_poses(skeleton: &Skeleton) -> Vec<(Vec3, Quat)> {
    skeleton
        .bones
        .iter()
        .map(|bone| {
            let rotation = bone.inverse_bind_rotation.inverse();
            (-(rotation * bone.inverse_bind_position), rotation)
        })
        .collect()
}

/// A ring of a tube: centre, radius and the weights of its vertices.
type Ring = (Vec3, f32, Vec<(String, f32)>);

/// A mesh being built: vertices with up to two weights each.
#[derive(Default)]
struct Builder {
    names: Vec<String>,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    weights: Vec<[f32; 4]>,
    bones: Vec<[f32; 4]>,
    indices: Vec<u16>,
}

impl Builder {
    /// The palette index of a bone, added on first use.
    fn palette(&mut self, name: &str) -> f32 {
        let index = self.names.iter().position(|n| n == name).unwrap_or_else(|| {
            self.names.push(name.to_owned());
            self.names.len() - 1
        });
        index as f32
    }

    fn vertex(&mut self, position: Vec3, normal: Vec3, uv: Vec2, influences: &[(String, f32)]) -> u16 {
        let (mut weights, mut bones) = ([0.0; 4], [0.0; 4]);
        for (k, (bone, weight)) in influences.iter().enumerate() {
            (weights[k], bones[k]) = (*weight, self.palette(bone));
        }
        self.positions.push(position);
        self.normals.push(normal);
        self.uvs.push(uv);
        self.weights.push(weights);
        self.bones.push(bones);
        (self.positions.len() - 1) as u16
    }

    /// A triangle facing out, as the client's default culling keeps it:
    /// clockwise seen from outside in Direct3D's left-handed axes, which is
    /// `(b - a) x (c - a)` pointing out.
    fn triangle(&mut self, [a, b, c]: [u16; 3], outward: Vec3) {
        let [pa, pb, pc] = [a, b, c].map(|i| self.positions[usize::from(i)]);
        let facing = (pb - pa).cross(pc - pa).dot(outward) >= 0.0;
        self.indices.extend(if facing { [a, b, c] } else { [a, c, b] });
    }

    /// A tube of rings (centre, radius, weights), capped at the end when
    /// `cap`, textured in `band`.
    fn tube(&mut self, rings: &[Ring], band: Band, cap: bool) {
        let axis = (rings[rings.len() - 1].0 - rings[0].0).normalize();
        let side = axis.any_orthonormal_vector();
        let [u0, u1, v0, v1] = band.area();
        let first = self.positions.len() as u16;
        for (r, (centre, radius, influences)) in rings.iter().enumerate() {
            let v = v0 + (v1 - v0) * (0.1 + 0.8 * r as f32 / (rings.len() - 1) as f32);
            for k in 0..=SIDES {
                let out = Quat::from_axis_angle(axis, k as f32 / SIDES as f32 * std::f32::consts::TAU) * side;
                let u = u0 + (u1 - u0) * k as f32 / SIDES as f32;
                self.vertex(*centre + out * *radius, out, Vec2::new(u, v), influences);
            }
        }
        let ring = |r: usize, k: usize| first + (r * (SIDES + 1) + k) as u16;
        for r in 0..rings.len() - 1 {
            for k in 0..SIDES {
                let out = self.normals[usize::from(ring(r, k))];
                self.triangle([ring(r, k), ring(r + 1, k), ring(r + 1, k + 1)], out);
                self.triangle([ring(r, k), ring(r + 1, k + 1), ring(r, k + 1)], out);
            }
        }
        if cap {
            let (centre, _, influences) = &rings[rings.len() - 1];
            let uv = Vec2::new((u0 + u1) / 2.0, v1 - 0.01);
            let tip = self.vertex(*centre, axis, uv, influences);
            let last = rings.len() - 1;
            for k in 0..SIDES {
                self.triangle([ring(last, k), ring(last, k + 1), tip], axis);
            }
        }
    }

    /// A box of half extents `size` along `axes` about `centre`, weighted
    /// to one bone, with flat faces.
    fn cuboid(&mut self, centre: Vec3, axes: [Vec3; 3], size: Vec3, bone: &str, band: Band) {
        let [u0, u1, v0, v1] = band.area();
        for (a, b, c) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
            for sign in [1.0, -1.0] {
                let normal = axes[a] * sign;
                let face = centre + normal * size[a];
                let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(s, t)| {
                    let at = face + axes[b] * size[b] * s + axes[c] * size[c] * t;
                    let uv = Vec2::new(u0 + (u1 - u0) * (s + 1.0) / 2.0, v0 + (v1 - v0) * (t + 1.0) / 2.0);
                    self.vertex(at, normal, uv, &[(bone.to_owned(), 1.0)])
                });
                self.triangle([corners[0], corners[1], corners[2]], normal);
                self.triangle([corners[0], corners[2], corners[3]], normal);
            }
        }
    }

    fn finish(self, version: i32, control_points: Vec<ControlPoint>) -> Mesh {
        let faces = self.indices.len() / 3;
        Mesh {
            version,
            mesh_type: ANIMATED_MESH,
            mask: VertexMask(
                VertexMask::POSITION | VertexMask::WEIGHTS | VertexMask::INDICES | VertexMask::NORMAL | VertexMask::UV0,
            ),
            bounds: Bounds::of(&self.positions),
            submeshes: vec![Submesh {
                min_index: 0,
                vertex_count: self.positions.len() as i32,
                index_start: 0,
                face_count: faces as i32,
            }],
            vertex_count: self.positions.len(),
            positions: self.positions,
            normals: self.normals,
            uv0: self.uvs,
            weights: Some(Weights {
                names: self.names.iter().map(|n| FileString::from(n.as_str())).collect(),
                weights: self.weights,
                bones: self.bones,
            }),
            indices: self.indices,
            control_points,
            ..Mesh::default()
        }
    }
}

/// The body: a tube along each bone of [`SEGMENTS`], three rings a tube.
/// The rings at a joint are weighted half to each bone that meets there,
/// the middle ring to the segment's own bone.
pub fn body(skeleton: &Skeleton) -> Mesh {
    let poses = bind_poses(skeleton);
    let index =
        |name: &str| skeleton.bones.iter().position(|b| b.name.c_str() == name.as_bytes()).expect("a Biped bone");
    let parent = |name: &str| {
        let parent = skeleton.bones[index(name)].parent.c_str().to_vec();
        let name = String::from_utf8(parent).expect("ASCII names");
        SEGMENTS
            .iter()
            .any(|(bone, ..)| bone.replace('*', "L") == name || bone.replace('*', "R") == name)
            .then_some(name)
    };
    let mut builder = Builder::default();
    for (bone, end, radius, band) in &SEGMENTS {
        let sides: &[&str] = if bone.contains('*') { &["L", "R"] } else { &[""] };
        for side in sides {
            let name = bone.replace('*', side);
            let (start, rotation) = poses[index(&name)];
            let own = (name.clone(), 1.0);
            let shared = |other: String| vec![(name.clone(), 0.5), (other, 0.5)];
            let start_weights = parent(&name).map_or_else(|| vec![own.clone()], shared);
            let (finish, finish_weights) = match end {
                End::Child(child) => {
                    let child = child.replace('*', side);
                    (poses[index(&child)].0, shared(child))
                }
                End::Tip(length) => (start + rotation * Vec3::X * *length, vec![own.clone()]),
            };
            let middle = vec![own];
            let rings = [
                (start, *radius, start_weights),
                ((start + finish) / 2.0, *radius, middle),
                (finish, *radius * 0.9, finish_weights),
            ];
            builder.tube(&rings, *band, matches!(end, End::Tip(_)));
        }
    }
    builder.finish(2001, Vec::new())
}

/// A sword in the right hand, pointing forward (+Z), weighted to
/// `Bip01 R Hand`, with a `trailstart_1`/`trailend_1` pair from the guard
/// to the tip, as the game's weapon meshes carry them.
pub fn sword(skeleton: &Skeleton) -> Mesh {
    let hand = "Bip01 R Hand";
    let (at, rotation) =
        bind_poses(skeleton)[skeleton.bones.iter().position(|b| b.name.c_str() == hand.as_bytes()).expect("a hand")];
    let grip = at + rotation * Vec3::X * 5.0;
    let axes = [Vec3::X, Vec3::Y, Vec3::Z];
    let mut builder = Builder::default();
    builder.cuboid(grip, axes, Vec3::new(1.2, 1.2, 5.0), hand, Band::Shoes);
    builder.cuboid(grip + Vec3::Z * 5.5, axes, Vec3::new(6.0, 1.2, 0.8), hand, Band::Steel);
    builder.cuboid(grip + Vec3::Z * 41.0, axes, Vec3::new(2.2, 0.4, 35.0), hand, Band::Steel);
    let point = |kind: &str, point: Vec3| ControlPoint {
        kind: kind.into(),
        bone: hand.into(),
        extra: FileString::default(),
        point,
    };
    // Stored ordered by type, as the client sorts them.
    let points = vec![point("trailend_1", grip + Vec3::Z * 76.0), point("trailstart_1", grip + Vec3::Z * 7.0)];
    builder.finish(CONTROL_POINT_VERSION, points)
}

/// The 64 x 64 texture of [`Band`], as DXT1 with every mip level; each
/// 4 x 4 block holds one colour (the band pattern is drawn in whole
/// blocks), so the encoding is exact at the top level.
pub fn texture() -> Dds {
    let mut size = 64;
    let mut texels: Vec<[u8; 3]> = (0..size * size).map(|i| Band::texel(i % size, i / size)).collect();
    let mut levels = Vec::new();
    loop {
        levels.push(encode_dxt1(&texels, size));
        if size == 1 {
            break;
        }
        let half = size / 2;
        texels = (0..half * half)
            .map(|i| {
                let (x, y) = (i % half * 2, i / half * 2);
                let quad = [
                    texels[y * size + x],
                    texels[y * size + x + 1],
                    texels[(y + 1) * size + x],
                    texels[(y + 1) * size + x + 1],
                ];
                average(&quad)
            })
            .collect();
        size = half;
    }
    Dds { width: 64, height: 64, format: DdsFormat::Dxt1, levels }
}

fn average(texels: &[[u8; 3]]) -> [u8; 3] {
    let sum = |c: usize| texels.iter().map(|t| u32::from(t[c])).sum::<u32>();
    let n = texels.len() as u32;
    [0, 1, 2].map(|c| ((sum(c) + n / 2) / n) as u8)
}

/// DXT1 blocks of one colour each: the average of the block's texels.
fn encode_dxt1(texels: &[[u8; 3]], size: usize) -> Vec<u8> {
    let blocks = size.div_ceil(4);
    let mut bytes = Vec::new();
    for by in 0..blocks {
        for bx in 0..blocks {
            let block: Vec<[u8; 3]> = (0..16)
                .map(|i| (bx * 4 + i % 4, by * 4 + i / 4))
                .filter(|&(x, y)| x < size && y < size)
                .map(|(x, y)| texels[y * size + x])
                .collect();
            let [r, g, b] = average(&block).map(u16::from);
            let colour = ((r * 31 + 127) / 255) << 11 | ((g * 63 + 127) / 255) << 5 | ((b * 31 + 127) / 255);
            let [lo, hi] = colour.to_le_bytes();
            bytes.extend_from_slice(&[lo, hi, lo, hi, 0, 0, 0, 0]);
        }
    }
    bytes
}

/// A toon-shaded character's script, as the game's characters are drawn:
/// the light ramp, the texture on UV set 0 and an outline pass.
pub fn material_script(texture: &str) -> String {
    format!(
        "// Made by examples/make_samples.
material Body
{{
\ttechnique
\t{{
\t\tpass
\t\t{{
\t\t\tshader_group AnimateToonShade
\t\t\ttexture_unit
\t\t\t{{
\t\t\t\tuse_light_texture true
\t\t\t}}
\t\t\ttexture_unit
\t\t\t{{
\t\t\t\ttexture {texture}
\t\t\t\ttex_coord_set 0
\t\t\t}}
\t\t}}
\t\tpass
\t\t{{
\t\t\tshader_group AnimateOutLine
\t\t\tcull clockwise
\t\t\tcustom_param OutLineColor colorvalue 0 0 0 1
\t\t\tcustom_param OutLineThickness float 0.6
\t\t}}
\t}}
}}
"
    )
}
