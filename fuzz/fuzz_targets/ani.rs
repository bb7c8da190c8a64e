//! Any bytes: reading an `.ani` (strict and lenient, through the lint) never
//! panics, and whatever is accepted writes back the same bytes.
#![no_main]

use bevy_io3d::check::check_ani;
use bevy_io3d::format::Animation;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = check_ani(data, None);
    if let Ok(animation) = Animation::from_bytes(data) {
        assert_eq!(animation.to_bytes().expect("a value read is writable"), data);
    }
});
