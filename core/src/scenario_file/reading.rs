//! Reading a scenario's TOML: the model's own section split off, and toml's errors made short
//! and placed.

use super::*;

/// Take the model's own section (the top-level table named like `protocol`) out of the text,
/// keeping every other line where it was so that errors in the rest still name their line. The
/// split is checked: the rest must parse to exactly the file without that table.
pub(super) fn split_section(
    text: &str,
) -> Result<(std::borrow::Cow<'_, str>, Option<toml::Table>), String> {
    use std::borrow::Cow;
    let Ok(mut full) = toml::from_str::<toml::Table>(text) else {
        // The typed parse reports the syntax error with its line.
        return Ok((Cow::Borrowed(text), None));
    };
    let Some(toml::Value::String(name)) = full.get("protocol").cloned() else {
        return Ok((Cow::Borrowed(text), None));
    };
    let Some(section) = full.remove(&name) else {
        return Ok((Cow::Borrowed(text), None));
    };
    let toml::Value::Table(section) = section else {
        return Err(format!(
            "`{name}` must be a table ([{name}]), the model's own section"
        ));
    };
    let head = |line: &str| -> Option<String> {
        let l = line.trim_start();
        let inner = l.strip_prefix("[[").or_else(|| l.strip_prefix('['))?;
        let first = inner.split([']', '.']).next()?.trim();
        Some(first.trim_matches(|c| c == '"' || c == '\'').to_string())
    };
    let mut inside = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if let Some(h) = head(line) {
            inside = h == name;
        }
        let root_key = !inside && {
            let l = line.trim_start();
            l.strip_prefix(name.as_str())
                .is_some_and(|r| r.trim_start().starts_with(['.', '=']))
        };
        if inside || root_key {
            out.push_str(if line.ends_with('\n') { "\n" } else { "" });
        } else {
            out.push_str(line);
        }
    }
    match toml::from_str::<toml::Table>(&out) {
        Ok(rest) if rest == full => Ok((Cow::Owned(out), Some(section))),
        _ => Err(format!(
            "could not separate the [{name}] section from the rest; write it as one [{name}] \
             table (with [[{name}.x]] sub-tables) after the other top-level keys"
        )),
    }
}

/// toml's messages start with "TOML parse error at line L, column C"; keep them, they name the place.
/// The quoted source line is cut (a 1 MB line would otherwise be echoed whole).
/// Nesting too deep: the place and the limit (`nesting::explain`).
pub(super) fn clean_toml_error(e: &str, text: &str) -> String {
    let mut out: Vec<String> = e
        .trim_end()
        .lines()
        .map(|l| crate::text::clip(l, 160))
        .collect();
    out.extend(nesting::explain(e, text));
    out.join("\n")
}
