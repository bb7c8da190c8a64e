//! Texture animation: how the client moves a texture unit's UVs over time
//! (`scroll_anim`, `rotate_anim`, `wave_xform`), read from the unit's
//! lines. `anim_texture` is not among them: the client never registers
//! its frames, so frame 0 shows.

use glam::{Affine2, Vec2};

use crate::format::c_text::atof;
use crate::format::material::TextureUnit;

/// One line that moves a unit's UVs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UvMotion {
    /// `scroll_anim u v`: UVs move by `-speed x t` a second, wrapped to
    /// (-1, 1).
    Scroll(Vec2),
    /// `rotate_anim deg`: UVs turn about (0.5, 0.5) by this many degrees a
    /// second.
    Rotate(f32),
    /// `wave_xform target shape base frequency phase amplitude`: the
    /// target follows `base + (wave(t x frequency) + 1) / 2 x amplitude`;
    /// the client ignores the phase.
    Wave {
        /// What moves.
        target: WaveTarget,
        /// The wave's shape.
        shape: WaveShape,
        /// The value at the wave's bottom.
        base: f32,
        /// Cycles a second.
        frequency: f32,
        /// The swing from bottom to top.
        amplitude: f32,
    },
}

/// What a `wave_xform` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveTarget {
    /// `translate_u`.
    TranslateU,
    /// `translate_v`.
    TranslateV,
    /// `rotate`, in degrees (as `rotate_anim` counts them).
    Rotate,
    /// `scale_u`.
    ScaleU,
    /// `scale_v`.
    ScaleV,
}

/// The shape of a `wave_xform`, each from -1 to 1 over a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveShape {
    /// `sine`.
    Sine,
    /// `triangle`.
    Triangle,
    /// `square`.
    Square,
    /// `sawtooth`: rising.
    Sawtooth,
    /// `inverse_sawtooth`: falling.
    InverseSawtooth,
}

impl WaveShape {
    /// The wave at `cycles` (its phase within a cycle is the fraction).
    pub fn at(self, cycles: f32) -> f32 {
        let x = cycles.rem_euclid(1.0);
        match self {
            Self::Sine => (x * std::f32::consts::TAU).sin(),
            Self::Triangle => 1.0 - 4.0 * (x - 0.5).abs(),
            Self::Square => {
                if x < 0.5 {
                    1.0
                } else {
                    -1.0
                }
            }
            Self::Sawtooth => 2.0 * x - 1.0,
            Self::InverseSawtooth => 1.0 - 2.0 * x,
        }
    }
}

/// The motions of a texture unit, in the order written (lines the
/// client's reader refuses are left out; the material lint reports them).
pub fn uv_motions(unit: &TextureUnit) -> Vec<UvMotion> {
    unit.other.iter().filter_map(|(key, args)| motion(key, args)).collect()
}

fn motion(key: &str, args: &str) -> Option<UvMotion> {
    let lower = args.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let number = |i: usize| words.get(i).map(|w| atof(w.as_bytes()).0);
    match key {
        "scroll_anim" => Some(UvMotion::Scroll(Vec2::new(number(0)?, number(1)?))),
        "rotate_anim" => Some(UvMotion::Rotate(number(0)?)),
        "wave_xform" => Some(UvMotion::Wave {
            target: match *words.first()? {
                "translate_u" => WaveTarget::TranslateU,
                "translate_v" => WaveTarget::TranslateV,
                "rotate" => WaveTarget::Rotate,
                "scale_u" => WaveTarget::ScaleU,
                "scale_v" => WaveTarget::ScaleV,
                _ => return None,
            },
            shape: match *words.get(1)? {
                "sine" => WaveShape::Sine,
                "triangle" => WaveShape::Triangle,
                "square" => WaveShape::Square,
                "sawtooth" => WaveShape::Sawtooth,
                "inverse_sawtooth" => WaveShape::InverseSawtooth,
                _ => return None,
            },
            base: number(2)?,
            frequency: number(3)?,
            amplitude: number(5)?,
        }),
        _ => None,
    }
}

/// Where the motions put the UVs `seconds` into the clock: a transform of
/// texture coordinates, each motion applied after the ones before it.
pub fn uv_transform(motions: &[UvMotion], seconds: f32) -> Affine2 {
    let centre = Vec2::splat(0.5);
    let about_centre = |inner: Affine2| Affine2::from_translation(centre) * inner * Affine2::from_translation(-centre);
    let turn = |degrees: f32| about_centre(Affine2::from_angle(degrees.to_radians()));
    motions.iter().fold(Affine2::IDENTITY, |sum, motion| {
        let step = match *motion {
            UvMotion::Scroll(speed) => {
                let offset = -speed * seconds;
                Affine2::from_translation(offset - offset.trunc())
            }
            UvMotion::Rotate(degrees) => turn(degrees * seconds),
            UvMotion::Wave { target, shape, base, frequency, amplitude } => {
                let value = base + (shape.at(seconds * frequency) + 1.0) / 2.0 * amplitude;
                match target {
                    WaveTarget::TranslateU => Affine2::from_translation(Vec2::new(value, 0.0)),
                    WaveTarget::TranslateV => Affine2::from_translation(Vec2::new(0.0, value)),
                    WaveTarget::Rotate => turn(value),
                    WaveTarget::ScaleU => about_centre(Affine2::from_scale(Vec2::new(value, 1.0))),
                    WaveTarget::ScaleV => about_centre(Affine2::from_scale(Vec2::new(1.0, value))),
                }
            }
        };
        step * sum
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texture unit of a one-pass script with `lines` in it.
    fn unit(lines: &[(&str, &str)]) -> TextureUnit {
        let lines: String = lines.iter().map(|(key, args)| format!("    {key} {args}\n")).collect();
        let text = format!(
            "material M\n{{\n technique\n {{\n  pass\n  {{\n   texture_unit\n   {{\n    texture a.dds\n{lines}   }}\n  }}\n }}\n}}\n"
        );
        let script = crate::format::MaterialScript::parse(text.as_bytes()).expect("a script");
        script.materials[0].passes()[0].texture_units[0].clone()
    }

    #[test]
    fn scrolling_wraps_and_rotating_turns_about_the_centre() {
        let motions = uv_motions(&unit(&[("scroll_anim", "0.25 0"), ("anim_texture", "a.dds 4 0.5")]));
        assert_eq!(motions, [UvMotion::Scroll(Vec2::new(0.25, 0.0))]);
        let moved = uv_transform(&motions, 6.0).transform_point2(Vec2::ZERO);
        assert!(moved.abs_diff_eq(Vec2::new(-0.5, 0.0), 1e-6), "-1.5 wraps to -0.5: {moved}");
        let turned = uv_transform(&[UvMotion::Rotate(90.0)], 1.0).transform_point2(Vec2::new(1.0, 0.5));
        assert!(turned.abs_diff_eq(Vec2::new(0.5, 1.0), 1e-6), "{turned}");
    }

    #[test]
    fn waves_swing_from_their_base_by_their_amplitude() {
        let [wave] = uv_motions(&unit(&[("wave_xform", "translate_u sawtooth 0.1 2 0.7 0.4")]))[..] else {
            panic!("one motion")
        };
        let at = |t| uv_transform(&[wave], t).transform_point2(Vec2::ZERO).x;
        assert!((at(0.0) - 0.1).abs() < 1e-6, "the bottom, phase ignored: {}", at(0.0));
        assert!((at(0.25) - 0.3).abs() < 1e-6, "halfway through a cycle of half a second: {}", at(0.25));
        assert_eq!(WaveShape::Square.at(0.25), 1.0);
        assert_eq!(WaveShape::Triangle.at(0.5), 1.0);
        assert_eq!(WaveShape::InverseSawtooth.at(0.0), 1.0);
    }
}
