//! What a person can observe of the Ozone model: Raft's views plus the container state machine's
//! and SCM's (the `Model` impl).

use super::{CState, Csm, OzoneParams, MAX_CHUNK_LEN, OZONE_KEYS};
use crate::engine::{NodeId, NodeStatus, Sim};
use crate::model::{
    CommandSpec, Edge, KeyForm, Model, MsgKind, NodeArc, Overlay, QValue, Query, SeriesSpec,
    ViewNeeds,
};
use crate::raft::node::Role;
use crate::raft::params::RaftParams;
use crate::raft::Raft;
use crate::scenario_file::Scenario;
use std::collections::BTreeMap;

pub type Ozone = Raft<Csm>;

pub const VIEWS: &[&str] = &[
    // Raft's
    "role",
    "term",
    "leader",
    "commit_index",
    "last_applied",
    "apply_lag",
    "flush_index",
    "log_length",
    "match_index",
    "next_index",
    "leaders",
    "client_acked",
    "client_failed",
    "client_pending",
    "pending_requests",
    // the container state machine's
    "container_state",
    "block_length",
    "block_committed",
    "healthy",
    "read_failures",
    "zero_byte_writes",
    "closed_container_writes",
    "result",
    "data_status",
    "cache_entries",
    "held_requests",
    "leaked_permits",
    "bcsid",
    "pipeline_removed",
    "pipeline_close_cause",
    // SCM's
    "pipeline",
    "scm_container_state",
    "scm_replica_state",
    "scm_sequence_id",
    "pipeline_actions",
    "pipeline_closed_by",
];

pub const MSG_KINDS: &[MsgKind] = &[
    MsgKind {
        label: "APPEND_ENTRIES",
        color: "#1971c2",
        about: "the leader sends log entries (their chunk data attached)",
    },
    MsgKind {
        label: "HEARTBEAT",
        color: "#74c0fc",
        about: "an empty AppendEntries",
    },
    MsgKind {
        label: "APPEND_ENTRIES_REPLY",
        color: "#2b8a3e",
        about: "SUCCESS, INCONSISTENCY or NOT_LEADER",
    },
    MsgKind {
        label: "PRE_VOTE",
        color: "#f59f00",
        about: "pre-vote",
    },
    MsgKind {
        label: "PRE_VOTE_REPLY",
        color: "#fab005",
        about: "pre-vote answer",
    },
    MsgKind {
        label: "REQUEST_VOTE",
        color: "#e8590c",
        about: "a candidate asks for a vote",
    },
    MsgKind {
        label: "REQUEST_VOTE_REPLY",
        color: "#fd7e14",
        about: "vote granted or refused",
    },
    crate::raft::view::CONNECTION_REFUSED,
    MsgKind {
        label: "CLIENT_REQUEST",
        color: "#9c36b5",
        about: "a container command (WriteChunk, PutBlock, CloseContainer)",
    },
    MsgKind {
        label: "CLIENT_REPLY",
        color: "#cc5de8",
        about: "its result, a rejection, or NotLeader",
    },
    MsgKind {
        label: "PIPELINE_ACTION",
        color: "#e03131",
        about: "datanode -> SCM: close the pipeline",
    },
    MsgKind {
        label: "CLOSE_CONTAINER_CMD",
        color: "#495057",
        about: "SCM -> datanode: close a container",
    },
    MsgKind {
        label: "CLOSE_PIPELINE_CMD",
        color: "#868e96",
        about: "SCM -> datanode: remove the pipeline's Raft group",
    },
    MsgKind {
        label: "GROUP_REMOVE",
        color: "#5c5f66",
        about:
            "datanode -> datanode: remove the pipeline's Raft group (ClosePipelineCommandHandler)",
    },
    MsgKind {
        label: "CONTAINER_REPORT",
        color: "#adb5bd",
        about: "datanode -> SCM: a replica's new state and BCSID (incremental container report)",
    },
];

pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        command: "client-write-chunk W1 1 1 1024",
        label: "WriteChunk",
        help: "the client on this datanode writes 1024 bytes to container 1, block 1 (client-write-chunk TAG CONTAINER BLOCK LEN [OFFSET])",
        args: &[],
        client_write: true,
        follower_away: false,
    },
    CommandSpec {
        command: "client-put-block P1 1 1 1024",
        label: "PutBlock",
        help: "commit block 1 of container 1 at 1024 bytes (client-put-block TAG CONTAINER BLOCK LEN)",
        args: &[],
        client_write: true,
        follower_away: false,
    },
    CommandSpec {
        command: "hold-writes",
        label: "Hold writes",
        help: "on the leader: park every WriteChunk between startTransaction and appendTransaction (hold-writes [KIND]: WriteChunk, PutBlock or all)",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "hold-writes PutBlock",
        label: "Hold PutBlocks",
        help: "on the leader: park every PutBlock between startTransaction and appendTransaction (a PutBlock racing the close)",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "release-writes",
        label: "Release writes",
        help: "let the parked requests go on to appendTransaction",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "inject-write-result CHUNK_FILE_INCONSISTENCY",
        label: "Fail next chunk write",
        help: "the next WriteChunk data stage on this datanode writes nothing and answers RESULT: CHUNK_FILE_INCONSISTENCY (tolerated: counted as success) or CONTAINER_INTERNAL_ERROR (the state machine turns unhealthy)",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "mark-unhealthy 1",
        label: "Mark replica unhealthy",
        help: "this datanode's replica of container 1 turns UNHEALTHY (the container scanner's verdict) and is reported to SCM",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "close-container 1",
        label: "Close container",
        help: "on SCM: close container 1 (CLOSING; the CloseContainerCommand goes to every datanode after params.close_container_wait, with its next heartbeat)",
        args: &[],
        client_write: false,
        // The close's WriteChunk that found the container CLOSED is committed with no bytes;
        // the leader reads it back for a follower that lags (HDDS-17673's pipeline close).
        follower_away: true,
    },
    CommandSpec {
        command: "timeout",
        label: "Time out",
        help: "a datanode starts an election now",
        args: &[],
        client_write: false,
        follower_away: false,
    },
];

pub const SERIES: &[SeriesSpec] = &[
    SeriesSpec {
        name: "commit_index",
        title: "commitIndex",
        per_node: true,
    },
    SeriesSpec {
        name: "last_applied",
        title: "lastApplied",
        per_node: true,
    },
    SeriesSpec {
        name: "cache_entries",
        title: "stateMachineDataCache entries",
        per_node: true,
    },
];

/// A datanode's panel data: each log entry's kind, container and data status, and the
/// pending-request quota (`used` requests waiting to apply, `leaked` permits, `limit`).
fn ozone_json(o: &Ozone, sim: &Sim<Ozone>, id: NodeId) -> serde_json::Value {
    use crate::raft::node::Payload;
    let n = &sim.nodes[id as usize].state;
    let entries: Vec<_> = n
        .log
        .iter()
        .enumerate()
        .map(|(k, e)| {
            let i = k as u64 + 1;
            let (kind, c) = match &e.payload {
                Payload::Startup => ("Startup", None),
                Payload::Client { cmd, .. } => (cmd.kind(), Some(cmd.container())),
            };
            serde_json::json!({"index": i, "kind": kind, "container": c,
                "data": n.sm.data.get(&i).copied()})
        })
        .collect();
    // Per follower, where the leader's appender took each sent entry's data from.
    let mut sent: serde_json::Map<String, serde_json::Value> = Default::default();
    for ((to, i), from) in &n.sm.sent_from {
        let e = sent
            .entry(sim.topo.name(*to).to_string())
            .or_insert_with(|| serde_json::json!([]));
        e.as_array_mut()
            .expect("an array")
            .push(serde_json::json!({"index": i, "from": from}));
    }
    serde_json::json!({
        "entries": entries,
        "quota": {"used": n.pending.len(), "leaked": n.leaked(), "limit": o.p.pending_limit},
        "sent_from": sent,
    })
}

fn container_key(q: &Query) -> Result<u32, String> {
    let k = q.need_key("the container id")?;
    parse_container(k).map_err(|m| format!("view `{}`: key: {m}", q.view))
}

fn block_key(q: &Query) -> Result<(u32, u32), String> {
    let k = q.need_key("CONTAINER/BLOCK, e.g. \"1/1\"")?;
    parse_block(k).map_err(|m| format!("view `{}`: key: {m}", q.view))
}

fn parse_container(k: &str) -> Result<u32, String> {
    k.parse()
        .map_err(|_| format!("\"{k}\" is not a container id (a whole number: 1, 2, ...)"))
}

fn parse_block(k: &str) -> Result<(u32, u32), String> {
    let bad = || format!("\"{k}\" is not CONTAINER/BLOCK (two whole numbers, e.g. \"1/1\")");
    let (c, b) = k.split_once('/').ok_or_else(bad)?;
    Ok((c.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
}

const CONTAINER_KEY: KeyForm = KeyForm::Check(|k, _| parse_container(k).map(|_| ()));
const BLOCK_KEY: KeyForm = KeyForm::Check(|k, _| parse_block(k).map(|_| ()));
/// `CState::as_str`, or "missing" for a container the node does not have.
const CONTAINER_STATES: &[&str] = &[
    "OPEN",
    "CLOSING",
    "QUASI_CLOSED",
    "CLOSED",
    "UNHEALTHY",
    "missing",
];

/// What each view needs and answers, read off `query` below (Raft's views: Raft's).
fn view_needs(view: &str) -> ViewNeeds {
    let dn = ViewNeeds::NODE;
    match view {
        "container_state" => dn.key(CONTAINER_KEY).text(CONTAINER_STATES),
        "block_length" | "block_committed" => dn.key(BLOCK_KEY).num(),
        "healthy" | "pipeline_removed" => dn.text(&["true", "false"]),
        "read_failures"
        | "zero_byte_writes"
        | "closed_container_writes"
        | "cache_entries"
        | "held_requests"
        | "leaked_permits" => dn.num(),
        // `Csm::record`: `Res::as_str`, GroupMismatchException, or "none" before any answer.
        "result" => dn.key(KeyForm::Any).text(&[
            "none",
            "SUCCESS",
            "CONTAINER_NOT_OPEN",
            "CLOSED_CONTAINER_IO",
            "CHUNK_FILE_INCONSISTENCY",
            "CONTAINER_UNHEALTHY",
            "CONTAINER_INTERNAL_ERROR",
            "GroupMismatchException",
        ]),
        // `OzNode::data`: what the write path, the leader's eviction and a read set.
        "data_status" => dn.key(KeyForm::Number("a log index")).text(&[
            "none",
            "cached",
            "cached, written",
            "cached, zero bytes",
            "written",
            "zero bytes",
            "written, evicted",
            "zero bytes, evicted",
            "read from cache",
            "read from disk",
            "read failed",
        ]),
        "bcsid" => dn.key(CONTAINER_KEY).num(),
        "pipeline" => ViewNeeds::NONE.text(&["OPEN", "CLOSED"]),
        "scm_container_state" => ViewNeeds::NONE.key(CONTAINER_KEY).text(CONTAINER_STATES),
        "scm_replica_state" => dn.key(CONTAINER_KEY).text(CONTAINER_STATES),
        "scm_sequence_id" => ViewNeeds::NONE.key(CONTAINER_KEY).num(),
        "pipeline_actions" => ViewNeeds::NONE.num(),
        // `CloseCause::as_str`, "none" before a close.
        "pipeline_close_cause" => dn.text(super::CLOSE_CAUSES),
        "pipeline_closed_by" => ViewNeeds::NONE.text(super::CLOSE_CAUSES),
        raft => <crate::raft::RaftKv as Model>::view_needs(raft),
    }
}

/// Ozone's glance colours (`Model::glance`): white text reads on each fill at 4.5:1.
const OZ_SCM: &str = "#6b3fa0";
const OZ_UNHEALTHY: &str = "#b42318";
const OZ_CLOSED: &str = "@down";
const OZ_FILLS: &[(&str, &str)] = &[
    (crate::raft::glance::LEADER, "leader"),
    (crate::raft::glance::CANDIDATE, "candidate"),
    (crate::raft::glance::FOLLOWER, "follower"),
    (OZ_UNHEALTHY, "unhealthy state machine"),
    (OZ_SCM, "SCM"),
];
const OZ_RINGS: &[(&str, &str)] = &[
    (crate::raft::glance::LEADER_RING, "the leader"),
    (OZ_CLOSED, "SCM closed the pipeline"),
];

/// Ozone's and Raft's parameters from the merged `[params]` (`build`, `params_now`).
fn parse_params(params: toml::Table, sc: &Scenario) -> Result<(OzoneParams, RaftParams), String> {
    let (mut oz, mut raft) = (toml::Table::new(), toml::Table::new());
    for (k, v) in params {
        if OZONE_KEYS.contains(&k.as_str()) {
            oz.insert(k, v);
        } else {
            raft.insert(k, v);
        }
    }
    let op: OzoneParams = toml::Value::Table(oz)
        .try_into()
        .map_err(|e: toml::de::Error| format!("params: {}", e.message()))?;
    if op.containers == 0 || op.containers > super::MAX_CONTAINERS {
        return Err(format!(
            "params.containers {} must be between 1 and {}",
            op.containers,
            super::MAX_CONTAINERS
        ));
    }
    if !(1..=MAX_CHUNK_LEN).contains(&op.chunk_len) {
        return Err(format!(
                "params.chunk_len {} must be between 1 and {MAX_CHUNK_LEN} bytes (32 MiB, OZONE_SCM_CHUNK_MAX_SIZE)",
                op.chunk_len
            ));
    }
    if op.chunk_executors == 0 || op.chunk_executors > super::MAX_CHUNK_EXECUTORS {
        return Err(format!(
            "params.chunk_executors {} must be between 1 and {} (hdds.container.ratis.num.write.chunk.threads.per.volume x volumes)",
            op.chunk_executors,
            super::MAX_CHUNK_EXECUTORS
        ));
    }
    if op.replication_interval.0 < crate::time::US_PER_MS {
        return Err(format!(
            "params.replication_interval {} is too short: at least 1ms",
            crate::time::fmt_duration(op.replication_interval.0)
        ));
    }
    if op.heartbeat_interval.0 < crate::time::US_PER_MS {
        return Err(format!(
            "params.heartbeat_interval {} is too short: at least 1ms",
            crate::time::fmt_duration(op.heartbeat_interval.0)
        ));
    }
    let n = sc.topo.len();
    if n < 2 {
        return Err("cluster: Ozone needs the datanodes of a pipeline and, last, SCM".into());
    }
    raft.entry("group_size")
        .or_insert(toml::Value::Integer(n as i64 - 1));
    let p = RaftParams::from_table(raft)?;
    if p.group_size != n - 1 {
        return Err(format!(
                "params.group_size must be {} here: every node but the last (SCM) is a datanode of the pipeline",
                n - 1
            ));
    }
    Ok((op, p))
}

impl Model for Ozone {
    const NAME: &'static str = "ozone";
    const ABOUT: &'static str = "Ozone's container state machine on Raft (a RATIS/THREE pipeline) and SCM: the write path, container close, pipeline close";
    fn build(
        params: toml::Table,
        section: Option<&toml::Table>,
        sc: &Scenario,
    ) -> Result<Self, String> {
        if let Some(s) = section {
            if let Some(k) = s
                .keys()
                .find(|k| !["start", "scm_container"].contains(&k.as_str()))
            {
                return Err(format!(
                    "[ozone] section: unknown key `{k}`; the section holds start states \
                     ([[ozone.start]], [[ozone.scm_container]]); put Ozone and Raft settings \
                     under [params]"
                ));
            }
        }
        let (op, p) = parse_params(params, sc)?;
        let n = sc.topo.len();
        let scm = n as NodeId - 1;
        let start = match section {
            Some(s) => super::start::parse(
                s.get("start"),
                s.get("scm_container"),
                &sc.topo,
                scm,
                op.containers,
            )?,
            None => Default::default(),
        };
        Raft::new(
            p,
            Csm {
                p: op,
                dns: scm,
                scm,
                start,
            },
            &sc.topo,
        )
    }
    /// The pipeline is one Raft group of every datanode, so Raft's estimate stands (issue 39:
    /// 512 nodes with client writes ran for minutes, unrefused). Measured against it on AMD EPYC
    /// (2 vCPUs), `sandbox-ozone` at client_rate 100 and 1000: 4 nodes make ~30 records a write
    /// (Raft's estimate counts 44: the state machine's WriteChunk and its chunk writer add fewer
    /// records than the estimate's rounding); 512 nodes for 8 s with the check on took 8x the
    /// CPU of the run without it (24.2 s against 3.1 s, 1.09 million events), the weight
    /// `1 + n/20` Raft's estimate gives a write. SCM's reports (one per datanode and
    /// `replication_interval`) are a few hundred records a second at 512 nodes: left out.
    fn records_per_sec(&self, sim: &Sim<Self>) -> Option<(f64, String)> {
        let (rate, why) = crate::raft::params::records_per_sec(&self.p, self.n, sim.topo.len());
        Some((rate, format!("a pipeline of {} datanodes: {why}", self.n)))
    }
    const VIEWS: &'static [&'static str] = VIEWS;
    const HAS_LEADER: bool = true;
    fn leader(&self, sim: &Sim<Self>) -> Option<NodeId> {
        Self::current_leader(sim)
    }
    /// The pipeline's other datanodes (SCM is no member).
    fn followers(&self, sim: &Sim<Self>) -> Vec<NodeId> {
        self.followers_now(sim)
    }
    const VIEW_INFO: &'static [&'static [crate::meaning::Info]] =
        &[crate::raft::about::VIEW_INFO, super::about::VIEW_INFO];
    const METRICS: &'static [&'static [crate::meaning::Info]] = &[super::about::METRICS];
    const PARAMS: &'static [&'static [crate::meaning::ParamSpec]] =
        &[super::about::PARAMS, crate::raft::about::PARAMS];
    fn params_now(
        params: toml::Table,
        sc: &Scenario,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        let (op, p) = parse_params(params, sc)?;
        let mut m = crate::meaning::to_json(&op);
        m.extend(crate::meaning::to_json(&p));
        Ok(m)
    }
    fn view_needs(view: &str) -> ViewNeeds {
        view_needs(view)
    }
    fn query(&self, sim: &Sim<Self>, q: &Query) -> Option<Result<QValue, String>> {
        let node = |what: &str| -> Result<&super::OzNode, String> {
            Ok(&sim.nodes[q.need_node(what)? as usize].state.sm)
        };
        let dn = |what: &str| -> Result<&super::OzNode, String> {
            let n = node(what)?;
            if n.scm.is_some() {
                return Err(format!(
                    "view `{}` is a datanode view; the observer is SCM",
                    q.view
                ));
            }
            Ok(n)
        };
        let scm = || -> Result<&super::Scm, String> {
            sim.nodes
                .iter()
                .find_map(|s| s.state.sm.scm.as_ref())
                .ok_or_else(|| "no SCM node".to_string())
        };
        let num = |v: u64| Ok(QValue::Num(v as f64));
        let text = |s: &str| Ok(QValue::Text(s.to_string()));
        let r = match q.view {
            "container_state" => dn("the datanode").and_then(|n| {
                let c = container_key(q)?;
                text(n.state(c).map_or("missing", CState::as_str))
            }),
            "block_length" => dn("the datanode").and_then(|n| {
                let k = block_key(q)?;
                num(n.files.get(&k).copied().unwrap_or(0))
            }),
            "block_committed" => dn("the datanode").and_then(|n| {
                let k = block_key(q)?;
                num(n.blocks.get(&k).copied().unwrap_or(0))
            }),
            "healthy" => {
                dn("the datanode").and_then(|n| text(if n.healthy { "true" } else { "false" }))
            }
            "read_failures" => dn("the datanode").and_then(|n| num(n.read_failures)),
            "zero_byte_writes" => dn("the datanode").and_then(|n| num(n.zero_byte_writes)),
            "closed_container_writes" => {
                dn("the datanode").and_then(|n| num(n.closed_container_writes))
            }
            "result" => dn("the datanode").and_then(|n| {
                let t = q.need_key("the request's tag")?;
                text(n.results.get(t).map_or("none", String::as_str))
            }),
            "data_status" => dn("the datanode").and_then(|n| {
                let k = q.need_key("the log index")?;
                let i: u64 = k
                    .parse()
                    .map_err(|_| format!("view `data_status`: key \"{k}\" is not a log index"))?;
                text(n.data.get(&i).copied().unwrap_or("none"))
            }),
            "cache_entries" => dn("the datanode").and_then(|n| num(n.cache.len() as u64)),
            "held_requests" => dn("the datanode").and_then(|n| num(n.held.len() as u64)),
            "leaked_permits" => q
                .need_node("the datanode")
                .and_then(|id| num(sim.nodes[id as usize].state.leaked())),
            "bcsid" => dn("the datanode").and_then(|n| num(n.bcsid(container_key(q)?))),
            "pipeline_removed" => dn("the datanode")
                .and_then(|n| text(if n.pipeline_removed { "true" } else { "false" })),
            "pipeline" => scm().and_then(|s| text(if s.pipeline_open { "OPEN" } else { "CLOSED" })),
            "scm_container_state" => scm().and_then(|s| {
                let c = container_key(q)?;
                text(s.containers.get(&c).map_or("missing", |s| s.as_str()))
            }),
            "scm_replica_state" => q.need_node("the datanode whose replica").and_then(|d| {
                let c = container_key(q)?;
                text(scm()?.replica(c, d).map_or("missing", |r| r.state.as_str()))
            }),
            "scm_sequence_id" => scm().and_then(|s| {
                let c = container_key(q)?;
                num(s.seq.get(&c).copied().unwrap_or(0))
            }),
            "pipeline_actions" => scm().and_then(|s| num(s.pipeline_actions)),
            "pipeline_close_cause" => {
                dn("the datanode").and_then(|n| text(super::CloseCause::text(n.close_cause)))
            }
            "pipeline_closed_by" => scm().and_then(|s| text(super::CloseCause::text(s.closed_by))),
            _ => return self.query_impl(sim, q),
        };
        Some(r)
    }
    fn metrics(&self, sim: &Sim<Self>, out: &mut BTreeMap<String, f64>) {
        let dns = || sim.nodes.iter().filter(|s| s.state.sm.scm.is_none());
        out.insert(
            "ozone_read_failures".into(),
            dns().map(|s| s.state.sm.read_failures).sum::<u64>() as f64,
        );
        out.insert(
            "ozone_zero_byte_writes".into(),
            dns()
                .map(|s| s.state.sm.zero_byte_writes)
                .max()
                .unwrap_or(0) as f64,
        );
        out.insert(
            "ozone_unhealthy_datanodes".into(),
            dns().filter(|s| !s.state.sm.healthy).count() as f64,
        );
        out.insert(
            "ozone_pipeline_open".into(),
            sim.nodes
                .iter()
                .find_map(|s| s.state.sm.scm.as_ref())
                .map_or(0.0, |s| if s.pipeline_open { 1.0 } else { 0.0 }),
        );
        out.insert(
            "ozone_pipeline_closed".into(),
            sim.nodes
                .iter()
                .find_map(|s| s.state.sm.scm.as_ref())
                .map_or(0.0, |s| if s.pipeline_open { 0.0 } else { 1.0 }),
        );
        out.insert(
            "ozone_client_acked".into(),
            dns().map(|s| s.state.client.acked).sum::<u64>() as f64,
        );
        out.insert(
            "ozone_client_failed".into(),
            dns().map(|s| s.state.client.failed).sum::<u64>() as f64,
        );
    }
    fn views_json(&self, sim: &Sim<Self>) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for i in 0..sim.topo.len() {
            let mut v = self.node_json(sim, i);
            if let (Some(o), false) = (v.as_object_mut(), self.outside(i)) {
                o.insert("ozone".into(), ozone_json(self, sim, i));
            }
            // SCM's replica table, by datanode name.
            if let (Some(scm), Some(o)) = (
                &sim.nodes[i as usize].state.sm.scm,
                v.pointer_mut("/state_machine/scm")
                    .and_then(|x| x.as_object_mut()),
            ) {
                let mut reps: BTreeMap<String, BTreeMap<String, serde_json::Value>> =
                    BTreeMap::new();
                for ((c, d), r) in &scm.replicas {
                    reps.entry(c.to_string()).or_default().insert(
                        sim.topo.name(*d).to_string(),
                        serde_json::json!({"state": r.state.as_str(), "bcsid": r.bcsid}),
                    );
                }
                o.insert("replicas".into(), serde_json::json!(reps));
            }
            m.insert(sim.topo.name(i).to_string(), v);
        }
        serde_json::Value::Object(m)
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
        Self::sample_indexes(sim, out);
        out.extend(sim.nodes.iter().map(|s| s.state.sm.cache.len() as f64));
    }
    /// The Raft group's election timers and votes (SCM, outside the group, has neither).
    fn overlay(&self) -> Overlay {
        Self::OVERLAY
    }
    fn node_arc(&self, sim: &Sim<Self>, id: NodeId) -> Option<NodeArc> {
        self.election_arc(sim, id)
    }
    fn edges(&self, sim: &Sim<Self>, out: &mut Vec<Edge>) {
        self.vote_edges(sim, out)
    }
    /// Datanodes as Raft servers (term inside, colour by role, the leader ringed), red when
    /// their container state machine is unhealthy; SCM in its own colour, ringed red once it
    /// closed the pipeline.
    fn glance(&self, sim: &Sim<Self>, id: NodeId) -> crate::model::Glance {
        let s = &sim.nodes[id as usize];
        let up = s.status != NodeStatus::Stopped;
        let n = &s.state;
        if let Some(scm) = n.sm.scm.as_ref().filter(|_| up) {
            return crate::model::Glance {
                fill: Some(OZ_SCM),
                text: "SCM".into(),
                ring: (!scm.pipeline_open).then_some(OZ_CLOSED),
            };
        }
        if !up && n.sm.scm.is_some() {
            // A stopped SCM is no Raft server: no term inside.
            return crate::model::Glance::default();
        }
        let mut g = crate::raft::glance::of(up, n.role, n.term);
        if up && !n.sm.healthy {
            g.fill = Some(OZ_UNHEALTHY);
        }
        g
    }
    fn glance_legend(&self) -> crate::model::GlanceLegend {
        crate::model::GlanceLegend {
            fills: OZ_FILLS,
            rings: OZ_RINGS,
            text: "the term (a datanode)",
        }
    }
    fn node_badge(&self, sim: &Sim<Self>, id: NodeId) -> String {
        let s = &sim.nodes[id as usize];
        if s.status == NodeStatus::Stopped {
            return "down".into();
        }
        let n = &s.state;
        if let Some(scm) = &n.sm.scm {
            return format!(
                "SCM, pipeline {}",
                if scm.pipeline_open { "OPEN" } else { "CLOSED" }
            );
        }
        let role = match n.role {
            Role::Leader => format!("leader t{}", n.term),
            Role::Candidate { .. } => "candidate".into(),
            Role::Follower => "follower".into(),
        };
        let threads = crate::explain::thread_flags(sim, id);
        if n.sm.healthy {
            format!("{role}{threads}")
        } else {
            format!("{role}, unhealthy{threads}")
        }
    }
    fn moment_kinds(&self) -> &'static [crate::moments::MomentKind] {
        OZONE_MOMENTS
    }
    fn moments(
        &self,
        trace: &crate::engine::trace::Trace,
        topo: &crate::engine::Topology,
        from: usize,
        found: &mut Vec<crate::moments::Moment>,
    ) {
        crate::raft::moments::scan(trace, topo, from, found, &|me, _, text| {
            ozone_moment(me, text)
        })
    }
    fn say(
        &self,
        trace: &crate::engine::trace::Trace,
        topo: &crate::engine::Topology,
        r: &crate::engine::trace::Rec,
    ) -> Option<String> {
        crate::raft::moments::say(trace, topo, r)
    }
    /// Raft's explanation for a datanode, plus its container state machine's health; SCM's
    /// pipeline and container states for the SCM node.
    fn explain(
        &self,
        sim: &Sim<Self>,
        trace: &crate::engine::trace::Trace,
        upto: usize,
        id: NodeId,
    ) -> Vec<String> {
        let generic = || crate::model::explain_generic(self, sim, trace, upto, id);
        let s = &sim.nodes[id as usize];
        if let (Some(scm), true) = (&s.state.sm.scm, s.status != NodeStatus::Stopped) {
            let mut out = generic();
            let states: Vec<String> = scm
                .containers
                .iter()
                .map(|(c, st)| format!("#{c} {}", st.as_str()))
                .collect();
            out.insert(
                1,
                format!(
                    "As SCM it sees the pipeline {} after {} pipeline action(s); containers: {}.",
                    match (scm.pipeline_open, scm.pipeline_destroyed) {
                        (true, _) => "OPEN",
                        (false, false) => "CLOSED",
                        (false, true) => "CLOSED and destroyed",
                    },
                    scm.pipeline_actions,
                    if states.is_empty() {
                        "none".to_string()
                    } else {
                        states.join(", ")
                    }
                ),
            );
            return out;
        }
        let mut out = crate::raft::explain::explain(self, sim, trace, upto, id, generic);
        if s.status != NodeStatus::Stopped && !self.outside(id) {
            let n = &s.state.sm;
            out.insert(
                1,
                if n.healthy {
                    format!(
                        "Its container state machine is healthy; containers: {}.",
                        n.containers
                            .iter()
                            .map(|(c, st)| format!("#{c} {}", st.as_str()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                } else {
                    format!(
                        "Its container state machine is UNHEALTHY (containers {}): it refuses further writes until the pipeline is closed.",
                        n.unhealthy_containers
                            .iter()
                            .map(|c| format!("#{c}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
            );
        }
        out
    }
}

/// Ozone's moments: Raft's ([`crate::raft::moments::KINDS`]), then its own.
const OZONE_MOMENTS: &[crate::moments::MomentKind] = &[
    crate::raft::moments::KINDS[0],
    crate::raft::moments::KINDS[1],
    crate::raft::moments::KINDS[2],
    crate::moments::MomentKind {
        name: "pipeline closed",
        color: "@down",
        about: "SCM moved the pipeline to CLOSED (its containers are closed next)",
    },
    crate::moments::MomentKind {
        name: "unhealthy",
        color: "#c2410c",
        about: "a datanode's ContainerStateMachine was marked unhealthy",
    },
    crate::moments::MomentKind {
        name: "container closed",
        color: "@muted",
        about: "a datanode closed (or quasi-closed) a container",
    },
];

/// Ozone's own moment in a log line of node `me`: (kind, text).
fn ozone_moment(me: &str, text: &str) -> Option<(u8, String)> {
    if text.starts_with("SCM: pipeline moved to CLOSED") {
        return Some((3, format!("{me}: the pipeline is CLOSED")));
    }
    if let Some(why) = text.strip_prefix("ContainerStateMachine marked unhealthy: ") {
        return Some((4, format!("{me}'s state machine is unhealthy: {why}")));
    }
    if let Some(rest) = text.strip_prefix("container ") {
        let cid = rest.split_whitespace().next()?;
        for st in ["-> CLOSED", "-> QUASI_CLOSED"] {
            if rest.contains(st) {
                return Some((5, format!("{me}: container {cid} {}", &st[3..])));
            }
        }
    }
    None
}
