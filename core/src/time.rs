//! Virtual time. The simulator counts microseconds in a `u64`; nothing here reads a clock.

/// Microseconds of virtual time.
pub type Micros = u64;

pub const US_PER_MS: Micros = 1_000;
pub const US_PER_S: Micros = 1_000_000;

/// Parse a human duration such as `250us`, `10ms`, `1.5s`, `2m`, `1h`, or `1h30m`.
///
/// A bare number is rejected on purpose: a scenario author must say which unit they mean.
pub fn parse_duration(text: &str) -> Result<Micros, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty duration; write e.g. \"10s\", \"250ms\" or \"2m\"".into());
    }
    if t.starts_with('-') {
        return Err(format!(
            "duration \"{t}\" is negative; durations must be >= 0"
        ));
    }
    let mut total: f64 = 0.0;
    let mut rest = t;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return Err(format!(
                "duration \"{t}\": expected a number at \"{rest}\"; write e.g. \"10s\", \"250ms\" or \"2m\""
            ));
        }
        let (num, after) = rest.split_at(num_len);
        let value: f64 = num
            .parse()
            .map_err(|_| format!("duration \"{t}\": \"{num}\" is not a number"))?;
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_len);
        let scale = match unit.trim() {
            "us" | "µs" => 1.0,
            "ms" => 1e3,
            "s" => 1e6,
            "m" | "min" => 60e6,
            "h" => 3600e6,
            "" => {
                return Err(format!(
                    "duration \"{t}\" has no unit; add one of us, ms, s, m, h (e.g. \"{num}s\")"
                ))
            }
            other => {
                return Err(format!(
                    "duration \"{t}\": unknown unit \"{other}\"; use us, ms, s, m or h"
                ))
            }
        };
        total += value * scale;
        rest = next;
    }
    if !total.is_finite() || total > 1e18 {
        return Err(format!("duration \"{t}\" is too large"));
    }
    Ok(total.round() as Micros)
}

/// Format microseconds compactly: `1m05.250s`, `12.000s`, `350ms`.
pub fn fmt_time(us: Micros) -> String {
    let ms_total = us / US_PER_MS;
    let frac_ms = ms_total % 1000;
    let secs = ms_total / 1000;
    if secs >= 3600 {
        format!(
            "{}h{:02}m{:02}.{:03}s",
            secs / 3600,
            (secs / 60) % 60,
            secs % 60,
            frac_ms
        )
    } else if secs >= 60 {
        format!("{}m{:02}.{:03}s", secs / 60, secs % 60, frac_ms)
    } else {
        format!("{}.{:03}s", secs, frac_ms)
    }
}

/// Format a duration for a scenario file so that `parse_duration` gives it back exactly.
pub fn fmt_duration(us: Micros) -> String {
    if us.is_multiple_of(US_PER_S) {
        format!("{}s", us / US_PER_S)
    } else if us.is_multiple_of(US_PER_MS) {
        format!("{}ms", us / US_PER_MS)
    } else {
        format!("{us}us")
    }
}

/// A span for a person to read (an age, how long ago): three significant digits and a unit
/// (`340 µs`, `12.3 ms`, `1.01 s`, `42.5 s`), minutes and seconds from a minute (`5m09s`),
/// hours and minutes from an hour (`1h05m`). Not for scenario files ([`fmt_duration`]).
pub fn fmt_elapsed(us: Micros) -> String {
    let ms = us as f64 / US_PER_MS as f64;
    let s = us as f64 / US_PER_S as f64;
    if us < US_PER_MS {
        format!("{us} µs")
    } else if us < US_PER_S {
        match ms {
            ms if ms < 10.0 => format!("{:.2} ms", trunc(ms, 100.0)),
            ms if ms < 100.0 => format!("{:.1} ms", trunc(ms, 10.0)),
            ms => format!("{:.0} ms", ms.floor()),
        }
    } else if us < 60 * US_PER_S {
        if s < 10.0 {
            format!("{:.2} s", trunc(s, 100.0))
        } else {
            format!("{:.1} s", trunc(s, 10.0))
        }
    } else {
        let secs = us / US_PER_S;
        if secs < 3600 {
            format!("{}m{:02}s", secs / 60, secs % 60)
        } else {
            format!("{}h{:02}m", secs / 3600, (secs / 60) % 60)
        }
    }
}

/// `x` cut (not rounded) to the precision `1 / scale`: "1.01 s" never reads "1.02 s" early.
fn trunc(x: f64, scale: f64) -> f64 {
    (x * scale).floor() / scale
}

/// A span rounded down for a message, in the scenario notation (`1h37m`, `9m30s`, `45s`,
/// `250ms`): "about this much fits".
pub fn fmt_span_floor(us: Micros) -> String {
    let s = us / US_PER_S;
    if s == 0 {
        return format!("{}ms", (us / US_PER_MS).max(1));
    }
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    match (h, m, sec) {
        (0, 0, sec) => format!("{sec}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, sec) => format!("{m}m{sec}s"),
        (h, 0, _) => format!("{h}h"),
        (h, m, _) => format!("{h}h{m}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_reads_as_a_person_would_say_it() {
        assert_eq!(fmt_elapsed(1_013_884), "1.01 s");
        assert_eq!(fmt_elapsed(340), "340 µs");
        assert_eq!(fmt_elapsed(12_345), "12.3 ms");
        assert_eq!(fmt_elapsed(2_999), "2.99 ms");
        assert_eq!(fmt_elapsed(250_000), "250 ms");
        assert_eq!(fmt_elapsed(42_560_000), "42.5 s");
        assert_eq!(fmt_elapsed(309_272_000), "5m09s");
        assert_eq!(fmt_elapsed(3_900 * US_PER_S), "1h05m");
    }

    #[test]
    fn parses_units_and_compounds() {
        assert_eq!(parse_duration("250us").unwrap(), 250);
        assert_eq!(parse_duration("10ms").unwrap(), 10_000);
        assert_eq!(parse_duration("1.5s").unwrap(), 1_500_000);
        assert_eq!(parse_duration("2m").unwrap(), 120_000_000);
        assert_eq!(parse_duration("1h30m").unwrap(), 5_400_000_000);
    }

    #[test]
    fn rejects_bad_durations_with_reason() {
        assert!(parse_duration("10").unwrap_err().contains("no unit"));
        assert!(parse_duration("-5s").unwrap_err().contains("negative"));
        assert!(parse_duration("5 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(parse_duration("").unwrap_err().contains("empty"));
        assert!(parse_duration("9999999999999h")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn fmt_round_trips() {
        for us in [0, 1, 999, 1_000, 1_500_000, 60_000_000, 7_000_123] {
            assert_eq!(parse_duration(&fmt_duration(us)).unwrap(), us);
        }
        assert_eq!(fmt_time(65_250_000), "1m05.250s");
    }
}
