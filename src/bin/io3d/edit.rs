//! `io3d join|trim|resample|mirror|retarget|events`: the game studio's
//! edits from the command line. Outputs are written atomically; keys an
//! edit does not change keep their stored words.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use bevy_io3d::anim::{self, BoneMap, RestPoses, Rig, guess_skeleton, suggest_map};
use bevy_io3d::file::write_atomic;
use bevy_io3d::format::{Animation, Event, FileString, Skeleton};

use crate::load;

/// Writes an animation, naming the file on failure.
pub fn save(animation: &Animation, output: &Path) -> Result<ExitCode> {
    let bytes = animation.to_bytes().with_context(|| output.display().to_string())?;
    write_atomic(output, &bytes).with_context(|| format!("{}: cannot write", output.display()))?;
    Ok(ExitCode::SUCCESS)
}

pub fn join(a: &Path, b: &Path, output: &Path) -> Result<ExitCode> {
    let joined = anim::join(&load::animation(a)?, &load::animation(b)?)?;
    save(&joined, output)
}

pub fn trim(input: &Path, from: i32, to: i32, output: &Path) -> Result<ExitCode> {
    let trimmed = anim::trim(&load::animation(input)?, from, to).with_context(|| input.display().to_string())?;
    save(&trimmed, output)
}

pub fn resample(input: &Path, step_ms: i32, output: &Path) -> Result<ExitCode> {
    save(&anim::resample(&load::animation(input)?, step_ms)?, output)
}

/// The rig to mirror on: the skeleton given, or one guessed from the clip.
fn rig_for(animation: &Animation, skeleton: Option<&Path>, input: &Path) -> Result<Rig> {
    let skeleton = match skeleton {
        Some(path) => load::skeleton(path)?,
        None => {
            guess_skeleton(animation).with_context(|| format!("{}: no tracks to mirror", input.display()))?.skeleton
        }
    };
    Ok(Rig::new(&skeleton)?)
}

pub fn mirror(input: &Path, skeleton: Option<&Path>, output: &Path) -> Result<ExitCode> {
    let animation = load::animation(input)?;
    let rig = rig_for(&animation, skeleton, input)?;
    save(&anim::mirror(&animation, &rig), output)
}

/// Reads a bone map: `source = target` lines, or a JSON object.
pub fn bone_map(path: &Path) -> Result<BoneMap> {
    let text = String::from_utf8(load::bytes(path)?).with_context(|| format!("{}: not UTF-8 text", path.display()))?;
    BoneMap::read(&text).with_context(|| path.display().to_string())
}

fn bone_names(skeleton: &Skeleton) -> Vec<String> {
    skeleton.bones.iter().map(|b| b.name.to_text()).collect()
}

/// How retargeting was asked for.
pub struct Retarget<'a> {
    pub input: Option<&'a Path>,
    pub map: Option<&'a Path>,
    pub output: Option<&'a Path>,
    pub from: Option<&'a Path>,
    pub to: Option<&'a Path>,
    pub suggest: bool,
    pub rest: RestPoses,
}

pub fn retarget(args: Retarget) -> Result<ExitCode> {
    if args.suggest {
        let (Some(from), Some(to)) = (args.from, args.to) else { bail!("--suggest needs --from and --to skeletons") };
        print!("{}", suggest_map(&bone_names(&load::skeleton(from)?), &bone_names(&load::skeleton(to)?)).to_text());
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(input), Some(map), Some(output)) = (args.input, args.map, args.output) else {
        bail!("retarget needs an input animation, --map and --output (or --suggest --from --to)")
    };
    let animation = load::animation(input)?;
    let map = bone_map(map)?;
    let (result, dropped) = match (args.from, args.to) {
        (Some(from), Some(to)) => {
            let (from, to) = (Rig::new(&load::skeleton(from)?)?, Rig::new(&load::skeleton(to)?)?);
            let retargeted = anim::retarget(&animation, &map, &from, &to, args.rest);
            retargeted.alignment.iter().for_each(|line| eprintln!("{line}"));
            (retargeted.animation, retargeted.dropped)
        }
        (None, None) => anim::retarget::rename(&animation, &map),
        _ => bail!("give both --from and --to skeletons, or neither"),
    };
    if !dropped.is_empty() {
        eprintln!("dropped {} tracks with no mapping: {}", dropped.len(), dropped.join(", "));
    }
    save(&result, output)
}

/// What `io3d events` does.
pub enum EventsAction {
    List,
    Add { kind: String, sub_info: String, time_ms: f32 },
    Remove(usize),
    Retime(usize, f32),
}

pub fn events(file: &Path, action: EventsAction, output: Option<&Path>) -> Result<ExitCode> {
    let mut animation = load::animation(file)?;
    let context = || file.display().to_string();
    match action {
        EventsAction::List => {
            for (i, e) in animation.events.iter().enumerate() {
                println!("{i:>3}  {:>9} ms  {}  {}", e.time_ms, e.kind, e.sub_info);
            }
            return Ok(ExitCode::SUCCESS);
        }
        EventsAction::Add { kind, sub_info, time_ms } => {
            animation.add_event(Event {
                kind: FileString::encode_text(&kind),
                sub_info: FileString::encode_text(&sub_info),
                time_ms,
            });
        }
        EventsAction::Remove(index) => drop(animation.remove_event(index).with_context(context)?),
        EventsAction::Retime(index, time_ms) => animation.retime_event(index, time_ms).with_context(context)?,
    }
    save(&animation, output.unwrap_or(file))
}
