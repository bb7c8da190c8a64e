//! A binary glTF under construction: the `gltf-json` document and its one
//! binary buffer, with helpers that append typed data and return the
//! accessor or image that points at it.

use std::borrow::Cow;

use ::gltf::binary::{Glb, Header};
use ::gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use ::gltf::json::buffer::{Target, View};
use ::gltf::json::validation::{Checked::Valid, USize64};
use ::gltf::json::{self, Accessor, Buffer, Index, Root};

use super::GltfError;

/// A document and its binary chunk.
pub(super) struct GlbBuilder {
    pub root: Root,
    bin: Vec<u8>,
}

/// Plain values an accessor holds.
pub(super) trait Element: Copy {
    /// The accessor's element type and component type.
    const TYPE: (Type, ComponentType);
    /// The little-endian bytes of one element.
    fn write(self, out: &mut Vec<u8>);
}

impl Element for f32 {
    const TYPE: (Type, ComponentType) = (Type::Scalar, ComponentType::F32);
    fn write(self, out: &mut Vec<u8>) {
        out.extend(self.to_le_bytes());
    }
}

impl Element for u16 {
    const TYPE: (Type, ComponentType) = (Type::Scalar, ComponentType::U16);
    fn write(self, out: &mut Vec<u8>) {
        out.extend(self.to_le_bytes());
    }
}

/// Arrays of scalars: glTF's vectors and matrices.
macro_rules! array_element {
    ($scalar:ty, $n:literal, $type:expr) => {
        impl Element for [$scalar; $n] {
            const TYPE: (Type, ComponentType) = ($type, <$scalar as Element>::TYPE.1);
            fn write(self, out: &mut Vec<u8>) {
                self.into_iter().for_each(|x| x.write(out));
            }
        }
    };
}
array_element!(f32, 2, Type::Vec2);
array_element!(f32, 3, Type::Vec3);
array_element!(f32, 4, Type::Vec4);
array_element!(f32, 16, Type::Mat4);
array_element!(u16, 4, Type::Vec4);

impl GlbBuilder {
    pub fn new() -> Self {
        let mut root = Root::default();
        root.asset.generator = Some(format!("bevy_io3d {}", env!("CARGO_PKG_VERSION")));
        Self { root, bin: Vec::new() }
    }

    /// Appends bytes as a buffer view, aligned to 4 bytes.
    fn view(&mut self, bytes: &[u8], target: Option<Target>) -> Index<View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    /// An accessor over `values`, in a view of its own. `bounds` adds the
    /// per-component min and max that positions and animation inputs need.
    pub fn accessor<T: Element>(&mut self, values: &[T], target: Option<Target>, bounds: bool) -> Index<Accessor> {
        let mut bytes = Vec::with_capacity(values.len() * 16);
        values.iter().for_each(|v| v.write(&mut bytes));
        let (min, max) = if bounds { component_bounds(&bytes, values.len()) } else { (None, None) };
        let view = self.view(&bytes, target);
        let (type_, component) = T::TYPE;
        self.root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(values.len()),
            component_type: Valid(GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// Lists an extension the document uses, once.
    pub fn use_extension(&mut self, name: &str) {
        if !self.root.extensions_used.iter().any(|used| used == name) {
            self.root.extensions_used.push(name.to_owned());
        }
    }

    /// A PNG image stored in the binary chunk.
    pub fn png_image(&mut self, name: &str, png: &[u8]) -> Index<json::Image> {
        let view = self.view(png, None);
        self.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: Some(name.to_owned()),
            uri: None,
            extensions: None,
            extras: Default::default(),
        })
    }

    /// The finished `.glb`.
    pub fn finish(mut self) -> Result<Vec<u8>, GltfError> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        if !self.bin.is_empty() {
            self.root.push(Buffer {
                byte_length: USize64::from(self.bin.len()),
                name: None,
                uri: None,
                extensions: None,
                extras: Default::default(),
            });
        }
        let json = json::serialize::to_vec(&self.root).map_err(|e| GltfError::Write(e.to_string()))?;
        // Headers and padding: 12 + 8 + 8 + 3.
        if json.len() + self.bin.len() + 31 > u32::MAX as usize {
            return Err(GltfError::Write("the file would pass binary glTF's 4 GiB limit".into()));
        }
        let glb = Glb {
            // The length is worked out by `to_vec`.
            header: Header { magic: *b"glTF", version: 2, length: 0 },
            json: Cow::Owned(json),
            bin: (!self.bin.is_empty()).then_some(Cow::Owned(self.bin)),
        };
        glb.to_vec().map_err(|e| GltfError::Write(e.to_string()))
    }
}

/// Per-component min and max of f32 data (the only data given bounds).
fn component_bounds(bytes: &[u8], count: usize) -> (Option<json::Value>, Option<json::Value>) {
    let floats: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let width = floats.len().checked_div(count).unwrap_or(0);
    if width == 0 {
        return (None, None);
    }
    let fold = |pick: fn(f32, f32) -> f32| {
        let values: Vec<f32> =
            (0..width).map(|c| floats.iter().skip(c).step_by(width).copied().reduce(pick).unwrap_or(0.0)).collect();
        Some(json::Value::from(values))
    };
    (fold(f32::min), fold(f32::max))
}
