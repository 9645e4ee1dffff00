//! One node's mutation-tracking state: its coordinator logs (witnessed offsets per participant,
//! reconciled, pending), the journal and applied rows, the node-global `IncomingMutations`
//! listener map, the read reconciliation coordinators, and the scenario hooks (held messages,
//! parked stage).

use super::offsets::{LogOffsets, MutId, Offsets};
use super::{Msg, Task};
use crate::engine::NodeId;
use crate::time::Micros;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A mutation: its id and the row it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutation {
    pub id: MutId,
    pub row: String,
}

/// A read id: the coordinator that issued it and its sequence number there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReadId {
    pub coord: NodeId,
    pub seq: u32,
}

/// One coordinator log as a node knows it (`CoordinatorLog`).
#[derive(Clone, Debug, Default)]
pub struct LogState {
    /// Witnessed offsets per participant (indexed by `NodeId`).
    pub witnessed: Vec<Offsets>,
    /// Offsets this node has started but not finished writing (`startWriting` .. `finishWriting`).
    pub pending: Offsets,
    /// Offsets marked reconciled by a reconciled-offsets snapshot (`recordFullyReconciledOffsets`).
    pub snapshot_reconciled: Offsets,
}

impl LogState {
    pub fn new(participants: usize) -> Self {
        LogState {
            witnessed: vec![Offsets::new(); participants],
            ..Default::default()
        }
    }
    /// Reconciled = witnessed by every participant (plus what a snapshot declared reconciled).
    pub fn reconciled(&self) -> Offsets {
        let mut it = self.witnessed.iter();
        let mut acc = it.next().cloned().unwrap_or_default();
        for w in it {
            acc = Offsets::intersect(&acc, w);
        }
        acc.union_with(&self.snapshot_reconciled);
        acc
    }
}

/// What one coordinator log contributes to a summary (`MutationSummary.CoordinatorSummary`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogSummary {
    pub log: NodeId,
    pub reconciled: Offsets,
    pub unreconciled: Offsets,
}

/// A `MutationSummary`: per log, reconciled and unreconciled offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary(pub Vec<LogSummary>);

impl Summary {
    /// `onlyUnreconciled()` (pre-patch collect) or `allOffsets()` (the bug-3 fix).
    pub fn offsets(&self, all: bool) -> impl Iterator<Item = (NodeId, Offsets)> + '_ {
        self.0.iter().filter_map(move |s| {
            let o = if all {
                Offsets::union(&s.reconciled, &s.unreconciled)
            } else {
                s.unreconciled.clone()
            };
            (!o.is_empty()).then_some((s.log, o))
        })
    }
}

/// A write this node coordinates, until every participant witnessed it.
#[derive(Clone, Debug)]
pub struct PendingWrite {
    pub mutation: Mutation,
    pub started_at: Micros,
    pub retries: u32,
}

/// A write callback: the mutation sent, to whom, and when the callback expires (`onFailure`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteCallback {
    pub id: MutId,
    pub to: NodeId,
    pub expires_at: Micros,
}

/// One entry of the `IncomingMutations` map: the read callbacks waiting for a mutation id.
#[derive(Clone, Debug)]
pub struct Listeners {
    pub created_at: Micros,
    pub callbacks: Vec<ReadId>,
}

/// How a read ended (or not yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pending,
    /// Data node: augmented and answered. Summary node: READ_RECONCILE_ACK sent.
    Completed,
    /// The coordinator expired before its counter reached zero.
    Timeout,
    /// `augment` found no journal entry for this id ("Missing mutation").
    Missing(MutId),
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pending => "pending",
            Outcome::Completed => "completed",
            Outcome::Timeout => "timeout",
            Outcome::Missing(_) => "missing-mutation",
        }
    }
}

/// The rows a read returns: how many, and the first `ROWS_SHOWN` of them. The model's table is
/// one partition that every read returns whole; a copy of it in every read, its answer and the
/// client's record made memory grow with reads x rows, quadratically in a run's duration under
/// load (issue 39).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    pub count: u32,
    pub shown: Vec<String>,
}

/// Rows a read keeps by value (for the trace and the panels); the rest are counted.
pub const ROWS_SHOWN: usize = 8;

impl Rows {
    /// The table's rows as a read returns them: all counted, the first `ROWS_SHOWN` kept.
    pub fn of_table(data: &BTreeMap<MutId, String>) -> Rows {
        Rows {
            count: data.len() as u32,
            shown: data.values().take(ROWS_SHOWN).cloned().collect(),
        }
    }
    pub fn push(&mut self, row: &str) {
        self.count += 1;
        if self.shown.len() < ROWS_SHOWN {
            self.shown.push(row.to_string());
        }
    }
    /// "a,b,c", or "a,b,...,h, +N more" past `ROWS_SHOWN`.
    pub fn list(&self) -> String {
        let mut s = self.shown.join(",");
        let more = self.count as usize - self.shown.len();
        if more > 0 {
            s += &format!(", +{more} more");
        }
        s
    }
    pub fn heap_bytes(&self) -> usize {
        self.shown.capacity() * std::mem::size_of::<String>()
            + self.shown.iter().map(String::capacity).sum::<usize>()
    }
}

/// `ReadReconciliations.Coordinator`: one read's reconciliation on this node.
#[derive(Clone, Debug)]
pub struct Recon {
    pub data_node: NodeId,
    pub summary_nodes: Vec<NodeId>,
    /// The packed counter: remaining mutations (i32, high 32 bits), summaries (16), sync acks (16).
    pub packed: u64,
    /// Ids already requested for this read (per read, not per node).
    pub requested: BTreeSet<MutId>,
    /// Summaries accepted so far (the local one under this node's id).
    pub summaries: Vec<(NodeId, Summary)>,
    /// `acceptRemoteSummary` in progress per remote node: the summary and the count so far.
    pub accepting: BTreeMap<NodeId, (Summary, i64)>,
    pub created_at: Micros,
    pub expires_at: Micros,
    pub outcome: Outcome,
    pub finished_at: Option<Micros>,
    /// (time, mutations, summaries, sync acks) after every counter update.
    pub history: Vec<(Micros, i32, u16, u16)>,
    /// Data node: the augment trace (id, found in the journal).
    pub augment: Vec<(MutId, bool)>,
    /// Data node: rows read locally, then the augmenting rows.
    pub rows: Rows,
}

pub const HISTORY_MAX: usize = 256;

pub fn pack(m: i32, s: u16, a: u16) -> u64 {
    ((m as u32 as u64) << 32) | ((s as u64) << 16) | a as u64
}

pub fn unpack(p: u64) -> (i32, u16, u16) {
    ((p >> 32) as u32 as i32, (p >> 16) as u16, p as u16)
}

impl Recon {
    pub fn counters(&self) -> (i32, u16, u16) {
        unpack(self.packed)
    }
}

/// The client side of a read on the node that issued it.
#[derive(Clone, Debug)]
pub struct ClientRead {
    pub data_node: NodeId,
    pub summary_nodes: Vec<NodeId>,
    pub issued_at: Micros,
    pub outcome: Outcome,
    pub rows: Rows,
}

/// One delivery of a mutation to `applyInternalTracked`.
#[derive(Clone, Debug)]
pub struct Delivery {
    pub at: Micros,
    pub id: MutId,
    pub via: &'static str,
    /// `startWriting` returned true.
    pub new: bool,
    /// Listener callbacks invoked (by finishWriting, or by the bug-1 fix on a duplicate).
    pub fired: u32,
}

pub const DELIVERIES_MAX: usize = 64;

/// A node's stage parked before a step: the matching task and every later task of its stage
/// wait in `parked` until `unpark`.
#[derive(Clone, Debug, Default)]
pub struct Park {
    /// The step label to park at (`Task` label) and how many of them to let through first.
    pub at: Option<(&'static str, u32)>,
    /// The executor parked, once the step came.
    pub stage: Option<u8>,
    pub parked: Vec<Task>,
}

#[derive(Clone, Debug, Default)]
pub struct MtNode {
    pub me: NodeId,
    pub participants: u32,
    pub logs: BTreeMap<NodeId, LogState>,
    pub next_offset: u32,
    pub writes: BTreeMap<u32, PendingWrite>,
    /// Write callbacks (`RequestCallbacks` of the MUTATION_REQs and PUSH_MUTATION_REQs this node
    /// sent), by number (the message id's part): the mutation is pushed again when one expires.
    pub callbacks: BTreeMap<u64, WriteCallback>,
    pub next_callback: u64,
    /// MutationJournal: every mutation this node journaled.
    pub journal: BTreeMap<MutId, Mutation>,
    /// The table (memtable): applied rows.
    pub data: BTreeMap<MutId, String>,
    /// IncomingMutations: node-global, keyed by mutation id.
    pub listeners: BTreeMap<MutId, Listeners>,
    pub listeners_expired: u64,
    /// Listener callbacks a duplicate delivery left waiting: pre-patch (bug 1) the duplicate
    /// skips `finishWriting` and so `invokeListeners` (always 0 with the fix).
    pub listeners_skipped: u64,
    pub recons: BTreeMap<ReadId, Recon>,
    pub client_reads: BTreeMap<ReadId, ClientRead>,
    pub next_read: u32,
    pub deliveries: VecDeque<Delivery>,
    pub duplicates: u64,
    /// Message kinds held on arrival, and the held messages in arrival order.
    pub holding: BTreeSet<&'static str>,
    pub held: Vec<(NodeId, Msg)>,
    /// Receiver: drop the next message of these kinds (from this sender, or from any: `None`).
    /// Sender: send the next one of these kinds (to this node, or to any) twice.
    pub drop_next: BTreeMap<(&'static str, Option<NodeId>), u32>,
    pub dup_next: BTreeMap<(&'static str, Option<NodeId>), u32>,
    pub park: Park,
    /// The failure detector's input: when this node last heard from each node (any message;
    /// volatile, every peer counts as just heard at a start).
    pub heard: Vec<Micros>,
}

impl MtNode {
    pub fn is_participant(&self, id: NodeId) -> bool {
        id < self.participants
    }

    pub fn log_mut(&mut self, log: NodeId) -> &mut LogState {
        let n = self.participants as usize;
        self.logs.entry(log).or_insert_with(|| LogState::new(n))
    }

    /// How many offsets of `log` this node knows were written: its own log's next offset, else
    /// one past the highest offset any replica is known to have witnessed or this node is
    /// writing (a reconciled snapshot can only name offsets below it).
    pub fn known_offsets(&self, log: NodeId) -> u32 {
        if log == self.me {
            return self.next_offset;
        }
        self.logs.get(&log).map_or(0, |l| {
            l.witnessed
                .iter()
                .chain([&l.pending, &l.snapshot_reconciled])
                .filter_map(|o| o.ranges().last().map(|r| r.1.saturating_add(1)))
                .max()
                .unwrap_or(0)
        })
    }

    pub fn witnessed_locally(&self, id: MutId) -> bool {
        self.logs
            .get(&id.log)
            .is_some_and(|l| l.witnessed[self.me as usize].contains(id.offset))
    }

    /// The local `MutationSummary` (`createMutationSummary(includePending)`): per log the
    /// reconciled offsets and the unreconciled ones witnessed here, plus, with `include_pending`,
    /// those being written (`UnreconciledMutations.collect` skips PENDING entries without it).
    /// The data node's secondary summary includes them, a summary node's does not
    /// (`ReadReconciliations.handleSummaryRequest`: `createMutationSummary(false)`).
    pub fn summary(&self, include_pending: bool) -> Summary {
        let me = self.me as usize;
        let mut out = Vec::new();
        for (&log, l) in &self.logs {
            let reconciled = l.reconciled();
            let mut unreconciled = if include_pending {
                Offsets::union(&l.witnessed[me], &l.pending)
            } else {
                l.witnessed[me].clone()
            };
            unreconciled.subtract(&reconciled);
            if !reconciled.is_empty() || !unreconciled.is_empty() {
                out.push(LogSummary {
                    log,
                    reconciled,
                    unreconciled,
                });
            }
        }
        Summary(out)
    }

    /// `collectLocallyMissingMutations`: offsets of the remote summary this node has not
    /// witnessed (an unknown log: all of them).
    pub fn collect_locally_missing(&self, remote: &Summary, all_offsets: bool) -> LogOffsets {
        let mut into = LogOffsets::default();
        for (log, offsets) in remote.offsets(all_offsets) {
            match self.logs.get(&log) {
                None => into.add_all(log, &offsets),
                Some(l) => {
                    let mut missing = offsets;
                    missing.subtract(&l.witnessed[self.me as usize]);
                    into.add_all(log, &missing);
                }
            }
        }
        into
    }

    /// `IncomingMutations.subscribe`: always adds the callback; true for the first listener.
    pub fn subscribe(&mut self, id: MutId, read: ReadId, now: Micros) -> bool {
        match self.listeners.get_mut(&id) {
            Some(l) => {
                l.callbacks.push(read);
                false
            }
            None => {
                self.listeners.insert(
                    id,
                    Listeners {
                        created_at: now,
                        callbacks: vec![read],
                    },
                );
                true
            }
        }
    }

    /// A listener entry nobody will fire: its id is witnessed here and nothing is pending.
    pub fn is_orphaned(&self, id: MutId) -> bool {
        self.witnessed_locally(id)
            && !self
                .logs
                .get(&id.log)
                .is_some_and(|l| l.pending.contains(id.offset))
    }

    pub fn record_delivery(&mut self, d: Delivery) {
        if !d.new {
            self.duplicates += 1;
        }
        if self.deliveries.len() == DELIVERIES_MAX {
            self.deliveries.pop_front();
        }
        self.deliveries.push_back(d);
    }

    /// Find a read by its key: "node1/r1" or "r1" (unique among this node's reads).
    pub fn find_read(&self, key: &str, name_of: impl Fn(NodeId) -> String) -> Option<ReadId> {
        let ids = self.recons.keys().chain(self.client_reads.keys());
        let mut found = None;
        for id in ids {
            let full = format!("{}/r{}", name_of(id.coord), id.seq);
            let short = format!("r{}", id.seq);
            if key == full || key == short {
                if found.is_some_and(|f| f != *id) {
                    return None;
                }
                found = Some(*id);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_counter_round_trips_negative_mutations() {
        for (m, s, a) in [(0, 0, 0), (-1, 2, 1), (5, 0, 0), (i32::MIN, 65535, 7)] {
            assert_eq!(unpack(pack(m, s, a)), (m, s, a));
        }
        assert_eq!(pack(0, 0, 0), 0);
        assert_ne!(pack(-1, 0, 0), 0);
    }

    #[test]
    fn reconciled_is_witnessed_by_all() {
        let mut l = LogState::new(3);
        l.witnessed[0].add(0);
        l.witnessed[1].add(0);
        l.witnessed[0].add(1);
        assert!(l.reconciled().is_empty());
        l.witnessed[2].add(0);
        assert_eq!(l.reconciled().to_string(), "{0}");
        l.snapshot_reconciled.add(4);
        assert_eq!(l.reconciled().to_string(), "{0,4}");
    }

    #[test]
    fn subscribe_reports_the_first_listener_and_keeps_every_callback() {
        let mut n = MtNode {
            participants: 3,
            ..Default::default()
        };
        let id = MutId::new(1, 0);
        let (a, b) = (ReadId { coord: 0, seq: 1 }, ReadId { coord: 0, seq: 2 });
        assert!(n.subscribe(id, a, 0));
        assert!(!n.subscribe(id, b, 1));
        assert_eq!(n.listeners[&id].callbacks, vec![a, b]);
        assert_eq!(n.listeners[&id].created_at, 0);
    }
}
