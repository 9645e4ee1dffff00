//! The messages on the wire, by id.
//!
//! Ids are handed out in increasing order and almost every message is delivered or dropped within
//! milliseconds, so the live ones sit in a ring indexed by `id - base`: insert and remove are an
//! index, where an ordered map walked a tree (about 6% of a 251-node run). A message still on the
//! wire after `SPILL_AFTER` newer ones were sent (a very slow link) moves to an ordered map, so the
//! ring never grows without bound. Iteration is in id order, as with the map this replaces.

use std::collections::{BTreeMap, VecDeque};

/// How far the ring reaches back from the newest id before older entries spill into the map.
pub const SPILL_AFTER: usize = 4096;

/// Anything stored here knows its id.
pub trait HasId {
    fn id(&self) -> u64;
}

#[derive(Clone, Debug)]
pub struct InFlight<T> {
    /// The id of `ring[0]`; every spilled id is below it.
    base: u64,
    ring: VecDeque<Option<T>>,
    spilled: BTreeMap<u64, T>,
    len: usize,
    /// The smallest id `insert` accepts.
    next: u64,
}

impl<T> Default for InFlight<T> {
    fn default() -> Self {
        InFlight {
            base: 0,
            ring: VecDeque::new(),
            spilled: BTreeMap::new(),
            len: 0,
            next: 0,
        }
    }
}

impl<T: HasId> InFlight<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Add `x`, whose id is greater than every id added before (panics otherwise).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn insert(&mut self, x: T) {
        let id = x.id();
        assert!(
            id >= self.next,
            "ids go up: {id} after {}",
            self.next.wrapping_sub(1)
        );
        self.next = id + 1;
        if self.ring.is_empty() {
            self.base = id;
        }
        let end = self.base + self.ring.len() as u64;
        // Ids of messages lost before they left never come here: leave their slots empty.
        for _ in end..id {
            self.ring.push_back(None);
        }
        self.ring.push_back(Some(x));
        self.len += 1;
        while self.ring.len() > SPILL_AFTER {
            if let Some(old) = self.ring.pop_front().flatten() {
                self.spilled.insert(self.base, old);
            }
            self.base += 1;
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn remove(&mut self, id: u64) -> Option<T> {
        let x = if id < self.base {
            self.spilled.remove(&id)
        } else {
            let x = self.ring.get_mut((id - self.base) as usize)?.take();
            // Drop the empty slots at the front so the ring spans only what is live.
            while matches!(self.ring.front(), Some(None)) {
                self.ring.pop_front();
                self.base += 1;
            }
            x
        };
        if x.is_some() {
            self.len -= 1;
        }
        x
    }

    pub fn get(&self, id: u64) -> Option<&T> {
        if id < self.base {
            self.spilled.get(&id)
        } else {
            self.ring.get((id - self.base) as usize)?.as_ref()
        }
    }

    /// In id order.
    pub fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.spilled.values().chain(self.ring.iter().flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[derive(Clone, Debug, PartialEq)]
    struct M(u64);
    impl HasId for M {
        fn id(&self) -> u64 {
            self.0
        }
    }

    /// Random inserts (with gaps) and removes (some messages staying very long, so that they
    /// spill) against a `BTreeMap`: same contents, same order, same answers.
    #[test]
    fn behaves_like_an_ordered_map() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut a: InFlight<M> = InFlight::new();
        let mut b: BTreeMap<u64, M> = BTreeMap::new();
        let mut next = 0u64;
        for step in 0..60_000 {
            if rng.random_bool(0.52) {
                next += rng.random_range(1..4);
                a.insert(M(next));
                b.insert(next, M(next));
            } else if !b.is_empty() {
                // Mostly the oldest few (delivered in order), sometimes any, rarely none of the
                // stragglers: a few ids live for the whole test and spill.
                let keys: Vec<u64> = b.keys().copied().collect();
                let k = if rng.random_bool(0.8) {
                    keys[rng.random_range(0..keys.len().min(8))]
                } else {
                    keys[rng.random_range(0..keys.len())]
                };
                if k % 97 != 0 || rng.random_bool(0.001) {
                    assert_eq!(a.remove(k), b.remove(&k), "step {step}");
                }
                let missing = k + 1_000_000;
                assert_eq!(a.remove(missing), None);
            }
            assert_eq!(a.len(), b.len());
            if step % 1000 == 0 {
                assert!(a.values().eq(b.values()));
                for k in b.keys() {
                    assert_eq!(a.get(*k), b.get(k));
                }
            }
        }
        assert!(
            !a.spilled.is_empty(),
            "the test should make some entries spill"
        );
        assert!(a.ring.len() <= SPILL_AFTER);
        assert!(a.values().eq(b.values()));
    }

    #[test]
    #[should_panic(expected = "ids go up")]
    fn ids_must_increase() {
        let mut a: InFlight<M> = InFlight::new();
        a.insert(M(5));
        a.insert(M(5));
    }
}
