//! The N x N matrix a model declares (`Model::matrix`): row = observer, column = peer, each cell
//! coloured by its class in the model's legend, with the model's short text and a dot where it
//! marks one (gossip: the liveness matrix, a dot for a stuck inflight echo; Raft: who each node
//! believes is leader). It draws a [`MatrixView`] (the rows and columns the card shows, in its
//! order), with lines between DCs and the DC names.

use super::{model_color, Palette};
use crate::model::matrix_view::{dc_ranks, MatrixView};
use crate::model::Model;
use clusterscope_core::engine::NodeId;
use web_sys::CanvasRenderingContext2d as Ctx;

/// The colour of each legend class of the model's matrix.
fn colors(m: &Model, p: &Palette) -> Vec<&'static str> {
    m.run
        .engine
        .matrix()
        .map(|s| s.legend.iter().map(|(c, _)| model_color(p, c)).collect())
        .unwrap_or_default()
}

#[derive(Clone, Debug, PartialEq)]
pub struct Geom {
    pub x0: f64,
    pub y0: f64,
    pub cell: f64,
    /// The observers (rows) and peers (columns) shown.
    pub rows: Vec<NodeId>,
    pub cols: Vec<NodeId>,
    pub labels: bool,
    /// Column headers drawn vertically (full names wider than a cell).
    pub vertical: bool,
    /// Gutters for DC names (large views of several DCs).
    pub dc_gutter: bool,
    /// Lines between DCs (off when the order is not by DC: they would be noise).
    pub dc_lines: bool,
}

/// Font of the row and column labels.
pub const LABEL_FONT: &str = "11px system-ui, sans-serif";
/// Views up to this many rows and columns name every node.
pub const LABELS_UP_TO: usize = 40;

/// The geometry for `view` in `w` x `h`; `label_w` is the width of the widest node name in
/// [`LABEL_FONT`] (labels are drawn whole: a gutter as wide as the widest name, and column
/// headers turned vertical when a name is wider than a cell); `dcs`: the topology has several.
pub fn geom(view: &MatrixView, w: f64, h: f64, label_w: f64, dcs: bool) -> Geom {
    let (nr, nc) = (view.rows.len().max(1), view.cols.len().max(1));
    let labels = nr <= LABELS_UP_TO && nc <= LABELS_UP_TO;
    let fit = |gx: f64, gy: f64| {
        ((w - gx - 4.0) / nc as f64)
            .min((h - gy - 4.0) / nr as f64)
            .clamp(1.0, 56.0)
    };
    let dc_gutter = dcs && !labels;
    let (gx, gy, vertical) = if labels {
        let gx = (label_w + 10.0).clamp(24.0, (w * 0.35).max(24.0));
        let flat = fit(gx, 18.0);
        if flat >= label_w + 4.0 {
            (gx, 18.0, false)
        } else {
            (gx, (label_w + 10.0).clamp(18.0, (h * 0.35).max(18.0)), true)
        }
    } else if dc_gutter {
        (18.0, 16.0, false)
    } else {
        (6.0, 6.0, false)
    };
    let cell = fit(gx, gy);
    let x0 = gx + ((w - gx - cell * nc as f64) / 2.0).max(0.0);
    Geom {
        x0,
        y0: gy,
        cell,
        rows: view.rows.clone(),
        cols: view.cols.clone(),
        labels,
        vertical,
        dc_gutter,
        dc_lines: true,
    }
}

impl Geom {
    /// The (row, column) positions under a point, clamped to the view when `clamp`.
    pub fn pos_at(&self, x: f64, y: f64, clamp: bool) -> Option<(usize, usize)> {
        let (cx, cy) = ((x - self.x0) / self.cell, (y - self.y0) / self.cell);
        let (nr, nc) = (self.rows.len(), self.cols.len());
        if clamp {
            if nr == 0 || nc == 0 {
                return None;
            }
            return Some((
                (cy.max(0.0) as usize).min(nr - 1),
                (cx.max(0.0) as usize).min(nc - 1),
            ));
        }
        if cx < 0.0 || cy < 0.0 {
            return None;
        }
        let (c, r) = (cx as usize, cy as usize);
        (c < nc && r < nr).then_some((r, c))
    }

    /// The (observer, peer) cell under a point.
    pub fn cell_at(&self, x: f64, y: f64) -> Option<(NodeId, NodeId)> {
        self.pos_at(x, y, false)
            .map(|(r, c)| (self.rows[r], self.cols[c]))
    }

    fn image(&self) -> bool {
        self.rows.len() > IMAGE_ABOVE || self.cols.len() > IMAGE_ABOVE
    }
}

fn rgba(hex: &str) -> [u8; 4] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0x808080);
    [(v >> 16) as u8, (v >> 8) as u8, v as u8, 255]
}

/// Views with more rows or columns than this are drawn as an image, one pixel per cell, scaled up.
pub const IMAGE_ABOVE: usize = 40;

/// RGBA pixels of the view, one per cell (row-major, observer rows).
pub fn pixels(m: &Model, view: &MatrixView, p: &Palette) -> Vec<u8> {
    let colors: Vec<[u8; 4]> = colors(m, p).into_iter().map(rgba).collect();
    // The classes alone, a block at a time: a cell's tooltip strings cost far more, 63,000
    // times a frame.
    let mut classes = Vec::new();
    m.run
        .engine
        .matrix_classes(&view.rows, &view.cols, &mut classes);
    // Each pixel written in one store (extending a Vec by 4 bytes at a time cost more than the
    // classes themselves).
    let mut out = vec![0u8; classes.len() * 4];
    for (px, class) in out.chunks_exact_mut(4).zip(classes) {
        px.copy_from_slice(colors.get(class as usize).unwrap_or(&[128, 128, 128, 255]));
    }
    out
}

thread_local! {
    /// The scratch canvas the pixels go through (kept between frames).
    static SCRATCH: std::cell::RefCell<Option<web_sys::HtmlCanvasElement>> =
        const { std::cell::RefCell::new(None) };
}

fn draw_image(ctx: &Ctx, data: &[u8], g: &Geom) -> Option<()> {
    use wasm_bindgen::{Clamped, JsCast};
    let (nr, nc) = (g.rows.len() as u32, g.cols.len() as u32);
    if nr == 0 || nc == 0 {
        return None;
    }
    let img = web_sys::ImageData::new_with_u8_clamped_array_and_sh(Clamped(data), nc, nr).ok()?;
    let scratch = SCRATCH.with(|c| c.borrow().clone()).or_else(|| {
        let c = web_sys::window()?
            .document()?
            .create_element("canvas")
            .ok()?
            .dyn_into::<web_sys::HtmlCanvasElement>()
            .ok()?;
        SCRATCH.with(|s| *s.borrow_mut() = Some(c.clone()));
        Some(c)
    })?;
    if scratch.width() != nc || scratch.height() != nr {
        scratch.set_width(nc);
        scratch.set_height(nr);
    }
    let sctx = scratch
        .get_context("2d")
        .ok()??
        .dyn_into::<web_sys::CanvasRenderingContext2d>()
        .ok()?;
    sctx.put_image_data(&img, 0.0, 0.0).ok()?;
    ctx.set_image_smoothing_enabled(false);
    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
        &scratch,
        g.x0,
        g.y0,
        g.cell * nc as f64,
        g.cell * nr as f64,
    )
    .ok()?;
    Some(())
}

/// Draw the view; `image` is [`pixels`] of it for an image-sized view (computed here when
/// `None`). Returns the row labels drawn (whole node names), for `data-row-labels`.
pub fn draw(
    ctx: &Ctx,
    m: &Model,
    g: &Geom,
    hover: Option<(NodeId, NodeId)>,
    p: &Palette,
    image: Option<&[u8]>,
) -> Vec<String> {
    let mut drawn = Vec::new();
    let (nr, nc) = (g.rows.len(), g.cols.len());
    let legend = colors(m, p);
    let gap = if g.cell >= 6.0 { 1.0 } else { 0.0 };
    if g.image() {
        match image {
            Some(data) => draw_image(ctx, data, g),
            None => {
                let view = MatrixView {
                    rows: g.rows.clone(),
                    cols: g.cols.clone(),
                };
                draw_image(ctx, &pixels(m, &view, p), g)
            }
        };
    } else {
        for (r, &o) in g.rows.iter().enumerate() {
            for (k, &q) in g.cols.iter().enumerate() {
                let c = m.run.engine.matrix_cell(o, q);
                ctx.set_fill_style_str(legend.get(c.class as usize).copied().unwrap_or(p.muted));
                let (x, y) = (g.x0 + k as f64 * g.cell, g.y0 + r as f64 * g.cell);
                ctx.fill_rect(x, y, g.cell - gap, g.cell - gap);
                if !c.text.is_empty() && g.cell >= 18.0 {
                    let size = (g.cell * 0.38).clamp(8.0, 13.0);
                    ctx.set_fill_style_str(p.fg);
                    ctx.set_font(&format!("{size}px system-ui, sans-serif"));
                    ctx.set_text_align("center");
                    let _ = ctx.fill_text(
                        &c.text
                            .chars()
                            .take((g.cell / (size * 0.6)) as usize)
                            .collect::<String>(),
                        x + (g.cell - gap) / 2.0,
                        y + (g.cell - gap) / 2.0 + size / 3.0,
                    );
                }
                if g.cell >= 8.0 && c.mark && c.text.is_empty() {
                    ctx.set_fill_style_str(p.fg);
                    ctx.begin_path();
                    let _ = ctx.arc(
                        x + (g.cell - gap) / 2.0,
                        y + (g.cell - gap) / 2.0,
                        (g.cell / 7.0).clamp(1.5, 4.0),
                        0.0,
                        std::f64::consts::TAU,
                    );
                    ctx.fill();
                }
            }
        }
    }
    draw_dcs(ctx, m, g, p);
    if let Some(r) = m.selected.and_then(|s| g.rows.iter().position(|x| *x == s)) {
        ctx.set_stroke_style_str(p.accent);
        ctx.set_line_width(1.5);
        ctx.stroke_rect(
            g.x0 - 1.0,
            g.y0 + r as f64 * g.cell - 1.0,
            g.cell * nc as f64 + 1.0,
            g.cell + 1.0,
        );
    }
    if let Some((o, q)) = hover {
        if let (Some(r), Some(k)) = (
            g.rows.iter().position(|x| *x == o),
            g.cols.iter().position(|x| *x == q),
        ) {
            ctx.set_stroke_style_str(p.fg);
            ctx.set_line_width(1.5);
            ctx.stroke_rect(
                g.x0 + k as f64 * g.cell - 0.5,
                g.y0 + r as f64 * g.cell - 0.5,
                g.cell,
                g.cell,
            );
        }
    }
    if g.labels {
        let topo = &m.run.scenario.topo;
        ctx.set_fill_style_str(p.muted);
        ctx.set_font(LABEL_FONT);
        for (r, &o) in g.rows.iter().enumerate() {
            let name = topo.name(o);
            ctx.set_text_align("right");
            let _ = ctx.fill_text(name, g.x0 - 5.0, g.y0 + (r as f64 + 0.5) * g.cell + 4.0);
            drawn.push(name.to_string());
        }
        for (k, &q) in g.cols.iter().enumerate() {
            let name = topo.name(q);
            let x = g.x0 + (k as f64 + 0.5) * g.cell;
            if g.vertical {
                // Read bottom-up, ending just above its column.
                ctx.save();
                let _ = ctx.translate(x + 4.0, g.y0 - 5.0);
                let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
                ctx.set_text_align("left");
                let _ = ctx.fill_text(name, 0.0, 0.0);
                ctx.restore();
            } else {
                ctx.set_text_align("center");
                let _ = ctx.fill_text(name, x, g.y0 - 5.0);
            }
        }
    }
    let _ = nr;
    drawn
}

/// Lines between DCs (where the view's order changes DC) and, in large views, the DC names in
/// the gutters.
fn draw_dcs(ctx: &Ctx, m: &Model, g: &Geom, p: &Palette) {
    let topo = &m.run.scenario.topo;
    let rank = dc_ranks(topo);
    if !g.dc_lines || rank.iter().all(|r| *r == 0) {
        return;
    }
    let (nr, nc) = (g.rows.len() as f64, g.cols.len() as f64);
    // Runs of one DC along an axis: (DC of the run, first position, end position).
    let runs = |ids: &[NodeId]| -> Vec<(NodeId, usize, usize)> {
        let mut out: Vec<(NodeId, usize, usize)> = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            match out.last_mut() {
                Some(last) if rank[last.0 as usize] == rank[*id as usize] => last.2 = i + 1,
                _ => out.push((*id, i, i + 1)),
            }
        }
        out
    };
    let (row_runs, col_runs) = (runs(&g.rows), runs(&g.cols));
    ctx.set_stroke_style_str(p.fg);
    ctx.set_global_alpha(0.7);
    ctx.set_line_width(1.5);
    for &(_, a, _) in row_runs.iter().skip(1) {
        let y = g.y0 + a as f64 * g.cell - 0.5;
        ctx.begin_path();
        ctx.move_to(g.x0 - if g.dc_gutter { 14.0 } else { 0.0 }, y);
        ctx.line_to(g.x0 + nc * g.cell, y);
        ctx.stroke();
    }
    for &(_, a, _) in col_runs.iter().skip(1) {
        let x = g.x0 + a as f64 * g.cell - 0.5;
        ctx.begin_path();
        ctx.move_to(x, g.y0 - if g.dc_gutter { 12.0 } else { 0.0 });
        ctx.line_to(x, g.y0 + nr * g.cell);
        ctx.stroke();
    }
    ctx.set_global_alpha(1.0);
    if !g.dc_gutter {
        return;
    }
    ctx.set_fill_style_str(p.muted);
    ctx.set_font("10px system-ui, sans-serif");
    ctx.set_text_align("center");
    for &(id, a, b) in &col_runs {
        let span = (b - a) as f64 * g.cell;
        if span >= 24.0 {
            let _ = ctx.fill_text(
                &topo.dcs[id as usize],
                g.x0 + (a + b) as f64 / 2.0 * g.cell,
                g.y0 - 4.0,
            );
        }
    }
    for &(id, a, b) in &row_runs {
        let span = (b - a) as f64 * g.cell;
        if span >= 24.0 {
            ctx.save();
            let _ = ctx.translate(g.x0 - 6.0, g.y0 + (a + b) as f64 / 2.0 * g.cell);
            let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
            let _ = ctx.fill_text(&topo.dcs[id as usize], 0.0, 0.0);
            ctx.restore();
        }
    }
}

/// The widest node name in [`LABEL_FONT`].
pub fn label_width(ctx: &Ctx, m: &Model, view: &MatrixView) -> f64 {
    if view.rows.len() > LABELS_UP_TO || view.cols.len() > LABELS_UP_TO {
        return 0.0;
    }
    ctx.set_font(LABEL_FONT);
    let topo = &m.run.scenario.topo;
    view.rows
        .iter()
        .chain(&view.cols)
        .filter_map(|id| ctx.measure_text(topo.name(*id)).ok())
        .map(|t| t.width())
        .fold(0.0, f64::max)
}
