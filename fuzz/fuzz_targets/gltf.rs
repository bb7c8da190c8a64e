//! Any bytes as a glTF (binary or JSON): reading never panics, and every
//! animation it holds imports onto the Biped (or is refused with an error)
//! without a panic, with and without key reduction.
#![no_main]

use bevy_io3d::anim::biped;
use bevy_io3d::anim::reduce::Tolerance;
use bevy_io3d::gltf::{GltfDocument, ImportOptions, import};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = GltfDocument::from_slice(data, None) else { return };
    let skeleton = biped::skeleton();
    for name in file.animation_names() {
        for tolerance in [None, Some(Tolerance { degrees: 0.5, units: 0.05 })] {
            let options = ImportOptions { animation: Some(name.clone()), tolerance, ..Default::default() };
            if let Ok(imported) = import(&file, &skeleton, &options) {
                let _ = imported.animation.to_bytes();
            }
        }
    }
});
