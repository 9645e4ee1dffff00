//! Rows: `clusterscope hunt`'s arguments (issue 43).

use super::*;

/// `clusterscope hunt` (issue 43): the arguments core checks before a hunt runs.
pub(super) fn hunt_arguments() -> Vec<Row> {
    vec![
        hunt(
            "hunt_break_unknown_expectation",
            "A hunt for an expectation the scenario does not have",
            "clusterscope hunt sandbox-gossip --break \"every node is UP\"",
            Some("every node is UP"),
            "all",
            "10000runs",
            6,
            &[
                "--break \"every node is UP\"",
                "no expectation of that name",
                "\"A sees C UP (left alone, the cluster stays healthy)\"",
            ],
        ),
        hunt(
            "hunt_invariants_without_checks",
            "A hunt for a broken invariant on a model that checks none",
            "clusterscope hunt sandbox-gossip --invariants",
            None,
            "all",
            "10000runs",
            6,
            &[
                "--invariants",
                "gossip model checks no safety invariants",
                "--break \"NAME\"",
            ],
        ),
        hunt(
            "hunt_faults_unknown_kind",
            "A fault kind the hunt does not know",
            "clusterscope hunt sandbox-gossip --break \"...\" --faults drop,crashes",
            Some("A sees C UP (left alone, the cluster stays healthy)"),
            "drop,crashes",
            "10000runs",
            6,
            &[
                "--faults drop,crashes",
                "\"crashes\" is not a fault kind",
                "drop,loss,partition,delay,restart,kill,stall,command",
                "preset: all, recoverable, network, crash",
            ],
        ),
        hunt(
            "hunt_faults_kind_twice",
            "A fault kind given twice (here once by itself, once in a preset)",
            "clusterscope hunt sandbox-gossip --break \"...\" --faults network,drop",
            Some("A sees C UP (left alone, the cluster stays healthy)"),
            "network,drop",
            "10000runs",
            6,
            &["--faults network,drop", "\"drop\" is given twice"],
        ),
        hunt(
            "hunt_budget_zero_runs",
            "A hunt of no runs",
            "clusterscope hunt sandbox-gossip --break \"...\" --budget 0runs",
            Some("A sees C UP (left alone, the cluster stays healthy)"),
            "all",
            "0runs",
            6,
            &["--budget 0runs", "use 1 to 100000000 runs", "60s"],
        ),
        hunt(
            "hunt_budget_not_a_budget",
            "A budget that is neither runs nor a time",
            "clusterscope hunt sandbox-gossip --break \"...\" --budget 10k",
            Some("A sees C UP (left alone, the cluster stays healthy)"),
            "all",
            "10k",
            6,
            &[
                "--budget 10k",
                "number of runs (10000runs)",
                "wall-clock time (60s, 5m)",
            ],
        ),
        hunt(
            "hunt_max_faults_zero",
            "Runs of no faults at all",
            "clusterscope hunt sandbox-gossip --break \"...\" --max-faults 0",
            Some("A sees C UP (left alone, the cluster stays healthy)"),
            "all",
            "10000runs",
            0,
            &["--max-faults 0", "use 1 to 64 faults a run"],
        ),
    ]
}
