//! A skeleton guessed from an animation alone, for viewing an `.ani` that
//! came without its `.skl`. Track positions are relative to the bone's
//! parent, so a good guess of the parents is what makes a sensible figure;
//! the rest pose is each track's first key.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};

use crate::format::{Animation, Bone, FileString, Skeleton};

use super::biped;
use super::names::loose_key;

/// How a guessed bone got its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParentRule {
    /// The root: `Bip01`, or else the first track.
    Root,
    /// The standard Biped's parent for this name (or its nearest ancestor
    /// present in the file).
    Biped,
    /// The previous bone of a numbered chain: `Mantle02` under `Mantle01`,
    /// `Finger01` under `Finger0`.
    Numbered,
    /// The longest other bone name this name starts with.
    Prefix,
    /// Nothing fits: under the root.
    Fallback,
}

/// A skeleton made from an animation's track names and first keys.
#[derive(Debug, Clone, PartialEq)]
pub struct GuessedSkeleton {
    /// Root first, then the other bones in track order; one tree.
    pub skeleton: Skeleton,
    /// The rule that gave each bone its parent.
    pub rules: Vec<ParentRule>,
}

impl GuessedSkeleton {
    /// How many bones got their parent by `rule`.
    pub fn count(&self, rule: ParentRule) -> usize {
        self.rules.iter().filter(|r| **r == rule).count()
    }
}

/// Guesses a skeleton for `animation`; `None` when it has no tracks.
/// Bones come from the tracks' names, kept as stored (the first track of a
/// name by the client's rule wins, as it does when posing), with the first
/// key as rest pose. Parents are a suggestion, so they are found by the
/// loose rule of [`super::names`]: `bip01 l hand` is a Biped hand too.
pub fn guess_skeleton(animation: &Animation) -> Option<GuessedSkeleton> {
    let mut names: Vec<&[u8]> = Vec::new();
    let mut rest: Vec<(Vec3, Quat)> = Vec::new();
    for track in &animation.tracks {
        let name = track.bone.c_str();
        if names.contains(&name) {
            continue;
        }
        let key = track.keys.first();
        rest.push(key.map_or((Vec3::ZERO, Quat::IDENTITY), |k| (k.position, k.rotation)));
        names.push(name);
    }
    let keys: Vec<String> = names.iter().map(|n| loose_key(n)).collect();
    let root_key = loose_key(biped::ROOT.as_bytes());
    let root = keys.iter().position(|k| *k == root_key).or((!names.is_empty()).then_some(0))?;
    let mut present: HashMap<&str, usize> = HashMap::new();
    for (i, key) in keys.iter().enumerate() {
        present.entry(key.as_str()).or_insert(i);
    }
    let parents: Vec<(Option<usize>, ParentRule)> = (0..names.len())
        .map(|i| if i == root { (None, ParentRule::Root) } else { parent_of(&keys[i], &present, root) })
        .collect();
    let parents = break_cycles(parents, root);
    // Root first: the client builds the tree from the first bone.
    let order: Vec<usize> = std::iter::once(root).chain((0..names.len()).filter(|&i| i != root)).collect();
    let bones = order.iter().map(|&i| bone(i, &names, &rest, &parents)).collect();
    let rules = order.iter().map(|&i| parents[i].1).collect();
    Some(GuessedSkeleton {
        skeleton: Skeleton { bones, linked_skeleton: FileString::default(), trailing: Vec::new() },
        rules,
    })
}

fn bone(i: usize, names: &[&[u8]], rest: &[(Vec3, Quat)], parents: &[(Option<usize>, ParentRule)]) -> Bone {
    let (position, rotation) = rest[i];
    Bone {
        name: names[i].into(),
        position,
        rotation,
        inverse_bind_position: Vec3::ZERO,
        inverse_bind_rotation: Quat::IDENTITY,
        object_tm: Mat4::IDENTITY.to_cols_array(),
        parent: parents[i].0.map_or(b"NoParent".as_slice(), |p| names[p]).into(),
        children: (0..names.len()).filter(|&c| parents[c].0 == Some(i)).map(|c| names[c].into()).collect(),
    }
}

/// The parent of a non-root bone (by its loose key), by the first rule
/// that finds one.
fn parent_of(name: &str, present: &HashMap<&str, usize>, root: usize) -> (Option<usize>, ParentRule) {
    let find = |n: &str| present.get(n).copied();
    if let Some(p) = biped_parent(name, present) {
        return (Some(p), ParentRule::Biped);
    }
    if let Some(p) = numbered_parent(name).into_iter().find_map(|n| find(&n)) {
        return (Some(p), ParentRule::Numbered);
    }
    let prefix =
        present.iter().filter(|(other, _)| !other.is_empty() && name.len() > other.len() && name.starts_with(**other));
    if let Some((_, &p)) = prefix.max_by_key(|(other, _)| other.len()) {
        return (Some(p), ParentRule::Prefix);
    }
    (Some(root), ParentRule::Fallback)
}

/// The Biped parent present in the file: the table's parent or its nearest
/// present ancestor. The neck hangs under the highest spine present, finger
/// and toe bases under the hand and foot of their side. Names are loose
/// keys, as are the table's names here.
fn biped_parent(name: &str, present: &HashMap<&str, usize>) -> Option<usize> {
    if name == "bip01 neck" {
        return (1..=4)
            .rev()
            .map(|n| format!("bip01 spine{n}"))
            .chain(["bip01 spine".into()])
            .find_map(|n| present.get(n.as_str()).copied());
    }
    if let Some(base) = digit_base(name, "finger").or_else(|| digit_base(name, "toe"))
        && let Some(&p) = present.get(base.as_str())
    {
        return Some(p);
    }
    let mut parent = biped_table_parent(name)??;
    loop {
        if let Some(&p) = present.get(parent.as_str()) {
            return Some(p);
        }
        parent = biped_table_parent(&parent)??;
    }
}

/// [`biped::parent_of`] by loose keys.
fn biped_table_parent(key: &str) -> Option<Option<String>> {
    let found = biped::BONES.iter().find(|(bone, _)| loose_key(bone.as_bytes()) == key);
    found.map(|(_, parent)| parent.map(|p| loose_key(p.as_bytes())))
}

/// For `bip01 l finger2` (one digit: a finger's first joint) the hand of
/// that side; for `... toe2` the foot.
fn digit_base(name: &str, part: &str) -> Option<String> {
    let (side, rest) = name.strip_prefix("bip01 ")?.split_once(' ')?;
    let digit = rest.strip_prefix(part)?;
    let one_digit = digit.len() == 1 && digit.bytes().all(|b| b.is_ascii_digit());
    let base = if part == "finger" { "hand" } else { "foot" };
    (matches!(side, "l" | "r") && one_digit).then(|| format!("bip01 {side} {base}"))
}

/// Names that would come before `name` in a numbered chain: the same name
/// with its last digit one lower, then without its last digit.
fn numbered_parent(name: &str) -> Vec<String> {
    let Some(last) = name.chars().last().and_then(|c| c.to_digit(10)) else { return Vec::new() };
    let stem = &name[..name.len() - 1];
    let mut candidates = Vec::new();
    if last > 0 {
        candidates.push(format!("{stem}{}", last - 1));
    }
    if stem.ends_with(|c: char| c.is_ascii_digit()) {
        candidates.push(stem.to_owned());
    }
    candidates
}

/// Rules that each look sensible can still make a loop (two names that
/// are prefixes of nothing but each other's numbering); any bone that does
/// not reach the root goes under it.
fn break_cycles(mut parents: Vec<(Option<usize>, ParentRule)>, root: usize) -> Vec<(Option<usize>, ParentRule)> {
    for start in 0..parents.len() {
        let mut at = start;
        let mut steps = 0;
        while let Some(p) = parents[at].0 {
            at = p;
            steps += 1;
            if steps > parents.len() {
                parents[start] = (Some(root), ParentRule::Fallback);
                break;
            }
        }
    }
    parents
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::Rig;
    use crate::format::{AniVersion, Key, Track};

    fn animation(names: &[&str]) -> Animation {
        let mut animation = Animation::new(AniVersion::V4002, 100);
        for (i, name) in names.iter().enumerate() {
            let key = Key::new(0, Vec3::new(i as f32, 1.0, 0.0), Quat::IDENTITY);
            animation.tracks.push(Track { bone: (*name).into(), weight: 1.0, keys: vec![key] });
        }
        animation
    }

    fn parent(guess: &GuessedSkeleton, name: &str) -> String {
        let bone = &guess.skeleton.bones[guess.skeleton.bone_index(name.as_bytes()).unwrap()];
        bone.parent.to_text()
    }

    #[test]
    fn biped_names_get_biped_parents_and_chains_follow_numbers() {
        let names = [
            "Bip01 Pelvis",
            "Bip01",
            "Bip01 Spine",
            "Bip01 Spine1",
            "Bip01 Spine2",
            "Bip01 Neck",
            "Bip01 L Thigh",
            "Bip01 L Hand",
            "Bip01 L Finger0",
            "Bip01 L Finger01",
            "Bip01 L Finger02",
            "Bip01 L Finger1",
            "Bip01 Mantle01",
            "Bip01 Mantle02",
            "Weapon",
            "Weapon Tip",
        ];
        let guess = guess_skeleton(&animation(&names)).unwrap();
        assert_eq!(guess.skeleton.bones[0].name.to_text(), "Bip01");
        for (child, expected) in [
            ("Bip01 Pelvis", "Bip01"),
            ("Bip01 Neck", "Bip01 Spine2"),
            ("Bip01 L Thigh", "Bip01 Spine"),
            // The arm is missing: the hand hangs under the nearest
            // Biped ancestor present.
            ("Bip01 L Hand", "Bip01 Neck"),
            ("Bip01 L Finger0", "Bip01 L Hand"),
            ("Bip01 L Finger01", "Bip01 L Finger0"),
            ("Bip01 L Finger02", "Bip01 L Finger01"),
            ("Bip01 L Finger1", "Bip01 L Hand"),
            ("Bip01 Mantle01", "Bip01"),
            ("Bip01 Mantle02", "Bip01 Mantle01"),
            ("Weapon", "Bip01"),
            ("Weapon Tip", "Weapon"),
        ] {
            assert_eq!(parent(&guess, child), expected, "{child}");
        }
        assert_eq!(guess.count(ParentRule::Fallback), 1);
        let rig = Rig::new(&guess.skeleton).expect("one tree");
        assert_eq!(rig.len(), names.len());
        // The rest pose is the first key.
        let pelvis = guess.skeleton.bone_index(b"Bip01 Pelvis").unwrap();
        assert_eq!(rig.rest[pelvis].position, Vec3::new(0.0, 1.0, 0.0));
    }

    #[test]
    fn bones_keep_their_stored_names_and_parents_are_found_loosely() {
        let korean = crate::format::FileString::encode_text("왼손");
        let mut animation = animation(&["bip01", "BIP01 PELVIS", "Bip01 Spine"]);
        let key = Key::new(0, Vec3::ONE, Quat::IDENTITY);
        animation.tracks.push(Track { bone: korean.clone(), weight: 1.0, keys: vec![key] });
        let guess = guess_skeleton(&animation).unwrap();
        assert_eq!(parent(&guess, "BIP01 PELVIS"), "bip01");
        assert_eq!(parent(&guess, "Bip01 Spine"), "BIP01 PELVIS");
        let rig = Rig::new(&guess.skeleton).unwrap();
        assert!(rig.bone(korean.as_bytes()).is_some(), "the CP949 track binds its own bone");
        assert!(rig.bone("왼손".as_bytes()).is_none());
    }

    #[test]
    fn any_track_names_make_one_tree() {
        let guess = guess_skeleton(&animation(&["b1", "a", "b2", "b1", "c", "", "a1"])).unwrap();
        assert_eq!(guess.skeleton.bones.len(), 6, "the repeated name is one bone");
        assert_eq!(guess.skeleton.bones[0].name.to_text(), "b1", "no Bip01: the first track is the root");
        assert_eq!(parent(&guess, "b2"), "b1");
        assert_eq!(parent(&guess, "a1"), "a");
        // An empty name is no one's prefix.
        assert_eq!(parent(&guess, "c"), "b1");
        Rig::new(&guess.skeleton).expect("one tree");
        assert!(guess_skeleton(&Animation::new(AniVersion::V4000, 0)).is_none());
    }
}
