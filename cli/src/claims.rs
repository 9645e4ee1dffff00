//! `clusterscope claims`: does every built-in scenario tell the truth on other seeds? Each
//! scenario x variant is swept over the same seeds; an expectation whose observed fraction (its
//! 95% Wilson interval) misses what it claims — its `chance`, or 99%-100% without one — is a
//! contradiction. Prints one row per variant (text, or the Markdown table of
//! docs/SCENARIOS.md) and exits 1 on a contradiction or an errored run with `--check`.

use crate::sweep_out::run_jobs;
use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::{builtin, Scenario};
use clusterscope_core::sweep::{self, Partial, Plan, Summary};

/// One variant's result.
pub struct Row {
    pub scenario: String,
    pub variant: String,
    pub summary: Summary,
}

impl Row {
    pub fn contradicted(&self) -> usize {
        self.summary.contradictions().len()
    }
    pub fn errored(&self) -> u64 {
        self.summary.errored()
    }
}

/// Sweep `variant` of `s` over seeds `1..=seeds`.
pub fn check(
    s: &Scenario,
    variant: &str,
    seeds: u64,
    threads: usize,
    limits: &Limits,
) -> Result<Row, String> {
    let plan = Plan::new(s, variant, 1, seeds, &toml::Table::new(), Vec::new(), None)?;
    let names = sweep::expectation_names(s, variant)?;
    let ids: Vec<u64> = (0..plan.jobs()).collect();
    let outcomes = run_jobs(s, &plan, &ids, threads, limits);
    let mut part = Partial::new(plan, names, outcomes);
    part.chances = sweep::expectation_chances(s, variant)?;
    Ok(Row {
        scenario: s.raw.name.clone(),
        variant: variant.to_string(),
        summary: sweep::summarize(&part),
    })
}

/// The scenarios to check: the named built-ins, or all of them.
pub fn scenarios(names: &[String]) -> Result<Vec<Scenario>, String> {
    if names.is_empty() {
        return Ok(builtin::all());
    }
    names
        .iter()
        .map(|n| builtin::get(n).map_err(|e| e.to_string()))
        .collect()
}

fn pct(count: u64, runs: u64) -> String {
    if runs == 0 {
        "-".into()
    } else if count == runs || count == 0 {
        format!("{:.0}%", 100.0 * count as f64 / runs as f64)
    } else {
        // One decimal: 199 of 200 is 99.5%, never a rounded "100%".
        format!("{:.1}%", 100.0 * count as f64 / runs as f64)
    }
}

/// What a row says about its claims, in a few words.
fn verdict(r: &Row) -> String {
    let mut parts = Vec::new();
    for (_, e) in r.summary.contradictions() {
        parts.push(format!(
            "CONTRADICTED: \"{}\" held in {}/{}, claims {}",
            e.name,
            e.held.count,
            e.held.runs,
            e.chance.map_or("always".into(), |c| c.short())
        ));
    }
    for c in &r.summary.cells {
        for e in c
            .expectations
            .iter()
            .filter(|e| e.chance.is_some() && !e.contradicted)
        {
            parts.push(format!(
                "\"{}\" {}/{} (claims {})",
                e.name,
                e.held.count,
                e.held.runs,
                e.chance.map(|c| c.short()).unwrap_or_default()
            ));
        }
        if let Some(err) = c.errors.first() {
            parts.push(format!("{} errored, e.g. {err}", c.errors.len()));
        }
    }
    if parts.is_empty() {
        "as claimed".into()
    } else {
        parts.join("; ")
    }
}

/// Text: one line per variant.
pub fn text(rows: &[Row]) -> String {
    let mut o = String::new();
    for r in rows {
        let c = &r.summary.cells[0];
        o += &format!(
            "{:36} {:18} {:>5} of {:>4} seeds held   {}\n",
            r.scenario,
            r.variant,
            pct(c.all_passed.count, c.all_passed.runs),
            c.all_passed.runs,
            verdict(r)
        );
    }
    o
}

/// The Markdown table of docs/SCENARIOS.md.
pub fn markdown(rows: &[Row], seeds: u64) -> String {
    let mut o = format!(
        "| scenario | variant | seeds where every expectation held (of {seeds}) | chance expectations, contradictions, errors |\n|---|---|---|---|\n"
    );
    for r in rows {
        let c = &r.summary.cells[0];
        o += &format!(
            "| `{}` | `{}` | {} ({}) | {} |\n",
            r.scenario,
            r.variant,
            c.all_passed.count,
            pct(c.all_passed.count, c.all_passed.runs),
            verdict(r).replace('|', "\\|")
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::pct;

    #[test]
    fn a_fraction_short_of_all_is_never_rounded_to_all() {
        assert_eq!(pct(199, 200), "99.5%");
        assert_eq!(pct(200, 200), "100%");
        assert_eq!(pct(0, 200), "0%");
        assert_eq!(pct(1, 200), "0.5%");
        assert_eq!(pct(0, 0), "-");
    }
}
