//! The topology: DC rings, links coloured per direction, messages in flight, recent drops and
//! nodes coloured by status with a badge for how many peers see them DOWN.

use super::contrast::{readable, TEXT_MIN};
use super::{model_color, msg_color, Palette};
use crate::labels::{Labels, LinkEnds, TextBox};
use crate::layout::{Layout, Pt};
use crate::model::Model;
use clusterscope_core::engine::network::Link;
use clusterscope_core::engine::trace::{Fnv, RecKind};
use clusterscope_core::engine::{NodeId, NodeStatus};
use clusterscope_core::model::Glance;
use std::f64::consts::PI;
use web_sys::CanvasRenderingContext2d as Ctx;

/// Most in-flight messages drawn.
const MAX_DOTS: usize = 4000;
/// Most drop markers drawn.
const MAX_DROPS: usize = 400;
/// Most delivery trails drawn.
const MAX_TRAILS: usize = 300;
/// The font of message and drop labels and of the text under a node: 12 px, 18 px on the
/// projected picture (presentation mode draws at 1.5x; issue 40 asks >= 18 px at 1920x1080).
pub const LABEL_PX: f64 = 12.0;
const LABEL_FONT: &str = "600 12px ui-monospace, monospace";
/// Height of a message or drop label above its baseline (the 12 px font's capitals).
const LABEL_H: f64 = 9.5;
/// From one line of a node's under-text to the next.
const UNDER_STEP: f64 = LABEL_H + 2.5;
/// The room labels leave around a node's under-text.
const UNDER_PAD: f64 = 3.0;
/// Drop labels name only the newest drops: the first part of the drop window (the crosses fade
/// over all of it) and at most this many (issue 40: 12 red labels of earlier partitions piled
/// up around S5 at Figure 8's violation).
const DROP_LABELS_MAX: usize = 6;
const DROP_LABEL_AGE: f64 = 0.3;

fn lerp(a: Pt, b: Pt, t: f64) -> Pt {
    Pt {
        x: a.x + (b.x - a.x) * t,
        y: a.y + (b.y - a.y) * t,
    }
}

fn line(ctx: &Ctx, a: Pt, b: Pt) {
    ctx.begin_path();
    ctx.move_to(a.x, a.y);
    ctx.line_to(b.x, b.y);
    ctx.stroke();
}

pub(super) fn dash(ctx: &Ctx, pattern: &[f64]) {
    let arr = js_sys::Array::new();
    for p in pattern {
        arr.push(&wasm_bindgen::JsValue::from_f64(*p));
    }
    let _ = ctx.set_line_dash(&arr);
}

/// Style of one direction of a link: (colour, width, dash pattern).
type LinkStyle<'a> = (&'a str, f64, Vec<f64>);

fn link_style<'a>(l: &Link, default: &Link, p: &'a Palette) -> LinkStyle<'a> {
    if !l.up {
        (p.down, 2.5, vec![6.0, 4.0])
    } else if l.loss > default.loss {
        (p.lossy, 2.2, vec![2.0, 3.0])
    } else if l.latency_max_us != default.latency_max_us
        || l.latency_min_us != default.latency_min_us
    {
        (p.asym, 1.6, vec![])
    } else {
        (p.link, 1.2, vec![])
    }
}

pub struct TopologyInput<'a> {
    pub model: &'a Model,
    pub layout: &'a Layout,
    pub links: &'a [(NodeId, NodeId)],
    pub hover: Option<NodeId>,
    pub palette: Palette,
}

/// A hash of everything the static layer (DC rings and links) depends on: when it is unchanged
/// the cached layer is reused, which keeps hundreds of links cheap.
pub fn static_key(inp: &TopologyInput, w: f64, h: f64, dpr: f64) -> u64 {
    let m = inp.model;
    let net = m.run.engine.net();
    let default = net.default_link();
    let mut f = Fnv::default();
    f.u64(w.to_bits());
    f.u64(h.to_bits());
    f.u64(dpr.to_bits());
    f.str(inp.palette.bg);
    f.u64(inp.layout.pos.len() as u64);
    f.u64(
        m.selected_link
            .map_or(u64::MAX, |(a, b)| ((a as u64) << 32) | b as u64),
    );
    for &(a, b) in inp.links {
        f.u64(((a as u64) << 32) | b as u64);
        for l in [net.link(a, b), net.link(b, a)] {
            f.u64(l.up as u64);
            f.u64(l.loss.to_bits());
            f.u64((l.latency_min_us != default.latency_min_us) as u64);
            f.u64((l.latency_max_us != default.latency_max_us) as u64);
        }
    }
    f.0
}

/// DC rings and links (cached by the component while [`static_key`] is unchanged).
pub fn draw_static(ctx: &Ctx, inp: &TopologyInput) {
    let m = inp.model;
    let l = inp.layout;
    let p = &inp.palette;
    let net = m.run.engine.net();
    let topo = &m.run.scenario.topo;
    let n = topo.names.len();

    // DC rings.
    ctx.set_line_width(1.0);
    dash(ctx, &[]);
    for dc in &l.dcs {
        ctx.set_stroke_style_str(p.grid);
        ctx.begin_path();
        let _ = ctx.arc(
            dc.center.x,
            dc.center.y,
            dc.radius + l.r + 6.0,
            0.0,
            2.0 * PI,
        );
        ctx.stroke();
    }

    // Links: each half is one direction, drawn from its sender to the midpoint. Segments are
    // batched by style (one path per style), which matters with hundreds of links.
    let default = net.default_link().clone();
    let mut batches: Vec<(LinkStyle, Vec<(Pt, Pt)>)> = Vec::new();
    let mut crosses: Vec<Pt> = Vec::new();
    let mut selected_line: Option<(Pt, Pt)> = None;
    for &(a, b) in inp.links {
        let (pa, pb) = (l.pos[a as usize], l.pos[b as usize]);
        let mid = lerp(pa, pb, 0.5);
        let sel = m.selected_link == Some((a, b)) || m.selected_link == Some((b, a));
        for (from, to, s, e) in [(a, b, pa, mid), (b, a, pb, mid)] {
            let (c, w, d) = link_style(net.link(from, to), &default, p);
            let key = (c, if sel { w + 2.5 } else { w }, d);
            match batches.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push((s, e)),
                None => batches.push((key, vec![(s, e)])),
            }
        }
        if sel {
            selected_line = Some((pa, pb));
        }
        if !net.link(a, b).up && !net.link(b, a).up && n <= 64 {
            crosses.push(mid);
        }
    }
    if let Some((pa, pb)) = selected_line {
        dash(ctx, &[]);
        ctx.set_stroke_style_str(p.accent);
        ctx.set_global_alpha(0.35);
        ctx.set_line_width(10.0);
        line(ctx, pa, pb);
        ctx.set_global_alpha(1.0);
    }
    // One stroke per segment: software rasterizers handle many small paths far better than one
    // large self-crossing path. Styles are set once per batch.
    for ((c, w, d), segs) in &batches {
        ctx.set_stroke_style_str(c);
        ctx.set_line_width(*w);
        dash(ctx, d);
        for (s, e) in segs {
            line(ctx, *s, *e);
        }
    }
    for c in crosses {
        cross(ctx, c, 5.0, p.down, 2.5);
    }
    dash(ctx, &[]);
    // DC names over the links, on a halo (the selected node's links run through its DC's centre).
    ctx.set_font("600 12px system-ui, sans-serif");
    ctx.set_text_align("center");
    ctx.set_line_width(3.0);
    ctx.set_stroke_style_str(p.panel);
    ctx.set_fill_style_str(&readable(p.muted, p.panel, TEXT_MIN));
    for dc in &l.dcs {
        let _ = ctx.stroke_text(&dc.name, dc.center.x, dc.center.y + 4.0);
        let _ = ctx.fill_text(&dc.name, dc.center.x, dc.center.y + 4.0);
    }
}

/// What [`draw_dynamic`] drew of the model's overlay: (node, fraction) per arc and (from, to,
/// class) per arrow. The card writes it into the canvas' `data-arcs` / `data-edges` for tests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    pub arcs: Vec<(NodeId, f64)>,
    pub edges: Vec<(NodeId, NodeId, u8)>,
    /// The message kinds of the drop marks drawn (newest first), for `data-drops`.
    pub drops: Vec<&'static str>,
    /// The message-by-message mode's message: `id:LABEL:progress` (`:lost` when dropped).
    pub anim: Option<String>,
    /// The message and drop labels written, and where, for `data-texts`.
    pub texts: Vec<(&'static str, TextBox)>,
    /// The colour each of `texts` is written in (`#rrggbb`), for `data-text-colors`: the e2e
    /// spec computes their contrast on the panel.
    pub colors: Vec<String>,
    /// The nodes ringed as involved in a safety violation (`draw::violation`).
    pub violation: Vec<NodeId>,
    /// The nodes the model rings (`Glance::ring`: Raft's leader).
    pub rings: Vec<NodeId>,
    /// The model's text inside each node that has one, its fill and the text's colour.
    pub glance: Vec<(NodeId, String, String, String)>,
    /// The lines written under the nodes ("leader t2") and their boxes, for `data-unders`.
    pub unders: Vec<(String, TextBox)>,
}

/// Messages in flight, recent drops and nodes: redrawn every frame over the static layer.
/// Returns what it drew of the overlay, and the labels of the drops drawn (newest first).
pub fn draw_dynamic(ctx: &Ctx, inp: &TopologyInput) -> Drawn {
    let mut drawn_overlay = Drawn::default();
    let m = inp.model;
    let l = inp.layout;
    let p = &inp.palette;
    let e = &*m.run.engine;
    let kinds = e.msg_kinds();
    let topo = &m.run.scenario.topo;
    let n = topo.names.len();

    // The model's arrows (Raft: votes granted), under the messages; small clusters only.
    if n <= 64 {
        drawn_overlay.edges = draw_edges(ctx, inp);
    }

    // Each node at a glance, as the model says (`Model::glance`: Raft's term inside, the
    // colour of its role, the leader ringed); small clusters only.
    let glances: Vec<Glance> = if n <= 64 {
        (0..n as NodeId).map(|id| e.glance(id)).collect()
    } else {
        Vec::new()
    };
    // Whether node `id` has the model's text inside it (its name then goes above it).
    let glance_text = |id: NodeId| -> Option<&str> {
        glances
            .get(id as usize)
            .map(|g| g.text.as_str())
            .filter(|t| !t.is_empty() && l.r >= 10.0)
    };
    // The height of each node's name where it is written above the node (message labels keep
    // off it); 0 where the name is inside the node or not written.
    let name_above = |id: NodeId| -> f64 {
        if !name_written(inp, id) {
            return 0.0;
        }
        let inside = glance_text(id).is_none() && name_font(ctx, l.r, topo.name(id));
        ctx.set_font(LABEL_FONT);
        match (inside, l.r >= 12.0) {
            (true, _) => 0.0,
            // The name's font size and the 5 px between it and the node, less a little.
            (false, true) => 17.0,
            (false, false) => 15.0,
        }
    };

    // Messages in flight.
    let now = e.now();
    let mut flights = Vec::new();
    e.flights(&mut |f| {
        if flights.len() < MAX_DOTS {
            flights.push(f)
        }
    });
    let show_labels = flights.len() <= 24 && l.labels;
    let dot = if n > 64 { 2.2 } else { 4.0 };
    // The texts under the nodes, worked out first: labels keep off them and off the nodes.
    let unders: Vec<String> = if n <= 64 {
        (0..n as NodeId).map(|id| under_text(inp, id)).collect()
    } else {
        Vec::new()
    };
    ctx.set_font(LABEL_FONT);
    ctx.set_text_align("left");
    // Each text under a node in lines no wider than the room to its nearest neighbour on about
    // the same row ("log next 0, 1 listener(s), 1 read(s) pending" ran into node2's text in a
    // compare side), broken after its commas.
    let under_lines: Vec<Vec<String>> = unders
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let room = l
                .pos
                .iter()
                .enumerate()
                .filter(|&(j, q)| j != i && (q.y - l.pos[i].y).abs() < 3.0 * LABEL_H)
                .map(|(_, q)| (q.x - l.pos[i].x).abs() - 10.0)
                .fold(f64::INFINITY, f64::min)
                .max(2.0 * l.r);
            wrap_commas(u, room, |t| text_width(ctx, t))
        })
        .collect();
    // Per kind: each message's place and its link's two ends (where its label must not go).
    let mut dots: Vec<(&'static str, Vec<OnLink>)> = Vec::new();
    // Message texts (in-flight kinds, what a drop lost), drawn after the nodes so no node covers
    // them ("O_REQ" under a node).
    let mut texts: Vec<(&'static str, String)> = Vec::new();
    // Where each is written (`labels.boxes[i]` for `texts[i]`), so that none goes over another.
    let mut labels = Labels::new(l.w, l.h);
    if l.labels && n <= 64 {
        for (i, pt) in l.pos.iter().enumerate() {
            let id = i as NodeId;
            let r = l.r + 3.0;
            labels.block(TextBox {
                x: pt.x - r,
                y: pt.y + r,
                w: 2.0 * r,
                h: 2.0 * r,
            });
            let up = name_above(id);
            if up > 0.0 {
                labels.block(TextBox {
                    x: pt.x - l.r - 6.0,
                    y: pt.y - l.r - 2.0,
                    w: 2.0 * (l.r + 6.0),
                    h: up,
                });
            }
            if let Some(lines) = under_lines.get(i).filter(|u| !u.is_empty() && l.r >= 8.0) {
                let w = lines.iter().map(|t| text_width(ctx, t)).fold(0.0, f64::max);
                let h = lines.len() as f64 * UNDER_STEP - (UNDER_STEP - LABEL_H);
                // With room around it: a label just under "leader t2" read as its next line
                // (issue 40, Figure 8's ring at 1366 and 1920).
                labels.block(TextBox {
                    x: pt.x - w / 2.0 - UNDER_PAD,
                    y: pt.y + l.r + under_gap(inp, id) + h - LABEL_H + 2.0 + UNDER_PAD,
                    w: w + 2.0 * UNDER_PAD,
                    h: h + 2.0 + 2.0 * UNDER_PAD,
                });
            }
        }
    }
    let mut dropped: Vec<&'static str> = Vec::new();
    let anim = m.msg_anim();
    for f in &flights {
        if anim.is_some_and(|a| a.id == f.id) {
            continue;
        }
        let span = f.deliver_at.saturating_sub(f.sent_at).max(1) as f64;
        let t = (now.saturating_sub(f.sent_at) as f64 / span).clamp(0.0, 1.0);
        let (a, b) = (l.pos[f.from as usize], l.pos[f.to as usize]);
        // Rim to rim: a message just sent is not drawn (nor labelled) over its sender.
        let rim = (l.r / (b.x - a.x).hypot(b.y - a.y).max(1.0)).min(0.45);
        let q = lerp(a, b, rim + (1.0 - 2.0 * rim) * t);
        let label = f.label;
        let ends = ([a, b], [f.from, f.to]);
        match dots.iter_mut().find(|(k, _)| *k == label) {
            Some((_, v)) => v.push((q, ends)),
            None => dots.push((label, vec![(q, ends)])),
        }
    }
    for (label, pts) in &dots {
        ctx.set_fill_style_str(msg_color(kinds, label));
        for (q, _) in pts {
            ctx.begin_path();
            let _ = ctx.arc(q.x, q.y, dot, 0.0, 2.0 * PI);
            ctx.fill();
        }
        if show_labels {
            let w = text_width(ctx, label);
            for (q, (c, ids)) in pts {
                let ends = LinkEnds {
                    c: *c,
                    r: l.r,
                    above: [name_above(ids[0]), name_above(ids[1])],
                };
                // Not written where every spot is taken (the dot's colour still tells its kind).
                if labels.place(*q, w, LABEL_H, &ends, false).is_some() {
                    texts.push((label, readable(msg_color(kinds, label), p.panel, TEXT_MIN)));
                }
            }
        }
    }

    // Recent drops, fading with age: near the sender when lost on the way out, near the receiver
    // when lost on arrival.
    let window = ((m.speed * 0.8 * 1e6) as u64).clamp(200_000, 20_000_000);
    let trace = m.run.engine.trace();
    let ci = trace.rec_index_at_step(m.cursor());
    // Recent deliveries as short fading trails into the receiver: at ordinary speeds a message is
    // in flight for far less than a frame, so this is what shows the gossip traffic.
    let trail_window = ((m.speed * 0.25 * 1e6) as u64).clamp(1_000, 2_000_000);
    if n <= 64 {
        let mut trails = 0;
        ctx.set_line_width(2.5);
        ctx.set_line_cap("round");
        for r in trace.recs.range(..ci).rev() {
            if now.saturating_sub(r.time) > trail_window || trails >= MAX_TRAILS {
                break;
            }
            if let RecKind::Deliver { from, label, .. } = r.kind {
                let (a, b) = (l.pos[from as usize], l.pos[r.node as usize]);
                let age = now.saturating_sub(r.time) as f64 / trail_window as f64;
                ctx.set_global_alpha((1.0f64 - age).clamp(0.1, 0.9));
                ctx.set_stroke_style_str(msg_color(kinds, label));
                let end = 1.0 - (l.r + 3.0) / ((b.x - a.x).hypot(b.y - a.y)).max(1.0);
                line(ctx, lerp(a, b, (end - 0.25).max(0.0)), lerp(a, b, end));
                trails += 1;
            }
        }
        ctx.set_global_alpha(1.0);
        ctx.set_line_cap("butt");
    }

    let mut drawn = 0;
    let mut labelled: Vec<(NodeId, NodeId, NodeId, &str)> = Vec::new();
    let drop_color = readable(p.down, p.panel, TEXT_MIN);
    // The trace's index of drops: at high speed the window holds tens of thousands of records.
    let drops = &trace.recs.drops()[..trace.recs.drops_before(ci)];
    for r in drops.iter().rev().map(|&i| trace.recs.at(i as usize)) {
        if now.saturating_sub(r.time) > window || drawn >= MAX_DROPS {
            break;
        }
        if let RecKind::Drop {
            from, to, label, ..
        } = r.kind
        {
            // Large clusters: only drops that touch the selection, and of the kinds the model
            // calls key (gossip: lost echoes, what wedges).
            if n > 64 && !(m.selected.is_some_and(|s| s == from || s == to) || e.is_key_msg(label))
            {
                continue;
            }
            let (a, b) = (l.pos[from as usize], l.pos[to as usize]);
            let at = if r.node == from { 0.3 } else { 0.8 };
            let age = now.saturating_sub(r.time) as f64 / window as f64;
            ctx.set_global_alpha((1.0f64 - age).clamp(0.15, 1.0));
            let c = lerp(a, b, at);
            cross(ctx, c, if n > 64 { 3.0 } else { 5.0 }, p.down, 2.0);
            // Say what was lost (the lost ECHO must not look like the lost SYNs around it): the
            // newest drop of each kind at each spot gets its label.
            if l.labels
                && age <= DROP_LABEL_AGE
                && labelled.len() < DROP_LABELS_MAX
                && !labelled.contains(&(from, to, r.node, label))
            {
                labelled.push((from, to, r.node, label));
                let w = text_width(ctx, label);
                let ends = LinkEnds {
                    c: [a, b],
                    r: l.r,
                    above: [name_above(from), name_above(to)],
                };
                if labels.place(c, w, LABEL_H, &ends, true).is_some() {
                    texts.push((label, drop_color.clone()));
                }
            }
            dropped.push(label);
            drawn += 1;
        }
    }
    ctx.set_global_alpha(1.0);

    // How many notable matrix cells name each node as the peer (gossip: how many running
    // observers see it DOWN).
    let mut seen_down = vec![0u32; n];
    if e.matrix().is_some() {
        for &(_, q) in &m.matrix_summary(0).notable {
            seen_down[q as usize] += 1;
        }
    }

    // Nodes: large clusters are drawn in batches (one path per colour); small ones in detail.
    drawn_overlay.violation = super::violation::nodes_now(m).to_vec();
    if n > 64 {
        draw_nodes_batched(ctx, inp, &seen_down);
        for &id in &drawn_overlay.violation {
            if let Some(pt) = l.pos.get(id as usize) {
                super::violation::ring(ctx, *pt, l.r, p);
            }
        }
        drawn_overlay.drops = dropped;
        drawn_overlay.anim = draw_anim(ctx, inp);
        return drawn_overlay;
    }
    // Nodes.
    let under_color = readable(p.muted, p.panel, TEXT_MIN);
    for (i, pt) in l.pos.iter().enumerate() {
        let status = e.status(i as NodeId);
        let glance = &glances[i];
        let fill = match (glance.fill, status) {
            (Some(c), _) => model_color(p, c),
            (None, NodeStatus::Running) => p.up,
            (None, NodeStatus::Stopping) => p.stopping,
            (None, NodeStatus::Stopped) => p.stopped,
        };
        let id = i as NodeId;
        let selected = m.selected == Some(id);
        if selected || inp.hover == Some(id) || m.seq_nodes.contains(&id) && n <= 64 {
            ctx.set_fill_style_str(p.accent);
            ctx.set_global_alpha(if selected { 0.3 } else { 0.15 });
            ctx.begin_path();
            let _ = ctx.arc(
                pt.x,
                pt.y,
                l.r + if selected { 7.0 } else { 4.0 },
                0.0,
                2.0 * PI,
            );
            ctx.fill();
            ctx.set_global_alpha(1.0);
        }
        ctx.set_fill_style_str(fill);
        ctx.begin_path();
        let _ = ctx.arc(pt.x, pt.y, l.r, 0.0, 2.0 * PI);
        ctx.fill();
        if let Some(ring) = glance.ring {
            // The model's ring (Raft: the leader), bold, just off the rim.
            ctx.set_stroke_style_str(model_color(p, ring));
            ctx.set_line_width(if l.r >= 8.0 { 3.5 } else { 2.0 });
            ctx.begin_path();
            let _ = ctx.arc(pt.x, pt.y, l.r + 2.0, 0.0, 2.0 * PI);
            ctx.stroke();
            drawn_overlay.rings.push(id);
        }
        let down = seen_down[i];
        if down > 0 && status == NodeStatus::Running {
            // A red ring: someone sees this running node DOWN.
            ctx.set_stroke_style_str(p.down);
            ctx.set_line_width(if l.r > 6.0 { 3.0 } else { 1.5 });
            ctx.begin_path();
            let _ = ctx.arc(pt.x, pt.y, l.r + 1.5, 0.0, 2.0 * PI);
            ctx.stroke();
        }
        if selected {
            ctx.set_stroke_style_str(p.accent);
            ctx.set_line_width(2.0);
            ctx.begin_path();
            let _ = ctx.arc(pt.x, pt.y, l.r + 4.0, 0.0, 2.0 * PI);
            ctx.stroke();
        }
        if drawn_overlay.violation.contains(&id) {
            super::violation::ring(ctx, *pt, l.r, p);
        }
        // Over the selection ring, which would hide it.
        let mut arc_drawn = false;
        if let (Some(a), Some((color, _))) = (e.node_arc(id), e.overlay().arc) {
            node_arc(ctx, *pt, l.r, a.fraction, model_color(p, color), p.grid);
            drawn_overlay.arcs.push((id, a.fraction));
            arc_drawn = true;
        }
        // Text on the node's fill: white, or dark where white would not read (WCAG 4.5:1).
        let on_fill = readable("#ffffff", fill, TEXT_MIN);
        if let Some(text) = glance_text(id) {
            ctx.set_font(&format!(
                "700 {:.0}px system-ui, sans-serif",
                (l.r * 0.85).min(20.0)
            ));
            ctx.set_fill_style_str(&on_fill);
            ctx.set_text_align("center");
            let _ = ctx.fill_text(text, pt.x, pt.y + l.r * 0.3);
            drawn_overlay
                .glance
                .push((id, text.to_string(), fill.to_string(), on_fill.clone()));
        }
        if name_written(inp, id) {
            let name = topo.name(id);
            if glance_text(id).is_none() && name_font(ctx, l.r, name) {
                ctx.set_fill_style_str(&on_fill);
                ctx.set_text_align("center");
                let _ = ctx.fill_text(name, pt.x, pt.y + 4.5);
            } else {
                name_font(ctx, l.r, name);
                boxed_text(ctx, name, pt.x, pt.y - l.r - 5.0, 10.0, p.fg, p.panel);
            }
        }
        if down > 0 && l.r >= 8.0 && status == NodeStatus::Running {
            badge(
                ctx,
                Pt {
                    x: pt.x + l.r * 0.85,
                    y: pt.y - l.r * 0.85,
                },
                &format!("{down}"),
                p.down,
            );
        }
        let _ = arc_drawn;
        let lines = &under_lines[i];
        if !lines.is_empty() && l.r >= 8.0 {
            ctx.set_font(LABEL_FONT);
            let y0 = pt.y + l.r + under_gap(inp, id);
            for (k, line) in lines.iter().enumerate() {
                let y = y0 + k as f64 * UNDER_STEP;
                boxed_text(ctx, line, pt.x, y, LABEL_H, &under_color, p.panel);
                let w = text_width(ctx, line);
                drawn_overlay
                    .unders
                    .push((line.clone(), TextBox::centred(pt.x, y, w, LABEL_H)));
            }
        }
    }
    // Message texts last, on a halo in the panel colour, so they stay legible over nodes.
    ctx.set_font(LABEL_FONT);
    ctx.set_text_align("left");
    for ((text, color), at) in texts.iter().zip(&labels.boxes) {
        ctx.set_fill_style_str(color);
        halo_text(ctx, text, at.x, at.y, p.panel);
    }
    drawn_overlay.texts = texts.iter().map(|t| t.0).zip(labels.boxes).collect();
    drawn_overlay.colors = texts.into_iter().map(|t| t.1).collect();
    drawn_overlay.drops = dropped;
    drawn_overlay.anim = draw_anim(ctx, inp);
    drawn_overlay
}

/// What is written under node `id`: the model's badge ("leader t2") and a long queue.
fn under_text(inp: &TopologyInput, id: NodeId) -> String {
    let e = &*inp.model.run.engine;
    let pending = e
        .exec_stats(id)
        .iter()
        .map(|x| x.pending)
        .max()
        .unwrap_or(0);
    let badge_text = e.node_badge(id);
    match (pending >= 5, badge_text.is_empty()) {
        (true, true) => format!("queue {pending}"),
        (true, false) => format!("{badge_text} · queue {pending}"),
        (false, _) => badge_text,
    }
}

/// How far below a node's rim the text under it has its baseline: clear of the model's arc
/// (its ring) when there is one.
fn under_gap(inp: &TopologyInput, id: NodeId) -> f64 {
    let e = &*inp.model.run.engine;
    if e.overlay().arc.is_some() && e.node_arc(id).is_some() {
        18.0
    } else {
        15.0
    }
}

/// Whether node `id`'s name is written: every name in a small cluster, else the selected or
/// hovered node's.
fn name_written(inp: &TopologyInput, id: NodeId) -> bool {
    inp.layout.labels || inp.model.selected == Some(id) || inp.hover == Some(id)
}

/// Sets the font a node's name is written in (nodes of radius `r`) and says whether `name` fits
/// inside the node; otherwise it is written above it.
fn name_font(ctx: &Ctx, r: f64, name: &str) -> bool {
    ctx.set_font(if r >= 12.0 {
        "600 13px system-ui, sans-serif"
    } else {
        "11px system-ui, sans-serif"
    });
    r >= 12.0
        && ctx
            .measure_text(name)
            .is_ok_and(|t| t.width() <= 2.0 * r - 6.0)
}

/// A message's place, its link's two ends and their nodes.
type OnLink = (Pt, ([Pt; 2], [NodeId; 2]));

/// `text` in the current font and fill, on a halo of `panel` (what is drawn under it stays
/// off the letters).
fn halo_text(ctx: &Ctx, text: &str, x: f64, y: f64, panel: &str) {
    ctx.set_line_width(3.0);
    ctx.set_stroke_style_str(panel);
    let _ = ctx.stroke_text(text, x, y);
    let _ = ctx.fill_text(text, x, y);
}

/// `text` centred on `x` in the current font (`h` px above the baseline `y`) in `color`, on a
/// box of `panel`: a node's name or role stays whole where links and drop crosses run into the
/// node (they ran through "leader t2" and between its words at the ring's top).
fn boxed_text(ctx: &Ctx, text: &str, x: f64, y: f64, h: f64, color: &str, panel: &str) {
    let w = text_width(ctx, text) + 4.0;
    ctx.set_fill_style_str(panel);
    ctx.fill_rect(x - w / 2.0, y - h - 2.0, w, h + 5.0);
    ctx.set_fill_style_str(color);
    ctx.set_text_align("center");
    let _ = ctx.fill_text(text, x, y);
}

/// Width of `text` in the context's current font (0 if the canvas cannot say).
fn text_width(ctx: &Ctx, text: &str) -> f64 {
    ctx.measure_text(text).map(|m| m.width()).unwrap_or(0.0)
}

/// The message-by-message mode's message, over everything: a large dot moving along its link
/// with its kind beside it (a lost one stops half-way and is crossed out).
fn draw_anim(ctx: &Ctx, inp: &TopologyInput) -> Option<String> {
    let m = inp.model;
    let a = m.msg_anim()?;
    let l = inp.layout;
    let p = &inp.palette;
    let kinds = m.run.engine.msg_kinds();
    let color = msg_color(kinds, a.label);
    let (pa, pb) = (l.pos[a.from as usize], l.pos[a.to as usize]);
    let len = (pb.x - pa.x).hypot(pb.y - pa.y).max(1.0);
    // From the sender's rim to the receiver's rim.
    let rim = (l.r / len).min(0.45);
    let f = if a.dropped {
        a.progress.min(0.5)
    } else {
        a.progress
    };
    let q = lerp(pa, pb, rim + (1.0 - 2.0 * rim) * f);
    ctx.set_stroke_style_str(color);
    ctx.set_line_width(3.0);
    ctx.set_global_alpha(0.45);
    line(ctx, lerp(pa, pb, rim), q);
    ctx.set_global_alpha(1.0);
    let r = if l.r >= 8.0 { 8.0 } else { 5.0 };
    ctx.set_fill_style_str(color);
    ctx.set_stroke_style_str(p.panel);
    ctx.set_line_width(2.0);
    ctx.begin_path();
    let _ = ctx.arc(q.x, q.y, r, 0.0, 2.0 * PI);
    ctx.fill();
    ctx.stroke();
    let lost = a.dropped && a.progress >= 0.5;
    if lost {
        cross(ctx, q, r + 3.0, p.down, 3.0);
    }
    let text = if lost {
        format!("{} lost", a.label)
    } else {
        a.label.to_string()
    };
    ctx.set_font("700 13px system-ui, sans-serif");
    ctx.set_text_align("left");
    ctx.set_line_width(4.0);
    ctx.set_stroke_style_str(p.panel);
    let _ = ctx.stroke_text(&text, q.x + r + 4.0, q.y - r);
    ctx.set_fill_style_str(if lost { p.down } else { color });
    let _ = ctx.fill_text(&text, q.x + r + 4.0, q.y - r);
    Some(format!(
        "{}:{}:{:.2}{}",
        a.id,
        a.label,
        a.progress,
        if a.dropped { ":lost" } else { "" }
    ))
}

fn draw_nodes_batched(ctx: &Ctx, inp: &TopologyInput, seen_down: &[u32]) {
    let m = inp.model;
    let l = inp.layout;
    let p = &inp.palette;
    let e = &*m.run.engine;
    let topo = &m.run.scenario.topo;
    for (status, color) in [
        (NodeStatus::Running, p.up),
        (NodeStatus::Stopping, p.stopping),
        (NodeStatus::Stopped, p.stopped),
    ] {
        ctx.set_fill_style_str(color);
        for (i, pt) in l.pos.iter().enumerate() {
            if e.status(i as NodeId) == status {
                ctx.begin_path();
                let _ = ctx.arc(pt.x, pt.y, l.r, 0.0, 2.0 * PI);
                ctx.fill();
            }
        }
    }
    ctx.set_stroke_style_str(p.down);
    ctx.set_line_width(1.5);
    for (i, pt) in l.pos.iter().enumerate() {
        if seen_down[i] > 0 && e.status(i as NodeId) == NodeStatus::Running {
            ctx.begin_path();
            let _ = ctx.arc(pt.x, pt.y, l.r + 1.5, 0.0, 2.0 * PI);
            ctx.stroke();
        }
    }
    for id in m.selected.into_iter().chain(inp.hover) {
        let pt = l.pos[id as usize];
        ctx.set_stroke_style_str(p.accent);
        ctx.set_line_width(2.0);
        ctx.begin_path();
        let _ = ctx.arc(pt.x, pt.y, l.r + 4.0, 0.0, 2.0 * PI);
        ctx.stroke();
        ctx.set_fill_style_str(p.fg);
        ctx.set_font("600 12px system-ui, sans-serif");
        ctx.set_text_align("center");
        let label = match seen_down[id as usize] {
            0 => topo.name(id).to_string(),
            k => format!(
                "{} · {} {k}",
                topo.name(id),
                e.matrix().map_or("flagged by", |s| s.notable_by)
            ),
        };
        let _ = ctx.fill_text(&label, pt.x, pt.y - l.r - 7.0);
    }
}

/// A model's arc around a node (Raft: the election timer): a faint full ring, and over it the
/// part `fraction` of a turn, clockwise from 12 o'clock.
fn node_arc(ctx: &Ctx, c: Pt, r: f64, fraction: f64, color: &str, track: &str) {
    let f = fraction.clamp(0.0, 1.0);
    let (ring, w) = if r >= 8.0 {
        (r + 4.5, 3.0)
    } else {
        (r + 2.5, 1.5)
    };
    ctx.set_line_width(w);
    ctx.set_stroke_style_str(track);
    ctx.begin_path();
    let _ = ctx.arc(c.x, c.y, ring, 0.0, 2.0 * PI);
    ctx.stroke();
    if f > 0.0 {
        ctx.set_stroke_style_str(color);
        ctx.begin_path();
        let _ = ctx.arc(c.x, c.y, ring, -PI / 2.0, -PI / 2.0 + f * 2.0 * PI);
        ctx.stroke();
    }
}

/// The model's arrows between nodes (`Model::edges`), coloured by class, offset to one side of
/// the link so that an arrow each way stays visible, the head at the target's rim.
fn draw_edges(ctx: &Ctx, inp: &TopologyInput) -> Vec<(NodeId, NodeId, u8)> {
    let e = &*inp.model.run.engine;
    let legend = e.overlay().edges;
    let mut drawn = Vec::new();
    if legend.is_empty() {
        return drawn;
    }
    let mut edges = Vec::new();
    e.edges(&mut edges);
    let l = inp.layout;
    dash(ctx, &[]);
    ctx.set_line_width(2.0);
    for ed in &edges {
        let (Some(&a), Some(&b)) = (l.pos.get(ed.from as usize), l.pos.get(ed.to as usize)) else {
            continue;
        };
        let d = (b.x - a.x).hypot(b.y - a.y);
        if d < 2.0 * l.r + 12.0 {
            continue;
        }
        let (ux, uy) = ((b.x - a.x) / d, (b.y - a.y) / d);
        // Offset to the right of the direction of travel.
        let off = 5.0;
        let (ox, oy) = (-uy * off, ux * off);
        let start = Pt {
            x: a.x + ux * (l.r + 6.0) + ox,
            y: a.y + uy * (l.r + 6.0) + oy,
        };
        let tip = Pt {
            x: b.x - ux * (l.r + 7.0) + ox,
            y: b.y - uy * (l.r + 7.0) + oy,
        };
        let color = legend
            .get(ed.class as usize)
            .map_or(inp.palette.muted, |(c, _)| model_color(&inp.palette, c));
        ctx.set_stroke_style_str(color);
        ctx.set_fill_style_str(color);
        ctx.set_global_alpha(0.8);
        line(ctx, start, tip);
        let head = 9.0;
        ctx.begin_path();
        ctx.move_to(tip.x, tip.y);
        ctx.line_to(
            tip.x - ux * head - uy * head * 0.5,
            tip.y - uy * head + ux * head * 0.5,
        );
        ctx.line_to(
            tip.x - ux * head + uy * head * 0.5,
            tip.y - uy * head - ux * head * 0.5,
        );
        ctx.close_path();
        ctx.fill();
        drawn.push((ed.from, ed.to, ed.class));
    }
    ctx.set_global_alpha(1.0);
    drawn
}

fn cross(ctx: &Ctx, c: Pt, s: f64, color: &str, w: f64) {
    ctx.set_stroke_style_str(color);
    ctx.set_line_width(w);
    dash(ctx, &[]);
    line(
        ctx,
        Pt {
            x: c.x - s,
            y: c.y - s,
        },
        Pt {
            x: c.x + s,
            y: c.y + s,
        },
    );
    line(
        ctx,
        Pt {
            x: c.x - s,
            y: c.y + s,
        },
        Pt {
            x: c.x + s,
            y: c.y - s,
        },
    );
}

fn badge(ctx: &Ctx, c: Pt, text: &str, color: &str) {
    ctx.set_fill_style_str(color);
    ctx.begin_path();
    let _ = ctx.arc(c.x, c.y, 8.0, 0.0, 2.0 * PI);
    ctx.fill();
    ctx.set_fill_style_str("#ffffff");
    ctx.set_font("700 10px system-ui, sans-serif");
    ctx.set_text_align("center");
    let _ = ctx.fill_text(text, c.x, c.y + 3.5);
}

/// `text` in at most two lines, broken after its commas: the first no wider than `room` (by
/// `width`; a first part wider than `room` alone), the rest on the second (a third line would
/// reach the names of the nodes below). Empty text: no line.
fn wrap_commas(text: &str, room: f64, width: impl Fn(&str) -> f64) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    if width(text) <= room {
        return vec![text.to_string()];
    }
    let mut lines: Vec<String> = Vec::new();
    for part in text.split(", ") {
        let second = lines.len() == 2;
        match lines.last_mut() {
            Some(last) if second || width(&format!("{last}, {part}")) <= room => {
                last.push_str(", ");
                last.push_str(part);
            }
            _ => lines.push(part.to_string()),
        }
    }
    lines
}

#[cfg(test)]
mod wrap_tests {
    use super::wrap_commas;

    #[test]
    fn wraps_after_commas_only_when_too_wide() {
        let w = |t: &str| t.len() as f64;
        assert!(wrap_commas("", 5.0, w).is_empty());
        assert_eq!(wrap_commas("log next 0", 20.0, w), ["log next 0"]);
        assert_eq!(
            wrap_commas("log next 0, 1 listener(s), 1 read(s) pending", 26.0, w),
            ["log next 0, 1 listener(s)", "1 read(s) pending"]
        );
        assert_eq!(wrap_commas("a, bbbbbbbbbb", 4.0, w), ["a", "bbbbbbbbbb"]);
        assert_eq!(
            wrap_commas("log next 0, 1 listener(s), 1 read(s) pending", 12.0, w),
            ["log next 0", "1 listener(s), 1 read(s) pending"]
        );
    }
}
