//! Reducer tests: every transition of the app state, through `Store::reduce` exactly as the UI
//! dispatches them. They run in headless Chromium (`scripts/test`, wasm-bindgen-test) and natively
//! (`cargo test`), since the model has no DOM access.

use clusterscope_core::engine::action::Action;
use clusterscope_core::session::{ScenarioRef, Session};
use clusterscope_web::model::export::VARIANT_MARKER;
use clusterscope_web::model::nav::NavKind;
use clusterscope_web::model::{BannerKind, Msg, Seek, Store};
use std::rc::Rc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const PACKET_LOSS: &str = "cassandra-21636-packet-loss";

mod common;
use common::{send, settle, store};

fn sees(s: &Store, observer: &str, peer: &str) -> &'static str {
    let m = s.model.borrow();
    let topo = &m.run.scenario.topo;
    let (o, p) = (topo.id(observer).unwrap(), topo.id(peer).unwrap());
    if m.run
        .sim_of::<clusterscope_core::gossip::Gossip>()
        .unwrap()
        .nodes[o as usize]
        .state
        .sees_up(p)
    {
        "UP"
    } else {
        "DOWN"
    }
}

fn open(variant: &str) -> Rc<Store> {
    let s = send(store(), Msg::LoadBuiltin(PACKET_LOSS.into()));
    send(s, Msg::SetVariant(variant.into()))
}

#[test]
fn starts_on_the_packet_loss_incident_paused_at_zero() {
    let s = store();
    let m = s.model.borrow();
    assert_eq!(m.run.scenario.name(), PACKET_LOSS);
    assert_eq!(m.run.variant, "buggy");
    assert_eq!(m.now(), 0);
    // The events at time zero (every node starting) are processed.
    assert!(
        (0..m.n() as u32).all(|i| m.run.engine.status(i) == clusterscope_core::NodeStatus::Running)
    );
    assert!(!m.busy());
    assert_eq!(m.selected, Some(0));
    assert!(!m.captions.is_empty());
}

#[test]
fn jump_to_end_shows_the_phantom_down_in_buggy_only() {
    let s = settle(send(open("buggy"), Msg::JumpToEnd));
    {
        let m = s.model.borrow();
        assert_eq!(m.now(), m.end());
        assert!(m.banner.is_none(), "{:?}", m.banner);
        // Samples were taken along the way, bounded.
        assert!(m.samples.len() > 100 && m.samples.len() <= 1300);
        let k = m.samples.series_index("down_pairs").unwrap();
        assert!((0..m.samples.len()).any(|i| m.samples.value(i, k, 0) >= 2.0));
    }
    assert_eq!(sees(&s, "A", "B"), "DOWN");
    assert_eq!(sees(&s, "B", "A"), "DOWN");
    assert_eq!(sees(&s, "C", "A"), "UP");

    let s = settle(send(open("fixed"), Msg::JumpToEnd));
    assert_eq!(sees(&s, "A", "B"), "UP");
    assert_eq!(sees(&s, "B", "A"), "UP");
}

#[test]
fn play_advances_by_speed_times_elapsed_and_pause_stops() {
    let s = send(store(), Msg::SetSpeed(2.0));
    let s = send(s, Msg::TogglePlay);
    assert!(s.model.borrow().playing);
    let s = send(
        s,
        Msg::Tick {
            dt_ms: 100.0,
            cost_ms: 1.0,
            render_ms: 0.0,
        },
    );
    // 100 ms of real time at 2x is 200 ms of virtual time.
    assert_eq!(s.model.borrow().now(), 200_000);
    let s = send(s, Msg::Pause);
    assert!(!s.model.borrow().playing);
    let before = s.rev;
    let s = send(
        s,
        Msg::Tick {
            dt_ms: 100.0,
            cost_ms: 1.0,
            render_ms: 0.0,
        },
    );
    assert_eq!(s.rev, before, "a tick while paused changes nothing");
    assert_eq!(s.model.borrow().now(), 200_000);
}

#[test]
fn per_frame_step_budget_bounds_work_and_adapts() {
    let s = send(store(), Msg::SetSpeed(1000.0));
    let s = send(s, Msg::TogglePlay);
    let budget = s.model.borrow().steps_per_frame;
    let s = send(
        s,
        Msg::Tick {
            dt_ms: 100.0,
            cost_ms: 1.0,
            render_ms: 0.0,
        },
    );
    assert!(s.model.borrow().cursor() <= budget);
    // A slow frame shrinks the budget.
    let s = send(
        s,
        Msg::Tick {
            dt_ms: 16.0,
            cost_ms: 40.0,
            render_ms: 0.0,
        },
    );
    assert!(s.model.borrow().steps_per_frame < budget);
}

#[test]
fn step_and_step_back_move_one_event() {
    let s = store();
    let c0 = s.model.borrow().cursor();
    let s = send(s, Msg::StepEvent);
    let s = send(s, Msg::StepEvent);
    assert_eq!(s.model.borrow().cursor(), c0 + 2);
    let s = send(s, Msg::StepBack);
    assert_eq!(s.model.borrow().cursor(), c0 + 1);
}

#[test]
fn next_delivery_and_next_interesting_land_after_a_match() {
    let s = settle(send(store(), Msg::Next(NavKind::Delivery)));
    {
        let m = s.model.borrow();
        let t = m.run.engine.trace();
        let mut last = clusterscope_web::model::nav::recs_of_step(t, m.cursor() - 1);
        assert!(last.any(|r| NavKind::Delivery.matches(&r, t)));
    }
    let s = settle(send(s, Msg::Next(NavKind::Interesting)));
    let m = s.model.borrow();
    let t = m.run.engine.trace();
    let mut last = clusterscope_web::model::nav::recs_of_step(t, m.cursor() - 1);
    assert!(last.any(|r| NavKind::Interesting.matches(&r, t)));
}

#[test]
fn scrubbing_backwards_is_instant_and_forwards_replays() {
    let s = settle(send(store(), Msg::ScrubTo(90_000_000)));
    let (step_90, frontier) = {
        let m = s.model.borrow();
        assert_eq!(m.now(), 90_000_000);
        (m.cursor(), m.frontier())
    };
    let s = send(s, Msg::ScrubTo(30_000_000));
    {
        let m = s.model.borrow();
        assert!(!m.busy(), "going back needs no seek");
        assert_eq!(m.now(), 30_000_000);
        assert_eq!(m.frontier(), frontier, "the computed future is kept");
    }
    let s = settle(send(s, Msg::ScrubTo(90_000_000)));
    assert_eq!(s.model.borrow().cursor(), step_90);
}

#[test]
fn jumps_through_checkpoints_land_on_the_same_state_as_a_straight_run() {
    // Compute the whole scenario, then jump around (backwards and forwards, near and far: far
    // ones restore a checkpoint and replay the rest in frames); every landing equals a fresh run
    // sought straight to the same time.
    let s = settle(send(store(), Msg::JumpToEnd));
    let frontier = s.model.borrow().frontier();
    let mut s = s;
    for (i, t) in [
        300_000_000,
        20_000_000,
        600_000_000,
        650_000_000,
        0,
        719_000_000,
    ]
    .into_iter()
    .enumerate()
    {
        // Alternately assume steps are cheap (the jump happens at once) and dear (the checkpoint
        // is shown at once and the rest replays in frames).
        s.model.borrow_mut().step_cost_ms = if i % 2 == 0 { 1e-6 } else { 1.0 };
        s = settle(send(s, Msg::ScrubTo(t)));
        let straight = settle(send(store(), Msg::ScrubTo(t)));
        let (m, f) = (s.model.borrow(), straight.model.borrow());
        assert_eq!(m.now(), t);
        assert_eq!(m.cursor(), f.cursor(), "step at {t}");
        assert_eq!(m.run.engine.hash(), f.run.engine.hash(), "state at {t}");
        assert_eq!(m.frontier(), frontier, "the computed future is kept");
    }
}

#[test]
fn next_caption_goes_to_the_caption_time() {
    let s = settle(send(store(), Msg::NextCaption));
    let m = s.model.borrow();
    let first = m.captions[0].0;
    assert_eq!(m.now(), first);
    assert_eq!(m.caption_now().unwrap().0, 0);
}

#[test]
fn user_action_is_recorded_and_refused_action_changes_nothing() {
    let s = settle(send(store(), Msg::ScrubTo(5_000_000)));
    let s = send(
        s,
        Msg::UserAction(Action::DropLink {
            from: "A".into(),
            to: "C".into(),
            one_way: false,
            down_for: None,
        }),
    );
    {
        let m = s.model.borrow();
        assert_eq!(m.run.engine.user_actions().len(), 1);
        assert!(!m.run.engine.net().link(0, 2).up);
        assert!(!m.run.engine.net().link(2, 0).up);
        assert_eq!(m.banner.as_ref().unwrap().kind, BannerKind::Info);
        assert!(m
            .marks
            .marks
            .iter()
            .any(|k| k.kind == clusterscope_web::model::nav::MarkKind::UserAction));
    }
    let cursor = s.model.borrow().cursor();
    // Starting a running node is refused: banner, nothing recorded, cursor unchanged.
    let s = send(s, Msg::UserAction(Action::Start { node: "B".into() }));
    let m = s.model.borrow();
    assert_eq!(m.banner.as_ref().unwrap().kind, BannerKind::Error);
    assert_eq!(m.run.engine.user_actions().len(), 1);
    assert_eq!(m.cursor(), cursor);
}

#[test]
fn acting_in_the_past_discards_the_old_future() {
    let s = settle(send(store(), Msg::ScrubTo(30_000_000)));
    let s = send(s, Msg::ScrubTo(10_000_000));
    let old_frontier = s.model.borrow().frontier();
    let s = send(s, Msg::UserAction(Action::Kill { node: "C".into() }));
    let m = s.model.borrow();
    assert!(m.frontier() < old_frontier);
    assert!(m.samples.times.iter().all(|t| *t <= m.now()));
}

#[test]
fn variant_switch_keeps_time_and_replays_user_actions() {
    let s = settle(send(store(), Msg::ScrubTo(5_000_000)));
    let s = send(s, Msg::UserAction(Action::Kill { node: "C".into() }));
    let s = settle(send(s, Msg::ScrubTo(8_000_000)));
    let s = settle(send(s, Msg::SetVariant("fixed".into())));
    let m = s.model.borrow();
    assert_eq!(m.run.variant, "fixed");
    assert_eq!(m.now(), 8_000_000);
    assert_eq!(
        m.run.engine.user_actions().len(),
        1,
        "the kill was re-applied"
    );
    assert_eq!(
        m.run.engine.status(2),
        clusterscope_core::NodeStatus::Stopped
    );
}

#[test]
fn permalink_round_trip_reproduces_the_state() {
    let s = settle(send(open("fixed"), Msg::ScrubTo(4_000_000)));
    let s = send(
        s,
        Msg::UserAction(Action::SetLoss {
            from: "A".into(),
            to: "B".into(),
            loss: 0.5,
            one_way: true,
        }),
    );
    let s = settle(send(s, Msg::ScrubTo(70_000_000)));
    let (link, session, hash) = {
        let m = s.model.borrow();
        (m.session().encode(), m.session(), m.run.engine.hash().0)
    };
    let other = settle(send(store(), Msg::OpenPermalink(format!("#s={link}"))));
    let m = other.model.borrow();
    assert!(m.banner.is_none(), "{:?}", m.banner);
    assert_eq!(m.session(), session);
    assert_eq!(m.run.engine.hash().0, hash, "same trace hash at the cursor");
    assert_eq!(m.run.variant, "fixed");
}

/// A link's run computing its way to the link's cursor is "opening" (the page shows its progress
/// in place of the panels, `ui/app.rs`) until it gets there, or until a pause stops it short.
#[test]
fn a_link_is_opening_until_its_cursor_or_a_pause() {
    // Ten minutes: more steps than one frame's budget.
    let s = settle(send(open("fixed"), Msg::ScrubTo(600_000_000)));
    let (link, cursor) = {
        let m = s.model.borrow();
        (m.session().encode(), m.cursor())
    };
    assert!(
        s.model.borrow().opening().is_none(),
        "a scrub is not an opening"
    );
    let other = send(store(), Msg::OpenPermalink(format!("#s={link}")));
    {
        let m = other.model.borrow();
        let (done, of) = m.opening().expect("the link's run computes to its cursor");
        assert_eq!(of, cursor);
        assert!(
            done < of,
            "{done} of {of}: one frame's budget is not the whole run"
        );
        assert_eq!(done, m.cursor());
    }
    let landed = settle(other);
    assert!(landed.model.borrow().opening().is_none());
    assert_eq!(landed.model.borrow().cursor(), cursor);
    // A pause stops it where the run is, and the panels show that.
    let again = send(store(), Msg::OpenPermalink(format!("#s={link}")));
    assert!(again.model.borrow().opening().is_some());
    let paused = send(again, Msg::Pause);
    let m = paused.model.borrow();
    assert!(m.opening().is_none());
    assert!(m.cursor() < cursor);
    assert!(!m.busy());
}

#[test]
fn broken_permalink_shows_an_error_and_keeps_the_session() {
    let s = settle(send(open("legacy"), Msg::ScrubTo(3_000_000)));
    let before = s.model.borrow().session();
    let s = send(s, Msg::OpenPermalink("#s=not-a-valid-link!!".into()));
    let m = s.model.borrow();
    let b = m.banner.as_ref().unwrap();
    assert_eq!(b.kind, BannerKind::Error);
    assert!(b.text.contains("could not be opened"), "{}", b.text);
    assert_eq!(m.session(), before);
}

#[test]
fn permalink_to_an_unknown_scenario_is_refused() {
    let bad = Session::new(
        ScenarioRef::Builtin("no-such-incident".into()),
        "buggy".into(),
        1,
    );
    let s = send(store(), Msg::OpenPermalink(bad.encode()));
    let m = s.model.borrow();
    assert!(m.banner.as_ref().unwrap().text.contains("no-such-incident"));
    assert_eq!(m.run.scenario.name(), PACKET_LOSS);
}

#[test]
fn invalid_import_names_the_place_and_keeps_the_session() {
    let s = settle(send(store(), Msg::ScrubTo(2_000_000)));
    let before = s.model.borrow().session();
    let s = send(
        s,
        Msg::ImportScenario {
            file: "mine.toml".into(),
            text: "name = \"x\"\ntitle = 3\n".into(),
        },
    );
    let m = s.model.borrow();
    let b = m.banner.as_ref().unwrap();
    assert_eq!(b.kind, BannerKind::Error);
    assert!(b.text.contains("mine.toml"), "{}", b.text);
    assert!(b.text.contains("line"), "names the line: {}", b.text);
    assert_eq!(m.session(), before);
}

#[test]
fn exported_scenario_imports_and_replays_the_same_actions() {
    let s = settle(send(open("fixed"), Msg::ScrubTo(3_000_000)));
    let s = send(
        s,
        Msg::UserAction(Action::Restart {
            node: "B".into(),
            kill: true,
            down_for: None,
        }),
    );
    let s = settle(send(s, Msg::ScrubTo(20_000_000)));
    let (text, hash, cursor) = {
        let m = s.model.borrow();
        (
            m.export_scenario().unwrap(),
            m.run.engine.hash().0,
            m.cursor(),
        )
    };
    assert!(text.contains(&format!("{VARIANT_MARKER}\"fixed\"")));
    let s2 = send(
        store(),
        Msg::ImportScenario {
            file: "export.toml".into(),
            text,
        },
    );
    let s2 = settle(send(s2, Msg::ScrubTo(20_000_000)));
    let m = s2.model.borrow();
    assert_eq!(m.run.variant, "fixed");
    assert_eq!(m.run.engine.user_actions().len(), 1);
    assert_eq!(m.cursor(), cursor);
    assert_eq!(m.run.engine.hash().0, hash);
    // The imported session's permalink carries the whole file.
    assert!(matches!(m.session().scenario, ScenarioRef::Custom(_)));
}

#[test]
fn trace_export_is_one_json_object_per_line_up_to_the_cursor() {
    let s = settle(send(store(), Msg::ScrubTo(1_500_000)));
    let m = s.model.borrow();
    let text = m.export_trace();
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty());
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["step"].as_u64().unwrap() < m.cursor());
    }
    assert!(lines.iter().any(|l| l.contains("\"kind\":\"send\"")));
}

#[test]
fn seek_is_cancelled_by_pause() {
    let s = send(store(), Msg::SetSpeed(1.0));
    let s = send(s, Msg::JumpToEnd);
    // The first chunk ran immediately, within one frame's budget.
    assert!(matches!(s.model.borrow().seek, Some(Seek::Time(_)) | None));
    let s = send(s, Msg::Pause);
    assert!(!s.model.borrow().busy());
}

#[test]
fn selection_feeds_the_sequence_diagram_set() {
    let s = send(store(), Msg::SelectNode(Some(2)));
    let s = send(s, Msg::ToggleSeqNode(0));
    let m = s.model.borrow();
    assert_eq!(m.selected, Some(2));
    assert!(!m.seq_nodes.contains(&0));
    assert!(m.seq_nodes.contains(&2));
    drop(m);
    let s = send(s, Msg::SelectNode(Some(99)));
    assert_eq!(
        s.model.borrow().selected,
        None,
        "out-of-range ids are ignored"
    );
}

#[test]
fn loading_another_scenario_resets_selections_into_range() {
    let s = send(store(), Msg::LoadBuiltin("cassandra-21636-restart".into()));
    let n_big = s.model.borrow().n();
    let last = n_big as u32 - 1;
    let s = send(s, Msg::SelectNode(Some(last)));
    let s = send(s, Msg::SelectLink(Some((last, last - 1))));
    let s = send(s, Msg::LoadBuiltin(PACKET_LOSS.into()));
    let m = s.model.borrow();
    let n = m.n() as u32;
    assert!(m.selected.is_some_and(|x| x < n));
    assert!(m.seq_nodes.iter().all(|x| *x < n));
    assert_eq!(m.selected_link, None);
}

#[test]
fn every_builtin_scenario_loads_and_steps() {
    let names: Vec<String> = store()
        .model
        .borrow()
        .catalog
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert!(names.len() >= 2);
    for name in names {
        let s = send(store(), Msg::LoadBuiltin(name.clone()));
        let s = send(s, Msg::Next(NavKind::Delivery));
        let m = s.model.borrow();
        assert!(m.banner.is_none(), "{name}: {:?}", m.banner);
        assert_eq!(m.run.scenario.name(), name);
    }
}

#[test]
fn a_permalink_cursor_past_the_end_stops_at_the_end() {
    let mut sess = store().model.borrow().session();
    sess.scenario = ScenarioRef::Builtin("gossip-digest-exchange".into());
    sess.variant = "notes".into();
    sess.cursor = 1_000_000_000;
    let s = settle(send(store(), Msg::OpenPermalink(sess.encode())));
    let m = s.model.borrow();
    assert!(m.banner.is_none(), "{:?}", m.banner);
    assert!(m.now() <= m.end());
    assert!(m.cursor() < 1_000);
}

#[test]
fn sequence_nodes_can_follow_the_selected_nodes_recent_partners() {
    let s = settle(send(
        store(),
        Msg::LoadBuiltin("cassandra-21636-restart".into()),
    ));
    let s = settle(send(s, Msg::ScrubTo(20_000_000)));
    let s = send(s, Msg::SelectNode(Some(5)));
    let s = send(s, Msg::SeqRecentPartners);
    let m = s.model.borrow();
    assert_eq!(m.seq_nodes[0], 5);
    assert!(m.seq_nodes.len() >= 2, "{:?}", m.seq_nodes);
    let d = clusterscope_web::model::seq::diagram(
        m.run.engine.trace(),
        m.run.engine.msg_kinds(),
        m.cursor(),
        m.now(),
        &m.seq_nodes,
        18,
        40,
        60_000,
    );
    assert!(!d.arrows.is_empty());
}

#[test]
fn sequence_diagram_keeps_the_newest_state_changes_within_its_limit() {
    // After n3's restart (at 30 s) it marks every peer UP and its peers see its new generation:
    // more state changes than the limit.
    let s = settle(send(
        store(),
        Msg::LoadBuiltin("cassandra-21636-restart".into()),
    ));
    let s = settle(send(s, Msg::ScrubTo(60_000_000)));
    let m = s.model.borrow();
    let diagram = |max_events| {
        clusterscope_web::model::seq::diagram(
            m.run.engine.trace(),
            m.run.engine.msg_kinds(),
            m.cursor(),
            m.now(),
            &m.seq_nodes,
            1_000,
            max_events,
            1_000_000,
        )
    };
    let all = diagram(usize::MAX);
    assert!(all.events.len() > 10, "{} state changes", all.events.len());
    let capped = diagram(10);
    assert_eq!(capped.events.len(), 10);
    assert!(capped.truncated);
    // The newest ten, in time order.
    assert_eq!(capped.events[..], all.events[all.events.len() - 10..]);
}

// ---- issue 13: nothing lost ----

/// A link that decodes but records an impossible action (starting a running node) is refused
/// before it replaces anything: the session, and so the autosave keyed on `session_rev`, stay.
#[test]
fn permalink_with_an_impossible_action_keeps_the_current_session() {
    use clusterscope_core::engine::action::{Dur, RecordedAction};
    let s = settle(send(open("fixed"), Msg::ScrubTo(5_000_000)));
    let before = s.model.borrow().session();
    let rev = s.model.borrow().session_rev;
    let mut bad = before.clone();
    bad.variant = "buggy".into();
    bad.actions = vec![RecordedAction {
        step: 40,
        at: Dur(1_000_000),
        action: Action::Start { node: "A".into() },
    }];
    let s = send(s, Msg::OpenPermalink(bad.encode()));
    let m = s.model.borrow();
    let b = m.banner.as_ref().expect("an error banner");
    assert_eq!(b.kind, BannerKind::Error);
    assert!(
        b.text.contains("actions[0]")
            && b.text.contains("cannot start A")
            && b.text.contains("unchanged"),
        "{}",
        b.text
    );
    assert_eq!(m.session(), before);
    assert_eq!(m.session_rev, rev);
}

/// Non-UTF-8 files get the CLI's error (one rule), and the session stays.
#[test]
fn non_utf8_import_is_refused_like_the_cli() {
    let s = open("fixed");
    let before = s.model.borrow().session();
    let s = send(
        s,
        Msg::ImportFile {
            file: "latin1.toml".into(),
            bytes: b"name = \"x\"\ntitle = \"caf\xe9\"\n".to_vec(),
        },
    );
    let m = s.model.borrow();
    let b = m.banner.as_ref().expect("an error banner");
    assert!(
        b.text.contains("not UTF-8") && b.text.contains("line 2, column 13"),
        "{}",
        b.text
    );
    assert_eq!(m.session(), before);
}

/// A chosen file over the size limit is refused by its size, before it is read, with the CLI's
/// message; the session stays.
#[test]
fn an_oversized_import_is_refused_before_reading() {
    let s = open("fixed");
    let before = s.model.borrow().session();
    let max = s.model.borrow().limits.max_scenario_bytes;
    let s = send(
        s,
        Msg::ImportTooLarge {
            file: "huge.toml".into(),
            size: 3 << 30,
        },
    );
    let m = s.model.borrow();
    let b = m.banner.as_ref().expect("an error banner");
    assert!(
        b.text.contains("huge.toml")
            && b.text.contains(&format!("the limit is {max} bytes"))
            && b.text.contains("unchanged"),
        "{}",
        b.text
    );
    assert_eq!(m.session(), before);
}

/// A run that outgrows the memory budget stops with a banner naming what grew; the tab stays
/// alive (not busy, and the replay still moves).
#[test]
fn a_run_over_the_memory_budget_stops_with_a_banner() {
    let s = store();
    s.model.borrow_mut().limits.max_memory_bytes = 32 << 20;
    let text = "name = \"backlog\"\ntitle = \"A stage that never drains\"\nprotocol = \"gossip\"\n\
                duration = \"1h\"\n\n[cluster]\ngenerate = { count = 40 }\n\n[params]\n\
                stage_msg_cost = \"10s\"\n\n[[variants]]\nname = \"only\"\n";
    let s = send(
        s,
        Msg::ImportScenario {
            file: "backlog.toml".into(),
            text: text.into(),
        },
    );
    let s = settle(send(s, Msg::JumpToEnd));
    {
        let m = s.model.borrow();
        let b = m.banner.as_ref().expect("an error banner");
        assert_eq!(b.kind, BannerKind::Error);
        assert!(
            b.text.contains("memory") && b.text.contains("queued tasks"),
            "{}",
            b.text
        );
        assert!(!m.busy());
    }
    let c = s.model.borrow().cursor();
    let s = send(s, Msg::StepBack);
    assert_eq!(s.model.borrow().cursor(), c - 1);
}

/// Errors quoting a huge input are cut in the banner.
#[test]
fn banner_text_is_capped() {
    let s = send(store(), Msg::ShowError("x".repeat(1_000_000)));
    let m = s.model.borrow();
    assert!(m.banner.as_ref().unwrap().text.chars().count() < 700);
}

/// Issue 18, fork from a message: at the end of the buggy packet-loss replay, "deliver" the lost
/// ECHO_REQ from B to A: the run is replayed from the step that sent it with the message
/// delivered over the cut link, the fork is a recorded action at that step, and A receives it.
#[test]
fn fork_delivers_a_lost_message_from_where_it_was_sent() {
    use clusterscope_core::engine::action::{Action, MsgFate};
    use clusterscope_core::engine::trace::{DropReason, RecKind};
    let s = settle(send(open("buggy"), Msg::JumpToEnd));
    let (msg, step) = {
        let m = s.model.borrow();
        let t = m.run.engine.trace();
        t.recs
            .iter()
            .find_map(|r| match r.kind {
                RecKind::Drop {
                    msg,
                    label: "ECHO_REQ",
                    reason: DropReason::LinkDown,
                    ..
                } => Some((msg, r.step)),
                _ => None,
            })
            .expect("a lost ECHO_REQ")
    };
    let s = settle(send(
        s,
        Msg::Fork {
            msg,
            fate: MsgFate::Deliver,
        },
    ));
    let s = settle(send(s, Msg::JumpToEnd));
    let m = s.model.borrow();
    let acts = m.run.engine.user_actions();
    assert_eq!(acts.len(), 1, "{acts:?}");
    assert_eq!(acts[0].step, step);
    assert_eq!(
        acts[0].action,
        Action::Message {
            msg,
            fate: MsgFate::Deliver
        }
    );
    let delivered = m
        .run
        .engine
        .trace()
        .recs
        .iter()
        .any(|r| matches!(r.kind, RecKind::Deliver { msg: x, .. } if x == msg));
    assert!(delivered, "the forked message arrives");
}

/// Issue 14 (teacher): "next message of a chosen kind" stops at the first step that sends (or
/// loses) an ECHO_REQ, and again at the next one.
#[test]
fn next_message_of_a_kind_stops_at_each_echo() {
    use clusterscope_core::engine::trace::RecKind;
    let is_echo = |r: &clusterscope_core::engine::trace::Rec| {
        matches!(
            r.kind,
            RecKind::Send {
                label: "ECHO_REQ",
                ..
            } | RecKind::Drop {
                label: "ECHO_REQ",
                ..
            }
        )
    };
    // Where the echoes are, from a plain run.
    let full = settle(send(open("buggy"), Msg::JumpToEnd));
    let steps: Vec<u64> = {
        let m = full.model.borrow();
        let mut v: Vec<u64> = m
            .run
            .engine
            .trace()
            .recs
            .iter()
            .filter(|r| is_echo(r))
            .map(|r| r.step)
            .collect();
        v.dedup();
        v
    };
    assert!(steps.len() >= 2, "{steps:?}");
    let s = open("buggy");
    let s = settle(send(s, Msg::Next(NavKind::Message("ECHO_REQ"))));
    assert_eq!(
        s.model.borrow().cursor(),
        steps[0] + 1,
        "after the first echo's step"
    );
    let s = settle(send(s, Msg::Next(NavKind::Message("ECHO_REQ"))));
    assert_eq!(s.model.borrow().cursor(), steps[1] + 1, "after the second");
}

/// The memoised matrix summary (`Model::matrix_summary`) is always the state's own: across
/// jumps back and forth, a variant switch that keeps the time (another run at the same step
/// count), and a user action at the cursor.
#[test]
fn the_memoised_matrix_summary_follows_the_state() {
    let check = |s: &Store, what: &str| {
        let m = s.model.borrow();
        for limit in [0, 4, 40] {
            let memo = m.matrix_summary(limit);
            let fresh = m.run.engine.matrix_summary(limit);
            assert_eq!(memo.notable, fresh.notable, "{what}, limit {limit}");
            assert_eq!(memo.text, fresh.text, "{what}, limit {limit}");
            // Asked again: the same answer (from the memo).
            assert!(Rc::ptr_eq(&memo, &m.matrix_summary(limit)), "{what}");
        }
    };
    let s = open("buggy");
    check(&s, "start");
    let s = settle(send(s, Msg::ScrubTo(600_000_000)));
    check(&s, "buggy at 10 min");
    let down_buggy = s.model.borrow().matrix_summary(0).notable.len();
    assert!(down_buggy > 0, "A and B DOWN in buggy");
    let s = settle(send(s, Msg::ScrubTo(20_000_000)));
    check(&s, "back at 20 s");
    let s = settle(send(s, Msg::ScrubTo(600_000_000)));
    check(&s, "at 10 min again");
    let s = settle(send(s, Msg::SetVariant("fixed".into())));
    assert_eq!(s.model.borrow().now(), 600_000_000);
    check(&s, "fixed at 10 min");
    assert_eq!(
        s.model.borrow().matrix_summary(0).notable.len(),
        0,
        "nobody DOWN in fixed"
    );
    let s = settle(send(s, Msg::UserAction(Action::Kill { node: "C".into() })));
    check(&s, "C killed");
}

/// Issue 41: a link opens at the time shared (7.318 s in Figure 8, between two events), not at
/// its step's time, and carries the bookmarks.
#[test]
fn permalink_restores_the_exact_time_and_the_bookmarks() {
    const T: u64 = 7_318_000;
    let s = settle(send(store(), Msg::LoadBuiltin("raft-figure-8".into())));
    let s = settle(send(s, Msg::ScrubTo(T)));
    let s = send(
        s,
        Msg::AddBookmark {
            name: " W1 index 4 ".into(),
            note: "here W1 gets index 4".into(),
        },
    );
    let (session, step) = {
        let m = s.model.borrow();
        assert_eq!(m.now(), T);
        assert_eq!(m.bookmarks.len(), 1);
        assert_eq!(m.bookmarks[0].name, "W1 index 4");
        assert_eq!(m.bookmarks[0].at_us, T);
        (m.session(), m.cursor())
    };
    assert_eq!(session.at_us, Some(T));
    let other = settle(send(store(), Msg::OpenPermalink(session.encode())));
    {
        let m = other.model.borrow();
        assert_eq!(m.now(), T, "the time shared");
        assert_eq!(m.cursor(), step);
        assert_eq!(m.bookmarks, session.bookmarks);
        assert_eq!(m.session(), session);
    }
    // Without the time (links made before it), the step's own time: earlier.
    let old = clusterscope_core::session::Session {
        at_us: None,
        ..session
    };
    let s2 = settle(send(store(), Msg::OpenPermalink(old.encode())));
    assert!(s2.model.borrow().now() < T);
    // A bookmark jumps and is removed.
    let s = settle(send(other, Msg::JumpToStart));
    let s = settle(send(s, Msg::GoToBookmark(0)));
    assert_eq!(s.model.borrow().now(), T);
    let s = send(s, Msg::RemoveBookmark(0));
    assert!(s.model.borrow().bookmarks.is_empty());
}

/// Issue 41: "No more captions after the cursor." goes once the cursor moves back.
#[test]
fn a_nothing_more_notice_goes_when_the_cursor_moves() {
    let s = settle(send(open("fixed"), Msg::JumpToEnd));
    let s = send(s, Msg::NextCaption);
    assert!(s
        .model
        .borrow()
        .banner
        .as_ref()
        .is_some_and(|b| b.text.contains("No more captions")));
    let s = settle(send(s, Msg::PrevCaption));
    assert!(
        s.model.borrow().banner.is_none(),
        "{:?}",
        s.model.borrow().banner
    );
}

/// Going back from the end of a run whose last event is before its end (Figure 8: the last at
/// 10.008 s of 12 s) moves the cursor back: the state held at the end is a checkpoint whose
/// clock ran on to 12 s.
#[test]
fn previous_caption_from_the_end_after_the_last_event_moves_back() {
    let s = settle(send(store(), Msg::LoadBuiltin("raft-figure-8".into())));
    let s = settle(send(s, Msg::JumpToEnd));
    assert_eq!(s.model.borrow().now(), 12_000_000);
    let s = send(s, Msg::NextCaption);
    let s = settle(send(s, Msg::PrevCaption));
    let m = s.model.borrow();
    assert_eq!(m.now(), 10_010_000, "the last caption's time");
    assert!(m.banner.is_none(), "{:?}", m.banner);
}
