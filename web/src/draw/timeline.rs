//! The timeline scrubber: captions, faults and user actions on top, the computed region and the
//! cursor in the middle, DOWN/UP state changes as a density strip below.

use super::Palette;
use crate::model::nav::MarkKind;
use crate::model::Model;
use clusterscope_core::time::Micros;
use web_sys::CanvasRenderingContext2d as Ctx;

pub const PAD: f64 = 10.0;
const TRACK_Y: f64 = 18.0;
const TRACK_H: f64 = 9.0;
const DENSITY_Y: f64 = 29.0;

pub fn x_of(t: Micros, end: Micros, w: f64) -> f64 {
    PAD + (t as f64 / end.max(1) as f64) * (w - 2.0 * PAD)
}

pub fn t_of(x: f64, end: Micros, w: f64) -> Micros {
    let f = ((x - PAD) / (w - 2.0 * PAD)).clamp(0.0, 1.0);
    (f * end as f64).round() as Micros
}

fn tri(ctx: &Ctx, x: f64, y: f64, s: f64, color: &str) {
    ctx.set_fill_style_str(color);
    ctx.begin_path();
    ctx.move_to(x - s, y);
    ctx.line_to(x + s, y);
    ctx.line_to(x, y + s * 1.4);
    ctx.close_path();
    ctx.fill();
}

pub fn draw(ctx: &Ctx, m: &Model, w: f64, h: f64, hover_x: Option<f64>, p: &Palette) {
    let end = m.end();
    // Track and computed region.
    ctx.set_fill_style_str(p.grid);
    ctx.fill_rect(PAD, TRACK_Y, w - 2.0 * PAD, TRACK_H);
    ctx.set_fill_style_str(p.link);
    let fx = x_of(m.frontier_time().min(end), end, w);
    ctx.fill_rect(PAD, TRACK_Y, fx - PAD, TRACK_H);
    ctx.set_fill_style_str(p.accent);
    ctx.set_global_alpha(0.55);
    let cx = x_of(m.now(), end, w);
    ctx.fill_rect(PAD, TRACK_Y, cx - PAD, TRACK_H);
    ctx.set_global_alpha(1.0);

    // Scheduled faults (all, including the future) and captions.
    for (t, _) in m.run.engine.schedule() {
        tri(ctx, x_of(*t, end, w), 4.0, 4.0, p.fault);
    }
    for (t, _) in &m.captions {
        let x = x_of(*t, end, w);
        ctx.set_fill_style_str(p.caption);
        ctx.fill_rect(x - 1.0, 2.0, 2.0, 14.0);
    }
    for a in m.run.engine.user_actions() {
        tri(ctx, x_of(a.at.0, end, w), 4.0, 5.0, p.user);
    }
    for a in &m.pending_timed {
        ctx.set_global_alpha(0.5);
        tri(ctx, x_of(a.at.0, end, w), 4.0, 5.0, p.user);
        ctx.set_global_alpha(1.0);
    }

    // State-change density per pixel column.
    let cols = (w - 2.0 * PAD).max(1.0) as usize + 1;
    let mut down = vec![0u32; cols];
    let mut up = vec![0u32; cols];
    for mk in &m.marks.marks {
        let c = (x_of(mk.time, end, w) - PAD).max(0.0) as usize;
        match mk.kind {
            MarkKind::Down => down[c.min(cols - 1)] += 1,
            MarkKind::Up => up[c.min(cols - 1)] += 1,
            _ => {}
        }
    }
    let band = ((h - DENSITY_Y - 14.0) / 2.0).max(3.0);
    let max = down
        .iter()
        .chain(up.iter())
        .copied()
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let scale = |v: u32| {
        if v == 0 {
            0.0
        } else {
            (1.0 + (v as f64).ln() / max.ln().max(1.0) * (band - 2.0)).min(band)
        }
    };
    for c in 0..cols {
        let x = PAD + c as f64;
        if down[c] > 0 {
            ctx.set_fill_style_str(p.down);
            let hh = scale(down[c]);
            ctx.fill_rect(x, DENSITY_Y + band - hh, 1.0, hh);
        }
        if up[c] > 0 {
            ctx.set_fill_style_str(p.up);
            ctx.fill_rect(x, DENSITY_Y + band + 1.0, 1.0, scale(up[c]));
        }
    }

    // Time ticks under the track.
    let step = tick_step(end, w);
    ctx.set_fill_style_str(p.muted);
    ctx.set_font("10px system-ui, sans-serif");
    ctx.set_text_align("center");
    let mut tt = step;
    while tt < end {
        let x = x_of(tt, end, w);
        ctx.fill_rect(x, TRACK_Y + TRACK_H, 1.0, 3.0);
        let _ = ctx.fill_text(&tick_label(tt), x, h - 3.0);
        tt += step;
    }

    // Cursor.
    ctx.set_fill_style_str(p.fg);
    ctx.fill_rect(cx - 1.0, 0.0, 2.0, h);
    if let Some(x) = hover_x {
        ctx.set_fill_style_str(p.muted);
        ctx.set_global_alpha(0.6);
        ctx.fill_rect(x - 0.5, 0.0, 1.0, h);
        ctx.set_global_alpha(1.0);
    }
}

/// Text for the marker nearest to `x` (within a few pixels), for the hover tooltip.
pub fn describe_at(m: &Model, x: f64, w: f64) -> Option<String> {
    let end = m.end();
    let near = |t: Micros| (x_of(t, end, w) - x).abs() <= 4.0;
    let mut out: Vec<String> = Vec::new();
    for (t, c) in &m.captions {
        if near(*t) {
            out.push(format!("caption: {}", truncate(c, 90)));
        }
    }
    for (t, a) in m.run.engine.schedule() {
        if near(*t) {
            out.push(format!("fault: {}", a.describe()));
        }
    }
    for a in m.run.engine.user_actions() {
        if near(a.at.0) {
            out.push(format!("your action: {}", a.action.describe()));
        }
    }
    let (mut d, mut u) = (0, 0);
    for mk in &m.marks.marks {
        if near(mk.time) {
            match mk.kind {
                MarkKind::Down => d += 1,
                MarkKind::Up => u += 1,
                _ => {}
            }
        }
    }
    if d + u > 0 {
        out.push(format!("{d} marked DOWN, {u} marked UP"));
    }
    out.truncate(4);
    (!out.is_empty()).then(|| out.join("\n"))
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let t: String = s.chars().take(n).collect();
        format!("{t}…")
    }
}

/// A round tick interval giving labels at least ~70 px apart.
fn tick_step(end: Micros, w: f64) -> Micros {
    let want = (end as f64 / ((w - 2.0 * PAD) / 70.0).max(1.0)).max(1.0);
    let candidates: [Micros; 16] = [
        1_000,
        10_000,
        100_000,
        500_000,
        1_000_000,
        2_000_000,
        5_000_000,
        10_000_000,
        15_000_000,
        30_000_000,
        60_000_000,
        120_000_000,
        300_000_000,
        600_000_000,
        1_800_000_000,
        3_600_000_000,
    ];
    candidates
        .into_iter()
        .find(|c| *c as f64 >= want)
        .unwrap_or(3_600_000_000)
}

fn tick_label(t: Micros) -> String {
    if t.is_multiple_of(60_000_000) && t > 0 {
        format!("{}m", t / 60_000_000)
    } else if t >= 60_000_000 {
        format!("{}m{:02}s", t / 60_000_000, (t / 1_000_000) % 60)
    } else if t.is_multiple_of(1_000_000) {
        format!("{}s", t / 1_000_000)
    } else {
        format!("{}ms", t / 1000)
    }
}
