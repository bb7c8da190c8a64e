//! Animation level of detail, opt in: a player the game cares less about
//! (far from the camera, small on screen) poses its clips only every few
//! frames and shows its last two poses interpolated in between, a pose
//! behind, so that its bones still move every frame. Its clips still
//! advance every frame: events fire and root motion adds up as without.

use bevy::ecs::prelude::*;
use bevy::math::Vec3A;
use bevy::reflect::{Reflect, std_traits::ReflectDefault};
use bevy::transform::components::GlobalTransform;

use crate::anim::BonePose;

/// Poses a player's clips every `every` frames rather than every frame.
/// Between two poses its bones go from the one before the last to the
/// last, reaching it on the frame before the next: they show the clips
/// up to `every - 1` frames late. Players spread their frames (by entity),
/// so a crowd with the same `every` poses about `1/every` of itself each
/// frame. `every` of 0 or 1 poses every frame, exactly as without. A seek
/// or a cut to another clip shows the same way, over the next frames.
///
/// Set `every` from whatever measure the game has (screen size, a camera's
/// distance, importance), or let `lod_by_distance` set it from the
/// distance to an [`AniLodFocus`].
#[derive(Component, Debug, Clone, Default, Reflect)]
#[reflect(Component, Default)]
pub struct AniLod {
    /// Pose the clips once every this many frames.
    pub every: u32,
    /// Frames since the clips were last posed.
    #[reflect(ignore)]
    since: u32,
    /// The pose before the last, and the last (bones relative to their
    /// parents, in the files' axes).
    #[reflect(ignore)]
    from: Vec<BonePose>,
    #[reflect(ignore)]
    to: Vec<BonePose>,
}

impl AniLod {
    /// Poses the clips once every `frames` frames.
    pub fn every(frames: u32) -> Self {
        Self { every: frames, ..Self::default() }
    }

    /// Whether the level of detail leaves every frame to the clips, as
    /// without it (its poses are dropped, to start afresh when it no
    /// longer does).
    pub(super) fn is_full(&mut self) -> bool {
        let full = self.every <= 1;
        if full && !self.to.is_empty() {
            self.from = Vec::new();
            self.to = Vec::new();
        }
        full
    }

    /// Counts a frame and says whether it poses the clips: every `every`
    /// frames, and at once when there is no pose of `bones` bones to show
    /// (the first frame, or the binding changed), from where `stagger`
    /// puts this player among the others.
    pub(super) fn poses_now(&mut self, bones: usize, stagger: u32) -> bool {
        if self.to.len() != bones {
            self.from.clear();
            self.to.clear();
            self.since = stagger % self.every.max(1);
            return true;
        }
        self.since += 1;
        if self.since >= self.every {
            self.since = 0;
            return true;
        }
        false
    }

    /// Keeps a new pose as the last; the last becomes the one before (the
    /// new one is both after a fresh start).
    pub(super) fn keep(&mut self, pose: impl Iterator<Item = BonePose>) {
        std::mem::swap(&mut self.from, &mut self.to);
        self.to.clear();
        self.to.extend(pose);
        if self.from.len() != self.to.len() {
            self.from.clone_from(&self.to);
        }
    }

    /// The pose to show this frame into `shown`: the last reached on the
    /// frame before the next is posed, the one before it this many frames
    /// earlier.
    pub(super) fn show(&self, shown: &mut Vec<BonePose>) {
        shown.clear();
        let along = (self.since + 1) as f32 / self.every.max(1) as f32;
        if along >= 1.0 {
            shown.extend_from_slice(&self.to);
            return;
        }
        shown.extend(self.from.iter().zip(&self.to).map(|(from, to)| BonePose {
            position: from.position.lerp(to.position, along),
            rotation: from.rotation.lerp(to.rotation, along),
        }));
    }
}

/// Where `lod_by_distance` measures from (a camera, say), and how far
/// out each level of detail starts: `steps` of (distance, every), by
/// distance; nearer than the first, players pose every frame.
#[derive(Component, Debug, Clone, Default, Reflect)]
#[reflect(Component, Default)]
pub struct AniLodFocus {
    /// From each distance on (in the focus's units), pose every this many
    /// frames; sorted by distance.
    pub steps: Vec<(f32, u32)>,
}

impl AniLodFocus {
    /// The level of detail at `distance`.
    pub fn every_at(&self, distance: f32) -> u32 {
        self.steps.iter().take_while(|(from, _)| distance >= *from).last().map_or(1, |&(_, every)| every)
    }
}

/// Sets each [`AniLod`]'s `every` by its player's distance to the nearest
/// [`AniLodFocus`] (as of the last frame's transforms); with no focus it
/// leaves them as the game set them.
pub(crate) fn lod_by_distance(
    focuses: Query<(&GlobalTransform, &AniLodFocus)>,
    mut players: Query<(&GlobalTransform, &mut AniLod)>,
) {
    if focuses.is_empty() {
        return;
    }
    players.par_iter_mut().for_each(|(place, mut lod)| {
        let here = place.translation_vec3a();
        let nearest = focuses.iter().min_by(|a, b| distance(here, a.0).total_cmp(&distance(here, b.0)));
        if let Some((at, focus)) = nearest {
            let every = focus.every_at(distance(here, at));
            if lod.every != every {
                lod.every = every;
            }
        }
    });
}

fn distance(here: Vec3A, focus: &GlobalTransform) -> f32 {
    here.distance(focus.translation_vec3a())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::math::{Quat, Vec3};

    fn pose(x: f32) -> BonePose {
        BonePose { position: Vec3::new(x, 0.0, 0.0), rotation: Quat::from_rotation_y(x / 10.0) }
    }

    /// Three frames a pose: the pose at frame 0 shows whole on frame 2,
    /// with the one before on frames 0 and 1 a third and two thirds of
    /// the way, and the next is posed on frame 3.
    #[test]
    fn shows_the_last_pose_on_the_frame_before_the_next() {
        let mut lod = AniLod::every(3);
        let mut shown = Vec::new();
        assert!(lod.poses_now(1, 0), "the first frame poses");
        lod.keep([pose(0.0)].into_iter());
        lod.show(&mut shown);
        assert_eq!(shown, [pose(0.0)], "the first pose shows as it is");
        assert!(!lod.poses_now(1, 0) && !lod.poses_now(1, 0));
        assert!(lod.poses_now(1, 0));
        lod.keep([pose(3.0)].into_iter());
        let mut seen = Vec::new();
        for frame in 0..3 {
            if frame > 0 {
                assert!(!lod.poses_now(1, 0));
            }
            lod.show(&mut shown);
            seen.push(shown[0].position.x);
        }
        assert_eq!(seen, [1.0, 2.0, 3.0]);
        assert_eq!(shown, [pose(3.0)], "bit for bit");
        assert!(lod.poses_now(1, 0));
    }

    #[test]
    fn players_spread_their_frames_and_a_new_binding_starts_afresh() {
        let mut lod = AniLod::every(4);
        let mut posed = Vec::new();
        for frame in 0..9 {
            if lod.poses_now(1, 0) {
                lod.keep([pose(0.0)].into_iter());
                posed.push(frame);
            }
        }
        assert_eq!(posed, [0, 4, 8], "the first frame, then every fourth");
        let first = |stagger| {
            let mut lod = AniLod::every(4);
            lod.poses_now(1, stagger);
            lod.keep([pose(0.0)].into_iter());
            (1..8).find(|_| lod.poses_now(1, stagger)).unwrap()
        };
        assert_eq!([0, 1, 2, 3].map(first), [4, 3, 2, 1]);
        let mut lod = AniLod::every(4);
        lod.poses_now(1, 0);
        lod.keep([pose(0.0)].into_iter());
        assert!(lod.poses_now(2, 0), "two bones now: posed at once");
    }

    #[test]
    fn every_frame_drops_the_poses() {
        let mut lod = AniLod::every(2);
        lod.poses_now(1, 0);
        lod.keep([pose(0.0)].into_iter());
        lod.every = 1;
        assert!(lod.is_full());
        assert!(lod.to.is_empty() && lod.from.is_empty());
    }

    #[test]
    fn the_focus_picks_the_step_a_distance_is_in() {
        let focus = AniLodFocus { steps: vec![(20.0, 2), (50.0, 4)] };
        assert_eq!([0.0, 19.9, 20.0, 49.0, 50.0, 1e9].map(|d| focus.every_at(d)), [1, 1, 2, 2, 4, 4]);
    }
}
