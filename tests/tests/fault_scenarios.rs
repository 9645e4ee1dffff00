//! Issue 42's faults and controls for Ozone and mutation tracking, as scenario files in
//! `tests/scenarios/ozone/` and `tests/scenarios/mutation/`, each modelled on the real code
//! (ContainerStateMachine, KeyValueHandler, XceiverServerRatis; ActiveLogReconciler). Every
//! variant must hold all its expectations on seeds 1..=20 (each was swept over 200 seeds when
//! written), and together the files use every new command and key, so none is untested.

use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;

const SEEDS: u64 = 20;

/// What the files must use between them: the new commands and parameters.
const COVERED: &[&str] = &[
    "hold-writes PutBlock",
    "inject-write-result CHUNK_FILE_INCONSISTENCY",
    "inject-write-result CONTAINER_INTERNAL_ERROR",
    "mark-unhealthy",
    "wait_on_all_followers = true",
    "drop-next MUTATION_REQ node3",
    "duplicate-next MUTATION_REQ node3",
    "push node1 0 node2",
];

fn files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["ozone", "mutation"] {
        let dir = format!("{}/scenarios/{dir}", env!("CARGO_MANIFEST_DIR"));
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                out.push((
                    p.display().to_string(),
                    std::fs::read_to_string(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_files_use_every_new_command_and_key() {
    let all: String = files().into_iter().map(|(_, t)| t).collect();
    for c in COVERED {
        assert!(all.contains(c), "no fault scenario uses `{c}`");
    }
}

#[test]
fn every_fault_scenario_holds_on_every_seed() {
    let limits = Limits::default();
    let opts = RunOptions {
        body_budget: 0,
        ..RunOptions::default()
    };
    let mut failures = String::new();
    let mut runs = 0;
    for (f, text) in files() {
        let sc = Scenario::parse(&f, &text, &limits).unwrap_or_else(|e| panic!("{e}"));
        for v in sc.variant_names() {
            for seed in 1..=SEEDS {
                let mut r = Run::new(sc.clone(), v, Some(seed), &toml::Table::new(), &opts)
                    .unwrap_or_else(|e| panic!("{f} [{v}]: {e}"));
                let rep = r.run(None).unwrap_or_else(|e| panic!("{f} [{v}]: {e}"));
                runs += 1;
                assert!(rep.expectations.len() >= 3, "{f} [{v}] expects too little");
                if !rep.passed {
                    failures += &clusterscope_tests::explain(&rep);
                }
            }
        }
    }
    assert!(runs >= 8 * SEEDS as usize);
    assert!(failures.is_empty(), "{failures}");
}
