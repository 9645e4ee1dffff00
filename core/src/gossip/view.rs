//! What a person can observe of the gossip model: the same data feeds the CLI's JSON `views`, the
//! expectations of scenarios, and the web app's panels.

use super::{GNode, Gossip, GOSSIP_STAGE};
use crate::engine::{NodeId, NodeStatus, Sim};
use crate::time::Micros;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize)]
pub struct EpView {
    pub generation: u32,
    pub heartbeat: u32,
    pub max_version: u32,
    pub liveness: &'static str,
    pub states: Vec<(String, String, u32)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct InflightView {
    pub generation: u32,
    pub sent_at_us: Micros,
    pub age_us: Micros,
    /// The entry's object is still the current EndpointState and the peer is not alive: no
    /// markAlive will ever send another echo for this generation (the 21636 wedge).
    pub stuck: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct StageView {
    pub pending: u32,
    pub oldest_age_us: Option<Micros>,
    pub expired: u64,
    pub done: u64,
    pub stalled: bool,
    pub delay_us: Micros,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeView {
    pub status: &'static str,
    pub gossip_enabled: bool,
    pub generation: u32,
    pub heartbeat: u32,
    pub endpoint_states: BTreeMap<String, EpView>,
    pub inflight_echo: BTreeMap<String, InflightView>,
    pub phi: BTreeMap<String, f64>,
    pub gossip_stage: StageView,
    pub counters: super::Counters,
    /// Connection model only: every outbound connection with what each end believes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub connections: Vec<ConnView>,
    /// Client writes this node coordinated, per replica.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub writes: BTreeMap<String, super::messaging::WriteStats>,
}

/// One outbound connection: this side's state and the other side's reality.
#[derive(Clone, Debug, Serialize)]
pub struct ConnView {
    pub peer: String,
    pub channel: &'static str,
    /// closed / connecting / established (what this node believes).
    pub this_side: &'static str,
    /// open / closed / process down (what the peer actually has).
    pub other_side: &'static str,
    /// Writes on this connection the peer swallowed (half-open).
    pub swallowed: u64,
    pub unacked_for_us: Option<Micros>,
}

/// The connection table of node `id` (empty without the connection model).
pub fn connections(sim: &Sim<Gossip>, id: NodeId) -> Vec<ConnView> {
    if !sim.proto.p.connections {
        return Vec::new();
    }
    let n = &sim.nodes[id as usize].state;
    let mut out = Vec::new();
    for (peer, pc) in n.msg.peers.iter().enumerate() {
        if peer as NodeId == id {
            continue;
        }
        let other = &sim.nodes[peer];
        for chan in super::messaging::Chan::of_version(sim.proto.p.messaging) {
            let oc = &pc.out[chan.index()];
            let other_side = if other.status == NodeStatus::Stopped {
                "process down"
            } else if oc.state.id().is_some()
                && other.state.msg.peers[id as usize].inbound[chan.index()] == oc.state.id()
            {
                "open"
            } else {
                "closed"
            };
            out.push(ConnView {
                peer: sim.topo.name(peer as NodeId).to_string(),
                channel: chan.as_str(),
                this_side: oc.state.as_str(),
                other_side,
                swallowed: other.state.msg.peers[id as usize].swallowed[chan.index()],
                unacked_for_us: oc.unacked_since.map(|t| sim.now.saturating_sub(t)),
            });
        }
    }
    out
}

#[derive(Clone, Debug, Serialize)]
pub struct GossipViews {
    /// observer -> peer -> "UP" | "DOWN", for running observers.
    pub liveness: BTreeMap<String, BTreeMap<String, &'static str>>,
    pub nodes: BTreeMap<String, NodeView>,
    pub down_pairs: u32,
    pub down_observers: u32,
    pub down_targets: u32,
}

pub fn liveness_word(up: bool) -> &'static str {
    if up {
        "UP"
    } else {
        "DOWN"
    }
}

pub fn phi_of(sim: &Sim<Gossip>, node: &GNode, peer: NodeId) -> Option<f64> {
    node.fd.phi(peer as usize, sim.now)
}

pub fn inflight_stuck(node: &GNode, peer: NodeId) -> bool {
    node.inflight.get(&peer).is_some_and(|e| {
        node.map[peer as usize]
            .as_ref()
            .is_some_and(|s| s.obj == e.obj && !s.alive)
    })
}

/// (observer, peer) pairs, both running, where the observer sees the peer DOWN; in observer,
/// then peer order. From each node's `not_up` bits (`GNode::not_up_bits`): a few words a node
/// rather than every summary, since the plots and the matrix summary ask for it every frame.
pub fn down_pairs(sim: &Sim<Gossip>) -> Vec<(NodeId, NodeId)> {
    let mut running = vec![0u64; sim.nodes.len().div_ceil(64)];
    for (i, n) in sim.nodes.iter().enumerate() {
        if n.status == NodeStatus::Running {
            let (w, m) = super::bit(i);
            running[w] |= m;
        }
    }
    let mut out = Vec::new();
    for (o, slot) in sim.nodes.iter().enumerate() {
        if slot.status != NodeStatus::Running {
            continue;
        }
        for (w, &not_up) in slot.state.not_up_bits().iter().enumerate() {
            let mut bits = not_up & running.get(w).copied().unwrap_or(0);
            while bits != 0 {
                out.push((
                    o as NodeId,
                    (w * 64) as NodeId + bits.trailing_zeros() as NodeId,
                ));
                bits &= bits - 1;
            }
        }
    }
    out
}

pub fn node_view(sim: &Sim<Gossip>, id: NodeId) -> NodeView {
    let slot = &sim.nodes[id as usize];
    let n = &slot.state;
    let topo = &sim.topo;
    let st = &slot.exec_stats[GOSSIP_STAGE as usize];
    let mut endpoint_states = BTreeMap::new();
    let mut phi = BTreeMap::new();
    for (ep, s) in n.states().into_iter().enumerate() {
        let Some(s) = s else { continue };
        endpoint_states.insert(
            topo.name(ep as NodeId).to_string(),
            EpView {
                generation: s.hb.generation,
                heartbeat: s.hb.version,
                max_version: s.max_version(),
                liveness: liveness_word(ep as NodeId == id || s.alive),
                states: s
                    .states
                    .iter()
                    .map(|a| (a.key.to_string(), a.value.to_string(), a.version))
                    .collect(),
            },
        );
        if let Some(p) = phi_of(sim, n, ep as NodeId) {
            phi.insert(
                topo.name(ep as NodeId).to_string(),
                (p * 1000.0).round() / 1000.0,
            );
        }
    }
    let inflight_echo = crate::small_sort::map(n.inflight.iter().map(|(p, e)| {
        (
            topo.name(*p).to_string(),
            InflightView {
                generation: e.generation,
                sent_at_us: e.sent_at,
                age_us: sim.now.saturating_sub(e.sent_at),
                stuck: inflight_stuck(n, *p),
            },
        )
    }));
    NodeView {
        status: slot.status.as_str(),
        gossip_enabled: n.enabled && slot.status != NodeStatus::Stopped,
        generation: n.generation(),
        heartbeat: n.me().hb.version,
        endpoint_states,
        inflight_echo,
        phi,
        gossip_stage: StageView {
            pending: st.pending,
            oldest_age_us: st.oldest_enqueued_at.map(|t| sim.now.saturating_sub(t)),
            expired: st.expired,
            done: st.done,
            stalled: st.stalled,
            delay_us: st.delay_us,
        },
        counters: n.counters.clone(),
        connections: connections(sim, id),
        writes: crate::small_sort::map(
            n.msg
                .writes
                .iter()
                .enumerate()
                .filter(|(_, w)| w.sent + w.hinted > 0)
                .map(|(p, w)| (topo.name(p as NodeId).to_string(), w.clone())),
        ),
    }
}

pub fn views(sim: &Sim<Gossip>) -> GossipViews {
    let topo = &sim.topo;
    let mut liveness = BTreeMap::new();
    for (o, slot) in sim.nodes.iter().enumerate() {
        if slot.status != NodeStatus::Running {
            continue;
        }
        let row: BTreeMap<String, &'static str> =
            crate::small_sort::map((0..sim.nodes.len()).filter(|p| *p != o).map(|p| {
                (
                    topo.name(p as NodeId).to_string(),
                    liveness_word(slot.state.sees_up(p as NodeId)),
                )
            }));
        liveness.insert(topo.name(o as NodeId).to_string(), row);
    }
    let nodes = crate::small_sort::map(
        (0..sim.nodes.len() as NodeId).map(|i| (topo.name(i).to_string(), node_view(sim, i))),
    );
    let pairs = down_pairs(sim);
    let observers = crate::small_sort::set(pairs.iter().map(|p| p.0));
    let targets = crate::small_sort::set(pairs.iter().map(|p| p.1));
    GossipViews {
        liveness,
        nodes,
        down_pairs: pairs.len() as u32,
        down_observers: observers.len() as u32,
        down_targets: targets.len() as u32,
    }
}
