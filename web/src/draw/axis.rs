//! Plot axes, pure (tested natively): the time window a plot shows, regular time ticks, and a
//! y range that a runaway value (a stopped peer's phi) cannot flatten.

/// The x range of a time plot, in seconds: from 0 to a quarter past the cursor (the cursor at
/// four fifths of the width), at least [`MIN_WINDOW_S`], at most the scenario's end. The action
/// at the cursor fills the plot instead of sitting in its left tenth.
pub fn time_window(now_s: f64, end_s: f64) -> (f64, f64) {
    let end = end_s.max(0.001);
    (0.0, (now_s * 1.25).max(MIN_WINDOW_S).min(end))
}

/// The narrowest x range of a time plot.
pub const MIN_WINDOW_S: f64 = 5.0;

/// Tick positions (seconds) and their labels for `lo..=hi` seconds: at most `max` ticks, a step
/// of 1, 2 or 5 (x 10^k) seconds, or 1, 2, 5, 10, 15, 30 minutes (x 10^k) when the range is two
/// minutes or more, so consecutive labels differ by the same amount ("0m 2m 4m ...").
pub fn time_ticks(lo: f64, hi: f64, max: usize) -> Vec<(f64, String)> {
    let span = (hi - lo).max(1e-6);
    let minutes = span >= 120.0;
    let unit = if minutes { 60.0 } else { 1.0 };
    let raw = span / unit / max.max(2) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let steps: &[f64] = if minutes && mag >= 1.0 {
        &[1.0, 2.0, 5.0, 10.0, 15.0, 30.0]
    } else {
        &[1.0, 2.0, 5.0, 10.0]
    };
    let step = steps
        .iter()
        .map(|s| s * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    let first = (lo / unit / step).ceil() as i64;
    let last = (hi / unit / step + 1e-9).floor() as i64;
    (first..=last)
        .map(|k| {
            let v = k as f64 * step;
            let label = format!("{v:.decimals$}{}", if minutes { "m" } else { "s" });
            (v * unit, label)
        })
        .collect()
}

/// The y maximum of a plot whose values peak at `peak`, with an optional threshold line: the
/// values and the threshold fit, but a value far above the threshold (more than
/// [`THRESHOLD_HEADROOM`] times it) is clipped at the top instead of squashing the threshold line
/// to the bottom. Returns (ymax, clipped).
pub fn y_max(peak: f64, threshold: Option<f64>) -> (f64, bool) {
    let peak = if peak.is_finite() { peak.max(0.0) } else { 0.0 };
    match threshold {
        Some(t) if t > 0.0 => {
            let cap = t * THRESHOLD_HEADROOM;
            if peak > cap {
                (cap, true)
            } else {
                (peak.max(t * 1.15) * 1.08, false)
            }
        }
        _ => (if peak <= 0.0 { 1.0 } else { peak * 1.08 }, false),
    }
}

/// How far above a threshold a plot's y axis reaches at most.
pub const THRESHOLD_HEADROOM: f64 = 3.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(t: &[(f64, String)]) -> Vec<&str> {
        t.iter().map(|x| x.1.as_str()).collect()
    }

    #[test]
    fn twelve_minutes_tick_every_two_minutes() {
        let t = time_ticks(0.0, 720.0, 6);
        assert_eq!(labels(&t), ["0m", "2m", "4m", "6m", "8m", "10m", "12m"]);
    }

    #[test]
    fn ticks_are_evenly_spaced_and_distinct() {
        for (lo, hi) in [
            (0.0, 3.0),
            (0.0, 45.0),
            (0.0, 130.0),
            (0.0, 600.0),
            (0.0, 7200.0),
        ] {
            let t = time_ticks(lo, hi, 6);
            assert!(t.len() >= 2 && t.len() <= 7, "{hi}: {t:?}");
            let d: Vec<f64> = t.windows(2).map(|w| w[1].0 - w[0].0).collect();
            assert!(d.iter().all(|x| (x - d[0]).abs() < 1e-6), "{hi}: {t:?}");
            let mut l = labels(&t);
            l.dedup();
            assert_eq!(l.len(), t.len(), "{hi}: {t:?}");
        }
    }

    #[test]
    fn the_window_follows_the_cursor() {
        // A 10-minute scenario at 40 s: the plot shows 0..50 s, not 0..600 s.
        assert_eq!(time_window(40.0, 600.0), (0.0, 50.0));
        assert_eq!(time_window(0.0, 600.0), (0.0, MIN_WINDOW_S));
        assert_eq!(time_window(0.0, 2.0), (0.0, 2.0));
        assert_eq!(time_window(590.0, 600.0), (0.0, 600.0));
    }

    #[test]
    fn a_runaway_value_does_not_flatten_the_threshold() {
        let (y, clipped) = y_max(631.0, Some(8.0));
        assert!(clipped);
        assert!(
            8.0 / y > 0.3,
            "the threshold sits at {:.0}% of the height",
            800.0 / y
        );
        assert_eq!(y_max(2.0, Some(8.0)), (8.0 * 1.15 * 1.08, false));
        assert_eq!(y_max(0.0, None), (1.0, false));
        assert_eq!(y_max(10.0, None), (10.8, false));
    }
}
