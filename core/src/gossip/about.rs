//! What gossip's views, metrics and parameters mean (`crate::catalogue`).

use super::params::{CLIENT_RATE_MAX, FD_WINDOW_MAX, MAX_GENERATION_BASE, MIN_GOSSIP_INTERVAL_US};
use crate::meaning::{info, param, Info, ParamSpec, Range, NO_MAX_US};

pub const VIEW_INFO: &[Info] = &[
    info("liveness", "text", "whether the observer believes the peer is UP or DOWN (its failure detector and markAlive/markDead)"),
    info("heartbeat", "count", "the peer's heartbeat version as the observer last saw it"),
    info("generation", "count", "the peer's generation (its start time in seconds) as the observer knows it"),
    info("inflight", "text", "yes while the observer has an ECHO_REQ to the peer in flight (markAlive pending)"),
    info("phi", "phi", "the observer's phi (suspicion) of the peer; it convicts above phi_convict_threshold"),
    info("stage_expired", "tasks", "gossip messages the node's GossipStage dropped after they waited past their timeout"),
    info("stage_pending", "tasks", "gossip messages queued on the node's GossipStage"),
    info("echo_sent", "count", "ECHO_REQ messages the node sent (markAlive round-trips started)"),
    info("echo_skipped", "count", "markAlive calls the node skipped because an echo to that peer was already in flight"),
    info("echo_failed", "count", "ECHO_REQ round-trips of the node that failed (timed out or refused)"),
    info("down_pairs", "pairs", "(observer, peer) pairs where a running observer believes a running peer is DOWN"),
    info("down_observers", "nodes", "running nodes that believe at least one running peer is DOWN"),
    info("down_targets", "nodes", "running nodes that at least one running observer believes DOWN"),
    info("map_diff", "entries", "endpoints whose state differs between the observer's and the peer's gossip maps"),
    info("mutation_timeouts", "writes", "client writes from the observer to the peer that timed out"),
    info("mutations_acked", "writes", "client writes from the observer to the peer that were acknowledged"),
    info("mutations_sent", "writes", "client writes the observer sent to the peer"),
    info("down_seen_by", "nodes", "how many running observers believe this node is DOWN"),
    info("down_seen_of", "nodes", "how many running peers this observer believes are DOWN"),
];

pub const METRICS: &[Info] = &[
    info("down_pairs", "pairs", "at the end: (observer, peer) pairs of running nodes where the observer believes the peer is DOWN; 0 means every running node sees every running peer UP"),
    info("down_observers", "nodes", "at the end: running nodes that believe some running peer is DOWN"),
    info("down_targets", "nodes", "at the end: running nodes that some running observer believes DOWN"),
    info("max_down_per_observer", "nodes", "at the end: the most running peers any one observer believes DOWN"),
    info("stage_expired", "tasks", "gossip messages GossipStage dropped after waiting past their timeout, all nodes, over the run"),
    info("echo_sent", "count", "ECHO_REQ messages sent over the run, all nodes (markAlive round-trips)"),
    info("echo_failed", "count", "echo round-trips that failed over the run, all nodes"),
    info("echo_skipped", "count", "markAlive calls skipped over the run because an echo was already in flight (the dedup)"),
];

const ECHO: Range = Range::Words(&["legacy", "buggy", "fixed"]);

pub const PARAMS: &[ParamSpec] = &[
    param("echo", "variant", ECHO, "which Gossiper.markAlive runs: legacy (4.1.5), buggy (5.0.8, CASSANDRA-18866) or fixed (CASSANDRA-21636)"),
    param("gossip_interval", "duration", Range::Dur { min: MIN_GOSSIP_INTERVAL_US, max: NO_MAX_US, or_zero: false }, "time between a node's gossip rounds (Cassandra: 1s)"),
    param("request_timeout", "duration", Range::POSITIVE, "ECHO_REQ, ECHO_RSP and GOSSIP_SHUTDOWN expire after it (Cassandra: 10s)"),
    param("long_timeout", "duration", Range::DUR, "SYN/ACK/ACK2 expire after it (Cassandra: max(request_timeout, 5 min))"),
    param("phi_convict_threshold", "phi", Range::Float { min: 0.0, max: f64::INFINITY, open_min: true }, "a peer whose phi exceeds it is convicted (marked DOWN) (Cassandra: 8)"),
    param("fd_window", "samples", Range::Int { min: 1, max: FD_WINDOW_MAX as i64 }, "heartbeat intervals the failure detector keeps per peer"),
    param("fd_initial_interval", "duration", Range::DUR, "the interval the failure detector assumes before any sample"),
    param("fd_max_interval", "duration", Range::DUR, "longer intervals are not samples"),
    param("max_local_pause", "duration", Range::DUR, "a node paused longer than this does not convict anyone on waking"),
    param("shutdown_announce_delay", "duration", Range::DUR, "how long a stopping node waits after announcing its shutdown"),
    param("quarantine_delay", "duration", Range::DUR, "how long a removed endpoint stays quarantined"),
    param("stage_msg_cost", "duration", Range::DUR, "GossipStage time to handle any message"),
    param("apply_state_cost", "duration", Range::DUR, "extra GossipStage time per application state applied"),
    param("major_state_cost", "duration", Range::DUR, "GossipStage time to apply one endpoint's whole state on a major change (new generation)"),
    param("shuffle_digests", "", Range::BOOL, "shuffle SYN digests, as Cassandra does"),
    param("gossip_task", "", Range::BOOL, "start the periodic gossip task at startup"),
    param("generation_base", "seconds", Range::Int { min: 0, max: MAX_GENERATION_BASE as i64 }, "first generation number (seconds since the epoch at time zero)"),
    param("num_tokens", "tokens", Range::U32, "tokens per node"),
    param("messaging", "version", Range::Words(&["3.x", "4.0"]), "the messaging generation: which channels carry which verbs"),
    param("connections", "", Range::BOOL, "model internode connections (channels, lazy connect, half-open); off: direct delivery"),
    param("tcp_retransmit_timeout", "duration", Range::DUR, "3.x: how long an unacknowledged write is retransmitted before TCP gives up"),
    param("tcp_user_timeout", "duration", Range::DUR, "4.0: internode_tcp_user_timeout, bounds a half-open connection"),
    param("connect_timeout", "duration", Range::DUR, "time to establish an internode connection before giving up"),
    param("large_message_threshold", "bytes", Range::U32, "payloads above this go on the large channel"),
    param("client_rate", "writes/s", Range::Float { min: 0.0, max: CLIENT_RATE_MAX, open_min: false }, "client writes per second coordinated by client_coordinator (0: none)"),
    param("client_coordinator", "node", Range::Text("a node's name; empty: the first node"), "the node clients talk to"),
    param("client_delay", "duration", Range::DUR, "time between routing a write and sending its mutations, uniform in [0, client_delay]"),
    param("mutation_bytes", "bytes", Range::U32, "size of one client mutation"),
    param("write_timeout", "duration", Range::DUR, "a client write not acknowledged in this time times out"),
    param("fix_sender", "", Range::BOOL, "CASSANDRA-15138 fix on the sender: no normal messages to a node marked down"),
    param("fix_shutdown", "", Range::BOOL, "CASSANDRA-15138 fix on the stopping node: close non-gossip connections before announcing"),
];
