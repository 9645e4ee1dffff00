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
use crate::engine::{Moved, NodeId, NodeSlot, NodeStatus, Sim, Violation};
use std::cell::RefCell;

/// The nodes' states, by index: a view over the engine's slots (a `Vec<&RNode>` built after
/// every event cost an allocation and a free per event).
struct Nodes<'a, S: StateMachine>(&'a [NodeSlot<Raft<S>>]);

impl<S: StateMachine> Clone for Nodes<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: StateMachine> Copy for Nodes<'_, S> {}

impl<'a, S: StateMachine> std::ops::Index<usize> for Nodes<'a, S> {
    type Output = RNode<S>;
    fn index(&self, k: usize) -> &RNode<S> {
        &self.0[k].state
    }
}

impl<'a, S: StateMachine> Nodes<'a, S> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn iter(&self) -> impl Iterator<Item = &'a RNode<S>> + 'a {
        self.0.iter().map(|s| &s.state)
    }
}

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
    nodes: Nodes<S>,
    a: usize,
    b: usize,
) -> Option<Violation> {
    let (ta, top) = lm_pair(&nodes[a], &nodes[b])?;
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
    nodes: Nodes<S>,
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
    nodes: Nodes<S>,
    led: &mut Vec<(Term, usize)>,
) -> Option<Violation> {
    election_safety(names, nodes, led).or_else(|| broken_rule(names, nodes))
}

/// Election Safety: at most one leader per term (`Ghost::led`). `led` is a buffer.
fn election_safety<S: StateMachine>(
    names: &[String],
    nodes: Nodes<S>,
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
    None
}

/// The rules a node noticed broken in itself (`Ghost::broken`), the first node's.
fn broken_rule<S: StateMachine>(names: &[String], nodes: Nodes<S>) -> Option<Violation> {
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
/// `only`: when the answer was nothing before a step that changed only that node, the pairs
/// (leader, node) without it cannot have changed: only those with it are read (the first of
/// them in the scan's order is still the scan's first). `key`: the quiet key of the state now,
/// when the caller has one (which nodes are running leaders is read from it).
fn leader_completeness<S: StateMachine>(
    sim: &Sim<Raft<S>>,
    names: &[String],
    nodes: Nodes<S>,
    only: Option<usize>,
    key: Option<&[u64]>,
) -> Option<Violation> {
    for (l, ln) in nodes.iter().enumerate() {
        // From the quiet key when there is one (its `FLAGS` words, next to each other: not a
        // read of every node's slot per call, issue 44), else from the nodes.
        let leads_now = match key {
            Some(key) => leads(&key[l * W..(l + 1) * W]),
            None => ln.is_leader() && sim.nodes[l].status != NodeStatus::Stopped,
        };
        if !leads_now {
            continue;
        }
        // The pairs read: every (l, k) when `only` is this leader (or none), else (l, only)
        // alone, in the scan's order; not a pass over every node skipping the others.
        let ks = match only {
            Some(o) if o != l => o..o + 1,
            _ => 0..nodes.len(),
        };
        for k in ks {
            let n = &nodes[k];
            let c = &n.ghost.committed;
            // The highest index committed at a term <= the leader's (commit terms only grow).
            // Usually every commit is at a term <= the leader's: the whole of `c`, without the
            // binary search (the same answer: the terms are nondecreasing).
            let top = match c.last() {
                Some(&(_, t)) if t > ln.term => c.partition_point(|&(_, t)| t <= ln.term),
                _ => c.len(),
            };
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
/// fingerprint, and the violating pairs (a < b). Node sets are bitsets of `words` 64-bit words
/// (one word up to 64 nodes): taking a node out of its class, putting it into another, and
/// asking which members lie above or below it are a few word operations, not a search, a
/// `Vec::remove` and a `Vec::insert` (their `memmove`s) on every append and apply.
#[derive(Debug, Default)]
struct Pairs {
    fp: Vec<Fp>,
    /// 64-bit words per node set.
    words: usize,
    /// The classes: a fingerprint and its nodes (a bitset, never empty), in no particular
    /// order (a list, not a map: a changed node is compared with every class anyway).
    classes: Vec<(Fp, Vec<u64>)>,
    /// Emptied classes' bitsets, kept for reuse (all zero).
    spare: Vec<Vec<u64>>,
    /// The violating pairs: row `a` (`words` words from `a * words`) has bit `b` for (a, b).
    bad: Vec<u64>,
    /// How many bits of `bad` are set.
    nbad: usize,
    /// A buffer: the nodes whose fingerprint moved (kept to spare an allocation per event).
    changed: Vec<usize>,
}

fn bit(set: &[u64], k: usize) -> bool {
    set[k / 64] >> (k % 64) & 1 != 0
}

/// Set bit `k`; whether it was clear.
fn set_bit(set: &mut [u64], k: usize) -> bool {
    let was = bit(set, k);
    set[k / 64] |= 1 << (k % 64);
    !was
}

/// Clear bit `k`; whether it was set.
fn clear_bit(set: &mut [u64], k: usize) -> bool {
    let was = bit(set, k);
    set[k / 64] &= !(1 << (k % 64));
    was
}

/// The members of `set` below `k` and above `k`, as (any below, any above).
fn around(set: &[u64], k: usize) -> (bool, bool) {
    let (w, b) = (k / 64, k % 64);
    let below_mask = (1u64 << b) - 1;
    let above_mask = if b == 63 { 0 } else { !0u64 << (b + 1) };
    let below = set[w] & below_mask != 0 || set[..w].iter().any(|&x| x != 0);
    let above = set[w] & above_mask != 0 || set[w + 1..].iter().any(|&x| x != 0);
    (below, above)
}

/// The members of `set`, ascending.
fn members(set: &[u64]) -> Members<'_> {
    Members {
        set,
        w: 0,
        x: set.first().copied().unwrap_or(0),
    }
}

/// [`members`]: a word at a time, its bits lowest first (a plain loop, not nested iterator
/// adapters per class and changed node: issue 44).
struct Members<'a> {
    set: &'a [u64],
    /// The word being read, and its bits not yet returned.
    w: usize,
    x: u64,
}

impl Iterator for Members<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.x == 0 {
            self.w += 1;
            self.x = *self.set.get(self.w)?;
        }
        let b = self.x.trailing_zeros() as usize;
        self.x &= self.x - 1;
        Some(self.w * 64 + b)
    }
}

impl Pairs {
    /// Bring the pairs up to date with the nodes' fingerprints now, node `k`'s being
    /// `(key[k * W + i], key[k * W + j])` (the quiet key's words `i` and `j`); `pred(a, b)` is
    /// the property's pair predicate over the nodes' current state (it depends on their
    /// fingerprinted contents only). Returns the first violating pair (the least (a, b)).
    ///
    /// `only`: the one node whose fingerprint can have moved since the last update (the others'
    /// are as `fp` holds them), or `None`: any.
    fn update(
        &mut self,
        key: &[u64],
        (i, j): (usize, usize),
        only: Option<usize>,
        pred: impl Fn(usize, usize) -> bool,
    ) -> Option<(usize, usize)> {
        let n = key.len() / W;
        let fps = |k: usize| (key[k * W + i], key[k * W + j]);
        if self.fp.len() != n {
            *self = Pairs::default();
            self.words = n.div_ceil(64);
            self.bad = vec![0; n * self.words];
        }
        // The one node that could move: unmoved, nothing to compare; moved, taken out of its
        // class and its pairs and compared with the other classes, as the loops below do for a
        // list of one, without the list (issue 44: every append and apply).
        if let Some(k) = only {
            if !self.fp.is_empty() {
                let now = fps(k);
                if self.fp[k] != now {
                    self.leave(k);
                    if self.nbad > 0 {
                        self.clear_pairs(k, n);
                    }
                    self.join(k, now, &pred);
                }
                return self.first_bad();
            }
        }
        let fresh = self.fp.is_empty();
        let mut changed = std::mem::take(&mut self.changed);
        changed.clear();
        if fresh {
            changed.extend(0..n);
        } else {
            changed.extend(
                self.fp
                    .iter()
                    .zip(key.chunks_exact(W))
                    .enumerate()
                    .filter(|(_, (f, w))| **f != (w[i], w[j]))
                    .map(|(k, _)| k),
            );
        }
        if !changed.is_empty() {
            if fresh {
                self.fp = (0..n).map(fps).collect();
            }
            // First take every changed node out (its class and its pairs), so that a class's
            // representative below is always a node whose content matches the class.
            if !fresh {
                for &k in &changed {
                    self.leave(k);
                }
            }
            if self.nbad > 0 {
                for &k in &changed {
                    self.clear_pairs(k, n);
                }
            }
            for &k in &changed {
                self.join(k, fps(k), &pred);
            }
        }
        self.changed = changed;
        self.first_bad()
    }

    /// Node `k` out of its class (its fingerprint in `fp`), the class dropped when emptied.
    #[inline]
    fn leave(&mut self, k: usize) {
        let old = self.fp[k];
        if let Some(c) = self.classes.iter().position(|(f, _)| *f == old) {
            let set = &mut self.classes[c].1;
            clear_bit(set, k);
            if set.iter().all(|&x| x == 0) {
                let (_, v) = self.classes.swap_remove(c);
                self.spare.push(v);
            }
        }
    }

    /// Every violating pair with node `k` forgotten (`n` nodes).
    #[inline]
    fn clear_pairs(&mut self, k: usize, n: usize) {
        let words = self.words;
        for x in &mut self.bad[k * words..(k + 1) * words] {
            self.nbad -= x.count_ones() as usize;
            *x = 0;
        }
        for a in 0..n {
            if clear_bit(&mut self.bad[a * words..(a + 1) * words], k) {
                self.nbad -= 1;
            }
        }
    }

    /// Node `k`, out of every class, compared with each class's representative and put into
    /// the class of its fingerprint `now` (a new one if none).
    #[inline]
    fn join(&mut self, k: usize, now: Fp, pred: &impl Fn(usize, usize) -> bool) {
        let mut into = None;
        for c in 0..self.classes.len() {
            // The class `k` joins: its members hold what `k` holds (equal fingerprints,
            // the classes' own assumption), and a pair of equal contents violates
            // neither property: nothing to compare (issue 44).
            if self.classes[c].0 == now {
                into = Some(c);
                continue;
            }
            self.compare(k, c, pred);
        }
        self.fp[k] = now;
        match into {
            Some(c) => {
                set_bit(&mut self.classes[c].1, k);
            }
            None => {
                let mut set = self.spare.pop().unwrap_or_default();
                set.clear();
                set.resize(self.words, 0);
                set_bit(&mut set, k);
                self.classes.push((now, set));
            }
        }
    }

    /// [`Self::join`]'s comparison of node `k` with class `c` (not its own): its representative
    /// against `k`, and the pairs with every member noted when they violate. Out of line: most
    /// joins compare with no class or one, and inlined its masks and bounds were worked out
    /// on every join (~100 instructions, issue 44).
    #[inline(never)]
    fn compare(&mut self, k: usize, c: usize, pred: &impl Fn(usize, usize) -> bool) {
        let words = self.words;
        let set = &self.classes[c].1;
        let r = members(set).next().expect("classes are never empty");
        let (below, above) = around(set, k);
        if above && pred(k, r) {
            let row = &mut self.bad[k * words..(k + 1) * words];
            for b in members(set).filter(|&b| b > k) {
                self.nbad += set_bit(row, b) as usize;
            }
        }
        if below && pred(r, k) {
            for a in members(set).take_while(|&a| a < k) {
                let row = &mut self.bad[a * words..(a + 1) * words];
                self.nbad += set_bit(row, k) as usize;
            }
        }
    }

    /// The first violating pair (the least (a, b)), if any.
    fn first_bad(&self) -> Option<(usize, usize)> {
        if self.nbad == 0 {
            return None;
        }
        let words = self.words;
        let w = self.bad.iter().position(|&x| x != 0)?;
        Some((
            w / words,
            (w % words) * 64 + self.bad[w].trailing_zeros() as usize,
        ))
    }
}

/// The incremental state of [`check`], kept in the protocol (`Raft::memo`, shared by a run's
/// checkpoints): it is only a cache, brought up to date from whatever state it is given by the
/// fingerprints, so a restored or forked state is checked as correctly as the next step.
#[derive(Debug, Default)]
pub struct Memo(RefCell<MemoInner>);

#[derive(Debug, Default)]
struct MemoInner {
    lm: Pairs,
    sms: Pairs,
    /// A buffer for Election Safety's (term, node) list.
    led: Vec<(Term, usize)>,
    /// What Leader Completeness's answer depends on ([`lc_key`]) at a state where it found
    /// nothing: while the key equals it the answer is nothing (empty: no answer kept). Used
    /// only without a kept quiet key (whose own words say the same, `lc_same`); updated then.
    lc_key: Vec<u64>,
    /// A buffer: the key now.
    lc_now: Vec<u64>,
    /// Everything [`check`] reads ([`quiet_key`]) when it last found nothing (empty: no answer
    /// kept): while the key stays the same the answer is still nothing, and [`check`] returns at
    /// once.
    quiet: Vec<u64>,
    /// A buffer: the quiet key now.
    quiet_now: Vec<u64>,
    /// The engine's step (world, step: [`check_step`]) whose state `quiet` is the key of, when
    /// it was the last one checked.
    at: Option<(u64, u64)>,
}

/// The quiet key's words per node ([`quiet_key`]), and where each is.
const W: usize = 9;
const FLAGS: usize = 0;
const TERM: usize = 1;
const LAST: usize = 2;
const CHAIN: usize = 3;
const LED: usize = 4;
const COMMITTED: usize = 5;
const COMMITTED_HASH: usize = 6;
const APPLIED: usize = 7;
const APPLIED_HASH: usize = 8;
/// The bits of the `FLAGS` word.
const STOPPED: u64 = 1;
const LEADER: u64 = 2;
const BROKEN: u64 = 4;

/// Everything [`check`] reads, per node, by value or by fingerprint: whether the node is stopped
/// (`NodeSlot::status`), its role and term, its log by [`log_fp`] (the (index, term) sequence
/// that `runs` and every `chain_at` follow from: the assumption Log Matching's classes and
/// [`lc_key`] already make), `ghost.led` by its length and a hash of its contents, whether
/// `ghost.broken` is set, `ghost.committed` by length and `Ghost::committed_hash` (as
/// [`lc_key`]), and `ghost.applied` by [`app_fp`] (as State Machine Safety's classes); with the
/// number of nodes (the key's length) and the names (fixed for a run). `W` words per node.
///
/// Why skipping on an equal key is exact: [`check`] is a function of these inputs (and of its
/// `Memo`, a cache that agrees with them: every other part of its state is kept from the same
/// fingerprints), so with the same key it gives the same answer; the key is kept only after an
/// answer of nothing, so an equal key means nothing again. `broken` enters as set / not set:
/// after an answer of nothing it was unset on every node (a set one is always reported), so any
/// value it takes moves the key. The key is computed from the state itself, not from flags the
/// model sets where it changes things, so a change made anywhere (a handler, a restart, a test
/// planting a violation by hand, a checkpoint restored) moves it. In a steady run most events
/// (heartbeats, their replies, timers, client traffic, flushes of nothing new) move none of it.
///
/// When it moved, the parts of [`check`] read their inputs from it (the fingerprints of the
/// pairwise classes, [`lc_key`]) instead of reading every node again, and Election Safety runs
/// only when some node's `ghost.led` word moved (its answer is a function of the `ghost.led`s
/// alone, and was nothing when the key was kept).
fn quiet_key<S: StateMachine>(sim: &Sim<Raft<S>>, key: &mut Vec<u64>) {
    // Written in place, a fixed-size chunk per node (after every event: no per-word capacity
    // checks).
    key.resize(sim.nodes.len() * W, 0);
    for (slot, w) in sim.nodes.iter().zip(key.chunks_exact_mut(W)) {
        node_words(slot, w.try_into().expect("W words"));
    }
}

/// One node's words of [`quiet_key`]. Inlined natively into [`check_step`], after every
/// event.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn node_words<S: StateMachine>(slot: &NodeSlot<Raft<S>>, w: &mut [u64; W]) {
    let n = &slot.state;
    let (last, chain) = log_fp(n);
    let (applied, applied_hash) = app_fp(n);
    w[FLAGS] = if slot.status == NodeStatus::Stopped {
        STOPPED
    } else {
        0
    } | if n.is_leader() { LEADER } else { 0 }
        | if n.ghost.broken.is_some() { BROKEN } else { 0 };
    w[TERM] = n.term;
    w[LAST] = last;
    w[CHAIN] = chain;
    w[LED] = n.ghost.led.iter().fold(n.ghost.led.len() as u64, |h, &t| {
        super::node::chain(h, 1, t)
    });
    w[COMMITTED] = n.ghost.committed.len() as u64;
    w[COMMITTED_HASH] = n.ghost.committed_hash;
    w[APPLIED] = applied;
    w[APPLIED_HASH] = applied_hash;
}

/// Everything [`leader_completeness`] reads, per node, taken from the quiet key: whether it is a
/// running leader and, if so, its term and its log by fingerprint ([`log_fp`]: `chain_at(i)` for
/// every `i` follows from the (index, term) sequence the fingerprint hashes, the assumption Log
/// Matching's classes make too), and its `ghost.committed` by length and
/// `Ghost::committed_hash` (appended to only, by `Ghost::commit`). The check's answer is a
/// function of exactly these, so with an equal key it cannot have changed: it can change only
/// when a leader appears or stops (role, term, node status), a leader's log changes, or some
/// node commits more. In a steady run most events (heartbeats, their replies, timers, client
/// traffic at followers) change none of them, and the O(leaders x nodes) binary searches run
/// only when one moved (about one event in ten here).
fn lc_key(quiet: &[u64], key: &mut Vec<u64>) {
    key.clear();
    for w in quiet.chunks_exact(W) {
        key.extend(lc_words(w));
    }
}

/// One node's words of [`lc_key`], from its words of the quiet key.
#[inline]
fn lc_words(w: &[u64]) -> [u64; 6] {
    let leads = leads(w);
    let if_leads = |v: u64| if leads { v } else { 0 };
    [
        leads as u64,
        if_leads(w[TERM]),
        if_leads(w[LAST]),
        if_leads(w[CHAIN]),
        w[COMMITTED],
        w[COMMITTED_HASH],
    ]
}

/// Whether a node is a running leader, from its words of the quiet key.
#[inline]
fn leads(w: &[u64]) -> bool {
    w[FLAGS] & (STOPPED | LEADER) == LEADER
}

/// `lc_words(a) == lc_words(b)`, without building them.
#[inline]
fn lc_same(a: &[u64], b: &[u64]) -> bool {
    let l = leads(a);
    l == leads(b)
        && a[COMMITTED] == b[COMMITTED]
        && a[COMMITTED_HASH] == b[COMMITTED_HASH]
        && (!l || (a[TERM] == b[TERM] && a[LAST] == b[LAST] && a[CHAIN] == b[CHAIN]))
}

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

/// The invariants after an event, incrementally (see the module's notes): the same answer as
/// [`check_full`]. Reads every node's quiet key; what it keeps is not tied to a step, so the
/// engine's [`check_step`] starts afresh after it.
pub fn check<S: StateMachine>(sim: &Sim<Raft<S>>, memo: &Memo) -> Option<Violation> {
    let mut m = memo.0.borrow_mut();
    let inner = &mut *m;
    inner.at = None;
    check_all(sim, inner)
}

/// [`check`] over every node's quiet key. Out of line: the first step of a world, an action,
/// a step after a violation.
#[inline(never)]
fn check_all<S: StateMachine>(sim: &Sim<Raft<S>>, inner: &mut MemoInner) -> Option<Violation> {
    quiet_key(sim, &mut inner.quiet_now);
    let kept = !inner.quiet.is_empty() && inner.quiet.len() == inner.quiet_now.len();
    if kept && inner.quiet == inner.quiet_now {
        return None;
    }
    let found = check_moved(sim, inner, if kept { Before::Key } else { Before::Nothing });
    if found.is_none() {
        std::mem::swap(&mut inner.quiet, &mut inner.quiet_now);
    } else {
        inner.quiet.clear();
    }
    found
}

/// [`check`] after step `moved.step` of the engine's world `moved.world`, the same answer.
/// When the check of the step before in the same world answered nothing (`MemoInner::at`: the
/// kept quiet key is that state's) and the step could change one node only, every other
/// node's words of the quiet key are still the kept ones: only that node's are read and
/// compared (9 words, not the whole key and a `memcmp` of it), and when they moved the key
/// is the kept one with that node's words replaced. Otherwise (an action, a restore, a copy,
/// a violation before) every node's are read, as [`check`] does.
///
/// Inlined natively into the engine's step (issue 44): the usual case, the stepped node's words
/// unmoved, is that node's words read and compared; a moved node ([`node_moved`]) and a step
/// that does not follow ([`check_all`]) are calls.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
pub fn check_step<S: StateMachine>(
    sim: &Sim<Raft<S>>,
    memo: &Memo,
    moved: Moved,
) -> Option<Violation> {
    let mut m = memo.0.borrow_mut();
    let inner = &mut *m;
    let follows = inner
        .at
        .take()
        .is_some_and(|(world, step)| world == moved.world && step + 1 == moved.step);
    let n = sim.nodes.len();
    let found = match moved.node {
        Some(k) if follows && inner.quiet.len() == n * W => {
            let k = k as usize;
            let mut w = [0; W];
            node_words(&sim.nodes[k], &mut w);
            let kept = &inner.quiet[k * W..(k + 1) * W];
            // An or of the words' differences: no `memcmp` call for nine words.
            if kept.iter().zip(&w).fold(0, |d, (a, b)| d | (a ^ b)) == 0 {
                None
            } else {
                node_moved(sim, inner, k, &w)
            }
        }
        _ => check_all(sim, inner),
    };
    if found.is_none() {
        inner.at = Some((moved.world, moved.step));
    }
    found
}

/// [`check_step`] when node `k`'s words moved to `w`: the key now is the kept one with this
/// node's words replaced, replaced in place, the old words kept aside (not a copy of the whole
/// key per moved step, issue 44).
#[inline(never)]
fn node_moved<S: StateMachine>(
    sim: &Sim<Raft<S>>,
    inner: &mut MemoInner,
    k: usize,
    w: &[u64; W],
) -> Option<Violation> {
    let kept = &mut inner.quiet[k * W..(k + 1) * W];
    let old: [u64; W] = (&*kept).try_into().expect("W words");
    kept.copy_from_slice(w);
    let found = check_moved(sim, inner, Before::Node(k, &old));
    if found.is_some() {
        inner.quiet.clear();
    }
    found
}

/// What [`check_moved`] compares the key now with: the quiet key of the last answer of nothing.
enum Before<'a> {
    /// `MemoInner::quiet` is that key with node `k`'s words replaced by its words now (the
    /// key now); these were its words then. Every other node's words are the same.
    Node(usize, &'a [u64; W]),
    /// `MemoInner::quiet` is that key, for as many nodes, and `quiet_now` the key now.
    Key,
    /// None kept (`quiet_now` is the key now): every part runs.
    Nothing,
}

/// [`check`] when something it reads moved since it last found nothing (`before`). With
/// `Before::Node(k, ..)` the scans read node `k`'s words alone, the pairwise classes compare it
/// alone, and Leader Completeness reads only the pairs with it: every other node's inputs are
/// those of the answer of nothing.
#[inline(never)]
fn check_moved<S: StateMachine>(
    sim: &Sim<Raft<S>>,
    m: &mut MemoInner,
    before: Before<'_>,
) -> Option<Violation> {
    let names = &sim.topo.names;
    let nodes = Nodes(&sim.nodes);
    let MemoInner {
        lm,
        sms,
        led,
        lc_key: lc_kept,
        lc_now,
        quiet,
        quiet_now,
        at: _,
    } = m;
    let (key, kept, only): (&[u64], bool, Option<usize>) = match before {
        Before::Node(k, _) => (quiet, true, Some(k)),
        Before::Key => (quiet_now, true, None),
        Before::Nothing => (quiet_now, false, None),
    };
    // One pass over both keys: whether some `ghost.led` moved, whether some node has a broken
    // rule noted, and whether what Leader Completeness reads moved since it last answered
    // nothing. Its answer is a function of `lc_key` alone, so any key it answered nothing for
    // will do: with a kept quiet key, that key's (the whole check answered nothing there),
    // compared word by word in place (`lc_same`, no key built); without one (after a
    // violation), `lc_kept`, the key of the last nothing it answered without a quiet key.
    let (mut led_moved, mut broken, mut lc_moved) = (!kept, false, false);
    // With `Before::Node`, whether the node's log and its applied entries moved: the pairwise
    // classes hold the kept key's fingerprints (its check passed both updates, and so did
    // every step's since), so an unmoved one leaves each class and the violating pairs as
    // they are: none (the kept key answered nothing).
    let (mut lm_moved, mut sms_moved) = (true, true);
    if let Before::Node(k, a) = before {
        let b = &key[k * W..(k + 1) * W];
        led_moved = a[LED] != b[LED];
        broken = b[FLAGS] & BROKEN != 0;
        lc_moved = !lc_same(a, b);
        lm_moved = a[LAST] != b[LAST] || a[CHAIN] != b[CHAIN];
        sms_moved = a[APPLIED] != b[APPLIED] || a[APPLIED_HASH] != b[APPLIED_HASH];
    } else if kept {
        for (a, b) in quiet.chunks_exact(W).zip(key.chunks_exact(W)) {
            led_moved |= a[LED] != b[LED];
            broken |= b[FLAGS] & BROKEN != 0;
            lc_moved |= !lc_same(a, b);
        }
    } else {
        broken = key.chunks_exact(W).any(|w| w[FLAGS] & BROKEN != 0);
        lc_key(key, lc_now);
        lc_moved = lc_now != lc_kept;
    }
    if led_moved {
        if let Some(v) = election_safety(names, nodes, led) {
            return Some(v);
        }
    }
    if broken {
        if let Some(v) = broken_rule(names, nodes) {
            return Some(v);
        }
    }
    if lm_moved {
        if let Some((a, b)) = lm.update(key, (LAST, CHAIN), only, |a, b| {
            lm_pair(&nodes[a], &nodes[b]).is_some()
        }) {
            return lm_violation(names, nodes, a, b);
        }
    }
    if lc_moved {
        if let Some(v) = leader_completeness(sim, names, nodes, only, Some(key)) {
            lc_kept.clear();
            return Some(v);
        }
        if !kept {
            std::mem::swap(lc_kept, lc_now);
        }
    }
    if !sms_moved {
        return None;
    }
    let first = sms.update(key, (APPLIED, APPLIED_HASH), only, |a, b| {
        sms_pair(&nodes[a].ghost.applied, &nodes[b].ghost.applied)
    });
    first.and_then(|(a, b)| sms_violation(names, nodes, a, b))
}

/// The invariants after an event, by a full pass over every pair of nodes: O(n^2). The
/// reference [`check`] must agree with.
pub fn check_full<S: StateMachine>(sim: &Sim<Raft<S>>) -> Option<Violation> {
    let names = &sim.topo.names;
    let nodes = Nodes(&sim.nodes);
    if let Some(v) = election_and_broken(names, nodes, &mut Vec::new()) {
        return Some(v);
    }
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            if let Some(v) = lm_violation(names, nodes, a, b) {
                return Some(v);
            }
        }
    }
    if let Some(v) = leader_completeness(sim, names, nodes, None, None) {
        return Some(v);
    }
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            if let Some(v) = sms_violation(names, nodes, a, b) {
                return Some(v);
            }
        }
    }
    None
}
