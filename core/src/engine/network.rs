//! The network between nodes: one `Link` per ordered pair (from, to), so every fault can be one-way.

use crate::time::Micros;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub up: bool,
    /// Probability in [0, 1] that a message on this link is lost.
    pub loss: f64,
    pub latency_min_us: Micros,
    pub latency_max_us: Micros,
}

impl Link {
    pub fn healthy(latency_min_us: Micros, latency_max_us: Micros) -> Self {
        Link {
            up: true,
            loss: 0.0,
            latency_min_us,
            latency_max_us,
        }
    }

    /// What the topology view draws: `down`, `lossy` or `up`.
    pub fn condition(&self) -> &'static str {
        // Relative to a perfect link; the topology view compares with the scenario default too.
        if !self.up {
            "down"
        } else if self.loss > 0.0 {
            "lossy"
        } else {
            "up"
        }
    }
}

#[derive(Debug)]
pub struct Network {
    n: u32,
    /// Row-major n x n: each link as an index into `kinds`. Shared copy-on-write: faults change
    /// links rarely, so checkpoints (clones of the whole state) share one table instead of
    /// copying n^2 entries each. Indices rather than links keep the table small (250 KB instead
    /// of 2 MB at 251 nodes), so the lookup on every send mostly hits the cache.
    links: Arc<Vec<u32>>,
    /// The distinct links in use (and possibly a few no longer used; see `update`). `kinds[0]`
    /// is the default link.
    kinds: Arc<Vec<Link>>,
    default_link: Link,
}

/// `Clone` by hand, field by field (see `Sim`).
impl Clone for Network {
    fn clone(&self) -> Self {
        let Network {
            n,
            links,
            kinds,
            default_link,
        } = self;
        Network {
            n: *n,
            links: links.clone(),
            kinds: kinds.clone(),
            default_link: default_link.clone(),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        let Network {
            n,
            links,
            kinds,
            default_link,
        } = src;
        self.n = *n;
        self.links = Arc::clone(links);
        self.kinds = Arc::clone(kinds);
        self.default_link.clone_from(default_link);
    }
}

/// A link's fields as an ordered key (the loss by its bits), for interning.
fn key(l: &Link) -> (bool, u64, Micros, Micros) {
    (l.up, l.loss.to_bits(), l.latency_min_us, l.latency_max_us)
}

impl Network {
    pub fn new(n: u32, default_link: Link) -> Self {
        Network {
            n,
            links: Arc::new(vec![0; (n as usize) * (n as usize)]),
            kinds: Arc::new(vec![default_link.clone()]),
            default_link,
        }
    }

    /// Every send asks. With one kind (no link fault since the start or the last heal), every
    /// entry of the table is 0 (an entry indexes `kinds`): the answer without reading the
    /// table, whose 250 KB at 251 nodes mostly missed the cache on a send to a random pair
    /// (issue 44: ~4% of an echo-race seed's time, docs/PERFORMANCE.md).
    #[inline]
    pub fn link(&self, from: u32, to: u32) -> &Link {
        let kinds = &self.kinds[..];
        if let [only] = kinds {
            return only;
        }
        &kinds[self.links[(from * self.n + to) as usize] as usize]
    }

    /// Change the links `pairs` (from, to) by `f`. Copies the table first when a checkpoint
    /// shares it.
    pub fn update(&mut self, pairs: &[(u32, u32)], f: &dyn Fn(&mut Link)) {
        let mut index: BTreeMap<_, u32> = crate::small_sort::map(
            self.kinds
                .iter()
                .enumerate()
                .map(|(i, l)| (key(l), i as u32)),
        );
        // What `f` makes of each kind, computed once per kind.
        let mut made: BTreeMap<u32, u32> = BTreeMap::new();
        let n = self.n;
        let links = Arc::make_mut(&mut self.links);
        for &(a, b) in pairs {
            let slot = &mut links[(a * n + b) as usize];
            let old = *slot;
            *slot = *made.entry(old).or_insert_with(|| {
                let mut l = self.kinds[old as usize].clone();
                f(&mut l);
                *index.entry(key(&l)).or_insert_with(|| {
                    let kinds = Arc::make_mut(&mut self.kinds);
                    kinds.push(l);
                    (kinds.len() - 1) as u32
                })
            });
        }
        // Drop kinds no longer used once they are the majority (bounds the list by the links).
        if self.kinds.len() > 16 && self.kinds.len() > 2 * self.kinds_in_use() {
            self.compact();
        }
    }

    fn kinds_in_use(&self) -> usize {
        let mut used = vec![false; self.kinds.len()];
        for &i in self.links.iter() {
            used[i as usize] = true;
        }
        used[0] = true;
        used.iter().filter(|u| **u).count()
    }

    /// Renumber the kinds in use in order of first use (the default first).
    fn compact(&mut self) {
        let mut renum: Vec<Option<u32>> = vec![None; self.kinds.len()];
        let mut kinds = vec![self.kinds[0].clone()];
        renum[0] = Some(0);
        let links: Vec<u32> = self
            .links
            .iter()
            .map(|&i| {
                *renum[i as usize].get_or_insert_with(|| {
                    kinds.push(self.kinds[i as usize].clone());
                    (kinds.len() - 1) as u32
                })
            })
            .collect();
        self.links = Arc::new(links);
        self.kinds = Arc::new(kinds);
    }

    /// How many distinct links the table holds (the default included).
    pub fn kinds(&self) -> usize {
        self.kinds.len()
    }

    pub fn default_link(&self) -> &Link {
        &self.default_link
    }

    pub fn heal_all(&mut self) {
        self.links = Arc::new(vec![0; self.links.len()]);
        self.kinds = Arc::new(vec![self.default_link.clone()]);
    }

    /// True when every link is as the scenario's defaults made it. At once when every kind in
    /// the list is the default (no fault, or healed): the topology asks on every frame.
    pub fn is_healthy(&self) -> bool {
        self.kinds.iter().all(|k| *k == self.default_link)
            || self
                .links
                .iter()
                .all(|&i| self.kinds[i as usize] == self.default_link)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random link changes against a plain n x n table of links: same links after every
    /// change, a bounded list of kinds, and checkpoints (clones) unaffected by later changes.
    #[test]
    fn interned_table_matches_a_plain_one() {
        let n = 7u32;
        let default = Link::healthy(500, 80_000);
        let mut net = Network::new(n, default.clone());
        let mut plain = vec![default.clone(); (n * n) as usize];
        let mut x: u64 = 5;
        let mut next = || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            x >> 33
        };
        let mut saved: Option<(Network, Vec<Link>)> = None;
        for round in 0..400 {
            let pairs: Vec<(u32, u32)> = (0..1 + next() % 20)
                .map(|_| ((next() % n as u64) as u32, (next() % n as u64) as u32))
                .collect();
            let what = next() % 5;
            let value = next();
            let f = move |l: &mut Link| match what {
                0 => l.up = false,
                1 => l.up = true,
                2 => l.loss = (value % 4) as f64 / 4.0,
                3 => l.latency_max_us = 80_000 + value % 1000,
                _ => l.loss = 0.0,
            };
            if round % 97 == 96 {
                net.heal_all();
                plain.iter_mut().for_each(|l| *l = default.clone());
            } else {
                net.update(&pairs, &f);
                for &(a, b) in &pairs {
                    f(&mut plain[(a * n + b) as usize]);
                }
            }
            for a in 0..n {
                for b in 0..n {
                    assert_eq!(net.link(a, b), &plain[(a * n + b) as usize]);
                }
            }
            assert!(net.kinds() <= 16.max(2 * (n * n) as usize + 1));
            assert_eq!(net.is_healthy(), plain.iter().all(|l| *l == default));
            if round == 50 {
                saved = Some((net.clone(), plain.clone()));
            }
        }
        let (old, old_plain) = saved.expect("saved");
        for a in 0..n {
            for b in 0..n {
                assert_eq!(old.link(a, b), &old_plain[(a * n + b) as usize]);
            }
        }
    }

    /// Kinds no longer used are dropped: one link changed 200 times keeps the list short.
    #[test]
    fn unused_kinds_are_dropped() {
        let mut net = Network::new(3, Link::healthy(1, 2));
        for v in 0..200u64 {
            net.update(&[(0, 1)], &move |l: &mut Link| l.latency_max_us = 10 + v);
            assert_eq!(net.link(0, 1).latency_max_us, 10 + v);
            assert_eq!(net.link(1, 0).latency_max_us, 2);
            assert!(net.kinds() <= 17, "{} kinds", net.kinds());
        }
    }
}
