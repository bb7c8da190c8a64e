//! Sampling a game-sized clip (52 tracks, a key every 10 ms, 20 s, loaded
//! as a file loads it) as a player does each frame: every track a frame's
//! step on from the last, blended over the rest pose, alone and
//! crossfading with a second clip, for each form of stored rotation.
//!
//! Run: `cargo bench --no-default-features --bench sample`

use std::hint::black_box;

use bevy_io3d::anim::{BonePose, Clip, Hints, PoseBlend};
use bevy_io3d::format::AniVersion;
use criterion::{Criterion, criterion_group, criterion_main};

mod common;

/// A frame at 60 frames a second, in ms.
const FRAME_MS: f32 = 1000.0 / 60.0;
/// Frames sampled in one iteration.
const FRAMES: usize = 100;

fn sample(c: &mut Criterion) {
    let skeleton = common::game_skeleton();
    let rest = vec![BonePose::IDENTITY; skeleton.bones.len()];
    let bones: Vec<Option<usize>> = (0..skeleton.bones.len()).map(Some).collect();
    for version in AniVersion::ALL {
        let clip = |phase| Clip::new(&common::as_loaded(&common::long_clip(&skeleton, 20, phase), version));
        let (walk, run) = (clip(0.0), clip(1.0));
        let mut group = c.benchmark_group(format!("sample {version}, 52 tracks, {FRAMES} frames"));
        let mut blend = PoseBlend::default();
        let mut play = |clips: &[(&Clip, f32)], hints: &mut [Hints]| {
            for frame in 0..FRAMES {
                let t = 1000.0 + frame as f32 * FRAME_MS;
                blend.reset(&rest);
                for ((clip, weight), hints) in clips.iter().zip(hints.iter_mut()) {
                    blend.add_clip(clip, &bones, t, *weight, hints);
                }
                blend.lock();
                black_box(&blend);
            }
        };
        group.bench_function("one clip", |b| {
            let mut hints = [Hints::default()];
            b.iter(|| play(&[(&walk, 1.0)], &mut hints))
        });
        group.bench_function("crossfade", |b| {
            let mut hints = [Hints::default(), Hints::default()];
            b.iter(|| play(&[(&walk, 0.7), (&run, 0.3)], &mut hints))
        });
        group.finish();
    }
}

criterion_group!(benches, sample);
criterion_main!(benches);
