//! A skeleton, its meshes and animations as one binary glTF (`.glb`).
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
use ::gltf::json::validation::Checked::Valid;
use ::gltf::json::{self, Index};
use glam::{Mat4, Quat, Vec3};

use super::GltfError;
use super::extras::{AnimationExtras, scene_extras};
use super::glb::GlbBuilder;
use crate::anim::axes::{mirror_x_position, mirror_x_rotation};
use crate::anim::bone_tracks::{BoneTrack, bone_tracks};
use crate::anim::{MeshBinding, Rig, keyframes_in_seconds, sample_keys, swapped_triangles, vertex_influences};
use crate::format::{AddressMode, Animation, Dds, Filtering, Key, Material, Skeleton};
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

/// Exports a skeleton with meshes (possibly none) and named animations.
pub fn export(
    skeleton: &Skeleton,
    meshes: &[MeshFiles],
    animations: &[(String, &Animation)],
    options: ExportOptions,
) -> Result<Exported, GltfError> {
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err(GltfError::Scale(options.scale));
    }
    let rig = Rig::new(skeleton).map_err(|e| GltfError::Skeleton(e.to_string()))?;
    if rig.len() > usize::from(u16::MAX) + 1 {
        let why = format!("{} bones: a glTF joint index holds 65,536 at most", rig.len());
        return Err(GltfError::Skeleton(why));
    }
    let mut out = Exporter { glb: GlbBuilder::new(), rig: &rig, scale: options.scale, warnings: Vec::new() };
    let mut scene_nodes = out.bones(skeleton);
    // Always a skin, so that tools build an armature even without meshes.
    let skin = out.skin();
    let mut textures = HashMap::new();
    for mesh in meshes {
        scene_nodes.push(out.mesh(mesh, skin, &mut textures));
    }
    let mut written = Vec::new();
    for (name, animation) in animations {
        if let Some(extras) = out.animation(name, animation)? {
            written.push((name.clone(), extras));
        }
    }
    let scene = out.glb.root.push(json::Scene {
        extensions: None,
        extras: Some(scene_extras(&written)?),
        name: Some(skeleton_name(skeleton, meshes)),
        nodes: scene_nodes,
    });
    out.glb.root.scene = Some(scene);
    Ok(Exported { bytes: out.glb.finish()?, warnings: out.warnings })
}

fn skeleton_name(skeleton: &Skeleton, meshes: &[MeshFiles]) -> String {
    meshes.first().map(|m| m.name.clone()).unwrap_or_else(|| format!("{} bones", skeleton.bones.len()))
}

struct Exporter<'a> {
    glb: GlbBuilder,
    rig: &'a Rig,
    scale: f32,
    warnings: Vec<String>,
}

impl Exporter<'_> {
    fn position(&self, p: Vec3) -> [f32; 3] {
        (mirror_x_position(p) * self.scale).to_array()
    }

    /// glTF wants unit quaternions; the files' are close to unit.
    fn rotation(q: Quat) -> [f32; 4] {
        mirror_x_rotation(q).normalize().to_array()
    }

    /// One node a bone, in the skeleton's order; returns the roots.
    fn bones(&mut self, skeleton: &Skeleton) -> Vec<Index<json::Node>> {
        let rig = self.rig;
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
    fn skin(&mut self) -> Index<json::Skin> {
        let matrices: Vec<[f32; 16]> = (self.rig.inverse_binds.iter())
            .map(|ib| {
                let rotation = Quat::from_array(Self::rotation(ib.rotation));
                Mat4::from_rotation_translation(rotation, Vec3::from(self.position(ib.position))).to_cols_array()
            })
            .collect();
        let inverse_binds = self.glb.accessor(&matrices, None, false);
        let root = self.rig.order.first().map(|&b| Index::new(b as u32));
        self.glb.root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(inverse_binds),
            joints: (0..self.rig.len()).map(|b| Index::new(b as u32)).collect(),
            name: Some("skeleton".into()),
            skeleton: root,
        })
    }

    /// A mesh node: one primitive a drawn submesh, skinned when the client
    /// skins the mesh.
    fn mesh(
        &mut self,
        part: &MeshFiles,
        skin: Index<json::Skin>,
        textures: &mut HashMap<String, Option<Index<json::Texture>>>,
    ) -> Index<json::Node> {
        let attributes = self.vertex_attributes(part);
        let mut primitives = Vec::new();
        for (i, submesh) in part.mesh.submeshes.iter().enumerate() {
            let indices = swapped_triangles(part.mesh.submesh_indices(submesh), part.mesh.positions.len());
            if indices.is_empty() {
                continue;
            }
            let material = part.script.as_ref().and_then(|s| s.materials.get(i));
            primitives.push(Primitive {
                attributes: attributes.clone(),
                extensions: None,
                extras: Default::default(),
                indices: Some(self.glb.accessor(&indices, Some(Target::ElementArrayBuffer), false)),
                material: material.map(|m| self.material(part, m, textures)),
                mode: Valid(Mode::Triangles),
                targets: None,
            });
        }
        if part.script.is_none() {
            self.warnings.push(format!("{}: no material script; drawn with glTF's default material", part.name));
        }
        let mesh = self.glb.root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(part.name.clone()),
            primitives,
            weights: None,
        });
        let skinned = part.mesh.is_skinned().then_some(skin);
        self.glb.root.push(json::Node {
            name: Some(part.name.clone()),
            mesh: Some(mesh),
            skin: skinned,
            ..Default::default()
        })
    }

    /// The vertex buffers every submesh of a mesh shares.
    fn vertex_attributes(
        &mut self,
        part: &MeshFiles,
    ) -> std::collections::BTreeMap<json::validation::Checked<Semantic>, Index<json::Accessor>> {
        let mesh = &part.mesh;
        let count = mesh.positions.len();
        let mut attributes = std::collections::BTreeMap::new();
        let positions: Vec<[f32; 3]> = mesh.positions.iter().map(|&p| self.position(p)).collect();
        attributes.insert(Valid(Semantic::Positions), self.glb.accessor(&positions, Some(Target::ArrayBuffer), true));
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
        if let Some(weights) = mesh.weights.as_ref().filter(|_| mesh.is_skinned()) {
            let (joints, amounts) = self.skin_attributes(part, weights, count);
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
    ) -> (Vec<[u16; 4]>, Vec<[f32; 4]>) {
        let binding = MeshBinding::new(weights, self.rig);
        for (_, name) in &binding.unknown {
            self.warnings.push(format!("{}: bone '{}' is not in the skeleton; skinned on the root", part.name, name));
        }
        let root = self.rig.order.first().copied().unwrap_or(0) as u16;
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
                tex_coord: texture.uv_set as u32,
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
    fn animation(&mut self, name: &str, animation: &Animation) -> Result<Option<AnimationExtras>, GltfError> {
        let (mut channels, mut samplers, mut animated) = (Vec::new(), Vec::new(), Vec::new());
        // glTF allows one channel a property of a node: a bone's tracks
        // go as the one track the client's blend of them makes.
        for track in bone_tracks(animation) {
            let Some(bone) = self.rig.bone(track.bone.c_str()) else {
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
