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
    let s = builtin::get("cassandra-21636-packet-loss").unwrap();
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
