//! Every built-in scenario x variant: its expectations (observable outcomes) hold, and the run is
//! deterministic. Expectations live in the scenario files; this is the data-driven `check`.

use clusterscope_tests::{all_cases, explain, run_builtin, run_builtin_until};

/// Determinism checks need a stretch with randomness, not the whole run.
const DETERMINISM_SPAN_US: u64 = 90_000_000;

/// Fully scripted scenarios: no random draw changes their trace, so the seed has no effect.
/// - gossip-digest-exchange: one gossip round, message for message.
/// - cassandra-21181-*: every write, read, hold, park and release is a scheduled command, every
///   link has a fixed 1 ms latency and no loss, and the mutation-tracking model draws nothing
///   without random load (`load_interval`), so each race happens at the scripted step exactly.
///   (mutation-tracking-basics has a lossy, jittered link; mutation-tracking-sweep random load.)
/// - raft-figure-8: the paper's figure step by step; every election is forced by a `timeout`
///   command (election timeouts are an hour), latency is a fixed 1 ms and there is no client
///   load, so no random draw reaches the trace.
const SCRIPTED: &[&str] = &[
    "gossip-digest-exchange",
    "cassandra-21181-duplicate-notify",
    "cassandra-21181-overcount",
    "cassandra-21181-reconciled-missing",
    "cassandra-21181-shared-callback",
    "raft-figure-8",
];

#[test]
fn every_builtin_variant_meets_its_expectations() {
    let cases = all_cases();
    assert!(cases.len() >= 4, "built-in cases: {cases:?}");
    let mut failures = String::new();
    for (name, variant) in &cases {
        let r = run_builtin(name, variant, None);
        assert!(
            !r.expectations.is_empty(),
            "{name}/{variant} has no expectations"
        );
        if !r.passed {
            failures += &explain(&r);
        }
    }
    assert!(failures.is_empty(), "\n{failures}");
}

#[test]
fn same_seed_same_trace_hash_and_seeds_matter() {
    let cases = all_cases();
    for s in SCRIPTED {
        assert!(
            cases.iter().any(|c| c.0 == *s),
            "SCRIPTED names {s}, not a built-in scenario"
        );
    }
    for (name, variant) in cases {
        let span = Some(DETERMINISM_SPAN_US);
        let a = run_builtin_until(&name, &variant, None, span);
        let b = run_builtin_until(&name, &variant, None, span);
        assert_eq!(
            a.trace_hash, b.trace_hash,
            "{name}/{variant} is not deterministic"
        );
        assert_eq!(a.events, b.events);
        if !SCRIPTED.contains(&name.as_str()) {
            // Uses randomness (peer choice, loss, jitter): another seed gives another trace.
            let c = run_builtin_until(&name, &variant, Some(a.seed + 1000), span);
            assert_ne!(
                a.trace_hash, c.trace_hash,
                "{name}/{variant}: the seed has no effect"
            );
        }
    }
}

#[test]
fn buggy_and_fixed_differ_in_the_observable_outcome() {
    let buggy = run_builtin("cassandra-21636-packet-loss", "buggy", None);
    let fixed = run_builtin("cassandra-21636-packet-loss", "fixed", None);
    let legacy = run_builtin("cassandra-21636-packet-loss", "legacy", None);
    let view = |r: &clusterscope_core::Report, o: &str, p: &str| {
        r.views["liveness"][o][p].as_str().unwrap().to_string()
    };
    assert_eq!(view(&buggy, "A", "B"), "DOWN");
    assert_eq!(view(&buggy, "B", "A"), "DOWN");
    assert_eq!(view(&buggy, "C", "A"), "UP");
    assert_eq!(view(&fixed, "A", "B"), "UP");
    assert_eq!(view(&legacy, "B", "A"), "UP");
    assert_eq!(buggy.metrics["down_pairs"], 2.0);
    assert_eq!(fixed.metrics["down_pairs"], 0.0);
    // The wedge: A's stuck entry keeps skipping; the heartbeat of B in A's map still advances.
    assert!(buggy.views["nodes"]["A"]["inflight_echo"]["B"]["stuck"]
        .as_bool()
        .unwrap());
    assert!(
        buggy.views["nodes"]["A"]["endpoint_states"]["B"]["heartbeat"]
            .as_u64()
            .unwrap()
            > 600
    );
    assert!(buggy.metrics["echo_skipped"] > 100.0);
    // fixed lost echoes during the cut too, and still healed.
    assert!(fixed.metrics["echo_failed"] >= 2.0);
}

/// Issue 38: seeds on which a gossip story did not hold, though it held on the scenario's own
/// seed. Each failed for a reason the scenario, not the model, had wrong (see the scenario files):
/// - rolling-upgrade/fixed seed 2: the run ended 18 s after the last node's start, with one pair
///   still between a lost echo and its retry (the run now goes on a minute longer);
/// - workarounds/buggy seed 8: n1's single echo got through the 60% residual loss (a 16% shot;
///   now 90% loss, a 1% shot each for n1 and n2, and the check is that one of them re-wedges);
/// - restart/buggy seed 38: n9's echo into n7's ~16 s backlog came back in 9.9 s (now a ~22 s
///   backlog).
#[test]
fn issue_38_seeds_hold() {
    let mut failures = String::new();
    for (name, variant, seed) in [
        ("cassandra-21636-rolling-upgrade", "fixed", 2),
        ("cassandra-21636-workarounds", "buggy", 8),
        ("cassandra-21636-restart", "buggy", 38),
    ] {
        let r = run_builtin(name, variant, Some(seed));
        if !r.passed {
            failures += &explain(&r);
        }
    }
    assert!(failures.is_empty(), "\n{failures}");
}
