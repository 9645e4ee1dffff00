//! Sending: verbs on the connection model's channels (`OutboundConnections`), transport control
//! segments, pool resets, and the client write load (CASSANDRA-15138).

use super::*;

impl Gossip {
    /// Send a verb. With the connection model, the message goes on its channel's outbound
    /// connection to `to`, opening it lazily; every write starts the retransmission clock.
    pub(super) fn send(
        &self,
        node: &mut GNode,
        ctx: &mut Ctx<Self>,
        to: NodeId,
        verb: Verb,
        timeout: Micros,
    ) {
        let mut msg = GMsg {
            created_at: ctx.now,
            expires_at: ctx.now + timeout,
            chan: Chan::Gossip,
            conn: 0,
            connect: false,
            verb,
        };
        if self.p.connections {
            let chan = route(&msg.verb, self.p.messaging, self.p.large_message_threshold);
            msg.chan = chan;
            let next = node.msg.next_conn + 1;
            let oc = &mut node.msg.peers[to as usize].out[chan.index()];
            let (id, connect) = match oc.state {
                OutState::Closed => {
                    oc.state = OutState::Connecting {
                        id: next,
                        since: ctx.now,
                    };
                    node.msg.next_conn = next;
                    let t = ctx.now + self.p.connect_timeout.0;
                    ctx.set_timer(
                        GTimer::ConnectTimeout {
                            peer: to,
                            chan,
                            id: next,
                        },
                        t,
                    );
                    (next, true)
                }
                OutState::Connecting { id, .. } => (id, true),
                OutState::Established { id, .. } => (id, false),
            };
            let oc = &mut node.msg.peers[to as usize].out[chan.index()];
            if oc.unacked_since.is_none() {
                oc.unacked_since = Some(ctx.now);
                ctx.set_timer(
                    GTimer::Retransmit { peer: to, chan, id },
                    ctx.now + self.rto(),
                );
            }
            msg.conn = id;
            msg.connect = connect;
        }
        ctx.send(to, msg);
    }

    /// The time after which an unacknowledged connection is given up.
    pub(super) fn rto(&self) -> Micros {
        match self.p.messaging {
            params::MessagingVersion::V3 => self.p.tcp_retransmit_timeout.0,
            params::MessagingVersion::V4 => self
                .p
                .tcp_user_timeout
                .0
                .min(self.p.tcp_retransmit_timeout.0),
        }
    }

    /// Transport control straight back on the same connection (not subject to acceptance).
    pub(super) fn control(&self, ctx: &mut Ctx<Self>, to: NodeId, msg: &GMsg, verb: Verb) {
        let reply = GMsg {
            created_at: ctx.now,
            expires_at: ctx.now + self.p.request_timeout.0,
            chan: msg.chan,
            conn: msg.conn,
            connect: false,
            verb,
        };
        ctx.send(to, reply);
    }

    /// The receiving end of a segment. `false`: it goes no further (refused or swallowed).
    pub(super) fn accept_segment(
        &self,
        node: &mut GNode,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        msg: &GMsg,
    ) -> bool {
        let ci = msg.chan.index();
        if msg.connect {
            if !node.msg.accepts(msg.chan) {
                ctx.discard();
                self.control(ctx, from, msg, Verb::TcpRst);
                return false;
            }
            node.msg.peers[from as usize].inbound[ci] = Some(msg.conn);
        } else if node.msg.peers[from as usize].inbound[ci] != Some(msg.conn) {
            // Half-open: the segment belongs to a connection this process does not have. No
            // reset comes back; the sender keeps writing into it.
            node.msg.peers[from as usize].swallowed[ci] += 1;
            ctx.discard();
            return false;
        }
        self.control(ctx, from, msg, Verb::TcpAck);
        true
    }

    /// TCP_ACK / TCP_RST for one of this node's outbound connections.
    pub(super) fn transport(
        &self,
        node: &mut GNode,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        msg: &GMsg,
    ) {
        let oc = &mut node.msg.peers[from as usize].out[msg.chan.index()];
        if oc.state.id() != Some(msg.conn) {
            return;
        }
        match msg.verb {
            Verb::TcpAck => {
                if let OutState::Connecting { id, .. } = oc.state {
                    oc.state = OutState::Established { id, since: ctx.now };
                }
                oc.unacked_since = None;
            }
            Verb::TcpRst => {
                *oc = Default::default();
                let (a, c) = (addr(ctx.topo, from), msg.chan.as_str());
                ctx.log(
                    LogLevel::Debug,
                    format_args!("Connection to {a} ({c}) refused or reset"),
                );
            }
            _ => unreachable!("transport verbs only"),
        }
    }

    /// `OutboundTcpConnectionPool.reset`: close every outbound connection to `peer`.
    pub(super) fn reset_pool(&self, node: &mut GNode, ctx: &mut Ctx<Self>, peer: NodeId) {
        if !self.p.connections {
            return;
        }
        let open = node.msg.peers[peer as usize]
            .out
            .iter()
            .any(|c| c.state != OutState::Closed);
        if self.p.connections && open {
            node.msg.reset_pool(peer as usize);
            ctx.log(
                LogLevel::Debug,
                format_args!("Resetting outbound connections to {}", addr(ctx.topo, peer)),
            );
        }
    }

    // ---- the client workload (connection model) ----

    /// StorageProxy: route a write to the replicas the failure detector thinks alive, hint the
    /// others; the mutations go out after the coordinator's processing time.
    pub(super) fn client_write(&self, node: &mut GNode, ctx: &mut Ctx<Self>) {
        let id = node.next_write;
        node.next_write += 1;
        let mut targets = Vec::new();
        for peer in 0..node.map.len() as NodeId {
            if peer == node.id {
                continue;
            }
            if node.sees_up(peer) {
                targets.push(peer);
            } else {
                node.msg.writes[peer as usize].hinted += 1;
            }
        }
        // Requests are handled concurrently (the native transport pool): one timer per write.
        let delay_us = ctx.rng.random_range(0..=self.p.client_delay.0);
        node.routed.insert(id, targets);
        ctx.set_timer(GTimer::Dispatch(id), ctx.now + delay_us);
        let gap = self.client_gap(ctx);
        ctx.set_timer(GTimer::ClientWrite, ctx.now + gap);
    }

    /// Time to the next client write: the mean gap 1/rate, jittered uniformly by +-50% (integer
    /// arithmetic only, so native and wasm agree).
    pub(super) fn client_gap(&self, ctx: &mut Ctx<Self>) -> Micros {
        let mean = ((1e6 / self.p.client_rate) as Micros).max(2);
        ctx.rng.random_range(mean / 2..=mean + mean / 2)
    }

    pub(super) fn coordinate(
        &self,
        node: &mut GNode,
        ctx: &mut Ctx<Self>,
        id: u64,
        targets: Vec<NodeId>,
    ) {
        for peer in targets {
            if self.p.fix_sender && !node.sees_up(peer) {
                // The 15138 sender-side fix: re-check liveness at send time.
                node.msg.writes[peer as usize].hinted += 1;
                continue;
            }
            node.msg.writes[peer as usize].sent += 1;
            node.outstanding.insert((id, peer), ctx.now);
            let verb = Verb::Mutation {
                id,
                bytes: self.p.mutation_bytes,
            };
            self.send(node, ctx, peer, verb, self.p.write_timeout.0);
        }
        ctx.set_timer(GTimer::WriteTimeout(id), ctx.now + self.p.write_timeout.0);
    }
}
