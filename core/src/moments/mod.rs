//! The model's moments (issue 40): the instants a model names as interesting — Raft's elections
//! won, new terms and commits, Ozone's pipeline closes, mutation tracking's reads — which the
//! timeline draws as a table of contents and the keys step between; and "what just happened",
//! one line in the model's words about the event at the cursor.
//!
//! Both are **derived from the trace's records** (log lines, deliveries, actions), never new
//! trace records: the trace and its hash are unchanged (the golden hashes pin that). A model
//! reads its own log lines here, so the wording of a line a moment depends on is tested in the
//! model's folder (`raft/moments.rs` and its tests).

use crate::engine::trace::{LogLevel, Rec, RecKind, Trace};
use crate::engine::{NodeId, Topology};
use crate::time::Micros;

/// A kind of moment, for the timeline's legend: a short name, a colour (CSS hex or `@name` of the
/// theme palette, as in `MatrixSpec::legend`) and one line about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MomentKind {
    pub name: &'static str,
    pub color: &'static str,
    pub about: &'static str,
}

/// One moment: where it is in the trace, its kind (index into the model's
/// [`crate::model::Model::moment_kinds`]) and one line naming it ("n4 elected leader of term 1").
#[derive(Clone, Debug, PartialEq)]
pub struct Moment {
    pub time: Micros,
    /// The step whose record it was: a cursor at `step + 1` has just passed it.
    pub step: u64,
    pub node: NodeId,
    pub kind: u8,
    /// A number the model keeps with it (Raft: the term of a new term), for its next scans.
    pub value: u64,
    pub text: String,
}

/// A node's name, or `node #i` for an id outside the topology (an action's record).
pub fn name(topo: &Topology, id: NodeId) -> &str {
    topo.names.get(id as usize).map_or("?", |s| s.as_str())
}

/// The log line of a record: (level, text).
pub fn log_of<'t>(trace: &'t Trace, r: &Rec) -> Option<(LogLevel, &'t str)> {
    match r.kind {
        RecKind::Log { line } => trace
            .logs
            .get(line as usize)
            .map(|l| (l.level, trace.text(l))),
        _ => None,
    }
}

/// The number right after `prefix` in `text` (`"leader for term 3"`, `"leader for term "` -> 3).
pub fn num_after(text: &str, prefix: &str) -> Option<u64> {
    let rest = &text[text.find(prefix)? + prefix.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The last moment of `kind` in `found` (a model's scan reads what it found before).
pub fn last_of(found: &[Moment], kind: u8) -> Option<&Moment> {
    found.iter().rev().find(|m| m.kind == kind)
}

/// Most moments kept for one run (a long run's commits): later ones are not collected.
pub const MAX_MOMENTS: usize = 50_000;

/// The generic "what happened" line of one record and its rank (a step says its highest-ranked
/// record's line): a send or a task's bookkeeping ranks lowest; `None` for a record it cannot
/// name (a log line or action missing from the trace).
pub fn generic_line(trace: &Trace, topo: &Topology, r: &Rec) -> Option<(u8, String)> {
    let me = name(topo, r.node);
    Some(match r.kind {
        RecKind::Log { .. } => {
            let (level, text) = log_of(trace, r)?;
            let rank = match level {
                LogLevel::Error | LogLevel::Warn => 5,
                LogLevel::Info => 4,
                _ => 2,
            };
            (rank, format!("{me}: {text}"))
        }
        RecKind::Action { index } => {
            let a = trace.actions.get(index as usize)?;
            (6, a.action.describe())
        }
        RecKind::NodeStatus { status } => (5, format!("{me} is {}", status.as_str())),
        RecKind::State { label, peer } => (3, format!("{me} marks {} {label}", name(topo, peer))),
        RecKind::Deliver { from, label, .. } => (
            1,
            format!("{me} received {label} from {}", name(topo, from)),
        ),
        RecKind::Drop {
            from, to, label, ..
        } => (
            3,
            format!(
                "{label} from {} to {} was lost",
                name(topo, from),
                name(topo, to)
            ),
        ),
        RecKind::Timer { label } => (1, format!("{me}: timer {label} fired")),
        RecKind::TaskExpired { label, .. } => {
            (3, format!("{me}: task {label} expired before it ran"))
        }
        // Worth least, but a step of only these says something (issue 40's lecture line was left
        // blank after Figure 8's captions (a) to (d): the step before was a log flush or an
        // appender's send).
        RecKind::Send { to, label, .. } => (1, format!("{me} sent {label} to {}", name(topo, to))),
        RecKind::TaskDone { label, .. } => (0, format!("{me} finished its {label} task")),
        RecKind::TaskStart { label, .. } => (0, format!("{me} started its {label} task")),
    })
}

/// "What just happened" at a cursor after `step` steps: the most telling record of the last
/// step (step `step - 1`), in the model's words where `say` has them (rank 9), else the generic
/// wording ([`generic_line`]). `None` at step 0 or when the step left no record.
pub fn what_happened(
    trace: &Trace,
    topo: &Topology,
    step: u64,
    say: &dyn Fn(&Rec) -> Option<String>,
) -> Option<String> {
    let s = step.checked_sub(1)?;
    let lo = trace.rec_index_at_step(s);
    let hi = trace.rec_index_at_step(step);
    let mut best: Option<(u8, String)> = None;
    for r in trace.recs.range(lo..hi) {
        let line = match say(&r) {
            Some(t) => Some((9, t)),
            None => generic_line(trace, topo, &r),
        };
        if let Some((rank, text)) = line {
            if best.as_ref().is_none_or(|b| rank > b.0) {
                best = Some((rank, text));
            }
        }
    }
    best.map(|b| b.1)
}

#[cfg(test)]
mod tests;
