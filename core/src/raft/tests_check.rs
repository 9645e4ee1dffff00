//! The incremental invariant check (`check::check`) against the full pairwise scan
//! (`check::check_full`) at every step: on the built-in Raft scenarios over seeds (the
//! figure-8 unsafe commit violates), with jumps back through checkpoints; on random kills,
//! restarts and partitions; and on arbitrary logs built by hand, where Log Matching and State
//! Machine Safety violations come and go.

use super::check::{check, check_full, Memo};
use super::node::{chain, Payload, Role};
use super::tests::engine;
use super::RaftKv;
use crate::engine::action::Action;
use crate::engine::{Engine, NodeStatus, Violation};
use crate::runner::{Run, RunOptions};
use crate::scenario::builtin;
use crate::time::US_PER_MS;
use std::collections::BTreeMap;

/// Step to `until` (virtual time), comparing both checks after every step; counts the
/// violating steps by invariant.
fn cross_check(
    e: &mut Engine<RaftKv>,
    memo: &Memo,
    until: u64,
    what: &str,
    seen: &mut BTreeMap<&'static str, u64>,
) {
    while e.sim.next_time().is_some_and(|t| t <= until) {
        if !e.step().unwrap() {
            break;
        }
        let full = check_full(&e.sim);
        assert_eq!(
            check(&e.sim, memo),
            full,
            "{what}: step {} at {}",
            e.sim.steps,
            e.sim.now
        );
        engine_agrees(e, &full, what);
        if let Some(v) = full {
            *seen.entry(v.invariant).or_default() += 1;
        }
    }
}

/// The engine's own check of the step just taken (`check::check_step`, with the model's memo,
/// told the step's node: it reads only that node when the step before answered nothing) said
/// what the full scan says: violated or not, and on entering a violation, the same one.
fn engine_agrees(e: &Engine<RaftKv>, full: &Option<Violation>, what: &str) {
    let step = e.sim.steps - 1;
    assert_eq!(
        e.sim.violated(),
        full.is_some(),
        "{what}: the engine's check at step {step}: {full:?}"
    );
    if let Some(v) = e.trace.violations.last().filter(|v| v.step == step) {
        assert_eq!(Some(&v.violation), full.as_ref(), "{what}: step {step}");
    }
}

#[test]
fn incremental_check_agrees_with_the_full_scan_on_the_scenarios() {
    let mut seen = BTreeMap::new();
    let mut runs = 0;
    for sc in builtin::all()
        .into_iter()
        .filter(|s| s.raw.protocol == "raft")
    {
        for v in sc.variant_names() {
            for seed in 1..=4 {
                let mut r = Run::new(
                    sc.clone(),
                    v,
                    Some(seed),
                    &toml::Table::new(),
                    &RunOptions {
                        checkpointing: true,
                        ..RunOptions::default()
                    },
                )
                .unwrap();
                let e = r.engine_of_mut::<RaftKv>().unwrap();
                let what = format!("{}/{v} seed {seed}", sc.raw.name);
                let memo = Memo::default();
                let end = sc.duration();
                cross_check(e, &memo, end / 2, &what, &mut seen);
                // Back through a checkpoint (the memo sees an older state) and on to the end.
                let back = e.sim.steps / 3;
                e.jump_to_step(back).unwrap();
                assert_eq!(
                    check(&e.sim, &memo),
                    check_full(&e.sim),
                    "{what}: after the jump"
                );
                cross_check(e, &memo, end, &what, &mut seen);
                runs += 1;
            }
        }
    }
    assert!(runs >= 28, "{runs} runs");
    assert!(seen.contains_key("Leader Completeness"), "{seen:?}");
}

/// A small deterministic generator for the faults (tests only).
struct Gen(u64);
impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn incremental_check_agrees_with_the_full_scan_under_random_faults() {
    let mut seen = BTreeMap::new();
    for seed in 0..24 {
        let n = 3 + (seed % 5) as u32 * 2;
        let rule = if seed % 3 == 0 {
            "current-term"
        } else {
            "count-replicas"
        };
        let params = format!(
            "client_rate = 80\ncommit_rule = \"{rule}\"\ntimeout_min = \"60ms\"\ntimeout_max = \"120ms\""
        );
        let mut e = engine(n, &params, seed);
        let memo = Memo::default();
        let mut g = Gen(seed * 0x9E37_79B9 + 1);
        let what = format!("{n} nodes, {rule}, seed {seed}");
        let mut t = 0;
        while t < 6_000 * US_PER_MS {
            t += (20 + g.below(80)) * US_PER_MS;
            cross_check(&mut e, &memo, t, &what, &mut seen);
            let k = g.below(n as u64) as usize;
            let node = e.sim.topo.names[k].clone();
            let stopped = e.sim.nodes[k].status == NodeStatus::Stopped;
            let a = match g.below(6) {
                _ if stopped => Action::Start { node },
                0 | 1 => Action::Kill { node },
                2 => Action::Partition {
                    groups: vec![e.sim.topo.names[..k + 1].to_vec()],
                    down_for: None,
                },
                3 => Action::HealAll {},
                _ => continue,
            };
            let _ = e.apply_user_action(a);
        }
    }
    // The unsafe rule needs Figure 8's exact history to break anything: these runs stay safe,
    // with logs that diverge and repair all the time (the classes split and merge).
    assert!(seen.is_empty(), "{seen:?}");
}

/// Logs and applied entries no correct run makes (conflicting entries of one term, terms going
/// down, applications that disagree), built node by node: every pairwise violation appears,
/// and the classes of equal logs split and merge. Seeds 41-44 have 63-72 nodes: node sets of
/// more than one 64-bit word (`check::Pairs`).
#[test]
fn incremental_check_agrees_with_the_full_scan_on_arbitrary_logs() {
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    for seed in 1..=44u64 {
        let n = if seed > 40 {
            60 + 3 * (seed - 40) as usize
        } else {
            2 + (seed % 7) as usize
        };
        let mut e = engine(n as u32, "", seed);
        let memo = Memo::default();
        let mut g = Gen(seed * 0x2545_F491 + 7);
        for op in 0..400 {
            let k = g.below(n as u64) as usize;
            let node = &mut e.sim.nodes[k].state;
            match g.below(8) {
                0..=2 => {
                    let last = node.last_term();
                    let term = if g.below(10) == 0 {
                        1 + g.below(4)
                    } else {
                        last.max(1) + g.below(2)
                    };
                    node.push(term, Payload::Startup);
                }
                3 => {
                    let len = g.below(node.last() + 1);
                    node.cut(len);
                }
                4 => {
                    // Copy another node's log (equal logs share a class).
                    let j = g.below(n as u64) as usize;
                    let log = e.sim.nodes[j].state.log.clone();
                    let node = &mut e.sim.nodes[k].state;
                    node.cut(0);
                    for en in log {
                        node.push(en.term, en.payload);
                    }
                }
                5 => {
                    // Apply the next entry of its log, or a foreign one.
                    let i = node.ghost.applied.len() as u64 + 1;
                    let c = if i <= node.last() && g.below(4) != 0 {
                        node.chain_at(i)
                    } else {
                        g.below(3)
                    };
                    node.ghost.applied.push(c);
                    node.ghost.applied_hash = chain(node.ghost.applied_hash, i, c);
                }
                6 => {
                    let i = node.last().min(1 + g.below(3));
                    if i > 0 && node.ghost.committed.len() < i as usize {
                        let c = node.chain_at(i);
                        while (node.ghost.committed.len() as u64) < i {
                            node.ghost.commit(c, node.term);
                        }
                    }
                }
                _ => {
                    node.term = node.last_term() + g.below(2);
                    node.role = if g.below(3) == 0 {
                        Role::Leader
                    } else {
                        Role::Follower
                    };
                }
            }
            let full = check_full(&e.sim);
            assert_eq!(check(&e.sim, &memo), full, "seed {seed}, op {op}");
            if let Some(v) = full {
                *seen.entry(v.invariant).or_default() += 1;
            }
        }
    }
    // (Leader Completeness is not pairwise: both checks run the same pass.)
    for inv in ["Log Matching", "State Machine Safety"] {
        assert!(seen.contains_key(inv), "no {inv} violation seen: {seen:?}");
    }
}

/// Leader Completeness is re-checked only when what it reads moves (`check::lc_key`): a
/// violation planted after a long steady run, when the kept answer is "none", is still caught,
/// whether it comes from the leader's log (cut below what was committed: `cut` is not a
/// truncation the leader notices, so only this check can see it) or from a node's commits (an
/// entry committed that the leader does not hold).
#[test]
fn leader_completeness_still_catches_a_violation_planted_in_a_steady_run() {
    for plant in ["leader's log", "follower's commit"] {
        let mut e = engine(3, "client_rate = 50", 7);
        let memo = Memo::default();
        let mut seen = BTreeMap::new();
        cross_check(&mut e, &memo, 3_000 * US_PER_MS, plant, &mut seen);
        assert!(seen.is_empty(), "{plant}: {seen:?}");
        let l = (0..3)
            .find(|&k| e.sim.nodes[k].state.is_leader())
            .expect("a leader after 3 s");
        let commit = e.sim.nodes[l].state.commit;
        assert!(commit > 10, "{plant}: commit {commit}");
        // The kept answer is warm: the same state checks clean again.
        assert_eq!(check(&e.sim, &memo), None);
        if plant == "leader's log" {
            e.sim.nodes[l].state.cut(commit - 5);
        } else {
            let f = (l + 1) % 3;
            let node = &mut e.sim.nodes[f].state;
            let term = node.term;
            while (node.ghost.committed.len() as u64) < commit {
                let i = node.ghost.committed.len() as u64 + 1;
                node.ghost.commit(node.chain_at(i), term);
            }
            // One entry past everything the leader holds.
            node.ghost.commit(0xDEAD_BEEF, term);
        }
        let full = check_full(&e.sim);
        assert_eq!(
            full.as_ref().map(|v| v.invariant),
            Some("Leader Completeness"),
            "{plant}"
        );
        assert_eq!(check(&e.sim, &memo), full, "{plant}");
        // And it stays reported while the state is unchanged.
        assert_eq!(check(&e.sim, &memo), full, "{plant}: again");
    }
}

/// `check` returns at once while nothing it reads moved (`check::quiet_key`): a violation
/// planted by hand in a steady run, in each input the key covers (no handler ran, so no flag a
/// model could set), is still caught at the next check, as the full scan finds it.
#[test]
fn the_skip_after_quiet_events_still_catches_every_planted_violation() {
    // The three plants the memo's key covers (a cut log is a step's: the second test's).
    for &(plant, invariant) in &PLANTS[..3] {
        let (mut e, memo, l) = steady_run(plant);
        // The kept answer is warm: the same state checks clean again (the skip).
        assert_eq!(check(&e.sim, &memo), None);
        plant_violation(&mut e, l, plant);
        let full = check_full(&e.sim);
        assert_eq!(
            full.as_ref().map(|v| v.invariant),
            Some(invariant),
            "{plant}"
        );
        assert_eq!(check(&e.sim, &memo), full, "{plant}");
        assert_eq!(check(&e.sim, &memo), full, "{plant}: again");
    }
}

/// The engine's check reads only the node a step ran on when the check of the step before, in
/// the same world, answered nothing (`check::check_step`): a violation a step makes against
/// nodes it did not touch is caught at that step (Figure 8's, S5 winning term 5 without what S1
/// committed, and every step of the cross-checks above, `engine_agrees`). A state changed by
/// hand between steps is no step's: after `Sim::forget_checks` the next step's check reads
/// every node, and each planted violation is caught at that step, whichever node it ran on.
#[test]
fn the_engines_check_catches_a_planted_violation_at_the_next_step() {
    for &(plant, invariant) in &PLANTS {
        let (mut e, _, l) = steady_run(plant);
        assert!(!e.sim.violated());
        plant_violation(&mut e, l, plant);
        e.sim.forget_checks();
        let step = e.sim.steps;
        assert!(e.step().unwrap());
        assert!(e.sim.violated(), "{plant}");
        let v = e.trace.violations.last().expect("a violation kept");
        assert_eq!(
            (v.step, v.violation.invariant),
            (step, invariant),
            "{plant}"
        );
        assert_eq!(Some(&v.violation), check_full(&e.sim).as_ref(), "{plant}");
    }
}

/// The violations `plant_violation` plants, and the invariant each breaks.
const PLANTS: [(&str, &str); 4] = [
    ("second leader of a term", "Election Safety"),
    ("rule broken", "Leader Append-Only"),
    ("different entry applied", "State Machine Safety"),
    ("leader's log cut", "Leader Completeness"),
];

/// Three nodes with writes for 3 s, every step cross-checked clean (`what` names the run in
/// failures); returns the engine, its memo and the leader.
fn steady_run(what: &str) -> (Engine<RaftKv>, Memo, usize) {
    let mut e = engine(3, "client_rate = 50", 7);
    let memo = Memo::default();
    let mut seen = BTreeMap::new();
    cross_check(&mut e, &memo, 3_000 * US_PER_MS, what, &mut seen);
    assert!(seen.is_empty(), "{what}: {seen:?}");
    let l = (0..3)
        .find(|&k| e.sim.nodes[k].state.is_leader())
        .expect("a leader after 3 s");
    (e, memo, l)
}

/// Plants `plant` by hand in a steady three-node run whose leader is `l`: on its follower
/// `(l + 1) % 3`, or in the leader's own log for "leader's log cut".
fn plant_violation(e: &mut Engine<RaftKv>, l: usize, plant: &str) {
    let f = (l + 1) % 3;
    match plant {
        "second leader of a term" => {
            let term = e.sim.nodes[l].state.term;
            e.sim.nodes[f].state.ghost.led.push(term);
        }
        "rule broken" => {
            e.sim.nodes[f].state.ghost.broken = Some("leader truncated its log".into());
        }
        "different entry applied" => {
            // The leader's last applied entry, different at `f` (with its hash kept as
            // `Ghost::apply` keeps it: the fingerprint both checks rely on).
            let mut applied = e.sim.nodes[l].state.ghost.applied.clone();
            *applied.last_mut().unwrap() = 0xDEAD_BEEF;
            let node = &mut e.sim.nodes[f].state;
            node.ghost.applied_hash = (1..).zip(&applied).fold(0, |h, (i, &c)| chain(h, i, c));
            node.ghost.applied = applied;
        }
        "leader's log cut" => {
            let commit = e.sim.nodes[l].state.commit;
            e.sim.nodes[l].state.cut(commit - 5);
        }
        _ => panic!("unknown plant {plant}"),
    }
}
