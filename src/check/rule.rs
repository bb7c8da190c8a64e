//! The catalogue of lint rules: every kind of finding, with its stable id,
//! its one severity and what it means. Findings are made from a [`Rule`],
//! so a rule cannot be an error in one place and a warning in another, and
//! `io3d check --rules` and the CLI reference (`docs/cli.md`) list the same rules.

use std::fmt;

use super::Severity;

/// Declares [`Rule`]: each variant's doc comment is also its one-line
/// description ([`Rule::doc`]), so the two cannot drift apart.
macro_rules! rules {
    ($($(#[doc = $doc:literal])+ $variant:ident = $id:literal, $severity:ident;)+) => {
        /// A kind of finding of the lint. Its id is what findings print
        /// (`error [empty-track] ...`) and what `--json` writes; ids are
        /// stable.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Rule {
            /// Every rule, in catalogue order.
            pub const ALL: &[Self] = &[$(Self::$variant),+];

            /// The stable kebab-case id, such as `empty-track`.
            pub const fn id(self) -> &'static str {
                match self {
                    $(Self::$variant => $id,)+
                }
            }

            /// How bad a finding of this rule is: by what the client does.
            pub const fn severity(self) -> Severity {
                match self {
                    $(Self::$variant => Severity::$severity,)+
                }
            }

            /// What the rule means, in one line.
            pub fn doc(self) -> &'static str {
                match self {
                    $(Self::$variant => concat!($($doc),+).trim(),)+
                }
            }
        }
    };
}

rules! {
    /// The file does not load, or a folder cannot be searched.
    Unreadable = "unreadable", Error;
    /// A string is 260 bytes or longer and overflows the client's buffer.
    LongString = "long-string", Warning;
    /// A string holds a zero byte: the client cuts it there.
    ZeroByte = "zero-byte", Warning;
    /// Bytes after the end of the data, which the client ignores.
    TrailingBytes = "trailing-bytes", Warning;
    /// A value is NaN or infinite: the client's math spreads it to the
    /// bones or vertices that use it.
    NotFinite = "not-finite", Error;
    /// A rotation is far from unit length: the client uses it as it is, so
    /// the bone scales and skews.
    NotUnit = "not-unit", Warning;
    /// An animation's total time is 0 or less: a looping clip never wraps.
    TotalTime = "total-time", Warning;
    /// An animation has no tracks: it moves nothing.
    NoTracks = "no-tracks", Warning;
    /// An event's time is outside the clip: it never fires.
    EventOutside = "event-outside", Warning;
    /// Two tracks drive the same bone: the client blends them by their
    /// weights.
    DuplicateTrack = "duplicate-track", Warning;
    /// A track's weight is 0: the client's blend drops the track.
    ZeroWeight = "zero-weight", Warning;
    /// A track's weight is negative: it pushes the blend away from itself.
    NegativeWeight = "negative-weight", Warning;
    /// A track has no keys: the client reads out of range.
    EmptyTrack = "empty-track", Error;
    /// A key's time is earlier than the key's before it: the client's key
    /// search, which expects time order, finds the wrong keys.
    KeyOrder = "key-order", Error;
    /// A key's time is the same as the key's before it: the client jumps
    /// from the first pose to the second.
    KeyRepeat = "key-repeat", Warning;
    /// A key's time is outside 0 to the total time.
    KeyOutside = "key-outside", Warning;
    /// A 4001 rotation word decodes to NaN in the client.
    SmallThreeNan = "small-three-nan", Error;
    /// A track or a mesh's bone name is not in the skeleton: the client
    /// drives or skins the root bone with it.
    UnknownBone = "unknown-bone", Error;
    /// A track or mesh bone name that matches a skeleton bone only loosely
    /// (by case or text encoding): the client compares bytes, so it treats
    /// it as a bone the skeleton lacks (the root).
    LooseBone = "loose-bone", Error;
    /// A skeleton bone has no track in the animation: it stays at rest.
    BoneWithoutTrack = "bone-without-track", Info;
    /// The skeleton's bones do not form a tree the client can build.
    Hierarchy = "hierarchy", Error;
    /// A mesh version the client does not know: it reads the mesh as 2000
    /// (no control points).
    UnknownVersion = "unknown-version", Warning;
    /// A mesh type the client does not know: it draws the mesh as static.
    MeshType = "mesh-type", Warning;
    /// A skinned mesh's mask has bits (position w, colour 1, uv2, uv3) the
    /// client cannot make skinned vertex streams with: the mesh does not
    /// load.
    SkinnedBits = "skinned-bits", Error;
    /// A skinned mesh has no normals: the client's software skinner does
    /// not build its buffers.
    NoNormals = "no-normals", Warning;
    /// A skinned mesh has no weights block: it cannot follow the skeleton.
    NoWeights = "no-weights", Warning;
    /// The mask has the weights bit but not the indices bit: the client's
    /// bone indices are undefined.
    WeightsWithoutIndices = "weights-without-indices", Warning;
    /// A mesh has vertices but no positions.
    NoPositions = "no-positions", Error;
    /// A mesh has more vertices than 16-bit indices reach.
    TooManyVertices = "too-many-vertices", Warning;
    /// The stored box does not hold every vertex: the client culls with
    /// it, so the mesh can vanish at the screen's edge.
    Bounds = "bounds", Warning;
    /// A face names a vertex past the last one.
    FaceIndex = "face-index", Error;
    /// A submesh has a negative field, or faces past the end of the index
    /// list.
    SubmeshRange = "submesh-range", Error;
    /// A submesh's face uses a vertex outside the submesh's vertices.
    SubmeshIndex = "submesh-index", Error;
    /// A mesh has more than 256 bone names: the client packs bone indices
    /// in bytes.
    PaletteSize = "palette-size", Error;
    /// A vertex's first weight is not positive: the client's software
    /// skinner gives it, and every later vertex, the next vertex's bones.
    NoWeight = "no-weight", Error;
    /// A vertex has four positive weights: the client's software skinner
    /// reads on into the next vertex.
    FourWeights = "four-weights", Warning;
    /// A vertex's weights do not sum to 1: the client does not renormalise.
    WeightSum = "weight-sum", Warning;
    /// A vertex's bone index is outside the mesh's bone names: the client
    /// reads out of bounds.
    BoneIndex = "bone-index", Error;
    /// Two control points share a type and index: the client drops the
    /// later one.
    DuplicateControlPoint = "duplicate-control-point", Warning;
    /// A control point's bone is not in the skeleton: the point follows
    /// the root bone.
    UnknownPointBone = "unknown-point-bone", Warning;
    /// A line of a material script the client logs and skips or reads
    /// otherwise (an unknown key, a bad value, a line swallowed).
    MaterialWarning = "material-warning", Warning;
    /// A material script has no material block: the client does not load
    /// its mesh.
    NoMaterial = "no-material", Error;
    /// A texture has fewer mip levels than its full chain: the client
    /// builds the rest.
    PartialMipChain = "partial-mip-chain", Info;
    /// A file a model config names is not where the client looks for it.
    MissingFile = "missing-file", Error;
    /// The collision mesh a model config names is not in the mesh folder:
    /// the model has no collision.
    MissingCollision = "missing-collision", Warning;
    /// A model config with animations or skinned meshes names no skeleton.
    NoSkeleton = "no-skeleton", Error;
    /// A model config's #SKELETON comes after its #MESH_LIST: the client
    /// builds the meshes with no bones.
    SkeletonOrder = "skeleton-order", Error;
    /// A mesh has no material script named after it: the client does not
    /// load the mesh (and stops building its model).
    NoMaterialScript = "no-material-script", Error;
    /// A texture a material script names is not in the texture folder: the
    /// client draws a 2x2 placeholder.
    MissingTexture = "missing-texture", Warning;
    /// A submesh that draws faces has no material in its script: the
    /// client does not draw it.
    FewMaterials = "few-materials", Warning;
    /// A material script no mesh is named after: nothing uses it.
    UnusedScript = "unused-script", Warning;
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A rule is written as its id, so `--json` findings keep their shape.
#[cfg(feature = "json")]
impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

/// The catalogue as `io3d check --rules` prints it: one rule a line, id,
/// severity and meaning in aligned columns.
pub fn catalogue() -> String {
    let width = Rule::ALL.iter().map(|r| r.id().len()).max().unwrap_or(0);
    let lines = Rule::ALL.iter().map(|r| format!("{:width$}  {:7}  {}\n", r.id(), r.severity().to_string(), r.doc()));
    lines.collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_docs_one_line() {
        let mut seen = HashSet::new();
        for rule in Rule::ALL {
            let id = rule.id();
            assert!(seen.insert(id), "{id} twice");
            assert!(id.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())), "{id}");
            assert!(!rule.doc().is_empty() && !rule.doc().contains(['\n', '|']), "{id}: {}", rule.doc());
            assert!(rule.doc().ends_with('.'), "{id}: {}", rule.doc());
        }
    }

    #[test]
    fn the_catalogue_prints_a_line_a_rule_in_columns() {
        let printed = catalogue();
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines.len(), Rule::ALL.len());
        let unknown = lines.iter().find(|l| l.starts_with("unknown-bone ")).unwrap();
        let words: Vec<&str> = unknown.split_whitespace().take(2).collect();
        assert_eq!(words, ["unknown-bone", "error"]);
        assert!(unknown.ends_with(Rule::UnknownBone.doc()), "{unknown}");
        let columns: HashSet<usize> = lines.iter().zip(Rule::ALL).map(|(l, r)| l.len() - r.doc().len()).collect();
        assert_eq!(columns.len(), 1, "every doc starts in one column:\n{printed}");
    }

    /// The CLI reference's list of rules (`docs/cli.md`'s `## The lint's
    /// rules` section): a table of `` | `id` | severity | meaning | `` rows.
    fn listed_rules() -> BTreeMap<String, (String, String)> {
        let readme = include_str!("../../docs/cli.md");
        let (_, section) = readme.split_once("\n## The lint's rules\n").expect("docs/cli.md has the rules section");
        let section = section.split("\n#").next().unwrap_or(section);
        let rows = section.lines().filter_map(|line| line.strip_prefix("| `"));
        rows.map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let id = cells[0].trim_end_matches('`').to_owned();
            (id, (cells[1].to_owned(), cells[2].to_owned()))
        })
        .collect()
    }

    #[test]
    fn the_cli_reference_lists_every_rule_with_its_severity_and_meaning() {
        let listed = listed_rules();
        let catalogue: BTreeMap<String, (String, String)> =
            (Rule::ALL.iter()).map(|r| (r.id().to_owned(), (r.severity().to_string(), r.doc().to_owned()))).collect();
        for (id, entry) in &catalogue {
            assert_eq!(listed.get(id), Some(entry), "docs/cli.md's rule table lacks or differs on {id}");
        }
        for id in listed.keys() {
            assert!(catalogue.contains_key(id), "docs/cli.md lists '{id}', which is no rule");
        }
    }
}
