//! Issue 18, compare mode: two variants on one cursor (`web/src/model/compare.rs`), through
//! `Store::reduce` as the UI dispatches (natively and in Chromium).

use clusterscope_core::diff;
use clusterscope_core::engine::action::Action;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
use clusterscope_core::session::Session;
use clusterscope_web::model::compare::DivState;
use clusterscope_web::model::{nav, Msg, Store, JUMP_SYNC_MS};
use std::rc::Rc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{send, settle, store};

const PACKET_LOSS: &str = "cassandra-21636-packet-loss";

fn open(scenario: &str, variant: &str, other: &str) -> Rc<Store> {
    let s = send(store(), Msg::LoadBuiltin(scenario.into()));
    let s = send(s, Msg::SetVariant(variant.into()));
    settle(send(s, Msg::Compare(Some(other.into()))))
}

/// Both sides' virtual time, and the other side's variant.
fn times(s: &Store) -> (u64, u64) {
    let m = s.model.borrow();
    let c = m.compare.as_ref().expect("compare is on");
    let o = c.other.borrow();
    (m.now(), o.now())
}

/// The first divergence of the two variants as core finds it on fresh runs, in one go to the
/// end (`diff::first_divergence`, whose rule `tests/tests/diff.rs` checks against a brute-force
/// walk of both finished traces): the app's search, made over frames on its own runs, must
/// find the same records at the same time.
fn reference(scenario: &str, a: &str, b: &str, seed: u64) -> Option<(usize, usize, u64)> {
    let sc = builtin::get(scenario).unwrap();
    let end = sc.duration();
    let opts = RunOptions {
        checkpointing: false,
        body_budget: 0,
        limits: Limits::default(),
    };
    let mut ra = Run::new(sc.clone(), a, Some(seed), &toml::Table::new(), &opts).unwrap();
    let mut rb = Run::new(sc, b, Some(seed), &toml::Table::new(), &opts).unwrap();
    diff::first_divergence(&mut *ra.engine, &mut *rb.engine, end)
        .unwrap()
        .map(|d| (d.index_a, d.index_b, d.time_us))
}

#[test]
fn both_sides_move_together_on_step_scrub_play_and_jumps() {
    let s = open(PACKET_LOSS, "buggy", "fixed");
    {
        let m = s.model.borrow();
        let c = m.compare.as_ref().unwrap();
        assert_eq!(c.variant, "fixed");
        assert_eq!(c.other.borrow().run.variant, "fixed");
        assert_eq!(c.other.borrow().run.seed, m.run.seed);
    }
    let s = settle(send(s, Msg::ScrubTo(7_000_000)));
    assert_eq!(times(&s), (7_000_000, 7_000_000));
    let s = send(s, Msg::StepEvent);
    let (a, b) = times(&s);
    assert!(a > 7_000_000 || s.model.borrow().cursor() > 0);
    assert_eq!(a, b, "a step moves both sides");
    let s = settle(send(s, Msg::StepBack));
    let (a, b) = times(&s);
    assert_eq!(a, b, "a step back moves both sides");
    let mut s = send(s, Msg::TogglePlay);
    for _ in 0..20 {
        s = send(
            s,
            Msg::Tick {
                dt_ms: 16.0,
                cost_ms: 1.0,
                render_ms: 0.0,
            },
        );
        let (a, b) = times(&s);
        assert_eq!(a, b, "playing moves both sides");
    }
    let s = settle(send(s, Msg::Pause));
    let s = settle(send(s, Msg::JumpToEnd));
    let end = s.model.borrow().end();
    assert_eq!(times(&s), (end, end));
    let s = settle(send(s, Msg::JumpToStart));
    assert_eq!(times(&s), (0, 0));
}

#[test]
fn the_divergence_is_cores_first_divergence_and_cells_differ_after_it() {
    let s = open(PACKET_LOSS, "buggy", "fixed");
    let s = settle(send(s, Msg::JumpToDivergence));
    let (ia, ib, time) = {
        let m = s.model.borrow();
        let c = m.compare.as_ref().unwrap();
        let d = c.divergence().expect("buggy and fixed diverge");
        (d.index_a, d.index_b, d.time_us)
    };
    assert_eq!(
        Some((ia, ib, time)),
        reference(PACKET_LOSS, "buggy", "fixed", s.model.borrow().run.seed)
    );
    assert_eq!(times(&s), (time, time), "the jump moves both sides there");
    // Before the divergence nothing is marked.
    let s = settle(send(s, Msg::ScrubTo(time / 2)));
    let cells = s.model.borrow().compare.as_ref().unwrap().cells.clone();
    assert_eq!(cells, Some(Vec::new()));
    // Long after it (fixed: A and B see each other UP; buggy: not), the liveness matrices differ.
    let s = settle(send(s, Msg::JumpToEnd));
    let m = s.model.borrow();
    let c = m.compare.as_ref().unwrap();
    let cells = c.cells.clone().expect("computed when paused");
    assert!(!cells.is_empty(), "some matrix cell differs at the end");
    let o = c.other.borrow();
    for (x, y) in &cells {
        let (a, b) = (
            m.run.engine.matrix_cell(*x, *y),
            o.run.engine.matrix_cell(*x, *y),
        );
        assert!(a.class != b.class || a.text != b.text || a.mark != b.mark);
    }
}

/// Every model with two variants: compare opens, both sides follow the cursor, and the
/// divergence found is core's (`reference`).
#[test]
fn compare_works_for_every_model() {
    for (scenario, a, b) in [
        ("cassandra-21181-duplicate-notify", "buggy", "fixed"),
        ("hdds-17673-close-race", "buggy", "fixed"),
        ("raft-figure-8", "unsafe-commit", "safe"),
        ("pingpong", "ring", "random"),
    ] {
        let s = open(scenario, a, b);
        let t = s.model.borrow().end() / 3;
        let s = settle(send(s, Msg::ScrubTo(t)));
        assert_eq!(times(&s), (t, t), "{scenario}");
        let s = settle(send(s, Msg::JumpToDivergence));
        let seed = s.model.borrow().run.seed;
        let m = s.model.borrow();
        let c = m.compare.as_ref().unwrap();
        let found = match &c.div {
            DivState::Found(d) => Some((d.index_a, d.index_b, d.time_us)),
            DivState::Same => None,
            DivState::Searching(_) => panic!("{scenario}: the jump finishes the search"),
            DivState::Failed(e) => panic!("{scenario}: {e}"),
        };
        assert_eq!(found, reference(scenario, a, b, seed), "{scenario}");
        assert_eq!(m.now(), c.other.borrow().now(), "{scenario}");
    }
}

#[test]
fn compare_survives_a_permalink_and_a_reload() {
    let s = open(PACKET_LOSS, "buggy", "fixed");
    let s = settle(send(s, Msg::ScrubTo(9_000_000)));
    let s = send(s, Msg::SelectNode(Some(1)));
    let cursor = s.model.borrow().cursor();
    let link = s.model.borrow().session().encode();
    let back = Session::decode(&link, &Limits::default()).unwrap();
    assert_eq!(back.compare.as_deref(), Some("fixed"));

    let t = settle(send(store(), Msg::OpenPermalink(link)));
    let m = t.model.borrow();
    let c = m.compare.as_ref().expect("compare reopened");
    assert_eq!(c.variant, "fixed");
    assert_eq!(m.run.variant, "buggy");
    // A link restores the cursor's step; the other side follows to its time.
    assert_eq!(m.cursor(), cursor);
    assert_eq!(c.other.borrow().now(), m.now());
    assert_eq!(m.selected, Some(1));
    assert_eq!(
        c.other.borrow().selected,
        Some(1),
        "the selection is shared"
    );
    drop(m);
    // Closing compare is part of the session too.
    let t = send(t, Msg::Compare(None));
    assert!(t.model.borrow().session().compare.is_none());
}

#[test]
fn a_bad_compare_changes_nothing() {
    let s = settle(send(store(), Msg::LoadBuiltin(PACKET_LOSS.into())));
    let rev = s.model.borrow().session_rev;
    for v in ["buggy", "no-such-variant"] {
        let s2 = send(s.clone(), Msg::Compare(Some(v.into())));
        let m = s2.model.borrow();
        assert!(m.compare.is_none(), "{v}");
        assert_eq!(m.session_rev, rev, "{v}");
        assert!(m
            .banner
            .as_ref()
            .unwrap()
            .text
            .contains("Nothing was changed"));
    }
}

/// An action taken in compare is replayed on the other side at its time; a scenario without
/// the other variant closes compare.
#[test]
fn actions_apply_to_both_sides_and_another_scenario_closes_compare() {
    let s = open(PACKET_LOSS, "buggy", "fixed");
    let s = settle(send(s, Msg::ScrubTo(4_000_000)));
    let s = settle(send(s, Msg::UserAction(Action::Kill { node: "C".into() })));
    let s = settle(send(s, Msg::ScrubTo(6_000_000)));
    {
        let m = s.model.borrow();
        let c = m.compare.as_ref().unwrap();
        let o = c.other.borrow();
        let acts = o.run.engine.user_actions();
        assert_eq!(acts.len(), 1, "the kill is replayed on the other side");
        assert_eq!(acts[0].at.0, 4_000_000);
        assert_eq!(o.now(), 6_000_000);
    }
    let s = settle(send(s, Msg::LoadBuiltin("raft-leader-crash".into())));
    let m = s.model.borrow();
    assert!(m.compare.is_none());
    assert!(m.session().compare.is_none());
}

/// Large clusters compare the matrix cells by class (what their picture shows): a subset of the
/// cells whose whole contents differ, each with classes that differ.
#[test]
fn class_only_cells_are_the_visibly_differing_subset() {
    use clusterscope_web::model::compare::differing_cells_by;
    let s = open(PACKET_LOSS, "buggy", "fixed");
    let s = settle(send(s, Msg::JumpToEnd));
    let m = s.model.borrow();
    let c = m.compare.as_ref().unwrap();
    let o = c.other.borrow();
    let whole = differing_cells_by(&m, &o, false);
    let classes = differing_cells_by(&m, &o, true);
    assert!(
        !classes.is_empty(),
        "A and B are seen differently at the end"
    );
    for (x, y) in &classes {
        assert!(whole.contains(&(*x, *y)));
        assert_ne!(
            m.run.engine.matrix_cell(*x, *y).class,
            o.run.engine.matrix_cell(*x, *y).class
        );
    }
    // Every cell of differing class is found.
    let n = m.n() as u32;
    let expected = (0..n)
        .flat_map(|x| (0..n).map(move |y| (x, y)))
        .filter(|(x, y)| {
            m.run.engine.matrix_cell(*x, *y).class != o.run.engine.matrix_cell(*x, *y).class
        })
        .count();
    assert_eq!(classes.len(), expected);
}

/// A jump the other side cannot make within its budget for one message is finished over the
/// next frames: the page stays busy until both sides are at the same time.
#[test]
fn the_other_side_follows_a_long_jump_over_frames() {
    let s = open(PACKET_LOSS, "buggy", "fixed");
    let s = settle(send(s, Msg::JumpToEnd));
    let end = s.model.borrow().end();
    assert_eq!(times(&s), (end, end));
    let s = settle(send(s, Msg::JumpToStart));
    // Make a step look expensive: the other side's budget for a jump shrinks to a few steps.
    s.model.borrow_mut().step_cost_ms = 10.0;
    let s = send(s, Msg::ScrubTo(end * 9 / 10));
    {
        let m = s.model.borrow();
        let (a, b) = times(&s);
        assert_eq!(a, end * 9 / 10);
        assert!(b < a, "the other side is on its way ({b} < {a})");
        assert!(m.compare_behind() && m.busy(), "busy until both are there");
    }
    let s = settle(s);
    assert_eq!(times(&s), (end * 9 / 10, end * 9 / 10));
    assert!(!s.model.borrow().compare_behind());
}

/// A jump to the end moves the other side through its last checkpoint, like this side, not step
/// by step from where it stood (the end is past the last record: it had no step to aim at, and
/// from 3/4 of the way it replayed a quarter of the run).
#[test]
fn the_other_side_reaches_the_end_through_a_checkpoint() {
    let s = open(PACKET_LOSS, "buggy", "fixed");
    let s = settle(send(s, Msg::JumpToEnd));
    let end = s.model.borrow().end();
    let s = settle(send(s, Msg::ScrubTo(end * 3 / 4)));
    assert_eq!(times(&s), (end * 3 / 4, end * 3 / 4));
    // A step looks expensive: the other side's budget for the jump is a few steps.
    s.model.borrow_mut().step_cost_ms = 10.0;
    let s = send(s, Msg::JumpToEnd);
    {
        let m = s.model.borrow();
        let o = m.compare.as_ref().unwrap().other.borrow();
        let last_ckpt = o.run.engine.replay_from(o.frontier());
        assert!(
            last_ckpt > 0 && o.cursor() >= last_ckpt,
            "the other side is at or past its last checkpoint (step {} >= {last_ckpt})",
            o.cursor()
        );
    }
    let s = settle(s);
    assert_eq!(times(&s), (end, end));
}

/// Compare takes the other variant's run from the kept runs (issue 20's holder) when a variant
/// switch left it there: no second copy, nothing recomputed; while compare is open that run
/// counts against the kept runs' budget, and the whole budget comes back when it closes.
#[test]
fn compare_takes_a_kept_run_and_counts_it_against_the_budget() {
    use clusterscope_web::model::runs::{run_bytes, KEPT_RUNS_BYTES};
    let s = send(store(), Msg::LoadBuiltin(PACKET_LOSS.into()));
    let s = settle(send(s, Msg::SetVariant("buggy".into())));
    let s = settle(send(s, Msg::JumpToEnd));
    let end = s.model.borrow().end();
    let frontier = s.model.borrow().frontier();
    // Switch away: the buggy run is kept, computed to the end.
    let s = settle(send(s, Msg::SetVariant("fixed".into())));
    assert_eq!(s.model.borrow().runs.len(), 1);
    let s = settle(send(s, Msg::Compare(Some("buggy".into()))));
    {
        let m = s.model.borrow();
        let c = m.compare.as_ref().unwrap();
        let o = c.other.borrow();
        assert_eq!(m.runs.len(), 0, "taken out of the holder, not copied");
        assert_eq!(o.run.variant, "buggy");
        assert_eq!(o.frontier(), frontier, "computed as far as it was");
        assert!(!o.marks.marks.is_empty(), "its timeline marks came with it");
        assert_eq!(m.runs.budget, KEPT_RUNS_BYTES - run_bytes(&o.run));
    }
    // Both sides still move together over the kept run.
    let s = settle(send(s, Msg::ScrubTo(end / 3)));
    assert_eq!(times(&s), (end / 3, end / 3));
    let s = settle(send(s, Msg::Compare(None)));
    assert_eq!(s.model.borrow().runs.budget, KEPT_RUNS_BYTES);
    // One holder of runs: the closed compare's side went back to the kept runs...
    {
        let m = s.model.borrow();
        assert_eq!(m.runs.len(), 1, "the other side is kept, not dropped");
        let k = m.runs.keys().next().unwrap();
        assert_eq!(k.variant, "buggy");
    }
    // ...so comparing with it again (or switching to it) takes it back, computed to the end.
    let s = settle(send(s, Msg::Compare(Some("buggy".into()))));
    {
        let m = s.model.borrow();
        let o = m.compare.as_ref().unwrap().other.borrow();
        assert_eq!(m.runs.len(), 0, "taken back out of the holder");
        assert_eq!(o.frontier(), frontier, "nothing recomputed");
    }
    let s = settle(send(s, Msg::Compare(None)));
    let s = settle(send(s, Msg::SetVariant("buggy".into())));
    let m = s.model.borrow();
    assert_eq!(m.run.variant, "buggy");
    assert_eq!(m.frontier(), frontier, "the switch took the kept run back");
}

/// A jump back within the computed run is made at once on both sides when its replay fits the
/// jump budget at the cost of a replayed step: until a jump has been timed, a quarter of the
/// frames' measured cost per step in compare (computing a step, which also records it, costs
/// about twice a replay, and the frames' cost covers both sides). Charged at the cost of
/// computing, such a jump went frame by frame, rendering both sides each time.
#[test]
fn a_replay_that_fits_at_the_replay_cost_is_one_jump() {
    let s = open(PACKET_LOSS, "buggy", "fixed");
    let s = settle(send(s, Msg::JumpToEnd));
    let end = s.model.borrow().end();
    let t = end / 2 + 1;
    let replay = {
        let m = s.model.borrow();
        let k = nav::step_at_time(m.run.engine.trace(), t);
        k - m.run.engine.replay_from(k)
    };
    assert!(replay >= 100, "a replay to time: {replay} steps");
    {
        let mut m = s.model.borrow_mut();
        // Twice the jump budget at the frames' cost, half of it at the replay cost.
        m.step_cost_ms = 2.0 * JUMP_SYNC_MS / replay as f64;
        m.steps_per_frame = 10;
        assert!(m.replay_cost_ms.is_none(), "no clock natively");
    }
    let s = send(s, Msg::ScrubTo(t));
    let m = s.model.borrow();
    assert!(!m.busy(), "no seek, and the other side is there too");
    assert_eq!(times(&s), (t, t));
}

/// Playing faster than a cluster computes gives the simulation a larger share of each frame
/// (issue 20's boost), but in compare mode, where each frame renders two sides, at most
/// `PLAY_FRAME_COMPARE_MAX_MS` of it, and at most what `COMPARE_FRAME_MS` leaves beside the
/// measured render (never under `PLAY_FRAME_MS`): the step budget settles at what that share
/// holds, well under what one side alone gets from the same frames.
#[test]
fn a_boost_in_compare_keeps_a_frame_for_two_renders() {
    use clusterscope_web::model::{
        COMPARE_FRAME_MS, PLAY_FRAME_COMPARE_MAX_MS, PLAY_FRAME_MAX_MS, PLAY_FRAME_MS,
    };
    const MS_PER_STEP: f64 = 0.01;
    const DT_MS: f64 = 50.0;
    let play = |s: Rc<Store>, render_ms: f64| {
        let s = send(s, Msg::SetSpeed(1000.0));
        let mut s = send(s, Msg::TogglePlay);
        let mut steps = 100u64;
        for _ in 0..25 {
            let before = s.model.borrow().cursor();
            s = send(
                s,
                Msg::Tick {
                    dt_ms: DT_MS,
                    cost_ms: steps as f64 * MS_PER_STEP,
                    render_ms,
                },
            );
            steps = s.model.borrow().cursor() - before;
        }
        let m = s.model.borrow();
        assert!(m.playing && m.achieved.boosted, "falling behind, boosted");
        m.steps_per_frame as f64
    };
    let scenario = "cassandra-21636-restart";
    let one_side = || {
        settle(send(
            send(store(), Msg::LoadBuiltin(scenario.into())),
            Msg::SetVariant("buggy".into()),
        ))
    };
    // The budget converges on target / MS_PER_STEP steps.
    let want = |target: f64| target / MS_PER_STEP;
    let near = |got: f64, target: f64| (got - want(target)).abs() < 0.1 * want(target);
    let boosted = (DT_MS * 0.5).min(PLAY_FRAME_MAX_MS);
    // Renders that leave the whole compare share, one that leaves part of it, one that leaves
    // less than the unboosted share.
    for (render_ms, target) in [
        (0.0, PLAY_FRAME_COMPARE_MAX_MS),
        (2.0, PLAY_FRAME_COMPARE_MAX_MS),
        (8.0, COMPARE_FRAME_MS - 8.0),
        (12.0, PLAY_FRAME_MS),
    ] {
        assert!(target < boosted);
        let compare = play(open(scenario, "buggy", "fixed"), render_ms);
        assert!(
            near(compare, target),
            "compare, renders of {render_ms} ms: {compare} steps a frame, want {}",
            want(target)
        );
    }
    // One side alone keeps issue 20's boost whatever its render costs.
    for render_ms in [0.0, 8.0] {
        let alone = play(one_side(), render_ms);
        assert!(near(alone, boosted), "one side: {alone} steps a frame");
    }
}
