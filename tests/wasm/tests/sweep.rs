//! Sweeps give the same per-seed outcomes in the browser as natively (issue 19): the jobs of one
//! plan (a grid over the echo fix, 6 seeds) are run here and compared, outcome for outcome, with
//! `tests/golden/sweep_outcomes.json`, written natively (`CLUSTERSCOPE_BLESS=1 cargo test -p
//! clusterscope-wasm-tests --test sweep`). The same source runs in headless Chromium
//! (`scripts/test`), which is where a Web Worker would run it.

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::builtin;
use clusterscope_core::sweep::{expectation_names, run_job, Axis, Outcome, Partial, Plan};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!("../../golden/sweep_outcomes.json");

fn part() -> Partial {
    let s = builtin::get("cassandra-21636-packet-loss").unwrap();
    let plan = Plan::new(
        &s,
        "buggy",
        1,
        6,
        &toml::Table::new(),
        vec![Axis::parse("echo=buggy,fixed").unwrap()],
        Some(360_000_000),
    )
    .unwrap();
    let limits = Limits::default();
    let outcomes: Vec<Outcome> = (0..plan.jobs())
        .map(|j| run_job(&s, &plan, j, &limits))
        .collect();
    Partial::new(plan, expectation_names(&s, "buggy").unwrap(), outcomes)
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn sweep_outcomes_match_the_native_golden_file() {
    let have = part();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("CLUSTERSCOPE_BLESS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../golden/sweep_outcomes.json");
        std::fs::write(path, serde_json::to_string_pretty(&have).unwrap() + "\n").unwrap();
        return;
    }
    let want = Partial::from_json("sweep_outcomes.json", GOLDEN).unwrap();
    assert_eq!(have.plan, want.plan);
    for (h, w) in have.outcomes.iter().zip(&want.outcomes) {
        assert_eq!(h, w, "job {}", h.job);
    }
    assert_eq!(have.outcomes.len(), want.outcomes.len());
    // The grid's cells differ as the parameter says: a phantom-DOWN pair only with echo=buggy.
    assert!(have.outcomes[..6]
        .iter()
        .all(|o| o.metrics["down_pairs"] > 0.0));
    assert!(have.outcomes[6..]
        .iter()
        .all(|o| o.metrics["down_pairs"] == 0.0));
}
