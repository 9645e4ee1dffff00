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

use super::node::RNode;
use super::sm::StateMachine;
use super::{Index, Raft, Term};
use crate::engine::{NodeStatus, Sim};

pub fn check<S: StateMachine>(sim: &Sim<Raft<S>>) -> Option<String> {
    let names = &sim.topo.names;
    let nodes: Vec<&RNode<S>> = sim.nodes.iter().map(|s| &s.state).collect();
    // Election Safety.
    let mut led: Vec<(Term, usize)> = nodes
        .iter()
        .enumerate()
        .flat_map(|(k, n)| n.ghost.led.iter().map(move |&t| (t, k)))
        .collect();
    crate::small_sort::sort_by(&mut led, |a, b| a.cmp(b));
    for w in led.windows(2) {
        if w[0].0 == w[1].0 && w[0].1 != w[1].1 {
            return Some(format!(
                "Election Safety: {} and {} both led term {}",
                names[w[0].1], names[w[1].1], w[0].0
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
            return Some(format!("{what}: {} {b}", names[k]));
        }
    }
    // Log Matching.
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            let (ra, rb) = (&nodes[a].runs, &nodes[b].runs);
            let (mut x, mut y) = (0, 0);
            while x < ra.len() && y < rb.len() {
                let (ta, sa, ea) = ra[x];
                let (tb, sb, eb) = rb[y];
                if ta == tb {
                    let top = ea.min(eb);
                    if sa.max(sb) <= top && nodes[a].chain_at(top) != nodes[b].chain_at(top) {
                        return Some(format!(
                            "Log Matching: {} and {} both have (t{ta}, i{top}) but different logs before it",
                            names[a], names[b]
                        ));
                    }
                }
                if (ta, ea) <= (tb, eb) {
                    x += 1;
                } else {
                    y += 1;
                }
            }
        }
    }
    // Leader Completeness (running leaders only: a stopped one leads nothing).
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
                return Some(format!(
                    "Leader Completeness: leader {} of term {} lacks entry {i} that {} committed",
                    names[l], ln.term, names[k]
                ));
            }
        }
    }
    // State Machine Safety.
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            let (pa, pb) = (&nodes[a].ghost.applied, &nodes[b].ghost.applied);
            let m = pa.len().min(pb.len());
            if m > 0 && pa[m - 1] != pb[m - 1] {
                let i = (0..m).find(|&i| pa[i] != pb[i]).unwrap_or(m - 1) + 1;
                return Some(format!(
                    "State Machine Safety: {} and {} applied different entries at index {i}",
                    names[a], names[b]
                ));
            }
        }
    }
    None
}
