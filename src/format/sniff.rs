//! What a file is by its first four bytes, whatever its name says: the one
//! place the magics are compared. The client itself goes by the extension
//! and then refuses a wrong magic; tools that open any file go by this.

use super::dds::DDS_MAGIC;
use super::error::BinaryKind;

/// A file kind known by its magic. Text files (model configs, material
/// scripts) and `.gltf` JSON have none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Magic {
    /// `.ani`, `.skl`, `.msh` or `.cms`.
    Binary(BinaryKind),
    /// A `.dds` texture.
    Dds,
    /// A binary glTF (`.glb`).
    Glb,
}

/// Every binary kind, for looking one up by its magic.
const BINARY: [BinaryKind; 4] = [BinaryKind::Ani, BinaryKind::Skl, BinaryKind::Msh, BinaryKind::Cms];

/// The kind `bytes` start as, if they start as one.
pub fn sniff(bytes: &[u8]) -> Option<Magic> {
    let head: &[u8] = bytes.get(..4)?;
    if head == DDS_MAGIC {
        return Some(Magic::Dds);
    }
    if head == b"glTF" {
        return Some(Magic::Glb);
    }
    BINARY.into_iter().find(|kind| head == kind.magic()).map(Magic::Binary)
}

/// Whether `bytes` start as the binary `kind`.
pub fn is(bytes: &[u8], kind: BinaryKind) -> bool {
    sniff(bytes) == Some(Magic::Binary(kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_magic_alone_decides() {
        for kind in BINARY {
            assert_eq!(sniff(&[kind.magic().as_slice(), b"rest"].concat()), Some(Magic::Binary(kind)));
        }
        assert_eq!(sniff(b"DDS \x7c"), Some(Magic::Dds));
        assert_eq!(sniff(b"glTF\x02\0\0\0"), Some(Magic::Glb));
        assert_eq!(sniff(b"ANI"), None);
        assert_eq!(sniff(b"ani\0"), None);
        assert!(is(b"MSH\0", BinaryKind::Msh));
    }
}
