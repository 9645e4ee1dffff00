//! Executors and node lifecycles: a node's single-threaded stages (queueing a task, starting the
//! next one when the stage is idle and not stalled, its completion running the protocol's
//! handler) and starting and stopping a node's process. Split from `engine/mod.rs`; the `Sim` it
//! extends lives there.

use super::*;

impl<P: Protocol> Sim<P> {
    pub(super) fn submit(
        &mut self,
        out: &mut Out,
        node: NodeId,
        exec: u8,
        task: P::Task,
        deadline: Option<Micros>,
    ) -> Result<(), SimError> {
        let slot = &mut self.nodes[node as usize];
        let e = &mut slot.execs[exec as usize];
        if e.queue.len() >= self.limits.max_queue {
            return Err(SimError::Limit(format!(
                "{} queue on {} exceeded {} tasks",
                self.proto.executors()[exec as usize],
                self.topo.name(node),
                self.limits.max_queue
            )));
        }
        let q = Queued {
            task,
            enqueued_at: self.now,
            deadline,
        };
        // An idle stage with nothing queued takes the task at once: the same start (or expiry)
        // as queueing it and taking it from the queue, without the queue's round trip (issue 44).
        if e.busy.is_none()
            && e.queue.is_empty()
            && slot.status != NodeStatus::Stopped
            && !slot.exec_stats[exec as usize].stalled
        {
            self.start_task(out, node, exec, q);
            return Ok(());
        }
        e.queue.push_back(q);
        // `try_start_task` refreshes the stats on every way out (once, not twice a submit).
        self.try_start_task(out, node, exec);
        Ok(())
    }

    #[inline]
    pub(super) fn refresh_stats(&mut self, node: NodeId, exec: u8) {
        let slot = &mut self.nodes[node as usize];
        let e = &slot.execs[exec as usize];
        let s = &mut slot.exec_stats[exec as usize];
        s.pending = e.queue.len() as u32;
        s.busy = e.busy.is_some();
        s.oldest_enqueued_at = e.queue.front().map(|q| q.enqueued_at);
    }

    /// Start the next task if the executor is idle and not stalled; expired tasks are dropped.
    /// The executor's stats are up to date when it returns.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn try_start_task(&mut self, out: &mut Out, node: NodeId, exec: u8) {
        loop {
            let slot = &mut self.nodes[node as usize];
            if slot.status == NodeStatus::Stopped {
                self.refresh_stats(node, exec);
                return;
            }
            let stats = &slot.exec_stats[exec as usize];
            let e = &mut slot.execs[exec as usize];
            if e.busy.is_some() || stats.stalled {
                self.refresh_stats(node, exec);
                return;
            }
            let Some(q) = e.queue.pop_front() else {
                self.refresh_stats(node, exec);
                return;
            };
            if self.start_task(out, node, exec, q) {
                return;
            }
        }
    }

    /// Start task `q`, just taken from the queue of the idle, running, not stalled stage `exec`
    /// of `node`, or drop it when it is past its deadline. Whether it started; either way the
    /// stage's stats are up to date.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn start_task(&mut self, out: &mut Out, node: NodeId, exec: u8, q: Queued<P::Task>) -> bool {
        let now = self.now;
        let label = self.proto.task_label(&q.task);
        let waited_us = now - q.enqueued_at;
        if q.deadline.is_some_and(|d| now > d) {
            self.nodes[node as usize].exec_stats[exec as usize].expired += 1;
            self.refresh_stats(node, exec);
            self.emit(
                out,
                node,
                RecKind::TaskExpired {
                    exec,
                    label,
                    waited_us,
                },
                None,
            );
            return false;
        }
        let slot = &mut self.nodes[node as usize];
        let service =
            self.proto.service_us(&slot.state, &q.task) + slot.exec_stats[exec as usize].delay_us;
        slot.execs[exec as usize].busy = Some(q.task);
        let inc = slot.incarnation;
        self.refresh_stats(node, exec);
        self.emit(
            out,
            node,
            RecKind::TaskStart {
                exec,
                label,
                waited_us,
            },
            None,
        );
        self.push(now + service, Ev::TaskDone { node, inc, exec });
        true
    }

    pub(super) fn task_done(
        &mut self,
        out: &mut Out,
        node: NodeId,
        exec: u8,
    ) -> Result<(), SimError> {
        let slot = &mut self.nodes[node as usize];
        let task = slot.execs[exec as usize]
            .busy
            .take()
            .expect("task done on an idle executor");
        let s = &mut slot.exec_stats[exec as usize];
        s.done += 1;
        s.last_done_at = self.now;
        self.refresh_stats(node, exec);
        let label = self.proto.task_label(&task);
        self.emit(out, node, RecKind::TaskDone { exec, label }, None);
        self.with_node(out, node, None, |proto, n, ctx| proto.on_task(n, ctx, task))?;
        self.try_start_task(out, node, exec);
        Ok(())
    }

    pub(super) fn set_status(&mut self, out: &mut Out, node: NodeId, status: NodeStatus) {
        self.nodes[node as usize].status = status;
        self.emit(out, node, RecKind::NodeStatus { status }, None);
    }

    pub(super) fn start_node(&mut self, out: &mut Out, node: NodeId) -> Result<(), SimError> {
        let first = self.nodes[node as usize].incarnation == 0;
        {
            let slot = &mut self.nodes[node as usize];
            slot.incarnation += 1;
            slot.timers.clear();
            for e in &mut slot.execs {
                e.queue.clear();
                e.busy = None;
            }
            for s in &mut slot.exec_stats {
                *s = ExecStats::default();
            }
        }
        self.set_status(out, node, NodeStatus::Running);
        self.with_node(out, node, None, |proto, n, ctx| {
            proto.on_start(n, ctx, first)
        })
    }

    pub(super) fn exit_node(&mut self, out: &mut Out, node: NodeId) -> Result<(), SimError> {
        if self.nodes[node as usize].status == NodeStatus::Stopped {
            return Ok(());
        }
        self.set_status(out, node, NodeStatus::Stopped);
        let slot = &mut self.nodes[node as usize];
        slot.timers.clear();
        for e in &mut slot.execs {
            e.queue.clear();
            e.busy = None;
        }
        for s in &mut slot.exec_stats {
            s.pending = 0;
            s.busy = false;
            s.oldest_enqueued_at = None;
        }
        self.proto.on_exit(&mut slot.state);
        if let Some(down_for) = slot.restart_after.take() {
            self.push(self.now + down_for, Ev::Start(node));
        }
        Ok(())
    }
}
