//! Reading each `.ani` version and a skinned `.msh`, beside a plain copy of
//! the same bytes in the same run: the ratio says how close parsing gets to
//! memory speed.
//!
//! Run: `cargo bench --no-default-features --bench read`

use std::hint::black_box;

use bevy_io3d::format::msh::{ANIMATED_MESH, Submesh, VertexMask, Weights};
use bevy_io3d::format::{AniVersion, Animation, Mesh};
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime};
use glam::{Vec2, Vec3};

/// Times a plain copy of `bytes`, the baseline the others are read against.
fn copy_baseline(group: &mut BenchmarkGroup<WallTime>, bytes: &[u8]) {
    let mut copy = Vec::with_capacity(bytes.len());
    group.bench_function("copy (baseline)", |b| {
        b.iter(|| {
            copy.clear();
            copy.extend_from_slice(black_box(bytes));
            black_box(&copy);
        })
    });
}

fn read_ani(c: &mut Criterion) {
    for version in AniVersion::ALL {
        let path = format!("{}/assets/biped_walk_{version}.ani", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).expect("the bundled samples are in assets/");
        let mut group = c.benchmark_group(format!("ani {version}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        copy_baseline(&mut group, &bytes);
        group.bench_function("read", |b| b.iter(|| Animation::from_bytes(black_box(&bytes)).expect("a valid file")));
        let animation = Animation::from_bytes(&bytes).expect("a valid file");
        group.bench_function("write", |b| b.iter(|| black_box(&animation).to_bytes().expect("writable")));
        group.finish();
    }
}

/// A character-sized skinned mesh: a 100 x 100 grid of vertices with
/// normals, UVs and two weights each (about 760 KB).
fn grid_mesh() -> Mesh {
    let side = 100;
    let n = side * side;
    let at = |v: usize| Vec3::new((v % side) as f32, (v / side) as f32, 0.0);
    let mut indices = Vec::new();
    for y in 0..side - 1 {
        for x in 0..side - 1 {
            let v = (y * side + x) as u16;
            indices.extend([v, v + 1, v + side as u16, v + 1, v + 1 + side as u16, v + side as u16]);
        }
    }
    let faces = (indices.len() / 3) as i32;
    Mesh {
        version: 2002,
        mesh_type: ANIMATED_MESH,
        mask: VertexMask(
            VertexMask::POSITION | VertexMask::NORMAL | VertexMask::UV0 | VertexMask::WEIGHTS | VertexMask::INDICES,
        ),
        submeshes: vec![Submesh { min_index: 0, vertex_count: n as i32, index_start: 0, face_count: faces }],
        vertex_count: n,
        positions: (0..n).map(at).collect(),
        normals: vec![Vec3::Z; n],
        uv0: (0..n).map(|v| at(v).truncate() / side as f32).collect::<Vec<Vec2>>(),
        weights: Some(Weights {
            names: vec!["Bip01 Spine".into(), "Bip01 Spine1".into()],
            weights: (0..n).map(|v| [1.0 - at(v).y / side as f32, at(v).y / side as f32, 0.0, 0.0]).collect(),
            bones: vec![[0.0, 1.0, 0.0, 0.0]; n],
        }),
        indices,
        ..Mesh::default()
    }
}

fn read_msh(c: &mut Criterion) {
    let mesh = grid_mesh();
    let bytes = mesh.to_bytes().expect("writable");
    let mut group = c.benchmark_group("msh 2002 skinned");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    copy_baseline(&mut group, &bytes);
    group.bench_function("read", |b| b.iter(|| Mesh::from_bytes(black_box(&bytes)).expect("a valid file")));
    group.bench_function("write", |b| b.iter(|| black_box(&mesh).to_bytes().expect("writable")));
    group.finish();
}

criterion_group!(benches, read_ani, read_msh);
criterion_main!(benches);
