//! "Expectations" of the open session: the scenario's expectations for its variant, checked by a
//! whole run of the session (variant, seed, the person's recorded actions and forks, replayed at
//! their exact steps) in a Web Worker of the sweep pool, so the page never waits for it. The
//! result says per expectation whether it held, why, when it is checked and when it failed: the
//! panel (`crate::ui::checks`) places that against the replay's cursor.

use clusterscope_core::engine::action::RecordedAction;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{ExpectResult, Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::ScenarioRef;

use super::check_wire::Checked;

/// The part of the wasm holding the check's whole run (`Run::run`, the expectations'
/// evaluation) in the split release build: a worker fetches it for its first check, right after
/// the page's first frame (`static/sweep-worker.js`: [`check_session`] wants it), so it is not in
/// the first download (issue 44).
pub const PART: &str = "check_runs";

/// What the part runs.
enum Job<'a> {
    /// [`check_session`]'s run.
    Check {
        builtin: &'a str,
        text: &'a str,
        variant: &'a str,
        seed: u64,
    },
    /// [`bench_engine`]'s run: the events run.
    Bench(&'a str),
    /// Nothing: whether the part is in ([`bench_part`]).
    Probe,
}

/// `job` run in the part [`PART`] (`crate::in_part!`): `None` when it is not loaded (nothing
/// ran), and the part is then wanted (`crate::split::take_wanted`).
fn run(job: Job) -> Option<Result<String, String>> {
    let r = crate::in_part!(check_runs, run, Job<'_> => Result<String, String>, job, |job| match job {
        Job::Check {
            builtin,
            text,
            variant,
            seed,
        } => check_now(builtin, text, variant, seed),
        Job::Bench(builtin) => bench_now(builtin),
        Job::Probe => Ok(String::new()),
    });
    if r.is_none() {
        crate::split::want(PART);
    }
    r
}

/// Run the session (`text`: a scenario file with its `[[recorded]]` actions, or `builtin`'s name
/// when there are none) to its end and check every expectation of `variant`, as `clusterscope run`
/// does. Returns [`Checked`] as `check_wire` writes it. In the split release build an error
/// while the part [`PART`] is not loaded (the worker loads it and asks again).
pub fn check_session(
    builtin: &str,
    text: &str,
    variant: &str,
    seed: u64,
) -> Result<String, String> {
    run(Job::Check {
        builtin,
        text,
        variant,
        seed,
    })
    .unwrap_or_else(|| {
        Err(format!(
            "the check's code is not loaded (a part of the app, split/{PART})"
        ))
    })
}

fn check_now(builtin: &str, text: &str, variant: &str, seed: u64) -> Result<String, String> {
    let s = super::scenario_of(builtin, text)?;
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: Limits::browser(),
    };
    let mut run = Run::new(s, variant, Some(seed), &toml::Table::new(), &opts)?;
    run.trace_only_if_needed();
    let rep = run.run(None).map_err(|e| e.to_string())?;
    Ok(super::check_wire::write(&Checked {
        end_us: rep.end_time_us,
        passed: rep.passed,
        expectations: rep.expectations,
        skipped: rep.skipped,
    }))
}

/// The engine alone on a built-in scenario's default variant, the way `clusterscope run` runs
/// it without `--trace` (no checkpoints, no message bodies): the events run (`tests/e2e/
/// bench.mjs` through the page's `bench_engine`, after [`bench_part`]'s part is loaded).
pub fn bench_engine(builtin: &str) -> Result<u64, String> {
    run(Job::Bench(builtin))
        .unwrap_or_else(|| Err(format!("split/{PART} is not loaded")))
        .and_then(|n| n.parse().map_err(|_| n))
}

fn bench_now(builtin: &str) -> Result<String, String> {
    let s = crate::builtins::get(builtin)?;
    let variant = Run::default_variant(&s);
    let opts = RunOptions {
        checkpointing: false,
        body_budget: 0,
        limits: Limits::browser(),
    };
    let mut run = Run::new(s, &variant, None, &toml::Table::new(), &opts)?;
    let report = run.run(None).map_err(|e| e.to_string())?;
    let mut out = String::new();
    clusterscope_core::text::push_u64(&mut out, report.events);
    Ok(out)
}

/// The part [`bench_engine`] needs loaded first, if it is not (the split release build).
pub fn bench_part() -> Option<&'static str> {
    run(Job::Probe).is_none().then(|| {
        crate::split::take_wanted();
        PART
    })
}

/// What a worker needs to check a session: the built-in's name (no recorded actions), else a
/// scenario file's text (an imported scenario, or one with the recorded actions as
/// `[[recorded]]`). The Expectations list and the branch list (`model/branches.rs`) both go
/// through this and [`check_session`] in a worker.
pub fn session_job(
    scenario_ref: &ScenarioRef,
    scenario: &Scenario,
    seed: u64,
    actions: &[RecordedAction],
) -> Result<(String, String), String> {
    match (scenario_ref, actions.is_empty()) {
        (r, true) => Ok(crate::builtins::job(r)),
        _ => clusterscope_core::session::export_scenario(scenario, seed, actions)
            .map(|text| (String::new(), text))
            .map_err(|e| e.to_string()),
    }
}

/// The expectations in a worker's answer to [`check_session`].
pub fn expectations_of(out: Result<String, String>) -> Result<Vec<ExpectResult>, String> {
    out.and_then(|o| super::check_wire::read(&o))
        .map(|c| c.expectations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clusterscope_core::engine::action::{Action, Dur, RecordedAction};
    use clusterscope_core::scenario::builtin;

    fn checked(builtin: &str, text: &str, variant: &str) -> Checked {
        super::super::check_wire::read(&check_session(builtin, text, variant, 1).unwrap()).unwrap()
    }

    /// The buggy packet-loss run holds every expectation; the same session with a recorded
    /// action (C stopped at 20 s, at its exact step) fails some, each with its failure time
    /// inside its window and the reason; a broken scenario text is an error, not a result.
    #[test]
    fn a_session_with_recorded_actions_is_checked_as_it_replays() {
        let c = checked("cassandra-21636-packet-loss", "", "buggy");
        assert!(c.passed, "{c:?}");
        assert_eq!(c.end_us, 12 * 60 * 1_000_000);
        assert!(c.expectations.iter().all(|e| e.failed_at_us.is_none()));
        let s = builtin::get("cassandra-21636-packet-loss").unwrap();
        let mut run = Run::new(
            s.clone(),
            "buggy",
            Some(1),
            &toml::Table::new(),
            &RunOptions::default(),
        )
        .unwrap();
        run.engine.run_until(20_000_000, u64::MAX).unwrap();
        let stop = RecordedAction {
            step: run.engine.steps(),
            at: Dur(run.engine.now()),
            action: Action::Stop { node: "C".into() },
        };
        let text = clusterscope_core::session::export_scenario(&s, 1, &[stop]).unwrap();
        let f = checked("", &text, "buggy");
        assert!(!f.passed);
        let failed: Vec<&str> = f
            .expectations
            .iter()
            .filter(|e| !e.passed)
            .map(|e| e.name.as_str())
            .collect();
        // With C gone, A and B find each other again: the incident's "DOWN forever" fails at
        // the first sample of its window.
        assert!(
            failed.contains(&"A sees B DOWN from 5 s after the heal to the end"),
            "{f:?}"
        );
        for e in f.expectations.iter().filter(|e| !e.passed) {
            let t = e.failed_at_us.expect("a failure time");
            assert!(e.window_us[0] <= t && t <= e.window_us[1], "{e:?}");
        }
        let a = f
            .expectations
            .iter()
            .find(|e| e.name.starts_with("A sees B DOWN"))
            .unwrap();
        assert_eq!(a.failed_at_us, Some(a.window_us[0]));
        assert!(a.detail.contains("liveness is UP"), "{a:?}");
        assert!(check_session("", "not toml", "buggy", 1).is_err());
    }
}
