//! `io3d`: inspect, check, convert, pose and edit io3D files, and bring
//! them to and from glTF.

mod check;
mod convert;
mod edit;
mod gltf;
mod info;
mod load;
mod model;
mod pose;

use std::path::PathBuf;
use std::process::ExitCode;

use bevy_io3d::anim::RestPoses;
use clap::{ArgGroup, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "io3d",
    version,
    about = "Inspect, check, convert, pose and edit io3D (Lost Saga) animations, skeletons, meshes and materials"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise files: version, total time, events, tracks, keys, size.
    Info {
        /// `.ani`, `.skl`, `.msh`, `.cms`, model config, material script or
        /// glTF (`.glb`, `.gltf`: its nodes and animations) files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a file as JSON (see `io3d build` for the way back).
    Dump {
        /// An `.ani`, `.skl`, `.msh`, `.cms` or material script.
        file: PathBuf,
    },
    /// Write the binary file a JSON dump describes; the same bytes as dumped.
    Build {
        /// A JSON file made by `io3d dump`.
        file: PathBuf,
        /// Where to write the file.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Report what would break in the game; exits 1 when anything is an error.
    Check {
        /// Files, or folders to search. A model config, or a resource folder
        /// with configs under `model/`, also has the links between its files
        /// checked (skeleton, meshes, material per mesh, textures,
        /// animations).
        #[arg(required_unless_present = "rules")]
        paths: Vec<PathBuf>,
        /// Also check that each animation's tracks and each mesh's bone
        /// names match this skeleton's bones.
        #[arg(long)]
        skeleton: Option<PathBuf>,
        /// Print every finding as JSON (the text groups runs of one finding
        /// on consecutive keys, vertices or faces into one line).
        #[arg(long)]
        json: bool,
        /// Print the lint's rules (id, severity, what each means), one a
        /// line, and check nothing.
        #[arg(long, conflicts_with_all = ["paths", "skeleton", "json"])]
        rules: bool,
    },
    /// Convert an `.ani` to another version, or any file to or from JSON
    /// (by the output's extension).
    Convert {
        /// An `.ani`, `.skl`, `.msh`, `.cms`, material script or `.json` file.
        input: PathBuf,
        /// The output; `.json` writes the JSON form.
        #[arg(short, long)]
        output: PathBuf,
        /// The version to write (default: the input's): 4000, 4001 or 4002
        /// for an `.ani`, 2000, 2001 or 2002 for a `.msh`.
        #[arg(long, value_parser = ["4000", "4001", "4002", "2000", "2001", "2002"])]
        version: Option<String>,
    },
    /// Print every bone's model-space pose at a time, as JSON (engine axes),
    /// and with --mesh each mesh's vertices skinned as the client skins them.
    Pose {
        /// The animation.
        animation: PathBuf,
        /// The skeleton to pose.
        #[arg(long)]
        skeleton: PathBuf,
        /// A `.msh` to skin on the pose (any number; positions and normals
        /// in the file's vertex order).
        #[arg(long = "mesh")]
        meshes: Vec<PathBuf>,
        /// The time in milliseconds.
        #[arg(long, allow_negative_numbers = true)]
        at_ms: f32,
        /// Loop the animation (wrap on its total time) instead of playing once.
        #[arg(long = "loop")]
        looping: bool,
    },
    /// Play clip B after clip A: one clip, in A's version.
    Join {
        /// The first clip.
        a: PathBuf,
        /// The clip that follows.
        b: PathBuf,
        /// Where to write the joined clip.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Keep the part of a clip between two times (keys at the cuts sampled).
    Trim {
        /// The animation.
        input: PathBuf,
        /// Start of the part kept, in ms.
        #[arg(long)]
        from_ms: i32,
        /// End of the part kept, in ms.
        #[arg(long)]
        to_ms: i32,
        /// Where to write it.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Put keys every N ms on every track, each holding the pose there.
    Resample {
        /// The animation.
        input: PathBuf,
        /// The key step in ms.
        #[arg(long)]
        step_ms: i32,
        /// Where to write it.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Swap left and right: L/R tracks trade places and the motion is
    /// reflected across the character's side-to-side plane.
    Mirror {
        /// The animation.
        input: PathBuf,
        /// The skeleton it plays on (default: one guessed from the tracks).
        #[arg(long)]
        skeleton: Option<PathBuf>,
        /// Where to write it.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Rename tracks through a bone map (unmapped tracks are dropped and
    /// listed); with --from and --to skeletons also correct rotations for
    /// the rest poses and scale root travel. `--suggest` prints a map.
    Retarget {
        /// The animation.
        input: Option<PathBuf>,
        /// `source = target` lines, or a JSON object.
        #[arg(long)]
        map: Option<PathBuf>,
        /// The skeleton the animation was made for.
        #[arg(long)]
        from: Option<PathBuf>,
        /// The skeleton to play it on.
        #[arg(long)]
        to: Option<PathBuf>,
        /// Print a map from --from's bones to --to's by their names.
        #[arg(long)]
        suggest: bool,
        /// With --from and --to: `align` turns each mapped bone so that it
        /// points where the source's does at rest (a T-pose rig onto an
        /// A-pose one); `keep` makes the source's rest the target's.
        #[arg(long, value_enum, default_value_t = Rest::Align)]
        rest: Rest,
        /// Where to write it.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Write a skeleton, its meshes (with materials and textures) and
    /// animations as a binary glTF (.glb) for Blender, three.js, Godot or
    /// Bevy: from a model config, or from --skeleton with animations.
    Export {
        /// A model config (`.txt`), and/or `.ani` files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The skeleton, when no model config is given.
        #[arg(long)]
        skeleton: Option<PathBuf>,
        /// A `.msh` to add (any number); its script and textures are found
        /// as the client finds them.
        #[arg(long = "mesh")]
        meshes: Vec<PathBuf>,
        /// glTF units a game unit: 0.01 writes metres (the game's unit is
        /// about a centimetre), 1 keeps the game's units.
        #[arg(long, default_value_t = 0.01)]
        scale: f32,
        /// Where to write the `.glb`.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Bring an animation from a glTF (Blender, Mixamo, motion capture)
    /// onto a game skeleton as an .ani: bones mapped by name (or --map),
    /// rest poses corrected, root travel scaled. `--suggest` prints the map.
    Import {
        /// A `.glb` or `.gltf`.
        input: PathBuf,
        /// The game skeleton to play it on (with --model: to weight the
        /// meshes on; default: one made of the glTF's armature).
        #[arg(long, required_unless_present = "model")]
        skeleton: Option<PathBuf>,
        /// Import the whole model (meshes, materials, textures, collision,
        /// skeleton, animations) as a resource folder under this folder, or
        /// into this `.zip`.
        #[arg(long, value_name = "OUT_DIR|OUT.zip", conflicts_with_all = ["output", "suggest", "animation", "base", "version", "tolerance"])]
        model: Option<PathBuf>,
        /// The model's name (its config's and skeleton's file name;
        /// default: the glTF's file name).
        #[arg(long, requires = "model")]
        name: Option<String>,
        /// The glTF animation to import, by name or as `#N` by index (0
        /// first; needed when the file has several, and by index when
        /// they share a name).
        #[arg(long)]
        animation: Option<String>,
        /// `glTF node = skeleton bone` lines, or a JSON object (default: the
        /// suggested map).
        #[arg(long, conflicts_with = "suggest")]
        map: Option<PathBuf>,
        /// Print the suggested map from the file's nodes to the skeleton's
        /// bones, to edit and pass with --map.
        #[arg(long)]
        suggest: bool,
        /// The version to write (default: the one the glTF was exported
        /// from, or 4002).
        #[arg(long, value_parser = ["4000", "4001", "4002"])]
        version: Option<String>,
        /// Drop keys that the client's interpolation rebuilds within
        /// DEGREES of rotation and UNITS of position (e.g. 0.1,0.01);
        /// default: every key of the source.
        #[arg(long, value_name = "DEGREES,UNITS")]
        tolerance: Option<bevy_io3d::anim::reduce::Tolerance>,
        /// How the glTF rig's rest pose meets the skeleton's: `align`
        /// (limbs point where the source's point, whatever either rests
        /// in) or `keep` (the source's rest becomes the skeleton's).
        #[arg(long, value_enum, default_value_t = Rest::Align)]
        rest: Rest,
        /// The `.ani` this import replaces: its version, total time, events,
        /// track weights and the tracks the glTF lacks are kept when the
        /// glTF does not carry them (Blender drops them).
        #[arg(long)]
        base: Option<PathBuf>,
        /// Where to write the `.ani`.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// List, add, remove or retime events. Edits write the file in place
    /// (atomically) unless --output is given.
    #[command(group(ArgGroup::new("action").required(true).args(["list", "add", "remove", "retime"])))]
    Events {
        /// The animation.
        file: PathBuf,
        /// Print the events with their indices.
        #[arg(long)]
        list: bool,
        /// Add an event of this type at --at-ms (with --sub-info).
        #[arg(long, value_name = "TYPE", requires = "at_ms")]
        add: Option<String>,
        /// The new event's sub info (a sound path, ...).
        #[arg(long, default_value = "")]
        sub_info: String,
        /// Remove the event with this index.
        #[arg(long, value_name = "INDEX")]
        remove: Option<usize>,
        /// Move the event with this index to --at-ms.
        #[arg(long, value_name = "INDEX", requires = "at_ms")]
        retime: Option<usize>,
        /// The time for --add or --retime, in ms.
        #[arg(long, allow_negative_numbers = true)]
        at_ms: Option<f32>,
        /// Where to write the result (default: the file itself).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// How a source's rest pose meets the target skeleton's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Rest {
    /// Limbs point where the source's point (T-pose onto A-pose).
    Align,
    /// The source's rest pose becomes the target's.
    Keep,
}

impl From<Rest> for RestPoses {
    fn from(rest: Rest) -> Self {
        match rest {
            Rest::Align => Self::Align,
            Rest::Keep => Self::Keep,
        }
    }
}

fn main() -> ExitCode {
    survive_file_size_limit();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { files } => info::run(&files),
        Command::Dump { file } => convert::dump(&file),
        Command::Build { file, output } => convert::build(&file, &output),
        Command::Check { rules: true, .. } => check::print_rules(),
        Command::Check { paths, skeleton, json, rules: false } => check::run(&paths, skeleton.as_deref(), json),
        Command::Convert { input, output, version } => convert::convert(&input, &output, version.as_deref()),
        Command::Pose { animation, skeleton, meshes, at_ms, looping } => {
            pose::run(pose::Request { animation: &animation, skeleton: &skeleton, meshes: &meshes, at_ms, looping })
        }
        Command::Join { a, b, output } => edit::join(&a, &b, &output),
        Command::Trim { input, from_ms, to_ms, output } => edit::trim(&input, from_ms, to_ms, &output),
        Command::Resample { input, step_ms, output } => edit::resample(&input, step_ms, &output),
        Command::Mirror { input, skeleton, output } => edit::mirror(&input, skeleton.as_deref(), &output),
        Command::Retarget { input, map, from, to, suggest, rest, output } => edit::retarget(edit::Retarget {
            input: input.as_deref(),
            map: map.as_deref(),
            output: output.as_deref(),
            from: from.as_deref(),
            to: to.as_deref(),
            suggest,
            rest: rest.into(),
        }),
        Command::Export { inputs, skeleton, meshes, scale, output } => gltf::export(gltf::Export {
            inputs: &inputs,
            skeleton: skeleton.as_deref(),
            meshes: &meshes,
            scale,
            output: &output,
        }),
        Command::Import { input, skeleton, model: Some(out), name, map, .. } => model::import(model::ModelImport {
            input: &input,
            out: &out,
            skeleton: skeleton.as_deref(),
            map: map.as_deref(),
            name,
        }),
        Command::Import {
            input, skeleton, animation, map, suggest, version, tolerance, rest, base, output, ..
        } => gltf::import(gltf::Import {
            input: &input,
            skeleton: skeleton.as_deref().expect("clap requires --skeleton without --model"),
            animation,
            map: map.as_deref(),
            suggest,
            version: version.as_deref(),
            tolerance,
            rest: rest.into(),
            base: base.as_deref(),
            output: output.as_deref(),
        }),
        Command::Events { file, list, add, sub_info, remove, retime, at_ms, output } => {
            let at = at_ms.unwrap_or(0.0);
            let action = match (list, add, remove, retime) {
                (true, ..) => edit::EventsAction::List,
                (_, Some(kind), ..) => edit::EventsAction::Add { kind, sub_info, time_ms: at },
                (_, _, Some(index), _) => edit::EventsAction::Remove(index),
                (_, _, _, Some(index)) => edit::EventsAction::Retime(index, at),
                _ => unreachable!("clap requires one action"),
            };
            edit::events(&file, action, output.as_deref())
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("io3d: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// A write past the file size limit (`ulimit -f`) raises SIGXFSZ, which
/// kills the process by default, leaving its temporary file behind. With
/// the signal caught, the write fails with "File too large" instead, and
/// the save is abandoned cleanly (the original file untouched).
#[cfg(unix)]
fn survive_file_size_limit() {
    let caught = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Err(error) = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, caught) {
        eprintln!("io3d: warning: cannot catch SIGXFSZ ({error}); a write past the file size limit will kill io3d");
    }
}

#[cfg(not(unix))]
fn survive_file_size_limit() {}
