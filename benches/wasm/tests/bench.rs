//! The benchmark workloads in headless Chromium, timed with `performance.now()`. Not tests: every
//! function is `#[ignore]`d so no test run picks them up by accident; `scripts/bench` runs them:
//!
//! ```text
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner CHROMEDRIVER=/usr/bin/chromedriver \
//!   WASM_BINDGEN_TEST_WEBDRIVER_JSON=tests/wasm/webdriver.json WASM_BINDGEN_TEST_TIMEOUT=1800 \
//!   cargo test --release --target wasm32-unknown-unknown -p clusterscope-wasm-bench --test bench \
//!   -- --include-ignored --nocapture --skip pairrun
//! ```
//!
//! Each benchmark prints one `WASMBENCH <name> key=value ...` line (times in ms, medians over
//! repetitions). Between repetitions the test yields to the browser's event loop so output streams
//! and the page stays alive. Repetition counts can be changed at build time with
//! `CLUSTERSCOPE_WASM_BENCH_REPS_<NAME>` (e.g. `..._ROLLING=1`).
#![cfg(target_arch = "wasm32")]

use clusterscope_wasm_bench::median;
use clusterscope_wasm_bench::workloads::*;
use std::hint::black_box;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window()
        .expect("window")
        .performance()
        .expect("performance")
        .now()
}

/// Let the browser run its event loop (timers, output) between repetitions.
async fn yield_to_browser() {
    let p = js_sys::Promise::new(&mut |resolve, _reject| {
        web_sys::window()
            .expect("window")
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0)
            .expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(p)
        .await
        .expect("timeout promise");
}

fn reps(build_time: Option<&str>, default: usize) -> usize {
    build_time
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// Linear memory size now, in MiB (wasm memory only grows: this is the peak so far).
fn memory_mib() -> f64 {
    core::arch::wasm32::memory_size(0) as f64 * 65536.0 / (1024.0 * 1024.0)
}

/// Time `f` `n` times (after one untimed warm-up run); returns the times in ms.
async fn time_reps<T>(n: usize, mut f: impl FnMut() -> T) -> Vec<f64> {
    drop(black_box(f()));
    yield_to_browser().await;
    let mut ms = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = now_ms();
        let out = black_box(f());
        ms.push(now_ms() - t0);
        drop(out);
        yield_to_browser().await;
    }
    ms
}

fn summary(ms: &[f64]) -> String {
    let min = ms.iter().copied().fold(f64::INFINITY, f64::min);
    let max = ms.iter().copied().fold(0.0, f64::max);
    format!(
        "median_ms={:.3} min_ms={:.3} max_ms={:.3} reps={}",
        median(ms),
        min,
        max,
        ms.len()
    )
}

#[wasm_bindgen_test]
#[ignore = "benchmark: run by scripts/bench"]
async fn bench_pingpong_8_nodes() {
    let e = pingpong_run(PP_BYTES_UNTIL_US);
    let st = TraceStats::of(e.sim.steps, &e.trace);
    console_log!("{}", st.line("pingpong trace (wasm32)"));
    drop(e);
    let events = pingpong_run(PP_UNTIL_US).sim.steps;
    let n = reps(option_env!("CLUSTERSCOPE_WASM_BENCH_REPS_PINGPONG"), 60);
    let ms = time_reps(n, || pingpong_run(black_box(PP_UNTIL_US))).await;
    console_log!(
        "WASMBENCH pingpong {} events={events} events_per_s={:.0} bytes_per_event={:.1} used_bytes_per_event={:.1} rec_size={}",
        summary(&ms),
        events as f64 / (median(&ms) / 1e3),
        st.bytes_per_event(),
        st.used_bytes_per_event(),
        st.rec_size
    );
}

#[wasm_bindgen_test]
#[ignore = "benchmark: run by scripts/bench"]
async fn bench_packet_loss_3_nodes_10m() {
    let s = scenario(PACKET_LOSS);
    let events = scenario_run(&s, None, Some(TEN_MINUTES)).engine.steps();
    let n = reps(option_env!("CLUSTERSCOPE_WASM_BENCH_REPS_PACKET_LOSS"), 30);
    let ms = time_reps(n, || scenario_run(&s, None, black_box(Some(TEN_MINUTES)))).await;
    console_log!(
        "WASMBENCH packet_loss {} events={events} events_per_s={:.0}",
        summary(&ms),
        events as f64 / (median(&ms) / 1e3)
    );
}

#[wasm_bindgen_test]
#[ignore = "benchmark: run by scripts/bench"]
async fn bench_rolling_upgrade_251_nodes_10m() {
    let s = scenario(ROLLING_UPGRADE);
    // The warm-up run in time_reps is a full run too; it also gives the event count and peak
    // memory.
    let n = reps(option_env!("CLUSTERSCOPE_WASM_BENCH_REPS_ROLLING"), 3);
    let t0 = now_ms();
    let r = scenario_run(&s, None, Some(TEN_MINUTES));
    let first = now_ms() - t0;
    let events = r.engine.steps();
    console_log!(
        "{}",
        TraceStats::of(events, r.engine.trace()).line("rolling-upgrade trace (wasm32)")
    );
    drop(r);
    let peak = memory_mib();
    yield_to_browser().await;
    let mut ms = vec![first];
    for _ in 1..n {
        let t0 = now_ms();
        let r = black_box(scenario_run(&s, None, black_box(Some(TEN_MINUTES))));
        ms.push(now_ms() - t0);
        drop(r);
        yield_to_browser().await;
    }
    console_log!(
        "WASMBENCH rolling {} events={events} events_per_s={:.0} linear_memory_mib={peak:.0}",
        summary(&ms),
        events as f64 / (median(&ms) / 1e3)
    );
}

/// The engine's part of a jump in the browser (restore the checkpoint, replay; no rendering):
/// the 12 points of the web benchmark after computing the 251-node run with checkpoints.
#[wasm_bindgen_test]
#[ignore = "benchmark: run by scripts/bench"]
async fn bench_jumps_251_nodes() {
    let s = scenario(ROLLING_UPGRADE);
    let mut r = checkpointed_run(&s, Some(TEN_MINUTES));
    let total = r.engine.steps();
    let checkpoints = r.engine.checkpoint_count();
    yield_to_browser().await;
    let mut ms = Vec::new();
    let mut points = Vec::new();
    for f in JUMP_FRACTIONS {
        let step = (f * total as f64) as u64;
        let t0 = now_ms();
        r.engine.jump_to_step(step).expect("jump");
        let dt = now_ms() - t0;
        assert_eq!(r.engine.steps(), step);
        points.push(format!("{f}:{dt:.1}"));
        ms.push(dt);
        yield_to_browser().await;
    }
    console_log!(
        "WASMBENCH jumps {} checkpoints={checkpoints} events={total} points={}",
        summary(&ms),
        points.join(",")
    );
}

#[wasm_bindgen_test]
#[ignore = "benchmark: run by scripts/bench"]
async fn bench_sweep_packet_loss_seeds() {
    let s = scenario(PACKET_LOSS);
    let n = reps(option_env!("CLUSTERSCOPE_WASM_BENCH_REPS_SWEEP"), 60);
    let mut seed = SWEEP_FIRST_SEED;
    let ms = time_reps(n, || {
        let r = scenario_run(&s, Some(black_box(seed)), None);
        seed += 1;
        r
    })
    .await;
    console_log!(
        "WASMBENCH sweep {} seeds_per_s={:.2}",
        summary(&ms),
        1e3 / median(&ms)
    );
}

/// Raft (`Raft<Kv>`, invariant checks on): 5 nodes at 100 client requests/s for one virtual
/// hour, and 25 nodes under the same load for one virtual minute (the twins of criterion's
/// `raft/5_nodes_100rps_1h` and `raft/25_nodes_100rps_1m`).
#[wasm_bindgen_test]
#[ignore = "benchmark: run by scripts/bench"]
async fn bench_raft_5_nodes_100rps_1h() {
    raft_bench(
        "raft5",
        5,
        RAFT_5_UNTIL_US,
        option_env!("CLUSTERSCOPE_WASM_BENCH_REPS_RAFT5"),
        5,
    )
    .await;
}

#[wasm_bindgen_test]
#[ignore = "benchmark: run by scripts/bench"]
async fn bench_raft_25_nodes_100rps_1m() {
    raft_bench(
        "raft25",
        25,
        RAFT_25_UNTIL_US,
        option_env!("CLUSTERSCOPE_WASM_BENCH_REPS_RAFT25"),
        5,
    )
    .await;
}

/// Each run is long (the 1-hour one takes tens of seconds): no untimed warm-up run, `default`
/// timed runs (`CLUSTERSCOPE_WASM_BENCH_REPS_RAFT5` / `..._RAFT25` at build time). A run goes
/// in slices of `RAFT_SLICE_US` with a yield to the browser between them; the slices (and the
/// construction) are timed, the yields are not.
async fn raft_bench(name: &str, nodes: u32, until: u64, reps_env: Option<&str>, default: usize) {
    let n = reps(reps_env, default);
    let mut events = 0;
    let mut ms = Vec::with_capacity(n);
    for _ in 0..n {
        yield_to_browser().await;
        let t0 = now_ms();
        let mut e = black_box(raft_engine(nodes, RAFT_RATE));
        let mut spent = now_ms() - t0;
        let mut t = 0;
        while t < until {
            t = (t + RAFT_SLICE_US).min(until);
            let t0 = now_ms();
            e.run_until(black_box(t), u64::MAX).expect("raft run");
            spent += now_ms() - t0;
            yield_to_browser().await;
        }
        ms.push(spent);
        events = e.sim.steps;
        drop(e);
    }
    console_log!(
        "WASMBENCH {name} {} events={events} events_per_s={:.0}",
        summary(&ms),
        events as f64 / (median(&ms) / 1e3)
    );
}

/// One timed 251-node run, for the paired native/wasm comparison of `scripts/bench` (which runs
/// it alternately with `CLUSTERSCOPE_BENCH_ONCE=rolling` natively, and skips it otherwise).
#[wasm_bindgen_test]
#[ignore = "benchmark: run by scripts/bench"]
async fn pairrun_rolling_251() {
    let s = scenario(ROLLING_UPGRADE);
    yield_to_browser().await;
    let t0 = now_ms();
    let r = black_box(scenario_run(&s, None, black_box(Some(TEN_MINUTES))));
    let ms = now_ms() - t0;
    console_log!("WASMBENCH pairrun ms={ms:.1} events={}", r.engine.steps());
}
