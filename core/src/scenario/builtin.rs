//! Built-in scenarios. [`CATALOG`] lists them (name and node count) and is always compiled in;
//! their texts ([`FILES`], [`all`], [`get`]) come with the `builtin-texts` feature (on by default).
//! The web app turns it off: its wasm lists the built-ins and fetches a text when its scenario is
//! opened (`web/src/builtins.rs`), ~60 KB less to download (docs/PERFORMANCE.md, "Download size
//! and load"). The CLI and the tests embed every text.

#[cfg(feature = "builtin-texts")]
use super::{Scenario, ScenarioError};
#[cfg(feature = "builtin-texts")]
use crate::limits::Limits;

/// A built-in scenario as the list shows it: its `name` (its file is `scenarios/<name>.toml`)
/// and its node count. A test checks this list against the files (`catalog_matches_files`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: &'static str,
    pub nodes: u32,
}

impl Entry {
    /// Its file's name in `scenarios/`.
    pub fn file(&self) -> String {
        format!("{}.toml", self.name)
    }
}

/// An [`Entry`], briefly (the list below is one line each).
const fn e(name: &'static str, nodes: u32) -> Entry {
    Entry { name, nodes }
}

/// Every built-in scenario, in the order of [`FILES`].
pub const CATALOG: &[Entry] = &[
    e("cassandra-15138-shutdown-race", 3),
    e("cassandra-21181-duplicate-notify", 3),
    e("cassandra-21181-overcount", 3),
    e("cassandra-21181-reconciled-missing", 3),
    e("cassandra-21181-shared-callback", 3),
    e("cassandra-21636-echo-race", 251),
    e("cassandra-21636-packet-loss", 3),
    e("cassandra-21636-restart", 12),
    e("cassandra-21636-rolling-upgrade", 251),
    e("cassandra-21636-workarounds", 12),
    e("gossip-digest-exchange", 4),
    e("mutation-tracking-basics", 3),
    e("mutation-tracking-sweep", 3),
    e("hdds-17673-close-race", 4),
    e("hdds-17673-sweep", 4),
    e("ozone-write-pipeline", 4),
    e("pingpong", 5),
    e("raft-figure-7", 7),
    e("raft-figure-8", 5),
    e("raft-leader-crash", 5),
    e("raft-leader-election", 5),
    e("raft-lossy-catchup", 3),
    e("raft-partition", 5),
    e("raft-slow-apply", 3),
    e("raft-split-vote", 5),
    e("raft-stale-read", 5),
    e("sandbox-gossip", 3),
    e("sandbox-mutation-tracking", 3),
    e("sandbox-ozone", 4),
    e("sandbox-pingpong", 3),
    e("sandbox-raft", 5),
];

/// The built-in scenario named `name`.
pub fn entry(name: &str) -> Option<&'static Entry> {
    CATALOG.iter().find(|e| e.name == name)
}

/// The error for a name that is no built-in scenario (as [`get`] says it): it lists them.
pub fn unknown(name: &str) -> String {
    format!("{name}: {}", unknown_msg())
}

#[cfg(feature = "builtin-texts")]
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
        "raft-stale-read.toml",
        include_str!("../../../scenarios/raft-stale-read.toml"),
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
#[cfg(feature = "builtin-texts")]
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
    CATALOG.iter().map(|e| e.name.to_string()).collect()
}

/// The text of the built-in scenario named `name`.
#[cfg(feature = "builtin-texts")]
pub fn text(name: &str) -> Option<&'static str> {
    let i = CATALOG.iter().position(|e| e.name == name)?;
    Some(FILES[i].1)
}

/// Without the `builtin-texts` feature (the web app's build) no text is compiled in.
#[cfg(not(feature = "builtin-texts"))]
pub fn text(_name: &str) -> Option<&'static str> {
    None
}

/// Find a built-in scenario by its `name`.
#[cfg(feature = "builtin-texts")]
pub fn get(name: &str) -> Result<Scenario, ScenarioError> {
    match CATALOG.iter().position(|e| e.name == name) {
        Some(i) => Scenario::parse(FILES[i].0, FILES[i].1, &Limits::default()),
        None => Err(ScenarioError {
            file: name.to_string(),
            msg: unknown_msg(),
        }),
    }
}

fn unknown_msg() -> String {
    format!(
        "no built-in scenario with this name; built-in: {}",
        names().join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`CATALOG`] is what the files say: the same names in the same order, each its file's
    /// `name`, and each scenario's node count. A failure prints the list to paste.
    #[test]
    fn catalog_matches_files() {
        let found: Vec<Entry> = FILES
            .iter()
            .map(|(f, t)| {
                let s = Scenario::parse(f, t, &Limits::default()).unwrap();
                assert_eq!(
                    format!("{}.toml", s.raw.name),
                    *f,
                    "a built-in's file is its name"
                );
                Entry {
                    name: f.strip_suffix(".toml").unwrap(),
                    nodes: s.topo.len(),
                }
            })
            .collect();
        let listed: String = found
            .iter()
            .map(|e| format!("    e({:?}, {}),\n", e.name, e.nodes))
            .collect();
        assert_eq!(
            CATALOG,
            &found[..],
            "core/src/scenario/builtin.rs: CATALOG must list every file of FILES in order \
             with its node count; replace it with:\n{listed}"
        );
    }

    #[test]
    fn unknown_names_list_the_builtins() {
        let e = get("nope").unwrap_err().to_string();
        assert!(
            e.starts_with("nope: no built-in scenario with this name; built-in: cassandra-15138")
        );
        assert_eq!(unknown("nope"), e);
        assert_eq!(
            text("pingpong"),
            Some(FILES.iter().find(|f| f.0 == "pingpong.toml").unwrap().1)
        );
    }
}
