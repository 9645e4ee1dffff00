//! Helpers shared by the integration tests.

pub mod imports;

use clusterscope_core::runner::{Report, Run, RunOptions};
use clusterscope_core::scenario::builtin;

/// Run a built-in scenario variant to its end with default options.
pub fn run_builtin(name: &str, variant: &str, seed: Option<u64>) -> Report {
    run_builtin_until(name, variant, seed, None)
}

/// Run a built-in scenario variant up to `until` (the end when `None`).
pub fn run_builtin_until(
    name: &str,
    variant: &str,
    seed: Option<u64>,
    until: Option<u64>,
) -> Report {
    let s = builtin::get(name).unwrap_or_else(|e| panic!("{e}"));
    let mut r = Run::new(
        s,
        variant,
        seed,
        &toml::Table::new(),
        &RunOptions {
            body_budget: 0,
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}/{variant}: {e}"));
    let mut report = r
        .run(until)
        .unwrap_or_else(|e| panic!("{name}/{variant}: {e}"));
    report.views = r.views_json();
    report
}

/// Every (scenario, variant) built in.
pub fn all_cases() -> Vec<(String, String)> {
    builtin::all()
        .into_iter()
        .flat_map(|s| {
            s.variant_names()
                .into_iter()
                .map(|v| (s.raw.name.clone(), v.to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A readable failure listing for a report.
pub fn explain(r: &Report) -> String {
    let mut s = format!("{} [{}] seed {}:\n", r.scenario, r.variant, r.seed);
    for e in &r.expectations {
        s += &format!(
            "  {} {} -- {}\n",
            if e.passed { "ok  " } else { "FAIL" },
            e.name,
            e.detail
        );
    }
    s
}

/// Run every variant of each scenario file `(name, text)` on seeds `1..=seeds` (bodies not kept,
/// no checkpoints): how many runs, and the explanation of every run that failed an expectation
/// (empty when all held). A file that does not load, or a variant that expects fewer than
/// `min_expects` things, panics naming it.
pub fn run_files(files: &[(String, String)], seeds: u64, min_expects: usize) -> (usize, String) {
    let limits = clusterscope_core::limits::Limits::default();
    let opts = RunOptions {
        body_budget: 0,
        ..RunOptions::default()
    };
    let mut failures = String::new();
    let mut runs = 0;
    for (f, text) in files {
        let sc = clusterscope_core::scenario::Scenario::parse(f, text, &limits)
            .unwrap_or_else(|e| panic!("{e}"));
        for v in sc.variant_names() {
            for seed in 1..=seeds {
                let mut r = Run::new(sc.clone(), v, Some(seed), &toml::Table::new(), &opts)
                    .unwrap_or_else(|e| panic!("{f} [{v}]: {e}"));
                let rep = r.run(None).unwrap_or_else(|e| panic!("{f} [{v}]: {e}"));
                runs += 1;
                assert!(
                    rep.expectations.len() >= min_expects,
                    "{f} [{v}] expects fewer than {min_expects} things"
                );
                if !rep.passed {
                    failures += &explain(&rep);
                }
            }
        }
    }
    (runs, failures)
}
