//! Nothing a person did vanishes without consent: acting at a cursor before recorded actions
//! would discard them (the engine truncates the future there), so the app asks first
//! ([`Model::confirm`], answered by `Msg::ConfirmDiscard` / `Msg::CancelDiscard`), and once the
//! person agreed it keeps the session as it was for `Msg::Undo` ([`Model::undo`]).
//!
//! A future without recorded actions is only computed (the same replay computes it again), so
//! acting before it needs no question.

use super::{sentence, Model};
use clusterscope_core::engine::action::{Action, RecordedAction};
use clusterscope_core::session::Session;
use clusterscope_core::time::fmt_time;

/// An action waiting for consent.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingDiscard {
    pub action: Action,
    /// The recorded actions it would discard (at or after the cursor).
    pub later: Vec<RecordedAction>,
    /// The step the person acts at (the question is dropped if the cursor moved since).
    pub at_step: u64,
}

impl PendingDiscard {
    /// One line per discarded action, for the dialog.
    pub fn lines(&self) -> Vec<String> {
        self.later
            .iter()
            .map(|a| format!("{} — {}", fmt_time(a.at.0), a.action.describe()))
            .collect()
    }
}

/// The session before an accepted action that discarded recorded actions.
#[derive(Clone, Debug, PartialEq)]
pub struct UndoPoint {
    pub session: Session,
    /// How many recorded actions the action discarded.
    pub discarded: usize,
    /// What the action was, for the Undo button's title.
    pub what: String,
}

impl Model {
    /// The recorded actions acting at the cursor would discard.
    pub fn later_actions(&self) -> Vec<RecordedAction> {
        let here = self.cursor();
        self.run
            .engine
            .user_actions()
            .iter()
            .filter(|a| a.step >= here)
            .cloned()
            .collect()
    }

    /// When `a` would discard recorded actions, hold it for consent and return true.
    pub(super) fn ask_before_discarding(&mut self, a: &Action) -> bool {
        let later = self.later_actions();
        if later.is_empty() {
            return false;
        }
        self.confirm = Some(PendingDiscard {
            action: a.clone(),
            later,
            at_step: self.cursor(),
        });
        true
    }

    pub(super) fn confirm_discard(&mut self) {
        let Some(p) = self.confirm.take() else {
            return;
        };
        if p.at_step != self.cursor() {
            self.info("The cursor moved since; nothing was changed.".into());
            return;
        }
        let undo = UndoPoint {
            session: self.session(),
            discarded: p.later.len(),
            what: p.action.describe(),
        };
        self.act(p.action, Some(undo));
    }

    pub(super) fn undo(&mut self) {
        let Some(u) = self.undo.take() else {
            return;
        };
        self.stop();
        match self.restore(u.session) {
            Ok(()) => self.info(format!(
                "Undone: {}. The {} discarded recorded action{} {} back.",
                u.what,
                u.discarded,
                if u.discarded == 1 { "" } else { "s" },
                if u.discarded == 1 { "is" } else { "are" }
            )),
            Err(e) => self.error(format!("Undo failed: {}", sentence(&e))),
        }
    }
}
