//! A run of one scenario variant: builds the engine, evaluates expectations at their times, and
//! reports the outcome with the observable views.

use crate::engine::network::Link;
use crate::engine::trace::Trace;
use crate::engine::{Engine, NodeId, NodeStatus, Sim, SimError};
use crate::gossip::params::GossipParams;
use crate::gossip::{view, Gossip};
use crate::limits::Limits;
use crate::scenario::{merge_params, node_of, ExpectSpec, Scenario, TimeRef};
use crate::time::{fmt_time, Micros, US_PER_S};
use serde::Serialize;

/// A value a view query returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum QValue {
    Num(f64),
    Text(String),
}

impl std::fmt::Display for QValue {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            QValue::Num(n) => write!(f, "{n}"),
            QValue::Text(t) => write!(f, "{t}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpectResult {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub variant: String,
    pub seed: u64,
    pub end_time_us: Micros,
    pub events: u64,
    pub trace_hash: String,
    pub passed: bool,
    pub expectations: Vec<ExpectResult>,
    pub metrics: std::collections::BTreeMap<String, f64>,
    /// Every node's views at the end (`gossip::view::views`); `null` until filled by
    /// [`Run::views_json`]. Not built by `run`: at 251 nodes they are ~56 MB of JSON and cost more
    /// than a tenth of the run, and sweeps and benchmarks never look at them.
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub views: serde_json::Value,
}

/// How a run keeps its history.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub checkpointing: bool,
    pub body_budget: usize,
    pub limits: Limits,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            checkpointing: false,
            body_budget: 4 << 20,
            limits: Limits::default(),
        }
    }
}

pub struct Run {
    pub scenario: Scenario,
    pub variant: String,
    pub seed: u64,
    pub overrides: toml::Table,
    pub engine: Engine<Gossip>,
}

pub const QUERY_VIEWS: &[&str] = &[
    "liveness",
    "heartbeat",
    "generation",
    "inflight",
    "phi",
    "status",
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
    "log",
];

impl Run {
    pub fn new(
        scenario: Scenario,
        variant: &str,
        seed: Option<u64>,
        overrides: &toml::Table,
        opts: &RunOptions,
    ) -> Result<Run, String> {
        let (vi, v) = scenario.variant(variant)?;
        let seed = seed.unwrap_or(scenario.raw.seed);
        let merged = merge_params(&[&scenario.raw.params, &v.params, overrides]);
        let params: GossipParams = toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| format!("params (variant {variant}): {}", e.message()))?;
        let init = scenario.raw.gossip.clone().unwrap_or_default();
        let proto = Gossip::new(params, &init, &scenario.topo)
            .map_err(|m| format!("{}: {m}", scenario.file))?;
        let net = &scenario.raw.network;
        let link = Link {
            loss: net.loss,
            ..Link::healthy(net.latency_min.0, net.latency_max.0)
        };
        let schedule = scenario.schedule(vi);
        let sim = Sim::new(
            proto,
            scenario.topo.clone(),
            link,
            seed,
            schedule,
            opts.limits.clone(),
        );
        let mut engine = Engine::new(sim, opts.checkpointing, opts.body_budget);
        // Checkpoints spread evenly over the scenario's duration: the one at the start, one per
        // span, and room for one at the very end without thinning (jumps replay at most about
        // 1/(max - 2) of the run, 1/62 when the memory budget holds 64); a run continued beyond
        // the duration thins them out as usual.
        engine.set_checkpoint_span(
            (scenario.duration() / (engine.max_checkpoints() as Micros - 2)).max(US_PER_S),
        );
        engine.user_actions = scenario.raw.recorded.clone();
        let variant = variant.to_string();
        Ok(Run {
            scenario,
            variant,
            seed,
            overrides: overrides.clone(),
            engine,
        })
    }

    /// The default variant: `buggy` if present, else the first.
    pub fn default_variant(s: &Scenario) -> String {
        if s.raw.variants.iter().any(|v| v.name == "buggy") {
            "buggy".into()
        } else {
            s.raw.variants[0].name.clone()
        }
    }

    pub fn sim(&self) -> &Sim<Gossip> {
        &self.engine.sim
    }

    pub fn trace(&self) -> &Trace {
        &self.engine.trace
    }

    /// Evaluate one view query now.
    pub fn query(
        &self,
        view_name: &str,
        node: Option<NodeId>,
        peer: Option<NodeId>,
        contains: Option<&str>,
        from: Micros,
    ) -> Result<QValue, String> {
        let sim = &self.engine.sim;
        let need = |x: Option<NodeId>, what: &str| {
            x.ok_or_else(|| format!("view `{view_name}` needs `{what}`"))
        };
        let g = |id: NodeId| &sim.nodes[id as usize].state;
        Ok(match view_name {
            "liveness" => {
                let (o, p) = (need(node, "observer")?, need(peer, "peer")?);
                QValue::Text(view::liveness_word(g(o).sees_up(p)).into())
            }
            "heartbeat" | "generation" => {
                let (o, p) = (need(node, "observer")?, need(peer, "peer")?);
                let st = g(o).state(p);
                QValue::Num(st.map_or(0.0, |s| {
                    if view_name == "heartbeat" {
                        s.hb.version as f64
                    } else {
                        s.hb.generation as f64
                    }
                }))
            }
            "inflight" => {
                let (o, p) = (need(node, "observer")?, need(peer, "peer")?);
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
                let (o, p) = (need(node, "observer")?, need(peer, "peer")?);
                QValue::Num(view::phi_of(sim, g(o), p).unwrap_or(0.0))
            }
            "map_diff" => {
                let (a, b) = (need(node, "observer")?, need(peer, "peer")?);
                let key = |s: &crate::gossip::state::EndpointState| {
                    let mut st: Vec<_> = s
                        .states
                        .iter()
                        .map(|x| (x.key.clone(), x.value.clone(), x.version))
                        .collect();
                    st.sort();
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
                let n = need(node, "observer")?;
                let pairs = view::down_pairs(sim);
                let by = view_name == "down_seen_by";
                QValue::Num(
                    pairs
                        .iter()
                        .filter(|p| if by { p.0 == n } else { p.1 == n })
                        .count() as f64,
                )
            }
            "mutation_timeouts" | "mutations_acked" | "mutations_sent" => {
                let (o, p) = (need(node, "observer")?, need(peer, "peer")?);
                // Only the coordinator keeps write statistics: elsewhere every count is 0.
                let w = g(o).msg.writes.get(p as usize).cloned().unwrap_or_default();
                QValue::Num(match view_name {
                    "mutation_timeouts" => w.timed_out,
                    "mutations_acked" => w.acked,
                    _ => w.sent,
                } as f64)
            }
            "status" => QValue::Text(
                sim.nodes[need(node, "node")? as usize]
                    .status
                    .as_str()
                    .into(),
            ),
            "stage_expired" => {
                QValue::Num(sim.nodes[need(node, "node")? as usize].exec_stats[0].expired as f64)
            }
            "stage_pending" => {
                QValue::Num(sim.nodes[need(node, "node")? as usize].exec_stats[0].pending as f64)
            }
            "echo_sent" | "echo_skipped" | "echo_failed" => {
                let c = &g(need(node, "node")?).counters;
                QValue::Num(match view_name {
                    "echo_sent" => c.echo_sent,
                    "echo_skipped" => c.echo_skipped,
                    _ => c.echo_failed,
                } as f64)
            }
            "down_pairs" | "down_observers" | "down_targets" => {
                let pairs = view::down_pairs(sim);
                let pick = |f: fn(&(NodeId, NodeId)) -> NodeId| {
                    pairs
                        .iter()
                        .map(f)
                        .collect::<std::collections::BTreeSet<_>>()
                        .len()
                };
                QValue::Num(match view_name {
                    "down_pairs" => pairs.len(),
                    "down_observers" => pick(|p| p.0),
                    _ => pick(|p| p.1),
                } as f64)
            }
            "log" => {
                let text = contains.ok_or("view `log` needs `contains`")?;
                let trace = &self.engine.trace;
                let n = trace
                    .logs
                    .iter()
                    .filter(|l| {
                        l.time >= from
                            && l.time <= sim.now
                            && node.is_none_or(|n| l.node == n)
                            && trace.text(l).contains(text)
                    })
                    .count();
                QValue::Num(n as f64)
            }
            other => {
                return Err(format!(
                    "unknown view `{other}`; views: {}",
                    QUERY_VIEWS.join(", ")
                ))
            }
        })
    }

    fn expectations(&self) -> Vec<ExpectSpec> {
        let v = self.scenario.variant(&self.variant).expect("validated").1;
        self.scenario
            .raw
            .expect
            .iter()
            .chain(v.expect.iter())
            .cloned()
            .collect()
    }

    /// Run to the end of the scenario (or `until`), checking every expectation when it is due.
    pub fn run(&mut self, until: Option<Micros>) -> Result<Report, SimError> {
        let end = self.scenario.duration();
        let stop = until.unwrap_or(end).min(end);
        let exps = self.expectations();
        struct Pending {
            spec: ExpectSpec,
            from: Micros,
            to: Micros,
            start_value: Option<QValue>,
            failure: Option<String>,
            last: Option<QValue>,
        }
        let mut pend: Vec<Pending> = exps
            .into_iter()
            .map(|spec| {
                let (from, to) = match (&spec.at, &spec.during) {
                    (_, Some([a, b])) => (a.resolve(end), b.resolve(end)),
                    (Some(a), None) => (a.resolve(end), a.resolve(end)),
                    (None, None) => (end, end),
                };
                Pending {
                    spec,
                    from,
                    to,
                    start_value: None,
                    failure: None,
                    last: None,
                }
            })
            .collect();
        // Sample times: every expectation's start and end, and each second inside windows.
        let mut times: Vec<Micros> = Vec::new();
        for p in &pend {
            times.push(p.from);
            times.push(p.to);
            if p.spec.during.is_some() && p.spec.view != "log" && p.spec.increases.is_none() {
                let mut t = p.from;
                while t < p.to {
                    times.push(t);
                    t += US_PER_S;
                }
            }
        }
        times.push(stop);
        times.retain(|t| *t <= stop);
        times.sort_unstable();
        times.dedup();
        for t in times {
            self.engine.run_until(t, u64::MAX)?;
            for p in pend.iter_mut() {
                if t < p.from || t > p.to || p.failure.is_some() {
                    continue;
                }
                let node = node_of(&self.scenario.topo, &p.spec.observer);
                let peer = node_of(&self.scenario.topo, &p.spec.peer);
                let value = match self.query(
                    &p.spec.view,
                    node,
                    peer,
                    p.spec.contains.as_deref(),
                    p.from,
                ) {
                    Ok(v) => v,
                    Err(e) => {
                        p.failure = Some(e);
                        continue;
                    }
                };
                let windowed = p.spec.view == "log" || p.spec.increases.is_some();
                if t == p.from && p.start_value.is_none() {
                    p.start_value = Some(value.clone());
                }
                if windowed && t != p.to {
                    continue;
                }
                if let Some(why) = check(&p.spec, &value, p.start_value.as_ref()) {
                    p.failure = Some(format!("at {}: {why}", fmt_time(t)));
                }
                p.last = Some(value);
            }
        }
        let results: Vec<ExpectResult> = pend
            .into_iter()
            .map(|p| {
                let reached = stop >= p.to;
                match (p.failure, reached) {
                    (Some(f), _) => ExpectResult {
                        name: p.spec.name,
                        passed: false,
                        detail: f,
                    },
                    (None, false) => ExpectResult {
                        name: p.spec.name,
                        passed: false,
                        detail: format!(
                            "not reached: due at {}, run stopped at {}",
                            fmt_time(p.to),
                            fmt_time(stop)
                        ),
                    },
                    (None, true) => ExpectResult {
                        detail: describe_ok(&p.spec, p.last.as_ref(), p.from, p.to),
                        name: p.spec.name,
                        passed: true,
                    },
                }
            })
            .collect();
        Ok(self.report(results))
    }

    pub fn metrics(&self) -> std::collections::BTreeMap<String, f64> {
        let sim = &self.engine.sim;
        let pairs = view::down_pairs(sim);
        let mut m = std::collections::BTreeMap::new();
        m.insert("down_pairs".into(), pairs.len() as f64);
        m.insert(
            "down_observers".into(),
            pairs
                .iter()
                .map(|p| p.0)
                .collect::<std::collections::BTreeSet<_>>()
                .len() as f64,
        );
        m.insert(
            "down_targets".into(),
            pairs
                .iter()
                .map(|p| p.1)
                .collect::<std::collections::BTreeSet<_>>()
                .len() as f64,
        );
        let max_per_observer = (0..sim.nodes.len() as NodeId)
            .map(|o| pairs.iter().filter(|p| p.0 == o).count())
            .max()
            .unwrap_or(0);
        m.insert("max_down_per_observer".into(), max_per_observer as f64);
        let sum = |f: fn(&crate::gossip::Counters) -> u64| {
            sim.nodes.iter().map(|n| f(&n.state.counters)).sum::<u64>() as f64
        };
        m.insert("echo_sent".into(), sum(|c| c.echo_sent));
        m.insert("echo_failed".into(), sum(|c| c.echo_failed));
        m.insert("echo_skipped".into(), sum(|c| c.echo_skipped));
        m.insert(
            "stage_expired".into(),
            sim.nodes
                .iter()
                .map(|n| n.exec_stats[0].expired)
                .sum::<u64>() as f64,
        );
        m.insert(
            "running_nodes".into(),
            sim.nodes
                .iter()
                .filter(|n| n.status == NodeStatus::Running)
                .count() as f64,
        );
        m
    }

    pub fn report(&self, expectations: Vec<ExpectResult>) -> Report {
        let sim = &self.engine.sim;
        Report {
            scenario: self.scenario.raw.name.clone(),
            variant: self.variant.clone(),
            seed: self.seed,
            end_time_us: sim.now,
            events: sim.steps,
            trace_hash: format!("{:016x}", sim.hash.0),
            passed: expectations.iter().all(|e| e.passed),
            expectations,
            metrics: self.metrics(),
            views: serde_json::Value::Null,
        }
    }

    /// Every node's views at the current state, as JSON (what `Report::views` holds once filled).
    pub fn views_json(&self) -> serde_json::Value {
        serde_json::to_value(view::views(&self.engine.sim)).expect("views serialize")
    }
}

fn as_num(v: &QValue) -> Option<f64> {
    match v {
        QValue::Num(n) => Some(*n),
        QValue::Text(_) => None,
    }
}

/// `None` when the expectation holds for `value`; otherwise why not.
fn check(spec: &ExpectSpec, value: &QValue, start: Option<&QValue>) -> Option<String> {
    if let Some(eq) = &spec.equals {
        let ok = match (eq, value) {
            (toml::Value::String(s), QValue::Text(t)) => s == t,
            (toml::Value::Integer(i), QValue::Num(n)) => (*i as f64 - n).abs() < 1e-9,
            (toml::Value::Float(f), QValue::Num(n)) => (f - n).abs() < 1e-9,
            _ => false,
        };
        return (!ok).then(|| format!("{} is {value}, expected {eq}", spec.view));
    }
    if spec.increases == Some(true) {
        let (a, b) = (start.and_then(as_num), as_num(value));
        return match (a, b) {
            (Some(a), Some(b)) if b > a => None,
            _ => Some(format!(
                "{} did not increase: {} -> {value}",
                spec.view,
                start.map(|s| s.to_string()).unwrap_or_default()
            )),
        };
    }
    let Some(n) = as_num(value) else {
        return Some(format!("{} is {value}, not a number", spec.view));
    };
    if let Some(lo) = spec.at_least {
        if n < lo {
            return Some(format!("{} is {n}, expected at least {lo}", spec.view));
        }
    }
    if let Some(hi) = spec.at_most {
        if n > hi {
            return Some(format!("{} is {n}, expected at most {hi}", spec.view));
        }
    }
    None
}

fn describe_ok(spec: &ExpectSpec, last: Option<&QValue>, from: Micros, to: Micros) -> String {
    let v = last.map(|v| v.to_string()).unwrap_or_default();
    if from == to {
        format!("{} = {v} at {}", spec.view, fmt_time(to))
    } else {
        format!(
            "{} held from {} to {} (last value {v})",
            spec.view,
            fmt_time(from),
            fmt_time(to)
        )
    }
}

/// Parse `--until`-style text into a time, allowing `end`.
pub fn parse_time_ref(s: &str) -> Result<TimeRef, String> {
    if s == "end" {
        Ok(TimeRef::End)
    } else {
        crate::time::parse_duration(s).map(TimeRef::At)
    }
}
