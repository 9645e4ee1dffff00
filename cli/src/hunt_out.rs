//! `clusterscope hunt`: the candidates of a `clusterscope_core::hunt::Plan` on this machine's
//! cores, in chunks: every candidate of a chunk runs, and the lowest-index failing one is the
//! result, so any `--jobs` gives the same counterexample. Then its shrink (one thread), the
//! schedule printed, written as a scenario file (`--out`) and linked into the app. A shard
//! (`--shard I/N`) writes a part; `clusterscope merge` of all parts gives what one hunt gives.

use crate::{cli_limits, emit, input_files, load, out_file, parse_shard, threads, Bad};
use clusterscope_core::hunt::{
    self, Budget, Candidate, Found, Kind, Part, Plan, Runner, Space, Target,
};
use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::{ScenarioRef, Session, MAX_PERMALINK_CHARS};
use clusterscope_core::time::fmt_duration;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct HuntArgs {
    /// A built-in scenario name, or a path to a .toml scenario file.
    scenario: String,
    #[arg(long)]
    variant: Option<String>,
    /// Override a parameter for every run (e.g. the buggy one: --set commit_rule=count-replicas).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Hunt for a run where this expectation (its exact name) fails.
    #[arg(
        long = "break",
        value_name = "EXPECTATION NAME",
        conflicts_with = "invariants"
    )]
    break_: Option<String>,
    /// Hunt for a run where a safety invariant of the model breaks (Raft, Ozone).
    #[arg(long)]
    invariants: bool,
    /// How many candidate runs (`10000runs`, the same result on every machine), or how long
    /// (`60s`, `5m`: the candidates done in that time, so the result may differ by machine and
    /// load).
    #[arg(long, default_value = "10000runs")]
    budget: String,
    /// The fault kinds to draw from (each run enables a random subset of them), or presets:
    /// all (every kind but leader), recoverable (all but command and leader), network
    /// (drop,loss,partition,delay), crash (partition,restart,kill,command,leader). `leader`:
    /// faults aimed at the node that leads when they fire (models with a leader).
    #[arg(long, default_value = "all")]
    faults: String,
    /// Most faults one run draws (1 to 64).
    #[arg(long, default_value_t = hunt::MAX_FAULTS)]
    max_faults: usize,
    /// Worker threads, 1 to 256 (default: one per core). The result does not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only shard I of N (candidates I, I+N, ...) and write a part for `clusterscope merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// The hunt's own seed: it draws every candidate's seed and fault schedule.
    #[arg(long, default_value_t = 1)]
    hunt_seed: u64,
    /// Most re-runs the shrink spends on the found seed; trying other seeds may spend as many
    /// again, five times as many while the schedule has more than 5 actions (at most 6x in all).
    #[arg(long, default_value_t = hunt::SHRINK_RERUNS)]
    shrink_reruns: u32,
    /// Write the counterexample as a scenario file (with a shard: its part, JSON).
    #[arg(long, value_name = "FOUND.toml")]
    out: Option<String>,
    /// Replace --out if it exists (the scenario file is never replaced).
    #[arg(long)]
    force: bool,
    /// Where the app is served, for the permalink.
    #[arg(long, default_value = "http://127.0.0.1:8080/")]
    base_url: String,
}

/// Candidates per chunk and thread: a chunk's candidates all run before the lowest failing
/// one is taken.
const CHUNK_PER_THREAD: usize = 4;

/// The CLI's runner: a panic of the model in a run is caught (`catch_unwind`, its message kept
/// from stderr) and is a counterexample, "the model panicked: ...", shrunk like any failure
/// (issue 43: a Raft panic used to end a whole hunt with exit 101).
pub struct Catching;

impl Runner for Catching {
    fn guard(&self, f: &mut dyn FnMut()) -> Result<(), String> {
        // "panicked at core/src/x.rs:1:2: message" -> "message (at core/src/x.rs:1:2)".
        crate::sweep_out::catch(f).map_err(|text| {
            match text
                .strip_prefix("panicked at ")
                .and_then(|t| t.split_once(": "))
            {
                Some((place, msg)) => format!("{} (at {place})", msg.trim()),
                None => text,
            }
        })
    }
}

/// Run the candidates `ids` in chunks until one fails or the deadline passes; the lowest-index
/// failing candidate of the first chunk that has one (and whether it panicked), and the
/// candidates run.
#[allow(clippy::too_many_arguments)]
fn search(
    runner: &dyn Runner,
    s: &Scenario,
    plan: &Plan,
    space: &Space,
    ids: (u64, u64, u64),
    threads: usize,
    deadline: Option<Instant>,
    limits: &Limits,
) -> (u64, u64, Option<(Candidate, bool)>) {
    let bar = match deadline {
        _ if !std::io::stderr().is_terminal() => indicatif::ProgressBar::hidden(),
        Some(_) => indicatif::ProgressBar::new_spinner(),
        None => indicatif::ProgressBar::new((ids.2.saturating_sub(ids.0)).div_ceil(ids.1)),
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} hunt: runs {pos}/{len} {per_sec} {msg} eta {eta}",
        )
        .expect("template"),
    );
    let invalid = AtomicU64::new(0);
    let mut done = 0u64;
    let chunk = threads * CHUNK_PER_THREAD;
    let (first, step, end) = ids;
    let mut at = first;
    while at < end {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let part: Vec<u64> = (at..end).step_by(step as usize).take(chunk).collect();
        at = part.last().map_or(end, |l| l + step);
        let next = AtomicU64::new(0);
        let found: Mutex<Vec<(Candidate, bool)>> = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..threads.min(part.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if i >= part.len() {
                        break;
                    }
                    let (c, v) = hunt::run_candidate_by(runner, s, plan, space, part[i], limits);
                    match v {
                        hunt::Verdict::Found(_) => found
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((c, hunt::panicked(&v))),
                        hunt::Verdict::Invalid(_) => {
                            invalid.fetch_add(1, Ordering::Relaxed);
                        }
                        hunt::Verdict::Held => {}
                    }
                    bar.inc(1);
                });
            }
        });
        done += part.len() as u64;
        bar.set_message(format!(
            "({} invalid schedules)",
            invalid.load(Ordering::Relaxed)
        ));
        let found = found.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = found.into_iter().min_by_key(|(c, _)| c.index) {
            bar.finish_and_clear();
            return (done, invalid.into_inner(), Some(c));
        }
    }
    bar.finish_and_clear();
    (done, invalid.into_inner(), None)
}

pub fn hunt(a: HuntArgs) -> Result<bool, Bad> {
    let s = load(&a.scenario)?;
    let limits = cli_limits()?;
    let variant = a
        .variant
        .clone()
        .unwrap_or_else(|| clusterscope_core::Run::default_variant(&s));
    let set = crate::overrides(&a.set)?;
    let target = match (&a.break_, a.invariants) {
        (Some(n), false) => Target::Expectation(n.clone()),
        (None, true) => Target::Invariants,
        _ => {
            let names = clusterscope_core::sweep::expectation_names(&s, &variant).map_err(Bad)?;
            return Err(Bad(format!(
                "hunt: say what to look for: --invariants, or --break \"NAME\" with one of {} \
                 [{variant}]'s expectations: {}",
                s.raw.name,
                names
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    };
    let kinds = Kind::parse_list(&a.faults).map_err(Bad)?;
    let budget = Budget::parse(&a.budget).map_err(Bad)?;
    let runs = match budget {
        Budget::Runs(n) => n,
        Budget::Time(_) => hunt::MAX_RUNS,
    };
    let threads = threads(a.jobs)?;
    let shard = a.shard.as_deref().map(parse_shard).transpose()?;
    let inputs = input_files(&[a.scenario.as_str()]);
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let out = a.out.as_deref().map(|path| out_file::Target {
        flag: "--out",
        path,
        force: a.force,
        inputs: &inputs,
    });
    if let Some(t) = &out {
        t.check().map_err(Bad)?;
    }
    let mut plan = Plan::new(
        &s,
        &variant,
        &set,
        target,
        kinds,
        a.hunt_seed,
        runs,
        &limits,
    )
    .and_then(|p| p.with_max_faults(a.max_faults))
    .map_err(Bad)?;
    plan.shrink_reruns = a.shrink_reruns;
    let space = Space::of(&s, &plan, &limits).map_err(Bad)?;
    // Candidates first, first + step, ... below runs (a time budget: until the deadline).
    let ids = match shard {
        Some((i, n)) => (i, n, runs),
        None => (0, 1, runs),
    };
    let deadline = match budget {
        Budget::Time(us) => Some(Instant::now() + Duration::from_micros(us)),
        Budget::Runs(_) => None,
    };
    eprintln!(
        "hunt: {} [{variant}]: {} (faults: {}; hunt seed {}{})",
        s.raw.name,
        plan.target.describe(),
        plan.kinds
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(","),
        plan.hunt_seed,
        match shard {
            Some((i, n)) => format!("; shard {i}/{n}"),
            None => String::new(),
        }
    );
    if shard.is_some() && matches!(budget, Budget::Time(_)) {
        return Err(Bad(
            "--shard with a time --budget: shards of one hunt must share a number of runs \
             (--budget 100000runs) for their merge to be one hunt's result"
                .into(),
        ));
    }
    let started = Instant::now();
    let (done, invalid, cand) = search(
        &Catching, &s, &plan, &space, ids, threads, deadline, &limits,
    );
    let secs = started.elapsed().as_secs_f64();
    let found = cand.map(|(c, panicked)| {
        eprintln!(
            "hunt: run {} (seed {}) {} after {done} runs in {secs:.1} s; shrinking its {} \
             actions...",
            c.index + 1,
            c.seed,
            if panicked { "panics" } else { "fails" },
            hunt::actions(&c.faults).len()
        );
        // Best so far, on a terminal only: the re-runs and the smallest failing schedule.
        let bar = if std::io::stderr().is_terminal() {
            indicatif::ProgressBar::new_spinner()
        } else {
            indicatif::ProgressBar::hidden()
        };
        let began = Instant::now();
        let f = hunt::finish_by(
            &Catching,
            &s,
            &plan,
            &space,
            c,
            panicked,
            true,
            &limits,
            &mut |reruns, best| {
                bar.set_message(shrink_status(
                    reruns,
                    hunt::most_reruns(&plan),
                    began.elapsed().as_secs_f64(),
                    best,
                ));
                bar.tick();
            },
        );
        bar.finish_and_clear();
        f
    });
    if let Some((i, n)) = shard {
        let part = Part {
            clusterscope_hunt_part: hunt::PART_VERSION,
            plan,
            shard: (i, n),
            runs_done: done,
            found,
        };
        let json = serde_json::to_string(&part).expect("json") + "\n";
        match &out {
            Some(t) => t.write(json.as_bytes()).map_err(Bad)?,
            None => emit(&json)?,
        }
        return Ok(true);
    }
    report(
        &s,
        &plan,
        done,
        Some((invalid, secs)),
        found.as_ref(),
        out.as_ref(),
        &a.base_url,
        &a.scenario,
    )
}

/// Print the result (and write `--out`): exit 1 (Ok(false)) when a counterexample was found.
/// `measured`: the schedules that could not apply and the seconds, known to a hunt and not to
/// a merge (a part records neither), which then says "in all shards" instead.
#[allow(clippy::too_many_arguments)]
fn report(
    s: &Scenario,
    plan: &Plan,
    done: u64,
    measured: Option<(u64, f64)>,
    found: Option<&Found>,
    out: Option<&out_file::Target>,
    base_url: &str,
    spec: &str,
) -> Result<bool, Bad> {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} [{}]: {}",
        s.raw.name,
        plan.variant,
        plan.target.describe()
    );
    let Some(f) = found else {
        let _ = match measured {
            Some((invalid, secs)) => writeln!(
                o,
                "  not found in {done} runs ({invalid} with a schedule that could not apply), \
                 {secs:.1} s"
            ),
            None => writeln!(o, "  not found in {done} runs"),
        };
        emit(&o)?;
        return Ok(true);
    };
    let _ = write!(
        o,
        "  FOUND at run {} of the hunt (seed {}), after {done} runs",
        f.index + 1,
        f.found_seed.unwrap_or(f.seed)
    );
    let _ = match measured {
        Some((_, secs)) => writeln!(o, ", {secs:.1} s"),
        None => writeln!(o, " in all shards"),
    };
    let _ = writeln!(o, "  what failed: {}", f.detail);
    let _ = writeln!(
        o,
        "  schedule as generated ({} actions):",
        hunt::actions(&f.original).len()
    );
    for (t, act) in hunt::actions(&f.original) {
        let _ = writeln!(o, "    {:>10}  {}", fmt_duration(t), act.describe());
    }
    let _ = writeln!(
        o,
        "  shrunk ({} actions{}, {} re-runs{}):",
        hunt::actions(&f.shrunk).len(),
        match hunt::actions(&f.shrunk)
            .iter()
            .filter(|(_, a)| a.cut_for().is_some())
            .count()
        {
            0 => String::new(),
            1 => ", 1 of them a timed cut (starts and ends a cut)".into(),
            n => format!(", {n} of them timed cuts (each starts and ends a cut)"),
        },
        f.reruns,
        match f.found_seed {
            Some(_) => format!(", on seed {}", f.seed),
            None => String::new(),
        }
    );
    for (t, act) in hunt::actions(&f.shrunk) {
        let _ = writeln!(o, "    {:>10}  {}", fmt_duration(t), act.describe());
    }
    if let Some(k) = f.nodes {
        let _ = writeln!(
            o,
            "  on fewer nodes: the first {k} of {} ({})",
            s.topo.names.len(),
            s.topo.names[..k.min(s.topo.names.len())].join(", ")
        );
    }
    let text = hunt::found_scenario(s, plan, f).map_err(Bad)?;
    if let Some(t) = out {
        t.write(text.as_bytes()).map_err(Bad)?;
        let _ = writeln!(
            o,
            "  written to {}: clusterscope run {} --variant {}",
            t.path, t.path, plan.variant
        );
    }
    let link = Session::new(ScenarioRef::Custom(text), plan.variant.clone(), f.seed).encode();
    if link.len() <= MAX_PERMALINK_CHARS {
        let _ = writeln!(o, "  open it in the app: {base_url}#s={link}");
    } else {
        let _ = writeln!(o, "  (too long for a link; run the --out file) from {spec}");
    }
    emit(&o)?;
    Ok(false)
}

/// `clusterscope merge` of hunt parts: `None` when the first file is not a hunt part (a sweep's
/// merge then reads them).
pub fn try_merge(parts: &[String], base_url: &str) -> Result<Option<bool>, Bad> {
    let Some(first) = parts.first() else {
        return Ok(None);
    };
    let text = crate::read_part(first)?;
    if !text.contains("\"clusterscope_hunt_part\"") {
        return Ok(None);
    }
    let mut read = Vec::new();
    for f in parts {
        let text = crate::read_part(f)?;
        let p: Part = serde_json::from_str(&text).map_err(|e| {
            Bad(format!(
                "{f}: not a hunt part (written by `clusterscope hunt --shard i/n`): {e}"
            ))
        })?;
        read.push((f.clone(), p));
    }
    let (plan, done, found) = hunt::merge(&read).map_err(Bad)?;
    let s = clusterscope_core::scenario::builtin::get(&plan.scenario)
        .ok()
        .filter(|b| clusterscope_core::sweep::digest(b).as_ref() == Ok(&plan.scenario_digest))
        .ok_or_else(|| {
            Bad(format!(
                "merge: the hunt ran on a scenario file named {}, not the built-in one; the \
                 parts hold the schedule: each part's `found.shrunk`",
                plan.scenario
            ))
        });
    match (s, &found) {
        (Ok(s), _) => report(
            &s,
            &plan,
            done,
            None,
            found.as_ref(),
            None,
            base_url,
            &plan.scenario,
        )
        .map(Some),
        (Err(_), None) => {
            emit(&format!(
                "{} [{}]: {}\n  not found in {done} runs\n",
                plan.scenario,
                plan.variant,
                plan.target.describe()
            ))?;
            Ok(Some(true))
        }
        (Err(e), Some(_)) => Err(e),
    }
}

/// The shrink's progress line on a terminal: re-runs of the bound, re-runs/s and the smallest
/// schedule that still fails so far (its actions, the first few written out).
pub fn shrink_status(reruns: u32, bound: u32, secs: f64, best: &[hunt::Fault]) -> String {
    let acts = hunt::actions(best);
    let mut shown: Vec<String> = acts
        .iter()
        .take(4)
        .map(|(t, a)| {
            format!(
                "{} {}",
                clusterscope_core::time::fmt_duration(*t),
                a.describe()
            )
        })
        .collect();
    if acts.len() > 4 {
        shown.push(format!("+{} more", acts.len() - 4));
    }
    let rate = if secs > 0.0 {
        format!(", {:.0} re-runs/s", reruns as f64 / secs)
    } else {
        String::new()
    };
    format!(
        "shrinking: re-run {reruns} of at most {bound}{rate}; best so far {} action{}: {}",
        acts.len(),
        if acts.len() == 1 { "" } else { "s" },
        shown.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clusterscope_core::engine::action::Action;

    /// A model with a planted bug: any run whose schedule kills n2 panics (an index out of
    /// bounds), caught like a real model's panic by [`Catching`].
    struct Planted;

    impl Runner for Planted {
        fn guard(&self, f: &mut dyn FnMut()) -> Result<(), String> {
            Catching.guard(f)
        }

        fn run(
            &self,
            s: &Scenario,
            plan: &Plan,
            seed: u64,
            faults: &[hunt::Fault],
            limits: &Limits,
        ) -> hunt::Verdict {
            let mut v = None;
            let r = self.guard(&mut || {
                if faults
                    .iter()
                    .any(|f| matches!(&f.action, Action::Kill { node } if node == "n2"))
                {
                    let none: Vec<u32> = Vec::new();
                    let _ = none[faults.len()]; // the planted bug
                }
                v = Some(hunt::try_run(s, plan, seed, faults, limits));
            });
            match r {
                Ok(()) => v.expect("ran"),
                Err(m) => hunt::Verdict::Found(format!("{}{m}", hunt::PANICKED)),
            }
        }
    }

    /// Issue 43: a panic in a candidate run does not end the hunt; it is the counterexample,
    /// "the model panicked: ...", shrunk (a re-run that panics still fails) to the one fault
    /// that panics, written as a scenario, exit 1; the same on 1 and 2 threads.
    #[test]
    fn a_panicking_run_is_found_and_shrunk_to_the_fault_that_panics() {
        let s = clusterscope_core::scenario::builtin::get("sandbox-pingpong").unwrap();
        let l = Limits::default();
        let plan = Plan::new(
            &s,
            "sandbox",
            &toml::Table::new(),
            Target::Expectation("the balls keep moving".into()),
            vec![Kind::Kill, Kind::Drop],
            3,
            200,
            &l,
        )
        .unwrap();
        let space = Space::of(&s, &plan, &l).unwrap();
        let (_, _, one) = search(&Planted, &s, &plan, &space, (0, 1, 200), 1, None, &l);
        let (_, _, two) = search(&Planted, &s, &plan, &space, (0, 1, 200), 2, None, &l);
        let (c, panicked) = one.expect("a panicking run is found");
        assert_eq!(two.map(|(c, p)| (c.index, p)), Some((c.index, panicked)));
        assert!(panicked, "{c:?}");
        let kills_n2 = |f: &hunt::Fault| matches!(&f.action, Action::Kill { node } if node == "n2");
        assert!(c.faults.iter().any(kills_n2));
        assert!(c.faults.len() > 1, "nothing to shrink: {c:?}");
        let f = hunt::finish_by(
            &Planted,
            &s,
            &plan,
            &space,
            c,
            true,
            true,
            &l,
            &mut |_, _| {},
        );
        assert_eq!(f.shrunk.len(), 1, "{:?}", f.shrunk);
        // n2 is killed: the first two nodes panic, the first one alone does not.
        assert_eq!(f.nodes, Some(2));
        assert!(kills_n2(&f.shrunk[0]), "{:?}", f.shrunk);
        assert!(
            f.detail
                .starts_with("the model panicked: index out of bounds")
                && f.detail.contains("(at cli/src/hunt_out.rs:"),
            "{}",
            f.detail
        );
        let dir = std::env::temp_dir().join(format!("cs-hunt-panic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("found.toml");
        let path = path.to_str().unwrap();
        let out = out_file::Target {
            flag: "--out",
            path,
            force: false,
            inputs: &[],
        };
        let clean = report(&s, &plan, 7, Some((0, 0.1)), Some(&f), Some(&out), "", "x");
        assert!(matches!(clean, Ok(false)), "a found panic exits 1");
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            text.contains("# What failed: the model panicked: index out of bounds")
                && text.contains("kill")
                && text.contains("\"n2\""),
            "{text}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The real runner: a run that does not panic gives the same verdict as core's.
    #[test]
    fn the_catching_runner_agrees_with_core_when_nothing_panics() {
        let s = clusterscope_core::scenario::builtin::get("sandbox-pingpong").unwrap();
        let l = Limits::default();
        let plan = Plan::new(
            &s,
            "sandbox",
            &toml::Table::new(),
            Target::Expectation("the balls keep moving".into()),
            vec![Kind::Kill, Kind::Drop],
            3,
            20,
            &l,
        )
        .unwrap();
        let space = Space::of(&s, &plan, &l).unwrap();
        for i in 0..5 {
            assert_eq!(
                hunt::run_candidate_by(&Catching, &s, &plan, &space, i, &l),
                hunt::run_candidate(&s, &plan, &space, i, &l)
            );
        }
    }

    #[test]
    fn the_shrink_status_names_the_reruns_the_rate_and_the_best_schedule() {
        let kill = |at: u64, n: &str| hunt::Fault {
            at,
            action: Action::Kill { node: n.into() },
            during: None,
            undo: Some((at + 5_000_000, Action::Start { node: n.into() })),
        };
        let line = shrink_status(32, 400, 2.0, &[kill(43_000_000, "A")]);
        assert_eq!(
            line,
            "shrinking: re-run 32 of at most 400, 16 re-runs/s; best so far 2 actions: \
             43s kill -9 A, 48s start A"
        );
        let many: Vec<_> = (0..3).map(|i| kill(i * 1_000_000, "B")).collect();
        let line = shrink_status(1, 400, 0.0, &many);
        assert!(line.starts_with("shrinking: re-run 1 of at most 400; best so far 6 actions: "));
        assert!(line.ends_with(", +2 more"), "{line}");
    }
}
