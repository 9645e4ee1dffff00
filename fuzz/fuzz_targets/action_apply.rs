//! Bytes -> a short list of (wait, action) pairs, applied to a small gossip run with `run_until`
//! in between, as the web app's buttons would. Every action kind, with real and nonsense names,
//! durations beyond the limits, losses outside [0, 1], unknown commands. Must never panic; a
//! refused action must change nothing; a node's own generation never decreases; a node never
//! sees itself DOWN; time never goes backwards. The first byte picks the scenario and variant.
#![no_main]

use arbitrary::{Result, Unstructured};
use clusterscope_core::engine::action::{Action, Dur};
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const QUIET3: &str = r#"
name = "fuzz-quiet3"
title = "three nodes"
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

const CONN4: &str = r#"
name = "fuzz-conn4"
title = "four nodes, connections, client load"
protocol = "gossip"
duration = "1h"
[cluster]
nodes = [{ name = "A" }, { name = "B", dc = "dc2" }, { name = "C" }, { name = "D", dc = "dc2" }]
[params]
connections = true
client_rate = 5.0
client_coordinator = "A"
[[variants]]
name = "v4"
params = { messaging = "4.0", echo = "fixed" }
[[variants]]
name = "v3"
params = { messaging = "3.x", echo = "legacy" }
[[variants]]
name = "v3-fixes"
params = { messaging = "3.x", echo = "buggy", fix_sender = true, fix_shutdown = true }
"#;

fn scenarios() -> &'static [(Scenario, [&'static str; 3])] {
    static S: OnceLock<Vec<(Scenario, [&'static str; 3])>> = OnceLock::new();
    S.get_or_init(|| {
        let l = Limits::default();
        vec![
            (
                Scenario::parse("q.toml", QUIET3, &l).unwrap(),
                ["buggy", "legacy", "fixed"],
            ),
            (
                Scenario::parse("c.toml", CONN4, &l).unwrap(),
                ["v4", "v3", "v3-fixes"],
            ),
        ]
    })
}

const NAMES: &[&str] = &["A", "B", "C", "D", "Z", "", "a", "A ", "A,B"];
const EXECS: &[&str] = &[
    "GossipStage",
    "RequestStage",
    "MutationStage",
    "gossipstage",
    "X",
    "",
];
const COMMANDS: &[&str] = &[
    "disablegossip",
    "enablegossip",
    " disablegossip ",
    "settimeout misc 30000",
    "settimeout misc 1",
    "settimeout misc 0",
    "settimeout misc 3600001",
    "settimeout misc -1",
    "settimeout misc 99999999999999999999999",
    "settimeout misc",
    "send-syn B",
    "send-syn A",
    "send-syn Z",
    "send-syn",
    "explode",
    "",
];

fn name(u: &mut Unstructured) -> Result<String> {
    // Bias to real names: two bytes' worth of chances.
    let i = u.int_in_range(0..=15u8)? as usize;
    Ok(NAMES[if i < 9 { i } else { i % 3 }].to_string())
}

fn dur(u: &mut Unstructured) -> Result<Dur> {
    Ok(Dur(match u.int_in_range(0..=7u8)? {
        0 => 0,
        1 => u.int_in_range(0..=5_000_000u64)?,
        2 => 3_600_000_000,
        3 => 3_600_000_001,
        4 => 6 * 3_600_000_000 + 1,
        5 => u64::MAX,
        6 => u.arbitrary()?,
        _ => u.int_in_range(0..=100_000u64)?,
    }))
}

fn loss(u: &mut Unstructured) -> Result<f64> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => 0.0,
        1 => 1.0,
        2 => 2.0,
        3 => f64::NAN,
        4 => u.arbitrary()?,
        _ => u.int_in_range(0..=1000u32)? as f64 / 1000.0,
    })
}

fn action(u: &mut Unstructured) -> Result<Action> {
    Ok(match u.int_in_range(0..=13u8)? {
        0 => Action::DropLink {
            from: name(u)?,
            to: name(u)?,
            one_way: u.arbitrary()?,
        },
        1 => Action::HealLink {
            from: name(u)?,
            to: name(u)?,
            one_way: u.arbitrary()?,
        },
        2 => Action::SetLoss {
            from: name(u)?,
            to: name(u)?,
            loss: loss(u)?,
            one_way: u.arbitrary()?,
        },
        3 => Action::SetLatency {
            from: name(u)?,
            to: name(u)?,
            min: dur(u)?,
            max: dur(u)?,
            one_way: u.arbitrary()?,
        },
        4 => {
            let n = u.int_in_range(0..=3u8)?;
            let mut groups = Vec::new();
            for _ in 0..n {
                let k = u.int_in_range(0..=3u8)?;
                groups.push((0..k).map(|_| name(u)).collect::<Result<Vec<_>>>()?);
            }
            Action::Partition { groups }
        }
        5 => Action::HealAll {},
        6 => Action::Stop { node: name(u)? },
        7 => Action::Kill { node: name(u)? },
        8 => Action::Start { node: name(u)? },
        9 => Action::Restart {
            node: name(u)?,
            kill: u.arbitrary()?,
            down_for: if u.arbitrary()? { Some(dur(u)?) } else { None },
        },
        10 => Action::Stall {
            node: name(u)?,
            executor: u.choose(EXECS)?.to_string(),
        },
        11 => Action::Delay {
            node: name(u)?,
            executor: u.choose(EXECS)?.to_string(),
            extra: dur(u)?,
        },
        12 => Action::Release {
            node: name(u)?,
            executor: u.choose(EXECS)?.to_string(),
        },
        _ => Action::Command {
            node: name(u)?,
            command: u.choose(COMMANDS)?.to_string(),
        },
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(pick) = u.int_in_range(0..=5u8) else {
        return;
    };
    let (scenario, variants) = &scenarios()[pick as usize / 3];
    let variant = variants[pick as usize % 3];
    let seed: u64 = u.arbitrary().unwrap_or(0);
    let mut run = Run::new(
        scenario.clone(),
        variant,
        Some(seed),
        &toml::Table::new(),
        &RunOptions {
            checkpointing: true,
            body_budget: 0,
            limits: Limits::default(),
        },
    )
    .expect("the fuzz scenarios are valid");
    let mut gens: Vec<u32> = run
        .sim()
        .nodes
        .iter()
        .map(|n| n.state.generation())
        .collect();
    for _ in 0..12 {
        let Ok(wait_ms) = u.int_in_range(0..=4_000u64) else {
            break;
        };
        let Ok(a) = action(&mut u) else { break };
        let before_now = run.engine.now();
        let t = run.engine.now() + wait_ms * 1000;
        let n = run
            .engine
            .run_until(t, 2_000_000)
            .expect("stepping fails only at limits");
        assert!(n < 2_000_000, "spinning: {n} steps in {wait_ms} ms");
        assert!(run.engine.now() >= before_now, "time went backwards");
        let snap = (
            run.engine.hash(),
            run.engine.steps(),
            run.engine.trace().recs.len(),
        );
        match run.engine.apply_user_action(a.clone()) {
            Ok(()) => assert_eq!(run.engine.steps(), snap.1 + 1, "{a:?}"),
            Err(e) => {
                assert!(!e.to_string().is_empty());
                let now = (
                    run.engine.hash(),
                    run.engine.steps(),
                    run.engine.trace().recs.len(),
                );
                assert_eq!(now, snap, "a refused action changed the run: {a:?}: {e}");
            }
        }
        for (i, slot) in run.sim().nodes.iter().enumerate() {
            let g = slot.state.generation();
            assert!(
                g >= gens[i],
                "node {i}'s generation went down: {} -> {g}",
                gens[i]
            );
            gens[i] = g;
            assert!(slot.state.sees_up(i as u32), "node {i} sees itself DOWN");
        }
    }
    // Scrub back to the middle and forward again: same state.
    let (end, hash) = (run.engine.steps(), run.engine.hash());
    run.engine.jump_to_step(end / 2).expect("jump back");
    run.engine.jump_to_step(end).expect("jump forward");
    assert_eq!(
        run.engine.hash(), hash,
        "a jump back and forth changed the state"
    );
});
