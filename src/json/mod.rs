//! The JSON form of every binary file (`io3d dump` and `io3d build`):
//! `.ani` and `.skl` here, `.msh` and `.cms` in [`mesh`], and material
//! scripts in [`material`].
//! Dumping then building gives the same bytes: floats, NaN payloads,
//! non-UTF-8 strings, stored rotation words and trailing bytes all survive
//! (see [`values`] for how).
//!
//! An `.ani` looks like this (a key's `packed` holds its stored rotation
//! words: one for 4001, two for 4002, none for 4000; they are kept when
//! building as long as they still decode to `rotation`, so editing
//! `rotation` re-encodes the key):
//!
//! ```json
//! {"format":"ani","version":4002,"total_ms":1000,
//!  "events":[{"type":"motion_sound","sub_info":"a.wav","time_ms":0.0}],
//!  "tracks":[{"bone":"Bip01","weight":1.0,
//!    "keys":[{"time_ms":0,"position":[0.0,80.0,0.0],"rotation":[0.0,0.0,0.0,1.0],"packed":[2147450879,2147483647]}]}]}
//! ```

pub mod material;
pub mod mesh;
pub mod values;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::format::{
    AniVersion, Animation, Bone, Collision, Event, Key, MaterialScript, Mesh, PackedRotation, Place, Skeleton, Track,
    WriteError, skl::SKL_VERSION,
};
use values::{JsonF32, JsonString, decode_hex, floats, unfloats};

/// Any file this crate reads, as a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    /// An `.ani`.
    Ani(Animation),
    /// An `.skl`.
    Skl(Skeleton),
    /// A `.msh` (boxed: a mesh value is large).
    Msh(Box<Mesh>),
    /// A `.cms`.
    Cms(Collision),
    /// A material script.
    Material(MaterialScript),
}

/// Why JSON does not describe a file.
#[derive(Debug, Error)]
pub enum JsonError {
    /// Not JSON, or not the expected shape (with line and column).
    #[error("{0}")]
    Syntax(#[from] serde_json::Error),
    /// The `format` field is missing or unknown.
    #[error("\"format\" is {0:?}; expected \"ani\", \"skl\", \"msh\", \"cms\" or \"material\"")]
    UnknownFormat(Option<String>),
    /// A version the format does not have.
    #[error("{format} version {found} is unknown (accepted: {accepted})")]
    BadVersion {
        /// Which format.
        format: &'static str,
        /// The version given.
        found: i32,
        /// The versions accepted.
        accepted: &'static str,
    },
    /// A value that cannot be stored where it is.
    #[error("{place}: {problem}")]
    BadValue {
        /// Where.
        place: Place,
        /// What is wrong.
        problem: String,
    },
    /// The value is not writable as a file the client reads.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The JSON text of a file, pretty-printed.
pub fn to_json(document: &Document) -> String {
    let result = match document {
        Document::Ani(a) => serde_json::to_string_pretty(&AniDoc::from(a)),
        Document::Skl(s) => serde_json::to_string_pretty(&SklDoc::from(s)),
        Document::Msh(m) => serde_json::to_string_pretty(&mesh::MshDoc::from(m.as_ref())),
        Document::Cms(c) => serde_json::to_string_pretty(&mesh::CmsDoc::from(c)),
        Document::Material(m) => serde_json::to_string_pretty(&material::MaterialDoc::from(m)),
    };
    result.expect("JSON values with string keys always serialise")
}

/// The file a JSON text describes, checked to be writable.
pub fn from_json(text: &str) -> Result<Document, JsonError> {
    #[derive(Deserialize)]
    struct Probe {
        format: Option<String>,
    }
    let document = match serde_json::from_str::<Probe>(text)?.format.as_deref() {
        Some("ani") => Document::Ani(serde_json::from_str::<AniDoc>(text)?.into_animation()?),
        Some("skl") => Document::Skl(serde_json::from_str::<SklDoc>(text)?.into_skeleton()?),
        Some("msh") => Document::Msh(Box::new(serde_json::from_str::<mesh::MshDoc>(text)?.into_mesh()?)),
        Some("cms") => Document::Cms(serde_json::from_str::<mesh::CmsDoc>(text)?.into_collision()?),
        Some("material") => Document::Material(serde_json::from_str::<material::MaterialDoc>(text)?.into_script()?),
        other => return Err(JsonError::UnknownFormat(other.map(str::to_owned))),
    };
    document.to_bytes()?;
    Ok(document)
}

impl Document {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        match self {
            Self::Ani(a) => a.to_bytes(),
            Self::Skl(s) => s.to_bytes(),
            Self::Msh(m) => m.to_bytes(),
            Self::Cms(c) => c.to_bytes(),
            Self::Material(m) => Ok(m.to_bytes()),
        }
    }

    /// What kind of file it is, for messages ("an animation").
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Ani(_) => "an animation",
            Self::Skl(_) => "a skeleton",
            Self::Msh(_) => "a mesh",
            Self::Cms(_) => "a collision mesh",
            Self::Material(_) => "a material script",
        }
    }
}

fn string_at(s: &JsonString, place: impl FnOnce() -> Place) -> Result<crate::format::FileString, JsonError> {
    s.to_file_string().map_err(|problem| JsonError::BadValue { place: place(), problem })
}

fn trailing_to_json(bytes: &[u8]) -> Option<String> {
    (!bytes.is_empty()).then(|| hex::encode(bytes))
}

fn trailing_from_json(hex: Option<&str>) -> Result<Vec<u8>, JsonError> {
    hex.map_or(Ok(Vec::new()), |h| {
        decode_hex(h).map_err(|problem| JsonError::BadValue { place: Place::Trailer, problem })
    })
}

#[derive(Serialize, Deserialize)]
struct AniDoc {
    format: String,
    version: i32,
    total_ms: i32,
    events: Vec<EventDoc>,
    tracks: Vec<TrackDoc>,
    /// Bytes after the last track, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trailing_bytes: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct EventDoc {
    #[serde(rename = "type")]
    kind: JsonString,
    sub_info: JsonString,
    time_ms: JsonF32,
}

#[derive(Serialize, Deserialize)]
struct TrackDoc {
    bone: JsonString,
    weight: JsonF32,
    keys: Vec<KeyDoc>,
}

#[derive(Serialize, Deserialize)]
struct KeyDoc {
    time_ms: i32,
    position: [JsonF32; 3],
    rotation: [JsonF32; 4],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    packed: Option<Vec<u32>>,
}

impl From<&Animation> for AniDoc {
    fn from(a: &Animation) -> Self {
        Self {
            format: "ani".into(),
            version: a.version.number(),
            total_ms: a.total_ms,
            events: a
                .events
                .iter()
                .map(|e| EventDoc {
                    kind: (&e.kind).into(),
                    sub_info: (&e.sub_info).into(),
                    time_ms: JsonF32(e.time_ms),
                })
                .collect(),
            tracks: a.tracks.iter().map(TrackDoc::from).collect(),
            trailing_bytes: trailing_to_json(&a.trailing),
        }
    }
}

impl From<&Track> for TrackDoc {
    fn from(t: &Track) -> Self {
        let key = |k: &Key| KeyDoc {
            time_ms: k.time_ms,
            position: floats(k.position.to_array()),
            rotation: floats(k.rotation.to_array()),
            packed: k.packed.map(|p| match p {
                PackedRotation::SmallThree(word) => vec![word],
                PackedRotation::EightBytes(words) => words.to_vec(),
            }),
        };
        Self { bone: (&t.bone).into(), weight: JsonF32(t.weight), keys: t.keys.iter().map(key).collect() }
    }
}

impl AniDoc {
    fn into_animation(self) -> Result<Animation, JsonError> {
        let version = AniVersion::from_number(self.version).ok_or(JsonError::BadVersion {
            format: ".ani",
            found: self.version,
            accepted: "4000, 4001 or 4002",
        })?;
        let events = self
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                Ok(Event {
                    kind: string_at(&e.kind, || Place::Event(i))?,
                    sub_info: string_at(&e.sub_info, || Place::Event(i))?,
                    time_ms: e.time_ms.0,
                })
            })
            .collect::<Result<_, JsonError>>()?;
        let tracks =
            self.tracks.into_iter().enumerate().map(|(i, t)| t.into_track(i, version)).collect::<Result<_, _>>()?;
        let trailing = trailing_from_json(self.trailing_bytes.as_deref())?;
        Ok(Animation { version, events, total_ms: self.total_ms, tracks, trailing })
    }
}

impl TrackDoc {
    fn into_track(self, index: usize, version: AniVersion) -> Result<Track, JsonError> {
        let bone = string_at(&self.bone, || Place::Track(index, None))?;
        let keys =
            self.keys
                .into_iter()
                .enumerate()
                .map(|(k, key)| {
                    let packed = packed_words(key.packed.as_deref(), version).map_err(|problem| {
                        JsonError::BadValue { place: Place::Key { track: index, bone: bone.clone(), key: k }, problem }
                    })?;
                    Ok(Key {
                        time_ms: key.time_ms,
                        position: unfloats(key.position).into(),
                        rotation: glam::Quat::from_array(unfloats(key.rotation)),
                        packed,
                    })
                })
                .collect::<Result<_, JsonError>>()?;
        Ok(Track { bone, weight: self.weight.0, keys })
    }
}

/// The stored words of a key, which must match what the version stores.
fn packed_words(words: Option<&[u32]>, version: AniVersion) -> Result<Option<PackedRotation>, String> {
    match (words, version) {
        (None, _) => Ok(None),
        (Some(&[word]), AniVersion::V4001) => Ok(Some(PackedRotation::SmallThree(word))),
        (Some(&[first, second]), AniVersion::V4002) => Ok(Some(PackedRotation::EightBytes([first, second]))),
        (Some(words), _) => Err(format!(
            "\"packed\" has {} words, but version {version} stores {}",
            words.len(),
            match version {
                AniVersion::V4000 => "none (leave \"packed\" out)",
                AniVersion::V4001 => "one",
                AniVersion::V4002 => "two",
            }
        )),
    }
}

#[derive(Serialize, Deserialize)]
struct SklDoc {
    format: String,
    version: i32,
    bones: Vec<BoneDoc>,
    linked_skeleton: JsonString,
    /// Bytes after the linked skeleton name, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trailing_bytes: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct BoneDoc {
    name: JsonString,
    position: [JsonF32; 3],
    rotation: [JsonF32; 4],
    inverse_bind_position: [JsonF32; 3],
    inverse_bind_rotation: [JsonF32; 4],
    object_tm: [JsonF32; 16],
    parent: JsonString,
    children: Vec<JsonString>,
}

impl From<&Skeleton> for SklDoc {
    fn from(s: &Skeleton) -> Self {
        let bone = |b: &Bone| BoneDoc {
            name: (&b.name).into(),
            position: floats(b.position.to_array()),
            rotation: floats(b.rotation.to_array()),
            inverse_bind_position: floats(b.inverse_bind_position.to_array()),
            inverse_bind_rotation: floats(b.inverse_bind_rotation.to_array()),
            object_tm: floats(b.object_tm),
            parent: (&b.parent).into(),
            children: b.children.iter().map(JsonString::from).collect(),
        };
        Self {
            format: "skl".into(),
            version: SKL_VERSION,
            bones: s.bones.iter().map(bone).collect(),
            linked_skeleton: (&s.linked_skeleton).into(),
            trailing_bytes: trailing_to_json(&s.trailing),
        }
    }
}

impl SklDoc {
    fn into_skeleton(self) -> Result<Skeleton, JsonError> {
        if self.version != SKL_VERSION {
            return Err(JsonError::BadVersion { format: ".skl", found: self.version, accepted: "1000" });
        }
        let bones = self
            .bones
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                let place = || Place::Bone(i, None);
                Ok(Bone {
                    name: string_at(&b.name, place)?,
                    position: unfloats(b.position).into(),
                    rotation: glam::Quat::from_array(unfloats(b.rotation)),
                    inverse_bind_position: unfloats(b.inverse_bind_position).into(),
                    inverse_bind_rotation: glam::Quat::from_array(unfloats(b.inverse_bind_rotation)),
                    object_tm: unfloats(b.object_tm),
                    parent: string_at(&b.parent, place)?,
                    children: b.children.iter().map(|c| string_at(c, place)).collect::<Result<_, _>>()?,
                })
            })
            .collect::<Result<_, JsonError>>()?;
        Ok(Skeleton {
            bones,
            linked_skeleton: string_at(&self.linked_skeleton, || Place::Trailer)?,
            trailing: trailing_from_json(self.trailing_bytes.as_deref())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump_then_build_gives_the_same_bytes() {
        let skeleton = crate::anim::biped::skeleton();
        let mut a = Animation::new(AniVersion::V4002, 1000);
        a.events.push(Event { kind: "motion_sound".into(), sub_info: (&[0xB0, 0xF8][..]).into(), time_ms: f32::NAN });
        a.tracks.push(Track {
            bone: "Bip01".into(),
            weight: 0.3,
            keys: vec![Key::new(0, glam::Vec3::new(0.1, 80.0, -0.0), glam::Quat::from_rotation_y(0.3))],
        });
        a.trailing = vec![0xde, 0xad];
        let mesh = Mesh {
            version: 2002,
            mesh_type: 1,
            mask: crate::format::VertexMask(1 | 8 | 256),
            vertex_count: 1,
            positions: vec![glam::Vec3::new(f32::NAN, 1.0, -0.0)],
            uv0: vec![glam::Vec2::new(0.5, 1.0)],
            weights: Some(crate::format::Weights {
                names: vec![crate::format::FileString::empty_with_length(-1), "Bip01".into()],
                weights: vec![[1.0, 0.0, 0.0, 0.0]],
                bones: vec![[0.0; 4]],
            }),
            indices: vec![0, 0, 0],
            control_points: vec![crate::format::ControlPoint { kind: "trailend_2".into(), ..Default::default() }],
            trailing: vec![1],
            ..Mesh::default()
        };
        let collision = Collision { positions: vec![glam::Vec3::X], indices: vec![0, 0, 0], trailing: vec![] };
        let script = MaterialScript::parse(b"material A\r\n{\r\n}\r\n\xb0\xf8\r\n").unwrap();
        for document in [
            Document::Skl(skeleton),
            Document::Ani(a),
            Document::Msh(Box::new(mesh)),
            Document::Cms(collision),
            Document::Material(script),
        ] {
            let bytes = document.to_bytes().unwrap();
            let built = from_json(&to_json(&document)).unwrap();
            assert_eq!(built.to_bytes().unwrap(), bytes);
        }
    }

    #[test]
    fn errors_say_where() {
        let err = from_json(r#"{"format":"ani","version":4002,"total_ms":0,"events":[],"tracks":[{"bone":"Bip01","weight":1.0,"keys":[{"time_ms":0,"position":[0,0,0],"rotation":[0,0,0,1],"packed":[1]}]}]}"#).unwrap_err();
        assert_eq!(err.to_string(), "track 0 'Bip01', key 0: \"packed\" has 1 words, but version 4002 stores two");
        assert!(matches!(from_json(r#"{"format":"mesh"}"#), Err(JsonError::UnknownFormat(Some(_)))));
        let err = from_json(r#"{"format":"ani","version":4002,"total_ms":"x"}"#).unwrap_err();
        assert!(err.to_string().contains("line 1 column"), "{err}");
    }
}
