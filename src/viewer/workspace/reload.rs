//! Following the open files on disk: a file that changes is read again,
//! and one that stops parsing keeps its last good version.

use super::*;

impl Workspace {
    /// Rebuilds the meshes whose mesh, script or texture files changed on
    /// disk; one that no longer reads keeps its last version, with the
    /// problem listed. Returns whether any was rebuilt.
    fn reload_meshes(&mut self, stores: &mut Stores) -> bool {
        let mut changed = false;
        for i in 0..self.meshes.len() {
            let files = &self.meshes[i].files;
            if files.iter().all(|(path, when)| modified(path) == *when) {
                continue;
            }
            let Some((mesh_path, _)) = files.first().cloned() else { continue };
            changed = true;
            if self.add_part(&CharacterMesh::load(&*self.source, &mesh_path), stores) {
                let rebuilt = self.meshes.pop().expect("just added");
                self.meshes[i] = rebuilt;
            } else {
                // Check again only when the files change again.
                self.meshes[i].files.iter_mut().for_each(|(path, when)| *when = modified(path));
            }
        }
        changed
    }

    /// Rereads every file whose modification time changed. One that no
    /// longer parses keeps its last good value, with the error beside it.
    /// Returns whether anything changed.
    pub fn reload_changed(&mut self, stores: &mut Stores) -> bool {
        // Meshes change no animation's path or findings: no refresh.
        let meshes_changed = self.reload_meshes(stores);
        let mut changed = false;
        for open in &mut self.animations {
            if let Some(bytes) = changed_bytes(&mut open.file) {
                changed = true;
                if open.dirty {
                    open.file.error = Some("changed on disk; your unsaved edits are kept (Save overwrites it)".into());
                    continue;
                }
                match Animation::from_bytes(&bytes) {
                    Ok(animation) => {
                        open.file = Loaded { value: animation, bytes, error: None, ..open.file.clone() };
                        stores.clips.insert(&open.handle, open.clip()).ok();
                        open.dirty = false;
                    }
                    Err(error) => open.file.error = Some(error.to_string()),
                }
            }
        }
        if let Some(file) = &mut self.skeleton
            && let Some(bytes) = changed_bytes(file)
        {
            changed = true;
            match parse_skeleton(&bytes) {
                Ok(skeleton) => *file = Loaded { value: skeleton, bytes, error: None, ..file.clone() },
                Err(error) => file.error = Some(error),
            }
        }
        if changed {
            self.refresh(stores);
        }
        changed || meshes_changed
    }
}

/// The file's new bytes when its modification time changed. A file that
/// went missing is reported once and keeps its last good value.
fn changed_bytes<T>(file: &mut Loaded<T>) -> Option<Vec<u8>> {
    let path = file.origin.path()?.to_owned();
    let now = modified(&path);
    if now == file.modified {
        return None;
    }
    file.modified = now;
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            file.error = Some(format!("cannot read: {error} (showing the last version read)"));
            None
        }
    }
}

/// How often files are checked for changes.
#[derive(Resource)]
pub struct ReloadTimer(pub Timer);

impl Default for ReloadTimer {
    fn default() -> Self {
        Self(Timer::from_seconds(0.5, TimerMode::Repeating))
    }
}

/// Polls the open files' modification times.
pub fn reload_files(
    time: Res<Time<Real>>,
    mut timer: ResMut<ReloadTimer>,
    mut workspace: ResMut<Workspace>,
    mut stores: Stores,
) {
    if timer.0.tick(time.delta()).just_finished() {
        workspace.reload_changed(&mut stores);
    }
}
