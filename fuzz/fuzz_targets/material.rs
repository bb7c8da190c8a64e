//! Any bytes: parsing and linting a material script never panics, and a
//! script writes back the bytes it was read from. Reading them as an `.ant`
//! event sidecar never panics, and events that can be written read back
//! the same.
#![no_main]

use bevy_io3d::check::check_material;
use bevy_io3d::format::{EventSidecar, MaterialScript, ant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = check_material(data);
    if let Ok(script) = MaterialScript::parse(data) {
        assert_eq!(script.to_bytes(), data);
    }
    let sidecar = EventSidecar::read(data);
    if let Ok(written) = ant::write(&sidecar.events, 1) {
        let again = EventSidecar::read(&written).events;
        let same = again.len() == sidecar.events.len()
            && again.iter().zip(&sidecar.events).all(|(a, b)| {
                a.kind == b.kind && a.sub_info == b.sub_info && a.time_ms.to_bits() == b.time_ms.to_bits()
            });
        assert!(same, "{again:?} vs {:?}", sidecar.events);
    }
});
