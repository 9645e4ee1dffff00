//! The data of the sequence diagram: messages among a set of nodes in a window of virtual time
//! ending at the cursor, paired send -> deliver/drop, plus state changes on the lifelines.

use clusterscope_core::engine::trace::{DropReason, RecKind, Trace};
use clusterscope_core::engine::NodeId;
use clusterscope_core::time::Micros;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    Delivered(Micros),
    Dropped(Micros, DropReason),
    /// Still on the wire at the cursor; expected at this time.
    InFlight(Micros),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    pub msg: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub label: &'static str,
    /// `None` when the message was dropped before it left (no send record): drawn as a stub.
    pub sent_at: Micros,
    pub fate: Fate,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub node: NodeId,
    pub time: Micros,
    pub label: &'static str,
    /// The peer a state change is about.
    pub peer: Option<NodeId>,
    pub bad: bool,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Diagram {
    pub from: Micros,
    pub to: Micros,
    pub arrows: Vec<Arrow>,
    pub events: Vec<Event>,
    /// The window was cut to keep the diagram readable.
    pub truncated: bool,
}

/// Messages sent by or to one of `nodes` before the cursor, newest `max_arrows`, and the newest
/// `max_events` state changes on their lifelines (records scanned bounded by `scan_limit`). The
/// window starts at the oldest arrow kept. Every limit keeps the picture readable and its cost
/// bounded: a node that just started marks hundreds of peers UP within a few milliseconds. A
/// state mark named like one of `kinds` (gossip marks "ECHO_REQ" when it sends one) repeats the
/// message's arrow and is left out.
#[allow(clippy::too_many_arguments)]
pub fn diagram(
    trace: &Trace,
    kinds: &[clusterscope_core::model::MsgKind],
    cursor: u64,
    now: Micros,
    nodes: &[NodeId],
    max_arrows: usize,
    max_events: usize,
    scan_limit: usize,
) -> Diagram {
    let ci = trace.rec_index_at_step(cursor);
    let want = |n: u32| nodes.contains(&n);
    // Outcomes seen so far while scanning backwards (they come after their send).
    let mut fates: BTreeMap<u64, Fate> = BTreeMap::new();
    let mut arrows: Vec<Arrow> = Vec::new();
    let mut events: Vec<Event> = Vec::new();
    let mut truncated = false;
    let mut scanned = 0usize;
    for r in trace.recs.range(..ci).rev() {
        scanned += 1;
        if scanned > scan_limit {
            truncated = true;
            break;
        }
        match r.kind {
            RecKind::Deliver { msg, .. } => {
                fates.insert(msg, Fate::Delivered(r.time));
            }
            RecKind::Drop {
                msg,
                from,
                to,
                label,
                reason,
            } => {
                if r.node == from {
                    // Lost at the sender: there is no send record.
                    if want(from) && want(to) {
                        arrows.push(Arrow {
                            msg,
                            from,
                            to,
                            label,
                            sent_at: r.time,
                            fate: Fate::Dropped(r.time, reason),
                        });
                    }
                } else {
                    fates.insert(msg, Fate::Dropped(r.time, reason));
                }
            }
            RecKind::Send {
                msg,
                to,
                label,
                deliver_at,
            } => {
                if want(r.node) && want(to) {
                    let fate = fates.remove(&msg).unwrap_or(Fate::InFlight(deliver_at));
                    arrows.push(Arrow {
                        msg,
                        from: r.node,
                        to,
                        label,
                        sent_at: r.time,
                        fate,
                    });
                } else {
                    fates.remove(&msg);
                }
            }
            RecKind::State { .. } | RecKind::TaskExpired { .. }
                if want(r.node) && events.len() >= max_events =>
            {
                truncated = true;
            }
            RecKind::State { label, peer }
                if want(r.node) && !kinds.iter().any(|k| k.label == label) =>
            {
                events.push(Event {
                    node: r.node,
                    time: r.time,
                    label,
                    peer: Some(peer),
                    bad: label == "DOWN",
                });
            }
            RecKind::TaskExpired { label, .. } if want(r.node) => events.push(Event {
                node: r.node,
                time: r.time,
                label,
                peer: None,
                bad: true,
            }),
            _ => {}
        }
        if arrows.len() >= max_arrows {
            truncated = true;
            break;
        }
    }
    arrows.reverse();
    events.reverse();
    let from = arrows
        .first()
        .map(|a| a.sent_at)
        .unwrap_or(now.saturating_sub(1_000_000))
        .min(now);
    events.retain(|e| e.time >= from);
    Diagram {
        from,
        to: now,
        arrows,
        events,
        truncated,
    }
}

/// The peers `node` exchanged messages with most recently before the cursor (newest first, at
/// most `k`), scanning at most `scan_limit` records: a useful sequence-diagram set in a large
/// cluster, where gossip partners are random.
pub fn recent_partners(
    trace: &Trace,
    cursor: u64,
    node: NodeId,
    k: usize,
    scan_limit: usize,
) -> Vec<NodeId> {
    let ci = trace.rec_index_at_step(cursor);
    let mut out: Vec<NodeId> = Vec::new();
    for r in trace.recs.range(..ci).rev().take(scan_limit) {
        let peer = match r.kind {
            RecKind::Send { to, .. } if r.node == node => Some(to),
            RecKind::Deliver { from, .. } if r.node == node => Some(from),
            _ => None,
        };
        if let Some(p) = peer {
            if p != node && !out.contains(&p) {
                out.push(p);
                if out.len() >= k {
                    break;
                }
            }
        }
    }
    out
}

/// A message label's height above its baseline in the diagram's units (10-unit text; the box
/// keeps 2 more below it, `labels::TextBox`).
pub const LABEL_H: f64 = 9.0;

/// Estimated width of a message label of `chars` characters (10-unit bold uppercase).
pub fn label_width(chars: usize) -> f64 {
    chars as f64 * 6.8 + 4.0
}

/// Whether two of `nodes` exchanged a message in the last `scan_limit` records before the cursor.
pub fn exchanges_among(trace: &Trace, cursor: u64, nodes: &[NodeId], scan_limit: usize) -> bool {
    let ci = trace.rec_index_at_step(cursor);
    trace
        .recs
        .range(..ci)
        .rev()
        .take(scan_limit)
        .any(|r| match r.kind {
            RecKind::Send { to, .. } => nodes.contains(&r.node) && nodes.contains(&to),
            RecKind::Deliver { from, .. } => nodes.contains(&r.node) && nodes.contains(&from),
            _ => false,
        })
}
