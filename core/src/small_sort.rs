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

/// `iter.collect::<BTreeMap<K, V>>()` by inserts. `FromIterator` for `BTreeMap` collects into a
/// `Vec`, sorts it with the standard stable sort and builds the tree in bulk: a driftsort and a
/// bulk build for every key and value type, 3-8 KB of wasm each. The same map (a later pair
/// replaces an earlier one with an equal key, as `collect` does); use it off the hot path.
pub fn map<K: Ord, V>(iter: impl IntoIterator<Item = (K, V)>) -> std::collections::BTreeMap<K, V> {
    let mut m = std::collections::BTreeMap::new();
    m.extend(iter);
    m
}

/// `iter.collect::<BTreeSet<T>>()` by inserts (see [`map`]).
pub fn set<T: Ord>(iter: impl IntoIterator<Item = T>) -> std::collections::BTreeSet<T> {
    let mut m = std::collections::BTreeSet::new();
    m.extend(iter);
    m
}

/// `iter.collect::<serde_json::Map<_, _>>()` by inserts (see [`map`]).
pub fn json_map(
    iter: impl IntoIterator<Item = (String, serde_json::Value)>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.extend(iter);
    m
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

    #[test]
    fn maps_and_sets_by_inserts_equal_collect() {
        let mut rng = crate::rng::child(7, 1);
        for len in [0usize, 1, 2, 17, 300] {
            // Repeated keys: the later value wins, as with `collect`.
            let v: Vec<(u32, usize)> = (0..len).map(|i| (rng.random_range(0..40), i)).collect();
            let std: std::collections::BTreeMap<u32, usize> = v.iter().copied().collect();
            assert_eq!(map(v.iter().copied()), std, "len {len}");
            let std: std::collections::BTreeSet<u32> = v.iter().map(|x| x.0).collect();
            assert_eq!(set(v.iter().map(|x| x.0)), std, "len {len}");
            let j = |(k, i): (u32, usize)| (k.to_string(), serde_json::json!(i));
            let std: serde_json::Map<String, serde_json::Value> =
                v.iter().copied().map(j).collect();
            assert_eq!(json_map(v.iter().copied().map(j)), std, "len {len}");
        }
    }
}
