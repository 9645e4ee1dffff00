//! A follower that comes back (restarted after kill -9 or a graceful stop, or its links healed)
//! catches up with no new client write. Ratis' LogAppender for that follower never stops
//! while its server leads (`GrpcLogAppender.run`): it sends a heartbeat whenever
//! `getHeartbeatWaitTimeMs()` runs out (min/2 after the follower's last reply, min/4 after the
//! last heartbeat), whatever the follower's state, and after errors it sleeps per
//! `raft.server.log.appender.retry.policy` ("1ms,10, 1s,20, 5s,1000", each sleep times 0.5-1.5:
//! at most 7.5 s, `sleepForErrors`) and sends again. The first request that reaches the
//! follower after it is back is answered: SUCCESS with the previous entry (its commitIndex
//! follows the leader's) or INCONSISTENCY (nextIndex goes back, the missing entries follow).
//! The appender sleeps after a request (`mayWait`: `sleepForErrors` when the error count moved
//! since its last sleep), so the first request after the return may wait out one sleep; its
//! INCONSISTENCY comes back during the next; when that ends the heartbeat is due again (min/2
//! after that reply) and goes first (`newAppendEntriesRequest`), and the entries wait out the
//! sleep after it: the follower's log, commitIndex and lastApplied reach the leader's within
//! three error sleeps plus one heartbeat wait plus a few round trips of its coming back. An appender that stopped heartbeating a
//! follower that does not answer fails it. docs/model/raft.md, "A follower that goes away and comes
//! back"; `tests_appender` for the way there (refusals, timeouts, the back-off).

use super::tests::{act, command, isolate, leader, name, run_for, settled};
use crate::engine::action::Action;
use crate::time::{Micros, US_PER_MS, US_PER_S};

/// How the follower goes away and comes back.
#[derive(Clone, Copy, Debug)]
enum Away {
    /// kill -9, then start (its log up to its last flush survives).
    Kill,
    /// Graceful stop, then start.
    Stop,
    /// Its links to both others cut, then healed (the process runs throughout).
    Cut,
}

/// The longest sleep of the default retry policy (5 s x 1.5).
const RETRY_SLEEP_MAX: Micros = 7_500 * US_PER_MS;

/// Three nodes; the leader commits 3 puts on all, follower `f` goes `away` for `down`, the
/// leader commits 3 more meanwhile (with the third node), then `f` comes back and nobody writes.
/// Returns how long after its return `f`'s log matched the leader's and its commitIndex and
/// lastApplied reached the leader's commitIndex; panics if not within the bound Ratis' code
/// implies: three error sleeps (at most 7.5 s each: the one the first request after the
/// return waits out, the one after it, during which its INCONSISTENCY comes back, the one after
/// the heartbeat then due), one heartbeat wait (min/2, `params`' min) and 100 ms for the
/// catch-up's round trips, flush and apply.
fn catch_up(params: &str, away: Away, seed: u64, down: Micros) -> Micros {
    let (mut e, l, f) = settled(params, seed);
    let min = e.sim.proto.p.timeout_min.0;
    let bound = 3 * RETRY_SLEEP_MAX + min / 2 + 100 * US_PER_MS;
    let before = e.sim.nodes[l as usize].state.commit;
    assert_eq!(
        e.sim.nodes[f as usize].state.applied, before,
        "seed {seed}: all applied on the follower before it goes"
    );
    let node = name(&e, f);
    match away {
        Away::Kill => act(&mut e, Action::Kill { node }),
        Away::Stop => act(&mut e, Action::Stop { node }),
        Away::Cut => isolate(&mut e, f, 3, true),
    }
    for i in 0..3 {
        command(&mut e, l, &format!("client-put b{i} {i}"));
    }
    run_for(&mut e, down);
    let ld = &e.sim.nodes[l as usize].state;
    assert!(
        ld.commit >= before + 3,
        "seed {seed}: the other two committed the writes meanwhile"
    );
    let (last, commit) = (ld.last(), ld.commit);
    let node = name(&e, f);
    match away {
        Away::Kill | Away::Stop => act(&mut e, Action::Start { node }),
        Away::Cut => isolate(&mut e, f, 3, false),
    }
    let back = e.sim.now;
    loop {
        run_for(&mut e, US_PER_MS);
        assert_eq!(leader(&e), l, "seed {seed}: the same leader throughout");
        let ld = &e.sim.nodes[l as usize].state;
        assert_eq!(
            (ld.last(), ld.commit),
            (last, commit),
            "seed {seed}: no write after the return"
        );
        let n = &e.sim.nodes[f as usize].state;
        if n.last() == last
            && n.chain_at(last) == ld.chain_at(last)
            && n.commit == commit
            && n.applied == commit
        {
            return e.sim.now - back;
        }
        assert!(
            e.sim.now - back <= bound,
            "seed {seed}, {away:?} for {down} us: {} us after its return the follower has last {} commit {} applied {}; the leader last {last} commit {commit}",
            e.sim.now - back,
            n.last(),
            n.commit,
            n.applied
        );
    }
}

#[test]
fn a_restarted_follower_catches_up_without_a_new_write() {
    for away in [Away::Kill, Away::Stop] {
        for (seed, down) in [(0, 2 * US_PER_S), (1, 2 * US_PER_S), (2, 20 * US_PER_S)] {
            let took = catch_up("", away, seed, down);
            eprintln!("{away:?} seed {seed} down {down}: caught up {took} us after the return");
        }
    }
}

#[test]
fn a_follower_whose_links_heal_catches_up_without_a_new_write() {
    for (seed, down) in [(0, 2 * US_PER_S), (1, 5 * US_PER_S), (2, 20 * US_PER_S)] {
        let took = catch_up("", Away::Cut, seed, down);
        eprintln!("Cut seed {seed} down {down}: caught up {took} us after the return");
    }
}

/// Ozone's election timeouts (`preset = "ozone"`: min 5 s): heartbeats fall due only 2.5 s after
/// the follower's last reply, so a follower back from a short absence waits for that, as the
/// datanodes of `ozone::tests_read` do; still no write is needed.
#[test]
fn with_ozones_timeouts_a_returning_follower_catches_up_within_the_bound_too() {
    for away in [Away::Kill, Away::Stop, Away::Cut] {
        for seed in 0..3 {
            let took = catch_up("preset = \"ozone\"", away, seed, 1_200 * US_PER_MS);
            eprintln!("ozone {away:?} seed {seed}: caught up {took} us after the return");
        }
    }
}
