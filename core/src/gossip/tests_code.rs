//! Cases derived from Cassandra's own code (an outside reviewer's cases, written first): each
//! asserts an outcome the real code produces and names the file and method it comes from.
//! Sources read: `Gossiper.java` (5.0; 4.1 where it is the same), `FailureDetector.java` (4.0+),
//! `GossipShutdownVerbHandler`, `EchoVerbHandler`, and the CASSANDRA-21636 report's quote of the
//! 5.0.8 `markAlive`.

use super::fd::PHI_FACTOR;
use super::state::MAX_VERSION;
use super::{GNode, Gossip};
use crate::engine::action::{Action, Dur};
use crate::engine::trace::RecKind;
use crate::limits::Limits;
use crate::runner::{Run, RunOptions};
use crate::scenario::Scenario;
use crate::time::{Micros, US_PER_S};

/// A scenario of `nodes` (the first `seeds` of them seeds), with extra `[params]` lines and
/// extra TOML (faults, `[[gossip.endpoint]]`).
fn run(nodes: &[&str], seeds: &[&str], params: &str, extra: &str, duration: &str) -> Run {
    let list = |v: &[&str], f: &dyn Fn(&str) -> String| {
        v.iter().map(|n| f(n)).collect::<Vec<_>>().join(", ")
    };
    let text = format!(
        r#"
name = "code-case"
title = "a case from Cassandra's code"
protocol = "gossip"
duration = "{duration}"
seed = 7
[cluster]
nodes = [{}]
seeds = [{}]
[network]
latency_min = "2ms"
latency_max = "10ms"
[params]
{params}
[[variants]]
name = "only"
{extra}
"#,
        list(nodes, &|n| format!("{{ name = \"{n}\" }}")),
        list(seeds, &|n| format!("\"{n}\"")),
    );
    let s = Scenario::parse("code-case.toml", &text, &Limits::default()).unwrap();
    Run::new(s, "only", None, &toml::Table::new(), &RunOptions::default()).unwrap()
}

fn until(r: &mut Run, t: Micros) {
    r.engine.run_until(t, u64::MAX).unwrap();
}

fn node(r: &Run, id: u32) -> &GNode {
    &r.sim_of::<Gossip>().unwrap().nodes[id as usize].state
}

fn act(r: &mut Run, a: Action) {
    r.engine.apply_user_action(a).unwrap();
}

/// Times of `node`'s log lines that contain `needle`.
fn logged(r: &Run, node: u32, needle: &str) -> Vec<Micros> {
    let t = r.trace();
    t.logs
        .iter()
        .filter(|l| l.node == node && t.text(l).contains(needle))
        .map(|l| l.time)
        .collect()
}

/// SYNs `from` sent, per destination, in [t0, t1).
fn syns_sent(r: &Run, from: u32, n: usize, t0: Micros, t1: Micros) -> Vec<u64> {
    let mut per = vec![0u64; n];
    for rec in r.trace().recs.iter() {
        // A message a cut link loses is recorded as dropped, not sent.
        let (src, to, label) = match rec.kind {
            RecKind::Send { to, label, .. } => (rec.node, to, label),
            RecKind::Drop {
                from: f, to, label, ..
            } => (f, to, label),
            _ => continue,
        };
        if src == from && label == "SYN" && (t0..t1).contains(&rec.time) {
            per[to as usize] += 1;
        }
    }
    per
}

const A: u32 = 0;
const B: u32 = 1;
const C: u32 = 2;

/// `FailureDetector.interpret` convicts when `PHI_FACTOR * phi > phi_convict_threshold`, with
/// `ArrivalWindow.phi = (now - tLast) / mean` and `PHI_FACTOR = 1 / ln 10`: a silent peer is
/// convicted at the first status check (`GossipTask.run` -> `doStatusCheck`, once a second)
/// after 8 x ln 10 = 18.42 mean intervals of silence. At 1 s gossip the mean heartbeat interval
/// an observer sees is about 1 s (heartbeats relayed by any peer; the window starts with one 2 s
/// `INITIAL_VALUE_NANOS` sample and keeps no gap above `MAX_INTERVAL`, 2 s), so a kill -9 is
/// noticed about 18-21 s after the last heartbeat, not 8 s (a threshold on phi without the
/// factor) nor ~37 s (a mean of 2 s).
#[test]
fn a_silent_peer_is_convicted_after_phi_8_of_mean_intervals() {
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "2m");
    until(&mut r, 60 * US_PER_S);
    act(&mut r, Action::Kill { node: "B".into() });
    until(&mut r, 100 * US_PER_S);
    let a = node(&r, A);
    let last = a.fd.last(B as usize).expect("A has a window for B");
    let iv = a.fd.intervals(B as usize);
    let mean = iv.iter().map(|&x| x as f64).sum::<f64>() / iv.len() as f64;
    assert!(
        iv.iter().all(|&x| x as u64 <= 2 * US_PER_S),
        "no sample above MAX_INTERVAL (2 s)"
    );
    assert!(
        mean <= 1.1 * US_PER_S as f64 && mean > 0.5 * US_PER_S as f64,
        "mean interval {mean} us at 1 s gossip"
    );
    let down = logged(&r, A, "InetAddress /B is now DOWN");
    assert_eq!(down.len(), 1, "one conviction");
    let silence = (down[0] - last) as f64;
    let bound = 8.0 / PHI_FACTOR * mean;
    assert!(
        silence > bound && silence <= bound + US_PER_S as f64 + 1.0,
        "convicted after {silence} us of silence; phi 8 crosses at {bound} us, checked once a second"
    );
    assert!(
        (18 * US_PER_S..=22 * US_PER_S).contains(&(down[0] - 60 * US_PER_S)),
        "about 18-21 s after the kill: {} us",
        down[0] - 60 * US_PER_S
    );
}

/// `Gossiper.stop` sends GOSSIP_SHUTDOWN to every live endpoint; `GossipShutdownVerbHandler`
/// runs `markAsShutdown`: STATUS=shutdown, `forceHighestPossibleVersionUnsafe` (heartbeat
/// version Integer.MAX_VALUE), `markDead` ("is now DOWN") at once, not after the phi timeout.
/// A peer the announcement does not reach learns STATUS=shutdown by gossip (same generation:
/// `applyNewStates`, the peer stays alive) and marks it down only when the failure detector
/// convicts: `convict` sees `isShutdown` and runs `markAsShutdown`.
#[test]
fn a_shutdown_announcement_marks_the_node_down_at_once() {
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "2m");
    until(&mut r, 30 * US_PER_S);
    // The announcement to C is lost; gossip through A still carries B's new state to C.
    act(
        &mut r,
        Action::DropLink {
            from: "B".into(),
            to: "C".into(),
            one_way: false,
        },
    );
    until(&mut r, 40 * US_PER_S);
    assert!(node(&r, C).sees_up(B), "C still sees B UP through A");
    act(&mut r, Action::Stop { node: "B".into() });
    until(&mut r, 41 * US_PER_S);
    let a = node(&r, A);
    assert!(!a.sees_up(B));
    let b_at_a = a.state(B).unwrap();
    assert!(b_at_a.is_shutdown());
    assert_eq!(b_at_a.hb.version, MAX_VERSION);
    let down = logged(&r, A, "InetAddress /B is now DOWN");
    assert_eq!(down.len(), 1);
    assert!(
        down[0] - 40 * US_PER_S < 100_000,
        "A marks B down on the announcement, not after phi"
    );
    // C: the shutdown state arrives by gossip and does not mark B down by itself.
    until(&mut r, 45 * US_PER_S);
    let c = node(&r, C);
    assert!(
        c.state(B).unwrap().is_shutdown(),
        "C learned STATUS=shutdown"
    );
    assert!(
        c.sees_up(B),
        "... and still holds B alive (applyNewStates only)"
    );
    until(&mut r, 80 * US_PER_S);
    let c_down = logged(&r, C, "InetAddress /B is now DOWN");
    assert_eq!(c_down.len(), 1);
    assert!(
        c_down[0] - 40 * US_PER_S > 10 * US_PER_S,
        "C convicts B by phi, {} us after the stop",
        c_down[0] - 40 * US_PER_S
    );
    assert_eq!(node(&r, C).counters.convictions, 1);
    assert!(!node(&r, C).sees_up(B));
}

/// A newer generation of a known peer (`applyStateLocally`: remoteGeneration >
/// localGeneration) is a major state change: `handleMajorStateChange` logs "Node /X has
/// restarted, now UP", installs the remote state as a new object and calls `markAlive`, which
/// marks it dead and sends one ECHO_REQ; only the echo's response runs `realMarkAlive`
/// ("InetAddress /X is now UP"). Before it, `notifyFailureDetector` clears the peer's
/// arrival window if the local state was not alive (then `report` seeds it with the 2 s initial
/// value), and keeps it if the peer was still alive.
#[test]
fn a_new_generation_is_marked_dead_until_its_echo_returns() {
    // Down for 40 s: A convicts B first, so B's window is cleared on its return.
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "3m");
    until(&mut r, 30 * US_PER_S);
    let before = node(&r, A).fd.intervals(B as usize).len();
    let gen0 = node(&r, A).state(B).unwrap().hb.generation;
    act(
        &mut r,
        Action::Restart {
            node: "B".into(),
            kill: true,
            down_for: Some(Dur(40 * US_PER_S)),
        },
    );
    // Step until A has applied the new generation (1 ms steps: an echo can return within a
    // few).
    let mut t = 70 * US_PER_S;
    while node(&r, A).state(B).unwrap().hb.generation == gen0 {
        t += 1_000;
        assert!(t < 80 * US_PER_S, "A never learned B's new generation");
        until(&mut r, t);
    }
    let a = node(&r, A);
    let restarted = logged(&r, A, "Node /B has restarted, now UP");
    assert_eq!(restarted.len(), 1);
    assert!(a.counters.echo_sent >= 1);
    // Within 1 ms of the change; an echo round trip takes at least 4 ms here.
    assert!(!a.sees_up(B), "markAlive marked the new state dead");
    let iv = a.fd.intervals(B as usize);
    assert_eq!(
        iv.first().copied(),
        Some(2_000_000),
        "window restarted at 2 s"
    );
    assert!(
        iv.len() <= 2,
        "cleared: {} samples (was {before})",
        iv.len()
    );
    until(&mut r, 75 * US_PER_S);
    // The ECHO_REQ leaves with the major state change; UP comes only with its reply, later.
    let echo_at: Vec<Micros> = r
        .trace()
        .recs
        .iter()
        .filter_map(|rec| match rec.kind {
            RecKind::Send { to, label, .. } if rec.node == A && to == B && label == "ECHO_REQ" => {
                Some(rec.time)
            }
            _ => None,
        })
        .collect();
    assert!(echo_at.contains(&restarted[0]), "markAlive sent ECHO_REQ");
    let up: Vec<Micros> = logged(&r, A, "InetAddress /B is now UP")
        .into_iter()
        .filter(|&u| u > 30 * US_PER_S)
        .collect();
    assert_eq!(up.len(), 1, "the echo reply marks B UP, once");
    assert!(
        up[0] > restarted[0],
        "UP after the round trip, not with the new state"
    );
    assert!(node(&r, A).sees_up(B));

    // Down for 3 s (kill -9): B is still alive at A when its new generation arrives, so the
    // window is kept (the restart gap itself exceeds MAX_INTERVAL and is not a sample).
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "3m");
    until(&mut r, 30 * US_PER_S);
    let before = node(&r, A).fd.intervals(B as usize).len();
    act(
        &mut r,
        Action::Restart {
            node: "B".into(),
            kill: true,
            down_for: Some(Dur(3 * US_PER_S)),
        },
    );
    until(&mut r, 40 * US_PER_S);
    assert_eq!(logged(&r, A, "Node /B has restarted, now UP").len(), 1);
    let iv = node(&r, A).fd.intervals(B as usize);
    assert!(
        iv.len() > before,
        "kept: {} samples (was {before})",
        iv.len()
    );
    assert!(iv.iter().all(|&x| x as u64 <= 2 * US_PER_S));
    assert!(node(&r, A).sees_up(B));
}

/// `handleMajorStateChange` ends with `if (isShutdown(ep)) markAsShutdown(ep)` ("check this at
/// the end so nodes will learn about the endpoint"). A node that restarts while a peer is shut
/// down loads the peer as a generation-0 saved endpoint, then learns its shut-down state (a newer
/// generation) from gossip: it logs "has restarted, now UP", sends its one ECHO_REQ, and then
/// marks the peer down as shut down: "is now DOWN", and (5.0.8, `silentlyMarkDead`) no
/// inflightEcho entry left behind.
#[test]
fn a_new_generation_that_is_shut_down_is_marked_as_shutdown() {
    let mut r = run(&["A", "B", "C"], &["A"], "echo = \"buggy\"", "", "2m");
    until(&mut r, 20 * US_PER_S);
    act(&mut r, Action::Stop { node: "C".into() });
    until(&mut r, 30 * US_PER_S);
    act(
        &mut r,
        Action::Restart {
            node: "B".into(),
            kill: false,
            down_for: Some(Dur(5 * US_PER_S)),
        },
    );
    until(&mut r, 60 * US_PER_S);
    let b = node(&r, B);
    let c_at_b = b.state(C).unwrap();
    assert!(c_at_b.hb.generation > 0, "B learned C's generation");
    assert!(c_at_b.is_shutdown());
    assert_eq!(c_at_b.hb.version, MAX_VERSION);
    assert!(!b.sees_up(C));
    let restarted = logged(&r, B, "Node /C has restarted, now UP");
    assert_eq!(
        restarted.len(),
        1,
        "logged as Cassandra does, before the check"
    );
    let down = logged(&r, B, "InetAddress /C is now DOWN");
    assert!(
        down.iter().any(|&d| d == restarted[0]),
        "markAsShutdown in the same handleMajorStateChange: {down:?} vs {restarted:?}"
    );
    assert!(
        !b.inflight.contains_key(&C),
        "markDead removed the inflight entry"
    );
    assert!(b.unreachable.contains_key(&C));
}

/// `applyStateLocally` drops a remote generation only when it is beyond the *local clock* plus
/// a year (`remoteGeneration > localTime + MAX_GENERATION_DIFFERENCE`, localTime =
/// currentTimeMillis() / 1000), not beyond the local generation plus a year. A cluster whose
/// maps hold 2009 generations (the study notes) accepts a restart's generation of today.
#[test]
fn the_generation_sanity_check_is_against_the_local_clock() {
    let entries = |observer: &str| {
        format!(
            r#"
[[gossip.endpoint]]
observer = "{observer}"
peer = "A"
generation = 1259909635
heartbeat = 10
states = [{{ key = "STATUS", value = "NORMAL", version = 1 }}]
[[gossip.endpoint]]
observer = "{observer}"
peer = "B"
generation = 1259911052
heartbeat = 10
states = [{{ key = "STATUS", value = "NORMAL", version = 1 }}]
"#
        )
    };
    let extra = format!("{}{}", entries("A"), entries("B"));
    let mut r = run(&["A", "B"], &["A"], "", &extra, "2m");
    until(&mut r, 10 * US_PER_S);
    assert!(node(&r, B).sees_up(A));
    act(
        &mut r,
        Action::Restart {
            node: "A".into(),
            kill: true,
            down_for: Some(Dur(2 * US_PER_S)),
        },
    );
    until(&mut r, 30 * US_PER_S);
    let b = node(&r, B);
    let a_gen = node(&r, A).generation();
    assert!(a_gen > 1_600_000_000, "A restarted with today's generation");
    assert_eq!(b.state(A).unwrap().hb.generation, a_gen, "B took it");
    assert_eq!(logged(&r, B, "Node /A has restarted, now UP").len(), 1);
    assert!(b.sees_up(A));
    assert!(logged(&r, B, "invalid gossip generation").is_empty());
}

/// `GossipTask.run` -> `doGossipToLiveMember` (a uniform live endpoint), then
/// `maybeGossipToSeed` when the live target was not a seed: with live endpoints, a seed with
/// probability seeds / (live + unreachable) (`randDbl <= probability`). Five healthy nodes, one
/// seed A: E SYNs A with probability 1/4 + 3/4 x 1/4 = 7/16 a round, each other peer 1/4.
#[test]
fn seed_gossip_probability() {
    let mut r = run(&["A", "B", "C", "D", "E"], &["A"], "", "", "40m");
    let (t0, t1) = (10 * US_PER_S, 2010 * US_PER_S);
    until(&mut r, t1);
    let per = syns_sent(&r, 4, 5, t0, t1);
    let rounds = 2000.0;
    let sd = |p: f64| (rounds * p * (1.0 - p)).sqrt();
    let to_a = per[0] as f64;
    assert!(
        (to_a - rounds * 7.0 / 16.0).abs() < 4.0 * sd(7.0 / 16.0),
        "E -> seed A: {to_a} of {rounds} rounds, expected {}",
        rounds * 7.0 / 16.0
    );
    for (i, &n) in per.iter().enumerate().skip(1).take(3) {
        assert!(
            (n as f64 - rounds / 4.0).abs() < 4.0 * sd(0.25),
            "E -> node {i}: {n}"
        );
    }
    assert_eq!(per[4], 0, "never to itself");
}

/// With no live endpoint, `maybeGossipToUnreachableMember` fires with probability
/// unreachable / (live + 1) >= 1 and `maybeGossipToSeed` always sends (`liveEndpoints.size() ==
/// 0`): an isolated node SYNs an unreachable peer and a seed every round, two SYNs a round.
#[test]
fn an_isolated_node_gossips_to_an_unreachable_peer_and_a_seed_every_round() {
    let mut r = run(&["A", "B", "C", "D"], &["A"], "", "", "3m");
    until(&mut r, 10 * US_PER_S);
    act(
        &mut r,
        Action::Partition {
            groups: vec![vec!["D".into()], vec!["A".into(), "B".into(), "C".into()]],
        },
    );
    until(&mut r, 60 * US_PER_S);
    let d = node(&r, 3);
    assert_eq!(d.live.len(), 0, "D convicted everyone");
    assert_eq!(d.unreachable.len(), 3);
    let (t0, t1) = (60 * US_PER_S, 120 * US_PER_S);
    until(&mut r, t1);
    let per = syns_sent(&r, 3, 4, t0, t1);
    let total: u64 = per.iter().sum();
    assert_eq!(total, 2 * 60, "two SYNs a round for 60 rounds: {per:?}");
    assert!(per[0] >= 60, "A, the seed, gets one every round: {per:?}");
}

/// `getStateForVersionBiggerThan`: the heartbeat is included when its version is above the
/// requested one; an application state above it brings the (older) heartbeat along ("we also
/// send the old heart beat and throw it away on the receiver if it is redundant"); nothing
/// newer: no entry at all.
#[test]
fn state_for_version_bigger_than() {
    use super::state::{AppState, Deltas, EndpointState, HeartBeat};
    let st = EndpointState::new(
        0,
        HeartBeat {
            generation: 7,
            version: 40,
        },
        vec![
            AppState {
                key: "STATUS".into(),
                value: "NORMAL".into(),
                version: 3,
            },
            AppState {
                key: "LOAD".into(),
                value: "1.0".into(),
                version: 50,
            },
        ],
        true,
    );
    // Above 45: LOAD (50) with the heartbeat (40) riding along.
    let mut out = Deltas::with_capacity(1);
    assert!(st.newer_than(9, 45, &mut out));
    let d = out.get(0);
    assert_eq!(d.ep, 9);
    assert_eq!((d.hb.generation, d.hb.version), (7, 40));
    assert_eq!(d.states.len(), 1);
    assert_eq!(&*d.states[0].key, "LOAD");
    // Above 10: heartbeat and LOAD, not STATUS (3).
    let mut out = Deltas::with_capacity(1);
    assert!(st.newer_than(9, 10, &mut out));
    assert_eq!(out.get(0).states.len(), 1);
    assert_eq!(out.get(0).hb.version, 40);
    // Above 50: nothing.
    let mut out = Deltas::with_capacity(1);
    assert!(!st.newer_than(9, 50, &mut out));
    assert!(out.is_empty());
}
