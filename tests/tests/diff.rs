//! The first-divergence finder (`core::diff::first_divergence`, lockstep over virtual time, stops
//! early) against a brute-force comparison of both finished traces (`first_difference`), on random
//! scenario x variant pairs, seeds, slices and a random user action on one side (issue 18).
//! `CLUSTERSCOPE_PROPTEST_CASES=N` runs N cases (default 64).

use clusterscope_core::diff::{first_difference, first_divergence, view_diffs};
use clusterscope_core::engine::action::Action;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
use proptest::prelude::*;

/// Small built-in scenarios of every model, with their variants.
const SCENARIOS: &[&str] = &[
    "cassandra-21636-packet-loss",
    "cassandra-21636-restart",
    "gossip-digest-exchange",
    "raft-leader-election",
    "raft-leader-crash",
    "mutation-tracking-basics",
    "pingpong",
    "ozone-write-pipeline",
];

fn run(name: &str, variant: &str, seed: u64) -> Run {
    let s = builtin::get(name).unwrap();
    Run::new(
        s,
        variant,
        Some(seed),
        &toml::Table::new(),
        &RunOptions {
            checkpointing: false,
            body_budget: 0,
            limits: Limits::default(),
        },
    )
    .unwrap()
}

fn cases() -> u32 {
    std::env::var("CLUSTERSCOPE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

#[derive(Debug, Clone)]
struct Case {
    scenario: usize,
    variant_a: usize,
    variant_b: usize,
    seed_a: u64,
    same_seed: bool,
    /// On side b: kill this node (index) at this fraction of the run.
    kill: Option<(usize, u32)>,
    slice_ms: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..SCENARIOS.len(),
        0usize..4,
        0usize..4,
        1u64..50,
        any::<bool>(),
        proptest::option::of((0usize..8, 1u32..1000)),
        prop_oneof![Just(1u64), Just(37), Just(1000), Just(60_000)],
    )
        .prop_map(
            |(scenario, variant_a, variant_b, seed_a, same_seed, kill, slice_ms)| Case {
                scenario,
                variant_a,
                variant_b,
                seed_a,
                same_seed,
                kill,
                slice_ms,
            },
        )
}

/// Make the two runs of a case, with b's kill applied at its time (as a recorded action).
fn pair(c: &Case) -> (Run, Run) {
    let name = SCENARIOS[c.scenario];
    let s = builtin::get(name).unwrap();
    let vs = s.variant_names();
    let va = vs[c.variant_a % vs.len()].to_string();
    let vb = vs[c.variant_b % vs.len()].to_string();
    let seed_b = if c.same_seed { c.seed_a } else { c.seed_a + 1 };
    let a = run(name, &va, c.seed_a);
    let mut b = run(name, &vb, seed_b);
    if let Some((node, permille)) = c.kill {
        let n = b.engine.topo().len() as usize;
        let at = s.duration() / 1000 * permille as u64;
        b.engine.run_until(at, u64::MAX).unwrap();
        let node = b.engine.topo().names[node % n].clone();
        // A node already down refuses the kill: then b simply has no action.
        let _ = b.engine.apply_user_action(Action::Kill { node });
        // Replay from the start so both sides are compared from time 0.
        let actions = b.engine.user_actions().to_vec();
        b = run(name, &vb, seed_b);
        b.engine.set_user_actions(actions);
    }
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn lockstep_finder_agrees_with_brute_force(c in case()) {
        let end = builtin::get(SCENARIOS[c.scenario]).unwrap().duration();
        // Brute force: both to the end, then walk the records.
        let (mut a, mut b) = pair(&c);
        a.engine.run_until(end, u64::MAX).unwrap();
        b.engine.run_until(end, u64::MAX).unwrap();
        let want = first_difference(a.engine.trace(), b.engine.trace());
        // Lockstep, fresh runs.
        let (mut a2, mut b2) = pair(&c);
        let got = first_divergence(&mut *a2.engine, &mut *b2.engine, end, c.slice_ms * 1000)
            .unwrap();
        prop_assert_eq!(got.as_ref().map(|d| d.index), want, "{:?}", got);
        if let Some(d) = got {
            // Everything before the divergence is equal, and the reported time is that of the
            // first differing record.
            let ta = a.engine.trace();
            let tb = b.engine.trace();
            let times: Vec<u64> = [ta.recs.get(d.index), tb.recs.get(d.index)]
                .iter()
                .flatten()
                .map(|r| r.time)
                .collect();
            prop_assert_eq!(d.time_us, *times.iter().min().unwrap());
            // The lockstep search stopped no later than one slice after the divergence.
            prop_assert!(a2.engine.now() <= d.time_us + c.slice_ms * 1000);
        }
    }
}

/// Same scenario, variant and seed: no divergence, and no view differs.
#[test]
fn identical_runs_do_not_diverge() {
    let mut a = run("cassandra-21636-packet-loss", "buggy", 3);
    let mut b = run("cassandra-21636-packet-loss", "buggy", 3);
    let end = a.scenario.duration();
    assert_eq!(
        first_divergence(&mut *a.engine, &mut *b.engine, end, 10_000_000).unwrap(),
        None
    );
    assert_eq!(a.engine.now(), b.engine.now());
    let (d, n) = view_diffs(&a.views_json(), &b.views_json(), 3, 10);
    assert_eq!((d.len(), n), (0, 0));
}

/// buggy vs fixed of CASSANDRA-21636 (packet loss): the runs are the same until the lost echo's
/// consequences, and at the end the liveness views differ exactly on A<->B.
#[test]
fn packet_loss_buggy_and_fixed_diverge_and_their_liveness_differs() {
    let mut a = run("cassandra-21636-packet-loss", "buggy", 1);
    let mut b = run("cassandra-21636-packet-loss", "fixed", 1);
    let end = a.scenario.duration();
    let d = first_divergence(&mut *a.engine, &mut *b.engine, end, 1_000_000)
        .unwrap()
        .expect("they diverge");
    assert!(d.index > 100, "the start is shared: {d:?}");
    a.engine.run_until(end, u64::MAX).unwrap();
    b.engine.run_until(end, u64::MAX).unwrap();
    let (diffs, _) = view_diffs(&a.views_json(), &b.views_json(), 3, 1000);
    let live: Vec<&str> = diffs
        .iter()
        .map(|v| v.path.as_str())
        .filter(|p| p.starts_with("liveness."))
        .collect();
    assert_eq!(live, ["liveness.A.B", "liveness.B.A"], "{diffs:?}");
}

// ---- forks: "what if this message had arrived?" ----

use clusterscope_core::engine::action::{MsgFate, RecordedAction};
use clusterscope_core::engine::trace::{DropReason, RecKind};

/// The step and id of the first ECHO_REQ lost between A and B in the buggy packet-loss replay.
fn lost_echo(run: &Run) -> (u64, u64, clusterscope_core::time::Micros) {
    let t = run.engine.trace();
    let topo = run.engine.topo();
    t.recs
        .iter()
        .find_map(|r| match r.kind {
            RecKind::Drop {
                msg,
                label: "ECHO_REQ",
                reason: DropReason::LinkDown,
                from,
                to,
            } if topo.names[from as usize] != "C" && topo.names[to as usize] != "C" => {
                Some((r.step, msg, r.time))
            }
            _ => None,
        })
        .expect("a lost ECHO_REQ between A and B")
}

fn forked(fate: MsgFate) -> Run {
    let mut base = run("cassandra-21636-packet-loss", "buggy", 1);
    let end = base.scenario.duration();
    base.engine.run_until(end, u64::MAX).unwrap();
    let (step, msg, time) = lost_echo(&base);
    let mut f = run("cassandra-21636-packet-loss", "buggy", 1);
    f.engine.set_user_actions(vec![RecordedAction {
        step,
        at: clusterscope_core::engine::action::Dur(time),
        action: Action::Message { msg, fate },
    }]);
    f
}

/// The incident's counterfactual, message by message: deliver the lost ECHO_REQ (A -> B, over
/// the cut link) and B answers — but its ECHO_RSP goes back over the same cut link and is lost
/// too, so A still sees B DOWN; fork again and deliver that answer, and A sees B UP to the end,
/// and the buggy variant's "A sees B DOWN" expectation now fails. Each fork replays to the same
/// trace.
#[test]
fn delivering_the_lost_echo_and_its_answer_brings_b_up_for_a() {
    let mut f = forked(MsgFate::Deliver);
    f.run(None).unwrap();
    let (_, req, t_req) = {
        let mut base = run("cassandra-21636-packet-loss", "buggy", 1);
        base.engine
            .run_until(base.scenario.duration(), u64::MAX)
            .unwrap();
        lost_echo(&base)
    };
    let t = f.engine.trace();
    let names = &f.engine.topo().names;
    let (from, to) = t
        .recs
        .iter()
        .find_map(|r| match r.kind {
            RecKind::Deliver { msg, from, .. } if msg == req => Some((from, r.node)),
            _ => None,
        })
        .expect("the forked ECHO_REQ is delivered");
    // The answer, lost on the way back.
    let (step, rsp, at) = t
        .recs
        .iter()
        .find_map(|r| match r.kind {
            RecKind::Drop {
                msg,
                label: "ECHO_RSP",
                from: a,
                to: b,
                reason: DropReason::LinkDown,
            } if a == to && b == from && r.time > t_req => Some((r.step, msg, r.time)),
            _ => None,
        })
        .expect("the answer is lost on the cut link");
    let (a, b) = (names[from as usize].clone(), names[to as usize].clone());
    assert_eq!(f.views_json()["liveness"][&a][&b], "DOWN");
    let mut actions = f.engine.user_actions().to_vec();
    actions.push(RecordedAction {
        step,
        at: clusterscope_core::engine::action::Dur(at),
        action: Action::Message {
            msg: rsp,
            fate: MsgFate::Deliver,
        },
    });
    let twice = |actions: &[RecordedAction]| {
        let mut g = run("cassandra-21636-packet-loss", "buggy", 1);
        g.engine.set_user_actions(actions.to_vec());
        let report = g.run(None).unwrap();
        (g, report)
    };
    let (g, report) = twice(&actions);
    assert_eq!(
        g.views_json()["liveness"][&a][&b],
        "UP",
        "{}",
        g.views_json()["liveness"]
    );
    let want = format!("{a} sees {b} DOWN from 5 s after the heal to the end");
    let e = report.expectations.iter().find(|e| e.name == want).unwrap();
    assert!(!e.passed, "{e:?}");
    // Deterministic: the same forks, the same trace.
    assert_eq!(g.engine.hash(), twice(&actions).0.engine.hash());
}

/// Dropping or delaying a message that was delivered changes the run from there; a fork about
/// a message already sent is refused and changes nothing.
#[test]
fn forks_drop_and_delay_and_refuse_sent_messages() {
    let mut base = run("raft-leader-election", "ratis", 1);
    let end = base.scenario.duration();
    base.engine.run_until(end, u64::MAX).unwrap();
    // The first delivered message.
    let (step, msg, at) = base
        .engine
        .trace()
        .recs
        .iter()
        .find_map(|r| match r.kind {
            RecKind::Send { msg, .. } => Some((r.step, msg, r.time)),
            _ => None,
        })
        .unwrap();
    let fork = |fate: MsgFate| {
        let mut f = run("raft-leader-election", "ratis", 1);
        f.engine.set_user_actions(vec![RecordedAction {
            step,
            at: clusterscope_core::engine::action::Dur(at),
            action: Action::Message { msg, fate },
        }]);
        f.engine.run_until(end, u64::MAX).unwrap();
        f
    };
    let dropped = fork(MsgFate::Drop);
    assert!(dropped.engine.trace().recs.iter().any(|r| matches!(
        r.kind,
        RecKind::Drop { msg: m, reason: DropReason::Forked, .. } if m == msg
    )));
    let delayed = fork(MsgFate::Delay {
        by: clusterscope_core::engine::action::Dur(50_000),
    });
    let sent = delayed
        .engine
        .trace()
        .recs
        .iter()
        .find_map(|r| match r.kind {
            RecKind::Send {
                msg: m, deliver_at, ..
            } if m == msg => Some(deliver_at - r.time),
            _ => None,
        })
        .unwrap();
    assert!(sent >= 50_000, "latency {sent}");
    // Already sent: refused, and the run is as it was.
    let mut late = run("raft-leader-election", "ratis", 1);
    late.engine.run_until(at + 1_000_000, u64::MAX).unwrap();
    let before = late.engine.hash();
    let e = late
        .engine
        .apply_user_action(Action::Message {
            msg,
            fate: MsgFate::Deliver,
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("already sent"), "{e}");
    assert_eq!(late.engine.hash(), before);
    assert!(late.engine.user_actions().is_empty());
}
