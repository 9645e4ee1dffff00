//! What mutation tracking's views, metrics and parameters mean (`crate::catalogue`).

use super::params::{
    BROADCAST_MIN_US, CONVICT_MIN_US, LOAD_INTERVAL_MIN_US, MAX_NODES, PURGE_MIN_US, TASK_MAX_US,
};
use crate::meaning::{info, param, Info, ParamSpec, Range, NO_MAX_US};

pub const VIEW_INFO: &[Info] = &[
    info("read_outcome", "text", "how the tracked read (key) ended on its data node: pending, completed, timeout or missing-mutation"),
    info("read_mutations", "count", "mutations the read (key) pulled from other replicas"),
    info("read_summaries", "count", "mutation summaries the read (key) received"),
    info("read_sync_acks", "count", "sync acknowledgements the read (key) received"),
    info("read_requested", "count", "mutations the read (key) asked other replicas for"),
    info("read_rows", "rows", "rows the read (key) returned"),
    info("read_min_mutations", "count", "the fewest mutations the read (key) had to see to be correct"),
    info("listeners", "count", "IncomingMutations listeners registered on the node (for the mutation key, if given)"),
    info("listener_callbacks", "count", "listener callbacks the node has run"),
    info("orphaned_listeners", "count", "listeners on the node for a mutation it has witnessed, none being written: before the bug-1 fix nothing notifies them; with it a duplicate copy still can"),
    info("listeners_skipped", "count", "listener callbacks a duplicate delivery left waiting on the node (bug 1: the duplicate skips finishWriting; 0 with the fix)"),
    info("listeners_expired", "count", "listeners the node's purger expired"),
    info("witnessed", "offsets", "offsets of the log (key) the node has witnessed"),
    info("reconciled", "offsets", "offsets of the log (key) the node knows every replica has"),
    info("journal", "count", "mutations in the node's journal (or whether it holds the mutation key)"),
    info("duplicates", "count", "duplicate deliveries the node received"),
    info("reads_completed", "reads", "reads coordinated by the node that completed"),
    info("reads_timeout", "reads", "reads coordinated by the node that timed out"),
    info("reads_missing", "reads", "reads coordinated by the node that completed missing a mutation"),
    info("reads_pending", "reads", "reads coordinated by the node still pending"),
];

pub const METRICS: &[Info] = &[
    info(
        "reads_pending",
        "reads",
        "at the end: tracked reads still pending, all data nodes",
    ),
    info(
        "reads_completed",
        "reads",
        "tracked reads that completed with every mutation, all data nodes",
    ),
    info(
        "reads_timeout",
        "reads",
        "tracked reads that timed out, all data nodes",
    ),
    info(
        "reads_missing_mutation",
        "reads",
        "tracked reads that completed but missed a mutation (the bug), all data nodes",
    ),
    info(
        "duplicate_deliveries",
        "count",
        "duplicate mutation deliveries received, all nodes",
    ),
    info(
        "listeners_expired",
        "count",
        "listeners expired by the purger, all nodes",
    ),
    info(
        "orphaned_listeners",
        "count",
        "at the end: listeners whose read is gone, all nodes",
    ),
];

pub const PARAMS: &[ParamSpec] = &[
    param("rf", "replicas", Range::Int { min: 0, max: MAX_NODES as i64 }, "replicas of the shard: the first rf nodes; 0: every node (1 is refused, at most the cluster's size)"),
    param("fix_duplicate_notify", "", Range::BOOL, "bug 1 fix: a duplicate mutation still notifies the listeners"),
    param("fix_count", "", Range::BOOL, "bug 2 fix, first version: count the listeners pull() registered first"),
    param("fix_count_final", "", Range::BOOL, "bug 4 fix: count every callback pull() registered (needs fix_count)"),
    param("fix_collect_all_offsets", "", Range::BOOL, "bug 3 fix: collect missing mutations over all offsets, reconciled too"),
    param("write_timeout", "duration", Range::POSITIVE, "write_request_timeout: an unanswered write fails and is pushed again"),
    param("write_retry", "", Range::BOOL, "retry a failed write with PUSH_MUTATION_REQ"),
    param("read_timeout", "duration", Range::POSITIVE, "read_request_timeout: a read coordinator expires after the larger of this and range_timeout"),
    param("range_timeout", "duration", Range::POSITIVE, "range_request_timeout"),
    param("broadcast_interval", "duration", Range::Dur { min: BROADCAST_MIN_US, max: NO_MAX_US, or_zero: true }, "period of BROADCAST_LOG_OFFSETS; \"0s\": off"),
    param("convict_after", "duration", Range::Dur { min: CONVICT_MIN_US, max: NO_MAX_US, or_zero: true }, "failure detector: a peer unheard from for this long is down (pulls go to the summary's sender); \"0s\": always alive"),
    param("purge_interval", "duration", Range::Dur { min: PURGE_MIN_US, max: NO_MAX_US, or_zero: false }, "period of the ExpiredStatePurger"),
    param("task_us", "duration", Range::Dur { min: 0, max: TASK_MAX_US, or_zero: true }, "service time of one ReadStage / MutationStage task"),
    param("load_interval", "duration", Range::Dur { min: LOAD_INTERVAL_MIN_US, max: NO_MAX_US, or_zero: true }, "random load: each replica issues an operation about this often; \"0s\": none"),
    param("load_for", "duration", Range::DUR, "random load stops after this time"),
    param("load_read_share", "probability", Range::PROB, "share of random operations that are tracked reads"),
    param("duplicate", "probability", Range::PROB, "probability a mutation message is sent twice"),
];
