//! A sweep runs its seeds untraced (no records, log lines or trace hash: `Sim::set_tracing`)
//! unless one of the variant's expectations reads the trace (the `log` view). What a seed
//! reports must not depend on it: for every built-in scenario and variant, two seeds of the
//! sweep's job are compared with the same seeds run traced, expectation by expectation and
//! metric by metric. Large scenarios are cut at 30 s of virtual time to keep this quick.

use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
use clusterscope_core::sweep::{run_job, Plan};

#[test]
fn untraced_seeds_give_the_traced_outcome() {
    let limits = Limits::default();
    let (mut untraced, mut traced) = (0, 0);
    for s in builtin::all() {
        let until = (s.topo.len() > 64).then_some(30_000_000);
        for v in s.raw.variants.iter().map(|v| v.name.clone()) {
            let plan = Plan::new(&s, &v, 1, 2, &toml::Table::new(), vec![], until).unwrap();
            for j in 0..plan.jobs() {
                let o = run_job(&s, &plan, j, &limits);
                let opts = RunOptions {
                    body_budget: 0,
                    checkpointing: false,
                    limits: limits.clone(),
                };
                let mut r = Run::new(s.clone(), &v, Some(o.seed), &toml::Table::new(), &opts)
                    .unwrap_or_else(|e| panic!("{} {v}: {e}", s.raw.name));
                let needs = r.needs_trace();
                assert!(r.engine.tracing(), "a run is traced unless told otherwise");
                let rep = r.run(until).unwrap();
                let at = format!("{} [{v}] seed {}", s.raw.name, o.seed);
                assert_eq!(o.error, None, "{at}");
                assert_eq!(o.passed, rep.passed, "{at}");
                let held: Vec<bool> = rep.expectations.iter().map(|e| e.passed).collect();
                assert_eq!(o.held, held, "{at}");
                assert_eq!(o.metrics, rep.metrics, "{at}");
                if needs {
                    traced += 1;
                } else {
                    untraced += 1;
                }
            }
        }
    }
    // Both kinds occur among the built-in scenarios (cassandra-21636-packet-loss counts log
    // lines; most do not).
    assert!(
        untraced > 10 && traced > 0,
        "untraced {untraced}, traced {traced}"
    );
}

/// An untraced run keeps no trace and says so instead of showing a hash.
#[test]
fn an_untraced_run_says_so() {
    let s = builtin::get("cassandra-21636-workarounds").unwrap();
    let mut r = Run::new(
        s.clone(),
        &Run::default_variant(&s),
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    assert!(!r.needs_trace());
    r.engine.set_tracing(false);
    let rep = r.run(Some(20_000_000)).unwrap();
    assert_eq!(rep.trace_hash, "not traced");
    assert!(rep.events > 1_000, "it ran: {} events", rep.events);
    assert_eq!(r.trace().recs.len(), 0);
    assert_eq!(r.trace().logs.len(), 0);
}
