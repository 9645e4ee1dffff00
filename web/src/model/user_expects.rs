//! Expectations the person adds in the app (issue 41, "Student's lab": the expectation editor,
//! `ui::expect_editor`): `[[expect]]` rows appended to the scenario when it is checked (the
//! Expectations list's worker run, `sweep::check`), swept ("How often?") and exported, so they
//! are evaluated by the same `Run::run` as the scenario's own. They are kept in the session
//! (`Session::expects`: the autosave, the permalink and an export's session line, whose
//! `[[expect]]` rows an import takes back as the person's: `core::user_expect`). Like
//! bookmarks, they stay across a variant, seed or branch switch; another scenario starts
//! without them.

use super::*;
use clusterscope_core::scenario::ExpectSpec;
use clusterscope_core::user_expect::{with_user_expects, MAX_USER_EXPECTS};

impl Model {
    /// The scenario as checked, swept and exported: with the person's expectations, and the
    /// reference a worker loads it by (the built-in's name when there are none, else the
    /// scenario's text). With expectations of the person's, an error when the text cannot be
    /// written: in the split release build, while the writer's part (`session_write`) is not
    /// loaded (`Scenario::to_toml`: the part is wanted, and the caller waits for it).
    pub fn checked_scenario(&self) -> Result<(ScenarioRef, Scenario), String> {
        if self.user_expects.is_empty() {
            return Ok((self.scenario_ref.clone(), self.run.scenario.clone()));
        }
        let with = self.scenario_with_mine();
        let text = with.to_toml(&with.raw)?;
        Ok((ScenarioRef::Custom(text), with))
    }

    /// The scenario with the person's expectations appended (the session's scenario when there
    /// are none): what [`Model::checked_scenario`] writes, without its text.
    pub fn scenario_with_mine(&self) -> Scenario {
        if self.user_expects.is_empty() {
            return self.run.scenario.clone();
        }
        // Each row was checked against this scenario when it was added or restored.
        with_user_expects(&self.run.scenario, &self.user_expects, &self.limits)
            .unwrap_or_else(|_| self.run.scenario.clone())
    }

    /// Whether `rows` are valid expectations of this session's scenario (the error names the
    /// row and the fix).
    pub fn check_user_expects(&self, rows: &[ExpectSpec]) -> Result<(), String> {
        with_user_expects(&self.run.scenario, rows, &self.limits).map(|_| ())
    }

    pub(super) fn add_expect(&mut self, e: ExpectSpec) {
        if self.user_expects.len() >= MAX_USER_EXPECTS {
            self.error(format!(
                "This session has {MAX_USER_EXPECTS} expectations of yours, the most it keeps: remove one first."
            ));
            return;
        }
        let mut rows = self.user_expects.clone();
        rows.push(e);
        match self.check_user_expects(&rows) {
            Ok(()) => {
                let name = rows.last().map(|e| e.name.clone()).unwrap_or_default();
                self.user_expects = rows;
                self.user_expects_changed();
                self.info(format!(
                    "Added the expectation “{name}”: checking it on this run…"
                ));
            }
            Err(e) => self.error(format!("The expectation was not added: {e}")),
        }
    }

    pub(super) fn remove_expect(&mut self, i: usize) {
        if i < self.user_expects.len() {
            let e = self.user_expects.remove(i);
            self.user_expects_changed();
            self.info(format!("Removed the expectation “{}”", e.name));
        }
    }

    /// The person's rows changed: the session is saved again and every branch's expectations
    /// are evaluated again with them (`branch_jobs` uses [`Model::checked_scenario`]).
    fn user_expects_changed(&mut self) {
        self.session_rev += 1;
        for b in &mut self.branches.list {
            b.expectations = None;
        }
    }
}
