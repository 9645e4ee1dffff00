//! A command while a follower is away (`CommandSpec::follower_away`, docs/HUNTING.md): a model
//! that declares a command to matter while a follower of its leader lags (Ozone: SCM's
//! `close-container`) has half its command faults drawn as one compound fault, a follower cut off
//! alone or one of its threads stalled, the command in between, the follower back later. It is
//! drawn only there, resolved at the follower of its time, removed whole by the shrink, and it
//! finds HDDS-17673's pipeline close by the ticket's route (a failed read-back of a zero-byte
//! chunk for a lagging follower), which the fixed code survives.

use clusterscope_core::engine::action::Action;
use clusterscope_core::hunt::{self, Fault, Kind, Plan, Space, Target, Verdict};
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::Scenario;

#[path = "support/hunting.rs"]
mod hunting;
use hunting::{file, shrink};

const CLOSED_BY_READ: &str = "the pipeline was not closed by a failed chunk read";
const CLOSE: &str = "close-container 1";

fn ozone() -> Scenario {
    file("docs/hunting/ozone-17673.toml")
}

fn plan(s: &Scenario, variant: &str, target: &str, kinds: &str, runs: u64) -> Plan {
    plan_on(1, s, variant, target, kinds, runs)
}

/// [`plan`] with another hunt seed.
fn plan_on(
    hunt_seed: u64,
    s: &Scenario,
    variant: &str,
    target: &str,
    kinds: &str,
    runs: u64,
) -> Plan {
    Plan::new(
        s,
        variant,
        &toml::Table::new(),
        Target::Expectation(target.into()),
        Kind::parse_list(kinds).unwrap(),
        hunt_seed,
        runs,
        &Limits::default(),
    )
    .unwrap()
}

/// The compound as the generator writes it: the `k`-th follower cut off alone from `at` to
/// `until`, SCM's close at `close`.
fn away(k: u32, at: u64, close: u64, until: u64) -> Fault {
    Fault {
        at,
        action: Action::Partition {
            groups: vec![vec![hunt::follower(k)]],
            down_for: None,
        },
        during: Some((
            close,
            Action::Command {
                node: "scm".into(),
                command: CLOSE.into(),
            },
        )),
        undo: Some((until, Action::HealAll {})),
    }
}

fn is_away(f: &Fault) -> bool {
    hunt::aims_at_follower(f)
        && matches!(&f.during, Some((_, Action::Command { node, command }))
            if node == "scm" && command == CLOSE)
}

/// The Ozone hunt draws the compound (cut or stall, SCM's close in between), about as often as
/// half its command faults; models that declare no such command never do (their candidates carry
/// no follower and no compound with a command at another node).
#[test]
fn a_command_while_a_follower_is_away_is_drawn_only_where_the_model_declares_it() {
    let l = Limits::default();
    let s = ozone();
    let p = plan(&s, "buggy", CLOSED_BY_READ, "all", 2_000);
    let space = Space::of(&s, &p, &l).unwrap();
    assert_eq!(space.away, vec![CLOSE.to_string()]);
    let (mut cuts, mut stalls, mut commands) = (0, 0, 0);
    for i in 0..2_000 {
        for f in hunt::candidate(&p, &space, i).faults {
            if is_away(&f) {
                let (d, _) = f.during.as_ref().unwrap();
                let (u, back) = f.undo.as_ref().unwrap();
                assert!(f.at < *d && d <= u, "{f:?}");
                match (&f.action, back) {
                    (Action::Partition { groups, .. }, Action::HealAll {}) => {
                        assert_eq!(groups.len(), 1);
                        cuts += 1;
                    }
                    (Action::Stall { .. }, Action::Release { .. }) => stalls += 1,
                    other => panic!("{other:?}"),
                }
            } else if matches!(f.action, Action::Command { .. }) {
                assert!(!hunt::aimed(&f), "{f:?}");
                commands += 1;
            }
        }
    }
    // Half the command faults are the compound: cut and stall each about half of those.
    let compound = cuts + stalls;
    assert!(
        compound > 100 && cuts > 40 && stalls > 40,
        "{cuts} {stalls}"
    );
    let ratio = compound as f64 / (compound + commands) as f64;
    assert!(
        (0.4..0.6).contains(&ratio),
        "{compound} of {}",
        compound + commands
    );
    // Raft (a leader, no such command) and gossip (neither): never drawn.
    for (s, v, target, kinds) in [
        (
            file("scenarios/sandbox-raft.toml"),
            "sandbox",
            "one leader once the election settles",
            "all,leader",
        ),
        (
            file("docs/hunting/gossip-21636.toml"),
            "buggy",
            "every node sees every other UP at the end",
            "all",
        ),
    ] {
        let p = plan(&s, v, target, kinds, 500);
        let space = Space::of(&s, &p, &l).unwrap();
        assert!(space.away.is_empty());
        for i in 0..500 {
            for f in hunt::candidate(&p, &space, i).faults {
                assert!(!hunt::aims_at_follower(&f), "{f:?}");
            }
        }
    }
}

/// `resolve` aims the compound at the `k`-th follower at its time: a datanode of the pipeline
/// that does not lead then (SCM is no member); the same node every time; before the first
/// election every datanode follows.
#[test]
fn the_follower_away_is_the_kth_follower_at_its_time() {
    let l = Limits::default();
    let s = ozone();
    let p = plan(&s, "buggy", CLOSED_BY_READ, "all", 10);
    let seed = 11;
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: l.clone(),
    };
    let at_time = |t: u64| {
        let mut run = Run::new(s.clone(), "buggy", Some(seed), &toml::Table::new(), &opts).unwrap();
        run.engine.run_until(t - 1, u64::MAX).unwrap();
        (run.engine.leader(), run.engine.followers())
    };
    // 1 s: no leader yet (Ozone's first election is about 5 s in): dn1, dn2, dn3 follow.
    let (leader, followers) = at_time(1_000_000);
    assert_eq!(leader, None);
    assert_eq!(followers, vec![0, 1, 2]);
    // 8 s: one leads, the two others follow.
    let (leader, followers) = at_time(8_000_000);
    let leader = leader.expect("a leader at 8 s");
    assert_eq!(followers.len(), 2);
    assert!(!followers.contains(&leader) && !followers.contains(&3));
    for (t, expect) in [(1_000_000, vec![0, 1, 2]), (8_000_000, followers)] {
        for k in 0..4u32 {
            let f = away(k, t, t + 100_000, t + 1_000_000);
            let r = hunt::resolve(&s, &p, seed, std::slice::from_ref(&f), &l).unwrap();
            assert_eq!(r, hunt::resolve(&s, &p, seed, &[f], &l).unwrap());
            let want = &s.topo.names[expect[k as usize % expect.len()] as usize];
            assert_eq!(r.len(), 1);
            assert!(!hunt::aimed(&r[0]), "{r:?}");
            match &r[0].action {
                Action::Partition { groups, .. } => {
                    assert_eq!(groups.len(), 2, "{groups:?}");
                    assert!(groups.contains(&vec![want.clone()]), "{groups:?} {want}");
                }
                other => panic!("{other:?}"),
            }
            // The close in between and the heal are kept as they were.
            assert!(
                matches!(&r[0].during, Some((d, Action::Command { node, .. }))
                if *d == t + 100_000 && node == "scm")
            );
            assert_eq!(r[0].undo, Some((t + 1_000_000, Action::HealAll {})));
        }
    }
}

/// HDDS-17673's pipeline close, found by the compound (hunt seed 2 of `--faults all`, run 493
/// since the appender's connection errors, h/raftfid; run 466 as measured in docs/HUNTING.md since the model has Ozone's ten chunk executors, where hunt seed
/// 1's first find, run 1499, is a stall of one of the leader's chunk executors over SCM's close,
/// no compound; before: seed 1's run 3235 since the datanodes' heartbeats are messages, run 1476
/// before that): shrunk to at most 5 actions with SCM's close and a datanode
/// away over it, and the fixed code holds on the shrunk schedule. Then the shrink on a schedule
/// of two compounds and a delay: the one that does not matter (a late stall) is removed whole,
/// the one that does is kept whole (its three actions).
#[test]
fn the_pipeline_close_is_found_by_a_close_while_a_follower_is_away_and_shrunk_whole() {
    let l = Limits::default();
    let s = ozone();
    let p = plan_on(2, &s, "buggy", CLOSED_BY_READ, "all", 10_000);
    let space = Space::of(&s, &p, &l).unwrap();
    let c = hunt::candidate(&p, &space, 492);
    assert!(c.faults.iter().any(is_away), "{:?}", c.faults);
    let found = hunt::search(&s, &p, &space, 492..493, &l, &mut |_| {}).expect("found");
    assert!(found.detail.contains("read failed"), "{}", found.detail);
    let acts = hunt::actions(&found.shrunk);
    assert!(acts.len() <= 5, "{acts:?}");
    assert!(
        acts.iter().any(|(_, a)| matches!(a,
            Action::Command { node, command } if node == "scm" && command == CLOSE)),
        "{acts:?}"
    );
    let fs = found.scenario(&s, &p, &l);
    assert!(hunt::try_run(&fs, &p, found.seed, &found.shrunk, &l).found());
    let fixed = plan(&s, "fixed", CLOSED_BY_READ, "all", 10_000);
    assert_eq!(
        hunt::try_run(&fs, &fixed, found.seed, &found.shrunk, &l),
        Verdict::Held
    );

    // dn3 (the third follower before the first election) cut off 4.1-5.4 s with SCM's close at
    // 4.1 s fails the target on seed 3428989595 (hunt seed 3's find on seed 3177818320 before
    // the ten chunk executors, which that seed no longer fails; this compound fails on 54 of 399
    // seeds tried, `i * 2654435761 mod 2^32` for i in 1..400, this one first).
    let seed = 3_428_989_595;
    let needed = away(2, 4_100_000, 4_100_000, 5_400_000);
    assert!(hunt::try_run(&s, &p, seed, std::slice::from_ref(&needed), &l).found());
    assert_eq!(
        hunt::try_run(&s, &fixed, seed, std::slice::from_ref(&needed), &l),
        Verdict::Held
    );
    // A close while a follower is away before any leader could take it (0.5 s) does not (the
    // replicas stay CLOSING: no WriteChunk races a close).
    let early = away(0, 500_000, 600_000, 1_500_000);
    assert_eq!(
        hunt::try_run(&s, &p, seed, std::slice::from_ref(&early), &l),
        Verdict::Held
    );

    let delay = Fault {
        at: 6_500_000,
        action: Action::SetLatency {
            from: "dn1".into(),
            to: "scm".into(),
            min: clusterscope_core::engine::action::Dur(1_000),
            max: clusterscope_core::engine::action::Dur(5_000),
            one_way: true,
        },
        during: None,
        undo: Some((
            6_600_000,
            Action::HealLink {
                from: "dn1".into(),
                to: "scm".into(),
                one_way: true,
            },
        )),
    };
    // A stall of a follower's LogAppender with a command at dn1 in between, late (6.5-6.9 s):
    // not needed. (A second close would be refused: container 1 is CLOSING by then.)
    let late = Fault {
        at: 6_500_000,
        action: Action::Stall {
            node: hunt::follower(0),
            executor: "LogAppender".into(),
        },
        during: Some((
            6_600_000,
            Action::Command {
                node: "dn1".into(),
                command: "release-writes".into(),
            },
        )),
        undo: Some((
            6_900_000,
            Action::Release {
                node: hunt::follower(0),
                executor: "LogAppender".into(),
            },
        )),
    };
    let faults = vec![needed.clone(), late, delay];
    assert!(hunt::try_run(&s, &p, seed, &faults, &l).found());
    let sh = shrink(&hunt::Direct, &s, &p, &space, seed, &faults, &l);
    // One fault left, the compound whole (its times may be shortened, moved, rounded): dn3 cut
    // off alone, SCM's close in between, the heal.
    assert_eq!(sh.faults.len(), 1, "{:?}", sh.faults);
    let f = &sh.faults[0];
    assert!(
        matches!(&f.action, Action::Partition { groups, .. }
        if groups.contains(&vec!["dn3".to_string()])),
        "{f:?}"
    );
    assert!(
        matches!(&f.during, Some((_, Action::Command { node, command }))
        if node == "scm" && command == CLOSE),
        "{f:?}"
    );
    assert!(matches!(f.undo, Some((_, Action::HealAll {}))), "{f:?}");
    assert_eq!(hunt::actions(&sh.faults).len(), 3);
    assert!(hunt::try_run(&s, &p, seed, &sh.faults, &l).found());
}

/// A planted bug: "found" whenever the schedule holds SCM's close (the command alone is enough).
struct CloseFails;

impl hunt::Runner for CloseFails {
    fn run(&self, _: &Scenario, _: &Plan, _: u64, faults: &[Fault], _: &Limits) -> Verdict {
        let close = hunt::actions(faults).iter().any(|(_, a)| {
            matches!(a, Action::Command { node, command } if node == "scm" && command == CLOSE)
        });
        if close {
            Verdict::Found("the close".into())
        } else {
            Verdict::Held
        }
    }
}

/// The shrink writes a compound whose command is at another node than the one away as the
/// command alone when that still fails (simplify step 9), and leaves a stranding's shape (the
/// command at the node cut off) as it is.
#[test]
fn a_command_while_a_follower_is_away_shrinks_to_the_command_alone_when_that_fails() {
    let l = Limits::default();
    let s = ozone();
    let p = plan(&s, "buggy", CLOSED_BY_READ, "all", 10);
    let space = Space::of(&s, &p, &l).unwrap();
    let mut f = away(0, 4_000_000, 4_500_000, 5_000_000);
    f.action = Action::Partition {
        groups: vec![
            vec!["dn2".into()],
            vec!["dn1".into(), "dn3".into(), "scm".into()],
        ],
        down_for: None,
    };
    let sh = shrink(&CloseFails, &s, &p, &space, 1, &[f], &l);
    assert_eq!(sh.faults.len(), 1, "{:?}", sh.faults);
    assert!(sh.faults[0].during.is_none() && sh.faults[0].undo.is_none());
    assert!(matches!(&sh.faults[0].action,
        Action::Command { node, command } if node == "scm" && command == CLOSE));
    // SCM itself cut off alone with the close at it: the command stays inside its cut.
    let mut g = away(0, 4_000_000, 4_500_000, 5_000_000);
    g.action = Action::Partition {
        groups: vec![
            vec!["dn1".into(), "dn2".into(), "dn3".into()],
            vec!["scm".into()],
        ],
        down_for: None,
    };
    let sh = shrink(&CloseFails, &s, &p, &space, 1, &[g], &l);
    assert_eq!(hunt::actions(&sh.faults).len(), 3, "{:?}", sh.faults);
}
