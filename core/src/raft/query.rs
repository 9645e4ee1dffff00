//! What the inspector and expectations read of the Raft model: `query_impl` (the views an
//! expectation names, per node or for the cluster) and `node_json` (one node's inspector JSON,
//! its waiting reads in words).

use super::node::{Payload, RNode, Role};
use super::sm::StateMachine;
use super::view::{ms, name};
use super::Raft;
use crate::engine::{NodeId, NodeStatus, Sim};
use crate::model::{QValue, Query};
use serde_json::json;

impl<S: StateMachine> Raft<S> {
    pub fn query_impl(&self, sim: &Sim<Self>, q: &Query) -> Option<Result<QValue, String>> {
        let node = |what: &str| -> Result<&RNode<S>, String> {
            Ok(&sim.nodes[q.need_node(what)? as usize].state)
        };
        let num = |v: u64| Ok(QValue::Num(v as f64));
        let r = match q.view {
            "role" => node("the node").map(|n| {
                let up = Self::up(sim, q.node.unwrap());
                QValue::Text(if up { n.role.as_str() } else { "down" }.into())
            }),
            "term" => node("the node").and_then(|n| num(n.term)),
            "leader" => node("the node").map(|n| QValue::Text(name(sim, n.leader))),
            "voted_for" => node("the node").map(|n| QValue::Text(name(sim, n.voted_for))),
            "commit_index" => node("the node").and_then(|n| num(n.commit)),
            "last_applied" => node("the node").and_then(|n| num(n.applied)),
            "apply_lag" => node("the node").and_then(|n| num(n.commit.saturating_sub(n.applied))),
            "flush_index" => node("the node").and_then(|n| num(n.flush)),
            "log_length" => node("the node").and_then(|n| num(n.last())),
            "last_log_term" => node("the node").and_then(|n| num(n.last_term())),
            "log_term" => node("the node").and_then(|n| {
                let k = q.need_key("the log index")?;
                let i: u64 = k.parse().map_err(|_| {
                    format!("view `log_term`: key \"{k}\" is not a log index (1, 2, ...)")
                })?;
                num(n.term_at(i))
            }),
            "log_entry" => node("the node").and_then(|n| {
                let k = q.need_key("the log index")?;
                let i: u64 = k.parse().map_err(|_| {
                    format!("view `log_entry`: key \"{k}\" is not a log index (1, 2, ...)")
                })?;
                Ok(QValue::Text(
                    match n.log.get((i as usize).wrapping_sub(1)) {
                        Some(e) => self.entry_text(&e.payload),
                        None => String::new(),
                    },
                ))
            }),
            "logs_agree" => Ok(QValue::Text(
                if self.logs_agree(sim) { "yes" } else { "no" }.into(),
            )),
            "state_machines_agree" => Ok(QValue::Text(self.state_machines_agree(sim).into())),
            "next_index" | "match_index" => node("the leader").and_then(|n| {
                let p = q.need_peer()?;
                match n.progress.get(p as usize) {
                    Some(pr) if n.is_leader() => num(if q.view == "next_index" {
                        pr.next
                    } else {
                        pr.matched
                    }),
                    _ => num(0),
                }
            }),
            "lag" => node("the node").map(|_| {
                let id = q.node.unwrap();
                match Self::lag(sim, id) {
                    _ if !Self::up(sim, id) => QValue::Text("down".into()),
                    Some(l) => QValue::Num(l as f64),
                    None => QValue::Text("no leader".into()),
                }
            }),
            "leaders" => num(Self::leaders(sim).len() as u64),
            "leader_term" => num(Self::leaders(sim).iter().map(|l| l.1).max().unwrap_or(0)),
            "elections" => match q.node {
                Some(i) => num(sim.nodes[i as usize].state.elections),
                None => num(sim.nodes.iter().map(|s| s.state.elections).sum()),
            },
            "client_acked"
            | "client_failed"
            | "client_pending"
            | "client_latency_max_ms"
            | "client_latency_mean_ms"
            | "client_latency_last_ms" => {
                let (acked, failed, pending, max, sum, count) = match q.node {
                    Some(i) => {
                        let c = &sim.nodes[i as usize].state.client;
                        (
                            c.acked,
                            c.failed,
                            c.outstanding.len() as u64,
                            c.lat_max,
                            c.lat_sum,
                            c.lat_count,
                        )
                    }
                    None => Self::client_totals(sim),
                };
                Ok(QValue::Num(match q.view {
                    "client_acked" => acked as f64,
                    "client_failed" => failed as f64,
                    "client_pending" => pending as f64,
                    "client_latency_max_ms" => ms(max),
                    "client_latency_last_ms" => ms(match q.node {
                        Some(i) => sim.nodes[i as usize].state.client.lat_last,
                        None => Self::last_latency(sim),
                    }),
                    _ => {
                        if count == 0 {
                            0.0
                        } else {
                            ms(sum) / count as f64
                        }
                    }
                }))
            }
            "applied_writes" => node("the node").and_then(|n| num(n.applied_client)),
            "pending_requests" => node("the leader").and_then(|n| num(n.pending.len() as u64)),
            "reads_waiting" => node("the node").and_then(|n| num(n.reads.len() as u64)),
            other => {
                let n = match node("the node") {
                    Ok(n) => n,
                    Err(e) => {
                        return self
                            .sm
                            .query(&sim.nodes[0].state.sm, other, q.key)
                            .map(|_| Err(e))
                    }
                };
                return self
                    .sm
                    .query(&n.sm, other, q.key)
                    .map(|r| r.map(QValue::Text));
            }
        };
        Some(r)
    }

    pub fn node_json(&self, sim: &Sim<Self>, id: NodeId) -> serde_json::Value {
        let slot = &sim.nodes[id as usize];
        let n = &slot.state;
        let entries: Vec<_> = n
            .log
            .iter()
            .enumerate()
            .map(|(k, e)| {
                let what = match &e.payload {
                    Payload::Startup => String::new(),
                    Payload::Client { cmd, .. } => self.sm.describe(cmd),
                };
                json!({"index": k + 1, "term": e.term, "kind": e.kind(), "what": what})
            })
            .collect();
        let followers: Vec<_> = if n.is_leader() {
            n.progress
                .iter()
                .enumerate()
                .filter(|(p, _)| *p as NodeId != id)
                .map(|(p, pr)| {
                    json!({"peer": sim.topo.name(p as NodeId), "next_index": pr.next, "match_index": pr.matched,
                           "outstanding": pr.outstanding.len(), "last_response_us": pr.last_response})
                })
                .collect()
        } else {
            Vec::new()
        };
        let execs: Vec<_> = self
            .executors_named()
            .iter()
            .zip(&slot.exec_stats)
            .map(|(name, s)| json!({"name": name, "stats": s}))
            .collect();
        json!({
            "status": slot.status.as_str(),
            "role": if slot.status == NodeStatus::Stopped { "down" } else { n.role.as_str() },
            "term": n.term,
            "voted_for": name(sim, n.voted_for),
            "leader": name(sim, n.leader),
            "election_deadline_us": if n.role == Role::Leader || slot.status == NodeStatus::Stopped { None } else { Some(n.election_deadline) },
            "votes": n.votes.iter().map(|&v| sim.topo.name(v)).collect::<Vec<_>>(),
            "commit_index": n.commit,
            "last_applied": n.applied,
            "flush_index": n.flush,
            "log": entries,
            "followers": followers,
            "pending_requests": n.pending.len(),
            "reads_waiting": n.reads.values().map(|w| self.read_wait_text(sim, w)).collect::<Vec<_>>(),
            "retry_cache": n.retry.len(),
            "executors": execs,
            "client": {"acked": n.client.acked, "failed": n.client.failed, "pending": n.client.outstanding.len(),
                       "target": sim.topo.name(n.client.target), "latency_last_us": n.client.lat_last,
                       "latency_max_us": n.client.lat_max},
            "state_machine": self.sm.views_json(&n.sm),
        })
    }

    fn executors_named(&self) -> &'static [&'static str] {
        &S::EXECUTORS[..self.sm.executor_count()]
    }

    /// A linearizable read this node holds, and what it waits for.
    fn read_wait_text(&self, sim: &Sim<Self>, w: &super::reads::ReadWait<S::Cmd>) -> String {
        use super::reads::{Asker, Stage};
        let who = match &w.asker {
            Asker::Client { client, seq, cmd } => format!(
                "read #{seq} of {}'s client ({})",
                sim.topo.name(*client),
                self.sm.describe(cmd)
            ),
            Asker::Peer { peer, id } => {
                format!("readIndex request #{id} from {}", sim.topo.name(*peer))
            }
        };
        let what = match w.stage {
            Stage::Startup => "waits for the leader's startup entry to be applied".to_string(),
            Stage::Round(ri) => format!("waits for a heartbeat round to confirm readIndex {ri}"),
            Stage::Leader(l) => format!("waits for {}'s readIndex", sim.topo.name(l)),
            Stage::Apply(ri) => format!("waits for the apply of readIndex {ri}"),
        };
        format!("{who}: {what} (since {})", crate::time::fmt_time(w.since))
    }
}
