//! Sweeps: one scenario and variant over many seeds, optionally over a grid of parameter values.
//!
//! Pure and deterministic, shared by the CLI (threads, shards on a scheduler) and the app (Web
//! Workers): a [`Plan`] numbers its jobs `0..cells x seeds` (job `j` is cell `j / seeds`, seed
//! `first_seed + j % seeds`); [`run_job`] runs one; a shard `i/n` is the jobs with `j % n == i`;
//! a [`Partial`] holds some jobs' [`Outcome`]s and partials of one plan [`merge`] in any order;
//! [`summarize`] turns a complete set of outcomes into the [`Summary`] an unsharded sweep prints.
//! Nothing here depends on which thread, worker or machine ran a job.

use crate::limits::Limits;
use crate::runner::{Run, RunOptions};
use crate::scenario::{Chance, Scenario};
use crate::time::Micros;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most cells a grid may have (the product of its axes' value counts).
pub const MAX_CELLS: usize = 400;
/// Most jobs (cells x seeds) one sweep may have.
pub const MAX_JOBS: u64 = 10_000_000;
/// Failing seeds listed per cell (the count is always exact).
pub const MAX_LISTED_SEEDS: usize = 100;
/// Distinct observed values listed per expectation and cell ([`ExpectStat::observed`]), the most
/// frequent first; the seeds behind the others are still counted as failing.
pub const MAX_OBSERVED_VALUES: usize = 8;
/// Seeds listed per observed value.
pub const MAX_OBSERVED_SEEDS: usize = 20;
/// [`Outcome::observed`] of an expectation whose view could not be queried when it was due.
pub const OBSERVED_NO_VALUE: &str = "no value";
/// [`Outcome::observed`] of an expectation whose time the run did not reach (`--until`).
pub const OBSERVED_NOT_REACHED: &str = "not reached";

/// One grid axis: a parameter and the values it takes (`--grid key=v1,v2,...`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    pub key: String,
    pub values: Vec<toml::Value>,
}

impl Axis {
    /// `key=v1,v2,...`: each value is read as TOML (`3`, `0.5`, `true`, `"10ms"`), a bare word
    /// as a string (`10ms`, `fixed`), as `--set` does.
    pub fn parse(spec: &str) -> Result<Axis, String> {
        let (k, vs) = spec.split_once('=').ok_or_else(|| {
            format!("--grid \"{spec}\": expected key=v1,v2,..., e.g. client_rate=10,20,50")
        })?;
        let key = k.trim();
        if key.is_empty() {
            return Err(format!("--grid \"{spec}\": the key is empty"));
        }
        let mut values = Vec::new();
        for v in vs.split(',') {
            if v.trim().is_empty() {
                return Err(format!(
                    "--grid \"{spec}\": an empty value; separate values with single commas"
                ));
            }
            let (_, value) = crate::scenario::parse_override(&format!("{key}={v}"))?;
            if values.contains(&value) {
                return Err(format!("--grid \"{spec}\": the value {v} is given twice"));
            }
            values.push(value);
        }
        Ok(Axis {
            key: key.to_string(),
            values,
        })
    }
}

/// What a sweep runs. Two sweeps with equal plans have equal outcomes, job for job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The scenario's name, and a digest of its whole content: parts of different files do not
    /// merge.
    pub scenario: String,
    pub scenario_digest: String,
    pub variant: String,
    pub first_seed: u64,
    pub seeds: u64,
    /// `--set` overrides, applied to every cell (as TOML text per key).
    #[serde(default)]
    pub set: BTreeMap<String, String>,
    #[serde(default)]
    pub grid: Vec<Axis>,
    /// Stop each run here instead of at the scenario's end.
    #[serde(default)]
    pub until: Option<Micros>,
}

impl Plan {
    /// A plan for `scenario`, checked: the variant exists, the grid's keys are distinct and
    /// not also `--set`, the seeds fit in u64, the cells and jobs within their limits.
    pub fn new(
        scenario: &Scenario,
        variant: &str,
        first_seed: u64,
        seeds: u64,
        set: &toml::Table,
        grid: Vec<Axis>,
        until: Option<Micros>,
    ) -> Result<Plan, String> {
        scenario.variant(variant)?;
        if seeds == 0 || seeds > 1_000_000 {
            return Err(format!("--seeds {seeds}: use 1 to 1000000"));
        }
        if first_seed.checked_add(seeds - 1).is_none() {
            return Err(format!(
                "--first-seed {first_seed} with --seeds {seeds}: the last seed would pass \
                 2^64-1 ({}); use --first-seed {} or less",
                u64::MAX,
                u64::MAX - (seeds - 1)
            ));
        }
        for (i, a) in grid.iter().enumerate() {
            if grid[..i].iter().any(|b| b.key == a.key) {
                return Err(format!(
                    "--grid {}: the parameter is given twice; list all its values in one --grid",
                    a.key
                ));
            }
            if set.contains_key(&a.key) {
                return Err(format!(
                    "--grid {} and --set {}: a parameter is either fixed or swept, not both",
                    a.key, a.key
                ));
            }
        }
        let cells = grid
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
            .filter(|&n| n <= MAX_CELLS)
            .ok_or_else(|| {
                format!(
                    "--grid: {} = {} cells; the limit is {MAX_CELLS} (fewer values per parameter)",
                    grid.iter()
                        .map(|a| a.values.len().to_string())
                        .collect::<Vec<_>>()
                        .join(" x "),
                    grid.iter()
                        .map(|a| a.values.len() as u128)
                        .product::<u128>()
                )
            })?;
        if cells as u64 * seeds > MAX_JOBS {
            return Err(format!(
                "{cells} cells x {seeds} seeds = {} runs; the limit is {MAX_JOBS}: fewer seeds \
                 or fewer values",
                cells as u64 * seeds
            ));
        }
        Ok(Plan {
            scenario: scenario.raw.name.clone(),
            scenario_digest: digest(scenario)?,
            variant: variant.to_string(),
            first_seed,
            seeds,
            set: crate::small_sort::map(set.iter().map(|(k, v)| (k.clone(), v.to_string()))),
            grid,
            until,
        })
    }

    /// Everything later code relies on in a plan read from a file (a part): the seeds number
    /// 1 to 1,000,000 and fit in u64, every grid axis has values, its keys are distinct and not
    /// also `--set`, the cells and jobs are within their limits, the `--set` values read back.
    /// Errors name the field (`plan.seeds`); [`Plan::new`] makes only plans that pass.
    pub fn check(&self) -> Result<(), String> {
        if self.seeds == 0 || self.seeds > 1_000_000 {
            return Err(format!(
                "plan.seeds = {} is out of range (1 to 1000000)",
                self.seeds
            ));
        }
        if self.first_seed.checked_add(self.seeds - 1).is_none() {
            return Err(format!(
                "plan.first_seed = {} with {} seeds: the last seed would pass 2^64-1",
                self.first_seed, self.seeds
            ));
        }
        for (k, v) in &self.set {
            match crate::scenario::parse_override(&format!("{k}={v}")) {
                Ok((key, _)) if key == *k => {}
                _ => {
                    return Err(format!(
                        "plan.set: \"{}\" = \"{}\" is not a parameter and a value",
                        crate::text::clip(k, 40),
                        crate::text::clip(v, 40)
                    ))
                }
            }
        }
        let mut cells = 1usize;
        for (i, a) in self.grid.iter().enumerate() {
            if a.values.is_empty() {
                return Err(format!(
                    "plan.grid[{i}].values: the parameter {} has no values",
                    crate::text::clip(&a.key, 40)
                ));
            }
            if self.grid[..i].iter().any(|b| b.key == a.key) || self.set.contains_key(&a.key) {
                return Err(format!(
                    "plan.grid[{i}].key: the parameter {} is swept twice, or also set",
                    crate::text::clip(&a.key, 40)
                ));
            }
            cells = cells
                .checked_mul(a.values.len())
                .filter(|&n| n <= MAX_CELLS)
                .ok_or_else(|| format!("plan.grid: more than {MAX_CELLS} cells (the limit)"))?;
        }
        if cells as u64 * self.seeds > MAX_JOBS {
            return Err(format!(
                "plan: {cells} cells x {} seeds = {} runs; the limit is {MAX_JOBS}",
                self.seeds,
                cells as u64 * self.seeds
            ));
        }
        Ok(())
    }

    pub fn cells(&self) -> usize {
        self.grid.iter().map(|a| a.values.len()).product()
    }

    pub fn jobs(&self) -> u64 {
        self.cells() as u64 * self.seeds
    }

    /// Job `j`: its cell and seed.
    pub fn job(&self, j: u64) -> (usize, u64) {
        ((j / self.seeds) as usize, self.first_seed + j % self.seeds)
    }

    /// The grid values of cell `c` (the first axis varies slowest).
    pub fn cell_values(&self, c: usize) -> Vec<(String, toml::Value)> {
        let mut rest = c;
        let mut out = Vec::with_capacity(self.grid.len());
        for (i, a) in self.grid.iter().enumerate() {
            let inner: usize = self.grid[i + 1..].iter().map(|b| b.values.len()).product();
            out.push((a.key.clone(), a.values[rest / inner].clone()));
            rest %= inner;
        }
        out
    }

    /// "client_rate=10 client_delay=5ms", or "" without a grid.
    pub fn cell_label(&self, c: usize) -> String {
        self.cell_values(c)
            .iter()
            .map(|(k, v)| format!("{k}={}", show(v)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The parameter overrides of cell `c`: `--set` and the cell's grid values.
    pub fn overrides(&self, c: usize) -> toml::Table {
        let mut t = toml::Table::new();
        for (k, v) in &self.set {
            let (_, value) = crate::scenario::parse_override(&format!("{k}={v}"))
                .expect("a plan's set values parse");
            t.insert(k.clone(), value);
        }
        for (k, v) in self.cell_values(c) {
            t.insert(k, v);
        }
        t
    }

    /// The jobs of shard `i` of `n` (`0 <= i < n`): every n-th job from the i-th, so each
    /// shard gets a similar mix of cells and seeds.
    pub fn shard(&self, i: u64, n: u64) -> impl Iterator<Item = u64> {
        (i..self.jobs()).step_by(n.max(1) as usize)
    }
}

/// A value as a person writes it: strings without quotes (`scenario::show`, where the
/// parameter values it shows are parsed).
pub use crate::scenario::show;

/// FNV-1a of the scenario as TOML (its canonical form): equal files give equal digests. An
/// error when the scenario cannot be written (in the web app's split release build: the writer's
/// part not loaded yet, `Scenario::to_toml`), never the digest of something else.
pub fn digest(s: &Scenario) -> Result<String, String> {
    let mut h = crate::engine::trace::Fnv::default();
    h.bytes(s.to_toml(&s.raw)?.as_bytes());
    Ok(format!("{:016x}", h.0))
}

/// One job's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub job: u64,
    pub seed: u64,
    /// Every expectation held.
    pub passed: bool,
    /// Per expectation (in the scenario's order), whether it held.
    pub held: Vec<bool>,
    pub metrics: BTreeMap<String, f64>,
    /// The run could not be made or failed (bad parameters for this cell, a limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Per expectation (as `held`), what its view answered where it did not hold
    /// (`ExpectResult::observed`: `DOWN`, `12 -> 12`; [`OBSERVED_NO_VALUE`],
    /// [`OBSERVED_NOT_REACHED`]), `None` where it held. Empty when every expectation held (and
    /// in parts written before it existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<Option<String>>,
}

/// [`Outcome::observed`] of a run's expectation results.
pub fn observed_of(results: &[crate::runner::ExpectResult]) -> Vec<Option<String>> {
    if results.iter().all(|e| e.passed) {
        return Vec::new();
    }
    results
        .iter()
        .map(|e| {
            (!e.passed).then(|| match (&e.observed, e.failed_at_us) {
                (Some(v), _) => v.clone(),
                (None, Some(_)) => OBSERVED_NO_VALUE.to_string(),
                (None, None) => OBSERVED_NOT_REACHED.to_string(),
            })
        })
        .collect()
}

/// Run job `j` of `plan` on `scenario` (the plan's own: see [`Plan::new`]).
pub fn run_job(scenario: &Scenario, plan: &Plan, j: u64, limits: &Limits) -> Outcome {
    let (cell, seed) = plan.job(j);
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: limits.clone(),
    };
    let res = Run::new(
        scenario.clone(),
        &plan.variant,
        Some(seed),
        &plan.overrides(cell),
        &opts,
    )
    .and_then(|mut r| {
        // A seed's outcome is its expectations and metrics (records, log lines and the hash
        // were ~7% of a 251-node seed).
        r.trace_only_if_needed();
        r.run(plan.until).map_err(|e| e.to_string())
    });
    match res {
        // A scheduled fault that could not apply: this seed did not run the scenario's story,
        // so it is counted apart with why, like a run that could not be made.
        Ok(rep) if !rep.skipped.is_empty() => Outcome {
            job: j,
            seed,
            passed: false,
            held: Vec::new(),
            metrics: BTreeMap::new(),
            error: Some(rep.skipped.join("; ")),
            observed: Vec::new(),
        },
        Ok(rep) => Outcome {
            job: j,
            seed,
            passed: rep.passed,
            held: rep.expectations.iter().map(|e| e.passed).collect(),
            observed: observed_of(&rep.expectations),
            metrics: rep.metrics,
            error: None,
        },
        Err(e) => Outcome {
            job: j,
            seed,
            passed: false,
            held: Vec::new(),
            metrics: BTreeMap::new(),
            error: Some(e),
            observed: Vec::new(),
        },
    }
}

/// Some jobs of a plan: what a shard writes (`--shard i/n`) and what [`merge`] combines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Partial {
    /// A marker, so that a wrong file is named as such.
    pub clusterscope_sweep_part: u32,
    pub plan: Plan,
    /// The expectations' names, in order.
    pub expectations: Vec<String>,
    /// Their declared chances (`chance = "40%..70%"`), in the same order; empty when none
    /// declares one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chances: Vec<Option<Chance>>,
    /// Sorted by job, no job twice.
    pub outcomes: Vec<Outcome>,
}

pub const PART_VERSION: u32 = 1;

impl Partial {
    pub fn new(plan: Plan, expectations: Vec<String>, mut outcomes: Vec<Outcome>) -> Partial {
        outcomes.sort_by_key(|o| o.job);
        Partial {
            clusterscope_sweep_part: PART_VERSION,
            plan,
            expectations,
            chances: Vec::new(),
            outcomes,
        }
    }

    /// Read a part file's JSON; `file` names it in errors.
    pub fn from_json(file: &str, text: &str) -> Result<Partial, String> {
        let p: Partial = serde_json::from_slice(text.as_bytes()).map_err(|e| {
            format!("{file}: not a sweep part (written by `clusterscope sweep --shard i/n`): {e}")
        })?;
        if p.clusterscope_sweep_part != PART_VERSION {
            return Err(format!(
                "{file}: a sweep part of format {}; this clusterscope reads format {PART_VERSION}",
                p.clusterscope_sweep_part
            ));
        }
        p.check(file)?;
        Ok(p)
    }

    /// What a merge and a summary rely on, checked before either uses a part read from a file:
    /// its plan ([`Plan::check`]), and each outcome: a job of the plan, listed once and in order,
    /// with that job's seed, one `held` per expectation and `passed` exactly when all held (a
    /// run that errored neither passed nor held any). Errors name `file` and the field.
    pub fn check(&self, file: &str) -> Result<(), String> {
        let bad = |m: String| {
            format!(
                "{file}: {m}; not a part as `clusterscope sweep --shard` writes it (edited, or \
                 cut?): write it again"
            )
        };
        self.plan.check().map_err(bad)?;
        let jobs = self.plan.jobs();
        let n = self.expectations.len();
        if !self.chances.is_empty() && self.chances.len() != n {
            return Err(bad(format!(
                "chances has {} entries for {n} expectations",
                self.chances.len()
            )));
        }
        let mut last: Option<u64> = None;
        for (k, o) in self.outcomes.iter().enumerate() {
            let at = format!("outcomes[{k}]");
            if o.job >= jobs {
                return Err(bad(format!(
                    "{at}.job = {} is outside the plan's {jobs} runs (0 to {})",
                    o.job,
                    jobs - 1
                )));
            }
            match last {
                Some(l) if l == o.job => {
                    return Err(bad(format!("{at}.job: job {} is listed twice", o.job)))
                }
                Some(l) if l > o.job => {
                    return Err(bad(format!(
                        "{at}.job: job {} follows job {l}; a part lists its runs in order",
                        o.job
                    )))
                }
                _ => last = Some(o.job),
            }
            let seed = self.plan.job(o.job).1;
            if o.seed != seed {
                return Err(bad(format!(
                    "{at}.seed = {} but job {} of the plan is seed {seed}",
                    o.seed, o.job
                )));
            }
            if o.error.is_some() {
                if o.passed || !o.held.is_empty() {
                    return Err(bad(format!(
                        "{at}: a run that errored, yet with passed = {} and {} held entries",
                        o.passed,
                        o.held.len()
                    )));
                }
                continue;
            }
            if o.held.len() != n {
                return Err(bad(format!(
                    "{at}.held has {} entries for {n} expectations",
                    o.held.len()
                )));
            }
            if !o.observed.is_empty() {
                if o.observed.len() != n {
                    return Err(bad(format!(
                        "{at}.observed has {} entries for {n} expectations",
                        o.observed.len()
                    )));
                }
                if let Some(i) = (0..n).find(|&i| o.held[i] && o.observed[i].is_some()) {
                    return Err(bad(format!(
                        "{at}.observed[{i}]: a value for an expectation that held"
                    )));
                }
            }
            // A chance expectation that did not hold does not fail its run.
            let always = |i: usize| self.chances.get(i).is_none_or(Option::is_none);
            match o.held.iter().enumerate().position(|(i, h)| !h && always(i)) {
                Some(i) if o.passed => {
                    return Err(bad(format!("{at}.passed = true but held[{i}] is false")))
                }
                None if !o.passed => {
                    return Err(bad(format!(
                        "{at}.passed = false but every expectation held (but those with a chance)"
                    )))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Combine parts of one plan. Refuses a part that does not hold together ([`Partial::check`]),
/// parts of different plans (scenario, digest, variant, seeds, set, grid) and a job present
/// twice; `complete` also refuses missing jobs, naming how many and the first.
pub fn merge(parts: Vec<(String, Partial)>, complete: bool) -> Result<Partial, String> {
    for (file, p) in &parts {
        p.check(file)?;
    }
    let mut it = parts.into_iter();
    let (first_file, mut acc) = it
        .next()
        .ok_or_else(|| "merge: no part files given".to_string())?;
    let mut from: BTreeMap<u64, String> =
        crate::small_sort::map(acc.outcomes.iter().map(|o| (o.job, first_file.clone())));
    for (file, p) in it {
        if p.plan != acc.plan || p.expectations != acc.expectations || p.chances != acc.chances {
            return Err(format!(
                "{file}: a part of another sweep than {first_file} ({}); merge parts of one \
                 sweep only",
                plan_difference(&acc.plan, &p.plan)
            ));
        }
        for o in p.outcomes {
            if let Some(f) = from.get(&o.job) {
                return Err(format!(
                    "{file}: job {} (seed {}) is also in {f}: is one shard given twice?",
                    o.job, o.seed
                ));
            }
            from.insert(o.job, file.clone());
            acc.outcomes.push(o);
        }
    }
    acc.outcomes.sort_by_key(|o| o.job);
    if complete {
        let jobs = acc.plan.jobs();
        if acc.outcomes.len() as u64 != jobs {
            let missing = (0..jobs)
                .find(|j| !from.contains_key(j))
                .expect("fewer outcomes than jobs");
            let (cell, seed) = acc.plan.job(missing);
            return Err(format!(
                "merge: {} of {jobs} runs are missing (the first: job {missing}, seed {seed}{}); \
                 is a shard's part missing? (`merge --partial` merges the parts there are)",
                jobs - acc.outcomes.len() as u64,
                match acc.plan.cell_label(cell) {
                    l if l.is_empty() => String::new(),
                    l => format!(", {l}"),
                }
            ));
        }
    }
    Ok(acc)
}

fn plan_difference(a: &Plan, b: &Plan) -> String {
    if a.scenario != b.scenario {
        format!("scenario {} vs {}", a.scenario, b.scenario)
    } else if a.scenario_digest != b.scenario_digest {
        "the same scenario name but a different file".into()
    } else if a.variant != b.variant {
        format!("variant {} vs {}", a.variant, b.variant)
    } else if (a.first_seed, a.seeds) != (b.first_seed, b.seeds) {
        format!(
            "seeds {}+{} vs {}+{}",
            a.first_seed, a.seeds, b.first_seed, b.seeds
        )
    } else if a.set != b.set {
        "different --set values".into()
    } else if a.grid != b.grid {
        "a different --grid".into()
    } else if a.until != b.until {
        "a different --until".into()
    } else {
        "different expectations".into()
    }
}

/// A fraction of runs with its 95% Wilson score interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fraction {
    pub count: u64,
    pub runs: u64,
    pub fraction: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

/// Wilson score interval at 95%.
pub fn wilson(count: u64, runs: u64) -> Fraction {
    let n = runs as f64;
    let p = if runs == 0 { 0.0 } else { count as f64 / n };
    let z = 1.959_963_984_540_054_f64;
    let (lo, hi) = if runs == 0 {
        (0.0, 1.0)
    } else {
        let denom = 1.0 + z * z / n;
        let centre = (p + z * z / (2.0 * n)) / denom;
        let half = z * ((p * (1.0 - p) / n) + z * z / (4.0 * n * n)).sqrt() / denom;
        ((centre - half).max(0.0), (centre + half).min(1.0))
    };
    Fraction {
        count,
        runs,
        fraction: p,
        ci95_low: lo,
        ci95_high: hi,
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExpectStat {
    pub name: String,
    #[serde(flatten)]
    pub held: Fraction,
    /// What it declares (`chance`); `None`: it claims to hold on (nearly) every seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chance: Option<Chance>,
    /// The observed fraction's 95% interval does not meet the declared chance (for an
    /// expectation without one, [`Chance::ALWAYS`]): the scenario's claim is wrong.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contradicted: bool,
    /// Seeds where it did not hold (the first [`MAX_LISTED_SEEDS`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_seeds: Vec<u64>,
    /// Where it did not hold, what its view answered instead, grouped by value: the most
    /// frequent first (ties by value), at most [`MAX_OBSERVED_VALUES`] values. Seeds run by a
    /// build that did not report values are in no group.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<Observed>,
}

/// One value an expectation's view answered where the expectation did not hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub value: String,
    /// Seeds (of the cell) where it answered this: exact.
    pub count: u64,
    /// The first [`MAX_OBSERVED_SEEDS`] of them.
    pub seeds: Vec<u64>,
}

/// The failing seeds' observed values of expectation `i`, grouped ([`ExpectStat::observed`]).
fn observed_groups(outs: &[&Outcome], i: usize) -> Vec<Observed> {
    let mut by: BTreeMap<&str, Observed> = BTreeMap::new();
    for o in outs {
        if let Some(Some(v)) = o.observed.get(i) {
            let g = by.entry(v.as_str()).or_insert_with(|| Observed {
                value: v.clone(),
                count: 0,
                seeds: Vec::new(),
            });
            g.count += 1;
            if g.seeds.len() < MAX_OBSERVED_SEEDS {
                g.seeds.push(o.seed);
            }
        }
    }
    let mut v: Vec<Observed> = by.into_values().collect();
    // Stable: equal counts stay in the map's (value) order.
    // (A few distinct values: the small sort, not a driftsort instance for `Observed`.)
    crate::small_sort::sort_by_key(&mut v, |g| std::cmp::Reverse(g.count));
    v.truncate(MAX_OBSERVED_VALUES);
    v
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricStat {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// Seeds where the metric was above zero (e.g. at least one wedged pair).
    pub nonzero: Fraction,
}

/// One grid cell's results (the whole sweep without a grid).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellSummary {
    /// The cell's grid values, as written (`[["client_rate", "10"], ...]`).
    pub values: Vec<(String, String)>,
    pub all_passed: Fraction,
    /// Seeds where some expectation did not hold (the first [`MAX_LISTED_SEEDS`]).
    pub failed_seeds: Vec<u64>,
    pub expectations: Vec<ExpectStat>,
    pub metrics: BTreeMap<String, MetricStat>,
    pub errors: Vec<String>,
}

/// What a sweep prints: the same for one run on one machine and for merged shards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub scenario: String,
    pub variant: String,
    pub first_seed: u64,
    pub seeds: u64,
    pub set: BTreeMap<String, String>,
    pub grid: Vec<Axis>,
    pub cells: Vec<CellSummary>,
}

impl Summary {
    /// Runs that errored (could not be made or failed), over all cells.
    pub fn errored(&self) -> u64 {
        self.cells.iter().map(|c| c.errors.len() as u64).sum()
    }

    /// Runs that completed, over all cells.
    pub fn completed(&self) -> u64 {
        self.cells.iter().map(|c| c.all_passed.runs).sum()
    }
}

/// The summary of a complete set of outcomes (`part.outcomes` covers every job).
pub fn summarize(part: &Partial) -> Summary {
    let plan = &part.plan;
    let mut cells: Vec<Vec<&Outcome>> = vec![Vec::new(); plan.cells()];
    for o in &part.outcomes {
        cells[plan.job(o.job).0].push(o);
    }
    let cells = cells
        .iter()
        .enumerate()
        .map(|(c, outs)| {
            let ok: Vec<&Outcome> = outs.iter().copied().filter(|o| o.error.is_none()).collect();
            let runs = ok.len() as u64;
            let failing = |f: &dyn Fn(&Outcome) -> bool| -> Vec<u64> {
                ok.iter()
                    .filter(|o| f(o))
                    .take(MAX_LISTED_SEEDS)
                    .map(|o| o.seed)
                    .collect()
            };
            let expectations = part
                .expectations
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let held = wilson(
                        ok.iter().filter(|o| o.held.get(i) == Some(&true)).count() as u64,
                        runs,
                    );
                    let chance = part.chances.get(i).copied().flatten();
                    let claim = chance.unwrap_or(Chance::ALWAYS);
                    ExpectStat {
                        name: name.clone(),
                        contradicted: runs > 0 && !claim.admits(held.ci95_low, held.ci95_high),
                        held,
                        chance,
                        failed_seeds: failing(&|o| o.held.get(i) != Some(&true)),
                        observed: observed_groups(&ok, i),
                    }
                })
                .collect();
            // Every metric any run reported; a run without it counts as 0.
            let keys = crate::small_sort::set(ok.iter().flat_map(|o| o.metrics.keys()));
            let metrics = crate::small_sort::map(keys.into_iter().map(|k| {
                let vals: Vec<f64> = ok
                    .iter()
                    .map(|o| o.metrics.get(k).copied().unwrap_or(0.0))
                    .collect();
                let stat = MetricStat {
                    mean: vals.iter().sum::<f64>() / vals.len() as f64,
                    min: vals.iter().cloned().fold(f64::INFINITY, f64::min),
                    max: vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                    nonzero: wilson(vals.iter().filter(|v| **v > 0.0).count() as u64, runs),
                };
                (k.clone(), stat)
            }));
            CellSummary {
                values: plan
                    .cell_values(c)
                    .iter()
                    .map(|(k, v)| (k.clone(), show(v)))
                    .collect(),
                all_passed: wilson(ok.iter().filter(|o| o.passed).count() as u64, runs),
                failed_seeds: failing(&|o| !o.passed),
                expectations,
                metrics,
                errors: outs
                    .iter()
                    .filter_map(|o| o.error.as_ref().map(|e| format!("seed {}: {e}", o.seed)))
                    .collect(),
            }
        })
        .collect();
    Summary {
        scenario: plan.scenario.clone(),
        variant: plan.variant.clone(),
        first_seed: plan.first_seed,
        seeds: plan.seeds,
        set: plan.set.clone(),
        grid: plan.grid.clone(),
        cells,
    }
}

/// The expectations' names of `variant`, in the order a run reports them (its captions'
/// checks included: `Scenario::expectations`).
pub fn expectation_names(scenario: &Scenario, variant: &str) -> Result<Vec<String>, String> {
    Ok(scenario
        .expectations(variant)?
        .into_iter()
        .map(|e| e.name)
        .collect())
}

/// Their declared chances, in the same order; empty when none declares one (what
/// `Partial::chances` holds).
pub fn expectation_chances(
    scenario: &Scenario,
    variant: &str,
) -> Result<Vec<Option<Chance>>, String> {
    let c: Vec<Option<Chance>> = scenario
        .expectations(variant)?
        .into_iter()
        .map(|e| e.chance)
        .collect();
    Ok(if c.iter().all(Option::is_none) {
        Vec::new()
    } else {
        c
    })
}

impl Summary {
    /// The expectations whose observed fraction contradicts what they declare, over all
    /// cells: `(cell label, expectation)`.
    pub fn contradictions(&self) -> Vec<(String, &ExpectStat)> {
        self.cells
            .iter()
            .flat_map(|c| {
                let label = c
                    .values
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                c.expectations
                    .iter()
                    .filter(|e| e.contradicted)
                    .map(move |e| (label.clone(), e))
            })
            .collect()
    }
}

/// The parameter keys a grid can vary for `variant`: the scenario's `[params]` and the
/// variant's own, sorted, each with the value it has now (the variant's wins).
pub fn parameters(
    scenario: &Scenario,
    variant: &str,
) -> Result<Vec<(String, toml::Value)>, String> {
    let (_, v) = scenario.variant(variant)?;
    let merged = crate::scenario::merge_params(&[&scenario.raw.params, &v.params]);
    Ok(merged.into_iter().collect())
}

/// Cell `cell` of `plan` as a scenario file of its own (TOML): `scenario` with the cell's
/// parameters (`--set` and grid values) written into `[params]` and into the plan's variant where
/// it sets them too (a variant's parameter would win over `[params]`), so that opening it with the
/// plan's variant and a seed replays exactly that job. Without overrides, the scenario unchanged.
pub fn cell_scenario(scenario: &Scenario, plan: &Plan, cell: usize) -> Result<String, String> {
    let mut raw = scenario.raw.clone();
    let vi = raw
        .variants
        .iter()
        .position(|v| v.name == plan.variant)
        .ok_or_else(|| format!("no variant {} in {}", plan.variant, raw.name))?;
    for (k, v) in plan.overrides(cell) {
        raw.params.insert(k.clone(), v.clone());
        if let Some(p) = raw.variants[vi].params.get_mut(&k) {
            *p = v;
        }
    }
    scenario.to_toml(&raw)
}

#[cfg(test)]
mod tests;
