//! Faults aimed at "the leader" (`--faults leader`, models with a leader only): the generator
//! writes [`LEADER`] where a node goes, and [`resolve`] names the node that leads at the
//! fault's time, by running the schedule's prefix on the same seed up to that time
//! (`Driver::leader`: Raft, the running leader of the highest term). A resolved schedule is
//! ordinary scenario faults, so a found counterexample is an ordinary file; the shrink works
//! on the unresolved schedule, so a fault moved or left out re-aims the later ones.

use super::*;

/// The placeholder node of a leader-targeted fault (the word expectations use for the leader).
pub const LEADER: &str = crate::scenario_file::noderef::LEADER;

/// Whether `f` is aimed at the leader (not yet resolved).
pub fn aims_at_leader(f: &Fault) -> bool {
    let hit = |a: &Action| match a {
        Action::Partition { groups } => groups.iter().flatten().any(|n| n == LEADER),
        a => a.node() == Some(LEADER),
    };
    hit(&f.action) || f.undo.as_ref().is_some_and(|(_, a)| hit(a))
}

/// `f` with the leader placeholder replaced by `node`; a partition written `[["leader"]]` is the
/// leader cut off from every other node.
fn aim(f: &Fault, node: &str, nodes: &[String]) -> Fault {
    let fix = |a: &Action| -> Action {
        let mut a = a.clone();
        match &mut a {
            Action::Partition { groups } => {
                if groups.len() == 1 && groups[0].len() == 1 && groups[0][0] == LEADER {
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
                if n == LEADER {
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
        undo: f.undo.as_ref().map(|(t, a)| (*t, fix(a))),
    }
}

/// The schedule with every leader-targeted fault aimed at the node that leads just before its
/// time (the prefix of the schedule, its earlier faults resolved, run on `seed` up to then); a
/// fault whose time has no leader (an election under way), or a command the leader refuses
/// then, is left out. Deterministic: a
/// function of the scenario, the plan, the seed and the faults. Costs one run of the prefix per
/// leader-targeted fault; a schedule without one is returned as it is.
pub fn resolve(
    scenario: &Scenario,
    plan: &Plan,
    seed: u64,
    faults: &[Fault],
    limits: &Limits,
) -> Result<Vec<Fault>, String> {
    if !faults.iter().any(aims_at_leader) {
        return Ok(faults.to_vec());
    }
    let nodes = &scenario.topo.names;
    // In time order (stable), so that each prefix holds the resolved earlier faults.
    let mut order: Vec<usize> = (0..faults.len()).collect();
    crate::small_sort::sort_by_key(&mut order, |&i| faults[i].at);
    let mut out: Vec<Option<Fault>> = faults
        .iter()
        .map(|f| (!aims_at_leader(f)).then(|| f.clone()))
        .collect();
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: limits.clone(),
    };
    for &i in &order {
        let f = &faults[i];
        if !aims_at_leader(f) {
            continue;
        }
        // The faults before this one, every other leader-targeted one already resolved or
        // (later) not yet part of the prefix.
        let prefix: Vec<Fault> = order
            .iter()
            .filter(|&&j| faults[j].at < f.at)
            .filter_map(|&j| out[j].clone())
            .collect();
        let s = with_faults(scenario, &prefix, limits)?;
        let mut run = Run::new(s, &plan.variant, Some(seed), &plan.overrides(), &opts)?;
        run.engine.set_tracing(false);
        run.engine
            .run_until(f.at.saturating_sub(1), u64::MAX)
            .map_err(|e| e.to_string())?;
        let aimed = run
            .engine
            .leader()
            .map(|id| aim(f, &nodes[id as usize], nodes));
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
