//! Values of a TOML table read by hand as serde's derive reads them, for the tables it accepts:
//! each answers `None` for a value serde would refuse or read otherwise, and the caller then
//! falls back to serde, whose words a refusal keeps (issue 44: the gossip parameters and the
//! schedule's faults of the app's default scenario are read without toml's `Value` deserializer,
//! which is in the scenario reader's part of the split build; `lazy`). Tested against serde on
//! every scenario file (`gossip::params`, `scenario_file::schedule`).

use crate::time::{parse_duration, Micros};
use toml::Value;

/// A duration string ("10s", "250ms"), as `Dur`'s deserializer reads it.
pub fn dur(v: &Value) -> Option<Micros> {
    parse_duration(v.as_str()?).ok()
}

/// A number: a float, or an integer taken as one (serde's `f64` from an integer).
pub fn float(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// An integer within `u32`.
pub fn u32_(v: &Value) -> Option<u32> {
    u32::try_from(v.as_integer()?).ok()
}

/// A boolean.
pub fn bool_(v: &Value) -> Option<bool> {
    v.as_bool()
}

/// A string.
pub fn string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// An array of arrays of strings.
pub fn string_lists(v: &Value) -> Option<Vec<Vec<String>>> {
    v.as_array()?
        .iter()
        .map(|l| l.as_array()?.iter().map(string).collect())
        .collect()
}
