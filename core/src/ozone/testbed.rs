//! What the Ozone unit tests share: the three-datanode sandbox and the fault lines they write.

use crate::limits::Limits;
use crate::scenario::Scenario;

/// Three datanodes and SCM (links 1-3 ms, Ozone's preset plus `params`, TOML lines), dn1 elected
/// at 10 ms (its `timeout` command), one variant `v`, running for `duration`, plus `rest` (TOML
/// faults and expectations).
pub(super) fn three_datanodes(name: &str, duration: &str, params: &str, rest: &str) -> Scenario {
    let text = format!(
        r#"
name = "{name}"
title = "{title}"
protocol = "ozone"
duration = "{duration}"
[cluster]
nodes = [{{ name = "dn1" }}, {{ name = "dn2" }}, {{ name = "dn3" }}, {{ name = "scm" }}]
[network]
latency_min = "1ms"
latency_max = "3ms"
[params]
preset = "ozone"
{params}
[[variants]]
name = "v"
description = "v"
[[faults]]
at = "10ms"
action = "command"
node = "dn1"
command = "timeout"
{rest}"#,
        title = name.replace('-', " ")
    );
    Scenario::parse(&format!("{name}.toml"), &text, &Limits::default()).unwrap()
}

/// A fault line: `action` at `node` at `at`, plus `more` (TOML lines).
pub(super) fn fault(at: &str, action: &str, node: &str, more: &str) -> String {
    format!("[[faults]]\nat = \"{at}\"\naction = \"{action}\"\nnode = \"{node}\"\n{more}\n")
}

/// A client's WriteChunk `tag` of 1,024 bytes to container 1, block `block`, at `node`.
pub(super) fn write(at: &str, node: &str, tag: &str, block: u32) -> String {
    format!(
        "[[faults]]\nat = \"{at}\"\naction = \"command\"\nnode = \"{node}\"\ncommand = \"client-write-chunk {tag} 1 {block} 1024\"\n"
    )
}

/// A thread action (`stall`, `release`, ...) on `node`'s `executor` at `at`.
pub(super) fn exec(action: &str, at: &str, node: &str, executor: &str) -> String {
    format!("[[faults]]\nat = \"{at}\"\naction = \"{action}\"\nnode = \"{node}\"\nexecutor = \"{executor}\"\n")
}
