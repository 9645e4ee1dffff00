//! Cases derived from Cassandra's mutation-tracking code (the reviewer's cases, issue "truthful
//! replays"): each runs a bare three-replica cluster through a schedule of node commands and
//! asserts what the named class and method do. Read from apache/cassandra trunk
//! (`replication/CoordinatorLog`, `IncomingMutations`, `MutationTrackingService`,
//! `service/reads/tracked/ReadReconciliations`, `TrackedLocalReads`); docs/model/mutation.md lists each
//! case and the model's verdict.

use super::node::Outcome;
use super::offsets::MutId;
use super::*;
use crate::engine::action::Dur;
use crate::engine::Engine;

/// A three-replica engine (node1..node3) with these params, the schedule queued, not yet run.
fn engine(p: MtParams, schedule: &[(u64, &str, &str)]) -> Engine<MutationTracking> {
    super::tests::bare_engine(p, schedule)
}

fn run(p: MtParams, schedule: &[(u64, &str, &str)], end: u64) -> Engine<MutationTracking> {
    let mut e = engine(p, schedule);
    e.run_until(end, u64::MAX).unwrap();
    e
}

fn node(e: &Engine<MutationTracking>, i: usize) -> &MtNode {
    &e.sim.nodes[i].state
}

fn log_lines(e: &Engine<MutationTracking>) -> Vec<String> {
    e.trace
        .logs
        .iter()
        .map(|l| e.trace.text(l).to_string())
        .collect()
}

/// The one read node `i` took part in.
fn only_read(e: &Engine<MutationTracking>, i: usize) -> &Recon {
    let n = node(e, i);
    assert_eq!(n.recons.len(), 1, "{:?}", n.recons.keys());
    n.recons.values().next().unwrap()
}

/// `CoordinatorLog.startWriting` returns false only for an offset the node has *witnessed*
/// (`witnessedOffsets.get(localNodeId).contains(offset)`); an offset still being written (between
/// `startWriting` and `finishWriting`) starts again: `Keyspace.applyInternalTracked` applies the
/// second copy and calls `finishWriting`, whose `CoordinatorLog` half returns early ("we've
/// raced with another write") while `MutationTrackingService.finishWriting` still calls
/// `invokeListeners`. Two copies of node2:0 reach node1 together (held, then released): both
/// deliveries start writing, neither is a duplicate.
#[test]
fn a_copy_arriving_while_the_first_is_being_written_is_not_a_duplicate() {
    for fix in [false, true] {
        let p = MtParams {
            fix_duplicate_notify: fix,
            ..Default::default()
        };
        let e = run(
            p,
            &[
                (0, "node1", "hold MUTATION_REQ"),
                (0, "node2", "duplicate-next MUTATION_REQ node1"),
                (10_000, "node2", "write W"),
                (50_000, "node1", "unhold MUTATION_REQ"),
            ],
            500_000,
        );
        let n1 = node(&e, 0);
        let id = MutId::new(1, 0);
        let starts: Vec<bool> = n1
            .deliveries
            .iter()
            .filter(|d| d.id == id)
            .map(|d| d.new)
            .collect();
        assert_eq!(starts, vec![true, true], "fix {fix}");
        assert_eq!(n1.duplicates, 0, "fix {fix}");
        assert_eq!(n1.listeners_skipped, 0, "fix {fix}");
        assert!(n1.witnessed_locally(id));
        assert!(n1.logs[&1].pending.is_empty());
        assert_eq!(n1.data.len(), 1, "applied once: the table is a set of rows");
    }
}

/// A copy arriving after the offset is witnessed is a duplicate (`startWriting` false), as
/// before: pre-patch it fires nothing, with the bug-1 fix `notifyIncomingMutationListeners`.
#[test]
fn a_copy_arriving_after_the_offset_is_witnessed_is_a_duplicate() {
    let e = run(
        MtParams::default(),
        &[
            (10_000, "node2", "write W"),
            (100_000, "node2", "push node2 0 node1"),
        ],
        500_000,
    );
    let n1 = node(&e, 0);
    let starts: Vec<(&str, bool)> = n1.deliveries.iter().map(|d| (d.via, d.new)).collect();
    assert_eq!(
        starts,
        vec![("MUTATION_REQ", true), ("PUSH_MUTATION_REQ", false)]
    );
    assert_eq!(n1.duplicates, 1);
}

/// The summary a summary node sends leaves out what it is still writing:
/// `ReadReconciliations.handleSummaryRequest` builds it with `createMutationSummary(false)`
/// (includePending false: `UnreconciledMutations.collect` skips PENDING entries), while the data
/// node's is the secondary summary, `createMutationSummary(true)` (`TrackedLocalReads`). node3
/// has node2:0 journaled and applied but parked before `finishWriting`; node1 never got it. The
/// read at node1 with node3 as summary node does not learn of node2:0: nothing requested,
/// nothing pulled, the read completes without W.
#[test]
fn a_summary_node_leaves_out_what_it_is_still_writing() {
    let e = run(
        MtParams {
            broadcast_interval: Dur(0),
            ..Default::default()
        },
        &[
            (0, "node1", "hold MUTATION_REQ"),
            (0, "node3", "park finish"),
            (10_000, "node2", "write W"),
            (100_000, "node1", "read node1 node3"),
        ],
        1_000_000,
    );
    let n3 = node(&e, 2);
    assert!(n3.logs[&1].pending.contains(0), "node3 is still writing W");
    let r = only_read(&e, 0);
    assert_eq!(r.outcome, Outcome::Completed);
    let from3 = &r.summaries.iter().find(|(n, _)| *n == 2).unwrap().1;
    assert!(from3.0.is_empty(), "{from3:?}");
    assert!(r.requested.is_empty(), "{:?}", r.requested);
    assert_eq!(r.rows.count, 0);
    assert!(!log_lines(&e)
        .iter()
        .any(|l| l.contains("PULL_MUTATIONS_REQ")));
}

/// The data node's own summary does include what it is still writing (the secondary summary,
/// includePending true): node1 is parked before `finishWriting` node2:0 when it reads with
/// node3 as summary node, so its summary lists node2:0 unreconciled, and node3 (holding its own
/// MUTATION_REQ of it) finds node2:0 missing there and requests it.
#[test]
fn the_data_nodes_summary_includes_what_it_is_still_writing() {
    let e = run(
        MtParams {
            broadcast_interval: Dur(0),
            ..Default::default()
        },
        &[
            (0, "node3", "hold MUTATION_REQ"),
            (0, "node1", "park finish"),
            (10_000, "node2", "write W"),
            (100_000, "node1", "read node1 node3"),
        ],
        1_000_000,
    );
    let r3 = only_read(&e, 2);
    let from1 = &r3.summaries.iter().find(|(n, _)| *n == 0).unwrap().1;
    assert_eq!(from1.0.len(), 1, "{from1:?}");
    assert_eq!(from1.0[0].log, 1);
    assert!(from1.0[0].unreconciled.contains(0));
    assert!(r3.requested.contains(&MutId::new(1, 0)));
}

/// `CoordinatorLogReplica.receivedWriteResponse` is a no-op: a MUTATION_RSP tells only the log's
/// own coordinator (`CoordinatorLogPrimary`) that the sender witnessed the offset; a replica
/// learns it from BROADCAST_LOG_OFFSETS (`updateReplicatedOffsets`). node2 pushes node1:0 to
/// node3 (which missed node1's MUTATION_REQ); node3 answers node2, whose write callback is done,
/// but node2's view of node1's log does not gain node3 as a witness (broadcasts are off).
#[test]
fn a_response_for_another_nodes_log_does_not_mark_the_sender_a_witness() {
    let e = run(
        MtParams {
            broadcast_interval: Dur(0),
            ..Default::default()
        },
        &[
            (0, "node3", "drop-next MUTATION_REQ node1"),
            (10_000, "node1", "write W"),
            (100_000, "node2", "push node1 0 node3"),
        ],
        1_000_000,
    );
    let (n1, n2, n3) = (node(&e, 0), node(&e, 1), node(&e, 2));
    assert!(n3.witnessed_locally(MutId::new(0, 0)), "the push arrived");
    assert!(
        n2.callbacks.is_empty(),
        "node3's response reached node2's callback"
    );
    assert!(
        !n2.logs[&0].witnessed[2].contains(0),
        "node2 (a replica of node1's log) records nothing from a MUTATION_RSP"
    );
    assert!(
        !n1.logs[&0].witnessed[2].contains(0),
        "node1 heard nothing from node3"
    );
    // the log's coordinator does record a response: node2 answered node1's MUTATION_REQ
    assert!(n1.logs[&0].witnessed[1].contains(0));
}

/// `ReadReconciliations.Coordinator`'s constructor: remaining summaries 1 + |summary nodes|,
/// sync acks |summary nodes| on the data node and 0 elsewhere, mutations 0; `complete()` on a
/// summary node sends READ_RECONCILE_ACK, on the data node `acknowledgeReconcile`.
#[test]
fn every_participant_counts_summaries_and_the_data_node_sync_acks() {
    let e = run(
        MtParams::default(),
        &[(10_000, "node1", "read node1 node2 node3")],
        1_000_000,
    );
    let first = |i: usize| {
        let h = only_read(&e, i).history[0];
        (h.1, h.2, h.3)
    };
    assert_eq!(first(0), (0, 3, 2));
    assert_eq!(first(1), (0, 3, 0));
    assert_eq!(first(2), (0, 3, 0));
    for i in 0..3 {
        assert_eq!(
            only_read(&e, i).outcome,
            Outcome::Completed,
            "node{}",
            i + 1
        );
        assert_eq!(only_read(&e, i).counters(), (0, 0, 0));
    }
    let acks = log_lines(&e)
        .iter()
        .filter(|l| l.contains("reconciled here: READ_RECONCILE_ACK"))
        .count();
    assert_eq!(acks, 2);
    let c = node(&e, 0).client_reads.values().next().unwrap();
    assert_eq!(c.outcome, Outcome::Completed);
}

/// `ReadReconciliations.pull`: the missing offsets are pulled from the log's coordinator when
/// the failure detector thinks it alive, not from the node whose summary named them. node1
/// missed node3:0; node2's summary names it; the PULL_MUTATIONS_REQ goes to node3.
#[test]
fn a_missing_offset_is_pulled_from_its_logs_coordinator() {
    let e = run(
        MtParams::default(),
        &[
            (0, "node1", "drop-next MUTATION_REQ node3"),
            (10_000, "node3", "write W"),
            (100_000, "node1", "read node1 node2"),
        ],
        1_000_000,
    );
    let lines = log_lines(&e);
    let pulls: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("PULL_MUTATIONS_REQ"))
        .collect();
    assert_eq!(pulls.len(), 1, "{pulls:?}");
    assert!(pulls[0].contains("to node3"), "{}", pulls[0]);
    let r = only_read(&e, 0);
    assert_eq!(r.outcome, Outcome::Completed);
    assert_eq!(r.rows.shown, vec!["W".to_string()]);
}

/// `IncomingMutations.expire`: listeners older than the write RPC timeout are removed and their
/// callbacks' `onTimeout` called, which the read's callback does not override (a no-op). The
/// pulled mutation then arrives and `invokeListeners` finds nothing; the read's remaining
/// mutations stay 1 until `ReadReconciliations.expire` drops it after max(read, range timeout).
#[test]
fn an_expired_listener_leaves_its_read_to_time_out() {
    let e = run(
        MtParams::default(),
        &[
            (0, "node1", "drop-next MUTATION_REQ node3"),
            (0, "node1", "hold PUSH_MUTATION_REQ"),
            (10_000, "node3", "write W"),
            (100_000, "node1", "read node1 node2"),
            (4_000_000, "node1", "unhold PUSH_MUTATION_REQ"),
        ],
        12_000_000,
    );
    let n1 = node(&e, 0);
    let id = MutId::new(2, 0);
    assert_eq!(n1.listeners_expired, 1);
    assert!(n1.listeners.is_empty());
    assert!(n1.witnessed_locally(id), "the pulled copy arrived at 4 s");
    let fired: Vec<u32> = n1
        .deliveries
        .iter()
        .filter(|d| d.id == id)
        .map(|d| d.fired)
        .collect();
    assert!(fired.iter().all(|f| *f == 0), "{fired:?}");
    let r = only_read(&e, 0);
    assert_eq!(r.outcome, Outcome::Timeout);
    assert_eq!(r.counters(), (1, 0, 0));
    let c = n1.client_reads.values().next().unwrap();
    assert_eq!(c.outcome, Outcome::Timeout);
}

/// `ReadReconciliations.pull` sends PULL_MUTATIONS_REQ only for ids whose callback was the first
/// listener (`IncomingMutations.subscribe` true), and with the final bug-2/4 fix counts every
/// callback it registered. Two reads at node1 miss the same node3:0 while its pulled copy is
/// held: one pull, two callbacks in the one listener entry; on arrival `invokeListeners` fires
/// both and both reads complete with W.
#[test]
fn two_reads_missing_one_id_share_one_pull_and_both_complete() {
    let mut e = engine(
        MtParams::default(),
        &[
            (0, "node1", "drop-next MUTATION_REQ node3"),
            (0, "node1", "hold PUSH_MUTATION_REQ"),
            (10_000, "node3", "write W"),
            (100_000, "node1", "read node1 node2"),
            (150_000, "node1", "read node1 node2"),
            (400_000, "node1", "unhold PUSH_MUTATION_REQ"),
        ],
    );
    e.run_until(300_000, u64::MAX).unwrap();
    let id = MutId::new(2, 0);
    assert_eq!(node(&e, 0).listeners[&id].callbacks.len(), 2);
    for r in node(&e, 0).recons.values() {
        assert_eq!(r.counters(), (1, 0, 0));
    }
    e.run_until(1_000_000, u64::MAX).unwrap();
    let pulls = log_lines(&e)
        .iter()
        .filter(|l| l.contains("PULL_MUTATIONS_REQ"))
        .count();
    assert_eq!(pulls, 1);
    let n1 = node(&e, 0);
    assert!(n1.listeners.is_empty());
    assert_eq!(n1.recons.len(), 2);
    for r in n1.recons.values() {
        assert_eq!(r.outcome, Outcome::Completed);
        assert_eq!(r.rows.shown, vec!["W".to_string()]);
    }
}

/// `ReadReconciliations.pull` (trunk, 051c3236e24df58693942c02b54b42d049de4019): `pullFrom =
/// FailureDetector.instance.isAlive(logCoordinator) ? logCoordinator : host(node)`, `node` being
/// the replica whose summary named the offsets ("from the coordinator, if alive, or from the node
/// we got the summary from (by definition it also has the mutation)"). `FailureDetector.isAlive`
/// is gossip's `EndpointState.isAlive`: false once phi convicts (18.4 s of silence at 1 s
/// gossip). node3 writes W, node1 misses it (dropped), node2 has it; node3 dies at 200 ms.
/// - read at 20 s (node3 silent for ~19.8 s, convicted): the pull goes to node2, the read
///   completes with W;
/// - read at 5 s (not yet convicted): the pull goes to the dead node3, the read times out;
/// - read at 20 s with the detector off (`convict_after = "0s"`, the model before): to node3,
///   timeout.
#[test]
fn a_pull_skips_a_log_coordinator_the_failure_detector_convicted() {
    let case = |read_at: u64, convict: u64| {
        let p = MtParams {
            convict_after: Dur(convict),
            ..Default::default()
        };
        let mut e = engine(
            p,
            &[
                (0, "node1", "drop-next MUTATION_REQ node3"),
                (10_000, "node3", "write W"),
            ],
        );
        e.run_until(200_000, u64::MAX).unwrap();
        assert!(
            node(&e, 1).witnessed_locally(MutId::new(2, 0)),
            "node2 has W"
        );
        e.apply_user_action(crate::engine::action::Action::Kill {
            node: "node3".into(),
        })
        .unwrap();
        e.run_until(read_at, u64::MAX).unwrap();
        e.apply_user_action(crate::engine::action::Action::Command {
            node: "node1".into(),
            command: "read node1 node2".into(),
        })
        .unwrap();
        e.run_until(read_at + 12_000_000, u64::MAX).unwrap();
        let lines = log_lines(&e);
        let pulls: Vec<String> = lines
            .iter()
            .filter(|l| l.contains("PULL_MUTATIONS_REQ"))
            .cloned()
            .collect();
        let fd: Vec<String> = lines
            .iter()
            .filter(|l| l.contains("FailureDetector"))
            .cloned()
            .collect();
        let c = node(&e, 0).client_reads.values().next().unwrap().clone();
        (pulls, fd, c)
    };
    let fd_on = MtParams::default().convict_after.0;
    assert_eq!(fd_on, 18_400_000);

    let (pulls, fd, c) = case(20_000_000, fd_on);
    assert_eq!(pulls.len(), 1, "{pulls:?}");
    assert!(pulls[0].contains("to node2"), "{}", pulls[0]);
    assert_eq!(fd.len(), 1, "{fd:?}");
    assert!(fd[0].contains("log coordinator node3 is down"), "{}", fd[0]);
    assert_eq!(c.outcome, Outcome::Completed);
    assert_eq!(c.rows.shown, vec!["W".to_string()]);

    let (pulls, fd, c) = case(5_000_000, fd_on);
    assert_eq!(pulls.len(), 1, "{pulls:?}");
    assert!(pulls[0].contains("to node3"), "{}", pulls[0]);
    assert!(fd.is_empty(), "{fd:?}");
    assert_eq!(c.outcome, Outcome::Timeout);

    let (pulls, fd, c) = case(20_000_000, 0);
    assert!(pulls[0].contains("to node3"), "{}", pulls[0]);
    assert!(fd.is_empty(), "{fd:?}");
    assert_eq!(c.outcome, Outcome::Timeout);
}
