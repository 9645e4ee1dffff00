//! Every built-in scenario x variant tells the truth on other seeds, not only on its own: each
//! is swept over seeds 1..=20 (`CLUSTERSCOPE_CLAIM_SEEDS` for more) and every expectation's
//! observed fraction must be consistent with what it claims — its `chance`, or "always"
//! (99%-100%) without one — and no run may error (a scheduled fault that could not apply
//! counts). `clusterscope claims --seeds 200 --format md` prints the table of
//! docs/SCENARIOS.md with the same rule.

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::builtin;
use clusterscope_core::sweep::{self, Partial, Plan};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn seeds() -> u64 {
    std::env::var("CLUSTERSCOPE_CLAIM_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

#[test]
fn every_builtin_claim_holds_across_seeds() {
    let seeds = seeds();
    let limits = Limits::default();
    // Every (scenario, variant, job) as one work list, so both cores stay busy to the end.
    let mut work = Vec::new();
    let mut plans = Vec::new();
    for s in builtin::all() {
        for v in s.variant_names() {
            let plan =
                Plan::new(&s, v, 1, seeds, &toml::Table::new(), Vec::new(), None).expect("plan");
            let k = plans.len();
            for j in 0..plan.jobs() {
                work.push((k, j));
            }
            plans.push((s.clone(), plan));
        }
    }
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Vec<sweep::Outcome>>> = Mutex::new(vec![Vec::new(); plans.len()]);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(k, j)) = work.get(i) else { break };
                let (s, plan) = &plans[k];
                let o = sweep::run_job(s, plan, j, &limits);
                outcomes.lock().expect("lock")[k].push(o);
            });
        }
    });
    let outcomes = outcomes.into_inner().expect("lock");
    let mut problems = String::new();
    for ((s, plan), outs) in plans.iter().zip(outcomes) {
        let names = sweep::expectation_names(s, &plan.variant).expect("names");
        let mut part = Partial::new(plan.clone(), names, outs);
        part.chances = sweep::expectation_chances(s, &plan.variant).expect("chances");
        let sum = sweep::summarize(&part);
        for (_, e) in sum.contradictions() {
            problems += &format!(
                "{} [{}]: \"{}\" held on {}/{} seeds (95% CI {:.0}-{:.0}%), claims {}; failing seeds {:?}\n",
                s.raw.name,
                plan.variant,
                e.name,
                e.held.count,
                e.held.runs,
                e.held.ci95_low * 100.0,
                e.held.ci95_high * 100.0,
                e.chance.map_or("always".into(), |c| c.short()),
                e.failed_seeds
            );
        }
        for err in sum.cells.iter().flat_map(|c| c.errors.iter()) {
            problems += &format!("{} [{}]: {err}\n", s.raw.name, plan.variant);
        }
    }
    assert!(
        problems.is_empty(),
        "claims contradicted over {seeds} seeds:\n{problems}"
    );
}
