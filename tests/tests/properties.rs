//! Property tests: random user actions, sensible and nonsense, at random times, against small
//! gossip runs (`Run` with checkpointing, as the web app drives it).
//!
//! After every step or action:
//! - nothing panics; an action the engine refuses returns `Err` with a message and changes
//!   nothing (state hash, step count, trace length, frontier); an oracle written here from the
//!   documented rules predicts which actions are refused, and the engine must agree;
//! - invariants over the public state and the trace hold (see [`Checker`]);
//! - jumping back to an earlier step and forward again reproduces the same state hash, and a
//!   fresh run replaying the recorded user actions reaches the same hash;
//! - with echo `fixed` or `legacy`, once every fault is healed and 3 virtual minutes pass, no
//!   running node sees another running node DOWN.
//!
//! Case counts. Defaults: 10,000 sequences in all, about 25 s in `cargo test` on two cores
//! (`random_actions_keep_invariants` 5,500, `acting_in_the_past_keeps_invariants` 3,500,
//! `healed_cluster_converges` 1,000). More: `CLUSTERSCOPE_PROPTEST_CASES=N` runs N cases in *each*
//! property (`PROPTEST_CASES` is honoured too when ours is unset), e.g.
//!
//! ```text
//! CLUSTERSCOPE_PROPTEST_CASES=200000 cargo test --release -p clusterscope-tests --test properties
//! ```
//!
//! A failure prints the seed proptest used and the shrunk list of operations, each as the wait
//! before it and the action in the JSON a permalink or `[[faults]]` entry uses.

use clusterscope_core::engine::action::{Action, Dur};
use clusterscope_core::engine::trace::TraceHash;
use clusterscope_core::engine::{NodeStatus, Protocol, SimError};
use clusterscope_core::gossip::{view, Gossip};
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::{builtin, Scenario};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

const US_PER_MS: u64 = 1_000;
const US_PER_S: u64 = 1_000_000;
/// Bound on steps for one `run_until`: far above what a minute of a 4-node cluster takes, so
/// reaching it means the engine is spinning (reported, not hung).
const MAX_STEPS: u64 = 5_000_000;

// ---------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------

/// Three nodes, no scheduled faults, every echo variant.
const QUIET3: &str = r#"
name = "prop-quiet3"
title = "Property tests: three quiet nodes"
protocol = "gossip"
duration = "1h"
[cluster]
nodes = [{ name = "A" }, { name = "B" }, { name = "C" }]
[network]
latency_min = "200us"
latency_max = "2ms"
[[variants]]
name = "buggy"
params = { echo = "buggy" }
[[variants]]
name = "legacy"
params = { echo = "legacy" }
[[variants]]
name = "fixed"
params = { echo = "fixed" }
"#;

/// Four nodes in two DCs with the connection model and a light client load on A.
const CONN4: &str = r#"
name = "prop-conn4"
title = "Property tests: four nodes with connections and client load"
protocol = "gossip"
duration = "1h"
[cluster]
nodes = [{ name = "A" }, { name = "B", dc = "dc2" }, { name = "C" }, { name = "D", dc = "dc2" }]
[network]
latency_min = "200us"
latency_max = "1ms"
[params]
connections = true
client_rate = 5.0
client_coordinator = "A"
[[variants]]
name = "v4-fixed"
params = { echo = "fixed", messaging = "4.0" }
[[variants]]
name = "v3-legacy"
params = { echo = "legacy", messaging = "3.x" }
[[variants]]
name = "v3-both-fixes"
params = { echo = "buggy", messaging = "3.x", fix_sender = true, fix_shutdown = true }
"#;

/// Parsed once; every case clones.
fn scenarios() -> &'static [Scenario] {
    static S: OnceLock<Vec<Scenario>> = OnceLock::new();
    S.get_or_init(|| {
        let l = Limits::default();
        vec![
            Scenario::parse("prop-quiet3.toml", QUIET3, &l).unwrap(),
            builtin::get("cassandra-21636-packet-loss").unwrap(),
            Scenario::parse("prop-conn4.toml", CONN4, &l).unwrap(),
        ]
    })
}

fn new_run(scenario: usize, variant: &str, seed: u64) -> Run {
    Run::new(
        scenarios()[scenario].clone(),
        variant,
        Some(seed),
        &toml::Table::new(),
        &RunOptions {
            checkpointing: true,
            body_budget: 0,
            limits: Limits::default(),
        },
    )
    .unwrap_or_else(|e| panic!("Run::new: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Operations and their generators
// ---------------------------------------------------------------------------------------------

/// One thing a user does: wait, then act (or scrub).
#[derive(Clone)]
enum Op {
    /// Run `wait_ms` of virtual time, then apply the action.
    Act { wait_ms: u64, action: Action },
    /// Jump back to `permille`/1000 of the frontier, compare hashes, and jump forward again.
    Rewind { permille: u16 },
    /// Jump back to `permille`/1000 of the frontier and apply the action there (discarding the
    /// old future if it is accepted).
    ActInPast { permille: u16, action: Action },
}

/// The action as the JSON of a permalink or a `[[faults]]` entry: durations read "5s", not
/// `Dur(5000000)`. Non-finite losses print as `null` there, so the Debug form follows.
struct Readable<'a>(&'a Action);

impl fmt::Debug for Readable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let json = serde_json::to_string(self.0).unwrap_or_else(|e| format!("<{e}>"));
        match self.0 {
            Action::SetLoss { loss, .. } if !loss.is_finite() => {
                write!(f, "{json} (loss = {loss})")
            }
            _ => f.write_str(&json),
        }
    }
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Op::Act { wait_ms, action } => write!(f, "after {wait_ms} ms: {:?}", Readable(action)),
            Op::Rewind { permille } => write!(f, "rewind to {permille}/1000 and back"),
            Op::ActInPast { permille, action } => {
                write!(f, "at {permille}/1000 of the past: {:?}", Readable(action))
            }
        }
    }
}

/// Mostly real names (A..D; D is unknown in 3-node scenarios), sometimes nonsense.
fn node_name() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => prop::sample::select(vec!["A", "B", "C"]).prop_map(String::from),
        2 => Just("D".to_string()),
        1 => prop::sample::select(vec!["Z", "", "a", "A ", "A,B", "node1"]).prop_map(String::from),
    ]
}

fn executor() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => Just("GossipStage".to_string()),
        2 => prop::sample::select(vec!["RequestStage", "MutationStage", "gossipstage"])
            .prop_map(String::from),
        1 => prop::sample::select(vec!["NoSuchStage", "", "Gossip Stage"]).prop_map(String::from),
    ]
}

/// Durations from zero to far beyond every limit (u64::MAX is "-1" read as unsigned).
fn duration(max_sensible_us: u64) -> impl Strategy<Value = Dur> {
    let h = 3600 * US_PER_S;
    prop_oneof![
        6 => (0..=max_sensible_us).prop_map(Dur),
        1 => prop::sample::select(vec![
            0,
            1,
            h,
            h + 1,
            6 * h,
            6 * h + 1,
            u64::MAX / 2,
            u64::MAX - 1,
            u64::MAX,
        ])
        .prop_map(Dur),
    ]
}

fn loss() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => 0.0..=1.0f64,
        2 => prop::sample::select(vec![0.0, 1.0, 0.95]),
        1 => prop::sample::select(vec![2.0, -0.5, 1.0000001, f64::NAN, f64::INFINITY, -0.0]),
    ]
}

fn command() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        "disablegossip",
        "enablegossip",
        "  disablegossip  ",
        "settimeout misc 30000",
        "settimeout misc 1",
        "settimeout misc 0",
        "settimeout misc 3600001",
        "settimeout misc abc",
        "settimeout misc -5",
        "settimeout misc 99999999999999999999999",
        "settimeout misc",
        "settimeout read 100",
        "send-syn",
        "send-syn Z",
        "DISABLEGOSSIP",
        "explode",
        "",
        "nodetool drain",
    ])
    .prop_map(String::from);
    prop_oneof![
        4 => prop::sample::select(vec!["disablegossip", "enablegossip"]).prop_map(String::from),
        2 => node_name().prop_map(|n| format!("send-syn {n}")),
        1 => (1u64..=60_000).prop_map(|ms| format!("settimeout misc {ms}")),
        3 => fixed,
    ]
}

/// Extra per-task delay. With `Some(max)` only up to `max`: a task already in service keeps its
/// delay after `release` (a stuck thread is not interrupted), so the healing property must not
/// leave the GossipStage busy for an hour.
fn delay(max_us: Option<u64>) -> BoxedStrategy<Dur> {
    match max_us {
        Some(max) => (0..=max).prop_map(Dur).boxed(),
        None => duration(2 * US_PER_S).boxed(),
    }
}

/// Every kind of action, with fields drawn from sensible and nonsense values (`max_delay_us`:
/// see [`delay`]).
fn action(max_delay_us: Option<u64>) -> impl Strategy<Value = Action> {
    let link = || (node_name(), node_name(), any::<bool>());
    prop_oneof![
        3 => link().prop_map(|(from, to, one_way)| Action::DropLink { from, to, one_way, down_for: None }),
        2 => link().prop_map(|(from, to, one_way)| Action::HealLink { from, to, one_way }),
        2 => (link(), loss()).prop_map(|((from, to, one_way), loss)| Action::SetLoss {
            from,
            to,
            loss,
            one_way
        }),
        2 => (link(), duration(50 * US_PER_MS), duration(500 * US_PER_MS)).prop_map(
            |((from, to, one_way), min, max)| Action::SetLatency {
                from,
                to,
                min,
                max,
                one_way
            }
        ),
        2 => prop::collection::vec(prop::collection::vec(node_name(), 0..3), 0..4)
            .prop_map(|groups| Action::Partition { groups, down_for: None }),
        2 => Just(Action::HealAll {}),
        3 => node_name().prop_map(|node| Action::Stop { node }),
        3 => node_name().prop_map(|node| Action::Kill { node }),
        4 => node_name().prop_map(|node| Action::Start { node }),
        3 => (
            node_name(),
            any::<bool>(),
            prop::option::of(duration(20 * US_PER_S))
        )
            .prop_map(|(node, kill, down_for)| Action::Restart {
                node,
                kill,
                down_for
            }),
        2 => (node_name(), executor()).prop_map(|(node, executor)| Action::Stall { node, executor }),
        2 => (node_name(), executor(), delay(max_delay_us)).prop_map(
            |(node, executor, extra)| Action::Delay {
                node,
                executor,
                extra
            }
        ),
        2 => (node_name(), executor())
            .prop_map(|(node, executor)| Action::Release { node, executor }),
        5 => (node_name(), command()).prop_map(|(node, command)| Action::Command { node, command }),
    ]
}

/// Waits: often none (several actions at one instant), mostly under a few seconds.
fn wait_ms(max_ms: u64) -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => Just(0u64),
        5 => 1..=3_000u64,
        1 => 3_000..=max_ms,
    ]
}

fn act_op(max_wait_ms: u64, max_delay_us: Option<u64>) -> impl Strategy<Value = Op> {
    (wait_ms(max_wait_ms), action(max_delay_us))
        .prop_map(|(wait_ms, action)| Op::Act { wait_ms, action })
}

fn ops_with_rewinds() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        8 => act_op(20_000, None),
        1 => (0u16..=1000).prop_map(|permille| Op::Rewind { permille }),
    ];
    prop::collection::vec(op, 1..8)
}

fn ops_in_past() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        4 => act_op(10_000, None),
        2 => ((0u16..=1000), action(None))
            .prop_map(|(permille, action)| Op::ActInPast { permille, action }),
        1 => (0u16..=1000).prop_map(|permille| Op::Rewind { permille }),
    ];
    prop::collection::vec(op, 1..7)
}

/// (scenario index, variant) pairs the robustness properties draw from.
fn any_case() -> impl Strategy<Value = (usize, &'static str)> {
    prop::sample::select(vec![
        (0, "buggy"),
        (0, "legacy"),
        (0, "fixed"),
        (1, "buggy"),
        (1, "fixed"),
        (2, "v4-fixed"),
        (2, "v3-legacy"),
        (2, "v3-both-fixes"),
    ])
}

#[path = "properties/checker.rs"]
mod checker;
#[path = "properties/oracle.rs"]
mod oracle;

use checker::Checker;
use oracle::must_refuse;

// ---------------------------------------------------------------------------------------------
// Driving a run
// ---------------------------------------------------------------------------------------------

fn snapshot(run: &Run) -> (TraceHash, u64, usize, u64, usize) {
    let e = &run.engine;
    (
        e.hash(),
        e.steps(),
        e.trace().recs.len(),
        e.frontier(),
        e.user_actions().len(),
    )
}

fn limit_is_bug(e: SimError) -> String {
    format!("the engine failed while stepping: {e}")
}

/// Advance to `t`; failing if the engine errs or spins.
fn advance(run: &mut Run, t: u64) -> Result<(), String> {
    let n = run.engine.run_until(t, MAX_STEPS).map_err(limit_is_bug)?;
    if n >= MAX_STEPS {
        return Err(format!("more than {MAX_STEPS} steps before {t} us"));
    }
    Ok(())
}

/// Apply one action now, checking the oracle and that a refusal changes nothing.
/// Returns whether it was accepted.
fn apply(run: &mut Run, a: &Action) -> Result<bool, String> {
    let predicted = must_refuse(run, a);
    let before = snapshot(run);
    let past = run.engine.steps() < run.engine.frontier();
    let r = run.engine.apply_user_action(a.clone());
    match (r, predicted) {
        (Ok(()), None) => {
            let (_, steps, ..) = snapshot(run);
            if steps != before.1 + 1 {
                return Err(format!(
                    "an accepted action took {} steps",
                    steps - before.1
                ));
            }
            if !past && run.engine.trace().actions.last().map(|x| &x.action) != Some(a) {
                return Err("an accepted action is not last in the action log".into());
            }
            Ok(true)
        }
        (Err(SimError::Action(msg)), Some(_)) => {
            if msg.trim().is_empty() {
                return Err("a refusal with an empty message".into());
            }
            if snapshot(run) != before {
                return Err(format!(
                    "a refused action changed the run ({msg}): {before:?} -> {:?}",
                    snapshot(run)
                ));
            }
            Ok(false)
        }
        (Ok(()), Some(why)) => Err(format!("accepted although it must be refused ({why})")),
        (Err(e), None) => Err(format!("refused although it is valid: {e}")),
        (Err(e), Some(_)) => Err(format!("refused with the wrong kind of error: {e:?}")),
    }
}

/// The state hash at the steps where it was observed on the current timeline.
type Hashes = BTreeMap<u64, TraceHash>;

fn observe(run: &Run, hashes: &mut Hashes) {
    hashes.insert(run.engine.steps(), run.engine.hash());
}

fn jump(run: &mut Run, step: u64) -> Result<(), String> {
    run.engine
        .jump_to_step(step)
        .map_err(|e| format!("jump to {step}: {e}"))?;
    if run.engine.steps() != step {
        return Err(format!("jump to {step} ended at {}", run.engine.steps()));
    }
    Ok(())
}

/// Jump to `permille` of the frontier, then to an observed step, then back to the frontier:
/// every hash must be the one seen before.
fn rewind_and_return(run: &mut Run, permille: u16, hashes: &Hashes) -> Result<(), String> {
    let frontier = run.engine.frontier();
    let (end_steps, end_hash) = (run.engine.steps(), run.engine.hash());
    let target = frontier * permille as u64 / 1000;
    jump(run, target)?;
    if let Some(h) = hashes.get(&target) {
        if *h != run.engine.hash() {
            return Err(format!(
                "step {target}: hash {h:?} before, {:?} after a jump",
                run.engine.hash()
            ));
        }
    }
    let known: Vec<(&u64, &TraceHash)> = hashes.range(..=frontier).collect();
    if !known.is_empty() {
        let (s, h) = known[permille as usize * (known.len() - 1) / 1000];
        jump(run, *s)?;
        if *h != run.engine.hash() {
            return Err(format!(
                "step {s}: hash {h:?} before, {:?} after jumping back",
                run.engine.hash()
            ));
        }
    }
    jump(run, end_steps)?;
    if run.engine.hash() != end_hash {
        return Err(format!(
            "back at step {end_steps}: hash {end_hash:?} before, {:?} after the round trip",
            run.engine.hash()
        ));
    }
    Ok(())
}

/// Run the operations, checking everything after each. Returns the run for further checks.
fn drive(scenario: usize, variant: &str, seed: u64, ops: &[Op]) -> Result<Run, String> {
    let mut run = new_run(scenario, variant, seed);
    let mut checker = Checker::new(&run);
    let mut hashes = Hashes::new();
    observe(&run, &mut hashes);
    for (i, op) in ops.iter().enumerate() {
        let ctx = |e: String| format!("op {i} ({op:?}): {e}");
        match op {
            Op::Act { wait_ms, action } => {
                let t = run.engine.now() + wait_ms * US_PER_MS;
                advance(&mut run, t).map_err(ctx)?;
                checker.check(&run).map_err(ctx)?;
                observe(&run, &mut hashes);
                apply(&mut run, action).map_err(ctx)?;
            }
            Op::Rewind { permille } => {
                rewind_and_return(&mut run, *permille, &hashes).map_err(ctx)?;
                // The clock stands at the last event of the step, not where `run_until` left it.
                checker.last_now = run.engine.now();
            }
            Op::ActInPast { permille, action } => {
                let frontier = run.engine.frontier();
                let target = frontier * *permille as u64 / 1000;
                jump(&mut run, target).map_err(ctx)?;
                let accepted = apply(&mut run, action).map_err(ctx)?;
                if accepted {
                    // The old future is gone: forget its hashes and re-read the trace.
                    if run.engine.frontier() != target + 1 {
                        return Err(ctx(format!(
                            "after acting at step {target} the frontier is {}",
                            run.engine.frontier()
                        )));
                    }
                    hashes.retain(|s, _| *s <= target);
                    checker.rescan(&run);
                } else {
                    // A refusal keeps the future: return to it.
                    if run.engine.frontier() != frontier {
                        return Err(ctx("a refused past action moved the frontier".into()));
                    }
                    jump(&mut run, frontier).map_err(ctx)?;
                    checker.last_now = run.engine.now();
                }
            }
        }
        checker.check(&run).map_err(ctx)?;
        observe(&run, &mut hashes);
        // One more second after each operation: invariants must hold while the action plays out.
        let t = run.engine.now() + US_PER_S;
        advance(&mut run, t).map_err(ctx)?;
        checker.check(&run).map_err(ctx)?;
        observe(&run, &mut hashes);
    }
    // A fresh run replaying the recorded user actions reaches the same state.
    let mut replay = new_run(scenario, variant, seed);
    replay
        .engine
        .set_user_actions(run.engine.user_actions().to_vec());
    jump(&mut replay, run.engine.steps())?;
    if replay.engine.hash() != run.engine.hash() {
        return Err(format!(
            "replaying {} recorded actions gives hash {:?}, the live run {:?}",
            run.engine.user_actions().len(),
            replay.engine.hash(),
            run.engine.hash()
        ));
    }
    Ok(run)
}

/// Heal every fault a user can leave behind, then run 3 virtual minutes.
fn heal_everything(run: &mut Run, checker: &mut Checker) -> Result<(), String> {
    let names = run.sim_of::<Gossip>().unwrap().topo.names.clone();
    let execs: Vec<String> = run
        .sim_of::<Gossip>()
        .unwrap()
        .proto
        .executors()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let must = |run: &mut Run, a: Action| -> Result<(), String> {
        match apply(run, &a)? {
            true => Ok(()),
            false => Err(format!("healing action refused: {}", a.describe())),
        }
    };
    must(run, Action::HealAll {})?;
    for (i, n) in names.iter().enumerate() {
        // A stopped node's threads start afresh (not stalled) when it starts.
        if run.sim_of::<Gossip>().unwrap().nodes[i].status == NodeStatus::Stopped {
            continue;
        }
        for e in &execs {
            must(
                run,
                Action::Release {
                    node: n.clone(),
                    executor: e.clone(),
                },
            )?;
        }
    }
    // Let graceful stops and pending shutdown announcements finish.
    let t = run.engine.now() + 5 * US_PER_S;
    advance(run, t)?;
    checker.check(run)?;
    for (i, n) in names.iter().enumerate() {
        match run.sim_of::<Gossip>().unwrap().nodes[i].status {
            NodeStatus::Stopped => must(run, Action::Start { node: n.clone() })?,
            NodeStatus::Stopping => return Err(format!("{n} is still stopping after 5 s")),
            NodeStatus::Running => {}
        }
    }
    for (i, n) in names.iter().enumerate() {
        if !run.sim_of::<Gossip>().unwrap().nodes[i].state.enabled {
            must(
                run,
                Action::Command {
                    node: n.clone(),
                    command: "enablegossip".into(),
                },
            )?;
        }
        must(
            run,
            Action::Command {
                node: n.clone(),
                command: "settimeout misc 10000".into(),
            },
        )?;
    }
    let t = run.engine.now() + 180 * US_PER_S;
    advance(run, t)?;
    checker.check(run)?;
    Ok(())
}

fn cases(default: u32) -> u32 {
    ["CLUSTERSCOPE_PROPTEST_CASES", "PROPTEST_CASES"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
        .unwrap_or(default)
}

fn config(default_cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: cases(default_cases),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        max_shrink_iters: 4096,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(5_500))]

    /// Random actions at random times, with rewinds: the oracle agrees, refusals change
    /// nothing, invariants hold, scrubbing and replay reproduce the hashes.
    #[test]
    fn random_actions_keep_invariants(
        case in any_case(),
        seed in 0u64..1_000_000,
        ops in ops_with_rewinds(),
    ) {
        if let Err(e) = drive(case.0, case.1, seed, &ops) {
            return Err(TestCaseError::fail(format!("{}/{} seed {seed}: {e}", scenarios()[case.0].name(), case.1)));
        }
    }
}

proptest! {
    #![proptest_config(config(3_500))]

    /// Acting at a past cursor discards the old future (or, when refused, keeps it); the
    /// invariants hold on the new timeline.
    #[test]
    fn acting_in_the_past_keeps_invariants(
        case in any_case(),
        seed in 0u64..1_000_000,
        ops in ops_in_past(),
    ) {
        if let Err(e) = drive(case.0, case.1, seed, &ops) {
            return Err(TestCaseError::fail(format!("{}/{} seed {seed}: {e}", scenarios()[case.0].name(), case.1)));
        }
    }
}

proptest! {
    #![proptest_config(config(1_000))]

    /// fixed and legacy heal: with every fault undone and 3 virtual minutes of a healthy
    /// network, no running node sees a running peer DOWN.
    #[test]
    fn healed_cluster_converges(
        variant in prop::sample::select(vec!["fixed", "legacy"]),
        seed in 0u64..1_000_000,
        ops in prop::collection::vec(act_op(20_000, Some(2 * US_PER_S)), 0..8),
    ) {
        let result = drive(0, variant, seed, &ops).and_then(|mut run| {
            let mut checker = Checker::new(&run);
            heal_everything(&mut run, &mut checker)?;
            let down = view::down_pairs(run.sim_of::<Gossip>().unwrap());
            if down.is_empty() {
                Ok(())
            } else {
                let topo = &run.sim_of::<Gossip>().unwrap().topo;
                let pairs: Vec<String> = down
                    .iter()
                    .map(|(o, p)| format!("{} sees {} DOWN", topo.name(*o), topo.name(*p)))
                    .collect();
                Err(format!("3 min after healing: {}", pairs.join("; ")))
            }
        });
        if let Err(e) = result {
            return Err(TestCaseError::fail(format!("prop-quiet3/{variant} seed {seed}: {e}")));
        }
    }
}

/// The oracle itself is exercised on a hand-picked list of nonsense, so a regression in either
/// shows up without luck.
#[test]
fn nonsense_actions_are_refused_and_change_nothing() {
    let mut run = new_run(0, "fixed", 1);
    advance(&mut run, 3 * US_PER_S).unwrap();
    let s = |x: &str| x.to_string();
    let nonsense = [
        Action::Start { node: s("A") },
        Action::DropLink {
            from: s("A"),
            to: s("A"),
            one_way: false,
            down_for: None,
        },
        Action::Stop { node: s("Z") },
        Action::Stall {
            node: s("A"),
            executor: s("NoSuchStage"),
        },
        Action::SetLoss {
            from: s("A"),
            to: s("B"),
            loss: 2.0,
            one_way: false,
        },
        Action::SetLoss {
            from: s("A"),
            to: s("B"),
            loss: f64::NAN,
            one_way: true,
        },
        Action::SetLatency {
            from: s("A"),
            to: s("B"),
            min: Dur(5),
            max: Dur(4),
            one_way: false,
        },
        Action::SetLatency {
            from: s("A"),
            to: s("B"),
            min: Dur(0),
            max: Dur(u64::MAX),
            one_way: false,
        },
        Action::Restart {
            node: s("A"),
            kill: false,
            down_for: Some(Dur(u64::MAX)),
        },
        Action::Delay {
            node: s("A"),
            executor: s("GossipStage"),
            extra: Dur(u64::MAX),
        },
        Action::Command {
            node: s("A"),
            command: s("explode"),
        },
        Action::Command {
            node: s("A"),
            command: s("enablegossip"),
        },
        Action::Command {
            node: s("A"),
            command: s("send-syn A"),
        },
        Action::Partition {
            groups: vec![vec![s("A")]],
            down_for: None,
        },
        Action::Partition {
            groups: vec![vec![s("A")], vec![s("A"), s("B")]],
            down_for: None,
        },
    ];
    for a in nonsense {
        assert!(must_refuse(&run, &a).is_some(), "{a:?}");
        assert!(!apply(&mut run, &a).unwrap(), "{a:?}");
    }
    // disablegossip twice: the second is refused once the first has taken effect.
    let dis = Action::Command {
        node: s("B"),
        command: s("disablegossip"),
    };
    assert!(apply(&mut run, &dis).unwrap());
    let t = run.engine.now() + 3 * US_PER_S;
    advance(&mut run, t).unwrap();
    assert!(!apply(&mut run, &dis).unwrap());
    // Stopping a stopped node, killing it again, starting it twice.
    assert!(apply(&mut run, &Action::Kill { node: s("C") }).unwrap());
    assert!(!apply(&mut run, &Action::Kill { node: s("C") }).unwrap());
    assert!(!apply(&mut run, &Action::Stop { node: s("C") }).unwrap());
    assert!(apply(&mut run, &Action::Start { node: s("C") }).unwrap());
    assert!(!apply(&mut run, &Action::Start { node: s("C") }).unwrap());
    let mut checker = Checker::new(&run);
    checker.rescan(&run);
    checker.check(&run).unwrap();
}
