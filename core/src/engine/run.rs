//! `Engine`: a run over time — the simulated world, its trace, the user's recorded actions,
//! checkpoints and jumps, and the run's limits (events, trace records, memory). `Sim` (in the
//! parent module) is the world at one instant; this module is its history.

use super::*;

/// A run: the simulated world, its trace, the user's recorded actions, and checkpoints.
pub struct Engine<P: Protocol> {
    pub sim: Sim<P>,
    pub trace: Trace,
    pub user_actions: Vec<RecordedAction>,
    pub(super) checkpoints: Vec<Sim<P>>,
    /// `approx_bytes` of each checkpoint, when it was taken.
    pub(super) ckpt_bytes: Vec<usize>,
    ckpt_every: u64,
    /// When set, checkpoints are spaced by virtual time instead of steps (see
    /// `set_checkpoint_span`).
    ckpt_span: Option<Micros>,
    checkpointing: bool,
    max_checkpoints: usize,
    /// Whether the trace keeps its records (and log lines, violations, bodies); when not, the
    /// run still hashes every record (`trace_hash`) and advances `trace.steps`. Off for a run
    /// that nobody reads the trace of (`set_keep_records`).
    keep_records: bool,
}

/// At most this many checkpoints are kept (fewer when `Limits::max_checkpoint_bytes` would not
/// hold them, see `Engine::max_checkpoints`); when more would be taken, every other one is
/// dropped and the interval doubles, so memory stays bounded and a jump replays at most one
/// interval.
/// 64: at 251 nodes a checkpoint is ~11 MB (the link table is shared), ~690 MB at the end of the
/// 10-minute rolling upgrade, for jumps that replay at most ~20k events (~26k with 48, ~40k
/// with 32).
pub const MAX_CHECKPOINTS: usize = 64;

impl<P: Protocol> Engine<P> {
    /// Free the trace and the checkpoints, keeping the state now: for a caller that is done
    /// with the run and only reads its final state (the CLI's `--format json` views, issue 44:
    /// the 120 s Raft run's trace is 28 MiB). The run must not step, jump or be traced after.
    pub fn drop_history(&mut self) {
        self.trace = Trace::default();
        self.checkpoints = Vec::new();
        self.ckpt_bytes = Vec::new();
    }
}
/// The fewest checkpoints a run keeps, whatever its size (the memory budget permitting or not).
pub const MIN_CHECKPOINTS: usize = 4;

impl<P: Protocol> Engine<P> {
    pub fn new(sim: Sim<P>, checkpointing: bool, body_budget: usize) -> Self {
        let checkpoints = if checkpointing {
            vec![sim.clone()]
        } else {
            Vec::new()
        };
        let ckpt_bytes = checkpoints.iter().map(|c| c.approx_bytes()).collect();
        // As many as the memory budget holds, sized from the state at the start (a cluster's
        // per-node tables do not grow much as it runs).
        let max_checkpoints = (sim.limits.max_checkpoint_bytes / sim.approx_bytes().max(1))
            .clamp(MIN_CHECKPOINTS, MAX_CHECKPOINTS);
        Engine {
            sim,
            trace: Trace::new(body_budget),
            user_actions: Vec::new(),
            checkpoints,
            ckpt_bytes,
            ckpt_every: 2048,
            ckpt_span: None,
            checkpointing,
            max_checkpoints,
            keep_records: true,
        }
    }

    /// Keep the trace's records (the default) or only hash them, for a run whose trace nobody
    /// reads (the CLI's `run` without `--trace`, when no expectation reads messages or log lines:
    /// issue 44, 28 MiB and ~15% of the 120 s RaftScope run's CPU). The trace hash, the steps and
    /// everything the run computes are the same. Before the first step.
    pub fn set_keep_records(&mut self, on: bool) {
        debug_assert_eq!(self.sim.steps, 0, "chosen before the run starts");
        self.keep_records = on;
    }

    /// How many checkpoints this run keeps at most: `MAX_CHECKPOINTS`, or fewer when that many
    /// copies of the state would not fit `Limits::max_checkpoint_bytes` (at least
    /// `MIN_CHECKPOINTS`). Fewer checkpoints make jumps replay more, nothing else.
    pub fn max_checkpoints(&self) -> usize {
        self.max_checkpoints
    }

    /// Steps recorded in the trace (the furthest point reached).
    pub fn frontier(&self) -> u64 {
        self.trace.steps
    }

    /// Take a checkpoint every `every` steps (it doubles as checkpoints are thinned).
    pub fn set_checkpoint_interval(&mut self, every: u64) {
        self.ckpt_every = every.max(1);
    }

    /// Space checkpoints by virtual time: one at the first step of each `span` of time (doubling,
    /// like the step interval, when they are thinned). A run of known duration divided by
    /// `MAX_CHECKPOINTS - 2` ends with its checkpoints spread evenly over it, so the longest
    /// replay of a jump is about 1/62 of the run, where step spacing thinned by halving leaves
    /// up to twice the even spacing.
    pub fn set_checkpoint_span(&mut self, span: Micros) {
        self.ckpt_span = Some(span.max(1));
    }

    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// What the checkpoints take (each sized when taken, see `take_checkpoint`).
    pub fn checkpoint_bytes(&self) -> usize {
        self.ckpt_bytes.iter().sum()
    }

    fn check_limits(&self) -> Result<(), SimError> {
        let l = &self.sim.limits;
        if self.sim.steps >= l.max_events {
            return Err(SimError::Limit(format!(
                "the run reached {} events (the limit); shorten the duration or reduce the cluster",
                l.max_events
            )));
        }
        // New ground only (here and for the memory budget below): a replay of steps already
        // run records nothing, and refusing it left a run stopped at the limit unable to step
        // back or jump.
        let new_ground = self.sim.steps >= self.trace.steps;
        if new_ground && self.trace.recs.len() >= l.max_trace_records {
            return Err(SimError::Limit(format!(
                "the trace reached {} records (the memory limit) at {}; {}",
                l.max_trace_records,
                fmt_time(self.sim.now),
                self.what_fits(self.trace.recs.len() as f64 / l.max_trace_records as f64)
            )));
        }
        // A replay (a jump back, a step back after a stop) revisits states the run already
        // held, and counting the checkpoints and trace of later times against an earlier state
        // stopped such a replay short of where the run had been (a step back from a stop over
        // the budget landed thousands of steps earlier).
        if new_ground && self.sim.steps.is_multiple_of(MEMORY_CHECK_STEPS) {
            self.check_memory()?;
        }
        Ok(())
    }

    /// "At this rate about T fits": for a limit reached with `used` (1.0: all of it) at the
    /// current time.
    fn what_fits(&self, used: f64) -> String {
        let fits = (self.sim.now as f64 / used.max(1e-9)) as Micros;
        format!(
            "the run got to {} of virtual time; at this rate about {} fit: shorten the duration \
             to that, or reduce the cluster or the message rate",
            fmt_time(self.sim.now),
            crate::time::fmt_span_floor(fits),
        )
    }

    /// The run's memory now: trace, checkpoints, simulated state (`Limits::max_memory_bytes`).
    pub fn memory_bytes(&self) -> usize {
        self.trace.approx_bytes() + self.ckpt_bytes.iter().sum::<usize>() + self.sim.approx_bytes()
    }

    /// Stop with a message naming what grew when the run's memory is over its budget.
    fn check_memory(&self) -> Result<(), SimError> {
        let budget = self.sim.limits.max_memory_bytes;
        let trace = self.trace.approx_bytes();
        let ckpts: usize = self.ckpt_bytes.iter().sum();
        let m = self.sim.memory();
        let total = trace + ckpts + m.total();
        if total <= budget {
            return Ok(());
        }
        let mut parts = [
            (
                trace,
                format!(
                    "the trace {} ({} records)",
                    mb(trace),
                    self.trace.recs.len()
                ),
            ),
            (
                ckpts,
                format!(
                    "checkpoints {} ({} copies of the state)",
                    mb(ckpts),
                    self.checkpoints.len()
                ),
            ),
            (
                m.in_flight_bytes,
                format!(
                    "messages in flight {} ({})",
                    mb(m.in_flight_bytes),
                    m.in_flight
                ),
            ),
            (
                m.task_bytes,
                format!("queued tasks {} ({})", mb(m.task_bytes), m.tasks),
            ),
            (
                m.event_bytes,
                format!("pending events {} ({})", mb(m.event_bytes), m.events),
            ),
            (m.nodes, format!("node state {}", mb(m.nodes))),
        ];
        crate::small_sort::sort_by_key(&mut parts, |p| std::cmp::Reverse(p.0));
        let list: Vec<&str> = parts
            .iter()
            .filter(|p| p.0 > 0)
            .map(|p| p.1.as_str())
            .collect();
        let hint = if parts[0].0 == trace {
            self.what_fits(total as f64 / budget as f64)
        } else if parts[0].0 == m.nodes {
            format!(
                "{} grew; the state at {} no longer fits: the nodes' own tables (what the model \
                 keeps per node, peer, write or read) outgrew the budget. Shorten the duration to \
                 before {}, or use fewer nodes or less load",
                parts[0].1,
                fmt_time(self.sim.now),
                fmt_time(self.sim.now)
            )
        } else {
            format!(
                "{} grew; the state at {} no longer fits: a backlog that never drains (a \
                 stage slower than its input, messages faster than they are delivered) keeps \
                 growing. Shorten the duration to before {}, or change the parameters that \
                 feed it",
                parts[0].1,
                fmt_time(self.sim.now),
                fmt_time(self.sim.now)
            )
        };
        Err(SimError::Limit(format!(
            "memory: the run needs about {} at {} (step {}), over its budget of {}: {}. {hint}",
            mb(total),
            fmt_time(self.sim.now),
            self.sim.steps,
            mb(budget),
            list.join(", ")
        )))
    }

    /// The recorded user action due at the current step, if any (binary search: the actions
    /// are in step order).
    fn due_user_action(&self) -> Option<(usize, &RecordedAction)> {
        let steps = self.sim.steps;
        let i = self.user_actions.partition_point(|a| a.step < steps);
        self.user_actions
            .get(i)
            .filter(|a| a.step == steps)
            .map(|a| (i, a))
    }

    /// Replace the recorded user actions (kept in step order). They come recorded in order, so
    /// the small sort (no driftsort instantiated for them in the app's download) costs one
    /// comparison each; a session holds at most `Limits::max_schedule` of them.
    pub fn set_user_actions(&mut self, mut actions: Vec<RecordedAction>) {
        crate::small_sort::sort_by_key(&mut actions, |a| a.step);
        self.user_actions = actions;
    }

    /// One step: a recorded user action due now, else the next queue event. `Ok(false)` at the end.
    pub fn step(&mut self) -> Result<bool, SimError> {
        self.step_after(false)
    }

    /// [`Self::step`]; `peeked`: `Sim::next_time` has just answered `Some` and nothing changed
    /// the world since (the caller only read it), so the queue's first event is settled and
    /// known not stale: the queue step does not look again (a second stale test, a timer's
    /// map lookup, per event, issue 44).
    fn step_after(&mut self, peeked: bool) -> Result<bool, SimError> {
        self.check_limits()?;
        let record = self.sim.steps >= self.trace.steps;
        let due = self.due_user_action().map(|(i, a)| (i, a.clone()));
        let mut out = Out {
            trace: &mut self.trace,
            record: record && self.keep_records,
        };
        let progressed = if let Some((i, ua)) = due {
            // A recorded action happened between the previous event and the next one: never move
            // the clock past the next queued event (a forged `at` cannot make time run backwards).
            let next = self.sim.next_time().unwrap_or(Micros::MAX);
            self.sim.now = self.sim.now.max(ua.at.0.min(next));
            self.sim
                .apply_action(&mut out, &ua.action, ActionSource::User)
                .map_err(|e| match e {
                    SimError::Action(m) => SimError::Action(format!(
                        "recorded action {i} (step {}, at {}): {m}",
                        ua.step,
                        fmt_time(ua.at.0)
                    )),
                    other => other,
                })?;
            self.sim.check_invariants(&mut out, None);
            self.sim.steps += 1;
            true
        } else {
            self.sim.step_queue(&mut out, peeked)?
        };
        if progressed && record {
            self.trace.steps = self.sim.steps;
        }
        if progressed && self.checkpointing && self.checkpoint_due() {
            self.take_checkpoint();
        }
        Ok(progressed)
    }

    fn checkpoint_due(&self) -> bool {
        match self.ckpt_span {
            Some(span) => self
                .checkpoints
                .last()
                .is_none_or(|c| self.sim.now / span > c.now / span),
            None => self.sim.steps.is_multiple_of(self.ckpt_every),
        }
    }

    fn take_checkpoint(&mut self) {
        if self
            .checkpoints
            .last()
            .is_some_and(|c| c.steps >= self.sim.steps)
        {
            return;
        }
        let copy = self.sim.clone();
        // Sized now, not from the state at time zero: backlogs make later copies larger. And
        // sized from the copy, not from the state: a copy allocates what is in use, while the
        // state keeps the spare capacity of its queues (an executor queue that drained after a
        // backlog: 5 MB of the 251-node rolling restart's 13.6 MB state at its end, none of it in
        // a copy).
        self.ckpt_bytes.push(copy.approx_bytes());
        self.checkpoints.push(copy);
        let over_budget = || {
            self.ckpt_bytes.iter().sum::<usize>() > self.sim.limits.max_checkpoint_bytes
                && self.checkpoints.len() > MIN_CHECKPOINTS
        };
        if self.checkpoints.len() > self.max_checkpoints || over_budget() {
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            let mut i = 0;
            self.ckpt_bytes.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.ckpt_every *= 2;
            if let Some(span) = &mut self.ckpt_span {
                *span = span.saturating_mul(2);
            }
        }
    }

    /// Leaving the furthest state computed for an earlier one: keep it as a checkpoint when the
    /// budget has room for one more (never by thinning the others), so that going back to the
    /// end ("End" after looking back) restores it instead of replaying up to a checkpoint span.
    /// It goes after every checkpoint at or before the jump's target, so `i` above stays valid.
    fn keep_frontier(&mut self) {
        let at_frontier = self.checkpointing
            && self.sim.steps == self.trace.steps
            && self
                .checkpoints
                .last()
                .is_some_and(|c| c.steps < self.sim.steps);
        if !at_frontier || self.checkpoints.len() >= self.max_checkpoints {
            return;
        }
        // The live state counts its queues' spare capacity, so only a copy tells the copy's size;
        // the newest checkpoint's size stands for it first, so that a full budget costs no copy.
        let used = self.ckpt_bytes.iter().sum::<usize>();
        let max = self.sim.limits.max_checkpoint_bytes;
        if self
            .ckpt_bytes
            .last()
            .is_some_and(|&last| used + last > max)
        {
            return;
        }
        let copy = self.sim.clone();
        let bytes = copy.approx_bytes();
        if used + bytes > max {
            return;
        }
        self.checkpoints.push(copy);
        self.ckpt_bytes.push(bytes);
    }

    /// Run events with time <= `t`, then advance the clock to `t`. Returns steps taken; stops early
    /// (without advancing the clock) after `max_steps`.
    pub fn run_until(&mut self, t: Micros, max_steps: u64) -> Result<u64, SimError> {
        let mut n = 0;
        while n < max_steps {
            let due_user = self.due_user_action().is_some_and(|(_, a)| a.at.0 <= t);
            if !due_user && self.sim.next_time().is_none_or(|nt| nt > t) {
                self.sim.now = self.sim.now.max(t);
                return Ok(n);
            }
            // Without a user action due, `next_time` just answered and `step` only reads the
            // run before the queue step (its limits, the user actions).
            if !self.step_after(!due_user)? {
                break;
            }
            n += 1;
        }
        if n < max_steps {
            self.sim.now = self.sim.now.max(t);
        }
        Ok(n)
    }

    /// Step until `pred` holds after a step (or `max_steps`). Returns whether it held.
    pub fn run_until_pred(
        &mut self,
        max_steps: u64,
        mut pred: impl FnMut(&Self) -> bool,
    ) -> Result<bool, SimError> {
        for _ in 0..max_steps {
            if !self.step()? {
                return Ok(false);
            }
            if pred(self) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The checkpoint a jump to `step` restores: the latest one at or before `step`, when the
    /// jump goes back or when it is ahead of the current state (a forward jump then replays from
    /// it instead of from the current step). `None`: replay from the current state.
    fn checkpoint_for(&self, step: u64) -> Option<&Sim<P>> {
        self.checkpoint_index_for(step)
            .map(|i| &self.checkpoints[i])
    }

    fn checkpoint_index_for(&self, step: u64) -> Option<usize> {
        let i = self.checkpoints.iter().rposition(|c| c.steps <= step);
        if step < self.sim.steps {
            Some(i.expect(
                "checkpointing is on and the first checkpoint is at step 0 (jump needs checkpoints)",
            ))
        } else {
            i.filter(|&i| self.checkpoints[i].steps > self.sim.steps)
        }
    }

    /// The step a jump to `step` starts replaying from (a checkpoint's, or the current one), so
    /// `step - replay_from(step)` steps are replayed. At most `step`. Like [`Self::jump_to_step`],
    /// panics for a step behind the current one when checkpointing is off.
    pub fn replay_from(&self, step: u64) -> u64 {
        self.checkpoint_for(step)
            .map_or(self.sim.steps, |c| c.steps)
            .min(step)
    }

    /// Move the state to just after `step` steps: from the nearest checkpoint at or before it when
    /// going back, or going forward past a checkpoint; else by stepping from the current state.
    pub fn jump_to_step(&mut self, step: u64) -> Result<(), SimError> {
        if let Some(i) = self.checkpoint_index_for(step) {
            if step < self.sim.steps {
                self.keep_frontier();
            }
            // Into the current state's allocations (see `Sim`).
            self.sim.clone_from(&self.checkpoints[i]);
        }
        while self.sim.steps < step {
            if !self.step()? {
                break;
            }
        }
        Ok(())
    }

    /// Apply a user action at the current step; a past cursor discards the old future first.
    pub fn apply_user_action(&mut self, action: Action) -> Result<(), SimError> {
        let here = self.sim.steps;
        // Validate against a copy: a refused action must not cost the user their future.
        let mut probe = self.sim.clone();
        let mut scratch = Trace::new(0);
        probe.apply_action(
            &mut Out {
                trace: &mut scratch,
                record: false,
            },
            &action,
            ActionSource::User,
        )?;
        if here < self.trace.steps {
            self.trace.truncate_to_step(here);
            self.trace.actions.retain(|a| a.step < here);
            let keep = self.checkpoints.iter().filter(|c| c.steps <= here).count();
            self.checkpoints.truncate(keep);
            self.ckpt_bytes.truncate(keep);
        }
        self.user_actions.retain(|a| a.step < here);
        self.user_actions.push(RecordedAction {
            step: here,
            at: Dur(self.sim.now),
            action,
        });
        self.step().map(|_| ())
    }
}
