//! The stand-in material of a mesh the client would not draw: with no
//! material script, or one with no material, the game skips the mesh, but
//! a mesh opened to be looked at (extracted without its resource folder,
//! or exported by a tool under another name than its script's) is drawn
//! anyway, in one neutral clay colour, and the stage says why the game
//! would not draw it ([`super::Workspace::stage_notices`]).

use crate::format::MaterialScript;

/// One clay material: a light warm grey, lit, drawn on both sides (a
/// mesh from another tool may wind its triangles either way).
const CLAY: &str =
    "material clay\n{\n\tdiffuse 0.76 0.7 0.63\n\ttechnique\n\t{\n\t\tpass\n\t\t{\n\t\t\tcull none\n\t\t}\n\t}\n}\n";

/// Why the client would not draw a mesh whose script is `script` (`None`
/// when none was read, with `error` saying why, if known); `None` when it
/// would.
pub(super) fn undrawn(script: Option<&MaterialScript>, error: Option<&str>) -> Option<String> {
    match (script, error) {
        (_, Some(error)) => Some(format!("material script: {error}")),
        (Some(script), None) if !script.materials.is_empty() => None,
        (Some(_), None) => Some("its material script has no material".to_owned()),
        (None, None) => Some("it has no material script".to_owned()),
    }
}

/// A script of clay materials, one for each of `submeshes` submeshes.
pub(super) fn clay_script(submeshes: usize) -> MaterialScript {
    MaterialScript::parse(CLAY.repeat(submeshes).as_bytes()).expect("the clay script is well formed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::{Faces, Surface};

    #[test]
    fn clay_has_a_lit_two_sided_untextured_material_for_each_submesh() {
        let script = clay_script(3);
        assert_eq!((script.materials.len(), script.warnings.len()), (3, 0));
        let surface = Surface::of(&script.materials[2]);
        assert_eq!((surface.faces, surface.unlit, surface.texture.is_some()), (Faces::Both, false, false));
        assert_eq!(surface.base_color, [0.76, 0.7, 0.63, 1.0]);
    }

    #[test]
    fn a_mesh_is_undrawn_without_a_script_or_a_material_in_it() {
        let empty = MaterialScript::parse(b"// nothing\n").unwrap();
        assert_eq!(undrawn(Some(&clay_script(1)), None), None);
        assert_eq!(undrawn(Some(&empty), None).as_deref(), Some("its material script has no material"));
        assert_eq!(undrawn(None, None).as_deref(), Some("it has no material script"));
        let missing = undrawn(None, Some("no material file named 'a.txt'"));
        assert_eq!(missing.as_deref(), Some("material script: no material file named 'a.txt'"));
    }
}
