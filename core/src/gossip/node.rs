//! One node's gossip state (`GNode`): its endpoint state map with the summary column and the
//! `not_up` bits kept beside it, the failure detector, the echo bookkeeping (`inflightEcho`,
//! callbacks) and the coordinator's writes.

use super::*;

/// `inflightEcho[peer]`: the EndpointState object an echo was sent for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inflight {
    pub obj: u64,
    pub generation: u32,
    pub sent_at: Micros,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(super) struct Callback {
    pub(super) peer: NodeId,
    pub(super) obj: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    pub echo_sent: u64,
    pub echo_skipped: u64,
    pub echo_ok: u64,
    pub echo_failed: u64,
    pub convictions: u64,
    pub status_checks_skipped: u64,
}

/// `Clone` by hand: `clone_from` (restoring a checkpoint) copies into the existing allocations.
#[derive(Debug)]
pub struct GNode {
    pub id: NodeId,
    pub enabled: bool,
    /// A graceful stop (exit after the announce delay) rather than disablegossip.
    pub(super) exiting: bool,
    /// The endpoint state map, but for heartbeat versions: a peer's heartbeat version (and so
    /// its max version) is `summaries[ep]`'s, which `receive_states` advances alone in the common
    /// case (a live peer's heartbeat) so as not to touch the 64-byte entry. `flush(ep)` brings
    /// the entry up to date; changes go through `edit(ep, ..)` (flush, change, `sync(ep)`), or
    /// replace the entry and `sync(ep)`. Read it through `state(ep)` / `states()` outside the
    /// gossip module.
    pub(super) map: cowmap::CowMap,
    /// `Summary::of(map[ep])` for every endpoint once flushed (checked in debug builds every
    /// gossip round, see `summaries_in_sync`). Shared with the SYNs that carry it as their
    /// digests (`Digests::of_shared`) and copied on the first change while one is out
    /// (`Arc::make_mut`): most rounds' SYNs are answered before the column next changes, so
    /// most rounds copy nothing (they copied 16 bytes a peer, 4 KB at 251 nodes, every round).
    pub(super) summaries: Arc<[Option<Summary>]>,
    /// How many entries of `summaries` are `Some`: the endpoints this node knows, and so the
    /// number of digests in its SYNs (kept by `sync` and `set_map`).
    pub(super) known: usize,
    /// Bit `ep` (64 to a word) is set when this node does not see peer `ep` UP: the peer is
    /// unknown or its state is not alive (never set for the node itself). Kept with the summary
    /// column (`sync`, `set_map`), so that "who sees whom DOWN" over a whole cluster, which the
    /// app asks for every sample and frame, reads a few words a node instead of every summary.
    pub(super) not_up: Vec<u64>,
    /// Moves with every change of a known endpoint's generation or presence in the summary
    /// column (`sync`, `set_map`), and never back: a cost count worked out elsewhere from this
    /// node's column at one epoch holds at the same epoch (`state::CountHint`).
    pub(super) epoch: u32,
    pub live: NodeSet,
    pub unreachable: BTreeMap<NodeId, Micros>,
    pub inflight: BTreeMap<NodeId, Inflight>,
    pub fd: Detector,
    pub(super) fd_last_interpret: Option<Micros>,
    pub(super) fd_last_pause: Option<Micros>,
    /// Where the GossipTasks thread waits in the middle of a round (`status.rs`), if it does.
    pub tasks_wait: Option<super::status::TasksWait>,
    /// `Gossiper.stop` (a drain or `disablegossip`) waits for `taskLock`, which the GossipTasks
    /// thread holds while its round waits (`tasks_wait`): the announcement is made when the
    /// round ends (`status.rs`, `end_round`).
    pub(super) stop_waits: bool,
    /// The node's VersionGenerator (heartbeat and application states share it).
    pub version: u32,
    pub(super) next_obj: u64,
    /// `nodetool settimeout misc`: overrides request_timeout for echoes sent by this node.
    pub echo_timeout: Option<Micros>,
    pub(super) callbacks: BTreeMap<u64, Callback>,
    pub(super) next_echo: u64,
    /// Creation time of the last gossip message the stage processed (the status-check guard).
    pub last_processed_msg_at: Micros,
    pub counters: Counters,
    pub msg: Messaging,
    /// Coordinator: outstanding replica mutations (write id, replica) -> sent at.
    pub outstanding: BTreeMap<(u64, NodeId), Micros>,
    /// Coordinator: writes routed (replicas chosen) but not yet sent.
    pub routed: BTreeMap<u64, Vec<NodeId>>,
    pub(super) next_write: u64,
}

impl Clone for GNode {
    fn clone(&self) -> Self {
        let GNode {
            id,
            enabled,
            exiting,
            map,
            summaries,
            known,
            not_up,
            epoch,
            live,
            unreachable,
            inflight,
            fd,
            fd_last_interpret,
            fd_last_pause,
            tasks_wait,
            stop_waits,
            version,
            next_obj,
            echo_timeout,
            callbacks,
            next_echo,
            last_processed_msg_at,
            counters,
            msg,
            outstanding,
            routed,
            next_write,
        } = self;
        GNode {
            id: *id,
            enabled: *enabled,
            exiting: *exiting,
            map: map.clone(),
            summaries: summaries.clone(),
            known: *known,
            not_up: not_up.clone(),
            epoch: *epoch,
            live: live.clone(),
            unreachable: unreachable.clone(),
            inflight: inflight.clone(),
            fd: fd.clone(),
            fd_last_interpret: *fd_last_interpret,
            fd_last_pause: *fd_last_pause,
            tasks_wait: *tasks_wait,
            stop_waits: *stop_waits,
            version: *version,
            next_obj: *next_obj,
            echo_timeout: *echo_timeout,
            callbacks: callbacks.clone(),
            next_echo: *next_echo,
            last_processed_msg_at: *last_processed_msg_at,
            counters: counters.clone(),
            msg: msg.clone(),
            outstanding: outstanding.clone(),
            routed: routed.clone(),
            next_write: *next_write,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        let GNode {
            id,
            enabled,
            exiting,
            map,
            summaries,
            known,
            not_up,
            epoch,
            live,
            unreachable,
            inflight,
            fd,
            fd_last_interpret,
            fd_last_pause,
            tasks_wait,
            stop_waits,
            version,
            next_obj,
            echo_timeout,
            callbacks,
            next_echo,
            last_processed_msg_at,
            counters,
            msg,
            outstanding,
            routed,
            next_write,
        } = src;
        self.id.clone_from(id);
        self.enabled.clone_from(enabled);
        self.exiting.clone_from(exiting);
        self.map.clone_from(map);
        self.summaries.clone_from(summaries);
        self.known = *known;
        self.not_up.clone_from(not_up);
        self.epoch = *epoch;
        self.live.clone_from(live);
        self.unreachable.clone_from(unreachable);
        self.inflight.clone_from(inflight);
        self.fd.clone_from(fd);
        self.fd_last_interpret.clone_from(fd_last_interpret);
        self.fd_last_pause.clone_from(fd_last_pause);
        self.tasks_wait = *tasks_wait;
        self.stop_waits = *stop_waits;
        self.version.clone_from(version);
        self.next_obj.clone_from(next_obj);
        self.echo_timeout.clone_from(echo_timeout);
        self.callbacks.clone_from(callbacks);
        self.next_echo.clone_from(next_echo);
        self.last_processed_msg_at.clone_from(last_processed_msg_at);
        self.counters.clone_from(counters);
        self.msg.clone_from(msg);
        self.outstanding.clone_from(outstanding);
        self.routed.clone_from(routed);
        self.next_write.clone_from(next_write);
    }
}

impl GNode {
    /// This node's own endpoint state, reconciled as [`GNode::state`] is: the gossip round's
    /// heartbeat goes to the summary column alone (`beat`), so the map's entry may lag it.
    pub fn me(&self) -> EndpointState {
        self.state(self.id).expect("a node always knows itself")
    }
    /// The gossip round's heartbeat (`GossipTask.run`: `heartBeatState.updateHeartBeat()`):
    /// version `v` in the summary column alone, as a live peer's heartbeat is taken in
    /// (`receive_states`); the map's entry catches up at its next `flush`. Nothing else of the
    /// summary moves (no generation, liveness or presence: no epoch, `known` or `not_up` change),
    /// and the map's chunk, cold in a big cluster, is not read (issue 44, docs/PERFORMANCE.md).
    pub(super) fn beat(&mut self, v: u32) {
        let me = self.id as usize;
        let s = Arc::make_mut(&mut self.summaries)[me]
            .as_mut()
            .expect("a node always knows itself");
        debug_assert!(v > s.max_version(), "a new version is above every other");
        s.hb_version = v;
    }
    /// Change this node's own endpoint state.
    pub(super) fn edit_me<R>(&mut self, f: impl FnOnce(&mut EndpointState) -> R) -> R {
        self.edit(self.id, f).expect("a node always knows itself")
    }
    /// Change `map[ep]` (brought up to date first), then its summary; `None` when `ep` is not
    /// known.
    pub(super) fn edit<R>(
        &mut self,
        ep: NodeId,
        f: impl FnOnce(&mut EndpointState) -> R,
    ) -> Option<R> {
        self.flush(ep);
        let r = f(self.map[ep as usize].as_mut()?);
        self.sync(ep);
        Some(r)
    }
    /// Peer `ep`'s endpoint state as this node knows it (`None` when not known).
    pub fn state(&self, ep: NodeId) -> Option<EndpointState> {
        let mut st = self.map.get(ep as usize)?.clone()?;
        if let Some(s) = self.summaries[ep as usize] {
            if st.hb.version != s.hb_version {
                st.set_hb_version(s.hb_version);
            }
        }
        Some(st)
    }
    /// The endpoint state map (peer -> state; `None` for peers not known), as a copy.
    pub fn states(&self) -> Vec<Option<EndpointState>> {
        (0..self.map.len() as NodeId)
            .map(|ep| self.state(ep))
            .collect()
    }
    /// How many endpoints the map has room for (the cluster's size).
    pub fn map_len(&self) -> usize {
        self.map.len()
    }
    /// Bring `map[ep]`'s heartbeat version up to the summary column's.
    #[inline]
    pub(super) fn flush(&mut self, ep: NodeId) {
        let i = ep as usize;
        if let (Some(st), Some(s)) = (self.map[i].as_ref(), self.summaries[i]) {
            if st.hb.version != s.hb_version {
                debug_assert_eq!(st.hb.generation, s.generation);
                debug_assert!(st.hb.version < s.hb_version, "the column only runs ahead");
                // Written only when behind: a write copies a chunk shared with a checkpoint.
                if let Some(st) = self.map[i].as_mut() {
                    st.set_hb_version(s.hb_version);
                }
            }
        }
    }
    /// After a change of `map[ep]` (flushed): its generation, versions, liveness or presence.
    /// Out of line: the rare path of many handlers, kept small in the app's download.
    #[inline(never)]
    pub(super) fn sync(&mut self, ep: NodeId) {
        let s = Summary::of(self.map[ep as usize].as_ref());
        let was = std::mem::replace(&mut Arc::make_mut(&mut self.summaries)[ep as usize], s);
        self.epoch += state::moves_epoch(was, s) as u32;
        self.known = self.known + s.is_some() as usize - was.is_some() as usize;
        let (w, m) = bit(ep as usize);
        if seen_up(self.id, ep, s) {
            self.not_up[w] &= !m;
        } else {
            self.not_up[w] |= m;
        }
    }
    pub(super) fn set_map(&mut self, map: Vec<Option<EndpointState>>) {
        self.epoch += 1;
        self.summaries = Summary::column(&map).into();
        self.known = Summary::known(&self.summaries);
        self.not_up = not_up_bits(self.id, &self.summaries);
        self.map = cowmap::CowMap::from_vec(map);
    }
    /// The peers this node does not see UP, as bits (see `not_up`).
    pub fn not_up_bits(&self) -> &[u64] {
        &self.not_up
    }
    /// `!sees_up(peer)` from the bits alone (a word, not the peer's summary).
    pub fn not_seen_up(&self, peer: NodeId) -> bool {
        let (w, m) = bit(peer as usize);
        self.not_up[w] & m != 0
    }
    /// The column matches the map, but for heartbeat versions, where it may only be ahead; the
    /// `not_up` bits match the column.
    pub(super) fn summaries_in_sync(&self) -> bool {
        self.not_up == not_up_bits(self.id, &self.summaries)
            && self.known == Summary::known(&self.summaries)
            && self.map.len() == self.summaries.len()
            && self.map.iter().zip(self.summaries.iter()).all(|(st, s)| {
                match (Summary::of(st.as_ref()), s) {
                    (None, None) => true,
                    (Some(m), Some(s)) => {
                        m == Summary {
                            hb_version: m.hb_version,
                            ..*s
                        } && m.hb_version <= s.hb_version
                    }
                    _ => false,
                }
            })
    }
    pub(super) fn next_version(&mut self) -> u32 {
        self.version += 1;
        self.version
    }
    pub(super) fn new_obj(&mut self) -> u64 {
        self.next_obj += 1;
        ((self.id as u64) << 40) | self.next_obj
    }
    pub fn generation(&self) -> u32 {
        // The map's generation never lags the column's (only heartbeat versions do).
        self.map[self.id as usize]
            .as_ref()
            .expect("a node always knows itself")
            .hb
            .generation
    }
    /// Does this node consider `peer` UP? (`FailureDetector.isAlive`: the current object's flag.)
    pub fn sees_up(&self, peer: NodeId) -> bool {
        seen_up(self.id, peer, self.summaries[peer as usize])
    }
}

/// Whether node `id` sees peer `ep` UP, `s` being `ep`'s summary in `id`'s column: itself always,
/// a peer when it is known and its state alive. One rule for `GNode::sees_up` and the `not_up`
/// bits.
#[inline]
fn seen_up(id: NodeId, ep: NodeId, s: Option<Summary>) -> bool {
    ep == id || s.is_some_and(|s| s.alive)
}

/// `GNode::not_up` for node `id` with summary column `summaries`.
pub(super) fn not_up_bits(id: NodeId, summaries: &[Option<Summary>]) -> Vec<u64> {
    let mut bits = vec![0u64; summaries.len().div_ceil(64)];
    for (ep, &s) in summaries.iter().enumerate() {
        if !seen_up(id, ep as NodeId, s) {
            let (w, m) = bit(ep);
            bits[w] |= m;
        }
    }
    bits
}

/// Word index and mask of bit `i` in a bit set kept as `u64` words (`GNode::not_up`, the
/// running mask of `view::down_pairs`).
#[inline]
pub(crate) fn bit(i: usize) -> (usize, u64) {
    (i / 64, 1 << (i % 64))
}
