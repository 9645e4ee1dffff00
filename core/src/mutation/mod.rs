//! Cassandra mutation tracking (5.x/6.0) and the CASSANDRA-21181 read-reconciliation races.
//!
//! Tracked writes (`TrackedWriteRequest`, `write.rs`): the coordinator takes the next offset of
//! its own coordinator log, applies locally and sends MUTATION_REQ with a callback to the other
//! replicas; MUTATION_RSP marks the replica a witness (at the log's coordinator only); a callback that
//! expires after `write_timeout` gets its replica a PUSH_MUTATION_REQ (`ActiveLogReconciler`),
//! whatever the coordinator has heard since; BROADCAST_LOG_OFFSETS tells peers what a node has
//! witnessed. Every arriving mutation goes through
//! `Keyspace.applyInternalTracked` as two MutationStage steps: journal + `startWriting` + apply,
//! then `finishWriting` (witness + `IncomingMutations.invokeListeners`).
//!
//! Tracked reads (`TrackedRead`, `TrackedLocalReads`, `ReadReconciliations`): see `recon.rs`.
//! Every step a race lives between is its own engine step on an executor, so a scenario can
//! park a node there (`park <step>`), hold a message kind (`hold`), and release it.

pub mod about;
mod bytes;
mod commands;
mod node;
pub mod offsets;
pub mod params;
mod recon;
pub mod start;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_code;
#[cfg(test)]
mod tests_start;
mod view;
mod write;

pub use node::{
    ClientRead, Delivery, LogState, LogSummary, MtNode, Mutation, Outcome, ReadId, Recon, Rows,
    Summary,
};
pub use params::{CountMode, MtParams};

use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId, Protocol, Topology};
use crate::time::Micros;
use offsets::{MutId, Offsets};
use rand::Rng;
use std::fmt::Write;

/// ReadStage and MutationStage.
pub const READ_STAGE: u8 = 0;
pub const MUTATION_STAGE: u8 = 1;

#[derive(Clone, Debug)]
pub struct MutationTracking {
    pub p: MtParams,
    /// Per node: the durable state preloaded before the run (`[[mutation-tracking.start]]`,
    /// `start`); empty when the scenario has none.
    pub start: Vec<Option<start::MtStart>>,
    /// Per node: where its own coordinator log continues after the preloaded offsets.
    pub start_next: Vec<u32>,
}

#[derive(Clone, Debug)]
pub enum Msg {
    /// A write to a replica, with the number of the sender's callback for it.
    MutationReq(Mutation, u64),
    /// The response to a MUTATION_REQ or PUSH_MUTATION_REQ, naming the sender's callback.
    MutationRsp(MutId, u64),
    /// A write retry, or the answer to a pull (with the sender's callback number).
    PushMutationReq(Mutation, u64),
    /// The sender's witnessed offsets per log.
    BroadcastLogOffsets(Vec<(NodeId, Offsets)>),
    TrackedDataReadReq {
        read: ReadId,
        summary_nodes: Vec<NodeId>,
    },
    TrackedSummaryReq {
        read: ReadId,
        data_node: NodeId,
        summary_nodes: Vec<NodeId>,
    },
    TrackedSummaryRsp {
        read: ReadId,
        data_node: NodeId,
        summary_nodes: Vec<NodeId>,
        summary: Summary,
    },
    PullMutationsReq {
        log: NodeId,
        offsets: Offsets,
    },
    ReadReconcileAck {
        read: ReadId,
    },
    /// The data node's answer to the read's coordinator.
    TrackedReadRsp {
        read: ReadId,
        outcome: Outcome,
        rows: Rows,
    },
}

pub const MSG_KINDS: &[&str] = &[
    "MUTATION_REQ",
    "MUTATION_RSP",
    "PUSH_MUTATION_REQ",
    "BROADCAST_LOG_OFFSETS",
    "TRACKED_DATA_READ_REQ",
    "TRACKED_SUMMARY_REQ",
    "TRACKED_SUMMARY_RSP",
    "PULL_MUTATIONS_REQ",
    "READ_RECONCILE_ACK",
    "TRACKED_READ_RSP",
];

#[derive(Clone, Debug)]
pub enum Task {
    /// MutationStage: journal, `startWriting`, apply (applyInternalTracked, first half).
    /// `reply`: the sender and its callback, answered with MUTATION_RSP (none for a local write).
    Apply {
        m: Mutation,
        via: &'static str,
        reply: Option<(NodeId, u64)>,
    },
    /// MutationStage: `finishWriting` (witness) and `invokeListeners`.
    Finish {
        m: Mutation,
        via: &'static str,
        reply: Option<(NodeId, u64)>,
    },
    /// ReadStage, data node: the local read, its summary, `acceptLocalSummary`.
    LocalRead {
        read: ReadId,
        summary_nodes: Vec<NodeId>,
    },
    /// ReadStage, summary node: `handleSummaryRequest` (summary, `acceptLocalSummary`).
    SummaryRead {
        read: ReadId,
        data_node: NodeId,
        summary_nodes: Vec<NodeId>,
    },
    /// ReadStage: `acceptRemoteSummary`, part 1: collect, dedup against `requested`.
    Collect {
        read: ReadId,
        from: NodeId,
        data_node: NodeId,
        summary_nodes: Vec<NodeId>,
        summary: Summary,
    },
    /// ReadStage: `acceptRemoteSummary`, part 2: one log's `pull()` (register callbacks, send).
    Pull {
        read: ReadId,
        from: NodeId,
        log: NodeId,
        offsets: Offsets,
    },
    /// ReadStage: `acceptRemoteSummary`, part 3: `summaries.add`, `updateRemainingAndMaybeComplete`.
    Count { read: ReadId, from: NodeId },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Timer {
    /// ExpiredStatePurger: listeners and read coordinators.
    Purge,
    Broadcast,
    /// A write callback expires (`write_timeout` after its MUTATION_REQ or PUSH_MUTATION_REQ):
    /// `onFailure`, a retry.
    WriteRetry(u64),
    /// The next random operation (`load_interval`).
    Load,
}

impl MutationTracking {
    pub fn new(p: MtParams) -> Result<Self, String> {
        p.validate()?;
        Ok(MutationTracking {
            p,
            start: Vec::new(),
            start_next: Vec::new(),
        })
    }

    pub fn participants(&self, topo: &Topology) -> u32 {
        if self.p.rf == 0 {
            topo.len()
        } else {
            self.p.rf.min(topo.len())
        }
    }

    /// Send, honouring `duplicate-next`; a message to itself is handled at once.
    fn send(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, to: NodeId, msg: Msg) {
        if to == ctx.me {
            let me = ctx.me;
            self.on_message(node, ctx, me, msg);
            return;
        }
        let kind = self.msg_label(&msg);
        if self.p.duplicate > 0.0
            && matches!(msg, Msg::MutationReq(..) | Msg::PushMutationReq(..))
            && ctx.rng.random::<f64>() < self.p.duplicate
        {
            ctx.log(
                LogLevel::Debug,
                format_args!(
                    "random duplicate: {kind} to {} sent twice",
                    self.nm(ctx, to)
                ),
            );
            ctx.send(to, msg.clone());
        }
        if take_next(&mut node.dup_next, kind, to) {
            ctx.log(
                LogLevel::Info,
                format_args!("duplicate-next: {kind} to {} sent twice", self.nm(ctx, to)),
            );
            ctx.send(to, msg.clone());
        }
        ctx.send(to, msg);
    }

    fn next_load(&self, ctx: &mut Ctx<Self>) {
        let mean = self.p.load_interval.0;
        let at = ctx.now + ctx.rng.random_range(mean / 2..=mean + mean / 2);
        if at <= self.p.load_for.0 {
            ctx.set_timer(Timer::Load, at);
        }
    }

    /// Random load: a tracked write, or a tracked read with this node as the data node and one
    /// or two random other replicas as summary nodes.
    fn random_op(&self, node: &mut MtNode, ctx: &mut Ctx<Self>) {
        if ctx.rng.random::<f64>() < self.p.load_read_share {
            let others: Vec<NodeId> = (0..node.participants).filter(|&i| i != ctx.me).collect();
            let mut summary = vec![others[ctx.rng.random_range(0..others.len())]];
            if others.len() > 1 && ctx.rng.random::<bool>() {
                summary = others;
            }
            self.issue_read(node, ctx, ctx.me, summary);
        } else {
            self.write(node, ctx, None);
        }
        self.next_load(ctx);
    }

    fn fmt_id(&self, ctx: &Ctx<Self>, id: MutId) -> String {
        format!("{}:{}", self.nm(ctx, id.log), id.offset)
    }

    fn purge(&self, node: &mut MtNode, ctx: &mut Ctx<Self>) {
        let now = ctx.now;
        let wt = self.p.write_timeout.0;
        let expired: Vec<MutId> = node
            .listeners
            .iter()
            .filter(|(_, l)| l.created_at + wt < now)
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            let l = node.listeners.remove(&id).expect("listed above");
            node.listeners_expired += 1;
            ctx.log(
                LogLevel::Info,
                format_args!(
                    "IncomingMutations.expire: listeners for {} expired ({} callback(s), onTimeout is a no-op)",
                    self.fmt_id(ctx, id),
                    l.callbacks.len()
                ),
            );
        }
        self.expire_reads(node, ctx);
    }

    /// The executor and step label of a task.
    fn stage_of(task: &Task) -> u8 {
        match task {
            Task::Apply { .. } | Task::Finish { .. } => MUTATION_STAGE,
            _ => READ_STAGE,
        }
    }
}

impl Protocol for MutationTracking {
    type Node = MtNode;
    type Msg = Msg;
    type Task = Task;
    type Timer = Timer;

    fn executors(&self) -> &'static [&'static str] {
        &["ReadStage", "MutationStage"]
    }

    fn init_node(&self, id: NodeId, topo: &Topology) -> MtNode {
        let mut node = MtNode {
            me: id,
            participants: self.participants(topo),
            heard: vec![0; topo.len() as usize],
            ..Default::default()
        };
        if let Some(&next) = self.start_next.get(id as usize) {
            let s = self.start.get(id as usize).and_then(|s| s.as_ref());
            start::preload(&mut node, s, next, topo);
        }
        node
    }

    fn on_start(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, _first: bool) {
        node.heard.fill(ctx.now);
        ctx.set_timer(Timer::Purge, ctx.now + self.p.purge_interval.0);
        if self.p.load_interval.0 > 0 && node.is_participant(ctx.me) {
            self.next_load(ctx);
        }
        if self.p.broadcast_interval.0 > 0 {
            ctx.set_timer(Timer::Broadcast, ctx.now + self.p.broadcast_interval.0);
        }
    }

    fn on_stop(&self, _node: &mut MtNode, ctx: &mut Ctx<Self>) {
        ctx.exit();
    }

    fn on_exit(&self, node: &mut MtNode) {
        // volatile: listeners, read coordinators, held/parked work; the journal, the logs and
        // the table survive (durable).
        node.listeners.clear();
        node.callbacks.clear();
        node.recons.clear();
        node.held.clear();
        node.park = Default::default();
        for l in node.logs.values_mut() {
            l.pending = Offsets::new();
        }
    }

    fn on_message(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, from: NodeId, msg: Msg) {
        if let Some(t) = node.heard.get_mut(from as usize) {
            *t = ctx.now;
        }
        let kind = self.msg_label(&msg);
        if take_next(&mut node.drop_next, kind, from) {
            ctx.log(
                LogLevel::Info,
                format_args!("drop-next: {kind} from {} dropped", self.nm(ctx, from)),
            );
            ctx.discard();
            return;
        }
        if node.holding.contains(kind) {
            ctx.log(
                LogLevel::Info,
                format_args!("hold: {kind} from {} held", self.nm(ctx, from)),
            );
            node.held.push((from, msg));
            return;
        }
        self.dispatch(node, ctx, from, msg);
    }

    fn on_timer(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, timer: Timer) {
        match timer {
            Timer::Purge => {
                self.purge(node, ctx);
                ctx.set_timer(Timer::Purge, ctx.now + self.p.purge_interval.0);
            }
            Timer::Broadcast => self.broadcast(node, ctx),
            Timer::WriteRetry(cb) => self.callback_expired(node, ctx, cb),
            Timer::Load => self.random_op(node, ctx),
        }
    }

    fn on_task(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, task: Task) {
        let stage = Self::stage_of(&task);
        if node.park.stage == Some(stage) {
            node.park.parked.push(task);
            return;
        }
        if let Some((label, skip)) = node.park.at {
            if label == self.task_label(&task) {
                if skip == 0 {
                    ctx.log(
                        LogLevel::Info,
                        format_args!(
                            "parked before {label}: {} waits until `unpark`",
                            self.executors()[stage as usize]
                        ),
                    );
                    node.park.at = None;
                    node.park.stage = Some(stage);
                    node.park.parked.push(task);
                    return;
                }
                node.park.at = Some((label, skip - 1));
            }
        }
        match task {
            Task::Apply { m, via, reply } => self.apply(node, ctx, m, via, reply),
            Task::Finish { m, via, reply } => self.finish(node, ctx, m, via, reply),
            Task::LocalRead {
                read,
                summary_nodes,
            } => self.local_read(node, ctx, read, summary_nodes),
            Task::SummaryRead {
                read,
                data_node,
                summary_nodes,
            } => self.summary_read(node, ctx, read, data_node, summary_nodes),
            Task::Collect {
                read,
                from,
                data_node,
                summary_nodes,
                summary,
            } => self.collect(node, ctx, read, from, data_node, summary_nodes, summary),
            Task::Pull {
                read,
                from,
                log,
                offsets,
            } => self.pull(node, ctx, read, from, log, offsets),
            Task::Count { read, from } => self.count(node, ctx, read, from),
        }
    }

    fn service_us(&self, _node: &MtNode, _task: &Task) -> Micros {
        self.p.task_us.0
    }

    fn on_command(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, cmd: &str) -> Result<(), String> {
        self.command(node, ctx, cmd)
    }

    fn msg_label(&self, msg: &Msg) -> &'static str {
        msg_kind(msg)
    }

    fn task_label(&self, task: &Task) -> &'static str {
        match task {
            Task::Apply { .. } => "apply",
            Task::Finish { .. } => "finish",
            Task::LocalRead { .. } => "local-read",
            Task::SummaryRead { .. } => "summary-read",
            Task::Collect { .. } => "collect",
            Task::Pull { .. } => "pull",
            Task::Count { .. } => "count",
        }
    }

    fn timer_label(&self, t: &Timer) -> &'static str {
        match t {
            Timer::Purge => "purge",
            Timer::Broadcast => "broadcast",
            Timer::WriteRetry(..) => "write-retry",
            Timer::Load => "load",
        }
    }

    fn render_msg(&self, msg: &Msg, topo: &Topology) -> String {
        let id = |id: MutId| format!("{}:{}", topo.name(id.log), id.offset);
        let rid = |r: ReadId| format!("{}/r{}", topo.name(r.coord), r.seq);
        let names = |v: &[NodeId]| {
            v.iter()
                .map(|n| topo.name(*n).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let summary = |s: &Summary| {
            let mut out = String::new();
            for l in &s.0 {
                let _ = write!(
                    out,
                    " log {}: reconciled {} unreconciled {};",
                    topo.name(l.log),
                    l.reconciled,
                    l.unreconciled
                );
            }
            out
        };
        match msg {
            Msg::MutationReq(m, _) | Msg::PushMutationReq(m, _) => {
                format!("{} row {}", id(m.id), m.row)
            }
            Msg::MutationRsp(m, _) => format!("ack {}", id(*m)),
            Msg::BroadcastLogOffsets(v) => v
                .iter()
                .map(|(l, o)| format!("log {}: {o}", topo.name(*l)))
                .collect::<Vec<_>>()
                .join("; "),
            Msg::TrackedDataReadReq {
                read,
                summary_nodes,
            } => format!("{} summary nodes [{}]", rid(*read), names(summary_nodes)),
            Msg::TrackedSummaryReq {
                read,
                data_node,
                summary_nodes,
            } => format!(
                "{} data node {} summary nodes [{}]",
                rid(*read),
                topo.name(*data_node),
                names(summary_nodes)
            ),
            Msg::TrackedSummaryRsp {
                read, summary: s, ..
            } => {
                format!("{}:{}", rid(*read), summary(s))
            }
            Msg::PullMutationsReq { log, offsets } => {
                format!("log {} offsets {offsets}", topo.name(*log))
            }
            Msg::ReadReconcileAck { read } => rid(*read),
            Msg::TrackedReadRsp {
                read,
                outcome,
                rows,
            } => format!("{} {} rows [{}]", rid(*read), outcome.as_str(), rows.list()),
        }
    }

    fn node_bytes(&self, node: &MtNode) -> usize {
        bytes::node(node)
    }

    fn msg_bytes(&self, msg: &Msg) -> usize {
        bytes::msg(msg)
    }

    fn task_bytes(&self, task: &Task) -> usize {
        bytes::task(task)
    }
}

/// A message's kind label (`Protocol::msg_label`).
/// `drop-next` / `duplicate-next`: use up one count of `kind` for `peer` (one named for that
/// peer first, else one for any); whether there was one.
fn take_next(
    counts: &mut std::collections::BTreeMap<(&'static str, Option<NodeId>), u32>,
    kind: &'static str,
    peer: NodeId,
) -> bool {
    let Some(k) = [(kind, Some(peer)), (kind, None)]
        .into_iter()
        .find(|k| counts.contains_key(k))
    else {
        return false;
    };
    let n = counts.get_mut(&k).expect("found");
    *n -= 1;
    if *n == 0 {
        counts.remove(&k);
    }
    true
}

pub fn msg_kind(msg: &Msg) -> &'static str {
    match msg {
        Msg::MutationReq(..) => MSG_KINDS[0],
        Msg::MutationRsp(..) => MSG_KINDS[1],
        Msg::PushMutationReq(..) => MSG_KINDS[2],
        Msg::BroadcastLogOffsets(_) => MSG_KINDS[3],
        Msg::TrackedDataReadReq { .. } => MSG_KINDS[4],
        Msg::TrackedSummaryReq { .. } => MSG_KINDS[5],
        Msg::TrackedSummaryRsp { .. } => MSG_KINDS[6],
        Msg::PullMutationsReq { .. } => MSG_KINDS[7],
        Msg::ReadReconcileAck { .. } => MSG_KINDS[8],
        Msg::TrackedReadRsp { .. } => MSG_KINDS[9],
    }
}

impl MutationTracking {
    /// A node's name, owned (log lines borrow `ctx` mutably while formatting).
    fn nm(&self, ctx: &Ctx<Self>, id: NodeId) -> String {
        ctx.name(id).to_string()
    }
}
