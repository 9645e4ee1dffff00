//! The inspector of a model without panels of its own: the node's status and badge, its threads
//! (executors: queue, busy, stalled, delayed), and its entry of the model's `views_json`, shown
//! as nested tables. Every model gets this much without a line of web code.

use crate::ui::{age, PanelProps};
use clusterscope_core::engine::NodeId;
use serde_json::Value;
use yew::prelude::*;

/// Deepest nesting and most entries shown of a value (a log of thousands of entries is cut).
const MAX_DEPTH: usize = 4;
const MAX_ITEMS: usize = 40;

/// The node's entry in a model's views: `nodes.<name>`, an array element whose `name` is the
/// node, or `<name>` at the top.
pub fn node_entry<'a>(views: &'a Value, name: &str) -> Option<&'a Value> {
    if let Some(v) = views.get("nodes").and_then(|n| n.get(name)) {
        return Some(v);
    }
    if let Some(a) = views
        .as_array()
        .or_else(|| views.get("nodes").and_then(|n| n.as_array()))
    {
        return a
            .iter()
            .find(|x| x.get("name").and_then(|n| n.as_str()) == Some(name));
    }
    views.get(name)
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("—".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// A value as nested tables (scalars as text, `—` for null), cut at [`MAX_DEPTH`] and [`MAX_ITEMS`].
pub fn render(v: &Value, depth: usize) -> Html {
    if let Some(s) = scalar(v) {
        return html! { <span class="val">{ s }</span> };
    }
    if depth >= MAX_DEPTH {
        return html! { <span class="muted">{ "…" }</span> };
    }
    match v {
        Value::Array(a) => {
            if a.iter().all(|x| scalar(x).is_some()) {
                let items: Vec<String> = a.iter().take(MAX_ITEMS).filter_map(scalar).collect();
                let more = a.len().saturating_sub(MAX_ITEMS);
                return html! {
                    <span class="val">{ format!("[{}{}]", items.join(", "), if more > 0 { format!(", … {more} more") } else { String::new() }) }</span>
                };
            }
            html! {
                <ol class="gv-list">
                    <>{ for a.iter().take(MAX_ITEMS).map(|x| html! { <li>{ render(x, depth + 1) }</li> }) }</>
                    <>{ for (a.len() > MAX_ITEMS).then(|| html! { <li class="muted">{ format!("… {} more", a.len() - MAX_ITEMS) }</li> }) }</>
                </ol>
            }
        }
        Value::Object(o) => html! {
            <table class="gv-table">
                <>{ for o.iter().take(MAX_ITEMS).map(|(k, x)| html! {
                    <tr><th>{ k }</th><td>{ render(x, depth + 1) }</td></tr>
                }) }</>
            </table>
        },
        _ => html! {},
    }
}

/// The inspector card before a node is selected (every model's inspector starts with it).
pub fn no_selection() -> Html {
    html! {
        <section class="card insp-card" aria-label="Inspector">
            <div class="card-head"><h2>{ "Inspector" }</h2></div>
            <p class="muted">{ "Select a node in the topology or the matrix." }</p>
        </section>
    }
}

#[function_component(GenericInspector)]
pub fn generic_inspector(p: &PanelProps) -> Html {
    let m = p.m().borrow();
    let Some(id) = m.selected else {
        return no_selection();
    };
    let e = &*m.run.engine;
    let name = e.topo().name(id).to_string();
    let threads = threads(&m, id);
    let views = e.views_json();
    let entry = node_entry(&views, &name).cloned().unwrap_or(Value::Null);
    let badge = e.node_badge(id);
    html! {
        <section class="card insp-card" aria-label="Inspector" id="inspector" data-node={name.clone()}>
            <div class="card-head">
                <h2>{ format!("{name} · {}", e.status(id).as_str()) }</h2>
                <span class="muted small">{ badge }</span>
            </div>
            { threads }
            <h3>{ "State" }</h3>
            <div class="gv" id="node-views">{ render(&entry, 0) }</div>
        </section>
    }
}

/// The node's threads: one row per executor the model declares (generic, every model).
pub fn threads(m: &crate::model::Model, id: NodeId) -> Html {
    let e = &*m.run.engine;
    let now = e.now();
    let rows = e.executors().iter().zip(e.exec_stats(id)).map(|(name, st)| {
        let state = if st.stalled {
            "stalled".to_string()
        } else if st.delay_us > 0 {
            format!("delayed +{}", age(st.delay_us))
        } else if st.busy {
            "busy".into()
        } else {
            "idle".into()
        };
        html! {
            <tr class={classes!(st.stalled.then_some("bad"))} data-exec={name.to_string()}>
                <td>{ *name }</td>
                <td>{ state }</td>
                <td class="num">{ st.pending }</td>
                <td class="num">{ st.oldest_enqueued_at.map(|t| age(now.saturating_sub(t))).unwrap_or_default() }</td>
                <td class="num">{ st.done }</td>
                <td class="num">{ st.expired }</td>
            </tr>
        }
    });
    html! {
        <>
            <h3>{ "Threads" }</h3>
            // Scrolls sideways on its own on a phone rather than widening the card.
            <div class="tbl-scroll">
                <table class="tbl" id="threads">
                    <thead><tr><th>{ "executor" }</th><th>{ "state" }</th><th>{ "queued" }</th><th>{ "oldest" }</th><th>{ "done" }</th><th>{ "expired" }</th></tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
        </>
    }
}
