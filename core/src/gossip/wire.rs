//! The gossip model's messages, tasks and timers: the verbs on the wire (`Verb`, `GMsg`), the
//! GossipStage's and MutationStage's tasks and the node's timers.

use super::*;

/// The verbs on the wire.
#[derive(Clone, Debug, PartialEq)]
pub enum Verb {
    /// The digests are shared by the SYNs of one round (up to three targets).
    Syn(Syn),
    Ack {
        /// In endpoint order (Cassandra's list follows the SYN's order: see `wire_order`).
        requests: Vec<Digest>,
        /// In endpoint order (a map in Cassandra).
        sends: Deltas,
        /// The SYN this answers, for the list's order on the wire.
        syn: Syn,
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
    /// the round's targets and the ACKs that answer them, and counted for each: an
    /// overestimate).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Verb::Syn(d) => d.heap_bytes(),
            // The SYN it answers is kept alive by it: counted again, like a round's SYNs.
            Verb::Ack {
                requests,
                sends,
                syn,
                ..
            } => {
                requests.capacity() * std::mem::size_of::<Digest>()
                    + sends.heap_bytes()
                    + syn.heap_bytes()
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

/// A SYN's digests (`makeRandomGossipDigest`): one per known endpoint, held in endpoint order,
/// which is how the receiver compares them with its own and the order in which everything they
/// lead to is applied (see [`Syn::wire_order`]).
///
/// Cassandra shuffles the list before sending it. Which order the receiver walks it in changes
/// nothing it does: `examineGossiper` fills a list and a `HashMap`, the list only names what to put
/// in the ACK2's `HashMap`, and `applyStateLocally` sorts whatever map it gets (by generation,
/// then address). So the model draws the shuffle (the node's generator moves on exactly as
/// if it had shuffled) but keeps a copy of the generator from before the draws instead of the
/// shuffled list, and makes the wire order again only when a message is shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Syn {
    pub digests: Digests,
    /// The generator as it was before the shuffle's draws; `None`: not shuffled.
    shuffle: Option<Arc<crate::rng::SimRng>>,
}

impl Syn {
    /// Digests that go out in endpoint order (`shuffle_digests = false`).
    pub fn in_order(digests: Digests) -> Syn {
        Syn {
            digests,
            shuffle: None,
        }
    }

    /// Digests that go out shuffled: `rng` makes the draws a shuffle would.
    pub fn shuffled(digests: Digests, rng: &mut crate::rng::SimRng) -> Syn {
        let before = Arc::new(rng.clone());
        crate::rng::skip_shuffle(digests.len(), rng);
        Syn {
            digests,
            shuffle: Some(before),
        }
    }

    /// The digests in the order they have on the wire.
    pub fn wire_order(&self) -> Vec<Digest> {
        let mut d = self.digests.to_vec();
        if let Some(rng) = &self.shuffle {
            crate::rng::shuffle(&mut d, &mut (**rng).clone());
        }
        d
    }

    /// `list` (entries for some of this SYN's endpoints) in the SYN's wire order: how
    /// `examineGossiper` lists an ACK's requests.
    pub fn in_wire_order<T: Clone>(&self, list: &[T], ep: impl Fn(&T) -> NodeId) -> Vec<T> {
        let mut rank =
            vec![usize::MAX; self.digests.iter().last().map_or(0, |d| d.ep as usize + 1)];
        for (i, d) in self.wire_order().iter().enumerate() {
            rank[d.ep as usize] = i;
        }
        let mut out = list.to_vec();
        crate::small_sort::sort_by_key(&mut out, |x| {
            rank.get(ep(x) as usize).copied().unwrap_or(usize::MAX)
        });
        out
    }

    pub fn heap_bytes(&self) -> usize {
        self.digests.heap_bytes()
            + self
                .shuffle
                .as_ref()
                .map_or(0, |_| std::mem::size_of::<crate::rng::SimRng>())
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
    /// brought the state, so the node's own state escapes first (see docs/model/gossip.md).
    Subscribers { ep: NodeId },
    /// `Gossiper.convict`'s body through `runInGossipStageBlocking` (4.0+): the GossipTasks
    /// thread waits for it in the middle of its status check (see `status.rs`).
    Convict { ep: NodeId },
    /// A replica applies a mutation and answers (MutationStage).
    Apply { from: NodeId, id: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GTimer {
    Round,
    /// `doStatusCheck`'s 100 ms sleep before its second look at the GossipStage.
    SecondLook,
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
