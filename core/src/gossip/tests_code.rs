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
pub(super) fn run(
    nodes: &[&str],
    seeds: &[&str],
    params: &str,
    extra: &str,
    duration: &str,
) -> Run {
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

pub(super) fn until(r: &mut Run, t: Micros) {
    r.engine.run_until(t, u64::MAX).unwrap();
}

pub(super) fn node(r: &Run, id: u32) -> &GNode {
    &r.sim_of::<Gossip>().unwrap().nodes[id as usize].state
}

pub(super) fn act(r: &mut Run, a: Action) {
    r.engine.apply_user_action(a).unwrap();
}

/// Times of `node`'s log lines that contain `needle`.
pub(super) fn logged(r: &Run, node: u32, needle: &str) -> Vec<Micros> {
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

pub(super) const A: u32 = 0;
pub(super) const B: u32 = 1;
pub(super) const C: u32 = 2;

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
    // Checked once a second; the mark itself is the GossipStage's `convict` task, 100 us
    // (`stage_msg_cost`) after its check (4.0+: `runInGossipStageBlocking`, tests_stage.rs).
    assert!(
        silence > bound && silence <= bound + US_PER_S as f64 + 101.0,
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
            down_for: None,
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
            down_for: None,
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

// ---- Cassandra 3.11 internode messaging (CASSANDRA-15138) ----
//
// Read in apache/cassandra at 3df63ed054ebaaf058fb6f93d149fca38eb687e1 (a cassandra-3.11 commit:
// `MessagingService` has VERSION_3014 and PING): `net/MessagingService.java` (`verbStages`,
// `convict`, `shutdown`, `SocketThread.close`, `sendOneWay`, `sendReply`),
// `net/OutboundTcpConnection.java` (`closeSocket`, `run`, `connect`), `gms/Gossiper.java`
// (`stop`, `markAsShutdown`, `markDead`, `handleMajorStateChange`, `markAlive`) and
// `service/StorageService.java` (`drain`, `stopGossiping`). `OutboundTcpConnectionPool` (3.x,
// three connections) and `StorageService.onDead`/`onRestart` are not stored at a 3.11 commit of
// apache/cassandra; read in a 3.x copy of the index (id 400004893) and in
// ddolyniuk1/cassandra-3.11 d5ef984abb84620e71435cf7626d2a8c378f1d66, which agree on the methods
// used here.

use super::messaging::{Chan, OutState};

/// A 3.11 cluster with the connection model, legacy echoes, and more `[params]` lines.
fn run_311(nodes: &[&str], params: &str, extra: &str, duration: &str) -> Run {
    let p = format!("connections = true\nmessaging = \"3.x\"\necho = \"legacy\"\n{params}");
    run(nodes, &nodes[..1], &p, extra, duration)
}

fn out_state(r: &Run, from: u32, to: u32, chan: Chan) -> OutState {
    node(r, from).msg.peers[to as usize].out[chan.index()].state
}

fn established(r: &Run, from: u32, to: u32, chan: Chan) -> bool {
    matches!(out_state(r, from, to, chan), OutState::Established { .. })
}

fn status(r: &Run, id: u32) -> crate::engine::NodeStatus {
    r.sim_of::<Gossip>().unwrap().nodes[id as usize].status
}

/// `OutboundTcpConnectionPool.getConnection`: `Stage.GOSSIP == msg.getStage()` -> `gossipMessages`
/// (`verbStages`: the SYN/ACK/ACK2, ECHO and GOSSIP_SHUTDOWN verbs are GOSSIP-stage); anything else
/// by `payloadSize > LARGE_MESSAGE_THRESHOLD` (64 KiB) -> `largeMessages`, else `smallMessages`.
/// `EchoVerbHandler` answers with a REQUEST_RESPONSE (`sendReply`): REQUEST_RESPONSE stage, so the
/// echo reply opens `small`. Connections open lazily (`OutboundTcpConnection.run`: `socket !=
/// null || connect()` on the first queued message).
#[test]
fn verbs_take_the_311_pool_connection_of_their_stage_and_size() {
    // Gossip only: every pair has `gossip` open both ways, nothing else.
    let mut r = run_311(&["A", "B", "C"], "", "", "2m");
    until(&mut r, 15 * US_PER_S);
    for (x, y) in [(A, B), (B, A), (A, C), (C, A), (B, C), (C, B)] {
        assert!(established(&r, x, y, Chan::Gossip), "{x}->{y} gossip");
        assert_eq!(out_state(&r, x, y, Chan::Small), OutState::Closed);
        assert_eq!(out_state(&r, x, y, Chan::Large), OutState::Closed);
    }
    // B restarts (kill -9, 3 s). A and C each learn B's new generation, reset their pool to B
    // (`onRestart`: B was still alive) and echo B; B answers each with a REQUEST_RESPONSE on its
    // own `small`, which nothing resets afterwards (B loaded A and C as dead saved endpoints, so
    // its `onRestart` resets nothing). (B's echoes to A and C open *their* `small` to B, but a
    // reply that goes out before that peer's own reset is closed by it: not asserted.)
    act(
        &mut r,
        Action::Restart {
            node: "B".into(),
            kill: true,
            down_for: Some(Dur(3 * US_PER_S)),
        },
    );
    until(&mut r, 30 * US_PER_S);
    assert!(node(&r, A).sees_up(B) && node(&r, B).sees_up(A));
    for x in [A, C] {
        assert!(node(&r, x).counters.echo_ok >= 1, "{x} echoed B");
        assert!(
            established(&r, B, x, Chan::Small),
            "B->{x}: echo reply on small"
        );
        assert!(
            established(&r, B, x, Chan::Gossip),
            "B->{x}: its echo on gossip"
        );
        assert_eq!(out_state(&r, B, x, Chan::Large), OutState::Closed);
        assert_eq!(out_state(&r, x, B, Chan::Large), OutState::Closed);
    }
    // A and C exchanged no echo: their `small` was never opened.
    assert_eq!(out_state(&r, A, C, Chan::Small), OutState::Closed);
    assert_eq!(out_state(&r, C, A, Chan::Small), OutState::Closed);

    // Client writes of 70,000 bytes (> 64 KiB) from A: MUTATION on `large`; the replicas'
    // write responses (REQUEST_RESPONSE, a few bytes) on their `small`.
    let mut r = run_311(
        &["A", "B", "C"],
        "client_rate = 20.0\nmutation_bytes = 70000",
        "",
        "1m",
    );
    until(&mut r, 10 * US_PER_S);
    for peer in [B, C] {
        assert!(established(&r, A, peer, Chan::Large), "A->{peer} large");
        assert_eq!(out_state(&r, A, peer, Chan::Small), OutState::Closed);
        assert!(established(&r, peer, A, Chan::Small), "{peer}->A small");
        assert_eq!(out_state(&r, peer, A, Chan::Large), OutState::Closed);
    }
    let w = &node(&r, A).msg.writes[B as usize];
    assert!(w.acked > 100 && w.acked + 2 >= w.sent, "{w:?}");
}

/// `GossipShutdownVerbHandler` -> `Gossiper.markAsShutdown` -> `markDead` -> subscribers'
/// `onDead` (`StorageService.onDead` -> `MessagingService.convict` -> the pool's `reset()`:
/// `closeSocket(false)` on small, large and gossip alike). The next message to the peer reopens
/// only its own connection (`run`: `socket != null || connect()`), and the stopping node still
/// accepts it: its server socket closes only with `MessagingService.shutdown`.
#[test]
fn a_shutdown_announcement_resets_all_three_and_the_next_message_reopens_one() {
    // A coordinates writes (small, established); client_delay 0: no write routed before the
    // DOWN goes out after it.
    let mut r = run_311(
        &["A", "B", "C"],
        "client_rate = 50.0\nclient_delay = \"0ms\"",
        "",
        "1m",
    );
    until(&mut r, 20 * US_PER_S);
    assert!(established(&r, A, B, Chan::Small) && established(&r, A, B, Chan::Gossip));
    act(&mut r, Action::Stop { node: "B".into() });
    // GOSSIP_SHUTDOWN arrives within the 1 ms latency bound used here (10 ms).
    let mut t = 20 * US_PER_S;
    while node(&r, A).sees_up(B) {
        t += 500;
        assert!(t < 21 * US_PER_S, "A never processed GOSSIP_SHUTDOWN");
        until(&mut r, t);
    }
    for c in [Chan::Small, Chan::Large, Chan::Gossip] {
        assert_eq!(out_state(&r, A, B, c), OutState::Closed, "{c:?} reset");
    }
    let reset = logged(&r, A, "Resetting outbound connections to /B");
    assert_eq!(reset.len(), 1);
    assert_eq!(logged(&r, A, "InetAddress /B is now DOWN"), reset);
    // Within B's 2 s announce window A gossips to unreachable B (probability 1/2 a round: B
    // unreachable, C live): the SYN reopens `gossip` only, and B accepts it. Writes to B are
    // hinted from the DOWN on, so `small` stays closed.
    until(&mut r, 21_900_000);
    assert_eq!(status(&r, B), crate::engine::NodeStatus::Stopping);
    assert_eq!(out_state(&r, A, B, Chan::Small), OutState::Closed);
    assert_eq!(out_state(&r, A, B, Chan::Large), OutState::Closed);
    let syns = syns_sent(&r, A, 3, t, 21_900_000)[B as usize];
    assert!(syns >= 1, "seed 7: A SYNs unreachable B in the window");
    assert!(
        established(&r, A, B, Chan::Gossip),
        "B accepted the reconnect: {:?}",
        out_state(&r, A, B, Chan::Gossip)
    );
    assert!(node(&r, A).msg.writes[B as usize].hinted > 0);
}

/// `StorageService.drain`: `Gossiper.stop` (STATUS=shutdown, GOSSIP_SHUTDOWN to each of
/// `liveEndpoints`, then `sleepUninterruptibly(shutdown_announce_in_ms = 2000)` while the
/// scheduled GossipTask keeps running, then `scheduledGossipTask.cancel`), and only then
/// `MessagingService.shutdown` (`SocketThread.close`: the server socket and every accepted
/// connection; every pool's `close`). The stopping node gossips for 2 s after the announcement;
/// a connection attempt after the drain is refused.
#[test]
fn drain_announces_then_keeps_gossiping_for_two_seconds_then_closes_messaging() {
    let mut r = run_311(&["A", "B", "C"], "", "", "1m");
    until(&mut r, 20 * US_PER_S);
    act(&mut r, Action::Stop { node: "B".into() });
    until(&mut r, 40 * US_PER_S);
    let announced = logged(&r, B, "Announcing shutdown");
    assert_eq!(announced, vec![20 * US_PER_S]);
    let shutdowns: Vec<(Micros, u32)> = r
        .trace()
        .recs
        .iter()
        .filter_map(|rec| match rec.kind {
            RecKind::Send { to, label, .. } if rec.node == B && label == "GOSSIP_SHUTDOWN" => {
                Some((rec.time, to))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        shutdowns,
        vec![(20 * US_PER_S, A), (20 * US_PER_S, C)],
        "one GOSSIP_SHUTDOWN to each live endpoint"
    );
    // The GossipTask still runs in the 2 s sleep: one round a second, at least a SYN each.
    let window: u64 = syns_sent(&r, B, 3, 20 * US_PER_S + 1, 22 * US_PER_S)
        .iter()
        .sum();
    assert!(window >= 2, "B's SYNs between announce and drain: {window}");
    let after: u64 = syns_sent(&r, B, 3, 22 * US_PER_S + 1, 40 * US_PER_S)
        .iter()
        .sum();
    assert_eq!(after, 0, "the gossip task is cancelled");
    assert_eq!(status(&r, B), crate::engine::NodeStatus::Stopped);
    // After the drain, A's next SYN to B (unreachable: every other round on average) finds
    // the port closed.
    let refused = logged(&r, A, "Connection to /B (gossip) refused or reset");
    assert!(
        refused.iter().any(|&t| t > 22 * US_PER_S),
        "a reconnect after the drain is refused: {refused:?}"
    );
    assert!(refused.iter().all(|&t| t > 22 * US_PER_S), "{refused:?}");
}

/// `handleMajorStateChange` runs the subscribers' `onRestart(ep, localEpState)` with the *old*
/// state; `StorageService.onRestart`: "If we have restarted before the node was even marked
/// down, we need to reset the connection pool" (`if (state.isAlive()) onDead(...)`). A peer that
/// was already marked down keeps its pool as it is — the half-open `small` of CASSANDRA-15138
/// survives the restart that way.
#[test]
fn a_new_generation_resets_the_pool_only_if_the_old_state_was_alive() {
    // 3 s down (kill -9): A still holds B alive when the new generation comes.
    let mut r = run_311(&["A", "B", "C"], "", "", "2m");
    until(&mut r, 20 * US_PER_S);
    act(
        &mut r,
        Action::Restart {
            node: "B".into(),
            kill: true,
            down_for: Some(Dur(3 * US_PER_S)),
        },
    );
    until(&mut r, 30 * US_PER_S);
    let restarted = logged(&r, A, "Node /B has restarted, now UP");
    assert_eq!(restarted.len(), 1);
    assert!(logged(&r, A, "InetAddress /B is now DOWN").is_empty());
    let resets = logged(&r, A, "Resetting outbound connections to /B");
    assert!(
        resets.contains(&restarted[0]),
        "onRestart reset at the new generation: {resets:?} vs {restarted:?}"
    );

    // 40 s down: A convicts B first (phi), which resets the pool; at the new generation B is
    // not alive, so no second reset there.
    let mut r = run_311(&["A", "B", "C"], "", "", "2m");
    until(&mut r, 20 * US_PER_S);
    act(
        &mut r,
        Action::Restart {
            node: "B".into(),
            kill: true,
            down_for: Some(Dur(40 * US_PER_S)),
        },
    );
    until(&mut r, 75 * US_PER_S);
    let restarted = logged(&r, A, "Node /B has restarted, now UP");
    let down = logged(&r, A, "InetAddress /B is now DOWN");
    assert_eq!(restarted.len(), 1);
    assert_eq!(down.len(), 1);
    assert!(down[0] < restarted[0]);
    let resets = logged(&r, A, "Resetting outbound connections to /B");
    assert!(
        !resets.contains(&restarted[0]),
        "{resets:?} vs {restarted:?}"
    );
    assert!(node(&r, A).sees_up(B));
}

/// `GossipShutdownVerbHandler.doVerb`: "Ignoring shutdown message from {} because gossip is
/// disabled" when `!Gossiper.instance.isEnabled()` (the gossip task cancelled, e.g. by nodetool
/// disablegossip): the announcement neither marks the sender down nor resets the pool.
#[test]
fn a_node_with_gossip_disabled_ignores_a_shutdown_announcement() {
    let mut r = run_311(&["A", "B", "C"], "", "", "1m");
    until(&mut r, 20 * US_PER_S);
    // A's own announcement must not reach B (B would mark A down and not announce to it).
    act(
        &mut r,
        Action::DropLink {
            from: "A".into(),
            to: "B".into(),
            one_way: true,
            down_for: None,
        },
    );
    act(
        &mut r,
        Action::Command {
            node: "A".into(),
            command: "disablegossip".into(),
        },
    );
    until(&mut r, 25 * US_PER_S);
    assert!(!node(&r, A).enabled);
    assert!(node(&r, B).sees_up(A), "B never got A's announcement");
    act(&mut r, Action::Stop { node: "B".into() });
    until(&mut r, 30 * US_PER_S);
    let to_a = r.trace().recs.iter().any(|rec| {
        matches!(rec.kind, RecKind::Send { to, label, .. }
            if rec.node == B && to == A && label == "GOSSIP_SHUTDOWN")
    });
    assert!(to_a, "B announced to A");
    assert!(logged(&r, A, "InetAddress /B is now DOWN").is_empty());
    assert!(node(&r, A).sees_up(B), "A ignored it");
    assert!(!node(&r, A).state(B).unwrap().is_shutdown());
    // C, gossip enabled, took it.
    assert_eq!(logged(&r, C, "InetAddress /B is now DOWN").len(), 1);
}

/// `StorageService.drain` calls `Gossiper.stop` whether or not gossip is still running, and
/// `Gossiper.stop` announces unless the local STATUS is a silent-shutdown state
/// (`isSilentShutdownState`: the dead states and bootstrapping; `shutdown` is none of them):
/// a node stopped after `nodetool disablegossip` (`stopGossiping` -> `Gossiper.stop`, the first
/// announcement) announces a second time to the `liveEndpoints` it still holds and sleeps
/// another 2 s before `MessagingService.shutdown`. A peer that gets the second announcement runs
/// `markAsShutdown` -> `markDead` -> `onDead` again, resetting its pool to the node once more.
#[test]
fn a_drain_after_disablegossip_announces_again_and_waits_two_seconds() {
    let mut r = run_311(&["A", "B", "C"], "", "", "1m");
    until(&mut r, 20 * US_PER_S);
    act(
        &mut r,
        Action::Command {
            node: "B".into(),
            command: "disablegossip".into(),
        },
    );
    until(&mut r, 30 * US_PER_S);
    assert!(!node(&r, B).enabled);
    // A marked B down at 20 s; its SYN to unreachable B is ignored by B (gossip disabled) but
    // reopens A's `gossip` connection, which B accepts (its messaging is still up).
    act(&mut r, Action::Stop { node: "B".into() });
    until(&mut r, 31 * US_PER_S);
    assert_eq!(
        logged(&r, B, "Announcing shutdown"),
        vec![20 * US_PER_S, 30 * US_PER_S],
        "drain's Gossiper.stop announces again"
    );
    let second: Vec<u32> = r
        .trace()
        .recs
        .iter()
        .filter_map(|rec| match rec.kind {
            RecKind::Send { to, label, .. }
                if rec.node == B && label == "GOSSIP_SHUTDOWN" && rec.time == 30 * US_PER_S =>
            {
                Some(to)
            }
            _ => None,
        })
        .collect();
    assert_eq!(second, vec![A, C], "to the live endpoints B still holds");
    assert_eq!(
        status(&r, B),
        crate::engine::NodeStatus::Stopping,
        "sleeping shutdown_announce_in_ms before MessagingService.shutdown"
    );
    let down = logged(&r, A, "InetAddress /B is now DOWN");
    assert_eq!(down.len(), 2, "markAsShutdown -> markDead again: {down:?}");
    until(&mut r, 33 * US_PER_S);
    assert_eq!(status(&r, B), crate::engine::NodeStatus::Stopped);
}
