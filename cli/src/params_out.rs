//! `clusterscope params NAME`: the model's parameter catalogue (`core::catalogue`) with the
//! values a run of this scenario and variant would use.

use clusterscope_core::catalogue::params_for;
use clusterscope_core::scenario::Scenario;

pub fn text(sc: &Scenario, variant: &str, overrides: &toml::Table) -> Result<String, String> {
    let rows = params_for(sc, variant, overrides)?;
    let mut out = format!(
        "{} parameters of {} (variant {variant}): the values a run uses, after the preset, \
         [params] and --set; change one with --set KEY=VALUE\n\n",
        sc.raw.protocol,
        sc.name()
    );
    let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in &rows {
        let value = if r.value.is_empty() {
            "(unset)"
        } else {
            &r.value
        };
        let unit = if r.unit.is_empty() {
            String::new()
        } else {
            format!("{}; ", r.unit)
        };
        out += &format!(
            "  {:w$}  {value}  [{}]  ({unit}{})\n  {:w$}  {}\n",
            r.name, r.source, r.range, "", r.about,
        );
    }
    Ok(out)
}

pub fn json(sc: &Scenario, variant: &str, overrides: &toml::Table) -> Result<String, String> {
    let rows = params_for(sc, variant, overrides)?;
    Ok(serde_json::to_string_pretty(&rows).expect("json") + "\n")
}
