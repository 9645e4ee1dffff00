//! Cassandra's phi-accrual failure detector (`FailureDetector` + `ArrivalWindow`).

use crate::time::Micros;

/// 1 / ln(10): Cassandra compares `PHI_FACTOR * phi` with `phi_convict_threshold`.
pub const PHI_FACTOR: f64 = std::f64::consts::LOG10_E;

/// Windows up to this many intervals keep their samples in one cache-line row per peer; larger
/// ones grow a `Vec` per peer.
const INLINE: usize = 16;

/// One peer's inter-arrival window (Cassandra's `ArrivalWindow`): the last report time and the
/// last `window` intervals. A one-peer `Detector`, so there is one implementation of the
/// arithmetic; handy on its own in tests and examples.
#[derive(Clone, Debug)]
pub struct ArrivalWindow {
    d: Detector,
}

impl ArrivalWindow {
    pub fn new(window: usize) -> Self {
        // The threshold only feeds the detector's conviction bound, unused through this type.
        ArrivalWindow {
            d: Detector::new(1, window, 1.0),
        }
    }

    /// A heartbeat arrived at `now`. The first report records the initial interval; intervals
    /// longer than `max_interval` are ignored (Cassandra's `MAX_INTERVAL_IN_NANO`).
    pub fn add(&mut self, now: Micros, initial: Micros, max_interval: Micros) {
        self.d.report(0, now, initial, max_interval);
    }

    /// Time of the last report; `None` until the first.
    pub fn last(&self) -> Option<Micros> {
        self.d.last(0)
    }

    /// The samples, oldest first.
    pub fn intervals(&self) -> impl Iterator<Item = u32> + '_ {
        self.d.intervals(0)
    }

    pub fn mean(&self) -> f64 {
        Detector::mean_of(&self.d.heads[0])
    }

    pub fn samples(&self) -> usize {
        self.d.heads[0].len as usize
    }

    /// phi = (now - last) / mean, as Cassandra computes it (exponential-distribution form).
    pub fn phi(&self, now: Micros) -> f64 {
        self.d.phi(0, now).unwrap_or(0.0)
    }

    /// A time before which `convicts(self.phi(now), threshold)` is certainly false: the exact
    /// crossing minus a relative margin (1e-9) far larger than any float rounding, so the
    /// status check can skip a peer with one comparison and evaluate phi only near the crossing.
    pub fn quiet_until(&self, threshold: f64) -> Micros {
        let h = &self.d.heads[0];
        if h.last == NONE {
            return Micros::MAX;
        }
        quiet_until_of(h.last, h.sum, h.len, quiet_factor(threshold))
    }
}

/// Equal when they hold the same samples in the same order (wherever the ring starts).
impl PartialEq for ArrivalWindow {
    fn eq(&self, o: &Self) -> bool {
        self.last() == o.last() && self.d.cap == o.d.cap && self.intervals().eq(o.intervals())
    }
}

/// `ArrivalWindow::quiet_until` from a window's last report, sample sum and count.
fn quiet_until_of(last: Micros, sum: u64, len: u16, factor: f64) -> Micros {
    if sum == 0 {
        return Micros::MAX;
    }
    // Signed conversions: one instruction each on x86_64 (unsigned ones are not). `sum` is at
    // most window * u32::MAX, far below i64::MAX.
    let span = factor * (sum as i64) as f64 / (len as i32) as f64;
    if span < QUIET_SPAN_MAX {
        // `as` truncates toward zero: the floor of a non-negative span.
        last.saturating_add(span as i64 as Micros)
    } else {
        Micros::MAX
    }
}

/// Spans this long (about 31 years) are treated as "never".
const QUIET_SPAN_MAX: f64 = 1e15;

/// phi convicts once `now - last > threshold / PHI_FACTOR * mean`; this is that factor, shrunk
/// by the safety margin.
fn quiet_factor(threshold: f64) -> f64 {
    threshold / PHI_FACTOR * (1.0 - 1e-9)
}

/// Per-peer bookkeeping of a `Detector` window, kept densely (24 bytes) apart from the samples:
/// with hundreds of peers per node and every node's windows touched about once a second, the
/// detector's memory footprint decides how often a heartbeat misses the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Head {
    /// Time of the last report; `NONE` when the peer has no window.
    last: Micros,
    sum: u64,
    len: u16,
    /// Oldest sample's slot once full (0 while filling).
    head: u16,
}

const NONE: Micros = Micros::MAX;

impl Head {
    const EMPTY: Head = Head {
        last: NONE,
        sum: 0,
        len: 0,
        head: 0,
    };
}

/// Sample storage: fixed inline rings for small windows (the common case in big clusters), or
/// rings grown on demand for large ones.
#[derive(Debug)]
enum Samples {
    Small(Vec<Row>),
    Big(Vec<Vec<u32>>),
}

impl Clone for Samples {
    fn clone(&self) -> Self {
        match self {
            Samples::Small(v) => Samples::Small(v.clone()),
            Samples::Big(v) => Samples::Big(v.clone()),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        match (self, src) {
            (Samples::Small(a), Samples::Small(b)) => a.clone_from(b),
            (Samples::Big(a), Samples::Big(b)) => a.clone_from(b),
            (a, b) => *a = b.clone(),
        }
    }
}

/// One small window's samples: exactly one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Row([u32; INLINE]);

/// One node's failure detector: an `ArrivalWindow` per peer, stored as columns (bookkeeping,
/// samples, and — for the status check that runs every second over every peer — the time each
/// peer's phi may first convict). Same arithmetic as `ArrivalWindow` (checked by a test).
#[derive(Debug)]
pub struct Detector {
    heads: Vec<Head>,
    samples: Samples,
    quiet_until: Vec<Micros>,
    present: usize,
    cap: u16,
    /// `quiet_factor(threshold)`.
    factor: f64,
}

/// `Clone` by hand: `clone_from` (restoring a checkpoint) copies into the existing allocations.
impl Clone for Detector {
    fn clone(&self) -> Self {
        let Detector {
            heads,
            samples,
            quiet_until,
            present,
            cap,
            factor,
        } = self;
        Detector {
            heads: heads.clone(),
            samples: samples.clone(),
            quiet_until: quiet_until.clone(),
            present: *present,
            cap: *cap,
            factor: *factor,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        let Detector {
            heads,
            samples,
            quiet_until,
            present,
            cap,
            factor,
        } = src;
        self.heads.clone_from(heads);
        self.samples.clone_from(samples);
        self.quiet_until.clone_from(quiet_until);
        self.present = *present;
        self.cap = *cap;
        self.factor = *factor;
    }
}

impl Detector {
    /// `window` is clamped to 1..=65535 (scenario validation allows at most 10000).
    pub fn new(n: usize, window: usize, threshold: f64) -> Self {
        let cap = window.clamp(1, u16::MAX as usize) as u16;
        Detector {
            heads: vec![Head::EMPTY; n],
            samples: if cap as usize <= INLINE {
                Samples::Small(vec![Row([0; INLINE]); n])
            } else {
                Samples::Big(vec![Vec::new(); n])
            },
            quiet_until: vec![Micros::MAX; n],
            present: 0,
            cap,
            factor: quiet_factor(threshold),
        }
    }

    pub fn len(&self) -> usize {
        self.heads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Does `ep` have a window?
    pub fn has(&self, ep: usize) -> bool {
        self.heads.get(ep).is_some_and(|h| h.last != NONE)
    }

    /// How many peers have a window.
    pub fn present(&self) -> usize {
        self.present
    }

    /// Time of `ep`'s last report; `None` without a window.
    pub fn last(&self, ep: usize) -> Option<Micros> {
        self.heads.get(ep).map(|h| h.last).filter(|&t| t != NONE)
    }

    /// `ep`'s samples, oldest first (none without a window).
    pub fn intervals(&self, ep: usize) -> impl Iterator<Item = u32> + '_ {
        let (len, head) = self
            .heads
            .get(ep)
            .map_or((0, 0), |h| (h.len as usize, h.head as usize));
        let slots: &[u32] = match &self.samples {
            Samples::Small(v) => v.get(ep).map_or(&[][..], |r| &r.0[..len]),
            Samples::Big(v) => v.get(ep).map_or(&[][..], |s| &s[..]),
        };
        let (a, b) = slots.split_at(head.min(slots.len()));
        b.iter().chain(a).copied()
    }

    fn mean_of(h: &Head) -> f64 {
        if h.len == 0 {
            0.0
        } else {
            h.sum as f64 / h.len as f64
        }
    }

    /// `ArrivalWindow::phi` of `ep`'s window; `None` without a window.
    pub fn phi(&self, ep: usize, now: Micros) -> Option<f64> {
        let h = self.heads.get(ep)?;
        if h.last == NONE {
            return None;
        }
        let mean = Self::mean_of(h);
        Some(if mean > 0.0 {
            now.saturating_sub(h.last) as f64 / mean
        } else {
            0.0
        })
    }

    /// A heartbeat of `ep` arrived (creates its window on the first report): the same steps as
    /// `ArrivalWindow::add`.
    pub fn report(&mut self, ep: usize, now: Micros, initial: Micros, max_interval: Micros) {
        let h = &mut self.heads[ep];
        let interval = if h.last == NONE {
            self.present += 1;
            Some(initial)
        } else {
            let gap = now.saturating_sub(h.last);
            (gap <= max_interval).then_some(gap)
        };
        if let Some(interval) = interval {
            let v = interval.min(u32::MAX as Micros) as u32;
            h.sum += v as u64;
            let cap = self.cap;
            if h.len < cap {
                match &mut self.samples {
                    Samples::Small(s) => s[ep].0[h.len as usize] = v,
                    Samples::Big(s) => s[ep].push(v),
                }
                h.len += 1;
            } else {
                let slot = match &mut self.samples {
                    Samples::Small(s) => &mut s[ep].0[h.head as usize],
                    Samples::Big(s) => &mut s[ep][h.head as usize],
                };
                h.sum -= *slot as u64;
                *slot = v;
                h.head = if h.head + 1 == cap { 0 } else { h.head + 1 };
            }
        }
        h.last = now;
        self.quiet_until[ep] = quiet_until_of(h.last, h.sum, h.len, self.factor);
    }

    /// About how many bytes a copy of the detector takes.
    pub fn approx_bytes(&self) -> usize {
        let samples = match &self.samples {
            Samples::Small(s) => s.len() * std::mem::size_of::<Row>(),
            Samples::Big(s) => s
                .iter()
                .map(|v| std::mem::size_of::<Vec<u32>>() + v.capacity() * 4)
                .sum(),
        };
        std::mem::size_of::<Self>()
            + self.heads.len() * std::mem::size_of::<Head>()
            + self.quiet_until.len() * std::mem::size_of::<Micros>()
            + samples
    }

    /// Bring the whole detector into the cache (see `state::warm`).
    pub fn warm(&self) {
        crate::gossip::state::warm(&self.heads);
        crate::gossip::state::warm(&self.quiet_until);
        match &self.samples {
            Samples::Small(s) => crate::gossip::state::warm(s),
            Samples::Big(_) => {}
        }
    }

    /// Forget `ep`'s history (a new generation of a dead peer).
    pub fn remove(&mut self, ep: usize) {
        if self.heads[ep].last != NONE {
            self.present -= 1;
        }
        self.heads[ep] = Head::EMPTY;
        match &mut self.samples {
            Samples::Small(s) => s[ep] = Row([0; INLINE]),
            Samples::Big(s) => s[ep] = Vec::new(),
        }
        self.quiet_until[ep] = Micros::MAX;
    }

    pub fn clear(&mut self) {
        for ep in 0..self.heads.len() {
            self.remove(ep);
        }
        self.present = 0;
    }

    /// Peers whose phi may convict at `now` (all others certainly do not), in id order.
    pub fn maybe_convicting(&self, now: Micros) -> impl Iterator<Item = usize> + '_ {
        self.quiet_until
            .iter()
            .enumerate()
            .filter(move |(_, t)| **t <= now)
            .map(|(i, _)| i)
    }
}

/// True when `phi` convicts at `threshold` (`PHI_FACTOR * phi > threshold`).
pub fn convicts(phi: f64, threshold: f64) -> bool {
    PHI_FACTOR * phi > threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Micros = 1_000_000;

    #[test]
    fn phi_arithmetic_matches_cassandra() {
        let mut w = ArrivalWindow::new(1000);
        w.add(0, 2 * S, 2 * S);
        // First report records the 2 s initial interval.
        assert_eq!(w.mean(), 2e6);
        w.add(S, 2 * S, 2 * S);
        assert_eq!(w.mean(), 1.5e6);
        // phi after 3 s of silence since the last report at 1 s: 3 / 1.5 = 2.
        assert!((w.phi(4 * S) - 2.0).abs() < 1e-12);
        // Conviction at threshold 8 needs phi > 8 / 0.4343 = 18.42 mean intervals.
        assert!(!convicts(w.phi(S + 27 * S), 8.0));
        assert!(convicts(w.phi(S + 28 * S), 8.0));
    }

    #[test]
    fn long_gaps_are_ignored_and_window_is_bounded() {
        let mut w = ArrivalWindow::new(3);
        w.add(0, 2 * S, 2 * S);
        w.add(10 * S, 2 * S, 2 * S); // 10 s gap > max interval: not a sample
        assert_eq!(w.samples(), 1);
        for t in 11..20 {
            w.add(t * S, 2 * S, 2 * S);
        }
        assert_eq!(w.samples(), 3);
        assert_eq!(w.mean(), 1e6);
    }

    /// The ring keeps exactly the last `window` samples, inline or on the heap, and its mean
    /// equals the mean of those samples.
    #[test]
    fn ring_matches_a_sliding_window() {
        for window in [1usize, 2, 3, 15, 16, 17, 40] {
            let mut w = ArrivalWindow::new(window);
            let mut all: Vec<u32> = Vec::new();
            let mut t = 0;
            for i in 0..200u64 {
                t += 1 + (i * 7919) % 1000;
                w.add(t, 500, 10_000);
                all.push(if i == 0 {
                    500
                } else {
                    (1 + (i * 7919) % 1000) as u32
                });
                let tail = &all[all.len().saturating_sub(window)..];
                assert!(
                    w.intervals().eq(tail.iter().copied()),
                    "window {window} at {i}"
                );
                let mean = tail.iter().map(|&x| x as u64).sum::<u64>() as f64 / tail.len() as f64;
                assert_eq!(w.mean(), mean);
            }
        }
    }

    #[test]
    fn equality_ignores_where_the_ring_starts() {
        let mut a = ArrivalWindow::new(3);
        let mut b = ArrivalWindow::new(3);
        // The same last three intervals (10, 10, 10) and the same last report, after different
        // histories: the rings start at different slots.
        for t in [0, 10, 20, 30, 40] {
            a.add(t, 10, 100);
        }
        for t in [0, 5, 15, 25, 30, 40] {
            b.add(t, 10, 100);
        }
        assert_eq!(a.intervals().collect::<Vec<_>>(), vec![10, 10, 10]);
        assert_eq!(b.intervals().collect::<Vec<_>>(), vec![10, 5, 10]);
        assert_ne!(a, b);
        b.add(50, 10, 100);
        a.add(50, 10, 100);
        assert_eq!(b.intervals().collect::<Vec<_>>(), vec![5, 10, 10]);
        b.add(60, 10, 100);
        a.add(60, 10, 100);
        assert_eq!(a, b);
        assert_eq!(a.last(), Some(60));
    }

    #[test]
    fn quiet_until_is_a_safe_bound() {
        for (window, step, threshold) in
            [(16, 1_000_037u64, 8.0), (1000, 999_983, 5.0), (3, 7, 0.5)]
        {
            let mut w = ArrivalWindow::new(window);
            let mut t = 0;
            for i in 0..50 {
                t += step + (i * 31) % 1000;
                w.add(t, 2 * S, 2 * S);
                let q = w.quiet_until(threshold);
                assert!(q > t);
                assert!(!convicts(w.phi(q - 1), threshold));
                // The exact first convicting microsecond is at or after q, and close to it.
                let mut first = q;
                while !convicts(w.phi(first), threshold) {
                    first += 1;
                }
                assert!(first - q <= 1 + (q - t) / 100_000_000, "{first} vs {q}");
            }
        }
        assert_eq!(ArrivalWindow::new(4).quiet_until(8.0), Micros::MAX);
    }

    #[test]
    fn detector_tracks_present_windows() {
        let mut d = Detector::new(4, 16, 8.0);
        assert_eq!(d.present(), 0);
        assert_eq!(d.maybe_convicting(u64::MAX - 1).count(), 0);
        d.report(1, 0, S, 2 * S);
        d.report(1, S, S, 2 * S);
        d.report(3, 0, S, 2 * S);
        assert_eq!(d.present(), 2);
        assert_eq!(d.maybe_convicting(S).count(), 0);
        // Long after: both may convict, in id order.
        assert_eq!(d.maybe_convicting(100 * S).collect::<Vec<_>>(), vec![1, 3]);
        d.remove(1);
        d.remove(1);
        assert_eq!(d.present(), 1);
        assert_eq!(d.maybe_convicting(100 * S).collect::<Vec<_>>(), vec![3]);
        d.clear();
        assert_eq!(d.present(), 0);
        assert!(d.last(3).is_none());
        assert_eq!(d.intervals(3).count(), 0);
        assert!(d.phi(3, S).is_none());
    }

    /// A detector with several peers, reports and removals interleaved, against a plain model
    /// of each peer (every interval kept, the window taken at the end): same samples, phi and
    /// conviction bound, for inline (<= 16) and growing windows.
    #[test]
    fn detector_matches_a_plain_model() {
        struct Model {
            last: Option<Micros>,
            all: Vec<u32>,
        }
        for (window, max_interval) in [
            (1usize, 5_000u64),
            (3, 5_000),
            (16, 3_000),
            (17, 5_000),
            (40, 2_000),
        ] {
            let n = 6;
            let mut d = Detector::new(n, window, 8.0);
            let mut m: Vec<Option<Model>> = (0..n).map(|_| None).collect();
            let mut x: u64 = 99;
            let mut now = 0;
            for _ in 0..3000 {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let ep = ((x >> 33) % n as u64) as usize;
                now += (x >> 20) % 1500;
                if (x >> 40).is_multiple_of(50) {
                    d.remove(ep);
                    m[ep] = None;
                } else {
                    d.report(ep, now, 1_000, max_interval);
                    let p = m[ep].get_or_insert(Model {
                        last: None,
                        all: Vec::new(),
                    });
                    match p.last {
                        None => p.all.push(1_000),
                        Some(t) if now - t <= max_interval => p.all.push((now - t) as u32),
                        Some(_) => {}
                    }
                    p.last = Some(now);
                }
                for (p, mp) in m.iter().enumerate() {
                    assert_eq!(d.last(p), mp.as_ref().and_then(|q| q.last));
                    let Some(q) = mp else {
                        assert_eq!(d.intervals(p).count(), 0);
                        assert_eq!(d.phi(p, now), None);
                        assert_eq!(d.quiet_until[p], Micros::MAX);
                        continue;
                    };
                    let tail = &q.all[q.all.len().saturating_sub(window)..];
                    assert!(d.intervals(p).eq(tail.iter().copied()));
                    let sum: u64 = tail.iter().map(|&v| v as u64).sum();
                    let mean = sum as f64 / tail.len() as f64;
                    let t = q.last.expect("reported");
                    assert_eq!(d.phi(p, now + 700), Some((now + 700 - t) as f64 / mean));
                    assert_eq!(
                        d.quiet_until[p],
                        quiet_until_of(t, sum, tail.len() as u16, quiet_factor(8.0))
                    );
                }
                assert_eq!(d.present(), m.iter().filter(|q| q.is_some()).count());
            }
        }
    }
}
