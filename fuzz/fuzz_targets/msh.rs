//! Any bytes: reading a `.msh` or `.cms`, linting it and skinning it on the
//! Biped never panics, and whatever is accepted writes back the same bytes.
#![no_main]

use bevy_io3d::anim::{Rig, biped, skin_on};
use bevy_io3d::check::{check_cms, check_msh};
use bevy_io3d::format::{Collision, Mesh};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let skeleton = biped::skeleton();
    let _ = check_msh(data, Some(&skeleton));
    let _ = check_cms(data);
    if let Ok(mesh) = Mesh::from_bytes(data) {
        assert_eq!(mesh.to_bytes().expect("a value read is writable"), data);
        let rig = Rig::new(&skeleton).expect("the Biped is one tree");
        let _ = skin_on(&mesh, &rig, &rig.to_world(&rig.rest));
    }
    if let Ok(collision) = Collision::from_bytes(data) {
        assert_eq!(collision.to_bytes().expect("a value read is writable"), data);
    }
});
