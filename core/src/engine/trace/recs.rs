//! The trace's records, packed: 16 bytes per common record in chunks of 1,024, labels interned,
//! wide records kept aside (split from `engine/trace.rs`, which keeps the record types, the
//! hash, the log arena and the JSON form).

use super::*;

/// Records per storage chunk. The record store grows one exact-capacity chunk at a time, so
/// unused capacity is at most one chunk (no `Vec` doubling slack, no large reallocation copies).
const CHUNK_BITS: u32 = 10;
pub(super) const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNK_MASK: usize = CHUNK - 1;

/// Slots in the label cache (pointer-keyed, direct-mapped, in front of the by-content table).
const LABEL_CACHE: usize = 64;

/// Tags of [`Packed`]: 1..=11 are the `RecKind` variants in hash order, 0 is a record kept whole
/// in the overflow arena because some field does not fit the packed form.
const TAG_WIDE: u8 = 0;
const TAG_SEND: u8 = 1;
const TAG_DELIVER: u8 = 2;
const TAG_DROP: u8 = 3;
const TAG_TIMER: u8 = 4;
const TAG_TASK_START: u8 = 5;
const TAG_TASK_DONE: u8 = 6;
const TAG_TASK_EXPIRED: u8 = 7;
const TAG_STATE: u8 = 8;
const TAG_LOG: u8 = 9;
const TAG_ACTION: u8 = 10;
const TAG_NODE_STATUS: u8 = 11;

/// One record as stored: 32 bytes on every target (a decoded [`Rec`] is 64 natively).
///
/// `step` is relative to the first step of the record's chunk; labels are indices into the
/// store's label table; the second time of a kind (`deliver_at`, `sent_at`, `waited_us`) is a
/// `u32` distance from `time`. A record any of whose values does not fit (a message id above
/// `u32::MAX`, a delivery more than ~71 minutes away, more than 65,535 distinct labels, ...) is
/// kept whole in the overflow arena (`TAG_WIDE`, `a` = its index there): nothing is truncated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Packed {
    time: u64,
    step: u32,
    node: u32,
    /// msg (Send/Deliver/Drop), peer (State), line (Log), index (Action), arena index (wide).
    a: u32,
    /// to (Send), from (Deliver, Drop).
    b: u32,
    /// deliver_at - time (Send), time - sent_at (Deliver), to (Drop), waited_us (TaskStart/Expired).
    c: u32,
    label: u16,
    tag: u8,
    /// exec (tasks), reason (Drop), status (NodeStatus).
    small: u8,
}

fn reason_to_u8(r: DropReason) -> u8 {
    match r {
        DropReason::LinkDown => 0,
        DropReason::Loss => 1,
        DropReason::NodeStopped => 2,
        DropReason::NodeRestarted => 3,
        DropReason::Discarded => 4,
        DropReason::Forked => 5,
    }
}

fn reason_from_u8(v: u8) -> DropReason {
    match v {
        0 => DropReason::LinkDown,
        1 => DropReason::Loss,
        2 => DropReason::NodeStopped,
        3 => DropReason::NodeRestarted,
        4 => DropReason::Discarded,
        5 => DropReason::Forked,
        _ => unreachable!("drop reason tag {v}"),
    }
}

fn status_to_u8(s: crate::engine::NodeStatus) -> u8 {
    use crate::engine::NodeStatus as S;
    match s {
        S::Running => 0,
        S::Stopping => 1,
        S::Stopped => 2,
    }
}

fn status_from_u8(v: u8) -> crate::engine::NodeStatus {
    use crate::engine::NodeStatus as S;
    match v {
        0 => S::Running,
        1 => S::Stopping,
        2 => S::Stopped,
        _ => unreachable!("node status tag {v}"),
    }
}

/// Interned labels: `&'static str`s deduplicated by content, indexed by `u16`.
#[derive(Clone, Debug, Default)]
pub(super) struct Labels {
    pub(super) table: Vec<&'static str>,
    by_content: std::collections::BTreeMap<&'static str, u16>,
    /// (pointer, length, index) by a hash of the pointer: a hit skips the content lookup.
    cache: Vec<(usize, usize, u16)>,
}

impl Labels {
    /// The index of `s`, added if new; `None` when the table is full.
    #[inline]
    fn intern(&mut self, s: &'static str) -> Option<u16> {
        let (ptr, len) = (s.as_ptr() as usize, s.len());
        let slot = ((ptr as u64 ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
        if let Some(&(p, l, i)) = self.cache.get(slot) {
            if p == ptr && l == len {
                return Some(i);
            }
        }
        self.intern_slow(s, slot)
    }

    #[cold]
    fn intern_slow(&mut self, s: &'static str, slot: usize) -> Option<u16> {
        let i = match self.by_content.get(s) {
            Some(&i) => i,
            None => {
                let i = u16::try_from(self.table.len()).ok()?;
                self.table.push(s);
                self.by_content.insert(s, i);
                i
            }
        };
        if self.cache.is_empty() {
            // No string is usize::MAX bytes long: empty slots never hit.
            self.cache = vec![(0, usize::MAX, 0); LABEL_CACHE];
        }
        self.cache[slot] = (s.as_ptr() as usize, s.len(), i);
        Some(i)
    }

    fn bytes(&self) -> usize {
        use std::mem::size_of;
        self.table.capacity() * size_of::<&'static str>()
            // A B-tree node holds up to 11 entries; count each entry with a share of its node.
            + self.by_content.len() * (size_of::<(&'static str, u16)>() + 8)
            + self.cache.capacity() * size_of::<(usize, usize, u16)>()
    }
}

/// The trace's records, packed (see [`Packed`]) in fixed-size chunks. Accessors decode to
/// [`Rec`] values: `get`, `last`, `iter`, `range`, `partition_point`.
#[derive(Clone, Default)]
pub struct Recs {
    pub(super) chunks: Vec<Vec<Packed>>,
    /// Step of the first record of each chunk (packed steps are relative to it).
    pub(super) bases: Vec<u64>,
    len: usize,
    pub(super) labels: Labels,
    /// Records that do not fit the packed form, in trace order.
    wide: Vec<Rec>,
    /// Indices of the `Drop` records, ascending: views that draw the messages lost near the
    /// cursor (the topology, the timeline) find them without decoding every record around it.
    drops: Vec<u32>,
}

impl Recs {
    /// Bytes one stored record takes (a decoded [`Rec`] is bigger).
    pub const PACKED_BYTES: usize = std::mem::size_of::<Packed>();
    /// Records per storage chunk: unused capacity is always less than this.
    pub const CHUNK_RECORDS: usize = CHUNK;

    pub fn new() -> Self {
        Recs::default()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Record slots allocated (at most one chunk more than `len`).
    pub fn capacity(&self) -> usize {
        self.chunks.iter().map(Vec::capacity).sum()
    }

    /// Heap bytes retained: chunks, the chunk tables, the label table and the overflow arena.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.capacity() * size_of::<Packed>()
            + self.chunks.capacity() * size_of::<Vec<Packed>>()
            + self.bases.capacity() * size_of::<u64>()
            + self.labels.bytes()
            + self.wide.capacity() * size_of::<Rec>()
            + self.drops.capacity() * size_of::<u32>()
    }

    /// Indices of the `Drop` records, ascending.
    pub fn drops(&self) -> &[u32] {
        &self.drops
    }

    /// How many `Drop` records come before record `i` (the index into `drops` of the first at
    /// or after it).
    pub fn drops_before(&self, i: usize) -> usize {
        self.drops.partition_point(|&d| (d as usize) < i)
    }

    /// Records kept whole in the overflow arena (values that do not fit the packed form).
    pub fn overflow_len(&self) -> usize {
        self.wide.len()
    }

    /// Append a record. Not inlined: `Sim::emit` stays small enough to inline into its callers.
    #[inline(never)]
    pub fn push(&mut self, r: Rec) {
        if matches!(r.kind, RecKind::Drop { .. }) {
            self.drops
                .push(u32::try_from(self.len).expect("fewer than 2^32 records"));
        }
        if self.len & CHUNK_MASK == 0 {
            // The last chunk (if any) is full: start one, exactly one chunk big.
            self.chunks.push(Vec::with_capacity(CHUNK));
            self.bases.push(r.step);
        }
        let ci = self.len >> CHUNK_BITS;
        let base = self.bases[ci];
        let chunk = &mut self.chunks[ci];
        // Packed in place, field by field: building it elsewhere and copying it in costs a
        // store-forwarding stall per record (narrow stores read back as 16-byte loads).
        chunk.push(Packed::default());
        let slot = chunk.last_mut().expect("just pushed");
        if Self::pack_into(slot, &mut self.labels, &r, base).is_none() {
            *slot = Self::pack_wide(&mut self.wide, r);
        }
        self.len += 1;
    }

    #[cold]
    fn pack_wide(wide: &mut Vec<Rec>, r: Rec) -> Packed {
        let a = u32::try_from(wide.len()).expect("fewer than 2^32 overflow records");
        wide.push(r);
        Packed {
            tag: TAG_WIDE,
            a,
            ..Packed::default()
        }
    }

    /// Write the packed form of `r` (in a chunk starting at step `base`) into `p`; `None` when
    /// some value does not fit (`p` is then partly written).
    #[inline(always)]
    fn pack_into(p: &mut Packed, labels: &mut Labels, r: &Rec, base: u64) -> Option<()> {
        p.step = u32::try_from(r.step.checked_sub(base)?).ok()?;
        p.time = r.time;
        p.node = r.node;
        let small32 = |v: u64| u32::try_from(v).ok();
        match r.kind {
            RecKind::Send {
                msg,
                to,
                label,
                deliver_at,
            } => {
                p.tag = TAG_SEND;
                p.a = small32(msg)?;
                p.b = to;
                p.c = small32(deliver_at.checked_sub(r.time)?)?;
                p.label = labels.intern(label)?;
            }
            RecKind::Deliver {
                msg,
                from,
                label,
                sent_at,
            } => {
                p.tag = TAG_DELIVER;
                p.a = small32(msg)?;
                p.b = from;
                p.c = small32(r.time.checked_sub(sent_at)?)?;
                p.label = labels.intern(label)?;
            }
            RecKind::Drop {
                msg,
                from,
                to,
                label,
                reason,
            } => {
                p.tag = TAG_DROP;
                p.a = small32(msg)?;
                p.b = from;
                p.c = to;
                p.small = reason_to_u8(reason);
                p.label = labels.intern(label)?;
            }
            RecKind::Timer { label } => {
                p.tag = TAG_TIMER;
                p.label = labels.intern(label)?;
            }
            RecKind::TaskStart {
                exec,
                label,
                waited_us,
            } => {
                p.tag = TAG_TASK_START;
                p.small = exec;
                p.c = small32(waited_us)?;
                p.label = labels.intern(label)?;
            }
            RecKind::TaskDone { exec, label } => {
                p.tag = TAG_TASK_DONE;
                p.small = exec;
                p.label = labels.intern(label)?;
            }
            RecKind::TaskExpired {
                exec,
                label,
                waited_us,
            } => {
                p.tag = TAG_TASK_EXPIRED;
                p.small = exec;
                p.c = small32(waited_us)?;
                p.label = labels.intern(label)?;
            }
            RecKind::State { label, peer } => {
                p.tag = TAG_STATE;
                p.a = peer;
                p.label = labels.intern(label)?;
            }
            RecKind::Log { line } => {
                p.tag = TAG_LOG;
                p.a = line;
            }
            RecKind::Action { index } => {
                p.tag = TAG_ACTION;
                p.a = index;
            }
            RecKind::NodeStatus { status } => {
                p.tag = TAG_NODE_STATUS;
                p.small = status_to_u8(status);
            }
        }
        Some(())
    }

    #[inline]
    fn unpack(&self, p: &Packed, base: u64) -> Rec {
        let label = || self.labels.table[p.label as usize];
        let kind = match p.tag {
            TAG_WIDE => return self.wide[p.a as usize],
            TAG_SEND => RecKind::Send {
                msg: p.a as u64,
                to: p.b,
                label: label(),
                deliver_at: p.time + p.c as u64,
            },
            TAG_DELIVER => RecKind::Deliver {
                msg: p.a as u64,
                from: p.b,
                label: label(),
                sent_at: p.time - p.c as u64,
            },
            TAG_DROP => RecKind::Drop {
                msg: p.a as u64,
                from: p.b,
                to: p.c,
                label: label(),
                reason: reason_from_u8(p.small),
            },
            TAG_TIMER => RecKind::Timer { label: label() },
            TAG_TASK_START => RecKind::TaskStart {
                exec: p.small,
                label: label(),
                waited_us: p.c as u64,
            },
            TAG_TASK_DONE => RecKind::TaskDone {
                exec: p.small,
                label: label(),
            },
            TAG_TASK_EXPIRED => RecKind::TaskExpired {
                exec: p.small,
                label: label(),
                waited_us: p.c as u64,
            },
            TAG_STATE => RecKind::State {
                label: label(),
                peer: p.a,
            },
            TAG_LOG => RecKind::Log { line: p.a },
            TAG_ACTION => RecKind::Action { index: p.a },
            TAG_NODE_STATUS => RecKind::NodeStatus {
                status: status_from_u8(p.small),
            },
            t => unreachable!("record tag {t}"),
        };
        Rec {
            step: base + p.step as u64,
            time: p.time,
            node: p.node,
            kind,
        }
    }

    #[inline]
    fn packed(&self, i: usize) -> &Packed {
        &self.chunks[i >> CHUNK_BITS][i & CHUNK_MASK]
    }

    /// Record `i`, decoded. Panics when `i >= len()`.
    #[inline]
    pub fn at(&self, i: usize) -> Rec {
        assert!(i < self.len, "record {i} of {}", self.len);
        let ci = i >> CHUNK_BITS;
        self.unpack(&self.chunks[ci][i & CHUNK_MASK], self.bases[ci])
    }

    /// Record `i`, decoded.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Rec> {
        (i < self.len).then(|| self.at(i))
    }

    pub fn first(&self) -> Option<Rec> {
        self.get(0)
    }

    pub fn last(&self) -> Option<Rec> {
        self.len.checked_sub(1).map(|i| self.at(i))
    }

    /// All records, decoded (double-ended: `.rev()` scans backwards).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            recs: self,
            front: 0,
            back: self.len,
        }
    }

    /// Records in an index range, decoded, like `recs[range].iter()` on a slice. Panics when the
    /// range is out of bounds.
    pub fn range(&self, range: impl std::ops::RangeBounds<usize>) -> Iter<'_> {
        use std::ops::Bound;
        let front = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s + 1,
            Bound::Unbounded => 0,
        };
        let back = match range.end_bound() {
            Bound::Included(&e) => e + 1,
            Bound::Excluded(&e) => e,
            Bound::Unbounded => self.len,
        };
        assert!(
            front <= back && back <= self.len,
            "record range {front}..{back} of {}",
            self.len
        );
        Iter {
            recs: self,
            front,
            back,
        }
    }

    /// The index of the first record for which `pred` is false, assuming the records are
    /// partitioned by it (as `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(&Rec) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(&self.at(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// First record index with `step >= step` (records are in step order). Uses the chunk bases
    /// to pick the chunk, then searches only the packed steps inside it.
    pub fn index_at_step(&self, step: u64) -> usize {
        // Chunks whose first step is < step: the answer is in the last of them (or its end).
        let c = self.bases.partition_point(|&b| b < step);
        if c == 0 {
            return 0;
        }
        let ci = c - 1;
        let chunk = &self.chunks[ci];
        let base = self.bases[ci];
        let within = chunk.partition_point(|p| {
            if p.tag == TAG_WIDE {
                self.wide[p.a as usize].step < step
            } else {
                base + (p.step as u64) < step
            }
        });
        (ci << CHUNK_BITS) + within
    }

    /// Keep the first `n` records.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        // Overflow records are in trace order: the first dropped one (if any) is where to cut.
        if let Some(w) = (n..self.len)
            .map(|i| self.packed(i))
            .find(|p| p.tag == TAG_WIDE)
            .map(|p| p.a as usize)
        {
            self.wide.truncate(w);
        }
        let keep_chunks = n.div_ceil(CHUNK);
        self.chunks.truncate(keep_chunks);
        self.bases.truncate(keep_chunks);
        if let Some(last) = self.chunks.last_mut() {
            last.truncate(n - ((keep_chunks - 1) << CHUNK_BITS));
        }
        self.drops.truncate(self.drops_before(n));
        self.len = n;
    }

    pub fn clear(&mut self) {
        self.truncate(0);
    }
}

impl PartialEq for Recs {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Recs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Extend<Rec> for Recs {
    fn extend<I: IntoIterator<Item = Rec>>(&mut self, iter: I) {
        for r in iter {
            self.push(r);
        }
    }
}

impl FromIterator<Rec> for Recs {
    fn from_iter<I: IntoIterator<Item = Rec>>(iter: I) -> Self {
        let mut r = Recs::new();
        r.extend(iter);
        r
    }
}

impl<'a> IntoIterator for &'a Recs {
    type Item = Rec;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Decoding iterator over [`Recs`].
#[derive(Clone)]
pub struct Iter<'a> {
    recs: &'a Recs,
    front: usize,
    back: usize,
}

impl Iterator for Iter<'_> {
    type Item = Rec;

    #[inline]
    fn next(&mut self) -> Option<Rec> {
        if self.front < self.back {
            let r = self.recs.at(self.front);
            self.front += 1;
            Some(r)
        } else {
            None
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }

    fn nth(&mut self, n: usize) -> Option<Rec> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Rec> {
        if self.front < self.back {
            self.back -= 1;
            Some(self.recs.at(self.back))
        } else {
            None
        }
    }

    fn nth_back(&mut self, n: usize) -> Option<Rec> {
        self.back = self.back.saturating_sub(n).max(self.front);
        self.next_back()
    }
}

impl ExactSizeIterator for Iter<'_> {}
impl std::iter::FusedIterator for Iter<'_> {}
