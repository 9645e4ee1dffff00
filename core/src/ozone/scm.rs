//! SCM (the last node): container life cycle states, the replicas' reports, the pipeline's close
//! and destruction, and the ReplicationManager's close rules. After apache/ozone
//! `SCMClientProtocolServer.closeContainer`, `CloseContainerEventHandler` (the close command waits
//! `close_container_wait`), `PipelineActionHandler` -> `PipelineManagerImpl.closePipeline`
//! (containers CLOSING, pipeline CLOSED; the ClosePipelineCommand only when the scrubber destroys
//! it, `pipeline_destroy_timeout` later: HDDS-9479), `AbstractContainerReportHandler`
//! (updateContainerStats, updateContainerState) and the ReplicationManager's
//! `ClosingContainerHandler`, `QuasiClosedContainerHandler`, `MismatchedReplicasHandler`.

use super::{CState, CloseCause, Csm, OzMsg, OzTimer};
use crate::engine::trace::LogLevel;
use crate::engine::NodeId;
use crate::raft::sm::SmCtx;
use std::collections::BTreeMap;

/// What SCM knows of one replica: the state and BCSID of its last report it accepted. Its
/// origin (`originNodeId`) is the datanode holding it (the model has no replication copies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replica {
    pub state: CState,
    pub bcsid: u64,
}

/// SCM's state (on the SCM node only).
#[derive(Clone, Debug, Default)]
pub struct Scm {
    /// The pipeline is OPEN (else CLOSED).
    pub pipeline_open: bool,
    /// The CLOSED pipeline was destroyed: its ClosePipelineCommands went out.
    pub pipeline_destroyed: bool,
    /// Each container's life cycle state.
    pub containers: BTreeMap<u32, CState>,
    /// `ContainerInfo.sequenceId`: the highest BCSID a healthy replica reported.
    pub seq: BTreeMap<u32, u64>,
    /// (container, datanode) -> the replica as last reported. At start every datanode's replica
    /// is OPEN with BCSID 0 (as after the datanodes' first reports).
    pub replicas: BTreeMap<(u32, NodeId), Replica>,
    /// (container, datanode) -> the number of the newest report processed.
    pub report_no: BTreeMap<(u32, NodeId), u64>,
    pub pipeline_actions: u64,
    /// The cause of the pipeline action that moved the pipeline to CLOSED.
    pub closed_by: Option<CloseCause>,
    /// Close leases taken (numbers them).
    pub leases: u64,
    /// A ReplicationManager run is scheduled.
    pub rm_pending: bool,
    /// `SCMNodeManager`'s command queue: the commands for each datanode, oldest first, handed
    /// out with the response to its next heartbeat that arrives (they wait while it is down or
    /// cut off; SCM's dead-node handling, which clears them after
    /// `ozone.scm.dead.node.interval`, 10 min, is not modelled).
    pub queued: BTreeMap<NodeId, Vec<OzMsg>>,
}

impl Scm {
    pub fn new(containers: &BTreeMap<u32, CState>, dns: NodeId) -> Scm {
        Scm {
            pipeline_open: true,
            containers: containers.clone(),
            seq: crate::small_sort::map(containers.keys().map(|c| (*c, 0))),
            replicas: crate::small_sort::map(containers.iter().flat_map(|(c, s)| {
                (0..dns).map(move |d| {
                    (
                        (*c, d),
                        Replica {
                            state: *s,
                            bcsid: 0,
                        },
                    )
                })
            })),
            ..Scm::default()
        }
    }

    pub fn state(&self, c: u32) -> Option<CState> {
        self.containers.get(&c).copied()
    }

    pub fn replica(&self, c: u32, d: NodeId) -> Option<Replica> {
        self.replicas.get(&(c, d)).copied()
    }

    fn replicas_of(&self, c: u32) -> impl Iterator<Item = (NodeId, Replica)> + '_ {
        self.replicas
            .range((c, 0)..=(c, NodeId::MAX))
            .map(|((_, d), r)| (*d, *r))
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "scm": {
                "pipeline": if self.pipeline_open { "OPEN" } else { "CLOSED" },
                "pipeline_destroyed": self.pipeline_destroyed,
                "containers": crate::small_sort::map(self.containers.iter().map(|(k, v)| (k.to_string(), v.as_str()))),
                "sequence_ids": crate::small_sort::map(self.seq.iter().map(|(k, v)| (k.to_string(), *v))),
                "pipeline_actions": self.pipeline_actions,
                "pipeline_closed_by": CloseCause::text(self.closed_by),
            }
        })
    }

    /// `QuasiClosedContainerHandler.canForceCloseContainer`: QUASI_CLOSED or UNHEALTHY replicas
    /// from as many distinct origins as the replication factor (all of them: "we can only force
    /// close the container if we have seen all the replicas from unique origins"), and a
    /// QUASI_CLOSED one with the highest BCSID among them. Returns that BCSID.
    fn force_close_bcsid(&self, c: u32, factor: usize) -> Option<u64> {
        let (mut origins, mut max_qc, mut max_unhealthy) = (0, None, None);
        for (_, r) in self.replicas_of(c) {
            match r.state {
                CState::QuasiClosed => {
                    origins += 1;
                    max_qc = max_qc.max(Some(r.bcsid));
                }
                CState::Unhealthy => {
                    origins += 1;
                    max_unhealthy = max_unhealthy.max(Some(r.bcsid));
                }
                _ => {}
            }
        }
        match max_qc {
            Some(q) if Some(q) >= max_unhealthy && origins >= factor => Some(q),
            _ => None,
        }
    }

    /// `MismatchedReplicasHandler.getTransitionState` for a CLOSED or QUASI_CLOSED container:
    /// an OPEN or CLOSING replica is sent a close (not forced: a Ratis replica goes to
    /// QUASI_CLOSED without its pipeline); a QUASI_CLOSED replica of a CLOSED container whose
    /// BCSID is the container's is force-closed. `Some(force)` when a command is due.
    fn mismatched(&self, c: u32, r: Replica) -> Option<bool> {
        let st = self.state(c)?;
        if !matches!(st, CState::Closed | CState::QuasiClosed) {
            return None;
        }
        match r.state {
            CState::Open | CState::Closing => Some(false),
            CState::QuasiClosed
                if st == CState::Closed && Some(r.bcsid) == self.seq.get(&c).copied() =>
            {
                Some(true)
            }
            _ => None,
        }
    }

    /// Whether a ReplicationManager run now would send a command or change a state (a run with
    /// nothing to do is not simulated).
    fn rm_has_work(&self, factor: usize) -> bool {
        self.containers.iter().any(|(&c, &st)| match st {
            CState::Closing => self.replicas_of(c).next().is_some(),
            _ => {
                (st == CState::QuasiClosed && self.force_close_bcsid(c, factor).is_some())
                    || self
                        .replicas_of(c)
                        .any(|(_, r)| self.mismatched(c, r).is_some())
            }
        })
    }
}

impl Csm {
    fn transition(&self, s: &mut Scm, c: &mut SmCtx<Self>, cid: u32, event: &str, to: CState) {
        let from = s.state(cid).map_or("missing", CState::as_str);
        s.containers.insert(cid, to);
        c.log(
            LogLevel::Info,
            format_args!("SCM: {event} container {cid}: {from} -> {}", to.as_str()),
        );
    }

    /// A command for datanode `d` (the DATANODE_COMMAND event): `SCMNodeManager` queues it until
    /// a heartbeat from `d` arrives.
    fn queue_command(&self, s: &mut Scm, d: NodeId, m: OzMsg) {
        s.queued.entry(d).or_default().push(m);
    }

    /// `SCMNodeManager.processHeartbeat`: a heartbeat from `d` (periodic, or triggered by a
    /// report or pipeline action) is answered with every command queued for it.
    fn heartbeat_from(&self, s: &mut Scm, c: &mut SmCtx<Self>, d: NodeId) {
        for m in s.queued.remove(&d).unwrap_or_default() {
            c.send(d, m);
        }
    }

    /// `ReplicationManager.sendCloseContainerReplicaCommand` (no lease).
    fn send_close(&self, s: &mut Scm, d: NodeId, cid: u32, force: bool) {
        self.queue_command(s, d, OzMsg::CloseContainer { c: cid, force });
    }

    /// `SCMClientProtocolServer.closeContainer` (`ozone admin container close`): only an OPEN
    /// container; then the CLOSE_CONTAINER event.
    pub(super) fn scm_close_container(
        &self,
        s: &mut Scm,
        c: &mut SmCtx<Self>,
        cid: u32,
    ) -> Result<(), String> {
        match s.state(cid) {
            Some(CState::Open) => {}
            Some(st) => {
                return Err(format!(
                    "close-container: cannot close a {} container ({cid}); only an OPEN one",
                    st.as_str()
                ))
            }
            None => {
                return Err(format!(
                    "close-container: no container {cid}; containers are 1 to {}",
                    s.containers.len()
                ))
            }
        }
        self.fire_close_container(s, c, cid);
        self.schedule_rm(s, c);
        Ok(())
    }

    /// `CloseContainerEventHandler.onMessage`: FINALIZE an OPEN container (CLOSING); a CLOSING
    /// one gets a (not forced) CloseContainerCommand to every datanode of the pipeline once the
    /// lease of `close_container_wait` ends.
    fn fire_close_container(&self, s: &mut Scm, c: &mut SmCtx<Self>, cid: u32) {
        if s.state(cid) == Some(CState::Open) {
            self.transition(s, c, cid, "FINALIZE", CState::Closing);
        }
        if s.state(cid) != Some(CState::Closing) {
            return;
        }
        s.leases += 1;
        let wait = self.p.close_container_wait.0;
        c.log(
            LogLevel::Info,
            format_args!(
                "CloseContainerEventHandler: container {cid} CLOSING; the close command goes out in {}",
                crate::time::fmt_duration(wait)
            ),
        );
        c.set_timer(
            OzTimer::CloseLease {
                c: cid,
                k: s.leases,
            },
            c.ctx.now + wait,
        );
    }

    /// `PipelineActionHandler` -> `PipelineManagerImpl.closePipeline`: close the pipeline's
    /// containers (FINALIZE the OPEN ones, a close event for every CLOSING one) and move the
    /// pipeline to CLOSED; it is destroyed (ClosePipelineCommand) `pipeline_destroy_timeout`
    /// later. An action for a destroyed pipeline gets a ClosePipelineCommand back.
    fn pipeline_action(
        &self,
        s: &mut Scm,
        c: &mut SmCtx<Self>,
        from: NodeId,
        cause: CloseCause,
        reason: &str,
    ) {
        s.pipeline_actions += 1;
        c.log(
            LogLevel::Warn,
            format_args!(
                "PipelineActionHandler: CLOSE from {} ({}, Reason : {reason})",
                c.ctx.topo.name(from),
                cause.reason_code()
            ),
        );
        if s.pipeline_destroyed {
            self.queue_command(s, from, OzMsg::ClosePipeline);
            return;
        }
        let ids: Vec<u32> = s.containers.keys().copied().collect();
        for cid in ids {
            self.fire_close_container(s, c, cid);
        }
        if s.pipeline_open {
            s.pipeline_open = false;
            s.closed_by = Some(cause);
            c.log(LogLevel::Warn, "SCM: pipeline moved to CLOSED state");
            c.set_timer(
                OzTimer::DestroyPipeline,
                c.ctx.now + self.p.pipeline_destroy_timeout.0,
            );
        }
    }

    /// `AbstractContainerReportHandler.processContainerReplica` for an incremental report:
    /// updateContainerStats (the sequence id), updateContainerState, and the replica is
    /// recorded unless its BCSID mismatched a CLOSED report.
    fn on_report(
        &self,
        s: &mut Scm,
        c: &mut SmCtx<Self>,
        from: NodeId,
        cid: u32,
        rep: Replica,
        no: u64,
    ) {
        let Some(st) = s.state(cid) else {
            return;
        };
        let last = s.report_no.entry((cid, from)).or_insert(0);
        if no <= *last {
            return; // overtaken by a newer report of the replica (heartbeats are in order)
        }
        *last = no;
        let seq = s.seq.entry(cid).or_insert(0);
        if rep.state != CState::Unhealthy && *seq < rep.bcsid {
            *seq = rep.bcsid;
        }
        let seq = *seq;
        let mut record = true;
        let closed = |s: &mut Scm, c: &mut SmCtx<Self>, event: &str| {
            if rep.bcsid != seq {
                c.log(
                    LogLevel::Warn,
                    format_args!(
                        "SCM: replica BCSID mismatched for container {cid} from {}: {} (container {seq})",
                        c.ctx.topo.name(from),
                        rep.bcsid
                    ),
                );
                false
            } else {
                self.transition(s, c, cid, event, CState::Closed);
                true
            }
        };
        match (st, rep.state) {
            (CState::Open, r) if r != CState::Open => {
                self.transition(s, c, cid, "FINALIZE", CState::Closing)
            }
            (CState::Closing, CState::QuasiClosed) => {
                self.transition(s, c, cid, "QUASI_CLOSE", CState::QuasiClosed)
            }
            (CState::Closing, CState::Closed) => record = closed(s, c, "CLOSE"),
            (CState::QuasiClosed, CState::Closed) => record = closed(s, c, "FORCE_CLOSE"),
            _ => {}
        }
        if record {
            s.replicas.insert((cid, from), rep);
        }
        self.schedule_rm(s, c);
    }

    /// Schedule the next ReplicationManager run (the next multiple of `replication_interval`)
    /// if it would have something to do.
    pub(super) fn schedule_rm(&self, s: &mut Scm, c: &mut SmCtx<Self>) {
        if s.rm_pending || !s.rm_has_work(self.dns as usize) {
            return;
        }
        s.rm_pending = true;
        let iv = self.p.replication_interval.0.max(1);
        c.set_timer(OzTimer::ReplicationMonitor, (c.ctx.now / iv + 1) * iv);
    }

    /// One ReplicationManager run over every container: `ClosingContainerHandler` (a CLOSING
    /// container: a close to every replica not UNHEALTHY; all UNHEALTHY: QUASI_CLOSE; the chain
    /// stops there), `QuasiClosedContainerHandler` (force-close the QUASI_CLOSED replicas with the
    /// highest BCSID when every origin reported), `MismatchedReplicasHandler`.
    fn rm_run(&self, s: &mut Scm, c: &mut SmCtx<Self>) {
        let ids: Vec<(u32, CState)> = s.containers.iter().map(|(k, v)| (*k, *v)).collect();
        for (cid, st) in ids {
            let reps: Vec<(NodeId, Replica)> = s.replicas_of(cid).collect();
            if st == CState::Closing {
                let live: Vec<NodeId> = reps
                    .iter()
                    .filter(|(_, r)| r.state != CState::Unhealthy)
                    .map(|(d, _)| *d)
                    .collect();
                for &d in &live {
                    self.send_close(s, d, cid, false);
                }
                if !live.is_empty() {
                    c.log(
                        LogLevel::Info,
                        format_args!(
                            "ReplicationManager: container {cid} CLOSING: close commands to its {} replica(s) again",
                            live.len()
                        ),
                    );
                } else if !reps.is_empty() {
                    self.transition(
                        s,
                        c,
                        cid,
                        "QUASI_CLOSE (only UNHEALTHY replicas)",
                        CState::QuasiClosed,
                    );
                }
                continue;
            }
            if st == CState::QuasiClosed {
                match s.force_close_bcsid(cid, self.dns as usize) {
                    Some(b) => {
                        c.log(
                            LogLevel::Info,
                            format_args!(
                                "ReplicationManager: force closing container {cid} with BCSID {b}, which is in QUASI_CLOSED state"
                            ),
                        );
                        for (d, r) in &reps {
                            if r.state == CState::QuasiClosed && r.bcsid == b {
                                self.send_close(s, *d, cid, true);
                            }
                        }
                    }
                    None => c.log(
                        LogLevel::Info,
                        format_args!(
                            "ReplicationManager: container {cid} cannot be force closed and is stuck in QUASI_CLOSED"
                        ),
                    ),
                }
            }
            for (d, r) in &reps {
                if let Some(force) = s.mismatched(cid, *r) {
                    c.log(
                        LogLevel::Info,
                        format_args!(
                            "ReplicationManager: mismatched replica of {} container {cid} on {} ({}): close{}",
                            st.as_str(),
                            c.ctx.topo.name(*d),
                            r.state.as_str(),
                            if force { " (force)" } else { "" }
                        ),
                    );
                    self.send_close(s, *d, cid, force);
                }
            }
        }
    }

    pub(super) fn scm_message(&self, s: &mut Scm, c: &mut SmCtx<Self>, from: NodeId, m: OzMsg) {
        // Every message from a datanode travels on a heartbeat: the commands queued before it
        // go back in its response.
        if from < self.dns {
            self.heartbeat_from(s, c, from);
        }
        match m {
            OzMsg::PipelineActionClose { cause, reason } => {
                self.pipeline_action(s, c, from, cause, &reason)
            }
            OzMsg::ContainerReport {
                c: cid,
                state,
                bcsid,
                n,
            } => self.on_report(s, c, from, cid, Replica { state, bcsid }, n),
            OzMsg::Heartbeat
            | OzMsg::CloseContainer { .. }
            | OzMsg::ClosePipeline
            | OzMsg::GroupRemove => {}
        }
    }

    pub(super) fn scm_timer(&self, s: &mut Scm, c: &mut SmCtx<Self>, t: OzTimer) {
        match t {
            OzTimer::CloseLease { c: cid, .. } => {
                // The lease's callback sends the command it was created with, whatever the
                // container's state now.
                c.log(
                    LogLevel::Info,
                    format_args!(
                        "SCM: CloseContainerCommand c{cid} to every datanode of the pipeline, with its next heartbeat"
                    ),
                );
                for d in 0..self.dns {
                    self.send_close(s, d, cid, false);
                }
            }
            OzTimer::DestroyPipeline => {
                s.pipeline_destroyed = true;
                c.log(
                    LogLevel::Warn,
                    "SCM: scrubbing the pipeline (CLOSED for ozone.scm.pipeline.destroy.timeout): removed; ClosePipelineCommand queued for its datanodes",
                );
                for d in 0..self.dns {
                    self.queue_command(s, d, OzMsg::ClosePipeline);
                }
            }
            OzTimer::ReplicationMonitor => {
                s.rm_pending = false;
                self.rm_run(s, c);
                self.schedule_rm(s, c);
            }
            OzTimer::Heartbeat | OzTimer::Append(_) => {}
        }
    }
}
