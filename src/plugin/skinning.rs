//! The last stage on the palette path: each player's skinning matrices
//! written into its slot of the frame-wide slab ([`SkinPalettes`]) from
//! the model poses evaluation composed, over all cores, once every player
//! has a slot of the right size.

use bevy::ecs::prelude::*;
use bevy::tasks::{ComputeTaskPool, ParallelSliceMut};

use super::binding::AniBinding;
use super::palette::{PaletteMatrix, PaletteOutput, PaletteSlot, SkinPalettes, palette_matrix};
use super::player::ModelPoses;

/// A player whose bones or slot may have changed.
type Rebound = Or<(Changed<AniBinding>, Changed<PaletteSlot>)>;

/// Gives each bound palette player a slot of as many matrices as it has
/// bones, when it has none (a new player, or one put on the path again)
/// or its bones changed in number.
pub(crate) fn assign_slots(
    mut palettes: ResMut<SkinPalettes>,
    mut players: Query<(Entity, &AniBinding, &mut PaletteSlot), (With<PaletteOutput>, Rebound)>,
) {
    for (player, binding, mut slot) in &mut players {
        let len = binding.bone_count() as u32;
        if binding.is_bound() && slot.len() != len {
            palettes.release((slot.start(), slot.len()));
            let start = palettes.allocate(len, player);
            *slot = PaletteSlot::new(start, len);
        }
    }
}

/// Fills each palette player's slot from its model poses (which
/// evaluation composed) after its bones' inverse binds, over all cores:
/// the slab is cut into the players' ranges, in the order they stand.
pub(crate) fn fill_slots(
    mut palettes: ResMut<SkinPalettes>,
    players: Query<(&ModelPoses, &AniBinding), With<PaletteOutput>>,
) {
    let (matrices, owners) = palettes.ranges_mut();
    let mut ranges = Vec::with_capacity(owners.len());
    let mut rest = matrices;
    let mut at = 0;
    for &(start, len, player) in owners.iter() {
        let (_, from) = std::mem::take(&mut rest).split_at_mut(start as usize - at);
        let (range, after) = from.split_at_mut(len as usize);
        ranges.push((player, range));
        (rest, at) = (after, (start + len) as usize);
    }
    let fill = |(player, range): &mut (Entity, &mut [PaletteMatrix])| {
        let Ok((poses, binding)) = players.get(*player) else { return };
        for ((matrix, model), inverse) in range.iter_mut().zip(&poses.0).zip(&*binding.inverse_binds) {
            *matrix = palette_matrix(*model, *inverse);
        }
    };
    let pool = ComputeTaskPool::get();
    let chunk = ranges.len().div_ceil(pool.thread_num().max(1) * 4).max(1);
    ranges.par_chunk_map_mut(pool, chunk, |_, chunk| chunk.iter_mut().for_each(fill));
}
