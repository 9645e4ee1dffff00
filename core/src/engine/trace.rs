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
}

impl DropReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::LinkDown => "link down",
            DropReason::Loss => "loss",
            DropReason::NodeStopped => "node stopped",
            DropReason::NodeRestarted => "node restarted",
            DropReason::Discarded => "discarded by receiver",
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
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Trace => "TRACE",
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warn => "WARN",
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

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogLine {
    pub time: Micros,
    pub node: u32,
    pub level: LogLevel,
    pub text: String,
}

/// FNV-1a, 64 bit: tiny, portable, and stable across platforms and versions.
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

/// Mix one record into a running hash. Labels and log text are hashed by content.
pub fn hash_rec(h: &mut Fnv, r: &Rec, log_text: Option<&str>) {
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

/// Everything recorded so far. Append-only while running forward; truncated when a user acts in
/// the past (the old future is discarded).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub recs: Vec<Rec>,
    pub logs: Vec<LogLine>,
    /// Rendered message bodies, by message id, while `body_budget` lasts.
    pub bodies: Vec<(u64, String)>,
    pub body_bytes: usize,
    pub body_budget: usize,
    pub bodies_truncated: bool,
    /// Faults and user actions as they were applied (`RecKind::Action` points here).
    pub actions: Vec<crate::engine::action::AppliedAction>,
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

    pub fn body(&self, msg: u64) -> Option<&str> {
        self.bodies
            .binary_search_by_key(&msg, |(id, _)| *id)
            .ok()
            .map(|i| self.bodies[i].1.as_str())
    }

    /// First record index with `step >= step`.
    pub fn rec_index_at_step(&self, step: u64) -> usize {
        self.recs.partition_point(|r| r.step < step)
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
        let keep_bodies = match first_msg {
            Some(m) => self.bodies.partition_point(|(id, _)| *id <= m),
            None => 0,
        };
        for (_, b) in self.bodies.drain(keep_bodies..) {
            self.body_bytes -= b.len();
        }
        self.actions.retain(|a| a.step < step);
        self.steps = self.steps.min(step);
    }

    /// Approximate retained bytes (records + arenas), for the memory budget and the benchmark.
    pub fn approx_bytes(&self) -> usize {
        self.recs.capacity() * std::mem::size_of::<Rec>()
            + self
                .logs
                .iter()
                .map(|l| l.text.capacity() + std::mem::size_of::<LogLine>())
                .sum::<usize>()
            + self.body_bytes
    }
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
                put("text", l.text.clone().into());
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
    use super::*;

    #[test]
    fn record_is_small() {
        // The retained trace must stay under 100 bytes per event; a record is the bulk of it.
        assert!(
            std::mem::size_of::<Rec>() <= 64,
            "Rec is {} bytes",
            std::mem::size_of::<Rec>()
        );
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
}
