//! Timed cuts (`down_for` on `drop-link` and `partition`): the links a cut took down are up again
//! at exactly `at + down_for`, and only those no later action cut or healed since.

use super::action::{Action, Dur};
use super::network::Link;
use super::*;
use crate::limits::Limits;
use crate::pingpong::{topology, PingPong};

const S: Micros = 1_000_000;

fn engine(n: u32, schedule: Vec<(Micros, Action)>) -> Engine<PingPong> {
    let proto = PingPong {
        use_worker: false,
        work_us: 1_000,
        deadline_us: None,
        random_target: true,
        serve_on_tick: true,
    };
    Engine::new(
        Sim::new(
            proto,
            topology(n),
            Link::healthy(500, 1_500),
            1,
            schedule,
            Limits::default(),
        ),
        true,
        1 << 20,
    )
}

fn drop(a: &str, b: &str, down_for: Option<Micros>) -> Action {
    Action::DropLink {
        from: a.into(),
        to: b.into(),
        one_way: false,
        down_for: down_for.map(Dur),
    }
}

fn logs(e: &Engine<PingPong>) -> Vec<String> {
    e.trace
        .logs
        .iter()
        .map(|l| e.trace.text(l).to_string())
        .collect()
}

fn up(e: &Engine<PingPong>, a: u32, b: u32) -> bool {
    e.sim.net.link(a, b).up && e.sim.net.link(b, a).up
}

/// Whether link a->b is up after every event up to `t`, and after every one before it.
fn up_around(e: &mut Engine<PingPong>, t: Micros, a: u32, b: u32) -> (bool, bool) {
    e.run_until(t - 1, 1 << 20).unwrap();
    let before = up(e, a, b);
    e.run_until(t, 1 << 20).unwrap();
    (before, up(e, a, b))
}

#[test]
fn a_link_cut_for_one_second_is_up_at_exactly_at_plus_one_second() {
    let mut e = engine(3, vec![(S, drop("n0", "n1", Some(S)))]);
    assert_eq!(up_around(&mut e, S, 0, 1), (true, false));
    assert_eq!(up_around(&mut e, 2 * S, 0, 1), (false, true));
    // Only its link: n0<->n2 was never cut.
    assert!(up(&e, 0, 2));
    // Its end is in the log, with the cut it ends.
    let logs = logs(&e);
    assert!(
        logs.iter()
            .any(|l| l.contains("timed cut drop n0<->n1 for 1s (at 1s) ended: 2 links")),
        "{logs:?}"
    );
    // Messages flow again after it: n0 hears from n1 after 2 s.
    let before = e.sim.nodes[0].state.received;
    e.run_until(4 * S, 1 << 20).unwrap();
    assert!(e.sim.nodes[0].state.received > before);
}

#[test]
fn a_timed_partition_restores_its_cross_links_and_keeps_what_later_actions_did() {
    let sched = vec![
        (
            S,
            Action::Partition {
                groups: vec![
                    vec!["n0".into()],
                    vec!["n1".into(), "n2".into(), "n3".into()],
                ],
                down_for: Some(Dur(2 * S)),
            },
        ),
        // A later cut for good of one of its links: that link stays down.
        (2 * S, drop("n0", "n1", None)),
        // A heal of another, then a cut for good: the later actions own it.
        (
            S + S / 2,
            Action::HealLink {
                from: "n0".into(),
                to: "n2".into(),
                one_way: false,
            },
        ),
        (S + S / 2 + 1, drop("n0", "n2", None)),
        // Loss set meanwhile on the third: not a cut or heal, so the cut still ends it, and
        // the loss stays.
        (
            2 * S,
            Action::SetLoss {
                from: "n0".into(),
                to: "n3".into(),
                loss: 0.5,
                one_way: false,
            },
        ),
    ];
    let mut e = engine(4, sched);
    e.run_until(S, 1 << 20).unwrap();
    assert!(!up(&e, 0, 1) && !up(&e, 0, 2) && !up(&e, 0, 3));
    assert!(up(&e, 1, 2) && up(&e, 2, 3));
    assert_eq!(up_around(&mut e, 3 * S, 0, 3), (false, true));
    assert_eq!(e.sim.net.link(0, 3).loss, 0.5);
    assert!(!up(&e, 0, 1), "a later drop-link keeps its link down");
    assert!(!up(&e, 0, 2), "a heal and a cut since: the later cut's");
    e.run_until(10 * S, 1 << 20).unwrap();
    assert!(!up(&e, 0, 1) && !up(&e, 0, 2));
}

#[test]
fn the_later_timed_cut_of_a_link_decides_its_end_and_a_heal_all_ends_both() {
    // Cut for 5 s, then cut again at 2 s for 1 s: the link is the second's, up at 3 s; the
    // first's end at 6 s finds nothing of its own.
    let mut e = engine(
        3,
        vec![
            (S, drop("n0", "n1", Some(5 * S))),
            (2 * S, drop("n0", "n1", Some(S))),
        ],
    );
    assert_eq!(up_around(&mut e, 3 * S, 0, 1), (false, true));
    e.run_until(7 * S, 1 << 20).unwrap();
    assert!(up(&e, 0, 1));
    let ends: Vec<String> = logs(&e)
        .into_iter()
        .filter(|l| l.contains("timed cut"))
        .collect();
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert!(ends[0].ends_with("2 links up again"), "{ends:?}");
    assert!(ends[1].ends_with("0 links up again"), "{ends:?}");

    // A heal-all before the end heals the link; a cut for good after it is not undone by the
    // timed cut's end.
    let mut e = engine(
        3,
        vec![
            (S, drop("n0", "n1", Some(3 * S))),
            (2 * S, Action::HealAll {}),
            (2 * S + 1, drop("n0", "n1", None)),
        ],
    );
    e.run_until(2 * S, 1 << 20).unwrap();
    assert!(up(&e, 0, 1));
    e.run_until(5 * S, 1 << 20).unwrap();
    assert!(!up(&e, 0, 1));
}

#[test]
fn a_timed_cut_and_a_heal_at_its_end_run_the_same_links() {
    // `drop for 1s` against `drop` + `heal-link` 1 s later: the links agree at every step's end
    // (the runs may differ in the order of events at that instant, not in the links).
    let timed = engine(3, vec![(S, drop("n0", "n1", Some(S)))]);
    let healed = engine(
        3,
        vec![
            (S, drop("n0", "n1", None)),
            (
                2 * S,
                Action::HealLink {
                    from: "n0".into(),
                    to: "n1".into(),
                    one_way: false,
                },
            ),
        ],
    );
    for (mut e, name) in [(timed, "timed"), (healed, "healed")] {
        for t in [S - 1, S, 2 * S - 1, 2 * S, 3 * S] {
            e.run_until(t, 1 << 20).unwrap();
            assert_eq!(up(&e, 0, 1), !(S..2 * S).contains(&t), "{name} at {t}");
        }
    }
}

#[test]
fn a_timed_cut_is_refused_at_zero_and_beyond_the_duration_limit() {
    let mut e = engine(3, vec![(S, drop("n0", "n1", Some(0)))]);
    e.run_until(2 * S, 1 << 20).unwrap();
    assert!(up(&e, 0, 1));
    assert_eq!(e.sim.skipped.total, 1);
    assert!(
        e.sim.skipped.first[0].1.contains("ends as it starts"),
        "{:?}",
        e.sim.skipped
    );
    let too_long = Limits::default().max_duration_us + 1;
    let mut e = engine(3, vec![(S, drop("n0", "n1", Some(too_long)))]);
    e.run_until(2 * S, 1 << 20).unwrap();
    assert!(
        e.sim.skipped.first[0].1.contains("above the limit"),
        "{:?}",
        e.sim.skipped
    );
}
