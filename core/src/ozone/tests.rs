//! The Ozone scenarios run end to end (their expectations), plus the log lines that tell the
//! story, printed for `--nocapture`.

use crate::runner::{Run, RunOptions};
use crate::scenario::builtin;

fn run(name: &str, variant: &str) -> String {
    let s = builtin::get(name).unwrap();
    let mut r = Run::new(
        s,
        variant,
        None,
        &toml::Table::new(),
        &RunOptions {
            body_budget: 0,
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}/{variant}: {e}"));
    let rep = r
        .run(None)
        .unwrap_or_else(|e| panic!("{name}/{variant}: {e}"));
    let mut out = String::new();
    for e in &rep.expectations {
        if !e.passed {
            out += &format!("{name}/{variant}: FAIL {} -- {}\n", e.name, e.detail);
        }
    }
    out
}

#[test]
fn close_race_variants() {
    let mut fails = String::new();
    for v in ["buggy", "fixed", "fixed-leaks-quota"] {
        fails += &run("hdds-17673-close-race", v);
    }
    assert!(fails.is_empty(), "\n{fails}");
}

#[test]
fn write_pipeline() {
    let fails = run("ozone-write-pipeline", "ozone");
    assert!(fails.is_empty(), "\n{fails}");
}
