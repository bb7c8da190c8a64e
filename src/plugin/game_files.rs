//! The game's file lookup in Bevy's asset server. The game reads its
//! resource folders from pack files and Windows disks, where names match
//! without case; a game's mixed-case folder copied to Linux loads in the
//! viewer and the CLI (which use [`crate::resource`]) and, through
//! [`GameFilesPlugin`], in a Bevy game too.
//!
//! Desktop only: it reads a folder on disk, and Bevy's file watcher with
//! it, neither of which a browser has. On `wasm32` a game's assets come
//! through Bevy's web source, which fetches each path from the page's
//! server as written; serve the folder with its names as the game's files
//! spell them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bevy::app::{App, Plugin};
use bevy::asset::AssetApp;
use bevy::asset::io::file::FileAssetReader;
use bevy::asset::io::{
    AssetReader, AssetReaderError, AssetSource, AssetSourceBuilder, AssetSourceId, PathStream, Reader, VecReader,
};

use crate::resource::{Disk, FileSource};

/// An asset reader for a folder of the game's files: a path that is not on
/// disk as written is found without case, one component at a time, with
/// the library's resolver ([`FileSource::find_without_case`]). Folders are listed as
/// spelled.
pub struct GameFileReader {
    root: PathBuf,
    files: FileAssetReader,
}

impl GameFileReader {
    /// A reader of the folder `path`, relative to where Bevy's file source
    /// looks (the crate's folder under `cargo run`, else the executable's).
    pub fn new(path: impl AsRef<Path>) -> Self {
        let root = FileAssetReader::get_base_path().join(path.as_ref());
        Self { files: FileAssetReader::new(&root), root }
    }

    /// The file at `path`, in whatever case it is spelled on disk.
    fn read_found(&self, path: &Path) -> Result<VecReader, AssetReaderError> {
        // The resolver tries the exact spelling first.
        let found = Disk
            .find_without_case(&self.root, &path.to_string_lossy())
            .ok_or_else(|| AssetReaderError::NotFound(self.root.join(path)))?;
        std::fs::read(&found).map(VecReader::new).map_err(|e| AssetReaderError::Io(Arc::new(e)))
    }
}

impl AssetReader for GameFileReader {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        self.read_found(path)
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        let mut meta = path.as_os_str().to_owned();
        meta.push(".meta");
        self.read_found(Path::new(&meta))
    }

    async fn read_directory<'a>(&'a self, path: &'a Path) -> Result<Box<PathStream>, AssetReaderError> {
        self.files.read_directory(path).await
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        self.files.is_directory(path).await
    }
}

/// Makes the default asset source a [`GameFileReader`] of `path`, with
/// Bevy's file watcher. Add it before `DefaultPlugins` (Bevy builds its
/// asset sources when `AssetPlugin` is added):
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_io3d::prelude::*;
/// use bevy_io3d::plugin::GameFilesPlugin;
/// App::new()
///     .add_plugins(GameFilesPlugin::new("assets"))
///     .add_plugins((DefaultPlugins, Io3dPlugin::default()))
///     .run();
/// ```
#[derive(Debug, Clone)]
pub struct GameFilesPlugin {
    /// The folder, as `AssetPlugin::file_path` gives it.
    pub path: String,
}

impl GameFilesPlugin {
    /// The game's lookup for the folder `path`.
    pub fn new(path: impl Into<String>) -> Self {
        Self { path: path.into() }
    }
}

impl Plugin for GameFilesPlugin {
    fn build(&self, app: &mut App) {
        let path = self.path.clone();
        let reader = move || Box::new(GameFileReader::new(&path)) as _;
        let watcher = AssetSource::get_default_watcher(self.path.clone(), Duration::from_millis(300));
        app.register_asset_source(AssetSourceId::Default, AssetSourceBuilder::new(reader).with_watcher(watcher));
    }
}
