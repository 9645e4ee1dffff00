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
//!
//! The rows themselves are in `bad_input/` by subject (scenario files, permalinks and actions,
//! expectations, the models' commands, the hunt's arguments); this file has the helpers that
//! build them, what core answers, one test per row and the doc's generator.

use base64::Engine as _;
use clusterscope_core::engine::action::RecordedAction;
use clusterscope_core::engine::action::{Action, Dur};
use clusterscope_core::engine::trace::LogLevel;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::{ScenarioRef, Session, MAX_PERMALINK_CHARS};

#[path = "bad_input/commands.rs"]
mod commands;
#[path = "bad_input/doc.rs"]
mod doc;
#[path = "bad_input/expects.rs"]
mod expects;
#[path = "bad_input/files.rs"]
mod files;
#[path = "bad_input/hunt_args.rs"]
mod hunt_args;
#[path = "bad_input/links.rs"]
mod links;

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

/// A user action (not a command) on `sandbox-ozone`.
fn ozone_act(
    id: &'static str,
    what: &'static str,
    a: Action,
    want: &'static [&'static str],
) -> Row {
    Row {
        id,
        what,
        shown: serde_json::to_string(&a).unwrap(),
        input: Input::OzoneAction(a),
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

/// Every row, in the order docs/BAD_INPUT.md lists them.
fn rows() -> Vec<Row> {
    [
        files::scenario_files(),
        files::building(),
        links::permalinks(),
        links::user_actions(),
        files::silently_wrong(),
        expects::expectations(),
        commands::commands(),
        hunt_args::hunt_arguments(),
        links::editor_rows(),
    ]
    .into_iter()
    .flatten()
    .collect()
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
    action_timed_cut_zero,
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
    fault_timed_cut_zero,
    fault_timed_cut_over_limit,
    fault_timed_heal,
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
    ozone_stall_old_chunk_writer,
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
