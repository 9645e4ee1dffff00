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

impl Scenario {
    /// The file read into TOML's value tree, its model's section apart (as [`Scenario::parse_in`]
    /// reads it): what [`Scenario::from_tables_in`] takes. The web app reads its default
    /// scenario so natively, ahead of time, so that its first download carries no TOML parser
    /// (`web/src/compact.rs`).
    pub fn read_tables(text: &str) -> Result<(toml::Table, Option<toml::Table>), String> {
        let (rest, section) = split_section(text)?;
        let rest = toml::from_str::<toml::Table>(&rest)
            .map_err(|e| clean_toml_error(&e.to_string(), &rest))?;
        Ok((rest, section))
    }

    /// A scenario from its file read into TOML's value tree ([`Scenario::read_tables`]):
    /// typed and validated as [`Scenario::parse_in`] does, without the text parser.
    pub fn from_tables_in(
        models: &[ModelVocab],
        file: &str,
        rest: toml::Table,
        section: Option<toml::Table>,
        limits: &Limits,
    ) -> Result<Scenario, ScenarioError> {
        let raw =
            ScenarioFile::deserialize(toml::Value::Table(rest)).map_err(|e| ScenarioError {
                file: file.to_string(),
                msg: e.message().to_string(),
            })?;
        let mut sc = Self::from_raw_in(models, file, raw, limits)?;
        sc.section = section;
        Ok(sc)
    }
}
