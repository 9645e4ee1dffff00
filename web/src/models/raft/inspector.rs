//! The Raft inspector: the selected node's role, term, vote, leader and election timer, a log
//! strip per node (entries coloured by term, an index ruler, flushIndex / commitIndex /
//! lastApplied markers, the leader's nextIndex / matchIndex on each follower's strip, what the
//! last move changed highlighted), the client's figures, the state machine and the threads.
//!
//! Test hooks: `#raft-strips` (data-lo, data-hi, data-leader); `.rs-strip[data-node]` with
//! data-role, data-term, data-last, data-commit, data-applied, data-flush (and data-next,
//! data-match on a follower of the leader); `#raft-head` with data-role, data-term,
//! data-leader; `#raft-client` with data-acked.

use super::{cluster, election_timer, ruler, text, Cluster, Strip};
use crate::kit::{age, PanelProps};
use crate::models::generic::no_selection;
use crate::models::generic::{node_entry, render, threads};
use clusterscope_core::time::parse_duration;
use serde_json::Value;
use yew::prelude::*;

/// The election timeout's upper bound (the timer bar's full length): the scenario's
/// `timeout_max` (the variant's over the file's), else its `preset`'s (see
/// [`super::preset_timeout_max`]).
fn timeout_max(m: &crate::model::Model) -> u64 {
    let sc = &m.run.scenario.raw;
    let variant = sc.variants.iter().find(|v| v.name == m.run.variant);
    let get = |k: &str| {
        variant
            .and_then(|v| v.params.get(k))
            .or_else(|| sc.params.get(k))
            .and_then(|v| v.as_str())
    };
    get("timeout_max")
        .and_then(|s| parse_duration(s).ok())
        .unwrap_or_else(|| super::preset_timeout_max(get("preset")))
}

fn opt(v: Option<u64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "—".into())
}

fn role_class(role: &str) -> &'static str {
    match role {
        "leader" => "leader",
        "candidate" | "pre-candidate" => "candidate",
        "follower" => "follower",
        _ => "down",
    }
}

/// Where slot `slot` of the window of `c` is, across the strip.
fn pct(slot: u64, c: &Cluster) -> String {
    format!(
        "left:{:.3}%",
        (slot as f64 + 0.5) / (c.hi + 1 - c.lo) as f64 * 100.0
    )
}

fn strip_html(s: &Strip, c: &Cluster) -> Html {
    let cells = s.entries.iter().map(|e| {
        let slot = e.index - c.lo;
        // Commit vs apply (issue 40): applied, committed but not applied yet, not committed.
        let committed = s.commit.is_some_and(|ci| e.index <= ci);
        let applied = s.applied.is_some_and(|a| e.index <= a);
        let stage = match (committed, applied) {
            (_, true) => "applied",
            (true, false) => "unapplied",
            _ => "uncommitted",
        };
        let title = format!(
            "index {} · term {} · {}{} · {}",
            e.index,
            e.term,
            if e.kind.is_empty() { "entry" } else { &e.kind },
            if e.what.is_empty() { String::new() } else { format!(": {}", e.what) },
            match stage {
                "applied" => "applied",
                "unapplied" => "committed, not applied yet",
                _ => "not committed",
            }
        );
        html! {
            <span class={classes!("rs-e", format!("rt-c{}", e.colour), (e.kind == "startup").then_some("startup"),
                    e.changed.then_some("hot"), committed.then_some("committed"), stage)} data-stage={stage}
                style={format!("grid-column:{}", slot + 1)} title={title}
                data-index={e.index.to_string()} data-term={e.term.to_string()}>
                { e.term }
            </span>
        }
    });
    let band = |above: bool| {
        let lanes = if above { 2 } else { 3 };
        let marks = s.markers.iter().filter(|mk| mk.kind.above() == above).map(|mk| {
            let style = match mk.slot {
                Some(slot) => format!("{};top:{}px", pct(slot, c), mk.kind.lane() * 12),
                None => format!("left:0;top:{}px", mk.kind.lane() * 12),
            };
            let left = mk.slot.is_none();
            html! {
                <span class={classes!("rs-m", format!("mk-{}", mk.kind.label()), mk.changed.then_some("moved"), left.then_some("off"))}
                    style={style} title={format!("{} {}", mk.kind.label(), mk.index)}>
                    { if left { format!("‹{}", mk.kind.letter()) } else { mk.kind.letter().to_string() } }
                </span>
            }
        });
        html! {
            <div class={classes!("rs-band", if above { "above" } else { "below" })} style={format!("height:{}px", lanes * 12)}>
                <>{ for marks }</>
            </div>
        }
    };
    let has_progress = s.next_index.is_some() || s.match_index.is_some();
    let term = s.term.map(|t| t.to_string()).unwrap_or_else(|| "—".into());
    let legend = format!(
        "C {} · A {} · F {}",
        opt(s.commit),
        opt(s.applied),
        opt(s.flush)
    );
    html! {
        <div class={classes!("rs-row", s.selected.then_some("sel"))}>
            <div class="rs-name">
                <b>{ &s.name }</b>
                <span class={classes!("rs-role", role_class(&s.role))} title={s.role.clone()}>{ format!("{} · t{}", s.role, term) }</span>
                <span class="rs-legend" title="commitIndex · lastApplied · flushIndex">{ legend }</span>
                <>{ for has_progress.then(|| html!{
                    <span class="rs-legend lead" title="the leader's nextIndex · matchIndex for this node">
                        { format!("n {} · m {}", opt(s.next_index), opt(s.match_index)) }
                    </span>
                }) }</>
            </div>
            <div class="rs-strip" data-node={s.name.clone()} data-role={s.role.clone()} data-term={term.clone()}
                data-last={s.last_index.to_string()} data-commit={opt(s.commit)} data-applied={opt(s.applied)}
                data-flush={opt(s.flush)} data-next={s.next_index.map(|x| x.to_string())}
                data-match={s.match_index.map(|x| x.to_string())}>
                <>{ for has_progress.then(|| band(true)) }</>
                <div class="rs-boxes" style={format!("grid-template-columns:repeat({},minmax(0,1fr))", c.hi + 1 - c.lo)}>
                    <>{ for s.commit.filter(|ci| *ci >= c.lo).map(|ci| html!{
                        <span class="rs-committed" style={format!("grid-column:1 / {}", (ci.min(c.hi) - c.lo) + 2)}></span>
                    }) }</>
                    <>{ for cells }</>
                    <>{ for (s.entries.is_empty()).then(|| html!{ <span class="rs-empty muted small" style="grid-column:1 / -1">{ if s.last_index == 0 { "empty log" } else { "" } }</span> }) }</>
                </div>
                { band(false) }
                <>{ for (s.hidden_before > 0).then(|| html!{ <span class="rs-hidden muted small" title="entries left of the window">{ format!("+{} earlier", s.hidden_before) }</span> }) }</>
            </div>
        </div>
    }
}

pub(crate) fn strips_html(c: &Cluster) -> Html {
    let ticks = ruler(c.lo, c.hi).into_iter().map(|i| {
        html! { <span class="rs-tick" style={pct(i - c.lo, c)}>{ i }</span> }
    });
    html! {
        <div id="raft-strips" class="rs" data-lo={c.lo.to_string()} data-hi={c.hi.to_string()}
            data-leader={c.leader.clone().unwrap_or_default()}>
            <div class="rs-row ruler">
                <div class="rs-name muted small">{ "index" }</div>
                <div class="rs-ruler">{ for ticks }</div>
            </div>
            <>{ for c.strips.iter().map(|s| strip_html(s, c)) }</>
            <>{ for (c.not_shown > 0).then(|| html!{
                <p class="muted small">{ format!("{} more nodes not shown: the selected node and the leader only.", c.not_shown) }</p>
            }) }</>
            <div class="rs-key muted small">
                <span><i class="rs-m mk-commit">{ "C" }</i>{ " commitIndex" }</span>
                <span><i class="rs-m mk-applied">{ "A" }</i>{ " lastApplied" }</span>
                <span><i class="rs-m mk-flush">{ "F" }</i>{ " flushIndex" }</span>
                <span><i class="rs-m mk-next">{ "n" }</i><i class="rs-m mk-match">{ "m" }</i>{ " leader's nextIndex / matchIndex" }</span>
                <span><i class="rs-e applied committed rt-c1 swatch"></i>{ " applied" }</span>
                <span><i class="rs-e unapplied committed rt-c1 swatch"></i>{ " committed, not applied yet" }</span>
                <span><i class="rs-e uncommitted rt-c1 swatch"></i>{ " not committed" }</span>
                <span><i class="rs-e hot rt-c1 swatch"></i>{ " changed by the last move" }</span>
                <span><i class="rs-e startup rt-c2 swatch"></i>{ " leader's startup entry" }</span>
            </div>
        </div>
    }
}

#[function_component(RaftInspector)]
pub fn raft_inspector(p: &PanelProps) -> Html {
    let m = p.m().borrow();
    let Some(id) = m.selected else {
        return no_selection();
    };
    let e = &*m.run.engine;
    let name = e.topo().name(id).to_string();
    let names: Vec<String> = (0..e.topo().len())
        .map(|i| e.topo().name(i).to_string())
        .collect();
    let views = e.views_json();
    let prev = m
        .prev_node
        .as_ref()
        .and_then(|(_, snap)| snap.downcast_ref::<Value>());
    let node = node_entry(&views, &name).cloned().unwrap_or(Value::Null);
    let c = cluster(&views, prev, &names, &name);
    let now = e.now();
    let role = node
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or("—")
        .to_string();
    let timer = election_timer(
        node.get("election_deadline_us").and_then(Value::as_u64),
        now,
        timeout_max(&m),
    );
    let votes = node
        .get("votes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "—".into());
    let client = node.get("client").cloned().unwrap_or(Value::Null);
    let us = |k: &str| {
        client
            .get(k)
            .and_then(Value::as_u64)
            .map(age)
            .unwrap_or_else(|| "—".into())
    };
    let sm = node.get("state_machine").cloned().unwrap_or(Value::Null);
    html! {
        <section class="card insp-card raft" aria-label="Inspector" id="inspector" data-node={name.clone()}>
            <div class="card-head">
                <h2>{ format!("Inspector · {name}") }</h2>
                <span class="muted small">{ format!("{} · {}", text(&node, "status"), e.node_badge(id)) }</span>
            </div>
            <div id="raft-head" class="rh" data-role={role.clone()} data-term={text(&node, "term")} data-leader={text(&node, "leader")}>
                <span class={classes!("rs-role", "big", role_class(&role))}>{ &role }</span>
                <dl class="kv">
                    <dt>{ "term" }</dt><dd>{ text(&node, "term") }</dd>
                    <dt>{ "votedFor" }</dt><dd>{ text(&node, "voted_for") }</dd>
                    <dt>{ "leader" }</dt><dd>{ text(&node, "leader") }</dd>
                    <dt>{ "votes" }</dt><dd>{ votes }</dd>
                </dl>
                <div class="rh-timer" title="the election timer: when this node times out and starts a (pre-)vote">
                    <span class="muted small">{ "election timer" }</span>
                    { match timer {
                        Some((left, frac)) => html!{
                            <>
                                <span class="et-bar"><i class={classes!((frac < 0.25).then_some("low"))} style={format!("width:{:.1}%", frac * 100.0)}></i></span>
                                <span class="small mono" id="election-left" data-left-us={left.to_string()}>{ format!("fires in {}", age(left)) }</span>
                            </>
                        },
                        None => html!{ <span class="small muted" id="election-left">{ if role == "leader" { "— (leader: no timer)" } else { "—" } }</span> },
                    } }
                </div>
            </div>
            <div class="subhead">
                <h4>{ "Logs" }</h4>
                <span class="muted small">{ "entries coloured by term; the selected node first; the shaded run is committed" }</span>
            </div>
            { strips_html(&c) }
            <div class="two">
                <div>
                    <h4>{ "Client" }</h4>
                    <dl class="kv" id="raft-client" data-acked={text(&client, "acked")}>
                        <dt>{ "acked" }</dt><dd>{ text(&client, "acked") }</dd>
                        <dt>{ "failed" }</dt><dd class={classes!(client.get("failed").and_then(Value::as_u64).is_some_and(|f| f > 0).then_some("bad"))}>{ text(&client, "failed") }</dd>
                        <dt>{ "pending" }</dt><dd>{ text(&client, "pending") }</dd>
                        <dt>{ "target" }</dt><dd>{ text(&client, "target") }</dd>
                        <dt>{ "latency" }</dt><dd>{ us("latency_last_us") }</dd>
                        <dt>{ "max" }</dt><dd>{ us("latency_max_us") }</dd>
                        <dt>{ "requests" }</dt><dd>{ text(&node, "pending_requests") }</dd>
                        <dt>{ "retry cache" }</dt><dd>{ text(&node, "retry_cache") }</dd>
                        // Linearizable reads this server holds and what each waits for
                        // (read_option = "linearizable": a heartbeat round, the leader's readIndex,
                        // the apply).
                        { for node.get("reads_waiting").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(|r| html!{
                            <><dt>{ "read" }</dt><dd class="small">{ r.to_string() }</dd></>
                        }) }
                    </dl>
                </div>
                <div>
                    <h4>{ "State machine" }</h4>
                    <div class="gv" id="raft-sm">{ render(&sm, 0) }</div>
                </div>
            </div>
            { threads(&m, id) }
        </section>
    }
}
