//! Issue 20 in the reducer: kept runs (switching variant back and forth without computing again,
//! within a memory budget, keyed by the person's actions too) and the achieved-speed label.

use clusterscope_core::engine::action::Action;
use clusterscope_web::model::speed::{achieved_label, Achieved};
use clusterscope_web::model::{Msg, Store};
use std::rc::Rc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const PACKET_LOSS: &str = "cassandra-21636-packet-loss";

mod common;
use common::{send, settle, store};

fn at_end(variant: &str) -> Rc<Store> {
    let s = send(store(), Msg::LoadBuiltin(PACKET_LOSS.into()));
    let s = settle(send(s, Msg::SetVariant(variant.into())));
    let s = settle(send(s, Msg::JumpToEnd));
    small_budget(&s);
    s
}

/// A step budget far below a run's steps: computing cannot finish within one message (and so
/// shows as busy), taking a kept run can.
fn small_budget(s: &Rc<Store>) {
    s.model.borrow_mut().steps_per_frame = 50;
}

/// (variant, time, frontier, state hash) on screen.
fn shown(s: &Rc<Store>) -> (String, u64, u64, String) {
    let m = s.model.borrow();
    (
        m.run.variant.clone(),
        m.now(),
        m.frontier(),
        format!("{:?}", m.run.engine.hash()),
    )
}

#[test]
fn switching_back_takes_the_kept_run_at_once() {
    let s = at_end("buggy");
    let buggy = shown(&s);
    // The first switch computes the other variant up to the cursor's time.
    let s = send(s, Msg::SetVariant("fixed".into()));
    assert!(s.model.borrow().busy(), "the first switch computes");
    let s = settle(s);
    let fixed = shown(&s);
    assert_eq!(fixed.0, "fixed");
    assert_eq!(fixed.1, buggy.1);
    assert_eq!(s.model.borrow().runs.len(), 1, "buggy is kept");
    small_budget(&s);
    // Back and forth: each switch is done within the message, at the same time and state.
    let s = send(s, Msg::SetVariant("buggy".into()));
    assert!(!s.model.borrow().busy(), "switching back computes nothing");
    assert_eq!(shown(&s), buggy);
    let s = send(s, Msg::SetVariant("fixed".into()));
    assert!(!s.model.borrow().busy());
    assert_eq!(shown(&s), fixed);
    // The kept run's plots came along.
    let m = s.model.borrow();
    assert!(m.samples.len() > 10, "samples: {}", m.samples.len());
    assert_eq!(m.runs.len(), 1);
    assert!(m.runs.bytes() > 0);
}

#[test]
fn a_switch_back_elsewhere_jumps_within_the_kept_run() {
    let s = at_end("buggy");
    let end = s.model.borrow().end();
    let s = settle(send(s, Msg::SetVariant("fixed".into())));
    let s = settle(send(s, Msg::ScrubTo(end / 3)));
    let s = settle(send(s, Msg::SetVariant("buggy".into())));
    let m = s.model.borrow();
    assert_eq!(m.run.variant, "buggy");
    assert_eq!(m.now(), end / 3);
    assert!(
        m.frontier() > m.cursor(),
        "the kept run's future is still there"
    );
}

#[test]
fn runs_over_the_budget_are_not_kept() {
    let s = at_end("buggy");
    let buggy = shown(&s);
    s.model.borrow_mut().runs.budget = 1;
    let s = settle(send(s, Msg::SetVariant("fixed".into())));
    assert!(s.model.borrow().runs.is_empty());
    small_budget(&s);
    let s = send(s, Msg::SetVariant("buggy".into()));
    assert!(s.model.borrow().busy(), "nothing kept: computed again");
    let s = settle(s);
    assert_eq!(shown(&s), buggy, "computed again to the same state");
}

#[test]
fn a_run_with_other_actions_is_not_taken_back() {
    let s = at_end("buggy");
    let end = s.model.borrow().end();
    let s = settle(send(s, Msg::SetVariant("fixed".into())));
    let s = settle(send(s, Msg::ScrubTo(end / 2)));
    let s = send(s, Msg::UserAction(Action::Kill { node: "C".into() }));
    let s = settle(send(s, Msg::ScrubTo(end)));
    small_budget(&s);
    // Buggy is kept without the kill: switching back must replay the kill, not take it.
    let s = send(s, Msg::SetVariant("buggy".into()));
    assert!(
        s.model.borrow().busy(),
        "the kept buggy run has other actions"
    );
    let s = settle(s);
    let m = s.model.borrow();
    assert_eq!(m.run.engine.user_actions().len(), 1);
    assert_eq!(
        m.run.engine.status(2),
        clusterscope_core::NodeStatus::Stopped
    );
}

#[test]
fn the_achieved_speed_says_when_it_falls_behind() {
    let mut a = Achieved::default();
    assert_eq!(achieved_label(&a), None, "nothing measured yet");
    // 100x asked, frames of 16 ms that advance 1.6 s of virtual time: it keeps up.
    for _ in 0..32 {
        a.frame(16.0, 1_600_000.0, true, 100.0, 2.0, 6.0);
    }
    assert!((a.speed.unwrap() - 100.0).abs() < 1e-6);
    assert!(!a.behind);
    assert_eq!(achieved_label(&a).unwrap(), "actual 100×");
    // Now each frame (one window of 32) stops short at 0.1 s: 6.25x achieved.
    for _ in 0..32 {
        a.frame(16.0, 100_000.0, false, 100.0, 6.0, 6.0);
    }
    assert!(a.behind);
    assert!(
        a.boosted,
        "falling behind gives the simulation more of each frame"
    );
    assert_eq!(achieved_label(&a).unwrap(), "actual 6.25× · falling behind");
}

#[test]
fn playing_faster_than_it_computes_shows_falling_behind() {
    let s = send(store(), Msg::SetSpeed(1000.0));
    let s = send(s, Msg::TogglePlay);
    // Frames whose simulation took long: the step budget shrinks, 1000x cannot be kept.
    let mut s = s;
    for _ in 0..60 {
        s = send(
            s,
            Msg::Tick {
                dt_ms: 16.0,
                cost_ms: 400.0,
                render_ms: 0.0,
            },
        );
    }
    let m = s.model.borrow();
    assert!(m.playing);
    let speed = m.achieved.speed.expect("measured");
    assert!(speed < 900.0, "achieved {speed}");
    assert!(m.achieved.behind);
    assert!(achieved_label(&m.achieved)
        .unwrap()
        .contains("falling behind"));
}

#[test]
fn playing_slowly_keeps_up() {
    let s = send(store(), Msg::SetSpeed(1.0));
    let mut s = send(s, Msg::TogglePlay);
    for _ in 0..60 {
        s = send(
            s,
            Msg::Tick {
                dt_ms: 16.0,
                cost_ms: 0.5,
                render_ms: 0.0,
            },
        );
    }
    let m = s.model.borrow();
    let speed = m.achieved.speed.expect("measured");
    assert!((speed - 1.0).abs() < 0.05, "achieved {speed}");
    assert!(!m.achieved.behind);
}

/// The 251-node run (natively only: a 10-minute, 1.2M-event run is too slow for the wasm test
/// runner) with the browser's options: the checkpoint budget holds the checkpoints planned from
/// the state at time zero, spread evenly over the run and never halved, because each counts as
/// the copy it is (counted as the state, with its drained queues' spare room, they passed the
/// budget half-way and were halved to 11, leaving replays of up to 111 k steps).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_big_run_keeps_its_checkpoints_evenly_spread() {
    use clusterscope_core::runner::Run;
    use clusterscope_web::model::run_options;
    let s = clusterscope_core::scenario::builtin::get("cassandra-21636-rolling-upgrade").unwrap();
    let opts = run_options();
    let mut r = Run::new(s, "buggy", None, &toml::Table::new(), &opts).unwrap();
    let planned = r.engine.max_checkpoints();
    r.engine.run_until(r.scenario.duration(), u64::MAX).unwrap();
    // The most steps a jump replays (from the end, where the state is).
    let end = r.engine.frontier();
    let longest = (0..end)
        .step_by(250)
        .map(|k| k - r.engine.replay_from(k))
        .max()
        .unwrap_or(0);
    let n = r.engine.checkpoint_count();
    println!(
        "{n} checkpoints ({planned} planned), {} MiB, longest replay {longest} of {end} steps",
        r.engine.checkpoint_bytes() >> 20
    );
    assert!(
        n >= 20 && n + 2 >= planned,
        "{n} checkpoints, {planned} planned"
    );
    assert!(r.engine.checkpoint_bytes() <= opts.limits.max_checkpoint_bytes);
    // Evenly spread: no span much longer than the run's share per checkpoint.
    assert!(
        longest <= end / (n as u64 - 1) * 3 / 2,
        "longest replay {longest} of {end} steps with {n} checkpoints"
    );
}

#[test]
fn opening_another_scenario_drops_the_kept_runs() {
    let s = at_end("buggy");
    let s = settle(send(s, Msg::SetVariant("fixed".into())));
    assert_eq!(s.model.borrow().runs.len(), 1);
    let s = settle(send(s, Msg::LoadBuiltin("pingpong".into())));
    assert!(s.model.borrow().runs.is_empty());
}

/// Issue 44: while a drag of the scrubber moves, the DOM-heavy panels wait (`scrub_moving`, shown
/// as `#app[data-held]`); a rest or the release ends that, and a rest renders again even when the
/// frame shown was already exact (so that the panels catch up with the button still down).
#[test]
fn a_moving_drag_holds_the_slow_panels_until_it_rests_or_ends() {
    let s = at_end("fixed");
    // Replays priced at nothing: every frame of this drag is exact.
    s.model.borrow_mut().replay_cost_ms = Some(1e-9);
    let end = s.model.borrow().end();
    let s = send(s, Msg::SetScrubbing(true));
    assert!(!s.model.borrow().scrub_moving, "pressed, not moved yet");
    let s = send(s, Msg::ScrubTo(end / 2));
    {
        let m = s.model.borrow();
        assert!(m.scrub_moving, "moving: the panels wait");
        assert_eq!((m.scrub_approx, m.now()), (None, end / 2), "an exact frame");
    }
    let rev = s.rev;
    let s = send(s, Msg::ScrubSettle);
    assert!(!s.model.borrow().scrub_moving, "rested");
    assert!(s.rev > rev, "a rest renders, for the panels");
    let rev = s.rev;
    let s = send(s, Msg::ScrubSettle);
    assert_eq!(s.rev, rev, "resting on: nothing more to render");
    let s = send(s, Msg::ScrubTo(end / 3));
    assert!(s.model.borrow().scrub_moving);
    let s = settle(send(s, Msg::SetScrubbing(false)));
    assert!(
        !s.model.borrow().scrub_moving,
        "released: the panels follow again"
    );
    assert_eq!(s.model.borrow().now(), end / 3);
}

/// Issue 44: a drag whose exact frames cost too much shows keyframes (marked approximate, at or
/// before the cursor, which stays at the pointer); a rest or the release shows the exact frame,
/// the same state as a jump there.
#[test]
fn a_drag_shows_keyframes_and_the_exact_frame_on_release() {
    let s = at_end("fixed");
    // A replayed step priced at 1 ms: any replay beyond a few steps is too long for a drag.
    s.model.borrow_mut().replay_cost_ms = Some(1.0);
    let end = s.model.borrow().end();
    let (t1, t2) = (end * 2 / 3, end / 3 + 1_234);
    let s = send(s, Msg::SetScrubbing(true));
    let s = send(s, Msg::ScrubTo(t1));
    {
        let m = s.model.borrow();
        assert_eq!(m.scrub_approx, Some(t1), "a keyframe is shown for {t1}");
        assert!(m.now() < t1 && m.cursor_time() == t1, "{} {}", m.now(), t1);
        assert!(!m.busy(), "a keyframe is shown at once");
    }
    // Back: the keyframe before t2 (a restore, not the state shown).
    let s = send(s, Msg::ScrubTo(t2));
    assert!(s.model.borrow().now() < t2);
    assert_eq!(s.model.borrow().scrub_approx, Some(t2));
    // Resting with the button down refines.
    let s = settle(send(s, Msg::ScrubSettle));
    assert_eq!(s.model.borrow().scrub_approx, None);
    assert_eq!(s.model.borrow().now(), t2);
    let s = send(s, Msg::ScrubTo(t1));
    assert_eq!(s.model.borrow().scrub_approx, Some(t1));
    // Released: the exact frame at t1.
    let s = settle(send(s, Msg::SetScrubbing(false)));
    let released = shown(&s);
    assert_eq!(s.model.borrow().scrub_approx, None);
    assert_eq!(released.1, t1);
    // A jump there from elsewhere lands on the same state.
    let s = settle(send(s, Msg::ScrubTo(0)));
    let s = settle(send(s, Msg::ScrubTo(t1)));
    assert_eq!(shown(&s), released);
    assert_eq!(
        s.model.borrow().cursor(),
        {
            let s2 = at_end("fixed");
            let s2 = settle(send(s2, Msg::ScrubTo(t1)));
            let c = s2.model.borrow().cursor();
            c
        },
        "the same step as a jump in a fresh run"
    );
}

/// One run playing gives the simulation what a frame has left beside its measured render
/// (issue 44: 100x at 251 nodes needs a little over the fixed 6 ms share): the step budget,
/// before any boost, settles at `PLAY_FRAME_FIT_MS` less the render, between `PLAY_FRAME_MS`
/// and `PLAY_FRAME_ROOM_MAX_MS`; a render that leaves no room keeps the old share.
#[test]
fn one_run_playing_uses_the_room_its_render_leaves() {
    use clusterscope_web::model::{PLAY_FRAME_FIT_MS, PLAY_FRAME_MS, PLAY_FRAME_ROOM_MAX_MS};
    const MS_PER_STEP: f64 = 0.01;
    const DT_MS: f64 = 16.0;
    let scenario = "cassandra-21636-restart";
    let play = |render_ms: f64| {
        let s = settle(send(store(), Msg::LoadBuiltin(scenario.into())));
        let s = send(s, Msg::SetSpeed(1000.0));
        let mut s = send(s, Msg::TogglePlay);
        let mut steps = 100u64;
        // 25 frames of 16 ms: 400 ms, within the first 500 ms window, so no boost yet.
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
        assert!(m.playing && !m.achieved.boosted, "playing, not boosted yet");
        (m.steps_per_frame as f64, m.play_share())
    };
    let want = |target: f64| target / MS_PER_STEP;
    let near = |got: f64, target: f64| (got - want(target)).abs() < 0.1 * want(target);
    for (render_ms, share) in [
        (0.5, PLAY_FRAME_ROOM_MAX_MS),
        (4.0, PLAY_FRAME_FIT_MS - 4.0),
        (10.0, PLAY_FRAME_MS),
    ] {
        let (budget, got) = play(render_ms);
        assert!(
            (got - share).abs() < 1e-9,
            "render {render_ms} ms: share {got}, want {share}"
        );
        assert!(
            near(budget, share),
            "render {render_ms} ms: {budget} steps a frame, want {}",
            want(share)
        );
    }
}
