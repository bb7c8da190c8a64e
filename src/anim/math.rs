//! The client's own quaternion and vector arithmetic, in `f32` and in the
//! client's order of operations, so that poses come out to the bit.
//!
//! The client does not use a true slerp: `ioMath::Slerp` is Jonathan Blow's
//! counter-warped nlerp with an approximate normalisation
//! (`FastQuaternionSlerp.h`), and it both interpolates keys and blends
//! clips. Its results are a little off unit length (a unit input comes out
//! about 0.9996 long), and the client composes them as they are: rotations
//! by the Hamilton product without renormalising, positions by the nVidia
//! SDK form of quaternion-times-vector (`HelpFunc.cpp`). For non-unit
//! quaternions that form and glam's `q * v` (which is `q v q*`) differ, so
//! the library composes with [`rotate`], never with glam's operator.

// The client's constants are kept as its source writes them; they round
// to the same `f32`.
#![allow(clippy::excessive_precision)]

use glam::{Quat, Vec3, Vec3A, Vec3Swizzles, Vec4, Vec4Swizzles};

use crate::lanes::{Lanes, four};

/// The neighbourhood the approximate inverse square root is centred on.
const ISQRT_NEIGHBORHOOD: f32 = 0.959066;
/// Its scale.
const ISQRT_SCALE: f32 = 1.000311;

/// `ISqrt_approx_in_neighborhood`: a first-order approximation of
/// `1 / sqrt(s)` around [`ISQRT_NEIGHBORHOOD`]. The client computes its two
/// constants once, in `f32`, as written here.
fn isqrt_near_one<L: Lanes>(s: L) -> L {
    let root = ISQRT_NEIGHBORHOOD.sqrt();
    let additive = ISQRT_SCALE / root;
    let factor = ISQRT_SCALE * (-0.5 / (ISQRT_NEIGHBORHOOD * root));
    L::splat(additive) + (s - L::splat(ISQRT_NEIGHBORHOOD)) * L::splat(factor)
}

/// `FastNormalize`: scales `q` towards unit length with one to three steps
/// of the approximation, as many as the squared length needs (per lane:
/// a step no lane needs is skipped).
fn fast_normalize<L: Lanes>([x, y, z, w]: [L; 4]) -> [L; 4] {
    let s = x * x + y * y + z * z + w * w;
    let mut k = isqrt_near_one(s);
    let second = s.at_most(0.915_211_98);
    if L::any(second) {
        k = L::select(second, k * isqrt_near_one(k * k * s), k);
        let third = s.at_most(0.652_119_7);
        if L::any(third) {
            k = L::select(third, k * isqrt_near_one(k * k * s), k);
        }
    }
    [x * k, y * k, z * k, w * k]
}

/// `CounterWarp`: bends the blend factor `t` so that the normalised lerp
/// moves at nearly constant angular speed.
fn counter_warp<L: Lanes>(t: f32, cos: L) -> L {
    const ATTENUATION: f32 = 0.822_796_87;
    const WORST_CASE_SLOPE: f32 = 0.585_492_2;
    let mut factor = L::splat(1.0) - L::splat(ATTENUATION) * cos;
    factor = factor * factor;
    let k = L::splat(WORST_CASE_SLOPE) * factor;
    L::splat(t) * (k * L::splat(t) * L::splat(2.0 * t - 3.0) + L::splat(1.0) + k)
}

/// `LerpFloat`: `a + s (b - a)`, the client's one linear blend.
pub fn lerp_f32(a: f32, b: f32, s: f32) -> f32 {
    lerp_lanes(a, b, s)
}

/// [`lerp_f32`] in every lane.
pub(crate) fn lerp_lanes<L: Lanes>(a: L, b: L, s: L) -> L {
    a + s * (b - a)
}

/// `ioMath::Lerp` for positions, component by component.
pub fn lerp(a: Vec3, b: Vec3, s: f32) -> Vec3 {
    Vec3::new(lerp_f32(a.x, b.x, s), lerp_f32(a.y, b.y, s), lerp_f32(a.z, b.z, s))
}

/// `ioMath::Slerp(s, a, b)`: the shorter way from `a` (at `s = 0`) to `b`,
/// by the client's counter-warped nlerp. Neither input need be of unit
/// length; neither is the result, quite.
pub fn slerp(a: Quat, b: Quat, s: f32) -> Quat {
    Quat::from_array(slerp_lanes(a.to_array(), b.to_array(), s))
}

/// [`slerp`] of quaternions given component by component (`[x, y, z, w]`),
/// in every lane by the same `s`.
pub(crate) fn slerp_lanes<L: Lanes>(a: [L; 4], b: [L; 4], s: f32) -> [L; 4] {
    let cos = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    // The shorter way: flip `b` where the two are more than half a turn apart.
    let flip = cos.below(0.0);
    let cos = L::select(flip, -cos, cos);
    let b = four(|i| L::select(flip, -b[i], b[i]));
    let warped = if s <= 0.5 { counter_warp(s, cos) } else { L::splat(1.0) - counter_warp(1.0 - s, cos) };
    fast_normalize(four(|i| lerp_lanes(a[i], b[i], warped)))
}

/// The Hamilton product `parent * local` (the rotation `local`, then
/// `parent`), in the operand order of Direct3D's
/// `D3DXQuaternionMultiply(local, parent)` as its reference code writes it:
/// each component a sum of four products, added left to right
/// (`hamilton_reference` in the tests writes it out). Here the four
/// components are summed side by side in a [`Vec4`], a subtracted product
/// added negated (the same bits), rather than by glam's operator, whose
/// bits depend on its SIMD path.
pub fn mul(parent: Quat, local: Quat) -> Quat {
    let (p, l) = (parent, Vec4::from(local));
    let by_w = Vec4::splat(p.w) * l;
    let by_x = Vec4::splat(p.x) * (l.wzyx() * Vec4::new(1.0, -1.0, 1.0, -1.0));
    let by_y = Vec4::splat(p.y) * (l.zwxy() * Vec4::new(1.0, 1.0, -1.0, -1.0));
    let by_z = Vec4::splat(p.z) * (l.yxwz() * Vec4::new(-1.0, 1.0, 1.0, -1.0));
    Quat::from_vec4(by_w + by_x + by_y + by_z)
}

/// `q * v` as the client computes it (the nVidia SDK form):
/// `u = q.xyz x v`, `uu = q.xyz x u`, `v + 2w u + 2 uu`, with `D3DXVec3Cross`
/// (`a.y b.z - a.z b.y`, ...) for each cross product, all three
/// components at once. Equal to the usual rotation for unit `q`; for the
/// client's slightly non-unit quaternions it is what the game shows.
pub fn rotate(q: Quat, v: Vec3) -> Vec3 {
    let cross = |a: Vec3A, b: Vec3A| a.yzx() * b.zxy() - a.zxy() * b.yzx();
    let (axis, v) = (Vec3A::new(q.x, q.y, q.z), Vec3A::from(v));
    let u = cross(axis, v);
    let uu = cross(axis, u);
    Vec3::from(v + u * (2.0 * q.w) + uu * 2.0)
}

/// How far `to` is turned from `from` about the up axis (Y), in radians
/// in `-PI..=PI`: the twist about Y of the turn between them, which is a
/// character's change of heading whatever the bone's own axes are.
pub fn yaw_between(from: Quat, to: Quat) -> f32 {
    let turn = (to * from.inverse()).normalize();
    let (y, w) = if turn.w < 0.0 { (-turn.y, -turn.w) } else { (turn.y, turn.w) };
    if y == 0.0 && w == 0.0 { 0.0 } else { 2.0 * y.atan2(w) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(q: [f32; 4]) -> [u32; 4] {
        q.map(f32::to_bits)
    }

    /// Results worked out independently of this code: the steps of
    /// `docs/playback.md` in Python, every operation rounded to `f32`.
    #[test]
    fn slerp_and_rotate_match_an_independent_f32_reckoning() {
        let a = Quat::from_xyzw(0.1, 0.2, 0.3, 0.927_361_8);
        let b = Quat::from_xyzw(-0.5, 0.1, 0.4, -0.761_577_3);
        let expected = [
            (0.25, [0x3e63e443, 0x3e064a60, 0x3e005e88, 0x3f7531fb]),
            (0.5, [0x3eaae242, 0x3d63d857, 0xbd63d85c, 0x3f7082a3]),
            (0.8, [0x3ee35e4d, 0xbd1d8978, 0xbe895ce9, 0x3f5a926d]),
        ];
        for (s, want) in expected {
            assert_eq!(bits(slerp(a, b, s).to_array()), want, "s = {s}");
        }
        let turned = rotate(Quat::from_xyzw(0.1, 0.2, 0.3, 0.9), Vec3::new(1.0, -2.0, 3.0));
        assert_eq!(turned.to_array().map(f32::to_bits), [0x40400000, 0xbf99999a, 0x3fe66666]);
    }

    #[test]
    fn slerp_is_close_to_a_true_slerp_but_not_unit() {
        let (a, b) = (Quat::from_rotation_y(0.0), Quat::from_rotation_y(1.0));
        let mid = slerp(a, b, 0.5);
        assert!(mid.normalize().abs_diff_eq(Quat::from_rotation_y(0.5), 1e-3), "{mid}");
        // A unit result comes out a little short, as in the client.
        let same = slerp(a, a, 0.5);
        assert!((same.length() - 0.9996).abs() < 1e-4, "{}", same.length());
        // The short way round: the sign of b does not matter.
        assert_eq!(slerp(a, -b, 0.3), slerp(a, b, 0.3));
    }

    /// The Hamilton product component by component, as the client's
    /// reference code writes it.
    fn hamilton_reference(p: Quat, l: Quat) -> Quat {
        Quat::from_xyzw(
            p.w * l.x + p.x * l.w + p.y * l.z - p.z * l.y,
            p.w * l.y - p.x * l.z + p.y * l.w + p.z * l.x,
            p.w * l.z + p.x * l.y - p.y * l.x + p.z * l.w,
            p.w * l.w - p.x * l.x - p.y * l.y - p.z * l.z,
        )
    }

    /// `q * v` with each cross product written out as `D3DXVec3Cross`.
    fn rotate_reference(q: Quat, v: Vec3) -> Vec3 {
        let cross = |a: Vec3, b: Vec3| Vec3::new(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
        let axis = Vec3::new(q.x, q.y, q.z);
        let u = cross(axis, v);
        let uu = cross(axis, u);
        v + u * (2.0 * q.w) + uu * 2.0
    }

    #[test]
    fn composition_is_the_written_out_arithmetic_to_the_bit() {
        // Quaternions and vectors of many sizes and signs, unit or not.
        let mut seed = 0x2545_f491_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed as f32 / u32::MAX as f32 - 0.5) * 4.0
        };
        for _ in 0..10_000 {
            let (p, l) =
                (Quat::from_xyzw(next(), next(), next(), next()), Quat::from_xyzw(next(), next(), next(), next()));
            let v = Vec3::new(next(), next(), next()) * 100.0;
            assert_eq!(bits(mul(p, l).to_array()), bits(hamilton_reference(p, l).to_array()), "{p} * {l}");
            assert_eq!(rotate(p, v).to_array().map(f32::to_bits), rotate_reference(p, v).to_array().map(f32::to_bits));
        }
    }

    #[test]
    fn composition_is_the_usual_one_for_unit_quaternions() {
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        let v = Vec3::new(1.0, -2.0, 3.0);
        assert!(rotate(q, v).abs_diff_eq(q * v, 1e-5));
        let p = Quat::from_rotation_z(0.4);
        assert!(mul(p, q).abs_diff_eq(p * q, 1e-6));
        // Off unit length the two forms part: the client's scales by |q|^2
        // only in part.
        let long = Quat::from_xyzw(q.x * 1.01, q.y * 1.01, q.z * 1.01, q.w * 1.01);
        assert!(!rotate(long, v).abs_diff_eq(long * v, 1e-3));
    }

    #[test]
    fn yaw_is_the_turn_about_up_whatever_the_bones_axes() {
        let base = Quat::from_rotation_z(1.1) * Quat::from_rotation_x(0.3);
        for yaw in [-3.0f32, -0.5, 0.0, 0.25, 1.5, 3.1] {
            let turned = Quat::from_rotation_y(yaw) * base;
            assert!((yaw_between(base, turned) - yaw).abs() < 1e-5, "{yaw}");
        }
        let tilted = Quat::from_rotation_x(0.4) * base;
        assert!(yaw_between(base, tilted).abs() < 1e-6, "a tilt is no turn");
    }
}
