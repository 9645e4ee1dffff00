//! The liveness matrix card: an N x N canvas, a hover tooltip, and a text summary of the DOWN
//! views (also exposed as `data-down` for tests and assistive tooling).

use super::PanelProps;
use crate::draw::matrix::{self, Cell, Geom};
use crate::draw::palette;
use crate::model::Msg;
use crate::platform;
use clusterscope_core::engine::NodeId;
use clusterscope_core::gossip::fd::PHI_FACTOR;
use clusterscope_core::gossip::view;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Most pairs listed in `data-down` and the summary.
const MAX_LISTED: usize = 5000;

/// The last drawn picture of a large matrix.
#[derive(PartialEq)]
struct Shown {
    pixels: Vec<u8>,
    /// CSS and backing-store sizes of the canvas.
    size: (i32, i32, u32, u32),
    hover: Option<(NodeId, NodeId)>,
    selected: Option<NodeId>,
    dark: bool,
}

/// A canvas's CSS and backing-store sizes.
fn canvas_key(c: &HtmlCanvasElement) -> (i32, i32, u32, u32) {
    let (w, h) = platform::canvas_size(c);
    (w, h, c.width(), c.height())
}

#[function_component(Matrix)]
pub fn matrix_card(p: &PanelProps) -> Html {
    let s = &p.s;
    let canvas = use_node_ref();
    let geom = use_mut_ref(|| None::<Geom>);
    let hover = use_state(|| None::<(NodeId, NodeId)>);
    // What the canvas shows (large clusters): redrawn only when it would change.
    let shown = use_mut_ref(|| None::<Shown>);
    {
        let (canvas, s, geom, dark) = (canvas.clone(), s.clone(), geom.clone(), p.dark);
        // The hovered cell may belong to the previous scenario.
        let n_now = s.model.borrow().n() as NodeId;
        let hover = hover.filter(|(o, q)| *o < n_now && *q < n_now);
        use_effect(move || {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                return;
            };
            let m = s.model.borrow();
            let pal = palette(dark);
            let image = (m.n() > matrix::IMAGE_ABOVE).then(|| matrix::pixels(&m, &pal));
            let now = image.map(|pixels| Shown {
                pixels,
                size: canvas_key(&c),
                hover,
                selected: m.selected,
                dark,
            });
            if now.is_some() && *shown.borrow() == now {
                return;
            }
            if let Some((ctx, w, h)) = platform::prepare_canvas(&c, true) {
                let g = matrix::geom(m.n(), w, h);
                let px = now.as_ref().map(|x| x.pixels.as_slice());
                matrix::draw(&ctx, &m, &g, hover, &pal, px);
                *geom.borrow_mut() = Some(g);
            }
            *shown.borrow_mut() = now.map(|mut x| {
                x.size = canvas_key(&c);
                x
            });
        });
    }
    let on_move = {
        let (geom, hover) = (geom.clone(), hover.clone());
        Callback::from(move |e: MouseEvent| {
            let h = geom
                .borrow()
                .as_ref()
                .and_then(|g| g.cell_at(e.offset_x() as f64, e.offset_y() as f64));
            if *hover != h {
                hover.set(h);
            }
        })
    };
    let on_leave = {
        let hover = hover.clone();
        Callback::from(move |_| hover.set(None))
    };
    let on_click = {
        let (geom, s) = (geom.clone(), s.clone());
        Callback::from(move |e: MouseEvent| {
            let cell = geom
                .borrow()
                .as_ref()
                .and_then(|g| g.cell_at(e.offset_x() as f64, e.offset_y() as f64));
            if let Some((o, _)) = cell {
                s.dispatch(Msg::SelectNode(Some(o)));
            }
        })
    };

    let m = s.model.borrow();
    let n = m.n();
    let topo = &m.run.scenario.topo;
    let pairs = view::down_pairs(&m.run.engine.sim);
    let one_sided: Vec<bool> = pairs
        .iter()
        .map(|(o, q)| matrix::cell(&m, *o, *q) == Cell::DownOneSided)
        .collect();
    let listed: Vec<String> = pairs
        .iter()
        .take(MAX_LISTED)
        .map(|(o, q)| format!("{}>{}", topo.name(*o), topo.name(*q)))
        .collect();
    let one_sided_count = one_sided.iter().filter(|x| **x).count();
    let describe = |limit: usize| -> String {
        if pairs.is_empty() {
            return "Every running node sees every running peer UP.".to_string();
        }
        let shown: Vec<String> = pairs
            .iter()
            .take(limit)
            .map(|(o, q)| format!("{} sees {} DOWN", topo.name(*o), topo.name(*q)))
            .collect();
        let more = pairs.len().saturating_sub(limit);
        format!(
            "{} DOWN view{}{}: {}{}",
            pairs.len(),
            if pairs.len() == 1 { "" } else { "s" },
            if one_sided_count > 0 {
                format!(" ({one_sided_count} one-sided)")
            } else {
                String::new()
            },
            shown.join("; "),
            if more > 0 {
                format!("; and {more} more")
            } else {
                String::new()
            }
        )
    };
    let summary = describe(4);
    let aria = describe(40);
    let tip = hover.filter(|(o, q)| (*o as usize) < n && (*q as usize) < n).map(|(o, q)| {
        let sim = &m.run.engine.sim;
        let g = &sim.nodes[o as usize].state;
        let c = matrix::cell(&m, o, q);
        let (on, qn) = (topo.name(o), topo.name(q));
        let mut lines = vec![match c {
            Cell::Selfie => format!("{on} (itself)"),
            Cell::ObserverDown => format!("{on} is not running"),
            Cell::PeerStopped => format!("{on} sees {qn} DOWN ({qn} is not running)"),
            Cell::Up => format!("{on} sees {qn} UP"),
            Cell::Down => format!("{on} sees {qn} DOWN, and {qn} sees {on} DOWN"),
            Cell::DownOneSided => format!("{on} sees {qn} DOWN, while {qn} sees {on} UP"),
        }];
        if o != q {
            if let Some(st) = g.state(q) {
                lines.push(format!("generation {} · heartbeat {}", st.hb.generation, st.hb.version));
            }
            if let Some(v) = view::phi_of(sim, g, q) {
                lines.push(format!("φ {:.2}", v * PHI_FACTOR));
            }
            if view::inflight_stuck(g, q) {
                lines.push("inflightEcho entry stuck (no echo will be sent)".into());
            } else if g.inflight.contains_key(&q) {
                lines.push("echo in flight".into());
            }
        }
        html! { <div class="m-tip">{ for lines.into_iter().map(|l| html!{ <div>{ l }</div> }) }</div> }
    });
    let size = if n <= 8 {
        "small"
    } else if n <= 40 {
        "medium"
    } else {
        "large"
    };
    html! {
        <section class="card matrix-card" aria-label="Liveness matrix">
            <div class="card-head">
                <h2>{ "Liveness matrix" }</h2>
                <span class="muted small">{ "row: observer · column: peer" }</span>
            </div>
            <div class="matrix-wrap">
                <canvas id="matrix" ref={canvas} class={classes!("matrix", size)}
                    data-down={listed.join(",")} data-down-count={pairs.len().to_string()}
                    onmousemove={on_move} onmouseleave={on_leave} onclick={on_click}
                    aria-label={aria}></canvas>
                { for tip }
            </div>
            <div class="legend">
                <span class="lg"><i class="sq" style="background:var(--up-soft)"></i>{ "UP" }</span>
                <span class="lg"><i class="sq" style="background:var(--down)"></i>{ "DOWN (both ways)" }</span>
                <span class="lg"><i class="sq" style="background:var(--asym)"></i>{ "DOWN, one-sided" }</span>
                <span class="lg"><i class="sq" style="background:var(--stopped)"></i>{ "peer stopped" }</span>
                <span class="lg"><i class="sq dotted"></i>{ "stuck inflightEcho" }</span>
            </div>
            <p id="matrix-summary" class={classes!("summary", (!pairs.is_empty()).then_some("bad"))}>{ summary }</p>
        </section>
    }
}
