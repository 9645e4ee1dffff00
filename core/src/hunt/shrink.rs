//! Shrinking a failing schedule: delta debugging over its faults, then simplifying each fault
//! (shorter, less loss, earlier, rounder) while the target keeps happening.

use super::*;

/// Shrink a failing schedule on `seed` (deterministic; at most `plan.shrink_reruns` re-runs):
/// remove faults (halves, then one at a time: delta debugging), then per fault shorten it,
/// lower its loss, move it earlier, round its times to 100 ms and to the second; repeat while
/// anything changed. Every accepted step keeps the target happening.
pub fn shrink(
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    seed: u64,
    faults: &[Fault],
    limits: &Limits,
) -> (Vec<Fault>, u32) {
    shrink_with(scenario, plan, space, seed, faults, limits, &mut |_, _| {})
}

/// [`shrink`], calling `progress(reruns, best)` after every re-run with the smallest schedule
/// that still fails so far (the CLI's "best so far" on a terminal).
pub fn shrink_with(
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    seed: u64,
    faults: &[Fault],
    limits: &Limits,
    progress: &mut dyn FnMut(u32, &[Fault]),
) -> (Vec<Fault>, u32) {
    let s = shrink_by(
        &Direct, scenario, plan, space, seed, faults, false, false, limits, progress,
    );
    (s.faults, s.reruns)
}

/// What [`shrink_by`] gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Shrunk {
    /// The schedule that still fails.
    pub faults: Vec<Fault>,
    /// Re-runs spent.
    pub reruns: u32,
    /// The cluster's first nodes the failure needs ([`with_nodes`]), when fewer than the
    /// scenario's.
    pub nodes: Option<usize>,
}

/// Cluster sizes a shrink tries, smallest first (below `n`): 1 to 6, 8, then a quarter and a
/// half of `n` (a large cluster costs a few runs, not one per size).
fn sizes(n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = [1, 2, 3, 4, 5, 6, 8, n / 4, n / 2]
        .into_iter()
        .filter(|&k| k >= 1 && k < n)
        .collect();
    crate::small_sort::sort_by_key(&mut v, |k| *k);
    v.dedup();
    v
}

/// [`shrink_with`] by `runner` (the CLI's catches the model's panics). A re-run that panics
/// counts as still failing; when the schedule to shrink panicked (`panicked`), only a re-run
/// that panics does, so that the panic is not shrunk into another failure. With `nodes`,
/// after the first removal of faults it tries smaller clusters ([`with_nodes`]: the first
/// nodes, where the scenario allows it; faults on the removed nodes dropped), smallest
/// first, keeping the first that fails the same way (a panic stays a panic, a failure of the
/// target stays one: a smaller cluster that only panics is another bug).
#[allow(clippy::too_many_arguments)]
pub fn shrink_by(
    runner: &dyn Runner,
    scenario: &Scenario,
    plan: &Plan,
    space: &Space,
    seed: u64,
    faults: &[Fault],
    panicked: bool,
    nodes: bool,
    limits: &Limits,
    progress: &mut dyn FnMut(u32, &[Fault]),
) -> Shrunk {
    let sh = Shrinker {
        runner,
        scenario,
        plan,
        space,
        limits,
        panicked,
    };
    sh.within(seed, faults, nodes, plan.shrink_reruns, progress)
}

/// What every shrink step shares: how a schedule is re-run and judged, on which scenario, with
/// which plan, fault space and limits. `panicked`: the schedule being shrunk panicked, so only a
/// re-run that panics still fails (a panic is not shrunk into another failure).
#[derive(Clone, Copy)]
pub struct Shrinker<'a> {
    pub runner: &'a dyn Runner,
    pub scenario: &'a Scenario,
    pub plan: &'a Plan,
    pub space: &'a Space,
    pub limits: &'a Limits,
    pub panicked: bool,
}

/// Re-runs of one shrink step on one seed, counted against a bound, each reported to
/// `progress` with the best schedule so far.
struct Reruns<'p> {
    seed: u64,
    budget: u32,
    spent: u32,
    /// A candidate may not leave more lasting states open than this ([`left_open`]); refused
    /// without a re-run.
    open: Option<usize>,
    progress: &'p mut dyn FnMut(u32, &[Fault]),
}

impl Reruns<'_> {
    /// Whether `f` still fails on `sc` (one re-run, unless the bound is spent or `f` leaves
    /// too much open). A re-run that panics counts as failing unless `strict` or the schedule
    /// shrunk panicked: then it must fail the same way (panic or not) as the one found.
    fn fails(
        &mut self,
        sh: &Shrinker,
        sc: &Scenario,
        f: &[Fault],
        best: &[Fault],
        strict: bool,
    ) -> bool {
        if self.spent >= self.budget || self.open.is_some_and(|o| left_open(f) > o) {
            return false;
        }
        self.spent += 1;
        let v = sh.runner.run(sc, sh.plan, self.seed, f, sh.limits);
        let yes = if sh.panicked || strict {
            v.found() && super::panicked(&v) == sh.panicked
        } else {
            v.found()
        };
        (self.progress)(self.spent, if yes { f } else { best });
        yes
    }

    /// Simplification `step` of `cur[i]` ([`simplify`]) applied again and again while the
    /// result passes `keep` and still fails on `sc`.
    #[allow(clippy::too_many_arguments)]
    fn simplify_while_failing(
        &mut self,
        sh: &Shrinker,
        sc: &Scenario,
        cur: &mut Vec<Fault>,
        i: usize,
        step: usize,
        strict: bool,
        keep: impl Fn(&Fault) -> bool,
    ) {
        while let Some(f) = simplify(&cur[i], step, sh.space).filter(|g| keep(g)) {
            let mut next = cur.clone();
            next[i] = f;
            if self.fails(sh, sc, &next, cur, strict) {
                *cur = next;
            } else {
                break;
            }
        }
    }
}

impl Shrinker<'_> {
    /// [`shrink_by`] on `seed` with at most `budget` re-runs.
    fn within(
        &self,
        seed: u64,
        faults: &[Fault],
        nodes: bool,
        budget: u32,
        progress: &mut dyn FnMut(u32, &[Fault]),
    ) -> Shrunk {
        let (scenario, space) = (self.scenario, self.space);
        let mut cur = faults.to_vec();
        let mut small: Option<(usize, Scenario)> = None;
        let mut tried_nodes = !nodes;
        // A candidate may not leave more lasting states open at the end than the schedule as
        // found (a stall whose restart was removed, a cut whose shared heal was): a node stalled
        // or cut off for good fails a target about recovery trivially, a different run from the
        // one found. Refused without a re-run.
        let mut r = Reruns {
            seed,
            budget,
            spent: 0,
            open: Some(left_open(faults)),
            progress,
        };
        // Faults aimed at the leader (or a follower): pinned to the nodes they hit, if that
        // still fails, so that removing one fault does not re-aim the ones after it (which
        // loses most failures).
        if cur.iter().any(aimed) {
            if let Ok(pinned) = self
                .runner
                .resolve(scenario, self.plan, seed, &cur, self.limits)
            {
                if r.fails(self, scenario, &pinned, &cur, false) {
                    cur = pinned;
                }
            }
        }
        loop {
            let before = cur.clone();
            let now = small.as_ref().map_or(scenario, |(_, s)| s);
            // 1. Remove chunks, halving their size (ddmin's complement step).
            let mut chunk = cur.len().div_ceil(2).max(1);
            while !cur.is_empty() {
                let mut i = 0;
                while i < cur.len() {
                    let mut next = cur.clone();
                    next.drain(i..(i + chunk).min(cur.len()));
                    if r.fails(self, now, &next, &cur, false) {
                        cur = next;
                    } else {
                        i += chunk;
                    }
                }
                if chunk == 1 {
                    break;
                }
                chunk = chunk.div_ceil(2);
            }
            // 1b. One heal for several cuts: a cut's own `heal-all` left out where another
            // fault's `heal-all` after the cut's start heals it anyway (the cut then lasts until
            // that one).
            for i in 0..cur.len() {
                if heals_all(&cur[i]) && healed_later(&cur, i) {
                    let mut next = cur.clone();
                    next[i].undo = None;
                    if r.fails(self, now, &next, &cur, false) {
                        cur = next;
                    }
                }
            }
            // 1c. Two faults of the same lasting action joined into one (a cut, then the same
            // cut again with a command in between and a heal: one cut from the first's start,
            // with the command, healed at the later heal): one action fewer each.
            let mut i = 0;
            while i < cur.len() {
                let mut j = 0;
                while j < cur.len() {
                    if let Some(g) = (i != j).then(|| join(&cur[i], &cur[j])).flatten() {
                        let mut next = cur.clone();
                        next[i] = g;
                        next.remove(j);
                        if r.fails(self, now, &next, &cur, false) {
                            cur = next;
                            // The joined fault stays where `i` was; removing an earlier `j`
                            // moves it one place up.
                            if j < i {
                                i -= 1;
                            }
                            j = 0;
                            continue;
                        }
                    }
                    j += 1;
                }
                i += 1;
            }
            // 1d. A node cut off alone, with its own heal, and restarted later (a restart of
            // the node, or a kill -9): the cut (its command kept) replaced by a stall of one of
            // the node's executors, without a release and without the heal. A restarted process
            // starts its executors afresh, so the restart ends the stall; no restart heals a
            // link. One action fewer: the heal.
            for i in 0..cur.len() {
                for g in as_stalls(&cur, i, now, space) {
                    let mut next = cur.clone();
                    next[i] = g;
                    if r.fails(self, now, &next, &cur, false) {
                        cur = next;
                        break;
                    }
                }
            }
            // 2. Fewer nodes, once.
            if !tried_nodes {
                tried_nodes = true;
                let n = scenario.topo.names.len();
                for k in sizes(n) {
                    let Some(sk) = with_nodes(scenario, self.plan, k, self.limits) else {
                        continue;
                    };
                    let kept: Vec<Fault> = cur
                        .iter()
                        .filter(|f| with_faults(&sk, std::slice::from_ref(*f), self.limits).is_ok())
                        .cloned()
                        .collect();
                    if r.fails(self, &sk, &kept, &cur, true) {
                        cur = kept;
                        small = Some((k, sk));
                        break;
                    }
                }
                if small.is_some() {
                    continue;
                }
            }
            let now = small.as_ref().map_or(scenario, |(_, s)| s);
            // 3. Simplify each fault; each simplification repeats while it is accepted and
            // changes something (a downtime not below the model's shortest restart).
            for i in 0..cur.len() {
                for step in 0..SIMPLIFY_STEPS {
                    r.simplify_while_failing(self, now, &mut cur, i, step, false, |g| {
                        down_time(g).is_none_or(|d| d >= space.min_down)
                    });
                }
            }
            if cur == before || r.spent >= budget {
                break;
            }
        }
        Shrunk {
            faults: cur,
            reruns: r.spent,
            nodes: small.map(|(k, _)| k),
        }
    }
}

/// How many other seeds [`shrink_seed`] tries a shrunk schedule on.
pub const SEED_PROBES: u32 = 64;

/// While the schedule still has more than [`SMALL`] actions, [`shrink_seed`] tries up to this
/// many other seeds (a probe that does not fail costs one run; the re-run bound still holds).
pub const SEED_PROBES_LARGE: u32 = 256;

/// While the schedule still has more than [`SMALL`] actions, [`shrink_seed`] may spend this
/// many times the plan's `shrink_reruns` (a seed where it fails is shrunk again there, which
/// costs tens to hundreds of re-runs).
pub const SEED_RERUNS_LARGE: u32 = 5;

/// A schedule of at most this many actions is small enough for [`SEED_PROBES`].
pub const SMALL: usize = 5;

/// The most re-runs a whole shrink (`finish_by`: the schedule's on the found seed, then the
/// seed's) spends for `plan`: `shrink_reruns` on the found seed, then the seed shrink's own
/// bound, as many again or [`SEED_RERUNS_LARGE`] times as many while the schedule has more than
/// [`SMALL`] actions. What a progress line or the app's hunt card gives as "at most".
pub fn most_reruns(plan: &Plan) -> u32 {
    plan.shrink_reruns
        .saturating_mul(1 + SEED_RERUNS_LARGE.max(1))
}

/// The ChaCha8 stream of a found seed that [`shrink_seed`] draws its other seeds from.
const SEED_STREAM: u64 = 0x5eed;

/// The stream of a found seed that [`shrink_seed`]'s schedules of one action fewer are tried
/// on (its own, so the whole schedule's probes draw the seeds they drew before).
const FEWER_STREAM: u64 = 0xfe3e;

/// On how many other seeds [`shrink_seed`] tries each schedule of one action fewer, while the
/// schedule has more than [`SMALL`] actions.
pub const FEWER_PROBES: u32 = 64;

/// The schedules of one action fewer than `faults` (or more fewer: a fault of several actions
/// left out) that the shrink's steps would try: each fault left out, a compound's action in
/// between left out, a cut's own `heal-all` left out where another fault's heals it later
/// (step 1b), a cut ended by its node's restart written as a stall (step 1d).
fn fewer(faults: &[Fault], scenario: &Scenario, space: &Space) -> Vec<Vec<Fault>> {
    let mut out = Vec::new();
    for i in 0..faults.len() {
        let mut less = faults.to_vec();
        less.remove(i);
        out.push(less);
    }
    for i in 0..faults.len() {
        if faults[i].during.is_some() {
            let mut less = faults.to_vec();
            less[i].during = None;
            out.push(less);
        }
        if heals_all(&faults[i]) && healed_later(faults, i) {
            let mut less = faults.to_vec();
            less[i].undo = None;
            out.push(less);
        }
        for g in as_stalls(faults, i, scenario, space) {
            let mut less = faults.to_vec();
            less[i] = g;
            out.push(less);
        }
    }
    // The smallest first (a fault of three actions left out before one of one); stable.
    crate::small_sort::sort_by_key(&mut out, |f| actions(f).len());
    out
}

/// Shrinking the seed: a schedule shrunk on one seed is minimal for that seed only (removing a
/// fault moves every later random draw, and the elections with them). Try it on up to
/// [`SEED_PROBES`] other seeds ([`SEED_PROBES_LARGE`] while it has more than [`SMALL`]
/// actions), drawn from stream [`SEED_STREAM`] of `seed` (deterministic), as it is and, where the plan draws faults at the leader, with its faults on one node aimed
/// at the leader again ([`unaim`]: on another seed another node leads); on a seed where it
/// still fails the same way, shrink it again (no fewer nodes: `scenario` is the shrunk
/// cluster already) and keep that seed when the schedule has fewer actions. Then, while the
/// schedule still has more than [`SMALL`] actions, each schedule of one action fewer
/// ([`fewer`]) is tried on up to [`FEWER_PROBES`] other seeds of its own stream, and shrunk
/// again where it fails (a removal that loses the failure on one seed may keep it on
/// another; the whole schedule's probes never try it). Stops when the
/// schedule is one action or less, or after the plan's bound of re-runs (`shrink_reruns`, times
/// [`SEED_RERUNS_LARGE`] while the schedule has more than [`SMALL`] actions) spent here, beyond
/// the `used` the schedule's shrink spent.
/// Returns the seed, the schedule and the re-runs spent in all.
pub fn shrink_seed(
    sh: &Shrinker,
    seed: u64,
    faults: &[Fault],
    used: u32,
    progress: &mut dyn FnMut(u32, &[Fault]),
) -> (u64, Vec<Fault>, u32) {
    let (scenario, plan, space) = (sh.scenario, sh.plan, sh.space);
    // Its own bound: as many re-runs again as the schedule's shrink may spend, or
    // [`SEED_RERUNS_LARGE`] times as many while the schedule has more than [`SMALL`] actions.
    let bound = |n: usize| {
        let k = if n > SMALL { SEED_RERUNS_LARGE } else { 1 };
        used.saturating_add(plan.shrink_reruns.saturating_mul(k))
    };
    let (mut best_seed, mut best) = (seed, faults.to_vec());
    let mut reruns = used;
    let mut rng = crate::rng::child(seed, SEED_STREAM);
    let leader = space.has_leader && plan.kinds.contains(&Kind::Leader);
    // The schedule's forms to try on another seed: re-aimed at the leader first (where the
    // plan draws leader faults), then as it is.
    let forms_of = |f: &[Fault]| -> Vec<Vec<Fault>> {
        let mut forms = vec![f.to_vec()];
        if leader {
            let again: Vec<Fault> = f.iter().map(|g| unaim(g, &scenario.topo.names)).collect();
            if again != forms[0] {
                forms.insert(0, again);
            }
        }
        forms
    };
    // One re-run of `form` on seed `other`; where it fails the same way, shrunk again there
    // within what is left of `budget`: that schedule (`None` where it did not fail).
    let mut on_seed = |other: u64,
                       form: &[Fault],
                       best: &[Fault],
                       reruns: &mut u32,
                       budget: u32|
     -> Option<Vec<Fault>> {
        *reruns += 1;
        let v = sh.runner.run(scenario, plan, other, form, sh.limits);
        progress(*reruns, best);
        if !(v.found() && super::panicked(&v) == sh.panicked) {
            return None;
        }
        let base = *reruns;
        let s = sh.within(other, form, false, budget - *reruns, &mut |r, b| {
            progress(base + r, b)
        });
        *reruns += s.reruns;
        Some(s.faults)
    };
    for probe in 0..SEED_PROBES_LARGE {
        let n = actions(&best).len();
        let budget = bound(n);
        if n <= 1 || reruns >= budget || (probe >= SEED_PROBES && n <= SMALL) {
            break;
        }
        let other = rng.random_range(1..=u32::MAX as u64);
        for form in forms_of(&best) {
            if reruns >= budget {
                break;
            }
            let Some(shrunk) = on_seed(other, &form, &best, &mut reruns, budget) else {
                continue;
            };
            if actions(&shrunk).len() < n {
                (best_seed, best) = (other, shrunk);
            }
            break;
        }
    }
    // Then, while the schedule is still large: each schedule of one action fewer (a fault left
    // out, a compound's command left out, a cut's own heal left out where a later `heal-all`
    // heals it, a cut its node's restart ends as a stall) that fails on none of the seeds
    // tried so far may fail on another: tried on up to [`FEWER_PROBES`] other seeds each
    // (stream [`FEWER_STREAM`]), and where it fails, shrunk again there.
    let mut fewer_rng = crate::rng::child(seed, FEWER_STREAM);
    let open = left_open(&best);
    'fewer: loop {
        let n = actions(&best).len();
        if n <= SMALL {
            break;
        }
        let budget = bound(n);
        let now = best.clone();
        for less in fewer(&now, scenario, space) {
            if left_open(&less) > open {
                continue;
            }
            // One form per seed: re-aimed where the plan draws leader faults.
            let form = forms_of(&less).swap_remove(0);
            for _ in 0..FEWER_PROBES {
                if reruns >= budget {
                    break 'fewer;
                }
                let other = fewer_rng.random_range(1..=u32::MAX as u64);
                let Some(shrunk) = on_seed(other, &form, &best, &mut reruns, budget) else {
                    continue;
                };
                if actions(&shrunk).len() < n {
                    (best_seed, best) = (other, shrunk);
                    continue 'fewer;
                }
            }
        }
        break;
    }
    (best_seed, best, reruns)
}

const SIMPLIFY_STEPS: usize = 10;

/// One simplification of a fault, or `None` when it changes nothing: 0 halve its duration
/// (not below 1 ms), 1 halve its loss (not below 1%), 2 move it to half its time, 3 round its
/// times to 100 ms, 4 to the second; for a compound fault 5 leave its action in between out,
/// 6 bring that action halfway to the fault's start; 7 a kill -9 and its start written as one
/// restart (kill -9, down as long: the same run in one action); 8 halve the drawn numbers of its
/// command towards their least ([`Space::args`]); 9 for a compound whose command is at another
/// node than the one away (a command while a follower is away), the command alone. An action in
/// between stays between the fault and its undo.
fn simplify(f: &Fault, step: usize, space: &Space) -> Option<Fault> {
    let min_down = space.min_down;
    let mut g = f.clone();
    // A node's downtime is not shortened below the model's shortest real restart.
    let floor = if down_time(f).is_some() {
        min_down.max(1_000)
    } else {
        1_000
    };
    match step {
        0 => {
            if let Some((u, _)) = &mut g.undo {
                let len = *u - g.at;
                if len <= floor {
                    return None;
                }
                *u = g.at + round_ms(len / 2).max(floor);
            } else if let Action::Restart {
                down_for: Some(d), ..
            }
            | Action::DropLink {
                down_for: Some(d), ..
            }
            | Action::Partition {
                down_for: Some(d), ..
            } = &mut g.action
            {
                if d.0 <= floor {
                    return None;
                }
                d.0 = round_ms(d.0 / 2).max(floor);
            } else {
                return None;
            }
        }
        1 => {
            let Action::SetLoss { loss, .. } = &mut g.action else {
                return None;
            };
            if *loss <= 0.01 {
                return None;
            }
            *loss = ((*loss * 50.0).round() / 100.0).max(0.01);
        }
        2 => {
            if g.at < 2_000 {
                return None;
            }
            let shift = round_ms(g.at / 2);
            g.at -= shift;
            if let Some((d, _)) = &mut g.during {
                *d -= shift;
            }
            if let Some((u, _)) = &mut g.undo {
                *u -= shift;
            }
        }
        3 | 4 => {
            let q = if step == 3 { 100_000 } else { 1_000_000 };
            let r = |t: Micros| (t + q / 2) / q * q;
            let at = r(g.at);
            let len = g.undo.as_ref().map(|(u, _)| r(*u - g.at).max(q));
            let off = g.during.as_ref().map(|(d, _)| r(*d - g.at));
            g.at = at;
            if let Action::DropLink {
                down_for: Some(d), ..
            }
            | Action::Partition {
                down_for: Some(d), ..
            } = &mut g.action
            {
                d.0 = r(d.0).max(q);
            }
            if let (Some((u, _)), Some(len)) = (&mut g.undo, len) {
                *u = at + len;
            }
            if let (Some((d, _)), Some(off)) = (&mut g.during, off) {
                *d = at + off;
            }
        }
        5 => {
            g.during.take()?;
        }
        6 => {
            let (d, _) = g.during.as_mut()?;
            let off = *d - g.at;
            if off <= 1_000 {
                return None;
            }
            *d = g.at + round_ms(off / 2).max(1_000);
        }
        7 => {
            let (Action::Kill { node }, Some((u, Action::Start { node: n })), None) =
                (&g.action, &g.undo, &g.during)
            else {
                return None;
            };
            if node != n {
                return None;
            }
            g.action = Action::Restart {
                node: node.clone(),
                kill: true,
                down_for: Some(Dur(u - g.at)),
            };
            g.undo = None;
        }
        8 => {
            let command = match (&mut g.action, &mut g.during) {
                (Action::Command { command, .. }, _) => command,
                (_, Some((_, Action::Command { command, .. }))) => command,
                _ => return None,
            };
            *command = lower_numbers(command, space)?;
        }
        9 => {
            // A compound whose command is at another node than the one away (a command
            // while a follower is away): the command alone, at its time.
            let (d, command) = g.during.clone()?;
            let at = command.node()?;
            let away = match &g.action {
                // The side cut off: the smallest group.
                Action::Partition { groups, .. } => groups
                    .iter()
                    .min_by_key(|g| g.len())
                    .is_some_and(|g| g.iter().any(|n| n == at)),
                a => a.node() == Some(at),
            };
            if away {
                return None;
            }
            return Some(Fault {
                at: d,
                action: command,
                during: None,
                undo: None,
            });
        }
        _ => return None,
    }
    // The action in between stays after the fault and not after its undo (or a timed cut's
    // end).
    let undo_at = g
        .undo
        .as_ref()
        .map(|(u, _)| *u)
        .or(g.action.cut_for().map(|d| g.at + d.0));
    if let Some((d, _)) = &mut g.during {
        *d = (*d).max(g.at);
        if let Some(u) = undo_at {
            *d = (*d).min(u);
        }
    }
    (g != *f).then_some(g)
}

/// `command` with each drawn whole number ([`Arg::Int`]) halved towards its least, or `None`
/// when the command has none above it.
fn lower_numbers(command: &str, space: &Space) -> Option<String> {
    let mut words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    let verb = words.first()?.clone();
    let (_, args) = space
        .args
        .iter()
        .find(|(c, _)| c.split_whitespace().next() == Some(verb.as_str()))?;
    let mut changed = false;
    for (w, a) in words.iter_mut().skip(1).zip(args.iter()) {
        if let (Arg::Int { min, .. }, Ok(n)) = (a, w.parse::<u64>()) {
            if n > *min {
                *w = (min + (n - min) / 2).to_string();
                changed = true;
            }
        }
    }
    changed.then(|| words.join(" "))
}

/// `a` and a later `b` of the same action, at least one of them undone (a cut, a stall, a
/// lossy link: a state that lasts), as one fault: `a`'s start, the action in between of either
/// (not both), the later undo. `None` when they do not join, or the action in between would
/// fall outside the joined fault. Writing the action once, it is one action fewer; the state
/// lasts over any gap between `a`'s undo and `b`'s start (whether the failure needs that gap
/// is the re-run's to say).
fn join(a: &Fault, b: &Fault) -> Option<Fault> {
    if a.action != b.action || a.at > b.at || (a.undo.is_none() && b.undo.is_none()) {
        return None;
    }
    if a.during.is_some() && b.during.is_some() {
        return None;
    }
    let undo = match (&a.undo, &b.undo) {
        (Some(x), Some(y)) => Some(if y.0 >= x.0 { y.clone() } else { x.clone() }),
        (x, y) => x.clone().or(y.clone()),
    };
    let during = a.during.clone().or(b.during.clone());
    if let (Some((d, _)), Some((u, _))) = (&during, &undo) {
        if d > u {
            return None;
        }
    }
    Some(Fault {
        at: a.at,
        action: a.action.clone(),
        during,
        undo,
    })
}

/// Step 1d's candidates for `faults[i]`: when it cuts one node off alone and heals it with its
/// own `heal-all`, and another fault restarts or kills that node after the cut starts, the same
/// fault as a stall of each of the model's executors on that node (its command in between
/// kept), with no undo: the restart ends it. None otherwise.
fn as_stalls(faults: &[Fault], i: usize, scenario: &Scenario, space: &Space) -> Vec<Fault> {
    let f = &faults[i];
    let Some(x) = super::leader::cut_alone(&f.action, &scenario.topo.names) else {
        return Vec::new();
    };
    if !heals_all(f) {
        return Vec::new();
    }
    let restarted = faults.iter().enumerate().any(|(j, g)| {
        j != i
            && g.at >= f.at
            && matches!(&g.action, Action::Restart { node, .. } | Action::Kill { node } if node == x)
    });
    if !restarted {
        return Vec::new();
    }
    space
        .executors
        .iter()
        .map(|e| Fault {
            at: f.at,
            action: Action::Stall {
                node: x.to_string(),
                executor: e.clone(),
            },
            during: f.during.clone(),
            undo: None,
        })
        .collect()
}

/// The last step of a whole shrink ([`super::finish_by`], after the seed's): each cut and the
/// heal that ends only it written as one timed cut ([`as_timed_cut`]: one action fewer) where
/// the schedule still fails the same way on `seed`, then each timed cut's duration halved (not
/// below 1 ms) and rounded to 100 ms and to the second while it does. At most `budget` re-runs;
/// returns the schedule and the re-runs spent. It runs last, on the schedule the other steps
/// reached, so that it only takes actions away: run inside the loop, a timed cut changed which
/// removals the later steps found (Figure 8's hunt seed 2 ended at 8 actions instead of 7).
pub fn time_cuts(
    sh: &Shrinker,
    seed: u64,
    faults: &[Fault],
    budget: u32,
    progress: &mut dyn FnMut(u32, &[Fault]),
) -> (Vec<Fault>, u32) {
    let mut cur = faults.to_vec();
    let mut r = Reruns {
        seed,
        budget,
        spent: 0,
        open: None,
        progress,
    };
    for i in 0..cur.len() {
        let Some(g) = as_timed_cut(&cur, i) else {
            continue;
        };
        let mut next = cur.clone();
        next[i] = g;
        if !r.fails(sh, sh.scenario, &next, &cur, true) {
            continue;
        }
        cur = next;
        for step in [0, 3, 4] {
            r.simplify_while_failing(sh, sh.scenario, &mut cur, i, step, true, |_| true);
        }
    }
    (cur, r.spent)
}

/// [`time_cuts`]' candidate for `faults[i]`: when it is a cut (`drop-link` or `partition`, not timed)
/// whose undo is a heal that ends only that cut's links (a `heal-all` while no other fault's
/// link state, a cut, loss or latency, is in force; a `heal-link` of the same link while no
/// other fault's is), the same cut as one timed cut (`down_for` = the heal's time minus the
/// cut's), its action in between kept, without the heal. None otherwise.
pub fn as_timed_cut(faults: &[Fault], i: usize) -> Option<Fault> {
    let f = &faults[i];
    let (u, heal) = f.undo.as_ref()?;
    let ends_it = match (&f.action, heal) {
        (
            Action::DropLink { down_for: None, .. } | Action::Partition { down_for: None, .. },
            Action::HealAll {},
        ) => true,
        (
            Action::DropLink {
                from,
                to,
                one_way,
                down_for: None,
            },
            Action::HealLink {
                from: hf,
                to: ht,
                one_way: hw,
            },
        ) => from == hf && to == ht && one_way == hw,
        _ => false,
    };
    if !ends_it || *u <= f.at {
        return None;
    }
    // Another fault's link state in force at the heal: the heal ends it too.
    let links = |a: &Action| {
        matches!(
            a,
            Action::DropLink { .. }
                | Action::Partition { .. }
                | Action::SetLoss { .. }
                | Action::SetLatency { .. }
        )
    };
    let other = faults.iter().enumerate().any(|(j, g)| {
        j != i
            && g.actions().iter().any(|(t, a)| {
                if !links(a) || *t > *u {
                    return false;
                }
                // Ended before the heal: by its own undo or its own duration.
                let end = match (&g.undo, a.cut_for()) {
                    (_, Some(d)) => Some(t + d.0),
                    (Some((e, _)), None) if (*t, a) == (g.at, &g.action) => Some(*e),
                    _ => None,
                };
                end.is_none_or(|e| e >= *u)
            })
    });
    if other {
        return None;
    }
    let mut g = f.clone();
    match &mut g.action {
        Action::DropLink { down_for, .. } | Action::Partition { down_for, .. } => {
            *down_for = Some(Dur(u - f.at));
        }
        _ => return None,
    }
    g.undo = None;
    Some(g)
}

/// How many of `faults`' lasting states nothing ends: a link fault (a cut, a drop, loss,
/// latency) without its undo and with no `heal-all` after it, an executor stalled or delayed
/// without its release and with no restart or kill of its node after it (a restarted process
/// starts its executors afresh), a node stopped or killed without its start and with no start
/// after it. A fault's own undo ends it, wherever it falls.
fn left_open(faults: &[Fault]) -> usize {
    let later = |i: usize, ends: &dyn Fn(&Action) -> bool| {
        let at = faults[i].at;
        faults
            .iter()
            .enumerate()
            .any(|(j, g)| j != i && g.actions().iter().any(|(t, a)| *t >= at && ends(a)))
    };
    faults
        .iter()
        .enumerate()
        .filter(|(i, f)| {
            f.undo.is_none()
                && match &f.action {
                    // A timed cut ends itself.
                    Action::DropLink { .. } | Action::Partition { .. }
                        if f.action.cut_for().is_some() =>
                    {
                        false
                    }
                    Action::DropLink { .. }
                    | Action::SetLoss { .. }
                    | Action::SetLatency { .. }
                    | Action::Partition { .. } => !later(*i, &|a| matches!(a, Action::HealAll {})),
                    Action::Stall { node, .. } | Action::Delay { node, .. } => !later(*i, &|a| {
                        matches!(a, Action::Restart { node: n, .. } | Action::Kill { node: n }
                            if n == node)
                    }),
                    Action::Stop { node } | Action::Kill { node } => {
                        !later(*i, &|a| matches!(a, Action::Start { node: n } if n == node))
                    }
                    _ => false,
                }
        })
        .count()
}

/// Whether `f`'s undo heals every link.
fn heals_all(f: &Fault) -> bool {
    matches!(f.undo, Some((_, Action::HealAll {})))
}

/// Whether another fault of `faults` heals every link after `faults[i]` starts.
fn healed_later(faults: &[Fault], i: usize) -> bool {
    let at = faults[i].at;
    faults
        .iter()
        .enumerate()
        .any(|(j, f)| j != i && heals_all(f) && f.undo.as_ref().is_some_and(|(u, _)| *u > at))
}

/// How long a fault keeps its node down: a restart's `down_for`, a kill's time to its start.
fn down_time(f: &Fault) -> Option<Micros> {
    match (&f.action, &f.undo) {
        (Action::Restart { down_for, .. }, _) => Some(down_for.map_or(0, |d| d.0)),
        (Action::Kill { .. }, Some((u, Action::Start { .. }))) => Some(u - f.at),
        _ => None,
    }
}
