//! What a server knows of the leader across a term change, and what a follower does with
//! entries at or below its commit index — both read from the Ratis code for issue 38 (the
//! Figure 8 scenario's two questions).

use super::node::Role;
use super::tests::{act, command, engine, isolate, leader, name, run_for};
use super::RaftKv;
use crate::engine::action::Action;
use crate::time::{US_PER_MS, US_PER_S};

/// Ratis `ServerState.updateCurrentTerm`: when a server's term rises, `setLeader(null)` — the
/// leader it knew led the old term, not this one (`changeToFollower` calls it for a vote
/// request of a higher term, `requestVote` in the ELECTION phase). A follower that steps up to
/// a candidate's term and refuses it (the candidate's log is behind) knows no leader until
/// one of the new term writes to it. Before the fix it kept the old term's leader: the
/// `leader` view and the follower's NotLeader hints named a server that no longer led (the
/// Figure 8 scenario's S4 at 9.51 s: term 4, "leader S5" of term 3).
#[test]
fn a_higher_term_forgets_the_old_terms_leader() {
    for seed in 0..5 {
        let mut e = engine(3, "pre_vote = false", seed);
        run_for(&mut e, US_PER_S);
        let l = leader(&e);
        let (f, g) = ((l + 1) % 3, (l + 2) % 3);
        assert_eq!(e.sim.nodes[g as usize].state.leader, Some(l));
        // f misses three writes, comes back and runs for the next term with a short log.
        isolate(&mut e, f, 3, true);
        for k in 0..3 {
            command(&mut e, l, &format!("client-put k{k} v"));
        }
        run_for(&mut e, 50 * US_PER_MS);
        isolate(&mut e, f, 3, false);
        let old = e.sim.nodes[g as usize].state.term;
        command(&mut e, f, "timeout");
        // The refusals come back within a few round trips (links 0.5-1.5 ms), long before
        // anyone's next election timeout (150-300 ms).
        run_for(&mut e, 10 * US_PER_MS);
        let n = &e.sim.nodes[g as usize].state;
        // (f may have timed out once already while cut off: its term is old + 1 or more.)
        let ft = e.sim.nodes[f as usize].state.term;
        assert!(ft > old, "seed {seed}: f ran for a new term");
        assert_eq!(n.term, ft, "seed {seed}: g stepped up to f's term");
        assert_eq!(n.voted_for, None, "seed {seed}: g refused f (log behind)");
        assert_eq!(n.role, Role::Follower);
        assert_eq!(
            n.leader, None,
            "seed {seed}: g knows no leader of term {}",
            n.term
        );
        let ln = &e.sim.nodes[l as usize].state;
        assert_eq!(
            ln.role,
            Role::Follower,
            "seed {seed}: the old leader stepped down"
        );
        assert!(RaftKv::leaders(&e.sim).is_empty(), "seed {seed}");
    }
}

fn figure_8(variant: &str, until: Option<u64>) -> crate::runner::Run {
    use crate::runner::{Run, RunOptions};
    let s = crate::scenario::builtin::get("raft-figure-8").unwrap();
    let opts = RunOptions {
        body_budget: 0,
        ..RunOptions::default()
    };
    let mut r = Run::new(s, variant, Some(1), &toml::Table::new(), &opts).unwrap();
    r.run(until).unwrap();
    r
}

/// (term of the entry at `i`, commitIndex) on the node named `n`.
fn at(r: &crate::runner::Run, n: &str, i: u64) -> (u64, u64) {
    let sim = r.sim_of::<RaftKv>().unwrap();
    let s = &sim.nodes[sim.topo.id(n).unwrap() as usize].state;
    (s.term_at(i), s.commit)
}

/// Ratis `RaftServerImpl.checkInconsistentAppendEntries`: entries whose first index is at or
/// below the follower's commitIndex are refused (INCONSISTENCY, nextIndex = commitIndex + 1)
/// before the previous entry is even looked at, whatever their terms — a follower never
/// truncates what it committed (`SegmentedRaftLog.appendImpl` truncates only past that
/// check). Figure 8, `unsafe-commit`: S1 committed index 2 (term 2) by counting replicas and
/// told S2 and S3; S5 wins term 5 anyway (its last term, 3, beats their 2) and sends its own
/// index 2. S2 and S3 refuse it and keep the committed entry; only S4, which never learned
/// the commit, takes S5's. The violation is Leader Completeness (S5 lacks a committed entry),
/// not an overwrite on a majority. `safe`: nobody committed index 2, all three take S5's.
#[test]
fn figure_8_followers_keep_what_they_committed() {
    let r = figure_8("unsafe-commit", None);
    for n in ["S2", "S3"] {
        assert_eq!(at(&r, n, 2), (2, 2), "{n} keeps committed (t2, i2)");
    }
    assert_eq!(at(&r, "S4", 2), (3, 1), "S4 takes S5's (t3, i2)");
    let refused = |r: &crate::runner::Run, n: &str| {
        let id = r.sim_of::<RaftKv>().unwrap().topo.id(n).unwrap();
        let t = r.trace();
        t.logs.iter().any(|l| {
            l.node == id
                && t.text(l)
                    .contains("first entry (index 2) is at or below commitIndex 2")
        })
    };
    assert!(refused(&r, "S2") && refused(&r, "S3"));
    assert_eq!(r.sim_of::<RaftKv>().unwrap().violations, 1);
    let r = figure_8("safe", None);
    for n in ["S2", "S3", "S4"] {
        assert_eq!(at(&r, n, 2).0, 3, "{n} takes S5's (t3, i2)");
    }
    assert!(!refused(&r, "S2"));
}

/// The Figure 8 scenario at 9.51 s: S4 (cut off from S1 in term 4) steps up from term 3 to 4
/// on S5's vote request and grants it; S5 led term 3, not term 4, and S4 knows no leader of
/// term 4 (`ServerState.updateCurrentTerm`). Before the fix it still named S5.
#[test]
fn figure_8_s4_knows_no_leader_in_term_4() {
    let r = figure_8("safe", Some(9_510 * US_PER_MS));
    let sim = r.sim_of::<RaftKv>().unwrap();
    let s4 = &sim.nodes[sim.topo.id("S4").unwrap() as usize].state;
    assert_eq!((s4.term, s4.leader), (4, None));
}

/// `LeaderElection.waitForResults`: a vote request to a stopped server fails at once (its host
/// refuses the connection: an exception, an answer that is neither a grant nor a refusal);
/// once every peer answered with no majority granted the round is REJECTED and the server
/// changes back to a follower with a new election timeout. With both peers stopped the survivor
/// is a follower nearly all the time, standing (pre-vote only, its term unchanged) once per
/// timeout for a round trip; cut off by the network instead (no answers), each round times out
/// (TIMEOUT: it stays a candidate and tries again).
#[test]
fn a_candidate_whose_vote_requests_all_fail_falls_back_to_follower() {
    for seed in 1..=5 {
        for stopped in [true, false] {
            let (mut e, l, f) = super::tests::settled("", seed);
            let other = 3 - l - f;
            if stopped {
                for n in [l, other] {
                    let node = name(&e, n);
                    act(&mut e, Action::Stop { node });
                }
            } else {
                isolate(&mut e, f, 3, true);
            }
            let term = e.sim.nodes[f as usize].state.term;
            // Past the first election timeout (at most 2 x max after the last contact).
            run_for(&mut e, 700 * US_PER_MS);
            let (mut follower, mut longest, mut stretch) = (0u32, 0u64, 0u64);
            let elections = e.sim.nodes[f as usize].state.elections;
            for _ in 0..3000 {
                run_for(&mut e, US_PER_MS);
                if e.sim.nodes[f as usize].state.role == Role::Follower {
                    follower += 1;
                    stretch = 0;
                } else {
                    stretch += US_PER_MS;
                    longest = longest.max(stretch);
                }
            }
            let st = &e.sim.nodes[f as usize].state;
            let rounds = st.elections - elections;
            assert_eq!(st.term, term, "seed {seed}: pre-votes only, no new term");
            assert!(
                rounds >= 8,
                "seed {seed}, stopped {stopped}: {rounds} rounds in 3 s"
            );
            if stopped {
                assert!(
                    follower >= 2900 && longest <= 10 * US_PER_MS,
                    "seed {seed}: a follower {follower} of 3000 ms, the longest candidacy {longest} us"
                );
            } else {
                assert!(
                    follower == 0,
                    "seed {seed}: cut off, rounds time out and it stays a candidate ({follower} ms a follower)"
                );
            }
        }
    }
}

/// Every message a run sends is a kind the model lists (`MSG_KINDS`: the legend, the message
/// filters and a message expectation's `key` accept only those), refusals included: a leader
/// whose follower is stopped gets CONNECTION_REFUSED for its appends, and the two survivors of
/// a stopped leader get them for their (pre-)vote requests to it.
#[test]
fn every_message_sent_is_a_listed_kind() {
    use crate::engine::trace::RecKind;
    let (mut e, l, f) = super::tests::settled("", 3);
    let node = name(&e, f);
    act(&mut e, Action::Stop { node });
    run_for(&mut e, US_PER_S);
    let node = name(&e, f);
    act(&mut e, Action::Start { node });
    run_for(&mut e, US_PER_S);
    let node = name(&e, l);
    act(&mut e, Action::Stop { node });
    run_for(&mut e, 2 * US_PER_S);
    let kinds = super::view::MSG_KINDS;
    let mut seen = std::collections::BTreeSet::new();
    for r in e.trace.recs.iter() {
        if let RecKind::Send { label, .. } = r.kind {
            seen.insert(label);
        }
    }
    assert!(seen.contains("CONNECTION_REFUSED"), "{seen:?}");
    for label in &seen {
        assert!(
            kinds.iter().any(|k| k.label == *label),
            "{label} is sent but not among MSG_KINDS"
        );
    }
}
