//! State transitions of the three markAlive echo variants, observed on the packet-loss incident:
//! A and B lose their echoes to each other at ~61 s (expiring at ~71 s); the link heals at 100 s.

use super::params::EchoVariant;
use super::GNode;
use crate::runner::{Run, RunOptions};
use crate::scenario::builtin;
use crate::time::US_PER_S;

const A: u32 = 0;
const B: u32 = 1;

fn run(variant: &str) -> Run {
    run_of("cassandra-21636-packet-loss", variant)
}

fn run_of(scenario: &str, variant: &str) -> Run {
    let s = builtin::get(scenario).unwrap();
    Run::new(
        s,
        variant,
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap()
}

fn at(r: &mut Run, secs: u64) -> GNode {
    r.engine.run_until(secs * US_PER_S, u64::MAX).unwrap();
    r.sim_of::<crate::gossip::Gossip>().unwrap().nodes[A as usize]
        .state
        .clone()
}

#[test]
fn buggy_keeps_the_entry_after_failure_and_skips_until_a_new_generation() {
    let mut r = run("buggy");
    assert_eq!(
        r.sim_of::<crate::gossip::Gossip>().unwrap().proto.p.echo,
        EchoVariant::Buggy
    );
    let a = at(&mut r, 75);
    let entry = a.inflight.get(&B).expect("the failed echo's entry stays");
    let b_obj = a.map[B as usize].as_ref().unwrap().obj;
    assert_eq!(
        entry.obj, b_obj,
        "the entry holds the current EndpointState object"
    );
    assert!(a.counters.echo_failed >= 1);
    let (sent, skipped) = (a.counters.echo_sent, a.counters.echo_skipped);
    let a = at(&mut r, 200);
    assert_eq!(
        a.counters.echo_sent, sent,
        "no echo is ever sent again for this generation"
    );
    assert!(
        a.counters.echo_skipped > skipped + 50,
        "every markAlive is skipped"
    );
    assert!(!a.sees_up(B));
    // A generation change (B restarts) installs a new object: exactly one fresh echo.
    r.engine
        .apply_user_action(crate::engine::action::Action::Restart {
            node: "B".into(),
            kill: false,
            down_for: None,
        })
        .unwrap();
    let a = at(&mut r, 260);
    assert!(
        a.counters.echo_sent > sent,
        "the new generation buys a fresh echo"
    );
    assert!(a.sees_up(B), "and with a healthy link it succeeds");
    assert!(!a.inflight.contains_key(&B), "success removes the entry");
}

#[test]
fn fixed_removes_the_entry_on_failure_and_retries_on_the_next_heartbeat() {
    let mut r = run("fixed");
    let a = at(&mut r, 62);
    let first = a
        .inflight
        .get(&B)
        .expect("markAlive sent an echo into the cut link")
        .clone();
    let expired = (first.sent_at
        + r.sim_of::<crate::gossip::Gossip>()
            .unwrap()
            .proto
            .p
            .request_timeout
            .0)
        / US_PER_S
        + 2;
    let a = at(&mut r, expired);
    assert!(a.counters.echo_failed >= 1);
    assert!(
        a.inflight.get(&B).is_none_or(|e| e.sent_at > first.sent_at),
        "failure removed the stuck entry (a newer one may exist)"
    );
    let sent = a.counters.echo_sent;
    let a = at(&mut r, 99);
    assert!(
        a.counters.echo_sent > sent,
        "later markAlive calls send fresh echoes (still lost while cut)"
    );
    // The link heals at 100 s; an echo sent into the cut link just before must expire first.
    let healed_by = 100
        + r.sim_of::<crate::gossip::Gossip>()
            .unwrap()
            .proto
            .p
            .request_timeout
            .0
            / US_PER_S
        + 2;
    let a = at(&mut r, healed_by);
    assert!(a.sees_up(B), "the first echo after the heal succeeds");
    assert!(a.inflight.is_empty());
}

#[test]
fn legacy_has_no_inflight_map_and_echoes_on_every_mark_alive() {
    let mut r = run("legacy");
    let a = at(&mut r, 99);
    assert!(a.inflight.is_empty());
    assert_eq!(a.counters.echo_skipped, 0);
    assert!(
        a.counters.echo_sent > 20,
        "an echo per markAlive while the link is cut: {}",
        a.counters.echo_sent
    );
    let a = at(&mut r, 102);
    assert!(a.sees_up(B));
}

#[test]
fn mark_dead_clears_the_entry_in_buggy() {
    // While B is UP, shutting B down gracefully makes A run markAsShutdown -> markDead, which
    // removes any inflight entry (the disablegossip workaround relies on it).
    let mut r = run("buggy");
    let a = at(&mut r, 75);
    assert!(a.inflight.contains_key(&B));
    r.engine
        .apply_user_action(crate::engine::action::Action::HealAll {})
        .unwrap();
    r.engine
        .apply_user_action(crate::engine::action::Action::Command {
            node: "B".into(),
            command: "disablegossip".into(),
        })
        .unwrap();
    // B's GOSSIP_SHUTDOWN goes to B's live endpoints; A is not among them (B sees A DOWN), so
    // A's entry stays; C clears nothing because C has none.
    let a = at(&mut r, 80);
    assert!(
        a.inflight.contains_key(&B),
        "B does not announce to A, which it sees DOWN"
    );
    let c = r.sim_of::<crate::gossip::Gossip>().unwrap().nodes[2]
        .state
        .clone();
    assert!(c.map[B as usize].as_ref().unwrap().is_shutdown());
}

/// `applyStateLocally` sorts the map it is given (`Gossiper.stateOrderMap`: by generation, then
/// by address; the model's addresses ascend with the node id), whatever order the entries came
/// in. Three peers of n1 restart with new generations and reach it in one ACK2 in endpoint
/// order; the one with the newest generation is applied last. A live peer's newer heartbeat in
/// the same message takes the common path (no generation mark) and is applied all the same.
#[test]
fn apply_state_locally_takes_entries_by_generation_then_address() {
    use super::state::{Deltas, EndpointState, HeartBeat, Summary};
    use crate::engine::Effect;
    let mut r = run_of("cassandra-21636-restart", "buggy");
    r.engine.run_until(20 * US_PER_S, u64::MAX).unwrap();
    let engine = r.engine_of_mut::<crate::gossip::Gossip>().unwrap();
    let observer = 0;
    let n1 = &engine.sim.nodes[observer as usize].state;
    let generation = n1.map[3].as_ref().unwrap().hb.generation;
    // Heartbeats live in the summary column (the map's copy is brought up to date lazily).
    let heartbeat = n1.summaries[9].unwrap().hb();
    assert!(n1.summaries[9].unwrap().alive, "n10 is a live peer of n1");
    // (peer, generation): endpoint order, not generation order.
    let restarted = [
        (3, generation + 30),
        (5, generation + 10),
        (7, generation + 10),
    ];
    let mut map: Vec<Option<EndpointState>> = vec![None; n1.map.len()];
    for (ep, g) in restarted {
        map[ep] = Some(EndpointState::new(
            0,
            HeartBeat {
                generation: g,
                version: 2,
            },
            Vec::new(),
            true,
        ));
    }
    map[9] = Some(EndpointState::new(
        0,
        HeartBeat {
            generation: heartbeat.generation,
            version: heartbeat.version + 5,
        },
        Vec::new(),
        true,
    ));
    let mut deltas = Deltas::with_capacity(4);
    for ep in [3, 5, 7, 9] {
        let l = Summary::of(map[ep].as_ref()).unwrap();
        assert!(deltas.push_newer(l, &map[..], ep as u32, 0));
    }
    let ((), effects) = engine.sim.effects_of(observer, |g, node, ctx| {
        g.receive_states(node, ctx, &deltas)
    });
    let applied: Vec<u32> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Mark {
                label: "generation",
                peer,
            } => Some(*peer),
            _ => None,
        })
        .collect();
    assert_eq!(applied, [5, 7, 3], "by generation, then by address");
    let n1 = &engine.sim.nodes[observer as usize].state;
    assert_eq!(n1.summaries[9].unwrap().hb_version, heartbeat.version + 5);
    for (ep, g) in restarted {
        assert_eq!(n1.map[ep].as_ref().unwrap().hb.generation, g);
    }
}

/// A SYN keeps its digests in endpoint order and shows them in Cassandra's shuffled wire
/// order; the node's generator moves on exactly as if it had shuffled them, and the ACK lists
/// its requests in the SYN's wire order.
#[test]
fn a_syn_shows_the_wire_order_its_generator_drew() {
    use super::state::Digest;
    use super::Syn;
    let digests: Vec<Digest> = (0..40)
        .map(|ep| Digest {
            ep,
            generation: 7,
            max_version: ep * 3,
        })
        .collect();
    let (mut a, mut b) = (crate::rng::child(5, 1_003), crate::rng::child(5, 1_003));
    let syn = Syn::shuffled(super::state::Digests::from_list(&digests), &mut a);
    let mut shuffled = digests.to_vec();
    crate::rng::shuffle(&mut shuffled, &mut b);
    assert_eq!(a, b, "the generator is where a shuffle leaves it");
    assert_eq!(syn.wire_order(), shuffled);
    assert_ne!(
        syn.wire_order(),
        digests.to_vec(),
        "40 digests do not stay in order"
    );
    let requests = [digests[30], digests[2], digests[17]];
    let listed = syn.in_wire_order(&requests, |d| d.ep);
    let pos = |d: &Digest| shuffled.iter().position(|x| x == d).unwrap();
    assert!(
        listed.windows(2).all(|w| pos(&w[0]) < pos(&w[1])),
        "{listed:?}"
    );
    assert_eq!(
        Syn::in_order(super::state::Digests::from_list(&digests)).wire_order(),
        digests.to_vec()
    );
}

/// The bit-set `down_pairs` against the definition (every running observer, every running
/// peer, `sees_up`), through restarts (stopped nodes are left out on both sides) and lost
/// echoes that leave pairs DOWN, every second of the run.
#[test]
fn down_pairs_match_every_running_pair_that_is_not_seen_up() {
    use crate::engine::NodeStatus;
    let mut seen_stopped = false;
    for (scenario, variant) in [
        ("cassandra-21636-restart", "buggy"),
        ("cassandra-21636-packet-loss", "buggy"),
    ] {
        let mut r = run_of(scenario, variant);
        let end = r.scenario.duration();
        let mut seen_down = false;
        for t in (0..=end / US_PER_S).map(|s| s * US_PER_S) {
            r.engine.run_until(t, u64::MAX).unwrap();
            let sim = r.sim_of::<crate::gossip::Gossip>().unwrap();
            let running = |i: usize| sim.nodes[i].status == NodeStatus::Running;
            let mut want = Vec::new();
            for o in (0..sim.nodes.len()).filter(|&o| running(o)) {
                for p in (0..sim.nodes.len()).filter(|&p| p != o && running(p)) {
                    if !sim.nodes[o].state.sees_up(p as u32) {
                        want.push((o as u32, p as u32));
                    }
                }
            }
            assert_eq!(super::view::down_pairs(sim), want, "{scenario} at {t} us");
            seen_down |= !want.is_empty();
            seen_stopped |= (0..sim.nodes.len()).any(|i| !running(i));
        }
        assert!(seen_down, "{scenario}: no observer ever saw a peer DOWN");
    }
    assert!(seen_stopped, "no node was ever stopped");
}

/// The gossip round's heartbeat goes to the summary column alone (`GNode::beat`), as a live
/// peer's does: the map's own entry lags it, and every reader of a node's own state (`me`,
/// `state`, the node's view, the endpoint-state view of itself) sees the column's version.
#[test]
fn a_nodes_own_heartbeat_is_read_through_the_column() {
    let mut r = run("fixed");
    let a = at(&mut r, 30);
    let column = a.summaries[A as usize].unwrap().hb_version;
    assert!(column > 20, "30 rounds' heartbeats: {column}");
    let stored = a.map[A as usize].as_ref().unwrap().hb.version;
    assert!(
        stored < column,
        "the map's own entry lags: {stored} < {column}"
    );
    assert_eq!(a.me().hb.version, column);
    assert_eq!(a.state(A).unwrap().hb.version, column);
    let sim = r.sim_of::<crate::gossip::Gossip>().unwrap();
    let view = super::view::node_view(sim, A);
    assert_eq!(view.heartbeat, column);
    let name = sim.topo.name(A).to_string();
    assert_eq!(view.endpoint_states[&name].heartbeat, column);
    // A peer that took A's heartbeat in has the column's version or an older one, never more.
    let b = &sim.nodes[B as usize].state;
    assert!(b.state(A).unwrap().hb.version <= column);
}

/// `render_msg` writes a body into one buffer; the text is the one the `format!`-and-`join`
/// renderer wrote (kept here as the reference), for every gossip message in flight at
/// times of three scenarios (SYNs, ACKs with and without states, ACK2s, application states of
/// a restart).
#[test]
fn a_message_body_reads_as_the_formatted_one() {
    use super::state::Deltas;
    use super::wire::Verb;
    use crate::engine::{Protocol, Topology};
    fn reference(msg: &super::GMsg, topo: &Topology) -> String {
        let delta = |d: super::state::Delta<'_>| {
            let mut parts: Vec<String> = d
                .states
                .iter()
                .map(|s| {
                    format!(
                        "[ApplicationState \"{}\": {}, generation {}, version {}]",
                        s.key, s.value, d.hb.generation, s.version
                    )
                })
                .collect();
            parts.push(format!(
                "[HeartBeatState, generation {}, version {}]",
                d.hb.generation, d.hb.version
            ));
            format!("{}:{}", topo.name(d.ep), parts.join(", "))
        };
        let deltas = |v: &Deltas| -> Vec<String> { v.iter().map(delta).collect() };
        let digest = |d: &super::state::Digest| {
            format!("{}:{}:{}", topo.name(d.ep), d.generation, d.max_version)
        };
        match &msg.verb {
            Verb::Syn(d) => {
                let lines: Vec<String> = d.wire_order().iter().map(digest).collect();
                format!("GossipDigestSyn\n{}", lines.join("\n"))
            }
            Verb::Ack {
                requests,
                sends,
                syn,
                ..
            } => {
                let mut lines: Vec<String> = syn
                    .in_wire_order(requests, |d| d.ep)
                    .iter()
                    .map(digest)
                    .collect();
                lines.extend(deltas(sends));
                format!("GossipDigestAck\n{}", lines.join("\n"))
            }
            Verb::Ack2(s) => format!("GossipDigestAck2\n{}", deltas(s).join("\n")),
            _ => String::new(),
        }
    }
    let (mut seen, mut app_states) = ([0usize; 4], 0);
    for scenario in [
        "cassandra-21636-rolling-upgrade",
        "cassandra-21636-restart",
        "gossip-digest-exchange",
    ] {
        let mut r = run_of(
            scenario,
            &Run::default_variant(&builtin::get(scenario).unwrap()),
        );
        // Every 50 ms of 0-5 s and 29-35 s (the restart scenario's node comes back at 30 s),
        // every 2 s of the rest.
        let dense = |from: u64, to: u64| (from * 20..to * 20).map(|i| i * US_PER_S / 20);
        let sparse = (6..29).step_by(2).map(|s| s * US_PER_S);
        for t in dense(0, 5).chain(sparse).chain(dense(29, 35)) {
            r.engine.run_until(t, u64::MAX).unwrap();
            let sim = r.sim_of::<crate::gossip::Gossip>().unwrap();
            for f in sim.in_flight.values() {
                let want = reference(&f.msg, &sim.topo);
                if want.is_empty() {
                    continue;
                }
                let kind = match &f.msg.verb {
                    Verb::Syn(_) => 0,
                    Verb::Ack { sends, .. } if !sends.is_empty() => 1,
                    Verb::Ack { .. } => 2,
                    _ => 3,
                };
                seen[kind] += 1;
                app_states += usize::from(want.contains("[ApplicationState"));
                assert_eq!(sim.proto.render_msg(&f.msg, &sim.topo), want);
            }
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0) && app_states > 0,
        "every kind of body seen: {seen:?}, {app_states} with application states"
    );
}
