//! "Find a run where this fails" (issue 43, in the app): the native hunt of
//! `clusterscope_core::hunt` in the Web Workers of the sweep pool (`crate::sweep::workers`).
//! Everything that decides a result is core's ([`Plan`], [`candidate`], [`run_candidate`],
//! [`finish_by`]); this module adds only what the browser needs around it:
//!
//! - [`run_batch`]: what a worker runs for the search (exported to JS as `hunt_batch`): the
//!   candidates `first..first + count` of a plan in order, up to the first whose run fails.
//! - [`Search`]: the batches handed out and the answers back, in any order. Its result is the
//!   *lowest* failing candidate index, decided once every batch below it has answered: the
//!   candidate `clusterscope hunt` finds for the same hunt seed and budget (the CLI's `--shard`
//!   and `merge` keep the lowest index the same way).
//! - [`run_shrink`]: what a worker runs once the search decided (exported as `hunt_shrink`):
//!   core's [`finish_by`] (the shrink), then the shrunk faults recorded as a person's actions on
//!   the found seed (each at its time, [`record`]) and that replay checked again, so that the
//!   result opens as a branch of actions (on the timeline) that fails as the hunt said.
//!
//! Workers reach both through [`job`] (in the split release build the part `hunt_runs` of the
//! wasm). The panel is `crate::ui::hunt`.

use clusterscope_core::engine::action::RecordedAction;
use clusterscope_core::hunt::{
    self, candidate, finish_by, run_candidate, Found, Kind, Plan, Space, Target, Verdict,
};
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::sweep::digest;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Candidate runs a hunt in the app tries unless the person says otherwise.
pub const DEFAULT_RUNS: u64 = 2_000;
/// Most candidate runs one hunt in the app may have (the CLI runs up to 100,000,000 and
/// shards them).
pub const MAX_RUNS: u64 = 50_000;
/// Candidates per message to a worker: small, since a batch stops at its first failure and a
/// cancel loses at most one batch per worker.
pub const BATCH: u64 = 8;

/// A hunt's job in a worker (`static/sweep-worker.js`, through the binary's `hunt_batch` and
/// `hunt_shrink`): a search batch ([`run_batch`]) or a shrink ([`run_shrink`], its progress
/// heard by the closure).
pub enum Job<'a> {
    Batch {
        builtin: &'a str,
        text: &'a str,
        plan: &'a str,
        first: u64,
        count: u64,
    },
    Shrink {
        builtin: &'a str,
        text: &'a str,
        plan: &'a str,
        index: u64,
        progress: &'a mut dyn FnMut(u32, usize),
    },
}

/// Run a hunt's [`Job`]. In the split release build the hunt's code is the part `hunt_runs` of
/// the wasm (`crate::in_part!`, issue 44): a worker without it gets an error and the part is
/// wanted (`crate::split::take_wanted`), which the worker loads before it runs the job again.
pub fn job(job: Job) -> Result<String, String> {
    crate::in_part!(hunt_runs, jobs, Job<'_> => Result<String, String>, job, |job| match job {
        Job::Batch {
            builtin,
            text,
            plan,
            first,
            count,
        } => run_batch(builtin, text, plan, first, count),
        Job::Shrink {
            builtin,
            text,
            plan,
            index,
            progress,
        } => run_shrink(builtin, text, plan, index, progress),
    })
    .unwrap_or_else(|| {
        crate::split::want("hunt_runs");
        Err("the hunt's code is not loaded yet".into())
    })
}

/// A worker's parsed hunt: (builtin name, text, plan JSON) and what they give.
type Prepared = ((String, String, String), Scenario, Plan, Space);

thread_local! {
    /// The last scenario and space a worker built.
    static PREPARED: RefCell<Option<Prepared>> = const { RefCell::new(None) };
}

/// Run `f` on the scenario, plan and space of a message (parsed once per worker and hunt).
fn with_prepared<T>(
    builtin: &str,
    text: &str,
    plan_json: &str,
    f: impl FnOnce(&Scenario, &Plan, &Space) -> Result<T, String>,
) -> Result<T, String> {
    let key = (builtin.to_string(), text.to_string(), plan_json.to_string());
    PREPARED.with(|cell| {
        let mut c = cell.borrow_mut();
        if c.as_ref().is_none_or(|(k, ..)| *k != key) {
            let plan: Plan = serde_json::from_slice(plan_json.as_bytes())
                .map_err(|e| format!("hunt plan: {e}"))?;
            let s = crate::sweep::scenario_of(builtin, text)?;
            // The writer's part (`session_write`) missing: an error, the worker loads it and
            // runs the job again (`wanted_model`).
            let d = digest(&s)?;
            if d != plan.scenario_digest {
                return Err(format!(
                    "hunt: the plan is for another version of {} (digest {} vs {d})",
                    plan.scenario, plan.scenario_digest,
                ));
            }
            let space = Space::of(&s, &plan, &Limits::browser())?;
            *c = Some((key, s, plan, space));
        }
        let (_, s, plan, space) = c.as_ref().expect("just set");
        f(s, plan, space)
    })
}

/// A worker's answer to a batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchOut {
    pub first: u64,
    /// Candidates run (up to and including the failing one).
    pub done: u64,
    /// Of those, how many could not be made or had a fault that could not apply.
    pub invalid: u64,
    /// The first failing candidate of the batch.
    pub found: Option<u64>,
}

/// A worker's batch: candidates `first..first + count` (within the plan) in order, up to the
/// first whose run fails. Returns a [`BatchOut`] as JSON.
pub fn run_batch(
    builtin: &str,
    text: &str,
    plan_json: &str,
    first: u64,
    count: u64,
) -> Result<String, String> {
    with_prepared(builtin, text, plan_json, |s, plan, space| {
        if first.saturating_add(count) > plan.runs {
            return Err(format!(
                "hunt: candidates {first}..{} are not all in the plan ({} runs)",
                first.saturating_add(count),
                plan.runs
            ));
        }
        let limits = Limits::browser();
        let mut out = BatchOut {
            first,
            done: 0,
            invalid: 0,
            found: None,
        };
        for i in first..first + count {
            note_run(i);
            let (_, v) = run_candidate(s, plan, space, i, &limits);
            out.done += 1;
            match v {
                Verdict::Found(_) => {
                    out.found = Some(i);
                    break;
                }
                Verdict::Invalid(_) => out.invalid += 1,
                Verdict::Held => {}
            }
        }
        serde_json::to_string(&out).map_err(|e| e.to_string())
    })
}

/// The candidate this worker runs, left in its global `__csHuntRun`: a panic of the model stops
/// the module (`crate::crash`; wasm32 does not unwind, so the CLI's catching of a panic is not
/// possible here), and `static/sweep-worker.js` then answers "the model panicked in run N: ..."
/// (the hunt stops with that error instead of waiting for the worker).
///
/// Test hook (tests/e2e/specs/hunt-panic.mjs): a worker whose global `__csTestPanicRun` equals
/// the candidate index panics there, as a model bug would. No input reaches it (no URL, control
/// or file): only a script run in the worker sets it, the way crash.rs's `test_fail_next_update`
/// is reached only from the page's JavaScript. A real panicking model would stop failing once
/// its bug is fixed, so the e2e plants one.
#[cfg(target_arch = "wasm32")]
fn note_run(i: u64) {
    let global = js_sys::global();
    let _ = js_sys::Reflect::set(
        &global,
        &wasm_bindgen::JsValue::from_str("__csHuntRun"),
        &wasm_bindgen::JsValue::from_f64(i as f64),
    );
    let planted = js_sys::Reflect::get(
        &global,
        &wasm_bindgen::JsValue::from_str("__csTestPanicRun"),
    )
    .ok()
    .and_then(|v| v.as_f64());
    if planted == Some(i as f64) {
        panic!("planted by a test in candidate {i}");
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn note_run(_: u64) {}

/// What the search decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    /// The lowest failing candidate index.
    Found(u64),
    /// Every candidate of the budget held.
    NotFound,
}

/// One hunt's search on the main thread: batches of consecutive candidates handed out in
/// order, answers taken in any order. No batch starting at or above the lowest failure known is
/// handed out; the result waits for every batch below it.
#[derive(Clone, Debug, PartialEq)]
pub struct Search {
    pub runs: u64,
    /// The next candidate not yet handed out.
    pub next: u64,
    /// Batches out: first candidate -> count.
    out: BTreeMap<u64, u64>,
    pub done: u64,
    pub invalid: u64,
    /// The lowest failing candidate answered so far.
    pub best: Option<u64>,
}

impl Search {
    pub fn new(runs: u64) -> Search {
        Search {
            runs,
            next: 0,
            out: BTreeMap::new(),
            done: 0,
            invalid: 0,
            best: None,
        }
    }

    /// The next batch (first, count) of at most `n` candidates, if any is worth running.
    pub fn take(&mut self, n: u64) -> Option<(u64, u64)> {
        let end = self.best.unwrap_or(self.runs).min(self.runs);
        if self.next >= end {
            return None;
        }
        let count = n.max(1).min(end - self.next);
        let first = self.next;
        self.out.insert(first, count);
        self.next += count;
        Some((first, count))
    }

    /// A worker's answer (JSON of [`BatchOut`]); an answer for no batch out is ignored.
    pub fn accept(&mut self, json: &str) -> Result<(), String> {
        let b: BatchOut = serde_json::from_slice(json.as_bytes())
            .map_err(|e| format!("a hunt worker's answer: {e}"))?;
        if self.out.remove(&b.first).is_none() {
            return Ok(());
        }
        self.done += b.done;
        self.invalid += b.invalid;
        if let Some(f) = b.found {
            self.best = Some(self.best.map_or(f, |x| x.min(f)));
        }
        Ok(())
    }

    /// The result, once decided.
    pub fn decided(&self) -> Option<Decided> {
        match self.best {
            Some(b) => (!self.out.keys().any(|k| *k < b)).then_some(Decided::Found(b)),
            None => (self.next >= self.runs && self.out.is_empty()).then_some(Decided::NotFound),
        }
    }

    /// Batches still out.
    pub fn outstanding(&self) -> usize {
        self.out.len()
    }
}

/// A shrunk counterexample, as the app opens it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shrunk {
    pub found: Found,
    /// The shrunk faults as a person's actions on `found.seed`, each at its time.
    pub actions: Vec<RecordedAction>,
    /// Whether the replay of those actions fails as the hunt's run did (`Err`: why not, and the
    /// app opens the scenario with the faults scheduled instead).
    pub replay: Result<String, String>,
    /// When the target failed in the replay of the actions, if it says.
    pub failed_at_us: Option<u64>,
    /// The engine step at `failed_at_us` in that replay.
    pub at_step: Option<u64>,
    /// The scenario file of the counterexample (`hunt::found_scenario`): the shrunk faults as
    /// `[[faults]]`, the seed, the hunt as comments.
    pub file: String,
}

/// The shrunk faults of `found` as a person's actions: the found seed run to each action's
/// time, the action applied there (what a person acting at that time records). Returns the run
/// just after the last action, to go on from.
pub fn record(s: &Scenario, plan: &Plan, found: &Found, limits: &Limits) -> Result<Run, String> {
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: limits.clone(),
    };
    let mut run = Run::new(
        s.clone(),
        &plan.variant,
        Some(found.seed),
        &plan.overrides(),
        &opts,
    )?;
    for (t, a) in hunt::actions(&found.shrunk) {
        run.engine
            .run_until(t, u64::MAX)
            .map_err(|e| e.to_string())?;
        let d = a.describe();
        run.engine
            .apply_user_action(a)
            .map_err(|e| format!("{d}: {e}"))?;
    }
    Ok(run)
}

/// The session with `actions` run to its end as the branch list checks it: whether the plan's
/// target fails, and when.
pub fn replay_verdict(
    s: &Scenario,
    plan: &Plan,
    seed: u64,
    actions: &[RecordedAction],
) -> Result<(String, Option<u64>), String> {
    let text = clusterscope_core::session::export_scenario(s, seed, actions)?;
    let with = crate::reader::parse("scenario.toml", &text, &Limits::browser())?;
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: Limits::browser(),
    };
    let mut run = Run::new(with, &plan.variant, Some(seed), &plan.overrides(), &opts)?;
    run.trace_only_if_needed();
    let rep = run.run(None).map_err(|e| e.to_string())?;
    if !rep.skipped.is_empty() {
        return Err(format!("a fault did not apply: {}", rep.skipped.join("; ")));
    }
    match &plan.target {
        Target::Expectation(name) => match rep.expectations.iter().find(|e| &e.name == name) {
            Some(e) if !e.passed => Ok((e.detail.clone(), e.failed_at_us)),
            Some(_) => Err(format!(
                "\"{name}\" held when the faults were replayed as actions"
            )),
            None => Err(format!("no expectation \"{name}\" in the replay")),
        },
        Target::Invariants => {
            let v = rep.metrics.get("violations").copied().unwrap_or(0.0);
            if v > 0.0 {
                Ok((format!("{v} safety violation(s)"), None))
            } else {
                Err("no invariant broke when the faults were replayed as actions".into())
            }
        }
    }
}

/// How many re-runs of a shrink may pass between two progress reports ([`run_shrink`]).
pub const PROGRESS_EVERY: u32 = 10;

/// A worker's shrink: candidate `index` of the plan shrunk ([`finish_by`], on the same nodes), recorded as actions
/// ([`record`]) and replayed ([`replay_verdict`]). Returns a [`Shrunk`] as JSON. `progress`
/// hears (re-runs so far, actions of the smallest failing schedule so far) whenever the
/// schedule got smaller and every [`PROGRESS_EVERY`] re-runs (the worker posts it to the page's
/// hunt card, as the CLI's progress line shows it).
pub fn run_shrink(
    builtin: &str,
    text: &str,
    plan_json: &str,
    index: u64,
    progress: &mut dyn FnMut(u32, usize),
) -> Result<String, String> {
    with_prepared(builtin, text, plan_json, |s, plan, space| {
        if index >= plan.runs {
            return Err(format!("hunt: candidate {index} is not in the plan"));
        }
        let limits = Limits::browser();
        let c = candidate(plan, space, index);
        let mut last = (0, usize::MAX);
        // On the person's own cluster (no fewer nodes): the result opens as a branch of it.
        let found = finish_by(
            &hunt::Direct,
            s,
            plan,
            space,
            c,
            false,
            false,
            &limits,
            &mut |reruns, best| {
                let n = hunt::actions(best).len();
                if n != last.1 || reruns >= last.0 + PROGRESS_EVERY {
                    last = (reruns, n);
                    progress(reruns, n);
                }
            },
        );
        let file = hunt::found_scenario(s, plan, &found)?;
        let mut at_step = None;
        let (actions, replay, failed_at_us) = match record(s, plan, &found, &limits) {
            Ok(mut run) => {
                let a = run.engine.user_actions().to_vec();
                match replay_verdict(s, plan, found.seed, &a) {
                    Ok((d, at)) => {
                        // The step the failure is at, for the cursor to open there.
                        if let Some(t) = at {
                            if run.engine.run_until(t, u64::MAX).is_ok() {
                                at_step = Some(run.engine.steps());
                            }
                        }
                        (a, Ok(d), at)
                    }
                    Err(e) => (a, Err(e), None),
                }
            }
            Err(e) => (Vec::new(), Err(e), None),
        };
        serde_json::to_string(&Shrunk {
            found,
            actions,
            replay,
            failed_at_us,
            at_step,
            file,
        })
        .map_err(|e| e.to_string())
    })
}

/// A plan for the app: the open scenario (with the person's expectations), its variant, no
/// `--set`, the fault kinds of `faults` (a preset or a list, as `--faults`), within
/// [`MAX_RUNS`].
pub fn plan(
    s: &Scenario,
    variant: &str,
    target: Target,
    faults: &str,
    hunt_seed: u64,
    runs: u64,
) -> Result<Plan, String> {
    if !(1..=MAX_RUNS).contains(&runs) {
        return Err(format!(
            "Budget: a whole number of runs from 1 to {MAX_RUNS} (the CLI's `clusterscope hunt` \
             runs more, and shards them)."
        ));
    }
    let kinds = Kind::parse_list(faults).map_err(|e| e.replacen("--faults", "Faults", 1))?;
    Plan::new(
        s,
        variant,
        &toml::Table::new(),
        target,
        kinds,
        hunt_seed,
        runs,
        &Limits::browser(),
    )
    .map_err(|e| {
        e.replacen("--break", "Target", 1)
            .replacen("--invariants", "Target", 1)
    })
}

/// The command that runs the same hunt in the CLI.
pub fn cli_line(plan: &Plan, faults: &str) -> String {
    let target = match &plan.target {
        Target::Expectation(n) => format!("--break \"{n}\""),
        Target::Invariants => "--invariants".into(),
    };
    format!(
        "clusterscope hunt {} --variant {} {target} --faults {faults} --budget {}runs --hunt-seed {}",
        plan.scenario, plan.variant, plan.runs, plan.hunt_seed
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clusterscope_core::scenario::builtin;

    const TARGET: &str = "one leader once the election settles";

    fn raft_plan(runs: u64) -> (Scenario, Plan, String) {
        let s = builtin::get("sandbox-raft").unwrap();
        let mut p = plan(
            &s,
            "sandbox",
            Target::Expectation(TARGET.into()),
            "all",
            9,
            runs,
        )
        .unwrap();
        p.shrink_reruns = 40;
        let pj = serde_json::to_string(&p).unwrap();
        (s, p, pj)
    }

    /// The in-app search, its batches answered out of order (the last handed out first), finds
    /// the candidate core's `search` finds for the same plan, and the same shrunk schedule; the
    /// shrunk faults recorded as actions fail the same way when replayed.
    #[test]
    fn the_app_finds_what_core_finds() {
        let (s, p, pj) = raft_plan(400);
        let l = Limits::browser();
        let space = Space::of(&s, &p, &l).unwrap();
        let want = hunt::search(&s, &p, &space, 0..p.runs, &l, &mut |_| {}).expect("core finds");
        // `clusterscope hunt sandbox-raft --variant sandbox --break ... --hunt-seed 9`: run 44.
        assert_eq!((want.index, want.seed), (43, 2751569760));
        let mut se = Search::new(p.runs);
        let mut rounds = 0;
        while se.decided().is_none() {
            rounds += 1;
            assert!(rounds < 1000);
            // Three "workers": take three batches, answer them in reverse order.
            let batches: Vec<_> = (0..3).filter_map(|_| se.take(BATCH)).collect();
            for (first, count) in batches.into_iter().rev() {
                let ans = run_batch("sandbox-raft", "", &pj, first, count).unwrap();
                se.accept(&ans).unwrap();
                se.accept(&ans).unwrap(); // a duplicate counts once
            }
        }
        assert_eq!(se.decided(), Some(Decided::Found(want.index)));
        assert!(se.take(BATCH).is_none(), "nothing past the result");
        let mut heard: Vec<(u32, usize)> = Vec::new();
        let sh: Shrunk = serde_json::from_str(
            &run_shrink("sandbox-raft", "", &pj, want.index, &mut |r, n| {
                heard.push((r, n))
            })
            .unwrap(),
        )
        .unwrap();
        // Core's shrink on the same nodes (the app's: no fewer nodes).
        let c = hunt::candidate(&p, &space, want.index);
        let want = finish_by(
            &hunt::Direct,
            &s,
            &p,
            &space,
            c,
            false,
            false,
            &l,
            &mut |_, _| {},
        );
        assert_eq!(sh.found, want);
        assert_eq!(sh.actions.len(), hunt::actions(&want.shrunk).len());
        // Progress: re-runs growing up to the whole shrink's, within its bound, and the last
        // report's schedule the shrunk one.
        assert!(!heard.is_empty());
        assert!(heard.windows(2).all(|w| w[0].0 <= w[1].0), "{heard:?}");
        let (r, n) = *heard.last().unwrap();
        assert!(
            r <= want.reruns && want.reruns <= hunt::most_reruns(&p),
            "{heard:?}"
        );
        assert_eq!(n, hunt::actions(&want.shrunk).len(), "{heard:?}");
        assert!(sh.replay.is_ok(), "{:?}", sh.replay);
        assert!(sh.file.contains("[[faults]]"), "{}", sh.file);
    }

    /// A budget with no failing candidate decides "not found" only once every batch answered;
    /// an out-of-range batch and a foreign plan are refused.
    #[test]
    fn not_found_waits_for_every_batch() {
        let mut se = Search::new(5);
        let a = se.take(3).unwrap();
        let b = se.take(3).unwrap();
        assert_eq!((a, b, se.take(3)), ((0, 3), (3, 2), None));
        let out = |first, done| {
            serde_json::to_string(&BatchOut {
                first,
                done,
                invalid: 0,
                found: None,
            })
            .unwrap()
        };
        se.accept(&out(3, 2)).unwrap();
        assert_eq!(se.decided(), None);
        se.accept(&out(0, 3)).unwrap();
        assert_eq!((se.decided(), se.done), (Some(Decided::NotFound), 5));
        // A failure at 7 decides only after the batch below it; none is handed out past it.
        let mut se = Search::new(100);
        let a = se.take(5).unwrap();
        let b = se.take(5).unwrap();
        se.accept(
            &serde_json::to_string(&BatchOut {
                first: b.0,
                done: 3,
                invalid: 0,
                found: Some(7),
            })
            .unwrap(),
        )
        .unwrap();
        assert_eq!((se.decided(), se.take(5)), (None, None));
        se.accept(&out(a.0, 5)).unwrap();
        assert_eq!(se.decided(), Some(Decided::Found(7)));
        let (_, _, pj) = raft_plan(10);
        assert!(run_batch("sandbox-raft", "", &pj, 8, 3)
            .unwrap_err()
            .contains("not all in the plan"));
        assert!(run_batch("pingpong", "", &pj, 0, 1)
            .unwrap_err()
            .contains("another version"));
        let s = builtin::get("sandbox-raft").unwrap();
        let t = Target::Expectation(TARGET.into());
        assert!(plan(&s, "sandbox", t.clone(), "all", 1, MAX_RUNS + 1)
            .unwrap_err()
            .starts_with("Budget"));
        assert!(plan(&s, "sandbox", t, "bogus", 1, 10)
            .unwrap_err()
            .starts_with("Faults"));
    }
}
