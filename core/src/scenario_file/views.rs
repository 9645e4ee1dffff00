//! What an expectation may ask of a view: the generic views' declarations, and the load-time
//! check of an expectation's `key` and check (`equals`, bounds, `increases`) against the view's
//! declared key form and value (`model::ViewNeeds`), so an expectation that could never hold is
//! refused when the file is loaded, not failed at the end of the run.

use super::ExpectSpec;
use crate::engine::Topology;
use crate::query::{KeyForm, ViewNeeds, ViewValue};

/// What a generic view needs and answers (see `model::ViewNeeds`).
pub fn generic_view_needs(view: &str) -> ViewNeeds {
    match view {
        // `NodeStatus::as_str`.
        "status" => ViewNeeds::NODE.text(&["running", "stopping", "stopped"]),
        // A thread's name; the model's threads are known only once it is built.
        "exec_pending" | "exec_expired" | "exec_done" => {
            ViewNeeds::NODE.optional_key(KeyForm::Any).num()
        }
        "log" => ViewNeeds {
            contains: true,
            ..ViewNeeds::NONE
        }
        .num(),
        "violations" => ViewNeeds::NONE.num(),
        // The link from `node` to `peer` (`Link::condition`; `link_loss` in percent).
        "link" => ViewNeeds::PAIR.text(&["up", "lossy", "down"]),
        "link_loss" => ViewNeeds::PAIR.num(),
        // Messages counted from the trace: `key` the kind (label), `observer` the sender,
        // `peer` the receiver, `contains` text of the body; each optional.
        "sent" | "delivered" | "dropped" => ViewNeeds::NONE.optional_key(KeyForm::Any).num(),
        _ => ViewNeeds::NONE,
    }
}

/// The expectation's `key` has the view's form, and its check can hold for the view's values.
pub fn check_against(e: &ExpectSpec, needs: &ViewNeeds, topo: &Topology) -> Result<(), String> {
    let view = e.view.as_str();
    if let Some(k) = &e.key {
        needs.key_form.check(view, k, topo)?;
    }
    let value = needs.value;
    let valid = || format!("view `{view}` answers {}", value.describe());
    if value.is_text() {
        let bound = [
            ("at_least", e.at_least.is_some()),
            ("at_most", e.at_most.is_some()),
            ("increases", e.increases.is_some()),
        ];
        if let Some((field, _)) = bound.iter().find(|b| b.1) {
            return Err(format!(
                "`{field}` compares numbers, but {}; use `equals = \"...\"`",
                valid()
            ));
        }
    }
    let mut listed: Vec<(&str, &toml::Value)> = Vec::new();
    listed.extend(e.equals.iter().map(|v| ("equals", v)));
    listed.extend(e.not_equals.iter().map(|v| ("not_equals", v)));
    listed.extend(e.one_of.iter().flatten().map(|v| ("one_of", v)));
    for (field, v) in listed {
        check_value(field, v, value, topo, &valid)?;
    }
    Ok(())
}

/// One value an expectation compares the view's value with (`equals`, `not_equals` or an
/// item of `one_of`): of the view's type and, for text, one of its values.
fn check_value(
    field: &str,
    v: &toml::Value,
    value: ViewValue,
    topo: &Topology,
    valid: &dyn Fn() -> String,
) -> Result<(), String> {
    match v {
        toml::Value::String(s) => {
            let shown = crate::text::clip(s, 40);
            match value {
                ViewValue::Num => Err(format!(
                    "`{field} = \"{shown}\"` is text, but {}; write the number without quotes",
                    valid()
                )),
                ViewValue::Text(words) | ViewValue::NumOr(words)
                    if !words.contains(&s.as_str()) =>
                {
                    Err(format!(
                        "`{field} = \"{shown}\"` can never {}: {}",
                        if field == "not_equals" {
                            "fail"
                        } else {
                            "hold"
                        },
                        valid()
                    ))
                }
                ViewValue::NodeName if !s.is_empty() => topo.resolve(s).map(|_| ()).map_err(|m| {
                    format!("`{field} = \"{shown}\"` can never hold: {}; {m}", valid())
                }),
                _ => Ok(()),
            }
        }
        n @ (toml::Value::Integer(_) | toml::Value::Float(_)) => {
            if value.is_text() {
                Err(format!(
                    "`{field} = {}` is a number, but {}; write it in quotes",
                    super::toml_text(n),
                    valid()
                ))
            } else {
                Ok(())
            }
        }
        other => Err(format!(
            "`{field}` is a {}; it compares a number (`{field} = 3`) or text (`{field} = \"...\"`)",
            other.type_str()
        )),
    }
}
