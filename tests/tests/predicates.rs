//! The scenario language's `one_of` and `not_equals` (issue 42) on a run: they hold and fail
//! as `equals` does, and say why; a value the view never answers is refused at load.

/// `one_of` and `not_equals` (issue 42) hold and fail on a run as `equals` does, and say why.
#[test]
fn one_of_and_not_equals_are_checked_on_the_run() {
    use clusterscope_core::limits::Limits;
    use clusterscope_core::runner::{Run, RunOptions};
    use clusterscope_core::scenario::Scenario;
    let text = r#"name = "predicates"
title = "one_of and not_equals"
protocol = "raft"
duration = "20s"

[cluster]
nodes = [{ name = "n1" }, { name = "n2" }, { name = "n3" }]

[params]
preset = "teaching"

[[variants]]
name = "teaching"

[[expect]]
name = "n1 is leader or follower"
view = "role"
node = "n1"
at = "end"
one_of = ["leader", "follower"]

[[expect]]
name = "n1 is not down"
view = "role"
node = "n1"
at = "end"
not_equals = "down"

[[expect]]
name = "one leader, counted as a number in a list"
view = "leaders"
at = "end"
one_of = [1]

[[expect]]
name = "n1 is a candidate (false)"
view = "role"
node = "n1"
at = "end"
one_of = ["candidate", "pre-candidate"]

[[expect]]
name = "n1 is not a follower nor a leader (false)"
view = "role"
node = "n1"
at = "end"
not_equals = "ROLE"
"#;
    // The last one names a value the view never answers: refused at load.
    let err = Scenario::parse("p.toml", text, &Limits::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`not_equals = \"ROLE\"` can never fail"),
        "{err}"
    );
    let text = text.replace("not_equals = \"ROLE\"", "not_equals = \"follower\"");
    let sc = Scenario::parse("p.toml", &text, &Limits::default()).unwrap();
    let mut run = Run::new(
        sc,
        "teaching",
        Some(1),
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    let report = run.run(None).unwrap();
    let by = |n: &str| report.expectations.iter().find(|r| r.name == n).unwrap();
    assert!(
        by("n1 is leader or follower").passed,
        "{}",
        by("n1 is leader or follower").detail
    );
    assert!(by("n1 is not down").passed);
    assert!(by("one leader, counted as a number in a list").passed);
    let r = by("n1 is a candidate (false)");
    assert!(!r.passed);
    assert!(
        r.detail
            .contains("expected one of \"candidate\", \"pre-candidate\""),
        "{}",
        r.detail
    );
    // n1 is the leader or a follower: not_equals "follower" holds exactly when it leads.
    let role = match run.query("role", Some(0), None, None, 0) {
        Ok(clusterscope_core::runner::QValue::Text(t)) => t,
        other => panic!("{other:?}"),
    };
    let r = by("n1 is not a follower nor a leader (false)");
    assert_eq!(r.passed, role != "follower", "{role}: {}", r.detail);
}

fn run_text(text: &str, seed: u64) -> clusterscope_core::runner::Report {
    use clusterscope_core::limits::Limits;
    use clusterscope_core::runner::{Run, RunOptions};
    use clusterscope_core::scenario::Scenario;
    let sc = Scenario::parse("p.toml", text, &Limits::default()).unwrap();
    let mut run = Run::new(
        sc,
        "teaching",
        Some(seed),
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    run.run(None).unwrap()
}

const FIVE: &str = r#"name = "sets"
title = "node sets and the leader"
protocol = "raft"
duration = "20s"

[cluster]
nodes = [{ name = "n1" }, { name = "n2" }, { name = "n3" }, { name = "n4" }, { name = "n5" }]

[params]
preset = "teaching"

[[variants]]
name = "teaching"
"#;

/// Node sets with `nodes = "any" | "all" | "none"`, and `observer = "leader"` (issue 42): each
/// holds and fails as its words say, and a failure names the nodes.
#[test]
fn node_sets_and_the_leader_are_checked_on_the_run() {
    let text = format!(
        "{FIVE}{}",
        r#"
[[expect]]
name = "one of n1..n5 leads"
view = "role"
observer = "n1..n5"
nodes = "any"
at = "end"
equals = "leader"

[[expect]]
name = "all lead (false)"
view = "role"
observer = ["n1", "n2", "n3", "n4", "n5"]
nodes = "all"
at = "end"
equals = "leader"

[[expect]]
name = "none is a candidate"
view = "role"
observer = "n1, n2, n3..n5"
nodes = "none"
at = "end"
one_of = ["candidate", "pre-candidate", "down"]

[[expect]]
name = "none is a follower (false)"
view = "role"
observer = "n1..n5"
nodes = "none"
at = "end"
equals = "follower"

[[expect]]
name = "the leader says it leads"
view = "role"
observer = "leader"
during = ["10s", "end"]
equals = "leader"

[[expect]]
name = "the leader is a follower (false)"
view = "role"
observer = "leader"
at = "end"
equals = "follower"

[[expect]]
name = "every node knows the leader is n-something"
view = "leader"
observer = "n1..n5"
nodes = "all"
at = "end"
not_equals = ""

[[expect]]
name = "a leader at 0s (false: none yet)"
view = "role"
observer = "leader"
at = "0s"
equals = "leader"
"#
    );
    let report = run_text(&text, 1);
    let by = |n: &str| report.expectations.iter().find(|r| r.name == n).unwrap();
    for ok in [
        "one of n1..n5 leads",
        "none is a candidate",
        "the leader says it leads",
        "every node knows the leader is n-something",
    ] {
        assert!(by(ok).passed, "{ok}: {}", by(ok).detail);
    }
    let r = by("one of n1..n5 leads");
    assert!(r.detail.contains("held on 1 of 5"), "{}", r.detail);
    let r = by("all lead (false)");
    assert!(!r.passed);
    assert!(
        r.detail.contains("4 of 5 nodes do not hold"),
        "{}",
        r.detail
    );
    assert!(
        r.detail.contains("role is follower, expected"),
        "{}",
        r.detail
    );
    let r = by("none is a follower (false)");
    assert!(!r.passed);
    assert!(
        r.detail.contains("4 of 5 nodes hold, expected none"),
        "{}",
        r.detail
    );
    let r = by("the leader is a follower (false)");
    assert!(!r.passed);
    // Names the node that was the leader.
    assert!(
        r.detail
            .contains("role is leader, expected \"follower\" (n"),
        "{}",
        r.detail
    );
    let r = by("a leader at 0s (false: none yet)");
    assert!(!r.passed);
    assert!(r.detail.contains("there is no leader"), "{}", r.detail);
}

/// A set without a quantifier, a bad quantifier, a bad range, "leader" in a model without one:
/// refused at load with the fix.
#[test]
fn node_sets_are_checked_at_load() {
    use clusterscope_core::limits::Limits;
    use clusterscope_core::scenario::Scenario;
    let err = |exp: &str| {
        let at = if exp.contains("during") {
            ""
        } else {
            "at = \"end\"\n"
        };
        let text = format!("{FIVE}\n[[expect]]\nname = \"x\"\n{at}{exp}\n");
        Scenario::parse("p.toml", &text, &Limits::default())
            .unwrap_err()
            .to_string()
    };
    let e = err("view = \"role\"\nobserver = \"n1..n3\"\nequals = \"leader\"");
    assert!(e.contains("say how many must hold"), "{e}");
    let e = err("view = \"role\"\nobserver = \"n1..n3\"\nnodes = \"most\"\nequals = \"leader\"");
    assert!(e.contains("`nodes = \"most\"`"), "{e}");
    let e = err("view = \"role\"\nobserver = \"n3..n1\"\nnodes = \"any\"\nequals = \"leader\"");
    assert!(e.contains("the low one first"), "{e}");
    let e = err("view = \"role\"\nobserver = \"n1..n9\"\nnodes = \"any\"\nequals = \"leader\"");
    assert!(e.contains("unknown node \"n9\""), "{e}");
    let e = err("view = \"role\"\nobserver = \"n1\"\nnodes = \"any\"\nequals = \"leader\"");
    assert!(e.contains("is for a set of nodes"), "{e}");
    let e =
        err("view = \"term\"\nobserver = \"leader\"\nduring = [\"1s\", \"end\"]\nincreases = true");
    assert!(e.contains("name one node"), "{e}");
}

/// Message expectations (issue 42): `sent`, `delivered` and `dropped` count the trace's
/// message records by kind, sender, receiver and body text, over a window or so far.
#[test]
fn message_views_count_the_trace() {
    let text = format!(
        "{FIVE}{}",
        r#"
[[expect]]
name = "the leader sends heartbeats to every follower"
view = "sent"
key = "HEARTBEAT"
observer = "leader"
peer = "n1..n5"
nodes = "any"
during = ["10s", "end"]
at_least = 1

[[expect]]
name = "heartbeats delivered so far"
view = "delivered"
key = "HEARTBEAT"
at = "end"
at_least = 10

[[expect]]
name = "nothing dropped on a clean network"
view = "dropped"
at = "end"
equals = 0

[[expect]]
name = "a vote request of term 999 (false)"
view = "sent"
key = "REQUEST_VOTE"
contains = "term=999"
at = "end"
at_least = 1

[[expect]]
name = "no heartbeat in the last 5 s (false)"
view = "sent"
key = "HEARTBEAT"
during = ["15s", "end"]
equals = 0
"#
    );
    let report = run_text(&text, 1);
    let by = |n: &str| report.expectations.iter().find(|r| r.name == n).unwrap();
    for ok in [
        "the leader sends heartbeats to every follower",
        "heartbeats delivered so far",
        "nothing dropped on a clean network",
    ] {
        assert!(by(ok).passed, "{ok}: {}", by(ok).detail);
    }
    let r = by("a vote request of term 999 (false)");
    assert!(!r.passed);
    assert!(
        r.detail.contains("sent is 0, expected at least 1"),
        "{}",
        r.detail
    );
    let r = by("no heartbeat in the last 5 s (false)");
    assert!(!r.passed);
    assert!(r.detail.contains("sent is "), "{}", r.detail);
    // A kind the model never sends: refused before the run.
    use clusterscope_core::limits::Limits;
    use clusterscope_core::runner::{Run, RunOptions};
    use clusterscope_core::scenario::Scenario;
    let bad = text.replace("key = \"REQUEST_VOTE\"", "key = \"VOTE\"");
    let sc = Scenario::parse("p.toml", &bad, &Limits::default()).unwrap();
    let err = Run::new(
        sc,
        "teaching",
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .err()
    .unwrap();
    assert!(err.contains("sends no message of kind \"VOTE\""), "{err}");
    assert!(err.contains("REQUEST_VOTE"), "{err}");
}

/// Cross-node Raft views (issue 42): `logs_agree` and `log_entry`, with `lag`.
#[test]
fn cross_node_raft_views() {
    let text = format!(
        "{FIVE}{}",
        r#"
[[faults]]
at = "12s"
action = "command"
node = "n2"
command = "client-put x 7"

[[expect]]
name = "logs agree up to the commitIndex"
view = "logs_agree"
at = "end"
equals = "yes"

[[expect]]
name = "every node holds the put"
view = "log_entry"
observer = "n1..n5"
nodes = "all"
key = "2"
at = "end"
equals = "put x=7"

[[expect]]
name = "no node lags"
view = "lag"
observer = "n1..n5"
nodes = "all"
at = "end"
equals = 0

[[expect]]
name = "entry 1 is a put (false: the leader's startup entry)"
view = "log_entry"
observer = "leader"
key = "1"
at = "end"
equals = "put x=7"

[[expect]]
name = "entry 9 is empty"
view = "log_entry"
observer = "n1"
key = "9"
at = "end"
equals = ""
"#
    );
    let report = run_text(&text, 1);
    let by = |n: &str| report.expectations.iter().find(|r| r.name == n).unwrap();
    for ok in [
        "logs agree up to the commitIndex",
        "every node holds the put",
        "no node lags",
        "entry 9 is empty",
    ] {
        assert!(by(ok).passed, "{ok}: {}", by(ok).detail);
    }
    let r = by("entry 1 is a put (false: the leader's startup entry)");
    assert!(!r.passed);
    assert!(r.detail.contains("log_entry is startup"), "{}", r.detail);
    // n5 cut off before the put: it lacks a committed entry, the logs disagree, it lags.
    let cut = text.replacen(
        "[[faults]]",
        "[[faults]]\nat = \"11s\"\naction = \"partition\"\ngroups = [[\"n5\"], [\"n1\", \"n2\", \"n3\", \"n4\"]]\n\n[[faults]]",
        1,
    );
    let report = run_text(&cut, 1);
    let by = |n: &str| report.expectations.iter().find(|r| r.name == n).unwrap();
    let r = by("logs agree up to the commitIndex");
    assert!(!r.passed);
    assert!(r.detail.contains("logs_agree is no"), "{}", r.detail);
    let r = by("every node holds the put");
    assert!(
        r.detail.contains("1 of 5 nodes do not hold: n5:"),
        "{}",
        r.detail
    );
    let r = by("no node lags");
    assert!(r.detail.contains("n5: lag is 1"), "{}", r.detail);
}

/// `within` (issue 42): the check first holds within a time after `at`, checked after every
/// event; the time it took is the metric `time_until: <name>`.
#[test]
fn within_finds_the_first_time_a_check_holds() {
    let text = format!(
        "{FIVE}{}",
        r#"
[[faults]]
at = "10s"
action = "partition"
groups = [["n1", "n2"], ["n3", "n4", "n5"]]

[[expect]]
name = "a leader within 5 s of the start"
view = "leaders"
at = "0s"
within = "5s"
at_least = 1

[[expect]]
name = "a leader within 1 ms (false)"
view = "leaders"
at = "0s"
within = "1ms"
at_least = 1

[[expect]]
name = "one of n3..n5 leads within 5 s of the partition"
view = "role"
observer = "n3..n5"
nodes = "any"
at = "10s"
within = "5s"
equals = "leader"

[[expect]]
name = "a heartbeat within 3 s of 12 s"
view = "sent"
key = "HEARTBEAT"
at = "12s"
within = "3s"
at_least = 1
"#
    );
    let report = run_text(&text, 1);
    let by = |n: &str| report.expectations.iter().find(|r| r.name == n).unwrap();
    let r = by("a leader within 5 s of the start");
    assert!(r.passed, "{}", r.detail);
    assert!(r.detail.contains("leaders held "), "{}", r.detail);
    let took = report.metrics["time_until: a leader within 5 s of the start"];
    // The first election takes at least one election timeout, and less than the window.
    assert!(took > 0.1 && took < 5.0, "{took}");
    // The app draws the window and the moment it held from these.
    assert_eq!(r.within_us, Some(5_000_000));
    assert_eq!(r.window_us, [0, 5_000_000]);
    let met = r.met_at_us.expect("held, so it has a moment");
    assert_eq!(met as f64 / 1e6, took);
    // The same time from the leader's own record: its first leader_term is its term's start.
    let r = by("a leader within 1 ms (false)");
    assert!(!r.passed);
    assert_eq!((r.within_us, r.met_at_us), (Some(1_000), None));
    assert!(
        r.detail.contains("did not hold within 1ms of 0.000s"),
        "{}",
        r.detail
    );
    assert_eq!(
        report.metrics["time_until: a leader within 1 ms (false)"],
        0.001
    );
    let r = by("one of n3..n5 leads within 5 s of the partition");
    assert!(r.passed, "{}", r.detail);
    let took = report.metrics["time_until: one of n3..n5 leads within 5 s of the partition"];
    assert!((0.0..5.0).contains(&took), "{took}");
    let r = by("a heartbeat within 3 s of 12 s");
    assert!(r.passed, "{}", r.detail);
    // Counted from `at`: the first heartbeat after 12 s comes within a heartbeat interval
    // (teaching preset: no reply for timeout_min/2 = 750 ms, seen on a 375 ms tick).
    let took = report.metrics["time_until: a heartbeat within 3 s of 12 s"];
    assert!(took > 0.0 && took <= 1.125, "{took}");
}

/// `state_machines_agree` (issue 42, "state machines equal"): "yes" when every running server
/// applied the same entries, "behind" while one's applier is stalled behind the others.
#[test]
fn state_machines_agree_says_behind_while_an_applier_stalls() {
    let text = format!(
        "{FIVE}{}",
        r#"
[[faults]]
at = "11s"
action = "stall"
node = "n3"
executor = "StateMachineUpdater"

[[faults]]
at = "12s"
action = "command"
node = "n2"
command = "client-put x 7"

[[faults]]
at = "16s"
action = "release"
node = "n3"
executor = "StateMachineUpdater"

[[expect]]
name = "equal before the write"
view = "state_machines_agree"
at = "11500ms"
equals = "yes"

[[expect]]
name = "n3 behind while stalled"
view = "state_machines_agree"
at = "15s"
equals = "behind"

[[expect]]
name = "equal again after the release"
view = "state_machines_agree"
at = "end"
equals = "yes"

[[expect]]
name = "(false) equal while stalled"
view = "state_machines_agree"
at = "15s"
equals = "yes"
"#
    );
    for seed in 1..=5 {
        let report = run_text(&text, seed);
        let by = |n: &str| report.expectations.iter().find(|r| r.name == n).unwrap();
        for ok in [
            "equal before the write",
            "n3 behind while stalled",
            "equal again after the release",
        ] {
            assert!(by(ok).passed, "seed {seed}: {ok}: {}", by(ok).detail);
        }
        let r = by("(false) equal while stalled");
        assert!(!r.passed, "seed {seed}");
        assert_eq!(r.observed.as_deref(), Some("behind"), "{}", r.detail);
    }
}
