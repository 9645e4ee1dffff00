//! Where the topology view puts nodes, which links it draws, and what a click hits. Pure
//! geometry: the canvas code and the e2e tests (through the `data-nodes` attribute) share it.

use clusterscope_core::engine::{NodeId, Topology};
use std::f64::consts::PI;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DcRing {
    pub name: String,
    pub center: Pt,
    pub radius: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub w: f64,
    pub h: f64,
    pub pos: Vec<Pt>,
    /// Node circle radius.
    pub r: f64,
    /// One ring per DC when there are several.
    pub dcs: Vec<DcRing>,
    pub labels: bool,
}

/// Clusters up to this size draw every link; larger ones only the selection's and faulty ones.
pub const ALL_LINKS_MAX_NODES: usize = 16;
/// Most links drawn at once.
pub const MAX_DRAWN_LINKS: usize = 3000;

fn ring(center: Pt, rx: f64, ry: f64, count: usize, start: f64) -> Vec<Pt> {
    (0..count)
        .map(|i| {
            let a = start + 2.0 * PI * i as f64 / count as f64;
            Pt {
                x: center.x + rx * a.cos(),
                y: center.y + ry * a.sin(),
            }
        })
        .collect()
}

/// The start angle that puts a ring's first two nodes side by side on top (A left, B right).
fn start_angle(count: usize) -> f64 {
    -PI / 2.0 - PI / count.max(1) as f64
}

/// DC names in order of first appearance, with their members.
pub fn dc_groups(topo: &Topology) -> Vec<(String, Vec<NodeId>)> {
    let mut groups: Vec<(String, Vec<NodeId>)> = Vec::new();
    for (i, dc) in topo.dcs.iter().enumerate() {
        match groups.iter_mut().find(|g| &g.0 == dc) {
            Some(g) => g.1.push(i as NodeId),
            None => groups.push((dc.clone(), vec![i as NodeId])),
        }
    }
    groups
}

pub fn layout(topo: &Topology, w: f64, h: f64) -> Layout {
    let n = topo.names.len();
    let margin = 34.0;
    let center = Pt {
        x: w / 2.0,
        y: h / 2.0,
    };
    let groups = dc_groups(topo);
    let mut pos = vec![center; n];
    let mut dcs = Vec::new();
    let r;
    if groups.len() <= 1 {
        let rx = (w / 2.0 - margin).max(10.0);
        // A small ring's nodes have a line of text under them (the model's badge: "leader t2")
        // and the name or a badge above: the top and bottom nodes keep room for it (issue 40:
        // the bottom node's text was cut at the canvas' edge).
        let margin_y = if n <= 24 { margin + 14.0 } else { margin };
        let ry = (h / 2.0 - margin_y).max(10.0);
        // Keep small clusters round rather than stretched.
        let (rx, ry) = if n <= 8 {
            let m = rx.min(ry * 1.25);
            (m, ry.min(m))
        } else {
            (rx, ry)
        };
        if n == 1 {
            pos[0] = center;
        } else if n > 96 {
            // Too many for one ring (they would overlap): a grid, row by row.
            let (gw, gh) = (w - 2.0 * margin, h - 2.0 * margin);
            let cols = ((n as f64 * gw / gh).sqrt().ceil() as usize).max(1);
            let rows = n.div_ceil(cols);
            let cell = (gw / cols as f64).min(gh / rows as f64);
            let x0 = center.x - cell * (cols as f64 - 1.0) / 2.0;
            let y0 = center.y - cell * (rows as f64 - 1.0) / 2.0;
            for (i, p) in pos.iter_mut().enumerate() {
                *p = Pt {
                    x: x0 + cell * (i % cols) as f64,
                    y: y0 + cell * (i / cols) as f64,
                };
            }
        } else {
            for (i, p) in ring(center, rx, ry, n, start_angle(n))
                .into_iter()
                .enumerate()
            {
                pos[i] = p;
            }
        }
        let spacing = if n > 96 {
            let (gw, gh) = (w - 2.0 * margin, h - 2.0 * margin);
            let cols = ((n as f64 * gw / gh).sqrt().ceil()).max(1.0);
            (gw / cols).min(gh / (n as f64 / cols).ceil())
        } else {
            2.0 * PI * rx.min(ry) / n.max(1) as f64
        };
        r = (spacing * 0.3).clamp(1.5, 22.0);
    } else {
        let k = groups.len();
        let s = (w.min(h) / 2.0 - margin).max(20.0);
        let sin = (PI / k as f64).sin();
        let rd = (s * sin / (1.0 + sin) * 0.92).max(8.0);
        let rx = (w / 2.0 - margin - rd).max(10.0);
        let ry = (h / 2.0 - margin - rd).max(10.0);
        let centers = ring(center, rx, ry, k, start_angle(k));
        let mut min_spacing = f64::MAX;
        for ((name, members), c) in groups.iter().zip(centers) {
            let m = members.len();
            let pts = if m == 1 {
                vec![c]
            } else {
                ring(c, rd, rd, m, start_angle(m))
            };
            for (id, p) in members.iter().zip(pts) {
                pos[*id as usize] = p;
            }
            if m > 1 {
                min_spacing = min_spacing.min(2.0 * PI * rd / m as f64);
            }
            dcs.push(DcRing {
                name: name.clone(),
                center: c,
                radius: rd,
            });
        }
        if min_spacing == f64::MAX {
            min_spacing = rd;
        }
        r = (min_spacing * 0.36).clamp(2.5, 18.0);
    }
    Layout {
        w,
        h,
        pos,
        r,
        dcs,
        labels: r >= 6.0 || n <= 24,
    }
}

/// Unordered pairs (a < b) the view draws: all for small clusters; otherwise those touching the
/// selected node and any pair with a non-healthy direction, at most [`MAX_DRAWN_LINKS`].
pub fn visible_links(
    n: usize,
    selected: Option<NodeId>,
    healthy: impl Fn(NodeId, NodeId) -> bool,
) -> Vec<(NodeId, NodeId)> {
    let mut out = Vec::new();
    let n = n as NodeId;
    for a in 0..n {
        for b in a + 1..n {
            let show = (n as usize) <= ALL_LINKS_MAX_NODES
                || selected.is_some_and(|s| s == a || s == b)
                || !healthy(a, b)
                || !healthy(b, a);
            if show {
                out.push((a, b));
                if out.len() >= MAX_DRAWN_LINKS {
                    return out;
                }
            }
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    Node(NodeId),
    /// An unordered pair (a < b).
    Link(NodeId, NodeId),
}

fn dist_to_segment(p: Pt, a: Pt, b: Pt) -> (f64, f64) {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0)
    };
    let (cx, cy) = (a.x + t * dx, a.y + t * dy);
    (((p.x - cx).powi(2) + (p.y - cy).powi(2)).sqrt(), t)
}

/// What a click at `p` hits: the nearest node within reach, else the nearest drawn link.
pub fn hit_test(l: &Layout, links: &[(NodeId, NodeId)], p: Pt) -> Option<Hit> {
    let reach = l.r + 5.0;
    let node = l
        .pos
        .iter()
        .enumerate()
        .map(|(i, q)| (i, ((q.x - p.x).powi(2) + (q.y - p.y).powi(2)).sqrt()))
        .filter(|(_, d)| *d <= reach)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((i, _)) = node {
        return Some(Hit::Node(i as NodeId));
    }
    links
        .iter()
        .map(|&(a, b)| {
            let (d, _) = dist_to_segment(p, l.pos[a as usize], l.pos[b as usize]);
            ((a, b), d)
        })
        .filter(|(_, d)| *d <= 7.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|((a, b), _)| Hit::Link(a, b))
}

/// A text already written on the canvas, as `Labels::place` places them: its left end at `x` on the
/// baseline `y`, `w` wide, `h` tall above the baseline (and 2 px below it for descenders).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextBox {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl TextBox {
    /// How far apart two boxes are (0 when touching), or how deep they overlap, as a negative
    /// distance.
    fn clearance(&self, o: &TextBox) -> f64 {
        let sx = (o.x - (self.x + self.w)).max(self.x - (o.x + o.w));
        let sy = (o.y - o.h - (self.y + 2.0)).max(self.y - self.h - (o.y + 2.0));
        if sx < 0.0 && sy < 0.0 {
            sx.max(sy)
        } else {
            sx.max(0.0).hypot(sy.max(0.0))
        }
    }
}

/// The link a label belongs to: its two nodes' centres, their radius, and the height of the name
/// written above each (0 when the name is inside the node or not written).
#[derive(Clone, Copy, Debug)]
pub struct LinkEnds {
    pub c: [Pt; 2],
    pub r: f64,
    pub above: [f64; 2],
}

/// The labels written on a canvas so far, so that each new one finds a spot of its own inside
/// the canvas.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// The canvas's width and height.
    area: (f64, f64),
    pub boxes: Vec<TextBox>,
    /// What no label may cover: the nodes and the texts written on and around them (issue 40:
    /// labels sat on a node's role text).
    blocked: Vec<TextBox>,
}

impl Labels {
    pub fn new(w: f64, h: f64) -> Labels {
        Labels {
            area: (w, h),
            boxes: Vec::new(),
            blocked: Vec::new(),
        }
    }

    /// Keeps every later label off `b` (a node, its name, the text under it).
    pub fn block(&mut self, b: TextBox) {
        self.blocked.push(b);
    }

    /// Where to write a label `w` x `h` px (its left end on the baseline) beside a mark at `q` on
    /// a link, which is then taken: the first of right-above, left-above, right-below,
    /// left-below (below first when `below`), then the same one line further out, whose box
    /// clears both nodes, the names above them, the labels already placed and the canvas's
    /// edges; else, of those clear of labels and edges, the one that clears the nodes most;
    /// `None` (the label is not written) when every spot is taken or cut off. A message just leaving a node toward the left
    /// had its label written into that node ("SYN" over "B"), a label over a name
    /// ("MUTATION_REQ" over "node3"), two drops beside each other wrote their kinds on one spot
    /// ("REQUEST_VOTE" over "APPEND_ENTRIES"), and a label went past the left edge ("QUEST_VOTE").
    pub fn place(&mut self, q: Pt, w: f64, h: f64, ends: &LinkEnds, below: bool) -> Option<Pt> {
        const GAP: f64 = 6.0;
        let (right, left) = (q.x + GAP, q.x - GAP - w);
        let (up, down) = (q.y - GAP + 1.0, q.y + GAP + h);
        let (up2, down2) = (up - h - 4.0, down + h + 4.0);
        let spots = if below {
            [
                (right, down),
                (left, down),
                (right, up),
                (left, up),
                (right, down2),
                (left, down2),
                (right, up2),
                (left, up2),
            ]
        } else {
            [
                (right, up),
                (left, up),
                (right, down),
                (left, down),
                (right, up2),
                (left, up2),
                (right, down2),
                (left, down2),
            ]
        };
        let r = ends.r;
        // How far the box (x..x+w, y-h..y+2) stays off the nearer node's disc, the name above it and
        // the texts already there (negative: inside).
        let clearance = |(x, y): (f64, f64)| {
            let nodes = ends
                .c
                .iter()
                .zip(ends.above)
                .map(|(c, up)| {
                    let dx = (x - c.x).max(0.0).max(c.x - (x + w));
                    let dy = (y - h - c.y).max(0.0).max(c.y - (y + 2.0));
                    let disc = dx.hypot(dy) - r;
                    if up <= 0.0 {
                        return disc;
                    }
                    // The name's strip: as wide as the node and a little more, `up` tall.
                    let name = TextBox {
                        x: c.x - r - 6.0,
                        y: c.y - r,
                        w: 2.0 * (r + 6.0),
                        h: up,
                    };
                    disc.min(name.clearance(&TextBox { x, y, w, h }))
                })
                .fold(f64::INFINITY, f64::min);
            let me = TextBox { x, y, w, h };
            // Inside the canvas: how far from its nearest edge (negative: cut off).
            let (aw, ah) = self.area;
            let inside = x.min(aw - (x + w)).min(y - h).min(ah - (y + 2.0));
            let free = self
                .boxes
                .iter()
                .chain(&self.blocked)
                .map(|t| t.clearance(&me))
                .fold(inside, f64::min);
            (nodes, free)
        };
        let ok = |s: &(f64, f64)| {
            let (nodes, free) = clearance(*s);
            nodes >= 1.0 && free >= 1.0
        };
        // Over a link's node disc is legible (labels are written last, on a halo); over
        // another label, a blocked node or its text, or past an edge is not.
        let best = spots.iter().copied().find(ok).or_else(|| {
            spots
                .iter()
                .map(|&s| (s, clearance(s)))
                .filter(|(_, (_, free))| *free >= 0.0)
                .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
                .map(|(s, _)| s)
        })?;
        self.boxes.push(TextBox {
            x: best.0,
            y: best.1,
            w,
            h,
        });
        Some(Pt {
            x: best.0,
            y: best.1,
        })
    }
}

/// `name:x,y;...` in CSS pixels of the canvas, for tests and assistive tooling.
pub fn describe(l: &Layout, topo: &Topology) -> String {
    l.pos
        .iter()
        .zip(&topo.names)
        .map(|(p, n)| format!("{n}:{:.1},{:.1}", p.x, p.y))
        .collect::<Vec<_>>()
        .join(";")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(n: usize, dcs: usize) -> Topology {
        Topology {
            names: (0..n).map(|i| format!("n{i}")).collect(),
            dcs: (0..n).map(|i| format!("dc{}", i % dcs)).collect(),
            racks: vec!["r".into(); n],
            seeds: vec![0],
        }
    }

    #[test]
    fn nodes_stay_inside_and_apart() {
        for (n, k) in [(1, 1), (3, 1), (12, 2), (251, 7), (512, 1)] {
            let l = layout(&topo(n, k), 600.0, 420.0);
            for p in &l.pos {
                assert!(p.x >= 0.0 && p.x <= 600.0 && p.y >= 0.0 && p.y <= 420.0);
            }
            for i in 0..n {
                for j in i + 1..n {
                    let (a, b) = (l.pos[i], l.pos[j]);
                    let d = ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt();
                    assert!(
                        d >= 2.0 * l.r * 0.9,
                        "n={n}: {i} and {j} overlap ({d} < {})",
                        l.r
                    );
                }
            }
        }
    }

    #[test]
    fn a_small_ring_keeps_room_for_the_text_under_its_bottom_node() {
        // The text under a node ends about r + 20 px below its centre (topology.rs).
        for (w, h) in [(1250.0, 500.0), (640.0, 300.0), (900.0, 760.0)] {
            for n in [3, 5, 7] {
                let l = layout(&topo(n, 1), w, h);
                let bottom = l.pos.iter().map(|p| p.y).fold(0.0, f64::max);
                assert!(
                    bottom + l.r + 20.0 <= h,
                    "{n} nodes in {w}x{h}: bottom node at {bottom}, r {}",
                    l.r
                );
            }
        }
    }

    #[test]
    fn clicks_hit_nodes_then_links() {
        let t = topo(3, 1);
        let l = layout(&t, 600.0, 420.0);
        let links = visible_links(3, None, |_, _| true);
        assert_eq!(links.len(), 3);
        assert_eq!(hit_test(&l, &links, l.pos[1]), Some(Hit::Node(1)));
        let mid = Pt {
            x: (l.pos[0].x + l.pos[1].x) / 2.0,
            y: (l.pos[0].y + l.pos[1].y) / 2.0,
        };
        assert_eq!(hit_test(&l, &links, mid), Some(Hit::Link(0, 1)));
        assert_eq!(hit_test(&l, &links, Pt { x: 1.0, y: 1.0 }), None);
    }

    #[test]
    fn large_clusters_draw_only_selected_and_faulty_links() {
        let links = visible_links(251, Some(5), |a, b| !(a == 7 && b == 9));
        assert_eq!(links.len(), 250 + 1);
        assert!(links.contains(&(7, 9)));
    }

    /// A canvas large enough that its edges are never in the way.
    fn fresh() -> Labels {
        Labels::new(2000.0, 2000.0)
    }

    fn ends(c: [Pt; 2], r: f64, above: [f64; 2]) -> LinkEnds {
        LinkEnds { c, r, above }
    }

    #[test]
    fn labels_stay_off_the_nodes() {
        let (a, b) = (Pt { x: 100.0, y: 100.0 }, Pt { x: 300.0, y: 100.0 });
        let r = 30.0;
        let (w, h) = (20.0, 9.0);
        let inside = |p: Pt| {
            [a, b].iter().any(|c| {
                let dx = (p.x - c.x).max(0.0).max(c.x - (p.x + w));
                let dy = (p.y - h - c.y).max(0.0).max(c.y - (p.y + 2.0));
                dx.hypot(dy) < r
            })
        };
        // Along the whole link, both ways: the label never overlaps a node where room exists.
        for i in 0..=20 {
            let t = i as f64 / 20.0;
            let q = Pt {
                x: 130.0 + 140.0 * t,
                y: 100.0,
            };
            for below in [false, true] {
                let s = fresh()
                    .place(q, w, h, &ends([a, b], r, [0.0; 2]), below)
                    .expect("a spot");
                assert!(!inside(s), "t={t} below={below}: {s:?}");
            }
        }
        // Where nothing is near, the preferred spot: right of the mark, above or below it.
        let far = [Pt { x: 0.0, y: 0.0 }, Pt { x: 1000.0, y: 0.0 }];
        let q = Pt { x: 500.0, y: 300.0 };
        assert_eq!(
            fresh()
                .place(q, w, h, &ends(far, r, [0.0; 2]), false)
                .expect("a spot"),
            Pt { x: 506.0, y: 295.0 }
        );
        assert_eq!(
            fresh()
                .place(q, w, h, &ends(far, r, [0.0; 2]), true)
                .expect("a spot"),
            Pt { x: 506.0, y: 315.0 }
        );
        // The old placement (right, above) of a message leaving B to the left lands inside B.
        let q = Pt { x: 270.0, y: 100.0 };
        assert!(inside(Pt {
            x: q.x + 6.0,
            y: q.y - 5.0
        }));
        assert!(!inside(
            fresh()
                .place(q, w, h, &ends([a, b], r, [0.0; 2]), false)
                .expect("a spot")
        ));
    }

    #[test]
    fn labels_stay_off_the_names_above_nodes() {
        // A message arriving at B from above-left, its mark beside B's name: the preferred spot
        // (right, above) clears B's disc but writes over the name ("node3") drawn above B.
        let (a, b) = (Pt { x: 100.0, y: 100.0 }, Pt { x: 200.0, y: 300.0 });
        let (r, up) = (20.0, 17.0);
        let (w, h) = (70.0, 8.0);
        let q = Pt { x: 188.0, y: 276.0 };
        let on_name = |p: Pt| {
            let (l, rt, top, bottom) = (b.x - r - 6.0, b.x + r + 6.0, b.y - r - up, b.y - r + 2.0);
            p.x < rt && p.x + w > l && p.y - h < bottom && p.y + 2.0 > top
        };
        let blind = fresh()
            .place(q, w, h, &ends([a, b], r, [0.0; 2]), false)
            .expect("a spot");
        assert!(
            on_name(blind),
            "without the name the label goes over it: {blind:?}"
        );
        let seen = fresh()
            .place(q, w, h, &ends([a, b], r, [0.0, up]), false)
            .expect("a spot");
        assert!(!on_name(seen), "{seen:?}");
    }

    #[test]
    fn labels_never_cover_a_blocked_node_text() {
        // A node's role text under it ("leader t2"), where the preferred spot (right, below) of
        // a drop beside it would write: the label goes elsewhere, and where every spot is over
        // it, it is not written.
        let e = ends(
            [Pt { x: 0.0, y: 0.0 }, Pt { x: 1000.0, y: 0.0 }],
            20.0,
            [0.0; 2],
        );
        let q = Pt { x: 300.0, y: 300.0 };
        let role = TextBox {
            x: 290.0,
            y: 320.0,
            w: 120.0,
            h: 10.0,
        };
        let blind = fresh().place(q, 60.0, 9.0, &e, true).expect("a spot");
        let mut labels = fresh();
        labels.block(role);
        let seen = labels.place(q, 60.0, 9.0, &e, true).expect("a spot");
        let b = |p: Pt| TextBox {
            x: p.x,
            y: p.y,
            w: 60.0,
            h: 9.0,
        };
        assert!(role.clearance(&b(blind)) < 0.0, "it used to: {blind:?}");
        assert!(role.clearance(&b(seen)) >= 1.0, "{seen:?}");
        let mut walled = fresh();
        walled.block(TextBox {
            x: 100.0,
            y: 500.0,
            w: 400.0,
            h: 400.0,
        });
        assert_eq!(walled.place(q, 60.0, 9.0, &e, true), None);
    }

    #[test]
    fn labels_keep_off_each_other_and_the_edges() {
        // Raft Figure 8 at 9 s: a lost REQUEST_VOTE and a lost APPEND_ENTRIES marked 10 px
        // apart on crossing links, both preferring right-below: the second was written over the
        // first.
        let e = ends(
            [Pt { x: 0.0, y: 0.0 }, Pt { x: 1000.0, y: 0.0 }],
            20.0,
            [0.0; 2],
        );
        let (h, w1, w2) = (8.0, 66.0, 84.0);
        let q1 = Pt { x: 300.0, y: 300.0 };
        let q2 = Pt { x: 310.0, y: 304.0 };
        let mut labels = fresh();
        labels.place(q1, w1, h, &e, true).expect("a spot");
        let mut blind = fresh();
        blind.place(q2, w2, h, &e, true).expect("a spot");
        let a = labels.boxes[0];
        assert!(a.clearance(&blind.boxes[0]) < 0.0, "they used to overlap");
        labels.place(q2, w2, h, &e, true).expect("a spot");
        assert_eq!(labels.boxes.len(), 2);
        let b = labels.boxes[1];
        assert!(a.clearance(&b) >= 1.0, "{a:?} {b:?}");
        // Packed in: eight labels around one mark all find a spot of their own.
        let mut labels = fresh();
        for i in 0..8 {
            labels.place(q1, 30.0, h, &e, false).expect("a spot");
            let b = labels.boxes[i];
            assert!(
                labels.boxes[..i].iter().all(|t| t.clearance(&b) >= 1.0),
                "{:?}",
                labels.boxes
            );
        }
        // A ninth has none left: it is not written rather than written over another.
        assert_eq!(labels.place(q1, 30.0, h, &e, false), None);
        assert_eq!(labels.boxes.len(), 8);
        // Two drops at one mark near the left edge: the first takes right-below; the second's
        // next choice, left-below, would start at x = -16 ("QUEST_VOTE"): it goes right-above.
        let q = Pt { x: 60.0, y: 150.0 };
        let mut edge = Labels::new(400.0, 300.0);
        let first = edge.place(q, 70.0, h, &e, true).expect("a spot");
        assert_eq!(first, Pt { x: 66.0, y: 164.0 });
        let second = edge.place(q, 70.0, h, &e, true).expect("a spot");
        assert_eq!(second, Pt { x: 66.0, y: 145.0 });
        // Near the right edge the first choice (right) is cut off: left.
        let mut edge = Labels::new(140.0, 300.0);
        let at = edge
            .place(Pt { x: 110.0, y: 150.0 }, 70.0, h, &e, true)
            .expect("a spot");
        assert_eq!(at, Pt { x: 34.0, y: 164.0 });
    }

    #[test]
    fn text_boxes_measure_gaps_and_overlaps() {
        let a = TextBox {
            x: 0.0,
            y: 10.0,
            w: 10.0,
            h: 8.0,
        };
        // Side by side, 5 px apart; one line below, 3 px apart (2 px descender + 8 px cap).
        let right = TextBox { x: 15.0, ..a };
        let below = TextBox { y: 23.0, ..a };
        assert_eq!(a.clearance(&right), 5.0);
        assert_eq!(right.clearance(&a), 5.0);
        assert_eq!(a.clearance(&below), 3.0);
        // Overlapping by 4 px across and 10 px down: 4 deep.
        let over = TextBox { x: 6.0, ..a };
        assert_eq!(a.clearance(&over), -4.0);
    }
}
