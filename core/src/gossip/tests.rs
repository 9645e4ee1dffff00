use super::*;
use crate::runner::{Run, RunOptions};
use crate::scenario::builtin;

fn run(name: &str, variant: &str) -> crate::runner::Report {
    let s = builtin::get(name).unwrap();
    let mut r = Run::new(
        s,
        variant,
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    r.run(None).unwrap()
}

#[test]
fn debug_print_builtins() {
    for s in builtin::all() {
        for v in s.variant_names() {
            let rep = run(s.name(), v);
            eprintln!(
                "== {} {} passed={} events={} hash={}",
                rep.scenario, rep.variant, rep.passed, rep.events, rep.trace_hash
            );
            for e in &rep.expectations {
                eprintln!(
                    "   [{}] {} -- {}",
                    if e.passed { "ok" } else { "FAIL" },
                    e.name,
                    e.detail
                );
            }
        }
    }
}
