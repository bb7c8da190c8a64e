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
use thiserror::Error;

use super::bytes::{ReadError, Reader, Writer, f32s_at, i32s_at, vec3_at};
use super::place::Place;
use super::string::FileString;
use super::write::{WriteError, WriteProblem};

/// The four bytes every `.msh` starts with (the only thing the client
/// checks).
pub const MSH_MAGIC: [u8; 4] = *b"MSH\0";

/// The version that adds control points. The client reads every other
/// version as 2000 (2001 only says the mesh has vertex colours, which the
/// mask says too).
pub const CONTROL_POINT_VERSION: i32 = 2002;

/// The versions the game's tools write.
pub const MSH_VERSIONS: [i32; 3] = [2000, 2001, CONTROL_POINT_VERSION];

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

/// Why bytes are not a `.msh` the client would load.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MshError {
    /// The file does not start with `MSH\0`.
    #[error("not a .msh file: it starts with {found:02x?}, not \"MSH\\0\"")]
    BadMagic {
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// The bytes end early or hold an impossible count or string.
    #[error("{place}: {cause}")]
    Malformed {
        /// Where it happened.
        place: Place,
        /// What went wrong.
        cause: ReadError,
    },
}

impl MshError {
    /// The byte offset the error is about.
    pub fn offset(&self) -> usize {
        match self {
            Self::BadMagic { .. } => 0,
            Self::Malformed { cause, .. } => cause.offset(),
        }
    }
}

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

impl Mesh {
    /// Reads a `.msh` as the client does, refusing strings that would
    /// overflow its buffer.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, MshError> {
        Self::read(bytes, false).map(|(mesh, _)| mesh)
    }

    /// Reads a `.msh` and reports where each part lies; `allow_long_strings`
    /// accepts strings the client's buffer cannot hold (for the lint).
    pub fn read(bytes: &[u8], allow_long_strings: bool) -> Result<(Self, MshLayout), MshError> {
        let mut r = Reader::new(bytes);
        r.allow_long_strings = allow_long_strings;
        let header = |cause| MshError::Malformed { place: Place::Header, cause };
        let magic = r.take(4, "magic").map_err(header)?;
        if magic != MSH_MAGIC {
            return Err(MshError::BadMagic { found: magic.to_vec() });
        }
        let mut layout = MshLayout::default();
        let mut mesh = Mesh {
            version: r.i32("version").map_err(header)?,
            mesh_type: r.i32("mesh type").map_err(header)?,
            ..Mesh::default()
        };
        layout.mask = r.pos();
        mesh.mask = VertexMask(r.u32("vertex mask").map_err(header)?);
        layout.bounds = r.pos();
        let min = r.vec3("box minimum").map_err(header)?;
        let max = r.vec3("box maximum").map_err(header)?;
        mesh.bounds = Bounds { min, max, radius: r.f32("radius").map_err(header)? };
        let submeshes = r.count("submesh count").map_err(header)?;
        mesh.submeshes = r
            .items(submeshes, SUBMESH_SIZE, "submesh", |b| {
                let [min_index, vertex_count, index_start, face_count] = i32s_at(b);
                Submesh { min_index, vertex_count, index_start, face_count }
            })
            .map_err(|(i, cause)| MshError::Malformed { place: Place::Submesh(i), cause })?;
        layout.submeshes = (0..mesh.submeshes.len()).map(submesh_offset).collect();
        mesh.vertex_count = r.count("vertex count").map_err(section("vertices"))?;
        mesh.read_arrays(&mut r, &mut layout)?;
        layout.faces = r.pos();
        let faces = r.count("face count").map_err(section("faces"))?;
        mesh.indices = r
            .items(faces.saturating_mul(3), 2, "vertex index", |b| u16::from_le_bytes([b[0], b[1]]))
            .map_err(|(i, cause)| MshError::Malformed { place: Place::Face(i / 3), cause })?;
        if mesh.version == CONTROL_POINT_VERSION {
            mesh.read_control_points(&mut r, &mut layout)?;
        }
        layout.trailer = r.pos();
        mesh.trailing = r.rest().to_vec();
        Ok((mesh, layout))
    }

    fn read_arrays(&mut self, r: &mut Reader, layout: &mut MshLayout) -> Result<(), MshError> {
        let n = self.vertex_count;
        for array in VertexArray::ALL {
            if !self.mask.has(array.bit()) {
                continue;
            }
            if array != VertexArray::Weights {
                layout.arrays.push((array, r.pos()));
            }
            let at =
                |(vertex, cause)| MshError::Malformed { place: Place::Vertex { array: array.name(), vertex }, cause };
            let (what, size) = (array.name(), array.size());
            let mut vec3s = || r.items(n, size, what, vec3_at).map_err(at);
            match array {
                VertexArray::Position => self.positions = vec3s()?,
                VertexArray::Normal => self.normals = vec3s()?,
                VertexArray::Tangent => self.tangents = vec3s()?,
                VertexArray::Binormal => self.binormals = vec3s()?,
                VertexArray::BillboardCentre => self.billboard_centres = vec3s()?,
                VertexArray::Colour => {
                    self.colours =
                        r.items(n, size, what, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).map_err(at)?
                }
                VertexArray::Uv0 => self.uv0 = r.items(n, size, what, |b| Vec2::from_array(f32s_at(b))).map_err(at)?,
                VertexArray::Uv1 => self.uv1 = r.items(n, size, what, |b| Vec2::from_array(f32s_at(b))).map_err(at)?,
                VertexArray::Weights => self.read_weights(r, layout)?,
            }
        }
        Ok(())
    }

    fn read_weights(&mut self, r: &mut Reader, layout: &mut MshLayout) -> Result<(), MshError> {
        let count = r.count("bone name count").map_err(section("weights"))?;
        let mut names = Vec::with_capacity(r.capacity(count, 4));
        for i in 0..count {
            layout.bone_names.push(r.pos());
            names
                .push(r.string("bone name").map_err(|cause| MshError::Malformed { place: Place::MeshBone(i), cause })?);
        }
        layout.arrays.push((VertexArray::Weights, r.pos()));
        let at = |(vertex, cause)| MshError::Malformed { place: Place::Vertex { array: "weights", vertex }, cause };
        let block = r.item_bytes(self.vertex_count, 32, "weights").map_err(at)?;
        let weights = block.chunks_exact(32).map(f32s_at::<4>).collect();
        let bones = block.chunks_exact(32).map(|b| f32s_at::<4>(&b[16..])).collect();
        self.weights = Some(Weights { names, weights, bones });
        Ok(())
    }

    fn read_control_points(&mut self, r: &mut Reader, layout: &mut MshLayout) -> Result<(), MshError> {
        let count = r.count("control point count").map_err(section("control points"))?;
        self.control_points = Vec::with_capacity(r.capacity(count, MIN_CONTROL_POINT_SIZE));
        for i in 0..count {
            layout.control_points.push(r.pos());
            let mut point = || -> Result<ControlPoint, ReadError> {
                Ok(ControlPoint {
                    kind: r.string("control point type")?,
                    bone: r.string("linked bone name")?,
                    extra: r.string("extra info")?,
                    point: r.vec3("point")?,
                })
            };
            let point = point().map_err(|cause| MshError::Malformed { place: Place::ControlPoint(i), cause })?;
            self.control_points.push(point);
        }
        Ok(())
    }

    /// Writes the file; a value read from bytes writes the same bytes.
    /// Every array whose mask bit is set must hold one entry a vertex, and
    /// the others must be empty.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        self.check_arrays()?;
        let header = |p: WriteProblem| p.at(Place::Header);
        // Sized from the arrays held, never from the stored count alone.
        let arrays: usize = VertexArray::ALL.iter().map(|&a| self.array_len(a) * a.size()).sum();
        let mut w = Writer::with_capacity(64 + arrays + self.indices.len() * 2);
        w.bytes(&MSH_MAGIC);
        w.i32(self.version);
        w.i32(self.mesh_type);
        w.u32(self.mask.0);
        w.vec3(self.bounds.min);
        w.vec3(self.bounds.max);
        w.f32(self.bounds.radius);
        w.count(self.submeshes.len(), "submeshes").map_err(header)?;
        for s in &self.submeshes {
            for v in [s.min_index, s.vertex_count, s.index_start, s.face_count] {
                w.i32(v);
            }
        }
        w.count(self.vertex_count, "vertices").map_err(|p| p.at(Place::Section("vertices")))?;
        self.write_arrays(&mut w)?;
        w.count(self.indices.len() / 3, "faces").map_err(|p| p.at(Place::Section("faces")))?;
        for &i in &self.indices {
            w.u16(i);
        }
        if self.version == CONTROL_POINT_VERSION {
            w.count(self.control_points.len(), "control points").map_err(|p| p.at(Place::Section("control points")))?;
            for (i, cp) in self.control_points.iter().enumerate() {
                let place = |p: WriteProblem| p.at(Place::ControlPoint(i));
                w.string(&cp.kind, "control point type").map_err(place)?;
                w.string(&cp.bone, "linked bone name").map_err(place)?;
                w.string(&cp.extra, "extra info").map_err(place)?;
                w.vec3(cp.point);
            }
        }
        w.bytes(&self.trailing);
        Ok(w.into_bytes())
    }

    fn write_arrays(&self, w: &mut Writer) -> Result<(), WriteError> {
        for array in VertexArray::ALL.into_iter().filter(|a| self.mask.has(a.bit())) {
            match array {
                VertexArray::Weights => self.write_weights(w)?,
                VertexArray::Colour => self.colours.iter().for_each(|&c| w.u32(c)),
                VertexArray::Uv0 => self.uv0.iter().for_each(|uv| w.f32s(&uv.to_array())),
                VertexArray::Uv1 => self.uv1.iter().for_each(|uv| w.f32s(&uv.to_array())),
                _ => self.vec3s(array).iter().for_each(|&v| w.vec3(v)),
            }
        }
        Ok(())
    }

    fn write_weights(&self, w: &mut Writer) -> Result<(), WriteError> {
        let Some(weights) = &self.weights else { return Ok(()) };
        w.count(weights.names.len(), "bone names").map_err(|p| p.at(Place::Section("weights")))?;
        for (i, name) in weights.names.iter().enumerate() {
            w.string(name, "bone name").map_err(|p| p.at(Place::MeshBone(i)))?;
        }
        for (ws, bs) in weights.weights.iter().zip(&weights.bones) {
            w.f32s(ws);
            w.f32s(bs);
        }
        Ok(())
    }

    /// The `vec3` array stored for `array`.
    pub fn vec3s(&self, array: VertexArray) -> &[Vec3] {
        match array {
            VertexArray::Position => &self.positions,
            VertexArray::Normal => &self.normals,
            VertexArray::Tangent => &self.tangents,
            VertexArray::Binormal => &self.binormals,
            VertexArray::BillboardCentre => &self.billboard_centres,
            _ => &[],
        }
    }

    /// How many entries the value holds for `array`.
    fn array_len(&self, array: VertexArray) -> usize {
        match array {
            VertexArray::Colour => self.colours.len(),
            VertexArray::Uv0 => self.uv0.len(),
            VertexArray::Uv1 => self.uv1.len(),
            VertexArray::Weights => self.weights.as_ref().map_or(0, |w| w.weights.len()),
            _ => self.vec3s(array).len(),
        }
    }

    /// Refuses arrays that do not match the mask and vertex count, a
    /// partial triangle, and control points a version does not store.
    fn check_arrays(&self) -> Result<(), WriteError> {
        let header = |p: WriteProblem| p.at(Place::Header);
        if self.weights.is_some() != self.mask.has(VertexMask::WEIGHTS) {
            let present = self.weights.is_some();
            return Err(header(WriteProblem::MaskBit { what: "the weights block", bit: VertexMask::WEIGHTS, present }));
        }
        for array in VertexArray::ALL {
            let expected = if self.mask.has(array.bit()) { self.vertex_count } else { 0 };
            let len = self.array_len(array);
            if len != expected {
                return Err(header(WriteProblem::ArrayLength { what: array.name(), len, expected }));
            }
        }
        if let Some(w) = self.weights.as_ref().filter(|w| w.bones.len() != w.weights.len()) {
            let (len, expected) = (w.bones.len(), w.weights.len());
            return Err(header(WriteProblem::ArrayLength { what: "bone indices", len, expected }));
        }
        if !self.indices.len().is_multiple_of(3) {
            return Err(WriteProblem::PartialFace(self.indices.len()).at(Place::Face(self.indices.len() / 3)));
        }
        if !self.control_points.is_empty() && self.version != CONTROL_POINT_VERSION {
            let problem =
                WriteProblem::ControlPointsNeed2002 { count: self.control_points.len(), version: self.version };
            return Err(problem.at(Place::ControlPoint(0)));
        }
        Ok(())
    }

    /// Whether the client skins this mesh (mesh type 1).
    pub fn is_skinned(&self) -> bool {
        self.mesh_type == ANIMATED_MESH
    }

    /// The number of triangles.
    pub fn face_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// The triangles a submesh draws: its index range, clamped to the
    /// index list (the client would read past it).
    pub fn submesh_indices(&self, submesh: &Submesh) -> &[u16] {
        let start = usize::try_from(submesh.index_start).unwrap_or(0).min(self.indices.len());
        let len = usize::try_from(submesh.face_count).unwrap_or(0).saturating_mul(3);
        &self.indices[start..start.saturating_add(len).min(self.indices.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A skinned quad with every array that carries data, two bone names
    /// around a skipped one, billboard centres and control points.
    pub(crate) fn every_array(version: i32) -> Mesh {
        let n = 4;
        let mask = VertexMask::POSITION
            | VertexMask::POSITION2
            | VertexMask::WEIGHTS
            | VertexMask::INDICES
            | VertexMask::NORMAL
            | VertexMask::COLOUR0
            | VertexMask::UV0
            | VertexMask::UV1
            | VertexMask::TANGENT
            | VertexMask::BINORMAL;
        let v = |i: usize| Vec3::new(i as f32, 2.0 * i as f32, -(i as f32));
        Mesh {
            version,
            mesh_type: ANIMATED_MESH,
            mask: VertexMask(mask),
            bounds: Bounds { min: Vec3::ZERO, max: Vec3::splat(3.0), radius: 5.0 },
            submeshes: vec![Submesh { min_index: 0, vertex_count: 4, index_start: 0, face_count: 2 }],
            vertex_count: n,
            positions: (0..n).map(v).collect(),
            normals: vec![Vec3::Y; n],
            tangents: vec![Vec3::X; n],
            binormals: vec![Vec3::Z; n],
            colours: vec![0xff80_4020; n],
            uv0: (0..n).map(|i| Vec2::new(i as f32 * 0.25, 0.5)).collect(),
            uv1: vec![Vec2::ONE; n],
            weights: Some(Weights {
                names: vec!["Bip01".into(), FileString::empty_with_length(-3), "Bip01 Spine".into()],
                weights: vec![
                    [1.0, 0.0, 0.0, 0.0],
                    [0.5, 0.5, 0.0, 0.0],
                    [0.25, 0.75, -0.0, 0.0],
                    [1.0, 0.0, 0.0, 0.0],
                ],
                bones: vec![[0.0; 4], [0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.9, 0.0, 0.0, 0.0]],
            }),
            billboard_centres: vec![Vec3::ONE; n],
            indices: vec![0, 1, 2, 2, 1, 3],
            control_points: if version == CONTROL_POINT_VERSION {
                vec![ControlPoint {
                    kind: "trailstart_1".into(),
                    bone: "Bip01 R Hand".into(),
                    extra: FileString::default(),
                    point: Vec3::new(1.0, 2.0, 3.0),
                }]
            } else {
                Vec::new()
            },
            trailing: vec![0xAB, 0xCD],
        }
    }

    #[test]
    fn every_version_round_trips_byte_for_byte() {
        for version in [2000, 2001, 2002, 1999] {
            let mesh = every_array(version);
            let bytes = mesh.to_bytes().unwrap();
            let (read, layout) = Mesh::read(&bytes, false).unwrap();
            assert_eq!(layout.submeshes, [submesh_offset(0)]);
            assert_eq!(&bytes[48..52], 0i32.to_le_bytes(), "submesh 0's min index");
            assert_eq!(read, mesh, "version {version}");
            assert_eq!(read.to_bytes().unwrap(), bytes);
            assert_eq!(layout.arrays.len(), 9);
            assert_eq!(layout.trailer, bytes.len() - 2);
            assert_eq!(layout.face(1), layout.faces + 10);
        }
    }

    #[test]
    fn arrays_come_in_file_order_not_bit_order() {
        let mesh = every_array(2000);
        let (_, layout) = Mesh::read(&mesh.to_bytes().unwrap(), false).unwrap();
        let order: Vec<VertexArray> = layout.arrays.iter().map(|(a, _)| *a).collect();
        assert_eq!(order, VertexArray::ALL);
        assert!(layout.arrays.windows(2).all(|w| w[0].1 < w[1].1));
        // Normals start right after four positions.
        assert_eq!(layout.vertex(VertexArray::Normal, 0), layout.vertex(VertexArray::Position, 4));
    }

    #[test]
    fn skipped_names_shorten_the_palette_and_indices_truncate() {
        let mesh = every_array(2000);
        let weights = mesh.weights.as_ref().unwrap();
        let palette: Vec<String> = weights.palette().iter().map(|n| n.to_text()).collect();
        assert_eq!(palette, ["Bip01", "Bip01 Spine"]);
        assert_eq!(weights.influences(1).collect::<Vec<_>>(), [(0, 0.5), (1, 0.5)]);
        // -0.0 stops the list like 0 does.
        assert_eq!(weights.influences(2).count(), 2);
        assert_eq!(weights.influences(3).collect::<Vec<_>>(), [(1, 1.0)]);
        assert_eq!(bone_index(f32::NAN), i64::from(i32::MIN));
        assert_eq!(bone_index(-0.5), 0);
        assert_eq!(bone_index(3e9), i64::from(i32::MIN));
    }

    #[test]
    fn bits_without_data_and_unknown_bits_survive() {
        let mut mesh = every_array(2001);
        mesh.mask.0 |= VertexMask::FAILS_SKINNED | 1 << 20;
        let bytes = mesh.to_bytes().unwrap();
        assert_eq!(Mesh::from_bytes(&bytes).unwrap().to_bytes().unwrap(), bytes);
    }

    #[test]
    fn errors_name_the_part_and_byte() {
        let bytes = every_array(2002).to_bytes().unwrap();
        let (_, layout) = Mesh::read(&bytes, false).unwrap();
        let normal_2 = layout.vertex(VertexArray::Normal, 2);
        let err = Mesh::from_bytes(&bytes[..normal_2 + 5]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "normal of vertex 2: normal needs 12 bytes at byte {normal_2}, but the file ends at byte {}",
                normal_2 + 5
            )
        );
        let err = Mesh::from_bytes(&bytes[..layout.bone_names[2] + 6]).unwrap_err();
        assert!(matches!(err, MshError::Malformed { place: Place::MeshBone(2), .. }), "{err}");
        let err = Mesh::from_bytes(&bytes[..layout.face(1) + 1]).unwrap_err();
        assert!(matches!(err, MshError::Malformed { place: Place::Face(1), .. }), "{err}");
        let err = Mesh::from_bytes(&bytes[..layout.control_points[0] + 3]).unwrap_err();
        assert!(matches!(err, MshError::Malformed { place: Place::ControlPoint(0), .. }), "{err}");
        assert!(matches!(Mesh::from_bytes(b"MESH"), Err(MshError::BadMagic { .. })));
        for end in 0..bytes.len() - 2 {
            let err = Mesh::from_bytes(&bytes[..end]).expect_err("every cut before the trailer fails");
            assert!(err.offset() <= end, "cut at {end}: {err}");
        }
    }

    #[test]
    fn writing_refuses_arrays_that_disagree_with_the_mask() {
        let mut mesh = every_array(2000);
        mesh.normals.pop();
        assert!(matches!(
            mesh.to_bytes().unwrap_err().problem,
            WriteProblem::ArrayLength { what: "normal", len: 3, expected: 4 }
        ));
        let mut mesh = every_array(2000);
        mesh.mask.0 &= !VertexMask::WEIGHTS;
        assert!(matches!(mesh.to_bytes().unwrap_err().problem, WriteProblem::MaskBit { present: true, .. }));
        let mut mesh = every_array(2000);
        mesh.indices.push(0);
        assert!(matches!(mesh.to_bytes().unwrap_err().problem, WriteProblem::PartialFace(7)));
        let mut mesh = every_array(2002);
        mesh.version = 2000;
        assert!(matches!(mesh.to_bytes().unwrap_err().problem, WriteProblem::ControlPointsNeed2002 { count: 1, .. }));
    }

    #[test]
    fn huge_counts_allocate_nothing_much() {
        let mut bytes = MSH_MAGIC.to_vec();
        for v in [2000, 0, VertexMask::POSITION as i32] {
            bytes.extend(v.to_le_bytes());
        }
        bytes.extend([0; 28]);
        bytes.extend(0i32.to_le_bytes());
        bytes.extend(i32::MAX.to_le_bytes());
        let err = Mesh::from_bytes(&bytes).unwrap_err();
        assert!(matches!(err, MshError::Malformed { place: Place::Vertex { vertex: 0, .. }, .. }), "{err}");
    }
}
