//! The first-divergence finder (`core::diff::first_divergence`, lockstep over virtual time, stops
//! early) against a brute-force comparison of both finished traces (`first_difference`), on random
//! scenario x variant pairs, seeds, slices and a random user action on one side (issue 18).
//! `CLUSTERSCOPE_PROPTEST_CASES=N` runs N cases (default 64).

use clusterscope_core::diff::{first_difference, first_divergence, view_diffs};
use clusterscope_core::engine::action::Action;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
use proptest::prelude::*;

/// Small built-in scenarios of every model, with their variants.
const SCENARIOS: &[&str] = &[
    "cassandra-21636-packet-loss",
    "cassandra-21636-restart",
    "gossip-digest-exchange",
    "raft-leader-election",
    "raft-leader-crash",
    "mutation-tracking-basics",
    "pingpong",
    "ozone-write-pipeline",
];

fn run(name: &str, variant: &str, seed: u64) -> Run {
    let s = builtin::get(name).unwrap();
    Run::new(
        s,
        variant,
        Some(seed),
        &toml::Table::new(),
        &RunOptions {
            checkpointing: false,
            body_budget: 0,
            limits: Limits::default(),
        },
    )
    .unwrap()
}

fn cases() -> u32 {
    std::env::var("CLUSTERSCOPE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

#[derive(Debug, Clone)]
struct Case {
    scenario: usize,
    variant_a: usize,
    variant_b: usize,
    seed_a: u64,
    same_seed: bool,
    /// On side b: kill this node (index) at this fraction of the run.
    kill: Option<(usize, u32)>,
    slice_ms: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..SCENARIOS.len(),
        0usize..4,
        0usize..4,
        1u64..50,
        any::<bool>(),
        proptest::option::of((0usize..8, 1u32..1000)),
        prop_oneof![Just(1u64), Just(37), Just(1000), Just(60_000)],
    )
        .prop_map(
            |(scenario, variant_a, variant_b, seed_a, same_seed, kill, slice_ms)| Case {
                scenario,
                variant_a,
                variant_b,
                seed_a,
                same_seed,
                kill,
                slice_ms,
            },
        )
}

/// Make the two runs of a case, with b's kill applied at its time (as a recorded action).
fn pair(c: &Case) -> (Run, Run) {
    let name = SCENARIOS[c.scenario];
    let s = builtin::get(name).unwrap();
    let vs = s.variant_names();
    let va = vs[c.variant_a % vs.len()].to_string();
    let vb = vs[c.variant_b % vs.len()].to_string();
    let seed_b = if c.same_seed { c.seed_a } else { c.seed_a + 1 };
    let a = run(name, &va, c.seed_a);
    let mut b = run(name, &vb, seed_b);
    if let Some((node, permille)) = c.kill {
        let n = b.engine.topo().len() as usize;
        let at = s.duration() / 1000 * permille as u64;
        b.engine.run_until(at, u64::MAX).unwrap();
        let node = b.engine.topo().names[node % n].clone();
        // A node already down refuses the kill: then b simply has no action.
        let _ = b.engine.apply_user_action(Action::Kill { node });
        // Replay from the start so both sides are compared from time 0.
        let actions = b.engine.user_actions().to_vec();
        b = run(name, &vb, seed_b);
        b.engine.set_user_actions(actions);
    }
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn lockstep_finder_agrees_with_brute_force(c in case()) {
        let end = builtin::get(SCENARIOS[c.scenario]).unwrap().duration();
        // Brute force: both to the end, then walk the records.
        let (mut a, mut b) = pair(&c);
        a.engine.run_until(end, u64::MAX).unwrap();
        b.engine.run_until(end, u64::MAX).unwrap();
        let want = first_difference(a.engine.trace(), b.engine.trace());
        // Lockstep, fresh runs.
        let (mut a2, mut b2) = pair(&c);
        let got = first_divergence(&mut *a2.engine, &mut *b2.engine, end, c.slice_ms * 1000)
            .unwrap();
        prop_assert_eq!(got.as_ref().map(|d| d.index), want, "{:?}", got);
        if let Some(d) = got {
            // Everything before the divergence is equal, and the reported time is that of the
            // first differing record.
            let ta = a.engine.trace();
            let tb = b.engine.trace();
            let times: Vec<u64> = [ta.recs.get(d.index), tb.recs.get(d.index)]
                .iter()
                .flatten()
                .map(|r| r.time)
                .collect();
            prop_assert_eq!(d.time_us, *times.iter().min().unwrap());
            // The lockstep search stopped no later than one slice after the divergence.
            prop_assert!(a2.engine.now() <= d.time_us + c.slice_ms * 1000);
        }
    }
}

/// Same scenario, variant and seed: no divergence, and no view differs.
#[test]
fn identical_runs_do_not_diverge() {
    let mut a = run("cassandra-21636-packet-loss", "buggy", 3);
    let mut b = run("cassandra-21636-packet-loss", "buggy", 3);
    let end = a.scenario.duration();
    assert_eq!(
        first_divergence(&mut *a.engine, &mut *b.engine, end, 10_000_000).unwrap(),
        None
    );
    assert_eq!(a.engine.now(), b.engine.now());
    let (d, n) = view_diffs(&a.views_json(), &b.views_json(), 3, 10);
    assert_eq!((d.len(), n), (0, 0));
}

/// buggy vs fixed of CASSANDRA-21636 (packet loss): the runs are the same until the lost echo's
/// consequences, and at the end the liveness views differ exactly on A<->B.
#[test]
fn packet_loss_buggy_and_fixed_diverge_and_their_liveness_differs() {
    let mut a = run("cassandra-21636-packet-loss", "buggy", 1);
    let mut b = run("cassandra-21636-packet-loss", "fixed", 1);
    let end = a.scenario.duration();
    let d = first_divergence(&mut *a.engine, &mut *b.engine, end, 1_000_000)
        .unwrap()
        .expect("they diverge");
    assert!(d.index > 100, "the start is shared: {d:?}");
    a.engine.run_until(end, u64::MAX).unwrap();
    b.engine.run_until(end, u64::MAX).unwrap();
    let (diffs, _) = view_diffs(&a.views_json(), &b.views_json(), 3, 1000);
    let live: Vec<&str> = diffs
        .iter()
        .map(|v| v.path.as_str())
        .filter(|p| p.starts_with("liveness."))
        .collect();
    assert_eq!(live, ["liveness.A.B", "liveness.B.A"], "{diffs:?}");
}
