//! Ozone's requests and results, the datanode container states, the messages, tasks and timers,
//! and one node's state (a datanode's containers and state machine, or SCM's).

use super::dn::CloseCause;
use super::scm::Scm;
use crate::engine::action::Dur;
use crate::engine::NodeId;
use crate::raft::{Index, RAFT_EXECUTORS};
use crate::time::{US_PER_MS, US_PER_S};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The most chunk executors a datanode may have (`chunk_executors`).
pub const MAX_CHUNK_EXECUTORS: u32 = 64;

/// Every executor an Ozone datanode may have: Raft's three, then the chunk executors of
/// `XceiverServerRatis.createChunkExecutors` (single-threaded executors, named as their threads
/// are, `ChunkWriter-<i>`); a run has the first [`OzoneParams::chunk_executors`] of these.
pub const EXECUTORS: &[&str] = &[
    RAFT_EXECUTORS[0],
    RAFT_EXECUTORS[1],
    RAFT_EXECUTORS[2],
    "ChunkWriter-0",
    "ChunkWriter-1",
    "ChunkWriter-2",
    "ChunkWriter-3",
    "ChunkWriter-4",
    "ChunkWriter-5",
    "ChunkWriter-6",
    "ChunkWriter-7",
    "ChunkWriter-8",
    "ChunkWriter-9",
    "ChunkWriter-10",
    "ChunkWriter-11",
    "ChunkWriter-12",
    "ChunkWriter-13",
    "ChunkWriter-14",
    "ChunkWriter-15",
    "ChunkWriter-16",
    "ChunkWriter-17",
    "ChunkWriter-18",
    "ChunkWriter-19",
    "ChunkWriter-20",
    "ChunkWriter-21",
    "ChunkWriter-22",
    "ChunkWriter-23",
    "ChunkWriter-24",
    "ChunkWriter-25",
    "ChunkWriter-26",
    "ChunkWriter-27",
    "ChunkWriter-28",
    "ChunkWriter-29",
    "ChunkWriter-30",
    "ChunkWriter-31",
    "ChunkWriter-32",
    "ChunkWriter-33",
    "ChunkWriter-34",
    "ChunkWriter-35",
    "ChunkWriter-36",
    "ChunkWriter-37",
    "ChunkWriter-38",
    "ChunkWriter-39",
    "ChunkWriter-40",
    "ChunkWriter-41",
    "ChunkWriter-42",
    "ChunkWriter-43",
    "ChunkWriter-44",
    "ChunkWriter-45",
    "ChunkWriter-46",
    "ChunkWriter-47",
    "ChunkWriter-48",
    "ChunkWriter-49",
    "ChunkWriter-50",
    "ChunkWriter-51",
    "ChunkWriter-52",
    "ChunkWriter-53",
    "ChunkWriter-54",
    "ChunkWriter-55",
    "ChunkWriter-56",
    "ChunkWriter-57",
    "ChunkWriter-58",
    "ChunkWriter-59",
    "ChunkWriter-60",
    "ChunkWriter-61",
    "ChunkWriter-62",
    "ChunkWriter-63",
];

/// The Ozone keys of `[params]` (the rest are Raft's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OzoneParams {
    /// Containers 1..=containers, OPEN on every datanode of the pipeline at start.
    pub containers: u32,
    /// Bytes per WriteChunk of the generated client load.
    pub chunk_len: u64,
    /// The HDDS-17673 fix: `preAppendTransaction` re-checks that a WriteChunk's container is
    /// still OPEN and rejects it (StateMachineException, leaderShouldStepDown=false) otherwise.
    pub recheck_in_pre_append: bool,
    /// Time a chunk executor takes per WriteChunk data stage.
    pub chunk_write_cost: Dur,
    /// The datanode's chunk executors (`XceiverServerRatis.createChunkExecutors`):
    /// `hdds.container.ratis.num.write.chunk.threads.per.volume` (Ozone's default 10; its
    /// integration tests use 4) times the datanode's volumes (`hdds.datanode.dir`; the model's
    /// datanode has one), each a single thread. `ContainerStateMachine.getChunkExecutor` runs a
    /// WriteChunk's data stage, and the appender's read of its data, on executor
    /// `blockID.localID % chunk_executors` (the model's block number is the local ID).
    pub chunk_executors: u32,
    /// Time a WriteChunk spends between startTransaction and appendTransaction without the hold
    /// point, uniform in [0, append_wait] per request: the gRPC handler thread waiting for the
    /// Raft server's lock under load (not FIFO, so a later CloseContainer can overtake it).
    /// "0s" (the default): appendTransaction follows at once.
    pub append_wait: Dur,
    /// `ozone.scm.close.container.wait.duration`: SCM's `CloseContainerEventHandler` holds a
    /// close command for this long (a lease, for clients to finish their allocated blocks)
    /// before it goes to the datanodes. Ozone's default 150 s; its integration tests use 1 s.
    pub close_container_wait: Dur,
    /// `ozone.scm.pipeline.destroy.timeout`: how long a CLOSED pipeline stays before SCM
    /// destroys it and sends the `ClosePipelineCommand` (Ozone's default 66 s; the scrubber's
    /// period is not modelled).
    pub pipeline_destroy_timeout: Dur,
    /// `hdds.scm.replication.thread.interval`: the ReplicationManager runs at every multiple of
    /// it (Ozone's default 300 s).
    pub replication_interval: Dur,
    /// `hdds.heartbeat.interval`: a running datanode heartbeats SCM this often (a message, at
    /// every multiple of it: the datanodes start together), and SCM's commands to it (close
    /// container, close pipeline) wait in SCM's command queue for its next heartbeat that
    /// arrives (`SCMNodeManager.processHeartbeat` hands them out in the response): a datanode
    /// that is down or cut off from SCM gets them when it heartbeats again. A report or
    /// pipeline action triggers a heartbeat at once (`DatanodeStateMachine.triggerHeartbeat`),
    /// which takes the queued commands too. Ozone's default 30 s; its integration tests use 1 s.
    pub heartbeat_interval: Dur,
    /// `hdds.datanode.wait.on.all.followers` (Ozone's default false): the leader keeps a
    /// WriteChunk's data in `stateMachineDataCache` until every follower's nextIndex passes it
    /// (`removeStateMachineDataIfNeeded`), not only until it is applied
    /// (`removeStateMachineDataIfMajorityFollowSync`), so a lagging follower is served from the
    /// cache instead of the block file.
    pub wait_on_all_followers: bool,
}

/// `OzoneConsts.OZONE_SCM_CHUNK_MAX_SIZE`: the largest chunk (the gRPC message limit), 32 MiB.
pub const MAX_CHUNK_LEN: u64 = 32 * 1024 * 1024;
/// The most containers of a pipeline.
pub const MAX_CONTAINERS: u32 = 64;
/// `ozone.scm.block.size` (default 256 MiB): a chunk ends within its block.
pub const MAX_BLOCK_LEN: u64 = 256 * 1024 * 1024;

pub const OZONE_KEYS: &[&str] = &[
    "containers",
    "chunk_len",
    "recheck_in_pre_append",
    "chunk_write_cost",
    "chunk_executors",
    "append_wait",
    "close_container_wait",
    "pipeline_destroy_timeout",
    "replication_interval",
    "heartbeat_interval",
    "wait_on_all_followers",
];

impl Default for OzoneParams {
    fn default() -> Self {
        OzoneParams {
            containers: 2,
            chunk_len: 1024,
            recheck_in_pre_append: false,
            chunk_write_cost: Dur(US_PER_MS),
            chunk_executors: 10,
            append_wait: Dur(0),
            close_container_wait: Dur(150 * US_PER_S),
            pipeline_destroy_timeout: Dur(66 * US_PER_S),
            replication_interval: Dur(300 * US_PER_S),
            heartbeat_interval: Dur(30 * US_PER_S),
            wait_on_all_followers: false,
        }
    }
}

/// Container states (`ContainerProtos.ContainerDataProto.State`; at SCM the
/// `HddsProtos.LifeCycleState` of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CState {
    Open,
    Closing,
    QuasiClosed,
    Closed,
    Unhealthy,
}

impl CState {
    pub fn as_str(self) -> &'static str {
        match self {
            CState::Open => "OPEN",
            CState::Closing => "CLOSING",
            CState::QuasiClosed => "QUASI_CLOSED",
            CState::Closed => "CLOSED",
            CState::Unhealthy => "UNHEALTHY",
        }
    }
}

/// Container command results (`ContainerProtos.Result`, the ones the model produces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Res {
    Success,
    ContainerNotOpen,
    ClosedContainerIo,
    ChunkFileInconsistency,
    ContainerUnhealthy,
    ContainerInternalError,
}

impl Res {
    pub fn as_str(self) -> &'static str {
        match self {
            Res::Success => "SUCCESS",
            Res::ContainerNotOpen => "CONTAINER_NOT_OPEN",
            Res::ClosedContainerIo => "CLOSED_CONTAINER_IO",
            Res::ChunkFileInconsistency => "CHUNK_FILE_INCONSISTENCY",
            Res::ContainerUnhealthy => "CONTAINER_UNHEALTHY",
            Res::ContainerInternalError => "CONTAINER_INTERNAL_ERROR",
        }
    }
    /// `ContainerStateMachine.handleCommandResult` / applyTransaction: these do not make the
    /// state machine unhealthy.
    pub fn tolerated(self) -> bool {
        matches!(
            self,
            Res::Success
                | Res::ContainerNotOpen
                | Res::ClosedContainerIo
                | Res::ChunkFileInconsistency
        )
    }
}

impl fmt::Display for Res {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A container command carried by the Raft log. `tag` names a client request for the views.
#[derive(Clone, Debug, PartialEq)]
pub enum OzCmd {
    WriteChunk {
        c: u32,
        block: u32,
        off: u64,
        len: u64,
        tag: String,
    },
    PutBlock {
        c: u32,
        block: u32,
        len: u64,
        tag: String,
    },
    CloseContainer {
        c: u32,
    },
}

impl OzCmd {
    pub fn kind(&self) -> &'static str {
        match self {
            OzCmd::WriteChunk { .. } => "WriteChunk",
            OzCmd::PutBlock { .. } => "PutBlock",
            OzCmd::CloseContainer { .. } => "CloseContainer",
        }
    }
    pub fn container(&self) -> u32 {
        match self {
            OzCmd::WriteChunk { c, .. }
            | OzCmd::PutBlock { c, .. }
            | OzCmd::CloseContainer { c } => *c,
        }
    }
    pub(super) fn tag(&self) -> Option<&str> {
        match self {
            OzCmd::WriteChunk { tag, .. } | OzCmd::PutBlock { tag, .. } => Some(tag),
            OzCmd::CloseContainer { .. } => None,
        }
    }
}

/// Datanode <-> SCM (heartbeats and the commands they carry), and the Raft group removal between
/// datanodes.
#[derive(Clone, Debug, PartialEq)]
pub enum OzMsg {
    /// Datanode -> SCM: the periodic heartbeat (`HeartbeatEndpointTask`); SCM answers with the
    /// commands queued for the datanode.
    Heartbeat,
    /// Datanode heartbeat: `PipelineAction` CLOSE (`XceiverServerRatis.triggerPipelineClose`):
    /// its cause (`ClosePipelineInfo.Reason`) and detailed reason.
    PipelineActionClose { cause: CloseCause, reason: String },
    /// SCM -> datanode: `CloseContainerCommand`; `force` closes a QUASI_CLOSED replica (or one
    /// without a pipeline) CLOSED without Raft.
    CloseContainer { c: u32, force: bool },
    /// SCM -> datanode: `ClosePipelineCommand` (the datanode removes the Raft group, on its
    /// peers first).
    ClosePipeline,
    /// Datanode -> datanode: `ClosePipelineCommandHandler` removes the group on a peer
    /// (`GroupManagementApi.remove`).
    GroupRemove,
    /// Datanode -> SCM: an incremental container report (ICR) of one replica: its state and
    /// block commit sequence id (BCSID); the replica's origin is the datanode. `n` numbers the
    /// datanode's reports: they travel in order on its heartbeats, where the model's links may
    /// reorder two messages, so SCM drops a report older than one it has for the replica.
    ContainerReport {
        c: u32,
        state: CState,
        bcsid: u64,
        n: u64,
    },
}

#[derive(Clone, Debug)]
pub enum OzTask {
    /// The data stage of WriteChunk `i` on its block's chunk executor.
    ChunkWrite {
        i: Index,
        c: u32,
        block: u32,
        off: u64,
        len: u64,
    },
    /// The leader's appender needs WriteChunk `i`'s data for follower `to` and the cache does
    /// not hold it: `ContainerStateMachine.read` runs `readStateMachineData` on the block's
    /// chunk executor (`CompletableFuture.runAsync(..., getChunkExecutor(writeChunk))`), behind
    /// whatever that executor has queued (the entry's own data stage, other blocks' writes).
    ChunkRead(ReadTask),
}

/// An appender's read of WriteChunk `i`'s data for follower `to`: chunk `off..off + len` of
/// block `block` of container `c`. `token` tells this read from a later one of the same entry
/// (a new batch reads again).
#[derive(Clone, Copy, Debug)]
pub struct ReadTask {
    pub i: Index,
    pub to: NodeId,
    pub token: u64,
    pub c: u32,
    pub block: u32,
    pub off: u64,
    pub len: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OzTimer {
    /// A WriteChunk's wait between startTransaction and appendTransaction (`append_wait`).
    Append(u64),
    /// SCM: the `close_container_wait` lease of close `k` of container `c` ends: the
    /// CloseContainerCommand goes out.
    CloseLease { c: u32, k: u64 },
    /// SCM: the CLOSED pipeline is destroyed (`pipeline_destroy_timeout`).
    DestroyPipeline,
    /// SCM: a ReplicationManager run.
    ReplicationMonitor,
    /// A datanode's periodic heartbeat to SCM (`HeartbeatEndpointTask`, at every multiple of
    /// `heartbeat_interval` while it runs).
    Heartbeat,
}

/// An appender's read of a chunk from disk (`readStateMachineData`'s future).
#[derive(Clone, Debug, PartialEq)]
pub enum ChunkRead {
    /// On its chunk executor, not run yet.
    Queued,
    Done,
    Failed(String),
}

/// One node: a datanode's containers and state machine, or SCM.
#[derive(Clone, Debug, Default)]
pub struct OzNode {
    pub scm: Option<Scm>,
    // -- on disk
    pub containers: BTreeMap<u32, CState>,
    /// Block file lengths on disk, by (container, block).
    pub files: BTreeMap<(u32, u32), u64>,
    /// Committed block lengths (PutBlock applied), by (container, block).
    pub blocks: BTreeMap<(u32, u32), u64>,
    /// Block commit sequence id per container: the log index of the last PutBlock applied
    /// (`BlockManagerImpl.putBlock`), 0 before any.
    pub bcsid: BTreeMap<u32, u64>,
    /// The pipeline's Raft group was removed (ClosePipelineCommand, or a peer's).
    pub pipeline_removed: bool,
    /// Container reports sent (numbers them; kept across restarts).
    pub reports: u64,
    // -- volatile
    /// `stateMachineHealthy`.
    pub healthy: bool,
    pub unhealthy_containers: BTreeSet<u32>,
    /// The leader's `stateMachineDataCache`: log index -> bytes.
    pub cache: BTreeMap<Index, u64>,
    /// WriteChunk data stages queued on their chunk executors, not yet run.
    pub writes_queued: BTreeSet<Index>,
    /// The leader's appender reads from disk ([`OzTask::ChunkRead`]), by (index, follower):
    /// the read's token and where it is.
    pub reads: BTreeMap<(Index, NodeId), (u64, ChunkRead)>,
    pub next_read: u64,
    pub pipeline_action_sent: bool,
    /// Why this datanode first asked SCM to close the pipeline in the run (kept across
    /// restarts; `pipeline_action_sent` is per process).
    pub close_cause: Option<CloseCause>,
    /// The request kinds held at the hold point (between startTransaction and appendTransaction):
    /// `WriteChunk` (the reproduction's `hold-writes`), `PutBlock`.
    pub hold: BTreeSet<&'static str>,
    /// Results the next WriteChunk data stages answer instead of writing (`inject-write-result`),
    /// oldest first.
    pub inject: std::collections::VecDeque<Res>,
    pub held: Vec<(u64, String)>,
    pub next_token: u64,
    // -- what the run showed (kept across restarts)
    pub read_failures: u64,
    /// WriteChunk data stages that wrote no byte and still counted as success
    /// (`handleCommandResult` tolerates CLOSED_CONTAINER_IO, and CHUNK_FILE_INCONSISTENCY, which
    /// only `inject-write-result` makes here), while the pipeline was in place (after SCM
    /// removed it, QUASI_CLOSED containers refuse what the leader still sends).
    pub zero_byte_writes: u64,
    /// Of those, the ones whose container check answered CLOSED_CONTAINER_IO (`checkContainerOpen`
    /// of a CLOSED container: the WriteChunk was appended after its container closed, the
    /// HDDS-17673 race); injected results are not counted.
    pub closed_container_writes: u64,
    /// Result of each tagged request as this node saw it (rejection, data stage or apply).
    pub results: BTreeMap<String, String>,
    /// Data status per log index: "cached" (data stage queued), "cached, written",
    /// "cached, zero bytes", "written, evicted", "zero bytes, evicted" (leader); "written",
    /// "zero bytes" (follower); "read from cache", "read from disk", "read failed" (the last
    /// read of the leader's appender).
    pub data: BTreeMap<Index, &'static str>,
    /// Where the leader's appender took each entry's data from, per follower: (follower,
    /// index) -> "cache", "disk" or "read failed"; the last [`SENT_KEPT`] per follower.
    pub sent_from: BTreeMap<(NodeId, Index), &'static str>,
}

/// Entries per follower kept in [`OzNode::sent_from`].
pub const SENT_KEPT: usize = 32;

impl OzNode {
    /// Note where entry `i`'s data for follower `to` came from.
    pub(super) fn sent(&mut self, to: NodeId, i: Index, from: &'static str) {
        self.sent_from.insert((to, i), from);
        let mine = self.sent_from.range((to, 0)..=(to, Index::MAX));
        if mine.clone().count() > SENT_KEPT {
            let oldest = *mine.clone().next().expect("non-empty").0;
            self.sent_from.remove(&oldest);
        }
    }

    pub fn state(&self, c: u32) -> Option<CState> {
        self.containers.get(&c).copied()
    }

    pub fn bcsid(&self, c: u32) -> u64 {
        self.bcsid.get(&c).copied().unwrap_or(0)
    }
}
