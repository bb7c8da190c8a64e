//! Checks of an `.skl`.

use super::{Finding, Rule, UNIT_TOLERANCE, check_string, check_trailing};
use crate::format::Skeleton;

/// Checks an `.skl` file's bytes: a hierarchy the client can build, names
/// it reads as written, finite unit rotations.
pub fn check_skl(bytes: &[u8]) -> Vec<Finding> {
    let (skeleton, layout) = match Skeleton::read(bytes, true) {
        Ok(read) => read,
        Err(error) => return vec![Finding::new(Rule::Unreadable, error.offset(), error.to_string())],
    };
    let mut out = Vec::new();
    for (i, bone) in skeleton.bones.iter().enumerate() {
        let offset = layout.bones[i];
        let place = format!("bone {i} '{}'", bone.name);
        check_string(&mut out, offset, &format!("{place} name"), &bone.name);
        check_string(&mut out, offset, &format!("{place} parent name"), &bone.parent);
        for child in &bone.children {
            check_string(&mut out, offset, &format!("{place} child name"), child);
        }
        let values = [bone.position.to_array().as_slice(), &bone.rotation.to_array(), &bone.object_tm].concat();
        if values.iter().any(|v| !v.is_finite()) {
            out.push(Finding::new(Rule::NotFinite, offset, format!("{place}: rest pose holds NaN or infinity")));
        } else if (bone.rotation.length() - 1.0).abs() > UNIT_TOLERANCE {
            out.push(Finding::new(
                Rule::NotUnit,
                offset,
                format!("{place}: rest rotation has length {:.4}, far from 1", bone.rotation.length()),
            ));
        }
    }
    check_string(&mut out, layout.trailer, "linked skeleton name", &skeleton.linked_skeleton);
    if let Err(error) = skeleton.hierarchy() {
        for (problem, message) in error.problems.iter().zip(error.descriptions) {
            let offset = problem.bone().map_or(8, |b| layout.bones[b]);
            out.push(Finding::new(Rule::Hierarchy, offset, message));
        }
    }
    check_trailing(&mut out, layout.trailing, &skeleton.trailing);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_biped_is_clean_and_a_broken_tree_is_not() {
        let mut skeleton = crate::anim::biped::skeleton();
        assert_eq!(check_skl(&skeleton.to_bytes().unwrap()), []);
        skeleton.bones[3].parent = "Bip01 Head".into();
        let findings = check_skl(&skeleton.to_bytes().unwrap());
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].rule, Rule::Hierarchy);
        assert!(findings[0].message.contains("'Bip01 L Thigh' names 'Bip01 Head' as its parent"), "{}", findings[0]);
    }
}
