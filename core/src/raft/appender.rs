//! The leader's LogAppender (Ratis `LogAppenderBase`/`GrpcLogAppender`, `FollowerInfoImpl`)
//! and the replies it reads; the log worker, the follower's side and the commit are
//! `replication.rs`.
//!
//! - The LogAppender (one executor for all followers) sends entries from nextIndex, advancing
//!   nextIndex as it sends, at most `max_outstanding` requests in flight; a heartbeat when the
//!   follower has not answered for min/2 (and none was sent in min/4), woken for it at that
//!   moment by its own timer (`Timer::Appender`, `arm`), which also times out each request
//!   after `request_timeout` (`timeoutAppendRequest`, an error each). After each request it
//!   sleeps if the error count moved (`sleepForErrors`, in `mayWait`).
//! - An AppendEntries that reaches a stopped server comes back refused (`Msg::AppendError`,
//!   the engine's bounce): `resetClient(null, ERROR)` drops every pending request, counts an
//!   error, clears `firstReplyReceived` and keeps nextIndex.
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

use super::node::{Entry, Progress, RNode, Sent};
use super::sm::{Stage, StateMachine};
use super::{AppendResult, Index, Msg, Raft, Task, Term, APPENDER};
use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId};
use crate::time::Micros;
use std::collections::BTreeSet;

/// `raft.server.log.appender.wait-time.min` (1 ms): a restarted appender's first request.
const WAIT_TIME_MIN: Micros = 1_000;

impl<S: StateMachine> Raft<S> {
    /// `notifyLogAppender` for every follower: an appender with something to send runs now
    /// (unless it sleeps for errors); the others keep their wake (`arm`).
    pub(crate) fn notify_appenders(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        if !node.is_leader() {
            return;
        }
        for p in 0..self.n {
            if p != ctx.me {
                self.notify_appender(node, ctx, p);
            }
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn notify_appender(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) {
        if self.appender_has_work(node, ctx, p) {
            let pr = &mut node.progress[p as usize];
            if !pr.queued {
                pr.queued = true;
                ctx.submit(APPENDER, Task::Append { peer: p }, None);
            }
        } else {
            self.arm(node, ctx, p);
        }
    }

    /// When the appender for `p` must look again with no signal: its heartbeat falls due
    /// (`getHeartbeatWaitTimeMs()`, the longest `mayWait` awaits), a batch's read deadline,
    /// not before its `sleepForErrors` ends; or a pending request times out
    /// (`scheduler.onTimeout(requestTimeout)`), whichever is first.
    fn next_wake(&self, node: &RNode<S>, p: NodeId) -> Micros {
        let pr = &node.progress[p as usize];
        let mut t = self.heartbeat_wait_end(node, p);
        if let Some(poll) = &pr.poll {
            t = t.min(poll.deadline);
        }
        t = t.max(pr.sleep_until);
        let expiry = self.p.request_timeout.0;
        // Both lists are in send order: their first entries time out first.
        for s in pr
            .outstanding
            .front()
            .into_iter()
            .chain(pr.heartbeats.front())
        {
            t = t.min(s.at + expiry);
        }
        t
    }

    /// Arms the appender's timer for `next_wake`, lazily: a wake already armed no later stays
    /// (it looks again then and re-arms), so replies that push the heartbeat back cost nothing.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn arm(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) {
        let t = self.next_wake(node, p);
        let pr = &mut node.progress[p as usize];
        if t <= ctx.now || pr.wake.is_some_and(|w| w <= t) {
            return;
        }
        pr.wake = Some(t);
        ctx.set_timer(super::Timer::Appender(p), t);
    }

    /// `Timer::Appender(p)`: the requests past `request_timeout` time out
    /// (`timeoutAppendRequest`: out of the pending map, an error each, nextIndex and
    /// firstReplyReceived kept), then the appender looks again.
    pub(crate) fn on_appender_wake(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) {
        if !node.is_leader() || p as usize >= node.progress.len() {
            return;
        }
        let expiry = self.p.request_timeout.0;
        let pr = &mut node.progress[p as usize];
        pr.wake = None;
        let now = ctx.now;
        let expired = |s: &Sent| now >= s.at + expiry;
        if pr.outstanding.front().is_some_and(expired) || pr.heartbeats.front().is_some_and(expired)
        {
            let mut timed_out: Vec<(bool, u64)> = Vec::new();
            for (hb, list) in [(false, &mut pr.outstanding), (true, &mut pr.heartbeats)] {
                while list.front().is_some_and(expired) {
                    let s = list.pop_front().expect("front");
                    timed_out.push((hb, s.call));
                }
            }
            timed_out.sort_by_key(|&(_, c)| c);
            for (hb, call) in timed_out {
                let pr = &mut node.progress[p as usize];
                pr.errors += 1;
                let errors = pr.errors;
                ctx.log(
                    LogLevel::Warn,
                    format_args!(
                        "{}->{}-GrpcLogAppender: Timed out {}appendEntries, errorCount={errors}, request=cid={call}",
                        ctx.topo.name(ctx.me),
                        ctx.topo.name(p),
                        if hb { "HEARTBEAT " } else { "" }
                    ),
                );
            }
        }
        self.notify_appender(node, ctx, p);
    }

    /// `AppendLogResponseHandler.onError` for a refused connection: no call id, so
    /// `resetClient(null, ERROR)`: the stream closed, every pending request dropped, an error
    /// counted, `firstReplyReceived` false, nextIndex kept. It signals nothing: the appender
    /// goes on with its wait (the next heartbeat, or the entries past nextIndex, open a new
    /// stream). A refusal of a stream already reset is the same failure, counted once.
    pub(crate) fn on_append_error(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        call: u64,
    ) {
        if !node.is_leader() || call == super::commands::CRAFTED_CALL {
            return;
        }
        let pr = &mut node.progress[from as usize];
        if call < pr.min_call || pr.stream.is_none_or(|first| call < first) {
            return;
        }
        pr.stream = None;
        pr.first_reply = false;
        pr.errors += 1;
        pr.outstanding.clear();
        pr.heartbeats.clear();
        let (errors, next) = (pr.errors, pr.next);
        ctx.log(
            LogLevel::Warn,
            format_args!(
                "{}->{}-GrpcLogAppender: Failed appendEntries: UNAVAILABLE (connection refused); Follower failed (request=null, errorCount={errors}); keep nextIndex ({next}) unchanged and retry.",
                ctx.topo.name(ctx.me),
                ctx.topo.name(from)
            ),
        );
        self.arm(node, ctx, from);
    }

    /// `LogAppender.getHeartbeatWaitTimeMs() <= 0`: no reply for min/2 and no heartbeat for min/4.
    fn heartbeat_timed(&self, node: &RNode<S>, ctx: &Ctx<Self>, p: NodeId) -> bool {
        let pr = &node.progress[p as usize];
        let min = self.p.timeout_min.0;
        ctx.now >= pr.last_response + min / 2 && ctx.now >= pr.last_heartbeat + min / 4
    }

    /// A heartbeat is due by time, or forced (a new commitIndex for an idle follower, sent once
    /// no append is pending).
    fn heartbeat_due(&self, node: &RNode<S>, ctx: &Ctx<Self>, p: NodeId) -> bool {
        let pr = &node.progress[p as usize];
        (pr.force_heartbeat && pr.outstanding.is_empty()) || self.heartbeat_timed(node, ctx, p)
    }

    /// Room for another AppendEntries with entries to `p` (`haveTooManyPendingRequests` is
    /// false): fewer than `max_outstanding` pending, and none pending before the first reply.
    fn window_open(&self, node: &RNode<S>, p: NodeId) -> bool {
        let pr = &node.progress[p as usize];
        let max = if !pr.first_reply {
            1
        } else {
            self.p.max_outstanding as usize
        };
        pr.outstanding.len() < max
    }

    fn appender_has_work(&self, node: &RNode<S>, ctx: &Ctx<Self>, p: NodeId) -> bool {
        let pr = &node.progress[p as usize];
        ctx.now >= pr.sleep_until
            && (pr.poll.is_some()
                || (pr.next <= node.last() && self.window_open(node, p))
                || self.heartbeat_due(node, ctx, p))
    }

    /// `GrpcLogAppender.sleepForErrors` with the default `raft.server.log.appender.retry.policy`
    /// ("1ms,10, 1s,20, 5s,1000", each sleep times a random 0.5-1.5): on a new error count, the
    /// appender sleeps after its request (`mayWait`), so the next one waits. True if it sleeps.
    fn sleep_for_errors(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) -> bool {
        use rand::Rng;
        let pr = &mut node.progress[p as usize];
        if pr.errors == pr.errors_slept || pr.errors == 0 {
            return false;
        }
        pr.errors_slept = pr.errors;
        let base = match pr.errors {
            1..=10 => 1_000,
            11..=30 => 1_000_000,
            31..=1030 => 5_000_000,
            _ => return false,
        };
        let d = base / 2 + ctx.rng.random_range(0..base);
        node.progress[p as usize].sleep_until = ctx.now + d;
        true
    }

    /// `LeaderStateImpl.restart(LogAppender)`: a new appender and a new `FollowerInfo` for `p`
    /// (nextIndex at the start of the log, matchIndex none, the last RPC times `timeout_max`
    /// ago, no pending requests, no reply yet); replies to the old appender's calls are
    /// ignored. The new appender starts `raft.server.log.appender.wait-time.min` (1 ms) later.
    fn restart_appender(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) {
        let old = ctx.now.saturating_sub(self.p.timeout_max.0);
        let at = ctx.now + WAIT_TIME_MIN;
        node.progress[p as usize] = Progress {
            next: 1,
            last_response: old,
            last_heartbeat: old,
            min_call: node.next_call,
            sleep_until: at,
            ..Progress::default()
        };
        self.arm(node, ctx, p);
    }

    /// When the heartbeat to `p` falls due (`LogAppender.getHeartbeatWaitTimeMs`: half the
    /// minimum RPC timeout after the last reply, a quarter after the last heartbeat sent,
    /// whichever is later): the longest `pollList` waits for a batch's data reads.
    fn heartbeat_wait_end(&self, node: &RNode<S>, p: NodeId) -> Micros {
        let pr = &node.progress[p as usize];
        let min = self.p.timeout_min.0;
        (pr.last_response + min / 2).max(pr.last_heartbeat + min / 4)
    }

    /// `DataQueue.pollList` over a batch: the entries from `from` whose reads are done, in
    /// order. All done: the whole batch. A read still running: wait (`None`, the poll kept)
    /// until the deadline, then the prefix read so far (a `TimeoutException`, logged; Ratis
    /// sends the prefix, possibly none: a heartbeat, and drops the other reads). A read that
    /// failed: `EntryWithData.getEntry` throws RaftLogIOException, the whole batch is discarded
    /// and the appender restarts (`None`).
    fn poll_batch(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        p: NodeId,
        mut poll: super::node::Poll,
    ) -> Option<Vec<(Index, Entry<S::Cmd>)>> {
        if node.progress[p as usize].next != poll.from {
            // A reply moved nextIndex while the batch waited (Ratis' appender holds its lock
            // through pollList, the reply waits): the model builds the batch again.
            node.progress[p as usize].queued = true;
            ctx.submit(APPENDER, Task::Append { peer: p }, None);
            return None;
        }
        // Sized for the whole batch: no growth step by step (issue 44).
        let mut entries: Vec<(Index, Entry<S::Cmd>)> =
            Vec::with_capacity((poll.to + 1).saturating_sub(poll.from) as usize);
        let mut waiting = None;
        for i in poll.from..=poll.to {
            let failed = if poll.failed.is_some() && i == poll.to {
                poll.failed.take()
            } else if poll.pending.contains(&i) {
                match self.with_sm(node, ctx, |s, n, c| s.poll_data(n, c, i, p)) {
                    Stage::Done => {
                        poll.pending.remove(&i);
                        None
                    }
                    Stage::Pending => {
                        waiting = Some(i);
                        break;
                    }
                    Stage::Failed(err) => Some(err),
                }
            } else {
                None
            };
            if let Some(err) = failed {
                // EntryWithData.getEntry throws RaftLogIOException: the whole batch is
                // discarded, the appender fails and LogAppenderDaemon restarts it.
                ctx.log(
                    LogLevel::Warn,
                    format_args!(
                        "Failed readStateMachineData for (t{}, i{i}): {err}; the batch of {} entries is discarded and the LogAppender for {} restarts",
                        node.log[i as usize - 1].term,
                        i - poll.from + 1,
                        ctx.topo.name(p)
                    ),
                );
                self.restart_appender(node, ctx, p);
                return None;
            }
            entries.push((i, node.log[i as usize - 1].clone()));
        }
        let Some(i) = waiting else {
            return Some(entries);
        };
        if ctx.now < poll.deadline {
            node.progress[p as usize].poll = Some(poll);
            self.arm(node, ctx, p);
            return None;
        }
        ctx.log(
            LogLevel::Warn,
            format_args!(
                "Failed to get (t{}, i{i}) in {}: TimeoutException; the AppendEntries to {} carries the {} entries before it",
                node.log[i as usize - 1].term,
                crate::time::fmt_duration(poll.deadline.saturating_sub(poll.started)),
                ctx.topo.name(p),
                entries.len()
            ),
        );
        Some(entries)
    }

    /// The LogAppender serves follower `p`: one turn of `GrpcLogAppender.run`'s loop (send
    /// what is due, then `mayWait`: `sleepForErrors` if the error count changed since it last
    /// slept, and the wait until the next wake).
    pub(crate) fn on_appender(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) {
        if !node.is_leader() {
            return;
        }
        node.progress[p as usize].queued = false;
        if ctx.now >= node.progress[p as usize].sleep_until {
            self.append_once(node, ctx, p);
            if !node.is_leader() {
                return;
            }
            // Still in `pollList` for a batch's reads: the turn has not ended, no sleep yet.
            if node.progress[p as usize].poll.is_none() {
                self.check_health(node, ctx, p);
                if !node.is_leader() {
                    return;
                }
                self.sleep_for_errors(node, ctx, p);
            }
        }
        if !node.progress[p as usize].queued {
            self.arm(node, ctx, p);
        }
    }

    /// `LeaderStateImpl.checkHealth`, at the end of each turn of the appender's loop: a follower
    /// that has not answered for longer than `slowness_timeout` (`getLastRpcResponseTime`, set
    /// when this leader took office and at each reply) is reported to the state machine
    /// (`notifyFollowerSlowness`) at every turn while it stays silent.
    fn check_health(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) {
        let quiet = ctx
            .now
            .saturating_sub(node.progress[p as usize].last_response);
        if quiet > self.p.slowness_timeout.0 {
            self.with_sm(node, ctx, |s, n, c| s.follower_slowness(n, c, p, quiet));
        }
    }

    /// `appendLog`: the request due for `p`, if any (entries from nextIndex, or a heartbeat).
    fn append_once(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, p: NodeId) {
        let last = node.last();
        let mut entries: Vec<(Index, Entry<S::Cmd>)> = Vec::new();
        if let Some(poll) = node.progress[p as usize].poll.take() {
            // Waiting in pollList for this batch's data reads.
            match self.poll_batch(node, ctx, p, poll) {
                Some(e) => entries = e,
                None => return,
            }
        } else {
            let pr = &node.progress[p as usize];
            // LogAppenderBase.newAppendEntriesRequest: a heartbeat when one is due by time, else
            // entries from nextIndex if the window has room (they carry the commitIndex too),
            // else a forced heartbeat.
            let timed = self.heartbeat_timed(node, ctx, p);
            if !timed && pr.next <= last && self.window_open(node, p) {
                let from = pr.next;
                let to = last.min(from + self.p.append_batch as u64 - 1);
                // getEntryWithData for every entry of the batch first: each read starts now
                // (a state machine may queue it on its own executor), then pollList waits for
                // them in index order until the heartbeat is due.
                let mut poll = super::node::Poll {
                    from,
                    to,
                    pending: BTreeSet::new(),
                    started: ctx.now,
                    deadline: self.heartbeat_wait_end(node, p),
                    failed: None,
                };
                for i in from..=to {
                    let e = &node.log[i as usize - 1];
                    if let super::node::Payload::Client { cmd, .. } = &e.payload {
                        let cmd = cmd.clone();
                        match self.with_sm(node, ctx, |s, n, c| s.read_data(n, c, i, &cmd, p)) {
                            Stage::Done => {}
                            Stage::Pending => {
                                poll.pending.insert(i);
                            }
                            // The read failed at once: pollList meets it after the entries
                            // before it, and nothing after it is read.
                            Stage::Failed(err) => {
                                poll.to = i;
                                poll.failed = Some(err);
                                break;
                            }
                        }
                    }
                }
                match self.poll_batch(node, ctx, p, poll) {
                    Some(e) => entries = e,
                    None => return,
                }
                if entries.is_empty() {
                    return;
                }
            } else if !self.heartbeat_due(node, ctx, p) {
                // Neither due by time nor forced: a forced heartbeat is for the commitIndex,
                // which only one with the previous entry carries, so it waits until no append
                // is pending.
                return;
            }
        }
        let call = node.next_call;
        node.next_call += 1;
        let pr = &mut node.progress[p as usize];
        // A heartbeat carries no previous entry while appends are pending
        // (`hasPendingDataRequests() ? null : previous`).
        // LogAppender.getPrevious: none when nextIndex - 1 is not in the leader's log (a
        // follower that committed entries this leader never had — a Leader Completeness
        // violation, e.g. `commit_rule = "count-replicas"` — answers INCONSISTENCY with its
        // commitIndex + 1, past the leader's log: heartbeats then carry no previous entry).
        let prev_index = if (entries.is_empty() && !pr.outstanding.is_empty()) || pr.next > last + 1
        {
            0
        } else {
            pr.next - 1
        };
        let prev_term = if prev_index == 0 {
            0
        } else {
            node.log[prev_index as usize - 1].term
        };
        let sent = Sent {
            call,
            first: if entries.is_empty() { 0 } else { pr.next },
            prev: prev_index,
            at: ctx.now,
        };
        if pr.stream.is_none() {
            pr.stream = Some(call); // a new appendLogRequestObserver
        }
        if entries.is_empty() {
            pr.last_heartbeat = ctx.now;
            pr.force_heartbeat = false;
            pr.heartbeats.push_back(sent);
        } else {
            pr.outstanding.push_back(sent);
            pr.next += entries.len() as u64;
            pr.force_heartbeat = false;
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
        follower_commit: Index,
    ) {
        if term > node.term {
            return self.step_down(node, ctx, term, "a follower has a higher term");
        }
        // The reply to a crafted message (`send-heartbeat`, `send-append`: no appender sent it)
        // moves no progress: only its term counts, above.
        if !node.is_leader() || term < node.term || call == super::commands::CRAFTED_CALL {
            return;
        }
        let next_call = node.next_call;
        let pr = &mut node.progress[from as usize];
        if call < pr.min_call {
            return; // for the appender before its restart
        }
        pr.last_response = ctx.now;
        // RequestMap.remove(reply): the request this reply answers, if still pending.
        let request = match pr.outstanding.iter().position(|s| s.call == call) {
            Some(k) => pr.outstanding.remove(k),
            None => match pr.heartbeats.iter().position(|s| s.call == call) {
                Some(k) => pr.heartbeats.remove(k),
                None => None,
            },
        };
        // ReplyState.process: any reply is the first reply; ErrorState counts INCONSISTENCY as
        // an error and resets on SUCCESS or NOT_LEADER.
        pr.first_reply = true;
        if result == AppendResult::Inconsistency {
            pr.errors += 1;
        } else {
            pr.errors = 0;
            pr.errors_slept = 0;
        }
        match result {
            AppendResult::Success => {
                // On Ratis' ordered stream this reply follows the replies to every earlier
                // request; one of those still pending here lost its reply, and is answered.
                pr.outstanding.retain(|s| s.call > call);
                pr.heartbeats.retain(|s| s.call > call);
                // A stale success still proves what the follower stored (same term, and a
                // leader's entries are never truncated on its followers): matchIndex only
                // grows (`updateMatchIndex`), and nextIndex with it (`updateNextIndex`).
                if let Some(m) = match_index {
                    pr.search = 0;
                    if m > pr.matched {
                        pr.matched = m;
                        pr.next = pr.next.max(m + 1);
                        self.update_commit(node, ctx);
                    }
                }
                self.read_round_reply(node, ctx, from, call, follower_commit);
            }
            AppendResult::NotLeader => {}
            AppendResult::Inconsistency => {
                let Some(request) = request else {
                    // Its request was cleared by an earlier INCONSISTENCY or timed out: on Ratis'
                    // ordered stream such a reply trails the one that reset nextIndex; here it
                    // may overtake later ones and undo a search, so it moves nothing.
                    ctx.log(
                        LogLevel::Debug,
                        format_args!(
                            "stale INCONSISTENCY from {} (call {call}, nextIndex {next_index}) ignored",
                            ctx.topo.name(from)
                        ),
                    );
                    return self.notify_appenders(node, ctx);
                };
                // LogAppenderBase.getNextIndexForInconsistency(request.firstIndex, reply.nextIndex),
                // a heartbeat's firstIndex being INVALID_LOG_INDEX.
                let first = (request.first > 0).then_some(request.first);
                let mut next = next_index;
                let m = pr.matched + 1;
                if m > next && Some(m) != first {
                    next = m;
                }
                if Some(next) == first && next > 1 {
                    next -= 1;
                }
                // A reply naming its request's own previous index (the follower holds a
                // conflicting entry there, or lacks just that one) above the position the last
                // INCONSISTENCY set: on an ordered stream it would have come before that one;
                // obeyed here it would undo the walk back through a divergent suffix.
                // Only a reply to a request sent before that INCONSISTENCY: one sent after it
                // describes the follower as it is now (e.g. a SUCCESS lost on the way let
                // nextIndex run past the search; ignoring its INCONSISTENCY then ignored every
                // later one, the follower never caught up: a 5-node property case).
                if pr.search > 0
                    && call < pr.search_call
                    && next_index == request.prev
                    && next > pr.search
                {
                    ctx.log(
                        LogLevel::Debug,
                        format_args!(
                            "INCONSISTENCY from {} (call {call}, nextIndex {next_index}) above the search at {} ignored",
                            ctx.topo.name(from),
                            pr.search
                        ),
                    );
                    return self.notify_appenders(node, ctx);
                }
                // A reply to an AppendEntries pipelined after one still pending, from a follower
                // that lacks this request's previous entry, setting nextIndex above the search
                // (to the follower's own end): on Ratis' ordered stream the earlier request's
                // reply comes first and its INCONSISTENCY clears this request; obeyed here it
                // would restart the walk back from the follower's end, again and again on a
                // reordering network. Instead the appender drops the appends pipelined after
                // the search position and sends from there again (the earlier request or its
                // reply may be lost: its copy answers the same, the first answer wins). Once no
                // earlier append is pending, such a reply is obeyed.
                if pr.search > 0
                    && next > pr.search
                    && next_index <= request.prev
                    && pr.outstanding.iter().any(|s| s.call < call)
                {
                    let s = pr.search;
                    ctx.log(
                        LogLevel::Debug,
                        format_args!(
                            "INCONSISTENCY from {} (call {call}, nextIndex {next_index}) overtook the reply to an earlier append: sending from the search at {s} again",
                            ctx.topo.name(from)
                        ),
                    );
                    pr.outstanding.retain(|r| r.first <= s);
                    pr.next = s;
                    return self.notify_appenders(node, ctx);
                }
                // GrpcLogAppender.updateNextIndex: clear the pending requests, set nextIndex;
                // the appender pipelines again at once.
                pr.outstanding.clear();
                pr.heartbeats.clear();
                pr.next = next.max(1);
                pr.search = pr.next;
                pr.search_call = next_call;
            }
        }
        self.notify_appenders(node, ctx);
    }
}
