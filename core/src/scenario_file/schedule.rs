//! The fault schedule: parsing `[[faults]]` tables, the actions checked against the cluster and
//! the limits, and the process states a schedule leads to (starting a running node, killing a
//! stopped one... refused at load).

use super::*;

pub(super) fn parse_faults(
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
                    "{place}.at: expected a duration string such as \"30s\", got {}",
                    super::toml_text(&other)
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
        // Read by hand when it is the plain case (the default scenario's faults, in the main
        // module of the split build), else by serde (the words of a refusal).
        let action = match crate::engine::action::typed_action(&t) {
            Some(a) => a,
            None => by_serde::action(t).map_err(|e| format!("{place}: {e}"))?,
        };
        check_action(&action, topo, limits).map_err(|m| format!("{place}: {m}"))?;
        out.push((at, action));
    }
    // Stable: equal times keep the file's order (`sched_items` relies on it).
    crate::small_sort::sort_by_key(&mut out, |(t, _)| *t);
    Ok(out)
}

/// serde's reading of a fault: `Action`'s deserializer, the words of every refusal.
fn serde_action(t: toml::Table) -> Result<Action, String> {
    toml::Value::Table(t)
        .try_into()
        .map_err(|e: toml::de::Error| e.message().to_string())
}

/// serde's reading called directly: every build but the web app's split release build.
#[cfg(not(cs_split))]
mod by_serde {
    pub fn action(t: toml::Table) -> Result<crate::engine::action::Action, String> {
        super::serde_action(t)
    }
}

/// serde's reading behind a split point of the scenario reader's part (`reader`): polled as a
/// model's is (`crate::lazy`); while the part is not loaded, an error and the reader wanted.
#[cfg(cs_split)]
mod by_serde {
    use crate::engine::action::Action;

    crate::lazy::reader_fn!(pub fn action -> Action = super::serde_action, via faults_serde,
        else crate::lazy::READER_NOT_LOADED.to_string());
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
pub(super) fn sched_items<'a>(
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
    if let Some(d) = a.cut_for() {
        check_cut_for(d.0, limits.max_duration_us)?;
    }
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
        Action::Partition { groups, .. } => {
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
        Action::Partition { groups, .. } => {
            names.extend(groups.iter().flatten().map(|s| s.as_str()))
        }
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
