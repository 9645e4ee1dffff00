//! The bad-input catalogue: every bad scenario file, permalink or user action tried, and the
//! exact error it gets. Each row is its own test, asserting that the message names the place and
//! the fix (key words). docs/BAD_INPUT.md is generated from these rows' actual outputs:
//!
//! ```text
//! CLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-tests --test bad_input bad_input_doc
//! ```
//!
//! and `bad_input_doc_is_current` fails when the file no longer matches what the code says.
//! Rows marked `bug` describe input that core accepts although it should not (or answers
//! badly); their tests are `#[ignore]`d until core is fixed, and the doc shows today's outcome.

use base64::Engine as _;
use clusterscope_core::engine::action::RecordedAction;
use clusterscope_core::engine::action::{Action, Dur};
use clusterscope_core::engine::trace::LogLevel;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::{ScenarioRef, Session, MAX_PERMALINK_CHARS, PERMALINK_VERSION};

/// A small valid scenario; each row changes one thing.
const BASE: &str = r#"name = "bad-input-base"
title = "The valid scenario each bad-input row changes"
protocol = "gossip"
duration = "1m"

[cluster]
nodes = [{ name = "A" }, { name = "B" }, { name = "C" }]

[network]
latency_min = "200us"
latency_max = "2ms"

[params]
echo = "buggy"

[[variants]]
name = "buggy"

[[variants]]
name = "fixed"
params = { echo = "fixed" }
"#;

const VARIANTS: &str = "[[variants]]\nname = \"buggy\"\n\n[[variants]]\nname = \"fixed\"\nparams = { echo = \"fixed\" }\n";

/// What is fed to core.
enum Input {
    /// `Scenario::parse("bad.toml", text)`; if it parses, the first variant is built and run to
    /// the end, and the run's warnings are the outcome.
    Scenario(String),
    /// A valid scenario text, built with `Run::new` for the given variant.
    Run { text: String, variant: String },
    /// `Session::decode(text)`.
    Permalink(String),
    /// `apply_user_action` on the base scenario (`fixed`) at 2 s.
    UserAction(Action),
}

struct Row {
    id: &'static str,
    /// What is wrong, for the doc.
    what: &'static str,
    /// The input as the doc shows it (the changed lines, or a description of a large input).
    shown: String,
    input: Input,
    /// Key words the message must contain: the place and the fix.
    want: &'static [&'static str],
    /// Set when core is wrong today; the row's test is ignored.
    bug: Option<&'static str>,
}

/// The base scenario with `from` replaced by `to` (which must occur exactly once).
fn replaced(from: &str, to: &str) -> String {
    assert_eq!(BASE.matches(from).count(), 1, "{from:?}");
    BASE.replace(from, to)
}

/// A scenario row: the base with one replacement; the doc shows `to`.
fn sc(
    id: &'static str,
    what: &'static str,
    from: &str,
    to: &str,
    want: &'static [&'static str],
) -> Row {
    Row {
        id,
        what,
        shown: to.trim_end().to_string(),
        input: Input::Scenario(replaced(from, to)),
        want,
        bug: None,
    }
}

/// A scenario row that appends tables at the end of the base.
fn sc_append(
    id: &'static str,
    what: &'static str,
    extra: &str,
    want: &'static [&'static str],
) -> Row {
    Row {
        id,
        what,
        shown: extra.trim().to_string(),
        input: Input::Scenario(format!("{BASE}\n{}", extra.trim_start())),
        want,
        bug: None,
    }
}

#[allow(dead_code)] // For rows describing input core accepts but should not; none today.
fn bug(mut r: Row, why: &'static str) -> Row {
    r.bug = Some(why);
    r
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn deflated_link(json: &[u8]) -> String {
    b64(&miniz_oxide::deflate::compress_to_vec(json, 9))
}

fn session(actions: Vec<RecordedAction>) -> Session {
    Session {
        v: PERMALINK_VERSION,
        scenario: ScenarioRef::Builtin("cassandra-21636-packet-loss".into()),
        variant: "buggy".into(),
        seed: 7,
        actions,
        cursor: 500,
        selected: None,
        compare: None,
        branches: Vec::new(),
        branch: 0,
    }
}

fn kill_at(step: u64) -> RecordedAction {
    RecordedAction {
        step,
        at: Dur(step * 1000),
        action: Action::Kill { node: "A".into() },
    }
}

fn link(
    id: &'static str,
    what: &'static str,
    shown: String,
    text: String,
    want: &'static [&'static str],
) -> Row {
    Row {
        id,
        what,
        shown,
        input: Input::Permalink(text),
        want,
        bug: None,
    }
}

fn act(id: &'static str, what: &'static str, a: Action, want: &'static [&'static str]) -> Row {
    Row {
        id,
        what,
        shown: serde_json::to_string(&a).unwrap(),
        input: Input::UserAction(a),
        want,
        bug: None,
    }
}

fn s(x: &str) -> String {
    x.to_string()
}

fn rows() -> Vec<Row> {
    let good = session(vec![kill_at(120)]).encode();
    let mut v2 = session(vec![]);
    v2.v = 2;
    let huge_session = session((0..10_001).map(|i| kill_at(i + 1)).collect());
    vec![
        // ---- scenario files ----
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
        // ---- building a run ----
        Row {
            id: "unknown_param",
            what: "Unknown parameter (a typo)",
            shown: s("[params]\necoh = \"fixed\""),
            input: Input::Run {
                text: replaced("echo = \"buggy\"", "ecoh = \"fixed\""),
                variant: s("buggy"),
            },
            want: &["params (variant buggy)", "unknown field `ecoh`", "expected one of", "echo"],
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
            want: &["params (variant buggy)", "unknown variant `quick`", "legacy", "fixed"],
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
        // ---- permalinks ----
        link("permalink_empty", "Empty permalink", s("#"), s("#"), &["no session data after '#'"]),
        link(
            "permalink_broken",
            "Broken permalink (not base64url)",
            s("#s=!!!not-base64!!!"),
            s("#s=!!!not-base64!!!"),
            &["damaged", "not base64url", "cut off when copied"],
        ),
        link(
            "permalink_truncated",
            "Truncated permalink (cut in half)",
            s("the first half of a valid link"),
            good[..good.len() / 2].to_string(),
            &["damaged", "truncated or corrupt", "cut off when copied"],
        ),
        link(
            "permalink_oversized",
            "Oversized permalink",
            format!("{} characters", MAX_PERMALINK_CHARS + 1),
            "A".repeat(MAX_PERMALINK_CHARS + 1),
            &["2000001 characters long", "the limit is 2000000"],
        ),
        link(
            "permalink_wrong_version",
            "Permalink of another format version",
            s("a valid session with \"v\": 2"),
            v2.encode(),
            &["format version 2", "reads version 1"],
        ),
        link(
            "permalink_zip_bomb",
            "Zip bomb (5 MiB of spaces, deflated to a few KiB)",
            s("deflate(5 MiB of spaces)"),
            deflated_link(&vec![b' '; 5 << 20]),
            &["larger than 2097152 bytes"],
        ),
        link(
            "permalink_not_a_session",
            "Valid compression of JSON that is not a session",
            s("deflate({\"v\":1})"),
            deflated_link(b"{\"v\":1}"),
            &["session is not valid", "missing field `scenario`"],
        ),
        link(
            "permalink_unknown_field",
            "A session with an unknown field",
            s("deflate({...\"colour\":\"blue\"})"),
            deflated_link(
                br#"{"v":1,"scenario":{"builtin":"x"},"variant":"buggy","seed":1,"colour":"blue"}"#,
            ),
            &["session is not valid", "unknown field `colour`"],
        ),
        link(
            "permalink_too_many_actions",
            "A session with more recorded actions than the limit",
            s("a valid session with 10001 actions"),
            huge_session.encode(),
            &["10001 actions", "the limit is 10000"],
        ),
        link(
            "permalink_actions_out_of_order",
            "Recorded actions out of step order",
            s("a valid session whose actions are at steps 120, 40"),
            session(vec![kill_at(120), kill_at(40)]).encode(),
            &["not in step order"],
        ),
        // ---- user actions (the web app's buttons, permalinks' recorded actions) ----
        act(
            "action_unknown_node",
            "Stop an unknown node",
            Action::Stop { node: s("Z") },
            &["impossible action", "unknown node \"Z\"", "nodes are: A, B, C"],
        ),
        act(
            "action_self_link",
            "Drop the link from a node to itself",
            Action::DropLink {
                from: s("A"),
                to: s("A"),
                one_way: false,
            },
            &["impossible action", "two different nodes", "\"A\" twice"],
        ),
        act(
            "action_start_running_node",
            "Start a running node",
            Action::Start { node: s("A") },
            &["impossible action", "cannot start A", "it is running", "must be stopped"],
        ),
        act(
            "action_loss_out_of_range",
            "Loss 2.0",
            Action::SetLoss {
                from: s("A"),
                to: s("B"),
                loss: 2.0,
                one_way: false,
            },
            &["impossible action", "loss 2 is out of range", "0.0 to 1.0"],
        ),
        act(
            "action_latency_min_above_max",
            "Latency min > max",
            Action::SetLatency {
                from: s("A"),
                to: s("B"),
                min: Dur(5_000),
                max: Dur(1_000),
                one_way: false,
            },
            &["impossible action", "latency min 5ms is above max 1ms"],
        ),
        act(
            "action_huge_delay",
            "Executor delay beyond the latency limit",
            Action::Delay {
                node: s("A"),
                executor: s("GossipStage"),
                extra: Dur(u64::MAX),
            },
            &["impossible action", "above the limit of 3600s"],
        ),
        act(
            "action_huge_down_for",
            "Restart with a down time beyond the duration limit",
            Action::Restart {
                node: s("A"),
                kill: true,
                down_for: Some(Dur(7 * 3600 * 1_000_000)),
            },
            &["impossible action", "down_for", "duration limit"],
        ),
        act(
            "action_unknown_executor",
            "Stall an unknown executor",
            Action::Stall {
                node: s("A"),
                executor: s("ReadStage"),
            },
            &["impossible action", "unknown executor \"ReadStage\"", "GossipStage"],
        ),
        act(
            "action_unknown_command",
            "Unknown nodetool command",
            Action::Command {
                node: s("A"),
                command: s("drain"),
            },
            &["impossible action", "A refused \"drain\"", "unknown command", "known: disablegossip"],
        ),
        act(
            "action_bad_timeout",
            "settimeout with a value that is not a number",
            Action::Command {
                node: s("A"),
                command: s("settimeout misc soon"),
            },
            &["impossible action", "\"soon\" is not a number of milliseconds"],
        ),
        act(
            "action_enable_enabled_gossip",
            "enablegossip while gossip runs",
            Action::Command {
                node: s("A"),
                command: s("enablegossip"),
            },
            &["impossible action", "gossip is already running"],
        ),
        act(
            "action_partition_one_group",
            "A partition with one group",
            Action::Partition {
                groups: vec![vec![s("A"), s("B")]],
            },
            &["impossible action", "at least two groups"],
        ),
        act(
            "action_partition_node_twice",
            "A node in two partition groups",
            Action::Partition {
                groups: vec![vec![s("A")], vec![s("A"), s("B")]],
            },
            &["impossible action", "node \"A\" is in two partition groups"],
        ),
        // ---- issue 13: nothing silently wrong ----
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
        sc_append(
            "fault_self_link",
            "A fault dropping the link from a node to itself",
            "[[faults]]\nat = \"10s\"\naction = \"drop-link\"\nfrom = \"A\"\nto = \"A\"\n",
            &["faults[0]", "two different nodes", "\"A\" twice"],
        ),
        sc_append(
            "fault_latency_over_limit",
            "A fault setting a latency above the limit",
            "[[faults]]\nat = \"10s\"\naction = \"set-latency\"\nfrom = \"A\"\nto = \"B\"\nmin = \"1ms\"\nmax = \"2h\"\n",
            &["faults[0]", "latency 7200s is above the limit of 3600s"],
        ),
        sc_append(
            "fault_start_running_node",
            "A fault starting a node that is running",
            "[[faults]]\nat = \"10s\"\naction = \"start\"\nnode = \"A\"\n",
            &["faults[0]", "cannot start A at 10s: it is running"],
        ),
        sc_append(
            "fault_kill_twice",
            "A fault killing a node already killed",
            "[[faults]]\nat = \"10s\"\naction = \"kill\"\nnode = \"A\"\n\n[[faults]]\nat = \"20s\"\naction = \"kill\"\nnode = \"A\"\n",
            &["faults[1]", "cannot kill A at 20s: it is already stopped", "at 10s"],
        ),
        sc_append(
            "fault_command_on_killed_node",
            "A fault running a command on a killed node",
            "[[faults]]\nat = \"10s\"\naction = \"kill\"\nnode = \"A\"\n\n[[faults]]\nat = \"20s\"\naction = \"command\"\nnode = \"A\"\ncommand = \"disablegossip\"\n",
            &["faults[1]", "cannot run \"disablegossip\" on A", "stopped"],
        ),
        sc_append(
            "fault_settimeout_out_of_range",
            "A fault with a `settimeout` beyond its range",
            "[[faults]]\nat = \"10s\"\naction = \"command\"\nnode = \"A\"\ncommand = \"settimeout misc 99999999\"\n",
            &["Run::new", "the fault at 10s", "timeout 99999999 ms is out of range (1..=3600000)"],
        ),
        sc(
            "node_name_with_nul",
            "A node name with a NUL character",
            "{ name = \"C\" }",
            "{ name = \"C\\u0000\" }",
            &["cluster:", "node name", "C\\u{0}", "control", "contains \\u{0}"],
        ),
        sc(
            "node_name_with_bidi_override",
            "A node name with a right-to-left override (it would display as another name)",
            "{ name = \"C\" }",
            "{ name = \"C\\u202E\" }",
            &["cluster:", "node name", "bidirectional", "\\u{202e}"],
        ),
        sc(
            "node_name_too_long_in_characters",
            "A node name of 65 characters (130 bytes): the limit counts characters",
            "{ name = \"C\" }",
            "{ name = \"ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\" }",
            &["cluster:", "1-64 characters", "it has 65 characters"],
        ),
        sc(
            "dc_name_empty",
            "An empty DC name",
            "{ name = \"C\" }",
            "{ name = \"C\", dc = \"\" }",
            &["cluster:", "node C: dc", "it is empty"],
        ),
        sc(
            "dc_name_with_comma",
            "A DC name with a comma",
            "{ name = \"C\" }",
            "{ name = \"C\", dc = \"dc1,dc2\" }",
            &["cluster:", "node C: dc", "commas", "contains"],
        ),
        Row {
            id: "huge_name_echo_capped",
            what: "A 500,000-character node name: the error quotes 40 characters of it",
            shown: s("nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"xxxx...\" (500000 characters) }]"),
            input: Input::Scenario(replaced("{ name = \"C\" }", &format!("{{ name = \"{}\" }}", "x".repeat(500_000)))),
            want: &["cluster:", "node name", "… (500000 characters)", "it has 500000 characters"],
            bug: None,
        },
        sc(
            "empty_variant_name",
            "An empty variant name",
            "name = \"buggy\"",
            "name = \"\"",
            &["variants[0].name", "\"\"", "1-64 characters, not blank"],
        ),
        sc_append(
            "recorded_start_running_node",
            "A `[[recorded]]` action that starts a running node",
            "[[recorded]]\nstep = 10\nat = \"1s\"\naction = \"start\"\nnode = \"A\"\n",
            &["Run::new", "bad.toml", "recorded[0]", "cannot start A at 1s: it is running"],
        ),
        sc_append(
            "recorded_self_link",
            "A `[[recorded]]` action dropping a self-link",
            "[[recorded]]\nstep = 10\nat = \"1s\"\naction = \"drop-link\"\nfrom = \"B\"\nto = \"B\"\n",
            &["bad.toml", "recorded[0]", "two different nodes"],
        ),
        sc_append(
            "recorded_step_after_end",
            "A `[[recorded]]` action at a step the run never reaches",
            "[[recorded]]\nstep = 100000000\nat = \"59s\"\naction = \"kill\"\nnode = \"A\"\n",
            &["the run fails", "bad.toml", "recorded[0]", "step 100000000 was never reached"],
        ),
        sc(
            "gossip_interval_microseconds",
            "A gossip interval of one microsecond",
            "echo = \"buggy\"",
            "echo = \"buggy\"\ngossip_interval = \"1us\"",
            &["Run::new", "gossip_interval 1us is too short", "at least 1ms"],
        ),
        Row {
            id: "cost_estimate_over_the_limit",
            what: "512 nodes for 6 hours: about 221 million trace records",
            shown: s("duration = \"6h\"\n[cluster]\ngenerate = { count = 512 }"),
            input: Input::Scenario(
                replaced("duration = \"1m\"", "duration = \"6h\"").replace(
                    "nodes = [{ name = \"A\" }, { name = \"B\" }, { name = \"C\" }]",
                    "generate = { count = 512 }",
                ),
            ),
            want: &["Run::new", "about 221.2 million trace events in 21600s", "512 nodes", "limit is 60.0 million", "about 1h37m fits", "shorten `duration`"],
            bug: None,
        },
        Row {
            id: "deep_nesting",
            what: "Arrays nested 10,000 deep",
            shown: s("x = [[[[[[... (10000 levels)"),
            input: Input::Scenario(format!("{BASE}\n[params.x]\ny = {}\n", "[".repeat(10_000))),
            want: &["line 24", "recurse", "nested too deeply", "(10009 characters)"],
            bug: None,
        },
    ]
}

/// What core answers: the error message, or what happens when it accepts the input.
fn outcome(input: &Input) -> String {
    let limits = Limits::default();
    let opts = RunOptions {
        checkpointing: false,
        body_budget: 0,
        limits: Limits::default(),
    };
    match input {
        Input::Scenario(text) => match Scenario::parse("bad.toml", text, &limits) {
            Err(e) => e.to_string(),
            Ok(sc) => {
                let variant = sc.variant_names()[0].to_string();
                let mut run = match Run::new(sc, &variant, None, &toml::Table::new(), &opts) {
                    Ok(r) => r,
                    Err(e) => return format!("(Scenario::parse accepts it) Run::new: {e}"),
                };
                if let Err(e) = run.run(None) {
                    return format!("(accepted) the run fails: {e}");
                }
                let trace = run.trace();
                let warnings: Vec<String> = trace
                    .logs
                    .iter()
                    .filter(|l| l.level == LogLevel::Warn)
                    .map(|l| {
                        format!(
                            "{} {}",
                            clusterscope_core::time::fmt_time(l.time),
                            trace.text(l)
                        )
                    })
                    .collect();
                let sim = run.sim_of::<clusterscope_core::gossip::Gossip>().unwrap();
                let lossy = (0..sim.topo.len())
                    .flat_map(|a| (0..sim.topo.len()).map(move |b| (a, b)))
                    .filter(|(a, b)| a != b && sim.net.link(*a, *b).loss > 1.0)
                    .count();
                let mut out = s("(accepted: no error)");
                if !warnings.is_empty() {
                    out += &format!(" the run warns: {}", warnings.join("; "));
                }
                if lossy > 0 {
                    let delivered = run
                        .trace()
                        .recs
                        .iter()
                        .filter(|r| {
                            matches!(
                                r.kind,
                                clusterscope_core::engine::trace::RecKind::Deliver { .. }
                            )
                        })
                        .count();
                    out += &format!(
                        " {lossy} links have loss above 1; messages delivered in the run: {delivered}"
                    );
                }
                out
            }
        },
        Input::Run { text, variant } => {
            let sc = Scenario::parse("bad.toml", text, &limits)
                .unwrap_or_else(|e| panic!("the row's scenario must parse: {e}"));
            match Run::new(sc, variant, None, &toml::Table::new(), &opts) {
                Err(e) => e,
                Ok(_) => s("(accepted: no error)"),
            }
        }
        Input::Permalink(text) => match Session::decode(text, &limits) {
            Err(e) => e,
            Ok(_) => s("(accepted: no error)"),
        },
        Input::UserAction(a) => {
            let sc = Scenario::parse("base.toml", BASE, &limits).unwrap();
            let mut run = Run::new(sc, "fixed", None, &toml::Table::new(), &opts).unwrap();
            run.engine.run_until(2_000_000, u64::MAX).unwrap();
            match run.engine.apply_user_action(a.clone()) {
                Err(e) => e.to_string(),
                Ok(()) => s("(accepted: no error)"),
            }
        }
    }
}

fn row(id: &str) -> Row {
    rows()
        .into_iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no row {id}"))
}

/// One row's test: the message contains every key word.
fn check(id: &str) {
    let r = row(id);
    let got = outcome(&r.input);
    let missing: Vec<&&str> = r.want.iter().filter(|w| !got.contains(**w)).collect();
    assert!(
        missing.is_empty(),
        "{id} ({}): the message lacks {missing:?}\nmessage: {got}",
        r.what
    );
}

macro_rules! row_tests {
    ($($id:ident),* $(,)?) => {
        $( #[test] fn $id() { check(stringify!($id)); } )*
        const TESTED: &[&str] = &[$(stringify!($id)),*];
    };
}

/// Rows whose bug is in core: ignored until it is fixed (see the row's `bug`).
macro_rules! bug_tests {
    ($($id:ident : $why:literal),* $(,)?) => {
        $( #[test] #[ignore = $why] fn $id() { check(stringify!($id)); } )*
        const BUG_TESTED: &[&str] = &[$(stringify!($id)),*];
    };
}

row_tests!(
    out_of_range_loss_in_fault,
    out_of_range_network_loss,
    latency_min_above_max_in_fault,
    malformed_toml,
    unknown_top_level_field,
    unknown_protocol,
    bad_scenario_name,
    unknown_field_in_fault,
    unknown_action,
    fault_without_time,
    fault_after_end,
    negative_duration,
    duration_without_unit,
    duration_string_without_unit,
    duration_unknown_unit,
    huge_duration,
    absurd_duration,
    huge_fault_time,
    million_nodes,
    zero_nodes,
    nodes_and_generate,
    duplicate_node_names,
    node_name_with_space,
    unknown_seed,
    unknown_node_in_fault,
    unknown_node_in_variant_fault,
    unknown_node_in_expectation,
    expectation_without_check,
    unknown_variant_in_caption,
    caption_after_end,
    latency_min_above_max,
    empty_variants,
    empty_variants_list,
    duplicate_variant,
    oversized_scenario,
    unknown_param,
    bad_param_type,
    bad_param_value,
    unknown_echo_variant,
    unknown_run_variant,
    permalink_empty,
    permalink_broken,
    permalink_truncated,
    permalink_oversized,
    permalink_wrong_version,
    permalink_zip_bomb,
    permalink_not_a_session,
    permalink_unknown_field,
    permalink_too_many_actions,
    permalink_actions_out_of_order,
    action_unknown_node,
    action_self_link,
    action_start_running_node,
    action_loss_out_of_range,
    action_latency_min_above_max,
    action_huge_delay,
    action_huge_down_for,
    action_unknown_executor,
    action_unknown_command,
    action_bad_timeout,
    action_enable_enabled_gossip,
    action_partition_one_group,
    action_partition_node_twice,
    expect_reversed_during,
    expect_at_after_end,
    expect_nan_bound,
    expect_bounds_crossed,
    expect_liveness_without_peer,
    expect_status_without_node,
    fault_self_link,
    fault_latency_over_limit,
    fault_start_running_node,
    fault_kill_twice,
    fault_command_on_killed_node,
    fault_settimeout_out_of_range,
    node_name_with_nul,
    node_name_with_bidi_override,
    node_name_too_long_in_characters,
    dc_name_empty,
    dc_name_with_comma,
    huge_name_echo_capped,
    empty_variant_name,
    recorded_start_running_node,
    recorded_self_link,
    recorded_step_after_end,
    gossip_interval_microseconds,
    cost_estimate_over_the_limit,
    deep_nesting,
);

bug_tests!();

#[test]
fn every_row_has_a_test_and_ids_are_unique() {
    let rows = rows();
    let mut ids: Vec<&str> = rows.iter().map(|r| r.id).collect();
    for r in &rows {
        let tested = if r.bug.is_some() { BUG_TESTED } else { TESTED };
        assert!(
            tested.contains(&r.id),
            "row {} has no test in the right list",
            r.id
        );
    }
    assert_eq!(TESTED.len() + BUG_TESTED.len(), rows.len());
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), rows.len(), "duplicate row ids");
}

/// Inline code in a table cell: doubled backticks when the text has one; pipes escaped.
fn code_span(w: &str) -> String {
    let w = w.replace('|', "\\|");
    if w.contains('`') {
        format!("`` {w} ``")
    } else {
        format!("`{w}`")
    }
}

fn fence(text: &str) -> String {
    let ticks = if text.contains("```") { "````" } else { "```" };
    format!("{ticks}text\n{}\n{ticks}\n", text.trim_end())
}

/// docs/BAD_INPUT.md from the rows' actual outputs.
fn markdown() -> String {
    let rows = rows();
    let mut md = String::new();
    md += "# Bad input catalogue\n\n";
    md += "Every bad scenario file, run request, permalink and user action the test suite tries, \
           and the exact error core gives. Generated from `tests/tests/bad_input.rs` (each row is \
           a test asserting that the message contains its key words: the place and the fix); do \
           not edit by hand. Regenerate with\n\n";
    md += "```text\nCLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-tests --test bad_input bad_input_doc\n```\n\n";
    md += "Scenario rows change one thing in this base file (`bad.toml`); a row that parses is \
           run to its end and the outcome says what happened. User-action rows are applied to \
           the base scenario's `fixed` variant at 2 s.\n\n";
    md += &fence(BASE);
    md += "\n| # | Row (test) | Bad input | Key words checked | Status |\n|---|---|---|---|---|\n";
    for (i, r) in rows.iter().enumerate() {
        let keys: Vec<String> = r.want.iter().map(|w| code_span(w)).collect();
        md += &format!(
            "| {} | [`{}`](#{}) | {} | {} | {} |\n",
            i + 1,
            r.id,
            r.id.replace('_', "-"),
            r.what,
            keys.join(", "),
            if r.bug.is_some() {
                "**bug in core** (test ignored)"
            } else {
                "ok"
            }
        );
    }
    md += "\n";
    for (i, r) in rows.iter().enumerate() {
        md += &format!("## {}\n\n{}. {}", r.id.replace('_', "-"), i + 1, r.what);
        let kind = match r.input {
            Input::Scenario(_) => " (`Scenario::parse`)",
            Input::Run { .. } => " (`Run::new`)",
            Input::Permalink(_) => " (`Session::decode`)",
            Input::UserAction(_) => " (`Engine::apply_user_action`)",
        };
        md += kind;
        md += ".\n\nInput:\n\n";
        md += &fence(&r.shown);
        md += "\nError:\n\n";
        md += &fence(&outcome(&r.input));
        if let Some(b) = r.bug {
            md += &format!(
                "\n**Bug:** {b}. Expected an error containing {}.\n",
                r.want
                    .iter()
                    .map(|w| code_span(w))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        md += "\n";
    }
    md
}

fn doc_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/BAD_INPUT.md")
}

#[test]
fn bad_input_doc_is_current() {
    let md = markdown();
    if std::env::var_os("CLUSTERSCOPE_BLESS").is_some() {
        std::fs::write(doc_path(), &md).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(doc_path()).unwrap_or_default();
    assert!(
        on_disk == md,
        "docs/BAD_INPUT.md is out of date with the errors core gives; regenerate it with\n  \
         CLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-tests --test bad_input bad_input_doc"
    );
}
