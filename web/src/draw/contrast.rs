//! WCAG 2 contrast of text colours against the panel they are written on (issue 40: message
//! labels were pastel on the panel, PRE_VOTE_REPLY at 1.74:1 and HEARTBEAT at 1.83:1, where
//! WCAG asks 4.5:1 for text). The one place the app computes contrast: a model names its
//! message colours once for both themes (`Model::msg_kinds`), and the topology writes a label
//! in [`readable`]: the model's colour, darkened (light theme) or lightened (dark theme) just
//! enough to reach [`TEXT_MIN`]. Pure: unit tests below, and `tests/e2e/specs/lecture.mjs`
//! computes the same ratio from the colours the canvas reports.

/// The contrast WCAG 2 asks of normal-size text (level AA).
pub const TEXT_MIN: f64 = 4.5;

/// An sRGB colour, 0-255 per channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rgb` or `#rrggbb` (case-insensitive); `None` for anything else.
    pub fn parse(s: &str) -> Option<Rgb> {
        let h = s.strip_prefix('#')?;
        let d = |i: usize, n: usize| u8::from_str_radix(h.get(i..i + n)?, 16).ok();
        match h.len() {
            3 => Some(Rgb(d(0, 1)? * 17, d(1, 1)? * 17, d(2, 1)? * 17)),
            6 => Some(Rgb(d(0, 2)?, d(2, 2)?, d(4, 2)?)),
            _ => None,
        }
    }

    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// WCAG 2 relative luminance, 0 (black) to 1 (white).
    pub fn luminance(self) -> f64 {
        let lin = |c: u8| {
            let c = c as f64 / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(self.0) + 0.7152 * lin(self.1) + 0.0722 * lin(self.2)
    }

    /// This colour moved `t` (0..1) of the way to `to`.
    fn mix(self, to: Rgb, t: f64) -> Rgb {
        let m = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
        Rgb(m(self.0, to.0), m(self.1, to.1), m(self.2, to.2))
    }
}

/// The WCAG 2 contrast ratio of two colours, 1 to 21 (order does not matter).
pub fn ratio(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (a.luminance(), b.luminance());
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The contrast of two CSS hex colours; `None` when either is not one.
pub fn ratio_of(a: &str, b: &str) -> Option<f64> {
    Some(ratio(Rgb::parse(a)?, Rgb::parse(b)?))
}

/// `fg` as text on `bg` with at least `min` contrast: `fg` itself when it has it, else `fg`
/// moved toward black (on a light `bg`) or white (on a dark one) by the smallest step of 1/20
/// that reaches `min`, so the colour keeps its hue as far as it can. A colour that is not hex
/// is returned as it is.
pub fn readable(fg: &str, bg: &str, min: f64) -> String {
    let (Some(f), Some(b)) = (Rgb::parse(fg), Rgb::parse(bg)) else {
        return fg.to_string();
    };
    if ratio(f, b) >= min {
        return fg.to_string();
    }
    // Toward the end of the scale farther from the background.
    let white = Rgb(255, 255, 255);
    let black = Rgb(0, 0, 0);
    let to = if ratio(white, b) > ratio(black, b) {
        white
    } else {
        black
    };
    (1..=20)
        .map(|i| f.mix(to, i as f64 / 20.0))
        .find(|c| ratio(*c, b) >= min)
        .unwrap_or(to)
        .hex()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::{DARK, LIGHT};

    #[test]
    fn the_known_ratios() {
        let (w, k) = (Rgb(255, 255, 255), Rgb(0, 0, 0));
        assert!((ratio(w, k) - 21.0).abs() < 1e-9);
        assert!((ratio(w, w) - 1.0).abs() < 1e-9);
        // #767676 is the lightest grey with 4.5:1 on white (4.54).
        let g = ratio(Rgb::parse("#767676").unwrap(), w);
        assert!((4.5..4.6).contains(&g), "{g}");
        assert_eq!(Rgb::parse("#abc"), Some(Rgb(0xaa, 0xbb, 0xcc)));
        assert_eq!(Rgb::parse("#AbCdEf"), Some(Rgb(0xab, 0xcd, 0xef)));
        assert_eq!(Rgb::parse("red"), None);
        assert_eq!(Rgb::parse("#12345"), None);
    }

    #[test]
    fn the_issue_s_pastel_labels_were_below_wcag_and_readable_fixes_them() {
        // PRE_VOTE_REPLY's and HEARTBEAT's colours on the light panel (issue 40 measured 1.74 and
        // 1.83).
        for c in ["#74c0fc", "#fab005"] {
            let before = ratio_of(c, LIGHT.panel).unwrap();
            assert!(before < 2.5, "{c}: {before}");
            let after = readable(c, LIGHT.panel, TEXT_MIN);
            let r = ratio_of(&after, LIGHT.panel).unwrap();
            assert!(r >= TEXT_MIN, "{c} -> {after}: {r}");
            // Still the same family of colour: only darkened, not replaced by black.
            assert_ne!(after, "#000000");
        }
        // A colour that has the contrast is kept as it is.
        assert_eq!(readable("#1d232b", LIGHT.panel, TEXT_MIN), "#1d232b");
        assert_eq!(readable("red", LIGHT.panel, TEXT_MIN), "red");
    }

    #[test]
    fn every_model_s_message_colour_reads_on_both_panels() {
        use clusterscope_core::runner::{Run, RunOptions};
        use clusterscope_core::scenario::builtin;
        // One scenario of each model: its message kinds.
        let mut seen = Vec::new();
        for sc in builtin::all() {
            if seen.contains(&sc.raw.protocol) {
                continue;
            }
            seen.push(sc.raw.protocol.clone());
            let v = Run::default_variant(&sc);
            let run = Run::new(sc, &v, None, &Default::default(), &RunOptions::default())
                .expect("a built-in scenario loads");
            // The model's glance fills carry white text (`Model::glance`).
            for (fill, about) in run.engine.glance_legend().fills {
                let r = ratio_of("#ffffff", fill).expect("a hex fill");
                assert!(r >= TEXT_MIN, "{about}: white on {fill}: {r}");
            }
            for k in run.engine.msg_kinds() {
                for p in [LIGHT, DARK] {
                    let c = readable(k.color, p.panel, TEXT_MIN);
                    let r = ratio_of(&c, p.panel).unwrap();
                    assert!(r >= TEXT_MIN, "{} {} on {}: {r}", k.label, c, p.panel);
                }
            }
        }
    }

    #[test]
    fn the_palette_s_text_colours_read_on_the_panel() {
        for p in [LIGHT, DARK] {
            for (name, c) in [("fg", p.fg), ("muted", p.muted), ("down", p.down)] {
                let c = readable(c, p.panel, TEXT_MIN);
                assert!(ratio_of(&c, p.panel).unwrap() >= TEXT_MIN, "{name}");
            }
        }
    }
}
