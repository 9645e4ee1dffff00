//! Scenario files (TOML): the cluster, parameters, variants, the fault schedule, expectations and
//! captions. Every error names the file, the place (line:column or field) and what would be valid.

use crate::engine::action::{Action, Dur};
use crate::engine::{NodeId, Topology};
use crate::limits::Limits;
use crate::time::{fmt_duration, parse_duration, Micros};
use serde::{Deserialize, Serialize};
use std::fmt;

pub mod builtin;
mod nesting;
pub mod noderef;
mod views;

pub use views::generic_view_needs;

#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub file: String,
    pub msg: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.msg)
    }
}

impl std::error::Error for ScenarioError {}

/// A point in virtual time: a duration or `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeRef {
    At(Micros),
    End,
}

impl Serialize for TimeRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TimeRef::At(t) => s.serialize_str(&fmt_duration(*t)),
            TimeRef::End => s.serialize_str("end"),
        }
    }
}

impl<'de> Deserialize<'de> for TimeRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "end" {
            Ok(TimeRef::End)
        } else {
            parse_duration(&s)
                .map(TimeRef::At)
                .map_err(serde::de::Error::custom)
        }
    }
}

impl TimeRef {
    pub fn resolve(self, end: Micros) -> Micros {
        match self {
            TimeRef::At(t) => t.min(end),
            TimeRef::End => end,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default)]
    pub dc: Option<String>,
    #[serde(default)]
    pub rack: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    pub count: u32,
    #[serde(default = "one")]
    pub dcs: u32,
    #[serde(default = "one")]
    pub racks: u32,
    #[serde(default = "default_prefix")]
    pub prefix: String,
}

fn one() -> u32 {
    1
}
fn default_prefix() -> String {
    "n".into()
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub generate: Option<Generate>,
    /// Seed node names; default: the first node of each DC.
    #[serde(default)]
    pub seeds: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    #[serde(default = "default_lat_min")]
    pub latency_min: Dur,
    #[serde(default = "default_lat_max")]
    pub latency_max: Dur,
    /// Baseline loss probability on every link (heal restores it).
    #[serde(default)]
    pub loss: f64,
}

fn default_lat_min() -> Dur {
    Dur(200)
}
fn default_lat_max() -> Dur {
    Dur(1_000)
}

impl Default for NetworkSpec {
    fn default() -> Self {
        NetworkSpec {
            latency_min: default_lat_min(),
            latency_max: default_lat_max(),
            loss: 0.0,
        }
    }
}

/// An expectation on an observable view, at a time or throughout a window. `Default`: no
/// name, view, nodes, time or predicate (for code that builds one field by field).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    pub name: String,
    /// What to look at: `liveness`, `heartbeat`, `generation`, `inflight`, `down_pairs`,
    /// `down_observers`, `down_targets`, `stage_expired`, `status`, `log`, ...
    pub view: String,
    /// A node, a set of nodes (`"n4..n7"`, `"n1, n3"` or a list) or `"leader"` (the current
    /// leader when evaluated): `noderef::NodeRef`.
    #[serde(default, alias = "node", deserialize_with = "noderef::de_names")]
    pub observer: Option<String>,
    #[serde(default, deserialize_with = "noderef::de_names")]
    pub peer: Option<String>,
    /// With a set of nodes in `observer` or `peer`: `"any"`, `"all"` or `"none"` of them hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<String>,
    /// For `log`: the text a line must contain.
    #[serde(default)]
    pub contains: Option<String>,
    /// A model-specific key: an executor name for `exec_*` views, a read id, an index...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default)]
    pub at: Option<TimeRef>,
    #[serde(default)]
    pub during: Option<[TimeRef; 2]>,
    /// With `at`: the check first holds within this time after `at` (checked after every
    /// event in `[at, at + within]`); the time it took is the metric `time_until: <name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<Dur>,
    #[serde(default)]
    pub equals: Option<toml::Value>,
    /// The value is any of these (text or numbers, as `equals`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<toml::Value>>,
    /// The value is anything but this (as `equals`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_equals: Option<toml::Value>,
    #[serde(default)]
    pub at_least: Option<f64>,
    #[serde(default)]
    pub at_most: Option<f64>,
    /// The value at the end of `during` is larger than at its start.
    #[serde(default)]
    pub increases: Option<bool>,
    /// How often this holds across seeds, when it is not (nearly) always: `"40%..70%"`. A run
    /// where it did not hold is not a failure ("did not happen this time"); a sweep checks the
    /// observed fraction's 95% interval against it. Without it an expectation claims to hold
    /// on (nearly) every seed: [`Chance::ALWAYS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chance: Option<Chance>,
    /// Where the chance comes from (the ticket's words, arithmetic, a measured sweep): required
    /// with `chance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Set for the checks a caption makes (`[[captions.holds]]`): the caption's index in the
    /// file. Never written in a file.
    #[serde(skip)]
    pub caption: Option<u32>,
}

/// A declared range of the fraction of seeds on which an expectation holds, in percent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chance {
    pub lo_pct: f64,
    pub hi_pct: f64,
}

impl Chance {
    /// What an expectation without `chance` claims: it holds on every seed, allowing the odd
    /// exception (1%) a sweep of a few hundred seeds cannot tell from "always".
    pub const ALWAYS: Chance = Chance {
        lo_pct: 99.0,
        hi_pct: 100.0,
    };

    /// `"40%..70%"`, `"40..70%"`, or one value `"50%"` (a point claim).
    pub fn parse(s: &str) -> Result<Chance, String> {
        let bad = || {
            format!(
                "chance \"{}\": write a range of percentages such as \"40%..70%\" (0% to 100%, \
                 the low end first)",
                crate::text::clip(s, 40)
            )
        };
        let pct = |t: &str| -> Result<f64, String> {
            let t = t.trim();
            let t = t.strip_suffix('%').unwrap_or(t).trim();
            let v: f64 = t.parse().map_err(|_| bad())?;
            if !(0.0..=100.0).contains(&v) {
                return Err(bad());
            }
            Ok(v)
        };
        let (lo, hi) = match s.split_once("..") {
            Some((a, b)) => (pct(a)?, pct(b)?),
            None => {
                let v = pct(s)?;
                (v, v)
            }
        };
        if lo > hi {
            return Err(bad());
        }
        Ok(Chance {
            lo_pct: lo,
            hi_pct: hi,
        })
    }

    /// As written: `"40%..70%"`.
    pub fn text(&self) -> String {
        if self.lo_pct == self.hi_pct {
            format!("{}%", self.lo_pct)
        } else {
            format!("{}%..{}%", self.lo_pct, self.hi_pct)
        }
    }

    /// For people: `40-70%`.
    pub fn short(&self) -> String {
        if self.lo_pct == self.hi_pct {
            format!("{}%", self.lo_pct)
        } else {
            format!("{}-{}%", self.lo_pct, self.hi_pct)
        }
    }

    /// Whether an observed 95% interval `[lo, hi]` (fractions) is consistent with this claim:
    /// the two ranges overlap.
    pub fn admits(&self, lo: f64, hi: f64) -> bool {
        hi * 100.0 >= self.lo_pct - 1e-9 && lo * 100.0 <= self.hi_pct + 1e-9
    }
}

impl Serialize for Chance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for Chance {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Chance::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A check a caption makes of the state it describes, at the moment it shows: a view and one
/// comparison, as in an expectation (no name or time of its own).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldSpec {
    pub view: String,
    #[serde(
        default,
        alias = "node",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "noderef::de_names"
    )]
    pub observer: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "noderef::de_names"
    )]
    pub peer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// For `log` (and `increases`): the window's start; the caption's time is its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Dur>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<toml::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<toml::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_equals: Option<toml::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increases: Option<bool>,
}

impl HoldSpec {
    /// The expectation this check is, for caption `index` showing at `at`.
    pub fn to_expect(&self, index: usize, c: &Caption) -> ExpectSpec {
        let what = match (&self.observer, &self.peer, &self.key) {
            (Some(o), Some(p), _) => format!("{} {o}->{p}", self.view),
            (Some(o), None, Some(k)) => format!("{} {o} [{k}]", self.view),
            (Some(o), None, None) => format!("{} {o}", self.view),
            (None, _, Some(k)) => format!("{} [{k}]", self.view),
            (None, _, None) => self.view.clone(),
        };
        let cmp = match (&self.equals, self.at_least, self.at_most, self.increases) {
            (Some(v), ..) => format!(" = {}", crate::sweep::show(v)),
            _ if self.one_of.is_some() => format!(
                " one of {}",
                self.one_of
                    .iter()
                    .flatten()
                    .map(crate::sweep::show)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ if self.not_equals.is_some() => format!(
                " != {}",
                self.not_equals
                    .as_ref()
                    .map(crate::sweep::show)
                    .unwrap_or_default()
            ),
            (None, Some(lo), Some(hi), _) => format!(" in {lo}..{hi}"),
            (None, Some(lo), None, _) => format!(" >= {lo}"),
            (None, None, Some(hi), _) => format!(" <= {hi}"),
            (None, None, None, Some(true)) => " increases".into(),
            _ => String::new(),
        };
        let contains = self
            .contains
            .as_ref()
            .map(|c| format!(" \"{}\"", crate::text::clip(c, 30)))
            .unwrap_or_default();
        let (at, during) = match self.since {
            Some(s) => (None, Some([TimeRef::At(s.0), TimeRef::At(c.at.0)])),
            None => (Some(TimeRef::At(c.at.0)), None),
        };
        ExpectSpec {
            name: format!("caption at {}: {what}{contains}{cmp}", fmt_duration(c.at.0)),
            view: self.view.clone(),
            observer: self.observer.clone(),
            peer: self.peer.clone(),
            nodes: self.nodes.clone(),
            contains: self.contains.clone(),
            key: self.key.clone(),
            at,
            during,
            within: None,
            equals: self.equals.clone(),
            one_of: self.one_of.clone(),
            not_equals: self.not_equals.clone(),
            at_least: self.at_least,
            at_most: self.at_most,
            increases: self.increases,
            chance: None,
            source: None,
            caption: Some(index as u32),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caption {
    pub at: Dur,
    pub text: String,
    /// Only in these variants (all when empty).
    #[serde(default)]
    pub variants: Vec<String>,
    /// What the caption says of the state, checked when it shows (on every run: a sweep and the
    /// app's Expectations list report a caption that is not true at its moment).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holds: Vec<HoldSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub params: toml::Table,
    #[serde(default)]
    pub faults: Vec<toml::Table>,
    #[serde(default)]
    pub expect: Vec<ExpectSpec>,
}

/// The file as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    pub title: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub ticket: Option<String>,
    pub protocol: String,
    pub duration: Dur,
    #[serde(default = "default_seed")]
    pub seed: u64,
    pub cluster: ClusterSpec,
    #[serde(default)]
    pub network: NetworkSpec,
    #[serde(default)]
    pub params: toml::Table,
    pub variants: Vec<VariantSpec>,
    #[serde(default)]
    pub faults: Vec<toml::Table>,
    #[serde(default)]
    pub expect: Vec<ExpectSpec>,
    #[serde(default)]
    pub captions: Vec<Caption>,
    /// User actions recorded in an interactive session, replayed at their exact engine step.
    #[serde(default)]
    pub recorded: Vec<crate::engine::action::RecordedAction>,
}

fn default_seed() -> u64 {
    1
}

/// Views every model answers (the runner evaluates them); the model adds its own.
pub const GENERIC_VIEWS: &[&str] = &[
    "status",
    "log",
    "violations",
    "exec_pending",
    "exec_expired",
    "exec_done",
    "link",
    "link_loss",
    "sent",
    "delivered",
    "dropped",
];

/// The generic views that count the trace's message records (`runner`): `sent`, `delivered`,
/// `dropped`. Over `during`; with `at`, from the start of the run.
pub const MESSAGE_VIEWS: &[&str] = &["sent", "delivered", "dropped"];

/// A validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub file: String,
    pub raw: ScenarioFile,
    pub topo: Topology,
    /// Common faults, sorted by time (stable).
    pub faults: Vec<(Micros, Action)>,
    /// Per variant (same order as `raw.variants`): its own extra faults.
    pub variant_faults: Vec<Vec<(Micros, Action)>>,
    /// The model's own section (`[gossip]`, `[raft]`, ...: the table named like `protocol`),
    /// parsed by the model when a run is built.
    pub section: Option<toml::Table>,
}

impl Scenario {
    pub fn name(&self) -> &str {
        &self.raw.name
    }
    pub fn duration(&self) -> Micros {
        self.raw.duration.0
    }
    pub fn variant_names(&self) -> Vec<&str> {
        self.raw.variants.iter().map(|v| v.name.as_str()).collect()
    }
    pub fn variant(&self, name: &str) -> Result<(usize, &VariantSpec), String> {
        self.raw
            .variants
            .iter()
            .enumerate()
            .find(|(_, v)| v.name == name)
            .ok_or_else(|| {
                format!(
                    "unknown variant \"{name}\"; {} has: {}",
                    self.raw.name,
                    self.variant_names().join(", ")
                )
            })
    }
    /// The schedule of a variant: common faults plus its own, merged by time (stable).
    pub fn schedule(&self, variant: usize) -> Vec<(Micros, Action)> {
        let mut s = self.faults.clone();
        s.extend(self.variant_faults[variant].iter().cloned());
        crate::small_sort::sort_by_key(&mut s, |(t, _)| *t);
        s
    }
    /// Everything a run of `variant` checks, in the order it reports them: the file's
    /// expectations, the variant's, then the checks of the captions it shows (by time).
    pub fn expectations(&self, variant: &str) -> Result<Vec<ExpectSpec>, String> {
        let (_, v) = self.variant(variant)?;
        let mut out: Vec<ExpectSpec> = self
            .raw
            .expect
            .iter()
            .chain(v.expect.iter())
            .cloned()
            .collect();
        let mut caps: Vec<(usize, &Caption)> = self
            .raw
            .captions
            .iter()
            .enumerate()
            .filter(|(_, c)| c.variants.is_empty() || c.variants.iter().any(|x| x == variant))
            .collect();
        crate::small_sort::sort_by_key(&mut caps, |(_, c)| c.at.0);
        for (i, c) in caps {
            out.extend(c.holds.iter().map(|h| h.to_expect(i, c)));
        }
        Ok(out)
    }

    /// The captions `variant` shows, by time, each with its index in the file (what a caption
    /// check's `ExpectResult::caption` names).
    pub fn captions_indexed(&self, variant: &str) -> Vec<(usize, &Caption)> {
        let mut c: Vec<(usize, &Caption)> = self
            .raw
            .captions
            .iter()
            .enumerate()
            .filter(|(_, c)| c.variants.is_empty() || c.variants.iter().any(|v| v == variant))
            .collect();
        crate::small_sort::sort_by_key(&mut c, |(_, c)| c.at.0);
        c
    }

    pub fn captions(&self, variant: &str) -> Vec<&Caption> {
        let mut c: Vec<&Caption> = self
            .raw
            .captions
            .iter()
            .filter(|c| c.variants.is_empty() || c.variants.iter().any(|v| v == variant))
            .collect();
        crate::small_sort::sort_by_key(&mut c, |c| c.at.0);
        c
    }

    /// Parse and validate TOML text. `file` names the source in errors.
    pub fn parse(file: &str, text: &str, limits: &Limits) -> Result<Scenario, ScenarioError> {
        let err = |msg: String| ScenarioError {
            file: file.to_string(),
            msg,
        };
        if text.len() > limits.max_scenario_bytes {
            return Err(err(format!(
                "the file is {} bytes; the limit is {} bytes",
                text.len(),
                limits.max_scenario_bytes
            )));
        }
        let (rest, section) = split_section(text).map_err(err)?;
        let raw: ScenarioFile =
            toml::from_str(&rest).map_err(|e| err(clean_toml_error(&e.to_string(), &rest)))?;
        let mut sc = Self::from_raw(file, raw, limits)?;
        sc.section = section;
        Ok(sc)
    }

    /// The scenario as TOML text (the model's section included): what an export writes.
    pub fn to_toml(&self, raw: &ScenarioFile) -> Result<String, String> {
        let mut t = toml::Table::try_from(raw).map_err(|e| e.to_string())?;
        if let Some(sec) = &self.section {
            t.insert(raw.protocol.clone(), toml::Value::Table(sec.clone()));
        }
        toml::to_string(&t).map_err(|e| e.to_string())
    }

    pub fn from_raw(
        file: &str,
        raw: ScenarioFile,
        limits: &Limits,
    ) -> Result<Scenario, ScenarioError> {
        let err = |msg: String| ScenarioError {
            file: file.to_string(),
            msg,
        };
        let Some(model) = crate::registry::find(&raw.protocol) else {
            return Err(err(format!(
                "protocol: \"{}\" is not modelled; use one of: {}",
                raw.protocol,
                crate::registry::names().join(", ")
            )));
        };
        if raw.name.is_empty()
            || !raw
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(err(format!(
                "name: \"{}\" must be non-empty and use only letters, digits, '-' and '_'",
                crate::text::clip(&raw.name, 60)
            )));
        }
        if raw.duration.0 == 0 || raw.duration.0 > limits.max_duration_us {
            return Err(err(format!(
                "duration: {} is out of range; use more than 0s and at most {}",
                fmt_duration(raw.duration.0),
                fmt_duration(limits.max_duration_us)
            )));
        }
        let topo =
            build_topology(&raw.cluster, limits).map_err(|m| err(format!("cluster: {m}")))?;
        if raw.network.latency_min.0 > raw.network.latency_max.0
            || raw.network.latency_max.0 > limits.max_latency_us
        {
            return Err(err(
                "network: latency_min must be <= latency_max, and latency_max at most 1h".into(),
            ));
        }
        if !(0.0..=1.0).contains(&raw.network.loss) {
            return Err(err(format!(
                "network.loss: {} is not a probability; use 0.0 to 1.0",
                raw.network.loss
            )));
        }
        if raw.variants.is_empty() {
            return Err(err("variants: a scenario needs at least one [[variants]] entry (incidents have `buggy` and `fixed`)".into()));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, v) in raw.variants.iter().enumerate() {
            let n = v.name.chars().count();
            if v.name.trim().is_empty()
                || n > 64
                || v.name
                    .chars()
                    .any(|c| c.is_control() || crate::text::is_bidi(c))
            {
                return Err(err(format!(
                    "variants[{i}].name: \"{}\" must be 1-64 characters, not blank, without \
                     control or bidirectional characters",
                    crate::text::clip(&v.name, 40)
                )));
            }
            if !seen.insert(v.name.as_str()) {
                return Err(err(format!("variants: \"{}\" is defined twice", v.name)));
            }
        }
        let dur = raw.duration.0;
        let faults = parse_faults(&raw.faults, "faults", &topo, dur, limits).map_err(err)?;
        let mut variant_faults = Vec::new();
        let mut total_faults = faults.len();
        let mut total_expect = raw.expect.len();
        for v in &raw.variants {
            let f = parse_faults(
                &v.faults,
                &format!("variants.{}.faults", v.name),
                &topo,
                dur,
                limits,
            )
            .map_err(err)?;
            total_faults += f.len();
            total_expect += v.expect.len();
            variant_faults.push(f);
        }
        // Process states the schedule of each variant leads to: starting a running node, killing
        // a stopped one... is impossible whatever happens in between.
        for (vi, v) in raw.variants.iter().enumerate() {
            let mut items: Vec<Timed> = Vec::new();
            items.extend(sched_items(&raw.faults, "faults", &faults));
            items.extend(sched_items(
                &v.faults,
                &format!("variants.{}.faults", v.name),
                &variant_faults[vi],
            ));
            crate::small_sort::sort_by_key(&mut items, |x| x.at);
            check_process_states(&topo, &items).map_err(err)?;
        }
        if total_faults > limits.max_schedule {
            return Err(err(format!(
                "faults: {total_faults} scheduled actions; the limit is {}",
                limits.max_schedule
            )));
        }
        if total_expect > limits.max_expectations {
            return Err(err(format!(
                "expect: {total_expect} expectations; the limit is {}",
                limits.max_expectations
            )));
        }
        for (i, r) in raw.recorded.iter().enumerate() {
            check_action(&r.action, &topo, limits)
                .map_err(|m| err(format!("recorded[{i}]: {m}")))?;
            if r.at.0 > dur {
                return Err(err(format!(
                    "recorded[{i}].at: {} is after the end",
                    fmt_duration(r.at.0)
                )));
            }
        }
        if raw
            .recorded
            .windows(2)
            .any(|w| w[0].step >= w[1].step || w[0].at.0 > w[1].at.0)
        {
            return Err(err(
                "recorded: actions must be in increasing `step` order".into()
            ));
        }
        if raw.captions.len() > limits.max_captions {
            return Err(err(format!(
                "captions: {} captions; the limit is {}",
                raw.captions.len(),
                limits.max_captions
            )));
        }
        let holds: usize = raw.captions.iter().map(|c| c.holds.len()).sum();
        if total_expect + holds > limits.max_expectations {
            return Err(err(format!(
                "expect: {total_expect} expectations and {holds} caption checks; the limit is {} \
                 in all",
                limits.max_expectations
            )));
        }
        for (i, c) in raw.captions.iter().enumerate() {
            for (j, h) in c.holds.iter().enumerate() {
                let e = h.to_expect(i, c);
                if let Some(s) = h.since {
                    if s.0 > c.at.0 {
                        return Err(err(format!(
                            "captions[{i}].holds[{j}].since: {} is after the caption ({}); a \
                             window ends when its caption shows",
                            fmt_duration(s.0),
                            fmt_duration(c.at.0)
                        )));
                    }
                }
                check_expect(&e, &topo, model, dur)
                    .map_err(|m| err(format!("captions[{i}].holds[{j}]: {m}")))?;
            }
            if c.at.0 > dur {
                return Err(err(format!(
                    "captions[{i}].at: {} is after the end ({})",
                    fmt_duration(c.at.0),
                    fmt_duration(dur)
                )));
            }
            for v in &c.variants {
                if !raw.variants.iter().any(|x| &x.name == v) {
                    return Err(err(format!(
                        "captions[{i}].variants: unknown variant \"{v}\""
                    )));
                }
            }
        }
        let all_expect = raw.expect.iter().map(|e| ("expect".to_string(), e)).chain(
            raw.variants.iter().flat_map(|v| {
                v.expect
                    .iter()
                    .map(move |e| (format!("variants.{}.expect", v.name), e))
            }),
        );
        for (where_, e) in all_expect {
            check_expect(e, &topo, model, dur).map_err(|m| {
                err(format!(
                    "{where_} \"{}\": {m}",
                    crate::text::clip(&e.name, 60)
                ))
            })?;
        }
        Ok(Scenario {
            file: file.to_string(),
            raw,
            topo,
            faults,
            variant_faults,
            section: None,
        })
    }
}

/// Take the model's own section (the top-level table named like `protocol`) out of the text,
/// keeping every other line where it was so that errors in the rest still name their line. The
/// split is checked: the rest must parse to exactly the file without that table.
fn split_section(text: &str) -> Result<(std::borrow::Cow<'_, str>, Option<toml::Table>), String> {
    use std::borrow::Cow;
    let Ok(mut full) = toml::from_str::<toml::Table>(text) else {
        // The typed parse reports the syntax error with its line.
        return Ok((Cow::Borrowed(text), None));
    };
    let Some(toml::Value::String(name)) = full.get("protocol").cloned() else {
        return Ok((Cow::Borrowed(text), None));
    };
    let Some(section) = full.remove(&name) else {
        return Ok((Cow::Borrowed(text), None));
    };
    let toml::Value::Table(section) = section else {
        return Err(format!(
            "`{name}` must be a table ([{name}]), the model's own section"
        ));
    };
    let head = |line: &str| -> Option<String> {
        let l = line.trim_start();
        let inner = l.strip_prefix("[[").or_else(|| l.strip_prefix('['))?;
        let first = inner.split([']', '.']).next()?.trim();
        Some(first.trim_matches(|c| c == '"' || c == '\'').to_string())
    };
    let mut inside = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if let Some(h) = head(line) {
            inside = h == name;
        }
        let root_key = !inside && {
            let l = line.trim_start();
            l.strip_prefix(name.as_str())
                .is_some_and(|r| r.trim_start().starts_with(['.', '=']))
        };
        if inside || root_key {
            out.push_str(if line.ends_with('\n') { "\n" } else { "" });
        } else {
            out.push_str(line);
        }
    }
    match toml::from_str::<toml::Table>(&out) {
        Ok(rest) if rest == full => Ok((Cow::Owned(out), Some(section))),
        _ => Err(format!(
            "could not separate the [{name}] section from the rest; write it as one [{name}] \
             table (with [[{name}.x]] sub-tables) after the other top-level keys"
        )),
    }
}

/// toml's messages start with "TOML parse error at line L, column C"; keep them, they name the place.
/// The quoted source line is cut (a 1 MB line would otherwise be echoed whole).
/// Nesting too deep: the place and the limit (`nesting::explain`).
fn clean_toml_error(e: &str, text: &str) -> String {
    let mut out: Vec<String> = e
        .trim_end()
        .lines()
        .map(|l| crate::text::clip(l, 160))
        .collect();
    out.extend(nesting::explain(e, text));
    out.join("\n")
}

fn build_topology(c: &ClusterSpec, limits: &Limits) -> Result<Topology, String> {
    let mut names = Vec::new();
    let mut dcs = Vec::new();
    let mut racks = Vec::new();
    match (&c.generate, c.nodes.is_empty()) {
        (Some(_), false) => return Err("use either `nodes` or `generate`, not both".into()),
        (None, true) => {
            return Err(
                "no nodes; list [[cluster.nodes]] or set cluster.generate = { count = N }".into(),
            )
        }
        (Some(g), true) => {
            if g.count == 0 || g.count > limits.max_nodes {
                return Err(format!(
                    "generate.count {} is out of range; use 1 to {}",
                    g.count, limits.max_nodes
                ));
            }
            crate::text::check_name("generate.prefix", &g.prefix, 32)?;
            if g.dcs == 0 || g.dcs > g.count || g.racks == 0 {
                return Err(format!(
                    "generate.dcs {} must be between 1 and count, racks at least 1",
                    g.dcs
                ));
            }
            for i in 0..g.count {
                names.push(format!("{}{}", g.prefix, i + 1));
                let dc = (i as u64 * g.dcs as u64 / g.count as u64) as u32;
                dcs.push(format!("dc{}", dc + 1));
                racks.push(format!("rack{}", i % g.racks + 1));
            }
        }
        (None, false) => {
            if c.nodes.len() > limits.max_nodes as usize {
                return Err(format!(
                    "{} nodes; the limit is {}",
                    c.nodes.len(),
                    limits.max_nodes
                ));
            }
            let mut seen = std::collections::BTreeSet::new();
            for n in &c.nodes {
                crate::text::check_name("node name", &n.name, 64)?;
                if let Some(dc) = &n.dc {
                    crate::text::check_name(&format!("node {}: dc", n.name), dc, 64)?;
                }
                if let Some(rack) = &n.rack {
                    crate::text::check_name(&format!("node {}: rack", n.name), rack, 64)?;
                }
                if !seen.insert(n.name.as_str()) {
                    return Err(format!("node \"{}\" is listed twice", n.name));
                }
                names.push(n.name.clone());
                dcs.push(n.dc.clone().unwrap_or_else(|| "dc1".into()));
                racks.push(n.rack.clone().unwrap_or_else(|| "rack1".into()));
            }
        }
    }
    let mut topo = Topology {
        names,
        dcs,
        racks,
        seeds: Vec::new(),
    };
    if c.seeds.is_empty() {
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..topo.len() {
            if seen.insert(topo.dcs[i as usize].clone()) {
                topo.seeds.push(i);
            }
        }
    } else {
        for s in &c.seeds {
            let id = topo.resolve(s).map_err(|m| format!("seeds: {m}"))?;
            topo.seeds.push(id);
        }
    }
    Ok(topo)
}

fn parse_faults(
    tables: &[toml::Table],
    where_: &str,
    topo: &Topology,
    dur: Micros,
    limits: &Limits,
) -> Result<Vec<(Micros, Action)>, String> {
    let mut out = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let mut t = t.clone();
        let place = format!("{where_}[{i}]");
        let at = match t.remove("at") {
            Some(toml::Value::String(s)) => {
                parse_duration(&s).map_err(|m| format!("{place}.at: {m}"))?
            }
            Some(other) => {
                return Err(format!(
                    "{place}.at: expected a duration string such as \"30s\", got {other}"
                ))
            }
            None => {
                return Err(format!(
                    "{place}: missing `at` (when to apply it, e.g. at = \"30s\")"
                ))
            }
        };
        if at > dur {
            return Err(format!(
                "{place}.at: {} is after the end of the scenario ({})",
                fmt_duration(at),
                fmt_duration(dur)
            ));
        }
        let action: Action = toml::Value::Table(t)
            .try_into()
            .map_err(|e: toml::de::Error| format!("{place}: {}", e.message()))?;
        check_action(&action, topo, limits).map_err(|m| format!("{place}: {m}"))?;
        out.push((at, action));
    }
    // Stable: equal times keep the file's order (`sched_items` relies on it).
    crate::small_sort::sort_by_key(&mut out, |(t, _)| *t);
    Ok(out)
}

/// One action of a schedule or a session, with where it comes from (for errors).
#[derive(Clone, Debug)]
pub struct Timed<'a> {
    pub at: Micros,
    pub place: String,
    pub action: &'a Action,
    /// Refuse it when it is certainly impossible (scenario faults on their own, recorded
    /// actions). Not strict: a scheduled action that a user's action made impossible, which the
    /// engine skips with a warning, as a person would expect.
    pub strict: bool,
}

/// The parsed faults of one table list with their places (`faults[i]`), in time order.
fn sched_items<'a>(
    tables: &[toml::Table],
    where_: &str,
    parsed: &'a [(Micros, Action)],
) -> Vec<Timed<'a>> {
    // `parse_faults` sorted stably by time: recover each entry's index in the file.
    let mut idx: Vec<(Micros, usize)> = tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let at = match t.get("at") {
                Some(toml::Value::String(s)) => parse_duration(s).unwrap_or(0),
                _ => 0,
            };
            (at, i)
        })
        .collect();
    crate::small_sort::sort_by_key(&mut idx, |x| x.0);
    parsed
        .iter()
        .zip(idx)
        .map(|((at, a), (_, i))| Timed {
            at: *at,
            place: format!("{where_}[{i}]"),
            action: a,
            strict: true,
        })
        .collect()
}

/// What is certainly known of a process at a point of a schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Known {
    Running,
    Stopped,
    /// Stopping, or restarting: the model decides when it exits.
    Unsure,
}

/// Walk the process-state transitions of `items` (in time order; every node runs from time 0)
/// and refuse a strict action that is certainly impossible: starting a running node, killing,
/// stopping or restarting a stopped one, a command on a stopped one. Models exit only after a
/// stop (`Protocol::on_stop`), so only `kill` makes a node certainly stopped and `start` certainly
/// running; after `stop` or `restart` its state is unsure until one of those.
pub fn check_process_states(topo: &Topology, items: &[Timed]) -> Result<(), String> {
    let n = topo.len() as usize;
    let mut st = vec![Known::Running; n];
    let mut why: Vec<String> = vec![String::new(); n];
    // A graceful restart whose start is still to come (a kill meanwhile does not cancel it).
    let mut restarting = vec![false; n];
    for it in items {
        let Some(id) = it.action.node().and_then(|x| topo.id(x)) else {
            continue;
        };
        let i = id as usize;
        let name = topo.name(id);
        let when = fmt_duration(it.at);
        let refuse = |verb: &str, is: &str| {
            Err(format!(
                "{}: cannot {verb} {name} at {when}: it is {is} ({}); a schedule's actions must \
                 be possible in order",
                it.place, why[i]
            ))
        };
        let next = match (it.action, st[i]) {
            (Action::Start { .. }, Known::Running) => Some(refuse("start", "running")),
            (Action::Start { .. }, _) => Some(Ok(Known::Running)),
            (Action::Kill { .. }, Known::Stopped) => Some(refuse("kill", "already stopped")),
            (Action::Kill { .. }, _) => Some(Ok(if restarting[i] {
                Known::Unsure
            } else {
                Known::Stopped
            })),
            (Action::Stop { .. }, Known::Stopped) => Some(refuse("stop", "stopped")),
            (Action::Restart { .. }, Known::Stopped) => Some(refuse("restart", "stopped")),
            (Action::Stop { .. } | Action::Restart { .. }, _) => Some(Ok(Known::Unsure)),
            (Action::Command { command, .. }, Known::Stopped) => Some(refuse(
                &format!("run \"{}\" on", crate::text::clip(command, 40)),
                "stopped",
            )),
            // A stopped node has no threads to stall, delay or release (they start afresh).
            (Action::Stall { executor, .. }, Known::Stopped) => Some(refuse(
                &format!("stall {} on", crate::text::clip(executor, 40)),
                "stopped",
            )),
            (Action::Delay { executor, .. }, Known::Stopped) => Some(refuse(
                &format!("delay {} on", crate::text::clip(executor, 40)),
                "stopped",
            )),
            (Action::Release { executor, .. }, Known::Stopped) => Some(refuse(
                &format!("release {} on", crate::text::clip(executor, 40)),
                "stopped",
            )),
            _ => None,
        };
        match next {
            None => {}
            Some(Err(e)) if it.strict => return Err(e),
            Some(Err(_)) => {} // skipped by the engine: nothing changes
            Some(Ok(k)) => {
                st[i] = k;
                why[i] = format!("{} at {when}", it.action.describe());
                if matches!(it.action, Action::Restart { .. }) {
                    restarting[i] = true;
                } else if matches!(it.action, Action::Start { .. }) {
                    restarting[i] = false;
                }
            }
        }
    }
    Ok(())
}

/// Everything about an action that does not depend on the run's state: names exist, a link joins
/// two different nodes, values are in range (`Limits`). The engine re-checks all of it.
pub fn check_action(a: &Action, topo: &Topology, limits: &Limits) -> Result<(), String> {
    check_action_nodes(a, topo)?;
    let over = |what: &str, d: Micros, max: Micros| {
        Err(format!(
            "{what} {} is above the limit of {}",
            fmt_duration(d),
            fmt_duration(max)
        ))
    };
    match a {
        Action::DropLink { from, to, .. }
        | Action::HealLink { from, to, .. }
        | Action::SetLoss { from, to, .. }
        | Action::SetLatency { from, to, .. }
            if topo.id(from) == topo.id(to) =>
        {
            Err(format!(
                "a link needs two different nodes, got \"{}\" twice",
                crate::text::clip(from, 40)
            ))
        }
        Action::SetLoss { loss, .. } if !loss.is_finite() => Err(format!(
            "loss {loss} is out of range; use a probability from 0.0 to 1.0"
        )),
        Action::SetLatency { max, .. } if max.0 > limits.max_latency_us => {
            over("latency", max.0, limits.max_latency_us)
        }
        Action::Delay { extra, .. } if extra.0 > limits.max_latency_us => {
            over("delay", extra.0, limits.max_latency_us)
        }
        Action::Restart {
            down_for: Some(d), ..
        } if d.0 > limits.max_duration_us => over("down_for", d.0, limits.max_duration_us),
        Action::Partition { groups } => {
            let mut seen = std::collections::BTreeSet::new();
            for name in groups.iter().flatten() {
                if !seen.insert(topo.id(name)) {
                    return Err(format!(
                        "node \"{}\" is in two partition groups",
                        crate::text::clip(name, 40)
                    ));
                }
            }
            if groups.len() < 2 {
                return Err("a partition needs at least two groups".into());
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Names in an action must exist (the engine re-checks state-dependent rules when it applies it).
pub fn check_action_nodes(a: &Action, topo: &Topology) -> Result<(), String> {
    let mut names: Vec<&str> = Vec::new();
    match a {
        Action::DropLink { from, to, .. }
        | Action::HealLink { from, to, .. }
        | Action::SetLoss { from, to, .. }
        | Action::SetLatency { from, to, .. } => {
            names.push(from);
            names.push(to);
        }
        Action::Partition { groups } => names.extend(groups.iter().flatten().map(|s| s.as_str())),
        _ => names.extend(a.node()),
    }
    for n in names {
        topo.resolve(n)?;
    }
    // Value checks that do not depend on the run's state (the engine re-checks them anyway).
    match a {
        Action::SetLoss { loss, .. } if !(0.0..=1.0).contains(loss) => Err(format!(
            "loss {loss} is out of range; use a probability from 0.0 to 1.0"
        )),
        Action::SetLatency { min, max, .. } if min.0 > max.0 => Err(format!(
            "latency min {} is above max {}",
            fmt_duration(min.0),
            fmt_duration(max.0)
        )),
        _ => Ok(()),
    }
}

fn check_expect(
    e: &ExpectSpec,
    topo: &Topology,
    model: &crate::registry::ModelEntry,
    dur: Micros,
) -> Result<(), String> {
    let views = model.views;
    let needs = if GENERIC_VIEWS.contains(&e.view.as_str()) {
        generic_view_needs(&e.view)
    } else if views.contains(&e.view.as_str()) {
        (model.view_needs)(&e.view)
    } else {
        return Err(format!(
            "unknown view `{}`; views: {}, {}",
            crate::text::clip(&e.view, 40),
            GENERIC_VIEWS.join(", "),
            views.join(", ")
        ));
    };
    let missing = [
        (
            needs.node && e.observer.is_none(),
            "`observer = \"<node>\"`",
        ),
        (needs.peer && e.peer.is_none(), "`peer = \"<node>\"`"),
        (needs.key && e.key.is_none(), "`key = \"...\"`"),
        (
            needs.contains && e.contains.is_none(),
            "`contains = \"...\"`",
        ),
    ];
    if let Some((_, what)) = missing.iter().find(|m| m.0) {
        return Err(format!(
            "view `{}` needs {what}; without it the expectation cannot be checked",
            e.view
        ));
    }
    let after_end = |t: &TimeRef, field: &str| {
        match t {
        TimeRef::At(x) if *x > dur => Err(format!(
            "`{field}` {} is after the end of the run ({}); use a time up to the duration or \"end\"",
            fmt_duration(*x),
            fmt_duration(dur)
        )),
        _ => Ok(()),
    }
    };
    if let Some(a) = &e.at {
        after_end(a, "at")?;
    }
    if let Some([a, b]) = &e.during {
        after_end(a, "during")?;
        after_end(b, "during")?;
        if a.resolve(dur) > b.resolve(dur) {
            return Err(format!(
                "`during` window [{}, {}] is reversed; write the start first",
                fmt_duration(a.resolve(dur)),
                fmt_duration(b.resolve(dur))
            ));
        }
    }
    for (field, v) in [("at_least", e.at_least), ("at_most", e.at_most)] {
        if v.is_some_and(|x| !x.is_finite()) {
            return Err(format!(
                "`{field}` is {}; a bound must be a finite number",
                v.unwrap_or_default()
            ));
        }
    }
    if let (Some(lo), Some(hi)) = (e.at_least, e.at_most) {
        if lo > hi {
            return Err(format!(
                "`at_least` {lo} is above `at_most` {hi}: no value can hold"
            ));
        }
    }
    let values = e
        .equals
        .iter()
        .map(|v| ("equals", v))
        .chain(e.not_equals.iter().map(|v| ("not_equals", v)))
        .chain(e.one_of.iter().flatten().map(|v| ("one_of", v)));
    for (field, v) in values {
        if let toml::Value::Float(f) = v {
            if !f.is_finite() {
                return Err(format!("`{field}` holds {f}; use a finite number"));
            }
        }
    }
    if let Some(list) = &e.one_of {
        if list.is_empty() {
            return Err("`one_of = []` can never hold; list the values it may take".into());
        }
        if list.len() > 64 {
            return Err(format!(
                "`one_of` lists {} values; the limit is 64",
                list.len()
            ));
        }
    }
    if e.at.is_some() && e.during.is_some() {
        return Err("use `at` or `during`, not both".into());
    }
    if let Some(w) = e.within {
        let Some(at) = e.at else {
            return Err(
                "`within` counts from `at`: give `at = \"5s\"` (the moment) with \
                 `within = \"2s\"`, not `during`"
                    .into(),
            );
        };
        if w.0 == 0 {
            return Err("`within = \"0s\"`: give a positive time, or drop `within`".into());
        }
        let from = at.resolve(dur);
        if from.saturating_add(w.0) > dur {
            return Err(format!(
                "`within` ends at {} (`at` {} + {}), after the end of the run ({}); shorten it \
                 or lengthen `duration`",
                fmt_duration(from.saturating_add(w.0)),
                fmt_duration(from),
                fmt_duration(w.0),
                fmt_duration(dur)
            ));
        }
        if e.increases.is_some() {
            return Err("`increases` compares two ends; it takes `during`, not `within`".into());
        }
    }
    let cmps = [
        e.equals.is_some(),
        e.one_of.is_some(),
        e.not_equals.is_some(),
        e.at_least.is_some() || e.at_most.is_some(),
        e.increases.is_some(),
    ];
    if cmps.iter().filter(|x| **x).count() != 1 {
        return Err(
            "give exactly one check: `equals`, `one_of`, `not_equals`, `at_least`/`at_most` \
             (both: a range), or `increases = true`"
                .into(),
        );
    }
    if e.increases.is_some() && e.during.is_none() {
        return Err("`increases` needs a `during = [from, to]` window".into());
    }
    check_node_refs(e, &needs, topo, model)?;
    views::check_against(e, &needs, topo)?;
    if e.view == "log" && e.contains.is_none() {
        return Err("a `log` expectation needs `contains = \"...\"`".into());
    }
    match (&e.chance, &e.source) {
        (Some(_), None) => {
            return Err(
                "`chance` needs `source = \"...\"`: where the figure comes from (the ticket's \
                 words, arithmetic, a sweep of N seeds)"
                    .into(),
            )
        }
        (None, Some(_)) => {
            return Err(
                "`source` says where a `chance` comes from; give `chance = \"40%..70%\"` too, \
                 or remove `source`"
                    .into(),
            )
        }
        (Some(c), Some(src)) => {
            if src.trim().is_empty() {
                return Err("`source` is empty; say where the chance comes from".into());
            }
            if c.lo_pct >= Chance::ALWAYS.lo_pct {
                return Err(format!(
                    "`chance = \"{}\"`: an expectation that holds on (nearly) every seed needs \
                     no `chance`; remove it (and `source`)",
                    c.text()
                ));
            }
        }
        (None, None) => {}
    }
    Ok(())
}

/// `observer` and `peer`: nodes, sets (with `nodes`) or `"leader"` (a model with a leader).
fn check_node_refs(
    e: &ExpectSpec,
    needs: &crate::model::ViewNeeds,
    topo: &Topology,
    model: &crate::registry::ModelEntry,
) -> Result<(), String> {
    use noderef::{NodeRef, Quant};
    let mut sets = Vec::new();
    let _ = needs;
    for (field, name) in [("observer", &e.observer), ("peer", &e.peer)] {
        let Some(text) = name else { continue };
        let r = NodeRef::parse(text, topo).map_err(|m| format!("{field}: {m}"))?;
        if r == NodeRef::Leader && !model.has_leader {
            return Err(format!(
                "{field} = \"leader\": the {} model has no leader; name a node",
                model.name
            ));
        }
        if r != NodeRef::Leader && !r.is_set() {
            continue;
        }
        if e.increases.is_some() {
            return Err(format!(
                "{field} = \"{}\": `increases` compares one node's value at two times; name \
                 one node",
                crate::text::clip(text, 40)
            ));
        }
        if r.is_set() {
            sets.push(field);
        }
    }
    match (sets.len(), &e.nodes) {
        (0, Some(q)) => Err(format!(
            "`nodes = \"{}\"` is for a set of nodes (`observer = \"n4..n7\"`); with one node \
             remove it",
            crate::text::clip(q, 20)
        )),
        (1, None) => Err(format!(
            "{} names a set of nodes; say how many must hold: `nodes = \"any\"`, \"all\" or \
             \"none\"",
            sets[0]
        )),
        (2, _) => Err(
            "observer and peer are both sets; only one may be (name one node in the other)".into(),
        ),
        (_, Some(q)) => Quant::parse(q).map(|_| ()),
        _ => Ok(()),
    }
}

/// Resolve an optional node name (validated at load): `None` for a set or `"leader"`.
pub fn node_of(topo: &Topology, name: &Option<String>) -> Option<NodeId> {
    name.as_ref().and_then(|n| topo.id(n))
}

/// Merge parameter tables: later ones win, key by key.
pub fn merge_params(layers: &[&toml::Table]) -> toml::Table {
    let mut out = toml::Table::new();
    for l in layers {
        for (k, v) in l.iter() {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

/// Parse a `--set key=value` override: the value as TOML if it parses, else as a string.
pub fn parse_override(s: &str) -> Result<(String, toml::Value), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("--set \"{s}\": expected key=value, e.g. echo=fixed"))?;
    let k = k.trim();
    if k.is_empty() {
        return Err(format!("--set \"{s}\": the key is empty"));
    }
    let v = v.trim();
    let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(v.to_string()));
    Ok((k.to_string(), value))
}
