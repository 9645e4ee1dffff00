//! A session opened from a link is on trial until it has run its recorded actions (issue 39).
//! Some actions are refused only while running (a command the node refuses in its state, a fork
//! delayed past the end, a kill before the node started): the link decodes, replaces the session
//! and stops at that action. Until every recorded action has run, the autosave keeps the session
//! shown before the link ([`Trial::previous`]; `ui::app` saves nothing meanwhile), so a broken
//! link never costs the person their saved work, even after a reload. When an action is refused,
//! the error names it (its index, time, step, what and why) and the person goes back to the
//! saved session ([`Msg::BackToSaved`]) or keeps the link's ([`Msg::KeepLinkSession`]); acting in
//! the link's session keeps it too.

use super::*;
use clusterscope_core::SimError;

/// A session opened from a link, until its recorded actions have all run.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The session to go back to (a permalink payload): the one shown, and autosaved, before
    /// the link was opened.
    pub previous: String,
    /// It in a few words, for the buttons: `cassandra-21636-packet-loss (fixed) at 12.3s`.
    pub previous_label: String,
    /// The link's recorded actions have all run once the run has recorded this many steps (the
    /// last one's step + 1).
    pub until_step: u64,
    /// How many recorded actions the link has.
    pub actions: usize,
    /// The time of its last recorded action.
    pub last_at: Micros,
    /// Why the link's session stopped (the error banner's text), once it did.
    pub failed: Option<String>,
}

impl Model {
    /// The session as it will be once the pending seek of a restore has arrived: a link opened
    /// right after the autosave was restored (the page's start) must go back to the saved
    /// cursor, not to where the seek got in its first frame.
    fn settled_session(&self) -> Session {
        let mut s = self.session();
        if let Some(Seek::Step(k)) = self.seek {
            s.cursor = s.cursor.max(k);
            s.at_us = self.step_time.or(s.at_us);
        }
        s
    }

    /// The session shown, in a few words (`name (variant) at 12.3s`).
    pub fn session_label(&self) -> String {
        let at = match self.seek {
            Some(Seek::Time(t)) => t,
            Some(_) => return format!("{} ({})", self.run.scenario.name(), self.run.variant),
            None => self.now(),
        };
        format!(
            "{} ({}) at {}",
            self.run.scenario.name(),
            self.run.variant,
            fmt_time(at)
        )
    }

    /// Open a link (`Msg::OpenPermalink`): refused at decode time, nothing changes; else the
    /// link's session is shown, on trial while it has recorded actions still to run (set before
    /// the run starts, so that an action refused on the way to the link's cursor, or at step 0,
    /// is the trial's failure).
    pub(super) fn open_link(&mut self, text: &str) {
        let old = self.trial.take();
        // A link opened while another is on trial goes back to the same saved session.
        let (previous, previous_label) = match &old {
            Some(t) => (t.previous.clone(), t.previous_label.clone()),
            None => match self.settled_session().try_encode() {
                Some(p) => (p, self.session_label()),
                // The session writer's part is not loaded (the split release build): the
                // store waits for it and applies the link again (`store.rs`); nothing changed.
                None => {
                    self.trial = old;
                    return;
                }
            },
        };
        let opened = Session::decode(text, &self.limits).and_then(|s| {
            self.trial = s.actions.last().map(|last| Trial {
                previous,
                previous_label,
                until_step: last.step + 1,
                actions: s.actions.len(),
                last_at: last.at.0,
                failed: None,
            });
            self.restore(s)
        });
        match opened {
            Ok(()) => {
                self.follow_trial(false);
            }
            Err(e) => {
                self.trial = old;
                self.error(format!(
                    "This link could not be opened: {} Your current session is unchanged.",
                    sentence(&e)
                ));
            }
        }
    }

    /// When the engine stopped with `e` at a recorded action of a session on trial: the trial
    /// has failed, and the error banner's text says which action, when, what and why.
    pub(super) fn trial_failure(&mut self, e: &SimError) -> Option<String> {
        let SimError::Action(m) = e else { return None };
        let t = self.trial.as_ref()?;
        let here = self.cursor();
        let actions = self.run.engine.user_actions();
        let i = actions.iter().position(|a| a.step == here)?;
        if let Some(failed) = &t.failed {
            // The same action refused again (the seek to the link's cursor after the first
            // step, or a step forward): the same message.
            return Some(failed.clone());
        }
        let a = &actions[i];
        // Core says "recorded action 3 (step 120, at 2s): <why>": the place is said here.
        let why = m
            .strip_prefix("recorded action ")
            .and_then(|r| r.split_once("): "))
            .map_or(m.as_str(), |(_, why)| why);
        let text = format!(
            "This link's recorded action {} of {} (actions[{i}]: “{}” at {}, step {}) was refused \
             while the run replayed it: {} The run stops there. Your saved session ({}) is kept: \
             go back to it, or keep this one (it then replaces the saved session).",
            i + 1,
            actions.len(),
            clusterscope_core::text::clip(&a.action.describe(), 120),
            fmt_time(a.at.0),
            a.step,
            sentence(why),
            t.previous_label
        );
        if let Some(t) = self.trial.as_mut() {
            t.failed = Some(text.clone());
        }
        Some(text)
    }

    /// After every message: a session on trial passes once its recorded actions have all run,
    /// fails when the run ended before one was reached, and is kept when `kept` (the person
    /// changed the session: acted in it, switched variant or seed, opened something else).
    /// Returns whether anything visible changed.
    pub(super) fn follow_trial(&mut self, kept: bool) -> bool {
        let Some(t) = self.trial.as_ref() else {
            return false;
        };
        if kept {
            self.trial = None;
            return true;
        }
        if t.failed.is_some() {
            return false;
        }
        if self.frontier() >= t.until_step {
            self.trial = None;
            return true;
        }
        if self.busy() || !self.at_end() {
            return false;
        }
        // The run ended (at its end, or stopped at a limit) before the last recorded action's
        // step: an action that is never applied is refused too.
        let steps = self.frontier();
        let actions = self.run.engine.user_actions();
        let Some(i) = actions.iter().position(|a| a.step >= steps) else {
            self.trial = None;
            return true;
        };
        let a = &actions[i];
        let text = format!(
            "This link's recorded action {} of {} (actions[{i}]: “{}” at {}, step {}) was never \
             reached: the run ended after {steps} steps at {}. Your saved session ({}) is kept: go \
             back to it, or keep this one (it then replaces the saved session).",
            i + 1,
            actions.len(),
            clusterscope_core::text::clip(&a.action.describe(), 120),
            fmt_time(a.at.0),
            a.step,
            fmt_time(self.now()),
            t.previous_label
        );
        self.error(text.clone());
        if let Some(t) = self.trial.as_mut() {
            t.failed = Some(text);
        }
        true
    }

    /// `Msg::KeepLinkSession`: the link's session stays and becomes the saved one.
    pub(super) fn keep_link_session(&mut self) {
        if self.trial.take().is_some() {
            self.info("Kept: this session replaces your saved session.".into());
        }
    }

    /// `Msg::BackToSaved`: the session shown before the link, as it was saved.
    pub(super) fn back_to_saved(&mut self) {
        let Some(t) = self.trial.take() else { return };
        self.stop();
        match self.open_session(&t.previous) {
            Ok(()) => self.info(format!("Back to your saved session: {}.", t.previous_label)),
            Err(e) => {
                self.error(format!(
                    "Your saved session could not be opened again: {}",
                    sentence(&e)
                ));
                self.trial = Some(t);
            }
        }
    }
}
