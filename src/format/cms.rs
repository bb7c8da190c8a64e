//! `.cms`: a collision mesh, positions and triangles only. A model config
//! names it under `#COLLISION_MESH`; the client also accepts a `.msh` there
//! (its positions and faces).

use glam::Vec3;

use super::bytes::{Reader, Writer, vec3_at};
use super::error::{BinaryKind, FormatError};
use super::place::Place;
use super::write::{WriteError, WriteProblem};

/// The four bytes every `.cms` starts with.
pub const CMS_MAGIC: [u8; 4] = *b"CMS\0";

/// The only version the client loads.
pub const CMS_VERSION: i32 = 5000;

/// A whole `.cms` file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collision {
    /// Vertex positions, engine axes.
    pub positions: Vec<Vec3>,
    /// Triangles, three indices each.
    pub indices: Vec<u16>,
    /// Bytes after the data: the client ignores them; we keep them.
    pub trailing: Vec<u8>,
}

/// Why bytes are not a .cms the client would load: the readers' one error
/// shape, [`FormatError`].
pub type CmsError = FormatError;

/// Byte offsets of the parts of a `.cms`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CmsLayout {
    /// Offset of the first position.
    pub positions: usize,
    /// Offset of the face count.
    pub faces: usize,
    /// Offset of the bytes after the data.
    pub trailer: usize,
}

impl Collision {
    /// Reads a `.cms` as the client does.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CmsError> {
        Self::read(bytes).map(|(collision, _)| collision)
    }

    /// Reads a `.cms` and reports where each part lies.
    pub fn read(bytes: &[u8]) -> Result<(Self, CmsLayout), CmsError> {
        let mut r = Reader::new(bytes);
        let header = |cause| CmsError::Malformed { place: Place::Header, cause };
        let magic = r.take(4, "magic").map_err(header)?;
        if magic != CMS_MAGIC {
            return Err(CmsError::BadMagic { kind: BinaryKind::Cms, found: magic.to_vec() });
        }
        let version = r.i32("version").map_err(header)?;
        if version != CMS_VERSION {
            return Err(CmsError::UnknownVersion { kind: BinaryKind::Cms, found: version });
        }
        let count = r.count("vertex count").map_err(header)?;
        let mut layout = CmsLayout { positions: r.pos(), ..CmsLayout::default() };
        let positions = r.items(count, 12, "position", vec3_at).map_err(|(vertex, cause)| CmsError::Malformed {
            place: Place::Vertex { array: "position", vertex },
            cause,
        })?;
        layout.faces = r.pos();
        let faces = r.count("face count").map_err(header)?;
        let indices = r
            .items(faces.saturating_mul(3), 2, "vertex index", |b| u16::from_le_bytes([b[0], b[1]]))
            .map_err(|(i, cause)| CmsError::Malformed { place: Place::Face(i / 3), cause })?;
        layout.trailer = r.pos();
        Ok((Self { positions, indices, trailing: r.rest().to_vec() }, layout))
    }

    /// Writes the file; a value read from bytes writes the same bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        if !self.indices.len().is_multiple_of(3) {
            return Err(WriteProblem::PartialFace(self.indices.len()).at(Place::Face(self.indices.len() / 3)));
        }
        let mut w = Writer::with_capacity(16 + self.positions.len() * 12 + self.indices.len() * 2);
        w.bytes(&CMS_MAGIC);
        w.i32(CMS_VERSION);
        w.count(self.positions.len(), "vertices").map_err(|p| p.at(Place::Header))?;
        self.positions.iter().for_each(|&p| w.vec3(p));
        w.count(self.indices.len() / 3, "faces").map_err(|p| p.at(Place::Header))?;
        self.indices.iter().for_each(|&i| w.u16(i));
        w.bytes(&self.trailing);
        Ok(w.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle() -> Collision {
        Collision {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, f32::from_bits(0x7fc0_0001), 1.0)],
            indices: vec![0, 1, 2],
            trailing: vec![7],
        }
    }

    #[test]
    fn round_trips_byte_for_byte() {
        let bytes = triangle().to_bytes().unwrap();
        assert_eq!(bytes.len(), 8 + 4 + 36 + 4 + 6 + 1);
        let read = Collision::from_bytes(&bytes).unwrap();
        assert_eq!(read.to_bytes().unwrap(), bytes);
        assert_eq!(read.indices, [0, 1, 2]);
    }

    #[test]
    fn errors_say_where() {
        let bytes = triangle().to_bytes().unwrap();
        let err = Collision::from_bytes(&bytes[..30]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "position of vertex 1: position needs 12 bytes at byte 24, but the file ends at byte 30"
        );
        let err = Collision::from_bytes(&bytes[..52]).unwrap_err();
        assert_eq!(err.to_string(), "face 0: vertex index needs 2 bytes at byte 52, but the file ends at byte 52");
        let mut wrong = bytes.clone();
        wrong[4] = 0;
        assert!(matches!(Collision::from_bytes(&wrong), Err(CmsError::UnknownVersion { .. })));
        let mut huge = bytes[..8].to_vec();
        huge.extend(i32::MAX.to_le_bytes());
        assert!(matches!(
            Collision::from_bytes(&huge),
            Err(CmsError::Malformed { place: Place::Vertex { vertex: 0, .. }, .. })
        ));
    }
}
