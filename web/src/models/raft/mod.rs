//! Raft's own panels (protocol "raft", Apache Ratis): the inspector with a log strip per node.
//!
//! Everything here reads the model's `views_json` (per node: role, term, votedFor, leader,
//! election deadline, commitIndex / lastApplied / flushIndex, the log, the leader's follower
//! progress), never the model's Rust types. This module is the pure part: it turns that JSON
//! into the strips' layout ([`cluster`]), which `web/tests/models.rs` checks with hand-made JSON;
//! [`inspector`] draws it. Missing fields show as "—" and never panic.

pub mod inspector;

use clusterscope_core::engine::NodeId;
use clusterscope_core::runner::Run;
use serde_json::Value;
use std::any::Any;
use std::rc::Rc;

/// Index slots (columns) a strip shows at most: the newest entries up to the current leader's
/// last one (and a free slot after it), see [`axis`].
pub const WINDOW: u64 = 20;
/// Newest entries of a log that runs far past the window (a stranded leader's uncommitted
/// tail) shown after an elided gap.
pub const TAIL: u64 = 3;
/// Index slots a strip shows at least: short logs (Figure 8's two or three entries) get cells
/// twice as wide as in 20 slots, to read from the back of a lecture hall (RaftScope shows 10).
pub const MIN_WINDOW: u64 = 10;
/// Colours of the term palette (`.rt-c0` .. `.rt-c7` in style.css): term t gets t mod 8.
pub const PALETTE: u64 = 8;
/// Above this many nodes only the selected node's strip and the leader's are shown.
pub const MAX_STRIPS: usize = 9;

/// The stable colour slot of a term.
pub fn term_colour(term: u64) -> usize {
    (term % PALETTE) as usize
}

/// The views before the last cursor move (all nodes), to highlight what the move changed.
pub fn snapshot(run: &Run, _id: NodeId) -> Option<Rc<dyn Any>> {
    Some(Rc::new(run.engine.views_json()))
}

fn num(v: &Value, k: &str) -> Option<u64> {
    v.get(k).and_then(Value::as_u64)
}

/// A field as display text: "—" when missing or null.
pub fn text(v: &Value, k: &str) -> String {
    match v.get(k) {
        None | Some(Value::Null) => "—".into(),
        Some(Value::String(s)) if s.is_empty() => "—".into(),
        Some(Value::String(s)) => s.clone(),
        Some(x) => x.to_string(),
    }
}

/// One log entry as the strip draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub index: u64,
    pub term: u64,
    /// "startup" (the leader's no-op of its term) or "client".
    pub kind: String,
    pub what: String,
    pub colour: usize,
    /// New or rewritten since the previous cursor position.
    pub changed: bool,
}

/// What a marker on a strip points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    Flush,
    Commit,
    Applied,
    /// The leader's nextIndex for this follower (drawn above the follower's strip).
    Next,
    /// The leader's matchIndex for this follower.
    Match,
}

impl MarkKind {
    pub fn label(self) -> &'static str {
        match self {
            MarkKind::Flush => "flush",
            MarkKind::Commit => "commit",
            MarkKind::Applied => "applied",
            MarkKind::Next => "next",
            MarkKind::Match => "match",
        }
    }
    /// One letter drawn at the marker (the legend beside the strip spells it out).
    pub fn letter(self) -> &'static str {
        match self {
            MarkKind::Flush => "F",
            MarkKind::Commit => "C",
            MarkKind::Applied => "A",
            MarkKind::Next => "n",
            MarkKind::Match => "m",
        }
    }
    /// Above the boxes (the leader's view of a follower) or below (the node's own indexes).
    pub fn above(self) -> bool {
        matches!(self, MarkKind::Next | MarkKind::Match)
    }
    /// The marker's row in its band: each kind has its own, so markers never cover each other.
    pub fn lane(self) -> usize {
        match self {
            MarkKind::Commit | MarkKind::Next => 0,
            MarkKind::Applied | MarkKind::Match => 1,
            MarkKind::Flush => 2,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    pub kind: MarkKind,
    pub index: u64,
    /// Slot in the window (index - lo); `None` when the index is left of the window (the marker
    /// is drawn at the left edge, pointing left).
    pub slot: Option<u64>,
    /// Moved since the previous cursor position.
    pub changed: bool,
}

/// One node's strip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strip {
    pub name: String,
    pub role: String,
    pub term: Option<u64>,
    pub selected: bool,
    pub is_leader: bool,
    /// Entries inside the window, oldest first.
    pub entries: Vec<Entry>,
    /// Entries left of the window (not drawn).
    pub hidden_before: u64,
    /// Entries in the elided gap between the window and its tail (not drawn; a "…" with their
    /// count in the gap's column).
    pub hidden_gap: u64,
    /// Entries right of the last column (not drawn).
    pub hidden_after: u64,
    /// The last entry's term (0: empty log).
    pub last_term: u64,
    /// The last log index (0: empty log).
    pub last_index: u64,
    pub commit: Option<u64>,
    pub applied: Option<u64>,
    pub flush: Option<u64>,
    /// The leader's progress for this node, when the leader tracks it.
    pub next_index: Option<u64>,
    pub match_index: Option<u64>,
    pub markers: Vec<Marker>,
}

/// The strips' shared index axis: the window `lo..=hi` (slot 0 is index `lo`; index 0, nothing,
/// is a blank slot), then, when a log runs far past it, one gap column standing for the elided
/// indexes and the `tail` run (the longest log's newest [`TAIL`] entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis {
    pub lo: u64,
    pub hi: u64,
    pub tail: Option<(u64, u64)>,
}

impl From<(u64, u64)> for Axis {
    fn from((lo, hi): (u64, u64)) -> Axis {
        Axis { lo, hi, tail: None }
    }
}

impl Axis {
    /// Columns drawn: the window's slots, and the gap's and the tail's.
    pub fn columns(&self) -> u64 {
        self.hi + 1 - self.lo + self.tail.map(|(a, b)| 1 + b + 1 - a).unwrap_or(0)
    }
    /// The last index with a column.
    pub fn end(&self) -> u64 {
        self.tail.map(|t| t.1).unwrap_or(self.hi)
    }
    /// The gap's column and the indexes it stands for, when there is a tail.
    pub fn gap(&self) -> Option<(u64, (u64, u64))> {
        self.tail
            .map(|(a, _)| (self.hi + 1 - self.lo, (self.hi + 1, a - 1)))
    }
    /// The column of `index`: its own in the window or the tail, the gap's for an elided index;
    /// `None` left of the window or right of the end.
    pub fn slot(&self, index: u64) -> Option<u64> {
        if index < self.lo || index > self.end() {
            return None;
        }
        if index <= self.hi {
            return Some(index - self.lo);
        }
        let (gap, _) = self.gap()?;
        let (a, _) = self.tail?;
        Some(if index < a { gap } else { gap + 1 + index - a })
    }
}

/// The cluster's strips, on a shared index axis so a column is the same index on every strip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// First and last index of the window (inclusive; `MIN_WINDOW` to `WINDOW` slots), as in
    /// `axis`.
    pub lo: u64,
    pub hi: u64,
    pub axis: Axis,
    pub strips: Vec<Strip>,
    /// The leader whose follower progress is drawn (the highest term's).
    pub leader: Option<String>,
    /// Nodes not shown (large clusters).
    pub not_shown: usize,
}

/// Slots of a window ending at index `last`: the newest entries plus one free slot.
pub fn window(last: u64) -> (u64, u64) {
    let hi = (last + 1).max(MIN_WINDOW - 1);
    ((hi + 1).saturating_sub(WINDOW), hi)
}

/// The strips' axis: the window ending at `relevant` (the current leader's last index or the
/// highest commitIndex, whichever is higher: what every node agrees on or is being told) and,
/// when the longest log (`max_last`) runs more than `TAIL + 1` entries past it, a gap and that
/// log's newest `TAIL` entries; a shorter overhang widens the window instead. Never more than
/// [`WINDOW`] columns. (A stranded leader's long uncommitted log used to set the window alone:
/// the new leader's committed entries fell left of it and its strips looked empty.)
pub fn axis(relevant: u64, max_last: u64) -> Axis {
    let (lo, hi) = window(relevant);
    if max_last <= hi {
        return Axis { lo, hi, tail: None };
    }
    if max_last <= hi + TAIL + 1 {
        return Axis {
            lo: lo.max((max_last + 1).saturating_sub(WINDOW)),
            hi: max_last,
            tail: None,
        };
    }
    Axis {
        lo: lo.max((hi + 1 + 1 + TAIL).saturating_sub(WINDOW)),
        hi,
        tail: Some((max_last + 1 - TAIL, max_last)),
    }
}

/// The log of a node's JSON as (index, term, kind, what); an entry without an index takes its
/// position (1-based).
pub fn log_of(node: &Value) -> Vec<(u64, u64, String, String)> {
    let Some(log) = node.get("log").and_then(Value::as_array) else {
        return Vec::new();
    };
    log.iter()
        .enumerate()
        .map(|(k, e)| {
            (
                num(e, "index").unwrap_or(k as u64 + 1),
                num(e, "term").unwrap_or(0),
                e.get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                e.get("what")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

fn last_index(node: &Value) -> u64 {
    log_of(node).last().map(|e| e.0).unwrap_or(0)
}

/// The leader whose view is drawn: among nodes whose role is "leader", the highest term's.
pub fn leader<'a>(nodes: &[(String, &'a Value)]) -> Option<(String, &'a Value)> {
    nodes
        .iter()
        .filter(|(_, v)| v.get("role").and_then(Value::as_str) == Some("leader"))
        .max_by_key(|(_, v)| num(v, "term").unwrap_or(0))
        .map(|(n, v)| (n.clone(), *v))
}

/// The leader's progress entry for `peer` (`followers[]` with `peer` = the node).
pub fn progress_of<'a>(leader: &'a Value, peer: &str) -> Option<&'a Value> {
    leader
        .get("followers")
        .and_then(Value::as_array)?
        .iter()
        .find(|f| f.get("peer").and_then(Value::as_str) == Some(peer))
}

/// One node's strip on the axis `axis` (a window `(lo, hi)` or an [`Axis`]). `prev` is the same
/// node's JSON before the last cursor move (nothing is highlighted without it); `progress` the
/// leader's `followers[]` entry for this node.
pub fn strip(
    name: &str,
    node: &Value,
    prev: Option<&Value>,
    progress: Option<&Value>,
    axis: impl Into<Axis>,
) -> Strip {
    let axis: Axis = axis.into();
    let (lo, end) = (axis.lo, axis.end());
    let elided = |i: u64| axis.tail.is_some_and(|(a, _)| i > axis.hi && i < a);
    let log = log_of(node);
    let prev_log = prev.map(log_of);
    let changed = |index: u64, term: u64, what: &str| -> bool {
        prev_log
            .as_ref()
            .is_some_and(|p| !p.iter().any(|e| e.0 == index && e.1 == term && e.3 == what))
    };
    let entries: Vec<Entry> = log
        .iter()
        .filter(|e| e.0 >= lo && e.0 <= end && !elided(e.0))
        .map(|(index, term, kind, what)| Entry {
            index: *index,
            term: *term,
            kind: kind.clone(),
            what: what.clone(),
            colour: term_colour(*term),
            changed: changed(*index, *term, what),
        })
        .collect();
    let hidden_before = log.iter().filter(|e| e.0 < lo).count() as u64;
    let hidden_gap = log.iter().filter(|e| elided(e.0)).count() as u64;
    let hidden_after = log.iter().filter(|e| e.0 > end).count() as u64;
    let (commit, applied, flush) = (
        num(node, "commit_index"),
        num(node, "last_applied"),
        num(node, "flush_index"),
    );
    let next_index = progress.and_then(|p| num(p, "next_index"));
    let match_index = progress.and_then(|p| num(p, "match_index"));
    let mut markers = Vec::new();
    let mut mark = |kind: MarkKind, index: Option<u64>, key: &str| {
        let Some(index) = index else { return };
        if index > end {
            return;
        }
        let moved = prev.is_some_and(|p| num(p, key) != Some(index));
        markers.push(Marker {
            kind,
            index,
            slot: axis.slot(index),
            changed: moved && !kind.above(),
        });
    };
    mark(MarkKind::Commit, commit, "commit_index");
    mark(MarkKind::Applied, applied, "last_applied");
    mark(MarkKind::Flush, flush, "flush_index");
    mark(MarkKind::Next, next_index, "");
    mark(MarkKind::Match, match_index, "");
    Strip {
        name: name.to_string(),
        role: node
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("—")
            .to_string(),
        term: num(node, "term"),
        selected: false,
        is_leader: node.get("role").and_then(Value::as_str) == Some("leader"),
        entries,
        hidden_before,
        hidden_gap,
        hidden_after,
        last_term: log.last().map(|e| e.1).unwrap_or(0),
        last_index: log.last().map(|e| e.0).unwrap_or(0),
        commit,
        applied,
        flush,
        next_index,
        match_index,
        markers,
    }
}

/// The strips of the cluster: the selected node first, then the others in topology order; with
/// more than [`MAX_STRIPS`] nodes, the selected node and the leader only. `names` is the
/// topology's order; `views` / `prev` the model's views now and before the last move.
pub fn cluster(views: &Value, prev: Option<&Value>, names: &[String], selected: &str) -> Cluster {
    let entry = |v: &Value, n: &str| super::generic::node_entry(v, n).cloned();
    let nodes: Vec<(String, Value)> = names
        .iter()
        .filter_map(|n| entry(views, n).map(|v| (n.clone(), v)))
        .collect();
    let refs: Vec<(String, &Value)> = nodes.iter().map(|(n, v)| (n.clone(), v)).collect();
    let lead = leader(&refs);
    let mut order: Vec<&(String, Value)> = Vec::new();
    if let Some(s) = nodes.iter().find(|(n, _)| n == selected) {
        order.push(s);
    }
    if nodes.len() > MAX_STRIPS {
        if let Some((l, _)) = &lead {
            if let Some(x) = nodes.iter().find(|(n, _)| n == l && n != selected) {
                order.push(x);
            }
        }
    } else {
        order.extend(nodes.iter().filter(|(n, _)| n != selected));
    }
    let max_last = order.iter().map(|(_, v)| last_index(v)).max().unwrap_or(0);
    let max_commit = order
        .iter()
        .filter_map(|(_, v)| num(v, "commit_index"))
        .max()
        .unwrap_or(0);
    // Without a leader no log is the one being replicated: the longest sets the window.
    let relevant = match &lead {
        Some((_, lv)) => last_index(lv).max(max_commit).min(max_last),
        None => max_last,
    };
    let win = axis(relevant, max_last);
    let strips = order
        .iter()
        .map(|(n, v)| {
            let before = prev.and_then(|p| super::generic::node_entry(p, n));
            let progress = lead
                .as_ref()
                .filter(|(l, _)| l != n)
                .and_then(|(_, lv)| progress_of(lv, n));
            let mut s = strip(n, v, before, progress, win);
            s.selected = n == selected;
            s
        })
        .collect::<Vec<_>>();
    Cluster {
        lo: win.lo,
        hi: win.hi,
        axis: win,
        not_shown: nodes.len().saturating_sub(strips.len()),
        strips,
        leader: lead.map(|(n, _)| n),
    }
}

/// The ruler's labels by column: [`ruler`]'s indexes in the window, "…" on the gap and the
/// tail's ends.
pub fn ruler_marks(a: &Axis) -> Vec<(u64, String)> {
    let mut out: Vec<(u64, String)> = ruler(a.lo, a.hi)
        .into_iter()
        .map(|i| (i - a.lo, i.to_string()))
        .collect();
    if let (Some((gap, _)), Some((x, y))) = (a.gap(), a.tail) {
        // The window's last index would crowd the gap's "…" beside it.
        out.retain(|(slot, _)| *slot + 1 < gap || (a.lo + slot).is_multiple_of(5));
        out.push((gap, "…".into()));
        out.push((gap + 1, x.to_string()));
        if y >= x + 2 {
            out.push((gap + 1 + y - x, y.to_string()));
        }
    }
    out
}

/// The ruler's labelled indexes: every fifth index in the window, and its ends.
pub fn ruler(lo: u64, hi: u64) -> Vec<u64> {
    (lo..=hi)
        .filter(|i| i % 5 == 0 || *i == lo || *i == hi)
        .filter(|i| {
            // Ends too close to a fifth would collide with its label.
            !((*i == lo && i % 5 != 0 && i % 5 > 2) || (*i == hi && i % 5 != 0 && i % 5 < 3))
        })
        .collect()
}

/// The election timeout's upper bound of a Ratis preset (`params.preset`; none or an unknown
/// name: `default`'s, `raft.server.rpc.timeout.max`).
pub fn preset_timeout_max(preset: Option<&str>) -> u64 {
    let p = clusterscope_core::raft::params::preset(preset.unwrap_or("default"));
    p.or(clusterscope_core::raft::params::preset("default"))
        .map_or(0, |p| p.timeout_max)
}

/// The election timer: time left until the deadline and the bar's fill (left / `scale_us`,
/// clamped to 0..=1). `None` on the leader (no deadline) or when missing.
pub fn election_timer(deadline: Option<u64>, now: u64, scale_us: u64) -> Option<(u64, f64)> {
    let d = deadline?;
    let left = d.saturating_sub(now);
    let scale = scale_us.max(left).max(1);
    Some((left, left as f64 / scale as f64))
}
