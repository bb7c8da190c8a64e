//! Any bytes: parsing a model config never panics.
#![no_main]

use bevy_io3d::format::ModelConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ModelConfig::parse(data);
});
