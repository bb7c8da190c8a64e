//! `io3d info`: a human summary of each file.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use bevy_io3d::format::{Animation, ModelConfig, Skeleton};
use bevy_io3d::json::Document;

use crate::load::{self, Loaded};

pub fn run(files: &[std::path::PathBuf]) -> Result<ExitCode> {
    for (i, path) in files.iter().enumerate() {
        if i > 0 {
            println!();
        }
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        match load::any(path)? {
            Loaded::Document(Document::Ani(a)) => print_ani(path, &a, size),
            Loaded::Document(Document::Skl(s)) => print_skl(path, &s, size),
            Loaded::Config(c) => print_config(path, &c),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_ani(path: &Path, a: &Animation, size: u64) {
    println!("{}: animation, version {}", path.display(), a.version);
    println!("  rotations   {}", a.version.precision());
    println!("  total time  {} ms", a.total_ms);
    println!("  events      {}", a.events.len());
    for e in a.events_by_time() {
        println!("    {:>8} ms  {}  {}", e.time_ms, e.kind, e.sub_info);
    }
    let keys = a.key_count();
    let per_track = if a.tracks.is_empty() { 0.0 } else { keys as f32 / a.tracks.len() as f32 };
    println!("  tracks      {} ({} keys, {per_track:.1} a track)", a.tracks.len(), keys);
    println!(
        "  size        {size} bytes ({} in keys, {} bytes a key)",
        keys * a.version.key_size(),
        a.version.key_size()
    );
    let memory = a.memory_size();
    println!("  in memory   {memory} bytes ({:.1} times the file)", memory as f64 / size.max(1) as f64);
    if !a.trailing.is_empty() {
        println!("  trailing    {} bytes after the last track", a.trailing.len());
    }
}

fn print_skl(path: &Path, s: &Skeleton, size: u64) {
    println!("{}: skeleton", path.display());
    println!("  bones       {}", s.bones.len());
    if let Some(root) = s.bones.first() {
        println!("  root        {}", root.name);
    }
    match s.hierarchy() {
        Ok(h) => {
            let depth = |mut b: usize| std::iter::from_fn(|| h.parents[b].inspect(|&p| b = p)).count();
            println!("  depth       {}", (0..s.bones.len()).map(depth).max().unwrap_or(0));
        }
        Err(e) => println!("  hierarchy   {e}"),
    }
    if !s.linked_skeleton.is_empty() {
        println!("  linked to   {}", s.linked_skeleton);
    }
    println!("  size        {size} bytes");
}

fn print_config(path: &Path, c: &ModelConfig) {
    println!("{}: model config", path.display());
    println!("  skeleton    {}", c.skeleton.as_deref().unwrap_or("(none)"));
    println!("  animations  {}", c.animations.len());
    for a in &c.animations {
        println!("    {a}");
    }
    println!("  meshes      {}", c.meshes.join(", "));
}
