//! Issue 40, the lecture aids: the model's moments on the timeline (n / N), "what just
//! happened", Raft's one-key actions recorded as user actions, and the way back to the script's
//! run, through `Store::reduce` as the UI dispatches them (natively and in Chromium).

use clusterscope_web::model::{Msg, Store};
use std::rc::Rc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{send, settle, store};

fn election() -> Rc<Store> {
    let s = send(store(), Msg::LoadBuiltin("raft-leader-election".into()));
    assert_eq!(s.model.borrow().run.scenario.name(), "raft-leader-election");
    s
}

fn leader_of(s: &Store) -> Option<String> {
    let m = s.model.borrow();
    let v = m.run.engine.views_json();
    (0..m.n() as u32).find_map(|i| {
        let name = m.name(i).to_string();
        (v[&name]["role"] == "leader").then_some(name)
    })
}

/// n jumps to the election: the cursor lands just after the step where a node became leader,
/// which the moment names; N walks back; the timeline has the moment in its list.
#[test]
fn next_moment_jumps_to_the_election() {
    let s = election();
    assert!(leader_of(&s).is_none(), "no leader at the start");
    let s = settle(send(s, Msg::NextMoment));
    // The first moment of the election scenario is the first term (a candidate), then the win.
    let mut s = s;
    let mut won = None;
    for _ in 0..5 {
        let here = s.model.borrow().moment_here().cloned();
        let m = here.expect("the cursor is just after a moment");
        if m.kind == 0 {
            won = Some(m);
            break;
        }
        s = settle(send(s, Msg::NextMoment));
    }
    let won = won.expect("an election won");
    let leader = leader_of(&s).expect("a leader right after the election moment");
    assert_eq!(won.text, format!("{leader} elected leader of term 1"));
    // One step back: not yet a leader.
    let s = send(s, Msg::StepBack);
    assert!(
        leader_of(&s).is_none(),
        "the moment is the step the leader was elected"
    );
    let s = send(s, Msg::PrevMoment);
    let m = s.model.borrow().moment_here().cloned().unwrap();
    assert_eq!(m.kind, 1, "the term began before the election: {m:?}");
    assert!(s.model.borrow().marks.kinds.len() >= 3);
}

/// The dock's line after a step says what that step did in Raft's words.
#[test]
fn what_happened_names_the_vote() {
    let mut s = election();
    let mut line = None;
    for _ in 0..2_000 {
        s = send(s, Msg::StepEvent);
        let w = s.model.borrow().what_happened();
        if let Some(w) = w.filter(|w| w.contains(" granted its vote to ")) {
            line = Some(w);
            break;
        }
    }
    let line = line.expect("a vote was granted");
    let (voter, rest) = line.split_once(" granted its vote to ").unwrap();
    assert!(rest.ends_with(" in term 1"), "{line}");
    let cand = rest.trim_end_matches(" in term 1");
    let v = s.model.borrow().run.engine.views_json();
    assert_eq!(v[voter]["voted_for"], cand, "{line}");
}

/// A one-key action is a recorded user action (so a permalink replays it); after it, the run is
/// no longer the script's, and going back drops it (Undo brings it back).
#[test]
fn quick_key_is_recorded_and_back_to_script_drops_it() {
    let s = election();
    let s = settle(send(s, Msg::ScrubTo(8_000_000)));
    let leader = leader_of(&s).expect("a leader at 8 s");
    assert!(!s.model.borrow().script_changed());
    let s = send(s, Msg::QuickKey('K'));
    {
        let m = s.model.borrow();
        let acts = m.run.engine.user_actions();
        assert_eq!(acts.len(), 1);
        assert_eq!(
            acts[0].action.describe(),
            clusterscope_core::engine::action::Action::Kill {
                node: leader.clone()
            }
            .describe()
        );
        assert!(m.script_changed());
        assert!(m.session().actions.len() == 1, "in the permalink");
    }
    let s = send(s, Msg::BackToScript);
    let s = settle(s);
    {
        let m = s.model.borrow();
        assert!(m.run.engine.user_actions().is_empty());
        assert!(!m.script_changed());
        assert_eq!(m.now(), 8_000_000, "the same time");
    }
    assert_eq!(leader_of(&s), Some(leader), "the script's leader again");
    let s = settle(send(s, Msg::Undo));
    assert_eq!(s.model.borrow().run.engine.user_actions().len(), 1);
    // A key the model does not have does nothing.
    let s = send(s, Msg::QuickKey('§'));
    assert_eq!(s.model.borrow().run.engine.user_actions().len(), 1);
}

/// raft-slow-apply: commitIndex and lastApplied of the selected node on one chart, the first
/// one shown; at the widest lag the two lines are apart by what the views say.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn commit_and_apply_on_one_chart() {
    use clusterscope_web::draw::plots::{series, Plot};
    let s = send(store(), Msg::LoadBuiltin("raft-slow-apply".into()));
    let s = settle(send(s, Msg::ScrubTo(7_900_000)));
    let m = s.model.borrow();
    let plots = Plot::all(&m, 6);
    assert_eq!(plots[0], Plot::Overlay(0));
    let sel = m.selected.expect("a node is selected");
    let lines = series(&m, plots[0]);
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].name.starts_with("commitIndex"),
        "{}",
        lines[0].name
    );
    assert!(
        lines[1].name.starts_with("lastApplied"),
        "{}",
        lines[1].name
    );
    let v = m.run.engine.views_json();
    let node = &v[m.name(sel)];
    let (c, a) = (
        lines[0].points.last().unwrap().1,
        lines[1].points.last().unwrap().1,
    );
    assert!(c > a, "a lag at 7.9 s: commit {c}, applied {a}");
    assert!(c <= node["commit_index"].as_f64().unwrap());
    assert!(a <= node["last_applied"].as_f64().unwrap());
}

/// The model's glance through the generic seam (`Driver::glance`): once raft-leader-election
/// has its leader, that node is ringed with its term inside, and every running node shows its
/// term.
#[test]
fn raft_s_glance_rings_the_leader_with_its_term() {
    let s = send(election(), Msg::JumpToEnd);
    let s = settle(s);
    let leader = leader_of(&s).expect("a leader by the end");
    let m = s.model.borrow();
    let v = m.run.engine.views_json();
    for i in 0..m.n() as u32 {
        let g = m.run.engine.glance(i);
        let name = m.name(i).to_string();
        assert_eq!(g.text, v[&name]["term"].to_string(), "{name}");
        assert_eq!(g.ring.is_some(), name == leader, "{name}: {g:?}");
    }
    assert_eq!(m.run.engine.glance_legend().text, "the term");
}
