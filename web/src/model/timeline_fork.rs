//! Fork from the timeline (issue 18): what a click on the timeline can fork. A click near a
//! dropped-message mark offers "deliver it" ([`Msg::Fork`] with `MsgFate::Deliver`); a click
//! near a state mark (gossip: a node marked DOWN or UP) offers the log's fork actions for that
//! node at that time ([`Msg::ForkAt`]: kill, restart, stall one of its threads). The page
//! (`ui/timeline_fork.rs`) shows them under the timeline; this is the pure part.

use super::nav::MarkKind;
use super::Model;
use clusterscope_core::engine::trace::RecKind;
use clusterscope_core::engine::NodeId;
use clusterscope_core::time::Micros;

/// Most dropped messages offered for one click (the nearest first).
pub const MAX_PICKED_DROPS: usize = 3;
/// Most nodes offered for one click (the nearest state marks first).
pub const MAX_PICKED_NODES: usize = 2;

/// A dropped message near the click.
#[derive(Clone, Debug, PartialEq)]
pub struct PickedDrop {
    pub msg: u64,
    pub time: Micros,
    pub label: &'static str,
    pub from: NodeId,
    pub to: NodeId,
}

/// What a click on the timeline at `at` can fork.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelinePick {
    /// Where a node action acts: the nearest state mark's time, else the click's.
    pub at: Micros,
    pub drops: Vec<PickedDrop>,
    /// Nodes with a state mark near the click (nearest first).
    pub nodes: Vec<NodeId>,
    /// The session the pick was made in (a pick of another session is stale).
    pub session_rev: u64,
}

impl Model {
    /// The marks within `[lo, hi]` (the click `at` give or take a few pixels) that a fork can
    /// start from; `None` when there is none. Drops count only where the timeline draws them
    /// (a window holding at most `MAX_DROP_SCAN` records), and only computed ones.
    pub fn timeline_pick(&self, lo: Micros, hi: Micros, at: Micros) -> Option<TimelinePick> {
        let trace = self.run.engine.trace();
        let dist = |t: Micros| t.abs_diff(at);
        let mut drops = Vec::new();
        let (vlo, vhi) = self.view();
        let va = trace.recs.partition_point(|r| r.time < vlo);
        let vb = trace.recs.partition_point(|r| r.time <= vhi);
        if vb.saturating_sub(va) <= super::teach::MAX_DROP_SCAN {
            let a = trace.recs.partition_point(|r| r.time < lo);
            let b = trace.recs.partition_point(|r| r.time <= hi);
            for r in trace.recs.range(a..b) {
                if let RecKind::Drop {
                    msg,
                    from,
                    to,
                    label,
                    ..
                } = r.kind
                {
                    drops.push(PickedDrop {
                        msg,
                        time: r.time,
                        label,
                        from,
                        to,
                    });
                }
            }
            // Nearest first; the same message once. (With the time, a total order on the
            // records. `small_sort`, not the standard library's sort: its instance for this one
            // list was ~6 KB of the first download's wasm, issue 44; a few pixels of the
            // timeline hold a few thousand records at most.)
            clusterscope_core::small_sort::sort_by_key(&mut drops, |d| {
                (dist(d.time), d.msg, d.time)
            });
            drops.dedup_by_key(|d| d.msg);
            drops.truncate(MAX_PICKED_DROPS);
        }
        let marks = &self.marks.marks;
        let a = marks.partition_point(|k| k.time < lo);
        let b = marks.partition_point(|k| k.time <= hi).max(a);
        let mut near: Vec<_> = marks[a..b]
            .iter()
            .filter(|k| matches!(k.kind, MarkKind::Down | MarkKind::Up))
            .collect();
        clusterscope_core::small_sort::sort_by_key(&mut near, |k| (dist(k.time), k.node));
        let mut nodes: Vec<NodeId> = Vec::new();
        for k in &near {
            if !nodes.contains(&k.node) && nodes.len() < MAX_PICKED_NODES {
                nodes.push(k.node);
            }
        }
        if drops.is_empty() && nodes.is_empty() {
            return None;
        }
        let at = near.first().map_or(at, |k| k.time);
        Some(TimelinePick {
            at,
            drops,
            nodes,
            session_rev: self.session_rev,
        })
    }
}
