//! The topology card: the canvas (click a node or a link), its legend, and the action panel for
//! the selection.

use crate::draw::{model_color, msg_color, palette, topology};
use crate::kit::PanelProps;
use crate::layout::{self, Hit, Layout, Pt};
use crate::model::teach::TeachMsg;
use crate::model::Msg;
use crate::platform;
use clusterscope_core::engine::{NodeId, Topology};
use clusterscope_core::time::fmt_duration;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

type Geometry = Option<(Layout, Vec<(NodeId, NodeId)>)>;

#[function_component(TopologyView)]
pub fn topology_view(p: &PanelProps) -> Html {
    let s = &p.s;
    let canvas = use_node_ref();
    let geo = use_mut_ref(|| None as Geometry);
    let layer = use_mut_ref(|| None::<(u64, HtmlCanvasElement)>);
    // The topology the layout was computed for (two scenarios may have the same node count).
    let laid_out = use_mut_ref(|| None::<Topology>);
    let hover = use_state(|| None::<NodeId>);
    // The last explanation: (node, cursor, session revision) and its sentences.
    let explained = use_mut_ref(|| None::<((NodeId, u64, u64), Vec<String>)>);
    // Gossip's explanation is a split point of the part `actions` (the topology card's actions,
    // fetched right after the first frame): asked once it is in (the card is drawn again when it
    // comes, the context changing), "Loading…" meanwhile; a refused part is the node panel's note.
    let actions = use_context::<super::actions::ActionsLoad>();
    let actions_in = matches!(
        super::actions::ActionsLoad::now(actions.as_ref()),
        crate::kit::PartLoad::Loaded(_)
    );

    {
        let (canvas, mm, geo, dark) = (canvas.clone(), p.m().clone(), geo.clone(), p.dark);
        let laid_out = laid_out.clone();
        // The hovered node may belong to the previous scenario.
        let n_now = mm.borrow().n() as NodeId;
        let hover = hover.filter(|h| *h < n_now);
        use_effect(move || {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                return;
            };
            let Some((ctx, w, h)) = platform::prepare_canvas(&c, true) else {
                return;
            };
            let m = mm.borrow();
            // Presentation mode draws everything larger: the same picture at a smaller logical
            // size, scaled up (hit tests divide by the same factor).
            let k = present_scale(m.teach.present, h);
            let (w, h) = (w / k, h / k);
            let _ = ctx.scale(k, k);
            let topo = &m.run.scenario.topo;
            let stale = geo
                .borrow()
                .as_ref()
                .is_none_or(|(l, _)| l.w != w || l.h != h || l.pos.len() != topo.names.len())
                || laid_out.borrow().as_ref() != Some(topo);
            let lay = if stale {
                *laid_out.borrow_mut() = Some(topo.clone());
                let l = layout::layout(topo, w, h);
                let _ = c.set_attribute("data-nodes", &layout::describe(&l, topo));
                // For tests: the node radius and the drawing scale (a node's CSS box is its
                // position and radius times the scale, from the canvas' corner).
                let _ = c.set_attribute("data-node-r", &format!("{:.1}", l.r));
                let _ = c.set_attribute("data-scale", &format!("{k}"));
                l
            } else {
                geo.borrow().as_ref().map(|g| g.0.clone()).expect("checked")
            };
            let net = &m.run.engine.net();
            // "Healthy" is the scenario's default link (which may carry a baseline loss).
            let default = net.default_link();
            // Without a link fault (the usual case) nothing needs the n x n scan.
            let healthy = net.is_healthy();
            let links = layout::visible_links(topo.names.len(), m.selected, |a, b| {
                healthy || net.link(a, b) == default
            });
            let inp = topology::TopologyInput {
                model: &m,
                layout: &lay,
                links: &links,
                hover,
                palette: palette(dark),
            };
            let dpr = platform::device_pixel_ratio() * k;
            let key = topology::static_key(&inp, w, h, dpr);
            let mut cache = layer.borrow_mut();
            if cache.as_ref().is_none_or(|(k, _)| *k != key) {
                if let Some(canvas) = platform::offscreen(w, h, dpr) {
                    if let Some(lctx) = platform::context(&canvas, dpr) {
                        topology::draw_static(&lctx, &inp);
                    }
                    *cache = Some((key, canvas));
                }
            }
            if let Some((_, layer)) = cache.as_ref() {
                let _ =
                    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(layer, 0.0, 0.0, w, h);
            }
            let drawn = topology::draw_dynamic(&ctx, &inp);
            // What the overlay shows, for tests: `n1:0.62 n2:0.81` and `n2>n1:0 n3>n1:0`.
            let arcs = drawn
                .arcs
                .iter()
                .map(|(i, f)| format!("{}:{f:.2}", topo.name(*i)))
                .collect::<Vec<_>>()
                .join(" ");
            let edges = drawn
                .edges
                .iter()
                .map(|(a, b, k)| format!("{}>{}:{k}", topo.name(*a), topo.name(*b)))
                .collect::<Vec<_>>()
                .join(" ");
            // The labels written and their boxes (`LABEL@x,y,w,h`, CSS pixels, baseline y).
            let texts = boxes(drawn.texts.iter().map(|(t, b)| (*t, b)), " ");
            // The texts under the nodes, likewise (`leader t2@x,y,w,h|...`: they have spaces).
            let unders = boxes(drawn.unders.iter().map(|(t, b)| (t.as_str(), b)), "|");
            // The nodes ringed for a safety violation: `S5,S1`.
            let violation = drawn
                .violation
                .iter()
                .map(|i| topo.name(*i))
                .collect::<Vec<_>>()
                .join(",");
            let colors = drawn.colors.join(" ");
            // The model's glance: `S1:3:#1b7a3e:#ffffff` (node, text inside, fill, text colour)
            // and the ringed nodes (Raft: the leader).
            let glance = drawn
                .glance
                .iter()
                .map(|(i, t, f, c)| format!("{}:{t}:{f}:{c}", topo.name(*i)))
                .collect::<Vec<_>>()
                .join(" ");
            let rings = drawn
                .rings
                .iter()
                .map(|i| topo.name(*i))
                .collect::<Vec<_>>()
                .join(",");
            let label_px = format!("{}", topology::LABEL_PX * k);
            for (k, v) in [
                ("data-text-colors", colors),
                ("data-glance", glance),
                ("data-rings", rings),
                // The labels' font size on screen (CSS px), and the panel they are written on.
                ("data-label-px", label_px),
                ("data-panel", palette(dark).panel.to_string()),
                ("data-arcs", arcs),
                ("data-edges", edges),
                ("data-texts", texts),
                ("data-unders", unders),
                ("data-violation-nodes", violation),
            ] {
                if c.get_attribute(k).as_deref() != Some(v.as_str()) {
                    let _ = c.set_attribute(k, &v);
                }
            }
            // What the recent drop marks lost, for tests and assistive tooling.
            let _ = c.set_attribute("data-drops", &drawn.drops.join(","));
            let _ = c.set_attribute("data-anim", drawn.anim.as_deref().unwrap_or(""));
            drop(cache);
            *geo.borrow_mut() = Some((lay, links));
        });
    }

    let hit_at = {
        let geo = geo.clone();
        let s = s.clone();
        let canvas = canvas.clone();
        move |e: &MouseEvent| -> Option<Hit> {
            let h = canvas
                .cast::<HtmlCanvasElement>()
                .map_or(0.0, |c| platform::canvas_size(&c).1.max(1) as f64);
            let k = present_scale(s.model.borrow().teach.present, h);
            let g = geo.borrow();
            let (l, links) = g.as_ref()?;
            layout::hit_test(
                l,
                links,
                Pt {
                    x: e.offset_x() as f64 / k,
                    y: e.offset_y() as f64 / k,
                },
            )
        }
    };
    let on_click = {
        let s = s.clone();
        let hit_at = hit_at.clone();
        Callback::from(move |e: MouseEvent| match hit_at(&e) {
            Some(Hit::Node(id)) if e.shift_key() => s.dispatch(Msg::ToggleSeqNode(id)),
            Some(Hit::Node(id)) => s.dispatch(Msg::SelectNode(Some(id))),
            Some(Hit::Link(a, b)) => s.dispatch(Msg::SelectLink(Some((a, b)))),
            None => s.dispatch(Msg::SelectLink(None)),
        })
    };
    let on_move = {
        let hover = hover.clone();
        Callback::from(move |e: MouseEvent| {
            let h = match hit_at(&e) {
                Some(Hit::Node(id)) => Some(id),
                _ => None,
            };
            if *hover != h {
                hover.set(h);
            }
        })
    };
    let on_leave = {
        let hover = hover.clone();
        Callback::from(move |_| hover.set(None))
    };

    let m = p.m().borrow();
    let n = m.n();
    let pal = palette(p.dark);
    let base = m.run.engine.net().default_link();
    let baseline = format!(
        "default link: {}–{}{}",
        fmt_duration(base.latency_min_us),
        fmt_duration(base.latency_max_us),
        if base.loss > 0.0 {
            format!(", {:.1}% loss", base.loss * 100.0)
        } else {
            String::new()
        }
    );
    // The hovered node's name, and what the model's overlay says of it (its arc, its arrows).
    let hover_name = hover.filter(|h| (*h as usize) < n).map(|h| {
        let e = &*m.run.engine;
        let mut parts = vec![m.name(h).to_string()];
        if let Some(a) = e.node_arc(h) {
            parts.push(a.label);
        }
        let mut edges = Vec::new();
        e.edges(&mut edges);
        parts.extend(
            edges
                .into_iter()
                .filter(|d| d.from == h || d.to == h)
                .map(|d| d.label),
        );
        parts.join(" · ")
    });
    let overlay = m.run.engine.overlay();
    let legend_overlay = overlay
        .arc
        .map(|(c, about)| {
            html! { <span class="lg" title={about}><i class="arc" style={format!("border-color:{}", model_color(&pal, c))}></i>{ about.split(':').next().unwrap_or(about) }</span> }
        })
        .into_iter()
        .chain(overlay.edges.iter().map(|(c, about)| {
            html! { <span class="lg" title={*about}><b class="arrow" style={format!("color:{}", model_color(&pal, c))}>{ "→" }</b>{ about.split(':').next().unwrap_or(about) }</span> }
        }))
        .collect::<Vec<_>>();
    // The model's glance (`Model::glance_legend`): its fills, rings and the text inside a node.
    let gl = m.run.engine.glance_legend();
    let legend_glance = gl
        .fills
        .iter()
        .map(|(c, about)| {
            html! { <span class="lg"><i class="dot big" style={format!("background:{}", model_color(&pal, c))}></i>{ *about }</span> }
        })
        .chain(gl.rings.iter().map(|(c, about)| {
            html! { <span class="lg"><i class="ring bold" style={format!("border-color:{}", model_color(&pal, c))}></i>{ *about }</span> }
        }))
        .chain((!gl.text.is_empty()).then(|| {
            html! { <span class="lg"><i class="in-node">{ "3" }</i>{ format!("inside: {}", gl.text) }</span> }
        }))
        .collect::<Vec<_>>();
    let kinds = m.run.engine.msg_kinds();
    let legend_msgs = kinds.iter().map(|k| {
        html! { <span class="lg" title={k.about}><i class="dot" style={format!("background:{}", msg_color(kinds, k.label))}></i>{ k.label }</span> }
    });
    // Compare: the actions are in a row of their own under both sides (`ui::compare`), so that
    // the sides line up. Else the panels, whose code comes right after the first frame
    // (`ui::actions`).
    let panel = if p.side.is_some() || m.compare.is_some() {
        html! {}
    } else {
        super::actions::for_selection(s, p.dark, m.selected_link, m.selected)
    };
    // "Explain this state": computed from the views now, only while shown.
    let explain_btn = m.selected.map(|id| {
        let on = m.teach.explain;
        let s = s.clone();
        let onclick = Callback::from(move |_| s.dispatch(Msg::Teach(TeachMsg::SetExplain(!on))));
        html! { <button id="explain-toggle" class={classes!("btn", "small-btn", on.then_some("primary"))}
            aria-pressed={on.to_string()} title="What the selected node believes now and why, from its views (w)"
            {onclick}>{ format!("explain {}", m.name(id)) }</button> }
    });
    // Computed for the cursor when it settles (this card redraws every frame while playing):
    // while playing, the last explanation stays, marked as waiting.
    let key = m
        .selected
        .filter(|_| m.teach.explain)
        .map(|id| (id, m.cursor(), m.session_rev));
    let stale = {
        let mut c = explained.borrow_mut();
        let fresh = c.as_ref().is_some_and(|(k, _)| Some(*k) == key);
        match key {
            Some(k) if !fresh && !m.busy() && actions_in => {
                *c = m.explain().map(|lines| (k, lines));
                false
            }
            Some(_) if !actions_in => {
                *c = None;
                false
            }
            None => {
                *c = None;
                false
            }
            _ => !fresh,
        }
    };
    let waiting = (key.is_some() && !actions_in).then(|| match &actions {
        Some(super::actions::ActionsLoad {
            load: crate::kit::PartLoad::Failed(part),
            retry,
        }) => html! {
            <div class="explain" data-part="error">{ crate::kit::part_retry("The explanation's code", part, retry) }</div>
        },
        _ => html! {
            <div class="explain" data-part="loading" role="status"><p class="muted small">{ "Loading the explanation…" }</p></div>
        },
    });
    let explain = explained.borrow().as_ref().map(|((id, _, _), lines)| {
        html! {
            <div id="explain" class={classes!("explain", stale.then_some("stale"))} data-node={m.name(*id).to_string()}
                data-stale={stale.to_string()} role="status">
                <>{ for lines.iter().map(|l| html!{ <p>{ l.clone() }</p> }) }</>
                if stale { <p class="muted small">{ "(of an earlier moment: updated when the replay stops)" }</p> }
            </div>
        }
    });
    let cursor = if hover.is_some() {
        "pointer"
    } else {
        "crosshair"
    };
    html! {
        <section class="card topo-card" aria-label="Topology">
            <div class="card-head">
                <h2>{ "Topology" }</h2>
                <span class="muted small">{
                    if n > layout::ALL_LINKS_MAX_NODES {
                        format!("{n} nodes · links shown: the selected node's and faulty ones")
                    } else {
                        format!("{n} nodes · click a node or a link; shift+click adds a node to the sequence diagram")
                    }
                }</span>
                { crate::kit::slot(explain_btn) }
            </div>
            // Above the canvas, so it opens in view (issue 41: under the legends it was below
            // the fold at 1366x768); the canvas ends at the viewport's bottom all the same.
            { crate::kit::slot(explain.or(waiting)) }
            <div class="canvas-wrap">
            { crate::kit::slot(hover_name.map(|h| html!{ <span class="chip hover-label" id="hover-label">{ h }</span> })) }
            <canvas id={if p.side.is_some() { "topology-b" } else { "topology" }} ref={canvas} class="topology" style={format!("cursor:{cursor}")}
                onclick={on_click} onmousemove={on_move} onmouseleave={on_leave}
                aria-label="Cluster topology: nodes and links; use the panel below for keyboard access"></canvas>
            </div>
            <div class="legend" id="topo-legend-glance">
                <>{ for legend_glance }</>
            </div>
            <div class="legend">
                <span class="lg"><i class="dot" style="background:var(--up)"></i>{ "running" }</span>
                <span class="lg"><i class="dot" style="background:var(--stopping)"></i>{ "stopping" }</span>
                <span class="lg"><i class="dot" style="background:var(--stopped)"></i>{ "stopped" }</span>
                <span class="lg"><i class="ring"></i>{ "seen DOWN by peers" }</span>
                { crate::kit::slot((!m.run.engine.trace().violations.is_empty()).then(|| html! {
                    <span class="lg" data-mark="violation" title="A safety invariant broke: its nodes are ringed in red with a “!” from that moment (the banner under the timeline names it)">
                        <i class="tl-vio" style="background:var(--down)">{ "!" }</i>{ "safety violation" }</span>
                })) }
                <span class="lg"><i class="bar down"></i>{ "down" }</span>
                <span class="lg"><i class="bar lossy"></i>{ "lossy" }</span>
                <span class="lg"><i class="bar slow"></i>{ "latency" }</span>
                <span class="lg muted">{ format!("(each half of a link is the direction leaving its node; {baseline})") }</span>
            </div>
            <div class="legend" id="topo-legend-msgs">
                <span class="lg muted">{ "messages:" }</span>
                <>{ for legend_msgs }</>
                <span class="lg" title="A message just delivered: a short fading stroke into its receiver"><i class="trail"></i>{ "just delivered (trail)" }</span>
                <span class="lg"><b class="x">{ "✕" }</b>{ "dropped (its kind beside it)" }</span>
                <>{ for legend_overlay }</>
            </div>
            { panel }
        </section>
    }
}

/// How much larger presentation mode draws the topology on a canvas `h` CSS px tall: 1.5x, less
/// where that would leave the drawing under 270 px tall (1366x768 with Figure 8's violation
/// banner: its 5-node ring in 225 px, the nodes on each other's text).
fn present_scale(present: bool, h: f64) -> f64 {
    if present {
        (h / 270.0).clamp(1.0, 1.5)
    } else {
        1.0
    }
}

/// Texts and their boxes for a test hook: `LABEL@x,y,w,h` (CSS pixels, baseline y) joined by `sep`.
fn boxes<'a>(v: impl Iterator<Item = (&'a str, &'a crate::labels::TextBox)>, sep: &str) -> String {
    v.map(|(t, b)| format!("{t}@{:.1},{:.1},{:.1},{:.1}", b.x, b.y, b.w, b.h))
        .collect::<Vec<_>>()
        .join(sep)
}
