//! Pure helpers over the trace: what counts as "interesting", where the cursor cuts the trace,
//! which step a time corresponds to, and the timeline markers.

use clusterscope_core::engine::action::ActionSource;
use clusterscope_core::engine::trace::{self, LogLevel, Rec, RecKind, Trace};
use clusterscope_core::model::Driver;
use clusterscope_core::moments::{Moment, MomentKind};
use clusterscope_core::time::Micros;

/// What "step to the next ..." looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavKind {
    /// A message reaching its handler.
    Delivery,
    /// A state change, a log line (INFO or above), a fault or user action, a node status change, an
    /// expired task.
    Interesting,
    /// A message lost (dropped by the network or a down link).
    Drop,
    /// A message of this kind (its label) sent or lost.
    Message(&'static str),
    /// A moment the model marks (`Marks::moments`; found by the model, not by one record).
    Moment,
}

impl NavKind {
    pub fn matches(self, r: &Rec, trace: &Trace) -> bool {
        match self {
            NavKind::Delivery => matches!(r.kind, RecKind::Deliver { .. }),
            NavKind::Interesting => is_interesting(r, trace),
            NavKind::Drop => matches!(r.kind, RecKind::Drop { .. }),
            NavKind::Message(l) => matches!(
                r.kind,
                RecKind::Send { label, .. } | RecKind::Drop { label, .. } if label == l
            ),
            NavKind::Moment => false,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            NavKind::Delivery => "delivery",
            NavKind::Interesting => "interesting event",
            NavKind::Drop => "dropped message",
            NavKind::Message(_) => "message of the chosen kind",
            NavKind::Moment => "marked moment",
        }
    }
}

pub fn is_interesting(r: &Rec, trace: &Trace) -> bool {
    match r.kind {
        RecKind::State { .. }
        | RecKind::Action { .. }
        | RecKind::NodeStatus { .. }
        | RecKind::TaskExpired { .. } => true,
        RecKind::Log { line } => trace
            .logs
            .get(line as usize)
            .is_some_and(|l| l.level != LogLevel::Trace && l.level != LogLevel::Debug),
        _ => false,
    }
}

/// Records of step `step` (empty when it produced none or is not computed).
pub fn recs_of_step(trace: &Trace, step: u64) -> trace::Iter<'_> {
    let lo = trace.rec_index_at_step(step);
    let hi = trace.rec_index_at_step(step + 1);
    trace.recs.range(lo..hi)
}

/// The step count to jump to so that the state is at virtual time `t`: every step with time
/// `<= t` is processed; the furthest computed (`trace.steps`) when no computed step comes after
/// `t` (the end, or beyond the computed trace).
pub fn step_at_time(trace: &Trace, t: Micros) -> u64 {
    let i = trace.recs.partition_point(|r| r.time <= t);
    trace.recs.get(i).map_or(trace.steps, |r| r.step)
}

/// Time of the last computed record (0 for an empty trace).
pub fn frontier_time(trace: &Trace) -> Micros {
    trace.recs.last().map_or(0, |r| r.time)
}

/// Number of log lines produced before the cursor (step `cursor`, time `now`). Logs are in trace
/// order, so this is a prefix of `trace.logs`.
pub fn logs_before_cursor(trace: &Trace, cursor: u64, now: Micros) -> usize {
    let ci = trace.rec_index_at_step(cursor);
    // Lines at the cursor's own time may belong to steps after the cursor: ask the records.
    let same_time_before = trace.logs.partition_point(|l| l.time < now);
    for r in trace.recs.range(..ci).rev() {
        if r.time < now {
            break;
        }
        if let RecKind::Log { line } = r.kind {
            return line as usize + 1;
        }
    }
    same_time_before.min(trace.logs.len())
}

/// Index of the latest record before the cursor that matches `kind`, scanning at most `limit`.
pub fn prev_match(trace: &Trace, cursor: u64, kind: NavKind, limit: usize) -> Option<Rec> {
    let ci = trace.rec_index_at_step(cursor);
    trace
        .recs
        .range(..ci)
        .rev()
        .take(limit)
        .find(|r| kind.matches(r, trace))
}

/// A marker on the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    Down,
    Up,
    Fault,
    UserAction,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub time: Micros,
    pub step: u64,
    pub kind: MarkKind,
    pub node: u32,
}

/// Timeline markers for the computed trace, maintained incrementally (bounded).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    pub marks: Vec<Mark>,
    /// Records scanned so far.
    pub scanned: usize,
    /// State-change markers stopped being collected at the bound.
    pub capped: bool,
    /// The model's state-mark labels drawn as `Down` (above) and `Up` (below):
    /// `Model::state_marks` (gossip: DOWN, UP); `None`: no density strips.
    pub labels: Option<(&'static str, &'static str)>,
    /// The model's moments (`Model::moments`: Raft's elections, terms, commits...), in trace
    /// order: the timeline's table of contents, stepped through with n / N.
    pub moments: Vec<Moment>,
    /// Their kinds (`Model::moment_kinds`), for the legend.
    pub kinds: &'static [MomentKind],
}

/// At most this many UP/DOWN markers are kept (faults and user actions always are).
pub const MAX_STATE_MARKS: usize = 200_000;

impl Marks {
    /// Index records appended since the last call.
    pub fn update(&mut self, engine: &dyn Driver) {
        let trace = engine.trace();
        if self.scanned > trace.recs.len() {
            // The trace was truncated without `truncate` being called: rebuild.
            *self = Marks {
                labels: self.labels,
                kinds: self.kinds,
                ..Marks::default()
            };
        }
        if !self.kinds.is_empty() {
            engine.moments(self.scanned, &mut self.moments);
        }
        let (above, below) = self.labels.unwrap_or(("", ""));
        for r in trace.recs.range(self.scanned..) {
            let kind = match r.kind {
                RecKind::State { label, .. } if !above.is_empty() && label == above => {
                    Some(MarkKind::Down)
                }
                RecKind::State { label, .. } if !below.is_empty() && label == below => {
                    Some(MarkKind::Up)
                }
                RecKind::Action { index } => trace.actions.get(index as usize).map(|a| {
                    if a.source == ActionSource::User {
                        MarkKind::UserAction
                    } else {
                        MarkKind::Fault
                    }
                }),
                _ => None,
            };
            if let Some(kind) = kind {
                let state = matches!(kind, MarkKind::Down | MarkKind::Up);
                if state && self.marks.len() >= MAX_STATE_MARKS {
                    self.capped = true;
                    continue;
                }
                self.marks.push(Mark {
                    time: r.time,
                    step: r.step,
                    kind,
                    node: r.node,
                });
            }
        }
        self.scanned = trace.recs.len();
    }

    /// The trace was cut at `step` (a user acted in the past).
    pub fn truncate(&mut self, step: u64, trace: &Trace) {
        self.marks.retain(|m| m.step < step);
        self.moments.retain(|m| m.step < step);
        self.scanned = trace.recs.len().min(trace.rec_index_at_step(step));
    }
}

impl Marks {
    /// The first moment after the cursor at `cursor` steps (one the cursor has not passed).
    pub fn next_moment(&self, cursor: u64) -> Option<&Moment> {
        let i = self.moments.partition_point(|m| m.step < cursor);
        self.moments.get(i)
    }
    /// The latest moment before the one the cursor just passed (so repeated presses walk back).
    pub fn prev_moment(&self, cursor: u64) -> Option<&Moment> {
        let i = self.moments.partition_point(|m| m.step + 1 < cursor);
        i.checked_sub(1).map(|k| &self.moments[k])
    }
    /// Whether a moment is at step `step`.
    pub fn moment_at(&self, step: u64) -> bool {
        let i = self.moments.partition_point(|m| m.step < step);
        self.moments.get(i).is_some_and(|m| m.step == step)
    }
}
