//! Where labels go on a drawing so that no text is written over another: one box type
//! ([`TextBox`]) and one clearance test ([`TextBox::clearance`]) for both placers, the
//! topology's (a message's or a drop's kind beside its mark on a link, [`Labels::place`]) and
//! the sequence diagram's (a message's kind along its arrow, [`place_along`]). Pure geometry,
//! tested natively; the e2e specs `topology-text` and `sequence-text` check the pages.

use crate::layout::Pt;

/// A text written on a drawing: its left end at `x` on the baseline `y`, `w` wide, `h` tall
/// above the baseline (and 2 px below it for descenders). The one box both placers use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextBox {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl TextBox {
    /// A text `w` wide centred on `x` (`text-anchor: middle`).
    pub fn centred(x: f64, y: f64, w: f64, h: f64) -> TextBox {
        TextBox {
            x: x - w / 2.0,
            y,
            w,
            h,
        }
    }

    /// Whether two boxes share some height: written side by side, they read along one line.
    pub fn same_line(&self, o: &TextBox) -> bool {
        self.y - self.h < o.y + 2.0 && o.y - o.h < self.y + 2.0
    }

    /// How far apart two boxes are (0 when touching), or how deep they overlap, as a negative
    /// distance: the one clearance test of both placers.
    pub fn clearance(&self, o: &TextBox) -> f64 {
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

/// How far apart two labels on one line of the topology stand at least (drawing px; the
/// labels' 12 px font scales with them): an em, three word spaces, as far as the two labels left
/// and right of one mark stand (its cross between them), so that two drops' kinds side by side
/// read as two labels ("REQUEST_VOTE HEARTBEAT", 2 px apart, read as one phrase on a projected
/// Figure 8).
pub const LABEL_SEP: f64 = 12.0;

/// How far apart two labels one above the other stand at least (drawing px, below the upper
/// one's descenders): half a line, so that two stacked kinds read as two lines ("REQUEST_VOTE"
/// over "APPEND_ENTRIES" 2 px apart read as one block on a projected Raft ring).
pub const LINE_SEP: f64 = 5.0;

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
    /// clears both nodes, the names above them, the labels already placed (on its line by
    /// [`LABEL_SEP`]) and the canvas's
    /// edges; else, of those clear of labels and edges, the one that clears the nodes most;
    /// `None` (the label is not written) when every spot is taken or cut off. A message just leaving a node toward the left
    /// had its label written into that node ("SYN" over "B"), a label over a name
    /// ("MUTATION_REQ" over "node3"), two drops beside each other wrote their kinds on one spot
    /// ("REQUEST_VOTE" over "APPEND_ENTRIES"), and a label went past the left edge ("QUEST_VOTE").
    pub fn place(&mut self, q: Pt, w: f64, h: f64, ends: &LinkEnds, below: bool) -> Option<Pt> {
        const GAP: f64 = 6.0;
        let (right, left) = (q.x + GAP, q.x - GAP - w);
        let (up, down) = (q.y - GAP + 1.0, q.y + GAP + h);
        // One line further out: `LINE_SEP` between the boxes (2 px of descenders each).
        let (up2, down2) = (up - h - 2.0 - LINE_SEP, down + h + 2.0 + LINE_SEP);
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
                .blocked
                .iter()
                .map(|t| t.clearance(&me))
                .fold(inside, f64::min);
            // The labels already written: one on the same line counts `LABEL_SEP` less 1 px
            // nearer than it is, so that it stays that far away; one above or below, `LINE_SEP`.
            let free = self
                .boxes
                .iter()
                .map(|t| {
                    let c = t.clearance(&me);
                    c - (if t.same_line(&me) {
                        LABEL_SEP
                    } else {
                        LINE_SEP
                    } - 1.0)
                })
                .fold(free, f64::min);
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

/// An arrow for [`place_along`]: (from, to, label width).
pub type LabelArrow = ((f64, f64), (f64, f64), f64);

/// Where each arrow's label goes along it (the sequence diagram): arrows are (from, to, label
/// width), labels `h` tall and centred on the point returned (x, baseline y); each label tries
/// the arrow's middle, then points nearer its ends, and takes the first place whose box
/// overlaps no earlier label and none of `taken` (text already on the diagram: the nodes'
/// events). `None`: no free place (the arrow keeps its tooltip). Labels never overprint.
pub fn place_along(arrows: &[LabelArrow], h: f64, taken: &[TextBox]) -> Vec<Option<(f64, f64)>> {
    let mut placed: Vec<TextBox> = taken.to_vec();
    arrows
        .iter()
        .map(|&((x1, y1), (x2, y2), w)| {
            let spot = [0.5, 0.35, 0.65, 0.2, 0.8]
                .into_iter()
                .flat_map(|t| [(t, -3.0), (t, 10.0)])
                .map(|(t, dy)| (x1 + (x2 - x1) * t, y1 + (y2 - y1) * t + dy))
                .find(|&(x, y)| {
                    let me = TextBox::centred(x, y, w, h);
                    placed.iter().all(|p| p.clearance(&me) >= 0.0)
                });
            if let Some((x, y)) = spot {
                placed.push(TextBox::centred(x, y, w, h));
            }
            spot
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A link whose nodes are far from the marks the tests place labels at.
    fn far_ends() -> LinkEnds {
        let far = [
            Pt { x: 0.0, y: 0.0 },
            Pt {
                x: 1000.0,
                y: 1000.0,
            },
        ];
        ends(far, 10.0, [0.0; 2])
    }

    #[test]
    fn labels_side_by_side_stand_a_word_space_apart() {
        // Two drops' marks on neighbouring links, 85 px apart: the second kind fitted 5 px right
        // of the first, on its line ("APPEND_ENTRIES REQUEST_VOTE", one phrase on a projected
        // ring).
        let (e, w, h) = (far_ends(), 80.0, 9.0);
        let bx = |p: Pt| TextBox {
            x: p.x,
            y: p.y,
            w,
            h,
        };
        let mut l = fresh();
        let a = l.place(Pt { x: 100.0, y: 100.0 }, w, h, &e, false).unwrap();
        let b = l.place(Pt { x: 185.0, y: 100.0 }, w, h, &e, false).unwrap();
        let gap = bx(a).clearance(&bx(b));
        assert!(
            !bx(a).same_line(&bx(b)) || gap >= LABEL_SEP,
            "{a:?} and {b:?} are {gap} px apart on one line"
        );
        assert!(gap >= 1.0, "{a:?} {b:?}");
        // Without the rule it went on the first one's line, 5 px to its right.
        assert!(bx(a).same_line(&bx(Pt { x: 191.0, y: 95.0 })));
        // Marks every 20 px along a line: whatever is written keeps the distance on its line.
        let mut l = fresh();
        let placed: Vec<Pt> = (0..6)
            .filter_map(|k| {
                l.place(
                    Pt {
                        x: 300.0 + 20.0 * k as f64,
                        y: 300.0,
                    },
                    w,
                    h,
                    &e,
                    k % 2 == 0,
                )
            })
            .collect();
        assert!(placed.len() >= 2, "{placed:?}");
        for (i, p) in placed.iter().enumerate() {
            for q in &placed[i + 1..] {
                let (p, q) = (bx(*p), bx(*q));
                let c = p.clearance(&q);
                assert!(c >= 0.0, "{p:?} / {q:?}");
                assert!(
                    !p.same_line(&q) || c >= LABEL_SEP - 1.0,
                    "{p:?} / {q:?}: {c}"
                );
            }
        }
    }

    #[test]
    fn stacked_labels_stand_half_a_line_apart() {
        // Two drops at one spot with different kinds (the REQUEST_VOTE and the APPEND_ENTRIES
        // lost on one link): the second goes above or below the first, `LINE_SEP` away (it
        // was 2 px: the two kinds read as one block).
        let (e, w, h) = (far_ends(), 80.0, 9.0);
        let bx = |p: Pt| TextBox {
            x: p.x,
            y: p.y,
            w,
            h,
        };
        let mut l = fresh();
        let q = Pt { x: 300.0, y: 300.0 };
        // Four fit around the mark on its two lines; the fifth and sixth go a line further out.
        let placed: Vec<Pt> = (0..6).filter_map(|_| l.place(q, w, h, &e, false)).collect();
        assert_eq!(placed.len(), 6, "{placed:?}");
        let mut stacked = 0;
        for (i, p) in placed.iter().enumerate() {
            for r in &placed[i + 1..] {
                let (p, r) = (bx(*p), bx(*r));
                let c = p.clearance(&r);
                if !p.same_line(&r) {
                    assert!(c >= LINE_SEP - 1e-9, "{p:?} / {r:?}: {c} px apart");
                    stacked += 1;
                } else {
                    assert!(c >= LABEL_SEP - 1.0, "{p:?} / {r:?}: {c}");
                }
            }
        }
        assert!(stacked >= 1, "{placed:?}");
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

    #[test]
    fn labels_along_arrows_on_the_same_rows_never_overprint() {
        // MUTATION_RSP, TCP_ACK and ECHO_RSP between the same rows and lifelines (15138).
        let w = |chars: f64| chars * 6.8 + 4.0;
        let a = ((200.0, 100.0), (500.0, 112.0), w(12.0));
        let b = ((200.0, 100.0), (500.0, 112.0), w(7.0));
        let c = ((500.0, 100.0), (200.0, 112.0), w(8.0));
        let placed = place_along(&[a, b, c], 9.0, &[]);
        let boxes: Vec<TextBox> = placed
            .iter()
            .zip([a, b, c])
            .filter_map(|(p, (_, _, w))| p.map(|(x, y)| TextBox::centred(x, y, w, 9.0)))
            .collect();
        assert_eq!(boxes.len(), 3, "{placed:?}");
        for i in 0..boxes.len() {
            for j in 0..i {
                let d = boxes[i].clearance(&boxes[j]);
                assert!(d >= 0.0, "{:?} {:?}", boxes[i], boxes[j]);
            }
        }
        // The first label keeps the middle of its arrow.
        assert_eq!(placed[0].map(|p| p.0), Some(350.0));
    }

    #[test]
    fn labels_along_arrows_keep_off_text_already_there() {
        // An event's text ("DOWN C") right where the arrow's middle is.
        let a = ((200.0, 100.0), (500.0, 112.0), 3.0 * 6.8 + 4.0);
        let alone = place_along(&[a], 9.0, &[])[0].expect("a place");
        let event = TextBox::centred(alone.0, alone.1, 6.0 * 6.8 + 4.0, 9.0);
        let moved = place_along(&[a], 9.0, &[event])[0].expect("another place");
        assert_ne!(moved, alone);
        let me = TextBox::centred(moved.0, moved.1, a.2, 9.0);
        assert!(me.clearance(&event) >= 0.0, "{moved:?} {event:?}");
    }

    #[test]
    fn a_box_centred_is_the_box_at_its_left_end() {
        let c = TextBox::centred(100.0, 50.0, 40.0, 9.0);
        assert_eq!(
            c,
            TextBox {
                x: 80.0,
                y: 50.0,
                w: 40.0,
                h: 9.0
            }
        );
        // 11 apart vertically (9 above the baseline, 2 below) is touching, not overlapping.
        let below = TextBox::centred(100.0, 61.0, 40.0, 9.0);
        assert_eq!(c.clearance(&below), 0.0);
        let nearer = TextBox::centred(100.0, 60.0, 40.0, 9.0);
        assert!(c.clearance(&nearer) < 0.0);
    }
}
