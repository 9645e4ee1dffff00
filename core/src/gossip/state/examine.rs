//! `Gossiper.examineGossiper`: a SYN's digests compared with the local summary column, and what
//! it answers (`Examined`, a GossipDigestAck's digest list and endpoint-state map) held as that
//! column with two bit masks.

use super::*;

/// What B answers to A's SYN digests (GossipDigestAck): the digests it requests and the states
/// it sends, both in endpoint order (the requests' order on the wire is the SYN's, see
/// `Syn::in_wire_order`).
///
/// Held as B's summary column when it examined the SYN (shared with B, which copies it on its
/// next change while this is out, as a SYN's digests are) and, per 64 endpoints, two words: a
/// send bit (the heartbeat of `column[ep]`, with no application state) and a request bit (the
/// digest of `column[ep]`: its generation and max version). Those are almost every entry of a
/// gossip round; the rest (a request for an endpoint in full, an entry with application
/// states) is listed in `rest`. The comparison then writes two words per 64 digests instead of
/// two list entries per digest, and the ACK's receiver reads the entries off the column.
#[derive(Clone, Debug, Default)]
pub struct Examined {
    column: Arc<[Option<Summary>]>,
    /// `bits[2 * w]`: sends of endpoints `64 * w ..`, bit `ep % 64`; `bits[2 * w + 1]`: requests.
    /// Only endpoints within both the SYN's and `column`'s length have bits.
    bits: Vec<u64>,
    /// Entries not read off the column (none in most ACKs: boxed, and pooled).
    rest: Option<Box<Rest>>,
    /// How many sends and requests in all (bits and `rest`).
    n_sends: u32,
    n_requests: u32,
    hint: CountHint,
    /// How many sends are of a newer generation than their digest.
    pub newer: u32,
    /// How many requests ask for an endpoint in full (unknown here, or of an older generation).
    pub asked_all: u32,
}

/// An ACK's entries that are not its maker's column: each list in endpoint order, no endpoint
/// also among the bits.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rest {
    /// Requests for an endpoint in full (max version 0, the remote's generation).
    requests: Vec<Digest>,
    /// Entries with application states.
    sends: Deltas,
}

/// Equal when they answer the same (the counts follow from the lists; the hint is not on the
/// wire).
impl PartialEq for Examined {
    fn eq(&self, other: &Self) -> bool {
        self.requests() == other.requests() && self.sends() == other.sends()
    }
}

/// The set bits of `w`, as indices from `base`, ascending.
#[inline(always)]
fn ones(mut w: u64, base: usize) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (w != 0).then(|| {
            let i = w.trailing_zeros() as usize;
            w &= w - 1;
            base + i
        })
    })
}

impl Examined {
    /// Empty, with spare buffers (`Pool`).
    pub(crate) fn with_buffers(bits: Vec<u64>, rest: Option<Box<Rest>>) -> Examined {
        Examined {
            bits,
            rest,
            ..Examined::default()
        }
    }

    /// The buffers to reuse (`Pool`), the column let go.
    pub(crate) fn into_buffers(self) -> (Vec<u64>, Option<Box<Rest>>) {
        (self.bits, self.rest)
    }

    /// The maker's column (what the bits read).
    pub fn column(&self) -> &[Option<Summary>] {
        &self.column
    }

    /// How many endpoint states it sends.
    pub fn sends_len(&self) -> usize {
        self.n_sends as usize
    }

    /// How many digests it requests.
    pub fn requests_len(&self) -> usize {
        self.n_requests as usize
    }

    pub fn hint(&self) -> CountHint {
        self.hint
    }

    pub(crate) fn set_hint(&mut self, hint: CountHint) {
        self.hint = hint;
    }

    /// The sends read off the column, as endpoints in ascending order (their heartbeat is
    /// `column[ep]`'s, with no application state).
    pub fn column_sends(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.bits
            .chunks_exact(2)
            .enumerate()
            .flat_map(|(w, b)| ones(b[0], w * 64))
            .map(|ep| ep as NodeId)
    }

    /// The send words: bit `ep % 64` of word `ep / 64`.
    pub fn send_words(&self) -> impl Iterator<Item = u64> + '_ {
        self.bits.iter().step_by(2).copied()
    }

    /// The sends with application states (`Deltas`, in endpoint order).
    pub fn listed_sends(&self) -> Option<&Deltas> {
        self.rest.as_deref().map(|r| &r.sends)
    }

    /// The requests in endpoint order: (endpoint, the max version asked from).
    fn requests_in_order(&self) -> impl Iterator<Item = Digest> + '_ {
        let column = &self.column;
        let bits = self
            .bits
            .chunks_exact(2)
            .enumerate()
            .flat_map(|(w, b)| ones(b[1], w * 64))
            .map(move |ep| {
                let l = column[ep].expect("a request bit is a known endpoint");
                Digest {
                    ep: ep as NodeId,
                    generation: l.generation,
                    max_version: l.max_version(),
                }
            });
        let listed = self.rest.as_deref().map_or(&[][..], |r| &r.requests[..]);
        merge_by_ep(bits, listed.iter().copied(), |d| d.ep)
    }

    /// The requests (GossipDigestAck's digest list), in endpoint order.
    pub fn requests(&self) -> Vec<Digest> {
        self.requests_in_order().collect()
    }

    /// The sends (GossipDigestAck's endpoint-state map), in endpoint order, as a list.
    pub fn sends(&self) -> Deltas {
        let mut out = Deltas::with_capacity(self.sends_len());
        let column = self.column_sends().map(|ep| Delta {
            ep,
            hb: self.column[ep as usize]
                .expect("a send bit is a known endpoint")
                .hb(),
            states: &[],
        });
        let listed = self.listed_sends().into_iter().flat_map(|d| d.iter());
        for d in merge_by_ep(column, listed, |d| d.ep) {
            out.push_delta(&d);
        }
        out
    }

    /// How many application states (a new endpoint state counting its heartbeat as one) a node
    /// `me` whose summary column is `summaries` would take from the sends: as
    /// [`Deltas::new_state_count`] on [`Self::sends`].
    pub fn new_state_count(&self, me: NodeId, summaries: &[Option<Summary>]) -> u64 {
        let mut count = 0u64;
        for (w, mut m) in self.send_words().enumerate() {
            while m != 0 {
                let ep = w * 64 + m.trailing_zeros() as usize;
                m &= m - 1;
                let hb = self.column[ep].expect("a send bit is known");
                // A heartbeat counts only as a new endpoint state.
                let new = summaries[ep].is_none_or(|l| hb.generation > l.generation);
                count += (new && ep != me as usize) as u64;
            }
        }
        count
            + self
                .listed_sends()
                .map_or(0, |d| d.new_state_count(me, summaries))
    }

    /// [`Self::new_state_count`] from the hint, when it holds at `epoch` and every send is a
    /// heartbeat alone (see [`Deltas::hinted_count`]).
    pub fn hinted_count(&self, epoch: u32) -> Option<u64> {
        let plain = self.listed_sends().is_none_or(|d| d.is_empty());
        (plain && self.hint.zero_at == epoch && epoch != NO_EPOCH).then_some(0)
    }

    /// Heap bytes this owns (the column counted whole, though it is shared).
    pub fn heap_bytes(&self) -> usize {
        self.column.len() * std::mem::size_of::<Option<Summary>>()
            + self.bits.capacity() * std::mem::size_of::<u64>()
            + self.rest.as_deref().map_or(0, |r| {
                std::mem::size_of::<Rest>()
                    + r.requests.capacity() * std::mem::size_of::<Digest>()
                    + r.sends.heap_bytes()
            })
    }

    fn rest(&mut self) -> &mut Rest {
        self.rest.get_or_insert_with(Box::default)
    }

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
        // generation here.
        let own = digests
            .get(from)
            .zip(summaries.get(from as usize).copied().flatten());
        let own_newer =
            own.is_some_and(|(r, l)| r.generation < l.generation) && self.sends_to(from);
        CountHint {
            zero_at: if self.newer == own_newer as u32 {
                digests.epoch
            } else {
                NO_EPOCH
            },
            reply_zero_at: if self.asked_all == 0 { epoch } else { NO_EPOCH },
        }
    }

    /// Does it send an entry for `ep`?
    fn sends_to(&self, ep: NodeId) -> bool {
        let (w, m) = crate::gossip::node::bit(ep as usize);
        self.bits.get(2 * w).is_some_and(|b| b & m != 0)
            || self
                .listed_sends()
                .is_some_and(|d| d.entries().binary_search_by_key(&ep, |e| e.ep).is_ok())
    }
}

/// Two lists in endpoint order (no endpoint in both) merged into one.
fn merge_by_ep<T>(
    a: impl Iterator<Item = T>,
    b: impl Iterator<Item = T>,
    ep: impl Fn(&T) -> NodeId,
) -> impl Iterator<Item = T> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) => {
            if ep(x) < ep(y) {
                a.next()
            } else {
                b.next()
            }
        }
        (Some(_), None) => a.next(),
        _ => b.next(),
    })
}

/// `Gossiper.examineGossiper`: compare each remote digest with the local map (`summaries`: the
/// map's `Summary` column, see `GNode::summaries`).
pub fn examine(
    map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    summaries: &[Option<Summary>],
    digests: &Digests,
) -> Examined {
    examine_into(map, &summaries.into(), digests, Examined::default())
}

/// [`examine`] into `out`'s buffers (emptied first; spare ones from `Pool`). The answer shares
/// `summaries`.
///
/// Out of line: inlined into the engine's step, the comparison's loop kept its pointers on the
/// stack (~40 instructions a digest).
#[inline(never)]
pub fn examine_into(
    map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    summaries: &Arc<[Option<Summary>]>,
    digests: &Digests,
    mut out: Examined,
) -> Examined {
    out.column = summaries.clone();
    if let Some(rest) = out.rest.as_deref_mut() {
        rest.requests.clear();
        rest.sends.reset(0);
    }
    out.newer = 0;
    out.asked_all = 0;
    out.hint = CountHint::default();
    // When the digests cover much of the map, one sequential sweep brings the summaries into the
    // cache first.
    warm_for(summaries, digests.len());
    // Both columns side by side; remote endpoints past the end of the local column are unknown
    // here.
    let (paired, beyond) = digests
        .column
        .split_at(digests.column.len().min(summaries.len()));
    let local = &summaries[..paired.len()];
    let words = paired.len().div_ceil(64);
    out.bits.clear();
    out.bits.resize(2 * words, 0);
    let (mut n_sends, mut n_requests) = (0u32, 0u32);
    for w in 0..words {
        let (lo, hi) = (w * 64, (w * 64 + 64).min(paired.len()));
        let (send, request, odd) = common_word(&paired[lo..hi], &local[lo..hi]);
        out.bits[2 * w] = send;
        out.bits[2 * w + 1] = request;
        n_sends += send.count_ones();
        n_requests += request.count_ones();
        // The other digests (rare): an application state the remote lacks, another
        // generation, or unknown here.
        for ep in ones(odd, lo) {
            let (Some(r), l) = (paired[ep], local[ep]) else {
                unreachable!("odd digests are known remotely")
            };
            let id = ep as NodeId;
            match l {
                // An application state the remote lacks: the entry needs the state itself,
                // and nothing is requested (ours is newer).
                Some(l) if l.generation == r.generation => {
                    n_sends += out.rest().sends.push_newer(l, map, id, r.max_version()) as u32;
                }
                // Ours is newer: send everything.
                Some(l) if r.generation < l.generation => {
                    if l.max_state_version > 0 {
                        out.rest().sends.push_newer(l, map, id, 0);
                    } else if l.hb_version > 0 {
                        out.bits[2 * w] |= 1 << (ep - lo);
                    } else {
                        continue;
                    }
                    out.newer += 1;
                    n_sends += 1;
                }
                // Unknown here, or the remote has a newer generation (a restart): request
                // everything.
                _ => {
                    ask_all(&mut out, id, r.generation);
                    n_requests += 1;
                }
            }
        }
    }
    for (i, r) in beyond.iter().enumerate() {
        if let Some(r) = r {
            ask_all(&mut out, (paired.len() + i) as NodeId, r.generation);
            n_requests += 1;
        }
    }
    out.n_sends = n_sends;
    out.n_requests = n_requests;
    out
}

/// `examine_into`'s common case for up to 64 digests side by side with the local summaries:
/// known on both sides with the same generation and no application state the remote lacks.
/// Returns the send bits (the local heartbeat is newer), the request bits (the remote is
/// newer) and the bits of the remote digests that are not the common case. Heartbeats only:
/// whether the remote or the local side is newer is a coin flip for the branch predictor, so
/// both bits are computed without a branch. Out of line: within `examine_into` the loop
/// kept reloading a slice's pointer from the stack (42 instructions a digest, 30 without).
#[inline(never)]
fn common_word(paired: &[Option<Summary>], local: &[Option<Summary>]) -> (u64, u64, u64) {
    let (mut send, mut request, mut odd) = (0u64, 0u64, 0u64);
    let n = paired.len().min(local.len()).min(64);
    let (paired, local) = (&paired[..n], &local[..n]);
    for i in 0..n {
        let Some(r) = paired[i] else { continue };
        let remote_max = r.max_version();
        match local[i] {
            Some(l) if l.generation == r.generation && l.max_state_version <= remote_max => {
                request |= ((remote_max > l.max_version()) as u64) << i;
                send |= ((l.hb_version > remote_max) as u64) << i;
            }
            _ => odd |= 1 << i,
        }
    }
    (send, request, odd)
}

/// `examine_into`'s rare case of an endpoint unknown here or of an older generation.
#[cold]
#[inline(never)]
fn ask_all(out: &mut Examined, ep: NodeId, generation: u32) {
    out.asked_all += 1;
    out.rest().requests.push(Digest {
        ep,
        generation,
        max_version: 0,
    });
}

impl Deltas {
    /// An ACK2's entries: [`Self::push_newer`] for each request of an ACK (in endpoint order)
    /// whose endpoint is known here (`summaries`, the column of `map`). The requests read off
    /// the ACK's column are walked bit by bit, the common heartbeat-only answers written straight
    /// into the spare capacity (a call per request, or one to grow the list, kept the lengths on
    /// the stack). Out of line, for the same reason as `examine_into`.
    #[inline(never)]
    pub fn answer(
        &mut self,
        ack: &Examined,
        summaries: &[Option<Summary>],
        map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    ) {
        self.entries.reserve(ack.requests_len());
        let listed = ack.rest.as_deref().map_or(&[][..], |r| &r.requests[..]);
        let mut li = 0;
        for (w, b) in ack.bits.chunks_exact(2).enumerate() {
            let (lo, hi) = (w * 64, w * 64 + 64);
            // The listed requests before this word's end, merged in by endpoint.
            let upto = li + listed[li..].partition_point(|d| (d.ep as usize) < hi);
            let mut m = b[1];
            while li < upto {
                let d = listed[li];
                let below = m & ((1u64 << (d.ep as usize - lo)) - 1);
                self.bit_run(below, lo, &ack.column, summaries, map);
                m &= !below;
                self.push_request(d, summaries, map);
                li += 1;
            }
            self.bit_run(m, lo, &ack.column, summaries, map);
        }
        for &d in &listed[li..] {
            self.push_request(d, summaries, map);
        }
    }

    fn push_request(
        &mut self,
        d: Digest,
        summaries: &[Option<Summary>],
        map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    ) {
        if let Some(Some(l)) = summaries.get(d.ep as usize) {
            self.push_newer(*l, map, d.ep, d.max_version);
        }
    }

    /// [`Self::answer`] for the requests of bit set `m` (endpoints `lo + bit`), each asking from
    /// `column[ep]`'s max version.
    #[inline(always)]
    fn bit_run(
        &mut self,
        mut m: u64,
        lo: usize,
        column: &[Option<Summary>],
        summaries: &[Option<Summary>],
        map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    ) {
        if m == 0 {
            return;
        }
        let mut start = self.states.len() as u32;
        let mut n = self.entries.len();
        // Each request adds at most one entry: `answer` reserved one per request.
        assert!(self.entries.capacity() - n >= m.count_ones() as usize);
        let p = self.entries.as_mut_ptr();
        while m != 0 {
            let ep = lo + m.trailing_zeros() as usize;
            m &= m - 1;
            let version = column[ep].map_or(0, |r| r.max_version());
            let Some(l) = summaries.get(ep).copied().flatten() else {
                continue;
            };
            if l.max_state_version > version {
                // SAFETY: every slot below `n` is initialised (written below or before).
                unsafe { self.entries.set_len(n) };
                self.push_with_states(l, map, ep as NodeId, version);
                n = self.entries.len();
                start = self.states.len() as u32;
                continue;
            }
            // SAFETY: fewer requests than the spare capacity checked above, each adding at
            // most one entry: the slot is within the capacity; the length below covers only
            // the slots kept.
            unsafe {
                p.add(n).write(DeltaEntry {
                    ep: ep as NodeId,
                    hb: l.hb(),
                    start,
                    len: 0,
                });
            }
            n += (l.hb_version > version) as usize;
        }
        // SAFETY: every slot below `n` is initialised and within the capacity.
        unsafe { self.entries.set_len(n) };
    }
}
