//! The 3D stage: the camera, the rig playing the current animation, and
//! what is drawn with gizmos (ground grid, bones, the root's path).

use std::f32::consts::FRAC_PI_2;

use std::collections::VecDeque;

use bevy::app::App;
use bevy::asset::Assets;
use bevy::camera::primitives::Aabb;
use bevy::camera::visibility::RenderLayers;
use bevy::camera::{
    Camera, Camera2d, Camera3d, CameraOutputMode, ClearColorConfig, PerspectiveProjection, Projection, RenderTarget,
};
use bevy::color::{Color, Srgba};
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::ecs::prelude::*;
use bevy::gizmos::AppGizmoBuilder;
use bevy::gizmos::config::{GizmoConfig, GizmoConfigGroup};
use bevy::gizmos::gizmos::Gizmos;
use bevy::light::{DirectionalLight, GlobalAmbientLight};
use bevy::math::{Isometry3d, Quat, UVec2, Vec2, Vec3};
use bevy::reflect::Reflect;
use bevy::render::render_resource::BlendState;
use bevy::transform::components::{GlobalTransform, Transform};
use bevy_egui::PrimaryEguiContext;

use super::camera::{Orbit, viewport};
use super::preview::PreviewPart;
use super::view::{StageRect, ViewState};
use super::workspace::Workspace;
use crate::plugin::character::{MeshPart, RigMeshes};
use crate::plugin::{AniEventFired, AniPlayback, AniPlayer, Axes, RigBones, SklRig, SklSkeleton};

/// The entity that plays the current animation on the current skeleton.
#[derive(Component, Debug)]
pub struct ViewedRig;

/// A second rig beside the first, playing another open animation in step
/// with it, for comparing an edit with its source.
#[derive(Component, Debug)]
pub struct ComparedRig;

/// The viewed and the compared rig.
type ShownRigs = Or<(With<ViewedRig>, With<ComparedRig>)>;

/// What [`follow_workspace`] sets on a shown rig (meshes on the viewed
/// one only).
type ShownRig = (
    Entity,
    Option<&'static mut SklRig>,
    Option<&'static RigBones>,
    (&'static mut AniPlayer, &'static AniPlayback),
    Option<&'static mut RigMeshes>,
    Has<ViewedRig>,
);

/// How far beside the viewed rig the compared one stands.
const COMPARE_OFFSET: Vec3 = Vec3::new(120.0, 0.0, 0.0);

/// Bones and their selection, drawn over the meshes (a bone inside the
/// body stays visible).
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct BoneGizmos;

/// Registers [`BoneGizmos`], always in front.
pub fn add_bone_gizmos(app: &mut App) {
    app.insert_gizmo_config(BoneGizmos, GizmoConfig { depth_bias: -1.0, ..GizmoConfig::default() });
}

/// The 3D camera.
#[derive(Component, Debug)]
pub struct StageCamera;

const BONE: Srgba = Srgba::rgb(0.85, 0.88, 0.95);
const SELECTED: Srgba = Srgba::rgb(1.0, 0.8, 0.1);
const PATH: Srgba = Srgba::rgb(0.2, 0.8, 1.0);
const COMPARED: Srgba = Srgba::rgb(1.0, 0.55, 0.3);
const GRID: Srgba = Srgba::new(0.5, 0.5, 0.55, 0.35);

/// Spawns the cameras (3D below, egui on top, both on `target`) and the
/// rig.
pub fn spawn_stage(commands: &mut Commands, target: RenderTarget, workspace: &Workspace) {
    let orbit = Orbit::default();
    commands.spawn((
        StageCamera,
        Camera3d::default(),
        Camera { clear_color: ClearColorConfig::Custom(Color::srgb(0.11, 0.12, 0.14)), ..Camera::default() },
        target.clone(),
        Projection::Perspective(PerspectiveProjection { near: 1.0, far: 50_000.0, ..PerspectiveProjection::default() }),
        // No tone mapping, so no lookup tables to build in: the lines keep
        // their colours and the toon-like materials need none.
        Tonemapping::None,
        orbit.transform(),
        orbit,
    ));
    commands.spawn((
        PrimaryEguiContext,
        Camera2d,
        RenderLayers::none(),
        Camera {
            order: 1,
            output_mode: CameraOutputMode::Write {
                blend_state: Some(BlendState::ALPHA_BLENDING),
                clear_color: ClearColorConfig::None,
            },
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..Camera::default()
        },
        target,
    ));
    let mut player = AniPlayer::default();
    player.clip = workspace.current().map(|open| open.handle.clone());
    let meshes = RigMeshes(workspace.meshes.iter().map(|m| m.handle.clone()).collect());
    let mut viewed = commands.spawn((ViewedRig, player, meshes));
    if workspace.shown_skeleton().is_some() {
        viewed.insert(SklRig::new(workspace.rig_skeleton.clone()));
    }
    viewed.observe(log_event);
    // A key light from the front left above, and a soft fill everywhere.
    commands.spawn((
        DirectionalLight { illuminance: 6000.0, ..DirectionalLight::default() },
        Transform::from_xyz(-200.0, 400.0, 300.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight { brightness: 600.0, ..GlobalAmbientLight::default() });
    let beside = Transform::from_translation(COMPARE_OFFSET);
    commands.spawn((ComparedRig, SklRig::new(workspace.rig_skeleton.clone()), AniPlayer::default(), beside));
}

/// The most events the log keeps.
const LOG_LINES: usize = 200;

/// The events the viewed rigs fired, newest last.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct EventLog(pub VecDeque<String>);

fn log_event(event: On<AniEventFired>, mut log: ResMut<EventLog>) {
    if log.0.len() == LOG_LINES {
        log.0.pop_front();
    }
    log.0.push_back(format!("{:>8.1} ms  {}  {}", event.time_ms, event.name, event.sub_info));
}

/// Points the rigs at the current (and compared) animation and the
/// skeleton when they change; the compared rig follows the viewed one's
/// time.
pub fn follow_workspace(
    mut commands: Commands,
    workspace: Res<Workspace>,
    mut view: ResMut<ViewState>,
    mut rigs: Query<ShownRig, ShownRigs>,
) {
    let time = rigs.iter().find(|(.., viewed)| *viewed).map(|(_, _, _, (_, playback), ..)| playback.time_ms());
    for (entity, rig, bones, (mut player, _), meshes, viewed) in &mut rigs {
        // A model with no skeleton (a map, a prop) has no rig: its meshes
        // are drawn as stored.
        match (rig, workspace.shown_skeleton().is_some()) {
            (Some(mut rig), true) if rig.skeleton != workspace.rig_skeleton => {
                rig.skeleton = workspace.rig_skeleton.clone();
            }
            (Some(_), false) => {
                bones.into_iter().flat_map(|b| &b.0).for_each(|&bone| commands.entity(bone).despawn());
                commands.entity(entity).remove::<(SklRig, RigBones)>();
            }
            (None, true) => {
                commands.entity(entity).insert(SklRig::new(workspace.rig_skeleton.clone()));
            }
            _ => {}
        }
        if let Some(mut meshes) = meshes {
            let shown = workspace.meshes.iter().map(|m| &m.handle);
            if !meshes.0.iter().eq(shown.clone()) {
                meshes.0 = shown.cloned().collect();
            }
        }
        let index = if viewed { Some(workspace.current) } else { view.compare };
        let clip = index.and_then(|i| workspace.animations.get(i)).map(|open| open.handle.clone());
        // In the bind pose nothing plays: the rig holds its rest pose.
        let clip = clip.filter(|_| !view.bind_pose);
        if player.clip != clip {
            player.clip = clip;
            view.frame_requested |= viewed;
        }
        // The compared clip follows the viewed one's playhead, when shown.
        if !viewed
            && index.is_some()
            && let Some(time) = time
        {
            player.paused = true;
            player.seek(time);
        }
    }
}

/// Keeps the 3D camera's viewport on the part of the window the panels
/// leave free.
pub fn fit_viewport(
    stage: Res<StageRect>,
    mut cameras: Query<&mut Camera, With<StageCamera>>,
    windows: Query<&bevy::window::Window>,
) {
    let Some(rect) = stage.0 else { return };
    let window = windows.iter().next();
    let scale = window.map_or(1.0, |w| w.scale_factor());
    // egui measures a screen of 10,000 points until it learns the
    // window's size (a browser's canvas is sized a frame late): a
    // viewport past the target is a render error, so it is cut to it.
    let rect = match window {
        Some(w) => rect.intersect(bevy::math::Rect::new(0.0, 0.0, w.width(), w.height())),
        None => rect,
    };
    for mut camera in &mut cameras {
        let wanted = viewport(rect.min, rect.size(), scale);
        let key = |v: &Option<bevy::camera::Viewport>| v.as_ref().map(|v| (v.physical_position, v.physical_size));
        if key(&camera.viewport) != key(&wanted) {
            camera.viewport = wanted;
        }
    }
}

/// Bone world positions of a rig, in skeleton order.
pub fn bone_points(bones: &RigBones, transforms: &Query<&GlobalTransform>) -> Vec<Vec3> {
    bones.0.iter().map(|&b| transforms.get(b).map_or(Vec3::NAN, |t| t.translation())).collect()
}

/// Joints as small spheres and links to their parents; the selected bone
/// larger and in another colour.
fn draw_bones(
    gizmos: &mut Gizmos<BoneGizmos>,
    points: &[Vec3],
    parents: &[Option<usize>],
    selected: Option<usize>,
    color: Srgba,
) {
    for (bone, &at) in points.iter().enumerate() {
        let color = if Some(bone) == selected { SELECTED } else { color };
        if let Some(parent) = parents[bone] {
            gizmos.line(points[parent], at, color);
        }
        let radius = if Some(bone) == selected { 3.5 } else { 1.5 };
        gizmos.sphere(Isometry3d::from_translation(at), radius, color).resolution(8);
    }
}

/// What framing takes in besides the bones: mesh parts and previews.
type Framed = Or<(With<MeshPart>, With<PreviewPart>)>;

/// Draws the grid, the bones, the selection and the root's path, and
/// frames the rig when asked.
#[allow(clippy::too_many_arguments)]
pub fn draw_stage(
    mut gizmos: Gizmos,
    mut bone_gizmos: Gizmos<BoneGizmos>,
    workspace: Res<Workspace>,
    mut view: ResMut<ViewState>,
    skeletons: Res<Assets<SklSkeleton>>,
    rigs: Query<&RigBones, With<ViewedRig>>,
    compared: Query<&RigBones, With<ComparedRig>>,
    transforms: Query<&GlobalTransform>,
    mut cameras: Query<(&mut Orbit, &Projection), With<StageCamera>>,
    mesh_bounds: Query<(&Aabb, &GlobalTransform), Framed>,
    unbounded: Query<(), (With<MeshPart>, Without<Aabb>)>,
) {
    let points = rigs.iter().next().map(|bones| bone_points(bones, &transforms)).unwrap_or_default();
    let path: Vec<Vec3> = workspace
        .current()
        .and_then(|open| open.root_path.as_ref())
        .map(|path| path.positions.iter().map(|&p| ground(Axes::EngineToBevy.position(p))).collect())
        .unwrap_or_default();
    let center = path.first().copied().unwrap_or(Vec3::ZERO);
    let flat = Quat::from_rotation_x(FRAC_PI_2);
    let cell = grid_cell(cameras.iter().next().map_or(0.0, |(orbit, _)| orbit.distance));
    gizmos.grid(Isometry3d::new(Vec3::new(center.x, 0.0, center.z), flat), UVec2::splat(40), Vec2::splat(cell), GRID);
    // Meshes whose bounds are not known yet would be left out.
    if view.frame_requested && unbounded.is_empty() {
        // Meshes reach past the bones (the head above its joint), and a
        // map or a prop has meshes only.
        let corners: Vec<Vec3> = mesh_bounds
            .iter()
            .flat_map(|(aabb, at)| [at.transform_point(aabb.min().into()), at.transform_point(aabb.max().into())])
            .collect();
        let framed = points.iter().chain(&path).chain(&corners).copied();
        view.frame_requested = !frame(&mut cameras, framed);
    }
    let Some(skeleton) = skeletons.get(&workspace.rig_skeleton).filter(|_| workspace.shown_skeleton().is_some()) else {
        return;
    };
    if points.len() != skeleton.rig.len() {
        return;
    }
    let selected = view.selected.as_deref().and_then(|name| skeleton.rig.bone(name));
    if view.show_bones {
        draw_bones(&mut bone_gizmos, &points, &skeleton.rig.parents, selected, BONE);
    }
    if view.compare.is_some()
        && let Some(bones) = compared.iter().next()
    {
        let beside = bone_points(bones, &transforms);
        if beside.len() == points.len() {
            draw_bones(&mut bone_gizmos, &beside, &skeleton.rig.parents, None, COMPARED);
        }
    }
    if view.show_path && path.len() > 1 {
        gizmos.linestrip(path.iter().copied(), PATH);
        if let Some(root) = skeleton.rig.bone(super::workspace::ROOT_BONE.as_bytes()) {
            gizmos.circle(Isometry3d::new(ground(points[root]), flat), 6.0, PATH);
        }
    }
}

/// Frames `points` in every stage camera; whether it could (they have an
/// extent).
fn frame(
    cameras: &mut Query<(&mut Orbit, &Projection), With<StageCamera>>,
    points: impl Iterator<Item = Vec3>,
) -> bool {
    let points: Vec<Vec3> = points.collect();
    let mut framed = false;
    for (mut orbit, projection) in cameras {
        let fov = match projection {
            Projection::Perspective(p) => p.fov,
            _ => 0.8,
        };
        framed |= orbit.frame(points.iter().copied(), fov);
    }
    framed
}

/// The grid's cell, in units: 25 around a character, growing tenfold as
/// the camera backs away tenfold (a map spans thousands of units).
fn grid_cell(distance: f32) -> f32 {
    let steps = (distance / 420.0).max(1.0).log10().floor();
    25.0 * 10f32.powf(steps)
}

/// A point dropped onto the ground, just above it so that it shows over
/// the grid.
fn ground(p: Vec3) -> Vec3 {
    Vec3::new(p.x, 0.3, p.z)
}
