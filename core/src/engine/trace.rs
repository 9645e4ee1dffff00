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
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.u64(u64::from_le_bytes(b));
        }
    }
}

/// Mix one record into a running hash. Labels and log text are hashed by content.
pub fn hash_rec(h: &mut TraceHash, r: &Rec, log_text: Option<&str>) {
    h.u64(r.step);
    h.u64(r.time);
    h.u64(r.node as u64);
    match r.kind {
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
mod tests {
    use super::recs::{Packed, CHUNK};
    use super::*;

    use crate::engine::NodeStatus;

    #[test]
    fn record_is_small() {
        // The retained trace must stay under 100 bytes per event (about two records per event,
        // plus at most one chunk of unused capacity); the stored record is the bulk of it.
        assert_eq!(std::mem::size_of::<Packed>(), 32);
        assert_eq!(Recs::PACKED_BYTES, 32);
    }

    fn rec(step: u64, time: Micros, node: u32, kind: RecKind) -> Rec {
        Rec {
            step,
            time,
            node,
            kind,
        }
    }

    /// One record of every kind (and every reason/status), with ordinary values.
    fn every_kind(step: u64, time: Micros) -> Vec<Rec> {
        let mut v = vec![
            RecKind::Send {
                msg: 7,
                to: 3,
                label: "SYN",
                deliver_at: time + 1_500,
            },
            RecKind::Deliver {
                msg: 7,
                from: 2,
                label: "ACK",
                sent_at: time.saturating_sub(900),
            },
            RecKind::Timer { label: "gossip" },
            RecKind::TaskStart {
                exec: 1,
                label: "GossipStage",
                waited_us: 12,
            },
            RecKind::TaskDone {
                exec: 255,
                label: "GossipStage",
            },
            RecKind::TaskExpired {
                exec: 0,
                label: "ECHO_REQ",
                waited_us: 50_000,
            },
            RecKind::State {
                label: "DOWN",
                peer: 4,
            },
            RecKind::Log { line: 99 },
            RecKind::Action { index: 3 },
        ];
        for reason in [
            DropReason::LinkDown,
            DropReason::Loss,
            DropReason::NodeStopped,
            DropReason::NodeRestarted,
            DropReason::Discarded,
        ] {
            v.push(RecKind::Drop {
                msg: 8,
                from: 1,
                to: 6,
                label: "ACK2",
                reason,
            });
        }
        for status in [
            NodeStatus::Running,
            NodeStatus::Stopping,
            NodeStatus::Stopped,
        ] {
            v.push(RecKind::NodeStatus { status });
        }
        v.into_iter().map(|k| rec(step, time, 5, k)).collect()
    }

    /// Records whose values do not fit the packed form.
    fn extremes() -> Vec<Rec> {
        let m = u64::MAX;
        let big = u32::MAX as u64 + 1;
        vec![
            rec(
                10,
                5,
                u32::MAX,
                RecKind::Send {
                    msg: m,
                    to: u32::MAX,
                    label: "SYN",
                    deliver_at: 6,
                },
            ),
            // Delivery more than u32::MAX µs after sending; and one "before" sending.
            rec(
                10,
                0,
                1,
                RecKind::Send {
                    msg: 1,
                    to: 2,
                    label: "SYN",
                    deliver_at: m,
                },
            ),
            rec(
                10,
                100,
                1,
                RecKind::Send {
                    msg: 1,
                    to: 2,
                    label: "SYN",
                    deliver_at: 99,
                },
            ),
            rec(
                11,
                m,
                1,
                RecKind::Deliver {
                    msg: big,
                    from: 0,
                    label: "ACK",
                    sent_at: 0,
                },
            ),
            rec(
                11,
                3,
                1,
                RecKind::Deliver {
                    msg: 2,
                    from: 0,
                    label: "ACK",
                    sent_at: 4,
                },
            ),
            rec(
                11,
                m,
                0,
                RecKind::Drop {
                    msg: m,
                    from: u32::MAX,
                    to: u32::MAX,
                    label: "",
                    reason: DropReason::Discarded,
                },
            ),
            rec(
                12,
                m,
                0,
                RecKind::TaskStart {
                    exec: u8::MAX,
                    label: "t",
                    waited_us: m,
                },
            ),
            rec(
                12,
                m,
                0,
                RecKind::TaskExpired {
                    exec: 0,
                    label: "t",
                    waited_us: big,
                },
            ),
            // Steps far apart within one chunk, and a step before the chunk's first.
            rec(big + 12, 0, 0, RecKind::Timer { label: "tick" }),
            rec(m, m, u32::MAX, RecKind::Log { line: u32::MAX }),
            rec(
                m,
                m,
                0,
                RecKind::State {
                    label: "UP",
                    peer: u32::MAX,
                },
            ),
            rec(m, m, 0, RecKind::Action { index: u32::MAX }),
        ]
    }

    fn hash_of(rs: impl IntoIterator<Item = Rec>) -> u64 {
        let mut h = TraceHash::default();
        for r in rs {
            hash_rec(&mut h, &r, None);
        }
        h.0
    }

    #[test]
    fn packed_round_trip_every_kind() {
        let want = every_kind(3, 1_000_000);
        let recs: Recs = want.iter().copied().collect();
        assert_eq!(recs.len(), want.len());
        assert_eq!(recs.overflow_len(), 0, "ordinary values are packed");
        let got: Vec<Rec> = recs.iter().collect();
        assert_eq!(got, want);
        assert_eq!(hash_of(recs.iter()), hash_of(want.iter().copied()));
        // Labels are stored once each.
        assert_eq!(recs.labels.table.len(), 7);
    }

    #[test]
    fn values_that_do_not_fit_take_the_overflow_path() {
        let mut want = every_kind(10, 1_000);
        want.extend(extremes());
        // Ordinary records after the extreme ones still pack.
        want.extend(every_kind(20, 7));
        let recs: Recs = want.iter().copied().collect();
        assert_eq!(recs.overflow_len(), extremes().len());
        let got: Vec<Rec> = recs.iter().collect();
        assert_eq!(got, want);
        assert_eq!(hash_of(recs.iter()), hash_of(want.iter().copied()));
        for (i, r) in want.iter().enumerate() {
            assert_eq!(recs.get(i), Some(*r));
        }
        assert_eq!(recs.get(want.len()), None);
    }

    #[test]
    fn labels_dedup_by_content_and_overflow_past_u16() {
        // Same content at two addresses: one table entry.
        let a: &'static str = Box::leak(String::from("SAME").into_boxed_str());
        let b: &'static str = Box::leak(String::from("SAME").into_boxed_str());
        assert_ne!(a.as_ptr(), b.as_ptr());
        let mut recs = Recs::new();
        recs.push(rec(0, 0, 0, RecKind::Timer { label: a }));
        recs.push(rec(0, 0, 0, RecKind::Timer { label: b }));
        assert_eq!(recs.labels.table.len(), 1);
        // More distinct labels than a u16 indexes: the rest is kept whole, nothing is lost.
        let n = u16::MAX as usize + 1 + 10;
        let mut want = Vec::new();
        for i in 0..n {
            let label: &'static str = Box::leak(format!("L{i}").into_boxed_str());
            let r = rec(1 + i as u64, i as u64, 0, RecKind::Timer { label });
            recs.push(r);
            want.push(r);
        }
        assert_eq!(recs.labels.table.len(), u16::MAX as usize + 1);
        assert_eq!(recs.overflow_len(), n + 1 - (u16::MAX as usize + 1));
        assert!(recs.iter().skip(2).eq(want.iter().copied()));
        // Known labels still pack after the table is full.
        let before = recs.overflow_len();
        recs.push(rec(n as u64 + 1, 0, 0, RecKind::Timer { label: "SAME" }));
        recs.push(rec(n as u64 + 1, 0, 0, RecKind::Timer { label: "L5" }));
        assert_eq!(recs.overflow_len(), before);
        assert_eq!(
            recs.last().map(|r| r.kind),
            Some(RecKind::Timer { label: "L5" })
        );
    }

    /// A reference trace: `per_step` records per step, every 5th one not packable.
    fn reference(n: usize, per_step: usize) -> Vec<Rec> {
        (0..n)
            .map(|i| {
                let step = (i / per_step) as u64;
                let msg = if i % 5 == 0 {
                    u64::MAX - i as u64
                } else {
                    i as u64
                };
                rec(
                    step,
                    step * 10,
                    (i % 7) as u32,
                    RecKind::Send {
                        msg,
                        to: 1,
                        label: "SYN",
                        deliver_at: step * 10 + 3,
                    },
                )
            })
            .collect()
    }

    #[test]
    fn chunks_grow_without_slack_and_truncate_at_boundaries() {
        let want = reference(3 * CHUNK + 5, 2);
        let full: Recs = want.iter().copied().collect();
        assert_eq!(full.chunks.len(), 4);
        assert_eq!(full.capacity(), 4 * CHUNK);
        assert!(full.capacity() - full.len() < CHUNK);
        for n in [
            2 * CHUNK,
            CHUNK,
            CHUNK - 1,
            CHUNK + 1,
            2 * CHUNK + 2,
            3 * CHUNK + 4,
            3 * CHUNK + 5,
            0,
        ] {
            let mut recs = full.clone();
            recs.truncate(n);
            assert_eq!(recs.len(), n);
            assert_eq!(
                recs.chunks.len(),
                n.div_ceil(CHUNK),
                "chunks after truncate({n})"
            );
            assert_eq!(recs.bases.len(), recs.chunks.len());
            assert_eq!(
                recs.overflow_len(),
                n.div_ceil(5),
                "overflow after truncate({n})"
            );
            assert!(recs.iter().eq(want[..n].iter().copied()), "truncate({n})");
            // Growing again gives the same store as never having cut.
            recs.extend(want[n..].iter().copied());
            assert_eq!(recs, full, "regrown after truncate({n})");
            assert!(recs.iter().eq(want.iter().copied()));
            assert_eq!(recs.chunks.len(), 4);
        }
    }

    #[test]
    fn the_drop_index_lists_the_drop_records_through_truncates() {
        // Every third record a drop, some of them too wide to pack.
        let want: Vec<Rec> = reference(2 * CHUNK + 7, 3)
            .into_iter()
            .enumerate()
            .map(|(i, r)| match r.kind {
                RecKind::Send { msg, to, label, .. } if i % 3 == 0 => Rec {
                    kind: RecKind::Drop {
                        msg,
                        from: r.node,
                        to,
                        label,
                        reason: DropReason::Loss,
                    },
                    ..r
                },
                _ => r,
            })
            .collect();
        let drops_of = |recs: &[Rec]| -> Vec<u32> {
            (0..recs.len() as u32)
                .filter(|&i| matches!(recs[i as usize].kind, RecKind::Drop { .. }))
                .collect()
        };
        let full: Recs = want.iter().copied().collect();
        assert_eq!(full.drops(), drops_of(&want));
        assert_eq!(full.drops().len(), want.len().div_ceil(3));
        for n in [0, 1, 3, 4, CHUNK, CHUNK + 1, 2 * CHUNK + 6, 2 * CHUNK + 7] {
            let mut recs = full.clone();
            recs.truncate(n);
            assert_eq!(recs.drops(), drops_of(&want[..n]), "truncate({n})");
            recs.extend(want[n..].iter().copied());
            assert_eq!(recs.drops(), full.drops(), "regrown after truncate({n})");
        }
    }

    #[test]
    fn index_at_step_and_iteration_match_a_slice() {
        // Steps with 3 records each, and gaps (steps without records).
        let mut want = reference(2 * CHUNK + 100, 3);
        for r in &mut want {
            r.step *= 2;
        }
        let recs: Recs = want.iter().copied().collect();
        let max = want.last().map_or(0, |r| r.step) + 3;
        for step in (0..=max).step_by(1).filter(|s| s % 97 < 6 || *s > max - 8) {
            assert_eq!(
                recs.index_at_step(step),
                want.partition_point(|r| r.step < step),
                "step {step}"
            );
        }
        for step in [0, 1, 2, max] {
            assert_eq!(
                recs.index_at_step(step),
                want.partition_point(|r| r.step < step)
            );
        }
        assert_eq!(
            recs.partition_point(|r| r.time <= 5_000),
            want.partition_point(|r| r.time <= 5_000)
        );
        assert!(recs.iter().rev().eq(want.iter().rev().copied()));
        let (a, b) = (CHUNK - 3, 2 * CHUNK + 7);
        assert!(recs.range(a..b).eq(want[a..b].iter().copied()));
        assert!(recs.range(..b).rev().eq(want[..b].iter().rev().copied()));
        assert!(recs.range(a..).eq(want[a..].iter().copied()));
        assert!(recs.range(a..=b).eq(want[a..=b].iter().copied()));
        assert_eq!(recs.range(a..b).len(), b - a);
        assert_eq!(recs.range(a..b).nth(5), Some(want[a + 5]));
        assert_eq!(recs.range(a..b).nth_back(5), Some(want[b - 6]));
        assert_eq!(recs.range(a..b).nth(b - a), None);
        assert_eq!(recs.first(), Some(want[0]));
        assert_eq!(recs.last(), want.last().copied());
        assert_eq!(Recs::new().last(), None);
        assert_eq!(Recs::new().index_at_step(5), 0);
    }

    #[test]
    fn trace_truncate_to_step_at_a_chunk_boundary() {
        // One record per step: step s is record s, so step CHUNK starts chunk 1 exactly.
        let want = reference(2 * CHUNK + 10, 1);
        let mut t = Trace::new(0);
        t.recs.extend(want.iter().copied());
        t.steps = want.len() as u64;
        let before = t.approx_bytes();
        t.truncate_to_step(CHUNK as u64);
        assert_eq!(t.recs.len(), CHUNK);
        assert_eq!(t.recs.chunks.len(), 1);
        assert_eq!(t.steps, CHUNK as u64);
        assert!(t.approx_bytes() < before);
        assert!(t.recs.iter().eq(want[..CHUNK].iter().copied()));
        t.recs.push(want[CHUNK]);
        assert_eq!(t.recs.chunks.len(), 2);
        assert_eq!(t.recs.bases[1], CHUNK as u64);
        assert_eq!(t.rec_index_at_step(CHUNK as u64 + 1), CHUNK + 1);
    }

    #[test]
    fn fnv_is_stable() {
        // Published FNV-1a 64 test vector.
        let mut h = Fnv::default();
        h.bytes(b"a");
        assert_eq!(h.0, 0xaf63_dc4c_8601_ec8c);
        let mut a = Fnv::default();
        a.str("ab");
        let mut b = Fnv::default();
        b.str("ab");
        assert_eq!(a, b);
        let mut c = Fnv::default();
        c.str("ba");
        assert_ne!(a, c);
    }

    /// The trace hash is pinned: a change here changes every `trace_hash` (re-bless the golden
    /// hashes and say so). Strings: length first, then zero-padded 8-byte words, so neither a
    /// split point nor trailing zero bytes can collide.
    #[test]
    fn trace_hash_is_stable_and_separates_strings() {
        let mut h = TraceHash::default();
        h.u64(1);
        h.str("ECHO_REQ");
        assert_eq!(h.0, {
            let mut x = TraceHash::default();
            x.u64(1);
            x.u64(8);
            x.u64(u64::from_le_bytes(*b"ECHO_REQ"));
            x.0
        });
        let one = |f: &dyn Fn(&mut TraceHash)| {
            let mut t = TraceHash::default();
            f(&mut t);
            t.0
        };
        let variants = [
            one(&|t| t.str("ab")),
            one(&|t| t.str("ba")),
            one(&|t| t.str("ab\0")),
            one(&|t| t.str("")),
            one(&|t| {
                t.str("a");
                t.str("b")
            }),
            one(&|t| t.str("abcdefghi")),
            one(&|t| t.str("abcdefgh")),
        ];
        for (i, a) in variants.iter().enumerate() {
            for b in &variants[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // Pinned value (computed independently): the same on every platform.
        assert_eq!(one(&|t| t.u64(0)), 0xf8bb_92c9_1b3f_5cc0);
    }
}
