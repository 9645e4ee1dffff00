//! Ozone's own panels (protocol "ozone": Raft plus the container state machine and SCM): the
//! Raft log strips (the raft module's, over the datanodes only), each entry's kind, container and
//! data status per replica, the health flags, the container table, the leader's
//! stateMachineDataCache, the pending-request quota, SCM's pipeline, and the generic threads.
//!
//! Reads `views_json` only (per datanode: Raft's fields, `state_machine` and `ozone` with
//! `entries[]` {index, kind, container, data} and `quota` {used, leaked, limit}; SCM:
//! `state_machine.scm`). Missing fields show as "—".
//!
//! Test hooks: `#oz-pipeline[data-state][data-closed-by]`;
//! `#oz-health .oz-h[data-node][data-healthy][data-close-cause]`;
//! `#oz-data tr[data-node]` with `td[data-index][data-kind][data-container][data-status]`;
//! `#oz-containers td[data-node][data-container]` (text = state; SCM's column has
//! data-node="scm" or the SCM node's name); `#oz-cache[data-entries]`;
//! `#oz-quota[data-used][data-limit][data-leaked]`; `.oz-sent[data-follower][data-sent][data-failed]`
//! (where the leader's appender took each entry's data for that follower: `7:cache,8:disk`);
//! plus the raft strips (`#raft-strips`).

use crate::kit::PanelProps;
use crate::models::generic::{no_selection, node_entry, threads};
use crate::models::raft::inspector::strips_html;
use crate::models::raft::{cluster, text};
use serde_json::Value;
use std::collections::BTreeSet;
use yew::prelude::*;

/// The short form of a data status for a table cell.
pub fn short_status(s: &str) -> &'static str {
    match s {
        "cached" => "cached",
        "cached, written" => "cached+w",
        "cached, zero bytes" => "cached, 0 B",
        "written, evicted" => "evicted",
        "zero bytes, evicted" => "0 B, evicted",
        "written" => "written",
        "zero bytes" => "0 B",
        "read from cache" => "→ cache",
        "read from disk" => "→ disk",
        "read failed" => "READ FAILED",
        _ => "—",
    }
}

fn status_class(s: &str) -> &'static str {
    match s {
        "read failed" => "oz-bad",
        "cached, zero bytes" | "zero bytes, evicted" | "zero bytes" => "oz-warn",
        "read from disk" | "read from cache" => "oz-read",
        _ => "",
    }
}

fn kind_short(k: &str) -> &'static str {
    match k {
        "WriteChunk" => "WC",
        "PutBlock" => "PB",
        "CloseContainer" => "CC",
        "Startup" => "—",
        _ => "?",
    }
}

fn is_scm(v: &Value) -> bool {
    v.pointer("/state_machine/scm").is_some()
}

#[function_component(OzoneInspector)]
pub fn ozone_inspector(p: &PanelProps) -> Html {
    let m = p.m().borrow();
    let Some(id) = m.selected else {
        return no_selection();
    };
    let e = &*m.run.engine;
    let name = e.topo().name(id).to_string();
    let views = e.views_json();
    let all: Vec<String> = (0..e.topo().len())
        .map(|i| e.topo().name(i).to_string())
        .collect();
    let get = |n: &str| node_entry(&views, n).cloned().unwrap_or(Value::Null);
    let dns: Vec<String> = all.iter().filter(|n| !is_scm(&get(n))).cloned().collect();
    let scm_name = all.iter().find(|n| is_scm(&get(n))).cloned();
    let scm = scm_name
        .as_ref()
        .map(|n| {
            get(n)
                .pointer("/state_machine/scm")
                .cloned()
                .unwrap_or(Value::Null)
        })
        .unwrap_or(Value::Null);
    let pipeline = text(&scm, "pipeline");
    // Why SCM closed it: the cause of the pipeline action it closed it on ("none" while OPEN).
    let closed_by = text(&scm, "pipeline_closed_by");
    let prev = m
        .prev_node
        .as_ref()
        .and_then(|(_, snap)| snap.downcast_ref::<Value>());
    let sel = if dns.contains(&name) {
        name.clone()
    } else {
        dns.first().cloned().unwrap_or_default()
    };
    let c = cluster(&views, prev, &dns, &sel);
    // The data table covers the strips' index window, up to the longest log.
    let last = dns
        .iter()
        .filter_map(|n| {
            get(n)
                .pointer("/ozone/entries")
                .and_then(Value::as_array)
                .map(|a| a.len() as u64)
        })
        .max()
        .unwrap_or(0);
    let (lo, hi) = (c.lo.max(1), c.hi.min(last.max(1)));
    let health = dns.iter().map(|n| {
        let v = get(n);
        let sm = v.get("state_machine").cloned().unwrap_or(Value::Null);
        let healthy = sm.get("healthy").and_then(Value::as_bool);
        let fails = sm.get("read_failures").and_then(Value::as_u64).unwrap_or(0);
        let cause = sm
            .get("pipeline_close_cause")
            .and_then(Value::as_str)
            .unwrap_or("none")
            .to_string();
        let label = match healthy {
            Some(true) => "healthy",
            Some(false) => "UNHEALTHY",
            None => "—",
        };
        html! {
            <span class={classes!("oz-h", (healthy == Some(false)).then_some("oz-bad"))} data-node={n.clone()}
                data-healthy={healthy.map(|h| h.to_string()).unwrap_or_default()} data-close-cause={cause.clone()}
                title="stateMachineHealthy; readStateMachineData failures; why this datanode asked SCM to close the pipeline (pipeline_close_cause)">
                <b>{ n }</b>{ format!(" {} · {} · read failures {fails}", text(&v, "role"), label) }
                { if cause == "none" { String::new() } else { format!(" · close: {cause}") } }
            </span>
        }
    });
    let data_rows = dns.iter().map(|n| {
        let v = get(n);
        let entries: Vec<Value> = v
            .pointer("/ozone/entries")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let cells = (lo..=hi).map(|i| {
            let en = entries
                .iter()
                .find(|x| x.get("index").and_then(Value::as_u64) == Some(i));
            match en {
                None => html! { <td class="oz-none"></td> },
                Some(x) => {
                    let kind = x.get("kind").and_then(Value::as_str).unwrap_or("");
                    let cid = x.get("container").and_then(Value::as_u64);
                    let st = x.get("data").and_then(Value::as_str).unwrap_or("");
                    let title = format!(
                        "index {i} · {kind}{} · data: {}",
                        cid.map(|c| format!(" container {c}")).unwrap_or_default(),
                        if st.is_empty() { "—" } else { st }
                    );
                    html! {
                        <td class={classes!("oz-cell", status_class(st))} title={title} data-index={i.to_string()}
                            data-kind={kind.to_string()} data-container={cid.map(|c| c.to_string()).unwrap_or_default()}
                            data-status={st.to_string()}>
                            if kind == "Startup" {
                                <span class="muted small">{ "startup" }</span>
                            } else {
                                <b>{ kind_short(kind) }</b>{ cid.map(|c| format!(" c{c}")).unwrap_or_default() }
                                <br/><span class="small">{ short_status(st) }</span>
                            }
                        </td>
                    }
                }
            }
        });
        html! { <tr data-node={n.clone()}><th>{ n }</th><>{ for cells }</></tr> }
    });
    // Container table: every container any replica or SCM knows.
    let cstate = |v: &Value| -> Value {
        v.pointer("/state_machine/containers")
            .cloned()
            .unwrap_or(Value::Null)
    };
    let mut ids: BTreeSet<u64> = BTreeSet::new();
    for n in &dns {
        if let Some(o) = cstate(&get(n)).as_object() {
            ids.extend(o.keys().filter_map(|k| k.parse::<u64>().ok()));
        }
    }
    if let Some(o) = scm.get("containers").and_then(Value::as_object) {
        ids.extend(o.keys().filter_map(|k| k.parse::<u64>().ok()));
    }
    let scm_col = scm_name.clone().unwrap_or_else(|| "scm".into());
    let crow = ids.iter().map(|cid| {
        let k = cid.to_string();
        // A replica's state and, once it has one, its BCSID (a preloaded replica's at 0 s).
        let cell = |node: &str, st: Option<&str>, bcsid: Option<u64>| {
            let st = st.unwrap_or("—");
            let shown = match bcsid.filter(|&b| b > 0) {
                Some(b) => format!("{st} · {b}"),
                None => st.to_string(),
            };
            html! {
                <td class={classes!("oz-cs", format!("cs-{}", st.to_ascii_lowercase()))} data-node={node.to_string()} data-container={k.clone()}
                    data-bcsid={bcsid.unwrap_or(0).to_string()}
                    title="the replica's state · its BCSID (block commit sequence id)">{ shown }</td>
            }
        };
        html! {
            <tr>
                <th>{ format!("c{cid}") }</th>
                <>{ for dns.iter().map(|n| {
                    let v = get(n);
                    let bcsid = v.pointer(&format!("/state_machine/bcsid/{k}")).and_then(Value::as_u64);
                    cell(n, cstate(&v).get(&k).and_then(Value::as_str), bcsid)
                }) }</>
                { cell(&scm_col, scm.pointer(&format!("/containers/{k}")).and_then(Value::as_str), None) }
            </tr>
        }
    });
    let leader = c.leader.clone();
    let lv = leader.as_ref().map(|l| get(l)).unwrap_or(Value::Null);
    let cache: Vec<String> = lv
        .pointer("/state_machine/cache")
        .and_then(Value::as_object)
        .map(|o| o.iter().map(|(i, b)| format!("{i}: {b} B")).collect())
        .unwrap_or_default();
    let q = lv.pointer("/ozone/quota").cloned().unwrap_or(Value::Null);
    let held: Vec<String> = lv
        .pointer("/state_machine/held")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let leaked = q.get("leaked").and_then(Value::as_u64).unwrap_or(0);
    // Per follower: where the leader's appender took each sent entry's data from.
    let sent: Vec<(String, Vec<(u64, String)>)> = lv
        .pointer("/ozone/sent_from")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(f, a)| {
                    let rows = a
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .rev()
                                .take(8)
                                .rev()
                                .map(|x| (x["index"].as_u64().unwrap_or(0), text(x, "from")))
                                .collect()
                        })
                        .unwrap_or_default();
                    (f.clone(), rows)
                })
                .collect()
        })
        .unwrap_or_default();
    let sent_html = sent.iter().map(|(f, rows)| {
        let failed = rows.iter().filter(|(_, w)| w == "read failed").count();
        html! {
            <li class="oz-sent" data-follower={f.clone()} data-failed={failed.to_string()}
                data-sent={rows.iter().map(|(i, w)| format!("{i}:{w}")).collect::<Vec<_>>().join(",")}>
                { format!("to {f}: ") }
                <>{ for rows.iter().map(|(i, w)| html!{
                    <span class={classes!("mono", (w == "read failed").then_some("oz-bad"))}>{ format!("#{i} {w} ") }</span>
                }) }</>
            </li>
        }
    });
    let sel_node = get(&name);
    html! {
        <section class="card insp-card raft ozone" aria-label="Inspector" id="inspector" data-node={name.clone()}>
            <div class="card-head">
                <h2>{ format!("Inspector · {name}") }</h2>
                <span class="muted small">{ format!("{} · {}", text(&sel_node, "status"), e.node_badge(id)) }</span>
            </div>
            <div class="oz-top">
                <span id="oz-pipeline" class={classes!("oz-pipe", (pipeline == "CLOSED").then_some("oz-bad"))} data-state={pipeline.clone()}
                    data-closed-by={closed_by.clone()}
                    title="SCM's view of the pipeline (PipelineActionHandler closes it) and the cause of the action it closed it on (pipeline_closed_by)">
                    { format!("SCM pipeline {pipeline}") }
                    { if pipeline == "CLOSED" && closed_by != "none" { format!(" ({closed_by})") } else { String::new() } }
                </span>
                <div id="oz-health" class="oz-health">{ for health }</div>
            </div>
            <div class="subhead">
                <h4>{ "Raft logs" }</h4>
                <span class="muted small">{ "datanodes only; entries coloured by term; the shaded run is committed" }</span>
            </div>
            { strips_html(&c) }
            <div class="subhead">
                <h4>{ "Entries and their data" }</h4>
                <span class="muted small">{ "WC WriteChunk · PB PutBlock · CC CloseContainer · container · data status (on the leader: the appender's last read, → cache / → disk)" }</span>
            </div>
            <div class="table-wrap oz-wrap">
                <table class="tbl oz-data" id="oz-data" data-lo={lo.to_string()} data-hi={hi.to_string()}>
                    <thead><tr><th>{ "index" }</th><>{ for (lo..=hi).map(|i| html!{ <th class="num">{ i }</th> }) }</></tr></thead>
                    <tbody>{ for data_rows }</tbody>
                </table>
            </div>
            <div class="two">
                <div>
                    <h4>{ "Containers" }</h4>
                    <div class="table-wrap small-tbl">
                        <table class="tbl" id="oz-containers">
                            <thead><tr><th></th><>{ for dns.iter().map(|n| html!{ <th>{ n }</th> }) }</><th>{ "SCM" }</th></tr></thead>
                            <tbody>{ for crow }</tbody>
                        </table>
                    </div>
                </div>
                <div>
                    <h4>{ format!("Leader {}", leader.clone().unwrap_or_else(|| "—".into())) }</h4>
                    <ul class="oz-lead">
                        <li>{ "data cache: " }
                            <span id="oz-cache" data-entries={cache.len().to_string()} class="mono">
                                { if cache.is_empty() { "empty".to_string() } else { cache.join(", ") } }
                            </span>
                        </li>
                        <li>{ "pending requests: " }
                            <span id="oz-quota" data-used={text(&q, "used")} data-limit={text(&q, "limit")} data-leaked={leaked.to_string()}
                                class={classes!("mono", (leaked > 0).then_some("oz-bad"))}>
                                { format!("{} used / {} limit{}", text(&q, "used"), text(&q, "limit"),
                                    if leaked > 0 { format!(", {leaked} leaked") } else { String::new() }) }
                            </span>
                        </li>
                        <>{ for sent_html }</>
                        <li>{ "held at the hold point: " }
                            <span id="oz-held" data-count={held.len().to_string()} class="mono">{ if held.is_empty() { "—".to_string() } else { held.join(", ") } }</span>
                        </li>
                    </ul>
                </div>
            </div>
            { threads(&m, id) }
        </section>
    }
}
