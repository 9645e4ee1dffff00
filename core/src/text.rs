//! Text from users: how much of it an error echoes, which characters a name may hold, and the one
//! rule for bytes that should be a scenario file (the CLI and the app both apply it).

/// At most `max` characters of `s` for an error message, with the total when cut:
/// `"aaaa…" (500000 characters)`. Control characters are shown escaped.
pub fn clip(s: &str, max: usize) -> String {
    let n = s.chars().count();
    let shown: String = s
        .chars()
        .take(max)
        .flat_map(|c| {
            if c.is_control() || is_bidi(c) {
                c.escape_unicode().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    if n > max {
        format!("{shown}… ({n} characters)")
    } else {
        shown
    }
}

/// Unicode bidirectional formatting characters: they reorder how the text around them is shown
/// (a name could display as another one).
pub fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A name (node, DC, rack, variant): 1 to `max` characters, no whitespace, commas, control or
/// bidirectional formatting characters. `what` names it in the error.
pub fn check_name(what: &str, name: &str, max: usize) -> Result<(), String> {
    let n = name.chars().count();
    let bad = name
        .chars()
        .find(|c| c.is_whitespace() || *c == ',' || c.is_control() || is_bidi(*c));
    if n == 0 || n > max || bad.is_some() {
        let why = match bad {
            _ if n == 0 => "it is empty".to_string(),
            _ if n > max => format!("it has {n} characters"),
            Some(c) => format!("it contains {}", c.escape_unicode()),
            None => unreachable!(),
        };
        return Err(format!(
            "{what} \"{}\" must be 1-{max} characters without spaces, commas, control or \
             bidirectional characters ({why})",
            clip(name, 40)
        ));
    }
    Ok(())
}

/// A scenario file of `size` bytes is at most `max` bytes (checked before reading when the size
/// is known, as the app does with a chosen file).
pub fn check_size(file: &str, size: u64, max: usize) -> Result<(), String> {
    if size > max as u64 {
        return Err(format!(
            "{file}: the file is more than {max} bytes; the limit is {max} bytes"
        ));
    }
    Ok(())
}

/// The bytes of a scenario file as text: at most `max` bytes, and UTF-8 (the error names the
/// line and column of the first invalid byte). `file` names the source.
pub fn scenario_text(file: &str, bytes: Vec<u8>, max: usize) -> Result<String, String> {
    check_size(file, bytes.len() as u64, max)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..at];
        let line = before.iter().filter(|b| **b == b'\n').count() + 1;
        let col = at
            - before
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |p| p + 1)
            + 1;
        format!(
            "{file}: not UTF-8 text: invalid byte 0x{:02x} at line {line}, column {col}; save \
             the file as UTF-8",
            e.as_bytes()[at]
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_caps_and_escapes() {
        assert_eq!(clip("abc", 5), "abc");
        assert_eq!(clip(&"é".repeat(10), 3), "ééé… (10 characters)");
        assert_eq!(clip("a\u{0}b", 5), "a\\u{0}b");
    }

    #[test]
    fn names_count_characters() {
        assert!(check_name("node name", &"é".repeat(64), 64).is_ok());
        assert!(check_name("node name", &"é".repeat(65), 64).is_err());
        assert!(check_name("node name", "a\u{202E}b", 64).is_err());
        assert!(check_name("node name", "a\u{0}", 64).is_err());
        assert!(check_name("node name", "", 64).is_err());
    }

    #[test]
    fn utf8_errors_name_the_place() {
        let e = scenario_text("f.toml", b"a = 1\nb = \"\xff\"".to_vec(), 100).unwrap_err();
        assert!(e.contains("line 2, column 6") && e.contains("0xff"), "{e}");
        assert!(scenario_text("f.toml", vec![b' '; 101], 100).is_err());
    }
}

/// `v`'s decimal digits (ASCII), written from the end of `buf`: no formatting machinery (a hot
/// log line's numbers, a request's value).
pub fn decimal_digits(v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let (mut v, mut at) = (v, buf.len());
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[at..]
}

/// Append `v` in decimal, as `write!(s, "{v}")` does, without the formatting machinery (a hot
/// log line's numbers: `Ctx::log_with`).
pub fn push_u64(s: &mut String, v: u64) {
    let mut buf = [0u8; 20];
    let digits = decimal_digits(v, &mut buf);
    // A char at a time into room made once: no UTF-8 validation and `memcpy` call for a few
    // bytes.
    s.reserve(digits.len());
    for &d in digits {
        s.push(d as char);
    }
}

#[cfg(test)]
mod push_tests {
    #[test]
    fn push_u64_writes_what_display_writes() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let values = [
            0,
            1,
            9,
            10,
            99,
            100,
            101,
            999_999,
            u32::MAX as u64,
            u64::MAX - 1,
            u64::MAX,
        ];
        for v in values.into_iter().chain((0..5000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x >> (x % 64)
        })) {
            let mut s = String::from("a ");
            super::push_u64(&mut s, v);
            assert_eq!(s, format!("a {v}"));
        }
    }
}
