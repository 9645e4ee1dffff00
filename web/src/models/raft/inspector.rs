//! The Raft inspector: the selected node's role, term, vote, leader and election timer, a log
//! strip per node (entries coloured by term, an index ruler, flushIndex / commitIndex /
//! lastApplied markers, the leader's nextIndex / matchIndex on each follower's strip, what the
//! last move changed highlighted), the client's figures, the state machine and the threads.
//!
//! Test hooks: `#raft-strips` (data-lo, data-hi, data-tail "a-b" after an elided gap,
//! data-leader); `.rs-strip[data-node]` with data-role, data-term, data-last, data-commit,
//! data-applied, data-flush, data-shown / data-before / data-elided (entries drawn, left of
//! the window, in the gap), and data-next, data-match on a follower of the leader; `.rs-gap`
//! (the gap's "…", its title the count); `#raft-head` with data-role, data-term, data-leader;
//! `#raft-client` with data-acked; `#raft-reads` (the reads waiting, one wide row each).

use super::{cluster, election_timer, ruler_marks, text, Cluster, Strip};
use crate::kit::{age, kv_row, slot, PanelProps};
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

/// Where column `slot` of the axis of `c` is, across the strip.
fn pct(slot: u64, c: &Cluster) -> String {
    format!(
        "left:{:.3}%",
        (slot as f64 + 0.5) / c.axis.columns() as f64 * 100.0
    )
}

/// "a–b", or "a" when one index.
fn span(a: u64, b: u64) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}–{b}")
    }
}

fn strip_html(s: &Strip, c: &Cluster) -> Html {
    let ax = &c.axis;
    let cells = s.entries.iter().filter_map(|e| Some((e, ax.slot(e.index)?))).map(|(e, slot)| {
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
                data-shown={s.entries.len().to_string()} data-before={s.hidden_before.to_string()}
                data-elided={s.hidden_gap.to_string()}
                data-last={s.last_index.to_string()} data-commit={opt(s.commit)} data-applied={opt(s.applied)}
                data-flush={opt(s.flush)} data-next={s.next_index.map(|x| x.to_string())}
                data-match={s.match_index.map(|x| x.to_string())}>
                <>{ for has_progress.then(|| band(true)) }</>
                <div class="rs-boxes" style={format!("grid-template-columns:repeat({},minmax(0,1fr))", ax.columns())}>
                    <>{ for s.commit.filter(|ci| *ci >= c.lo).map(|ci| html!{
                        <span class="rs-committed" style={format!("grid-column:1 / {}", ax.slot(ci.min(ax.end())).unwrap_or(0) + 2)}></span>
                    }) }</>
                    <>{ for cells }</>
                    <>{ for ax.gap().filter(|_| s.hidden_gap > 0).map(|(gap, (a, b))| html!{
                        <span class="rs-gap" style={format!("grid-column:{}", gap + 1)} data-elided={s.hidden_gap.to_string()}
                            title={format!("{} entries not drawn (indexes {})", s.hidden_gap, span(a, b.min(s.last_index)))}>{ "…" }</span>
                    }) }</>
                    <>{ for (s.entries.is_empty()).then(|| html!{ <span class="rs-empty muted small" style="grid-column:1 / -1">{ empty_text(s, c) }</span> }) }</>
                </div>
                { band(false) }
                <>{ for (s.hidden_before > 0).then(|| html!{ <span class="rs-hidden muted small" title={format!("indexes {} are left of the window", span(1, c.lo - 1))}>{ format!("‹ {} earlier", s.hidden_before) }</span> }) }</>
            </div>
        </div>
    }
}

/// What a strip with no entry drawn says: an empty log, or where its entries are.
fn empty_text(s: &Strip, c: &Cluster) -> String {
    if s.last_index == 0 {
        return "empty log".into();
    }
    let n = s.hidden_before + s.hidden_gap + s.hidden_after;
    let at = if s.last_index < c.lo {
        "left of the window"
    } else {
        "not drawn"
    };
    format!(
        "{n} entries {at} (last: index {}, term {})",
        s.last_index, s.last_term
    )
}

pub(crate) fn strips_html(c: &Cluster) -> Html {
    let ticks = ruler_marks(&c.axis).into_iter().map(|(slot, label)| {
        let gap = label == "…";
        html! { <span class={classes!("rs-tick", gap.then_some("gap"))} style={pct(slot, c)}>{ label }</span> }
    });
    html! {
        <div id="raft-strips" class="rs" data-lo={c.lo.to_string()} data-hi={c.hi.to_string()}
            data-tail={c.axis.tail.map(|(a, b)| format!("{a}-{b}"))}
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
                <>{ for c.axis.gap().map(|(_, (a, b))| html!{
                    <span><i class="rs-gap swatch">{ "…" }</i>{ format!(" indexes {} not drawn (a log running past the leader's)", span(a, b)) }</span>
                }) }</>
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
    let reads: Vec<String> = node
        .get("reads_waiting")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
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
                        None => html!{ <span class="small muted" id="election-left">{ match role.as_str() { "leader" => "— (leader: no timer)", "down" => "— (down: no timer)", _ => "—" } }</span> },
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
                    </dl>
                </div>
                <div>
                    <h4>{ "State machine" }</h4>
                    <div class="gv" id="raft-sm">{ render(&sm, 0) }</div>
                </div>
            </div>
            // Linearizable reads this server holds and what each waits for (read_option =
            // "linearizable": a heartbeat round, the leader's readIndex, the apply): long
            // sentences, across the whole card.
            { slot((!reads.is_empty()).then(|| html!{
                <div id="raft-reads">
                    <h4>{ "Reads waiting" }</h4>
                    <dl class="kv">{ for reads.iter().map(|r| kv_row("read", r.clone(), Some("small"))) }</dl>
                </div>
            })) }
            { threads(&m, id) }
        </section>
    }
}
