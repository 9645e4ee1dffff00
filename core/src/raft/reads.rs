//! Linearizable reads: Ratis' `raft.server.read.option` = LINEARIZABLE (`RaftServerImpl.readAsync`,
//! `LeaderStateImpl.getReadIndex`, `ReadIndexHeartbeats`, `ReadRequests.ReadIndexQueue`,
//! `RaftServerImpl.readIndexAsync`). The DEFAULT option stays in `client::on_request`.
//!
//! - No `checkLeaderState`: a leader takes its commitIndex as the readIndex (`COMMIT_INDEX`, the
//!   default `raft.server.read.read-index.type`); a follower asks the leader it knows for one
//!   (READ_INDEX; none known: ReadIndexException "Leader is unknown").
//! - A group of one answers at once; a leader whose startup entry is not applied yet
//!   (`!isReady()`) waits for that apply and reads at the startup entry's index, with no round.
//! - Otherwise a heartbeat round (`AppendEntriesListener`), one per readIndex: heartbeats are
//!   triggered to every follower, and a SUCCESS reply acks the round if its call was sent after
//!   the round began (`HeartbeatAck`: callId >= the appender's callId then) and the follower's
//!   commitIndex (`followerCommit`) reached the readIndex. With a majority (the leader counts) the
//!   round completes and `ackedCommitIndex` rises to its readIndex: a later read at or below it
//!   takes no round at all (Ratis' shortcut, not the paper's; see docs/model/raft.md, "Reads").
//! - The read then waits until the server applied the readIndex (`waitToAdvance`), at most
//!   `read_timeout` (ReadException), and the state machine answers it.
//! - A leader stepping down fails its rounds with NotLeaderException (`failListeners`) and the
//!   reads waiting for its startup entry with ReadIndexException; reads already waiting for an
//!   apply keep waiting (the queue is the server's, not the leader's).

use super::node::RNode;
// The waiting reads' types are the node's state (`RNode::reads`, `read_rounds`): defined in
// node.rs so that its imports run downwards.
pub use super::node::{Asker, ReadWait, Round, Stage};
use super::params::ReadOption;
use super::sm::StateMachine;
use super::{Index, Msg, Outcome, Raft, Timer};
use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId};
use std::collections::BTreeSet;

impl<S: StateMachine> Raft<S> {
    pub(crate) fn linearizable(&self) -> bool {
        self.p.read_option == ReadOption::Linearizable
    }

    fn read_text(&self, ctx: &Ctx<Self>, w: &ReadWait<S::Cmd>) -> String {
        match &w.asker {
            Asker::Client { client, seq, cmd } => format!(
                "linearizable read #{seq} of {}'s client ({})",
                ctx.topo.name(*client),
                self.sm.describe(cmd)
            ),
            Asker::Peer { peer, id } => {
                format!("readIndex request #{id} from {}", ctx.topo.name(*peer))
            }
        }
    }

    fn read_log(&self, node: &RNode<S>, ctx: &mut Ctx<Self>, id: u64, what: &str) {
        let text = self.read_text(ctx, &node.reads[&id]);
        ctx.log(LogLevel::Info, format_args!("{text}: {what}"));
    }

    /// `readAsync` with LINEARIZABLE: a client's read-only request reaches this server.
    pub(crate) fn linearizable_read(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        seq: u64,
        cmd: S::Cmd,
    ) {
        let asker = Asker::Client {
            client: from,
            seq,
            cmd,
        };
        if node.is_leader() {
            let id = self.new_read(node, ctx, asker, Stage::Startup);
            return self.get_read_index(node, ctx, id);
        }
        // sendReadIndexAsync: the leader this follower knows, or ReadIndexException.
        match node.leader.filter(|&l| l != ctx.me) {
            Some(l) => {
                let id = self.new_read(node, ctx, asker, Stage::Leader(l));
                self.read_log(
                    node,
                    ctx,
                    id,
                    &format!("asks the leader {} for a readIndex", ctx.topo.name(l)),
                );
                ctx.send(l, Msg::ReadIndex { id });
            }
            None => {
                let e = format!(
                    "ReadIndexException: {}: Leader is unknown.",
                    ctx.topo.name(ctx.me)
                );
                ctx.send(
                    from,
                    Msg::Reply {
                        seq,
                        outcome: Outcome::ReadFailed(e),
                    },
                );
            }
        }
    }

    fn new_read(
        &self,
        node: &mut RNode<S>,
        ctx: &Ctx<Self>,
        asker: Asker<S::Cmd>,
        stage: Stage,
    ) -> u64 {
        node.next_read += 1;
        let id = node.next_read;
        node.reads.insert(
            id,
            ReadWait {
                asker,
                stage,
                since: ctx.now,
            },
        );
        id
    }

    /// The leader gets a follower's READ_INDEX (`readIndexAsync`).
    pub(crate) fn on_read_index(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        id: u64,
    ) {
        if !node.is_leader() {
            return ctx.send(from, Msg::ReadIndexReply { id, index: None });
        }
        let r = self.new_read(node, ctx, Asker::Peer { peer: from, id }, Stage::Startup);
        self.get_read_index(node, ctx, r);
    }

    /// `LeaderStateImpl.getReadIndex` for read `id` on this leader.
    fn get_read_index(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, id: u64) {
        let ri = node.commit;
        if self.n == 1 {
            return self.read_index_known(node, ctx, id, ri);
        }
        if !node.ready {
            node.reads.get_mut(&id).expect("just added").stage = Stage::Startup;
            let s = node.startup_index;
            return self.read_log(
                node,
                ctx,
                id,
                &format!("the leader is not ready: waits for its startup entry (index {s}) to be applied"),
            );
        }
        if ri <= node.acked_commit {
            let a = node.acked_commit;
            self.read_log(
                node,
                ctx,
                id,
                &format!("readIndex {ri} (commitIndex), at or below the last index a heartbeat round confirmed ({a}): no new round"),
            );
            return self.read_index_known(node, ctx, id, ri);
        }
        node.reads.get_mut(&id).expect("just added").stage = Stage::Round(ri);
        let new = !node.read_rounds.contains_key(&ri);
        if new {
            node.read_rounds.insert(
                ri,
                Round {
                    min_call: node.next_call,
                    acks: BTreeSet::new(),
                },
            );
            for (p, pr) in node.progress.iter_mut().enumerate() {
                if p as NodeId != ctx.me {
                    pr.force_heartbeat = true;
                }
            }
            self.notify_appenders(node, ctx);
        }
        self.read_log(
            node,
            ctx,
            id,
            &format!(
                "readIndex {ri} (commitIndex); waits for a heartbeat round a majority acknowledges{}",
                if new { "" } else { " (joins the round already under way)" }
            ),
        );
    }

    /// The readIndex of read `id` is known on this server (`getReadIndex` completed, or the
    /// leader's READ_INDEX_REPLY).
    fn read_index_known(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, id: u64, ri: Index) {
        let Some(w) = node.reads.get(&id) else {
            return;
        };
        if let Asker::Peer { peer, id: pid } = w.asker {
            node.reads.remove(&id);
            ctx.send(
                peer,
                Msg::ReadIndexReply {
                    id: pid,
                    index: Some(ri),
                },
            );
            // The leader triggers a heartbeat to the follower so its commitIndex catches up.
            if let Some(pr) = node.progress.get_mut(peer as usize) {
                pr.force_heartbeat = true;
            }
            return self.notify_appenders(node, ctx);
        }
        // ReadRequests.waitToAdvance.
        if ri <= node.applied {
            return self.answer_read(node, ctx, id, ri);
        }
        node.reads.get_mut(&id).expect("looked up").stage = Stage::Apply(ri);
        if node.read_applies.insert(ri) {
            ctx.set_timer(Timer::ReadTimeout(ri), ctx.now + self.p.read_timeout.0);
        }
        let a = node.applied;
        self.read_log(
            node,
            ctx,
            id,
            &format!(
                "readIndex {ri} confirmed; waits for the state machine to apply it (applied {a})"
            ),
        );
    }

    /// queryStateMachine: the read's answer.
    fn answer_read(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, id: u64, ri: Index) {
        let Some(w) = node.reads.remove(&id) else {
            return;
        };
        let Asker::Client { client, seq, cmd } = w.asker else {
            return;
        };
        if let Some(reply) = self.sm.read(&node.sm, &cmd) {
            let outcome = Outcome::Read {
                term: node.term,
                applied: node.applied,
                reply,
                read_index: Some(ri),
            };
            ctx.send(client, Msg::Reply { seq, outcome });
        }
    }

    fn fail_read(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        id: u64,
        outcome: Outcome<S::Reply>,
    ) {
        let Some(w) = node.reads.remove(&id) else {
            return;
        };
        match w.asker {
            Asker::Client { client, seq, .. } => ctx.send(client, Msg::Reply { seq, outcome }),
            Asker::Peer { peer, id } => ctx.send(peer, Msg::ReadIndexReply { id, index: None }),
        }
    }

    /// The follower gets the leader's READ_INDEX_REPLY.
    pub(crate) fn on_read_index_reply(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        id: u64,
        index: Option<Index>,
    ) {
        if !matches!(node.reads.get(&id), Some(w) if matches!(w.stage, Stage::Leader(_))) {
            return;
        }
        match index {
            Some(ri) => self.read_index_known(node, ctx, id, ri),
            None => {
                let e = format!(
                    "ReadIndexException: {}: Failed to get read index from the leader",
                    ctx.topo.name(ctx.me)
                );
                self.read_log(node, ctx, id, &e);
                self.fail_read(node, ctx, id, Outcome::ReadFailed(e));
            }
        }
    }

    /// `ReadIndexHeartbeats.onAppendEntriesReply`: a SUCCESS reply from `from` to `call`, the
    /// follower's commitIndex `fc`.
    pub(crate) fn read_round_reply(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        call: u64,
        fc: Index,
    ) {
        if node.read_rounds.is_empty() {
            return;
        }
        let mut done = Vec::new();
        for (&ri, round) in node.read_rounds.iter_mut() {
            if ri > fc {
                break;
            }
            if call >= round.min_call {
                round.acks.insert(from);
            }
            if round.acks.len() + 1 >= self.majority() {
                done.push(ri);
            }
        }
        for ri in done {
            let round = node.read_rounds.remove(&ri).expect("listed");
            node.acked_commit = node.acked_commit.max(ri);
            let who: Vec<&str> = round.acks.iter().map(|&p| ctx.topo.name(p)).collect();
            ctx.log(
                LogLevel::Info,
                format_args!(
                    "heartbeat round for readIndex {ri} acknowledged by a majority ({} and the leader)",
                    who.join(", ")
                ),
            );
            let ids: Vec<u64> = node
                .reads
                .iter()
                .filter(|(_, w)| w.stage == Stage::Round(ri))
                .map(|(&id, _)| id)
                .collect();
            for id in ids {
                self.read_index_known(node, ctx, id, ri);
            }
        }
    }

    /// The StateMachineUpdater applied up to `node.applied` (`ReadIndexQueue.complete`), and a
    /// leader that became ready completes its startup future.
    pub(crate) fn reads_applied(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        let applied = node.applied;
        let startup = (node.is_leader() && node.ready).then_some(node.startup_index);
        let ids: Vec<(u64, Index)> = node
            .reads
            .iter()
            .filter_map(|(&id, w)| match w.stage {
                Stage::Apply(ri) if ri <= applied => Some((id, ri)),
                Stage::Startup => startup.map(|s| (id, s)),
                _ => None,
            })
            .collect();
        node.read_applies.retain(|&ri| ri > applied);
        for (id, ri) in ids {
            if node.reads[&id].stage == Stage::Startup {
                self.read_index_known(node, ctx, id, ri);
            } else {
                self.answer_read(node, ctx, id, ri);
            }
        }
    }

    /// `ReadIndexQueue.handleTimeout`: reads still waiting for `ri` fail with ReadException.
    pub(crate) fn on_read_timeout(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, ri: Index) {
        if !node.read_applies.remove(&ri) {
            return;
        }
        let ids: Vec<u64> = node
            .reads
            .iter()
            .filter(|(_, w)| w.stage == Stage::Apply(ri))
            .map(|(&id, _)| id)
            .collect();
        let e = format!(
            "ReadException: Read timeout {} for index {ri}",
            crate::time::fmt_duration(self.p.read_timeout.0)
        );
        for id in ids {
            self.read_log(node, ctx, id, &e);
            self.fail_read(node, ctx, id, Outcome::ReadFailed(e.clone()));
        }
    }

    /// The leader steps down: its rounds fail with NotLeaderException (`failListeners`), reads
    /// waiting for its startup entry with ReadIndexException.
    pub(crate) fn reads_not_leader(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        node.read_rounds.clear();
        node.acked_commit = 0;
        let ids: Vec<(u64, Stage)> = node
            .reads
            .iter()
            .filter(|(_, w)| matches!(w.stage, Stage::Round(_) | Stage::Startup))
            .map(|(&id, w)| (id, w.stage))
            .collect();
        let hint = node.leader;
        for (id, stage) in ids {
            let outcome = match stage {
                Stage::Round(ri) => {
                    self.read_log(
                        node,
                        ctx,
                        id,
                        &format!("NotLeaderException: the leader stepped down before a majority acknowledged readIndex {ri}"),
                    );
                    Outcome::NotLeader { hint }
                }
                _ => {
                    let e = "ReadIndexException: failed to obtain read index since: NotLeaderException (stepped down before its startup entry was applied)".to_string();
                    self.read_log(node, ctx, id, &e);
                    Outcome::ReadFailed(e)
                }
            };
            self.fail_read(node, ctx, id, outcome);
        }
    }
}
