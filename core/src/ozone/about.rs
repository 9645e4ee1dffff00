//! What Ozone's own views, metrics and parameters mean (`crate::catalogue`); Raft's come from
//! `raft::about`.

use super::{MAX_CHUNK_EXECUTORS, MAX_CHUNK_LEN, MAX_CONTAINERS};
use crate::meaning::{info, param, Info, ParamSpec, Range, NO_MAX_US};
use crate::time::US_PER_MS;

pub const VIEW_INFO: &[Info] = &[
    info("container_state", "text", "the state of the container (key) on the datanode: OPEN, CLOSING, CLOSED, UNHEALTHY or missing"),
    info("block_length", "bytes", "bytes of the block (key) written to the datanode's chunk files"),
    info("block_committed", "bytes", "the length of the block (key) the datanode's block table has committed"),
    info("healthy", "text", "\"true\" while the datanode's container state machine is healthy"),
    info("read_failures", "count", "reads the datanode failed (data missing or short)"),
    info("zero_byte_writes", "count", "WriteChunks the datanode counted as written that wrote no bytes (CLOSED_CONTAINER_IO or an injected CHUNK_FILE_INCONSISTENCY)"),
    info("closed_container_writes", "count", "of those, the WriteChunks whose container was already CLOSED (CLOSED_CONTAINER_IO; injected results not counted)"),
    info("result", "text", "the answer the datanode gave the request with this tag (\"none\" before one)"),
    info("data_status", "text", "what became of the WriteChunk data of this log index on the datanode"),
    info("cache_entries", "entries", "WriteChunk data held in the datanode's state-machine cache"),
    info("held_requests", "requests", "requests held at the test's hold point on the datanode"),
    info("leaked_permits", "permits", "pending-request permits the datanode's leader never released"),
    info("bcsid", "index", "the container's block commit sequence id on the datanode"),
    info("pipeline_removed", "text", "\"true\" once the datanode removed the pipeline (ClosePipelineCommand)"),
    info("pipeline_close_cause", "text", "why the datanode first asked SCM to close the pipeline: \"read failed\" (its readStateMachineData failed, PIPELINE_LOG_FAILED), \"apply failed\" (an applyTransaction failed, STATEMACHINE_TRANSACTION_FAILED), \"slow follower\" (as leader, a follower silent past slowness_timeout, PIPELINE_FAILED), \"no leader\" (standing for election with no leader past no_leader_timeout, PIPELINE_FAILED) or \"none\""),
    info("pipeline", "text", "whether SCM sees the pipeline OPEN or CLOSED"),
    info("scm_container_state", "text", "the container's state (key) as SCM records it"),
    info("scm_replica_state", "text", "the state of the datanode's replica of the container (key) as SCM records it"),
    info("scm_sequence_id", "index", "the container's sequence id (key) as SCM records it"),
    info("pipeline_actions", "count", "pipeline actions (close requests) SCM received from datanodes"),
    info("pipeline_closed_by", "text", "the cause of the pipeline action on which SCM closed the pipeline: \"read failed\", \"apply failed\", \"slow follower\", \"no leader\" or \"none\" while it is OPEN"),
];

pub const METRICS: &[Info] = &[
    info(
        "ozone_read_failures",
        "count",
        "reads that failed, all datanodes, over the run",
    ),
    info(
        "ozone_zero_byte_writes",
        "count",
        "the most zero-byte WriteChunks any one datanode applied",
    ),
    info(
        "ozone_unhealthy_datanodes",
        "nodes",
        "at the end: datanodes whose container state machine is unhealthy",
    ),
    info(
        "ozone_pipeline_open",
        "0/1",
        "1 when SCM sees the pipeline OPEN at the end",
    ),
    info(
        "ozone_pipeline_closed",
        "0/1",
        "1 when SCM sees the pipeline CLOSED at the end",
    ),
    info(
        "ozone_client_acked",
        "requests",
        "client WriteChunks acknowledged over the run, all datanodes",
    ),
    info(
        "ozone_client_failed",
        "requests",
        "client WriteChunks that failed over the run, all datanodes",
    ),
];

pub const PARAMS: &[ParamSpec] = &[
    param("containers", "containers", Range::Int { min: 1, max: MAX_CONTAINERS as i64 }, "containers 1..=N, OPEN on every datanode of the pipeline at start"),
    param("chunk_len", "bytes", Range::Int { min: 1, max: MAX_CHUNK_LEN as i64 }, "bytes per WriteChunk of the client load (at most OZONE_SCM_CHUNK_MAX_SIZE)"),
    param("recheck_in_pre_append", "", Range::BOOL, "the HDDS-17673 fix: preAppendTransaction re-checks that the container is still OPEN"),
    param("chunk_write_cost", "duration", Range::DUR, "time a chunk executor takes per WriteChunk data stage"),
    param("chunk_executors", "executors", Range::Int { min: 1, max: MAX_CHUNK_EXECUTORS as i64 }, "hdds.container.ratis.num.write.chunk.threads.per.volume x volumes (one here): a datanode's single-threaded chunk executors ChunkWriter-0.., a WriteChunk's block (localID) mod their count picks one"),
    param("append_wait", "duration", Range::DUR, "a WriteChunk waits uniform [0, append_wait] between startTransaction and appendTransaction"),
    param("close_container_wait", "duration", Range::DUR, "ozone.scm.close.container.wait.duration: SCM holds a close command this long"),
    param("pipeline_destroy_timeout", "duration", Range::DUR, "ozone.scm.pipeline.destroy.timeout: how long a CLOSED pipeline stays before SCM destroys it"),
    param("replication_interval", "duration", Range::Dur { min: US_PER_MS, max: NO_MAX_US, or_zero: false }, "hdds.scm.replication.thread.interval: the ReplicationManager's period"),
    param("heartbeat_interval", "duration", Range::Dur { min: US_PER_MS, max: NO_MAX_US, or_zero: false }, "hdds.heartbeat.interval: a datanode's heartbeat period; SCM's commands to it wait for its next heartbeat"),
    param("wait_on_all_followers", "", Range::BOOL, "hdds.datanode.wait.on.all.followers: the leader keeps WriteChunk data cached until every follower's nextIndex passes it"),
];
