//! The first stage of a player's frame: its clips' clocks moved by the
//! frame's time, by the library's mixer, and the events they pass
//! triggered.

use bevy::asset::{AssetId, Assets};
use bevy::ecs::prelude::*;
use bevy::time::Time;
use bevy::utils::Parallel;

use crate::anim::InstanceId;
use crate::anim::mixer::{Fired, Removed};

use super::assets::AniClip;
use super::player::{AniClipEnded, AniEventFired, AniPlayback, AniPlayer, ClipsInUse};

type Id = AssetId<AniClip>;

/// Advances each player by the frame's time in ms (times its speed), over
/// all cores, and triggers [`AniEventFired`] for the events its clips
/// pass, each player's in the order passed.
pub(crate) fn advance_players(
    mut commands: Commands,
    time: Res<Time>,
    clips: Res<Assets<AniClip>>,
    mut players: Query<(Entity, Mut<AniPlayer>, &mut AniPlayback, Mut<ClipsInUse>)>,
    mut fired: Local<Parallel<FiredBy>>,
) {
    let delta_ms = time.delta_secs() * 1000.0;
    players.par_iter_mut().for_each_init(
        || fired.borrow_local_mut(),
        |fired, (entity, mut player, mut playback, in_use)| {
            let FiredBy { passed, by, ended } = &mut **fired;
            passed.clear();
            // Taking the game's calls is not a change the game made.
            advance((player.bypass_change_detection(), &mut playback), delta_ms, &clips, passed);
            ClipsInUse::follow(in_use, &player, &playback);
            by.extend(passed.drain(..).map(|event| (entity, event)));
            ended.extend(playback.mixer.take_removed().into_iter().map(|removed| (entity, removed)));
        },
    );
    for fired in fired.iter_mut() {
        for (entity, event) in fired.by.drain(..) {
            trigger(&mut commands, entity, &clips, &event);
        }
        for (entity, Removed { instance, clip, cleared }) in fired.ended.drain(..) {
            commands.trigger(AniClipEnded { entity, instance, clip, cleared });
        }
    }
}

/// The events one thread's players passed this frame.
#[derive(Default)]
pub(crate) struct FiredBy {
    /// One player's, as its mixer reports them.
    passed: Vec<Fired<Id>>,
    /// Every player's, with the player.
    by: Vec<(Entity, Fired<Id>)>,
    /// The clips that left each player.
    ended: Vec<(Entity, Removed<Id>)>,
}

/// Makes the calls `player` recorded, then moves its clips by `delta_ms`
/// times its speed, adding the events passed to `fired`.
fn advance(
    (player, playback): (&mut AniPlayer, &mut AniPlayback),
    delta_ms: f32,
    clips: &Assets<AniClip>,
    fired: &mut Vec<Fired<Id>>,
) {
    playback.take_calls(player);
    let restarted = playback.follow_main_clip(player);
    let AniPlayback { mixer, handles, steps, unsettled, .. } = playback;
    mixer.guarantee = player.guarantee;
    let seek = player.pending_seek.take();
    if let Some(t) = seek {
        let ids: Vec<InstanceId> = mixer.instances().map(|i| i.id).collect();
        ids.into_iter().for_each(|id| mixer.seek(id, t));
    }
    // A seek, a new clip or a pause moves nowhere this frame.
    let delta = delta_ms * player.speed;
    let still_by_request = seek.is_some() || restarted;
    let still = still_by_request || !delta.is_finite();
    let delta = if still || player.paused { 0.0 } else { delta };
    let lookup = |id: Id| clips.get(id).map(|c| &c.clip);
    // The one pause is the mixer's stop (`StopAllPlayingAnimation`): no
    // time passes, no event fires and nothing ends or is removed. A frame
    // that seeks or starts a new main clip still settles it by no time,
    // so that a paused player shows the clip it was given (its weight
    // rises from 0 on that update).
    *unsettled |= still_by_request;
    if player.paused && !*unsettled {
        mixer.stop()
    } else {
        mixer.resume()
    }
    if mixer.is_stopped() {
        steps.clear();
    } else if delta >= 0.0 {
        mixer.advance(delta, lookup, fired);
        steps.clear();
        steps.extend(mixer.instances().map(|i| (i.id, i.step())));
        *unsettled = !mixer.instances().all(|i| lookup(i.clip).is_some());
    } else {
        *steps = mixer.rewind(delta, lookup, fired);
    }
    handles.retain(|h| mixer.instances().any(|i| i.clip == h.id()));
}

fn trigger(commands: &mut Commands, entity: Entity, clips: &Assets<AniClip>, fired: &Fired<Id>) {
    let clip = clips.get(fired.clip).map(|clip| (fired.clip, clip));
    if let Some(event) = clip.and_then(|clip| AniEventFired::new(entity, fired.instance, clip, fired.event)) {
        commands.trigger(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Animation;

    /// A seek on a paused player settles by an update of no time, once its
    /// clip is there (and not before), fires nothing and leaves one step
    /// of no travel; the next update, still paused, stands still.
    #[test]
    fn a_seek_on_a_paused_player_settles_by_no_time_once_its_clip_is_there() {
        let bytes = include_bytes!("../../assets/resource/animation/biped_walk_4002.ani");
        let mut clips = Assets::<AniClip>::default();
        let walk = AniClip::new(Animation::from_bytes(bytes).unwrap());
        let handle = bevy::asset::Handle::<AniClip>::default();
        let mut player = AniPlayer::new(handle.clone());
        player.paused = true;
        player.seek(400.0);
        let (mut playback, mut fired) = (AniPlayback::default(), Vec::new());
        advance((&mut player, &mut playback), 16.0, &clips, &mut fired);
        assert!(playback.unsettled, "its clip is not there yet");
        clips.insert(&handle, walk).unwrap();
        advance((&mut player, &mut playback), 16.0, &clips, &mut fired);
        assert_eq!(playback.time_ms(), 400.0);
        assert!(!playback.unsettled && fired.is_empty());
        assert_eq!(playback.steps.iter().map(|(_, s)| s.moved_ms).collect::<Vec<_>>(), [0.0]);
        advance((&mut player, &mut playback), 16.0, &clips, &mut fired);
        assert_eq!(playback.time_ms(), 400.0, "paused");
        assert!(playback.steps.is_empty(), "no step while stopped");
    }
}
