//! Limits on everything a user can make large. Untrusted scenarios (permalinks, imported files)
//! must not freeze a browser tab; each limit is reported with the number and what to change.

use crate::time::{Micros, US_PER_S};

#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    pub max_nodes: u32,
    pub max_duration_us: Micros,
    pub max_events: u64,
    /// Records a run may keep; checked on new ground only (a replay of steps already run
    /// records nothing), so a run stopped at the limit still steps back and jumps.
    pub max_trace_records: usize,
    pub max_in_flight: usize,
    pub max_queue: usize,
    pub max_latency_us: Micros,
    pub max_schedule: usize,
    pub max_captions: usize,
    pub max_expectations: usize,
    pub max_scenario_bytes: usize,
    /// Memory for checkpoints (copies of the state that make jumps fast): a run keeps as many as
    /// fit, between `MIN_CHECKPOINTS` and `MAX_CHECKPOINTS` (`engine`). Not an error when small:
    /// jumps replay more.
    pub max_checkpoint_bytes: usize,
    /// Memory for a whole run: the trace, the checkpoints and the simulated state (messages in
    /// flight, queued events and tasks, per-node tables), as the run grows. Checked every
    /// `engine::MEMORY_CHECK_STEPS` steps and at every checkpoint, on new ground only (a replay
    /// of steps already run revisits states the run held); a run that would use more stops
    /// with `SimError::Limit` naming what grew. The accounting is approximate: the real heap stays
    /// within `MEMORY_MARGIN` of it (`tests/tests/memory.rs` checks that with random scenarios).
    pub max_memory_bytes: usize,
}

/// The largest sweep part (`clusterscope sweep --shard I/N --out PART`) `clusterscope merge`
/// reads: 1 GiB (a run's outcome takes 100 to 400 bytes: millions of runs). A bigger file is
/// refused by its size before it is read; more shards make smaller parts.
pub const MAX_PART_BYTES: u64 = 1 << 30;

/// How far the allocated heap may exceed `Limits::max_memory_bytes`: a quarter of it plus 64 MiB
/// (allocator slack, growth between two checks, what the accounting leaves out).
pub const fn memory_margin(budget: usize) -> usize {
    budget / 4 + (64 << 20)
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_nodes: 512,
            max_duration_us: 6 * 3600 * US_PER_S,
            max_events: 100_000_000,
            max_trace_records: 60_000_000,
            max_in_flight: 1_000_000,
            max_queue: 1_000_000,
            max_latency_us: 3600 * US_PER_S,
            max_schedule: 10_000,
            max_captions: 1_000,
            max_expectations: 1_000,
            max_scenario_bytes: 1 << 20,
            max_checkpoint_bytes: 2 << 30,
            // 4 GiB natively; a 32-bit address space (wasm32) cannot hold that (4 << 30 would
            // wrap to 0 there), so 3 GiB.
            max_memory_bytes: if usize::BITS > 32 { 4 << 30 } else { 3 << 30 },
        }
    }
}

impl Limits {
    /// Tighter limits for the browser, where memory is scarcer and the tab must stay responsive.
    pub fn browser() -> Self {
        // 5 M records x 32 B = 160 MB at most: the 251-node, 10-minute incident needs ~2.5 M.
        // Checkpoints: 200 MiB, so that the tab stays under 300 MiB after the 251-node incident
        // (issue 20): its checkpoints share the endpoint state maps (`gossip::cowmap`), each
        // counted as the copy it is (~7.5 MB), spread evenly over the scenario's duration as many
        // as the budget holds (`Run::new`: 23 of them). Fewer make jumps replay more.
        Limits {
            max_events: 20_000_000,
            max_trace_records: 5_000_000,
            max_checkpoint_bytes: 200 << 20,
            // wasm32's heap ends at 4 GiB; with the margin, a run stays below ~2.6 GiB.
            max_memory_bytes: 2 << 30,
            ..Limits::default()
        }
    }
}
