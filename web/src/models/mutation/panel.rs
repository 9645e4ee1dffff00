//! The mutation-tracking inspector: reads (counter components with their history, outcome,
//! `requested`, summaries received, augment trace), then the selected node's logs (witnessed
//! offsets per participant, reconciled / unreconciled), IncomingMutations listeners (orphans
//! flagged), journal, deliveries (new / duplicate, listeners fired) and threads.
//!
//! Test hooks: `#mt-reads .mt-read[data-read]` with data-node, data-role, data-outcome,
//! data-mutations, data-summaries, data-sync-acks, data-missing; `#mt-listeners
//! tr[data-id]` with data-orphaned; `#mt-deliveries tr` with data-id, data-new, data-fired;
//! `#mt-node` with data-duplicates, data-listeners-expired.

use super::{
    deliveries, journal, listeners, logs, nodes, outcome_class, reads, sparkline, text, ReadView,
};
use crate::kit::{t, PanelProps};
use crate::models::generic::no_selection;
use crate::models::generic::threads;
use serde_json::Value;
use yew::prelude::*;

const COMPONENTS: [(&str, &str, &str); 3] = [
    ("mutations", "remaining mutations", "c-m"),
    ("summaries", "remaining summaries", "c-s"),
    ("sync acks", "remaining sync acks", "c-a"),
];

fn opt_i(v: Option<i64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "—".into())
}

fn read_html(r: &ReadView, selected: &str) -> Html {
    let vals = [r.mutations, r.summaries, r.sync_acks];
    // Each component's bar: its value against the largest it has been.
    let peak = |k: usize| -> i64 {
        r.history
            .iter()
            .map(|h| [h.1, h.2, h.3][k].abs())
            .chain(vals[k].map(i64::abs))
            .max()
            .unwrap_or(1)
            .max(1)
    };
    let finished = r.outcome != "pending";
    let counters = COMPONENTS.iter().enumerate().map(|(k, (short, long, class))| {
        let v = vals[k];
        let neg = v.is_some_and(|x| x < 0);
        let stuck = finished && r.outcome != "completed" && v.is_some_and(|x| x != 0);
        let w = v.map(|x| x.abs() as f64 / peak(k) as f64 * 100.0).unwrap_or(0.0);
        html! {
            <div class={classes!("mt-counter", *class, neg.then_some("neg"), stuck.then_some("stuck"))} title={format!("{long}: {}", opt_i(v))}>
                <span class="mt-cl">{ *short }</span>
                <b class="mt-cv">{ opt_i(v) }</b>
                <span class="mt-cbar"><i style={format!("width:{w:.0}%")}></i></span>
            </div>
        }
    });
    let (lines, zero) = sparkline(&r.history, 160.0, 36.0);
    let spark = html! {
        <svg class="mt-spark" viewBox="0 0 160 36" preserveAspectRatio="none" role="img"
            aria-label={format!("counter history, {} changes", r.history.len())}>
            // What the lines are (they take the colours of the counters' bars beside them).
            <title>{ format!("counter history since the read began, {} changes: mutations, summaries and sync acks (the bars' colours); dashed: 0", r.history.len()) }</title>
            <line class="zero" x1="0" x2="160" y1={format!("{zero:.1}")} y2={format!("{zero:.1}")} />
            <>{ for lines.iter().enumerate().rev().map(|(k, pts)| html!{
                <polyline class={COMPONENTS[k].2} points={pts.clone()} />
            }) }</>
        </svg>
    };
    let requested = if r.requested.is_empty() {
        html! { <span class="muted small">{ "none" }</span> }
    } else {
        html! { <>{ for r.requested.iter().map(|i| html!{ <span class="chip mono">{ i }</span> }) }</> }
    };
    let summaries = r.summaries_received.iter().map(|s| {
        html! {
            <tr>
                <td>{ &s.from }<>{ for s.local.then(|| html!{ <span class="muted">{ " (local)" }</span> }) }</></td>
                <td class="mono"><>{ for s.logs.is_empty().then(|| html!{ <span class="muted">{ "—" }</span> }) }</><>{ for s.logs.iter().map(|(log, rec, unrec)| html!{
                    <span class="mt-log" title={format!("log {log}: reconciled {rec}, unreconciled {unrec}")}>
                        <b>{ log }</b>{ " " }<span class="rec">{ rec }</span>{ " / " }<span class="unrec">{ unrec }</span>
                    </span>
                }) }</></td>
            </tr>
        }
    });
    let missing = r.missing_mutation();
    let augment = r.augment.iter().map(|(id, hit)| {
        if *hit {
            html! { <span class="chip mono aug-hit" title="read from the journal">{ format!("{id} hit") }</span> }
        } else {
            html! { <span class="chip mono aug-miss" title="not in the journal">{ format!("Missing mutation {id}") }</span> }
        }
    });
    let times = format!(
        "created {}{}{}",
        r.created_at.map(t).unwrap_or_else(|| "—".into()),
        r.finished_at
            .map(|f| format!(" · finished {}", t(f)))
            .unwrap_or_default(),
        if r.finished_at.is_none() {
            r.expires_at
                .map(|e| format!(" · expires {}", t(e)))
                .unwrap_or_default()
        } else {
            String::new()
        }
    );
    html! {
        <div class={classes!("mt-read", (r.node == selected).then_some("sel"))} data-read={r.id.clone()} data-node={r.node.clone()}
            data-role={r.role.clone()} data-outcome={r.outcome.clone()} data-mutations={opt_i(r.mutations)}
            data-summaries={opt_i(r.summaries)} data-sync-acks={opt_i(r.sync_acks)} data-missing={missing.clone()}>
            <div class="mt-read-head">
                <b class="mono">{ &r.id }</b>
                <span class={classes!("pill", "outcome", outcome_class(&r.outcome))}>{ &r.outcome }</span>
                <span class="muted small">{ format!("{} node · on {} · data {} · summaries from {}", r.role, r.node, r.data_node,
                    if r.summary_nodes.is_empty() { "—".to_string() } else { r.summary_nodes.join(", ") }) }</span>
                <span class="muted small">{ format!("rows {} · {times}", r.rows) }</span>
            </div>
            <>{ for missing.as_ref().map(|id| html!{ <p class="mt-missing">{ format!("Missing mutation {id}") }</p> }) }</>
            <div class="mt-counters">
                <>{ for counters }</>
                { spark }
            </div>
            <div class="mt-detail">
                <div><span class="glabel">{ "requested" }</span><span class="chips">{ requested }</span></div>
                // Always a line (issue 41): a read without lookups says "none", so that two reads
                // compared side by side keep their rows at one height.
                <div><span class="glabel">{ "augment" }</span>
                    if r.augment.is_empty() {
                        <span class="muted small" title="no journal lookups (yet) for this read">{ "none" }</span>
                    } else {
                        <span class="chips">{ for augment }</span>
                    }
                </div>
                { if r.summaries_received.is_empty() {
                    html!{ <div><span class="glabel">{ "summaries" }</span><span class="muted small">{ "none received" }</span></div> }
                } else {
                    html!{
                        <div class="table-wrap mt-sum"><table class="tbl">
                            <thead><tr><th>{ "summary from" }</th><th>{ "per log: reconciled / unreconciled" }</th></tr></thead>
                            <tbody>{ for summaries }</tbody>
                        </table></div>
                    }
                } }
            </div>
        </div>
    }
}

#[function_component(MutationInspector)]
pub fn mutation_inspector(p: &PanelProps) -> Html {
    let m = p.m().borrow();
    let Some(id) = m.selected else {
        return no_selection();
    };
    let e = &*m.run.engine;
    let name = e.topo().name(id).to_string();
    let views = e.views_json();
    let node = nodes(&views)
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or(Value::Null);
    let (rds, more_reads) = reads(&views, &name);
    let logs = logs(&node);
    let participants: Vec<String> = {
        let mut ps: Vec<String> = Vec::new();
        for l in &logs {
            for (p, _) in &l.witnessed {
                if !ps.contains(p) {
                    ps.push(p.clone());
                }
            }
        }
        ps
    };
    let log_rows = logs.iter().map(|l| {
        html! {
            <tr data-log={l.log.clone()}>
                <td class="mono">{ &l.log }</td>
                <>{ for participants.iter().map(|p| {
                    let v = l.witnessed.iter().find(|w| &w.0 == p).map(|w| w.1.clone()).unwrap_or_else(|| "—".into());
                    html!{ <td class={classes!("mono", (*p == name).then_some("self"))}>{ v }</td> }
                }) }</>
                <td class="mono rec">{ &l.reconciled }</td>
                <td class={classes!("mono", (l.unreconciled != "{}" && l.unreconciled != "—").then_some("unrec"))}>{ &l.unreconciled }</td>
                <td class="mono">{ &l.pending }</td>
            </tr>
        }
    });
    let ls = listeners(&node);
    let orphans = ls.iter().filter(|l| l.orphaned).count();
    let listener_rows = ls.iter().map(|l| {
        html! {
            <tr data-id={l.id.clone()} data-orphaned={l.orphaned.to_string()} class={classes!(l.orphaned.then_some("stuck"))}>
                <td class="mono">{ &l.id }</td>
                <td class="mono">{ if l.callbacks.is_empty() { "—".to_string() } else { l.callbacks.join(", ") } }</td>
                <td class="num">{ l.created_at.map(t).unwrap_or_else(|| "—".into()) }</td>
                <td>{ if l.orphaned {
                    html!{ <b class="bad" title="the mutation is already witnessed and nothing is pending: nobody will call this listener">{ "orphaned" }</b> }
                } else { html!{ <span class="muted">{ "waiting" }</span> } } }</td>
            </tr>
        }
    });
    let (dels, more_dels) = deliveries(&node);
    let delivery_rows = dels.iter().map(|d| {
        html! {
            <tr data-id={d.id.clone()} data-new={d.new.to_string()} data-fired={d.fired.to_string()}
                class={classes!((!d.new && d.fired == 0).then_some("stuck"))}>
                <td class="num">{ d.at.map(t).unwrap_or_else(|| "—".into()) }</td>
                <td class="mono">{ &d.id }</td>
                <td>{ &d.via }</td>
                <td>{ if d.new { html!{ <span class="ok">{ "new" }</span> } } else { html!{ <b class="dup">{ "duplicate" }</b> } } }</td>
                <td class={classes!("num", (d.fired == 0).then_some("muted"))}>{ if d.fired == 0 { "none".to_string() } else { format!("{} fired", d.fired) } }</td>
            </tr>
        }
    });
    let jr = journal(&node);
    let held: Vec<String> = node
        .get("held")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|h| format!("{} from {}", text(h, "kind"), text(h, "from")))
                .collect()
        })
        .unwrap_or_default();
    let holding: Vec<String> = node
        .get("holding")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let parked = node.get("parked").and_then(Value::as_u64).unwrap_or(0);
    html! {
        <section class="card insp-card mt" aria-label="Inspector" id="inspector" data-node={name.clone()}>
            <div class="card-head">
                <h2>{ format!("Inspector · {name}") }</h2>
                <span class="muted small">{ format!("{} · {}", if node.get("replica").and_then(Value::as_bool).unwrap_or(false) { "replica" } else { "not a replica" }, e.node_badge(id)) }</span>
            </div>
            <div class="subhead">
                <h4>{ "Reads" }</h4>
                <span class="muted small">{ "the packed counter: remaining mutations · summaries · sync acks; a read completes when all three reach 0" }</span>
            </div>
            <div id="mt-reads" class="mt-reads" data-count={rds.len().to_string()}>
                { if rds.is_empty() { html!{ <p class="muted small">{ "no reads yet" }</p> } } else { html!{ <>{ for rds.iter().map(|r| read_html(r, &name)) }</> } } }
                <>{ for (more_reads > 0).then(|| html!{ <p class="muted small">{ format!("{more_reads} older reads on other nodes not shown") }</p> }) }</>
            </div>
            <div id="mt-node" data-duplicates={text(&node, "duplicates")} data-listeners-expired={text(&node, "listeners_expired")}>
                <dl class="kv">
                    <dt>{ "next offset" }</dt><dd>{ text(&node, "next_offset") }</dd>
                    <dt>{ "duplicates" }</dt><dd>{ text(&node, "duplicates") }</dd>
                    <dt>{ "listeners expired" }</dt><dd class={classes!(node.get("listeners_expired").and_then(Value::as_u64).is_some_and(|x| x > 0).then_some("bad"))}>{ text(&node, "listeners_expired") }</dd>
                    <dt>{ "parked" }</dt><dd>{ if parked > 0 { format!("{parked} ({})", text(&node, "parked_stage")) } else { "—".into() } }</dd>
                    <dt>{ "holding" }</dt><dd>{ if holding.is_empty() { "—".into() } else { holding.join(", ") } }</dd>
                    <dt>{ "held" }</dt><dd>{ if held.is_empty() { "—".into() } else { held.join(", ") } }</dd>
                </dl>
            </div>
            <h4>{ "Logs: witnessed offsets per participant" }</h4>
            { if logs.is_empty() { html!{ <p class="muted small">{ "no logs" }</p> } } else { html!{
                <div class="table-wrap small-tbl">
                    <table class="tbl" id="mt-logs">
                        <thead><tr><th>{ "log" }</th><>{ for participants.iter().map(|p| html!{ <th>{ format!("@{p}") }</th> }) }</><th>{ "reconciled" }</th><th>{ "unreconciled" }</th><th>{ "pending" }</th></tr></thead>
                        <tbody>{ for log_rows }</tbody>
                    </table>
                </div>
            } } }
            <div class="subhead">
                <h4><span class="ident">{ "IncomingMutations" }</span>{ " listeners" }</h4>
                <>{ for (orphans > 0).then(|| html!{ <span class="small bad">{ format!("{orphans} orphaned: witnessed, nothing pending, nobody will call them") }</span> }) }</>
            </div>
            { if ls.is_empty() { html!{ <p class="muted small" id="mt-listeners">{ "none" }</p> } } else { html!{
                <div class="table-wrap small-tbl">
                    <table class="tbl" id="mt-listeners">
                        <thead><tr><th>{ "mutation" }</th><th>{ "callbacks (reads)" }</th><th>{ "since" }</th><th>{ "state" }</th></tr></thead>
                        <tbody>{ for listener_rows }</tbody>
                    </table>
                </div>
            } } }
            <h4>{ "Journal" }</h4>
            <div class="chips" id="mt-journal">
                { if jr.is_empty() { html!{ <span class="muted small">{ "empty" }</span> } } else { html!{
                    <>{ for jr.iter().map(|(i, row)| html!{ <span class="chip mono" title={format!("row {row}")}>{ format!("{i} → {row}") }</span> }) }</>
                } } }
            </div>
            <div class="subhead">
                <h4>{ "Deliveries" }</h4>
                <span class="muted small">{ "newest first; a duplicate that fires no listener is highlighted" }</span>
            </div>
            { if dels.is_empty() { html!{ <p class="muted small" id="mt-deliveries">{ "none" }</p> } } else { html!{
                <div class="table-wrap small-tbl">
                    <table class="tbl" id="mt-deliveries">
                        <thead><tr><th>{ "at" }</th><th>{ "mutation" }</th><th>{ "via" }</th><th>{ "startWriting" }</th><th>{ "listeners" }</th></tr></thead>
                        <tbody>{ for delivery_rows }</tbody>
                    </table>
                </div>
            } } }
            <>{ for (more_dels > 0).then(|| html!{ <p class="muted small">{ format!("{more_dels} older not shown") }</p> }) }</>
            { threads(&m, id) }
        </section>
    }
}
