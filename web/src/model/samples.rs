//! Time series for the plots, sampled while the engine advances: the model's named series
//! (`Model::series`, one value or one per node each) and, for models with one, its per-pair
//! series (`Model::pair_series`: gossip's phi, Raft's matchIndex) for the selected observer.
//!
//! Samples describe the computed history (up to the frontier): the simulation is deterministic, so
//! replaying a region gives the same values and nothing is re-sampled. Memory is bounded by
//! construction: the interval is a fixed fraction of the scenario's duration, so a run holds at
//! most about [`TARGET_SAMPLES`] samples.

use clusterscope_core::engine::NodeId;
use clusterscope_core::model::{Driver, SeriesSpec};
use clusterscope_core::time::Micros;

/// Samples over a whole run (the interval is `duration / TARGET_SAMPLES`).
pub const TARGET_SAMPLES: u64 = 1200;
/// Shortest sample interval (virtual time).
pub const MIN_INTERVAL_US: Micros = 20_000;
/// Clusters up to this size sample every observer's pair row; larger ones only the selected
/// node's.
pub const FULL_PAIR_NODES: usize = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    pub n: usize,
    pub interval_us: Micros,
    pub times: Vec<Micros>,
    /// The model's series, in its order.
    pub specs: &'static [SeriesSpec],
    /// Values per sample (`stride` of them): each series' one value, or its `n`.
    pub values: Vec<f32>,
    pub stride: usize,
    /// Whether the model has a per-pair series.
    pub pairs: bool,
    /// Pair values: `n * n` per sample when `n <= FULL_PAIR_NODES`, else `n` (one observer's row).
    pub pair: Vec<f32>,
    /// The observer of each sample's pair row (only meaningful for large clusters).
    pub pair_observer: Vec<NodeId>,
    scratch: Vec<f64>,
}

impl Samples {
    pub fn new(engine: &dyn Driver, duration_us: Micros) -> Self {
        let n = engine.topo().len() as usize;
        let specs = engine.series();
        let stride = specs.iter().map(|s| if s.per_node { n } else { 1 }).sum();
        Samples {
            n,
            interval_us: (duration_us / TARGET_SAMPLES).max(MIN_INTERVAL_US),
            times: Vec::new(),
            specs,
            values: Vec::new(),
            stride,
            pairs: engine.pair_series().is_some(),
            pair: Vec::new(),
            pair_observer: Vec::new(),
            scratch: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    pub fn full_pairs(&self) -> bool {
        self.n <= FULL_PAIR_NODES
    }

    /// The virtual time at which the next sample is due.
    pub fn next_due(&self) -> Micros {
        match self.times.last() {
            None => 0,
            Some(t) => (t / self.interval_us + 1) * self.interval_us,
        }
    }

    /// Take a sample of the engine if one is due.
    pub fn maybe_sample(&mut self, e: &dyn Driver, observer: Option<NodeId>) {
        if e.now() >= self.next_due() {
            self.sample(e, observer);
        }
    }

    fn sample(&mut self, e: &dyn Driver, observer: Option<NodeId>) {
        debug_assert_eq!(e.topo().len() as usize, self.n);
        self.times.push(e.now());
        self.scratch.clear();
        e.sample(&mut self.scratch);
        debug_assert_eq!(self.scratch.len(), self.stride, "Model::sample vs series");
        self.scratch.resize(self.stride, 0.0);
        self.values.extend(self.scratch.iter().map(|v| *v as f32));
        if !self.pairs {
            return;
        }
        let n = self.n;
        let row = |o: NodeId, out: &mut Vec<f32>| {
            for p in 0..n as NodeId {
                out.push(e.pair_value(o, p) as f32);
            }
        };
        if self.full_pairs() {
            for o in 0..n as NodeId {
                row(o, &mut self.pair);
            }
            self.pair_observer.push(0);
        } else {
            let o = observer.unwrap_or(0);
            row(o, &mut self.pair);
            self.pair_observer.push(o);
        }
    }

    /// Forget samples after `t` (the user changed the future).
    pub fn truncate_after(&mut self, t: Micros) {
        let k = self.times.partition_point(|x| *x <= t);
        self.times.truncate(k);
        self.values.truncate(k * self.stride);
        if self.pairs {
            let row = if self.full_pairs() {
                self.n * self.n
            } else {
                self.n
            };
            self.pair.truncate(k * row);
            self.pair_observer.truncate(k);
        }
    }

    /// Where series `s` starts in a sample's values.
    fn offset(&self, s: usize) -> usize {
        self.specs[..s]
            .iter()
            .map(|x| if x.per_node { self.n } else { 1 })
            .sum()
    }

    /// Series `s` at sample `i` (its value for `node` when it is per node).
    pub fn value(&self, i: usize, s: usize, node: NodeId) -> f32 {
        let per_node = self.specs[s].per_node;
        self.values[i * self.stride + self.offset(s) + if per_node { node as usize } else { 0 }]
    }

    /// The series named `name`, if the model has it.
    pub fn series_index(&self, name: &str) -> Option<usize> {
        self.specs.iter().position(|s| s.name == name)
    }

    /// Pair value of `observer` about `peer` at sample `i`, when that sample recorded the
    /// observer.
    pub fn pair_at(&self, i: usize, observer: NodeId, peer: NodeId) -> Option<f32> {
        if !self.pairs {
            None
        } else if self.full_pairs() {
            Some(self.pair[(i * self.n + observer as usize) * self.n + peer as usize])
        } else if self.pair_observer[i] == observer {
            Some(self.pair[i * self.n + peer as usize])
        } else {
            None
        }
    }

    /// Approximate heap bytes held.
    pub fn approx_bytes(&self) -> usize {
        self.times.len() * 8
            + self.values.len() * 4
            + self.pair.len() * 4
            + self.pair_observer.len() * 4
    }
}
