//! What the mutation-tracking state takes in memory, for the engine's budget
//! (`Protocol::node_bytes`, `msg_bytes`, `task_bytes`): every table a node keeps, by its entries
//! and what they own on the heap. Approximate (a `BTreeMap` entry is counted as its key and value
//! plus half again for the tree's slack), but it counts everything that grows with a run: the
//! journal and the table, the logs' offset ranges, every read's coordinator and client record,
//! listeners, write callbacks, held and parked work. The engine asks every few thousand steps, so
//! what a long run keeps per mutation or read is not walked whole each time: past `SAMPLE`
//! entries, a table's heap is its count times the mean of its first and last entries.

use super::node::{Listeners, LogState, LogSummary, MtNode, Recon, Summary};
use super::offsets::{MutId, Offsets};
use super::{Msg, Task};
use std::collections::BTreeMap;
use std::mem::size_of;

/// Entries of a table measured one by one; a longer table is estimated from its ends.
pub const SAMPLE: usize = 256;

/// The sum of `f` over a table's values: exact up to `SAMPLE` entries, else the table's length
/// times the mean over its first and last `SAMPLE / 2` (deterministic, constant time).
fn sum_values<K, V>(m: &BTreeMap<K, V>, f: impl Fn(&V) -> usize) -> usize {
    if m.len() <= SAMPLE {
        return m.values().map(f).sum();
    }
    let half = SAMPLE / 2;
    let ends = m.values().take(half).map(&f).sum::<usize>()
        + m.values().rev().take(half).map(&f).sum::<usize>();
    ends * m.len() / SAMPLE
}

/// A `BTreeMap` entry: key and value, plus half again for partly filled tree nodes.
const fn entry<K, V>() -> usize {
    (size_of::<K>() + size_of::<V>()) * 3 / 2
}

fn offsets(o: &Offsets) -> usize {
    std::mem::size_of_val(o.ranges())
}

fn log_state(l: &LogState) -> usize {
    l.witnessed.capacity() * size_of::<Offsets>()
        + l.witnessed.iter().map(offsets).sum::<usize>()
        + offsets(&l.pending)
        + offsets(&l.snapshot_reconciled)
}

pub fn summary(s: &Summary) -> usize {
    s.0.capacity() * size_of::<LogSummary>()
        + s.0
            .iter()
            .map(|l| offsets(&l.reconciled) + offsets(&l.unreconciled))
            .sum::<usize>()
}

fn recon(r: &Recon) -> usize {
    r.summary_nodes.capacity() * 4
        + r.requested.len() * entry::<MutId, ()>()
        + r.summaries.capacity() * size_of::<(u32, Summary)>()
        + r.summaries.iter().map(|(_, s)| summary(s)).sum::<usize>()
        + r.accepting.len() * entry::<u32, (Summary, i64)>()
        + r.accepting.values().map(|(s, _)| summary(s)).sum::<usize>()
        + r.history.capacity() * size_of::<(u64, i32, u16, u16)>()
        + r.augment.capacity() * size_of::<(MutId, bool)>()
        + r.rows.heap_bytes()
}

/// Heap bytes a message owns beyond its inline size.
pub fn msg(m: &Msg) -> usize {
    match m {
        Msg::MutationReq(m, _) | Msg::PushMutationReq(m, _) => m.row.capacity(),
        Msg::MutationRsp(..) | Msg::ReadReconcileAck { .. } => 0,
        Msg::BroadcastLogOffsets(v) => {
            v.capacity() * size_of::<(u32, Offsets)>()
                + v.iter().map(|(_, o)| offsets(o)).sum::<usize>()
        }
        Msg::TrackedDataReadReq { summary_nodes, .. }
        | Msg::TrackedSummaryReq { summary_nodes, .. } => summary_nodes.capacity() * 4,
        Msg::TrackedSummaryRsp {
            summary_nodes,
            summary: s,
            ..
        } => summary_nodes.capacity() * 4 + summary(s),
        Msg::PullMutationsReq { offsets: o, .. } => offsets(o),
        Msg::TrackedReadRsp { rows, .. } => rows.heap_bytes(),
    }
}

/// Heap bytes a task owns beyond its inline size.
pub fn task(t: &Task) -> usize {
    match t {
        Task::Apply { m, .. } | Task::Finish { m, .. } => m.row.capacity(),
        Task::LocalRead { summary_nodes, .. } | Task::SummaryRead { summary_nodes, .. } => {
            summary_nodes.capacity() * 4
        }
        Task::Collect {
            summary_nodes,
            summary: s,
            ..
        } => summary_nodes.capacity() * 4 + summary(s),
        Task::Pull { offsets: o, .. } => offsets(o),
        Task::Count { .. } => 0,
    }
}

/// A node's state: inline and on the heap.
pub fn node(n: &MtNode) -> usize {
    size_of::<MtNode>()
        + n.logs.len() * entry::<u32, LogState>()
        + n.logs.values().map(log_state).sum::<usize>()
        + n.writes.len() * entry::<u32, super::node::PendingWrite>()
        + sum_values(&n.writes, |w| w.mutation.row.capacity())
        + n.callbacks.len() * entry::<u64, super::node::WriteCallback>()
        + n.journal.len() * entry::<MutId, super::Mutation>()
        + sum_values(&n.journal, |m| m.row.capacity())
        + n.data.len() * entry::<MutId, String>()
        + sum_values(&n.data, String::capacity)
        + n.listeners.len() * entry::<MutId, Listeners>()
        + sum_values(&n.listeners, |l| {
            l.callbacks.capacity() * size_of::<super::ReadId>()
        })
        + n.recons.len() * entry::<super::ReadId, Recon>()
        + sum_values(&n.recons, recon)
        + n.client_reads.len() * entry::<super::ReadId, super::ClientRead>()
        + sum_values(&n.client_reads, |c| {
            c.summary_nodes.capacity() * 4 + c.rows.heap_bytes()
        })
        + n.deliveries.capacity() * size_of::<super::Delivery>()
        + n.held.capacity() * size_of::<(u32, Msg)>()
        + n.held.iter().map(|(_, m)| msg(m)).sum::<usize>()
        + n.park.parked.capacity() * size_of::<Task>()
        + n.park.parked.iter().map(task).sum::<usize>()
        + n.heard.capacity() * size_of::<crate::time::Micros>()
        + (n.holding.len() + n.drop_next.len() + n.dup_next.len()) * 48
}
