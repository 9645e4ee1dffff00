//! The timeline scrubber: captions (numbered as the chapters), faults and user actions on top,
//! the computed region and the cursor in the middle (dropped messages on it once zoomed in),
//! the model's state marks (gossip: DOWN/UP) as a density strip below, the model's moments
//! (Raft's elections, terms, commits: `Model::moments`) as ticks there, safety violations as red
//! bars (`draw::violation`), the `within` expectations' windows under the track (where each
//! first held). It shows the window
//! [`Model::view`] (zoom: `model/teach.rs`); [`draw_overview`] is the strip of the whole run
//! with that window, shown while zoomed.

use super::timescale::{x_in, x_of, PAD, TRACK_H, TRACK_Y};
use super::Palette;
use crate::model::nav::MarkKind;
use crate::model::teach::MAX_DROP_SCAN;
use crate::model::Model;
use clusterscope_core::engine::trace::RecKind;
use clusterscope_core::time::Micros;
use web_sys::CanvasRenderingContext2d as Ctx;

const DENSITY_Y: f64 = 29.0;
/// The colour of bookmarks (a violet apart from the captions', faults' and actions').
pub const BOOKMARK: &str = "#8b3fd9";

fn tri(ctx: &Ctx, x: f64, y: f64, s: f64, color: &str) {
    ctx.set_fill_style_str(color);
    ctx.begin_path();
    ctx.move_to(x - s, y);
    ctx.line_to(x + s, y);
    ctx.line_to(x, y + s * 1.4);
    ctx.close_path();
    ctx.fill();
}

/// Dropped messages in the window, when it holds few enough records: (time, label, key kind).
pub fn drops_in(m: &Model) -> Option<Vec<(Micros, &'static str, bool)>> {
    let (lo, hi) = m.view();
    let trace = m.run.engine.trace();
    let a = trace.recs.partition_point(|r| r.time < lo);
    let b = trace.recs.partition_point(|r| r.time <= hi);
    if b.saturating_sub(a) > MAX_DROP_SCAN {
        return None;
    }
    let e = &*m.run.engine;
    // Through the trace's index of drops, not every record of the window.
    let drops = &trace.recs.drops()[trace.recs.drops_before(a)..trace.recs.drops_before(b)];
    Some(
        drops
            .iter()
            .map(|&i| trace.recs.at(i as usize))
            .filter_map(|r| match r.kind {
                RecKind::Drop { label, .. } => Some((r.time, label, e.is_key_msg(label))),
                _ => None,
            })
            .collect(),
    )
}

/// The timeline over the window [`Model::view`]; `range` is a range being dragged (x0, x1).
/// The radius of the cursor's handles.
pub const HANDLE_R: f64 = 6.0;

pub fn draw(
    ctx: &Ctx,
    m: &Model,
    w: f64,
    h: f64,
    hover_x: Option<f64>,
    range: Option<(f64, f64)>,
    p: &Palette,
) {
    let end = m.end();
    let view = m.view();
    let (lo, hi) = view;
    // Within this function `x_of` maps the visible window (so every mark drawn here follows
    // the zoom); off-window marks land outside the track and are clipped.
    let x_of = |t: Micros, _end: Micros, w: f64| x_in(t, view, w);
    ctx.save();
    ctx.begin_path();
    ctx.rect(PAD - 6.0, 0.0, w - 2.0 * PAD + 12.0, h);
    ctx.clip();
    let clampx = |x: f64| x.clamp(PAD, (w - PAD).max(PAD));
    // Track and computed region.
    ctx.set_fill_style_str(p.grid);
    ctx.fill_rect(PAD, TRACK_Y, w - 2.0 * PAD, TRACK_H);
    ctx.set_fill_style_str(p.link);
    let fx = clampx(x_of(m.frontier_time().min(end), end, w));
    ctx.fill_rect(PAD, TRACK_Y, fx - PAD, TRACK_H);
    ctx.set_fill_style_str(p.accent);
    ctx.set_global_alpha(0.55);
    // While a drag shows a keyframe's frame, the cursor is where the pointer is, and a dashed
    // line marks the time of the frame shown (issue 44).
    let cx = x_of(m.cursor_time(), end, w);
    ctx.fill_rect(PAD, TRACK_Y, clampx(cx) - PAD, TRACK_H);
    ctx.set_global_alpha(1.0);

    // Dropped messages on the track once the window is narrow enough to list them (key kinds,
    // gossip's echoes, taller), one mark per pixel column.
    if let Some(drops) = drops_in(m) {
        let mut last_col = f64::NEG_INFINITY;
        let mut key_col = f64::NEG_INFINITY;
        ctx.set_stroke_style_str(p.down);
        ctx.set_line_width(1.5);
        for (t, _, key) in drops {
            let x = x_of(t, end, w).round();
            if (key && x == key_col) || (!key && x == last_col) {
                continue;
            }
            let s = if key { 4.0 } else { 2.5 };
            let y = TRACK_Y + TRACK_H / 2.0;
            ctx.begin_path();
            ctx.move_to(x - s, y - s);
            ctx.line_to(x + s, y + s);
            ctx.move_to(x + s, y - s);
            ctx.line_to(x - s, y + s);
            ctx.stroke();
            if key {
                key_col = x;
            } else {
                last_col = x;
            }
        }
    }

    // Scheduled faults (all, including the future) and captions; a timed cut (`down_for`) with
    // a line to its end.
    for (t, a) in m.run.engine.schedule() {
        let x = x_of(*t, end, w);
        if let Some(d) = a.cut_for() {
            let x2 = x_of(t.saturating_add(d.0), end, w);
            ctx.set_fill_style_str(p.fault);
            ctx.fill_rect(x, 4.0, (x2 - x).max(1.0), 1.5);
            ctx.fill_rect(x2 - 0.75, 3.0, 1.5, 5.0);
        }
        tri(ctx, x, 4.0, 4.0, p.fault);
    }
    // Captions, numbered as the chapters list when there is room for the number.
    ctx.set_font("600 9.5px system-ui, sans-serif");
    ctx.set_text_align("left");
    let mut free_from = f64::NEG_INFINITY;
    for (i, (t, _)) in m.captions.iter().enumerate() {
        let x = x_of(*t, end, w);
        ctx.set_fill_style_str(p.caption);
        ctx.fill_rect(x - 1.0, 2.0, 2.0, 14.0);
        let next = m
            .captions
            .get(i + 1)
            .map_or(f64::INFINITY, |c| x_of(c.0, end, w));
        if x >= free_from && next - x >= 14.0 && x > PAD - 2.0 && x < w - PAD {
            let _ = ctx.fill_text(&(i + 1).to_string(), x + 3.0, 10.0);
            free_from = x + 14.0;
        }
    }
    for a in m.run.engine.user_actions() {
        tri(ctx, x_of(a.at.0, end, w), 4.0, 5.0, p.user);
    }
    for a in &m.pending_timed {
        ctx.set_global_alpha(0.5);
        tri(ctx, x_of(a.at.0, end, w), 4.0, 5.0, p.user);
        ctx.set_global_alpha(1.0);
    }

    // Bookmarks: a pennant across the track.
    ctx.set_fill_style_str(BOOKMARK);
    for b in &m.bookmarks {
        let x = x_of(b.at_us, end, w).round();
        ctx.fill_rect(x - 1.0, TRACK_Y - 4.0, 2.0, TRACK_H + 8.0);
        ctx.begin_path();
        ctx.move_to(x, TRACK_Y - 4.0);
        ctx.line_to(x + 8.0, TRACK_Y + 0.5);
        ctx.line_to(x, TRACK_Y + 5.0);
        ctx.close_path();
        ctx.fill();
    }

    within_windows(ctx, m, &x_of_view(view, w), p);

    // State-change density per pixel column.
    let cols = (w - 2.0 * PAD).max(1.0) as usize + 1;
    let mut down = vec![0u32; cols];
    let mut up = vec![0u32; cols];
    let a = m.marks.marks.partition_point(|k| k.time < lo);
    let b = m.marks.marks.partition_point(|k| k.time <= hi);
    for mk in &m.marks.marks[a..b.max(a)] {
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

    // The model's moments (Raft's elections, terms, commits...): a tick each, one per pixel
    // column and kind, the first kinds (the most telling) drawn last, on top and taller.
    draw_moments(
        ctx,
        m,
        &x_of_view(view, w),
        DENSITY_Y,
        (2.0 * band).max(8.0),
        p,
    );

    // Time ticks under the track.
    let step = tick_step(hi - lo, w);
    ctx.set_fill_style_str(p.muted);
    ctx.set_font("10px system-ui, sans-serif");
    ctx.set_text_align("center");
    let mut tt = (lo / step + 1) * step;
    while tt < hi {
        let x = x_of(tt, end, w);
        ctx.fill_rect(x, TRACK_Y + TRACK_H, 1.0, 3.0);
        let _ = ctx.fill_text(&tick_label(tt), x, h - 3.0);
        tt += step;
    }

    // Safety violations, under the cursor.
    super::violation::mark_timeline(ctx, m, w, h, p);

    if m.scrub_approx.is_some() {
        let kx = x_of(m.now(), end, w);
        ctx.set_stroke_style_str(p.muted);
        ctx.set_line_width(1.0);
        super::topology::dash(ctx, &[3.0, 3.0]);
        ctx.begin_path();
        ctx.move_to(kx, 0.0);
        ctx.line_to(kx, h);
        ctx.stroke();
        super::topology::dash(ctx, &[]);
    }
    // Cursor, with a handle as in a media player (issue 40): a knob at the top and at the
    // bottom of the line, what a person grabs (a press anywhere scrubs).
    ctx.set_fill_style_str(p.fg);
    ctx.fill_rect(cx - 1.0, 0.0, 2.0, h);
    if cx >= PAD - 1.0 && cx <= w - PAD + 1.0 {
        ctx.set_fill_style_str(p.accent);
        ctx.set_stroke_style_str(p.bg);
        ctx.set_line_width(2.0);
        for y in [HANDLE_R + 1.0, h - HANDLE_R - 1.0] {
            ctx.begin_path();
            let _ = ctx.arc(cx, y, HANDLE_R, 0.0, std::f64::consts::TAU);
            ctx.fill();
            ctx.stroke();
        }
    }
    if let Some(x) = hover_x {
        ctx.set_fill_style_str(p.muted);
        ctx.set_global_alpha(0.6);
        ctx.fill_rect(x - 0.5, 0.0, 1.0, h);
        ctx.set_global_alpha(1.0);
    }
    // A range being dragged (released: the timeline zooms into it).
    if let Some((a, b)) = range {
        let (a, b) = (a.min(b).max(PAD), a.max(b).min(w - PAD));
        ctx.set_fill_style_str(p.accent);
        ctx.set_global_alpha(0.18);
        ctx.fill_rect(a, 0.0, b - a, h);
        ctx.set_global_alpha(1.0);
        ctx.set_stroke_style_str(p.accent);
        ctx.set_line_width(1.0);
        ctx.stroke_rect(a + 0.5, 0.5, b - a - 1.0, h - 1.0);
    }
    ctx.restore();
}

/// The `within` expectations of the session's last check (`ui::checks`): each window as a bar
/// under the track, from `at` to its end, with a dot where the check first held (green) or a
/// cross at the end when it never did (red); muted while the check is of an older session.
fn within_windows(ctx: &Ctx, m: &Model, x_of: &dyn Fn(Micros) -> f64, p: &Palette) {
    let Some((rev, results)) = &m.checked else {
        return;
    };
    let current = *rev == m.session_rev;
    let y = TRACK_Y + TRACK_H + 1.0;
    for e in results.iter().filter(|e| e.within_us.is_some()) {
        let [a, b] = e.window_us;
        let (x0, x1) = (x_of(a), x_of(b).max(x_of(a) + 2.0));
        let color = match (current, e.passed) {
            (false, _) => p.muted,
            (true, true) => p.up,
            (true, false) => p.down,
        };
        ctx.set_fill_style_str(color);
        ctx.set_global_alpha(0.45);
        ctx.fill_rect(x0, y, x1 - x0, 2.0);
        ctx.set_global_alpha(1.0);
        ctx.fill_rect(x0, y - 2.0, 1.5, 5.0);
        ctx.fill_rect(x1 - 1.5, y - 2.0, 1.5, 5.0);
        match e.met_at_us {
            Some(t) => {
                ctx.begin_path();
                let _ = ctx.arc(x_of(t), y + 1.0, 3.0, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
            None if current && !e.passed => {
                ctx.set_stroke_style_str(color);
                ctx.set_line_width(1.5);
                ctx.begin_path();
                ctx.move_to(x1 - 3.0, y - 2.0);
                ctx.line_to(x1 + 3.0, y + 4.0);
                ctx.move_to(x1 + 3.0, y - 2.0);
                ctx.line_to(x1 - 3.0, y + 4.0);
                ctx.stroke();
            }
            None => {}
        }
    }
}

fn x_of_view(view: (Micros, Micros), w: f64) -> impl Fn(Micros) -> f64 {
    move |t| x_in(t, view, w)
}

/// The moments in the window, as ticks from `y` down `h` pixels.
fn draw_moments(ctx: &Ctx, m: &Model, x_of: &dyn Fn(Micros) -> f64, y: f64, h: f64, p: &Palette) {
    let kinds = m.marks.kinds;
    if kinds.is_empty() {
        return;
    }
    let (lo, hi) = m.view();
    let ms = &m.marks.moments;
    let a = ms.partition_point(|k| k.time < lo);
    let b = ms.partition_point(|k| k.time <= hi).max(a);
    for kind in (0..kinds.len()).rev() {
        ctx.set_fill_style_str(super::model_color(p, kinds[kind].color));
        let hh = if kind == 0 { h } else { (h * 0.7).max(6.0) };
        let mut last = f64::NEG_INFINITY;
        for mk in ms[a..b].iter().filter(|mk| mk.kind as usize == kind) {
            let x = x_of(mk.time).round();
            if x == last {
                continue;
            }
            last = x;
            ctx.fill_rect(x - 1.0, y + h - hh, 2.0, hh);
            if kind == 0 {
                // A head on the most telling kind (Raft: an election won).
                ctx.begin_path();
                ctx.move_to(x - 4.0, y);
                ctx.line_to(x + 4.0, y);
                ctx.line_to(x, y + 5.0);
                ctx.close_path();
                ctx.fill();
            }
        }
    }
}

/// The overview strip: the whole run (computed region, cursor, captions, faults, actions, the
/// DOWN marks) and the visible window as a box.
pub fn draw_overview(ctx: &Ctx, m: &Model, w: f64, h: f64, p: &Palette) {
    let end = m.end();
    let mid = h / 2.0;
    ctx.set_fill_style_str(p.grid);
    ctx.fill_rect(PAD, mid - 3.0, w - 2.0 * PAD, 6.0);
    ctx.set_fill_style_str(p.link);
    let fx = x_of(m.frontier_time().min(end), end, w);
    ctx.fill_rect(PAD, mid - 3.0, fx - PAD, 6.0);
    ctx.set_fill_style_str(p.down);
    let mut last = f64::NEG_INFINITY;
    for mk in &m.marks.marks {
        if mk.kind == MarkKind::Down {
            let x = x_of(mk.time, end, w).round();
            if x != last {
                ctx.fill_rect(x, mid + 3.0, 1.0, 3.0);
                last = x;
            }
        }
    }
    // The most telling kind of moment (Raft: elections won) below the bar.
    if let Some(k) = m.marks.kinds.first() {
        ctx.set_fill_style_str(super::model_color(p, k.color));
        for mk in m.marks.moments.iter().filter(|mk| mk.kind == 0) {
            ctx.fill_rect(x_of(mk.time, end, w) - 1.0, mid + 3.0, 2.0, mid - 3.0);
        }
    }
    ctx.set_fill_style_str(p.caption);
    for (t, _) in &m.captions {
        ctx.fill_rect(x_of(*t, end, w) - 0.5, 1.0, 1.5, mid - 2.0);
    }
    super::violation::mark_overview(ctx, m, w, h, p);
    for (t, _) in m.run.engine.schedule() {
        tri(ctx, x_of(*t, end, w), 1.0, 2.5, p.fault);
    }
    for a in m.run.engine.user_actions() {
        tri(ctx, x_of(a.at.0, end, w), 1.0, 3.0, p.user);
    }
    let (lo, hi) = m.view();
    let (a, b) = (
        x_of(lo, end, w),
        x_of(hi, end, w).max(x_of(lo, end, w) + 3.0),
    );
    ctx.set_fill_style_str(p.accent);
    ctx.set_global_alpha(0.2);
    ctx.fill_rect(a, 0.0, b - a, h);
    ctx.set_global_alpha(1.0);
    ctx.set_stroke_style_str(p.accent);
    ctx.set_line_width(1.5);
    ctx.stroke_rect(a, 0.75, b - a, h - 1.5);
    ctx.set_fill_style_str(p.fg);
    ctx.fill_rect(x_of(m.cursor_time(), end, w) - 0.75, 0.0, 1.5, h);
}

/// Text for the marker nearest to `x` (within a few pixels), for the hover tooltip.
pub fn describe_at(m: &Model, x: f64, w: f64) -> Option<String> {
    let view = m.view();
    let near = |t: Micros| (x_in(t, view, w) - x).abs() <= 4.0;
    let mut out: Vec<String> = super::violation::describe_at(m, x, w);
    for (t, c) in &m.captions {
        if near(*t) {
            out.push(format!("caption: {}", truncate(c, 90)));
        }
    }
    for (t, a) in m.run.engine.schedule() {
        if near(*t) {
            out.push(format!("fault: {}", a.describe()));
        }
        if let Some(d) = a.cut_for().filter(|d| near(t.saturating_add(d.0))) {
            out.push(format!(
                "fault ends (cut for {}): {}",
                clusterscope_core::time::fmt_duration(d.0),
                a.describe()
            ));
        }
    }
    for a in m.run.engine.user_actions() {
        if near(a.at.0) {
            out.push(format!("your action: {}", a.action.describe()));
        }
    }
    let kinds = m.marks.kinds;
    let mut named = 0;
    for mk in &m.marks.moments {
        if near(mk.time) && named < 3 {
            let k = kinds.get(mk.kind as usize).map_or("", |k| k.name);
            out.push(format!("{k}: {}", mk.text));
            named += 1;
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
        let (above, below) = m.marks.labels.unwrap_or(("DOWN", "UP"));
        out.push(format!("{d} marked {above}, {u} marked {below}"));
    }
    if let Some(drops) = drops_in(m) {
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for (t, label, _) in drops {
            if near(t) {
                match kinds.iter_mut().find(|k| k.0 == label) {
                    Some(k) => k.1 += 1,
                    None => kinds.push((label, 1)),
                }
            }
        }
        if !kinds.is_empty() {
            let list: Vec<String> = kinds.iter().map(|(l, n)| format!("{n} {l}")).collect();
            out.push(format!("dropped: {}", list.join(", ")));
        }
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

/// A round tick interval giving labels at least ~70 px apart over a span of `span`.
fn tick_step(span: Micros, w: f64) -> Micros {
    let want = (span as f64 / ((w - 2.0 * PAD) / 70.0).max(1.0)).max(1.0);
    let candidates: &[Micros] = &[
        100,
        200,
        500,
        1_000,
        2_000,
        5_000,
        10_000,
        20_000,
        50_000,
        100_000,
        200_000,
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
        .iter()
        .copied()
        .find(|c| *c as f64 >= want)
        .unwrap_or(3_600_000_000)
}

fn tick_label(t: Micros) -> String {
    if !t.is_multiple_of(1_000_000) && t >= 1_000_000 {
        // Inside a second, zoomed in: seconds with the digits the tick needs.
        let digits = if t.is_multiple_of(100_000) {
            1
        } else if t.is_multiple_of(1_000) {
            3
        } else {
            6
        };
        let s = format!("{:.*}s", digits, t as f64 / 1e6);
        if t >= 60_000_000 {
            let secs = (t % 60_000_000) as f64 / 1e6;
            return format!("{}m{:0w$.*}s", t / 60_000_000, digits, secs, w = digits + 3);
        }
        return s;
    }
    if t.is_multiple_of(60_000_000) && t > 0 {
        format!("{}m", t / 60_000_000)
    } else if t >= 60_000_000 {
        format!("{}m{:02}s", t / 60_000_000, (t / 1_000_000) % 60)
    } else if t.is_multiple_of(1_000_000) {
        format!("{}s", t / 1_000_000)
    } else if t.is_multiple_of(1_000) {
        format!("{}ms", t / 1000)
    } else {
        format!("{}µs", t)
    }
}
