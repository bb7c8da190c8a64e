//! Reading each `.ani` version, beside a plain copy of the same bytes in
//! the same run: the ratio says how close parsing gets to memory speed.
//!
//! Run: `cargo bench --no-default-features --bench read`

use std::hint::black_box;

use bevy_io3d::format::{AniVersion, Animation};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn read(c: &mut Criterion) {
    for version in AniVersion::ALL {
        let path = format!("{}/assets/biped_walk_{version}.ani", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).expect("the bundled samples are in assets/");
        let mut group = c.benchmark_group(format!("ani {version}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        let mut copy = Vec::with_capacity(bytes.len());
        group.bench_function("copy (baseline)", |b| {
            b.iter(|| {
                copy.clear();
                copy.extend_from_slice(black_box(&bytes));
                black_box(&copy);
            })
        });
        group.bench_function("read", |b| b.iter(|| Animation::from_bytes(black_box(&bytes)).expect("a valid file")));
        let animation = Animation::from_bytes(&bytes).expect("a valid file");
        group.bench_function("write", |b| b.iter(|| black_box(&animation).to_bytes().expect("writable")));
        group.finish();
    }
}

criterion_group!(benches, read);
criterion_main!(benches);
