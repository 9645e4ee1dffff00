//! Scenario files (TOML): the cluster, parameters, variants, the fault schedule, expectations and
//! captions. Every error names the file, the place (line:column or field) and what would be valid.
//!
//! Below the models (a model is built from a [`Scenario`]): the parser checks expectations against
//! the model table it is given ([`ModelVocab`]). `crate::scenario`, above the registry, re-exports
//! all of this and adds `Scenario::parse` against the registered models and the built-in files.

use crate::engine::action::{Action, Dur};
use crate::engine::{NodeId, Topology};
use crate::limits::Limits;
use crate::query::ViewNeeds;
use crate::time::{fmt_duration, parse_duration, Micros};
use serde::{Deserialize, Serialize};
use std::fmt;

mod cluster;
mod expect;
mod nesting;
pub mod noderef;
mod reading;
mod schedule;
pub mod start;
mod views;

pub use crate::engine::action::check_cut_for;
use cluster::build_topology;
use expect::check_expect;
use reading::{clean_toml_error, split_section};
pub use schedule::{check_action, check_action_nodes, check_process_states, Timed};
use schedule::{parse_faults, sched_items};
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
            (Some(v), ..) => format!(" = {}", show(v)),
            _ if self.one_of.is_some() => format!(
                " one of {}",
                self.one_of
                    .iter()
                    .flatten()
                    .map(show)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ if self.not_equals.is_some() => format!(
                " != {}",
                self.not_equals.as_ref().map(show).unwrap_or_default()
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

/// What the parser checks a scenario's expectations against: one model's vocabulary. The
/// registry hands the parser one per model (`ModelEntry::vocab`): the registry sits above the
/// models, which are built from a [`Scenario`], so the parser never asks it.
#[derive(Clone, Copy, Debug)]
pub struct ModelVocab {
    /// The `protocol` it answers to.
    pub name: &'static str,
    /// Its views (`Model::VIEWS`).
    pub views: &'static [&'static str],
    /// What each view needs (`Model::view_needs`).
    pub view_needs: fn(&str) -> ViewNeeds,
    /// `Model::HAS_LEADER`: an expectation may name `"leader"` as its node.
    pub has_leader: bool,
}

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

    /// Parse and validate TOML text against `models` (the registry's table: `Scenario::parse`
    /// in `scenario` passes every registered model). `file` names the source in errors.
    pub fn parse_in(
        models: &[ModelVocab],
        file: &str,
        text: &str,
        limits: &Limits,
    ) -> Result<Scenario, ScenarioError> {
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
        let mut sc = Self::from_raw_in(models, file, raw, limits)?;
        sc.section = section;
        Ok(sc)
    }

    /// The scenario as TOML text (the model's section included): what an export writes. Called
    /// through `Scenario::to_toml` (`crate::scenario`: in the web app's split release build the
    /// writer is a part of the wasm).
    pub(crate) fn to_toml_now(&self, raw: &ScenarioFile) -> Result<String, String> {
        let mut t = toml::Table::try_from(raw).map_err(|e| e.to_string())?;
        if let Some(sec) = &self.section {
            t.insert(raw.protocol.clone(), toml::Value::Table(sec.clone()));
        }
        toml::to_string(&t).map_err(|e| e.to_string())
    }

    /// Validate a parsed file against `models` (see [`Scenario::parse_in`]).
    pub fn from_raw_in(
        models: &[ModelVocab],
        file: &str,
        raw: ScenarioFile,
        limits: &Limits,
    ) -> Result<Scenario, ScenarioError> {
        let err = |msg: String| ScenarioError {
            file: file.to_string(),
            msg,
        };
        let Some(model) = models.iter().find(|m| m.name == raw.protocol) else {
            return Err(err(format!(
                "protocol: \"{}\" is not modelled; use one of: {}",
                raw.protocol,
                models.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
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

/// A value as a person writes it: strings without quotes.
pub fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => toml_text(other),
    }
}

/// A value as toml's `Display` writes it (`v.to_string()`), written with `toml_writer` alone:
/// toml's `Display` goes through its serde `ValueSerializer`, which the first download then
/// carries (issue 44, download-parts.md). Strings and keys are quoted by `toml_writer` as toml
/// quotes them; arrays `[a, b]`, tables `{ k = v }`, a NaN without its sign, as toml writes
/// them. `toml_text_is_display` holds the two equal.
pub fn toml_text(v: &toml::Value) -> String {
    let mut out = String::new();
    write_toml(&mut out, v);
    out
}

fn write_toml(out: &mut String, v: &toml::Value) {
    use std::fmt::Write as _;
    use toml_writer::TomlWrite as _;
    let _ = match v {
        toml::Value::String(s) => out.value(s.as_str()),
        toml::Value::Integer(i) => out.value(*i),
        toml::Value::Float(f) => out.value(if f.is_nan() { f64::NAN } else { *f }),
        toml::Value::Boolean(b) => out.value(*b),
        toml::Value::Datetime(d) => write!(out, "{d}"),
        toml::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_toml(out, item);
            }
            out.push(']');
            Ok(())
        }
        toml::Value::Table(t) => {
            out.push('{');
            for (i, (k, item)) in t.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push(' ');
                let _ = out.key(k.as_str());
                out.push_str(" = ");
                write_toml(out, item);
            }
            if !t.is_empty() {
                out.push(' ');
            }
            out.push('}');
            Ok(())
        }
    };
}

#[cfg(test)]
mod toml_text_tests;
