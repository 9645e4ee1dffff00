//! The LogAppender toward a follower that goes away, as Ratis' `GrpcLogAppender` behaves:
//! - a request to a follower whose process is down fails at once (connection refused): the
//!   stream's `onError` carries no call id, `resetClient(null, ERROR)` drops every pending
//!   request, counts an error and keeps nextIndex, so the next heartbeat carries the previous
//!   entry;
//! - a follower cut off by the network (no error) times out each request after
//!   `request_timeout` (`timeoutAppendRequest`), heartbeats included, each an error; either way
//!   the error count grows and `sleepForErrors` spaces the requests out ("1ms,10, 1s,20,
//!   5s,1000", each sleep times 0.5-1.5: past 30 errors a request every 2.5-7.5 s);
//! - a heartbeat leaves when `getHeartbeatWaitTimeMs()` runs out (`GrpcLogAppender.mayWait`
//!   awaits exactly that long), not at some later tick.
//!
//! docs/model/raft.md, "A follower that goes away and comes back".

use super::tests::{act, command, isolate, leader, name, run_for};
use super::RaftKv;
use crate::engine::action::Action;
use crate::engine::{Engine, NodeId};
use crate::time::{Micros, US_PER_MS, US_PER_S};

/// Three nodes with default timeouts, a leader elected and three puts committed on all.
fn settled(seed: u64) -> (Engine<RaftKv>, NodeId, NodeId) {
    super::tests::settled("", seed)
}

/// Runs one event at a time for `us`; returns when the leader sent each heartbeat to `f` (its
/// `last_heartbeat` moved), with the previous index it carried and when it was due
/// (`heartbeat_wait_end` just before it left).
fn heartbeats_for(
    e: &mut Engine<RaftKv>,
    l: NodeId,
    f: NodeId,
    us: Micros,
) -> Vec<(Micros, u64, Micros)> {
    let end = e.sim.now + us;
    let min = e.sim.proto.p.timeout_min.0;
    let mut out = Vec::new();
    while e.sim.now < end {
        let pr = &e.sim.nodes[l as usize].state.progress[f as usize];
        let (before, due) = (
            pr.last_heartbeat,
            (pr.last_response + min / 2).max(pr.last_heartbeat + min / 4),
        );
        if !e.step().unwrap() {
            break;
        }
        let pr = &e.sim.nodes[l as usize].state.progress[f as usize];
        if pr.last_heartbeat != before {
            let prev = pr.heartbeats.back().map_or(0, |s| s.prev);
            out.push((pr.last_heartbeat, prev, due));
        }
    }
    out
}

/// kill -9 of a follower: the append the leader sends it next is refused; the leader drops its
/// pending requests at once (within a round trip, not `request_timeout` later), counts an
/// error, keeps nextIndex past that append, and its next heartbeat carries the previous entry
/// (the leader's last), which the follower will refuse once back (INCONSISTENCY: the catch-up).
#[test]
fn a_killed_followers_pending_appends_are_dropped_at_once() {
    for seed in 0..3 {
        let (mut e, l, f) = settled(seed);
        let node = name(&e, f);
        act(&mut e, Action::Kill { node });
        command(&mut e, l, "client-put b0 0");
        run_for(&mut e, 20 * US_PER_MS);
        let ld = &e.sim.nodes[l as usize].state;
        let last = ld.last();
        let pr = &ld.progress[f as usize];
        assert!(
            pr.outstanding.is_empty(),
            "seed {seed}: 20 ms after the write the append to the dead follower is still pending: {:?}",
            pr.outstanding
        );
        assert!(pr.errors >= 1, "seed {seed}: an error counted");
        assert!(
            !pr.first_reply,
            "seed {seed}: firstReplyReceived false again"
        );
        assert_eq!(
            pr.next,
            last + 1,
            "seed {seed}: nextIndex kept past the dropped append"
        );
        let hb = heartbeats_for(&mut e, l, f, 500 * US_PER_MS);
        let &(at, prev, _) = hb.first().expect("a heartbeat to the dead follower");
        assert_eq!(
            prev, last,
            "seed {seed}: the heartbeat at {at} us carries the previous entry (i{last})"
        );
    }
}

/// A follower away for 50 s (killed, or cut off by the network): every request to it fails
/// (refused) or times out, each an error; the appender backs off by the default retry policy,
/// so once past 30 errors it probes every 2.5-7.5 s, not every min/4. Killed, the errors come
/// one per request (10 a heartbeat wait apart, then 20 a 1 s sleep apart: 30 by some 21 s);
/// cut off, every heartbeat of the first 3 s times out, 80 errors by 6 s.
#[test]
fn a_long_absence_grows_the_error_count_and_spaces_the_probes() {
    for (kill, seed) in [(true, 0), (true, 1), (false, 0), (false, 1)] {
        let (mut e, l, f) = settled(seed);
        if kill {
            let node = name(&e, f);
            act(&mut e, Action::Kill { node });
        } else {
            isolate(&mut e, f, 3, true);
        }
        run_for(&mut e, 30 * US_PER_S);
        let errors = e.sim.nodes[l as usize].state.progress[f as usize].errors;
        assert!(
            errors > 30,
            "seed {seed}, kill {kill}: 30 s away the error count is {errors}"
        );
        let hb = heartbeats_for(&mut e, l, f, 20 * US_PER_S);
        assert!(
            (3..=60).contains(&hb.len()),
            "seed {seed}, kill {kill}: {} probes in 20 s (every min/4 would be 533)",
            hb.len()
        );
        let (quarter, cost) = (e.sim.proto.p.timeout_min.0 / 4, e.sim.proto.p.append_cost.0);
        for w in hb.windows(2) {
            let gap = w[1].0 - w[0].0;
            // Killed: each refusal comes back before the next wait ends, so the appender sleeps
            // after every probe. Cut off: a probe's error is its timeout 3 s later, so after a
            // sleep shorter than 3 s the count has not moved: no sleep, the next heartbeat a
            // quarter of min later, until the timeout moves it (Ratis does the same).
            let slept = (2_500 * US_PER_MS..=7_600 * US_PER_MS).contains(&gap);
            let burst = !kill && (quarter..=quarter + 4 * cost).contains(&gap);
            assert!(
                slept || burst,
                "seed {seed}, kill {kill}: probes {} us and {} us apart by {gap} us",
                w[0].0,
                w[1].0
            );
        }
        assert_eq!(leader(&e), l, "seed {seed}: the same leader throughout");
    }
}

/// An idle healthy cluster: each heartbeat leaves when it falls due (max(last reply + min/2,
/// last heartbeat + min/4)) plus at most the appender task's own time, never a tick later.
#[test]
fn a_heartbeat_leaves_when_it_falls_due() {
    for seed in 0..3 {
        let (mut e, l, f) = settled(seed);
        let cost = e.sim.proto.p.append_cost.0;
        let hb = heartbeats_for(&mut e, l, f, 5 * US_PER_S);
        assert!(
            hb.len() >= 30,
            "seed {seed}: heartbeats go on: {}",
            hb.len()
        );
        for &(at, _, due) in &hb {
            assert!(
                at >= due && at <= due + 4 * cost,
                "seed {seed}: heartbeat due at {due} us left at {at} us"
            );
        }
    }
}
