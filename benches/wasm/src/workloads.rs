//! The benchmark workloads, one definition for both targets: the native criterion benches
//! (`core/benches/engine.rs` includes this file with `#[path]`) and the wasm benches in headless
//! Chromium (`benches/wasm/tests/bench.rs`, through this crate). Same code, same seeds, same
//! options, so the wasm/native ratio compares like with like.
//!
//! Every run keeps the full trace (records are always recorded when a step is new) with no
//! checkpoints and no message bodies, like `clusterscope run` without `--trace`.

use clusterscope_core::engine::network::Link;
use clusterscope_core::engine::trace::{Recs, Trace};
use clusterscope_core::limits::Limits;
use clusterscope_core::pingpong::{self, PingPong};
use clusterscope_core::raft::{params::RaftParams, sm::Kv, Raft, RaftKv};
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
use clusterscope_core::time::{Micros, US_PER_S};
use clusterscope_core::{Engine, Scenario, Sim};

/// Ping-pong: nodes, each starting one ball passed to the next node.
pub const PP_NODES: u32 = 8;
/// Fixed one-way latency (min == max: no RNG draw per message).
pub const PP_LATENCY_US: Micros = 1_000;
/// Virtual time of one timed ping-pong iteration: 8 balls x 1000 hops/s x 2 s = 16k events.
pub const PP_UNTIL_US: Micros = 2 * US_PER_S;
/// Virtual time of the longer run that measures retained trace bytes per event (80k events, so
/// the Vec growth slack is averaged over several doublings rather than one).
pub const PP_BYTES_UNTIL_US: Micros = 10 * US_PER_S;

pub const PACKET_LOSS: &str = "cassandra-21636-packet-loss";
pub const ROLLING_UPGRADE: &str = "cassandra-21636-rolling-upgrade";
pub const VARIANT: &str = "buggy";
/// Virtual time of the gossip and 251-node runs.
pub const TEN_MINUTES: Micros = 600 * US_PER_S;
/// First seed of the sweep (a sweep runs the scenario to its end, seed after seed).
pub const SWEEP_FIRST_SEED: u64 = 1;
/// Raft load: client requests per second, generated at n0 (`params.client_rate`).
pub const RAFT_RATE: u32 = 100;
/// Virtual time of the 5-node Raft run: one hour.
pub const RAFT_5_UNTIL_US: Micros = 3600 * US_PER_S;
/// Virtual time of the 25-node Raft run: one minute (an hour would take minutes per run; the
/// events/s figure does not depend on the length once the group has elected its leader).
pub const RAFT_25_UNTIL_US: Micros = 60 * US_PER_S;

/// The raw event loop: `PP_NODES` nodes, no worker executor, fixed latency, tracing on.
pub fn pingpong_engine() -> Engine<PingPong> {
    let proto = PingPong {
        use_worker: false,
        work_us: 0,
        deadline_us: None,
        random_target: false,
        serve_on_tick: false,
    };
    let sim = Sim::new(
        proto,
        pingpong::topology(PP_NODES),
        Link::healthy(PP_LATENCY_US, PP_LATENCY_US),
        1,
        Vec::new(),
        Limits::default(),
    );
    Engine::new(sim, false, 0)
}

/// Build the ping-pong engine and run it to `until_us`.
pub fn pingpong_run(until_us: Micros) -> Engine<PingPong> {
    let mut e = pingpong_engine();
    e.run_until(until_us, u64::MAX).expect("pingpong run");
    e
}

/// Options of every scenario run: what `clusterscope run` / `sweep` use without `--trace`.
pub fn run_options() -> RunOptions {
    RunOptions {
        checkpointing: false,
        body_budget: 0,
        limits: Limits::default(),
    }
}

/// The points (fractions of the run's steps) the web benchmark jumps to, in its order.
pub const JUMP_FRACTIONS: [f64; 12] = [
    0.5, 0.0, 0.25, 0.75, 1.0, 0.5, 0.252, 0.088, 0.577, 0.223, 0.376, 0.026,
];

/// `scenario_run` with checkpoints, as the web app runs (for timing jumps).
pub fn checkpointed_run(s: &Scenario, until: Option<Micros>) -> Run {
    let mut r = Run::new(
        s.clone(),
        VARIANT,
        None,
        &toml::Table::new(),
        &RunOptions {
            checkpointing: true,
            ..run_options()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", s.raw.name));
    r.run(until)
        .unwrap_or_else(|e| panic!("{}: {e}", s.raw.name));
    r
}

pub fn scenario(name: &str) -> Scenario {
    builtin::get(name).unwrap_or_else(|e| panic!("built-in scenario {name}: {e:?}"))
}

/// A Raft group (`Raft<Kv>`, Ratis defaults, invariant checks on after every event) of `nodes`
/// nodes with a client at n0 sending `rate` requests/s (seed 1, 0.5-1.5 ms links, tracing on),
/// not run yet.
pub fn raft_engine(nodes: u32, rate: u32) -> Engine<RaftKv> {
    let t: toml::Table = toml::from_str(&format!("client_rate = {rate}")).expect("params");
    let topo = pingpong::topology(nodes);
    let proto = Raft::new(RaftParams::from_table(t).expect("params"), Kv, &topo).expect("raft");
    let sim = Sim::new(
        proto,
        topo,
        Link::healthy(500, 1_500),
        1,
        vec![],
        Limits::default(),
    );
    Engine::new(sim, false, 0)
}

/// [`raft_engine`] run from its start to `until`. Construction is part of the measured work.
pub fn raft_run(nodes: u32, rate: u32, until: Micros) -> Engine<RaftKv> {
    let mut e = raft_engine(nodes, rate);
    e.run_until(until, u64::MAX).expect("raft run");
    e
}

/// The wasm side runs the same in slices of this much virtual time, yielding to the browser
/// between them (a single call of tens of seconds stalls the page past the test driver's 30 s
/// timeout); only the slices are timed. (Unused by the native bench, which includes this file.)
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub const RAFT_SLICE_US: Micros = 60 * US_PER_S;

/// Build a run of the `buggy` variant (construction is part of the measured work) and run it
/// to `until` (`None`: the scenario's end). Returns the finished run.
pub fn scenario_run(s: &Scenario, seed: Option<u64>, until: Option<Micros>) -> Run {
    let mut r = Run::new(
        s.clone(),
        VARIANT,
        seed,
        &toml::Table::new(),
        &run_options(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", s.raw.name));
    r.run(until)
        .unwrap_or_else(|e| panic!("{}: {e}", s.raw.name));
    r
}

/// Retained trace memory of a finished run.
#[derive(Clone, Debug)]
pub struct TraceStats {
    pub events: u64,
    pub records: usize,
    /// `Trace::approx_bytes()`: record chunks (unused capacity of the last chunk included), label
    /// table, overflow arena, log/body arenas.
    pub approx_bytes: usize,
    /// The part of `approx_bytes` that is unused record capacity (at most one chunk).
    pub slack_bytes: usize,
    pub rec_size: usize,
}

impl TraceStats {
    pub fn of(events: u64, t: &Trace) -> Self {
        let rec_size = Recs::PACKED_BYTES;
        TraceStats {
            events,
            records: t.recs.len(),
            approx_bytes: t.approx_bytes(),
            slack_bytes: (t.recs.capacity() - t.recs.len()) * rec_size,
            rec_size,
        }
    }
    /// `approx_bytes / events`: the figure the <= 100 B/event target is about.
    pub fn bytes_per_event(&self) -> f64 {
        self.approx_bytes as f64 / self.events.max(1) as f64
    }
    /// The same without growth slack: what the record layout itself costs.
    pub fn used_bytes_per_event(&self) -> f64 {
        (self.approx_bytes - self.slack_bytes) as f64 / self.events.max(1) as f64
    }
    pub fn records_per_event(&self) -> f64 {
        self.records as f64 / self.events.max(1) as f64
    }
    pub fn line(&self, what: &str) -> String {
        format!(
            "{what}: {} events, {} records ({:.2}/event, {} B each); approx_bytes {} = {:.1} B/event \
             ({:.1} B/event without growth slack)",
            self.events,
            self.records,
            self.records_per_event(),
            self.rec_size,
            self.approx_bytes,
            self.bytes_per_event(),
            self.used_bytes_per_event(),
        )
    }
}
