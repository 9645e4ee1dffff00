//! One test per rule of the model that the scenarios only show in passing: the retry cache,
//! redirect and retry elsewhere, the bound on outstanding appends, the leader's step-down on a
//! lost majority, the leader's own entry counting only once flushed, and the timeout presets.

use super::node::{Payload, Role};
use super::params::RaftParams;
use super::tests::{act, drop_link, engine, leader, name, run_for};
use super::RaftKv;
use crate::engine::action::Action;
use crate::engine::{Engine, NodeId};
use crate::time::{US_PER_MS, US_PER_S};

fn put(e: &mut Engine<RaftKv>, node: NodeId, kv: &str) {
    let node = name(e, node);
    act(
        e,
        Action::Command {
            node,
            command: format!("client-put {kv}"),
        },
    );
}

fn exec(e: &mut Engine<RaftKv>, node: NodeId, executor: &str, stall: bool) {
    let node = name(e, node);
    let executor = executor.to_string();
    act(
        e,
        if stall {
            Action::Stall { node, executor }
        } else {
            Action::Release { node, executor }
        },
    );
}

/// Log entries of `client`'s request `seq` in `node`'s log.
fn copies(e: &Engine<RaftKv>, node: NodeId, client: NodeId, seq: u64) -> usize {
    e.sim.nodes[node as usize]
        .state
        .log
        .iter()
        .filter(|x| matches!(x.payload, Payload::Client { client: c, seq: s, .. } if c == client && s == seq))
        .count()
}

/// The leader appends and applies a request; its reply is lost; the client times out, asks
/// another server, is redirected back, and the retry cache answers it: one entry, one ack.
#[test]
fn retry_cache_answers_a_retried_request_without_a_second_entry() {
    let mut e = engine(3, "", 1);
    run_for(&mut e, US_PER_S);
    let l = leader(&e);
    let f = (l + 1) % 3;
    put(&mut e, f, "x 1"); // the client learns who leads
    run_for(&mut e, US_PER_S);
    assert_eq!(e.sim.nodes[f as usize].state.client.target, l);
    let acked = e.sim.nodes[f as usize].state.client.acked;
    // Replies (and AppendEntries) from the leader to f are lost for 2 s: the other follower
    // keeps the majority, and pre-vote keeps f from disrupting it.
    let (ln, fname) = (name(&e, l), name(&e, f));
    act(
        &mut e,
        Action::DropLink {
            from: ln.clone(),
            to: fname.clone(),
            one_way: true,
            down_for: None,
        },
    );
    put(&mut e, f, "x 2");
    let seq = e.sim.nodes[f as usize].state.client.next_seq - 1;
    run_for(&mut e, 2 * US_PER_S);
    assert_eq!(copies(&e, l, f, seq), 1, "appended once");
    assert!(e.sim.nodes[l as usize].state.applied >= e.sim.nodes[l as usize].state.last());
    assert_eq!(
        e.sim.nodes[f as usize].state.client.acked, acked,
        "reply lost"
    );
    act(
        &mut e,
        Action::HealLink {
            from: ln,
            to: fname,
            one_way: true,
        },
    );
    run_for(&mut e, 3 * US_PER_S);
    let c = &e.sim.nodes[f as usize].state.client;
    assert_eq!(c.acked, acked + 1, "the retry is answered");
    assert!(
        c.lat_last >= 3 * US_PER_S,
        "answered after the request timeout, by a retry ({} us)",
        c.lat_last
    );
    assert_eq!(leader(&e), l);
    assert_eq!(
        copies(&e, l, f, seq),
        1,
        "the retry cache kept it to one entry"
    );
}

/// The client's leader dies: after `client_timeout` (Ratis' client's own timeout, not the
/// server's `request_timeout`) the client tries the next server, is redirected to the new
/// leader and gets its answer.
#[test]
fn client_retries_elsewhere_when_its_leader_dies() {
    for (params, timeout) in [
        ("", 3 * US_PER_S),
        ("client_timeout = \"5s\"", 5 * US_PER_S),
    ] {
        client_retry_case(params, timeout);
    }
}

fn client_retry_case(params: &str, timeout: u64) {
    let mut e = engine(3, params, 2);
    run_for(&mut e, US_PER_S);
    let l = leader(&e);
    let f = (l + 1) % 3;
    put(&mut e, f, "x 1");
    run_for(&mut e, US_PER_S);
    assert_eq!(e.sim.nodes[f as usize].state.client.target, l);
    let ln = name(&e, l);
    act(&mut e, Action::Kill { node: ln });
    put(&mut e, f, "y 2");
    run_for(&mut e, timeout - 100 * US_PER_MS);
    let c = &e.sim.nodes[f as usize].state.client;
    assert_eq!(
        (c.acked, c.target),
        (1, l),
        "{params}: no retry before {timeout} us"
    );
    run_for(&mut e, 3 * US_PER_S);
    let nl = leader(&e);
    assert_ne!(nl, l);
    let c = &e.sim.nodes[f as usize].state.client;
    assert_eq!(
        (c.acked, c.target, c.outstanding.len()),
        (2, nl, 0),
        "{params}"
    );
    assert!(c.lat_last >= timeout, "{params}: {}", c.lat_last);
}

/// A follower that never answers (its LogWorker stalled: it replies after the flush) has at
/// most `max_outstanding` AppendEntries in flight, and the leader does reach that bound.
#[test]
fn outstanding_appends_per_follower_are_bounded() {
    let mut e = engine(
        3,
        "client_rate = 200\nmax_outstanding = 3\nappend_batch = 4",
        3,
    );
    run_for(&mut e, US_PER_S);
    let l = leader(&e);
    let f = (l + 1) % 3;
    exec(&mut e, f, "LogWorker", true);
    let mut most = 0;
    let end = e.sim.now + 2 * US_PER_S;
    while e.sim.now < end {
        assert!(e.step().unwrap());
        let n = &e.sim.nodes[l as usize].state;
        assert!(n.is_leader());
        most = most.max(n.progress[f as usize].outstanding.len());
        assert!(most <= 3, "{most} appends in flight to a silent follower");
    }
    assert_eq!(most, 3, "the bound is reached");
    // The other follower keeps up: commit goes on.
    let n = &e.sim.nodes[l as usize].state;
    assert!(
        n.commit + 8 >= n.last(),
        "commit {} last {}",
        n.commit,
        n.last()
    );
}

/// After 1 s of a 5-node cluster, its leader cut off from every follower: the leader and its
/// term.
fn cut_off_leader(e: &mut Engine<RaftKv>) -> (NodeId, super::Term) {
    run_for(e, US_PER_S);
    let l = leader(e);
    let term = e.sim.nodes[l as usize].state.term;
    let rest: Vec<String> = (0..5).filter(|&i| i != l).map(|i| name(e, i)).collect();
    let ln = name(e, l);
    act(
        e,
        Action::Partition {
            groups: vec![vec![ln], rest],
            down_for: None,
        },
    );
    (l, term)
}

/// A leader cut off from every follower steps down without hearing a higher term (Ratis'
/// checkLeadership: its EventProcessor's poll found no event for `timeout_max`, and no
/// majority answered within it, so between max and 2 x max after the cut); with the check off
/// it stays leader.
#[test]
fn leader_steps_down_when_it_loses_its_majority() {
    for check in [true, false] {
        let mut e = engine(5, &format!("leader_heartbeat_check = {check}"), 4);
        let (l, term) = cut_off_leader(&mut e);
        // The check runs every timeout_max (300 ms) while no event comes: the first one more
        // than max after the last answers is at most 2 x max after the cut.
        run_for(&mut e, 650 * US_PER_MS);
        let n = &e.sim.nodes[l as usize].state;
        assert_eq!(n.term, term, "no higher term reached it");
        if check {
            assert_eq!(n.role, Role::Follower, "stepped down on its own");
        } else {
            assert_eq!(n.role, Role::Leader, "the check is off");
        }
        run_for(&mut e, US_PER_S);
        let others: Vec<_> = RaftKv::leaders(&e.sim)
            .into_iter()
            .filter(|&(x, _)| x != l)
            .collect();
        assert_eq!(others.len(), 1, "the majority elected a leader: {others:?}");
        assert_eq!(e.sim.violations, 0);
    }
}

/// Ratis runs `checkLeadership` only when its EventProcessor's `poll(maxTimeout)` returns no
/// event, and the leader's own flush of each appended entry submits one (an UPDATE_COMMIT,
/// `SegmentedRaftLogWorker.postUpdateFlushedIndex`): a leader cut off from every follower but
/// still given a write more often than max never checks, and stays leader of its term; once the
/// writes stop, it steps down within 2 x max.
#[test]
fn writes_to_a_cut_off_leader_put_its_leadership_check_off() {
    let mut e = engine(5, "", 4);
    let (l, term) = cut_off_leader(&mut e);
    // A write every 100 ms for 2 s (max is 300 ms): about 7 x max without a majority.
    for k in 0..20 {
        put(&mut e, l, &format!("k{k} v"));
        run_for(&mut e, 100 * US_PER_MS);
        let n = &e.sim.nodes[l as usize].state;
        assert_eq!(n.role, Role::Leader, "after write {k}: no check ran");
        assert_eq!(n.term, term);
    }
    let n = &e.sim.nodes[l as usize].state;
    assert!(n.last() > n.commit, "its writes wait, uncommitted");
    // Writes stop: the poll runs out after max, the check finds no majority.
    run_for(&mut e, 650 * US_PER_MS);
    let n = &e.sim.nodes[l as usize].state;
    assert_eq!(
        n.role,
        Role::Follower,
        "stepped down once its queue stayed empty"
    );
    assert_eq!(n.term, term, "on its own, not for a higher term");
    assert_eq!(e.sim.violations, 0);
}

/// Ratis' `VoteContext.checkLeader` asks a leader's `checkLeadership` when a pre-vote reaches
/// it: a leader whose messages to every follower are lost (one way: it still hears them), the
/// followers cut off from each other (so no pre-vote wins), and kept from its EventProcessor's
/// check by a write every 100 ms, refuses the first pre-votes (its followers answered within
/// max) and steps down at its own term at the first pre-vote more than max after their last
/// answers (the model before this refused every pre-vote and led on). With the check off it
/// leads on.
#[test]
fn a_pre_vote_reaching_a_leader_without_a_majority_steps_it_down() {
    for check in [true, false] {
        let mut e = engine(5, &format!("leader_heartbeat_check = {check}"), 4);
        run_for(&mut e, US_PER_S);
        let l = leader(&e);
        let term = e.sim.nodes[l as usize].state.term;
        let answered = (e.sim.nodes[l as usize].state.progress.iter())
            .map(|p| p.last_response)
            .max()
            .unwrap();
        let fs: Vec<NodeId> = (0..5).filter(|&i| i != l).collect();
        for (k, &a) in fs.iter().enumerate() {
            drop_link(&mut e, l, a, true);
            for &b in &fs[k + 1..] {
                drop_link(&mut e, a, b, false);
            }
        }
        // The first time l is no leader, and its term then.
        let mut stepped = None;
        for k in 0..30 {
            put(&mut e, l, &format!("k{k} v"));
            let end = e.sim.now + 100 * US_PER_MS;
            while e.sim.now < end && stepped.is_none() {
                assert!(e.step().unwrap());
                let n = &e.sim.nodes[l as usize].state;
                if !n.is_leader() {
                    stepped = Some((e.sim.now, n.term));
                }
            }
            if stepped.is_some() {
                break;
            }
        }
        if check {
            let (at, t) = stepped.expect("the leader stepped down within 3 s");
            assert_eq!(t, term, "at {at}: on its own, at its own term");
            assert!(
                at > answered + 300 * US_PER_MS,
                "at {at}: not before max after the followers' last answers ({answered})"
            );
        } else {
            assert_eq!(stepped, None, "the check is off: it leads on");
        }
        assert_eq!(e.sim.violations, 0);
    }
}

/// The leader's own entry counts toward commit only once its LogWorker flushed it: with one of
/// two followers down and the leader's LogWorker stalled, the other follower holds the entries
/// but nothing commits; released, they commit.
#[test]
fn leader_entry_counts_for_commit_only_once_flushed() {
    let mut e = engine(3, "", 5);
    run_for(&mut e, US_PER_S);
    let l = leader(&e);
    let (f1, f2) = ((l + 1) % 3, (l + 2) % 3);
    let f2n = name(&e, f2);
    act(&mut e, Action::Kill { node: f2n });
    exec(&mut e, l, "LogWorker", true);
    let commit = e.sim.nodes[l as usize].state.commit;
    for k in 0..5 {
        put(&mut e, l, &format!("k{k} v"));
    }
    run_for(&mut e, US_PER_S);
    let n = &e.sim.nodes[l as usize].state;
    assert!(n.is_leader());
    assert!(
        n.progress[f1 as usize].matched >= commit + 5,
        "the follower holds the entries (match {}, commit {commit})",
        n.progress[f1 as usize].matched
    );
    assert!(n.flush <= commit, "nothing flushed on the leader");
    assert_eq!(n.commit, commit, "not committed without the leader's flush");
    exec(&mut e, l, "LogWorker", false);
    run_for(&mut e, US_PER_S);
    let n = &e.sim.nodes[l as usize].state;
    assert!(
        n.commit >= commit + 5,
        "committed once flushed ({})",
        n.commit
    );
    assert_eq!(e.sim.nodes[l as usize].state.client.acked, 5);
}

/// The presets: Ozone's 5 s - 5.2 s election timeout and the teaching 1.5 s - 3 s, and an
/// explicit key over a preset.
#[test]
fn timeout_presets() {
    let p = |s: &str| RaftParams::from_table(toml::from_str(s).unwrap()).unwrap();
    let o = p("preset = \"ozone\"");
    assert_eq!(
        (o.timeout_min.0, o.timeout_max.0),
        (5 * US_PER_S, 5200 * US_PER_MS)
    );
    let t = p("preset = \"teaching\"");
    assert_eq!(
        (t.timeout_min.0, t.timeout_max.0),
        (1500 * US_PER_MS, 3 * US_PER_S)
    );
    let x = p("preset = \"ozone\"\ntimeout_max = \"6s\"");
    assert_eq!(
        (x.timeout_min.0, x.timeout_max.0),
        (5 * US_PER_S, 6 * US_PER_S)
    );
    for (preset, min, max) in [
        ("ozone", 5 * US_PER_S, 5200 * US_PER_MS),
        ("teaching", 1500 * US_PER_MS, 3 * US_PER_S),
    ] {
        for seed in 0..5 {
            let mut e = engine(3, &format!("preset = \"{preset}\""), seed);
            e.run_until(min - 10 * US_PER_MS, u64::MAX).unwrap();
            assert!(
                e.sim.nodes.iter().all(|s| s.state.elections == 0),
                "{preset}: no election before {min} us"
            );
            // Every timer was drawn in [min, max] from the start.
            for s in &e.sim.nodes {
                let d = s.state.election_deadline;
                assert!(
                    (min..=max).contains(&d),
                    "{preset} seed {seed}: deadline {d}"
                );
            }
            e.run_until(max + 200 * US_PER_MS, u64::MAX).unwrap();
            assert_eq!(RaftKv::leaders(&e.sim).len(), 1, "{preset} seed {seed}");
        }
    }
}

/// The retry cache expires from a time-ordered queue (`RNode::retry_expiry`) instead of a walk
/// over the whole cache: every completed reply in the cache has its item in the queue, the queue
/// is in time order, and after each expiry point (every 64th applied entry) no completed reply
/// older than the expiry time is left, while younger ones and pending requests stay. With a
/// short expiry, a busy client and a leader killed on the way (its cache starts afresh).
#[test]
fn retry_cache_expires_exactly_what_is_due_in_time_order() {
    use super::node::Cached;
    let mut e = engine(3, "client_rate = 200\nretry_cache_expiry = \"300ms\"", 3);
    let exp = 300 * US_PER_MS;
    let (mut expired_points, mut kept_young) = (0, 0);
    let mut killed = false;
    while e.sim.now < 4 * US_PER_S {
        if !killed && e.sim.now >= 2 * US_PER_S {
            let l = leader(&e);
            let node = name(&e, l);
            act(&mut e, Action::Kill { node });
            killed = true;
        }
        let before: Vec<u64> = e.sim.nodes.iter().map(|s| s.state.applied).collect();
        if !e.step().unwrap() {
            break;
        }
        let now = e.sim.now;
        for (k, s) in e.sim.nodes.iter().enumerate() {
            let n = &s.state;
            assert!(
                n.retry_expiry
                    .iter()
                    .zip(n.retry_expiry.iter().skip(1))
                    .all(|(a, b)| a.0 <= b.0),
                "node {k}: the queue is in time order"
            );
            for (key, c) in &n.retry {
                if let Cached::Done { at, .. } = c {
                    assert!(
                        n.retry_expiry.contains(&(*at, *key)),
                        "node {k}: {key:?} done at {at} has no queue item"
                    );
                }
            }
            if n.applied != before[k] && n.applied.is_multiple_of(64) {
                expired_points += 1;
                for c in n.retry.values() {
                    if let Cached::Done { at, .. } = c {
                        assert!(
                            now < at + exp,
                            "node {k}: a reply due at {} kept at {now}",
                            at + exp
                        );
                        kept_young += 1;
                    }
                }
            }
        }
    }
    assert!(killed);
    assert!(
        expired_points > 10 && kept_young > 100,
        "{expired_points} {kept_young}"
    );
}
