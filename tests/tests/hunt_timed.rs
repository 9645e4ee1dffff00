//! Timed cuts in the hunt (issue 43: a cut with `down_for` is one written action that starts a
//! cut and ends it): the shrink's step that writes a cut and the heal that ends only it as one
//! timed cut, the step that shortens it, the heal that also ends another fault's cut left as it
//! is, and the found file that writes it and parses again.

use clusterscope_core::engine::action::{Action, Dur};
use clusterscope_core::hunt::{self, Fault, Found, Kind, Plan, Runner, Space, Target, Verdict};
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::time::Micros;
use clusterscope_core::Scenario;

#[path = "support/hunting.rs"]
mod hunting;
use hunting::{file, shrink};

const S: Micros = 1_000_000;

fn setup() -> (Scenario, Limits, Plan, Space) {
    let s = file("scenarios/sandbox-raft.toml");
    let l = Limits::default();
    let p = Plan::new(
        &s,
        "sandbox",
        &toml::Table::new(),
        Target::Invariants,
        Kind::parse_list("partition,command,restart").unwrap(),
        1,
        100,
        &l,
    )
    .unwrap();
    let space = Space::of(&s, &p, &l).unwrap();
    (s, l, p, space)
}

fn groups_n1() -> Vec<Vec<String>> {
    vec![
        vec!["n1".into()],
        ["n2", "n3", "n4", "n5"].map(String::from).to_vec(),
    ]
}

fn cut_n1(down_for: Option<Micros>) -> Action {
    Action::Partition {
        groups: groups_n1(),
        down_for: down_for.map(Dur),
    }
}

fn put(node: &str) -> Action {
    Action::Command {
        node: node.into(),
        command: "client-put x 1".into(),
    }
}

/// Whether n1 is cut off at `t` by `acts`, as the engine runs them: a partition cutting off n1
/// cuts it, a `heal-all` heals it, a timed cut's end heals it if no later cut or heal came.
fn n1_cut_at(acts: &[(Micros, Action)], t: Micros) -> bool {
    // Events: (time, order, Some(cut token) | None for a heal, is the end of token).
    let mut ev: Vec<(Micros, usize, bool, Option<usize>)> = Vec::new();
    for (i, (at, a)) in acts.iter().enumerate() {
        match a {
            Action::Partition { groups, down_for } if *groups == groups_n1() => {
                ev.push((*at, i, true, None));
                if let Some(d) = down_for {
                    ev.push((at + d.0, acts.len() + i, false, Some(i)));
                }
            }
            Action::HealAll {} => ev.push((*at, i, false, None)),
            _ => {}
        }
    }
    ev.sort_by_key(|e| (e.0, e.1));
    let mut owner: Option<Option<usize>> = None;
    for (at, i, cut, end) in ev {
        if at > t {
            break;
        }
        match (cut, end) {
            (true, _) => owner = Some(Some(i)),
            (false, None) => owner = None,
            (false, Some(tok)) => {
                if owner == Some(Some(tok)) {
                    owner = None
                }
            }
        }
    }
    owner.is_some()
}

/// Fails when n1 is cut off from 2 s through 3 s, a write reaches n1 in that time, and n1 is
/// back by 8 s: a cut that must heal.
struct CutThatHeals;

impl Runner for CutThatHeals {
    fn run(&self, _: &Scenario, _: &Plan, _: u64, faults: &[Fault], _: &Limits) -> Verdict {
        let acts = hunt::actions(faults);
        let cut = (0..=4).all(|k| n1_cut_at(&acts, 2 * S + k * S / 4));
        let write = acts
            .iter()
            .any(|(t, a)| *a == put("n1") && (2 * S..=3 * S).contains(t) && n1_cut_at(&acts, *t));
        if cut && write && !n1_cut_at(&acts, 8 * S) {
            Verdict::Found("cut, write, heal".into())
        } else {
            Verdict::Held
        }
    }
}

fn planted() -> Vec<Fault> {
    vec![
        Fault {
            at: S,
            action: Action::Restart {
                node: "n3".into(),
                kill: false,
                down_for: Some(Dur(S)),
            },
            during: None,
            undo: None,
        },
        Fault {
            at: 3 * S / 2,
            action: cut_n1(None),
            during: Some((5 * S / 2, put("n1"))),
            undo: Some((15 * S / 2, Action::HealAll {})),
        },
        Fault {
            at: 9 * S,
            action: put("n2"),
            during: None,
            undo: None,
        },
    ]
}

#[test]
fn the_stand_in_reads_timed_cuts_as_the_engine_runs_them() {
    // For itself: the planted schedule fails, and so does its timed form; a timed cut too
    // short, or a cut without a heal, does not.
    let (s, l, p, _) = setup();
    assert!(CutThatHeals.run(&s, &p, 1, &planted(), &l).found());
    let timed = |d: Option<Micros>| {
        vec![Fault {
            at: 3 * S / 2,
            action: cut_n1(d),
            during: Some((5 * S / 2, put("n1"))),
            undo: None,
        }]
    };
    assert!(CutThatHeals.run(&s, &p, 1, &timed(Some(2 * S)), &l).found());
    assert!(!CutThatHeals.run(&s, &p, 1, &timed(Some(S)), &l).found());
    assert!(!CutThatHeals.run(&s, &p, 1, &timed(None), &l).found());
}

/// The planted bug needs a cut that heals: a whole shrink (`finish_by`: the schedule's, the
/// seed's, then the timed cuts) ends at its timed form, 2 written actions (the timed cut and
/// the write), down from 5; the heal is gone, and the cut is shortened from 6 s to what the
/// failure needs (through 3 s, ending by 8 s), then rounded.
#[test]
fn a_cut_and_its_heal_shrink_to_one_timed_cut() {
    let (s, l, p, space) = setup();
    let c = hunt::Candidate {
        index: 0,
        seed: 1,
        kinds: p.kinds.clone(),
        focus: space.nodes.clone(),
        faults: planted(),
    };
    let f = hunt::finish_by(
        &CutThatHeals,
        &s,
        &p,
        &space,
        c,
        false,
        false,
        &l,
        &mut |_, _| {},
    );
    assert!(CutThatHeals.run(&s, &p, f.seed, &f.shrunk, &l).found());
    assert!(f.reruns <= hunt::most_reruns(&p), "{}", f.reruns);
    let acts = hunt::actions(&f.shrunk);
    assert_eq!(acts.len(), 2, "{acts:?}");
    assert_eq!(f.shrunk.len(), 1, "{:?}", f.shrunk);
    let g = &f.shrunk[0];
    let Action::Partition {
        groups,
        down_for: Some(d),
    } = &g.action
    else {
        panic!("not a timed cut: {g:?}");
    };
    assert_eq!(*groups, groups_n1());
    assert!(g.undo.is_none(), "{g:?}");
    assert!(
        g.at <= 2 * S && g.at + d.0 > 3 * S && g.at + d.0 <= 8 * S,
        "{g:?}"
    );
    // Shortened (found: 6 s) and rounded: 1.5 s halves to 3 s, then to the second.
    assert!(d.0 <= 3 * S && d.0 % (S / 10) == 0, "{g:?}");
    assert!(matches!(&g.during, Some((t, a)) if *a == put("n1") && (2 * S..=3 * S).contains(t)));
    // The shrink without its last step keeps the cut and its heal: 3 actions.
    let sh = shrink(&CutThatHeals, &s, &p, &space, 1, &planted(), &l);
    assert_eq!(hunt::actions(&sh.faults).len(), 3, "{:?}", sh.faults);
}

/// A `heal-all` that also ends another fault's cut (one heal for two cuts) is not written as
/// the end of one of them: the step leaves the schedule as it is. A heal-all while no other
/// cut is in force, and a cut with its own `heal-link`, are.
#[test]
fn a_heal_that_ends_another_cut_is_not_merged() {
    let other_cut = Fault {
        at: S,
        action: Action::DropLink {
            from: "n2".into(),
            to: "n3".into(),
            one_way: false,
            down_for: None,
        },
        during: None,
        undo: None,
    };
    let mut faults = planted();
    faults.push(other_cut.clone());
    // planted()[1]'s heal-all at 7.5 s ends the n2<->n3 cut too.
    assert_eq!(hunt::as_timed_cut(&faults, 1), None);
    // With the other cut healed by its own heal-link before 4 s: merged.
    let mut healed = other_cut.clone();
    healed.undo = Some((
        3 * S,
        Action::HealLink {
            from: "n2".into(),
            to: "n3".into(),
            one_way: false,
        },
    ));
    let mut faults = planted();
    faults.push(healed.clone());
    let g = hunt::as_timed_cut(&faults, 1).expect("merged");
    assert_eq!(g.action, cut_n1(Some(6 * S)));
    assert_eq!(g.undo, None);
    assert_eq!(g.during, planted()[1].during);
    // That drop-link and its own heal-link, alone: a timed drop-link of 2 s. (Beside the n1 cut,
    // still in force at 3 s, it is left as it is: the rule is any other link state in force at
    // the heal, the conservative reading for a heal-link.)
    assert_eq!(hunt::as_timed_cut(&faults, 3), None);
    let g = hunt::as_timed_cut(&[healed.clone()], 0).expect("merged");
    assert_eq!(
        g.action,
        Action::DropLink {
            from: "n2".into(),
            to: "n3".into(),
            one_way: false,
            down_for: Some(Dur(2 * S)),
        }
    );
    // A heal-link of another link does not end the cut.
    let mut wrong = healed;
    wrong.undo = Some((
        3 * S,
        Action::HealLink {
            from: "n2".into(),
            to: "n4".into(),
            one_way: false,
        },
    ));
    assert_eq!(hunt::as_timed_cut(&[wrong], 0), None);
    // Another timed cut still in force at the heal: not merged; ended before it: merged.
    let mut faults = planted();
    let timed = |d| Fault {
        at: S,
        action: Action::DropLink {
            from: "n2".into(),
            to: "n3".into(),
            one_way: false,
            down_for: Some(Dur(d)),
        },
        during: None,
        undo: None,
    };
    faults.push(timed(7 * S));
    assert_eq!(hunt::as_timed_cut(&faults, 1), None);
    faults.pop();
    faults.push(timed(S));
    assert!(hunt::as_timed_cut(&faults, 1).is_some());
}

/// What the hunt writes (`found_scenario`, `--out`) with a timed cut parses again to the same
/// schedule, `down_for` and all, and the engine runs that file.
#[test]
fn a_found_file_with_a_timed_cut_round_trips() {
    let (s, _, p, _) = setup();
    let shrunk = vec![Fault {
        at: 3 * S / 2,
        action: cut_n1(Some(2 * S)),
        during: Some((5 * S / 2, put("n1"))),
        undo: None,
    }];
    let found = Found {
        index: 0,
        seed: 7,
        found_seed: None,
        original: planted(),
        shrunk: shrunk.clone(),
        detail: "planted".into(),
        reruns: 3,
        nodes: None,
    };
    let text = hunt::found_scenario(&s, &p, &found).unwrap();
    assert!(text.contains("down_for = \"2s\""), "{text}");
    let again = Scenario::parse("found.toml", &text, &Limits::default()).unwrap();
    let want = hunt::actions(&shrunk);
    let n = again.faults.len();
    assert_eq!(again.faults[n - want.len()..], want[..]);
    // Replayed: nothing skipped, and the cut of n1 ends at exactly 3.5 s with its 8 links.
    let mut run = Run::new(
        again,
        "sandbox",
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    run.run(None).unwrap();
    assert_eq!(run.skipped_faults(), Vec::<String>::new());
    let tr = run.trace();
    let ends: Vec<(Micros, &str)> = tr
        .logs
        .iter()
        .map(|l| (l.time, tr.text(l)))
        .filter(|(_, t)| t.contains("timed cut"))
        .collect();
    assert_eq!(
        ends,
        vec![(
            7 * S / 2,
            "the timed cut partition [n1] | [n2,n3,n4,n5] for 2s (at 1500ms) ended: 8 links up again"
        )]
    );
}
