//! The numbers the app's "How often?" panel must show (issue 19): `tests/golden/sweep_app.json`
//! is what `clusterscope sweep cassandra-21636-packet-loss --variant buggy --seeds 20 --format
//! json` prints (the `Summary` of seeds 1 to 20), computed here natively through the same plan,
//! jobs and `summarize`. The e2e spec `tests/e2e/specs/sweep.mjs` runs the same sweep in Web
//! Workers and compares the panel's counts with this file. Bless after a deliberate behaviour
//! change: `CLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-tests --test sweep_app`.
//!
//! `tests/golden/sweep_app_grid.json` is the same for a grid (what `sweep.mjs` sweeps in the
//! app's grid rows): `--variant buggy --seeds 4 --grid echo=buggy,fixed --grid
//! phi_convict_threshold=5,8,12`.

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::builtin;
use clusterscope_core::sweep::{
    expectation_names, run_job, summarize, Axis, Partial, Plan, Summary,
};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/golden/sweep_app.json");
const GRID_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/golden/sweep_app_grid.json");

fn summary(seeds: u64, grid: &[&str]) -> Summary {
    let s = builtin::get("cassandra-21636-packet-loss").unwrap();
    let grid = grid.iter().map(|a| Axis::parse(a).unwrap()).collect();
    let plan = Plan::new(&s, "buggy", 1, seeds, &toml::Table::new(), grid, None).unwrap();
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

/// `have` equals the file at `path`, or is written there when blessing.
fn golden(path: &str, have: &Summary) -> bool {
    let text = serde_json::to_string_pretty(have).unwrap() + "\n";
    if std::env::var_os("CLUSTERSCOPE_BLESS").is_some() {
        std::fs::write(path, &text).unwrap();
        return false;
    }
    let want = std::fs::read_to_string(path)
        .unwrap_or_else(|_| panic!("{path}: bless it (see the module doc)"));
    // As text: a float read back from JSON can differ in its last bit (serde_json's default
    // parser is not exact), the text a summary writes cannot.
    assert!(
        text == want,
        "{path}: differs from this build's summary; re-bless if the change is deliberate:\n{text}"
    );
    true
}

#[test]
fn the_app_sweeps_golden_summary_is_current() {
    let have = summary(20, &[]);
    if !golden(PATH, &have) {
        return;
    }
    // The file is worth comparing with: 20 runs, every one completed, eight expectations and the
    // captions' checks.
    let c = &have.cells[0];
    assert_eq!(c.all_passed.runs, 20);
    assert!(c.errors.is_empty());
    let (captions, story): (Vec<_>, Vec<_>) = c
        .expectations
        .iter()
        .partition(|e| e.name.starts_with("caption at "));
    assert_eq!(story.len(), 8);
    assert!(!captions.is_empty());
}

#[test]
fn the_app_grid_sweeps_golden_summary_is_current() {
    let have = summary(4, &["echo=buggy,fixed", "phi_convict_threshold=5,8,12"]);
    if !golden(GRID_PATH, &have) {
        return;
    }
    // Worth comparing with: six cells of four runs, and the cells differ (the fixed echo fails
    // the buggy variant's expectations in every seed; the buggy one holds in most). Not every
    // check of the buggy cells: at phi_convict_threshold 12 nobody is convicted yet when the 40 s
    // caption ("phi passes 8: the failure detectors convict") shows, so its check fails there.
    assert_eq!(have.cells.len(), 6);
    let counts: Vec<u64> = have.cells.iter().map(|c| c.all_passed.count).collect();
    assert!(
        have.cells.iter().all(|c| c.all_passed.runs == 4),
        "{counts:?}"
    );
    assert!(counts[3..] == [0, 0, 0], "{counts:?}");
    let wedged: Vec<u64> = have
        .cells
        .iter()
        .map(|c| {
            let e = c.expectations.iter();
            e.filter(|e| e.name == "A sees B DOWN from 5 s after the heal to the end")
                .map(|e| e.held.count)
                .sum()
        })
        .collect();
    assert!(
        wedged[..3].iter().all(|&n| n > 0) && wedged[3..] == [0, 0, 0],
        "{wedged:?}"
    );
}
