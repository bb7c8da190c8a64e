//! `io3d info`: a human summary of each file.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use bevy_io3d::format::msh::{VertexArray, VertexMask};
use bevy_io3d::format::{Animation, Collision, Dds, EventKind, MaterialScript, Mesh, ModelConfig, Skeleton};
use bevy_io3d::gltf::{self, GltfDocument, SourceAnimation};
use bevy_io3d::json::Document;
use bevy_io3d::resource::{self, Disk};

use crate::load::{self, Loaded};

/// Summarises every file; one that cannot be read is reported and the rest
/// are still summarised (the exit status says that one failed).
pub fn run(files: &[std::path::PathBuf]) -> Result<ExitCode> {
    let mut failed = false;
    for (i, path) in files.iter().enumerate() {
        if i > 0 {
            println!();
        }
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if is_gltf(path) {
            if let Err(error) = print_gltf(path) {
                eprintln!("io3d: {error:#}");
                failed = true;
            }
            continue;
        }
        match load::any(path) {
            Ok(Loaded::Document(Document::Ani(a))) => print_ani(path, &a, size),
            Ok(Loaded::Document(Document::Skl(s))) => print_skl(path, &s, size),
            Ok(Loaded::Document(Document::Msh(m))) => print_msh(path, &m, size),
            Ok(Loaded::Document(Document::Cms(c))) => print_cms(path, &c, size),
            Ok(Loaded::Document(Document::Material(m))) => print_material(path, &m),
            Ok(Loaded::Config(c)) => print_config(path, &c),
            Ok(Loaded::Texture(t)) => print_dds(path, &t, size),
            Err(error) => {
                eprintln!("io3d: {error:#}");
                failed = true;
            }
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// A glTF by [`gltf::is_gltf`], from the file's first four bytes.
fn is_gltf(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0; 4];
    let read = std::fs::File::open(path).and_then(|mut file| file.read_exact(&mut magic)).map_or(0, |()| 4);
    gltf::is_gltf(path, &magic[..read])
}

/// What `io3d import` would see in a glTF: its nodes and, per animation,
/// the nodes it moves, its length and what its `io3d` extras hold.
fn print_gltf(path: &Path) -> Result<()> {
    let file = GltfDocument::open(path).with_context(|| path.display().to_string())?;
    let document = &file.document;
    println!(
        "{}: glTF 2.0, {} nodes, {} skins, {} meshes, {} animations",
        path.display(),
        document.nodes().len(),
        document.skins().len(),
        document.meshes().len(),
        document.animations().len()
    );
    for animation in document.animations() {
        let source = SourceAnimation::read(&file, animation.clone()).with_context(|| path.display().to_string())?;
        let mut moved: Vec<usize> = animation.channels().map(|c| c.target().node().index()).collect();
        moved.sort_unstable();
        moved.dedup();
        let recorded = match &source.extras {
            Some(extras) => format!(
                ", from version {} with {} events",
                extras.version.map_or_else(|| "?".into(), |v| v.to_string()),
                extras.events.len()
            ),
            None => String::new(),
        };
        println!("  '{}': {} nodes moved, {:.0} ms{recorded}", source.name, moved.len(), source.end() * 1000.0);
    }
    Ok(())
}

fn print_ani(path: &Path, a: &Animation, size: u64) {
    println!("{}: animation, version {}", path.display(), a.version);
    println!("  rotations   {}", a.version.precision());
    println!("  total time  {} ms", a.total_ms);
    println!("  events      {}", a.events.len());
    if let Some((ant, sidecar)) = resource::sidecar(&Disk, path) {
        println!("  sidecar     {} replaces them in the game: {} events", ant.display(), sidecar.events.len());
        for (line, warning) in &sidecar.warnings {
            println!("    line {line}: {warning}");
        }
    }
    for e in a.events_by_time() {
        let kind = EventKind::of(&e.kind);
        let note = if kind == EventKind::Other { "  (a type the client and game do not handle)" } else { "" };
        println!("    {:>8} ms  {}  {}{note}", e.time_ms, e.kind, e.sub_info);
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
    let compiled = bevy_io3d::anim::Clip::new(a).memory_size();
    println!("  to play     {compiled} bytes ({:.1} times the file)", compiled as f64 / size.max(1) as f64);
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
    if let Some(collision) = &c.collision_mesh {
        println!("  collision   {collision}");
    }
}

fn print_msh(path: &Path, m: &Mesh, size: u64) {
    let kind = match m.mesh_type {
        0 => "static",
        1 => "animated (skinned)",
        2 => "lightmap",
        3 => "billboard",
        4 => "normal billboard",
        5 => "animated effect",
        6 => "static vertex colour",
        _ => "unknown type",
    };
    println!("{}: mesh, version {}, {kind} (type {})", path.display(), m.version, m.mesh_type);
    let arrays: Vec<&str> = VertexArray::ALL.iter().filter(|a| m.mask.has(a.bit())).map(|a| a.name()).collect();
    let indices = if m.mask.has(VertexMask::INDICES) { ", indices bit" } else { "" };
    println!("  mask        {:#06x}: {}{indices}", m.mask.0, arrays.join(", "));
    println!("  vertices    {}", m.vertex_count);
    println!("  faces       {} in {} submeshes", m.face_count(), m.submeshes.len());
    for (i, s) in m.submeshes.iter().enumerate() {
        println!(
            "    {i}: {} faces from index {}, vertices {} to {}",
            s.face_count,
            s.index_start,
            s.min_index,
            i64::from(s.min_index) + i64::from(s.vertex_count)
        );
    }
    if let Some(w) = &m.weights {
        let palette = w.palette();
        let names: Vec<String> = palette.iter().map(|n| n.to_text()).collect();
        println!("  bones       {} ({})", palette.len(), names.join(", "));
        let most = (0..w.weights.len()).map(|v| w.influences(v).count()).max().unwrap_or(0);
        println!("  weights     up to {most} a vertex");
    }
    for cp in &m.control_points {
        println!("  point       {} on {} at {}", cp.kind, cp.bone, cp.point);
    }
    println!("  box         {} to {}, radius {}", m.bounds.min, m.bounds.max, m.bounds.radius);
    println!("  size        {size} bytes");
    if !m.trailing.is_empty() {
        println!("  trailing    {} bytes after the data", m.trailing.len());
    }
}

fn print_cms(path: &Path, c: &Collision, size: u64) {
    println!("{}: collision mesh", path.display());
    println!("  vertices    {}", c.positions.len());
    println!("  faces       {}", c.indices.len() / 3);
    println!("  size        {size} bytes");
}

/// A texture's format, size and mip chain, and what the client's loader
/// makes of it.
fn print_dds(path: &Path, dds: &Dds, size: u64) {
    let (stored, full) = (dds.levels.len(), dds.full_chain_len());
    let (last_w, last_h) = dds.level_size(stored.saturating_sub(1));
    println!("{}: texture", path.display());
    println!("  format      {}", dds.format_name());
    println!("  size        {} x {}", dds.width, dds.height);
    println!("  mip levels  {stored} of {full} ({} x {} down to {last_w} x {last_h})", dds.width, dds.height);
    println!("  file        {size} bytes");
    let chain = if stored < full {
        format!("builds the other {} mip levels from the first", full - stored)
    } else {
        "uses the file's mip chain as it is".into()
    };
    println!("  the client  {chain}");
}

fn print_material(path: &Path, script: &MaterialScript) {
    println!("{}: material script", path.display());
    println!("  materials   {}", script.materials.len());
    for (i, m) in script.materials.iter().enumerate() {
        println!("    {i}: '{}' (line {}), {} passes", m.name, m.line, m.passes().len());
        for pass in m.passes() {
            let textures: Vec<String> = pass
                .texture_units
                .iter()
                .map(|u| match (&u.texture, u.light_texture) {
                    (Some(t), _) => format!("{t} (uv{})", u.uv_set),
                    (None, true) => "light ramp".into(),
                    (None, false) => "no texture".into(),
                })
                .collect();
            let blend = if pass.is_transparent() { format!("blend {}", pass.blend) } else { "opaque".into() };
            println!(
                "      {}: {blend}{} [{}]",
                pass.shader_group.as_deref().unwrap_or("fixed function"),
                if pass.is_two_sided() { ", two-sided" } else { "" },
                textures.join(", ")
            );
        }
    }
    if !script.warnings.is_empty() {
        println!("  warnings    {}", script.warnings.len());
        for w in &script.warnings {
            println!("    {w}");
        }
    }
}
