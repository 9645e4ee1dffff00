//! Cassandra's phi-accrual failure detector (`FailureDetector` + `ArrivalWindow`).

use crate::time::Micros;
use serde::Serialize;
use std::collections::VecDeque;

/// 1 / ln(10): Cassandra compares `PHI_FACTOR * phi` with `phi_convict_threshold`.
pub const PHI_FACTOR: f64 = std::f64::consts::LOG10_E;

/// Inter-arrival times of one peer's heartbeats, bounded to the sample window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArrivalWindow {
    /// Time of the last report; `None` until the first.
    pub last: Option<Micros>,
    #[serde(skip)]
    intervals: VecDeque<u32>,
    #[serde(skip)]
    sum: u64,
}

impl ArrivalWindow {
    pub fn new() -> Self {
        ArrivalWindow {
            last: None,
            intervals: VecDeque::new(),
            sum: 0,
        }
    }

    fn push(&mut self, interval: Micros, window: usize) {
        let v = interval.min(u32::MAX as Micros) as u32;
        self.intervals.push_back(v);
        self.sum += v as u64;
        while self.intervals.len() > window.max(1) {
            self.sum -= self.intervals.pop_front().expect("non-empty") as u64;
        }
    }

    /// A heartbeat arrived at `now`. The first report records the initial interval; intervals
    /// longer than `max_interval` are ignored (Cassandra's `MAX_INTERVAL_IN_NANO`).
    pub fn add(&mut self, now: Micros, initial: Micros, max_interval: Micros, window: usize) {
        match self.last {
            Some(t) => {
                let gap = now.saturating_sub(t);
                if gap <= max_interval {
                    self.push(gap, window);
                }
            }
            None => self.push(initial, window),
        }
        self.last = Some(now);
    }

    pub fn mean(&self) -> f64 {
        if self.intervals.is_empty() {
            0.0
        } else {
            self.sum as f64 / self.intervals.len() as f64
        }
    }

    pub fn samples(&self) -> usize {
        self.intervals.len()
    }

    /// phi = (now - last) / mean, as Cassandra computes it (exponential-distribution form).
    pub fn phi(&self, now: Micros) -> f64 {
        match self.last {
            Some(t) if self.mean() > 0.0 => now.saturating_sub(t) as f64 / self.mean(),
            _ => 0.0,
        }
    }
}

impl Default for ArrivalWindow {
    fn default() -> Self {
        Self::new()
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
        let mut w = ArrivalWindow::new();
        w.add(0, 2 * S, 2 * S, 1000);
        // First report records the 2 s initial interval.
        assert_eq!(w.mean(), 2e6);
        w.add(S, 2 * S, 2 * S, 1000);
        assert_eq!(w.mean(), 1.5e6);
        // phi after 3 s of silence since the last report at 1 s: 3 / 1.5 = 2.
        assert!((w.phi(4 * S) - 2.0).abs() < 1e-12);
        // Conviction at threshold 8 needs phi > 8 / 0.4343 = 18.42 mean intervals.
        assert!(!convicts(w.phi(S + 27 * S), 8.0));
        assert!(convicts(w.phi(S + 28 * S), 8.0));
    }

    #[test]
    fn long_gaps_are_ignored_and_window_is_bounded() {
        let mut w = ArrivalWindow::new();
        w.add(0, 2 * S, 2 * S, 3);
        w.add(10 * S, 2 * S, 2 * S, 3); // 10 s gap > max interval: not a sample
        assert_eq!(w.samples(), 1);
        for t in 11..20 {
            w.add(t * S, 2 * S, 2 * S, 3);
        }
        assert_eq!(w.samples(), 3);
        assert_eq!(w.mean(), 1e6);
    }
}
