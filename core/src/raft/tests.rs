//! Unit tests of the Raft model through `Engine<RaftKv>` directly, and every `scenarios/raft-*`
//! file x variant through the generic runner.

use super::params::RaftParams;
use super::sm::Kv;
use super::{Raft, RaftKv};
use crate::engine::action::Action;
use crate::engine::network::Link;
use crate::engine::{Engine, NodeId, Sim};
use crate::limits::Limits;
use crate::model::{Model, QValue, Query};
use crate::pingpong::topology;
use crate::runner::{Run, RunOptions};
use crate::scenario::builtin;
use crate::time::{US_PER_MS, US_PER_S};

pub fn engine(n: u32, params: &str, seed: u64) -> Engine<RaftKv> {
    engine_with(n, params, seed, false)
}

/// [`engine`] with tracing on and message bodies recorded: for tests that read the replies'
/// fields from their rendered bodies (`tests_code`).
pub(super) fn traced_engine(n: u32, params: &str, seed: u64) -> Engine<RaftKv> {
    engine_with(n, params, seed, true)
}

fn engine_with(n: u32, params: &str, seed: u64, traced: bool) -> Engine<RaftKv> {
    let t: toml::Table = toml::from_str(params).unwrap();
    let p = RaftParams::from_table(t).unwrap();
    let topo = topology(n);
    let proto = Raft::new(p, Kv, &topo).unwrap();
    let mut sim = Sim::new(
        proto,
        topo,
        Link::healthy(500, 1_500),
        seed,
        vec![],
        Limits::default(),
    );
    if traced {
        sim.set_tracing(true);
    }
    Engine::new(sim, false, if traced { 64 << 20 } else { 0 })
}

// Helpers the Raft test modules share (tests_ratis, tests_rules, tests_terms, tests_code).

/// Stall the executor `executor` on the nodes `0..n`.
pub(super) fn stall_all(e: &mut Engine<RaftKv>, n: u32, executor: &str) {
    for i in 0..n {
        let node = name(e, i);
        act(
            e,
            Action::Stall {
                node,
                executor: executor.into(),
            },
        );
    }
}

pub(super) fn leader(e: &Engine<RaftKv>) -> NodeId {
    let l = RaftKv::leaders(&e.sim);
    assert_eq!(l.len(), 1, "one leader: {l:?}");
    l[0].0
}

pub(super) fn act(e: &mut Engine<RaftKv>, a: Action) {
    e.apply_user_action(a).unwrap();
}

pub(super) fn name(e: &Engine<RaftKv>, id: NodeId) -> String {
    e.sim.topo.name(id).to_string()
}

pub(super) fn command(e: &mut Engine<RaftKv>, node: NodeId, command: &str) {
    let node = name(e, node);
    act(
        e,
        Action::Command {
            node,
            command: command.into(),
        },
    );
}

pub(super) fn run_for(e: &mut Engine<RaftKv>, us: u64) {
    let t = e.sim.now + us;
    e.run_until(t, u64::MAX).unwrap();
}

/// Three nodes with `params`, a leader elected (the first election timeout is at most
/// 2 x max) and three puts committed on all; returns the engine, the leader and a follower.
pub(super) fn settled(params: &str, seed: u64) -> (Engine<RaftKv>, NodeId, NodeId) {
    let mut e = engine(3, params, seed);
    let max = e.sim.proto.p.timeout_max.0;
    run_for(&mut e, 2 * max + US_PER_S);
    let l = leader(&e);
    let f = (l + 1) % 3;
    for i in 0..3 {
        command(&mut e, l, &format!("client-put a{i} {i}"));
    }
    run_for(&mut e, 200 * US_PER_MS);
    (e, l, f)
}

/// Both ways between `a` and every other node of `n`: down or up again.
/// Drops the messages from `a` to `b` (and back, unless `one_way`).
pub(super) fn drop_link(e: &mut Engine<RaftKv>, a: NodeId, b: NodeId, one_way: bool) {
    let (from, to) = (name(e, a), name(e, b));
    act(
        e,
        Action::DropLink {
            from,
            to,
            one_way,
            down_for: None,
        },
    );
}

pub(super) fn isolate(e: &mut Engine<RaftKv>, a: NodeId, n: u32, down: bool) {
    for b in (0..n).filter(|&b| b != a) {
        let (from, to) = (name(e, a), name(e, b));
        act(
            e,
            if down {
                Action::DropLink {
                    from,
                    to,
                    one_way: false,
                    down_for: None,
                }
            } else {
                Action::HealLink {
                    from,
                    to,
                    one_way: false,
                }
            },
        );
    }
}

fn leaders(e: &Engine<RaftKv>) -> Vec<(u32, u64)> {
    RaftKv::leaders(&e.sim)
}

fn cmd(e: &mut Engine<RaftKv>, node: &str, c: &str) {
    act(
        e,
        Action::Command {
            node: node.into(),
            command: c.into(),
        },
    );
}

#[test]
fn elects_one_leader_and_replicates_writes() {
    for seed in 0..20 {
        let mut e = engine(5, "client_rate = 50", seed);
        e.run_until(5 * US_PER_S, u64::MAX).unwrap();
        let l = leaders(&e);
        assert_eq!(l.len(), 1, "seed {seed}: {l:?}");
        let acked: u64 = e.sim.nodes.iter().map(|s| s.state.client.acked).sum();
        assert!(acked > 150, "seed {seed}: only {acked} writes acknowledged");
        let lead = &e.sim.nodes[l[0].0 as usize].state;
        for s in &e.sim.nodes {
            assert_eq!(s.state.leader, Some(l[0].0));
            assert!(
                lead.commit - s.state.applied < 10,
                "followers apply what commits"
            );
        }
        assert_eq!(e.sim.violations, 0);
    }
}

/// The plots' samples: a stopped node has no commitIndex or lastApplied (NaN: a gap in the
/// line), a running one its own.
#[test]
fn a_stopped_node_samples_no_commit_index() {
    let mut e = engine(3, "client_rate = 20", 3);
    e.run_until(3 * US_PER_S, u64::MAX).unwrap();
    let (old, _) = leaders(&e)[0];
    let sample = |e: &Engine<RaftKv>| {
        let mut out = Vec::new();
        e.sim.proto.sample(&e.sim, &mut out);
        out
    };
    let s = sample(&e);
    assert_eq!(s.len(), 3 + 3 + 2);
    assert_eq!(
        s[old as usize],
        e.sim.nodes[old as usize].state.commit as f64
    );
    assert!(s[old as usize] > 0.0);
    let name = e.sim.topo.name(old).to_string();
    act(&mut e, Action::Kill { node: name });
    let s = sample(&e);
    assert!(
        s[old as usize].is_nan() && s[3 + old as usize].is_nan(),
        "{s:?}"
    );
    let other = (old as usize + 1) % 3;
    assert_eq!(s[other], e.sim.nodes[other].state.commit as f64);
    // Its matchIndex row ("while it leads") has no values either.
    assert!(e.sim.proto.pair_value(&e.sim, old, other as u32).is_nan());
    assert_eq!(s[3 + other], e.sim.nodes[other].state.applied as f64);
}

#[test]
fn leader_crash_reelects_and_log_survives_kill() {
    let mut e = engine(3, "client_rate = 20", 3);
    e.run_until(3 * US_PER_S, u64::MAX).unwrap();
    let (old, t) = leaders(&e)[0];
    let name = e.sim.topo.name(old).to_string();
    let before = e.sim.nodes[old as usize].state.clone();
    act(&mut e, Action::Kill { node: name.clone() });
    let after = &e.sim.nodes[old as usize].state;
    assert_eq!(
        (after.term, after.voted_for),
        (before.term, before.voted_for)
    );
    assert_eq!(
        after.last(),
        before.log_flushed,
        "the flushed log survives, the rest is lost"
    );
    assert_eq!(
        (after.commit, after.applied),
        (0, 0),
        "volatile state is gone"
    );
    e.run_until(5 * US_PER_S, u64::MAX).unwrap();
    let l = leaders(&e);
    assert_eq!(l.len(), 1);
    assert!(l[0].0 != old && l[0].1 > t);
    act(&mut e, Action::Start { node: name });
    // Down 2 s, it cost the new leader's appender a dozen refused requests: it sleeps 0.5-1.5 s
    // after each (`sleepForErrors`), so the first request after the restart and the entries
    // after its reply may each wait out one sleep.
    e.run_until(9 * US_PER_S, u64::MAX).unwrap();
    let n = &e.sim.nodes[old as usize].state;
    assert_eq!(n.leader, Some(l[0].0));
    assert!(
        n.applied > before.applied,
        "the restarted node replays and catches up"
    );
    assert_eq!(e.sim.violations, 0);
}

#[test]
fn generated_puts_store_the_request_number() {
    let mut e = engine(3, "client_rate = 50", 1);
    e.run_until(3 * US_PER_S, u64::MAX).unwrap();
    let (l, _) = leaders(&e)[0];
    let kv = &e.sim.nodes[l as usize].state.sm;
    assert!(kv.applied_puts > 16, "applied {}", kv.applied_puts);
    assert_eq!(kv.map.len(), 16, "keys k0..k15: {:?}", kv.map.keys());
    for (k, v) in &kv.map {
        // k{n % 16} = n, n counting this client incarnation's requests from 1.
        let n: u64 = v.parse().unwrap_or_else(|_| panic!("{k} = {v}"));
        assert!((1..=kv.applied_puts * 3).contains(&n), "{k} = {v}");
        assert_eq!(**k, *format!("k{}", n % 16), "{k} = {v}");
    }
}

#[test]
fn stalled_apply_thread_lets_commit_run_ahead() {
    let mut e = engine(3, "client_rate = 50", 1);
    e.run_until(2 * US_PER_S, u64::MAX).unwrap();
    let (l, _) = leaders(&e)[0];
    let name = e.sim.topo.name(l).to_string();
    act(
        &mut e,
        Action::Stall {
            node: name.clone(),
            executor: "StateMachineUpdater".into(),
        },
    );
    let acked0: u64 = e.sim.nodes[0].state.client.acked;
    e.run_until(4 * US_PER_S, u64::MAX).unwrap();
    let n = &e.sim.nodes[l as usize].state;
    assert!(
        n.commit > n.applied + 50,
        "commit {} applied {}",
        n.commit,
        n.applied
    );
    assert_eq!(
        e.sim.nodes[0].state.client.acked, acked0,
        "no reply while the leader cannot apply"
    );
    act(
        &mut e,
        Action::Release {
            node: name,
            executor: "StateMachineUpdater".into(),
        },
    );
    e.run_until(5 * US_PER_S, u64::MAX).unwrap();
    let n = &e.sim.nodes[l as usize].state;
    assert!(n.commit - n.applied < 5);
    assert!(e.sim.nodes[0].state.client.acked > acked0 + 100);
    assert!(e.sim.nodes[0].state.client.lat_max > US_PER_S);
}

#[test]
fn commands_and_params_are_checked() {
    let mut e = engine(3, "", 1);
    e.run_until(US_PER_S, u64::MAX).unwrap();
    let err = e
        .apply_user_action(Action::Command {
            node: "n0".into(),
            command: "client-put x".into(),
        })
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("client-put takes 2 arguments (client-put KEY VALUE), not 1"),
        "{err}"
    );
    let err = e
        .apply_user_action(Action::Command {
            node: "n0".into(),
            command: "vote".into(),
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("timeout"), "{err}");
    let (l, _) = leaders(&e)[0];
    let err = e
        .apply_user_action(Action::Command {
            node: e.sim.topo.name(l).into(),
            command: "timeout".into(),
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("leader"), "{err}");
    let t: toml::Table = toml::from_str("client_node = \"zz\"").unwrap();
    let p = RaftParams::from_table(t).unwrap();
    let err = Raft::new(p, Kv, &topology(3)).unwrap_err();
    assert!(err.contains("client_node") && err.contains("n0"), "{err}");
    // A node outside the Raft group takes no Raft command, and no client of it sends load.
    let t: toml::Table = toml::from_str("group_size = 3").unwrap();
    let raft = Raft::new(RaftParams::from_table(t).unwrap(), Kv, &topology(4)).unwrap();
    use crate::engine::Protocol;
    assert_eq!(raft.check_command(0, "timeout"), Ok(()));
    assert_eq!(raft.check_command(2, "client-get x"), Ok(()));
    for c in ["timeout", "client-put x 1"] {
        let err = raft.check_command(3, c).unwrap_err();
        assert!(
            err.contains(&format!("\"{c}\" on n3: n3 is outside the Raft group"))
                && err.contains("n0, n1, n2 form it")
                && err.contains("n3 takes no commands"),
            "{err}"
        );
    }
    let t: toml::Table = toml::from_str("group_size = 3\nclient_node = \"n3\"").unwrap();
    let err = Raft::new(RaftParams::from_table(t).unwrap(), Kv, &topology(4)).unwrap_err();
    assert!(
        err.contains("params.client_node \"n3\" is outside the Raft group")
            && err.contains("n0, n1, n2 form it"),
        "{err}"
    );
}

#[test]
fn timeout_command_starts_an_election_and_put_applies_everywhere() {
    let mut e = engine(3, "timeout_min = \"1h\"\ntimeout_max = \"1h\"", 1);
    e.run_until(US_PER_S, u64::MAX).unwrap();
    assert!(leaders(&e).is_empty());
    cmd(&mut e, "n2", "timeout");
    e.run_until(2 * US_PER_S, u64::MAX).unwrap();
    assert_eq!(leaders(&e), vec![(2, 1)]);
    cmd(&mut e, "n0", "client-put x 7");
    e.run_until(3 * US_PER_S, u64::MAX).unwrap();
    let q = Query {
        view: "kv",
        node: Some(1),
        peer: None,
        contains: None,
        from: 0,
        key: Some("x"),
    };
    assert_eq!(
        e.sim.proto.query(&e.sim, &q).unwrap().unwrap(),
        QValue::Text("7".into())
    );
    assert_eq!(e.sim.nodes[0].state.client.acked, 1);
    assert_eq!(
        e.sim.nodes[0].state.client.target, 2,
        "the client followed the NotLeader hint"
    );
}

// ---- scenario files through the runner -------------------------------------------------

/// Every `scenarios/raft-*.toml` is built in, and each variant meets its expectations when the
/// generic runner runs it (tests/tests/scenarios.rs runs every model's; this one keeps the Raft
/// files' feedback inside the core crate).
#[test]
fn scenario_files() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("raft-"))
        .collect();
    on_disk.sort();
    let mut built_in: Vec<String> = builtin::FILES
        .iter()
        .map(|(f, _)| f.to_string())
        .filter(|n| n.starts_with("raft-"))
        .collect();
    built_in.sort();
    assert_eq!(
        on_disk, built_in,
        "every raft scenario file is in builtin::FILES"
    );
    let mut n = 0;
    for sc in builtin::all()
        .into_iter()
        .filter(|s| s.raw.protocol == "raft")
    {
        for v in sc.variant_names() {
            let mut r = Run::new(
                sc.clone(),
                v,
                None,
                &toml::Table::new(),
                &RunOptions {
                    body_budget: 0,
                    ..RunOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{}/{v}: {e}", sc.raw.name));
            let rep = r.run(None).unwrap();
            let failed: Vec<String> = rep
                .expectations
                .iter()
                .filter(|e| !e.passed)
                .map(|e| format!("{}: {}", e.name, e.detail))
                .collect();
            assert!(
                failed.is_empty(),
                "{}/{v}:\n{}",
                sc.raw.name,
                failed.join("\n")
            );
            n += 1;
        }
    }
    assert!(n >= 7, "{n} raft scenario variants");
}

/// The topology overlay: an election-timer arc on every running non-leader (none on the
/// leader), a vote arrow from each voter to the node in its `votedFor`, pre-vote arrows into a
/// pre-candidate, and at the moment a leader takes office a majority's arrows point at it.
#[test]
fn election_arcs_and_vote_edges_follow_the_election() {
    let mut e = engine(5, "", 7);
    let mut saw_pre_vote = false;
    let mut shrinking = 0;
    let mut last_frac = [None::<f64>; 5];
    loop {
        assert!(e.step().unwrap());
        let sim = &e.sim;
        let mut edges = Vec::new();
        sim.proto.edges(sim, &mut edges);
        for ed in &edges {
            match ed.class {
                0 => assert_eq!(sim.nodes[ed.from as usize].state.voted_for, Some(ed.to)),
                1 => {
                    let c = &sim.nodes[ed.to as usize].state;
                    assert_eq!(c.role, super::node::Role::Candidate { pre: true });
                    assert!(c.votes.contains(&ed.from));
                    saw_pre_vote = true;
                }
                k => panic!("edge class {k}"),
            }
            assert!(ed.label.contains(sim.topo.name(ed.to)), "{}", ed.label);
        }
        for i in 0..5u32 {
            let arc = sim.proto.node_arc(sim, i);
            let n = &sim.nodes[i as usize].state;
            if n.is_leader() || sim.nodes[i as usize].status != crate::engine::NodeStatus::Running {
                assert_eq!(arc, None);
                continue;
            }
            let a = arc.expect("a follower or candidate has an election timer");
            assert!((0.0..=1.0).contains(&a.fraction), "{a:?}");
            if last_frac[i as usize].is_some_and(|f| a.fraction < f) {
                shrinking += 1;
            }
            last_frac[i as usize] = Some(a.fraction);
        }
        if let [(l, t)] = leaders(&e)[..] {
            let votes = edges.iter().filter(|d| d.class == 0 && d.to == l).count();
            assert!(
                votes + 1 >= 3,
                "leader of term {t} with {votes} vote arrows"
            );
            assert!(
                edges.iter().all(|d| d.class == 0),
                "no pre-vote arrows once led"
            );
            break;
        }
    }
    assert!(saw_pre_vote, "pre-votes are drawn");
    assert!(shrinking > 0, "timers run down between events");
    // A killed node has neither arc nor arrows.
    let l = leaders(&e)[0].0;
    let voter = (0..5).find(|&v| e.sim.nodes[v as usize].state.voted_for == Some(l) && v != l);
    let voter = voter.expect("someone voted for the leader");
    let name = e.sim.topo.name(voter).to_string();
    act(&mut e, Action::Kill { node: name });
    assert_eq!(e.sim.proto.node_arc(&e.sim, voter), None);
    let mut edges = Vec::new();
    e.sim.proto.edges(&e.sim, &mut edges);
    assert!(edges.iter().all(|d| d.from != voter));
}
