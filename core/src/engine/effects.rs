//! Running a node's handler and applying what it asked for: its context, the effects it
//! recorded (messages, timers, tasks, log lines, a discarded message) and the send path with
//! the network's loss, latency and ordering. Split from `engine/mod.rs`; the `Sim` it extends
//! lives there.

use super::*;

impl<P: Protocol> Sim<P> {
    /// Run a handler on `node` and apply its effects. `first` is recorded before the effects
    /// (the Deliver record, or a Drop when the handler discarded the message).
    pub(super) fn with_node(
        &mut self,
        out: &mut Out,
        node: NodeId,
        first: Option<(RecKind, RecKind)>,
        f: impl FnOnce(&P, &mut P::Node, &mut Ctx<P>),
    ) -> Result<(), SimError> {
        self.run_handler(node, f);
        if let Some((deliver, discard)) = first {
            let discarded = self.effects.iter().any(|e| matches!(e, Effect::Discard));
            self.emit(out, node, if discarded { discard } else { deliver }, None);
        }
        self.apply_pending(out, node)
    }

    /// Run a handler of `node`; its effects (and their log texts) wait in `self.effects` and
    /// `self.log_buf` for `apply_pending` or `discard_pending`.
    pub(super) fn run_handler<R>(
        &mut self,
        node: NodeId,
        f: impl FnOnce(&P, &mut P::Node, &mut Ctx<P>) -> R,
    ) -> R {
        debug_assert!(self.effects.is_empty() && self.log_buf.is_empty());
        // The protocol by reference, not an `Arc` clone per handler (two atomic operations an
        // event, issue 44).
        let (proto, state, mut ctx) = self.handler(node);
        f(proto, state, &mut ctx)
    }

    /// What a handler of `node` works with: the protocol, the node's state and its context.
    pub(super) fn handler(&mut self, node: NodeId) -> (&P, &mut P::Node, Ctx<'_, P>) {
        let slot = &mut self.nodes[node as usize];
        let ctx = Ctx {
            now: self.now,
            me: node,
            status: slot.status,
            topo: &self.topo,
            rng: &mut slot.rng,
            execs: &slot.exec_stats,
            effects: &mut self.effects,
            log_buf: &mut self.log_buf,
            tracing: self.tracing,
        };
        (&self.proto, &mut slot.state, ctx)
    }

    /// Run `f` as a handler of `node` and hand back the effects it asked for instead of applying
    /// them: a model's unit tests call one of its handlers on a node of a real run this way.
    #[cfg(test)]
    pub(crate) fn effects_of<R>(
        &mut self,
        node: NodeId,
        f: impl FnOnce(&P, &mut P::Node, &mut Ctx<P>) -> R,
    ) -> (R, Vec<Effect<P>>) {
        let (proto, state, mut ctx) = self.handler(node);
        let r = f(proto, state, &mut ctx);
        self.log_buf.clear();
        (r, std::mem::take(&mut self.effects))
    }

    /// Apply the effects `run_handler` left, then empty the buffers (kept for the next handler).
    pub(super) fn apply_pending(&mut self, out: &mut Out, node: NodeId) -> Result<(), SimError> {
        // A handler that asked for nothing (a log line is an effect too): nothing to take out
        // and put back.
        if self.effects.is_empty() {
            debug_assert!(self.log_buf.is_empty());
            return Ok(());
        }
        // Taken out while applying (the effects need `&mut self`); no effect runs a handler, so
        // the buffers left in their place stay the empty ones `take` left.
        let mut effects = std::mem::take(&mut self.effects);
        let mut log_buf = std::mem::take(&mut self.log_buf);
        let r = self.apply_effects(out, node, &mut effects, &log_buf);
        effects.clear();
        log_buf.clear();
        // Back in place; the placeholders had no allocation (dropping them is a call per event
        // for nothing: issue 44), unless something refilled them meanwhile.
        std::mem::swap(&mut self.effects, &mut effects);
        std::mem::swap(&mut self.log_buf, &mut log_buf);
        if effects.capacity() == 0 && log_buf.capacity() == 0 {
            std::mem::forget(effects);
            std::mem::forget(log_buf);
        }
        r
    }

    /// Drop the effects `run_handler` left (a refused command changes nothing).
    pub(super) fn discard_pending(&mut self) {
        self.effects.clear();
        self.log_buf.clear();
    }

    pub(super) fn apply_effects(
        &mut self,
        out: &mut Out,
        node: NodeId,
        effects: &mut Vec<Effect<P>>,
        log_buf: &str,
    ) -> Result<(), SimError> {
        // In order, popped from the back of the reversed list: no `Drain` to drop per handler
        // (its tail bookkeeping, issue 44). On an error the rest stay, for the caller to clear.
        effects.reverse();
        while let Some(eff) = effects.pop() {
            match eff {
                Effect::Send { to, msg } => self.send(out, node, to, msg)?,
                Effect::SetTimer { key, at } => {
                    let at = at.max(self.now);
                    let inc = self.nodes[node as usize].incarnation;
                    let seq = self.push(
                        at,
                        Ev::Timer {
                            node,
                            inc,
                            key: key.clone(),
                        },
                    );
                    self.nodes[node as usize].timers.insert(key, seq);
                }
                Effect::CancelTimer { key } => {
                    self.nodes[node as usize].timers.remove(&key);
                }
                Effect::Submit {
                    exec,
                    task,
                    deadline,
                } => self.submit(out, node, exec, task, deadline)?,
                Effect::Log { level, start, end } => {
                    self.log(out, node, level, &log_buf[start as usize..end as usize])
                }
                Effect::Mark { label, peer } => {
                    self.emit(out, node, RecKind::State { label, peer }, None)
                }
                Effect::Discard => {}
                Effect::Exit => self.exit_node(out, node)?,
            }
        }
        Ok(())
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn send(
        &mut self,
        out: &mut Out,
        from: NodeId,
        to: NodeId,
        msg: P::Msg,
    ) -> Result<(), SimError> {
        if self.in_flight.len() >= self.limits.max_in_flight {
            return Err(SimError::Limit(format!(
                "more than {} messages in flight at {}",
                self.limits.max_in_flight,
                fmt_time(self.now)
            )));
        }
        let id = self.next_msg;
        self.next_msg += 1;
        let label = self.proto.msg_label(&msg);
        if out.record && out.trace.body_bytes < out.trace.body_budget {
            let body = self.proto.render_msg(&msg, &self.topo);
            out.trace.body_bytes += body.len();
            out.trace.bodies.push((id, body));
        } else if out.record {
            out.trace.bodies_truncated = true;
        }
        let link = self.net.link(from, to).clone();
        let mut reason = if !link.up {
            Some(DropReason::LinkDown)
        } else if link.loss > 0.0 && self.net_rng.random::<f64>() < link.loss {
            Some(DropReason::Loss)
        } else {
            None
        };
        let mut extra = 0;
        if !self.fates.is_empty() {
            use crate::engine::action::MsgFate;
            // A forced delivery stays listed until it arrives (a link down then is ignored too).
            match self.fates.get(&id).copied() {
                Some(MsgFate::Deliver) => reason = None,
                Some(MsgFate::Drop) => {
                    self.fates.remove(&id);
                    reason = Some(DropReason::Forked);
                }
                Some(MsgFate::Delay { by }) => {
                    self.fates.remove(&id);
                    extra = by.0;
                }
                None => {}
            }
        }
        if let Some(reason) = reason {
            self.emit(
                out,
                from,
                RecKind::Drop {
                    msg: id,
                    from,
                    to,
                    label,
                    reason,
                },
                None,
            );
            return Ok(());
        }
        let latency = if link.latency_max_us > link.latency_min_us {
            crate::rng::range_inclusive_u64(
                &mut self.net_rng,
                link.latency_min_us,
                link.latency_max_us,
            )
        } else {
            link.latency_min_us
        };
        let deliver_at = self.now + latency + extra;
        self.emit(
            out,
            from,
            RecKind::Send {
                msg: id,
                to,
                label,
                deliver_at,
            },
            None,
        );
        let dest = &self.nodes[to as usize];
        let to_incarnation = (dest.status != NodeStatus::Stopped).then_some(dest.incarnation);
        self.in_flight.insert(Flight {
            id,
            from,
            to,
            msg,
            sent_at: self.now,
            deliver_at,
            to_incarnation,
        });
        self.push(deliver_at, Ev::Deliver(id));
        Ok(())
    }
}
