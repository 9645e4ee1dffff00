//! Hunts: search seeds *and* fault schedules for a run where a named expectation fails (or a
//! safety invariant breaks), then shrink the schedule that did it (issue 43).
//!
//! Pure and deterministic like [`crate::sweep`]: a [`Plan`] numbers its candidate runs
//! `0..runs`; candidate `i` ([`candidate`]) is a seed and a fault schedule drawn from the ChaCha8
//! stream `i` of the hunt seed alone (swarm testing: each candidate enables a random subset of
//! the plan's fault kinds and, half the time, a random focus of one or two nodes that its faults
//! act on, then draws 0 to `plan.max_faults` faults of those kinds with random targets, times,
//! durations and rates), so who runs it (a thread, a shard on another machine)
//! never changes it. A hunt's result is its *lowest-index* failing candidate, shrunk by
//! [`shrink`] (delta debugging on the faults, then shorter, lower, earlier, rounder, with a
//! bounded number of re-runs): any number of threads, or shards merged, give the same result.
//!
//! A found schedule is ordinary scenario faults ([`Fault::actions`] are [`Action`]s):
//! [`found_scenario`] writes the scenario with them as `[[faults]]`, the found seed as its
//! `seed` and the hunt's `--set` in the variant's `params`, which replays the counterexample in
//! `clusterscope run` and in the app.

use crate::engine::action::{Action, Dur};
use crate::limits::Limits;
use crate::model::Arg;
use crate::runner::{Run, RunOptions};
use crate::scenario::{check_process_states, Scenario, Timed};
use crate::time::{fmt_duration, Micros};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod candidate;
mod leader;
mod parts;
mod plan;
mod shrink;

pub use candidate::candidate;
pub use leader::{
    aimed, aims_at_follower, aims_at_leader, follower, resolve, unaim, FOLLOWER, LEADER,
};
pub use parts::{merge, Part, PART_VERSION};
pub use plan::*;
pub use shrink::{
    as_timed_cut, most_reruns, shrink, shrink_by, shrink_seed, shrink_with, time_cuts, Shrinker,
    Shrunk, FEWER_PROBES, SEED_PROBES, SEED_PROBES_LARGE, SEED_RERUNS_LARGE, SMALL,
};

/// What the generator may act on, read once from a run of the scenario: the nodes, the threads,
/// and the commands each node accepts (`Driver::check_action`).
#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    pub nodes: Vec<String>,
    pub executors: Vec<String>,
    /// (node index, command) pairs a node accepts.
    pub commands: Vec<(usize, String)>,
    /// The arguments the model declares for a command (`CommandSpec::args`), by the command
    /// of `commands`: drawn for each fault ([`command_text`]) and lowered by the shrink.
    pub args: Vec<(String, &'static [Arg])>,
    /// The commands of `commands` that are client writes (`CommandSpec::client_write`): a
    /// stranded leader's command is drawn from them when there are any.
    pub writes: Vec<String>,
    /// The commands of `commands` the model declares to matter while a follower is away
    /// (`CommandSpec::follower_away`; only for a model with a leader): a command fault drawn
    /// with one of them is, half the time, one compound fault ([`FOLLOWER`]).
    pub away: Vec<String>,
    pub duration: Micros,
    /// The shortest restart the model calls real (`Model::min_restart_down`): restarts and
    /// kill-then-start are drawn and shrunk no shorter.
    pub min_down: Micros,
    /// Whether the model names a leader (`Model::HAS_LEADER`, and no node is called
    /// "leader"): `--faults leader` draws faults aimed at it.
    pub has_leader: bool,
}

impl Space {
    pub fn of(scenario: &Scenario, plan: &Plan, limits: &Limits) -> Result<Space, String> {
        let run = Run::new(
            scenario.clone(),
            &plan.variant,
            None,
            &plan.overrides(),
            &RunOptions {
                body_budget: 0,
                checkpointing: false,
                limits: limits.clone(),
            },
        )?;
        let nodes: Vec<String> = scenario.topo.names.clone();
        let mut commands = Vec::new();
        let mut args = Vec::new();
        for c in run.engine.commands().iter().filter(|c| !c.args.is_empty()) {
            args.push((c.command.to_string(), c.args));
        }
        let mut writes: Vec<String> = Vec::new();
        let mut away: Vec<String> = Vec::new();
        let has_leader = crate::registry::find(&scenario.raw.protocol)
            .is_some_and(|m| m.has_leader)
            && !scenario.topo.names.iter().any(|n| n == LEADER);
        for (i, n) in nodes.iter().enumerate() {
            for c in run.engine.commands() {
                // A command with drawn arguments is checked with the first value of each.
                let a = Action::Command {
                    node: n.clone(),
                    command: fill(c.command, c.args, &nodes, |_| 0),
                };
                if run.engine.check_action(&a).is_ok() {
                    commands.push((i, c.command.to_string()));
                    if c.client_write && !writes.iter().any(|w| w == c.command) {
                        writes.push(c.command.to_string());
                    }
                    if c.follower_away && has_leader && !away.iter().any(|w| w == c.command) {
                        away.push(c.command.to_string());
                    }
                }
            }
        }
        Ok(Space {
            nodes,
            executors: run
                .engine
                .executors()
                .iter()
                .map(|s| s.to_string())
                .collect(),
            commands,
            args,
            writes,
            away,
            duration: scenario.duration(),
            min_down: run.engine.min_restart_down(),
            has_leader,
        })
    }
}

/// `command` with `args` filled in: as it is without arguments, else its first word and one
/// value of each argument, `pick(k)` choosing among `k` values (the generator's random stream;
/// 0 for the first value of each).
fn fill(command: &str, args: &[Arg], nodes: &[String], mut pick: impl FnMut(u64) -> u64) -> String {
    if args.is_empty() {
        return command.to_string();
    }
    let mut out = command.split_whitespace().next().unwrap_or("").to_string();
    for a in args {
        out.push(' ');
        match a {
            Arg::Node => out.push_str(&nodes[pick(nodes.len() as u64) as usize]),
            Arg::Int { min, max } => {
                // Small numbers more often: below the whole range, a quarter, a sixteenth or
                // a sixty-fourth of it.
                let hi = (max - min) >> (2 * pick(4));
                out.push_str(&(min + pick(hi + 1)).to_string());
            }
            Arg::Word(ws) => out.push_str(ws[pick(ws.len() as u64) as usize]),
        }
    }
    out
}

/// The text of command `command` of `space` in a drawn fault: its arguments
/// ([`Space::args`]) drawn from `rng`, the candidate's stream (no draw for a command without).
pub fn command_text(space: &Space, command: &str, rng: &mut impl Rng) -> String {
    match space.args.iter().find(|(c, _)| c == command) {
        Some((_, args)) => fill(command, args, &space.nodes, |k| rng.random_range(0..k)),
        None => command.to_string(),
    }
}

/// One fault of a schedule: an action at `at`, for most kinds the action that undoes it at
/// `undo.0` (heal the link, start the node, release the thread), and for a compound fault an
/// action in between at `during.0` (the leader cut off *and* a client write at it; a follower
/// cut off or stalled *and* a command, at another node, while it is away: one fault, aimed
/// once, removed as one by the shrink; written as its three actions).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    pub at: Micros,
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub during: Option<(Micros, Action)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<(Micros, Action)>,
}

impl Fault {
    /// The scenario actions of this fault, in time order.
    pub fn actions(&self) -> Vec<(Micros, Action)> {
        let mut v = vec![(self.at, self.action.clone())];
        v.extend(self.during.clone());
        if let Some(u) = &self.undo {
            v.push(u.clone());
        }
        v
    }

    /// One line: `5s drop A<->B, 7.5s heal A<->B`.
    pub fn describe(&self) -> String {
        self.actions()
            .iter()
            .map(|(t, a)| format!("{} {}", fmt_duration(*t), a.describe()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Every action of a schedule, sorted by time (stable).
pub fn actions(faults: &[Fault]) -> Vec<(Micros, Action)> {
    let mut v: Vec<(Micros, Action)> = faults.iter().flat_map(Fault::actions).collect();
    crate::small_sort::sort_by_key(&mut v, |(t, _)| *t);
    v
}

/// How large a schedule is, to compare counterexamples: actions first, then the time its
/// faults last, then how late they start.
pub fn size(faults: &[Fault]) -> (usize, Micros, Micros) {
    let n = faults.iter().map(|f| f.actions().len()).sum();
    let span = faults
        .iter()
        .map(|f| match (&f.undo, &f.action) {
            (Some((u, _)), _) => u - f.at,
            (None, Action::Restart { down_for, .. }) => down_for.map_or(0, |d| d.0),
            (None, a) => a.cut_for().map_or(0, |d| d.0),
        })
        .sum();
    let at = faults.iter().map(|f| f.at).sum();
    (n, span, at)
}

/// One candidate run: a seed and a schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub index: u64,
    pub seed: u64,
    /// The kinds this candidate drew from (swarm testing).
    pub kinds: Vec<Kind>,
    /// The nodes its faults act on (swarm testing on nodes): every node, or half the time one
    /// or two of them, so that a schedule can hit the same node again and again (crash it,
    /// bring it back, cut it off), as consensus bugs need.
    #[serde(default)]
    pub focus: Vec<String>,
    pub faults: Vec<Fault>,
}

fn round_ms(t: Micros) -> Micros {
    t / 1_000 * 1_000
}

/// The outcome of one candidate run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The target happened: why (the expectation's detail, or the violations).
    Found(String),
    /// It did not.
    Held,
    /// The run could not be made or a fault could not apply (counted apart, never found).
    Invalid(String),
}

impl Verdict {
    pub fn found(&self) -> bool {
        matches!(self, Verdict::Found(_))
    }
}

/// `scenario` with `faults` appended to its own `[[faults]]` (validated again: an impossible
/// schedule is an error).
pub fn with_faults(
    scenario: &Scenario,
    faults: &[Fault],
    limits: &Limits,
) -> Result<Scenario, String> {
    let mut raw = scenario.raw.clone();
    for (t, a) in actions(faults) {
        let mut tab = toml::Table::try_from(&a).map_err(|e| e.to_string())?;
        tab.insert("at".into(), toml::Value::String(fmt_duration(t)));
        raw.faults.push(tab);
    }
    let mut s = Scenario::from_raw(&scenario.file, raw, limits).map_err(|e| e.to_string())?;
    s.section = scenario.section.clone();
    Ok(s)
}

/// `scenario` on its first `keep` nodes (a generated cluster's count lowered, a listed one cut
/// short, seeds past them left out), or `None` when it does not allow it: fewer than one node
/// or not fewer, or the smaller scenario is invalid for the plan's variant (an expectation, a
/// fault or a start state names a node past them: its run cannot be made).
pub fn with_nodes(
    scenario: &Scenario,
    plan: &Plan,
    keep: usize,
    limits: &Limits,
) -> Option<Scenario> {
    let n = scenario.topo.names.len();
    if keep == 0 || keep >= n {
        return None;
    }
    let mut raw = scenario.raw.clone();
    let c = &mut raw.cluster;
    match &mut c.generate {
        Some(g) => {
            g.count = keep as u32;
            g.dcs = g.dcs.min(g.count);
        }
        None => c.nodes.truncate(keep),
    }
    let kept = &scenario.topo.names[..keep];
    c.seeds.retain(|s| kept.contains(s));
    let mut s = Scenario::from_raw(&scenario.file, raw, limits).ok()?;
    s.section = scenario.section.clone();
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: limits.clone(),
    };
    let made = Run::new(s.clone(), &plan.variant, None, &plan.overrides(), &opts).is_ok();
    (made && s.topo.names.len() == keep).then_some(s)
}

/// Run `seed` with `faults` (those aimed at the leader [`resolve`]d first) and say whether the
/// plan's target happened.
pub fn try_run(
    scenario: &Scenario,
    plan: &Plan,
    seed: u64,
    faults: &[Fault],
    limits: &Limits,
) -> Verdict {
    let faults = match resolve(scenario, plan, seed, faults, limits) {
        Ok(f) => f,
        Err(e) => return Verdict::Invalid(e),
    };
    let s = match with_faults(scenario, &faults, limits) {
        Ok(s) => s,
        Err(e) => return Verdict::Invalid(e),
    };
    let opts = RunOptions {
        body_budget: 0,
        checkpointing: false,
        limits: limits.clone(),
    };
    let rep = Run::new(s, &plan.variant, Some(seed), &plan.overrides(), &opts).and_then(|mut r| {
        r.trace_only_if_needed();
        r.run(None).map_err(|e| e.to_string())
    });
    let rep = match rep {
        Ok(r) => r,
        Err(e) => return Verdict::Invalid(e),
    };
    if !rep.skipped.is_empty() {
        return Verdict::Invalid(rep.skipped.join("; "));
    }
    match &plan.target {
        Target::Expectation(name) => match rep.expectations.iter().find(|e| &e.name == name) {
            Some(e) if !e.passed => Verdict::Found(e.detail.clone()),
            Some(_) => Verdict::Held,
            None => Verdict::Invalid(format!("no expectation \"{name}\" in the report")),
        },
        Target::Invariants => {
            let v = rep.metrics.get("violations").copied().unwrap_or(0.0);
            if v > 0.0 {
                Verdict::Found(format!("{v} safety violation(s)"))
            } else {
                Verdict::Held
            }
        }
    }
}

/// How `detail` of a [`Verdict::Found`] starts when the run panicked (a bug in the model, found
/// by a [`Runner`] that catches panics).
pub const PANICKED: &str = "the model panicked: ";

/// Whether a verdict is a caught panic of the model.
pub fn panicked(v: &Verdict) -> bool {
    matches!(v, Verdict::Found(d) if d.starts_with(PANICKED))
}

/// How a hunt runs its schedules. [`Direct`] (core, tests, the app's Web Workers) runs them as
/// they are: a panic of the model ends the hunt. The native CLI's runner catches a panic
/// (`std::panic::catch_unwind`, in [`Runner::guard`]: core stays pure), and a panic is then a
/// counterexample of its own: [`Verdict::Found`] with the detail `the model panicked: ...`,
/// shrunk like any failure.
pub trait Runner: Sync {
    /// Run `f`; `Err(message)` when it panicked. The default catches nothing.
    fn guard(&self, f: &mut dyn FnMut()) -> Result<(), String> {
        f();
        Ok(())
    }

    /// Run `seed` with `faults` ([`try_run`]), a panic ([`Runner::guard`]) being found.
    fn run(
        &self,
        scenario: &Scenario,
        plan: &Plan,
        seed: u64,
        faults: &[Fault],
        limits: &Limits,
    ) -> Verdict {
        let mut v = None;
        match self.guard(&mut || v = Some(try_run(scenario, plan, seed, faults, limits))) {
            Ok(()) => v.unwrap_or_else(|| Verdict::Invalid("the run gave no verdict".into())),
            Err(msg) => Verdict::Found(format!("{PANICKED}{msg}")),
        }
    }

    /// [`resolve`], a panic being an error (the schedule is then kept as it is).
    fn resolve(
        &self,
        scenario: &Scenario,
        plan: &Plan,
        seed: u64,
        faults: &[Fault],
        limits: &Limits,
    ) -> Result<Vec<Fault>, String> {
        let mut r = None;
        self.guard(&mut || r = Some(resolve(scenario, plan, seed, faults, limits)))?;
        r.unwrap_or_else(|| Err("resolve gave no result".into()))
    }
}

/// The runner that catches nothing.
pub struct Direct;

impl Runner for Direct {}

/// Run candidate `index`.
pub fn run_candidate(
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    index: u64,
    limits: &Limits,
) -> (Candidate, Verdict) {
    run_candidate_by(&Direct, scenario, plan, space, index, limits)
}

/// [`run_candidate`] by `runner`.
pub fn run_candidate_by(
    runner: &dyn Runner,
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    index: u64,
    limits: &Limits,
) -> (Candidate, Verdict) {
    let c = candidate(plan, space, index);
    let v = runner.run(scenario, plan, c.seed, &c.faults, limits);
    (c, v)
}

/// A counterexample: the first failing candidate and its shrunk schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Found {
    pub index: u64,
    /// The seed the shrunk schedule fails on (the candidate's, or another one the seed shrink
    /// moved to: [`shrink_seed`]); the found scenario's `seed`.
    pub seed: u64,
    /// The candidate's own seed, when the shrink moved to another (`original` fails on it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_seed: Option<u64>,
    /// The candidate's schedule as generated (faults aimed at the leader resolved on the
    /// candidate's seed: every fault names its node).
    pub original: Vec<Fault>,
    /// The shrunk schedule (still failing on `seed`; resolved like `original`).
    pub shrunk: Vec<Fault>,
    /// The target's detail on the shrunk schedule.
    pub detail: String,
    /// Re-runs the shrink spent.
    pub reruns: u32,
    /// The shrunk cluster: its first this many nodes ([`with_nodes`]), when the failure needs
    /// fewer than the scenario has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<usize>,
}

impl Found {
    /// The scenario the shrunk schedule fails on: `scenario`, on fewer nodes if it shrank.
    pub fn scenario(&self, scenario: &Scenario, plan: &Plan, limits: &Limits) -> Scenario {
        self.nodes
            .and_then(|k| with_nodes(scenario, plan, k, limits))
            .unwrap_or_else(|| scenario.clone())
    }
}

/// The hunt as one loop, for tests and small hunts: candidates `indices` in order until one
/// fails, then its shrink. `progress` is called after each run with the runs done.
pub fn search(
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    indices: impl Iterator<Item = u64>,
    limits: &Limits,
    progress: &mut dyn FnMut(u64),
) -> Option<Found> {
    let mut done = 0;
    for i in indices {
        let (c, v) = run_candidate(scenario, plan, space, i, limits);
        done += 1;
        progress(done);
        if v.found() {
            return Some(finish(scenario, plan, space, c, limits));
        }
    }
    None
}

/// Shrink a failing candidate into the [`Found`] a hunt reports.
pub fn finish(
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    c: Candidate,
    limits: &Limits,
) -> Found {
    finish_with(scenario, plan, space, c, limits, &mut |_, _| {})
}

/// [`finish`], with [`shrink_with`]'s progress.
pub fn finish_with(
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    c: Candidate,
    limits: &Limits,
    progress: &mut dyn FnMut(u32, &[Fault]),
) -> Found {
    finish_by(
        &Direct, scenario, plan, space, c, false, true, limits, progress,
    )
}

/// [`finish_with`] by `runner`; `panicked`: the candidate's verdict was a caught panic
/// ([`panicked`]), which the shrink then keeps; `nodes`: try fewer nodes (see [`shrink_by`];
/// the app does not, since it opens the result as a branch of the person's own cluster).
#[allow(clippy::too_many_arguments)]
pub fn finish_by(
    runner: &dyn Runner,
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    c: Candidate,
    panicked: bool,
    nodes: bool,
    limits: &Limits,
    progress: &mut dyn FnMut(u32, &[Fault]),
) -> Found {
    let sh = shrink_by(
        runner, scenario, plan, space, c.seed, &c.faults, panicked, nodes, limits, progress,
    );
    let small = sh
        .nodes
        .and_then(|k| with_nodes(scenario, plan, k, limits))
        .unwrap_or_else(|| scenario.clone());
    let on_small = Shrinker {
        runner,
        scenario: &small,
        plan,
        space,
        limits,
        panicked,
    };
    let (seed, shrunk, reruns) = shrink_seed(&on_small, c.seed, &sh.faults, sh.reruns, progress);
    // Last: cuts and the heals that end only them as timed cuts, within the whole bound.
    let (shrunk, timed) = time_cuts(
        &on_small,
        seed,
        &shrunk,
        most_reruns(plan).saturating_sub(reruns),
        &mut |r, b| progress(reruns + r, b),
    );
    let reruns = reruns + timed;
    let detail = match runner.run(&small, plan, seed, &shrunk, limits) {
        Verdict::Found(d) => d,
        other => panic!("a shrunk schedule that no longer fails: {other:?}"),
    };
    // The schedules as ordinary faults (the shrunk one ran resolved just above).
    let concrete = |s: &Scenario, seed: u64, f: &[Fault]| {
        runner
            .resolve(s, plan, seed, f, limits)
            .unwrap_or(f.to_vec())
    };
    Found {
        index: c.index,
        seed,
        found_seed: (seed != c.seed).then_some(c.seed),
        original: concrete(scenario, c.seed, &c.faults),
        shrunk: concrete(&small, seed, &shrunk),
        detail,
        reruns,
        nodes: sh.nodes,
    }
}

/// A whole hunt of `plan.runs` candidates on one thread.
pub fn hunt(scenario: &Scenario, plan: &Plan, limits: &Limits) -> Result<Option<Found>, String> {
    let space = Space::of(scenario, plan, limits)?;
    Ok(search(
        scenario,
        plan,
        &space,
        0..plan.runs,
        limits,
        &mut |_| {},
    ))
}

/// The counterexample as a scenario file: `scenario` with the shrunk faults as `[[faults]]`,
/// the found seed as `seed`, the hunt's `--set` in the variant's `params`; the hunt and the
/// original schedule as comments at the top. `clusterscope run FILE --variant V` replays it.
pub fn found_scenario(scenario: &Scenario, plan: &Plan, found: &Found) -> Result<String, String> {
    let small = found.scenario(scenario, plan, &Limits::default());
    let with = with_faults(&small, &found.shrunk, &Limits::default())?;
    let mut raw = with.raw.clone();
    raw.seed = found.seed;
    let vi = scenario.variant(&plan.variant)?.0;
    for (k, v) in plan.overrides() {
        raw.variants[vi].params.insert(k, v);
    }
    let body = with.to_toml(&raw)?;
    let mut head = String::new();
    let line = |s: &mut String, t: String| {
        s.push_str("# ");
        s.push_str(&t);
        s.push('\n');
    };
    line(
        &mut head,
        format!(
            "Found by `clusterscope hunt` (hunt seed {}, run {} of {}): {} in variant {} on seed {}.",
            plan.hunt_seed,
            found.index + 1,
            plan.runs,
            plan.target.describe(),
            plan.variant,
            found.seed
        ),
    );
    line(
        &mut head,
        format!("What failed: {}", crate::text::clip(&found.detail, 200)),
    );
    if let Some(first) = found.found_seed {
        line(
            &mut head,
            format!(
                "The run found was on seed {first}; the shrink moved to seed {}, where fewer \
                 actions fail the same way.",
                found.seed
            ),
        );
    }
    line(
        &mut head,
        format!(
            "Shrunk from {} to {} actions in {} re-runs. The schedule as generated:",
            actions(&found.original).len(),
            actions(&found.shrunk).len(),
            found.reruns
        ),
    );
    for (t, a) in actions(&found.original) {
        line(&mut head, format!("  {} {}", fmt_duration(t), a.describe()));
    }
    if let Some(k) = found.nodes {
        line(
            &mut head,
            format!(
                "Shrunk from {} nodes to the first {k}.",
                scenario.topo.names.len()
            ),
        );
    }
    Ok(format!("{head}\n{body}"))
}
