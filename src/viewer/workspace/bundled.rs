//! The bundled sample the viewer opens when no file is given.

use super::*;

/// The sample opened when no file is given: the Biped character of
/// `assets/resource` walking, with the other bundled clips beside it.
const BUNDLED_SKELETON: (&str, &[u8]) = ("biped.skl", include_bytes!("../../../assets/resource/skeleton/biped.skl"));
const BUNDLED_ANIMATIONS: [(&str, &[u8]); 3] = [
    ("biped_walk_4002.ani", include_bytes!("../../../assets/resource/animation/biped_walk_4002.ani")),
    ("biped_idle_4002.ani", include_bytes!("../../../assets/resource/animation/biped_idle_4002.ani")),
    ("biped_attack_4002.ani", include_bytes!("../../../assets/resource/animation/biped_attack_4002.ani")),
];
/// The bundled character's meshes: name, mesh and material script.
const BUNDLED_MESHES: [(&str, &[u8], &[u8]); 2] = [
    (
        "biped_body",
        include_bytes!("../../../assets/resource/mesh/biped_body.msh"),
        include_bytes!("../../../assets/resource/material/biped_body.txt"),
    ),
    (
        "biped_sword",
        include_bytes!("../../../assets/resource/mesh/biped_sword.msh"),
        include_bytes!("../../../assets/resource/material/biped_sword.txt"),
    ),
];
/// The texture the bundled scripts name.
const BUNDLED_TEXTURE: (&str, &[u8]) = ("biped.dds", include_bytes!("../../../assets/resource/texture/biped.dds"));

impl Workspace {
    /// Opens the bundled Biped skeleton and clips.
    pub fn open_bundled(&mut self, stores: &mut Stores) {
        let (name, bytes) = BUNDLED_SKELETON;
        self.add_file(Origin::Bundled(name), bytes.to_vec(), stores);
        for (name, bytes) in BUNDLED_ANIMATIONS {
            self.add_file(Origin::Bundled(name), bytes.to_vec(), stores);
        }
        for (name, mesh, script) in BUNDLED_MESHES {
            let script = MaterialScript::parse(script).map_err(|e| e.to_string());
            let source = Mesh::from_bytes(mesh).map_err(|e| e.to_string()).map(|mesh| MeshFiles {
                name: name.to_owned(),
                mesh,
                script: script.clone().ok(),
                textures: vec![(BUNDLED_TEXTURE.0.to_owned(), Ok(BUNDLED_TEXTURE.1.to_vec()))],
            });
            self.add_mesh(name, source, script.err(), stores);
        }
        self.current = 0;
        self.refresh(stores);
    }
}
