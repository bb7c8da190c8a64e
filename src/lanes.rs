//! Numbers the client's arithmetic runs on: one `f32`, or four in the
//! lanes of a [`Vec4`].
//!
//! Each lane of a `Vec4` operation is one IEEE operation, rounded as the
//! same `f32` operation is (glam's SSE2, NEON and scalar forms alike, and
//! Rust never fuses a multiply and an add), so arithmetic written once over
//! [`Lanes`] gives four results at once that are, to the bit, what it gives
//! one at a time. Sampling interpolates four tracks at once this way: the
//! client's interpolation is a long chain of dependent steps, and four
//! chains side by side keep the core busy where one leaves it waiting.

use std::ops::{Add, Mul, Neg, Sub};

use glam::{BVec4A, Vec4};

/// `each` of a quaternion's four components, written out: `[T; 4]::map`
/// was not always inlined into the blend's slerp (a call a component, 2%
/// of a crowd's instructions in one build), this always is.
#[inline(always)]
pub(crate) fn four<T>(each: impl Fn(usize) -> T) -> [T; 4] {
    [each(0), each(1), each(2), each(3)]
}

/// One `f32` or four, with the tests and choices the client's arithmetic
/// makes per number.
pub(crate) trait Lanes:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Neg<Output = Self>
{
    /// Which lanes pass a test.
    type Mask: Copy;

    /// `value` in every lane.
    fn splat(value: f32) -> Self;
    /// The lanes at or below `than`.
    fn at_most(self, than: f32) -> Self::Mask;
    /// The lanes below `than`.
    fn below(self, than: f32) -> Self::Mask;
    /// Whether any lane passed.
    fn any(mask: Self::Mask) -> bool;
    /// `then`'s lanes where the mask passed, `otherwise`'s elsewhere.
    fn select(mask: Self::Mask, then: Self, otherwise: Self) -> Self;
    /// Negative lanes raised to 0 (no lane is NaN).
    fn at_least_zero(self) -> Self;
    fn sqrt(self) -> Self;
}

impl Lanes for f32 {
    type Mask = bool;

    fn splat(value: f32) -> Self {
        value
    }

    fn at_most(self, than: f32) -> bool {
        self <= than
    }

    fn below(self, than: f32) -> bool {
        self < than
    }

    fn any(mask: bool) -> bool {
        mask
    }

    fn select(mask: bool, then: Self, otherwise: Self) -> Self {
        if mask { then } else { otherwise }
    }

    fn at_least_zero(self) -> Self {
        self.max(0.0)
    }

    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
}

impl Lanes for Vec4 {
    type Mask = BVec4A;

    fn splat(value: f32) -> Self {
        Vec4::splat(value)
    }

    fn at_most(self, than: f32) -> BVec4A {
        self.cmple(Vec4::splat(than))
    }

    fn below(self, than: f32) -> BVec4A {
        self.cmplt(Vec4::splat(than))
    }

    fn any(mask: BVec4A) -> bool {
        mask.any()
    }

    fn select(mask: BVec4A, then: Self, otherwise: Self) -> Self {
        Vec4::select(mask, then, otherwise)
    }

    fn at_least_zero(self) -> Self {
        self.max(Vec4::ZERO)
    }

    fn sqrt(self) -> Self {
        Vec4::sqrt(self)
    }
}
