//! Mutation ids and offsets as sorted ranges (Cassandra's `ShortMutationId`, `Offsets`,
//! `Log2OffsetsMap`).
//!
//! One primary coordinator log per node: the log id is the host's `NodeId` (Cassandra's
//! `CoordinatorLogId{hostId, logId}` with a single log per host).

use crate::engine::NodeId;
use std::collections::BTreeMap;
use std::fmt;

/// A mutation id: (coordinator log, offset in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MutId {
    pub log: NodeId,
    pub offset: u32,
}

impl MutId {
    pub fn new(log: NodeId, offset: u32) -> Self {
        MutId { log, offset }
    }
}

/// A set of offsets of one log as sorted, disjoint, non-adjacent inclusive ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offsets {
    ranges: Vec<(u32, u32)>,
}

impl Offsets {
    pub fn new() -> Self {
        Offsets::default()
    }
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
    pub fn len(&self) -> u64 {
        self.ranges.iter().map(|(a, b)| (*b - *a) as u64 + 1).sum()
    }
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }
    pub fn contains(&self, o: u32) -> bool {
        let i = self.ranges.partition_point(|r| r.1 < o);
        i < self.ranges.len() && self.ranges[i].0 <= o
    }
    /// Add one offset; returns whether it was new.
    pub fn add(&mut self, o: u32) -> bool {
        if self.contains(o) {
            return false;
        }
        self.add_range(o, o);
        true
    }
    pub fn add_range(&mut self, lo: u32, hi: u32) {
        debug_assert!(lo <= hi);
        let mut lo = lo;
        let mut hi = hi;
        // ranges overlapping or adjacent to [lo, hi]
        let start = self
            .ranges
            .partition_point(|r| (r.1 as u64) + 1 < lo as u64);
        let mut end = start;
        while end < self.ranges.len() && (self.ranges[end].0 as u64) <= hi as u64 + 1 {
            lo = lo.min(self.ranges[end].0);
            hi = hi.max(self.ranges[end].1);
            end += 1;
        }
        self.ranges.splice(start..end, [(lo, hi)]);
    }
    pub fn remove(&mut self, o: u32) {
        let i = self.ranges.partition_point(|r| r.1 < o);
        if i >= self.ranges.len() || self.ranges[i].0 > o {
            return;
        }
        let (a, b) = self.ranges[i];
        let mut repl = Vec::with_capacity(2);
        if a < o {
            repl.push((a, o - 1));
        }
        if o < b {
            repl.push((o + 1, b));
        }
        self.ranges.splice(i..=i, repl);
    }
    pub fn union_with(&mut self, other: &Offsets) {
        for &(a, b) in &other.ranges {
            self.add_range(a, b);
        }
    }
    pub fn union(a: &Offsets, b: &Offsets) -> Offsets {
        let mut out = a.clone();
        out.union_with(b);
        out
    }
    /// Remove every offset of `other`: one merge over both range lists (linear in the ranges,
    /// not in the offsets: a read's summary subtracts a log's whole reconciled prefix).
    pub fn subtract(&mut self, other: &Offsets) {
        if self.ranges.is_empty() || other.ranges.is_empty() {
            return;
        }
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        let mut j = 0;
        for &(a, b) in &self.ranges {
            let mut lo = a as u64;
            let hi = b as u64;
            while j < other.ranges.len() && (other.ranges[j].1 as u64) < lo {
                j += 1;
            }
            let mut k = j;
            while lo <= hi && k < other.ranges.len() && (other.ranges[k].0 as u64) <= hi {
                let (c, d) = (other.ranges[k].0 as u64, other.ranges[k].1 as u64);
                if c > lo {
                    out.push((lo as u32, (c - 1) as u32));
                }
                lo = lo.max(d + 1);
                if d <= hi {
                    k += 1;
                } else {
                    break;
                }
            }
            if lo <= hi {
                out.push((lo as u32, hi as u32));
            }
            j = k;
        }
        self.ranges = out;
    }
    pub fn intersect(a: &Offsets, b: &Offsets) -> Offsets {
        let mut out = Offsets::new();
        let (mut i, mut j) = (0, 0);
        while i < a.ranges.len() && j < b.ranges.len() {
            let lo = a.ranges[i].0.max(b.ranges[j].0);
            let hi = a.ranges[i].1.min(b.ranges[j].1);
            if lo <= hi {
                out.ranges.push((lo, hi));
            }
            if a.ranges[i].1 < b.ranges[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        out
    }
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.ranges.iter().flat_map(|&(a, b)| a..=b)
    }
}

impl fmt::Display for Offsets {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("{")?;
        for (i, (a, b)) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if a == b {
                write!(f, "{a}")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
        }
        f.write_str("}")
    }
}

/// Offsets per log (`Log2OffsetsMap`), ordered by log id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogOffsets(pub BTreeMap<NodeId, Offsets>);

impl LogOffsets {
    pub fn add(&mut self, id: MutId) -> bool {
        self.0.entry(id.log).or_default().add(id.offset)
    }
    pub fn add_all(&mut self, log: NodeId, o: &Offsets) {
        if !o.is_empty() {
            self.0.entry(log).or_default().union_with(o);
        }
    }
    pub fn contains(&self, id: MutId) -> bool {
        self.0.get(&id.log).is_some_and(|o| o.contains(id.offset))
    }
    pub fn remove(&mut self, id: MutId) {
        if let Some(o) = self.0.get_mut(&id.log) {
            o.remove(id.offset);
            if o.is_empty() {
                self.0.remove(&id.log);
            }
        }
    }
    pub fn remove_all(&mut self, log: NodeId, o: &Offsets) {
        if let Some(mine) = self.0.get_mut(&log) {
            mine.subtract(o);
            if mine.is_empty() {
                self.0.remove(&log);
            }
        }
    }
    pub fn id_count(&self) -> u64 {
        self.0.values().map(Offsets::len).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.0.values().all(Offsets::is_empty)
    }
    pub fn ids(&self) -> impl Iterator<Item = MutId> + '_ {
        self.0
            .iter()
            .flat_map(|(log, o)| o.iter().map(move |off| MutId::new(*log, off)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(v: &[u32]) -> Offsets {
        let mut o = Offsets::new();
        for &x in v {
            o.add(x);
        }
        o
    }

    #[test]
    fn ranges_merge_and_split() {
        let mut o = of(&[5, 1, 2, 3, 7]);
        assert_eq!(o.ranges(), &[(1, 3), (5, 5), (7, 7)]);
        o.add(6);
        assert_eq!(o.ranges(), &[(1, 3), (5, 7)]);
        o.add(4);
        assert_eq!(o.ranges(), &[(1, 7)]);
        o.remove(4);
        assert_eq!(o.ranges(), &[(1, 3), (5, 7)]);
        assert!(!o.contains(4) && o.contains(5) && o.contains(1) && !o.contains(0));
        assert_eq!(o.len(), 6);
        assert_eq!(o.to_string(), "{1-3,5-7}");
        assert!(!o.add(2));
    }

    #[test]
    fn set_operations_match_a_naive_set() {
        // every subset pair of 0..6 (as bit masks)
        for a in 0u32..64 {
            for b in 0u32..64 {
                let set = |m: u32| (0..6).filter(|i| m & (1 << i) != 0).collect::<Vec<_>>();
                let (oa, ob) = (of(&set(a)), of(&set(b)));
                assert_eq!(Offsets::union(&oa, &ob), of(&set(a | b)));
                assert_eq!(Offsets::intersect(&oa, &ob), of(&set(a & b)));
                let mut d = oa.clone();
                d.subtract(&ob);
                assert_eq!(d, of(&set(a & !b)), "{a:b} - {b:b}");
            }
        }
    }

    #[test]
    fn log_offsets_count_and_remove() {
        let mut m = LogOffsets::default();
        m.add(MutId::new(1, 0));
        m.add(MutId::new(1, 1));
        m.add(MutId::new(2, 0));
        assert_eq!(m.id_count(), 3);
        m.remove(MutId::new(2, 0));
        assert_eq!(m.0.len(), 1);
        assert_eq!(
            m.ids().collect::<Vec<_>>(),
            vec![MutId::new(1, 0), MutId::new(1, 1)]
        );
    }
}
