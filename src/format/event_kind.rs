//! What the event types of `.ani` files do: the file stores only a name;
//! the engine handles some, the game's code others, and a few are markers
//! the game reads from the list without ever firing them.

use std::fmt;

use super::FileString;

/// Who acts on an event type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Handler {
    /// The engine (`ioAniEventHandler`).
    Engine,
    /// The game's own code (`ioClientAniEventHandler`, skills, items).
    Game,
    /// Read by game code from the event list (a time to act at); never
    /// fired.
    Marker,
    /// Made by the engine itself, never stored in files.
    Generated,
    /// Nobody we know of.
    Unknown,
}

macro_rules! event_kinds {
    ($($variant:ident = $name:literal, $handler:ident, $what:literal;)*) => {
        /// An event type the client or the game knows, or `Other`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum EventKind {
            $(
                #[doc = concat!("`", $name, "`: ", $what)]
                $variant,
            )*
            /// A type neither the client nor the game handles.
            Other,
        }

        impl EventKind {
            const ALL: &'static [(EventKind, &'static str, Handler, &'static str)] =
                &[$((EventKind::$variant, $name, Handler::$handler, $what)),*];
        }
    };
}

event_kinds! {
    AutoSound = "auto_sound", Engine, "plays the sound named in the sub info";
    TrailStart = "trail_s", Engine, "starts a weapon trail (texture, render type, segments, max tick, body part, sample tick, depth, control points a-b, glow, intensity)";
    TrailEnd = "trail_e", Engine, "ends the weapon trail";
    ShowMesh = "show_mesh", Engine, "shows a mesh of the character (sub info: a mesh name, then optionally `restore`)";
    HideMesh = "hide_mesh", Engine, "hides a mesh of the character (sub info: a mesh name, then optionally `restore`, which shows it again when the clip ends or is cleared)";
    JumpAniTime = "jump_anitime", Engine, "sets the clip's time to the number in the sub info (milliseconds)";
    EndAnimation = "end_animation", Generated, "sent when a clip that asked for it ends";
    ClearAnimation = "clear_animation", Generated, "sent when a clip is cleared";
    AutoShake = "auto_shake", Game, "shakes the camera";
    FaceChange = "face_change", Game, "changes the character's face";
    MotionSound = "motion_sound", Game, "plays a motion sound (footsteps, swings) named in the sub info";
    VoiceSound = "voice_sound", Game, "plays a voice line";
    ShopSound = "shop_sound", Game, "plays a sound in the shop preview";
    AutoEffect = "auto_effect", Game, "starts the effect named in the sub info";
    ShopEffect = "shop_effect", Game, "starts an effect in the shop preview";
    ShowWeapon = "show_weapon", Game, "shows the weapon";
    ShowArmor = "show_armor", Game, "shows the armour";
    ShowHelm = "show_helm", Game, "shows the helmet";
    ShowCloak = "show_cloak", Game, "shows the cloak";
    HideWeapon = "hide_weapon", Game, "hides the weapon";
    HideArmor = "hide_armor", Game, "hides the armour";
    HideHelm = "hide_helm", Game, "hides the helmet";
    HideCloak = "hide_cloak", Game, "hides the cloak";
    HideHair = "hide_hair", Game, "hides the hair";
    DummyAttack = "dummy_attack", Game, "makes a dummy attack";
    LobeliaAction = "lobelia_action", Game, "a skill's step";
    CmdAction = "cmd_action", Game, "starts a command's action";
    CmdEnd = "cmd_end", Game, "ends a command's action";
    SkillAction = "skill_action", Game, "a skill's step";
    UseGpAction = "use_gp_action", Game, "spends gauge points";
    TrinityShow = "trinity_show", Game, "shows a Trinity weapon";
    TrinityHide = "trinity_hide", Game, "hides a Trinity weapon";
    FireStart = "fire_s", Marker, "when an attack fires (read by game code, not fired)";
    FireMotionEnd = "firemotion_e", Marker, "when the firing motion ends (read by game code, not fired)";
    AttackEnd = "attack_end", Marker, "when an attack ends (read by game code, not fired)";
    KeyReserve = "key_reserve", Marker, "from when the next input is taken (read by game code, not fired)";
    TrackingEnd = "tracking_e", Marker, "when target tracking ends (read by game code, not fired)";
    FireSliding = "fire_sliding", Marker, "when the character is pushed while firing (read by game code, not fired)";
    AirJump = "air_jump", Marker, "when an air jump takes off (read by game code, not fired)";
}

impl EventKind {
    /// The kind of an event named `name` (compared as the client compares:
    /// the C string, exactly).
    pub fn of(name: &FileString) -> Self {
        Self::ALL.iter().find(|(_, n, _, _)| n.as_bytes() == name.c_str()).map_or(Self::Other, |k| k.0)
    }

    fn entry(self) -> Option<&'static (EventKind, &'static str, Handler, &'static str)> {
        Self::ALL.iter().find(|k| k.0 == self)
    }

    /// The name files store (`None` for [`EventKind::Other`]).
    pub fn name(self) -> Option<&'static str> {
        self.entry().map(|k| k.1)
    }

    /// Who acts on it.
    pub fn handler(self) -> Handler {
        self.entry().map_or(Handler::Unknown, |k| k.2)
    }

    /// What it does, in a line.
    pub fn description(self) -> &'static str {
        self.entry().map_or("a type neither the client nor the game handles", |k| k.3)
    }
}

/// What the sub info of a `show_mesh` or `hide_mesh` event says, as the
/// client reads it: the mesh (its first word) and whether `restore`
/// follows (a mesh hidden so shows again when its clip ends or is cleared).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshSwitch {
    /// The mesh's name as written (with or without `.msh`).
    pub mesh: String,
    /// Whether the word `restore` (any case) follows.
    pub restore: bool,
}

impl MeshSwitch {
    /// The switch a sub info names; `None` for one with no word.
    pub fn read(sub_info: &str) -> Option<Self> {
        let mut words = sub_info.split_whitespace();
        let mesh = words.next()?.to_owned();
        Some(Self { mesh, restore: words.any(|w| w.eq_ignore_ascii_case("restore")) })
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name().unwrap_or("other"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_both_ways() {
        for &(kind, name, _, _) in EventKind::ALL {
            assert_eq!(EventKind::of(&FileString::from(name)), kind);
            assert_eq!(kind.to_string(), name);
        }
        assert_eq!(EventKind::of(&FileString::from("Motion_Sound")), EventKind::Other, "exact, as the client compares");
        assert_eq!(EventKind::of(&FileString::from(&b"trail_s\0junk"[..])), EventKind::TrailStart, "a C string");
        assert_eq!(EventKind::JumpAniTime.handler(), Handler::Engine);
        assert_eq!(EventKind::Other.handler(), Handler::Unknown);
    }

    #[test]
    fn a_mesh_switch_is_a_name_then_maybe_restore() {
        let read = |text| MeshSwitch::read(text).map(|s| (s.mesh, s.restore));
        assert_eq!(read("biped_sword.msh RESTORE"), Some(("biped_sword.msh".into(), true)));
        assert_eq!(read("  cape  "), Some(("cape".into(), false)));
        assert_eq!(read(""), None);
    }
}
