//! What a jump costs natively, with the browser's run options (issue 44): the first computation
//! with checkpoints and message bodies, the engine alone (no checkpoints, no bodies, like the
//! page's `bench_engine`), the checkpoints kept (count, spacing, bytes), and the replay of each
//! checkpoint span (restore + replay, per step) against computing the same steps.
//! Times are this thread's CPU time.
//! `cargo run --release --example jumps -- [scenario] [jumps]`
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
/// This thread's CPU time in seconds (`/proc/thread-self/schedstat`: on-CPU nanoseconds), so
/// that a shared machine's load does not count.
struct Instant(u64);
impl Instant {
    fn now() -> Self {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
        Instant(
            s.split_whitespace()
                .next()
                .and_then(|x| x.parse().ok())
                .unwrap_or(0),
        )
    }
    fn elapsed(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(Self::now().0 - self.0)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args
        .get(1)
        .map(String::as_str)
        .unwrap_or("cassandra-21636-rolling-upgrade");
    let s = builtin::get(name).unwrap();
    let v = Run::default_variant(&s);
    let run = |checkpointing: bool, body_budget: usize| {
        let mut r = Run::new(
            s.clone(),
            &v,
            None,
            &toml::Table::new(),
            &RunOptions {
                checkpointing,
                body_budget,
                limits: Limits::browser(),
            },
        )
        .unwrap();
        let t0 = Instant::now();
        r.run(None).unwrap();
        (r, t0.elapsed().as_secs_f64())
    };
    let (alone, t_alone) = run(false, 0);
    let (mut r, t_app) = run(true, 4 << 20);
    let steps = r.engine.steps();
    assert_eq!(steps, alone.engine.steps());
    assert_eq!(r.engine.hash(), alone.engine.hash());
    println!(
        "{name} ({v}): {steps} steps; engine alone {t_alone:.3} s ({:.0} ns/step); with \
         checkpoints and bodies {t_app:.3} s ({:.2}x)",
        t_alone * 1e9 / steps as f64,
        t_app / t_alone
    );
    println!(
        "checkpoints: {} kept (at most {}), {:.1} MiB in all, {:.2} MiB each; trace {:.1} MiB",
        r.engine.checkpoint_count(),
        r.engine.max_checkpoints(),
        r.engine.checkpoint_bytes() as f64 / 1048576.0,
        r.engine.checkpoint_bytes() as f64 / r.engine.checkpoint_count().max(1) as f64 / 1048576.0,
        r.engine.trace().approx_bytes() as f64 / 1048576.0
    );
    // The checkpoints' steps (from the end back: each is where a jump just after it replays
    // from), and so the longest replay of each span.
    let mut at = Vec::new();
    let mut k = steps - 1;
    loop {
        let c = r.engine.replay_from(k);
        at.push(c);
        if c == 0 {
            break;
        }
        k = c - 1;
    }
    at.reverse();
    at.push(steps);
    let mut spans: Vec<u64> = at.windows(2).map(|w| w[1] - w[0]).collect();
    println!("checkpoint spans (steps): {spans:?}");
    spans.sort_unstable();
    println!(
        "spans: shortest {}, median {}, longest {}; evenly by steps they would be {}",
        spans[0],
        spans[spans.len() / 2],
        spans[spans.len() - 1],
        steps / (at.len() as u64 - 1)
    );
    // Every span's longest replay: a jump to just before the next checkpoint.
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(12);
    let mut worst = 0u64;
    let mut total_replayed = 0u64;
    let mut total_t = 0.0;
    for i in 0..n {
        let k = steps * (2 * i as u64 + 1) / (2 * n as u64);
        let from = r.engine.replay_from(k);
        let t0 = Instant::now();
        r.engine.jump_to_step(k).unwrap();
        let dt = t0.elapsed().as_secs_f64();
        worst = worst.max(k - from);
        total_replayed += k - from;
        total_t += dt;
        println!(
            "jump to {k:>8}: replay {:>6} steps from {from:>8} in {:.1} ms",
            k - from,
            dt * 1e3
        );
    }
    println!(
        "replay: {:.0} ns/step over {total_replayed} steps (computing: {:.0} ns/step alone, {:.0} \
         with checkpoints and bodies); longest replay {worst} steps",
        total_t * 1e9 / total_replayed.max(1) as f64,
        t_alone * 1e9 / steps as f64,
        t_app * 1e9 / steps as f64
    );
}
