//! `clusterscope sweep` and `clusterscope merge`: the jobs of a `clusterscope_core::sweep::Plan`
//! on this machine's cores (workers take jobs from a shared counter; outcomes are kept by job, so
//! the result does not depend on thread timing), a shard of them for a scheduler, and the
//! summary as text, JSON or CSV with permalinks to failing seeds.

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::{ScenarioRef, Session, MAX_PERMALINK_CHARS, PERMALINK_VERSION};
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
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                if i >= n {
                    break;
                }
                let one = sweep::run_job(scenario, plan, jobs[i], limits);
                results.lock().expect("lock")[i] = Some(one);
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    results
        .into_inner()
        .expect("lock")
        .into_iter()
        .map(|o| o.expect("every job ran"))
        .collect()
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
        let link = scenario.map(|scenario| {
            Session {
                v: PERMALINK_VERSION,
                scenario,
                variant: plan.variant.clone(),
                seed,
                actions: Vec::new(),
                cursor: 0,
                selected: None,
                compare: None,
                branches: Vec::new(),
                branch: 0,
            }
            .encode()
        });
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

pub fn print_text(s: &Summary, plan: &Plan, links: &Links) -> String {
    use std::fmt::Write;
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
        cell_text(&mut o, c, plan, i, links);
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

fn cell_text(o: &mut String, c: &CellSummary, plan: &Plan, cell: usize, links: &Links) {
    use std::fmt::Write;
    let _ = writeln!(o, "  all expectations held: {}", pct(&c.all_passed));
    for e in &c.expectations {
        let _ = writeln!(o, "  {}  {}", pct(&e.held), e.name);
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
        // Links of a grid cell carry the whole scenario: one per cell is enough to read.
        let linked = if plan.grid.is_empty() {
            LINKED_SEEDS
        } else {
            1
        };
        for &seed in c.failed_seeds.iter().take(linked) {
            let _ = writeln!(o, "    seed {seed}: {}", links.seed(plan, cell, seed));
        }
    }
    for e in &c.errors {
        let _ = writeln!(o, "  error: {e}");
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
