//! From the engine's left-handed axes to the right-handed, Y-up axes of
//! Bevy and glTF: a mirror on Z, applied alike to every local transform
//! (rest poses, keys, inverse binds), so parent-child composition holds and
//! the character is not mirrored. Each function is its own inverse.

use glam::{Quat, Vec3};

/// Position (x, y, z) as (x, y, -z).
pub fn mirror_position(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.y, -p.z)
}

/// Rotation (x, y, z, w) as (-x, -y, z, w): the same turn seen in the
/// mirrored axes.
pub fn mirror_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(-q.x, -q.y, q.z, q.w)
}
