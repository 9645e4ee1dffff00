//! What a person can observe of the Raft model: the `Model` impl (views for expectations,
//! metrics, JSON views, message kinds, commands, the "who leads" matrix, series, badges).

use super::node::{Payload, RNode, Role};
use super::params::RaftParams;
use super::sm::{Kv, StateMachine};
use super::Raft;
use crate::engine::{NodeId, NodeStatus, Sim};
use crate::model::{
    Cell, CommandSpec, Edge, KeyForm, MatrixSpec, MatrixSummary, Model, MsgKind, NodeArc, Overlay,
    PairSeries, QValue, Query, SeriesSpec, ViewNeeds,
};
use crate::scenario_file::Scenario;
use std::collections::BTreeMap;

pub const VIEWS: &[&str] = &[
    "role",
    "term",
    "leader",
    "voted_for",
    "commit_index",
    "last_applied",
    "apply_lag",
    "flush_index",
    "log_length",
    "log_term",
    "log_entry",
    "logs_agree",
    "state_machines_agree",
    "last_log_term",
    "next_index",
    "match_index",
    "lag",
    "leaders",
    "leader_term",
    "elections",
    "client_acked",
    "client_failed",
    "client_pending",
    "client_latency_last_ms",
    "client_latency_max_ms",
    "client_latency_mean_ms",
    "applied_writes",
    "pending_requests",
    "reads_waiting",
    "kv",
];

/// A Raft request refused by the host of a stopped server (`Msg::AppendError`,
/// `Msg::VoteError`); Ozone's datanodes list it too.
pub const CONNECTION_REFUSED: MsgKind = MsgKind {
    label: "CONNECTION_REFUSED",
    color: "#868e96",
    about: "the request reached a host whose server is down: its AppendEntries stream or vote request fails (UNAVAILABLE)",
};

pub const MSG_KINDS: &[MsgKind] = &[
    MsgKind {
        label: "PRE_VOTE",
        color: "#f59f00",
        about: "pre-vote: would you vote for me? (no term change)",
    },
    MsgKind {
        label: "PRE_VOTE_REPLY",
        color: "#fab005",
        about: "pre-vote answer",
    },
    MsgKind {
        label: "REQUEST_VOTE",
        color: "#e8590c",
        about: "a candidate asks for a vote in its new term",
    },
    MsgKind {
        label: "REQUEST_VOTE_REPLY",
        color: "#fd7e14",
        about: "vote granted or refused",
    },
    MsgKind {
        label: "APPEND_ENTRIES",
        color: "#1971c2",
        about: "the leader sends log entries",
    },
    MsgKind {
        label: "HEARTBEAT",
        color: "#74c0fc",
        about: "an empty AppendEntries: the leader is alive",
    },
    MsgKind {
        label: "APPEND_ENTRIES_REPLY",
        color: "#2b8a3e",
        about: "SUCCESS, INCONSISTENCY or NOT_LEADER",
    },
    CONNECTION_REFUSED,
    MsgKind {
        label: "CLIENT_REQUEST",
        color: "#9c36b5",
        about: "a client request",
    },
    MsgKind {
        label: "CLIENT_REPLY",
        color: "#cc5de8",
        about: "the reply, or NotLeader with a hint",
    },
    MsgKind {
        label: "READ_INDEX",
        color: "#0ca678",
        about: "a follower asks the leader for a readIndex (read option linearizable)",
    },
    MsgKind {
        label: "READ_INDEX_REPLY",
        color: "#38d9a9",
        about: "the readIndex a heartbeat round confirmed, or no success",
    },
];

pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        command: "timeout",
        label: "Time out",
        help: "start an election now",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "client-put x 1",
        label: "Client put",
        help: "the client on this node writes x=1 (client-put KEY VALUE)",
        args: &[],
        client_write: true,
        follower_away: false,
    },
    CommandSpec {
        command: "client-get x",
        label: "Client get",
        help: "the client on this node reads x: the leader answers from its state machine, no log entry (Ratis' default read option)",
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
        name: "client_latency_ms",
        title: "client latency, last reply (ms)",
        per_node: false,
    },
    SeriesSpec {
        name: "client_oldest_pending_ms",
        title: "oldest pending client request (ms)",
        per_node: false,
    },
];

/// Matrix cell classes (see [`MatrixSpec::legend`]).
pub const CELL_NOT_LEADER: u8 = 0;
pub const CELL_LEADER: u8 = 1;
pub const CELL_STALE: u8 = 2;
pub const CELL_SELF_LEADER: u8 = 3;
pub const CELL_DOWN: u8 = 4;

pub const MATRIX: MatrixSpec = MatrixSpec {
    title: "Leader matrix",
    axes: "row: node · column: the leader it believes in, at which term",
    legend: &[
        ("@panel", "not its leader"),
        ("@up_soft", "believed leader, current term"),
        ("@asym", "believed leader, stale term"),
        ("@accent", "itself, as leader"),
        ("@stopped", "node down"),
    ],
    mark: Some("a follower of this leader whose log lags its commitIndex"),
    notable_by: "stale leader of",
};

pub(super) fn name(sim: &Sim<impl crate::engine::Protocol>, id: Option<NodeId>) -> String {
    id.map_or(String::new(), |i| sim.topo.name(i).to_string())
}

pub(super) fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

impl<S: StateMachine> Raft<S> {
    pub(super) fn up(sim: &Sim<Self>, id: NodeId) -> bool {
        sim.nodes[id as usize].status != NodeStatus::Stopped
    }
    /// The running members of the group (`0..n`) that do not lead now (all of them while
    /// none leads): `Model::followers`.
    pub fn followers_now(&self, sim: &Sim<Self>) -> Vec<NodeId> {
        let leader = Self::current_leader(sim);
        (0..self.n as NodeId)
            .filter(|&i| Self::up(sim, i) && Some(i) != leader)
            .collect()
    }
    /// Running leaders: (node, term).
    pub fn leaders(sim: &Sim<Self>) -> Vec<(NodeId, u64)> {
        (0..sim.topo.len())
            .filter(|&i| Self::up(sim, i) && sim.nodes[i as usize].state.is_leader())
            .map(|i| (i, sim.nodes[i as usize].state.term))
            .collect()
    }
    /// The current leader: the running leader of the highest term (the last such node on a
    /// tie), `None` without one. What `lag`, the `leader` node reference and the keys use.
    pub fn current_leader(sim: &Sim<Self>) -> Option<NodeId> {
        Self::leaders(sim)
            .into_iter()
            .max_by_key(|&(_, t)| t)
            .map(|l| l.0)
    }
    pub(super) fn client_totals(sim: &Sim<Self>) -> (u64, u64, u64, u64, u64, u64) {
        let mut t = (0, 0, 0, 0, 0, 0);
        for s in &sim.nodes {
            let c = &s.state.client;
            t.0 += c.acked;
            t.1 += c.failed;
            t.2 += c.outstanding.len() as u64;
            t.3 = t.3.max(c.lat_max);
            t.4 += c.lat_sum;
            t.5 += c.lat_count;
        }
        t
    }
    pub(super) fn last_latency(sim: &Sim<Self>) -> u64 {
        sim.nodes
            .iter()
            .map(|s| s.state.client.lat_last)
            .max()
            .unwrap_or(0)
    }
    fn oldest_pending(sim: &Sim<Self>) -> u64 {
        sim.nodes
            .iter()
            .filter_map(|s| {
                s.state
                    .client
                    .outstanding
                    .values()
                    .map(|r| r.first_sent)
                    .min()
            })
            .min()
            .map_or(0, |t| sim.now - t)
    }

    /// The topology overlay of every Raft model (`Raft<Kv>`, Ozone's `Raft<Csm>`).
    pub const OVERLAY: Overlay = Overlay {
        arc: Some((
            "@asym",
            "election timer: the time left before a candidate's round times out, or a follower's timer wakes (it then stands only if it heard no leader for the timeout it slept; a full circle is timeout_max)",
        )),
        edges: &[
            (
                "@fg",
                "vote granted: voter → the candidate it voted for in its current term",
            ),
            (
                "@muted",
                "pre-vote granted: voter → the pre-candidate that counted it",
            ),
        ],
    };

    /// How many entries of the current leader's log (the running leader of the highest term)
    /// `id` lacks: the leader's last index minus the length of the prefix they share (equal
    /// entry chains; a divergent suffix counts as missing). `None` without a running leader.
    pub fn lag(sim: &Sim<Self>, id: NodeId) -> Option<u64> {
        let l = Self::current_leader(sim)?;
        let (ln, n) = (&sim.nodes[l as usize].state, &sim.nodes[id as usize].state);
        // Chains agree on a prefix and nowhere after it (Log Matching): binary search its end.
        let (mut lo, mut hi) = (0, n.last().min(ln.last()));
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if n.chain_at(mid) == ln.chain_at(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(ln.last() - lo)
    }

    /// A log entry's payload in words: `"startup"` (the leader's no-op of its term), or the
    /// client command as the state machine describes it (`"put x=1"`).
    pub fn entry_text(&self, p: &Payload<S::Cmd>) -> String {
        match p {
            Payload::Startup => "startup".into(),
            Payload::Client { cmd, .. } => self.sm.describe(cmd),
        }
    }

    /// Whether every running node of the group holds the same log up to the highest
    /// commitIndex among them (entries compared by index and term, the Log Matching chain): a
    /// node that lacks a committed entry, or holds another there, makes it false.
    pub fn logs_agree(&self, sim: &Sim<Self>) -> bool {
        let running = (0..sim.topo.len()).filter(|&i| Self::up(sim, i) && !self.outside(i));
        let c = running
            .clone()
            .map(|i| sim.nodes[i as usize].state.commit)
            .max()
            .unwrap_or(0);
        if c == 0 {
            return true;
        }
        let mut chains = running.map(|i| {
            let n = &sim.nodes[i as usize].state;
            (n.last() >= c).then(|| n.chain_at(c))
        });
        let first = chains.next().flatten();
        first.is_some() && chains.all(|x| x == first)
    }

    /// Whether the running servers of the group have equal state machines: `"yes"` when each
    /// applied the same entries (the same lastApplied, and the same entry at every index, by
    /// the Log Matching chain of what it applied), `"behind"` when they agree but some applied
    /// fewer than others, `"no"` when two applied different entries at one index (State
    /// Machine Safety broken).
    pub fn state_machines_agree(&self, sim: &Sim<Self>) -> &'static str {
        let running: Vec<&RNode<S>> = (0..sim.topo.len())
            .filter(|&i| Self::up(sim, i) && !self.outside(i))
            .map(|i| &sim.nodes[i as usize].state)
            .collect();
        let Some(top) = running.iter().max_by_key(|n| n.applied) else {
            return "yes";
        };
        let at = |n: &RNode<S>, i: super::Index| n.ghost.applied.get(i as usize - 1).copied();
        let mut behind = false;
        for n in &running {
            if n.applied == 0 {
                behind |= top.applied > 0;
                continue;
            }
            if at(n, n.applied) != at(top, n.applied) {
                return "no";
            }
            behind |= n.applied < top.applied;
        }
        if behind {
            "behind"
        } else {
            "yes"
        }
    }

    /// The commitIndex, then the lastApplied, of every node, for the plots: NaN for a stopped
    /// node, which has neither (volatile state), so its line has a gap rather than a 0.
    pub fn sample_indexes(sim: &Sim<Self>, out: &mut Vec<f64>) {
        let value = |i: usize, v: u64| {
            if Self::up(sim, i as NodeId) {
                v as f64
            } else {
                f64::NAN
            }
        };
        let nodes = sim.nodes.iter().enumerate();
        out.extend(nodes.clone().map(|(i, s)| value(i, s.state.commit)));
        out.extend(nodes.map(|(i, s)| value(i, s.state.applied)));
    }

    /// The election timer of a running follower or candidate of the group: the part of
    /// `timeout_max` still to run before it times out.
    pub fn election_arc(&self, sim: &Sim<Self>, id: NodeId) -> Option<NodeArc> {
        if !Self::up(sim, id) || self.outside(id) {
            return None;
        }
        let n = &sim.nodes[id as usize].state;
        if n.is_leader() {
            return None;
        }
        let left = n.election_deadline.saturating_sub(sim.now);
        let what = match n.role {
            Role::Candidate { pre: true } => "pre-vote round times out",
            Role::Candidate { pre: false } => "election round times out",
            // Ratis' FollowerState: when its sleep ends it stands only if it heard no leader
            // (and granted no vote) for the timeout it slept; else it sleeps again.
            _ => "election timer wakes",
        };
        Some(NodeArc {
            fraction: (left as f64 / self.p.timeout_max.0.max(1) as f64).clamp(0.0, 1.0),
            label: if left >= 1_000_000 {
                format!("{what} in {:.2} s", left as f64 / 1e6)
            } else {
                format!("{what} in {} ms", left / 1000)
            },
        })
    }

    /// Votes granted for the voter's current term (voter → candidate, from `votedFor`) and the
    /// pre-votes a pre-candidate has counted (granter → pre-candidate), among running nodes.
    pub fn vote_edges(&self, sim: &Sim<Self>, out: &mut Vec<Edge>) {
        for v in 0..sim.topo.len() {
            if !Self::up(sim, v) || self.outside(v) {
                continue;
            }
            let n = &sim.nodes[v as usize].state;
            if let Some(c) = n.voted_for.filter(|&c| c != v) {
                out.push(Edge {
                    from: v,
                    to: c,
                    class: 0,
                    label: format!(
                        "{} voted for {} in term {}",
                        sim.topo.name(v),
                        sim.topo.name(c),
                        n.term
                    ),
                });
            }
            if n.role == (Role::Candidate { pre: true }) {
                for &g in n.votes.iter().filter(|&&g| g != v) {
                    out.push(Edge {
                        from: g,
                        to: v,
                        class: 1,
                        label: format!(
                            "{} granted {} a pre-vote for term {}",
                            sim.topo.name(g),
                            sim.topo.name(v),
                            n.term + 1
                        ),
                    });
                }
            }
        }
    }
}

impl Model for Raft<Kv> {
    const NAME: &'static str = "raft";
    const ABOUT: &'static str =
        "Raft as Apache Ratis runs it: pre-vote elections, replication, commit, a delayable apply thread";
    fn build(
        params: toml::Table,
        section: Option<&toml::Table>,
        sc: &Scenario,
    ) -> Result<Self, String> {
        if let Some(s) = section {
            if let Some(k) = s.keys().find(|k| *k != "start") {
                return Err(format!(
                    "[raft] section: unknown key `{k}`; the section holds start states \
                     ([[raft.start]]); put Raft settings under [params]"
                ));
            }
        }
        let p = RaftParams::from_table(params)?;
        let mut raft = Raft::new(p, Kv, &sc.topo)?;
        if let Some(v) = section.and_then(|s| s.get("start")) {
            let starts = super::start::parse("raft", v, &sc.topo, raft.n)?;
            raft.start = starts.iter().map(|s| s.as_ref().map(|s| s.kv())).collect();
        }
        Ok(raft)
    }
    fn records_per_sec(&self, sim: &Sim<Self>) -> Option<(f64, String)> {
        Some(super::params::records_per_sec(
            &self.p,
            self.n,
            sim.topo.len(),
        ))
    }
    const VIEWS: &'static [&'static str] = VIEWS;
    const HAS_LEADER: bool = true;
    fn leader(&self, sim: &Sim<Self>) -> Option<NodeId> {
        Self::current_leader(sim)
    }
    fn followers(&self, sim: &Sim<Self>) -> Vec<NodeId> {
        self.followers_now(sim)
    }
    const VIEW_INFO: &'static [&'static [crate::meaning::Info]] = &[super::about::VIEW_INFO];
    const METRICS: &'static [&'static [crate::meaning::Info]] = &[super::about::METRICS];
    const PARAMS: &'static [&'static [crate::meaning::ParamSpec]] = &[super::about::PARAMS];
    fn params_now(
        params: toml::Table,
        _: &Scenario,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        Ok(crate::meaning::to_json(&RaftParams::from_table(params)?))
    }
    /// What each view needs and answers, read off `query_impl` (and `Kv::query`); Ozone's Raft
    /// views use it too.
    fn view_needs(view: &str) -> ViewNeeds {
        match view {
            // `Role::as_str`, or "down" for a stopped node.
            "role" => {
                ViewNeeds::NODE.text(&["follower", "pre-candidate", "candidate", "leader", "down"])
            }
            "leader" | "voted_for" => ViewNeeds::NODE.node_name(),
            "term" | "commit_index" | "last_applied" | "apply_lag" | "flush_index"
            | "log_length" | "last_log_term" | "applied_writes" | "pending_requests"
            | "reads_waiting" => ViewNeeds::NODE.num(),
            "log_term" => ViewNeeds::NODE.key(KeyForm::Number("a log index")).num(),
            "log_entry" => ViewNeeds::NODE
                .key(KeyForm::Number("a log index"))
                .any_text("the entry's payload (\"startup\", \"put x=1\"), \"\" for none"),
            "logs_agree" => ViewNeeds::NONE.text(&["yes", "no"]),
            "state_machines_agree" => ViewNeeds::NONE.text(&["yes", "behind", "no"]),
            "next_index" | "match_index" => ViewNeeds::PAIR.num(),
            // Entries behind the current leader; "down" for a stopped node, "no leader".
            "lag" => ViewNeeds::NODE.num_or(&["no leader", "down"]),
            // Cluster-wide, or one node's with `node`.
            "leaders"
            | "leader_term"
            | "elections"
            | "client_acked"
            | "client_failed"
            | "client_pending"
            | "client_latency_last_ms"
            | "client_latency_max_ms"
            | "client_latency_mean_ms" => ViewNeeds::NONE.num(),
            "kv" => ViewNeeds::NODE
                .key(KeyForm::Any)
                .any_text("the value stored under the key, \"\" when unset"),
            _ => ViewNeeds::NONE,
        }
    }
    fn query(&self, sim: &Sim<Self>, q: &Query) -> Option<Result<QValue, String>> {
        self.query_impl(sim, q)
    }
    fn metrics(&self, sim: &Sim<Self>, out: &mut BTreeMap<String, f64>) {
        let (acked, failed, pending, max, sum, count) = Self::client_totals(sim);
        out.insert("raft_client_acked".into(), acked as f64);
        out.insert("raft_client_failed".into(), failed as f64);
        out.insert("raft_client_pending".into(), pending as f64);
        out.insert("raft_client_latency_max_ms".into(), ms(max));
        out.insert(
            "raft_client_latency_mean_ms".into(),
            if count == 0 {
                0.0
            } else {
                ms(sum) / count as f64
            },
        );
        out.insert(
            "raft_elections".into(),
            sim.nodes.iter().map(|s| s.state.elections).sum::<u64>() as f64,
        );
        out.insert(
            "raft_leader_term".into(),
            Self::leaders(sim).iter().map(|l| l.1).max().unwrap_or(0) as f64,
        );
        out.insert(
            "raft_max_commit_index".into(),
            sim.nodes.iter().map(|s| s.state.commit).max().unwrap_or(0) as f64,
        );
    }
    fn views_json(&self, sim: &Sim<Self>) -> serde_json::Value {
        let keys = self.views_json_keys(sim).unwrap_or_default();
        serde_json::Value::Object(crate::small_sort::json_map(keys.into_iter().map(|k| {
            let v = self.views_json_entry(sim, &k);
            (k, v)
        })))
    }
    fn views_json_keys(&self, sim: &Sim<Self>) -> Option<Vec<String>> {
        // The node names in a JSON object's order (serde_json's `Map` is sorted by key).
        let mut names: Vec<String> = (0..sim.topo.len())
            .map(|i| sim.topo.name(i).to_string())
            .collect();
        crate::small_sort::sort_by(&mut names, |a, b| a.cmp(b));
        names.dedup();
        Some(names)
    }
    fn views_json_entry(&self, sim: &Sim<Self>, key: &str) -> serde_json::Value {
        sim.topo
            .id(key)
            .map_or(serde_json::Value::Null, |i| self.node_json(sim, i))
    }
    fn msg_kinds(&self) -> &'static [MsgKind] {
        MSG_KINDS
    }
    fn commands(&self) -> &'static [CommandSpec] {
        COMMANDS
    }
    fn matrix(&self) -> Option<MatrixSpec> {
        Some(MATRIX)
    }
    fn matrix_cell(&self, sim: &Sim<Self>, observer: NodeId, peer: NodeId) -> Cell {
        let (on, pn) = (sim.topo.name(observer), sim.topo.name(peer));
        if !Self::up(sim, observer) {
            return Cell {
                class: CELL_DOWN,
                tip: vec![format!("{on} is down")],
                ..Cell::default()
            };
        }
        let o = &sim.nodes[observer as usize].state;
        if o.leader != Some(peer) {
            let mut tip = vec![format!("{on} does not follow {pn}")];
            if let Some(l) = o.leader {
                tip.push(format!(
                    "{on} believes {} leads term {}",
                    sim.topo.name(l),
                    o.term
                ));
            } else {
                tip.push(format!("{on} knows no leader in term {}", o.term));
            }
            return Cell {
                class: CELL_NOT_LEADER,
                tip,
                ..Cell::default()
            };
        }
        let p = &sim.nodes[peer as usize].state;
        let class = if observer == peer {
            CELL_SELF_LEADER
        } else if Self::up(sim, peer) && p.is_leader() && p.term == o.term {
            CELL_LEADER
        } else {
            CELL_STALE
        };
        let mut tip = vec![format!("{on} believes {pn} leads term {}", o.term)];
        if class == CELL_STALE {
            tip.push(if Self::up(sim, peer) {
                format!("{pn} is {} in term {}", p.role.as_str(), p.term)
            } else {
                format!("{pn} is down")
            });
        }
        tip.push(format!(
            "{on}: commitIndex {}, lastApplied {}, last log index {}",
            o.commit,
            o.applied,
            o.last()
        ));
        // A dot: a follower of a running leader that does not yet hold what the leader committed.
        let mark = observer != peer && class == CELL_LEADER && o.last() < p.commit;
        if mark {
            tip.push(format!(
                "its log ends at {}, the leader has committed {}",
                o.last(),
                p.commit
            ));
        }
        Cell {
            class,
            text: format!("t{}", o.term),
            mark,
            tip,
        }
    }
    fn matrix_summary(&self, sim: &Sim<Self>, limit: usize) -> MatrixSummary {
        let leaders = Self::leaders(sim);
        // Notable: a running node that believes in a leader which is not leading its term.
        let mut notable = Vec::new();
        for o in 0..sim.topo.len() {
            if !Self::up(sim, o) {
                continue;
            }
            if let Some(l) = sim.nodes[o as usize].state.leader {
                if o != l && self.matrix_cell(sim, o, l).class == CELL_STALE {
                    notable.push((o, l));
                }
            }
        }
        let mut text = match leaders.as_slice() {
            [] => "No running leader.".to_string(),
            [(l, t)] => format!("{} leads term {t}.", sim.topo.name(*l)),
            many => format!(
                "{} running leaders: {}.",
                many.len(),
                many.iter()
                    .map(|(l, t)| format!("{} (term {t})", sim.topo.name(*l)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if !notable.is_empty() {
            let shown: Vec<String> = notable
                .iter()
                .take(limit)
                .map(|(o, l)| format!("{} follows {}", sim.topo.name(*o), sim.topo.name(*l)))
                .collect();
            let more = notable.len().saturating_sub(limit);
            text.push_str(&format!(
                " Stale views: {}{}.",
                shown.join("; "),
                if more > 0 {
                    format!("; and {more} more")
                } else {
                    String::new()
                }
            ));
        }
        MatrixSummary {
            bad: !notable.is_empty(),
            notable,
            text,
        }
    }
    fn series(&self) -> &'static [SeriesSpec] {
        SERIES
    }
    fn sample(&self, sim: &Sim<Self>, out: &mut Vec<f64>) {
        Self::sample_indexes(sim, out);
        out.push(ms(Self::last_latency(sim)));
        out.push(ms(Self::oldest_pending(sim)));
    }
    fn series_overlays(&self) -> &'static [(&'static str, usize, usize)] {
        &[("commitIndex and lastApplied of the selected node", 0, 1)]
    }
    fn pair_series(&self) -> Option<PairSeries> {
        Some(PairSeries {
            title: "matchIndex of each follower, on the selected node while it leads",
            threshold: None,
        })
    }
    fn pair_value(&self, sim: &Sim<Self>, observer: NodeId, peer: NodeId) -> f64 {
        let n = &sim.nodes[observer as usize].state;
        // Only a running leader tracks its followers: elsewhere a gap, not a 0.
        if !Self::up(sim, observer) || !n.is_leader() {
            return f64::NAN;
        }
        if observer == peer {
            return n.flush as f64;
        }
        n.progress
            .get(peer as usize)
            .map_or(0.0, |p| p.matched as f64)
    }
    fn overlay(&self) -> Overlay {
        Self::OVERLAY
    }
    fn node_arc(&self, sim: &Sim<Self>, id: NodeId) -> Option<NodeArc> {
        self.election_arc(sim, id)
    }
    fn edges(&self, sim: &Sim<Self>, out: &mut Vec<Edge>) {
        self.vote_edges(sim, out)
    }
    fn glance(&self, sim: &Sim<Self>, id: NodeId) -> crate::model::Glance {
        let n = &sim.nodes[id as usize].state;
        super::glance::of(Self::up(sim, id), n.role, n.term)
    }
    fn glance_legend(&self) -> crate::model::GlanceLegend {
        super::glance::LEGEND
    }
    fn node_badge(&self, sim: &Sim<Self>, id: NodeId) -> String {
        if !Self::up(sim, id) {
            return "down".into();
        }
        let n = &sim.nodes[id as usize].state;
        let role = match n.role {
            Role::Leader => format!("leader t{}", n.term),
            Role::Candidate { pre: true } => format!("pre-cand t{}", n.term + 1),
            Role::Candidate { pre: false } => format!("cand t{}", n.term),
            Role::Follower => "follower".into(),
        };
        // A stalled or delayed thread on its node (raft-slow-apply's apply thread).
        role + &crate::explain::thread_flags(sim, id)
    }
    fn explain(
        &self,
        sim: &Sim<Self>,
        trace: &crate::engine::trace::Trace,
        upto: usize,
        id: NodeId,
    ) -> Vec<String> {
        super::explain::explain(self, sim, trace, upto, id, || {
            crate::model::explain_generic(self, sim, trace, upto, id)
        })
    }
    fn moment_kinds(&self) -> &'static [crate::moments::MomentKind] {
        super::moments::KINDS
    }
    fn quick_keys(&self) -> &'static [crate::model::QuickKey] {
        super::keys::KEYS
    }
    fn quick_actions(
        &self,
        sim: &Sim<Self>,
        key: char,
        selected: Option<NodeId>,
    ) -> Result<Vec<crate::engine::action::Action>, String> {
        super::keys::actions(self, sim, key, selected)
    }
    fn moments(
        &self,
        trace: &crate::engine::trace::Trace,
        topo: &crate::engine::Topology,
        from: usize,
        found: &mut Vec<crate::moments::Moment>,
    ) {
        super::moments::scan(trace, topo, from, found, &|_, _, _| None)
    }
    fn say(
        &self,
        trace: &crate::engine::trace::Trace,
        topo: &crate::engine::Topology,
        r: &crate::engine::trace::Rec,
    ) -> Option<String> {
        super::moments::say(trace, topo, r)
    }
}
