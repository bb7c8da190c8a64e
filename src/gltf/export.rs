//! A skeleton, its meshes and animations, or a static model (a map, a
//! prop: meshes with no skeleton), as one binary glTF (`.glb`), with the
//! model's collision meshes.
//!
//! - Bones become nodes named exactly as the bones, holding their rest
//!   poses, in the skeleton's order (node `i` is bone `i`).
//! - Axes: the engine's left-handed axes are mirrored on X into glTF's
//!   right-handed, Y-up ones ([`crate::anim::axes`]), so the character
//!   faces +Z as glTF's convention wants, and every length is
//!   multiplied by [`ExportOptions::scale`] (0.01 by default: the engine's
//!   unit is about a centimetre, glTF's is the metre).
//! - Meshes are skinned to one skin whose joints are all the bones, with the
//!   skeleton's stored inverse binds, so they deform as the client skins
//!   them. One primitive a submesh, with the script's material of the same
//!   index; the diffuse texture is embedded as PNG (core glTF has no DDS).
//!   A static model's meshes have no skin and no joints or weights.
//! - A collision mesh (`.cms`) is a mesh node of its own named
//!   `<name>_collision` ([`COLLISION_SUFFIX`]), positions and triangles
//!   only, in the meshes' axes, units and winding, with no material.
//! - Each animation is a glTF animation named after its file: per track a
//!   `LINEAR` translation and rotation channel with the keys at their own
//!   times. Keys sharing a time play as the client plays them
//!   ([`keyframes_in_seconds`]). The file's version, total time and events
//!   go in the animation's `extras` under `"io3d"` ([`AnimationExtras`]).

use std::collections::HashMap;

use ::gltf::json::animation::{Channel, Interpolation, Property, Sampler, Target as ChannelTarget};
use ::gltf::json::buffer::Target;
use ::gltf::json::material::{AlphaCutoff, AlphaMode, EmissiveFactor, PbrBaseColorFactor, StrengthFactor};
use ::gltf::json::mesh::{Mode, Primitive, Semantic};
use ::gltf::json::scene::UnitQuaternion;
use ::gltf::json::texture::{Info, MagFilter, MinFilter, WrappingMode};
use ::gltf::json::validation::Checked;
use ::gltf::json::validation::Checked::Valid;
use ::gltf::json::{self, Index};
use glam::{Mat4, Quat, Vec3};

use super::GltfError;
use super::extras::{AnimationExtras, scene_extras};
use super::glb::GlbBuilder;
use crate::anim::axes::{mirror_x_position, mirror_x_rotation};
use crate::anim::bone_tracks::{BoneTrack, bone_tracks};
use crate::anim::{MeshBinding, Rig, keyframes_in_seconds, sample_keys, swapped_triangles, vertex_influences};
use crate::format::{AddressMode, Animation, Collision, Dds, Filtering, Key, Material, Skeleton};
use crate::resource::MeshFiles;
use crate::surface::{Faces, ROUGHNESS, Surface, SurfaceTexture, Transparency};

/// How long before a jump (keys sharing a time) its first key is written:
/// glTF has no instant change within a `LINEAR` channel, and Blender merges
/// keys closer than a hundredth of a frame (0.42 ms at 24 frames a second),
/// so the jump is written as a half-millisecond ramp, which the import
/// reads back as a jump.
pub const JUMP_S: f32 = 0.0005;

/// The extension for passes drawn without lighting (`lighting false`).
const UNLIT: &str = "KHR_materials_unlit";

/// What ends the name of a collision mesh's node and mesh: `stage.cms` is
/// written as `stage_collision`, and a glTF node or mesh so named is a
/// collision mesh coming back.
pub const COLLISION_SUFFIX: &str = "_collision";

/// A primitive's vertex buffers, by what they hold.
type Attributes = std::collections::BTreeMap<Checked<Semantic>, Index<json::Accessor>>;

/// How lengths are written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExportOptions {
    /// glTF units a game unit: 0.01 (metres) by default, as Blender and
    /// most tools expect; 1.0 keeps the game's units.
    pub scale: f32,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self { scale: 0.01 }
    }
}

/// What went into the file, besides its bytes.
#[derive(Debug, Clone, Default)]
pub struct Exported {
    /// The `.glb`.
    pub bytes: Vec<u8>,
    /// What was left out or approximated, one line each (missing textures,
    /// tracks of bones the skeleton lacks, ...).
    pub warnings: Vec<String>,
}

/// What goes into one `.glb`: a character (a skeleton, the meshes skinned
/// to it, its animations) or a static model (no skeleton: meshes that are
/// not skinned, no animations), and the collision meshes of either.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModelParts<'a> {
    /// The skeleton; `None` for a static model.
    pub skeleton: Option<&'a Skeleton>,
    /// The meshes, with their scripts and textures.
    pub meshes: &'a [MeshFiles],
    /// Animations, each named after its file.
    pub animations: &'a [(String, &'a Animation)],
    /// Collision meshes, each named after its file's stem (`stage` for
    /// `stage.cms`).
    pub collisions: &'a [(String, &'a Collision)],
}

/// Exports a skeleton with meshes (possibly none) and named animations.
pub fn export(
    skeleton: &Skeleton,
    meshes: &[MeshFiles],
    animations: &[(String, &Animation)],
    options: ExportOptions,
) -> Result<Exported, GltfError> {
    export_model(ModelParts { skeleton: Some(skeleton), meshes, animations, collisions: &[] }, options)
}

/// Exports a character or a static model with its collision meshes. A
/// model with no skeleton but with animations or skinned meshes is an
/// error ([`GltfError::NoSkeleton`]): they move with bones.
pub fn export_model(parts: ModelParts, options: ExportOptions) -> Result<Exported, GltfError> {
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err(GltfError::Scale(options.scale));
    }
    let rigged = match parts.skeleton {
        Some(skeleton) => Some((skeleton, rig(skeleton)?)),
        None => {
            static_model(&parts)?;
            None
        }
    };
    let mut out = Exporter { glb: GlbBuilder::new(), scale: options.scale, warnings: Vec::new() };
    let mut scene_nodes = Vec::new();
    // Always a skin with a skeleton, so that tools build an armature even
    // without meshes.
    let skinning = rigged.as_ref().map(|(skeleton, rig)| {
        scene_nodes = out.bones(skeleton, rig);
        Skinning { skin: out.skin(rig), rig }
    });
    let mut textures = HashMap::new();
    for mesh in parts.meshes {
        scene_nodes.push(out.mesh(mesh, skinning.as_ref(), &mut textures));
    }
    scene_nodes.extend(parts.collisions.iter().filter_map(|(name, collision)| out.collision(name, collision)));
    let mut written = Vec::new();
    // A static model has none (refused above).
    if let Some(skinning) = &skinning {
        for (name, animation) in parts.animations {
            if let Some(extras) = out.animation(skinning.rig, name, animation)? {
                written.push((name.clone(), extras));
            }
        }
    }
    let scene = out.glb.root.push(json::Scene {
        extensions: None,
        extras: Some(scene_extras(&written)?),
        name: Some(scene_name(&parts)),
        nodes: scene_nodes,
    });
    out.glb.root.scene = Some(scene);
    Ok(Exported { bytes: out.glb.finish()?, warnings: out.warnings })
}

/// The skeleton as a rig whose bones glTF joint indices can hold.
fn rig(skeleton: &Skeleton) -> Result<Rig, GltfError> {
    let rig = Rig::new(skeleton).map_err(|e| GltfError::Skeleton(e.to_string()))?;
    if rig.len() > usize::from(u16::MAX) + 1 {
        let why = format!("{} bones: a glTF joint index holds 65,536 at most", rig.len());
        return Err(GltfError::Skeleton(why));
    }
    Ok(rig)
}

/// A model with no skeleton holds nothing that moves with bones, as the
/// lint's `no-skeleton` rule says: no animation, no skinned mesh.
fn static_model(parts: &ModelParts) -> Result<(), GltfError> {
    let skinned: Vec<&str> = (parts.meshes.iter()).filter(|m| m.mesh.is_skinned()).map(|m| m.name.as_str()).collect();
    let mut needs = Vec::new();
    if !skinned.is_empty() {
        needs.push(format!("skinned meshes ({})", skinned.join(", ")));
    }
    if !parts.animations.is_empty() {
        needs.push(format!("{} animations", parts.animations.len()));
    }
    match needs.is_empty() {
        true => Ok(()),
        false => Err(GltfError::NoSkeleton(needs.join(" and "))),
    }
}

/// The scene's name: the first mesh's, else the first collision mesh's,
/// else the skeleton's size.
fn scene_name(parts: &ModelParts) -> String {
    let named = parts.meshes.first().map(|m| m.name.clone());
    let named = named.or_else(|| parts.collisions.first().map(|(name, _)| name.clone()));
    let bones = || parts.skeleton.map_or_else(|| "model".to_owned(), |s| format!("{} bones", s.bones.len()));
    named.unwrap_or_else(bones)
}

struct Exporter {
    glb: GlbBuilder,
    scale: f32,
    warnings: Vec<String>,
}

/// The skin that meshes skinned by the client are written with, and the
/// rig its joints are the bones of.
struct Skinning<'r> {
    skin: Index<json::Skin>,
    rig: &'r Rig,
}

impl Exporter {
    fn position(&self, p: Vec3) -> [f32; 3] {
        (mirror_x_position(p) * self.scale).to_array()
    }

    /// glTF wants unit quaternions; the files' are close to unit.
    fn rotation(q: Quat) -> [f32; 4] {
        mirror_x_rotation(q).normalize().to_array()
    }

    /// One node a bone, in the skeleton's order; returns the roots.
    fn bones(&mut self, skeleton: &Skeleton, rig: &Rig) -> Vec<Index<json::Node>> {
        for (bone, rest) in skeleton.bones.iter().zip(&rig.rest) {
            self.glb.root.push(json::Node {
                name: Some(bone.name.name_text().into_owned()),
                translation: Some(self.position(rest.position)),
                rotation: Some(UnitQuaternion(Self::rotation(rest.rotation))),
                ..Default::default()
            });
        }
        for (child, parent) in rig.parents.iter().enumerate() {
            if let Some(parent) = parent {
                self.glb.root.nodes[*parent].children.get_or_insert_with(Vec::new).push(Index::new(child as u32));
            }
        }
        (0..rig.len()).filter(|&b| rig.parents[b].is_none()).map(|b| Index::new(b as u32)).collect()
    }

    /// The one skin: every bone a joint, with its stored inverse bind.
    fn skin(&mut self, rig: &Rig) -> Index<json::Skin> {
        let matrices: Vec<[f32; 16]> = (rig.inverse_binds.iter())
            .map(|ib| {
                let rotation = Quat::from_array(Self::rotation(ib.rotation));
                Mat4::from_rotation_translation(rotation, Vec3::from(self.position(ib.position))).to_cols_array()
            })
            .collect();
        let inverse_binds = self.glb.accessor(&matrices, None, false);
        let root = rig.order.first().map(|&b| Index::new(b as u32));
        self.glb.root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(inverse_binds),
            joints: (0..rig.len()).map(|b| Index::new(b as u32)).collect(),
            name: Some("skeleton".into()),
            skeleton: root,
        })
    }

    /// A mesh node: one primitive a drawn submesh, skinned when the client
    /// skins the mesh.
    fn mesh(
        &mut self,
        part: &MeshFiles,
        skinning: Option<&Skinning>,
        textures: &mut HashMap<String, Option<Index<json::Texture>>>,
    ) -> Index<json::Node> {
        let skinning = skinning.filter(|_| part.mesh.is_skinned());
        let attributes = self.vertex_attributes(part, skinning.map(|s| s.rig));
        let mut primitives = Vec::new();
        for (i, submesh) in part.mesh.submeshes.iter().enumerate() {
            let triangles = part.mesh.submesh_indices(submesh);
            let Some(indices) = self.triangles(&part.name, triangles, part.mesh.positions.len()) else { continue };
            let material = part.script.as_ref().and_then(|s| s.materials.get(i));
            let material = material.map(|m| self.material(part, m, textures));
            primitives.push(primitive(attributes.clone(), indices, material));
        }
        if part.script.is_none() {
            self.warnings.push(format!("{}: no material script; drawn with glTF's default material", part.name));
        }
        self.mesh_node(&part.name, primitives, skinning.map(|s| s.skin))
    }

    /// A collision mesh as a node of its own named `<name>_collision`:
    /// positions and triangles, mirrored, scaled and turned as the meshes
    /// are so that it lies on them and faces as they do. `None` (and a
    /// warning) when it has no triangle to write.
    fn collision(&mut self, name: &str, collision: &Collision) -> Option<Index<json::Node>> {
        let what = format!("collision mesh '{name}'");
        let Some(indices) = self.triangles(&what, &collision.indices, collision.positions.len()) else {
            self.warnings.push(format!("{what}: no triangle; left out"));
            return None;
        };
        let attributes = Attributes::from([(Valid(Semantic::Positions), self.positions(&collision.positions))]);
        Some(self.mesh_node(&format!("{name}{COLLISION_SUFFIX}"), vec![primitive(attributes, indices, None)], None))
    }

    /// A mesh and the node that holds it, both named `name`.
    fn mesh_node(
        &mut self,
        name: &str,
        primitives: Vec<Primitive>,
        skin: Option<Index<json::Skin>>,
    ) -> Index<json::Node> {
        let mesh = self.glb.root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(name.to_owned()),
            primitives,
            weights: None,
        });
        self.glb.root.push(json::Node { name: Some(name.to_owned()), mesh: Some(mesh), skin, ..Default::default() })
    }

    /// Positions in glTF's axes and units, with the bounds glTF requires.
    fn positions(&mut self, positions: &[Vec3]) -> Index<json::Accessor> {
        let positions: Vec<[f32; 3]> = positions.iter().map(|&p| self.position(p)).collect();
        self.glb.accessor(&positions, Some(Target::ArrayBuffer), true)
    }

    /// Triangles in glTF's winding (the mirror turns the files' front
    /// faces to the back: [`swapped_triangles`]), less any that name a
    /// vertex past `vertices` (said, as `whose`'s); `None` when none is
    /// left.
    fn triangles(&mut self, whose: &str, indices: &[u16], vertices: usize) -> Option<Index<json::Accessor>> {
        let kept = swapped_triangles(indices, vertices);
        let (faces, dropped) = (indices.len() / 3, (indices.len() - kept.len()) / 3);
        if dropped > 0 {
            let why = format!("{dropped} of {faces} triangles name a vertex past the {vertices} vertices");
            self.warnings.push(format!("{whose}: {why}; left out"));
        }
        (!kept.is_empty()).then(|| self.glb.accessor(&kept, Some(Target::ElementArrayBuffer), false))
    }

    /// The vertex buffers every submesh of a mesh shares; joints and
    /// weights when it is skinned to `rig`.
    fn vertex_attributes(&mut self, part: &MeshFiles, rig: Option<&Rig>) -> Attributes {
        let mesh = &part.mesh;
        let count = mesh.positions.len();
        let mut attributes = Attributes::new();
        attributes.insert(Valid(Semantic::Positions), self.positions(&mesh.positions));
        if mesh.normals.len() == count {
            let normals: Vec<[f32; 3]> =
                mesh.normals.iter().map(|n| mirror_x_position(n.normalize_or(Vec3::Y)).to_array()).collect();
            attributes.insert(Valid(Semantic::Normals), self.glb.accessor(&normals, Some(Target::ArrayBuffer), false));
        }
        for (set, uvs) in [&mesh.uv0, &mesh.uv1].into_iter().enumerate() {
            if uvs.len() == count {
                let uvs: Vec<[f32; 2]> = uvs.iter().map(|uv| uv.to_array()).collect();
                let accessor = self.glb.accessor(&uvs, Some(Target::ArrayBuffer), false);
                attributes.insert(Valid(Semantic::TexCoords(set as u32)), accessor);
            }
        }
        if let (Some(weights), Some(rig)) = (&mesh.weights, rig) {
            let (joints, amounts) = self.skin_attributes(part, weights, count, rig);
            attributes.insert(Valid(Semantic::Joints(0)), self.glb.accessor(&joints, Some(Target::ArrayBuffer), false));
            attributes
                .insert(Valid(Semantic::Weights(0)), self.glb.accessor(&amounts, Some(Target::ArrayBuffer), false));
        }
        attributes
    }

    /// Joints as skin joints (bone indices) and weights scaled to sum to 1,
    /// as glTF requires (the client's usually do already).
    fn skin_attributes(
        &mut self,
        part: &MeshFiles,
        weights: &crate::format::Weights,
        count: usize,
        rig: &Rig,
    ) -> (Vec<[u16; 4]>, Vec<[f32; 4]>) {
        let binding = MeshBinding::new(weights, rig);
        for (_, name) in &binding.unknown {
            self.warnings.push(format!("{}: bone '{}' is not in the skeleton; skinned on the root", part.name, name));
        }
        let root = rig.order.first().copied().unwrap_or(0) as u16;
        let (joints, amounts) = vertex_influences(weights, count);
        (joints.into_iter().zip(amounts))
            .map(|(js, ws)| match ws.iter().sum::<f32>() {
                sum if sum > 0.0 => {
                    // A slot of weight 0 names joint 0, as validators expect
                    // of unused slots.
                    let joint = |k: usize| match ws[k] > 0.0 {
                        true => binding.palette.get(usize::from(js[k])).map_or(root, |&b| b as u16),
                        false => 0,
                    };
                    (std::array::from_fn(joint), ws.map(|w| w / sum))
                }
                // No positive weight: the client collapses the vertex; glTF
                // needs a joint, so the root holds it.
                _ => ([root, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            })
            .unzip()
    }

    /// A material's [`Surface`] as a glTF material. What glTF cannot say
    /// is approximated and said: adding and multiplying blends become
    /// alpha blends, and a pass that draws only back faces (an inverted
    /// hull) is written single-sided, culling back faces as glTF does.
    fn material(
        &mut self,
        part: &MeshFiles,
        material: &Material,
        textures: &mut HashMap<String, Option<Index<json::Texture>>>,
    ) -> Index<json::Material> {
        let surface = Surface::of(material);
        let unit = |c: f32| c.clamp(0.0, 1.0);
        let [r, g, b, a] = surface.base_color_linear();
        let mut out = json::Material {
            name: Some(material.name.clone()),
            emissive_factor: EmissiveFactor(surface.emissive_linear().map(unit)),
            double_sided: surface.faces == Faces::Both,
            ..Default::default()
        };
        out.pbr_metallic_roughness.base_color_factor = PbrBaseColorFactor([unit(r), unit(g), unit(b), unit(a)]);
        out.pbr_metallic_roughness.metallic_factor = StrengthFactor(0.0);
        out.pbr_metallic_roughness.roughness_factor = StrengthFactor(ROUGHNESS);
        if let Some(texture) = &surface.texture {
            let key = texture.name.to_ascii_lowercase();
            let index = match textures.get(&key) {
                Some(index) => *index,
                None => {
                    let index = self.texture(part, texture);
                    textures.insert(key, index);
                    index
                }
            };
            out.pbr_metallic_roughness.base_color_texture = index.map(|index| Info {
                index,
                tex_coord: part.mesh.uv_set(texture.uv_set) as u32,
                extensions: None,
                extras: Default::default(),
            });
        }
        (out.alpha_mode, out.alpha_cutoff) = match surface.transparency {
            Transparency::Mask(cutoff) => (Valid(AlphaMode::Mask), Some(AlphaCutoff(cutoff))),
            Transparency::Blend | Transparency::Add | Transparency::Multiply => (Valid(AlphaMode::Blend), None),
            Transparency::Opaque => (Valid(AlphaMode::Opaque), None),
        };
        let name = &material.name;
        if matches!(surface.transparency, Transparency::Add | Transparency::Multiply) {
            let how = format!("{:?}", surface.transparency).to_lowercase();
            self.warnings
                .push(format!("{}: material '{name}' blends by {how}; glTF has alpha blending only", part.name));
        }
        if surface.faces == Faces::Back {
            self.warnings.push(format!(
                "{}: material '{name}' draws back faces only (cull clockwise); glTF culls back faces, so it is written single-sided",
                part.name
            ));
        }
        if surface.unlit {
            // Built from the default: which other fields exist depends on
            // the `gltf-json` features the whole build enables.
            let mut extensions = json::extensions::material::Material::default();
            extensions.unlit = Some(json::extensions::material::Unlit {});
            out.extensions = Some(extensions);
            self.glb.use_extension(UNLIT);
        }
        self.glb.root.push(out)
    }

    /// A texture file as an embedded PNG with its sampler, or `None` (and a
    /// warning) where it is missing or not a DDS this crate reads.
    fn texture(&mut self, part: &MeshFiles, texture: &SurfaceTexture) -> Option<Index<json::Texture>> {
        let name = &texture.name;
        let png = match part.texture(name) {
            None => Err(format!("the script names '{name}' but it was not given")),
            Some(Err(why)) => Err(why.to_owned()),
            Some(Ok(bytes)) => dds_to_png(bytes).map_err(|e| format!("{name}: {e}")),
        };
        let png = match png {
            Ok(png) => png,
            Err(why) => {
                self.warnings.push(format!("{}: texture left out: {why}", part.name));
                return None;
            }
        };
        let image = self.glb.png_image(name, &png);
        let wrap = match texture.address {
            AddressMode::Wrap => WrappingMode::Repeat,
            AddressMode::Clamp => WrappingMode::ClampToEdge,
            AddressMode::Mirror => WrappingMode::MirroredRepeat,
        };
        let (mag, min) = match texture.filtering {
            Filtering::None => (MagFilter::Nearest, MinFilter::Nearest),
            _ => (MagFilter::Linear, MinFilter::LinearMipmapLinear),
        };
        let sampler = self.glb.root.push(json::texture::Sampler {
            mag_filter: Some(Valid(mag)),
            min_filter: Some(Valid(min)),
            wrap_s: Valid(wrap),
            wrap_t: Valid(wrap),
            ..Default::default()
        });
        Some(self.glb.root.push(json::Texture {
            name: Some(name.to_owned()),
            sampler: Some(sampler),
            source: image,
            extensions: None,
            extras: Default::default(),
        }))
    }

    /// One glTF animation: two channels a track that poses a bone.
    /// Writes an animation and returns the extras it carries; `None` when
    /// no track poses a bone (left out).
    fn animation(
        &mut self,
        rig: &Rig,
        name: &str,
        animation: &Animation,
    ) -> Result<Option<AnimationExtras>, GltfError> {
        let (mut channels, mut samplers, mut animated) = (Vec::new(), Vec::new(), Vec::new());
        // glTF allows one channel a property of a node: a bone's tracks
        // go as the one track the client's blend of them makes.
        for track in bone_tracks(animation) {
            let Some(bone) = rig.bone(track.bone.c_str()) else {
                self.warnings.push(format!("{name}: track '{}' names no bone of the skeleton; left out", track.bone));
                continue;
            };
            if track.tracks > 1 {
                let why = "tracks of one bone, exported as the client blends them (exact at their keys)";
                self.warnings.push(format!("{name}: {} {why}: '{}'", track.tracks, track.bone));
            }
            animated.push(bone);
            let (times, keys) = self.track_keys(name, &track);
            let input = self.glb.accessor(&times, None, true);
            let translations: Vec<[f32; 3]> = keys.iter().map(|k| self.position(k.position)).collect();
            let rotations: Vec<[f32; 4]> = keys.iter().map(|k| Self::rotation(k.rotation)).collect();
            let outputs = [
                (Property::Translation, self.glb.accessor(&translations, None, false)),
                (Property::Rotation, self.glb.accessor(&rotations, None, false)),
            ];
            for (property, output) in outputs {
                let sampler = Index::new(samplers.len() as u32);
                samplers.push(Sampler {
                    extensions: None,
                    extras: Default::default(),
                    input,
                    interpolation: Valid(Interpolation::Linear),
                    output,
                });
                channels.push(Channel {
                    sampler,
                    target: ChannelTarget {
                        extensions: None,
                        extras: Default::default(),
                        node: Index::new(bone as u32),
                        path: Valid(property),
                    },
                    extensions: None,
                    extras: Default::default(),
                });
            }
        }
        if channels.is_empty() {
            self.warnings.push(format!("{name}: no track poses a bone of the skeleton; animation left out"));
            return Ok(None);
        }
        let extras = AnimationExtras::of(animation);
        self.glb.root.push(json::Animation {
            extensions: None,
            extras: Some(extras.to_raw()?),
            channels,
            name: Some(name.to_owned()),
            samplers,
        });
        Ok(Some(extras))
    }

    /// A track's keyframes in seconds, as glTF needs them: times strictly
    /// increasing and not negative. Keys out of time order are sorted (the
    /// client would play them otherwise; `io3d check` reports them), and
    /// keys before 0 ms become the client's pose at 0 ms.
    fn track_keys(&mut self, name: &str, track: &BoneTrack) -> (Vec<f32>, Vec<Key>) {
        let mut keys = track.keys.to_vec();
        if !keys.is_sorted_by_key(|k| k.time_ms) {
            self.warnings.push(format!("{name}: track '{}' has keys out of time order; exported sorted", track.bone));
            keys.sort_by_key(|k| k.time_ms);
        }
        if keys.first().is_some_and(|k| k.time_ms < 0) {
            self.warnings.push(format!("{name}: track '{}' has keys before 0 ms; they start at 0 ms", track.bone));
            let at_zero = sample_keys(&keys, 0.0).map(|p| Key::new(0, p.position, p.rotation));
            keys.retain(|k| k.time_ms > 0);
            keys.splice(0..0, at_zero);
        }
        // Keys sharing 0 ms put their first just before 0: playback starts
        // at 0, where the last of them holds.
        keyframes_in_seconds(&keys, JUMP_S).into_iter().filter(|(t, _)| *t >= 0.0).map(|(t, k)| (t, *k)).unzip()
    }
}

/// A triangle list drawn with `material` (glTF's default without one).
fn primitive(
    attributes: Attributes,
    indices: Index<json::Accessor>,
    material: Option<Index<json::Material>>,
) -> Primitive {
    Primitive {
        attributes,
        extensions: None,
        extras: Default::default(),
        indices: Some(indices),
        material,
        mode: Valid(Mode::Triangles),
        targets: None,
    }
}

/// A DDS file's top level as PNG bytes.
pub fn dds_to_png(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let dds = Dds::from_bytes(bytes).map_err(|e| e.to_string())?;
    let rgba = dds.decode(0);
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, dds.width, dds.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&rgba).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(png)
}
