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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

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
