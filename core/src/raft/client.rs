//! Clients and the request path (Ratis `RaftClient`, `RaftServerImpl.submitClientRequestAsync`,
//! `PendingRequests`, `RetryCacheImpl`, `StateMachineUpdater`).
//!
//! Each node hosts a client. It sends to the server it believes leads (its own node at first),
//! follows a NotLeader hint at once, backs off `client_retry` when there is no hint, and after
//! `client_timeout` without a reply tries the next server. A leader checks the retry cache
//! (a request already applied gets its cached reply; one already appended waits for it),
//! answers a read-only request from its state machine at once (no log entry: `readAsync` with
//! the default read option),
//! takes a pending-request permit, runs startTransaction (a refusal gets no index), appends
//! (preAppendTransaction inside), and replies once the StateMachineUpdater applied the entry.
//! Losing leadership answers every pending request with NotLeader.

use super::node::{Cached, ClientReq, Payload, RNode};
use super::sm::{Start, StateMachine};
use super::{Index, Msg, Outcome, Raft, Timer, UPDATER};
use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId};

impl<S: StateMachine> Raft<S> {
    /// The node's client issues a new request.
    pub(crate) fn client_send(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, cmd: S::Cmd) {
        let seq = node.client.next_seq;
        node.client.next_seq += 1;
        let target = node.client.target;
        node.client.outstanding.insert(
            seq,
            ClientReq {
                cmd: cmd.clone(),
                first_sent: ctx.now,
                target,
                backoff: false,
            },
        );
        ctx.send(target, Msg::Request { seq, cmd });
        ctx.set_timer(Timer::ClientRetry(seq), ctx.now + self.p.client_timeout.0);
    }

    fn client_resend(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, seq: u64) {
        let Some(r) = node.client.outstanding.get_mut(&seq) else {
            return;
        };
        r.backoff = false;
        r.target = node.client.target;
        ctx.send(
            r.target,
            Msg::Request {
                seq,
                cmd: r.cmd.clone(),
            },
        );
        ctx.set_timer(Timer::ClientRetry(seq), ctx.now + self.p.client_timeout.0);
    }

    pub(crate) fn on_client_retry(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, seq: u64) {
        let Some(r) = node.client.outstanding.get(&seq) else {
            return;
        };
        if !r.backoff && node.client.target == r.target {
            // A timeout: try the next server.
            node.client.target = (r.target + 1) % self.n;
        }
        self.client_resend(node, ctx, seq);
    }

    /// The client gets an answer.
    pub(crate) fn on_reply(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        seq: u64,
        outcome: Outcome<S::Reply>,
    ) {
        let Some(r) = node.client.outstanding.get_mut(&seq) else {
            return; // a duplicate answer, or for the client's previous incarnation
        };
        match outcome {
            Outcome::Ok { .. } | Outcome::Read { .. } => {
                let lat = ctx.now - r.first_sent;
                let r = node
                    .client
                    .outstanding
                    .remove(&seq)
                    .expect("looked up above");
                ctx.cancel_timer(Timer::ClientRetry(seq));
                let c = &mut node.client;
                c.acked += 1;
                c.lat_count += 1;
                c.lat_sum += lat;
                c.lat_max = c.lat_max.max(lat);
                c.lat_last = lat;
                c.target = from;
                match outcome {
                    // Only a write has an entry that must stay committed.
                    Outcome::Ok { index, term, .. } => node.ghost.acked.push((index, term)),
                    Outcome::Read {
                        term,
                        applied,
                        reply,
                        read_index: None,
                    } => ctx.log(
                        LogLevel::Info,
                        format_args!(
                            "client read #{seq} (read option DEFAULT): {} -> {reply:?} (answered by {} in term {term} from its state machine, applied up to index {applied})",
                            self.sm.describe(&r.cmd),
                            ctx.topo.name(from)
                        ),
                    ),
                    Outcome::Read {
                        term,
                        applied,
                        reply,
                        read_index: Some(ri),
                    } => ctx.log(
                        LogLevel::Info,
                        format_args!(
                            "client read #{seq} (read option LINEARIZABLE): {} -> {reply:?} (answered by {} in term {term} at readIndex {ri}, applied up to index {applied})",
                            self.sm.describe(&r.cmd),
                            ctx.topo.name(from)
                        ),
                    ),
                    _ => {}
                }
            }
            Outcome::NotLeader { hint } => {
                if r.target != from || r.backoff {
                    return; // stale: already sent elsewhere
                }
                match hint {
                    Some(h) if h != from => {
                        node.client.target = h;
                        self.client_resend(node, ctx, seq);
                    }
                    _ => {
                        node.client.target = (from + 1) % self.n;
                        r.backoff = true;
                        ctx.set_timer(Timer::ClientRetry(seq), ctx.now + self.p.client_retry.0);
                    }
                }
            }
            Outcome::LeaderNotReady => {
                if r.target != from || r.backoff {
                    return; // stale: already sent elsewhere
                }
                // RaftClientImpl.handleLeaderException: no leader change; the request is sent
                // again to the same server after the retry policy's sleep.
                r.backoff = true;
                ctx.set_timer(Timer::ClientRetry(seq), ctx.now + self.p.client_retry.0);
            }
            Outcome::ReadFailed(e) => {
                if r.target != from || r.backoff {
                    return; // stale: already sent elsewhere
                }
                // A ReadException / ReadIndexException is an IOException to the client: its retry
                // policy sends the request again to the same server (after `client_retry` here).
                r.backoff = true;
                ctx.set_timer(Timer::ClientRetry(seq), ctx.now + self.p.client_retry.0);
                ctx.log(
                    LogLevel::Warn,
                    format_args!(
                        "client read #{seq} ({}) failed at {}: {e}; retrying",
                        self.sm.describe(&r.cmd),
                        ctx.topo.name(from)
                    ),
                );
            }
            Outcome::Failed(e) => {
                node.client.outstanding.remove(&seq);
                ctx.cancel_timer(Timer::ClientRetry(seq));
                node.client.failed += 1;
                ctx.log(
                    LogLevel::Warn,
                    format_args!("client request #{seq} failed: {e}"),
                );
            }
        }
    }

    /// A server gets a client request.
    pub(crate) fn on_request(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        seq: u64,
        cmd: S::Cmd,
    ) {
        // readAsync with LINEARIZABLE: no checkLeaderState; the readIndex decides (`reads`).
        if self.linearizable() && self.sm.read(&node.sm, &cmd).is_some() {
            return self.linearizable_read(node, ctx, from, seq, cmd);
        }
        if !node.is_leader() {
            let hint = node.leader.filter(|&l| l != ctx.me);
            return ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::NotLeader { hint },
                },
            );
        }
        let key = (from, seq);
        // RaftServerImpl.checkLeaderState: a leader that is not ready answers from the retry
        // cache (a completed request) or with LeaderNotReadyException.
        if !node.ready && !matches!(node.retry.get(&key), Some(Cached::Done { .. })) {
            return ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::LeaderNotReady,
                },
            );
        }
        // readAsync (read option DEFAULT): past checkLeaderState, the state machine answers a
        // read-only request at once, from what this leader has applied; nothing is appended.
        if let Some(reply) = self.sm.read(&node.sm, &cmd) {
            let outcome = Outcome::Read {
                term: node.term,
                applied: node.applied,
                reply,
                read_index: None,
            };
            return ctx.send(from, Msg::Reply { seq, outcome });
        }
        match node.retry.get(&key) {
            Some(Cached::Done {
                index, term, reply, ..
            }) => {
                let outcome = Outcome::Ok {
                    index: *index,
                    term: *term,
                    reply: reply.clone(),
                };
                return ctx.send(from, Msg::Reply { seq, outcome });
            }
            Some(Cached::Pending(_)) => return, // the entry's apply answers
            None => {}
        }
        match self.with_sm(node, ctx, |s, n, c| s.start_transaction(n, c, &cmd)) {
            Err(e) => ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::Failed(e),
                },
            ),
            Ok(Start::Hold(token)) => {
                node.held.insert(token, (from, seq, cmd));
            }
            Ok(Start::Ready) => self.append_transaction(node, ctx, from, seq, cmd),
        }
    }

    pub(crate) fn resume_held(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        token: u64,
        r: Result<(), String>,
    ) {
        let Some((from, seq, cmd)) = node.held.remove(&token) else {
            return;
        };
        match r {
            Err(e) => ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::Failed(e),
                },
            ),
            Ok(()) if !node.is_leader() => ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::NotLeader { hint: node.leader },
                },
            ),
            // appendTransaction checks the leader state again.
            Ok(()) if !node.ready => ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::LeaderNotReady,
                },
            ),
            Ok(()) => self.append_transaction(node, ctx, from, seq, cmd),
        }
    }

    /// appendTransaction: preAppendTransaction, append, start the data stage and the flush.
    fn append_transaction(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        seq: u64,
        cmd: S::Cmd,
    ) {
        // LeaderStateImpl.tryAcquirePendingRequest: after startTransaction (a held request has
        // no permit yet).
        if node.pending.len() as u64 + node.leaked() >= self.p.pending_limit as u64 {
            let outcome = Outcome::Failed(
                "ResourceUnavailableException: Failed to acquire a pending write request".into(),
            );
            return ctx.send(from, Msg::Reply { seq, outcome });
        }
        let i = node.last() + 1;
        if let Err(e) = self.with_sm(node, ctx, |s, n, c| s.pre_append_transaction(n, c, i, &cmd)) {
            if self.p.leak_permit_on_pre_append_failure {
                // RaftServerImpl.appendTransaction: failWithReply without releasing the permit.
                if node.leaked_term != node.term {
                    node.leaked_term = node.term;
                    node.leaked_permits = 0;
                }
                node.leaked_permits += 1;
                ctx.log(
                    LogLevel::Warn,
                    format_args!(
                        "preAppendTransaction rejected #{seq}; its pending-request permit is not released ({} leaked of {})",
                        node.leaked_permits, self.p.pending_limit
                    ),
                );
            }
            return ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::Failed(e),
                },
            );
        }
        let i = node.push(
            node.term,
            Payload::Client {
                client: from,
                seq,
                cmd,
            },
        );
        node.pending.insert(i, (from, seq));
        node.retry.insert((from, seq), Cached::Pending(i));
        self.data_stage(node, ctx, i);
        self.submit_flush(node, ctx, i, None);
        self.notify_appenders(node, ctx);
    }

    /// Answer every pending request with NotLeader (`PendingRequests.sendNotLeaderResponses`).
    pub(crate) fn fail_pending(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        let hint = node.leader;
        for (_, (from, seq)) in std::mem::take(&mut node.pending) {
            node.retry.remove(&(from, seq));
            ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::NotLeader { hint },
                },
            );
        }
        for (_, (from, seq, _)) in std::mem::take(&mut node.held) {
            ctx.send(
                from,
                Msg::Reply {
                    seq,
                    outcome: Outcome::NotLeader { hint },
                },
            );
        }
    }

    /// The StateMachineUpdater applies the next committed entry.
    pub(crate) fn on_apply(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        node.apply_queued = false;
        let i: Index = node.applied + 1;
        if i > node.commit.min(node.last()) {
            return;
        }
        node.applied = i;
        let e = node.log[i as usize - 1].clone();
        let g = &mut node.ghost;
        if (i as usize) <= g.applied.len() {
            if g.applied[i as usize - 1] != e.chain && g.broken.is_none() {
                g.broken = Some(format!(
                    "applied a different entry at index {i} than before"
                ));
            }
        } else {
            g.applied.push(e.chain);
            g.applied_hash = super::node::chain(g.applied_hash, i, e.chain);
        }
        if i == node.startup_index && node.is_leader() && !node.ready && e.term == node.term {
            // LeaderStateImpl.checkReady: the startup entry of its term is applied.
            node.ready = true;
            ctx.log(
                LogLevel::Info,
                format_args!("leader ready: its startup entry (index {i}) is applied"),
            );
        }
        if let Payload::Client { client, seq, cmd } = &e.payload {
            let reply = self.with_sm(node, ctx, |s, n, c| s.apply(n, c, i, cmd));
            node.applied_client += 1;
            let at = ctx.now;
            // The leader that took the request answers it; every server keeps the reply in its
            // retry cache (one copy, for the answer, only where there is someone to answer).
            let answer = node.pending.remove(&i).map(|_| reply.clone());
            node.retry_expiry.push_back((at, (*client, *seq)));
            node.retry.insert(
                (*client, *seq),
                Cached::Done {
                    index: i,
                    term: e.term,
                    reply,
                    at,
                },
            );
            if let Some(reply) = answer {
                ctx.send(
                    *client,
                    Msg::Reply {
                        seq: *seq,
                        outcome: Outcome::Ok {
                            index: i,
                            term: e.term,
                            reply,
                        },
                    },
                );
            }
        }
        if !node.reads.is_empty() {
            self.reads_applied(node, ctx);
        }
        // Retry cache expiry (`raft.server.retrycache.expirytime`).
        let exp = self.p.retry_cache_expiry.0;
        if i.is_multiple_of(64) {
            // Every `Done` entry of `retry` was stored with its time in `retry_expiry`, in time
            // order, so the entries due (stored at or before now - exp) are exactly those
            // behind the queue's first item not yet due: the same entries a walk over the
            // whole cache removes (`retain(|c| !(Done && now >= at + exp))`), without the walk.
            while let Some(&(at, key)) = node.retry_expiry.front() {
                if ctx.now < at + exp {
                    break;
                }
                node.retry_expiry.pop_front();
                if matches!(node.retry.get(&key), Some(Cached::Done { at, .. }) if ctx.now >= *at + exp)
                {
                    node.retry.remove(&key);
                }
            }
        }
        if node.applied < node.commit.min(node.last()) {
            node.apply_queued = true;
            ctx.submit(UPDATER, super::Task::Apply, None);
        }
    }
}
