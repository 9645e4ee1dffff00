//! Checkpoints share the gossip endpoint state maps copy-on-write (issue 20,
//! `core/src/gossip/cowmap.rs`): a write after a checkpoint must copy, never reach into the
//! checkpoint. These tests restore checkpoints taken across a rolling restart (maps change at
//! every restart) and compare what they replay to with a run that never jumped.

use clusterscope_core::engine::trace::TraceHash;
use clusterscope_core::engine::Sim;
use clusterscope_core::gossip::cowmap::CowMap;
use clusterscope_core::gossip::state::{EndpointState, HeartBeat};
use clusterscope_core::gossip::Gossip;
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;

const SCENARIO: &str = "cassandra-21636-rolling-upgrade";
/// 30 s of warm-up, then four restarts (one every 12 s).
const UNTIL_US: u64 = 80_000_000;

fn run(checkpointing: bool) -> Run {
    let s = builtin::get(SCENARIO).expect("built-in");
    let v = Run::default_variant(&s);
    let opts = RunOptions {
        checkpointing,
        body_budget: 0,
        limits: Limits::default(),
    };
    let mut r = Run::new(s, &v, None, &toml::Table::new(), &opts).expect("runs");
    // Many checkpoints, so that jumps restore ones taken before, during and after restarts.
    r.engine.set_checkpoint_span(4_000_000);
    r
}

/// Every node's endpoint state map as the model reads it, and the state hash.
fn observe(r: &Run) -> (TraceHash, Vec<Vec<Option<EndpointState>>>) {
    let sim: &Sim<Gossip> = r.sim_of::<Gossip>().expect("a gossip run");
    let maps = sim.nodes.iter().map(|n| n.state.states()).collect();
    (r.engine.hash(), maps)
}

#[test]
fn restored_checkpoints_replay_to_the_states_of_a_run_that_never_jumped() {
    let mut a = run(true);
    a.engine.run_until(UNTIL_US, u64::MAX).expect("runs");
    let frontier = a.engine.frontier();
    assert!(
        a.engine.checkpoint_count() >= 10,
        "checkpoints: {}",
        a.engine.checkpoint_count()
    );
    // Targets spread over the run, visited out of order by the jumping run.
    let mut targets: Vec<u64> = [3, 41, 47, 52, 58, 66, 71, 77, 89, 97]
        .iter()
        .map(|p| frontier * p / 100)
        .collect();
    targets.sort();
    let mut b = run(false);
    let mut expected = Vec::new();
    for &t in &targets {
        while b.engine.steps() < t {
            assert!(b.engine.step().expect("steps"));
        }
        expected.push(observe(&b));
    }
    for &i in &[5, 0, 9, 3, 7, 1, 8, 2, 6, 4, 9, 0] {
        a.engine.jump_to_step(targets[i]).expect("jumps");
        assert_eq!(a.engine.steps(), targets[i]);
        let got = observe(&a);
        assert!(
            got == expected[i],
            "step {}: the state after restoring a checkpoint and replaying differs from a run \
             that never jumped (hash {:?} vs {:?})",
            targets[i],
            got.0,
            expected[i].0
        );
    }
}

fn entry(v: u32) -> Option<EndpointState> {
    Some(EndpointState::new(
        1,
        HeartBeat {
            generation: 1,
            version: v,
        },
        Vec::new(),
        true,
    ))
}

#[test]
fn a_cow_map_write_copies_only_its_chunk_and_leaves_the_copy_alone() {
    let n = 40;
    let mut m = CowMap::from_vec((0..n).map(entry).collect());
    let snap = m.clone();
    for i in 0..n as usize {
        assert!(m.shares_chunk_with(&snap, i));
    }
    m[20] = entry(1000);
    assert_eq!(m[20], entry(1000));
    assert_eq!(snap[20], entry(20), "the checkpoint saw a later write");
    for i in 0..n as usize {
        let same_chunk = i / clusterscope_core::gossip::cowmap::CHUNK
            == 20 / clusterscope_core::gossip::cowmap::CHUNK;
        assert_eq!(m.shares_chunk_with(&snap, i), !same_chunk, "entry {i}");
        if i != 20 {
            assert_eq!(m[i], snap[i]);
        }
    }
    // A shared chunk counts a share of its bytes in each holder.
    assert!(snap.approx_bytes() < CowMap::from_vec((0..n).map(entry).collect()).approx_bytes());
}
