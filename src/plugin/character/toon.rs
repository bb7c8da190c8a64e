//! The toon shading of the game's characters (`AnimateToonShade`) on a
//! rig's meshes, where a game asks for it with [`ToonShaded`]: each part's
//! `StandardMaterial` is swapped for a [`ToonMaterial`] over the same
//! surface (texture, colours, blend, culling, texture animation), and
//! back when the component goes.
//!
//! What the client does, as far as its source tells: the light's toon
//! ramp, looked up by how far the surface turns to the light, times the
//! light's diffuse colour, plus its ambient, times the surface colour
//! (`(ramp x diffuse + ambient) x texture`), in sRGB values. The ramp
//! images (`toongray.dds`) are not public: [`ToonShading`] holds two
//! levels and the turn where one gives way to the other, a reading
//! (`docs/material.md`). The skin colour the client puts where a skin
//! texture's alpha is low comes from the game's race tables: a game gives
//! it in [`ToonShaded::skin`], and the parts whose scripts are skin
//! ([`MeshPart::skin`], by [`Material::is_skin`](crate::format::Material::is_skin))
//! show it.

use std::collections::HashMap;

use bevy::asset::{Asset, AssetEvent, AssetId, Assets, Handle};
use bevy::ecs::prelude::*;
use bevy::math::Vec4;
use bevy::pbr::{ExtendedMaterial, Material, MaterialExtension, MeshMaterial3d, StandardMaterial};
use bevy::reflect::{Reflect, std_traits::ReflectDefault};
use bevy::render::render_resource::{AsBindGroup, ShaderType};
use bevy::shader::ShaderRef;

use super::components::{MeshPart, SpawnedParts};

/// A part's material, toon-shaded.
pub type ToonMaterial = ExtendedMaterial<StandardMaterial, ToonShading>;

/// Where the shader is embedded.
pub const SHADER: &str = "embedded://bevy_io3d/plugin/character/toon.wgsl";

/// The light a toon surface is shaded by, in sRGB values from 0 to 1, and
/// its ramp.
#[derive(Asset, AsBindGroup, Reflect, Debug, Clone, PartialEq)]
pub struct ToonShading {
    /// The light.
    #[uniform(100)]
    pub light: ToonLight,
}

/// The uniform of [`ToonShading`].
#[derive(ShaderType, Reflect, Debug, Clone, Copy, PartialEq)]
pub struct ToonLight {
    /// The ambient colour (the game's default is 127 of 255).
    pub ambient: Vec4,
    /// The light's diffuse colour (the game's default is 127 of 255).
    pub diffuse: Vec4,
    /// x: the ramp in shade, y: lit, z: the cosine of the turn to the
    /// light where shade gives way to light.
    pub ramp: Vec4,
    /// The skin colour a skin material shows where its texture's alpha is
    /// low (the client's race colour), used when `w` is 1.
    pub skin: Vec4,
}

impl Default for ToonShading {
    /// The game's default light (ambient and diffuse both 127 of 255), a
    /// ramp of two levels (half light in shade), no skin colour.
    fn default() -> Self {
        let grey = rgb(127, 127, 127);
        let ramp = Vec4::new(0.5, 1.0, 0.0, 0.0);
        Self { light: ToonLight { ambient: grey, diffuse: grey, ramp, skin: Vec4::ZERO } }
    }
}

impl ToonShading {
    /// The character select screen's light: ambient (196, 185, 185),
    /// diffuse (191, 142, 111).
    pub fn character_select() -> Self {
        let mut shading = Self::default();
        (shading.light.ambient, shading.light.diffuse) = (rgb(196, 185, 185), rgb(191, 142, 111));
        shading
    }

    /// The same shading for a skin material: `color` (sRGB bytes, from the
    /// game's race tables, such as (242, 209, 140)) where the texture's
    /// alpha is low.
    pub fn with_skin(mut self, color: [u8; 3]) -> Self {
        self.light.skin = rgb(color[0], color[1], color[2]);
        self
    }
}

/// An sRGB colour from bytes, with w = 1.
fn rgb(r: u8, g: u8, b: u8) -> Vec4 {
    Vec4::new(f32::from(r) / 255.0, f32::from(g) / 255.0, f32::from(b) / 255.0, 1.0)
}

impl MaterialExtension for ToonShading {
    fn fragment_shader() -> ShaderRef {
        SHADER.into()
    }
}

/// Put on a rig (an entity with `RigMeshes`) to draw its meshes
/// toon-shaded; remove it to go back to `StandardMaterial`s.
#[derive(Component, Debug, Clone, Default, PartialEq, Reflect)]
#[reflect(Component, Default)]
pub struct ToonShaded {
    /// The light and the ramp.
    pub shading: ToonShading,
    /// The character's skin colour (sRGB bytes, from the game's race
    /// tables), shown where the texture's alpha is low on the parts whose
    /// material is skin ([`MeshPart::skin`]); `None` shows their texture
    /// as it is. Change it on a live rig to recolour it.
    pub skin: Option<[u8; 3]>,
}

impl ToonShaded {
    /// A skin colour of the game's race tables, for tools that show
    /// characters of no race (the viewer).
    pub const SAMPLE_SKIN: [u8; 3] = [242, 209, 140];

    /// The shading of a part: with the skin colour where its material is
    /// skin.
    pub fn of(&self, part: &MeshPart) -> ToonShading {
        match self.skin {
            Some(color) if part.skin => self.shading.clone().with_skin(color),
            _ => self.shading.clone(),
        }
    }
}

/// A part's plain material, which a toon material can stand in for: the
/// `StandardMaterial` of the entity paths, or the palette path's.
pub trait Shadeable: Material + Clone {
    /// The toon material over the same surface.
    type Toon: Material;

    /// The toon material over this surface lit by `shading`.
    fn toon(&self, shading: &ToonShading) -> Self::Toon;

    /// Gives `toon` this material's surface again (texture animation, the
    /// viewer's looks).
    fn resurface(&self, toon: &mut Self::Toon);
}

impl Shadeable for StandardMaterial {
    type Toon = ToonMaterial;

    fn toon(&self, shading: &ToonShading) -> ToonMaterial {
        ToonMaterial { base: self.clone(), extension: shading.clone() }
    }

    fn resurface(&self, toon: &mut ToonMaterial) {
        toon.base = self.clone();
    }
}

/// The plain material a toon-shaded part had, to go back to.
#[derive(Component, Debug, Clone)]
pub struct ToonOf<P: Asset>(Handle<P>);

/// The toon materials made from one plain material, by their light.
type Made<P> = Vec<(ToonShading, Handle<<P as Shadeable>::Toon>)>;

/// The toon materials made so far, by the surface and light they stand for.
#[derive(Resource, Debug)]
pub struct ToonMaterials<P: Shadeable>(HashMap<AssetId<P>, Made<P>>);

impl<P: Shadeable> Default for ToonMaterials<P> {
    fn default() -> Self {
        Self(HashMap::new())
    }
}

/// A part's plain material, and the one it goes back to when toon-shaded.
type PartMaterial<P> = (&'static MeshPart, Option<&'static MeshMaterial3d<P>>, Option<&'static ToonOf<P>>);

/// Rigs whose parts or shading changed.
type Reshaded = Or<(Changed<SpawnedParts>, Changed<ToonShaded>)>;

/// Swaps the parts of rigs with [`ToonShaded`] to toon materials and back,
/// and keeps each toon material's surface in step with its plain one
/// (texture animation, the viewer's looks): for parts drawn with `P`.
#[allow(clippy::too_many_arguments)] // A system: one parameter a store it touches.
pub(crate) fn apply_toon<P: Shadeable>(
    mut commands: Commands,
    mut cache: ResMut<ToonMaterials<P>>,
    mut events: MessageReader<AssetEvent<P>>,
    plains: Res<Assets<P>>,
    mut toon: ResMut<Assets<P::Toon>>,
    rigs: Query<(&SpawnedParts, Option<&ToonShaded>)>,
    touched: Query<Entity, Reshaded>,
    mut unshaded: RemovedComponents<ToonShaded>,
    parts: Query<PartMaterial<P>, With<MeshPart>>,
) {
    for event in events.read() {
        if let AssetEvent::Modified { id } = event
            && let (Some(made), Some(surface)) = (cache.0.get(id), plains.get(*id))
        {
            for (_, handle) in made {
                if let Some(mut material) = toon.get_mut(handle) {
                    surface.resurface(&mut material);
                }
            }
        }
    }
    // Only rigs whose parts or shading changed: the others are as wanted.
    let mut changed: Vec<Entity> = touched.iter().chain(unshaded.read()).collect();
    changed.sort_unstable();
    changed.dedup();
    for (spawned, shaded) in changed.into_iter().filter_map(|rig| rigs.get(rig).ok()) {
        for &part in spawned.parts() {
            let Ok((tag, plain, swapped)) = parts.get(part) else { continue };
            // A part already toon-shaded is shaded again from the material
            // it had: the rig's light or skin colour may have changed.
            let plain = swapped.map(|ToonOf(plain)| plain).or(plain.map(|plain| &plain.0));
            match (shaded, plain) {
                (Some(shaded), Some(plain)) => {
                    let Some(surface) = plains.get(plain) else { continue };
                    let handle = cache.material(&mut toon, plain, surface, &shaded.of(tag));
                    let back = ToonOf(plain.clone());
                    commands.entity(part).remove::<MeshMaterial3d<P>>().insert((MeshMaterial3d(handle), back));
                }
                (None, Some(plain)) if swapped.is_some() => {
                    let back = MeshMaterial3d(plain.clone());
                    commands.entity(part).remove::<(MeshMaterial3d<P::Toon>, ToonOf<P>)>().insert(back);
                }
                _ => {}
            }
        }
    }
}

impl<P: Shadeable> ToonMaterials<P> {
    /// The toon material over `surface` lit by `shading`, made once.
    fn material(
        &mut self,
        toon: &mut Assets<P::Toon>,
        plain: &Handle<P>,
        surface: &P,
        shading: &ToonShading,
    ) -> Handle<P::Toon> {
        let made = self.0.entry(plain.id()).or_default();
        if let Some((_, handle)) = made.iter().find(|(s, _)| s == shading) {
            return handle.clone();
        }
        let handle = toon.add(surface.toon(shading));
        made.push((shading.clone(), handle.clone()));
        handle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skin_parts_get_the_skin_colour_and_the_select_screen_its_light() {
        let part = |skin| MeshPart { mesh: Default::default(), name: "body".into(), submesh: 0, skin };
        let shaded = ToonShaded { shading: ToonShading::default(), skin: Some([242, 209, 140]) };
        let colour = Vec4::new(242.0 / 255.0, 209.0 / 255.0, 140.0 / 255.0, 1.0);
        assert_eq!(shaded.of(&part(true)).light.skin, colour);
        assert_eq!(shaded.of(&part(false)).light.skin, Vec4::ZERO, "parts that are not skin show none");
        assert_eq!(ToonShaded::default().of(&part(true)).light.skin, Vec4::ZERO, "no colour given");
        let select = ToonShading::character_select().light;
        assert_eq!((select.ambient.x, select.diffuse.z), (196.0 / 255.0, 111.0 / 255.0));
    }
}
