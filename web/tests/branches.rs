//! Issue 18, the branch tree (`web/src/model/branches.rs`): a fork keeps the old future as a
//! branch, each branch's expectations are evaluated, switching is one message, and branches
//! travel in the permalink and the export.

use clusterscope_core::engine::action::{Action, MsgFate};
use clusterscope_core::engine::trace::{DropReason, RecKind};
use clusterscope_core::limits::Limits;
use clusterscope_core::session::Session;
use clusterscope_web::model::{BannerKind, Msg, Store};
use std::rc::Rc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{evaluate, send, settle, store};

/// The first message of `label` lost on a cut link between `a` and `b` (either way when
/// `None`), after `after` µs: (msg, from, to).
fn lost(s: &Store, label: &str, after: u64, from: Option<u32>) -> (u64, u32, u32) {
    let m = s.model.borrow();
    let t = m.run.engine.trace();
    let c = m.run.scenario.topo.id("C").unwrap();
    t.recs
        .iter()
        .find_map(|r| match r.kind {
            RecKind::Drop {
                msg,
                label: l,
                reason: DropReason::LinkDown,
                from: f,
                to,
            } if l == label
                && r.time > after
                && f != c
                && to != c
                && from.is_none_or(|x| x == f) =>
            {
                Some((msg, f, to))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("a lost {label}"))
}

fn failing(s: &Store, i: usize) -> Vec<String> {
    let m = s.model.borrow();
    let e = m
        .branch_expectations(i)
        .expect("evaluated")
        .as_ref()
        .expect("the replay ran");
    e.iter()
        .filter(|x| !x.passed)
        .map(|x| x.name.clone())
        .collect()
}

fn fork(s: Rc<Store>, msg: u64) -> Rc<Store> {
    evaluate(settle(send(
        s,
        Msg::Fork {
            msg,
            fate: MsgFate::Deliver,
        },
    )))
}

#[test]
fn a_fork_keeps_the_original_as_a_branch_with_its_expectations() {
    let s = settle(send(store(), Msg::JumpToEnd));
    assert!(s.model.borrow().branches.list.is_empty(), "one branch");
    let (req, from, to) = lost(&s, "ECHO_REQ", 0, None);
    let s = fork(s, req);
    {
        let m = s.model.borrow();
        let b = &m.branches;
        assert_eq!(b.list.len(), 2);
        assert_eq!(b.current, 1);
        assert_eq!(b.list[1].parent, Some(0));
        assert!(
            m.branch_actions(0).is_empty(),
            "the original has no actions"
        );
        assert_eq!(m.branch_actions(1).len(), 1);
        assert!(
            b.list[1].what.contains(&format!("#{req}")),
            "{}",
            b.list[1].what
        );
    }
    // The original's (buggy) expectations hold.
    assert!(failing(&s, 0).is_empty(), "{:?}", failing(&s, 0));
    // The answer is lost on the same cut link: fork it too, from the first branch.
    let s = settle(send(s, Msg::JumpToEnd));
    let t_req = s.model.borrow().run.engine.user_actions()[0].at.0;
    let (rsp, _, _) = lost(&s, "ECHO_RSP", t_req, Some(to));
    let s = fork(s, rsp);
    {
        let m = s.model.borrow();
        assert_eq!(m.branches.list.len(), 3);
        assert_eq!(m.branches.current, 2);
        assert_eq!(m.branches.list[2].parent, Some(1));
        assert_eq!(m.branches.depth(2), 2);
    }
    // With both delivered, A and B end UP: the buggy variant's DOWN expectations fail, with why.
    let names = {
        let m = s.model.borrow();
        (m.name(to).to_string(), m.name(from).to_string())
    };
    let fail = failing(&s, 2);
    let want = format!(
        "{} sees {} DOWN from 5 s after the heal to the end",
        names.1, names.0
    );
    assert!(fail.contains(&want), "{fail:?} should name {want:?}");
    {
        let m = s.model.borrow();
        let e = m.branch_expectations(2).unwrap().as_ref().unwrap();
        let x = e.iter().find(|x| x.name == want).unwrap();
        assert!(!x.detail.is_empty(), "a failing expectation says why");
    }

    // Permalink and export carry the branches.
    let link = s.model.borrow().session().encode();
    let back = Session::decode(&link, &Limits::default()).unwrap();
    assert_eq!(back.branches.len(), 3);
    assert_eq!(back.branch, 2);
    let export = s.model.borrow().export_scenario().unwrap();
    assert_eq!(
        export
            .matches(clusterscope_core::session::SESSION_MARKER)
            .count(),
        1,
        "{export}"
    );
    // An import of the export brings every branch back, the same one shown (issue 41: only the
    // current branch's actions came back).
    let imported = settle(send(
        store(),
        Msg::ImportScenario {
            file: "export.toml".into(),
            text: export,
        },
    ));
    {
        let m = imported.model.borrow();
        assert!(
            m.banner
                .as_ref()
                .is_none_or(|b| b.kind != BannerKind::Error),
            "{:?}",
            m.banner
        );
        assert_eq!(m.branches.list.len(), 3);
        assert_eq!(m.branches.current, 2);
        assert_eq!(m.run.engine.user_actions().len(), 2);
        assert_eq!(m.branch_actions(1).len(), 1);
        assert_eq!(m.branch_actions(0).len(), 0);
        assert_eq!(m.branches.list[2].parent, Some(1));
        assert_eq!(
            m.now(),
            s.model.borrow().now(),
            "opens at the exported time"
        );
    }

    // Switch back to the original in one message: no actions, the cursor keeps its time.
    let now = s.model.borrow().now();
    let s = settle(send(s, Msg::SwitchBranch(0)));
    {
        let m = s.model.borrow();
        assert_eq!(m.branches.current, 0);
        assert!(m.run.engine.user_actions().is_empty());
        assert_eq!(m.now(), now);
        assert_eq!(m.branches.list.len(), 3, "switching keeps every branch");
    }
    // And to the fork again.
    let s = settle(send(s, Msg::SwitchBranch(2)));
    assert_eq!(s.model.borrow().run.engine.user_actions().len(), 2);

    // A fresh tab with the link: the same branches, the same one shown.
    let t = settle(send(store(), Msg::OpenPermalink(link)));
    let m = t.model.borrow();
    assert_eq!(m.branches.list.len(), 3);
    assert_eq!(m.branches.current, 2);
    assert_eq!(m.run.engine.user_actions().len(), 2);
    assert_eq!(m.branch_actions(1).len(), 1);
}

/// An action at the frontier (nothing computed after it) is not a branch; one at an earlier
/// cursor is; loading another scenario starts over with one branch.
#[test]
fn only_acting_before_the_future_branches() {
    let s = settle(send(store(), Msg::ScrubTo(5_000_000)));
    let s = settle(send(s, Msg::UserAction(Action::Kill { node: "C".into() })));
    assert!(s.model.borrow().branches.list.is_empty());
    let s = settle(send(s, Msg::ScrubTo(20_000_000)));
    let s = settle(send(s, Msg::ScrubTo(10_000_000)));
    let s = settle(send(s, Msg::UserAction(Action::Kill { node: "B".into() })));
    {
        let m = s.model.borrow();
        assert_eq!(m.branches.list.len(), 2);
        assert_eq!(m.branch_actions(0).len(), 1, "the old future: kill C only");
        assert_eq!(m.branch_actions(1).len(), 2);
    }
    let s = settle(send(s, Msg::LoadBuiltin("raft-leader-crash".into())));
    assert!(s.model.borrow().branches.list.is_empty());
}

/// Issue 18, fork from the log: "kill here" at an earlier line's time takes the cursor there,
/// records the kill at that time and keeps the old future as a branch.
#[test]
fn a_fork_at_a_log_line_kills_there_in_a_new_branch() {
    let s = settle(send(store(), Msg::JumpToEnd));
    let at = {
        let m = s.model.borrow();
        let t = m.run.engine.trace();
        t.logs
            .iter()
            .find(|l| l.time > 5_000_000 && l.time < m.now())
            .expect("a log line after 5 s")
            .time
    };
    let s = settle(send(
        s,
        Msg::ForkAt {
            at,
            action: Action::Kill { node: "C".into() },
        },
    ));
    let m = s.model.borrow();
    let acts = m.run.engine.user_actions();
    assert_eq!(acts.len(), 1);
    assert_eq!(acts[0].at.0, at, "the kill is at the line's time");
    assert_eq!(m.now(), at);
    assert_eq!(m.branches.list.len(), 2, "the old future stays as a branch");
    drop(m);
    // Beyond the computed trace: refused, nothing changes.
    let s = send(
        s,
        Msg::ForkAt {
            at: 500_000_000,
            action: Action::Kill { node: "B".into() },
        },
    );
    let m = s.model.borrow();
    assert_eq!(m.run.engine.user_actions().len(), 1);
    assert!(m
        .banner
        .as_ref()
        .unwrap()
        .text
        .contains("Nothing was changed"));
}

/// Fork from the timeline (`Model::timeline_pick`): a click at a drop's time offers that
/// message (nearest first), a click at a state mark offers its node at the mark's time, and a
/// click where nothing is marked offers nothing.
#[test]
fn a_timeline_click_offers_the_drops_and_state_marks_there() {
    let s = settle(send(
        store(),
        Msg::LoadBuiltin("cassandra-21636-packet-loss".into()),
    ));
    let s = settle(send(s, Msg::JumpToEnd));
    let (msg, _, _) = lost(&s, "ECHO_REQ", 0, None);
    let m = s.model.borrow();
    let t = m.run.engine.trace();
    let at = t
        .recs
        .iter()
        .find_map(|r| match r.kind {
            RecKind::Drop { msg: x, .. } if x == msg => Some(r.time),
            _ => None,
        })
        .unwrap();
    let p = m
        .timeline_pick(at - 1, at + 1, at)
        .expect("a drop is there");
    assert_eq!(p.drops[0].msg, msg, "the nearest drop first: {:?}", p.drops);
    assert_eq!(p.drops[0].label, "ECHO_REQ");
    assert!(p.drops.len() <= 3);
    // A state mark (a node marked DOWN): its node, at its time. (Clicked on the mark itself:
    // since 4.0 a node convicts through its GossipStage, one task of 100 us per peer, so two
    // DOWN marks can stand 100 us apart and a click 1 ms after the first is nearer the second.)
    let mk = m
        .marks
        .marks
        .iter()
        .find(|k| k.kind == clusterscope_web::model::nav::MarkKind::Down)
        .copied()
        .expect("the buggy run marks a node DOWN");
    let p = m
        .timeline_pick(mk.time - 2_000, mk.time + 2_000, mk.time)
        .expect("a mark is there");
    assert_eq!(p.at, mk.time, "node actions act at the mark's time");
    assert!(p.nodes.contains(&mk.node));
    // The first second: nothing is dropped or marked yet.
    assert_eq!(m.timeline_pick(0, 1_000, 500), None);
}

/// Branches are evaluated through worker jobs (`Model::branch_jobs`, answered with
/// `Msg::BranchEvaluated`): a fork makes a job per unevaluated branch, an answer for actions
/// the branch no longer has is ignored, and answered branches leave the list of jobs.
#[test]
fn branch_expectations_come_from_worker_jobs() {
    let s = settle(send(store(), Msg::JumpToEnd));
    assert!(
        s.model.borrow().branch_jobs().is_empty(),
        "one branch: none"
    );
    let (req, _, _) = lost(&s, "ECHO_REQ", 0, None);
    let s = settle(send(
        s,
        Msg::Fork {
            msg: req,
            fate: MsgFate::Deliver,
        },
    ));
    let jobs = s.model.borrow().branch_jobs();
    assert_eq!(jobs.iter().map(|j| j.index).collect::<Vec<_>>(), vec![0, 1]);
    assert!(jobs[0].actions.is_empty());
    assert_eq!(jobs[1].actions.len(), 1);
    let (b, text) = jobs[1].scenario.clone().unwrap();
    assert!(b.is_empty() && text.contains("[[recorded]]"), "{text}");
    // A stale answer (other actions) changes nothing.
    let s = send(
        s,
        Msg::BranchEvaluated {
            index: 1,
            actions: Vec::new(),
            outcome: Ok(Vec::new()),
        },
    );
    assert!(s.model.borrow().branch_expectations(1).is_none());
    let s = evaluate(s);
    let m = s.model.borrow();
    assert!(m.branch_jobs().is_empty(), "all answered");
    assert!(matches!(m.branch_expectations(0), Some(Ok(e)) if e.iter().all(|x| x.passed)));
    assert!(m.branch_expectations(1).is_some());
}
