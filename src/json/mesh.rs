//! The JSON form of `.msh` and `.cms` files. Arrays appear only when the
//! mask stores them; floats and strings survive bit for bit as in the rest
//! of the JSON form.
//!
//! ```json
//! {"format":"msh","version":2002,"mesh_type":1,"mask":281,
//!  "bounds":{"min":[-1.0,0.0,-1.0],"max":[1.0,2.0,1.0],"radius":2.0},
//!  "submeshes":[{"min_index":0,"vertex_count":3,"index_start":0,"face_count":1}],
//!  "vertex_count":3,"positions":[[0.0,0.0,0.0],[1.0,0.0,0.0],[0.0,2.0,0.0]],
//!  "uv0":[[0.0,0.0],[1.0,0.0],[0.0,1.0]],
//!  "weights":{"names":["Bip01"],"vertices":[{"weights":[1.0,0.0,0.0,0.0],"bones":[0.0,0.0,0.0,0.0]}]},
//!  "faces":[[0,1,2]],"control_points":[]}
//! ```

use glam::{Vec2, Vec3};
use serde::{Deserialize, Serialize};

use super::values::{JsonF32, JsonString, floats, unfloats};
use super::{JsonError, string_at, trailing_from_json, trailing_to_json};
use crate::format::msh::{Bounds, ControlPoint, Submesh, VertexMask, Weights};
use crate::format::{Collision, Mesh, Place};

#[derive(Serialize, Deserialize)]
pub(super) struct MshDoc {
    format: String,
    version: i32,
    mesh_type: i32,
    mask: u32,
    bounds: BoundsDoc,
    submeshes: Vec<SubmeshDoc>,
    vertex_count: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    positions: Vec<[JsonF32; 3]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    normals: Vec<[JsonF32; 3]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tangents: Vec<[JsonF32; 3]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    binormals: Vec<[JsonF32; 3]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    colours: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    uv0: Vec<[JsonF32; 2]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    uv1: Vec<[JsonF32; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weights: Option<WeightsDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    billboard_centres: Vec<[JsonF32; 3]>,
    faces: Vec<[u16; 3]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    control_points: Vec<ControlPointDoc>,
    /// Bytes after the data, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trailing_bytes: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct BoundsDoc {
    min: [JsonF32; 3],
    max: [JsonF32; 3],
    radius: JsonF32,
}

#[derive(Serialize, Deserialize)]
struct SubmeshDoc {
    min_index: i32,
    vertex_count: i32,
    index_start: i32,
    face_count: i32,
}

#[derive(Serialize, Deserialize)]
struct WeightsDoc {
    names: Vec<JsonString>,
    vertices: Vec<VertexWeightsDoc>,
}

#[derive(Serialize, Deserialize)]
struct VertexWeightsDoc {
    weights: [JsonF32; 4],
    bones: [JsonF32; 4],
}

#[derive(Serialize, Deserialize)]
struct ControlPointDoc {
    #[serde(rename = "type")]
    kind: JsonString,
    bone: JsonString,
    extra: JsonString,
    point: [JsonF32; 3],
}

fn vec3s(values: &[Vec3]) -> Vec<[JsonF32; 3]> {
    values.iter().map(|v| floats(v.to_array())).collect()
}

fn unvec3s(values: Vec<[JsonF32; 3]>) -> Vec<Vec3> {
    values.into_iter().map(|v| Vec3::from_array(unfloats(v))).collect()
}

fn uvs(values: &[Vec2]) -> Vec<[JsonF32; 2]> {
    values.iter().map(|v| floats(v.to_array())).collect()
}

fn unuvs(values: Vec<[JsonF32; 2]>) -> Vec<Vec2> {
    values.into_iter().map(|v| Vec2::from_array(unfloats(v))).collect()
}

fn faces(indices: &[u16]) -> Vec<[u16; 3]> {
    indices.chunks_exact(3).map(|f| [f[0], f[1], f[2]]).collect()
}

impl From<&Mesh> for MshDoc {
    fn from(m: &Mesh) -> Self {
        Self {
            format: "msh".into(),
            version: m.version,
            mesh_type: m.mesh_type,
            mask: m.mask.0,
            bounds: BoundsDoc {
                min: floats(m.bounds.min.to_array()),
                max: floats(m.bounds.max.to_array()),
                radius: JsonF32(m.bounds.radius),
            },
            submeshes: m
                .submeshes
                .iter()
                .map(|s| SubmeshDoc {
                    min_index: s.min_index,
                    vertex_count: s.vertex_count,
                    index_start: s.index_start,
                    face_count: s.face_count,
                })
                .collect(),
            vertex_count: m.vertex_count,
            positions: vec3s(&m.positions),
            normals: vec3s(&m.normals),
            tangents: vec3s(&m.tangents),
            binormals: vec3s(&m.binormals),
            colours: m.colours.clone(),
            uv0: uvs(&m.uv0),
            uv1: uvs(&m.uv1),
            weights: m.weights.as_ref().map(|w| WeightsDoc {
                names: w.names.iter().map(JsonString::from).collect(),
                vertices: w
                    .weights
                    .iter()
                    .zip(&w.bones)
                    .map(|(ws, bs)| VertexWeightsDoc { weights: floats(*ws), bones: floats(*bs) })
                    .collect(),
            }),
            billboard_centres: vec3s(&m.billboard_centres),
            faces: faces(&m.indices),
            control_points: m
                .control_points
                .iter()
                .map(|cp| ControlPointDoc {
                    kind: (&cp.kind).into(),
                    bone: (&cp.bone).into(),
                    extra: (&cp.extra).into(),
                    point: floats(cp.point.to_array()),
                })
                .collect(),
            trailing_bytes: trailing_to_json(&m.trailing),
        }
    }
}

impl MshDoc {
    pub(super) fn into_mesh(self) -> Result<Mesh, JsonError> {
        let weights = self.weights.map(|w| -> Result<Weights, JsonError> {
            let names = w
                .names
                .iter()
                .enumerate()
                .map(|(i, n)| string_at(n, || Place::MeshBone(i)))
                .collect::<Result<_, _>>()?;
            let (weights, bones) = w.vertices.into_iter().map(|v| (unfloats(v.weights), unfloats(v.bones))).unzip();
            Ok(Weights { names, weights, bones })
        });
        let control_points = self
            .control_points
            .iter()
            .enumerate()
            .map(|(i, cp)| {
                let place = || Place::ControlPoint(i);
                Ok(ControlPoint {
                    kind: string_at(&cp.kind, place)?,
                    bone: string_at(&cp.bone, place)?,
                    extra: string_at(&cp.extra, place)?,
                    point: Vec3::from_array(unfloats(cp.point)),
                })
            })
            .collect::<Result<_, JsonError>>()?;
        Ok(Mesh {
            version: self.version,
            mesh_type: self.mesh_type,
            mask: VertexMask(self.mask),
            bounds: Bounds {
                min: Vec3::from_array(unfloats(self.bounds.min)),
                max: Vec3::from_array(unfloats(self.bounds.max)),
                radius: self.bounds.radius.0,
            },
            submeshes: self
                .submeshes
                .iter()
                .map(|s| Submesh {
                    min_index: s.min_index,
                    vertex_count: s.vertex_count,
                    index_start: s.index_start,
                    face_count: s.face_count,
                })
                .collect(),
            vertex_count: self.vertex_count,
            positions: unvec3s(self.positions),
            normals: unvec3s(self.normals),
            tangents: unvec3s(self.tangents),
            binormals: unvec3s(self.binormals),
            colours: self.colours,
            uv0: unuvs(self.uv0),
            uv1: unuvs(self.uv1),
            weights: weights.transpose()?,
            billboard_centres: unvec3s(self.billboard_centres),
            indices: self.faces.into_iter().flatten().collect(),
            control_points,
            trailing: trailing_from_json(self.trailing_bytes.as_deref())?,
        })
    }
}

#[derive(Serialize, Deserialize)]
pub(super) struct CmsDoc {
    format: String,
    version: i32,
    positions: Vec<[JsonF32; 3]>,
    faces: Vec<[u16; 3]>,
    /// Bytes after the data, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trailing_bytes: Option<String>,
}

impl From<&Collision> for CmsDoc {
    fn from(c: &Collision) -> Self {
        Self {
            format: "cms".into(),
            version: crate::format::cms::CMS_VERSION,
            positions: vec3s(&c.positions),
            faces: faces(&c.indices),
            trailing_bytes: trailing_to_json(&c.trailing),
        }
    }
}

impl CmsDoc {
    pub(super) fn into_collision(self) -> Result<Collision, JsonError> {
        if self.version != crate::format::cms::CMS_VERSION {
            return Err(JsonError::BadVersion { format: ".cms", found: self.version, accepted: "5000" });
        }
        Ok(Collision {
            positions: unvec3s(self.positions),
            indices: self.faces.into_iter().flatten().collect(),
            trailing: trailing_from_json(self.trailing_bytes.as_deref())?,
        })
    }
}
