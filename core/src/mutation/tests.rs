//! The mutation-tracking scenarios, run through `Sim`/`Engine` directly: every scenario x
//! variant's expectations are checked here (the generic runner checks them too once the model
//! is registered), plus targeted checks of the model's rules.

use super::view::{fmt_read, VIEWS};
use super::*;
use crate::engine::action::Action;
use crate::engine::network::Link;
use crate::engine::{Engine, Sim, Topology};
use crate::limits::Limits;
use crate::model::{Model, QValue, Query};
use crate::time::parse_duration;

pub const SCENARIOS: &[(&str, &str)] = &[
    (
        "cassandra-21181-duplicate-notify",
        include_str!("../../../scenarios/cassandra-21181-duplicate-notify.toml"),
    ),
    (
        "cassandra-21181-overcount",
        include_str!("../../../scenarios/cassandra-21181-overcount.toml"),
    ),
    (
        "cassandra-21181-reconciled-missing",
        include_str!("../../../scenarios/cassandra-21181-reconciled-missing.toml"),
    ),
    (
        "cassandra-21181-shared-callback",
        include_str!("../../../scenarios/cassandra-21181-shared-callback.toml"),
    ),
    (
        "mutation-tracking-basics",
        include_str!("../../../scenarios/mutation-tracking-basics.toml"),
    ),
];

fn dur(v: &toml::Value) -> u64 {
    parse_duration(v.as_str().expect("a duration string")).expect("a duration")
}

fn topo3() -> Topology {
    Topology {
        names: vec!["node1".into(), "node2".into(), "node3".into()],
        dcs: vec!["dc1".into(); 3],
        racks: vec!["r1".into(); 3],
        seeds: vec![0],
    }
}

pub struct Loaded {
    pub engine: Engine<MutationTracking>,
    pub duration: u64,
    pub expects: Vec<toml::Table>,
}

/// Build a scenario variant the way the runner does (params, faults, expectations).
pub fn load(text: &str, variant: &str, seed: Option<u64>) -> Loaded {
    let file: toml::Table = toml::from_str(text).expect("scenario TOML");
    let topo = topo3();
    let mut params = file
        .get("params")
        .and_then(|p| p.as_table())
        .cloned()
        .unwrap_or_default();
    let mut faults: Vec<toml::Table> = file
        .get("faults")
        .and_then(|f| f.as_array())
        .map(|a| a.iter().map(|v| v.as_table().unwrap().clone()).collect())
        .unwrap_or_default();
    let mut expects: Vec<toml::Table> = file
        .get("expect")
        .and_then(|f| f.as_array())
        .map(|a| a.iter().map(|v| v.as_table().unwrap().clone()).collect())
        .unwrap_or_default();
    let v = file["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_table().unwrap())
        .find(|v| v["name"].as_str() == Some(variant))
        .unwrap_or_else(|| panic!("no variant {variant}"));
    if let Some(p) = v.get("params").and_then(|p| p.as_table()) {
        params.extend(p.clone());
    }
    for key in ["faults", "expect"] {
        if let Some(a) = v.get(key).and_then(|f| f.as_array()) {
            let list = a.iter().map(|v| v.as_table().unwrap().clone());
            if key == "faults" {
                faults.extend(list);
            } else {
                expects.extend(list);
            }
        }
    }
    let p = MtParams::from_table(params).expect("valid params");
    p.check_nodes(3).unwrap();
    let net = file.get("network").and_then(|n| n.as_table());
    let lat = |k: &str| net.and_then(|n| n.get(k)).map(dur).unwrap_or(1000);
    let mut schedule: Vec<(u64, Action)> = faults
        .into_iter()
        .map(|mut f| {
            let at = dur(&f.remove("at").expect("fault time"));
            let a: Action = toml::Value::Table(f).try_into().expect("an action");
            (at, a)
        })
        .collect();
    schedule.sort_by_key(|(t, _)| *t);
    let seed =
        seed.unwrap_or_else(|| file.get("seed").and_then(|s| s.as_integer()).unwrap_or(1) as u64);
    let sim = Sim::new(
        MutationTracking::new(p).unwrap(),
        topo,
        Link::healthy(lat("latency_min"), lat("latency_max")),
        seed,
        schedule,
        Limits::default(),
    );
    Loaded {
        engine: Engine::new(sim, false, 1 << 20),
        duration: dur(&file["duration"]),
        expects,
    }
}

fn at_of(e: &toml::Table, duration: u64) -> u64 {
    match e["at"].as_str().unwrap() {
        "end" => duration,
        s => parse_duration(s).unwrap(),
    }
}

pub fn query(engine: &Engine<MutationTracking>, e: &toml::Table) -> Result<QValue, String> {
    let node = |k: &str| {
        e.get(k)
            .map(|v| engine.sim.topo.resolve(v.as_str().unwrap()).unwrap())
    };
    let q = Query {
        view: e["view"].as_str().unwrap(),
        node: node("observer"),
        peer: node("peer"),
        contains: None,
        from: 0,
        key: e.get("key").and_then(|k| k.as_str()),
    };
    engine
        .sim
        .proto
        .query(&engine.sim, &q)
        .expect("one of the model's views")
}

/// Run a variant and return the failed expectations.
pub fn check(text: &str, variant: &str) -> Vec<String> {
    let mut l = load(text, variant, None);
    let mut ex: Vec<(u64, toml::Table)> = l
        .expects
        .drain(..)
        .map(|e| (at_of(&e, l.duration), e))
        .collect();
    ex.sort_by_key(|(t, _)| *t);
    let mut failed = Vec::new();
    for (t, e) in ex {
        l.engine.run_until(t, u64::MAX).unwrap();
        let want = &e["equals"];
        let got = query(&l.engine, &e);
        let ok = match (&got, want) {
            (Ok(QValue::Num(n)), toml::Value::Integer(w)) => *n == *w as f64,
            (Ok(QValue::Text(s)), toml::Value::String(w)) => s == w,
            _ => false,
        };
        if !ok {
            failed.push(format!(
                "{variant} @{t}us: {} — want {want}, got {got:?}",
                e["name"].as_str().unwrap()
            ));
        }
    }
    failed
}

fn variants(text: &str) -> Vec<String> {
    let file: toml::Table = toml::from_str(text).unwrap();
    file["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_scenario_variant_meets_its_expectations() {
    let mut failed = Vec::new();
    for (name, text) in SCENARIOS {
        for v in variants(text) {
            for f in check(text, &v) {
                failed.push(format!("{name}: {f}"));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn scenario_views_are_model_views() {
    for (name, text) in SCENARIOS {
        let file: toml::Table = toml::from_str(text).unwrap();
        let mut all = file
            .get("expect")
            .and_then(|a| a.as_array())
            .cloned()
            .unwrap_or_default();
        for v in file["variants"].as_array().unwrap() {
            all.extend(
                v.get("expect")
                    .and_then(|a| a.as_array())
                    .cloned()
                    .unwrap_or_default(),
            );
        }
        assert!(!all.is_empty(), "{name} has no expectations");
        for e in all {
            let view = e["view"].as_str().unwrap();
            assert!(VIEWS.contains(&view), "{name}: view {view}");
        }
    }
}

/// A check that fails when an expectation is wrong: flip one expected outcome and the runner
/// must report it.
#[test]
fn a_wrong_expectation_is_reported() {
    let text = SCENARIOS[0]
        .1
        .replace("equals = \"timeout\"", "equals = \"completed\"");
    let f = check(&text, "buggy");
    assert_eq!(f.len(), 1, "{f:?}");
}

fn run_variant(name: &str, variant: &str) -> Engine<MutationTracking> {
    let text = SCENARIOS.iter().find(|s| s.0 == name).unwrap().1;
    let mut l = load(text, variant, None);
    l.engine.run_until(l.duration, u64::MAX).unwrap();
    l.engine
}

#[test]
fn bug1_buggy_times_out_with_one_remaining_mutation_and_negative_dip() {
    let e = run_variant("cassandra-21181-duplicate-notify", "buggy");
    let n1 = &e.sim.nodes[0].state;
    let (id, r) = n1.recons.iter().next().unwrap();
    assert_eq!(fmt_read(&e.sim.topo, *id), "node1/r1");
    assert_eq!(r.outcome, Outcome::Timeout);
    assert_eq!(r.counters(), (1, 0, 0));
    assert_eq!(r.history.iter().map(|h| h.1).min(), Some(-1));
    // the pulled W2 was delivered as a duplicate that fired nothing
    assert!(n1
        .deliveries
        .iter()
        .any(|d| !d.new && d.fired == 0 && d.via == "PUSH_MUTATION_REQ"));
}

#[test]
fn bug2_count_rules_agree_before_the_bug4_window() {
    // in the single-log window every counting rule adds the same 1
    for v in ["buggy", "fix-count", "fix-count-final"] {
        let e = run_variant("cassandra-21181-overcount", v);
        let r = e.sim.nodes[0].state.recons.values().next().unwrap();
        assert_eq!(r.outcome, Outcome::Timeout, "{v}");
        let hist: Vec<i32> = r.history.iter().map(|h| h.1).collect();
        assert_eq!(hist.iter().max(), Some(&1), "{v}: {hist:?}");
    }
}

#[test]
fn bug3_buggy_misses_node3_0_and_fixed_pulls_it() {
    let e = run_variant("cassandra-21181-reconciled-missing", "buggy");
    let r = e.sim.nodes[0].state.recons.values().next().unwrap();
    assert_eq!(r.outcome, Outcome::Missing(offsets::MutId::new(2, 0)));
    assert_eq!(r.augment, vec![(offsets::MutId::new(2, 0), false)]);
    let e = run_variant("cassandra-21181-reconciled-missing", "fixed");
    let r = e.sim.nodes[0].state.recons.values().next().unwrap();
    assert_eq!(r.outcome, Outcome::Completed);
    assert_eq!(r.rows, vec!["W".to_string()]);
}

#[test]
fn commands_validate_before_changing_anything() {
    let text = SCENARIOS[0].1;
    let mut l = load(text, "fixed", None);
    l.engine.run_until(1000, u64::MAX).unwrap();
    for (cmd, want) in [
        ("hold NOPE", "unknown message kind"),
        ("park nowhere", "unknown step"),
        ("unpark", "nothing is parked"),
        ("read node1 node1", "listed twice"),
        ("read node9", "node9"),
        ("reconciled-snapshot node3 x", "not a whole number"),
        ("frobnicate", "unknown command"),
        ("write a b", "unexpected"),
    ] {
        let before = format!("{:?}", l.engine.sim.nodes[0].state.holding);
        let err = l
            .engine
            .apply_user_action(Action::Command {
                node: "node1".into(),
                command: cmd.into(),
            })
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{cmd}: {err}");
        assert_eq!(before, format!("{:?}", l.engine.sim.nodes[0].state.holding));
        assert!(l.engine.sim.nodes[0].state.client_reads.is_empty());
    }
}

#[test]
fn views_json_has_the_panel_fields() {
    let e = run_variant("cassandra-21181-duplicate-notify", "buggy");
    let v = e.sim.proto.views_json(&e.sim);
    let n1 = &v[0];
    assert_eq!(n1["name"], "node1");
    let read = &n1["reads"][0];
    assert_eq!(read["outcome"], "timeout");
    assert_eq!(read["mutations"], 1);
    assert_eq!(read["requested"].as_array().unwrap().len(), 2);
    assert!(read["history"].as_array().unwrap().len() >= 4);
    assert!(n1["logs"].as_array().unwrap().len() >= 2);
    assert!(n1["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["new"] == false));
    let mut out = Vec::new();
    e.sim.proto.sample(&e.sim, &mut out);
    assert_eq!(out.len(), 4 * 3);
    let c = e.sim.proto.matrix_cell(&e.sim, 0, 1);
    assert_eq!(c.text, "1/1");
}

#[test]
fn same_seed_same_hash() {
    let text = SCENARIOS[4].1;
    let run = |seed| {
        let mut l = load(text, "fixed", Some(seed));
        l.engine.run_until(l.duration, u64::MAX).unwrap();
        l.engine.sim.hash
    };
    assert_eq!(run(3), run(3));
}
