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
