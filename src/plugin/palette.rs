//! The palette path's output ([`PoseOutput::Palette`](super::PoseOutput::Palette)):
//! each player's skinning matrices in one frame-wide slab, a slot of
//! consecutive matrices per player, for meshes that skin themselves from
//! it (one upload a frame, however many parts and outlines a character
//! wears). No bone is an entity on this path.

use std::sync::{Mutex, PoisonError};

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::prelude::*;
use bevy::ecs::world::DeferredWorld;
use bevy::math::{Affine3A, Vec4};

use crate::anim::{MeshBinding, Rig};

use super::axes::Axes;

/// One bone's skinning matrix as a shader reads it: the three rows of the
/// affine map from the mesh's bind space to the player's space, in
/// Bevy's axes (48 bytes; a point `p` goes to `(r0·p', r1·p', r2·p')`
/// with `p' = (p, 1)`).
pub type PaletteMatrix = [Vec4; 3];

/// The matrix that leaves points where they are: a slot's content before
/// its player is first posed (meshes show their bind pose).
pub const PALETTE_IDENTITY: PaletteMatrix = [Vec4::X, Vec4::Y, Vec4::Z];

/// A skinning matrix in the shader's form: the bone's pose relative to the
/// player (`model`) after its stored inverse bind (`inverse_bind`), as the
/// client builds its palette ([`crate::anim::skin::bone_matrix`]).
pub fn palette_matrix(model: Affine3A, inverse_bind: Affine3A) -> PaletteMatrix {
    let m = model * inverse_bind;
    let (x, y, z, t) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis, m.translation);
    [Vec4::new(x.x, y.x, z.x, t.x), Vec4::new(x.y, y.y, z.y, t.y), Vec4::new(x.z, y.z, z.z, t.z)]
}

/// The affine map a palette matrix holds: its three rows read back, the
/// inverse of the packing that posing writes.
pub fn palette_affine(matrix: &PaletteMatrix) -> Affine3A {
    let [r0, r1, r2] = matrix;
    Affine3A::from_cols_array(&[r0.x, r1.x, r2.x, r0.y, r1.y, r2.y, r0.z, r1.z, r2.z, r0.w, r1.w, r2.w])
}

/// A bone's stored inverse bind pose in `axes` (identity for a bone past
/// the rig): what every skinning of the skeleton's meshes multiplies by.
pub fn inverse_bind(rig: &Rig, bone: usize, axes: Axes) -> Affine3A {
    rig.inverse_binds.get(bone).map_or(Affine3A::IDENTITY, |inverse| {
        Affine3A::from_rotation_translation(axes.rotation(inverse.rotation), axes.position(inverse.position))
    })
}

/// Where each of a rig's bones stands in a player's palette: bones come
/// parents first ([`Rig::order`]), as the player poses them.
pub fn palette_index(rig: &Rig) -> Vec<u32> {
    let mut index = vec![0; rig.len()];
    for (slot, &bone) in rig.order.iter().enumerate() {
        index[bone] = slot as u32;
    }
    index
}

/// A skinned mesh's joint indices ([`crate::anim::vertex_influences`],
/// which number the mesh's own palette) as indices into its player's
/// palette slot: each entry's bone's place (bones stand parents first,
/// in the rig's order), and the root's for the extra joint past the
/// mesh's palette. Every part and outline of a character then skins from
/// the one slot.
pub fn palette_joints(joints: &[[u16; 4]], binding: &MeshBinding, rig: &Rig) -> Vec<[u16; 4]> {
    let index = palette_index(rig);
    let place = |bone: usize| index.get(bone).map_or(0, |&at| at as u16);
    let of = |joint: u16| binding.palette.get(usize::from(joint)).map_or(place(0), |&bone| place(bone));
    joints.iter().map(|four| four.map(of)).collect()
}

/// Every palette player's skinning matrices, one slot each, in one slab
/// that the renderer uploads whole once a frame. Slots are reused as
/// players come and go, so the slab only grows to the most players at
/// once.
#[derive(Resource, Debug, Default)]
pub struct SkinPalettes {
    matrices: Vec<PaletteMatrix>,
    /// Ranges no player holds, as (first matrix, count).
    free: Vec<(u32, u32)>,
    /// Ranges players hold, as (first matrix, count, player), in the
    /// order they stand in the slab.
    owners: Vec<(u32, u32, Entity)>,
}

impl SkinPalettes {
    /// The slab cut into its players' ranges, for posing to write each
    /// player's matrices as soon as its model pose is composed, over all
    /// cores ([`PaletteRanges::fill`]).
    pub(super) fn ranges(&mut self) -> PaletteRanges<'_> {
        let mut ranges = Vec::with_capacity(self.owners.len());
        let (mut rest, mut at) = (&mut self.matrices[..], 0);
        for &(start, len, player) in &self.owners {
            let (_, from) = std::mem::take(&mut rest).split_at_mut(start as usize - at);
            let (range, after) = from.split_at_mut(len as usize);
            ranges.push((player, Mutex::new(range)));
            (rest, at) = (after, (start + len) as usize);
        }
        ranges.sort_unstable_by_key(|(player, _)| *player);
        PaletteRanges(ranges)
    }

    /// The whole slab: what a frame uploads.
    pub fn matrices(&self) -> &[PaletteMatrix] {
        &self.matrices
    }

    /// The matrices of the player holding `slot`, in its bones' order.
    pub fn slot(&self, slot: &PaletteSlot) -> &[PaletteMatrix] {
        self.matrices.get(slot.range()).unwrap_or_default()
    }

    /// A range of `len` matrices no player holds, set to the identity:
    /// a freed range of that length, else new room at the slab's end.
    pub(super) fn allocate(&mut self, len: u32, player: Entity) -> u32 {
        let start = match self.free.iter().position(|&(_, free)| free == len) {
            Some(found) => self.free.swap_remove(found).0,
            None => {
                let start = self.matrices.len() as u32;
                self.matrices.resize(self.matrices.len() + len as usize, PALETTE_IDENTITY);
                start
            }
        };
        self.matrices[start as usize..(start + len) as usize].fill(PALETTE_IDENTITY);
        let at = self.owners.partition_point(|&(held, ..)| held < start);
        self.owners.insert(at, (start, len, player));
        start
    }

    /// Frees a slot's range, as (first matrix, count).
    pub(super) fn release(&mut self, (start, len): (u32, u32)) {
        if len > 0 {
            self.free.push((start, len));
            self.owners.retain(|&(held, ..)| held != start);
        }
    }
}

/// The slab's ranges by player ([`SkinPalettes::ranges`]), each behind a
/// lock of its own so that threads posing different players write their
/// ranges side by side in safe code; a range's one writer is the thread
/// posing its player, so no lock is ever waited on.
pub(super) struct PaletteRanges<'a>(Vec<(Entity, Mutex<&'a mut [PaletteMatrix]>)>);

impl PaletteRanges<'_> {
    /// Writes `player`'s skinning matrices from its bones' model poses
    /// (`model`) after their stored inverse binds; nothing for a player
    /// with no range (on another path, or not yet given a slot).
    pub(super) fn fill(&self, player: Entity, model: &[Affine3A], inverse_binds: &[Affine3A]) {
        let Ok(found) = self.0.binary_search_by_key(&player, |(owner, _)| *owner) else { return };
        let mut range = self.0[found].1.lock().unwrap_or_else(PoisonError::into_inner);
        for ((matrix, model), inverse) in range.iter_mut().zip(model).zip(inverse_binds) {
            *matrix = palette_matrix(*model, *inverse);
        }
    }
}

/// A palette player's slot in [`SkinPalettes`]: where its matrices stand
/// (a mesh's shader finds them from `start`). The plugin gives it one
/// once the player's bones are known, and takes it back when the player
/// leaves the path or is despawned. Only the plugin makes slots.
#[derive(Component, Debug, PartialEq, Eq)]
#[component(on_discard = release_slot)]
pub struct PaletteSlot {
    start: u32,
    len: u32,
}

impl PaletteSlot {
    /// No room yet: the state of a player whose bones are not known.
    pub(super) const NONE: Self = Self { start: 0, len: 0 };

    /// The slot of `len` matrices from `start`: for the allocator only.
    pub(super) fn new(start: u32, len: u32) -> Self {
        Self { start, len }
    }

    /// The index of the player's first matrix in the slab.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// How many matrices: the player's bones.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the player has no room yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// Gives the slot's range back when the player leaves the path or goes.
fn release_slot(mut world: DeferredWorld, context: HookContext) {
    let Some(slot) = world.get::<PaletteSlot>(context.entity).map(|s| (s.start, s.len)) else { return };
    if let Some(mut palettes) = world.get_resource_mut::<SkinPalettes>() {
        palettes.release(slot);
    }
}

/// Marks a player whose poses go into its palette slot
/// ([`super::PoseOutput::Palette`]): the palette path's passes pick these.
#[derive(Component, Debug, Default)]
pub(super) struct PaletteOutput;

#[cfg(test)]
mod tests {
    use bevy::math::{Quat, Vec3};

    use super::*;

    /// Packing keeps the affine map, and a packed matrix moves a point as
    /// the shader's three dot products do.
    #[test]
    fn a_palette_matrix_holds_the_model_pose_after_the_inverse_bind() {
        let model = Affine3A::from_rotation_translation(Quat::from_rotation_y(0.7), Vec3::new(1.0, 2.0, 3.0));
        let inverse = Affine3A::from_rotation_translation(Quat::from_rotation_x(-0.3), Vec3::new(0.0, -1.0, 0.5));
        let packed = palette_matrix(model, inverse);
        assert!(palette_affine(&packed).abs_diff_eq(model * inverse, 1e-6));
        let p = Vec3::new(0.3, -0.2, 4.0);
        let shader = Vec3::from_array(packed.map(|row| row.dot(p.extend(1.0))));
        assert!(shader.abs_diff_eq((model * inverse).transform_point3(p), 1e-5));
    }

    /// Freed ranges are reused by players of the same size; new ranges
    /// never overlap held ones, and start at the identity.
    #[test]
    fn slots_are_reused_and_never_overlap() {
        let mut palettes = SkinPalettes::default();
        let player = Entity::PLACEHOLDER;
        let a = PaletteSlot { start: palettes.allocate(52, player), len: 52 };
        let b = PaletteSlot { start: palettes.allocate(30, player), len: 30 };
        assert_eq!((a.start, b.start), (0, 52));
        palettes.matrices[0][0] = Vec4::ONE;
        palettes.release((a.start, a.len));
        let c = PaletteSlot { start: palettes.allocate(40, player), len: 40 };
        assert_eq!(c.start, 82, "a range of another size is not split");
        let d = palettes.allocate(52, player);
        assert_eq!(d, 0, "the freed range of the same size is reused");
        assert_eq!(palettes.matrices[0], PALETTE_IDENTITY, "and starts at the identity");
        assert_eq!(palettes.matrices().len(), 122);
        let held: Vec<u32> = palettes.owners.iter().map(|&(start, ..)| start).collect();
        assert_eq!(held, [0, 52, 82], "the players' ranges stand in order");
    }
}
