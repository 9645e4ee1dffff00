//! A stable sort for short lists off the hot path (scenario checks, panels, plots).
//!
//! `slice::sort_by_key` is a driftsort: fast on long inputs, and about 5 KB of wasm for each
//! element type and key it is used with. The app used it at some forty sites, 65 KB of its gzipped
//! download (docs/PERFORMANCE.md, "Download size and load"). This is an insertion sort with a
//! binary search: a few hundred bytes per use, the same order as the standard library's stable sort
//! (elements with equal keys keep their order), O(n log n) comparisons and O(n^2) moves in the
//! worst case, O(n) on sorted input. Use it for lists of at most a few thousand elements.

use std::cmp::Ordering;

/// Sorts `v` by `key`, stably (like `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` with `cmp`, stably (like `slice::sort_by`).
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    for i in 1..v.len() {
        let (head, tail) = v.split_at(i);
        let x = &tail[0];
        if cmp(&head[i - 1], x) != Ordering::Greater {
            continue;
        }
        // After every element not greater than `x`: equal keys keep their order.
        let pos = head.partition_point(|y| cmp(y, x) != Ordering::Greater);
        v[pos..=i].rotate_right(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_order_as_the_standard_stable_sort() {
        let mut rng = crate::rng::child(7, 0);
        for len in [0usize, 1, 2, 3, 5, 17, 64, 300] {
            for range in [2u32, 10, 1000] {
                // (key, original index): equal keys must keep their order.
                let v: Vec<(u32, usize)> =
                    (0..len).map(|i| (rng.random_range(0..range), i)).collect();
                let mut ours = v.clone();
                sort_by_key(&mut ours, |x| x.0);
                let mut std = v.clone();
                std.sort_by_key(|x| x.0);
                assert_eq!(ours, std, "len {len} range {range}");
                let mut desc = v.clone();
                sort_by(&mut desc, |a, b| b.0.cmp(&a.0));
                let mut std_desc = v;
                std_desc.sort_by_key(|x| std::cmp::Reverse(x.0));
                assert_eq!(desc, std_desc, "descending, len {len} range {range}");
            }
        }
    }
}
