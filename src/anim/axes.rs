//! From the engine's left-handed axes to right-handed, Y-up ones: a mirror,
//! applied alike to every local transform (rest poses, keys, inverse
//! binds), so parent-child composition holds and the character is not
//! mirrored. Bevy's axes mirror Z (the character faces -Z, Bevy's
//! forward); glTF's mirror X, so that the character faces +Z, glTF's
//! front. Each function is its own inverse.

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

/// Position (x, y, z) as (-x, y, z): glTF's axes, facing +Z.
pub fn mirror_x_position(p: Vec3) -> Vec3 {
    Vec3::new(-p.x, p.y, p.z)
}

/// Rotation (x, y, z, w) as (x, -y, -z, w): the same turn in glTF's axes.
pub fn mirror_x_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}
