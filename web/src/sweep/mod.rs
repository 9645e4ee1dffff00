//! "How often?" (issue 19, in the app): the open scenario and variant over many seeds in Web
//! Workers. Everything that decides a result is `clusterscope_core::sweep` (the plan, one job's
//! [`Outcome`], [`summarize`]); this module adds only what the browser needs around it:
//!
//! - [`run_batch`]: what a worker runs (exported to JS as `sweep_jobs` by the binary,
//!   `web/src/main.rs`): a plan and some job numbers in, their outcomes as JSON out. The worker
//!   (`static/sweep-worker.js`) imports the app's own wasm-bindgen module, so no second copy of
//!   the wasm is shipped.
//! - [`Sweep`]: the jobs handed out so far and the outcomes back, in any order; its
//!   [`Sweep::summary`] over whatever has completed (a cancelled sweep keeps its partial results).
//! - [`Progress`] (seeds/s, time left) and [`histogram`] (a metric's per-seed values in bins).
//!
//! The panel is `crate::ui::sweep`; the workers themselves `crate::sweep::workers`.

pub mod check;
pub mod check_wire;
pub mod workers;

use clusterscope_core::engine::action::{Action, RecordedAction};
use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::Scenario;
use clusterscope_core::sweep::{digest, run_job, summarize, Outcome, Partial, Plan, Summary};
use clusterscope_core::time::fmt_duration;
use std::cell::RefCell;

/// Most seeds one sweep in the app may have.
pub const MAX_SEEDS: u64 = 10_000;
/// Seeds a sweep runs unless the person says otherwise.
pub const DEFAULT_SEEDS: u64 = 100;
/// Most workers, whatever `navigator.hardwareConcurrency` says.
pub const MAX_WORKERS: usize = 8;

/// Workers for `jobs` jobs on a machine reporting `cores` logical cores: one per core, at most
/// [`MAX_WORKERS`], at least one, never more than there are jobs.
pub fn worker_count(cores: f64, jobs: u64) -> usize {
    let c = if cores.is_finite() && cores >= 1.0 {
        cores as usize
    } else {
        1
    };
    c.clamp(1, MAX_WORKERS).min(jobs.max(1) as usize)
}

/// Jobs per message to a worker: small enough that progress moves and a cancel loses little,
/// large enough that messages cost nothing next to the runs (1 to 16).
pub fn batch_size(remaining: u64, workers: usize) -> u64 {
    (remaining / (workers.max(1) as u64 * 8)).clamp(1, 16)
}

thread_local! {
    /// The last scenario a worker parsed, by (builtin name, text): a sweep sends the same one
    /// with every batch.
    static SCENARIO: RefCell<Option<((String, String), Scenario)>> = const { RefCell::new(None) };
}

/// The scenario a sweep names: a built-in by name (its text sent along: a worker downloads
/// nothing, `crate::builtins::job`), else the text of an imported file.
pub fn scenario_of(builtin_name: &str, text: &str) -> Result<Scenario, String> {
    if builtin_name.is_empty() {
        crate::reader::parse("scenario.toml", text, &Limits::browser())
    } else {
        if !text.is_empty() {
            crate::builtins::provide(builtin_name, text)?;
        }
        crate::builtins::get(builtin_name)
    }
}

/// The scenario with a session's recorded actions as timed faults (`[[faults]]` at their virtual
/// times), so that a sweep applies them to every seed: recorded actions are tied to engine steps,
/// which differ per seed, times are not. Forks (`Action::Message`, about one message of one seed)
/// are left out and counted. Returns the scenario file's text (checked: it parses) and the count
/// left out.
pub fn with_actions_as_faults(
    s: &Scenario,
    actions: &[RecordedAction],
) -> Result<(String, usize), String> {
    let mut raw = s.raw.clone();
    raw.recorded.clear();
    let mut forks = 0;
    for a in actions {
        if matches!(a.action, Action::Message { .. }) {
            forks += 1;
            continue;
        }
        let mut t = toml::Table::try_from(&a.action)
            .map_err(|e| format!("the action at {}: {e}", fmt_duration(a.at.0)))?;
        t.insert("at".into(), toml::Value::String(fmt_duration(a.at.0)));
        raw.faults.push(t);
    }
    let text = s.to_toml(&raw)?;
    crate::reader::parse("scenario.toml", &text, &Limits::browser())
        .map_err(|e| format!("your actions as faults: {e}"))?;
    Ok((text, forks))
}

/// Most values one grid parameter may take in the app (a heatmap stays legible).
pub const MAX_GRID_VALUES: usize = 12;
/// Most runs (cells x seeds) one sweep in the app may have.
pub const MAX_RUNS: u64 = 20_000;

/// The grid of a sweep from the panel's rows (`key`, `values` as typed: "10, 100, 400"); rows
/// with an empty key are unused. Each axis is checked as `--grid` checks it, and against the app's
/// limits; every value is tried on the scenario (`Run::new`, nothing run) so that a value the
/// model refuses is named before any worker starts.
pub fn grid_of(
    s: &Scenario,
    variant: &str,
    seeds: u64,
    rows: &[(String, String)],
) -> Result<Vec<clusterscope_core::sweep::Axis>, String> {
    use clusterscope_core::runner::{Run, RunOptions};
    use clusterscope_core::sweep::Axis;
    let mut axes = Vec::new();
    for (key, values) in rows.iter().filter(|(k, _)| !k.trim().is_empty()) {
        let a = Axis::parse(&format!("{}={}", key.trim(), values.trim()))
            .map_err(|e| e.replacen("--grid", "Vary", 1))?;
        if a.values.len() > MAX_GRID_VALUES {
            return Err(format!(
                "Vary {}: {} values; at most {MAX_GRID_VALUES} per parameter in the app (the CLI's \
                 `clusterscope sweep --grid` takes more).",
                a.key,
                a.values.len()
            ));
        }
        axes.push(a);
    }
    let cells: u64 = axes.iter().map(|a| a.values.len() as u64).product();
    if cells * seeds > MAX_RUNS {
        return Err(format!(
            "{cells} cells x {seeds} seeds = {} runs; the app runs at most {MAX_RUNS}: fewer seeds \
             or fewer values (or the CLI, which runs up to 10,000,000 and shards them).",
            cells * seeds
        ));
    }
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: Limits::browser(),
    };
    for (i, a) in axes.iter().enumerate() {
        for v in &a.values {
            let mut t = toml::Table::new();
            for (j, b) in axes.iter().enumerate() {
                t.insert(b.key.clone(), if i == j { v } else { &b.values[0] }.clone());
            }
            Run::new(s.clone(), variant, Some(1), &t, &opts).map_err(|e| {
                format!(
                    "Vary {} = {}: {e}",
                    a.key,
                    clusterscope_core::sweep::show(v)
                )
            })?;
        }
    }
    Ok(axes)
}

/// A worker's batch: jobs `jobs` of the plan (`plan_json`, a serialized [`Plan`]) on the scenario
/// named by `builtin_name` (or given as `text`). Returns the outcomes as a JSON array, in the
/// order of `jobs`. Refuses a plan made for another scenario (its digest differs).
///
/// In the split release build a batch's code is the part `sweep_runs` of the wasm
/// (`crate::in_part!`, issue 44; the page's "How often?" card is the part `sweep`): a worker
/// without it gets an error and the part is wanted (`crate::split::take_wanted`), which the
/// worker loads before it runs the batch again (`static/sweep-worker.js`).
pub fn run_batch(
    builtin_name: &str,
    text: &str,
    plan_json: &str,
    jobs: &[u64],
) -> Result<String, String> {
    type Batch<'a> = (&'a str, &'a str, &'a str, &'a [u64]);
    crate::in_part!(sweep_runs, batch, Batch<'_> => Result<String, String>,
        (builtin_name, text, plan_json, jobs),
        |(b, t, p, j): Batch<'_>| run_batch_now(b, t, p, j))
    .unwrap_or_else(|| {
        crate::split::want("sweep_runs");
        Err("the sweep's code is not loaded yet".into())
    })
}

fn run_batch_now(
    builtin_name: &str,
    text: &str,
    plan_json: &str,
    jobs: &[u64],
) -> Result<String, String> {
    let plan: Plan =
        serde_json::from_slice(plan_json.as_bytes()).map_err(|e| format!("sweep plan: {e}"))?;
    if let Some(j) = jobs.iter().find(|j| **j >= plan.jobs()) {
        return Err(format!(
            "sweep: job {j} is not in the plan ({} jobs)",
            plan.jobs()
        ));
    }
    let key = (builtin_name.to_string(), text.to_string());
    SCENARIO.with(|cell| {
        let mut c = cell.borrow_mut();
        if c.as_ref().is_none_or(|(k, _)| *k != key) {
            *c = Some((key.clone(), scenario_of(builtin_name, text)?));
        }
        let (_, s) = c.as_ref().expect("just set");
        // The writer's part (`session_write`) missing: an error, the worker loads it and runs
        // the batch again (`wanted_model`).
        let d = digest(s)?;
        if d != plan.scenario_digest {
            return Err(format!(
                "sweep: the plan is for another version of {} (digest {} vs {d})",
                plan.scenario, plan.scenario_digest,
            ));
        }
        let limits = Limits::browser();
        let outs: Vec<Outcome> = jobs
            .iter()
            .map(|j| run_job(s, &plan, *j, &limits))
            .collect();
        serde_json::to_string(&outs).map_err(|e| e.to_string())
    })
}

/// One sweep's state on the main thread: jobs handed out in order, outcomes collected as they
/// come back (in any order).
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub plan: Plan,
    pub expectations: Vec<String>,
    /// The next job not yet handed out.
    pub next: u64,
    pub outcomes: Vec<Outcome>,
    /// Jobs whose outcome is in, by job number.
    seen: Vec<bool>,
}

impl Sweep {
    pub fn new(plan: Plan, expectations: Vec<String>) -> Sweep {
        let seen = vec![false; plan.jobs() as usize];
        Sweep {
            plan,
            expectations,
            next: 0,
            outcomes: Vec::new(),
            seen,
        }
    }

    pub fn total(&self) -> u64 {
        self.plan.jobs()
    }

    pub fn done(&self) -> u64 {
        self.outcomes.len() as u64
    }

    /// The next batch of at most `n` jobs, or none when all are handed out.
    pub fn take(&mut self, n: u64) -> Option<Vec<u64>> {
        let end = (self.next + n.max(1)).min(self.total());
        (end > self.next).then(|| {
            let v: Vec<u64> = (self.next..end).collect();
            self.next = end;
            v
        })
    }

    /// A worker's answer to [`run_batch`]. Outcomes of jobs not in the plan or already present
    /// are refused (a worker of an earlier sweep answering late).
    pub fn accept(&mut self, outcomes_json: &str) -> Result<usize, String> {
        let outs: Vec<Outcome> = serde_json::from_slice(outcomes_json.as_bytes())
            .map_err(|e| format!("sweep outcomes: {e}"))?;
        let mut n = 0;
        for o in outs {
            let known = o.job < self.total() && self.plan.job(o.job).1 == o.seed;
            if known && !self.seen[o.job as usize] {
                self.seen[o.job as usize] = true;
                self.outcomes.push(o);
                n += 1;
            }
        }
        Ok(n)
    }

    /// The summary of the completed runs (all of them once done; fewer after a cancel): the
    /// CLI's `summarize`, so the fractions are the ones `clusterscope sweep` prints.
    pub fn summary(&self) -> Summary {
        summarize(&Partial::new(
            self.plan.clone(),
            self.expectations.clone(),
            self.outcomes.clone(),
        ))
    }

    /// Per-seed values of `metric` in grid cell `cell` (0 without a grid) over the completed runs
    /// without an error (0 where a run did not report it, as `summarize` counts it).
    pub fn metric_values(&self, metric: &str, cell: usize) -> Vec<f64> {
        self.outcomes
            .iter()
            .filter(|o| o.error.is_none() && self.plan.job(o.job).0 == cell)
            .map(|o| o.metrics.get(metric).copied().unwrap_or(0.0))
            .collect()
    }
}

/// Seeds done, seeds/s and time left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
    pub elapsed_ms: f64,
}

impl Progress {
    /// Seeds per second so far (0 before the first is done).
    pub fn rate(&self) -> f64 {
        if self.done == 0 || self.elapsed_ms <= 0.0 {
            0.0
        } else {
            self.done as f64 * 1000.0 / self.elapsed_ms
        }
    }

    /// Seconds left at the rate so far, or `None` before there is a rate.
    pub fn left_s(&self) -> Option<f64> {
        let r = self.rate();
        (r > 0.0).then(|| self.total.saturating_sub(self.done) as f64 / r)
    }

    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.done as f64 / self.total as f64
        }
    }
}

/// The `q` quantile (0 to 1) of `values` by nearest rank: the smallest value with at least
/// `q` of them at or below it (`q = 1`: the maximum); non-finite values ignored; `None` without
/// values.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let rank = (q.clamp(0.0, 1.0) * v.len() as f64).ceil() as usize;
    Some(v[rank.clamp(1, v.len()) - 1])
}

/// One bin of a histogram: values in `[lo, hi)` (the last bin includes `hi`).
#[derive(Clone, Debug, PartialEq)]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub count: u64,
}

/// `values` in at most `max_bins` bins: one bin per integer (`[v - 0.5, v + 0.5)`) when the
/// values are integers spanning at most `max_bins` values, else equal widths from min to max. Every value is in
/// exactly one bin; no values, no bins.
pub fn histogram(values: &[f64], max_bins: usize) -> Vec<Bin> {
    let vals: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let Some(lo) = vals.iter().copied().reduce(f64::min) else {
        return Vec::new();
    };
    let hi = vals.iter().copied().fold(lo, f64::max);
    let max_bins = max_bins.max(1);
    let integers = vals.iter().all(|v| v.fract() == 0.0);
    let (lo, n, width) = if integers && hi - lo < max_bins as f64 {
        // Centred on the integers, so that an axis labels each bar with its value.
        (lo - 0.5, (hi - lo) as usize + 1, 1.0)
    } else if hi == lo {
        (lo, 1, 1.0)
    } else {
        (lo, max_bins, (hi - lo) / max_bins as f64)
    };
    let mut bins: Vec<Bin> = (0..n)
        .map(|i| Bin {
            lo: lo + i as f64 * width,
            hi: lo + (i + 1) as f64 * width,
            count: 0,
        })
        .collect();
    for v in vals {
        let i = (((v - lo) / width) as usize).min(n - 1);
        bins[i].count += 1;
    }
    bins
}

#[cfg(test)]
mod tests {
    use super::*;
    use clusterscope_core::scenario::builtin;

    #[test]
    fn workers_one_per_core_capped() {
        assert_eq!(worker_count(2.0, 100), 2);
        assert_eq!(worker_count(32.0, 100), MAX_WORKERS);
        assert_eq!(worker_count(8.0, 3), 3);
        assert_eq!(worker_count(f64::NAN, 100), 1);
        assert_eq!(worker_count(0.0, 100), 1);
        assert_eq!(batch_size(100, 2), 6);
        assert_eq!(batch_size(3, 2), 1);
        assert_eq!(batch_size(100_000, 8), 16);
    }

    #[test]
    fn histogram_bins_every_value_once() {
        // Small integer range: one bin per integer.
        let h = histogram(&[0.0, 1.0, 1.0, 3.0], 10);
        assert_eq!(
            h.iter().map(|b| b.count).collect::<Vec<_>>(),
            vec![1, 2, 0, 1]
        );
        assert_eq!((h[0].lo, h[3].hi), (-0.5, 3.5));
        // Wide range: equal widths, the maximum in the last bin.
        let vals: Vec<f64> = (0..=100).map(|i| i as f64 * 0.5).collect();
        let h = histogram(&vals, 10);
        assert_eq!(h.len(), 10);
        assert_eq!(h.iter().map(|b| b.count).sum::<u64>(), 101);
        assert_eq!(h[9].count, 11);
        // One value repeated; nothing; non-finite values ignored.
        assert_eq!(histogram(&[2.5, 2.5], 10).len(), 1);
        assert!(histogram(&[], 10).is_empty());
        assert_eq!(histogram(&[f64::NAN, 1.0], 4)[0].count, 1);
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), Some(10.0));
        assert_eq!(quantile(&v, 0.95), Some(19.0));
        assert_eq!(quantile(&v, 1.0), Some(20.0));
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&[3.0], 0.95), Some(3.0));
        assert_eq!(quantile(&[2.0, f64::NAN, 4.0], 0.5), Some(2.0));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn progress_rate_and_time_left() {
        let p = Progress {
            done: 10,
            total: 40,
            elapsed_ms: 5000.0,
        };
        assert_eq!(p.rate(), 2.0);
        assert_eq!(p.left_s(), Some(15.0));
        assert_eq!(p.fraction(), 0.25);
        let p0 = Progress { done: 0, ..p };
        assert_eq!((p0.rate(), p0.left_s()), (0.0, None));
    }

    /// Recorded actions become faults at their times (the same run as replaying them when the
    /// time is the same); forks are left out.
    #[test]
    fn recorded_actions_become_timed_faults() {
        use clusterscope_core::engine::action::{Dur, MsgFate};
        let s = builtin::get("cassandra-21636-packet-loss").unwrap();
        let drop = Action::DropLink {
            from: "A".into(),
            to: "C".into(),
            one_way: false,
            down_for: None,
        };
        let acts = vec![
            RecordedAction {
                step: 40,
                at: Dur(3_000_250),
                action: drop.clone(),
            },
            RecordedAction {
                step: 41,
                at: Dur(3_000_250),
                action: Action::Message {
                    msg: 7,
                    fate: MsgFate::Drop,
                },
            },
        ];
        let (text, forks) = with_actions_as_faults(&s, &acts).unwrap();
        assert_eq!(forks, 1);
        let t = Scenario::parse("t.toml", &text, &Limits::browser()).unwrap();
        assert_eq!(t.faults.len(), s.faults.len() + 1);
        assert!(t.faults.contains(&(3_000_250, drop)), "{:?}", t.faults);
        assert!(t.raw.recorded.is_empty());
        // The run differs from the plain scenario's: A and C are cut from 3 s to 60 s.
        let v = "buggy";
        let p0 = Plan::new(&s, v, 1, 1, &toml::Table::new(), vec![], None).unwrap();
        let p1 = Plan::new(&t, v, 1, 1, &toml::Table::new(), vec![], None).unwrap();
        let l = Limits::browser();
        assert_ne!(run_job(&s, &p0, 0, &l), run_job(&t, &p1, 0, &l));
    }

    /// The panel's rows become `--grid` axes; unused rows are skipped; a value the model
    /// refuses, too many values and too many runs are named before anything runs.
    #[test]
    fn grid_rows_checked_before_running() {
        let s = builtin::get("cassandra-21636-packet-loss").unwrap();
        let rows = |a: &str, b: &str, c: &str| {
            [
                (a.to_string(), b.to_string()),
                (c.to_string(), "1,2".to_string()),
            ]
        };
        let g = grid_of(&s, "buggy", 4, &rows("echo", "buggy, fixed", "")).unwrap();
        assert_eq!(g.len(), 1);
        assert_eq!((g[0].key.as_str(), g[0].values.len()), ("echo", 2));
        assert!(grid_of(&s, "buggy", 4, &rows("", "", ""))
            .unwrap()
            .is_empty());
        let e = grid_of(&s, "buggy", 4, &rows("echo", "buggy,bogus", "")).unwrap_err();
        assert!(e.starts_with("Vary echo = bogus:"), "{e}");
        let e = grid_of(&s, "buggy", 4, &rows("nonsense", "1", "")).unwrap_err();
        assert!(e.contains("unknown field `nonsense`"), "{e}");
        let many = (1..=13)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let e = grid_of(&s, "buggy", 4, &rows("phi_convict_threshold", &many, "")).unwrap_err();
        assert!(e.contains("13 values"), "{e}");
        let e = grid_of(&s, "buggy", 7_000, &rows("echo", "buggy,fixed,legacy", "")).unwrap_err();
        assert!(e.contains("= 21000 runs"), "{e}");
        let e = grid_of(&s, "buggy", 4, &rows("echo", "buggy,,fixed", "")).unwrap_err();
        assert!(e.contains("Vary"), "{e}");
    }

    fn plan(seeds: u64) -> (Scenario, Plan) {
        let s = builtin::get("pingpong").unwrap();
        let v = clusterscope_core::runner::Run::default_variant(&s);
        let p = Plan::new(&s, &v, 1, seeds, &toml::Table::new(), vec![], None).unwrap();
        (s, p)
    }

    /// Batches run in any order and split any way summarize to what one pass over all jobs
    /// gives; late or foreign answers are ignored; a plan for another scenario is refused.
    #[test]
    fn batches_in_any_order_give_the_whole_summary() {
        let (s, p) = plan(6);
        let names = clusterscope_core::sweep::expectation_names(&s, &p.variant).unwrap();
        let pj = serde_json::to_string(&p).unwrap();
        let whole = summarize(&Partial::new(
            p.clone(),
            names.clone(),
            (0..6)
                .map(|j| run_job(&s, &p, j, &Limits::browser()))
                .collect(),
        ));
        let mut sw = Sweep::new(p.clone(), names);
        let a = sw.take(4).unwrap();
        let b = sw.take(4).unwrap();
        assert_eq!((a.len(), b.len(), sw.take(4)), (4, 2, None));
        assert_eq!(
            sw.accept(&run_batch("pingpong", "", &pj, &b).unwrap()),
            Ok(2)
        );
        // Half done: a summary of what completed.
        assert_eq!(sw.summary().cells[0].all_passed.runs, 2);
        let ans = run_batch("pingpong", "", &pj, &a).unwrap();
        assert_eq!(sw.accept(&ans), Ok(4));
        assert_eq!(sw.accept(&ans), Ok(0), "a duplicate answer counts once");
        assert_eq!(sw.done(), 6);
        assert_eq!(sw.summary(), whole);
        assert_eq!(sw.metric_values("nonexistent", 0), vec![0.0; 6]);
        // Another scenario's text, a job outside the plan.
        let other = builtin::get("cassandra-21636-packet-loss").unwrap();
        let text = other.to_toml(&other.raw).unwrap();
        let e = run_batch("", &text, &pj, &[0]).unwrap_err();
        assert!(e.contains("another version"), "{e}");
        assert!(run_batch("pingpong", "", &pj, &[6])
            .unwrap_err()
            .contains("not in the plan"));
    }
}
