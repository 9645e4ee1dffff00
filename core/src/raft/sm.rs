//! The state-machine seam, shaped like Ratis' `StateMachine`: `startTransaction` (validate; a
//! refusal gets no log index), `preAppendTransaction` (inside the leader's append), the data stage
//! `write` (every replica; may complete later on the state machine's own executor: the entry
//! counts as flushed only when both the log and the data are written), `applyTransaction` (on the
//! StateMachineUpdater thread) and `readStateMachineData` (the leader's appender, when the data is
//! not at hand; may complete later). A state machine adds its own executors after Raft's three,
//! its own tasks and timers, and reports asynchronous completions through [`SmCtx`]; Raft code
//! never changes for a new one. [`Kv`] is the teaching key-value store.

use super::{Index, Raft, Term};
use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId};
use crate::time::Micros;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// What the data stage or a data read says now.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    /// Done synchronously.
    Done,
    /// Will complete later: the state machine calls [`SmCtx::data_written`] / [`SmCtx::data_read`].
    Pending,
    /// Failed (the state machine decides what that means for itself, e.g. unhealthy).
    Failed(String),
}

/// What `startTransaction` decides.
#[derive(Clone, Debug, PartialEq)]
pub enum Start {
    /// Go on to appendTransaction now.
    Ready,
    /// Hold the request (a hold point before appendTransaction); the state machine calls
    /// [`SmCtx::resume`] with the token later.
    Hold(u64),
}

/// Asynchronous completions a state machine reports back to Raft.
#[derive(Clone, Debug, PartialEq)]
pub enum SmEvent<C> {
    DataWritten(Index),
    DataRead(Index),
    Resume(u64, Result<(), String>),
    /// Submit a request to this node's own Raft server (as a client would).
    Submit(C),
}

/// A state machine's window: the node's engine context plus the completions it reports.
pub struct SmCtx<'c, 'a, S: StateMachine> {
    pub ctx: &'c mut Ctx<'a, Raft<S>>,
    /// This node leads its Raft group now.
    pub is_leader: bool,
    /// The leader this node knows of.
    pub leader: Option<NodeId>,
    /// On the leader: the lowest nextIndex of its followers (Ratis'
    /// `DivisionInfo.getFollowerNextIndices()`, min); `None` on a follower or a group of one.
    pub min_follower_next: Option<Index>,
    pub(super) events: Vec<SmEvent<S::Cmd>>,
}

impl<'c, 'a, S: StateMachine> SmCtx<'c, 'a, S> {
    pub(super) fn new(
        ctx: &'c mut Ctx<'a, Raft<S>>,
        is_leader: bool,
        leader: Option<NodeId>,
        min_follower_next: Option<Index>,
    ) -> Self {
        SmCtx {
            ctx,
            is_leader,
            leader,
            min_follower_next,
            events: Vec::new(),
        }
    }
    /// Send a message of the state machine's own protocol.
    pub fn send(&mut self, to: NodeId, msg: S::Msg) {
        self.ctx.send(to, super::Msg::Sm(msg));
    }
    /// Submit a request to this node's own Raft server (Ozone's `XceiverServerRatis.submitRequest`):
    /// a follower answers NotLeader, which nobody waits for.
    pub fn submit_request(&mut self, cmd: S::Cmd) {
        self.events.push(SmEvent::Submit(cmd));
    }
    /// Submit a task to the state machine's `k`-th own executor (`S::EXECUTORS[3 + k]`).
    pub fn submit(&mut self, k: u8, task: S::Task) {
        self.ctx
            .submit(super::SM_EXEC0 + k, super::Task::Sm(task), None);
    }
    pub fn set_timer(&mut self, t: S::Timer, at: Micros) {
        self.ctx.set_timer(super::Timer::Sm(t), at);
    }
    pub fn log(&mut self, level: LogLevel, text: impl fmt::Display) {
        self.ctx.log(level, text);
    }
    pub fn data_written(&mut self, i: Index) {
        self.events.push(SmEvent::DataWritten(i));
    }
    pub fn data_read(&mut self, i: Index) {
        self.events.push(SmEvent::DataRead(i));
    }
    pub fn resume(&mut self, token: u64, r: Result<(), String>) {
        self.events.push(SmEvent::Resume(token, r));
    }
}

/// A Raft state machine (Ratis `StateMachine`). Every hook may fail with a message; the
/// message becomes the client's reply (startTransaction, preAppendTransaction) or a log line.
pub trait StateMachine: Clone + fmt::Debug + 'static {
    /// A request and its log payload.
    type Cmd: Clone + fmt::Debug + PartialEq;
    type Reply: Clone + fmt::Debug + PartialEq;
    /// Per-node state (volatile parts are dropped by `on_exit`).
    type Node: Clone + fmt::Debug;
    type Task: Clone + fmt::Debug;
    type Timer: Clone + Ord + fmt::Debug;
    /// Messages of the state machine's own protocol (`SmCtx::send`, `on_message`).
    type Msg: Clone + fmt::Debug;
    /// All executors of a Raft node running this state machine: Raft's three
    /// ([`super::RAFT_EXECUTORS`]) first, then the state machine's own.
    const EXECUTORS: &'static [&'static str];
    /// How many of [`Self::EXECUTORS`] this run has (a state machine whose executor count is a
    /// parameter lists the most it allows and runs the first `executor_count`).
    fn executor_count(&self) -> usize {
        Self::EXECUTORS.len()
    }

    fn init(&self, id: NodeId) -> Self::Node;
    /// Whether the hooks read [`SmCtx::min_follower_next`] (computed for them on the leader).
    fn wants_follower_next(&self) -> bool {
        false
    }
    /// kill -9 / stop: drop volatile state (the log replay rebuilds the applied state).
    fn on_exit(&self, node: &mut Self::Node);
    /// A client request from the `client-...` commands: `None` when the words are not a request
    /// of this state machine; `Some(Err)` when they are, but malformed.
    fn parse_request(&self, words: &[&str]) -> Option<Result<Self::Cmd, String>>;
    /// The `seq`-th request of the generated client load.
    fn load_request(&self, seq: u64) -> Self::Cmd;
    fn describe(&self, cmd: &Self::Cmd) -> String;

    fn start_transaction(
        &self,
        _n: &mut Self::Node,
        _c: &mut SmCtx<Self>,
        _cmd: &Self::Cmd,
    ) -> Result<Start, String> {
        Ok(Start::Ready)
    }
    fn pre_append_transaction(
        &self,
        _n: &mut Self::Node,
        _c: &mut SmCtx<Self>,
        _i: Index,
        _cmd: &Self::Cmd,
    ) -> Result<(), String> {
        Ok(())
    }
    /// The data stage, on every replica as the entry is appended.
    fn write_data(
        &self,
        _n: &mut Self::Node,
        _c: &mut SmCtx<Self>,
        _i: Index,
        _t: Term,
        _cmd: &Self::Cmd,
        _leader: bool,
    ) -> Stage {
        Stage::Done
    }
    /// The leader's appender needs entry `i`'s data for follower `to` (Ratis'
    /// `SegmentedRaftLog.getEntryWithData` -> `StateMachine.data().read`): start the read.
    /// `Pending`: it completes later ([`SmCtx::data_read`]) and the appender asks
    /// [`Self::poll_data`]. A new batch starts a new read even if an older one of the same entry
    /// is still running (Ratis drops a batch's futures when it gives up waiting).
    fn read_data(
        &self,
        _n: &mut Self::Node,
        _c: &mut SmCtx<Self>,
        _i: Index,
        _cmd: &Self::Cmd,
        _to: NodeId,
    ) -> Stage {
        Stage::Done
    }
    /// The appender looks at the read `read_data` started for entry `i` and follower `to`
    /// (`EntryWithData.getEntry`): `Pending` while it runs, then its outcome, once.
    fn poll_data(
        &self,
        _n: &mut Self::Node,
        _c: &mut SmCtx<Self>,
        _i: Index,
        _to: NodeId,
    ) -> Stage {
        Stage::Done
    }
    /// A read-only request (Ratis `RaftClientRequest.isReadOnly`, sent with
    /// `RaftClient.io().sendReadOnly`): the leader answers it from its state machine
    /// (`RaftServerImpl.readAsync` with the default `raft.server.read.option`, DEFAULT:
    /// `checkLeaderState`, then `queryStateMachine`), with no log entry. `None`: a write, which
    /// goes through the log.
    fn read(&self, _n: &Self::Node, _cmd: &Self::Cmd) -> Option<Self::Reply> {
        None
    }
    /// The leader stepped down (Ratis `LeaderEventApi.notifyNotLeader`).
    fn not_leader(&self, _n: &mut Self::Node, _c: &mut SmCtx<Self>) {}
    /// `LeaderEventApi.notifyFollowerSlowness`: on the leader, follower `follower` has not
    /// answered for `quiet` (longer than `slowness_timeout`); called at every turn of its
    /// appender's loop while that lasts.
    fn follower_slowness(
        &self,
        _n: &mut Self::Node,
        _c: &mut SmCtx<Self>,
        _follower: NodeId,
        _quiet: Micros,
    ) {
    }
    /// `FollowerEventApi.notifyExtendedNoLeader`: this follower stands for election with no
    /// leader known for `quiet` (longer than `no_leader_timeout`).
    fn extended_no_leader(&self, _n: &mut Self::Node, _c: &mut SmCtx<Self>, _quiet: Micros) {}
    fn apply(
        &self,
        n: &mut Self::Node,
        c: &mut SmCtx<Self>,
        i: Index,
        cmd: &Self::Cmd,
    ) -> Self::Reply;
    /// The node's process starts (the first time and after every restart), before its Raft
    /// server runs; also on a node outside the Raft group.
    fn on_start(&self, _n: &mut Self::Node, _c: &mut SmCtx<Self>) {}
    fn on_task(&self, _n: &mut Self::Node, _c: &mut SmCtx<Self>, _t: Self::Task) {}
    fn on_message(&self, _n: &mut Self::Node, _c: &mut SmCtx<Self>, _from: NodeId, _m: Self::Msg) {}
    fn msg_label(&self, _m: &Self::Msg) -> &'static str {
        "SM_MESSAGE"
    }
    fn render_msg(&self, m: &Self::Msg) -> String {
        format!("{m:?}")
    }
    /// The client requests `parse_request` takes, one usage form each: the command, then its
    /// arguments in capitals, an optional one in brackets (`"client-put KEY VALUE"`). A Raft
    /// server's client sends them (`Protocol::check_command` checks the count against the form).
    fn request_forms(&self) -> &'static [&'static str] {
        &[]
    }
    /// The node commands of the state machine (`is_command`) in the same form: those of a
    /// server of the Raft group (`outside` false), or of a node outside it (true).
    fn command_forms(&self, _outside: bool) -> &'static [&'static str] {
        &[]
    }
    /// The static check of a node command whose name and argument count match a form: what is
    /// wrong with its arguments (a malformed number) whatever the node's state.
    fn check_command(&self, _words: &[&str]) -> Result<(), String> {
        Ok(())
    }
    /// Whether `words` is a node command of the state machine (not a client request).
    fn is_command(&self, _words: &[&str]) -> bool {
        false
    }
    /// Run a node command `is_command` accepted.
    fn command(
        &self,
        _n: &mut Self::Node,
        _c: &mut SmCtx<Self>,
        _words: &[&str],
    ) -> Result<(), String> {
        Ok(())
    }
    fn on_timer(&self, _n: &mut Self::Node, _c: &mut SmCtx<Self>, _t: Self::Timer) {}
    fn service_us(&self, _n: &Self::Node, _t: &Self::Task) -> Micros {
        0
    }
    fn task_label(&self, _t: &Self::Task) -> &'static str {
        "sm-task"
    }
    fn timer_label(&self, _t: &Self::Timer) -> &'static str {
        "sm-timer"
    }
    /// A state-machine view (`query` falls through to it for views Raft does not know).
    fn query(
        &self,
        _n: &Self::Node,
        _view: &str,
        _key: Option<&str>,
    ) -> Option<Result<String, String>> {
        None
    }
    fn views_json(&self, _n: &Self::Node) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// The teaching key-value store: `put KEY VALUE`, `get KEY`.
#[derive(Clone, Debug, Default)]
pub struct Kv;

/// A key-value command. Its key and value are shared strings (`Arc<str>`, printed and compared
/// as the `String`s they were): an entry is cloned into every AppendEntries that carries it, the
/// data stage and the apply, and a shared string's clone is a count, not an allocation.
#[derive(Clone, Debug, PartialEq)]
pub enum KvCmd {
    Put(Arc<str>, Arc<str>),
    Get(Arc<str>),
}

/// A server's store. Keys and values are the commands' shared strings (an apply stores a count,
/// not a copy; the reply, the value it replaced, is kept in every server's retry cache).
#[derive(Clone, Debug, Default)]
pub struct KvNode {
    pub map: BTreeMap<KvKey, Arc<str>>,
    pub applied_puts: u64,
}

/// A stored key: the command's shared string, in `str`'s order (so the store iterates, and its
/// views print, as a `BTreeMap<Arc<str>, _>` did), with a key of at most 8 bytes also held as
/// one integer (its bytes big-endian, padded with zero bytes): two such keys compare as their
/// integers, ties by length, the same order as `str`'s (`key_cmp`), instead of a `memcmp` call
/// per comparison of each apply's search (issue 44). Looked up by `&str` as well
/// (`Borrow<str>`, the same order).
#[derive(Clone)]
pub struct KvKey {
    s: Arc<str>,
    /// The bytes as an integer when at most 8 of them (`short`).
    word: u64,
    short: bool,
}

impl KvKey {
    pub fn new(s: Arc<str>) -> KvKey {
        let b = s.as_bytes();
        let short = b.len() <= 8;
        let word = if short { short_word(b) } else { 0 };
        KvKey { s, word, short }
    }
}

/// Up to 8 bytes as a big-endian integer padded with zero bytes.
#[inline]
fn short_word(b: &[u8]) -> u64 {
    b.iter()
        .enumerate()
        .fold(0u64, |w, (i, &c)| w | (c as u64) << (56 - 8 * i))
}

impl PartialEq for KvKey {
    fn eq(&self, other: &Self) -> bool {
        self.s == other.s
    }
}

impl Eq for KvKey {}

impl Ord for KvKey {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self.short && other.short {
            self.word
                .cmp(&other.word)
                .then(self.s.len().cmp(&other.s.len()))
        } else {
            self.s.cmp(&other.s)
        }
    }
}

impl PartialOrd for KvKey {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::borrow::Borrow<str> for KvKey {
    fn borrow(&self) -> &str {
        &self.s
    }
}

impl std::ops::Deref for KvKey {
    type Target = str;
    fn deref(&self) -> &str {
        &self.s
    }
}

impl fmt::Display for KvKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.s)
    }
}

impl fmt::Debug for KvKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.s, f)
    }
}

impl serde::Serialize for KvKey {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        s.serialize_str(&self.s)
    }
}

/// How two keys compare as stored: `KvKey`'s order (`str`'s, by the test below).
#[cfg(test)]
fn key_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    KvKey::new(a.into()).cmp(&KvKey::new(b.into()))
}

impl StateMachine for Kv {
    type Cmd = KvCmd;
    type Reply = Option<Arc<str>>;
    type Node = KvNode;
    type Task = ();
    type Timer = ();
    type Msg = ();
    const EXECUTORS: &'static [&'static str] = super::RAFT_EXECUTORS;

    fn init(&self, _id: NodeId) -> KvNode {
        KvNode::default()
    }
    fn on_exit(&self, n: &mut KvNode) {
        *n = KvNode::default();
    }
    fn parse_request(&self, w: &[&str]) -> Option<Result<KvCmd, String>> {
        match w {
            ["client-put", k, v] => Some(Ok(KvCmd::Put((*k).into(), (*v).into()))),
            ["client-put", ..] => Some(Err(
                "client-put needs a key and a value, e.g. \"client-put x 1\"".into(),
            )),
            ["client-get", k] => Some(Ok(KvCmd::Get((*k).into()))),
            ["client-get", ..] => Some(Err("client-get needs a key, e.g. \"client-get x\"".into())),
            _ => None,
        }
    }
    fn request_forms(&self) -> &'static [&'static str] {
        &["client-put KEY VALUE", "client-get KEY"]
    }
    fn load_request(&self, seq: u64) -> KvCmd {
        // The value is the request's number within this client incarnation (the low 32 bits of
        // `seq`; the incarnation sits above them): "k3 = 19", not "k3 = 4294967315".
        const KEYS: [&str; 16] = [
            "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13",
            "k14", "k15",
        ];
        // The value's decimal digits written on the stack and copied once into the shared
        // string (`to_string().into()` formatted into a `String` and copied it again: issue 44).
        let mut buf = [0u8; 20];
        let digits = crate::text::decimal_digits(seq & 0xffff_ffff, &mut buf);
        let value = std::str::from_utf8(digits).expect("ASCII digits");
        KvCmd::Put(KEYS[(seq % 16) as usize].into(), value.into())
    }
    fn read(&self, n: &KvNode, cmd: &KvCmd) -> Option<Option<Arc<str>>> {
        match cmd {
            KvCmd::Get(k) => Some(n.map.get(&**k).cloned()),
            KvCmd::Put(..) => None,
        }
    }
    fn describe(&self, c: &KvCmd) -> String {
        match c {
            KvCmd::Put(k, v) => format!("put {k}={v}"),
            KvCmd::Get(k) => format!("get {k}"),
        }
    }
    fn apply(
        &self,
        n: &mut KvNode,
        _c: &mut SmCtx<Self>,
        _i: Index,
        cmd: &KvCmd,
    ) -> Option<Arc<str>> {
        match cmd {
            KvCmd::Put(k, v) => {
                n.applied_puts += 1;
                // A key already stored (all but the first put of each) keeps its string: its
                // value replaced in place, no clone and drop of the key (issue 44).
                let key = KvKey::new(k.clone());
                match n.map.get_mut(&key) {
                    Some(old) => Some(std::mem::replace(old, v.clone())),
                    None => n.map.insert(key, v.clone()),
                }
            }
            KvCmd::Get(k) => n.map.get(&KvKey::new(k.clone())).cloned(),
        }
    }
    fn query(&self, n: &KvNode, view: &str, key: Option<&str>) -> Option<Result<String, String>> {
        match view {
            "kv" => Some(match key {
                Some(k) => Ok(n.map.get(k).map(|v| v.to_string()).unwrap_or_default()),
                None => Err("view `kv` needs `key = \"...\"` (the key to read)".into()),
            }),
            _ => None,
        }
    }
    fn views_json(&self, n: &KvNode) -> serde_json::Value {
        serde_json::json!({ "kv": n.map, "applied_puts": n.applied_puts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `key_cmp` orders as `str` does: short and long keys, prefixes, zero bytes, non-ASCII.
    #[test]
    fn key_cmp_orders_as_str_does() {
        let mut keys: Vec<String> = vec![
            "".into(),
            "\0".into(),
            "\0\0".into(),
            "a\0".into(),
            "a".into(),
            "ab".into(),
            "abcdefgh".into(),
            "abcdefg\0".into(),
            "abcdefghi".into(),
            "abcdefgh\0".into(),
            "\u{ff}".into(),
            "é".into(),
            "zzzzzzzzzzzz".into(),
        ];
        keys.extend((0..40).map(|i| format!("k{i}")));
        keys.extend((0..300u32).map(|i| {
            (0..i % 11)
                .map(|j| char::from(b"\0ak~"[((i * 7 + j * 3) % 4) as usize]))
                .collect()
        }));
        for a in &keys {
            for b in &keys {
                assert_eq!(key_cmp(a, b), a.cmp(b), "{a:?} against {b:?}");
            }
        }
    }

    /// The request's value is the low 32 bits of `seq` in decimal, as `to_string` writes it.
    #[test]
    fn load_request_writes_the_value_as_to_string_does() {
        let seqs = [
            0u64,
            1,
            9,
            10,
            99,
            100,
            12_345,
            (1 << 32) + 19,
            u32::MAX as u64,
            u64::MAX,
        ];
        for seq in seqs.into_iter().chain((0..3000).map(|i| i * 7919)) {
            match Kv.load_request(seq) {
                KvCmd::Put(k, v) => {
                    assert_eq!(&*k, format!("k{}", seq % 16));
                    assert_eq!(&*v, (seq & 0xffff_ffff).to_string(), "seq {seq}");
                }
                other => panic!("a put, not {other:?}"),
            }
        }
    }
}
