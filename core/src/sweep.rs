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
use crate::scenario::Scenario;
use crate::time::Micros;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most cells a grid may have (the product of its axes' value counts).
pub const MAX_CELLS: usize = 400;
/// Most jobs (cells x seeds) one sweep may have.
pub const MAX_JOBS: u64 = 10_000_000;
/// Failing seeds listed per cell (the count is always exact).
pub const MAX_LISTED_SEEDS: usize = 100;

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
            scenario_digest: digest(scenario),
            variant: variant.to_string(),
            first_seed,
            seeds,
            set: set
                .iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect(),
            grid,
            until,
        })
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

/// A value as a person writes it: strings without quotes.
pub fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// FNV-1a of the scenario as TOML (its canonical form): equal files give equal digests.
pub fn digest(s: &Scenario) -> String {
    let mut h = crate::engine::trace::Fnv::default();
    h.bytes(s.to_toml(&s.raw).unwrap_or_default().as_bytes());
    format!("{:016x}", h.0)
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
        Ok(rep) => Outcome {
            job: j,
            seed,
            passed: rep.passed,
            held: rep.expectations.iter().map(|e| e.passed).collect(),
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
            outcomes,
        }
    }

    /// Read a part file's JSON; `file` names it in errors.
    pub fn from_json(file: &str, text: &str) -> Result<Partial, String> {
        let p: Partial = serde_json::from_str(text).map_err(|e| {
            format!("{file}: not a sweep part (written by `clusterscope sweep --shard i/n`): {e}")
        })?;
        if p.clusterscope_sweep_part != PART_VERSION {
            return Err(format!(
                "{file}: a sweep part of format {}; this clusterscope reads format {PART_VERSION}",
                p.clusterscope_sweep_part
            ));
        }
        Ok(p)
    }
}

/// Combine parts of one plan. Refuses parts of different plans (scenario, digest, variant,
/// seeds, set, grid) and a job present twice; `complete` also refuses missing jobs, naming
/// how many and the first.
pub fn merge(parts: Vec<(String, Partial)>, complete: bool) -> Result<Partial, String> {
    let mut it = parts.into_iter();
    let (first_file, mut acc) = it
        .next()
        .ok_or_else(|| "merge: no part files given".to_string())?;
    let mut from: BTreeMap<u64, String> = acc
        .outcomes
        .iter()
        .map(|o| (o.job, first_file.clone()))
        .collect();
    for (file, p) in it {
        if p.plan != acc.plan || p.expectations != acc.expectations {
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
    /// Seeds where it did not hold (the first [`MAX_LISTED_SEEDS`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_seeds: Vec<u64>,
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
                .map(|(i, name)| ExpectStat {
                    name: name.clone(),
                    held: wilson(
                        ok.iter().filter(|o| o.held.get(i) == Some(&true)).count() as u64,
                        runs,
                    ),
                    failed_seeds: failing(&|o| o.held.get(i) != Some(&true)),
                })
                .collect();
            // Every metric any run reported; a run without it counts as 0.
            let keys: std::collections::BTreeSet<&String> =
                ok.iter().flat_map(|o| o.metrics.keys()).collect();
            let metrics = keys
                .into_iter()
                .map(|k| {
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
                })
                .collect();
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

/// The expectations' names of `variant`, in the order a run reports them.
pub fn expectation_names(scenario: &Scenario, variant: &str) -> Result<Vec<String>, String> {
    let (_, v) = scenario.variant(variant)?;
    Ok(scenario
        .raw
        .expect
        .iter()
        .chain(v.expect.iter())
        .map(|e| e.name.clone())
        .collect())
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
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        crate::scenario::builtin::get("cassandra-21636-packet-loss").unwrap()
    }

    /// A cell's scenario replays that job exactly, also for a parameter the variant sets
    /// itself (its value would otherwise win over `[params]`).
    #[test]
    fn a_cell_scenario_replays_its_job() {
        let s = crate::scenario::builtin::get("cassandra-15138-shutdown-race").unwrap();
        let keys: Vec<String> = parameters(&s, "cassandra-4.0")
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert!(keys.contains(&"client_rate".to_string()), "{keys:?}");
        let grid = vec![
            Axis::parse("messaging=3.x,4.0").unwrap(),
            Axis::parse("client_rate=10,400").unwrap(),
        ];
        let plan = Plan::new(
            &s,
            "cassandra-4.0",
            3,
            2,
            &toml::Table::new(),
            grid,
            Some(60_000_000),
        )
        .unwrap();
        let limits = Limits::default();
        for j in 0..plan.jobs() {
            let (cell, seed) = plan.job(j);
            let text = cell_scenario(&s, &plan, cell).unwrap();
            let c = Scenario::parse("cell.toml", &text, &limits).unwrap();
            let alone = Plan::new(
                &c,
                &plan.variant,
                seed,
                1,
                &toml::Table::new(),
                vec![],
                plan.until,
            )
            .unwrap();
            let mut want = run_job(&s, &plan, j, &limits);
            let got = run_job(&c, &alone, 0, &limits);
            want.job = 0;
            assert_eq!(got, want, "job {j}: {}", plan.cell_label(cell));
        }
        // messaging=3.x in the variant that sets 4.0: the variant's table carries the cell's value.
        let text = cell_scenario(&s, &plan, 0).unwrap();
        let c = Scenario::parse("cell.toml", &text, &limits).unwrap();
        let (_, v) = c.variant("cassandra-4.0").unwrap();
        assert_eq!(
            v.params.get("messaging").and_then(|v| v.as_str()),
            Some("3.x")
        );
    }

    #[test]
    fn wilson_interval_known_values() {
        // 50/100: 95% Wilson interval [0.4038, 0.5962].
        let f = wilson(50, 100);
        assert!((f.ci95_low - 0.4038).abs() < 1e-3 && (f.ci95_high - 0.5962).abs() < 1e-3);
        let f = wilson(0, 10);
        assert_eq!(f.ci95_low, 0.0);
        assert!((f.ci95_high - 0.2775).abs() < 1e-3);
    }

    #[test]
    fn axes_parse_like_set() {
        let a = Axis::parse("loss=0.01,0.05, 0.1").unwrap();
        assert_eq!(a.key, "loss");
        assert_eq!(
            a.values,
            vec![
                toml::Value::Float(0.01),
                toml::Value::Float(0.05),
                toml::Value::Float(0.1)
            ]
        );
        let a = Axis::parse("client_delay=5ms,\"10ms\"").unwrap();
        assert_eq!(
            a.values,
            vec![
                toml::Value::String("5ms".into()),
                toml::Value::String("10ms".into())
            ]
        );
        for (bad, want) in [
            ("loss", "expected key=v1,v2"),
            ("=1,2", "the key is empty"),
            ("x=1,,2", "an empty value"),
            ("x=1,2,1", "given twice"),
        ] {
            let e = Axis::parse(bad).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    /// The product of the axes, first axis slowest, each cell's values and overrides.
    #[test]
    fn grid_expands_to_the_product() {
        let s = scenario();
        let grid = vec![
            Axis::parse("a=1,2,3").unwrap(),
            Axis::parse("b=x,y").unwrap(),
        ];
        let mut set = toml::Table::new();
        set.insert("c".into(), toml::Value::Integer(7));
        let p = Plan::new(&s, "fixed", 10, 4, &set, grid, None).unwrap();
        assert_eq!(p.cells(), 6);
        assert_eq!(p.jobs(), 24);
        let labels: Vec<String> = (0..6).map(|c| p.cell_label(c)).collect();
        assert_eq!(
            labels,
            ["a=1 b=x", "a=1 b=y", "a=2 b=x", "a=2 b=y", "a=3 b=x", "a=3 b=y"]
        );
        assert_eq!(p.job(0), (0, 10));
        assert_eq!(p.job(5), (1, 11));
        assert_eq!(p.job(23), (5, 13));
        let o = p.overrides(3);
        assert_eq!(o["a"], toml::Value::Integer(2));
        assert_eq!(o["b"], toml::Value::String("y".into()));
        assert_eq!(o["c"], toml::Value::Integer(7));
        // No grid: one cell, no values.
        let p = Plan::new(&s, "fixed", 1, 3, &toml::Table::new(), vec![], None).unwrap();
        assert_eq!(
            (p.cells(), p.jobs(), p.cell_label(0)),
            (1, 3, String::new())
        );
    }

    #[test]
    fn plans_refuse_what_cannot_run() {
        let s = scenario();
        let t = toml::Table::new();
        let ax = |s: &str| Axis::parse(s).unwrap();
        let e = |r: Result<Plan, String>| r.unwrap_err();
        assert!(e(Plan::new(&s, "nope", 1, 1, &t, vec![], None)).contains("nope"));
        assert!(e(Plan::new(&s, "fixed", 1, 0, &t, vec![], None)).contains("use 1 to"));
        assert!(e(Plan::new(&s, "fixed", u64::MAX, 2, &t, vec![], None)).contains("2^64-1"));
        assert!(e(Plan::new(
            &s,
            "fixed",
            1,
            1,
            &t,
            vec![ax("a=1"), ax("a=2")],
            None
        ))
        .contains("given twice"));
        let mut set = toml::Table::new();
        set.insert("a".into(), toml::Value::Integer(1));
        assert!(
            e(Plan::new(&s, "fixed", 1, 1, &set, vec![ax("a=1,2")], None))
                .contains("fixed or swept")
        );
        let big: Vec<Axis> = ["a", "b", "c"]
            .iter()
            .map(|k| {
                ax(&format!(
                    "{k}={}",
                    (0..10).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
                ))
            })
            .collect();
        assert!(e(Plan::new(&s, "fixed", 1, 1, &t, big, None)).contains("1000 cells"));
    }

    /// Shards partition the jobs: every job in exactly one shard, for any n.
    #[test]
    fn shards_partition_the_jobs() {
        let s = scenario();
        let p = Plan::new(
            &s,
            "fixed",
            1,
            7,
            &toml::Table::new(),
            vec![Axis::parse("a=1,2,3").unwrap()],
            None,
        )
        .unwrap();
        for n in 1..=25 {
            let mut seen = vec![0u32; p.jobs() as usize];
            for i in 0..n {
                for j in p.shard(i, n) {
                    seen[j as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "n={n}: {seen:?}");
        }
    }

    fn outcome(job: u64, passed: bool) -> Outcome {
        Outcome {
            job,
            seed: 1 + job,
            passed,
            held: vec![passed, true],
            metrics: BTreeMap::from([("m".to_string(), job as f64)]),
            error: None,
        }
    }

    /// Merging shards in any order gives the unsharded partial; overlaps, foreign parts and
    /// missing jobs are refused by name.
    #[test]
    fn merge_checks_what_it_combines() {
        let s = scenario();
        let p = Plan::new(&s, "fixed", 1, 10, &toml::Table::new(), vec![], None).unwrap();
        let names = vec!["x".to_string(), "y".to_string()];
        let all: Vec<Outcome> = (0..10).map(|j| outcome(j, j % 3 != 0)).collect();
        let whole = Partial::new(p.clone(), names.clone(), all.clone());
        let part = |i: u64| {
            let outs = p.shard(i, 3).map(|j| all[j as usize].clone()).collect();
            (
                format!("part-{i}.json"),
                Partial::new(p.clone(), names.clone(), outs),
            )
        };
        let merged = merge(vec![part(2), part(0), part(1)], true).unwrap();
        assert_eq!(merged, whole);
        assert_eq!(summarize(&merged), summarize(&whole));
        let s0 = summarize(&whole);
        assert_eq!(s0.cells[0].all_passed.count, 6);
        assert_eq!(s0.cells[0].failed_seeds, vec![1, 4, 7, 10]);
        assert_eq!(s0.cells[0].metrics["m"].max, 9.0);

        let e = merge(vec![part(0), part(1), part(0)], true).unwrap_err();
        assert!(
            e.contains("part-0.json") && e.contains("given twice"),
            "{e}"
        );
        let e = merge(vec![part(0), part(2)], true).unwrap_err();
        assert!(
            e.contains("3 of 10 runs are missing") && e.contains("job 1, seed 2"),
            "{e}"
        );
        assert!(merge(vec![part(0), part(2)], false).is_ok());
        let mut other = part(1);
        other.1.plan.variant = "buggy".into();
        let e = merge(vec![part(0), other, part(2)], true).unwrap_err();
        assert!(e.contains("variant fixed vs buggy"), "{e}");
    }

    /// A job's outcome depends on the plan and the job alone: the same job run twice, or in a
    /// different order, gives the same outcome; cells really change the parameters.
    #[test]
    fn jobs_are_deterministic_and_cells_apply() {
        let s = scenario();
        let p = Plan::new(
            &s,
            "buggy",
            3,
            2,
            &toml::Table::new(),
            vec![Axis::parse("echo=buggy,fixed").unwrap()],
            Some(200_000_000),
        )
        .unwrap();
        let l = Limits::default();
        let a: Vec<Outcome> = (0..4).map(|j| run_job(&s, &p, j, &l)).collect();
        let b: Vec<Outcome> = (0..4).rev().map(|j| run_job(&s, &p, j, &l)).collect();
        assert_eq!(a, b.into_iter().rev().collect::<Vec<_>>());
        assert!(a.iter().all(|o| o.error.is_none()));
        // The cells really differ: echo=buggy leaves phantom-DOWN pairs, echo=fixed none.
        assert!(a[0].metrics["down_pairs"] > 0.0, "{a:?}");
        assert_eq!(a[2].metrics["down_pairs"], 0.0, "{a:?}");
        let bad = Plan::new(
            &s,
            "buggy",
            1,
            1,
            &toml::Table::new(),
            vec![Axis::parse("fd_window=0").unwrap()],
            None,
        )
        .unwrap();
        let o = run_job(&s, &bad, 0, &l);
        assert!(
            o.error.as_deref().unwrap_or("").contains("fd_window"),
            "{o:?}"
        );
    }
}
