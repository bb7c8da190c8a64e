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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_of_one_players_bones_looks_the_player_up_once() {
        let (a, b) = (Entity::from_raw_u32(1).unwrap(), Entity::from_raw_u32(2).unwrap());
        let mut last = LastPlayer::default();
        let mut lookups = Vec::new();
        for player in [a, a, a, b, b, a] {
            let found = last.get(player, |p| {
                lookups.push(p);
                Some(p.index_u32())
            });
            assert_eq!(found, Some(player.index_u32()));
        }
        assert_eq!(lookups, [a, b, a], "once a run of bones, again when the player changes");
        // A player not found is remembered as not found.
        let mut missing = LastPlayer::<u32>::default();
        assert_eq!(missing.get(a, |_| None), None);
        assert_eq!(missing.get(a, |_| panic!("looked up again")), None);
    }
}
