//! What a metric, a view and a parameter mean (issue 41, "Say what a metric means", "Vary needs
//! a catalogue"): every model describes its metrics and views in one sentence with a unit
//! ([`Info`]), and lists its parameters with their unit and valid range ([`ParamSpec`]); the
//! generic ones (the runner's metrics, `scenario::GENERIC_VIEWS`) are described here. The sweep
//! panel, `clusterscope params` and the docs read these; `registry`'s tests check that every
//! metric a built-in scenario names and every view has a description, and that every listed
//! range agrees with the model's validation (a value just outside it is refused).
//!
//! The table types are `crate::meaning`'s (below the models, which write their tables in them;
//! re-exported here); this module, above the registry, looks a model's tables up.

pub use crate::meaning::{info, param, to_json, Info, ParamSpec, Range, NO_MAX_US};
use crate::registry::{ModelEntry, Tables};
use crate::scenario::{merge_params, Scenario};

/// The runner's metrics, named for every model (`Run::metrics`).
pub const GENERIC_METRICS: &[Info] = &[
    info(
        "running_nodes",
        "nodes",
        "nodes whose process is running at the end (not stopping or stopped)",
    ),
    info(
        "violations",
        "count",
        "safety-invariant violations the model found, checked after every event",
    ),
];

/// The views every model answers (`scenario::GENERIC_VIEWS`).
pub const GENERIC_VIEWS: &[Info] = &[
    info(
        "status",
        "text",
        "the node's process: running, stopping or stopped",
    ),
    info(
        "log",
        "count",
        "log lines of the node (or all nodes) containing the given text so far",
    ),
    info(
        "violations",
        "count",
        "safety-invariant violations found so far",
    ),
    info(
        "exec_pending",
        "tasks",
        "tasks queued on the node's executor (thread), not yet started",
    ),
    info(
        "exec_expired",
        "tasks",
        "tasks the node's executor dropped because they waited past their deadline",
    ),
    info(
        "exec_done",
        "tasks",
        "tasks the node's executor has finished",
    ),
    info(
        "link",
        "text",
        "the network link from node to peer: up, lossy or down",
    ),
    info(
        "link_loss",
        "%",
        "the share of messages the link from node to peer drops",
    ),
    info(
        "sent",
        "messages",
        "messages sent in the window (with `at`: so far), of kind `key`, from `observer` to \
         `peer`, whose body contains `contains` (each optional)",
    ),
    info(
        "delivered",
        "messages",
        "messages delivered to their handler in the window (with `at`: so far), filtered as \
         `sent`; `observer` is still the sender",
    ),
    info(
        "dropped",
        "messages",
        "messages lost in the window (with `at`: so far; link down, loss, node stopped), \
         filtered as `sent`",
    ),
];

fn find(
    generic: &'static [Info],
    tables: &'static [&'static [Info]],
    name: &str,
) -> Option<&'static Info> {
    std::iter::once(generic)
        .chain(tables.iter().copied())
        .find_map(|t| t.iter().find(|i| i.name == name))
}

/// One of `model`'s tables; none while its part is not loaded (`ModelEntry::tables`).
fn table<T>(
    model: &ModelEntry,
    of: fn(Tables) -> &'static [&'static [T]],
) -> &'static [&'static [T]] {
    model.tables().map_or(&[], of)
}

/// Every parameter of `model`, in order.
pub fn param_specs(model: &ModelEntry) -> impl Iterator<Item = &'static ParamSpec> {
    table(model, |t| t.params).iter().flat_map(|t| t.iter())
}

/// The runner's metric of each `within` expectation, named `time_until: <its name>`.
pub const TIME_UNTIL: Info = info(
    "time_until: <expectation>",
    "s",
    "seconds from the expectation's `at` until its check first held (`within`); the whole window when it never did, the time so far when the run stopped inside it",
);

const TIME_UNTIL_PREFIX: &str = "time_until: ";

/// The name of the `time_until` metric of the `within` expectation `name`.
pub fn time_until_metric(name: &str) -> String {
    format!("{TIME_UNTIL_PREFIX}{name}")
}

/// What metric `name` of a run of `model` means.
pub fn metric(model: &ModelEntry, name: &str) -> Option<&'static Info> {
    if name.starts_with(TIME_UNTIL_PREFIX) {
        return Some(&TIME_UNTIL);
    }
    find(GENERIC_METRICS, table(model, |t| t.metrics), name)
}

/// What view `name` of `model` means.
pub fn view(model: &ModelEntry, name: &str) -> Option<&'static Info> {
    find(GENERIC_VIEWS, table(model, |t| t.view_info), name)
}

/// A metric or a view of `model`, whichever has the name (a sweep names both).
pub fn describe(model: &ModelEntry, name: &str) -> Option<&'static Info> {
    metric(model, name).or_else(|| view(model, name))
}

/// One row of the parameter catalogue: a [`ParamSpec`] and its value in this run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ParamRow {
    pub name: &'static str,
    pub unit: &'static str,
    pub range: String,
    pub about: &'static str,
    /// As TOML would write it (`"150ms"`, `8`, `true`); empty when unset.
    pub value: String,
    /// Where the value comes from: "--set", "variant", "scenario", "preset" or "default"
    /// (set by [`params_for`]; [`params_of`] leaves it empty).
    pub source: &'static str,
}

/// The catalogue of `model` for these merged `[params]` (the preset applied): every parameter
/// with its value. `Err`: the parameters are bad input (the model's message).
pub fn params_of(
    model: &ModelEntry,
    merged: toml::Table,
    sc: &Scenario,
) -> Result<Vec<ParamRow>, String> {
    let now = (model.params_now)(merged, sc)?;
    Ok(param_specs(model)
        .map(|p| ParamRow {
            name: p.name,
            unit: p.unit,
            range: p.range.describe(),
            about: p.about,
            value: match now.get(p.name) {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(serde_json::Value::String(s)) if matches!(p.range, Range::Dur { .. }) => {
                    s.clone()
                }
                Some(v) => v.to_string(),
            },
            source: "",
        })
        .collect())
}

/// The catalogue for a scenario's variant with `overrides` (`--set`) over its `[params]`.
pub fn params_for(
    sc: &Scenario,
    variant: &str,
    overrides: &toml::Table,
) -> Result<Vec<ParamRow>, String> {
    let (_, v) = sc.variant(variant)?;
    let model = crate::registry::find(&sc.raw.protocol)
        .ok_or_else(|| format!("protocol \"{}\" is not modelled", sc.raw.protocol))?;
    let merged = merge_params(&[&sc.raw.params, &v.params, overrides]);
    let mut rows = params_of(model, merged.clone(), sc).map_err(|e| format!("{}: {e}", sc.file))?;
    // What the values would be without the preset: those that differ came from it.
    let mut bare = merged;
    let unpreset = bare
        .remove("preset")
        .and_then(|_| params_of(model, bare, sc).ok());
    for (i, r) in rows.iter_mut().enumerate() {
        r.source = if overrides.contains_key(r.name) {
            "--set"
        } else if v.params.contains_key(r.name) {
            "variant"
        } else if sc.raw.params.contains_key(r.name) {
            "scenario"
        } else if unpreset.as_ref().is_some_and(|u| u[i].value != r.value) {
            "preset"
        } else {
            "default"
        };
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{BuildArgs, MODELS};
    use crate::runner::{Run, RunOptions};
    use crate::scenario::builtin;

    /// A `within` expectation's metric is described whatever the expectation's name.
    #[test]
    fn time_until_metrics_are_described() {
        let raft = crate::registry::find("raft").unwrap();
        let i = metric(raft, "time_until: a leader within 2 s").expect("described");
        assert_eq!(i.unit, "s");
        assert!(metric(raft, "time_untilx").is_none());
    }

    /// Every metric a fresh run of every built-in scenario and variant names, and every view of
    /// every model, has a description: a new metric or view without one fails here.
    #[test]
    fn every_metric_and_view_is_described() {
        let mut missing = Vec::new();
        for sc in builtin::all() {
            let model = crate::registry::find(&sc.raw.protocol).unwrap();
            for v in &sc.raw.variants {
                let run = Run::new(
                    sc.clone(),
                    &v.name,
                    None,
                    &toml::Table::new(),
                    &RunOptions::default(),
                )
                .unwrap_or_else(|e| panic!("{} {}: {e}", sc.name(), v.name));
                for name in run.metrics().keys() {
                    if metric(model, name).is_none() {
                        missing.push(format!("{}: metric `{name}` ({})", model.name, sc.name()));
                    }
                }
            }
        }
        for v in crate::scenario::GENERIC_VIEWS {
            if !GENERIC_VIEWS.iter().any(|i| i.name == *v) {
                missing.push(format!("generic view `{v}`"));
            }
        }
        for m in MODELS {
            for v in m.views {
                if view(m, v).is_none() {
                    missing.push(format!("{}: view `{v}`", m.name));
                }
            }
        }
        missing.sort();
        missing.dedup();
        assert!(missing.is_empty(), "no description: {missing:#?}");
        // And no description of a name the model does not have (a renamed view); the model's
        // own table is its last (Ozone borrows Raft's, which has views Ozone does not).
        for m in MODELS {
            for i in table(m, |t| t.view_info)
                .last()
                .copied()
                .unwrap_or_default()
            {
                assert!(
                    m.views.contains(&i.name),
                    "{}: `{}` is no view",
                    m.name,
                    i.name
                );
            }
        }
    }

    /// Every parameter the model's params struct has is listed, and nothing else.
    #[test]
    fn every_parameter_is_listed() {
        for m in MODELS {
            let sc = builtin::all()
                .into_iter()
                .find(|s| s.raw.protocol == m.name)
                .unwrap_or_else(|| panic!("no built-in scenario of {}", m.name));
            let rows = params_for(&sc, &sc.raw.variants[0].name, &toml::Table::new()).unwrap();
            let now = (m.params_now)(
                merge_params(&[&sc.raw.params, &sc.raw.variants[0].params]),
                &sc,
            )
            .unwrap();
            let listed: Vec<&str> = rows.iter().map(|r| r.name).collect();
            let mut listed_sorted = listed.clone();
            listed_sorted.sort();
            listed_sorted.dedup();
            assert_eq!(
                listed_sorted.len(),
                listed.len(),
                "{}: listed twice",
                m.name
            );
            let known: Vec<&str> = now.keys().map(String::as_str).collect();
            assert_eq!(
                listed_sorted, known,
                "{}: listed vs the params struct",
                m.name
            );
        }
    }

    /// The catalogue's ranges agree with the models' validation: a value just outside a listed
    /// range is refused when the model is built, and (where no other parameter constrains it)
    /// the bound itself is accepted.
    #[test]
    fn ranges_agree_with_validation() {
        let mut checked = 0;
        for m in MODELS {
            let sc = builtin::all()
                .into_iter()
                .find(|s| s.raw.protocol == m.name)
                .unwrap();
            let build = |k: &str, v: toml::Value| {
                let mut o = toml::Table::new();
                o.insert(k.into(), v);
                let params = merge_params(&[&sc.raw.params, &sc.raw.variants[0].params, &o]);
                m.build(BuildArgs {
                    scenario: &sc,
                    variant: 0,
                    params,
                    seed: 1,
                    limits: crate::limits::Limits::default(),
                    checkpointing: false,
                    body_budget: 1 << 20,
                })
                .map(|_| ())
            };
            let dur = |us: u64| toml::Value::String(format!("{us}us"));
            for p in param_specs(m) {
                let (outside, inside): (Vec<toml::Value>, Vec<toml::Value>) = match p.range {
                    Range::Bool | Range::Text(_) => continue,
                    Range::Words(w) => (
                        vec![toml::Value::String("no-such-word".into())],
                        w.iter()
                            .map(|w| toml::Value::String(w.to_string()))
                            .collect(),
                    ),
                    Range::Int { min, max } => (
                        vec![toml::Value::Integer(min - 1), toml::Value::Integer(max + 1)],
                        vec![toml::Value::Integer(min), toml::Value::Integer(max)],
                    ),
                    Range::Float { min, max, open_min } => {
                        let mut out = vec![if open_min {
                            toml::Value::Float(min)
                        } else {
                            toml::Value::Float(min - 1e-9)
                        }];
                        let mut inn = vec![];
                        if max.is_finite() {
                            out.push(toml::Value::Float(max + 1e-6));
                            inn.push(toml::Value::Float(max));
                        }
                        (out, inn)
                    }
                    Range::Dur { min, max, or_zero } => {
                        let mut out = vec![];
                        let mut inn = vec![dur(min)];
                        if min > 1 || (min == 1 && !or_zero) {
                            out.push(dur(min - 1));
                        }
                        if max != NO_MAX_US {
                            out.push(dur(max + 1));
                            inn.push(dur(max));
                        }
                        (out, inn)
                    }
                };
                for v in outside {
                    assert!(
                        build(p.name, v.clone()).is_err(),
                        "{}: {} = {v} is outside {} but accepted",
                        m.name,
                        p.name,
                        p.range.describe()
                    );
                    checked += 1;
                }
                // Bounds that another parameter or the cluster also constrains.
                if [
                    "timeout_max",
                    "rf",
                    "group_size",
                    "client_rate",
                    "generation_base",
                ]
                .contains(&p.name)
                {
                    continue;
                }
                for v in inside {
                    if let Err(e) = build(p.name, v.clone()) {
                        panic!(
                            "{}: {} = {v} is inside {} but refused: {e}",
                            m.name,
                            p.name,
                            p.range.describe()
                        );
                    }
                }
            }
        }
        assert!(checked > 30, "{checked}");
    }
}
