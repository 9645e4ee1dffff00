//! The oracle of `properties.rs`: which actions the engine must refuse, written from the
//! documented rules.

use super::*;
use std::collections::HashSet;

/// Why the engine must refuse `a` now, or `None` when it must accept it. Written from the
/// documented rules (engine/action.rs, gossip `on_command`), independently of the engine code.
pub(super) fn must_refuse(run: &Run, a: &Action) -> Option<&'static str> {
    let sim = run.sim_of::<Gossip>().unwrap();
    let topo = &sim.topo;
    let limits = Limits::default();
    let id = |n: &str| topo.id(n);
    let status = |n: &str| id(n).map(|i| sim.nodes[i as usize].status);
    let exec_ok = |e: &str| {
        sim.proto
            .executors()
            .iter()
            .any(|x| x.eq_ignore_ascii_case(e))
    };
    let link_ok = |from: &str, to: &str| match (id(from), id(to)) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    };
    match a {
        Action::DropLink { from, to, .. } | Action::HealLink { from, to, .. } => {
            (!link_ok(from, to)).then_some("bad link")
        }
        Action::SetLoss { from, to, loss, .. } => {
            if !link_ok(from, to) {
                Some("bad link")
            } else if !(loss.is_finite() && (0.0..=1.0).contains(loss)) {
                Some("loss out of range")
            } else {
                None
            }
        }
        Action::SetLatency {
            from, to, min, max, ..
        } => {
            if !link_ok(from, to) {
                Some("bad link")
            } else if min.0 > max.0 {
                Some("latency min > max")
            } else if max.0 > limits.max_latency_us {
                Some("latency above limit")
            } else {
                None
            }
        }
        Action::Partition { groups, .. } => {
            let mut seen = HashSet::new();
            for n in groups.iter().flatten() {
                if id(n).is_none() {
                    return Some("unknown node in partition");
                }
                if !seen.insert(n.as_str()) {
                    return Some("node in two groups");
                }
            }
            (groups.len() < 2).then_some("fewer than two groups")
        }
        Action::HealAll {} => None,
        // Forks' message fates are tested in tests/tests/diff.rs; the generators here make none.
        Action::Message { .. } => unreachable!("no message fates are generated"),
        Action::Stop { node } => match status(node) {
            None => Some("unknown node"),
            Some(NodeStatus::Running) => None,
            Some(_) => Some("stop of a node that is not running"),
        },
        Action::Kill { node } => match status(node) {
            None => Some("unknown node"),
            Some(NodeStatus::Stopped) => Some("kill of a stopped node"),
            Some(_) => None,
        },
        Action::Start { node } => match status(node) {
            None => Some("unknown node"),
            Some(NodeStatus::Stopped) => None,
            Some(_) => Some("start of a node that is not stopped"),
        },
        Action::Restart { node, down_for, .. } => match status(node) {
            None => Some("unknown node"),
            Some(NodeStatus::Running) => down_for
                .is_some_and(|d| d.0 > limits.max_duration_us)
                .then_some("down_for above the duration limit"),
            Some(_) => Some("restart of a node that is not running"),
        },
        Action::Stall { node, executor } | Action::Release { node, executor } => {
            if id(node).is_none() {
                Some("unknown node")
            } else if !exec_ok(executor) {
                Some("unknown executor")
            } else {
                (status(node) == Some(NodeStatus::Stopped)).then_some("thread of a stopped node")
            }
        }
        Action::Delay {
            node,
            executor,
            extra,
        } => {
            if id(node).is_none() {
                Some("unknown node")
            } else if !exec_ok(executor) {
                Some("unknown executor")
            } else if status(node) == Some(NodeStatus::Stopped) {
                Some("thread of a stopped node")
            } else {
                (extra.0 > limits.max_latency_us).then_some("delay above the latency limit")
            }
        }
        Action::Command { node, command } => {
            let Some(i) = id(node) else {
                return Some("unknown node");
            };
            if sim.nodes[i as usize].status != NodeStatus::Running {
                return Some("command on a node that is not running");
            }
            let g = &sim.nodes[i as usize].state;
            let words: Vec<&str> = command.split_whitespace().collect();
            match words.as_slice() {
                ["disablegossip"] => (!g.enabled).then_some("gossip already disabled"),
                ["enablegossip"] => g.enabled.then_some("gossip already enabled"),
                ["settimeout", "misc", ms] => match ms.parse::<u64>() {
                    Ok(ms) if (1..=3_600_000).contains(&ms) => None,
                    _ => Some("bad timeout"),
                },
                ["send-syn", peer] => match id(peer) {
                    Some(p) if p != i => None,
                    _ => Some("bad send-syn peer"),
                },
                _ => Some("unknown command"),
            }
        }
    }
}
