//! The inspector of a model without panels of its own: the node's status and badge, its threads
//! (executors: queue, busy, stalled, delayed), and its entry of the model's `views_json`, shown
//! as nested tables. Every model gets this much without a line of web code.

use crate::kit::{age, PanelProps};
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

/// `a` and `b` compared with runs of digits as numbers ("k2" < "k10"; a longer run is the larger
/// number, so leading zeros count), otherwise byte by byte.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let run = |s: &[u8], i: usize| i + s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (ei, ej) = (run(a, i), run(b, j));
        let o = if ei > i && ej > j {
            let (x, y) = (&a[i..ei], &b[j..ej]);
            (i, j) = (ei, ej);
            x.len().cmp(&y.len()).then(x.cmp(y))
        } else {
            (i, j) = (i + 1, j + 1);
            a[i - 1].cmp(&b[j - 1])
        };
        if o.is_ne() {
            return o;
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
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
        // Said, not left blank (a Raft state machine before its first put showed "kv" alone).
        Value::Object(o) if o.is_empty() => html! { <span class="muted">{ "empty" }</span> },
        Value::Object(o) => {
            // Keys in natural order: k2 before k10.
            let mut keys: Vec<&String> = o.keys().collect();
            clusterscope_core::small_sort::sort_by(&mut keys, |a, b| natural_cmp(a, b));
            let more = keys.len().saturating_sub(MAX_ITEMS);
            html! {
                <table class="gv-table">
                    <>{ for keys.into_iter().take(MAX_ITEMS).map(|k| html! {
                        <tr><th>{ k }</th><td>{ render(&o[k], depth + 1) }</td></tr>
                    }) }</>
                    <>{ for (more > 0).then(|| html! { <tr><td colspan="2" class="muted">{ format!("… {more} more") }</td></tr> }) }</>
                </table>
            }
        }
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

/// A pool's name and a thread's index in it: `ChunkWriter-3` -> (`ChunkWriter`, `3`); `None` for
/// a name that does not end in `-<digits>`.
fn pool_index(name: &str) -> Option<(&str, &str)> {
    let (head, tail) = name.rsplit_once('-')?;
    (!tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit())).then_some((head, tail))
}

/// A pool's name without its index ([`pool_index`]).
fn family(name: &str) -> Option<&str> {
    pool_index(name).map(|(pool, _)| pool)
}

/// How the Threads table shows executors `0..quiet.len()`, in order: each alone, or a run of at
/// least [`FOLD_AT`] neighbours of one pool (`ChunkWriter-0` .. `ChunkWriter-9`) that are all
/// quiet (idle, nothing queued, not stalled or delayed) as one row. A thread with something to
/// show breaks the run and keeps its own row where it is.
fn thread_rows(names: &[&str], quiet: &[bool]) -> Vec<std::ops::Range<usize>> {
    let mut rows = Vec::new();
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        if let (true, Some(f)) = (quiet[i], family(names[i])) {
            while j < names.len() && quiet[j] && family(names[j]) == Some(f) {
                j += 1;
            }
        }
        if j - i >= FOLD_AT {
            rows.push(i..j);
        } else {
            rows.extend((i..j).map(|k| k..k + 1));
        }
        i = j;
    }
    rows
}

/// The fewest quiet threads of one pool folded into one row.
const FOLD_AT: usize = 3;

/// The node's threads: one row per executor the model declares (generic, every model); quiet
/// threads of one pool (Ozone's ten `ChunkWriter-i`) folded into one row ([`thread_rows`]).
pub fn threads(m: &crate::model::Model, id: NodeId) -> Html {
    let e = &*m.run.engine;
    let now = e.now();
    let names = e.executors();
    let stats = e.exec_stats(id);
    let quiet: Vec<bool> = stats
        .iter()
        .map(|st| !st.stalled && st.delay_us == 0 && !st.busy && st.pending == 0)
        .collect();
    let rows = thread_rows(names, &quiet).into_iter().map(|r| {
        if r.len() > 1 {
            // A folded run is of one pool (`thread_rows`): every name has its index.
            let (first, last) = (names[r.start], names[r.end - 1]);
            let (pool, a) = pool_index(first).unwrap_or((first, ""));
            let b = pool_index(last).map_or("", |(_, i)| i);
            let label = format!("{pool}-{a}…{b} ({})", r.len());
            let all = names[r.clone()].join(", ");
            let done: u64 = stats[r.clone()].iter().map(|st| st.done).sum();
            let expired: u64 = stats[r.clone()].iter().map(|st| st.expired).sum();
            return html! {
                <tr class="folded" data-exec={format!("{pool}-*")} data-folded={r.len().to_string()} title={format!("{all}: idle, nothing queued (counts summed)")}>
                    <td>{ label }</td>
                    <td>{ "idle" }</td>
                    <td class="num">{ 0 }</td>
                    <td class="num"></td>
                    <td class="num">{ done }</td>
                    <td class="num">{ expired }</td>
                </tr>
            };
        }
        let (name, st) = (names[r.start], &stats[r.start]);
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
                <td>{ name }</td>
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

#[cfg(test)]
mod tests {
    use super::{natural_cmp, thread_rows};

    #[test]
    fn quiet_threads_of_one_pool_fold_and_busy_ones_keep_their_row() {
        let names = [
            "RaftServer",
            "LogAppender",
            "ChunkWriter-0",
            "ChunkWriter-1",
            "ChunkWriter-2",
            "ChunkWriter-3",
            "ChunkWriter-4",
            "ChunkWriter-5",
            "ChunkWriter-6",
            "ChunkWriter-7",
        ];
        let all_quiet = [true; 10];
        assert_eq!(
            thread_rows(&names, &all_quiet),
            vec![0..1, 1..2, 2..10],
            "names without an index stay alone even when quiet"
        );
        // ChunkWriter-3 stalled: it keeps its row between two folds.
        let mut q = all_quiet;
        q[5] = false;
        assert_eq!(thread_rows(&names, &q), vec![0..1, 1..2, 2..5, 5..6, 6..10]);
        // A run shorter than three is not folded.
        q[4] = false;
        assert_eq!(
            thread_rows(&names, &q),
            vec![0..1, 1..2, 2..3, 3..4, 4..5, 5..6, 6..10]
        );
        // Another pool does not join the run.
        let mixed = ["a-0", "a-1", "a-2", "b-3", "b-4"];
        assert_eq!(thread_rows(&mixed, &[true; 5]), vec![0..3, 3..4, 4..5]);
    }

    #[test]
    fn natural_order_reads_digit_runs_as_numbers() {
        let mut keys = vec![
            "k10", "k2", "k1", "k0", "k15", "applied", "k", "n1x10", "n1x9",
        ];
        keys.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            keys,
            ["applied", "k", "k0", "k1", "k2", "k10", "k15", "n1x9", "n1x10"]
        );
        assert_eq!(natural_cmp("x", "x"), std::cmp::Ordering::Equal);
        assert_eq!(natural_cmp("", "a"), std::cmp::Ordering::Less);
        assert_eq!(
            natural_cmp("99999999999999999999999", "100000000000000000000000"),
            std::cmp::Ordering::Less
        );
    }
}
