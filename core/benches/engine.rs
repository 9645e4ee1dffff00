//! Native benchmarks (criterion). Measurements, not tests: `scripts/bench` runs them next to the
//! same workloads in headless Chromium and prints one table; `cargo bench --bench engine` runs
//! them alone (append `-- <filter>` to pick one, e.g. `-- pingpong`).
//!
//! The workloads live in `benches/wasm/src/workloads.rs`, shared with the wasm benches:
//!   engine/pingpong_8_nodes            raw event loop, tracing on (events/s, trace B/event)
//!   gossip/packet_loss_3_nodes_10m     `cassandra-21636-packet-loss` buggy, 10 virtual minutes
//!   scale/rolling_upgrade_251_nodes_10m `cassandra-21636-rolling-upgrade` buggy, 10 virtual minutes
//!   sweep/packet_loss_seeds            one seed per iteration, whole scenario (seeds/s)
//!   raft/5_nodes_100rps_1h             Raft<Kv>, Ratis defaults, 100 client requests/s, 1 virtual hour
//!   raft/25_nodes_100rps_1m            the same on 25 nodes, 1 virtual minute
//!   costs/*                            what a run costs beyond the engine, side by side: 10,000
//!                                      never-due recorded actions vs none; 980 more `during`
//!                                      expectations (to the limit of 1,000) vs one more
//!
//! Lines starting with `BENCHINFO` are for `scripts/bench`; criterion writes the timings to
//! `<target dir>/criterion/<group>/<bench>/new/{estimates,benchmark,sample}.json`.
//! `CLUSTERSCOPE_BENCH_ONCE=rolling cargo bench --bench engine` times a single 251-node run
//! instead (see `once`); `CLUSTERSCOPE_BENCH_ONCE=jumps` times the engine's part of the web
//! benchmark's jumps.

#[path = "../../benches/wasm/src/workloads.rs"]
mod workloads;

use criterion::{criterion_group, Bencher, Criterion, SamplingMode, Throughput};
use std::cell::Cell;
use std::hint::black_box;
use std::time::{Duration, Instant};
use workloads::*;

/// Time each run of `f` separately, after a short sleep, dropping its result untimed: the same
/// protocol as the wasm side, which yields to the browser (`setTimeout`) before each timed run.
/// On a machine shared with other work this matters: a process that has just slept is scheduled
/// promptly and a run of a few ms usually completes within one time slice, whereas a busy loop
/// of back-to-back runs is preempted regularly and every sample absorbs the waits.
fn timed_runs<T>(b: &mut Bencher, mut f: impl FnMut() -> T) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            std::thread::sleep(Duration::from_millis(1));
            let t0 = Instant::now();
            let out = black_box(f());
            total += t0.elapsed();
            drop(out);
        }
        total
    })
}

/// Measurement time for `samples` samples of one iteration each taking about `once`, with 10%
/// headroom so criterion does not warn that it cannot finish.
fn budget(once: Duration, samples: usize, at_least: Duration) -> Duration {
    (once.mul_f64(samples as f64 * 1.1)).max(at_least)
}

/// Whether the command line's filter selects `id` (criterion treats a filter as a regex; our ids
/// are plain words, so a substring match agrees). Lets a filtered run skip the setup runs of
/// groups it will not measure, e.g. the 20 s first run of the 251-node scenario.
fn wanted(id: &str) -> bool {
    const WITH_VALUE: &[&str] = &[
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--save-baseline",
        "-s",
        "--baseline",
        "-b",
        "--load-baseline",
        "--profile-time",
        "--color",
        "-c",
        "--output-format",
        "--plotting-backend",
        "--format",
    ];
    let mut filters = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            filters.push(a);
        }
    }
    filters.is_empty() || filters.iter().any(|f| id.contains(f.as_str()))
}

fn pingpong(c: &mut Criterion) {
    if !wanted("engine/pingpong_8_nodes") {
        return;
    }
    // Retained bytes per traced event, from a longer run (printed once).
    let e = pingpong_run(PP_BYTES_UNTIL_US);
    let st = TraceStats::of(e.sim.steps, &e.trace);
    println!("{}", st.line("pingpong trace"));
    println!(
        "BENCHINFO pingpong_bytes_per_event={:.1} pingpong_used_bytes_per_event={:.1} rec_size={}",
        st.bytes_per_event(),
        st.used_bytes_per_event(),
        st.rec_size
    );
    drop(e);

    let t0 = Instant::now();
    let events = pingpong_run(PP_UNTIL_US).sim.steps;
    let once = t0.elapsed();
    println!("BENCHINFO pingpong_events={events}");
    let mut g = c.benchmark_group("engine");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(budget(once, 30 * 20, Duration::from_secs(4)))
        .throughput(Throughput::Elements(events));
    g.bench_function("pingpong_8_nodes", |b| {
        timed_runs(b, || pingpong_run(black_box(PP_UNTIL_US)))
    });
    g.finish();
}

fn gossip_3_nodes(c: &mut Criterion) {
    if !wanted("gossip/packet_loss_3_nodes_10m") {
        return;
    }
    let s = scenario(PACKET_LOSS);
    let t0 = Instant::now();
    let r = scenario_run(&s, None, Some(TEN_MINUTES));
    let once = t0.elapsed();
    let events = r.engine.steps();
    println!(
        "{}",
        TraceStats::of(events, r.engine.trace()).line("packet-loss trace")
    );
    println!("BENCHINFO packet_loss_events={events}");
    drop(r);
    let mut g = c.benchmark_group("gossip");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(budget(once, 20 * 5, Duration::from_secs(3)))
        .throughput(Throughput::Elements(events));
    g.bench_function("packet_loss_3_nodes_10m", |b| {
        timed_runs(b, || scenario_run(&s, None, black_box(Some(TEN_MINUTES))))
    });
    g.finish();
}

fn rolling_upgrade_251_nodes(c: &mut Criterion) {
    if !wanted("scale/rolling_upgrade_251_nodes_10m") {
        return;
    }
    let s = scenario(ROLLING_UPGRADE);
    let t0 = Instant::now();
    let r = scenario_run(&s, None, Some(TEN_MINUTES));
    let once = t0.elapsed();
    let events = r.engine.steps();
    println!(
        "{}",
        TraceStats::of(events, r.engine.trace()).line("rolling-upgrade trace")
    );
    println!(
        "BENCHINFO rolling_events={events} rolling_first_run_s={:.2}",
        once.as_secs_f64()
    );
    drop(r);
    let mut g = c.benchmark_group("scale");
    // Each iteration takes seconds: the minimum sample count, one iteration per sample.
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(budget(once, 10, Duration::from_secs(1)))
        .throughput(Throughput::Elements(events));
    g.bench_function("rolling_upgrade_251_nodes_10m", |b| {
        timed_runs(b, || scenario_run(&s, None, black_box(Some(TEN_MINUTES))))
    });
    g.finish();
}

fn sweep(c: &mut Criterion) {
    if !wanted("sweep/packet_loss_seeds") {
        return;
    }
    let s = scenario(PACKET_LOSS);
    let t0 = Instant::now();
    drop(scenario_run(&s, Some(SWEEP_FIRST_SEED), None));
    let once = t0.elapsed();
    let seed = Cell::new(SWEEP_FIRST_SEED);
    let mut g = c.benchmark_group("sweep");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(budget(once, 20 * 5, Duration::from_secs(3)))
        .throughput(Throughput::Elements(1));
    // Sequential, one seed after another (what `clusterscope sweep --jobs 1` does per worker).
    g.bench_function("packet_loss_seeds", |b| {
        timed_runs(b, || {
            let n = seed.get();
            seed.set(n + 1);
            scenario_run(&s, Some(black_box(n)), None)
        })
    });
    g.finish();
}

/// This thread's CPU time so far, in ms (utime + stime from /proc, 100 ticks/s), when available.
fn thread_cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the parenthesised command name: state is the first, utime the 12th.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 * 10.0)
}

/// `CLUSTERSCOPE_BENCH_ONCE=rolling`: time one 251-node run and print
/// `ONCE rolling ms=<wall> cpu_ms=<thread CPU time>` instead of running criterion. `scripts/bench`
/// alternates these with single wasm runs, so that each wasm/native pair sees the same load on
/// a shared machine.
fn once(workload: &str) {
    if workload == "jumps" {
        return once_jumps();
    }
    if let Some((nodes, until)) = match workload {
        "raft5" => Some((5, RAFT_5_UNTIL_US)),
        "raft25" => Some((25, RAFT_25_UNTIL_US)),
        _ => None,
    } {
        return once_raft(workload, nodes, until);
    }
    let s = match workload {
        "rolling" => scenario(ROLLING_UPGRADE),
        "packet_loss" => scenario(PACKET_LOSS),
        other => panic!(
            "CLUSTERSCOPE_BENCH_ONCE={other}: use rolling, packet_loss, jumps, raft5 or raft25"
        ),
    };
    std::thread::sleep(Duration::from_millis(1));
    let cpu0 = thread_cpu_ms();
    let t0 = Instant::now();
    let r = black_box(scenario_run(&s, None, black_box(Some(TEN_MINUTES))));
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let cpu = thread_cpu_ms().zip(cpu0).map(|(b, a)| b - a);
    println!(
        "ONCE {workload} ms={ms:.1} cpu_ms={} events={}",
        cpu.map_or("n/a".into(), |c| format!("{c:.0}")),
        r.engine.steps()
    );
}

/// `CLUSTERSCOPE_BENCH_ONCE=raft5` / `raft25`: one timed Raft run (5 nodes for 1 virtual hour, 25
/// nodes for 1 minute, 100 client requests/s), printed as
/// `ONCE raft5 ms=<wall> cpu_ms=<thread CPU> events=<n> events_per_s=<by wall> events_per_cpu_s=<by CPU>`.
/// The 1-hour run takes tens of seconds, so criterion's ten samples are long; on a shared machine
/// the thread's CPU time is the steadier figure.
fn once_raft(workload: &str, nodes: u32, until: u64) {
    std::thread::sleep(Duration::from_millis(1));
    let cpu0 = thread_cpu_ms();
    let t0 = Instant::now();
    let e = black_box(raft_run(nodes, RAFT_RATE, black_box(until)));
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let cpu = thread_cpu_ms().zip(cpu0).map(|(b, a)| b - a);
    let events = e.sim.steps;
    println!(
        "ONCE {workload} ms={ms:.1} cpu_ms={} events={events} events_per_s={:.0} events_per_cpu_s={}",
        cpu.map_or("n/a".into(), |c| format!("{c:.0}")),
        events as f64 / (ms / 1e3),
        cpu.map_or("n/a".into(), |c| format!("{:.0}", events as f64 / (c / 1e3)))
    );
}

/// `CLUSTERSCOPE_BENCH_ONCE=jumps`: the engine's part of the web benchmark's jumps natively (the
/// 251-node run computed with checkpoints, then restore + replay to each of `JUMP_FRACTIONS`),
/// printed as `ONCE jumps ms=<median> max_ms=<max> points=<fraction:ms,...>`; the wasm twin is
/// `bench_jumps_251_nodes`.
fn once_jumps() {
    let s = scenario(ROLLING_UPGRADE);
    let mut r = checkpointed_run(&s, Some(TEN_MINUTES));
    let total = r.engine.steps();
    let mut ms = Vec::new();
    let mut points = Vec::new();
    for f in JUMP_FRACTIONS {
        let step = (f * total as f64) as u64;
        let t0 = Instant::now();
        r.engine.jump_to_step(step).expect("jump");
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        points.push(format!("{f}:{dt:.1}"));
        ms.push(dt);
    }
    let max = ms.iter().copied().fold(0.0, f64::max);
    ms.sort_by(f64::total_cmp);
    println!(
        "ONCE jumps ms={:.1} max_ms={max:.1} checkpoints={} points={}",
        ms[ms.len() / 2],
        r.engine.checkpoint_count(),
        points.join(",")
    );
}

/// raft/5_nodes_100rps_1h and raft/25_nodes_100rps_1m: events/s of the Raft model with its
/// invariant checks on.
fn raft(c: &mut Criterion) {
    for (id, nodes, until) in [
        ("raft/5_nodes_100rps_1h", 5, RAFT_5_UNTIL_US),
        ("raft/25_nodes_100rps_1m", 25, RAFT_25_UNTIL_US),
    ] {
        if !wanted(id) {
            continue;
        }
        let t0 = Instant::now();
        let events = raft_run(nodes, RAFT_RATE, until).sim.steps;
        let once = t0.elapsed();
        println!(
            "BENCHINFO {id} events={events} once_ms={}",
            once.as_millis()
        );
        let mut g = c.benchmark_group("raft");
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(1))
            .measurement_time(budget(once, 10, Duration::from_secs(1)))
            .throughput(Throughput::Elements(events));
        g.bench_function(id.trim_start_matches("raft/"), |b| {
            timed_runs(b, || raft_run(nodes, RAFT_RATE, until))
        });
        g.finish();
    }
}

/// `cassandra-21636-restart` (fixed, 8 virtual minutes) with `actions` recorded actions that are
/// never due, and `cassandra-21636-packet-loss` (fixed) with `exps` extra `during` expectations
/// over its last minute: each pair is measured side by side, so the ratio is the cost.
fn costs(c: &mut Criterion) {
    use clusterscope_core::engine::action::{Action, Dur, RecordedAction};
    use clusterscope_core::runner::{Run, RunOptions};
    if !wanted("costs/") {
        return;
    }
    let restart = |n: u64| {
        let sc = clusterscope_core::scenario::builtin::get("cassandra-21636-restart").unwrap();
        let mut run = Run::new(
            sc,
            "fixed",
            None,
            &Default::default(),
            &RunOptions::default(),
        )
        .unwrap();
        run.engine.set_user_actions(
            (0..n)
                .map(|i| RecordedAction {
                    step: u64::MAX - n + i,
                    at: Dur(0),
                    action: Action::Kill { node: "n1".into() },
                })
                .collect(),
        );
        run.engine.run_until(480_000_000, u64::MAX).unwrap();
        run.engine.steps()
    };
    let packet_loss = |n: usize| {
        let base = clusterscope_core::scenario::builtin::FILES
            .iter()
            .find(|(f, _)| f.contains("21636-packet-loss"))
            .unwrap()
            .1;
        let exps: String = (0..n)
            .map(|i| {
                format!(
                    "[[expect]]\nname = \"cost {i}\"\nview = \"liveness\"\nobserver = \"{}\"\n\
                     peer = \"C\"\nduring = [\"9m\", \"end\"]\nequals = \"UP\"\n",
                    ["A", "B"][i % 2]
                )
            })
            .collect();
        let text = format!("{base}\n{exps}");
        let sc =
            clusterscope_core::scenario::Scenario::parse("cost.toml", &text, &Default::default())
                .unwrap();
        let mut run = Run::new(
            sc,
            "fixed",
            None,
            &Default::default(),
            &RunOptions::default(),
        )
        .unwrap();
        run.run(None).unwrap().events
    };
    let mut g = c.benchmark_group("costs");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    g.bench_function("restart_no_actions", |b| timed_runs(b, || restart(0)));
    g.bench_function("restart_10k_pending_actions", |b| {
        timed_runs(b, || restart(10_000))
    });
    g.bench_function("packet_loss_1_expectation", |b| {
        timed_runs(b, || packet_loss(1))
    });
    g.bench_function("packet_loss_980_during", |b| {
        timed_runs(b, || packet_loss(980))
    });
    g.finish();
}

criterion_group!(
    benches,
    pingpong,
    costs,
    raft,
    gossip_3_nodes,
    rolling_upgrade_251_nodes,
    sweep
);

fn main() {
    if let Ok(w) = std::env::var("CLUSTERSCOPE_BENCH_ONCE") {
        once(&w);
        return;
    }
    // What criterion_main! does.
    benches();
    Criterion::default().configure_from_args().final_summary();
}
