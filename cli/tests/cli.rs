//! The CLI's contract: exit codes, JSON keys, trace output.

use assert_cmd::Command;

fn cs() -> Command {
    Command::cargo_bin("clusterscope").unwrap()
}

#[test]
fn list_shows_builtins_with_variants() {
    let out = cs()
        .arg("list")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("cassandra-21636-packet-loss"));
    assert!(text.contains("buggy, legacy, fixed"));
}

#[test]
fn run_json_has_the_documented_keys_and_exit_0() {
    let out = cs()
        .args([
            "run",
            "cassandra-21636-packet-loss",
            "--variant",
            "fixed",
            "--format",
            "json",
        ])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    for k in [
        "scenario",
        "variant",
        "seed",
        "end_time_us",
        "events",
        "trace_hash",
        "passed",
        "expectations",
        "views",
    ] {
        assert!(v.get(k).is_some(), "missing key {k}");
    }
    assert_eq!(v["views"]["liveness"]["A"]["B"], "UP");
    assert_eq!(v["passed"], true);
    let e = &v["expectations"][0];
    assert!(e["name"].is_string() && e["passed"].is_boolean() && e["detail"].is_string());
}

#[test]
fn failing_expectation_exits_1() {
    // The buggy variant's expectations under the fixed code path fail: force echo=fixed.
    cs().args([
        "run",
        "cassandra-21636-packet-loss",
        "--variant",
        "buggy",
        "--set",
        "echo=fixed",
    ])
    .assert()
    .code(1);
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let a = cs().args(["run", "no-such-scenario"]).assert().code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("no built-in scenario") && err.contains("cassandra-21636-packet-loss"),
        "{err}"
    );
    let a = cs()
        .args(["run", "cassandra-21636-packet-loss", "--variant", "nope"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("buggy, legacy, fixed"));
    let a = cs()
        .args([
            "run",
            "cassandra-21636-packet-loss",
            "--set",
            "phi_convict_threshold=-1",
        ])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("phi_convict_threshold"));
    let a = cs()
        .args(["run", "cassandra-21636-packet-loss", "--until", "ten"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("--until"));
    let dir = std::env::temp_dir().join(format!("cs-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.toml");
    std::fs::write(&f, "name = \"x\"\ntitle = 3\n").unwrap();
    let a = cs().args(["run", f.to_str().unwrap()]).assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("bad.toml") && err.contains("line 2"), "{err}");
}

#[test]
fn trace_writes_one_json_object_per_event() {
    let dir = std::env::temp_dir().join(format!("cs-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("t.jsonl");
    cs().args([
        "run",
        "gossip-digest-exchange",
        "--trace",
        f.to_str().unwrap(),
    ])
    .assert()
    .code(0);
    let text = std::fs::read_to_string(&f).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 10);
    let syn = lines
        .iter()
        .find(|l| l["kind"] == "send" && l["verb"] == "SYN")
        .unwrap();
    assert!(syn["body"]
        .as_str()
        .unwrap()
        .contains("10.0.0.1:1259909635:325"));
    assert!(lines.iter().any(|l| l["kind"] == "log"
        && l["text"]
            .as_str()
            .unwrap()
            .contains("has restarted, now UP")));
}

#[test]
fn sweep_reports_fractions_with_intervals() {
    let out = cs()
        .args([
            "sweep",
            "cassandra-21636-packet-loss",
            "--seeds",
            "4",
            "--jobs",
            "2",
            "--variant",
            "fixed",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["seeds"], 4);
    assert_eq!(v["all_passed"]["runs"], 4);
    let e = &v["expectations"][0];
    assert!(e["ci95_low"].as_f64().unwrap() <= e["fraction"].as_f64().unwrap());
    assert!(v["metrics"]["down_pairs"]["mean"].is_number());
}

// ---- issue 13 ----

fn write_tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("clusterscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A closed stdout (`| true`, `| head`) ends quietly: no panic (exit 101), no message.
#[test]
fn closed_stdout_ends_quietly() {
    use std::process::{Command as Std, Stdio};
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("clusterscope"))
        .args(["run", "cassandra-21636-packet-loss", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader is gone before anything is written
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// At most the limit plus one byte is read: /dev/zero is refused by size, at once.
#[test]
fn endless_input_is_refused_by_size() {
    let a = cs()
        .args(["run", "/dev/zero"])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("/dev/zero") && err.contains("the limit is 1048576 bytes"),
        "{err}"
    );
}

/// One UTF-8 rule for the CLI and the app (`text::scenario_text`): the error names the place.
#[test]
fn non_utf8_file_names_line_and_column() {
    let p = write_tmp("latin1.toml", b"name = \"x\"\ntitle = \"caf\xe9\"\n");
    let a = cs().arg("run").arg(&p).assert().code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("not UTF-8") && err.contains("line 2, column 13") && err.contains("0xe9"),
        "{err}"
    );
}

#[test]
fn sweep_exits_2_when_every_seed_errors() {
    // Each seed's run stops at a recorded step it never reaches.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenarios/cassandra-21636-packet-loss.toml"
    ))
    .unwrap();
    let text = format!(
        "{text}\n[[recorded]]\nstep = 900000000\nat = \"11m\"\naction = \"kill\"\nnode = \"A\"\n"
    );
    let p = write_tmp("never.toml", text.as_bytes());
    let a = cs()
        .arg("sweep")
        .arg(&p)
        .args(["--seeds", "2", "--jobs", "1", "--variant", "fixed"])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("every one of the 2 seeds failed") && err.contains("never reached"),
        "{err}"
    );
}

#[test]
fn sweep_refuses_seeds_past_2_pow_64() {
    let a = cs()
        .args([
            "sweep",
            "cassandra-21636-packet-loss",
            "--seeds",
            "3",
            "--first-seed",
            "18446744073709551615",
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("--first-seed") && err.contains("18446744073709551613"),
        "{err}"
    );
}

/// A run whose state grows past the memory budget stops with exit 2 and a message naming what
/// grew, instead of the allocator aborting (here: a GossipStage ten thousand times slower than
/// its input).
#[test]
fn a_run_that_outgrows_memory_exits_2_naming_what_grew() {
    let text = r#"name = "backlog"
title = "A stage that never drains"
protocol = "gossip"
duration = "6h"

[cluster]
generate = { count = 40 }

[params]
stage_msg_cost = "10s"

[[variants]]
name = "only"
"#;
    let p = write_tmp("backlog.toml", text.as_bytes());
    let a = cs()
        .arg("run")
        .arg(&p)
        .env("CLUSTERSCOPE_MAX_MEMORY_MB", "64")
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("limit reached: memory") && err.contains("over its budget of 68 MB"),
        "{err}"
    );
}
