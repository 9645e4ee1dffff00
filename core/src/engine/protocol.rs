//! The engine's side facing a protocol model: the [`Protocol`] trait a model implements, the
//! [`Ctx`] its handlers act through, the [`Effect`]s they leave for the engine, the executor
//! statistics they may read, and the [`Violation`] an invariant check reports.

use super::trace::LogLevel;
use super::{NodeId, NodeStatus, Sim, Topology};
use crate::rng::SimRng;
use crate::time::Micros;
use serde::Serialize;
use std::fmt;

/// A protocol model hosted by the engine.
pub trait Protocol: Sized + Clone + 'static {
    type Node: Clone;
    type Msg: Clone + fmt::Debug;
    type Task: Clone + fmt::Debug;
    type Timer: Clone + Ord + fmt::Debug;

    /// Names of each node's executors (single-threaded FIFO stages), e.g. `["GossipStage"]`.
    fn executors(&self) -> &'static [&'static str];
    fn init_node(&self, id: NodeId, topo: &Topology) -> Self::Node;
    /// The process starts (`first` for the start at time zero).
    fn on_start(&self, node: &mut Self::Node, ctx: &mut Ctx<Self>, first: bool);
    /// A graceful stop was requested; the protocol must call [`Ctx::exit`] when done.
    fn on_stop(&self, node: &mut Self::Node, ctx: &mut Ctx<Self>);
    /// The process vanished (kill -9, or the end of a graceful stop): drop volatile state.
    fn on_exit(&self, node: &mut Self::Node);
    fn on_message(&self, node: &mut Self::Node, ctx: &mut Ctx<Self>, from: NodeId, msg: Self::Msg);
    fn on_timer(&self, node: &mut Self::Node, ctx: &mut Ctx<Self>, timer: Self::Timer);
    fn on_task(&self, node: &mut Self::Node, ctx: &mut Ctx<Self>, task: Self::Task);
    /// How long the executor thread is busy with this task, decided when it is dequeued.
    fn service_us(&self, node: &Self::Node, task: &Self::Task) -> Micros;
    /// A protocol command (nodetool-like). Must validate before changing anything.
    fn on_command(
        &self,
        node: &mut Self::Node,
        ctx: &mut Ctx<Self>,
        cmd: &str,
    ) -> Result<(), String>;
    fn msg_label(&self, msg: &Self::Msg) -> &'static str;
    fn task_label(&self, task: &Self::Task) -> &'static str;
    fn timer_label(&self, timer: &Self::Timer) -> &'static str;
    /// Full message contents for the trace, in the protocol's own notation.
    fn render_msg(&self, msg: &Self::Msg, topo: &Topology) -> String;
    /// What the destination's host answers when the message reaches it while its process is
    /// stopped (e.g. a TCP reset for a closed port). `None`: nothing comes back.
    fn bounce(&self, _msg: &Self::Msg) -> Option<Self::Msg> {
        None
    }
    /// About how many bytes a copy of `node` takes (inline and on the heap, not counting data it
    /// shares copy-on-write): what the engine budgets checkpoints with.
    fn node_bytes(&self, _node: &Self::Node) -> usize {
        std::mem::size_of::<Self::Node>()
    }
    /// Heap bytes a message owns beyond its inline size (digest lists, state copies): counted
    /// for messages in flight and tasks queued, where backlogs grow.
    fn msg_bytes(&self, _msg: &Self::Msg) -> usize {
        0
    }
    /// Heap bytes a queued task owns beyond its inline size.
    fn task_bytes(&self, _task: &Self::Task) -> usize {
        0
    }
    /// A command's static check, before any run (a scenario's `[[faults]]`, a permalink's
    /// actions): what is wrong with it on this node whatever the node's state — an unknown
    /// command, a missing or malformed argument, a number out of range, a node whose role
    /// cannot take it (a datanode command on SCM). The state-dependent rules stay in
    /// [`Protocol::on_command`], which refuses before changing anything.
    fn check_command(&self, _node: NodeId, _cmd: &str) -> Result<(), String> {
        Ok(())
    }
    /// Whether the model's view `view` can be read on `node` (an expectation's `node` or
    /// `peer`), once the run's parameters are known: `Err` names the node and why not (a Raft
    /// server's view on a node outside the Raft group, such as Ozone's SCM). Checked by
    /// `Run::new` before the run, so such an expectation is refused instead of failing, or
    /// worse holding, at its time.
    fn check_view_node(&self, _view: &str, _node: NodeId) -> Result<(), String> {
        Ok(())
    }
    /// Whether the engine calls [`Protocol::check`] after every step (a constant, so models
    /// without invariants pay nothing).
    const CHECKS: bool = false;
    /// Safety invariants over the whole world after a step: `Some(what is broken)` while a
    /// checked property does not hold. The engine counts each entry into a violating state
    /// (`Sim::violations`), logs it as an ERROR line of that step and keeps it, with its step
    /// and time, in `Trace::violations` (the app marks it on the timeline and the topology); it
    /// never panics, so a deliberately unsafe variant can show the violation.
    fn check(&self, _sim: &Sim<Self>) -> Option<Violation> {
        None
    }
    /// [`Protocol::check`] after a step, told what the step could have changed (`moved`): the
    /// engine calls this one. A model may use it to recompute only what the step's node
    /// changed, and must answer exactly what [`Protocol::check`] answers for the same state.
    fn check_step(&self, sim: &Sim<Self>, _moved: Moved) -> Option<Violation> {
        self.check(sim)
    }
}

/// What a step could have changed, for [`Protocol::check_step`]: the world checked (a
/// [`World`]'s id: new on every copy and restore), the step (`Sim::steps` before it is
/// counted) and the one node whose slot it could have changed (`None`: any). A model that
/// answered the check of step `step - 1` of the same world may take every other node's state
/// as it was then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    pub world: u64,
    pub step: u64,
    pub node: Option<NodeId>,
}

/// A world's identity for [`Moved`]: a checked model's cache of the state is valid only for
/// the world it was taken from, so a copy (a checkpoint, a fork) and a restore (`clone_from`)
/// get a new one, as does a step that failed half-way (`World::renew`). Never part of what a
/// run computes: only of whether a cache may be trusted.
#[derive(Debug)]
pub struct World(u64);

static WORLDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl World {
    pub fn new() -> Self {
        World(WORLDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
    pub fn id(&self) -> u64 {
        self.0
    }
    /// A new identity: whatever a model kept about this world is not to be trusted.
    pub fn renew(&mut self) {
        *self = World::new();
    }
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

impl Clone for World {
    fn clone(&self) -> Self {
        World::new()
    }
    fn clone_from(&mut self, _src: &Self) {
        self.renew();
    }
}

/// A broken invariant, as `Protocol::check` reports it: which property, the nodes involved and
/// a sentence. Logged as `invariant violated: {invariant}: {detail}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The property's name, e.g. "Leader Completeness".
    pub invariant: &'static str,
    /// The nodes involved (e.g. the leader lacking the entry and the node that committed it),
    /// in the order the sentence names them.
    pub nodes: Vec<NodeId>,
    /// What is broken, naming the nodes, e.g. "leader S5 of term 5 lacks entry 2 that S1
    /// committed".
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}", self.invariant, self.detail)
    }
}

/// What a handler asks the engine to do.
#[derive(Clone, Debug)]
pub enum Effect<P: Protocol> {
    Send {
        to: NodeId,
        msg: P::Msg,
    },
    SetTimer {
        key: P::Timer,
        at: Micros,
    },
    CancelTimer {
        key: P::Timer,
    },
    Submit {
        exec: u8,
        task: P::Task,
        deadline: Option<Micros>,
    },
    /// A log line whose text is `start..end` of the handler's log buffer.
    Log {
        level: LogLevel,
        start: u32,
        end: u32,
    },
    Mark {
        label: &'static str,
        peer: NodeId,
    },
    /// The message being delivered is discarded by the receiver (e.g. no connection on its side).
    Discard,
    /// A graceful stop completed: the process exits.
    Exit,
}

/// Read-only statistics of one executor, visible to handlers and views.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExecStats {
    pub pending: u32,
    pub busy: bool,
    pub stalled: bool,
    pub delay_us: Micros,
    pub expired: u64,
    pub done: u64,
    pub last_done_at: Micros,
    pub oldest_enqueued_at: Option<Micros>,
}

/// The handler's window on the world.
pub struct Ctx<'a, P: Protocol> {
    pub now: Micros,
    pub me: NodeId,
    pub status: NodeStatus,
    pub topo: &'a Topology,
    pub rng: &'a mut SimRng,
    pub execs: &'a [ExecStats],
    pub(super) effects: &'a mut Vec<Effect<P>>,
    /// Texts of the handler's log lines (see `Effect::Log`), written in place: no `String` per
    /// line.
    pub(super) log_buf: &'a mut String,
    /// `Sim::tracing`: when off, log lines are not even formatted.
    pub(super) tracing: bool,
}

impl<P: Protocol> Ctx<'_, P> {
    pub fn send(&mut self, to: NodeId, msg: P::Msg) {
        self.effects.push(Effect::Send { to, msg });
    }
    pub fn set_timer(&mut self, key: P::Timer, at: Micros) {
        self.effects.push(Effect::SetTimer { key, at });
    }
    pub fn cancel_timer(&mut self, key: P::Timer) {
        self.effects.push(Effect::CancelTimer { key });
    }
    pub fn submit(&mut self, exec: u8, task: P::Task, deadline: Option<Micros>) {
        self.effects.push(Effect::Submit {
            exec,
            task,
            deadline,
        });
    }
    /// A log line: anything displayable, e.g. `format_args!(..)` (formatted straight into the
    /// trace's buffer) or a `&str`.
    pub fn log(&mut self, level: LogLevel, text: impl fmt::Display) {
        use fmt::Write;
        if !self.tracing {
            return;
        }
        let start = self.log_buf.len() as u32;
        write!(self.log_buf, "{text}").expect("a String takes any text");
        let end = self.log_buf.len() as u32;
        self.effects.push(Effect::Log { level, start, end });
    }
    /// A log line `write` puts straight into the buffer: for a hot line, without the
    /// formatting machinery (`format_args!` through `write!`: ~600 instructions for a line of
    /// two numbers, issue 44). The same line as [`Ctx::log`] with the same text.
    pub fn log_with(&mut self, level: LogLevel, write: impl FnOnce(&mut String)) {
        if !self.tracing {
            return;
        }
        let start = self.log_buf.len() as u32;
        write(self.log_buf);
        let end = self.log_buf.len() as u32;
        self.effects.push(Effect::Log { level, start, end });
    }
    pub fn mark(&mut self, label: &'static str, peer: NodeId) {
        self.effects.push(Effect::Mark { label, peer });
    }
    pub fn discard(&mut self) {
        self.effects.push(Effect::Discard);
    }
    pub fn exit(&mut self) {
        self.effects.push(Effect::Exit);
    }
    pub fn name(&self, id: NodeId) -> &str {
        self.topo.name(id)
    }
}
