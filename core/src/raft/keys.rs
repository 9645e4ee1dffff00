//! One-key actions for teaching Raft live (issue 40, after RaftScope's C / R / T / A): a client
//! request to the leader, kill or restart the leader, time out a node, and a split vote (two
//! followers' election timers fire at the same moment). Each is an ordinary user action (a
//! command, a kill, a restart), recorded and replayed as any other.

use super::{Raft, RaftKv};
use crate::engine::action::{Action, Dur};
use crate::engine::{NodeId, NodeStatus, Sim};
use crate::model::QuickKey;
use crate::time::US_PER_S;

pub const KEYS: &[QuickKey] = &[
    QuickKey {
        key: 'r',
        label: "a client request to the leader (client-put x N)",
    },
    QuickKey {
        key: 'R',
        label: "restart the leader (kill -9, back 3 s later)",
    },
    QuickKey {
        key: 'K',
        label: "kill the leader (kill -9; it stays down)",
    },
    QuickKey {
        key: 't',
        label: "time out the selected node (or a follower): it starts an election",
    },
    QuickKey {
        key: 's',
        label: "split vote: two followers time out at the same moment",
    },
    QuickKey {
        key: 'A',
        label: "align the followers' election timers: all fire together (timeout_min from now)",
    },
    QuickKey {
        key: 'S',
        label:
            "spread the followers' election timers: one fires first, the next timeout_min / n later",
    },
];

impl<S: super::sm::StateMachine> Raft<S> {
    /// Running servers of the group that are not leaders, the `first` one first.
    fn followers(&self, sim: &Sim<Self>, first: Option<NodeId>) -> Vec<NodeId> {
        let ok = |i: NodeId| {
            !self.outside(i)
                && sim.nodes[i as usize].status == NodeStatus::Running
                && !sim.nodes[i as usize].state.is_leader()
        };
        let mut v: Vec<NodeId> = first.filter(|&i| ok(i)).into_iter().collect();
        v.extend((0..self.n).filter(|&i| ok(i) && Some(i) != first));
        v
    }
}

/// The actions of `key` now; `Err`: why not now.
pub fn actions(
    r: &RaftKv,
    sim: &Sim<RaftKv>,
    key: char,
    selected: Option<NodeId>,
) -> Result<Vec<Action>, String> {
    let leader = RaftKv::current_leader(sim);
    let name = |i: NodeId| sim.topo.name(i).to_string();
    let need_leader = || leader.ok_or_else(|| "there is no leader now".to_string());
    Ok(match key {
        'r' => {
            let l = need_leader()?;
            let next = sim.nodes[l as usize].state.last() + 1;
            vec![Action::Command {
                node: name(l),
                command: format!("client-put x {next}"),
            }]
        }
        'R' => vec![Action::Restart {
            node: name(need_leader()?),
            kill: true,
            down_for: Some(Dur(3 * US_PER_S)),
        }],
        'K' => vec![Action::Kill {
            node: name(need_leader()?),
        }],
        't' => {
            let f = r.followers(sim, selected);
            let Some(&f) = f.first() else {
                return Err("no running follower to time out".into());
            };
            vec![Action::Command {
                node: name(f),
                command: "timeout".into(),
            }]
        }
        's' => {
            let f = r.followers(sim, selected);
            if f.len() < 2 {
                return Err("a split vote needs two running followers".into());
            }
            f[..2]
                .iter()
                .map(|&i| Action::Command {
                    node: name(i),
                    command: "timeout".into(),
                })
                .collect()
        }
        // RaftScope's A / T: every running follower's election timer re-armed, together or
        // spread (`election-timer`); a follower stands at its timer's end only if it heard no leader for that long.
        'A' | 'S' => {
            let f = r.followers(sim, selected);
            if f.is_empty() {
                return Err("no running follower has an election timer".into());
            }
            let min = r.p.timeout_min.0.max(crate::time::US_PER_MS);
            let gap = (min / f.len() as u64).max(crate::time::US_PER_MS);
            f.iter()
                .enumerate()
                .map(|(k, &i)| Action::Command {
                    node: name(i),
                    command: format!(
                        "election-timer {}",
                        crate::time::fmt_duration(if key == 'A' {
                            min
                        } else {
                            min + k as u64 * gap
                        })
                    ),
                })
                .collect()
        }
        _ => return Err(format!("no action on key {key}")),
    })
}
