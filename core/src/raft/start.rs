//! Start states (`[[raft.start]]`): a server's persisted state preloaded before the run, as if
//! its storage held it when the process started: the log (each entry's term and payload),
//! currentTerm and votedFor (Ratis' `raft-meta` file, `RaftStorageMetadata`) and the commitIndex
//! that Ratis records in the log as a metadata entry (`RaftLogBase.appendMetadata`, restored by
//! `RaftLog.open`). Everything here survives a restart; see docs/model/raft.md, "Start states".
//!
//! Validated when the run is built: every error names the node (and the log index) and the fix.

use super::node::{Payload, RNode};
use super::sm::KvCmd;
use super::sm::StateMachine;
use super::{Index, Term};
use crate::engine::{NodeId, Topology};
use crate::scenario_file::start::{self, text, uint, StartTable};

/// At most this many preloaded entries per node (a textbook figure has a dozen).
pub const MAX_START_ENTRIES: usize = 10_000;

/// What one preloaded log entry carries.
#[derive(Clone, Debug, PartialEq)]
pub enum StartPayload {
    /// The entry a new leader appends (Ratis' startup configuration entry; the paper's no-op).
    NoOp,
    /// A client write of the key-value state machine.
    Put(String, String),
}

impl StartPayload {
    fn describe(&self) -> String {
        match self {
            StartPayload::NoOp => "no-op".into(),
            StartPayload::Put(k, v) => format!("put {k}={v}"),
        }
    }
}

/// One node's preloaded persisted state.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeStart {
    pub term: Term,
    pub voted_for: Option<NodeId>,
    /// The commitIndex of the log's last metadata entry (0: none).
    pub commit: Index,
    /// Entry `i` at `log[i - 1]`.
    pub log: Vec<(Term, StartPayload)>,
}

/// A preloaded state as the model holds it (its entries as the state machine's payloads).
#[derive(Clone, Debug, PartialEq)]
pub struct Preload<C> {
    pub term: Term,
    pub voted_for: Option<NodeId>,
    pub commit: Index,
    pub log: Vec<(Term, Payload<C>)>,
}

impl NodeStart {
    /// The state for the key-value model. A preloaded write is attributed to client 0 with its
    /// index as the sequence number: the retry cache's epoch-0 space, which no live client uses
    /// (`on_start` begins every client at epoch 1).
    pub fn kv(&self) -> Preload<KvCmd> {
        let log = self
            .log
            .iter()
            .enumerate()
            .map(|(k, (t, p))| {
                let payload = match p {
                    StartPayload::NoOp => Payload::Startup,
                    StartPayload::Put(key, v) => Payload::Client {
                        client: 0,
                        seq: k as u64 + 1,
                        cmd: KvCmd::Put(key.as_str().into(), v.as_str().into()),
                    },
                };
                (*t, payload)
            })
            .collect();
        Preload {
            term: self.term,
            voted_for: self.voted_for,
            commit: self.commit,
            log,
        }
    }
}

const KEYS: &[&str] = &["node", "term", "voted_for", "commit_index", "log"];
const ENTRY_KEYS: &[&str] = &["term", "kind", "key", "value"];

/// One log item: a bare term (a write `put i<index>=t<term>`) or a table.
fn entry(v: &toml::Value, at: &str, index: usize) -> Result<(Term, StartPayload), String> {
    let default = |t: Term| StartPayload::Put(format!("i{index}"), format!("t{t}"));
    let (term, payload) = match v {
        toml::Value::Integer(_) => {
            let t = uint(v, &format!("{at}: the term"))?;
            (t, default(t))
        }
        toml::Value::Table(t) => {
            start::known_keys(t, at, "an entry", ENTRY_KEYS)?;
            let term = match t.get("term") {
                Some(v) => uint(v, &format!("{at}.term"))?,
                None => return Err(format!("{at}: an entry needs its `term`")),
            };
            let kind = match t.get("kind") {
                Some(v) => text(v, &format!("{at}.kind"))?,
                None => "put",
            };
            let payload = match kind {
                "no-op" => {
                    if let Some(k) = ["key", "value"].iter().find(|k| t.contains_key(**k)) {
                        return Err(format!(
                            "{at}: a `no-op` entry carries no `{k}`; drop it or use kind = \"put\""
                        ));
                    }
                    StartPayload::NoOp
                }
                "put" => match (t.get("key"), t.get("value")) {
                    (None, None) => default(term),
                    (Some(k), Some(v)) => StartPayload::Put(
                        text(k, &format!("{at}.key"))?.to_string(),
                        text(v, &format!("{at}.value"))?.to_string(),
                    ),
                    _ => {
                        return Err(format!(
                            "{at}: a `put` entry needs both `key` and `value` (or neither: \
                             put i{index}=t{term})"
                        ))
                    }
                },
                other => {
                    return Err(format!(
                        "{at}.kind: \"{}\" is not an entry kind; use \"put\" or \"no-op\"",
                        crate::text::clip(other, 40)
                    ))
                }
            };
            (term, payload)
        }
        other => {
            return Err(format!(
            "{at}: an entry is a term (a whole number) or a table {{ term, kind, key, value }}, \
                 not {}",
            other.type_str()
        ))
        }
    };
    if term == 0 {
        return Err(format!(
            "{at}: term 0 is before any election; entries have terms >= 1"
        ));
    }
    Ok((term, payload))
}

/// Parse and check `[[<section>.start]]` (`section`: "raft"). `group` nodes form the Raft group.
/// Returns one slot per node of the cluster.
pub fn parse(
    section: &str,
    value: &toml::Value,
    topo: &Topology,
    group: u32,
) -> Result<Vec<Option<NodeStart>>, String> {
    let mut out: Vec<Option<NodeStart>> = vec![None; topo.len() as usize];
    let fields = "node, term, voted_for, commit_index, log";
    for st in start::tables(value, section, "server", fields, KEYS, topo)? {
        let StartTable {
            id,
            name,
            table: t,
            here,
        } = st;
        if id >= group {
            return Err(format!(
                "{here}: {name} is outside the Raft group (params.group_size = {group}); only \
                 its servers have a Raft log"
            ));
        }
        let mut log = Vec::new();
        if let Some(v) = t.get("log") {
            let toml::Value::Array(a) = v else {
                return Err(format!(
                    "{here}.log must be an array of entries, e.g. log = [1, 1, 4] (terms) or \
                     [{{ term = 1, kind = \"no-op\" }}]"
                ));
            };
            if a.len() > MAX_START_ENTRIES {
                return Err(format!(
                    "{here}.log: {} entries; the limit is {MAX_START_ENTRIES}",
                    a.len()
                ));
            }
            for (k, e) in a.iter().enumerate() {
                let (term, p) = entry(e, &format!("{here}: log index {}", k + 1), k + 1)?;
                if let Some(&(prev, _)) = log.last() {
                    if term < prev {
                        return Err(format!(
                            "{here}: log index {} has term {term}, below index {k}'s term {prev}; \
                             a log's terms never decrease (a leader appends only in its own \
                             term, which only grows)",
                            k + 1
                        ));
                    }
                }
                log.push((term, p));
            }
        }
        let last_term = log.last().map_or(0, |e| e.0);
        let term = match t.get("term") {
            Some(v) => uint(v, &format!("{here}.term"))?,
            None => last_term,
        };
        if term < last_term {
            return Err(format!(
                "{here}.term: currentTerm {term} is below the term of its last log entry (index \
                 {}, term {last_term}); a server's term is at least every entry's it holds: use \
                 term >= {last_term}",
                log.len()
            ));
        }
        let voted_for = match t.get("voted_for") {
            None => None,
            Some(v) => {
                let who = text(v, &format!("{here}.voted_for"))?;
                if who.is_empty() {
                    None
                } else {
                    let vid = topo.resolve(who).map_err(|e| {
                        format!("{here}.voted_for: {e} (votedFor names a server of the group, or \"\" for none)")
                    })?;
                    if vid >= group {
                        return Err(format!(
                            "{here}.voted_for: {who} is outside the Raft group (params.group_size = \
                             {group}); it cannot have been a candidate"
                        ));
                    }
                    if term == 0 {
                        return Err(format!(
                            "{here}.voted_for: a vote is cast in a term; set `term` (currentTerm) \
                             to the term {name} voted in"
                        ));
                    }
                    Some(vid)
                }
            }
        };
        let commit = match t.get("commit_index") {
            Some(v) => uint(v, &format!("{here}.commit_index"))?,
            None => 0,
        };
        if commit > log.len() as u64 {
            return Err(format!(
                "{here}.commit_index: {commit} is past the end of the log ({} entries); a server \
                 commits only entries it holds: use at most {}",
                log.len(),
                log.len()
            ));
        }
        out[id as usize] = Some(NodeStart {
            term,
            voted_for,
            commit,
            log,
        });
    }
    check_matching(section, &out, topo)?;
    Ok(out)
}

/// Log Matching across the preloaded logs: two entries with the same index and term are the same
/// entry and every entry before them is the same too. And two commitIndexes never cover
/// different entries (State Machine Safety).
fn check_matching(
    section: &str,
    starts: &[Option<NodeStart>],
    topo: &Topology,
) -> Result<(), String> {
    let nodes: Vec<(usize, &NodeStart)> = starts
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().map(|s| (i, s)))
        .collect();
    for (x, &(a, sa)) in nodes.iter().enumerate() {
        for &(b, sb) in &nodes[x + 1..] {
            let (na, nb) = (topo.name(a as NodeId), topo.name(b as NodeId));
            let common = sa.log.len().min(sb.log.len());
            // The highest index where both hold an entry of the same term.
            let Some(top) = (0..common).rev().find(|&k| sa.log[k].0 == sb.log[k].0) else {
                continue;
            };
            for k in 0..=top {
                let (ea, eb) = (&sa.log[k], &sb.log[k]);
                if ea != eb {
                    let i = k + 1;
                    let same = if k == top {
                        String::new()
                    } else {
                        format!(
                            " both hold an entry of term {} at index {}, so",
                            sa.log[top].0,
                            top + 1
                        )
                    };
                    return Err(format!(
                        "[[{section}.start]]: the logs of {na} and {nb} break Log Matching:{same} \
                         index {i} must hold the same entry on both, but {na} has (term {}, {}) \
                         and {nb} has (term {}, {}); make their logs agree up to index {}",
                        ea.0,
                        ea.1.describe(),
                        eb.0,
                        eb.1.describe(),
                        top + 1
                    ));
                }
            }
            let both = sa.commit.min(sb.commit) as usize;
            if let Some(k) = (0..both).find(|&k| sa.log[k] != sb.log[k]) {
                return Err(format!(
                    "[[{section}.start]]: {na} and {nb} both committed index {} (commit_index {} \
                     and {}) but hold different entries there (term {} and term {}): committed \
                     entries are the same on every server; lower a commit_index below {}",
                    k + 1,
                    sa.commit,
                    sb.commit,
                    sa.log[k].0,
                    sb.log[k].0,
                    k + 1
                ));
            }
        }
    }
    Ok(())
}

/// Load a preloaded state into a fresh node (before its first start): the log as read back from
/// disk, currentTerm, votedFor, the metadata entry's commitIndex.
pub fn preload<S: StateMachine>(node: &mut RNode<S>, p: &Preload<S::Cmd>) {
    for (t, payload) in &p.log {
        node.push(*t, payload.clone());
    }
    node.term = p.term;
    node.voted_for = p.voted_for;
    node.meta_commit = p.commit;
}
