//! Start states (`[[mutation-tracking.start]]`, `start.rs`): the preloaded offsets are in the
//! views at time 0 with their journal entries, survive a restart, and bad start states are
//! refused naming the node, the log and the field.

use super::offsets::MutId;
use crate::limits::Limits;
use crate::runner::{Run, RunOptions};
use crate::scenario::Scenario;

const HEAD: &str = r#"name = "start"
title = "start states"
protocol = "mutation-tracking"
duration = "3s"

[cluster]
nodes = [{ name = "node1" }, { name = "node2" }, { name = "node3" }, { name = "node4" }]

[params]
rf = 3
broadcast_interval = "0s"

[[variants]]
name = "fixed"
"#;

fn run_of(extra: &str) -> Result<Run, String> {
    let text = format!("{HEAD}{extra}");
    let sc = Scenario::parse("t.toml", &text, &Limits::default()).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        body_budget: 0,
        ..RunOptions::default()
    };
    Run::new(sc, "fixed", Some(1), &toml::Table::new(), &opts)
}

const START: &str = r#"
[[mutation-tracking.start]]
node = "node2"
logs = [
    { log = "node1", witnessed = "0-3, 6", witnessed_by = { node1 = "0-1" }, reconciled = "0-2" },
    { log = "node2", witnessed = "0" },
]

[[mutation-tracking.start]]
node = "node1"
logs = [{ log = "node1", witnessed = "0-1" }]
"#;

/// What the app shows at time 0: each log's witnessed offsets per participant, the reconciled
/// offsets, and the journal entries of what the node witnessed.
#[test]
fn the_preloaded_offsets_are_there_at_time_zero() {
    let mut r = run_of(START).unwrap();
    r.run(Some(0)).unwrap();
    let v = r.views_json();
    // One panel per node, in node order: node2's is the second.
    let logs = v[1]["logs"].as_array().unwrap();
    let l1 = logs.iter().find(|l| l["log"] == "node1").unwrap();
    assert_eq!(l1["witnessed"]["node2"], "{0-3,6}", "{l1}");
    assert_eq!(l1["witnessed"]["node1"], "{0-1}");
    assert_eq!(l1["witnessed"]["node3"], "{}");
    assert_eq!(l1["reconciled"], "{0-2}");
    assert_eq!(l1["snapshot_reconciled"], "{0-2}");
    let sim = r.sim_of::<super::MutationTracking>().unwrap();
    let n2 = &sim.nodes[1].state;
    assert_eq!(n2.journal.len(), 6);
    assert_eq!(
        n2.data.get(&MutId::new(0, 6)).map(String::as_str),
        Some("node1:6")
    );
    // node1's own log continues after the highest offset any start state names (6).
    assert_eq!(sim.nodes[0].state.next_offset, 7);
    assert_eq!(sim.nodes[1].state.next_offset, 1);
    assert_eq!(sim.nodes[2].state.next_offset, 0);
    assert!(sim.nodes[2].state.logs.is_empty());
}

/// The journal and the logs are durable: a restart keeps the preloaded state.
#[test]
fn a_restart_keeps_the_preloaded_offsets() {
    let extra = format!(
        "[[faults]]\nat = \"1s\"\naction = \"restart\"\nnode = \"node2\"\ndown_for = \"500ms\"\n{START}"
    );
    let mut r = run_of(&extra).unwrap();
    r.run(None).unwrap();
    let sim = r.sim_of::<super::MutationTracking>().unwrap();
    let n2 = &sim.nodes[1].state;
    assert_eq!(n2.journal.len(), 6);
    assert_eq!(n2.logs[&0].witnessed[1].to_string(), "{0-3,6}");
    assert_eq!(n2.logs[&0].snapshot_reconciled.to_string(), "{0-2}");
}

fn refused(extra: &str, want: &[&str]) {
    let e = match run_of(extra) {
        Ok(_) => panic!("accepted: {extra}"),
        Err(e) => e,
    };
    for w in want {
        assert!(e.contains(w), "{e:?} lacks {w:?}");
    }
}

const S: &str = "[[mutation-tracking.start]]\n";

#[test]
fn bad_start_states_are_refused_naming_node_log_and_field() {
    refused(
        &format!("{S}node = \"node9\"\n"),
        &["#1.node", "unknown node \"node9\""],
    );
    refused(
        &format!("{S}node = \"node4\"\n"),
        &["of node4", "not a replica", "params.rf = 3"],
    );
    refused(
        &format!("{S}node = \"node2\"\n\n{S}node = \"node2\"\n"),
        &["node2 has two start states"],
    );
    refused(
        &format!("{S}node = \"node2\"\nlogs = [{{ log = \"node7\" }}]\n"),
        &["of node2.logs #1.log", "unknown node \"node7\""],
    );
    refused(
        &format!("{S}node = \"node2\"\nlogs = [{{ log = \"node1\", witnessed = \"4-2\" }}]\n"),
        &[
            "of node2, log node1: witnessed",
            "4-2 ends before it starts",
            "2-4",
        ],
    );
    refused(
        &format!("{S}node = \"node2\"\nlogs = [{{ log = \"node1\", witnessed = \"0-x\" }}]\n"),
        &["of node2, log node1: witnessed", "\"0-x\" is not an offset"],
    );
    refused(
        &format!("{S}node = \"node2\"\nlogs = [{{ log = \"node1\", witnessed = \"0-4,3\" }}]\n"),
        &["of node2, log node1: witnessed", "increasing order"],
    );
    refused(
        &format!(
            "{S}node = \"node2\"\nlogs = [{{ log = \"node1\", witnessed = \"0-1\", reconciled = \"0-2\" }}]\n"
        ),
        &["of node2, log node1", "reconciled offsets {2} are not witnessed by node2"],
    );
    refused(
        &format!(
            "{S}node = \"node2\"\nlogs = [{{ log = \"node1\", witnessed_by = {{ node3 = \"0\" }} }}]\n"
        ),
        &["of node2, log node1", "witnessed_by.node3", "{0}", "node3's own start state"],
    );
    refused(
        &format!(
            "{S}node = \"node2\"\nlogs = [{{ log = \"node1\", witnessed_by = {{ node2 = \"0\" }} }}]\n"
        ),
        &["witnessed_by.node2", "node2 itself", "`witnessed`"],
    );
    refused(
        &format!("{S}node = \"node2\"\nlogs = [{{ log = \"node1\" }}, {{ log = \"node1\" }}]\n"),
        &["of node2, log node1", "listed twice"],
    );
    refused(
        &format!("{S}node = \"node2\"\nlogs = [{{ log = \"node1\", witnesed = \"0\" }}]\n"),
        &["unknown key `witnesed`", "witnessed_by"],
    );
    refused(
        "[mutation-tracking]\nrf = 3\n",
        &["[mutation-tracking] section: unknown key `rf`", "[params]"],
    );
}
