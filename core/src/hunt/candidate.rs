//! Drawing candidate `index` of a plan: its faults, a function of the hunt seed and the index
//! only, and whether the schedule they make is possible at all.

use super::*;

/// Candidate `index` of `plan`: a function of the hunt seed and the index only.
pub fn candidate(plan: &Plan, space: &Space, index: u64) -> Candidate {
    let mut rng = crate::rng::child(plan.hunt_seed, index);
    let seed = rng.random_range(1..=u32::MAX as u64);
    // Swarm: a random subset of the kinds, each with probability 1/2 (never none).
    let mut kinds: Vec<Kind> = plan
        .kinds
        .iter()
        .copied()
        .filter(|_| rng.random_bool(0.5))
        .collect();
    if kinds.is_empty() {
        kinds.push(plan.kinds[rng.random_range(0..plan.kinds.len())]);
    }
    // Kinds this scenario cannot draw (no threads, no commands, one node) are left out.
    let n = space.nodes.len();
    kinds.retain(|k| match k {
        Kind::Drop | Kind::Loss | Kind::Delay | Kind::Partition => n >= 2,
        Kind::Stall => !space.executors.is_empty(),
        Kind::Command => !space.commands.is_empty(),
        Kind::Restart | Kind::Kill => true,
        Kind::Leader => space.has_leader,
    });
    let count = if kinds.is_empty() || rng.random_range(0..10) == 0 {
        0 // one in ten: the seed alone (a plain sweep's run)
    } else {
        rng.random_range(1..=plan.max_faults.max(1))
    };
    // Swarm on nodes: all of them, or half the time one or two (with three nodes or more).
    let focus: Vec<usize> = if n >= 3 && rng.random_bool(0.5) {
        let mut all: Vec<usize> = (0..n).collect();
        crate::rng::shuffle(&mut all, &mut rng);
        let mut f = all[..rng.random_range(1..=2)].to_vec();
        crate::small_sort::sort_by_key(&mut f, |x| *x);
        f
    } else {
        (0..n).collect()
    };
    let focused = focus.len() < n;
    // Commands of the focus nodes (all commands when none of them has one).
    let commands: Vec<&(usize, String)> = {
        let c: Vec<_> = space
            .commands
            .iter()
            .filter(|(i, _)| focus.contains(i))
            .collect();
        if c.is_empty() {
            space.commands.iter().collect()
        } else {
            c
        }
    };
    let dur = space.duration;
    // Faults start in the first 60% of the run and are undone by 70%: the rest is the
    // cluster's chance to recover, so that a fault left in place is not the "bug" found.
    let last_start = dur * 6 / 10;
    let last_undo = dur * 7 / 10;
    let mut faults: Vec<Fault> = Vec::new();
    // With faults aimed at the leader, half the candidates chain their faults: each follows the
    // one before by 100 ms to an eighth of the run, as a consensus bug's steps follow each other
    // within an election or two (a leader cut off, a write at it, the next leader...), which
    // faults spread over the whole run rarely do. Drawn only then, so that hunts without
    // `leader` draw what they drew before it.
    let chained = kinds.contains(&Kind::Leader) && rng.random_bool(0.5);
    let mut prev: Option<Micros> = None;
    for _ in 0..count {
        let kind = kinds[rng.random_range(0..kinds.len())];
        let at = match prev {
            Some(p) if chained => {
                let scale = [10u64, 20, 40, 80, 160, 300][rng.random_range(0..6)];
                let gap = round_ms(rng.random_range(100_000..=(dur / scale).max(100_000)));
                if p + gap > last_start {
                    break;
                }
                p + gap
            }
            _ => round_ms(rng.random_range(0..=last_start)),
        };
        prev = Some(at);
        // Durations from 1/200 to 1/4 of the run, spread over scales.
        let per = [200u64, 100, 50, 25, 12, 8, 4][rng.random_range(0..7)];
        let len = round_ms((dur / per).max(1_000));
        let until = (at + len).min(last_undo).max(at + 1_000);
        let mut node = || space.nodes[focus[rng.random_range(0..focus.len())]].clone();
        let fault = match kind {
            Kind::Drop | Kind::Loss | Kind::Delay => {
                let from = node();
                let mut to = space.nodes[rng.random_range(0..n)].clone();
                while to == from {
                    to = space.nodes[rng.random_range(0..n)].clone();
                }
                let one_way = rng.random_range(0..4) == 0;
                let action = match kind {
                    Kind::Drop => Action::DropLink {
                        from: from.clone(),
                        to: to.clone(),
                        one_way,
                        down_for: None,
                    },
                    Kind::Loss => Action::SetLoss {
                        from: from.clone(),
                        to: to.clone(),
                        loss: [0.05, 0.1, 0.2, 0.3, 0.5, 0.8][rng.random_range(0..6)],
                        one_way,
                    },
                    _ => {
                        let max =
                            [5_000u64, 20_000, 100_000, 500_000, 2_000_000][rng.random_range(0..5)];
                        Action::SetLatency {
                            from: from.clone(),
                            to: to.clone(),
                            min: Dur(max / 4),
                            max: Dur(max),
                            one_way,
                        }
                    }
                };
                Fault {
                    at,
                    action,
                    during: None,
                    undo: Some((until, Action::HealLink { from, to, one_way })),
                }
            }
            Kind::Partition => {
                let mut groups = if focused {
                    // One focus node cut off alone, or the focus from the rest.
                    let side: Vec<usize> = if focus.len() > 1 && rng.random_bool(0.5) {
                        vec![focus[rng.random_range(0..focus.len())]]
                    } else {
                        focus.clone()
                    };
                    let (a, b): (Vec<usize>, Vec<usize>) = (0..n).partition(|i| side.contains(i));
                    let names = |v: Vec<usize>| -> Vec<String> {
                        v.into_iter().map(|i| space.nodes[i].clone()).collect()
                    };
                    vec![names(a), names(b)]
                } else {
                    let mut names = space.nodes.clone();
                    crate::rng::shuffle(&mut names, &mut rng);
                    let cut = rng.random_range(1..n);
                    let (a, b) = names.split_at(cut);
                    vec![a.to_vec(), b.to_vec()]
                };
                for g in &mut groups {
                    crate::small_sort::sort_by_key(g, |x| space.nodes.iter().position(|y| y == x));
                }
                crate::small_sort::sort_by_key(&mut groups, |g| {
                    space.nodes.iter().position(|y| *y == g[0])
                });
                Fault {
                    at,
                    action: Action::Partition {
                        groups,
                        down_for: None,
                    },
                    during: None,
                    undo: Some((until, Action::HealAll {})),
                }
            }
            Kind::Restart => Fault {
                at,
                action: Action::Restart {
                    node: node(),
                    kill: rng.random_bool(0.5),
                    down_for: Some(Dur((until - at).max(space.min_down))),
                },
                during: None,
                undo: None,
            },
            Kind::Kill => {
                let x = node();
                Fault {
                    at,
                    action: Action::Kill { node: x.clone() },
                    during: None,
                    undo: Some((until.max(at + space.min_down), Action::Start { node: x })),
                }
            }
            Kind::Stall => {
                let x = node();
                let executor = space.executors[rng.random_range(0..space.executors.len())].clone();
                Fault {
                    at,
                    action: Action::Stall {
                        node: x.clone(),
                        executor: executor.clone(),
                    },
                    during: None,
                    undo: Some((until, Action::Release { node: x, executor })),
                }
            }
            Kind::Leader => {
                // Aimed at whichever node leads at `at` (`resolve`): restarted, killed and
                // started later, cut off alone and healed, or given one of the model's commands.
                let leader = || LEADER.to_string();
                match rng.random_range(0..if space.commands.is_empty() { 3 } else { 5 }) {
                    0 => Fault {
                        at,
                        action: Action::Restart {
                            node: leader(),
                            kill: rng.random_bool(0.5),
                            down_for: Some(Dur((until - at).max(space.min_down))),
                        },
                        during: None,
                        undo: None,
                    },
                    1 => Fault {
                        at,
                        action: Action::Kill { node: leader() },
                        during: None,
                        undo: Some((
                            until.max(at + space.min_down),
                            Action::Start { node: leader() },
                        )),
                    },
                    2 => Fault {
                        at,
                        action: Action::Partition {
                            groups: vec![vec![leader()]],
                            down_for: None,
                        },
                        during: None,
                        undo: Some((until, Action::HealAll {})),
                    },
                    4 => {
                        // The leader stranded: cut off, then a command at it while it still
                        // leads alone (Raft: a write only it appends, an entry on a minority),
                        // healed later. One compound fault, resolved at once: the command goes
                        // to the node the cut isolates, whoever leads by the command's time. The
                        // command is a client write when the model has any (a read appends
                        // nothing), one draw either way.
                        let c = if space.writes.is_empty() {
                            &space.commands[rng.random_range(0..space.commands.len())].1
                        } else {
                            &space.writes[rng.random_range(0..space.writes.len())]
                        };
                        let later = at + round_ms(rng.random_range(1_000..=(until - at) / 2));
                        Fault {
                            at,
                            action: Action::Partition {
                                groups: vec![vec![leader()]],
                                down_for: None,
                            },
                            during: Some((
                                later,
                                Action::Command {
                                    node: leader(),
                                    command: command_text(space, c, &mut rng),
                                },
                            )),
                            undo: Some((until, Action::HealAll {})),
                        }
                    }
                    _ => {
                        let (_, c) = &space.commands[rng.random_range(0..space.commands.len())];
                        Fault {
                            at,
                            action: Action::Command {
                                node: leader(),
                                command: command_text(space, c, &mut rng),
                            },
                            during: None,
                            undo: None,
                        }
                    }
                }
            }
            // A model that declares commands to matter while a follower is away
            // (`CommandSpec::follower_away`, `Space::away`): half its command faults are one
            // compound fault, one of those commands (uniform) at a node that accepts it, while
            // a follower of the leader is away from `at` (cut off alone, or one of its threads
            // stalled) until `until`; the command 1 ms to half the time away later. Aimed once
            // at `at` (`resolve`: the k-th follower then), removed whole by the shrink. Drawn
            // regardless of the focus (the follower is whoever follows then). These draws are
            // made only when the model declares such a command, so the hunts of the others
            // draw what they drew.
            Kind::Command if !space.away.is_empty() && rng.random_bool(0.5) => {
                let c = &space.away[rng.random_range(0..space.away.len())];
                let on: Vec<usize> = space
                    .commands
                    .iter()
                    .filter(|(_, x)| x == c)
                    .map(|(i, _)| *i)
                    .collect();
                let i = on[rng.random_range(0..on.len())];
                let action = Action::Command {
                    node: space.nodes[i].clone(),
                    command: command_text(space, c, &mut rng),
                };
                let who = follower(rng.random_range(0..4));
                let later = at + round_ms(rng.random_range(1_000..=((until - at) / 2).max(1_000)));
                let stall = !space.executors.is_empty() && rng.random_bool(0.5);
                let (away, back) = if stall {
                    let executor =
                        space.executors[rng.random_range(0..space.executors.len())].clone();
                    (
                        Action::Stall {
                            node: who.clone(),
                            executor: executor.clone(),
                        },
                        Action::Release {
                            node: who,
                            executor,
                        },
                    )
                } else {
                    (
                        Action::Partition {
                            groups: vec![vec![who]],
                            down_for: None,
                        },
                        Action::HealAll {},
                    )
                };
                Fault {
                    at,
                    action: away,
                    during: Some((later, action)),
                    undo: Some((until, back)),
                }
            }
            Kind::Command => {
                let (i, c) = pick_command(&commands, &mut rng);
                Fault {
                    at,
                    action: Action::Command {
                        node: space.nodes[*i].clone(),
                        command: command_text(space, c, &mut rng),
                    },
                    during: None,
                    undo: None,
                }
            }
        };
        // Keep it only if the schedule stays possible (no start of a running node, no action
        // on a killed one...): what a scenario file's load would refuse.
        faults.push(fault);
        if !possible(space, &faults) {
            faults.pop();
        }
    }
    Candidate {
        index,
        seed,
        kinds,
        focus: focus.iter().map(|&i| space.nodes[i].clone()).collect(),
        faults,
    }
}

/// One (node, command) pair of `pairs` (the focus nodes' commands, [`Space::commands`]'s
/// order). When every node among them accepts the same commands, one uniform draw over the
/// pairs (a command and a node, each uniform, as hunts drew before). When not (Ozone: SCM takes
/// only `close-container`, each datanode eight others), a uniform command first, then one of
/// the nodes that accept it: a command only one node takes is drawn as often as any other,
/// not once per pair (1 in 9 instead of 1 in 25 in Ozone's sandbox).
fn pick_command<'a, R: Rng>(pairs: &[&'a (usize, String)], rng: &mut R) -> &'a (usize, String) {
    let mut names: Vec<&str> = Vec::new();
    let mut nodes: Vec<usize> = Vec::new();
    for (i, c) in pairs.iter().map(|p| (p.0, p.1.as_str())) {
        if !names.contains(&c) {
            names.push(c);
        }
        if !nodes.contains(&i) {
            nodes.push(i);
        }
    }
    if names.len() * nodes.len() == pairs.len() {
        return pairs[rng.random_range(0..pairs.len())];
    }
    let c = names[rng.random_range(0..names.len())];
    let on: Vec<&&(usize, String)> = pairs.iter().filter(|p| p.1 == c).collect();
    on[rng.random_range(0..on.len())]
}

/// Whether the process states of the schedule allow every action (`check_process_states`),
/// every node running at time 0 (a sandbox's own schedule is empty; a scenario's own faults
/// are checked again when the run is built).
fn possible(space: &Space, faults: &[Fault]) -> bool {
    let topo = crate::engine::Topology {
        names: space.nodes.clone(),
        dcs: vec!["dc1".into(); space.nodes.len()],
        racks: vec!["rack1".into(); space.nodes.len()],
        seeds: vec![0],
    };
    // Faults aimed at the leader or a follower name their node only when they run (`resolve`).
    let known: Vec<Fault> = faults.iter().filter(|f| !aimed(f)).cloned().collect();
    let acts = actions(&known);
    let items: Vec<Timed> = acts
        .iter()
        .map(|(t, a)| Timed {
            at: *t,
            place: String::new(),
            action: a,
            strict: true,
        })
        .collect();
    check_process_states(&topo, &items).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(usize, &str)]) -> Vec<(usize, String)> {
        v.iter().map(|(i, c)| (*i, c.to_string())).collect()
    }

    #[test]
    fn every_node_with_the_same_commands_draws_one_pair_as_before() {
        let all = pairs(&[(0, "a"), (0, "b"), (1, "a"), (1, "b"), (2, "a"), (2, "b")]);
        let refs: Vec<&(usize, String)> = all.iter().collect();
        for seed in 0..50 {
            let mut r1 = crate::rng::child(seed, 0);
            let mut r2 = crate::rng::child(seed, 0);
            let old = refs[r1.random_range(0..refs.len())];
            assert_eq!(pick_command(&refs, &mut r2), old);
            // The same stream afterwards: one draw each.
            assert_eq!(r1.random_range(0..1000u32), r2.random_range(0..1000u32));
        }
    }

    #[test]
    fn a_command_one_node_takes_is_drawn_as_often_as_any_other() {
        // Ozone's shape: three datanodes with two commands each, SCM (3) with one of its own.
        let all = pairs(&[
            (0, "a"),
            (0, "b"),
            (1, "a"),
            (1, "b"),
            (2, "a"),
            (2, "b"),
            (3, "close"),
        ]);
        let refs: Vec<&(usize, String)> = all.iter().collect();
        let mut rng = crate::rng::child(7, 0);
        let n = 3000;
        let mut close = 0;
        for _ in 0..n {
            let p = pick_command(&refs, &mut rng);
            if p.1 == "close" {
                assert_eq!(p.0, 3, "close-container only where it is accepted");
                close += 1;
            }
        }
        // 1 in 3 commands (was 1 in 7 pairs).
        assert!((800..1200).contains(&close), "{close} of {n}");
    }
}
