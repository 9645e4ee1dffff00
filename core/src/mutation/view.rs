//! What a person can observe of the mutation-tracking model: expectation views, metrics, the
//! per-node JSON the panels draw, the witnessed-offsets matrix and the counter series.

use super::commands::COMMANDS;
use super::node::{MtNode, Outcome, ReadId};
use super::offsets::{MutId, Offsets};
use super::{MtParams, MutationTracking};
use crate::engine::{NodeId, Sim, Topology};
use crate::model::{
    Cell, CommandSpec, KeyForm, MatrixSpec, Model, MsgKind, QValue, Query, SeriesSpec, ViewNeeds,
};
use crate::scenario_file::Scenario;
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub const VIEWS: &[&str] = &[
    "read_outcome",
    "read_mutations",
    "read_summaries",
    "read_sync_acks",
    "read_requested",
    "read_rows",
    "read_min_mutations",
    "listeners",
    "listener_callbacks",
    "orphaned_listeners",
    "listeners_skipped",
    "listeners_expired",
    "witnessed",
    "reconciled",
    "journal",
    "duplicates",
    "reads_completed",
    "reads_timeout",
    "reads_missing",
    "reads_pending",
];

const KINDS: &[MsgKind] = &[
    MsgKind {
        label: "MUTATION_REQ",
        color: "#1c7ed6",
        about: "a tracked write to a replica",
    },
    MsgKind {
        label: "MUTATION_RSP",
        color: "#74c0fc",
        about: "the replica witnessed the write",
    },
    MsgKind {
        label: "PUSH_MUTATION_REQ",
        color: "#7048e8",
        about: "a write retry or a pulled mutation",
    },
    MsgKind {
        label: "BROADCAST_LOG_OFFSETS",
        color: "#adb5bd",
        about: "what the sender has witnessed, per log",
    },
    MsgKind {
        label: "TRACKED_DATA_READ_REQ",
        color: "#2b8a3e",
        about: "read: to the data node",
    },
    MsgKind {
        label: "TRACKED_SUMMARY_REQ",
        color: "#69db7c",
        about: "read: to a summary node",
    },
    MsgKind {
        label: "TRACKED_SUMMARY_RSP",
        color: "#f59f00",
        about: "a node's mutation summary, to the read's other nodes",
    },
    MsgKind {
        label: "PULL_MUTATIONS_REQ",
        color: "#e8590c",
        about: "fetch the mutations a summary showed missing",
    },
    MsgKind {
        label: "READ_RECONCILE_ACK",
        color: "#c2255c",
        about: "a summary node finished reconciling",
    },
    MsgKind {
        label: "TRACKED_READ_RSP",
        color: "#343a40",
        about: "the data node's answer to the read's coordinator",
    },
];

const SERIES: &[SeriesSpec] = &[
    SeriesSpec {
        name: "remaining_mutations",
        title: "remaining mutations (pending reads)",
        per_node: true,
    },
    SeriesSpec {
        name: "remaining_summaries",
        title: "remaining summaries (pending reads)",
        per_node: true,
    },
    SeriesSpec {
        name: "remaining_sync_acks",
        title: "remaining sync acks (pending reads)",
        per_node: true,
    },
    SeriesSpec {
        name: "pending_listeners",
        title: "IncomingMutations callbacks",
        per_node: true,
    },
];

pub fn fmt_id(topo: &Topology, id: MutId) -> String {
    format!("{}:{}", topo.name(id.log), id.offset)
}

pub fn fmt_read(topo: &Topology, r: ReadId) -> String {
    format!("{}/r{}", topo.name(r.coord), r.seq)
}

fn outcome_json(topo: &Topology, o: Outcome) -> Value {
    match o {
        Outcome::Missing(id) => json!({ "outcome": o.as_str(), "missing": fmt_id(topo, id) }),
        _ => json!({ "outcome": o.as_str() }),
    }
}

impl MutationTracking {
    fn read_of<'a>(&self, sim: &'a Sim<Self>, q: &Query) -> Result<(&'a MtNode, ReadId), String> {
        let n = q.need_node("node")?;
        let key = q.need_key("a read id such as \"r1\" or \"node1/r1\"")?;
        let node = &sim.nodes[n as usize].state;
        let id = node
            .find_read(key, |i| sim.topo.name(i).to_string())
            .ok_or_else(|| {
                format!(
                    "view `{}`: {} has no read \"{key}\" (yet); reads there: [{}]",
                    q.view,
                    sim.topo.name(n),
                    node.recons
                        .keys()
                        .chain(node.client_reads.keys())
                        .map(|r| fmt_read(&sim.topo, *r))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            });
        Ok((node, id?))
    }

    fn log_of(&self, sim: &Sim<Self>, q: &Query) -> Result<NodeId, String> {
        let key = q.need_key("the log's node, e.g. \"node2\"")?;
        sim.topo
            .resolve(key)
            .map_err(|e| format!("view `{}`: key: {e}", q.view))
    }

    fn query_inner(&self, sim: &Sim<Self>, q: &Query) -> Result<QValue, String> {
        let num = |x: usize| Ok(QValue::Num(x as f64));
        match q.view {
            "read_outcome" | "read_mutations" | "read_summaries" | "read_sync_acks"
            | "read_requested" | "read_rows" | "read_min_mutations" => {
                let (node, id) = self.read_of(sim, q)?;
                let recon = node.recons.get(&id);
                if q.view == "read_outcome" {
                    let o = match (recon, node.client_reads.get(&id)) {
                        (Some(r), _) => r.outcome,
                        (None, Some(c)) => c.outcome,
                        (None, None) => unreachable!("find_read found it"),
                    };
                    return Ok(QValue::Text(o.as_str().into()));
                }
                if q.view == "read_rows" {
                    if let Some(c) = node.client_reads.get(&id) {
                        if recon.is_none() {
                            return num(c.rows.count as usize);
                        }
                    }
                }
                let r = recon.ok_or_else(|| {
                    format!(
                        "view `{}`: {} coordinates read {} but does not reconcile it; ask its data node",
                        q.view,
                        sim.topo.name(node.me),
                        fmt_read(&sim.topo, id)
                    )
                })?;
                let (m, s, a) = r.counters();
                Ok(QValue::Num(match q.view {
                    "read_mutations" => m as f64,
                    "read_summaries" => s as f64,
                    "read_sync_acks" => a as f64,
                    "read_requested" => r.requested.len() as f64,
                    "read_rows" => r.rows.count as f64,
                    _ => r.history.iter().map(|h| h.1).min().unwrap_or(0) as f64,
                }))
            }
            "listeners" | "listener_callbacks" | "orphaned_listeners" | "listeners_skipped"
            | "listeners_expired" | "journal" | "duplicates" | "reads_completed"
            | "reads_timeout" | "reads_missing" | "reads_pending" => {
                let n = q.need_node("node")?;
                let node = &sim.nodes[n as usize].state;
                let count_outcome = |f: fn(Outcome) -> bool| {
                    node.recons
                        .values()
                        .filter(|r| r.data_node == n && f(r.outcome))
                        .count()
                };
                match q.view {
                    "listeners" => match q.key {
                        None => num(node.listeners.len()),
                        Some(k) => {
                            let id = parse_id(&sim.topo, k)
                                .map_err(|e| format!("view `listeners`: key: {e}"))?;
                            num(node.listeners.get(&id).map_or(0, |l| l.callbacks.len()))
                        }
                    },
                    "listener_callbacks" => {
                        num(node.listeners.values().map(|l| l.callbacks.len()).sum())
                    }
                    "orphaned_listeners" => num(node
                        .listeners
                        .keys()
                        .filter(|id| node.is_orphaned(**id))
                        .count()),
                    "listeners_expired" => num(node.listeners_expired as usize),
                    "listeners_skipped" => num(node.listeners_skipped as usize),
                    "journal" => match q.key {
                        None => num(node.journal.len()),
                        Some(k) => {
                            let id = parse_id(&sim.topo, k)
                                .map_err(|e| format!("view `journal`: key: {e}"))?;
                            num(node.journal.contains_key(&id) as usize)
                        }
                    },
                    "duplicates" => num(node.duplicates as usize),
                    "reads_completed" => num(count_outcome(|o| o == Outcome::Completed)),
                    "reads_timeout" => num(count_outcome(|o| o == Outcome::Timeout)),
                    "reads_pending" => num(count_outcome(|o| o == Outcome::Pending)),
                    _ => num(count_outcome(|o| matches!(o, Outcome::Missing(_)))),
                }
            }
            "witnessed" | "reconciled" => {
                let n = q.need_node("node")?;
                let log = self.log_of(sim, q)?;
                let node = &sim.nodes[n as usize].state;
                let l = node.logs.get(&log);
                let o = match q.view {
                    "witnessed" => {
                        let p = q.peer.unwrap_or(n);
                        if !node.is_participant(p) {
                            return Err(format!(
                                "view `witnessed`: peer {} is not a replica",
                                sim.topo.name(p)
                            ));
                        }
                        l.map(|l| l.witnessed[p as usize].clone())
                    }
                    _ => l.map(|l| l.reconciled()),
                };
                Ok(QValue::Text(o.unwrap_or_default().to_string()))
            }
            other => Err(format!("unknown view `{other}`")),
        }
    }
}

/// A read id as a view's key: "r1", or "node1/r1" (its coordinator's name first), as
/// `MtNode::find_read` matches it.
fn check_read_key(k: &str, topo: &Topology) -> Result<(), String> {
    let seq = match k.split_once('/') {
        Some((coord, seq)) => {
            topo.resolve(coord)?;
            seq
        }
        None => k,
    };
    let n = seq.strip_prefix('r').and_then(|d| d.parse::<u32>().ok());
    match n {
        Some(n) if format!("r{n}") == seq => Ok(()),
        _ => Err(format!(
            "\"{k}\" is not a read id; write r<N> or COORDINATOR/r<N>, e.g. \"r1\" or \"node1/r1\""
        )),
    }
}

const READ_KEY: KeyForm = KeyForm::Check(check_read_key);
const MUTATION_KEY: KeyForm = KeyForm::Check(|k, topo| parse_id(topo, k).map(|_| ()));
const LOG_KEY: KeyForm = KeyForm::Check(|k, topo| topo.resolve(k).map(|_| ()));

/// What each view needs and answers, read off `query_inner`.
fn view_needs(view: &str) -> ViewNeeds {
    let n = ViewNeeds::NODE;
    match view {
        // `Outcome::as_str`.
        "read_outcome" => {
            n.key(READ_KEY)
                .text(&["pending", "completed", "timeout", "missing-mutation"])
        }
        "read_mutations" | "read_summaries" | "read_sync_acks" | "read_requested" | "read_rows"
        | "read_min_mutations" => n.key(READ_KEY).num(),
        "listeners" | "journal" => n.optional_key(MUTATION_KEY).num(),
        "listener_callbacks" | "orphaned_listeners" | "listeners_skipped" | "listeners_expired"
        | "duplicates" | "reads_completed" | "reads_timeout" | "reads_missing"
        | "reads_pending" => n.num(),
        // `Offsets`' Display.
        "witnessed" | "reconciled" => n
            .key(LOG_KEY)
            .any_text("a set of offsets such as \"{0-3,5}\"; \"{}\" when none"),
        _ => ViewNeeds::NONE,
    }
}

/// A mutation id as written in scenarios and views: "node2:0".
pub fn parse_id(topo: &Topology, s: &str) -> Result<MutId, String> {
    let (n, o) = s.rsplit_once(':').ok_or_else(|| {
        format!("\"{s}\" is not a mutation id; write LOG_NODE:OFFSET, e.g. \"node2:0\"")
    })?;
    let log = topo.resolve(n)?;
    let offset = o
        .parse()
        .map_err(|_| format!("\"{s}\": offset \"{o}\" is not a whole number"))?;
    Ok(MutId::new(log, offset))
}

fn offsets_json(o: &Offsets) -> Value {
    json!(o.to_string())
}

pub fn node_json(topo: &Topology, node: &MtNode) -> Value {
    let name = |i: NodeId| topo.name(i).to_string();
    let logs: Vec<Value> = node
        .logs
        .iter()
        .map(|(log, l)| {
            let reconciled = l.reconciled();
            let mut unreconciled = Offsets::union(&l.witnessed[node.me as usize], &l.pending);
            unreconciled.subtract(&reconciled);
            let witnessed = crate::small_sort::json_map(
                l.witnessed
                    .iter()
                    .enumerate()
                    .map(|(p, o)| (name(p as NodeId), offsets_json(o))),
            );
            json!({
                "log": name(*log),
                "witnessed": witnessed,
                "reconciled": offsets_json(&reconciled),
                "unreconciled": offsets_json(&unreconciled),
                "pending": offsets_json(&l.pending),
                "snapshot_reconciled": offsets_json(&l.snapshot_reconciled),
            })
        })
        .collect();
    let listeners: Vec<Value> = node
        .listeners
        .iter()
        .map(|(id, l)| {
            json!({
                "id": fmt_id(topo, *id),
                "callbacks": l.callbacks.iter().map(|r| fmt_read(topo, *r)).collect::<Vec<_>>(),
                "created_at": l.created_at,
                "orphaned": node.is_orphaned(*id),
            })
        })
        .collect();
    let reads: Vec<Value> = node
        .recons
        .iter()
        .map(|(id, r)| {
            let (m, s, a) = r.counters();
            let mut o = outcome_json(topo, r.outcome);
            let summaries: Vec<Value> = r
                .summaries
                .iter()
                .map(|(from, s)| {
                    json!({
                        "from": name(*from),
                        "local": *from == node.me,
                        "logs": s.0.iter().map(|l| json!({
                            "log": name(l.log),
                            "reconciled": offsets_json(&l.reconciled),
                            "unreconciled": offsets_json(&l.unreconciled),
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let extra = json!({
                "id": fmt_read(topo, *id),
                "data_node": name(r.data_node),
                "summary_nodes": r.summary_nodes.iter().map(|n| name(*n)).collect::<Vec<_>>(),
                "role": if r.data_node == node.me { "data" } else { "summary" },
                "mutations": m,
                "summaries": s,
                "sync_acks": a,
                "requested": r.requested.iter().map(|i| fmt_id(topo, *i)).collect::<Vec<_>>(),
                "summaries_received": summaries,
                "history": r.history.iter().map(|h| json!([h.0, h.1, h.2, h.3])).collect::<Vec<_>>(),
                "augment": r.augment.iter().map(|(i, hit)| json!({"id": fmt_id(topo, *i), "hit": hit})).collect::<Vec<_>>(),
                "rows": r.rows.count,
                "rows_shown": r.rows.shown,
                "created_at": r.created_at,
                "expires_at": r.expires_at,
                "finished_at": r.finished_at,
            });
            if let (Value::Object(o), Value::Object(e)) = (&mut o, extra) {
                o.extend(e);
            }
            o
        })
        .collect();
    let client_reads: Vec<Value> = node
        .client_reads
        .iter()
        .map(|(id, c)| {
            let mut o = outcome_json(topo, c.outcome);
            if let Value::Object(m) = &mut o {
                m.insert("id".into(), json!(fmt_read(topo, *id)));
                m.insert("data_node".into(), json!(name(c.data_node)));
                m.insert("issued_at".into(), json!(c.issued_at));
                m.insert("rows".into(), json!(c.rows.count));
                m.insert("rows_shown".into(), json!(c.rows.shown));
            }
            o
        })
        .collect();
    json!({
        "name": name(node.me),
        "replica": node.is_participant(node.me),
        "next_offset": node.next_offset,
        "logs": logs,
        "writes_unreconciled": node.writes.values().map(|w| json!({
            "id": fmt_id(topo, w.mutation.id), "started_at": w.started_at, "retries": w.retries,
        })).collect::<Vec<_>>(),
        "journal": node.journal.values().map(|m| json!({"id": fmt_id(topo, m.id), "row": m.row})).collect::<Vec<_>>(),
        "rows": node.data.values().collect::<Vec<_>>(),
        "listeners": listeners,
        "listeners_expired": node.listeners_expired,
        "listeners_skipped": node.listeners_skipped,
        "reads": reads,
        "client_reads": client_reads,
        "deliveries": node.deliveries.iter().map(|d| json!({
            "at": d.at, "id": fmt_id(topo, d.id), "via": d.via, "new": d.new, "fired": d.fired,
        })).collect::<Vec<_>>(),
        "duplicates": node.duplicates,
        "holding": node.holding.iter().collect::<Vec<_>>(),
        "held": node.held.iter().map(|(f, m)| json!({"from": name(*f), "kind": super::msg_kind(m)})).collect::<Vec<_>>(),
        "parked": node.park.parked.len(),
        "parked_stage": node.park.stage.map(|s| ["ReadStage", "MutationStage"][s as usize]),
        "park_at": node.park.at.map(|(s, n)| json!({"step": s, "skip": n})),
    })
}

/// The glance fill of a node with pending reads (white text reads on it at 4.5:1).
const MT_PENDING: &str = "#b45309";

impl Model for MutationTracking {
    const NAME: &'static str = "mutation-tracking";
    const ABOUT: &'static str =
        "Cassandra mutation tracking: tracked writes and reads, read reconciliation (CASSANDRA-21181)";
    const VIEWS: &'static [&'static str] = VIEWS;
    const VIEW_INFO: &'static [&'static [crate::meaning::Info]] = &[super::about::VIEW_INFO];
    const METRICS: &'static [&'static [crate::meaning::Info]] = &[super::about::METRICS];
    const PARAMS: &'static [&'static [crate::meaning::ParamSpec]] = &[super::about::PARAMS];
    fn params_now(
        params: toml::Table,
        _: &Scenario,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        Ok(crate::meaning::to_json(&MtParams::from_table(params)?))
    }

    fn build(
        params: toml::Table,
        section: Option<&toml::Table>,
        sc: &Scenario,
    ) -> Result<Self, String> {
        if let Some(s) = section {
            if let Some(k) = s.keys().find(|k| *k != "start") {
                return Err(format!(
                    "[mutation-tracking] section: unknown key `{k}`; the section holds start \
                     states ([[mutation-tracking.start]]); put parameters under [params]"
                ));
            }
        }
        let p = MtParams::from_table(params)?;
        p.check_nodes(sc.topo.len())?;
        let mut mt = MutationTracking::new(p)?;
        if let Some(v) = section.and_then(|s| s.get("start")) {
            let participants = mt.participants(&sc.topo);
            mt.start = super::start::parse("mutation-tracking", v, &sc.topo, participants)?;
            mt.start_next = super::start::next_offsets(&mt.start);
        }
        Ok(mt)
    }

    fn records_per_sec(&self, sim: &Sim<Self>) -> Option<(f64, String)> {
        Some(
            self.p
                .records_per_sec(sim.topo.len(), self.participants(&sim.topo)),
        )
    }

    fn view_needs(view: &str) -> ViewNeeds {
        view_needs(view)
    }

    fn query(&self, sim: &Sim<Self>, q: &Query) -> Option<Result<QValue, String>> {
        if !VIEWS.contains(&q.view) {
            return None;
        }
        Some(self.query_inner(sim, q))
    }

    fn metrics(&self, sim: &Sim<Self>, out: &mut BTreeMap<String, f64>) {
        let mut m: BTreeMap<&str, f64> = BTreeMap::new();
        for slot in &sim.nodes {
            let n = &slot.state;
            for r in n.recons.values().filter(|r| r.data_node == n.me) {
                let k = match r.outcome {
                    Outcome::Pending => "reads_pending",
                    Outcome::Completed => "reads_completed",
                    Outcome::Timeout => "reads_timeout",
                    Outcome::Missing(_) => "reads_missing_mutation",
                };
                *m.entry(k).or_default() += 1.0;
            }
            *m.entry("duplicate_deliveries").or_default() += n.duplicates as f64;
            *m.entry("listeners_expired").or_default() += n.listeners_expired as f64;
            *m.entry("orphaned_listeners").or_default() +=
                n.listeners.keys().filter(|id| n.is_orphaned(**id)).count() as f64;
        }
        for k in [
            "reads_pending",
            "reads_completed",
            "reads_timeout",
            "reads_missing_mutation",
        ] {
            m.entry(k).or_default();
        }
        out.extend(m.into_iter().map(|(k, v)| (k.to_string(), v)));
    }

    fn views_json(&self, sim: &Sim<Self>) -> Value {
        Value::Array(
            sim.nodes
                .iter()
                .map(|s| node_json(&sim.topo, &s.state))
                .collect(),
        )
    }

    fn msg_kinds(&self) -> &'static [MsgKind] {
        KINDS
    }

    fn commands(&self) -> &'static [CommandSpec] {
        COMMANDS
    }

    fn matrix(&self) -> Option<MatrixSpec> {
        Some(MatrixSpec {
            title: "Witnessed offsets",
            axes: "row: witness · column: coordinator log",
            mark: None,
            notable_by: "missing offsets on",
            legend: &[
                ("#2b8a3e", "every offset written so far"),
                ("#f59f00", "some offsets missing"),
                ("#adb5bd", "no writes in that log"),
                ("#e03131", "none of them"),
            ],
        })
    }

    fn matrix_cell(&self, sim: &Sim<Self>, observer: NodeId, peer: NodeId) -> Cell {
        let written = sim.nodes[peer as usize].state.next_offset as u64;
        let obs = &sim.nodes[observer as usize].state;
        let have = obs
            .logs
            .get(&peer)
            .map_or(0, |l| l.witnessed[observer as usize].len().min(written));
        let class = if written == 0 {
            2
        } else if have == written {
            0
        } else if have == 0 {
            3
        } else {
            1
        };
        let w = obs
            .logs
            .get(&peer)
            .map(|l| l.witnessed[observer as usize].to_string())
            .unwrap_or_else(|| "{}".into());
        Cell {
            class,
            text: format!("{have}/{written}"),
            mark: false,
            tip: vec![format!(
                "{} has witnessed {w} of {}'s log ({written} written)",
                sim.topo.name(observer),
                sim.topo.name(peer)
            )],
        }
    }

    fn series(&self) -> &'static [SeriesSpec] {
        SERIES
    }

    fn sample(&self, sim: &Sim<Self>, out: &mut Vec<f64>) {
        for which in 0..3 {
            for s in &sim.nodes {
                let v: i64 = s
                    .state
                    .recons
                    .values()
                    .filter(|r| r.outcome == Outcome::Pending)
                    .map(|r| {
                        let (m, su, a) = r.counters();
                        [m as i64, su as i64, a as i64][which]
                    })
                    .sum();
                out.push(v as f64);
            }
        }
        for s in &sim.nodes {
            out.push(
                s.state
                    .listeners
                    .values()
                    .map(|l| l.callbacks.len())
                    .sum::<usize>() as f64,
            );
        }
    }

    /// The reads a node coordinates that are still pending, inside it, on an amber fill.
    fn glance(&self, sim: &Sim<Self>, id: NodeId) -> crate::model::Glance {
        let s = &sim.nodes[id as usize];
        let pending = s
            .state
            .recons
            .values()
            .filter(|r| r.outcome == Outcome::Pending && r.data_node == id)
            .count();
        if s.status == crate::engine::NodeStatus::Stopped || pending == 0 {
            return crate::model::Glance::default();
        }
        crate::model::Glance {
            fill: Some(MT_PENDING),
            text: pending.to_string(),
            ring: None,
        }
    }
    fn glance_legend(&self) -> crate::model::GlanceLegend {
        crate::model::GlanceLegend {
            fills: &[(MT_PENDING, "reads pending")],
            rings: &[],
            text: "how many reads it coordinates are pending",
        }
    }
    fn node_badge(&self, sim: &Sim<Self>, id: NodeId) -> String {
        let n = &sim.nodes[id as usize].state;
        let pending = n
            .recons
            .values()
            .filter(|r| r.outcome == Outcome::Pending && r.data_node == id)
            .count();
        let mut b = format!("log next {}", n.next_offset);
        if !n.listeners.is_empty() {
            b += &format!(", {} listener(s)", n.listeners.len());
        }
        if pending > 0 {
            b += &format!(", {pending} read(s) pending");
        }
        if n.park.stage.is_some() {
            b += ", parked";
        }
        b
    }

    fn moment_kinds(&self) -> &'static [crate::moments::MomentKind] {
        MUTATION_MOMENTS
    }
    fn moments(
        &self,
        trace: &crate::engine::trace::Trace,
        topo: &crate::engine::Topology,
        from: usize,
        found: &mut Vec<crate::moments::Moment>,
    ) {
        use crate::moments::{log_of, name, Moment, MAX_MOMENTS};
        for r in trace.recs.range(from..) {
            if found.len() >= MAX_MOMENTS {
                return;
            }
            let Some((_, text)) = log_of(trace, &r) else {
                continue;
            };
            if let Some((kind, text)) = mutation_moment(name(topo, r.node), text) {
                found.push(Moment {
                    time: r.time,
                    step: r.step,
                    node: r.node,
                    kind,
                    value: 0,
                    text,
                });
            }
        }
    }

    /// The generic explanation plus the reconciliations this node takes part in (its role and
    /// outcome, a missing mutation named), its listeners and the duplicates it delivered.
    fn explain(
        &self,
        sim: &Sim<Self>,
        trace: &crate::engine::trace::Trace,
        upto: usize,
        id: NodeId,
    ) -> Vec<String> {
        let mut out = crate::model::explain_generic(self, sim, trace, upto, id);
        let n = &sim.nodes[id as usize].state;
        let name = |i: NodeId| sim.topo.name(i);
        let reads: Vec<String> = n
            .recons
            .iter()
            .rev()
            .take(4)
            .map(|(r, rc)| {
                let role = if rc.data_node == id {
                    "data node"
                } else {
                    "summary node"
                };
                let why = match rc.outcome {
                    Outcome::Missing(m) => format!(
                        ": augment found no journal entry for {}:{}",
                        name(m.log),
                        m.offset
                    ),
                    _ => String::new(),
                };
                format!(
                    "read {}.{} as {role}: {}{why}",
                    name(r.coord),
                    r.seq,
                    rc.outcome.as_str()
                )
            })
            .collect();
        if !reads.is_empty() {
            out.push(format!(
                "Reconciliations ({} in all, latest first): {}.",
                n.recons.len(),
                reads.join("; ")
            ));
        }
        out.push(format!(
            "Its journal holds {} mutation(s); {} listener(s) wait ({} expired); {} duplicate deliveries.",
            n.journal.len(),
            n.listeners.len(),
            n.listeners_expired,
            n.duplicates
        ));
        out
    }
}

/// Mutation tracking's moments: a read's reconciliation completed, expired, or found a missing
/// mutation (the lines `recon.rs` logs).
const MUTATION_MOMENTS: &[crate::moments::MomentKind] = &[
    crate::moments::MomentKind {
        name: "read completed",
        color: "@up",
        about: "a tracked read's reconciliation completed on its data node",
    },
    crate::moments::MomentKind {
        name: "read timed out",
        color: "#b45309",
        about: "a tracked read's reconciliation expired before it completed",
    },
    crate::moments::MomentKind {
        name: "Missing mutation",
        color: "@down",
        about: "augment found no journal entry for a mutation the summaries name (CASSANDRA-21181)",
    },
];

/// The moment in a log line of node `me`: (kind, text).
fn mutation_moment(me: &str, text: &str) -> Option<(u8, String)> {
    if let Some((rid, id)) = text.split_once(": augment: Missing mutation ") {
        return Some((2, format!("read {rid} on {me}: Missing mutation {id}")));
    }
    if let Some((rid, _)) = text.split_once(" complete: augmentingOffsets") {
        return Some((0, format!("read {rid} completed on {me}")));
    }
    if let Some((rid, _)) = text.split_once(" expired: remaining mutations") {
        return Some((1, format!("read {rid} timed out on {me}")));
    }
    None
}
