//! Where the CPU time and memory of one `clusterscope run` go (issue 44's RaftScope side-by-side:
//! `benches/raftscope/raft-5-100rps-120s.toml`). Measurement only: the run is built as the CLI
//! builds it (`body_budget` 0, default limits), then run in one call, with the run's tracing and
//! the model's invariant checks switchable, and it prints the thread's CPU time of the run (from
//! /proc/thread-self/schedstat, in ns), its steps and messages, the trace's size
//! (`Trace::approx_bytes`, records and log lines), and the heap: peak and live bytes counted by a
//! global allocator (the peak RSS of the process is this plus ~10 MB of binary and startup).
//!
//! `cargo run --release -p clusterscope-cli --example raft_probe -- FILE.toml [--no-trace]
//! [--set KEY=VALUE ...] [--reps N]` (the median of N runs' CPU; default 5)
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::{parse_override, Scenario};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        grew(n);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// CPU time of this thread so far, ns (the first field of schedstat).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn mb(b: usize) -> f64 {
    b as f64 / (1 << 20) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args
        .first()
        .expect("usage: raft_probe FILE.toml [--no-trace] [--set K=V ...] [--reps N]");
    let tracing = !args.iter().any(|a| a == "--no-trace");
    let mut overrides = toml::Table::new();
    let mut reps = 5;
    for (i, a) in args.iter().enumerate() {
        if a == "--set" {
            let (k, v) = parse_override(&args[i + 1]).expect("--set KEY=VALUE");
            overrides.insert(k, v);
        }
        if a == "--reps" {
            reps = args[i + 1].parse().expect("--reps N");
        }
    }
    let text = std::fs::read_to_string(file).expect("scenario file");
    let limits = Limits::default();
    let s = Scenario::parse(file, &text, &limits).expect("scenario");
    let v = Run::default_variant(&s);
    let opts = RunOptions {
        body_budget: 0,
        limits,
        ..RunOptions::default()
    };
    let mut cpus = Vec::new();
    for rep in 0..reps {
        let (live0, peak0, allocs0) = (
            LIVE.load(Ordering::Relaxed),
            PEAK.swap(LIVE.load(Ordering::Relaxed), Ordering::Relaxed),
            ALLOCS.load(Ordering::Relaxed),
        );
        let _ = peak0;
        let c0 = thread_cpu_ns();
        let mut r = Run::new(s.clone(), &v, None, &overrides, &opts).expect("run");
        r.engine.set_tracing(tracing);
        let end = s.duration();
        r.engine.run_until(end, u64::MAX).expect("run_until");
        let cpu = thread_cpu_ns() - c0;
        cpus.push(cpu);
        if rep + 1 == reps {
            let e = &r.engine;
            let t = e.trace();
            let peak = PEAK.load(Ordering::Relaxed) - live0;
            let live = LIVE.load(Ordering::Relaxed) - live0;
            println!(
                "tracing {tracing} overrides {overrides:?}: steps {} messages sent {} violations {} \
                 hash {:016x}",
                e.steps(),
                e.messages_sent(),
                e.violations(),
                e.hash().0
            );
            println!(
                "trace approx {:.1} MiB ({:.1} B/step): {} records, {} log lines; engine approx {:.1} MiB",
                mb(t.approx_bytes()),
                t.approx_bytes() as f64 / e.steps().max(1) as f64,
                t.recs.len(),
                t.logs.len(),
                mb(e.approx_bytes())
            );
            println!(
                "heap of the run: peak {:.1} MiB, live at the end {:.1} MiB; {} allocations ({:.2}/step)",
                mb(peak),
                mb(live),
                ALLOCS.load(Ordering::Relaxed) - allocs0,
                (ALLOCS.load(Ordering::Relaxed) - allocs0) as f64 / e.steps().max(1) as f64
            );
        }
        drop(r);
    }
    cpus.sort_unstable();
    println!(
        "thread CPU of the run: median {:.1} ms, min {:.1} ms of {reps}",
        cpus[cpus.len() / 2] as f64 / 1e6,
        cpus[0] as f64 / 1e6
    );
}
