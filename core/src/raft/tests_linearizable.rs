//! Read-only requests with Ratis' LINEARIZABLE read option (`read_option = "linearizable"`,
//! `raft.server.read.option`): the readIndex (the leader's commitIndex) is confirmed by a
//! heartbeat round a majority acknowledges, then the read waits for its apply; a follower asks
//! the leader for the readIndex and answers from its own state machine. Every test here fails on
//! the model before the option (the parameter did not exist; reads were DEFAULT's).

use super::reads::Stage;
use super::tests::{act, command, engine, isolate, name, run_for};
use super::RaftKv;
use crate::engine::action::{Action, Dur};
use crate::engine::{Engine, NodeId};
use crate::time::{US_PER_MS, US_PER_S};

const LIN: &str = "read_option = \"linearizable\"";

/// The texts of every log line of node `n` (all nodes: None) containing `pat`.
fn lines(e: &Engine<RaftKv>, n: Option<NodeId>, pat: &str) -> Vec<String> {
    e.trace
        .logs
        .iter()
        .filter(|l| n.is_none_or(|n| l.node == n))
        .map(|l| e.trace.text(l).to_string())
        .filter(|t| t.contains(pat))
        .collect()
}

/// The client's answered reads (not its failures).
fn reads(e: &Engine<RaftKv>) -> Vec<String> {
    lines(e, None, "client read #")
        .into_iter()
        .filter(|t| t.starts_with("client read") && t.contains(" -> "))
        .collect()
}

fn leaders(e: &Engine<RaftKv>) -> Vec<(NodeId, u64)> {
    RaftKv::leaders(&e.sim)
}

fn kv(e: &Engine<RaftKv>, n: NodeId) -> Option<String> {
    e.sim.nodes[n as usize]
        .state
        .sm
        .map
        .get("x")
        .map(|v| v.to_string())
}

/// A 5-node group; the leader is cut off from the others and kept leading by its own client's
/// writes (each flush puts its leadership check off); the majority elects a new leader, which
/// commits x = 2. `before` runs at the old leader before the cut (after x = 1 committed).
/// Returns (old leader, new leader).
fn stranded(e: &mut Engine<RaftKv>, seed: u64, before: &str) -> (NodeId, NodeId) {
    run_for(e, US_PER_S);
    let old = leaders(e)[0].0;
    command(e, old, "client-put x 1");
    run_for(e, US_PER_S);
    if !before.is_empty() {
        command(e, old, before);
        run_for(e, 200 * US_PER_MS);
    }
    isolate(e, old, 5, true);
    for k in 0..10 {
        command(e, old, &format!("client-put y {k}"));
        run_for(e, 100 * US_PER_MS);
    }
    let ls = leaders(e);
    assert_eq!(ls.len(), 2, "seed {seed}: two leaders, {ls:?}");
    let new = ls.iter().find(|&&(n, _)| n != old).unwrap().0;
    command(e, new, "client-put x 2");
    run_for(e, 100 * US_PER_MS);
    assert_eq!(kv(e, new).as_deref(), Some("2"), "seed {seed}: committed");
    (old, new)
}

/// The read at a leader cut off from the majority waits for a heartbeat round no majority
/// answers: no stale x = 1 (DEFAULT answers it, tests_reads.rs). Once the cut heals, the old
/// leader hears the new term, steps down and fails the read with NotLeaderException; the client
/// tries again and reads x = 2, with the LINEARIZABLE option named.
#[test]
fn a_stranded_leader_never_answers_a_stale_linearizable_read() {
    for seed in 1..=5 {
        let mut e = engine(5, LIN, seed);
        e.sim.set_tracing(true);
        let (old, _) = stranded(&mut e, seed, "");
        command(&mut e, old, "client-get x");
        // Keep it leading (its own writes) for a second: the read stays in its round.
        for k in 10..15 {
            command(&mut e, old, &format!("client-put y {k}"));
            run_for(&mut e, 100 * US_PER_MS);
        }
        assert_eq!(leaders(&e).len(), 2, "seed {seed}: the old one still leads");
        assert!(reads(&e).is_empty(), "seed {seed}: {:?}", reads(&e));
        let o = &e.sim.nodes[old as usize].state;
        let stages: Vec<Stage> = o.reads.values().map(|w| w.stage).collect();
        assert!(
            matches!(stages.as_slice(), [Stage::Round(_)]),
            "seed {seed}: waiting for its heartbeat round: {stages:?}"
        );
        assert_eq!(
            lines(&e, Some(old), "waits for a heartbeat round").len(),
            1,
            "seed {seed}"
        );
        isolate(&mut e, old, 5, false);
        run_for(&mut e, 3 * US_PER_S);
        assert_eq!(
            lines(
                &e,
                Some(old),
                "NotLeaderException: the leader stepped down before a majority acknowledged"
            )
            .len(),
            1,
            "seed {seed}"
        );
        let r = reads(&e);
        assert_eq!(r.len(), 1, "seed {seed}: {r:?}");
        assert!(
            r[0].contains("(read option LINEARIZABLE): get x -> Some(\"2\")"),
            "seed {seed}: {}",
            r[0]
        );
    }
}

/// In a healthy group the leader's read takes one heartbeat round and is answered at its
/// readIndex; a second read at the same commitIndex takes none (ackedCommitIndex). No log entry.
#[test]
fn a_leader_confirms_its_read_index_with_one_heartbeat_round() {
    for seed in 1..=5 {
        let mut e = engine(3, LIN, seed);
        e.sim.set_tracing(true);
        run_for(&mut e, US_PER_S);
        let l = leaders(&e)[0].0;
        command(&mut e, l, "client-put x 1");
        run_for(&mut e, US_PER_S);
        let len = e.sim.nodes[l as usize].state.log.len();
        let ci = e.sim.nodes[l as usize].state.commit;
        command(&mut e, l, "client-get x");
        run_for(&mut e, 200 * US_PER_MS);
        command(&mut e, l, "client-get x");
        run_for(&mut e, 200 * US_PER_MS);
        let r = reads(&e);
        assert_eq!(r.len(), 2, "seed {seed}: {r:?}");
        for t in &r {
            assert!(
                t.contains("(read option LINEARIZABLE): get x -> Some(\"1\")")
                    && t.contains(&format!("at readIndex {ci}")),
                "seed {seed}: {t}"
            );
        }
        assert_eq!(
            lines(
                &e,
                Some(l),
                &format!("heartbeat round for readIndex {ci} acknowledged by a majority")
            )
            .len(),
            1,
            "seed {seed}: one round"
        );
        assert_eq!(
            lines(&e, Some(l), "no new round").len(),
            1,
            "seed {seed}: the second read takes none"
        );
        assert_eq!(e.sim.nodes[l as usize].state.log.len(), len, "seed {seed}");
        assert!(e.sim.nodes[l as usize].state.reads.is_empty());
    }
}

/// A follower does not redirect a linearizable read (DEFAULT answers NotLeaderException): it
/// asks the leader for the readIndex (READ_INDEX) and answers from its own state machine.
#[test]
fn a_follower_answers_a_linearizable_read_with_the_leaders_read_index() {
    for seed in 1..=5 {
        let mut e = engine(3, LIN, seed);
        e.sim.set_tracing(true);
        run_for(&mut e, US_PER_S);
        let l = leaders(&e)[0].0;
        let f = (l + 1) % 3;
        command(&mut e, l, "client-put x 1");
        run_for(&mut e, US_PER_S);
        command(&mut e, f, "client-get x");
        run_for(&mut e, 300 * US_PER_MS);
        let r = reads(&e);
        assert_eq!(r.len(), 1, "seed {seed}: {r:?}");
        assert!(
            r[0].contains("(read option LINEARIZABLE): get x -> Some(\"1\")")
                && r[0].contains(&format!("answered by {} ", name(&e, f))),
            "seed {seed}: {}",
            r[0]
        );
        assert_eq!(e.sim.nodes[f as usize].state.client.target, f);
        assert_eq!(
            lines(
                &e,
                Some(f),
                &format!("asks the leader {} for a readIndex", name(&e, l))
            )
            .len(),
            1,
            "seed {seed}"
        );
    }
}

/// Ratis' shortcut (`ReadIndexHeartbeats.addAppendEntriesListener`: a readIndex at or below
/// `ackedCommitIndex` needs no round): a leader that confirmed its commitIndex with a read before
/// it was cut off, and committed nothing since, answers a later read at once, from its old
/// state, while the new leader has committed x = 2: stale, although LINEARIZABLE.
#[test]
fn a_read_index_confirmed_before_the_cut_answers_a_stale_read() {
    for seed in 1..=5 {
        let mut e = engine(5, LIN, seed);
        e.sim.set_tracing(true);
        let (old, _) = stranded(&mut e, seed, "client-get x");
        command(&mut e, old, "client-get x");
        run_for(&mut e, 50 * US_PER_MS);
        assert_eq!(leaders(&e).len(), 2, "seed {seed}: the old one still leads");
        let r = reads(&e);
        assert_eq!(r.len(), 2, "seed {seed}: {r:?}");
        assert!(
            r[1].contains("(read option LINEARIZABLE): get x -> Some(\"1\")")
                && r[1].contains(&name(&e, old)),
            "seed {seed}: stale: {}",
            r[1]
        );
        assert_eq!(lines(&e, Some(old), "no new round").len(), 1, "seed {seed}");
    }
}

/// A follower whose apply thread is stalled gets the leader's readIndex but cannot apply it:
/// after `read_timeout` the read fails with ReadException and the client retries.
#[test]
fn a_read_not_applied_in_time_fails_with_read_exception() {
    for seed in 1..=3 {
        let mut e = engine(3, &format!("{LIN}\nread_timeout = \"1s\""), seed);
        e.sim.set_tracing(true);
        run_for(&mut e, US_PER_S);
        let l = leaders(&e)[0].0;
        let f = (l + 1) % 3;
        let fname = name(&e, f);
        act(
            &mut e,
            Action::Delay {
                node: fname.clone(),
                executor: "StateMachineUpdater".into(),
                extra: Dur(5 * US_PER_S),
            },
        );
        command(&mut e, l, "client-put x 1");
        run_for(&mut e, 200 * US_PER_MS);
        command(&mut e, f, "client-get x");
        run_for(&mut e, 1500 * US_PER_MS);
        let failed = lines(&e, Some(f), "ReadException: Read timeout 1s for index");
        assert!(!failed.is_empty(), "seed {seed}");
        assert!(
            lines(&e, Some(f), "client read #")
                .iter()
                .any(|t| t.contains("failed at") && t.contains("ReadException")),
            "seed {seed}: the client saw it"
        );
        assert!(reads(&e).is_empty(), "seed {seed}: {:?}", reads(&e));
    }
}
