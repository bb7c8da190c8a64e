//! Checks of a material script: what the client rejects, refuses or logs.

use super::{Finding, LineStarts, Rule};
use crate::format::MaterialScript;
use crate::format::material::MaterialError;

/// Checks a material script's bytes. Findings point at the start of the
/// line they are about and name it.
pub fn check_material(bytes: &[u8]) -> Vec<Finding> {
    let lines = LineStarts::new(bytes);
    let script = match MaterialScript::parse(bytes) {
        Ok(script) => script,
        Err(error) => return vec![Finding::new(Rule::Unreadable, lines.offset(error_line(&error)), error.to_string())],
    };
    let mut out: Vec<Finding> = script
        .warnings
        .iter()
        .map(|w| Finding::new(Rule::MaterialWarning, lines.offset(w.line), w.to_string()))
        .collect();
    if script.materials.is_empty() {
        out.push(Finding::new(
            Rule::NoMaterial,
            0,
            "the script has no material block: the client does not load the mesh (and stops building its model)",
        ));
    }
    out
}

fn error_line(error: &MaterialError) -> usize {
    match error {
        MaterialError::UnclosedBlock { line, .. } => *line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_material_and_warnings_carry_lines() {
        let findings = check_material(b"// nothing here\r\nambient 1 1 1\r\n");
        let rules: Vec<_> = findings.iter().map(|f| f.rule).collect();
        assert_eq!(rules, [Rule::MaterialWarning, Rule::NoMaterial]);
        assert_eq!(findings[0].offset, 17);
        assert!(findings[0].message.starts_with("line 2:"), "{}", findings[0].message);
        let unclosed = check_material(b"material A\n{\n technique\n {\n");
        assert_eq!(unclosed[0].rule, Rule::Unreadable);
        assert!(unclosed[0].message.starts_with("line 3:"), "{}", unclosed[0].message);
        assert_eq!(unclosed[0].offset, 13);
    }
}
