//! Count the heap allocations of a run, by size: `cargo run --release --example allocs --
//! [scenario] [secs]` (default: the 251-node rolling upgrade, 600 s). Allocation is a visible
//! share of a big run's time; this shows which sizes (so which structures) to look at.
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
struct Counting;
static HIST: [AtomicUsize; 24] = [const { AtomicUsize::new(0) }; 24];
static REALLOC: AtomicUsize = AtomicUsize::new(0);
static RH: [AtomicUsize; 24] = [const { AtomicUsize::new(0) }; 24];
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let b = (usize::BITS - l.size().leading_zeros()) as usize;
        HIST[b.min(23)].fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        REALLOC.fetch_add(1, Ordering::Relaxed);
        let b = (usize::BITS - n.leading_zeros()) as usize;
        RH[b.min(23)].fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}
#[global_allocator]
static GLOBAL: Counting = Counting;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args
        .get(1)
        .map(String::as_str)
        .unwrap_or("cassandra-21636-rolling-upgrade");
    let secs: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(600);
    let s = builtin::get(name).expect("a built-in scenario");
    let v = Run::default_variant(&s);
    let mut r = Run::new(
        s,
        &v,
        None,
        &toml::Table::new(),
        &RunOptions {
            body_budget: 0,
            checkpointing: false,
            ..RunOptions::default()
        },
    )
    .unwrap();
    for h in &HIST {
        h.store(0, Ordering::Relaxed);
    }
    REALLOC.store(0, Ordering::Relaxed);
    r.engine.run_until(secs * 1_000_000, u64::MAX).unwrap();
    let steps = r.engine.sim.steps as f64;
    let mut tot = 0;
    for (i, h) in HIST.iter().enumerate() {
        let c = h.load(Ordering::Relaxed);
        tot += c;
        if c > 0 {
            println!("size < 2^{i}: {c} ({:.2}/step)", c as f64 / steps);
        }
    }
    for (i, h) in RH.iter().enumerate() {
        let c = h.load(Ordering::Relaxed);
        if c > 0 {
            println!("reallocations to < 2^{i} bytes: {c}");
        }
    }
    println!(
        "total {tot} allocations ({:.3}/step), {} reallocations",
        tot as f64 / steps,
        REALLOC.load(Ordering::Relaxed)
    );
}
