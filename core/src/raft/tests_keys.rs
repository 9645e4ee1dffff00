//! The one-key actions of `keys.rs` that re-arm election timers (`A`: align, `S`: spread), and
//! the `election-timer` command they record.

use super::keys;
use super::node::Role;
use super::tests::{act, engine, leader, name, run_for};
use super::RaftKv;
use crate::engine::action::Action;
use crate::engine::{Engine, NodeId};
use crate::time::{US_PER_MS, US_PER_S};

/// A 5-node group whose leader was killed 20 ms ago, its followers and the leader's term.
fn leaderless(seed: u64) -> (Engine<RaftKv>, Vec<NodeId>, u64) {
    let mut e = engine(5, "", seed);
    run_for(&mut e, 3 * US_PER_S);
    let l = leader(&e);
    let term = e.sim.nodes[l as usize].state.term;
    let node = name(&e, l);
    act(&mut e, Action::Kill { node });
    // The heartbeats it sent before dying arrive (and reset the followers' timers) first.
    run_for(&mut e, 20 * US_PER_MS);
    let f = (0..5).filter(|&i| i != l).collect();
    (e, f, term)
}

fn press(e: &mut Engine<RaftKv>, key: char) {
    let proto = e.sim.proto.clone();
    for a in keys::actions(&proto, &e.sim, key, None).unwrap() {
        act(e, a);
    }
}

#[test]
fn align_makes_every_follower_time_out_at_the_same_moment() {
    for seed in 1..=20 {
        let (mut e, f, _) = leaderless(seed);
        let t = e.sim.now;
        press(&mut e, 'A');
        let min = 150 * US_PER_MS; // the default preset's timeout_min
        for &i in &f {
            assert_eq!(
                e.sim.nodes[i as usize].state.election_deadline,
                t + min,
                "seed {seed}"
            );
        }
        run_for(&mut e, min);
        for &i in &f {
            let n = &e.sim.nodes[i as usize].state;
            assert_ne!(n.role, Role::Follower, "seed {seed}: {i} timed out");
            assert_eq!(
                n.role_since,
                t + min,
                "seed {seed}: {i} left follower with the others"
            );
        }
    }
}

#[test]
fn spread_lets_the_first_follower_win_alone() {
    for seed in 1..=20 {
        let (mut e, f, term) = leaderless(seed);
        press(&mut e, 'S');
        run_for(&mut e, US_PER_S);
        let l = leader(&e);
        assert_eq!(l, f[0], "seed {seed}: the earliest timer wins");
        assert_eq!(
            e.sim.nodes[l as usize].state.term,
            term + 1,
            "seed {seed}: in one election"
        );
    }
}

#[test]
fn the_election_timer_command_is_checked() {
    let mut e = engine(3, "", 1);
    run_for(&mut e, 3 * US_PER_S);
    let l = leader(&e);
    let f = (0..3).find(|&i| i != l).unwrap();
    for (node, c, want) in [
        (f, "election-timer", "election-timer takes 1 argument"),
        (f, "election-timer soon", "DURATION \"soon\""),
        (
            f,
            "election-timer 2h",
            "DURATION 7200s is out of range; use 1ms to 1h",
        ),
        (f, "election-timer 0s", "out of range"),
        (l, "election-timer 1s", "this node is the leader"),
    ] {
        let node = name(&e, node);
        let err = e
            .apply_user_action(Action::Command {
                node,
                command: c.into(),
            })
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{c}: {err}");
    }
}

/// `hold-elections DURATION` (issue 42's per-node timer control): the held follower starts no
/// election for the window while another takes over, and it still votes; once the window is
/// over it times out as usual. The leader's step-down check is another timer, untouched.
#[test]
fn a_held_follower_starts_no_election_but_votes() {
    for seed in 1..=20 {
        let (mut e, f, term) = leaderless(seed);
        let held = f[0];
        let before = e.sim.nodes[held as usize].state.elections;
        let node = name(&e, held);
        act(
            &mut e,
            Action::Command {
                node,
                command: "hold-elections 3s".into(),
            },
        );
        run_for(&mut e, 2 * US_PER_S);
        let n = &e.sim.nodes[held as usize].state;
        assert_eq!(
            n.elections, before,
            "seed {seed}: the held node ran an election"
        );
        assert_eq!(n.role, Role::Follower, "seed {seed}");
        // Another follower won a later term (three of the five suffice, so this does not show
        // the held node's vote; it answers vote requests as any follower does).
        let l = leader(&e);
        assert_ne!(l, held, "seed {seed}");
        assert!(e.sim.nodes[l as usize].state.term > term, "seed {seed}");
    }
    // With every follower held, nobody is elected before the window ends, and somebody is
    // soon after.
    let (mut e, f, _) = leaderless(1);
    for &i in &f {
        let node = name(&e, i);
        act(
            &mut e,
            Action::Command {
                node,
                command: "hold-elections 2s".into(),
            },
        );
    }
    run_for(&mut e, 1900 * US_PER_MS);
    assert!(
        f.iter()
            .all(|&i| e.sim.nodes[i as usize].state.role == Role::Follower),
        "a held follower left follower before the hold ended"
    );
    run_for(&mut e, US_PER_S);
    assert!(
        f.iter().any(|&i| e.sim.nodes[i as usize].state.is_leader()),
        "no leader 1 s after the hold ended"
    );
}

/// A stopped node has no election timer: the inspector's JSON gives none (it gave the deadline
/// the node had when it died, which the inspector showed as "fires in 0ms" once past).
#[test]
fn a_stopped_follower_has_no_election_timer_in_its_json() {
    let mut e = engine(5, "", 1);
    run_for(&mut e, 3 * US_PER_S);
    let l = leader(&e);
    let f = (0..5).find(|&i| i != l).unwrap();
    let g = (0..5).find(|&i| i != l && i != f).unwrap();
    let node = name(&e, f);
    act(&mut e, Action::Kill { node });
    run_for(&mut e, 2 * US_PER_S);
    let proto = e.sim.proto.clone();
    let down = proto.node_json(&e.sim, f);
    assert_eq!(down["role"], "down");
    assert!(down["election_deadline_us"].is_null(), "{down}");
    let up = proto.node_json(&e.sim, g);
    assert!(
        up["election_deadline_us"].as_u64().unwrap() > e.sim.now,
        "{up}"
    );
}
