//! Tests of the trace: record packing round trips (the overflow path), the chunks, the drop index
//! and truncation, and the pinned FNV and running hashes.

use super::recs::{Packed, CHUNK};
use super::*;

use crate::engine::NodeStatus;

#[test]
fn record_is_small() {
    // The retained trace must stay under 100 bytes per event (about two records per event,
    // plus at most one chunk of unused capacity); the stored record is the bulk of it.
    assert_eq!(std::mem::size_of::<Packed>(), 32);
    assert_eq!(Recs::PACKED_BYTES, 32);
}

fn rec(step: u64, time: Micros, node: u32, kind: RecKind) -> Rec {
    Rec {
        step,
        time,
        node,
        kind,
    }
}

/// One record of every kind (and every reason/status), with ordinary values.
fn every_kind(step: u64, time: Micros) -> Vec<Rec> {
    let mut v = vec![
        RecKind::Send {
            msg: 7,
            to: 3,
            label: "SYN",
            deliver_at: time + 1_500,
        },
        RecKind::Deliver {
            msg: 7,
            from: 2,
            label: "ACK",
            sent_at: time.saturating_sub(900),
        },
        RecKind::Timer { label: "gossip" },
        RecKind::TaskStart {
            exec: 1,
            label: "GossipStage",
            waited_us: 12,
        },
        RecKind::TaskDone {
            exec: 255,
            label: "GossipStage",
        },
        RecKind::TaskExpired {
            exec: 0,
            label: "ECHO_REQ",
            waited_us: 50_000,
        },
        RecKind::State {
            label: "DOWN",
            peer: 4,
        },
        RecKind::Log { line: 99 },
        RecKind::Action { index: 3 },
    ];
    for reason in [
        DropReason::LinkDown,
        DropReason::Loss,
        DropReason::NodeStopped,
        DropReason::NodeRestarted,
        DropReason::Discarded,
    ] {
        v.push(RecKind::Drop {
            msg: 8,
            from: 1,
            to: 6,
            label: "ACK2",
            reason,
        });
    }
    for status in [
        NodeStatus::Running,
        NodeStatus::Stopping,
        NodeStatus::Stopped,
    ] {
        v.push(RecKind::NodeStatus { status });
    }
    v.into_iter().map(|k| rec(step, time, 5, k)).collect()
}

/// Records whose values do not fit the packed form.
fn extremes() -> Vec<Rec> {
    let m = u64::MAX;
    let big = u32::MAX as u64 + 1;
    vec![
        rec(
            10,
            5,
            u32::MAX,
            RecKind::Send {
                msg: m,
                to: u32::MAX,
                label: "SYN",
                deliver_at: 6,
            },
        ),
        // Delivery more than u32::MAX µs after sending; and one "before" sending.
        rec(
            10,
            0,
            1,
            RecKind::Send {
                msg: 1,
                to: 2,
                label: "SYN",
                deliver_at: m,
            },
        ),
        rec(
            10,
            100,
            1,
            RecKind::Send {
                msg: 1,
                to: 2,
                label: "SYN",
                deliver_at: 99,
            },
        ),
        rec(
            11,
            m,
            1,
            RecKind::Deliver {
                msg: big,
                from: 0,
                label: "ACK",
                sent_at: 0,
            },
        ),
        rec(
            11,
            3,
            1,
            RecKind::Deliver {
                msg: 2,
                from: 0,
                label: "ACK",
                sent_at: 4,
            },
        ),
        rec(
            11,
            m,
            0,
            RecKind::Drop {
                msg: m,
                from: u32::MAX,
                to: u32::MAX,
                label: "",
                reason: DropReason::Discarded,
            },
        ),
        rec(
            12,
            m,
            0,
            RecKind::TaskStart {
                exec: u8::MAX,
                label: "t",
                waited_us: m,
            },
        ),
        rec(
            12,
            m,
            0,
            RecKind::TaskExpired {
                exec: 0,
                label: "t",
                waited_us: big,
            },
        ),
        // Steps far apart within one chunk, and a step before the chunk's first.
        rec(big + 12, 0, 0, RecKind::Timer { label: "tick" }),
        rec(m, m, u32::MAX, RecKind::Log { line: u32::MAX }),
        rec(
            m,
            m,
            0,
            RecKind::State {
                label: "UP",
                peer: u32::MAX,
            },
        ),
        rec(m, m, 0, RecKind::Action { index: u32::MAX }),
    ]
}

fn hash_of(rs: impl IntoIterator<Item = Rec>) -> u64 {
    let mut h = TraceHash::default();
    for r in rs {
        hash_rec(&mut h, &r, None);
    }
    h.0
}

#[test]
fn packed_round_trip_every_kind() {
    let want = every_kind(3, 1_000_000);
    let recs: Recs = want.iter().copied().collect();
    assert_eq!(recs.len(), want.len());
    assert_eq!(recs.overflow_len(), 0, "ordinary values are packed");
    let got: Vec<Rec> = recs.iter().collect();
    assert_eq!(got, want);
    assert_eq!(hash_of(recs.iter()), hash_of(want.iter().copied()));
    // Labels are stored once each.
    assert_eq!(recs.labels.table.len(), 7);
}

#[test]
fn values_that_do_not_fit_take_the_overflow_path() {
    let mut want = every_kind(10, 1_000);
    want.extend(extremes());
    // Ordinary records after the extreme ones still pack.
    want.extend(every_kind(20, 7));
    let recs: Recs = want.iter().copied().collect();
    assert_eq!(recs.overflow_len(), extremes().len());
    let got: Vec<Rec> = recs.iter().collect();
    assert_eq!(got, want);
    assert_eq!(hash_of(recs.iter()), hash_of(want.iter().copied()));
    for (i, r) in want.iter().enumerate() {
        assert_eq!(recs.get(i), Some(*r));
    }
    assert_eq!(recs.get(want.len()), None);
}

#[test]
fn labels_dedup_by_content_and_overflow_past_u16() {
    // Same content at two addresses: one table entry.
    let a: &'static str = Box::leak(String::from("SAME").into_boxed_str());
    let b: &'static str = Box::leak(String::from("SAME").into_boxed_str());
    assert_ne!(a.as_ptr(), b.as_ptr());
    let mut recs = Recs::new();
    recs.push(rec(0, 0, 0, RecKind::Timer { label: a }));
    recs.push(rec(0, 0, 0, RecKind::Timer { label: b }));
    assert_eq!(recs.labels.table.len(), 1);
    // More distinct labels than a u16 indexes: the rest is kept whole, nothing is lost.
    let n = u16::MAX as usize + 1 + 10;
    let mut want = Vec::new();
    for i in 0..n {
        let label: &'static str = Box::leak(format!("L{i}").into_boxed_str());
        let r = rec(1 + i as u64, i as u64, 0, RecKind::Timer { label });
        recs.push(r);
        want.push(r);
    }
    assert_eq!(recs.labels.table.len(), u16::MAX as usize + 1);
    assert_eq!(recs.overflow_len(), n + 1 - (u16::MAX as usize + 1));
    assert!(recs.iter().skip(2).eq(want.iter().copied()));
    // Known labels still pack after the table is full.
    let before = recs.overflow_len();
    recs.push(rec(n as u64 + 1, 0, 0, RecKind::Timer { label: "SAME" }));
    recs.push(rec(n as u64 + 1, 0, 0, RecKind::Timer { label: "L5" }));
    assert_eq!(recs.overflow_len(), before);
    assert_eq!(
        recs.last().map(|r| r.kind),
        Some(RecKind::Timer { label: "L5" })
    );
}

/// A reference trace: `per_step` records per step, every 5th one not packable.
fn reference(n: usize, per_step: usize) -> Vec<Rec> {
    (0..n)
        .map(|i| {
            let step = (i / per_step) as u64;
            let msg = if i % 5 == 0 {
                u64::MAX - i as u64
            } else {
                i as u64
            };
            rec(
                step,
                step * 10,
                (i % 7) as u32,
                RecKind::Send {
                    msg,
                    to: 1,
                    label: "SYN",
                    deliver_at: step * 10 + 3,
                },
            )
        })
        .collect()
}

#[test]
fn chunks_grow_without_slack_and_truncate_at_boundaries() {
    let want = reference(3 * CHUNK + 5, 2);
    let full: Recs = want.iter().copied().collect();
    assert_eq!(full.chunks.len(), 4);
    assert_eq!(full.capacity(), 4 * CHUNK);
    assert!(full.capacity() - full.len() < CHUNK);
    for n in [
        2 * CHUNK,
        CHUNK,
        CHUNK - 1,
        CHUNK + 1,
        2 * CHUNK + 2,
        3 * CHUNK + 4,
        3 * CHUNK + 5,
        0,
    ] {
        let mut recs = full.clone();
        recs.truncate(n);
        assert_eq!(recs.len(), n);
        assert_eq!(
            recs.chunks.len(),
            n.div_ceil(CHUNK),
            "chunks after truncate({n})"
        );
        assert_eq!(recs.bases.len(), recs.chunks.len());
        assert_eq!(
            recs.overflow_len(),
            n.div_ceil(5),
            "overflow after truncate({n})"
        );
        assert!(recs.iter().eq(want[..n].iter().copied()), "truncate({n})");
        // Growing again gives the same store as never having cut.
        recs.extend(want[n..].iter().copied());
        assert_eq!(recs, full, "regrown after truncate({n})");
        assert!(recs.iter().eq(want.iter().copied()));
        assert_eq!(recs.chunks.len(), 4);
    }
}

#[test]
fn the_drop_index_lists_the_drop_records_through_truncates() {
    // Every third record a drop, some of them too wide to pack.
    let want: Vec<Rec> = reference(2 * CHUNK + 7, 3)
        .into_iter()
        .enumerate()
        .map(|(i, r)| match r.kind {
            RecKind::Send { msg, to, label, .. } if i % 3 == 0 => Rec {
                kind: RecKind::Drop {
                    msg,
                    from: r.node,
                    to,
                    label,
                    reason: DropReason::Loss,
                },
                ..r
            },
            _ => r,
        })
        .collect();
    let drops_of = |recs: &[Rec]| -> Vec<u32> {
        (0..recs.len() as u32)
            .filter(|&i| matches!(recs[i as usize].kind, RecKind::Drop { .. }))
            .collect()
    };
    let full: Recs = want.iter().copied().collect();
    assert_eq!(full.drops(), drops_of(&want));
    assert_eq!(full.drops().len(), want.len().div_ceil(3));
    for n in [0, 1, 3, 4, CHUNK, CHUNK + 1, 2 * CHUNK + 6, 2 * CHUNK + 7] {
        let mut recs = full.clone();
        recs.truncate(n);
        assert_eq!(recs.drops(), drops_of(&want[..n]), "truncate({n})");
        recs.extend(want[n..].iter().copied());
        assert_eq!(recs.drops(), full.drops(), "regrown after truncate({n})");
    }
}

#[test]
fn index_at_step_and_iteration_match_a_slice() {
    // Steps with 3 records each, and gaps (steps without records).
    let mut want = reference(2 * CHUNK + 100, 3);
    for r in &mut want {
        r.step *= 2;
    }
    let recs: Recs = want.iter().copied().collect();
    let max = want.last().map_or(0, |r| r.step) + 3;
    for step in (0..=max).step_by(1).filter(|s| s % 97 < 6 || *s > max - 8) {
        assert_eq!(
            recs.index_at_step(step),
            want.partition_point(|r| r.step < step),
            "step {step}"
        );
    }
    for step in [0, 1, 2, max] {
        assert_eq!(
            recs.index_at_step(step),
            want.partition_point(|r| r.step < step)
        );
    }
    assert_eq!(
        recs.partition_point(|r| r.time <= 5_000),
        want.partition_point(|r| r.time <= 5_000)
    );
    assert!(recs.iter().rev().eq(want.iter().rev().copied()));
    let (a, b) = (CHUNK - 3, 2 * CHUNK + 7);
    assert!(recs.range(a..b).eq(want[a..b].iter().copied()));
    assert!(recs.range(..b).rev().eq(want[..b].iter().rev().copied()));
    assert!(recs.range(a..).eq(want[a..].iter().copied()));
    assert!(recs.range(a..=b).eq(want[a..=b].iter().copied()));
    assert_eq!(recs.range(a..b).len(), b - a);
    assert_eq!(recs.range(a..b).nth(5), Some(want[a + 5]));
    assert_eq!(recs.range(a..b).nth_back(5), Some(want[b - 6]));
    assert_eq!(recs.range(a..b).nth(b - a), None);
    assert_eq!(recs.first(), Some(want[0]));
    assert_eq!(recs.last(), want.last().copied());
    assert_eq!(Recs::new().last(), None);
    assert_eq!(Recs::new().index_at_step(5), 0);
}

#[test]
fn trace_truncate_to_step_at_a_chunk_boundary() {
    // One record per step: step s is record s, so step CHUNK starts chunk 1 exactly.
    let want = reference(2 * CHUNK + 10, 1);
    let mut t = Trace::new(0);
    t.recs.extend(want.iter().copied());
    t.steps = want.len() as u64;
    let before = t.approx_bytes();
    t.truncate_to_step(CHUNK as u64);
    assert_eq!(t.recs.len(), CHUNK);
    assert_eq!(t.recs.chunks.len(), 1);
    assert_eq!(t.steps, CHUNK as u64);
    assert!(t.approx_bytes() < before);
    assert!(t.recs.iter().eq(want[..CHUNK].iter().copied()));
    t.recs.push(want[CHUNK]);
    assert_eq!(t.recs.chunks.len(), 2);
    assert_eq!(t.recs.bases[1], CHUNK as u64);
    assert_eq!(t.rec_index_at_step(CHUNK as u64 + 1), CHUNK + 1);
}

#[test]
fn fnv_is_stable() {
    // Published FNV-1a 64 test vector.
    let mut h = Fnv::default();
    h.bytes(b"a");
    assert_eq!(h.0, 0xaf63_dc4c_8601_ec8c);
    let mut a = Fnv::default();
    a.str("ab");
    let mut b = Fnv::default();
    b.str("ab");
    assert_eq!(a, b);
    let mut c = Fnv::default();
    c.str("ba");
    assert_ne!(a, c);
}

/// The trace hash is pinned: a change here changes every `trace_hash` (re-bless the golden
/// hashes and say so). Strings: length first, then zero-padded 8-byte words, so neither a
/// split point nor trailing zero bytes can collide.
#[test]
fn trace_hash_is_stable_and_separates_strings() {
    let mut h = TraceHash::default();
    h.u64(1);
    h.str("ECHO_REQ");
    assert_eq!(h.0, {
        let mut x = TraceHash::default();
        x.u64(1);
        x.u64(8);
        x.u64(u64::from_le_bytes(*b"ECHO_REQ"));
        x.0
    });
    let one = |f: &dyn Fn(&mut TraceHash)| {
        let mut t = TraceHash::default();
        f(&mut t);
        t.0
    };
    let variants = [
        one(&|t| t.str("ab")),
        one(&|t| t.str("ba")),
        one(&|t| t.str("ab\0")),
        one(&|t| t.str("")),
        one(&|t| {
            t.str("a");
            t.str("b")
        }),
        one(&|t| t.str("abcdefghi")),
        one(&|t| t.str("abcdefgh")),
    ];
    for (i, a) in variants.iter().enumerate() {
        for b in &variants[i + 1..] {
            assert_ne!(a, b);
        }
    }
    // Pinned value (computed independently): the same on every platform.
    assert_eq!(one(&|t| t.u64(0)), 0xf8bb_92c9_1b3f_5cc0);
}

/// `TraceHash::str` pinned word by word for every remainder length (0-7 bytes after whole
/// words): the words are the string's bytes little-endian, zero-padded, whatever code builds
/// them (it once padded through `copy_from_slice`, then byte by byte, now from two overlapping
/// loads).
#[test]
fn trace_hash_of_a_string_is_its_zero_padded_words() {
    let text = "GossipDigestAck2 x";
    for len in 0..=text.len() {
        let s = &text[..len];
        let mut h = TraceHash::default();
        h.str(s);
        let mut x = TraceHash::default();
        x.u64(len as u64);
        for c in s.as_bytes().chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            x.u64(u64::from_le_bytes(w));
        }
        assert_eq!(h, x, "{s:?}");
    }
}
