//! Safety violations on canvas (issue 38): a red bar with a "!" disc on the timeline at every
//! violation computed so far (before the cursor gets there too), a tick on the overview strip,
//! and a red ring with a "!" badge around the nodes of the latest violation the cursor has
//! passed on the topology. The data is `Trace::violations` (any model whose `Protocol::check`
//! reports one).

use super::{timescale, Palette};
use crate::layout::Pt;
use crate::model::Model;
use clusterscope_core::engine::trace::ViolationRec;
use clusterscope_core::engine::NodeId;
use clusterscope_core::time::Micros;
use std::f64::consts::PI;
use web_sys::CanvasRenderingContext2d as Ctx;

/// Radius of the timeline's "!" disc.
const DISC_R: f64 = 6.0;

/// The violations' times in the timeline window, one per pixel column.
fn times_in(m: &Model, view: (Micros, Micros)) -> impl Iterator<Item = Micros> + '_ {
    m.run
        .engine
        .trace()
        .violations
        .iter()
        .map(|v| v.time)
        .filter(move |t| (view.0..=view.1).contains(t))
}

/// On the timeline (drawn over `timeline::draw`, under the cursor): a red bar from the top to
/// the tick labels and a "!" disc on the track.
pub fn mark_timeline(ctx: &Ctx, m: &Model, w: f64, h: f64, p: &Palette) {
    let view = m.view();
    let mut last = f64::NEG_INFINITY;
    let y = timescale::TRACK_Y + timescale::TRACK_H / 2.0;
    for t in times_in(m, view) {
        let x = timescale::x_in(t, view, w).round();
        if x == last {
            continue;
        }
        last = x;
        ctx.set_fill_style_str(p.down);
        ctx.fill_rect(x - 1.5, 0.0, 3.0, (h - 14.0).max(y));
        ctx.begin_path();
        let _ = ctx.arc(x, y, DISC_R, 0.0, 2.0 * PI);
        ctx.fill();
        ctx.set_fill_style_str("#ffffff");
        ctx.set_font("700 10px system-ui, sans-serif");
        ctx.set_text_align("center");
        let _ = ctx.fill_text("!", x, y + 3.5);
    }
}

/// On the overview strip: a red tick at each violation.
pub fn mark_overview(ctx: &Ctx, m: &Model, w: f64, h: f64, p: &Palette) {
    ctx.set_fill_style_str(p.down);
    for v in &m.run.engine.trace().violations {
        let x = timescale::x_of(v.time, m.end(), w);
        ctx.fill_rect(x - 1.0, 0.0, 2.0, h);
    }
}

/// The hover text for violations near `x` (within 4 px).
pub fn describe_at(m: &Model, x: f64, w: f64) -> Vec<String> {
    let view = m.view();
    let names = &m.run.scenario.topo.names;
    m.run
        .engine
        .trace()
        .violations
        .iter()
        .filter(|v| (timescale::x_in(v.time, view, w) - x).abs() <= 4.0)
        .map(|v| {
            format!(
                "safety violated: {} ({})",
                v.violation,
                node_names(names, v)
            )
        })
        .collect()
}

/// The node names of a violation, comma-separated.
pub fn node_names(names: &[String], v: &ViolationRec) -> String {
    v.violation
        .nodes
        .iter()
        .filter_map(|&n| names.get(n as usize).map(String::as_str))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The nodes the topology outlines: those of the latest violation the cursor has passed.
pub fn nodes_now(m: &Model) -> &[NodeId] {
    m.run
        .engine
        .trace()
        .violations_before(m.cursor())
        .last()
        .map_or(&[], |v| &v.violation.nodes)
}

/// A red ring around a node of a violation, outside the selection ring and the model's arc,
/// and (when the node is large enough) a "!" badge at its upper left (clear of the badge line
/// under the node and of the count badge at its upper right).
pub fn ring(ctx: &Ctx, c: Pt, r: f64, p: &Palette) {
    let (gap, width) = if r >= 8.0 { (8.5, 3.0) } else { (4.0, 2.0) };
    ctx.set_stroke_style_str(p.down);
    ctx.set_line_width(width);
    ctx.begin_path();
    let _ = ctx.arc(c.x, c.y, r + gap, 0.0, 2.0 * PI);
    ctx.stroke();
    if r >= 8.0 {
        let (bx, by) = (c.x - (r + gap) * 0.72, c.y - (r + gap) * 0.72);
        ctx.set_fill_style_str(p.down);
        ctx.begin_path();
        let _ = ctx.arc(bx, by, 7.0, 0.0, 2.0 * PI);
        ctx.fill();
        ctx.set_fill_style_str("#ffffff");
        ctx.set_font("700 11px system-ui, sans-serif");
        ctx.set_text_align("center");
        let _ = ctx.fill_text("!", bx, by + 4.0);
    }
}
