//! "Explain this state": helpers for `Model::explain` — a few sentences of what one node
//! believes at the cursor and why, from the model's views and the trace before the cursor: the
//! trace look-ups the models' explanations share (and the generic default any model gets,
//! `model::explain_generic`, which reads the `Model` and so sits above this module, beside it).
//! Everything here runs on demand (a person opened the explanation), never per step.

use crate::engine::trace::{LogLevel, Rec, RecKind, Trace};
use crate::engine::{NodeId, NodeStatus, Protocol, Sim};
use crate::time::Micros;

/// Most records scanned backwards by one look-up (a 251-node run makes ~5,000 a second: this is
/// its last ~100 s; an explanation makes a few look-ups per DOWN peer it names).
pub const SCAN: usize = 500_000;

/// The latest record before `upto` matching `f` (scanning at most [`SCAN`]).
pub fn last_rec(trace: &Trace, upto: usize, f: impl Fn(&Rec) -> bool) -> Option<Rec> {
    trace.recs.range(..upto).rev().take(SCAN).find(|r| f(r))
}

/// The latest state mark `label` that `node` made about `peer` before `upto`.
pub fn last_mark(
    trace: &Trace,
    upto: usize,
    node: NodeId,
    label: &str,
    peer: NodeId,
) -> Option<Micros> {
    last_rec(trace, upto, |r| {
        r.node == node
            && matches!(r.kind, RecKind::State { label: l, peer: p } if l == label && p == peer)
    })
    .map(|r| r.time)
}

/// What became of the latest message `label` from `from` to `to` before `upto`: its send time
/// and whether it was lost (a drop record) or sent (and maybe delivered).
pub fn last_msg(
    trace: &Trace,
    upto: usize,
    from: NodeId,
    to: NodeId,
    label: &str,
) -> Option<(Micros, bool)> {
    last_rec(trace, upto, |r| match r.kind {
        RecKind::Send {
            to: t, label: l, ..
        } => r.node == from && t == to && l == label,
        RecKind::Drop {
            from: f,
            to: t,
            label: l,
            ..
        } => f == from && t == to && l == label,
        _ => false,
    })
    .map(|r| (r.time, matches!(r.kind, RecKind::Drop { .. })))
}

/// The latest log line of `node` at INFO or above before `upto`: (time, text).
pub fn last_log(trace: &Trace, upto: usize, node: NodeId) -> Option<(Micros, String)> {
    trace
        .recs
        .range(..upto)
        .rev()
        .take(SCAN)
        .filter(|r| r.node == node)
        .find_map(|r| match r.kind {
            RecKind::Log { line } => trace
                .logs
                .get(line as usize)
                .filter(|l| l.level != LogLevel::Trace && l.level != LogLevel::Debug)
                .map(|l| (l.time, trace.text(l).to_string())),
            _ => None,
        })
}

/// "running", "stopping", "stopped".
pub fn status_word(s: NodeStatus) -> &'static str {
    match s {
        NodeStatus::Running => "running",
        NodeStatus::Stopping => "stopping",
        NodeStatus::Stopped => "stopped",
    }
}

/// The node's stalled or delayed threads (executors), for its badge on the topology: " · ⏸
/// StateMachineUpdater" (stalled), " · ⏱ StateMachineUpdater +300ms" (each task delayed);
/// empty when none is. The lesson of a slow apply thread (raft-slow-apply) on its node.
pub fn thread_flags<P: Protocol>(sim: &Sim<P>, id: NodeId) -> String {
    flags_of(sim.proto.executors(), &sim.nodes[id as usize].exec_stats)
}

/// [`thread_flags`] without the model's type (one copy in the wasm, not one per model).
fn flags_of(names: &[&str], stats: &[crate::engine::ExecStats]) -> String {
    let mut out = String::new();
    for (i, st) in stats.iter().enumerate() {
        let name = names.get(i).copied().unwrap_or("thread");
        if st.stalled {
            out.push_str(" · ⏸ ");
            out.push_str(name);
        } else if st.delay_us > 0 {
            out.push_str(" · ⏱ ");
            out.push_str(name);
            out.push_str(" +");
            out.push_str(&crate::time::fmt_duration(st.delay_us));
        }
    }
    out
}
