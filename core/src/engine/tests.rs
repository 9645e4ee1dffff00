use super::action::Action;
use super::network::Link;
use super::trace::{DropReason, RecKind};
use super::*;
use crate::limits::Limits;
use crate::pingpong::{topology, PingPong};

fn pp(worker: bool) -> PingPong {
    PingPong {
        use_worker: worker,
        work_us: 1_000,
        deadline_us: None,
        random_target: false,
        serve_on_tick: false,
    }
}

fn engine(
    proto: PingPong,
    n: u32,
    link: Link,
    schedule: Vec<(Micros, Action)>,
    seed: u64,
) -> Engine<PingPong> {
    Engine::new(
        Sim::new(proto, topology(n), link, seed, schedule, Limits::default()),
        true,
        1 << 20,
    )
}

fn lan() -> Link {
    Link::healthy(500, 1_500)
}

#[test]
fn ties_break_by_insertion_order() {
    // Three nodes start at t=0: the Start events run in node order, each a step of its own.
    let mut e = engine(pp(false), 3, Link::healthy(1_000, 1_000), vec![], 1);
    for expected in 0..3u32 {
        e.step().unwrap();
        let r =
            e.trace.recs.iter().find(|r| {
                matches!(r.kind, RecKind::NodeStatus { .. }) && r.step == expected as u64
            });
        assert_eq!(r.unwrap().node, expected);
    }
    // Fixed latency: all three balls are delivered at exactly 1 ms, in send order.
    e.run_until(1_000, 100).unwrap();
    let delivers: Vec<u32> = e
        .trace
        .recs
        .iter()
        .filter_map(|r| match r.kind {
            RecKind::Deliver { from, .. } => Some(from),
            _ => None,
        })
        .collect();
    assert_eq!(delivers, vec![0, 1, 2]);
}

#[test]
fn time_never_goes_backwards_and_ids_are_unique() {
    let mut e = engine(
        PingPong {
            random_target: true,
            ..pp(true)
        },
        5,
        lan(),
        vec![],
        3,
    );
    e.run_until(2_000_000, 1_000_000).unwrap();
    let mut last = 0;
    let mut sent = std::collections::BTreeSet::new();
    for r in &e.trace.recs {
        assert!(r.time >= last);
        last = r.time;
        if let RecKind::Send { msg, .. } = r.kind {
            assert!(sent.insert(msg), "message id {msg} sent twice");
        }
    }
    assert!(sent.len() > 1000);
}

#[test]
fn link_down_and_loss_drop_with_reasons() {
    let sched = vec![(
        0,
        Action::DropLink {
            from: "n0".into(),
            to: "n1".into(),
            one_way: true,
            down_for: None,
        },
    )];
    let mut e = engine(pp(false), 2, lan(), sched, 1);
    e.run_until(10_000, 1000).unwrap();
    let drops: Vec<DropReason> = e
        .trace
        .recs
        .iter()
        .filter_map(|r| match r.kind {
            RecKind::Drop {
                reason, from: 0, ..
            } => Some(reason),
            _ => None,
        })
        .collect();
    assert!(
        !drops.is_empty() && drops.iter().all(|d| *d == DropReason::LinkDown),
        "{drops:?}"
    );
    // n1 -> n0 still works (one-way drop).
    assert!(e.sim.nodes[0].state.received >= 1);

    let sched = vec![(
        0,
        Action::SetLoss {
            from: "n0".into(),
            to: "n1".into(),
            loss: 0.5,
            one_way: false,
        },
    )];
    let mut e = engine(
        PingPong {
            random_target: false,
            ..pp(false)
        },
        2,
        lan(),
        sched,
        9,
    );
    // Keep serving the ball by command: count losses over many tries.
    let mut lost = 0;
    let mut total = 0;
    e.run_until(1, 10).unwrap();
    for _ in 0..400 {
        e.apply_user_action(Action::Command {
            node: "n0".into(),
            command: "serve".into(),
        })
        .unwrap();
        total += 1;
    }
    e.run_until(1_000_000, 100_000).unwrap();
    for r in &e.trace.recs {
        if let RecKind::Drop {
            reason: DropReason::Loss,
            ..
        } = r.kind
        {
            lost += 1;
        }
    }
    assert!(total == 400 && lost > 100, "lost {lost}");
}

#[test]
fn partition_and_heal() {
    let sched = vec![
        (
            0,
            Action::Partition {
                groups: vec![vec!["n0".into()], vec!["n1".into(), "n2".into()]],
                down_for: None,
            },
        ),
        (5_000_000, Action::HealAll {}),
    ];
    let mut e = engine(pp(false), 3, lan(), sched, 1);
    e.run_until(1_000_000, 100_000).unwrap();
    assert!(!e.sim.net.link(0, 1).up && !e.sim.net.link(2, 0).up && e.sim.net.link(1, 2).up);
    e.run_until(6_000_000, 100_000).unwrap();
    assert!(e.sim.net.is_healthy());
}

#[test]
fn stall_delay_and_deadline() {
    let mut proto = pp(true);
    proto.deadline_us = Some(50_000);
    let sched = vec![(
        0,
        Action::Stall {
            node: "n1".into(),
            executor: "worker".into(),
        },
    )];
    let mut e = engine(proto, 2, Link::healthy(1_000, 1_000), sched, 1);
    e.run_until(200_000, 1000).unwrap();
    // n1 received balls but the stalled worker never started one.
    let got = e.sim.nodes[1].state.received;
    assert!(got >= 1);
    assert_eq!(e.sim.nodes[1].exec_stats[0].pending as u64, got);
    assert_eq!(e.sim.nodes[1].exec_stats[0].done, 0);
    e.apply_user_action(Action::Release {
        node: "n1".into(),
        executor: "worker".into(),
    })
    .unwrap();
    // Released after the 50 ms deadline: the task is dropped when dequeued, and traced.
    assert!(e
        .trace
        .recs
        .iter()
        .any(|r| matches!(r.kind, RecKind::TaskExpired { .. }) && r.node == 1));
    assert_eq!(e.sim.nodes[1].exec_stats[0].expired, got);

    // Delay: each task takes 1 ms + 9 ms extra.
    let sched = vec![(
        0,
        Action::Delay {
            node: "n1".into(),
            executor: "worker".into(),
            extra: Dur(9_000),
        },
    )];
    let mut e = engine(pp(true), 2, Link::healthy(1_000, 1_000), sched, 1);
    e.run_until(100_000, 10_000).unwrap();
    let starts: Vec<Micros> = e
        .trace
        .recs
        .iter()
        .filter(|r| r.node == 1)
        .filter_map(|r| match r.kind {
            RecKind::TaskDone { .. } => Some(r.time),
            _ => None,
        })
        .collect();
    // n1 got balls at t=1ms (its own start pass from n0) and processes each for 10 ms.
    assert!(starts.len() >= 2);
    assert_eq!(starts[0], 11_000);
}

#[test]
fn restart_and_kill() {
    let sched = vec![
        (
            1_000_000,
            Action::Restart {
                node: "n1".into(),
                kill: false,
                down_for: Some(Dur(2_000_000)),
            },
        ),
        (5_000_000, Action::Kill { node: "n2".into() }),
    ];
    let mut e = engine(pp(false), 3, lan(), sched, 1);
    e.run_until(1_050_000, 1_000_000).unwrap();
    assert_eq!(e.sim.nodes[1].status, NodeStatus::Stopping);
    e.run_until(1_200_000, 1_000_000).unwrap();
    assert_eq!(e.sim.nodes[1].status, NodeStatus::Stopped);
    e.run_until(3_200_000, 1_000_000).unwrap();
    assert_eq!(e.sim.nodes[1].status, NodeStatus::Running);
    assert_eq!(e.sim.nodes[1].incarnation, 2);
    assert_eq!(e.sim.nodes[1].state.starts, 2);
    e.run_until(6_000_000, 1_000_000).unwrap();
    assert_eq!(e.sim.nodes[2].status, NodeStatus::Stopped);
    // Messages to the killed node are dropped with a reason.
    assert!(e.trace.recs.iter().any(|r| matches!(
        r.kind,
        RecKind::Drop {
            to: 2,
            reason: DropReason::NodeStopped,
            ..
        }
    )));
}

#[test]
fn impossible_actions_are_refused_without_changing_anything() {
    let mut e = engine(pp(false), 3, lan(), vec![], 1);
    e.run_until(1_000, 1000).unwrap();
    let before = (e.sim.hash, e.sim.steps, e.trace.recs.len());
    let cases = [
        (Action::Start { node: "n0".into() }, "it is running"),
        (
            Action::DropLink {
                from: "n0".into(),
                to: "n0".into(),
                one_way: false,
                down_for: None,
            },
            "two different nodes",
        ),
        (Action::Stop { node: "zz".into() }, "unknown node \"zz\""),
        (
            Action::Stall {
                node: "n0".into(),
                executor: "apply".into(),
            },
            "unknown executor",
        ),
        (
            Action::SetLoss {
                from: "n0".into(),
                to: "n1".into(),
                loss: 2.0,
                one_way: false,
            },
            "out of range",
        ),
        (
            Action::Command {
                node: "n0".into(),
                command: "explode".into(),
            },
            "unknown command",
        ),
    ];
    for (a, want) in cases {
        let msg = e.apply_user_action(a).unwrap_err().to_string();
        assert!(msg.contains(want), "{msg}");
        assert_eq!((e.sim.hash, e.sim.steps, e.trace.recs.len()), before);
    }
    assert!(e.user_actions.is_empty());
}

fn busy_engine(seed: u64) -> Engine<PingPong> {
    let proto = PingPong {
        random_target: true,
        serve_on_tick: true,
        ..pp(true)
    };
    let sched = vec![
        (
            300_000,
            Action::SetLoss {
                from: "n0".into(),
                to: "n1".into(),
                loss: 0.3,
                one_way: false,
            },
        ),
        (
            700_000,
            Action::Restart {
                node: "n2".into(),
                kill: true,
                down_for: Some(Dur(100_000)),
            },
        ),
    ];
    engine(proto, 4, lan(), sched, seed)
}

#[test]
fn jump_back_then_forward_equals_a_straight_run() {
    let mut straight = busy_engine(5);
    straight.run_until(30_000_000, 10_000_000).unwrap();
    let total = straight.sim.steps;
    assert!(total > 5_000, "got {total} steps");

    let mut e = busy_engine(5);
    e.set_checkpoint_interval(64);
    e.run_until(30_000_000, 10_000_000).unwrap();
    let mut mid = busy_engine(5);
    for target in [total / 3, 17, total - 1, 0, total / 2] {
        e.jump_to_step(target).unwrap();
        assert_eq!(e.sim.steps, target);
        mid.jump_to_step(target).unwrap();
        assert_eq!(
            e.sim.hash, mid.sim.hash,
            "state hash after jumping to {target}"
        );
    }
    // More than MAX_CHECKPOINTS were taken, so thinning ran.
    assert!(e.checkpoint_count() <= MAX_CHECKPOINTS && e.checkpoint_count() > MAX_CHECKPOINTS / 2);
    e.jump_to_step(total).unwrap();
    assert_eq!(e.sim.hash, straight.sim.hash);
    assert_eq!(e.trace.recs, straight.trace.recs);
}

/// Jumping back from the furthest state computed keeps that state as a checkpoint when the
/// budget has room: going back to the end restores it instead of replaying.
#[test]
fn the_furthest_state_is_kept_when_jumping_back() {
    let mut straight = busy_engine(5);
    straight.run_until(30_000_000, 10_000_000).unwrap();
    let total = straight.sim.steps;

    let mut e = busy_engine(5);
    e.set_checkpoint_span(3_000_000);
    e.run_until(30_000_000, 10_000_000).unwrap();
    assert_eq!(e.sim.steps, total);
    let before = e.checkpoint_count();
    let last_kept = e.replay_from(total - 1);
    assert!(
        last_kept < total - 1,
        "the end is a span's replay away: {last_kept}"
    );
    e.jump_to_step(total / 2).unwrap();
    assert_eq!(
        e.checkpoint_count(),
        before + 1,
        "the furthest state is kept"
    );
    assert_eq!(
        e.replay_from(total),
        total,
        "back to the end without a replay"
    );
    e.jump_to_step(total).unwrap();
    assert_eq!(e.sim.hash, straight.sim.hash);
    assert_eq!(e.sim.now, straight.sim.now);
    assert_eq!(e.trace.recs, straight.trace.recs);
    // Leaving it again keeps no second copy; stepping on from it records as before.
    e.jump_to_step(10).unwrap();
    assert_eq!(e.checkpoint_count(), before + 1);
    e.jump_to_step(total).unwrap();
    e.run_until(31_000_000, 10_000_000).unwrap();
    straight.run_until(31_000_000, 10_000_000).unwrap();
    assert_eq!(e.sim.hash, straight.sim.hash);
    assert_eq!(e.trace.recs, straight.trace.recs);

    // No room in the checkpoint budget: nothing is kept, nothing thinned.
    let mut full = busy_engine(5);
    full.set_checkpoint_span(3_000_000);
    full.run_until(30_000_000, 10_000_000).unwrap();
    full.sim.limits.max_checkpoint_bytes = 0;
    let n = full.checkpoint_count();
    full.jump_to_step(total / 2).unwrap();
    assert_eq!(full.checkpoint_count(), n);
    full.jump_to_step(total).unwrap();
    let mut to_total = busy_engine(5);
    to_total
        .run_until_pred(10_000_000, |m| m.sim.steps >= total)
        .unwrap();
    assert_eq!(full.sim.hash, to_total.sim.hash);
}

#[test]
fn forward_jump_via_a_checkpoint_equals_a_straight_run() {
    let mut straight = busy_engine(5);
    straight.run_until(30_000_000, 10_000_000).unwrap();
    let total = straight.sim.steps;

    let mut e = busy_engine(5);
    e.set_checkpoint_interval(64);
    e.run_until(30_000_000, 10_000_000).unwrap();
    e.jump_to_step(10).unwrap();
    // Ahead of the cursor, past checkpoints: replayed from the last checkpoint before the target.
    let target = total - total / 4;
    let from = e.replay_from(target);
    assert!(
        from > 10 && from <= target && target - from < total / 2,
        "from {from}"
    );
    e.jump_to_step(target).unwrap();
    assert_eq!(e.sim.steps, target);
    let mut mid = busy_engine(5);
    mid.run_until_pred(10_000_000, |m| m.sim.steps >= target)
        .unwrap();
    assert_eq!(
        e.sim.hash, mid.sim.hash,
        "state hash after the forward jump"
    );
    // Within a checkpoint interval: replayed from the current state.
    assert_eq!(e.replay_from(target + 1), target);
    e.jump_to_step(total).unwrap();
    assert_eq!(e.sim.hash, straight.sim.hash);
    assert_eq!(e.trace.recs, straight.trace.recs);
}

#[test]
fn user_actions_replay_exactly() {
    let mut live = busy_engine(11);
    live.run_until(500_000, 1_000_000).unwrap();
    live.apply_user_action(Action::DropLink {
        from: "n1".into(),
        to: "n3".into(),
        one_way: true,
        down_for: None,
    })
    .unwrap();
    live.run_until(900_000, 1_000_000).unwrap();
    live.apply_user_action(Action::Stall {
        node: "n0".into(),
        executor: "worker".into(),
    })
    .unwrap();
    live.run_until(2_000_000, 1_000_000).unwrap();

    let mut replay = busy_engine(11);
    replay.user_actions = live.user_actions.clone();
    replay.run_until(2_000_000, 10_000_000).unwrap();
    assert_eq!(replay.sim.hash, live.sim.hash);
    assert_eq!(replay.trace.recs.len(), live.trace.recs.len());

    // Acting in the past discards the old future.
    let mid = live.user_actions[1].step - 10;
    live.jump_to_step(mid).unwrap();
    live.apply_user_action(Action::HealAll {}).unwrap();
    assert_eq!(live.user_actions.len(), 2);
    assert_eq!(live.frontier(), mid + 1);
}

#[test]
fn acting_in_the_past_at_a_trace_chunk_boundary() {
    // Cut the trace where a record chunk starts (the packed store's edge case), act, go on, and
    // compare with a fresh run given the same recorded action.
    let chunk = trace::Recs::CHUNK_RECORDS;
    let mut live = busy_engine(7);
    live.set_checkpoint_interval(64);
    live.run_until(30_000_000, 10_000_000).unwrap();
    let n = live.trace.recs.len();
    assert!(n > 2 * chunk, "got {n} records");
    // A chunk boundary that is also a step boundary (checked below: the cut lands on it).
    let cut = (1..n / chunk)
        .map(|k| k * chunk)
        .find(|&i| live.trace.recs.at(i - 1).step != live.trace.recs.at(i).step)
        .unwrap_or(chunk);
    let step = live.trace.recs.at(cut).step;
    live.jump_to_step(step).unwrap();
    live.apply_user_action(Action::HealAll {}).unwrap();
    assert_eq!(live.trace.rec_index_at_step(step), cut);
    live.run_until(31_000_000, 10_000_000).unwrap();

    let mut replay = busy_engine(7);
    replay.user_actions = live.user_actions.clone();
    replay.run_until(31_000_000, 10_000_000).unwrap();
    assert_eq!(replay.sim.hash, live.sim.hash);
    assert_eq!(replay.trace.recs, live.trace.recs);
    assert_eq!(replay.trace.logs, live.trace.logs);
    let texts = |t: &Trace| {
        t.logs
            .iter()
            .map(|l| t.text(l).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(texts(&replay.trace), texts(&live.trace));
}

#[test]
fn seeds_matter_and_repeat() {
    let run = |seed| {
        let mut e = busy_engine(seed);
        e.run_until(1_000_000, 10_000_000).unwrap();
        e.sim.hash
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

#[test]
fn event_limit_is_reported() {
    let limits = Limits {
        max_events: 1000,
        ..Limits::default()
    };
    let mut e = Engine::new(
        Sim::new(pp(false), topology(3), lan(), 1, vec![], limits),
        false,
        0,
    );
    let err = e.run_until(100_000_000, u64::MAX).unwrap_err().to_string();
    assert!(err.contains("1000 events"), "{err}");
}

/// Time-spaced checkpoints: one per span of virtual time, never more than `MAX_CHECKPOINTS`
/// (thinned, span doubled), and jumps through them equal a straight run.
#[test]
fn checkpoints_spaced_by_virtual_time() {
    let mut e = engine(pp(false), 3, lan(), vec![], 7);
    e.set_checkpoint_span(100_000);
    e.run_until(1_000_000, u64::MAX).unwrap();
    let at: Vec<Micros> = e.checkpoints.iter().map(|c| c.now).collect();
    assert!(at.len() >= 10 && at.len() <= MAX_CHECKPOINTS, "{at:?}");
    for w in at.windows(2) {
        assert!(
            w[1] / 100_000 > w[0] / 100_000,
            "two checkpoints in one span: {at:?}"
        );
    }
    let hash = e.sim.hash;
    let steps = e.sim.steps;
    // Far past MAX_CHECKPOINTS spans: thinned, never more than the maximum.
    e.run_until(10_000_000, u64::MAX).unwrap();
    assert!(e.checkpoint_count() <= MAX_CHECKPOINTS);
    assert!(e.checkpoint_count() >= MAX_CHECKPOINTS / 2);
    e.jump_to_step(steps).unwrap();
    assert_eq!(e.sim.hash, hash);
}

/// The checkpoint memory budget: as many checkpoints as fit (between the minimum and the
/// maximum), thinning keeps to that number, and jumps still land on the same world.
#[test]
fn checkpoints_fit_the_memory_budget() {
    let with_budget = |bytes: usize| {
        let limits = Limits {
            max_checkpoint_bytes: bytes,
            ..Limits::default()
        };
        let mut e = Engine::new(
            Sim::new(pp(false), topology(5), lan(), 7, vec![], limits),
            true,
            1 << 20,
        );
        e.set_checkpoint_span(50_000);
        e
    };
    let per = with_budget(usize::MAX).sim.approx_bytes();
    assert!(per > 0);
    assert_eq!(with_budget(usize::MAX).max_checkpoints(), MAX_CHECKPOINTS);
    assert_eq!(with_budget(0).max_checkpoints(), MIN_CHECKPOINTS);
    let mut e = with_budget(per * 9);
    assert_eq!(e.max_checkpoints(), 9);
    e.run_until(1_000_000, 100_000).unwrap();
    let steps = e.sim.steps;
    let hash = e.sim.hash;
    e.run_until(5_000_000, u64::MAX).unwrap();
    // 100 spans of 50 ms: thinned to the budget, not to MAX_CHECKPOINTS.
    assert!(e.checkpoint_count() <= 9, "{}", e.checkpoint_count());
    assert!(e.checkpoint_count() >= 9 / 2);
    e.jump_to_step(steps).unwrap();
    assert_eq!(e.sim.hash, hash);
}

/// Restoring a checkpoint with `clone_from` (into an existing, different state) gives the same
/// world as a fresh clone: stepping both on yields the same hash and steps.
#[test]
fn clone_from_restores_the_same_world() {
    let mut e = engine(pp(true), 4, lan(), vec![], 3);
    e.run_until(200_000, u64::MAX).unwrap();
    let snap = e.sim.clone();
    e.run_until(900_000, u64::MAX).unwrap();
    let mut restored = e.sim.clone();
    restored.clone_from(&snap);
    let mut fresh = snap.clone();
    assert_eq!(restored.steps, fresh.steps);
    assert_eq!(restored.hash, fresh.hash);
    let mut t1 = Trace::new(0);
    let mut t2 = Trace::new(0);
    for _ in 0..500 {
        let a = restored
            .step_queue(
                &mut Out {
                    trace: &mut t1,
                    record: true,
                },
                false,
            )
            .unwrap();
        let b = fresh
            .step_queue(
                &mut Out {
                    trace: &mut t2,
                    record: true,
                },
                false,
            )
            .unwrap();
        assert_eq!(a, b);
    }
    assert_eq!(restored.hash, fresh.hash);
    assert_eq!(restored.now, fresh.now);
    assert_eq!(t1.recs.len(), t2.recs.len());
}

/// A checkpoint counts what its copy holds: an executor queue that drained after a backlog
/// keeps its capacity in the state, not in a copy (issue 18: the 251-node rolling restart's
/// checkpoints were counted at up to 13.6 MB for 7.5 MB copies, and the budget held fewer).
#[test]
fn checkpoints_are_counted_as_the_copies_they_are() {
    let sched = vec![
        (
            0,
            Action::Stall {
                node: "n1".into(),
                executor: "worker".into(),
            },
        ),
        (
            200_000,
            Action::Release {
                node: "n1".into(),
                executor: "worker".into(),
            },
        ),
    ];
    let mut e = engine(pp(true), 2, Link::healthy(1_000, 1_000), sched, 1);
    e.set_checkpoint_span(100_000);
    e.run_until(1_000_000, u64::MAX).unwrap();
    assert!(e.checkpoints.len() >= 5, "{}", e.checkpoints.len());
    for (c, &b) in e.checkpoints.iter().zip(&e.ckpt_bytes) {
        assert_eq!(b, c.approx_bytes(), "checkpoint at step {}", c.steps);
    }
    assert_eq!(e.checkpoint_bytes(), e.ckpt_bytes.iter().sum::<usize>());
    // The drained queue: its spare room is the state's alone.
    assert_eq!(e.sim.nodes[1].exec_stats[0].pending, 0);
    let copy = e.sim.clone();
    assert!(
        copy.approx_bytes() < e.sim.approx_bytes(),
        "copy {} vs state {}",
        copy.approx_bytes(),
        e.sim.approx_bytes()
    );
    let last = e.checkpoints.last().expect("checkpoints");
    assert!(last.steps > 0 && *e.ckpt_bytes.last().unwrap() < e.sim.approx_bytes());
}

/// A run stopped by the trace limit still steps back and jumps within what it ran: a replay
/// records nothing, so the limit (like the memory budget) is checked on new ground only.
#[test]
fn a_run_stopped_by_the_trace_limit_still_replays() {
    let limits = Limits {
        max_trace_records: 2_000,
        ..Limits::default()
    };
    let mut e = Engine::new(
        Sim::new(pp(false), topology(3), lan(), 1, vec![], limits),
        true,
        1 << 20,
    );
    e.set_checkpoint_span(10_000);
    let err = e.run_until(100_000_000, u64::MAX).unwrap_err().to_string();
    assert!(err.contains("2000 records"), "{err}");
    let end = e.sim.steps;
    let hash = e.sim.hash;
    e.jump_to_step(end / 2).unwrap();
    assert_eq!(e.sim.steps, end / 2);
    e.jump_to_step(end).unwrap();
    assert_eq!((e.sim.steps, e.sim.hash), (end, hash));
    assert!(e.step().is_err(), "new ground is still refused");
}
