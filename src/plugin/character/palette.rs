//! Characters drawn on the palette path
//! ([`PoseOutput::Palette`](crate::plugin::PoseOutput::Palette)): every part
//! and outline hull skins itself in its vertex shader (and its prepass and
//! shadow shader) from its character's slot of the frame-wide
//! [`SkinPalettes`](crate::plugin::SkinPalettes), which goes to the GPU in
//! one write a frame ([`super::upload`]). The slot's first matrix reaches
//! the shader per instance through `MeshTag`, so identical meshes and
//! materials batch across characters; the meshes' joints are renumbered
//! into the slot at load, so every part and hull of a character shares
//! it; bounds follow the root bone, with no per-joint reads.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::asset::{Asset, AssetEvent, AssetId, Assets, Handle, RenderAssetUsages};
use bevy::camera::primitives::Aabb;
use bevy::ecs::prelude::*;
use bevy::math::{Vec3, Vec3A};
use bevy::mesh::{Mesh, MeshTag, MeshVertexAttribute, MeshVertexBufferLayoutRef, VertexAttributeValues, VertexFormat};
use bevy::pbr::{
    ExtendedMaterial, MaterialExtension, MaterialExtensionKey, MaterialExtensionPipeline, StandardMaterial,
};
use bevy::reflect::Reflect;
use bevy::render::render_resource::{AsBindGroup, RenderPipelineDescriptor, SpecializedMeshPipelineError};
use bevy::render::storage::ShaderBuffer;
use bevy::shader::ShaderRef;

use crate::anim::{MeshBinding, Rig};
use crate::plugin::assets::SklSkeleton;
use crate::plugin::axes::Axes;
use crate::plugin::palette::{PaletteSlot, inverse_bind, palette_joints};
use crate::plugin::player::ModelPoses;
use crate::plugin::rig::modified;

use super::components::SpawnedParts;
use super::toon::{Shadeable, ToonLight, ToonShading};

/// Where the shader is embedded.
pub const SHADER: &str = "embedded://bevy_io3d/plugin/character/palette.wgsl";

/// A palette mesh's joints, numbered in its character's slot (the
/// standard joint attributes would make Bevy skin it from entities).
pub const ATTRIBUTE_PALETTE_JOINTS: MeshVertexAttribute =
    MeshVertexAttribute::new("Io3dPaletteJoints", 0x5A1E_0001, VertexFormat::Uint16x4);

/// A palette mesh's weights, as the client stores them.
pub const ATTRIBUTE_PALETTE_WEIGHTS: MeshVertexAttribute =
    MeshVertexAttribute::new("Io3dPaletteWeights", 0x5A1E_0002, VertexFormat::Float32x4);

/// A part's material on the palette path: its surface, and the palette it
/// skins from.
pub type PaletteMaterial = ExtendedMaterial<StandardMaterial, PaletteSkin>;

/// The palette a material skins from: the GPU copy of [`SkinPalettes`](crate::plugin::SkinPalettes).
#[derive(Asset, AsBindGroup, Reflect, Debug, Clone, PartialEq)]
pub struct PaletteSkin {
    /// The slab.
    #[storage(101, read_only)]
    pub palette: Handle<ShaderBuffer>,
}

impl MaterialExtension for PaletteSkin {
    fn vertex_shader() -> ShaderRef {
        SHADER.into()
    }

    /// Also the shadow passes' vertex shader, which then bind the
    /// material's group (where the palette is).
    fn prepass_vertex_shader() -> ShaderRef {
        SHADER.into()
    }

    fn specialize(
        _: &MaterialExtensionPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        layout: &MeshVertexBufferLayoutRef,
        _: MaterialExtensionKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        bind_palette_attributes(descriptor, layout)
    }
}

/// A toon-shaded part's material on the palette path: its surface, the
/// light of [`ToonShaded`](super::ToonShaded), and the palette it skins from.
pub type PaletteToonMaterial = ExtendedMaterial<StandardMaterial, PaletteToon>;

/// The toon light and the palette, for [`PaletteToonMaterial`]: the
/// palette path's vertex shader and the toon fragment shader.
#[derive(Asset, AsBindGroup, Reflect, Debug, Clone, PartialEq)]
pub struct PaletteToon {
    /// The light (as [`ToonShading`]'s).
    #[uniform(100)]
    pub light: ToonLight,
    /// The slab.
    #[storage(101, read_only)]
    pub palette: Handle<ShaderBuffer>,
}

impl MaterialExtension for PaletteToon {
    fn vertex_shader() -> ShaderRef {
        SHADER.into()
    }

    fn prepass_vertex_shader() -> ShaderRef {
        SHADER.into()
    }

    fn fragment_shader() -> ShaderRef {
        super::toon::SHADER.into()
    }

    fn specialize(
        _: &MaterialExtensionPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        layout: &MeshVertexBufferLayoutRef,
        _: MaterialExtensionKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        bind_palette_attributes(descriptor, layout)
    }
}

impl Shadeable for PaletteMaterial {
    type Toon = PaletteToonMaterial;

    fn toon(&self, shading: &ToonShading) -> PaletteToonMaterial {
        let palette = self.extension.palette.clone();
        PaletteToonMaterial { base: self.base.clone(), extension: PaletteToon { light: shading.light, palette } }
    }

    fn resurface(&self, toon: &mut PaletteToonMaterial) {
        toon.base = self.base.clone();
    }
}

/// Binds a palette mesh's joints and weights at locations 8 and 9, which
/// neither the main nor the prepass pipeline uses.
fn bind_palette_attributes(
    descriptor: &mut RenderPipelineDescriptor,
    layout: &MeshVertexBufferLayoutRef,
) -> Result<(), SpecializedMeshPipelineError> {
    let ours = [ATTRIBUTE_PALETTE_JOINTS.at_shader_location(8), ATTRIBUTE_PALETTE_WEIGHTS.at_shader_location(9)];
    let extra = layout.0.get_layout(&ours)?;
    if let Some(buffer) = descriptor.vertex.buffers.first_mut() {
        buffer.attributes.extend(extra.attributes);
    }
    Ok(())
}

/// A palette mesh, and how far its vertices reach from the root bone.
type PaletteMesh = (Handle<Mesh>, f32);

/// The GPU copy of the slab, the palette materials made from each part's
/// `StandardMaterial`, the palette meshes made from each part's mesh, and
/// what the render world last wrote (it writes the slab during
/// extraction).
#[derive(Resource, Debug)]
pub struct PaletteDrawing {
    pub(super) buffer: Handle<ShaderBuffer>,
    pub(super) materials: HashMap<AssetId<StandardMaterial>, Handle<PaletteMaterial>>,
    meshes: HashMap<(AssetId<Mesh>, AssetId<SklSkeleton>), PaletteMesh>,
    /// Bytes written, shared with the render world, which writes them.
    pub(super) written: Arc<AtomicUsize>,
}

impl FromWorld for PaletteDrawing {
    fn from_world(world: &mut World) -> Self {
        let buffer =
            ShaderBuffer::new(&[0; size_of::<crate::plugin::PaletteMatrix>()], RenderAssetUsages::RENDER_WORLD);
        let buffer = world.resource_mut::<Assets<ShaderBuffer>>().add(buffer);
        Self { buffer, materials: HashMap::new(), meshes: HashMap::new(), written: Arc::default() }
    }
}

impl PaletteDrawing {
    /// The bytes of skinning matrices the render world wrote to the GPU
    /// on the last frame it extracted (0 without a renderer).
    pub fn uploaded(&self) -> usize {
        self.written.load(Ordering::Relaxed)
    }

    /// The palette material over `standard`'s surface, made once.
    pub(super) fn material(
        &mut self,
        standard: &Handle<StandardMaterial>,
        (surfaces, materials): (&Assets<StandardMaterial>, &mut Assets<PaletteMaterial>),
    ) -> Handle<PaletteMaterial> {
        let buffer = self.buffer.clone();
        let make = || {
            let base = surfaces.get(standard).cloned().unwrap_or_default();
            materials.add(PaletteMaterial { base, extension: PaletteSkin { palette: buffer } })
        };
        self.materials.entry(standard.id()).or_insert_with(make).clone()
    }

    /// The palette mesh of `part` (a skinned mesh bound by `binding` to
    /// the rig of the skeleton `skeleton`), made once for each skeleton,
    /// with how far its vertices reach from the rig's root at bind pose.
    pub(super) fn mesh(
        &mut self,
        part: &Handle<Mesh>,
        (binding, (skeleton, rig)): (&MeshBinding, (AssetId<SklSkeleton>, &Rig)),
        meshes: &mut Assets<Mesh>,
    ) -> Option<(Handle<Mesh>, f32)> {
        let key = (part.id(), skeleton);
        if let Some(made) = self.meshes.get(&key) {
            return Some(made.clone());
        }
        let (mesh, reach) = palette_mesh(meshes.get(part)?, binding, rig)?;
        let made = (meshes.add(mesh), reach);
        self.meshes.insert(key, made.clone());
        Some(made)
    }

    /// Keeps each palette material's surface in step with the
    /// `StandardMaterial` it was made from (texture animation, the
    /// viewer's looks).
    fn follow_surfaces(
        &self,
        changed: &[AssetId<StandardMaterial>],
        (surfaces, materials): (&Assets<StandardMaterial>, &mut Assets<PaletteMaterial>),
    ) {
        for id in changed {
            let (Some(made), Some(surface)) = (self.materials.get(id), surfaces.get(*id)) else { continue };
            if let Some(mut material) = materials.get_mut(made) {
                material.base = surface.clone();
            }
        }
    }
}

/// Marks a part or hull drawn on the palette path, with how far its
/// vertices reach from the root bone: its bounds are a box of that
/// reach around the root, wherever the clips take it.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct PaletteReach(pub f32);

/// `mesh` with its joints renumbered into its character's slot and moved
/// to the palette's attributes, and its reach from the root at bind pose
/// (grown by half, for limbs stretched past their bind pose). `None` for
/// a mesh without joints.
fn palette_mesh(mesh: &Mesh, binding: &MeshBinding, rig: &Rig) -> Option<(Mesh, f32)> {
    let Some(VertexAttributeValues::Uint16x4(joints)) = mesh.attribute(Mesh::ATTRIBUTE_JOINT_INDEX) else {
        return None;
    };
    let joints = palette_joints(joints, binding, rig);
    let mut palette = mesh.clone();
    let weights = palette.remove_attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT)?;
    palette.remove_attribute(Mesh::ATTRIBUTE_JOINT_INDEX);
    palette.insert_attribute(ATTRIBUTE_PALETTE_JOINTS, VertexAttributeValues::Uint16x4(joints));
    palette.insert_attribute(ATTRIBUTE_PALETTE_WEIGHTS, weights);
    let positions = mesh.attribute(Mesh::ATTRIBUTE_POSITION)?.as_float3()?;
    // The root bone's place at bind pose, in the meshes' axes (Bevy's).
    let first = rig.order.first().copied().unwrap_or(0);
    let root = Vec3::from(inverse_bind(rig, first, Axes::EngineToBevy).inverse().translation);
    let reach = positions.iter().map(|p| Vec3::from_array(*p).distance(root)).fold(0.0, f32::max);
    Some((palette, reach * 1.5))
}

/// Keeps the palette materials' surfaces in step with their
/// `StandardMaterial`s ([`PaletteDrawing::follow_surfaces`]).
pub(crate) fn follow_surfaces(
    mut events: MessageReader<AssetEvent<StandardMaterial>>,
    drawing: Res<PaletteDrawing>,
    surfaces: Res<Assets<StandardMaterial>>,
    mut materials: ResMut<Assets<PaletteMaterial>>,
) {
    drawing.follow_surfaces(&modified(&mut events), (&surfaces, &mut materials));
}

/// Gives each palette character's parts and hulls its slot (as their
/// `MeshTag`) and bounds around its root bone, when they change.
pub(crate) fn follow_slots(
    players: Query<(&PaletteSlot, &ModelPoses, &SpawnedParts)>,
    children: Query<&Children>,
    mut parts: Query<(&PaletteReach, &mut MeshTag, &mut Aabb)>,
) {
    for (slot, poses, spawned) in &players {
        let root = poses.0.first().map_or(Vec3A::ZERO, |pose| pose.translation);
        for &part in &spawned.0 {
            let hulls = children.get(part).into_iter().flat_map(|c| c.iter());
            for drawn in std::iter::once(part).chain(hulls) {
                let Ok((reach, mut tag, mut bounds)) = parts.get_mut(drawn) else { continue };
                tag.set_if_neq(MeshTag(slot.start()));
                bounds.set_if_neq(Aabb { center: root, half_extents: Vec3A::splat(reach.0) });
            }
        }
    }
}
