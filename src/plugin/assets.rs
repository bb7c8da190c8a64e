//! `.ani` and `.skl` files as Bevy assets, with their loaders.

use std::sync::Arc;

use bevy::animation::AnimationClip;
use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Handle, LoadContext};
use bevy::reflect::TypePath;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::anim::retarget::BoneMapError;
use crate::anim::{Clip, Rig};
use crate::format::ant::sidecar_name;
use crate::format::{
    Animation, ConfigError, DdsError, Event, EventKind, EventSidecar, FormatError, HierarchyError, MaterialError,
    MeshSwitch, Skeleton,
};

use super::axes::Axes;
use super::export::{BevyTargets, ClipSpace, TargetIds, to_bevy_clip};

/// An animation loaded from an `.ani` file.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct AniClip {
    /// The file's contents.
    pub animation: Animation,
    /// The `.ant` sidecar found beside the file: its events play instead of
    /// the file's, as in the client.
    pub sidecar: Option<EventSidecar>,
    /// The same compiled for playing, built once at load.
    pub clip: Clip,
    /// The same motion as Bevy's own [`AnimationClip`] (sub-asset
    /// [`Io3dAssetLabel::BevyClip`]), in Bevy's axes; `None` for clips
    /// made in code or loaded without it ([`AniLoaderSettings::bevy_clip`]).
    pub bevy_clip: Option<Handle<AnimationClip>>,
    /// The events that play, read once for firing: each firing shares
    /// them ([`AniEventFired`](super::AniEventFired)) instead of copying.
    pub(super) fired: Arc<[AniEvent]>,
}

impl AniClip {
    /// A clip for an animation made in code, with no Bevy clip.
    pub fn new(animation: Animation) -> Self {
        Self::with_sidecar(animation, None)
    }

    /// A clip whose events come from `sidecar` when there is one.
    pub fn with_sidecar(animation: Animation, sidecar: Option<EventSidecar>) -> Self {
        let clip = match &sidecar {
            Some(sidecar) => Clip::with_events(&animation, &sidecar.events),
            None => Clip::new(&animation),
        };
        let events = crate::format::ant::events_played(&animation.events, sidecar.as_ref());
        let fired = events.iter().map(AniEvent::new).collect();
        Self { clip, animation, sidecar, bevy_clip: None, fired }
    }

    /// The events that play: the sidecar's, or else the file's.
    pub fn events(&self) -> &[Event] {
        crate::format::ant::events_played(&self.animation.events, self.sidecar.as_ref())
    }
}

/// One of a clip's events as the player fires it: read once when the clip
/// is made, its type told by the client's rule ([`EventKind::of`]) and its
/// texts decoded (from CP949 where they are not UTF-8).
#[derive(Debug, Clone, PartialEq)]
pub struct AniEvent {
    /// What its type is to the client and the game: match on this.
    pub kind: EventKind,
    /// The type as the file names it, such as `motion_sound` (what tells
    /// apart the types of [`EventKind::Other`]).
    pub name: Box<str>,
    /// Its sub info: a sound, an effect, a mesh and `restore`, ...
    pub sub_info: Box<str>,
    /// For `show_mesh` and `hide_mesh`, the mesh it switches.
    pub mesh: Option<MeshSwitch>,
    /// Its time in the clip, in milliseconds.
    pub time_ms: f32,
}

impl AniEvent {
    /// `event` as the player fires it.
    pub fn new(event: &Event) -> Self {
        let (kind, sub_info) = (EventKind::of(&event.kind), event.sub_info.to_text());
        let switches = matches!(kind, EventKind::ShowMesh | EventKind::HideMesh);
        Self {
            kind,
            name: event.kind.to_text().into(),
            mesh: switches.then(|| MeshSwitch::read(&sub_info)).flatten(),
            sub_info: sub_info.into(),
            time_ms: event.time_ms,
        }
    }
}

/// A skeleton loaded from an `.skl` file, with its hierarchy checked.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SklSkeleton {
    /// The file's contents.
    pub skeleton: Skeleton,
    /// Rest poses and parent links, ready to pose.
    pub rig: Rig,
}

/// Every sub-asset the loaders make, addressed as `walk.ani#BevyClip`,
/// `sword.msh#Submesh0`, `sword.txt#Material0`, `sword.txt#Texture0` or
/// `stage.cms#Mesh` (as `bevy_gltf`'s `GltfAssetLabel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Io3dAssetLabel {
    /// An `.ani` as Bevy's [`AnimationClip`], targeting bones by
    /// `AnimationTargetId::from_name(bone name)`.
    BevyClip,
    /// A `.msh`'s drawn submesh, by index, as a Bevy mesh.
    Submesh(usize),
    /// A material script's material block, by index, as a
    /// `StandardMaterial`.
    Material(usize),
    /// The diffuse texture of a material script's block, by index.
    Texture(usize),
    /// A `.cms` collision mesh as a Bevy mesh.
    CollisionMesh,
}

impl std::fmt::Display for Io3dAssetLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BevyClip => f.write_str("BevyClip"),
            Self::Submesh(index) => write!(f, "Submesh{index}"),
            Self::Material(index) => write!(f, "Material{index}"),
            Self::Texture(index) => write!(f, "Texture{index}"),
            Self::CollisionMesh => f.write_str("Mesh"),
        }
    }
}

impl Io3dAssetLabel {
    /// The asset path of this sub-asset of `path`.
    pub fn from_asset(self, path: impl Into<bevy::asset::AssetPath<'static>>) -> bevy::asset::AssetPath<'static> {
        path.into().with_label(self.to_string())
    }
}

/// Why a file of the game did not load, for every loader of the plugin
/// (like `bevy_gltf`'s one `GltfError`): the file could not be read, or
/// the library's reader refused it, with the byte offset, line, track or
/// key it gives.
#[derive(Debug, Error)]
pub enum Io3dLoadError {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes are not an `.ani`, `.skl`, `.msh` or `.cms` the client
    /// loads.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A skeleton's bones do not form one tree.
    #[error(transparent)]
    Hierarchy(#[from] HierarchyError),
    /// A model config does not parse.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A material script is not one the client reads.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// A texture is not one the game ships.
    #[error(transparent)]
    Texture(#[from] DdsError),
    /// A bone map file does not read.
    #[error(transparent)]
    BoneMap(#[from] BoneMapError),
    /// The skeleton whose paths name a Bevy clip's bones
    /// ([`BevyTargets::Paths`]) could not be read.
    #[error("cannot name the Bevy clip's bones by the skeleton {path}: {why}")]
    TargetSkeleton {
        /// Its asset path, as the settings give it.
        path: String,
        /// Why.
        why: String,
    },
}

/// Loads `.ani` files as [`AniClip`]s, with the Bevy clip as a sub-asset.
#[derive(Debug, Default, TypePath)]
pub struct AniLoader {
    /// The axes of exported clips when a load's settings name none (the
    /// plugin's [`super::Io3dPlugin::axes`]).
    pub axes: Axes,
}

/// Per-load settings of [`AniLoader`], for `AssetServer::load_builder().with_settings(..)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AniLoaderSettings {
    /// Also make Bevy's own [`AnimationClip`] of the file
    /// ([`Io3dAssetLabel::BevyClip`]), for Bevy's `AnimationPlayer`: on by
    /// default; a game that plays only through [`super::AniPlayer`] saves
    /// a third copy of every key by turning it off.
    pub bevy_clip: bool,
    /// The axes of that Bevy clip; `None` takes the plugin's
    /// ([`Axes::EngineToGltf`] for a glTF scene `io3d export` wrote).
    pub axes: Option<Axes>,
    /// What that Bevy clip's positions are multiplied by: 1 (game units)
    /// by default; the export's scale (0.01) for its glTF scenes.
    pub scale: f32,
    /// How that Bevy clip names its bones: by name (for rigs this plugin
    /// spawns), or by path as bevy_gltf names a glTF scene's nodes (for a
    /// glTF of the same skeleton).
    pub targets: BevyTargets,
}

impl Default for AniLoaderSettings {
    fn default() -> Self {
        Self { bevy_clip: true, axes: None, scale: 1.0, targets: BevyTargets::Names }
    }
}

impl AssetLoader for AniLoader {
    type Asset = AniClip;
    type Settings = AniLoaderSettings;
    type Error = Io3dLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &AniLoaderSettings,
        context: &mut LoadContext<'_>,
    ) -> Result<AniClip, Io3dLoadError> {
        let animation = Animation::from_bytes(&read_all(reader).await?)?;
        let mut clip = AniClip::with_sidecar(animation, read_sidecar(context).await);
        if settings.bevy_clip {
            let targets = target_ids(&settings.targets, context).await?;
            let space = ClipSpace { axes: settings.axes.unwrap_or(self.axes), scale: settings.scale, targets };
            let bevy_clip = to_bevy_clip(&clip.animation, clip.events(), &space);
            clip.bevy_clip = Some(context.add_labeled_asset(Io3dAssetLabel::BevyClip.to_string(), bevy_clip));
        }
        Ok(clip)
    }

    fn extensions(&self) -> &[&str] {
        &["ani"]
    }
}

/// Every byte a loader's reader holds.
pub(crate) async fn read_all(reader: &mut dyn Reader) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).await?;
    Ok(bytes)
}

/// The `.ant` beside the file being loaded (named as the client names it,
/// [`sidecar_name`]), when there is one; reading it makes it a dependency,
/// so editing it reloads the clip. The client finds sidecars whatever their
/// case; an asset source finds what its file system finds.
async fn read_sidecar(context: &mut LoadContext<'_>) -> Option<EventSidecar> {
    let name = context.path().path().file_name()?.to_str().and_then(sidecar_name)?;
    let path = context.path().resolve_embed_str(&name).ok()?;
    context.read_asset_bytes(path).await.ok().map(|bytes| EventSidecar::read(&bytes))
}

/// The [`TargetIds`] the settings ask for: a skeleton's paths are read
/// from its file, which becomes a dependency of the clip.
async fn target_ids(targets: &BevyTargets, context: &mut LoadContext<'_>) -> Result<TargetIds, Io3dLoadError> {
    let BevyTargets::Paths { skeleton, above } = targets else { return Ok(TargetIds::Names) };
    let failed = |why: String| Io3dLoadError::TargetSkeleton { path: skeleton.clone(), why };
    let bytes = context.read_asset_bytes(skeleton.clone()).await.map_err(|e| failed(e.to_string()))?;
    let skeleton = Skeleton::from_bytes(&bytes).map_err(|e| failed(e.to_string()))?;
    let rig = Rig::new(&skeleton).map_err(|e| failed(e.to_string()))?;
    Ok(TargetIds::paths(&rig, above))
}

/// Loads `.skl` files as [`SklSkeleton`]s.
#[derive(Debug, Default, TypePath)]
pub struct SklLoader;

impl AssetLoader for SklLoader {
    type Asset = SklSkeleton;
    type Settings = ();
    type Error = Io3dLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        _: &mut LoadContext<'_>,
    ) -> Result<SklSkeleton, Io3dLoadError> {
        let skeleton = Skeleton::from_bytes(&read_all(reader).await?)?;
        let rig = Rig::new(&skeleton)?;
        Ok(SklSkeleton { skeleton, rig })
    }

    fn extensions(&self) -> &[&str] {
        &["skl"]
    }
}

#[cfg(test)]
mod tests {
    use super::Io3dAssetLabel::*;

    #[test]
    fn labels_read_as_the_loaders_write_them() {
        let labels = [BevyClip, Submesh(2), Material(0), Texture(1), CollisionMesh];
        let text: Vec<String> = labels.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["BevyClip", "Submesh2", "Material0", "Texture1", "Mesh"]);
        assert_eq!(Submesh(2).from_asset("mesh/sword.msh").to_string(), "mesh/sword.msh#Submesh2");
    }
}
