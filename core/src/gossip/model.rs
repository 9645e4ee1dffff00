//! Gossip as a [`Model`]: how a scenario builds it, its expectation vocabulary (the views the
//! scenario files name), metrics, JSON views and the data of the generic panels.

use super::params::GossipParams;
use super::state::EndpointState;
use super::{view, Counters, Gossip, GossipInit, GOSSIP_STAGE};
use crate::engine::{NodeId, NodeStatus, Sim};
use crate::model::{
    Cell, CommandSpec, MatrixSpec, MatrixSummary, Model, MsgKind, PairSeries, QValue, Query,
    SeriesSpec, StateMarks, ViewNeeds,
};
use crate::scenario_file::Scenario;
use std::collections::BTreeMap;

/// `Model::min_restart_down` with the connection model: 5 s, a low figure for a Cassandra
/// start (the scenarios keep restarted nodes down 10 s or more).
pub const MIN_RESTART_DOWN: crate::time::Micros = 5_000_000;

pub const VIEWS: &[&str] = &[
    "liveness",
    "heartbeat",
    "generation",
    "inflight",
    "phi",
    "stage_expired",
    "stage_pending",
    "echo_sent",
    "echo_skipped",
    "echo_failed",
    "down_pairs",
    "down_observers",
    "down_targets",
    "map_diff",
    "mutation_timeouts",
    "mutations_acked",
    "mutations_sent",
    "down_seen_by",
    "down_seen_of",
];

const MSG_KINDS: &[MsgKind] = &[
    MsgKind {
        label: "SYN",
        color: "#3b82f6",
        about: "GossipDigestSyn: digests of every known endpoint",
    },
    MsgKind {
        label: "ACK",
        color: "#06b6d4",
        about: "GossipDigestAck: requests and newer states",
    },
    MsgKind {
        label: "ACK2",
        color: "#14b8a6",
        about: "GossipDigestAck2: the requested states",
    },
    MsgKind {
        label: "ECHO_REQ",
        color: "#e11d8f",
        about: "markAlive's echo: the peer is marked UP when the reply arrives",
    },
    MsgKind {
        label: "ECHO_RSP",
        color: "#a855f7",
        about: "the echo's reply",
    },
    MsgKind {
        label: "GOSSIP_SHUTDOWN",
        color: "#f59e0b",
        about: "a graceful shutdown announced to live peers",
    },
];

const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        command: "disablegossip",
        label: "disablegossip",
        help: "nodetool disablegossip: stop gossiping and announce shutdown",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "enablegossip",
        label: "enablegossip",
        help: "nodetool enablegossip: gossip again with a new generation",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "settimeout misc 30000",
        label: "settimeout misc 30000",
        help: "nodetool settimeout misc 30000: the echo's timeout (the 21636 workaround)",
        args: &[],
        client_write: false,
        follower_away: false,
    },
];

const SERIES: &[SeriesSpec] = &[
    SeriesSpec {
        name: "down_pairs",
        title: "DOWN views (observer, peer), both running",
        per_node: false,
    },
    SeriesSpec {
        name: "stage_pending",
        title: "GossipStage queue",
        per_node: true,
    },
];

/// Matrix cell classes (see [`MatrixSpec::legend`]).
pub const CELL_SELF: u8 = 0;
pub const CELL_OBSERVER_DOWN: u8 = 1;
pub const CELL_PEER_STOPPED: u8 = 2;
pub const CELL_UP: u8 = 3;
pub const CELL_DOWN: u8 = 4;
pub const CELL_DOWN_ONE_SIDED: u8 = 5;

const LEGEND: &[(&str, &str)] = &[
    ("@grid", "itself"),
    ("@panel", "observer not running"),
    ("@stopped", "peer stopped"),
    ("@up_soft", "UP"),
    ("@down", "DOWN (both ways)"),
    ("@asym", "DOWN, one-sided"),
];

/// The glance fill of a running node with gossip disabled.
const GOSSIP_OFF: &str = "#8a5a00";

impl Model for Gossip {
    const NAME: &'static str = "gossip";
    const ABOUT: &'static str =
        "Cassandra gossip: SYN/ACK/ACK2, echo round-trips, phi failure detector, GossipStage";
    const VIEWS: &'static [&'static str] = VIEWS;
    const VIEW_INFO: &'static [&'static [crate::meaning::Info]] = &[super::about::VIEW_INFO];
    const METRICS: &'static [&'static [crate::meaning::Info]] = &[super::about::METRICS];
    const PARAMS: &'static [&'static [crate::meaning::ParamSpec]] = &[super::about::PARAMS];
    fn params_now(
        params: toml::Table,
        _: &Scenario,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        Ok(crate::meaning::to_json(&GossipParams::from_table(params)?))
    }

    fn build(
        params: toml::Table,
        section: Option<&toml::Table>,
        sc: &Scenario,
    ) -> Result<Self, String> {
        let params = GossipParams::from_table(params)?;
        // No built-in scenario's default has a `[gossip]` section: a section comes from a text
        // the scenario reader read, and serde's reading of it is in that reader's part in the
        // web app's split release build (`init::by_serde`).
        let init: GossipInit = match section {
            Some(t) => super::init::by_serde::init(t.clone())?,
            None => GossipInit::default(),
        };
        Gossip::new(params, &init, &sc.topo)
    }

    fn view_needs(view: &str) -> ViewNeeds {
        match view {
            // `view::liveness_word`.
            "liveness" => ViewNeeds::PAIR.text(&["UP", "DOWN"]),
            "inflight" => ViewNeeds::PAIR.text(&["yes", "no"]),
            "heartbeat" | "generation" | "phi" | "map_diff" | "mutation_timeouts"
            | "mutations_acked" | "mutations_sent" => ViewNeeds::PAIR.num(),
            "down_seen_by" | "down_seen_of" | "stage_expired" | "stage_pending" | "echo_sent"
            | "echo_skipped" | "echo_failed" => ViewNeeds::NODE.num(),
            "down_pairs" | "down_observers" | "down_targets" => ViewNeeds::NONE.num(),
            _ => ViewNeeds::NONE,
        }
    }

    fn records_per_sec(&self, sim: &Sim<Self>) -> Option<(f64, String)> {
        // Measured on the built-in incidents: ~17 records per node and round (a round's
        // SYN/ACK/ACK2 with their deliveries, stage tasks and the status check), ~10 per client
        // write. Rounded up.
        let n = sim.topo.len() as f64;
        let rounds = crate::time::US_PER_S as f64 / self.p.gossip_interval.0 as f64;
        let rate = 20.0 * n * rounds + 12.0 * self.p.client_rate;
        let mut why = format!(
            "{n} nodes x {rounds} gossip rounds/s (gossip_interval {})",
            crate::time::fmt_duration(self.p.gossip_interval.0)
        );
        if self.p.client_rate > 0.0 {
            why += &format!(" and {} client writes/s", self.p.client_rate);
        }
        Some((rate, why))
    }

    fn query(&self, sim: &Sim<Self>, q: &Query) -> Option<Result<QValue, String>> {
        VIEWS.contains(&q.view).then(|| query(sim, q))
    }

    fn metrics(&self, sim: &Sim<Self>, m: &mut BTreeMap<String, f64>) {
        let pairs = view::down_pairs(sim);
        m.insert("down_pairs".into(), pairs.len() as f64);
        let distinct =
            |f: fn(&(NodeId, NodeId)) -> NodeId| distinct_nodes(sim, pairs.iter().map(f)) as f64;
        m.insert("down_observers".into(), distinct(|p| p.0));
        m.insert("down_targets".into(), distinct(|p| p.1));
        let max_per_observer = (0..sim.nodes.len() as NodeId)
            .map(|o| pairs.iter().filter(|p| p.0 == o).count())
            .max()
            .unwrap_or(0);
        m.insert("max_down_per_observer".into(), max_per_observer as f64);
        let sum = |f: fn(&Counters) -> u64| {
            sim.nodes.iter().map(|n| f(&n.state.counters)).sum::<u64>() as f64
        };
        m.insert("echo_sent".into(), sum(|c| c.echo_sent));
        m.insert("echo_failed".into(), sum(|c| c.echo_failed));
        m.insert("echo_skipped".into(), sum(|c| c.echo_skipped));
        m.insert(
            "stage_expired".into(),
            sim.nodes
                .iter()
                .map(|n| n.exec_stats[GOSSIP_STAGE as usize].expired)
                .sum::<u64>() as f64,
        );
    }

    fn views_json(&self, sim: &Sim<Self>) -> serde_json::Value {
        views_json::of(sim)
    }

    fn msg_kinds(&self) -> &'static [MsgKind] {
        MSG_KINDS
    }

    fn is_key_msg(&self, label: &str) -> bool {
        label.starts_with("ECHO")
    }

    fn commands(&self) -> &'static [CommandSpec] {
        COMMANDS
    }

    /// With the connection model: a Cassandra restart is seconds (the JVM, commit log replay
    /// and schema load come before MessagingService listens), and the model's one TCP
    /// assumption (docs/model/gossip.md) needs it: a peer's gossip connection recovers because it is
    /// written to while the node is down. A restart of milliseconds would leave that
    /// connection half-open too, which no real node shows.
    fn min_restart_down(&self) -> crate::time::Micros {
        if self.p.connections {
            MIN_RESTART_DOWN
        } else {
            0
        }
    }

    fn matrix(&self) -> Option<MatrixSpec> {
        Some(MatrixSpec {
            title: "Liveness matrix",
            axes: "row: observer · column: peer",
            legend: LEGEND,
            mark: Some("stuck inflightEcho"),
            notable_by: "seen DOWN by",
        })
    }

    // Out of line: `matrix_classes` calls it only for the few cells its bits cannot answer, and
    // one copy keeps the download smaller.
    #[inline(never)]
    fn matrix_class(&self, sim: &Sim<Self>, o: NodeId, q: NodeId) -> u8 {
        let running = |i: NodeId| sim.nodes[i as usize].status == NodeStatus::Running;
        let g = &sim.nodes[o as usize].state;
        if o == q {
            CELL_SELF
        } else if !running(o) {
            CELL_OBSERVER_DOWN
        } else if g.sees_up(q) {
            CELL_UP
        } else if !running(q) {
            CELL_PEER_STOPPED
        } else if sim.nodes[q as usize].state.sees_up(o) {
            CELL_DOWN_ONE_SIDED
        } else {
            CELL_DOWN
        }
    }

    /// Row by row from the observer's `not_up` bits: a running observer's cell of another peer
    /// is UP unless its bit is set, and only the other cells need `matrix_class`'s questions
    /// (is the observer running, the peer, does the peer see the observer UP).
    fn matrix_classes(
        &self,
        sim: &Sim<Self>,
        observers: &[NodeId],
        peers: &[NodeId],
        out: &mut Vec<u8>,
    ) {
        for &o in observers {
            let running = sim.nodes[o as usize].status == NodeStatus::Running;
            let g = &sim.nodes[o as usize].state;
            for &q in peers {
                out.push(if running && q != o && !g.not_seen_up(q) {
                    CELL_UP
                } else {
                    self.matrix_class(sim, o, q)
                });
            }
        }
    }

    fn matrix_cell(&self, sim: &Sim<Self>, o: NodeId, q: NodeId) -> Cell {
        let (on, qn) = (sim.topo.name(o), sim.topo.name(q));
        let running = |i: NodeId| sim.nodes[i as usize].status == NodeStatus::Running;
        let g = &sim.nodes[o as usize].state;
        // One source for the class (`matrix_class`); the sentence names it.
        let class = self.matrix_class(sim, o, q);
        let first = match class {
            CELL_SELF => format!("{on} (itself)"),
            CELL_OBSERVER_DOWN => format!("{on} is not running"),
            CELL_UP => format!("{on} sees {qn} UP"),
            CELL_PEER_STOPPED => format!("{on} sees {qn} DOWN ({qn} is not running)"),
            CELL_DOWN_ONE_SIDED => format!("{on} sees {qn} DOWN, while {qn} sees {on} UP"),
            _ => format!("{on} sees {qn} DOWN, and {qn} sees {on} DOWN"),
        };
        let mut tip = vec![first];
        let mut mark = false;
        if o != q && running(o) {
            if let Some(st) = g.state(q) {
                tip.push(format!(
                    "generation {} · heartbeat {}",
                    st.hb.generation, st.hb.version
                ));
            }
            if let Some(v) = view::phi_of(sim, g, q) {
                tip.push(format!("φ {:.2}", v * super::fd::PHI_FACTOR));
            }
            if view::inflight_stuck(g, q) {
                mark = true;
                tip.push("inflightEcho entry stuck (no echo will be sent)".into());
            } else if g.inflight.contains_key(&q) {
                tip.push("echo in flight".into());
            }
        }
        Cell {
            class,
            text: String::new(),
            mark,
            tip,
        }
    }

    fn matrix_summary(&self, sim: &Sim<Self>, limit: usize) -> MatrixSummary {
        let pairs = view::down_pairs(sim);
        let topo = &sim.topo;
        let one_sided = pairs
            .iter()
            .filter(|(o, q)| sim.nodes[*q as usize].state.sees_up(*o))
            .count();
        let text = if pairs.is_empty() {
            "Every running node sees every running peer UP.".to_string()
        } else {
            let shown: Vec<String> = pairs
                .iter()
                .take(limit)
                .map(|(o, q)| format!("{} sees {} DOWN", topo.name(*o), topo.name(*q)))
                .collect();
            let more = pairs.len().saturating_sub(limit);
            format!(
                "{} DOWN view{}{}: {}{}",
                pairs.len(),
                if pairs.len() == 1 { "" } else { "s" },
                if one_sided > 0 {
                    format!(" ({one_sided} one-sided)")
                } else {
                    String::new()
                },
                shown.join("; "),
                if more > 0 {
                    format!("; and {more} more")
                } else {
                    String::new()
                }
            )
        };
        MatrixSummary {
            bad: !pairs.is_empty(),
            notable: pairs,
            text,
        }
    }

    fn series(&self) -> &'static [SeriesSpec] {
        SERIES
    }

    fn sample(&self, sim: &Sim<Self>, out: &mut Vec<f64>) {
        out.push(view::down_pairs(sim).len() as f64);
        for slot in &sim.nodes {
            out.push(slot.exec_stats[GOSSIP_STAGE as usize].pending as f64);
        }
    }

    fn pair_series(&self) -> Option<PairSeries> {
        Some(PairSeries {
            title: "φ of the selected node, per peer (as Cassandra reports it)",
            threshold: Some(self.p.phi_convict_threshold),
        })
    }

    fn pair_value(&self, sim: &Sim<Self>, o: NodeId, q: NodeId) -> f64 {
        let slot = &sim.nodes[o as usize];
        if slot.status != NodeStatus::Running || o == q {
            return 0.0;
        }
        // As the samples kept it before (f32), so plots look as they did.
        view::phi_of(sim, &slot.state, q).unwrap_or(0.0) as f32 as f64 * super::fd::PHI_FACTOR
    }

    /// A running node with gossip disabled (`nodetool disablegossip`) in amber, "off" inside;
    /// otherwise by process status (peers' DOWN verdicts are the red ring and badge).
    fn glance(&self, sim: &Sim<Self>, id: NodeId) -> crate::model::Glance {
        let slot = &sim.nodes[id as usize];
        if slot.status == NodeStatus::Running && !slot.state.enabled {
            crate::model::Glance {
                fill: Some(GOSSIP_OFF),
                text: "off".into(),
                ring: None,
            }
        } else {
            crate::model::Glance::default()
        }
    }
    fn glance_legend(&self) -> crate::model::GlanceLegend {
        crate::model::GlanceLegend {
            fills: &[(GOSSIP_OFF, "gossip disabled")],
            rings: &[],
            text: "",
        }
    }
    fn node_badge(&self, sim: &Sim<Self>, id: NodeId) -> String {
        let slot = &sim.nodes[id as usize];
        if slot.status == NodeStatus::Running && !slot.state.enabled {
            "gossip off".into()
        } else {
            String::new()
        }
    }

    fn state_marks(&self) -> Option<StateMarks> {
        Some(StateMarks {
            above: ("DOWN", "a node marked a peer DOWN (convicted it)"),
            below: ("UP", "a node marked a peer UP (its echo came back)"),
        })
    }

    fn explain(
        &self,
        sim: &Sim<Self>,
        trace: &crate::engine::trace::Trace,
        upto: usize,
        id: NodeId,
    ) -> Vec<String> {
        explain_part::of(self, sim, trace, upto, id)
    }
}

/// How many distinct nodes `ids` names (each a node of `sim`): a table of seen nodes rather
/// than a `BTreeSet` (whose `collect` sorts, and ships a stable sort for the element type).
fn distinct_nodes(sim: &Sim<Gossip>, ids: impl Iterator<Item = NodeId>) -> usize {
    let mut seen = vec![false; sim.nodes.len()];
    ids.filter(|&i| !std::mem::replace(&mut seen[i as usize], true))
        .count()
}

fn query(sim: &Sim<Gossip>, q: &Query) -> Result<QValue, String> {
    let g = |id: NodeId| &sim.nodes[id as usize].state;
    let pair =
        || -> Result<(NodeId, NodeId), String> { Ok((q.need_node("observer")?, q.need_peer()?)) };
    Ok(match q.view {
        "liveness" => {
            let (o, p) = pair()?;
            QValue::Text(view::liveness_word(g(o).sees_up(p)).into())
        }
        "heartbeat" | "generation" => {
            let (o, p) = pair()?;
            let st = g(o).state(p);
            QValue::Num(st.map_or(0.0, |s| {
                if q.view == "heartbeat" {
                    s.hb.version as f64
                } else {
                    s.hb.generation as f64
                }
            }))
        }
        "inflight" => {
            let (o, p) = pair()?;
            QValue::Text(
                if g(o).inflight.contains_key(&p) {
                    "yes"
                } else {
                    "no"
                }
                .into(),
            )
        }
        "phi" => {
            let (o, p) = pair()?;
            QValue::Num(view::phi_of(sim, g(o), p).unwrap_or(0.0))
        }
        "map_diff" => {
            let (a, b) = pair()?;
            let key = |s: &EndpointState| {
                let mut st: Vec<_> = s
                    .states
                    .iter()
                    .map(|x| (x.key.clone(), x.value.clone(), x.version))
                    .collect();
                crate::small_sort::sort_by(&mut st, |a, b| a.cmp(b));
                (s.hb, st)
            };
            let (ma, mb) = (g(a).states(), g(b).states());
            let n = ma
                .iter()
                .zip(mb.iter())
                .filter(|(x, y)| x.as_ref().map(key) != y.as_ref().map(key))
                .count();
            QValue::Num(n as f64)
        }
        "down_seen_by" | "down_seen_of" => {
            let n = q.need_node("observer")?;
            let pairs = view::down_pairs(sim);
            let by = q.view == "down_seen_by";
            QValue::Num(
                pairs
                    .iter()
                    .filter(|p| if by { p.0 == n } else { p.1 == n })
                    .count() as f64,
            )
        }
        "mutation_timeouts" | "mutations_acked" | "mutations_sent" => {
            let (o, p) = pair()?;
            // Only the coordinator keeps write statistics: elsewhere every count is 0.
            let w = g(o).msg.writes.get(p as usize).cloned().unwrap_or_default();
            QValue::Num(match q.view {
                "mutation_timeouts" => w.timed_out,
                "mutations_acked" => w.acked,
                _ => w.sent,
            } as f64)
        }
        "stage_expired" => QValue::Num(
            sim.nodes[q.need_node("node")? as usize].exec_stats[GOSSIP_STAGE as usize].expired
                as f64,
        ),
        "stage_pending" => QValue::Num(
            sim.nodes[q.need_node("node")? as usize].exec_stats[GOSSIP_STAGE as usize].pending
                as f64,
        ),
        "echo_sent" | "echo_skipped" | "echo_failed" => {
            let c = &g(q.need_node("node")?).counters;
            QValue::Num(match q.view {
                "echo_sent" => c.echo_sent,
                "echo_skipped" => c.echo_skipped,
                _ => c.echo_failed,
            } as f64)
        }
        "down_pairs" | "down_observers" | "down_targets" => {
            let pairs = view::down_pairs(sim);
            let pick =
                |f: fn(&(NodeId, NodeId)) -> NodeId| distinct_nodes(sim, pairs.iter().map(f));
            QValue::Num(match q.view {
                "down_pairs" => pairs.len(),
                "down_observers" => pick(|p| p.0),
                _ => pick(|p| p.1),
            } as f64)
        }
        other => unreachable!("`{other}` is listed in VIEWS but not answered"),
    })
}

/// Every node's views as JSON (`Model::views_json`): what the CLI's report, the tests and the
/// diffs read.
fn views_now(sim: &Sim<Gossip>) -> serde_json::Value {
    serde_json::to_value(view::views(sim)).expect("views serialize")
}

/// Every build but the web app's split release build: [`views_now`] called directly.
#[cfg(not(cs_split))]
mod views_json {
    pub(super) fn of(sim: &crate::engine::Sim<super::Gossip>) -> serde_json::Value {
        super::views_now(sim)
    }
}

/// The web app's split release build: nothing in the page reads gossip's views as JSON (its
/// inspector, matrix, plots and checks read the state and `query`; the JSON is the CLI's, the
/// tests' and the other models' panels'), yet `Model::views_json` is an entry of every gossip
/// engine's `Driver` vtable, so `view::views`, its serializers and serde_json's map writer were
/// in the first download (~10 KB gzipped, issue 44). They are the part `gossip_views`, behind
/// this split point, which the page never fetches; a call while it is not loaded answers
/// `null` (none is made: the views of the page's models come from their own parts).
#[cfg(cs_split)]
mod views_json {
    use super::Gossip;
    use crate::engine::Sim;

    crate::lazy::split_fn!(gossip_views, json,
        fn in_part(&Sim<Gossip>) -> serde_json::Value = super::views_now);

    pub(super) fn of(sim: &Sim<Gossip>) -> serde_json::Value {
        in_part(sim).unwrap_or(serde_json::Value::Null)
    }
}

/// Every build but the web app's split release build: the explanation called directly.
#[cfg(not(cs_split))]
mod explain_part {
    pub(super) use super::super::explain::explain as of;
}

/// The web app's split release build: "explain this state" comes only with a click on the
/// topology's "explain" button (or `w`), so its code is a split point of the part `actions` (the
/// topology card's actions, fetched right after the first frame is painted, `web/src/ui/
/// actions.rs`), which the topology waits for before asking (issue 44). A call while it is not
/// loaded answers a line saying so.
#[cfg(cs_split)]
mod explain_part {
    use super::Gossip;
    use crate::engine::trace::Trace;
    use crate::engine::{NodeId, Sim};

    type Args<'a> = (&'a Gossip, &'a Sim<Gossip>, &'a Trace, usize, NodeId);

    crate::lazy::split_fn!(actions, explain,
    fn in_part(Args<'_>) -> Vec<String> = |(m, sim, trace, upto, id)| {
        super::super::explain::explain(m, sim, trace, upto, id)
    });

    pub(super) fn of(
        m: &Gossip,
        sim: &Sim<Gossip>,
        trace: &Trace,
        upto: usize,
        id: NodeId,
    ) -> Vec<String> {
        in_part((m, sim, trace, upto, id)).unwrap_or_else(|| {
            vec![
                "The explanation's code is not loaded yet (a part of the app, split/actions)."
                    .into(),
            ]
        })
    }
}
