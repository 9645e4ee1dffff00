//! Raft's moments on the timeline and its "what just happened" wording (`crate::moments`), read
//! off the log lines Raft already writes (`election.rs`, `appender.rs`, `replication.rs`): no new trace record.
//! Ozone's datanodes run the same Raft and add their own kinds after these (`ozone::view`).

use crate::engine::trace::{LogLevel, Rec, Trace};
use crate::engine::Topology;
use crate::moments::{last_of, log_of, name, num_after, Moment, MomentKind, MAX_MOMENTS};

/// Raft's kinds, in this order (Ozone's follow them).
pub const KINDS: &[MomentKind] = &[
    MomentKind {
        name: "leader elected",
        color: "@accent",
        about: "a candidate won its election: the new leader and its term",
    },
    MomentKind {
        name: "new term",
        color: "#b45309",
        about: "the first node to enter a higher term (a candidate starting an election)",
    },
    MomentKind {
        name: "commit",
        color: "@up",
        about: "a leader's commitIndex advanced (a majority has the entries)",
    },
];
pub const LEADER: u8 = 0;
pub const TERM: u8 = 1;
pub const COMMIT: u8 = 2;

/// The Raft moment of one record, if it is one: (kind, value, text).
pub fn moment(
    trace: &Trace,
    topo: &Topology,
    r: &Rec,
    found: &[Moment],
) -> Option<(u8, u64, String)> {
    let (level, text) = log_of(trace, r)?;
    if level != LogLevel::Info {
        return None;
    }
    let me = name(topo, r.node);
    if let Some(t) = text.strip_prefix("leader for term ") {
        let term: u64 = t.parse().ok()?;
        return Some((LEADER, term, format!("{me} elected leader of term {term}")));
    }
    if text.starts_with("candidate for term ") {
        let term = num_after(text, "candidate for term ")?;
        let seen = last_of(found, TERM).map_or(0, |m| m.value);
        return (term > seen).then(|| {
            (
                TERM,
                term,
                format!("term {term} begins: {me} stands as a candidate"),
            )
        });
    }
    if text.starts_with("commitIndex ") {
        let to = num_after(text, "-> ")?;
        return Some((COMMIT, to, format!("{me} commits up to index {to}")));
    }
    None
}

/// A state machine's own moments: (node name, record, log text) -> (kind, text).
pub type More = dyn Fn(&str, &Rec, &str) -> Option<(u8, String)>;

/// `Model::moments` for Raft: its kinds, then `more` for a state machine's (Ozone's), whose kind
/// numbers follow [`KINDS`].
pub fn scan(trace: &Trace, topo: &Topology, from: usize, found: &mut Vec<Moment>, more: &More) {
    for r in trace.recs.range(from..) {
        if found.len() >= MAX_MOMENTS {
            return;
        }
        let m = moment(trace, topo, &r, found).or_else(|| {
            let (_, text) = log_of(trace, &r)?;
            more(name(topo, r.node), &r, text).map(|(k, t)| (k, 0, t))
        });
        if let Some((kind, value, text)) = m {
            found.push(Moment {
                time: r.time,
                step: r.step,
                node: r.node,
                kind,
                value,
                text,
            });
        }
    }
}

/// `Model::say` for Raft: votes, elections, commits and leaders in words.
pub fn say(trace: &Trace, topo: &Topology, r: &Rec) -> Option<String> {
    let me = name(topo, r.node);
    let (_, text) = log_of(trace, r)?;
    for (prefix, what) in [
        ("vote request from ", "its vote"),
        ("pre-vote from ", "a pre-vote"),
    ] {
        if let Some(rest) = text.strip_prefix(prefix) {
            let who = rest.split_whitespace().next()?;
            let term = num_after(rest, "for term ")?;
            let granted = rest.ends_with("granted");
            return Some(if granted {
                format!("{me} granted {what} to {who} in term {term}")
            } else {
                format!("{me} refused {what} to {who} in term {term}")
            });
        }
    }
    if let Some(t) = text.strip_prefix("leader for term ") {
        return Some(format!("{me} became the leader of term {t}"));
    }
    if text.starts_with("candidate for term ") {
        let term = num_after(text, "candidate for term ")?;
        return Some(format!(
            "{me} became a candidate for term {term} and voted for itself"
        ));
    }
    if let Some(t) = text.strip_prefix("pre-vote for term ") {
        return Some(format!("{me} asks for pre-votes for term {t}"));
    }
    if let Some(t) = text.strip_prefix("election timeout as ") {
        return Some(format!(
            "{me}'s election timer fired ({t}): it starts an election"
        ));
    }
    if text.starts_with("commitIndex ") {
        let to = num_after(text, "-> ")?;
        return Some(format!(
            "{me} advanced its commitIndex to {to}: a majority holds the entries"
        ));
    }
    if let Some(rest) = text.strip_prefix("leader is ") {
        return Some(format!("{me} accepts {rest} as its leader"));
    }
    if let Some((was, rest)) = text.split_once(" -> follower at term ") {
        let (term, why) = rest.split_once(": ").unwrap_or((rest, ""));
        return Some(format!(
            "{me} stepped down from {was} to follower in term {term}{}",
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            }
        ));
    }
    None
}
