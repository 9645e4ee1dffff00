//! What the hunt tests (hunt.rs, hunt_shrink.rs) share: reading a scenario file of the
//! repository, and a schedule's shrink with a given runner and the defaults (not a panic's, no
//! fewer nodes, no progress).

use clusterscope_core::hunt::{self, Fault, Plan, Runner, Shrunk, Space};
use clusterscope_core::limits::Limits;
use clusterscope_core::Scenario;

/// A scenario file of the repository (`rel` from its root), parsed.
pub fn file(rel: &str) -> Scenario {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    Scenario::parse(&path, &text, &Limits::default()).unwrap()
}

/// [`hunt::shrink_by`] of `faults` on `seed` with `runner`: the failure no panic, the cluster
/// kept, no progress.
pub fn shrink(
    runner: &dyn Runner,
    s: &Scenario,
    p: &Plan,
    space: &Space,
    seed: u64,
    faults: &[Fault],
    l: &Limits,
) -> Shrunk {
    hunt::shrink_by(
        runner,
        s,
        p,
        space,
        seed,
        faults,
        false,
        false,
        l,
        &mut |_, _| {},
    )
}
