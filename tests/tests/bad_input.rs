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
use clusterscope_core::session::{ScenarioRef, Session, MAX_PERMALINK_CHARS};

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

/// The mutation-tracking scenario the `mt_*` rows give their command to (at 1 s): four nodes, the
/// shard on the first three (node4 is not a replica), node1 wrote one row, and a read follows at
/// 2 s, so an accepted command meets the write, read and broadcast paths.
const MT_BASE: &str = r#"name = "bad-input-mt"
title = "The mutation-tracking scenario the command rows run on"
protocol = "mutation-tracking"
duration = "5s"

[cluster]
nodes = [{ name = "node1" }, { name = "node2" }, { name = "node3" }, { name = "node4" }]

[params]
rf = 3

[[faults]]
at = "100ms"
action = "command"
node = "node1"
command = "write a"

[[faults]]
at = "2s"
action = "command"
node = "node1"
command = "read node1 node2 node3"

[[variants]]
name = "fixed"
"#;

/// The Raft scenario the `expect_raft_*` rows append an expectation to: three nodes, teaching
/// timeouts, no faults.
const RAFT_EXPECT_BASE: &str = r#"name = "bad-input-raft"
title = "The Raft scenario the raft expectation rows change"
protocol = "raft"
duration = "5s"

[cluster]
nodes = [{ name = "n1" }, { name = "n2" }, { name = "n3" }]

[params]
preset = "teaching"

[[variants]]
name = "teaching"
"#;

const VARIANTS: &str = "[[variants]]\nname = \"buggy\"\n\n[[variants]]\nname = \"fixed\"\nparams = { echo = \"fixed\" }\n";

/// A valid Raft scenario for the Raft command rows: n1-n3 form the Raft group, n4 is outside it.
const RAFT_BASE: &str = r#"name = "bad-input-raft"
title = "The valid Raft scenario the Raft rows change"
protocol = "raft"
duration = "10s"

[cluster]
nodes = [{ name = "n1" }, { name = "n2" }, { name = "n3" }, { name = "n4" }]

[params]
group_size = 3

[[variants]]
name = "ratis"
"#;

/// A valid Ozone scenario for the Ozone command rows: dn1-dn3 the pipeline's Raft group, scm.
const OZONE_BASE: &str = r#"name = "bad-input-ozone"
title = "The valid Ozone scenario the Ozone rows change"
protocol = "ozone"
duration = "10s"

[cluster]
nodes = [{ name = "dn1" }, { name = "dn2" }, { name = "dn3" }, { name = "scm" }]

[[variants]]
name = "ozone"
"#;

/// A `Run::new` row on `base` (RAFT_BASE, OZONE_BASE or MT_BASE, its one variant) with `extra` at the end.
fn run_on(
    base: &str,
    id: &'static str,
    what: &'static str,
    extra: &str,
    want: &'static [&'static str],
) -> Row {
    let variant = if base == OZONE_BASE {
        "ozone"
    } else if base == MT_BASE {
        "fixed"
    } else {
        "ratis"
    };
    Row {
        id,
        what,
        shown: extra.trim().to_string(),
        input: Input::Run {
            text: format!("{base}\n{}", extra.trim_start()),
            variant: s(variant),
        },
        want,
        bug: None,
    }
}

/// A `[[faults]]` command at 1 s.
fn fault_cmd(node: &str, command: &str) -> String {
    format!("[[faults]]\nat = \"1s\"\naction = \"command\"\nnode = \"{node}\"\ncommand = \"{command}\"\n")
}

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
    /// `apply_user_action` on the built-in `sandbox-ozone` at 2 s.
    OzoneAction(Action),
    /// A command on a node of `MT_BASE` at 1 s (`apply_user_action`); accepted, the run goes on
    /// to its end.
    MtCommand { node: &'static str, command: String },
    /// A hunt's arguments, checked as `clusterscope hunt` checks them before it runs anything:
    /// `Kind::parse_list(faults)`, `Budget::parse(budget)`, `Plan::new` on the built-in
    /// `scenario` (`break_` None: `--invariants`), `Plan::with_max_faults`.
    Hunt {
        scenario: &'static str,
        break_: Option<&'static str>,
        faults: &'static str,
        budget: &'static str,
        max_faults: usize,
    },
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

/// A scenario row that appends tables at the end of another base (`RAFT_BASE`, `MT_BASE`).
fn sc_append_to(
    base: &str,
    id: &'static str,
    what: &'static str,
    extra: &str,
    want: &'static [&'static str],
) -> Row {
    Row {
        id,
        what,
        shown: extra.trim().to_string(),
        input: Input::Scenario(format!("{base}\n{}", extra.trim_start())),
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
        actions,
        cursor: 500,
        ..Session::new(
            ScenarioRef::Builtin("cassandra-21636-packet-loss".into()),
            "buggy".into(),
            7,
        )
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

fn ozone_cmd(
    id: &'static str,
    what: &'static str,
    command: &str,
    want: &'static [&'static str],
) -> Row {
    let a = Action::Command {
        node: s("dn1"),
        command: s(command),
    };
    Row {
        id,
        what,
        shown: serde_json::to_string(&a).unwrap(),
        input: Input::OzoneAction(a),
        want,
        bug: None,
    }
}

/// A mutation-tracking command row (`MT_BASE`).
fn mt(
    id: &'static str,
    what: &'static str,
    node: &'static str,
    command: &str,
    want: &'static [&'static str],
) -> Row {
    Row {
        id,
        what,
        shown: format!("command on {node} at 1s: {command}"),
        input: Input::MtCommand {
            node,
            command: command.to_string(),
        },
        want,
        bug: None,
    }
}

#[allow(clippy::too_many_arguments)]
fn hunt(
    id: &'static str,
    what: &'static str,
    shown: &str,
    break_: Option<&'static str>,
    faults: &'static str,
    budget: &'static str,
    max_faults: usize,
    want: &'static [&'static str],
) -> Row {
    Row {
        id,
        what,
        shown: s(shown),
        input: Input::Hunt {
            scenario: "sandbox-gossip",
            break_,
            faults,
            budget,
            max_faults,
        },
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
    let mut long_note = session(vec![]);
    long_note.bookmarks = vec![clusterscope_core::session::Bookmark {
        at_us: 1_000_000,
        name: "W1".into(),
        note: "x".repeat(501),
    }];
    let mut many_expects = session(vec![]);
    many_expects.expects = (0..=clusterscope_core::user_expect::MAX_USER_EXPECTS)
        .map(|i| clusterscope_core::scenario::ExpectSpec {
            name: format!("mine {i}"),
            view: "violations".into(),
            equals: Some(toml::Value::Integer(0)),
            ..Default::default()
        })
        .collect();
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
        link(
            "permalink_bookmark_too_long",
            "A bookmark whose note is over 500 characters",
            s("a valid session with a bookmark note of 501 characters"),
            long_note.encode(),
            &["bookmark 1 is too long", "note at most 500"],
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
        // ---- issue 42: `one_of` and `not_equals` checked as `equals` is ----
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_one_of_empty",
            "`one_of = []` (raft base)",
            "[[expect]]\nname = \"some role\"\nview = \"role\"\nnode = \"n1\"\nat = \"end\"\none_of = []\n",
            &["expect \"some role\"", "`one_of = []` can never hold", "list the values"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_one_of_value_never",
            "`one_of` with a value the view never answers (upper case; raft base)",
            "[[expect]]\nname = \"led\"\nview = \"role\"\nnode = \"n1\"\nat = \"end\"\none_of = [\"leader\", \"LEADER\"]\n",
            &["expect \"led\"", "`one_of = \"LEADER\"` can never hold", "follower", "leader"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_one_of_with_equals",
            "`one_of` and `equals` in one expectation (raft base)",
            "[[expect]]\nname = \"two\"\nview = \"role\"\nnode = \"n1\"\nat = \"end\"\nequals = \"leader\"\none_of = [\"leader\"]\n",
            &["expect \"two\"", "give exactly one check", "`one_of`", "`not_equals`"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_not_equals_number_on_text",
            "`not_equals` with a number on a text view (raft base)",
            "[[expect]]\nname = \"not three\"\nview = \"role\"\nnode = \"n1\"\nat = \"end\"\nnot_equals = 3\n",
            &["expect \"not three\"", "`not_equals = 3` is a number", "write it in quotes"],
        ),
        // ---- issue 42: node sets and "leader" as an expectation's node ----
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_set_without_quantifier",
            "A set of nodes without a quantifier `nodes` (raft base)",
            "[[expect]]\nname = \"one leads\"\nview = \"role\"\nobserver = \"n1..n3\"\nat = \"end\"\nequals = \"leader\"\n",
            &["expect \"one leads\"", "observer names a set of nodes", "`nodes = \"any\"`"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_set_bad_quantifier",
            "A quantifier that is not any, all or none (raft base)",
            "[[expect]]\nname = \"one leads\"\nview = \"role\"\nobserver = \"n1..n3\"\nnodes = \"most\"\nat = \"end\"\nequals = \"leader\"\n",
            &["expect \"one leads\"", "`nodes = \"most\"`", "\"any\"", "\"none\""],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_set_range_reversed",
            "A node range written high to low (raft base)",
            "[[expect]]\nname = \"one leads\"\nview = \"role\"\nobserver = \"n3..n1\"\nnodes = \"any\"\nat = \"end\"\nequals = \"leader\"\n",
            &["expect \"one leads\"", "observer: \"n3..n1\"", "the low one first", "\"n4..n7\""],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_set_range_unknown_end",
            "A node range ending at a node that does not exist (raft base)",
            "[[expect]]\nname = \"one leads\"\nview = \"role\"\nobserver = \"n1..n7\"\nnodes = \"any\"\nat = \"end\"\nequals = \"leader\"\n",
            &["expect \"one leads\"", "observer: unknown node \"n7\"", "n1, n2, n3"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_set_empty_list",
            "An empty list of nodes (raft base)",
            "[[expect]]\nname = \"one leads\"\nview = \"role\"\nobserver = []\nnodes = \"any\"\nat = \"end\"\nequals = \"leader\"\n",
            &["an empty list of nodes", "name at least one"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_quantifier_one_node",
            "`nodes` with a single node (raft base)",
            "[[expect]]\nname = \"n1 leads\"\nview = \"role\"\nobserver = \"n1\"\nnodes = \"all\"\nat = \"end\"\nequals = \"leader\"\n",
            &["expect \"n1 leads\"", "`nodes = \"all\"` is for a set of nodes", "remove it"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_set_observer_and_peer",
            "Sets in both observer and peer (raft base)",
            "[[expect]]\nname = \"caught up\"\nview = \"match_index\"\nobserver = \"n1, n2\"\npeer = \"n2..n3\"\nnodes = \"all\"\nat = \"end\"\nat_least = 1\n",
            &["expect \"caught up\"", "observer and peer are both sets", "only one may be"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_leader_increases",
            "`increases` on `observer = \"leader\"` (the leader may change) (raft base)",
            "[[expect]]\nname = \"leader commits\"\nview = \"commit_index\"\nobserver = \"leader\"\nduring = [\"1s\", \"end\"]\nincreases = true\n",
            &["expect \"leader commits\"", "`increases` compares one node's value", "name one node"],
        ),
        sc_append(
            "expect_leader_in_model_without_one",
            "`observer = \"leader\"` in a model without a leader (gossip base)",
            "[[expect]]\nname = \"leader up\"\nview = \"status\"\nobserver = \"leader\"\nat = \"end\"\nequals = \"running\"\n",
            &["expect \"leader up\"", "the gossip model has no leader", "name a node"],
        ),
        // ---- issue 42: message expectations and cross-node Raft views ----
        run_on(
            RAFT_BASE,
            "expect_sent_unknown_kind",
            "A message expectation of a kind the model never sends",
            "[[expect]]\nname = \"votes asked\"\nview = \"sent\"\nkey = \"VOTE\"\nat = \"end\"\nat_least = 1\n",
            &["expect", "\"votes asked\"", "sends no message of kind \"VOTE\"", "REQUEST_VOTE", "HEARTBEAT"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_sent_text_value",
            "A message count compared with text (raft base)",
            "[[expect]]\nname = \"beats\"\nview = \"sent\"\nkey = \"HEARTBEAT\"\nat = \"end\"\nequals = \"many\"\n",
            &["expect \"beats\"", "`equals = \"many\"` is text", "view `sent` answers a number"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_log_entry_key_not_index",
            "A Raft `log_entry` key that is not a log index (raft base)",
            "[[expect]]\nname = \"first put\"\nview = \"log_entry\"\nnode = \"n1\"\nkey = \"last\"\nat = \"end\"\nequals = \"put x=1\"\n",
            &["expect \"first put\"", "view `log_entry`: key \"last\" is not a whole number", "a log index"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_logs_agree_bad_word",
            "`logs_agree` compared with a word it never answers (raft base)",
            "[[expect]]\nname = \"agree\"\nview = \"logs_agree\"\nat = \"end\"\nequals = \"true\"\n",
            &["expect \"agree\"", "`equals = \"true\"` can never hold", "\"yes\", \"no\""],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_within_without_at",
            "`within` with `during` instead of `at` (raft base)",
            "[[expect]]\nname = \"a leader soon\"\nview = \"leaders\"\nduring = [\"1s\", \"2s\"]\nwithin = \"2s\"\nat_least = 1\n",
            &["expect \"a leader soon\"", "`within` counts from `at`", "within = \"2s\""],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_within_past_end",
            "`within` ending after the run (raft base)",
            "[[expect]]\nname = \"a leader soon\"\nview = \"leaders\"\nat = \"4s\"\nwithin = \"2s\"\nat_least = 1\n",
            &["expect \"a leader soon\"", "`within` ends at 6s", "after the end of the run (5s)", "lengthen `duration`"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_within_zero",
            "`within = \"0s\"` (raft base)",
            "[[expect]]\nname = \"a leader now\"\nview = \"leaders\"\nat = \"1s\"\nwithin = \"0s\"\nat_least = 1\n",
            &["expect \"a leader now\"", "give a positive time"],
        ),
        // ---- issue 39: expectations checked against what the view needs and answers ----
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_next_index_without_peer",
            "A Raft `next_index` expectation without a peer (raft base)",
            "[[expect]]\nname = \"n1 replicates\"\nview = \"next_index\"\nnode = \"n1\"\nat = \"end\"\nat_least = 1\n",
            &["expect \"n1 replicates\"", "view `next_index` needs `peer", "cannot be checked"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_log_term_without_key",
            "A Raft `log_term` expectation without a key (raft base)",
            "[[expect]]\nname = \"first entry\"\nview = \"log_term\"\nnode = \"n1\"\nat = \"end\"\nequals = 1\n",
            &["expect \"first entry\"", "view `log_term` needs `key"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_log_term_key_not_a_number",
            "A Raft `log_term` key that is not a log index (raft base)",
            "[[expect]]\nname = \"first entry\"\nview = \"log_term\"\nnode = \"n1\"\nkey = \"first\"\nat = \"end\"\nequals = 1\n",
            &["expect \"first entry\"", "view `log_term`: key \"first\" is not a whole number", "a log index"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_kv_without_key",
            "A Raft `kv` expectation without a key (raft base)",
            "[[expect]]\nname = \"x written\"\nview = \"kv\"\nnode = \"n1\"\nat = \"end\"\nequals = \"1\"\n",
            &["expect \"x written\"", "view `kv` needs `key"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_term_without_node",
            "A Raft `term` expectation without a node (raft base)",
            "[[expect]]\nname = \"a term\"\nview = \"term\"\nat = \"end\"\nat_least = 1\n",
            &["expect \"a term\"", "view `term` needs `observer"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_role_upper_case",
            "A Raft role in capitals (the roles are lower case) (raft base)",
            "[[expect]]\nname = \"n1 leads\"\nview = \"role\"\nnode = \"n1\"\nat = \"end\"\nequals = \"LEADER\"\n",
            &[
                "expect \"n1 leads\"",
                "`equals = \"LEADER\"` can never hold",
                "\"follower\", \"pre-candidate\", \"candidate\", \"leader\", \"down\"",
            ],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_bound_on_role",
            "A number bound on a text view (raft base)",
            "[[expect]]\nname = \"n1 leads\"\nview = \"role\"\nnode = \"n1\"\nat = \"end\"\nat_least = 1\n",
            &["expect \"n1 leads\"", "`at_least` compares numbers", "view `role` answers text", "equals = \"...\""],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_text_on_number_view",
            "Text expected of a number view (raft base)",
            "[[expect]]\nname = \"term 1\"\nview = \"term\"\nnode = \"n1\"\nat = \"end\"\nequals = \"1\"\n",
            &["expect \"term 1\"", "`equals = \"1\"` is text", "view `term` answers a number", "without quotes"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "expect_raft_leader_unknown_node",
            "A Raft `leader` expected to be a node that does not exist (raft base)",
            "[[expect]]\nname = \"n9 leads\"\nview = \"leader\"\nnode = \"n1\"\nat = \"end\"\nequals = \"n9\"\n",
            &["expect \"n9 leads\"", "can never hold", "a node's name", "unknown node \"n9\"", "n1, n2, n3"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "caption_holds_raft_role_upper_case",
            "A caption's check of a Raft role in capitals (raft base)",
            "[[captions]]\nat = \"3s\"\ntext = \"n1 leads\"\n[[captions.holds]]\nview = \"role\"\nnode = \"n1\"\nequals = \"LEADER\"\n",
            &["captions[0].holds[0]", "`equals = \"LEADER\"` can never hold", "\"leader\""],
        ),
        sc_append_to(
            MT_BASE,
            "expect_mt_malformed_mutation_key",
            "A malformed mutation id as a mutation-tracking key (mt base)",
            "[[expect]]\nname = \"journaled\"\nview = \"journal\"\nnode = \"node2\"\nkey = \"node1-0\"\nat = \"end\"\nequals = 1\n",
            &["expect \"journaled\"", "view `journal`: key", "\"node1-0\" is not a mutation id", "node2:0"],
        ),
        sc_append(
            "expect_liveness_lower_case",
            "A liveness in lower case (the values are UP and DOWN)",
            "[[expect]]\nname = \"A sees B\"\nview = \"liveness\"\nobserver = \"A\"\npeer = \"B\"\nat = \"end\"\nequals = \"up\"\n",
            &["expect \"A sees B\"", "`equals = \"up\"` can never hold", "\"UP\", \"DOWN\""],
        ),
        sc_append(
            "expect_increases_on_text_view",
            "`increases` on a text view",
            "[[expect]]\nname = \"A sees B\"\nview = \"liveness\"\nobserver = \"A\"\npeer = \"B\"\nduring = [\"10s\", \"end\"]\nincreases = true\n",
            &["expect \"A sees B\"", "`increases` compares numbers", "view `liveness` answers text"],
        ),
        sc_append(
            "expect_number_on_text_view",
            "A number expected of a text view",
            "[[expect]]\nname = \"A sees B\"\nview = \"liveness\"\nobserver = \"A\"\npeer = \"B\"\nat = \"end\"\nequals = 1\n",
            &["expect \"A sees B\"", "`equals = 1` is a number", "\"UP\", \"DOWN\"", "in quotes"],
        ),
        sc_append(
            "expect_equals_boolean",
            "A boolean `equals` (a view answers a number or text)",
            "[[expect]]\nname = \"echo in flight\"\nview = \"inflight\"\nobserver = \"A\"\npeer = \"B\"\nat = \"end\"\nequals = true\n",
            &["expect \"echo in flight\"", "`equals` is a boolean", "(`equals = \"...\"`)"],
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
            "fault_stall_on_killed_node",
            "A fault stalling a thread of a killed node",
            "[[faults]]\nat = \"10s\"\naction = \"kill\"\nnode = \"A\"\n\n[[faults]]\nat = \"20s\"\naction = \"stall\"\nnode = \"A\"\nexecutor = \"GossipStage\"\n",
            &["faults[1]", "cannot stall GossipStage on A at 20s", "it is stopped", "kill -9 A at 10s"],
        ),
        sc_append(
            "fault_release_after_graceful_stop",
            "A fault releasing a thread of a node that has stopped gracefully by then (known at run time)",
            "[[faults]]\nat = \"10s\"\naction = \"stop\"\nnode = \"A\"\n\n[[faults]]\nat = \"30s\"\naction = \"release\"\nnode = \"A\"\nexecutor = \"GossipStage\"\n",
            &["the run fails", "the fault at 30s", "was skipped", "cannot release GossipStage on A", "it is stopped"],
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
        sc_append(
            "recorded_delay_on_killed_node",
            "A `[[recorded]]` action delaying a thread of a node it killed",
            "[[recorded]]\nstep = 10\nat = \"1s\"\naction = \"kill\"\nnode = \"A\"\n\n[[recorded]]\nstep = 20\nat = \"2s\"\naction = \"delay\"\nnode = \"A\"\nexecutor = \"GossipStage\"\nextra = \"1s\"\n",
            &["Run::new", "recorded[1]", "cannot delay GossipStage on A at 2s", "it is stopped"],
        ),
        sc_append(
            "recorded_fate_of_a_message_never_sent",
            "A `[[recorded]]` fork of a message the run never sends",
            "[[recorded]]\nstep = 10\nat = \"1s\"\naction = \"message\"\nmsg = 100000000\nfate = { fate = \"drop\" }\n",
            &["the run fails", "bad.toml", "recorded[0]", "message #100000000 was never sent", "the last message sent was #"],
        ),
        sc(
            "gossip_interval_microseconds",
            "A gossip interval of one microsecond",
            "echo = \"buggy\"",
            "echo = \"buggy\"\ngossip_interval = \"1us\"",
            &["Run::new", "gossip_interval 1us is too short", "at least 1ms"],
        ),
        // ---- issue 39: Raft and Ozone commands checked at load ----
        run_on(
            RAFT_BASE,
            "raft_unknown_command",
            "Raft: an unknown command",
            &fault_cmd("n1", "explode now"),
            &["the fault at 1s", "\"explode now\" on n1: unknown command", "n1 takes: timeout | client-put KEY VALUE | client-get KEY"],
        ),
        run_on(
            RAFT_BASE,
            "raft_hold_elections_out_of_range",
            "Raft: `hold-elections` for longer than an hour",
            &fault_cmd("n1", "hold-elections 2h"),
            &["the fault at 1s", "\"hold-elections 2h\" on n1", "DURATION 7200s is out of range; use 1ms to 1h", "n1 takes: timeout", "hold-elections DURATION"],
        ),
        run_on(
            RAFT_BASE,
            "raft_crafted_to_itself",
            "Raft: a crafted message addressed to its own sender",
            &fault_cmd("n1", "send-heartbeat n1 5 0 0 0"),
            &["\"send-heartbeat n1 5 0 0 0\" on n1", "TO n1 is this node; send to another server of the group", "(the form: send-heartbeat TO TERM PREV_INDEX PREV_TERM COMMIT)"],
        ),
        run_on(
            RAFT_BASE,
            "raft_crafted_term_not_a_number",
            "Raft: a crafted vote request whose term is not a number",
            &fault_cmd("n2", "send-vote n1 five 0 0"),
            &["\"send-vote n1 five 0 0\" on n2", "TERM \"five\" is not a whole number", "(the form: send-vote TO TERM LAST_INDEX LAST_TERM)"],
        ),
        run_on(
            RAFT_BASE,
            "raft_crafted_to_outside_group",
            "Raft: a crafted message to a node outside the Raft group",
            &fault_cmd("n2", "send-prevote n4 3 0 0"),
            &["\"send-prevote n4 3 0 0\" on n2", "TO \"n4\" is not a server of the Raft group (n1, n2, n3)"],
        ),
        run_on(
            RAFT_BASE,
            "raft_crafted_append_bad_terms",
            "Raft: a crafted AppendEntries whose entry terms are not a list of terms",
            &fault_cmd("n1", "send-append n2 3 0 0 0 2,x"),
            &["\"send-append n2 3 0 0 0 2,x\" on n1", "TERMS \"2,x\": \"x\" is not a term (a whole number 1 to 1099511627776)", "e.g. \"2,3,3\"", "(the form: send-append TO TERM PREV_INDEX PREV_TERM COMMIT TERMS)"],
        ),
        run_on(
            RAFT_BASE,
            "raft_crafted_append_too_many",
            "Raft: a crafted AppendEntries with more than 64 entries",
            &fault_cmd("n1", &format!("send-append n2 3 0 0 0 {}", vec!["1"; 65].join(","))),
            &["has 65 entries; a crafted AppendEntries carries at most 64"],
        ),
        run_on(
            RAFT_BASE,
            "raft_missing_argument",
            "Raft: a client request without its value",
            &fault_cmd("n1", "client-put onlykey"),
            &["\"client-put onlykey\" on n1", "client-put takes 2 arguments (client-put KEY VALUE), not 1", "n1 takes: timeout"],
        ),
        run_on(
            RAFT_BASE,
            "raft_extra_argument",
            "Raft: `timeout` with an argument",
            &fault_cmd("n2", "timeout now"),
            &["\"timeout now\" on n2", "timeout takes no arguments (timeout), not 1", "n2 takes: timeout"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_terms_decrease",
            "Raft start state: a log whose terms decrease",
            "[[raft.start]]\nnode = \"n2\"\nlog = [1, 3, 2]",
            &["[[raft.start]] of n2", "log index 3 has term 2, below index 2's term 3", "never decrease"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_commit_past_log",
            "Raft start state: a commitIndex past the end of the log",
            "[[raft.start]]\nnode = \"n2\"\nlog = [1, 1]\ncommit_index = 5",
            &["[[raft.start]] of n2.commit_index", "5 is past the end of the log (2 entries)", "use at most 2"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_term_below_last_entry",
            "Raft start state: a currentTerm below the last entry's term",
            "[[raft.start]]\nnode = \"n1\"\nterm = 2\nlog = [1, 3]",
            &["[[raft.start]] of n1.term", "currentTerm 2 is below the term of its last log entry (index 2, term 3)", "use term >= 3"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_voted_for_unknown",
            "Raft start state: votedFor names no node",
            "[[raft.start]]\nnode = \"n1\"\nterm = 2\nvoted_for = \"n7\"",
            &["[[raft.start]] of n1.voted_for", "unknown node \"n7\"", "nodes are: n1, n2, n3, n4", "\"\" for none"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_voted_for_outside_group",
            "Raft start state: votedFor names a node outside the Raft group",
            "[[raft.start]]\nnode = \"n1\"\nterm = 2\nvoted_for = \"n4\"",
            &["[[raft.start]] of n1.voted_for", "n4 is outside the Raft group (params.group_size = 3)"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_voted_for_without_term",
            "Raft start state: a vote without a term",
            "[[raft.start]]\nnode = \"n1\"\nvoted_for = \"n2\"",
            &["[[raft.start]] of n1.voted_for", "a vote is cast in a term", "set `term`"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_log_matching",
            "Raft start states: two logs with the same (index, term) but different earlier entries (Log Matching)",
            "[[raft.start]]\nnode = \"n1\"\nlog = [1, 1, 2]\n\n[[raft.start]]\nnode = \"n3\"\nlog = [1, 2, 2]",
            &["the logs of n1 and n3 break Log Matching", "both hold an entry of term 2 at index 3", "index 2 must hold the same entry", "n1 has (term 1, put i2=t1)", "n3 has (term 2, put i2=t2)", "make their logs agree up to index 3"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_log_matching_payload",
            "Raft start states: the same index and term with different payloads",
            "[[raft.start]]\nnode = \"n1\"\nlog = [{ term = 1, key = \"x\", value = \"1\" }]\n\n[[raft.start]]\nnode = \"n2\"\nlog = [{ term = 1, kind = \"no-op\" }]",
            &["the logs of n1 and n2 break Log Matching", "index 1 must hold the same entry", "(term 1, put x=1)", "(term 1, no-op)"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_committed_entries_differ",
            "Raft start states: two nodes committed different entries at one index",
            "[[raft.start]]\nnode = \"n1\"\nlog = [1, 1]\ncommit_index = 2\n\n[[raft.start]]\nnode = \"n2\"\nlog = [1, 2]\ncommit_index = 2",
            &["n1 and n2 both committed index 2", "hold different entries there (term 1 and term 2)", "lower a commit_index below 2"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_outside_group",
            "Raft start state for a node outside the Raft group",
            "[[raft.start]]\nnode = \"n4\"\nlog = [1]",
            &["[[raft.start]] of n4", "outside the Raft group (params.group_size = 3)"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_unknown_node",
            "Raft start state for an unknown node",
            "[[raft.start]]\nnode = \"n9\"\nlog = [1]",
            &["[[raft.start]] #1.node", "unknown node \"n9\"", "nodes are: n1, n2, n3, n4"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_without_node",
            "Raft start state without `node`",
            "[[raft.start]]\nlog = [1]",
            &["[[raft.start]] #1", "`node` is missing"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_twice",
            "Raft: two start states for one node",
            "[[raft.start]]\nnode = \"n2\"\nlog = [1]\n\n[[raft.start]]\nnode = \"n2\"\nterm = 3",
            &["[[raft.start]] of n2", "n2 has two start states", "merge them"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_unknown_key",
            "Raft start state: an unknown key",
            "[[raft.start]]\nnode = \"n2\"\ncommit = 1",
            &["[[raft.start]] #1", "unknown key `commit`", "node, term, voted_for, commit_index, log"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_unknown_entry_kind",
            "Raft start state: an entry of an unknown kind",
            "[[raft.start]]\nnode = \"n2\"\nlog = [1, { term = 1, kind = \"config\" }]",
            &["[[raft.start]] of n2: log index 2.kind", "\"config\" is not an entry kind", "use \"put\" or \"no-op\""],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_entry_term_zero",
            "Raft start state: an entry of term 0",
            "[[raft.start]]\nnode = \"n2\"\nlog = [0]",
            &["[[raft.start]] of n2: log index 1", "term 0 is before any election", "terms >= 1"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_entry_negative_term",
            "Raft start state: an entry of a negative term",
            "[[raft.start]]\nnode = \"n2\"\nlog = [-1]",
            &["[[raft.start]] of n2: log index 1: the term is -1", "whole number >= 0"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_entry_not_a_term",
            "Raft start state: an entry that is neither a term nor a table",
            "[[raft.start]]\nnode = \"n2\"\nlog = [\"put x 1\"]",
            &["[[raft.start]] of n2: log index 1", "a term (a whole number) or a table { term, kind, key, value }", "not string"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_entry_without_term",
            "Raft start state: an entry table without its term",
            "[[raft.start]]\nnode = \"n2\"\nlog = [{ key = \"x\", value = \"1\" }]",
            &["[[raft.start]] of n2: log index 1", "needs its `term`"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_put_without_value",
            "Raft start state: a put entry with a key and no value",
            "[[raft.start]]\nnode = \"n2\"\nlog = [{ term = 1, key = \"x\" }]",
            &["[[raft.start]] of n2: log index 1", "needs both `key` and `value`"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_no_op_with_key",
            "Raft start state: a no-op entry with a key",
            "[[raft.start]]\nnode = \"n2\"\nlog = [{ term = 1, kind = \"no-op\", key = \"x\" }]",
            &["[[raft.start]] of n2: log index 1", "a `no-op` entry carries no `key`"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_log_not_an_array",
            "Raft start state: `log` that is not an array",
            "[[raft.start]]\nnode = \"n2\"\nlog = 3",
            &["[[raft.start]] of n2.log must be an array of entries", "log = [1, 1, 4]"],
        ),
        run_on(
            RAFT_BASE,
            "raft_start_not_tables",
            "Raft: `start` that is not an array of tables",
            "[raft]\nstart = 3",
            &["raft.start must be an array of tables", "[[raft.start]]"],
        ),
        run_on(
            RAFT_BASE,
            "raft_section_unknown_key",
            "Raft: an unknown key in the [raft] section",
            "[raft]\nelection = \"fast\"",
            &["[raft] section: unknown key `election`", "[[raft.start]]", "put Raft settings under [params]"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_unknown_node",
            "Ozone start state for an unknown node",
            "[[ozone.start]]\nnode = \"dn9\"",
            &["[[ozone.start]] #1.node", "unknown node \"dn9\""],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_scm",
            "Ozone start state for SCM (not a datanode)",
            "[[ozone.start]]\nnode = \"scm\"\ncontainers = [{ id = 1, state = \"CLOSED\" }]",
            &["[[ozone.start]] of scm", "scm is SCM (the last node), not a datanode", "[[ozone.scm_container]]"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_twice",
            "Ozone: two start states for one datanode",
            "[[ozone.start]]\nnode = \"dn1\"\n\n[[ozone.start]]\nnode = \"dn1\"",
            &["[[ozone.start]] of dn1", "dn1 has two start states", "merge them"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_unknown_container",
            "Ozone start state: a container outside params.containers",
            "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 5, state = \"CLOSED\" }]",
            &["[[ozone.start]] of dn1.containers #1.id", "container 5 is not one of the pipeline's (params.containers = 2", "raise params.containers"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_container_twice",
            "Ozone start state: one container listed twice",
            "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 1 }, { id = 1, state = \"CLOSED\" }]",
            &["[[ozone.start]] of dn1, container 1", "listed twice"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_unknown_state",
            "Ozone start state: an unknown container state",
            "[[ozone.start]]\nnode = \"dn2\"\ncontainers = [{ id = 1, state = \"closed\" }]",
            &["[[ozone.start]] of dn2, container 1.state", "\"closed\" is not a container state", "OPEN, CLOSING, QUASI_CLOSED, CLOSED or UNHEALTHY"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_bcsid_on_open",
            "Ozone start state: a BCSID on an OPEN replica (past the pipeline's empty Raft log)",
            "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 1, bcsid = 7 }]",
            &["[[ozone.start]] of dn1, container 1.bcsid", "7 on an OPEN replica is past the pipeline's Raft log", "use bcsid = 0"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_unknown_key",
            "Ozone start state: an unknown key",
            "[[ozone.start]]\nnode = \"dn1\"\nlog = [1]",
            &["[[ozone.start]] #1", "unknown key `log`", "node, containers"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_container_unknown_key",
            "Ozone start state: an unknown key in a container",
            "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 1, seq = 3 }]",
            &["[[ozone.start]] of dn1.containers #1", "unknown key `seq`", "id, state, bcsid"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_start_bcsid_negative",
            "Ozone start state: a negative BCSID",
            "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 1, state = \"CLOSED\", bcsid = -1 }]",
            &["[[ozone.start]] of dn1, container 1.bcsid is -1", "whole number >= 0"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_scm_container_unhealthy",
            "Ozone: SCM's record of a container as UNHEALTHY",
            "[[ozone.scm_container]]\ncontainer = 1\nstate = \"UNHEALTHY\"",
            &["[[ozone.scm_container]] of container 1.state", "no UNHEALTHY", "[[ozone.start]]"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_scm_container_sequence_below_replica",
            "Ozone: SCM's sequence id below a healthy replica's BCSID",
            "[[ozone.start]]\nnode = \"dn2\"\ncontainers = [{ id = 2, state = \"CLOSED\", bcsid = 8 }]\n\n[[ozone.scm_container]]\ncontainer = 2\nstate = \"CLOSED\"\nsequence_id = 3",
            &["[[ozone.scm_container]] of container 2.sequence_id", "3 is below the BCSID 8 that dn2's replica holds", "use sequence_id >= 8"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_scm_container_twice",
            "Ozone: two SCM records of one container",
            "[[ozone.scm_container]]\ncontainer = 1\n\n[[ozone.scm_container]]\ncontainer = 1\nstate = \"CLOSED\"",
            &["[[ozone.scm_container]] of container 1", "container 1 has two SCM records"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_scm_container_unknown",
            "Ozone: SCM's record of a container outside params.containers",
            "[[ozone.scm_container]]\ncontainer = 0",
            &["[[ozone.scm_container]] #1.container", "container 0 is not one of the pipeline's"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_section_unknown_key",
            "Ozone: an unknown key in the [ozone] section",
            "[ozone]\ncontainers = 3",
            &["[ozone] section: unknown key `containers`", "[[ozone.start]], [[ozone.scm_container]]", "under [params]"],
        ),
        run_on(
            MT_BASE,
            "mt_start_unknown_node",
            "Mutation tracking start state for an unknown node",
            "[[mutation-tracking.start]]\nnode = \"node9\"",
            &["[[mutation-tracking.start]] #1.node", "unknown node \"node9\""],
        ),
        run_on(
            MT_BASE,
            "mt_start_not_a_replica",
            "Mutation tracking start state for a node outside the replicas",
            "[[mutation-tracking.start]]\nnode = \"node4\"\nlogs = [{ log = \"node1\", witnessed = \"0\" }]",
            &["[[mutation-tracking.start]] of node4", "node4 is not a replica (params.rf = 3"],
        ),
        run_on(
            MT_BASE,
            "mt_start_twice",
            "Mutation tracking: two start states for one node",
            "[[mutation-tracking.start]]\nnode = \"node2\"\n\n[[mutation-tracking.start]]\nnode = \"node2\"",
            &["[[mutation-tracking.start]] of node2", "node2 has two start states", "merge them"],
        ),
        run_on(
            MT_BASE,
            "mt_start_unknown_log",
            "Mutation tracking start state: an unknown log",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node7\", witnessed = \"0\" }]",
            &["[[mutation-tracking.start]] of node2.logs #1.log", "unknown node \"node7\"", "a coordinator log is named by its node"],
        ),
        run_on(
            MT_BASE,
            "mt_start_log_twice",
            "Mutation tracking start state: one log listed twice",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\" }, { log = \"node1\" }]",
            &["[[mutation-tracking.start]] of node2, log node1", "listed twice"],
        ),
        run_on(
            MT_BASE,
            "mt_start_range_backwards",
            "Mutation tracking start state: an offset range that ends before it starts",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", witnessed = \"5-2\" }]",
            &["[[mutation-tracking.start]] of node2, log node1: witnessed", "the range 5-2 ends before it starts", "write it 2-5"],
        ),
        run_on(
            MT_BASE,
            "mt_start_offset_not_a_number",
            "Mutation tracking start state: an offset that is not a number",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", witnessed = \"0-2,x\" }]",
            &["[[mutation-tracking.start]] of node2, log node1: witnessed", "\"x\" is not an offset or a range", "\"0-4,7\""],
        ),
        run_on(
            MT_BASE,
            "mt_start_ranges_overlap",
            "Mutation tracking start state: offset ranges out of order or overlapping",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", witnessed = \"0-4,2\" }]",
            &["[[mutation-tracking.start]] of node2, log node1: witnessed", "\"2\" overlaps or comes before", "increasing order without overlaps"],
        ),
        run_on(
            MT_BASE,
            "mt_start_offsets_not_a_string",
            "Mutation tracking start state: offsets as a number, not a string",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", witnessed = 3 }]",
            &["[[mutation-tracking.start]] of node2, log node1: witnessed must be a string of offsets like \"0-4,7\", not integer"],
        ),
        run_on(
            MT_BASE,
            "mt_start_reconciled_not_witnessed",
            "Mutation tracking start state: reconciled offsets the node has not witnessed",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", witnessed = \"0-1\", reconciled = \"0-3\" }]",
            &["[[mutation-tracking.start]] of node2, log node1", "reconciled offsets {2-3} are not witnessed by node2", "add them to `witnessed` or drop them from `reconciled`"],
        ),
        run_on(
            MT_BASE,
            "mt_start_witnessed_by_unwitnessed",
            "Mutation tracking start state: knowing a replica witnessed what its own start state does not",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", witnessed = \"0-1\", witnessed_by = { node3 = \"0-1\" } }]",
            &["[[mutation-tracking.start]] of node2, log node1", "witnessed_by.node3 names offsets {0-1} that node3's own start state does not witness", "add them to node3's `witnessed` for log node1"],
        ),
        run_on(
            MT_BASE,
            "mt_start_witnessed_by_itself",
            "Mutation tracking start state: witnessed_by naming the node itself",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", witnessed_by = { node2 = \"0\" } }]",
            &["[[mutation-tracking.start]] of node2, log node1: witnessed_by.node2", "that is node2 itself", "`witnessed`"],
        ),
        run_on(
            MT_BASE,
            "mt_start_witnessed_by_not_a_replica",
            "Mutation tracking start state: witnessed_by naming a node outside the replicas",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", witnessed_by = { node4 = \"0\" } }]",
            &["witnessed_by.node4: node4 is not a replica (params.rf = 3)"],
        ),
        run_on(
            MT_BASE,
            "mt_start_unknown_key",
            "Mutation tracking start state: an unknown key in a log",
            "[[mutation-tracking.start]]\nnode = \"node2\"\nlogs = [{ log = \"node1\", acked = \"0\" }]",
            &["[[mutation-tracking.start]] of node2.logs #1", "unknown key `acked`", "log, witnessed, witnessed_by, reconciled"],
        ),
        run_on(
            MT_BASE,
            "mt_section_unknown_key",
            "Mutation tracking: an unknown key in the [mutation-tracking] section",
            "[mutation-tracking]\nrf = 3",
            &["[mutation-tracking] section: unknown key `rf`", "[[mutation-tracking.start]]", "put parameters under [params]"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_fault_malformed_number",
            "Ozone: a WriteChunk whose container is not a number",
            &fault_cmd("dn1", "client-write-chunk W1 one 1 1024"),
            &["\"client-write-chunk W1 one 1 1024\" on dn1", "CONTAINER \"one\" is not a number (the form: client-write-chunk TAG CONTAINER BLOCK LEN [OFFSET])", "dn1 takes: timeout | client-write-chunk"],
        ),
        run_on(
            RAFT_BASE,
            "raft_request_outside_group",
            "Raft: a client request on a node outside the Raft group (its client would retry forever)",
            &fault_cmd("n4", "client-put x 1"),
            &["\"client-put x 1\" on n4", "n4 is outside the Raft group (params.group_size = 3: n1, n2, n3 form it)", "n4 takes no commands"],
        ),
        run_on(
            RAFT_BASE,
            "raft_timeout_outside_group",
            "Raft: `timeout` on a node outside the Raft group (it would run pre-votes forever)",
            &fault_cmd("n4", "timeout"),
            &["\"timeout\" on n4", "n4 is outside the Raft group", "runs no election", "n4 takes no commands"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_fault_timeout_on_scm",
            "Ozone: `timeout` on SCM (it would run pre-votes forever)",
            &fault_cmd("scm", "timeout"),
            &["\"timeout\" on scm", "scm is outside the Raft group (params.group_size = 3: dn1, dn2, dn3 form it)", "runs no election", "scm takes: close-container CONTAINER"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_fault_scm_command_on_datanode",
            "Ozone: an SCM command sent to a datanode",
            &fault_cmd("dn2", "close-container 1"),
            &["\"close-container 1\" on dn2", "close-container is a command of the nodes outside the Raft group (scm)", "dn2 takes: timeout | client-write-chunk"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_hold_unknown_kind",
            "Ozone: the hold point asked to hold a request kind it does not hold",
            &fault_cmd("dn1", "hold-writes CloseContainer"),
            &["\"hold-writes CloseContainer\" on dn1", "KIND \"CloseContainer\" is not a request kind the hold point holds", "WriteChunk (the default), PutBlock or all", "(the form: hold-writes [KIND])"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_inject_unknown_result",
            "Ozone: a chunk-write result that cannot be injected",
            &fault_cmd("dn1", "inject-write-result SUCCESS"),
            &["\"inject-write-result SUCCESS\" on dn1", "RESULT \"SUCCESS\" cannot be injected", "CHUNK_FILE_INCONSISTENCY", "CONTAINER_INTERNAL_ERROR"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_mark_unhealthy_missing_container",
            "Ozone: marking unhealthy a container the pipeline does not have",
            &fault_cmd("dn2", "mark-unhealthy 9"),
            &["\"mark-unhealthy 9\" on dn2", "CONTAINER 9 is not a container of the pipeline", "params.containers = 2 makes containers 1 to 2"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_raft_view_on_scm",
            "Ozone: a Raft server's view (role) observed on SCM, outside the Raft group",
            "[[expect]]\nname = \"SCM leads\"\nview = \"role\"\nnode = \"scm\"\nat = \"end\"\nequals = \"leader\"\n",
            &["expectation \"SCM leads\", node: view `role` describes a server of the Raft group, and scm is outside it (params.group_size = 3: dn1, dn2, dn3 form it)"],
        ),
        run_on(
            OZONE_BASE,
            "ozone_datanode_view_on_scm",
            "Ozone: a datanode's view (container_state) observed on SCM",
            "[[expect]]\nname = \"scm's container\"\nview = \"container_state\"\nnode = \"scm\"\nkey = \"1\"\nat = \"end\"\nequals = \"OPEN\"\n",
            &["expectation \"scm's container\", node: view `container_state` describes a server of the Raft group, and scm is outside it"],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "link_view_word_never_answered",
            "The generic `link` view compared with a word it never answers",
            "[[expect]]\nname = \"n1 cut off\"\nview = \"link\"\nnode = \"n1\"\npeer = \"n2\"\nat = \"end\"\nequals = \"partitioned\"\n",
            &["expect \"n1 cut off\"", "`equals = \"partitioned\"` can never hold", "\"up\", \"lossy\", \"down\""],
        ),
        sc_append_to(
            RAFT_EXPECT_BASE,
            "link_loss_view_without_peer",
            "The generic `link_loss` view without its `peer`",
            "[[expect]]\nname = \"n1 lossy\"\nview = \"link_loss\"\nnode = \"n1\"\nat = \"end\"\nat_least = 10\n",
            &["expect \"n1 lossy\"", "view `link_loss` needs `peer = \"<node>\"`"],
        ),
        run_on(
            RAFT_BASE,
            "raft_pair_view_peer_outside_group",
            "Raft: next_index of a peer outside the Raft group",
            "[[expect]]\nname = \"n1 tracks n4\"\nview = \"next_index\"\nnode = \"n1\"\npeer = \"n4\"\nat = \"end\"\nat_least = 1\n",
            &["expectation \"n1 tracks n4\", peer: view `next_index` describes a server of the Raft group, and n4 is outside it (params.group_size = 3: n1, n2, n3 form it)"],
        ),
        Row {
            id: "raft_client_node_outside_group",
            what: "Raft: `client_node` outside the Raft group (its load would never be sent)",
            shown: s("[params]\ngroup_size = 3\nclient_node = \"n4\"\nclient_rate = 10"),
            input: Input::Run {
                text: RAFT_BASE.replace("group_size = 3\n", "group_size = 3\nclient_node = \"n4\"\nclient_rate = 10\n"),
                variant: s("ratis"),
            },
            want: &["params.client_node \"n4\" is outside the Raft group (params.group_size = 3: n1, n2, n3 form it)", "send no load", "name one of them"],
            bug: None,
        },
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
            id: "raft_cost_estimate_over_the_limit",
            what: "Raft, 512 nodes for an hour: the invariant check's per-event pass counted (issue 39)",
            shown: s("duration = \"1h\"\n[cluster]\ngenerate = { count = 512 }"),
            input: Input::Scenario(
                RAFT_EXPECT_BASE.replace("duration = \"5s\"", "duration = \"1h\"").replace(
                    "nodes = [{ name = \"n1\" }, { name = \"n2\" }, { name = \"n3\" }]",
                    "generate = { count = 512 }",
                ),
            ),
            want: &["Run::new", "in 3600s", "511 followers", "invariant check", "512 nodes", "limit is 60.0 million", "fits", "shorten `duration`"],
            bug: None,
        },
        Row {
            id: "ozone_cost_estimate_over_the_limit",
            what: "Ozone, a pipeline of 511 datanodes with client writes for an hour: refused with the duration that fits (issue 39; it ran for minutes before)",
            shown: s("duration = \"1h\"\n[cluster]\ngenerate = { count = 512 }\n[params]\nclient_rate = 100"),
            input: Input::Run {
                text: OZONE_BASE
                    .replace("duration = \"10s\"", "duration = \"1h\"")
                    .replace(
                        "nodes = [{ name = \"dn1\" }, { name = \"dn2\" }, { name = \"dn3\" }, { name = \"scm\" }]",
                        "generate = { count = 512 }\n\n[params]\nclient_rate = 100",
                    ),
                variant: s("ozone"),
            },
            want: &["in 3600s", "a pipeline of 511 datanodes", "510 followers", "100 client writes/s", "invariant check", "limit is 60.0 million", "fits", "shorten `duration`"],
            bug: None,
        },
        Row {
            id: "deep_nesting",
            what: "Arrays nested 10,000 deep",
            shown: s("x = [[[[[[... (10000 levels)"),
            input: Input::Scenario(format!("{BASE}\n[params.x]\ny = {}\n", "[".repeat(10_000))),
            want: &["line 24", "recurse", "nested too deeply", "the limit is 80 levels", "(10009 characters)"],
            bug: None,
        },
        Row {
            id: "deep_dotted_key",
            what: "A table header of 10,000 dotted keys",
            shown: s("[a.a.a.a.a.a... (10000 keys).b]"),
            input: Input::Scenario(format!("{BASE}\n[{}b]\n", "a.".repeat(10_000))),
            want: &["line 23", "10001 dotted keys", "nested too deeply", "the limit is 80 levels"],
            bug: None,
        },
        // ---- Ozone's own commands (issue 39) ----
        ozone_cmd(
            "ozone_write_chunk_offset_wraps",
            "Ozone: a WriteChunk whose offset + length wraps around 2^64",
            "client-write-chunk W1 1 1 10 18446744073709551615",
            &["client-write-chunk", "OFFSET 18446744073709551615 is out of range", "0 to 268435446", "OFFSET + LEN at most 268435456"],
        ),
        ozone_cmd(
            "ozone_write_chunk_past_block",
            "Ozone: a WriteChunk ending past the 256 MiB block",
            "client-write-chunk W1 1 1 1024 268435000",
            &["client-write-chunk", "OFFSET 268435000 is out of range", "0 to 268434432"],
        ),
        ozone_cmd(
            "ozone_write_chunk_oversized",
            "Ozone: a WriteChunk longer than 32 MiB",
            "client-write-chunk W1 1 1 33554433",
            &["client-write-chunk", "LEN 33554433 is out of range", "1 to 33554432"],
        ),
        ozone_cmd(
            "ozone_write_chunk_empty",
            "Ozone: an empty WriteChunk",
            "client-write-chunk W1 1 1 0",
            &["client-write-chunk", "LEN 0 is out of range", "1 to 33554432"],
        ),
        // ---- mutation-tracking commands (MT_BASE: node4 is not a replica) ----
        mt(
            "mt_snapshot_on_non_replica",
            "A reconciled snapshot on a node outside the shard, of its own log (it panicked at the next broadcast or read)",
            "node4",
            "reconciled-snapshot node4 0",
            &["impossible action", "node4 refused", "`reconciled-snapshot` on node4", "not a replica of the shard", "rf = 3: node1, node2, node3"],
        ),
        mt(
            "mt_snapshot_of_non_replica_log",
            "A reconciled snapshot of the log of a node outside the shard",
            "node1",
            "reconciled-snapshot node4 0",
            &["node1 refused", "`reconciled-snapshot`", "LOG_NODE node4 is not a replica", "rf = 3: node1, node2, node3"],
        ),
        mt(
            "mt_snapshot_offset_never_written",
            "A reconciled snapshot of an offset the log never had",
            "node1",
            "reconciled-snapshot node1 7",
            &["`reconciled-snapshot`", "node1's log has offsets 0..=0", "FROM 7 was never written", "below 1"],
        ),
        mt(
            "mt_snapshot_offset_not_a_number",
            "A reconciled snapshot with a negative offset",
            "node1",
            "reconciled-snapshot node1 -1",
            &["`reconciled-snapshot`", "FROM \"-1\"", "whole number in 0..=4294967295"],
        ),
        mt(
            "mt_snapshot_range_empty",
            "A reconciled snapshot whose range ends below its start",
            "node1",
            "reconciled-snapshot node1 1 0",
            &["`reconciled-snapshot`", "the range 1..=0 is empty", "TO 0 is below FROM 1", "name the lower offset first", "`reconciled-snapshot node1 0 1`"],
        ),
        mt(
            "mt_write_from_non_replica",
            "A tracked write coordinated by a node outside the shard",
            "node4",
            "write x",
            &["node4 refused", "`write`", "node4 is not a replica of the shard", "rf = 3: node1, node2, node3"],
        ),
        mt(
            "mt_read_from_non_replica_data_node",
            "A tracked read whose data node is outside the shard",
            "node1",
            "read node4 node2",
            &["`read`", "node4 is not a replica of the shard", "rf = 3: node1, node2, node3", "data and summary nodes"],
        ),
        mt(
            "mt_read_unknown_node",
            "A tracked read naming a node the cluster does not have",
            "node1",
            "read node1 node9",
            &["`read`", "node9", "node1, node2, node3, node4"],
        ),
        mt(
            "mt_release_from_unknown_node",
            "Releasing held messages from a node the cluster does not have",
            "node2",
            "release MUTATION_REQ node9",
            &["`release`", "node9", "node1, node2, node3, node4"],
        ),
        mt(
            "mt_park_count_out_of_range",
            "Parking after more steps than the count can hold",
            "node2",
            "park pull 99999999999",
            &["`park pull 99999999999`", "whole number in 0..=4294967295"],
        ),
        mt(
            "mt_hold_unknown_kind",
            "Holding a message kind the model does not have",
            "node2",
            "hold MUTATION",
            &["`hold`", "unknown message kind \"MUTATION\"", "MUTATION_REQ", "PUSH_MUTATION_REQ"],
        ),
        mt(
            "mt_push_not_in_journal",
            "A push of a mutation the pushing node never applied",
            "node1",
            "push node1 5 node2",
            &["node1 refused", "`push`", "node1:5 is not in node1's journal", "push from a replica that has"],
        ),
        mt(
            "mt_push_to_itself",
            "A push to the pushing node itself",
            "node1",
            "push node1 0 node1",
            &["node1 refused", "`push`: TO node1 must be another replica of the shard", "rf = 3: node1, node2, node3"],
        ),
        mt(
            "mt_drop_next_from_unknown_node",
            "Dropping the next message from a node the cluster does not have",
            "node2",
            "drop-next MUTATION_REQ node9",
            &["`drop-next`", "node9", "node1, node2, node3, node4"],
        ),
        // `clusterscope hunt` (issue 43): the arguments core checks before a hunt runs.
        hunt(
            "hunt_break_unknown_expectation",
            "A hunt for an expectation the scenario does not have",
            "clusterscope hunt sandbox-gossip --break \"every node is UP\"",
            Some("every node is UP"),
            "all",
            "10000runs",
            6,
            &["--break \"every node is UP\"", "no expectation of that name", "\"A sees C UP (left alone, the cluster stays healthy)\""],
        ),
        hunt(
            "hunt_invariants_without_checks",
            "A hunt for a broken invariant on a model that checks none",
            "clusterscope hunt sandbox-gossip --invariants",
            None,
            "all",
            "10000runs",
            6,
            &["--invariants", "gossip model checks no safety invariants", "--break \"NAME\""],
        ),
        hunt(
            "hunt_faults_unknown_kind",
            "A fault kind the hunt does not know",
            "clusterscope hunt sandbox-gossip --break \"...\" --faults drop,crashes",
            Some("A sees C UP (left alone, the cluster stays healthy)"),
            "drop,crashes",
            "10000runs",
            6,
            &["--faults drop,crashes", "\"crashes\" is not a fault kind", "drop,loss,partition,delay,restart,kill,stall,command", "preset: all, recoverable, network, crash"],
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
            &["--budget 10k", "number of runs (10000runs)", "wall-clock time (60s, 5m)"],
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
        // ---- the expectation editor's rows in a permalink (issue 41) ----
        link(
            "permalink_too_many_expectations",
            "A link with 33 expectations of the person's (the editor keeps at most 32)",
            s("a valid session with 33 `expects` rows"),
            many_expects.encode(),
            &["33 expectations", "the limit is 32"],
        ),
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
                let rep = match run.run(None) {
                    Err(e) => return format!("(accepted) the run fails: {e}"),
                    Ok(rep) => rep,
                };
                if !rep.skipped.is_empty() {
                    return format!(
                        "(accepted at load) the run fails: {}",
                        rep.skipped.join("; ")
                    );
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
        Input::MtCommand { node, command } => {
            let sc = Scenario::parse("mt.toml", MT_BASE, &limits).unwrap();
            let mut run = Run::new(sc, "fixed", None, &toml::Table::new(), &opts).unwrap();
            run.engine.run_until(1_000_000, u64::MAX).unwrap();
            let a = Action::Command {
                node: s(node),
                command: command.clone(),
            };
            if let Err(e) = run.engine.apply_user_action(a) {
                return e.to_string();
            }
            match run.run(None) {
                Err(e) => format!("(accepted) the run fails: {e}"),
                Ok(_) => s("(accepted: no error)"),
            }
        }
        Input::UserAction(a) => {
            let sc = Scenario::parse("base.toml", BASE, &limits).unwrap();
            let mut run = Run::new(sc, "fixed", None, &toml::Table::new(), &opts).unwrap();
            run.engine.run_until(2_000_000, u64::MAX).unwrap();
            match run.engine.apply_user_action(a.clone()) {
                Err(e) => e.to_string(),
                Ok(()) => s("(accepted: no error)"),
            }
        }
        Input::Hunt {
            scenario,
            break_,
            faults,
            budget,
            max_faults,
        } => {
            use clusterscope_core::hunt::{Budget, Kind, Plan, Target};
            let sc = clusterscope_core::scenario::builtin::get(scenario).unwrap();
            let variant = clusterscope_core::Run::default_variant(&sc);
            let checked = Kind::parse_list(faults).and_then(|kinds| {
                let runs = match Budget::parse(budget)? {
                    Budget::Runs(n) => n,
                    Budget::Time(_) => 1,
                };
                let target = match break_ {
                    Some(n) => Target::Expectation(s(n)),
                    None => Target::Invariants,
                };
                Plan::new(
                    &sc,
                    &variant,
                    &toml::Table::new(),
                    target,
                    kinds,
                    1,
                    runs,
                    &limits,
                )?
                .with_max_faults(*max_faults)
            });
            match checked {
                Err(e) => e,
                Ok(_) => s("(accepted: no error)"),
            }
        }
        Input::OzoneAction(a) => {
            let sc = clusterscope_core::scenario::builtin::get("sandbox-ozone").unwrap();
            let mut run = Run::new(sc, "sandbox", None, &toml::Table::new(), &opts).unwrap();
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
    permalink_bookmark_too_long,
    permalink_too_many_expectations,
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
    expect_set_without_quantifier,
    expect_set_bad_quantifier,
    expect_set_range_reversed,
    expect_set_range_unknown_end,
    expect_set_empty_list,
    expect_quantifier_one_node,
    expect_set_observer_and_peer,
    expect_leader_increases,
    expect_leader_in_model_without_one,
    expect_sent_unknown_kind,
    expect_sent_text_value,
    expect_log_entry_key_not_index,
    expect_logs_agree_bad_word,
    expect_within_without_at,
    expect_within_past_end,
    expect_within_zero,
    expect_one_of_empty,
    expect_one_of_value_never,
    expect_one_of_with_equals,
    expect_not_equals_number_on_text,
    expect_raft_next_index_without_peer,
    expect_raft_log_term_without_key,
    expect_raft_log_term_key_not_a_number,
    expect_raft_kv_without_key,
    expect_raft_term_without_node,
    expect_raft_role_upper_case,
    expect_raft_bound_on_role,
    expect_raft_text_on_number_view,
    expect_raft_leader_unknown_node,
    caption_holds_raft_role_upper_case,
    expect_mt_malformed_mutation_key,
    expect_liveness_lower_case,
    expect_increases_on_text_view,
    expect_number_on_text_view,
    expect_equals_boolean,
    fault_self_link,
    fault_latency_over_limit,
    fault_start_running_node,
    fault_kill_twice,
    fault_command_on_killed_node,
    fault_stall_on_killed_node,
    fault_release_after_graceful_stop,
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
    recorded_delay_on_killed_node,
    recorded_fate_of_a_message_never_sent,
    gossip_interval_microseconds,
    raft_unknown_command,
    raft_hold_elections_out_of_range,
    raft_crafted_to_itself,
    raft_crafted_term_not_a_number,
    raft_crafted_to_outside_group,
    raft_crafted_append_bad_terms,
    raft_crafted_append_too_many,
    raft_missing_argument,
    raft_extra_argument,
    raft_start_terms_decrease,
    raft_start_commit_past_log,
    raft_start_term_below_last_entry,
    raft_start_voted_for_unknown,
    raft_start_voted_for_outside_group,
    raft_start_voted_for_without_term,
    raft_start_log_matching,
    raft_start_log_matching_payload,
    raft_start_committed_entries_differ,
    raft_start_outside_group,
    raft_start_unknown_node,
    raft_start_without_node,
    raft_start_twice,
    raft_start_unknown_key,
    raft_start_unknown_entry_kind,
    raft_start_entry_term_zero,
    raft_start_entry_negative_term,
    raft_start_entry_not_a_term,
    raft_start_entry_without_term,
    raft_start_put_without_value,
    raft_start_no_op_with_key,
    raft_start_log_not_an_array,
    raft_start_not_tables,
    raft_section_unknown_key,
    ozone_start_unknown_node,
    ozone_start_scm,
    ozone_start_twice,
    ozone_start_unknown_container,
    ozone_start_container_twice,
    ozone_start_unknown_state,
    ozone_start_bcsid_on_open,
    ozone_start_unknown_key,
    ozone_start_container_unknown_key,
    ozone_start_bcsid_negative,
    ozone_scm_container_unhealthy,
    ozone_scm_container_sequence_below_replica,
    ozone_scm_container_twice,
    ozone_scm_container_unknown,
    ozone_section_unknown_key,
    mt_start_unknown_node,
    mt_start_not_a_replica,
    mt_start_twice,
    mt_start_unknown_log,
    mt_start_log_twice,
    mt_start_range_backwards,
    mt_start_offset_not_a_number,
    mt_start_ranges_overlap,
    mt_start_offsets_not_a_string,
    mt_start_reconciled_not_witnessed,
    mt_start_witnessed_by_unwitnessed,
    mt_start_witnessed_by_itself,
    mt_start_witnessed_by_not_a_replica,
    mt_start_unknown_key,
    mt_section_unknown_key,
    ozone_fault_malformed_number,
    raft_request_outside_group,
    raft_timeout_outside_group,
    ozone_fault_timeout_on_scm,
    ozone_fault_scm_command_on_datanode,
    ozone_hold_unknown_kind,
    ozone_inject_unknown_result,
    ozone_mark_unhealthy_missing_container,
    ozone_raft_view_on_scm,
    ozone_datanode_view_on_scm,
    link_view_word_never_answered,
    link_loss_view_without_peer,
    raft_pair_view_peer_outside_group,
    raft_client_node_outside_group,
    cost_estimate_over_the_limit,
    raft_cost_estimate_over_the_limit,
    ozone_cost_estimate_over_the_limit,
    deep_nesting,
    deep_dotted_key,
    ozone_write_chunk_offset_wraps,
    ozone_write_chunk_past_block,
    ozone_write_chunk_oversized,
    ozone_write_chunk_empty,
    mt_snapshot_on_non_replica,
    mt_snapshot_of_non_replica_log,
    mt_snapshot_offset_never_written,
    mt_snapshot_offset_not_a_number,
    mt_snapshot_range_empty,
    mt_write_from_non_replica,
    mt_read_from_non_replica_data_node,
    mt_read_unknown_node,
    mt_release_from_unknown_node,
    mt_park_count_out_of_range,
    mt_hold_unknown_kind,
    mt_push_not_in_journal,
    mt_push_to_itself,
    mt_drop_next_from_unknown_node,
    // `clusterscope hunt` (issue 43).
    hunt_break_unknown_expectation,
    hunt_invariants_without_checks,
    hunt_faults_unknown_kind,
    hunt_faults_kind_twice,
    hunt_budget_zero_runs,
    hunt_budget_not_a_budget,
    hunt_max_faults_zero,
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
           not edit by hand, except the section marked as written by hand, which the generator \
           keeps. Regenerate with\n\n";
    md += "```text\nCLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-tests --test bad_input bad_input_doc\n```\n\n";
    md += &prose();
    md += "Scenario rows change one thing in this base file (`bad.toml`); a row that parses is \
           run to its end and the outcome says what happened. User-action rows are applied to \
           the base scenario's `fixed` variant at 2 s (the `ozone_` ones to the built-in \
           `sandbox-ozone`, on dn1).\n\n";
    md += &fence(BASE);
    md += "\nThe Raft fault rows (`raft_...`) add to this base instead (variant `ratis`):\n\n";
    md += &fence(RAFT_BASE);
    md += "\nand the Ozone fault rows (`ozone_fault_...`) to this one (variant `ozone`):\n\n";
    md += &fence(OZONE_BASE);
    md += "\nMutation-tracking command rows (`mt_*`) run their command at 1 s on this scenario \
           (node4 is not a replica), which then runs to its end:\n\n";
    md += &fence(MT_BASE);
    md += "\nRows marked \"raft base\" append their expectation or caption to this Raft scenario \
           (rows marked \"mt base\" to the mutation-tracking one above), which is then run to its \
           end:\n\n";
    md += &fence(RAFT_EXPECT_BASE);
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
            Input::OzoneAction(_) => " (`Engine::apply_user_action` on `sandbox-ozone`)",
            Input::MtCommand { .. } => " (`Engine::apply_user_action`, mutation tracking)",
            Input::Hunt { .. } => " (`clusterscope hunt`'s checks in core: `hunt::Kind::parse_list`, `hunt::Budget::parse`, `hunt::Plan::new`, `Plan::with_max_faults`, on the built-in `sandbox-gossip`)",
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

/// The hand-written section of docs/BAD_INPUT.md (how bad input is handled, in prose), between
/// these markers: the generator keeps it as it is on disk.
const PROSE_START: &str =
    "<!-- Written by hand: kept as it is when the catalogue is regenerated. -->";
const PROSE_END: &str = "<!-- End of the hand-written section. -->";

fn prose() -> String {
    let on_disk = std::fs::read_to_string(doc_path()).unwrap_or_default();
    match (on_disk.find(PROSE_START), on_disk.find(PROSE_END)) {
        (Some(a), Some(b)) if a < b => format!("{}\n\n", &on_disk[a..b + PROSE_END.len()]),
        _ => String::new(),
    }
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
