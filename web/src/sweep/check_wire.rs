//! The check's answer ([`Checked`]) as the worker hands it to the page: a private
//! text written and read here, not JSON. The worker and the page run the same build of the wasm,
//! so nothing else reads it; serde_json's reader and writer of `Checked` were in the first
//! download only for this message (issue 44: the Expectations check runs at every load).
//!
//! Tokens, one after another: an integer is its decimal digits and `;`; a string its length in
//! bytes, `:`, and its bytes (so any text passes, nothing escaped); a bool `1` or `0`; an option
//! `-` (none) or `+` and its value; a list its length and its items; an `f64` its bits as an
//! integer.

use clusterscope_core::runner::ExpectResult;
use clusterscope_core::scenario::Chance;
use clusterscope_core::time::Micros;

/// What a check run found (`super::check`'s answer, through this module's text).
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub end_us: Micros,
    pub passed: bool,
    pub expectations: Vec<ExpectResult>,
    /// Scheduled faults that could not apply at their time (`Report::skipped`): each fails the
    /// run like an expectation.
    pub skipped: Vec<String>,
}

struct W(String);

impl W {
    fn int(&mut self, v: u64) {
        clusterscope_core::text::push_u64(&mut self.0, v);
        self.0.push(';');
    }
    fn str(&mut self, s: &str) {
        clusterscope_core::text::push_u64(&mut self.0, s.len() as u64);
        self.0.push(':');
        self.0.push_str(s);
    }
    fn bool(&mut self, b: bool) {
        self.0.push(if b { '1' } else { '0' });
    }
    fn opt<T>(&mut self, v: &Option<T>, f: impl FnOnce(&mut Self, &T)) {
        match v {
            None => self.0.push('-'),
            Some(x) => {
                self.0.push('+');
                f(self, x);
            }
        }
    }
}

/// `c` as the worker's answer.
pub fn write(c: &Checked) -> String {
    let mut w = W(String::new());
    w.int(c.end_us);
    w.bool(c.passed);
    w.int(c.expectations.len() as u64);
    for e in &c.expectations {
        w.str(&e.name);
        w.bool(e.passed);
        w.str(&e.detail);
        w.int(e.window_us[0]);
        w.int(e.window_us[1]);
        w.opt(&e.failed_at_us, |w, v| w.int(*v));
        w.opt(&e.chance, |w, c| {
            w.int(c.lo_pct.to_bits());
            w.int(c.hi_pct.to_bits());
        });
        w.opt(&e.caption, |w, v| w.int(u64::from(*v)));
        w.opt(&e.observed, |w, v| w.str(v));
        w.opt(&e.within_us, |w, v| w.int(*v));
        w.opt(&e.met_at_us, |w, v| w.int(*v));
    }
    w.int(c.skipped.len() as u64);
    for s in &c.skipped {
        w.str(s);
    }
    w.0
}

struct R<'a> {
    s: &'a str,
    at: usize,
}

/// What a malformed answer is (it never is, but for a worker of another build).
const BAD: &str = "the check's answer is malformed";

impl R<'_> {
    fn byte(&mut self) -> Result<u8, &'static str> {
        let b = *self.s.as_bytes().get(self.at).ok_or(BAD)?;
        self.at += 1;
        Ok(b)
    }
    /// Digits up to `end`.
    fn digits(&mut self, end: u8) -> Result<u64, &'static str> {
        let mut v: u64 = 0;
        let mut n = 0;
        loop {
            match self.byte()? {
                b if b == end && n > 0 => return Ok(v),
                d @ b'0'..=b'9' if n < 20 => {
                    v = v
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(u64::from(d - b'0')))
                        .ok_or(BAD)?;
                    n += 1;
                }
                _ => return Err(BAD),
            }
        }
    }
    fn int(&mut self) -> Result<u64, &'static str> {
        self.digits(b';')
    }
    fn len(&mut self) -> Result<usize, &'static str> {
        usize::try_from(self.int()?).map_err(|_| BAD)
    }
    fn str(&mut self) -> Result<String, &'static str> {
        let n = usize::try_from(self.digits(b':')?).map_err(|_| BAD)?;
        let end = self.at.checked_add(n).ok_or(BAD)?;
        let v = self.s.get(self.at..end).ok_or(BAD)?;
        self.at = end;
        Ok(v.to_string())
    }
    fn bool(&mut self) -> Result<bool, &'static str> {
        match self.byte()? {
            b'1' => Ok(true),
            b'0' => Ok(false),
            _ => Err(BAD),
        }
    }
    fn opt<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, &'static str>,
    ) -> Result<Option<T>, &'static str> {
        match self.byte()? {
            b'-' => Ok(None),
            b'+' => f(self).map(Some),
            _ => Err(BAD),
        }
    }
}

/// The worker's answer read back ([`write`]).
pub fn read(text: &str) -> Result<Checked, String> {
    let mut r = R { s: text, at: 0 };
    let c = (|| {
        let end_us = r.int()?;
        let passed = r.bool()?;
        let n = r.len()?;
        // Each result takes at least 16 bytes: no allocation larger than the text.
        let mut expectations = Vec::with_capacity(n.min(text.len() / 16));
        for _ in 0..n {
            expectations.push(ExpectResult {
                name: r.str()?,
                passed: r.bool()?,
                detail: r.str()?,
                window_us: [r.int()?, r.int()?],
                failed_at_us: r.opt(R::int)?,
                chance: r.opt(|r| {
                    Ok(Chance {
                        lo_pct: f64::from_bits(r.int()?),
                        hi_pct: f64::from_bits(r.int()?),
                    })
                })?,
                caption: r.opt(|r| u32::try_from(r.int()?).map_err(|_| BAD))?,
                observed: r.opt(R::str)?,
                within_us: r.opt(R::int)?,
                met_at_us: r.opt(R::int)?,
            });
        }
        let n = r.len()?;
        let mut skipped = Vec::with_capacity(n.min(text.len() / 2));
        for _ in 0..n {
            skipped.push(r.str()?);
        }
        Ok::<_, &'static str>(Checked {
            end_us,
            passed,
            expectations,
            skipped,
        })
    })();
    match c {
        Ok(c) if r.at == text.len() => Ok(c),
        _ => Err(BAD.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(i: u64) -> ExpectResult {
        let some = i % 2 == 1;
        ExpectResult {
            name: format!("n{i}: \u{e9}t\u{e9} ; 12: +-"),
            passed: some,
            detail: if some {
                String::new()
            } else {
                "3:x;\n\"q\" ⟶ 👍".into()
            },
            window_us: [i * 1_000_003, u64::MAX - i],
            failed_at_us: some.then_some(i),
            chance: some.then_some(Chance {
                lo_pct: 12.5 + i as f64,
                hi_pct: 100.0 / 3.0,
            }),
            caption: some.then_some(u32::MAX - i as u32),
            observed: (!some).then(|| format!("{i} -> {i}")),
            within_us: some.then_some(0),
            met_at_us: (!some).then_some(u64::MAX),
        }
    }

    /// Every field of every shape comes back as written; a cut, a changed or an extended answer
    /// is refused.
    #[test]
    fn answers_come_back_as_written() {
        for n in [0, 1, 5] {
            let c = Checked {
                end_us: 720_000_000 + n,
                passed: n == 0,
                expectations: (0..n).map(result).collect(),
                skipped: (0..n)
                    .map(|i| format!("fault {i}: kill \"A\"; 7:"))
                    .collect(),
            };
            let text = write(&c);
            assert_eq!(read(&text), Ok(c.clone()), "{text}");
            for cut in 0..text.len() {
                if text.is_char_boundary(cut) {
                    assert!(read(&text[..cut]).is_err(), "{}", &text[..cut]);
                }
            }
            assert!(read(&format!("{text}0")).is_err());
            assert!(read(&text.replacen(';', ":", 1)).is_err());
        }
        assert!(read("").is_err());
        assert!(read("99999999999999999999999;1").is_err());
    }

    /// A real check's answer reads back equal to the result (the packet-loss run: failures with
    /// times and observed values, chances).
    #[test]
    fn a_check_reads_back() {
        let text =
            super::super::check::check_session("cassandra-21636-packet-loss", "", "fixed", 1)
                .unwrap();
        let c = read(&text).unwrap();
        assert_eq!(write(&c), text);
        assert!(!c.expectations.is_empty());
    }
}
