//! `io3d-viewer [FILES...]`: preview io3D animations on a skeleton.
//! With no files it opens the bundled Biped sample. Built for `wasm32`, it
//! is the viewer in a browser page (`web/build.sh`), which takes its
//! options from the page's address instead.

#[cfg(target_arch = "wasm32")]
fn main() -> bevy::app::AppExit {
    bevy_io3d::viewer::web::run()
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> bevy::app::AppExit {
    desktop::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod desktop {
    use std::path::PathBuf;

    use bevy::app::AppExit;
    use bevy::math::UVec2;
    use bevy_io3d::viewer::view::Look;
    use bevy_io3d::viewer::{self, ViewerOptions};
    use clap::Parser;

    /// Preview io3D (Lost Saga) animations: .ani, .skl and model config .txt
    /// files. With no files, the bundled Biped sample opens.
    #[derive(Parser, Debug)]
    #[command(version, about)]
    struct Args {
        /// Files to open: .ani, .skl, .msh (with the script and textures the
        /// game finds for it), model configs .txt (animated or static), .dds
        /// textures, material scripts .txt, .cms collision meshes, and
        /// .glb/.gltf (their animations are imported onto the skeleton opened
        /// before them).
        files: Vec<PathBuf>,
        /// Render one frame, save it to this PNG and exit (offscreen, no
        /// window needed, unless --window).
        #[arg(long, value_name = "PNG")]
        screenshot: Option<PathBuf>,
        /// Start paused at this time, in ms.
        #[arg(long, value_name = "MS")]
        at_ms: Option<f32>,
        /// Window or picture size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x720", value_parser = parse_size)]
        size: UVec2,
        /// With --screenshot: take it from a real window, panels included.
        #[arg(long, requires = "screenshot")]
        window: bool,
        /// Show bone names from the start.
        #[arg(long)]
        names: bool,
        /// How materials are drawn: `game` (with the scripts' outlines),
        /// `lit` or `unlit`.
        #[arg(long, value_enum, default_value = "game")]
        look: Look,
        /// Select this bone from the start (its vertices tinted by weight).
        #[arg(long, value_name = "BONE")]
        select: Option<String>,
        /// Which panels to show at the start: `all`, or `none` for the stage
        /// alone (Tab toggles them).
        #[arg(long, value_enum, default_value = "all")]
        panels: Panels,
        /// Play for this many seconds once the first picture is complete,
        /// print the mean frame time, and exit.
        #[arg(long, value_name = "SECONDS", conflicts_with = "screenshot")]
        frame_times: Option<f32>,
    }

    /// The choices of `--panels`.
    #[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
    enum Panels {
        /// Files, bones and timeline around the stage.
        All,
        /// The stage alone.
        None,
    }

    fn parse_size(text: &str) -> Result<UVec2, String> {
        let (w, h) = text.split_once(['x', 'X']).ok_or("expected WIDTHxHEIGHT, such as 1280x720")?;
        let number = |s: &str| s.trim().parse::<u32>().ok().filter(|n| (16..=8192).contains(n));
        match (number(w), number(h)) {
            (Some(w), Some(h)) => Ok(UVec2::new(w, h)),
            _ => Err(format!("'{text}': each side must be a number from 16 to 8192")),
        }
    }

    pub fn main() -> AppExit {
        let args = Args::parse();
        viewer::run(ViewerOptions {
            files: args.files,
            at_ms: args.at_ms,
            screenshot: args.screenshot,
            window: args.window,
            size: args.size,
            names: args.names,
            look: args.look,
            hide_panels: args.panels == Panels::None,
            select: args.select,
            source: Default::default(),
            frame_times: args.frame_times,
        })
    }
}
