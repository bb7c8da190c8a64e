//! Checks of a `.msh`, alone or against a skeleton, and of a `.cms`.

use std::collections::HashSet;

use glam::Vec3;

use super::{Finding, Rule, check_string, check_trailing, missing_bone};
use crate::anim::BoneNames;
use crate::format::msh::{MAX_PALETTE, MAX_VERTICES};
use crate::format::msh::{MSH_VERSIONS, VertexArray, VertexMask};
use crate::format::{Collision, Mesh, MshLayout, Skeleton, Weights};

/// How far a vertex's leading weights may sum from 1 before it is reported.
const WEIGHT_SUM_TOLERANCE: f32 = 0.01;

/// Checks a `.msh` file's bytes; with a skeleton, also that every bone the
/// weights name is in it. A file that does not load gives one error.
pub fn check_msh(bytes: &[u8], skeleton: Option<&Skeleton>) -> Vec<Finding> {
    let (mesh, layout) = match Mesh::read(bytes, true) {
        Ok(read) => read,
        Err(error) => return vec![Finding::new(Rule::Unreadable, error.offset(), error.to_string())],
    };
    let c = MshCheck { mesh: &mesh, layout: &layout };
    let mut out = Vec::new();
    c.header(&mut out);
    c.vertices(&mut out);
    c.faces(&mut out);
    if let Some(weights) = &mesh.weights {
        c.weights(weights, &mut out);
        if let Some(skeleton) = skeleton {
            check_mesh_bones(&mesh, &layout, skeleton, &mut out);
        }
    }
    c.control_points(skeleton, &mut out);
    check_trailing(&mut out, layout.trailer, &mesh.trailing);
    out
}

/// Findings for the bone names a mesh's weights use that the skeleton
/// lacks: the client silently skins those vertices on the root.
pub fn check_mesh_bones(mesh: &Mesh, layout: &MshLayout, skeleton: &Skeleton, out: &mut Vec<Finding>) {
    let Some(weights) = &mesh.weights else { return };
    // Bone indices count only the names the client keeps.
    let kept = weights.names.iter().enumerate().filter(|(_, n)| n.length_field() > 0);
    let names = BoneNames::new(skeleton.bones.iter().map(|b| b.name.c_str()));
    for (entry, (i, name)) in kept.enumerate() {
        if names.of(name).is_none() {
            let what = format!("bone name {i}");
            let effect = format!("the client skins the vertices of bone index {entry} on the root");
            out.push(missing_bone(&names, skeleton, layout.bone_names[i], &what, name, &effect));
        }
    }
}

struct MshCheck<'a> {
    mesh: &'a Mesh,
    layout: &'a MshLayout,
}

impl MshCheck<'_> {
    fn header(&self, out: &mut Vec<Finding>) {
        let (mesh, mask) = (self.mesh, self.mesh.mask);
        if !MSH_VERSIONS.contains(&mesh.version) {
            out.push(Finding::new(
                Rule::UnknownVersion,
                4,
                format!("version {}: the client reads it as 2000 (no control points)", mesh.version),
            ));
        }
        if !(0..=6).contains(&mesh.mesh_type) {
            out.push(Finding::new(
                Rule::MeshType,
                8,
                format!("mesh type {} is not one the client knows; it draws the mesh as static", mesh.mesh_type),
            ));
        }
        let failing = mask.0 & VertexMask::FAILS_SKINNED;
        if mesh.is_skinned() && failing != 0 {
            out.push(Finding::new(
                Rule::SkinnedBits,
                self.layout.mask,
                format!(
                    "mask {:#x} has bits {failing:#x} (position w, colour 1, uv2 or uv3): the client cannot create a skinned mesh's vertex streams with them and the mesh does not load",
                    mask.0
                ),
            ));
        }
        if mesh.is_skinned() && mesh.weights.is_some() && !mask.has(VertexMask::NORMAL) {
            out.push(Finding::new(
                Rule::NoNormals,
                self.layout.mask,
                "a skinned mesh without normals (mask bit 32): the client's software skinner refuses to build its buffers",
            ));
        }
        if mesh.is_skinned() && mesh.weights.is_none() {
            out.push(Finding::new(
                Rule::NoWeights,
                self.layout.mask,
                "an animated (skinned) mesh without a weights block (mask bit 8): it cannot follow the skeleton",
            ));
        }
        if mask.has(VertexMask::WEIGHTS) && !mask.has(VertexMask::INDICES) {
            out.push(Finding::new(
                Rule::WeightsWithoutIndices,
                self.layout.mask,
                "mask has the weights bit (8) but not the indices bit (16): the client's bone indices are then undefined (the weights block's indices are used here)",
            ));
        }
        if !mask.has(VertexMask::POSITION) && mesh.vertex_count > 0 {
            out.push(Finding::new(Rule::NoPositions, self.layout.mask, "vertices without positions (mask bit 1)"));
        }
        if mesh.vertex_count > MAX_VERTICES {
            out.push(Finding::new(
                Rule::TooManyVertices,
                self.layout.mask,
                format!("{} vertices: 16-bit indices reach only the first {MAX_VERTICES}", mesh.vertex_count),
            ));
        }
    }

    fn vertices(&self, out: &mut Vec<Finding>) {
        let mesh = self.mesh;
        for array in [VertexArray::Position, VertexArray::Normal, VertexArray::Tangent, VertexArray::Binormal] {
            for (v, value) in mesh.vec3s(array).iter().enumerate() {
                if !value.is_finite() {
                    out.push(Finding::on_item(
                        Rule::NotFinite,
                        self.layout.vertex(array, v),
                        (array.name(), "vertex", v),
                        format!("{value}"),
                    ));
                }
            }
        }
        self.bounds(out);
    }

    /// The stored box is what the client culls with: vertices outside it
    /// can vanish at the screen's edge.
    fn bounds(&self, out: &mut Vec<Finding>) {
        let b = self.mesh.bounds;
        if !(b.min.is_finite() && b.max.is_finite() && b.radius.is_finite()) {
            let message = format!("the stored box {} to {} (radius {}) is not finite", b.min, b.max, b.radius);
            out.push(Finding::new(Rule::NotFinite, self.layout.bounds, message));
            return;
        }
        let slack = Vec3::splat(1e-3) + (b.max - b.min).abs() * 1e-4;
        let outside: Vec<usize> = (0..self.mesh.positions.len())
            .filter(|&v| {
                let p = self.mesh.positions[v];
                p.is_finite() && (p.cmplt(b.min - slack).any() || p.cmpgt(b.max + slack).any())
            })
            .collect();
        if let Some(&first) = outside.first() {
            out.push(Finding::new(
                Rule::Bounds,
                self.layout.bounds,
                format!(
                    "the stored box {} to {} does not hold {} of {} vertices (vertex {first} is at {}): the client culls with the stored box",
                    b.min,
                    b.max,
                    outside.len(),
                    self.mesh.positions.len(),
                    self.mesh.positions[first]
                ),
            ));
        }
    }

    fn faces(&self, out: &mut Vec<Finding>) {
        let mesh = self.mesh;
        for (f, face) in mesh.indices.chunks_exact(3).enumerate() {
            if let Some(&index) = face.iter().find(|&&i| usize::from(i) >= mesh.vertex_count) {
                out.push(Finding::on_item(
                    Rule::FaceIndex,
                    self.layout.face(f),
                    ("", "face", f),
                    format!("index {index} is past the last vertex ({})", mesh.vertex_count),
                ));
            }
        }
        for (s, submesh) in mesh.submeshes.iter().enumerate() {
            let offset = self.layout.submeshes[s];
            let fields = [submesh.min_index, submesh.vertex_count, submesh.index_start, submesh.face_count];
            if fields.iter().any(|&v| v < 0) {
                out.push(Finding::new(Rule::SubmeshRange, offset, format!("submesh {s}: a negative field {fields:?}")));
                continue;
            }
            let (start, count) = (submesh.index_start as usize, submesh.face_count as usize * 3);
            if start + count > mesh.indices.len() {
                out.push(Finding::new(
                    Rule::SubmeshRange,
                    offset,
                    format!(
                        "submesh {s}: indices {start} to {} are past the end of the index list ({})",
                        start + count,
                        mesh.indices.len()
                    ),
                ));
                continue;
            }
            let range = submesh.min_index as usize..submesh.min_index as usize + submesh.vertex_count as usize;
            let within = format!("submesh {s}");
            for (f, face) in mesh.submesh_indices(submesh).chunks_exact(3).enumerate() {
                if let Some(&index) = face.iter().find(|&&i| !range.contains(&usize::from(i))) {
                    out.push(Finding::on_item(
                        Rule::SubmeshIndex,
                        self.layout.index(start + 3 * f),
                        (&within, "face", f),
                        format!("index {index} is outside the submesh's vertices {} to {}", range.start, range.end),
                    ));
                }
            }
        }
    }

    fn weights(&self, weights: &Weights, out: &mut Vec<Finding>) {
        for (i, name) in weights.names.iter().enumerate() {
            check_string(out, self.layout.bone_names[i], &format!("bone name {i}"), name);
        }
        let palette = weights.palette().len();
        if palette > MAX_PALETTE {
            out.push(Finding::new(
                Rule::PaletteSize,
                self.layout.vertex(VertexArray::Weights, 0),
                format!("{palette} bone names: the client packs bone indices in bytes, so at most {MAX_PALETTE}"),
            ));
        }
        for v in 0..weights.weights.len() {
            self.vertex_weights(weights, v, palette, out);
        }
    }

    fn vertex_weights(&self, weights: &Weights, v: usize, palette: usize, out: &mut Vec<Finding>) {
        let offset = self.layout.vertex(VertexArray::Weights, v);
        let mut push = |rule, detail: String| {
            out.push(Finding::on_item(rule, offset, ("weights", "vertex", v), detail));
        };
        let stored = weights.weights[v];
        if stored.iter().chain(&weights.bones[v]).any(|w| !w.is_finite()) {
            push(Rule::NotFinite, format!("weights {stored:?}, bones {:?}", weights.bones[v]));
            return;
        }
        let used: Vec<(i64, f32)> = weights.influences(v).collect();
        match used.len() {
            0 => push(
                Rule::NoWeight,
                "no positive first weight: the client's software skinner gives the vertex no bone, so it and every later vertex take the next vertex's bones (shown here at the origin)".into(),
            ),
            4 => push(
                Rule::FourWeights,
                "four positive weights: the client's software skinner has no end marker and reads on into the next vertex".into(),
            ),
            _ => {}
        }
        let sum: f32 = used.iter().map(|(_, w)| w).sum();
        if !used.is_empty() && (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
            push(Rule::WeightSum, format!("the weights used sum to {sum:.4}, not 1; the client does not renormalise"));
        }
        if let Some((index, _)) = used.iter().find(|(i, _)| !(0..palette as i64).contains(i)) {
            push(
                Rule::BoneIndex,
                format!("bone index {index} is outside the {palette} bone names (the client reads out of bounds)"),
            );
        }
    }

    fn control_points(&self, skeleton: Option<&Skeleton>, out: &mut Vec<Finding>) {
        let mut seen = HashSet::new();
        for (i, cp) in self.mesh.control_points.iter().enumerate() {
            let offset = self.layout.control_points[i];
            let place = format!("control point {i} '{}'", cp.kind);
            check_string(out, offset, &format!("{place} type"), &cp.kind);
            check_string(out, offset, &format!("{place} bone"), &cp.bone);
            check_string(out, offset, &format!("{place} extra"), &cp.extra);
            if !seen.insert(control_point_key(cp.kind.as_bytes())) {
                out.push(Finding::new(
                    Rule::DuplicateControlPoint,
                    offset,
                    format!("{place}: an earlier point has the same type and index; the client drops this one"),
                ));
            }
            if skeleton.is_some_and(|s| s.bone_index(cp.bone.c_str()).is_none()) {
                out.push(Finding::new(
                    Rule::UnknownPointBone,
                    offset,
                    format!("{place}: the skeleton has no bone '{}', so the point follows the root", cp.bone),
                ));
            }
        }
    }
}

/// A control point's type as the client keys it: the name before the first
/// `_` and the number after it (`trailstart_1`); no `_` means an empty name
/// and index 0.
fn control_point_key(kind: &[u8]) -> (Vec<u8>, i64) {
    match kind.iter().position(|&b| b == b'_') {
        None => (Vec::new(), 0),
        Some(at) => {
            let number = std::str::from_utf8(&kind[at + 1..]).ok().and_then(|n| n.trim().parse().ok()).unwrap_or(0);
            (kind[..at].to_vec(), number)
        }
    }
}

/// Checks a `.cms` file's bytes: faces that name no vertex, values that are
/// not numbers.
pub fn check_cms(bytes: &[u8]) -> Vec<Finding> {
    let (collision, layout) = match Collision::read(bytes) {
        Ok(read) => read,
        Err(error) => return vec![Finding::new(Rule::Unreadable, error.offset(), error.to_string())],
    };
    let mut out = Vec::new();
    for (v, p) in collision.positions.iter().enumerate() {
        if !p.is_finite() {
            out.push(Finding::on_item(
                Rule::NotFinite,
                layout.positions + 12 * v,
                ("position", "vertex", v),
                format!("{p}"),
            ));
        }
    }
    let n = collision.positions.len();
    for (f, face) in collision.indices.chunks_exact(3).enumerate() {
        if let Some(index) = face.iter().find(|&&i| usize::from(i) >= n) {
            out.push(Finding::on_item(
                Rule::FaceIndex,
                layout.faces + 4 + 6 * f,
                ("", "face", f),
                format!("index {index} is past the last vertex ({n})"),
            ));
        }
    }
    check_trailing(&mut out, layout.trailer, &collision.trailing);
    out
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::format::msh::{ANIMATED_MESH, Bounds, ControlPoint, Submesh};

    fn rules(findings: &[Finding]) -> Vec<Rule> {
        findings.iter().map(|f| f.rule).collect()
    }

    /// A skinned triangle pair that breaks one rule per vertex and face.
    fn broken() -> Mesh {
        Mesh {
            version: 2002,
            mesh_type: ANIMATED_MESH,
            mask: VertexMask(VertexMask::POSITION | VertexMask::WEIGHTS | VertexMask::UV2),
            bounds: Bounds { min: Vec3::ZERO, max: Vec3::ONE, radius: 1.0 },
            submeshes: vec![Submesh { min_index: 0, vertex_count: 3, index_start: 0, face_count: 2 }],
            vertex_count: 5,
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::splat(9.0)],
            weights: Some(Weights {
                names: vec!["Bip01".into(), "Tail".into()],
                weights: vec![
                    [1.0, 0.0, 0.0, 0.0],
                    [0.25; 4],
                    [0.5, 0.2, 0.0, 0.0],
                    [0.0, 1.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0, 0.0],
                ],
                bones: vec![[0.0; 4], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0], [0.0; 4], [5.0, 0.0, 0.0, 0.0]],
            }),
            indices: vec![0, 1, 2, 2, 3, 7],
            control_points: vec![
                ControlPoint { kind: "trailstart_1".into(), bone: "Sword".into(), ..ControlPoint::default() },
                ControlPoint { kind: "trailstart_01".into(), bone: "Bip01".into(), ..ControlPoint::default() },
            ],
            ..Mesh::default()
        }
    }

    #[test]
    fn finds_what_breaks_in_the_client() {
        let skeleton = crate::anim::biped::skeleton();
        let bytes = broken().to_bytes().unwrap();
        let findings = check_msh(&bytes, Some(&skeleton));
        let rules = rules(&findings);
        for rule in [
            Rule::SkinnedBits,
            Rule::WeightsWithoutIndices,
            Rule::FourWeights,
            Rule::WeightSum,
            Rule::NoWeight,
            Rule::BoneIndex,
            Rule::Bounds,
            Rule::FaceIndex,
            Rule::SubmeshIndex,
            Rule::UnknownBone,
            Rule::DuplicateControlPoint,
            Rule::UnknownPointBone,
            Rule::NoNormals,
        ] {
            assert!(rules.contains(&rule), "{rule} missing from {findings:#?}");
        }
        let (_, layout) = Mesh::read(&bytes, false).unwrap();
        let four = findings.iter().find(|f| f.rule == Rule::FourWeights).unwrap();
        assert_eq!(four.offset, layout.vertex(VertexArray::Weights, 1));
        assert!(four.message.starts_with("weights, vertex 1: four positive weights"), "{}", four.message);
        let sum = findings.iter().find(|f| f.rule == Rule::WeightSum).unwrap();
        assert!(sum.message.contains("vertex 2") && sum.message.contains("0.7000"), "{}", sum.message);
        let tail = findings.iter().find(|f| f.rule == Rule::UnknownBone).unwrap();
        assert_eq!((tail.offset, tail.message.contains("'Tail'")), (layout.bone_names[1], true));
        let point = findings.iter().find(|f| f.rule == Rule::UnknownPointBone).unwrap();
        assert!(point.message.starts_with("control point 0"), "{}", point.message);
        assert_eq!((tail.severity, point.severity), (crate::check::Severity::Error, crate::check::Severity::Warning));
    }

    #[test]
    fn a_clean_mesh_has_no_findings() {
        let mut mesh = broken();
        mesh.mask = VertexMask(VertexMask::POSITION | VertexMask::NORMAL | VertexMask::WEIGHTS | VertexMask::INDICES);
        mesh.vertex_count = 4;
        mesh.positions.pop();
        mesh.normals = vec![Vec3::Y; 4];
        let w = mesh.weights.as_mut().unwrap();
        w.names[1] = "Bip01 Spine".into();
        w.weights = vec![[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.8, 0.2, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]];
        w.bones = vec![[0.0; 4], [0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]];
        mesh.submeshes[0].vertex_count = 4;
        mesh.indices = vec![0, 1, 2, 2, 3, 0];
        mesh.control_points.truncate(1);
        mesh.control_points[0].bone = "Bip01 R Hand".into();
        let findings = check_msh(&mesh.to_bytes().unwrap(), Some(&crate::anim::biped::skeleton()));
        assert_eq!(findings, []);
    }

    #[test]
    fn collision_faces_must_name_vertices() {
        let collision = Collision { positions: vec![Vec3::ZERO, Vec3::NAN], indices: vec![0, 1, 2], trailing: vec![] };
        assert_eq!(rules(&check_cms(&collision.to_bytes().unwrap())), [Rule::NotFinite, Rule::FaceIndex]);
        assert_eq!(rules(&check_cms(b"CMS\0")), [Rule::Unreadable]);
    }
}
