//! Lecture aids (issue 40, its second half): the model's moments as the timeline's table of
//! contents (n / N step between them), "what just happened" (one line in the model's words
//! about the step before the cursor), the model's one-key actions (recorded as user actions, so
//! a permalink replays them), and the way back to the script's own run once a person's actions
//! changed it (the captions and expectations describe that run).

use super::history::UndoPoint;
use super::nav::NavKind;
use super::{Model, Seek};
use clusterscope_core::time::fmt_time;

impl Model {
    /// The step before the cursor in the model's words (`Driver::what_happened`).
    pub fn what_happened(&self) -> Option<String> {
        self.run.engine.what_happened()
    }

    /// The moment the cursor stands just after, if any (its text names it on the timeline).
    pub fn moment_here(&self) -> Option<&clusterscope_core::moments::Moment> {
        let c = self.cursor();
        self.marks.prev_moment(c + 1).filter(|m| m.step + 1 == c)
    }

    /// Whether the person's actions changed a scripted run: its captions and expectations
    /// describe the run without them.
    pub fn script_changed(&self) -> bool {
        !self.captions.is_empty() && !self.run.engine.user_actions().is_empty()
    }

    pub(super) fn next_moment(&mut self) {
        self.stop();
        if self.marks.kinds.is_empty() {
            self.info("This model marks no moments on the timeline.".into());
            return;
        }
        match self.marks.next_moment(self.cursor()) {
            Some(m) => {
                let s = m.step + 1;
                self.snapshot();
                self.jump_to_step(s);
            }
            // Beyond what is computed: compute on to the next one.
            None => self.start_seek(Seek::Until(NavKind::Moment)),
        }
    }

    pub(super) fn prev_moment(&mut self) {
        self.stop();
        match self.marks.prev_moment(self.cursor()) {
            Some(m) => {
                let s = m.step + 1;
                self.snapshot();
                self.jump_to_step(s);
            }
            None => self.notice("No marked moment before the cursor.".into()),
        }
    }

    /// The model's one-key action `key` now: each of its actions recorded as the person's.
    pub(super) fn quick_key(&mut self, key: char) {
        self.stop();
        let keys = self.run.engine.quick_keys();
        let Some(k) = keys.iter().find(|k| k.key == key) else {
            return;
        };
        match self.run.engine.quick_actions(key, self.selected) {
            Ok(actions) => {
                for a in actions {
                    self.user_action(a);
                    if self.confirm.is_some() {
                        break;
                    }
                }
            }
            Err(e) => self.info(format!("{key} ({}): not now, {e}.", k.label)),
        }
    }

    /// Drop the person's recorded actions and show the scenario's own run at the cursor's time;
    /// Undo brings them back.
    pub(super) fn back_to_script(&mut self) {
        self.stop();
        let before = self.session();
        let n = before.actions.len();
        if n == 0 {
            return;
        }
        let t = self.now();
        let mut s = before.clone();
        s.actions.clear();
        s.branches.clear();
        s.branch = 0;
        s.cursor = 0;
        match self.restore(s) {
            Ok(()) => {
                self.scrub_to(t);
                self.undo = Some(UndoPoint {
                    session: before,
                    discarded: n,
                    what: "back to the script's run".into(),
                });
                self.info(format!(
                    "Back to the script's run at {}: the captions and expectations describe it. \
                     Undo brings your {n} action{} back.",
                    fmt_time(t),
                    if n == 1 { "" } else { "s" }
                ));
            }
            Err(e) => self.error(format!("Could not go back to the script's run: {e}")),
        }
    }
}
