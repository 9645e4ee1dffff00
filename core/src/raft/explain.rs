//! Raft's "explain this state" ([`crate::model::Model::explain`]): the node's role and term,
//! the leader it believes in and when it last heard from it, its vote, its election timer, its
//! log against the commit index and, on a leader, how far each follower has caught up. Ozone's
//! datanodes (the same Raft) add their state machine's health (`ozone::view`).

use super::node::Role;
use super::sm::StateMachine;
use super::Raft;
use crate::engine::trace::Trace;
use crate::engine::{NodeId, NodeStatus, Sim};
use crate::explain::last_log;
use crate::time::{fmt_elapsed, fmt_time};

pub fn explain<S: StateMachine>(
    r: &Raft<S>,
    sim: &Sim<Raft<S>>,
    trace: &Trace,
    upto: usize,
    id: NodeId,
    fallback: impl FnOnce() -> Vec<String>,
) -> Vec<String> {
    let slot = &sim.nodes[id as usize];
    if slot.status == NodeStatus::Stopped || r.outside(id) {
        return fallback();
    }
    let name = |i: NodeId| sim.topo.name(i);
    let n = &slot.state;
    let me = name(id);
    let mut out = Vec::new();
    let since = fmt_time(n.role_since);
    out.push(match n.role {
        Role::Leader => format!(
            "{me} is the leader of term {} since {since} (a majority is {} of {}).",
            n.term,
            r.majority(),
            r.n
        ),
        Role::Candidate { pre } => format!(
            "{me} is a {} for term {} since {since}: {} of the {} votes it needs so far{}.",
            if pre { "pre-candidate" } else { "candidate" },
            if pre { n.term + 1 } else { n.term },
            n.votes.len(),
            r.majority(),
            if n.votes.is_empty() {
                String::new()
            } else {
                format!(
                    " (from {})",
                    n.votes
                        .iter()
                        .map(|v| name(*v))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ),
        Role::Follower => match n.leader {
            Some(l) => format!(
                "{me} follows {} in term {}; it last heard from its leader at {} ({} ago).",
                name(l),
                n.term,
                fmt_time(n.last_leader_contact),
                fmt_elapsed(sim.now.saturating_sub(n.last_leader_contact))
            ),
            None => format!("{me} is a follower in term {} and knows no leader.", n.term),
        },
    });
    if let Some(v) = n.voted_for {
        out.push(format!("In term {} it voted for {}.", n.term, name(v)));
    }
    if let Some(a) = r.election_arc(sim, id) {
        if n.role == Role::Follower {
            out.push(format!(
                "Its {}: it stands then only if it heard from no leader (nor granted a vote) for {}, else it sleeps again (Ratis' FollowerState).",
                a.label,
                crate::time::fmt_duration(n.sleep_for)
            ));
        } else {
            out.push(format!("Its {}.", a.label));
        }
    }
    let last = n.last();
    out.push(format!(
        "Its log ends at index {last} (term {}); commitIndex {}, applied {}{}.",
        n.last_term(),
        n.commit,
        n.applied,
        if last > n.commit {
            format!(": {} entr(ies) not committed yet", last - n.commit)
        } else {
            String::new()
        }
    ));
    if n.is_leader() {
        let lag: Vec<String> = (0..r.n)
            .filter(|f| *f != id)
            .filter_map(|f| {
                let p = n.progress.get(f as usize)?;
                (p.matched < last).then(|| format!("{} at {}", name(f), p.matched))
            })
            .collect();
        out.push(if lag.is_empty() {
            "Every follower has matched its whole log.".to_string()
        } else {
            format!("Followers behind its log (matchIndex): {}.", lag.join(", "))
        });
    }
    if let Some((t, text)) = last_log(trace, upto, id) {
        out.push(format!("It last logged at {}: “{text}”.", fmt_time(t)));
    }
    out
}
