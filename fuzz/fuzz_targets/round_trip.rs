//! Parse, write, parse again: equal bytes, and the JSON form builds the same
//! bytes too. Also samples the accepted animation at a few times.
#![no_main]

use bevy_io3d::anim::sample_keys;
use bevy_io3d::format::Animation;
use bevy_io3d::json::{Document, from_json, to_json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(animation) = Animation::from_bytes(data) else { return };
    let bytes = animation.to_bytes().expect("a value read is writable");
    let again = Animation::from_bytes(&bytes).expect("written bytes read back");
    assert_eq!(again.to_bytes().expect("writable"), bytes);
    let built = from_json(&to_json(&Document::Ani(again))).expect("a dump builds");
    assert_eq!(built.to_bytes().expect("writable"), bytes);
    for track in &animation.tracks {
        for t in [-1.0, 0.0, 33.3, animation.total_ms as f32, f32::NAN] {
            let _ = sample_keys(&track.keys, t);
        }
    }
});
