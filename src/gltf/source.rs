//! A glTF node tree and one of its animations, sampled by glTF's rules
//! (`LINEAR` with spherical rotations, `STEP`, `CUBICSPLINE`), as
//! model-space poses in the engine's axes: the source of an import.

use ::gltf::accessor::{DataType, Dimensions};
use ::gltf::animation::util::ReadOutputs;
use ::gltf::animation::{Interpolation, Property};
use glam::{Mat4, Quat, Vec3, Vec4};

use super::GltfError;
use super::document::{GltfDocument, animation_name};
use super::extras::{AnimationExtras, from_scene};
use crate::anim::BonePose;
use crate::anim::axes::{mirror_x_position, mirror_x_rotation};
use crate::anim::retarget::RetargetSource;

/// A node's local transform.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Trs {
    translation: Vec3,
    rotation: Quat,
    scale: Vec3,
}

impl Trs {
    fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// Every node of a document as a hierarchy of named bones.
#[derive(Debug, Clone)]
pub struct SourceNodes {
    /// Node names (`node N` for unnamed ones).
    pub names: Vec<String>,
    /// Each node's parent.
    pub parents: Vec<Option<usize>>,
    /// Nodes, parents first.
    order: Vec<usize>,
    /// Each node's own transform (matrices decomposed).
    rest: Vec<Trs>,
}

impl SourceNodes {
    /// The document's node tree; a node with two parents or one that is
    /// its own ancestor is refused by index.
    pub fn new(document: &::gltf::Document) -> Result<Self, GltfError> {
        let count = document.nodes().len();
        let mut parents = vec![None; count];
        for node in document.nodes() {
            for child in node.children() {
                if parents[child.index()].replace(node.index()).is_some() {
                    return Err(GltfError::Invalid(format!("node {}: has two parents", child.index())));
                }
            }
        }
        let mut order: Vec<usize> = (0..count).filter(|&n| parents[n].is_none()).collect();
        let mut next = 0;
        while next < order.len() {
            let node = document.nodes().nth(order[next]).expect("an index from the document");
            order.extend(node.children().map(|c| c.index()));
            next += 1;
        }
        if let Some(lost) = (0..count).find(|n| !order.contains(n)) {
            return Err(GltfError::Invalid(format!("node {lost}: is its own ancestor")));
        }
        let names = document.nodes().map(|n| n.name().map_or_else(|| format!("node {}", n.index()), str::to_owned));
        let rest = document.nodes().map(|n| {
            let (t, r, s) = n.transform().decomposed();
            Trs { translation: Vec3::from(t), rotation: Quat::from_array(r).normalize(), scale: Vec3::from(s) }
        });
        Ok(Self { names: names.collect(), parents, order, rest: rest.collect() })
    }

    /// Model-space poses (glTF's scene space, in the engine's axes, scale
    /// taken out) of local transforms.
    fn world(&self, local: &[Trs]) -> Vec<BonePose> {
        (self.world_matrices(local).iter())
            .map(|m| {
                let (_, rotation, translation) = m.to_scale_rotation_translation();
                BonePose { position: mirror_x_position(translation), rotation: mirror_x_rotation(rotation.normalize()) }
            })
            .collect()
    }

    /// Each node's transform in the scene (glTF's axes and units) at rest,
    /// scale and all: where a mesh node's vertices land.
    pub fn rest_matrices(&self) -> Vec<Mat4> {
        self.world_matrices(&self.rest)
    }

    fn world_matrices(&self, local: &[Trs]) -> Vec<Mat4> {
        let mut matrices = vec![Mat4::IDENTITY; local.len()];
        for &node in &self.order {
            let parent = self.parents[node].map_or(Mat4::IDENTITY, |p| matrices[p]);
            matrices[node] = parent * local[node].matrix();
        }
        matrices
    }

    /// The node tree at rest, as the source of a retarget.
    pub fn retarget_source(&self) -> RetargetSource {
        RetargetSource { names: self.names.clone(), parents: self.parents.clone(), rest: self.world(&self.rest) }
    }

    /// A node and its ancestors.
    pub fn chain(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(node), |&n| self.parents[n])
    }
}

/// One channel's keys.
#[derive(Debug, Clone)]
struct Curve {
    node: usize,
    property: Property,
    interpolation: Interpolation,
    /// Seconds, strictly increasing.
    times: Vec<f32>,
    /// One value a key, or for `CUBICSPLINE` three (in-tangent, value,
    /// out-tangent); translations and scales leave `w` at 0.
    values: Vec<Vec4>,
}

/// An animation's channels, ready to sample.
#[derive(Debug, Clone)]
pub struct SourceAnimation {
    /// Its name.
    pub name: String,
    /// Its `"io3d"` extras, if it has them.
    pub extras: Option<AnimationExtras>,
    curves: Vec<Curve>,
    /// Channels that were not read (morph target weights), for the report.
    pub skipped: Vec<String>,
}

impl SourceAnimation {
    /// Reads an animation's channels, checking each accessor first.
    pub fn read(file: &GltfDocument, animation: ::gltf::Animation<'_>) -> Result<Self, GltfError> {
        let name = animation_name(&animation);
        let own = AnimationExtras::from_extras(animation.extras())
            .map_err(|why| GltfError::Invalid(format!("animation '{name}': {why}")))?;
        // Where a tool dropped them (Blender), the scene's copy.
        let kept = |scene: ::gltf::Scene<'_>| from_scene(scene.extras(), &name).transpose();
        let extras = match own {
            Some(extras) => Some(extras),
            None => file.document.scenes().find_map(kept).transpose().map_err(GltfError::Invalid)?,
        };
        check_channels(&file.document, animation.index())
            .map_err(|why| GltfError::Invalid(format!("animation '{name}': {why}")))?;
        let (mut curves, mut skipped) = (Vec::new(), Vec::new());
        for channel in animation.channels() {
            let place = format!(
                "animation '{name}', channel {} ({} of node {})",
                channel.index(),
                property_name(channel.target().property()),
                channel.target().node().index()
            );
            if channel.target().property() == Property::MorphTargetWeights {
                skipped.push(format!("{place}: morph target weights are not bone motion"));
                continue;
            }
            curves.push(read_curve(file, &channel).map_err(|why| GltfError::Invalid(format!("{place}: {why}")))?);
        }
        Ok(Self { name, extras, curves, skipped })
    }

    /// Local transforms at `t` seconds: rest where no channel drives them.
    fn local(&self, nodes: &SourceNodes, t: f32) -> Vec<Trs> {
        let mut local = nodes.rest.clone();
        for curve in &self.curves {
            let value = curve.sample(t);
            let trs = &mut local[curve.node];
            match curve.property {
                Property::Translation => trs.translation = value.truncate(),
                Property::Rotation => trs.rotation = Quat::from_vec4(value).normalize(),
                Property::Scale => trs.scale = value.truncate(),
                Property::MorphTargetWeights => {}
            }
        }
        local
    }

    /// Model-space poses at `t` seconds, in the engine's axes.
    pub fn world(&self, nodes: &SourceNodes, t: f32) -> Vec<BonePose> {
        nodes.world(&self.local(nodes, t))
    }

    /// The key times (seconds, sorted, once each) of the channels that
    /// drive any of `nodes`.
    pub fn key_times(&self, nodes: impl IntoIterator<Item = usize>) -> Vec<f32> {
        let nodes: Vec<usize> = nodes.into_iter().collect();
        let mut times: Vec<f32> =
            self.curves.iter().filter(|c| nodes.contains(&c.node)).flat_map(|c| c.times.iter().copied()).collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        times
    }

    /// The last key time, in seconds.
    pub fn end(&self) -> f32 {
        self.curves.iter().filter_map(|c| c.times.last().copied()).fold(0.0, f32::max)
    }
}

impl Curve {
    /// glTF's value at `t`: the first key's before it, the last's after.
    fn sample(&self, t: f32) -> Vec4 {
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let value = |k: usize| if cubic { self.values[3 * k + 1] } else { self.values[k] };
        let next = self.times.partition_point(|&time| time <= t);
        if next == 0 {
            return value(0);
        }
        if next == self.times.len() {
            return value(next - 1);
        }
        let (k, t0, t1) = (next - 1, self.times[next - 1], self.times[next]);
        let s = (t - t0) / (t1 - t0);
        let rotation = self.property == Property::Rotation;
        match self.interpolation {
            Interpolation::Step => value(k),
            Interpolation::Linear if rotation => {
                let (a, b) = (Quat::from_vec4(value(k)).normalize(), Quat::from_vec4(value(next)).normalize());
                Vec4::from(a.slerp(b, s))
            }
            Interpolation::Linear => value(k).lerp(value(next), s),
            Interpolation::CubicSpline => {
                let dt = t1 - t0;
                let (v0, b0) = (self.values[3 * k + 1], self.values[3 * k + 2]);
                let (a1, v1) = (self.values[3 * next], self.values[3 * next + 1]);
                let (s2, s3) = (s * s, s * s * s);
                let p = v0 * (2.0 * s3 - 3.0 * s2 + 1.0)
                    + b0 * dt * (s3 - 2.0 * s2 + s)
                    + v1 * (-2.0 * s3 + 3.0 * s2)
                    + a1 * dt * (s3 - s2);
                if rotation { Vec4::from(Quat::from_vec4(p).normalize()) } else { p }
            }
        }
    }
}

/// What the `gltf` crate's validation leaves unchecked in channels and its
/// accessors then assume: a known target path and a node that exists.
fn check_channels(document: &::gltf::Document, animation: usize) -> Result<(), String> {
    let nodes = document.nodes().len();
    for (index, channel) in document.as_json().animations[animation].channels.iter().enumerate() {
        if !matches!(channel.target.path, ::gltf::json::validation::Checked::Valid(_)) {
            return Err(format!("channel {index}: its target path is none of translation, rotation, scale, weights"));
        }
        if channel.target.node.value() >= nodes {
            return Err(format!(
                "channel {index}: targets node {}, but the file has {nodes}",
                channel.target.node.value()
            ));
        }
    }
    Ok(())
}

fn property_name(property: Property) -> &'static str {
    match property {
        Property::Translation => "translation",
        Property::Rotation => "rotation",
        Property::Scale => "scale",
        Property::MorphTargetWeights => "weights",
    }
}

/// A channel's keys, after checking what the `gltf` crate's readers
/// assume (types, counts, strides, bounds), so that no file makes them
/// panic.
fn read_curve(file: &GltfDocument, channel: &::gltf::animation::Channel<'_>) -> Result<Curve, String> {
    let sampler = channel.sampler();
    let (input, output) = (sampler.input(), sampler.output());
    let property = channel.target().property();
    check_accessor(&input, "input", &[DataType::F32], Dimensions::Scalar)?;
    let (types, dimensions): (&[DataType], _) = match property {
        Property::Rotation => {
            (&[DataType::F32, DataType::I8, DataType::U8, DataType::I16, DataType::U16], Dimensions::Vec4)
        }
        _ => (&[DataType::F32], Dimensions::Vec3),
    };
    check_accessor(&output, "output", types, dimensions)?;
    let per_key = if sampler.interpolation() == Interpolation::CubicSpline { 3 } else { 1 };
    if output.count() != input.count() * per_key {
        return Err(format!(
            "{} output values for {} key times ({} a key for {:?})",
            output.count(),
            input.count(),
            per_key,
            sampler.interpolation()
        ));
    }
    let reader = channel.reader(|buffer| file.buffer(buffer));
    let times: Vec<f32> = match reader.read_inputs() {
        Some(times) => times.collect(),
        // No data is all zeros: one key at 0 s, or times that do not increase.
        None if input.view().is_none() && input.count() == 1 => vec![0.0],
        None => return Err(format!("input accessor {}: its data lies outside its buffer", input.index())),
    };
    if let Some(k) = times.windows(2).position(|w| w[0].partial_cmp(&w[1]) != Some(std::cmp::Ordering::Less)) {
        return Err(format!(
            "key times must increase: key {} at {} s, key {} at {} s",
            k,
            times[k],
            k + 1,
            times[k + 1]
        ));
    }
    if let Some(bad) = times.iter().find(|t| !t.is_finite()) {
        return Err(format!("key time {bad} is not a number of seconds"));
    }
    let values: Vec<Vec4> = match reader.read_outputs() {
        Some(ReadOutputs::Translations(v)) | Some(ReadOutputs::Scales(v)) => {
            v.map(|p| Vec3::from(p).extend(0.0)).collect()
        }
        Some(ReadOutputs::Rotations(r)) => r.into_f32().map(Vec4::from).collect(),
        Some(ReadOutputs::MorphTargetWeights(_)) => unreachable!("skipped by the caller"),
        None if output.view().is_none() && output.sparse().is_none() => vec![Vec4::ZERO; output.count()],
        None => return Err(format!("output accessor {}: its data lies outside its buffer", output.index())),
    };
    if values.iter().any(|v| !v.is_finite()) {
        return Err("an output value is not a finite number".into());
    }
    let node = channel.target().node().index();
    Ok(Curve { node, property, interpolation: sampler.interpolation(), times, values })
}

/// The most values an accessor with no buffer view (zeros, perhaps with
/// sparse values) may declare: its count is not bounded by any data, and
/// reading it allocates that many.
const MAX_KEYS_WITHOUT_DATA: usize = 1 << 20;

/// What the readers assume of an accessor: a known type and shape, at
/// least one element, and a stride no smaller than an element.
pub(super) fn check_accessor(
    accessor: &::gltf::Accessor<'_>,
    role: &str,
    types: &[DataType],
    dimensions: Dimensions,
) -> Result<(), String> {
    let index = accessor.index();
    if !types.contains(&accessor.data_type()) || accessor.dimensions() != dimensions {
        return Err(format!(
            "{role} accessor {index} holds {:?} {:?}, expected {:?} of {:?}",
            accessor.dimensions(),
            accessor.data_type(),
            dimensions,
            types
        ));
    }
    if accessor.count() == 0 {
        return Err(format!("{role} accessor {index} is empty"));
    }
    if accessor.view().is_none() && accessor.count() > MAX_KEYS_WITHOUT_DATA {
        return Err(format!("{role} accessor {index} declares {} values with no data behind them", accessor.count()));
    }
    if let Some(sparse) = accessor.sparse()
        && sparse.count() == 0
    {
        return Err(format!("{role} accessor {index} has an empty sparse block"));
    }
    let strides = accessor.view().into_iter().chain(accessor.sparse().map(|s| s.values().view()));
    if strides.filter_map(|view| view.stride()).any(|stride| stride < accessor.size()) {
        return Err(format!("{role} accessor {index}: its view's stride is smaller than an element"));
    }
    Ok(())
}
