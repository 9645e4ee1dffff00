//! Time series for the plots, sampled while the engine advances.
//!
//! Samples describe the computed history (up to the frontier): the simulation is deterministic, so
//! replaying a region gives the same values and nothing is re-sampled. Memory is bounded by
//! construction: the interval is a fixed fraction of the scenario's duration, so a run holds at
//! most about [`TARGET_SAMPLES`] samples.

use clusterscope_core::engine::{NodeId, NodeStatus, Sim};
use clusterscope_core::gossip::{view, Gossip};
use clusterscope_core::time::Micros;

/// Samples over a whole run (the interval is `duration / TARGET_SAMPLES`).
pub const TARGET_SAMPLES: u64 = 1200;
/// Shortest sample interval (virtual time).
pub const MIN_INTERVAL_US: Micros = 20_000;
/// Clusters up to this size sample every observer's phi row; larger ones only the selected node's.
pub const FULL_PHI_NODES: usize = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    pub n: usize,
    pub interval_us: Micros,
    pub times: Vec<Micros>,
    /// (observer, peer) pairs, both running, where the observer sees the peer DOWN.
    pub down_pairs: Vec<u32>,
    /// GossipStage pending tasks, `n` per sample.
    pub stage_pending: Vec<u32>,
    /// phi values: `n * n` per sample when `n <= FULL_PHI_NODES`, else `n` (one observer's row).
    pub phi: Vec<f32>,
    /// The observer of each sample's phi row (only meaningful for large clusters).
    pub phi_observer: Vec<NodeId>,
}

impl Samples {
    pub fn new(n: usize, duration_us: Micros) -> Self {
        Samples {
            n,
            interval_us: (duration_us / TARGET_SAMPLES).max(MIN_INTERVAL_US),
            times: Vec::new(),
            down_pairs: Vec::new(),
            stage_pending: Vec::new(),
            phi: Vec::new(),
            phi_observer: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    fn full_phi(&self) -> bool {
        self.n <= FULL_PHI_NODES
    }

    /// The virtual time at which the next sample is due.
    pub fn next_due(&self) -> Micros {
        match self.times.last() {
            None => 0,
            Some(t) => (t / self.interval_us + 1) * self.interval_us,
        }
    }

    /// Take a sample of `sim` if one is due.
    pub fn maybe_sample(&mut self, sim: &Sim<Gossip>, observer: Option<NodeId>) {
        if sim.now >= self.next_due() {
            self.sample(sim, observer);
        }
    }

    fn sample(&mut self, sim: &Sim<Gossip>, observer: Option<NodeId>) {
        debug_assert_eq!(sim.nodes.len(), self.n);
        self.times.push(sim.now);
        self.down_pairs.push(view::down_pairs(sim).len() as u32);
        for slot in &sim.nodes {
            self.stage_pending.push(slot.exec_stats[0].pending);
        }
        let phi_row = |o: usize, out: &mut Vec<f32>| {
            let g = &sim.nodes[o].state;
            let running = sim.nodes[o].status == NodeStatus::Running;
            for p in 0..sim.nodes.len() {
                let v = if running && p != o {
                    view::phi_of(sim, g, p as NodeId).unwrap_or(0.0)
                } else {
                    0.0
                };
                out.push(v as f32);
            }
        };
        if self.full_phi() {
            for o in 0..self.n {
                phi_row(o, &mut self.phi);
            }
            self.phi_observer.push(0);
        } else {
            let o = observer.unwrap_or(0);
            phi_row(o as usize, &mut self.phi);
            self.phi_observer.push(o);
        }
    }

    /// Forget samples after `t` (the user changed the future).
    pub fn truncate_after(&mut self, t: Micros) {
        let k = self.times.partition_point(|x| *x <= t);
        self.times.truncate(k);
        self.down_pairs.truncate(k);
        self.stage_pending.truncate(k * self.n);
        let row = if self.full_phi() {
            self.n * self.n
        } else {
            self.n
        };
        self.phi.truncate(k * row);
        self.phi_observer.truncate(k);
    }

    /// GossipStage pending of `node` at sample `i`.
    pub fn pending(&self, i: usize, node: NodeId) -> u32 {
        self.stage_pending[i * self.n + node as usize]
    }

    /// phi of `observer` about `peer` at sample `i`, when that sample recorded the observer.
    pub fn phi_at(&self, i: usize, observer: NodeId, peer: NodeId) -> Option<f32> {
        if self.full_phi() {
            Some(self.phi[(i * self.n + observer as usize) * self.n + peer as usize])
        } else if self.phi_observer[i] == observer {
            Some(self.phi[i * self.n + peer as usize])
        } else {
            None
        }
    }

    /// Approximate heap bytes held.
    pub fn approx_bytes(&self) -> usize {
        self.times.len() * 8
            + self.down_pairs.len() * 4
            + self.stage_pending.len() * 4
            + self.phi.len() * 4
            + self.phi_observer.len() * 4
    }
}
