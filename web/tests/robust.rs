//! Issue 39, the app's half: a link whose recorded action is refused only while running leaves
//! the saved session in place (the link's session is on trial until its actions have run,
//! `model::trial`), and the page's memory guard stops the simulation with a limit banner before
//! the tab's WebAssembly memory runs out (`model::memory`).

use clusterscope_core::engine::action::{Action, Dur, RecordedAction};
use clusterscope_core::session::Session;
use clusterscope_web::model::{BannerKind, Msg, Store};
use std::rc::Rc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{send, settle, store};

/// The person's session before a link: the packet-loss incident, `fixed`, a recorded action,
/// the cursor at 9 s.
fn saved_session() -> Rc<Store> {
    let s = send(store(), Msg::SetVariant("fixed".into()));
    let s = settle(send(s, Msg::ScrubTo(4_000_000)));
    let s = send(
        s,
        Msg::UserAction(Action::SetLoss {
            from: "A".into(),
            to: "B".into(),
            loss: 0.5,
            one_way: true,
        }),
    );
    settle(send(s, Msg::ScrubTo(9_000_000)))
}

/// A link of the same incident (`buggy`) whose one recorded action is `action` at `step`, `at`.
fn link(s: &Store, step: u64, at: u64, action: Action, cursor: u64) -> String {
    let mut l: Session = s.model.borrow().session();
    l.variant = "buggy".into();
    l.actions = vec![RecordedAction {
        step,
        at: Dur(at),
        action,
    }];
    l.cursor = cursor;
    l.encode()
}

fn kill_a() -> Action {
    Action::Kill { node: "A".into() }
}

/// A kill at step 0 passes the link's checks (A is running from time zero on) but is refused
/// when the run applies it (A has not started yet at the first step): the link's session is
/// shown stopped there, with an error naming the action, and the session before the link stays
/// the one to go back to, as it was.
#[test]
fn a_link_refused_while_running_keeps_the_saved_session() {
    let s = saved_session();
    let before = s.model.borrow().session();
    let bad = link(&s, 0, 0, kill_a(), 500);
    let s = settle(send(s, Msg::OpenPermalink(bad)));
    {
        let m = s.model.borrow();
        assert_eq!(m.run.variant, "buggy", "the link's session is shown");
        let t = m.trial.as_ref().expect("the link's session is on trial");
        assert!(t.failed.is_some(), "{t:?}");
        assert_eq!(Session::decode(&t.previous, &m.limits).unwrap(), before);
        let b = m.banner.as_ref().expect("an error banner");
        assert_eq!(b.kind, BannerKind::Error);
        for words in [
            "recorded action 1 of 1",
            "actions[0]",
            "“kill -9 A”",
            "cannot kill A",
            "at 0.000s, step 0",
            "refused",
            "cassandra-21636-packet-loss (fixed) at 9.000s",
        ] {
            assert!(b.text.contains(words), "{words:?} in {}", b.text);
        }
        assert_eq!(m.cursor(), 0, "the run stops at the refused action");
    }
    let s = send(s, Msg::BackToSaved);
    let s = settle(s);
    let m = s.model.borrow();
    assert!(m.trial.is_none());
    assert_eq!(m.session(), before, "back to the saved session as it was");
    assert_eq!(m.banner.as_ref().unwrap().kind, BannerKind::Info);
}

/// The step and time of `t` (µs) in the packet-loss incident's `buggy` variant, as a recorded
/// action there would have them.
fn step_at(t: u64) -> (u64, u64) {
    let s = settle(send(
        send(store(), Msg::SetVariant("buggy".into())),
        Msg::ScrubTo(t),
    ));
    let m = s.model.borrow();
    (m.cursor(), m.now())
}

/// `enablegossip` on a node whose gossip runs passes the link's checks (they know names and
/// process states, not gossip's) and is refused by the node when the run gets there: here on
/// the way to the link's cursor, in a seek over frames.
#[test]
fn a_refusal_on_the_way_to_the_links_cursor_fails_the_trial() {
    let s = saved_session();
    let (step, at) = step_at(4_000_000);
    let enable = Action::Command {
        node: "A".into(),
        command: "enablegossip".into(),
    };
    let bad = link(&s, step, at, enable, step + 200_000);
    let s = settle(send(s, Msg::OpenPermalink(bad)));
    let m = s.model.borrow();
    assert!(m.trial.as_ref().is_some_and(|t| t.failed.is_some()));
    assert_eq!(m.cursor(), step, "the run stops at the refused action");
    let b = m.banner.as_ref().unwrap();
    assert!(
        b.text.contains("“nodetool enablegossip on A”")
            && b.text.contains("gossip is already running"),
        "{}",
        b.text
    );
    assert!(
        b.text.contains(&format!("at 4.000s, step {step}")),
        "{}",
        b.text
    );
}

/// Keeping the link's session ends the trial: it becomes the one the autosave saves.
#[test]
fn keeping_the_links_session_ends_the_trial() {
    let s = saved_session();
    let bad = link(&s, 0, 0, kill_a(), 500);
    let s = settle(send(s, Msg::OpenPermalink(bad)));
    let s = send(s, Msg::KeepLinkSession);
    let m = s.model.borrow();
    assert!(m.trial.is_none());
    assert_eq!(m.run.variant, "buggy");
    assert!(m
        .banner
        .as_ref()
        .unwrap()
        .text
        .contains("replaces your saved session"));
}

/// A link whose actions run passes its trial once they have: at once when its cursor is past
/// them, else when the replay gets there.
#[test]
fn a_good_link_passes_its_trial_once_its_actions_ran() {
    let s = saved_session();
    let stall = Action::Stall {
        node: "B".into(),
        executor: "GossipStage".into(),
    };
    let (step, at) = step_at(5_000_000);
    let past = link(&s, step, at, stall.clone(), step + 5_000);
    let t = settle(send(s.clone(), Msg::OpenPermalink(past)));
    {
        let m = t.model.borrow();
        assert!(m.trial.is_none(), "{:?}", m.trial);
        assert!(
            m.banner.as_ref().is_none_or(|b| b.kind == BannerKind::Info),
            "{:?}",
            m.banner
        );
    }
    let before = link(&s, step, at, stall, step / 2);
    let t = settle(send(s, Msg::OpenPermalink(before)));
    assert!(t
        .model
        .borrow()
        .trial
        .as_ref()
        .is_some_and(|t| t.failed.is_none()));
    let t = settle(send(t, Msg::JumpToEnd));
    let m = t.model.borrow();
    assert!(m.trial.is_none(), "{:?}", m.trial);
    assert!(
        m.banner.as_ref().is_none_or(|b| b.kind == BannerKind::Info),
        "{:?}",
        m.banner
    );
}

/// An action at a step the run never reaches is never applied: at the end the trial fails and
/// says so.
#[test]
fn a_link_action_never_reached_fails_its_trial_at_the_end() {
    let s = saved_session();
    let end = s.model.borrow().end();
    let never = link(&s, 900_000_000, end, kill_a(), 10);
    let s = settle(send(s, Msg::OpenPermalink(never)));
    assert!(s
        .model
        .borrow()
        .trial
        .as_ref()
        .is_some_and(|t| t.failed.is_none()));
    let s = settle(send(s, Msg::JumpToEnd));
    let m = s.model.borrow();
    let t = m.trial.as_ref().expect("still on trial");
    assert!(t.failed.is_some());
    let b = m.banner.as_ref().unwrap();
    assert!(
        b.text.contains("never reached") && b.text.contains("step 900000000"),
        "{}",
        b.text
    );
}

/// Acting in the link's session makes it the person's: the trial ends (kept).
#[test]
fn acting_in_a_links_session_keeps_it() {
    let s = saved_session();
    let never = link(&s, 900_000_000, 10_000_000, kill_a(), 10);
    let s = settle(send(s, Msg::OpenPermalink(never)));
    assert!(s.model.borrow().trial.is_some());
    let s = send(s, Msg::UserAction(Action::Stop { node: "C".into() }));
    // The later recorded action asks first.
    let s = send(s, Msg::ConfirmDiscard);
    assert!(s.model.borrow().trial.is_none());
}

/// A link that does not open leaves a trial in progress as it was.
#[test]
fn a_broken_link_during_a_trial_keeps_the_trial() {
    let s = saved_session();
    let bad = link(&s, 0, 0, kill_a(), 500);
    let s = settle(send(s, Msg::OpenPermalink(bad)));
    let t = s.model.borrow().trial.clone();
    let s = send(s, Msg::OpenPermalink("#s=broken!!".into()));
    assert_eq!(s.model.borrow().trial, t);
}

/// The page's memory guard: past its heap limit the simulation stops on new ground with a limit
/// banner; the run computed so far still jumps (a replay does not grow it).
#[test]
fn the_page_memory_guard_stops_with_a_limit_banner() {
    let s = store();
    s.model.borrow_mut().heap_limit = 1;
    let s = settle(send(s, Msg::JumpToEnd));
    {
        let m = s.model.borrow();
        let b = m.banner.as_ref().expect("an error banner");
        assert_eq!(b.kind, BannerKind::Error);
        assert!(
            b.text.contains("limit reached: the page's memory")
                && b.text.contains("4 GiB of WebAssembly memory"),
            "{}",
            b.text
        );
        assert!(m.now() < m.end(), "stopped before the end");
        assert!(!m.busy());
    }
    let s = send(s, Msg::DismissBanner);
    let s = settle(send(s, Msg::JumpToStart));
    let m = s.model.borrow();
    assert_eq!(m.now(), 0);
    assert!(m.banner.is_none(), "{:?}", m.banner);
}

/// The e2e hook (`crash::fail_next_update`, `tests/e2e/specs/crash.mjs`) fails the next message
/// the reducer handles, with the model borrowed as a real bug would, once. (In the browser that
/// panic is a trap that `catch_unwind` cannot catch — `crash.mjs` covers the page's side there;
/// natively it unwinds, so this test runs natively only.)
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_planted_failure_panics_in_the_next_update_only() {
    let s = store();
    let c = s.model.borrow().cursor();
    clusterscope_web::crash::fail_next_update("planted by robust.rs".into());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        send(s.clone(), Msg::StepEvent);
    }));
    let e = r.expect_err("the planted panic");
    assert_eq!(
        e.downcast_ref::<String>().map(String::as_str),
        Some("planted by robust.rs")
    );
    let s = send(s, Msg::StepEvent);
    assert_eq!(s.model.borrow().cursor(), c + 1);
}

/// `timeout` on a Raft leader passes the link's checks (they know the node runs, not that it
/// leads) and is refused when the run applies it. Five links of raft-leader-election, each
/// timing out one node once the first leader is elected: exactly one, the leader's, fails its
/// trial, naming the action; the four others pass.
#[test]
fn a_raft_timeout_on_the_leader_fails_only_that_links_trial() {
    let base = settle(send(
        store(),
        Msg::LoadBuiltin("raft-leader-election".into()),
    ));
    let base = settle(send(base, Msg::ScrubTo(10_000_000)));
    let (step, at) = {
        let m = base.model.borrow();
        (m.cursor(), m.now())
    };
    let mut refused = vec![];
    for n in ["n1", "n2", "n3", "n4", "n5"] {
        let s = saved_session();
        let mut l: Session = base.model.borrow().session();
        l.actions = vec![RecordedAction {
            step,
            at: Dur(at),
            action: Action::Command {
                node: n.into(),
                command: "timeout".into(),
            },
        }];
        l.cursor = step + 1_000;
        let s = settle(send(s, Msg::OpenPermalink(l.encode())));
        let m = s.model.borrow();
        assert_eq!(m.run.scenario.name(), "raft-leader-election");
        match &m.trial {
            None => {}
            Some(t) => {
                assert!(t.failed.is_some(), "{n}: {t:?}");
                let b = m.banner.as_ref().unwrap();
                for words in [
                    format!("actions[0]: “nodetool timeout on {n}” at 10.000s, step {step}"),
                    "this node is the leader".to_string(),
                    "Your saved session (cassandra-21636-packet-loss (fixed) at 9.000s)".into(),
                ] {
                    assert!(b.text.contains(&words), "{words:?} in {}", b.text);
                }
                assert_eq!(m.cursor(), step);
                refused.push(n);
            }
        }
    }
    assert_eq!(refused.len(), 1, "only the leader refuses: {refused:?}");
}
