//! Targeted checks of the mutation-tracking model's rules, on its built-in scenarios run by the
//! real runner (`Run`): what the scenario expectations cannot say (counter histories, delivery
//! records, the panels' JSON). Every scenario x variant's expectations, determinism and golden
//! hashes are checked with the other built-in scenarios (tests/tests/scenarios.rs, tests/wasm).

use super::view::fmt_read;
use super::*;
use crate::engine::action::Action;
use crate::engine::Engine;
use crate::model::Model;
use crate::runner::{Run, RunOptions};
use crate::scenario::{builtin, Scenario};

fn start(sc: Scenario, variant: &str, seed: Option<u64>) -> Run {
    Run::new(
        sc,
        variant,
        seed,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{variant}: {e}"))
}

fn engine(run: &Run) -> &Engine<MutationTracking> {
    run.engine_of::<MutationTracking>()
        .expect("a mutation-tracking run")
}

/// A check that fails when an expectation is wrong: flip one expected outcome and the runner
/// must report exactly that expectation.
#[test]
fn a_wrong_expectation_is_reported() {
    let (file, text) = builtin::FILES
        .iter()
        .find(|f| f.0 == "cassandra-21181-duplicate-notify.toml")
        .unwrap();
    // The expectation "the read times out" only (a caption's check says it too).
    let at = text.find("name = \"the read times out\"").unwrap();
    let (head, tail) = text.split_at(at);
    let text = format!(
        "{head}{}",
        tail.replacen("equals = \"timeout\"", "equals = \"completed\"", 1)
    );
    let sc = Scenario::parse(file, &text, &Default::default()).unwrap();
    let report = start(sc, "buggy", None).run(None).unwrap();
    let failed: Vec<_> = report.expectations.iter().filter(|e| !e.passed).collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].detail.contains("read_outcome is timeout"),
        "{failed:?}"
    );
}

/// Run a built-in scenario variant to its end (expectations pass: see tests/tests/scenarios.rs).
fn run_variant(name: &str, variant: &str) -> Run {
    let mut run = start(builtin::get(name).unwrap(), variant, None);
    let report = run.run(None).unwrap();
    assert!(report.passed, "{name}/{variant}: {:?}", report.expectations);
    run
}

#[test]
fn bug1_buggy_times_out_with_one_remaining_mutation_and_negative_dip() {
    let run = run_variant("cassandra-21181-duplicate-notify", "buggy");
    let e = engine(&run);
    let n1 = &e.sim.nodes[0].state;
    let (id, r) = n1.recons.iter().next().unwrap();
    assert_eq!(fmt_read(&e.sim.topo, *id), "node1/r1");
    assert_eq!(r.outcome, Outcome::Timeout);
    assert_eq!(r.counters(), (1, 0, 0));
    assert_eq!(r.history.iter().map(|h| h.1).min(), Some(-1));
    // the pulled W2 was delivered as a duplicate that fired nothing
    assert!(n1
        .deliveries
        .iter()
        .any(|d| !d.new && d.fired == 0 && d.via == "PUSH_MUTATION_REQ"));
}

#[test]
fn bug2_count_rules_agree_before_the_bug4_window() {
    // in the single-log window every counting rule adds the same 1
    for v in ["buggy", "fix-count", "fix-count-final"] {
        let run = run_variant("cassandra-21181-overcount", v);
        let e = engine(&run);
        let r = e.sim.nodes[0].state.recons.values().next().unwrap();
        assert_eq!(r.outcome, Outcome::Timeout, "{v}");
        let hist: Vec<i32> = r.history.iter().map(|h| h.1).collect();
        assert_eq!(hist.iter().max(), Some(&1), "{v}: {hist:?}");
    }
}

#[test]
fn bug3_buggy_misses_node3_0_and_fixed_pulls_it() {
    let run = run_variant("cassandra-21181-reconciled-missing", "buggy");
    let e = engine(&run);
    let r = e.sim.nodes[0].state.recons.values().next().unwrap();
    assert_eq!(r.outcome, Outcome::Missing(offsets::MutId::new(2, 0)));
    assert_eq!(r.augment, vec![(offsets::MutId::new(2, 0), false)]);
    let run = run_variant("cassandra-21181-reconciled-missing", "fixed");
    let e = engine(&run);
    let r = e.sim.nodes[0].state.recons.values().next().unwrap();
    assert_eq!(r.outcome, Outcome::Completed);
    assert_eq!(r.rows.shown, vec!["W".to_string()]);
    assert_eq!(r.rows.count, 1);
}

#[test]
fn commands_validate_before_changing_anything() {
    let mut run = start(
        builtin::get("cassandra-21181-duplicate-notify").unwrap(),
        "fixed",
        None,
    );
    let e = run.engine_of_mut::<MutationTracking>().unwrap();
    e.run_until(1000, u64::MAX).unwrap();
    for (cmd, want) in [
        ("hold NOPE", "unknown message kind"),
        ("park nowhere", "unknown step"),
        ("unpark", "nothing is parked"),
        ("read node1 node1", "listed twice"),
        ("read node9", "node9"),
        ("reconciled-snapshot node3 x", "not a whole number"),
        ("frobnicate", "unknown command"),
        ("write a b", "unexpected"),
    ] {
        let before = format!("{:?}", e.sim.nodes[0].state.holding);
        let err = e
            .apply_user_action(Action::Command {
                node: "node1".into(),
                command: cmd.into(),
            })
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{cmd}: {err}");
        assert_eq!(before, format!("{:?}", e.sim.nodes[0].state.holding));
        assert!(e.sim.nodes[0].state.client_reads.is_empty());
    }
}

#[test]
fn views_json_has_the_panel_fields() {
    let run = run_variant("cassandra-21181-duplicate-notify", "buggy");
    let e = engine(&run);
    let v = e.sim.proto.views_json(&e.sim);
    let n1 = &v[0];
    assert_eq!(n1["name"], "node1");
    let read = &n1["reads"][0];
    assert_eq!(read["outcome"], "timeout");
    assert_eq!(read["mutations"], 1);
    assert_eq!(read["requested"].as_array().unwrap().len(), 2);
    assert!(read["history"].as_array().unwrap().len() >= 4);
    assert!(n1["logs"].as_array().unwrap().len() >= 2);
    assert!(n1["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["new"] == false));
    let mut out = Vec::new();
    e.sim.proto.sample(&e.sim, &mut out);
    assert_eq!(out.len(), 4 * 3);
    let c = e.sim.proto.matrix_cell(&e.sim, 0, 1);
    assert_eq!(c.text, "1/1");
}

/// The random load of `mutation-tracking-sweep` is seeded, stops at `load_for`, and sends
/// duplicates; without `load_interval` a node issues nothing by itself.
#[test]
fn random_load_is_seeded_bounded_and_duplicates() {
    let sweep = || builtin::get("mutation-tracking-sweep").unwrap();
    let ends = |seed| {
        let mut run = start(sweep(), "fixed", Some(seed));
        run.engine.run_until(20_000_000, u64::MAX).unwrap();
        let at_load_end = run.engine.hash();
        let e = engine(&run);
        let offsets: Vec<u32> = e.sim.nodes.iter().map(|n| n.state.next_offset).collect();
        let dups: u64 = e.sim.nodes.iter().map(|n| n.state.duplicates).sum();
        run.engine.run_until(30_000_000, u64::MAX).unwrap();
        let e = engine(&run);
        let later: Vec<u32> = e.sim.nodes.iter().map(|n| n.state.next_offset).collect();
        assert_eq!(offsets, later, "writes after load_for");
        assert!(offsets.iter().all(|&o| o > 50), "{offsets:?}");
        assert!(dups > 0);
        at_load_end
    };
    assert_eq!(ends(3), ends(3));
    assert_ne!(ends(3), ends(4));
    let mut off = toml::Table::new();
    off.insert("load_interval".into(), "0s".into());
    let mut quiet = Run::new(sweep(), "fixed", None, &off, &RunOptions::default()).unwrap();
    quiet.engine.run_until(30_000_000, u64::MAX).unwrap();
    let e = engine(&quiet);
    assert!(e.sim.nodes.iter().all(|n| n.state.next_offset == 0));
}

/// A bare three-replica engine running `schedule` (commands on node1..node3) to `end`.
fn engine_with(schedule: Vec<(u64, &str, &str)>, end: u64) -> Engine<MutationTracking> {
    let mut e = bare_engine(MtParams::default(), &schedule);
    e.run_until(end, u64::MAX).unwrap();
    e
}

/// A three-replica engine (node1..node3) with these params, `schedule` (commands on them)
/// queued, not yet run.
pub(super) fn bare_engine(p: MtParams, schedule: &[(u64, &str, &str)]) -> Engine<MutationTracking> {
    use crate::engine::network::Link;
    use crate::engine::{Sim, Topology};
    let names = ["node1", "node2", "node3"];
    let topo = Topology {
        names: names.iter().map(|s| s.to_string()).collect(),
        dcs: vec!["dc1".into(); 3],
        racks: vec!["r1".into(); 3],
        seeds: vec![0],
    };
    let sched = schedule
        .iter()
        .map(|&(at, node, command)| {
            (
                at,
                Action::Command {
                    node: node.into(),
                    command: command.into(),
                },
            )
        })
        .collect();
    let sim = Sim::new(
        MutationTracking::new(p).unwrap(),
        topo,
        Link::healthy(1_000, 3_000),
        1,
        sched,
        Default::default(),
    );
    Engine::new(sim, false, 1 << 16)
}

/// The retry follows the write's callback, not what the coordinator has heard: node2's
/// MUTATION_RSP for node1:0 is lost, node2's BROADCAST_LOG_OFFSETS at 1 s tells node1 that node2
/// has it (node1:0 is reconciled), and still the callback expires at write_timeout (2 s) and the
/// ActiveLogReconciler pushes node1:0 to node2 again, a duplicate there. node3 answered in time:
/// no push.
#[test]
fn an_expired_write_callback_is_retried_even_after_a_broadcast() {
    // node2 gets the MUTATION_REQ at 50 ms, after node3 has answered: the response node1 drops
    // is node2's
    let e = engine_with(
        vec![
            (0, "node2", "hold MUTATION_REQ"),
            (10_000, "node1", "write"),
            (30_000, "node1", "drop-next MUTATION_RSP"),
            (50_000, "node2", "unhold MUTATION_REQ"),
        ],
        3_000_000,
    );
    let id = offsets::MutId::new(0, 0);
    let n1 = &e.sim.nodes[0].state;
    // the broadcast made node1:0 reconciled at node1 before the callback expired
    assert!(n1.logs[&0].reconciled().contains(0));
    assert!(n1.writes.is_empty(), "reconciled writes are done");
    let pushed = |n: usize| -> Vec<bool> {
        e.sim.nodes[n]
            .state
            .deliveries
            .iter()
            .filter(|d| d.id == id && d.via == "PUSH_MUTATION_REQ")
            .map(|d| d.new)
            .collect()
    };
    assert_eq!(pushed(1), vec![false], "node2: the retry is a duplicate");
    assert_eq!(pushed(2), Vec::<bool>::new(), "node3 answered: no retry");
    // the push's response was accepted: nothing is left to retry
    assert!(n1.callbacks.is_empty(), "{:?}", n1.callbacks);
}

/// A retry that is never answered is pushed again at every expiry (the push's own callback
/// fails too), until the node answers.
#[test]
fn an_unanswered_retry_is_pushed_again_until_answered() {
    // node2 holds every mutation message for 5 s: node1's MUTATION_REQ and the pushes at about
    // 2 s and 4 s wait there, unanswered
    let e = engine_with(
        vec![
            (0, "node2", "hold MUTATION_REQ"),
            (0, "node2", "hold PUSH_MUTATION_REQ"),
            (10_000, "node1", "write"),
            (5_000_000, "node2", "unhold PUSH_MUTATION_REQ"),
            (5_000_000, "node2", "unhold MUTATION_REQ"),
        ],
        8_000_000,
    );
    let n1 = &e.sim.nodes[0].state;
    let n2 = &e.sim.nodes[1].state;
    let id = offsets::MutId::new(0, 0);
    let via: Vec<(&str, bool)> = n2
        .deliveries
        .iter()
        .filter(|d| d.id == id)
        .map(|d| (d.via, d.new))
        .collect();
    // two pushes (at ~2 s and ~4 s) released at 5 s with the MUTATION_REQ, all three applied
    // before the first finishWriting: none finds node1:0 witnessed, so every one starts writing
    // (`CoordinatorLog.startWriting` is false only for a witnessed offset; tests_code.rs)
    assert_eq!(via.len(), 3, "{via:?}");
    assert_eq!(via.iter().filter(|v| v.1).count(), 3, "{via:?}");
    assert_eq!(via.iter().filter(|v| v.0 == "PUSH_MUTATION_REQ").count(), 2);
    assert!(n1.logs[&0].reconciled().contains(0));
    assert!(n1.callbacks.is_empty(), "{:?}", n1.callbacks);
}

/// `reconciled-snapshot LOG FROM [TO]` records a range, as a streamed log's
/// `ReconciledLogSnapshot` carries `Offsets` ranges per log: node2 wrote node2:0..=3, node3
/// records 1..=2, then 0..=63 (cut at 3, the last offset node3 knows of), and the one-offset
/// form still records one. A malformed range is refused before anything changes.
#[test]
fn a_reconciled_snapshot_records_a_range_cut_at_what_the_node_knows() {
    let mut e = engine_with(
        vec![
            (0, "node2", "write a"),
            (10_000, "node2", "write b"),
            (20_000, "node2", "write c"),
            (30_000, "node2", "write d"),
            (500_000, "node3", "reconciled-snapshot node2 1 2"),
        ],
        600_000,
    );
    let snap = |e: &Engine<MutationTracking>| {
        e.sim.nodes[2].state.logs[&1]
            .snapshot_reconciled
            .to_string()
    };
    assert_eq!(e.sim.nodes[2].state.known_offsets(1), 4);
    assert_eq!(snap(&e), "{1-2}");
    let cmd = |command: &str| Action::Command {
        node: "node3".into(),
        command: command.into(),
    };
    for (c, want) in [
        ("reconciled-snapshot node2 3 1", "the range 3..=1 is empty (TO 1 is below FROM 3); name the lower offset first, e.g. `reconciled-snapshot node2 1 3`"),
        ("reconciled-snapshot node2 0 x", "TO \"x\" is not a whole number in 0..=4294967295 (or `end`)"),
        ("reconciled-snapshot node2 y 3", "FROM \"y\" is not a whole number"),
        ("reconciled-snapshot node2 4 9", "node2's log has offsets 0..=3 as far as node3 knows; FROM 4 was never written, name one below 4"),
        ("reconciled-snapshot node2 0 1 2", "unexpected \"2\""),
        ("reconciled-snapshot node2", "needs LOG_NODE FROM [TO]"),
    ] {
        let err = e.apply_user_action(cmd(c)).unwrap_err().to_string();
        assert!(err.contains(want), "{c}: {err}");
        assert_eq!(snap(&e), "{1-2}", "{c} changed nothing");
    }
    e.apply_user_action(cmd("reconciled-snapshot node2 0 63"))
        .unwrap();
    assert_eq!(snap(&e), "{0-3}");
    let log: Vec<&str> = e.trace.logs.iter().map(|l| e.trace.text(l)).collect();
    let log = log.join("\n");
    assert!(
        log.contains("node2's log {0-3} marked reconciled (4..=63 left out: node3 knows of no offset of that log past 3)"),
        "{log}"
    );
    assert!(
        e.sim.nodes[2].state.logs[&1].reconciled().contains(3),
        "the view's reconciled set has the snapshot's offsets"
    );
    let mut e = engine_with(
        vec![
            (0, "node1", "write a"),
            (10_000, "node1", "write b"),
            (20_000, "node1", "write c"),
        ],
        100_000,
    );
    let snap1 = |e: &Engine<MutationTracking>| {
        e.sim.nodes[2].state.logs[&0]
            .snapshot_reconciled
            .to_string()
    };
    e.apply_user_action(cmd("reconciled-snapshot node1 1"))
        .unwrap();
    assert_eq!(snap1(&e), "{1}", "one offset");
    e.apply_user_action(cmd("reconciled-snapshot node1 2 end"))
        .unwrap();
    assert_eq!(snap1(&e), "{1-2}", "to the last offset node3 knows");
    let err = e
        .apply_user_action(cmd("reconciled-snapshot node1 3 end"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("FROM 3 was never written"), "{err}");
}
