//! Cassandra's phi-accrual failure detector (`FailureDetector` + `ArrivalWindow`).

use crate::time::Micros;

/// 1 / ln(10): Cassandra compares `PHI_FACTOR * phi` with `phi_convict_threshold`.
pub const PHI_FACTOR: f64 = std::f64::consts::LOG10_E;

/// Windows up to this many intervals keep everything about a peer in one cache line (`Line`);
/// larger ones grow a `Vec` per peer.
const INLINE: usize = 16;

/// Fraction bits of `Detector::per_len`.
const PER_LEN_SHIFT: u32 = 24;
/// Largest `Detector::per_len` (a factor of 2^11, threshold ~900), so that `sum * per_len` fits.
const PER_LEN_MAX: f64 = (1u64 << 35) as f64;
/// `len & INLINE_MASK == len` for inline lengths (0..=16): indexing without a bounds check.
const INLINE_MASK: usize = 31;

/// Inline samples take 24 bits: intervals up to ~16.8 s, far above Cassandra's 2 s maximum
/// interval (detectors whose initial or maximum interval is longer use the growing layout).
const SAMPLE_MAX: Micros = (1 << 24) - 1;

/// One peer's inter-arrival window (Cassandra's `ArrivalWindow`): the last report time and the
/// last `window` intervals. A one-peer `Detector`, so there is one implementation of the
/// arithmetic; handy on its own in tests and examples.
#[derive(Clone, Debug)]
pub struct ArrivalWindow {
    d: Detector,
}

impl ArrivalWindow {
    /// The first report records `initial` as its interval; intervals longer than
    /// `max_interval` are ignored (Cassandra's `MAX_INTERVAL_IN_NANO`).
    pub fn new(window: usize, initial: Micros, max_interval: Micros) -> Self {
        // The threshold only feeds the detector's conviction bound, unused through this type.
        ArrivalWindow {
            d: Detector::new(1, window, 1.0, initial, max_interval),
        }
    }

    /// A heartbeat arrived at `now`.
    pub fn add(&mut self, now: Micros) {
        self.d.report(0, now);
    }

    /// Time of the last report; `None` until the first.
    pub fn last(&self) -> Option<Micros> {
        self.d.last(0)
    }

    /// The samples, oldest first.
    pub fn intervals(&self) -> Vec<u32> {
        self.d.intervals(0)
    }

    pub fn mean(&self) -> f64 {
        let s = self.d.stats(0);
        mean_of(s.sum, s.len)
    }

    pub fn samples(&self) -> usize {
        self.d.stats(0).len as usize
    }

    /// phi = (now - last) / mean, as Cassandra computes it (exponential-distribution form).
    pub fn phi(&self, now: Micros) -> f64 {
        self.d.phi(0, now).unwrap_or(0.0)
    }

    /// A time before which `convicts(self.phi(now), threshold)` is certainly false: the exact
    /// crossing minus a relative margin (1e-9) far larger than any float rounding, so the
    /// status check can skip a peer with one comparison and evaluate phi only near the crossing.
    pub fn quiet_until(&self, threshold: f64) -> Micros {
        let s = self.d.stats(0);
        if s.last == NONE {
            return Micros::MAX;
        }
        quiet_until_of(s.last, s.sum, s.len, quiet_factor(threshold))
    }
}

/// Equal when they hold the same samples in the same order (wherever the ring starts).
impl PartialEq for ArrivalWindow {
    fn eq(&self, o: &Self) -> bool {
        self.last() == o.last() && self.d.cap == o.d.cap && self.intervals() == o.intervals()
    }
}

fn mean_of(sum: u64, len: u16) -> f64 {
    if len == 0 {
        0.0
    } else {
        sum as f64 / len as f64
    }
}

/// `ArrivalWindow::quiet_until` from a window's last report, sample sum and count.
fn quiet_until_of(last: Micros, sum: u64, len: u16, factor: f64) -> Micros {
    if sum == 0 {
        return Micros::MAX;
    }
    // Signed conversions: one instruction each on x86_64 (unsigned ones are not). `sum` is at
    // most window * u32::MAX, far below i64::MAX.
    quiet_after(last, factor * (sum as i64) as f64 / (len as i32) as f64)
}

/// `last` plus the floor of `span`, or "never" for spans this long.
#[inline]
fn quiet_after(last: Micros, span: f64) -> Micros {
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

const NONE: Micros = Micros::MAX;

/// Everything about one peer's small window in one cache line: with hundreds of peers per node
/// and every node's windows touched about once a second, scattered over the node's peers, the
/// detector's footprint decides how often a heartbeat waits for memory.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line {
    /// Time of the last report; `NONE` when the peer has no window.
    last: Micros,
    /// Sum of the samples (at most 16 x (2^24 - 1) < 2^28).
    sum: u32,
    len: u8,
    /// The slot the next sample goes to: `len` while filling, then the oldest sample's.
    head: u8,
    /// `INLINE` samples of 24 bits, little-endian.
    samples: [u8; 3 * INLINE],
}

impl Line {
    const EMPTY: Line = Line {
        last: NONE,
        sum: 0,
        len: 0,
        head: 0,
        samples: [0; 3 * INLINE],
    };

    #[inline]
    fn get(&self, i: usize) -> u32 {
        let b = &self.samples[3 * i..3 * i + 3];
        u32::from_le_bytes([b[0], b[1], b[2], 0])
    }

    #[inline]
    fn set(&mut self, i: usize, v: u32) {
        debug_assert!(v as Micros <= SAMPLE_MAX);
        self.samples[3 * i..3 * i + 3].copy_from_slice(&v.to_le_bytes()[..3]);
    }
}

/// The interval a report at `now` adds to a window last reported at `last`: `initial` for the
/// first report (which creates the window: counted in `present`), none when longer than
/// `max_interval` (Cassandra's `MAX_INTERVAL_IN_NANO`).
#[inline]
fn interval(
    present: &mut usize,
    last: Micros,
    now: Micros,
    initial: Micros,
    max_interval: Micros,
) -> Option<Micros> {
    if last == NONE {
        *present += 1;
        Some(initial)
    } else {
        let gap = now.saturating_sub(last);
        (gap <= max_interval).then_some(gap)
    }
}

/// A window's bookkeeping: stored as such for a large window (its samples are in a `Vec` of
/// their own), read out of the `Line` of a small one (`Detector::stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Head {
    /// Time of the last report; `NONE` when the peer has no window.
    last: Micros,
    sum: u64,
    len: u16,
    /// Oldest sample's slot once full (0 while filling).
    head: u16,
}

impl Head {
    const EMPTY: Head = Head {
        last: NONE,
        sum: 0,
        len: 0,
        head: 0,
    };
}

/// Window storage: one line per peer for small windows (the common case in big clusters), or
/// bookkeeping plus rings grown on demand for large ones.
#[derive(Debug)]
enum Windows {
    Small(Vec<Line>),
    Big(Vec<Head>, Vec<Vec<u32>>),
}

impl Clone for Windows {
    fn clone(&self) -> Self {
        match self {
            Windows::Small(v) => Windows::Small(v.clone()),
            Windows::Big(h, s) => Windows::Big(h.clone(), s.clone()),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        match (self, src) {
            (Windows::Small(a), Windows::Small(b)) => a.clone_from(b),
            (Windows::Big(ah, a), Windows::Big(bh, b)) => {
                ah.clone_from(bh);
                a.clone_from(b);
            }
            (a, b) => *a = b.clone(),
        }
    }
}

/// One node's failure detector: an `ArrivalWindow` per peer, stored as columns (the windows,
/// and — for the status check that runs every second over every peer — the time each peer's
/// phi may first convict). Same arithmetic as `ArrivalWindow` (checked by a test).
#[derive(Debug)]
pub struct Detector {
    windows: Windows,
    quiet_until: Vec<Micros>,
    /// At most every `quiet_until` (`Micros::MAX` when none was set since the last scan):
    /// lowered by each report, made exact by each scan (`maybe_convicting`). A status check
    /// before it has no peer to test, so a second's check of a quiet cluster reads one number
    /// instead of the whole column.
    floor: Micros,
    present: usize,
    cap: u16,
    initial: Micros,
    max_interval: Micros,
    /// `quiet_factor(threshold)`.
    factor: f64,
    /// `factor / len` for small windows of `len` samples, in fixed point (`PER_LEN_SHIFT`
    /// fraction bits, rounded down): an integer multiplication instead of a float division
    /// per report. The bound comes out at most ~1e-7 of the span early (still a bound).
    per_len: [u64; INLINE_MASK + 1],
    /// The slot after slot `h` of a small window's ring (`h + 1`, or 0 after the last).
    next_head: [u8; INLINE_MASK + 1],
}

/// `Clone` by hand: `clone_from` (restoring a checkpoint) copies into the existing allocations.
impl Clone for Detector {
    fn clone(&self) -> Self {
        let Detector {
            windows,
            quiet_until,
            floor,
            present,
            cap,
            initial,
            max_interval,
            factor,
            per_len,
            next_head,
        } = self;
        Detector {
            windows: windows.clone(),
            quiet_until: quiet_until.clone(),
            floor: *floor,
            present: *present,
            cap: *cap,
            initial: *initial,
            max_interval: *max_interval,
            factor: *factor,
            per_len: *per_len,
            next_head: *next_head,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        let Detector {
            windows,
            quiet_until,
            floor,
            present,
            cap,
            initial,
            max_interval,
            factor,
            per_len,
            next_head,
        } = src;
        self.windows.clone_from(windows);
        self.quiet_until.clone_from(quiet_until);
        self.floor = *floor;
        self.present = *present;
        self.cap = *cap;
        self.initial = *initial;
        self.max_interval = *max_interval;
        self.factor = *factor;
        self.per_len = *per_len;
        self.next_head = *next_head;
    }
}

impl Detector {
    /// `n` peers; `window` is clamped to 1..=65535 (scenario validation allows at most 10000).
    /// A window's first report records `initial` as its interval; longer intervals than
    /// `max_interval` are ignored (Cassandra's `MAX_INTERVAL_IN_NANO`).
    pub fn new(
        n: usize,
        window: usize,
        threshold: f64,
        initial: Micros,
        max_interval: Micros,
    ) -> Self {
        let cap = window.clamp(1, u16::MAX as usize) as u16;
        let small = cap as usize <= INLINE && initial <= SAMPLE_MAX && max_interval <= SAMPLE_MAX;
        let factor = quiet_factor(threshold);
        let mut per_len = [0; INLINE_MASK + 1];
        for (len, f) in per_len.iter_mut().enumerate().take(INLINE + 1).skip(1) {
            // Thresholds far beyond Cassandra's (8) saturate: the bound is then just early.
            *f = (factor / len as f64 * (1u64 << PER_LEN_SHIFT) as f64).min(PER_LEN_MAX) as u64;
        }
        let mut next_head = [0; INLINE_MASK + 1];
        for (h, next) in next_head.iter_mut().enumerate().take(INLINE) {
            *next = if h + 1 >= cap as usize {
                0
            } else {
                h as u8 + 1
            };
        }
        Detector {
            windows: if small {
                Windows::Small(vec![Line::EMPTY; n])
            } else {
                Windows::Big(vec![Head::EMPTY; n], vec![Vec::new(); n])
            },
            quiet_until: vec![Micros::MAX; n],
            floor: Micros::MAX,
            present: 0,
            cap,
            initial,
            max_interval,
            factor,
            per_len,
            next_head,
        }
    }

    pub fn len(&self) -> usize {
        self.quiet_until.len()
    }

    pub fn is_empty(&self) -> bool {
        self.quiet_until.is_empty()
    }

    /// `ep`'s bookkeeping (`Head::EMPTY` without a window or out of range).
    fn stats(&self, ep: usize) -> Head {
        match &self.windows {
            Windows::Small(l) => l.get(ep).map_or(Head::EMPTY, |l| Head {
                last: l.last,
                sum: l.sum as u64,
                len: l.len as u16,
                head: l.head as u16,
            }),
            Windows::Big(h, _) => h.get(ep).copied().unwrap_or(Head::EMPTY),
        }
    }

    /// Does `ep` have a window?
    pub fn has(&self, ep: usize) -> bool {
        self.stats(ep).last != NONE
    }

    /// How many peers have a window.
    pub fn present(&self) -> usize {
        self.present
    }

    /// Time of `ep`'s last report; `None` without a window.
    pub fn last(&self, ep: usize) -> Option<Micros> {
        Some(self.stats(ep).last).filter(|&t| t != NONE)
    }

    /// `ep`'s samples, oldest first (none without a window).
    pub fn intervals(&self, ep: usize) -> Vec<u32> {
        let s = self.stats(ep);
        let slots: Vec<u32> = match &self.windows {
            Windows::Small(l) => l.get(ep).map_or(Vec::new(), |l| {
                (0..s.len as usize).map(|i| l.get(i)).collect()
            }),
            Windows::Big(_, v) => v.get(ep).cloned().unwrap_or_default(),
        };
        let (a, b) = slots.split_at((s.head as usize).min(slots.len()));
        b.iter().chain(a).copied().collect()
    }

    /// `ArrivalWindow::phi` of `ep`'s window; `None` without a window.
    pub fn phi(&self, ep: usize, now: Micros) -> Option<f64> {
        let s = self.stats(ep);
        if s.last == NONE {
            return None;
        }
        let mean = mean_of(s.sum, s.len);
        Some(if mean > 0.0 {
            now.saturating_sub(s.last) as f64 / mean
        } else {
            0.0
        })
    }

    /// A heartbeat of `ep` arrived (creates its window on the first report): the same steps as
    /// `ArrivalWindow::add`. Inline for the small windows of big clusters (a node's ACK and
    /// ACK2 each report about a hundred peers: called out of line, saving and restoring
    /// registers for both layouts was a third of the work); large windows out of line.
    #[inline]
    pub fn report(&mut self, ep: usize, now: Micros) {
        let (initial, max_interval) = (self.initial, self.max_interval);
        let Windows::Small(lines) = &mut self.windows else {
            return self.report_big(ep, now);
        };
        let l = &mut lines[ep];
        if let Some(interval) = interval(&mut self.present, l.last, now, initial, max_interval) {
            // At most SAMPLE_MAX: `initial` and `max_interval` are (see `new`). The sample goes
            // to `head` whether the window is filling (`head == len`, a slot still 0) or full
            // (the oldest sample's slot): no branch on which.
            let v = interval as u32;
            // `head < cap <= INLINE`: the mask changes nothing and spares the bounds checks.
            let slot = l.head as usize & (INLINE - 1);
            l.sum = l.sum - l.get(slot) + v;
            l.set(slot, v);
            l.head = self.next_head[slot];
            l.len += ((l.len as u16) < self.cap) as u8;
        }
        l.last = now;
        let quiet = if l.sum == 0 {
            Micros::MAX
        } else {
            // sum < 2^28 and per_len <= PER_LEN_MAX < 2^35: no overflow, and `now` is far below
            // u64::MAX - 2^39.
            now + ((l.sum as u64 * self.per_len[l.len as usize & INLINE_MASK]) >> PER_LEN_SHIFT)
        };
        self.quiet_until[ep] = quiet;
        self.floor = self.floor.min(quiet);
    }

    /// [`Self::report`] for large windows (`Windows::Big`).
    #[inline(never)]
    fn report_big(&mut self, ep: usize, now: Micros) {
        let (initial, max_interval) = (self.initial, self.max_interval);
        let Windows::Big(heads, samples) = &mut self.windows else {
            unreachable!("report_big on small windows");
        };
        let h = &mut heads[ep];
        if let Some(interval) = interval(&mut self.present, h.last, now, initial, max_interval) {
            let v = interval.min(u32::MAX as Micros) as u32;
            h.sum += v as u64;
            if h.len < self.cap {
                samples[ep].push(v);
                h.len += 1;
            } else {
                let slot = &mut samples[ep][h.head as usize];
                h.sum -= *slot as u64;
                *slot = v;
                h.head = if h.head + 1 == self.cap {
                    0
                } else {
                    h.head + 1
                };
            }
        }
        h.last = now;
        let quiet = quiet_until_of(h.last, h.sum, h.len, self.factor);
        self.quiet_until[ep] = quiet;
        self.floor = self.floor.min(quiet);
    }

    /// About how many bytes a copy of the detector takes.
    pub fn approx_bytes(&self) -> usize {
        let windows = match &self.windows {
            Windows::Small(l) => l.len() * std::mem::size_of::<Line>(),
            Windows::Big(h, s) => {
                h.len() * std::mem::size_of::<Head>()
                    + s.iter()
                        .map(|v| std::mem::size_of::<Vec<u32>>() + v.capacity() * 4)
                        .sum::<usize>()
            }
        };
        std::mem::size_of::<Self>()
            + self.quiet_until.len() * std::mem::size_of::<Micros>()
            + windows
    }

    /// Bring the whole detector into the cache (see `state::warm`).
    pub fn warm(&self) {
        crate::gossip::state::warm(&self.quiet_until);
        match &self.windows {
            Windows::Small(l) => crate::gossip::state::warm(l),
            Windows::Big(h, _) => crate::gossip::state::warm(h),
        }
    }

    /// Forget `ep`'s history (a new generation of a dead peer).
    pub fn remove(&mut self, ep: usize) {
        if self.has(ep) {
            self.present -= 1;
        }
        match &mut self.windows {
            Windows::Small(l) => l[ep] = Line::EMPTY,
            Windows::Big(h, s) => {
                h[ep] = Head::EMPTY;
                s[ep] = Vec::new();
            }
        }
        self.quiet_until[ep] = Micros::MAX;
    }

    pub fn clear(&mut self) {
        for ep in 0..self.len() {
            self.remove(ep);
        }
        self.present = 0;
    }

    /// Peers whose phi may convict at `now` (all others certainly do not), in id order. Before
    /// the floor, none (no allocation); otherwise one pass that also makes the floor exact.
    pub fn maybe_convicting(&mut self, now: Micros) -> Vec<usize> {
        if now < self.floor {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut floor = Micros::MAX;
        for (i, &t) in self.quiet_until.iter().enumerate() {
            if t <= now {
                out.push(i);
            }
            floor = floor.min(t);
        }
        self.floor = floor;
        out
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
        let mut w = ArrivalWindow::new(1000, 2 * S, 2 * S);
        w.add(0);
        // First report records the 2 s initial interval.
        assert_eq!(w.mean(), 2e6);
        w.add(S);
        assert_eq!(w.mean(), 1.5e6);
        // phi after 3 s of silence since the last report at 1 s: 3 / 1.5 = 2.
        assert!((w.phi(4 * S) - 2.0).abs() < 1e-12);
        // Conviction at threshold 8 needs phi > 8 / 0.4343 = 18.42 mean intervals.
        assert!(!convicts(w.phi(S + 27 * S), 8.0));
        assert!(convicts(w.phi(S + 28 * S), 8.0));
    }

    #[test]
    fn long_gaps_are_ignored_and_window_is_bounded() {
        let mut w = ArrivalWindow::new(3, 2 * S, 2 * S);
        w.add(0);
        w.add(10 * S); // 10 s gap > max interval: not a sample
        assert_eq!(w.samples(), 1);
        for t in 11..20 {
            w.add(t * S);
        }
        assert_eq!(w.samples(), 3);
        assert_eq!(w.mean(), 1e6);
    }

    /// The ring keeps exactly the last `window` samples, inline or on the heap, and its mean
    /// equals the mean of those samples.
    #[test]
    fn ring_matches_a_sliding_window() {
        for window in [1usize, 2, 3, 15, 16, 17, 40] {
            let mut w = ArrivalWindow::new(window, 500, 10_000);
            let mut all: Vec<u32> = Vec::new();
            let mut t = 0;
            for i in 0..200u64 {
                t += 1 + (i * 7919) % 1000;
                w.add(t);
                all.push(if i == 0 {
                    500
                } else {
                    (1 + (i * 7919) % 1000) as u32
                });
                let tail = &all[all.len().saturating_sub(window)..];
                assert!(w.intervals() == tail, "window {window} at {i}");
                let mean = tail.iter().map(|&x| x as u64).sum::<u64>() as f64 / tail.len() as f64;
                assert_eq!(w.mean(), mean);
            }
        }
    }

    #[test]
    fn equality_ignores_where_the_ring_starts() {
        let mut a = ArrivalWindow::new(3, 10, 100);
        let mut b = ArrivalWindow::new(3, 10, 100);
        // The same last three intervals (10, 10, 10) and the same last report, after different
        // histories: the rings start at different slots.
        for t in [0, 10, 20, 30, 40] {
            a.add(t);
        }
        for t in [0, 5, 15, 25, 30, 40] {
            b.add(t);
        }
        assert_eq!(a.intervals(), vec![10, 10, 10]);
        assert_eq!(b.intervals(), vec![10, 5, 10]);
        assert_ne!(a, b);
        b.add(50);
        a.add(50);
        assert_eq!(b.intervals(), vec![5, 10, 10]);
        b.add(60);
        a.add(60);
        assert_eq!(a, b);
        assert_eq!(a.last(), Some(60));
    }

    #[test]
    fn quiet_until_is_a_safe_bound() {
        for (window, step, threshold) in
            [(16, 1_000_037u64, 8.0), (1000, 999_983, 5.0), (3, 7, 0.5)]
        {
            let mut w = ArrivalWindow::new(window, 2 * S, 2 * S);
            let mut t = 0;
            for i in 0..50 {
                t += step + (i * 31) % 1000;
                w.add(t);
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
        assert_eq!(
            ArrivalWindow::new(4, 2 * S, 2 * S).quiet_until(8.0),
            Micros::MAX
        );
    }

    #[test]
    fn detector_tracks_present_windows() {
        let mut d = Detector::new(4, 16, 8.0, S, 2 * S);
        assert_eq!(d.present(), 0);
        assert!(d.maybe_convicting(u64::MAX - 1).is_empty());
        d.report(1, 0);
        d.report(1, S);
        d.report(3, 0);
        assert_eq!(d.present(), 2);
        assert!(d.maybe_convicting(S).is_empty());
        // Long after: both may convict, in id order.
        assert_eq!(d.maybe_convicting(100 * S), vec![1, 3]);
        d.remove(1);
        d.remove(1);
        assert_eq!(d.present(), 1);
        assert_eq!(d.maybe_convicting(100 * S), vec![3]);
        d.clear();
        assert_eq!(d.present(), 0);
        assert!(d.last(3).is_none());
        assert!(d.intervals(3).is_empty());
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
        let (mut scanned, mut found) = (0u32, 0u32);
        // (window, max interval, largest step between reports, inline layout?)
        for (window, max_interval, step, small) in [
            (1usize, 5_000u64, 1_500u64, true),
            (3, 5_000, 1_500, true),
            (16, 3_000, 1_500, true),
            // Samples using all 24 bits.
            (16, SAMPLE_MAX, SAMPLE_MAX / 3, true),
            // A small window whose intervals may not fit in 24 bits.
            (4, SAMPLE_MAX + 1, SAMPLE_MAX / 3, false),
            (17, 5_000, 1_500, false),
            (40, 2_000, 1_500, false),
        ] {
            let n = 6;
            let mut d = Detector::new(n, window, 8.0, 1_000, max_interval);
            assert_eq!(matches!(d.windows, Windows::Small(_)), small);
            let mut m: Vec<Option<Model>> = (0..n).map(|_| None).collect();
            let mut x: u64 = 99;
            let mut now = 0;
            for _ in 0..3000 {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let ep = ((x >> 33) % n as u64) as usize;
                now += (x >> 20) % step;
                if (x >> 40).is_multiple_of(50) {
                    d.remove(ep);
                    m[ep] = None;
                } else {
                    d.report(ep, now);
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
                        assert!(d.intervals(p).is_empty());
                        assert_eq!(d.phi(p, now), None);
                        assert_eq!(d.quiet_until[p], Micros::MAX);
                        continue;
                    };
                    let tail = &q.all[q.all.len().saturating_sub(window)..];
                    assert_eq!(d.intervals(p), tail);
                    let sum: u64 = tail.iter().map(|&v| v as u64).sum();
                    let mean = sum as f64 / tail.len() as f64;
                    let t = q.last.expect("reported");
                    assert_eq!(d.phi(p, now + 700), Some((now + 700 - t) as f64 / mean));
                    // Inline windows multiply by factor / len in fixed point instead of dividing:
                    // at most ~1e-7 of the span early.
                    let exact = quiet_until_of(t, sum, tail.len() as u16, quiet_factor(8.0));
                    let q = d.quiet_until[p];
                    if small {
                        assert!(q <= exact && exact - q <= 1 + (exact - t) / 10_000_000);
                    } else {
                        assert_eq!(q, exact);
                    }
                    // And it is still a bound: no conviction before it.
                    let q = d.quiet_until[p];
                    assert!(q == Micros::MAX || !convicts(d.phi(p, q - 1).expect("window"), 8.0));
                }
                assert_eq!(d.present(), m.iter().filter(|q| q.is_some()).count());
                // The floor bounds every conviction time from below, and a status check's scan
                // (at or after it) finds exactly the peers a full filter finds.
                let min = d.quiet_until.iter().copied().min().unwrap_or(Micros::MAX);
                assert!(d.floor <= min, "floor {} above a bound {min}", d.floor);
                if (x >> 45).is_multiple_of(5) {
                    let at = now + (x >> 12) % (40 * step);
                    let plain: Vec<usize> = (0..n).filter(|&p| d.quiet_until[p] <= at).collect();
                    let scans = at >= d.floor;
                    scanned += scans as u32;
                    found += !plain.is_empty() as u32;
                    assert_eq!(d.maybe_convicting(at), plain);
                    if scans {
                        assert_eq!(d.floor, min, "a scan makes the floor exact");
                    }
                }
            }
        }
        // Both ways through the check, and peers found.
        assert!(
            scanned > 100 && found > 50,
            "{scanned} scans, {found} with suspects"
        );
    }
}
