//! Nesting too deep for the TOML reader. The `toml` crate stops at 80 levels (arrays, inline
//! tables and the tables of a dotted key together), a guard against overflowing the stack. For
//! a value its message names the line; for a key of too many dotted parts (`[a.a.a. ... .b]`)
//! it says only "recursion limit": [`explain`] finds that line, and every such error says the
//! limit.

/// The `toml` crate's nesting limit (`toml::de::parser::LIMIT`, private there; the tests pin it).
pub const LIMIT: usize = 80;

/// What to add to a TOML error `e` about `text`, when it is about nesting: the line of a key
/// with too many dotted parts if `e` names no place, and the limit.
pub fn explain(e: &str, text: &str) -> Option<String> {
    if !e.contains("recurs") {
        return None;
    }
    let fix = format!(
        "the values are nested too deeply: the limit is {LIMIT} levels (arrays, inline tables \
         and dotted keys together); flatten them"
    );
    if e.contains(" line ") {
        return Some(fix);
    }
    let deepest = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, dotted_parts(l)))
        .fold((0, 0), |best, x| if x.1 > best.1 { x } else { best });
    Some(match deepest {
        (line, parts) if parts >= LIMIT => format!(
            "line {line}: a key of {parts} dotted keys is nested too deeply: the limit is \
             {LIMIT} levels; flatten it"
        ),
        _ => fix,
    })
}

/// The most parts of one dotted key on `line` (`a.b."c d".e` has 4), outside quoted strings
/// and comments. A rough reading (a number such as 1.5 counts as two), enough to find a key
/// of thousands.
fn dotted_parts(line: &str) -> usize {
    let mut best = 0;
    // Parts of the dotted key being read; a '.' after a part waits for the next one.
    let (mut parts, mut dot, mut after_part, mut in_part) = (0usize, false, false, false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        let quote = c == '"' || c == '\'';
        if quote || c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            if !in_part {
                parts = if dot { parts + 1 } else { 1 };
                best = best.max(parts);
                (dot, after_part, in_part) = (false, true, true);
            }
            if quote {
                // Skip to the closing quote (a basic string's escapes included).
                while let Some(d) = chars.next() {
                    if d == '\\' && c == '"' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            continue;
        }
        in_part = false;
        match c {
            '.' if after_part => (dot, after_part) = (true, false),
            ' ' | '\t' => {}
            '#' => break,
            _ => (parts, dot, after_part) = (0, false, false),
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_parts_counts_one_key() {
        assert_eq!(dotted_parts("[a.b.c]"), 3);
        assert_eq!(dotted_parts("  a . \"b.c\" . 'd' = 1 # e.f.g.h"), 3);
        assert_eq!(dotted_parts("x = { a.b = 1, c = [1, 2] }"), 2);
        assert_eq!(dotted_parts("name = \"x.y.z\""), 1);
        assert_eq!(dotted_parts(""), 0);
    }

    /// [`LIMIT`] is the toml crate's: a key of `LIMIT` parts reads, one more does not, and
    /// [`explain`] names its line; values nested past the limit are refused with their line.
    #[test]
    fn the_limit_is_tomls() {
        let key = |n: usize| format!("x = 1\n\n[{}b]\n", "a.".repeat(n - 1));
        assert!(toml::from_str::<toml::Table>(&key(LIMIT)).is_ok());
        let text = key(LIMIT + 1);
        let e = toml::from_str::<toml::Table>(&text)
            .unwrap_err()
            .to_string();
        assert!(!e.contains("line"), "{e}");
        let why = explain(&e, &text).unwrap();
        assert!(
            why.contains("line 3: a key of 81 dotted keys") && why.contains("limit is 80"),
            "{why}"
        );
        let arrays = |n: usize| format!("x = {}{}\n", "[".repeat(n), "]".repeat(n));
        assert!(toml::from_str::<toml::Table>(&arrays(LIMIT - 1)).is_ok());
        let e = toml::from_str::<toml::Table>(&arrays(LIMIT + 1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1"), "{e}");
        assert!(explain(&e, "").unwrap().contains("the limit is 80 levels"));
        assert_eq!(explain("expected `=`", ""), None);
    }
}
