//! The Raft safety properties (paper, Figure 3), checked over the whole world after every
//! event (`Protocol::check`). Ghost data lives in each node (`node::Ghost`, kept across
//! restarts) and in each log entry (`Entry::chain`, a hash of the (index, term) prefix, so that
//! equal chains at an index mean equal logs up to it).
//!
//! - Election Safety: at most one leader per term (`Ghost::led`).
//! - Leader Append-Only: a leader never truncates its log (`RNode::truncate` notes it).
//! - Log Matching: two logs with an entry of the same index and term agree up to it; checked
//!   at the top of every overlap of equal-term runs (enough: the chain covers the prefix).
//! - Leader Completeness: a leader of term T holds every entry committed (anywhere) while the
//!   committing node was at a term <= T.
//! - State Machine Safety: no two nodes apply different entries at one index (`Ghost::applied`),
//!   and no node applies two different entries at one index over its restarts.
//!
//! Log Matching and State Machine Safety are properties of pairs of nodes: checked naively they
//! cost O(n^2) per event (issue 39: 512 nodes, ~1 ms an event). [`check`] keeps them
//! incrementally in a [`Memo`]: each node's log and applied entries are known by a fingerprint
//! (length and the chain hash of the whole sequence), nodes with equal fingerprints form a class,
//! and the set of violating pairs is kept. After an event only the nodes whose fingerprint moved
//! are compared again, once per class (against a representative), so an event costs a pass over
//! the fingerprints plus O(classes) pair comparisons per changed node instead of O(n^2). The
//! pair predicates are the full check's own (`lm_pair`, `sms_pair`), and the first violating
//! pair is the one the full scan would meet first, so [`check`] returns exactly what
//! [`check_full`] returns (`tests.rs` compares them at every step over many seeds).

use super::node::RNode;
use super::sm::StateMachine;
use super::{Index, Raft, Term};
use crate::engine::{NodeId, NodeStatus, Sim, Violation};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

/// Log Matching for one pair: the first common term whose runs overlap with different logs
/// below the top of the overlap, as (term, top).
fn lm_pair<S: StateMachine>(a: &RNode<S>, b: &RNode<S>) -> Option<(Term, Index)> {
    let (ra, rb) = (&a.runs, &b.runs);
    let (mut x, mut y) = (0, 0);
    while x < ra.len() && y < rb.len() {
        let (ta, sa, ea) = ra[x];
        let (tb, sb, eb) = rb[y];
        if ta == tb {
            let top = ea.min(eb);
            if sa.max(sb) <= top && a.chain_at(top) != b.chain_at(top) {
                return Some((ta, top));
            }
        }
        if (ta, ea) <= (tb, eb) {
            x += 1;
        } else {
            y += 1;
        }
    }
    None
}

/// State Machine Safety for one pair: whether the entries applied at the last index both
/// applied differ.
fn sms_pair(pa: &[u64], pb: &[u64]) -> bool {
    let m = pa.len().min(pb.len());
    m > 0 && pa[m - 1] != pb[m - 1]
}

fn violation(invariant: &'static str, nodes: &[usize], detail: String) -> Violation {
    let mut nodes: Vec<NodeId> = nodes.iter().map(|&k| k as NodeId).collect();
    nodes.dedup();
    Violation {
        invariant,
        nodes,
        detail,
    }
}

fn lm_violation<S: StateMachine>(
    names: &[String],
    nodes: &[&RNode<S>],
    a: usize,
    b: usize,
) -> Option<Violation> {
    let (ta, top) = lm_pair(nodes[a], nodes[b])?;
    Some(violation(
        "Log Matching",
        &[a, b],
        format!(
            "{} and {} both have (t{ta}, i{top}) but different logs before it",
            names[a], names[b]
        ),
    ))
}

fn sms_violation<S: StateMachine>(
    names: &[String],
    nodes: &[&RNode<S>],
    a: usize,
    b: usize,
) -> Option<Violation> {
    let (pa, pb) = (&nodes[a].ghost.applied, &nodes[b].ghost.applied);
    if !sms_pair(pa, pb) {
        return None;
    }
    let m = pa.len().min(pb.len());
    let i = (0..m).find(|&i| pa[i] != pb[i]).unwrap_or(m - 1) + 1;
    Some(violation(
        "State Machine Safety",
        &[a, b],
        format!(
            "{} and {} applied different entries at index {i}",
            names[a], names[b]
        ),
    ))
}

/// The properties that are not pairwise, in the full check's order: Election Safety, the
/// rules a node noticed broken in itself (`Err`: return it), and Leader Completeness (run
/// after Log Matching: `lc`).
/// `led` is a buffer (its contents are replaced).
fn election_and_broken<S: StateMachine>(
    names: &[String],
    nodes: &[&RNode<S>],
    led: &mut Vec<(Term, usize)>,
) -> Option<Violation> {
    led.clear();
    led.extend(
        nodes
            .iter()
            .enumerate()
            .flat_map(|(k, n)| n.ghost.led.iter().map(move |&t| (t, k))),
    );
    crate::small_sort::sort_by(led, |a, b| a.cmp(b));
    for w in led.windows(2) {
        if w[0].0 == w[1].0 && w[0].1 != w[1].1 {
            return Some(violation(
                "Election Safety",
                &[w[0].1, w[1].1],
                format!(
                    "{} and {} both led term {}",
                    names[w[0].1], names[w[1].1], w[0].0
                ),
            ));
        }
    }
    for (k, n) in nodes.iter().enumerate() {
        if let Some(b) = &n.ghost.broken {
            let what = if b.starts_with("leader") {
                "Leader Append-Only"
            } else {
                "State Machine Safety"
            };
            return Some(violation(what, &[k], format!("{} {b}", names[k])));
        }
    }
    None
}

/// Leader Completeness (running leaders only: a stopped one leads nothing): O(leaders x n).
fn leader_completeness<S: StateMachine>(
    sim: &Sim<Raft<S>>,
    names: &[String],
    nodes: &[&RNode<S>],
) -> Option<Violation> {
    for (l, ln) in nodes.iter().enumerate() {
        if !ln.is_leader() || sim.nodes[l].status == NodeStatus::Stopped {
            continue;
        }
        for (k, n) in nodes.iter().enumerate() {
            let c = &n.ghost.committed;
            // The highest index committed at a term <= the leader's (commit terms only grow).
            let top = c.partition_point(|&(_, t)| t <= ln.term);
            if top == 0 {
                continue;
            }
            let i = top as Index;
            if ln.chain_at(i) != c[top - 1].0 {
                return Some(violation(
                    "Leader Completeness",
                    &[l, k],
                    format!(
                        "leader {} of term {} lacks entry {i} that {} committed",
                        names[l], ln.term, names[k]
                    ),
                ));
            }
        }
    }
    None
}

/// A node's log (its (index, term) sequence: `runs` and every `chain_at` follow from it) and
/// its applied entries, by fingerprint: the length and a hash of the whole sequence (the log's
/// last chain; `Ghost::applied_hash`).
type Fp = (u64, u64);

fn log_fp<S: StateMachine>(n: &RNode<S>) -> Fp {
    (n.last(), n.chain_at(n.last()))
}

fn app_fp<S: StateMachine>(n: &RNode<S>) -> Fp {
    (n.ghost.applied.len() as u64, n.ghost.applied_hash)
}

/// One pairwise property kept incrementally: each node's fingerprint, the nodes by
/// fingerprint, and the violating pairs (a < b).
#[derive(Debug, Default)]
struct Pairs {
    fp: Vec<Fp>,
    classes: BTreeMap<Fp, BTreeSet<usize>>,
    bad: BTreeSet<(usize, usize)>,
    /// A buffer: the nodes whose fingerprint moved (kept to spare an allocation per event).
    changed: Vec<usize>,
}

impl Pairs {
    /// Bring the pairs up to date with `fps` (the nodes' fingerprints now); `pred(a, b)` is the
    /// property's pair predicate over the nodes' current state (it depends on their
    /// fingerprinted contents only). Returns the first violating pair.
    fn update(
        &mut self,
        fps: &[Fp],
        pred: impl Fn(usize, usize) -> bool,
    ) -> Option<(usize, usize)> {
        if self.fp.len() != fps.len() {
            *self = Pairs::default();
        }
        let fresh = self.fp.is_empty();
        let mut changed = std::mem::take(&mut self.changed);
        changed.clear();
        changed.extend((0..fps.len()).filter(|&k| fresh || self.fp[k] != fps[k]));
        if !changed.is_empty() {
            if fresh {
                self.fp = fps.to_vec();
            }
            // First take every changed node out (its class and its pairs), so that a class's
            // representative below is always a node whose content matches the class.
            for &k in &changed {
                if !fresh {
                    let old = self.fp[k];
                    if let Some(c) = self.classes.get_mut(&old) {
                        c.remove(&k);
                        if c.is_empty() {
                            self.classes.remove(&old);
                        }
                    }
                }
            }
            if !self.bad.is_empty() {
                let set: BTreeSet<usize> = changed.iter().copied().collect();
                self.bad
                    .retain(|(a, b)| !set.contains(a) && !set.contains(b));
            }
            for &k in &changed {
                for members in self.classes.values() {
                    let r = *members.first().expect("classes are never empty");
                    if members.range(k + 1..).next().is_some() && pred(k, r) {
                        self.bad.extend(members.range(k + 1..).map(|&b| (k, b)));
                    }
                    if members.range(..k).next().is_some() && pred(r, k) {
                        self.bad.extend(members.range(..k).map(|&a| (a, k)));
                    }
                }
                self.fp[k] = fps[k];
                self.classes.entry(fps[k]).or_default().insert(k);
            }
        }
        self.changed = changed;
        self.bad.first().copied()
    }
}

/// The incremental state of [`check`], kept in the protocol (`Raft::memo`, shared by a run's
/// checkpoints): it is only a cache, brought up to date from whatever state it is given by the
/// fingerprints, so a restored or forked state is checked as correctly as the next step.
#[derive(Debug, Default)]
pub struct Memo(Mutex<MemoInner>);

#[derive(Debug, Default)]
struct MemoInner {
    lm: Pairs,
    sms: Pairs,
    fps: Vec<Fp>,
    /// A buffer for Election Safety's (term, node) list.
    led: Vec<(Term, usize)>,
    /// What Leader Completeness's answer depends on ([`lc_key`]) when it last found nothing:
    /// while the key stays the same the answer does (empty: no answer kept).
    lc_key: Vec<u64>,
    /// A buffer: the key now.
    lc_now: Vec<u64>,
}

/// Everything [`leader_completeness`] reads, per node: whether it is a running leader and, if
/// so, its term and its log by fingerprint ([`log_fp`]: `chain_at(i)` for every `i` follows from
/// the (index, term) sequence the fingerprint hashes, the assumption Log Matching's classes make
/// too), and its `ghost.committed` by length and `Ghost::committed_hash` (appended to only, by
/// `Ghost::commit`). The check's answer is a function of exactly these, so with an equal key it
/// cannot have changed: it can change only when a leader appears or stops (role, term, node
/// status), a leader's log changes, or some node commits more. In a steady run most events
/// (heartbeats, their replies, timers, client traffic at followers) change none of them, and the
/// O(leaders x nodes) binary searches run only when one moved (about one event in ten here).
fn lc_key<S: StateMachine>(sim: &Sim<Raft<S>>, nodes: &[&RNode<S>], key: &mut Vec<u64>) {
    key.clear();
    for (k, n) in nodes.iter().enumerate() {
        let leads = n.is_leader() && sim.nodes[k].status != NodeStatus::Stopped;
        let (last, chain) = if leads { log_fp(n) } else { (0, 0) };
        key.extend([
            leads as u64,
            if leads { n.term } else { 0 },
            last,
            chain,
            n.ghost.committed.len() as u64,
            n.ghost.committed_hash,
        ]);
    }
}

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

/// The invariants after an event, incrementally (see the module's notes): the same answer as
/// [`check_full`].
pub fn check<S: StateMachine>(sim: &Sim<Raft<S>>, memo: &Memo) -> Option<Violation> {
    let names = &sim.topo.names;
    let nodes: Vec<&RNode<S>> = sim.nodes.iter().map(|s| &s.state).collect();
    let mut m = memo.0.lock().unwrap_or_else(|e| e.into_inner());
    let MemoInner {
        lm,
        sms,
        fps,
        led,
        lc_key: kept,
        lc_now,
    } = &mut *m;
    if let Some(v) = election_and_broken(names, &nodes, led) {
        return Some(v);
    }
    fps.clear();
    fps.extend(nodes.iter().map(|n| log_fp(n)));
    if let Some((a, b)) = lm.update(fps, |a, b| lm_pair(nodes[a], nodes[b]).is_some()) {
        return lm_violation(names, &nodes, a, b);
    }
    lc_key(sim, &nodes, lc_now);
    if lc_now != kept {
        if let Some(v) = leader_completeness(sim, names, &nodes) {
            kept.clear();
            return Some(v);
        }
        std::mem::swap(kept, lc_now);
    }
    fps.clear();
    fps.extend(nodes.iter().map(|n| app_fp(n)));
    let first = sms.update(fps, |a, b| {
        sms_pair(&nodes[a].ghost.applied, &nodes[b].ghost.applied)
    });
    first.and_then(|(a, b)| sms_violation(names, &nodes, a, b))
}

/// The invariants after an event, by a full pass over every pair of nodes: O(n^2). The
/// reference [`check`] must agree with.
pub fn check_full<S: StateMachine>(sim: &Sim<Raft<S>>) -> Option<Violation> {
    let names = &sim.topo.names;
    let nodes: Vec<&RNode<S>> = sim.nodes.iter().map(|s| &s.state).collect();
    if let Some(v) = election_and_broken(names, &nodes, &mut Vec::new()) {
        return Some(v);
    }
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            if let Some(v) = lm_violation(names, &nodes, a, b) {
                return Some(v);
            }
        }
    }
    if let Some(v) = leader_completeness(sim, names, &nodes) {
        return Some(v);
    }
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            if let Some(v) = sms_violation(names, &nodes, a, b) {
                return Some(v);
            }
        }
    }
    None
}
