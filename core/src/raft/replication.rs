//! Log replication (Ratis `LogAppenderBase`/`GrpcLogAppender`, `RaftServerImpl.appendEntries`,
//! `SegmentedRaftLogWorker`, `LeaderStateImpl.updateCommit`).
//!
//! - The LogWorker flushes appended entries; `flush` is what it wrote and whose data stage is
//!   done. A follower replies SUCCESS only after the flush; the leader's own entry counts
//!   toward commit only once flushed.
//! - The LogAppender (one executor for all followers) sends entries from nextIndex, advancing
//!   nextIndex as it sends, at most `max_outstanding` requests in flight; a heartbeat when the
//!   follower has not answered for min/2 (and none was sent in min/4).
//! - A follower refuses a mismatched `previous` with INCONSISTENCY and nextIndex =
//!   min(its nextIndex, previous.index); the leader matches the reply to its request by call id
//!   (`RequestMap`), sets nextIndex by `getNextIndexForInconsistency(request.firstIndex,
//!   reply.nextIndex)` (matchIndex + 1 when larger, never resending the same first entry) and
//!   drops its pending requests. A reply whose request was already dropped is stale: it
//!   describes the follower as it was before the leader's last correction and is ignored (in
//!   Ratis a gRPC stream delivers replies in order, so a stale reply can only trail the one that
//!   caused the reset; here messages overtake each other, and obeying stale replies let nextIndex
//!   flip between two searches forever).
//! - While the leader searches for the follower's position (after INCONSISTENCY, and until a
//!   new leader's first reply: Ratis' `ReplyState.firstReplyReceived` and the appender's sleep on
//!   errors) one AppendEntries is in flight at a time, and a heartbeat sent while that probe is
//!   pending carries no `previous`, so it cannot undo the search. (Ratis' heartbeat carries none
//!   whenever appends are pending, `hasPendingDataRequests()? null : previous`, and a separate
//!   rule, `isFollowerCommitBehindLastCommitIndex`, sends one to carry a new commitIndex; this
//!   model has only the first, so it keeps `previous`, and the commitIndex it carries, outside a
//!   search.)
//! - Commit: the majority of (the leader's flush, each follower's matchIndex), if the entry
//!   there is of the current term (`CommitRule::CurrentTerm`).

use super::node::{Entry, RNode, Sent};
use super::params::CommitRule;
use super::sm::{Stage, StateMachine};
use super::{
    AppendResult, FlushReply, Index, Msg, Raft, Task, Term, APPENDER, LOG_WORKER, UPDATER,
};
use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId};

impl<S: StateMachine> Raft<S> {
    pub(crate) fn submit_flush(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        upto: Index,
        reply: Option<FlushReply>,
    ) {
        ctx.submit(
            LOG_WORKER,
            Task::Flush {
                upto,
                epoch: node.epoch,
                reply,
            },
            None,
        );
    }

    /// The LogWorker finished a write.
    pub(crate) fn on_flushed(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        upto: Index,
        epoch: u64,
        reply: Option<FlushReply>,
    ) {
        if epoch != node.epoch {
            return; // the log was truncated since: this write is void
        }
        node.log_flushed = node.log_flushed.max(upto.min(node.last()));
        self.advance_flush(node, ctx);
        if let Some(r) = reply {
            if node.flush < r.match_index {
                // Written, but a data stage is still running: reply once it is done.
                node.flush_replies.push(r);
                return;
            }
            self.flush_reply(node, ctx, r);
        }
    }

    /// A follower's SUCCESS for entries flushed with their data.
    fn flush_reply(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, r: FlushReply) {
        let commit = r.leader_commit.min(r.match_index).min(node.flush);
        self.follower_commit(node, ctx, commit);
        ctx.send(
            r.leader,
            Msg::AppendReply {
                term: r.term,
                result: AppendResult::Success,
                next_index: r.match_index + 1,
                match_index: Some(r.match_index),
                call: r.call,
            },
        );
    }

    /// flush = what the LogWorker wrote, below the first data stage still running.
    pub(crate) fn advance_flush(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        let limit = node
            .data_pending
            .first()
            .map_or(node.log_flushed, |&i| node.log_flushed.min(i - 1));
        if limit > node.flush {
            node.flush = limit;
            if node.is_leader() {
                self.update_commit(node, ctx);
            }
            if node.flush_replies.iter().any(|r| r.match_index <= limit) {
                let (ready, wait) = std::mem::take(&mut node.flush_replies)
                    .into_iter()
                    .partition(|r| r.match_index <= limit);
                node.flush_replies = wait;
                for r in ready {
                    self.flush_reply(node, ctx, r);
                }
            }
        }
    }

    /// Append at `index` (already decided), start its data stage.
    pub(crate) fn data_stage(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, i: Index) {
        let e = &node.log[i as usize - 1];
        let super::node::Payload::Client { cmd, .. } = &e.payload else {
            return;
        };
        let (cmd, term, leader) = (cmd.clone(), e.term, node.is_leader());
        node.data_pending.insert(i);
        match self.with_sm(node, ctx, |s, n, c| {
            s.write_data(n, c, i, term, &cmd, leader)
        }) {
            super::sm::Stage::Pending => {}
            super::sm::Stage::Done => {
                node.data_pending.remove(&i);
            }
            super::sm::Stage::Failed(e) => {
                node.data_pending.remove(&i);
                ctx.log(
                    LogLevel::Warn,
                    format_args!("data stage of index {i} failed: {e}"),
                );
            }
        }
    }

    pub(crate) fn notify_appenders(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        if !node.is_leader() {
            return;
        }
        for p in 0..self.n {
            if p != ctx.me && self.appender_has_work(node, ctx, p) {
                let pr = &mut node.progress[p as usize];
                if !pr.queued {
                    pr.queued = true;
                    ctx.submit(APPENDER, Task::Append { peer: p }, None);
                }
            }
        }
    }

    fn heartbeat_due(&self, node: &RNode<S>, ctx: &Ctx<Self>, p: NodeId) -> bool {
        let pr = &node.progress[p as usize];
        let min = self.p.timeout_min.0;
        pr.force_heartbeat
            || (ctx.now >= pr.last_response + min / 2 && ctx.now >= pr.last_heartbeat + min / 4)
    }

    /// Room for another AppendEntries with entries to `p`: `max_outstanding`, or one while probing.
    fn window_open(&self, node: &RNode<S>, p: NodeId) -> bool {
        let pr = &node.progress[p as usize];
        let max = if pr.probing {
            1
        } else {
            self.p.max_outstanding as usize
        };
        pr.outstanding.len() < max
    }

    fn appender_has_work(&self, node: &RNode<S>, ctx: &Ctx<Self>, p: NodeId) -> bool {
        let pr = &node.progress[p as usize];
        (pr.next <= node.last() && self.window_open(node, p)) || self.heartbeat_due(node, ctx, p)
    }

    /// The LogAppender serves follower `p`.
    pub(crate) fn on_appender(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) {
        if !node.is_leader() {
            return;
        }
        node.progress[p as usize].queued = false;
        let last = node.last();
        let open = self.window_open(node, p);
        let pr = &node.progress[p as usize];
        let mut entries: Vec<(Index, Entry<S::Cmd>)> = Vec::new();
        if pr.next <= last && open {
            let to = last.min(pr.next + self.p.append_batch as u64 - 1);
            for i in pr.next..=to {
                if node.reads_pending.contains(&i) {
                    break;
                }
                let e = node.log[i as usize - 1].clone();
                if let super::node::Payload::Client { cmd, .. } = &e.payload {
                    match self.with_sm(node, ctx, |s, n, c| s.read_data(n, c, i, cmd, p)) {
                        Stage::Done => {}
                        Stage::Pending => {
                            node.reads_pending.insert(i);
                            break;
                        }
                        Stage::Failed(err) => {
                            ctx.log(
                                LogLevel::Warn,
                                format_args!("readStateMachineData({i}) failed: {err}"),
                            );
                            break;
                        }
                    }
                }
                entries.push((i, e));
            }
        }
        if entries.is_empty() && !self.heartbeat_due(node, ctx, p) {
            return;
        }
        let call = node.next_call;
        node.next_call += 1;
        let pr = &mut node.progress[p as usize];
        // A heartbeat while a probe is pending carries no previous entry (index 0).
        let prev_index = if entries.is_empty() && pr.probing && !pr.outstanding.is_empty() {
            0
        } else {
            pr.next - 1
        };
        let prev_term = if prev_index == 0 {
            0
        } else {
            node.log[prev_index as usize - 1].term
        };
        if entries.is_empty() {
            pr.last_heartbeat = ctx.now;
            pr.force_heartbeat = false;
            if pr.heartbeats.len() >= super::node::MAX_PENDING_HEARTBEATS {
                pr.heartbeats.pop_front();
            }
            pr.heartbeats.push_back(Sent {
                call,
                first: 0,
                at: ctx.now,
            });
        } else {
            pr.outstanding.push_back(Sent {
                call,
                first: pr.next,
                at: ctx.now,
            });
            pr.next += entries.len() as u64;
        }
        ctx.send(
            p,
            Msg::Append {
                term: node.term,
                prev_index,
                prev_term,
                entries,
                commit: node.commit,
                call,
            },
        );
        if node.progress[p as usize].next <= node.last() && self.window_open(node, p) {
            node.progress[p as usize].queued = true;
            ctx.submit(APPENDER, Task::Append { peer: p }, None);
        }
    }

    /// A follower (or any node) receives AppendEntries.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_append(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        term: Term,
        prev_index: Index,
        prev_term: Term,
        entries: Vec<(Index, Entry<S::Cmd>)>,
        leader_commit: Index,
        call: u64,
    ) {
        let reply = |node: &RNode<S>, ctx: &mut Ctx<Self>, result, next_index| {
            ctx.send(
                from,
                Msg::AppendReply {
                    term: node.term,
                    result,
                    next_index,
                    match_index: None,
                    call,
                },
            )
        };
        if term < node.term {
            return reply(node, ctx, AppendResult::NotLeader, node.last() + 1);
        }
        if term > node.term || node.role != super::node::Role::Follower {
            self.step_down(node, ctx, term, "AppendEntries from the leader");
        }
        if node.leader != Some(from) {
            ctx.log(
                LogLevel::Info,
                format_args!("leader is {} (term {term})", ctx.topo.name(from)),
            );
        }
        node.leader = Some(from);
        node.last_leader_contact = ctx.now;
        self.reset_election_timer(node, ctx);
        // Ratis checkInconsistentAppendEntries.
        if let Some((first, _)) = entries.first() {
            if node.commit > 0 && node.commit >= *first {
                return reply(node, ctx, AppendResult::Inconsistency, node.commit + 1);
            }
        }
        if prev_index > 0 && node.term_at(prev_index) != prev_term {
            let next = (node.last() + 1).min(prev_index);
            ctx.log(
                LogLevel::Info,
                format_args!("previous (t{prev_term}, i{prev_index}) not found: INCONSISTENCY, nextIndex {next}"),
            );
            return reply(node, ctx, AppendResult::Inconsistency, next);
        }
        let heartbeat = entries.is_empty();
        let match_index = prev_index + entries.len() as u64;
        let mut appended = false;
        for (i, e) in entries {
            if i <= node.last() {
                if node.term_at(i) == e.term {
                    continue;
                }
                ctx.log(
                    LogLevel::Info,
                    format_args!(
                        "conflict at index {i} (t{} vs t{}): truncating",
                        node.term_at(i),
                        e.term
                    ),
                );
                node.truncate(i);
            }
            let j = node.push(e.term, e.payload);
            self.data_stage(node, ctx, j);
            appended = true;
        }
        if heartbeat {
            let commit = leader_commit.min(prev_index).min(node.flush);
            self.follower_commit(node, ctx, commit);
            return reply(node, ctx, AppendResult::Success, node.last() + 1);
        }
        let r = FlushReply {
            leader: from,
            term: node.term,
            call,
            match_index,
            leader_commit,
        };
        if !appended && node.flush >= match_index {
            self.on_flushed(node, ctx, match_index, node.epoch, Some(r));
        } else {
            // Behind the writes queued before it: replies once they are flushed.
            self.submit_flush(node, ctx, match_index, Some(r));
        }
    }

    pub(crate) fn follower_commit(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, commit: Index) {
        if commit > node.commit {
            node.commit = commit;
            self.record_commit(node);
            self.kick_apply(node, ctx);
        }
    }

    pub(crate) fn record_commit(&self, node: &mut RNode<S>) {
        for i in (node.ghost.committed.len() as u64 + 1)..=node.commit {
            let c = node.chain_at(i);
            node.ghost.committed.push((c, node.term));
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_append_reply(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        term: Term,
        result: AppendResult,
        next_index: Index,
        match_index: Option<Index>,
        call: u64,
    ) {
        if term > node.term {
            return self.step_down(node, ctx, term, "a follower has a higher term");
        }
        if !node.is_leader() || term < node.term {
            return;
        }
        let pr = &mut node.progress[from as usize];
        pr.last_response = ctx.now;
        match result {
            AppendResult::Success => {
                pr.outstanding.retain(|s| s.call != call);
                pr.heartbeats.retain(|s| s.call != call);
                // A stale success still proves what the follower stored (same term, and a
                // leader's entries are never truncated on its followers): matchIndex only grows.
                if let Some(m) = match_index {
                    pr.probing = false;
                    if m > pr.matched {
                        pr.matched = m;
                        pr.next = pr.next.max(m + 1);
                        self.update_commit(node, ctx);
                    }
                }
            }
            AppendResult::NotLeader => {}
            AppendResult::Inconsistency => {
                // RequestMap.remove(reply): the request this reply answers, if still pending.
                let request = pr
                    .outstanding
                    .iter()
                    .chain(pr.heartbeats.iter())
                    .find(|s| s.call == call)
                    .map(|s| s.first);
                let Some(first) = request else {
                    ctx.log(
                        LogLevel::Debug,
                        format_args!(
                            "stale INCONSISTENCY from {} (call {call}, nextIndex {next_index}) ignored",
                            ctx.topo.name(from)
                        ),
                    );
                    return self.notify_appenders(node, ctx);
                };
                // LogAppenderBase.getNextIndexForInconsistency(request.firstIndex, reply.nextIndex)
                let mut next = next_index;
                let m = pr.matched + 1;
                if m > next && m != first {
                    next = m;
                }
                if next == first && next > 1 {
                    next -= 1;
                }
                // GrpcLogAppender.updateNextIndex: clear the pending requests, set nextIndex.
                pr.outstanding.clear();
                pr.heartbeats.clear();
                pr.probing = true;
                pr.next = next.max(1);
            }
        }
        self.notify_appenders(node, ctx);
    }

    /// LeaderStateImpl.updateCommit: the majority index of (own flush, followers' matchIndex).
    pub(crate) fn update_commit(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        let mut idx: Vec<Index> = (0..self.n)
            .map(|p| {
                if p == ctx.me {
                    node.flush
                } else {
                    node.progress[p as usize].matched
                }
            })
            .collect();
        // A handful of indexes: the small sort (equal indexes are alike, so stable or not gives
        // the same list), not another copy of the standard one in the app.
        crate::small_sort::sort_by(&mut idx, |a, b| b.cmp(a));
        // RaftLogBase.updateCommitIndex: min(majorityIndex, getFlushIndex()) — never past what
        // this server flushed (its state-machine data included), even if followers are ahead.
        let m = idx[self.majority() - 1].min(node.flush);
        if m <= node.commit {
            return;
        }
        let ok = match self.p.commit_rule {
            CommitRule::CurrentTerm => node.term_at(m) == node.term,
            CommitRule::CountReplicas => true,
        };
        if ok {
            ctx.log(
                LogLevel::Info,
                format_args!("commitIndex {} -> {m}", node.commit),
            );
            node.commit = m;
            self.record_commit(node);
            self.kick_apply(node, ctx);
            // Followers learn it with the next AppendEntries; an idle follower gets a heartbeat
            // now (Ratis notifies the senders after a commit).
            for pr in node.progress.iter_mut() {
                pr.force_heartbeat = true;
            }
            self.notify_appenders(node, ctx);
        }
    }

    pub(crate) fn kick_apply(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        if !node.apply_queued && node.applied < node.commit.min(node.last()) {
            node.apply_queued = true;
            ctx.submit(UPDATER, Task::Apply, None);
        }
    }
}
