//! "Explain this state" (issue 14): `Driver::explain` for every model says what the selected
//! node believes at the cursor, from its views and the trace before the cursor.

use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;

fn run_to(name: &str, variant: &str, t: u64) -> Run {
    let s = builtin::get(name).unwrap();
    let variant = if variant == "default" {
        Run::default_variant(&s)
    } else {
        variant.to_string()
    };
    let mut r = Run::new(
        s,
        &variant,
        None,
        &toml::Table::new(),
        &RunOptions {
            checkpointing: true,
            body_budget: 0,
            limits: Limits::default(),
        },
    )
    .unwrap();
    r.engine.run_until(t, u64::MAX).unwrap();
    r
}

fn explain(r: &Run, node: &str) -> String {
    let id = r.scenario.topo.resolve(node).unwrap();
    r.engine.explain(id).join("\n")
}

/// Gossip: after the heal, the buggy variant leaves A seeing B DOWN with a stuck echo entry;
/// the fixed one has A seeing every peer UP again.
#[test]
fn gossip_names_the_down_peer_and_the_stuck_echo() {
    let r = run_to("cassandra-21636-packet-loss", "buggy", 90_000_000);
    let e = explain(&r, "A");
    assert!(e.contains("A sees B DOWN since"), "{e}");
    assert!(e.contains("inflightEcho entry for B is stuck"), "{e}");
    assert!(e.contains("φ of B"), "{e}");
    let r = run_to("cassandra-21636-packet-loss", "fixed", 700_000_000);
    let e = explain(&r, "A");
    assert!(e.contains("sees 2 of 2 peers UP"), "{e}");
    assert!(!e.contains("sees B DOWN"), "{e}");
}

/// The explanation is of the cursor, not of the computed frontier: back at 2 s nothing is DOWN.
#[test]
fn explains_the_cursor_not_the_frontier() {
    let mut r = run_to("cassandra-21636-packet-loss", "buggy", 90_000_000);
    let k = r
        .engine
        .trace()
        .recs
        .iter()
        .find(|x| x.time > 2_000_000)
        .unwrap()
        .step;
    r.engine.jump_to_step(k).unwrap();
    let e = explain(&r, "A");
    assert!(e.contains("sees 2 of 2 peers UP"), "{e}");
}

/// Raft: once elected, exactly one node explains itself as the leader and the others follow it.
#[test]
fn raft_names_the_leader_and_the_followers() {
    let r = run_to("raft-leader-election", "default", 10_000_000);
    let all: Vec<String> = ["n1", "n2", "n3", "n4", "n5"]
        .iter()
        .map(|n| explain(&r, n))
        .collect();
    let leaders = all
        .iter()
        .filter(|e| e.contains("is the leader of term"))
        .count();
    assert_eq!(leaders, 1, "{all:#?}");
    assert!(
        all.iter().filter(|e| e.contains(" follows ")).count() >= 3,
        "{all:#?}"
    );
    assert!(all.iter().all(|e| e.contains("commitIndex")), "{all:#?}");
}

/// Ozone: a datanode adds its state machine's health; SCM its pipeline. Mutation tracking: the
/// reconciliations. Pingpong: the generic default (status and its last log line, if any).
#[test]
fn ozone_mutation_and_the_generic_default() {
    let r = run_to("ozone-write-pipeline", "default", 5_000_000);
    assert!(explain(&r, "dn1").contains("container state machine"));
    assert!(explain(&r, "scm").contains("As SCM it sees the pipeline"));
    let r = run_to("mutation-tracking-basics", "default", 5_000_000);
    let e = explain(&r, "node1");
    assert!(e.contains("journal holds"), "{e}");
    let r = run_to("pingpong", "default", 1_000_000);
    let name = r.scenario.topo.name(0).to_string();
    let e = explain(&r, &name);
    assert!(e.starts_with(&format!("{name} is running")), "{e}");
}
