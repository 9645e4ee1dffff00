//! Comparing two runs: the first observable divergence of their traces, and the views that differ.
//!
//! Two runs (two variants of one scenario and seed, or a run and its fork) are advanced in
//! lockstep over virtual time and their records compared as they appear, so a divergence early in
//! a long run is found without running to the end. Records are compared by what a person can see
//! — time, node, kind, peers, message verbs and ids, log level and text, applied actions — not by
//! the engine's step numbers, which may differ where nothing visible does.

use crate::engine::trace::{rec_json, Rec, RecKind, Trace};
use crate::engine::SimError;
use crate::model::Driver;
use crate::time::Micros;
use serde::Serialize;

/// Where two runs first differ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// Virtual time of the first differing record (the earlier of the two).
    pub time_us: Micros,
    /// Its node (the side with the earlier record).
    pub node: String,
    /// Index of the record in both traces (everything before it is the same).
    pub index: usize,
    /// The records at `index` on each side (`rec_json`), `None` where a side has none by then.
    pub a: Option<serde_json::Value>,
    pub b: Option<serde_json::Value>,
}

/// Whether record `i` of `ta` and record `j` of `tb` look the same to a person.
pub fn same_rec(ta: &Trace, ra: &Rec, tb: &Trace, rb: &Rec) -> bool {
    if ra.time != rb.time || ra.node != rb.node {
        return false;
    }
    match (ra.kind, rb.kind) {
        (RecKind::Log { line: la }, RecKind::Log { line: lb }) => {
            let (a, b) = (&ta.logs[la as usize], &tb.logs[lb as usize]);
            a.level == b.level && ta.text(a) == tb.text(b)
        }
        (RecKind::Action { index: ia }, RecKind::Action { index: ib }) => {
            let (a, b) = (&ta.actions[ia as usize], &tb.actions[ib as usize]);
            a.source == b.source && a.action == b.action
        }
        (ka, kb) => ka == kb,
    }
}

/// The first index where two finished record lists differ (one ending early counts), by a plain
/// walk over both: the reference the lockstep finder is tested against.
pub fn first_difference(ta: &Trace, tb: &Trace) -> Option<usize> {
    let (na, nb) = (ta.recs.len(), tb.recs.len());
    let mut ia = ta.recs.iter();
    let mut ib = tb.recs.iter();
    for i in 0..na.min(nb) {
        let (ra, rb) = (ia.next().expect("len"), ib.next().expect("len"));
        if !same_rec(ta, &ra, tb, &rb) {
            return Some(i);
        }
    }
    (na != nb).then_some(na.min(nb))
}

/// Advance `a` and `b` together to `until` in slices of `slice` virtual time, comparing new
/// records after each slice; stop at the first difference. Both engines are left where the
/// search stopped (at the end of the slice holding the divergence, or at `until`).
pub fn first_divergence(
    a: &mut dyn Driver,
    b: &mut dyn Driver,
    until: Micros,
    slice: Micros,
) -> Result<Option<Divergence>, SimError> {
    let slice = slice.max(1);
    // Records already equal (both runs may start part-way, e.g. from a shared prefix).
    let mut i = 0usize;
    let mut t = a.now().min(b.now());
    loop {
        t = t.saturating_add(slice).min(until);
        a.run_until(t, u64::MAX)?;
        b.run_until(t, u64::MAX)?;
        let (ta, tb) = (a.trace(), b.trace());
        let (na, nb) = (ta.recs.len(), tb.recs.len());
        let common = na.min(nb);
        while i < common {
            let (ra, rb) = (
                ta.recs.get(i).expect("index < len"),
                tb.recs.get(i).expect("index < len"),
            );
            if !same_rec(ta, &ra, tb, &rb) {
                return Ok(Some(divergence(a, b, i)));
            }
            i += 1;
        }
        if na != nb {
            // Both ran to `t`: the longer side has a record the other does not have by then.
            return Ok(Some(divergence(a, b, common)));
        }
        if t >= until {
            return Ok(None);
        }
    }
}

/// The divergence at record index `i` of both traces (everything before it is the same).
pub fn divergence(a: &dyn Driver, b: &dyn Driver, i: usize) -> Divergence {
    let ra = a.trace().recs.get(i);
    let rb = b.trace().recs.get(i);
    let first = match (ra, rb) {
        (Some(x), Some(y)) if y.time < x.time => (y, b),
        (Some(x), _) => (x, a),
        (None, Some(y)) => (y, b),
        (None, None) => unreachable!("a divergence has a record on one side"),
    };
    Divergence {
        time_us: first.0.time,
        node: first
            .1
            .topo()
            .names
            .get(first.0.node as usize)
            .cloned()
            .unwrap_or_default(),
        index: i,
        a: ra.map(|r| rec_json(a.trace(), a.topo(), &r)),
        b: rb.map(|r| rec_json(b.trace(), b.topo(), &r)),
    }
}

/// One view that differs at the end: its path in `views_json` and both values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewDiff {
    pub path: String,
    pub a: serde_json::Value,
    pub b: serde_json::Value,
}

/// The leaves (to `depth` levels) where two `views_json` values differ, at most `limit` of them,
/// and how many there are in all.
pub fn view_diffs(
    a: &serde_json::Value,
    b: &serde_json::Value,
    depth: usize,
    limit: usize,
) -> (Vec<ViewDiff>, usize) {
    fn walk(
        path: &mut Vec<String>,
        a: &serde_json::Value,
        b: &serde_json::Value,
        depth: usize,
        out: &mut Vec<ViewDiff>,
        total: &mut usize,
        limit: usize,
    ) {
        use serde_json::Value::Object;
        if a == b {
            return;
        }
        match (a, b) {
            (Object(x), Object(y)) if depth > 0 => {
                let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                let null = serde_json::Value::Null;
                for k in keys {
                    path.push(k.clone());
                    walk(
                        path,
                        x.get(k).unwrap_or(&null),
                        y.get(k).unwrap_or(&null),
                        depth - 1,
                        out,
                        total,
                        limit,
                    );
                    path.pop();
                }
            }
            _ => {
                *total += 1;
                if out.len() < limit {
                    out.push(ViewDiff {
                        path: path.join("."),
                        a: a.clone(),
                        b: b.clone(),
                    });
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut total = 0;
    walk(&mut Vec::new(), a, b, depth, &mut out, &mut total, limit);
    (out, total)
}
