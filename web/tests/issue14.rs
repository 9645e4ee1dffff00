//! Issue 14 ("the app in a lecture hall and in an incident review"): the reducer side of its
//! defects, through `Store::reduce` as the UI dispatches them (natively and in Chromium).

use clusterscope_core::engine::action::Action;
use clusterscope_web::model::export::CURSOR_MARKER;
use clusterscope_web::model::{Model, Msg, Store};
use std::rc::Rc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{send, settle, store};

fn kill(node: &str) -> Msg {
    Msg::UserAction(Action::Kill { node: node.into() })
}

fn described(s: &Store) -> Vec<String> {
    s.model
        .borrow()
        .run
        .engine
        .user_actions()
        .iter()
        .map(|a| a.action.describe())
        .collect()
}

/// Defect 3: acting before recorded actions asks first; cancel changes nothing; confirming
/// acts, and Undo brings the discarded actions (and the cursor) back.
#[test]
fn acting_before_recorded_actions_asks_and_undo_restores_them() {
    let s = settle(send(store(), Msg::ScrubTo(5_000_000)));
    let s = send(s, kill("C"));
    let s = settle(send(s, Msg::ScrubTo(12_000_000)));
    let s = send(s, kill("B"));
    let s = settle(send(s, Msg::ScrubTo(20_000_000)));
    let before = described(&s);
    assert_eq!(before.len(), 2);
    let s = settle(send(s, Msg::ScrubTo(3_000_000)));
    let at = s.model.borrow().cursor();

    // Acting here would discard both: nothing happens until the person answers.
    let s = send(s, kill("A"));
    {
        let m = s.model.borrow();
        let p = m
            .confirm
            .as_ref()
            .expect("a question, not a silent discard");
        assert_eq!(p.later.len(), 2);
        assert_eq!(p.lines().len(), 2);
        assert_eq!(m.cursor(), at);
    }
    assert_eq!(described(&s), before);
    let s = send(s, Msg::CancelDiscard);
    assert!(s.model.borrow().confirm.is_none());
    assert_eq!(described(&s), before);
    assert_eq!(s.model.borrow().cursor(), at);

    // Confirmed: the new action replaces the later ones, and Undo is offered.
    let s = send(s, kill("A"));
    let s = send(s, Msg::ConfirmDiscard);
    assert_eq!(described(&s).len(), 1);
    assert!(described(&s)[0].contains('A'));
    {
        let m = s.model.borrow();
        assert_eq!(m.undo.as_ref().map(|u| u.discarded), Some(2));
        assert!(m.banner.as_ref().unwrap().text.contains("Undo"));
    }
    let s = settle(send(s, Msg::Undo));
    assert_eq!(described(&s), before);
    assert_eq!(s.model.borrow().cursor(), at);
    assert!(s.model.borrow().undo.is_none());
}

/// A computed future without recorded actions is recomputed by the same replay: no question.
#[test]
fn acting_before_a_merely_computed_future_does_not_ask() {
    let s = settle(send(store(), Msg::ScrubTo(20_000_000)));
    let s = settle(send(s, Msg::ScrubTo(3_000_000)));
    let s = send(s, kill("A"));
    let m = s.model.borrow();
    assert!(m.confirm.is_none());
    assert_eq!(m.run.engine.user_actions().len(), 1);
}

/// Defect 8: an exported scenario opens at the cursor it was exported at.
#[test]
fn an_exported_scenario_imports_at_its_exported_cursor() {
    let s = settle(send(store(), Msg::ScrubTo(4_000_000)));
    let s = send(s, kill("C"));
    let s = settle(send(s, Msg::ScrubTo(45_000_000)));
    let (text, cursor, now) = {
        let m = s.model.borrow();
        (m.export_scenario().unwrap(), m.cursor(), m.now())
    };
    assert!(text.contains(CURSOR_MARKER));
    let s2 = settle(send(
        store(),
        Msg::ImportScenario {
            file: "export.toml".into(),
            text,
        },
    ));
    let m = s2.model.borrow();
    assert_eq!(m.cursor(), cursor);
    assert_eq!(m.now(), now);
}

/// Defect 8: a permalink (and the autosave, the same encoding) remembers the selected node.
#[test]
fn a_permalink_remembers_the_selected_node() {
    let s = settle(send(store(), Msg::ScrubTo(6_000_000)));
    let c = s.model.borrow().run.scenario.topo.id("C").unwrap();
    let s = send(s, Msg::SelectNode(Some(c)));
    let enc = s.model.borrow().session().encode();
    let s2 = store();
    assert_ne!(s2.model.borrow().selected, Some(c));
    let s2 = settle(send(s2, Msg::OpenPermalink(enc.clone())));
    assert_eq!(s2.model.borrow().selected, Some(c));
    let s3 = settle(send(store(), Msg::RestoreSaved(enc)));
    assert_eq!(s3.model.borrow().selected, Some(c));
}

fn open(name: &str) -> Rc<Store> {
    settle(send(store(), Msg::LoadBuiltin(name.into())))
}

/// On-call: at 251 nodes the sequence diagram opens on nodes that exchange messages (the first
/// four nodes of a large cluster rarely talk to each other).
#[test]
fn a_large_clusters_sequence_diagram_follows_nodes_that_talk() {
    let s = open("cassandra-21636-rolling-upgrade");
    let s = settle(send(s, Msg::ScrubTo(20_000_000)));
    let m = s.model.borrow();
    assert!(m.n() > 200);
    let sel = m.selected.unwrap();
    assert!(m.seq_nodes.contains(&sel), "{:?}", m.seq_nodes);
    assert!(m.seq_nodes.len() >= 2);
    assert!(clusterscope_web::model::seq::exchanges_among(
        m.run.engine.trace(),
        m.cursor(),
        &m.seq_nodes,
        50_000
    ));
}

/// On-call: the notable cells ("and 688 more") as CSV, one line per cell.
#[test]
fn notable_cells_export_as_csv() {
    let s = send(store(), Msg::SetVariant("buggy".into()));
    let s = settle(send(s, Msg::JumpToEnd));
    let m = s.model.borrow();
    let notable = m.run.engine.matrix_summary(0).notable;
    assert!(
        !notable.is_empty(),
        "the buggy packet-loss run ends with DOWN views"
    );
    let csv = clusterscope_web::model::matrix_view::notable_csv(&m);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "observer,observer_dc,peer,peer_dc,state,text");
    assert_eq!(lines.len(), notable.len() + 1);
    let topo = &m.run.scenario.topo;
    for ((o, q), l) in notable.iter().zip(&lines[1..]) {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 6, "{l}");
        assert_eq!((f[0], f[2]), (topo.name(*o), topo.name(*q)));
        assert!(f[4].starts_with("DOWN"), "{l}");
    }
}

/// Student: the minimal scenario the docs offer parses, runs and its expectation holds.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_documented_minimal_scenario_runs() {
    use clusterscope_core::limits::Limits;
    use clusterscope_core::runner::{Run, RunOptions};
    use clusterscope_core::scenario::Scenario;
    let doc = include_str!("../../docs/SCENARIOS.md");
    let a = doc
        .find("<!-- template:begin -->")
        .expect("template in the docs");
    let b = doc.find("<!-- template:end -->").unwrap();
    let block = &doc[a..b];
    let toml = block
        .split("```toml")
        .nth(1)
        .and_then(|t| t.split("```").next())
        .unwrap();
    let sc = Scenario::parse("template.toml", toml, &Limits::default()).unwrap();
    let v = Run::default_variant(&sc);
    let mut run = Run::new(sc, &v, None, &toml::Table::new(), &RunOptions::default()).unwrap();
    let report = run.run(None).unwrap();
    assert!(report.passed, "{:?}", report.expectations);
    assert_eq!(report.expectations.len(), 1);
}

/// Student: every model has a sandbox without scripted faults, and the app lists them.
#[test]
fn every_model_has_a_sandbox() {
    let m = Model::new();
    for model in clusterscope_core::registry::names() {
        let name = format!("sandbox-{model}");
        let sc = clusterscope_core::scenario::builtin::get(&name)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(sc.faults.is_empty(), "{name} scripts no faults");
        assert!(!sc.raw.expect.is_empty(), "{name} expects something");
        assert!(sc.topo.len() <= 5, "{name}: a few nodes");
        assert!(m.catalog.iter().any(|c| c.name == name));
    }
}

/// Teacher: "next drop" lands just after a lost message (packet loss: the lost gossip around the
/// loss event at 20 s), and "previous drop" goes back to one.
#[test]
fn next_and_previous_drop_land_on_lost_messages() {
    use clusterscope_core::engine::trace::RecKind;
    use clusterscope_web::model::nav::{recs_of_step, NavKind};
    let s = settle(send(store(), Msg::Next(NavKind::Drop)));
    let (c, now) = {
        let m = s.model.borrow();
        let t = m.run.engine.trace();
        let c = m.cursor();
        assert!(
            recs_of_step(t, c - 1).any(|r| matches!(r.kind, RecKind::Drop { .. })),
            "the step before the cursor dropped a message"
        );
        (c, m.now())
    };
    assert!(now >= 20_000_000, "no drop before the loss event: {now}");
    let s = settle(send(s, Msg::Next(NavKind::Drop)));
    assert!(s.model.borrow().cursor() > c);
    let s = settle(send(s, Msg::Prev(NavKind::Drop)));
    assert_eq!(s.model.borrow().cursor(), c);
}

/// Teacher: with "pause at captions", playing stops at each caption's time.
#[test]
fn playing_pauses_at_each_caption() {
    let s = send(store(), Msg::SetCaptionPause(true));
    let caps: Vec<u64> = s.model.borrow().captions.iter().map(|c| c.0).collect();
    let next: Vec<u64> = caps.iter().copied().filter(|c| *c > 0).take(2).collect();
    assert_eq!(next.len(), 2);
    let s = send(s, Msg::SetSpeed(100.0));
    let s = settle(send(s, Msg::TogglePlay));
    assert_eq!(s.model.borrow().now(), next[0]);
    assert!(!s.model.borrow().playing);
    let s = settle(send(s, Msg::TogglePlay));
    assert_eq!(s.model.borrow().now(), next[1]);
    // Off: playing runs past the captions.
    let s = send(s, Msg::SetCaptionPause(false));
    let s = send(s, Msg::TogglePlay);
    let s = (0..400).fold(s, |s, _| {
        send(
            s,
            Msg::Tick {
                dt_ms: 16.0,
                cost_ms: 1.0,
                render_ms: 0.0,
            },
        )
    });
    assert!(s.model.borrow().now() > next[1] + 20_000_000);
}
