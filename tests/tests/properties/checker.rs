//! The invariants `properties.rs` checks after every step: over the trace (incrementally) and
//! the nodes' state.

use super::*;
use clusterscope_core::engine::trace::RecKind;
use std::collections::HashSet;

/// Invariants over the trace (checked incrementally) and the nodes' state.
pub(super) struct Checker {
    /// Node status as the trace's NodeStatus records tell it, in order.
    statuses: Vec<NodeStatus>,
    send_ids: HashSet<u64>,
    last_rec_time: u64,
    recs_checked: usize,
    /// Each node's own generation when last checked on this timeline.
    gens: Vec<u32>,
    pub(super) last_now: u64,
}

impl Checker {
    pub(super) fn new(run: &Run) -> Self {
        let n = run.sim_of::<Gossip>().unwrap().nodes.len();
        let mut c = Checker {
            statuses: vec![NodeStatus::Stopped; n],
            send_ids: HashSet::new(),
            last_rec_time: 0,
            recs_checked: 0,
            gens: vec![0; n],
            last_now: 0,
        };
        c.rebaseline(run);
        c
    }

    /// Forget what was learnt from the trace (after the future was discarded) and take the
    /// current state as the new baseline for monotonic checks (after a jump back).
    pub(super) fn rescan(&mut self, run: &Run) {
        self.statuses.fill(NodeStatus::Stopped);
        self.send_ids.clear();
        self.last_rec_time = 0;
        self.recs_checked = 0;
        self.rebaseline(run);
    }

    pub(super) fn rebaseline(&mut self, run: &Run) {
        let sim = run.sim_of::<Gossip>().unwrap();
        for (i, slot) in sim.nodes.iter().enumerate() {
            self.gens[i] = slot.state.generation();
        }
        self.last_now = sim.now;
    }

    /// Check the trace records added since the last call and the current state. Call it only
    /// when the cursor is at the frontier (the state belongs to the end of the trace).
    pub(super) fn check(&mut self, run: &Run) -> Result<(), String> {
        let sim = run.sim_of::<Gossip>().unwrap();
        let trace = run.trace();
        let topo = &sim.topo;
        let name = |i: u32| topo.name(i).to_string();
        if sim.steps != trace.steps {
            return Err(format!(
                "checked off the frontier: steps {} vs trace {}",
                sim.steps, trace.steps
            ));
        }
        if trace.recs.len() < self.recs_checked {
            return Err(format!(
                "the trace shrank from {} to {} records without a past action",
                self.recs_checked,
                trace.recs.len()
            ));
        }
        for r in trace.recs.range(self.recs_checked..) {
            if r.time < self.last_rec_time {
                return Err(format!(
                    "time went backwards in the trace: {} after {} ({r:?})",
                    r.time, self.last_rec_time
                ));
            }
            self.last_rec_time = r.time;
            if r.time > sim.now {
                return Err(format!("record after now {}: {r:?}", sim.now));
            }
            match r.kind {
                RecKind::NodeStatus { status } => self.statuses[r.node as usize] = status,
                RecKind::Deliver { msg, from, .. }
                    if self.statuses[r.node as usize] == NodeStatus::Stopped =>
                {
                    return Err(format!(
                        "message {msg} from {} delivered to {} while it is stopped: {r:?}",
                        name(from),
                        name(r.node)
                    ));
                }
                RecKind::Send {
                    msg, deliver_at, ..
                } => {
                    if !self.send_ids.insert(msg) {
                        return Err(format!("message id {msg} sent twice: {r:?}"));
                    }
                    if deliver_at < r.time {
                        return Err(format!("delivery before sending: {r:?}"));
                    }
                }
                _ => {}
            }
        }
        self.recs_checked = trace.recs.len();
        if sim.now < self.last_now {
            return Err(format!(
                "now went backwards: {} -> {}",
                self.last_now, sim.now
            ));
        }
        self.last_now = sim.now;
        for (i, slot) in sim.nodes.iter().enumerate() {
            let id = i as u32;
            if slot.status != self.statuses[i] {
                return Err(format!(
                    "{} is {:?} but the trace says {:?}",
                    name(id),
                    slot.status,
                    self.statuses[i]
                ));
            }
            let g = &slot.state;
            let gen = g.generation();
            if gen < self.gens[i] {
                return Err(format!(
                    "{}'s own generation went down: {} -> {gen}",
                    name(id),
                    self.gens[i]
                ));
            }
            self.gens[i] = gen;
            if !g.sees_up(id) {
                return Err(format!("{} sees itself DOWN", name(id)));
            }
            if g.live.contains(&id) || g.unreachable.contains_key(&id) {
                return Err(format!(
                    "{} lists itself as a live or unreachable peer",
                    name(id)
                ));
            }
            if g.map_len() != sim.nodes.len() || g.fd.len() != sim.nodes.len() {
                return Err(format!("{}'s map does not cover the cluster", name(id)));
            }
        }
        Ok(())
    }
}
