//! What Raft's views, metrics and parameters mean (`crate::catalogue`); Ozone reuses them.

use super::params::{APPEND_BATCH_MAX, CLIENT_RATE_MAX, MAX_OUTSTANDING_MAX, TIMEOUT_MIN_US};
use crate::meaning::{info, param, Info, ParamSpec, Range, NO_MAX_US};

pub const VIEW_INFO: &[Info] = &[
    info(
        "role",
        "text",
        "the node's Raft role: leader, candidate or follower",
    ),
    info("term", "term", "the node's current term"),
    info(
        "leader",
        "node",
        "the leader the node knows for its current term (\"\" for none)",
    ),
    info(
        "voted_for",
        "node",
        "whom the node voted for in its current term (\"\" for no one)",
    ),
    info(
        "commit_index",
        "index",
        "the highest log index the node knows to be committed",
    ),
    info(
        "last_applied",
        "index",
        "the highest log index the node's state machine has applied",
    ),
    info(
        "apply_lag",
        "entries",
        "commit_index minus last_applied: committed entries waiting to be applied",
    ),
    info(
        "flush_index",
        "index",
        "the highest log index the node has written and flushed to disk",
    ),
    info("log_length", "entries", "entries in the node's log"),
    info(
        "log_term",
        "term",
        "the term of the node's log entry at the given index",
    ),
    info(
        "log_entry",
        "text",
        "the payload of the node's log entry at the given index: \"startup\" (a leader's \
         no-op), a client command (\"put x=1\"), \"\" when the log is shorter",
    ),
    info(
        "logs_agree",
        "yes/no",
        "\"yes\" when every running node holds the same entries (index and term) up to the \
         highest commitIndex among them; \"no\" when one lacks a committed entry or holds \
         another there",
    ),
    info(
        "state_machines_agree",
        "yes/behind/no",
        "\"yes\" when every running node's state machine applied the same entries (equal \
         state machines); \"behind\" when they agree but some applied fewer; \"no\" when two \
         applied different entries at one index",
    ),
    info(
        "last_log_term",
        "term",
        "the term of the node's last log entry",
    ),
    info(
        "next_index",
        "index",
        "on a leader: the next log index it will send to the peer",
    ),
    info(
        "match_index",
        "index",
        "on a leader: the highest log index it knows the peer stores",
    ),
    info(
        "lag",
        "entries",
        "how far the node's log is behind the leader's (\"no leader\" without one)",
    ),
    info(
        "leaders",
        "nodes",
        "nodes that believe they are leader now (more than one: in different terms)",
    ),
    info(
        "leader_term",
        "term",
        "the highest term in which some node is leader",
    ),
    info(
        "elections",
        "count",
        "elections started by all nodes so far",
    ),
    info(
        "client_acked",
        "requests",
        "client requests answered with success",
    ),
    info(
        "client_failed",
        "requests",
        "client requests that failed (timed out or refused)",
    ),
    info(
        "client_pending",
        "requests",
        "client requests sent and not yet answered",
    ),
    info(
        "client_latency_last_ms",
        "ms",
        "latency of the last acknowledged client request",
    ),
    info(
        "client_latency_max_ms",
        "ms",
        "the longest latency of an acknowledged client request",
    ),
    info(
        "client_latency_mean_ms",
        "ms",
        "the mean latency of acknowledged client requests",
    ),
    info(
        "applied_writes",
        "count",
        "client writes the node's state machine applied",
    ),
    info(
        "pending_requests",
        "requests",
        "client requests the leader holds pending (they use permits of pending_limit)",
    ),
    info(
        "reads_waiting",
        "reads",
        "linearizable reads the node holds: waiting for a heartbeat round, the leader's readIndex or the apply (read_option = \"linearizable\")",
    ),
    info(
        "kv",
        "text",
        "the value the node's state machine stores under the key (\"\" when unset)",
    ),
];

pub const METRICS: &[Info] = &[
    info("raft_client_acked", "requests", "client requests acknowledged over the run"),
    info("raft_client_failed", "requests", "client requests that failed over the run (timed out or refused)"),
    info("raft_client_pending", "requests", "client requests still unanswered at the end"),
    info("raft_client_latency_max_ms", "ms", "the longest time from sending a client request to its acknowledgement, over the run"),
    info("raft_client_latency_mean_ms", "ms", "the mean time from sending a client request to its acknowledgement (0 when none was acknowledged)"),
    info("raft_elections", "count", "elections started by all nodes over the run (pre-votes that won included)"),
    info("raft_leader_term", "term", "at the end: the highest term in which some node is leader (0: no leader)"),
    info("raft_max_commit_index", "index", "at the end: the highest commit index of any node"),
];

pub const PARAMS: &[ParamSpec] = &[
    param("preset", "", Range::Words(&["default", "ozone", "teaching"]), "Ratis' defaults; Ozone's datanodes (elections 5-5.2s, request and client timeouts 60s, slowness and no-leader timeouts 300s, pending_limit 1024); or teaching (elections 1.5-3s); explicit values win"),
    param("timeout_min", "duration", Range::Dur { min: TIMEOUT_MIN_US, max: NO_MAX_US, or_zero: false }, "raft.server.rpc.timeout.min: election timeout lower bound; heartbeats every min/4 to min/2"),
    param("timeout_max", "duration", Range::Dur { min: TIMEOUT_MIN_US, max: NO_MAX_US, or_zero: false }, "raft.server.rpc.timeout.max: election timeout upper bound (at least timeout_min); the leader's lease"),
    param("request_timeout", "duration", Range::POSITIVE, "raft.server.rpc.request.timeout: an unanswered AppendEntries is given up"),
    param("client_timeout", "duration", Range::POSITIVE, "raft.client.rpc.request.timeout: an unanswered client request is sent again, to the next server"),
    param("pre_vote", "", Range::BOOL, "raft.server.leaderelection.pre-vote: ask for pre-votes before raising the term"),
    param("leader_heartbeat_check", "", Range::BOOL, "checkLeadership: the leader steps down when no majority answered within timeout_max, checked when its event queue stayed empty for timeout_max (each flush or follower progress puts it off)"),
    param("step_down_wait", "duration", Range::DUR, "raft.server.leaderelection.leader.step-down.wait-time: a leader that stepped down for lost heartbeats stands for no election this long"),
    param("max_outstanding", "requests", Range::Int { min: 1, max: MAX_OUTSTANDING_MAX as i64 }, "AppendEntries in flight per follower"),
    param("append_batch", "entries", Range::Int { min: 1, max: APPEND_BATCH_MAX as i64 }, "entries per AppendEntries"),
    param("pending_limit", "requests", Range::Int { min: 1, max: u32::MAX as i64 }, "raft.server.write.element-limit: pending client requests on a leader"),
    param("retry_cache_expiry", "duration", Range::DUR, "raft.server.retrycache.expirytime"),
    param("leader_startup_entry", "", Range::BOOL, "a new leader appends an entry of its term at once"),
    param("commit_rule", "", Range::Words(&["current-term", "count-replicas"]), "which entries commit by counting replicas: Raft's rule or the unsafe rule of Figure 8"),
    param("flush_cost", "duration", Range::DUR, "LogWorker time to write and flush one batch"),
    param("append_cost", "duration", Range::DUR, "LogAppender time to build and send one AppendEntries"),
    param("apply_cost", "duration", Range::DUR, "StateMachineUpdater time to apply one entry"),
    param("client_rate", "requests/s", Range::Int { min: 0, max: CLIENT_RATE_MAX as i64 }, "client requests per second generated at client_node (0: none)"),
    param("client_node", "node", Range::Text("a node's name; empty: the first node"), "the node whose co-located client generates load"),
    param("client_retry", "duration", Range::POSITIVE, "client back-off after a NotLeader reply without a leader hint"),
    param("check_invariants", "", Range::BOOL, "check the Raft safety invariants after every event"),
    param("group_size", "nodes", Range::U32, "how many nodes (the first ones) form the Raft group; 0: all"),
    param("leak_permit_on_pre_append_failure", "", Range::BOOL, "Ratis as released: a request rejected by preAppendTransaction never releases its pending permit"),
    param("read_option", "", Range::Words(&["default", "linearizable"]), "raft.server.read.option: DEFAULT answers a read from the leader's state machine at once; LINEARIZABLE confirms the leader's commitIndex with a heartbeat round a majority acknowledges, then answers once applied (a follower asks the leader for the readIndex)"),
    param("slowness_timeout", "duration", Range::POSITIVE, "raft.server.rpc.slowness.timeout: the leader tells its state machine of a follower that has not answered for longer (notifyFollowerSlowness; Ozone closes the pipeline)"),
    param("no_leader_timeout", "duration", Range::POSITIVE, "raft.server.notification.no-leader.timeout: a follower that stands for election with no leader known for longer tells its state machine (notifyExtendedNoLeader; Ozone closes the pipeline)"),
    param("read_timeout", "duration", Range::POSITIVE, "raft.server.read.timeout: a linearizable read waiting for its readIndex to be applied fails with ReadException after this long"),
];
