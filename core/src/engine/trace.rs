//! The trace: every event the engine processed, compactly, with a running hash.
//!
//! Records are fixed-size (see the `record_is_small` test); log text and message bodies live in
//! side arenas so that a long run stays well under 100 bytes per traced event.

use crate::time::Micros;
use serde::Serialize;

/// Why a message never reached its handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DropReason {
    /// The link (from, to) was down when the message was sent or when it arrived.
    LinkDown,
    /// The link's loss probability fired.
    Loss,
    /// The destination was stopped (or stopping) when the message arrived.
    NodeStopped,
    /// The destination had restarted since the message was sent (its old connection is gone).
    NodeRestarted,
    /// A protocol-level rule discarded it (e.g. written into a half-open connection).
    Discarded,
    /// A fork dropped it (`Action::Message` with `MsgFate::Drop`).
    Forked,
}

impl DropReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::LinkDown => "link down",
            DropReason::Loss => "loss",
            DropReason::NodeStopped => "node stopped",
            DropReason::NodeRestarted => "node restarted",
            DropReason::Discarded => "discarded by receiver",
            DropReason::Forked => "dropped by a fork",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Trace => "TRACE",
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warn => "WARN",
            LogLevel::Error => "ERROR",
        }
    }
}

/// What happened. `node` on the enclosing `Rec` is the node where it happened.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RecKind {
    Send {
        msg: u64,
        to: u32,
        label: &'static str,
        deliver_at: Micros,
    },
    Deliver {
        msg: u64,
        from: u32,
        label: &'static str,
        sent_at: Micros,
    },
    Drop {
        msg: u64,
        from: u32,
        to: u32,
        label: &'static str,
        reason: DropReason,
    },
    Timer {
        label: &'static str,
    },
    TaskStart {
        exec: u8,
        label: &'static str,
        waited_us: Micros,
    },
    TaskDone {
        exec: u8,
        label: &'static str,
    },
    /// A task dequeued after its deadline: dropped without running (Cassandra's expired verb).
    TaskExpired {
        exec: u8,
        label: &'static str,
        waited_us: Micros,
    },
    /// A protocol state change worth a marker, e.g. "DOWN" about `peer`.
    State {
        label: &'static str,
        peer: u32,
    },
    Log {
        line: u32,
    },
    /// A fault or user action was applied; `index` points into the engine's action log.
    Action {
        index: u32,
    },
    NodeStatus {
        status: crate::engine::NodeStatus,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rec {
    /// Index of the engine step (queue event or action) that produced this record.
    pub step: u64,
    pub time: Micros,
    pub node: u32,
    pub kind: RecKind,
}

/// One log line; its text is in the trace's log arena (`Trace::text`).
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    pub time: Micros,
    pub node: u32,
    pub level: LogLevel,
    /// Byte range of the text in `Trace::log_text`.
    at: usize,
    len: u32,
}

/// FNV-1a, 64 bit, over bytes: tiny, portable, and stable across platforms and versions (used
/// for small stable digests such as layout seeds; the trace uses the faster `TraceHash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
}

/// The running trace hash (`trace_hash`): each 64-bit word is mixed in with a multiply and an
/// xor-shift, a few cycles a word where byte-wise FNV-1a costs eight dependent multiplies; a
/// string is its length and then its bytes as little-endian 8-byte words (the last one padded
/// with zeros). Portable and stable across platforms and versions; not cryptographic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceHash(pub u64);

impl Default for TraceHash {
    fn default() -> Self {
        TraceHash(0xcbf2_9ce4_8422_2325)
    }
}

impl TraceHash {
    #[inline(always)]
    pub fn u64(&mut self, v: u64) {
        let h = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }

    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        let mut chunks = s.as_bytes().chunks_exact(8);
        for c in &mut chunks {
            self.u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The remaining 1-7 bytes, little-endian, the rest zero, from at most two loads
            // that overlap (the bytes both read are the same, so or-ing them is exact): no
            // `memcpy` call for a variable length and no loop over the bytes (most labels are
            // shorter than 8 bytes, two strings a record).
            let n = rest.len();
            let w = if n >= 4 {
                let lo = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as u64;
                let hi = u32::from_le_bytes(rest[n - 4..].try_into().expect("4 bytes")) as u64;
                lo | hi << (8 * (n - 4))
            } else if n >= 2 {
                let lo = u16::from_le_bytes(rest[..2].try_into().expect("2 bytes")) as u64;
                lo | (rest[n - 1] as u64) << (8 * (n - 1))
            } else {
                rest[0] as u64
            };
            self.u64(w);
        }
    }
}

/// Mix one record into a running hash. Labels and log text are hashed by content.
pub fn hash_rec(h: &mut TraceHash, r: &Rec, log_text: Option<&str>) {
    hash_parts(h, r.step, r.time, r.node, &r.kind, log_text);
}

/// [`hash_rec`] of the record with these fields, without the record built (the engine hashes
/// every record and keeps one only when it records: issue 44). Inlined into each of the
/// engine's `emit`s, whose record kind is known there: the `match` folds away (issue 44).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
pub fn hash_parts(
    h: &mut TraceHash,
    step: u64,
    time: Micros,
    node: u32,
    kind: &RecKind,
    log_text: Option<&str>,
) {
    h.u64(step);
    h.u64(time);
    h.u64(node as u64);
    match *kind {
        RecKind::Send {
            msg,
            to,
            label,
            deliver_at,
        } => {
            h.u64(1);
            h.u64(msg);
            h.u64(to as u64);
            h.str(label);
            h.u64(deliver_at);
        }
        RecKind::Deliver {
            msg,
            from,
            label,
            sent_at,
        } => {
            h.u64(2);
            h.u64(msg);
            h.u64(from as u64);
            h.str(label);
            h.u64(sent_at);
        }
        RecKind::Drop {
            msg,
            from,
            to,
            label,
            reason,
        } => {
            h.u64(3);
            h.u64(msg);
            h.u64(from as u64);
            h.u64(to as u64);
            h.str(label);
            h.str(reason.as_str());
        }
        RecKind::Timer { label } => {
            h.u64(4);
            h.str(label);
        }
        RecKind::TaskStart {
            exec,
            label,
            waited_us,
        } => {
            h.u64(5);
            h.u64(exec as u64);
            h.str(label);
            h.u64(waited_us);
        }
        RecKind::TaskDone { exec, label } => {
            h.u64(6);
            h.u64(exec as u64);
            h.str(label);
        }
        RecKind::TaskExpired {
            exec,
            label,
            waited_us,
        } => {
            h.u64(7);
            h.u64(exec as u64);
            h.str(label);
            h.u64(waited_us);
        }
        RecKind::State { label, peer } => {
            h.u64(8);
            h.str(label);
            h.u64(peer as u64);
        }
        RecKind::Log { .. } => {
            h.u64(9);
            h.str(log_text.unwrap_or(""));
        }
        RecKind::Action { .. } => {
            // By content: the index depends on how much of the trace is retained.
            h.u64(10);
            h.str(log_text.unwrap_or(""));
        }
        RecKind::NodeStatus { status } => {
            h.u64(11);
            h.str(status.as_str());
        }
    }
}

mod recs;
pub use recs::{Iter, Recs};

/// Everything recorded so far. Append-only while running forward; truncated when a user acts in
/// the past (the old future is discarded).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub recs: Recs,
    pub logs: Vec<LogLine>,
    /// The log lines' texts, one after another: one growing buffer instead of a `String` per
    /// line (~150,000 lines in ten minutes of a 251-node cluster).
    log_text: String,
    /// Rendered message bodies, by message id, while `body_budget` lasts.
    pub bodies: Vec<(u64, String)>,
    pub body_bytes: usize,
    pub body_budget: usize,
    pub bodies_truncated: bool,
    /// Faults and user actions as they were applied (`RecKind::Action` points here).
    pub actions: Vec<crate::engine::action::AppliedAction>,
    /// Each entry into a state that breaks one of the model's invariants, in order: which
    /// invariant, the nodes, when. Beside the records, not in them (nor in the hash): the ERROR
    /// line logged at the same step says the same, and is hashed.
    pub violations: Vec<ViolationRec>,
    /// Number of engine steps covered by `recs`.
    pub steps: u64,
}

impl Trace {
    pub fn new(body_budget: usize) -> Self {
        Trace {
            body_budget,
            ..Default::default()
        }
    }

    /// Text of a log line of this trace.
    pub fn text(&self, l: &LogLine) -> &str {
        &self.log_text[l.at..l.at + l.len as usize]
    }

    /// Append a log line.
    pub fn push_log(&mut self, time: Micros, node: u32, level: LogLevel, text: &str) {
        let at = self.log_text.len();
        self.log_text.push_str(text);
        self.logs.push(LogLine {
            time,
            node,
            level,
            at,
            len: text.len() as u32,
        });
    }

    pub fn body(&self, msg: u64) -> Option<&str> {
        self.bodies
            .binary_search_by_key(&msg, |(id, _)| *id)
            .ok()
            .map(|i| self.bodies[i].1.as_str())
    }

    /// First record index with `step >= step`.
    pub fn rec_index_at_step(&self, step: u64) -> usize {
        self.recs.index_at_step(step)
    }

    /// Drop everything produced by steps `>= step`.
    pub fn truncate_to_step(&mut self, step: u64) {
        let ri = self.rec_index_at_step(step);
        self.recs.truncate(ri);
        let first_msg = self.recs.iter().rev().find_map(|r| match r.kind {
            RecKind::Send { msg, .. } => Some(msg),
            _ => None,
        });
        let keep_logs = self
            .recs
            .iter()
            .rev()
            .find_map(|r| match r.kind {
                RecKind::Log { line } => Some(line as usize + 1),
                _ => None,
            })
            .unwrap_or(0);
        self.logs.truncate(keep_logs);
        self.log_text
            .truncate(self.logs.last().map_or(0, |l| l.at + l.len as usize));
        let keep_bodies = match first_msg {
            Some(m) => self.bodies.partition_point(|(id, _)| *id <= m),
            None => 0,
        };
        for (_, b) in self.bodies.drain(keep_bodies..) {
            self.body_bytes -= b.len();
        }
        self.actions.retain(|a| a.step < step);
        self.violations.retain(|v| v.step < step);
        self.steps = self.steps.min(step);
    }

    /// Approximate retained heap bytes, for the memory budget and the benchmark: the record
    /// chunks (allocated capacity), their tables, the label table, the overflow arena, the log,
    /// body and action arenas.
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        self.recs.heap_bytes()
            + self.logs.capacity() * size_of::<LogLine>()
            + self.log_text.capacity()
            + self.bodies.capacity() * size_of::<(u64, String)>()
            + self.body_bytes
            + self.actions.capacity() * size_of::<crate::engine::action::AppliedAction>()
            + self.violations.capacity() * size_of::<ViolationRec>()
    }

    /// The violations recorded by steps before `step` (those a cursor at `step` has passed).
    pub fn violations_before(&self, step: u64) -> &[ViolationRec] {
        &self.violations[..self.violations.partition_point(|v| v.step < step)]
    }
}

/// An invariant violation the engine found (`Protocol::check`), at the step and time it began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViolationRec {
    pub step: u64,
    pub time: Micros,
    pub violation: crate::engine::Violation,
}

/// One record as a JSON object with node names, message bodies (when retained), log text and
/// action descriptions: the format of `clusterscope run --trace` and the web app's trace export.
pub fn rec_json(t: &Trace, topo: &crate::engine::Topology, r: &Rec) -> serde_json::Value {
    use serde_json::json;
    let name = |id: u32| topo.names.get(id as usize).cloned().unwrap_or_default();
    let mut o = json!({ "step": r.step, "time_us": r.time, "node": name(r.node) });
    let m = o.as_object_mut().expect("object");
    let mut put = |k: &str, v: serde_json::Value| {
        m.insert(k.to_string(), v);
    };
    match r.kind {
        RecKind::Send {
            msg,
            to,
            label,
            deliver_at,
        } => {
            put("kind", "send".into());
            put("msg", msg.into());
            put("to", name(to).into());
            put("verb", label.into());
            put("deliver_at_us", deliver_at.into());
            if let Some(b) = t.body(msg) {
                put("body", b.into());
            }
        }
        RecKind::Deliver {
            msg,
            from,
            label,
            sent_at,
        } => {
            put("kind", "deliver".into());
            put("msg", msg.into());
            put("from", name(from).into());
            put("verb", label.into());
            put("sent_at_us", sent_at.into());
        }
        RecKind::Drop {
            msg,
            from,
            to,
            label,
            reason,
        } => {
            put("kind", "drop".into());
            put("msg", msg.into());
            put("from", name(from).into());
            put("to", name(to).into());
            put("verb", label.into());
            put("reason", reason.as_str().into());
        }
        RecKind::Timer { label } => {
            put("kind", "timer".into());
            put("timer", label.into());
        }
        RecKind::TaskStart {
            label, waited_us, ..
        } => {
            put("kind", "task-start".into());
            put("task", label.into());
            put("waited_us", waited_us.into());
        }
        RecKind::TaskDone { label, .. } => {
            put("kind", "task-done".into());
            put("task", label.into());
        }
        RecKind::TaskExpired {
            label, waited_us, ..
        } => {
            put("kind", "task-expired".into());
            put("task", label.into());
            put("waited_us", waited_us.into());
        }
        RecKind::State { label, peer } => {
            put("kind", "state".into());
            put("change", label.into());
            put("peer", name(peer).into());
        }
        RecKind::Log { line } => {
            put("kind", "log".into());
            if let Some(l) = t.logs.get(line as usize) {
                put("level", l.level.as_str().into());
                put("text", t.text(l).into());
            }
        }
        RecKind::Action { index } => {
            put("kind", "action".into());
            if let Some(a) = t.actions.get(index as usize) {
                put("action", a.action.describe().into());
                put("source", serde_json::to_value(a.source).expect("json"));
            }
        }
        RecKind::NodeStatus { status } => {
            put("kind", "status".into());
            put("status", status.as_str().into());
        }
    }
    o
}

#[cfg(test)]
mod tests;
