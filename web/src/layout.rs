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
}
