//! The numbers the app's "How often?" panel must show (issue 19): `tests/golden/sweep_app.json`
//! is what `clusterscope sweep cassandra-21636-packet-loss --variant buggy --seeds 20 --format
//! json` prints (the `Summary` of seeds 1 to 20), computed here natively through the same plan,
//! jobs and `summarize`. The e2e spec `tests/e2e/specs/sweep.mjs` runs the same sweep in Web
//! Workers and compares the panel's counts with this file. Bless after a deliberate behaviour
//! change: `CLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-tests --test sweep_app`.

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::builtin;
use clusterscope_core::sweep::{expectation_names, run_job, summarize, Partial, Plan, Summary};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/golden/sweep_app.json");

fn summary() -> Summary {
    let s = builtin::get("cassandra-21636-packet-loss").unwrap();
    let plan = Plan::new(&s, "buggy", 1, 20, &toml::Table::new(), vec![], None).unwrap();
    let limits = Limits::default();
    let outs = (0..plan.jobs())
        .map(|j| run_job(&s, &plan, j, &limits))
        .collect();
    summarize(&Partial::new(
        plan,
        expectation_names(&s, "buggy").unwrap(),
        outs,
    ))
}

#[test]
fn the_app_sweeps_golden_summary_is_current() {
    let have = summary();
    let text = serde_json::to_string_pretty(&have).unwrap() + "\n";
    if std::env::var_os("CLUSTERSCOPE_BLESS").is_some() {
        std::fs::write(PATH, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(PATH)
        .expect("tests/golden/sweep_app.json: bless it (see the module doc)");
    let want: Summary = serde_json::from_str(&want).unwrap();
    assert_eq!(have, want, "re-bless if the change is deliberate");
    // The file is worth comparing with: 20 runs, every one completed, eight expectations.
    let c = &have.cells[0];
    assert_eq!(c.all_passed.runs, 20);
    assert!(c.errors.is_empty());
    assert_eq!(c.expectations.len(), 8);
}
