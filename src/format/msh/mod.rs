//! `.msh`: a mesh (static, skinned, billboard, ...): vertex arrays chosen
//! by a component mask, submeshes, triangles and, in version 2002, control
//! points.
//!
//! Reading keeps everything needed to write the same bytes back: the mask
//! as stored (bits that carry no data included), the stored bounding box,
//! bone names whose length field is zero or negative (the client skips
//! them, so they shift the indices after them), bone indices as the floats
//! stored, and any bytes after the data.

use glam::{Vec2, Vec3};

use super::bytes::{ReadError, Reader, Writer, f32s_at, i32s_at, vec3_at};
use super::error::{BinaryKind, FormatError};
use super::place::Place;
use super::string::FileString;
use super::write::{WriteError, WriteProblem};

mod io;
#[cfg(test)]
mod tests;

/// The four bytes every `.msh` starts with (the only thing the client
/// checks).
pub const MSH_MAGIC: [u8; 4] = *b"MSH\0";

/// The version that adds control points. The client reads every other
/// version as 2000 (2001 only says the mesh has vertex colours, which the
/// mask says too).
pub const CONTROL_POINT_VERSION: i32 = 2002;

/// The versions the game's tools write.
pub const MSH_VERSIONS: [i32; 3] = [2000, 2001, CONTROL_POINT_VERSION];

/// The most vertices a mesh (or a `.cms`) addresses: its indices are 16
/// bits.
pub const MAX_VERTICES: usize = 1 << 16;

/// The most bone names a skinned mesh's palette holds: the client packs
/// bone indices in bytes.
pub const MAX_PALETTE: usize = 256;

/// The mesh type the client skins; every other type draws as stored.
pub const ANIMATED_MESH: i32 = 1;

/// Which vertex components a mesh has: the stored `u32`, bits as the
/// client names them. Only some bits carry data in the file
/// ([`VertexArray`]); the rest only shape the client's vertex streams.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct VertexMask(pub u32);

impl VertexMask {
    /// Positions (`vec3`).
    pub const POSITION: u32 = 1;
    /// Billboard centres (`vec3`, after the weights).
    pub const POSITION2: u32 = 2;
    /// A fourth position component: no file data.
    pub const POSITION_W: u32 = 4;
    /// Bone names, weights and bone indices.
    pub const WEIGHTS: u32 = 8;
    /// The client builds its bone-index stream from the weights block.
    pub const INDICES: u32 = 16;
    /// Normals (`vec3`).
    pub const NORMAL: u32 = 32;
    /// Vertex colours (`u32` D3DCOLOR).
    pub const COLOUR0: u32 = 64;
    /// A second colour: no file data.
    pub const COLOUR1: u32 = 128;
    /// First texture coordinates (`f32[2]`).
    pub const UV0: u32 = 256;
    /// Second texture coordinates (`f32[2]`).
    pub const UV1: u32 = 512;
    /// Third texture coordinates: no file data.
    pub const UV2: u32 = 1024;
    /// Fourth texture coordinates: no file data.
    pub const UV3: u32 = 2048;
    /// Tangents (`vec3`).
    pub const TANGENT: u32 = 4096;
    /// Binormals (`vec3`).
    pub const BINORMAL: u32 = 8192;
    /// Bits with which the client fails to create a skinned mesh's vertex
    /// streams, so the mesh does not load.
    pub const FAILS_SKINNED: u32 = Self::POSITION_W | Self::COLOUR1 | Self::UV2 | Self::UV3;

    /// Whether every bit of `bits` is set.
    pub fn has(self, bits: u32) -> bool {
        self.0 & bits == bits
    }
}

/// The stored bounding volume: box and sphere radius, at bind pose. The
/// client never recomputes it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bounds {
    /// Box minimum.
    pub min: Vec3,
    /// Box maximum.
    pub max: Vec3,
    /// Bounding sphere radius.
    pub radius: f32,
}

impl Bounds {
    /// The bounds the game's tools store and the client culls with: the
    /// box around `positions`, and the distance from its centre to the
    /// farthest of them. Nothing at all for no positions.
    pub fn of(positions: &[Vec3]) -> Self {
        if positions.is_empty() {
            return Self::default();
        }
        let min = positions.iter().copied().fold(Vec3::MAX, Vec3::min);
        let max = positions.iter().copied().fold(Vec3::MIN, Vec3::max);
        let centre = (min + max) / 2.0;
        let radius = positions.iter().map(|p| p.distance(centre)).fold(0.0, f32::max);
        Self { min, max, radius }
    }
}

/// A part of the mesh drawn with one material (the i-th `material` block
/// of the mesh's script), as the four stored `i32`s.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Submesh {
    /// The lowest vertex its indices may use.
    pub min_index: i32,
    /// How many vertices from `min_index` on it may use.
    pub vertex_count: i32,
    /// Its first index, counted in indices (not faces).
    pub index_start: i32,
    /// How many triangles it draws.
    pub face_count: i32,
}

/// The weights block (mask bit 8): bone names and, per vertex, four
/// weights and four bone indices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weights {
    /// Names as stored. Those with a length field of zero or less are not
    /// in the client's list: see [`Weights::palette`].
    pub names: Vec<FileString>,
    /// Four weights a vertex; the client uses the leading positive ones.
    pub weights: Vec<[f32; 4]>,
    /// Four bone indices a vertex, stored as floats and cast to integers
    /// by the client, into [`Weights::palette`].
    pub bones: Vec<[f32; 4]>,
}

impl Weights {
    /// The client's bone-name list: the stored names less those whose
    /// length field is zero or negative, which read no bytes and add
    /// nothing. Bone indices count in this list.
    pub fn palette(&self) -> Vec<&FileString> {
        self.names.iter().filter(|n| n.length_field() > 0).collect()
    }

    /// The influences the client uses for a vertex: (bone index as cast,
    /// weight) for the leading weights above 0, stopping at the first that
    /// is not (NaN included). A vertex with four positive weights gives
    /// four; the client's software skinner then reads on into the next
    /// vertex (the lint reports it).
    /// A vertex past either array has none.
    pub fn influences(&self, vertex: usize) -> impl Iterator<Item = (i64, f32)> + '_ {
        let pair = self.weights.get(vertex).zip(self.bones.get(vertex));
        pair.into_iter()
            .flat_map(|(weights, bones)| (0..4).map(move |k| (bone_index(bones[k]), weights[k])))
            .take_while(|(_, w)| *w > 0.0)
    }
}

/// A stored bone index as the client's float-to-integer cast makes it:
/// truncated toward zero. NaN and values beyond `i32` give `i32::MIN`, as
/// the x86 conversion does, which no list holds.
pub fn bone_index(stored: f32) -> i64 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&stored) { stored.trunc() as i64 } else { i64::from(i32::MIN) }
}

/// A named point on a version 2002 mesh, moving with its bone like a vertex
/// of weight 1: weapon trails use `trailstart_N`/`trailend_N` pairs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ControlPoint {
    /// The type, `name_index` (such as `trailstart_1`).
    pub kind: FileString,
    /// The bone it moves with.
    pub bone: FileString,
    /// Extra text for the game.
    pub extra: FileString,
    /// Where it is at bind pose, in model space.
    pub point: Vec3,
}

/// A whole `.msh` file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    /// The stored version (not validated by the client; see
    /// [`CONTROL_POINT_VERSION`]).
    pub version: i32,
    /// 0 static, 1 animated (skinned), 2 lightmap, 3 billboard, 4 normal
    /// billboard, 5 animated effect, 6 static vertex colour.
    pub mesh_type: i32,
    /// Which vertex arrays are stored, and more.
    pub mask: VertexMask,
    /// The stored bounds.
    pub bounds: Bounds,
    /// Submesh records in file order.
    pub submeshes: Vec<Submesh>,
    /// Vertices in every stored array.
    pub vertex_count: usize,
    /// Positions, in model space at bind pose (bit 1).
    pub positions: Vec<Vec3>,
    /// Normals (bit 32).
    pub normals: Vec<Vec3>,
    /// Tangents (bit 4096).
    pub tangents: Vec<Vec3>,
    /// Binormals (bit 8192).
    pub binormals: Vec<Vec3>,
    /// Vertex colours, D3DCOLOR (bit 64).
    pub colours: Vec<u32>,
    /// First texture coordinates, (0, 0) at the top left (bit 256).
    pub uv0: Vec<Vec2>,
    /// Second texture coordinates (bit 512).
    pub uv1: Vec<Vec2>,
    /// Bone names, weights and indices (bit 8).
    pub weights: Option<Weights>,
    /// Billboard centres (bit 2).
    pub billboard_centres: Vec<Vec3>,
    /// Triangles, three indices each, absolute into the vertex arrays.
    pub indices: Vec<u16>,
    /// Control points (version 2002 only).
    pub control_points: Vec<ControlPoint>,
    /// Bytes after the data: the client ignores them; we keep them.
    pub trailing: Vec<u8>,
}

/// The vertex arrays a file can store, in the order it stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VertexArray {
    /// Bit 1.
    Position,
    /// Bit 32.
    Normal,
    /// Bit 4096.
    Tangent,
    /// Bit 8192.
    Binormal,
    /// Bit 64.
    Colour,
    /// Bit 256.
    Uv0,
    /// Bit 512.
    Uv1,
    /// Bit 8: weights and bone indices (after the bone names).
    Weights,
    /// Bit 2.
    BillboardCentre,
}

impl VertexArray {
    /// Every array, in file order.
    pub const ALL: [Self; 9] = [
        Self::Position,
        Self::Normal,
        Self::Tangent,
        Self::Binormal,
        Self::Colour,
        Self::Uv0,
        Self::Uv1,
        Self::Weights,
        Self::BillboardCentre,
    ];

    /// The mask bit that stores it.
    pub fn bit(self) -> u32 {
        match self {
            Self::Position => VertexMask::POSITION,
            Self::Normal => VertexMask::NORMAL,
            Self::Tangent => VertexMask::TANGENT,
            Self::Binormal => VertexMask::BINORMAL,
            Self::Colour => VertexMask::COLOUR0,
            Self::Uv0 => VertexMask::UV0,
            Self::Uv1 => VertexMask::UV1,
            Self::Weights => VertexMask::WEIGHTS,
            Self::BillboardCentre => VertexMask::POSITION2,
        }
    }

    /// Bytes a vertex takes in it.
    pub fn size(self) -> usize {
        match self {
            Self::Position | Self::Normal | Self::Tangent | Self::Binormal | Self::BillboardCentre => 12,
            Self::Colour => 4,
            Self::Uv0 | Self::Uv1 => 8,
            Self::Weights => 32,
        }
    }

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Position => "position",
            Self::Normal => "normal",
            Self::Tangent => "tangent",
            Self::Binormal => "binormal",
            Self::Colour => "colour",
            Self::Uv0 => "uv0",
            Self::Uv1 => "uv1",
            Self::Weights => "weights",
            Self::BillboardCentre => "billboard centre",
        }
    }
}

/// Why bytes are not a .msh the client would load: the readers' one error
/// shape, [`FormatError`].
pub type MshError = FormatError;

/// Byte offsets of the parts of a `.msh`, for findings that point into the
/// file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MshLayout {
    /// Offset of the mask.
    pub mask: usize,
    /// Offset of the bounds.
    pub bounds: usize,
    /// Offset of each submesh record.
    pub submeshes: Vec<usize>,
    /// Offset of each stored array's first vertex.
    pub arrays: Vec<(VertexArray, usize)>,
    /// Offset of each stored bone name.
    pub bone_names: Vec<usize>,
    /// Offset of the face count.
    pub faces: usize,
    /// Offset of each control point.
    pub control_points: Vec<usize>,
    /// Offset of the bytes after the data.
    pub trailer: usize,
}

impl MshLayout {
    /// Offset of vertex `vertex` in `array`, or of the face count when the
    /// array is not stored.
    pub fn vertex(&self, array: VertexArray, vertex: usize) -> usize {
        self.arrays.iter().find(|(a, _)| *a == array).map_or(self.faces, |(_, at)| at + vertex * array.size())
    }

    /// Offset of face `face`.
    pub fn face(&self, face: usize) -> usize {
        self.index(face * 3)
    }

    /// Offset of entry `index` of the index list.
    pub fn index(&self, index: usize) -> usize {
        self.faces + 4 + index * 2
    }
}

/// The error for a count that does not read, placed in its part of the
/// mesh.
fn section(name: &'static str) -> impl Fn(ReadError) -> MshError {
    move |cause| MshError::Malformed { place: Place::Section(name), cause }
}

/// Bytes of a submesh record.
const SUBMESH_SIZE: usize = 16;

/// Where submesh record `index` starts: after the magic, version, type,
/// mask, bounds and submesh count, which have fixed sizes.
pub fn submesh_offset(index: usize) -> usize {
    48 + index * SUBMESH_SIZE
}

/// The smallest a control point can be: three empty strings and a point.
const MIN_CONTROL_POINT_SIZE: usize = 3 * 4 + 12;
