//! Each model's moments against what its views observe, step by step: a moment is at the step
//! where the observed state changed, and every such change has its moment.

use super::Moment;
use crate::engine::NodeId;
use crate::model::{QValue, Query};
use crate::runner::{Run, RunOptions};
use crate::scenario::builtin;
use std::collections::BTreeSet;

/// Observed changes or moments: (step, kind, node, value).
type Seen = BTreeSet<(u64, u8, NodeId, String)>;

fn run(name: &str, variant: &str) -> Run {
    Run::new(
        builtin::get(name).unwrap(),
        variant,
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap()
}

fn view(r: &Run, view: &str, node: Option<NodeId>) -> String {
    let q = Query {
        view,
        node,
        peer: None,
        contains: None,
        from: 0,
        key: None,
    };
    match r.engine.query(&q) {
        Some(Ok(QValue::Num(n))) => n.to_string(),
        Some(Ok(QValue::Text(t))) => t,
        other => panic!("{view}: {other:?}"),
    }
}

/// Steps the run to its end; after each step `observe` names the changes it sees (kind, node,
/// value) against the state before; returns them with their step, and the run's moments.
fn observed(
    r: &mut Run,
    mut observe: impl FnMut(&Run) -> Vec<(u8, NodeId, String)>,
) -> (Seen, Vec<Moment>) {
    let mut before = observe(r);
    let mut seen = BTreeSet::new();
    let end = r.scenario.duration();
    while r.engine.now() <= end && r.engine.step().unwrap() {
        let after = observe(r);
        let step = r.engine.steps() - 1;
        for a in &after {
            if !before.contains(a) {
                seen.insert((step, a.0, a.1, a.2.clone()));
            }
        }
        before = after;
    }
    let mut found = Vec::new();
    r.engine.moments(0, &mut found);
    (seen, found)
}

fn as_set(found: &[Moment], kinds: &[u8]) -> Seen {
    found
        .iter()
        .filter(|m| kinds.contains(&m.kind))
        .map(|m| (m.step, m.kind, m.node, m.value.to_string()))
        .collect()
}

/// Raft: a leader moment at each step where a node became leader (with its term), a new-term
/// moment where the highest term grew, and the leader's commits at the steps its commitIndex grew.
#[test]
fn raft_moments_are_where_the_state_changed() {
    for (name, variant) in [
        ("raft-leader-election", ""),
        ("raft-leader-crash", ""),
        ("raft-figure-8", ""),
    ] {
        let sc = builtin::get(name).unwrap();
        let variant = if variant.is_empty() {
            Run::default_variant(&sc)
        } else {
            variant.to_string()
        };
        let mut r = run(name, &variant);
        let n = r.scenario.topo.len();
        let (seen, found) = observed(&mut r, |r| {
            let mut v = Vec::new();
            let mut max_term = 0u64;
            for i in 0..n {
                let role = view(r, "role", Some(i));
                if role == "down" {
                    continue;
                }
                let term: u64 = view(r, "term", Some(i)).parse().unwrap();
                max_term = max_term.max(term);
                if role == "leader" {
                    v.push((0, i, term.to_string()));
                    v.push((2, i, view(r, "commit_index", Some(i))));
                }
            }
            v.push((1, 0, max_term.to_string()));
            v
        });
        // New terms: the observed change's node is a placeholder (the highest term is the
        // cluster's); a moment's node is the first candidate of the term.
        let terms: BTreeSet<(u64, String)> = seen
            .iter()
            .filter(|s| s.1 == 1)
            .map(|s| (s.0, s.3.clone()))
            .collect();
        let term_moments: BTreeSet<(u64, String)> = found
            .iter()
            .filter(|m| m.kind == 1)
            .map(|m| (m.step, m.value.to_string()))
            .collect();
        assert_eq!(term_moments, terms, "{name}: new-term moments");
        assert!(!terms.is_empty(), "{name}: a term began");
        let leaders: BTreeSet<_> = seen.iter().filter(|s| s.1 == 0).cloned().collect();
        assert!(!leaders.is_empty(), "{name}: a leader was elected");
        assert_eq!(as_set(&found, &[0]), leaders, "{name}: leader moments");
        // A commit is observed on the leader at its step; a leader elected at a step with a
        // commitIndex it already had is a change of leader, not a commit.
        let commits: BTreeSet<_> = seen
            .iter()
            .filter(|s| s.1 == 2 && !leaders.iter().any(|l| l.0 == s.0 && l.2 == s.2))
            .cloned()
            .collect();
        assert_eq!(as_set(&found, &[2]), commits, "{name}: commit moments");
        for m in &found {
            assert!(!m.text.is_empty());
        }
    }
}

/// The election in raft-leader-election: its leader moment names the winner and its term.
#[test]
fn raft_leader_election_marks_its_election() {
    let sc = builtin::get("raft-leader-election").unwrap();
    let mut r = run("raft-leader-election", &Run::default_variant(&sc));
    r.run(None).unwrap();
    let mut found = Vec::new();
    r.engine.moments(0, &mut found);
    let won: Vec<&Moment> = found.iter().filter(|m| m.kind == 0).collect();
    assert_eq!(won.len(), 1, "{found:?}");
    let leader = view(&r, "leader", Some(0));
    let term = view(&r, "term", Some(0));
    assert_eq!(
        won[0].text,
        format!("{leader} elected leader of term {term}")
    );
    // Moments from a later record on give the same list as one scan.
    let mut parts = Vec::new();
    let half = r.engine.trace().recs.len() / 2;
    let all = r.engine.trace().recs.len();
    r.engine.moments(0, &mut parts);
    parts.retain(|m| (m.step as usize) < r.engine.trace().recs.at(half).step as usize);
    r.engine.moments(half, &mut parts);
    assert_eq!(parts.len(), found.len(), "{all} records");
}

/// Ozone: the pipeline-closed moment at the step SCM's `pipeline` view turned CLOSED, unhealthy
/// moments where a datanode's `healthy` turned false.
#[test]
fn ozone_moments_are_where_the_state_changed() {
    // The file as main has it names `node = "scm"` on SCM's views, which the runner's load-time
    // check refuses (SCM is outside the Raft group; those views take no node): left out here.
    let file = include_str!("../../../scenarios/hdds-17673-close-race.toml");
    let mut text = String::new();
    let mut prev = "";
    for l in file.lines() {
        let scm_view = ["scm_", "pipeline"]
            .iter()
            .any(|v| prev.starts_with(&format!("view = \"{v}")));
        if !(l == "node = \"scm\"" && scm_view) {
            text.push_str(l);
            text.push('\n');
        }
        prev = l;
    }
    let sc = crate::scenario::Scenario::parse("hdds.toml", &text, &Default::default()).unwrap();
    let mut r = Run::new(
        sc,
        "buggy",
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    let n = r.scenario.topo.len();
    let group: Vec<NodeId> = (0..n)
        .filter(|&i| r.engine.check_view_node("healthy", i).is_ok())
        .collect();
    let (seen, found) = observed(&mut r, |r| {
        let mut v = vec![(3, 0, view(r, "pipeline", None))];
        for &i in &group {
            if view(r, "role", Some(i)) != "down" {
                v.push((4, i, view(r, "healthy", Some(i))));
            }
        }
        v
    });
    let closed: BTreeSet<u64> = seen
        .iter()
        .filter(|s| s.1 == 3 && s.3 == "CLOSED")
        .map(|s| s.0)
        .collect();
    let closed_m: BTreeSet<u64> = found
        .iter()
        .filter(|m| m.kind == 3)
        .map(|m| m.step)
        .collect();
    assert_eq!(closed_m, closed, "pipeline closed");
    assert_eq!(closed.len(), 1);
    let unhealthy: BTreeSet<(u64, NodeId)> = seen
        .iter()
        .filter(|s| s.1 == 4 && s.3 == "false")
        .map(|s| (s.0, s.2))
        .collect();
    let unhealthy_m: BTreeSet<(u64, NodeId)> = found
        .iter()
        .filter(|m| m.kind == 4)
        .map(|m| (m.step, m.node))
        .collect();
    assert_eq!(unhealthy_m, unhealthy, "unhealthy");
    assert!(!unhealthy.is_empty());
    assert!(
        found.iter().any(|m| m.kind == 0),
        "Raft's leader moment too"
    );
}

/// Mutation tracking: read completed / timed out / Missing mutation at the steps a node's
/// counts of reads so finished grew.
#[test]
fn mutation_moments_are_where_reads_finished() {
    for variant in ["buggy", "fixed"] {
        let sc = builtin::get("mutation-tracking-basics").unwrap();
        if !sc.variant_names().contains(&variant) {
            continue;
        }
        let mut r = run("mutation-tracking-basics", variant);
        let n = r.scenario.topo.len();
        let (seen, found) = observed(&mut r, |r| {
            let mut v = Vec::new();
            for i in 0..n {
                if r.engine.check_view_node("reads_completed", i).is_err() {
                    continue;
                }
                for (k, view_name) in [
                    (0, "reads_completed"),
                    (1, "reads_timeout"),
                    (2, "reads_missing"),
                ] {
                    v.push((k, i, view(r, view_name, Some(i))));
                }
            }
            v
        });
        let changes: BTreeSet<(u64, u8, NodeId)> = seen.iter().map(|s| (s.0, s.1, s.2)).collect();
        let ms: BTreeSet<(u64, u8, NodeId)> =
            found.iter().map(|m| (m.step, m.kind, m.node)).collect();
        assert_eq!(ms, changes, "{variant}");
        assert!(!ms.is_empty(), "{variant}: a read finished");
    }
}

/// "What just happened" at a vote: the line names the voter, the candidate and the term, as the
/// voter's `voted_for` and `term` views have them right after that step.
#[test]
fn raft_what_happened_names_a_granted_vote() {
    let sc = builtin::get("raft-leader-election").unwrap();
    let mut r = run("raft-leader-election", &Run::default_variant(&sc));
    assert_eq!(
        r.engine.what_happened(),
        None,
        "nothing happened before step 1"
    );
    let mut votes = 0;
    while r.engine.step().unwrap() && votes < 3 {
        let Some(line) = r.engine.what_happened() else {
            continue;
        };
        let Some((voter, rest)) = line.split_once(" granted its vote to ") else {
            continue;
        };
        let (cand, term) = rest.split_once(" in term ").unwrap();
        let v = r.scenario.topo.id(voter).unwrap();
        assert_eq!(view(&r, "voted_for", Some(v)), cand, "{line}");
        assert_eq!(view(&r, "term", Some(v)), term, "{line}");
        votes += 1;
    }
    assert!(votes > 0, "a vote was granted");
}

/// Raft's one-key actions: `r` is a client request the leader commits; `s` times out two
/// distinct followers; `K` kills the leader, and a new leader of a higher term follows.
#[test]
fn raft_quick_keys_act_on_the_leader() {
    use crate::engine::action::Action;
    use crate::time::US_PER_S;
    let sc = builtin::get("raft-leader-election").unwrap();
    let mut r = run("raft-leader-election", &Run::default_variant(&sc));
    r.engine.run_until(6 * US_PER_S, u64::MAX).unwrap();
    let leader = view(&r, "leader", Some(0));
    let l = r.scenario.topo.id(&leader).unwrap();
    let commit0: f64 = view(&r, "commit_index", Some(l)).parse().unwrap();
    let a = r.engine.quick_actions('r', None).unwrap();
    assert!(
        matches!(&a[..], [Action::Command { node, command }] if *node == leader && command.starts_with("client-put x ")),
        "{a:?}"
    );
    for x in a {
        r.engine.apply_user_action(x).unwrap();
    }
    r.engine.run_until(7 * US_PER_S, u64::MAX).unwrap();
    let commit1: f64 = view(&r, "commit_index", Some(l)).parse().unwrap();
    assert!(commit1 > commit0, "{commit0} -> {commit1}");
    let s = r.engine.quick_actions('s', None).unwrap();
    let nodes: BTreeSet<String> = s
        .iter()
        .map(|a| match a {
            Action::Command { node, command } if command == "timeout" => node.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(nodes.len(), 2);
    assert!(!nodes.contains(&leader));
    let term0: u64 = view(&r, "term", Some(l)).parse().unwrap();
    for x in r.engine.quick_actions('K', None).unwrap() {
        r.engine.apply_user_action(x).unwrap();
    }
    assert_eq!(view(&r, "role", Some(l)), "down");
    r.engine.run_until(14 * US_PER_S, u64::MAX).unwrap();
    let other = (0..r.scenario.topo.len()).find(|&i| i != l).unwrap();
    let new = view(&r, "leader", Some(other));
    assert!(!new.is_empty() && new != leader, "a new leader: {new}");
    let term1: u64 = view(&r, "term", Some(other)).parse().unwrap();
    assert!(term1 > term0);
    assert!(r.engine.quick_actions('q', None).is_err());
}

/// raft-slow-apply: the delayed apply thread is on its node's badge while the delay holds, and
/// gone once released.
#[test]
fn raft_badge_marks_a_delayed_thread() {
    use crate::time::US_PER_S;
    let sc = builtin::get("raft-slow-apply").unwrap();
    let mut r = run("raft-slow-apply", &Run::default_variant(&sc));
    let n1 = r.scenario.topo.id("n1").unwrap();
    r.engine.run_until(2 * US_PER_S, u64::MAX).unwrap();
    assert!(!r.engine.node_badge(n1).contains('⏱'));
    r.engine.run_until(5 * US_PER_S, u64::MAX).unwrap();
    let b = r.engine.node_badge(n1);
    assert!(b.ends_with(" · ⏱ StateMachineUpdater +200ms"), "{b}");
    r.engine.run_until(9 * US_PER_S, u64::MAX).unwrap();
    assert!(!r.engine.node_badge(n1).contains('⏱'));
}

/// "What just happened" says something after every step that left a record, over a whole run of
/// each Raft lecture scenario: Figure 8's line was blank after four of its twelve captions (the
/// step before was S1's log flush, or an appender's send), and a blank band sat over the
/// topology. A flush-only step names the task.
#[test]
fn what_happened_says_something_after_every_recorded_step() {
    let mut flush = 0;
    for name in ["raft-figure-8", "raft-leader-election", "raft-slow-apply"] {
        let sc = builtin::get(name).unwrap();
        for variant in sc.raw.variants.iter().map(|v| v.name.clone()) {
            let mut r = run(name, &variant);
            let end = r.scenario.duration();
            while r.engine.now() <= end && r.engine.step().unwrap() {
                let s = r.engine.steps();
                let t = r.engine.trace();
                let recs = t.rec_index_at_step(s) - t.rec_index_at_step(s - 1);
                let line = r.engine.what_happened();
                assert_eq!(
                    line.is_some(),
                    recs > 0,
                    "{name}/{variant} step {s}: {line:?}"
                );
                if line
                    .as_deref()
                    .is_some_and(|l| l.ends_with(" finished its flush task"))
                {
                    flush += 1;
                }
            }
        }
    }
    assert!(flush > 0, "some step was only a flush");
}
