//! The peer test suite (issue 42): behaviours of etcd's raft_paper_test.go (the Raft paper's
//! rules, section by section) written as scenario files in `tests/scenarios/paper/`, each naming
//! its etcd test in its description. Where Ratis deliberately differs (pre-vote, the leader's
//! step-down check, the startup entry) the file says so and expects Ratis' behaviour, with a
//! `paper` variant where the difference can be switched off. Every variant must hold all its
//! expectations on seeds 1..=20.

/// The tests of etcd-io/raft's raft_paper_test.go (read at its HEAD for issue 42).
const ETCD_TESTS: &[&str] = &[
    "TestFollowerUpdateTermFromMessage",
    "TestCandidateUpdateTermFromMessage",
    "TestLeaderUpdateTermFromMessage",
    "TestRejectStaleTermMessage",
    "TestStartAsFollower",
    "TestLeaderBcastBeat",
    "TestFollowerStartElection",
    "TestCandidateStartNewElection",
    "TestLeaderElectionInOneRoundRPC",
    "TestFollowerVote",
    "TestCandidateFallback",
    "TestFollowerElectionTimeoutRandomized",
    "TestCandidateElectionTimeoutRandomized",
    "TestFollowersElectionTimeoutNonconflict",
    "TestCandidatesElectionTimeoutNonconflict",
    "TestLeaderStartReplication",
    "TestLeaderCommitEntry",
    "TestLeaderAcknowledgeCommit",
    "TestLeaderCommitPrecedingEntries",
    "TestFollowerCommitEntry",
    "TestFollowerCheckMsgApp",
    "TestFollowerAppendEntries",
    "TestLeaderSyncFollowerLog",
    "TestVoteRequest",
    "TestVoter",
    "TestLeaderOnlyCommitsLogFromCurrentTerm",
];

const SEEDS: u64 = 20;

fn files() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/paper");
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The etcd test a file names first (`etcd raft_paper_test.go: TestX`).
fn etcd_test(text: &str) -> Option<&'static str> {
    let at = text.find("etcd raft_paper_test.go: ")?;
    let rest = &text[at + "etcd raft_paper_test.go: ".len()..];
    ETCD_TESTS
        .iter()
        .copied()
        .find(|t| rest.starts_with(t) && !rest[t.len()..].starts_with(char::is_alphanumeric))
}

#[test]
fn ten_or_more_etcd_behaviours_each_naming_its_test() {
    let files = files();
    let mut named = std::collections::BTreeSet::new();
    for (f, text) in &files {
        let t = etcd_test(text).unwrap_or_else(|| {
            panic!("{f}: the description must name an etcd raft_paper_test.go test")
        });
        named.insert(t);
    }
    assert!(
        named.len() >= 10,
        "only {} etcd tests covered: {named:?}",
        named.len()
    );
}

#[test]
fn every_paper_scenario_holds_on_every_seed() {
    let (runs, failures) = clusterscope_tests::run_files(&files(), SEEDS, 1);
    assert!(runs >= 10 * SEEDS as usize);
    assert!(failures.is_empty(), "{failures}");
}
