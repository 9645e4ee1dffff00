//! A node's live timers: each key's `seq` (the queue entry that fires it), as a `Vec` sorted by
//! key. A node has a handful of timers; a `BTreeMap` allocated a tree node and searched and
//! rebalanced it on every set, fire and cancel (issue 44: ~190 instructions a removal). The
//! same map: `get`, `insert` (replacing), `remove`, `clear`, `len`.

#[derive(Clone, Debug)]
pub(super) struct Timers<K>(Vec<(K, u64)>);

impl<K> Default for Timers<K> {
    fn default() -> Self {
        Timers(Vec::new())
    }
}

impl<K: Ord> Timers<K> {
    #[inline]
    fn find(&self, key: &K) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.cmp(key))
    }

    #[inline]
    pub fn get(&self, key: &K) -> Option<&u64> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    #[inline]
    pub fn insert(&mut self, key: K, seq: u64) {
        match self.find(&key) {
            Ok(i) => self.0[i].1 = seq,
            Err(i) => self.0.insert(i, (key, seq)),
        }
    }

    #[inline]
    pub fn remove(&mut self, key: &K) {
        if let Ok(i) = self.find(key) {
            self.0.remove(i);
        }
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl<K: Clone> Timers<K> {
    pub fn clone_from_map(&mut self, src: &Self) {
        self.0.clone_from(&src.0);
    }
}

#[cfg(test)]
mod tests {
    use super::Timers;
    use std::collections::BTreeMap;

    /// Random sets, cancels and fires against a `BTreeMap`.
    #[test]
    fn behaves_as_a_btreemap() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut t: Timers<(u8, u32)> = Timers::default();
        let mut m: BTreeMap<(u8, u32), u64> = BTreeMap::new();
        for seq in 0..20_000u64 {
            let key = ((next() % 4) as u8, (next() % 5) as u32);
            match next() % 8 {
                0..=3 => {
                    t.insert(key, seq);
                    m.insert(key, seq);
                }
                4 | 5 => {
                    t.remove(&key);
                    m.remove(&key);
                }
                6 if next() % 50 == 0 => {
                    t.clear();
                    m.clear();
                }
                _ => {}
            }
            assert_eq!(t.get(&key), m.get(&key));
            assert_eq!(t.len(), m.len());
        }
        let kept: Vec<_> = t.0.iter().map(|(k, s)| (*k, *s)).collect();
        let want: Vec<_> = m.into_iter().collect();
        assert_eq!(kept, want);
    }
}
