//! The GossipTasks thread against a stalled or behind GossipStage, as the code runs it (read in
//! the 5.0 and trunk `Gossiper.java`, 4.0+ `FailureDetector.java`; 3.11's `convict` for the
//! contrast): `doStatusCheck`'s 100 ms second look, `convict` through
//! `runInGossipStageBlocking`, and `scheduleWithFixedDelay` carrying every wait into the next
//! round. See `status.rs`.

use super::tests_code::{act, logged, node, run, until, A, C};
use crate::engine::action::Action;
use crate::engine::trace::RecKind;
use crate::runner::Run;
use crate::time::{Micros, US_PER_MS, US_PER_S};

fn stall(r: &mut Run, n: &str) {
    act(
        r,
        Action::Stall {
            node: n.into(),
            executor: "GossipStage".into(),
        },
    );
}

fn release(r: &mut Run, n: &str) {
    act(
        r,
        Action::Release {
            node: n.into(),
            executor: "GossipStage".into(),
        },
    );
}

/// Times at which `from` sent a SYN (or its link dropped it as it left; a drop at the
/// destination is recorded there, after its send).
fn syn_times(r: &Run, from: u32) -> Vec<Micros> {
    r.trace()
        .recs
        .iter()
        .filter_map(|rec| match rec.kind {
            RecKind::Send { label, .. } if rec.node == from && label == "SYN" => Some(rec.time),
            RecKind::Drop { from: f, label, .. }
                if f == from && rec.node == from && label == "SYN" =>
            {
                Some(rec.time)
            }
            _ => None,
        })
        .collect()
}

/// GossipStage tasks labelled `label` that `n` started in [t0, t1).
fn tasks_started(r: &Run, n: u32, label: &str, t0: Micros, t1: Micros) -> usize {
    r.trace()
        .recs
        .iter()
        .filter(|rec| {
            rec.node == n
                && (t0..t1).contains(&rec.time)
                && matches!(rec.kind, RecKind::TaskStart { exec: 0, label: l, .. } if l == label)
        })
        .count()
}

/// `n`'s own heartbeat version.
fn own_heartbeat(r: &Run, n: u32) -> u32 {
    node(r, n).state(n).expect("a node knows itself").hb.version
}

/// When A (3 nodes, 1 s gossip) convicts B, killed at 60 s, with `params`.
fn conviction_time(params: &str) -> Micros {
    let mut r = run(&["A", "B", "C"], &["A"], params, "", "2m");
    until(&mut r, 60 * US_PER_S);
    act(&mut r, Action::Kill { node: "B".into() });
    until(&mut r, 100 * US_PER_S);
    logged(&r, A, "InetAddress /B is now DOWN")[0]
}

/// A's run (3 nodes, 1 s gossip, B killed at 60 s) with A's GossipStage stalled 1 ms before
/// the round whose status check convicts B, and that time.
fn stalled_before_conviction() -> (Run, Micros) {
    let down = conviction_time("");
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "2m");
    until(&mut r, 60 * US_PER_S);
    act(&mut r, Action::Kill { node: "B".into() });
    let t = down - US_PER_MS;
    until(&mut r, t);
    stall(&mut r, "A");
    (r, t)
}

/// Since 4.0 `Gossiper.convict` runs its body through `runInGossipStageBlocking`: a `FutureTask`
/// on `Stage.GOSSIP`, then `task.get()` on the GossipTasks thread, inside `doStatusCheck`. With
/// A's GossipStage stalled just before the status check that convicts B (killed), B is marked
/// DOWN only when the stage runs again, and until then A's gossip task is stuck: no heartbeat
/// bump, no SYN. After the stage runs the conviction, the check ends and the next round starts
/// one interval later (`scheduleWithFixedDelay`).
#[test]
fn a_conviction_waits_for_the_stalled_gossip_stage_and_the_gossip_task_with_it() {
    let (mut r, t) = stalled_before_conviction();
    until(&mut r, t + 500 * US_PER_MS);
    assert!(
        logged(&r, A, "skipping status check").is_empty(),
        "the check itself ran (the stage was not yet behind)"
    );
    let hb = own_heartbeat(&r, A);
    let c_sees = node(&r, C).state(A).unwrap().hb.version;
    let released = t + 6 * US_PER_S;
    until(&mut r, released);
    assert!(
        logged(&r, A, "InetAddress /B is now DOWN").is_empty(),
        "B is marked DOWN on the GossipStage, which is stalled"
    );
    assert_eq!(
        own_heartbeat(&r, A),
        hb,
        "the gossip task waits in convict: A's heartbeat is not bumped"
    );
    let syns = syn_times(&r, A);
    assert!(
        !syns.iter().any(|&s| s > t + 500 * US_PER_MS),
        "A sends no SYN while its gossip task waits: {syns:?}"
    );
    assert_eq!(
        node(&r, C).state(A).unwrap().hb.version,
        c_sees,
        "C learns no newer heartbeat of A meanwhile"
    );
    release(&mut r, "A");
    until(&mut r, released + 3 * US_PER_S);
    let downs = logged(&r, A, "InetAddress /B is now DOWN");
    assert_eq!(downs.len(), 1);
    assert!(
        (released..released + 50 * US_PER_MS).contains(&downs[0]),
        "convicted when the stage runs again: {} us after the release",
        downs[0] - released
    );
    let next = syns.len();
    let syns = syn_times(&r, A);
    assert_eq!(
        syns[next],
        downs[0] + US_PER_S,
        "the next round starts one interval after the check ended (fixed delay)"
    );
    assert!(own_heartbeat(&r, A) > hb, "and bumps the heartbeat again");
}

/// The body checks `epState.isAlive()` only once the stage runs it, so a peer that stays
/// silent after its conviction costs a `convict` task on the GossipStage at every status check
/// (phi stays over the threshold), each waited for. 3.11's `convict` runs on the GossipTasks
/// thread itself: no stage task, and B is marked DOWN although A's stage is stalled.
#[test]
fn a_silent_peer_costs_a_gossip_stage_task_every_round_since_4_0_and_none_in_3_11() {
    let down = conviction_time("");
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "2m");
    until(&mut r, 60 * US_PER_S);
    act(&mut r, Action::Kill { node: "B".into() });
    until(&mut r, down + 11 * US_PER_S);
    let n = tasks_started(
        &r,
        A,
        "convict",
        down + 500 * US_PER_MS,
        down + 10_500 * US_PER_MS,
    );
    assert!(
        (9..=10).contains(&n),
        "one convict task a round for B, already DOWN: {n} in 10 s"
    );
    assert_eq!(logged(&r, A, "InetAddress /B is now DOWN").len(), 1);

    let v3 = "messaging = \"3.x\"";
    let down = conviction_time(v3);
    let mut r = run(&["A", "B", "C"], &["A"], v3, "", "2m");
    until(&mut r, 60 * US_PER_S);
    act(&mut r, Action::Kill { node: "B".into() });
    let t = down - US_PER_MS;
    until(&mut r, t);
    stall(&mut r, "A");
    let hb = own_heartbeat(&r, A);
    until(&mut r, t + 3 * US_PER_S);
    assert_eq!(
        logged(&r, A, "InetAddress /B is now DOWN"),
        vec![down],
        "3.11 convicts on the GossipTasks thread, stage stalled or not"
    );
    assert_eq!(tasks_started(&r, A, "convict", 0, u64::MAX), 0);
    assert!(own_heartbeat(&r, A) >= hb + 2, "and keeps gossiping");
}

/// `doStatusCheck`, GossipStage behind (tasks pending, the last gossip message processed was
/// created over a second before `now`): "give the executor some time" — the GossipTasks thread
/// sleeps 100 ms, then skips if still behind. So each skip is logged 100 ms after its round's
/// SYNs, and with `scheduleWithFixedDelay` the rounds of a node whose stage is stalled come
/// every 1.1 s, not every second.
#[test]
fn a_skipped_status_check_sleeps_100_ms_first_and_the_rounds_run_late_by_it() {
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "1m");
    until(&mut r, 10 * US_PER_S);
    stall(&mut r, "A");
    until(&mut r, 26 * US_PER_S);
    let skips: Vec<Micros> = logged(&r, A, "skipping status check");
    let skips: Vec<Micros> = skips.into_iter().filter(|&s| s > 12 * US_PER_S).collect();
    assert!(skips.len() >= 12, "{skips:?}");
    for w in skips.windows(2) {
        assert_eq!(w[1] - w[0], 1_100_000, "a round every 1.1 s: {skips:?}");
    }
    let syns = syn_times(&r, A);
    for &s in &skips {
        assert!(
            syns.contains(&(s - 100 * US_PER_MS)),
            "the skip at {s} comes 100 ms after its round's SYN"
        );
    }
    assert!(
        syns.iter()
            .filter(|&&s| (12 * US_PER_S..25 * US_PER_S).contains(&s))
            .all(|s| skips.contains(&(s + 100 * US_PER_MS))),
        "every round of the stall ends in a skip"
    );
}

/// The second look lets the check through when the stage catches up within the 100 ms: here
/// A's stage, stalled for ten seconds, is released 50 ms into the sleep; it drains its backlog,
/// the last message it processes was created after the check's `now` minus a second, and the
/// check runs at once. Its first `interpret` finds ten seconds since the last one (every check of
/// the stall was skipped) and trips the local-pause guard, 100 ms after the round began, where
/// an immediate skip would have left it to the next round.
#[test]
fn the_second_look_lets_the_check_through_when_the_stage_catches_up_within_100_ms() {
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "1m");
    until(&mut r, 10 * US_PER_S);
    stall(&mut r, "A");
    until(&mut r, 26 * US_PER_S);
    let skip = *logged(&r, A, "skipping status check")
        .iter()
        .find(|&&s| s > 20 * US_PER_S)
        .expect("a skipped check after 20 s");
    // The round's start: its SYNs.
    let t = *syn_times(&r, A).iter().rev().find(|&&s| s <= skip).unwrap();

    let mut r = run(&["A", "B", "C"], &["A"], "", "", "1m");
    until(&mut r, 10 * US_PER_S);
    stall(&mut r, "A");
    until(&mut r, t + 50 * US_PER_MS);
    assert!(
        r.sim_of::<super::Gossip>().unwrap().nodes[A as usize].exec_stats[0].pending > 0,
        "a backlog at the release"
    );
    release(&mut r, "A");
    until(&mut r, t + 500 * US_PER_MS);
    assert!(
        !logged(&r, A, "skipping status check").contains(&skip),
        "the second look no longer finds the stage behind"
    );
    assert_eq!(
        logged(&r, A, "Not marking nodes down due to local pause")
            .into_iter()
            .filter(|&p| p > t)
            .collect::<Vec<_>>(),
        vec![t + 100 * US_PER_MS],
        "the check ran after the sleep"
    );
}

/// Times at which `from` sent a message labelled `label`.
fn sends(r: &Run, from: u32, label: &str) -> Vec<Micros> {
    r.trace()
        .recs
        .iter()
        .filter_map(|rec| match rec.kind {
            RecKind::Send { label: l, .. } if rec.node == from && l == label => Some(rec.time),
            _ => None,
        })
        .collect()
}

/// `Gossiper.stop` logs "Announcing shutdown", then sets STATUS=shutdown through
/// `addLocalApplicationState`, which takes `taskLock`; `GossipTask.run` holds that lock for its
/// whole round, so a drain of a node whose gossip task waits for a convict on its stalled
/// GossipStage waits too: no STATUS=shutdown, no GOSSIP_SHUTDOWN, no exit, until the stage runs
/// the convict and the round ends. Then the announcement goes out and the node exits the
/// announce delay (2 s) later.
#[test]
fn a_drain_waits_for_the_gossip_task_that_waits_for_the_stalled_stage() {
    let (mut r, t) = stalled_before_conviction();
    let drain = t + US_PER_S;
    until(&mut r, drain);
    act(&mut r, Action::Stop { node: "A".into() });
    let released = drain + 5 * US_PER_S;
    until(&mut r, released);
    assert_eq!(logged(&r, A, "Announcing shutdown"), vec![drain]);
    assert!(
        sends(&r, A, "GOSSIP_SHUTDOWN").is_empty(),
        "the GOSSIP_SHUTDOWN waits for taskLock"
    );
    assert!(
        !node(&r, A).state(A).unwrap().is_shutdown(),
        "STATUS=shutdown is set under taskLock, which the waiting gossip task holds"
    );
    assert!(
        !node(&r, C).state(A).unwrap().is_shutdown(),
        "C learns nothing of the stop"
    );
    release(&mut r, "A");
    until(&mut r, released + 3 * US_PER_S);
    let downs = logged(&r, A, "InetAddress /B is now DOWN");
    assert_eq!(downs.len(), 1, "the stage runs the convict");
    let shut = sends(&r, A, "GOSSIP_SHUTDOWN");
    assert_eq!(
        shut,
        vec![downs[0]],
        "the announcement goes out when the round that waited ends (C is the only live peer)"
    );
    assert!(
        node(&r, C).state(A).unwrap().is_shutdown(),
        "C now sees A's shutdown"
    );
    let status = |r: &Run| r.sim_of::<super::Gossip>().unwrap().nodes[A as usize].status;
    assert_ne!(
        status(&r),
        crate::engine::NodeStatus::Running,
        "A exited the announce delay after its announcement"
    );
}

/// Without a wait the drain announces at once (the lock is free between rounds).
#[test]
fn a_drain_between_rounds_announces_at_once() {
    let mut r = run(&["A", "B", "C"], &["A"], "", "", "1m");
    let drain = 20 * US_PER_S + 300 * US_PER_MS;
    until(&mut r, drain);
    act(&mut r, Action::Stop { node: "A".into() });
    until(&mut r, drain + US_PER_S);
    assert_eq!(logged(&r, A, "Announcing shutdown"), vec![drain]);
    assert_eq!(sends(&r, A, "GOSSIP_SHUTDOWN").len(), 2, "to B and C");
    assert!(sends(&r, A, "GOSSIP_SHUTDOWN").iter().all(|&s| s == drain));
}
