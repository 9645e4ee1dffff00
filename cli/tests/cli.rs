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
