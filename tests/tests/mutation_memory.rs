//! Memory of the mutation-tracking model under random load (issue 39): what a run keeps grows
//! linearly with its duration, the engine's accounting (`Protocol::node_bytes` and friends)
//! counts it, so the run budget stops a run that outgrows it with `SimError::Limit` naming what
//! grew, and a run that cannot fit its trace is refused before it starts. The heap is measured by
//! a counting allocator (this test binary's own; the tests take a lock so that one runs at a time).

use clusterscope_core::limits::{memory_margin, Limits};
use clusterscope_core::mutation::MutationTracking;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::SimError;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{NOW, PEAK};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// sandbox-mutation-tracking's load, denser and for `secs` seconds.
fn scenario(nodes: u32, rf: u32, load_ms: u32, secs: u32) -> String {
    format!(
        r#"name = "mt-memory"
title = "random load"
protocol = "mutation-tracking"
duration = "{secs}s"

[cluster]
generate = {{ count = {nodes} }}

[params]
rf = {rf}
load_interval = "{load_ms}ms"
load_for = "{secs}s"
load_read_share = 0.4

[[variants]]
name = "only"
"#
    )
}

fn start(text: &str, limits: &Limits) -> Result<Run, String> {
    let sc = Scenario::parse("mt-memory.toml", text, limits).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        checkpointing: false,
        body_budget: 0,
        limits: limits.clone(),
    };
    Run::new(sc, "only", None, &toml::Table::new(), &opts)
}

/// (heap the finished run holds, what the engine accounts for it), in bytes.
fn held_after(secs: u32) -> (usize, usize) {
    let base = NOW.load(Relaxed);
    let mut run = start(&scenario(3, 3, 2, secs), &Limits::default()).unwrap();
    run.run(None).unwrap();
    let held = NOW.load(Relaxed) - base;
    let accounted = run
        .engine_of::<MutationTracking>()
        .expect("a mutation-tracking run")
        .memory_bytes();
    (held, accounted)
}

/// Every read used to copy the whole table (all rows) into its coordinator, its answer and the
/// client's record: reads x rows, quadratic in the duration (a 4 s run at 1 ms load reached
/// 2.2 GB). Twice the load's duration now holds about twice the memory (quadratic would be about
/// four times), and the accounting the budget uses is within a factor of two of the real heap.
#[test]
fn a_loaded_run_holds_memory_linear_in_its_duration_and_accounted() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (h1, a1) = held_after(1);
    let (h2, a2) = held_after(2);
    let ratio = h2 as f64 / h1 as f64;
    assert!(
        ratio < 2.6,
        "heap held after 1 s of load: {h1} B, after 2 s: {h2} B (x{ratio:.2}): grows faster than the duration"
    );
    for (held, acc) in [(h1, a1), (h2, a2)] {
        assert!(
            acc * 2 >= held && acc <= held * 2,
            "accounted {acc} B for a real heap of {held} B"
        );
    }
}

/// A run that outgrows a small budget stops with a clear `SimError::Limit` naming the node state,
/// and the heap stays within the budget's margin (no allocator abort).
#[test]
fn the_budget_stops_a_growing_run_naming_the_node_state() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let budget = 4 << 20;
    let limits = Limits {
        max_memory_bytes: budget,
        ..Limits::default()
    };
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut run = start(&scenario(3, 3, 1, 60), &limits).unwrap();
    // as a sweep runs it: no trace, so what grows is the nodes' own state
    run.engine.set_tracing(false);
    let err = match run.run(None) {
        Err(SimError::Limit(m)) => m,
        other => panic!("expected the memory budget to stop the run: {other:?}"),
    };
    let peak = PEAK.load(Relaxed) - base;
    assert!(
        err.contains("memory: the run needs about")
            && err.contains("over its budget of 5 MB")
            && err.contains("node state")
            && err.contains("the nodes' own tables"),
        "{err}"
    );
    assert!(
        peak <= budget + memory_margin(budget),
        "peak heap {} MB over the budget and its margin ({err})",
        peak >> 20
    );
}

/// 64 replicas under a 1 ms load exchange summaries between all of them on half the reads: the
/// run's trace estimate is far over the limit, and it is refused before it starts, saying why.
#[test]
fn a_run_whose_trace_cannot_fit_is_refused_up_front() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let err = match start(&scenario(64, 0, 1, 30), &Limits::default()) {
        Err(e) => e,
        Ok(_) => panic!("a 64-replica run at 1 ms load was accepted"),
    };
    assert!(
        err.contains("this run would record about")
            && err.contains("64 replicas x 1000 operations/s of random load"),
        "{err}"
    );
}
