//! The toy `pingpong` protocol as a [`Model`]: proof that a model plugs into the runner, the CLI
//! and the web app with the generic panels alone (`scenarios/pingpong.toml`).

use super::PingPong;
use crate::engine::{NodeId, Sim};
use crate::meaning::{info, param, Info, ParamSpec, Range};
use crate::model::{CommandSpec, Model, MsgKind, QValue, Query, SeriesSpec, ViewNeeds};
use crate::scenario_file::Scenario;
use crate::time::Micros;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `[params]` of a pingpong scenario.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PingPongParams {
    /// Process each ball on the "worker" executor.
    pub use_worker: bool,
    /// The worker's service time per ball.
    pub work: crate::engine::action::Dur,
    /// A ball queued on the worker longer than this is dropped (none when absent).
    pub deadline: Option<crate::engine::action::Dur>,
    /// Pass the ball to a random node instead of the next one.
    pub random_target: bool,
    /// Every node serves a fresh ball on each 1 s tick.
    pub serve_on_tick: bool,
}

impl Default for PingPongParams {
    fn default() -> Self {
        PingPongParams {
            use_worker: false,
            work: crate::engine::action::Dur(0),
            deadline: None,
            random_target: false,
            serve_on_tick: false,
        }
    }
}

pub const VIEWS: &[&str] = &["received", "ticks", "starts"];

const MSG_KINDS: &[MsgKind] = &[MsgKind {
    label: "BALL",
    color: "#3b82f6",
    about: "the ball, passed on at once (or after the worker's service time)",
}];

const COMMANDS: &[CommandSpec] = &[CommandSpec {
    command: "serve",
    label: "serve a ball",
    help: "put one more ball into play from this node",
    args: &[],
    client_write: false,
    follower_away: false,
}];

const SERIES: &[SeriesSpec] = &[
    SeriesSpec {
        name: "balls_in_flight",
        title: "balls in flight",
        per_node: false,
    },
    SeriesSpec {
        name: "received",
        title: "balls received",
        per_node: true,
    },
];

impl Model for PingPong {
    const NAME: &'static str = "pingpong";
    const ABOUT: &'static str = "toy: every node passes a ball on (engine tests, benchmarks)";
    const VIEWS: &'static [&'static str] = VIEWS;
    const VIEW_INFO: &'static [&'static [Info]] = &[&[
        info("received", "balls", "balls the node has received"),
        info("ticks", "count", "1 s ticks the node has handled"),
        info("starts", "count", "times the node's process started"),
    ]];
    const METRICS: &'static [&'static [Info]] = &[&[info(
        "received",
        "balls",
        "balls received over the run, all nodes",
    )]];
    const PARAMS: &'static [&'static [ParamSpec]] = &[&[
        param(
            "use_worker",
            "",
            Range::BOOL,
            "process each ball on the worker executor",
        ),
        param(
            "work",
            "duration",
            Range::DUR,
            "the worker's service time per ball",
        ),
        param(
            "deadline",
            "duration",
            Range::DUR,
            "a ball queued on the worker longer than this is dropped (none when unset)",
        ),
        param(
            "random_target",
            "",
            Range::BOOL,
            "pass the ball to a random node instead of the next one",
        ),
        param(
            "serve_on_tick",
            "",
            Range::BOOL,
            "every node serves a fresh ball on each 1 s tick",
        ),
    ]];
    fn params_now(
        params: toml::Table,
        _: &Scenario,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        let p: PingPongParams = toml::Value::Table(params)
            .try_into()
            .map_err(|e: toml::de::Error| format!("params: {}", e.message()))?;
        Ok(crate::meaning::to_json(&p))
    }

    fn build(
        params: toml::Table,
        section: Option<&toml::Table>,
        _: &Scenario,
    ) -> Result<Self, String> {
        if section.is_some() {
            return Err("[pingpong]: the toy model has no section of its own; use [params]".into());
        }
        let p: PingPongParams = toml::Value::Table(params)
            .try_into()
            .map_err(|e: toml::de::Error| format!("params: {}", e.message()))?;
        let work: Micros = p.work.0;
        Ok(PingPong {
            use_worker: p.use_worker,
            work_us: work,
            deadline_us: p.deadline.map(|d| d.0),
            random_target: p.random_target,
            serve_on_tick: p.serve_on_tick,
        })
    }

    fn view_needs(view: &str) -> ViewNeeds {
        if VIEWS.contains(&view) {
            ViewNeeds::NODE.num()
        } else {
            ViewNeeds::NONE
        }
    }

    fn query(&self, sim: &Sim<Self>, q: &Query) -> Option<Result<QValue, String>> {
        if !VIEWS.contains(&q.view) {
            return None;
        }
        Some(q.need_node("node").map(|n| {
            let s = &sim.nodes[n as usize].state;
            QValue::Num(match q.view {
                "received" => s.received,
                "ticks" => s.ticks,
                _ => s.starts as u64,
            } as f64)
        }))
    }

    fn metrics(&self, sim: &Sim<Self>, m: &mut BTreeMap<String, f64>) {
        let received: u64 = sim.nodes.iter().map(|n| n.state.received).sum();
        m.insert("received".into(), received as f64);
    }

    fn views_json(&self, sim: &Sim<Self>) -> serde_json::Value {
        let nodes: BTreeMap<&str, serde_json::Value> =
            crate::small_sort::map(sim.nodes.iter().enumerate().map(|(i, n)| {
                (
                    sim.topo.name(i as NodeId),
                    serde_json::json!({
                        "status": n.status.as_str(),
                        "received": n.state.received,
                        "ticks": n.state.ticks,
                        "starts": n.state.starts,
                    }),
                )
            }));
        serde_json::json!({ "nodes": nodes })
    }

    fn msg_kinds(&self) -> &'static [MsgKind] {
        MSG_KINDS
    }
    fn commands(&self) -> &'static [CommandSpec] {
        COMMANDS
    }
    fn series(&self) -> &'static [SeriesSpec] {
        SERIES
    }
    fn sample(&self, sim: &Sim<Self>, out: &mut Vec<f64>) {
        out.push(sim.in_flight.len() as f64);
        out.extend(sim.nodes.iter().map(|n| n.state.received as f64));
    }
    fn node_badge(&self, sim: &Sim<Self>, id: NodeId) -> String {
        format!("{} hits", sim.nodes[id as usize].state.received)
    }
}
