//! Reading [`Action`] and [`RecordedAction`] through one flat struct.
//!
//! `#[derive(Deserialize)]` on an internally tagged enum (`action = "drop-link"`) buffers every
//! table into serde's `Content` and builds a visitor per variant; with `#[serde(flatten)]` in
//! `RecordedAction` on top, and once per format (TOML scenarios, JSON sessions and sweep plans),
//! that was the largest function of the web app's wasm (67 KB). Here one map visitor fills a
//! struct of options (the first unknown key kept aside) and a non-generic check builds the
//! variant: the same accepted input and the same errors (unknown variant, unknown field with the
//! variant's fields, missing field), 21 KB less of the gzipped download (docs/PERFORMANCE.md,
//! "Download size and load").

use super::{Action, Dur, MsgFate, RecordedAction};
use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;

/// Every field any action has (and a recorded action's `step` and `at`); `unknown` is the first
/// field of none of them, refused once the variant is known (so the error lists that variant's
/// fields, as the derive did).
#[derive(Default)]
struct Raw {
    action: Option<String>,
    unknown: Option<String>,
    step: Option<u64>,
    at: Option<Dur>,
    from: Option<String>,
    to: Option<String>,
    one_way: Option<bool>,
    loss: Option<f64>,
    min: Option<Dur>,
    max: Option<Dur>,
    groups: Option<Vec<Vec<String>>>,
    node: Option<String>,
    kill: Option<bool>,
    down_for: Option<Dur>,
    executor: Option<String>,
    extra: Option<Dur>,
    command: Option<String>,
    msg: Option<u64>,
    fate: Option<MsgFate>,
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an action (a table with `action = \"...\"`)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Raw, A::Error> {
                fn set<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
                    m: &mut A,
                    slot: &mut Option<T>,
                    name: &'static str,
                ) -> Result<(), A::Error> {
                    if slot.is_some() {
                        return Err(A::Error::duplicate_field(name));
                    }
                    *slot = Some(m.next_value()?);
                    Ok(())
                }
                let mut r = Raw::default();
                while let Some(key) = m.next_key::<String>()? {
                    match key.as_str() {
                        "action" => set(&mut m, &mut r.action, "action")?,
                        "step" => set(&mut m, &mut r.step, "step")?,
                        "at" => set(&mut m, &mut r.at, "at")?,
                        "from" => set(&mut m, &mut r.from, "from")?,
                        "to" => set(&mut m, &mut r.to, "to")?,
                        "one_way" => set(&mut m, &mut r.one_way, "one_way")?,
                        "loss" => set(&mut m, &mut r.loss, "loss")?,
                        "min" => set(&mut m, &mut r.min, "min")?,
                        "max" => set(&mut m, &mut r.max, "max")?,
                        "groups" => set(&mut m, &mut r.groups, "groups")?,
                        "node" => set(&mut m, &mut r.node, "node")?,
                        "kill" => set(&mut m, &mut r.kill, "kill")?,
                        "down_for" => set(&mut m, &mut r.down_for, "down_for")?,
                        "executor" => set(&mut m, &mut r.executor, "executor")?,
                        "extra" => set(&mut m, &mut r.extra, "extra")?,
                        "command" => set(&mut m, &mut r.command, "command")?,
                        "msg" => set(&mut m, &mut r.msg, "msg")?,
                        "fate" => set(&mut m, &mut r.fate, "fate")?,
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                            r.unknown.get_or_insert(key);
                        }
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_map(V)
    }
}

/// The variants' names (serde's kebab-case of `Action`'s variants) and their fields.
const VARIANTS: &[(&str, &[&str])] = &[
    ("drop-link", &["from", "to", "one_way", "down_for"]),
    ("heal-link", &["from", "to", "one_way"]),
    ("set-loss", &["from", "to", "loss", "one_way"]),
    ("set-latency", &["from", "to", "min", "max", "one_way"]),
    ("partition", &["groups", "down_for"]),
    ("heal-all", &[]),
    ("stop", &["node"]),
    ("kill", &["node"]),
    ("start", &["node"]),
    ("restart", &["node", "kill", "down_for"]),
    ("stall", &["node", "executor"]),
    ("delay", &["node", "executor", "extra"]),
    ("release", &["node", "executor"]),
    ("command", &["node", "command"]),
    ("message", &["msg", "fate"]),
];

/// serde's wording for "one of these names" (`a`, `b`, or `c`... as its `Error` helpers write it).
fn one_of(names: &[&str]) -> String {
    match names {
        [] => "there are no fields".into(),
        [a] => format!("expected `{a}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        _ => {
            let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            format!("expected one of {}", list.join(", "))
        }
    }
}

impl Raw {
    /// The action it describes; `recorded` allows `step` and `at` (checked by the caller).
    fn into_action(self, recorded: bool) -> Result<Action, String> {
        let action = self.action.ok_or("missing field `action`")?;
        let Some(&(_, fields)) = VARIANTS.iter().find(|(n, _)| *n == action) else {
            let names: Vec<&str> = VARIANTS.iter().map(|(n, _)| *n).collect();
            return Err(format!("unknown variant `{}`, {}", action, one_of(&names)));
        };
        let present = [
            ("step", self.step.is_some() && !recorded),
            ("at", self.at.is_some() && !recorded),
            ("from", self.from.is_some()),
            ("to", self.to.is_some()),
            ("one_way", self.one_way.is_some()),
            ("loss", self.loss.is_some()),
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("groups", self.groups.is_some()),
            ("node", self.node.is_some()),
            ("kill", self.kill.is_some()),
            ("down_for", self.down_for.is_some()),
            ("executor", self.executor.is_some()),
            ("extra", self.extra.is_some()),
            ("command", self.command.is_some()),
            ("msg", self.msg.is_some()),
            ("fate", self.fate.is_some()),
        ];
        if let Some(name) = &self.unknown {
            return Err(format!("unknown field `{name}`, {}", one_of(fields)));
        }
        if let Some((name, _)) = present
            .iter()
            .find(|(name, set)| *set && !fields.contains(name))
        {
            return Err(format!("unknown field `{name}`, {}", one_of(fields)));
        }
        fn req<T>(v: Option<T>, name: &str) -> Result<T, String> {
            v.ok_or_else(|| format!("missing field `{name}`"))
        }
        let one_way = self.one_way.unwrap_or(false);
        Ok(match action.as_str() {
            "drop-link" => Action::DropLink {
                from: req(self.from, "from")?,
                to: req(self.to, "to")?,
                one_way,
                down_for: self.down_for,
            },
            "heal-link" => Action::HealLink {
                from: req(self.from, "from")?,
                to: req(self.to, "to")?,
                one_way,
            },
            "set-loss" => Action::SetLoss {
                from: req(self.from, "from")?,
                to: req(self.to, "to")?,
                loss: req(self.loss, "loss")?,
                one_way,
            },
            "set-latency" => Action::SetLatency {
                from: req(self.from, "from")?,
                to: req(self.to, "to")?,
                min: req(self.min, "min")?,
                max: req(self.max, "max")?,
                one_way,
            },
            "partition" => Action::Partition {
                groups: req(self.groups, "groups")?,
                down_for: self.down_for,
            },
            "heal-all" => Action::HealAll {},
            "stop" => Action::Stop {
                node: req(self.node, "node")?,
            },
            "kill" => Action::Kill {
                node: req(self.node, "node")?,
            },
            "start" => Action::Start {
                node: req(self.node, "node")?,
            },
            "restart" => Action::Restart {
                node: req(self.node, "node")?,
                kill: self.kill.unwrap_or(false),
                down_for: self.down_for,
            },
            "stall" => Action::Stall {
                node: req(self.node, "node")?,
                executor: req(self.executor, "executor")?,
            },
            "delay" => Action::Delay {
                node: req(self.node, "node")?,
                executor: req(self.executor, "executor")?,
                extra: req(self.extra, "extra")?,
            },
            "release" => Action::Release {
                node: req(self.node, "node")?,
                executor: req(self.executor, "executor")?,
            },
            "command" => Action::Command {
                node: req(self.node, "node")?,
                command: req(self.command, "command")?,
            },
            "message" => Action::Message {
                msg: req(self.msg, "msg")?,
                fate: req(self.fate, "fate")?,
            },
            _ => unreachable!("every name of VARIANTS has an arm"),
        })
    }

    fn into_recorded(mut self) -> Result<RecordedAction, String> {
        let step = self.step.take().ok_or("missing field `step`")?;
        let at = self.at.take().ok_or("missing field `at`")?;
        Ok(RecordedAction {
            step,
            at,
            action: self.into_action(true)?,
        })
    }
}

/// An action of a scenario's `[[faults]]` (its `at` taken off) read by hand, as its deserializer
/// reads it, for the plain case: every key a field of a fault's action, every value of the
/// field's type, a known variant with its fields; `None` otherwise, and the caller asks serde,
/// whose words a refusal keeps (`scenario_file::schedule::parse_faults`; issue 44: toml's `Value`
/// deserializer for `Raw` is in the split build's scenario reader part). `faults_typed_like_serde`.
pub fn typed_action(t: &toml::Table) -> Option<Action> {
    use crate::typed::{bool_, dur, float, string, string_lists};
    let mut r = Raw::default();
    for (k, v) in t {
        match k.as_str() {
            "action" => r.action = Some(string(v)?),
            "from" => r.from = Some(string(v)?),
            "to" => r.to = Some(string(v)?),
            "one_way" => r.one_way = Some(bool_(v)?),
            "loss" => r.loss = Some(float(v)?),
            "min" => r.min = Some(Dur(dur(v)?)),
            "max" => r.max = Some(Dur(dur(v)?)),
            "groups" => r.groups = Some(string_lists(v)?),
            "node" => r.node = Some(string(v)?),
            "kill" => r.kill = Some(bool_(v)?),
            "down_for" => r.down_for = Some(Dur(dur(v)?)),
            "executor" => r.executor = Some(string(v)?),
            "extra" => r.extra = Some(Dur(dur(v)?)),
            "command" => r.command = Some(string(v)?),
            _ => return None,
        }
    }
    r.into_action(false).ok()
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Raw::deserialize(d)?
            .into_action(false)
            .map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for RecordedAction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Raw::deserialize(d)?
            .into_recorded()
            .map_err(serde::de::Error::custom)
    }
}
