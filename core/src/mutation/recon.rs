//! Tracked reads and `ReadReconciliations.Coordinator`.
//!
//! The read's coordinator sends TRACKED_DATA_READ_REQ to the data node and TRACKED_SUMMARY_REQ
//! to the summary nodes. Every participant runs a reconciliation coordinator with the packed
//! counter (remaining mutations, summaries = 1 + |summary nodes|, sync acks = |summary nodes| on
//! the data node, 0 elsewhere). Each node sends its summary to the others
//! (`acceptLocalSummary`); each remote summary is accepted in three ReadStage steps, as
//! `acceptRemoteSummary` does them in order: `collect` (collectLocallyMissingMutations, minus
//! and into `requested`), one `pull` per log (register a callback per id in the node-global
//! IncomingMutations, PULL_MUTATIONS_REQ for the first-listener ids), then `count`
//! (`summaries.add`, `updateRemainingAndMaybeComplete(count, -1, 0)`). A pulled mutation can
//! arrive between a pull and the count: the remaining mutations then go briefly negative, as in
//! the code. At zero: a summary node sends READ_RECONCILE_ACK; the data node computes
//! augmentingOffsets (remote summaries minus the local one, reconciled and unreconciled) and
//! reads each from its journal: a miss ends the read with "Missing mutation <id>".

use super::node::{pack, ClientRead, Outcome, ReadId, Recon, Rows, HISTORY_MAX};
use super::offsets::{LogOffsets, MutId, Offsets};
use super::params::CountMode;
use super::{Msg, MtNode, MutationTracking, Summary, Task, MUTATION_STAGE, READ_STAGE};
use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId};
use crate::time::Micros;

impl MutationTracking {
    pub(super) fn rid(&self, ctx: &Ctx<Self>, r: ReadId) -> String {
        format!("{}/r{}", self.nm(ctx, r.coord), r.seq)
    }

    pub(super) fn dispatch(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, from: NodeId, msg: Msg) {
        // a node outside the shard has no logs and takes part in no reconciliation: only the
        // answer to a read it coordinates is for it (nothing sends it the rest; refused, should
        // anything, rather than indexing its witnessed offsets out of bounds)
        if !node.is_participant(ctx.me) && !matches!(msg, Msg::TrackedReadRsp { .. }) {
            ctx.log(
                LogLevel::Warn,
                format_args!(
                    "{} from {}: {} is not a replica of the shard, ignored",
                    super::msg_kind(&msg),
                    self.nm(ctx, from),
                    self.nm(ctx, ctx.me)
                ),
            );
            return;
        }
        match msg {
            Msg::MutationReq(m, cb) => ctx.submit(
                MUTATION_STAGE,
                Task::Apply {
                    m,
                    via: "MUTATION_REQ",
                    reply: Some((from, cb)),
                },
                None,
            ),
            Msg::PushMutationReq(m, cb) => ctx.submit(
                MUTATION_STAGE,
                Task::Apply {
                    m,
                    via: "PUSH_MUTATION_REQ",
                    reply: Some((from, cb)),
                },
                None,
            ),
            Msg::MutationRsp(id, cb) => self.write_response(node, ctx, from, id, cb),
            Msg::BroadcastLogOffsets(v) => {
                for (log, o) in v {
                    self.witnessed_by(node, from, log, &o);
                }
            }
            Msg::TrackedDataReadReq {
                read,
                summary_nodes,
            } => ctx.submit(
                READ_STAGE,
                Task::LocalRead {
                    read,
                    summary_nodes,
                },
                None,
            ),
            Msg::TrackedSummaryReq {
                read,
                data_node,
                summary_nodes,
            } => ctx.submit(
                READ_STAGE,
                Task::SummaryRead {
                    read,
                    data_node,
                    summary_nodes,
                },
                None,
            ),
            Msg::TrackedSummaryRsp {
                read,
                data_node,
                summary_nodes,
                summary,
            } => ctx.submit(
                READ_STAGE,
                Task::Collect {
                    read,
                    from,
                    data_node,
                    summary_nodes,
                    summary,
                },
                None,
            ),
            Msg::PullMutationsReq { log, offsets } => {
                // requestMissingMutations: the ActiveLogReconciler pushes each from the journal,
                // with a callback (retried like a write when it fails)
                for off in offsets.iter() {
                    self.push(node, ctx, MutId::new(log, off), from);
                }
            }
            Msg::ReadReconcileAck { read } => self.accept_sync_ack(node, ctx, read, from),
            Msg::TrackedReadRsp {
                read,
                outcome,
                rows,
            } => {
                if let Some(c) = node.client_reads.get_mut(&read) {
                    if c.outcome == Outcome::Pending {
                        c.outcome = outcome;
                        c.rows = rows;
                    }
                }
            }
        }
    }

    /// The `read` command: this node coordinates a tracked read.
    pub(super) fn issue_read(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        data_node: NodeId,
        summary_nodes: Vec<NodeId>,
    ) -> ReadId {
        node.next_read += 1;
        let read = ReadId {
            coord: ctx.me,
            seq: node.next_read,
        };
        node.client_reads.insert(
            read,
            ClientRead {
                data_node,
                summary_nodes: summary_nodes.clone(),
                issued_at: ctx.now,
                outcome: Outcome::Pending,
                rows: Rows::default(),
            },
        );
        ctx.log(
            LogLevel::Info,
            format_args!(
                "TrackedRead {}: data node {}, summary nodes [{}]",
                self.rid(ctx, read),
                self.nm(ctx, data_node),
                summary_nodes
                    .iter()
                    .map(|n| self.nm(ctx, *n))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        );
        self.send(
            node,
            ctx,
            data_node,
            Msg::TrackedDataReadReq {
                read,
                summary_nodes: summary_nodes.clone(),
            },
        );
        for &s in &summary_nodes {
            self.send(
                node,
                ctx,
                s,
                Msg::TrackedSummaryReq {
                    read,
                    data_node,
                    summary_nodes: summary_nodes.clone(),
                },
            );
        }
        read
    }

    fn get_or_create<'a>(
        &self,
        node: &'a mut MtNode,
        ctx: &Ctx<Self>,
        read: ReadId,
        data_node: NodeId,
        summary_nodes: &[NodeId],
    ) -> &'a mut Recon {
        let me = ctx.me;
        let now = ctx.now;
        let expiry = self.p.read_expiry();
        node.recons.entry(read).or_insert_with(|| {
            let summaries = 1 + summary_nodes.len() as u16;
            let acks = if data_node == me {
                summary_nodes.len() as u16
            } else {
                0
            };
            Recon {
                data_node,
                summary_nodes: summary_nodes.to_vec(),
                packed: pack(0, summaries, acks),
                requested: Default::default(),
                summaries: Vec::new(),
                accepting: Default::default(),
                created_at: now,
                expires_at: now + expiry,
                outcome: Outcome::Pending,
                finished_at: None,
                history: vec![(now, 0, summaries, acks)],
                augment: Vec::new(),
                rows: Rows::default(),
            }
        })
    }

    /// Data node: TrackedLocalReads — read the table, build the local summary, accept it.
    pub(super) fn local_read(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        read: ReadId,
        summary_nodes: Vec<NodeId>,
    ) {
        let rows = Rows::of_table(&node.data);
        // the secondary summary: createMutationSummary(true)
        let summary = node.summary(true);
        let r = self.get_or_create(node, ctx, read, ctx.me, &summary_nodes);
        r.rows = rows;
        self.accept_local_summary(node, ctx, read, summary);
    }

    /// Summary node: `handleSummaryRequest`.
    pub(super) fn summary_read(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        read: ReadId,
        data_node: NodeId,
        summary_nodes: Vec<NodeId>,
    ) {
        // createMutationSummary(false): what this node is still writing is left out
        let summary = node.summary(false);
        self.get_or_create(node, ctx, read, data_node, &summary_nodes);
        self.accept_local_summary(node, ctx, read, summary);
    }

    /// `acceptLocalSummary`: send it to every other participant of the read, count it.
    fn accept_local_summary(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        read: ReadId,
        summary: Summary,
    ) {
        let r = &node.recons[&read];
        if r.outcome != Outcome::Pending {
            return;
        }
        let (data_node, summary_nodes) = (r.data_node, r.summary_nodes.clone());
        let mut remote: Vec<NodeId> = Vec::new();
        if data_node != ctx.me {
            remote.push(data_node);
        }
        remote.extend(summary_nodes.iter().copied().filter(|n| *n != ctx.me));
        for to in remote {
            self.send(
                node,
                ctx,
                to,
                Msg::TrackedSummaryRsp {
                    read,
                    data_node,
                    summary_nodes: summary_nodes.clone(),
                    summary: summary.clone(),
                },
            );
        }
        let me = ctx.me;
        node.recons
            .get_mut(&read)
            .expect("created above")
            .summaries
            .push((me, summary));
        self.update(node, ctx, read, 0, -1, 0);
    }

    /// `acceptRemoteSummary`, step 1: collectLocallyMissingMutations, dedup with `requested`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn collect(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        read: ReadId,
        from: NodeId,
        data_node: NodeId,
        summary_nodes: Vec<NodeId>,
        summary: Summary,
    ) {
        if !node.recons.contains_key(&read) && !node.is_participant(ctx.me) {
            return;
        }
        self.get_or_create(node, ctx, read, data_node, &summary_nodes);
        if node.recons[&read].outcome != Outcome::Pending {
            return;
        }
        let mut missing: LogOffsets =
            node.collect_locally_missing(&summary, self.p.fix_collect_all_offsets);
        let r = node.recons.get_mut(&read).expect("created above");
        for id in r.requested.iter() {
            missing.remove(*id);
        }
        for id in missing.ids() {
            r.requested.insert(id);
        }
        let missing_count = missing.id_count() as i64;
        let start = match self.p.count_mode() {
            CountMode::MissingCount => missing_count,
            _ => 0,
        };
        r.accepting.insert(from, (summary, start));
        let list: Vec<String> = missing.ids().map(|id| self.fmt_id(ctx, id)).collect();
        ctx.log(
            LogLevel::Info,
            format_args!(
                "acceptRemoteSummary {} from {}: collectLocallyMissingMutations ({}) = [{}]",
                self.rid(ctx, read),
                self.nm(ctx, from),
                if self.p.fix_collect_all_offsets {
                    "allOffsets"
                } else {
                    "onlyUnreconciled"
                },
                list.join(",")
            ),
        );
        for (log, offsets) in missing.0 {
            ctx.submit(
                READ_STAGE,
                Task::Pull {
                    read,
                    from,
                    log,
                    offsets,
                },
                None,
            );
        }
        ctx.submit(READ_STAGE, Task::Count { read, from }, None);
    }

    /// `acceptRemoteSummary`, step 2 (one log): `pull()`.
    pub(super) fn pull(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        read: ReadId,
        from: NodeId,
        log: NodeId,
        offsets: Offsets,
    ) {
        if node
            .recons
            .get(&read)
            .is_none_or(|r| r.outcome != Outcome::Pending)
        {
            return;
        }
        let mut to_pull = Offsets::new();
        let mut registered = 0i64;
        let mut first = 0i64;
        for off in offsets.iter() {
            let id = MutId::new(log, off);
            registered += 1;
            if node.subscribe(id, read, ctx.now) {
                first += 1;
                to_pull.add(off);
            }
        }
        let counted = match self.p.count_mode() {
            CountMode::MissingCount => 0,
            CountMode::FirstListener => first,
            CountMode::Callbacks => registered,
        };
        if let Some((_, c)) = node
            .recons
            .get_mut(&read)
            .and_then(|r| r.accepting.get_mut(&from))
        {
            *c += counted;
        }
        // `pull`: from the log's coordinator if `FailureDetector.isAlive(logCoordinator)`, else
        // from the summary's sender ("by definition it also has the mutation")
        let coordinator = log < ctx.topo.len() && log != ctx.me;
        let down = coordinator && !self.is_alive(node, ctx.now, log);
        let pull_from = if coordinator && !down { log } else { from };
        if down && !to_pull.is_empty() {
            let silent = ctx.now - node.heard[log as usize];
            ctx.log(
                LogLevel::Info,
                format_args!(
                    "FailureDetector: log coordinator {} is down (nothing heard for {}): pulling from {}",
                    self.nm(ctx, log),
                    crate::time::fmt_duration(silent),
                    self.nm(ctx, from)
                ),
            );
        }
        ctx.log(
            LogLevel::Info,
            format_args!(
                "pull {} log {} {offsets}: {registered} callback(s) registered, {first} first listener(s){}",
                self.rid(ctx, read),
                self.nm(ctx, log),
                if to_pull.is_empty() {
                    String::from(", nothing to send")
                } else {
                    format!(", PULL_MUTATIONS_REQ {to_pull} to {}", self.nm(ctx, pull_from))
                }
            ),
        );
        if !to_pull.is_empty() {
            self.send(
                node,
                ctx,
                pull_from,
                Msg::PullMutationsReq {
                    log,
                    offsets: to_pull,
                },
            );
        }
    }

    /// `FailureDetector.isAlive(peer)`: this node itself always; otherwise alive unless nothing
    /// has come from the peer for `convict_after` (off, "0s", or with broadcasts off: alive).
    pub(super) fn is_alive(&self, node: &MtNode, now: Micros, peer: NodeId) -> bool {
        let limit = self.p.convict_after.0;
        if peer == node.me || limit == 0 || self.p.broadcast_interval.0 == 0 {
            return true;
        }
        node.heard
            .get(peer as usize)
            .is_none_or(|&t| now.saturating_sub(t) <= limit)
    }

    /// `acceptRemoteSummary`, step 3: `summaries.add`, update the counter.
    pub(super) fn count(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, read: ReadId, from: NodeId) {
        let Some(r) = node.recons.get_mut(&read) else {
            return;
        };
        let Some((summary, count)) = r.accepting.remove(&from) else {
            return;
        };
        if r.outcome != Outcome::Pending {
            return;
        }
        r.summaries.push((from, summary));
        self.update(node, ctx, read, count as i32, -1, 0);
    }

    pub(super) fn accept_mutation(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        read: ReadId,
        _id: MutId,
    ) {
        if node
            .recons
            .get(&read)
            .is_some_and(|r| r.outcome == Outcome::Pending)
        {
            self.update(node, ctx, read, -1, 0, 0);
        }
    }

    fn accept_sync_ack(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, read: ReadId, _from: NodeId) {
        if node
            .recons
            .get(&read)
            .is_some_and(|r| r.outcome == Outcome::Pending)
        {
            self.update(node, ctx, read, 0, 0, -1);
        }
    }

    /// `updateRemainingAndMaybeComplete`.
    fn update(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        read: ReadId,
        dm: i32,
        ds: i32,
        da: i32,
    ) {
        let r = node.recons.get_mut(&read).expect("a pending read");
        let (m, s, a) = r.counters();
        let (m, s, a) = (
            m.wrapping_add(dm),
            s.wrapping_add(ds as u16),
            a.wrapping_add(da as u16),
        );
        r.packed = pack(m, s, a);
        if r.history.len() < HISTORY_MAX {
            r.history.push((ctx.now, m, s, a));
        }
        ctx.log(
            LogLevel::Debug,
            format_args!(
                "{}: remaining mutations {m}, summaries {s}, sync acks {a}",
                self.rid(ctx, read)
            ),
        );
        if r.packed == 0 {
            self.complete(node, ctx, read);
        }
    }

    /// `complete()`: the data node augments and answers; a summary node acks.
    fn complete(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, read: ReadId) {
        let r = node.recons.get(&read).expect("a pending read");
        if r.data_node != ctx.me {
            let dn = r.data_node;
            let r = node.recons.get_mut(&read).expect("a pending read");
            r.outcome = Outcome::Completed;
            r.finished_at = Some(ctx.now);
            ctx.log(
                LogLevel::Info,
                format_args!(
                    "{} reconciled here: READ_RECONCILE_ACK",
                    self.rid(ctx, read)
                ),
            );
            self.send(node, ctx, dn, Msg::ReadReconcileAck { read });
            return;
        }
        // augmentingOffsets: every remote summary (reconciled and unreconciled) minus the local
        let mut aug = LogOffsets::default();
        for (n, s) in &r.summaries {
            if *n != ctx.me {
                for (log, o) in s.offsets(true) {
                    aug.add_all(log, &o);
                }
            }
        }
        if let Some((_, local)) = r.summaries.iter().find(|(n, _)| *n == ctx.me) {
            for (log, o) in local.offsets(true) {
                aug.remove_all(log, &o);
            }
        }
        let mut outcome = Outcome::Completed;
        let mut trace = Vec::new();
        let mut rows = Vec::new();
        for id in aug.ids() {
            match node.journal.get(&id) {
                Some(m) => {
                    trace.push((id, true));
                    rows.push(m.row.clone());
                }
                None => {
                    trace.push((id, false));
                    outcome = Outcome::Missing(id);
                    break;
                }
            }
        }
        let r = node.recons.get_mut(&read).expect("a pending read");
        r.augment = trace;
        r.outcome = outcome;
        r.finished_at = Some(ctx.now);
        if outcome == Outcome::Completed {
            for row in &rows {
                r.rows.push(row);
            }
        }
        let (coord, rows) = (read.coord, r.rows.clone());
        match outcome {
            Outcome::Missing(id) => ctx.log(
                LogLevel::Error,
                format_args!(
                    "{}: augment: Missing mutation {}",
                    self.rid(ctx, read),
                    self.fmt_id(ctx, id)
                ),
            ),
            _ => ctx.log(
                LogLevel::Info,
                format_args!(
                    "{} complete: augmentingOffsets {} id(s), rows [{}]",
                    self.rid(ctx, read),
                    aug.id_count(),
                    rows.list()
                ),
            ),
        }
        self.send(
            node,
            ctx,
            coord,
            Msg::TrackedReadRsp {
                read,
                outcome,
                rows,
            },
        );
    }

    /// ReadReconciliations.expire (and the client's read timeout).
    pub(super) fn expire_reads(&self, node: &mut MtNode, ctx: &mut Ctx<Self>) {
        let now = ctx.now;
        let mut expired = Vec::new();
        for (id, r) in node.recons.iter_mut() {
            if r.outcome == Outcome::Pending && now > r.expires_at {
                r.outcome = Outcome::Timeout;
                r.finished_at = Some(now);
                expired.push((*id, r.counters()));
            }
        }
        for (id, (m, s, a)) in expired {
            ctx.log(
                LogLevel::Warn,
                format_args!(
                    "{} expired: remaining mutations {m}, summaries {s}, sync acks {a}",
                    self.rid(ctx, id)
                ),
            );
        }
        for c in node.client_reads.values_mut() {
            if c.outcome == Outcome::Pending && now > c.issued_at + self.p.read_expiry() {
                c.outcome = Outcome::Timeout;
            }
        }
    }
}
