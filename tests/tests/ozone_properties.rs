//! Property tests of the Ozone model (docs/model/ozone.md): random interleavings of
//! WriteChunks from any datanode's client, SCM container closes, writes held at the hold point
//! (between startTransaction and appendTransaction), chunk writers slowed down, and datanodes
//! stopped or killed and restarted, on a RATIS/THREE pipeline with the HDDS-17673 fix (`fixed`:
//! `recheck_in_pre_append`, Ratis releasing the permit of a rejected append):
//!
//! - no `readStateMachineData` fails on any datanode;
//! - the pipeline stays OPEN at SCM and every state machine healthy (every stopped datanode comes
//!   back: none is really lost);
//! - no acknowledged write is lost: every WriteChunk a client saw acknowledged is, at the end,
//!   applied on every datanode with its bytes in the block file; and no client request is left
//!   unanswered.
//!
//! `the_checker_catches_the_close_race` runs the HDDS-17673 interleaving through the same checker:
//! without the fix the first property fails.
//!
//! Default 48 cases (a few seconds); more with
//! `CLUSTERSCOPE_PROPTEST_CASES=10000 cargo test --release -p clusterscope-tests --test ozone_properties`.

use clusterscope_core::engine::action::{Action, Dur};
use clusterscope_core::engine::network::Link;
use clusterscope_core::engine::{Engine, NodeStatus, Sim, Topology};
use clusterscope_core::limits::Limits;
use clusterscope_core::ozone::view::Ozone;
use clusterscope_core::ozone::{Csm, OzCmd, OzoneParams};
use clusterscope_core::raft::node::Payload;
use clusterscope_core::raft::params::RaftParams;
use clusterscope_core::raft::Raft;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

const MS: u64 = 1_000;
const NAMES: [&str; 4] = ["dn1", "dn2", "dn3", "scm"];
const CONTAINERS: u32 = 3;

#[derive(Clone, Debug)]
enum Op {
    /// The client on a datanode writes a chunk to a container.
    Write(usize, u32),
    /// SCM closes a container.
    Close(u32),
    /// Hold every WriteChunk at the hold point of a datanode for a while.
    Hold(usize, u64),
    /// Slow one of a datanode's chunk executors (`ChunkWriter-<i>`, of Ozone's default 10) by
    /// `extra` ms per chunk for a while.
    SlowWriter(usize, u8, u64, u64),
    /// Stop (or kill -9) a datanode, start it again after a while.
    Restart(usize, bool, u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..3usize, 1..=CONTAINERS).prop_map(|(n, c)| Op::Write(n, c)),
        1 => (1..=CONTAINERS).prop_map(Op::Close),
        2 => (0..3usize, 1..1_500u64).prop_map(|(n, d)| Op::Hold(n, d)),
        2 => (0..3usize, 0..10u8, 1..200u64, 1..2_000u64)
            .prop_map(|(n, w, x, d)| Op::SlowWriter(n, w, x, d)),
        2 => (0..3usize, any::<bool>(), 1..3_000u64).prop_map(|(n, k, d)| Op::Restart(n, k, d)),
    ]
}

fn cmd(at: u64, node: usize, command: String) -> (u64, Action) {
    (
        at,
        Action::Command {
            node: NAMES[node].into(),
            command,
        },
    )
}

/// The fault schedule of a case (a scheduled action that no longer applies, e.g. a command to a
/// stopped datanode or closing a container SCM already closed, is skipped by the engine).
fn schedule(ops: &[(u64, Op)]) -> Vec<(u64, Action)> {
    let mut s = vec![cmd(100 * MS, 0, "timeout".into())];
    let mut t = 500 * MS;
    for (k, (gap, op)) in ops.iter().enumerate() {
        t += gap * MS;
        match op {
            Op::Write(n, c) => s.push(cmd(t, *n, format!("client-write-chunk W{k} {c} {k} 1024"))),
            Op::Close(c) => s.push(cmd(t, 3, format!("close-container {c}"))),
            Op::Hold(n, d) => {
                s.push(cmd(t, *n, "hold-writes".into()));
                s.push(cmd(t + d * MS, *n, "release-writes".into()));
            }
            Op::SlowWriter(n, w, x, d) => {
                s.push((
                    t,
                    Action::Delay {
                        node: NAMES[*n].into(),
                        executor: format!("ChunkWriter-{w}"),
                        extra: Dur(x * MS),
                    },
                ));
                s.push((
                    t + d * MS,
                    Action::Release {
                        node: NAMES[*n].into(),
                        executor: format!("ChunkWriter-{w}"),
                    },
                ));
            }
            Op::Restart(n, kill, d) => s.push((
                t,
                Action::Restart {
                    node: NAMES[*n].into(),
                    kill: *kill,
                    down_for: Some(Dur(d * MS)),
                },
            )),
        }
    }
    s.sort_by_key(|(t, _)| *t);
    s
}

fn run(seed: u64, ops: &[(u64, Op)], fixed: bool) -> Result<(), String> {
    let sched = schedule(ops);
    let topo = Topology {
        names: NAMES.iter().map(|s| s.to_string()).collect(),
        dcs: vec!["dc1".into(); 4],
        racks: vec!["r1".into(); 4],
        seeds: vec![0],
    };
    let mut raft = toml::Table::new();
    raft.insert("preset".into(), "ozone".into());
    raft.insert("group_size".into(), 3.into());
    let p = RaftParams::from_table(raft)?;
    // Long enough after the last action for restarts, elections, catch-up and a client's retry
    // of a request its server lost (after `client_timeout`: Ozone's client waits 60 s).
    let end = sched.last().map_or(0, |(t, _)| *t) + p.client_timeout.0 + 15_000 * MS;
    let sm = Csm {
        p: OzoneParams {
            containers: CONTAINERS,
            recheck_in_pre_append: fixed,
            // SCM's close commands go out at once (Ozone waits 150 s by default, its
            // integration tests 1 s): the closes interleave with the other operations as drawn.
            close_container_wait: Dur(0),
            // ...and reach each datanode with its next heartbeat, within 100 ms (Ozone's
            // default is 30 s, its integration tests' 1 s).
            heartbeat_interval: Dur(100 * MS),
            ..OzoneParams::default()
        },
        dns: 3,
        scm: 3,
        start: Default::default(),
    };
    let proto: Ozone = Raft::new(p, sm, &topo)?;
    let sim = Sim::new(
        proto,
        topo,
        Link::healthy(MS, 3 * MS),
        seed,
        sched,
        Limits::default(),
    );
    let mut e = Engine::new(sim, false, 0);
    e.run_until(end, 20_000_000).map_err(|e| e.to_string())?;
    check(&e.sim)
}

fn check(sim: &Sim<Ozone>) -> Result<(), String> {
    let dns = &sim.nodes[..3];
    for (i, s) in dns.iter().enumerate() {
        let n = &s.state.sm;
        if n.read_failures > 0 {
            return Err(format!(
                "dn{}: {} readStateMachineData failures",
                i + 1,
                n.read_failures
            ));
        }
    }
    let scm = sim.nodes[3].state.sm.scm.as_ref().unwrap();
    if !scm.pipeline_open {
        return Err("SCM closed the pipeline with every datanode back".into());
    }
    for (i, s) in dns.iter().enumerate() {
        if s.status != NodeStatus::Running {
            return Err(format!("dn{} is not running at the end", i + 1));
        }
        if !s.state.sm.healthy {
            return Err(format!("dn{}'s state machine is unhealthy", i + 1));
        }
        let waiting = s.state.client.outstanding.len();
        if waiting > 0 {
            return Err(format!(
                "dn{}'s client still waits for {waiting} requests long after the last action",
                i + 1
            ));
        }
    }
    if sim.violations > 0 {
        return Err(format!("{} Raft invariant violations", sim.violations));
    }
    // The committed log: the longest committed prefix any datanode holds.
    let best = dns.iter().max_by_key(|s| s.state.commit).unwrap();
    let log = &best.state.log;
    for (i, s) in dns.iter().enumerate() {
        for &(idx, term) in &s.state.ghost.acked {
            let entry = log
                .get(idx as usize - 1)
                .filter(|e| e.term == term)
                .ok_or_else(|| {
                    format!(
                        "dn{}'s client saw index {idx} (term {term}) acknowledged; it is not in the committed log",
                        i + 1
                    )
                })?;
            let Payload::Client {
                cmd:
                    OzCmd::WriteChunk {
                        c,
                        block,
                        off,
                        len,
                        tag,
                    },
                ..
            } = &entry.payload
            else {
                continue;
            };
            for (j, d) in dns.iter().enumerate() {
                if d.state.applied < idx {
                    return Err(format!(
                        "acknowledged {tag} (index {idx}) not applied on dn{} (applied {})",
                        j + 1,
                        d.state.applied
                    ));
                }
                let have = d.state.sm.files.get(&(*c, *block)).copied().unwrap_or(0);
                if have < off + len {
                    return Err(format!(
                        "acknowledged {tag} (index {idx}, c{c} b{block}) lost on dn{}: {have} of {} bytes",
                        j + 1,
                        off + len
                    ));
                }
            }
        }
    }
    Ok(())
}

fn cases() -> u32 {
    ["CLUSTERSCOPE_PROPTEST_CASES", "PROPTEST_CASES"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    /// With the fix: no read failure, the pipeline stays open, no acknowledged write lost.
    #[test]
    fn fixed_pipeline_survives_random_interleavings(
        seed in 0u64..1_000_000,
        ops in prop::collection::vec((0u64..600, op()), 1..24),
    ) {
        if let Err(e) = run(seed, &ops, true) {
            return Err(TestCaseError::fail(format!("seed {seed}: {e}")));
        }
    }
}

/// The HDDS-17673 interleaving (as scenarios/hdds-17673-close-race.toml): dn2 down, a write held
/// at the leader's hold point while SCM closes its container, released, dn2 back. The same ops
/// pass the checker with the fix; without it the leader's readStateMachineData fails.
#[test]
fn the_checker_catches_the_close_race() {
    let ops = vec![
        (500, Op::Restart(1, true, 3_000)), // dn2 down from 1 s to 4 s
        (0, Op::Write(0, 2)),               // W1 at 1 s to container 2 commits with dn3
        (500, Op::Hold(0, 900)),            // hold at 1.5 s, release at 2.4 s
        (100, Op::Write(0, 1)),             // W3 to container 1: held
        (300, Op::Close(1)),                // SCM closes container 1 at 1.9 s
    ];
    run(7, &ops, true).expect("with the fix");
    let err = run(7, &ops, false).expect_err("without the fix the race must show");
    assert!(err.contains("readStateMachineData"), "{err}");
}
