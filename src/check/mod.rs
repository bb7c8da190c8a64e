//! The lint behind `io3d check`: what in a file would break or misbehave in
//! the game, each finding with its byte offset and a one-line reason.

mod ani;
mod dds;
mod file;
mod links;
mod material;
mod msh;
mod rule;
mod skl;

pub use ani::check_ani;
pub use dds::check_dds;
pub use file::{check_file, unreadable};
pub use links::{CharacterCheck, check_character, check_mesh_scripts};
pub use material::check_material;
pub use msh::{check_cms, check_mesh_bones, check_msh};
pub use rule::{Rule, catalogue};
pub use skl::check_skl;

use std::fmt;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "json", derive(serde::Serialize), serde(rename_all = "lowercase"))]
pub enum Severity {
    /// Worth knowing; harmless in the game.
    Info,
    /// Plays, but probably not as meant.
    Warning,
    /// Breaks in the game (a crash, NaN, a wrong bone) or does not load.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        })
    }
}

/// One thing the lint found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Finding {
    /// How bad it is: its rule's severity.
    pub severity: Severity,
    /// The kind of finding (written as its id, such as `empty-track`).
    pub rule: Rule,
    /// Byte offset in the file of the part it is about.
    pub offset: usize,
    /// The reason, in one line, naming the part ("track 3 'Bip01 Spine'").
    pub message: String,
    /// The numbered item it is about (a key, a vertex, a face), so that
    /// runs of the same finding on consecutive items can be shown as one
    /// line ([`group`]).
    #[cfg_attr(feature = "json", serde(skip))]
    pub item: Option<Item>,
}

/// A numbered item within a part of a file: key 7 of track 3, vertex 12 of
/// the weights.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The part that holds it ("track 3 'Bip01 Spine'"; may be empty).
    pub within: String,
    /// What it is ("key", "vertex", "face").
    pub unit: &'static str,
    /// Its index.
    pub index: usize,
    /// The reason, without the place.
    pub detail: String,
}

impl Finding {
    /// A finding of `rule`, with the rule's severity.
    pub fn new(rule: Rule, offset: usize, message: impl Into<String>) -> Self {
        Self { severity: rule.severity(), rule, offset, message: message.into(), item: None }
    }

    /// A finding about item `index` of `within` (key 4 of a track, vertex
    /// 9 of a mesh): the message names them before `detail`.
    pub fn on_item(
        rule: Rule,
        offset: usize,
        (within, unit, index): (&str, &'static str, usize),
        detail: impl Into<String>,
    ) -> Self {
        let detail = detail.into();
        let place = if within.is_empty() { format!("{unit} {index}") } else { format!("{within}, {unit} {index}") };
        let message = format!("{place}: {detail}");
        let item = Some(Item { within: within.to_owned(), unit, index, detail });
        Self { severity: rule.severity(), rule, offset, message, item }
    }
}

/// Findings as people read them: runs of one rule on consecutive items of
/// one part (keys 4 to 8 of a track) become one line, and a rule met on
/// items of many parts (the last key of every track) becomes one line
/// that counts them and shows the first. Lines keep the order in which
/// their first finding appears.
pub fn group(findings: &[Finding]) -> Vec<Grouped<'_>> {
    spread_over_parts(runs(findings))
}

/// Runs of one rule on consecutive items of one part.
fn runs(findings: &[Finding]) -> Vec<Grouped<'_>> {
    let mut groups: Vec<Grouped<'_>> = Vec::new();
    // The open run of each rule and part: where it is in `groups`.
    let mut open: std::collections::HashMap<(Rule, &str, &str), usize> = std::collections::HashMap::new();
    for finding in findings {
        let Some(item) = &finding.item else {
            groups.push(Grouped::one(finding));
            continue;
        };
        let key = (finding.rule, item.within.as_str(), item.unit);
        if let Some(&g) = open.get(&key) {
            let group = &mut groups[g];
            let last = group.last.map_or(group.first, |l| l);
            if last.item.as_ref().is_some_and(|l| l.index + 1 == item.index) {
                group.last = Some(finding);
                group.count += 1;
                group.bytes.1 = group.bytes.1.max(finding.offset);
                continue;
            }
        }
        open.insert(key, groups.len());
        groups.push(Grouped::one(finding));
    }
    groups
}

/// Folds the runs of one rule on items of one kind of part (tracks, say)
/// into the first, where they meet more than one part.
fn spread_over_parts(runs: Vec<Grouped<'_>>) -> Vec<Grouped<'_>> {
    // How many parts each rule meets (runs come in file order, a part's
    // together).
    let mut parts = std::collections::HashMap::new();
    for run in &runs {
        if let Some(k) = key(run) {
            let (count, last) = parts.entry(k).or_insert((0, ""));
            if part(run) != *last {
                (*count, *last) = (*count + 1, part(run));
            }
        }
    }
    let mut lines: Vec<Grouped<'_>> = Vec::new();
    let mut line_of = std::collections::HashMap::new();
    for run in runs {
        let Some(k) = key(&run).filter(|k| parts[k].0 > 1) else {
            lines.push(run);
            continue;
        };
        let Some(&line) = line_of.get(&k) else {
            line_of.insert(k, lines.len());
            let spread = Spread { parts: parts[&k].0, findings: run.count, bytes: run.bytes };
            lines.push(Grouped { spread: Some(spread), ..run });
            continue;
        };
        if let Some(spread) = &mut lines[line].spread {
            spread.findings += run.count;
            spread.bytes = (spread.bytes.0.min(run.bytes.0), spread.bytes.1.max(run.bytes.1));
        }
    }
    lines
}

/// What runs must share to be one line: rule, unit and the kind of part
/// they are on.
type SpreadKey<'a> = (Rule, &'static str, &'a str);

fn key<'a>(group: &Grouped<'a>) -> Option<SpreadKey<'a>> {
    let item = group.first.item.as_ref().filter(|i| !i.within.is_empty())?;
    Some((group.first.rule, item.unit, part_kind(&item.within)))
}

/// The part a run is on ("" for none).
fn part<'a>(group: &Grouped<'a>) -> &'a str {
    group.first.item.as_ref().map_or("", |i| i.within.as_str())
}

/// The first word of a part's name ("track" of "track 3 'Bip01'").
fn part_kind(within: &str) -> &str {
    within.split_whitespace().next().unwrap_or(within)
}

/// A line of findings: one finding, a run of one rule on consecutive items,
/// or such runs on many parts.
#[derive(Debug, Clone, Copy)]
pub struct Grouped<'a> {
    /// The first finding of the (first) run.
    pub first: &'a Finding,
    /// The last of the first run, when it has more than one.
    pub last: Option<&'a Finding>,
    /// How many findings the first run stands for.
    pub count: usize,
    /// The first and last byte offset of the first run.
    pub bytes: (usize, usize),
    /// The same rule on items of other parts, when there are any.
    pub spread: Option<Spread>,
}

/// A rule met on items of many parts of one kind.
#[derive(Debug, Clone, Copy)]
pub struct Spread {
    /// How many parts.
    pub parts: usize,
    /// How many findings in all.
    pub findings: usize,
    /// The lowest and highest byte offset.
    pub bytes: (usize, usize),
}

impl<'a> Grouped<'a> {
    fn one(finding: &'a Finding) -> Self {
        Self { first: finding, last: None, count: 1, bytes: (finding.offset, finding.offset), spread: None }
    }

    /// Where and what: the part, the item or run of items, and the reason.
    fn place_and_detail(&self) -> String {
        let (Some(item), Some(last_item)) = (&self.first.item, self.last.and_then(|l| l.item.as_ref())) else {
            return self.first.message.clone();
        };
        let within = if item.within.is_empty() { String::new() } else { format!("{}, ", item.within) };
        let units = plural(item.unit);
        let (first, last, count) = (item.index, last_item.index, self.count);
        format!("{within}{units} {first} to {last} ({count} {units}; {} {first}: {})", item.unit, item.detail)
    }
}

impl fmt::Display for Grouped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (severity, rule) = (self.first.severity, self.first.rule);
        let bytes = |(from, to): (usize, usize)| {
            if from == to { format!("byte {from}") } else { format!("bytes {from} to {to}") }
        };
        match (self.spread, &self.first.item) {
            (Some(spread), Some(item)) => write!(
                f,
                "{severity} [{rule}] on {} {}s ({} findings at {}); the first: {}",
                spread.parts,
                part_kind(&item.within),
                spread.findings,
                bytes(spread.bytes),
                self.place_and_detail()
            ),
            _ => write!(f, "{severity} [{rule}] at {}: {}", bytes(self.bytes), self.place_and_detail()),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}] at byte {}: {}", self.severity, self.rule, self.offset, self.message)
    }
}

/// Findings shared by every format: strings the client cuts or overflows.
fn check_string(out: &mut Vec<Finding>, offset: usize, what: &str, s: &crate::format::FileString) {
    if s.len() >= crate::format::string::MAX_STRING_LEN {
        out.push(Finding::new(
            Rule::LongString,
            offset,
            format!("{what} is {} bytes long and overflows the client's 260-byte buffer", s.len()),
        ));
    }
    if s.has_zero_byte() {
        out.push(Finding::new(
            Rule::ZeroByte,
            offset,
            format!("{what} '{}' holds a zero byte: the client cuts it to '{}'", s.to_text(), s.name_text()),
        ));
    }
}

/// The finding for `what` (a track, a mesh's bone name) naming a bone the
/// skeleton lacks by the client's byte comparison, whose `effect` follows:
/// `loose-bone` when a bone of the skeleton matches it loosely (another
/// case or text encoding, [`crate::anim::names`]), which it names, and
/// `unknown-bone` otherwise.
fn missing_bone(
    names: &crate::anim::BoneNames,
    skeleton: &crate::format::Skeleton,
    offset: usize,
    what: &str,
    name: &crate::format::FileString,
    effect: &str,
) -> Finding {
    match names.loosely(name.c_str()) {
        Some(bone) => Finding::new(
            Rule::LooseBone,
            offset,
            format!(
                "{what} '{name}': the skeleton's bone '{}' is spelt otherwise (case or text encoding) and the client compares bytes, so {effect}",
                skeleton.bones[bone].name
            ),
        ),
        None => Finding::new(
            Rule::UnknownBone,
            offset,
            format!("{what} '{name}': the skeleton has no such bone, so {effect}"),
        ),
    }
}

fn check_trailing(out: &mut Vec<Finding>, offset: usize, trailing: &[u8]) {
    if !trailing.is_empty() {
        out.push(Finding::new(
            Rule::TrailingBytes,
            offset,
            format!("{} bytes after the end of the data; the client ignores them", trailing.len()),
        ));
    }
}

/// "keys", "vertices", "faces".
fn plural(unit: &str) -> String {
    match unit {
        "vertex" => "vertices".into(),
        _ => format!("{unit}s"),
    }
}

/// Where each line of a text file starts, to turn line numbers into the
/// byte offsets findings carry.
pub struct LineStarts(Vec<usize>);

impl LineStarts {
    /// The line starts of `bytes` (lines end at `\n`).
    pub fn new(bytes: &[u8]) -> Self {
        let ends = bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1);
        Self(std::iter::once(0).chain(ends).collect())
    }

    /// The byte offset of line `line` (from 1); the last line's for lines
    /// past the end.
    pub fn offset(&self, line: usize) -> usize {
        self.0.get(line.saturating_sub(1)).or(self.0.last()).copied().unwrap_or(0)
    }
}

/// The first line (from 1) whose words are those of `text` (a file name in
/// a model config, `texture NAME` in a script), however spaced, or 1.
pub fn line_of(bytes: &[u8], text: &str) -> usize {
    let words: Vec<&str> = text.split_whitespace().collect();
    bytes
        .split(|&b| b == b'\n')
        .position(|line| crate::format::string::decode_text(line).split_whitespace().eq(words.iter().copied()))
        .map_or(1, |i| i + 1)
}

/// How far from unit length a rotation may be before it is reported
/// (4002 keys are never renormalised, and are off by about 1e-5).
const UNIT_TOLERANCE: f32 = 0.01;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_met_on_many_parts_is_one_line() {
        let on = |track: usize, k: usize, rule| {
            let within = format!("track {track} 'Bone{track}'");
            Finding::on_item(rule, 1000 * track + k, (&within, "key", k), "outside")
        };
        let mut findings: Vec<Finding> = (0..52).map(|t| on(t, 20 + t % 2, Rule::KeyOutside)).collect();
        findings.extend((0..16).flat_map(|t| (4..=8).map(move |k| on(t, k, Rule::NotUnit))));
        findings.push(Finding::new(Rule::BoneWithoutTrack, 0, "bone 'Bip01' has no track"));
        let lines: Vec<String> = group(&findings).iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "warning [key-outside] on 52 tracks (52 findings at bytes 20 to 51021); the first: track 0 'Bone0', key 20: outside",
                "warning [not-unit] on 16 tracks (80 findings at bytes 4 to 15008); the first: track 0 'Bone0', keys 4 to 8 (5 keys; key 4: outside)",
                "info [bone-without-track] at byte 0: bone 'Bip01' has no track",
            ]
        );
    }

    #[test]
    fn runs_on_consecutive_items_become_one_line() {
        use Rule::{KeyRepeat, NotUnit};
        let key = |rule, k| Finding::on_item(rule, 100 + k, ("track 0 'Bip01'", "key", k), format!("detail {k}"));
        let vertex = |v| Finding::on_item(Rule::BoneIndex, v, ("weights", "vertex", v), "out");
        assert_eq!(
            group(&[vertex(7), vertex(8)])[0].to_string(),
            "error [bone-index] at bytes 7 to 8: weights, vertices 7 to 8 (2 vertices; vertex 7: out)"
        );
        let findings = [key(NotUnit, 4), key(KeyRepeat, 4), key(NotUnit, 5), key(NotUnit, 6), key(NotUnit, 9)];
        let lines: Vec<String> = group(&findings).iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "warning [not-unit] at bytes 104 to 106: track 0 'Bip01', keys 4 to 6 (3 keys; key 4: detail 4)",
                "warning [key-repeat] at byte 104: track 0 'Bip01', key 4: detail 4",
                "warning [not-unit] at byte 109: track 0 'Bip01', key 9: detail 9",
            ]
        );
    }
}
