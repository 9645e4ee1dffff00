//! Compare mode on canvas: the first divergence on the shared timeline, and the matrix cells
//! that differ between the two sides.

use super::matrix::Geom;
use super::{timescale, Palette};
use crate::model::Model;
use clusterscope_core::engine::NodeId;
use web_sys::CanvasRenderingContext2d as Ctx;

/// The colour of everything that marks a difference between the sides (in both themes: it
/// must stand apart from the matrix's and the timeline's own colours).
pub const DIFF: &str = "#c026d3";

/// The first divergence on the timeline (drawn over `timeline::draw`): a line across the
/// track and a diamond on top.
pub fn mark_divergence(ctx: &Ctx, m: &Model, w: f64, h: f64) {
    let Some(d) = m.compare.as_ref().and_then(|c| c.divergence()) else {
        return;
    };
    // In the timeline's zoom window (issue 14); nothing when the divergence lies outside it.
    let view = m.view();
    if d.time_us < view.0 || d.time_us > view.1 {
        return;
    }
    let x = timescale::x_in(d.time_us, view, w);
    ctx.set_fill_style_str(DIFF);
    ctx.fill_rect(x - 1.0, 2.0, 2.0, h - 4.0);
    ctx.begin_path();
    ctx.move_to(x, 1.0);
    ctx.line_to(x + 5.0, 6.0);
    ctx.line_to(x, 11.0);
    ctx.line_to(x - 5.0, 6.0);
    ctx.close_path();
    ctx.fill();
}

/// Outline the cells in `cells` (observer, peer) that the geometry shows.
pub fn outline_cells(ctx: &Ctx, g: &Geom, cells: Option<&[(NodeId, NodeId)]>, _p: &Palette) {
    let Some(cells) = cells.filter(|c| !c.is_empty()) else {
        return;
    };
    let n = g
        .rows
        .iter()
        .chain(g.cols.iter())
        .map(|x| *x as usize + 1)
        .max()
        .unwrap_or(0);
    let (mut row, mut col) = (vec![usize::MAX; n], vec![usize::MAX; n]);
    for (i, r) in g.rows.iter().enumerate() {
        row[*r as usize] = i;
    }
    for (i, c) in g.cols.iter().enumerate() {
        col[*c as usize] = i;
    }
    ctx.set_stroke_style_str(DIFF);
    ctx.set_line_width(if g.cell >= 8.0 { 2.0 } else { 1.0 });
    for (o, q) in cells {
        let (Some(&r), Some(&k)) = (row.get(*o as usize), col.get(*q as usize)) else {
            continue;
        };
        if r == usize::MAX || k == usize::MAX {
            continue;
        }
        let (x, y) = (g.x0 + k as f64 * g.cell, g.y0 + r as f64 * g.cell);
        let inset = if g.cell >= 8.0 { 1.0 } else { 0.0 };
        ctx.stroke_rect(
            x + inset,
            y + inset,
            (g.cell - 2.0 * inset).max(1.0),
            (g.cell - 2.0 * inset).max(1.0),
        );
    }
}
