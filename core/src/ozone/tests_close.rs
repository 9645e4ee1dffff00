//! Why the pipeline closed (`pipeline_close_cause` per datanode, `pipeline_closed_by` at SCM):
//! the ticket's route (a committed zero-byte WriteChunk read back for a lagging follower) and
//! the by-design routes (an UNHEALTHY replica, an injected CHUNK_FILE_INCONSISTENCY) tell apart.

use crate::model::QValue;
use crate::runner::{Run, RunOptions};
use crate::scenario::{builtin, Scenario};

fn run(s: Scenario, variant: &str, seed: u64) -> Run {
    let mut r = Run::new(
        s,
        variant,
        Some(seed),
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    r.run(None).unwrap();
    r
}

fn text(r: &Run, view: &str, node: Option<u32>) -> String {
    match r.query(view, node, None, None, 0).unwrap() {
        QValue::Text(t) => t,
        v => panic!("{view}: {v:?}"),
    }
}

/// Three datanodes and SCM (1 s close lease, 1 s heartbeat), dn1 elected at 10 ms, running for
/// `duration`, plus `faults` (TOML).
fn sandbox(duration: &str, faults: &str) -> Scenario {
    super::testbed::three_datanodes(
        "close-cause",
        duration,
        "close_container_wait = \"1s\"\nheartbeat_interval = \"1s\"",
        faults,
    )
}

/// [`sandbox`] for 6 s with a write at 2 s, plus `extra` (TOML faults).
fn scripted(extra: &str) -> Scenario {
    sandbox(
        "6s",
        &format!(
            "[[faults]]\nat = \"2s\"\naction = \"command\"\nnode = \"dn1\"\ncommand = \"client-write-chunk W1 1 1 1024\"\n{extra}"
        ),
    )
}

#[test]
fn a_failed_read_of_a_committed_zero_byte_chunk_is_the_close_cause() {
    for seed in 1..=5 {
        let r = run(
            builtin::get("hdds-17673-close-race").unwrap(),
            "buggy",
            seed,
        );
        assert_eq!(text(&r, "pipeline", None), "CLOSED", "seed {seed}");
        assert_eq!(
            text(&r, "pipeline_closed_by", None),
            "read failed",
            "seed {seed}"
        );
        // dn1 leads and read W1 back; the followers raised nothing.
        assert_eq!(text(&r, "pipeline_close_cause", Some(0)), "read failed");
        assert_eq!(text(&r, "pipeline_close_cause", Some(1)), "none");
        assert_eq!(text(&r, "pipeline_close_cause", Some(2)), "none");
        // readStateMachineData put W1's container among the unhealthy ones: it stays so.
        assert_eq!(text(&r, "healthy", Some(0)), "false");
        let fixed = run(
            builtin::get("hdds-17673-close-race").unwrap(),
            "fixed",
            seed,
        );
        assert_eq!(
            text(&fixed, "pipeline_closed_by", None),
            "none",
            "seed {seed}"
        );
        assert_eq!(text(&fixed, "pipeline_close_cause", Some(0)), "none");
    }
}

#[test]
fn an_unhealthy_replica_closes_the_pipeline_by_a_failed_apply_not_a_read() {
    let r = run(
        scripted(
            "[[faults]]\nat = \"1s\"\naction = \"command\"\nnode = \"dn3\"\ncommand = \"mark-unhealthy 1\"\n",
        ),
        "v",
        1,
    );
    assert_eq!(text(&r, "pipeline", None), "CLOSED");
    assert_eq!(text(&r, "pipeline_closed_by", None), "apply failed");
    assert_eq!(text(&r, "pipeline_close_cause", Some(2)), "apply failed");
    assert_eq!(text(&r, "pipeline_close_cause", Some(0)), "none");
}

/// HddsDispatcher marks the container of an injected CHUNK_FILE_INCONSISTENCY UNHEALTHY, so the
/// same WriteChunk's apply fails: an apply failure, though the data stage wrote zero bytes.
#[test]
fn an_injected_inconsistency_closes_the_pipeline_by_a_failed_apply() {
    let r = run(
        scripted(
            "[[faults]]\nat = \"1s\"\naction = \"command\"\nnode = \"dn1\"\ncommand = \"inject-write-result CHUNK_FILE_INCONSISTENCY\"\n",
        ),
        "v",
        1,
    );
    let replica = r
        .query_key("container_state", Some(0), None, None, Some("1"), 0)
        .unwrap();
    assert_eq!(replica, QValue::Text("UNHEALTHY".into()));
    let zero = r.query("zero_byte_writes", Some(0), None, None, 0).unwrap();
    assert_eq!(zero, QValue::Num(1.0));
    assert_eq!(text(&r, "pipeline", None), "CLOSED");
    assert_eq!(text(&r, "pipeline_closed_by", None), "apply failed");
    assert_eq!(text(&r, "pipeline_close_cause", Some(0)), "apply failed");
}

/// SCM's close command waits in SCM's command queue for each datanode's next heartbeat
/// (`SCMNodeManager.processHeartbeat` hands out the queued commands; `hdds.heartbeat.interval`,
/// 30 s by default; the model's datanodes heartbeat at its multiples): with a 1 s lease, a close
/// taken at 1 s reaches no datanode at 2.1 s (before: every datanode, 1-3 ms after the lease),
/// and every datanode with the 30 s heartbeat, where the leader closes the container through Raft.
#[test]
fn a_close_command_reaches_a_datanode_with_its_next_heartbeat() {
    let scenario = |until: &str| {
        super::testbed::three_datanodes(
            "close-heartbeat",
            until,
            "close_container_wait = \"1s\"",
            "[[faults]]\nat = \"1s\"\naction = \"command\"\nnode = \"scm\"\ncommand = \"close-container 1\"\n",
        )
    };
    let state = |r: &Run, node: u32| match r
        .query_key("container_state", Some(node), None, None, Some("1"), 0)
        .unwrap()
    {
        QValue::Text(t) => t,
        v => panic!("{v:?}"),
    };
    let mut open_at_lease = 0;
    for seed in 1..=5 {
        let early = run(scenario("2100ms"), "v", seed);
        open_at_lease += (0..3).filter(|d| state(&early, *d) == "OPEN").count();
        let late = run(scenario("32s"), "v", seed);
        for d in 0..3 {
            assert_eq!(state(&late, d), "CLOSED", "seed {seed}, dn{}", d + 1);
        }
        let scm = late
            .query_key("scm_container_state", Some(3), None, None, Some("1"), 0)
            .unwrap();
        assert_eq!(scm, QValue::Text("CLOSED".into()), "seed {seed}");
    }
    assert_eq!(open_at_lease, 15, "replicas still OPEN at 2.1 s");
}

/// A command for a datanode that is down waits in SCM's queue until the datanode heartbeats
/// again (`SCMNodeManager` keeps its `CommandQueue` until a heartbeat takes it, or the dead-node
/// handler clears it after `ozone.scm.dead.node.interval`, 10 min): the whole pipeline killed
/// after SCM's close and before its command went out, started again later, still gets the close
/// (each replica leaves OPEN). Before, the model's SCM sent the commands at the heartbeat's time
/// whether or not the datanode ran, and they were lost with the message.
#[test]
fn a_close_command_for_a_datanode_that_is_down_waits_for_its_next_heartbeat() {
    let mut faults = String::from(
        "[[faults]]\nat = \"1s\"\naction = \"command\"\nnode = \"scm\"\ncommand = \"close-container 1\"\n",
    );
    for d in ["dn1", "dn2", "dn3"] {
        faults += &format!(
            "[[faults]]\nat = \"1500ms\"\naction = \"kill\"\nnode = \"{d}\"\n\
             [[faults]]\nat = \"3500ms\"\naction = \"start\"\nnode = \"{d}\"\n"
        );
    }
    let scenario = sandbox("8s", &faults);
    for seed in 1..=5 {
        let r = run(scenario.clone(), "v", seed);
        for d in 0..3u32 {
            let state = match r
                .query_key("container_state", Some(d), None, None, Some("1"), 0)
                .unwrap()
            {
                QValue::Text(t) => t,
                v => panic!("{v:?}"),
            };
            assert_ne!(state, "OPEN", "seed {seed}, dn{}", d + 1);
        }
    }
}
