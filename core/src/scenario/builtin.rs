//! Built-in scenarios, embedded so the web app needs no server.

use super::{Scenario, ScenarioError};
use crate::limits::Limits;

/// (file name, contents) of every file in `scenarios/`.
pub const FILES: &[(&str, &str)] = &[
    (
        "cassandra-15138-shutdown-race.toml",
        include_str!("../../../scenarios/cassandra-15138-shutdown-race.toml"),
    ),
    (
        "cassandra-21181-duplicate-notify.toml",
        include_str!("../../../scenarios/cassandra-21181-duplicate-notify.toml"),
    ),
    (
        "cassandra-21181-overcount.toml",
        include_str!("../../../scenarios/cassandra-21181-overcount.toml"),
    ),
    (
        "cassandra-21181-reconciled-missing.toml",
        include_str!("../../../scenarios/cassandra-21181-reconciled-missing.toml"),
    ),
    (
        "cassandra-21181-shared-callback.toml",
        include_str!("../../../scenarios/cassandra-21181-shared-callback.toml"),
    ),
    (
        "cassandra-21636-echo-race.toml",
        include_str!("../../../scenarios/cassandra-21636-echo-race.toml"),
    ),
    (
        "cassandra-21636-packet-loss.toml",
        include_str!("../../../scenarios/cassandra-21636-packet-loss.toml"),
    ),
    (
        "cassandra-21636-restart.toml",
        include_str!("../../../scenarios/cassandra-21636-restart.toml"),
    ),
    (
        "cassandra-21636-rolling-upgrade.toml",
        include_str!("../../../scenarios/cassandra-21636-rolling-upgrade.toml"),
    ),
    (
        "cassandra-21636-workarounds.toml",
        include_str!("../../../scenarios/cassandra-21636-workarounds.toml"),
    ),
    (
        "gossip-digest-exchange.toml",
        include_str!("../../../scenarios/gossip-digest-exchange.toml"),
    ),
    (
        "mutation-tracking-basics.toml",
        include_str!("../../../scenarios/mutation-tracking-basics.toml"),
    ),
    (
        "mutation-tracking-sweep.toml",
        include_str!("../../../scenarios/mutation-tracking-sweep.toml"),
    ),
    (
        "hdds-17673-close-race.toml",
        include_str!("../../../scenarios/hdds-17673-close-race.toml"),
    ),
    (
        "hdds-17673-sweep.toml",
        include_str!("../../../scenarios/hdds-17673-sweep.toml"),
    ),
    (
        "ozone-write-pipeline.toml",
        include_str!("../../../scenarios/ozone-write-pipeline.toml"),
    ),
    (
        "pingpong.toml",
        include_str!("../../../scenarios/pingpong.toml"),
    ),
    (
        "raft-figure-7.toml",
        include_str!("../../../scenarios/raft-figure-7.toml"),
    ),
    (
        "raft-figure-8.toml",
        include_str!("../../../scenarios/raft-figure-8.toml"),
    ),
    (
        "raft-leader-crash.toml",
        include_str!("../../../scenarios/raft-leader-crash.toml"),
    ),
    (
        "raft-leader-election.toml",
        include_str!("../../../scenarios/raft-leader-election.toml"),
    ),
    (
        "raft-lossy-catchup.toml",
        include_str!("../../../scenarios/raft-lossy-catchup.toml"),
    ),
    (
        "raft-partition.toml",
        include_str!("../../../scenarios/raft-partition.toml"),
    ),
    (
        "raft-slow-apply.toml",
        include_str!("../../../scenarios/raft-slow-apply.toml"),
    ),
    (
        "raft-split-vote.toml",
        include_str!("../../../scenarios/raft-split-vote.toml"),
    ),
    (
        "sandbox-gossip.toml",
        include_str!("../../../scenarios/sandbox-gossip.toml"),
    ),
    (
        "sandbox-mutation-tracking.toml",
        include_str!("../../../scenarios/sandbox-mutation-tracking.toml"),
    ),
    (
        "sandbox-ozone.toml",
        include_str!("../../../scenarios/sandbox-ozone.toml"),
    ),
    (
        "sandbox-pingpong.toml",
        include_str!("../../../scenarios/sandbox-pingpong.toml"),
    ),
    (
        "sandbox-raft.toml",
        include_str!("../../../scenarios/sandbox-raft.toml"),
    ),
];

/// All built-in scenarios, parsed. A parse failure here is a bug (tests parse every file).
pub fn all() -> Vec<Scenario> {
    FILES
        .iter()
        .map(|(f, t)| {
            Scenario::parse(f, t, &Limits::default())
                .unwrap_or_else(|e| panic!("built-in scenario: {e}"))
        })
        .collect()
}

pub fn names() -> Vec<String> {
    all().into_iter().map(|s| s.raw.name).collect()
}

/// Find a built-in scenario by its `name`.
pub fn get(name: &str) -> Result<Scenario, ScenarioError> {
    for (f, t) in FILES {
        let s = Scenario::parse(f, t, &Limits::default())?;
        if s.raw.name == name {
            return Ok(s);
        }
    }
    Err(ScenarioError {
        file: name.to_string(),
        msg: format!(
            "no built-in scenario with this name; built-in: {}",
            names().join(", ")
        ),
    })
}
