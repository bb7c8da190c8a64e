//! `.ani`: one animation, as keyframes per bone name and timed events.
//!
//! Reading keeps everything needed to write the same bytes back: the stored
//! rotation words of compressed keys, string length fields, event order and
//! any bytes after the last track.

use glam::{Quat, Vec3};

use super::bytes::{ReadError, Reader, Writer};
use super::error::{BinaryKind, FormatError};
use super::place::Place;
use super::rotation::{PackedRotation, decode_eight_bytes, decode_small_three, encode_eight_bytes, encode_small_three};
use super::string::FileString;
use super::write::{WriteError, WriteProblem};

/// The four bytes every `.ani` starts with.
pub const ANI_MAGIC: [u8; 4] = *b"ANI\0";

/// The `.ani` versions the client accepts; they differ only in how a key's
/// rotation is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AniVersion {
    /// Rotations as four `f32` (32 bytes per key).
    V4000,
    /// Rotations as one `u32`, "small three" (20 bytes per key).
    V4001,
    /// Rotations as two `u32`, "eight bytes" (24 bytes per key).
    V4002,
}

impl AniVersion {
    /// All versions, oldest first.
    pub const ALL: [Self; 3] = [Self::V4000, Self::V4001, Self::V4002];

    /// The number stored in the file.
    pub fn number(self) -> i32 {
        match self {
            Self::V4000 => 4000,
            Self::V4001 => 4001,
            Self::V4002 => 4002,
        }
    }

    /// The version stored as `number`, if the client accepts it.
    pub fn from_number(number: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.number() == number)
    }

    /// Bytes of one key: rotation, position and time.
    pub fn key_size(self) -> usize {
        self.rotation_size() + 12 + 4
    }

    /// Bytes of a key's rotation.
    pub fn rotation_size(self) -> usize {
        match self {
            Self::V4000 => 16,
            Self::V4001 => 4,
            Self::V4002 => 8,
        }
    }

    /// How precisely the version stores rotations, for people.
    pub fn precision(self) -> &'static str {
        match self {
            Self::V4000 => "exact (4 x f32)",
            Self::V4001 => "small three, 10 bits a component (about 0.5 degree at worst)",
            Self::V4002 => "eight bytes, 16 bits a component (under 0.06 degree)",
        }
    }
}

impl std::fmt::Display for AniVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// A timed event; what it does is up to the game (`motion_sound` plays the
/// sound named in its sub info).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event type, such as `motion_sound`.
    pub kind: FileString,
    /// Extra text for the game, such as a sound path (may be CP949).
    pub sub_info: FileString,
    /// When it fires, in milliseconds.
    pub time_ms: f32,
}

/// One keyframe: the bone's full transform relative to its parent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    /// Time in whole milliseconds.
    pub time_ms: i32,
    /// Position relative to the parent bone, engine axes.
    pub position: Vec3,
    /// Rotation relative to the parent bone, engine axes, as decoded.
    pub rotation: Quat,
    /// The stored words this key was read from (versions 4001 and 4002).
    /// They are written back untouched while they still decode to
    /// `rotation`, so an unedited key loses no precision.
    pub packed: Option<PackedRotation>,
}

impl Key {
    /// A key with no stored words: its rotation is encoded when written.
    pub fn new(time_ms: i32, position: Vec3, rotation: Quat) -> Self {
        Self { time_ms, position, rotation, packed: None }
    }

    /// The stored words to write for `version`, if they belong to that
    /// version and still decode to this key's rotation (bit for bit).
    pub fn kept_words(&self, version: AniVersion) -> Option<PackedRotation> {
        let packed = self.packed?;
        let same_version = matches!(
            (packed, version),
            (PackedRotation::SmallThree(_), AniVersion::V4001) | (PackedRotation::EightBytes(_), AniVersion::V4002)
        );
        let unchanged = packed.decode().to_array().map(f32::to_bits) == self.rotation.to_array().map(f32::to_bits);
        (same_version && unchanged).then_some(packed)
    }

    /// The words `version` stores for this key: the kept ones, or a fresh
    /// encoding by the client's rules. `None` for version 4000, which stores
    /// the quaternion itself.
    pub fn words_for(&self, version: AniVersion) -> Result<Option<PackedRotation>, WriteProblem> {
        if version == AniVersion::V4000 {
            return Ok(None);
        }
        if let Some(kept) = self.kept_words(version) {
            return Ok(Some(kept));
        }
        let unencodable = || WriteProblem::Unencodable(self.rotation.to_array());
        let packed = match version {
            AniVersion::V4001 => PackedRotation::SmallThree(encode_small_three(self.rotation).ok_or_else(unencodable)?),
            _ => PackedRotation::EightBytes(encode_eight_bytes(self.rotation).ok_or_else(unencodable)?),
        };
        Ok(Some(packed))
    }
}

/// The keys of one bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// The bone this track drives, matched by exact name.
    pub bone: FileString,
    /// Blend weight; only relative weights matter, and 0 means ignored.
    pub weight: f32,
    /// Keys in file order (the client expects increasing times).
    pub keys: Vec<Key>,
}

/// A whole `.ani` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// How key rotations are stored.
    pub version: AniVersion,
    /// Events in file order; see [`Animation::events_by_time`] for the
    /// order the client plays them in.
    pub events: Vec<Event>,
    /// Length of the animation in milliseconds (loops wrap on it).
    pub total_ms: i32,
    /// One track per bone.
    pub tracks: Vec<Track>,
    /// Bytes after the last track: the client ignores them; we keep them.
    pub trailing: Vec<u8>,
}

/// Why bytes are not an .ani the client would load: the readers' one error
/// shape, [`FormatError`].
pub type AniError = FormatError;

/// Byte offsets of the parts of an `.ani`, for findings that point into
/// the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AniLayout {
    /// Offset of each event.
    pub events: Vec<usize>,
    /// Offset of the total time field.
    pub total_ms: usize,
    /// Offset of each track, and of its first key.
    pub tracks: Vec<(usize, usize)>,
    /// Offset of the bytes after the last track.
    pub trailer: usize,
}

impl AniLayout {
    /// Offset of key `key` of track `track` in a file of `version`.
    pub fn key(&self, version: AniVersion, track: usize, key: usize) -> usize {
        self.tracks[track].1 + key * version.key_size()
    }
}

/// How strictly to read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Accept strings of 260 bytes or more, which overflow the client's
    /// buffer (the lint reads this way and reports them).
    pub allow_long_strings: bool,
}

impl Animation {
    /// An empty animation.
    pub fn new(version: AniVersion, total_ms: i32) -> Self {
        Self { version, events: Vec::new(), total_ms, tracks: Vec::new(), trailing: Vec::new() }
    }

    /// Reads an `.ani` the way the client does, refusing what it refuses and
    /// strings that would overflow its buffer.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, AniError> {
        Self::read(bytes, ReadOptions::default()).map(|(animation, _)| animation)
    }

    /// Reads an `.ani` and reports where each part lies.
    pub fn read(bytes: &[u8], options: ReadOptions) -> Result<(Self, AniLayout), AniError> {
        let mut r = Reader::new(bytes);
        r.allow_long_strings = options.allow_long_strings;
        let malformed = FormatError::at;
        let header = malformed(Place::Header);
        let magic = r.take(4, "magic").map_err(header.clone())?;
        if magic != ANI_MAGIC {
            return Err(AniError::BadMagic { kind: BinaryKind::Ani, found: magic.to_vec() });
        }
        let number = r.i32("version").map_err(header.clone())?;
        let version =
            AniVersion::from_number(number).ok_or(AniError::UnknownVersion { kind: BinaryKind::Ani, found: number })?;
        let mut layout = AniLayout::default();

        let event_count = r.count("event count").map_err(header.clone())?;
        let mut events = Vec::with_capacity(r.capacity(event_count, 12));
        for i in 0..event_count {
            layout.events.push(r.pos());
            events.push(read_event(&mut r).map_err(malformed(Place::Event(i)))?);
        }
        layout.total_ms = r.pos();
        let total_ms = r.i32("total time").map_err(header.clone())?;
        let track_count = r.count("track count").map_err(header)?;
        let mut tracks = Vec::with_capacity(r.capacity(track_count, 12));
        for i in 0..track_count {
            let start = r.pos();
            let (track, first_key) = read_track(&mut r, version, i)?;
            layout.tracks.push((start, first_key));
            tracks.push(track);
        }
        layout.trailer = r.pos();
        let trailing = r.rest().to_vec();
        Ok((Self { version, events, total_ms, tracks, trailing }, layout))
    }

    /// Writes the file. A value read from bytes and not changed writes the
    /// same bytes; keys whose rotation changed are encoded anew.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let keys: usize = self.tracks.iter().map(|t| t.keys.len()).sum();
        let mut w = Writer::with_capacity(64 + keys * self.version.key_size() + self.tracks.len() * 32);
        w.bytes(&ANI_MAGIC);
        w.i32(self.version.number());
        w.count(self.events.len(), "events").map_err(|p| p.at(Place::Header))?;
        for (i, event) in self.events.iter().enumerate() {
            write_event(&mut w, event).map_err(|p| p.at(Place::Event(i)))?;
        }
        w.i32(self.total_ms);
        w.count(self.tracks.len(), "tracks").map_err(|p| p.at(Place::Header))?;
        for (i, track) in self.tracks.iter().enumerate() {
            self.write_track(&mut w, i, track)?;
        }
        w.bytes(&self.trailing);
        Ok(w.into_bytes())
    }

    fn write_track(&self, w: &mut Writer, index: usize, track: &Track) -> Result<(), WriteError> {
        let place = || Place::Track(index, Some(track.bone.clone()));
        w.string(&track.bone, "bone name").map_err(|p| p.at(place()))?;
        w.f32(track.weight);
        w.count(track.keys.len(), "keys").map_err(|p| p.at(place()))?;
        for (k, key) in track.keys.iter().enumerate() {
            let words = key
                .words_for(self.version)
                .map_err(|p| p.at(Place::Key { track: index, bone: track.bone.clone(), key: k }))?;
            match words {
                None => w.quat(key.rotation),
                Some(PackedRotation::SmallThree(word)) => w.u32(word),
                Some(PackedRotation::EightBytes([first, second])) => {
                    w.u32(first);
                    w.u32(second);
                }
            }
            w.vec3(key.position);
            w.i32(key.time_ms);
        }
        Ok(())
    }

    /// Re-encodes every key for `version`, so that the value shows what a
    /// file of that version holds (rotations quantised as the client's
    /// encoder does). Converting to the same version changes nothing.
    pub fn convert(&mut self, version: AniVersion) -> Result<(), WriteError> {
        if version == self.version {
            return Ok(());
        }
        for (t, track) in self.tracks.iter_mut().enumerate() {
            for (k, key) in track.keys.iter_mut().enumerate() {
                key.packed = None;
                let words = key
                    .words_for(version)
                    .map_err(|p| p.at(Place::Key { track: t, bone: track.bone.clone(), key: k }))?;
                if let Some(words) = words {
                    key.rotation = words.decode();
                    key.packed = Some(words);
                }
            }
        }
        self.version = version;
        Ok(())
    }

    /// Events in the order the client plays them: a stable sort by time
    /// (NaN times last).
    pub fn events_by_time(&self) -> Vec<&Event> {
        self.event_order().into_iter().map(|i| &self.events[i]).collect()
    }

    /// The indices of the events in the order the client plays them.
    pub fn event_order(&self) -> Vec<usize> {
        event_order(&self.events)
    }

    /// The number of keys in all tracks.
    pub fn key_count(&self) -> usize {
        self.tracks.iter().map(|t| t.keys.len()).sum()
    }

    /// Bytes this value holds in memory, itself and its heap (vector
    /// capacities, not only lengths): what a loaded clip costs beside its
    /// file size.
    pub fn memory_size(&self) -> usize {
        let strings = |s: &FileString| s.capacity();
        let events: usize = self.events.iter().map(|e| strings(&e.kind) + strings(&e.sub_info)).sum();
        let tracks: usize = self.tracks.iter().map(|t| strings(&t.bone) + t.keys.capacity() * size_of::<Key>()).sum();
        size_of::<Self>()
            + self.events.capacity() * size_of::<Event>()
            + events
            + self.tracks.capacity() * size_of::<Track>()
            + tracks
            + self.trailing.capacity()
    }

    /// The first track whose bone is `name`, compared as the client does
    /// (as C strings).
    pub fn track(&self, name: &[u8]) -> Option<&Track> {
        self.track_index(name).map(|i| &self.tracks[i])
    }

    /// The index of the first track whose bone is `name` (as C strings).
    pub fn track_index(&self, name: &[u8]) -> Option<usize> {
        self.tracks.iter().position(|t| t.bone.is_named(name))
    }
}

/// The indices of `events` in the order the client plays them: a stable
/// sort by time, NaN times last.
pub fn event_order(events: &[Event]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..events.len()).collect();
    // NaN last whatever its sign; adding 0.0 turns -0.0 into 0.0, so that
    // equal times keep file order.
    let key = |i: usize| (events[i].time_ms.is_nan(), events[i].time_ms + 0.0);
    order.sort_by(|&a, &b| key(a).0.cmp(&key(b).0).then(key(a).1.total_cmp(&key(b).1)));
    order
}

fn read_event(r: &mut Reader) -> Result<Event, ReadError> {
    Ok(Event { kind: r.string("event type")?, sub_info: r.string("event sub info")?, time_ms: r.f32("event time")? })
}

fn write_event(w: &mut Writer, event: &Event) -> Result<(), WriteProblem> {
    w.string(&event.kind, "event type")?;
    w.string(&event.sub_info, "event sub info")?;
    w.f32(event.time_ms);
    Ok(())
}

/// Reads one track, returning it with the offset of its first key.
fn read_track(r: &mut Reader, version: AniVersion, index: usize) -> Result<(Track, usize), AniError> {
    let malformed = FormatError::at;
    let bone = r.string("bone name").map_err(malformed(Place::Track(index, None)))?;
    let at_track = |cause| AniError::Malformed { place: Place::Track(index, Some(bone.clone())), cause };
    let weight = r.f32("weight").map_err(at_track)?;
    let count = r.count("key count").map_err(at_track)?;
    let first_key = r.pos();
    let size = version.key_size();
    let whole_keys = r.remaining() / size;
    if count > whole_keys {
        let cause = truncated_key(r, version, first_key + whole_keys * size);
        return Err(AniError::Malformed { place: Place::Key { track: index, bone, key: whole_keys }, cause });
    }
    // Keys have a fixed size: one bounds check for the lot, then decode.
    let block = r.take(count * size, "keys").map_err(at_track)?;
    let keys = match version {
        AniVersion::V4000 => decode_keys::<32>(block, version),
        AniVersion::V4001 => decode_keys::<20>(block, version),
        AniVersion::V4002 => decode_keys::<24>(block, version),
    };
    Ok((Track { bone, weight, keys }, first_key))
}

/// The error for a key cut short at `at`: which of its fields the file
/// ends in.
fn truncated_key(r: &Reader, version: AniVersion, at: usize) -> ReadError {
    let present = r.file_len() - at;
    let rotation = version.rotation_size();
    let (what, start, needed) = match present {
        p if p < rotation => ("rotation", 0, rotation),
        p if p < rotation + 12 => ("position", rotation, 12),
        _ => ("key time", rotation + 12, 4),
    };
    ReadError::Truncated { what, at: at + start, needed, len: r.file_len() }
}

/// Decodes a block of keys of `N` bytes each. Fixed-size chunks let the
/// compiler drop every bounds check and read whole words.
fn decode_keys<const N: usize>(block: &[u8], version: AniVersion) -> Vec<Key> {
    block.as_chunks::<N>().0.iter().map(|k| decode_key(k, version)).collect()
}

/// Decodes one key of `version.key_size()` bytes. Inlined so that the
/// version is decided once per track, not once per key.
#[inline(always)]
fn decode_key<const N: usize>(k: &[u8; N], version: AniVersion) -> Key {
    let word = |i: usize| u32::from_le_bytes([k[i], k[i + 1], k[i + 2], k[i + 3]]);
    let float = |i: usize| f32::from_bits(word(i));
    let (rotation, packed) = match version {
        AniVersion::V4000 => (Quat::from_xyzw(float(0), float(4), float(8), float(12)), None),
        AniVersion::V4001 => (decode_small_three(word(0)).rotation, Some(PackedRotation::SmallThree(word(0)))),
        AniVersion::V4002 => {
            let words = [word(0), word(4)];
            (decode_eight_bytes(words), Some(PackedRotation::EightBytes(words)))
        }
    };
    let p = version.rotation_size();
    Key { rotation, packed, position: Vec3::new(float(p), float(p + 4), float(p + 8)), time_ms: word(p + 12) as i32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(version: AniVersion) -> Animation {
        let mut a = Animation::new(version, 1000);
        a.events.push(Event { kind: "motion_sound".into(), sub_info: "b.wav".into(), time_ms: 500.0 });
        a.events.push(Event { kind: "motion_sound".into(), sub_info: "a.wav".into(), time_ms: 0.0 });
        let rot = Quat::from_rotation_y(0.5);
        a.tracks.push(Track {
            bone: "Bip01".into(),
            weight: 1.0,
            keys: vec![Key::new(0, Vec3::new(0.0, 80.0, 0.0), rot), Key::new(1000, Vec3::new(0.0, 80.0, 140.0), rot)],
        });
        a
    }

    #[test]
    fn written_file_reads_back_and_writes_the_same_bytes() {
        for version in AniVersion::ALL {
            let bytes = sample(version).to_bytes().unwrap();
            assert_eq!(
                bytes.len(),
                8 + 4 + 2 * (4 + 12 + 4 + 5 + 4) + 4 + 4 + (4 + 5 + 4 + 4) + 2 * version.key_size()
            );
            let read = Animation::from_bytes(&bytes).unwrap();
            assert_eq!(read.to_bytes().unwrap(), bytes);
        }
    }

    #[test]
    fn events_play_sorted_but_keep_file_order() {
        let a = sample(AniVersion::V4000);
        assert_eq!(a.events[0].sub_info, "b.wav");
        assert_eq!(a.events_by_time()[0].sub_info, "a.wav");
    }

    #[test]
    fn truncated_key_names_track_key_and_bytes() {
        let bytes = sample(AniVersion::V4002).to_bytes().unwrap();
        let cut = &bytes[..bytes.len() - 10];
        let err = Animation::from_bytes(cut).unwrap_err();
        let len = cut.len();
        assert_eq!(
            err.to_string(),
            format!(
                "track 0 'Bip01', key 1: position needs 12 bytes at byte {}, but the file ends at byte {len}",
                len - 6
            )
        );
    }

    #[test]
    fn header_errors() {
        assert!(matches!(Animation::from_bytes(b"SKL\0\xa0\x0f\0\0"), Err(AniError::BadMagic { .. })));
        let err = Animation::from_bytes(b"ANI\0\x03\x0f\0\0").unwrap_err();
        assert_eq!(err, AniError::UnknownVersion { kind: BinaryKind::Ani, found: 3843 });
        assert!(err.to_string().contains("4000, 4001 and 4002"));
    }

    #[test]
    fn edited_rotation_is_encoded_and_the_rest_kept() {
        let bytes = sample(AniVersion::V4001).to_bytes().unwrap();
        let mut a = Animation::from_bytes(&bytes).unwrap();
        let before = a.tracks[0].keys[0].packed;
        a.tracks[0].keys[1].rotation = Quat::from_rotation_x(1.0);
        let edited = Animation::from_bytes(&a.to_bytes().unwrap()).unwrap();
        assert_eq!(edited.tracks[0].keys[0].packed, before);
        assert_ne!(edited.tracks[0].keys[1].packed, before);
        assert!(edited.tracks[0].keys[1].rotation.angle_between(Quat::from_rotation_x(1.0)) < 0.01);
    }

    #[test]
    fn convert_quantises_every_key() {
        let mut a = sample(AniVersion::V4000);
        a.convert(AniVersion::V4001).unwrap();
        let key = a.tracks[0].keys[0];
        assert!(matches!(key.packed, Some(PackedRotation::SmallThree(_))));
        assert_eq!(key.rotation, key.packed.unwrap().decode());
        a.convert(AniVersion::V4000).unwrap();
        assert_eq!(a.tracks[0].keys[0].packed, None);
    }

    #[test]
    fn unencodable_rotation_is_a_write_error_with_its_place() {
        let mut a = sample(AniVersion::V4002);
        a.tracks[0].keys[1].rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        let err = a.to_bytes().unwrap_err();
        assert_eq!(err.place, Place::Key { track: 0, bone: "Bip01".into(), key: 1 });
    }
}
