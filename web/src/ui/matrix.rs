//! The matrix card: the model's N x N relation (`Model::matrix`) as a canvas, a hover tooltip,
//! and the model's summary of its notable cells (gossip: the DOWN views), also exposed as
//! `data-down` ("observer>peer,...") for tests and assistive tooling. For an incident review at
//! scale: rows and columns grouped by DC (lines between DCs, their names), sorted by notable
//! cells, filtered to those with one, a zoom (drag a region), and every notable cell as a list
//! and as CSV. Hidden for a model without a matrix.

use crate::draw::matrix::{self, Geom};
use crate::draw::{model_color, palette};
use crate::kit::PanelProps;
use crate::model::matrix_view::{self, MatrixView, ViewOpts};
use crate::model::{Model, Msg};
use crate::platform;
use clusterscope_core::engine::NodeId;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Most pairs listed in `data-down` and the summary, and cells in `data-differs`.
const MAX_LISTED: usize = 5000;
/// Most rows of the notable-cell list rendered (the CSV has them all).
const MAX_LIST_ROWS: usize = 1000;

/// The last drawn picture of a large matrix.
#[derive(PartialEq)]
struct Shown {
    pixels: Vec<u8>,
    view: MatrixView,
    /// CSS and backing-store sizes of the canvas.
    size: (i32, i32, u32, u32),
    hover: Option<(NodeId, NodeId)>,
    selected: Option<NodeId>,
    /// Compare: the cells outlined as differing from the other side.
    differs: Option<Vec<(NodeId, NodeId)>>,
    dark: bool,
    drag: Option<((usize, usize), (usize, usize))>,
}

/// A canvas's CSS and backing-store sizes.
fn canvas_key(c: &HtmlCanvasElement) -> (i32, i32, u32, u32) {
    let (w, h) = platform::canvas_size(c);
    (w, h, c.width(), c.height())
}

fn check(label: &'static str, id: &'static str, on: bool, cb: Callback<Event>) -> Html {
    html! { <label class="check"><input {id} type="checkbox" checked={on} onchange={cb} />{ label }</label> }
}

/// The cells that differ between the sides, when compare is on and they are known.
fn differing(m: &Model) -> Option<Vec<(NodeId, NodeId)>> {
    m.compare.as_ref().and_then(|c| c.cells.clone())
}

/// Name the differing cells on a matrix canvas (`data-differs="A>B,..."`, for tests and
/// assistive tooling).
fn mark_differs(c: &web_sys::HtmlCanvasElement, m: &Model, cells: Option<&[(NodeId, NodeId)]>) {
    match cells {
        Some(cells) => {
            let topo = &m.run.scenario.topo;
            let list: Vec<String> = cells
                .iter()
                .take(MAX_LISTED)
                .map(|(o, q)| format!("{}>{}", topo.name(*o), topo.name(*q)))
                .collect();
            let _ = c.set_attribute("data-differs", &list.join(","));
            let _ = c.set_attribute("data-differs-count", &cells.len().to_string());
        }
        None => {
            let _ = c.remove_attribute("data-differs");
            let _ = c.remove_attribute("data-differs-count");
        }
    }
}

#[function_component(Matrix)]
pub fn matrix_card(p: &PanelProps) -> Html {
    let s = &p.s;
    let canvas = use_node_ref();
    let geom = use_mut_ref(|| None::<Geom>);
    let hover = use_state(|| None::<(NodeId, NodeId)>);
    let opts = use_state(ViewOpts::default);
    // A zoom being dragged: (start, current) as (row, column) positions of the view.
    let drag = use_state(|| None::<((usize, usize), (usize, usize))>);
    // What the canvas shows (large clusters): redrawn only when it would change.
    let shown = use_mut_ref(|| None::<Shown>);
    // Whether the list of notable cells is open: its rows (up to MAX_LIST_ROWS, each with a
    // listener) are rendered only then — closed, they cost a reconcile on every frame.
    let list_open = use_state(|| false);

    let m = p.m().borrow();
    let n = m.n();
    // Compare: the cells that differ between the sides (the same on both).
    let differs = differing(&s.model.borrow());
    let has_matrix = m.run.engine.matrix().is_some();
    let sum_all = if has_matrix {
        m.matrix_summary(0)
    } else {
        Default::default()
    };
    let view = matrix_view::view(&m.run.scenario.topo, &sum_all.notable, &opts);
    drop(m);
    {
        let (canvas, mm, geom, dark) = (canvas.clone(), p.m().clone(), geom.clone(), p.dark);
        let view = view.clone();
        let differs = differs.clone();
        let drag = *drag;
        let sorted = opts.sort_notable;
        // The hovered cell may belong to the previous scenario.
        let n_now = n as NodeId;
        let hover = hover.filter(|(o, q)| *o < n_now && *q < n_now);
        use_effect(move || {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                return;
            };
            let m = mm.borrow();
            if m.run.engine.matrix().is_none() {
                return;
            }
            let pal = palette(dark);
            let big =
                view.rows.len() > matrix::IMAGE_ABOVE || view.cols.len() > matrix::IMAGE_ABOVE;
            let image = big.then(|| matrix::pixels(&m, &view, &pal));
            let now = image.map(|pixels| Shown {
                pixels,
                view: view.clone(),
                size: canvas_key(&c),
                hover,
                selected: m.selected,
                differs: differs.clone(),
                dark,
                drag,
            });
            if now.is_some() && *shown.borrow() == now {
                return;
            }
            if let Some((ctx, w, h)) = platform::prepare_canvas(&c, true) {
                let dcs = m
                    .run
                    .scenario
                    .topo
                    .dcs
                    .iter()
                    .any(|d| *d != m.run.scenario.topo.dcs[0]);
                let mut g = matrix::geom(&view, w, h, matrix::label_width(&ctx, &m, &view), dcs);
                g.dc_lines = !sorted;
                let px = now.as_ref().map(|x| x.pixels.as_slice());
                let labels = matrix::draw(&ctx, &m, &g, hover, &pal, px);
                crate::draw::compare::outline_cells(&ctx, &g, differs.as_deref(), &pal);
                mark_differs(&c, &m, differs.as_deref());
                if let Some(((r0, c0), (r1, c1))) = drag {
                    // The region being dragged.
                    let (ra, rb) = (r0.min(r1), r0.max(r1) + 1);
                    let (ca, cb) = (c0.min(c1), c0.max(c1) + 1);
                    ctx.set_stroke_style_str(pal.accent);
                    ctx.set_line_width(2.0);
                    ctx.stroke_rect(
                        g.x0 + ca as f64 * g.cell,
                        g.y0 + ra as f64 * g.cell,
                        (cb - ca) as f64 * g.cell,
                        (rb - ra) as f64 * g.cell,
                    );
                }
                // The row labels as drawn, for tests and assistive tooling.
                let _ = c.set_attribute("data-row-labels", &labels.join(","));
                *geom.borrow_mut() = Some(g);
            }
            *shown.borrow_mut() = now.map(|mut x| {
                x.size = canvas_key(&c);
                x
            });
        });
    }
    let pos_of = {
        let geom = geom.clone();
        move |e: &MouseEvent, clamp: bool| -> Option<(usize, usize)> {
            geom.borrow()
                .as_ref()
                .and_then(|g| g.pos_at(e.offset_x() as f64, e.offset_y() as f64, clamp))
        }
    };
    let on_move = {
        let (geom, hover, drag) = (geom.clone(), hover.clone(), drag.clone());
        let pos_of = pos_of.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some((start, cur)) = *drag {
                if let Some(p) = pos_of(&e, true) {
                    if p != cur {
                        drag.set(Some((start, p)));
                    }
                }
                return;
            }
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
        let (hover, drag) = (hover.clone(), drag.clone());
        Callback::from(move |_| {
            hover.set(None);
            drag.set(None);
        })
    };
    let on_down = {
        let drag = drag.clone();
        let pos_of = pos_of.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(p) = pos_of(&e, false) {
                drag.set(Some((p, p)));
            }
        })
    };
    let on_up = {
        let (geom, s, drag, opts) = (geom.clone(), s.clone(), drag.clone(), opts.clone());
        Callback::from(move |e: MouseEvent| {
            let Some((a, b)) = *drag else { return };
            drag.set(None);
            if a == b {
                // A click: select the row's observer.
                let cell = geom
                    .borrow()
                    .as_ref()
                    .and_then(|g| g.cell_at(e.offset_x() as f64, e.offset_y() as f64));
                if let Some((o, _)) = cell {
                    s.dispatch(Msg::SelectNode(Some(o)));
                }
                return;
            }
            // A drag: zoom into the region (positions of the current, possibly zoomed, view).
            let (ra, rb) = (a.0.min(b.0), a.0.max(b.0) + 1);
            let (ca, cb) = (a.1.min(b.1), a.1.max(b.1) + 1);
            let mut o = (*opts).clone();
            let (r0, c0) = o.zoom.as_ref().map_or((0, 0), |(r, c)| (r.start, c.start));
            o.zoom = Some((r0 + ra..r0 + rb, c0 + ca..c0 + cb));
            opts.set(o);
        })
    };
    let toggle = |f: fn(&mut ViewOpts)| {
        let opts = opts.clone();
        Callback::from(move |_: Event| {
            let mut o = (*opts).clone();
            f(&mut o);
            o.zoom = None;
            opts.set(o);
        })
    };
    let reset_zoom = {
        let opts = opts.clone();
        Callback::from(move |_: MouseEvent| {
            let mut o = (*opts).clone();
            o.zoom = None;
            opts.set(o);
        })
    };

    let m = p.m().borrow();
    let Some(spec) = m.run.engine.matrix() else {
        return html! {};
    };
    let topo = &m.run.scenario.topo;
    let sum = m.matrix_summary(4);
    let aria = m.matrix_summary(40).text.clone();
    let listed: Vec<String> = sum_all
        .notable
        .iter()
        .take(MAX_LISTED)
        .map(|(o, q)| format!("{}>{}", topo.name(*o), topo.name(*q)))
        .collect();
    let tip = hover.filter(|(o, q)| (*o as usize) < n && (*q as usize) < n).map(|(o, q)| {
        let c = m.run.engine.matrix_cell(o, q);
        html! { <div class="m-tip">{ for c.tip.into_iter().map(|l| html!{ <div>{ l }</div> }) }</div> }
    });
    let pal = palette(p.dark);
    let shown_n = view.rows.len().max(view.cols.len());
    let size = if shown_n <= 8 {
        "small"
    } else if shown_n <= 40 {
        "medium"
    } else {
        "large"
    };
    let count = sum_all.notable.len();
    // Every notable cell: a list (the first MAX_LIST_ROWS) and a CSV download (all).
    let list = (count > 0).then(|| {
        let on_csv = {
            let mm = p.m().clone();
            Callback::from(move |_: MouseEvent| {
                let m = mm.borrow();
                let csv = matrix_view::notable_csv(&m);
                let file = format!("{}-{}-notable.csv", m.file_stem(), m.now());
                platform::download(&file, &csv, "text/csv");
            })
        };
        let legend = spec.legend;
        let shown_rows = if *list_open { MAX_LIST_ROWS } else { 0 };
        let rows = sum_all.notable.iter().take(shown_rows).map(|(o, q)| {
            let c = m.run.engine.matrix_cell(*o, *q);
            let state = legend.get(c.class as usize).map_or("", |l| l.1);
            let s2 = s.clone();
            let obs = *o;
            let onclick = Callback::from(move |_| s2.dispatch(Msg::SelectNode(Some(obs))));
            html! {
                <tr data-observer={topo.name(*o).to_string()} data-peer={topo.name(*q).to_string()} {onclick}>
                    <td>{ topo.name(*o) }</td><td class="muted">{ &topo.dcs[*o as usize] }</td>
                    <td>{ topo.name(*q) }</td><td class="muted">{ &topo.dcs[*q as usize] }</td>
                    <td>{ state }</td>
                </tr>
            }
        });
        let ontoggle = {
            let list_open = list_open.clone();
            Callback::from(move |e: Event| {
                let open = e
                    .target_dyn_into::<web_sys::Element>()
                    .is_some_and(|d| d.has_attribute("open"));
                if *list_open != open {
                    list_open.set(open);
                }
            })
        };
        html! {
            <details class="notable" id="matrix-list" open={*list_open} {ontoggle}>
                <summary>{ format!("All {count} listed") }</summary>
                <div class="notable-tools">
                    <button id="matrix-csv" class="btn small-btn" onclick={on_csv}>{ "Download CSV" }</button>
                    { crate::kit::slot((count > MAX_LIST_ROWS).then(|| html! { <span class="muted small">{ format!("the first {MAX_LIST_ROWS} shown; the CSV has all {count}") }</span> })) }
                </div>
                <div class="table-wrap small-tbl">
                    <table class="tbl"><thead><tr><th>{ "observer" }</th><th>{ "DC" }</th><th>{ "peer" }</th><th>{ "DC" }</th><th>{ "state" }</th></tr></thead>
                    <tbody>{ for rows }</tbody></table>
                </div>
            </details>
        }
    });
    let zoomed = opts.zoom.is_some();
    html! {
        <section class="card matrix-card" aria-label={spec.title}>
            <div class="card-head">
                <h2>{ spec.title }</h2>
                <span class="muted small">{ spec.axes }</span>
            </div>
            <div class="matrix-tools">
                { check("most notable first", "matrix-sort", opts.sort_notable, toggle(|o| o.sort_notable = !o.sort_notable)) }
                { check("only rows/columns with notable cells", "matrix-only", opts.only_notable, toggle(|o| o.only_notable = !o.only_notable)) }
                {
                    if zoomed {
                        html! { <button id="matrix-unzoom" class="btn small-btn" onclick={reset_zoom}>{ "Reset zoom" }</button> }
                    } else {
                        html! { <span class="muted small">{ "drag a region to zoom" }</span> }
                    }
                }
                <span class="muted small" id="matrix-shape">{ format!("{} × {} shown", view.rows.len(), view.cols.len()) }</span>
            </div>
            <div class="matrix-wrap">
                <canvas id={if p.side.is_some() { "matrix-b" } else { "matrix" }} ref={canvas} class={classes!("matrix", size)}
                    data-down={listed.join(",")} data-down-count={count.to_string()}
                    data-rows={view.rows.len().to_string()} data-cols={view.cols.len().to_string()}
                    onmousemove={on_move} onmouseleave={on_leave} onmousedown={on_down} onmouseup={on_up}
                    aria-label={aria}></canvas>
                { crate::kit::slot(tip) }
            </div>
            <div class="legend">
                <>{ for spec.legend.iter().map(|(c, what)| html! {
                    <span class="lg"><i class="sq" style={format!("background:{}", model_color(&pal, c))}></i>{ *what }</span>
                }) }</>
                <>{ for spec.mark.map(|what| html! { <span class="lg"><i class="sq dotted"></i>{ what }</span> }) }</>
            </div>
            <p id="matrix-summary" class={classes!("summary", sum.bad.then_some("bad"))}>{ sum.text.clone() }</p>
            { crate::kit::slot(list) }
        </section>
    }
}
