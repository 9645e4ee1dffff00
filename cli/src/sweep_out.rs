//! Monte Carlo over seeds: each seed is an independent deterministic run; workers take seeds from
//! a shared counter and results are aggregated in seed order, so the summary does not depend on
//! thread timing.

use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

#[derive(Serialize)]
pub struct Fraction {
    pub count: u64,
    pub runs: u64,
    pub fraction: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

#[derive(Serialize)]
pub struct ExpectStat {
    pub name: String,
    #[serde(flatten)]
    pub held: Fraction,
}

#[derive(Serialize)]
pub struct MetricStat {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// Seeds where the metric was above zero (e.g. at least one wedged pair).
    pub nonzero: Fraction,
}

#[derive(Serialize)]
pub struct Summary {
    pub scenario: String,
    pub variant: String,
    pub first_seed: u64,
    pub seeds: u64,
    pub jobs: usize,
    pub all_passed: Fraction,
    pub expectations: Vec<ExpectStat>,
    pub metrics: BTreeMap<String, MetricStat>,
    pub errors: Vec<String>,
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

struct One {
    passed: bool,
    expectations: Vec<(String, bool)>,
    metrics: BTreeMap<String, f64>,
}

#[allow(clippy::too_many_arguments)]
pub fn sweep(
    s: &Scenario,
    variant: &str,
    ov: &toml::Table,
    first: u64,
    n: u64,
    jobs: usize,
    until: Option<u64>,
    limits: &clusterscope_core::limits::Limits,
) -> Result<Summary, String> {
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<Option<Result<One, String>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    let bar = indicatif::ProgressBar::new(n);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} seeds {pos}/{len} [{bar:40}] {per_sec} eta {eta}",
        )
        .expect("template")
        .progress_chars("=> "),
    );
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(n as usize) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let one = Run::new(
                    s.clone(),
                    variant,
                    Some(first + i),
                    ov,
                    &RunOptions {
                        body_budget: 0,
                        limits: limits.clone(),
                        ..RunOptions::default()
                    },
                )
                .and_then(|mut r| r.run(until).map_err(|e| e.to_string()))
                .map(|rep| One {
                    passed: rep.passed,
                    expectations: rep
                        .expectations
                        .into_iter()
                        .map(|e| (e.name, e.passed))
                        .collect(),
                    metrics: rep.metrics,
                })
                .map_err(|e| format!("seed {}: {e}", first + i));
                results.lock().expect("lock")[i as usize] = Some(one);
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    let results = results.into_inner().expect("lock");
    let mut ok: Vec<One> = Vec::new();
    let mut errors = Vec::new();
    for r in results.into_iter().flatten() {
        match r {
            Ok(o) => ok.push(o),
            Err(e) => errors.push(e),
        }
    }
    let runs = ok.len() as u64;
    let names: Vec<String> = ok
        .first()
        .map(|o| o.expectations.iter().map(|e| e.0.clone()).collect())
        .unwrap_or_default();
    let expectations = names
        .iter()
        .enumerate()
        .map(|(i, name)| ExpectStat {
            name: name.clone(),
            held: wilson(
                ok.iter().filter(|o| o.expectations[i].1).count() as u64,
                runs,
            ),
        })
        .collect();
    let mut metrics = BTreeMap::new();
    if let Some(first) = ok.first() {
        for k in first.metrics.keys() {
            let vals: Vec<f64> = ok.iter().map(|o| o.metrics[k]).collect();
            metrics.insert(
                k.clone(),
                MetricStat {
                    mean: vals.iter().sum::<f64>() / vals.len() as f64,
                    min: vals.iter().cloned().fold(f64::INFINITY, f64::min),
                    max: vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                    nonzero: wilson(vals.iter().filter(|v| **v > 0.0).count() as u64, runs),
                },
            );
        }
    }
    Ok(Summary {
        scenario: s.raw.name.clone(),
        variant: variant.to_string(),
        first_seed: first,
        seeds: n,
        jobs,
        all_passed: wilson(ok.iter().filter(|o| o.passed).count() as u64, runs),
        expectations,
        metrics,
        errors,
    })
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

pub fn print_text(s: &Summary) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} [{}] seeds {}..{} on {} threads",
        s.scenario,
        s.variant,
        s.first_seed,
        s.first_seed + s.seeds - 1,
        s.jobs
    );
    let _ = writeln!(o, "  all expectations held: {}", pct(&s.all_passed));
    for e in &s.expectations {
        let _ = writeln!(o, "  {}  {}", pct(&e.held), e.name);
    }
    let _ = writeln!(
        o,
        "  metric                      mean       min       max   seeds with > 0 (95% CI)"
    );
    for (k, m) in &s.metrics {
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
    for e in &s.errors {
        let _ = writeln!(o, "  error: {e}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::wilson;

    #[test]
    fn wilson_interval_known_values() {
        // 50/100: 95% Wilson interval [0.4038, 0.5962].
        let f = wilson(50, 100);
        assert!((f.ci95_low - 0.4038).abs() < 1e-3 && (f.ci95_high - 0.5962).abs() < 1e-3);
        let f = wilson(0, 10);
        assert_eq!(f.ci95_low, 0.0);
        assert!((f.ci95_high - 0.2775).abs() < 1e-3);
    }
}
