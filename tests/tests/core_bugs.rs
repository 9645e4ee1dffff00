//! Minimal reproductions of bugs in core found by the robustness harness (property tests,
//! run them with `cargo test -p clusterscope-tests --test core_bugs -- --ignored`. When a fix
//! rows of tests/tests/bad_input.rs instead.)

use clusterscope_core::engine::action::{Action, Dur, RecordedAction};
use clusterscope_core::engine::trace::RecKind;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::{ScenarioRef, Session};
use std::panic::{catch_unwind, AssertUnwindSafe};

const HEAD: &str = r#"name = "bug"
title = "bug reproduction"
protocol = "gossip"
duration = "1m"
"#;

const NODES: &str = r#"[cluster]
nodes = [{ name = "A" }, { name = "B" }, { name = "C" }]
"#;

const VARIANT: &str = r#"[[variants]]
name = "fixed"
params = { echo = "fixed" }
"#;

fn opts() -> RunOptions {
    RunOptions {
        checkpointing: true,
        body_budget: 0,
        limits: Limits::default(),
    }
}

/// Run `text` (variant `fixed`) to `until`; a panic is returned as its message.
fn run_to(text: &str, until: u64) -> Result<Run, String> {
    let s = Scenario::parse("bug.toml", text, &Limits::default()).map_err(|e| e.to_string())?;
    let mut run = Run::new(s, "fixed", None, &toml::Table::new(), &opts())?;
    let r = catch_unwind(AssertUnwindSafe(|| run.engine.run_until(until, 10_000_000)));
    match r {
        Ok(Ok(_)) => Ok(run),
        Ok(Err(e)) => Err(format!("run error: {e}")),
        Err(p) => Err(format!(
            "PANIC: {}",
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
    }
}

fn times_are_monotone(run: &Run) -> bool {
    let recs = &run.trace().recs;
    recs.iter()
        .zip(recs.iter().skip(1))
        .all(|(a, b)| a.time <= b.time)
}

/// A recorded user action whose `at` lies after the time its step is reached moves the clock
/// forward at that step; the next queue events are earlier. Debug builds panic ("time went
/// backwards", engine/mod.rs `step_queue`); release builds let time run backwards. Reachable
/// from a scenario's `[[recorded]]` (only `at <= duration` is checked) and from any permalink
/// (`Session::decode` does not look at `at`).
#[test]
fn recorded_action_at_ahead_of_its_step() {
    let text = format!(
        "{HEAD}{NODES}{VARIANT}[[recorded]]\nstep = 5\nat = \"50s\"\naction = \"kill\"\nnode = \"A\"\n"
    );
    // Either the file is refused, or the run keeps time monotone.
    if Scenario::parse("bug.toml", &text, &Limits::default()).is_ok() {
        let run = run_to(&text, 60_000_000).unwrap_or_else(|e| panic!("{e}"));
        assert!(times_are_monotone(&run), "trace time went backwards");
    }
}

/// The same through a permalink: it decodes, and replaying it breaks time.
#[test]
fn permalink_action_at_ahead_of_its_step() {
    let link = Session {
        actions: vec![RecordedAction {
            step: 5,
            at: Dur(50_000_000),
            action: Action::Kill { node: "A".into() },
        }],
        ..Session::new(
            ScenarioRef::Builtin("cassandra-21636-packet-loss".into()),
            "fixed".into(),
            1,
        )
    }
    .encode();
    let Ok(s) = Session::decode(&link, &Limits::default()) else {
        return; // refused: fixed
    };
    let scenario =
        clusterscope_core::scenario::builtin::get("cassandra-21636-packet-loss").unwrap();
    let mut run = Run::new(
        scenario,
        &s.variant,
        Some(s.seed),
        &toml::Table::new(),
        &opts(),
    )
    .unwrap();
    run.engine.set_user_actions(s.actions);
    let r = catch_unwind(AssertUnwindSafe(|| {
        run.engine.run_until(60_000_000, 10_000_000)
    }));
    assert!(r.is_ok(), "replaying the permalink panicked");
    assert!(times_are_monotone(&run), "trace time went backwards");
}

/// `generation_base` is not bounded: near `u32::MAX`, the generation arithmetic overflows
/// (gossip `apply_state_locally`: `lg + MAX_GENERATION_DIFFERENCE`; a restart's `old_gen + 1`;
/// `enablegossip`'s `generation() + 1`). Debug builds panic "attempt to add with overflow" in
/// the first gossip round; release builds wrap, so every remote state looks too new and is
/// ignored. Cassandra's generation is an `int` (seconds since the epoch).
#[test]
fn generation_base_near_u32_max_overflows() {
    let text = format!("{HEAD}{NODES}[params]\ngeneration_base = 4294967295\n{VARIANT}");
    let s = Scenario::parse("bug.toml", &text, &Limits::default()).unwrap();
    if let Err(e) = Run::new(s, "fixed", None, &toml::Table::new(), &opts()) {
        // Refused with a message naming the parameter: fixed.
        assert!(e.contains("generation_base"), "{e}");
        return;
    }
    let run = run_to(&text, 5_000_000).unwrap_or_else(|e| panic!("{e}"));
    // Healthy cluster: everyone still sees everyone UP after 5 s.
    assert!(clusterscope_core::gossip::view::down_pairs(
        run.sim_of::<clusterscope_core::gossip::Gossip>().unwrap()
    )
    .is_empty());
}

/// The same overflow reached by a restart (no gossip round needed): `old_gen + 1`.
#[test]
fn restart_at_max_generation_overflows() {
    let text = format!(
        "{HEAD}{NODES}[params]\ngeneration_base = 4294967295\ngossip_task = false\n{VARIANT}"
    );
    let s = Scenario::parse("bug.toml", &text, &Limits::default()).unwrap();
    let Ok(mut run) = Run::new(s, "fixed", None, &toml::Table::new(), &opts()) else {
        return; // refused: fixed
    };
    run.engine.run_until(1_000_000, 1_000_000).unwrap();
    let r = catch_unwind(AssertUnwindSafe(|| {
        run.engine.apply_user_action(Action::Restart {
            node: "A".into(),
            kill: true,
            down_for: Some(Dur(1_000_000)),
        })?;
        run.engine.run_until(5_000_000, 1_000_000)
    }));
    assert!(r.is_ok(), "restart at the largest generation panicked");
}

/// `cluster.generate.prefix` is not validated like listed node names (1-64 characters, no
/// spaces or commas): an 800 KB file makes 512 names of 800 KB each, 400 MB in all (a memory
/// bomb for the browser through a permalink's custom scenario), and names with spaces and
/// commas that break partition groups and the UI.
#[test]
fn generate_prefix_is_not_validated() {
    let with_space =
        format!("{HEAD}[cluster]\ngenerate = {{ count = 3, prefix = \"node x,\" }}\n{VARIANT}");
    let e = Scenario::parse("bug.toml", &with_space, &Limits::default())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("prefix"),
        "a prefix with a space and a comma is accepted: {e:?}"
    );

    let long = "x".repeat(800_000);
    let bomb =
        format!("{HEAD}[cluster]\ngenerate = {{ count = 512, prefix = \"{long}\" }}\n{VARIANT}");
    match Scenario::parse("bug.toml", &bomb, &Limits::default()) {
        Err(e) => assert!(e.to_string().contains("prefix"), "{e}"),
        Ok(s) => {
            let bytes: usize = s.topo.names.iter().map(|n| n.len()).sum();
            panic!(
                "an {} byte file made {bytes} bytes of node names",
                bomb.len()
            );
        }
    }
}

/// Sanity for the reproductions above: the same scenario without the bad value runs cleanly
/// (so the ignored tests fail for the reason they name, not for a broken fixture).
#[test]
fn fixtures_run_cleanly_without_the_bad_value() {
    let text = format!(
        "{HEAD}{NODES}{VARIANT}[[recorded]]\nstep = 5\nat = \"0s\"\naction = \"kill\"\nnode = \"A\"\n"
    );
    let run = run_to(&text, 60_000_000).unwrap();
    assert!(times_are_monotone(&run));
    assert!(run
        .trace()
        .recs
        .iter()
        .any(|r| matches!(r.kind, RecKind::Action { .. })));
    let text = format!("{HEAD}{NODES}[params]\ngeneration_base = 2000000000\n{VARIANT}");
    let run = run_to(&text, 5_000_000).unwrap();
    assert!(clusterscope_core::gossip::view::down_pairs(
        run.sim_of::<clusterscope_core::gossip::Gossip>().unwrap()
    )
    .is_empty());
}

/// Expectations cost what they sample, never expectations x steps (issue 13, item 8: 1,000
/// `during` expectations made a 512-node run 25x slower). Counted, not timed: 1,000 windows of
/// 10 s each over a 1-minute run are sampled at their start, each second inside and their end
/// (11 times), and the 1,000 copies of one query at one time are evaluated once.
#[test]
fn during_expectations_are_sampled_at_their_own_times() {
    let expect = |i: usize, observer: &str| {
        format!(
            "[[expect]]\nname = \"e{i}\"\nview = \"liveness\"\nobserver = \"{observer}\"\n\
             peer = \"B\"\nduring = [\"20s\", \"30s\"]\nequals = \"UP\"\n"
        )
    };
    let run = |observers: &[&str]| {
        let exps: String = (0..1000)
            .map(|i| expect(i, observers[i % observers.len()]))
            .collect();
        let text = format!("{HEAD}{NODES}{VARIANT}{exps}");
        let s = Scenario::parse("bug.toml", &text, &Limits::default()).unwrap();
        let mut run = Run::new(s, "fixed", None, &toml::Table::new(), &opts()).unwrap();
        let report = run.run(None).unwrap();
        assert!(
            report.passed,
            "{:?}",
            report.expectations.iter().find(|e| !e.passed)
        );
        assert!(
            report.events > 1000,
            "the run has many more steps than samples"
        );
        run.queries_evaluated
    };
    // One query (A's view of B) at 11 sample times.
    assert_eq!(run(&["A"]), 11);
    // Two distinct queries (A's and C's view of B).
    assert_eq!(run(&["A", "C"]), 22);
}
