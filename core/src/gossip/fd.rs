//! Cassandra's phi-accrual failure detector (`FailureDetector` + `ArrivalWindow`).

use crate::time::Micros;
use serde::Serialize;

/// 1 / ln(10): Cassandra compares `PHI_FACTOR * phi` with `phi_convict_threshold`.
pub const PHI_FACTOR: f64 = std::f64::consts::LOG10_E;

/// Windows up to this many intervals live inline (no separate allocation, one cache line):
/// with hundreds of peers per node, every heartbeat touches a different window.
const INLINE: usize = 16;

/// Inter-arrival times of one peer's heartbeats, bounded to the sample window: a ring of
/// `window` slots that fills in order, then overwrites its oldest sample.
#[derive(Clone, Debug, Serialize)]
pub struct ArrivalWindow {
    /// Time of the last report; `None` until the first.
    pub last: Option<Micros>,
    #[serde(skip)]
    sum: u64,
    /// Capacity (the sample window), fixed at creation.
    #[serde(skip)]
    cap: u32,
    /// Samples held (<= cap).
    #[serde(skip)]
    len: u32,
    /// Oldest sample's slot once full (0 while filling).
    #[serde(skip)]
    head: u32,
    #[serde(skip)]
    inline: [u32; INLINE],
    /// Slots when the window is larger than `INLINE` (grows while filling, never beyond `cap`).
    #[serde(skip)]
    heap: Vec<u32>,
}

impl ArrivalWindow {
    pub fn new(window: usize) -> Self {
        ArrivalWindow {
            last: None,
            sum: 0,
            cap: window.clamp(1, u32::MAX as usize) as u32,
            len: 0,
            head: 0,
            inline: [0; INLINE],
            heap: Vec::new(),
        }
    }

    fn slots(&self) -> &[u32] {
        if self.cap as usize <= INLINE {
            &self.inline[..self.len as usize]
        } else {
            &self.heap
        }
    }

    /// The samples, oldest first.
    pub fn intervals(&self) -> impl Iterator<Item = u32> + '_ {
        let s = self.slots();
        let (a, b) = s.split_at(self.head as usize);
        b.iter().chain(a).copied()
    }

    fn push(&mut self, interval: Micros) {
        let v = interval.min(u32::MAX as Micros) as u32;
        self.sum += v as u64;
        let small = self.cap as usize <= INLINE;
        if self.len < self.cap {
            // Filling: no sample was dropped yet, so the ring starts at slot 0.
            if small {
                self.inline[self.len as usize] = v;
            } else {
                self.heap.push(v);
            }
            self.len += 1;
        } else {
            let h = self.head as usize;
            let slot = if small {
                &mut self.inline[h]
            } else {
                &mut self.heap[h]
            };
            self.sum -= *slot as u64;
            *slot = v;
            self.head = if self.head + 1 == self.cap {
                0
            } else {
                self.head + 1
            };
        }
    }

    /// A heartbeat arrived at `now`. The first report records the initial interval; intervals
    /// longer than `max_interval` are ignored (Cassandra's `MAX_INTERVAL_IN_NANO`).
    pub fn add(&mut self, now: Micros, initial: Micros, max_interval: Micros) {
        match self.last {
            Some(t) => {
                let gap = now.saturating_sub(t);
                if gap <= max_interval {
                    self.push(gap);
                }
            }
            None => self.push(initial),
        }
        self.last = Some(now);
    }

    pub fn mean(&self) -> f64 {
        if self.len == 0 {
            0.0
        } else {
            self.sum as f64 / self.len as f64
        }
    }

    pub fn samples(&self) -> usize {
        self.len as usize
    }

    /// phi = (now - last) / mean, as Cassandra computes it (exponential-distribution form).
    pub fn phi(&self, now: Micros) -> f64 {
        match self.last {
            Some(t) if self.mean() > 0.0 => now.saturating_sub(t) as f64 / self.mean(),
            _ => 0.0,
        }
    }
}

impl ArrivalWindow {
    /// A time before which `convicts(self.phi(now), threshold)` is certainly false: the exact
    /// crossing minus a relative margin (1e-9) far larger than any float rounding, so the
    /// status check can skip a peer with one comparison and evaluate phi only near the crossing.
    pub fn quiet_until(&self, threshold: f64) -> Micros {
        self.quiet_until_factor(quiet_factor(threshold))
    }

    fn quiet_until_factor(&self, factor: f64) -> Micros {
        match self.last {
            Some(t) => quiet_until_of(t, self.sum, self.len, factor),
            None => Micros::MAX,
        }
    }
}

/// `ArrivalWindow::quiet_until` from a window's last report, sample sum and count.
fn quiet_until_of(last: Micros, sum: u64, len: impl Into<u32>, factor: f64) -> Micros {
    if sum == 0 {
        return Micros::MAX;
    }
    // Signed conversions: one instruction each on x86_64 (unsigned ones are not). `sum` is at
    // most window * u32::MAX, far below i64::MAX.
    let span = factor * (sum as i64) as f64 / (len.into() as i32) as f64;
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
#[derive(Clone, Debug)]
enum Samples {
    Small(Vec<Row>),
    Big(Vec<Vec<u32>>),
}

/// One small window's samples: exactly one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Row([u32; INLINE]);

/// One node's failure detector: an `ArrivalWindow` per peer, stored as columns (bookkeeping,
/// samples, and — for the status check that runs every second over every peer — the time each
/// peer's phi may first convict). Same arithmetic as `ArrivalWindow` (checked by a test).
#[derive(Clone, Debug)]
pub struct Detector {
    heads: Vec<Head>,
    samples: Samples,
    quiet_until: Vec<Micros>,
    present: usize,
    cap: u16,
    /// `quiet_factor(threshold)`.
    factor: f64,
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

    /// `ep`'s window as an `ArrivalWindow` (for views and tests; the detector itself does not
    /// keep them in that form).
    pub fn window(&self, ep: usize) -> Option<ArrivalWindow> {
        let h = *self.heads.get(ep)?;
        if h.last == NONE {
            return None;
        }
        let slots: &[u32] = match &self.samples {
            Samples::Small(v) => &v[ep].0[..h.len as usize],
            Samples::Big(v) => &v[ep],
        };
        let mut w = ArrivalWindow::new(self.cap as usize);
        let (a, b) = slots.split_at(h.head as usize);
        for &x in b.iter().chain(a) {
            w.push(x as Micros);
        }
        w.last = Some(h.last);
        Some(w)
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

    /// Hint that `ep`'s window is about to be reported to (see `state::prefetch`).
    #[inline(always)]
    pub fn prefetch(&self, ep: usize) {
        crate::gossip::state::prefetch(&self.heads, ep);
        if let Samples::Small(s) = &self.samples {
            crate::gossip::state::prefetch(s, ep);
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

/// Equal when they hold the same samples in the same order (wherever the ring starts).
impl PartialEq for ArrivalWindow {
    fn eq(&self, o: &Self) -> bool {
        self.last == o.last
            && self.cap == o.cap
            && self.len == o.len
            && self.sum == o.sum
            && self.intervals().eq(o.intervals())
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
        for t in [0, 10, 20, 30] {
            a.add(t, 10, 100);
        }
        // b: the same last three intervals (10, 10, 10) after a different history.
        for t in [0, 5, 15, 25, 35] {
            b.add(t, 10, 100);
        }
        assert_eq!(a.intervals().collect::<Vec<_>>(), vec![10, 10, 10]);
        assert_eq!(b.intervals().collect::<Vec<_>>(), vec![10, 10, 10]);
        assert_ne!(a, b); // last report differs (30 vs 35)
        b.add(45, 10, 100);
        a.add(40, 10, 100);
        a.last = b.last;
        assert_eq!(a, b);
    }

    /// `quiet_until` never lies: just before it phi does not convict, and the exact crossing is
    /// within a microsecond-scale margin after it.
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
        assert!(d.window(3).is_none());
        assert!(d.phi(3, S).is_none());
    }

    /// The detector's columns behave exactly like one `ArrivalWindow` per peer: same samples,
    /// phi and conviction bound after any sequence of reports and removals, for small (inline)
    /// and large windows.
    #[test]
    fn detector_matches_arrival_windows() {
        for (window, max_interval) in [
            (1usize, 5_000u64),
            (3, 5_000),
            (16, 3_000),
            (17, 5_000),
            (40, 2_000),
        ] {
            let n = 6;
            let mut d = Detector::new(n, window, 8.0);
            let mut r: Vec<Option<ArrivalWindow>> = vec![None; n];
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
                    r[ep] = None;
                } else {
                    d.report(ep, now, 1_000, max_interval);
                    r[ep].get_or_insert_with(|| ArrivalWindow::new(window)).add(
                        now,
                        1_000,
                        max_interval,
                    );
                }
                for (p, rp) in r.iter().enumerate() {
                    let w = d.window(p);
                    assert_eq!(w.is_some(), rp.is_some());
                    if let (Some(w), Some(rw)) = (w, rp) {
                        assert!(w.intervals().eq(rw.intervals()));
                        assert_eq!(w.last, rw.last);
                        assert_eq!(d.phi(p, now + 700), Some(rw.phi(now + 700)));
                        assert_eq!(d.quiet_until[p], rw.quiet_until(8.0));
                    } else {
                        assert_eq!(d.quiet_until[p], Micros::MAX);
                    }
                }
                assert_eq!(d.present(), r.iter().filter(|w| w.is_some()).count());
            }
        }
    }
}
