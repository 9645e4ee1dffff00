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
