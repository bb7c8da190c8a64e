//! Checks of a `.dds` texture: what Direct3D 9's loader, and so the
//! client, makes of it.

use super::{Finding, Rule, check_trailing};
use crate::format::Dds;
use crate::format::dds::HEADER_LEN;

/// Checks a `.dds` file's bytes. A texture the client cannot load becomes
/// a 2 x 2 placeholder on its mesh (which still draws); a partial mip
/// chain is completed by the client.
pub fn check_dds(bytes: &[u8]) -> Vec<Finding> {
    let dds = match Dds::from_bytes(bytes) {
        Ok(dds) => dds,
        Err(error) => {
            let message = format!("{error}; the client draws its meshes with a 2 x 2 placeholder instead");
            return vec![Finding::new(Rule::Unreadable, error.offset(), message)];
        }
    };
    let mut out = Vec::new();
    let (stored, full) = (dds.levels.len(), dds.full_chain_len());
    if stored < full {
        out.push(Finding::new(
            Rule::PartialMipChain,
            28,
            format!(
                "holds {stored} of {full} mip levels; the client builds the other {} from the first",
                full - stored
            ),
        ));
    }
    let end = HEADER_LEN + dds.levels.iter().map(Vec::len).sum::<usize>();
    check_trailing(&mut out, end, bytes.get(end..).unwrap_or_default());
    out
}
