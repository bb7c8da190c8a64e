//! From the engine's left-handed axes to Bevy's right-handed ones.

use bevy::ecs::component::Component;
use bevy::ecs::reflect::ReflectComponent;
use bevy::math::{Quat, Vec3};
use bevy::reflect::{Reflect, std_traits::ReflectDefault};
use bevy::transform::components::Transform;
use serde::{Deserialize, Serialize};

use crate::anim::BonePose;
use crate::anim::axes::{mirror_position, mirror_rotation, mirror_x_position, mirror_x_rotation};

/// How poses in the files' axes become Bevy transforms: one component on
/// the rig's entity, which its player, its spawned bones ([`super::SklRig`])
/// and its meshes all read, so they cannot disagree.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Reflect, Serialize, Deserialize)]
#[reflect(Component, Default)]
pub enum Axes {
    /// The files' Direct3D axes (left-handed, Y up) mirrored on Z into
    /// Bevy's: position (x, y, z) becomes (x, y, -z) and rotation
    /// (x, y, z, w) becomes (-x, -y, z, w). Applied to every local transform
    /// alike, this keeps parent-child composition, so the character is not
    /// mirrored. For rigs spawned from `.skl`.
    #[default]
    EngineToBevy,
    /// The files' axes mirrored on X, as glTF holds them: position
    /// (x, y, z) becomes (-x, y, z) and rotation (x, y, z, w) becomes
    /// (x, -y, -z, w). For Bevy clips played on a glTF scene that
    /// `io3d export` wrote ([`super::AniLoaderSettings::axes`]).
    EngineToGltf,
    /// No conversion, for rigs already in the files' axes.
    AsIs,
}

impl Axes {
    /// The position in these axes. Mirroring is its own inverse, so this
    /// also takes Bevy positions back to the engine's.
    pub fn position(self, p: Vec3) -> Vec3 {
        match self {
            Self::EngineToBevy => mirror_position(p),
            Self::EngineToGltf => mirror_x_position(p),
            Self::AsIs => p,
        }
    }

    /// The rotation in these axes (its own inverse, like [`Axes::position`]).
    pub fn rotation(self, q: Quat) -> Quat {
        match self {
            Self::EngineToBevy => mirror_rotation(q),
            Self::EngineToGltf => mirror_x_rotation(q),
            Self::AsIs => q,
        }
    }

    /// Sets a transform's translation and rotation from a pose, keeping
    /// its scale.
    pub fn apply(self, pose: &BonePose, transform: &mut Transform) {
        transform.translation = self.position(pose.position);
        transform.rotation = self.rotation(pose.rotation);
    }

    /// A transform holding a pose, with unit scale.
    pub fn transform(self, pose: &BonePose) -> Transform {
        let mut transform = Transform::IDENTITY;
        self.apply(pose, &mut transform);
        transform
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirroring_keeps_composition() {
        let parent = BonePose {
            position: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_euler(bevy::math::EulerRot::XYZ, 0.3, -0.5, 1.1),
        };
        let child = BonePose {
            position: Vec3::new(-4.0, 0.5, 2.0),
            rotation: Quat::from_euler(bevy::math::EulerRot::XYZ, -0.2, 0.9, 0.4),
        };
        let world = child.under(parent);
        let axes = Axes::EngineToBevy;
        let composed = axes.transform(&parent) * axes.transform(&child);
        assert!(composed.translation.abs_diff_eq(axes.position(world.position), 1e-5));
        assert!(composed.rotation.abs_diff_eq(axes.rotation(world.rotation), 1e-5));
    }
}
