//! Every constant of the Raft model is a parameter with Apache Ratis' default (the config key is
//! named on each field). `preset = "ozone"` switches to what Ozone's datanodes set (the election,
//! request, client, slowness and no-leader timeouts and the pending-request limit).

use crate::engine::action::Dur;
use crate::time::{US_PER_MS, US_PER_S};
use serde::{Deserialize, Serialize};

/// Which entries a leader may commit by counting replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommitRule {
    /// Raft (and Ratis' `RaftLog.updateCommitIndex`): only an entry of the leader's current term
    /// is committed by a majority of matchIndex; earlier entries commit with it.
    CurrentTerm,
    /// The unsafe rule of the paper's Figure 8: any entry stored on a majority is committed.
    CountReplicas,
}

/// `raft.server.read.option` (`RaftServerConfigKeys.Read.Option`): how a leader answers a
/// read-only request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadOption {
    /// Ratis' default: `checkLeaderState`, then the state machine answers at once from what it
    /// applied (no round trip: a deposed leader that does not know it answers stale values).
    Default,
    /// ReadIndex: the leader's commitIndex, confirmed by a heartbeat round a majority acknowledges
    /// (`LeaderStateImpl.getReadIndex`), then the read waits until applied >= readIndex
    /// (`ReadRequests`); a follower asks the leader for the readIndex (`readIndexAsync`).
    Linearizable,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RaftParams {
    /// `raft.server.rpc.timeout.min` (150 ms): election timeout lower bound; heartbeats go out
    /// when a follower has not answered for min/2, at most every min/4 (`LogAppender`).
    pub timeout_min: Dur,
    /// `raft.server.rpc.timeout.max` (300 ms): election timeout upper bound; also the leader's
    /// lease window (`LeaderStateImpl.checkLeadership`).
    pub timeout_max: Dur,
    /// `raft.server.rpc.request.timeout` (3 s; Ozone's datanodes 60 s): an AppendEntries
    /// without an answer this long is given up (the appender resets to matchIndex + 1).
    pub request_timeout: Dur,
    /// `raft.client.rpc.request.timeout` (3 s; Ozone's `hdds.ratis.raft.client.rpc.request.timeout`
    /// 60 s): a client request without a reply this long is sent again, to the next server.
    pub client_timeout: Dur,
    /// `raft.server.leaderelection.pre-vote` (true).
    pub pre_vote: bool,
    /// `raft.server.leaderelection.leader.step-down.wait-time`'s sibling: the leader steps down
    /// when no majority answered within `timeout_max` (`raft.server.leader.heartbeat-check.enabled`, true).
    pub leader_heartbeat_check: bool,
    /// `raft.server.leaderelection.leader.step-down.wait-time` (10 s): a leader that stepped
    /// down for lost majority heartbeats stands for no election this long
    /// (`FollowerState.lostMajorityHeartbeatsRecently`).
    pub step_down_wait: Dur,
    /// `raft.grpc.server.leader.outstanding.appends.max` (8): AppendEntries in flight per follower.
    pub max_outstanding: u32,
    /// Entries per AppendEntries (`raft.server.log.appender.buffer.element-limit`, 0 = unbounded
    /// in Ratis, byte-limited at 4 MB; here a count).
    pub append_batch: u32,
    /// `raft.server.write.element-limit` (4096; Ozone's datanodes 1024): pending client requests
    /// on a leader
    /// (`PendingRequests` permits).
    pub pending_limit: u32,
    /// `raft.server.retrycache.expirytime` (60 s).
    pub retry_cache_expiry: Dur,
    /// A new leader appends an entry of its term at once (Ratis: the configuration entry of
    /// `LeaderStateImpl.prepare`). The Figure 8 scenario turns it off, as the paper has none.
    pub leader_startup_entry: bool,
    /// Which entries count as committed (`current-term` is Raft; `count-replicas` is unsafe).
    pub commit_rule: CommitRule,
    /// LogWorker: time to write and flush one batch (SegmentedRaftLogWorker, `raft.server.log.force.sync.num`
    /// batches flushes; one task here).
    pub flush_cost: Dur,
    /// LogAppender: time to build and send one AppendEntries.
    pub append_cost: Dur,
    /// StateMachineUpdater: time to apply one entry.
    pub apply_cost: Dur,
    /// Client requests per second generated at `client_node` (0: none).
    pub client_rate: u32,
    /// The node whose co-located client generates load (empty: the first node).
    pub client_node: String,
    /// Client back-off after a NotLeader reply without a leader hint (Ratis client retry policy
    /// sleep; `raft.server.rpc.sleep.time` is 25 ms on the server side).
    pub client_retry: Dur,
    /// Check the Raft safety invariants after every event (off only for raw speed).
    pub check_invariants: bool,
    /// How many nodes (the first ones of `[cluster]`) form the Raft group; 0: all of them. The
    /// others run only the state machine (e.g. Ozone's SCM): no elections, no log.
    pub group_size: u32,
    /// Ratis as released (3.3.x and master at the time of writing): a request rejected by
    /// `preAppendTransaction` (a `StateMachineException`) never releases the pending-request permit
    /// `appendTransaction` acquired, so each rejection shrinks the leader's `pending_limit` for
    /// the rest of its term. Off: the permit is released (the model's default, as before).
    pub leak_permit_on_pre_append_failure: bool,
    /// `raft.server.read.option` (DEFAULT): `default` or `linearizable` (docs/model/raft.md, "Reads").
    pub read_option: ReadOption,
    /// `raft.server.read.timeout` (10 s): a linearizable read waiting for the state machine to
    /// apply its readIndex fails with ReadException after this long (`ReadIndexQueue`).
    pub read_timeout: Dur,
    /// `raft.server.rpc.slowness.timeout` (60 s; Ozone's `hdds.ratis.` one is 300 s): a leader's
    /// appender that finds its follower has not answered for longer tells the state machine
    /// (`LeaderStateImpl.checkHealth` -> `notifyFollowerSlowness`), at every turn of its loop.
    pub slowness_timeout: Dur,
    /// `raft.server.notification.no-leader.timeout` (60 s; Ozone's 300 s): a follower that
    /// stands for election with no leader known for longer tells the state machine
    /// (`RaftServerImpl.changeToCandidate` -> `notifyExtendedNoLeader`).
    pub no_leader_timeout: Dur,
    /// `default` (Ratis), `ozone` (what Ozone's datanodes set: [`PRESETS`]) or `teaching`
    /// (elections in 1.5 s - 3 s, slow enough to watch). Applied before the explicit fields.
    pub preset: String,
}

impl Default for RaftParams {
    fn default() -> Self {
        RaftParams {
            timeout_min: Dur(150 * US_PER_MS),
            timeout_max: Dur(300 * US_PER_MS),
            request_timeout: Dur(3 * US_PER_S),
            client_timeout: Dur(3 * US_PER_S),
            pre_vote: true,
            leader_heartbeat_check: true,
            step_down_wait: Dur(10 * US_PER_S),
            max_outstanding: 8,
            append_batch: 64,
            pending_limit: 4096,
            retry_cache_expiry: Dur(60 * US_PER_S),
            leader_startup_entry: true,
            commit_rule: CommitRule::CurrentTerm,
            flush_cost: Dur(US_PER_MS),
            append_cost: Dur(50),
            apply_cost: Dur(100),
            client_rate: 0,
            client_node: String::new(),
            client_retry: Dur(100 * US_PER_MS),
            check_invariants: true,
            group_size: 0,
            leak_permit_on_pre_append_failure: false,
            read_option: ReadOption::Default,
            read_timeout: Dur(10 * US_PER_S),
            slowness_timeout: Dur(60 * US_PER_S),
            no_leader_timeout: Dur(60 * US_PER_S),
            preset: "default".into(),
        }
    }
}

/// About how many trace records a second of virtual time makes (`Model::records_per_sec`),
/// and why, for a Raft group of `group` nodes in a cluster of `nodes`. Measured with the
/// sandbox at 5, 64 and 512 nodes (default and teaching presets, client_rate 0 and 100): a
/// leader heartbeats each follower about every `timeout_min / 2` (~5 records each: the
/// appender task, send, delivery, reply, its delivery), and a client write takes ~10 records
/// plus ~15 per follower; both rounded up here. The invariant check runs after every event
/// (~2 records) and still passes over every node (the fingerprints of `check::Memo`, Leader
/// Completeness): ~11 ns a node with no load, up to ~47 ns with writes in flight, against
/// ~0.47 us a record for the engine (all on AMD EPYC, natively): ~n/87 records more per record
/// with heartbeats only, ~n/20 with writes; counted as n/80 and n/20, so the estimate stands for
/// the run's work, not only its trace.
pub fn records_per_sec(p: &RaftParams, group: u32, nodes: u32) -> (f64, String) {
    let followers = group.saturating_sub(1) as f64;
    let heartbeats = 2.0 * US_PER_S as f64 / p.timeout_min.0.max(1) as f64;
    let (n, check) = (nodes as f64, p.check_invariants);
    // The check's pass, in records per record: n/80 between heartbeats, n/20 with writes (logs
    // that differ between followers make more classes to compare).
    let weight = |per: f64| if check { 1.0 + n / per } else { 1.0 };
    let mut rate = 6.0 * followers * heartbeats * weight(80.0);
    let mut why = format!(
        "{followers} followers x {heartbeats:.1} heartbeats/s (timeout_min {})",
        crate::time::fmt_duration(p.timeout_min.0)
    );
    if p.client_rate > 0 {
        rate += p.client_rate as f64 * (12.0 + 16.0 * followers) * weight(20.0);
        why += &format!(" and {} client writes/s", p.client_rate);
    }
    if check {
        why += &format!(
            ", each record counted 1 + {nodes}/80 times (1 + {nodes}/20 for writes) for the \
             invariant check's pass over {nodes} nodes after each event (check_invariants)"
        );
    }
    (rate, why)
}

/// The shortest election timeout (heartbeats go every min/4).
pub const TIMEOUT_MIN_US: Micros = 4;
/// The most AppendEntries in flight per follower.
pub const MAX_OUTSTANDING_MAX: u32 = 1024;
/// The most entries per AppendEntries.
pub const APPEND_BATCH_MAX: u32 = 4096;
/// The most client requests per second.
pub const CLIENT_RATE_MAX: u32 = 10_000;

/// What a preset sets (before a scenario's explicit keys): the election timeout's range, and
/// where it departs from Ratis' defaults ([`RaftParams::default`]; `None`: the default stands).
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub name: &'static str,
    /// `timeout_min`, `timeout_max`: the election timeout's range.
    pub timeout_min: Micros,
    pub timeout_max: Micros,
    /// `slowness_timeout` and `no_leader_timeout` (one value for both).
    pub notify: Option<Micros>,
    pub request_timeout: Option<Micros>,
    pub client_timeout: Option<Micros>,
    pub pending_limit: Option<u32>,
    pub append_batch: Option<u32>,
}

impl Preset {
    /// Ratis' defaults for everything but the election timeouts.
    const fn elections(name: &'static str, timeout_min: Micros, timeout_max: Micros) -> Preset {
        Preset {
            name,
            timeout_min,
            timeout_max,
            notify: None,
            request_timeout: None,
            client_timeout: None,
            pending_limit: None,
            append_batch: None,
        }
    }
}

/// The presets. `default` is Ratis' own defaults. `ozone` is a datanode's Ratis server as Ozone
/// configures it (apache/ozone `XceiverServerRatis.newRaftProperties` and
/// `DatanodeRatisServerConfig`, whose `hdds.ratis.raft.server.*` keys
/// `RatisHelper.createRaftServerProperties` copies onto Ratis' `raft.server.*`): the election
/// timeout `hdds.ratis.leader.election.minimum.timeout.duration` (5 s) to 200 ms more,
/// `rpc.request.timeout` 60 s, `rpc.slowness.timeout` and `notification.no-leader.timeout`
/// 300 s, `write.element-limit` 1024, `log.appender.buffer.element-limit` 1024
/// (`hdds.container.ratis.log.appender.queue.num-elements`); its client's
/// `hdds.ratis.raft.client.rpc.request.timeout` 60 s (`RatisClientConfig.RaftConfig`).
/// `teaching` slows Ratis' elections down to watch them.
pub const PRESETS: &[Preset] = &[
    Preset::elections("default", 150 * US_PER_MS, 300 * US_PER_MS),
    Preset {
        notify: Some(300 * US_PER_S),
        request_timeout: Some(60 * US_PER_S),
        client_timeout: Some(60 * US_PER_S),
        pending_limit: Some(1024),
        append_batch: Some(1024),
        ..Preset::elections("ozone", 5 * US_PER_S, 5200 * US_PER_MS)
    },
    Preset::elections("teaching", 1500 * US_PER_MS, 3 * US_PER_S),
];

/// The preset named `name`, if any.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

use crate::time::Micros;

impl RaftParams {
    /// Parse `[params]`: the preset first, then the explicit keys over it.
    pub fn from_table(t: toml::Table) -> Result<RaftParams, String> {
        let preset = match t.get("preset") {
            None => "default".to_string(),
            Some(toml::Value::String(s)) => s.clone(),
            Some(v) => {
                return Err(format!(
                "params.preset: {v} is not a string; use \"default\", \"ozone\" or \"teaching\""
            ))
            }
        };
        let Some(pr) = self::preset(&preset) else {
            return Err(format!(
                "params.preset: \"{preset}\" is unknown; use \"default\", \"ozone\" or \"teaching\""
            ));
        };
        let dur = |us: Micros| toml::Value::String(crate::time::fmt_duration(us));
        let count = |n: u32| toml::Value::Integer(n.into());
        let mut base = toml::Table::new();
        let set = [
            ("timeout_min", Some(dur(pr.timeout_min))),
            ("timeout_max", Some(dur(pr.timeout_max))),
            ("request_timeout", pr.request_timeout.map(dur)),
            ("client_timeout", pr.client_timeout.map(dur)),
            ("slowness_timeout", pr.notify.map(dur)),
            ("no_leader_timeout", pr.notify.map(dur)),
            ("pending_limit", pr.pending_limit.map(count)),
            ("append_batch", pr.append_batch.map(count)),
        ];
        for (key, v) in set {
            if let Some(v) = v {
                base.insert(key.into(), v);
            }
        }
        base.extend(t);
        let p: RaftParams = toml::Value::Table(base)
            .try_into()
            .map_err(|e: toml::de::Error| format!("params: {}", e.message()))?;
        p.validate()?;
        Ok(p)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.timeout_min.0 < TIMEOUT_MIN_US {
            return Err(
                "params.timeout_min must be at least 4us (heartbeats go every min/4)".into(),
            );
        }
        if self.timeout_max.0 < self.timeout_min.0 {
            return Err(format!(
                "params.timeout_max ({}) is below timeout_min ({}); make it at least as large",
                crate::time::fmt_duration(self.timeout_max.0),
                crate::time::fmt_duration(self.timeout_min.0)
            ));
        }
        if self.request_timeout.0 == 0 {
            return Err("params.request_timeout must be > 0".into());
        }
        if self.client_timeout.0 == 0 {
            return Err("params.client_timeout must be > 0".into());
        }
        if self.max_outstanding == 0 || self.max_outstanding > MAX_OUTSTANDING_MAX {
            return Err(format!(
                "params.max_outstanding {} must be between 1 and {MAX_OUTSTANDING_MAX}",
                self.max_outstanding
            ));
        }
        if self.append_batch == 0 || self.append_batch > APPEND_BATCH_MAX {
            return Err(format!(
                "params.append_batch {} must be between 1 and {APPEND_BATCH_MAX}",
                self.append_batch
            ));
        }
        if self.pending_limit == 0 {
            return Err("params.pending_limit must be > 0".into());
        }
        if self.client_rate > CLIENT_RATE_MAX {
            return Err(format!(
                "params.client_rate {} must be at most {CLIENT_RATE_MAX} requests/s",
                self.client_rate
            ));
        }
        if self.read_timeout.0 == 0 {
            return Err("params.read_timeout must be > 0".into());
        }
        if self.client_retry.0 == 0 {
            return Err("params.client_retry must be > 0".into());
        }
        if self.slowness_timeout.0 == 0 {
            return Err("params.slowness_timeout must be > 0".into());
        }
        if self.no_leader_timeout.0 == 0 {
            return Err("params.no_leader_timeout must be > 0".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_errors() {
        let p = RaftParams::from_table(toml::Table::new()).unwrap();
        assert_eq!(p, RaftParams::default());
        let t: toml::Table = toml::from_str("preset = \"ozone\"").unwrap();
        let p = RaftParams::from_table(t).unwrap();
        assert_eq!(
            (p.timeout_min.0, p.timeout_max.0),
            (5 * US_PER_S, 5200 * US_PER_MS)
        );
        // What Ozone's datanodes set besides the elections (DatanodeRatisServerConfig,
        // RatisClientConfig): 60 s request and client timeouts, 300 s notifications, 1024
        // pending requests and entries per AppendEntries; Ratis' own are 3 s, 3 s, 60 s, 4096
        // and (here) 64.
        let d = RaftParams::default();
        let key = |p: &RaftParams| {
            (
                p.request_timeout.0,
                p.client_timeout.0,
                p.slowness_timeout.0,
                p.no_leader_timeout.0,
                p.pending_limit,
            )
        };
        assert_eq!(
            key(&p),
            (
                60 * US_PER_S,
                60 * US_PER_S,
                300 * US_PER_S,
                300 * US_PER_S,
                1024
            )
        );
        assert_eq!(
            key(&d),
            (
                3 * US_PER_S,
                3 * US_PER_S,
                60 * US_PER_S,
                60 * US_PER_S,
                4096
            )
        );
        let t: toml::Table =
            toml::from_str("preset = \"ozone\"\npending_limit = 3\nclient_timeout = \"5s\"")
                .unwrap();
        let x = RaftParams::from_table(t).unwrap();
        assert_eq!((x.pending_limit, x.client_timeout.0), (3, 5 * US_PER_S));
        let t: toml::Table = toml::from_str("client_timeout = \"0s\"").unwrap();
        assert!(RaftParams::from_table(t)
            .unwrap_err()
            .contains("client_timeout"));
        let t: toml::Table = toml::from_str("preset = \"ozone\"\ntimeout_max = \"6s\"").unwrap();
        assert_eq!(
            RaftParams::from_table(t).unwrap().timeout_max.0,
            6 * US_PER_S
        );
        let t: toml::Table = toml::from_str("preset = \"fast\"").unwrap();
        assert!(RaftParams::from_table(t).unwrap_err().contains("preset"));
        let t: toml::Table =
            toml::from_str("timeout_min = \"1s\"\ntimeout_max = \"500ms\"").unwrap();
        assert!(RaftParams::from_table(t)
            .unwrap_err()
            .contains("timeout_max"));
        let t: toml::Table = toml::from_str("pre_vot = true").unwrap();
        assert!(RaftParams::from_table(t).unwrap_err().contains("pre_vot"));
        let t: toml::Table = toml::from_str("commit_rule = \"count-replicas\"").unwrap();
        assert_eq!(
            RaftParams::from_table(t).unwrap().commit_rule,
            CommitRule::CountReplicas
        );
    }
}
