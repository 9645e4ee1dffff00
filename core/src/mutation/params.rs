//! Parameters of the mutation-tracking model, with Cassandra's defaults, and one toggle per fix
//! of CASSANDRA-21181.

use crate::engine::action::Dur;
use crate::time::{US_PER_MS, US_PER_S};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MtParams {
    /// Replicas of the one shard: the first `rf` nodes (every node when 0).
    pub rf: u32,
    /// Bug 1 fix: `Keyspace.applyInternalTracked` calls `notifyIncomingMutationListeners` when
    /// `startWriting` returns false (a duplicate).
    pub fix_duplicate_notify: bool,
    /// Bug 2 fix, first version: `pull()` returns how many ids it registered as the *first*
    /// listener and `acceptRemoteSummary` adds that instead of `missingMutations.idCount()`.
    pub fix_count: bool,
    /// Bug 4 fix (the final form of the bug-2 fix): `pull()` counts every callback it registered,
    /// first listener or not. Refines `fix_count`.
    pub fix_count_final: bool,
    /// Bug 3 fix: `collectLocallyMissingMutations` iterates `MutationSummary.allOffsets()`
    /// (reconciled and unreconciled) instead of `onlyUnreconciled()`.
    pub fix_collect_all_offsets: bool,
    /// write_request_timeout: a MUTATION_REQ's or PUSH_MUTATION_REQ's callback without a
    /// response by then fails, and its node gets a PUSH_MUTATION_REQ (ActiveLogReconciler);
    /// IncomingMutations listeners expire after it.
    pub write_timeout: Dur,
    /// Retry a write whose callback failed with PUSH_MUTATION_REQ (`retryFailedWrite`); off: the
    /// callback just expires.
    pub write_retry: bool,
    /// read_request_timeout and range_request_timeout: a ReadReconciliations.Coordinator
    /// expires after the larger of the two.
    pub read_timeout: Dur,
    pub range_timeout: Dur,
    /// Period of BROADCAST_LOG_OFFSETS (each node's witnessed offsets to every peer); "0s" = off.
    pub broadcast_interval: Dur,
    /// The failure detector (`FailureDetector.isAlive`, gossip's liveness, which
    /// `ReadReconciliations.pull` asks): a peer is down once nothing has been heard from it for
    /// this long (phi 8 at 1 s gossip: 8 x ln 10 = 18.4 s). The model has no gossip: what a node
    /// receives from a peer, BROADCAST_LOG_OFFSETS every `broadcast_interval` above all, stands
    /// in for its heartbeats. "0s", or broadcasts off: every peer is always alive.
    pub convict_after: Dur,
    /// Period of the ExpiredStatePurger (expires listeners and read coordinators).
    pub purge_interval: Dur,
    /// Service time of one ReadStage / MutationStage task.
    pub task_us: Dur,
    /// Random load (for sweeps): each replica issues a random operation every `load_interval`
    /// on average (uniform in [interval/2, 3*interval/2]); "0s" = no random load.
    pub load_interval: Dur,
    /// Random load stops after this time, so the last reads can finish before the end.
    pub load_for: Dur,
    /// Share of random operations that are tracked reads (data node: this node; one or two
    /// random summary nodes); the rest are tracked writes.
    pub load_read_share: f64,
    /// Probability that a MUTATION_REQ or PUSH_MUTATION_REQ is sent twice (a duplicate on the
    /// wire, as a retry racing its original would give).
    pub duplicate: f64,
}

impl Default for MtParams {
    fn default() -> Self {
        MtParams {
            rf: 3,
            fix_duplicate_notify: true,
            fix_count: true,
            fix_count_final: true,
            fix_collect_all_offsets: true,
            write_timeout: Dur(2 * US_PER_S),
            write_retry: true,
            read_timeout: Dur(5 * US_PER_S),
            range_timeout: Dur(10 * US_PER_S),
            broadcast_interval: Dur(US_PER_S),
            convict_after: Dur(18_400 * US_PER_MS),
            purge_interval: Dur(US_PER_S),
            task_us: Dur(100),
            load_interval: Dur(0),
            load_for: Dur(0),
            load_read_share: 0.3,
            duplicate: 0.0,
        }
    }
}

/// How `acceptRemoteSummary` counts the mutations it waits for.
/// The shortest BROADCAST_LOG_OFFSETS period (when on).
pub const BROADCAST_MIN_US: u64 = 10 * US_PER_MS;
/// The shortest failure-detector conviction time (when on).
pub const CONVICT_MIN_US: u64 = US_PER_S;
/// The shortest ExpiredStatePurger period.
pub const PURGE_MIN_US: u64 = 10 * US_PER_MS;
/// The shortest random-load interval (when on).
pub const LOAD_INTERVAL_MIN_US: u64 = US_PER_MS;
/// The longest task service time.
pub const TASK_MAX_US: u64 = US_PER_S;
/// The most nodes the model takes.
pub const MAX_NODES: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountMode {
    /// Pre-patch: `missingMutations.idCount()`.
    MissingCount,
    /// First version of the bug-2 fix: first-listener registrations only.
    FirstListener,
    /// Final fix: every registered callback.
    Callbacks,
}

impl MtParams {
    pub fn from_table(t: toml::Table) -> Result<Self, String> {
        let p: MtParams = toml::Value::Table(t)
            .try_into()
            .map_err(|e: toml::de::Error| format!("[params]: {}", e.message()))?;
        p.validate()?;
        Ok(p)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.fix_count_final && !self.fix_count {
            return Err("[params] fix_count_final refines fix_count (it counts every callback \
                        pull() registers); set fix_count = true as well, or fix_count_final = false"
                .into());
        }
        for (name, d) in [
            ("write_timeout", self.write_timeout),
            ("read_timeout", self.read_timeout),
            ("range_timeout", self.range_timeout),
            ("purge_interval", self.purge_interval),
        ] {
            if d.0 == 0 {
                return Err(format!("[params] {name} must be positive, e.g. \"2s\""));
            }
        }
        if self.broadcast_interval.0 != 0 && self.broadcast_interval.0 < BROADCAST_MIN_US {
            return Err(
                "[params] broadcast_interval must be \"0s\" (off) or at least \"10ms\"".into(),
            );
        }
        if self.convict_after.0 != 0 && self.convict_after.0 < CONVICT_MIN_US {
            return Err("[params] convict_after must be \"0s\" (off) or at least \"1s\"".into());
        }
        if self.convict_after.0 != 0 && self.convict_after.0 < self.broadcast_interval.0 {
            return Err(format!(
                "[params] convict_after ({}) is shorter than broadcast_interval ({}): every peer \
                 would be convicted between two broadcasts; use at least the broadcast period \
                 (Cassandra: 18.4s at 1s gossip), or \"0s\" (off)",
                crate::time::fmt_duration(self.convict_after.0),
                crate::time::fmt_duration(self.broadcast_interval.0)
            ));
        }
        if self.purge_interval.0 < PURGE_MIN_US {
            return Err("[params] purge_interval must be at least \"10ms\"".into());
        }
        if self.load_interval.0 != 0 && self.load_interval.0 < LOAD_INTERVAL_MIN_US {
            return Err("[params] load_interval must be \"0s\" (off) or at least \"1ms\"".into());
        }
        for (name, x) in [
            ("load_read_share", self.load_read_share),
            ("duplicate", self.duplicate),
        ] {
            if !(0.0..=1.0).contains(&x) {
                return Err(format!("[params] {name} = {x}: use a probability in 0..=1"));
            }
        }
        if self.task_us.0 > TASK_MAX_US {
            return Err("[params] task_us must be at most \"1s\"".into());
        }
        Ok(())
    }

    /// Validate against the cluster size.
    pub fn check_nodes(&self, n: u32) -> Result<(), String> {
        if self.rf == 1 || self.rf > n {
            return Err(format!(
                "[params] rf = {} but the cluster has {n} nodes; use 2..={n} (or 0 for every node)",
                self.rf
            ));
        }
        if n > MAX_NODES {
            return Err(format!(
                "[cluster] {n} nodes: the mutation-tracking model takes at most 64"
            ));
        }
        Ok(())
    }

    pub fn count_mode(&self) -> CountMode {
        match (self.fix_count, self.fix_count_final) {
            (false, _) => CountMode::MissingCount,
            (true, false) => CountMode::FirstListener,
            (true, true) => CountMode::Callbacks,
        }
    }

    /// About how many trace records a second of virtual time makes (`Model::records_per_sec`),
    /// and why, for `nodes` nodes of which `rf` are replicas. While the random load runs, each
    /// replica issues an operation every `load_interval`: a write takes ~8 records at the
    /// coordinator and ~12 per other replica (MUTATION_REQ, two MutationStage steps, their log
    /// lines, MUTATION_RSP); a read with k summary nodes ~10 plus ~10 per summary exchanged
    /// between its k + 1 nodes, k(k + 1) of them (k is 1, or every other replica, half the
    /// time each: random load reads grow with rf squared). Broadcasts: 2 per peer and interval;
    /// timers: 2 per node and second. Measured on sandbox-mutation-tracking (rf 3, load 10 ms,
    /// reads 40%): ~38 records per operation; this gives 39. The load's rate is counted for the
    /// whole run (it stops at `load_for`), so the estimate is high when `load_for` is shorter.
    pub fn records_per_sec(&self, nodes: u32, rf: u32) -> (f64, String) {
        let (n, rf) = (nodes as f64, rf as f64);
        let per_s = |d: Dur| US_PER_S as f64 / d.0 as f64;
        let mut rate = 2.0 * n;
        let mut why = format!("{nodes} nodes");
        if self.broadcast_interval.0 > 0 {
            rate += 2.0 * rf * (rf - 1.0) * per_s(self.broadcast_interval);
        }
        if self.load_interval.0 > 0 {
            let ops = rf * per_s(self.load_interval);
            // k(k + 1) summaries exchanged, k = 1 or rf - 1 with even odds
            let exchanged = 0.5 * 2.0 + 0.5 * (rf - 1.0) * rf;
            let read = 10.0 + 10.0 * exchanged;
            let write = 8.0 + 12.0 * (rf - 1.0);
            let share = self.load_read_share;
            rate += ops * (share * read + (1.0 - share) * write);
            why = format!(
                "{rf} replicas x {} operations/s of random load (load_interval {}; {:.0}% reads)",
                per_s(self.load_interval).round(),
                crate::time::fmt_duration(self.load_interval.0),
                share * 100.0
            );
        }
        (rate, why)
    }

    /// The read coordinator's expiry (`max(read, range)` as in `ReadReconciliations.Coordinator`).
    pub fn read_expiry(&self) -> u64 {
        self.read_timeout.0.max(self.range_timeout.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_fixed_and_valid() {
        let p = MtParams::default();
        p.validate().unwrap();
        assert_eq!(p.count_mode(), CountMode::Callbacks);
        assert_eq!(p.read_expiry(), 10 * US_PER_S);
    }

    #[test]
    fn bad_params_are_refused_with_the_fix() {
        let t: toml::Table = toml::from_str("fix_count = false").unwrap();
        let e = MtParams::from_table(t).unwrap_err();
        assert!(e.contains("fix_count_final refines fix_count"), "{e}");
        let t: toml::Table = toml::from_str("fix_cout = false").unwrap();
        let e = MtParams::from_table(t).unwrap_err();
        assert!(e.contains("fix_cout"), "{e}");
        let t: toml::Table = toml::from_str("write_timeout = 5").unwrap();
        let e = MtParams::from_table(t).unwrap_err();
        assert!(e.contains("no unit"), "{e}");
        assert!(MtParams::default().check_nodes(2).is_err());
        assert!(MtParams::default().check_nodes(3).is_ok());
    }
}
