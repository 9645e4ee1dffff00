//! Ratis' `FollowerState` (read for the model at apache/ratis HEAD): a follower does not reset a
//! deadline on every AppendEntries. It sleeps a random timeout, wakes, and stands for election
//! only if nothing is being appended (`outstandingOp == 0`), it heard from no leader (nor
//! granted a vote) for the timeout it slept (`lastRpcTime`), and it is not a leader that stepped
//! down for lost heartbeats within `leader.step-down.wait-time`; otherwise it sleeps again. A
//! vote request of a recognized candidate forces a new FollowerState (`changeToFollower(force)`),
//! and a same-term request is refused while the voter follows another leader it heard from
//! within min (`VoteContext.checkLeader`).

use super::node::Role;
use super::tests::{act, command, drop_link, engine, isolate, leader, name, run_for};
use crate::engine::action::Action;
use crate::engine::NodeId;
use crate::time::{US_PER_MS, US_PER_S};

/// The leader is killed: each follower stands between min and 2 x max after it last heard
/// from it (its sleep may have begun before that contact: it then sleeps once more), never
/// before min; over seeds some stand later than max after the last contact, which a deadline
/// reset by every heartbeat never does.
#[test]
fn a_follower_stands_between_min_and_twice_max_after_its_last_contact() {
    let (min, max) = (150 * US_PER_MS, 300 * US_PER_MS);
    let mut later_than_max = 0;
    for seed in 0..20 {
        let mut e = engine(3, "", seed);
        run_for(&mut e, US_PER_S);
        let l = leader(&e);
        let node = name(&e, l);
        act(&mut e, Action::Kill { node });
        let last: Vec<u64> = (0..3).map(|b| e.sim.nodes[b].state.last_rpc).collect();
        let elections: Vec<u64> = (0..3).map(|b| e.sim.nodes[b].state.elections).collect();
        // Step 1 ms at a time up to 2 x max: when does each follower first stand?
        let mut stood = [None; 3];
        for _ in 0..(2 * max / US_PER_MS + 2) {
            run_for(&mut e, US_PER_MS);
            for b in (0..3).filter(|&b| b != l as usize) {
                if stood[b].is_none() && e.sim.nodes[b].state.elections > elections[b] {
                    stood[b] = Some(e.sim.now);
                }
            }
        }
        let first = (0..3)
            .filter_map(|b| stood[b].map(|t| (b, t)))
            .min_by_key(|&(_, t)| t)
            .unwrap_or_else(|| panic!("seed {seed}: someone stands within 2 x max"));
        let after = first.1 - last[first.0];
        assert!(
            after >= min && after <= 2 * max + US_PER_MS,
            "seed {seed}: n{} stood {after} us after its last contact",
            first.0
        );
        later_than_max += usize::from(after > max + US_PER_MS);
    }
    assert!(
        later_than_max >= 1,
        "some follower slept once more after the contact (the sleep loop)"
    );
}

/// A follower whose LogWorker is stalled holds an AppendEntries it cannot write: it stands for
/// no election while that append is outstanding, even with the leader gone; once released and
/// answered, it stands as any other.
#[test]
fn a_follower_writing_an_append_stands_for_no_election() {
    for seed in 0..5 {
        let mut e = engine(3, "pre_vote = false", seed);
        run_for(&mut e, US_PER_S);
        let l = leader(&e);
        let f = (l + 1) % 3;
        let other = (l + 2) % 3;
        let node = name(&e, f);
        act(
            &mut e,
            Action::Stall {
                node,
                executor: "LogWorker".into(),
            },
        );
        command(&mut e, l, "client-put k v");
        run_for(&mut e, 20 * US_PER_MS);
        assert!(e.sim.nodes[f as usize].state.appends_in_progress > 0);
        // Only f is left with the dead leader: the other follower is cut off, so f alone could
        // stand (and would, with a deadline timer).
        isolate(&mut e, other, 3, true);
        let node = name(&e, l);
        act(&mut e, Action::Kill { node });
        let before = e.sim.nodes[f as usize].state.elections;
        run_for(&mut e, 3 * US_PER_S);
        let n = &e.sim.nodes[f as usize].state;
        assert_eq!(
            (n.elections, n.role),
            (before, Role::Follower),
            "seed {seed}: a follower with an append outstanding does not stand"
        );
        let node = name(&e, f);
        act(
            &mut e,
            Action::Release {
                node,
                executor: "LogWorker".into(),
            },
        );
        run_for(&mut e, US_PER_S);
        let n = &e.sim.nodes[f as usize].state;
        assert_eq!(
            n.appends_in_progress, 0,
            "seed {seed}: written and answered"
        );
        assert!(n.elections > before, "seed {seed}: then it stands");
    }
}

/// `LeaderStateImpl.checkLeadership` steps a leader down when no majority answered within max
/// (LOST_MAJORITY_HEARTBEATS); its FollowerState then skips elections for
/// `step_down_wait` (10 s by default), and stands after it.
#[test]
fn a_leader_that_lost_its_majority_waits_before_standing_again() {
    for (seed, wait) in [(0, 10u64), (1, 10), (2, 3)] {
        let mut e = engine(
            3,
            &format!("pre_vote = false\nstep_down_wait = \"{wait}s\""),
            seed,
        );
        run_for(&mut e, US_PER_S);
        let l = leader(&e);
        isolate(&mut e, l, 3, true);
        run_for(&mut e, US_PER_S);
        let n = &e.sim.nodes[l as usize].state;
        assert_eq!(n.role, Role::Follower, "seed {seed}: stepped down");
        let (down_at, elections) = (n.role_since, n.elections);
        run_for(&mut e, (wait - 1) * US_PER_S);
        assert_eq!(
            e.sim.nodes[l as usize].state.elections, elections,
            "seed {seed}: no election within {wait}s of stepping down (at {down_at})"
        );
        run_for(&mut e, 2 * US_PER_S);
        assert!(
            e.sim.nodes[l as usize].state.elections > elections,
            "seed {seed}: it stands once the wait is over"
        );
    }
}

/// Three nodes, pre-vote off: node 2 (`f`), cut off with its elections held while the others
/// elect a leader `l`, learns the term from `l`'s AppendEntries once healed, so it has no vote
/// in that term. Answers the engine 200 ms after the heal, `f` and `l`.
fn follower_without_a_vote(seed: u64) -> (crate::engine::Engine<super::RaftKv>, NodeId, NodeId) {
    let mut e = engine(3, "pre_vote = false", seed);
    let f = 2;
    run_for(&mut e, 1);
    command(&mut e, f, "hold-elections 5s");
    isolate(&mut e, f, 3, true);
    run_for(&mut e, US_PER_S);
    isolate(&mut e, f, 3, false);
    run_for(&mut e, 200 * US_PER_MS);
    let l = leader(&e);
    (e, f, l)
}

/// A vote request of the voter's own term is refused while the voter follows another leader
/// it heard from within min (pre-vote off). The follower `f` learns the term from the leader's
/// AppendEntries (cut off, its elections held, during the election), so it has no vote in that
/// term; another follower `c` then asks it for a vote in that same term with an up-to-date log
/// (`send-vote`). Ratis refuses (`checkLeader`); the vote rules alone would grant it.
#[test]
fn a_same_term_vote_is_refused_while_the_voter_follows_a_live_leader() {
    for seed in 0..5 {
        let (mut e, f, l) = follower_without_a_vote(seed);
        assert_ne!(l, f);
        let c = 3 - l - f;
        let (term, voted, follows) = {
            let n = &e.sim.nodes[f as usize].state;
            (n.term, n.voted_for, n.leader)
        };
        assert_eq!(term, e.sim.nodes[l as usize].state.term, "seed {seed}");
        assert_eq!(
            (voted, follows),
            (None, Some(l)),
            "seed {seed}: no vote, follows l"
        );
        let (last, last_term) = {
            let n = &e.sim.nodes[f as usize].state;
            (n.last(), n.last_term())
        };
        let to = name(&e, f);
        command(
            &mut e,
            c,
            &format!("send-vote {to} {term} {last} {last_term}"),
        );
        run_for(&mut e, 5 * US_PER_MS);
        assert_eq!(
            e.sim.nodes[f as usize].state.voted_for, None,
            "seed {seed}: refused while following a live leader"
        );
        assert_eq!(leader(&e), l, "seed {seed}: the leader stays");
    }
}

/// The same, once the leader has gone quiet for f for more than min: Ratis' `checkLeader`
/// passes, the vote is granted, and `ServerState.grantVote` forgets the leader
/// (`setLeader(null)`): f no longer names l in its `leader` view or its NotLeader hints.
#[test]
fn a_granted_same_term_vote_forgets_the_leader() {
    for seed in 0..5 {
        let (mut e, f, l) = follower_without_a_vote(seed);
        let c = 3 - l - f;
        let term = e.sim.nodes[f as usize].state.term;
        assert_eq!(e.sim.nodes[f as usize].state.leader, Some(l), "seed {seed}");
        // l's messages to f are lost from now on: after min, f's leader is no longer valid.
        drop_link(&mut e, l, f, true);
        let fnm = name(&e, f);
        run_for(&mut e, 200 * US_PER_MS);
        let (last, last_term) = {
            let n = &e.sim.nodes[f as usize].state;
            (n.last(), n.last_term())
        };
        command(
            &mut e,
            c,
            &format!("send-vote {fnm} {term} {last} {last_term}"),
        );
        run_for(&mut e, 5 * US_PER_MS);
        let n = &e.sim.nodes[f as usize].state;
        assert_eq!(n.voted_for, Some(c), "seed {seed}: granted");
        assert_eq!(n.term, term, "seed {seed}: the same term");
        assert_eq!(n.leader, None, "seed {seed}: the leader is forgotten");
    }
}
