//! The leader's catch-up read of a WriteChunk's data, as Ozone and Ratis run it. Ozone's
//! `ContainerStateMachine.read` submits every read that misses `stateMachineDataCache` to the
//! block's chunk executor (`ChunkWriter-<localID mod n>`), behind whatever that executor has
//! queued; Ratis' appender (`LogAppenderBase.newAppendEntriesRequest`) starts the reads of a
//! whole batch (`getEntryWithData` for each entry), then waits for them in index order
//! (`DataQueue.pollList`) until the heartbeat is due (`getHeartbeatWaitTimeMs`), and sends what
//! was read by then: the whole batch, or on a `TimeoutException` the entries before the one not
//! read (none: a heartbeat). dn1 leads; dn3 is stopped while the others go on, then started:
//! its catch-up reads from dn1's disk the WriteChunks dn1 already applied (and evicted).

use super::testbed::fault;
use super::view::Ozone;
use crate::runner::{Run, RunOptions};
use crate::time::{Micros, US_PER_MS};

/// Three datanodes and SCM, dn1 elected at 10 ms (links 1-3 ms), ten chunk executors, chunks
/// of 1 ms, the run `dur` long; `faults` in TOML.
fn run(dur: &str, faults: &str) -> Run {
    let s = super::testbed::three_datanodes(
        "catch-up-read",
        dur,
        "chunk_executors = 10\nchunk_write_cost = \"1ms\"",
        faults,
    );
    Run::new(s, "v", Some(1), &toml::Table::new(), &RunOptions::default()).unwrap()
}

fn write(at: &str, tag: &str, block: u32) -> String {
    super::testbed::write(at, "dn1", tag, block)
}

fn exec(at: &str, action: &str, executor: &str, extra: &str) -> String {
    fault(
        at,
        action,
        "dn1",
        &format!("executor = \"{executor}\"\n{extra}"),
    )
}

/// Runs to `t` (virtual µs).
fn step(r: &mut Run, t: Micros) {
    r.engine_of_mut::<Ozone>()
        .unwrap()
        .run_until(t, u64::MAX)
        .unwrap();
}

/// `name`'s log length and the bytes of block `block` of container 1 in its block file.
fn dn(r: &Run, name: &str, block: u32) -> (u64, u64) {
    let sim = r.sim_of::<Ozone>().unwrap();
    let n = &sim.nodes[sim.topo.id(name).unwrap() as usize].state;
    (n.last(), n.sm.files.get(&(1, block)).copied().unwrap_or(0))
}

/// dn1's log lines that contain `needle`.
fn logged(r: &Run, needle: &str) -> usize {
    let t = r.trace();
    t.logs
        .iter()
        .filter(|l| l.node == 0 && t.text(l).contains(needle))
        .count()
}

/// dn3, down from 0.3 s to 1.5 s, misses W1 (block 1, applied and evicted on dn1 by 0.5 s).
/// At 1.45 s dn1's ChunkWriter-1 gets a 2 s delay (released at 1.46 s: only the task it
/// starts meanwhile takes it), and W11 (block 11, also ChunkWriter-1) comes at 1.45 s: its data
/// stage runs on dn1 until about 3.45 s. W2 (block 5) at 2 s is sent to dn3 at once; dn3's
/// INCONSISTENCY starts its catch-up, which needs W1 read from disk: the read is queued on
/// ChunkWriter-1 behind W11's write, and the batch (W1, W11, W2) waits for it (the heartbeat
/// is due only 2.5 s after dn3's reply), so dn3 has none of the three at 3.3 s, and all (and
/// W1's bytes) by 4 s. With W12 (block 12) and ChunkWriter-2 delayed instead, the same
/// read does not wait: dn3 has W1 before 3.3 s. Before the read was a task on the executor,
/// it ran at once and dn3 had W1 at 3.3 s in both runs.
#[test]
fn a_catch_up_read_waits_behind_another_blocks_write_on_its_executor() {
    let base = |other: u32| {
        let slow = format!("ChunkWriter-{}", other % 10);
        [
            fault("300ms", "stop", "dn3", ""),
            write("400ms", "W1", 1),
            exec("1450ms", "delay", &slow, "extra = \"2s\""),
            write("1450ms", "W", other),
            exec("1460ms", "release", &slow, ""),
            fault("1500ms", "start", "dn3", ""),
            write("2s", "W2", 5),
        ]
        .concat()
    };
    // W11 shares W1's executor.
    let mut r = run("5s", &base(11));
    step(&mut r, 1_000 * US_PER_MS);
    let (dn1_len, w1) = dn(&r, "dn1", 1);
    assert_eq!(w1, 1024, "W1 written on dn1");
    step(&mut r, 3_300 * US_PER_MS);
    assert_eq!(dn(&r, "dn1", 11).1, 0, "W11's data stage still runs on dn1");
    assert_eq!(
        dn(&r, "dn3", 1),
        (dn1_len - 1, 0),
        "dn3's catch-up waits for W1's read behind W11's write"
    );
    step(&mut r, 4_000 * US_PER_MS);
    assert_eq!(
        dn(&r, "dn3", 1),
        (dn1_len + 2, 1024),
        "then dn3 has all three"
    );

    // W12 on ChunkWriter-2: the read of W1 does not wait.
    let mut r = run("5s", &base(12));
    step(&mut r, 3_300 * US_PER_MS);
    assert_eq!(dn(&r, "dn1", 12).1, 0, "W12's data stage still runs on dn1");
    assert_eq!(dn(&r, "dn3", 1).1, 1024, "dn3 has W1's bytes");
}

/// dn3, down from 0.3 s to 1.5 s, misses W1 (block 1). dn1's ChunkWriter-1 is stalled from
/// 1.4 s to 9 s with W11 (block 11) queued on it; W2 (block 5) at 2 s starts dn3's catch-up
/// (its INCONSISTENCY). dn3's catch-up read of W1 waits behind them:
/// each batch waits until the heartbeat is due and then times out (`TimeoutException`, logged),
/// the AppendEntries goes out without entries (a heartbeat, so dn3 stays a follower of dn1),
/// and the appender starts the next batch's reads. dn3 gets W1 only after the release.
#[test]
fn a_stalled_executor_holds_the_catch_up_until_its_release() {
    let faults = [
        fault("300ms", "stop", "dn3", ""),
        write("400ms", "W1", 1),
        exec("1400ms", "stall", "ChunkWriter-1", ""),
        write("1450ms", "W11", 11),
        fault("1500ms", "start", "dn3", ""),
        write("2s", "W2", 5),
        exec("9s", "release", "ChunkWriter-1", ""),
    ]
    .concat();
    let mut r = run("11s", &faults);
    step(&mut r, 1_000 * US_PER_MS);
    let (dn1_len, _) = dn(&r, "dn1", 1);
    step(&mut r, 8_900 * US_PER_MS);
    assert_eq!(dn(&r, "dn3", 1), (dn1_len - 1, 0), "dn3 still lacks W1");
    let sim = r.sim_of::<Ozone>().unwrap();
    let dn3 = &sim.nodes[2].state;
    assert!(
        dn3.role == crate::raft::node::Role::Follower && dn3.leader == Some(0),
        "dn3 follows dn1 throughout: {:?} {:?}",
        dn3.role,
        dn3.leader
    );
    let timeouts = logged(&r, "TimeoutException");
    assert!(
        timeouts >= 2,
        "the appender timed out waiting for the read, batch after batch: {timeouts}"
    );
    step(&mut r, 10_000 * US_PER_MS);
    assert_eq!(
        dn(&r, "dn3", 1),
        (dn1_len + 2, 1024),
        "after the release dn3 has W1, W11 and W2"
    );
}

/// dn3, down from 0.3 s to 1.5 s, misses W1..W5 (blocks 1, 11, 21, 31, 41: all on
/// ChunkWriter-1, whose reads take 0.1 ms each, one after another). Its catch-up reads all
/// five from dn1's disk in one batch: dn3's log goes from before W1 to past W5 in one step,
/// never holding some of them only (a task per read that ended the batch at each read not done
/// would send five one-entry batches).
#[test]
fn a_catch_up_batch_is_not_cut_at_each_read() {
    let faults = [
        fault("300ms", "stop", "dn3", ""),
        write("400ms", "W1", 1),
        write("410ms", "W2", 11),
        write("420ms", "W3", 21),
        write("430ms", "W4", 31),
        write("440ms", "W5", 41),
        fault("1500ms", "start", "dn3", ""),
    ]
    .concat();
    let mut r = run("5s", &faults);
    step(&mut r, 1_000 * US_PER_MS);
    let (dn1_len, _) = dn(&r, "dn1", 1);
    let mut seen = vec![];
    let mut t = 1_500 * US_PER_MS;
    while t < 5_000 * US_PER_MS {
        step(&mut r, t);
        let (len, _) = dn(&r, "dn3", 1);
        if seen.last() != Some(&len) {
            seen.push(len);
        }
        t += 100;
    }
    assert_eq!(
        seen,
        vec![dn1_len - 5, dn1_len],
        "dn3's log lengths: the five entries came in one AppendEntries"
    );
    let sim = r.sim_of::<Ozone>().unwrap();
    let from: Vec<&str> = (dn1_len - 4..=dn1_len)
        .map(|i| {
            sim.nodes[0]
                .state
                .sm
                .sent_from
                .get(&(2, i))
                .copied()
                .unwrap_or("-")
        })
        .collect();
    assert_eq!(from, ["disk"; 5], "each read from dn1's block files");
}
