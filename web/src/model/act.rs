//! A person's actions on the run (recorded now, a fork at a message, the consent asked before
//! discarding later actions) and what follows any move of the engine (the marks, the sequence
//! diagram's partners, the inspector's snapshot).

use super::*;

impl Model {
    /// Bookkeeping after the engine moved: index new records, keep samples current.
    pub(super) fn after_move(&mut self) {
        self.marks.update(&*self.run.engine);
        self.follow_partners_if_auto();
    }

    /// [`Model::follow_partners`] after a move, while [`Model::seq_auto`] and not busy; not
    /// while a drag of the scrubber moves (issue 44): the sequence diagram waits for its rest
    /// or release (`Model::scrub_rest`, which calls this once the drag stopped moving).
    pub(super) fn follow_partners_if_auto(&mut self) {
        if self.seq_auto && !self.busy() && !self.scrub_moving {
            self.follow_partners(false);
        }
    }

    /// While [`Model::seq_auto`]: show the selected node and the peers it last exchanged
    /// messages with, when the diagram's nodes exchanged nothing lately (or `force`).
    pub(super) fn follow_partners(&mut self, force: bool) {
        let Some(sel) = self.selected else { return };
        let t = self.run.engine.trace();
        let c = self.cursor();
        if !force
            && self.seq_nodes.contains(&sel)
            && seq::exchanges_among(t, c, &self.seq_nodes, 50_000)
        {
            return;
        }
        let partners = seq::recent_partners(t, c, sel, MAX_SEQ_NODES - 2, 400_000);
        if !partners.is_empty() {
            self.seq_nodes = std::iter::once(sel).chain(partners).collect();
        }
    }

    /// Remember the selected node's map so the inspector can highlight what the move changed.
    pub(super) fn snapshot(&mut self) {
        self.prev_node = self
            .selected
            .and_then(|id| (self.snapshot_of)(&self.run, id).map(|snap| (id, snap)));
    }

    pub(super) fn apply_action(&mut self, a: Action) -> Result<(), clusterscope_core::SimError> {
        let here = self.cursor();
        let now = self.now();
        let discards = here < self.frontier();
        self.run.engine.apply_user_action(a)?;
        if discards {
            self.samples.truncate_after(now);
            self.marks.truncate(here, self.run.engine.trace());
        }
        self.sample();
        self.session_rev += 1;
        Ok(())
    }

    /// Fork at the step that sent `msg` (its send or drop record): the action is applied before
    /// that step, so the message is sent under the new fate.
    pub(super) fn fork(&mut self, msg: u64, fate: clusterscope_core::engine::action::MsgFate) {
        use clusterscope_core::engine::trace::RecKind;
        let step = self
            .run
            .engine
            .trace()
            .recs
            .iter()
            .find_map(|r| match r.kind {
                RecKind::Send { msg: m, .. } | RecKind::Drop { msg: m, .. } if m == msg => {
                    Some(r.step)
                }
                _ => None,
            });
        let Some(step) = step else {
            self.error(format!(
                "Message #{msg} is not in the computed trace: compute up to it first. Nothing was changed."
            ));
            return;
        };
        self.stop();
        self.jump_to_step(step);
        self.user_action(Action::Message { msg, fate });
    }

    pub(super) fn user_action(&mut self, a: Action) {
        self.stop();
        if self.ask_before_discarding(&a) {
            return;
        }
        self.act(a, None);
    }

    /// Apply a person's action now; `undo` is the session to go back to when it discarded
    /// recorded actions (kept for [`Msg::Undo`] once the action is accepted).
    pub(super) fn act(&mut self, a: Action, undo: Option<history::UndoPoint>) {
        self.snapshot();
        let text = a.describe();
        let discards = self.cursor() < self.frontier();
        // Acting before the computed future: the old future stays as a branch (`branches.rs`).
        let old = discards.then(|| self.run.engine.user_actions().to_vec());
        match self.apply_action(a) {
            Ok(()) => {
                if let Some(old) = old {
                    self.branch_off(old, &text, self.now());
                }
                let lost = undo.as_ref().map_or(0, |u| u.discarded);
                self.undo = undo;
                self.info(format!(
                    "Recorded at {}: {text}{}",
                    fmt_time(self.now()),
                    if lost > 0 {
                        format!(
                            " ({lost} later recorded action{} discarded: Undo brings {} back)",
                            if lost == 1 { "" } else { "s" },
                            if lost == 1 { "it" } else { "them" }
                        )
                    } else if discards {
                        format!(
                            " (a new branch; the old future stays as branch {})",
                            self.branches.list[self.branches.current]
                                .parent
                                .map_or(1, |p| p + 1)
                        )
                    } else {
                        String::new()
                    }
                ))
            }
            Err(e) => self.error(format!("{} Nothing was changed.", sentence(&e.to_string()))),
        }
        self.after_move();
    }
}
