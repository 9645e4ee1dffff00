//! Node commands (the `command` action): every one is parsed and validated before anything
//! changes.

use super::offsets::{MutId, Offsets};
use super::{MtNode, MutationTracking, MSG_KINDS, READ_STAGE};
use crate::engine::trace::LogLevel;
use crate::engine::Protocol;
use crate::engine::{Ctx, NodeId};
use crate::model::{Arg, CommandSpec};

/// An offset of a coordinator log, as a hunt draws it for `push` and for where a
/// `reconciled-snapshot` range starts. `CoordinatorLogPrimary` numbers a log's mutations 0, 1,
/// 2... as its node coordinates them: offsets below what the logs of a hunt's sandbox reach
/// (about one write a second per node), small ones more often. An offset the log does not have
/// yet is refused at its time (the candidate "could not apply").
const OFFSET: Arg = Arg::Int { min: 0, max: 63 };

pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        command: "write",
        label: "write",
        help: "write [ROW]: a tracked write coordinated by this node (next offset of its log)",
        args: &[],
        client_write: true,
        follower_away: false,
    },
    CommandSpec {
        command: "read",
        label: "read",
        help: "read [DATA_NODE [SUMMARY_NODE...]]: a tracked read coordinated here (default: \
               this node is the data node, the next replica the summary node)",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "hold MUTATION_REQ",
        label: "hold kind",
        help: "hold KIND: messages of this kind arriving here wait until `release`",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "release MUTATION_REQ",
        label: "release kind",
        help: "release KIND [FROM]: deliver the held messages of this kind (from FROM only); \
               later ones are still held",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "unhold MUTATION_REQ",
        label: "unhold kind",
        help: "unhold KIND: stop holding this kind and deliver what was held",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "drop-next MUTATION_REQ",
        label: "drop next",
        help: "drop-next KIND [FROM]: the next message of this kind arriving here (from FROM \
               only) is lost",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "duplicate-next PUSH_MUTATION_REQ",
        label: "duplicate next",
        help: "duplicate-next KIND [TO]: the next message of this kind this node sends (to TO \
               only) goes out twice",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "push node1 0 node2",
        label: "push",
        help: "push LOG_NODE OFFSET TO: this node's ActiveLogReconciler sends that mutation from \
               its journal to TO as a PUSH_MUTATION_REQ now (a write retry as a fault)",
        args: &[Arg::Node, OFFSET, Arg::Node],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "park pull",
        label: "park before step",
        help: "park STEP [N]: before the (N+1)th next STEP (apply, finish, local-read, \
               summary-read, collect, pull, count) its stage stops taking tasks until `unpark`",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "unpark",
        label: "unpark",
        help: "unpark: run the parked step and everything queued behind it",
        args: &[],
        client_write: false,
        follower_away: false,
    },
    CommandSpec {
        command: "reconciled-snapshot",
        label: "reconciled snapshot",
        help: "reconciled-snapshot LOG_NODE FROM [TO]: this node records offsets FROM..=TO of \
               the log (TO = FROM: one offset; TO = end: up to the last offset this node knows \
               the log has) as fully reconciled, as a streamed mutation log's ReconciledLogSnapshot \
               does (recordFullyReconciledOffsets), without having witnessed them itself; \
               offsets past what this node knows the log has are left out",
        // A sender's snapshot is its reconciled offsets of the log, which run to what it has
        // reconciled: the hunt draws where the range starts and lets it run to the end.
        args: &[Arg::Node, OFFSET, Arg::Word(&["end"])],
        client_write: false,
        follower_away: false,
    },
];

const STEPS: &[&str] = &[
    "apply",
    "finish",
    "local-read",
    "summary-read",
    "collect",
    "pull",
    "count",
];

enum Cmd {
    Write(Option<String>),
    Read(NodeId, Vec<NodeId>),
    Hold(&'static str),
    Release(&'static str, Option<NodeId>),
    Unhold(&'static str),
    DropNext(&'static str, Option<NodeId>),
    DupNext(&'static str, Option<NodeId>),
    Push(MutId, NodeId),
    Park(&'static str, u32),
    Unpark,
    /// A log's offsets `from..=to` to record as reconciled, and the `TO` the command named
    /// (above `to` when the range was cut at what the node knows of).
    Snapshot {
        log: NodeId,
        from: u32,
        to: u32,
        named_to: u32,
    },
}

fn kind(word: Option<&str>, cmd: &str) -> Result<&'static str, String> {
    let w = word.ok_or_else(|| {
        format!(
            "`{cmd}` needs a message kind, one of: {}",
            MSG_KINDS.join(", ")
        )
    })?;
    MSG_KINDS
        .iter()
        .find(|k| k.eq_ignore_ascii_case(w))
        .copied()
        .ok_or_else(|| {
            format!(
                "`{cmd}`: unknown message kind \"{w}\"; use one of: {}",
                MSG_KINDS.join(", ")
            )
        })
}

impl MutationTracking {
    fn parse(&self, node: &MtNode, ctx: &Ctx<Self>, cmd: &str) -> Result<Cmd, String> {
        let mut words = cmd.split_whitespace();
        let verb = words.next().unwrap_or("");
        let rest: Vec<&str> = words.collect();
        let node_id = |w: &str| -> Result<NodeId, String> {
            ctx.topo.resolve(w).map_err(|e| format!("`{verb}`: {e}"))
        };
        // the shard's replicas, named, for the messages that refuse another node
        let replicas = || -> String {
            let names: Vec<String> = (0..node.participants).map(|i| self.nm(ctx, i)).collect();
            format!("rf = {}: {}", node.participants, names.join(", "))
        };
        let extra = |n: usize| -> Result<(), String> {
            if rest.len() > n {
                Err(format!("`{verb}`: unexpected \"{}\"", rest[n..].join(" ")))
            } else {
                Ok(())
            }
        };
        Ok(match verb {
            "write" => {
                extra(1)?;
                if !node.is_participant(ctx.me) {
                    return Err(format!(
                        "`write`: {} is not a replica of the shard ({}); write from one of them",
                        self.nm(ctx, ctx.me),
                        replicas()
                    ));
                }
                Cmd::Write(rest.first().map(|s| s.to_string()))
            }
            "read" => {
                let replica = |id: NodeId| -> Result<NodeId, String> {
                    if id < node.participants {
                        Ok(id)
                    } else {
                        Err(format!(
                            "`read`: {} is not a replica of the shard ({}); pick the data and summary nodes among them",
                            self.nm(ctx, id),
                            replicas()
                        ))
                    }
                };
                let data = match rest.first() {
                    Some(w) => replica(node_id(w)?)?,
                    None => replica(ctx.me)?,
                };
                let mut summary = Vec::new();
                for w in rest.iter().skip(1) {
                    let id = replica(node_id(w)?)?;
                    if id == data || summary.contains(&id) {
                        return Err(format!(
                            "`read`: {} is listed twice; name each node once",
                            self.nm(ctx, id)
                        ));
                    }
                    summary.push(id);
                }
                if rest.len() <= 1 {
                    summary.push((data + 1) % node.participants);
                }
                Cmd::Read(data, summary)
            }
            "hold" => {
                extra(1)?;
                Cmd::Hold(kind(rest.first().copied(), verb)?)
            }
            "release" => {
                extra(2)?;
                let k = kind(rest.first().copied(), verb)?;
                let from = rest.get(1).map(|w| node_id(w)).transpose()?;
                Cmd::Release(k, from)
            }
            "unhold" => {
                extra(1)?;
                Cmd::Unhold(kind(rest.first().copied(), verb)?)
            }
            "drop-next" => {
                extra(2)?;
                let k = kind(rest.first().copied(), verb)?;
                Cmd::DropNext(k, rest.get(1).map(|w| node_id(w)).transpose()?)
            }
            "duplicate-next" => {
                extra(2)?;
                let k = kind(rest.first().copied(), verb)?;
                Cmd::DupNext(k, rest.get(1).map(|w| node_id(w)).transpose()?)
            }
            "push" => {
                extra(3)?;
                let (Some(l), Some(o), Some(t)) = (rest.first(), rest.get(1), rest.get(2)) else {
                    return Err("`push` needs LOG_NODE OFFSET TO, e.g. `push node1 0 node2`".into());
                };
                let log = node_id(l)?;
                if !node.is_participant(log) {
                    return Err(format!(
                        "`push`: LOG_NODE {} is not a replica of the shard, so it has no coordinator log ({}); name one of them",
                        self.nm(ctx, log),
                        replicas()
                    ));
                }
                let offset: u32 = o.parse().map_err(|_| {
                    format!("`push`: OFFSET \"{o}\" is not a whole number in 0..={}", u32::MAX)
                })?;
                let to = node_id(t)?;
                if !node.is_participant(to) || to == ctx.me {
                    return Err(format!(
                        "`push`: TO {} must be another replica of the shard ({})",
                        self.nm(ctx, to),
                        replicas()
                    ));
                }
                let id = MutId::new(log, offset);
                if !node.journal.contains_key(&id) {
                    return Err(format!(
                        "`push`: {} is not in {}'s journal (it has not applied it); push from a replica that has",
                        self.fmt_id(ctx, id),
                        self.nm(ctx, ctx.me)
                    ));
                }
                Cmd::Push(id, to)
            }
            "park" => {
                extra(2)?;
                let w = rest.first().copied().unwrap_or("");
                let step = STEPS.iter().find(|s| **s == w).copied().ok_or_else(|| {
                    format!("`park`: unknown step \"{w}\"; use one of: {}", STEPS.join(", "))
                })?;
                let skip = match rest.get(1) {
                    None => 0,
                    Some(n) => n.parse::<u32>().map_err(|_| {
                        format!("`park {step} {n}`: N must be a whole number in 0..={} (how many {step} steps to let through first)", u32::MAX)
                    })?,
                };
                if node.park.stage.is_some() || node.park.at.is_some() {
                    return Err("`park`: this node is already parked (or waiting to park); `unpark` first".into());
                }
                Cmd::Park(step, skip)
            }
            "unpark" => {
                extra(0)?;
                if node.park.stage.is_none() && node.park.at.is_none() {
                    return Err("`unpark`: nothing is parked on this node".into());
                }
                Cmd::Unpark
            }
            "reconciled-snapshot" => {
                extra(3)?;
                let (Some(l), Some(f)) = (rest.first(), rest.get(1)) else {
                    return Err("`reconciled-snapshot` needs LOG_NODE FROM [TO], e.g. `reconciled-snapshot node3 0 4` (offsets 0..=4 of node3's log) or `reconciled-snapshot node3 0` (one offset)".into());
                };
                // a node records reconciled offsets of the shard it replicates, for a log of that
                // shard (one per replica), offsets the log has: anything else has no log to go
                // into (a non-replica indexed its own witnessed offsets out of bounds)
                if !node.is_participant(ctx.me) {
                    return Err(format!(
                        "`reconciled-snapshot` on {}: this node is not a replica of the shard ({}); run it on one of them",
                        self.nm(ctx, ctx.me),
                        replicas()
                    ));
                }
                let log = node_id(l)?;
                if !node.is_participant(log) {
                    return Err(format!(
                        "`reconciled-snapshot`: LOG_NODE {} is not a replica of the shard, so it has no coordinator log here ({}); name one of them",
                        self.nm(ctx, log),
                        replicas()
                    ));
                }
                let number = |name: &str, w: &str| -> Result<u32, String> {
                    w.parse().map_err(|_| {
                        format!(
                            "`reconciled-snapshot`: {name} \"{w}\" is not a whole number in 0..={}{}",
                            u32::MAX,
                            if name == "TO" { " (or `end`)" } else { "" }
                        )
                    })
                };
                let from = number("FROM", f)?;
                let known = node.known_offsets(log);
                let named_to = match rest.get(2) {
                    Some(&"end") => known.saturating_sub(1).max(from),
                    Some(t) => number("TO", t)?,
                    None => from,
                };
                if named_to < from {
                    return Err(format!(
                        "`reconciled-snapshot`: the range {from}..={named_to} is empty (TO {named_to} is below FROM {from}); name the lower offset first, e.g. `reconciled-snapshot {l} {named_to} {from}`"
                    ));
                }
                if from >= known {
                    return Err(format!(
                        "`reconciled-snapshot`: {}'s log has {} as far as {} knows; FROM {from} was never written, name one below {known}",
                        self.nm(ctx, log),
                        if known == 0 {
                            "no offset yet".to_string()
                        } else {
                            format!("offsets 0..={}", known - 1)
                        },
                        self.nm(ctx, ctx.me)
                    ));
                }
                Cmd::Snapshot {
                    log,
                    from,
                    to: named_to.min(known - 1),
                    named_to,
                }
            }
            "" => return Err("empty command; try `write`, `read`, `hold KIND`, `park pull`".into()),
            other => {
                return Err(format!(
                    "unknown command \"{other}\"; use one of: write, read, hold, release, unhold, drop-next, duplicate-next, push, park, unpark, reconciled-snapshot"
                ))
            }
        })
    }

    pub(super) fn command(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        cmd: &str,
    ) -> Result<(), String> {
        match self.parse(node, ctx, cmd)? {
            Cmd::Write(row) => self.write(node, ctx, row.as_deref()),
            Cmd::Read(data, summary) => {
                self.issue_read(node, ctx, data, summary);
            }
            Cmd::Hold(k) => {
                node.holding.insert(k);
            }
            Cmd::Release(k, from) => self.release(node, ctx, k, from),
            Cmd::Unhold(k) => {
                node.holding.remove(k);
                self.release(node, ctx, k, None);
            }
            Cmd::DropNext(k, from) => *node.drop_next.entry((k, from)).or_default() += 1,
            Cmd::DupNext(k, to) => *node.dup_next.entry((k, to)).or_default() += 1,
            Cmd::Push(id, to) => {
                ctx.log(
                    LogLevel::Info,
                    format_args!(
                        "push: ActiveLogReconciler sends {} to {}",
                        self.fmt_id(ctx, id),
                        self.nm(ctx, to)
                    ),
                );
                self.push(node, ctx, id, to);
            }
            Cmd::Park(step, skip) => node.park.at = Some((step, skip)),
            Cmd::Unpark => {
                let stage = node.park.stage.take();
                node.park.at = None;
                let tasks = std::mem::take(&mut node.park.parked);
                ctx.log(
                    LogLevel::Info,
                    format_args!("unpark: {} task(s) resume", tasks.len()),
                );
                for t in tasks {
                    ctx.submit(stage.unwrap_or(READ_STAGE), t, None);
                }
            }
            Cmd::Snapshot {
                log,
                from,
                to,
                named_to,
            } => {
                let mut range = Offsets::new();
                range.add_range(from, to);
                let cut = if named_to > to {
                    format!(
                        " ({}..={named_to} left out: {} knows of no offset of that log past {to})",
                        to + 1,
                        self.nm(ctx, ctx.me)
                    )
                } else {
                    String::new()
                };
                // one offset reads as before the ranges ("node3:0 marked reconciled")
                let what = if from == to {
                    self.fmt_id(ctx, MutId::new(log, from))
                } else {
                    format!("{}'s log {range}", self.nm(ctx, log))
                };
                ctx.log(
                    LogLevel::Info,
                    format_args!("recordFullyReconciledOffsets: {what} marked reconciled{cut}"),
                );
                node.log_mut(log).snapshot_reconciled.union_with(&range);
            }
        }
        Ok(())
    }

    fn release(
        &self,
        node: &mut MtNode,
        ctx: &mut Ctx<Self>,
        k: &'static str,
        from: Option<NodeId>,
    ) {
        let held = std::mem::take(&mut node.held);
        let (go, stay): (Vec<_>, Vec<_>) = held
            .into_iter()
            .partition(|(f, m)| self.msg_label(m) == k && from.is_none_or(|x| x == *f));
        node.held = stay;
        ctx.log(
            LogLevel::Info,
            format_args!("release {k}: {} message(s) delivered", go.len()),
        );
        for (f, m) in go {
            self.dispatch(node, ctx, f, m);
        }
    }
}
