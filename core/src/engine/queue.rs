//! The event queue: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990) over (time, seq).
//!
//! A simulation pops events in time order and schedules new ones at or after the current
//! time, so the queue is monotone: almost every push is at or after the last popped time.
//! A radix heap keeps items in buckets by the highest bit in which their time differs from the
//! last minimum, so a pop moves each item a few times in its life instead of comparing it down
//! and up a binary heap (where the branches are coin flips). Same order as a binary heap on
//! (time, seq): ties in time go to the smaller `seq`. A push before the current minimum (a user
//! action applied between two events, after the next one was peeked) is allowed and costs a
//! rebucketing of the queue.

use crate::time::Micros;

/// An item's position in the order.
pub(crate) trait Keyed {
    fn time(&self) -> Micros;
    fn seq(&self) -> u64;
}

/// Bucket 0 (`now`) holds the items whose time equals `last`, in reverse `seq` order (the first
/// item last: a pop is `Vec::pop`, not a `VecDeque`'s wrapping front, issue 44); bucket `i > 0`
/// those whose time differs from `last` first in bit `i - 1` (so all are later than bucket 0's).
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<T> {
    last: Micros,
    now: Vec<T>,
    buckets: Vec<Vec<T>>,
    /// Bit `i - 1` is set when bucket `i` (1..=64) holds items: the lowest non-empty bucket in
    /// one instruction instead of a search through up to 64.
    full: u64,
    len: usize,
}

impl<T> Default for EventQueue<T> {
    fn default() -> Self {
        EventQueue {
            last: 0,
            now: Vec::new(),
            buckets: (0..=64).map(|_| Vec::new()).collect(),
            full: 0,
            len: 0,
        }
    }
}

#[inline]
fn bucket(last: Micros, time: Micros) -> usize {
    (64 - (time ^ last).leading_zeros()) as usize
}

impl<T: Keyed> EventQueue<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Add an item; its `seq` must be larger than every `seq` in the queue at its time.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn push(&mut self, item: T) {
        let t = item.time();
        if t < self.last {
            self.lower(t);
        }
        let b = bucket(self.last, t);
        if b == 0 {
            // Its `seq` is the largest at its time: it goes out last, at the front of the
            // reversed list (rare: an event at the time just popped; `now` is short).
            debug_assert!(self.now.first().is_none_or(|x| x.seq() < item.seq()));
            self.now.insert(0, item);
        } else {
            self.buckets[b].push(item);
            self.full |= 1 << (b - 1);
        }
        self.len += 1;
    }

    /// The first item, once `settle` has run since the last change.
    pub fn peek(&self) -> Option<&T> {
        debug_assert!(
            self.len == 0 || !self.now.is_empty(),
            "settle() before peek()"
        );
        self.now.last()
    }

    /// Remove and return the first item.
    pub fn pop(&mut self) -> Option<T> {
        self.settle();
        let item = self.now.pop()?;
        self.len -= 1;
        Some(item)
    }

    /// Bring the first items to the front: when bucket 0 is empty, the smallest time of the
    /// lowest non-empty bucket becomes `last` and that bucket's items move down.
    ///
    /// Inline, so that the call with bucket 0 already filled (every `pop` after a `peek`, half
    /// the calls) costs a test and no call (issue 44).
    #[inline]
    pub fn settle(&mut self) {
        if self.now.is_empty() && self.len != 0 {
            self.refill();
        }
    }

    /// `settle`'s work, bucket 0 being empty and the queue not.
    #[inline(never)]
    fn refill(&mut self) {
        debug_assert_ne!(self.full, 0, "items somewhere");
        let i = self.full.trailing_zeros() as usize + 1;
        self.full &= !(1 << (i - 1));
        // A bucket of one item (most refills of a run: one event at a time) is its own minimum:
        // it goes straight to bucket 0, without the passes below.
        if self.buckets[i].len() == 1 {
            let item = self.buckets[i].pop().expect("one item");
            self.last = item.time();
            self.now.push(item);
            return;
        }
        // The bucket emptied in place from its back (no `take`, `Drain` and putting back:
        // issue 44); bucket 0's items go to `now` (empty here) in the reverse of the bucket's
        // order, which the sort below (largest `seq` first) then finishes.
        let (lower, rest) = self.buckets.split_at_mut(i);
        let items = &mut rest[0];
        debug_assert!(!items.is_empty(), "bucket {i} marked full");
        self.last = items.iter().map(|x| x.time()).min().expect("non-empty");
        while let Some(item) = items.pop() {
            let b = bucket(self.last, item.time());
            debug_assert!(b < i);
            if b == 0 {
                self.now.push(item);
            } else {
                lower[b].push(item);
                self.full |= 1 << (b - 1);
            }
        }
        if self.now.len() > 1 {
            self.now
                .sort_unstable_by_key(|x| std::cmp::Reverse(x.seq()));
        }
    }

    /// A push before `last`: rebucket everything relative to `t`.
    fn lower(&mut self, t: Micros) {
        self.last = t;
        let mut all: Vec<T> = self.now.drain(..).collect();
        for b in &mut self.buckets {
            all.append(b);
        }
        self.full = 0;
        for item in all {
            let b = bucket(t, item.time());
            debug_assert!(b > 0, "every queued item is later than {t}");
            self.buckets[b].push(item);
            self.full |= 1 << (b - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[derive(Clone, Debug, PartialEq)]
    struct It(Micros, u64);

    /// The reference: a binary heap on (time, seq), smallest first.
    type Heap = BinaryHeap<Reverse<(Micros, u64)>>;

    impl Keyed for It {
        fn time(&self) -> Micros {
            self.0
        }
        fn seq(&self) -> u64 {
            self.1
        }
    }

    /// Random pushes (mostly at or after the current time, some before a peeked minimum),
    /// peeks and pops against a binary heap on (time, seq), with clones along the way.
    #[test]
    fn pops_in_the_order_of_a_binary_heap() {
        for seed in 0..30u64 {
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let mut q: EventQueue<It> = EventQueue::default();
            let mut h: Heap = BinaryHeap::new();
            let (mut now, mut seq) = (0u64, 0u64);
            let mut saved: Option<(EventQueue<It>, Heap)> = None;
            for step in 0..5000 {
                let r = next() % 10;
                if r < 5 {
                    // Mostly near now, sometimes the same time, sometimes far ahead.
                    let dt = match next() % 4 {
                        0 => 0,
                        1 => next() % 16,
                        2 => next() % 100_000,
                        _ => next() % (1 << 40),
                    };
                    q.push(It(now + dt, seq));
                    h.push(Reverse((now + dt, seq)));
                    seq += 1;
                } else if r < 9 {
                    let got = q.pop().map(|i| (i.0, i.1));
                    let want = h.pop().map(|Reverse(k)| k);
                    assert_eq!(got, want, "seed {seed} step {step}");
                    if let Some((t, _)) = got {
                        now = t;
                    }
                } else {
                    q.settle();
                    assert_eq!(q.peek().map(|i| (i.0, i.1)), h.peek().map(|Reverse(k)| *k));
                }
                assert_eq!(q.len(), h.len());
                // The bits name exactly the non-empty buckets.
                for i in 1..q.buckets.len() {
                    assert_eq!(
                        q.full >> (i - 1) & 1 == 1,
                        !q.buckets[i].is_empty(),
                        "bucket {i}"
                    );
                }
                if step == 2500 {
                    saved = Some((q.clone(), h.clone()));
                }
            }
            // A clone drains in the same order as its heap.
            let (mut q, mut h) = saved.expect("saved");
            while let Some(Reverse(k)) = h.pop() {
                assert_eq!(q.pop().map(|i| (i.0, i.1)), Some(k));
            }
            assert!(q.pop().is_none() && q.is_empty());
        }
    }

    #[test]
    fn a_push_before_the_peeked_minimum_comes_first() {
        let mut q: EventQueue<It> = EventQueue::default();
        q.push(It(100, 0));
        q.push(It(100, 1));
        q.push(It(300, 2));
        q.settle();
        assert_eq!(q.peek(), Some(&It(100, 0)));
        // Time is still 50 (nothing popped): an action schedules at 60.
        q.push(It(60, 3));
        q.push(It(100, 4));
        let order: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|i| i.1).collect();
        assert_eq!(order, vec![3, 0, 1, 4, 2]);
    }
}
