//! Faults and user actions applied to the simulated world: validation (naming the node, link,
//! executor or message and what would be valid), the change itself, and its record in the trace.
//! Split from `engine/mod.rs`; the `Sim` it extends lives there.

use super::*;

impl<P: Protocol> Sim<P> {
    pub(super) fn exec_index(&self, executor: &str) -> Result<u8, String> {
        let all = self.proto.executors();
        if let Some(i) = all.iter().position(|e| e.eq_ignore_ascii_case(executor)) {
            return Ok(i as u8);
        }
        // A name that is a family of numbered executors here (Ozone's one `ChunkWriter` became
        // `ChunkWriter-0`, `ChunkWriter-1`, ...): say which, rather than only "unknown".
        let family: Vec<&str> = all
            .iter()
            .copied()
            .filter(|e| {
                e.len() > executor.len() + 1
                    && e.is_char_boundary(executor.len())
                    && e[..executor.len()].eq_ignore_ascii_case(executor)
                    && e[executor.len()..].starts_with('-')
            })
            .collect();
        if let (Some(first), Some(last)) = (family.first(), family.last()) {
            return Err(format!(
                "executor \"{executor}\" is {} executors here, {first} to {last}: name one",
                family.len()
            ));
        }
        Err(format!(
            "unknown executor \"{executor}\"; this protocol has: {}",
            all.join(", ")
        ))
    }

    pub(super) fn link_pairs(
        &self,
        from: &str,
        to: &str,
        one_way: bool,
    ) -> Result<Vec<(NodeId, NodeId)>, String> {
        let a = self.topo.resolve(from)?;
        let b = self.topo.resolve(to)?;
        if a == b {
            return Err(format!(
                "a link needs two different nodes, got \"{from}\" twice"
            ));
        }
        Ok(if one_way {
            vec![(a, b)]
        } else {
            vec![(a, b), (b, a)]
        })
    }

    /// Apply a fault or user action now. Validates fully before changing anything.
    pub(super) fn apply_action(
        &mut self,
        out: &mut Out,
        action: &Action,
        source: ActionSource,
    ) -> Result<(), SimError> {
        let err = SimError::Action;
        let default = self.net.default_link().clone();
        // Validate and compute the change.
        // What a link change does to the links' timed cuts (`Sim::cut_owner`).
        enum Up {
            /// Loss or latency: the link's `up` untouched, and who cut it with it.
            Keep,
            /// A heal: the link's own again.
            Heal,
            /// A cut; timed (its duration) or not.
            Cut(Option<Micros>),
        }
        enum Change {
            Links(Vec<(NodeId, NodeId)>, Box<dyn Fn(&mut Link)>, Up),
            HealAll,
            Stop(NodeId),
            Kill(NodeId),
            Start(NodeId),
            Restart(NodeId, bool, Micros),
            Exec(NodeId, u8, Option<bool>, Option<Micros>),
            Command(NodeId, String),
            Fate(u64, crate::engine::action::MsgFate),
        }
        let change = match action {
            Action::DropLink {
                from,
                to,
                one_way,
                down_for,
            } => Change::Links(
                self.link_pairs(from, to, *one_way).map_err(err)?,
                Box::new(|l| l.up = false),
                Up::Cut(self.cut_time(*down_for)?),
            ),
            Action::HealLink { from, to, one_way } => {
                let d = default.clone();
                Change::Links(
                    self.link_pairs(from, to, *one_way).map_err(err)?,
                    Box::new(move |l| *l = d.clone()),
                    Up::Heal,
                )
            }
            Action::SetLoss {
                from,
                to,
                loss,
                one_way,
            } => {
                if !(0.0..=1.0).contains(loss) || !loss.is_finite() {
                    return Err(err(format!(
                        "loss {loss} is out of range; use a probability from 0.0 to 1.0"
                    )));
                }
                let p = *loss;
                Change::Links(
                    self.link_pairs(from, to, *one_way).map_err(err)?,
                    Box::new(move |l| l.loss = p),
                    Up::Keep,
                )
            }
            Action::SetLatency {
                from,
                to,
                min,
                max,
                one_way,
            } => {
                if min.0 > max.0 {
                    return Err(err(format!(
                        "latency min {} is above max {}",
                        crate::time::fmt_duration(min.0),
                        crate::time::fmt_duration(max.0)
                    )));
                }
                if max.0 > self.limits.max_latency_us {
                    return Err(err(format!(
                        "latency {} is above the limit of {}",
                        crate::time::fmt_duration(max.0),
                        crate::time::fmt_duration(self.limits.max_latency_us)
                    )));
                }
                let (lo, hi) = (min.0, max.0);
                Change::Links(
                    self.link_pairs(from, to, *one_way).map_err(err)?,
                    Box::new(move |l| {
                        l.latency_min_us = lo;
                        l.latency_max_us = hi;
                    }),
                    Up::Keep,
                )
            }
            Action::Partition { groups, down_for } => {
                let timed = self.cut_time(*down_for)?;
                let mut group_of = vec![usize::MAX; self.topo.len() as usize];
                for (gi, g) in groups.iter().enumerate() {
                    for name in g {
                        let id = self.topo.resolve(name).map_err(err)?;
                        if group_of[id as usize] != usize::MAX {
                            return Err(err(format!("node \"{name}\" is in two partition groups")));
                        }
                        group_of[id as usize] = gi;
                    }
                }
                if groups.len() < 2 {
                    return Err(err("a partition needs at least two groups".into()));
                }
                let mut pairs = Vec::new();
                for a in 0..self.topo.len() {
                    for b in 0..self.topo.len() {
                        let (ga, gb) = (group_of[a as usize], group_of[b as usize]);
                        if a != b && ga != usize::MAX && gb != usize::MAX && ga != gb {
                            pairs.push((a, b));
                        }
                    }
                }
                Change::Links(pairs, Box::new(|l| l.up = false), Up::Cut(timed))
            }
            Action::HealAll {} => Change::HealAll,
            Action::Stop { node } => {
                let id = self.topo.resolve(node).map_err(err)?;
                self.require_status(id, NodeStatus::Running, "stop")?;
                Change::Stop(id)
            }
            Action::Kill { node } => {
                let id = self.topo.resolve(node).map_err(err)?;
                if self.nodes[id as usize].status == NodeStatus::Stopped {
                    return Err(err(format!("cannot kill {node}: it is already stopped")));
                }
                Change::Kill(id)
            }
            Action::Start { node } => {
                let id = self.topo.resolve(node).map_err(err)?;
                self.require_status(id, NodeStatus::Stopped, "start")?;
                Change::Start(id)
            }
            Action::Restart {
                node,
                kill,
                down_for,
            } => {
                let id = self.topo.resolve(node).map_err(err)?;
                self.require_status(id, NodeStatus::Running, "restart")?;
                let d = down_for.unwrap_or(Dur(crate::time::US_PER_S * 5)).0;
                if d > self.limits.max_duration_us {
                    return Err(err(
                        "down_for is longer than the scenario duration limit".into()
                    ));
                }
                Change::Restart(id, *kill, d)
            }
            Action::Stall { node, executor } => {
                let id = self.topo.resolve(node).map_err(err)?;
                let exec = self.exec_index(executor).map_err(err)?;
                self.require_threads(id, "stall", executor)?;
                Change::Exec(id, exec, Some(true), None)
            }
            Action::Delay {
                node,
                executor,
                extra,
            } => {
                let id = self.topo.resolve(node).map_err(err)?;
                self.exec_index(executor).map_err(err)?;
                self.require_threads(id, "delay", executor)?;
                if extra.0 > self.limits.max_latency_us {
                    return Err(err(format!(
                        "delay {} is above the limit of {}",
                        crate::time::fmt_duration(extra.0),
                        crate::time::fmt_duration(self.limits.max_latency_us)
                    )));
                }
                Change::Exec(
                    id,
                    self.exec_index(executor).map_err(err)?,
                    None,
                    Some(extra.0),
                )
            }
            Action::Release { node, executor } => {
                let id = self.topo.resolve(node).map_err(err)?;
                let exec = self.exec_index(executor).map_err(err)?;
                self.require_threads(id, "release", executor)?;
                Change::Exec(id, exec, Some(false), Some(0))
            }
            Action::Command { node, command } => {
                let id = self.topo.resolve(node).map_err(err)?;
                if self.nodes[id as usize].status != NodeStatus::Running {
                    return Err(err(format!(
                        "cannot run \"{command}\" on {node}: it is not running"
                    )));
                }
                Change::Command(id, command.clone())
            }
            Action::Message { msg, fate } => {
                if *msg < self.next_msg {
                    return Err(err(format!(
                        "message #{msg} was already sent (the next message is #{}): fork from \
                         the step that sends it",
                        self.next_msg
                    )));
                }
                if let crate::engine::action::MsgFate::Delay { by } = fate {
                    if by.0 == 0 || by.0 > self.limits.max_latency_us {
                        return Err(err(format!(
                            "a delay of {} is out of range: use 1us to {}",
                            fmt_time(by.0),
                            fmt_time(self.limits.max_latency_us)
                        )));
                    }
                }
                Change::Fate(*msg, *fate)
            }
        };
        // Commands are validated by the protocol; run them before recording so a refusal
        // leaves no trace.
        if let Change::Command(id, cmd) = &change {
            return match self.run_handler(*id, |proto, n, ctx| proto.on_command(n, ctx, cmd)) {
                Err(e) => {
                    self.discard_pending();
                    Err(err(format!(
                        "{} refused \"{cmd}\": {e}",
                        self.topo.name(*id)
                    )))
                }
                Ok(()) => {
                    self.record_action(out, action, source, *id);
                    self.apply_pending(out, *id)
                }
            };
        }
        self.record_action(
            out,
            action,
            source,
            action.node().and_then(|n| self.topo.id(n)).unwrap_or(0),
        );
        match change {
            Change::Links(pairs, f, up) => {
                self.net.update(&pairs, &*f);
                match up {
                    Up::Keep => {}
                    Up::Heal | Up::Cut(None) => {
                        if !self.cuts.owner.is_empty() {
                            for p in &pairs {
                                self.cuts.owner.remove(p);
                            }
                        }
                    }
                    Up::Cut(Some(d)) => {
                        // The cut's token is the seq of the event that ends it.
                        let token = self.seq;
                        self.push(self.now + d, Ev::CutEnds(token));
                        let text = format!(
                            "{} (at {})",
                            action.describe(),
                            crate::time::fmt_duration(self.now)
                        );
                        self.cuts.texts.insert(token, text);
                        for p in pairs {
                            self.cuts.owner.insert(p, token);
                        }
                    }
                }
            }
            Change::HealAll => {
                self.net.heal_all();
                self.cuts.owner.clear();
            }
            Change::Stop(id) => self.stop_node(out, id)?,
            Change::Kill(id) => self.exit_node(out, id)?,
            Change::Start(id) => self.start_node(out, id)?,
            Change::Restart(id, kill, d) => {
                self.nodes[id as usize].restart_after = Some(d);
                if kill {
                    self.exit_node(out, id)?
                } else {
                    self.stop_node(out, id)?
                }
            }
            Change::Exec(id, exec, stall, delay) => {
                let s = &mut self.nodes[id as usize].exec_stats[exec as usize];
                if let Some(st) = stall {
                    s.stalled = st;
                }
                if let Some(d) = delay {
                    s.delay_us = d;
                }
                self.try_start_task(out, id, exec);
            }
            Change::Fate(msg, fate) => {
                self.fates.insert(msg, fate);
            }
            Change::Command(..) => unreachable!("handled above"),
        }
        Ok(())
    }

    /// A timed cut's duration, checked as the scenario file checks it; `None` for a cut that
    /// lasts until a heal.
    fn cut_time(&self, down_for: Option<Dur>) -> Result<Option<Micros>, SimError> {
        match down_for {
            None => Ok(None),
            Some(d) => {
                super::action::check_cut_for(d.0, self.limits.max_duration_us)
                    .map_err(SimError::Action)?;
                Ok(Some(d.0))
            }
        }
    }

    /// The end of a timed cut (`Ev::CutEnds`): every link whose last cut or heal is still that
    /// cut comes back up (its loss and latency as they are now); links a later action cut or
    /// healed are that action's. Logged, with how many links came up.
    pub(super) fn end_cut(&mut self, out: &mut Out, token: u64) {
        let mine: Vec<(NodeId, NodeId)> = self
            .cuts
            .owner
            .iter()
            .filter(|(_, t)| **t == token)
            .map(|(p, _)| *p)
            .collect();
        for p in &mine {
            self.cuts.owner.remove(p);
        }
        self.net.update(&mine, &|l| l.up = true);
        let what = self.cuts.texts.remove(&token).unwrap_or_default();
        let text = format!(
            "the timed cut {what} ended: {} link{} up again",
            mine.len(),
            if mine.len() == 1 { "" } else { "s" }
        );
        self.log(out, 0, LogLevel::Info, &text);
    }

    pub(super) fn record_action(
        &mut self,
        out: &mut Out,
        action: &Action,
        source: ActionSource,
        node: NodeId,
    ) {
        let index = out.trace.actions.len() as u32;
        let text = action.describe();
        self.emit(out, node, RecKind::Action { index }, Some(&text));
        if out.record {
            out.trace.actions.push(AppliedAction {
                step: self.steps,
                time: self.now,
                source,
                action: action.clone(),
            });
        }
    }

    pub(super) fn require_status(
        &self,
        id: NodeId,
        want: NodeStatus,
        verb: &str,
    ) -> Result<(), SimError> {
        let st = self.nodes[id as usize].status;
        if st == want {
            Ok(())
        } else {
            Err(SimError::Action(format!(
                "cannot {verb} {}: it is {} (it must be {})",
                self.topo.name(id),
                st.as_str(),
                want.as_str()
            )))
        }
    }

    /// A thread action (stall, delay, release) needs the node's threads: a stopped node has
    /// none (they start afresh, neither stalled nor delayed, when it starts), so it is refused
    /// as a command on it is. A node stopping gracefully still runs its threads.
    fn require_threads(&self, id: NodeId, verb: &str, executor: &str) -> Result<(), SimError> {
        if self.nodes[id as usize].status == NodeStatus::Stopped {
            return Err(SimError::Action(format!(
                "cannot {verb} {executor} on {}: it is stopped (its threads start afresh, \
                 neither stalled nor delayed, when it starts)",
                self.topo.name(id)
            )));
        }
        Ok(())
    }

    /// Messages sent so far: the id the next one gets.
    pub fn messages_sent(&self) -> u64 {
        self.next_msg
    }

    pub(super) fn stop_node(&mut self, out: &mut Out, node: NodeId) -> Result<(), SimError> {
        self.set_status(out, node, NodeStatus::Stopping);
        self.with_node(out, node, None, |proto, n, ctx| proto.on_stop(n, ctx))
    }

    /// The model-dependent checks of an action that do not depend on the run's state: executor
    /// names, a command's text (`Protocol::check_command`).
    pub fn check_action_static(&self, a: &Action) -> Result<(), String> {
        match a {
            Action::Stall { executor, .. }
            | Action::Delay { executor, .. }
            | Action::Release { executor, .. } => self.exec_index(executor).map(|_| ()),
            Action::Command { node, command } => match self.topo.id(node) {
                Some(id) => self.proto.check_command(id, command),
                // Unknown nodes are the scenario's checks' to name.
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}
