//! Unit tests of `sweep`: plans, grids, shards, parts and their checks, merges, summaries.

use super::*;

fn scenario() -> Scenario {
    crate::scenario::builtin::get("cassandra-21636-packet-loss").unwrap()
}

/// A cell's scenario replays that job exactly, also for a parameter the variant sets
/// itself (its value would otherwise win over `[params]`).
#[test]
fn a_cell_scenario_replays_its_job() {
    let s = crate::scenario::builtin::get("cassandra-15138-shutdown-race").unwrap();
    let keys: Vec<String> = parameters(&s, "cassandra-4.0")
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert!(keys.contains(&"client_rate".to_string()), "{keys:?}");
    let grid = vec![
        Axis::parse("messaging=3.x,4.0").unwrap(),
        Axis::parse("client_rate=10,400").unwrap(),
    ];
    let plan = Plan::new(
        &s,
        "cassandra-4.0",
        3,
        2,
        &toml::Table::new(),
        grid,
        Some(60_000_000),
    )
    .unwrap();
    let limits = Limits::default();
    for j in 0..plan.jobs() {
        let (cell, seed) = plan.job(j);
        let text = cell_scenario(&s, &plan, cell).unwrap();
        let c = Scenario::parse("cell.toml", &text, &limits).unwrap();
        let alone = Plan::new(
            &c,
            &plan.variant,
            seed,
            1,
            &toml::Table::new(),
            vec![],
            plan.until,
        )
        .unwrap();
        let mut want = run_job(&s, &plan, j, &limits);
        let got = run_job(&c, &alone, 0, &limits);
        want.job = 0;
        assert_eq!(got, want, "job {j}: {}", plan.cell_label(cell));
    }
    // messaging=3.x in the variant that sets 4.0: the variant's table carries the cell's value.
    let text = cell_scenario(&s, &plan, 0).unwrap();
    let c = Scenario::parse("cell.toml", &text, &limits).unwrap();
    let (_, v) = c.variant("cassandra-4.0").unwrap();
    assert_eq!(
        v.params.get("messaging").and_then(|v| v.as_str()),
        Some("3.x")
    );
}

#[test]
fn wilson_interval_known_values() {
    // 50/100: 95% Wilson interval [0.4038, 0.5962].
    let f = wilson(50, 100);
    assert!((f.ci95_low - 0.4038).abs() < 1e-3 && (f.ci95_high - 0.5962).abs() < 1e-3);
    let f = wilson(0, 10);
    assert_eq!(f.ci95_low, 0.0);
    assert!((f.ci95_high - 0.2775).abs() < 1e-3);
}

#[test]
fn axes_parse_like_set() {
    let a = Axis::parse("loss=0.01,0.05, 0.1").unwrap();
    assert_eq!(a.key, "loss");
    assert_eq!(
        a.values,
        vec![
            toml::Value::Float(0.01),
            toml::Value::Float(0.05),
            toml::Value::Float(0.1)
        ]
    );
    let a = Axis::parse("client_delay=5ms,\"10ms\"").unwrap();
    assert_eq!(
        a.values,
        vec![
            toml::Value::String("5ms".into()),
            toml::Value::String("10ms".into())
        ]
    );
    for (bad, want) in [
        ("loss", "expected key=v1,v2"),
        ("=1,2", "the key is empty"),
        ("x=1,,2", "an empty value"),
        ("x=1,2,1", "given twice"),
    ] {
        let e = Axis::parse(bad).unwrap_err();
        assert!(e.contains(want), "{bad}: {e}");
    }
}

/// The product of the axes, first axis slowest, each cell's values and overrides.
#[test]
fn grid_expands_to_the_product() {
    let s = scenario();
    let grid = vec![
        Axis::parse("a=1,2,3").unwrap(),
        Axis::parse("b=x,y").unwrap(),
    ];
    let mut set = toml::Table::new();
    set.insert("c".into(), toml::Value::Integer(7));
    let p = Plan::new(&s, "fixed", 10, 4, &set, grid, None).unwrap();
    assert_eq!(p.cells(), 6);
    assert_eq!(p.jobs(), 24);
    let labels: Vec<String> = (0..6).map(|c| p.cell_label(c)).collect();
    assert_eq!(
        labels,
        ["a=1 b=x", "a=1 b=y", "a=2 b=x", "a=2 b=y", "a=3 b=x", "a=3 b=y"]
    );
    assert_eq!(p.job(0), (0, 10));
    assert_eq!(p.job(5), (1, 11));
    assert_eq!(p.job(23), (5, 13));
    let o = p.overrides(3);
    assert_eq!(o["a"], toml::Value::Integer(2));
    assert_eq!(o["b"], toml::Value::String("y".into()));
    assert_eq!(o["c"], toml::Value::Integer(7));
    // No grid: one cell, no values.
    let p = Plan::new(&s, "fixed", 1, 3, &toml::Table::new(), vec![], None).unwrap();
    assert_eq!(
        (p.cells(), p.jobs(), p.cell_label(0)),
        (1, 3, String::new())
    );
}

#[test]
fn plans_refuse_what_cannot_run() {
    let s = scenario();
    let t = toml::Table::new();
    let ax = |s: &str| Axis::parse(s).unwrap();
    let e = |r: Result<Plan, String>| r.unwrap_err();
    assert!(e(Plan::new(&s, "nope", 1, 1, &t, vec![], None)).contains("nope"));
    assert!(e(Plan::new(&s, "fixed", 1, 0, &t, vec![], None)).contains("use 1 to"));
    assert!(e(Plan::new(&s, "fixed", u64::MAX, 2, &t, vec![], None)).contains("2^64-1"));
    assert!(e(Plan::new(
        &s,
        "fixed",
        1,
        1,
        &t,
        vec![ax("a=1"), ax("a=2")],
        None
    ))
    .contains("given twice"));
    let mut set = toml::Table::new();
    set.insert("a".into(), toml::Value::Integer(1));
    assert!(
        e(Plan::new(&s, "fixed", 1, 1, &set, vec![ax("a=1,2")], None)).contains("fixed or swept")
    );
    let big: Vec<Axis> = ["a", "b", "c"]
        .iter()
        .map(|k| {
            ax(&format!(
                "{k}={}",
                (0..10).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
            ))
        })
        .collect();
    assert!(e(Plan::new(&s, "fixed", 1, 1, &t, big, None)).contains("1000 cells"));
}

/// Shards partition the jobs: every job in exactly one shard, for any n.
#[test]
fn shards_partition_the_jobs() {
    let s = scenario();
    let p = Plan::new(
        &s,
        "fixed",
        1,
        7,
        &toml::Table::new(),
        vec![Axis::parse("a=1,2,3").unwrap()],
        None,
    )
    .unwrap();
    for n in 1..=25 {
        let mut seen = vec![0u32; p.jobs() as usize];
        for i in 0..n {
            for j in p.shard(i, n) {
                seen[j as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1), "n={n}: {seen:?}");
    }
}

fn outcome(job: u64, passed: bool) -> Outcome {
    Outcome {
        job,
        seed: 1 + job,
        passed,
        held: vec![passed, true],
        metrics: BTreeMap::from([("m".to_string(), job as f64)]),
        error: None,
        observed: if passed {
            Vec::new()
        } else {
            vec![Some(format!("v{}", job % 2)), None]
        },
    }
}

/// Merging shards in any order gives the unsharded partial; overlaps, foreign parts and
/// missing jobs are refused by name.
#[test]
fn merge_checks_what_it_combines() {
    let s = scenario();
    let p = Plan::new(&s, "fixed", 1, 10, &toml::Table::new(), vec![], None).unwrap();
    let names = vec!["x".to_string(), "y".to_string()];
    let all: Vec<Outcome> = (0..10).map(|j| outcome(j, j % 3 != 0)).collect();
    let whole = Partial::new(p.clone(), names.clone(), all.clone());
    let part = |i: u64| {
        let outs = p.shard(i, 3).map(|j| all[j as usize].clone()).collect();
        (
            format!("part-{i}.json"),
            Partial::new(p.clone(), names.clone(), outs),
        )
    };
    let merged = merge(vec![part(2), part(0), part(1)], true).unwrap();
    assert_eq!(merged, whole);
    assert_eq!(summarize(&merged), summarize(&whole));
    let s0 = summarize(&whole);
    assert_eq!(s0.cells[0].all_passed.count, 6);
    assert_eq!(s0.cells[0].failed_seeds, vec![1, 4, 7, 10]);
    assert_eq!(s0.cells[0].metrics["m"].max, 9.0);

    let e = merge(vec![part(0), part(1), part(0)], true).unwrap_err();
    assert!(
        e.contains("part-0.json") && e.contains("given twice"),
        "{e}"
    );
    let e = merge(vec![part(0), part(2)], true).unwrap_err();
    assert!(
        e.contains("3 of 10 runs are missing") && e.contains("job 1, seed 2"),
        "{e}"
    );
    assert!(merge(vec![part(0), part(2)], false).is_ok());
    let mut other = part(1);
    other.1.plan.variant = "buggy".into();
    let e = merge(vec![part(0), other, part(2)], true).unwrap_err();
    assert!(e.contains("variant fixed vs buggy"), "{e}");
}

/// A part is checked before anything trusts it (issue 39): a job outside the plan, a plan
/// that numbers no runs or wraps past 2^64, an empty grid axis, counts that do not match,
/// a job listed twice are refused naming the file and the field, instead of a panic later
/// (index out of bounds, division by zero) or a summary of the wrong runs.
#[test]
fn parts_are_checked_before_they_are_trusted() {
    let s = scenario();
    let p = Plan::new(
        &s,
        "fixed",
        1,
        5,
        &toml::Table::new(),
        vec![Axis::parse("a=1,2").unwrap()],
        None,
    )
    .unwrap();
    let names = vec!["x".to_string(), "y".to_string()];
    let all: Vec<Outcome> = (0..10)
        .map(|j| Outcome {
            seed: p.job(j).1,
            ..outcome(j, j % 3 != 0)
        })
        .collect();
    let whole = Partial::new(p.clone(), names.clone(), all.clone());
    let json = serde_json::to_value(&whole).unwrap();
    assert_eq!(
        Partial::from_json("whole.json", &json.to_string()).unwrap(),
        whole
    );
    let bad = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = json.clone();
        edit(&mut v);
        Partial::from_json("part-7.json", &v.to_string())
            .and_then(|part| merge(vec![("part-7.json".to_string(), part)], false))
            .map(|_| ())
            .unwrap_err()
    };
    for (edit, want) in [
        (
            &(|v: &mut serde_json::Value| v["outcomes"][1]["job"] = 99.into())
                as &dyn Fn(&mut serde_json::Value),
            &["part-7.json", "outcomes[1].job", "99", "0 to 9"][..],
        ),
        (
            &|v| v["plan"]["seeds"] = 0.into(),
            &["part-7.json", "plan.seeds", "1 to 1000000"],
        ),
        (
            &|v| v["plan"]["grid"][0]["values"] = serde_json::json!([]),
            &["part-7.json", "plan.grid[0].values", "no values"],
        ),
        (
            &|v| v["plan"]["first_seed"] = (u64::MAX - 2).into(),
            &["part-7.json", "plan.first_seed", "2^64"],
        ),
        (
            &|v| v["outcomes"][1]["held"] = serde_json::json!([]),
            &[
                "part-7.json",
                "outcomes[1].held",
                "0 entries",
                "2 expectations",
            ],
        ),
        (
            &|v| v["outcomes"][1]["held"] = serde_json::json!([true, false]),
            &["part-7.json", "outcomes[1].passed", "held[1]"],
        ),
        (
            &|v| v["outcomes"][2]["seed"] = 77.into(),
            &["part-7.json", "outcomes[2].seed", "77", "seed 3"],
        ),
        (
            &|v| v["outcomes"][3]["job"] = 2.into(),
            &["part-7.json", "outcomes[3].job", "job 2", "twice"],
        ),
        (
            &|v| {
                v["plan"]["set"] = serde_json::json!({"": "1"});
            },
            &["part-7.json", "plan.set"],
        ),
    ] {
        let e = bad(edit);
        for w in want {
            assert!(e.contains(w), "{want:?}: {e}");
        }
    }
    // A first part lists a job twice and the last lacks one: the counts match, the runs do
    // not.
    let part = |i: u64| {
        let outs: Vec<Outcome> = p.shard(i, 2).map(|j| all[j as usize].clone()).collect();
        (
            format!("part-{i}.json"),
            Partial::new(p.clone(), names.clone(), outs),
        )
    };
    let mut first = part(0);
    first.1.outcomes[1] = first.1.outcomes[0].clone();
    let e = merge(vec![first, part(1)], true).unwrap_err();
    assert!(
        e.contains("part-0.json") && e.contains("job 0") && e.contains("twice"),
        "{e}"
    );
}

/// A job's outcome depends on the plan and the job alone: the same job run twice, or in a
/// different order, gives the same outcome; cells really change the parameters.
#[test]
fn jobs_are_deterministic_and_cells_apply() {
    let s = scenario();
    let p = Plan::new(
        &s,
        "buggy",
        3,
        2,
        &toml::Table::new(),
        vec![Axis::parse("echo=buggy,fixed").unwrap()],
        Some(200_000_000),
    )
    .unwrap();
    let l = Limits::default();
    let a: Vec<Outcome> = (0..4).map(|j| run_job(&s, &p, j, &l)).collect();
    let b: Vec<Outcome> = (0..4).rev().map(|j| run_job(&s, &p, j, &l)).collect();
    assert_eq!(a, b.into_iter().rev().collect::<Vec<_>>());
    assert!(a.iter().all(|o| o.error.is_none()));
    // The cells really differ: echo=buggy leaves phantom-DOWN pairs, echo=fixed none.
    assert!(a[0].metrics["down_pairs"] > 0.0, "{a:?}");
    assert_eq!(a[2].metrics["down_pairs"], 0.0, "{a:?}");
    let bad = Plan::new(
        &s,
        "buggy",
        1,
        1,
        &toml::Table::new(),
        vec![Axis::parse("fd_window=0").unwrap()],
        None,
    )
    .unwrap();
    let o = run_job(&s, &bad, 0, &l);
    assert!(
        o.error.as_deref().unwrap_or("").contains("fd_window"),
        "{o:?}"
    );
}

/// A failed expectation reports what its view answered instead (issue 41): in sandbox-gossip with
/// C killed at 3 s, "A sees C UP" fails on every seed and A saw C DOWN; C's heartbeat, which no
/// longer advances from 5 s, reports its start and end. The summary groups the seeds by value; a part
/// whose values do not match its `held` is refused.
#[test]
fn failed_expectations_carry_the_observed_value() {
    let base = crate::scenario::builtin::get("sandbox-gossip").unwrap();
    let text = include_str!("../../../scenarios/sandbox-gossip.toml").to_string()
        + "\n[[faults]]\nat = \"3s\"\naction = \"kill\"\nnode = \"C\"\n";
    let s = Scenario::parse("t.toml", &text, &Limits::default()).unwrap();
    let p = Plan::new(&s, "sandbox", 1, 3, &toml::Table::new(), vec![], None).unwrap();
    let names = expectation_names(&s, "sandbox").unwrap();
    let up = names
        .iter()
        .position(|n| n.starts_with("A sees C UP"))
        .unwrap();
    let hb = names
        .iter()
        .position(|n| n.starts_with("C's heartbeat"))
        .unwrap();
    let outs: Vec<Outcome> = (0..3)
        .map(|j| run_job(&s, &p, j, &Limits::default()))
        .collect();
    for o in &outs {
        assert!(!o.held[up] && !o.held[hb], "{o:?}");
        assert_eq!(o.observed[up].as_deref(), Some("DOWN"), "{o:?}");
        let v = o.observed[hb].as_deref().unwrap();
        let (a, b) = v.split_once(" -> ").unwrap();
        assert_eq!(a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap(), "{v}");
    }
    // An untouched seed holds everything and carries no values.
    let plain = Plan::new(&base, "sandbox", 1, 1, &toml::Table::new(), vec![], None).unwrap();
    let o = run_job(&base, &plain, 0, &Limits::default());
    assert!(o.passed && o.observed.is_empty(), "{o:?}");

    let part = Partial::new(p.clone(), names.clone(), outs.clone());
    let sum = summarize(&part);
    let e = &sum.cells[0].expectations[up];
    assert_eq!(
        e.observed,
        vec![Observed {
            value: "DOWN".into(),
            count: 3,
            seeds: vec![1, 2, 3]
        }]
    );
    // Round trip through a part file; a value where the expectation held is refused.
    let json = serde_json::to_string(&part).unwrap();
    assert_eq!(Partial::from_json("p.json", &json).unwrap(), part);
    let mut bad = part.clone();
    bad.outcomes[0].held[up] = true;
    bad.outcomes[0].observed[up] = Some("UP".into());
    let e = bad.check("p.json").unwrap_err();
    assert!(e.contains(&format!("outcomes[0].observed[{up}]")), "{e}");
    let mut short = part;
    short.outcomes[1].observed.pop();
    let e = short.check("p.json").unwrap_err();
    assert!(e.contains("outcomes[1].observed has"), "{e}");
}

/// Grouping: most frequent first, ties by value, seeds in order; seeds without a value (an older
/// part) are in no group.
#[test]
fn observed_values_group_by_count() {
    let o = |seed: u64, v: Option<&str>| Outcome {
        job: seed - 1,
        seed,
        passed: false,
        held: vec![false],
        metrics: BTreeMap::new(),
        error: None,
        observed: v.map_or_else(Vec::new, |v| vec![Some(v.to_string())]),
    };
    let outs = [
        o(1, Some("b")),
        o(2, Some("a")),
        o(3, Some("DOWN")),
        o(4, Some("DOWN")),
        o(5, None),
    ];
    let refs: Vec<&Outcome> = outs.iter().collect();
    let g = super::observed_groups(&refs, 0);
    let shown: Vec<(&str, u64, &[u64])> = g
        .iter()
        .map(|x| (x.value.as_str(), x.count, x.seeds.as_slice()))
        .collect();
    assert_eq!(
        shown,
        vec![
            ("DOWN", 2, &[3, 4][..]),
            ("a", 1, &[2][..]),
            ("b", 1, &[1][..])
        ]
    );
}
