//! Ozone's datanode container state machine on Raft (`protocol = "ozone"`): `Raft<Csm>` with the
//! first `group_size` nodes a RATIS/THREE pipeline of datanodes and one more node the SCM (it
//! runs only the state machine, see `RaftParams::group_size`).
//!
//! Modelled after apache/ozone `ContainerStateMachine` (startTransaction, preAppendTransaction,
//! writeStateMachineData on a chunk-writer executor with the leader's `stateMachineDataCache`,
//! readStateMachineData, applyTransaction, handleCommandResult, notifyGroupRemove),
//! `HddsDispatcher` (validateContainerCommand), `KeyValueHandler` (checkContainerOpen,
//! markContainerForClose, quasiCloseContainer, closeContainer), `ChunkUtils` (the read-back length
//! check), `CloseContainerCommandHandler`, `ClosePipelineCommandHandler`, and SCM's
//! `PipelineActionHandler` / `PipelineManagerImpl`, `CloseContainerEventHandler`,
//! `AbstractContainerReportHandler` and the ReplicationManager's `ClosingContainerHandler`,
//! `QuasiClosedContainerHandler`, `MismatchedReplicasHandler`. See docs/model/ozone.md.
//!
//! Files: this one (the state machine), `node` (requests, results, messages, tasks, timers,
//! per-node state), `commands` (the
//! node commands and client requests: parsing, checks, running them), `dn` (a datanode's
//! container close and pipeline removal), `scm` (SCM: container states, replica reports, pipeline
//! close and destroy, the ReplicationManager), `view` (the `Model` impl).

pub mod about;
mod commands;
mod dn;
mod node;
pub mod scm;
pub mod start;
pub mod view;

pub use dn::{CloseCause, CLOSE_CAUSES};
pub use node::*;
pub use scm::{Replica, Scm};

use crate::engine::trace::LogLevel;
use crate::engine::NodeId;
use crate::raft::sm::{SmCtx, Stage, Start, StateMachine};
use crate::raft::{Index, Term};
use crate::time::Micros;
use std::collections::BTreeMap;

/// `ContainerStateMachine` plus the SCM node.
#[derive(Clone, Debug)]
pub struct Csm {
    pub p: OzoneParams,
    /// The datanodes: nodes 0..dns.
    pub dns: u32,
    pub scm: NodeId,
    /// Preloaded containers and SCM records (`[[ozone.start]]`, `[[ozone.scm_container]]`).
    pub start: start::OzStart,
}

impl Csm {
    /// `KeyValueHandler.checkContainerOpen`: OPEN and CLOSING accept writes (what a leader
    /// appended before CLOSING still arrives), CLOSED/QUASI_CLOSED answer CLOSED_CONTAINER_IO.
    fn check_open(n: &OzNode, c: u32) -> Res {
        match n.state(c) {
            Some(CState::Open | CState::Closing) => Res::Success,
            Some(CState::QuasiClosed | CState::Closed) => Res::ClosedContainerIo,
            Some(CState::Unhealthy) => Res::ContainerUnhealthy,
            None => Res::ContainerInternalError,
        }
    }
    fn record(n: &mut OzNode, cmd: &OzCmd, r: impl Into<String>) {
        if let Some(t) = cmd.tag() {
            n.results.insert(t.to_string(), r.into());
        }
    }
    /// `ContainerStateMachine.getChunkExecutor`: a WriteChunk's block picks its chunk executor,
    /// `blockID.localID % chunkExecutors.size()` (the `k` of [`SmCtx::submit`]).
    pub fn chunk_executor(&self, block: u32) -> u8 {
        (block % self.p.chunk_executors.max(1)) as u8
    }
    fn unhealthy(&self, n: &mut OzNode, c: &mut SmCtx<Self>, why: &str) {
        if n.healthy {
            c.log(
                LogLevel::Warn,
                format_args!("ContainerStateMachine marked unhealthy: {why}"),
            );
        }
        n.healthy = false;
    }
}

impl StateMachine for Csm {
    type Cmd = OzCmd;
    type Reply = Res;
    type Node = OzNode;
    type Task = OzTask;
    type Timer = OzTimer;
    type Msg = OzMsg;
    const EXECUTORS: &'static [&'static str] = EXECUTORS;
    fn executor_count(&self) -> usize {
        crate::raft::RAFT_EXECUTORS.len() + self.p.chunk_executors as usize
    }

    fn wants_follower_next(&self) -> bool {
        self.p.wait_on_all_followers
    }
    /// `ContainerStateMachine.notifyFollowerSlowness` -> `XceiverServerRatis.handleFollowerSlowness`
    /// -> `handlePipelineFailure("slow follower ...")`, on the leader.
    fn follower_slowness(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        follower: NodeId,
        quiet: Micros,
    ) {
        let f = c.ctx.topo.name(follower).to_string();
        let ms = quiet / crate::time::US_PER_MS;
        let detail = format!("LEADER, follower {f} is slow with lastRpcElapsedTime={ms}ms");
        self.handle_pipeline_failure(
            n,
            c,
            CloseCause::SlowFollower,
            &format!("slow follower {f}"),
            &detail,
        );
    }
    /// `ContainerStateMachine.notifyExtendedNoLeader` -> `XceiverServerRatis.handleNoLeader` ->
    /// `handlePipelineFailure("no leader")`, on a follower standing for election.
    fn extended_no_leader(&self, n: &mut OzNode, c: &mut SmCtx<Self>, quiet: Micros) {
        let ms = quiet / crate::time::US_PER_MS;
        let detail = format!("CANDIDATE, lastLeaderElapsedTime={ms}ms");
        self.handle_pipeline_failure(n, c, CloseCause::NoLeader, "no leader", &detail);
    }
    /// `ContainerStateMachine.notifyNotLeader`: a leader that steps down clears
    /// `stateMachineDataCache` (`evictStateMachineCache`).
    fn not_leader(&self, n: &mut OzNode, _c: &mut SmCtx<Self>) {
        n.evict_up_to(Index::MAX);
        // The appenders are gone: nobody waits for their reads (which still run).
        n.reads.clear();
    }
    fn init(&self, id: NodeId) -> OzNode {
        let mut containers: BTreeMap<u32, CState> =
            crate::small_sort::map((1..=self.p.containers).map(|c| (c, CState::Open)));
        if id == self.scm {
            let mut scm_states = containers.clone();
            for (c, (st, _)) in &self.start.scm {
                scm_states.insert(*c, *st);
            }
            let mut scm = Scm::new(&scm_states, self.dns);
            // The replicas as the datanodes' first full reports give them (a container not
            // preloaded on a datanode is OPEN there, whatever SCM's record says); the sequence
            // id as SCM's record says, else the highest BCSID of a healthy replica.
            for d in 0..self.dns {
                for c in containers.keys() {
                    scm.replicas.insert(
                        (*c, d),
                        scm::Replica {
                            state: CState::Open,
                            bcsid: 0,
                        },
                    );
                }
            }
            for (d, m) in self.start.dns.iter().enumerate() {
                for (c, &(state, bcsid)) in m.iter().flatten() {
                    scm.replicas
                        .insert((*c, d as NodeId), scm::Replica { state, bcsid });
                    if state != CState::Unhealthy && !self.start.scm.contains_key(c) {
                        let s = scm.seq.entry(*c).or_insert(0);
                        *s = (*s).max(bcsid);
                    }
                }
            }
            for (c, (_, seq)) in &self.start.scm {
                scm.seq.insert(*c, *seq);
            }
            return OzNode {
                scm: Some(scm),
                healthy: true,
                ..OzNode::default()
            };
        }
        let mut bcsid = BTreeMap::new();
        if let Some(Some(m)) = self.start.dns.get(id as usize) {
            for (c, &(st, b)) in m {
                containers.insert(*c, st);
                if b > 0 {
                    bcsid.insert(*c, b);
                }
            }
        }
        OzNode {
            containers,
            bcsid,
            healthy: true,
            ..OzNode::default()
        }
    }
    /// SCM's ReplicationManager runs on its interval; the model schedules a run only when it
    /// would have work, so a preloaded state that gives it some (`[[ozone.start]]`, e.g.
    /// QUASI_CLOSED replicas) schedules one when SCM starts.
    /// A datanode's heartbeats start with its process (the registration before them is not
    /// modelled).
    fn on_start(&self, n: &mut OzNode, c: &mut SmCtx<Self>) {
        if n.scm.is_none() {
            self.arm_heartbeat(c);
            return;
        }
        if self.start.is_empty() {
            return;
        }
        if let Some(mut s) = n.scm.take() {
            self.schedule_rm(&mut s, c);
            n.scm = Some(s);
        }
    }
    fn on_exit(&self, n: &mut OzNode) {
        n.healthy = true;
        n.unhealthy_containers.clear();
        n.cache.clear();
        n.writes_queued.clear();
        n.reads.clear();
        n.pipeline_action_sent = false;
        n.hold.clear();
        n.held.clear();
        n.inject.clear();
    }
    fn parse_request(&self, w: &[&str]) -> Option<Result<OzCmd, String>> {
        commands::parse_request(w)
    }
    fn load_request(&self, seq: u64) -> OzCmd {
        OzCmd::WriteChunk {
            c: (seq % self.p.containers.max(1) as u64) as u32 + 1,
            block: seq as u32,
            off: 0,
            len: self.p.chunk_len,
            tag: format!("L{seq}"),
        }
    }
    fn describe(&self, cmd: &OzCmd) -> String {
        match cmd {
            OzCmd::WriteChunk {
                c,
                block,
                off,
                len,
                tag,
            } => format!("WriteChunk {tag} c{c} b{block} [{off}, {})", off + len),
            OzCmd::PutBlock { c, block, len, tag } => {
                format!("PutBlock {tag} c{c} b{block} len={len}")
            }
            OzCmd::CloseContainer { c } => format!("CloseContainer c{c}"),
        }
    }

    /// `ContainerStateMachine.startTransaction` -> `HddsDispatcher.validateContainerCommand`:
    /// a write needs its container OPEN (CLOSING is refused); a refusal gets no log index.
    fn start_transaction(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        cmd: &OzCmd,
    ) -> Result<Start, String> {
        if n.pipeline_removed {
            let e = "GroupMismatchException: the pipeline's Raft group was removed".to_string();
            Self::record(n, cmd, "GroupMismatchException");
            return Err(e);
        }
        if let OzCmd::CloseContainer { .. } = cmd {
            return Ok(Start::Ready);
        }
        let cid = cmd.container();
        let st = n.state(cid);
        if st != Some(CState::Open) {
            Self::record(n, cmd, "CONTAINER_NOT_OPEN");
            return Err(format!(
                "ContainerNotOpenException: CONTAINER_NOT_OPEN: container {cid} in {} state (startTransaction)",
                st.map_or("missing", CState::as_str)
            ));
        }
        if n.hold.contains(cmd.kind()) {
            n.next_token += 1;
            let t = n.next_token;
            n.held.push((t, cmd.tag().unwrap_or_default().to_string()));
            c.log(
                LogLevel::Info,
                format_args!(
                    "{} passed startTransaction (container {cid} OPEN) and is held before appendTransaction (CodeInjectionForTesting)",
                    self.describe(cmd)
                ),
            );
            return Ok(Start::Hold(t));
        }
        if self.p.append_wait.0 > 0 && matches!(cmd, OzCmd::WriteChunk { .. }) {
            use rand::Rng;
            n.next_token += 1;
            let t = n.next_token;
            let wait = c.ctx.rng.random_range(0..=self.p.append_wait.0);
            let at = c.ctx.now + wait;
            c.set_timer(OzTimer::Append(t), at);
            return Ok(Start::Hold(t));
        }
        Ok(Start::Ready)
    }

    /// Under the log lock, right before the index: the HDDS-17673 fix re-checks the container.
    fn pre_append_transaction(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        i: Index,
        cmd: &OzCmd,
    ) -> Result<(), String> {
        if !self.p.recheck_in_pre_append || !matches!(cmd, OzCmd::WriteChunk { .. }) {
            return Ok(());
        }
        let cid = cmd.container();
        match n.state(cid) {
            Some(CState::Open) => Ok(()),
            st => {
                Self::record(n, cmd, "CONTAINER_NOT_OPEN");
                c.log(
                    LogLevel::Info,
                    format_args!(
                        "preAppendTransaction: {} rejected before index {i}: container {cid} is {}",
                        self.describe(cmd),
                        st.map_or("missing", CState::as_str)
                    ),
                );
                Err(format!(
                    "StateMachineException(leaderShouldStepDown=false): ContainerNotOpenException: CONTAINER_NOT_OPEN: container {cid} in {} state (preAppendTransaction)",
                    st.map_or("missing", CState::as_str)
                ))
            }
        }
    }

    /// writeStateMachineData: a WriteChunk goes to its block's chunk executor
    /// (`getChunkExecutor(requestProto.getWriteChunk()).submit`); the leader keeps its bytes in
    /// `stateMachineDataCache` for the appenders.
    fn write_data(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        i: Index,
        _t: Term,
        cmd: &OzCmd,
        leader: bool,
    ) -> Stage {
        let OzCmd::WriteChunk {
            c: cid,
            block,
            off,
            len,
            ..
        } = *cmd
        else {
            return Stage::Done;
        };
        if leader {
            n.cache.insert(i, len);
            n.data.insert(i, "cached");
        }
        n.writes_queued.insert(i);
        c.submit(
            self.chunk_executor(block),
            OzTask::ChunkWrite {
                i,
                c: cid,
                block,
                off,
                len,
            },
        );
        Stage::Pending
    }

    /// `ContainerStateMachine.read`: the cache, else readStateMachineData on the block's chunk
    /// executor (`CompletableFuture.runAsync(..., getChunkExecutor(...))`), queued behind what
    /// the executor holds: the entry's own data stage (on a follower that became leader before
    /// it ran), other blocks' writes, other reads. The read runs as [`OzTask::ChunkRead`].
    fn read_data(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        i: Index,
        cmd: &OzCmd,
        to: NodeId,
    ) -> Stage {
        let OzCmd::WriteChunk {
            c: cid,
            block,
            off,
            len,
            ..
        } = *cmd
        else {
            return Stage::Done;
        };
        if n.pipeline_removed {
            // The division is closed: its appender reads nothing more (the model's Raft node
            // goes on trying; docs/model/ozone.md).
            return Stage::Failed("the pipeline's Raft group was removed".into());
        }
        if n.cache.contains_key(&i) {
            n.data.insert(i, "read from cache");
            n.sent(to, i, "cache");
            n.reads.remove(&(i, to));
            return Stage::Done;
        }
        n.next_read += 1;
        let token = n.next_read;
        n.reads.insert((i, to), (token, ChunkRead::Queued));
        c.submit(
            self.chunk_executor(block),
            OzTask::ChunkRead(ReadTask {
                i,
                to,
                token,
                c: cid,
                block,
                off,
                len,
            }),
        );
        Stage::Pending
    }

    /// `EntryWithData.getEntry`: the read's future, once it completed.
    fn poll_data(&self, n: &mut OzNode, _c: &mut SmCtx<Self>, i: Index, to: NodeId) -> Stage {
        match n.reads.get(&(i, to)) {
            Some((_, ChunkRead::Queued)) => Stage::Pending,
            Some((_, ChunkRead::Failed(e))) => {
                let e = e.clone();
                n.reads.remove(&(i, to));
                Stage::Failed(e)
            }
            Some((_, ChunkRead::Done)) => {
                n.reads.remove(&(i, to));
                n.sent(to, i, "disk");
                Stage::Done
            }
            // The cache answered when the batch was built.
            None => Stage::Done,
        }
    }

    /// applyTransaction on the StateMachineUpdater.
    fn apply(&self, n: &mut OzNode, c: &mut SmCtx<Self>, i: Index, cmd: &OzCmd) -> Res {
        if n.pipeline_removed {
            // The group's division is closed: Ratis applies nothing more. The model's Raft node
            // goes on (docs/model/ozone.md); its state machine leaves the containers alone.
            Self::record(n, cmd, "GroupMismatchException");
            c.log(
                LogLevel::Info,
                format_args!(
                    "index {i} ({}) not applied: the pipeline's Raft group was removed",
                    self.describe(cmd)
                ),
            );
            return Res::ContainerNotOpen;
        }
        // The leader's cache eviction at applyTransaction: `removeStateMachineDataIfNeeded`
        // (wait.on.all.followers: up to the lowest follower nextIndex, the entry at it included,
        // as Ozone does) or `removeStateMachineDataIfMajorityFollowSync` (up to this index).
        let evict_to = match (c.is_leader, self.p.wait_on_all_followers) {
            (false, _) => None,
            (true, true) => c.min_follower_next.map(|m| m.min(i)),
            (true, false) => Some(i),
        };
        if let Some(upto) = evict_to {
            n.evict_up_to(upto);
        }
        let cid = cmd.container();
        let r = match cmd {
            OzCmd::WriteChunk { .. } | OzCmd::PutBlock { .. }
                if !n.healthy && n.unhealthy_containers.contains(&cid) =>
            {
                Res::ContainerUnhealthy
            }
            OzCmd::WriteChunk { .. } => Self::check_open(n, cid),
            OzCmd::PutBlock { block, len, .. } => {
                let r = Self::check_open(n, cid);
                if r == Res::Success {
                    n.blocks.insert((cid, *block), *len);
                    let b = n.bcsid.entry(cid).or_insert(0);
                    *b = (*b).max(i);
                }
                r
            }
            // KeyValueHandler.handleCloseContainer: markContainerForClose, then closeContainer.
            OzCmd::CloseContainer { .. } => match n.state(cid) {
                None => Res::ContainerInternalError,
                Some(_) => {
                    self.mark_for_close(n, c, cid);
                    match self.close_container(
                        n,
                        c,
                        cid,
                        format_args!("CloseContainer applied at index {i}"),
                    ) {
                        Ok(()) => Res::Success,
                        Err(r) => r,
                    }
                }
            },
        };
        Self::record(n, cmd, r.as_str());
        if !r.tolerated() {
            n.unhealthy_containers.insert(cid);
            self.unhealthy(n, c, &format!("applyTransaction of index {i}: {r}"));
            // XceiverServerRatis.handleApplyTransactionFailure.
            let role = if c.is_leader { "LEADER" } else { "FOLLOWER" };
            let me = c.ctx.topo.name(c.ctx.me).to_string();
            self.trigger_pipeline_close(
                n,
                c,
                CloseCause::ApplyFailed,
                format!("Ratis Transaction failure in datanode {me} with role {role} .Triggering pipeline close action."),
            );
        }
        r
    }

    fn on_task(&self, n: &mut OzNode, c: &mut SmCtx<Self>, t: OzTask) {
        let (i, cid, block, off, len) = match t {
            OzTask::ChunkWrite {
                i,
                c: cid,
                block,
                off,
                len,
            } => (i, cid, block, off, len),
            OzTask::ChunkRead(r) => {
                self.chunk_read(n, c, r);
                return;
            }
        };
        n.writes_queued.remove(&i);
        // checkContainerHealthy(skipContainerUnhealthyCheck = true), then
        // KeyValueHandler.handleWriteChunk -> checkContainerOpen.
        let (r, checked) = if !n.healthy {
            (Res::ContainerUnhealthy, false)
        } else if let Some(r) = n.inject.pop_front() {
            c.log(
                LogLevel::Warn,
                format_args!(
                    "ChunkWriter-{}: WriteChunk index {i} meets the injected {r}",
                    self.chunk_executor(block)
                ),
            );
            (r, false)
        } else {
            (Self::check_open(n, cid), true)
        };
        if r == Res::Success {
            let f = n.files.entry((cid, block)).or_insert(0);
            *f = (*f).max(off + len);
        } else if r.tolerated() && !n.pipeline_removed {
            n.zero_byte_writes += 1;
            if checked && r == Res::ClosedContainerIo {
                n.closed_container_writes += 1;
            }
        }
        let status = match (n.cache.contains_key(&i), r == Res::Success) {
            (true, true) => "cached, written",
            (true, false) => "cached, zero bytes",
            (false, true) => "written",
            (false, false) => "zero bytes",
        };
        n.data.insert(i, status);
        c.log(
            if r == Res::Success {
                LogLevel::Info
            } else {
                LogLevel::Warn
            },
            format_args!(
                "ChunkWriter-{}: WriteChunk index {i} c{cid} b{block}: {r}, {} bytes written{}",
                self.chunk_executor(block),
                if r == Res::Success { len } else { 0 },
                if r != Res::Success && r.tolerated() {
                    " (handleCommandResult counts it as success)"
                } else {
                    ""
                }
            ),
        );
        // HddsDispatcher.dispatchRequest: a write the handler answered with a result
        // `canIgnoreException` does not ignore (not SUCCESS, CLOSED_CONTAINER_IO,
        // CONTAINER_UNHEALTHY...) marks its OPEN or CLOSING container UNHEALTHY: the injected
        // results. The apply of the same WriteChunk then answers CONTAINER_UNHEALTHY.
        if !checked
            && matches!(r, Res::ChunkFileInconsistency | Res::ContainerInternalError)
            && matches!(n.state(cid), Some(CState::Open | CState::Closing))
        {
            self.mark_unhealthy(n, c, cid);
        }
        if !r.tolerated() {
            n.unhealthy_containers.insert(cid);
            self.unhealthy(n, c, &format!("writeStateMachineData of index {i}: {r}"));
            // Ratis would fail the log write with the data stage; here the stage completes and
            // the apply answers CONTAINER_UNHEALTHY (see docs/model/ozone.md).
        }
        c.data_written(i);
    }

    fn on_message(&self, n: &mut OzNode, c: &mut SmCtx<Self>, from: NodeId, m: OzMsg) {
        if let Some(scm) = n.scm.as_mut() {
            self.scm_message(scm, c, from, m);
            return;
        }
        match m {
            OzMsg::CloseContainer { c: cid, force } => {
                self.close_container_command(n, c, cid, force)
            }
            OzMsg::ClosePipeline => self.close_pipeline_command(n, c),
            OzMsg::GroupRemove => {
                self.remove_group(n, c, format_args!("removed by {}", c.ctx.topo.name(from)))
            }
            OzMsg::Heartbeat
            | OzMsg::PipelineActionClose { .. }
            | OzMsg::ContainerReport { .. } => {}
        }
    }
    fn msg_label(&self, m: &OzMsg) -> &'static str {
        match m {
            OzMsg::Heartbeat => "HEARTBEAT",
            OzMsg::PipelineActionClose { .. } => "PIPELINE_ACTION",
            OzMsg::CloseContainer { .. } => "CLOSE_CONTAINER_CMD",
            OzMsg::ClosePipeline => "CLOSE_PIPELINE_CMD",
            OzMsg::GroupRemove => "GROUP_REMOVE",
            OzMsg::ContainerReport { .. } => "CONTAINER_REPORT",
        }
    }
    fn render_msg(&self, m: &OzMsg) -> String {
        match m {
            OzMsg::Heartbeat => "heartbeat".into(),
            OzMsg::PipelineActionClose { cause, reason } => {
                format!("PipelineAction CLOSE ({}): {reason}", cause.reason_code())
            }
            OzMsg::CloseContainer { c, force } => {
                format!(
                    "CloseContainerCommand c{c}{}",
                    if *force { " force" } else { "" }
                )
            }
            OzMsg::ClosePipeline => "ClosePipelineCommand".into(),
            OzMsg::GroupRemove => "groupRemove (the pipeline's Raft group)".into(),
            OzMsg::ContainerReport { c, state, bcsid, n } => {
                format!(
                    "container report #{n}: c{c} {} bcsid={bcsid}",
                    state.as_str()
                )
            }
        }
    }
    fn request_forms(&self) -> &'static [&'static str] {
        &[
            "client-write-chunk TAG CONTAINER BLOCK LEN [OFFSET]",
            "client-put-block TAG CONTAINER BLOCK LEN",
        ]
    }
    fn command_forms(&self, scm: bool) -> &'static [&'static str] {
        commands::command_forms(scm)
    }
    fn check_command(&self, w: &[&str]) -> Result<(), String> {
        self.check_node_command(w)
    }
    fn is_command(&self, w: &[&str]) -> bool {
        commands::is_command(w)
    }
    fn command(&self, n: &mut OzNode, c: &mut SmCtx<Self>, w: &[&str]) -> Result<(), String> {
        self.node_command(n, c, w)
    }
    fn on_timer(&self, n: &mut OzNode, c: &mut SmCtx<Self>, t: OzTimer) {
        match (t, n.scm.as_mut()) {
            (OzTimer::Append(token), _) => c.resume(token, Ok(())),
            (t, Some(scm)) => self.scm_timer(scm, c, t),
            (OzTimer::Heartbeat, None) => {
                c.send(self.scm, OzMsg::Heartbeat);
                self.arm_heartbeat(c);
            }
            (_, None) => {}
        }
    }
    fn timer_label(&self, t: &OzTimer) -> &'static str {
        match t {
            OzTimer::Append(_) => "append-wait",
            OzTimer::CloseLease { .. } => "close-container-lease",
            OzTimer::DestroyPipeline => "pipeline-destroy",
            OzTimer::ReplicationMonitor => "replication-monitor",
            OzTimer::Heartbeat => "datanode-heartbeat",
        }
    }
    fn service_us(&self, _n: &OzNode, t: &OzTask) -> Micros {
        match t {
            OzTask::ChunkWrite { .. } => self.p.chunk_write_cost.0,
            // The bytes were just written: a page-cache read, a tenth of the write's cost.
            OzTask::ChunkRead(_) => self.p.chunk_write_cost.0 / 10,
        }
    }
    fn task_label(&self, t: &OzTask) -> &'static str {
        match t {
            OzTask::ChunkWrite { .. } => "write-chunk",
            OzTask::ChunkRead(_) => "read-chunk",
        }
    }
    fn views_json(&self, n: &OzNode) -> serde_json::Value {
        if let Some(scm) = &n.scm {
            return scm.json();
        }
        serde_json::json!({
            "healthy": n.healthy,
            "containers": crate::small_sort::map(n.containers.iter().map(|(k, v)| (k.to_string(), v.as_str()))),
            "block_files": crate::small_sort::map(n.files.iter().map(|((c, b), l)| (format!("{c}/{b}"), *l))),
            "blocks_committed": crate::small_sort::map(n.blocks.iter().map(|((c, b), l)| (format!("{c}/{b}"), *l))),
            "cache": crate::small_sort::map(n.cache.iter().map(|(i, l)| (i.to_string(), *l))),
            "data": crate::small_sort::map(n.data.iter().map(|(i, s)| (i.to_string(), *s))),
            "held": n.held.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>(),
            "read_failures": n.read_failures,
            "zero_byte_writes": n.zero_byte_writes,
            "closed_container_writes": n.closed_container_writes,
            "pipeline_removed": n.pipeline_removed,
            "pipeline_close_cause": CloseCause::text(n.close_cause),
            "bcsid": crate::small_sort::map(n.bcsid.iter().map(|(c, b)| (c.to_string(), *b))),
            "results": n.results,
        })
    }
}

#[cfg(test)]
mod testbed;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_close;
#[cfg(test)]
mod tests_exec;
#[cfg(test)]
mod tests_health;
#[cfg(test)]
mod tests_read;
#[cfg(test)]
mod tests_start;
