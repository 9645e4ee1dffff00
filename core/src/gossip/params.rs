//! Every constant of the gossip model is a parameter with Cassandra's default.

use crate::engine::action::Dur;
use crate::time::{US_PER_MS, US_PER_S};
use serde::{Deserialize, Serialize};

/// Which `Gossiper.markAlive` to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EchoVariant {
    /// 4.1.5 and earlier: a fresh ECHO_REQ on every markAlive call (the CASSANDRA-6590 heal loop).
    Legacy,
    /// 5.0.8 (CASSANDRA-18866): dedup by EndpointState identity; the entry is removed only on
    /// success, markDead or a generation change.
    Buggy,
    /// The CASSANDRA-21636 fix: dedup kept, entry removed (two-argument remove) on echo failure.
    Fixed,
}

/// The messaging generation: which channels carry which verbs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MessagingVersion {
    /// 3.x: small, large, gossip; echo replies (REQUEST_RESPONSE) travel on `small`.
    #[serde(rename = "3.x")]
    V3,
    /// 4.0+: urgent, small, large; all gossip verbs including echo replies on `urgent`.
    #[serde(rename = "4.0")]
    V4,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GossipParams {
    /// markAlive variant: legacy | buggy | fixed.
    pub echo: EchoVariant,
    pub gossip_interval: Dur,
    /// request_timeout: ECHO_REQ, ECHO_RSP, GOSSIP_SHUTDOWN expire after it.
    pub request_timeout: Dur,
    /// SYN/ACK/ACK2 use longTimeout = max(request_timeout, 5 min).
    pub long_timeout: Dur,
    pub phi_convict_threshold: f64,
    /// Failure-detector sample window (intervals kept per peer).
    pub fd_window: u32,
    pub fd_initial_interval: Dur,
    /// Intervals longer than this are not samples (Cassandra: the initial value).
    pub fd_max_interval: Dur,
    pub max_local_pause: Dur,
    pub shutdown_announce_delay: Dur,
    pub quarantine_delay: Dur,
    /// GossipStage time to handle any message.
    pub stage_msg_cost: Dur,
    /// Extra time per application state applied (same generation).
    pub apply_state_cost: Dur,
    /// Time to apply one endpoint's whole state on a major change (new generation or unknown
    /// endpoint): token metadata and pending ranges. Grows with tokens x keyspaces x cluster size;
    /// a restarting node in a big cluster applies all peers at once: that is its backlog.
    pub major_state_cost: Dur,
    /// Shuffle SYN digests (Cassandra does); the teaching scenario turns it off to match the notes.
    pub shuffle_digests: bool,
    /// Start the periodic gossip task at startup (the teaching scenario sends one SYN by hand).
    pub gossip_task: bool,
    /// First generation number (seconds since the epoch at virtual time zero).
    pub generation_base: u32,
    pub num_tokens: u32,
    pub messaging: MessagingVersion,
    /// Model internode connections (channels, lazy connect, half-open); off: direct delivery.
    pub connections: bool,
    /// 3.x: a write nobody acknowledges is retransmitted until tcp_retries2 gives up (~15-30 min).
    pub tcp_retransmit_timeout: Dur,
    /// 4.0: internode_tcp_user_timeout bounds a half-open connection.
    pub tcp_user_timeout: Dur,
    pub connect_timeout: Dur,
    /// Payloads above this go on the `large` channel.
    pub large_message_threshold: u32,
    /// Client writes per second coordinated by `client_coordinator` (0: no client load).
    pub client_rate: f64,
    /// The node clients talk to (a node name; empty: the first node).
    pub client_coordinator: String,
    /// Time between routing a write (the liveness check) and sending its mutations; drawn
    /// uniformly from [0, client_delay] per write.
    pub client_delay: Dur,
    pub mutation_bytes: u32,
    pub write_timeout: Dur,
    /// CASSANDRA-15138 fix on the sender: no normal messages to a node marked down/shutdown.
    pub fix_sender: bool,
    /// CASSANDRA-15138 fix on the stopping node: close non-gossip connections before announcing.
    pub fix_shutdown: bool,
}

impl Default for GossipParams {
    fn default() -> Self {
        GossipParams {
            echo: EchoVariant::Fixed,
            gossip_interval: Dur(US_PER_S),
            request_timeout: Dur(10 * US_PER_S),
            long_timeout: Dur(300 * US_PER_S),
            phi_convict_threshold: 8.0,
            fd_window: 1000,
            fd_initial_interval: Dur(2 * US_PER_S),
            fd_max_interval: Dur(2 * US_PER_S),
            max_local_pause: Dur(5 * US_PER_S),
            shutdown_announce_delay: Dur(2 * US_PER_S),
            quarantine_delay: Dur(60 * US_PER_S),
            stage_msg_cost: Dur(100),
            apply_state_cost: Dur(20),
            major_state_cost: Dur(2 * US_PER_MS),
            shuffle_digests: true,
            gossip_task: true,
            generation_base: 1_700_000_000,
            num_tokens: 16,
            messaging: MessagingVersion::V4,
            connections: false,
            tcp_retransmit_timeout: Dur(20 * 60 * US_PER_S),
            tcp_user_timeout: Dur(30 * US_PER_S),
            connect_timeout: Dur(2 * US_PER_S),
            large_message_threshold: 64 * 1024,
            client_rate: 0.0,
            client_coordinator: String::new(),
            client_delay: Dur(5 * US_PER_MS),
            mutation_bytes: 1024,
            write_timeout: Dur(2 * US_PER_S),
            fix_sender: false,
            fix_shutdown: false,
        }
    }
}

/// serde's reading of the parameters: its derive, the words of every refusal.
fn serde_params(t: toml::Table) -> Result<GossipParams, String> {
    toml::Value::Table(t)
        .try_into()
        .map_err(|e: toml::de::Error| format!("params: {}", e.message()))
}

/// serde's reading called directly: every build but the web app's split release build.
#[cfg(not(cs_split))]
mod by_serde {
    pub fn params(t: toml::Table) -> Result<super::GossipParams, String> {
        super::serde_params(t)
    }
}

/// serde's reading behind a split point of the scenario reader's part (`reader`): polled as a
/// model's is (`crate::lazy`); while the part is not loaded, an error and the reader wanted.
#[cfg(cs_split)]
mod by_serde {
    use super::GossipParams;

    crate::lazy::reader_fn!(pub fn params -> GossipParams = super::serde_params, via params_serde,
        else format!("params: {}", crate::lazy::READER_NOT_LOADED));
}

/// The shortest gossip round accepted (1 ms): shorter ones multiply the events of a run.
pub const MIN_GOSSIP_INTERVAL_US: u64 = 1_000;

/// The most failure-detector samples kept per peer.
pub const FD_WINDOW_MAX: u32 = 10_000;
/// The most client writes per second.
pub const CLIENT_RATE_MAX: f64 = 10_000.0;

/// Leaves room for a century of restarts below i32::MAX (Cassandra stores generations as int).
pub const MAX_GENERATION_BASE: u32 = 2_000_000_000;

impl GossipParams {
    /// The merged `[params]` table, parsed and validated: read by hand ([`GossipParams::typed`])
    /// when every key is a parameter and every value of its type, else by serde (its derive:
    /// the words of a refusal; in the web app's split release build in the scenario reader's
    /// part, `crate::lazy`).
    pub fn from_table(t: toml::Table) -> Result<GossipParams, String> {
        let p = match GossipParams::typed(&t) {
            Some(p) => p,
            None => by_serde::params(t)?,
        };
        p.validate()?;
        Ok(p)
    }

    /// The table as serde's derive reads it (`deny_unknown_fields`, a missing key its default)
    /// when it takes it as it is; `None` for a key or a value serde would refuse or read
    /// otherwise (`params_typed_like_serde`).
    pub fn typed(t: &toml::Table) -> Option<GossipParams> {
        use crate::typed::{bool_, dur, float, string, u32_};
        let mut p = GossipParams::default();
        for (k, v) in t {
            match k.as_str() {
                "echo" => {
                    p.echo = match v.as_str()? {
                        "legacy" => EchoVariant::Legacy,
                        "buggy" => EchoVariant::Buggy,
                        "fixed" => EchoVariant::Fixed,
                        _ => return None,
                    }
                }
                "gossip_interval" => p.gossip_interval = Dur(dur(v)?),
                "request_timeout" => p.request_timeout = Dur(dur(v)?),
                "long_timeout" => p.long_timeout = Dur(dur(v)?),
                "phi_convict_threshold" => p.phi_convict_threshold = float(v)?,
                "fd_window" => p.fd_window = u32_(v)?,
                "fd_initial_interval" => p.fd_initial_interval = Dur(dur(v)?),
                "fd_max_interval" => p.fd_max_interval = Dur(dur(v)?),
                "max_local_pause" => p.max_local_pause = Dur(dur(v)?),
                "shutdown_announce_delay" => p.shutdown_announce_delay = Dur(dur(v)?),
                "quarantine_delay" => p.quarantine_delay = Dur(dur(v)?),
                "stage_msg_cost" => p.stage_msg_cost = Dur(dur(v)?),
                "apply_state_cost" => p.apply_state_cost = Dur(dur(v)?),
                "major_state_cost" => p.major_state_cost = Dur(dur(v)?),
                "shuffle_digests" => p.shuffle_digests = bool_(v)?,
                "gossip_task" => p.gossip_task = bool_(v)?,
                "generation_base" => p.generation_base = u32_(v)?,
                "num_tokens" => p.num_tokens = u32_(v)?,
                "messaging" => {
                    p.messaging = match v.as_str()? {
                        "3.x" => MessagingVersion::V3,
                        "4.0" => MessagingVersion::V4,
                        _ => return None,
                    }
                }
                "connections" => p.connections = bool_(v)?,
                "tcp_retransmit_timeout" => p.tcp_retransmit_timeout = Dur(dur(v)?),
                "tcp_user_timeout" => p.tcp_user_timeout = Dur(dur(v)?),
                "connect_timeout" => p.connect_timeout = Dur(dur(v)?),
                "large_message_threshold" => p.large_message_threshold = u32_(v)?,
                "client_rate" => p.client_rate = float(v)?,
                "client_coordinator" => p.client_coordinator = string(v)?,
                "client_delay" => p.client_delay = Dur(dur(v)?),
                "mutation_bytes" => p.mutation_bytes = u32_(v)?,
                "write_timeout" => p.write_timeout = Dur(dur(v)?),
                "fix_sender" => p.fix_sender = bool_(v)?,
                "fix_shutdown" => p.fix_shutdown = bool_(v)?,
                _ => return None,
            }
        }
        Some(p)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.gossip_interval.0 < MIN_GOSSIP_INTERVAL_US {
            return Err(format!(
                "gossip_interval {} is too short: every node starts a round per interval (each \
                 round a SYN/ACK/ACK2 exchange), so microseconds make millions of events per \
                 simulated second; use at least 1ms (Cassandra: 1s)",
                crate::time::fmt_duration(self.gossip_interval.0)
            ));
        }
        if !(self.phi_convict_threshold.is_finite() && self.phi_convict_threshold > 0.0) {
            return Err(format!(
                "phi_convict_threshold {} must be a positive number",
                self.phi_convict_threshold
            ));
        }
        if self.fd_window == 0 || self.fd_window > FD_WINDOW_MAX {
            return Err(format!(
                "fd_window {} must be between 1 and {FD_WINDOW_MAX}",
                self.fd_window
            ));
        }
        if !(self.client_rate.is_finite() && (0.0..=CLIENT_RATE_MAX).contains(&self.client_rate)) {
            return Err(format!(
                "client_rate {} must be between 0 and {CLIENT_RATE_MAX} writes/s",
                self.client_rate
            ));
        }
        if self.generation_base > MAX_GENERATION_BASE {
            return Err(format!(
                "generation_base {} is too large; Cassandra generations are seconds since the epoch, use at most {MAX_GENERATION_BASE}",
                self.generation_base
            ));
        }
        if self.request_timeout.0 == 0 {
            return Err("request_timeout must be > 0".into());
        }
        Ok(())
    }
}
