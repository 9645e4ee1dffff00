//! The discrete-event engine: virtual time, one event queue, the network, node lifecycles,
//! single-threaded executors, timers, the trace, user actions, and checkpoints for scrubbing back.
//!
//! Protocols never touch the engine: a handler gets the current time, its own node's state and
//! the input, and leaves effects in a [`Ctx`]; the engine decides delivery, loss, delay and order.
//!
//! The per-event path's small functions (the queue step, the check's call, `emit` and the record
//! hash, a send, a task's start, the queue's push and stale test, the messages in flight) carry
//! `#[cfg_attr(not(target_arch = "wasm32"), inline(always))]`: inlined into their callers in
//! native builds (issue 44: most of the RaftScope run's 954.5 -> 838.0 M instructions, a call's saved
//! registers each), left to the compiler in the browser's, where each copy would be made once
//! per model in the download (docs/PERFORMANCE.md, "h/raft52").

pub mod action;
pub mod inflight;
pub mod network;
mod protocol;
mod queue;
mod timers;
pub mod trace;

use crate::limits::Limits;
use crate::rng::{self, SimRng};
use crate::time::{fmt_time, Micros};
use action::{Action, ActionSource, AppliedAction, Dur, RecordedAction};
use inflight::{HasId, InFlight};
use network::{Link, Network};
pub use protocol::{Ctx, Effect, ExecStats, Moved, Protocol, Violation, World};
use queue::{EventQueue, Keyed};
use rand::Rng;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::sync::Arc;
use trace::{hash_parts, DropReason, LogLevel, Rec, RecKind, Trace, TraceHash};

pub type NodeId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeStatus {
    Running,
    Stopping,
    Stopped,
}

impl NodeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeStatus::Running => "running",
            NodeStatus::Stopping => "stopping",
            NodeStatus::Stopped => "stopped",
        }
    }
}

/// Names and placement of the nodes. Immutable for a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Topology {
    pub names: Vec<String>,
    pub dcs: Vec<String>,
    pub racks: Vec<String>,
    pub seeds: Vec<NodeId>,
}

impl Topology {
    pub fn len(&self) -> u32 {
        self.names.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    pub fn id(&self, name: &str) -> Option<NodeId> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| i as NodeId)
    }
    pub fn name(&self, id: NodeId) -> &str {
        &self.names[id as usize]
    }
    /// Resolve a node name or explain which names exist.
    pub fn resolve(&self, name: &str) -> Result<NodeId, String> {
        self.id(name).ok_or_else(|| {
            let mut known: Vec<&str> = self.names.iter().map(|s| s.as_str()).take(12).collect();
            if self.names.len() > 12 {
                known.push("...");
            }
            format!("unknown node \"{name}\"; nodes are: {}", known.join(", "))
        })
    }
}

#[derive(Clone, Debug)]
struct Queued<T> {
    task: T,
    enqueued_at: Micros,
    deadline: Option<Micros>,
}

#[derive(Clone, Debug)]
struct Executor<T> {
    queue: VecDeque<Queued<T>>,
    busy: Option<T>,
}

/// A node as the engine sees it: the protocol's state plus process-level bookkeeping.
pub struct NodeSlot<P: Protocol> {
    pub state: P::Node,
    pub status: NodeStatus,
    pub incarnation: u32,
    pub exec_stats: Vec<ExecStats>,
    rng: SimRng,
    timers: timers::Timers<P::Timer>,
    execs: Vec<Executor<P::Task>>,
    restart_after: Option<Micros>,
}

impl<M> HasId for Flight<M> {
    fn id(&self) -> u64 {
        self.id
    }
}

/// A message on the wire.
#[derive(Clone, Debug)]
pub struct Flight<M> {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub msg: M,
    pub sent_at: Micros,
    pub deliver_at: Micros,
    /// The destination's incarnation at send time, if it was up: a restart in between loses it.
    to_incarnation: Option<u32>,
}

#[derive(Clone, Debug)]
enum Ev<P: Protocol> {
    Deliver(u64),
    Timer {
        node: NodeId,
        inc: u32,
        /// Live while the node's timer table holds this entry's `seq` for `key` (set again or
        /// cancelled: stale).
        key: P::Timer,
    },
    TaskDone {
        node: NodeId,
        inc: u32,
        exec: u8,
    },
    Scheduled(u32),
    Start(NodeId),
    /// The end of a timed cut (`Action::cut_for`), by its token.
    CutEnds(u64),
}

/// The open timed cuts: which cut each link's `up = false` belongs to (its token, the seq of its
/// `Ev::CutEnds`), while no later cut or heal took the link over, and each cut's text for the
/// log line of its end. Empty unless a timed cut ran.
#[derive(Clone, Debug, Default)]
struct TimedCuts {
    owner: BTreeMap<(NodeId, NodeId), u64>,
    texts: BTreeMap<u64, String>,
}

#[derive(Clone, Debug)]
struct Entry<P: Protocol> {
    time: Micros,
    seq: u64,
    ev: Ev<P>,
}

/// Events run in (time, seq) order: ties go to the event scheduled first.
impl<P: Protocol> Keyed for Entry<P> {
    #[inline]
    fn time(&self) -> Micros {
        self.time
    }
    #[inline]
    fn seq(&self) -> u64 {
        self.seq
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// An action that cannot be applied (unknown node, starting a running node, ...).
    Action(String),
    /// A configured limit was reached.
    Limit(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SimError::Action(m) => write!(f, "impossible action: {m}"),
            SimError::Limit(m) => write!(f, "limit reached: {m}"),
        }
    }
}

impl std::error::Error for SimError {}

/// The simulated state's memory by part (approximate bytes; see [`Sim::memory`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimMemory {
    /// Per-node tables and bookkeeping.
    pub nodes: usize,
    pub in_flight: usize,
    pub in_flight_bytes: usize,
    /// Tasks waiting in executor queues.
    pub tasks: usize,
    pub task_bytes: usize,
    /// Pending events (timers, deliveries, task completions).
    pub events: usize,
    pub event_bytes: usize,
}

impl SimMemory {
    pub fn total(&self) -> usize {
        self.nodes + self.in_flight_bytes + self.task_bytes + self.event_bytes
    }
}

/// Megabytes, for messages.
pub fn mb(bytes: usize) -> String {
    format!("{} MB", bytes.div_ceil(1_000_000))
}

/// The memory is accounted every this many steps (and at every checkpoint): between two checks
/// a run grows by at most what this many events allocate.
pub const MEMORY_CHECK_STEPS: u64 = 1 << 12;

/// Scheduled faults that did not apply (`Sim::skipped`): the first few with why, and how many.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skipped {
    pub first: Vec<(Micros, String)>,
    pub total: u64,
}

impl Skipped {
    /// How many a run lists; the rest are counted.
    pub const LISTED: usize = 16;

    fn add(&mut self, at: Micros, why: String) {
        if self.first.len() < Self::LISTED {
            self.first.push((at, why));
        }
        self.total += 1;
    }
}

/// The whole simulated world at one instant. `Clone` is a checkpoint; `clone_from` restores one
/// into an existing state (a jump) reusing its allocations: at 251 nodes the per-node tables
/// (~12 MB) are copied in place instead of freed and allocated again.
pub struct Sim<P: Protocol> {
    pub proto: Arc<P>,
    pub topo: Arc<Topology>,
    pub now: Micros,
    /// Steps processed so far (the event index of the next step).
    pub steps: u64,
    pub nodes: Vec<NodeSlot<P>>,
    pub net: Network,
    pub in_flight: InFlight<Flight<P::Msg>>,
    pub hash: TraceHash,
    schedule: Arc<Vec<(Micros, Action)>>,
    queue: EventQueue<Entry<P>>,
    seq: u64,
    next_msg: u64,
    /// Forks' decisions about messages not yet sent, by id (`Action::Message`).
    fates: BTreeMap<u64, crate::engine::action::MsgFate>,
    /// Timed cuts not ended yet (`Action::cut_for`).
    cuts: TimedCuts,
    net_rng: SimRng,
    limits: Limits,
    effects: Vec<Effect<P>>,
    /// Scratch: the texts of a handler's log lines (see `Ctx::log`).
    log_buf: String,
    /// Entries into a state that breaks one of the model's invariants (`Protocol::check`).
    pub violations: u64,
    /// Whether the state after the last step broke one.
    violated: bool,
    /// Scheduled faults that could not apply when their time came (a command the node refused,
    /// starting a node a user had already started): when, and why. A run reports each like a
    /// failed expectation (`Run::run`); never silently.
    pub skipped: Skipped,
    /// Records, log lines and the trace hash are kept (the default). Off for runs whose only
    /// product is their outcome (a sweep's seed, `Sim::set_tracing`): no record is written,
    /// hashed or formatted, and `hash` stays at its start.
    tracing: bool,
    /// This world's identity for the model's check (`Protocol::check_step`): new on every
    /// copy and restore, and after a step that failed half-way. A state changed by hand
    /// between steps (a test planting a violation) calls [`Sim::forget_checks`].
    world: World,
}

/// Where records go during a step: into the trace when the step is new, nowhere on a replay.
struct Out<'a> {
    trace: &'a mut Trace,
    record: bool,
}

// Clone by hand so that `clone_from` copies field by field into the existing allocations (the
// derived one would clone and drop). Destructuring without `..` makes a new field a compile
// error here instead of a field silently left out of checkpoints.
impl<P: Protocol> Clone for NodeSlot<P> {
    fn clone(&self) -> Self {
        let NodeSlot {
            state,
            status,
            incarnation,
            exec_stats,
            rng,
            timers,
            execs,
            restart_after,
        } = self;
        NodeSlot {
            state: state.clone(),
            status: *status,
            incarnation: *incarnation,
            exec_stats: exec_stats.clone(),
            rng: rng.clone(),
            timers: timers.clone(),
            execs: execs.clone(),
            restart_after: *restart_after,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        let NodeSlot {
            state,
            status,
            incarnation,
            exec_stats,
            rng,
            timers,
            execs,
            restart_after,
        } = src;
        self.state.clone_from(state);
        self.status = *status;
        self.incarnation = *incarnation;
        self.exec_stats.clone_from(exec_stats);
        self.rng.clone_from(rng);
        self.timers.clone_from_map(timers);
        self.execs.clone_from(execs);
        self.restart_after = *restart_after;
    }
}

impl<P: Protocol> Clone for Sim<P> {
    fn clone(&self) -> Self {
        let Sim {
            proto,
            topo,
            now,
            steps,
            nodes,
            net,
            in_flight,
            hash,
            schedule,
            queue,
            seq,
            next_msg,
            fates,
            cuts,
            net_rng,
            limits,
            effects,
            log_buf: _,
            violations,
            violated,
            skipped,
            tracing,
            world,
        } = self;
        Sim {
            proto: proto.clone(),
            topo: topo.clone(),
            now: *now,
            steps: *steps,
            nodes: nodes.clone(),
            net: net.clone(),
            in_flight: in_flight.clone(),
            hash: *hash,
            schedule: schedule.clone(),
            queue: queue.clone(),
            seq: *seq,
            next_msg: *next_msg,
            fates: fates.clone(),
            cuts: cuts.clone(),
            net_rng: net_rng.clone(),
            limits: limits.clone(),
            effects: effects.clone(),
            log_buf: String::new(),
            violations: *violations,
            violated: *violated,
            skipped: skipped.clone(),
            tracing: *tracing,
            world: world.clone(),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        let Sim {
            proto,
            topo,
            now,
            steps,
            nodes,
            net,
            in_flight,
            hash,
            schedule,
            queue,
            seq,
            next_msg,
            fates,
            cuts,
            net_rng,
            limits,
            effects,
            log_buf: _,
            violations,
            violated,
            skipped,
            tracing,
            world,
        } = src;
        self.proto.clone_from(proto);
        self.topo.clone_from(topo);
        self.now = *now;
        self.steps = *steps;
        self.nodes.clone_from(nodes);
        self.net.clone_from(net);
        self.in_flight.clone_from(in_flight);
        self.hash = *hash;
        self.schedule.clone_from(schedule);
        self.queue.clone_from(queue);
        self.seq = *seq;
        self.next_msg = *next_msg;
        self.fates.clone_from(fates);
        self.cuts.clone_from(cuts);
        self.net_rng.clone_from(net_rng);
        self.limits.clone_from(limits);
        self.effects.clone_from(effects);
        self.violations = *violations;
        self.violated = *violated;
        self.skipped.clone_from(skipped);
        self.tracing = *tracing;
        self.world.clone_from(world);
    }
}

impl<P: Protocol> Sim<P> {
    /// About how many bytes a copy of this state (a checkpoint) takes: the nodes' own tables
    /// (`Protocol::node_bytes`), their engine bookkeeping, messages in flight and queued events.
    /// The link table and application states, shared copy-on-write, are not counted.
    pub fn approx_bytes(&self) -> usize {
        self.memory().total()
    }

    /// [`Sim::approx_bytes`] by part: what a run's memory message names. Linear in the nodes,
    /// the messages in flight and the queued tasks (taken every `MEMORY_CHECK_STEPS` steps).
    pub fn memory(&self) -> SimMemory {
        let mut m = SimMemory::default();
        for n in &self.nodes {
            m.nodes += std::mem::size_of::<NodeSlot<P>>()
                + self.proto.node_bytes(&n.state)
                + n.exec_stats.len() * std::mem::size_of::<ExecStats>()
                + n.timers.len() * (std::mem::size_of::<P::Timer>() + 16);
            for e in &n.execs {
                m.tasks += e.queue.len();
                m.task_bytes += e.queue.capacity() * std::mem::size_of::<Queued<P::Task>>()
                    + e.queue
                        .iter()
                        .map(|q| self.proto.task_bytes(&q.task))
                        .sum::<usize>()
                    + e.busy.as_ref().map_or(0, |t| self.proto.task_bytes(t));
            }
        }
        m.in_flight = self.in_flight.len();
        m.in_flight_bytes = self.in_flight.len() * (std::mem::size_of::<Flight<P::Msg>>() + 16)
            + self
                .in_flight
                .values()
                .map(|f| self.proto.msg_bytes(&f.msg))
                .sum::<usize>();
        m.events = self.queue.len();
        m.event_bytes =
            self.queue.len() * std::mem::size_of::<Entry<P>>() + std::mem::size_of::<Self>();
        m
    }

    pub fn new(
        proto: P,
        topo: Topology,
        default_link: Link,
        seed: u64,
        schedule: Vec<(Micros, Action)>,
        limits: Limits,
    ) -> Self {
        let n = topo.len();
        let nodes = (0..n)
            .map(|i| NodeSlot {
                state: proto.init_node(i, &topo),
                status: NodeStatus::Stopped,
                incarnation: 0,
                exec_stats: vec![ExecStats::default(); proto.executors().len()],
                rng: rng::child(seed, rng::STREAM_NODE_BASE + i as u64),
                timers: timers::Timers::default(),
                execs: vec![
                    Executor {
                        queue: VecDeque::new(),
                        busy: None
                    };
                    proto.executors().len()
                ],
                restart_after: None,
            })
            .collect();
        let mut sim = Sim {
            proto: Arc::new(proto),
            topo: Arc::new(topo),
            now: 0,
            steps: 0,
            nodes,
            net: Network::new(n, default_link),
            in_flight: InFlight::new(),
            hash: TraceHash::default(),
            schedule: Arc::new(schedule),
            queue: EventQueue::default(),
            seq: 0,
            next_msg: 0,
            fates: BTreeMap::new(),
            cuts: TimedCuts::default(),
            net_rng: rng::child(seed, rng::STREAM_NETWORK),
            limits,
            effects: Vec::new(),
            log_buf: String::new(),
            violations: 0,
            violated: false,
            skipped: Skipped::default(),
            tracing: true,
            world: World::new(),
        };
        for i in 0..n {
            sim.push(0, Ev::Start(i));
        }
        for (i, (at, _)) in sim.schedule.clone().iter().enumerate() {
            sim.push(*at, Ev::Scheduled(i as u32));
        }
        sim
    }

    pub fn schedule(&self) -> &[(Micros, Action)] {
        &self.schedule
    }

    fn push(&mut self, time: Micros, ev: Ev<P>) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        self.queue.push(Entry { time, seq, ev });
        seq
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn is_stale(&self, e: &Entry<P>) -> bool {
        match &e.ev {
            Ev::Timer { node, inc, key } => {
                let slot = &self.nodes[*node as usize];
                slot.incarnation != *inc
                    || slot.status == NodeStatus::Stopped
                    || slot.timers.get(key) != Some(&e.seq)
            }
            Ev::TaskDone { node, inc, .. } => {
                let slot = &self.nodes[*node as usize];
                slot.incarnation != *inc || slot.status == NodeStatus::Stopped
            }
            _ => false,
        }
    }

    /// Time of the next event, discarding cancelled timers and work of dead processes.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn next_time(&mut self) -> Option<Micros> {
        loop {
            self.queue.settle();
            let top = self.queue.peek()?;
            if self.is_stale(top) {
                self.queue.pop();
            } else {
                return Some(top.time);
            }
        }
    }

    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn emit(&mut self, out: &mut Out, node: NodeId, kind: RecKind, text: Option<&str>) {
        if !self.tracing {
            return;
        }
        hash_parts(&mut self.hash, self.steps, self.now, node, &kind, text);
        if out.record {
            out.trace.recs.push(Rec {
                step: self.steps,
                time: self.now,
                node,
                kind,
            });
        }
    }

    fn log(&mut self, out: &mut Out, node: NodeId, level: LogLevel, text: &str) {
        if !self.tracing {
            return;
        }
        let line = out.trace.logs.len() as u32;
        self.emit(out, node, RecKind::Log { line }, Some(text));
        if out.record {
            out.trace.push_log(self.now, node, level, text);
        }
    }

    /// Process the next queue event. `Ok(false)` when nothing is left. `peeked`: `next_time`
    /// answered `Some` and nothing changed since, so the first event is settled and not stale.
    /// Inlined into its one caller, `Engine::step_after` (a call's saved registers per event).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn step_queue(&mut self, out: &mut Out, peeked: bool) -> Result<bool, SimError> {
        if !peeked && self.next_time().is_none() {
            return Ok(false);
        }
        let e = self.queue.pop().expect("peeked");
        debug_assert!(e.time >= self.now, "time went backwards");
        self.now = e.time;
        // The one node whose slot the event can change (its handler's, its executor's, its
        // start), or `None`: an action, which may change any.
        let (done, node) = match e.ev {
            Ev::Deliver(id) => {
                let (done, to) = self.deliver(out, id);
                (done, Some(to))
            }
            Ev::Timer { node, key, .. } => {
                self.nodes[node as usize].timers.remove(&key);
                let label = self.proto.timer_label(&key);
                self.emit(out, node, RecKind::Timer { label }, None);
                let done =
                    self.with_node(out, node, None, |proto, n, ctx| proto.on_timer(n, ctx, key));
                (done, Some(node))
            }
            Ev::TaskDone { node, exec, .. } => (self.task_done(out, node, exec), Some(node)),
            Ev::Scheduled(i) => {
                let action = self.schedule[i as usize].1.clone();
                // A scheduled action that no longer applies (e.g. starting a running node because a
                // user already started it) is traced as a log line instead of failing the run.
                if let Err(e) = self.apply_action(out, &action, ActionSource::Schedule) {
                    let at = self.schedule[i as usize].0;
                    let why = format!(
                        "the fault at {} ({}) was skipped: {e}",
                        crate::time::fmt_duration(at),
                        crate::text::clip(&action.describe(), 80)
                    );
                    self.log(out, 0, LogLevel::Warn, &why);
                    self.skipped.add(self.now, why);
                }
                (Ok(()), None)
            }
            Ev::Start(node) => {
                let done = if self.nodes[node as usize].status == NodeStatus::Stopped {
                    self.start_node(out, node)
                } else {
                    Ok(())
                };
                (done, Some(node))
            }
            Ev::CutEnds(token) => {
                self.end_cut(out, token);
                (Ok(()), None)
            }
        };
        if done.is_err() {
            // Half a step: no check of it, so nothing kept about this world holds.
            self.world.renew();
        }
        done?;
        self.check_invariants(out, node);
        self.steps += 1;
        Ok(true)
    }

    /// After a step: the model's invariants (`Protocol::check_step`), when it has any. `node`:
    /// the one node whose slot the step could change (`None`: any). Inlined: once per step.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn check_invariants(&mut self, out: &mut Out, node: Option<NodeId>) {
        if !P::CHECKS {
            return;
        }
        let moved = Moved {
            world: self.world.id(),
            step: self.steps,
            node,
        };
        match self.proto.check_step(self, moved) {
            Some(what) => {
                if !self.violated {
                    self.violated = true;
                    self.violations += 1;
                    self.log(
                        out,
                        0,
                        LogLevel::Error,
                        &format!("invariant violated: {what}"),
                    );
                    if self.tracing && out.record {
                        out.trace.violations.push(trace::ViolationRec {
                            step: self.steps,
                            time: self.now,
                            violation: what,
                        });
                    }
                }
            }
            None => self.violated = false,
        }
    }

    /// A state changed by hand between steps (a test planting a violation): what the model's
    /// check kept about this world is forgotten, so the next step's check reads every node.
    pub fn forget_checks(&mut self) {
        self.world.renew();
    }

    /// Whether the state after the last step broke one of the model's invariants.
    pub fn violated(&self) -> bool {
        self.violated
    }

    /// Deliver message `id`; and its destination.
    fn deliver(&mut self, out: &mut Out, id: u64) -> (Result<(), SimError>, NodeId) {
        let f = self
            .in_flight
            .remove(id)
            .expect("delivery of a message not in flight");
        let label = self.proto.msg_label(&f.msg);
        let forced = !self.fates.is_empty()
            && self.fates.remove(&id) == Some(crate::engine::action::MsgFate::Deliver);
        let slot = &self.nodes[f.to as usize];
        let reason = if !forced && !self.net.link(f.from, f.to).up {
            Some(DropReason::LinkDown)
        } else if slot.status == NodeStatus::Stopped {
            Some(DropReason::NodeStopped)
        } else if f.to_incarnation.is_some_and(|inc| inc != slot.incarnation) {
            Some(DropReason::NodeRestarted)
        } else {
            None
        };
        if let Some(reason) = reason {
            let kind = RecKind::Drop {
                msg: id,
                from: f.from,
                to: f.to,
                label,
                reason,
            };
            self.emit(out, f.to, kind, None);
            if reason == DropReason::NodeStopped {
                if let Some(b) = self.proto.bounce(&f.msg) {
                    return (self.send(out, f.to, f.from, b), f.to);
                }
            }
            return (Ok(()), f.to);
        }
        let deliver = RecKind::Deliver {
            msg: id,
            from: f.from,
            label,
            sent_at: f.sent_at,
        };
        let discard = RecKind::Drop {
            msg: id,
            from: f.from,
            to: f.to,
            label,
            reason: DropReason::Discarded,
        };
        let to = f.to;
        let done = self.with_node(out, to, Some((deliver, discard)), |proto, n, ctx| {
            proto.on_message(n, ctx, f.from, f.msg)
        });
        (done, to)
    }

    /// Keep records, log lines and the trace hash (`true`, the default) or not. Set before the
    /// first step: a run traced in part would have a trace with holes.
    pub fn set_tracing(&mut self, on: bool) {
        debug_assert_eq!(self.steps, 0, "tracing is chosen before the run starts");
        self.tracing = on;
    }

    pub fn tracing(&self) -> bool {
        self.tracing
    }

    /// True when every node is running and every link is healthy.
    pub fn is_quiet(&self) -> bool {
        self.net.is_healthy() && self.nodes.iter().all(|n| n.status == NodeStatus::Running)
    }
}

mod apply;
mod effects;
mod exec;
mod run;
pub use run::{Engine, MAX_CHECKPOINTS, MIN_CHECKPOINTS};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cuts;
