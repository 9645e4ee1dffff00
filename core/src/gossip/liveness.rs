//! Liveness: the failure detector's reports, `markAlive` / `realMarkAlive` / `markDead` /
//! `markAsShutdown` / `convict`, applying remote state (`notifyFailureDetector`,
//! `applyStateLocally`, `handleMajorStateChange`); `doStatusCheck` is in `status.rs`.

use super::*;

impl Gossip {
    pub(super) fn fd_report(&self, node: &mut GNode, now: Micros, ep: NodeId) {
        node.fd.report(ep as usize, now);
    }

    // ---- Gossiper: liveness transitions ----

    /// `markAlive`: mark the state dead, then send (or skip) one ECHO_REQ.
    pub(super) fn mark_alive(&self, node: &mut GNode, ctx: &mut Ctx<Self>, ep: NodeId) {
        let (obj, generation) = node
            .edit(ep, |st| {
                st.alive = false;
                (st.obj, st.hb.generation)
            })
            .expect("markAlive on a known endpoint");
        if self.p.echo != EchoVariant::Legacy {
            let prev = node.inflight.insert(
                ep,
                Inflight {
                    obj,
                    generation,
                    sent_at: ctx.now,
                },
            );
            if let Some(prev) = prev {
                if prev.obj == obj {
                    // `inflightEcho.put` replaced the entry with the same object: dedup.
                    node.inflight.insert(ep, prev);
                    node.counters.echo_skipped += 1;
                    ctx.log(
                        LogLevel::Trace,
                        format_args!(
                            "Skipping ECHO_REQ to {} since it is already inflight",
                            addr(ctx.topo, ep)
                        ),
                    );
                    return;
                }
            }
        }
        let id = node.next_echo;
        node.next_echo += 1;
        node.callbacks.insert(id, Callback { peer: ep, obj });
        node.counters.echo_sent += 1;
        let timeout = self.echo_timeout(node);
        self.send(node, ctx, ep, Verb::EchoReq { id }, timeout);
        ctx.set_timer(GTimer::EchoExpire(id), ctx.now + timeout);
        ctx.mark("ECHO_REQ", ep);
    }

    /// `realMarkAlive`: the echo came back.
    pub(super) fn real_mark_alive(
        &self,
        node: &mut GNode,
        ctx: &mut Ctx<Self>,
        ep: NodeId,
        obj: u64,
    ) {
        node.edit(ep, |st| {
            if st.obj == obj {
                st.alive = true;
            }
        });
        debug_assert_ne!(ep, node.id, "a node is never its own live peer");
        node.live.insert(ep);
        node.unreachable.remove(&ep);
        ctx.log(
            LogLevel::Info,
            format_args!("InetAddress {} is now UP", addr(ctx.topo, ep)),
        );
        ctx.mark("UP", ep);
    }

    /// `markDead` -> `silentlyMarkDead`.
    pub(super) fn mark_dead(&self, node: &mut GNode, ctx: &mut Ctx<Self>, ep: NodeId) {
        node.edit(ep, |st| st.alive = false);
        node.live.remove(&ep);
        node.unreachable.insert(ep, ctx.now);
        if self.p.echo != EchoVariant::Legacy {
            node.inflight.remove(&ep);
        }
        // Subscribers: MessagingService.onDead resets the connection pool.
        self.reset_pool(node, ctx, ep);
        ctx.log(
            LogLevel::Info,
            format_args!("InetAddress {} is now DOWN", addr(ctx.topo, ep)),
        );
        ctx.mark("DOWN", ep);
    }

    /// `markAsShutdown`: STATUS=shutdown, highest heartbeat version, markDead.
    pub(super) fn mark_as_shutdown(&self, node: &mut GNode, ctx: &mut Ctx<Self>, ep: NodeId) {
        if node.map[ep as usize].is_none() {
            return;
        }
        let v = node.next_version();
        node.edit(ep, |st| {
            st.put(AppState {
                key: "STATUS".into(),
                value: "shutdown".into(),
                version: v,
            });
            st.set_hb_version(MAX_VERSION);
        })
        .expect("checked");
        self.mark_dead(node, ctx, ep);
    }

    /// `convict`'s body: ignored for a peer that is not alive. 4.0+ runs it as a GossipStage
    /// task the GossipTasks thread waits for (`Task::Convict`, see `status.rs`), 3.x in line.
    pub(super) fn convict(&self, node: &mut GNode, ctx: &mut Ctx<Self>, ep: NodeId) {
        let Some(st) = node.map[ep as usize].as_ref() else {
            return;
        };
        if !st.alive {
            return;
        }
        node.counters.convictions += 1;
        if st.is_shutdown() {
            self.mark_as_shutdown(node, ctx, ep);
        } else {
            self.mark_dead(node, ctx, ep);
        }
    }

    // ---- Gossiper: applying remote state ----

    /// `notifyFailureDetector(remoteEpStateMap)` then `applyStateLocally(remoteEpStateMap)`, done
    /// in one pass: notifying entry j only reads and writes j's own endpoint state and window,
    /// which applying an entry i != j never touches, so the interleaving changes nothing.
    ///
    /// `applyStateLocally` sorts the map it gets (`stateOrderMap`: bootstrapping states last,
    /// then by generation, then by address); the model has no bootstrapping and its addresses
    /// ascend with the node id, so entries apply by (generation, node). The common entries (a
    /// live peer's newer heartbeat) touch nothing but that peer's summary and window and make no
    /// log line or message, so they are taken in the order they come (the endpoint order of an
    /// ACK or ACK2 here) and only the others are sorted.
    pub(super) fn receive_states(&self, node: &mut GNode, ctx: &mut Ctx<Self>, states: &Deltas) {
        // An ACK's or ACK2's entries are most of the node's peers, spread over the arrays below.
        if state::warm_for(&node.summaries, states.len()) {
            node.fd.warm();
        }
        // Indices of the entries that need the whole of `applyStateLocally`; few (a restart, a
        // STATUS change, a peer coming back), so a small sort.
        let mut rest: Vec<u32> = Vec::new();
        // The column to itself (a copy only if a SYN still shares it), and the detector beside
        // it: the loop below writes both without a check per entry.
        let (me, fd) = (node.id, &mut node.fd);
        let summaries = Arc::make_mut(&mut node.summaries);
        for (i, remote) in states.entries().iter().enumerate() {
            if remote.ep == me {
                continue;
            }
            // The common case: a heartbeat (no application state) of a live peer in the same
            // generation. `notify_fd` + `apply_state_locally` reduce to: if newer, report it to
            // the detector (`fd_report`) and take its version; recorded in the summary column
            // alone.
            if !remote.has_states() {
                if let Some(l) = summaries[remote.ep as usize].as_mut() {
                    if l.alive && l.generation == remote.hb.generation {
                        if remote.hb.version > l.max_version() {
                            l.hb_version = remote.hb.version;
                            fd.report(remote.ep as usize, ctx.now);
                        }
                        continue;
                    }
                }
            }
            rest.push(i as u32);
        }
        if rest.len() > 1 {
            crate::small_sort::sort_by_key(&mut rest, |&i| {
                let d = states.get(i as usize);
                (d.hb.generation, d.ep)
            });
        }
        for i in rest {
            let remote = states.get(i as usize);
            node.flush(remote.ep);
            self.notify_fd(node, ctx.now, &remote);
            self.apply_state_locally(node, ctx, remote);
        }
    }

    /// `notifyFailureDetector` for one endpoint (flushed): heartbeats relayed by any node feed
    /// the detector.
    pub(super) fn notify_fd(&self, node: &mut GNode, now: Micros, remote: &Delta) {
        let ep = remote.ep;
        let Some(local) = node.map[ep as usize].as_ref() else {
            return;
        };
        if remote.hb.generation > local.hb.generation {
            if !local.alive {
                node.fd.remove(ep as usize);
            }
            self.fd_report(node, now, ep);
        } else if remote.hb.generation == local.hb.generation
            && remote.hb.version > local.max_version()
        {
            self.fd_report(node, now, ep);
        }
    }

    /// `applyStateLocally` for one endpoint (flushed).
    pub(super) fn apply_state_locally(&self, node: &mut GNode, ctx: &mut Ctx<Self>, remote: Delta) {
        {
            let ep = remote.ep;
            match node.map[ep as usize].as_ref() {
                Some(local) => {
                    let (lg, rg) = (local.hb.generation, remote.hb.generation);
                    // Against the local clock (`currentTimeMillis() / 1000`), not the local
                    // generation: generations are start times in seconds.
                    let local_time = self.p.generation_base as u64 + ctx.now / US_PER_S;
                    if rg as u64 > local_time + MAX_GENERATION_DIFFERENCE as u64 {
                        ctx.log(
                            LogLevel::Warn,
                            format_args!(
                                "received an invalid gossip generation for peer {}; local time = {local_time}, received generation = {rg}",
                                addr(ctx.topo, ep)
                            ),
                        );
                        return;
                    }
                    if rg > lg {
                        self.handle_major_state_change(node, ctx, ep, remote);
                    } else if rg == lg {
                        if remote.max_version() > local.max_version() {
                            node.edit(ep, |st| {
                                if remote.hb.version > st.hb.version {
                                    st.set_hb_version(remote.hb.version);
                                }
                                for s in remote.states {
                                    if st.get(&s.key).is_none_or(|x| x.version < s.version) {
                                        st.put(s.clone());
                                    }
                                }
                            })
                            .expect("known");
                        }
                        let st = node.map[ep as usize].as_ref().expect("known");
                        if !st.alive && !st.is_dead_state() {
                            self.mark_alive(node, ctx, ep);
                        }
                    }
                }
                None => {
                    self.fd_report(node, ctx.now, ep);
                    self.handle_major_state_change(node, ctx, ep, remote);
                }
            }
        }
    }

    /// `handleMajorStateChange`: a new EndpointState object (new identity) replaces the old.
    pub(super) fn handle_major_state_change(
        &self,
        node: &mut GNode,
        ctx: &mut Ctx<Self>,
        ep: NodeId,
        remote: Delta,
    ) {
        let obj = node.new_obj();
        let st = EndpointState::new(obj, remote.hb, remote.states.to_vec(), true);
        let dead = st.is_dead_state();
        let existed = node.map[ep as usize].is_some();
        if node.map[ep as usize].as_ref().is_some_and(|old| old.alive) {
            // onRestart resets the pool only if the old state was alive.
            self.reset_pool(node, ctx, ep);
        }
        if !dead {
            let what = if existed {
                "has restarted, now UP"
            } else {
                "is now part of the cluster"
            };
            ctx.log(
                LogLevel::Info,
                format_args!("Node {} {what}", addr(ctx.topo, ep)),
            );
        }
        node.map[ep as usize] = Some(st);
        node.sync(ep);
        ctx.mark("generation", ep);
        ctx.submit(GOSSIP_STAGE, Task::Subscribers { ep }, None);
        if !dead {
            self.mark_alive(node, ctx, ep);
        } else {
            self.mark_dead(node, ctx, ep);
        }
        // "check this at the end so nodes will learn about the endpoint": a new generation
        // that is already shut down (learned while its node is down) is marked as such.
        if node.map[ep as usize]
            .as_ref()
            .is_some_and(|st| st.is_shutdown())
        {
            self.mark_as_shutdown(node, ctx, ep);
        }
    }
}
