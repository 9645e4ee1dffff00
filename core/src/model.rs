//! The seam between the generic runner/CLI/web shell and the protocol models.
//!
//! A model is a [`Protocol`] (what the engine runs) plus a [`Model`] impl: how it is built from a
//! scenario, its expectation vocabulary, metrics and JSON views, and the data the generic panels
//! draw (message kinds and colours, node commands, the N x N "who believes what" matrix, named
//! time series, a one-line node summary). [`Driver`] is the object-safe face of a running
//! `Engine<M>`: the runner, the CLI and the web app hold a `Box<dyn Driver>` and never name a
//! model; a model's own panels downcast with [`Driver::as_any`] (see `registry`).
//!
//! Why a trait object and not an enum over the models: the hot loop (`Engine::run_until`,
//! `Engine::step`) stays monomorphised per model, so dynamic dispatch costs one indirect call per
//! step or per run, never per event handler; adding a model touches its own folder and one line
//! of `registry`, not a `match` in every consumer.

use crate::engine::action::{Action, RecordedAction};
use crate::engine::network::Network;
use crate::engine::trace::RecKind;
use crate::engine::trace::{Rec, Trace, TraceHash};
use crate::engine::{Engine, ExecStats, NodeId, NodeStatus, Protocol, Sim, SimError, Topology};
use crate::explain;
use crate::meaning::{Info, ParamSpec};
use crate::moments::{Moment, MomentKind};
pub use crate::query::{KeyForm, QValue, Query, ViewNeeds, ViewValue};
use crate::scenario_file::Scenario;
use crate::time::{fmt_time, Micros};
use std::any::Any;
use std::collections::BTreeMap;

/// A message kind the topology and sequence diagram colour by (CSS colour, e.g. `#2b8a3e`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MsgKind {
    pub label: &'static str,
    pub color: &'static str,
    /// One line for the legend.
    pub about: &'static str,
}

/// A node command the app offers as a button (an `Action::Command` with this text).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CommandSpec {
    pub command: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    /// The arguments a hunt draws for it (`clusterscope hunt --faults command`): empty, the
    /// hunt sends `command` as it is; else the first word of `command` followed by one drawn
    /// value of each (docs/HUNTING.md, "Commands with drawn arguments").
    pub args: &'static [Arg],
    /// A client write: it changes the replicated state (a Raft leader appends it to its log;
    /// a read is answered without an entry). What a hunt's stranded-leader fault gives the
    /// leader it cuts off (docs/HUNTING.md, "Faults aimed at the leader").
    pub client_write: bool,
    /// A command whose effect the group's leader must later send to a follower that lags
    /// (Ozone: SCM's `close-container`, whose racing WriteChunk the leader reads back for a
    /// lagging follower): a hunt draws it, half the time, as one compound fault, a follower of
    /// the leader away (cut off alone or one of its threads stalled), the command while it is
    /// away, then its return (docs/HUNTING.md, "A command while a follower is away").
    pub follower_away: bool,
}

/// An argument of a node command, as a hunt draws it (from the candidate's own random stream)
/// and its shrink lowers it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A node of the cluster, by name.
    Node,
    /// A whole number in `min..=max`; small ones more often (uniform below `max`, a quarter,
    /// a sixteenth or a sixty-fourth of the range, each a quarter of the time). The shrink
    /// halves it towards `min`.
    Int { min: u64, max: u64 },
    /// One of these words.
    Word(&'static [&'static str]),
}

/// A named time series for the plots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesSpec {
    pub name: &'static str,
    pub title: &'static str,
    /// One value per node per sample (else one value per sample).
    pub per_node: bool,
}

/// A time series per (observer, peer) pair, plotted for the selected observer: gossip's phi of
/// each peer, Raft's matchIndex of each follower on the leader.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairSeries {
    pub title: &'static str,
    /// A horizontal line drawn across the plot (gossip: the conviction threshold).
    pub threshold: Option<f64>,
}

/// The N x N matrix a model declares: what an observer (row) believes about a peer (column).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatrixSpec {
    /// The card's title, e.g. "Liveness matrix".
    pub title: &'static str,
    /// What a row and a column are, e.g. "row: observer · column: peer".
    pub axes: &'static str,
    /// Cell classes: (colour, meaning), indexed by [`Cell::class`]. A colour is CSS hex
    /// (`#16a34a`) or `@name`, a colour of the app's theme palette (`@up_soft`, `@down`,
    /// `@asym`, `@stopped`, `@grid`, `@panel`, `@accent`, `@muted`), so it follows light/dark.
    pub legend: &'static [(&'static str, &'static str)],
    /// What a dot in a cell means ([`Cell::mark`]), if the model marks cells.
    pub mark: Option<&'static str>,
    /// How the topology labels a node that is the peer of notable cells, before their count
    /// (gossip: "seen DOWN by").
    pub notable_by: &'static str,
}

/// One matrix cell: a legend class, a short text drawn in the cell when it fits, a dot, and the
/// lines of its tooltip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    pub class: u8,
    pub text: String,
    pub mark: bool,
    pub tip: Vec<String>,
}

/// The cells of the matrix worth listing (gossip: the DOWN views), and a sentence about them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatrixSummary {
    /// (observer, peer) of each notable cell, in row-major order.
    pub notable: Vec<(NodeId, NodeId)>,
    /// One sentence naming at most `limit` of them (and how many more).
    pub text: String,
    /// Whether the notable cells are a problem (drawn as a warning).
    pub bad: bool,
}

/// A ring segment the topology draws around a node, clockwise from 12 o'clock (Raft: the
/// election timer, the part of the timeout still to run).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeArc {
    /// 0..=1 of a full turn (clamped when drawn).
    pub fraction: f64,
    /// One line for the node's hover chip, e.g. "election timeout in 212 ms".
    pub label: String,
}

/// An arrow the topology draws from one node to another (Raft: a vote granted for the current
/// term, from the voter to the candidate).
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    /// Index into [`Overlay::edges`] (its colour and meaning).
    pub class: u8,
    /// One line for the hover chip of either end, e.g. "n2 voted for n1 in term 3".
    pub label: String,
}

/// A node at a glance (issue 40, after RaftScope): how the topology fills it, the short text
/// written inside it and a ring around it, so that the state a lesson is about reads from the
/// back of a lecture hall (Raft: the term inside, coloured by role, the leader ringed). Colours
/// are CSS hex or `@name` of the theme's palette, as in [`MatrixSpec::legend`]; a fill should
/// carry white text (the app checks the contrast of the text it writes on it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Glance {
    /// The node's fill; `None`: by its process status (running, stopping, stopped).
    pub fill: Option<&'static str>,
    /// A few characters inside the node (Raft: the term); empty: the node's name.
    pub text: String,
    /// A ring around the node; `None`: none.
    pub ring: Option<&'static str>,
}

/// The legend of [`Model::glance`]: each fill and ring with its meaning, and what the text
/// inside a node is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GlanceLegend {
    pub fills: &'static [(&'static str, &'static str)],
    pub rings: &'static [(&'static str, &'static str)],
    /// What the text inside a node says ("term"); empty: none.
    pub text: &'static str,
}

/// What a model's topology overlay means, for the legend: the colour and meaning of its node
/// arcs (if it draws any) and of each edge class. Colours as in [`MatrixSpec::legend`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overlay {
    pub arc: Option<(&'static str, &'static str)>,
    pub edges: &'static [(&'static str, &'static str)],
}

/// What the runner, CLI and web shell need of a protocol model beyond running it.
pub trait Model: Protocol {
    /// The scenario's `protocol = "..."` (and the name of its optional `[section]`).
    const NAME: &'static str;
    /// One line for `clusterscope list` and the docs.
    const ABOUT: &'static str;

    /// Build from the merged `[params]` (file, variant, overrides) and the scenario's own
    /// `[<NAME>]` section, if any. Errors name the parameter and what would be valid.
    fn build(
        params: toml::Table,
        section: Option<&toml::Table>,
        sc: &Scenario,
    ) -> Result<Self, String>;

    /// The expectation vocabulary (view names): scenario validation refuses other names.
    const VIEWS: &'static [&'static str];
    /// Whether the model has a leader an expectation can name (`observer = "leader"`):
    /// [`Model::leader`] answers it.
    const HAS_LEADER: bool = false;
    /// The current leader (Raft: the running leader of the highest term), if any.
    fn leader(&self, _sim: &Sim<Self>) -> Option<NodeId> {
        None
    }
    /// The running nodes of the leader's group that do not lead now (all its running nodes
    /// while none leads); empty for a model without a leader. What a hunt's "follower away"
    /// fault aims at.
    fn followers(&self, _sim: &Sim<Self>) -> Vec<NodeId> {
        Vec::new()
    }
    /// What each of [`Model::VIEWS`] means, one sentence and a unit (`crate::catalogue`).
    const VIEW_INFO: &'static [&'static [Info]] = &[];
    /// What each metric of [`Model::metrics`] means.
    const METRICS: &'static [&'static [Info]] = &[];
    /// The parameters of `[params]`, with unit and valid range (the bounds `build` checks).
    const PARAMS: &'static [&'static [ParamSpec]] = &[];
    /// The value of every parameter `build` would use for these merged `[params]` (a preset
    /// applied), by name; `Err`: what `build` would say of them.
    fn params_now(
        params: toml::Table,
        sc: &Scenario,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String>;
    /// What each of [`Model::VIEWS`] needs (default: nothing). Scenario validation refuses an
    /// expectation that lacks it.
    fn view_needs(_view: &str) -> ViewNeeds {
        ViewNeeds::NONE
    }
    /// About how many trace records a second of virtual time makes in this run, and why (e.g.
    /// "251 nodes x 1 round/s"): `Run::new` refuses a run whose estimate for its duration is
    /// over `Limits::max_trace_records`, with the duration that would fit. `None`: no estimate
    /// (the run stops at the limit instead, saying how far it got).
    fn records_per_sec(&self, _sim: &Sim<Self>) -> Option<(f64, String)> {
        None
    }
    /// Evaluate a view query; `None` when `q.view` is not one of this model's views.
    fn query(&self, sim: &Sim<Self>, q: &Query) -> Option<Result<QValue, String>>;
    /// Metrics of the state now (sweeps aggregate them). Added to the generic ones.
    fn metrics(&self, sim: &Sim<Self>, out: &mut BTreeMap<String, f64>);
    /// Every node's views as JSON (`--format json`'s `views`).
    fn views_json(&self, sim: &Sim<Self>) -> serde_json::Value;
    /// When [`Model::views_json`] is an object that can be built one entry at a time: its keys,
    /// in the object's (sorted) order; [`Model::views_json_entry`] gives each value. A writer
    /// can then stream the views without holding them all (Raft's are every node's full log:
    /// issue 44). `None` (the default): take `views_json` whole.
    fn views_json_keys(&self, _sim: &Sim<Self>) -> Option<Vec<String>> {
        None
    }
    /// The value of `key` (one of [`Model::views_json_keys`]) in [`Model::views_json`].
    fn views_json_entry(&self, _sim: &Sim<Self>, _key: &str) -> serde_json::Value {
        serde_json::Value::Null
    }

    /// Message kinds with their colours (unlisted labels get a neutral colour).
    fn msg_kinds(&self) -> &'static [MsgKind] {
        &[]
    }
    /// Message kinds whose drops matter most (shown even at scale; gossip: the echoes).
    fn is_key_msg(&self, _label: &str) -> bool {
        false
    }
    /// Commands offered on a node (e.g. `disablegossip`, `timeout`).
    fn commands(&self) -> &'static [CommandSpec] {
        &[]
    }
    /// The shortest time a real process of this system stays down across a restart (its start
    /// takes at least this long), in these parameters: hunts draw and shrink restarts no
    /// shorter. A scenario may still write a shorter one (a what-if), the model runs it.
    fn min_restart_down(&self) -> Micros {
        0
    }
    /// The N x N relation, if the model has one.
    fn matrix(&self) -> Option<MatrixSpec> {
        None
    }
    fn matrix_cell(&self, _sim: &Sim<Self>, _observer: NodeId, _peer: NodeId) -> Cell {
        Cell::default()
    }
    /// The class of a cell alone (what the large matrix draws, every cell every frame): by
    /// default `matrix_cell`'s; a model whose cells carry costly tooltips answers it directly.
    fn matrix_class(&self, sim: &Sim<Self>, observer: NodeId, peer: NodeId) -> u8 {
        self.matrix_cell(sim, observer, peer).class
    }
    /// The classes of a block of cells, row-major (`observers` x `peers`), appended to `out`:
    /// what the large matrix draws and compare compares, 63,000 cells per side and frame at 251
    /// nodes. By default `matrix_class` cell by cell; a model that can answer a whole row more
    /// cheaply does so here.
    fn matrix_classes(
        &self,
        sim: &Sim<Self>,
        observers: &[NodeId],
        peers: &[NodeId],
        out: &mut Vec<u8>,
    ) {
        for &o in observers {
            for &q in peers {
                out.push(self.matrix_class(sim, o, q));
            }
        }
    }
    /// The notable cells and a sentence naming at most `limit` of them.
    fn matrix_summary(&self, _sim: &Sim<Self>, _limit: usize) -> MatrixSummary {
        MatrixSummary::default()
    }
    /// Named time series for the plots, sampled by [`Model::sample`].
    fn series(&self) -> &'static [SeriesSpec] {
        &[]
    }
    /// Push one sample: per series in order, one value (or `n` values for `per_node`). NaN where
    /// there is no value (a stopped node's volatile state, such as Raft's commitIndex): the plot
    /// leaves a gap there rather than draw a 0 that never happened.
    fn sample(&self, _sim: &Sim<Self>, _out: &mut Vec<f64>) {}
    /// Charts that overlay two per-node series of [`Model::series`] for the selected node, by
    /// index: (title, first, second); Raft: commitIndex and lastApplied, the gap between them
    /// being raft-slow-apply's lesson. Default: none.
    fn series_overlays(&self) -> &'static [(&'static str, usize, usize)] {
        &[]
    }
    /// The per-pair series, if the model has one.
    fn pair_series(&self) -> Option<PairSeries> {
        None
    }
    /// Its value for (observer, peer) now; NaN where there is none (a gap in the line).
    fn pair_value(&self, _sim: &Sim<Self>, _observer: NodeId, _peer: NodeId) -> f64 {
        0.0
    }
    /// A short line under the node on the topology (e.g. "leader t3").
    fn node_badge(&self, _sim: &Sim<Self>, _id: NodeId) -> String {
        String::new()
    }
    /// The legend of [`Model::node_arc`] and [`Model::edges`] (default: neither is drawn).
    fn overlay(&self) -> Overlay {
        Overlay::default()
    }
    /// Node `id` at a glance now ([`Glance`]). Default: coloured by status, its name inside.
    fn glance(&self, _sim: &Sim<Self>, _id: NodeId) -> Glance {
        Glance::default()
    }
    /// The legend of [`Model::glance`]. Default: nothing beyond the status colours.
    fn glance_legend(&self) -> GlanceLegend {
        GlanceLegend::default()
    }
    /// The arc around a node now, if any.
    fn node_arc(&self, _sim: &Sim<Self>, _id: NodeId) -> Option<NodeArc> {
        None
    }
    /// The arrows between nodes now.
    fn edges(&self, _sim: &Sim<Self>, _out: &mut Vec<Edge>) {}
    /// The state marks (`Ctx::mark` labels) the timeline draws as density strips, with their
    /// meaning for its legend (gossip: DOWN and UP). Default: none.
    fn state_marks(&self) -> Option<StateMarks> {
        None
    }
    /// "Explain this state": a few sentences of what node `id` believes now and why, from the
    /// state and the trace's first `upto` records (those before the cursor). Computed when a
    /// person asks, never in the background. Default: [`explain_generic`] (its status,
    /// badge, notable matrix cells, last state mark and log line).
    fn explain(&self, sim: &Sim<Self>, trace: &Trace, upto: usize, id: NodeId) -> Vec<String> {
        explain_generic(self, sim, trace, upto, id)
    }
    /// The kinds of moment the timeline marks, for its legend (`crate::moments`). Default: none.
    fn moment_kinds(&self) -> &'static [MomentKind] {
        &[]
    }
    /// The moments among the trace's records `from..`, appended to `found` (which holds those
    /// of the records before `from`): derived from existing records (log lines), never new
    /// ones, so the trace hash does not move.
    fn moments(&self, _trace: &Trace, _topo: &Topology, _from: usize, _found: &mut Vec<Moment>) {}
    /// One-key actions for live teaching (issue 40), for the `?` help. Default: none.
    fn quick_keys(&self) -> &'static [QuickKey] {
        &[]
    }
    /// The user actions of quick key `key` in the state now (`selected`: the node the person
    /// selected, if any); `Err`: why not now ("there is no leader now").
    fn quick_actions(
        &self,
        _sim: &Sim<Self>,
        key: char,
        _selected: Option<NodeId>,
    ) -> Result<Vec<Action>, String> {
        Err(format!("no action on key {key}"))
    }
    /// One record in the model's words ("n2 granted its vote to n4 in term 1"), for "what just
    /// happened"; `None`: the generic wording (`moments::generic_line`).
    fn say(&self, _trace: &Trace, _topo: &Topology, _r: &Rec) -> Option<String> {
        None
    }
}

/// The default explanation (`Model::explain`; a model's own explanation may start from it): the
/// node's status and badge, the notable matrix cells in its row (what it believes that matters)
/// and in its column (who believes something notable of it), its latest state mark and its
/// latest log line at INFO or above.
pub fn explain_generic<M: Model>(
    m: &M,
    sim: &Sim<M>,
    trace: &Trace,
    upto: usize,
    id: NodeId,
) -> Vec<String> {
    let name = sim.topo.name(id);
    let status = sim.nodes[id as usize].status;
    let badge = m.node_badge(sim, id);
    let mut out = vec![format!(
        "{name} is {}{}.",
        explain::status_word(status),
        if badge.is_empty() {
            String::new()
        } else {
            format!(" ({badge})")
        }
    )];
    if let Some(spec) = m.matrix() {
        let notable = m.matrix_summary(sim, 0).notable;
        let mine: Vec<String> = notable
            .iter()
            .filter(|(o, _)| *o == id)
            .take(3)
            .filter_map(|(o, q)| m.matrix_cell(sim, *o, *q).tip.into_iter().next())
            .collect();
        let of_me = notable.iter().filter(|(_, q)| *q == id).count();
        if !mine.is_empty() {
            out.push(format!("{}: {}.", spec.title, mine.join("; ")));
        }
        if of_me > 0 {
            out.push(format!("{}: {of_me} node(s).", spec.notable_by));
        }
    }
    if let Some(r) = explain::last_rec(trace, upto, |r| {
        r.node == id && matches!(r.kind, RecKind::State { .. })
    }) {
        if let RecKind::State { label, peer } = r.kind {
            out.push(format!(
                "Its latest state change: {label} about {} at {}.",
                sim.topo.name(peer),
                fmt_time(r.time)
            ));
        }
    }
    if let Some((t, text)) = explain::last_log(trace, upto, id) {
        out.push(format!("It last logged at {}: “{text}”.", fmt_time(t)));
    }
    out
}

/// A one-key action of a model ([`Model::quick_keys`]): its key and what it does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuickKey {
    pub key: char,
    pub label: &'static str,
}

/// The two state marks a model's timeline draws as density strips: (mark label, meaning), the
/// first above the middle line (gossip: DOWN), the second below (UP).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateMarks {
    pub above: (&'static str, &'static str),
    pub below: (&'static str, &'static str),
}

/// A message on the wire, as the generic panels see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightInfo {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub label: &'static str,
    pub sent_at: Micros,
    pub deliver_at: Micros,
}

/// A running engine of some model, object-safe. Implemented for every `Engine<M: Model>`.
pub trait Driver {
    fn model(&self) -> &'static str;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;

    // -- running
    fn step(&mut self) -> Result<bool, SimError>;
    fn run_until(&mut self, t: Micros, max_steps: u64) -> Result<u64, SimError>;
    fn jump_to_step(&mut self, step: u64) -> Result<(), SimError>;
    fn replay_from(&self, step: u64) -> u64;
    fn apply_user_action(&mut self, action: Action) -> Result<(), SimError>;
    /// What the model says of an action before any run: unknown executor, bad command text.
    fn check_action(&self, action: &Action) -> Result<(), String>;
    /// `Protocol::check_view_node`: can `view` be read on `node`?
    fn check_view_node(&self, view: &str, node: NodeId) -> Result<(), String>;
    /// `Model::records_per_sec`.
    fn records_per_sec(&self) -> Option<(f64, String)>;
    fn next_time(&mut self) -> Option<Micros>;
    fn set_checkpoint_span(&mut self, span: Micros);
    fn max_checkpoints(&self) -> usize;
    fn checkpoint_count(&self) -> usize;
    /// What the checkpoints take (`Limits::max_checkpoint_bytes`).
    fn checkpoint_bytes(&self) -> usize;

    // -- the record
    fn trace(&self) -> &Trace;
    /// `Run::drop_history`.
    fn drop_history(&mut self);
    fn frontier(&self) -> u64;
    fn user_actions(&self) -> &[RecordedAction];
    fn set_user_actions(&mut self, actions: Vec<RecordedAction>);

    // -- the world now
    fn now(&self) -> Micros;
    fn steps(&self) -> u64;
    /// Messages sent so far (the next message's id).
    fn messages_sent(&self) -> u64;
    fn hash(&self) -> TraceHash;
    /// `Sim::set_tracing`: off for a run whose outcome alone matters (no trace, no hash).
    fn set_tracing(&mut self, on: bool);
    /// `Engine::set_keep_records`: off for a run whose trace nobody reads (hashed, not kept).
    fn set_keep_records(&mut self, on: bool);
    fn tracing(&self) -> bool;
    fn topo(&self) -> &Topology;
    fn net(&self) -> &Network;
    fn schedule(&self) -> &[(Micros, Action)];
    fn status(&self, id: NodeId) -> NodeStatus;
    fn executors(&self) -> &'static [&'static str];
    fn exec_stats(&self, id: NodeId) -> &[ExecStats];
    fn flights(&self, f: &mut dyn FnMut(FlightInfo));
    fn approx_bytes(&self) -> usize;
    /// Invariant violations found so far (models that check invariants after each event).
    fn violations(&self) -> u64;
    /// Scheduled faults that could not apply at their time (`Sim::skipped`).
    fn skipped(&self) -> &crate::engine::Skipped;
    /// Does the model check invariants after each event (`Protocol::CHECKS`)?
    fn checks_invariants(&self) -> bool;

    // -- the model's data
    fn views(&self) -> &'static [&'static str];
    fn query(&self, q: &Query) -> Option<Result<QValue, String>>;
    /// `Model::leader` now.
    fn leader(&self) -> Option<NodeId>;
    /// `Model::followers` now.
    fn followers(&self) -> Vec<NodeId>;
    fn metrics(&self, out: &mut BTreeMap<String, f64>);
    fn views_json(&self) -> serde_json::Value;
    /// `Model::views_json_keys`.
    fn views_json_keys(&self) -> Option<Vec<String>>;
    /// `Model::views_json_entry`.
    fn views_json_entry(&self, key: &str) -> serde_json::Value;
    fn msg_kinds(&self) -> &'static [MsgKind];
    fn is_key_msg(&self, label: &str) -> bool;
    fn commands(&self) -> &'static [CommandSpec];
    /// `Model::min_restart_down`.
    fn min_restart_down(&self) -> Micros;
    fn matrix(&self) -> Option<MatrixSpec>;
    fn matrix_cell(&self, observer: NodeId, peer: NodeId) -> Cell;
    /// `Model::matrix_classes`: the classes of `observers` x `peers`, row-major, into `out`.
    fn matrix_classes(&self, observers: &[NodeId], peers: &[NodeId], out: &mut Vec<u8>);
    fn matrix_summary(&self, limit: usize) -> MatrixSummary;
    fn series(&self) -> &'static [SeriesSpec];
    /// `Model::series_overlays`.
    fn series_overlays(&self) -> &'static [(&'static str, usize, usize)];
    fn sample(&self, out: &mut Vec<f64>);
    fn pair_series(&self) -> Option<PairSeries>;
    fn pair_value(&self, observer: NodeId, peer: NodeId) -> f64;
    fn node_badge(&self, id: NodeId) -> String;
    /// `Model::glance` of node `id` now.
    fn glance(&self, id: NodeId) -> Glance;
    fn glance_legend(&self) -> GlanceLegend;
    fn overlay(&self) -> Overlay;
    fn node_arc(&self, id: NodeId) -> Option<NodeArc>;
    fn edges(&self, out: &mut Vec<Edge>);
    fn state_marks(&self) -> Option<StateMarks>;
    /// `Model::explain` for node `id` at the cursor.
    fn explain(&self, id: NodeId) -> Vec<String>;
    /// `Model::moment_kinds`.
    fn moment_kinds(&self) -> &'static [MomentKind];
    /// `Model::moments` over this run's trace from record `from`.
    fn moments(&self, from: usize, found: &mut Vec<Moment>);
    /// "What just happened": the last step before the cursor in the model's words.
    fn what_happened(&self) -> Option<String>;
    /// `Model::quick_keys`.
    fn quick_keys(&self) -> &'static [QuickKey];
    /// `Model::quick_actions` in the state now.
    fn quick_actions(&self, key: char, selected: Option<NodeId>) -> Result<Vec<Action>, String>;
}

impl<M: Model> Driver for Engine<M> {
    fn model(&self) -> &'static str {
        M::NAME
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn step(&mut self) -> Result<bool, SimError> {
        Engine::step(self)
    }
    fn run_until(&mut self, t: Micros, max_steps: u64) -> Result<u64, SimError> {
        Engine::run_until(self, t, max_steps)
    }
    fn jump_to_step(&mut self, step: u64) -> Result<(), SimError> {
        Engine::jump_to_step(self, step)
    }
    fn replay_from(&self, step: u64) -> u64 {
        Engine::replay_from(self, step)
    }
    fn apply_user_action(&mut self, action: Action) -> Result<(), SimError> {
        Engine::apply_user_action(self, action)
    }
    fn check_action(&self, action: &Action) -> Result<(), String> {
        self.sim.check_action_static(action)
    }
    fn check_view_node(&self, view: &str, node: NodeId) -> Result<(), String> {
        self.sim.proto.check_view_node(view, node)
    }
    fn records_per_sec(&self) -> Option<(f64, String)> {
        self.sim.proto.records_per_sec(&self.sim)
    }
    fn next_time(&mut self) -> Option<Micros> {
        self.sim.next_time()
    }
    fn set_checkpoint_span(&mut self, span: Micros) {
        Engine::set_checkpoint_span(self, span)
    }
    fn max_checkpoints(&self) -> usize {
        Engine::max_checkpoints(self)
    }
    fn checkpoint_count(&self) -> usize {
        Engine::checkpoint_count(self)
    }
    fn checkpoint_bytes(&self) -> usize {
        Engine::checkpoint_bytes(self)
    }
    fn trace(&self) -> &Trace {
        &self.trace
    }
    fn drop_history(&mut self) {
        Engine::drop_history(self)
    }
    fn frontier(&self) -> u64 {
        Engine::frontier(self)
    }
    fn user_actions(&self) -> &[RecordedAction] {
        &self.user_actions
    }
    fn set_user_actions(&mut self, actions: Vec<RecordedAction>) {
        Engine::set_user_actions(self, actions)
    }
    fn now(&self) -> Micros {
        self.sim.now
    }
    fn messages_sent(&self) -> u64 {
        self.sim.messages_sent()
    }
    fn steps(&self) -> u64 {
        self.sim.steps
    }
    fn hash(&self) -> TraceHash {
        self.sim.hash
    }
    fn set_tracing(&mut self, on: bool) {
        self.sim.set_tracing(on)
    }
    fn set_keep_records(&mut self, on: bool) {
        Engine::set_keep_records(self, on)
    }
    fn tracing(&self) -> bool {
        self.sim.tracing()
    }
    fn topo(&self) -> &Topology {
        &self.sim.topo
    }
    fn net(&self) -> &Network {
        &self.sim.net
    }
    fn schedule(&self) -> &[(Micros, Action)] {
        self.sim.schedule()
    }
    fn status(&self, id: NodeId) -> NodeStatus {
        self.sim.nodes[id as usize].status
    }
    fn executors(&self) -> &'static [&'static str] {
        self.sim.proto.executors()
    }
    fn exec_stats(&self, id: NodeId) -> &[ExecStats] {
        &self.sim.nodes[id as usize].exec_stats
    }
    fn flights(&self, f: &mut dyn FnMut(FlightInfo)) {
        for fl in self.sim.in_flight.values() {
            f(FlightInfo {
                id: fl.id,
                from: fl.from,
                to: fl.to,
                label: self.sim.proto.msg_label(&fl.msg),
                sent_at: fl.sent_at,
                deliver_at: fl.deliver_at,
            });
        }
    }
    fn approx_bytes(&self) -> usize {
        self.sim.approx_bytes()
    }
    fn violations(&self) -> u64 {
        self.sim.violations
    }
    fn skipped(&self) -> &crate::engine::Skipped {
        &self.sim.skipped
    }
    fn checks_invariants(&self) -> bool {
        M::CHECKS
    }
    fn views(&self) -> &'static [&'static str] {
        M::VIEWS
    }
    fn query(&self, q: &Query) -> Option<Result<QValue, String>> {
        self.sim.proto.query(&self.sim, q)
    }
    fn leader(&self) -> Option<NodeId> {
        self.sim.proto.leader(&self.sim)
    }
    fn followers(&self) -> Vec<NodeId> {
        self.sim.proto.followers(&self.sim)
    }
    fn metrics(&self, out: &mut BTreeMap<String, f64>) {
        self.sim.proto.metrics(&self.sim, out)
    }
    fn views_json(&self) -> serde_json::Value {
        self.sim.proto.views_json(&self.sim)
    }
    fn views_json_keys(&self) -> Option<Vec<String>> {
        self.sim.proto.views_json_keys(&self.sim)
    }
    fn views_json_entry(&self, key: &str) -> serde_json::Value {
        self.sim.proto.views_json_entry(&self.sim, key)
    }
    fn msg_kinds(&self) -> &'static [MsgKind] {
        self.sim.proto.msg_kinds()
    }
    fn is_key_msg(&self, label: &str) -> bool {
        self.sim.proto.is_key_msg(label)
    }
    fn commands(&self) -> &'static [CommandSpec] {
        self.sim.proto.commands()
    }
    fn min_restart_down(&self) -> Micros {
        self.sim.proto.min_restart_down()
    }
    fn matrix(&self) -> Option<MatrixSpec> {
        self.sim.proto.matrix()
    }
    fn matrix_cell(&self, observer: NodeId, peer: NodeId) -> Cell {
        self.sim.proto.matrix_cell(&self.sim, observer, peer)
    }
    fn matrix_classes(&self, observers: &[NodeId], peers: &[NodeId], out: &mut Vec<u8>) {
        self.sim
            .proto
            .matrix_classes(&self.sim, observers, peers, out)
    }
    fn matrix_summary(&self, limit: usize) -> MatrixSummary {
        self.sim.proto.matrix_summary(&self.sim, limit)
    }
    fn series(&self) -> &'static [SeriesSpec] {
        self.sim.proto.series()
    }
    fn sample(&self, out: &mut Vec<f64>) {
        self.sim.proto.sample(&self.sim, out)
    }
    fn series_overlays(&self) -> &'static [(&'static str, usize, usize)] {
        self.sim.proto.series_overlays()
    }
    fn pair_series(&self) -> Option<PairSeries> {
        self.sim.proto.pair_series()
    }
    fn pair_value(&self, observer: NodeId, peer: NodeId) -> f64 {
        self.sim.proto.pair_value(&self.sim, observer, peer)
    }
    fn node_badge(&self, id: NodeId) -> String {
        self.sim.proto.node_badge(&self.sim, id)
    }
    fn overlay(&self) -> Overlay {
        self.sim.proto.overlay()
    }
    fn glance(&self, id: NodeId) -> Glance {
        self.sim.proto.glance(&self.sim, id)
    }
    fn glance_legend(&self) -> GlanceLegend {
        self.sim.proto.glance_legend()
    }
    fn node_arc(&self, id: NodeId) -> Option<NodeArc> {
        self.sim.proto.node_arc(&self.sim, id)
    }
    fn edges(&self, out: &mut Vec<Edge>) {
        self.sim.proto.edges(&self.sim, out)
    }
    fn state_marks(&self) -> Option<StateMarks> {
        self.sim.proto.state_marks()
    }
    fn explain(&self, id: NodeId) -> Vec<String> {
        let upto = self.trace.rec_index_at_step(self.sim.steps);
        self.sim.proto.explain(&self.sim, &self.trace, upto, id)
    }
    fn moment_kinds(&self) -> &'static [MomentKind] {
        self.sim.proto.moment_kinds()
    }
    fn moments(&self, from: usize, found: &mut Vec<Moment>) {
        self.sim
            .proto
            .moments(&self.trace, &self.sim.topo, from, found)
    }
    fn what_happened(&self) -> Option<String> {
        let (p, t, topo) = (&self.sim.proto, &self.trace, &self.sim.topo);
        crate::moments::what_happened(t, topo, self.sim.steps, &|r| p.say(t, topo, r))
    }
    fn quick_keys(&self) -> &'static [QuickKey] {
        self.sim.proto.quick_keys()
    }
    fn quick_actions(&self, key: char, selected: Option<NodeId>) -> Result<Vec<Action>, String> {
        self.sim.proto.quick_actions(&self.sim, key, selected)
    }
}
