//! The chunk executors (`ContainerStateMachine.getChunkExecutor`: a WriteChunk's data stage, and
//! the appender's read of its data, run on executor `blockID.localID % chunkExecutors.size()`,
//! each a single thread): a stalled executor holds its own blocks only, two blocks on one
//! executor queue behind each other, and a read waits behind its block's executor. Each test
//! also runs the old model's shape (one chunk writer: `chunk_executors = 1`) where it differs.

use super::testbed::{exec, write};
use crate::runner::{Run, RunOptions};

/// Three datanodes and SCM, dn1 elected at 10 ms (links 1-3 ms), `chunk_executors` chunk
/// executors, chunks of `cost`, plus `rest` (TOML faults and expectations). Returns the failed
/// expectations, one a line.
fn failures(chunk_executors: u32, cost: &str, rest: &str) -> String {
    let s = super::testbed::three_datanodes(
        "chunk-executors",
        "4s",
        &format!("chunk_executors = {chunk_executors}\nchunk_write_cost = \"{cost}\""),
        rest,
    );
    let mut r = Run::new(s, "v", Some(1), &toml::Table::new(), &RunOptions::default()).unwrap();
    let rep = r.run(None).unwrap();
    rep.expectations
        .iter()
        .filter(|e| !e.passed)
        .map(|e| format!("{}: {}\n", e.name, e.detail))
        .collect()
}

fn expect(name: &str, view: &str, node: &str, key: &str, at: &str, equals: &str) -> String {
    format!(
        "[[expect]]\nname = \"{name}\"\nview = \"{view}\"\nobserver = \"{node}\"\nkey = \"{key}\"\nat = \"{at}\"\nequals = {equals}\n"
    )
}

/// dn1's ChunkWriter-2 (block 2's of ten) is stalled from 0.5 s; W1 (block 1, ChunkWriter-1)
/// then W2 (block 2) at 1 s and 1.1 s. W1's data stage runs on the leader, so its flush and
/// commit go ahead and W1 is applied; W2 waits on the stalled executor until its release at 3 s.
/// With one chunk writer (the old model) the stall holds W1 too.
#[test]
fn a_stalled_chunk_executor_holds_only_its_own_blocks() {
    let faults = [
        exec("stall", "500ms", "dn1", "ChunkWriter-2"),
        write("1s", "dn1", "W1", 1),
        write("1100ms", "dn1", "W2", 2),
        exec("release", "3s", "dn1", "ChunkWriter-2"),
    ]
    .concat();
    let checks = [
        expect(
            "W1 written on the leader",
            "block_length",
            "dn1",
            "1/1",
            "2s",
            "1024",
        ),
        expect("W1 applied", "result", "dn1", "W1", "2s", "\"SUCCESS\""),
        expect("W2 waits", "block_length", "dn1", "1/2", "2s", "0"),
        expect("W2 not applied", "result", "dn1", "W2", "2s", "\"none\""),
        expect(
            "W2 after the release",
            "result",
            "dn1",
            "W2",
            "end",
            "\"SUCCESS\"",
        ),
    ]
    .concat();
    let got = failures(10, "1ms", &format!("{faults}{checks}"));
    assert!(got.is_empty(), "ten executors:\n{got}");

    // The old model's one chunk writer: the same stall holds W1 as well.
    let one = faults.replace("ChunkWriter-2", "ChunkWriter-0");
    let got = failures(1, "1ms", &format!("{one}{checks}"));
    assert!(
        got.contains("W1 written on the leader") && got.contains("W1 applied"),
        "one executor: the stall should hold W1 too, failed only:\n{got}"
    );
}

/// Blocks 3 and 13 share ChunkWriter-3 (of ten), block 4 has ChunkWriter-4; each data stage
/// takes 100 ms. Written in that order from 1 s (5 ms apart), block 4's stage runs beside block
/// 3's, and block 13's
/// starts only when block 3's ends: at 1.15 s blocks 3 and 4 are written on every datanode,
/// block 13 on none; by 1.3 s it is.
#[test]
fn two_blocks_on_one_chunk_executor_queue_behind_each_other() {
    let faults = [
        write("1s", "dn1", "W3", 3),
        write("1005ms", "dn1", "W13", 13),
        write("1010ms", "dn1", "W4", 4),
    ]
    .concat();
    let mut checks = String::new();
    for dn in ["dn1", "dn2", "dn3"] {
        checks += &expect(
            &format!("{dn}: block 3 at 1.15 s"),
            "block_length",
            dn,
            "1/3",
            "1150ms",
            "1024",
        );
        checks += &expect(
            &format!("{dn}: block 4 beside it"),
            "block_length",
            dn,
            "1/4",
            "1150ms",
            "1024",
        );
        checks += &expect(
            &format!("{dn}: block 13 behind block 3"),
            "block_length",
            dn,
            "1/13",
            "1150ms",
            "0",
        );
        checks += &expect(
            &format!("{dn}: block 13 by 1.3 s"),
            "block_length",
            dn,
            "1/13",
            "1300ms",
            "1024",
        );
    }
    let got = failures(10, "100ms", &format!("{faults}{checks}"));
    assert!(got.is_empty(), "ten executors:\n{got}");

    // One chunk writer: block 4 waits behind both.
    let got = failures(1, "100ms", &format!("{faults}{checks}"));
    assert!(
        got.contains("block 4 beside it"),
        "one executor: block 4 should queue behind blocks 3 and 13, failed only:\n{got}"
    );
}

/// A follower that becomes leader before its own data stage of an entry ran reads that entry's
/// data on the entry's block's chunk executor, behind the queued write. dn3 is stopped from
/// 0.5 s to 1.3 s; dn2's ChunkWriter-2 (block 2's) is stalled from 0.5 s. dn1 appends W1
/// (block 1, index 2) and W2 (block 2, index 3); dn2 writes W1 but W2's stage waits. dn1 is
/// killed at 1.2 s and dn2 elected at 1.4 s: its appender's batch for dn3 (indexes 2-4) reads
/// index 2 back from ChunkWriter-1's file at once, but index 3's read waits behind the stalled
/// write, and Ratis' appender waits for the whole batch (`DataQueue.pollList`, until the
/// heartbeat is due, 2.5 s after dn3's last reply: later than the release at 2.5 s), so dn3
/// gets nothing until the release, then all of it. (Before December 2026 the model's appender
/// sent index 2 alone at once: dn3 had W1 at 2 s.) With one chunk writer the stall holds dn2's
/// own W1 write too.
#[test]
fn the_chunk_read_waits_behind_its_blocks_executor() {
    let faults = [
        "[[faults]]\nat = \"500ms\"\naction = \"stop\"\nnode = \"dn3\"\n".to_string(),
        exec("stall", "500ms", "dn2", "ChunkWriter-2"),
        write("1s", "dn1", "W1", 1),
        write("1050ms", "dn1", "W2", 2),
        "[[faults]]\nat = \"1200ms\"\naction = \"kill\"\nnode = \"dn1\"\n".to_string(),
        "[[faults]]\nat = \"1300ms\"\naction = \"start\"\nnode = \"dn3\"\n".to_string(),
        "[[faults]]\nat = \"1400ms\"\naction = \"command\"\nnode = \"dn2\"\ncommand = \"timeout\"\n"
            .to_string(),
        exec("release", "2500ms", "dn2", "ChunkWriter-2"),
    ]
    .concat();
    let plain = |name: &str, view: &str, node: &str, at: &str, equals: &str| {
        format!("[[expect]]\nname = \"{name}\"\nview = \"{view}\"\nobserver = \"{node}\"\nat = \"{at}\"\nequals = {equals}\n")
    };
    let checks = [
        plain("dn2 leads", "role", "dn2", "2s", "\"leader\""),
        plain(
            "dn3's batch waits for index 3's read",
            "log_length",
            "dn3",
            "2s",
            "1",
        ),
        expect(
            "W2 still queued on dn2",
            "block_length",
            "dn2",
            "1/2",
            "2s",
            "0",
        ),
        expect("dn2 wrote W1", "block_length", "dn2", "1/1", "2s", "1024"),
        expect(
            "dn3 gets W1 after the release",
            "block_length",
            "dn3",
            "1/1",
            "end",
            "1024",
        ),
        expect(
            "dn3 gets W2 after the release",
            "block_length",
            "dn3",
            "1/2",
            "end",
            "1024",
        ),
        plain(
            "and the new leader's entry",
            "log_length",
            "dn3",
            "end",
            "4",
        ),
    ]
    .concat();
    let got = failures(10, "1ms", &format!("{faults}{checks}"));
    assert!(got.is_empty(), "ten executors:\n{got}");

    let one = faults.replace("ChunkWriter-2", "ChunkWriter-0");
    let got = failures(1, "1ms", &format!("{one}{checks}"));
    assert!(
        got.contains("dn2 wrote W1"),
        "one executor: the stall should hold dn2's W1 write too, failed only:\n{got}"
    );
}
