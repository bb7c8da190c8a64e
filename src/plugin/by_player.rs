//! What passes over bones share: each bone finds its player's data, and
//! a player's bones lie side by side.

use bevy::ecs::entity::Entity;

/// The player the bone before was looked up in, with what was found: a
/// player's bones lie side by side in Bevy's tables, so passes over bones
/// look each player up about once rather than once a bone.
pub(super) struct LastPlayer<T>(Option<(Entity, Option<T>)>);

impl<T> Default for LastPlayer<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<T: Copy> LastPlayer<T> {
    /// What `find` gives for `player`, from the last lookup when it was the
    /// same player.
    pub(super) fn get(&mut self, player: Entity, find: impl FnOnce(Entity) -> Option<T>) -> Option<T> {
        match self.0 {
            Some((last, found)) if last == player => found,
            _ => {
                let found = find(player);
                self.0 = Some((player, found));
                found
            }
        }
    }
}
