//! What a metric, a view and a parameter mean: the types a model's `<model>/about.rs` tables
//! are written in ([`Info`], [`ParamSpec`] with its [`Range`]) and `to_json` for
//! `Model::params_now`. Below the models and `model`; `crate::catalogue`, above the registry,
//! re-exports them and gathers the tables of every model (issue 41; imports run downwards,
//! issue 45).

use crate::time::fmt_duration;

/// A metric or a view: its name, unit and one sentence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Info {
    pub name: &'static str,
    /// "count", "ms", "nodes", "text", ...
    pub unit: &'static str,
    pub about: &'static str,
}

/// Shorthand for the tables: `info("down_pairs", "pairs", "...")`.
pub const fn info(name: &'static str, unit: &'static str, about: &'static str) -> Info {
    Info { name, unit, about }
}

/// The values a parameter accepts. Bounds are inclusive and are the ones the model's
/// validation uses (the same constants).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    Bool,
    /// One of these words.
    Words(&'static [&'static str]),
    /// Any text (a node's name, a preset's name checked elsewhere).
    Text(&'static str),
    /// A whole number in `min..=max`.
    Int {
        min: i64,
        max: i64,
    },
    /// A number in `min..=max` (`min` itself refused when `open_min`).
    Float {
        min: f64,
        max: f64,
        open_min: bool,
    },
    /// A duration in `min..=max` microseconds; `or_zero`: also `"0s"` (off).
    Dur {
        min: u64,
        max: u64,
        or_zero: bool,
    },
}

/// One parameter of `[params]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    pub name: &'static str,
    pub unit: &'static str,
    pub range: Range,
    pub about: &'static str,
}

pub const fn param(
    name: &'static str,
    unit: &'static str,
    range: Range,
    about: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        unit,
        range,
        about,
    }
}

/// No upper bound on a duration.
pub const NO_MAX_US: u64 = u64::MAX;

impl Range {
    pub const BOOL: Range = Range::Bool;
    /// A u32 with no bounds of its own.
    pub const U32: Range = Range::Int {
        min: 0,
        max: u32::MAX as i64,
    };
    /// Any duration.
    pub const DUR: Range = Range::Dur {
        min: 0,
        max: NO_MAX_US,
        or_zero: true,
    };
    /// A duration above zero.
    pub const POSITIVE: Range = Range::Dur {
        min: 1,
        max: NO_MAX_US,
        or_zero: false,
    };
    /// A probability.
    pub const PROB: Range = Range::Float {
        min: 0.0,
        max: 1.0,
        open_min: false,
    };

    /// For people: "1..=1024", "at least 1ms", "\"0s\" (off) or at least 10ms".
    pub fn describe(&self) -> String {
        match *self {
            Range::Bool => "true or false".into(),
            Range::Words(w) => w.join(" | "),
            Range::Text(t) => t.into(),
            Range::Int { min, max } if max == u32::MAX as i64 => format!("{min} or more"),
            Range::Int { min, max } => format!("{min}..={max}"),
            Range::Float { min, max, open_min } => {
                let lo = if open_min { "above" } else { "from" };
                if max.is_finite() {
                    format!("{lo} {min} to {max}")
                } else {
                    format!("{lo} {min}")
                }
            }
            Range::Dur { min, max, or_zero } => {
                let mut s = match (min, max) {
                    (0, NO_MAX_US) => "any duration".to_string(),
                    (m, NO_MAX_US) => format!("at least {}", fmt_duration(m)),
                    (0, x) => format!("at most {}", fmt_duration(x)),
                    (m, x) => format!("{} to {}", fmt_duration(m), fmt_duration(x)),
                };
                if or_zero && min > 0 {
                    s = format!("\"0s\" (off) or {s}");
                }
                s
            }
        }
    }
}

/// A parameter's table to JSON, for `Model::params_now`.
pub fn to_json<T: serde::Serialize>(p: &T) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(p) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}
