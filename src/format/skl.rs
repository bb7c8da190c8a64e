//! `.skl`: a skeleton, as bones with rest poses and parent/child names.
//!
//! The file names each bone's parent and children; the client builds the
//! hierarchy from the child lists, starting at the first bone.
//! [`Skeleton::hierarchy`] does the same and checks that the names agree.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use glam::{Quat, Vec3};
use thiserror::Error;

use super::bytes::{ReadError, Reader, Writer};
use super::error::{BinaryKind, FormatError};
use super::place::Place;
use super::string::FileString;
use super::write::{WriteError, WriteProblem};

/// The four bytes every `.skl` starts with.
pub const SKL_MAGIC: [u8; 4] = *b"SKL\0";

/// The only `.skl` version there is.
pub const SKL_VERSION: i32 = 1000;

/// The smallest a bone can be in a file: empty names, no children.
const MIN_BONE_SIZE: usize = 4 + 28 + 28 + 64 + 4 + 4;

/// One bone of a skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// The name tracks are matched by.
    pub name: FileString,
    /// Rest position relative to the parent ("LocalTM"), engine axes.
    pub position: Vec3,
    /// Rest rotation relative to the parent, engine axes.
    pub rotation: Quat,
    /// Translation of the inverse bind pose, which maps model space into
    /// the bone's space for skinning.
    pub inverse_bind_position: Vec3,
    /// Rotation of the inverse bind pose.
    pub inverse_bind_rotation: Quat,
    /// "ObjectTM": a row-major 4x4 matrix (translation in the last row),
    /// used by the client only for linked skeletons.
    pub object_tm: [f32; 16],
    /// The parent's name (the web tools write `NoParent` for the root).
    pub parent: FileString,
    /// The children's names; the client builds the hierarchy from these.
    pub children: Vec<FileString>,
}

/// A whole `.skl` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    /// Bones in file order; the first is the root.
    pub bones: Vec<Bone>,
    /// The name of a linked skeleton (may be empty).
    pub linked_skeleton: FileString,
    /// Bytes after the trailer: the client ignores them; we keep them.
    pub trailing: Vec<u8>,
}

/// Why bytes are not an .skl the client would load: the readers' one error
/// shape, [`FormatError`].
pub type SklError = FormatError;

/// Byte offsets of the parts of an `.skl`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SklLayout {
    /// Offset of each bone.
    pub bones: Vec<usize>,
    /// Offset of the linked skeleton name.
    pub trailer: usize,
    /// Offset of the bytes after it.
    pub trailing: usize,
}

impl Skeleton {
    /// Reads an `.skl`, refusing what the client refuses and strings that
    /// would overflow its buffer.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SklError> {
        Self::read(bytes, false).map(|(skeleton, _)| skeleton)
    }

    /// Reads an `.skl` and reports where each part lies; `allow_long_strings`
    /// accepts strings the client's buffer cannot hold (for the lint).
    pub fn read(bytes: &[u8], allow_long_strings: bool) -> Result<(Self, SklLayout), SklError> {
        let malformed = FormatError::at;
        let mut r = Reader::new(bytes);
        r.allow_long_strings = allow_long_strings;
        let magic = r.take(4, "magic").map_err(malformed(Place::Header))?;
        if magic != SKL_MAGIC {
            return Err(SklError::BadMagic { kind: BinaryKind::Skl, found: magic.to_vec() });
        }
        let version = r.i32("version").map_err(malformed(Place::Header))?;
        if version != SKL_VERSION {
            return Err(SklError::UnknownVersion { kind: BinaryKind::Skl, found: version });
        }
        let count = r.count("bone count").map_err(malformed(Place::Header))?;
        let mut layout = SklLayout::default();
        let mut bones = Vec::with_capacity(r.capacity(count, MIN_BONE_SIZE));
        for i in 0..count {
            layout.bones.push(r.pos());
            bones.push(read_bone(&mut r, i)?);
        }
        layout.trailer = r.pos();
        let linked_skeleton = r.string("linked skeleton name").map_err(malformed(Place::Trailer))?;
        layout.trailing = r.pos();
        let trailing = r.rest().to_vec();
        Ok((Self { bones, linked_skeleton, trailing }, layout))
    }

    /// Writes the file; a value read from bytes writes the same bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let mut w = Writer::with_capacity(16 + self.bones.len() * 256);
        w.bytes(&SKL_MAGIC);
        w.i32(SKL_VERSION);
        w.count(self.bones.len(), "bones").map_err(|p| p.at(Place::Header))?;
        for (i, bone) in self.bones.iter().enumerate() {
            write_bone(&mut w, bone).map_err(|p| p.at(Place::Bone(i, Some(bone.name.clone()))))?;
        }
        w.string(&self.linked_skeleton, "linked skeleton name").map_err(|p| p.at(Place::Trailer))?;
        w.bytes(&self.trailing);
        Ok(w.into_bytes())
    }

    /// The index of the bone named `name`, compared as the client does (as
    /// C strings).
    pub fn bone_index(&self, name: &[u8]) -> Option<usize> {
        self.bones.iter().position(|b| b.name.is_named(name))
    }

    /// Builds the hierarchy the way the client does, from the child lists
    /// starting at the first bone, and checks that the file agrees with
    /// itself: every child exists, no bone is reached twice (two parents or
    /// a cycle), every bone is reached (one root), names are unique and each
    /// parent name matches the bone whose child list holds it.
    pub fn hierarchy(&self) -> Result<Hierarchy, HierarchyError> {
        let mut problems = Vec::new();
        let n = self.bones.len();
        if n == 0 {
            return Err(HierarchyError::new(vec![HierarchyProblem::Empty], self));
        }
        // Names to the first bone of that name, built once: a file with many
        // bones and child names must not cost their product.
        let mut index: HashMap<&[u8], usize> = HashMap::with_capacity(n);
        for (i, bone) in self.bones.iter().enumerate() {
            match index.entry(bone.name.c_str()) {
                Entry::Occupied(first) => {
                    problems.push(HierarchyProblem::DuplicateName { bone: i, first: *first.get() })
                }
                Entry::Vacant(slot) => {
                    slot.insert(i);
                }
            }
        }
        let mut parents: Vec<Option<usize>> = vec![None; n];
        let mut reached = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut stack = vec![0];
        reached[0] = true;
        while let Some(i) = stack.pop() {
            order.push(i);
            // Push in reverse so that children come out in file order.
            for (c, name) in self.bones[i].children.iter().enumerate().rev() {
                match index.get(name.c_str()).copied() {
                    None => problems.push(HierarchyProblem::UnknownChild { bone: i, child: c, name: name.clone() }),
                    Some(child) if reached[child] => {
                        problems.push(HierarchyProblem::ReachedTwice { bone: child, from: i })
                    }
                    Some(child) => {
                        reached[child] = true;
                        parents[child] = Some(i);
                        stack.push(child);
                    }
                }
            }
        }
        for (i, bone) in self.bones.iter().enumerate() {
            match parents[i] {
                _ if !reached[i] => problems.push(HierarchyProblem::Unreachable { bone: i }),
                Some(p) if !bone.parent.is_named(self.bones[p].name.as_bytes()) => {
                    problems.push(HierarchyProblem::ParentMismatch { bone: i, listed_by: p })
                }
                None if index.contains_key(bone.parent.c_str()) => {
                    problems.push(HierarchyProblem::RootHasParent { parent: bone.parent.clone() })
                }
                _ => {}
            }
        }
        if problems.is_empty() { Ok(Hierarchy { order, parents }) } else { Err(HierarchyError::new(problems, self)) }
    }
}

/// Parent links in an order where every parent comes before its children,
/// so that local-to-world is one forward pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    /// Bone indices, depth first from the root.
    pub order: Vec<usize>,
    /// The parent of each bone (by bone index); `None` for the root.
    pub parents: Vec<Option<usize>>,
}

/// The ways a skeleton's names can disagree with each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HierarchyProblem {
    /// No bones at all.
    Empty,
    /// A child list names a bone that does not exist.
    UnknownChild {
        /// The bone whose list it is.
        bone: usize,
        /// Index in the list.
        child: usize,
        /// The name listed.
        name: FileString,
    },
    /// A bone is listed as a child a second time (two parents or a cycle).
    ReachedTwice {
        /// The bone reached again.
        bone: usize,
        /// The bone whose list reached it again.
        from: usize,
    },
    /// No child list leads to this bone from the root: a second root.
    Unreachable {
        /// The bone.
        bone: usize,
    },
    /// A bone's parent name is not the bone whose child list holds it.
    ParentMismatch {
        /// The bone.
        bone: usize,
        /// The bone whose child list holds it.
        listed_by: usize,
    },
    /// The root names a bone of the skeleton as its parent.
    RootHasParent {
        /// The name given.
        parent: FileString,
    },
    /// Two bones share a name, so tracks cannot tell them apart.
    DuplicateName {
        /// The later bone.
        bone: usize,
        /// The first bone with that name.
        first: usize,
    },
}

impl HierarchyProblem {
    /// A one-line description, using bone names from `skeleton`.
    pub fn describe(&self, skeleton: &Skeleton) -> String {
        let name = |i: usize| format!("bone {i} '{}'", skeleton.bones[i].name);
        match self {
            Self::Empty => "the skeleton has no bones".into(),
            Self::UnknownChild { bone, child, name: child_name } => {
                format!("{}, child {child}: no bone is named '{child_name}'", name(*bone))
            }
            Self::ReachedTwice { bone, from } => {
                format!("{} is listed again as a child of {} (two parents or a cycle)", name(*bone), name(*from))
            }
            Self::Unreachable { bone } => {
                format!("{} is not reached from the root through child lists (a second root)", name(*bone))
            }
            Self::ParentMismatch { bone, listed_by } => format!(
                "{} names '{}' as its parent, but {} lists it as a child",
                name(*bone),
                skeleton.bones[*bone].parent,
                name(*listed_by)
            ),
            Self::RootHasParent { parent } => format!("the root names bone '{parent}' as its parent"),
            Self::DuplicateName { bone, first } => format!("{} has the same name as bone {first}", name(*bone)),
        }
    }

    /// The bone the problem is about, if any.
    pub fn bone(&self) -> Option<usize> {
        match self {
            Self::Empty => None,
            Self::RootHasParent { .. } => Some(0),
            Self::UnknownChild { bone, .. }
            | Self::ReachedTwice { bone, .. }
            | Self::Unreachable { bone }
            | Self::ParentMismatch { bone, .. }
            | Self::DuplicateName { bone, .. } => Some(*bone),
        }
    }
}

/// A skeleton whose names do not make one tree.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the skeleton's bones do not form one tree: {}", descriptions.join("; "))]
pub struct HierarchyError {
    /// Every problem found.
    pub problems: Vec<HierarchyProblem>,
    /// Each problem described with bone names.
    pub descriptions: Vec<String>,
}

impl HierarchyError {
    fn new(problems: Vec<HierarchyProblem>, skeleton: &Skeleton) -> Self {
        let descriptions = problems.iter().map(|p| p.describe(skeleton)).collect();
        Self { problems, descriptions }
    }
}

fn read_bone(r: &mut Reader, index: usize) -> Result<Bone, SklError> {
    let malformed = FormatError::at;
    let name = r.string("bone name").map_err(malformed(Place::Bone(index, None)))?;
    let at = malformed(Place::Bone(index, Some(name.clone())));
    let mut fields = || -> Result<_, ReadError> {
        Ok((
            r.vec3("rest position")?,
            r.quat("rest rotation")?,
            r.vec3("inverse bind position")?,
            r.quat("inverse bind rotation")?,
            r.f32s::<16>("ObjectTM")?,
            r.string("parent name")?,
            r.count("child count")?,
        ))
    };
    let (position, rotation, inverse_bind_position, inverse_bind_rotation, object_tm, parent, count) =
        fields().map_err(at)?;
    let mut children = Vec::with_capacity(r.capacity(count, 4));
    for child in 0..count {
        let place = Place::Child { bone: index, name: name.clone(), child };
        children.push(r.string("child name").map_err(malformed(place))?);
    }
    Ok(Bone { name, position, rotation, inverse_bind_position, inverse_bind_rotation, object_tm, parent, children })
}

fn write_bone(w: &mut Writer, bone: &Bone) -> Result<(), WriteProblem> {
    w.string(&bone.name, "bone name")?;
    w.vec3(bone.position);
    w.quat(bone.rotation);
    w.vec3(bone.inverse_bind_position);
    w.quat(bone.inverse_bind_rotation);
    w.f32s(&bone.object_tm);
    w.string(&bone.parent, "parent name")?;
    w.count(bone.children.len(), "children")?;
    for child in &bone.children {
        w.string(child, "child name")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bone(name: &str, parent: &str, children: &[&str]) -> Bone {
        Bone {
            name: name.into(),
            position: Vec3::X,
            rotation: Quat::IDENTITY,
            inverse_bind_position: Vec3::ZERO,
            inverse_bind_rotation: Quat::IDENTITY,
            object_tm: [0.0; 16],
            parent: parent.into(),
            children: children.iter().map(|c| (*c).into()).collect(),
        }
    }

    fn chain() -> Skeleton {
        Skeleton {
            bones: vec![
                bone("root", "NoParent", &["a", "b"]),
                bone("a", "root", &[]),
                bone("b", "root", &["c"]),
                bone("c", "b", &[]),
            ],
            linked_skeleton: FileString::default(),
            trailing: vec![],
        }
    }

    #[test]
    fn round_trip_and_hierarchy() {
        let s = chain();
        let bytes = s.to_bytes().unwrap();
        let read = Skeleton::from_bytes(&bytes).unwrap();
        assert_eq!(read, s);
        assert_eq!(read.to_bytes().unwrap(), bytes);
        let h = read.hierarchy().unwrap();
        assert_eq!(h.order, vec![0, 1, 2, 3]);
        assert_eq!(h.parents, vec![None, Some(0), Some(0), Some(2)]);
    }

    #[test]
    fn hierarchy_problems_are_all_reported() {
        let mut s = chain();
        s.bones[3].children.push("root".into());
        s.bones[1].parent = "b".into();
        s.bones.push(bone("loner", "NoParent", &["ghost"]));
        let problems = s.hierarchy().unwrap_err().problems;
        assert!(problems.contains(&HierarchyProblem::ReachedTwice { bone: 0, from: 3 }));
        assert!(problems.contains(&HierarchyProblem::ParentMismatch { bone: 1, listed_by: 0 }));
        assert!(problems.contains(&HierarchyProblem::Unreachable { bone: 4 }));
        assert!(!problems.iter().any(|p| matches!(p, HierarchyProblem::UnknownChild { .. })), "loner is never visited");
        assert!(problems[0].describe(&s).contains("bone"));
    }

    #[test]
    fn impossible_bone_count_ends_at_the_first_missing_bone() {
        let mut bytes = SKL_MAGIC.to_vec();
        bytes.extend(SKL_VERSION.to_le_bytes());
        bytes.extend(i32::MAX.to_le_bytes());
        let err = Skeleton::from_bytes(&bytes).unwrap_err();
        assert_eq!(err.to_string(), "bone 0: bone name needs 4 bytes at byte 12, but the file ends at byte 12");
    }
}
