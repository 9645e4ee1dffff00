//! The N x N matrix a model declares (`Model::matrix`): row = observer, column = peer, each cell
//! coloured by its class in the model's legend, with the model's short text and a dot where it
//! marks one (gossip: the liveness matrix, a dot for a stuck inflight echo; Raft: who each node
//! believes is leader).

use super::{model_color, Palette};
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

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geom {
    pub x0: f64,
    pub y0: f64,
    pub cell: f64,
    pub n: usize,
    pub labels: bool,
}

pub fn geom(n: usize, w: f64, h: f64) -> Geom {
    let labels = n <= 40;
    let gutter = if labels { 40.0 } else { 6.0 };
    let cell = ((w - gutter - 4.0) / n as f64)
        .min((h - gutter - 4.0) / n as f64)
        .clamp(1.0, 56.0);
    let side = cell * n as f64;
    let x0 = gutter + ((w - gutter - side) / 2.0).max(0.0);
    Geom {
        x0,
        y0: gutter,
        cell,
        n,
        labels,
    }
}

impl Geom {
    /// The (observer, peer) cell under a point.
    pub fn cell_at(&self, x: f64, y: f64) -> Option<(NodeId, NodeId)> {
        let (cx, cy) = ((x - self.x0) / self.cell, (y - self.y0) / self.cell);
        if cx < 0.0 || cy < 0.0 {
            return None;
        }
        let (c, r) = (cx as usize, cy as usize);
        (c < self.n && r < self.n).then_some((r as NodeId, c as NodeId))
    }
}

fn rgba(hex: &str) -> [u8; 4] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0x808080);
    [(v >> 16) as u8, (v >> 8) as u8, v as u8, 255]
}

/// Clusters above this size are drawn as an image, one pixel per cell, scaled up.
pub const IMAGE_ABOVE: usize = 40;

/// RGBA pixels of the matrix, one per cell (row-major, observer rows).
pub fn pixels(m: &Model, p: &Palette) -> Vec<u8> {
    let n = m.n();
    let colors: Vec<[u8; 4]> = colors(m, p).into_iter().map(rgba).collect();
    let mut out = Vec::with_capacity(n * n * 4);
    for o in 0..n as NodeId {
        for q in 0..n as NodeId {
            let c = m.run.engine.matrix_cell(o, q);
            out.extend_from_slice(
                colors
                    .get(c.class as usize)
                    .unwrap_or(&[128, 128, 128, 255]),
            );
        }
    }
    out
}

thread_local! {
    /// The n x n scratch canvas the pixels go through (kept between frames).
    static SCRATCH: std::cell::RefCell<Option<web_sys::HtmlCanvasElement>> =
        const { std::cell::RefCell::new(None) };
}

fn draw_image(ctx: &Ctx, data: &[u8], g: &Geom) -> Option<()> {
    use wasm_bindgen::{Clamped, JsCast};
    let n = g.n as u32;
    let img = web_sys::ImageData::new_with_u8_clamped_array_and_sh(Clamped(data), n, n).ok()?;
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
    if scratch.width() != n || scratch.height() != n {
        scratch.set_width(n);
        scratch.set_height(n);
    }
    let sctx = scratch
        .get_context("2d")
        .ok()??
        .dyn_into::<web_sys::CanvasRenderingContext2d>()
        .ok()?;
    sctx.put_image_data(&img, 0.0, 0.0).ok()?;
    ctx.set_image_smoothing_enabled(false);
    let side = g.cell * g.n as f64;
    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&scratch, g.x0, g.y0, side, side)
        .ok()?;
    Some(())
}

/// Draw the matrix; `image` is [`pixels`] of the model when the cluster is above
/// [`IMAGE_ABOVE`] (drawn as one image), ignored otherwise.
pub fn draw(
    ctx: &Ctx,
    m: &Model,
    g: &Geom,
    hover: Option<(NodeId, NodeId)>,
    p: &Palette,
    image: Option<&[u8]>,
) {
    let n = g.n;
    let legend = colors(m, p);
    let gap = if g.cell >= 6.0 { 1.0 } else { 0.0 };
    if n > IMAGE_ABOVE {
        match image {
            Some(data) => draw_image(ctx, data, g),
            None => draw_image(ctx, &pixels(m, p), g),
        };
    }
    for o in 0..n as NodeId {
        if n > IMAGE_ABOVE {
            break;
        }
        for q in 0..n as NodeId {
            let c = m.run.engine.matrix_cell(o, q);
            ctx.set_fill_style_str(legend.get(c.class as usize).copied().unwrap_or(p.muted));
            let (x, y) = (g.x0 + q as f64 * g.cell, g.y0 + o as f64 * g.cell);
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
    if let Some(s) = m.selected {
        ctx.set_stroke_style_str(p.accent);
        ctx.set_line_width(1.5);
        ctx.stroke_rect(
            g.x0 - 1.0,
            g.y0 + s as f64 * g.cell - 1.0,
            g.cell * n as f64 + 1.0,
            g.cell + 1.0,
        );
    }
    if let Some((o, q)) = hover {
        ctx.set_stroke_style_str(p.fg);
        ctx.set_line_width(1.5);
        ctx.stroke_rect(
            g.x0 + q as f64 * g.cell - 0.5,
            g.y0 + o as f64 * g.cell - 0.5,
            g.cell,
            g.cell,
        );
    }
    if g.labels {
        let topo = &m.run.scenario.topo;
        ctx.set_fill_style_str(p.muted);
        let size = (g.cell * 0.45).clamp(8.0, 12.0);
        ctx.set_font(&format!("{size}px system-ui, sans-serif"));
        for i in 0..n as NodeId {
            let name = short(topo.name(i), 6);
            ctx.set_text_align("right");
            let _ = ctx.fill_text(
                &name,
                g.x0 - 4.0,
                g.y0 + (i as f64 + 0.5) * g.cell + size / 3.0,
            );
            // Column headers share the cell's width: narrow cells get 4 characters.
            let col = if g.cell >= 28.0 {
                name
            } else {
                short(topo.name(i), 4)
            };
            ctx.set_text_align("center");
            let _ = ctx.fill_text(&col, g.x0 + (i as f64 + 0.5) * g.cell, g.y0 - 5.0);
        }
    }
}

/// Names longer than `max` characters are shortened to their last `max` in the gutters ("node1"
/// stays whole in the row gutter; the full name is in the hover details).
fn short(name: &str, max: usize) -> String {
    let c: Vec<char> = name.chars().collect();
    if c.len() <= max {
        name.to_string()
    } else {
        c[c.len() - max..].iter().collect()
    }
}
