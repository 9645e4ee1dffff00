//! Print where a run's memory goes (trace, logs, maps, queues), its trace hash, what one
//! checkpoint costs, and the run's heap allocations by size (allocation is a visible share of a
//! big run's time; the sizes tell which structures to look at).
//! `cargo run --release --example probe -- <scenario> [secs] [ckpt]`: with `ckpt`, the web
//! app's run options (`checkpointing`, message bodies, `Limits::browser()`), as a link's seek.
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live heap bytes, so the probe can tell what one checkpoint (a clone of the state)
/// costs, and allocations and reallocations by size class (`BY_SIZE[b]`: sizes below 2^b).
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static BY_SIZE: [AtomicUsize; 32] = [const { AtomicUsize::new(0) }; 32];
static REALLOCS_BY_SIZE: [AtomicUsize; 32] = [const { AtomicUsize::new(0) }; 32];

fn size_class(n: usize) -> usize {
    ((usize::BITS - n.leading_zeros()) as usize).min(31)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BY_SIZE[size_class(l.size())].fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_add(n, Ordering::Relaxed);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        REALLOCS_BY_SIZE[size_class(n)].fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

/// Counts by size class since the last call, zeroed.
fn take(counts: &[AtomicUsize]) -> Vec<usize> {
    counts
        .iter()
        .map(|c| c.swap(0, Ordering::Relaxed))
        .collect()
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args
        .get(1)
        .map(String::as_str)
        .unwrap_or("cassandra-21636-rolling-upgrade");
    let secs: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(60);
    let s = builtin::get(name).unwrap();
    let v = Run::default_variant(&s);
    let mut r = Run::new(
        s,
        &v,
        None,
        &toml::Table::new(),
        &if args.get(3).map(String::as_str) == Some("ckpt") {
            RunOptions {
                checkpointing: true,
                body_budget: 4 << 20,
                limits: Limits::browser(),
            }
        } else {
            RunOptions {
                body_budget: 0,
                ..RunOptions::default()
            }
        },
    )
    .unwrap();
    take(&BY_SIZE);
    take(&REALLOCS_BY_SIZE);
    r.engine.run_until(secs * 1_000_000, u64::MAX).unwrap();
    let (allocs, reallocs) = (take(&BY_SIZE), take(&REALLOCS_BY_SIZE));
    let t = r.engine.trace();
    let sim = r.sim_of::<clusterscope_core::gossip::Gossip>().unwrap();
    let states: usize = sim
        .nodes
        .iter()
        .map(|n| n.state.states().iter().flatten().count())
        .sum();
    let app: usize = sim
        .nodes
        .iter()
        .map(|n| {
            n.state
                .states()
                .iter()
                .flatten()
                .map(|e| e.states.len())
                .sum::<usize>()
        })
        .sum();
    let pending: u64 = sim
        .nodes
        .iter()
        .map(|n| n.exec_stats.iter().map(|e| e.pending as u64).sum::<u64>())
        .sum();
    println!("steps {} recs {} ({} B each, cap {}) logs {} log-bytes {} in_flight {} queue {} pending-tasks {}",
        sim.steps, t.recs.len(), clusterscope_core::engine::trace::Recs::PACKED_BYTES, t.recs.capacity(), t.logs.len(),
        t.logs.iter().map(|l| t.text(l).len()).sum::<usize>(), sim.in_flight.len(), sim.pending_events(), pending);
    println!(
        "trace hash {:016x} (optimisations must keep it)",
        sim.hash.0
    );
    // The message bodies kept (`ckpt`: the web app's budget), which the trace hash leaves out.
    let bodies_hash = t
        .bodies
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, (id, b)| {
            id.to_le_bytes()
                .iter()
                .chain(b.as_bytes())
                .fold(h, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3))
        });
    println!(
        "bodies {} ({} bytes), hash {bodies_hash:016x}",
        t.bodies.len(),
        t.body_bytes
    );
    println!(
        "endpoint states {states}, app states {app}; trace approx {} MB; bytes/step {:.1}",
        t.approx_bytes() / 1_000_000,
        t.approx_bytes() as f64 / sim.steps as f64
    );
    let (b0, a0) = (LIVE.load(Ordering::Relaxed), ALLOCS.load(Ordering::Relaxed));
    let copy = sim.clone();
    let (b1, a1) = (LIVE.load(Ordering::Relaxed), ALLOCS.load(Ordering::Relaxed));
    println!(
        "one checkpoint (a clone of the state): {:.2} MB in {} allocations (estimated {:.2} MB); \
         checkpoints held {}, at most {}",
        (b1 - b0) as f64 / 1e6,
        a1 - a0,
        sim.approx_bytes() as f64 / 1e6,
        r.engine.checkpoint_count(),
        r.engine.max_checkpoints()
    );
    drop(copy);
    let steps = sim.steps.max(1) as f64;
    println!(
        "during the run: {} allocations ({:.3}/step), {} reallocations; by size:",
        allocs.iter().sum::<usize>(),
        allocs.iter().sum::<usize>() as f64 / steps,
        reallocs.iter().sum::<usize>()
    );
    for (b, (a, re)) in allocs.iter().zip(&reallocs).enumerate() {
        if a + re > 0 {
            println!("  < 2^{b:<2} bytes: {a:>9} allocations, {re:>9} reallocations to it");
        }
    }
}
