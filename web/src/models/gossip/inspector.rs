//! The selected node's insides: its endpoint state map (what the last move changed is
//! highlighted), the inflightEcho map (stuck entries marked), phi per peer, the GossipStage queue
//! and the echo counters.

use crate::kit::{age, PanelProps};
use clusterscope_core::engine::{NodeId, NodeStatus};
use clusterscope_core::gossip::fd::PHI_FACTOR;
use clusterscope_core::gossip::params::MessagingVersion;
use clusterscope_core::gossip::state::EndpointState;
use clusterscope_core::gossip::view;
use clusterscope_core::gossip::{Gossip, GOSSIP_STAGE};
use clusterscope_core::small_sort::{sort_by, sort_by_key};
use yew::prelude::*;

/// What changed in one endpoint's row since the previous cursor position.
#[derive(Default)]
struct Changed {
    row_new: bool,
    generation: bool,
    heartbeat: bool,
    liveness: bool,
    keys: Vec<String>,
}

fn diff(prev: Option<&Option<EndpointState>>, cur: &EndpointState) -> Changed {
    let Some(prev) = prev else {
        return Changed::default();
    };
    let Some(p) = prev else {
        return Changed {
            row_new: true,
            ..Default::default()
        };
    };
    Changed {
        row_new: false,
        generation: p.hb.generation != cur.hb.generation,
        heartbeat: p.hb.version != cur.hb.version,
        liveness: p.alive != cur.alive,
        keys: cur
            .states
            .iter()
            .filter(|s| {
                p.get(&s.key)
                    .is_none_or(|q| q.version != s.version || q.value != s.value)
            })
            .map(|s| s.key.to_string())
            .collect(),
    }
}

/// Long values (host ids, token lists) are cut in the table; the tooltip has them whole.
fn short_value(v: &str) -> String {
    if v.chars().count() <= 14 {
        v.to_string()
    } else {
        let head: String = v.chars().take(11).collect();
        format!("{head}…")
    }
}

/// Most endpoint rows rendered at once (large clusters: DOWN and changed peers first).
const MAX_ROWS: usize = 48;
/// Most phi rows rendered at once (the highest first in large clusters).
const MAX_PHI: usize = 24;
/// Above this size the inspector prioritises and caps rows.
const LARGE: usize = 40;

#[function_component(GossipInspector)]
pub fn gossip_inspector(p: &PanelProps) -> Html {
    let filter = use_state(String::new);
    let all_states = use_state(|| false);
    let m = p.m().borrow();
    let Some(id) = m.selected else {
        return html! {
            <section class="card insp-card" aria-label="Inspector">
                <div class="card-head"><h2>{ "Inspector" }</h2></div>
                <p class="muted">{ "Select a node in the topology or the matrix." }</p>
            </section>
        };
    };
    let Some(sim) = m.run.sim_of::<Gossip>() else {
        return html! {};
    };
    let topo = &m.run.scenario.topo;
    let slot = &sim.nodes[id as usize];
    let g = &slot.state;
    // Not `view::node_view`: it builds maps of every endpoint and phi (strings for 251 peers),
    // and the inspector renders every animation frame while playing.
    let stage_stats = &slot.exec_stats[GOSSIP_STAGE as usize];
    let prev = m
        .prev_node
        .as_ref()
        .filter(|(pid, _)| *pid == id)
        .and_then(|(_, snap)| snap.downcast_ref::<Vec<Option<EndpointState>>>());
    let stopped = slot.status == NodeStatus::Stopped;

    let n = topo.names.len();
    let map = g.states();
    // ASCII case folding (`str::to_lowercase` would bring std's Unicode case tables into the
    // first download, issue 44).
    let needle = filter.trim().to_ascii_lowercase();
    // Which endpoints to show, in order: all for small clusters; for large ones self, then DOWN
    // peers, then rows the last move changed, then the rest, capped.
    let mut order: Vec<NodeId> = (0..n as NodeId)
        .filter(|ep| map[*ep as usize].is_some())
        .filter(|ep| needle.is_empty() || topo.name(*ep).to_ascii_lowercase().contains(&needle))
        .collect();
    let total_rows = order.len();
    if n > LARGE {
        let rank = |ep: NodeId| -> u8 {
            let st = map[ep as usize].as_ref().expect("filtered");
            let changed = prev.is_some_and(|pm| {
                pm[ep as usize]
                    .as_ref()
                    .is_none_or(|q| q.hb != st.hb || q.alive != st.alive)
            });
            if ep == id {
                0
            } else if !st.alive {
                1
            } else if changed {
                2
            } else {
                3
            }
        };
        sort_by_key(&mut order, |ep| (rank(*ep), *ep));
        order.truncate(MAX_ROWS);
    }
    let shown_rows = order.len();
    let compact = !*all_states;
    let rows = order.iter().map(|ep| (*ep as usize, &map[*ep as usize])).filter_map(|(ep, st)| {
        let st = st.as_ref()?;
        let ep = ep as NodeId;
        let name = topo.name(ep);
        let live = view::liveness_word(ep == id || st.alive);
        let ch = diff(prev.map(|pm| &pm[ep as usize]), st);
        let stuck = view::inflight_stuck(g, ep);
        let hidden = if compact {
            st.states
                .iter()
                .filter(|a| &*a.key != "STATUS" && !ch.keys.iter().any(|k| **k == *a.key))
                .count()
        } else {
            0
        };
        let states = st.states.iter().filter(|a| {
            !compact || &*a.key == "STATUS" || ch.keys.iter().any(|k| **k == *a.key)
        }).map(|a| {
            let hot = ch.keys.iter().any(|k| **k == *a.key);
            html! {
                <span class={classes!("as", hot.then_some("hot"))} title={format!("{} = {} (version {})", a.key, a.value, a.version)}>
                    <b>{ a.key.to_string() }</b>{ format!(" {}", short_value(&a.value)) }<sup>{ a.version }</sup>
                </span>
            }
        });
        Some(html! {
            <tr data-peer={name.to_string()} data-liveness={live} data-generation={st.hb.generation.to_string()}
                data-heartbeat={st.hb.version.to_string()}
                class={classes!(ch.row_new.then_some("hot"), (ep == id).then_some("self"))}>
                <td class="ep">{ format!("/{name}") }<>{ for (ep == id).then(|| html!{ <span class="muted"> { " (self)" }</span> }) }</></td>
                <td class={classes!("live", if live == "UP" { "up" } else { "down" }, ch.liveness.then_some("hot"))}>
                    { live }<>{ for stuck.then(|| html!{ <span class="stuck-tag" title="inflightEcho entry is stuck: no echo will be sent for this generation">{ " ⚠" }</span> }) }</>
                </td>
                <td class={classes!("num", ch.generation.then_some("hot"))}>{ st.hb.generation }</td>
                <td class={classes!("num", ch.heartbeat.then_some("hot"))}>{ st.hb.version }</td>
                <td class="states"><>{ for states }</><>{ for (hidden > 0).then(|| html!{ <span class="as more" title="Tick 'all app states' to see them">{ format!("+{hidden}") }</span> }) }</></td>
            </tr>
        })
    });

    let inflight = g.inflight.iter().map(|(peer, e)| {
        let stuck = view::inflight_stuck(g, *peer);
        let name = topo.name(*peer).to_string();
        html! {
            <tr data-peer={name.clone()} data-stuck={stuck.to_string()} class={classes!(stuck.then_some("stuck"))}>
                <td>{ format!("/{name}") }</td>
                <td class="num">{ e.generation }</td>
                <td class="num">{ age(sim.now.saturating_sub(e.sent_at)) }</td>
                <td title={if stuck { "The entry holds the current EndpointState object and the peer is not alive: every markAlive skips, no echo will be sent for this generation." } else { "An ECHO_REQ is outstanding." }}>
                    { if stuck { "stuck" } else { "in flight" } }
                </td>
            </tr>
        }
    });
    let threshold = sim.proto.p.phi_convict_threshold;
    let mut phis = (0..topo.len())
        .filter(|q| *q != id)
        .filter_map(|q| view::phi_of(sim, g, q).map(|v| (q, v * PHI_FACTOR)))
        .collect::<Vec<_>>();
    let phi_total = phis.len();
    if n > LARGE {
        sort_by(&mut phis, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        phis.truncate(MAX_PHI);
    }
    let phi_rows = phis.iter().map(|(q, v)| {
        let pct = (v / (threshold * 1.25) * 100.0).clamp(0.0, 100.0);
        let over = *v > threshold;
        html! {
            <div class="phi-row" data-peer={topo.name(*q).to_string()}>
                <span class="phi-name">{ topo.name(*q) }</span>
                <span class="phi-bar"><i class={classes!(over.then_some("over"))} style={format!("width:{pct:.1}%")}></i>
                    <b class="phi-th" style={format!("left:{:.1}%", 100.0 / 1.25)}></b></span>
                <span class={classes!("phi-val", over.then_some("over"))}>{ format!("{v:.2}") }</span>
            </div>
        }
    });
    let toggle_states = {
        let a = all_states.clone();
        Callback::from(move |_| a.set(!*a))
    };
    let on_filter = {
        let f = filter.clone();
        Callback::from(move |e: InputEvent| {
            f.set(
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        })
    };
    let st = view::StageView {
        pending: stage_stats.pending,
        oldest_age_us: stage_stats
            .oldest_enqueued_at
            .map(|t| sim.now.saturating_sub(t)),
        expired: stage_stats.expired,
        done: stage_stats.done,
        stalled: stage_stats.stalled,
        delay_us: stage_stats.delay_us,
    };
    let c = &g.counters;
    let (generation, heartbeat) = (g.generation(), g.me().hb.version);
    let live_count = (0..topo.len())
        .filter(|q| *q != id && g.sees_up(*q))
        .count();
    html! {
        <section class="card insp-card" aria-label="Inspector" id="inspector" data-node={topo.name(id).to_string()}>
            <div class="card-head">
                <h2>{ format!("Inspector · {}", topo.name(id)) }</h2>
                <span class="muted small">{
                    if stopped { "process stopped: showing the state it will restart from".to_string() }
                    else { format!("generation {} · heartbeat {} · sees {}/{} peers UP", generation, heartbeat, live_count, topo.len().saturating_sub(1)) }
                }</span>
            </div>
            <div class="subhead">
                <h4>{ "Endpoint state map" }</h4>
                <span class="muted small">{ "highlighted: changed by the last move" }</span>
                <label class="check"><input type="checkbox" checked={*all_states} onchange={toggle_states} />{ "all app states" }</label>
                <>{ for (n > 8).then(|| html!{ <input class="filter" type="search" placeholder="filter peers" value={(*filter).clone()} oninput={on_filter} aria-label="Filter peers" /> }) }</>
            </div>
            <div class="table-wrap eps">
                <table id="endpoint-states" class="tbl">
                    <thead><tr><th>{ "endpoint" }</th><th>{ "liveness" }</th><th>{ "generation" }</th><th>{ "heartbeat" }</th><th>{ "application states (version)" }</th></tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
            { crate::kit::slot((shown_rows < total_rows).then(|| html!{
                <p class="muted small">{ format!("Showing {shown_rows} of {total_rows} endpoints: the node itself, peers it sees DOWN, then peers that just changed. Filter to find others.") }</p>
            })) }
            <div class="two">
                <div>
                    <h4><span class="ident">{ "inflightEcho" }</span></h4>
                    {
                        if g.inflight.is_empty() {
                            html! { <p class="muted small" id="inflight-empty">{ "empty" }</p> }
                        } else {
                            html! {
                                <div class="table-wrap small-tbl">
                                <table id="inflight" class="tbl">
                                    <thead><tr><th>{ "peer" }</th><th>{ "gen" }</th><th>{ "age" }</th><th>{ "state" }</th></tr></thead>
                                    <tbody>{ for inflight }</tbody>
                                </table>
                                </div>
                            }
                        }
                    }
                    <h4><span class="ident">{ "GossipStage" }</span></h4>
                    <dl class="kv" id="stage">
                        <dt>{ "queue" }</dt><dd data-pending={st.pending.to_string()}>{ st.pending }</dd>
                        <dt>{ "oldest" }</dt><dd>{ st.oldest_age_us.map(age).unwrap_or_else(|| "—".into()) }</dd>
                        <dt>{ "expired" }</dt><dd class={classes!((st.expired > 0).then_some("bad"))}>{ st.expired }</dd>
                        <dt>{ "done" }</dt><dd>{ st.done }</dd>
                        <dt>{ "stalled" }</dt><dd>{ if st.stalled { "yes" } else { "no" } }</dd>
                        <dt>{ "delay/task" }</dt><dd>{ if st.delay_us == 0 { "—".to_string() } else { age(st.delay_us) } }</dd>
                    </dl>
                    <h4>{ "Echo counters" }</h4>
                    <dl class="kv" id="counters">
                        <dt>{ "sent" }</dt><dd>{ c.echo_sent }</dd>
                        <dt>{ "skipped" }</dt><dd class={classes!((c.echo_skipped > 0).then_some("bad"))}>{ c.echo_skipped }</dd>
                        <dt>{ "ok" }</dt><dd>{ c.echo_ok }</dd>
                        <dt>{ "failed" }</dt><dd>{ c.echo_failed }</dd>
                        <dt>{ "convictions" }</dt><dd>{ c.convictions }</dd>
                    </dl>
                </div>
                <div>
                    <h4>{ format!("φ per peer (convicts above {threshold})") }</h4>
                    { crate::kit::slot((phis.len() < phi_total).then(|| html!{ <p class="muted small">{ format!("the {} highest of {phi_total}", phis.len()) }</p> })) }
                    <div class="phi" id="phi">
                        { if phis.is_empty() { html!{ <p class="muted small">{ "no samples yet" }</p> } } else { html!{ <>{ for phi_rows }</> } } }
                    </div>
                </div>
            </div>
            { connections(sim, id) }
        </section>
    }
}

/// Most connection rows shown (the interesting ones first: half-open, then not closed).
const MAX_CONN_ROWS: usize = 60;

/// The connection model (CASSANDRA-15138): each outbound connection of the node, what it
/// believes and what the peer really has; half-open ones (established here, gone there) are
/// highlighted. Rows carry `data-peer`, `data-channel`, `data-this-side`, `data-other-side`,
/// `data-half-open` for the end-to-end tests.
fn connections(sim: &clusterscope_core::engine::Sim<Gossip>, id: NodeId) -> Html {
    if !sim.proto.p.connections {
        return html! {
            <div id="connections" data-modelled="false">
                <h4>{ "Connections" }</h4>
                <p class="muted small">{ "Internode connections are not modelled in this scenario." }</p>
            </div>
        };
    }
    let p = &sim.proto.p;
    // When the kernel gives up on unacknowledged writes (the model's rto).
    let rto = match p.messaging {
        MessagingVersion::V3 => p.tcp_retransmit_timeout.0,
        MessagingVersion::V4 => p.tcp_user_timeout.0.min(p.tcp_retransmit_timeout.0),
    };
    let mut conns = view::connections(sim, id);
    let half_open = |c: &view::ConnView| c.this_side == "established" && c.other_side != "open";
    let total = conns.len();
    let half_count = conns.iter().filter(|c| half_open(c)).count();
    if conns.len() > MAX_CONN_ROWS {
        sort_by_key(&mut conns, |c| (!half_open(c), c.this_side == "closed"));
        conns.truncate(MAX_CONN_ROWS);
    }
    let rows = conns.iter().map(|c| {
        let half = half_open(c);
        let timer = c.unacked_for_us.map(|a| {
            format!("unacked for {} · closes in {}", age(a), age(rto.saturating_sub(a)))
        });
        html! {
            <tr data-peer={c.peer.clone()} data-channel={c.channel} data-this-side={c.this_side}
                data-other-side={c.other_side} data-half-open={half.to_string()}
                data-swallowed={c.swallowed.to_string()}
                class={classes!(half.then_some("stuck"))}>
                <td>{ format!("/{}", c.peer) }</td>
                <td>{ c.channel }</td>
                <td class={classes!(if c.this_side == "established" { "ok" } else { "muted" })}>{ c.this_side }</td>
                <td>{ c.other_side }<>{ for half.then(|| html!{ <b class="half-tag" title="This node believes the connection is established, but the peer has no such connection: writes into it vanish until the kernel gives up."> { " · half-open" }</b> }) }</></td>
                <td class={classes!("num", (c.swallowed > 0).then_some("bad"))}>{ c.swallowed }</td>
                <td class="small">{ timer.unwrap_or_else(|| "—".into()) }</td>
            </tr>
        }
    });
    let g = &sim.nodes[id as usize].state;
    let writes: Vec<_> = g
        .msg
        .writes
        .iter()
        .enumerate()
        .filter(|(_, w)| w.sent + w.hinted > 0)
        .map(|(q, w)| {
            let name = sim.topo.name(q as NodeId).to_string();
            html! {
                <tr data-peer={name.clone()} data-timed-out={w.timed_out.to_string()}>
                    <td>{ format!("/{name}") }</td>
                    <td class="num">{ w.sent }</td>
                    <td class="num">{ w.acked }</td>
                    <td class={classes!("num", (w.timed_out > 0).then_some("bad"))}>{ w.timed_out }</td>
                    <td class="num">{ w.hinted }</td>
                </tr>
            }
        })
        .collect();
    html! {
        <div id="connections" data-modelled="true" data-half-open={half_count.to_string()}>
            <div class="subhead">
                <h4>{ "Connections" }</h4>
                <span class={classes!("small", if half_count > 0 { "bad" } else { "muted" })}>{
                    if half_count > 0 {
                        format!("{half_count} half-open: established here, gone at the peer (writes vanish)")
                    } else {
                        format!("this node's outbound connections ({} messaging)", match p.messaging { MessagingVersion::V3 => "3.x", MessagingVersion::V4 => "4.0" })
                    }
                }</span>
            </div>
            { crate::kit::slot((conns.len() < total).then(|| html!{ <p class="muted small">{ format!("Showing {} of {total}: half-open and open ones first.", conns.len()) }</p> })) }
            <div class="table-wrap small-tbl">
                <table id="conn-table" class="tbl">
                    <thead><tr><th>{ "peer" }</th><th>{ "channel" }</th><th>{ "this node believes" }</th><th>{ "the peer has" }</th><th>{ "swallowed" }</th><th>{ "kernel timer" }</th></tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
            { crate::kit::slot((!writes.is_empty()).then(|| html!{
                <>
                <h4>{ "Client writes coordinated, per replica" }</h4>
                <div class="table-wrap small-tbl">
                    <table id="writes" class="tbl">
                        <thead><tr><th>{ "replica" }</th><th>{ "sent" }</th><th>{ "acked" }</th><th>{ "timed out" }</th><th>{ "hinted" }</th></tr></thead>
                        <tbody>{ for writes.into_iter() }</tbody>
                    </table>
                </div>
                </>
            })) }
        </div>
    }
}
