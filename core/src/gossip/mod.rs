//! Cassandra gossip: endpoint state maps, SYN/ACK/ACK2, the GossipStage, the phi-accrual failure
//! detector, markAlive with its three echo variants (CASSANDRA-21636), graceful shutdown,
//! disablegossip/enablegossip and `settimeout misc`.
//!
//! Every handler follows `Gossiper.java` (4.1 / 5.0); comments name the Java method modelled.

pub mod about;
pub mod cowmap;
mod explain;
pub mod fd;
mod init;
mod liveness;
pub mod messaging;
pub mod model;
mod node;
pub mod nodeset;
pub mod params;
pub mod state;
mod status;
mod transport;
pub mod view;
mod wire;

pub use init::{GossipInit, InitEntry, InitState};
pub(crate) use node::bit;
use node::{not_up_bits, Callback};
pub use node::{Counters, GNode, Inflight};
pub use wire::{GMsg, GTimer, Syn, Task, Verb};

use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId, NodeStatus, Protocol, Topology};
use crate::time::{Micros, US_PER_S};
use fd::{convicts, Detector};
use messaging::{route, Chan, Messaging, OutState};
use nodeset::NodeSet;
use params::{EchoVariant, GossipParams, MessagingVersion};
use rand::Rng;
use serde::{Deserialize, Serialize};
use state::{
    examine_into, AppState, Delta, Deltas, Digest, Digests, EndpointState, HeartBeat, Summary,
    MAX_VERSION,
};
pub use status::TasksWait;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The GossipStage is executor 0 of every node.
pub const GOSSIP_STAGE: u8 = 0;
pub const MUTATION_STAGE: u8 = 1;
const EXECUTORS: &[&str] = &["GossipStage", "MutationStage"];
const MAX_GENERATION_DIFFERENCE: u32 = 86_400 * 365;

#[derive(Clone, Debug)]
pub struct Gossip {
    pub p: GossipParams,
    /// Resolved initial maps: observer -> entries (empty: warm start, everyone knows everyone).
    init: Arc<BTreeMap<NodeId, Vec<(NodeId, EndpointState)>>>,
    /// Each endpoint's state at a warm start, built once and shared (its strings are `Arc`s).
    warm: Arc<Vec<EndpointState>>,
    /// The node that coordinates client writes, when there is client load.
    pub coordinator: Option<NodeId>,
    /// Spare message buffers (a performance measure only: see `state::Pool`).
    pool: std::cell::RefCell<state::Pool>,
}

/// An endpoint's address as Cassandra logs it (`/name`).
fn addr(topo: &Topology, ep: NodeId) -> Addr<'_> {
    Addr(topo, ep)
}

struct Addr<'a>(&'a Topology, NodeId);

impl std::fmt::Display for Addr<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "/{}", self.0.name(self.1))
    }
}

impl Gossip {
    // ---- the gossip task ----

    /// A SYN's digests: one per known endpoint, shuffled on the wire (`makeRandomGossipDigest`;
    /// see [`Syn`] for why the model keeps them in endpoint order).
    fn digests(&self, node: &GNode, ctx: &mut Ctx<Self>) -> Syn {
        debug_assert!(node.summaries_in_sync(), "summary column out of date");
        let mut d = Digests::of_shared(&node.summaries, node.known);
        d.epoch = node.epoch;
        if self.p.shuffle_digests {
            Syn::shuffled(d, ctx.rng)
        } else {
            Syn::in_order(d)
        }
    }

    fn pick(ctx: &mut Ctx<Self>, from: &[NodeId]) -> Option<NodeId> {
        Self::pick_index(ctx, from.len()).map(|i| from[i])
    }

    /// A live peer, uniformly ([`Gossip::pick`] over `node.live`). When every other node is
    /// live (most rounds of a healthy cluster), the member at index `i` is `i`, or `i + 1` from
    /// this node's own id on (the set never holds the node itself), so the set's memory, cold
    /// in a big cluster, is not read: the same draw, the same peer.
    fn pick_live(ctx: &mut Ctx<Self>, node: &GNode) -> Option<NodeId> {
        let n = node.live.len();
        if n == 0 || n + 1 != ctx.topo.len() as usize {
            return Self::pick(ctx, node.live.as_slice());
        }
        let i = Self::pick_index(ctx, n)? as NodeId;
        let t = i + (i >= node.id) as NodeId;
        debug_assert_eq!(
            t,
            node.live.as_slice()[i as usize],
            "the live set is everyone else"
        );
        Some(t)
    }

    /// A uniform index into `n` things (no draw for one).
    fn pick_index(ctx: &mut Ctx<Self>, n: usize) -> Option<usize> {
        match n {
            0 => None,
            1 => Some(0),
            n => Some(ctx.rng.random_range(0..n)),
        }
    }

    /// `GossipTask.run`: bump the heartbeat, SYN a live peer, maybe an unreachable one, maybe a
    /// seed, then the status check. True when the round is over, false when the GossipTasks
    /// thread waits in the status check (`status.rs`).
    fn gossip_round(&self, node: &mut GNode, ctx: &mut Ctx<Self>) -> bool {
        let v = node.next_version();
        node.beat(v);
        let digests = self.digests(node, ctx);
        let syn_timeout = self.p.long_timeout.0.max(self.p.request_timeout.0);
        let live_n = node.live.len();
        // The seeds other than this node (not collected: this runs every second on every node).
        let topo = ctx.topo;
        let me = node.id;
        let seeds = || topo.seeds.iter().copied().filter(move |s| *s != me);
        let seeds_n = seeds().count();
        let mut to_seed = false;
        if let Some(t) = Self::pick_live(ctx, node) {
            to_seed = seeds().any(|s| s == t);
            self.send(node, ctx, t, Verb::Syn(digests.clone()), syn_timeout);
        }
        if !node.unreachable.is_empty() {
            let prob = node.unreachable.len() as f64 / (live_n as f64 + 1.0);
            if ctx.rng.random::<f64>() < prob {
                let cands: Vec<NodeId> = node
                    .unreachable
                    .keys()
                    .copied()
                    .filter(|e| {
                        !node.map[*e as usize]
                            .as_ref()
                            .is_some_and(|s| s.is_dead_state())
                    })
                    .collect();
                if let Some(t) = Self::pick(ctx, &cands) {
                    self.send(node, ctx, t, Verb::Syn(digests.clone()), syn_timeout);
                }
            }
        }
        if (!to_seed || live_n < seeds_n) && seeds_n > 0 {
            let go = if live_n == 0 {
                true
            } else {
                let prob = seeds_n as f64 / (live_n + node.unreachable.len()) as f64;
                ctx.rng.random::<f64>() <= prob
            };
            if go {
                let i = Self::pick_index(ctx, seeds_n);
                if let Some(t) = i.and_then(|i| seeds().nth(i)) {
                    self.send(node, ctx, t, Verb::Syn(digests), syn_timeout);
                }
            }
        }
        self.status_check(node, ctx)
    }

    /// `Gossiper.stop`: announce shutdown to live peers, keep gossiping for the announce delay.
    /// It logs first, then sets STATUS through `addLocalApplicationState`, which takes
    /// `taskLock`: while the GossipTasks thread holds it in a round that waits (a convict task
    /// queued on the GossipStage, the status check's 100 ms sleep) the stop waits with it, and
    /// the state, the GOSSIP_SHUTDOWN messages and the announce delay follow the round's end.
    fn announce_shutdown(&self, node: &mut GNode, ctx: &mut Ctx<Self>) {
        ctx.log(LogLevel::Info, "Announcing shutdown");
        if node.tasks_wait.is_some() {
            node.stop_waits = true;
            ctx.log(
                LogLevel::Debug,
                "Gossiper.stop waits for taskLock: the gossip task holds it until its round ends",
            );
            return;
        }
        self.shutdown_state(node, ctx);
    }

    /// `Gossiper.stop` with `taskLock` held: STATUS=shutdown, GOSSIP_SHUTDOWN to every live peer,
    /// then the announce delay.
    pub(super) fn shutdown_state(&self, node: &mut GNode, ctx: &mut Ctx<Self>) {
        let v = node.next_version();
        node.edit_me(|me| {
            me.put(AppState {
                key: "STATUS".into(),
                value: "shutdown".into(),
                version: v,
            })
        });
        let live: Vec<NodeId> = node.live.iter().collect();
        for ep in live {
            self.send(node, ctx, ep, Verb::Shutdown, self.p.request_timeout.0);
        }
        ctx.set_timer(
            GTimer::ShutdownDone,
            ctx.now + self.p.shutdown_announce_delay.0,
        );
    }

    fn cost_of_states(&self, node: &GNode, states: &Deltas) -> Micros {
        let count = match states.hinted_count(node.epoch) {
            Some(count) => {
                debug_assert_eq!(
                    count,
                    states.new_state_count(node.id, &node.summaries),
                    "a cost count worked out by the message's maker no longer holds"
                );
                count
            }
            None => {
                // Entries spread over the node's peers, each looked up in the summary column
                // (see `state::warm`).
                state::warm_for(&node.summaries, states.len());
                states.new_state_count(node.id, &node.summaries)
            }
        };
        count as Micros * self.p.apply_state_cost.0
    }

    fn handle(
        &self,
        node: &mut GNode,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        created_at: Micros,
        verb: Verb,
    ) {
        if matches!(verb, Verb::Syn(_) | Verb::Ack { .. } | Verb::Ack2(_)) {
            // GossipVerbHandler: setLastProcessedMessageAt(message creation time).
            node.last_processed_msg_at = created_at;
        }
        match verb {
            Verb::Syn(digests) => {
                if !node.enabled {
                    return;
                }
                let buffers = self.pool.borrow_mut().examined();
                let mut ex = examine_into(&node.map, &node.summaries, &digests.digests, buffers);
                // What this ACK and its ACK2 promise of their cost counts (`CountHint`).
                let hint = ex.ack_hint(&digests.digests, &node.summaries, from, node.epoch);
                ex.sends.set_hint(hint);
                let t = self.p.long_timeout.0.max(self.p.request_timeout.0);
                self.send(
                    node,
                    ctx,
                    from,
                    Verb::Ack {
                        requests: ex.requests,
                        sends: ex.sends,
                        syn: digests,
                    },
                    t,
                );
            }
            Verb::Ack {
                requests,
                sends,
                syn,
            } => {
                if !node.enabled {
                    return;
                }
                // Let go of the SYN first: its digests are most likely this node's own column,
                // which `receive_states` would otherwise have to copy before changing it.
                let syn_epoch = syn.digests.epoch;
                drop(syn);
                if !sends.is_empty() {
                    self.receive_states(node, ctx, &sends);
                }
                let mut reply = self.pool.borrow_mut().deltas(requests.len());
                // Warm the summary column unless applying the (larger) `sends` just did.
                if sends.len() < requests.len() {
                    state::warm_for(&node.summaries, requests.len());
                }
                reply.answer(&requests, &node.summaries, &node.map);
                reply.set_hint(sends.hint().for_reply(syn_epoch, node.epoch));
                let t = self.p.long_timeout.0.max(self.p.request_timeout.0);
                self.send(node, ctx, from, Verb::Ack2(reply), t);
                let mut pool = self.pool.borrow_mut();
                pool.give_requests(requests);
                pool.give_deltas(sends);
            }
            Verb::Ack2(states) => {
                if !node.enabled {
                    return;
                }
                self.receive_states(node, ctx, &states);
                self.pool.borrow_mut().give_deltas(states);
            }
            Verb::EchoReq { id } => {
                if ctx.status == NodeStatus::Running {
                    self.send(
                        node,
                        ctx,
                        from,
                        Verb::EchoRsp { id },
                        self.p.request_timeout.0,
                    );
                }
            }
            Verb::Shutdown => {
                if node.enabled {
                    self.mark_as_shutdown(node, ctx, from);
                }
            }
            Verb::EchoRsp { .. }
            | Verb::MutationRsp { .. }
            | Verb::Mutation { .. }
            | Verb::TcpAck
            | Verb::TcpRst => {
                unreachable!("not a GossipStage verb")
            }
        }
    }
}

/// `settimeout misc <ms>`: 1 to 3,600,000 ms.
fn parse_timeout_ms(ms: &str) -> Result<u64, String> {
    let ms: u64 = ms.parse().map_err(|_| {
        format!(
            "\"{}\" is not a number of milliseconds",
            crate::text::clip(ms, 40)
        )
    })?;
    if ms == 0 || ms > 3_600_000 {
        return Err(format!("timeout {ms} ms is out of range (1..=3600000)"));
    }
    Ok(ms)
}

fn unknown_command(cmd: &str) -> String {
    format!(
        "unknown command \"{}\"; known: disablegossip, enablegossip, settimeout misc <ms>, send-syn <node>",
        crate::text::clip(cmd, 60)
    )
}

impl Protocol for Gossip {
    type Node = GNode;
    type Msg = GMsg;
    type Task = Task;
    type Timer = GTimer;

    fn executors(&self) -> &'static [&'static str] {
        EXECUTORS
    }

    fn init_node(&self, id: NodeId, topo: &Topology) -> GNode {
        let n = topo.len() as usize;
        let mut map: Vec<Option<EndpointState>> = vec![None; n];
        let mut fd = Detector::new(
            n,
            self.p.fd_window as usize,
            self.p.phi_convict_threshold,
            self.p.fd_initial_interval.0,
            self.p.fd_max_interval.0,
        );
        let mut live = NodeSet::new();
        let mut next_obj = 0;
        let mut version = 10;
        match self.init.get(&id) {
            Some(entries) => {
                for (peer, st) in entries {
                    next_obj += 1;
                    let mut st = st.clone();
                    st.obj = ((id as u64) << 40) | next_obj;
                    version = version.max(st.max_version());
                    map[*peer as usize] = Some(st);
                }
            }
            None if self.init.is_empty() => {
                for ep in 0..n as NodeId {
                    next_obj += 1;
                    let mut st = self.warm[ep as usize].clone();
                    st.obj = ((id as u64) << 40) | next_obj;
                    map[ep as usize] = Some(st);
                }
            }
            None => {
                // Listed scenarios give maps to some nodes; the rest know only themselves.
                let mut st = self.warm[id as usize].clone();
                st.obj = ((id as u64) << 40) | 1;
                next_obj = 1;
                map[id as usize] = Some(st);
            }
        }
        for ep in 0..n as NodeId {
            if ep != id && map[ep as usize].is_some() {
                live.insert(ep);
                fd.report(ep as usize, 0);
            }
        }
        let summaries = Summary::column(&map);
        GNode {
            id,
            enabled: true,
            exiting: false,
            not_up: not_up_bits(id, &summaries),
            epoch: 0,
            known: Summary::known(&summaries),
            summaries: summaries.into(),
            map: cowmap::CowMap::from_vec(map),
            live,
            unreachable: BTreeMap::new(),
            inflight: BTreeMap::new(),
            fd,
            fd_last_interpret: None,
            fd_last_pause: None,
            tasks_wait: None,
            stop_waits: false,
            version,
            next_obj,
            echo_timeout: None,
            callbacks: BTreeMap::new(),
            next_echo: 0,
            last_processed_msg_at: 0,
            counters: Counters::default(),
            msg: Messaging::new(n, self.p.connections, self.coordinator == Some(id)),
            outstanding: BTreeMap::new(),
            routed: BTreeMap::new(),
            next_write: 0,
        }
    }

    fn on_start(&self, node: &mut GNode, ctx: &mut Ctx<Self>, first: bool) {
        if !first {
            // A new process: a new generation; peers are loaded from system.peers with
            // generation 0 and marked dead until gossip says otherwise.
            let old_gen = node.generation();
            let generation = (self
                .p
                .generation_base
                .saturating_add((ctx.now / US_PER_S) as u32))
            .max(old_gen.saturating_add(1));
            let mut me = node.me();
            me.hb = HeartBeat {
                generation,
                version: 0,
            };
            node.version = 0;
            let n = node.map.len();
            let mut map = vec![None; n];
            node.next_obj = 0;
            let mut version = node.version;
            me.edit_states(|states| {
                for s in states {
                    version += 1;
                    s.version = version;
                    if &*s.key == "STATUS" {
                        s.value = "NORMAL".into();
                    }
                }
            });
            node.version = version;
            let v = node.next_version();
            me.set_hb_version(v);
            me.obj = node.new_obj();
            me.alive = true;
            map[node.id as usize] = Some(me);
            for ep in 0..n as NodeId {
                if ep != node.id {
                    let obj = node.new_obj();
                    let hb = HeartBeat {
                        generation: 0,
                        version: 0,
                    };
                    map[ep as usize] = Some(EndpointState::new(obj, hb, Vec::new(), false));
                    node.unreachable.insert(ep, ctx.now);
                }
            }
            node.set_map(map);
            ctx.log(
                LogLevel::Info,
                format_args!("Starting up with generation {generation}"),
            );
        }
        node.enabled = true;
        node.exiting = false;
        node.msg = Messaging::new(
            node.map.len(),
            self.p.connections,
            self.coordinator == Some(node.id),
        );
        if self.p.gossip_task {
            let jitter = ctx.rng.random_range(0..self.p.gossip_interval.0);
            ctx.set_timer(GTimer::Round, ctx.now + jitter);
        }
        if self.coordinator == Some(node.id) {
            let first = self.client_gap(ctx);
            ctx.set_timer(GTimer::ClientWrite, ctx.now + first);
        }
    }

    fn on_stop(&self, node: &mut GNode, ctx: &mut Ctx<Self>) {
        node.exiting = true;
        if self.p.connections && self.p.fix_shutdown {
            // The 15138 fix on the stopping node: close non-gossip connections (both ways)
            // before announcing the shutdown.
            node.msg.accepting_non_gossip = false;
            for p in &mut node.msg.peers {
                for c in messaging::CHANS.iter().filter(|c| !c.is_gossip()) {
                    p.out[c.index()] = Default::default();
                    p.inbound[c.index()] = None;
                }
            }
            ctx.log(
                LogLevel::Info,
                "Closing non-gossip connections before announcing shutdown",
            );
        }
        // `StorageService.drain` -> `Gossiper.stop`, whether or not gossip still runs: it
        // announces unless the local STATUS is a silent-shutdown state (a dead state; the model
        // has no bootstrapping). `shutdown` is not one, so a node stopped after `disablegossip`
        // announces a second time and sleeps 2 s more before `MessagingService.shutdown`.
        if !node.me().is_dead_state() {
            self.announce_shutdown(node, ctx);
        } else {
            ctx.exit();
        }
    }

    fn on_exit(&self, node: &mut GNode) {
        node.enabled = false;
        node.live.clear();
        node.unreachable.clear();
        node.inflight.clear();
        node.callbacks.clear();
        node.fd.clear();
        node.fd_last_interpret = None;
        node.fd_last_pause = None;
        node.tasks_wait = None;
        node.stop_waits = false;
        node.last_processed_msg_at = 0;
        node.msg = Messaging::new(
            node.map.len(),
            self.p.connections,
            self.coordinator == Some(node.id),
        );
        node.outstanding.clear();
        node.routed.clear();
    }

    fn on_message(&self, node: &mut GNode, ctx: &mut Ctx<Self>, from: NodeId, msg: GMsg) {
        if self.p.connections {
            if matches!(msg.verb, Verb::TcpAck | Verb::TcpRst) {
                self.transport(node, ctx, from, &msg);
                return;
            }
            if !self.accept_segment(node, ctx, from, &msg) {
                return;
            }
        }
        match msg.verb {
            Verb::EchoRsp { id } => {
                // The response callback: only a pending (unexpired) callback counts.
                if let Some(cb) = node.callbacks.remove(&id) {
                    ctx.cancel_timer(GTimer::EchoExpire(id));
                    node.counters.echo_ok += 1;
                    ctx.submit(
                        GOSSIP_STAGE,
                        Task::EchoOk {
                            peer: cb.peer,
                            obj: cb.obj,
                        },
                        None,
                    );
                }
            }
            Verb::Mutation { id, .. } => ctx.submit(
                MUTATION_STAGE,
                Task::Apply { from, id },
                Some(msg.expires_at),
            ),
            Verb::MutationRsp { id } => {
                if node.outstanding.remove(&(id, from)).is_some() {
                    node.msg.writes[from as usize].acked += 1;
                }
            }
            Verb::TcpAck | Verb::TcpRst => {}
            verb => ctx.submit(
                GOSSIP_STAGE,
                Task::Handle {
                    from,
                    created_at: msg.created_at,
                    verb,
                },
                Some(msg.expires_at),
            ),
        }
    }

    fn on_timer(&self, node: &mut GNode, ctx: &mut Ctx<Self>, timer: GTimer) {
        match timer {
            GTimer::Round => {
                // One GossipTasks thread: a round due while the last one still waits (a new
                // schedule after disablegossip/enablegossip) is left to that one's end.
                if node.enabled && node.tasks_wait.is_none() && self.gossip_round(node, ctx) {
                    self.end_round(node, ctx);
                }
            }
            GTimer::SecondLook => {
                if let Some(TasksWait::SecondLook { now, pending }) = node.tasks_wait {
                    node.tasks_wait = None;
                    if self.second_look(node, ctx, now, pending) {
                        self.end_round(node, ctx);
                    }
                }
            }
            GTimer::EchoExpire(id) => {
                if let Some(cb) = node.callbacks.remove(&id) {
                    node.counters.echo_failed += 1;
                    if self.p.echo == EchoVariant::Fixed {
                        ctx.submit(
                            GOSSIP_STAGE,
                            Task::EchoFailed {
                                peer: cb.peer,
                                obj: cb.obj,
                            },
                            None,
                        );
                    }
                }
            }
            GTimer::ShutdownDone => {
                node.enabled = false;
                ctx.cancel_timer(GTimer::Round);
                if node.exiting {
                    // Drain: MessagingService closes inbound and outbound connections, then exit.
                    node.msg.shutdown();
                    ctx.exit();
                }
            }
            GTimer::ConnectTimeout { peer, chan, id } => {
                let oc = &mut node.msg.peers[peer as usize].out[chan.index()];
                if matches!(oc.state, OutState::Connecting { id: x, .. } if x == id) {
                    *oc = Default::default();
                    let (a, c) = (addr(ctx.topo, peer), chan.as_str());
                    ctx.log(
                        LogLevel::Debug,
                        format_args!("Connection to {a} ({c}) timed out connecting"),
                    );
                }
            }
            GTimer::Retransmit { peer, chan, id } => {
                let rto = self.rto();
                let oc = &mut node.msg.peers[peer as usize].out[chan.index()];
                if oc.state.id() != Some(id) {
                    return;
                }
                match oc.unacked_since {
                    Some(t) if ctx.now >= t + rto => {
                        *oc = Default::default();
                        let (a, c) = (addr(ctx.topo, peer), chan.as_str());
                        ctx.log(
                            LogLevel::Warn,
                            format_args!(
                                "Connection to {a} ({c}) closed: no acknowledgement for {} (kernel retransmission timeout)",
                                crate::time::fmt_duration(rto)
                            ),
                        );
                        ctx.mark("conn-closed", peer);
                    }
                    Some(t) => ctx.set_timer(GTimer::Retransmit { peer, chan, id }, t + rto),
                    None => {}
                }
            }
            GTimer::ClientWrite => {
                if self.coordinator == Some(node.id) && ctx.status == NodeStatus::Running {
                    self.client_write(node, ctx);
                }
            }
            GTimer::Dispatch(id) => {
                if let Some(targets) = node.routed.remove(&id) {
                    self.coordinate(node, ctx, id, targets);
                }
            }
            GTimer::WriteTimeout(id) => {
                let expired: Vec<(u64, NodeId)> = node
                    .outstanding
                    .range((id, 0)..=(id, NodeId::MAX))
                    .map(|(k, _)| *k)
                    .collect();
                for k in expired {
                    node.outstanding.remove(&k);
                    node.msg.writes[k.1 as usize].timed_out += 1;
                }
            }
        }
    }

    fn on_task(&self, node: &mut GNode, ctx: &mut Ctx<Self>, task: Task) {
        match task {
            Task::Handle {
                from,
                created_at,
                verb,
            } => self.handle(node, ctx, from, created_at, verb),
            Task::EchoOk { peer, obj } => match self.p.echo {
                EchoVariant::Legacy => self.real_mark_alive(node, ctx, peer, obj),
                _ => {
                    if let Some(entry) = node.inflight.remove(&peer) {
                        self.real_mark_alive(node, ctx, peer, entry.obj);
                    }
                }
            },
            Task::Subscribers { .. } => {}
            Task::Convict { ep } => {
                self.convict(node, ctx, ep);
                self.convicted(node, ctx, ep);
            }
            Task::Apply { from, id } => {
                if self.p.fix_sender && !node.sees_up(from) {
                    // The 15138 sender-side fix covers every normal message, the write's
                    // response too: a reply to a coordinator marked down would reopen `small`
                    // inside its drain window (the echo reply is gossip's own and still goes).
                    ctx.log(
                        LogLevel::Trace,
                        format_args!(
                            "Not answering write #{id} of {}: marked down",
                            addr(ctx.topo, from)
                        ),
                    );
                    return;
                }
                self.send(
                    node,
                    ctx,
                    from,
                    Verb::MutationRsp { id },
                    self.p.write_timeout.0,
                );
            }
            Task::EchoFailed { peer, obj } => {
                if node.inflight.get(&peer).is_some_and(|e| e.obj == obj) {
                    node.inflight.remove(&peer);
                }
                ctx.log(
                    LogLevel::Trace,
                    format_args!(
                        "ECHO_REQ to {} failed (TIMEOUT); will retry on next state update",
                        addr(ctx.topo, peer)
                    ),
                );
            }
        }
    }

    fn node_bytes(&self, node: &GNode) -> usize {
        use std::mem::size_of;
        // BTreeMap entries: the key and value plus about a pointer's worth of node overhead.
        fn entries<K, V>(m: &BTreeMap<K, V>) -> usize {
            m.len() * (size_of::<K>() + size_of::<V>() + 8)
        }
        size_of::<GNode>()
            + node.map.approx_bytes()
            + node.summaries.len() * size_of::<Option<Summary>>()
            + node.not_up.len() * size_of::<u64>()
            + node.live.len() * size_of::<NodeId>()
            + node.fd.approx_bytes()
            + entries(&node.unreachable)
            + entries(&node.inflight)
            + entries(&node.callbacks)
            + entries(&node.outstanding)
            + node
                .routed
                .values()
                .map(|v| 32 + v.len() * 4)
                .sum::<usize>()
            + node.msg.peers.len() * size_of::<messaging::PeerConns>()
            + node.msg.writes.len() * size_of::<messaging::WriteStats>()
    }

    fn msg_bytes(&self, msg: &GMsg) -> usize {
        msg.verb.heap_bytes()
    }

    fn task_bytes(&self, task: &Task) -> usize {
        match task {
            Task::Handle { verb, .. } => verb.heap_bytes(),
            _ => 0,
        }
    }

    fn check_command(&self, _node: NodeId, cmd: &str) -> Result<(), String> {
        match cmd.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["disablegossip"] | ["enablegossip"] | ["send-syn", _] => Ok(()),
            ["settimeout", "misc", ms] => parse_timeout_ms(ms).map(|_| ()),
            _ => Err(unknown_command(cmd)),
        }
    }

    fn service_us(&self, node: &GNode, task: &Task) -> Micros {
        let base = self.p.stage_msg_cost.0;
        match task {
            Task::Handle {
                verb: Verb::Ack { sends, .. },
                ..
            } => base + self.cost_of_states(node, sends),
            Task::Handle {
                verb: Verb::Ack2(states),
                ..
            } => base + self.cost_of_states(node, states),
            Task::Subscribers { .. } => self.p.major_state_cost.0,
            _ => base,
        }
    }

    fn on_command(&self, node: &mut GNode, ctx: &mut Ctx<Self>, cmd: &str) -> Result<(), String> {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["disablegossip"] => {
                if !node.enabled {
                    return Err("gossip is already disabled".into());
                }
                if node.stop_waits {
                    return Err(
                        "a stop already waits for the gossip task's lock (taskLock): gossip is being disabled"
                            .into(),
                    );
                }
                node.exiting = false;
                self.announce_shutdown(node, ctx);
                Ok(())
            }
            ["enablegossip"] => {
                if node.enabled {
                    return Err("gossip is already running".into());
                }
                // forceNewerGeneration, then start: STATUS back to NORMAL.
                let generation = node.generation().saturating_add(1);
                let v = node.next_version();
                node.edit_me(|me| {
                    me.hb.generation = generation;
                    me.recompute();
                    me.put(AppState {
                        key: "STATUS".into(),
                        value: "NORMAL".into(),
                        version: v,
                    });
                });
                let hb = node.next_version();
                node.edit_me(|me| me.set_hb_version(hb));
                node.enabled = true;
                ctx.log(
                    LogLevel::Info,
                    format_args!("Gossip enabled with generation {generation}"),
                );
                ctx.set_timer(GTimer::Round, ctx.now + self.p.gossip_interval.0);
                Ok(())
            }
            ["settimeout", "misc", ms] => {
                let ms = parse_timeout_ms(ms)?;
                node.echo_timeout = Some(ms * 1000);
                ctx.log(LogLevel::Info, format_args!("Set misc timeout to {ms} ms"));
                Ok(())
            }
            ["send-syn", peer] => {
                let to = ctx.topo.resolve(peer)?;
                if to == node.id {
                    return Err("a node does not gossip with itself".into());
                }
                let digests = self.digests(node, ctx);
                let t = self.p.long_timeout.0.max(self.p.request_timeout.0);
                self.send(node, ctx, to, Verb::Syn(digests), t);
                Ok(())
            }
            _ => Err(unknown_command(cmd)),
        }
    }

    fn msg_label(&self, msg: &GMsg) -> &'static str {
        msg.verb.label()
    }

    fn task_label(&self, task: &Task) -> &'static str {
        match task {
            Task::Handle { verb, .. } => verb.label(),
            Task::EchoOk { .. } => "echo callback",
            Task::EchoFailed { .. } => "echo failure callback",
            Task::Subscribers { .. } => "apply endpoint state",
            Task::Convict { .. } => "convict",
            Task::Apply { .. } => "apply mutation",
        }
    }

    fn timer_label(&self, t: &GTimer) -> &'static str {
        match t {
            GTimer::Round => "gossip round",
            GTimer::SecondLook => "status check: second look",
            GTimer::EchoExpire(_) => "echo expired",
            GTimer::ShutdownDone => "shutdown announced",
            GTimer::ConnectTimeout { .. } => "connect timeout",
            GTimer::Retransmit { .. } => "retransmission check",
            GTimer::ClientWrite => "client write",
            GTimer::Dispatch(_) => "send write",
            GTimer::WriteTimeout(_) => "write timeout",
        }
    }

    /// With the connection model, a segment reaching a host whose Cassandra process is down gets
    /// a TCP reset (closed port). A *running* process that does not know the connection swallows
    /// it instead (see `accept_segment`): that asymmetry is CASSANDRA-15138.
    fn bounce(&self, msg: &GMsg) -> Option<GMsg> {
        if msg.conn == 0 || matches!(msg.verb, Verb::TcpAck | Verb::TcpRst) {
            return None;
        }
        Some(GMsg {
            created_at: msg.created_at,
            expires_at: msg.expires_at,
            chan: msg.chan,
            conn: msg.conn,
            connect: false,
            verb: Verb::TcpRst,
        })
    }

    fn render_msg(&self, msg: &GMsg, topo: &Topology) -> String {
        // One buffer, a line at a time (a 251-node SYN is 251 lines): the text of
        // `format!("{head}\n{}", lines.join("\n"))` without a `String` a line.
        let lines = |head: &str, digests: &[Digest], sends: &Deltas| {
            let mut s = String::with_capacity(head.len() + 24 * digests.len() + 80 * sends.len());
            s.push_str(head);
            s.push('\n');
            for (i, d) in digests.iter().enumerate() {
                if i > 0 {
                    s.push('\n');
                }
                d.render_into(topo, &mut s);
            }
            for (i, d) in sends.iter().enumerate() {
                if i > 0 || !digests.is_empty() {
                    s.push('\n');
                }
                s.push_str(topo.name(d.ep));
                s.push(':');
                d.render_into(&mut s);
            }
            s
        };
        match &msg.verb {
            Verb::Syn(d) => lines("GossipDigestSyn", &d.wire_order(), &Deltas::default()),
            Verb::Ack {
                requests,
                sends,
                syn,
                ..
            } => lines(
                "GossipDigestAck",
                &syn.in_wire_order(requests, |d| d.ep),
                sends,
            ),
            Verb::Ack2(sends) => lines("GossipDigestAck2", &[], sends),
            Verb::EchoReq { id } => format!("ECHO_REQ #{id}"),
            Verb::EchoRsp { id } => format!("ECHO_RSP #{id}"),
            Verb::Shutdown => "GOSSIP_SHUTDOWN".into(),
            Verb::Mutation { id, bytes } => format!("MUTATION write #{id} ({bytes} bytes)"),
            Verb::MutationRsp { id } => format!("MUTATION_RSP write #{id}"),
            Verb::TcpAck => "TCP ACK".into(),
            Verb::TcpRst => "TCP RST".into(),
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_code;
#[cfg(test)]
mod tests_stage;
