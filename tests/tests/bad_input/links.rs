//! Rows: permalinks, the user's actions, and the expectation editor's rows in a link.

use super::*;

/// Permalinks: their encoding, versions and sizes.
pub(super) fn permalinks() -> Vec<Row> {
    let good = session(vec![kill_at(120)]).encode();
    let mut v2 = session(vec![]);
    v2.v = 2;
    let huge_session = session((0..10_001).map(|i| kill_at(i + 1)).collect());
    let mut long_note = session(vec![]);
    long_note.bookmarks = vec![clusterscope_core::session::Bookmark {
        at_us: 1_000_000,
        name: "W1".into(),
        note: "x".repeat(501),
    }];
    vec![
        link(
            "permalink_empty",
            "Empty permalink",
            s("#"),
            s("#"),
            &["no session data after '#'"],
        ),
        link(
            "permalink_broken",
            "Broken permalink (not base64url)",
            s("#s=!!!not-base64!!!"),
            s("#s=!!!not-base64!!!"),
            &["damaged", "not base64url", "cut off when copied"],
        ),
        link(
            "permalink_truncated",
            "Truncated permalink (cut in half)",
            s("the first half of a valid link"),
            good[..good.len() / 2].to_string(),
            &["damaged", "truncated or corrupt", "cut off when copied"],
        ),
        link(
            "permalink_oversized",
            "Oversized permalink",
            format!("{} characters", MAX_PERMALINK_CHARS + 1),
            "A".repeat(MAX_PERMALINK_CHARS + 1),
            &["2000001 characters long", "the limit is 2000000"],
        ),
        link(
            "permalink_wrong_version",
            "Permalink of another format version",
            s("a valid session with \"v\": 2"),
            v2.encode(),
            &["format version 2", "reads version 1"],
        ),
        link(
            "permalink_zip_bomb",
            "Zip bomb (5 MiB of spaces, deflated to a few KiB)",
            s("deflate(5 MiB of spaces)"),
            deflated_link(&vec![b' '; 5 << 20]),
            &["larger than 2097152 bytes"],
        ),
        link(
            "permalink_not_a_session",
            "Valid compression of JSON that is not a session",
            s("deflate({\"v\":1})"),
            deflated_link(b"{\"v\":1}"),
            &["session is not valid", "missing field `scenario`"],
        ),
        link(
            "permalink_unknown_field",
            "A session with an unknown field",
            s("deflate({...\"colour\":\"blue\"})"),
            deflated_link(
                br#"{"v":1,"scenario":{"builtin":"x"},"variant":"buggy","seed":1,"colour":"blue"}"#,
            ),
            &["session is not valid", "unknown field `colour`"],
        ),
        link(
            "permalink_too_many_actions",
            "A session with more recorded actions than the limit",
            s("a valid session with 10001 actions"),
            huge_session.encode(),
            &["10001 actions", "the limit is 10000"],
        ),
        link(
            "permalink_actions_out_of_order",
            "Recorded actions out of step order",
            s("a valid session whose actions are at steps 120, 40"),
            session(vec![kill_at(120), kill_at(40)]).encode(),
            &["not in step order"],
        ),
        link(
            "permalink_bookmark_too_long",
            "A bookmark whose note is over 500 characters",
            s("a valid session with a bookmark note of 501 characters"),
            long_note.encode(),
            &["bookmark 1 is too long", "note at most 500"],
        ),
    ]
}

/// User actions: the web app's buttons and a permalink's recorded actions.
pub(super) fn user_actions() -> Vec<Row> {
    vec![
        act(
            "action_unknown_node",
            "Stop an unknown node",
            Action::Stop { node: s("Z") },
            &[
                "impossible action",
                "unknown node \"Z\"",
                "nodes are: A, B, C",
            ],
        ),
        act(
            "action_self_link",
            "Drop the link from a node to itself",
            Action::DropLink {
                from: s("A"),
                to: s("A"),
                one_way: false,
                down_for: None,
            },
            &["impossible action", "two different nodes", "\"A\" twice"],
        ),
        act(
            "action_start_running_node",
            "Start a running node",
            Action::Start { node: s("A") },
            &[
                "impossible action",
                "cannot start A",
                "it is running",
                "must be stopped",
            ],
        ),
        act(
            "action_loss_out_of_range",
            "Loss 2.0",
            Action::SetLoss {
                from: s("A"),
                to: s("B"),
                loss: 2.0,
                one_way: false,
            },
            &["impossible action", "loss 2 is out of range", "0.0 to 1.0"],
        ),
        act(
            "action_latency_min_above_max",
            "Latency min > max",
            Action::SetLatency {
                from: s("A"),
                to: s("B"),
                min: Dur(5_000),
                max: Dur(1_000),
                one_way: false,
            },
            &["impossible action", "latency min 5ms is above max 1ms"],
        ),
        act(
            "action_huge_delay",
            "Executor delay beyond the latency limit",
            Action::Delay {
                node: s("A"),
                executor: s("GossipStage"),
                extra: Dur(u64::MAX),
            },
            &["impossible action", "above the limit of 3600s"],
        ),
        act(
            "action_huge_down_for",
            "Restart with a down time beyond the duration limit",
            Action::Restart {
                node: s("A"),
                kill: true,
                down_for: Some(Dur(7 * 3600 * 1_000_000)),
            },
            &["impossible action", "down_for", "duration limit"],
        ),
        act(
            "action_timed_cut_zero",
            "A user's timed cut of 0s",
            Action::Partition {
                groups: vec![vec![s("A")], vec![s("B"), s("C")]],
                down_for: Some(Dur(0)),
            },
            &[
                "impossible action",
                "ends as it starts",
                "leave down_for out",
            ],
        ),
        act(
            "action_unknown_executor",
            "Stall an unknown executor",
            Action::Stall {
                node: s("A"),
                executor: s("ReadStage"),
            },
            &[
                "impossible action",
                "unknown executor \"ReadStage\"",
                "GossipStage",
            ],
        ),
        act(
            "action_unknown_command",
            "Unknown nodetool command",
            Action::Command {
                node: s("A"),
                command: s("drain"),
            },
            &[
                "impossible action",
                "A refused \"drain\"",
                "unknown command",
                "known: disablegossip",
            ],
        ),
        act(
            "action_bad_timeout",
            "settimeout with a value that is not a number",
            Action::Command {
                node: s("A"),
                command: s("settimeout misc soon"),
            },
            &[
                "impossible action",
                "\"soon\" is not a number of milliseconds",
            ],
        ),
        act(
            "action_enable_enabled_gossip",
            "enablegossip while gossip runs",
            Action::Command {
                node: s("A"),
                command: s("enablegossip"),
            },
            &["impossible action", "gossip is already running"],
        ),
        act(
            "action_partition_one_group",
            "A partition with one group",
            Action::Partition {
                groups: vec![vec![s("A"), s("B")]],
                down_for: None,
            },
            &["impossible action", "at least two groups"],
        ),
        act(
            "action_partition_node_twice",
            "A node in two partition groups",
            Action::Partition {
                groups: vec![vec![s("A")], vec![s("A"), s("B")]],
                down_for: None,
            },
            &["impossible action", "node \"A\" is in two partition groups"],
        ),
    ]
}

/// The expectation editor's rows in a permalink (issue 41).
pub(super) fn editor_rows() -> Vec<Row> {
    let mut many_expects = session(vec![]);
    many_expects.expects = (0..=clusterscope_core::user_expect::MAX_USER_EXPECTS)
        .map(|i| clusterscope_core::scenario::ExpectSpec {
            name: format!("mine {i}"),
            view: "violations".into(),
            equals: Some(toml::Value::Integer(0)),
            ..Default::default()
        })
        .collect();
    vec![link(
        "permalink_too_many_expectations",
        "A link with 33 expectations of the person's (the editor keeps at most 32)",
        s("a valid session with 33 `expects` rows"),
        many_expects.encode(),
        &["33 expectations", "the limit is 32"],
    )]
}
