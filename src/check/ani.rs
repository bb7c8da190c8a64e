//! Checks of an `.ani`, alone or against a skeleton.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use glam::Quat;

use super::{Finding, Rule, UNIT_TOLERANCE, check_string, check_trailing, missing_bone};
use crate::anim::BoneNames;
use crate::format::rotation::decode_small_three;
use crate::format::{AniLayout, Animation, PackedRotation, ReadOptions, Skeleton, Track};

/// Checks an `.ani` file's bytes; with a skeleton, also how its tracks meet
/// the bones. A file that does not load gives one error finding.
pub fn check_ani(bytes: &[u8], skeleton: Option<&Skeleton>) -> Vec<Finding> {
    let (animation, layout) = match Animation::read(bytes, ReadOptions { allow_long_strings: true }) {
        Ok(read) => read,
        Err(error) => return vec![Finding::new(Rule::Unreadable, error.offset(), error.to_string())],
    };
    let mut out = Vec::new();
    let c = AniCheck { animation: &animation, layout: &layout };
    c.header(&mut out);
    c.events(&mut out);
    c.tracks(&mut out);
    if let Some(skeleton) = skeleton {
        c.against(skeleton, &mut out);
    }
    check_trailing(&mut out, layout.trailer, &animation.trailing);
    out
}

struct AniCheck<'a> {
    animation: &'a Animation,
    layout: &'a AniLayout,
}

fn not_finite(values: &[f32]) -> bool {
    values.iter().any(|v| !v.is_finite())
}

impl AniCheck<'_> {
    fn header(&self, out: &mut Vec<Finding>) {
        let a = self.animation;
        if a.total_ms <= 0 {
            out.push(Finding::new(
                Rule::TotalTime,
                self.layout.total_ms,
                format!("total time is {} ms: a looping clip never wraps", a.total_ms),
            ));
        }
        if a.tracks.is_empty() {
            out.push(Finding::new(Rule::NoTracks, self.layout.total_ms + 4, "the animation has no tracks"));
        }
    }

    fn events(&self, out: &mut Vec<Finding>) {
        let total = self.animation.total_ms as f32;
        for (i, (event, &offset)) in self.animation.events.iter().zip(&self.layout.events).enumerate() {
            let place = format!("event {i} '{}'", event.kind);
            check_string(out, offset, &format!("{place} type"), &event.kind);
            check_string(out, offset, &format!("{place} sub info"), &event.sub_info);
            let t = event.time_ms;
            if !t.is_finite() {
                out.push(Finding::new(Rule::NotFinite, offset, format!("{place}: time is {t}")));
            } else if !(0.0..=total).contains(&t) {
                out.push(Finding::new(
                    Rule::EventOutside,
                    offset,
                    format!("{place}: time {t} ms is outside 0..{total} ms and never fires"),
                ));
            }
        }
    }

    fn tracks(&self, out: &mut Vec<Finding>) {
        let mut first_of: HashMap<&[u8], usize> = HashMap::new();
        for (t, track) in self.animation.tracks.iter().enumerate() {
            let offset = self.layout.tracks[t].0;
            let place = format!("track {t} '{}'", track.bone);
            check_string(out, offset, &format!("{place} bone name"), &track.bone);
            if let Entry::Occupied(first) = first_of.entry(track.bone.c_str()) {
                let first = *first.get();
                out.push(Finding::new(
                    Rule::DuplicateTrack,
                    offset,
                    format!("{place}: track {first} drives the same bone; the client blends the two by their weights"),
                ));
            } else {
                first_of.insert(track.bone.c_str(), t);
            }
            if !track.weight.is_finite() {
                out.push(Finding::new(Rule::NotFinite, offset, format!("{place}: weight is {}", track.weight)));
            } else if track.weight == 0.0 {
                out.push(Finding::new(
                    Rule::ZeroWeight,
                    offset,
                    format!("{place}: weight 0, so the client's blend drops the track (the bone stays at rest unless another track drives it)"),
                ));
            } else if track.weight < 0.0 {
                out.push(Finding::new(
                    Rule::NegativeWeight,
                    offset,
                    format!("{place}: weight {}: alone the track leaves the bone at rest, beside another it pushes the blend away from itself", track.weight),
                ));
            }
            if track.keys.is_empty() {
                out.push(Finding::new(
                    Rule::EmptyTrack,
                    offset,
                    format!("{place} has no keys: the client reads out of range"),
                ));
            }
            self.keys(out, t, track, &place);
        }
    }

    fn keys(&self, out: &mut Vec<Finding>, t: usize, track: &Track, place: &str) {
        let version = self.animation.version;
        let total = self.animation.total_ms;
        for (k, key) in track.keys.iter().enumerate() {
            let offset = self.layout.key(version, t, k);
            let at = (place, "key", k);
            if let Some(prev) = k.checked_sub(1).map(|p| track.keys[p].time_ms) {
                let (rule, how) =
                    if key.time_ms < prev { (Rule::KeyOrder, "goes back") } else { (Rule::KeyRepeat, "repeats") };
                if key.time_ms <= prev {
                    out.push(Finding::on_item(
                        rule,
                        offset,
                        at,
                        format!("time {} ms {how} (previous key at {prev} ms)", key.time_ms),
                    ));
                }
            }
            if key.time_ms > total || key.time_ms < 0 {
                out.push(Finding::on_item(
                    Rule::KeyOutside,
                    offset,
                    at,
                    format!("time {} ms is outside 0..{total} ms", key.time_ms),
                ));
            }
            if not_finite(&key.position.to_array()) {
                out.push(Finding::on_item(Rule::NotFinite, offset, at, format!("position is {}", key.position)));
            }
            self.rotation(out, offset, at, key.rotation, key.packed);
        }
    }

    fn rotation(
        &self,
        out: &mut Vec<Finding>,
        offset: usize,
        at: (&str, &'static str, usize),
        rotation: Quat,
        packed: Option<PackedRotation>,
    ) {
        if let Some(PackedRotation::SmallThree(word)) = packed
            && decode_small_three(word).nan_in_client
        {
            out.push(Finding::on_item(
                Rule::SmallThreeNan,
                offset,
                at,
                format!("rotation word {word:#010x} decodes to NaN in the client (shown with the lost component as 0)"),
            ));
            return;
        }
        if not_finite(&rotation.to_array()) {
            out.push(Finding::on_item(Rule::NotFinite, offset, at, format!("rotation is {rotation}")));
        } else if (rotation.length() - 1.0).abs() > UNIT_TOLERANCE {
            out.push(Finding::on_item(
                Rule::NotUnit,
                offset,
                at,
                format!("rotation has length {:.4}, far from 1", rotation.length()),
            ));
        }
    }

    fn against(&self, skeleton: &Skeleton, out: &mut Vec<Finding>) {
        let names = BoneNames::new(skeleton.bones.iter().map(|b| b.name.c_str()));
        for (t, track) in self.animation.tracks.iter().enumerate() {
            if names.of(&track.bone).is_none() {
                let (offset, what) = (self.layout.tracks[t].0, format!("track {t}"));
                let effect = "the client drives the root bone with it";
                out.push(missing_bone(&names, skeleton, offset, &what, &track.bone, effect));
            }
        }
        for bone in &skeleton.bones {
            if self.animation.track(bone.name.c_str()).is_none() {
                out.push(Finding::new(
                    Rule::BoneWithoutTrack,
                    self.layout.total_ms + 4,
                    format!("bone '{}' has no track and stays at rest", bone.name),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{AniVersion, Event, Key};
    use glam::Vec3;

    fn rules(findings: &[Finding]) -> Vec<Rule> {
        findings.iter().map(|f| f.rule).collect()
    }

    #[test]
    fn finds_what_breaks_in_the_game() {
        let mut a = Animation::new(AniVersion::V4000, 100);
        a.events.push(Event { kind: "motion_sound".into(), sub_info: "a.wav".into(), time_ms: 150.0 });
        let key = |t| Key::new(t, Vec3::ZERO, Quat::IDENTITY);
        a.tracks.push(Track { bone: "Bip01".into(), weight: 1.0, keys: vec![key(0), key(50), key(40), key(200)] });
        a.tracks.push(Track { bone: "Bip01".into(), weight: 0.0, keys: vec![] });
        a.tracks.push(Track { bone: "Bip01 Head".into(), weight: -1.0, keys: vec![key(0), key(0)] });
        a.tracks.push(Track {
            bone: "Bip01 Tail".into(),
            weight: 1.0,
            keys: vec![Key::new(0, Vec3::NAN, Quat::from_xyzw(0.0, 0.0, 0.0, 2.0))],
        });
        a.trailing = vec![1, 2, 3];
        let bytes = a.to_bytes().unwrap();
        let skeleton = crate::anim::biped::skeleton();
        let findings = check_ani(&bytes, Some(&skeleton));
        let rules = rules(&findings);
        for rule in [
            Rule::EventOutside,
            Rule::KeyOrder,
            Rule::KeyRepeat,
            Rule::KeyOutside,
            Rule::DuplicateTrack,
            Rule::ZeroWeight,
            Rule::NegativeWeight,
            Rule::EmptyTrack,
            Rule::NotFinite,
            Rule::NotUnit,
            Rule::UnknownBone,
            Rule::BoneWithoutTrack,
            Rule::TrailingBytes,
        ] {
            assert!(rules.contains(&rule), "{rule} missing from {findings:#?}");
        }
        let order = findings.iter().find(|f| f.rule == Rule::KeyOrder).unwrap();
        assert_eq!(order.severity, crate::check::Severity::Error);
        let (_, layout) = Animation::read(&bytes, ReadOptions::default()).unwrap();
        assert_eq!(order.offset, layout.key(AniVersion::V4000, 0, 2));
        assert!(order.message.starts_with("track 0 'Bip01', key 2: time 40 ms goes back"), "{}", order.message);
        let repeat = findings.iter().find(|f| f.rule == Rule::KeyRepeat).unwrap();
        assert_eq!(repeat.severity, crate::check::Severity::Warning);
        assert!(repeat.message.starts_with("track 2 'Bip01 Head', key 1: time 0 ms repeats"), "{}", repeat.message);
    }

    #[test]
    fn small_three_nan_is_an_error() {
        let mut a = Animation::new(AniVersion::V4001, 100);
        let mut key = Key::new(0, Vec3::ZERO, Quat::IDENTITY);
        key.packed = Some(PackedRotation::SmallThree(0));
        key.rotation = key.packed.unwrap().decode();
        a.tracks.push(Track { bone: "Bip01".into(), weight: 1.0, keys: vec![key] });
        assert_eq!(rules(&check_ani(&a.to_bytes().unwrap(), None)), [Rule::SmallThreeNan]);
    }

    #[test]
    fn unreadable_file_is_one_error_with_its_offset() {
        let findings = check_ani(b"ANI\0\xa0\x0f\0\0\x05\0\0\0", None);
        assert_eq!(findings.len(), 1);
        assert_eq!((findings[0].rule, findings[0].offset), (Rule::Unreadable, 12));
    }
}
