//! The palette slab's way to the GPU: one write a frame, straight from the
//! main world's [`SkinPalettes`] into the storage buffer the palette
//! materials bind, during extraction. No copy of the slab is made on the
//! way (the render asset route would take a fresh `Vec` of it every
//! frame: 12.5 MB at 5,000 characters, allocated, copied and copied again).
//!
//! The buffer is a `ShaderBuffer` asset, so that materials can name it;
//! the main world touches the asset only when the slab changes size, and
//! the render asset made from it then starts with the slab's bytes.

use std::sync::atomic::Ordering;

use bevy::asset::{Assets, Handle};
use bevy::ecs::prelude::*;
use bevy::render::Extract;
use bevy::render::render_asset::RenderAssets;
use bevy::render::renderer::RenderQueue;
use bevy::render::storage::{GpuShaderBuffer, ShaderBuffer};

use crate::plugin::palette::SkinPalettes;

use super::palette::{PaletteDrawing, PaletteMaterial, PaletteToonMaterial};

/// Sizes the GPU copy to the slab when the slab changed size (a new
/// buffer, made with the slab's bytes), and makes the palette materials
/// bind the new buffer.
pub(crate) fn size_palette_buffer(
    palettes: Res<SkinPalettes>,
    drawing: Res<PaletteDrawing>,
    mut buffers: ResMut<Assets<ShaderBuffer>>,
    mut materials: ResMut<Assets<PaletteMaterial>>,
    mut toon: Option<ResMut<Assets<PaletteToonMaterial>>>,
) {
    let bytes: &[u8] = bytemuck::cast_slice(palettes.matrices());
    let size = bytes.len() as u64;
    let unchanged = buffers.get(&drawing.buffer).is_none_or(|buffer| buffer.buffer_description.size == size);
    if bytes.is_empty() || unchanged {
        return;
    }
    if let Some(mut buffer) = buffers.get_mut(&drawing.buffer) {
        buffer.buffer_description.size = size;
        buffer.data = Some(bytes.to_vec());
    }
    // A buffer of another size is a new buffer: the materials' bind
    // groups are made again only for materials that changed.
    for id in drawing.materials.values().map(Handle::id) {
        materials.get_mut(id);
    }
    let toon_ids: Vec<_> = toon.iter().flat_map(|toon| toon.ids()).collect();
    for id in toon_ids {
        toon.as_mut().and_then(|toon| toon.get_mut(id));
    }
}

/// The slab and its GPU copy, as extraction reads them from the main world.
type MainSlab = (Option<Res<'static, SkinPalettes>>, Option<Res<'static, PaletteDrawing>>);

/// Writes the whole slab into the GPU copy, during extraction, and counts
/// the bytes ([`PaletteDrawing::uploaded`]). A frame whose buffer is not
/// yet the slab's size (it just grew) writes nothing: the new buffer is
/// made from the slab's bytes as the asset is prepared.
pub(crate) fn write_palettes(
    main: Extract<MainSlab>,
    buffers: Res<RenderAssets<GpuShaderBuffer>>,
    queue: Res<RenderQueue>,
) {
    let (Some(palettes), Some(drawing)) = &*main else { return };
    let bytes: &[u8] = bytemuck::cast_slice(palettes.matrices());
    let gpu = buffers.get(&drawing.buffer).filter(|gpu| gpu.buffer.size() == bytes.len() as u64);
    let written = match gpu {
        Some(gpu) if !bytes.is_empty() => {
            queue.write_buffer(&gpu.buffer, 0, bytes);
            bytes.len()
        }
        _ => 0,
    };
    drawing.written.store(written, Ordering::Relaxed);
}
