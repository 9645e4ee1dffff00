//! The hand-typed readings of the gossip parameters and the schedule's faults (`core/src/typed.rs`,
//! `GossipParams::typed`, `engine::action::typed_action`) against serde's, which they stand in for
//! in the web app's main module (issue 44): on every value of every kind for every key, and on
//! every fault and gossip parameter table of every scenario file of the repository, the hand
//! reading is serde's when serde takes the table, and `None` when serde refuses it (the caller then
//! asks serde, so a refusal's words never change: docs/BAD_INPUT.md).

use clusterscope_core::engine::action::{typed_action, Action};
use clusterscope_core::gossip::params::GossipParams;
use std::path::Path;
use toml::{Table, Value};

fn serde_params(t: &Table) -> Option<GossipParams> {
    Value::Table(t.clone()).try_into().ok()
}

fn serde_action(t: &Table) -> Option<Action> {
    Value::Table(t.clone()).try_into().ok()
}

/// Every fault's `action` name, and one that is none.
const FAULT_VARIANTS: [&str; 16] = [
    "drop-link",
    "heal-link",
    "set-loss",
    "set-latency",
    "partition",
    "heal-all",
    "stop",
    "kill",
    "start",
    "restart",
    "stall",
    "delay",
    "release",
    "command",
    "message",
    "nope",
];

/// Values of every TOML kind, well and badly formed for each field.
fn samples() -> Vec<Value> {
    let mut v: Vec<Value> = [
        "1s",
        "250ms",
        "2m",
        "0s",
        "10",
        "s",
        "",
        "fixed",
        "buggy",
        "legacy",
        "Fixed",
        "3.x",
        "4.0",
        "4",
        "n1",
        "A",
        "GossipStage",
        "disablegossip",
    ]
    .iter()
    .chain(FAULT_VARIANTS.iter())
    .map(|s| Value::String(s.to_string()))
    .collect();
    v.extend([-1i64, 0, 1, 16, 1000, 4_294_967_295, 4_294_967_296].map(Value::Integer));
    v.extend([0.0, 0.25, 1.5, 8.0, -2.0].map(Value::Float));
    v.extend([true, false].map(Value::Boolean));
    let list =
        |xs: &[&str]| Value::Array(xs.iter().map(|s| Value::String(s.to_string())).collect());
    v.push(Value::Array(vec![list(&["A"]), list(&["B", "C"])]));
    v.push(list(&["A", "B"]));
    v.push(Value::Array(vec![]));
    v.push(Value::Table(Table::new()));
    v
}

const GOSSIP_KEYS: &[&str] = &[
    "echo",
    "gossip_interval",
    "request_timeout",
    "long_timeout",
    "phi_convict_threshold",
    "fd_window",
    "fd_initial_interval",
    "fd_max_interval",
    "max_local_pause",
    "shutdown_announce_delay",
    "quarantine_delay",
    "stage_msg_cost",
    "apply_state_cost",
    "major_state_cost",
    "shuffle_digests",
    "gossip_task",
    "generation_base",
    "num_tokens",
    "messaging",
    "connections",
    "tcp_retransmit_timeout",
    "tcp_user_timeout",
    "connect_timeout",
    "large_message_threshold",
    "client_rate",
    "client_coordinator",
    "client_delay",
    "mutation_bytes",
    "write_timeout",
    "fix_sender",
    "fix_shutdown",
    "unknown_key",
];

#[test]
fn params_typed_like_serde_for_every_key_and_value() {
    let mut taken = 0;
    for k in GOSSIP_KEYS {
        for v in samples() {
            let t = Table::from_iter([(k.to_string(), v.clone())]);
            let typed = GossipParams::typed(&t);
            assert_eq!(typed, serde_params(&t), "{k} = {v}");
            taken += usize::from(typed.is_some());
        }
    }
    assert!(taken > 60, "only {taken} tables taken");
    assert_eq!(
        GossipParams::typed(&Table::new()),
        Some(GossipParams::default())
    );
}

const ACTION_KEYS: &[&str] = &[
    "from", "to", "one_way", "loss", "min", "max", "groups", "node", "kill", "down_for",
    "executor", "extra", "command", "step", "at", "msg", "fate", "other",
];

#[test]
fn faults_typed_like_serde_for_every_variant_key_and_value() {
    let variants = FAULT_VARIANTS;
    // Each variant with its fields well formed, then each key given each value.
    let good = |name: &str| -> Table {
        let mut t = Table::new();
        t.insert("action".into(), Value::String(name.into()));
        let s = |x: &str| Value::String(x.into());
        match name {
            "drop-link" | "heal-link" => {
                t.insert("from".into(), s("A"));
                t.insert("to".into(), s("B"));
            }
            "set-loss" => {
                t.insert("from".into(), s("A"));
                t.insert("to".into(), s("B"));
                t.insert("loss".into(), Value::Float(0.5));
            }
            "set-latency" => {
                t.insert("from".into(), s("A"));
                t.insert("to".into(), s("B"));
                t.insert("min".into(), s("1ms"));
                t.insert("max".into(), s("2ms"));
            }
            "partition" => {
                t.insert("groups".into(), samples()[samples().len() - 4].clone());
            }
            "stop" | "kill" | "start" | "restart" => {
                t.insert("node".into(), s("A"));
            }
            "stall" | "release" => {
                t.insert("node".into(), s("A"));
                t.insert("executor".into(), s("GossipStage"));
            }
            "delay" => {
                t.insert("node".into(), s("A"));
                t.insert("executor".into(), s("GossipStage"));
                t.insert("extra".into(), s("5ms"));
            }
            "command" => {
                t.insert("node".into(), s("A"));
                t.insert("command".into(), s("disablegossip"));
            }
            _ => {}
        }
        t
    };
    let mut taken = 0;
    let mut tried = 0;
    for name in variants {
        let t = good(name);
        assert_eq!(typed_action(&t), serde_action(&t), "{t}");
        for k in ACTION_KEYS.iter().chain(&["action"]) {
            for v in samples() {
                let mut t = t.clone();
                t.insert(k.to_string(), v.clone());
                let typed = typed_action(&t);
                assert_eq!(typed, serde_action(&t), "{t}");
                taken += usize::from(typed.is_some());
                tried += 1;
            }
        }
        // A field left out.
        for k in t.keys().filter(|k| *k != "action") {
            let mut t = t.clone();
            t.remove(k);
            assert_eq!(typed_action(&t), serde_action(&t), "{t}");
        }
    }
    assert!(taken > 200, "only {taken} of {tried} tables taken");
}

/// Every `.toml` file under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// Every table in an array under a key `faults`, anywhere in `v`.
fn fault_tables(v: &Value, out: &mut Vec<Table>) {
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                if k == "faults" {
                    for f in x.as_array().into_iter().flatten() {
                        if let Some(f) = f.as_table() {
                            out.push(f.clone());
                        }
                    }
                }
                fault_tables(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| fault_tables(x, out)),
        _ => {}
    }
}

#[test]
fn every_files_faults_and_gossip_params_typed_like_serde() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths = Vec::new();
    files(&root.join("scenarios"), &mut paths);
    files(&root.join("tests").join("scenarios"), &mut paths);
    let (mut faults, mut params) = (0, 0);
    for p in &paths {
        let Ok(file) = std::fs::read_to_string(p).unwrap().parse::<Table>() else {
            continue; // a file planted to be refused
        };
        let mut fs = Vec::new();
        fault_tables(&Value::Table(file.clone()), &mut fs);
        for mut f in fs {
            f.remove("at");
            let typed = typed_action(&f);
            assert_eq!(typed, serde_action(&f), "{}: {f}", p.display());
            faults += usize::from(typed.is_some());
        }
        if file.get("protocol").and_then(Value::as_str) != Some("gossip") {
            continue;
        }
        // The file's parameters, its gossip section over them, and each variant's over both.
        let mut base = file
            .get("params")
            .and_then(Value::as_table)
            .cloned()
            .unwrap_or_default();
        base.extend(
            file.get("gossip")
                .and_then(Value::as_table)
                .cloned()
                .unwrap_or_default(),
        );
        let mut tables = vec![base.clone()];
        for v in file
            .get("variants")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut t = base.clone();
            t.extend(
                v.get("params")
                    .and_then(Value::as_table)
                    .cloned()
                    .unwrap_or_default(),
            );
            tables.push(t);
        }
        for t in tables {
            let typed = GossipParams::typed(&t);
            assert_eq!(typed, serde_params(&t), "{}: {t}", p.display());
            params += usize::from(typed.is_some());
        }
    }
    assert!(faults > 50, "only {faults} faults read by hand");
    assert!(
        params >= 20,
        "only {params} gossip parameter tables read by hand"
    );
}
