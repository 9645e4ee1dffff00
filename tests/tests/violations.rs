//! Invariant violations as data (issue 38): `Protocol::check` names the invariant and the nodes
//! (`engine::Violation`), and the trace keeps each one with its step and time
//! (`Trace::violations`) beside the ERROR line, so the app can mark it on the timeline before
//! the cursor gets there, name it in a banner and outline its nodes. The structured record is
//! not in the trace hash: the ERROR line, which is, says the same.

use clusterscope_core::engine::trace::{LogLevel, RecKind};
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;

fn run(name: &str, variant: &str, checkpointing: bool) -> Run {
    Run::new(
        builtin::get(name).unwrap(),
        variant,
        Some(1),
        &toml::Table::new(),
        &RunOptions {
            checkpointing,
            body_budget: 0,
            limits: Limits::default(),
        },
    )
    .unwrap()
}

/// Raft Figure 8, `unsafe-commit`: one violation, Leader Completeness, when S5 wins term 5 at
/// 10.01 s without the index 2 that S1 committed; it names S5 and S1, and the ERROR line of
/// the same step says the same. `safe`: none.
#[test]
fn figure_8_records_which_invariant_broke_where_and_on_which_nodes() {
    let mut r = run("raft-figure-8", "unsafe-commit", false);
    r.run(None).unwrap();
    let t = r.engine.trace();
    let names = &r.engine.topo().names;
    assert_eq!(t.violations.len(), 1, "{:?}", t.violations);
    assert_eq!(r.engine.violations(), 1);
    let v = &t.violations[0];
    assert_eq!(v.violation.invariant, "Leader Completeness");
    let nodes: Vec<&str> = v
        .violation
        .nodes
        .iter()
        .map(|&n| names[n as usize].as_str())
        .collect();
    assert_eq!(nodes, ["S5", "S1"]);
    assert!((10_000_000..10_020_000).contains(&v.time), "{}", v.time);
    assert_eq!(
        v.violation.detail,
        "leader S5 of term 5 lacks entry 2 that S1 committed"
    );
    // The ERROR line of that step says the same.
    let line = t
        .recs
        .iter()
        .find_map(|r| match r.kind {
            RecKind::Log { line }
                if r.step == v.step && t.logs[line as usize].level == LogLevel::Error =>
            {
                Some(&t.logs[line as usize])
            }
            _ => None,
        })
        .expect("an ERROR line at the violation's step");
    assert_eq!(t.text(line), format!("invariant violated: {}", v.violation));
    assert_eq!(line.time, v.time);
    // Before and after its step.
    assert!(t.violations_before(v.step).is_empty());
    assert_eq!(t.violations_before(v.step + 1).len(), 1);

    let mut safe = run("raft-figure-8", "safe", false);
    safe.run(None).unwrap();
    assert!(safe.engine.trace().violations.is_empty());
}

/// Acting before a violation truncates it with the rest of the future; a jump back and forth
/// (a replay, which records nothing) keeps it once.
#[test]
fn violations_follow_the_trace_when_it_is_truncated_or_replayed() {
    let mut r = run("raft-figure-8", "unsafe-commit", true);
    let end = r.scenario.duration();
    r.engine.run_until(end, u64::MAX).unwrap();
    let v = r.engine.trace().violations[0].clone();
    r.engine.jump_to_step(v.step / 2).unwrap();
    r.engine.run_until(end, u64::MAX).unwrap();
    assert_eq!(r.engine.trace().violations, vec![v.clone()]);
    // An action in the past discards the old future, the violation with it.
    r.engine.jump_to_step(v.step / 2).unwrap();
    r.engine
        .apply_user_action(clusterscope_core::engine::action::Action::Kill { node: "S5".into() })
        .unwrap();
    assert!(r.engine.trace().violations.is_empty());
}
