//! Dropping keys the client rebuilds anyway: a key goes when interpolating
//! its kept neighbours, by the client's own rule ([`sample_keys`]), lands
//! within a tolerance of it.

use glam::Quat;

use crate::format::{Animation, Key};

use super::sample::sample_keys;

/// How far a rebuilt key may be from the key it replaces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Rotation, in degrees.
    pub degrees: f32,
    /// Position, in the file's units.
    pub units: f32,
}

impl std::str::FromStr for Tolerance {
    type Err = String;

    /// `DEG,UNITS`, as `io3d import --tolerance 0.1,0.01` takes it.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let parse = |s: &str| s.trim().parse::<f32>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        match text.split_once(',').map(|(d, u)| (parse(d), parse(u))) {
            Some((Some(degrees), Some(units))) => Ok(Self { degrees, units }),
            _ => Err(format!("expected 'DEGREES,UNITS' (two numbers of 0 or more), found '{text}'")),
        }
    }
}

/// Drops, from every track, the keys the client rebuilds within
/// `tolerance`. The first and last keys stay, as do keys sharing a time
/// with a neighbour (the client jumps there). Returns how many went.
pub fn reduce_keys(animation: &mut Animation, tolerance: Tolerance) -> usize {
    let mut dropped = 0;
    for track in &mut animation.tracks {
        let before = track.keys.len();
        track.keys = reduce(&track.keys, tolerance);
        dropped += before - track.keys.len();
    }
    dropped
}

/// Greedy: from each kept key, reach as far as the keys in between are
/// rebuilt within the tolerance.
fn reduce(keys: &[Key], tolerance: Tolerance) -> Vec<Key> {
    if keys.len() < 3 {
        return keys.to_vec();
    }
    let pinned = |i: usize| {
        i == 0
            || i + 1 == keys.len()
            || keys[i - 1].time_ms >= keys[i].time_ms
            || keys[i + 1].time_ms <= keys[i].time_ms
    };
    let mut kept = vec![keys[0]];
    let mut anchor = 0;
    while anchor + 1 < keys.len() {
        let mut end = anchor + 1;
        while end + 1 < keys.len() && !pinned(end) && rebuilt(keys, anchor, end + 1, tolerance) {
            end += 1;
        }
        kept.push(keys[end]);
        anchor = end;
    }
    kept
}

/// Whether every key strictly between `from` and `to` is within the
/// tolerance of the client's interpolation from `from` to `to`.
fn rebuilt(keys: &[Key], from: usize, to: usize, tolerance: Tolerance) -> bool {
    let ends = [keys[from], keys[to]];
    keys[from + 1..to].iter().all(|key| {
        let Some(pose) = sample_keys(&ends, key.time_ms as f32) else { return false };
        pose.position.distance(key.position) <= tolerance.units
            && angle_degrees(pose.rotation, key.rotation) <= tolerance.degrees
    })
}

/// The angle of the turn from one rotation to another, in degrees; as an
/// arctangent, which stays precise for small angles where `acos` of the
/// dot product does not in `f32`.
pub fn angle_degrees(a: Quat, b: Quat) -> f32 {
    let turn = a.normalize().conjugate() * b.normalize();
    (2.0 * turn.xyz().length().atan2(turn.w.abs())).to_degrees()
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    fn key(t: i32, x: f32, angle: f32) -> Key {
        Key::new(t, Vec3::new(x, 0.0, 0.0), Quat::from_rotation_y(angle))
    }

    #[test]
    fn straight_runs_shrink_to_their_ends_and_bends_stay() {
        let keys: Vec<Key> = (0..=10).map(|i| key(i * 10, i as f32, 0.0)).collect();
        let exact = Tolerance { degrees: 0.0, units: 1e-4 };
        assert_eq!(reduce(&keys, exact), [keys[0], keys[10]]);
        let mut bent = keys.clone();
        bent[5].position.x += 1.0;
        let reduced = reduce(&bent, exact);
        assert!(reduced.iter().any(|k| k.time_ms == 50), "the bent key stays");
        assert!(reduced.len() < bent.len());
        // Every dropped key is rebuilt within the tolerance.
        for original in &bent {
            let rebuilt = sample_keys(&reduced, original.time_ms as f32).unwrap();
            assert!(rebuilt.position.distance(original.position) <= 1e-4);
        }
    }

    #[test]
    fn rotations_are_judged_in_degrees_and_jumps_stay() {
        let keys = [key(0, 0.0, 0.0), key(50, 0.0, 0.2), key(100, 0.0, 0.0)];
        assert_eq!(reduce(&keys, Tolerance { degrees: 12.0, units: 0.0 }).len(), 2);
        assert_eq!(reduce(&keys, Tolerance { degrees: 11.0, units: 0.0 }).len(), 3);
        let jump = [key(0, 0.0, 0.0), key(50, 1.0, 0.0), key(50, 5.0, 0.0), key(100, 5.0, 0.0)];
        assert_eq!(reduce(&jump, Tolerance { degrees: 180.0, units: 100.0 }).len(), 4);
        assert_eq!("0.5, 0.01".parse::<Tolerance>().unwrap(), Tolerance { degrees: 0.5, units: 0.01 });
        assert!("0.5".parse::<Tolerance>().is_err());
        assert!("-1,0".parse::<Tolerance>().is_err());
    }
}
