//! Bones as places, on the paths that spawn or write no bone entity's
//! `Transform` (the palette path, and the crowd path's unwritten
//! `Transform`s): where a named bone is ([`PaletteBones`]), and entities
//! that follow one ([`AniSocket`]).

use bevy::ecs::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::math::Affine3A;
use bevy::reflect::Reflect;
use bevy::transform::components::{GlobalTransform, Transform};

use super::binding::AniBinding;
use super::player::ModelPoses;

/// Where the bones of players on the palette or crowd path are, by name,
/// from the poses evaluation composed this frame.
#[derive(SystemParam)]
pub struct PaletteBones<'w, 's> {
    players: Query<'w, 's, (&'static ModelPoses, &'static AniBinding, &'static GlobalTransform)>,
}

impl PaletteBones<'_, '_> {
    /// The pose of `bone` relative to `player`, in Bevy's axes: the name
    /// as its file stores it (CP949 bytes too) or as its `Name` shows it.
    /// `None` when the player is not posed on these paths or has no such
    /// bone.
    pub fn model(&self, player: Entity, bone: &[u8]) -> Option<Affine3A> {
        let (poses, binding, _) = self.players.get(player).ok()?;
        poses.0.get(binding.bone_index(bone)?).copied()
    }

    /// Where `bone` of `player` is in the world: the player's
    /// `GlobalTransform` times [`PaletteBones::model`]. Read it after
    /// Bevy's transform propagation (in `PostUpdate` after
    /// [`super::Io3dSystems::WorldPose`], or in the next frame's
    /// `Update`); before then the player's `GlobalTransform` is the last
    /// frame's.
    pub fn world(&self, player: Entity, bone: &[u8]) -> Option<Affine3A> {
        let (_, _, global) = self.players.get(player).ok()?;
        Some(global.affine() * self.model(player, bone)?)
    }
}

/// Put on a child of a player on the palette or crowd path to carry it on
/// a bone (a weapon in a hand, an effect): its `Transform` follows the
/// bone's pose each frame, after posing, keeping its scale, so Bevy's
/// propagation places it and whatever hangs below it. On the `Transform`
/// path, parent things to the bone entity instead.
#[derive(Component, Debug, Clone, PartialEq, Eq, Reflect)]
#[reflect(Component)]
#[require(Transform)]
pub struct AniSocket {
    /// The bone, named as [`PaletteBones::model`] takes it.
    pub bone: String,
}

impl AniSocket {
    /// A socket on `bone`.
    pub fn new(bone: impl Into<String>) -> Self {
        Self { bone: bone.into() }
    }
}

/// Moves each socket to its bone's pose in its parent player.
pub(crate) fn place_sockets(bones: PaletteBones, mut sockets: Query<(&AniSocket, &ChildOf, &mut Transform)>) {
    for (socket, parent, mut transform) in &mut sockets {
        let Some(pose) = bones.model(parent.parent(), socket.bone.as_bytes()) else { continue };
        let (_, rotation, translation) = pose.to_scale_rotation_translation();
        let placed = Transform { translation, rotation, scale: transform.scale };
        transform.set_if_neq(placed);
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;
    use bevy::math::{Quat, Vec3};

    use super::*;
    use crate::plugin::axes::Axes;
    use crate::plugin::binding::biped;
    use crate::plugin::binding::rig_bones;

    /// A socket takes its bone's model pose and keeps its scale; the
    /// bone's world place is the player's times that; an unknown bone
    /// leaves the socket alone.
    #[test]
    fn a_socket_follows_its_bone_and_the_world_place_adds_the_players() {
        let mut world = World::new();
        let (biped, _) = biped::skeleton_and_walk();
        let mut binding = AniBinding::default();
        binding.set_bones(rig_bones(&biped.rig, Axes::AsIs).0);
        let hand = binding.bone_index(b"Bip01 R Hand").unwrap();
        let pose = Affine3A::from_rotation_translation(Quat::from_rotation_z(0.4), Vec3::new(0.1, 1.2, 0.3));
        let mut poses = vec![Affine3A::IDENTITY; binding.bone_count()];
        poses[hand] = pose;
        let place = Affine3A::from_translation(Vec3::new(10.0, 0.0, 0.0));
        let player = world.spawn((binding, ModelPoses(poses), GlobalTransform::from(place))).id();
        let scaled = Transform::from_scale(Vec3::splat(2.0));
        let sword = world.spawn((AniSocket::new("Bip01 R Hand"), scaled, ChildOf(player))).id();
        let lost = world.spawn((AniSocket::new("No Such Bone"), scaled, ChildOf(player))).id();
        world.run_system_once(place_sockets).unwrap();
        let held = world.get::<Transform>(sword).unwrap();
        assert!(held.compute_affine().abs_diff_eq(pose * Affine3A::from_scale(Vec3::splat(2.0)), 1e-5));
        assert_eq!(world.get::<Transform>(lost), Some(&scaled));
        let found = world.run_system_once(move |bones: PaletteBones| bones.world(player, b"Bip01 R Hand")).unwrap();
        assert!(found.unwrap().abs_diff_eq(place * pose, 1e-6));
    }
}
