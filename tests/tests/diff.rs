//! The first-divergence finder (`core::diff::first_divergence`: lockstep over virtual time, one
//! moment at a time, stops early; the first *behavioural* divergence, issue 38) against a
//! brute-force application of its rule to both finished traces, on random scenario x variant
//! pairs, seeds and a random user action on one side (issue 18). `CLUSTERSCOPE_PROPTEST_CASES=N`
//! runs N cases (default 64).

use clusterscope_core::diff::{
    differing_words, first_divergence, first_event_difference, view_diffs, DivKind,
};
use clusterscope_core::engine::action::Action;
use clusterscope_core::engine::trace::Trace;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
use clusterscope_core::time::Micros;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Small built-in scenarios of every model, with their variants (the last three: variants that
/// differ in a log line's wording, in state alone, and in events).
const SCENARIOS: &[&str] = &[
    "cassandra-21636-packet-loss",
    "cassandra-21636-restart",
    "gossip-digest-exchange",
    "raft-leader-election",
    "raft-leader-crash",
    "mutation-tracking-basics",
    "pingpong",
    "ozone-write-pipeline",
    "cassandra-21181-duplicate-notify",
    "hdds-17673-close-race",
    "raft-figure-8",
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
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..SCENARIOS.len(),
        0usize..4,
        0usize..4,
        1u64..50,
        any::<bool>(),
        proptest::option::of((0usize..8, 1u32..1000)),
    )
        .prop_map(
            |(scenario, variant_a, variant_b, seed_a, same_seed, kill)| Case {
                scenario,
                variant_a,
                variant_b,
                seed_a,
                same_seed,
                kill,
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

/// Each virtual time's log lines (node, level and text), per side, from a finished trace.
type Line = (u32, &'static str, String);

fn logs_by_time(t: &Trace) -> BTreeMap<Micros, Vec<Line>> {
    let mut out: BTreeMap<Micros, Vec<Line>> = BTreeMap::new();
    for l in &t.logs {
        out.entry(l.time)
            .or_default()
            .push((l.node, l.level.as_str(), t.text(l).to_string()));
    }
    out
}

/// The rule applied by brute force: both runs to the end; the first record that differs once
/// log lines are left out (its time: the earlier side's); before it, the first moment whose log
/// lines differ after which the views differ (fresh runs stopped at each such moment); else
/// that record; else the first moment whose log lines differ. (time, kind).
fn brute(c: &Case, end: Micros) -> Option<(Micros, DivKind)> {
    let (mut a, mut b) = pair(c);
    a.engine.run_until(end, u64::MAX).unwrap();
    b.engine.run_until(end, u64::MAX).unwrap();
    let (ta, tb) = (a.engine.trace(), b.engine.trace());
    let event = first_event_difference(ta, tb).map(|(i, j)| {
        let ti = i.map_or(Micros::MAX, |i| ta.recs.at(i).time);
        let tj = j.map_or(Micros::MAX, |j| tb.recs.at(j).time);
        ti.min(tj)
    });
    let (la, lb) = (logs_by_time(ta), logs_by_time(tb));
    let none = Vec::new();
    let differing: Vec<Micros> = la
        .keys()
        .chain(lb.keys())
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|t| la.get(t).unwrap_or(&none) != lb.get(t).unwrap_or(&none))
        .collect();
    let (mut fa, mut fb) = pair(c);
    for &t in differing
        .iter()
        .take_while(|&&t| event.is_none_or(|e| t < e))
    {
        fa.engine.run_until(t, u64::MAX).unwrap();
        fb.engine.run_until(t, u64::MAX).unwrap();
        if fa.views_json() != fb.views_json() {
            return Some((t, DivKind::State));
        }
    }
    match event {
        Some(t) => Some((t, DivKind::Event)),
        None => differing.first().map(|&t| (t, DivKind::Log)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn lockstep_finder_agrees_with_brute_force(c in case()) {
        let end = builtin::get(SCENARIOS[c.scenario]).unwrap().duration();
        let want = brute(&c, end);
        let (mut a2, mut b2) = pair(&c);
        let got = first_divergence(&mut *a2.engine, &mut *b2.engine, end).unwrap();
        prop_assert_eq!(got.as_ref().map(|d| (d.time_us, d.kind)), want, "{:?}", got);
        let Some(d) = got else {
            return Ok(());
        };
        // Before the divergence both behave the same: the records before index_a / index_b
        // are equal once log lines are left out.
        let (ta, tb) = (a2.engine.trace(), b2.engine.trace());
        let events = |t: &Trace, n: usize| {
            (0..n)
                .map(|i| t.recs.at(i))
                .filter(|r| !matches!(r.kind, clusterscope_core::engine::trace::RecKind::Log { .. }))
                .map(|r| (r.time, r.node))
                .collect::<Vec<_>>()
        };
        if d.kind == DivKind::Event {
            prop_assert_eq!(events(ta, d.index_a), events(tb, d.index_b));
        }
        // A state divergence names the views that differ, as they are there.
        if d.kind == DivKind::State {
            prop_assert_eq!(a2.engine.now(), d.time_us);
            let (v, n) = view_diffs(&a2.views_json(), &b2.views_json(), 10, 1000);
            prop_assert_eq!(n, d.views_differing);
            prop_assert_eq!(&v[..d.views.len()], &d.views[..]);
        }
        // The search stopped at the divergence's moment: nothing computed beyond it.
        prop_assert_eq!(a2.engine.now(), b2.engine.now());
        for t in [ta, tb] {
            prop_assert!(t.recs.iter().all(|r| r.time <= a2.engine.now()));
        }
    }
}

/// buggy vs fixed of CASSANDRA-21181's duplicate notify: the first record that differs is a log
/// line's wording at 0.301 s (`onlyUnreconciled` vs `allOffsets`), which changes nothing; the
/// first behavioural divergence is at 0.502 s, where the duplicate PUSH_MUTATION_REQ fires the
/// read's listener in fixed and not in buggy: the state differs (the delivery's `fired`, the
/// read's outcome), and both log lines are shown with the words that differ.
#[test]
fn duplicate_notify_diverges_where_the_listener_fires_or_not() {
    let mut a = run("cassandra-21181-duplicate-notify", "buggy", 1);
    let mut b = run("cassandra-21181-duplicate-notify", "fixed", 1);
    let end = a.scenario.duration();
    let d = first_divergence(&mut *a.engine, &mut *b.engine, end)
        .unwrap()
        .expect("they diverge");
    assert_eq!(
        (d.kind, d.time_us, d.node.as_str()),
        (DivKind::State, 502_200, "node1"),
        "{d:?}"
    );
    let paths: Vec<&str> = d.views.iter().map(|v| v.path.as_str()).collect();
    assert!(paths.contains(&"node1.deliveries[2].fired"), "{paths:?}");
    assert!(paths.contains(&"node1.reads[0].outcome"), "{paths:?}");
    let [Some((la, ra)), Some((lb, rb))] = d.lines() else {
        panic!("both sides logged a line: {d:?}");
    };
    assert_eq!(&la[ra], "finishWriting skipped: 1 listener(s) not notified");
    assert_eq!(&lb[rb], "notifyIncomingMutationListeners fired 1");
}

/// Up to 0.5 s the same pair differs only in wording (two log lines name the summary's offsets
/// `onlyUnreconciled` in buggy, `allOffsets` in fixed): that is the divergence only because
/// nothing else differs by then, and it says so.
#[test]
fn a_wording_difference_is_the_divergence_only_when_nothing_else_differs() {
    let mut a = run("cassandra-21181-duplicate-notify", "buggy", 1);
    let mut b = run("cassandra-21181-duplicate-notify", "fixed", 1);
    let d = first_divergence(&mut *a.engine, &mut *b.engine, 500_000)
        .unwrap()
        .expect("they diverge");
    assert_eq!(
        (d.kind, d.time_us, d.node.as_str()),
        (DivKind::Log, 301_200, "node2"),
        "{d:?}"
    );
    assert_eq!(a.engine.now(), 500_000, "searched to the end");
    let [Some((la, ra)), Some((lb, rb))] = d.lines() else {
        panic!("both sides logged a line: {d:?}");
    };
    assert_eq!((&la[ra], &lb[rb]), ("onlyUnreconciled", "allOffsets"));
}

/// HDDS-17673 buggy vs fixed: the first behavioural divergence is at 4 s on dn1, where the
/// WriteChunk released from the hold point is appended (buggy: its write-chunk task starts) or
/// rejected (fixed: the client is answered at once, and the line logged says why).
#[test]
fn close_race_diverges_where_the_held_write_chunk_is_appended_or_rejected() {
    let mut a = run("hdds-17673-close-race", "buggy", 1);
    let mut b = run("hdds-17673-close-race", "fixed", 1);
    let end = a.scenario.duration();
    let d = first_divergence(&mut *a.engine, &mut *b.engine, end)
        .unwrap()
        .expect("they diverge");
    assert_eq!(
        (d.kind, d.time_us, d.node.as_str()),
        (DivKind::Event, 4_000_000, "dn1"),
        "{d:?}"
    );
    let (ra, rb) = (d.a.as_ref().unwrap(), d.b.as_ref().unwrap());
    assert_eq!(
        (ra["kind"].as_str(), ra["task"].as_str()),
        (Some("task-start"), Some("write-chunk"))
    );
    assert_eq!(
        (rb["kind"].as_str(), rb["verb"].as_str()),
        (Some("send"), Some("CLIENT_REPLY"))
    );
    let (la, lb) = d.logged.as_ref().expect("the moment's log lines differ");
    assert!(la.is_none(), "{la:?}");
    let text = lb.as_ref().unwrap()["text"].as_str().unwrap();
    assert!(
        text.contains("WriteChunk W1") && text.contains("rejected"),
        "{text}"
    );
}

/// The words that differ: whole words, the common beginning and end left out.
#[test]
fn differing_words_are_whole_words() {
    let a = "collectLocallyMissingMutations (onlyUnreconciled) = []";
    let b = "collectLocallyMissingMutations (allOffsets) = []";
    let (ra, rb) = differing_words(a, b);
    assert_eq!((&a[ra], &b[rb]), ("onlyUnreconciled", "allOffsets"));
    let (ra, rb) = differing_words("x fired 1", "x fired 12 times");
    assert_eq!((ra, rb), (8..9, 8..16));
    let (ra, rb) = differing_words("same", "same");
    assert!(ra.is_empty() && rb.is_empty());
    let (ra, rb) = differing_words("a b", "a c b");
    assert_eq!((ra, rb), (2..2, 2..4));
}

/// Same scenario, variant and seed: no divergence, and no view differs.
#[test]
fn identical_runs_do_not_diverge() {
    let mut a = run("cassandra-21636-packet-loss", "buggy", 3);
    let mut b = run("cassandra-21636-packet-loss", "buggy", 3);
    let end = a.scenario.duration();
    assert_eq!(
        first_divergence(&mut *a.engine, &mut *b.engine, end).unwrap(),
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
    let d = first_divergence(&mut *a.engine, &mut *b.engine, end)
        .unwrap()
        .expect("they diverge");
    assert!(d.index_a > 100, "the start is shared: {d:?}");
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

/// `compare` (what `clusterscope diff` prints) checks each side's expectations as `Run::run`
/// does, whatever the divergence: raft-figure-8's safe variant holds all 9 against itself and
/// against unsafe-commit (issue 39: evaluated where the divergence search had left the engines,
/// the safe side held 5 of its 8 then); its divergence is the one `first_divergence` finds alone.
#[test]
fn compare_checks_expectations_as_run_does() {
    let name = "raft-figure-8";
    let end = builtin::get(name).unwrap().duration();
    for (va, vb) in [("safe", "safe"), ("unsafe-commit", "safe")] {
        let (mut a, mut b) = (run(name, va, 1), run(name, vb, 1));
        let fresh = (run(name, va, 1), run(name, vb, 1));
        let (first, ra, rb) = clusterscope_core::diff::compare(&mut a, &mut b, fresh, end).unwrap();
        let alone = |v: &str| run(name, v, 1).run(None).unwrap().expectations;
        assert_eq!(ra.expectations, alone(va), "{va}");
        assert_eq!(rb.expectations, alone(vb), "{vb}");
        let (mut x, mut y) = (run(name, va, 1), run(name, vb, 1));
        let lone = first_divergence(&mut *x.engine, &mut *y.engine, end).unwrap();
        assert_eq!(first, lone, "{va} vs {vb}");
        assert_eq!(first.is_some(), va != vb, "{va} vs {vb}: {first:?}");
    }
    let (mut a, mut b) = (run(name, "safe", 1), run(name, "safe", 1));
    let fresh = (run(name, "safe", 1), run(name, "safe", 1));
    let (first, ra, _) = clusterscope_core::diff::compare(&mut a, &mut b, fresh, end).unwrap();
    assert_eq!(first, None);
    // The 8 named expectations and every caption's checks, all held.
    let alone = run(name, "safe", 1).run(None).unwrap().expectations;
    assert!(alone.len() > 8, "{}", alone.len());
    assert!(ra.passed && ra.expectations == alone, "{ra:?}");
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
