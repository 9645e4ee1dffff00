//! The page's memory guard (issue 39): a tab's wasm32 memory can grow to 4 GiB, and an
//! allocation beyond it aborts the module (`crate::crash`). Each run stops at its own budget
//! (`Limits::max_memory_bytes`, 2 GiB in the browser, from its own accounting), but a page holds
//! several runs (the one shown, the kept runs of other variants, compare's other side and its
//! two search runs), each with that budget. So after every step of the simulation that computed
//! new ground, the app also reads the live heap the allocator counts: past
//! [`PAGE_HEAP_BYTES`], it drops the kept runs, and if that is not enough the simulation stops
//! with a `SimError::Limit` in the error banner, while the run computed so far stays usable
//! (jumps and steps back replay without growing it).

use super::*;
use clusterscope_core::SimError;

/// The live heap at which the app stops computing: the 4 GiB of wasm32 memory less room for
/// the allocator's overhead and fragmentation and what one frame of simulation can allocate.
pub const PAGE_HEAP_BYTES: usize = 3 << 30;

fn mib(b: usize) -> String {
    format!("{:.0} MiB", b as f64 / (1u64 << 20) as f64)
}

impl Model {
    /// After the engine moved from `frontier` (the frontier before): the page's heap within
    /// [`Model::heap_limit`], else the kept runs are dropped, and then a limit error.
    pub(super) fn check_heap(&mut self, frontier: u64) -> Result<(), SimError> {
        if self.frontier() <= frontier || crate::crash::heap_bytes() <= self.heap_limit {
            return Ok(());
        }
        self.runs.clear();
        let used = crate::crash::heap_bytes();
        if used <= self.heap_limit {
            return Ok(());
        }
        Err(SimError::Limit(format!(
            "the page's memory: {} in use at {}, over the {} this page allows itself so that \
             the browser's 4 GiB of WebAssembly memory never runs out (the run shown holds about \
             {}{}). Close compare, shorten the scenario or reduce the cluster, or reload the page",
            mib(used),
            fmt_time(self.now()),
            mib(self.heap_limit),
            mib(runs::run_bytes(&self.run)),
            if self.compare.is_some() {
                "; compare runs two more"
            } else {
                ""
            }
        )))
    }
}
