//! An expectation checked at load against the model's vocabulary ([`ModelVocab`]): its view,
//! what the view needs, its nodes, its times and bounds.

use super::*;

pub(super) fn check_expect(
    e: &ExpectSpec,
    topo: &Topology,
    model: &ModelVocab,
    dur: Micros,
) -> Result<(), String> {
    let views = model.views;
    let needs = if GENERIC_VIEWS.contains(&e.view.as_str()) {
        generic_view_needs(&e.view)
    } else if views.contains(&e.view.as_str()) {
        (model.view_needs)(&e.view)
    } else {
        return Err(format!(
            "unknown view `{}`; views: {}, {}",
            crate::text::clip(&e.view, 40),
            GENERIC_VIEWS.join(", "),
            views.join(", ")
        ));
    };
    let missing = [
        (
            needs.node && e.observer.is_none(),
            "`observer = \"<node>\"`",
        ),
        (needs.peer && e.peer.is_none(), "`peer = \"<node>\"`"),
        (needs.key && e.key.is_none(), "`key = \"...\"`"),
        (
            needs.contains && e.contains.is_none(),
            "`contains = \"...\"`",
        ),
    ];
    if let Some((_, what)) = missing.iter().find(|m| m.0) {
        return Err(format!(
            "view `{}` needs {what}; without it the expectation cannot be checked",
            e.view
        ));
    }
    let after_end = |t: &TimeRef, field: &str| {
        match t {
        TimeRef::At(x) if *x > dur => Err(format!(
            "`{field}` {} is after the end of the run ({}); use a time up to the duration or \"end\"",
            fmt_duration(*x),
            fmt_duration(dur)
        )),
        _ => Ok(()),
    }
    };
    if let Some(a) = &e.at {
        after_end(a, "at")?;
    }
    if let Some([a, b]) = &e.during {
        after_end(a, "during")?;
        after_end(b, "during")?;
        if a.resolve(dur) > b.resolve(dur) {
            return Err(format!(
                "`during` window [{}, {}] is reversed; write the start first",
                fmt_duration(a.resolve(dur)),
                fmt_duration(b.resolve(dur))
            ));
        }
    }
    for (field, v) in [("at_least", e.at_least), ("at_most", e.at_most)] {
        if v.is_some_and(|x| !x.is_finite()) {
            return Err(format!(
                "`{field}` is {}; a bound must be a finite number",
                v.unwrap_or_default()
            ));
        }
    }
    if let (Some(lo), Some(hi)) = (e.at_least, e.at_most) {
        if lo > hi {
            return Err(format!(
                "`at_least` {lo} is above `at_most` {hi}: no value can hold"
            ));
        }
    }
    let values = e
        .equals
        .iter()
        .map(|v| ("equals", v))
        .chain(e.not_equals.iter().map(|v| ("not_equals", v)))
        .chain(e.one_of.iter().flatten().map(|v| ("one_of", v)));
    for (field, v) in values {
        if let toml::Value::Float(f) = v {
            if !f.is_finite() {
                return Err(format!("`{field}` holds {f}; use a finite number"));
            }
        }
    }
    if let Some(list) = &e.one_of {
        if list.is_empty() {
            return Err("`one_of = []` can never hold; list the values it may take".into());
        }
        if list.len() > 64 {
            return Err(format!(
                "`one_of` lists {} values; the limit is 64",
                list.len()
            ));
        }
    }
    if e.at.is_some() && e.during.is_some() {
        return Err("use `at` or `during`, not both".into());
    }
    if let Some(w) = e.within {
        let Some(at) = e.at else {
            return Err(
                "`within` counts from `at`: give `at = \"5s\"` (the moment) with \
                 `within = \"2s\"`, not `during`"
                    .into(),
            );
        };
        if w.0 == 0 {
            return Err("`within = \"0s\"`: give a positive time, or drop `within`".into());
        }
        let from = at.resolve(dur);
        if from.saturating_add(w.0) > dur {
            return Err(format!(
                "`within` ends at {} (`at` {} + {}), after the end of the run ({}); shorten it \
                 or lengthen `duration`",
                fmt_duration(from.saturating_add(w.0)),
                fmt_duration(from),
                fmt_duration(w.0),
                fmt_duration(dur)
            ));
        }
        if e.increases.is_some() {
            return Err("`increases` compares two ends; it takes `during`, not `within`".into());
        }
    }
    let cmps = [
        e.equals.is_some(),
        e.one_of.is_some(),
        e.not_equals.is_some(),
        e.at_least.is_some() || e.at_most.is_some(),
        e.increases.is_some(),
    ];
    if cmps.iter().filter(|x| **x).count() != 1 {
        return Err(
            "give exactly one check: `equals`, `one_of`, `not_equals`, `at_least`/`at_most` \
             (both: a range), or `increases = true`"
                .into(),
        );
    }
    if e.increases.is_some() && e.during.is_none() {
        return Err("`increases` needs a `during = [from, to]` window".into());
    }
    check_node_refs(e, &needs, topo, model)?;
    views::check_against(e, &needs, topo)?;
    if e.view == "log" && e.contains.is_none() {
        return Err("a `log` expectation needs `contains = \"...\"`".into());
    }
    match (&e.chance, &e.source) {
        (Some(_), None) => {
            return Err(
                "`chance` needs `source = \"...\"`: where the figure comes from (the ticket's \
                 words, arithmetic, a sweep of N seeds)"
                    .into(),
            )
        }
        (None, Some(_)) => {
            return Err(
                "`source` says where a `chance` comes from; give `chance = \"40%..70%\"` too, \
                 or remove `source`"
                    .into(),
            )
        }
        (Some(c), Some(src)) => {
            if src.trim().is_empty() {
                return Err("`source` is empty; say where the chance comes from".into());
            }
            if c.lo_pct >= Chance::ALWAYS.lo_pct {
                return Err(format!(
                    "`chance = \"{}\"`: an expectation that holds on (nearly) every seed needs \
                     no `chance`; remove it (and `source`)",
                    c.text()
                ));
            }
        }
        (None, None) => {}
    }
    Ok(())
}

/// `observer` and `peer`: nodes, sets (with `nodes`) or `"leader"` (a model with a leader).
fn check_node_refs(
    e: &ExpectSpec,
    needs: &crate::query::ViewNeeds,
    topo: &Topology,
    model: &ModelVocab,
) -> Result<(), String> {
    use noderef::{NodeRef, Quant};
    let mut sets = Vec::new();
    let _ = needs;
    for (field, name) in [("observer", &e.observer), ("peer", &e.peer)] {
        let Some(text) = name else { continue };
        let r = NodeRef::parse(text, topo).map_err(|m| format!("{field}: {m}"))?;
        if r == NodeRef::Leader && !model.has_leader {
            return Err(format!(
                "{field} = \"leader\": the {} model has no leader; name a node",
                model.name
            ));
        }
        if r != NodeRef::Leader && !r.is_set() {
            continue;
        }
        if e.increases.is_some() {
            return Err(format!(
                "{field} = \"{}\": `increases` compares one node's value at two times; name \
                 one node",
                crate::text::clip(text, 40)
            ));
        }
        if r.is_set() {
            sets.push(field);
        }
    }
    match (sets.len(), &e.nodes) {
        (0, Some(q)) => Err(format!(
            "`nodes = \"{}\"` is for a set of nodes (`observer = \"n4..n7\"`); with one node \
             remove it",
            crate::text::clip(q, 20)
        )),
        (1, None) => Err(format!(
            "{} names a set of nodes; say how many must hold: `nodes = \"any\"`, \"all\" or \
             \"none\"",
            sets[0]
        )),
        (2, _) => Err(
            "observer and peer are both sets; only one may be (name one node in the other)".into(),
        ),
        (_, Some(q)) => Quant::parse(q).map(|_| ()),
        _ => Ok(()),
    }
}
