//! The two pipeline closes Ratis' health notifications raise (`XceiverServerRatis`
//! `handleFollowerSlowness` and `handleNoLeader`, both through `handlePipelineFailure`, reason
//! PIPELINE_FAILED), with Ozone's 300 s timeouts (`hdds.ratis.raft.server.rpc.slowness.timeout`,
//! `...notification.no-leader.timeout`): a leader whose follower stays silent past the slowness
//! timeout (`LeaderStateImpl.checkHealth`, at each turn of the appender's loop), and a follower
//! that stands for election with no leader known for longer than the no-leader timeout
//! (`RaftServerImpl.changeToCandidate`).

use super::testbed::{fault, three_datanodes};
use crate::model::QValue;
use crate::runner::{Run, RunOptions};
use crate::scenario::Scenario;
use crate::time::US_PER_S;

/// dn1 elected at 10 ms, running for 330 s, plus `faults` (TOML).
fn sandbox(faults: &str) -> Scenario {
    three_datanodes("health", "330s", "", faults)
}

fn start(s: Scenario, seed: u64) -> Run {
    Run::new(
        s,
        "v",
        Some(seed),
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap()
}

fn text(r: &Run, view: &str, node: Option<u32>) -> String {
    match r.query(view, node, None, None, 0).unwrap() {
        QValue::Text(t) => t,
        v => panic!("{view}: {v:?}"),
    }
}

/// Runs to `s` seconds and returns (dn1's, dn2's, dn3's close cause, SCM's closed-by).
fn causes_at(r: &mut Run, s: u64) -> (String, String, String, String) {
    r.run(Some(s * US_PER_S)).unwrap();
    (
        text(r, "pipeline_close_cause", Some(0)),
        text(r, "pipeline_close_cause", Some(1)),
        text(r, "pipeline_close_cause", Some(2)),
        text(r, "pipeline_closed_by", None),
    )
}

fn none() -> (String, String, String, String) {
    ("none".into(), "none".into(), "none".into(), "none".into())
}

/// dn3 stopped (its host refuses the connection) or cut off (requests time out) at 1 s: its
/// last answer to dn1 is just before; nothing is raised while it has been silent for 300 s or
/// less, and dn1's appender, turning at least every 7.5 s (`sleepForErrors`) or heartbeat wait,
/// reports it within a turn after that: SCM closes the pipeline by "slow follower".
#[test]
fn a_follower_silent_past_the_slowness_timeout_closes_the_pipeline() {
    let stop = fault("1s", "stop", "dn3", "");
    let cut = "[[faults]]\nat = \"1s\"\naction = \"drop-link\"\nfrom = \"dn1\"\nto = \"dn3\"\n";
    for (how, faults) in [("stopped", stop.as_str()), ("cut off", cut)] {
        for seed in 1..=3 {
            let mut r = start(sandbox(faults), seed);
            assert_eq!(causes_at(&mut r, 300), none(), "{how}, seed {seed}");
            assert_eq!(text(&r, "pipeline", None), "OPEN", "{how}, seed {seed}");
            let (dn1, dn2, dn3, scm) = causes_at(&mut r, 310);
            assert_eq!(
                (dn1.as_str(), dn2.as_str(), dn3.as_str(), scm.as_str()),
                ("slow follower", "none", "none", "slow follower"),
                "{how}, seed {seed}"
            );
            assert_eq!(text(&r, "pipeline", None), "CLOSED", "{how}, seed {seed}");
            // The refusals are a kind the model lists (the legend, filters, expectations).
            let kinds = r.engine.msg_kinds();
            for rec in r.engine.trace().recs.iter() {
                if let crate::engine::trace::RecKind::Send { label, .. } = rec.kind {
                    assert!(kinds.iter().any(|k| k.label == label), "{label}");
                }
            }
        }
    }
}

/// A follower back within the slowness timeout answers again, which resets its silence: no
/// close at 330 s although it was away for 200 s.
#[test]
fn a_follower_back_within_the_slowness_timeout_closes_nothing() {
    let faults = format!(
        "{}{}",
        fault("1s", "stop", "dn3", ""),
        fault("200s", "start", "dn3", "")
    );
    let mut r = start(sandbox(&faults), 1);
    assert_eq!(causes_at(&mut r, 330), none());
    assert_eq!(text(&r, "pipeline", None), "OPEN");
}

/// dn1 and dn2 stopped at 1 s: dn3 stands at its next election timeout (~6 s; it still knew
/// dn1, so no notification), forgets the leader, and each pre-vote round ends at once (both
/// requests refused: every answer in, no majority: REJECTED, back to follower). Its first
/// changeToCandidate more than 300 s after it forgot the leader tells its state machine: SCM
/// closes the pipeline by "no leader".
#[test]
fn a_follower_without_a_leader_past_the_no_leader_timeout_closes_the_pipeline() {
    let faults = format!(
        "{}{}",
        fault("1s", "stop", "dn1", ""),
        fault("1s", "stop", "dn2", "")
    );
    for seed in 1..=3 {
        let mut r = start(sandbox(&faults), seed);
        assert_eq!(causes_at(&mut r, 305), none(), "seed {seed}");
        let (_, _, dn3, scm) = causes_at(&mut r, 318);
        assert_eq!(
            (dn3.as_str(), scm.as_str()),
            ("no leader", "no leader"),
            "seed {seed}"
        );
        assert_eq!(text(&r, "pipeline", None), "CLOSED", "seed {seed}");
    }
}
