//! Cassandra's internode messaging, as far as CASSANDRA-15138 needs it: per-peer outbound
//! connections per channel, lazy connect, inbound acceptance while not drained, pool resets, and
//! half-open connections that swallow writes until a kernel timeout closes them.
//!
//! A connection has two ends that can disagree: the sender's `OutConn` (its belief) and the
//! receiver's `inbound` entry (the reality). A segment on a connection the receiver no longer has
//! vanishes without a reset (the incident's environment); the sender notices only when no
//! acknowledgement came for `tcp_retransmit_timeout` (3.x, tcp_retries2) or `tcp_user_timeout`
//! (4.0). Delivered segments are acknowledged by a `TCP_ACK` control message.

use super::params::MessagingVersion;
use super::Verb;
use crate::time::Micros;
use serde::Serialize;

/// A connection type. 3.x: small, large, gossip. 4.0+: urgent, small, large.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Chan {
    Gossip,
    Urgent,
    Small,
    Large,
}

pub const CHANS: [Chan; 4] = [Chan::Gossip, Chan::Urgent, Chan::Small, Chan::Large];

impl Chan {
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Chan::Gossip => "gossip",
            Chan::Urgent => "urgent",
            Chan::Small => "small",
            Chan::Large => "large",
        }
    }
    /// Channels that carry gossip (closed last by the fixed shutdown).
    pub fn is_gossip(self) -> bool {
        matches!(self, Chan::Gossip | Chan::Urgent)
    }
    /// The channels a messaging version has.
    pub fn of_version(v: MessagingVersion) -> [Chan; 3] {
        match v {
            MessagingVersion::V3 => [Chan::Small, Chan::Large, Chan::Gossip],
            MessagingVersion::V4 => [Chan::Urgent, Chan::Small, Chan::Large],
        }
    }
}

/// Verb routing as in Cassandra: gossip verbs on the gossip (3.x) / urgent (4.0) channel;
/// REQUEST_RESPONSE — including the echo reply in 3.x — on small; mutations by size.
pub fn route(verb: &Verb, v: MessagingVersion, large_threshold: u32) -> Chan {
    let gossip = match v {
        MessagingVersion::V3 => Chan::Gossip,
        MessagingVersion::V4 => Chan::Urgent,
    };
    match verb {
        Verb::Syn(_) | Verb::Ack { .. } | Verb::Ack2(_) | Verb::EchoReq { .. } | Verb::Shutdown => {
            gossip
        }
        Verb::EchoRsp { .. } => match v {
            MessagingVersion::V3 => Chan::Small,
            MessagingVersion::V4 => Chan::Urgent,
        },
        Verb::Mutation { bytes, .. } => {
            if *bytes > large_threshold {
                Chan::Large
            } else {
                Chan::Small
            }
        }
        Verb::MutationRsp { .. } => Chan::Small,
        Verb::TcpAck | Verb::TcpRst => unreachable!("transport control is not routed"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum OutState {
    Closed,
    Connecting { id: u64, since: Micros },
    Established { id: u64, since: Micros },
}

impl OutState {
    pub fn id(&self) -> Option<u64> {
        match *self {
            OutState::Closed => None,
            OutState::Connecting { id, .. } | OutState::Established { id, .. } => Some(id),
        }
    }
    pub fn as_str(&self) -> &'static str {
        match self {
            OutState::Closed => "closed",
            OutState::Connecting { .. } => "connecting",
            OutState::Established { .. } => "established",
        }
    }
}

/// The sender's side of one connection.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OutConn {
    pub state: OutState,
    /// The oldest write not yet acknowledged (the kernel's retransmission clock).
    pub unacked_since: Option<Micros>,
}

impl Default for OutConn {
    fn default() -> Self {
        OutConn {
            state: OutState::Closed,
            unacked_since: None,
        }
    }
}

/// Per peer: outbound connections by channel, and what arrives from that peer.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PeerConns {
    pub out: [OutConn; 4],
    /// Inbound connection ids this node accepts from the peer, by channel.
    pub inbound: [Option<u64>; 4],
    /// Segments from the peer that arrived on a connection this node does not have (swallowed).
    pub swallowed: [u64; 4],
}

/// Client write statistics the coordinator keeps per replica.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WriteStats {
    pub sent: u64,
    pub acked: u64,
    pub timed_out: u64,
    pub hinted: u64,
}

/// Per node messaging state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Messaging {
    pub peers: Vec<PeerConns>,
    /// Accepting inbound connections (false once drained).
    pub accepting: bool,
    /// The fixed shutdown closes non-gossip connections before announcing.
    pub accepting_non_gossip: bool,
    pub next_conn: u64,
    pub writes: Vec<WriteStats>,
}

impl Messaging {
    /// `connections`: whether the connection model is on (off: no per-peer tables, which are the
    /// bulk of the memory in a 251-node cluster). `coordinator`: whether this node coordinates
    /// client writes (only then does it keep per-replica write statistics).
    pub fn new(n: usize, connections: bool, coordinator: bool) -> Self {
        Messaging {
            peers: vec![PeerConns::default(); if connections { n } else { 0 }],
            accepting: true,
            accepting_non_gossip: true,
            next_conn: 0,
            writes: vec![WriteStats::default(); if coordinator { n } else { 0 }],
        }
    }

    pub fn accepts(&self, chan: Chan) -> bool {
        self.accepting && (chan.is_gossip() || self.accepting_non_gossip)
    }

    /// Close every outbound connection to `peer` (`OutboundTcpConnectionPool.reset`).
    pub fn reset_pool(&mut self, peer: usize) {
        for c in &mut self.peers[peer].out {
            *c = OutConn::default();
        }
    }

    /// Drain: close everything, accept nothing (the far ends are not told: FIN goes unread).
    pub fn shutdown(&mut self) {
        self.accepting = false;
        for p in &mut self.peers {
            p.out = Default::default();
            p.inbound = [None; 4];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gossip::Syn;

    #[test]
    fn routing_by_verb_and_size() {
        use MessagingVersion::*;
        let t = 64 * 1024;
        assert_eq!(
            route(
                &Verb::Syn(Syn::in_order(crate::gossip::Digests::from_list(&[]))),
                V3,
                t
            ),
            Chan::Gossip
        );
        assert_eq!(route(&Verb::EchoReq { id: 1 }, V3, t), Chan::Gossip);
        // The 15138 detail: in 3.x the echo reply is a REQUEST_RESPONSE on `small`.
        assert_eq!(route(&Verb::EchoRsp { id: 1 }, V3, t), Chan::Small);
        assert_eq!(route(&Verb::EchoRsp { id: 1 }, V4, t), Chan::Urgent);
        assert_eq!(route(&Verb::Shutdown, V4, t), Chan::Urgent);
        assert_eq!(
            route(&Verb::Mutation { id: 1, bytes: 1000 }, V3, t),
            Chan::Small
        );
        assert_eq!(
            route(
                &Verb::Mutation {
                    id: 1,
                    bytes: 100_000
                },
                V3,
                t
            ),
            Chan::Large
        );
        assert_eq!(route(&Verb::MutationRsp { id: 1 }, V4, t), Chan::Small);
    }
}
