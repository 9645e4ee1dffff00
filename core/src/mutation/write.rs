//! Tracked writes: `TrackedWriteRequest`, the write callbacks (`RequestCallbacks` entries of the
//! MUTATION_REQs and PUSH_MUTATION_REQs a node sent), their expiry and the retry
//! (`TrackedWriteResponseHandler.onFailure` -> `MutationTrackingService.retryFailedWrite` ->
//! `ActiveLogReconciler.schedule`), `applyInternalTracked` on arrival, and
//! BROADCAST_LOG_OFFSETS.
//!
//! A retry follows the callback, not what the node knows: the coordinator sends MUTATION_REQ
//! with a callback per replica (`sendWriteWithCallback`, CALL_BACK_ON_FAILURE); a callback that
//! expires (`write_timeout`) without its response calls `onFailure`, which schedules a
//! PUSH_MUTATION_REQ to that replica, itself sent with a callback whose failure schedules the
//! next one. Nothing in that path looks at the witnessed offsets: a replica whose MUTATION_RSP
//! was lost gets the push even when a BROADCAST_LOG_OFFSETS already told the coordinator it has
//! the write (`ActiveLogReconciler.schedule`: "TODO (expected): deduplicate via
//! OutgoingMutations"). Callbacks are per message, as `RequestCallbacks` keys them by message
//! id: the message carries the callback's number and the response names it; a response whose
//! callback is gone (it expired) is dropped, as `ResponseVerbHandler` drops it.

use super::node::{Delivery, PendingWrite, WriteCallback};
use super::offsets::{MutId, Offsets};
use super::{Msg, MtNode, Mutation, MutationTracking, Task, Timer, MUTATION_STAGE};
use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId};

impl MutationTracking {
    /// `TrackedWriteRequest.perform`: a write coordinated by this node.
    pub(super) fn write(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, row: Option<&str>) {
        let offset = node.next_offset;
        node.next_offset += 1;
        let id = MutId::new(ctx.me, offset);
        let row = row
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}:{offset}", self.nm(ctx, ctx.me)));
        let m = Mutation { id, row };
        node.writes.insert(
            offset,
            PendingWrite {
                mutation: m.clone(),
                started_at: ctx.now,
                retries: 0,
            },
        );
        ctx.log(
            LogLevel::Info,
            format_args!(
                "TrackedWriteRequest: {} ({}) applied locally and sent as MUTATION_REQ",
                self.fmt_id(ctx, id),
                m.row
            ),
        );
        ctx.submit(
            MUTATION_STAGE,
            Task::Apply {
                m: m.clone(),
                via: "local",
                reply: None,
            },
            None,
        );
        for p in 0..node.participants {
            if p != ctx.me {
                let cb = self.expect_response(node, ctx, id, p);
                self.send(node, ctx, p, Msg::MutationReq(m.clone(), cb));
            }
        }
    }

    /// `sendWithCallback`: a callback for `id` on `to`, expiring after `write_timeout`; its
    /// number goes with the message.
    fn expect_response(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        id: MutId,
        to: NodeId,
    ) -> u64 {
        let cb = node.next_callback;
        node.next_callback += 1;
        let expires_at = ctx.now + self.p.write_timeout.0;
        node.callbacks
            .insert(cb, WriteCallback { id, to, expires_at });
        ctx.set_timer(Timer::WriteRetry(cb), expires_at);
        cb
    }

    /// A MUTATION_RSP (the response to a MUTATION_REQ or a PUSH_MUTATION_REQ): its callback's
    /// `onResponse` -> `receivedWriteResponse`; none left (it expired): dropped.
    pub(super) fn write_response(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        id: MutId,
        cb: u64,
    ) {
        let known = node
            .callbacks
            .get(&cb)
            .is_some_and(|c| c.id == id && c.to == from);
        if !known {
            ctx.log(
                LogLevel::Debug,
                format_args!(
                    "MUTATION_RSP {} from {}: no callback (it expired), dropped",
                    self.fmt_id(ctx, id),
                    self.nm(ctx, from)
                ),
            );
            return;
        }
        node.callbacks.remove(&cb);
        ctx.cancel_timer(Timer::WriteRetry(cb));
        // `CoordinatorLogPrimary.receivedWriteResponse` records the witness;
        // `CoordinatorLogReplica.receivedWriteResponse` is a no-op (a replica of the log learns
        // it from BROADCAST_LOG_OFFSETS)
        if id.log == ctx.me {
            let mut o = Offsets::new();
            o.add(id.offset);
            self.witnessed_by(node, from, id.log, &o);
        }
    }

    /// A write callback expired: `onFailure` -> `retryFailedWrite` -> the ActiveLogReconciler
    /// pushes the mutation to that node again, whatever this node has heard about it since.
    pub(super) fn callback_expired(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, cb: u64) {
        let Some(WriteCallback { id, to, .. }) = node.callbacks.remove(&cb) else {
            return;
        };
        let sid = self.fmt_id(ctx, id);
        let on = self.nm(ctx, to);
        if !self.p.write_retry {
            ctx.log(
                LogLevel::Info,
                format_args!("write callback for {sid} on {on} expired (write_retry off)"),
            );
            return;
        }
        if id.log == ctx.me {
            if let Some(w) = node.writes.get_mut(&id.offset) {
                w.retries += 1;
            }
        }
        ctx.log(
            LogLevel::Info,
            format_args!(
                "write callback for {sid} on {on} expired: retryFailedWrite, ActiveLogReconciler sends PUSH_MUTATION_REQ"
            ),
        );
        self.push(node, ctx, id, to);
    }

    /// `ActiveLogReconciler.Task.send`: the mutation from the journal as PUSH_MUTATION_REQ, with
    /// a callback (a write retry, or the answer to a pull).
    pub(super) fn push(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, id: MutId, to: NodeId) {
        let Some(m) = node.journal.get(&id).cloned() else {
            ctx.log(
                LogLevel::Warn,
                format_args!(
                    "ActiveLogReconciler: {} not in the journal, nothing sent to {}",
                    self.fmt_id(ctx, id),
                    self.nm(ctx, to)
                ),
            );
            return;
        };
        let cb = self.expect_response(node, ctx, id, to);
        self.send(node, ctx, to, Msg::PushMutationReq(m, cb));
    }

    /// `receivedWriteResponse` / `updateReplicatedOffsets`: `from` witnessed these.
    pub(super) fn witnessed_by(&self, node: &mut MtNode, from: NodeId, log: NodeId, o: &Offsets) {
        if !node.is_participant(from) {
            return;
        }
        node.log_mut(log).witnessed[from as usize].union_with(o);
        if log == node.me {
            let l = &node.logs[&log];
            let rec = l.reconciled();
            node.writes.retain(|off, _| !rec.contains(*off));
        }
    }

    /// applyInternalTracked, first half: journal, startWriting, apply.
    pub(super) fn apply(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        m: Mutation,
        via: &'static str,
        reply: Option<(NodeId, u64)>,
    ) {
        let id = m.id;
        let sid = self.fmt_id(ctx, id);
        node.journal.insert(id, m.clone());
        // `CoordinatorLog.startWriting`: false only for an offset already witnessed here; a copy
        // arriving while another is being written (pending) starts writing too
        let started = !node.witnessed_locally(id);
        if started {
            let again = !node.log_mut(id.log).pending.add(id.offset);
            node.data.insert(id, m.row.clone());
            ctx.log(
                LogLevel::Debug,
                format_args!(
                    "applyInternalTracked {sid} via {via}: journaled, startWriting = true{}, applied",
                    if again {
                        " (another copy is being written)"
                    } else {
                        ""
                    }
                ),
            );
            ctx.submit(MUTATION_STAGE, Task::Finish { m, via, reply }, None);
            return;
        }
        // a duplicate: the `if (started)` block is skipped
        let fired = if self.p.fix_duplicate_notify {
            self.invoke_listeners(node, ctx, id)
        } else {
            node.listeners_skipped +=
                node.listeners.get(&id).map_or(0, |l| l.callbacks.len()) as u64;
            0
        };
        ctx.log(
            LogLevel::Info,
            format_args!(
                "applyInternalTracked {sid} via {via}: journaled, startWriting = false (duplicate){}",
                if self.p.fix_duplicate_notify {
                    format!(", notifyIncomingMutationListeners fired {fired}")
                } else {
                    format!(
                        ", finishWriting skipped: {} listener(s) not notified",
                        node.listeners.get(&id).map_or(0, |l| l.callbacks.len())
                    )
                }
            ),
        );
        node.record_delivery(Delivery {
            at: ctx.now,
            id,
            via,
            new: false,
            fired,
        });
        self.ack(node, ctx, id, reply);
    }

    /// applyInternalTracked, second half: finishWriting (witness) + invokeListeners.
    pub(super) fn finish(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        m: Mutation,
        via: &'static str,
        reply: Option<(NodeId, u64)>,
    ) {
        let id = m.id;
        let me = ctx.me as usize;
        let l = node.log_mut(id.log);
        l.pending.remove(id.offset);
        // `CoordinatorLog.finishWriting`: a copy that raced with another write finds the offset
        // witnessed and returns; `MutationTrackingService.finishWriting` invokes the listeners
        // either way
        let first = l.witnessed[me].add(id.offset);
        let fired = self.invoke_listeners(node, ctx, id);
        ctx.log(
            LogLevel::Debug,
            format_args!(
                "finishWriting {}: {}, invokeListeners fired {fired}",
                self.fmt_id(ctx, id),
                if first {
                    "witnessed"
                } else {
                    "already witnessed (raced with another write)"
                }
            ),
        );
        node.record_delivery(Delivery {
            at: ctx.now,
            id,
            via,
            new: true,
            fired,
        });
        if id.log == ctx.me {
            let mut o = Offsets::new();
            o.add(id.offset);
            self.witnessed_by(node, ctx.me, id.log, &o);
        }
        self.ack(node, ctx, id, reply);
    }

    /// The response to the node that sent the mutation, naming its callback (`respondTo`);
    /// none for a local apply.
    fn ack(&self, node: &mut MtNode, ctx: &mut Ctx<Self>, id: MutId, reply: Option<(NodeId, u64)>) {
        if let Some((to, cb)) = reply {
            if node.is_participant(ctx.me) {
                self.send(node, ctx, to, Msg::MutationRsp(id, cb));
            }
        }
    }

    /// IncomingMutations.invokeListeners: remove the entry, call every callback.
    pub(super) fn invoke_listeners(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        id: MutId,
    ) -> u32 {
        let Some(l) = node.listeners.remove(&id) else {
            return 0;
        };
        for read in &l.callbacks {
            self.accept_mutation(node, ctx, *read, id);
        }
        l.callbacks.len() as u32
    }

    /// BROADCAST_LOG_OFFSETS: this node's witnessed offsets, per log, to every other replica.
    pub(super) fn broadcast(&self, node: &mut MtNode, ctx: &mut Ctx<Self>) {
        let me = ctx.me as usize;
        let offsets: Vec<(NodeId, Offsets)> = node
            .logs
            .iter()
            .filter(|(_, l)| !l.witnessed[me].is_empty())
            .map(|(log, l)| (*log, l.witnessed[me].clone()))
            .collect();
        if !offsets.is_empty() {
            for p in 0..node.participants {
                if p != ctx.me {
                    self.send(node, ctx, p, Msg::BroadcastLogOffsets(offsets.clone()));
                }
            }
        }
        ctx.set_timer(Timer::Broadcast, ctx.now + self.p.broadcast_interval.0);
    }
}
