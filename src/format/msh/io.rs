//! Reading a `.msh` as the client does and writing it back byte for byte.

use super::*;

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
            return Err(MshError::BadMagic { kind: BinaryKind::Msh, found: magic.to_vec() });
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

    /// The UV set a texture unit asking for set `set` reads: that set
    /// where the mesh holds it for every vertex, else the first, which is
    /// what fits every known file (the game's toon scripts ask for set 1
    /// on meshes that have only one).
    pub fn uv_set(&self, set: usize) -> usize {
        if set == 1 && self.has_uvs(&self.uv1) { 1 } else { 0 }
    }

    /// The UVs of [`Mesh::uv_set`]`(set)`; `None` for a mesh without them.
    pub fn uvs(&self, set: usize) -> Option<&[Vec2]> {
        let uvs = if self.uv_set(set) == 1 { &self.uv1 } else { &self.uv0 };
        self.has_uvs(uvs).then_some(uvs.as_slice())
    }

    fn has_uvs(&self, uvs: &[Vec2]) -> bool {
        !uvs.is_empty() && uvs.len() == self.positions.len()
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
