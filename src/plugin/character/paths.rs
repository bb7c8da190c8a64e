//! Where the files a config or a script names are, as asset paths: the
//! client's folder rules on Bevy's asset sources.

use std::path::Path;

use bevy::asset::AssetPath;

use crate::resource::ResourceKind;

/// The asset path of `name`, a file of `kind` named by the file at `from`,
/// which is of kind `own`. When `from` lies in a folder named as its kind's
/// (`mesh`, `material`, `model`, any case), that folder's parent is the
/// resource root and `name` is in the root's folder for `kind`, spelled in
/// lower case; otherwise `name` is beside `from`. Backslashes in names are
/// folder separators, as on the client's Windows disks. Unlike the client,
/// which reads from pack files and Windows disks, the asset source finds
/// names only in the case its file system matches.
pub fn linked_path(from: &AssetPath, own: ResourceKind, kind: ResourceKind, name: &str) -> AssetPath<'static> {
    let name = name.replace('\\', "/");
    let path = from.path();
    let is_own =
        |dir: &&Path| dir.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case(own.folder()));
    let dir = match path.ancestors().skip(1).find(is_own).and_then(Path::parent) {
        Some(root) => root.join(kind.folder()),
        None => path.parent().unwrap_or(Path::new("")).to_path_buf(),
    };
    AssetPath::from_path_buf(dir.join(name)).with_source(from.source().clone_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_layouts_and_loose_files() {
        let config = AssetPath::parse("game/resource/Model/animodel/hero.txt");
        let mesh = linked_path(&config, ResourceKind::Model, ResourceKind::Mesh, "weapons\\sword.msh");
        assert_eq!(mesh.path(), Path::new("game/resource/mesh/weapons/sword.msh"));
        let loose = AssetPath::parse("chars/hero.txt");
        let skeleton = linked_path(&loose, ResourceKind::Model, ResourceKind::Skeleton, "hero.skl");
        assert_eq!(skeleton.path(), Path::new("chars/hero.skl"));
        let script = AssetPath::parse("remote://resource/material/body.txt");
        let texture = linked_path(&script, ResourceKind::Material, ResourceKind::Texture, "body.dds");
        assert_eq!(texture.to_string(), "remote://resource/texture/body.dds");
    }
}
