//! Log replication but the leader's LogAppender (`appender.rs`): the log worker (Ratis
//! `SegmentedRaftLogWorker`), a follower's AppendEntries (`RaftServerImpl.appendEntries`) and
//! the commit (`LeaderStateImpl.updateCommit`).
//!
//! - The LogWorker flushes appended entries; `flush` is what it wrote and whose data stage is
//!   done. A follower replies SUCCESS only after the flush; the leader's own entry counts
//!   toward commit only once flushed.
//! - A follower refuses a mismatched `previous` with INCONSISTENCY and nextIndex =
//!   min(its nextIndex, previous.index); the leader's side of that exchange (its LogAppender,
//!   the replies it reads, the search for a follower's position) is `appender.rs`.
//! - Commit: the majority of (the leader's flush, each follower's matchIndex), if the entry
//!   there is of the current term (`CommitRule::CurrentTerm`).

use super::node::{Entry, RNode};
use super::params::CommitRule;
use super::sm::StateMachine;
use super::{AppendResult, FlushReply, Index, Msg, Raft, Task, Term, LOG_WORKER, UPDATER};
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
            // The log was truncated since: this write is void (its append failed: complete).
            if reply.is_some() {
                node.appends_in_progress = node.appends_in_progress.saturating_sub(1);
            }
            return;
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
        node.appends_in_progress = node.appends_in_progress.saturating_sub(1);
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
                follower_commit: node.commit,
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
                    follower_commit: node.commit,
                },
            )
        };
        // Ratis ServerImplUtils.assertEntries, before any term check: an entry of a later term
        // than the request's fails the call (an exception, no reply). Only a crafted message
        // (`send-append`) carries one.
        if let Some((k, (_, e))) = entries.iter().enumerate().find(|(_, (_, e))| e.term > term) {
            ctx.log(
                LogLevel::Error,
                format_args!(
                    "Failed appendEntries from {}: Unexpected Term: entries[{k}].getTerm() == {} > leaderTerm == {term}; no reply",
                    ctx.topo.name(from),
                    e.term
                ),
            );
            return;
        }
        // ServerState.recognizeLeader: a lower term is refused, and so is the same term from
        // another server while this one knows a leader of it (only a crafted message can do
        // that: one leader per term). The reply carries this server's term and nextIndex, and
        // nothing else changes (no step-down, no lastRpcTime).
        if term < node.term {
            return reply(node, ctx, AppendResult::NotLeader, node.last() + 1);
        }
        if term == node.term {
            if let Some(l) = node.leader.filter(|&l| l != from) {
                ctx.log(
                    LogLevel::Info,
                    format_args!(
                        "AppendEntries from {} refused: the leader of term {term} is {} (NOT_LEADER)",
                        ctx.topo.name(from),
                        ctx.topo.name(l)
                    ),
                );
                return reply(node, ctx, AppendResult::NotLeader, node.last() + 1);
            }
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
        node.set_leader(ctx.now, Some(from));
        node.last_leader_contact = ctx.now;
        // FollowerState.updateLastRpcTime(APPEND_START): the follower's sleep goes on; it
        // checks this time when it wakes.
        node.last_rpc = ctx.now;
        // Ratis checkInconsistentAppendEntries.
        if let Some((first, _)) = entries.first() {
            if node.commit > 0 && node.commit >= *first {
                // Refused whatever the entries' terms: a follower never truncates what it
                // committed, even when the leader's entry there differs (Figure 8, unsafe rule).
                ctx.log(
                    LogLevel::Info,
                    format_args!(
                        "first entry (index {first}) is at or below commitIndex {}: INCONSISTENCY, nextIndex {}",
                        node.commit,
                        node.commit + 1
                    ),
                );
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
        // Answered once written (APPEND_COMPLETE); until then the follower stands for no
        // election (`outstandingOp`).
        node.appends_in_progress += 1;
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
            node.ghost.commit(c, node.term);
        }
    }

    /// LeaderStateImpl.updateCommit: the majority index of (own flush, followers' matchIndex).
    pub(crate) fn update_commit(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        // An UPDATE_COMMIT event: the EventProcessor wakes, and its leadership check waits
        // max from now.
        node.leader_woke = ctx.now;
        // Most checks move nothing (a reply acknowledging what is already committed): the
        // majority index below exceeds `commit` exactly when this server flushed past it and at
        // least a majority of (own flush, followers' matchIndex) lie above it, which one pass
        // counts without building and sorting the list (issue 44; the same answer).
        let me = ctx.me as usize;
        if node.flush <= node.commit
            || (0..self.n as usize)
                .filter(|&p| {
                    (if p == me {
                        node.flush
                    } else {
                        node.progress[p].matched
                    }) > node.commit
                })
                .count()
                < self.majority()
        {
            return;
        }
        // On the stack for a cluster of up to 16 (no allocation and free per commit check,
        // issue 44); a `Vec` for a larger one.
        let n = self.n as usize;
        let mut small = [0 as Index; 16];
        let mut large = Vec::new();
        let idx: &mut [Index] = if n <= small.len() {
            &mut small[..n]
        } else {
            large.resize(n, 0);
            &mut large
        };
        for (p, x) in idx.iter_mut().enumerate() {
            *x = if p as NodeId == ctx.me {
                node.flush
            } else {
                node.progress[p].matched
            };
        }
        // A handful of indexes: the small sort (equal indexes are alike, so stable or not gives
        // the same list), not another copy of the standard one in the app.
        crate::small_sort::sort_by(idx, |a, b| b.cmp(a));
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
            // "commitIndex {} -> {m}", without `format_args!` (one line per commit, issue 44).
            let old = node.commit;
            ctx.log_with(LogLevel::Info, |s| {
                s.push_str("commitIndex ");
                crate::text::push_u64(s, old);
                s.push_str(" -> ");
                crate::text::push_u64(s, m);
            });
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
