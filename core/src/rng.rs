//! Seeded, portable randomness. One root seed; every subsystem draws from its own ChaCha8 stream,
//! so adding draws in one node never shifts another node's choices.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub type SimRng = ChaCha8Rng;

/// Stream numbers of the subsystems. Node `i` uses `NODE_BASE + i`.
pub const STREAM_NETWORK: u64 = 1;
pub const STREAM_WORKLOAD: u64 = 2;
pub const STREAM_NODE_BASE: u64 = 1_000;

/// A child generator for `stream` of `seed`.
pub fn child(seed: u64, stream: u64) -> SimRng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// `rng.random_range(low..=high)` for `u64` (rand 0.9.5's `UniformInt::sample_single_inclusive`
/// without the `unbiased` feature): the same value from the same draws (one word, and a second
/// when the first lands in the biased zone), written out so that it inlines into the send path
/// natively (a call with its `Result` per message: issue 44). Pinned to rand's by
/// `range_inclusive_u64_draws_what_rand_draws`.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
pub fn range_inclusive_u64(rng: &mut SimRng, low: u64, high: u64) -> u64 {
    use rand::RngCore;
    assert!(low <= high, "cannot sample empty range");
    let range = high.wrapping_sub(low).wrapping_add(1);
    if range == 0 {
        return rng.next_u64();
    }
    let wide = rng.next_u64() as u128 * range as u128;
    let (mut result, lo) = ((wide >> 64) as u64, wide as u64);
    if lo > range.wrapping_neg() {
        let hi2 = ((rng.next_u64() as u128 * range as u128) >> 64) as u64;
        result += lo.checked_add(hi2).is_none() as u64;
    }
    low.wrapping_add(result)
}

/// `rand::seq::SliceRandom::shuffle` (rand 0.9.5), the same permutation from the same draws,
/// with its divisions by small numbers done by multiplication. A 251-node gossip round shuffles
/// 251 digests (Cassandra does too), whose index arithmetic was a chain of integer divisions
/// (~8% of a run). A test pins it to rand's shuffle over many lengths and seeds, so a change on
/// either side fails it.
pub fn shuffle<T>(slice: &mut [T], rng: &mut SimRng) {
    use rand::seq::SliceRandom;
    use rand::Rng;
    let len = slice.len();
    if len <= 1 {
        return;
    }
    if len >= u32::MAX as usize {
        slice.shuffle(rng);
        return;
    }
    // rand's `IncreasingUniform` starting at n = 0: index i is uniform in [0, i]; one draw in
    // [0, (n+1)(n+2)...(n+k)) yields k indices as mixed-radix digits.
    let (mut n, mut chunk, mut remaining) = (0u32, 0u32, 1u8);
    for i in 0..len {
        let next_n = n + 1;
        let next_remaining = match remaining.checked_sub(1) {
            Some(r) => r,
            None => {
                let (bound, count) = bound_u32(next_n);
                chunk = rng.random_range(..bound);
                count - 1
            }
        };
        let index = if next_remaining == 0 {
            chunk
        } else {
            let (q, r) = div_rem(chunk, next_n);
            chunk = q;
            r
        };
        remaining = next_remaining;
        n = next_n;
        slice.swap(i, index as usize);
    }
}

/// Leave `rng` where [`shuffle`] of `len` elements would, without permuting anything: the same
/// draws in the same order (one per group of indices that fits a `u32`), none of the index
/// arithmetic or swaps. A gossip round draws its SYN's wire order this way and keeps a copy of
/// the generator from before, so the order can be made again when someone looks at the message
/// ([`shuffle`] with that copy); the model itself takes the digests in endpoint order.
pub fn skip_shuffle(len: usize, rng: &mut SimRng) {
    use rand::Rng;
    if len <= 1 {
        return;
    }
    if len >= u32::MAX as usize {
        use rand::seq::SliceRandom;
        // Not reachable for a cluster (the limits keep it to hundreds of nodes); exact anyway.
        let mut scratch: Vec<()> = vec![(); len];
        scratch.shuffle(rng);
        return;
    }
    // As in `shuffle`: index 0 needs no draw; a draw at n yields the indices for n, n+1, ...
    // The draws' bounds for n = 2, 3, ... come from `chain()` (each `bound_u32` is a loop of
    // checked multiplications: it was most of this function), and each draw is rand's
    // `random_range(..bound)` for a `u32` reduced to the words it takes: one, and a second when
    // the first lands in the biased zone (`UniformInt::sample_single_inclusive`, rand 0.9.5,
    // without the `unbiased` feature; pinned by `skip_shuffle_draws_what_shuffle_draws`).
    use rand::RngCore;
    let mut n = 2u32;
    for &(bound, count) in chain() {
        if n as usize > len {
            return;
        }
        let lo = (rng.next_u32() as u64 * bound as u64) as u32;
        if lo > bound.wrapping_neg() {
            rng.next_u32();
        }
        n += count as u32;
    }
    while (n as usize) <= len {
        let (bound, count) = bound_u32(n);
        let _: u32 = rng.random_range(..bound);
        n += count as u32;
    }
}

/// `(bound_u32(n), its count)` for the draws of a shuffle, n = 2, 2 + count, ... while n is at
/// most `CHAIN_MAX_N` (clusters are no larger: `Limits::max_nodes`), made once (at run time:
/// as static data it cost the web app's download ~1.5 KB).
const CHAIN_MAX_N: u32 = 512;

fn chain() -> &'static [(u32, u8)] {
    static CHAIN: std::sync::OnceLock<Vec<(u32, u8)>> = std::sync::OnceLock::new();
    CHAIN.get_or_init(|| {
        let (mut n, mut t) = (2u32, Vec::new());
        while n <= CHAIN_MAX_N {
            let b = bound_u32(n);
            t.push(b);
            n += b.1 as u32;
        }
        t
    })
}

/// rand's `calculate_bound_u32`: the largest product m(m+1)...(m+k-1) that fits a `u32`, and k.
fn bound_u32(m: u32) -> (u32, u8) {
    let mut product = m;
    let mut current = m + 1;
    loop {
        match product.checked_mul(current) {
            Some(p) => {
                product = p;
                current += 1;
            }
            None => return (product, (current - m) as u8),
        }
    }
}

/// Divisors with a precomputed reciprocal (clusters have at most a few hundred nodes).
const FAST_DIVISORS: usize = 1024;

/// `u64::MAX / d + 1` for d in 2..FAST_DIVISORS: Lemire, Kaser and Kurz, "Faster remainder by
/// direct computation" (2019), exact for every `u32` dividend.
static RECIPROCALS: [u64; FAST_DIVISORS] = {
    let mut t = [0u64; FAST_DIVISORS];
    let mut d = 2;
    while d < FAST_DIVISORS {
        t[d] = u64::MAX / d as u64 + 1;
        d += 1;
    }
    t
};

/// `(a / d, a % d)`. In wasm the 128-bit products are emulated and measured no faster than the
/// division, which the target has natively: plain division there (same results).
#[inline(always)]
fn div_rem(a: u32, d: u32) -> (u32, u32) {
    match RECIPROCALS.get(d as usize) {
        Some(&m) if d >= 2 && !cfg!(target_arch = "wasm32") => {
            let q = ((m as u128 * a as u128) >> 64) as u32;
            let low = m.wrapping_mul(a as u64);
            let r = ((low as u128 * d as u128) >> 64) as u32;
            (q, r)
        }
        _ => (a / d, a % d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn shuffle_is_rands_shuffle() {
        use rand::seq::SliceRandom;
        for seed in 0..20u64 {
            for len in (0..300).chain([511, 512, 1023, 1024, 1025, 1500, 3000]) {
                let mut a: Vec<u32> = (0..len).collect();
                let mut b = a.clone();
                let (mut ra, mut rb) = (child(seed, 5), child(seed, 5));
                a.shuffle(&mut ra);
                shuffle(&mut b, &mut rb);
                assert_eq!(a, b, "seed {seed} len {len}");
                // ...and the generator is left in the same state.
                assert_eq!(ra.random::<u64>(), rb.random::<u64>());
            }
        }
    }

    #[test]
    fn skip_shuffle_draws_what_shuffle_draws() {
        for seed in 0..20u64 {
            for len in (0..300).chain([511, 512, 1023, 1024, 1025, 1500, 3000]) {
                let mut v: Vec<u32> = (0..len).collect();
                let (mut ra, mut rb) = (child(seed, 9), child(seed, 9));
                shuffle(&mut v, &mut ra);
                skip_shuffle(len as usize, &mut rb);
                // The generator's stream position: what every later draw depends on.
                assert_eq!(ra, rb, "seed {seed} len {len}");
            }
        }
    }

    #[test]
    fn range_inclusive_u64_draws_what_rand_draws() {
        // Small ranges (latencies), ranges whose biased zone is wide (a second draw often:
        // just above 2^63, 2^64 / 3), the full range, and single values.
        let ranges = [
            (1_000, 5_000),
            (0, 0),
            (7, 7),
            (0, 1),
            (10, 10_000_000),
            (0, (1 << 63) + 12_345),
            (5, u64::MAX / 3 + 5),
            (0, u64::MAX),
            (1, u64::MAX),
            (u64::MAX - 3, u64::MAX),
        ];
        for seed in 0..20u64 {
            for &(lo, hi) in &ranges {
                let (mut ra, mut rb) = (child(seed, 3), child(seed, 3));
                for _ in 0..500 {
                    assert_eq!(
                        ra.random_range(lo..=hi),
                        range_inclusive_u64(&mut rb, lo, hi),
                        "seed {seed} {lo}..={hi}"
                    );
                }
                // The generator's stream position: what every later draw depends on.
                assert_eq!(ra, rb, "seed {seed} {lo}..={hi}");
            }
        }
    }

    #[test]
    fn div_rem_is_exact() {
        let mut rng = child(1, 1);
        for d in 2..FAST_DIVISORS as u32 + 3 {
            for a in [
                0,
                1,
                d - 1,
                d,
                d + 1,
                u32::MAX,
                u32::MAX - 1,
                u32::MAX / d * d,
            ] {
                assert_eq!(div_rem(a, d), (a / d, a % d), "{a} / {d}");
            }
            for _ in 0..50 {
                let a: u32 = rng.random();
                assert_eq!(div_rem(a, d), (a / d, a % d), "{a} / {d}");
            }
        }
    }

    #[test]
    fn streams_are_independent_and_reproducible() {
        let a: u64 = child(7, 1).random();
        let b: u64 = child(7, 1).random();
        let c: u64 = child(7, 2).random();
        let d: u64 = child(8, 1).random();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    /// The generator's output is pinned: a change of algorithm or version would silently change
    /// every replay, so it must fail a test.
    #[test]
    fn output_is_pinned() {
        let v: u64 = child(42, STREAM_NETWORK).random();
        assert_eq!(v, PINNED);
    }
    const PINNED: u64 = 13_222_472_167_927_179_408;
}
