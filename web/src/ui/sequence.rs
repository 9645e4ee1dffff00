//! The sequence diagram (Lamport style): one lifeline per chosen node, one row per distinct event
//! time, arrows from send to delivery (or drop, or the expected arrival when still in flight),
//! ending at the cursor. Click an arrow to read the message.

use crate::draw::msg_color;
use crate::kit::{t, PanelProps};
use crate::labels::{place_along, LabelArrow, TextBox};
use crate::model::nav::NavKind;
use crate::model::seq::{self, Fate};
use crate::model::{Msg, MAX_SEQ_NODES};
use clusterscope_core::engine::NodeId;
use clusterscope_core::time::Micros;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

const W: f64 = 640.0;
const HEAD: f64 = 26.0;
const GUTTER: f64 = 78.0;
const MAX_ARROWS: usize = 18;
/// State changes drawn on the lifelines at most (the newest).
const MAX_EVENTS: usize = 40;

/// Row phases within one microsecond (see the rows in [`sequence`]): arrivals, then a node's
/// events (the k-th event of a node in that microsecond at `EVENT + k`), then departures.
const ARRIVE: u8 = 0;
const EVENT: u8 = 1;
const DEPART: u8 = u8::MAX;

/// Where an event's text starts (left end of its baseline) from its dot.
const EVENT_TEXT_DX: f64 = 7.0;
const EVENT_TEXT_DY: f64 = 3.5;

#[function_component(Sequence)]
pub fn sequence(p: &PanelProps) -> Html {
    let chosen_kind = use_state(|| None::<&'static str>);
    let s = &p.s;
    let m = s.model.borrow();
    let topo = &m.run.scenario.topo;
    let nodes: Vec<NodeId> = m.seq_nodes.clone();
    let trace = m.run.engine.trace();
    let d = seq::diagram(
        trace,
        m.run.engine.msg_kinds(),
        m.cursor(),
        m.now(),
        &nodes,
        MAX_ARROWS,
        MAX_EVENTS,
        60_000,
    );

    // Rows: every distinct (time, phase), in order; the cursor sits after the last past time.
    // Within one microsecond, arrivals come first, then what a node noted (its events), then
    // what it sent: "B applies the ACK2: new generation" gets a row of its own between the ACK2's
    // arrival and the ECHO_REQs it sends, instead of being written across them.
    let end_of = |a: &seq::Arrow| -> (Micros, u8) {
        let tt = match a.fate {
            Fate::Delivered(t) | Fate::Dropped(t, _) | Fate::InFlight(t) => t,
        };
        // A message that ends when it starts stays on its sending row (drawn level).
        (tt, if tt == a.sent_at { DEPART } else { ARRIVE })
    };
    let mut times: Vec<(Micros, u8)> = Vec::new();
    for a in &d.arrows {
        times.push((a.sent_at, DEPART));
        times.push(end_of(a));
    }
    // Two events of one node in one microsecond ("generation 10.0.0.3", "generation 10.0.0.4")
    // were written on one spot, the second hiding the first: each gets its own row.
    let event_rows: Vec<(Micros, u8)> = d
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let k = d.events[..i]
                .iter()
                .filter(|o| o.node == e.node && o.time == e.time)
                .count();
            (e.time, EVENT + k.min((DEPART - EVENT - 1) as usize) as u8)
        })
        .collect();
    times.extend(event_rows.iter().copied());
    clusterscope_core::small_sort::sort_by(&mut times, |a, b| a.cmp(b));
    times.dedup();
    let now = m.now();
    let past = times.partition_point(|x| x.0 <= now);
    let rows = times.len().max(1) + 1;
    let row_h = (330.0 / rows as f64).clamp(11.0, 24.0);
    let height = HEAD + row_h * (rows as f64 + 0.5) + 8.0;
    let row_of = |x: (Micros, u8)| -> f64 {
        let i = times.partition_point(|y| *y < x);
        // Future rows sit below the cursor line.
        let i = if i >= past { i + 1 } else { i };
        HEAD + row_h * (i as f64 + 0.8)
    };
    let cursor_y = HEAD + row_h * (past as f64 + 0.8);
    let cols = nodes.len().max(1) as f64;
    let col_w = (W - GUTTER) / cols;
    let x_of = |n: NodeId| -> f64 {
        let i = nodes.iter().position(|x| *x == n).unwrap_or(0);
        GUTTER + col_w * (i as f64 + 0.5)
    };

    let lifelines = nodes.iter().map(|n| {
        let x = x_of(*n);
        html! {
            <g>
                <text x={x.to_string()} y="16" class="sq-head" text-anchor="middle">{ topo.name(*n) }</text>
                <line x1={x.to_string()} y1={HEAD.to_string()} x2={x.to_string()} y2={(height - 4.0).to_string()} class="sq-life" />
            </g>
        }
    });
    let time_labels = {
        let every = ((12.0 / row_h).ceil() as usize).max(1);
        let mut last_label = String::new();
        times
            .iter()
            .enumerate()
            .filter(|(i, _)| i % every == 0)
            .filter_map(|(_, x)| {
                let label = t(x.0);
                if label == last_label {
                    return None;
                }
                last_label = label.clone();
                Some(html! {
                    <text x="4" y={(row_of(*x) + 3.0).to_string()} class="sq-time">{ label }</text>
                })
            })
            .collect::<Vec<_>>()
    };
    let sel = m.selected_msg;
    // Where each arrow ends (the same geometry the arrows below draw), then label places that
    // never overprint (MUTATION_RSP / TCP_ACK / ECHO_RSP between the same rows in 15138).
    let ends: Vec<LabelArrow> = d
        .arrows
        .iter()
        .map(|a| {
            let (x1, y1) = (x_of(a.from), row_of((a.sent_at, DEPART)));
            let y2 = row_of(end_of(a));
            let x2 = match &a.fate {
                Fate::Delivered(_) | Fate::InFlight(_) => x_of(a.to),
                Fate::Dropped(tt, _) => {
                    let xe = x_of(a.to);
                    let frac = if *tt == a.sent_at { 0.3 } else { 0.8 };
                    x1 + (xe - x1) * frac
                }
            };
            (
                (x1, y1),
                (x2, y2),
                seq::label_width(a.label.chars().count()),
            )
        })
        .collect();
    // The nodes' events are written right of their dots; arrow labels keep off them.
    let event_text = |e: &seq::Event| match e.peer {
        Some(q) => format!("{} {}", e.label, topo.name(q)),
        None => e.label.to_string(),
    };
    let event_texts: Vec<String> = d.events.iter().map(event_text).collect();
    let event_boxes: Vec<TextBox> = d
        .events
        .iter()
        .zip(&event_rows)
        .zip(&event_texts)
        .map(|((e, row), text)| TextBox {
            x: x_of(e.node) + EVENT_TEXT_DX,
            y: row_of(*row) + EVENT_TEXT_DY,
            w: seq::label_width(text.chars().count()),
            h: seq::LABEL_H,
        })
        .collect();
    let label_at = place_along(&ends, seq::LABEL_H, &event_boxes);
    let arrows = d.arrows.iter().zip(&ends).zip(label_at).map(|((a, end), label_at)| {
        // The geometry the labels were placed against.
        let ((x1, y1), (x2, y2), _) = *end;
        let color = msg_color(m.run.engine.msg_kinds(), a.label);
        let s2 = s.clone();
        let id = a.msg;
        let onclick = Callback::from(move |_| s2.dispatch(Msg::SelectMsg(Some(id))));
        let chosen = sel == Some(a.msg);
        let width = if chosen { "3.5" } else { "1.6" };
        let (dashed, dropped, title) = match &a.fate {
            Fate::Delivered(tt) => (false, false, format!("{} {}→{} delivered at {}", a.label, topo.name(a.from), topo.name(a.to), t(*tt))),
            Fate::Dropped(tt, r) => (false, true, format!("{} {}→{} dropped ({}) at {}", a.label, topo.name(a.from), topo.name(a.to), r.as_str(), t(*tt))),
            Fate::InFlight(tt) => (true, false, format!("{} {}→{} in flight, due {}", a.label, topo.name(a.from), topo.name(a.to), t(*tt))),
        };
        // Arrowhead.
        let (dx, dy) = (x2 - x1, y2 - y1);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        let head = format!(
            "{},{} {},{} {},{}",
            x2, y2,
            x2 - ux * 8.0 - uy * 4.0, y2 - uy * 8.0 + ux * 4.0,
            x2 - ux * 8.0 + uy * 4.0, y2 - uy * 8.0 - ux * 4.0
        );
        html! {
            <g class={classes!("sq-msg", chosen.then_some("chosen"))} data-msg={a.msg.to_string()} data-label={a.label} data-dropped={dropped.to_string()} {onclick}>
                <title>{ title }</title>
                <line x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} class="sq-hit" />
                <line x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()}
                    stroke={color} stroke-width={width} stroke-dasharray={if dashed { "5 4" } else { "none" }} />
                {
                    if dropped {
                        html! { <g class="sq-x">
                            <line x1={(x2 - 5.0).to_string()} y1={(y2 - 5.0).to_string()} x2={(x2 + 5.0).to_string()} y2={(y2 + 5.0).to_string()} />
                            <line x1={(x2 - 5.0).to_string()} y1={(y2 + 5.0).to_string()} x2={(x2 + 5.0).to_string()} y2={(y2 - 5.0).to_string()} />
                        </g> }
                    } else {
                        html! { <polygon points={head} fill={color} /> }
                    }
                }
                { crate::kit::slot(label_at.map(|(x, y)| html! {
                    <text x={x.to_string()} y={y.to_string()} class="sq-label" text-anchor="middle" fill={color}>{ a.label }</text>
                })) }
            </g>
        }
    });
    let events = d
        .events
        .iter()
        .zip(&event_rows)
        .zip(event_texts)
        .map(|((e, row), text)| {
            let (x, y) = (x_of(e.node), row_of(*row));
            html! {
                <g class={classes!("sq-ev", if e.bad { "bad" } else { "good" })}>
                    <circle cx={x.to_string()} cy={y.to_string()} r="4" />
                    <text x={(x + EVENT_TEXT_DX).to_string()} y={(y + EVENT_TEXT_DY).to_string()}>{ text }</text>
                </g>
            }
        });
    let body = sel.map(|id| {
        let text = trace
            .body(id)
            .map(str::to_string)
            .unwrap_or_else(|| "(the body of this message was not kept: the trace's body budget was used up)".into());
        let s2 = s.clone();
        let close = Callback::from(move |_| s2.dispatch(Msg::SelectMsg(None)));
        // Forks: "what if this message had arrived / been lost / come later?"
        use clusterscope_core::engine::action::{Dur, MsgFate};
        let dropped = d
            .arrows
            .iter()
            .any(|a| a.msg == id && matches!(a.fate, Fate::Dropped(..)));
        let fork = |label: &'static str, key: &'static str, fate: MsgFate, tip: &'static str| {
            let s2 = s.clone();
            let onclick = Callback::from(move |_| s2.dispatch(Msg::Fork { msg: id, fate }));
            html! { <button class="btn small-btn" id={format!("fork-{key}")} title={tip} {onclick}>{ label }</button> }
        };
        let forks = if dropped {
            html! { { fork("Fork: deliver it", "deliver", MsgFate::Deliver,
                "Replay from where it was sent, with this message delivered although its link drops it") } }
        } else {
            html! { <>
                { fork("Fork: drop it", "drop", MsgFate::Drop, "Replay from where it was sent, with this message lost") }
                { fork("Fork: +100 ms", "delay", MsgFate::Delay { by: Dur(100_000) }, "Replay from where it was sent, with this message 100 ms later") }
            </> }
        };
        html! {
            <div class="msg-body" id="msg-body" data-msg={id.to_string()} data-dropped={dropped.to_string()}>
                <div class="panel-head"><h4>{ format!("Message #{id}") }</h4>
                    <button class="btn icon ghost" onclick={close} aria-label="Close">{ "×" }</button></div>
                <pre>{ text }</pre>
                <div class="fork-row">{ forks }</div>
            </div>
        }
    });
    // "Next message of a kind" (teachers: jump to the next ECHO_REQ, the next AppendEntries...).
    let kinds = m.run.engine.msg_kinds();
    let next_kind = (*chosen_kind).or_else(|| kinds.first().map(|k| k.label));
    let on_kind = {
        let chosen_kind = chosen_kind.clone();
        Callback::from(move |e: Event| {
            let el = e.target_unchecked_into::<HtmlSelectElement>();
            let v = el.value();
            chosen_kind.set(kinds.iter().find(|k| k.label == v).map(|k| k.label));
        })
    };
    let next_msg = next_kind.map(|l| {
        let s2 = s.clone();
        let onclick = Callback::from(move |_| s2.dispatch(Msg::Next(NavKind::Message(l))));
        html! { <span class="next-kind">
            <select id="next-kind" onchange={on_kind} aria-label="Message kind to jump to">
                <>{ for kinds.iter().map(|k| html!{ <option value={k.label} selected={Some(k.label) == next_kind}>{ k.label }</option> }) }</>
            </select>
            <button id="next-msg" class="btn ghost small-btn" {onclick} title="Jump to the next message of this kind (sent or lost)">{ "next ▸" }</button>
        </span> }
    });
    let chips = nodes.iter().map(|n| {
        let s2 = s.clone();
        let id = *n;
        let onclick = Callback::from(move |_| s2.dispatch(Msg::ToggleSeqNode(id)));
        html! { <button class="chip removable" {onclick} title="Remove from the diagram">{ topo.name(*n) }{ " ×" }</button> }
    });
    let on_add = {
        let s2 = s.clone();
        Callback::from(move |e: Event| {
            let el = e.target_unchecked_into::<HtmlSelectElement>();
            if let Ok(id) = el.value().parse::<NodeId>() {
                s2.dispatch(Msg::ToggleSeqNode(id));
            }
            el.set_value("");
        })
    };
    let addable = (0..topo.len())
        .filter(|q| !nodes.contains(q))
        .take(512)
        .map(|q| html! { <option value={q.to_string()}>{ topo.name(q) }</option> });
    html! {
        <section class="card seq-card" aria-label="Sequence diagram">
            <div class="card-head">
                <h2>{ "Sequence" }</h2>
                { super::compare::side_label(&m) }
                { crate::kit::slot(next_msg) }
                { crate::kit::slot((topo.len() > 8 && m.selected.is_some() && !d.arrows.is_empty()).then(|| {
                    let s2 = s.clone();
                    let onclick = Callback::from(move |_| s2.dispatch(Msg::SeqRecentPartners));
                    html! { <button class="btn ghost small-btn" {onclick} title="The selected node and the peers it last exchanged messages with">{ "recent partners" }</button> }
                })) }
                <div class="chips"><>{ for chips }</>
                    {
                        if nodes.len() < MAX_SEQ_NODES && nodes.len() < topo.len() as usize {
                            html! { <select class="add" onchange={on_add} aria-label="Add a node to the diagram">
                                <option value="" selected=true>{ "+ node" }</option><>{ for addable }</></select> }
                        } else { html!{} }
                    }
                </div>
            </div>
            {
                if nodes.len() < 2 {
                    html! { <p class="muted">{ "Choose at least two nodes (shift+click in the topology)." }</p> }
                } else if d.arrows.is_empty() {
                    html! { <p class="muted">
                        { "No messages among these nodes just before the cursor. " }
                        <>{ for m.selected.map(|sel| {
                            let s2 = s.clone();
                            let onclick = Callback::from(move |_| s2.dispatch(Msg::SeqRecentPartners));
                            html! { <button id="seq-partners" class="btn" {onclick}>{ format!("Show {} and its recent partners", topo.name(sel)) }</button> }
                        }) }</>
                    </p> }
                } else {
                    html! {
                        <div class="seq-scroll"><svg id="sequence" class="seq" viewBox={format!("0 0 {W} {height:.0}")} preserveAspectRatio="xMidYMin meet"
                            role="img" aria-label="Messages among the chosen nodes up to the cursor">
                            <>{ for lifelines }</>
                            <>{ for time_labels }</>
                            // The cursor's time in the gutter, on its own row: at the right end it was
                            // written over the labels and events near it.
                            <line x1={(GUTTER - 6.0).to_string()} y1={cursor_y.to_string()} x2={W.to_string()} y2={cursor_y.to_string()} class="sq-cursor" />
                            <text x="4" y={(cursor_y + 3.5).to_string()} class="sq-cursor-label"><title>{ format!("cursor {}", t(now)) }</title>{ t(now) }</text>
                            <>{ for events }</>
                            <>{ for arrows }</>
                        </svg></div>
                    }
                }
            }
            <>{ for body }</>
        </section>
    }
}
