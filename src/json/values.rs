//! JSON forms of the values that plain JSON cannot carry exactly: `f32`s
//! (with NaN payloads and infinities) and strings of raw bytes.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::format::FileString;

/// An `f32` that survives JSON bit for bit. Finite values are numbers,
/// printed as the shortest decimal that reads back to the same `f32`, and
/// read from their text directly as `f32` (never through `f64`, which
/// could round twice). Others are strings: `"inf"`, `"-inf"`, `"NaN"` (the
/// usual quiet NaN, bits `0x7fc00000`), or any value as its bits in hex,
/// such as `"0xffc00001"`.
#[derive(Debug, Clone, Copy)]
pub struct JsonF32(pub f32);

/// The bits of the NaN written as `"NaN"`.
const CANONICAL_NAN: u32 = 0x7fc0_0000;

impl Serialize for JsonF32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        match v {
            _ if v.is_finite() => s.serialize_f32(v),
            f32::INFINITY => s.serialize_str("inf"),
            f32::NEG_INFINITY => s.serialize_str("-inf"),
            _ if v.to_bits() == CANONICAL_NAN => s.serialize_str("NaN"),
            _ => s.serialize_str(&format!("{:#010x}", v.to_bits())),
        }
    }
}

impl<'de> Deserialize<'de> for JsonF32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        let text = raw.get().trim();
        if text.starts_with('"') {
            let word: String = serde_json::from_str(text).map_err(D::Error::custom)?;
            return parse_special(&word).map(Self).ok_or_else(|| {
                D::Error::custom(format!(
                    "'{word}' is not a number, \"inf\", \"-inf\", \"NaN\" or hex bits like \"0x3f800000\""
                ))
            });
        }
        text.parse::<f32>().map(Self).map_err(|_| D::Error::custom(format!("'{text}' is not a number")))
    }
}

fn parse_special(word: &str) -> Option<f32> {
    match word {
        "inf" => Some(f32::INFINITY),
        "-inf" => Some(f32::NEG_INFINITY),
        "NaN" => Some(f32::from_bits(CANONICAL_NAN)),
        _ => word.strip_prefix("0x").and_then(|hex| u32::from_str_radix(hex, 16).ok()).map(f32::from_bits),
    }
}

/// Serde helpers for `[f32; N]` fields.
pub fn floats<const N: usize>(values: [f32; N]) -> [JsonF32; N] {
    values.map(JsonF32)
}

/// Back from [`floats`].
pub fn unfloats<const N: usize>(values: [JsonF32; N]) -> [f32; N] {
    values.map(|v| v.0)
}

/// A file string in JSON. Valid UTF-8 is a plain JSON string (names are
/// ASCII). Other bytes, such as CP949 Korean text, are an object holding
/// the bytes in hex, with the CP949 reading beside them for people
/// (`{"hex":"b0f8b0dd","text":"공격"}`; `text` is ignored when building).
/// An empty string stored with a negative length is `{"empty_length":-1}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonString {
    /// UTF-8 text.
    Text(String),
    /// Raw bytes.
    Bytes {
        /// The bytes in hex.
        hex: String,
        /// The bytes read as CP949, for display only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// The empty string with a length field below zero.
    Empty {
        /// The stored length field.
        empty_length: i32,
    },
}

impl From<&FileString> for JsonString {
    fn from(s: &FileString) -> Self {
        if s.is_empty() && s.length_field() != 0 {
            return Self::Empty { empty_length: s.length_field() };
        }
        match s.as_utf8() {
            Some(text) => Self::Text(text.to_owned()),
            None => Self::Bytes { hex: hex::encode(s.as_bytes()), text: Some(s.to_text()) },
        }
    }
}

impl JsonString {
    /// The file string, or why the hex is not hex.
    pub fn to_file_string(&self) -> Result<FileString, String> {
        Ok(match self {
            Self::Text(text) => FileString::from(text.as_str()),
            Self::Bytes { hex, .. } => FileString::from(decode_hex(hex)?),
            Self::Empty { empty_length } => FileString::empty_with_length(*empty_length),
        })
    }
}

/// Decodes hex, saying what is wrong with it.
pub fn decode_hex(text: &str) -> Result<Vec<u8>, String> {
    hex::decode(text).map_err(|e| format!("'{text}' is not hex: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: f32) -> f32 {
        serde_json::from_str::<JsonF32>(&serde_json::to_string(&JsonF32(v)).unwrap()).unwrap().0
    }

    #[test]
    fn floats_keep_their_bits() {
        for bits in [0u32, 0x8000_0000, 1, 0x7f7f_ffff, 0x3dcc_cccd, 0x7fc0_0000, 0xffc0_0001, 0x7f80_0000, 0xff80_0000]
        {
            assert_eq!(round_trip(f32::from_bits(bits)).to_bits(), bits, "{bits:#x}");
        }
        let mut x: u32 = 12345;
        for _ in 0..100_000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            assert_eq!(round_trip(f32::from_bits(x)).to_bits(), x, "{x:#x}");
        }
        assert_eq!(serde_json::to_string(&JsonF32(0.1)).unwrap(), "0.1");
    }

    #[test]
    fn strings_keep_their_bytes() {
        for s in [
            FileString::from("Bip01"),
            FileString::from(&[0xB0, 0xF8, 0xB0, 0xDD][..]),
            FileString::empty_with_length(-3),
        ] {
            let json = serde_json::to_string(&JsonString::from(&s)).unwrap();
            let back: JsonString = serde_json::from_str(&json).unwrap();
            assert_eq!(back.to_file_string().unwrap(), s, "{json}");
        }
        let korean =
            serde_json::to_string(&JsonString::from(&FileString::from(&[0xB0, 0xF8, 0xB0, 0xDD][..]))).unwrap();
        assert_eq!(korean, r#"{"hex":"b0f8b0dd","text":"공격"}"#);
    }
}
