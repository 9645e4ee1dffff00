//! Gossip data structures: HeartBeatState, versioned application states, EndpointState, digests,
//! and the digest comparison of a SYN (`examineGossiper`) exactly as Cassandra does it.

use crate::engine::{NodeId, Topology};
use serde::Serialize;
use std::ops::Index;
use std::sync::Arc;

/// Cassandra's `forceHighestPossibleVersionUnsafe`: a shut-down node's heartbeat version.
pub const MAX_VERSION: u32 = i32::MAX as u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeartBeat {
    pub generation: u32,
    pub version: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AppState {
    pub key: Arc<str>,
    pub value: Arc<str>,
    pub version: u32,
}

/// One endpoint's state as some node knows it. `obj` is the identity of the Java object: it
/// changes only when `handleMajorStateChange` installs a new one (a new generation), which is what
/// CASSANDRA-18866's dedup compares.
///
/// Aligned to a cache line (48 of its 64 bytes are used): maps are read at scattered peers, and an
/// entry never straddles two lines. (Measured without the alignment: no faster, no smaller
/// checkpoints.)
///
/// In a node's map (`GNode`) the heartbeat version of a peer's entry may lag behind the node's
/// `Summary` column, which is the authority for it: see `GNode::flush`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[repr(align(64))]
pub struct EndpointState {
    pub obj: u64,
    pub hb: HeartBeat,
    /// Shared, copy-on-write: cloning a map (a checkpoint, a warm start) copies a pointer, and
    /// the list only changes when an application state does (rare next to heartbeats).
    pub states: Arc<[AppState]>,
    pub alive: bool,
    /// Cached max of the heartbeat and application-state versions (digests ask for it a lot).
    maxv: u32,
    /// Cached max of the application-state versions alone (0 without states): lets
    /// `newer_than` skip the states without reading them, the common heartbeat-only case.
    maxs: u32,
    /// Cached `isDeadState` (a peer seen DOWN asks on every heartbeat).
    #[serde(skip)]
    dead: bool,
}

impl EndpointState {
    pub fn new(obj: u64, hb: HeartBeat, states: Vec<AppState>, alive: bool) -> Self {
        let mut s = EndpointState {
            obj,
            hb,
            states: states.into(),
            alive,
            maxv: 0,
            maxs: 0,
            dead: false,
        };
        s.recompute();
        s
    }

    /// Re-derive the cached max versions and dead-state flag after changing `hb` or `states`
    /// directly.
    pub fn recompute(&mut self) {
        self.maxs = self.states.iter().map(|s| s.version).max().unwrap_or(0);
        self.maxv = self.maxs.max(self.hb.version);
        self.dead = Self::dead_status(self.status());
    }

    fn dead_status(status: Option<&str>) -> bool {
        matches!(status, Some("removing" | "removed" | "LEFT" | "hibernate"))
    }

    pub fn max_version(&self) -> u32 {
        debug_assert_eq!(
            self.maxv,
            self.states
                .iter()
                .map(|s| s.version)
                .fold(self.hb.version, u32::max),
            "stale cached max version: call recompute() after changing hb or states directly"
        );
        self.maxv
    }

    pub fn set_hb_version(&mut self, v: u32) {
        let old = self.hb.version;
        self.hb.version = v;
        if v >= self.maxv {
            self.maxv = v;
        } else if old == self.maxv {
            // The heartbeat was the maximum and went down (never in practice): rescan.
            self.recompute();
        }
    }

    pub fn get(&self, key: &str) -> Option<&AppState> {
        self.states.iter().find(|s| &*s.key == key)
    }

    /// Insert or overwrite (a newer version replaces an older one; order of first insertion kept).
    pub fn put(&mut self, s: AppState) {
        let mut v = self.states.to_vec();
        match v.iter_mut().find(|x| x.key == s.key) {
            Some(x) => *x = s,
            None => v.push(s),
        }
        self.states = v.into();
        self.recompute();
    }

    /// Change the application states in place (copying them first if they are shared), then
    /// re-derive the cached versions.
    pub fn edit_states(&mut self, f: impl FnOnce(&mut Vec<AppState>)) {
        let mut v = self.states.to_vec();
        f(&mut v);
        self.states = v.into();
        self.recompute();
    }

    pub fn status(&self) -> Option<&str> {
        self.get("STATUS").map(|s| &*s.value)
    }

    /// `isDeadState`: removing, removed, left, hibernate.
    pub fn is_dead_state(&self) -> bool {
        debug_assert_eq!(
            self.dead,
            Self::dead_status(self.status()),
            "stale dead-state flag: call recompute() after changing states directly"
        );
        self.dead
    }

    pub fn is_shutdown(&self) -> bool {
        self.status() == Some("shutdown")
    }

    /// `getStateForVersionBiggerThan`: the heartbeat if newer than `version`, and every
    /// application state newer than `version` (with the heartbeat riding along), appended to
    /// `out` for endpoint `ep`. False when nothing is newer.
    pub fn newer_than(&self, ep: NodeId, version: u32, out: &mut Deltas) -> bool {
        self.newer_than_with(self.hb, ep, version, out)
    }

    /// `newer_than` with the heartbeat `hb` in place of `self.hb` (a node's map entry whose
    /// heartbeat lags the node's summary column, see `GNode::flush`).
    pub fn newer_than_with(
        &self,
        hb: HeartBeat,
        ep: NodeId,
        version: u32,
        out: &mut Deltas,
    ) -> bool {
        debug_assert_eq!(hb.generation, self.hb.generation);
        let start = out.states.len();
        if self.maxs > version {
            out.states
                .extend(self.states.iter().filter(|s| s.version > version).cloned());
        }
        let len = out.states.len() - start;
        if hb.version > version || len > 0 {
            out.entries.push(DeltaEntry {
                ep,
                hb,
                start: start as u32,
                len: len as u32,
            });
            true
        } else {
            false
        }
    }
}

/// Endpoint states carried in an ACK or ACK2 (each a fresh object on the receiver): per
/// endpoint its heartbeat and a range of application states in one shared list. Most entries
/// are heartbeat-only, so an entry is a small `Copy` value and the list needs no per-entry drop.
#[derive(Clone, Debug, Default)]
pub struct Deltas {
    entries: Vec<DeltaEntry>,
    states: Vec<AppState>,
    /// Not on the wire: the receiver's cost count worked out where the message was made.
    hint: CountHint,
}

/// Equal when they carry the same entries and states (the hint is not part of the message).
impl PartialEq for Deltas {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries && self.states == other.states
    }
}

/// What the maker of an ACK or ACK2 knows of its receiver's GossipStage cost count
/// ([`Deltas::new_state_count`]), so that the receiver need not look every entry up again.
///
/// The count of heartbeat-only entries reads, per entry, only whether the receiver knows the
/// endpoint and in which generation; a node's `GNode::epoch` moves with every change of either,
/// and never back. An ACK's entries are the SYN receiver's newer states for the SYN sender's
/// digests, which were the sender's summary column at the SYN's epoch: when none is of a newer
/// generation than its digest (but the sender's own, which is not counted), the count is 0
/// while the sender is still at that epoch. An ACK2 answers the ACK's requests, which were made
/// against the answering node's column at its epoch then: when none asked for an endpoint in
/// full (unknown there, or of an older generation) and the SYN sender's own column is still as
/// it was when it sent the SYN (so every entry is of the generation asked for), the count is 0
/// while the answering node is still at that epoch. Messages with application states, and every
/// other case, are counted in full.
#[derive(Clone, Copy, Debug)]
pub struct CountHint {
    /// The receiver's count is 0 while its epoch is this (`NO_EPOCH`: count in full).
    pub zero_at: u32,
    /// An ACK's: its maker's epoch when it examined the SYN, if it asked for nothing in full
    /// (what the ACK2 that answers it may promise); `NO_EPOCH` otherwise.
    pub reply_zero_at: u32,
}

/// No epoch: `Digests` made by hand, or no shortcut.
pub const NO_EPOCH: u32 = u32::MAX;

impl Default for CountHint {
    fn default() -> Self {
        CountHint {
            zero_at: NO_EPOCH,
            reply_zero_at: NO_EPOCH,
        }
    }
}

impl CountHint {
    /// The hint of an ACK2 made at `epoch` by a node whose SYN (taken at `syn_epoch`) was
    /// answered by an ACK carrying `self`: the answering node's promise holds when this node's
    /// column is as it was when the SYN left (every entry of the generation asked for).
    pub fn for_reply(self, syn_epoch: u32, epoch: u32) -> CountHint {
        CountHint {
            zero_at: if syn_epoch == epoch {
                self.reply_zero_at
            } else {
                NO_EPOCH
            },
            reply_zero_at: NO_EPOCH,
        }
    }
}

/// Does a change of an endpoint's summary from `was` to `now` move its node's epoch (see
/// [`CountHint`])? A change of generation or of presence does.
pub fn moves_epoch(was: Option<Summary>, now: Option<Summary>) -> bool {
    was.map(|w| w.generation) != now.map(|s| s.generation)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeltaEntry {
    pub ep: NodeId,
    pub hb: HeartBeat,
    start: u32,
    len: u32,
}

impl DeltaEntry {
    /// Does the entry carry application states (else it is a heartbeat alone)?
    pub fn has_states(&self) -> bool {
        self.len > 0
    }
}

/// One endpoint's state in a `Deltas`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Delta<'a> {
    pub ep: NodeId,
    pub hb: HeartBeat,
    pub states: &'a [AppState],
}

impl Deltas {
    /// Heap bytes this owns (the entries and the application states; their strings are shared).
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<DeltaEntry>()
            + self.states.capacity() * std::mem::size_of::<AppState>()
    }

    pub fn with_capacity(n: usize) -> Self {
        Deltas {
            entries: Vec::with_capacity(n),
            states: Vec::new(),
            hint: CountHint::default(),
        }
    }

    /// Empty, with room for `n` entries, keeping the allocations.
    pub fn reset(&mut self, n: usize) {
        self.entries.clear();
        self.states.clear();
        self.entries.reserve(n);
        self.hint = CountHint::default();
    }

    /// The hint its maker worked out (see [`CountHint`]).
    pub fn hint(&self) -> CountHint {
        self.hint
    }

    pub(crate) fn set_hint(&mut self, hint: CountHint) {
        self.hint = hint;
    }

    /// [`Self::new_state_count`] from the hint, when it holds at `epoch` (the receiver's
    /// `GNode::epoch`) and every entry is a heartbeat alone; `None`: count in full.
    pub fn hinted_count(&self, epoch: u32) -> Option<u64> {
        (self.states.is_empty() && self.hint.zero_at == epoch && epoch != NO_EPOCH).then_some(0)
    }

    /// `newer_than` for endpoint `ep` of a node's `map` whose summary is `l`: the state itself
    /// is read only when it has application states newer than `version`.
    ///
    /// Inline for the common heartbeat-only entry (an ACK2 answers ~60 requests: a call each was
    /// most of its cost); the case with application states out of line.
    #[inline]
    pub fn push_newer(
        &mut self,
        l: Summary,
        map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
        ep: NodeId,
        version: u32,
    ) -> bool {
        if l.max_state_version > version {
            self.push_with_states(l, map, ep, version)
        } else if l.hb_version > version {
            let start = self.states.len() as u32;
            self.entries.push(DeltaEntry {
                ep,
                hb: l.hb(),
                start,
                len: 0,
            });
            true
        } else {
            false
        }
    }

    /// An ACK2's entries: [`Self::push_newer`] for each request of an ACK whose endpoint is
    /// known here (`summaries`, the column of `map`). The common heartbeat-only answers go in
    /// runs written straight into the spare capacity, the lengths in registers (a call per
    /// request, or one to grow the list, kept them on the stack); an entry with application
    /// states ends a run. Out of line, as `examine_into` is.
    #[inline(never)]
    pub fn answer(
        &mut self,
        requests: &[Digest],
        summaries: &[Option<Summary>],
        map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    ) {
        self.entries.reserve(requests.len());
        let mut i = 0;
        while i < requests.len() {
            i = self.heartbeat_run(requests, summaries, i);
            let Some(d) = requests.get(i) else { break };
            if let Some(Some(l)) = summaries.get(d.ep as usize) {
                self.push_newer(*l, map, d.ep, d.max_version);
            }
            i += 1;
        }
    }

    /// [`Self::answer`]'s run from request `from` on: each request of a known endpoint without
    /// application states newer than asked, its heartbeat entry when newer; stops (returning the
    /// index) at the first request it leaves to [`Self::push_newer`] or when the list is full.
    #[inline(always)]
    fn heartbeat_run(
        &mut self,
        requests: &[Digest],
        summaries: &[Option<Summary>],
        from: usize,
    ) -> usize {
        let start = self.states.len() as u32;
        let mut n = self.entries.len();
        let end = requests
            .len()
            .min(from.saturating_add(self.entries.capacity() - n));
        let p = self.entries.as_mut_ptr();
        let mut i = from;
        while i < end {
            let d = requests[i];
            let Some(l) = summaries.get(d.ep as usize).copied().flatten() else {
                i += 1;
                continue;
            };
            if l.max_state_version > d.max_version {
                break;
            }
            // SAFETY: fewer than `capacity - len` requests since `from`, each adding at most
            // one entry: the slot is within the capacity; the length below covers only the
            // slots kept.
            unsafe {
                p.add(n).write(DeltaEntry {
                    ep: d.ep,
                    hb: l.hb(),
                    start,
                    len: 0,
                });
            }
            n += (l.hb_version > d.max_version) as usize;
            i += 1;
        }
        // SAFETY: every slot below `n` is initialised and within the capacity (see `end`).
        unsafe { self.entries.set_len(n) };
        i
    }

    /// [`Self::push_newer`] when `ep` has application states newer than `version`.
    #[inline(never)]
    fn push_with_states(
        &mut self,
        l: Summary,
        map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
        ep: NodeId,
        version: u32,
    ) -> bool {
        map[ep as usize]
            .as_ref()
            .expect("a summary has a state")
            .newer_than_with(l.hb(), ep, version, self)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// How many application states (a new endpoint state counting its heartbeat as one) a node
    /// `me` whose summary column is `summaries` would take from these entries: the GossipStage
    /// cost of an ACK or ACK2 in units of `apply_state_cost`. Per entry, with `l` the local
    /// summary: unknown or an older generation, all of its states and the heartbeat; the same
    /// generation, its states newer than `l.max_version()`; a newer generation, none.
    pub fn new_state_count(&self, me: NodeId, summaries: &[Option<Summary>]) -> u64 {
        let mut count = 0u64;
        for e in &self.entries {
            let l = &summaries[e.ep as usize];
            if e.len == 0 {
                // Most entries: a heartbeat, which counts only as a new endpoint state. Without
                // a branch on the comparison (the loop is over hundreds of entries per message).
                let new = l.is_none_or(|l| e.hb.generation > l.generation);
                count += (new && e.ep != me) as u64;
            } else if e.ep != me {
                let states = &self.states[e.start as usize..(e.start + e.len) as usize];
                count += match *l {
                    Some(l) if e.hb.generation == l.generation => {
                        let lm = l.max_version();
                        states.iter().filter(|s| s.version > lm).count() as u64
                    }
                    Some(l) if e.hb.generation < l.generation => 0,
                    _ => states.len() as u64 + 1,
                };
            }
        }
        count
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries themselves: what a pass over a message's heartbeats reads (an entry with
    /// application states is [`Self::get`]).
    pub fn entries(&self) -> &[DeltaEntry] {
        &self.entries
    }

    pub fn get(&self, i: usize) -> Delta<'_> {
        let e = self.entries[i];
        Delta {
            ep: e.ep,
            hb: e.hb,
            states: &self.states[e.start as usize..(e.start + e.len) as usize],
        }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Delta<'_>> + '_ {
        (0..self.entries.len()).map(|i| self.get(i))
    }
}

impl Delta<'_> {
    pub fn max_version(&self) -> u32 {
        self.states
            .iter()
            .map(|s| s.version)
            .fold(self.hb.version, u32::max)
    }

    /// The study notes' notation: `[ApplicationState "k": v, generation g, version n], ...,
    /// [HeartBeatState, generation g, version n]`, appended to `s`: a message body's lines
    /// written into one buffer, the numbers without the formatting machinery (a 251-node run
    /// renders ~4 MB of bodies).
    pub fn render_into(&self, s: &mut String) {
        use crate::text::push_u64;
        for st in self.states.iter() {
            s.push_str("[ApplicationState \"");
            s.push_str(&st.key);
            s.push_str("\": ");
            s.push_str(&st.value);
            s.push_str(", generation ");
            push_u64(s, self.hb.generation.into());
            s.push_str(", version ");
            push_u64(s, st.version.into());
            s.push_str("], ");
        }
        s.push_str("[HeartBeatState, generation ");
        push_u64(s, self.hb.generation.into());
        s.push_str(", version ");
        push_u64(s, self.hb.version.into());
        s.push(']');
    }
}

/// An endpoint state's generation, heartbeat version, application states' max version and
/// liveness (13 bytes, 16 as an `Option`): what a digest says about it, enough to answer the
/// common heartbeat-only `newer_than` without the state, and enough to apply the common
/// heartbeat-only update of a live peer. Nodes keep one per peer in a dense column beside the
/// endpoint state map (`GNode::summaries`), so building a SYN's digests, comparing a received
/// SYN's with the local ones and taking in a gossip round's heartbeats read 16 bytes a peer
/// instead of a 64-byte state each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    pub generation: u32,
    pub hb_version: u32,
    /// Max version of the application states (0 without any).
    pub max_state_version: u32,
    pub alive: bool,
}

impl Summary {
    pub fn of(st: Option<&EndpointState>) -> Option<Summary> {
        st.map(|s| Summary {
            generation: s.hb.generation,
            hb_version: s.hb.version,
            max_state_version: s.maxs,
            alive: s.alive,
        })
    }

    pub fn max_version(&self) -> u32 {
        self.hb_version.max(self.max_state_version)
    }

    pub fn hb(&self) -> HeartBeat {
        HeartBeat {
            generation: self.generation,
            version: self.hb_version,
        }
    }

    /// The column for a whole map.
    pub fn column(map: &[Option<EndpointState>]) -> Vec<Option<Summary>> {
        map.iter().map(|s| Summary::of(s.as_ref())).collect()
    }

    /// How many endpoints a column knows (its `Some` entries): the number of digests a SYN
    /// made from it carries (`GNode::known` keeps it as the column changes).
    pub fn known(column: &[Option<Summary>]) -> usize {
        column.iter().filter(|s| s.is_some()).count()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Digest {
    pub ep: NodeId,
    pub generation: u32,
    pub max_version: u32,
}

impl Digest {
    /// `name:generation:max_version`, appended to `s` (a message body's line).
    pub fn render_into(&self, topo: &Topology, s: &mut String) {
        use crate::text::push_u64;
        s.push_str(topo.name(self.ep));
        s.push(':');
        push_u64(s, self.generation.into());
        s.push(':');
        push_u64(s, self.max_version.into());
    }
}

/// What B answers to A's SYN digests: digests it requests, and states it sends.
#[derive(Clone, Debug, Default)]
pub struct Examined {
    pub requests: Vec<Digest>,
    pub sends: Deltas,
    /// How many of `sends` are of a newer generation than their digest.
    pub newer: u32,
    /// How many of `requests` ask for an endpoint in full (unknown here, or of an older
    /// generation).
    pub asked_all: u32,
}

/// Equal when they answer the same (the counts follow from the lists).
impl PartialEq for Examined {
    fn eq(&self, other: &Self) -> bool {
        self.requests == other.requests && self.sends == other.sends
    }
}

impl Examined {
    /// The hint of the ACK that carries this answer to `digests` (from node `from`), made by
    /// a node at `epoch` whose summary column is `summaries`: the ACK's count is 0 at the
    /// SYN's epoch when no entry but `from`'s own is of a newer generation than its digest;
    /// the ACK2 may promise 0 at `epoch` when nothing was asked for in full.
    pub fn ack_hint(
        &self,
        digests: &Digests,
        summaries: &[Option<Summary>],
        from: NodeId,
        epoch: u32,
    ) -> CountHint {
        // `from`'s own entry is not counted there; made (if at all) in the case of a newer
        // generation here, where the entries are in endpoint order.
        let own = digests
            .get(from)
            .zip(summaries.get(from as usize).copied().flatten());
        let own_newer = own.is_some_and(|(r, l)| r.generation < l.generation)
            && self
                .sends
                .entries
                .binary_search_by_key(&from, |e| e.ep)
                .is_ok();
        CountHint {
            zero_at: if self.newer == own_newer as u32 {
                digests.epoch
            } else {
                NO_EPOCH
            },
            reply_zero_at: if self.asked_all == 0 { epoch } else { NO_EPOCH },
        }
    }
}

/// Spare buffers of consumed ACKs and ACK2s, for the next SYN's examination and ACK2 (a
/// 251-node seed made ~70,000 buffers of 3-5 KB otherwise: a third of its allocations). Nothing
/// in them is read: a buffer is emptied before use, so where one came from changes nothing.
#[derive(Debug, Default)]
pub struct Pool {
    requests: Vec<Vec<Digest>>,
    deltas: Vec<Deltas>,
}

/// Buffers kept per kind.
const POOL_MAX: usize = 8;

/// A copy of the model (a checkpoint) starts with no spare buffers.
impl Clone for Pool {
    fn clone(&self) -> Self {
        Pool::default()
    }
}

impl Pool {
    /// Buffers for an examination.
    pub fn examined(&mut self) -> Examined {
        Examined {
            requests: self.requests.pop().unwrap_or_default(),
            sends: self.deltas.pop().unwrap_or_default(),
            newer: 0,
            asked_all: 0,
        }
    }

    /// An empty `Deltas` with room for `n` entries.
    pub fn deltas(&mut self, n: usize) -> Deltas {
        let mut d = self.deltas.pop().unwrap_or_default();
        d.reset(n);
        d
    }

    pub fn give_requests(&mut self, v: Vec<Digest>) {
        if self.requests.len() < POOL_MAX && v.capacity() > 0 {
            self.requests.push(v);
        }
    }

    pub fn give_deltas(&mut self, d: Deltas) {
        if self.deltas.len() < POOL_MAX && d.entries.capacity() > 0 {
            self.deltas.push(d);
        }
    }
}

/// Passes that visit at least 1/WARM_FRACTION of a node's peers first `warm` the per-peer arrays
/// they touch (see `warm_for`).
const WARM_FRACTION: usize = 8;

/// `warm(slice)` before a pass that visits `visits` of its elements, when that is enough of them
/// for one sequential sweep to cost less than the misses of the pass's own reads; whether it did
/// (so that the caller warms the pass's other per-peer arrays alike). Passes once came in a
/// SYN's shuffled order; they now go in endpoint order (see `Syn`), skipping the peers a message
/// does not name, and the sweep still pays: removing the warming from every pass measured ~10%
/// slower on the echo-race sweep (2026-12-01, AMD EPYC).
#[inline]
pub(crate) fn warm_for<T>(slice: &[T], visits: usize) -> bool {
    let pays = visits * WARM_FRACTION >= slice.len();
    if pays {
        warm(slice);
    }
    pays
}

/// Read one byte of every cache line of `slice` in address order, so that a pass over its
/// elements in random order that follows finds them in the cache: the hardware prefetcher
/// streams a sequential sweep at memory bandwidth, while random reads each wait for memory
/// (wasm has no prefetch instruction). A performance measure only: it never changes a result.
#[inline]
pub(crate) fn warm<T>(slice: &[T]) {
    warm_bytes(slice.as_ptr().cast(), std::mem::size_of_val(slice));
}

/// [`warm`] over `len` bytes from `p`, out of line: one copy in the app's download, not one per
/// call site, for a call that reads hundreds of lines.
#[inline(never)]
fn warm_bytes(p: *const std::mem::MaybeUninit<u8>, len: usize) {
    let mut off = 0;
    // A volatile read is never left out, though nothing uses it. Four lines a step: a sweep of
    // a node's detector lines is 250 reads, and the loop's own instructions were most of its cost
    // (one read, the black box's store, the count and the test a line).
    while off + 192 < len {
        // SAFETY: `off + 192 < len`: all four stay inside the slice's memory; reading a
        // possibly uninitialised (padding) byte as `MaybeUninit<u8>` is allowed.
        unsafe {
            p.add(off).read_volatile();
            p.add(off + 64).read_volatile();
            p.add(off + 128).read_volatile();
            p.add(off + 192).read_volatile();
        }
        off += 256;
    }
    while off < len {
        // SAFETY: as above, `off < len`.
        unsafe { p.add(off).read_volatile() };
        off += 64;
    }
}

/// A SYN's digests (`makeRandomGossipDigest`): one per known endpoint, in endpoint order. Held as
/// the sender's summary column copied whole when the round began: the digest of endpoint `ep` is
/// its generation and max version, for each known (`Some`) entry `ep`. A round copies 16 bytes a
/// peer in one `memcpy` instead of writing a `Digest` per peer (~27 instructions each, 10% of a
/// 251-node run), and the receiver compares two columns side by side.
#[derive(Clone, Debug)]
pub struct Digests {
    column: Arc<[Option<Summary>]>,
    /// How many entries are known: the number of digests.
    len: u32,
    /// The sender's `GNode::epoch` when it took them (`NO_EPOCH` when made by hand): see
    /// [`CountHint`].
    pub epoch: u32,
}

impl Digests {
    /// The digests of every known endpoint of a summary column, `known` of them (a node keeps
    /// the count: `GNode::known`).
    pub fn of(column: &[Option<Summary>], known: usize) -> Digests {
        debug_assert_eq!(known, Summary::known(column));
        Digests {
            len: known as u32,
            column: column.into(),
            epoch: NO_EPOCH,
        }
    }

    /// [`Digests::of`] sharing the column instead of copying it (a node's own column: see
    /// `GNode::summaries`).
    pub fn of_shared(column: &Arc<[Option<Summary>]>, known: usize) -> Digests {
        debug_assert_eq!(known, Summary::known(column));
        Digests {
            len: known as u32,
            column: column.clone(),
            epoch: NO_EPOCH,
        }
    }

    /// Digests given one by one (tests, hand-made messages), in any order; one per endpoint.
    pub fn from_list(list: &[Digest]) -> Digests {
        let n = list.iter().map(|d| d.ep as usize + 1).max().unwrap_or(0);
        let mut column = vec![None; n];
        for d in list {
            let slot = &mut column[d.ep as usize];
            assert!(slot.is_none(), "one digest per endpoint ({} twice)", d.ep);
            *slot = Some(Summary {
                generation: d.generation,
                hb_version: d.max_version,
                max_state_version: 0,
                alive: true,
            });
        }
        Digests {
            len: list.len() as u32,
            column: column.into(),
            epoch: NO_EPOCH,
        }
    }

    /// How many digests.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The digest of endpoint `ep` as its summary (`None` when not among them).
    pub fn get(&self, ep: NodeId) -> Option<Summary> {
        self.column.get(ep as usize).copied().flatten()
    }

    /// The digests in endpoint order.
    pub fn iter(&self) -> impl Iterator<Item = Digest> + '_ {
        self.column.iter().enumerate().filter_map(|(ep, s)| {
            s.map(|s| Digest {
                ep: ep as NodeId,
                generation: s.generation,
                max_version: s.max_version(),
            })
        })
    }

    pub fn to_vec(&self) -> Vec<Digest> {
        self.iter().collect()
    }

    /// Heap bytes of the copied column.
    pub fn heap_bytes(&self) -> usize {
        self.column.len() * std::mem::size_of::<Option<Summary>>()
    }
}

/// Equal when they name the same digests (what else a summary says is not on the wire).
impl PartialEq for Digests {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

mod examine;
pub use examine::{examine, examine_into};

#[cfg(test)]
mod tests;
