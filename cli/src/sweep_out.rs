//! `clusterscope sweep` and `clusterscope merge`: the jobs of a `clusterscope_core::sweep::Plan`
//! on this machine's cores (workers take jobs from a shared counter; outcomes are kept by job, so
//! the result does not depend on thread timing), a shard of them for a scheduler, and the
//! summary as text, JSON or CSV with permalinks to failing seeds.

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::{ScenarioRef, Session, MAX_PERMALINK_CHARS};
use clusterscope_core::sweep::{self, CellSummary, Fraction, Outcome, Plan, Summary};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Run `jobs` of `plan` on `threads` threads, with a progress bar on stderr.
pub fn run_jobs(
    scenario: &Scenario,
    plan: &Plan,
    jobs: &[u64],
    threads: usize,
    limits: &Limits,
) -> Vec<Outcome> {
    run_each(plan, jobs, threads, |j| {
        sweep::run_job(scenario, plan, j, limits)
    })
}

/// `run` each of `jobs` on `threads` threads; the outcomes in the order of `jobs`. A run that
/// panics (a bug) is its job's error, with the panic's message and place, and the others go on
/// (issue 39: one panic used to end a whole sweep with exit 101, and a shard wrote no part).
fn run_each(
    plan: &Plan,
    jobs: &[u64],
    threads: usize,
    run: impl Fn(u64) -> Outcome + Sync,
) -> Vec<Outcome> {
    quiet_worker_panics();
    let n = jobs.len();
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; n]);
    let bar = indicatif::ProgressBar::new(n as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} runs {pos}/{len} [{bar:40}] {per_sec} eta {eta}",
        )
        .expect("template")
        .progress_chars("=> "),
    );
    std::thread::scope(|scope| {
        for _ in 0..threads.min(n).max(1) {
            scope.spawn(|| {
                WORKER.set(true);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if i >= n {
                        break;
                    }
                    let one = caught(plan, jobs[i], &run);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(one);
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|o| o.expect("every job ran"))
        .collect()
}

std::thread_local! {
    /// This thread is a sweep's worker: its panics are caught and reported as its run's error.
    static WORKER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The last panic of this worker: its message and place.
    static PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Run `f`, catching a panic: `Err` with its message and place, which is not printed (the
/// panic hook keeps it, [`quiet_worker_panics`]). For sweeps' and hunts' runs (issues 39, 43).
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    quiet_worker_panics();
    let was = WORKER.replace(true);
    PANIC.take();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    WORKER.set(was);
    r.map_err(|payload| {
        PANIC.take().unwrap_or_else(|| {
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into())
        })
    })
}

/// Run job `j`; a panic becomes the job's error.
fn caught(plan: &Plan, j: u64, run: &(impl Fn(u64) -> Outcome + Sync)) -> Outcome {
    match catch(|| run(j)) {
        Ok(o) => o,
        Err(what) => Outcome {
            job: j,
            seed: plan.job(j).1,
            passed: false,
            held: Vec::new(),
            metrics: Default::default(),
            error: Some(format!(
                "the run panicked (a bug in clusterscope: please report it with this seed): \
                     {what}"
            )),
            observed: Vec::new(),
        },
    }
}

/// Once per process: a panic on a sweep's worker is kept for its run's error instead of printed
/// (the progress bar is on stderr, and the error names it); other threads' panics print as
/// before.
fn quiet_worker_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if WORKER.get() {
                let text = info.to_string().replace('\n', " ");
                PANIC.set(Some(text));
            } else {
                before(info);
            }
        }));
    });
}

/// Where a failing seed opens: a permalink into the app (a built-in scenario by name, a file
/// or a grid cell as the whole scenario with the cell's parameters), or the command that
/// replays it when the link would be too long.
pub struct Links<'a> {
    /// The scenario, when known (a merge of parts of a file has only its name).
    pub scenario: Option<&'a Scenario>,
    /// The scenario is built in and given by name (else it travels whole in the link).
    pub builtin: bool,
    pub base_url: &'a str,
    /// How the scenario was named on the command line.
    pub spec: &'a str,
}

impl Links<'_> {
    pub fn seed(&self, plan: &Plan, cell: usize, seed: u64) -> String {
        let overrides = plan.overrides(cell);
        let scenario = match self.scenario {
            _ if self.builtin && overrides.is_empty() => {
                Some(ScenarioRef::Builtin(plan.scenario.clone()))
            }
            Some(s) => sweep::cell_scenario(s, plan, cell)
                .ok()
                .map(ScenarioRef::Custom),
            None => None,
        };
        let link =
            scenario.map(|scenario| Session::new(scenario, plan.variant.clone(), seed).encode());
        match link {
            Some(l) if l.len() <= MAX_PERMALINK_CHARS => format!("{}#s={l}", self.base_url),
            _ => {
                let sets: String = overrides
                    .iter()
                    .map(|(k, v)| format!(" --set {k}='{v}'"))
                    .collect();
                format!(
                    "clusterscope run {} --variant {} --seed {seed}{sets}",
                    self.spec, plan.variant
                )
            }
        }
    }
}

fn pct(f: &Fraction) -> String {
    format!(
        "{:6.2}%  [{:.2}%, {:.2}%]  ({}/{})",
        f.fraction * 100.0,
        f.ci95_low * 100.0,
        f.ci95_high * 100.0,
        f.count,
        f.runs
    )
}

/// How many failing seeds the text output lists with a link, per cell.
const LINKED_SEEDS: usize = 3;

pub fn print_text(s: &Summary, part: &sweep::Partial, links: &Links) -> String {
    use std::fmt::Write;
    let plan = &part.plan;
    // The first errored seeds of each cell, linked as failing ones are.
    let mut errored: Vec<Vec<u64>> = vec![Vec::new(); s.cells.len()];
    for o in part.outcomes.iter().filter(|o| o.error.is_some()) {
        let seeds = &mut errored[plan.job(o.job).0];
        if seeds.len() < linked(plan) {
            seeds.push(o.seed);
        }
    }
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} [{}] seeds {}..{}{}",
        s.scenario,
        s.variant,
        s.first_seed,
        s.first_seed + s.seeds - 1,
        s.set
            .iter()
            .map(|(k, v)| format!(" {k}={v}"))
            .collect::<String>()
    );
    if s.cells.len() > 1 {
        let _ = writeln!(o, "  all expectations held, per cell:");
        for c in &s.cells {
            let _ = writeln!(o, "  {}  {}", pct(&c.all_passed), label(c));
        }
    }
    for (i, c) in s.cells.iter().enumerate() {
        if s.cells.len() > 1 {
            let _ = writeln!(o, "\n  -- {} --", label(c));
        }
        cell_text(&mut o, c, plan, i, links, &errored[i]);
    }
    o
}

fn label(c: &CellSummary) -> String {
    c.values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many seeds (failing, errored) are linked per cell: links of a grid cell carry the whole
/// scenario, so one per cell is enough to read.
fn linked(plan: &Plan) -> usize {
    if plan.grid.is_empty() {
        LINKED_SEEDS
    } else {
        1
    }
}

fn cell_text(
    o: &mut String,
    c: &CellSummary,
    plan: &Plan,
    cell: usize,
    links: &Links,
    errored: &[u64],
) {
    use std::fmt::Write;
    let chances = c.expectations.iter().any(|e| e.chance.is_some());
    let _ = writeln!(
        o,
        "  all expectations held{}: {}",
        if chances {
            " (but those with a chance)"
        } else {
            ""
        },
        pct(&c.all_passed)
    );
    for e in &c.expectations {
        let claim = match (&e.chance, e.contradicted) {
            (Some(ch), false) => format!("  [chance {}: consistent]", ch.short()),
            (Some(ch), true) => format!("  [chance {}: CONTRADICTED]", ch.short()),
            (None, true) => "  [claims always: CONTRADICTED]".into(),
            (None, false) => String::new(),
        };
        let _ = writeln!(o, "  {}  {}{claim}", pct(&e.held), e.name);
        // What its view answered where it failed (issue 41), the most frequent first.
        if !e.observed.is_empty() {
            let _ = writeln!(
                o,
                "        failed: saw {}",
                e.observed
                    .iter()
                    .map(|v| format!(
                        "{} in {} seed{}",
                        v.value,
                        v.count,
                        if v.count == 1 { "" } else { "s" }
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if !c.metrics.is_empty() {
        let _ = writeln!(
            o,
            "  metric                      mean       min       max   seeds with > 0 (95% CI)"
        );
    }
    for (k, m) in &c.metrics {
        let _ = writeln!(
            o,
            "  {:24} {:9.2} {:9.2} {:9.2}   {}",
            k,
            m.mean,
            m.min,
            m.max,
            pct(&m.nonzero)
        );
    }
    let failed = c.all_passed.runs - c.all_passed.count;
    if failed > 0 {
        let _ = writeln!(
            o,
            "  seeds where an expectation failed ({failed}): {}{}",
            c.failed_seeds
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            if failed as usize > c.failed_seeds.len() {
                " ..."
            } else {
                ""
            }
        );
        for &seed in c.failed_seeds.iter().take(linked(plan)) {
            let _ = writeln!(o, "    seed {seed}: {}", links.seed(plan, cell, seed));
        }
    }
    for e in &c.errors {
        let _ = writeln!(o, "  error: {e}");
    }
    for &seed in errored {
        let _ = writeln!(o, "    seed {seed}: {}", links.seed(plan, cell, seed));
    }
}

/// One row per (cell, what, name): the grid's parameters as leading columns, then what
/// (`all`, `expectation`, `metric`), its name, and the fraction with its interval (for a
/// metric: of seeds where it was > 0, with its mean, min and max).
pub fn print_csv(s: &Summary) -> String {
    let q = |t: &str| {
        if t.contains([',', '"', '\n']) {
            format!("\"{}\"", t.replace('"', "\"\""))
        } else {
            t.to_string()
        }
    };
    let mut o = String::new();
    let keys: Vec<String> = s.grid.iter().map(|a| q(&a.key)).collect();
    o += &keys.iter().map(|k| format!("{k},")).collect::<String>();
    o += "what,name,count,runs,fraction,ci95_low,ci95_high,mean,min,max\n";
    for c in &s.cells {
        let lead: String = c.values.iter().map(|(_, v)| format!("{},", q(v))).collect();
        let row = |what: &str, name: &str, f: &Fraction, extra: String| {
            format!(
                "{lead}{what},{},{},{},{},{},{},{extra}\n",
                q(name),
                f.count,
                f.runs,
                f.fraction,
                f.ci95_low,
                f.ci95_high
            )
        };
        o += &row("all", "all expectations held", &c.all_passed, ",,".into());
        for e in &c.expectations {
            o += &row("expectation", &e.name, &e.held, ",,".into());
        }
        for (k, m) in &c.metrics {
            o += &row(
                "metric",
                k,
                &m.nonzero,
                format!("{},{},{}", m.mean, m.min, m.max),
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run that panics is its seed's error (issue 39): the other runs go on, and the sweep
    /// (or the shard's part) has every job.
    #[test]
    fn a_panicking_run_is_its_seeds_error_and_the_sweep_goes_on() {
        let s = clusterscope_core::scenario::builtin::get("pingpong").unwrap();
        let plan = Plan::new(&s, "ring", 1, 6, &toml::Table::new(), vec![], None).unwrap();
        let jobs: Vec<u64> = (0..6).collect();
        let outs = run_each(&plan, &jobs, 2, |j| {
            if j == 3 {
                let v: Vec<u32> = Vec::new();
                let _ = v[j as usize]; // a planted bug: index out of bounds
            }
            Outcome {
                job: j,
                seed: plan.job(j).1,
                passed: true,
                held: Vec::new(),
                metrics: Default::default(),
                error: None,
                observed: Vec::new(),
            }
        });
        assert_eq!(
            outs.iter().map(|o| o.job).collect::<Vec<_>>(),
            jobs,
            "{outs:?}"
        );
        for o in &outs {
            match o.job {
                3 => {
                    let e = o.error.as_deref().unwrap_or_default();
                    assert_eq!((o.seed, o.passed), (4, false));
                    assert!(
                        e.contains("the run panicked")
                            && e.contains("index out of bounds")
                            && e.contains("sweep_out.rs"),
                        "{e}"
                    );
                }
                _ => assert_eq!(o.error, None, "{o:?}"),
            }
        }
    }
}
