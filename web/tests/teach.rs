//! Issue 14, teacher gaps: the timeline's zoom window, the message-by-message mode, "explain
//! this state" and the model-named timeline marks, through `Store::reduce` as the UI
//! dispatches them (natively and in Chromium).

use clusterscope_web::model::teach::{TeachMsg, MIN_SPAN, MSG_MS};
use clusterscope_web::model::{Msg, Store};
use std::rc::Rc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{send, settle, store};

fn teach(s: Rc<Store>, t: TeachMsg) -> Rc<Store> {
    send(s, Msg::Teach(t))
}

fn tick(s: Rc<Store>, dt_ms: f64) -> Rc<Store> {
    send(
        s,
        Msg::Tick {
            dt_ms,
            cost_ms: 1.0,
            render_ms: 0.0,
        },
    )
}

fn view(s: &Store) -> (u64, u64) {
    s.model.borrow().view()
}

/// Zoom around a point keeps it where it was; a range, a pan and a reset do what they say; the
/// window never leaves the run nor gets narrower than MIN_SPAN.
#[test]
fn zoom_range_pan_and_reset() {
    let s = store();
    let end = s.model.borrow().end();
    assert_eq!(view(&s), (0, end));
    let at = end / 4;
    let s = teach(s, TeachMsg::Zoom { at, factor: 0.5 });
    let (lo, hi) = view(&s);
    assert_eq!(hi - lo, end / 2);
    let frac = (at - lo) as f64 / (hi - lo) as f64;
    assert!(
        (frac - 0.25).abs() < 1e-6,
        "the point stays under the pointer: {frac}"
    );
    assert!(s.model.borrow().zoomed());

    let s = teach(s, TeachMsg::SetView(Some((10_000_000, 20_000_000))));
    assert_eq!(view(&s), (10_000_000, 20_000_000));
    let s = teach(s, TeachMsg::Pan(0.5));
    assert_eq!(view(&s), (15_000_000, 25_000_000));
    let s = teach(s, TeachMsg::Pan(-100.0));
    assert_eq!(view(&s), (0, 10_000_000), "a pan stops at the start");

    let mut s = s;
    for _ in 0..40 {
        s = teach(s, TeachMsg::ZoomCursor(0.5));
    }
    let (lo, hi) = view(&s);
    assert_eq!(hi - lo, MIN_SPAN);
    let now = s.model.borrow().now();
    assert!(lo <= now && now <= hi, "zoomed around the cursor");

    let s = teach(s, TeachMsg::SetView(None));
    assert_eq!(view(&s), (0, end));
    assert!(!s.model.borrow().zoomed());
    let s = teach(s, TeachMsg::Zoom { at, factor: 4.0 });
    assert_eq!(view(&s), (0, end), "zooming out past the run shows the run");
}

/// While playing, a zoomed timeline follows the cursor out of its window.
#[test]
fn a_zoomed_timeline_follows_the_playing_cursor() {
    let s = teach(store(), TeachMsg::SetView(Some((0, 2_000_000))));
    let s = send(s, Msg::SetSpeed(10.0));
    let mut s = send(s, Msg::TogglePlay);
    for _ in 0..40 {
        s = tick(s, 16.0);
    }
    let now = s.model.borrow().now();
    assert!(now > 2_000_000, "played past the window: {now}");
    let (lo, hi) = view(&s);
    assert!(lo <= now && now <= hi, "{lo}..{hi} holds {now}");
    assert_eq!(hi - lo, 2_000_000, "same width");
}

/// Message by message: a message crosses its link in MSG_MS of real time while virtual time
/// stands still; then it is delivered and the next one starts.
#[test]
fn message_mode_animates_one_message_at_a_time() {
    let s = settle(send(store(), Msg::ScrubTo(3_000_000)));
    let s = teach(s, TeachMsg::SetMsgMode(true));
    let s = send(s, Msg::TogglePlay);
    let s = tick(s, 16.0);
    let a = s.model.borrow().msg_anim().expect("a message on its way");
    assert_eq!(a.progress, 0.0);
    let t0 = s.model.borrow().now();
    let in_flight = |s: &Store, id: u64| {
        let mut found = false;
        s.model
            .borrow()
            .run
            .engine
            .flights(&mut |f| found |= f.id == id);
        found
    };
    assert!(in_flight(&s, a.id));
    let s = tick(s, MSG_MS / 2.0 / 3.0);
    let s = tick(s, MSG_MS / 2.0 / 3.0);
    let s = tick(s, MSG_MS / 2.0 / 3.0);
    let half = s.model.borrow().msg_anim().unwrap();
    assert_eq!(half.id, a.id);
    assert!((half.progress - 0.5).abs() < 1e-9, "{}", half.progress);
    assert_eq!(
        s.model.borrow().now(),
        t0,
        "virtual time waits for the animation"
    );
    let mut s = s;
    let mut next = None;
    for _ in 0..40 {
        s = tick(s, 50.0);
        let b = s.model.borrow().msg_anim();
        if b.is_some_and(|b| b.id != a.id) {
            next = b;
            break;
        }
    }
    let b = next.expect("the next message");
    assert!(!in_flight(&s, a.id), "the first one was delivered");
    let dt = s.model.borrow().now() - t0;
    assert!(dt < 1_100_000, "virtual time moved by events only: {dt} µs");
    assert!(b.progress < 1.0);
    let s = teach(s, TeachMsg::SetMsgMode(false));
    assert!(s.model.borrow().msg_anim().is_none());
}

/// A message lost during the packet-loss event is animated too, as dropped.
#[test]
fn message_mode_shows_a_lost_message() {
    let s = settle(send(store(), Msg::ScrubTo(21_000_000)));
    let s = teach(s, TeachMsg::SetMsgMode(true));
    let mut s = send(s, Msg::TogglePlay);
    let mut dropped = None;
    for _ in 0..2_000 {
        s = tick(s, 100.0);
        if let Some(a) = s.model.borrow().msg_anim().filter(|a| a.dropped) {
            dropped = Some(a);
            break;
        }
    }
    let a = dropped.expect("a lost message animated");
    let m = s.model.borrow();
    let trace = m.run.engine.trace();
    let lost = trace.recs.iter().any(|r| {
        matches!(r.kind, clusterscope_core::engine::trace::RecKind::Drop { msg, .. } if msg == a.id)
    });
    assert!(lost, "message #{} is a drop in the trace", a.id);
}

/// "Explain this state" is computed for the selected node when asked, and follows the cursor.
#[test]
fn explain_follows_the_selection_and_the_cursor() {
    let s = settle(send(store(), Msg::ScrubTo(90_000_000)));
    let s = send(s, Msg::SelectNode(Some(0)));
    assert!(s.model.borrow().explain().is_none(), "only when asked");
    let s = teach(s, TeachMsg::SetExplain(true));
    let e = s.model.borrow().explain().unwrap().join(" ");
    assert!(e.contains("A sees B DOWN since"), "{e}");
    let s = settle(send(s, Msg::ScrubTo(2_000_000)));
    let e = s.model.borrow().explain().unwrap().join(" ");
    assert!(e.contains("sees 2 of 2 peers UP"), "{e}");
}

/// The timeline's density marks are the ones the model names (gossip: DOWN/UP; Raft: none).
#[test]
fn timeline_marks_are_named_by_the_model() {
    let s = settle(send(store(), Msg::ScrubTo(60_000_000)));
    {
        let m = s.model.borrow();
        assert_eq!(m.marks.labels, Some(("DOWN", "UP")));
        assert!(m
            .marks
            .marks
            .iter()
            .any(|k| k.kind == clusterscope_web::model::nav::MarkKind::Down));
    }
    let s = settle(send(s, Msg::LoadBuiltin("raft-leader-election".into())));
    let s = settle(send(s, Msg::ScrubTo(5_000_000)));
    let m = s.model.borrow();
    assert_eq!(m.marks.labels, None);
    assert!(m.marks.marks.iter().all(|k| !matches!(
        k.kind,
        clusterscope_web::model::nav::MarkKind::Down | clusterscope_web::model::nav::MarkKind::Up
    )));
}

/// Presentation and message-by-message modes are the person's: they survive loading another
/// scenario, while its zoom window and animation do not.
#[test]
fn modes_survive_a_new_scenario_but_the_zoom_does_not() {
    let s = teach(store(), TeachMsg::SetPresent(true));
    let s = teach(s, TeachMsg::SetMsgMode(true));
    let s = teach(s, TeachMsg::SetView(Some((1_000_000, 2_000_000))));
    assert!(s.model.borrow().zoomed());
    let s = settle(send(s, Msg::LoadBuiltin("raft-leader-election".into())));
    let m = s.model.borrow();
    assert!(m.teach.present && m.teach.msg_mode);
    assert!(!m.zoomed());
    assert!(m.msg_anim().is_none());
}
