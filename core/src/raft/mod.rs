//! Raft as Apache Ratis runs it (`protocol = "raft"`): elections with pre-vote, AppendEntries
//! with the consistency check and Ratis' INCONSISTENCY repair, commit by a majority of
//! matchIndex (the leader's own entry counts once flushed), a retry cache, clients that follow
//! NotLeader hints, and three threads per node as engine executors: the LogWorker (flushIndex),
//! the LogAppender (one executor serving every follower) and the StateMachineUpdater (apply).
//!
//! Files: `params` (defaults with their Ratis keys), `node` (per-server state), `sm` (the
//! state-machine seam and the teaching key-value store), `election`, `replication`, `client`
//! (requests, pending requests, retry cache, apply), `check` (safety invariants), `view` (the
//! `Model` impl). See docs/model/raft.md.

pub mod about;
pub mod appender;
pub mod check;
pub mod client;
pub mod commands;
pub mod election;
pub mod explain;
pub mod glance;
pub mod keys;
pub mod moments;
pub mod node;
pub mod params;
mod query;
pub mod reads;
pub mod replication;
pub mod sm;
pub mod start;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_appender;
#[cfg(test)]
mod tests_check;
#[cfg(test)]
mod tests_code;
#[cfg(test)]
mod tests_follower;
#[cfg(test)]
mod tests_keys;
#[cfg(test)]
mod tests_linearizable;
#[cfg(test)]
mod tests_ratis;
#[cfg(test)]
mod tests_reads;
#[cfg(test)]
mod tests_restart;
#[cfg(test)]
mod tests_rules;
#[cfg(test)]
mod tests_start;
#[cfg(test)]
mod tests_terms;
pub mod view;

use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId, Protocol, Sim, Topology};
use crate::time::Micros;
use node::{Entry, Payload, RNode, Role};
use params::RaftParams;
use sm::{SmCtx, SmEvent, StateMachine};
use std::fmt::Write;

pub type Index = u64;
pub type Term = u64;

/// Raft's own executors, in this order, first in every `StateMachine::EXECUTORS`.
pub const RAFT_EXECUTORS: &[&str] = &["LogWorker", "LogAppender", "StateMachineUpdater"];
pub const LOG_WORKER: u8 = 0;
pub const APPENDER: u8 = 1;
pub const UPDATER: u8 = 2;
/// The state machine's first own executor.
pub const SM_EXEC0: u8 = 3;

/// AppendEntries reply results (Ratis `AppendResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppendResult {
    Success,
    NotLeader,
    Inconsistency,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<R> {
    Ok {
        index: Index,
        term: Term,
        reply: R,
    },
    NotLeader {
        hint: Option<NodeId>,
    },
    /// `LeaderNotReadyException`: the leader has not applied its startup entry yet.
    LeaderNotReady,
    Failed(String),
    /// A read-only request answered by the leader from its state machine as applied up to
    /// `applied` (`queryStateMachine`; no log entry, so no index of its own). `read_index`:
    /// the readIndex it waited for (read option LINEARIZABLE), `None` with DEFAULT.
    Read {
        term: Term,
        applied: Index,
        reply: R,
        read_index: Option<Index>,
    },
    /// A linearizable read failed with `ReadException` (its readIndex not applied within
    /// `read_timeout`) or `ReadIndexException` (no leader known, the leader refused the
    /// readIndex or stepped down before its startup entry was applied): the client's retry
    /// policy sends it again to the same server.
    ReadFailed(String),
}

#[derive(Clone, Debug)]
pub enum Msg<S: StateMachine> {
    Vote {
        pre: bool,
        term: Term,
        last_index: Index,
        last_term: Term,
    },
    VoteReply {
        pre: bool,
        term: Term,
        granted: bool,
    },
    Append {
        term: Term,
        prev_index: Index,
        prev_term: Term,
        entries: Vec<(Index, Entry<S::Cmd>)>,
        commit: Index,
        call: u64,
    },
    AppendReply {
        term: Term,
        result: AppendResult,
        next_index: Index,
        /// Success with entries: the last index written (and flushed).
        match_index: Option<Index>,
        call: u64,
        /// The follower's commitIndex (`AppendEntriesReplyProto.followerCommit`): a reply acks a
        /// linearizable read's heartbeat round only for readIndexes up to it.
        follower_commit: Index,
    },
    /// What the leader's gRPC stream reports when an AppendEntries reaches a host whose Raft
    /// server is down (connection refused: `AppendLogResponseHandler.onError`, no call id;
    /// the engine's bounce, one network delay back). `call` only tells which stream it was.
    AppendError {
        call: u64,
    },
    /// A (pre-)vote request that reached a host whose Raft server is down: the blocking
    /// `requestVote` call fails (UNAVAILABLE), an exception in `waitForResults`.
    VoteError {
        pre: bool,
        term: Term,
    },
    /// A follower asks the leader for a readIndex (`readIndexAsync`, read option LINEARIZABLE).
    ReadIndex {
        id: u64,
    },
    /// The leader's answer: the readIndex confirmed by a heartbeat round, or `None` (not the
    /// leader, or it stepped down first: `ReadIndexReplyProto` without success).
    ReadIndexReply {
        id: u64,
        index: Option<Index>,
    },
    Request {
        seq: u64,
        cmd: S::Cmd,
    },
    Reply {
        seq: u64,
        outcome: Outcome<S::Reply>,
    },
    /// A message of the state machine's own protocol (e.g. Ozone datanode <-> SCM).
    Sm(S::Msg),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Timer<T> {
    /// Follower/candidate election timeout.
    Election,
    /// Leader: its EventProcessor's `poll(maxTimeout)` ran out with no event: the leadership
    /// check (`checkLeadership`), or a later wake if an event came since.
    LeadershipCheck,
    /// Generated client load.
    ClientLoad,
    /// A client request's timeout or back-off.
    ClientRetry(u64),
    /// Leader: the LogAppender for this follower wakes (`GrpcLogAppender.mayWait`: the
    /// heartbeat wait, `sleepForErrors`, a restart, a batch's read deadline), and its requests
    /// past `request_timeout` time out (`timeoutAppendRequest`).
    Appender(NodeId),
    /// Linearizable reads waiting for this readIndex to be applied time out
    /// (`ReadIndexQueue.handleTimeout`, `raft.server.read.timeout`).
    ReadTimeout(Index),
    Sm(T),
}

/// Work for a follower's reply after the flush.
#[derive(Clone, Debug)]
pub struct FlushReply {
    pub leader: NodeId,
    pub term: Term,
    pub call: u64,
    pub match_index: Index,
    pub leader_commit: Index,
}

#[derive(Clone, Debug)]
pub enum Task<S: StateMachine> {
    /// LogWorker: write and flush the log up to `upto` (void if the log was truncated since).
    Flush {
        upto: Index,
        epoch: u64,
        reply: Option<FlushReply>,
    },
    /// LogAppender: send what follower `peer` needs (entries or a heartbeat).
    Append {
        peer: NodeId,
    },
    /// StateMachineUpdater: apply the next committed entry.
    Apply,
    Sm(S::Task),
}

/// The Raft model over a state machine `S`.
#[derive(Clone, Debug)]
pub struct Raft<S: StateMachine> {
    pub p: RaftParams,
    pub sm: S,
    pub n: u32,
    pub client_node: NodeId,
    /// The nodes' names (for the commands' errors).
    pub names: Vec<String>,
    /// The incremental invariant check's state (`check::check`).
    pub memo: check::Memo,
    /// Per node: the persisted state preloaded before the run (`[[raft.start]]`, `start`).
    pub start: Vec<Option<start::Preload<S::Cmd>>>,
}

pub type RaftKv = Raft<sm::Kv>;

impl<S: StateMachine> Raft<S> {
    pub fn new(p: RaftParams, sm: S, topo: &Topology) -> Result<Self, String> {
        p.validate()?;
        assert!(
            S::EXECUTORS.len() >= RAFT_EXECUTORS.len()
                && S::EXECUTORS[..RAFT_EXECUTORS.len()] == *RAFT_EXECUTORS,
            "a StateMachine's EXECUTORS must begin with RAFT_EXECUTORS"
        );
        assert!(
            (RAFT_EXECUTORS.len()..=S::EXECUTORS.len()).contains(&sm.executor_count()),
            "a StateMachine's executor_count must keep Raft's and stay within its EXECUTORS"
        );
        if topo.is_empty() {
            return Err("cluster: Raft needs at least one node".into());
        }
        let client_node = if p.client_node.is_empty() {
            0
        } else {
            topo.resolve(&p.client_node)
                .map_err(|e| format!("params.client_node: {e}"))?
        };
        let n = match p.group_size {
            0 => topo.len(),
            g if g <= topo.len() => g,
            g => {
                return Err(format!(
                    "params.group_size {g} is larger than the cluster ({} nodes)",
                    topo.len()
                ))
            }
        };
        if client_node >= n {
            return Err(format!(
                "params.client_node \"{}\" is outside the Raft group (params.group_size = {n}: \
                 {} form it): its client would send no load; name one of them",
                p.client_node,
                (0..n).map(|i| topo.name(i)).collect::<Vec<_>>().join(", ")
            ));
        }
        Ok(Raft {
            p,
            sm,
            n,
            client_node,
            names: (0..topo.len()).map(|i| topo.name(i).to_string()).collect(),
            memo: check::Memo::default(),
            start: Vec::new(),
        })
    }
    /// A node outside the Raft group (`params.group_size`): it runs only the state machine.
    pub fn outside(&self, id: NodeId) -> bool {
        id >= self.n
    }
    pub fn majority(&self) -> usize {
        self.n as usize / 2 + 1
    }
    pub(crate) fn random_timeout(&self, ctx: &mut Ctx<Self>) -> Micros {
        use rand::Rng;
        ctx.rng
            .random_range(self.p.timeout_min.0..=self.p.timeout_max.0)
    }
    /// Run a state-machine hook and then the completions it reported.
    pub(crate) fn with_sm<R>(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        f: impl FnOnce(&S, &mut S::Node, &mut SmCtx<S>) -> R,
    ) -> R {
        // Only a state machine that asks for it pays for the followers' minimum.
        let min_next = if node.is_leader() && self.sm.wants_follower_next() {
            (0..self.n)
                .filter(|&p| p != ctx.me)
                .filter_map(|p| node.progress.get(p as usize).map(|f| f.next))
                .min()
        } else {
            None
        };
        let mut c = SmCtx::new(ctx, node.is_leader(), node.leader, min_next);
        let r = f(&self.sm, &mut node.sm, &mut c);
        let events = std::mem::take(&mut c.events);
        // Most hooks report nothing: no iterator made and dropped (a call per hook, issue 44).
        if !events.is_empty() {
            for e in events {
                self.on_sm_event(node, ctx, e);
            }
        }
        r
    }
    fn on_sm_event(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, e: SmEvent<S::Cmd>) {
        match e {
            SmEvent::DataWritten(i) => {
                node.data_pending.remove(&i);
                self.advance_flush(node, ctx);
            }
            // A data read completed: the appenders waiting in `pollList` look again.
            SmEvent::DataRead(_) => self.notify_appenders(node, ctx),
            SmEvent::Resume(token, r) => self.resume_held(node, ctx, token, r),
            SmEvent::Submit(cmd) => {
                // A request of the state machine itself to its local server (its reply comes
                // back to this node's client, which does not know it and drops it). Its own
                // sequence space, per incarnation: the retry cache must never answer it.
                node.sm_seq += 1;
                let seq = (1 << 63) + (node.ghost.client_epoch << 32) + node.sm_seq;
                let me = ctx.me;
                self.on_request(node, ctx, me, seq, cmd);
            }
        }
    }
}

impl<S: StateMachine> Protocol for Raft<S> {
    type Node = RNode<S>;
    type Msg = Msg<S>;
    type Task = Task<S>;
    type Timer = Timer<S::Timer>;

    fn executors(&self) -> &'static [&'static str] {
        &S::EXECUTORS[..self.sm.executor_count()]
    }
    fn init_node(&self, id: NodeId, _topo: &Topology) -> RNode<S> {
        let mut node = RNode::new(id, self.sm.init(id));
        if let Some(Some(p)) = self.start.get(id as usize) {
            start::preload(&mut node, p);
        }
        node
    }
    fn on_start(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, _first: bool) {
        node.role = Role::Follower;
        node.role_since = ctx.now;
        node.last_leader_contact = 0;
        // A new ServerState: no leader known since the start (`lastNoLeaderTime`).
        node.leader = None;
        node.no_leader_since = Some(ctx.now);
        node.ghost.client_epoch += 1;
        node.client = node::Client::new(ctx.me);
        // A fresh client id per incarnation: the retry cache must not confuse it with the last.
        node.client.next_seq = (node.ghost.client_epoch << 32) + 1;
        self.with_sm(node, ctx, |sm, n, c| sm.on_start(n, c));
        if self.outside(ctx.me) {
            return; // not in the Raft group: no election timer, no client load
        }
        // The log read back from disk is flushed; the data is in the state-machine files.
        node.flush = node.last();
        node.log_flushed = node.last();
        // RaftLog.open: the commitIndex of the log's last metadata entry; the StateMachineUpdater
        // then applies up to it.
        let restored = node.meta_commit.min(node.last());
        if restored > node.commit {
            node.commit = restored;
            self.record_commit(node);
        }
        self.kick_apply(node, ctx);
        // RaftServerImpl.startAsPeer: a follower with a new FollowerState.
        self.start_follower_state(node, ctx);
        if self.p.client_rate > 0 && ctx.me == self.client_node {
            ctx.set_timer(
                Timer::ClientLoad,
                ctx.now + 1_000_000 / self.p.client_rate as u64,
            );
        }
    }
    fn on_stop(&self, _node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        ctx.log(LogLevel::Info, "stopping: closing the RaftServer");
        ctx.exit();
    }
    fn on_exit(&self, node: &mut RNode<S>) {
        // What was not flushed is lost; term and votedFor were persisted before any reply.
        // `flush`, not `log_flushed`: with a data stage, the LogWorker writes an entry only once
        // its data is written (Ratis' statemachine.data.sync, which Ozone sets), so an entry whose
        // data stage was still running is not on disk.
        node.cut(node.flush);
        let keep = std::mem::replace(node, RNode::new(0, self.sm.init(0)));
        node.term = keep.term;
        node.voted_for = keep.voted_for;
        node.log = keep.log;
        node.runs = keep.runs;
        node.meta_commit = keep.meta_commit;
        node.elections = keep.elections;
        node.applied_client = keep.applied_client;
        node.ghost = keep.ghost;
        node.epoch = keep.epoch + 1;
        node.sm = keep.sm;
        self.sm.on_exit(&mut node.sm);
        node.client.acked = keep.client.acked;
        node.client.failed = keep.client.failed;
        node.client.lat_count = keep.client.lat_count;
        node.client.lat_sum = keep.client.lat_sum;
        node.client.lat_max = keep.client.lat_max;
        node.client.lat_last = keep.client.lat_last;
    }
    fn on_message(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, from: NodeId, msg: Msg<S>) {
        match msg {
            Msg::Vote {
                pre,
                term,
                last_index,
                last_term,
            } => self.on_vote(node, ctx, from, pre, term, last_index, last_term),
            Msg::VoteReply { pre, term, granted } => {
                self.on_vote_reply(node, ctx, from, pre, term, granted)
            }
            Msg::Append {
                term,
                prev_index,
                prev_term,
                entries,
                commit,
                call,
            } => self.on_append(
                node, ctx, from, term, prev_index, prev_term, entries, commit, call,
            ),
            Msg::AppendReply {
                term,
                result,
                next_index,
                match_index,
                call,
                follower_commit,
            } => self.on_append_reply(
                node,
                ctx,
                from,
                term,
                result,
                next_index,
                match_index,
                call,
                follower_commit,
            ),
            Msg::AppendError { call } => self.on_append_error(node, ctx, from, call),
            Msg::VoteError { pre, term } => self.on_vote_error(node, ctx, from, pre, term),
            Msg::ReadIndex { id } => self.on_read_index(node, ctx, from, id),
            Msg::ReadIndexReply { id, index } => self.on_read_index_reply(node, ctx, id, index),
            Msg::Request { seq, cmd } => self.on_request(node, ctx, from, seq, cmd),
            Msg::Reply { seq, outcome } => self.on_reply(node, ctx, from, seq, outcome),
            Msg::Sm(m) => self.with_sm(node, ctx, |s, n, c| s.on_message(n, c, from, m)),
        }
    }
    fn on_timer(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, timer: Timer<S::Timer>) {
        match timer {
            Timer::Election => self.on_election_timeout(node, ctx),
            Timer::LeadershipCheck => self.on_leadership_check(node, ctx),
            Timer::ClientLoad => {
                let seq = node.client.next_seq;
                let cmd = self.sm.load_request(seq);
                self.client_send(node, ctx, cmd);
                ctx.set_timer(
                    Timer::ClientLoad,
                    ctx.now + 1_000_000 / self.p.client_rate as u64,
                );
            }
            Timer::ClientRetry(seq) => self.on_client_retry(node, ctx, seq),
            Timer::Appender(p) => self.on_appender_wake(node, ctx, p),
            Timer::ReadTimeout(i) => self.on_read_timeout(node, ctx, i),
            Timer::Sm(t) => self.with_sm(node, ctx, |s, n, c| s.on_timer(n, c, t)),
        }
    }
    fn on_task(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, task: Task<S>) {
        match task {
            Task::Flush { upto, epoch, reply } => self.on_flushed(node, ctx, upto, epoch, reply),
            Task::Append { peer } => self.on_appender(node, ctx, peer),
            Task::Apply => self.on_apply(node, ctx),
            Task::Sm(t) => self.with_sm(node, ctx, |s, n, c| s.on_task(n, c, t)),
        }
    }
    fn service_us(&self, node: &RNode<S>, task: &Task<S>) -> Micros {
        match task {
            Task::Flush { .. } => self.p.flush_cost.0,
            Task::Append { .. } => self.p.append_cost.0,
            Task::Apply => self.p.apply_cost.0,
            Task::Sm(t) => self.sm.service_us(&node.sm, t),
        }
    }
    fn check_command(&self, node: NodeId, cmd: &str) -> Result<(), String> {
        self.check_command_text(node, cmd)
    }
    fn check_view_node(&self, view: &str, node: NodeId) -> Result<(), String> {
        self.check_view_node_text(view, node)
    }
    fn on_command(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        cmd: &str,
    ) -> Result<(), String> {
        self.check_command_text(ctx.me, cmd)?;
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["timeout"] => {
                if node.is_leader() {
                    return Err("timeout: this node is the leader; time out a follower instead".into());
                }
                ctx.log(LogLevel::Info, "election timeout forced by command");
                self.start_election(node, ctx);
                Ok(())
            }
            // A teaching aid (RaftScope's spread / align timers): the election timer re-armed
            // to fire `d` from now, as if the random timeout had drawn it; a follower then
            // stands only if it heard from no leader for `d` (its FollowerState's check).
            ["election-timer", d] => {
                if node.is_leader() {
                    return Err("election-timer: this node is the leader; it runs no election timer".into());
                }
                let d = commands::election_timer(d)?;
                Self::sleep(node, ctx, d);
                ctx.log(
                    LogLevel::Info,
                    format!(
                        "election timer set by command: fires in {}",
                        crate::time::fmt_duration(d)
                    ),
                );
                Ok(())
            }
            // Per-node timer control: this server's own election timeout starts no election
            // for `d` (it still votes, and a leader's step-down check is untouched).
            ["hold-elections", d] => {
                let d = commands::election_timer(d)?;
                node.elections_held_until = ctx.now + d;
                ctx.log(
                    LogLevel::Info,
                    format!(
                        "elections held by command for {}: this server starts none before {}",
                        crate::time::fmt_duration(d),
                        crate::time::fmt_time(ctx.now + d)
                    ),
                );
                Ok(())
            }
            [verb, ..] if commands::is_crafted(verb) => {
                let c = self.crafted(ctx.me, &words)?;
                let (msg, what) = match (*verb, c.nums.as_slice()) {
                    ("send-vote" | "send-prevote", &[term, li, lt]) => (
                        Msg::Vote {
                            pre: *verb == "send-prevote",
                            term,
                            last_index: li,
                            last_term: lt,
                        },
                        format!("term {term}, last entry (t{lt}, i{li})"),
                    ),
                    ("send-heartbeat", &[term, pi, pt, commit]) => (
                        // A call id no appender waits for: its reply moves nothing.
                        Msg::Append {
                            term,
                            prev_index: pi,
                            prev_term: pt,
                            entries: Vec::new(),
                            commit,
                            call: commands::CRAFTED_CALL,
                        },
                        format!("term {term}, previous (t{pt}, i{pi}), leaderCommit {commit}"),
                    ),
                    // Entries PREV_INDEX+1.. of the terms given, no-op entries (as a leader's
                    // startup entry): the follower appends them as it would a leader's.
                    ("send-append", &[term, pi, pt, commit]) => (
                        Msg::Append {
                            term,
                            prev_index: pi,
                            prev_term: pt,
                            entries: (pi + 1..)
                                .zip(&c.terms)
                                .map(|(i, &t)| {
                                    (
                                        i,
                                        node::Entry {
                                            term: t,
                                            payload: node::Payload::Startup,
                                            // The receiver computes its own (`RNode::push`).
                                            chain: 0,
                                        },
                                    )
                                })
                                .collect(),
                            commit,
                            call: commands::CRAFTED_CALL,
                        },
                        format!(
                            "term {term}, previous (t{pt}, i{pi}), leaderCommit {commit}, entries {}",
                            (pi + 1..)
                                .zip(&c.terms)
                                .map(|(i, t)| format!("(t{t}, i{i})"))
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                    ),
                    _ => unreachable!("checked by crafted()"),
                };
                let label = self.msg_label(&msg);
                ctx.log(
                    LogLevel::Info,
                    format!(
                        "crafted {label} to {} by command: {what}",
                        self.names[c.to as usize]
                    ),
                );
                ctx.send(c.to, msg);
                Ok(())
            }
            _ if self.sm.is_command(&words) => {
                self.with_sm(node, ctx, |s, n, c| s.command(n, c, &words))
            }
            _ => match self.sm.parse_request(&words) {
                Some(Ok(req)) => {
                    self.client_send(node, ctx, req);
                    Ok(())
                }
                Some(Err(e)) => Err(e),
                None => Err(format!(
                    "unknown command \"{cmd}\"; try \"timeout\", \"client-put KEY VALUE\" or \"client-get KEY\""
                )),
            },
        }
    }
    /// An AppendEntries or a (pre-)vote request that reaches a stopped server: its host refuses
    /// the connection, and the sender's call fails (gRPC's UNAVAILABLE, after the TCP reset
    /// comes back). Other messages are lost silently (their senders time out).
    fn bounce(&self, msg: &Msg<S>) -> Option<Msg<S>> {
        match msg {
            Msg::Append { call, .. } if *call != commands::CRAFTED_CALL => {
                Some(Msg::AppendError { call: *call })
            }
            Msg::Vote { pre, term, .. } => Some(Msg::VoteError {
                pre: *pre,
                term: *term,
            }),
            _ => None,
        }
    }
    fn msg_label(&self, msg: &Msg<S>) -> &'static str {
        match msg {
            Msg::Vote { pre: true, .. } => "PRE_VOTE",
            Msg::Vote { pre: false, .. } => "REQUEST_VOTE",
            Msg::VoteReply { pre: true, .. } => "PRE_VOTE_REPLY",
            Msg::VoteReply { pre: false, .. } => "REQUEST_VOTE_REPLY",
            Msg::Append { entries, .. } if entries.is_empty() => "HEARTBEAT",
            Msg::Append { .. } => "APPEND_ENTRIES",
            Msg::AppendReply { .. } => "APPEND_ENTRIES_REPLY",
            Msg::AppendError { .. } | Msg::VoteError { .. } => "CONNECTION_REFUSED",
            Msg::Request { .. } => "CLIENT_REQUEST",
            Msg::Reply { .. } => "CLIENT_REPLY",
            Msg::ReadIndex { .. } => "READ_INDEX",
            Msg::ReadIndexReply { .. } => "READ_INDEX_REPLY",
            Msg::Sm(m) => self.sm.msg_label(m),
        }
    }
    fn task_label(&self, task: &Task<S>) -> &'static str {
        match task {
            Task::Flush { .. } => "flush",
            Task::Append { .. } => "append",
            Task::Apply => "apply",
            Task::Sm(t) => self.sm.task_label(t),
        }
    }
    fn timer_label(&self, t: &Timer<S::Timer>) -> &'static str {
        match t {
            Timer::Election => "election-timeout",
            Timer::LeadershipCheck => "leadership-check",
            Timer::ClientLoad => "client-load",
            Timer::ClientRetry(_) => "client-retry",
            Timer::Appender(_) => "appender-wake",
            Timer::ReadTimeout(_) => "read-timeout",
            Timer::Sm(t) => self.sm.timer_label(t),
        }
    }
    fn render_msg(&self, msg: &Msg<S>, topo: &Topology) -> String {
        let mut s = String::new();
        match msg {
            Msg::Vote {
                pre,
                term,
                last_index,
                last_term,
            } => {
                let _ = write!(
                    s,
                    "{} term={term} lastLog=(t{last_term}, i{last_index})",
                    if *pre { "preVote" } else { "requestVote" }
                );
            }
            Msg::VoteReply { pre, term, granted } => {
                let _ = write!(
                    s,
                    "{} reply term={term} granted={granted}",
                    if *pre { "preVote" } else { "vote" }
                );
            }
            Msg::Append {
                term,
                prev_index,
                prev_term,
                entries,
                commit,
                call,
            } => {
                let _ = write!(s, "appendEntries call={call} term={term} previous=(t{prev_term}, i{prev_index}) leaderCommit={commit} entries=[");
                for (k, (i, e)) in entries.iter().enumerate() {
                    if k > 0 {
                        s.push_str(", ");
                    }
                    let _ = write!(
                        s,
                        "(t{}, i{i}, {})",
                        e.term,
                        match &e.payload {
                            Payload::Startup => "startup".to_string(),
                            Payload::Client { cmd, .. } => self.sm.describe(cmd),
                        }
                    );
                }
                s.push(']');
            }
            Msg::AppendReply {
                term,
                result,
                next_index,
                match_index,
                call,
                follower_commit,
            } => {
                let _ = write!(s, "appendEntries reply call={call} term={term} result={result:?} nextIndex={next_index} matchIndex={} followerCommit={follower_commit}", match_index.map_or(-1, |m| m as i64));
            }
            Msg::AppendError { call } => {
                let _ = write!(
                    s,
                    "connection refused (appendEntries stream of call={call}): UNAVAILABLE"
                );
            }
            Msg::VoteError { pre, term } => {
                let _ = write!(
                    s,
                    "connection refused ({} term={term}): UNAVAILABLE",
                    if *pre { "preVote" } else { "requestVote" }
                );
            }
            Msg::ReadIndex { id } => {
                let _ = write!(s, "readIndex request #{id}");
            }
            Msg::ReadIndexReply { id, index } => {
                let _ = match index {
                    Some(i) => write!(s, "readIndex reply #{id}: success, readIndex={i}"),
                    None => write!(s, "readIndex reply #{id}: no success"),
                };
            }
            Msg::Request { seq, cmd } => {
                let _ = write!(s, "client request #{seq}: {}", self.sm.describe(cmd));
            }
            Msg::Reply { seq, outcome } => {
                let _ = match outcome {
                    Outcome::Ok { index, term, reply } => write!(
                        s,
                        "client reply #{seq}: ok at (t{term}, i{index}) -> {reply:?}"
                    ),
                    Outcome::NotLeader { hint } => write!(
                        s,
                        "client reply #{seq}: NotLeaderException, leader={}",
                        hint.map_or("unknown", |h| topo.name(h))
                    ),
                    Outcome::LeaderNotReady => {
                        write!(s, "client reply #{seq}: LeaderNotReadyException")
                    }
                    Outcome::Failed(e) => write!(s, "client reply #{seq}: failed: {e}"),
                    Outcome::Read {
                        term,
                        applied,
                        reply,
                        read_index: None,
                    } => write!(
                        s,
                        "client reply #{seq}: read from the state machine in term {term}, applied up to i{applied} -> {reply:?}"
                    ),
                    Outcome::Read {
                        term,
                        applied,
                        reply,
                        read_index: Some(ri),
                    } => write!(
                        s,
                        "client reply #{seq}: linearizable read at readIndex {ri} in term {term}, applied up to i{applied} -> {reply:?}"
                    ),
                    Outcome::ReadFailed(e) => write!(s, "client reply #{seq}: {e}"),
                };
            }
            Msg::Sm(m) => s = self.sm.render_msg(m),
        }
        s
    }
    fn node_bytes(&self, node: &RNode<S>) -> usize {
        std::mem::size_of::<RNode<S>>()
            + node.log.capacity() * std::mem::size_of::<Entry<S::Cmd>>()
            + node.ghost.committed.capacity() * 16
            + node.ghost.applied.capacity() * 8
            + node.retry_expiry.capacity() * 24
            + node.progress.len() * std::mem::size_of::<node::Progress>()
            + (node.retry.len() + node.pending.len() + node.client.outstanding.len()) * 64
            + node.reads.len() * std::mem::size_of::<reads::ReadWait<S::Cmd>>()
    }
    const CHECKS: bool = true;
    fn check(&self, sim: &Sim<Self>) -> Option<crate::engine::Violation> {
        if !self.p.check_invariants {
            return None;
        }
        check::check(sim, &self.memo)
    }
    // Inlined into the engine's step natively: the usual check (the stepped node's words
    // unmoved) is a few loads and compares, not a call with a large frame (issue 44).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn check_step(
        &self,
        sim: &Sim<Self>,
        moved: crate::engine::Moved,
    ) -> Option<crate::engine::Violation> {
        if !self.p.check_invariants {
            return None;
        }
        check::check_step(sim, &self.memo, moved)
    }
}
