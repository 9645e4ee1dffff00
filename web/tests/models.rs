//! The pure parts of the models' own panels, from hand-made `views_json` in the shapes the models
//! document: Raft's log strips (`models::raft`) and mutation tracking's reads, listeners and
//! deliveries (`models::mutation`). Missing fields never panic.

use clusterscope_web::models::mutation::{self, outcome_class, read_view, sparkline};
use clusterscope_web::models::raft::{
    self, axis, cluster, election_timer, ruler, ruler_marks, strip, term_colour, window, MarkKind,
    MAX_STRIPS, MIN_WINDOW, TAIL, WINDOW,
};
use serde_json::{json, Value};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn entry(index: u64, term: u64, kind: &str, what: &str) -> Value {
    json!({"index": index, "term": term, "kind": kind, "what": what})
}

fn raft_node(role: &str, term: u64, log: &[(u64, &str)], commit: u64, applied: u64) -> Value {
    let log: Vec<Value> = log
        .iter()
        .enumerate()
        .map(|(k, (t, kind))| {
            entry(
                k as u64 + 1,
                *t,
                kind,
                if *kind == "client" { "put x=1" } else { "" },
            )
        })
        .collect();
    let flush = log.len() as u64;
    json!({
        "status": "running", "role": role, "term": term, "voted_for": "n1", "leader": "n1",
        "election_deadline_us": if role == "leader" { Value::Null } else { json!(450_000) },
        "votes": [], "commit_index": commit, "last_applied": applied, "flush_index": flush,
        "log": log, "followers": [], "executors": [], "client": {"acked": 0}, "state_machine": {"kv": {}},
    })
}

fn three() -> Value {
    let mut leader = raft_node(
        "leader",
        2,
        &[(1, "startup"), (2, "startup"), (2, "client")],
        3,
        2,
    );
    leader["followers"] = json!([
        {"peer": "n2", "next_index": 4, "match_index": 3, "outstanding": 0, "last_response_us": 10},
        {"peer": "n3", "next_index": 2, "match_index": 1, "outstanding": 1, "last_response_us": 5},
    ]);
    json!({
        "n1": leader,
        "n2": raft_node("follower", 2, &[(1, "startup"), (2, "startup"), (2, "client")], 2, 2),
        "n3": raft_node("follower", 2, &[(1, "startup")], 1, 1),
    })
}

fn names(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("n{i}")).collect()
}

#[test]
fn term_colours_are_stable_and_distinct_for_neighbours() {
    assert_eq!(term_colour(3), term_colour(3));
    assert_eq!(term_colour(1), term_colour(1 + raft::PALETTE));
    for t in 0..20 {
        assert_ne!(term_colour(t), term_colour(t + 1));
    }
}

#[test]
fn the_window_keeps_the_newest_entries_and_a_free_slot() {
    // Short logs: at least MIN_WINDOW slots (wide cells), then one more slot per entry.
    assert_eq!(window(0), (0, MIN_WINDOW - 1));
    assert_eq!(window(5), (0, MIN_WINDOW - 1));
    assert_eq!(window(MIN_WINDOW - 1), (0, MIN_WINDOW));
    assert_eq!(window(WINDOW - 2), (0, WINDOW - 1));
    assert_eq!(window(WINDOW - 1), (1, WINDOW));
    assert_eq!(window(100), (101 - WINDOW + 1, 101));
    let (lo, hi) = window(100);
    assert_eq!(hi - lo + 1, WINDOW);
}

#[test]
fn the_ruler_labels_fifths_and_ends_without_crowding() {
    let r = ruler(0, 19);
    assert_eq!(r, vec![0, 5, 10, 15, 19]);
    let r = ruler(82, 101);
    assert!(r.contains(&85) && r.contains(&100));
    assert!(!r.contains(&101), "101 would sit on top of 100: {r:?}");
    assert!(r.contains(&82));
}

#[test]
fn a_strip_has_entries_by_term_and_its_markers() {
    let v = three();
    let s = strip("n1", &v["n1"], None, None, window(3));
    assert_eq!(s.role, "leader");
    assert!(s.is_leader);
    assert_eq!(s.last_index, 3);
    assert_eq!(
        s.entries
            .iter()
            .map(|e| (e.index, e.term))
            .collect::<Vec<_>>(),
        vec![(1, 1), (2, 2), (3, 2)]
    );
    assert_eq!(s.entries[0].colour, term_colour(1));
    assert_eq!(s.entries[2].kind, "client");
    assert_eq!((s.commit, s.applied, s.flush), (Some(3), Some(2), Some(3)));
    let mk: Vec<(MarkKind, u64, Option<u64>)> = s
        .markers
        .iter()
        .map(|m| (m.kind, m.index, m.slot))
        .collect();
    assert_eq!(
        mk,
        vec![
            (MarkKind::Commit, 3, Some(3)),
            (MarkKind::Applied, 2, Some(2)),
            (MarkKind::Flush, 3, Some(3)),
        ]
    );
    // Nothing is highlighted without a snapshot.
    assert!(s.entries.iter().all(|e| !e.changed));
    assert!(s.markers.iter().all(|m| !m.changed));
}

#[test]
fn entries_and_markers_the_move_changed_are_flagged() {
    let before = raft_node("leader", 2, &[(1, "startup"), (2, "startup")], 1, 1);
    let now = raft_node(
        "leader",
        2,
        &[(1, "startup"), (2, "startup"), (2, "client")],
        3,
        1,
    );
    let s = strip("n1", &now, Some(&before), None, window(3));
    assert_eq!(
        s.entries
            .iter()
            .filter(|e| e.changed)
            .map(|e| e.index)
            .collect::<Vec<_>>(),
        vec![3]
    );
    let moved: Vec<MarkKind> = s
        .markers
        .iter()
        .filter(|m| m.changed)
        .map(|m| m.kind)
        .collect();
    assert_eq!(moved, vec![MarkKind::Commit, MarkKind::Flush]);
    // A rewritten entry (same index, another term) counts as changed.
    let overwritten = raft_node("follower", 3, &[(1, "startup"), (3, "startup")], 1, 1);
    let s = strip("n2", &overwritten, Some(&before), None, window(2));
    assert!(s.entries[1].changed && !s.entries[0].changed);
}

#[test]
fn the_cluster_puts_the_selected_node_first_and_draws_the_leaders_progress() {
    let v = three();
    let c = cluster(&v, None, &names(3), "n2");
    assert_eq!(
        c.strips.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        vec!["n2", "n1", "n3"]
    );
    assert!(c.strips[0].selected && !c.strips[1].selected);
    assert_eq!(c.leader.as_deref(), Some("n1"));
    assert_eq!((c.lo, c.hi), window(3));
    let n3 = &c.strips[2];
    assert_eq!((n3.next_index, n3.match_index), (Some(2), Some(1)));
    assert!(n3
        .markers
        .iter()
        .any(|m| m.kind == MarkKind::Next && m.index == 2));
    assert!(n3
        .markers
        .iter()
        .any(|m| m.kind == MarkKind::Match && m.index == 1));
    // The leader has no progress markers of its own.
    let n1 = &c.strips[1];
    assert!(n1.markers.iter().all(|m| !m.kind.above()));
}

#[test]
fn the_highest_terms_leader_wins_and_a_stale_leader_is_drawn_as_itself() {
    let mut v = three();
    v["n3"] = raft_node("leader", 1, &[(1, "startup")], 1, 1);
    let c = cluster(&v, None, &names(3), "n3");
    assert_eq!(c.leader.as_deref(), Some("n1"));
    assert_eq!(c.strips[0].role, "leader");
}

#[test]
fn large_clusters_show_the_selected_node_and_the_leader() {
    let mut m = serde_json::Map::new();
    for i in 1..=MAX_STRIPS + 3 {
        let role = if i == 7 { "leader" } else { "follower" };
        m.insert(format!("n{i}"), raft_node(role, 4, &[(4, "startup")], 1, 1));
    }
    let v = Value::Object(m);
    let c = cluster(&v, None, &names(MAX_STRIPS + 3), "n2");
    assert_eq!(
        c.strips.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        vec!["n2", "n7"]
    );
    assert_eq!(c.not_shown, MAX_STRIPS + 1);
}

#[test]
fn the_array_shape_of_views_works_too() {
    let v = three();
    let arr: Vec<Value> = ["n1", "n2", "n3"]
        .iter()
        .map(|n| {
            let mut x = v[*n].clone();
            x["name"] = json!(n);
            x
        })
        .collect();
    let c = cluster(&Value::Array(arr), None, &names(3), "n1");
    assert_eq!(c.strips.len(), 3);
    assert_eq!(c.strips[0].commit, Some(3));
}

#[test]
fn long_logs_scroll_and_markers_left_of_the_window_are_clamped() {
    let terms: Vec<(u64, &str)> = (0..60).map(|i| (1 + i / 25, "client")).collect();
    let n = raft_node("follower", 3, &terms, 10, 5);
    let win = window(60);
    let s = strip("n2", &n, None, None, win);
    assert_eq!(s.entries.len() as u64, 60 - win.0 + 1);
    assert_eq!(s.hidden_before, win.0 - 1);
    let commit = s
        .markers
        .iter()
        .find(|m| m.kind == MarkKind::Commit)
        .unwrap();
    assert_eq!(commit.slot, None, "commit 10 is left of the window {win:?}");
}

/// raft-stale-read at 10.5 s: n1 still leads term 1 in its minority with 60 entries, 15 of them
/// committed before the partition, n2 follows it with 58; the majority's leader n3 of term 2
/// has 15 + its startup entry + x = 2, all committed on n3..n5.
fn stranded() -> Value {
    let old: Vec<(u64, &str)> = (0..60)
        .map(|i| (1, if i == 0 { "startup" } else { "client" }))
        .collect();
    let mut new: Vec<(u64, &str)> = old[..15].to_vec();
    new.extend([(2, "startup"), (2, "client")]);
    let mut n1 = raft_node("leader", 1, &old, 15, 15);
    n1["followers"] = json!([{"peer": "n2", "next_index": 59, "match_index": 58}]);
    let mut n3 = raft_node("leader", 2, &new, 17, 17);
    n3["followers"] = json!([{"peer": "n4", "next_index": 18, "match_index": 17}]);
    json!({
        "n1": n1,
        "n2": raft_node("follower", 1, &old[..58], 15, 15),
        "n3": n3,
        "n4": raft_node("follower", 2, &new, 17, 17),
        "n5": raft_node("follower", 2, &new, 16, 16),
    })
}

#[test]
fn a_stranded_leaders_long_log_does_not_hide_the_committed_entries() {
    let v = stranded();
    let c = cluster(&v, None, &names(5), "n1");
    assert_eq!(c.leader.as_deref(), Some("n3"));
    assert!(c.axis.columns() <= WINDOW, "{:?}", c.axis);
    let by = |n: &str| c.strips.iter().find(|s| s.name == n).unwrap();
    for s in &c.strips {
        let drawn: Vec<u64> = s.entries.iter().map(|e| e.index).collect();
        // Every node's commitIndex entry is drawn, on its own column.
        let ci = s.commit.unwrap();
        assert!(
            drawn.contains(&ci),
            "{}: commit {ci} not in {drawn:?}",
            s.name
        );
        let mk = s
            .markers
            .iter()
            .find(|m| m.kind == MarkKind::Commit)
            .unwrap();
        assert_eq!(mk.slot, c.axis.slot(ci));
        assert!(mk.slot.is_some());
        // Drawn or counted: never silently missing.
        assert_eq!(
            drawn.len() as u64 + s.hidden_before + s.hidden_gap + s.hidden_after,
            s.last_index,
            "{}",
            s.name
        );
    }
    // The majority's leader: every entry from the window's start to its last, x = 2 included.
    let n3 = by("n3");
    assert_eq!(n3.entries.last().map(|e| (e.index, e.term)), Some((17, 2)));
    assert_eq!((n3.hidden_gap, n3.hidden_after), (0, 0));
    // The stranded leader: its newest TAIL entries after the gap, the rest counted in it.
    let n1 = by("n1");
    let tail: Vec<u64> = n1
        .entries
        .iter()
        .map(|e| e.index)
        .filter(|&i| i > c.hi)
        .collect();
    assert_eq!(tail, (61 - TAIL..=60).collect::<Vec<_>>());
    assert_eq!(n1.hidden_gap, 60 - TAIL - c.hi);
    assert_eq!(c.axis.tail, Some((61 - TAIL, 60)));
    // n2's 58 entries: those in the gap counted there, its last on the tail's first column.
    let n2 = by("n2");
    assert_eq!(n2.hidden_gap, 60 - TAIL - c.hi);
    assert_eq!(n2.entries.last().map(|e| e.index), Some(58));
    assert_eq!(c.axis.slot(58), Some(c.axis.gap().unwrap().0 + 1));
    // Columns are the same index on every strip: index 16 (term 1 on n1, term 2 on n3).
    let at = |s: &raft::Strip, i: u64| s.entries.iter().find(|e| e.index == i).map(|e| e.term);
    assert_eq!((at(n1, 16), at(n3, 16)), (Some(1), Some(2)));
    // The ruler labels the gap and the tail.
    let marks = ruler_marks(&c.axis);
    let (gap, _) = c.axis.gap().unwrap();
    assert!(marks.contains(&(gap, "…".to_string())), "{marks:?}");
    assert!(
        marks.contains(&(c.axis.slot(60).unwrap(), "60".to_string())),
        "{marks:?}"
    );
}

#[test]
fn the_axis_keeps_its_columns_and_widens_for_a_short_overhang() {
    // No overhang: the plain window.
    assert_eq!(axis(3, 3), window(3).into());
    // A few entries past the leader's: the window takes them.
    let a = axis(30, 33);
    assert_eq!((a.hi, a.tail), (33, None));
    assert!(a.columns() <= WINDOW);
    // Far past: window, gap, tail; never more than WINDOW columns; slots strictly increase.
    for (rel, max) in [(0, 50), (5, 9), (17, 60), (100, 400)] {
        let a = axis(rel, max);
        assert!(a.columns() <= WINDOW.max(MIN_WINDOW), "{rel} {max}: {a:?}");
        assert_eq!(a.end(), max);
        assert!(a.slot(rel).is_some(), "{rel} {max}: {a:?}");
        let slots: Vec<u64> = (a.lo..=max).filter_map(|i| a.slot(i)).collect();
        assert!(slots.windows(2).all(|w| w[0] <= w[1]), "{slots:?}");
        assert_eq!(slots.last(), Some(&(a.columns() - 1)));
    }
}

#[test]
fn missing_fields_do_not_panic() {
    let s = strip(
        "x",
        &json!({}),
        Some(&json!(null)),
        Some(&json!({})),
        window(0),
    );
    assert_eq!(s.role, "—");
    assert!(s.entries.is_empty() && s.markers.is_empty());
    assert_eq!(s.last_index, 0);
    let s = strip(
        "x",
        &json!({"log": [{"term": 1}, {}]}),
        None,
        None,
        window(2),
    );
    assert_eq!(
        s.entries.iter().map(|e| e.index).collect::<Vec<_>>(),
        vec![1, 2]
    );
    let c = cluster(&json!(null), None, &names(3), "n1");
    assert!(c.strips.is_empty());
    let c = cluster(&json!({"n1": 5}), None, &names(3), "n1");
    assert_eq!(c.strips.len(), 1);
    assert_eq!(raft::text(&json!({"a": null}), "a"), "—");
    assert_eq!(raft::text(&json!({}), "a"), "—");
}

#[test]
fn the_election_timer_counts_down_against_the_timeout() {
    assert_eq!(election_timer(None, 10, 300_000), None);
    let (left, f) = election_timer(Some(250_000), 100_000, 300_000).unwrap();
    assert_eq!(left, 150_000);
    assert!((f - 0.5).abs() < 1e-9);
    assert_eq!(election_timer(Some(5), 10, 300_000), Some((0, 0.0)));
    // A deadline farther than the scale fills the bar, no more.
    assert_eq!(election_timer(Some(900_000), 0, 300_000).unwrap().1, 1.0);
}

// ---- mutation tracking ----

fn read_json() -> Value {
    json!({
        "outcome": "pending", "id": "node1/r1", "data_node": "node1", "summary_nodes": ["node2"],
        "role": "data", "mutations": 1, "summaries": 0, "sync_acks": 0,
        "requested": ["node2:0", "node3:0"],
        "summaries_received": [
            {"from": "node1", "local": true, "logs": []},
            {"from": "node2", "local": false, "logs": [
                {"log": "node2", "reconciled": "{}", "unreconciled": "{0}"},
                {"log": "node3", "reconciled": "{}", "unreconciled": "{0}"}]}
        ],
        "history": [[300000, 0, 1, 1], [305000, -1, 1, 1], [502000, 1, 0, 0]],
        "augment": [], "rows": [], "created_at": 300000, "expires_at": 10300000, "finished_at": null
    })
}

fn mt_views() -> Value {
    json!([
        {
            "name": "node1", "replica": true, "next_offset": 0,
            "logs": [{"log": "node3", "witnessed": {"node1": "{0}", "node2": "{}", "node3": "{0}"},
                      "reconciled": "{}", "unreconciled": "{0}", "pending": "{}", "snapshot_reconciled": "{}"}],
            "writes_unreconciled": [],
            "journal": [{"id": "node2:0", "row": "W1"}, {"id": "node3:0", "row": "W2"}],
            "rows": ["W1", "W2"],
            "listeners": [{"id": "node3:0", "callbacks": ["node1/r1"], "created_at": 500000, "orphaned": true}],
            "listeners_expired": 0,
            "reads": [read_json()],
            "client_reads": [],
            "deliveries": [
                {"at": 305000, "id": "node2:0", "via": "pull", "new": true, "fired": 1},
                {"at": 400000, "id": "node3:0", "via": "MUTATION_REQ", "new": true, "fired": 0},
                {"at": 503000, "id": "node3:0", "via": "pull", "new": false, "fired": 0}
            ],
            "duplicates": 1, "holding": [], "held": [], "parked": 0, "parked_stage": null, "park_at": null
        },
        {"name": "node2", "reads": [{"id": "node2/r1", "role": "summary", "outcome": "completed", "created_at": 1}]},
        {"name": "node3"}
    ])
}

#[test]
fn a_read_has_its_counters_requested_set_summaries_and_history() {
    let r = read_view("node1", &read_json());
    assert_eq!(r.id, "node1/r1");
    assert_eq!(
        (r.mutations, r.summaries, r.sync_acks),
        (Some(1), Some(0), Some(0))
    );
    assert_eq!(r.requested, vec!["node2:0", "node3:0"]);
    assert_eq!(r.summaries_received.len(), 2);
    assert!(r.summaries_received[0].local);
    assert_eq!(
        r.summaries_received[1].logs[1],
        ("node3".to_string(), "{}".to_string(), "{0}".to_string())
    );
    assert_eq!(r.history[1], (305000, -1, 1, 1));
    assert_eq!(r.rows, "0");
    assert_eq!(r.finished_at, None);
    assert_eq!(r.missing_mutation(), None);
    assert_eq!(outcome_class(&r.outcome), "pending");
}

#[test]
fn a_missing_mutation_is_named_from_the_outcome_or_the_augment_trace() {
    let mut j = read_json();
    j["outcome"] = json!("missing-mutation");
    j["missing"] = json!("node3:0");
    assert_eq!(
        read_view("n", &j).missing_mutation().as_deref(),
        Some("node3:0")
    );
    j.as_object_mut().unwrap().remove("missing");
    j["augment"] = json!([{"id": "node2:0", "hit": true}, {"id": "node3:1", "hit": false}]);
    let r = read_view("n", &j);
    assert_eq!(
        r.augment,
        vec![("node2:0".into(), true), ("node3:1".into(), false)]
    );
    assert_eq!(r.missing_mutation().as_deref(), Some("node3:1"));
    assert_eq!(outcome_class("missing-mutation"), "bad");
    assert_eq!(outcome_class("timeout"), "warn");
}

#[test]
fn reads_of_the_selected_node_come_first() {
    let v = mt_views();
    let (rs, more) = mutation::reads(&v, "node2");
    assert_eq!(more, 0);
    assert_eq!(
        rs.iter()
            .map(|r| (r.node.as_str(), r.id.as_str()))
            .collect::<Vec<_>>(),
        vec![("node2", "node2/r1"), ("node1", "node1/r1")]
    );
    let (rs, _) = mutation::reads(&v, "node1");
    assert_eq!(rs[0].id, "node1/r1");
    // Summary-role reads with missing counters show "—" (None), not 0.
    assert_eq!(rs[1].mutations, None);
}

#[test]
fn the_sparkline_steps_through_the_history_on_one_scale() {
    let r = read_view("node1", &read_json());
    let (lines, zero) = sparkline(&r.history, 100.0, 30.0);
    // Three samples: the first point, then a step (two points) per later sample.
    for l in &lines {
        assert_eq!(l.split(' ').count(), 5, "{l}");
    }
    // Scale from -1 to 1: zero is in the middle.
    assert!((zero - 15.0).abs() < 1e-9, "{zero}");
    let first: Vec<&str> = lines[0].split(' ').collect();
    assert_eq!(first[0], "1.0,15.0");
    assert_eq!(first[4], "99.0,1.0"); // mutations end at 1: the top
                                      // Same instant: evenly spaced. Empty: nothing.
    let (same, _) = sparkline(&[(5, 1, 0, 0), (5, 0, 0, 0)], 10.0, 10.0);
    assert!(same[0].starts_with("1.0,") && same[0].contains("9.0,"));
    let (none, z) = sparkline(&[], 10.0, 10.0);
    assert!(none.iter().all(String::is_empty));
    assert_eq!(z, 10.0);
    let (one, _) = sparkline(&[(5, 1, 0, 0)], 10.0, 10.0);
    assert_eq!(one[0].split(' ').count(), 2);
}

#[test]
fn listeners_logs_journal_and_deliveries() {
    let v = mt_views();
    let n1 = &v[0];
    let ls = mutation::listeners(n1);
    assert_eq!(ls.len(), 1);
    assert!(ls[0].orphaned);
    assert_eq!(ls[0].callbacks, vec!["node1/r1"]);
    let logs = mutation::logs(n1);
    assert_eq!(logs[0].witnessed.len(), 3);
    assert_eq!(logs[0].witnessed[2], ("node3".into(), "{0}".into()));
    assert_eq!(logs[0].unreconciled, "{0}");
    assert_eq!(mutation::journal(n1)[1], ("node3:0".into(), "W2".into()));
    let (d, left) = mutation::deliveries(n1);
    assert_eq!(left, 0);
    // Newest first: the duplicate that fired nothing.
    assert_eq!(
        (d[0].id.as_str(), d[0].new, d[0].fired),
        ("node3:0", false, 0)
    );
    assert_eq!((d[2].new, d[2].fired), (true, 1));
}

#[test]
fn mutation_views_with_missing_fields_do_not_panic() {
    let empty = json!({});
    assert!(mutation::listeners(&empty).is_empty());
    assert!(mutation::logs(&empty).is_empty());
    assert!(mutation::journal(&empty).is_empty());
    assert_eq!(mutation::deliveries(&empty), (vec![], 0));
    let r = read_view("n", &json!({"history": [[1], "x", [2, 3, 4, 5]]}));
    assert_eq!(r.history, vec![(1, 0, 0, 0), (2, 3, 4, 5)]);
    assert_eq!(r.outcome, "—");
    assert_eq!(r.rows, "—");
    let (rs, _) = mutation::reads(&json!(null), "n");
    assert!(rs.is_empty());
    // The object shape keyed by node name works too.
    let (rs, _) = mutation::reads(&json!({"nodes": {"a": {"reads": [{"id": "a/r1"}]}}}), "a");
    assert_eq!(rs[0].id, "a/r1");
}

// ---- against the real models' views ----

fn run_to(scenario: &str, variant: &str, t: u64) -> clusterscope_core::runner::Run {
    use clusterscope_core::runner::{Run, RunOptions};
    let sc = clusterscope_core::scenario::builtin::get(scenario).expect("built in");
    let mut run = Run::new(
        sc,
        variant,
        None,
        &Default::default(),
        &RunOptions::default(),
    )
    .expect("runs");
    run.engine.run_until(t, u64::MAX).expect("no error");
    run
}

#[test]
fn the_read_panel_of_21181_bug_1_from_the_real_model() {
    let run = run_to("cassandra-21181-duplicate-notify", "buggy", 3_000_000);
    let views = run.engine.views_json();
    let (rs, _) = mutation::reads(&views, "node1");
    let r = rs
        .iter()
        .find(|r| r.id == "node1/r1")
        .expect("node1's read r1");
    assert_eq!((r.node.as_str(), r.role.as_str()), ("node1", "data"));
    assert_eq!(r.outcome, "pending");
    assert_eq!(
        (r.mutations, r.summaries, r.sync_acks),
        (Some(1), Some(0), Some(0))
    );
    assert_eq!(r.requested.len(), 2);
    assert!(r.history.iter().any(|h| h.1 == -1), "{:?}", r.history);
    let node1 = clusterscope_web::models::generic::node_entry(&views, "node1").unwrap();
    let (d, _) = mutation::deliveries(node1);
    assert!(
        d.iter()
            .any(|d| d.id == "node3:0" && !d.new && d.fired == 0),
        "{d:?}"
    );
    assert!(!mutation::logs(node1).is_empty());

    let run = run_to("cassandra-21181-duplicate-notify", "buggy", 12_000_000);
    let (rs, _) = mutation::reads(&run.engine.views_json(), "node1");
    let r = rs.iter().find(|r| r.id == "node1/r1").unwrap();
    assert_eq!((r.outcome.as_str(), r.mutations), ("timeout", Some(1)));

    let run = run_to("cassandra-21181-duplicate-notify", "fixed", 12_000_000);
    let (rs, _) = mutation::reads(&run.engine.views_json(), "node1");
    let r = rs.iter().find(|r| r.id == "node1/r1").unwrap();
    assert_eq!(r.outcome, "completed");
    assert_eq!(
        (r.mutations, r.summaries, r.sync_acks),
        (Some(0), Some(0), Some(0))
    );
    assert_eq!(r.missing_mutation(), None);
}

#[test]
fn command_buttons_never_take_the_panels_own_ids() {
    use clusterscope_web::ui::panels::command_button_id;
    assert_eq!(command_button_id("disablegossip"), "act-disablegossip");
    assert_eq!(command_button_id("client-put x 1"), "act-client-put");
    // Mutation tracking's command beside the thread's Release button (`#act-release`).
    assert_eq!(command_button_id("release MUTATION_REQ"), "act-cmd-release");
    assert_eq!(command_button_id("stall"), "act-cmd-stall");
}
