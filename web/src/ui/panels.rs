//! Action panels: what a person can do to the selected node or link. Every button dispatches one
//! `Msg::UserAction`; the engine validates it and the reducer reports a refusal in the banner.

use crate::model::Msg;
use clusterscope_core::engine::action::{Action, Dur};
use clusterscope_core::engine::network::Link;
use clusterscope_core::engine::{NodeId, NodeStatus};
use clusterscope_core::time::{fmt_duration, US_PER_MS};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::kit::Handle;

#[derive(Properties, Clone, PartialEq)]
pub struct NodePanelProps {
    pub s: Handle,
    pub dark: bool,
    pub id: NodeId,
}

fn act(s: &Handle, a: Action) -> Callback<MouseEvent> {
    let s = s.clone();
    Callback::from(move |_| s.dispatch(Msg::UserAction(a.clone())))
}

fn text_input(state: &UseStateHandle<String>) -> Callback<InputEvent> {
    let st = state.clone();
    Callback::from(move |e: InputEvent| {
        st.set(e.target_unchecked_into::<HtmlInputElement>().value())
    })
}

/// Parse a non-negative number of milliseconds typed by a person.
fn parse_ms(text: &str, what: &str) -> Result<u64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{what}: \"{text}\" is not a number of milliseconds"))?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!("{what}: {v} must be 0 or more milliseconds"));
    }
    Ok((v * US_PER_MS as f64).round() as u64)
}

/// A cut's "for ... ms" field: empty, the cut lasts until a heal (`None`).
fn parse_cut_for(text: &str, what: &str) -> Result<Option<Dur>, String> {
    if text.trim().is_empty() {
        Ok(None)
    } else {
        parse_ms(text, what).map(|us| Some(Dur(us)))
    }
}

/// Ids of the panel's own buttons, which a model's command must not take.
const PANEL_BUTTONS: &[&str] = &[
    "restart",
    "restart-kill",
    "stop",
    "kill",
    "start",
    "stall",
    "delay",
    "release",
    "isolate",
    "heal-all",
];

/// `act-<first word>` for a model's command button (`#act-disablegossip`, `#act-client-put`);
/// `act-cmd-<first word>` where that word names one of the panel's own buttons (mutation
/// tracking's `release MUTATION_REQ` beside the thread's Release).
pub fn command_button_id(command: &str) -> String {
    let key = command.split_whitespace().next().unwrap_or("cmd");
    if PANEL_BUTTONS.contains(&key) {
        format!("act-cmd-{key}")
    } else {
        format!("act-{key}")
    }
}

#[function_component(NodePanel)]
pub fn node_panel(p: &NodePanelProps) -> Html {
    let s = &p.s;
    let down_for = use_state(|| "5000".to_string());
    let delay = use_state(|| "500".to_string());
    // An isolation's `down_for` in ms: empty, until a heal.
    let isolate_for = use_state(String::new);
    let exec_pick = use_state(|| 0usize);
    let m = s.model.borrow();
    let id = p.id;
    let name = m.name(id).to_string();
    let e = &*m.run.engine;
    let status = e.status(id);
    let running = status == NodeStatus::Running;
    let stopped = status == NodeStatus::Stopped;
    let execs = e.executors();
    let stats = e.exec_stats(id);
    let xi = (*exec_pick).min(execs.len().saturating_sub(1));
    let exec_name = execs.get(xi).copied().unwrap_or("");
    let stage = stats.get(xi).cloned().unwrap_or_default();
    let badge = e.node_badge(id);
    let stalled_pills: Vec<Html> = execs
        .iter()
        .zip(stats)
        .filter(|(_, st)| st.stalled || st.delay_us > 0)
        .map(|(x, st)| {
            let what = if st.stalled { "stalled" } else { "delayed" };
            html! { <span class="pill stopping">{ format!("{x} {what}") }</span> }
        })
        .collect();

    let restart = |kill: bool| {
        let s = s.clone();
        let node = name.clone();
        let down = (*down_for).clone();
        Callback::from(move |_| match parse_ms(&down, "down for") {
            Ok(us) => s.dispatch(Msg::UserAction(Action::Restart {
                node: node.clone(),
                kill,
                down_for: Some(Dur(us)),
            })),
            Err(e) => s.dispatch(Msg::ShowError(e)),
        })
    };
    let on_delay = {
        let s = s.clone();
        let node = name.clone();
        let d = (*delay).clone();
        Callback::from(move |_| match parse_ms(&d, "delay") {
            Ok(us) => s.dispatch(Msg::UserAction(Action::Delay {
                node: node.clone(),
                executor: exec_name.into(),
                extra: Dur(us),
            })),
            Err(e) => s.dispatch(Msg::ShowError(e)),
        })
    };
    // Cut this node off from every other: a partition of it alone against the rest, timed
    // when "for" holds a duration.
    // The other nodes' names are read at the click, not at every render of the panel (250 of
    // them at 251 nodes).
    let on_isolate = {
        let s = s.clone();
        let (node, text) = (name.clone(), (*isolate_for).clone());
        Callback::from(move |_| {
            let down_for = match parse_cut_for(&text, "isolate for") {
                Ok(d) => d,
                Err(e) => return s.dispatch(Msg::ShowError(e)),
            };
            let others: Vec<String> = {
                let m = s.model.borrow();
                (0..m.n() as NodeId)
                    .filter(|q| *q != id)
                    .map(|q| m.name(q).to_string())
                    .collect()
            };
            s.dispatch(Msg::UserAction(Action::Partition {
                groups: vec![vec![node.clone()], others],
                down_for,
            }));
        })
    };
    let cmd = |c: &str| {
        act(
            s,
            Action::Command {
                node: name.clone(),
                command: c.into(),
            },
        )
    };
    let on_exec = {
        let exec_pick = exec_pick.clone();
        Callback::from(move |ev: Event| {
            let v = ev.target_unchecked_into::<HtmlSelectElement>().value();
            if let Ok(i) = v.parse::<usize>() {
                exec_pick.set(i);
            }
        })
    };
    // The model's commands (gossip: nodetool disablegossip, ...), one button each; the engine
    // refuses one that does not apply now and the banner says why.
    let commands: Vec<Html> = e
        .commands()
        .iter()
        .map(|c| {
            html! {
                <button id={command_button_id(c.command)} class="btn" disabled={!running} onclick={cmd(c.command)} title={c.help}>{ c.label }</button>
            }
        })
        .collect();
    let on_link = {
        let s = s.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Ok(peer) = v.parse::<NodeId>() {
                s.dispatch(Msg::SelectLink(Some((id, peer))));
            }
        })
    };
    let peers = (0..m.n() as NodeId)
        .filter(|q| *q != id)
        .take(512)
        .map(|q| {
            html! { <option value={q.to_string()}>{ format!("{name} ↔ {}", m.name(q)) }</option> }
        });
    html! {
        <div class="panel" id="node-panel" data-node={name.clone()}>
            <div class="panel-head">
                <h3>{ format!("Node {name}") }</h3>
                <span class={classes!("pill", status.as_str())}>{ status.as_str() }</span>
                { crate::kit::slot((!badge.is_empty() && !stopped).then(|| html!{ <span class="pill">{ badge.clone() }</span> })) }
                <>{ for stalled_pills }</>
                <span class="muted small">{ format!("DC {}", e.topo().dcs[id as usize]) }</span>
            </div>
            <div class="actions">
                <div class="group">
                    <span class="glabel">{ "process" }</span>
                    <button id="act-restart" class="btn" disabled={!running} onclick={restart(false)} title="Graceful: announce shutdown, stop, start again after the pause">{ "Restart" }</button>
                    <button id="act-restart-kill" class="btn" disabled={!running} onclick={restart(true)} title="kill -9, start again after the pause">{ "Restart -9" }</button>
                    <label class="mini" title="How long the node stays down on restart">
                        { "down" }
                        <input type="text" inputmode="decimal" value={(*down_for).clone()} oninput={text_input(&down_for)} aria-label="down for (ms)" />
                        { "ms" }
                    </label>
                    <button id="act-stop" class="btn" disabled={!running} onclick={act(s, Action::Stop { node: name.clone() })}>{ "Stop" }</button>
                    <button id="act-kill" class="btn" disabled={stopped} onclick={act(s, Action::Kill { node: name.clone() })}>{ "Kill -9" }</button>
                    <button id="act-start" class="btn" disabled={!stopped} onclick={act(s, Action::Start { node: name.clone() })}>{ "Start" }</button>
                </div>
                { crate::kit::slot((!commands.is_empty()).then(|| html! {
                    <div class="group">
                        <span class="glabel">{ "commands" }</span>
                        <>{ for commands }</>
                    </div>
                })) }
                { crate::kit::slot((!execs.is_empty()).then(|| html! {
                <div class="group">
                    { if execs.len() == 1 {
                        html! { <span class="glabel">{ exec_name }</span> }
                    } else {
                        html! {
                            <select id="exec-select" onchange={on_exec} aria-label="Thread to act on">
                                <>{ for execs.iter().enumerate().map(|(i, x)| html! { <option value={i.to_string()} selected={i == xi}>{ *x }</option> }) }</>
                            </select>
                        }
                    } }
                    <button id="act-stall" class="btn" disabled={stage.stalled} onclick={act(s, Action::Stall { node: name.clone(), executor: exec_name.into() })}>{ "Stall" }</button>
                    <button id="act-delay" class="btn" onclick={on_delay}>{ "Delay" }</button>
                    <label class="mini">
                        { "+" }
                        <input type="text" inputmode="decimal" value={(*delay).clone()} oninput={text_input(&delay)} aria-label="delay per task (ms)" />
                        { "ms/task" }
                    </label>
                    <button id="act-release" class="btn" disabled={!stage.stalled && stage.delay_us == 0} onclick={act(s, Action::Release { node: name.clone(), executor: exec_name.into() })}>{ "Release" }</button>
                </div>
                })) }
                <div class="group">
                    <span class="glabel">{ "links" }</span>
                    <select id="link-select" onchange={on_link} aria-label="Select a link of this node">
                        <option value="" selected=true>{ "Select a link…" }</option>
                        <>{ for peers }</>
                    </select>
                    <button id="act-isolate" class="btn" disabled={m.n() < 2} onclick={on_isolate} title="Partition this node from every other (its links both ways down); with a duration the links come back by themselves">{ "Isolate" }</button>
                    <label class="mini" title="A timed isolation: the links come back up by themselves after this long (down_for); empty: until a heal">
                        { "for" }
                        <input id="isolate-for" type="text" inputmode="decimal" placeholder="∞" value={(*isolate_for).clone()} oninput={text_input(&isolate_for)} aria-label="isolate for (ms; empty: until a heal)" />
                        { "ms" }
                    </label>
                    <button id="act-heal-all" class="btn" onclick={act(s, Action::HealAll {})} title="Every link of the cluster back to the scenario's default (ends every cut, loss and latency)">{ "Heal all" }</button>
                </div>
            </div>
        </div>
    }
}

#[derive(Properties, Clone, PartialEq)]
pub struct LinkPanelProps {
    pub s: Handle,
    pub dark: bool,
    pub a: NodeId,
    pub b: NodeId,
}

fn describe_link(l: &Link) -> String {
    let lat = if l.latency_min_us == l.latency_max_us {
        fmt_duration(l.latency_min_us)
    } else {
        format!(
            "{}–{}",
            fmt_duration(l.latency_min_us),
            fmt_duration(l.latency_max_us)
        )
    };
    if !l.up {
        "down".into()
    } else if l.loss > 0.0 {
        format!("loss {:.1}% · {lat}", l.loss * 100.0)
    } else {
        format!("up · {lat}")
    }
}

#[function_component(LinkPanel)]
pub fn link_panel(p: &LinkPanelProps) -> Html {
    let s = &p.s;
    let loss = use_state(|| "20".to_string());
    let lat_min = use_state(|| "50".to_string());
    let lat_max = use_state(|| "200".to_string());
    let dir = use_state(|| "both".to_string());
    // A drop's `down_for` in ms: empty, the cut lasts until a heal.
    let cut_for = use_state(String::new);
    let m = s.model.borrow();
    let (a, b) = (m.name(p.a).to_string(), m.name(p.b).to_string());
    let net = &m.run.engine.net();
    let (ab, ba) = (net.link(p.a, p.b), net.link(p.b, p.a));

    let heal = |from: &str, to: &str, one_way: bool| -> Action {
        let (from, to) = (from.to_string(), to.to_string());
        Action::HealLink { from, to, one_way }
    };
    // A drop, timed when "for" holds a duration (the link comes back by itself then).
    let drop = |from: &str, to: &str, one_way: bool| -> Callback<MouseEvent> {
        let (s, from, to, text) = (
            s.clone(),
            from.to_string(),
            to.to_string(),
            (*cut_for).clone(),
        );
        Callback::from(move |_| {
            let down_for = match parse_cut_for(&text, "drop for") {
                Ok(d) => d,
                Err(e) => return s.dispatch(Msg::ShowError(e)),
            };
            s.dispatch(Msg::UserAction(Action::DropLink {
                from: from.clone(),
                to: to.clone(),
                one_way,
                down_for,
            }));
        })
    };
    // The chosen direction as (from, to, one_way).
    let direction = {
        let (a, b) = (a.clone(), b.clone());
        move |d: &str| -> (String, String, bool) {
            match d {
                "ab" => (a.clone(), b.clone(), true),
                "ba" => (b.clone(), a.clone(), true),
                _ => (a.clone(), b.clone(), false),
            }
        }
    };
    let on_loss = {
        let s = s.clone();
        let text = (*loss).clone();
        let d = (*dir).clone();
        let direction = direction.clone();
        Callback::from(move |_| {
            let pct: f64 = match text.trim().trim_end_matches('%').parse() {
                Ok(v) if (0.0..=100.0).contains(&v) => v,
                _ => {
                    s.dispatch(Msg::ShowError(format!(
                        "loss: \"{text}\" must be a percentage between 0 and 100"
                    )));
                    return;
                }
            };
            let (from, to, one_way) = direction(&d);
            s.dispatch(Msg::UserAction(Action::SetLoss {
                from,
                to,
                loss: pct / 100.0,
                one_way,
            }));
        })
    };
    let on_latency = {
        let s = s.clone();
        let (lo, hi) = ((*lat_min).clone(), (*lat_max).clone());
        let d = (*dir).clone();
        Callback::from(move |_| {
            let r = parse_ms(&lo, "latency min").and_then(|x| {
                parse_ms(&hi, "latency max").and_then(|y| {
                    if x <= y {
                        Ok((x, y))
                    } else {
                        Err("latency: min must be at most max".to_string())
                    }
                })
            });
            match r {
                Ok((x, y)) => {
                    let (from, to, one_way) = direction(&d);
                    s.dispatch(Msg::UserAction(Action::SetLatency {
                        from,
                        to,
                        min: Dur(x),
                        max: Dur(y),
                        one_way,
                    }));
                }
                Err(e) => s.dispatch(Msg::ShowError(e)),
            }
        })
    };
    let on_dir = {
        let dir = dir.clone();
        Callback::from(move |e: Event| {
            dir.set(e.target_unchecked_into::<HtmlSelectElement>().value())
        })
    };
    let close = {
        let s = s.clone();
        Callback::from(move |_| s.dispatch(Msg::SelectLink(None)))
    };
    html! {
        <div class="panel" id="link-panel" data-link={format!("{a}-{b}")}
            data-ab={ab.condition()} data-ba={ba.condition()}>
            <div class="panel-head">
                <h3>{ format!("Link {a} ↔ {b}") }</h3>
                <span class="muted small" id="link-state">
                    { format!("{a}→{b}: {}  ·  {b}→{a}: {}", describe_link(ab), describe_link(ba)) }
                </span>
                <button class="btn icon ghost" onclick={close} aria-label="Close the link panel" title="Back to the node">{ "×" }</button>
            </div>
            <div class="actions">
                <div class="group">
                    <span class="glabel">{ "drop" }</span>
                    <button id="link-drop-both" class="btn danger" onclick={drop(&a, &b, false)}>{ "Drop both ways" }</button>
                    <button id="link-drop-ab" class="btn" onclick={drop(&a, &b, true)}>{ format!("Drop {a}→{b}") }</button>
                    <button id="link-drop-ba" class="btn" onclick={drop(&b, &a, true)}>{ format!("Drop {b}→{a}") }</button>
                    <label class="mini" title="A timed cut: the link comes back up by itself after this long (down_for); empty: until a heal">
                        { "for" }
                        <input id="link-cut-for" type="text" inputmode="decimal" placeholder="∞" value={(*cut_for).clone()} oninput={text_input(&cut_for)} aria-label="drop for (ms; empty: until a heal)" />
                        { "ms" }
                    </label>
                </div>
                <div class="group">
                    <span class="glabel">{ "heal" }</span>
                    <button id="link-heal-both" class="btn" onclick={act(s, heal(&a, &b, false))}>{ "Heal both ways" }</button>
                    <button id="link-heal-ab" class="btn" onclick={act(s, heal(&a, &b, true))}>{ format!("Heal {a}→{b}") }</button>
                    <button id="link-heal-ba" class="btn" onclick={act(s, heal(&b, &a, true))}>{ format!("Heal {b}→{a}") }</button>
                </div>
                <div class="group">
                    <span class="glabel">{ "shape" }</span>
                    <select onchange={on_dir} aria-label="Direction">
                        <option value="both" selected={*dir == "both"}>{ "both ways" }</option>
                        <option value="ab" selected={*dir == "ab"}>{ format!("{a}→{b}") }</option>
                        <option value="ba" selected={*dir == "ba"}>{ format!("{b}→{a}") }</option>
                    </select>
                    <label class="mini">
                        { "loss" }
                        <input id="link-loss" type="text" inputmode="decimal" value={(*loss).clone()} oninput={text_input(&loss)} aria-label="loss percent" />
                        { "%" }
                    </label>
                    <button id="link-set-loss" class="btn" onclick={on_loss}>{ "Set loss" }</button>
                    <label class="mini">
                        { "latency" }
                        <input type="text" inputmode="decimal" value={(*lat_min).clone()} oninput={text_input(&lat_min)} aria-label="latency min (ms)" />
                        { "–" }
                        <input type="text" inputmode="decimal" value={(*lat_max).clone()} oninput={text_input(&lat_max)} aria-label="latency max (ms)" />
                        { "ms" }
                    </label>
                    <button id="link-set-latency" class="btn" onclick={on_latency}>{ "Set latency" }</button>
                </div>
            </div>
        </div>
    }
}
