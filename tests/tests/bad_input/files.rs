//! Rows: scenario files, building a run, and what must not pass silently.

use super::*;

/// Scenario files: TOML, tables, keys, values, sizes.
pub(super) fn scenario_files() -> Vec<Row> {
    vec![
        sc(
            "malformed_toml",
            "Malformed TOML (an unterminated string)",
            "title = \"The valid scenario each bad-input row changes\"",
            "title = \"The valid scenario each bad-input row changes",
            &["bad.toml", "line 2", "column"],
        ),
        sc(
            "unknown_top_level_field",
            "Unknown top-level field",
            "protocol = \"gossip\"\n",
            "protocol = \"gossip\"\ncolour = \"blue\"\n",
            &["line 4", "unknown field `colour`", "expected one of", "title"],
        ),
        sc(
            "unknown_protocol",
            "A protocol that is not modelled",
            "protocol = \"gossip\"",
            "protocol = \"paxos\"",
            &["protocol", "paxos", "use one of: gossip"],
        ),
        sc(
            "bad_scenario_name",
            "A scenario name with spaces",
            "name = \"bad-input-base\"",
            "name = \"bad input\"",
            &["name:", "letters, digits, '-' and '_'"],
        ),
        sc_append(
            "unknown_field_in_fault",
            "Unknown field in a fault (a typo)",
            "[[faults]]\nat = \"10s\"\naction = \"drop-link\"\nfrm = \"A\"\nto = \"B\"\n",
            &["faults[0]", "unknown field `frm`", "expected one of", "from"],
        ),
        sc_append(
            "unknown_action",
            "Unknown action in a fault",
            "[[faults]]\nat = \"10s\"\naction = \"explode\"\nnode = \"A\"\n",
            &["faults[0]", "unknown variant `explode`", "drop-link", "restart"],
        ),
        sc_append(
            "fault_without_time",
            "A fault without `at`",
            "[[faults]]\naction = \"kill\"\nnode = \"A\"\n",
            &["faults[0]", "missing `at`", "at = \"30s\""],
        ),
        sc_append(
            "fault_after_end",
            "A fault after the end of the scenario",
            "[[faults]]\nat = \"2m\"\naction = \"kill\"\nnode = \"A\"\n",
            &["faults[0].at", "120s", "after the end", "60s"],
        ),
        sc(
            "negative_duration",
            "Negative duration",
            "duration = \"1m\"",
            "duration = \"-5s\"",
            &["line 4", "duration", "negative", ">= 0"],
        ),
        sc(
            "duration_without_unit",
            "Duration without a unit (a bare number)",
            "duration = \"1m\"",
            "duration = 30",
            &["line 4", "duration 30 has no unit", "\"30s\""],
        ),
        sc(
            "duration_string_without_unit",
            "Duration string without a unit",
            "duration = \"1m\"",
            "duration = \"30\"",
            &["line 4", "has no unit", "us, ms, s, m, h", "\"30s\""],
        ),
        sc(
            "duration_unknown_unit",
            "Duration with an unknown unit",
            "duration = \"1m\"",
            "duration = \"5 parsecs\"",
            &["line 4", "unknown unit \"parsecs\"", "us, ms, s, m or h"],
        ),
        sc(
            "huge_duration",
            "Duration beyond the limit (6 h)",
            "duration = \"1m\"",
            "duration = \"7h\"",
            &["duration:", "25200s", "out of range", "at most 21600s"],
        ),
        sc(
            "absurd_duration",
            "Duration too large to represent",
            "duration = \"1m\"",
            "duration = \"9999999999999h\"",
            &["line 4", "too large"],
        ),
        sc_append(
            "huge_fault_time",
            "A fault time too large to represent",
            "[[faults]]\nat = \"99999999999999999h\"\naction = \"kill\"\nnode = \"A\"\n",
            &["faults[0].at", "too large"],
        ),
        sc(
            "million_nodes",
            "A million nodes (generate count)",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"C\" }]",
            "generate = { count = 1000000 }",
            &["cluster:", "generate.count 1000000", "out of range", "use 1 to 512"],
        ),
        sc(
            "zero_nodes",
            "An empty cluster",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"C\" }]",
            "nodes = []",
            &["cluster:", "no nodes", "cluster.generate = { count = N }"],
        ),
        sc(
            "nodes_and_generate",
            "Both a node list and `generate`",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"C\" }]",
            "nodes = [{ name = \"A\" }]\ngenerate = { count = 3 }",
            &["cluster:", "either `nodes` or `generate`"],
        ),
        sc(
            "duplicate_node_names",
            "Duplicate node names",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"C\" }]",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"A\" }]",
            &["cluster:", "node \"A\" is listed twice"],
        ),
        sc(
            "node_name_with_space",
            "A node name with a space",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"C\" }]",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"node C\" }]",
            &["cluster:", "\"node C\"", "without spaces, commas"],
        ),
        sc(
            "unknown_seed",
            "A seed that is not a node",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"C\" }]",
            "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"C\" }]\nseeds = [\"D\"]",
            &["cluster: seeds", "unknown node \"D\"", "nodes are: A, B, C"],
        ),
        sc_append(
            "unknown_node_in_fault",
            "Unknown node in a fault",
            "[[faults]]\nat = \"10s\"\naction = \"drop-link\"\nfrom = \"A\"\nto = \"Z\"\n",
            &["faults[0]", "unknown node \"Z\"", "nodes are: A, B, C"],
        ),
        sc_append(
            "unknown_node_in_variant_fault",
            "Unknown node in a variant's fault",
            "[[variants.faults]]\nat = \"10s\"\naction = \"kill\"\nnode = \"Z\"\n",
            &["variants.fixed.faults[0]", "unknown node \"Z\"", "nodes are: A, B, C"],
        ),
        sc_append(
            "unknown_node_in_expectation",
            "Unknown node in an expectation",
            "[[expect]]\nname = \"A sees Z\"\nview = \"liveness\"\nobserver = \"A\"\npeer = \"Z\"\nat = \"end\"\nequals = \"UP\"\n",
            &["expect \"A sees Z\"", "peer", "unknown node \"Z\"", "nodes are: A, B, C"],
        ),
        sc_append(
            "expectation_without_check",
            "An expectation with no check",
            "[[expect]]\nname = \"nothing\"\nview = \"liveness\"\nobserver = \"A\"\npeer = \"B\"\nat = \"end\"\n",
            &["expect \"nothing\"", "exactly one check", "equals"],
        ),
        sc_append(
            "unknown_variant_in_caption",
            "Unknown variant in a caption",
            "[[captions]]\nat = \"5s\"\ntext = \"hello\"\nvariants = [\"fast\"]\n",
            &["captions[0].variants", "unknown variant \"fast\""],
        ),
        sc_append(
            "caption_after_end",
            "A caption after the end",
            "[[captions]]\nat = \"2m\"\ntext = \"too late\"\n",
            &["captions[0].at", "120s", "after the end"],
        ),
        sc_append(
            "out_of_range_loss_in_fault",
            "Out-of-range loss in a fault",
            "[[faults]]\nat = \"10s\"\naction = \"set-loss\"\nfrom = \"A\"\nto = \"B\"\nloss = 2.0\n",
            &["faults[0]", "loss", "0.0 to 1.0"],
        ),
        sc(
            "out_of_range_network_loss",
            "Out-of-range baseline loss",
            "latency_max = \"2ms\"\n",
            "latency_max = \"2ms\"\nloss = 2.0\n",
            &["network", "loss", "0.0 to 1.0"],
        ),
        sc(
            "latency_min_above_max",
            "Network latency min > max",
            "latency_min = \"200us\"",
            "latency_min = \"5ms\"",
            &["network:", "latency_min must be <= latency_max"],
        ),
        sc_append(
            "latency_min_above_max_in_fault",
            "Latency min > max in a fault",
            "[[faults]]\nat = \"10s\"\naction = \"set-latency\"\nfrom = \"A\"\nto = \"B\"\nmin = \"5ms\"\nmax = \"1ms\"\n",
            &["faults[0]", "min", "max"],
        ),
        sc(
            "empty_variants",
            "No variants",
            VARIANTS,
            "",
            &["missing field `variants`"],
        ),
        Row {
            id: "empty_variants_list",
            what: "An empty variants list",
            shown: s("variants = []   # before the first table"),
            input: Input::Scenario(
                replaced(VARIANTS, "").replace("duration = \"1m\"\n", "duration = \"1m\"\nvariants = []\n"),
            ),
            want: &["variants:", "at least one [[variants]] entry"],
            bug: None,
        },
        sc(
            "duplicate_variant",
            "A variant defined twice",
            "name = \"fixed\"",
            "name = \"buggy\"",
            &["variants:", "\"buggy\" is defined twice"],
        ),
        Row {
            id: "oversized_scenario",
            what: "A scenario file over the size limit",
            shown: s("the base scenario followed by 1 MiB of comment lines"),
            input: Input::Scenario(format!("{BASE}{}", "# padding padding padding padding\n".repeat(32 * 1024))),
            want: &["bad.toml", "the limit is 1048576 bytes"],
            bug: None,
        },
    ]
}

/// Building a run: parameters, variants, nodes, limits.
pub(super) fn building() -> Vec<Row> {
    vec![
        Row {
            id: "unknown_param",
            what: "Unknown parameter (a typo)",
            shown: s("[params]\necoh = \"fixed\""),
            input: Input::Run {
                text: replaced("echo = \"buggy\"", "ecoh = \"fixed\""),
                variant: s("buggy"),
            },
            want: &[
                "params (variant buggy)",
                "unknown field `ecoh`",
                "expected one of",
                "echo",
            ],
            bug: None,
        },
        Row {
            id: "bad_param_type",
            what: "Parameter of the wrong type",
            shown: s("[params]\nphi_convict_threshold = \"high\""),
            input: Input::Run {
                text: replaced("echo = \"buggy\"", "phi_convict_threshold = \"high\""),
                variant: s("buggy"),
            },
            want: &["params (variant buggy)", "invalid type", "\"high\"", "f64"],
            bug: None,
        },
        Row {
            id: "bad_param_value",
            what: "Parameter out of range",
            shown: s("[params]\nfd_window = 0"),
            input: Input::Run {
                text: replaced("echo = \"buggy\"", "fd_window = 0"),
                variant: s("buggy"),
            },
            want: &["bad.toml", "fd_window 0", "between 1 and 10000"],
            bug: None,
        },
        Row {
            id: "unknown_echo_variant",
            what: "Unknown value of an enum parameter",
            shown: s("[params]\necho = \"quick\""),
            input: Input::Run {
                text: replaced("echo = \"buggy\"", "echo = \"quick\""),
                variant: s("buggy"),
            },
            want: &[
                "params (variant buggy)",
                "unknown variant `quick`",
                "legacy",
                "fixed",
            ],
            bug: None,
        },
        Row {
            id: "unknown_run_variant",
            what: "Running a variant the scenario does not have",
            shown: s("variant \"fast\""),
            input: Input::Run {
                text: s(BASE),
                variant: s("fast"),
            },
            want: &["unknown variant \"fast\"", "buggy, fixed"],
            bug: None,
        },
    ]
}

/// Issue 13: nothing silently wrong.
pub(super) fn silently_wrong() -> Vec<Row> {
    vec![
        sc_append(
            "expect_reversed_during",
            "An expectation window written backwards",
            "[[expect]]\nname = \"late\"\nview = \"down_pairs\"\nduring = [\"end\", \"10s\"]\nat_most = 0\n",
            &["expect \"late\"", "`during` window [60s, 10s] is reversed", "start first"],
        ),
        sc_append(
            "expect_at_after_end",
            "An expectation due after the end of the run",
            "[[expect]]\nname = \"later\"\nview = \"down_pairs\"\nat = \"2m\"\nat_most = 0\n",
            &["expect \"later\"", "`at` 120s is after the end", "60s"],
        ),
        sc_append(
            "expect_nan_bound",
            "A NaN bound (every comparison with it is false)",
            "[[expect]]\nname = \"nan\"\nview = \"down_pairs\"\nat_most = nan\n",
            &["expect \"nan\"", "`at_most` is NaN", "finite"],
        ),
        sc_append(
            "expect_bounds_crossed",
            "`at_least` above `at_most`",
            "[[expect]]\nname = \"never\"\nview = \"down_pairs\"\nat_least = 5\nat_most = 1\n",
            &["expect \"never\"", "`at_least` 5 is above `at_most` 1"],
        ),
        sc_append(
            "expect_liveness_without_peer",
            "A `liveness` expectation without a peer",
            "[[expect]]\nname = \"up\"\nview = \"liveness\"\nobserver = \"A\"\nequals = \"UP\"\n",
            &["expect \"up\"", "view `liveness` needs `peer", "cannot be checked"],
        ),
        sc_append(
            "expect_status_without_node",
            "A generic `status` expectation without a node",
            "[[expect]]\nname = \"running\"\nview = \"status\"\nequals = \"running\"\n",
            &["expect \"running\"", "view `status` needs `observer"],
        ),
    ]
}
