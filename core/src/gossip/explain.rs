//! Gossip's "explain this state" ([`crate::model::Model::explain`]): per peer the node sees
//! DOWN, since when, the phi that convicted it, what became of the last echo each way, whether
//! an inflightEcho entry is stuck, and how far behind its copy of the peer's heartbeat is.

use super::{fd::PHI_FACTOR, view, Gossip, TasksWait};
use crate::engine::trace::Trace;
use crate::engine::{NodeId, NodeStatus, Sim};
use crate::explain::{last_log, last_msg, status_word};
use crate::model::explain_generic as generic;
use crate::time::fmt_time;

/// At most this many DOWN peers are explained one by one.
const MAX_PEERS: usize = 4;

pub fn explain(
    m: &Gossip,
    sim: &Sim<Gossip>,
    trace: &Trace,
    upto: usize,
    id: NodeId,
) -> Vec<String> {
    let slot = &sim.nodes[id as usize];
    if slot.status != NodeStatus::Running {
        return generic(m, sim, trace, upto, id);
    }
    let name = |i: NodeId| sim.topo.name(i);
    let g = &slot.state;
    let n = sim.topo.len() as NodeId;
    let peers: Vec<NodeId> = (0..n).filter(|q| *q != id).collect();
    let down: Vec<NodeId> = peers.iter().copied().filter(|q| !g.sees_up(*q)).collect();
    let threshold = m.p.phi_convict_threshold;
    let mut out = vec![format!(
        "{} is {}{} and sees {} of {} peers UP{}.",
        name(id),
        status_word(slot.status),
        if g.enabled {
            ""
        } else {
            " with gossip disabled"
        },
        peers.len() - down.len(),
        peers.len(),
        if down.is_empty() {
            String::new()
        } else {
            format!(
                ", {} DOWN ({})",
                down.len(),
                down.iter()
                    .take(8)
                    .map(|q| name(*q))
                    .collect::<Vec<_>>()
                    .join(", ")
                    + if down.len() > 8 { ", …" } else { "" }
            )
        }
    )];
    match g.tasks_wait {
        Some(TasksWait::Convict { ep }) => out.push(format!(
            "Its gossip task waits for the GossipStage to run convict({}) (runInGossipStageBlocking): no heartbeat bump, no SYN, no other status check until it has run.",
            name(ep)
        )),
        Some(TasksWait::SecondLook { .. }) => out.push(
            "Its gossip task sleeps 100 ms in the status check (the GossipStage is behind) before looking again.".into(),
        ),
        None => {}
    }
    if g.stop_waits {
        out.push(
            "A stop (drain or disablegossip) waits for taskLock, which the gossip task holds until its round ends: STATUS=shutdown and the GOSSIP_SHUTDOWN messages wait with it.".into(),
        );
    }
    for &q in down.iter().take(MAX_PEERS) {
        let qn = name(q);
        let mut s = format!("{} sees {qn} DOWN", name(id));
        if let Some(t) = g.unreachable.get(&q) {
            s += &format!(" since {}", fmt_time(*t));
        }
        let running = sim.nodes[q as usize].status == NodeStatus::Running;
        if !running {
            s += &format!(" ({qn} is {})", status_word(sim.nodes[q as usize].status));
        }
        let phi = view::phi_of(sim, g, q).map(|v| v * PHI_FACTOR);
        if let Some(p) = phi {
            s += &format!(
                "; its φ of {qn} is {p:.1} ({} the threshold {threshold})",
                if p > threshold { "above" } else { "below" }
            );
        }
        let mut why = Vec::new();
        match last_msg(trace, upto, id, q, "ECHO_REQ") {
            Some((t, true)) => why.push(format!(
                "the ECHO_REQ it sent {qn} at {} was lost",
                fmt_time(t)
            )),
            Some((t, false)) => {
                why.push(format!("it last sent {qn} an ECHO_REQ at {}", fmt_time(t)))
            }
            None => {}
        }
        if let Some((t, true)) = last_msg(trace, upto, q, id, "ECHO_RSP") {
            why.push(format!("{qn}'s ECHO_RSP at {} was lost", fmt_time(t)));
        }
        if view::inflight_stuck(g, q) {
            why.push(format!(
                "its inflightEcho entry for {qn} is stuck, so no new echo is sent (it logs “Skipping ECHO_REQ”)"
            ));
        } else if g.inflight.contains_key(&q) {
            why.push(format!("an echo to {qn} is in flight"));
        }
        if let (Some(mine), Some(theirs)) = (g.state(q), sim.nodes[q as usize].state.state(q)) {
            if running && mine.hb.generation == theirs.hb.generation {
                why.push(format!(
                    "it holds {qn}'s heartbeat version {} ({qn} is at {}{})",
                    mine.hb.version,
                    theirs.hb.version,
                    if mine.hb.version + 2 >= theirs.hb.version {
                        ": gossip about it still arrives"
                    } else {
                        ""
                    }
                ));
            }
        }
        if !why.is_empty() {
            s += &format!(": {}", why.join("; "));
        }
        out.push(s + ".");
    }
    if down.len() > MAX_PEERS {
        out.push(format!("… and {} more DOWN peers.", down.len() - MAX_PEERS));
    }
    let seen_by = (0..n)
        .filter(|o| {
            *o != id
                && sim.nodes[*o as usize].status == NodeStatus::Running
                && !sim.nodes[*o as usize].state.sees_up(id)
        })
        .count();
    if seen_by > 0 {
        out.push(format!("{seen_by} running peer(s) see {} DOWN.", name(id)));
    }
    if let Some((t, text)) = last_log(trace, upto, id) {
        out.push(format!("It last logged at {}: “{text}”.", fmt_time(t)));
    }
    out
}
