//! The gossip model's messages, tasks and timers: the verbs on the wire (`Verb`, `GMsg`), the
//! GossipStage's and MutationStage's tasks and the node's timers.

use super::*;

/// The verbs on the wire.
#[derive(Clone, Debug, PartialEq)]
pub enum Verb {
    /// The digests are shared by the SYNs of one round (up to three targets).
    Syn(Arc<[Digest]>),
    Ack {
        requests: Vec<Digest>,
        sends: Deltas,
    },
    Ack2(Deltas),
    EchoReq {
        id: u64,
    },
    EchoRsp {
        id: u64,
    },
    Shutdown,
    /// A client write's replica mutation (connection model only).
    Mutation {
        id: u64,
        bytes: u32,
    },
    MutationRsp {
        id: u64,
    },
    /// Transport control: a segment (or connect) was accepted.
    TcpAck,
    /// Transport control: the connection was refused or reset.
    TcpRst,
}

impl Verb {
    /// Heap bytes the verb owns (digest lists and state deltas; a SYN's digests are shared by
    /// the round's targets and counted for each, an overestimate).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Verb::Syn(d) => d.len() * std::mem::size_of::<Digest>(),
            Verb::Ack { requests, sends } => {
                requests.capacity() * std::mem::size_of::<Digest>() + sends.heap_bytes()
            }
            Verb::Ack2(d) => d.heap_bytes(),
            _ => 0,
        }
    }

    /// The verb's name in traces, timelines and GossipStage task labels.
    pub fn label(&self) -> &'static str {
        match self {
            Verb::Syn(_) => "SYN",
            Verb::Ack { .. } => "ACK",
            Verb::Ack2(_) => "ACK2",
            Verb::EchoReq { .. } => "ECHO_REQ",
            Verb::EchoRsp { .. } => "ECHO_RSP",
            Verb::Shutdown => "GOSSIP_SHUTDOWN",
            Verb::Mutation { .. } => "MUTATION",
            Verb::MutationRsp { .. } => "MUTATION_RSP",
            Verb::TcpAck => "TCP_ACK",
            Verb::TcpRst => "TCP_RST",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct GMsg {
    pub created_at: Micros,
    /// The sender's verb timeout decides when the receiver drops it unprocessed.
    pub expires_at: Micros,
    pub verb: Verb,
    /// Connection model: the channel, the connection id (0: direct delivery) and whether the
    /// segment opens the connection.
    pub chan: Chan,
    pub conn: u64,
    pub connect: bool,
}

/// Work on the GossipStage.
#[derive(Clone, Debug)]
pub enum Task {
    /// A message handed to its verb handler.
    Handle {
        from: NodeId,
        created_at: Micros,
        verb: Verb,
    },
    /// `runInGossipStageBlocking` from an echo response callback.
    EchoOk { peer: NodeId, obj: u64 },
    /// The fixed variant's `onFailure`: two-argument remove.
    EchoFailed { peer: NodeId, obj: u64 },
    /// Subscribers' work for a major state change (StorageService onJoin/onChange: token
    /// metadata, pending ranges). Modelled as its own GossipStage task after the exchange that
    /// brought the state, so the node's own state escapes first (see docs/MODEL.md).
    Subscribers { ep: NodeId },
    /// A replica applies a mutation and answers (MutationStage).
    Apply { from: NodeId, id: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GTimer {
    Round,
    EchoExpire(u64),
    ShutdownDone,
    ConnectTimeout {
        peer: NodeId,
        chan: Chan,
        id: u64,
    },
    Retransmit {
        peer: NodeId,
        chan: Chan,
        id: u64,
    },
    ClientWrite,
    /// A routed write's mutations leave the coordinator (after its processing time).
    Dispatch(u64),
    WriteTimeout(u64),
}
