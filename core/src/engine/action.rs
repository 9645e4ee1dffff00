//! Faults and user actions: one vocabulary for the scenario's schedule, the web app's buttons and
//! the permalink. Nodes are named, so an action log reads like an incident timeline.

use crate::time::{fmt_duration, parse_duration, Micros};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

mod de;
pub use de::typed_action;

/// A duration written as text in files and URLs ("10s", "250ms").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Dur(pub Micros);

impl Serialize for Dur {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&fmt_duration(self.0))
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration string such as \"10s\", \"250ms\" or \"2m\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Dur, E> {
                parse_duration(v).map(Dur).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Dur, E> {
                Err(E::custom(format!(
                    "duration {v} has no unit; write it as a string such as \"{v}s\" or \"{v}ms\""
                )))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Dur, E> {
                self.visit_i64(v as i64)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Dur, E> {
                Err(E::custom(format!(
                    "duration {v} has no unit; write it as a string such as \"{v}s\""
                )))
            }
        }
        d.deserialize_any(V)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Deserialized by hand in `de` (the same input and errors as a derive, a fraction of the code).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Action {
    /// Drop every message from `from` to `to` (and back, unless `one_way`); with `down_for`, a
    /// timed cut: at `at + down_for` the links it cut come back up ([`Action::cut_for`]).
    DropLink {
        from: String,
        to: String,
        #[serde(default, skip_serializing_if = "is_false")]
        one_way: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        down_for: Option<Dur>,
    },
    /// Restore the link(s) to the scenario's default condition.
    HealLink {
        from: String,
        to: String,
        #[serde(default, skip_serializing_if = "is_false")]
        one_way: bool,
    },
    /// Lose each message with probability `loss` (0..=1).
    SetLoss {
        from: String,
        to: String,
        loss: f64,
        #[serde(default, skip_serializing_if = "is_false")]
        one_way: bool,
    },
    SetLatency {
        from: String,
        to: String,
        min: Dur,
        max: Dur,
        #[serde(default, skip_serializing_if = "is_false")]
        one_way: bool,
    },
    /// Cut every link between different groups; links inside a group are untouched. With
    /// `down_for`, a timed cut (as for `DropLink`).
    Partition {
        groups: Vec<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        down_for: Option<Dur>,
    },
    /// Every link back to the scenario default.
    HealAll {},
    /// Graceful stop (the protocol's shutdown sequence runs).
    Stop {
        node: String,
    },
    /// kill -9: the process is gone at once, nothing is announced.
    Kill {
        node: String,
    },
    Start {
        node: String,
    },
    /// Stop (gracefully, or kill -9 with `kill = true`) and start again `down_for` after it stopped.
    Restart {
        node: String,
        #[serde(default, skip_serializing_if = "is_false")]
        kill: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        down_for: Option<Dur>,
    },
    /// The executor takes no new task until released.
    Stall {
        node: String,
        executor: String,
    },
    /// Every task on the executor takes `extra` longer.
    Delay {
        node: String,
        executor: String,
        extra: Dur,
    },
    /// Undo stall and delay.
    Release {
        node: String,
        executor: String,
    },
    /// A protocol command, e.g. `disablegossip`, `enablegossip`, `settimeout misc 30000`.
    Command {
        node: String,
        command: String,
    },
    /// A fork's counterfactual about one message, by its id (`#msg` in the trace), decided before
    /// it is sent: deliver it although its link drops it (down or lossy), drop it, or delay it.
    /// Applied at (or before) the step that sends it; an id already sent is refused.
    Message {
        msg: u64,
        fate: MsgFate,
    },
}

/// What a fork does with one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fate", rename_all = "kebab-case", deny_unknown_fields)]
pub enum MsgFate {
    /// Delivered whatever its link says (a stopped or restarted destination still loses it).
    Deliver,
    /// Dropped when sent.
    Drop,
    /// Delivered `by` later than its link's latency says (unless its link drops it).
    Delay { by: Dur },
}

/// A partition group of more names than this is described by its first few and a count.
pub const GROUP_NAMES_SHOWN: usize = 12;

impl Action {
    /// How long a timed cut keeps its links down (`down_for` of a `drop-link` or `partition`):
    /// one action that starts a cut and ends it. At `at + down_for` the engine sets back up
    /// exactly the links this action cut that no later action has cut or healed since (a later
    /// `drop-link`, `partition`, `heal-link` or `heal-all` on a link takes it over; `set-loss`
    /// and `set-latency` do not, and what they set stays). `None` for every other action.
    pub fn cut_for(&self) -> Option<Dur> {
        match self {
            Action::DropLink { down_for, .. } | Action::Partition { down_for, .. } => *down_for,
            _ => None,
        }
    }

    /// The node this action is about, when there is one (for the timeline and the topology).
    pub fn node(&self) -> Option<&str> {
        match self {
            Action::Stop { node }
            | Action::Kill { node }
            | Action::Start { node }
            | Action::Restart { node, .. }
            | Action::Stall { node, .. }
            | Action::Delay { node, .. }
            | Action::Release { node, .. }
            | Action::Command { node, .. } => Some(node),
            Action::DropLink { from, .. }
            | Action::HealLink { from, .. }
            | Action::SetLoss { from, .. }
            | Action::SetLatency { from, .. } => Some(from),
            Action::Partition { .. } | Action::HealAll {} | Action::Message { .. } => None,
        }
    }

    /// One line for timelines and logs.
    pub fn describe(&self) -> String {
        let dir = |one_way: bool| if one_way { "->" } else { "<->" };
        let cut_for = |d: &Option<Dur>| {
            d.map(|d| format!(" for {}", fmt_duration(d.0)))
                .unwrap_or_default()
        };
        match self {
            Action::DropLink {
                from,
                to,
                one_way,
                down_for,
            } => format!("drop {from}{}{to}{}", dir(*one_way), cut_for(down_for)),
            Action::HealLink { from, to, one_way } => format!("heal {from}{}{to}", dir(*one_way)),
            Action::SetLoss {
                from,
                to,
                loss,
                one_way,
            } => {
                format!("loss {:.1}% on {from}{}{to}", loss * 100.0, dir(*one_way))
            }
            Action::SetLatency {
                from,
                to,
                min,
                max,
                one_way,
            } => format!(
                "latency {}..{} on {from}{}{to}",
                fmt_duration(min.0),
                fmt_duration(max.0),
                dir(*one_way)
            ),
            Action::Partition { groups, down_for } => {
                // A large group (a node cut off from the other 250) named by its first few.
                let g: Vec<String> = groups
                    .iter()
                    .map(|g| match g.len() {
                        n if n > GROUP_NAMES_SHOWN => format!(
                            "[{},… {} more]",
                            g[..GROUP_NAMES_SHOWN - 2].join(","),
                            n - (GROUP_NAMES_SHOWN - 2)
                        ),
                        _ => format!("[{}]", g.join(",")),
                    })
                    .collect();
                format!("partition {}{}", g.join(" | "), cut_for(down_for))
            }
            Action::HealAll {} => "heal all links".into(),
            Action::Stop { node } => format!("stop {node} (graceful)"),
            Action::Kill { node } => format!("kill -9 {node}"),
            Action::Start { node } => format!("start {node}"),
            Action::Restart {
                node,
                kill,
                down_for,
            } => format!(
                "restart {node} ({}{})",
                if *kill { "kill -9" } else { "graceful" },
                down_for
                    .map(|d| format!(", down {}", fmt_duration(d.0)))
                    .unwrap_or_default()
            ),
            Action::Stall { node, executor } => format!("stall {node}/{executor}"),
            Action::Delay {
                node,
                executor,
                extra,
            } => {
                format!(
                    "delay {node}/{executor} +{} per task",
                    fmt_duration(extra.0)
                )
            }
            Action::Release { node, executor } => format!("release {node}/{executor}"),
            Action::Command { node, command } => format!("nodetool {command} on {node}"),
            Action::Message { msg, fate } => match fate {
                MsgFate::Deliver => format!("fork: deliver message #{msg}"),
                MsgFate::Drop => format!("fork: drop message #{msg}"),
                MsgFate::Delay { by } => {
                    format!("fork: delay message #{msg} by {}", fmt_duration(by.0))
                }
            },
        }
    }
}

/// Where an applied action came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionSource {
    /// The scenario's fault schedule.
    Schedule,
    /// A person, interactively (recorded with the step it was applied at).
    User,
}

/// An action as it was applied, for the timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AppliedAction {
    pub step: u64,
    pub time: Micros,
    pub source: ActionSource,
    pub action: Action,
}

/// A user action recorded for exact replay: applied when the engine has processed `step` steps.
/// Deserialized in `de`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecordedAction {
    pub step: u64,
    pub at: Dur,
    #[serde(flatten)]
    pub action: Action,
}

/// A timed cut's `down_for` (`drop-link`, `partition`): above 0 and within the scenario's
/// duration limit, as a restart's. The scenario file checks it (`scenario_file::check_action`)
/// and the engine again when it applies one (`Sim::apply_action`).
pub fn check_cut_for(d: Micros, max: Micros) -> Result<(), String> {
    if d == 0 {
        return Err(
            "a cut with down_for = \"0s\" ends as it starts: give it a duration \
                    (down_for = \"1s\"), or leave down_for out for a cut that lasts until a heal"
                .into(),
        );
    }
    if d > max {
        return Err(format!(
            "down_for {} is above the limit of {} (the scenario's duration limit)",
            fmt_duration(d),
            fmt_duration(max)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_round_trip_and_unknown_fields() {
        let a: Action =
            toml::from_str("action = \"drop-link\"\nfrom = \"A\"\nto = \"B\"\n").unwrap();
        assert_eq!(
            a,
            Action::DropLink {
                from: "A".into(),
                to: "B".into(),
                one_way: false,
                down_for: None,
            }
        );
        let text = toml::to_string(&a).unwrap();
        assert_eq!(toml::from_str::<Action>(&text).unwrap(), a);
        let e =
            toml::from_str::<Action>("action = \"drop-link\"\nfrom = \"A\"\nto = \"B\"\nfrm = 1\n")
                .unwrap_err()
                .to_string();
        assert!(e.contains("unknown field `frm`"), "{e}");
        let e = toml::from_str::<Action>("action = \"explode\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown variant `explode`") && e.contains("drop-link"),
            "{e}"
        );
    }

    /// One of each variant, with every optional field set where it has one.
    fn every_variant() -> Vec<Action> {
        let s = |x: &str| x.to_string();
        vec![
            Action::DropLink {
                from: s("A"),
                to: s("B"),
                one_way: true,
                down_for: None,
            },
            Action::HealLink {
                from: s("A"),
                to: s("B"),
                one_way: false,
            },
            Action::SetLoss {
                from: s("A"),
                to: s("B"),
                loss: 0.25,
                one_way: true,
            },
            Action::SetLatency {
                from: s("A"),
                to: s("B"),
                min: Dur(1_000),
                max: Dur(2_000_000),
                one_way: false,
            },
            Action::Partition {
                groups: vec![vec![s("A"), s("B")], vec![s("C")]],
                down_for: None,
            },
            Action::HealAll {},
            Action::Stop { node: s("A") },
            Action::Kill { node: s("A") },
            Action::Start { node: s("A") },
            Action::Restart {
                node: s("A"),
                kill: true,
                down_for: Some(Dur(30_000_000)),
            },
            Action::Restart {
                node: s("A"),
                kill: false,
                down_for: None,
            },
            Action::Stall {
                node: s("A"),
                executor: s("GossipStage"),
            },
            Action::Delay {
                node: s("A"),
                executor: s("GossipStage"),
                extra: Dur(5_000),
            },
            Action::Release {
                node: s("A"),
                executor: s("GossipStage"),
            },
            Action::Command {
                node: s("A"),
                command: s("disablegossip"),
            },
            Action::Message {
                msg: 7,
                fate: MsgFate::Deliver,
            },
            Action::Message {
                msg: 8,
                fate: MsgFate::Delay { by: Dur(100_000) },
            },
        ]
    }

    #[test]
    fn every_variant_round_trips_in_toml_and_json() {
        for (i, a) in every_variant().into_iter().enumerate() {
            let t = toml::to_string(&a).unwrap();
            assert_eq!(toml::from_str::<Action>(&t).unwrap(), a, "{t}");
            let j = serde_json::to_string(&a).unwrap();
            assert_eq!(serde_json::from_str::<Action>(&j).unwrap(), a, "{j}");
            let r = RecordedAction {
                step: 10 + i as u64,
                at: Dur(3_000_000),
                action: a,
            };
            let j = serde_json::to_string(&r).unwrap();
            assert_eq!(
                serde_json::from_str::<RecordedAction>(&j).unwrap(),
                r,
                "{j}"
            );
            let t = toml::to_string(&r).unwrap();
            assert_eq!(toml::from_str::<RecordedAction>(&t).unwrap(), r, "{t}");
        }
    }

    #[test]
    fn fields_of_another_variant_or_of_a_recording_are_refused() {
        let err = |text: &str| toml::from_str::<Action>(text).unwrap_err().to_string();
        let e = err("action = \"stop\"\nnode = \"A\"\nexecutor = \"X\"\n");
        assert!(
            e.contains("unknown field `executor`, expected `node`"),
            "{e}"
        );
        let e = err("action = \"stop\"\nnode = \"A\"\nstep = 3\n");
        assert!(e.contains("unknown field `step`"), "{e}");
        let e = err("action = \"heal-all\"\nnode = \"A\"\n");
        assert!(e.contains("unknown field `node`"), "{e}");
        let e = err("action = \"delay\"\nnode = \"A\"\nexecutor = \"X\"\n");
        assert!(e.contains("missing field `extra`"), "{e}");
        let e = err("node = \"A\"\n");
        assert!(e.contains("missing field `action`"), "{e}");
        let e = serde_json::from_str::<RecordedAction>(r#"{"at":"1s","action":"stop","node":"A"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing field `step`"), "{e}");
        let e = serde_json::from_str::<Action>(
            r#"{"action":"message","msg":1,"fate":{"fate":"lose"}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("unknown variant `lose`"), "{e}");
    }

    #[test]
    fn durations_need_units() {
        let e = toml::from_str::<Action>(
            "action = \"delay\"\nnode = \"A\"\nexecutor = \"GossipStage\"\nextra = 5\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("has no unit"), "{e}");
    }

    #[test]
    fn a_large_partition_group_is_named_by_its_first_few() {
        let others: Vec<String> = (1..251).map(|i| format!("n{i}")).collect();
        let isolate = Action::Partition {
            groups: vec![vec!["n0".into()], others],
            down_for: Some(Dur(2_000_000)),
        };
        assert_eq!(
            isolate.describe(),
            "partition [n0] | [n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,… 240 more] for 2s"
        );
        let twelve: Vec<String> = (0..12).map(|i| format!("n{i}")).collect();
        let small = Action::Partition {
            groups: vec![twelve, vec!["x".into()]],
            down_for: None,
        };
        assert_eq!(
            small.describe(),
            "partition [n0,n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11] | [x]"
        );
    }
}
