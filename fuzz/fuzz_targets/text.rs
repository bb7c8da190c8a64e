//! Any text: the JSON form (`io3d build`) and bone maps (`io3d retarget
//! --map`) never panic. A document that builds and writes reads back as the
//! same bytes; a map that parses prints as text that parses to the same map.
#![no_main]

use bevy_io3d::anim::BoneMap;
use bevy_io3d::format::{Animation, Skeleton};
use bevy_io3d::json::{Document, from_json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(document) = from_json(text)
        && let Ok(bytes) = document.to_bytes()
    {
        let again = match document {
            Document::Ani(_) => Animation::from_bytes(&bytes).expect("written bytes read back").to_bytes(),
            Document::Skl(_) => Skeleton::from_bytes(&bytes).expect("written bytes read back").to_bytes(),
        };
        assert_eq!(again.expect("writable"), bytes);
    }
    if let Ok(map) = BoneMap::parse(text) {
        assert_eq!(BoneMap::parse(&map.to_text()).expect("a printed map parses"), map);
    }
});
