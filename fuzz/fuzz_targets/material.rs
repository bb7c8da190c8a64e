//! Any bytes: parsing and linting a material script never panics, and a
//! script writes back the bytes it was read from.
#![no_main]

use bevy_io3d::check::check_material;
use bevy_io3d::format::MaterialScript;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = check_material(data);
    if let Ok(script) = MaterialScript::parse(data) {
        assert_eq!(script.to_bytes(), data);
    }
});
