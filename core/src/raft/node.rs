//! One Raft server's state: persistent (term, votedFor, the flushed log), volatile (role,
//! commit/apply/flush indices, the leader's per-follower progress, pending requests, retry
//! cache, the co-located client) and ghost data for the invariant checks (kept across restarts).

use super::sm::StateMachine;
use super::{Index, Term};
use crate::engine::NodeId;
use crate::time::Micros;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Follower,
    /// Pre-vote phase (`pre`) or the real election.
    Candidate {
        pre: bool,
    },
    Leader,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Follower => "follower",
            Role::Candidate { pre: true } => "pre-candidate",
            Role::Candidate { pre: false } => "candidate",
            Role::Leader => "leader",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Payload<C> {
    /// The entry a new leader appends (Ratis: its configuration entry).
    Startup,
    Client {
        client: NodeId,
        seq: u64,
        cmd: C,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry<C> {
    pub term: Term,
    pub payload: Payload<C>,
    /// Ghost: a hash of (index, term) for this entry and every entry before it (Log Matching).
    pub chain: u64,
}

impl<C> Entry<C> {
    pub fn kind(&self) -> &'static str {
        match self.payload {
            Payload::Startup => "startup",
            Payload::Client { .. } => "client",
        }
    }
}

pub fn chain(prev: u64, index: Index, term: Term) -> u64 {
    let mut x =
        prev ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ term.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 29)
}

/// An AppendEntries in flight to one follower (Ratis `GrpcLogAppender.AppendEntriesRequest`).
#[derive(Clone, Debug)]
pub struct Sent {
    pub call: u64,
    /// Index of its first entry; 0 (Ratis' INVALID_LOG_INDEX) for a heartbeat.
    pub first: Index,
    /// Its previous entry's index; 0 for none.
    pub prev: Index,
    pub at: Micros,
}

/// A leader's view of one follower (`FollowerInfo` + its appender's pending requests and
/// reply state).
#[derive(Clone, Debug, Default)]
pub struct Progress {
    pub next: Index,
    pub matched: Index,
    /// AppendEntries with entries awaiting a reply (Ratis' `RequestMap.logRequests`).
    pub outstanding: VecDeque<Sent>,
    /// Heartbeats awaiting a reply (Ratis' `RequestMap.heartbeats`). A reply matches its request
    /// by call id; an INCONSISTENCY whose request is no longer here answers a request the
    /// leader has given up on (cleared by an INCONSISTENCY reply or timed out) and moves nothing.
    pub heartbeats: VecDeque<Sent>,
    /// `ReplyState.firstReplyReceived`: until the appender hears any reply, one AppendEntries
    /// with entries is in flight at a time (`haveTooManyPendingRequests`).
    pub first_reply: bool,
    /// The nextIndex the last INCONSISTENCY set, until a SUCCESS with entries (0: none). An
    /// INCONSISTENCY that names its request's own previous index above it is a conflict reply
    /// that overtook the one that set it, and moves nothing (not Ratis, whose stream delivers
    /// replies in order; see docs/model/raft.md).
    pub search: Index,
    /// The first call sent after the last INCONSISTENCY set `search`: only a reply to an earlier
    /// call can be one that an ordered stream would have delivered before it.
    pub search_call: u64,
    /// `FollowerInfo.ErrorState`: INCONSISTENCY replies and timeouts since the last good reply.
    pub errors: u32,
    /// The error count the appender last slept for (`lastReturnedErrorCount`).
    pub errors_slept: u32,
    /// `sleepForErrors`: the appender sends nothing to this follower before this time.
    pub sleep_until: Micros,
    /// Replies to calls below this went to an appender that was restarted since: ignored.
    pub min_call: u64,
    pub last_response: Micros,
    pub last_heartbeat: Micros,
    /// An appender task for this follower is queued on the LogAppender executor.
    pub queued: bool,
    /// Send a heartbeat on the next appender task even if one is not due.
    pub force_heartbeat: bool,
    /// The batch whose state-machine data reads the appender waits for
    /// (`LogAppenderBase.newAppendEntriesRequest`'s `buffer.pollList`).
    pub poll: Option<Poll>,
    /// The open gRPC stream to this follower (`appendLogRequestObserver`), as the call id of
    /// its first request; `None` once `resetClient` closed it (the next request opens one). A
    /// refused request of an older stream was already counted.
    pub stream: Option<u64>,
    /// When the appender's timer (`Timer::Appender`) is armed to wake, if it is.
    pub wake: Option<Micros>,
}

/// A batch of entries `from..=to` built for one follower, waiting for its data reads
/// (`EntryWithData.getEntry(remaining)`, in index order) until `deadline`, the heartbeat wait
/// time when the batch was built (`getHeartbeatWaitTimeMs()`).
#[derive(Clone, Debug, Default)]
pub struct Poll {
    pub from: Index,
    pub to: Index,
    /// The entries whose read had not completed when last looked at.
    pub pending: BTreeSet<Index>,
    /// When the batch was built, and the longest its reads are waited for.
    pub started: Micros,
    pub deadline: Micros,
    /// The read of `to` failed at once (`getEntryWithData` threw): met after the others.
    pub failed: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cached<R> {
    /// Appended at this index, not applied yet.
    Pending(Index),
    Done {
        index: Index,
        term: Term,
        reply: R,
        at: Micros,
    },
}

/// The retry cache's map: (client, call) -> what the server did with the call. FxHash
/// (`rustc-hash`): fixed and unseeded, so deterministic; only for maps the model looks up by key
/// and never iterates in their order.
pub type RetryCache<R> = HashMap<(NodeId, u64), Cached<R>, rustc_hash::FxBuildHasher>;

/// A client request waiting in the co-located client.
#[derive(Clone, Debug)]
pub struct ClientReq<C> {
    pub cmd: C,
    pub first_sent: Micros,
    pub target: NodeId,
    /// Waiting out a back-off (resend to `target` when the timer fires) rather than a reply.
    pub backoff: bool,
}

/// The client co-located with a node (a Ratis `RaftClient`): sends to the leader it believes in,
/// follows NotLeader hints, retries elsewhere on timeout.
#[derive(Clone, Debug)]
pub struct Client<C> {
    pub next_seq: u64,
    pub target: NodeId,
    pub outstanding: BTreeMap<u64, ClientReq<C>>,
    pub acked: u64,
    pub failed: u64,
    pub lat_count: u64,
    pub lat_sum: Micros,
    pub lat_max: Micros,
    pub lat_last: Micros,
}

impl<C> Client<C> {
    pub fn new(me: NodeId) -> Self {
        Client {
            next_seq: 1,
            target: me,
            outstanding: BTreeMap::new(),
            acked: 0,
            failed: 0,
            lat_count: 0,
            lat_sum: 0,
            lat_max: 0,
            lat_last: 0,
        }
    }
}

/// What the invariant checks need, never dropped on exit.
#[derive(Clone, Debug, Default)]
pub struct Ghost {
    /// Terms this node led.
    pub led: Vec<Term>,
    /// Per index (from 1) the highest committed entry's chain and the node's term when committed.
    /// Only ever appended to, through [`Ghost::commit`].
    pub committed: Vec<(u64, Term)>,
    /// A hash of the whole of `committed`: with its length, what the incremental Leader
    /// Completeness check (`check::Memo`) knows it by.
    pub committed_hash: u64,
    /// Per index (from 1) the chain of the entry applied there (first application).
    pub applied: Vec<u64>,
    /// A hash of the whole of `applied` (`chain` over it): with its length, what the
    /// incremental check (`check::Memo`) knows it by.
    pub applied_hash: u64,
    /// A broken rule the node noticed in itself (a leader truncating its own log, applying
    /// a different entry at an index it applied before).
    pub broken: Option<String>,
    /// Writes this node's client saw acknowledged: (index, chain unknown to the client: term).
    pub acked: Vec<(Index, Term)>,
    /// The client's incarnation count (its sequence numbers restart with a fresh client id).
    pub client_epoch: u64,
}

impl Ghost {
    /// Note index `committed.len() + 1` committed with this chain at this term.
    pub fn commit(&mut self, c: u64, term: Term) {
        self.committed.push((c, term));
        self.committed_hash = chain(self.committed_hash ^ c, self.committed.len() as u64, term);
    }
}

/// A small set of log indexes, ascending (the data stages still running): a sorted `Vec`, so
/// that the usual insert and remove of one index (a stage that finishes at once) costs no
/// allocation and free of a tree node, as a `BTreeSet`'s did (issue 44).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexSet(Vec<Index>);

impl IndexSet {
    /// Add `i`; whether it was absent.
    pub fn insert(&mut self, i: Index) -> bool {
        match self.0.binary_search(&i) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, i);
                true
            }
        }
    }
    /// Remove `i`; whether it was present.
    pub fn remove(&mut self, i: &Index) -> bool {
        match self.0.binary_search(i) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }
    pub fn contains(&self, i: &Index) -> bool {
        self.0.binary_search(i).is_ok()
    }
    /// The smallest index.
    pub fn first(&self) -> Option<&Index> {
        self.0.first()
    }
    pub fn retain(&mut self, f: impl FnMut(&Index) -> bool) {
        self.0.retain(f);
    }
}

#[derive(Clone, Debug)]
pub struct RNode<S: StateMachine> {
    // -- persistent
    pub term: Term,
    pub voted_for: Option<NodeId>,
    /// Entry `i` at `log[i - 1]`. Entries above `flush` are lost on kill -9.
    pub log: Vec<Entry<S::Cmd>>,
    /// Derived from `log`: runs of equal term (term, first index, last index).
    pub runs: Vec<(Term, Index, Index)>,
    /// The commitIndex of the log's last metadata entry (Ratis `RaftLogBase.appendMetadata`,
    /// restored by `RaftLog.open`): set only by a start state (`start`); the model appends no
    /// metadata entries during a run (docs/model/raft.md, "Start states").
    pub meta_commit: Index,
    // -- volatile
    pub role: Role,
    /// The leader this server knows of (`ServerState.leaderId`); set through `set_leader`.
    pub leader: Option<NodeId>,
    /// `ServerState.lastNoLeaderTime`: since when no leader is known (the server's start, or
    /// the leader becoming unknown); `None` while one is.
    pub no_leader_since: Option<Micros>,
    pub commit: Index,
    pub applied: Index,
    /// Entries written by the LogWorker (log flushed and data stage done).
    pub flush: Index,
    /// Written by the LogWorker (the data stage may still run).
    pub log_flushed: Index,
    /// Bumped on every truncation: a flush task of an older epoch is void.
    pub epoch: u64,
    pub role_since: Micros,
    /// Leader: when its EventProcessor last woke (an event on its queue, an updateCommit from its
    /// own flush or a follower's matchIndex advance, or its last leadership check): the check
    /// runs once `poll(maxTimeout)` waited max from there with no event.
    pub leader_woke: Micros,
    /// Leader: the index of its startup entry (0: none).
    pub startup_index: Index,
    /// Leader: `LeaderStateImpl.isReady`, its startup entry applied (at once without one).
    pub ready: bool,
    pub last_leader_contact: Micros,
    /// When the election timer next fires: a follower's `FollowerState` wakes from its sleep
    /// (it stands only if `last_rpc` is `sleep_for` ago); a candidate's round times out.
    pub election_deadline: Micros,
    /// Follower (Ratis `FollowerState.lastRpcTime`): when it last heard an AppendEntries or
    /// granted a vote; a new FollowerState (a node that becomes or is forced to a follower)
    /// starts it at its creation.
    pub last_rpc: Micros,
    /// Follower: the random timeout drawn for the FollowerState's current sleep.
    pub sleep_for: Micros,
    /// Follower (`FollowerState.outstandingOp`): AppendEntries with entries received and not
    /// yet answered; while any is, the follower stands for no election.
    pub appends_in_progress: u32,
    /// Follower (`FollowerState.lostMajorityHeartbeatsRecently`): a leader that stepped down
    /// for lost heartbeats stands for no election before this time.
    pub no_election_before: Micros,
    /// `hold-elections DURATION`: until then this server's election timeout starts no
    /// election (volatile: a restart forgets it).
    pub elections_held_until: Micros,
    /// Candidate: grants received (pre-vote or vote).
    pub votes: BTreeSet<NodeId>,
    /// Candidate: refusals received in this round (Ratis' `rejectedPeers`).
    pub rejects: BTreeSet<NodeId>,
    /// Candidate: vote requests of this round that failed (refused connection: the peer's
    /// server is down; Ratis' `exceptions` in `waitForResults`).
    pub vote_errors: BTreeSet<NodeId>,
    pub progress: Vec<Progress>,
    pub next_call: u64,
    pub apply_queued: bool,
    /// Leader: client requests waiting for their entry to apply (`PendingRequests`).
    pub pending: BTreeMap<Index, (NodeId, u64)>,
    /// Held by startTransaction: token -> (client, seq, cmd).
    pub held: BTreeMap<u64, (NodeId, u64, S::Cmd)>,
    /// Data stages still running.
    pub data_pending: IndexSet,
    /// Follower: AppendEntries replies whose entries are written but whose data stage is still
    /// running (Ratis' reply waits for the entry's combined log + state-machine-data future).
    pub flush_replies: Vec<super::FlushReply>,
    /// Ratis' `RetryCacheImpl` (a Guava cache keyed by client id and call id). Looked up,
    /// inserted and removed by key only, never walked in its order by the model (expiry walks
    /// `retry_expiry`; a view reads its length), so a hash map: a `BTreeMap` of ~6,000 keys
    /// cost ~585 instructions an insert on every apply of every node.
    pub retry: RetryCache<S::Reply>,
    /// The `Cached::Done` replies of `retry` in the order they were stored, with the time they
    /// were stored (nondecreasing: virtual time only grows, and a restart starts both afresh):
    /// they expire in this order, so expiry pops from the front instead of walking the whole
    /// cache. An item whose key was answered again, removed or replaced since is skipped (its
    /// `at` no longer matches, or the entry is gone or pending).
    pub retry_expiry: VecDeque<(Micros, (NodeId, u64))>,
    pub client: Client<S::Cmd>,
    /// Requests the state machine submitted to this server (`SmCtx::submit_request`).
    pub sm_seq: u64,
    /// Pending-request permits never released in `leaked_term` (see
    /// `RaftParams::leak_permit_on_pre_append_failure`).
    pub leaked_permits: u64,
    pub leaked_term: Term,
    /// Linearizable reads this server holds (read option LINEARIZABLE; `reads`), by local id.
    pub reads: BTreeMap<u64, ReadWait<S::Cmd>>,
    pub next_read: u64,
    /// Leader: the heartbeat rounds of linearizable reads, by readIndex
    /// (`ReadIndexHeartbeats.AppendEntriesListeners`).
    pub read_rounds: BTreeMap<Index, Round>,
    /// Leader: the highest readIndex a heartbeat round confirmed (`ackedCommitIndex`, one per
    /// leadership); a read at or below it needs no round.
    pub acked_commit: Index,
    /// readIndexes with a `Timer::ReadTimeout` armed and reads waiting for their apply
    /// (`ReadIndexQueue.sorted`).
    pub read_applies: BTreeSet<Index>,
    pub sm: S::Node,
    // -- counters (volatile too, but kept: they describe the run, not the process)
    pub elections: u64,
    pub applied_client: u64,
    pub ghost: Ghost,
}

impl<S: StateMachine> RNode<S> {
    pub fn new(me: NodeId, sm: S::Node) -> Self {
        RNode {
            term: 0,
            voted_for: None,
            log: Vec::new(),
            runs: Vec::new(),
            meta_commit: 0,
            role: Role::Follower,
            leader: None,
            no_leader_since: None,
            commit: 0,
            applied: 0,
            flush: 0,
            log_flushed: 0,
            epoch: 0,
            role_since: 0,
            leader_woke: 0,
            startup_index: 0,
            ready: false,
            last_leader_contact: 0,
            election_deadline: 0,
            last_rpc: 0,
            sleep_for: 0,
            appends_in_progress: 0,
            no_election_before: 0,
            elections_held_until: 0,
            votes: BTreeSet::new(),
            rejects: BTreeSet::new(),
            vote_errors: BTreeSet::new(),
            progress: Vec::new(),
            next_call: 1,
            apply_queued: false,
            pending: BTreeMap::new(),
            flush_replies: Vec::new(),
            held: BTreeMap::new(),
            data_pending: IndexSet::default(),
            retry: RetryCache::default(),
            retry_expiry: VecDeque::new(),
            client: Client::new(me),
            sm_seq: 0,
            leaked_permits: 0,
            leaked_term: 0,
            reads: BTreeMap::new(),
            next_read: 0,
            read_rounds: BTreeMap::new(),
            acked_commit: 0,
            read_applies: BTreeSet::new(),
            sm,
            elections: 0,
            applied_client: 0,
            ghost: Ghost::default(),
        }
    }
    pub fn last(&self) -> Index {
        self.log.len() as Index
    }
    pub fn term_at(&self, i: Index) -> Term {
        if i == 0 || i > self.last() {
            0
        } else {
            self.log[i as usize - 1].term
        }
    }
    pub fn chain_at(&self, i: Index) -> u64 {
        if i == 0 || i > self.last() {
            0
        } else {
            self.log[i as usize - 1].chain
        }
    }
    pub fn last_term(&self) -> Term {
        self.term_at(self.last())
    }
    pub fn push(&mut self, term: Term, payload: Payload<S::Cmd>) -> Index {
        let i = self.last() + 1;
        let chain = chain(self.chain_at(i - 1), i, term);
        self.log.push(Entry {
            term,
            payload,
            chain,
        });
        match self.runs.last_mut() {
            Some(r) if r.0 == term => r.2 = i,
            _ => self.runs.push((term, i, i)),
        }
        i
    }
    /// Drop entries from `from` on (a follower repairing its log).
    pub fn truncate(&mut self, from: Index) {
        if self.role == Role::Leader {
            self.ghost
                .broken
                .get_or_insert_with(|| format!("leader truncated its own log at index {from}"));
        }
        self.cut(from - 1);
        self.epoch += 1;
        self.flush = self.flush.min(from - 1);
        self.log_flushed = self.log_flushed.min(from - 1);
        self.data_pending.retain(|&i| i < from);
        let before = self.flush_replies.len();
        self.flush_replies.retain(|r| r.match_index < from);
        // Their appends failed: complete (`outstandingOp` drops).
        let dropped = (before - self.flush_replies.len()) as u32;
        self.appends_in_progress = self.appends_in_progress.saturating_sub(dropped);
    }
    /// Keep the first `len` entries.
    pub fn cut(&mut self, len: Index) {
        self.log.truncate(len as usize);
        self.runs.retain(|r| r.1 <= len);
        if let Some(r) = self.runs.last_mut() {
            r.2 = r.2.min(len);
        }
    }
    /// Permits leaked in the current term.
    pub fn leaked(&self) -> u64 {
        if self.leaked_term == self.term {
            self.leaked_permits
        } else {
            0
        }
    }
    pub fn is_leader(&self) -> bool {
        self.role == Role::Leader
    }
    /// `ServerState.setLeader`: on a change, a leader no longer known starts the no-leader
    /// time (`lastNoLeaderTime`), a known one clears it.
    pub fn set_leader(&mut self, now: Micros, leader: Option<NodeId>) {
        if self.leader != leader {
            self.leader = leader;
            self.no_leader_since = if leader.is_none() { Some(now) } else { None };
        }
    }
}

// -- linearizable reads waiting on a server (`reads.rs`)

/// Who waits for a read: a client's request, or a follower's READ_INDEX (on the leader).
#[derive(Clone, Debug)]
pub enum Asker<C> {
    Client { client: NodeId, seq: u64, cmd: C },
    Peer { peer: NodeId, id: u64 },
}

/// What a read waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Leader: its startup entry's apply (`startupLogEntry.getAppliedIndexFuture()`).
    Startup,
    /// Leader: the heartbeat round of this readIndex.
    Round(Index),
    /// Follower: the leader's READ_INDEX_REPLY.
    Leader(NodeId),
    /// The apply of this readIndex (`ReadIndexQueue`).
    Apply(Index),
}

#[derive(Clone, Debug)]
pub struct ReadWait<C> {
    pub asker: Asker<C>,
    pub stage: Stage,
    pub since: Micros,
}

/// One heartbeat round (`AppendEntriesListener`): replies to calls from `min_call` on count.
#[derive(Clone, Debug, Default)]
pub struct Round {
    pub min_call: u64,
    pub acks: BTreeSet<NodeId>,
}
