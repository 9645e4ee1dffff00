//! The study notes' gossip round, message for message (scenario `gossip-digest-exchange`).

use clusterscope_core::engine::trace::RecKind;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;

fn bodies() -> Vec<(String, String, String)> {
    let s = builtin::get("gossip-digest-exchange").unwrap();
    let mut run = Run::new(
        s,
        "notes",
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    let report = run.run(None).unwrap();
    assert!(report.passed, "{:?}", report.expectations);
    let t = run.trace();
    let topo = run.engine.topo();
    t.recs
        .iter()
        .filter_map(|r| match r.kind {
            RecKind::Send { msg, to, label, .. } if ["SYN", "ACK", "ACK2"].contains(&label) => {
                Some((
                    format!("{}->{}", topo.name(r.node), topo.name(to)),
                    label.to_string(),
                    t.body(msg).expect("bodies are retained").to_string(),
                ))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn one_round_produces_the_notes_messages() {
    let msgs = bodies();
    let kinds: Vec<(&str, &str)> = msgs
        .iter()
        .map(|(d, k, _)| (d.as_str(), k.as_str()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("10.0.0.1->10.0.0.2", "SYN"),
            ("10.0.0.2->10.0.0.1", "ACK"),
            ("10.0.0.1->10.0.0.2", "ACK2")
        ]
    );

    // SYN: exactly the notes' four digests.
    assert_eq!(
        msgs[0].2,
        "GossipDigestSyn\n\
         10.0.0.1:1259909635:325\n\
         10.0.0.2:1259911052:61\n\
         10.0.0.3:1259912238:5\n\
         10.0.0.4:1259912942:18"
    );
    // ACK: exactly the notes' lines 1-4.
    assert_eq!(
        msgs[1].2,
        "GossipDigestAck\n\
         10.0.0.1:1259909635:324\n\
         10.0.0.3:1259912238:0\n\
         10.0.0.4:1259912942:0\n\
         10.0.0.2:[ApplicationState \"normal\": AujDMftpyUvebtnn, generation 1259911052, version 62], \
         [HeartBeatState, generation 1259911052, version 63]"
    );
    // ACK2: line 3 exactly as the notes. Lines 1 and 2 follow Cassandra's
    // getStateForVersionBiggerThan, where the notes are loose (documented in the scenario's
    // captions and docs/SCENARIOS.md): for 10.0.0.1 only versions above 324 (the heartbeat 325);
    // for 10.0.0.3 A's own heartbeat version, 5.
    let ack2: Vec<&str> = msgs[2].2.lines().collect();
    assert_eq!(ack2[0], "GossipDigestAck2");
    assert_eq!(
        ack2[1],
        "10.0.0.1:[HeartBeatState, generation 1259909635, version 325]"
    );
    assert_eq!(
        ack2[2],
        "10.0.0.3:[ApplicationState \"load-information\": 12.0, generation 1259912238, version 3], \
         [HeartBeatState, generation 1259912238, version 5]"
    );
    assert_eq!(
        ack2[3],
        "10.0.0.4:[ApplicationState \"load-information\": 6.7, generation 1259912942, version 3], \
         [ApplicationState \"normal\": bj05IVc0lvRXw2xH, generation 1259912942, version 7], \
         [HeartBeatState, generation 1259912942, version 18]"
    );
    assert_eq!(ack2.len(), 4);
}
