//! Elections (Ratis `FollowerState`, `LeaderElection`, `VoteContext`): randomized timeouts from
//! the node's seeded stream, the pre-vote phase (no term change; refused while the voter hears
//! from a leader), the real vote (term + 1, vote for self, persisted before sending), stepping
//! down on a higher term, becoming leader (progress per follower, the startup entry, the
//! leadership check).

use super::node::{Payload, Progress, RNode, Role};
use super::sm::StateMachine;
use super::{Msg, Raft, Term, Timer};
use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId};
use crate::time::Micros;

impl<S: StateMachine> Raft<S> {
    /// A new random timeout from now: a follower's next sleep, or a candidate's round.
    pub(crate) fn reset_election_timer(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        let d = self.random_timeout(ctx);
        Self::sleep(node, ctx, d);
    }

    /// The election timer fires `d` from now; a follower, waking then, compares its
    /// `lastRpcTime` with `d` (the timeout it slept).
    pub(crate) fn sleep(node: &mut RNode<S>, ctx: &mut Ctx<Self>, d: Micros) {
        node.sleep_for = d;
        let at = ctx.now + d;
        node.election_deadline = at;
        ctx.set_timer(Timer::Election, at);
    }

    /// Ratis `RoleInfo.startFollowerState`: a new FollowerState, its `lastRpcTime` its
    /// creation, sleeping a new random timeout. A follower keeps its FollowerState across
    /// AppendEntries and votes (they only move `lastRpcTime`); a node becomes a follower, or a
    /// vote request of a recognized candidate forces a new one (`changeToFollower(force)`).
    pub(crate) fn start_follower_state(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        node.last_rpc = ctx.now;
        node.no_election_before = 0;
        self.reset_election_timer(node, ctx);
    }

    pub(crate) fn on_election_timeout(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        if node.is_leader() {
            return;
        }
        if ctx.now < node.elections_held_until {
            // Held by command: the timer wakes again when the hold ends (and the follower
            // stands then only if it heard no leader for the timeout it slept).
            let at = node.elections_held_until;
            node.election_deadline = at;
            ctx.set_timer(super::Timer::Election, at);
            ctx.log(
                LogLevel::Debug,
                format_args!(
                    "election timeout held by command until {}",
                    crate::time::fmt_time(at)
                ),
            );
            return;
        }
        if node.role == Role::Follower {
            // FollowerState.runImpl: after each sleep the follower stands only if nothing is
            // being appended, it heard no leader (nor granted a vote) for the timeout it slept,
            // and it is not a leader that stepped down for lost heartbeats just now; otherwise
            // it sleeps a new random timeout.
            let quiet = ctx.now.saturating_sub(node.last_rpc);
            let why_not = if node.appends_in_progress > 0 {
                Some(format!(
                    "{} AppendEntries still being written",
                    node.appends_in_progress
                ))
            } else if quiet < node.sleep_for {
                Some(format!(
                    "heard from a leader or a candidate {} ago",
                    crate::time::fmt_duration(quiet)
                ))
            } else if ctx.now < node.no_election_before {
                Some(format!(
                    "stepped down for lost heartbeats: no election until {}",
                    crate::time::fmt_time(node.no_election_before)
                ))
            } else {
                None
            };
            if let Some(why) = why_not {
                ctx.log(
                    LogLevel::Debug,
                    format_args!("FollowerState wakes, stays follower: {why}"),
                );
                return self.reset_election_timer(node, ctx);
            }
        }
        ctx.log(
            LogLevel::Info,
            format_args!(
                "election timeout as {} at term {}",
                node.role.as_str(),
                node.term
            ),
        );
        self.start_election(node, ctx);
    }

    /// Start a round: the pre-vote phase when enabled, else the real election.
    pub(crate) fn start_election(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        // RaftServerImpl.changeToCandidate (a follower only; a candidate's next round is
        // LeaderElection's own loop): no leader known for longer than no_leader_timeout tells
        // the state machine (`notifyExtendedNoLeader`), before initElection forgets the leader.
        if node.role == Role::Follower {
            if let Some(since) = node.no_leader_since {
                let quiet = ctx.now.saturating_sub(since);
                if quiet > self.p.no_leader_timeout.0 {
                    self.with_sm(node, ctx, |s, n, c| s.extended_no_leader(n, c, quiet));
                }
            }
        }
        node.elections += 1;
        node.set_leader(ctx.now, None);
        if self.p.pre_vote {
            node.role = Role::Candidate { pre: true };
            node.role_since = ctx.now;
            node.votes.clear();
            node.votes.insert(ctx.me);
            node.rejects.clear();
            node.vote_errors.clear();
            ctx.log(
                LogLevel::Info,
                format_args!("pre-vote for term {}", node.term + 1),
            );
            self.reset_election_timer(node, ctx);
            self.ask_votes(node, ctx, true, node.term + 1);
        } else {
            self.real_election(node, ctx);
        }
    }

    fn real_election(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        node.term += 1;
        node.voted_for = Some(ctx.me);
        node.role = Role::Candidate { pre: false };
        node.role_since = ctx.now;
        node.votes.clear();
        node.votes.insert(ctx.me);
        node.rejects.clear();
        node.vote_errors.clear();
        ctx.log(
            LogLevel::Info,
            format_args!("candidate for term {}, votes for itself", node.term),
        );
        self.reset_election_timer(node, ctx);
        self.ask_votes(node, ctx, false, node.term);
    }

    fn ask_votes(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, pre: bool, term: Term) {
        if node.votes.len() >= self.majority() {
            return self.won(node, ctx, pre);
        }
        for p in 0..self.n {
            if p != ctx.me {
                ctx.send(
                    p,
                    Msg::Vote {
                        pre,
                        term,
                        last_index: node.last(),
                        last_term: node.last_term(),
                    },
                );
            }
        }
    }

    fn won(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, pre: bool) {
        if pre {
            self.real_election(node, ctx)
        } else {
            self.become_leader(node, ctx)
        }
    }

    /// A higher term (or a leader of this term) makes this node a follower.
    pub(crate) fn step_down(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        term: Term,
        why: &str,
    ) {
        let was = node.role;
        if term > node.term {
            // ServerState.updateCurrentTerm: a new term, no vote and no known leader in it
            // (`setLeader(null)`); a leader of this term makes itself known by writing.
            node.term = term;
            node.voted_for = None;
            node.set_leader(ctx.now, None);
        }
        if was != Role::Follower {
            ctx.log(
                LogLevel::Info,
                format_args!("{} -> follower at term {}: {why}", was.as_str(), node.term),
            );
            node.role = Role::Follower;
            node.role_since = ctx.now;
        }
        if was == Role::Leader {
            node.set_leader(ctx.now, None);
            node.progress.clear();
            for p in 0..self.n {
                ctx.cancel_timer(Timer::Appender(p));
            }
            ctx.cancel_timer(Timer::LeadershipCheck);
            self.fail_pending(node, ctx);
            self.reads_not_leader(node, ctx);
            self.with_sm(node, ctx, |s, n, c| s.not_leader(n, c));
            self.start_follower_state(node, ctx);
        } else if was != Role::Follower {
            self.start_follower_state(node, ctx);
        }
    }

    fn up_to_date(node: &RNode<S>, last_index: u64, last_term: Term) -> bool {
        (last_term, last_index) >= (node.last_term(), node.last())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_vote(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        pre: bool,
        term: Term,
        last_index: u64,
        last_term: Term,
    ) {
        // Ratis VoteContext.checkLeader, asked for a pre-vote whatever its term and for a vote of
        // the node's own term that its vote does not rule out (`checkTerm`): a leader refuses
        // while `checkLeadership` holds, and when it does not, that check has stepped it down
        // (at its own term) and the request is judged as a follower's; a follower refuses while
        // it follows another leader it heard from (or granted a vote) within min
        // (`FollowerState.isCurrentLeaderValid`). With `leader_heartbeat_check` off (a teaching
        // switch, not Ratis) a leader always refuses.
        // A vote of the node's own term that its vote does not rule out (checkLeadership's
        // step-down keeps the term and the vote, so this holds after it too).
        let open_vote = term == node.term && node.voted_for.is_none_or(|v| v == from);
        if (pre || open_vote) && node.is_leader() && self.p.leader_heartbeat_check {
            // Steps the leader down when it fails; a leader that holds refuses below.
            self.check_leadership(node, ctx);
        }
        let leader_valid = node.is_leader()
            || node.role == Role::Follower
                && node.leader.is_some_and(|l| l != from)
                && ctx.now < node.last_rpc + self.p.timeout_min.0;
        let granted = if pre {
            // Pre-vote (`checkTerm` returns CHECK_LEADER whatever the term): the leader check,
            // then the log.
            !leader_valid && Self::up_to_date(node, last_index, last_term)
        } else {
            // VoteContext.recognizeCandidate: a higher term skips the leader check; the same
            // term needs no other vote in it and no valid leader; a lower term is refused.
            let recognized = term > node.term || open_vote && !leader_valid;
            if recognized {
                // changeToFollower(candidateTerm, force = true): a new FollowerState even for
                // a follower, whether or not the vote is granted.
                let was_follower = node.role == Role::Follower;
                let why = if term > node.term {
                    "a candidate has a higher term"
                } else {
                    "a vote request of a recognized candidate"
                };
                self.step_down(node, ctx, term, why);
                if was_follower {
                    self.start_follower_state(node, ctx);
                }
            }
            let ok = recognized
                && node.voted_for.is_none_or(|v| v == from)
                && Self::up_to_date(node, last_index, last_term);
            if ok {
                // ServerState.grantVote: the vote, and no known leader (`setLeader(null)`).
                node.voted_for = Some(from);
                node.set_leader(ctx.now, None);
            }
            ok
        };
        // RaftServerImpl.requestVote: a granted vote, pre-vote included, updates a follower's
        // lastRpcTime (FollowerState.updateLastRpcTime(REQUEST_VOTE)), which puts off its own
        // election.
        if granted && node.role == Role::Follower {
            node.last_rpc = ctx.now;
        }
        ctx.log(
            LogLevel::Debug,
            format_args!(
                "{} from {} for term {term}: {}",
                if pre { "pre-vote" } else { "vote request" },
                ctx.topo.name(from),
                if granted { "granted" } else { "rejected" }
            ),
        );
        ctx.send(
            from,
            Msg::VoteReply {
                pre,
                term: node.term,
                granted,
            },
        );
    }

    pub(crate) fn on_vote_reply(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        pre: bool,
        term: Term,
        granted: bool,
    ) {
        // LeaderElection.waitForResults: only the election under way reads the answers (each
        // round has its own executor; a round that ended, won or lost, drops the rest). In it, an
        // answer of a higher term than the round's (the server's current term, pre-vote
        // included: Ratis' pre-vote carries the current term) ends the round
        // DISCOVERED_A_NEW_TERM, granted or not, and the server becomes a follower of that term
        // (`rejected` -> `changeToFollowerAndPersistMetadata`).
        if node.role != (Role::Candidate { pre }) {
            return;
        }
        if term > node.term {
            return self.step_down(node, ctx, term, "a vote reply has a higher term");
        }
        if !pre && term != node.term {
            return;
        }
        if !granted {
            // LeaderElection.waitForResults: once a majority refused (`majorityRejectVotes`:
            // the members that did not refuse, itself included, are at most half), the round
            // is REJECTED and askForVotes changes the server to a follower at once
            // (`changeToFollowerAndPersistMetadata`), with a new election timeout.
            node.rejects.insert(from);
            if self.n as usize - node.rejects.len() <= self.n as usize / 2 {
                let t = node.term;
                let why = format!(
                    "{} rejected by {} of {}",
                    if pre { "pre-vote" } else { "election" },
                    node.rejects.len(),
                    self.n
                );
                return self.step_down(node, ctx, t, &why);
            }
            return self.all_answered(node, ctx, pre);
        }
        node.votes.insert(from);
        if node.votes.len() == self.majority() {
            ctx.log(
                LogLevel::Info,
                format_args!(
                    "{} won with {} of {}",
                    if pre { "pre-vote" } else { "election" },
                    node.votes.len(),
                    self.n
                ),
            );
            return self.won(node, ctx, pre);
        }
        self.all_answered(node, ctx, pre);
    }

    /// A vote request that reached a stopped server came back refused (`Msg::VoteError`): in
    /// `LeaderElection.waitForResults` an exception, which counts as an answer but neither a
    /// grant nor a refusal.
    pub(crate) fn on_vote_error(
        &self,
        node: &mut RNode<S>,
        ctx: &mut Ctx<Self>,
        from: NodeId,
        pre: bool,
        term: Term,
    ) {
        let round_term = if pre { node.term + 1 } else { node.term };
        if node.role != (Role::Candidate { pre }) || term != round_term {
            return;
        }
        node.vote_errors.insert(from);
        self.all_answered(node, ctx, pre);
    }

    /// `waitForResults` once every peer answered (granted, refused or failed) with no majority
    /// granted and none rejected by a majority: "received all the responses", REJECTED; the
    /// server changes to a follower (`changeToFollowerAndPersistMetadata`), with a new election
    /// timeout.
    fn all_answered(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>, pre: bool) {
        let replies = (node.votes.len() - 1) + node.rejects.len();
        if replies + node.vote_errors.len() + 1 < self.n as usize
            || node.votes.len() >= self.majority()
        {
            return;
        }
        let t = node.term;
        let why = format!(
            "{} received {replies} response(s) and {} exception(s), {} of {} granted: REJECTED",
            if pre { "pre-vote" } else { "election" },
            node.vote_errors.len(),
            node.votes.len(),
            self.n
        );
        self.step_down(node, ctx, t, &why);
    }

    fn become_leader(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        // A new LeaderStateImpl: new ReadIndexHeartbeats (no rounds, ackedCommitIndex none).
        node.read_rounds.clear();
        node.acked_commit = 0;
        node.role = Role::Leader;
        node.role_since = ctx.now;
        node.set_leader(ctx.now, Some(ctx.me));
        node.ghost.led.push(node.term);
        ctx.cancel_timer(Timer::Election);
        ctx.log(
            LogLevel::Info,
            format_args!("leader for term {}", node.term),
        );
        let next = node.last() + 1;
        node.progress = (0..self.n)
            .map(|_| Progress {
                next,
                matched: 0,
                last_response: ctx.now,
                force_heartbeat: true,
                min_call: node.next_call,
                ..Progress::default()
            })
            .collect();
        // LeaderStateImpl.isReady: client requests get LeaderNotReadyException until the
        // startup entry is applied. Without one (not Ratis: the paper's leader, Figure 8) the
        // leader is ready at once.
        node.ready = !self.p.leader_startup_entry;
        node.startup_index = 0;
        if self.p.leader_startup_entry {
            let i = node.push(node.term, Payload::Startup);
            node.startup_index = i;
            self.submit_flush(node, ctx, i, None);
        }
        self.notify_appenders(node, ctx);
        node.leader_woke = ctx.now;
        if self.p.leader_heartbeat_check {
            ctx.set_timer(Timer::LeadershipCheck, ctx.now + self.p.timeout_max.0);
        }
    }

    /// Ratis' `LeaderStateImpl.EventProcessor`: it polls its event queue for up to max timeout
    /// and runs `checkLeadership` only when the poll returns nothing, so every event (an
    /// updateCommit: the leader's own flush, a follower's matchIndex advance) puts the check off
    /// by max. After max in office, a leader steps down when fewer than a majority (itself
    /// included) answered within max.
    pub(crate) fn on_leadership_check(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) {
        if !node.is_leader() || !self.p.leader_heartbeat_check {
            return;
        }
        let max = self.p.timeout_max.0;
        let due = node.leader_woke + max;
        if ctx.now < due {
            ctx.set_timer(Timer::LeadershipCheck, due);
            return;
        }
        node.leader_woke = ctx.now;
        if self.check_leadership(node, ctx) {
            ctx.set_timer(Timer::LeadershipCheck, ctx.now + max);
        }
    }

    /// `LeaderStateImpl.checkLeadership`: true while the leader has been in office less than max
    /// or a majority (itself included) answered within max; otherwise it steps down at its own
    /// term (LOST_MAJORITY_HEARTBEATS) and answers false. Run by the EventProcessor above and by
    /// `VoteContext.checkLeader` when a (pre-)vote request reaches a leader.
    fn check_leadership(&self, node: &mut RNode<S>, ctx: &mut Ctx<Self>) -> bool {
        let max = self.p.timeout_max.0;
        if ctx.now < node.role_since + max {
            return true;
        }
        let active = 1
            + (0..self.n)
                .filter(|&p| {
                    p != ctx.me && ctx.now <= node.progress[p as usize].last_response + max
                })
                .count();
        if active >= self.majority() {
            return true;
        }
        let t = node.term;
        self.step_down(node, ctx, t, "lost majority heartbeats (checkLeadership)");
        // Its FollowerState's reason is LOST_MAJORITY_HEARTBEATS.
        node.no_election_before = ctx.now + self.p.step_down_wait.0;
        false
    }
}
