//! Start states (`[[ozone.start]]`, `[[ozone.scm_container]]`, `start.rs`): the preloaded
//! containers are in the views at time 0, and bad start states are refused naming the node,
//! the container and the fix.

use crate::limits::Limits;
use crate::runner::{Run, RunOptions};
use crate::scenario::Scenario;

const HEAD: &str = r#"name = "start"
title = "start states"
protocol = "ozone"
duration = "2s"

[cluster]
nodes = [{ name = "dn1" }, { name = "dn2" }, { name = "dn3" }, { name = "scm" }]

[params]
preset = "ozone"
containers = 3

[[variants]]
name = "ozone"
"#;

fn run_of(extra: &str) -> Result<Run, String> {
    let text = format!("{HEAD}{extra}");
    let sc = Scenario::parse("t.toml", &text, &Limits::default()).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        body_budget: 0,
        ..RunOptions::default()
    };
    Run::new(sc, "ozone", Some(1), &toml::Table::new(), &opts)
}

const START: &str = r#"
[[ozone.start]]
node = "dn2"
containers = [{ id = 1, state = "CLOSED", bcsid = 12 }, { id = 2, state = "UNHEALTHY", bcsid = 3 }]

[[ozone.scm_container]]
container = 1
state = "CLOSING"
"#;

/// What the app shows at time 0: the datanode's preloaded containers and BCSIDs, SCM's records
/// and its replica table; the containers not preloaded are OPEN, the other datanodes untouched.
#[test]
fn the_preloaded_containers_are_there_at_time_zero() {
    let mut r = run_of(START).unwrap();
    r.run(Some(0)).unwrap();
    let v = r.views_json();
    let dn2 = &v["dn2"]["state_machine"];
    assert_eq!(dn2["containers"]["1"], "CLOSED", "{dn2}");
    assert_eq!(dn2["containers"]["2"], "UNHEALTHY");
    assert_eq!(dn2["containers"]["3"], "OPEN");
    assert_eq!(dn2["bcsid"]["1"], 12);
    assert_eq!(dn2["bcsid"]["2"], 3);
    assert_eq!(v["dn1"]["state_machine"]["containers"]["1"], "OPEN");
    let scm = &v["scm"]["state_machine"]["scm"];
    assert_eq!(scm["containers"]["1"], "CLOSING", "{scm}");
    assert_eq!(scm["containers"]["2"], "OPEN");
    // The sequence id follows the healthy replica's BCSID; the UNHEALTHY one does not count.
    assert_eq!(scm["sequence_ids"]["1"], 12);
    assert_eq!(scm["sequence_ids"]["2"], 0);
    assert_eq!(scm["replicas"]["1"]["dn2"]["state"], "CLOSED");
    assert_eq!(scm["replicas"]["1"]["dn2"]["bcsid"], 12);
    assert_eq!(scm["replicas"]["1"]["dn1"]["state"], "OPEN");
    let sim = r.sim_of::<super::view::Ozone>().unwrap();
    let s = sim.nodes[3].state.sm.scm.as_ref().unwrap();
    assert_eq!(
        s.replica(1, 1),
        Some(super::Replica {
            state: super::CState::Closed,
            bcsid: 12
        })
    );
}

/// Without start states nothing changes: every container OPEN, BCSID 0.
#[test]
fn no_start_state_leaves_every_container_open() {
    let mut r = run_of("").unwrap();
    r.run(Some(0)).unwrap();
    let v = r.views_json();
    for dn in ["dn1", "dn2", "dn3"] {
        for c in ["1", "2", "3"] {
            assert_eq!(v[dn]["state_machine"]["containers"][c], "OPEN", "{v}");
        }
    }
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
fn bad_start_states_are_refused_naming_node_and_container() {
    refused(
        "[[ozone.start]]\nnode = \"dn9\"\n",
        &["[[ozone.start]] #1.node", "unknown node \"dn9\""],
    );
    refused(
        "[[ozone.start]]\nnode = \"scm\"\n",
        &["of scm", "is SCM", "[[ozone.scm_container]]"],
    );
    refused(
        "[[ozone.start]]\nnode = \"dn1\"\n\n[[ozone.start]]\nnode = \"dn1\"\n",
        &["dn1 has two start states"],
    );
    refused(
        "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 4 }]\n",
        &[
            "of dn1.containers #1.id",
            "container 4",
            "params.containers = 3",
        ],
    );
    refused(
        "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 1, state = \"SHUT\" }]\n",
        &["of dn1, container 1.state", "\"SHUT\"", "QUASI_CLOSED"],
    );
    refused(
        "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 1, bcsid = 4 }]\n",
        &[
            "of dn1, container 1.bcsid",
            "OPEN replica",
            "Raft log",
            "bcsid = 0",
        ],
    );
    refused(
        "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 1 }, { id = 1 }]\n",
        &["of dn1, container 1", "listed twice"],
    );
    refused(
        "[[ozone.start]]\nnode = \"dn1\"\ncontainers = [{ id = 1, bcsid_ = 1 }]\n",
        &["unknown key `bcsid_`", "id, state, bcsid"],
    );
    refused(
        "[[ozone.scm_container]]\ncontainer = 1\nstate = \"UNHEALTHY\"\n",
        &["of container 1.state", "no UNHEALTHY"],
    );
    refused(
        "[[ozone.start]]\nnode = \"dn3\"\ncontainers = [{ id = 2, state = \"CLOSED\", bcsid = 8 }]\n\n\
         [[ozone.scm_container]]\ncontainer = 2\nstate = \"CLOSED\"\nsequence_id = 5\n",
        &["of container 2.sequence_id", "below the BCSID 8", "dn3", "sequence_id >= 8"],
    );
    refused(
        "[[ozone.scm_container]]\ncontainer = 1\n\n[[ozone.scm_container]]\ncontainer = 1\n",
        &["container 1 has two SCM records"],
    );
    refused("[ozone]\npipeline = 1\n", &["unknown key `pipeline`"]);
}
