//! The timeline's scale: where a time is on the scrubber and the overview strip and back, and
//! the track's rows. Shared by the timeline ([`super::timeline`]) and what is drawn over it
//! (violations, the divergence) and by the scrubber's pointer handling (`ui::timeline`).

use clusterscope_core::time::Micros;

pub const PAD: f64 = 10.0;
pub const TRACK_Y: f64 = 18.0;
pub const TRACK_H: f64 = 9.0;

/// x of time `t` in the whole run (`0..end`) on a canvas `w` wide (the overview strip).
pub fn x_of(t: Micros, end: Micros, w: f64) -> f64 {
    PAD + (t as f64 / end.max(1) as f64) * (w - 2.0 * PAD)
}

/// Time at `x` on the whole run's scale (the overview strip).
pub fn t_of(x: f64, end: Micros, w: f64) -> Micros {
    let f = ((x - PAD) / (w - 2.0 * PAD)).clamp(0.0, 1.0);
    (f * end as f64).round() as Micros
}

/// x of time `t` in the window `(lo, hi)`.
pub fn x_in(t: Micros, (lo, hi): (Micros, Micros), w: f64) -> f64 {
    PAD + ((t as f64 - lo as f64) / (hi - lo).max(1) as f64) * (w - 2.0 * PAD)
}

/// Time at `x` in the window `(lo, hi)`.
pub fn t_in(x: f64, (lo, hi): (Micros, Micros), w: f64) -> Micros {
    let f = ((x - PAD) / (w - 2.0 * PAD)).clamp(0.0, 1.0);
    lo + (f * (hi - lo) as f64).round() as Micros
}
