//! Tests of the gossip state types: digests, deltas, summaries, cost-count hints.

use super::*;

fn st(gen: u32, hb: u32, states: &[(&str, &str, u32)]) -> EndpointState {
    let states = states
        .iter()
        .map(|(k, v, n)| AppState {
            key: (*k).into(),
            value: (*v).into(),
            version: *n,
        })
        .collect();
    EndpointState::new(
        0,
        HeartBeat {
            generation: gen,
            version: hb,
        },
        states,
        true,
    )
}

/// A state of generation 5-7, heartbeat 0-29 and up to three application states (versions
/// 1-29), for the randomised comparisons.
fn random_state(rng: &mut rand_chacha::ChaCha8Rng) -> EndpointState {
    use rand::Rng;
    let states: Vec<(&str, &str, u32)> = (0..rng.random_range(0..3))
        .map(|i| {
            (
                ["STATUS", "LOAD", "SCHEMA"][i],
                "v",
                rng.random_range(1..30),
            )
        })
        .collect();
    st(rng.random_range(5..8), rng.random_range(0..30), &states)
}

/// The four comparison cases of the study notes, one digest each.
#[test]
fn four_digest_cases() {
    let b_map = [
        st(
            1259909635,
            324,
            &[("load-information", "5.2", 45), ("normal", "x", 87)],
        ),
        st(
            1259911052,
            63,
            &[
                ("normal", "AujDMftpyUvebtnn", 62),
                ("bootstrapping", "A", 31),
            ],
        ),
        st(1259812143, 2142, &[("load-information", "16.0", 1803)]),
    ];
    let local: Vec<Option<EndpointState>> = b_map.into_iter().map(Some).collect();
    let digests = [
        Digest {
            ep: 0,
            generation: 1259909635,
            max_version: 325,
        }, // same gen, remote newer
        Digest {
            ep: 1,
            generation: 1259911052,
            max_version: 61,
        }, // same gen, local newer
        Digest {
            ep: 2,
            generation: 1259912238,
            max_version: 5,
        }, // remote newer generation
        Digest {
            ep: 3,
            generation: 1259912942,
            max_version: 18,
        }, // unknown endpoint
    ];
    let e = examine(
        &local,
        &Summary::column(&local),
        &Digests::from_list(&digests),
    );
    assert_eq!(
        e.requests,
        vec![
            Digest {
                ep: 0,
                generation: 1259909635,
                max_version: 324
            },
            Digest {
                ep: 2,
                generation: 1259912238,
                max_version: 0
            },
            Digest {
                ep: 3,
                generation: 1259912942,
                max_version: 0
            },
        ]
    );
    assert_eq!(e.sends.len(), 1);
    let d = e.sends.get(0);
    assert_eq!(d.ep, 1);
    let mut text = String::new();
    d.render_into(&mut text);
    assert_eq!(
        text,
        "[ApplicationState \"normal\": AujDMftpyUvebtnn, generation 1259911052, version 62], \
         [HeartBeatState, generation 1259911052, version 63]"
    );
}

#[test]
fn older_remote_generation_sends_everything() {
    let map = [Some(st(20, 5, &[("STATUS", "NORMAL", 2)]))];
    let e = examine(
        &map,
        &Summary::column(&map),
        &Digests::from_list(&[Digest {
            ep: 0,
            generation: 10,
            max_version: 99,
        }]),
    );
    assert!(e.requests.is_empty());
    assert_eq!(e.sends.get(0).states.len(), 1);
    assert_eq!(e.sends.get(0).hb.version, 5);
}

/// An ACK's and its ACK2's cost-count hints against the full count, over random columns
/// that change between the SYN, the ACK and the ACK2 (endpoints learned, forgotten or of a
/// new generation, heartbeats advanced), each change moving its node's epoch by the rule
/// `GNode::sync` follows. A hint gives the full count or stands aside; without the epochs,
/// the hints would be wrong in some of these exchanges (counted, so the check can fail).
#[test]
fn count_hints_hold_or_stand_aside() {
    use rand::{Rng, SeedableRng};
    type Rng8 = rand_chacha::ChaCha8Rng;
    // Most states without application states: the messages the hints are for.
    fn some_state(rng: &mut Rng8) -> EndpointState {
        if rng.random_bool(0.8) {
            st(rng.random_range(5..8), rng.random_range(0..30), &[])
        } else {
            random_state(rng)
        }
    }
    fn change(rng: &mut Rng8, map: &mut [Option<EndpointState>], epoch: &mut u32) {
        for _ in 0..rng.random_range(0..3) {
            let ep = rng.random_range(0..map.len());
            let was = Summary::of(map[ep].as_ref());
            match rng.random_range(0..4) {
                0 => map[ep] = None,
                1 => map[ep] = Some(some_state(rng)),
                _ => {
                    if let Some(st) = map[ep].as_mut() {
                        st.set_hb_version(st.hb.version + 1);
                    }
                }
            }
            *epoch += moves_epoch(was, Summary::of(map[ep].as_ref())) as u32;
        }
    }
    let mut rng = Rng8::seed_from_u64(23);
    let (mut acks, mut ack2s, mut wrong_without) = (0, 0, 0);
    for case in 0..10_000 {
        let n = rng.random_range(2..10usize);
        // S (node 0) sends the SYN, R (node 1) answers; each knows itself.
        let mut s_map: Vec<Option<EndpointState>> = (0..n)
            .map(|ep| (ep == 0 || rng.random_bool(0.85)).then(|| some_state(&mut rng)))
            .collect();
        let mut r_map: Vec<Option<EndpointState>> = (0..n)
            .map(|ep| (ep == 1 || rng.random_bool(0.85)).then(|| some_state(&mut rng)))
            .collect();
        let (mut s_epoch, mut r_epoch) = (rng.random_range(0..9), rng.random_range(0..9));
        let column = Summary::column(&s_map);
        let mut digests = Digests::of(&column, Summary::known(&column));
        digests.epoch = s_epoch;
        let column = Summary::column(&r_map);
        let mut ex = examine(&r_map, &column, &digests);
        let hint = ex.ack_hint(&digests, &column, 0, r_epoch);
        ex.sends.set_hint(hint);
        // The ACK reaches S, whose column may have changed since the SYN.
        change(&mut rng, &mut s_map, &mut s_epoch);
        let column = Summary::column(&s_map);
        let full = ex.sends.new_state_count(0, &column);
        if let Some(count) = ex.sends.hinted_count(s_epoch) {
            assert_eq!(count, full, "case {case}: the ACK's hint");
            acks += 1;
        }
        wrong_without +=
            (ex.sends.states.is_empty() && hint.zero_at != NO_EPOCH && full != 0) as u32;
        // S answers R's requests; the ACK2 reaches R, whose column may have changed too.
        let mut reply = Deltas::default();
        for d in &ex.requests {
            if let Some(Some(l)) = column.get(d.ep as usize) {
                reply.push_newer(*l, &s_map, d.ep, d.max_version);
            }
        }
        reply.set_hint(hint.for_reply(digests.epoch, s_epoch));
        change(&mut rng, &mut r_map, &mut r_epoch);
        let column = Summary::column(&r_map);
        let full = reply.new_state_count(1, &column);
        if let Some(count) = reply.hinted_count(r_epoch) {
            assert_eq!(count, full, "case {case}: the ACK2's hint");
            ack2s += 1;
        }
        wrong_without +=
            (reply.states.is_empty() && hint.reply_zero_at != NO_EPOCH && full != 0) as u32;
    }
    assert!(
        acks > 1000 && ack2s > 200 && wrong_without > 50,
        "{acks} ACK and {ack2s} ACK2 hints used; {wrong_without} wrong without the epochs"
    );
}

#[test]
fn new_state_count_matches_the_plain_rule() {
    use rand::{Rng, SeedableRng};
    // `Gossip::cost_of_states` as it was written before the count had a loop of its own.
    fn plain(me: NodeId, local: &[Option<Summary>], d: &Deltas) -> u64 {
        d.iter()
            .filter(|d| d.ep != me)
            .map(|d| match local[d.ep as usize] {
                None => d.states.len() as u64 + 1,
                Some(l) if d.hb.generation > l.generation => d.states.len() as u64 + 1,
                Some(l) if d.hb.generation == l.generation => d
                    .states
                    .iter()
                    .filter(|s| s.version > l.max_version())
                    .count() as u64,
                Some(_) => 0,
            })
            .sum()
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut nonzero = 0;
    for _ in 0..300 {
        let n = rng.random_range(1..40usize);
        let local: Vec<Option<EndpointState>> = (0..n)
            .map(|_| rng.random_bool(0.8).then(|| random_state(&mut rng)))
            .collect();
        let remote: Vec<Option<EndpointState>> = (0..n)
            .map(|_| rng.random_bool(0.9).then(|| random_state(&mut rng)))
            .collect();
        let mut d = Deltas::default();
        for (ep, st) in remote.iter().enumerate() {
            if let Some(st) = st {
                if rng.random_bool(0.5) {
                    // A heartbeat-only entry, the common kind.
                    d.entries.push(DeltaEntry {
                        ep: ep as NodeId,
                        hb: st.hb,
                        start: d.states.len() as u32,
                        len: 0,
                    });
                } else {
                    st.newer_than(ep as NodeId, rng.random_range(0..20), &mut d);
                }
            }
        }
        let me = rng.random_range(0..n) as NodeId;
        let column = Summary::column(&local);
        let want = plain(me, &column, &d);
        nonzero += (want > 0) as u32;
        assert_eq!(d.new_state_count(me, &column), want);
    }
    assert!(nonzero > 100, "the cases exercise the counting ({nonzero})");
}

/// `examine` (summary column, branch-free heartbeat path) against the comparison written
/// out plainly on the states, over random maps and digests.
#[test]
fn examine_matches_the_plain_comparison() {
    use rand::{Rng, SeedableRng};
    fn plain(map: &[Option<EndpointState>], digests: &[Digest]) -> Examined {
        let mut out = Examined::default();
        for d in digests {
            let request = |max_version| Digest {
                ep: d.ep,
                generation: d.generation,
                max_version,
            };
            match map.get(d.ep as usize).and_then(|s| s.as_ref()) {
                None => out.requests.push(request(0)),
                Some(l) if d.generation > l.hb.generation => out.requests.push(request(0)),
                Some(l) if d.generation < l.hb.generation => {
                    l.newer_than(d.ep, 0, &mut out.sends);
                }
                Some(l) if d.max_version > l.max_version() => {
                    out.requests.push(request(l.max_version()))
                }
                Some(l) if d.max_version < l.max_version() => {
                    l.newer_than(d.ep, d.max_version, &mut out.sends);
                }
                Some(_) => {}
            }
        }
        out
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    // Buffers handed back full, as a consumed ACK's are (`Pool`): reused, they change nothing.
    let mut pool = Pool::default();
    for _ in 0..200 {
        let n = rng.random_range(1..40usize);
        let map: Vec<Option<EndpointState>> = (0..n)
            .map(|_| rng.random_bool(0.8).then(|| random_state(&mut rng)))
            .collect();
        let mut digests = Vec::new();
        // Some past the end of the map: endpoints this node has no room for yet.
        let beyond = rng.random_range(0..3);
        for ep in 0..(n + beyond) as NodeId {
            if rng.random_bool(0.9) {
                digests.push(Digest {
                    ep,
                    generation: rng.random_range(5..8),
                    max_version: rng.random_range(0..32),
                });
            }
        }
        // Given in any order, they are compared in endpoint order.
        let shuffled: Vec<Digest> = digests.iter().rev().copied().collect();
        let column = Digests::from_list(&shuffled);
        assert_eq!(column.to_vec(), digests);
        let got = examine(&map, &Summary::column(&map), &column);
        assert_eq!(got, plain(&map, &digests));
        let reused = examine_into(&map, &Summary::column(&map), &column, pool.examined());
        assert_eq!(reused, got, "examined into used buffers");
        // Digests that undercount themselves leave the lists no room reserved: every digest
        // then goes through the slow path, the common case included, with the same answer.
        let undercounted = Digests {
            len: 0,
            ..column.clone()
        };
        let slow = examine_into(
            &map,
            &Summary::column(&map),
            &undercounted,
            Examined::default(),
        );
        assert_eq!(slow, got, "the slow path answers as the common run");
        let reply = pool.deltas(3);
        assert!(reply.is_empty(), "a spare Deltas comes empty");
        pool.give_deltas(reply);
        pool.give_requests(reused.requests);
        pool.give_deltas(reused.sends);
        // A node's map whose heartbeats lag its summary column (see `GNode::flush`) answers
        // the same: the column's heartbeat is the one that counts.
        let lagging: Vec<Option<EndpointState>> = map
            .iter()
            .map(|e| {
                e.clone().map(|mut e| {
                    let v = rng.random_range(0..=e.hb.version);
                    e.hb.version = v;
                    e.recompute();
                    e
                })
            })
            .collect();
        let got = examine(&lagging, &Summary::column(&map), &column);
        assert_eq!(got, plain(&map, &digests));
    }
}

/// A SYN's digests are its sender's column: for every known endpoint, in endpoint order,
/// the generation and the larger of the heartbeat and application-state versions; the same
/// digests given one by one compare equal.
#[test]
fn digests_are_the_known_entries_of_a_column() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for _ in 0..100 {
        let map: Vec<Option<EndpointState>> = (0..rng.random_range(0..40))
            .map(|_| rng.random_bool(0.7).then(|| random_state(&mut rng)))
            .collect();
        let want: Vec<Digest> = map
            .iter()
            .enumerate()
            .filter_map(|(ep, s)| {
                s.as_ref().map(|s| Digest {
                    ep: ep as NodeId,
                    generation: s.hb.generation,
                    max_version: s.max_version(),
                })
            })
            .collect();
        let d = Digests::of(&Summary::column(&map), want.len());
        assert_eq!(d.to_vec(), want);
        assert_eq!(d.len(), want.len());
        let mut listed = want.clone();
        listed.reverse();
        assert_eq!(Digests::from_list(&listed), d);
        if let Some(first) = want.first() {
            let mut other = want.clone();
            other[0].max_version = first.max_version + 1;
            assert_ne!(Digests::from_list(&other), d);
        }
    }
}

/// `Deltas::push_newer` (summary first, the state only for application states) answers as
/// `newer_than` on the up-to-date state, also when the map entry's heartbeat lags.
#[test]
fn push_newer_matches_newer_than() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    for _ in 0..500 {
        let exact = random_state(&mut rng);
        let mut lagging = exact.clone();
        lagging.hb.version = rng.random_range(0..=exact.hb.version);
        lagging.recompute();
        let version = rng.random_range(0..32);
        let mut want = Deltas::default();
        let want_any = exact.newer_than(3, version, &mut want);
        let mut got = Deltas::default();
        let map = [None, None, None, Some(lagging)];
        let got_any = got.push_newer(Summary::of(Some(&exact)).unwrap(), &map, 3, version);
        assert_eq!((got_any, &got), (want_any, &want));
    }
}

/// An ACK2's entries made in runs (`Deltas::answer`) against a plain `newer_than` per request
/// of a known endpoint, over random maps and requests (unknown endpoints, versions on both
/// sides of the local ones, application states), into an empty list and into a used one.
#[test]
fn answer_matches_newer_than_per_request() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
    let (mut with_states, mut entries) = (0, 0);
    for round in 0..300 {
        let n = rng.random_range(1..40usize);
        let map: Vec<Option<EndpointState>> = (0..n)
            .map(|_| rng.random_bool(0.8).then(|| random_state(&mut rng)))
            .collect();
        let mut requests = Vec::new();
        for ep in 0..(n + 2) as NodeId {
            if rng.random_bool(0.6) {
                requests.push(Digest {
                    ep,
                    generation: 5,
                    max_version: rng.random_range(0..32),
                });
            }
        }
        let mut want = Deltas::default();
        for d in &requests {
            if let Some(Some(st)) = map.get(d.ep as usize) {
                st.newer_than(d.ep, d.max_version, &mut want);
            }
        }
        // A list that was used before (`Pool`), reset, or a new one.
        let mut got = if round % 2 == 0 {
            Deltas::default()
        } else {
            let mut used = Deltas::with_capacity(3);
            used.entries
                .push(want.entries.first().copied().unwrap_or(DeltaEntry {
                    ep: 0,
                    hb: HeartBeat {
                        generation: 1,
                        version: 1,
                    },
                    start: 0,
                    len: 0,
                }));
            used.reset(0);
            used
        };
        got.answer(&requests, &Summary::column(&map), &map);
        assert_eq!(got, want, "round {round}");
        with_states += want.entries.iter().filter(|e| e.has_states()).count();
        entries += want.entries.len();
    }
    // Both kinds of entry were made.
    assert!(
        with_states > 50 && entries > with_states + 500,
        "{with_states} of {entries}"
    );
}
