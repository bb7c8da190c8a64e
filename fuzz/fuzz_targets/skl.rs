//! Any bytes: reading an `.skl` and building its hierarchy never panics, and
//! whatever is accepted writes back the same bytes.
#![no_main]

use bevy_io3d::check::check_skl;
use bevy_io3d::format::Skeleton;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = check_skl(data);
    if let Ok(skeleton) = Skeleton::from_bytes(data) {
        let _ = skeleton.hierarchy();
        assert_eq!(skeleton.to_bytes().expect("a value read is writable"), data);
    }
});
