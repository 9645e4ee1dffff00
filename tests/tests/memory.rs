//! The memory budget (`Limits::max_memory_bytes`) holds: random scenarios within the limits —
//! backlogged stages, short gossip intervals, lossy links, checkpointing on and off — never make
//! the heap exceed the budget by more than `limits::memory_margin`, whether they finish or stop
//! with `SimError::Limit` naming what grew. The heap is measured by a counting allocator (this
//! test binary's own, so one `#[test]` runs the cases one after another).
//!
//! `CLUSTERSCOPE_PROPTEST_CASES=N` runs N cases (default 12).

use clusterscope_core::limits::{memory_margin, Limits};
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::SimError;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::atomic::Ordering::Relaxed;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{NOW, PEAK};

const BUDGET: usize = 48 << 20;

#[derive(Debug, Clone)]
struct Case {
    nodes: u32,
    minutes: u32,
    interval_ms: u64,
    stage_cost_us: u64,
    loss: f64,
    checkpointing: bool,
}

fn scenario(c: &Case) -> String {
    format!(
        r#"name = "memory"
title = "random"
protocol = "gossip"
duration = "{}m"

[cluster]
generate = {{ count = {}, dcs = 2 }}

[network]
loss = {}

[params]
gossip_interval = "{}ms"
stage_msg_cost = "{}us"

[[variants]]
name = "only"
"#,
        c.minutes, c.nodes, c.loss, c.interval_ms, c.stage_cost_us
    )
}

#[test]
fn random_runs_stay_within_the_memory_budget_and_its_margin() {
    let cases = std::env::var("CLUSTERSCOPE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        2u32..48,
        1u32..30,
        prop_oneof![Just(1u64), 10u64..2000],
        prop_oneof![Just(100u64), 1_000u64..20_000_000],
        prop_oneof![Just(0.0), 0.0f64..0.5],
        any::<bool>(),
    )
        .prop_map(
            |(nodes, minutes, interval_ms, stage_cost_us, loss, checkpointing)| Case {
                nodes,
                minutes,
                interval_ms,
                stage_cost_us,
                loss,
                checkpointing,
            },
        );
    let limits = Limits {
        max_memory_bytes: BUDGET,
        max_checkpoint_bytes: BUDGET / 2,
        max_events: 4_000_000,
        ..Limits::default()
    };
    runner
        .run(&strategy, |c| {
            let sc = Scenario::parse("memory.toml", &scenario(&c), &limits).unwrap();
            let opts = RunOptions {
                checkpointing: c.checkpointing,
                body_budget: 0,
                limits: limits.clone(),
            };
            let base = NOW.load(Relaxed);
            PEAK.store(base, Relaxed);
            let outcome = match Run::new(sc, "only", None, &toml::Table::new(), &opts) {
                Err(e) => format!("refused: {e}"),
                Ok(mut run) => {
                    if c.checkpointing {
                        run.engine.set_checkpoint_span(1_000_000);
                    }
                    match run.run(None) {
                        Ok(_) => "finished".to_string(),
                        Err(SimError::Limit(m)) => format!("stopped: {m}"),
                        Err(e) => panic!("{c:?}: {e}"),
                    }
                }
            };
            let peak = PEAK.load(Relaxed) - base;
            prop_assert!(
                peak <= BUDGET + memory_margin(BUDGET),
                "{c:?}: peak heap {} MB over the budget {} MB + margin {} MB ({outcome})",
                peak >> 20,
                BUDGET >> 20,
                memory_margin(BUDGET) >> 20
            );
            if outcome.starts_with("stopped: memory") {
                prop_assert!(outcome.contains("over its budget"), "{outcome}");
            }
            Ok(())
        })
        .unwrap();
}

/// The case that used to take the heap down: a stage that never drains. It stops with a message
/// naming the queued tasks, within the budget.
#[test]
fn a_backlog_that_never_drains_stops_naming_the_queues() {
    let limits = Limits {
        max_memory_bytes: 32 << 20,
        ..Limits::default()
    };
    let c = Case {
        nodes: 40,
        minutes: 300,
        interval_ms: 1000,
        stage_cost_us: 10_000_000,
        loss: 0.0,
        checkpointing: true,
    };
    let sc = Scenario::parse("memory.toml", &scenario(&c), &limits).unwrap();
    let opts = RunOptions {
        checkpointing: true,
        body_budget: 0,
        limits,
    };
    let mut run = Run::new(sc, "only", None, &toml::Table::new(), &opts).unwrap();
    let e = run.run(None).unwrap_err().to_string();
    assert!(
        e.contains("limit reached: memory") && e.contains("queued tasks"),
        "{e}"
    );
}
