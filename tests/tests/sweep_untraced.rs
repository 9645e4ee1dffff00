//! A sweep runs its seeds untraced (no records, log lines or trace hash: `Sim::set_tracing`)
//! unless one of the variant's expectations reads the trace (the `log` view). What a seed
//! reports must not depend on it: for every built-in scenario and variant, two seeds of the
//! sweep's job are compared with the same seeds run traced, expectation by expectation and
//! metric by metric. Large scenarios are cut at 30 s of virtual time to keep this quick. The same
//! runs check that a run names all its metrics from its start.

use clusterscope_core::engine::action::{Action, Dur, RecordedAction};
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
                // A run names its metrics from the start (`clusterscope sweep --plot-of` checks
                // a metric's name against a fresh run's before the sweep runs).
                let named: Vec<String> = r.metrics().into_keys().collect();
                let rep = r.run(until).unwrap();
                let at = format!("{} [{v}] seed {}", s.raw.name, o.seed);
                assert_eq!(
                    named,
                    rep.metrics.keys().cloned().collect::<Vec<_>>(),
                    "{at}: metric names at the start and at the end"
                );
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

/// `clusterscope run` without `--trace` hashes the records but keeps none unless an
/// expectation reads them (`Run::keep_records_only_if_needed`, issue 44): for every built-in
/// scenario and variant (cut at 20 s of virtual time), the same report as a run that keeps them
/// (trace hash, events, every expectation's verdict and detail, metrics), and no records kept.
#[test]
fn a_run_that_keeps_no_records_reports_the_same() {
    let (mut kept_none, mut kept) = (0, 0);
    for s in builtin::all() {
        for v in s.raw.variants.iter().map(|v| v.name.clone()) {
            let mk = || {
                Run::new(
                    s.clone(),
                    &v,
                    None,
                    &toml::Table::new(),
                    &RunOptions {
                        body_budget: 0,
                        ..RunOptions::default()
                    },
                )
                .unwrap_or_else(|e| panic!("{} {v}: {e}", s.raw.name))
            };
            let (mut a, mut b) = (mk(), mk());
            b.keep_records_only_if_needed();
            let (ra, rb) = (
                a.run(Some(20_000_000)).unwrap(),
                b.run(Some(20_000_000)).unwrap(),
            );
            let at = format!("{} [{v}]", s.raw.name);
            assert_eq!(ra.trace_hash, rb.trace_hash, "{at}");
            assert_eq!(ra.events, rb.events, "{at}");
            assert_eq!(ra.expectations, rb.expectations, "{at}");
            assert_eq!(ra.metrics, rb.metrics, "{at}");
            assert!(
                !a.trace().recs.is_empty(),
                "{at}: the reference keeps records"
            );
            if b.needs_trace() {
                assert_eq!(b.trace().recs.len(), a.trace().recs.len(), "{at}");
                kept += 1;
            } else {
                assert_eq!(b.trace().recs.len(), 0, "{at}: no records kept");
                assert_eq!(b.trace().logs.len(), 0, "{at}: no log lines kept");
                kept_none += 1;
            }
        }
    }
    assert!(
        kept_none > 10 && kept > 0,
        "kept none {kept_none}, kept {kept}"
    );
}

/// An untraced run keeps no trace and says so instead of showing a hash.
#[test]
fn an_untraced_run_says_so() {
    let s = builtin::get("sandbox-gossip").unwrap();
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
    assert!(rep.events > 300, "it ran: {} events", rep.events);
    assert_eq!(r.trace().recs.len(), 0);
    assert_eq!(r.trace().logs.len(), 0);
}

/// With recorded user actions (what the Expectations list and the branch list check in a
/// worker): a kill, a start and a link cut at engine steps give the same expectations
/// untraced as traced, time windows and failure times included.
#[test]
fn recorded_actions_replay_the_same_untraced() {
    let s = builtin::get("sandbox-gossip").unwrap();
    let v = Run::default_variant(&s);
    let actions = vec![
        RecordedAction {
            step: 400,
            at: Dur(2_000_000),
            action: Action::Kill { node: "C".into() },
        },
        RecordedAction {
            step: 900,
            at: Dur(5_000_000),
            action: Action::Start { node: "C".into() },
        },
        RecordedAction {
            step: 1_500,
            at: Dur(8_000_000),
            action: Action::DropLink {
                from: "A".into(),
                to: "B".into(),
                one_way: false,
                down_for: None,
            },
        },
    ];
    let run = |traced: bool| {
        let mut r = Run::new(
            s.clone(),
            &v,
            None,
            &toml::Table::new(),
            &RunOptions {
                body_budget: 0,
                checkpointing: false,
                limits: Limits::default(),
            },
        )
        .unwrap();
        assert!(
            !r.needs_trace(),
            "a scenario whose expectations do not read the trace"
        );
        r.engine.set_user_actions(actions.clone());
        r.engine.set_tracing(traced);
        r.run(None).unwrap()
    };
    let (a, b) = (run(true), run(false));
    assert!(a.expectations.len() > 1);
    assert_eq!(a.expectations, b.expectations);
    assert_eq!(a.metrics, b.metrics);
    assert_eq!((a.events, a.end_time_us), (b.events, b.end_time_us));
    assert_eq!(b.trace_hash, "not traced");
}
