//! A datanode's container close and pipeline removal: `KeyValueHandler.markContainerForClose`,
//! `quasiCloseContainer` and `closeContainer` (each state change sends an incremental container
//! report to SCM), `CloseContainerCommandHandler`, `ClosePipelineCommandHandler` and
//! `ContainerStateMachine.notifyGroupRemove`.

use super::{CState, ChunkRead, Csm, OzCmd, OzMsg, OzNode, OzTimer, ReadTask, Res};
use crate::engine::trace::LogLevel;
use crate::raft::sm::SmCtx;
use std::fmt;

/// Why a datanode asked SCM to close the pipeline: which `XceiverServerRatis` handler called
/// `triggerPipelineClose`. The model raises four of Ozone's five; `handleInstallSnapshotFromLeader`
/// (no snapshots here) is not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseCause {
    /// The leader's `readStateMachineData` failed (the chunk range read back from the block
    /// file is short: "Unexpected read size"): Ratis' `SegmentedRaftLog.getEntryWithData` calls
    /// `notifyLogFailed`, and `handleNodeLogFailure` raises the close with reason
    /// PIPELINE_LOG_FAILED.
    ReadFailed,
    /// An `applyTransaction` answered a result `handleCommandResult` does not tolerate (e.g.
    /// CONTAINER_UNHEALTHY): `handleApplyTransactionFailure`, reason
    /// STATEMACHINE_TRANSACTION_FAILED.
    ApplyFailed,
    /// On the leader, a follower silent for longer than `slowness_timeout`
    /// (`hdds.ratis.raft.server.rpc.slowness.timeout`, 300 s): Ratis' `notifyFollowerSlowness`,
    /// `handleFollowerSlowness` -> `handlePipelineFailure`, reason PIPELINE_FAILED.
    SlowFollower,
    /// A follower standing for election with no leader known for longer than
    /// `no_leader_timeout` (`hdds.ratis.raft.server.notification.no-leader.timeout`, 300 s):
    /// Ratis' `notifyExtendedNoLeader`, `handleNoLeader` -> `handlePipelineFailure`, reason
    /// PIPELINE_FAILED.
    NoLeader,
}

/// The values of the views `pipeline_close_cause` and `pipeline_closed_by`.
pub const CLOSE_CAUSES: &[&str] = &[
    "none",
    "read failed",
    "apply failed",
    "slow follower",
    "no leader",
];

impl CloseCause {
    pub fn as_str(self) -> &'static str {
        match self {
            CloseCause::ReadFailed => "read failed",
            CloseCause::ApplyFailed => "apply failed",
            CloseCause::SlowFollower => "slow follower",
            CloseCause::NoLeader => "no leader",
        }
    }
    /// `ClosePipelineInfo.Reason`.
    pub fn reason_code(self) -> &'static str {
        match self {
            CloseCause::ReadFailed => "PIPELINE_LOG_FAILED",
            CloseCause::ApplyFailed => "STATEMACHINE_TRANSACTION_FAILED",
            CloseCause::SlowFollower | CloseCause::NoLeader => "PIPELINE_FAILED",
        }
    }
    /// The view's text for an optional cause ("none" without one).
    pub fn text(c: Option<CloseCause>) -> &'static str {
        c.map_or("none", CloseCause::as_str)
    }
}

impl OzNode {
    /// Drop the leader's cached WriteChunk data up to index `upto` (`removeCacheDataUpTo`;
    /// `Index::MAX`: all of it, `evictStateMachineCache`).
    pub(super) fn evict_up_to(&mut self, upto: crate::raft::Index) {
        let keep = self.cache.split_off(&upto.saturating_add(1));
        for k in std::mem::replace(&mut self.cache, keep).into_keys() {
            if let Some(d) = self.data.get_mut(&k) {
                *d = match *d {
                    "cached, zero bytes" => "zero bytes, evicted",
                    // A data stage still queued: its status is set when it runs.
                    "cached" => "cached",
                    _ => "written, evicted",
                };
            }
        }
    }
}

impl Csm {
    /// An incremental container report (ICR) of one replica to SCM (`sendICR`: at once, with a
    /// triggered heartbeat).
    fn icr(&self, n: &mut OzNode, c: &mut SmCtx<Self>, cid: u32) {
        if let Some(state) = n.state(cid) {
            n.reports += 1;
            c.send(
                self.scm,
                OzMsg::ContainerReport {
                    c: cid,
                    state,
                    bcsid: n.bcsid(cid),
                    n: n.reports,
                },
            );
        }
    }

    /// `KeyValueHandler.markContainerUnhealthy` (the container scanner's verdict, or the
    /// `mark-unhealthy` command): any state but UNHEALTHY becomes UNHEALTHY, and an ICR.
    pub(super) fn mark_unhealthy(&self, n: &mut OzNode, c: &mut SmCtx<Self>, cid: u32) {
        match n.state(cid) {
            Some(CState::Unhealthy) | None => {}
            Some(st) => {
                n.containers.insert(cid, CState::Unhealthy);
                c.log(
                    LogLevel::Warn,
                    format_args!(
                        "markContainerUnhealthy: container {cid} {} -> UNHEALTHY",
                        st.as_str()
                    ),
                );
                self.icr(n, c, cid);
            }
        }
    }

    /// The datanode's next periodic heartbeat (`DatanodeStateMachine`'s loop, every
    /// `hdds.heartbeat.interval`): at the next multiple of the interval.
    pub(super) fn arm_heartbeat(&self, c: &mut SmCtx<Self>) {
        let iv = self.p.heartbeat_interval.0.max(1);
        c.set_timer(OzTimer::Heartbeat, (c.ctx.now / iv + 1) * iv);
    }

    /// `XceiverServerRatis.triggerPipelineClose`: a PipelineAction CLOSE with its
    /// `ClosePipelineInfo.Reason` and detail on the next heartbeat, once per pipeline
    /// (`isPipelineCloseInProgress`). The first cause of the run is kept for the view
    /// `pipeline_close_cause`.
    pub(super) fn trigger_pipeline_close(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        cause: CloseCause,
        reason: String,
    ) {
        if n.pipeline_action_sent {
            return;
        }
        n.pipeline_action_sent = true;
        n.close_cause.get_or_insert(cause);
        c.log(
            LogLevel::Warn,
            format_args!(
                "pipeline Action CLOSE on the pipeline ({}, {}). Reason : {reason}",
                cause.reason_code(),
                cause.as_str()
            ),
        );
        c.send(self.scm, OzMsg::PipelineActionClose { cause, reason });
    }

    /// `XceiverServerRatis.handlePipelineFailure`, which `handleFollowerSlowness` and
    /// `handleNoLeader` call: a PipelineAction CLOSE with reason PIPELINE_FAILED, its detail
    /// naming this datanode, `reason` and the role's `detail` (`trigger_pipeline_close`).
    pub(super) fn handle_pipeline_failure(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        cause: CloseCause,
        reason: &str,
        detail: &str,
    ) {
        let me = c.ctx.topo.name(c.ctx.me).to_string();
        let text = format!("{me} handlePipelineFailure for {reason}: {detail}");
        self.trigger_pipeline_close(n, c, cause, text);
    }

    /// `KeyValueHandler.markContainerForClose`: OPEN -> CLOSING (and an ICR); any other state is
    /// left alone (its deferred ICR, which reports no change, is not modelled).
    pub(super) fn mark_for_close(&self, n: &mut OzNode, c: &mut SmCtx<Self>, cid: u32) {
        if n.state(cid) == Some(CState::Open) {
            n.containers.insert(cid, CState::Closing);
            c.log(
                LogLevel::Info,
                format_args!("markContainerForClose: container {cid} OPEN -> CLOSING"),
            );
            self.icr(n, c, cid);
        }
    }

    /// `KeyValueHandler.quasiCloseContainer`: CLOSING -> QUASI_CLOSED (and an ICR); idempotent on
    /// QUASI_CLOSED; any other state is an error ("Cannot quasi close container").
    pub(super) fn quasi_close(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        cid: u32,
        reason: &str,
    ) -> Result<(), String> {
        match n.state(cid) {
            Some(CState::QuasiClosed) => Ok(()),
            Some(CState::Closing) => {
                n.containers.insert(cid, CState::QuasiClosed);
                c.log(
                    LogLevel::Warn,
                    format_args!("container {cid} CLOSING -> QUASI_CLOSED ({reason})"),
                );
                self.icr(n, c, cid);
                Ok(())
            }
            st => Err(format!(
                "Cannot quasi close container #{cid} while in {} state.",
                st.map_or("missing", CState::as_str)
            )),
        }
    }

    /// `KeyValueHandler.closeContainer`: CLOSING or QUASI_CLOSED -> CLOSED (and an ICR);
    /// idempotent on CLOSED; UNHEALTHY answers CONTAINER_UNHEALTHY, OPEN (never marked)
    /// CONTAINER_INTERNAL_ERROR.
    pub(super) fn close_container(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        cid: u32,
        how: fmt::Arguments,
    ) -> Result<(), Res> {
        match n.state(cid) {
            Some(CState::Closed) => Ok(()),
            Some(st @ (CState::Closing | CState::QuasiClosed)) => {
                n.containers.insert(cid, CState::Closed);
                c.log(
                    LogLevel::Info,
                    format_args!("container {cid} {} -> CLOSED ({how})", st.as_str()),
                );
                self.icr(n, c, cid);
                Ok(())
            }
            Some(CState::Unhealthy) => Err(Res::ContainerUnhealthy),
            Some(CState::Open) | None => Err(Res::ContainerInternalError),
        }
    }

    /// `CloseContainerCommandHandler.handle`: mark the container CLOSING, then, while it is
    /// OPEN or CLOSING, close it through the pipeline's Raft group (a follower's submit answers
    /// NotLeaderException, which the handler ignores), or without the group CLOSED if forced and
    /// QUASI_CLOSED otherwise; a QUASI_CLOSED replica closes only if forced.
    pub(super) fn close_container_command(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        cid: u32,
        force: bool,
    ) {
        if n.state(cid).is_none() {
            c.log(
                LogLevel::Info,
                format_args!(
                    "Container #{cid} does not exist in datanode. Container close failed."
                ),
            );
            return;
        }
        self.mark_for_close(n, c, cid);
        match n.state(cid) {
            Some(CState::Open | CState::Closing) if !n.pipeline_removed => {
                c.log(
                    LogLevel::Info,
                    format_args!(
                        "CloseContainerCommandHandler: submitting CloseContainer c{cid} to the local Raft server{}",
                        if c.is_leader {
                            ""
                        } else {
                            " (a follower answers NotLeaderException, which the handler ignores)"
                        }
                    ),
                );
                c.submit_request(OzCmd::CloseContainer { c: cid });
            }
            Some(CState::Open | CState::Closing) if force => {
                let _ = self.close_container(n, c, cid, format_args!("forced by SCM, no pipeline"));
            }
            Some(CState::Open | CState::Closing) => {
                let _ = self.quasi_close(n, c, cid, "Ratis pipeline does not exist");
            }
            Some(CState::QuasiClosed) if force => {
                let _ = self.close_container(n, c, cid, format_args!("forced by SCM"));
            }
            _ => {}
        }
    }

    /// `ClosePipelineCommandHandler.handle`: remove the group on the peers first (their
    /// `GroupMismatchException` ignored), then here.
    pub(super) fn close_pipeline_command(&self, n: &mut OzNode, c: &mut SmCtx<Self>) {
        if n.pipeline_removed {
            return;
        }
        let me = c.ctx.me;
        for d in (0..self.dns).filter(|d| *d != me) {
            c.send(d, OzMsg::GroupRemove);
        }
        self.remove_group(n, c, format_args!("ClosePipelineCommand"));
    }

    /// The Raft group is removed here: the state machine refuses further requests
    /// (GroupMismatchException) and `notifyGroupRemove` quasi-closes every container that is not
    /// CLOSED or UNHEALTHY (markContainerForClose, then quasiCloseContainer; errors ignored).
    pub(super) fn remove_group(&self, n: &mut OzNode, c: &mut SmCtx<Self>, why: fmt::Arguments) {
        if n.pipeline_removed {
            return;
        }
        n.pipeline_removed = true;
        c.log(
            LogLevel::Warn,
            format_args!("the pipeline's Raft group is removed ({why})"),
        );
        let ids: Vec<u32> = n.containers.keys().copied().collect();
        for cid in ids {
            self.mark_for_close(n, c, cid);
            if let Err(e) = self.quasi_close(n, c, cid, "Ratis group removed") {
                c.log(
                    LogLevel::Debug,
                    format_args!("Failed to quasi-close container {cid}: {e}"),
                );
            }
        }
    }

    /// An appender's read runs on its chunk executor (`readStateMachineData`): the chunk range
    /// read back from the block file (`ChunkUtils`: fewer bytes than the chunk is "Unexpected
    /// read size"). A failure marks the state machine unhealthy and the container in
    /// `unhealthyContainers`, and the future's failure reaches Ratis' `getEntryWithData`
    /// callback, `notifyLogFailed` -> `handleNodeLogFailure`, even when the appender no longer
    /// waits for this read (it timed out, or a newer read of the entry replaced it).
    pub(super) fn chunk_read(&self, n: &mut OzNode, c: &mut SmCtx<Self>, r: ReadTask) {
        let ReadTask {
            i,
            to,
            token,
            c: cid,
            block,
            off,
            len,
        } = r;
        let have = n.files.get(&(cid, block)).copied().unwrap_or(0);
        let outcome = if have >= off + len {
            n.data.insert(i, "read from disk");
            ChunkRead::Done
        } else {
            n.read_failures += 1;
            n.data.insert(i, "read failed");
            n.sent(to, i, "read failed");
            let msg = format!("Unexpected read size. expected: {len}, actual: -1");
            c.log(
                LogLevel::Warn,
                format_args!(
                    "ChunkWriter-{}: ReadStateMachine failed. cmd WriteChunk logIndex {i} msg : {msg} Container Result: CONTAINER_INTERNAL_ERROR",
                    self.chunk_executor(block)
                ),
            );
            n.unhealthy_containers.insert(cid);
            self.unhealthy(n, c, "readStateMachineData failed");
            self.trigger_pipeline_close(n, c, CloseCause::ReadFailed, msg.clone());
            ChunkRead::Failed(msg)
        };
        if let Some((t, st)) = n.reads.get_mut(&(i, to)) {
            if *t == token {
                *st = outcome;
                c.data_read(i);
            }
        }
    }
}
