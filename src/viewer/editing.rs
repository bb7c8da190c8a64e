//! Edits in the viewer: every change goes through [`OpenAnimation::edit`],
//! which keeps the version before it for undo, updates the playing asset,
//! the findings and the root path, and marks the file unsaved. Saving
//! writes atomically (a temporary file renamed over the original).

use std::path::Path;

use crate::anim::root_path;
use crate::check::check_ani;
use crate::format::{AniVersion, Animation, EventSidecar, Skeleton};
use crate::plugin::AniClip;

use super::workspace::{Loaded, OpenAnimation, Origin, PATH_STEP_MS, ROOT_BONE, Stores, Workspace};

/// The most versions kept for undo, per animation.
const UNDO_LIMIT: usize = 200;

/// Whether an edit is a step of its own for undo or part of the last one:
/// a drag on a number field changes the value every frame, and undo should
/// take back the whole drag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoStep {
    /// A step of its own.
    New,
    /// Part of the last step: undo goes back to before that one.
    ContinuesLast,
}

impl OpenAnimation {
    /// An open animation for a file's contents, with its asset.
    pub fn new(file: Loaded<Animation>, sidecar: Option<EventSidecar>, stores: &mut Stores) -> Self {
        let handle = stores.clips.add(AniClip::with_sidecar(file.value.clone(), sidecar.clone()));
        let (undo, redo) = (Vec::new(), Vec::new());
        Self { file, sidecar, handle, root_path: None, findings: Vec::new(), dirty: false, undo, redo }
    }

    /// The clip the rig plays: the animation as it stands, with the
    /// sidecar's events when it has one.
    pub fn clip(&self) -> AniClip {
        AniClip::with_sidecar(self.file.value.clone(), self.sidecar.clone())
    }

    /// The events that play: the sidecar's when it has one, else the
    /// file's own.
    pub fn events_played(&self) -> &[crate::format::Event] {
        crate::format::ant::events_played(&self.file.value.events, self.sidecar.as_ref())
    }

    /// Applies an edit. On success the previous version goes on the undo
    /// list (unless the edit continues the last step); on failure nothing
    /// changes and the error is returned.
    pub fn edit<E: std::fmt::Display>(
        &mut self,
        stores: &mut Stores,
        skeleton: Option<&Skeleton>,
        step: UndoStep,
        change: impl FnOnce(&mut Animation) -> Result<(), E>,
    ) -> Result<(), String> {
        let mut edited = self.file.value.clone();
        change(&mut edited).map_err(|e| e.to_string())?;
        let before = std::mem::replace(&mut self.file.value, edited);
        if step == UndoStep::New || self.undo.is_empty() {
            self.undo.push(before);
        }
        if self.undo.len() > UNDO_LIMIT {
            self.undo.remove(0);
        }
        self.redo.clear();
        self.changed(stores, skeleton);
        Ok(())
    }

    /// Goes back one edit; returns whether there was one.
    pub fn undo(&mut self, stores: &mut Stores, skeleton: Option<&Skeleton>) -> bool {
        let Some(previous) = self.undo.pop() else { return false };
        self.redo.push(std::mem::replace(&mut self.file.value, previous));
        self.changed(stores, skeleton);
        true
    }

    /// Redoes the last edit undone; returns whether there was one.
    pub fn redo(&mut self, stores: &mut Stores, skeleton: Option<&Skeleton>) -> bool {
        let Some(next) = self.redo.pop() else { return false };
        self.undo.push(std::mem::replace(&mut self.file.value, next));
        self.changed(stores, skeleton);
        true
    }

    /// After the value changed: the bytes it would save as, the asset the
    /// rig plays, findings and root path. The value shown becomes what
    /// those bytes read back as (edited rotations encoded in the file's
    /// version), so what is on screen is what a save writes.
    fn changed(&mut self, stores: &mut Stores, skeleton: Option<&Skeleton>) {
        self.dirty = true;
        match self.file.value.to_bytes() {
            Ok(bytes) => {
                if let Ok(stored) = Animation::from_bytes(&bytes) {
                    self.file.value = stored;
                }
                self.file.bytes = bytes;
                self.file.error = None;
            }
            Err(error) => self.file.error = Some(format!("cannot be saved as it is: {error}")),
        }
        stores.clips.insert(&self.handle, self.clip()).ok();
        self.root_path = root_path(&self.file.value, ROOT_BONE.as_bytes(), PATH_STEP_MS);
        self.findings = check_ani(&self.file.bytes, skeleton);
    }

    /// Writes the animation (converted to `version`) to `path`, atomically;
    /// afterwards the open file is that one, saved.
    pub fn save_as(
        &mut self,
        path: &Path,
        version: AniVersion,
        stores: &mut Stores,
        skeleton: Option<&Skeleton>,
    ) -> Result<(), String> {
        let mut value = self.file.value.clone();
        if value.version != version {
            value.convert(version).map_err(|e| e.to_string())?;
        }
        let bytes = value.to_bytes().map_err(|e| e.to_string())?;
        super::output::save(path, &bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        let converted = value.version != self.file.value.version;
        self.file = Loaded {
            origin: Origin::File(path.to_owned()),
            value,
            bytes,
            modified: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
            error: None,
        };
        self.dirty = false;
        if converted {
            stores.clips.insert(&self.handle, self.clip()).ok();
        }
        self.findings = check_ani(&self.file.bytes, skeleton);
        Ok(())
    }
}

impl Workspace {
    /// The skeleton given, to check edits against.
    pub fn given_skeleton(&self) -> Option<&Skeleton> {
        self.skeleton.as_ref().map(|s| &s.value)
    }

    /// Edits the current animation, one undo step (see
    /// [`OpenAnimation::edit`]).
    pub fn edit_current<E: std::fmt::Display>(
        &mut self,
        stores: &mut Stores,
        change: impl FnOnce(&mut Animation) -> Result<(), E>,
    ) -> Result<(), String> {
        self.edit_current_as(stores, UndoStep::New, change)
    }

    /// Edits the current animation as a new undo step or as part of the
    /// last one.
    pub fn edit_current_as<E: std::fmt::Display>(
        &mut self,
        stores: &mut Stores,
        step: UndoStep,
        change: impl FnOnce(&mut Animation) -> Result<(), E>,
    ) -> Result<(), String> {
        let skeleton = self.skeleton.as_ref().map(|s| s.value.clone());
        let current = self.current;
        let open = self.animations.get_mut(current).ok_or("no animation is open")?;
        open.edit(stores, skeleton.as_ref(), step, change)
    }

    /// Opens an animation made in the viewer (a join, a mirror, ...) beside
    /// the others, unsaved, and makes it the current one.
    pub fn add_new(&mut self, name: String, animation: Animation, stores: &mut Stores) {
        let bytes = animation.to_bytes().unwrap_or_default();
        let file = Loaded { origin: Origin::New(name), value: animation, bytes, modified: None, error: None };
        let mut open = OpenAnimation::new(file, None, stores);
        open.dirty = true;
        self.animations.push(open);
        self.current = self.animations.len() - 1;
        self.refresh(stores);
    }

    /// Whether any open animation has unsaved edits.
    pub fn has_unsaved(&self) -> bool {
        self.animations.iter().any(|a| a.dirty)
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::SystemState;
    use glam::{Quat, Vec3};

    use super::*;
    use crate::check::Severity;
    use crate::format::Event;

    #[test]
    fn an_edited_file_saves_atomically_checks_clean_and_reads_back_as_shown() {
        let mut world = crate::viewer::workspace::tests::stores_world();
        let mut state: SystemState<Stores> = SystemState::new(&mut world);
        let mut stores = state.get_mut(&mut world).expect("the asset stores");
        let mut workspace = Workspace::default();
        workspace.open_bundled(&mut stores);
        let before = workspace.current().unwrap().file.value.clone();

        let event = Event { kind: "motion_sound".into(), sub_info: "sound/new.wav".into(), time_ms: 600.0 };
        workspace
            .edit_current(&mut stores, |a| {
                a.add_event(event);
                Ok::<_, String>(())
            })
            .unwrap();
        workspace.edit_current(&mut stores, |a| a.insert_sampled_key(3, 125).map(drop)).unwrap();
        workspace.edit_current(&mut stores, |a| a.set_key(3, 0, None, Some(Quat::from_rotation_z(0.3)))).unwrap();
        assert!(
            workspace.edit_current(&mut stores, |a| a.delete_key(99, 0).map(drop)).is_err(),
            "a bad edit is refused"
        );
        // A drag: three changes, one step.
        for x in [1.0, 2.0, 3.0] {
            let step = if x == 1.0 { UndoStep::New } else { UndoStep::ContinuesLast };
            workspace.edit_current_as(&mut stores, step, |a| a.set_key(4, 0, Some(Vec3::splat(x)), None)).unwrap();
        }
        let open = &mut workspace.animations[0];
        assert_eq!(open.undo.len(), 4);
        assert!(open.undo(&mut stores, None));
        assert_eq!(open.file.value.tracks[4].keys[0], before.tracks[4].keys[0], "the drag is undone whole");
        assert_eq!(open.undo.len(), 3);
        assert!(open.dirty);
        assert!(open.undo(&mut stores, None) && open.redo(&mut stores, None));
        let shown = open.file.value.clone();
        assert_eq!(stores.clips.get(&open.handle).unwrap().animation, shown, "the rig plays what is shown");

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("edited.ani");
        std::fs::write(&path, b"old").unwrap();
        open.save_as(&path, AniVersion::V4002, &mut stores, None).unwrap();
        assert!(!open.dirty);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(Animation::from_bytes(&bytes).unwrap(), shown);
        assert!(
            check_ani(&bytes, None).iter().all(|f| f.severity < Severity::Warning),
            "{:?}",
            check_ani(&bytes, None)
        );
        // Keys not edited keep their stored words.
        let saved = Animation::from_bytes(&bytes).unwrap();
        assert_eq!(saved.tracks[5].keys, before.tracks[5].keys);
        let untouched =
            |keys: &[crate::format::Key]| keys.iter().skip(1).filter(|k| k.time_ms != 125).copied().collect::<Vec<_>>();
        assert_eq!(untouched(&saved.tracks[3].keys), untouched(&before.tracks[3].keys));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }
}
