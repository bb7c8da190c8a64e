//! `io3d`: inspect, check, convert and pose io3D animation files.

mod check;
mod convert;
mod info;
mod load;
mod pose;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "io3d", version, about = "Inspect, check, convert and pose io3D (Lost Saga) animation files")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise files: version, total time, events, tracks, keys, size.
    Info {
        /// `.ani`, `.skl` or model config `.txt` files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a file as JSON (see `io3d build` for the way back).
    Dump {
        /// An `.ani` or `.skl` file.
        file: PathBuf,
    },
    /// Write the binary file a JSON dump describes; the same bytes as dumped.
    Build {
        /// A JSON file made by `io3d dump`.
        file: PathBuf,
        /// Where to write the `.ani` or `.skl`.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Report what would break in the game; exits 1 when anything is an error.
    Check {
        /// Files, or folders to search for `.ani` and `.skl` files.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Also check that each animation's tracks match this skeleton's bones.
        #[arg(long)]
        skeleton: Option<PathBuf>,
        /// Print findings as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Convert an `.ani` to another version, or any file to or from JSON
    /// (by the output's extension).
    Convert {
        /// An `.ani`, `.skl` or `.json` file.
        input: PathBuf,
        /// The output; `.json` writes the JSON form.
        #[arg(short, long)]
        output: PathBuf,
        /// The `.ani` version to write (default: the input's).
        #[arg(long, value_parser = ["4000", "4001", "4002"])]
        version: Option<String>,
    },
    /// Print every bone's model-space pose at a time, as JSON (engine axes).
    Pose {
        /// The animation.
        animation: PathBuf,
        /// The skeleton to pose.
        #[arg(long)]
        skeleton: PathBuf,
        /// The time in milliseconds.
        #[arg(long, allow_negative_numbers = true)]
        at_ms: f32,
        /// Loop the animation (wrap on its total time) instead of playing once.
        #[arg(long = "loop")]
        looping: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { files } => info::run(&files),
        Command::Dump { file } => convert::dump(&file),
        Command::Build { file, output } => convert::build(&file, &output),
        Command::Check { paths, skeleton, json } => check::run(&paths, skeleton.as_deref(), json),
        Command::Convert { input, output, version } => convert::convert(&input, &output, version.as_deref()),
        Command::Pose { animation, skeleton, at_ms, looping } => pose::run(&animation, &skeleton, at_ms, looping),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("io3d: {error:#}");
            ExitCode::FAILURE
        }
    }
}
