//! Read-only client requests as Ratis answers them with its default read option
//! (`raft.server.read.option` = DEFAULT): `RaftServerImpl.readAsync` runs `checkLeaderState`
//! (NotLeaderException on a follower, LeaderNotReadyException before the startup entry is
//! applied), then `queryStateMachine`: the leader's state machine answers at once, from what it
//! has applied. No log entry, no replication, and a leader that does not know it was deposed
//! answers from its old state (what LINEARIZABLE's ReadIndex exists for).

use super::node::Payload;
use super::tests::{command, engine, isolate, name, run_for};
use super::RaftKv;
use crate::engine::{Engine, NodeId};
use crate::time::{US_PER_MS, US_PER_S};

/// The texts of every "client read" log line so far.
fn reads(e: &Engine<RaftKv>) -> Vec<String> {
    e.trace
        .logs
        .iter()
        .map(|l| e.trace.text(l).to_string())
        .filter(|t| t.starts_with("client read"))
        .collect()
}

fn leaders(e: &Engine<RaftKv>) -> Vec<(NodeId, u64)> {
    RaftKv::leaders(&e.sim)
}

fn log_len(e: &Engine<RaftKv>, n: NodeId) -> usize {
    e.sim.nodes[n as usize].state.log.len()
}

/// A get sent to a follower is redirected to the leader (NotLeaderException with its id), which
/// answers it from its state machine without appending: every log keeps its length, the client
/// counts one more answer, and the value is the one the committed put applied.
#[test]
fn a_read_is_answered_by_the_leader_without_a_log_entry() {
    for seed in 1..=5 {
        let mut e = engine(3, "", seed);
        e.sim.set_tracing(true);
        run_for(&mut e, US_PER_S);
        let l = leaders(&e)[0].0;
        let f = (l + 1) % 3;
        command(&mut e, l, "client-put x 1");
        run_for(&mut e, US_PER_S);
        let lens: Vec<usize> = (0..3).map(|n| log_len(&e, n)).collect();
        assert!(
            e.sim.nodes[l as usize]
                .state
                .log
                .iter()
                .any(|x| matches!(&x.payload, Payload::Client { .. })),
            "seed {seed}: the put is in the log"
        );
        let acked = e.sim.nodes[f as usize].state.client.acked;
        command(&mut e, f, "client-get x");
        run_for(&mut e, 500 * US_PER_MS);
        let c = &e.sim.nodes[f as usize].state.client;
        assert_eq!(c.acked, acked + 1, "seed {seed}: the read is answered");
        assert_eq!(c.target, l, "seed {seed}: redirected to the leader");
        assert_eq!(
            (0..3).map(|n| log_len(&e, n)).collect::<Vec<_>>(),
            lens,
            "seed {seed}: no entry for a read"
        );
        let r = reads(&e);
        assert_eq!(r.len(), 1, "seed {seed}: {r:?}");
        assert!(
            r[0].contains("get x -> Some(\"1\")") && r[0].contains(&name(&e, l)),
            "seed {seed}: {}",
            r[0]
        );
    }
}

/// The leader cut off from the others keeps leading while its own client keeps writing to it
/// (each flush puts its leadership check off), the majority elects another leader and commits
/// x = 2 there; a get at the old leader is answered by it, from its state: x = 1. Ratis' DEFAULT
/// read option does no round trip to a majority, so a deposed leader that has not heard of its
/// successor serves a stale read.
#[test]
fn a_leader_cut_off_from_the_majority_answers_a_stale_read() {
    for seed in 1..=5 {
        let mut e = engine(5, "", seed);
        e.sim.set_tracing(true);
        run_for(&mut e, US_PER_S);
        let old = leaders(&e)[0].0;
        command(&mut e, old, "client-put x 1");
        run_for(&mut e, US_PER_S);
        isolate(&mut e, old, 5, true);
        // Writes at the old leader more often than timeout_max (300 ms) keep it leading.
        for k in 0..10 {
            command(&mut e, old, &format!("client-put y {k}"));
            run_for(&mut e, 100 * US_PER_MS);
        }
        let ls = leaders(&e);
        assert_eq!(ls.len(), 2, "seed {seed}: two leaders, {ls:?}");
        let new = ls.iter().find(|&&(n, _)| n != old).unwrap().0;
        command(&mut e, new, "client-put x 2");
        run_for(&mut e, 100 * US_PER_MS);
        let kv =
            |e: &Engine<RaftKv>, n: NodeId| e.sim.nodes[n as usize].state.sm.map.get("x").cloned();
        assert_eq!(kv(&e, new).as_deref(), Some("2"), "seed {seed}: committed");
        command(&mut e, old, "client-get x");
        run_for(&mut e, 50 * US_PER_MS);
        assert_eq!(leaders(&e).len(), 2, "seed {seed}: the old one still leads");
        let r = reads(&e);
        assert_eq!(r.len(), 1, "seed {seed}: {r:?}");
        assert!(
            r[0].contains("get x -> Some(\"1\")") && r[0].contains(&name(&e, old)),
            "seed {seed}: the stale value from the old leader: {}",
            r[0]
        );
    }
}
