//! The palette path's slots: each player given its range of the
//! frame-wide slab ([`SkinPalettes`]) before posing, which writes its
//! skinning matrices there ([`super::evaluate`]).

use bevy::ecs::prelude::*;

use super::binding::AniBinding;
use super::palette::{PaletteOutput, PaletteSlot, SkinPalettes};

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
