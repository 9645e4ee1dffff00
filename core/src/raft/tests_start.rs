//! Start states (`[[raft.start]]`, `start.rs`): the preloaded state is there at time 0, survives
//! a restart like Ratis' persisted state, and bad start states are refused with the node and
//! the index named.

use super::RaftKv;
use crate::limits::Limits;
use crate::runner::{Run, RunOptions};
use crate::scenario::Scenario;

const HEAD: &str = r#"name = "start"
title = "start states"
protocol = "raft"
duration = "3s"

[cluster]
nodes = [{ name = "n1" }, { name = "n2" }, { name = "n3" }]

[[variants]]
name = "ratis"
"#;

fn run_of(extra: &str) -> Result<Run, String> {
    let text = format!("{HEAD}{extra}");
    let sc = Scenario::parse("t.toml", &text, &Limits::default()).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        body_budget: 0,
        ..RunOptions::default()
    };
    Run::new(sc, "ratis", Some(1), &toml::Table::new(), &opts)
}

fn node<'a>(r: &'a Run, n: &str) -> &'a super::node::RNode<super::sm::Kv> {
    let sim = r.sim_of::<RaftKv>().unwrap();
    &sim.nodes[sim.topo.id(n).unwrap() as usize].state
}

const N1: &str = r#"
[[raft.start]]
node = "n1"
term = 5
voted_for = "n2"
commit_index = 2
log = [1, { term = 2, kind = "no-op" }, { term = 3, key = "x", value = "7" }]
"#;

/// What the app shows at time 0: the preloaded log (kinds and payloads), term, votedFor and the
/// restored commitIndex, before any message.
#[test]
fn the_preloaded_state_is_there_at_time_zero() {
    let mut r = run_of(N1).unwrap();
    r.run(Some(0)).unwrap();
    let v = r.views_json();
    let n1 = &v["n1"];
    assert_eq!(n1["term"], 5, "{n1}");
    assert_eq!(n1["voted_for"], "n2");
    assert_eq!(n1["commit_index"], 2);
    let log = n1["log"].as_array().unwrap();
    let got: Vec<(u64, &str, &str)> = log
        .iter()
        .map(|e| {
            (
                e["term"].as_u64().unwrap(),
                e["kind"].as_str().unwrap(),
                e["what"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "client", "put i1=t1"),
            (2, "startup", ""),
            (3, "client", "put x=7")
        ]
    );
    assert_eq!(v["n2"]["log"].as_array().unwrap().len(), 0);
}

/// A restart keeps the log, currentTerm, votedFor (Ratis' raft-meta) and the commitIndex of the
/// log's metadata entry: the restarted node applies up to it again without hearing a leader.
#[test]
fn a_restart_keeps_the_preloaded_state() {
    // Elections suppressed so that nothing but the restart touches n1.
    let extra = format!(
        "[params]\ntimeout_min = \"1h\"\ntimeout_max = \"1h\"\nleader_heartbeat_check = false\n\n\
         [[faults]]\nat = \"1s\"\naction = \"restart\"\nnode = \"n1\"\ndown_for = \"500ms\"\n{N1}"
    );
    let mut r = run_of(&extra).unwrap();
    r.run(Some(900_000)).unwrap();
    assert_eq!(
        node(&r, "n1").applied,
        2,
        "applied up to the preloaded commitIndex"
    );
    assert_eq!(node(&r, "n1").sm.map.get("i1").map(|s| &**s), Some("t1"));
    r.run(Some(1_200_000)).unwrap();
    assert_eq!(node(&r, "n1").applied, 0, "down: nothing applied");
    r.run(None).unwrap();
    let n = node(&r, "n1");
    assert_eq!(
        (n.term, n.voted_for, n.last(), n.commit),
        (5, Some(1), 3, 2)
    );
    assert_eq!(n.applied, 2, "applied again after the restart");
    assert_eq!(n.sm.map.get("x"), None, "index 3 is not committed");
}

/// A preloaded cluster elects a node whose log is at least as up to date as a majority's (n1,
/// or n2 with n3's vote; never n3, whose log is behind both) and repairs the others' logs.
#[test]
fn the_leader_repairs_preloaded_logs() {
    let extra = r#"
[[raft.start]]
node = "n1"
term = 3
log = [1, 1, 3]

[[raft.start]]
node = "n2"
term = 3
log = [1, 2, 2, 2]

[[raft.start]]
node = "n3"
term = 3
log = [1]
"#;
    let mut r = run_of(extra).unwrap();
    r.run(None).unwrap();
    let sim = r.sim_of::<RaftKv>().unwrap();
    let leaders = RaftKv::leaders(sim);
    assert_eq!(leaders.len(), 1);
    let lid = leaders[0].0;
    assert_ne!(sim.topo.name(lid), "n3");
    let l = &sim.nodes[lid as usize].state;
    for n in ["n1", "n2", "n3"] {
        let f = node(&r, n);
        assert_eq!(
            (1..=f.last()).map(|i| f.term_at(i)).collect::<Vec<_>>(),
            (1..=l.last()).map(|i| l.term_at(i)).collect::<Vec<_>>(),
            "{n}"
        );
    }
    assert_eq!(r.sim_of::<RaftKv>().unwrap().violations, 0);
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

#[test]
fn bad_start_states_are_refused_naming_node_and_index() {
    refused(
        "[[raft.start]]\nnode = \"n2\"\nlog = [1, 3, 2]\n",
        &["of n2", "log index 3 has term 2", "never decrease"],
    );
    refused(
        "[[raft.start]]\nnode = \"n2\"\nlog = [1]\ncommit_index = 2\n",
        &["of n2", "commit_index: 2 is past the end", "at most 1"],
    );
    refused(
        "[[raft.start]]\nnode = \"n2\"\nterm = 1\nlog = [1, 2]\n",
        &["of n2", "currentTerm 1", "index 2, term 2", "term >= 2"],
    );
    refused(
        "[[raft.start]]\nnode = \"n2\"\nterm = 1\nvoted_for = \"n9\"\n",
        &["of n2", "voted_for", "unknown node \"n9\""],
    );
    refused(
        "[[raft.start]]\nnode = \"n1\"\nlog = [1, 1, 2]\n\n[[raft.start]]\nnode = \"n3\"\nlog = [1, 2, 2]\n",
        &["n1 and n3 break Log Matching", "term 2 at index 3", "index 2"],
    );
    refused(
        "[[raft.start]]\nnode = \"n1\"\nlog = [{ term = 1, key = \"x\", value = \"1\" }]\n\n[[raft.start]]\nnode = \"n3\"\nlog = [{ term = 1, key = \"x\", value = \"2\" }]\n",
        &["n1 and n3 break Log Matching", "index 1", "put x=1", "put x=2"],
    );
    refused(
        "[[raft.start]]\nnode = \"n1\"\nlog = [1, 1]\ncommit_index = 2\n\n[[raft.start]]\nnode = \"n3\"\nlog = [1, 2]\ncommit_index = 2\n",
        &["n1 and n3 both committed index 2"],
    );
    refused(
        "[[raft.start]]\nnode = \"n2\"\nlog = [{ term = 1, kind = \"config\" }]\n",
        &["of n2: log index 1.kind", "\"put\" or \"no-op\""],
    );
    refused(
        "[[raft.start]]\nnode = \"n2\"\n\n[[raft.start]]\nnode = \"n2\"\n",
        &["n2 has two start states"],
    );
    refused(
        "[[raft.start]]\nnode = \"n2\"\ncommit = 1\n",
        &["unknown key `commit`", "commit_index"],
    );
}
