//! Faults aimed at "the leader" (`--faults leader`, models with a leader only): the generator
//! writes [`LEADER`] where a node goes, and [`resolve`] names the node that leads at the
//! fault's time, by running the schedule's prefix on the same seed up to that time
//! (`Driver::leader`: Raft, the running leader of the highest term). A resolved schedule is
//! ordinary scenario faults, so a found counterexample is an ordinary file; the shrink works
//! on the unresolved schedule, so a fault moved or left out re-aims the later ones.

use super::*;

/// The placeholder node of a leader-targeted fault (the word expectations use for the leader).
pub const LEADER: &str = crate::scenario_file::noderef::LEADER;

/// How the placeholder node of a follower-targeted fault starts: [`follower`]`(k)` is
/// `"follower K"`, the `k`-th (modulo their count) of the leader's followers when the fault
/// fires (`Driver::followers`). A node name has no space, so it is never a node's.
pub const FOLLOWER: &str = "follower ";

/// The placeholder of the `k`-th follower ([`FOLLOWER`]).
pub fn follower(k: u32) -> String {
    format!("{FOLLOWER}{k}")
}

/// `k` of a follower placeholder ([`follower`]).
fn follower_index(name: &str) -> Option<u32> {
    name.strip_prefix(FOLLOWER)?.parse().ok()
}

/// The node names of `f`'s actions (a partition's every group), in order.
fn node_names(f: &Fault) -> Vec<&str> {
    let mut v = Vec::new();
    let during = f.during.as_ref().map(|(_, a)| a);
    let undo = f.undo.as_ref().map(|(_, a)| a);
    for a in std::iter::once(&f.action).chain(during).chain(undo) {
        match a {
            Action::Partition { groups, .. } => {
                v.extend(groups.iter().flatten().map(String::as_str))
            }
            a => v.extend(a.node()),
        }
    }
    v
}

/// Whether an action of `f` names a node that `is` recognizes.
fn names(f: &Fault, is: impl Fn(&str) -> bool) -> bool {
    node_names(f).into_iter().any(is)
}

/// Whether `f` is aimed at the leader (not yet resolved).
pub fn aims_at_leader(f: &Fault) -> bool {
    names(f, |n| n == LEADER)
}

/// Whether `f` is aimed at a follower of the leader (not yet resolved: [`FOLLOWER`]).
pub fn aims_at_follower(f: &Fault) -> bool {
    names(f, |n| follower_index(n).is_some())
}

/// Whether `f` names its node only when it runs ([`resolve`]): aimed at the leader or at a
/// follower.
pub fn aimed(f: &Fault) -> bool {
    aims_at_leader(f) || aims_at_follower(f)
}

/// `f` with the placeholder `placeholder` (the leader's or a follower's) replaced by `node`;
/// a partition written `[["leader"]]` (`[["follower K"]]`) is that node cut off from every
/// other node.
fn aim(f: &Fault, placeholder: &str, node: &str, nodes: &[String]) -> Fault {
    let fix = |a: &Action| -> Action {
        let mut a = a.clone();
        match &mut a {
            Action::Partition { groups, .. } => {
                if groups.len() == 1 && groups[0].len() == 1 && groups[0][0] == placeholder {
                    let rest = nodes.iter().filter(|n| *n != node).cloned().collect();
                    *groups = vec![vec![node.to_string()], rest];
                }
            }
            Action::Stop { node: n }
            | Action::Kill { node: n }
            | Action::Start { node: n }
            | Action::Restart { node: n, .. }
            | Action::Stall { node: n, .. }
            | Action::Delay { node: n, .. }
            | Action::Release { node: n, .. }
            | Action::Command { node: n, .. }
            | Action::DropLink { from: n, .. }
            | Action::HealLink { from: n, .. }
            | Action::SetLoss { from: n, .. }
            | Action::SetLatency { from: n, .. } => {
                if n == placeholder {
                    *n = node.to_string();
                }
            }
            Action::HealAll {} | Action::Message { .. } => {}
        }
        a
    };
    Fault {
        at: f.at,
        action: fix(&f.action),
        during: f.during.as_ref().map(|(t, a)| (*t, fix(a))),
        undo: f.undo.as_ref().map(|(t, a)| (*t, fix(a))),
    }
}

/// The schedule with every leader-targeted fault aimed at the node that leads just before its
/// time (the prefix of the schedule, its earlier faults resolved, run on `seed` up to then); a
/// fault whose time has no leader (an election under way), or a command the leader refuses
/// then, is left out; a cut's command in between (a compound fault) that its node refuses at
/// the command's time is left out of it (the cut alone). A follower-targeted fault
/// ([`FOLLOWER`]) is aimed the same way at the `k`-th of the followers then
/// (`Driver::followers`, modulo their count); with none, its command in between stays alone.
/// Deterministic: a function of the scenario, the plan, the seed and the faults. Costs one run
/// of the prefix per aimed fault and per leader compound's command; a schedule without one is
/// returned as it is.
pub fn resolve(
    scenario: &Scenario,
    plan: &Plan,
    seed: u64,
    faults: &[Fault],
    limits: &Limits,
) -> Result<Vec<Fault>, String> {
    if !faults.iter().any(aimed) {
        return Ok(faults.to_vec());
    }
    let nodes = &scenario.topo.names;
    // In time order (stable), so that each prefix holds the resolved earlier faults.
    let mut order: Vec<usize> = (0..faults.len()).collect();
    crate::small_sort::sort_by_key(&mut order, |&i| faults[i].at);
    let mut out: Vec<Option<Fault>> = faults
        .iter()
        .map(|f| (!aimed(f)).then(|| f.clone()))
        .collect();
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: limits.clone(),
    };
    // What to decide, in time order: each aimed fault's node at its time, then each leader
    // compound's command in between at *its* time (`during`: the node may have stepped down by
    // then and take what a leader refuses, as Raft's `timeout`).
    let mut steps: Vec<(Micros, bool, usize)> = Vec::new();
    for &i in &order {
        let f = &faults[i];
        if !aimed(f) {
            continue;
        }
        steps.push((f.at, false, i));
        if let Some((d, Action::Command { .. })) = &f.during {
            if aims_at_leader(f) {
                steps.push((*d, true, i));
            }
        }
    }
    crate::small_sort::sort_by_key(&mut steps, |&(t, during, _)| (t, during));
    for (t, during, i) in steps {
        if during && out[i].is_none() {
            continue;
        }
        // The faults before `t`, every aimed one already resolved or (later) not yet part of
        // the prefix.
        let prefix: Vec<Fault> = order
            .iter()
            .filter(|&&j| faults[j].at < t)
            .filter_map(|&j| out[j].clone())
            .collect();
        let s = with_faults(scenario, &prefix, limits)?;
        let mut run = Run::new(s, &plan.variant, Some(seed), &plan.overrides(), &opts)?;
        run.engine.set_tracing(false);
        run.engine
            .run_until(t.saturating_sub(1), u64::MAX)
            .map_err(|e| e.to_string())?;
        if during {
            // The command in between, refused by its node now: the cut alone.
            if let Some(g) = &mut out[i] {
                if let Some((_, a)) = &g.during {
                    if run.engine.apply_user_action(a.clone()).is_err() {
                        g.during = None;
                    }
                }
            }
            continue;
        }
        let f = &faults[i];
        if aims_at_follower(f) {
            out[i] = aim_follower(f, &run.engine.followers(), nodes);
            continue;
        }
        let aimed = run
            .engine
            .leader()
            .map(|id| aim(f, LEADER, &nodes[id as usize], nodes));
        // A command the leader refuses now (Raft's `timeout`: "this node is the leader") is
        // left out like a fault with no leader to hit: tried on the prefix run, thrown away
        // after.
        out[i] = aimed.filter(|g| {
            !matches!(g.action, Action::Command { .. })
                || run.engine.apply_user_action(g.action.clone()).is_ok()
        });
    }
    Ok(out.into_iter().flatten().collect())
}

/// A follower-targeted fault aimed at the `k`-th of `followers` (its placeholder's `k`,
/// modulo their count); with no follower, its command in between alone (at its time), or
/// nothing.
fn aim_follower(f: &Fault, followers: &[crate::engine::NodeId], nodes: &[String]) -> Option<Fault> {
    let k = node_names(f).into_iter().find_map(follower_index);
    let placeholder = follower(k?);
    if followers.is_empty() {
        let (d, a) = f.during.clone()?;
        return Some(Fault {
            at: d,
            action: a,
            during: None,
            undo: None,
        });
    }
    let id = followers[k? as usize % followers.len()];
    Some(aim(f, &placeholder, &nodes[id as usize], nodes))
}

/// The node a partition cuts off alone from the rest of `nodes` (`[X] | [everyone else]`, in
/// either order): the shape of a resolved leader cut ([`unaim`]) and of the cuts the shrink's
/// step 1d writes as stalls.
pub(super) fn cut_alone<'a>(a: &'a Action, nodes: &[String]) -> Option<&'a str> {
    let Action::Partition { groups, .. } = a else {
        return None;
    };
    match groups.as_slice() {
        [a, b] | [b, a] if a.len() == 1 && a.len() + b.len() == nodes.len() => Some(&a[0]),
        _ => None,
    }
}

/// `f` aimed at the leader again, where it has the shape of a resolved leader fault on one
/// node X of `nodes` (X restarted, killed and started, cut off from every other node, given a
/// command, one of X's executors stalled (the shrink's step 1d); a cut's or a stall's command at
/// X): X written as [`LEADER`]. Other faults are returned as they
/// are. The inverse of [`aim`]: the seed shrink tries a shrunk schedule on other seeds, where
/// another node leads.
pub fn unaim(f: &Fault, nodes: &[String]) -> Fault {
    let x = match &f.action {
        Action::Partition { .. } => match cut_alone(&f.action, nodes) {
            Some(x) => x.to_string(),
            None => return f.clone(),
        },
        Action::Restart { node, .. }
        | Action::Kill { node }
        | Action::Command { node, .. }
        | Action::Stall { node, .. } => node.clone(),
        _ => return f.clone(),
    };
    if x == LEADER {
        return f.clone();
    }
    let fix = |a: &Action| -> Action {
        let mut a = a.clone();
        match &mut a {
            Action::Partition { groups, .. } => *groups = vec![vec![LEADER.to_string()]],
            Action::Restart { node: n, .. }
            | Action::Kill { node: n }
            | Action::Start { node: n }
            | Action::Command { node: n, .. }
            | Action::Stall { node: n, .. }
            | Action::Release { node: n, .. }
                if *n == x =>
            {
                *n = LEADER.to_string();
            }
            _ => {}
        }
        a
    };
    Fault {
        at: f.at,
        action: fix(&f.action),
        during: f.during.as_ref().map(|(t, a)| (*t, fix(a))),
        undo: f.undo.as_ref().map(|(t, a)| (*t, fix(a))),
    }
}
