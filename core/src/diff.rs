//! Comparing two runs: the first behavioural divergence of their traces, and the views that
//! differ.
//!
//! Two runs (two variants of one scenario and seed, or a run and its fork) are advanced in
//! lockstep over virtual time, one moment (every event at one virtual time) after the other,
//! and compared as they go, so a divergence early in a long run is found without running to the
//! end. The first divergence is the first *behaviour* that differs, not the first wording:
//!
//! 1. **event**: a record other than a log line differs (a message sent, delivered or dropped,
//!    a timer, a task, a state mark, an applied action, a node's status; compared by what a
//!    person sees — time, node, kind, peers, verbs and message ids — never by step numbers),
//!    the log lines around them left out on both sides;
//! 2. **state**: at a moment whose log lines differ (the code took another path) while every
//!    other record agrees, the model's views (`Driver::views_json`, what the inspectors show)
//!    differ just after it. A moment whose records all agree is assumed to change both states
//!    alike, so the views are compared only where the log lines say the paths differ;
//! 3. **log**: only when nothing else differs to the end, the first log line whose level or
//!    text differs (a message reworded between versions).
//!
//! `first_divergence` applies the rule to two drivers; the web app's compare drives
//! [`Lockstep`] a budget of steps at a time. `tests/tests/diff.rs` checks both against
//! [`first_event_difference`] and a brute-force walk of both finished traces.

use crate::engine::trace::{rec_json, Rec, RecKind, Trace};
use crate::engine::SimError;
use crate::model::Driver;
use crate::runner::{Report, Run};
use crate::time::Micros;
use serde::Serialize;
use std::ops::Range;

/// Most view values a state divergence lists.
pub const VIEWS_LISTED: usize = 12;
/// How deep [`view_diffs`] walks the views for a state divergence.
pub const VIEWS_DEPTH: usize = 10;

/// What differs first (the module doc's rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DivKind {
    /// A record other than a log line.
    Event,
    /// The model's views just after a moment whose log lines differ.
    State,
    /// Only a log line's text or level, and nothing else to the end.
    Log,
}

impl DivKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DivKind::Event => "event",
            DivKind::State => "state",
            DivKind::Log => "log",
        }
    }
}

/// Where two runs first differ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// Virtual time of the divergence: the earlier of the two differing records (`Event`,
    /// `Log`), or the moment after which the views differ (`State`).
    pub time_us: Micros,
    /// Its node (the side with the earlier record).
    pub node: String,
    pub kind: DivKind,
    /// Index of the differing record in each trace (a side with no such record then: the
    /// index its next record will have). Before them both runs behave the same.
    pub index_a: usize,
    pub index_b: usize,
    /// The records at `index_a` / `index_b` (`rec_json`), `None` where a side has none by
    /// then. For `State`, the first log lines of that moment that differ.
    pub a: Option<serde_json::Value>,
    pub b: Option<serde_json::Value>,
    /// For `State`: the view values that differ just after `time_us` (at most
    /// [`VIEWS_LISTED`], [`VIEWS_DEPTH`] levels deep) and how many there are.
    pub views: Vec<ViewDiff>,
    pub views_differing: usize,
    /// For `Event`: the first log lines of that moment that differ, paired (what each side
    /// logged instead), when any do.
    pub logged: Option<(Option<serde_json::Value>, Option<serde_json::Value>)>,
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

fn is_log(r: &Rec) -> bool {
    matches!(r.kind, RecKind::Log { .. })
}

/// The first index where two finished record lists differ, log lines included (one ending
/// early counts), by a plain walk over both.
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

/// The first records where two finished traces differ once their log lines are left out (one
/// ending early counts): their indices, `None` for a side that has no record left. A plain
/// walk over both: the reference [`Lockstep`]'s events are tested against.
pub fn first_event_difference(ta: &Trace, tb: &Trace) -> Option<(Option<usize>, Option<usize>)> {
    let mut ia = ta.recs.iter().enumerate().filter(|(_, r)| !is_log(r));
    let mut ib = tb.recs.iter().enumerate().filter(|(_, r)| !is_log(r));
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return None,
            (Some((i, ra)), Some((j, rb))) => {
                if !same_rec(ta, &ra, tb, &rb) {
                    return Some((Some(i), Some(j)));
                }
            }
            (x, y) => return Some((x.map(|p| p.0), y.map(|p| p.0))),
        }
    }
}

/// Advance `a` and `b` together to `until`, one moment at a time, and stop at the first
/// behavioural divergence (the module doc's rule). Both engines are left at the moment of the
/// divergence, or at `until`.
pub fn first_divergence(
    a: &mut dyn Driver,
    b: &mut dyn Driver,
    until: Micros,
) -> Result<Option<Divergence>, SimError> {
    let mut l = Lockstep::default();
    loop {
        let goal = Lockstep::next_goal(a, b, until);
        a.run_until(goal, u64::MAX)?;
        b.run_until(goal, u64::MAX)?;
        if let Some(d) = l.compare(a, b) {
            return Ok(Some(d));
        }
        if goal >= until {
            return Ok(l.finish());
        }
    }
}

/// The lockstep comparison's progress: the records compared on each side (both behaving the
/// same up to them) and the first log line that differed (the answer if nothing else does).
#[derive(Clone, Debug, Default)]
pub struct Lockstep {
    seen: [usize; 2],
    first_log: Option<Divergence>,
}

impl Lockstep {
    /// The moment both runs go to next: the earlier of their next events, at most `until`.
    pub fn next_goal(a: &mut dyn Driver, b: &mut dyn Driver, until: Micros) -> Micros {
        let next = |d: &mut dyn Driver| d.next_time().unwrap_or(Micros::MAX);
        next(a).min(next(b)).min(until).max(a.now().min(b.now()))
    }

    /// Compare what both runs recorded since the last call. Both must have run every event up
    /// to the same virtual time, and no further. `Some` at a divergence of events or state.
    pub fn compare(&mut self, a: &dyn Driver, b: &dyn Driver) -> Option<Divergence> {
        let (ta, tb) = (a.trace(), b.trace());
        let (na, nb) = (ta.recs.len(), tb.recs.len());
        let [sa, sb] = self.seen;
        self.seen = [na, nb];
        // The common case: the moment's records are all the same.
        if na - sa == nb - sb
            && (sa..na)
                .zip(sb..nb)
                .all(|(i, j)| same_rec(ta, &ta.recs.at(i), tb, &tb.recs.at(j)))
        {
            return None;
        }
        let ra: Vec<(usize, Rec)> = (sa..na).map(|i| (i, ta.recs.at(i))).collect();
        let rb: Vec<(usize, Rec)> = (sb..nb).map(|i| (i, tb.recs.at(i))).collect();
        let at =
            |side: Option<&(usize, Rec)>, n: usize| side.map_or((n, None), |p| (p.0, Some(p.1)));
        // The moment's log lines that differ, paired (what each side logged instead).
        let (la, lb): (Vec<_>, Vec<_>) = (
            ra.iter().filter(|(_, r)| is_log(r)).copied().collect(),
            rb.iter().filter(|(_, r)| is_log(r)).copied().collect(),
        );
        let logs = log_pair(ta, &la, tb, &lb);
        // Events, the log lines left out.
        let (mut x, mut y) = (
            ra.iter().filter(|(_, r)| !is_log(r)),
            rb.iter().filter(|(_, r)| !is_log(r)),
        );
        loop {
            match (x.next(), y.next()) {
                (None, None) => break,
                (Some(p), Some(q)) if same_rec(ta, &p.1, tb, &q.1) => {}
                (p, q) => {
                    let mut d = divergence(a, b, DivKind::Event, at(p, na), at(q, nb));
                    if let Some((p, q)) = logs {
                        d.logged = Some((
                            p.map(|p| rec_json(ta, a.topo(), &p.1)),
                            q.map(|q| rec_json(tb, b.topo(), &q.1)),
                        ));
                    }
                    return Some(d);
                }
            }
        }
        // Only log lines differ: the paths did; the views say whether the state did.
        let (p, q) = logs?;
        let log = divergence(a, b, DivKind::Log, at(p.as_ref(), na), at(q.as_ref(), nb));
        let (views, total) =
            view_diffs(&a.views_json(), &b.views_json(), VIEWS_DEPTH, VIEWS_LISTED);
        if total > 0 {
            return Some(Divergence {
                kind: DivKind::State,
                time_us: a.now().max(log.time_us),
                views,
                views_differing: total,
                ..log
            });
        }
        self.first_log.get_or_insert(log);
        None
    }

    /// Once both runs reached the end without a divergence of events or state: the first log
    /// line that differed, if any.
    pub fn finish(self) -> Option<Divergence> {
        self.first_log
    }
}

/// Two log lines of one moment, one of each side (`None`: the side has none to pair).
type LogPair = (Option<(usize, Rec)>, Option<(usize, Rec)>);

/// The first of a moment's log lines that differ between the sides, each paired with what the
/// other side logged instead: lines both sides logged alike are left out, and the first line
/// of `a` left is paired with the line of `b` left that shares the longest beginning with it
/// (the same message worded otherwise, or with other values). `None` when the lines are the
/// same.
fn log_pair(ta: &Trace, la: &[(usize, Rec)], tb: &Trace, lb: &[(usize, Rec)]) -> Option<LogPair> {
    fn text<'t>(t: &'t Trace, r: &Rec) -> (&'static str, &'t str) {
        match r.kind {
            RecKind::Log { line } => {
                let l = &t.logs[line as usize];
                (l.level.as_str(), t.text(l))
            }
            _ => ("", ""),
        }
    }
    if la.len() == lb.len() && la.iter().zip(lb).all(|(p, q)| same_rec(ta, &p.1, tb, &q.1)) {
        return None;
    }
    // Lines logged alike on both sides (matched greedily, in order) are left out.
    let mut used = vec![false; lb.len()];
    let mut left_a = Vec::new();
    for p in la {
        match (0..lb.len()).find(|&j| !used[j] && same_rec(ta, &p.1, tb, &lb[j].1)) {
            Some(j) => used[j] = true,
            None => left_a.push(*p),
        }
    }
    let left_b: Vec<(usize, Rec)> = lb
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(q, _)| *q)
        .collect();
    Some(match (left_a.first(), left_b.is_empty()) {
        (None, true) => {
            // The same lines in another order: the first position that differs.
            let k = (0..la.len())
                .find(|&k| !same_rec(ta, &la[k].1, tb, &lb[k].1))
                .expect("lines differ");
            (Some(la[k]), Some(lb[k]))
        }
        (None, false) => (None, Some(left_b[0])),
        (Some(p), true) => (Some(*p), None),
        (Some(p), false) => {
            let (lv, tx) = text(ta, &p.1);
            let common = |q: &(usize, Rec)| {
                let (lw, ty) = text(tb, &q.1);
                let n = tx
                    .bytes()
                    .zip(ty.bytes())
                    .take_while(|(c, d)| c == d)
                    .count();
                n + if lv == lw { 1 } else { 0 }
            };
            // The longest common beginning; the earliest of equals.
            let mut best = left_b[0];
            for q in &left_b[1..] {
                if common(q) > common(&best) {
                    best = *q;
                }
            }
            (Some(*p), Some(best))
        }
    })
}

/// A divergence of `kind` at records `ia` of `a` and `ib` of `b` (index, and the record when
/// the side has one).
fn divergence(
    a: &dyn Driver,
    b: &dyn Driver,
    kind: DivKind,
    (ia, ra): (usize, Option<Rec>),
    (ib, rb): (usize, Option<Rec>),
) -> Divergence {
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
        kind,
        index_a: ia,
        index_b: ib,
        a: ra.map(|r| rec_json(a.trace(), a.topo(), &r)),
        b: rb.map(|r| rec_json(b.trace(), b.topo(), &r)),
        views: Vec::new(),
        views_differing: 0,
        logged: None,
    }
}

/// A record (`rec_json`) as one line: its node, kind, verb, peers, level, text, state change
/// and action, in that order (what the compare bar and `clusterscope diff` show).
pub fn rec_line(v: &serde_json::Value) -> String {
    let mut parts = Vec::new();
    for k in [
        "node", "kind", "verb", "task", "timer", "to", "from", "reason", "level", "text", "change",
        "peer", "status", "action",
    ] {
        if let Some(x) = v.get(k) {
            let s = match x {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            parts.push(match k {
                "to" => format!("→ {s}"),
                "from" => format!("← {s}"),
                _ => s,
            });
        }
    }
    parts.join(" ")
}

impl Divergence {
    /// One line on what differs, e.g. "state: the views differ just after it (3 values)".
    pub fn what(&self) -> String {
        match self.kind {
            DivKind::Event => "a message, timer, task or state change differs".to_string(),
            DivKind::State => format!(
                "the state differs just after it ({} view value{}), the log lines there too",
                self.views_differing,
                if self.views_differing == 1 { "" } else { "s" }
            ),
            DivKind::Log => {
                "only a log line's wording: nothing else differs up to the end".to_string()
            }
        }
    }

    /// Both records as lines with the words that differ ([`pair_lines`]).
    pub fn lines(&self) -> [Option<(String, Range<usize>)>; 2] {
        pair_lines(self.a.as_ref(), self.b.as_ref())
    }
}

/// Two records (`rec_json`) as lines ([`rec_line`]) and the range of each that differs
/// ([`differing_words`]; all of a line whose other side has no record); `None` for a side
/// without one.
pub fn pair_lines(
    a: Option<&serde_json::Value>,
    b: Option<&serde_json::Value>,
) -> [Option<(String, Range<usize>)>; 2] {
    match (a.map(rec_line), b.map(rec_line)) {
        (Some(x), Some(y)) => {
            let (ra, rb) = differing_words(&x, &y);
            [Some((x, ra)), Some((y, rb))]
        }
        (x, y) => [
            x.map(|x| {
                let n = x.len();
                (x, 0..n)
            }),
            y.map(|y| {
                let n = y.len();
                (y, 0..n)
            }),
        ],
    }
}

/// Where two texts differ, in whole words: the byte range of each that is left once the
/// words (runs of letters, digits and `_`, or single other characters) both begin with and
/// both end with are taken off. Two equal texts give two empty ranges at their ends.
pub fn differing_words(a: &str, b: &str) -> (Range<usize>, Range<usize>) {
    fn tokens(s: &str) -> Vec<Range<usize>> {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let mut out: Vec<Range<usize>> = Vec::new();
        let mut prev: Option<char> = None;
        for (i, c) in s.char_indices() {
            let end = i + c.len_utf8();
            match (out.last_mut(), prev) {
                (Some(last), Some(p)) if word(p) && word(c) => last.end = end,
                _ => out.push(i..end),
            }
            prev = Some(c);
        }
        out
    }
    let (ta, tb) = (tokens(a), tokens(b));
    let same = |x: &Range<usize>, y: &Range<usize>| a[x.clone()] == b[y.clone()];
    let pre = ta.iter().zip(&tb).take_while(|(x, y)| same(x, y)).count();
    let post = ta[pre..]
        .iter()
        .rev()
        .zip(tb[pre..].iter().rev())
        .take_while(|(x, y)| same(x, y))
        .count();
    let range = |t: &[Range<usize>], len: usize| {
        let lo = t.get(pre).map_or(len, |r| r.start);
        let hi = if t.len() - post > pre {
            t[t.len() - post - 1].end
        } else {
            lo
        };
        lo..hi.max(lo)
    };
    (range(&ta, a.len()), range(&tb, b.len()))
}

/// Two runs compared whole (what `clusterscope diff` prints): `a` and `b` each run to `until`
/// as `Run::run` does, so each side's expectations are sampled at their own times and its
/// recorded actions checked, exactly as `clusterscope run` reports them (issue 39: checked where
/// the divergence search had left the engines, raft-figure-8's safe side held 5 of its 8); the
/// first divergence is searched in lockstep on `fresh`, two runs made from the same scenario,
/// variants, seed and actions, not yet started. The runs `a` and `b` are left at `until`, for
/// their views.
pub fn compare(
    a: &mut Run,
    b: &mut Run,
    fresh: (Run, Run),
    until: Micros,
) -> Result<(Option<Divergence>, Report, Report), SimError> {
    let (mut fa, mut fb) = fresh;
    let first = first_divergence(&mut *fa.engine, &mut *fb.engine, until)?;
    let ra = a.run(Some(until))?;
    let rb = b.run(Some(until))?;
    Ok((first, ra, rb))
}

/// One view that differs at the end: its path in `views_json` and both values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewDiff {
    pub path: String,
    pub a: serde_json::Value,
    pub b: serde_json::Value,
}

/// The leaves (to `depth` levels of objects and of lists of one length) where two `views_json`
/// values differ, at most `limit` of them, and how many there are in all. A path joins the keys
/// with `.`; a list's element is its `name` when every element has a distinct one, else `[i]`.
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
        use serde_json::Value::{Array, Object};
        if a == b {
            return;
        }
        match (a, b) {
            // Lists of the same length element by element, by name when every element has a
            // distinct one (a model's list of nodes), else by position.
            (Array(x), Array(y)) if depth > 0 && x.len() == y.len() => {
                let name = |v: &serde_json::Value| {
                    v.get("name").and_then(|n| n.as_str()).map(str::to_string)
                };
                let names: Vec<Option<String>> = x.iter().map(name).collect();
                let distinct = crate::small_sort::set(names.iter().flatten());
                let by_name =
                    distinct.len() == x.len() && x.iter().zip(y).all(|(p, q)| name(p) == name(q));
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    path.push(match (&names[i], by_name) {
                        (Some(n), true) => n.clone(),
                        _ => format!("[{i}]"),
                    });
                    walk(path, p, q, depth - 1, out, total, limit);
                    path.pop();
                }
            }
            (Object(x), Object(y)) if depth > 0 => {
                let keys = crate::small_sort::set(x.keys().chain(y.keys()));
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
                        path: path.join(".").replace(".[", "["),
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
