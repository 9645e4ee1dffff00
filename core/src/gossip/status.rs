//! `Gossiper.doStatusCheck` on the GossipTasks thread, with the two places where that thread
//! waits in the middle of a round (read in the 5.0 and trunk `Gossiper.java`, 4.0+
//! `FailureDetector.java`):
//!
//! - **The second look.** With tasks pending on the GossipStage and the last gossip message it
//!   processed created over a second before the check's `now`, the thread sleeps 100 ms
//!   (`Uninterruptibles.sleepUninterruptibly`) and compares again with the *same* `now`: a
//!   message processed meanwhile lets the check through, otherwise it logs "skipping status
//!   check" (with the count read before the sleep) and returns.
//! - **Conviction on the GossipStage** (4.0+, CASSANDRA-15059). `FailureDetector.interpret` calls
//!   its listeners in line; `Gossiper.convict` hands its body to `runInGossipStageBlocking` (a
//!   `FutureTask` on `Stage.GOSSIP`, then `task.get()`), and the body checks that the peer is
//!   still alive only once it runs. So every peer whose phi is over the threshold — one already
//!   DOWN too — costs a GossipStage task the thread waits for, behind the stage's queue.
//!   3.x (`messaging = "3.x"`) convicts on the GossipTasks thread itself.
//!
//! The task is scheduled with `scheduleWithFixedDelay` (`Gossiper.start`): the next round starts
//! one interval after this one *ends*, so a round that waits delays every later one. While the
//! thread waits nothing else of the round happens: no heartbeat bump, no SYN, no other check.

use super::*;

/// `sleepUninterruptibly(100, MILLISECONDS)` before the second look.
pub const SECOND_LOOK_SLEEP: Micros = 100_000;

/// Where the GossipTasks thread waits in the middle of a round, if it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TasksWait {
    /// `doStatusCheck` sleeps before its second look; `now` is the check's start, `pending` the
    /// GossipStage count it read then (the one the skip logs).
    SecondLook { now: Micros, pending: u32 },
    /// `convict(ep)` waits for its GossipStage task; the check goes on with the next peer.
    Convict { ep: NodeId },
}

impl Gossip {
    /// The round's end: the next one an interval later (fixed delay), unless gossip was stopped
    /// meanwhile. `GossipTask.run` releases `taskLock` here, so a `Gossiper.stop` that waited
    /// for it goes on (`announce_shutdown`).
    pub(super) fn end_round(&self, node: &mut GNode, ctx: &mut Ctx<Self>) {
        if node.enabled {
            ctx.set_timer(GTimer::Round, ctx.now + self.p.gossip_interval.0);
        }
        if std::mem::take(&mut node.stop_waits) {
            self.shutdown_state(node, ctx);
        }
    }

    /// `doStatusCheck`: true when the round is over, false when the GossipTasks thread now waits
    /// (`node.tasks_wait`).
    pub(super) fn status_check(&self, node: &mut GNode, ctx: &mut Ctx<Self>) -> bool {
        let pending = ctx.execs[GOSSIP_STAGE as usize].pending;
        if pending > 0 && node.last_processed_msg_at + US_PER_S < ctx.now {
            // "if some new messages just arrived, give the executor some time to work on them"
            node.tasks_wait = Some(TasksWait::SecondLook {
                now: ctx.now,
                pending,
            });
            ctx.set_timer(GTimer::SecondLook, ctx.now + SECOND_LOOK_SLEEP);
            return false;
        }
        self.interpret_from(node, ctx, 0)
    }

    /// After the sleep: "still behind? something's broke" against the check's own `now`.
    pub(super) fn second_look(
        &self,
        node: &mut GNode,
        ctx: &mut Ctx<Self>,
        now: Micros,
        pending: u32,
    ) -> bool {
        if node.last_processed_msg_at + US_PER_S < now {
            node.counters.status_checks_skipped += 1;
            ctx.log(
                LogLevel::Warn,
                format_args!(
                    "Gossip stage has {pending} pending tasks; skipping status check (no nodes will be marked down)"
                ),
            );
            return true;
        }
        self.interpret_from(node, ctx, 0)
    }

    /// The convict task ran (its body, `convict`, already did): the check goes on after `ep`.
    pub(super) fn convicted(&self, node: &mut GNode, ctx: &mut Ctx<Self>, ep: NodeId) {
        if node.tasks_wait != Some(TasksWait::Convict { ep }) {
            return;
        }
        node.tasks_wait = None;
        if self.interpret_from(node, ctx, ep + 1) {
            self.end_round(node, ctx);
        }
    }

    /// `FailureDetector.interpret` for every peer from `from` on that has a window, in id order;
    /// true when the check is over, false when a conviction waits for the GossipStage.
    ///
    /// The local-pause guard acts at the first such peer (which updates the last-interpret time)
    /// and then holds for the rest of the segment: the peers interpreted together share their
    /// `now`. A segment after a wait starts at a later `now`, so a wait longer than
    /// `max_local_pause` trips the guard there ("Not marking nodes down due to local pause").
    /// After the guard, only peers whose phi may have crossed the threshold need the exact test
    /// (`Detector::maybe_convicting`); the others cannot convict.
    fn interpret_from(&self, node: &mut GNode, ctx: &mut Ctx<Self>, from: NodeId) -> bool {
        debug_assert_eq!(
            node.fd.present(),
            (0..node.map.len())
                .filter(|&ep| ep != node.id as usize && node.map[ep].is_some() && node.fd.has(ep))
                .count(),
            "a failure-detector window without an endpoint state, or for the node itself"
        );
        let any = if from == 0 {
            node.fd.present() > 0
        } else {
            (from as usize..node.map.len()).any(|ep| node.fd.has(ep))
        };
        if !any {
            return true;
        }
        let now = ctx.now;
        let diff = node.fd_last_interpret.map_or(0, |t| now - t);
        node.fd_last_interpret = Some(now);
        let pause = self.p.max_local_pause.0;
        if diff > pause {
            ctx.log(
                LogLevel::Warn,
                format_args!("Not marking nodes down due to local pause of {diff}us > {pause}us"),
            );
            node.fd_last_pause = Some(now);
            return true;
        }
        if node.fd_last_pause.is_some_and(|t| now - t < pause) {
            return true;
        }
        for ep in node.fd.maybe_convicting(now) {
            let ep = ep as NodeId;
            if ep < from || ep == node.id || node.map[ep as usize].is_none() {
                continue;
            }
            let Some(phi) = node.fd.phi(ep as usize, now) else {
                continue;
            };
            if !convicts(phi, self.p.phi_convict_threshold) {
                continue;
            }
            if self.p.messaging == MessagingVersion::V3 {
                // 3.11: `convict` runs on the GossipTasks thread.
                self.convict(node, ctx, ep);
            } else {
                ctx.submit(GOSSIP_STAGE, Task::Convict { ep }, None);
                node.tasks_wait = Some(TasksWait::Convict { ep });
                return false;
            }
        }
        true
    }
}
