//! File names for what a glTF calls anything: the game's folders hold
//! plain names, matched without case.

/// `name` as a file stem: letters, digits, `_` and `-` kept, anything
/// else `_`; `mesh` for a name with nothing left.
pub fn file_stem(name: &str) -> String {
    let stem: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    let stem = stem.trim_matches('_');
    if stem.is_empty() { "mesh".to_owned() } else { stem.to_owned() }
}

/// A file name's stem as [`file_stem`] makes it: the extension of a
/// name that has one (`biped.dds`, `walk.ani`) left off.
pub fn name_stem(name: &str) -> String {
    let path = std::path::Path::new(name);
    let has_extension = path.extension().is_some_and(|e| (1..=4).contains(&e.len()));
    file_stem(if has_extension { path.file_stem().and_then(|s| s.to_str()).unwrap_or(name) } else { name })
}

/// `stem`, or `stem_2`, `stem_3`, ... where `taken` has it (without case).
pub fn unused(stem: &str, taken: &[String]) -> String {
    let used = |name: &str| taken.iter().any(|t| t.eq_ignore_ascii_case(name));
    (1..).map(|n| if n == 1 { stem.to_owned() } else { format!("{stem}_{n}") }).find(|n| !used(n)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_plain_and_unique() {
        assert_eq!(file_stem("Cube.001"), "Cube_001");
        assert_eq!(file_stem("검"), "mesh");
        assert_eq!(unused("Cube", &["cube".into(), "Cube_2".into()]), "Cube_3");
        assert_eq!(name_stem("biped.dds"), "biped");
        assert_eq!(name_stem("Cube.001"), "Cube");
    }
}
