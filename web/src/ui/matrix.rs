//! The matrix card: the model's N x N relation (`Model::matrix`) as a canvas, a hover tooltip,
//! and the model's summary of its notable cells (gossip: the DOWN views), also exposed as
//! `data-down` ("observer>peer,...") for tests and assistive tooling. Hidden for a model
//! without a matrix.

use super::PanelProps;
use crate::draw::matrix::{self, Geom};
use crate::draw::{model_color, palette};
use crate::model::Msg;
use crate::platform;
use clusterscope_core::engine::NodeId;
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
    let Some(spec) = m.run.engine.matrix() else {
        return html! {};
    };
    let topo = &m.run.scenario.topo;
    let sum = m.run.engine.matrix_summary(4);
    let aria = m.run.engine.matrix_summary(40).text;
    let listed: Vec<String> = sum
        .notable
        .iter()
        .take(MAX_LISTED)
        .map(|(o, q)| format!("{}>{}", topo.name(*o), topo.name(*q)))
        .collect();
    let summary = sum.text.clone();
    let tip = hover.filter(|(o, q)| (*o as usize) < n && (*q as usize) < n).map(|(o, q)| {
        let c = m.run.engine.matrix_cell(o, q);
        html! { <div class="m-tip">{ for c.tip.into_iter().map(|l| html!{ <div>{ l }</div> }) }</div> }
    });
    let pal = palette(p.dark);
    let size = if n <= 8 {
        "small"
    } else if n <= 40 {
        "medium"
    } else {
        "large"
    };
    html! {
        <section class="card matrix-card" aria-label={spec.title}>
            <div class="card-head">
                <h2>{ spec.title }</h2>
                <span class="muted small">{ spec.axes }</span>
            </div>
            <div class="matrix-wrap">
                <canvas id="matrix" ref={canvas} class={classes!("matrix", size)}
                    data-down={listed.join(",")} data-down-count={sum.notable.len().to_string()}
                    onmousemove={on_move} onmouseleave={on_leave} onclick={on_click}
                    aria-label={aria}></canvas>
                { for tip }
            </div>
            <div class="legend">
                { for spec.legend.iter().map(|(c, what)| html! {
                    <span class="lg"><i class="sq" style={format!("background:{}", model_color(&pal, c))}></i>{ *what }</span>
                }) }
                { for spec.mark.map(|what| html! { <span class="lg"><i class="sq dotted"></i>{ what }</span> }) }
            </div>
            <p id="matrix-summary" class={classes!("summary", sum.bad.then_some("bad"))}>{ summary }</p>
        </section>
    }
}
