//! The internode connection model: lazy reconnect after a restart, and half-open detection.

use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;

fn two_nodes(extra_params: &str, faults: &str, until: &str) -> clusterscope_core::Report {
    let text = format!(
        r#"
name = "conn-test"
title = "connection model"
protocol = "gossip"
duration = "{until}"
[cluster]
nodes = [{{ name = "a" }}, {{ name = "b" }}]
[params]
connections = true
messaging = "3.x"
echo = "legacy"
client_coordinator = "a"
{extra_params}
[[variants]]
name = "only"
[[variants.expect]]
name = "a sees b"
view = "liveness"
observer = "a"
peer = "b"
at = "end"
equals = "UP"
{faults}
"#
    );
    let s = Scenario::parse("conn-test.toml", &text, &Limits::default()).unwrap();
    let mut r = Run::new(s, "only", None, &toml::Table::new(), &RunOptions::default()).unwrap();
    let mut report = r.run(None).unwrap();
    report.views = r.views_json();
    report
}

#[test]
fn kill_and_restart_reconnects_lazily() {
    let faults = r#"
[[faults]]
at = "5s"
action = "kill"
node = "b"
[[faults]]
at = "8s"
action = "start"
node = "b"
"#;
    let r = two_nodes("client_rate = 50.0", faults, "40s");
    assert!(r.passed, "{:?}", r.expectations);
    let a = &r.views["nodes"]["a"];
    let w = &a["writes"]["b"];
    // Writes after the restart are acknowledged again: the pool reconnected on demand.
    assert!(w["acked"].as_u64().unwrap() > 1000, "{w}");
    let small = a["connections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel"] == "small")
        .unwrap();
    assert_eq!(small["this_side"], "established");
    assert_eq!(small["other_side"], "open");
}

#[test]
fn a_half_open_connection_is_closed_by_the_retransmission_timeout() {
    // A graceful stop with writes racing the shutdown (high rate, long coordinator delay) leaves
    // a half-open small connection; a short retransmission timeout closes it within the run.
    let params = r#"
tcp_retransmit_timeout = "45s"
client_rate = 400.0
client_delay = "20ms"
"#;
    let faults = r#"
[[faults]]
at = "5s"
action = "stop"
node = "b"
[[faults]]
at = "10s"
action = "start"
node = "b"
"#;
    let r = two_nodes(params, faults, "2m");
    assert!(r.passed, "{:?}", r.expectations);
    let a = &r.views["nodes"]["a"];
    let w = &a["writes"]["b"];
    assert!(
        w["timed_out"].as_u64().unwrap() > 100,
        "the race left a half-open small connection: {w}"
    );
    // ... which the kernel timeout closed; later writes reconnect and are acknowledged.
    let small = a["connections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel"] == "small")
        .unwrap();
    assert_eq!(small["other_side"], "open", "{small}");
    assert_eq!(r.views["liveness"]["b"]["a"], "UP");
}
