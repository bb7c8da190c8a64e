//! Where the files a config or a script names are, as asset paths: the
//! client's folder rules ([`crate::resource::lookup`]) on Bevy's asset
//! sources.

use bevy::asset::AssetPath;

use crate::resource::{ResourceKind, lookup};

/// The asset path of `name`, a file of `kind` named by the file at `from`,
/// which is of kind `own`: by [`lookup`], in the resource root's folder
/// for `kind` (spelled in lower case) when `from` lies in its kind's
/// folder, otherwise beside `from`, in `from`'s asset source. Unlike the
/// client, which reads from pack files and Windows disks, an asset source
/// finds names only in the case its file system matches (the plugin's
/// game files source matches them without case).
pub fn linked_path(from: &AssetPath, own: ResourceKind, kind: ResourceKind, name: &str) -> AssetPath<'static> {
    let path = lookup(from.path(), own, kind, name).path();
    AssetPath::from_path_buf(path).with_source(from.source().clone_owned())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::resource::Character;

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

    /// The plugin's asset paths name the files the library's `Character`
    /// finds on disk (the same but for case), in a resource folder and for
    /// loose files beside folders named as kinds (which the library once
    /// took for a resource folder, and the plugin did not).
    #[test]
    fn asset_paths_name_the_files_the_library_finds() {
        let dir = tempfile::tempdir().unwrap();
        let config_text =
            "#MODEL_CFG\r\n#SKELETON\r\nhero.skl\r\n#MESH_LIST\r\narm\r\n#MESH_LIST_END\r\n#MODEL_END\r\n";
        let layouts: [(&str, &[&str]); 2] = [
            (
                "game/Resource/Model/AniModel/hero.txt",
                &["game/Resource/Skeleton/hero.skl", "game/Resource/Mesh/arm.msh", "game/Resource/Material/arm.txt"],
            ),
            (
                "chars/hero.txt",
                &["chars/hero.skl", "chars/arm.msh", "chars/arm.txt", "chars/mesh/arm.msh", "chars/skeleton/hero.skl"],
            ),
        ];
        for (config, files) in layouts {
            for file in files.iter().chain([&config]) {
                let path = dir.path().join(file);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, if *file == config { config_text } else { "" }).unwrap();
            }
            let character = Character::load(&crate::resource::Disk, &dir.path().join(config)).unwrap();
            let found = |path: &Option<std::path::PathBuf>| {
                let path = path.as_ref().unwrap_or_else(|| panic!("{config}: not found"));
                path.strip_prefix(dir.path()).unwrap().to_string_lossy().to_ascii_lowercase()
            };
            let asset = |path: AssetPath| path.path().to_string_lossy().to_ascii_lowercase();
            let config_asset = AssetPath::parse(config);
            let skeleton = linked_path(&config_asset, ResourceKind::Model, ResourceKind::Skeleton, "hero.skl");
            assert_eq!(asset(skeleton), found(&character.skeleton.as_ref().unwrap().link.path), "{config}");
            let mesh = linked_path(&config_asset, ResourceKind::Model, ResourceKind::Mesh, "arm.msh");
            let script = linked_path(&mesh, ResourceKind::Mesh, ResourceKind::Material, "arm.txt");
            let part = &character.meshes[0];
            assert_eq!(asset(mesh), found(&part.mesh.link.path), "{config}");
            assert_eq!(asset(script), found(&part.material.link.path), "{config}");
        }
    }
}
