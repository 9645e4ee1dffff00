//! The hunt's shrink steps on small cases (issue 43), each with a stand-in runner whose failure
//! condition is written out here, so that what a step must reach is known: two faults of one
//! lasting action joined into one, the seed shrink probing more seeds while the schedule is
//! large, a cut that the node's own restart ends written as a stall without a heal, the
//! bound of a whole shrink's re-runs (`hunt::most_reruns`), and schedules of one action fewer
//! tried on other seeds (h/fig8z: with a stand-in runner, and on Figure 8 of hunt seed 2).

use clusterscope_core::engine::action::Action;
use clusterscope_core::hunt::{self, Fault, Kind, Plan, Runner, Space, Target, Verdict};
use clusterscope_core::limits::Limits;
use clusterscope_core::time::Micros;
use clusterscope_core::Scenario;

#[path = "support/hunting.rs"]
mod hunting;
use hunting::{file, shrink};

fn sandbox_raft() -> Scenario {
    file("scenarios/sandbox-raft.toml")
}

/// sandbox-raft with the default limits, a plan of `kinds` and its space: each test's start.
fn setup(kinds: &str) -> (Scenario, Limits, Plan, Space) {
    let s = sandbox_raft();
    let l = Limits::default();
    let p = plan(&s, kinds);
    let space = Space::of(&s, &p, &l).unwrap();
    (s, l, p, space)
}

fn plan(s: &Scenario, kinds: &str) -> Plan {
    Plan::new(
        s,
        "sandbox",
        &toml::Table::new(),
        Target::Invariants,
        Kind::parse_list(kinds).unwrap(),
        1,
        100,
        &Limits::default(),
    )
    .unwrap()
}

const S: Micros = 1_000_000;

fn cut_n1() -> Action {
    Action::Partition {
        groups: vec![
            vec!["n1".into()],
            ["n2", "n3", "n4", "n5"].map(String::from).to_vec(),
        ],
        down_for: None,
    }
}

fn put_n1() -> Action {
    Action::Command {
        node: "n1".into(),
        command: "client-put x 1".into(),
    }
}

/// Fails when n1 is cut off from 2 s through 5 s and a write reaches n1 between 3 s and 4 s.
struct CutAndWrite;

impl Runner for CutAndWrite {
    fn run(&self, _: &Scenario, _: &Plan, _: u64, faults: &[Fault], _: &Limits) -> Verdict {
        let acts = hunt::actions(faults);
        let cut_at = |t: Micros| {
            acts.iter()
                .rev()
                .find(|(at, a)| {
                    *at <= t && matches!(a, Action::Partition { .. } | Action::HealAll {})
                })
                .is_some_and(|(_, a)| *a == cut_n1())
        };
        let cut = (0..=6).all(|k| cut_at(2 * S + k * S / 2));
        let write = acts
            .iter()
            .any(|(t, a)| *a == put_n1() && (3 * S..=4 * S).contains(t) && cut_at(*t));
        if cut && write {
            Verdict::Found("cut and write".into())
        } else {
            Verdict::Held
        }
    }
}

/// A cut left without its heal (another fault's heals it) and the same cut again, with the write
/// and a heal: neither can be removed (the first starts the cut in time, the second carries the
/// write), but the two join into one cut from the first's start, with the write, healed at the
/// second's heal: 4 actions to 3.
#[test]
fn two_faults_of_one_cut_are_joined_into_one() {
    let (s, l, p, space) = setup("partition,command");
    let faults = vec![
        Fault {
            at: 3 * S / 2,
            action: cut_n1(),
            during: None,
            undo: None,
        },
        Fault {
            at: 5 * S / 2,
            action: cut_n1(),
            during: Some((7 * S / 2, put_n1())),
            undo: Some((6 * S, Action::HealAll {})),
        },
    ];
    assert!(CutAndWrite.run(&s, &p, 1, &faults, &l).found());
    let sh = shrink(&CutAndWrite, &s, &p, &space, 1, &faults, &l);
    assert!(CutAndWrite.run(&s, &p, 1, &sh.faults, &l).found());
    let acts = hunt::actions(&sh.faults);
    assert_eq!(acts.len(), 3, "{acts:?}");
    assert_eq!(sh.faults.len(), 1, "{:?}", sh.faults);
    let f = &sh.faults[0];
    assert_eq!(f.action, cut_n1());
    assert!(f.at <= 2 * S, "{f:?}");
    assert!(matches!(&f.during, Some((t, a)) if *a == put_n1() && (3 * S..=4 * S).contains(t)));
    assert!(matches!(&f.undo, Some((t, Action::HealAll {})) if *t >= 5 * S));
}

/// The same two faults listed the other way round (a schedule's faults are in draw order, not
/// time order): the later-listed one is the earlier cut, so the join keeps that place and
/// removes a fault listed before it. The shrink panicked there (an index past the end, found
/// by a Figure 8 hunt on the Raft model of stop 56); now it joins them as above.
#[test]
fn a_join_with_a_fault_listed_before_it() {
    let (s, l, p, space) = setup("partition,command");
    let faults = vec![
        Fault {
            at: 5 * S / 2,
            action: cut_n1(),
            during: Some((7 * S / 2, put_n1())),
            undo: Some((6 * S, Action::HealAll {})),
        },
        Fault {
            at: 3 * S / 2,
            action: cut_n1(),
            during: None,
            undo: None,
        },
    ];
    assert!(CutAndWrite.run(&s, &p, 1, &faults, &l).found());
    let sh = shrink(&CutAndWrite, &s, &p, &space, 1, &faults, &l);
    assert!(CutAndWrite.run(&s, &p, 1, &sh.faults, &l).found());
    assert_eq!(sh.faults.len(), 1, "{:?}", sh.faults);
    assert_eq!(hunt::actions(&sh.faults).len(), 3, "{:?}", sh.faults);
}

/// Fails on the found seed with all of its six restarts, and on about one other seed in 100
/// with the restart of n1 alone.
struct OneSeedIn100;

const FOUND_SEED: u64 = 7;

fn restart(node: &str, at: Micros) -> Fault {
    Fault {
        at,
        action: Action::Restart {
            node: node.into(),
            kill: true,
            down_for: None,
        },
        during: None,
        undo: None,
    }
}

/// Six restarts, one a second from 1 s: n1, n2, n3, n4, n5, n2.
fn six_restarts() -> Vec<Fault> {
    ["n1", "n2", "n3", "n4", "n5", "n2"]
        .iter()
        .enumerate()
        .map(|(i, n)| restart(n, (i as u64 + 1) * S))
        .collect()
}

/// The seed shrink of [`six_restarts`] found on [`FOUND_SEED`] by `runner`: the seed, the
/// schedule and the re-runs it ends with, and the plan.
fn seed_shrink_of_six_restarts(runner: &dyn Runner) -> (u64, Vec<Fault>, u32, Plan) {
    let (s, l, p, space) = setup("restart");
    let sh = hunt::Shrinker {
        runner,
        scenario: &s,
        plan: &p,
        space: &space,
        limits: &l,
        panicked: false,
    };
    let (seed, shrunk, reruns) =
        hunt::shrink_seed(&sh, FOUND_SEED, &six_restarts(), 0, &mut |_, _| {});
    (seed, shrunk, reruns, p)
}

impl Runner for OneSeedIn100 {
    fn run(&self, _: &Scenario, _: &Plan, seed: u64, faults: &[Fault], _: &Limits) -> Verdict {
        let n1 = faults.contains(&restart("n1", S));
        if (seed == FOUND_SEED && faults.len() == 6) || (seed.is_multiple_of(100) && n1) {
            Verdict::Found("restarts".into())
        } else {
            Verdict::Held
        }
    }
}

/// The seed shrink goes on past [`hunt::SEED_PROBES`] seeds while the schedule has more than
/// [`hunt::SMALL`] actions: here the first other seed where the schedule fails comes after
/// more than 64 probes (so 64 would keep the six restarts), and it shrinks there to one.
#[test]
fn the_seed_shrink_probes_further_while_the_schedule_is_large() {
    let (seed, shrunk, reruns, p) = seed_shrink_of_six_restarts(&OneSeedIn100);
    assert!(seed.is_multiple_of(100), "seed {seed}");
    assert_eq!(shrunk, vec![restart("n1", S)]);
    // More than 64 seeds were probed (one run each) before the one that fails.
    assert!(reruns > hunt::SEED_PROBES, "{reruns} re-runs");
    assert!(reruns <= p.shrink_reruns, "{reruns} re-runs");
}

/// Fails on the found seed with all six restarts, never on another seed with them, and on one
/// seed in ten with five restarts, n1's among them: a schedule one fault smaller fails on other
/// seeds, the schedule as found on none.
struct FiveElsewhere;

impl Runner for FiveElsewhere {
    fn run(&self, _: &Scenario, _: &Plan, seed: u64, faults: &[Fault], _: &Limits) -> Verdict {
        let n1 = faults.contains(&restart("n1", S));
        if (seed == FOUND_SEED && faults.len() == 6)
            || (seed.is_multiple_of(10) && faults.len() == 5 && n1)
        {
            Verdict::Found("restarts".into())
        } else {
            Verdict::Held
        }
    }
}

/// h/fig8z: while the schedule is large, the seed shrink tries each schedule of one action
/// fewer on other seeds ([`hunt::FEWER_PROBES`] each) after the schedule's own probes: here the six
/// restarts fail on no other seed (the whole schedule's probes alone keep six), five of them
/// with n1's on one seed in ten, so the shrink ends with five on such a seed.
#[test]
fn the_seed_shrink_tries_a_schedule_one_fault_smaller_on_other_seeds() {
    let (seed, shrunk, reruns, p) = seed_shrink_of_six_restarts(&FiveElsewhere);
    assert!(seed.is_multiple_of(10), "seed {seed}");
    assert_eq!(shrunk.len(), 5, "{shrunk:?}");
    assert!(shrunk.contains(&restart("n1", S)), "{shrunk:?}");
    assert!(reruns <= hunt::most_reruns(&p), "{reruns} re-runs");
}

/// Fails when a write reaches n1 while n1 sends nothing (cut off alone, or its `LogAppender`
/// stalled) and n1 is restarted (kill -9) after the write, as a stranded Raft leader whose
/// restart ends its term: the entry stays on n1 alone.
struct StrandedThenRestarted;

fn stall_n1(executor: &str) -> Action {
    Action::Stall {
        node: "n1".into(),
        executor: executor.into(),
    }
}

impl Runner for StrandedThenRestarted {
    fn run(&self, _: &Scenario, _: &Plan, _: u64, faults: &[Fault], _: &Limits) -> Verdict {
        let acts = hunt::actions(faults);
        let restart_n1 = |a: &Action| matches!(a, Action::Restart { node, .. } if node == "n1");
        // The last partition or heal at or before `t` is n1's cut.
        let cut_at = |t: Micros| {
            acts.iter()
                .rev()
                .find(|(at, a)| {
                    *at <= t && matches!(a, Action::Partition { .. } | Action::HealAll {})
                })
                .is_some_and(|(_, a)| *a == cut_n1())
        };
        // The appender stalled at or before `t`, with no release and no restart of n1 since.
        let stalled_at = |t: Micros| {
            acts.iter()
                .rev()
                .find(|(at, a)| {
                    *at <= t
                        && (restart_n1(a)
                            || matches!(a, Action::Stall { node, .. } | Action::Release { node, .. } if node == "n1"))
                })
                .is_some_and(|(_, a)| *a == stall_n1("LogAppender"))
        };
        let found = acts.iter().any(|(t, a)| {
            *a == put_n1()
                && (cut_at(*t) || stalled_at(*t))
                && acts.iter().any(|(r, b)| r > t && restart_n1(b))
        });
        if found {
            Verdict::Found("stranded, then restarted".into())
        } else {
            Verdict::Held
        }
    }
}

/// n1 cut off alone from 2 s, a write reaching it at 3 s, healed at 6 s: one fault.
fn cut_n1_with_write() -> Fault {
    Fault {
        at: 2 * S,
        action: cut_n1(),
        during: Some((3 * S, put_n1())),
        undo: Some((6 * S, Action::HealAll {})),
    }
}

/// Step 1d: n1 cut off alone with a write at it and its own heal, restarted during the cut (4
/// actions). The restart ends a stall but heals no link, so the cut becomes a stall of one of
/// n1's executors without its heal: 3 actions. Only the `LogAppender`'s stall fails here (the
/// model's other executors are tried first and kept out by the re-run).
#[test]
fn a_cut_ended_by_the_nodes_restart_becomes_a_stall_without_a_heal() {
    let (s, l, p, space) = setup("partition,command,restart,stall");
    assert_eq!(
        space.executors,
        ["LogWorker", "LogAppender", "StateMachineUpdater"]
    );
    let faults = vec![
        cut_n1_with_write(),
        Fault {
            at: 4 * S,
            action: Action::Restart {
                node: "n1".into(),
                kill: true,
                down_for: Some(clusterscope_core::engine::action::Dur(S)),
            },
            during: None,
            undo: None,
        },
    ];
    assert!(StrandedThenRestarted.run(&s, &p, 1, &faults, &l).found());
    let sh = shrink(&StrandedThenRestarted, &s, &p, &space, 1, &faults, &l);
    assert!(StrandedThenRestarted.run(&s, &p, 1, &sh.faults, &l).found());
    let acts = hunt::actions(&sh.faults);
    assert_eq!(acts.len(), 3, "{acts:?}");
    assert!(
        sh.faults.iter().any(|f| f.action == stall_n1("LogAppender")
            && f.undo.is_none()
            && matches!(&f.during, Some((_, a)) if *a == put_n1())),
        "{:?}",
        sh.faults
    );
    assert!(!acts
        .iter()
        .any(|(_, a)| matches!(a, Action::Partition { .. } | Action::HealAll {})));
}

/// Without a restart of the cut-off node (here n2 is restarted), nothing would end a stall:
/// the cut and its heal stay.
#[test]
fn a_cut_stays_a_cut_when_no_restart_of_its_node_follows() {
    let (s, l, p, space) = setup("partition,command,restart,stall");
    // Fails on the cut and the write alone (a restart of n1 is not needed here).
    struct CutWrite;
    impl Runner for CutWrite {
        fn run(&self, s: &Scenario, p: &Plan, seed: u64, f: &[Fault], l: &Limits) -> Verdict {
            let mut with = f.to_vec();
            with.push(Fault {
                at: 20 * S,
                action: Action::Restart {
                    node: "n1".into(),
                    kill: true,
                    down_for: None,
                },
                during: None,
                undo: None,
            });
            StrandedThenRestarted.run(s, p, seed, &with, l)
        }
    }
    let faults = vec![cut_n1_with_write(), restart("n2", 4 * S)];
    let sh = shrink(&CutWrite, &s, &p, &space, 1, &faults, &l);
    assert_eq!(sh.faults.len(), 1, "{:?}", sh.faults);
    assert_eq!(sh.faults[0].action, cut_n1());
    assert!(matches!(sh.faults[0].undo, Some((_, Action::HealAll {}))));
}

/// Fails as [`StrandedThenRestarted`] does, and also whenever one of n1's executors is left
/// stalled for good (no release, no restart after it), as a target about recovery fails
/// trivially on a node that never works again.
struct StrandedOrStuck;

impl Runner for StrandedOrStuck {
    fn run(&self, s: &Scenario, p: &Plan, seed: u64, faults: &[Fault], l: &Limits) -> Verdict {
        let acts = hunt::actions(faults);
        let stuck = acts.iter().any(|(t, a)| {
            matches!(a, Action::Stall { node, .. } if node == "n1")
                && !acts.iter().any(|(r, b)| {
                    r >= t
                        && matches!(b, Action::Restart { node, .. } | Action::Release { node, .. }
                            if node == "n1")
                })
        });
        if stuck {
            return Verdict::Found("n1 stalled for good".into());
        }
        StrandedThenRestarted.run(s, p, seed, faults, l)
    }
}

/// Step 1d writes the cut as a stall that n1's restart ends; the next round of removals must
/// not then take the restart away: the stall alone, never released, still "fails", but as a
/// different run (n1 stuck for good) from the one found, in which every fault ended. Found on
/// the CASSANDRA-21636 hunt (hunt seed 5 shrank to one unreleased stall of C's GossipStage).
#[test]
fn a_shrink_does_not_leave_a_fault_that_the_found_run_ended_open() {
    let (s, l, p, space) = setup("partition,command,restart,stall");
    let faults = vec![cut_n1_with_write(), restart("n1", 4 * S)];
    assert!(StrandedOrStuck.run(&s, &p, 1, &faults, &l).found());
    let sh = shrink(&StrandedOrStuck, &s, &p, &space, 1, &faults, &l);
    assert!(StrandedOrStuck.run(&s, &p, 1, &sh.faults, &l).found());
    let acts = hunt::actions(&sh.faults);
    // Still the found run's story: n1 stranded with the write, then restarted.
    assert!(
        StrandedThenRestarted.run(&s, &p, 1, &sh.faults, &l).found(),
        "{acts:?}"
    );
    assert!(
        acts.iter()
            .any(|(_, a)| matches!(a, Action::Restart { node, .. } if node == "n1")),
        "{acts:?}"
    );
    assert_eq!(acts.len(), 3, "{acts:?}");
}

/// Fails with all six restarts on an even seed, and never with fewer: no shrink gets below six
/// actions, so the seed shrink keeps probing (every other seed fails and is shrunk again there)
/// until its bound.
struct SixOnEvenSeeds;

impl Runner for SixOnEvenSeeds {
    fn run(&self, _: &Scenario, _: &Plan, seed: u64, faults: &[Fault], _: &Limits) -> Verdict {
        if seed.is_multiple_of(2) && hunt::actions(faults).len() >= 6 {
            Verdict::Found("six restarts".into())
        } else {
            Verdict::Held
        }
    }
}

/// A whole shrink (the schedule's, then the seed's) spends more than `shrink_reruns` when the
/// schedule stays large, and never more than [`hunt::most_reruns`], the bound the CLI's progress
/// line and the app's hunt card give: they said `shrink_reruns` while a shrink spent up to four
/// times as many.
#[test]
fn a_whole_shrink_stays_within_most_reruns() {
    let (s, l, mut p, space) = setup("restart");
    p.shrink_reruns = 100;
    let faults = six_restarts();
    let c = hunt::Candidate {
        index: 0,
        seed: 2,
        kinds: p.kinds.clone(),
        focus: space.nodes.clone(),
        faults,
    };
    let mut seen = 0;
    let f = hunt::finish_by(
        &SixOnEvenSeeds,
        &s,
        &p,
        &space,
        c,
        false,
        false,
        &l,
        &mut |r, _| seen = seen.max(r),
    );
    assert_eq!(hunt::most_reruns(&p), 600);
    assert_eq!(hunt::actions(&f.shrunk).len(), 6);
    assert!(f.reruns > p.shrink_reruns, "{} re-runs", f.reruns);
    assert!(f.reruns <= hunt::most_reruns(&p), "{} re-runs", f.reruns);
    assert!(seen <= hunt::most_reruns(&p), "progress said {seen}");
}

/// h/fig8z on the Raft model: the Figure-8 hunt's run 4949 of hunt seed 2 (the file's
/// parameters, `--faults leader --max-faults 12`) shrinks to 10 actions on its own seed and on
/// every seed the whole schedule's probes reach; without its first stranding the schedule
/// fails on about 1 seed in 70, and the seed shrink's schedules of one action fewer find one:
/// 7 actions (main: 10), on another seed, still Leader Completeness's count-replicas loss.
#[test]
fn figure_8_of_hunt_seed_2_shrinks_to_seven_on_another_seed() {
    let s = sandbox_raft();
    let l = Limits::default();
    let set: toml::Table = toml::from_str(
        "commit_rule = \"count-replicas\"\npre_vote = false\nleader_startup_entry = false",
    )
    .unwrap();
    let p = Plan::new(
        &s,
        "sandbox",
        &set,
        Target::Invariants,
        Kind::parse_list("leader").unwrap(),
        2,
        50_000,
        &l,
    )
    .unwrap()
    .with_max_faults(12)
    .unwrap();
    let space = Space::of(&s, &p, &l).unwrap();
    let (c, v) = hunt::run_candidate(&s, &p, &space, 4948, &l);
    assert!(v.found(), "{v:?}");
    let found = hunt::finish(&s, &p, &space, c.clone(), &l);
    let n = hunt::actions(&found.shrunk).len();
    assert!(n <= 7, "{n} actions: {:?}", found.shrunk);
    assert_eq!(found.found_seed, Some(c.seed));
    assert!(found.reruns <= hunt::most_reruns(&p), "{}", found.reruns);
    assert!(hunt::try_run(&s, &p, found.seed, &found.shrunk, &l).found());
}
