//! Loading a session: a built-in or imported scenario, a variant or seed switch (keeping the
//! cursor's time and the person's actions), a permalink or the autosave (with its cursor and
//! selected node). On error nothing changes.

use super::export::{marked_cursor, marked_variant};
use super::*;

/// The run a load replaced, with its samples and marks.
pub(super) type Replaced = (Run, Samples, Marks);

impl Model {
    /// Replace the run. On error nothing changes and the error is returned.
    pub(super) fn install(
        &mut self,
        r: ScenarioRef,
        scenario: Scenario,
        variant: Option<&str>,
        seed: Option<u64>,
        actions: Option<Vec<RecordedAction>>,
    ) -> Result<Replaced, String> {
        let variant = match variant {
            Some(v) => {
                scenario.variant(v)?;
                v.to_string()
            }
            None => Run::default_variant(&scenario),
        };
        let same_topology = scenario.topo == self.run.scenario.topo;
        let opts = RunOptions {
            limits: self.limits.clone(),
            ..run_options()
        };
        let mut run = Run::new(scenario, &variant, seed, &toml::Table::new(), &opts)?;
        if let Some(a) = actions {
            // Every action checked against this scenario and variant before anything is
            // replaced: the current session (and its autosave) stay as they were on failure.
            run.check_actions(&a, "actions", &self.limits)?;
            run.engine.set_user_actions(a);
        }
        let old = std::mem::replace(&mut self.run, run);
        self.scenario_ref = r;
        self.runs.retain_scenario(&self.scenario_ref);
        let samples = Samples::new(&*self.run.engine, self.run.scenario.duration());
        let old_samples = std::mem::replace(&mut self.samples, samples);
        let old_marks = std::mem::take(&mut self.marks);
        self.after_install(!same_topology);
        // The caller keeps it (a switch, in `runs`) or drops it.
        Ok((old, old_samples, old_marks))
    }

    pub(super) fn after_install(&mut self, new_topology: bool) {
        self.reset_view_state(new_topology);
        self.samples = Samples::new(&*self.run.engine, self.run.scenario.duration());
        self.marks = Marks {
            labels: self
                .run
                .engine
                .state_marks()
                .map(|s| (s.above.0, s.below.0)),
            kinds: self.run.engine.moment_kinds(),
            ..Marks::default()
        };
        // Start at time zero with its events (the nodes starting) processed.
        self.engine_ok(|m| m.run.engine.run_until(0, 1 << 20).map(|_| ()));
        self.sample();
        self.marks.update(&*self.run.engine);
        self.session_rev += 1;
    }

    /// What a new run on screen resets: captions (of its variant), playing, pending actions,
    /// confirm and undo, and (for a new topology) the selection.
    fn reset_view_state(&mut self, new_topology: bool) {
        let sc = &self.run.scenario;
        let caps = sc.captions_indexed(&self.run.variant);
        self.captions = caps.iter().map(|(_, c)| (c.at.0, c.text.clone())).collect();
        self.caption_index = caps.iter().map(|(i, _)| *i as u32).collect();
        self.teach.reset();
        self.playing = false;
        self.seek = None;
        self.frac_us = 0.0;
        self.step_cost_ms = STEP_COST_MS_GUESS;
        self.replay_cost_ms = None;
        self.pending_timed.clear();
        self.prev_node = None;
        self.selected_msg = None;
        self.confirm = None;
        self.undo = None;
        self.branches = Default::default();
        self.step_time = None;
        if new_topology {
            let n = sc.topo.len();
            self.selected = (n > 0).then_some(0);
            self.seq_nodes = (0..n.min(4)).collect();
            self.seq_auto = n as usize > SEQ_AUTO_ABOVE;
            self.selected_link = None;
        }
    }

    pub(super) fn load(
        &mut self,
        r: ScenarioRef,
        scenario: Option<Scenario>,
        variant: Option<&str>,
        seed: Option<u64>,
        actions: Option<Vec<RecordedAction>>,
    ) -> Option<Replaced> {
        let scenario = match scenario.map_or_else(|| resolve(&r), Ok) {
            Ok(s) => s,
            Err(e) => {
                self.error(format!("Could not open the scenario: {e}"));
                return None;
            }
        };
        match self.install(r, scenario, variant, seed, actions) {
            Ok(old) => Some(old),
            Err(e) => {
                self.error(format!("Could not open the scenario: {e}"));
                None
            }
        }
    }

    /// Switch variant and/or seed, keeping the cursor's time and re-applying the user's actions at
    /// their times. The run left is kept (`runs`, issue 20); a run kept before with the same
    /// scenario, variant, seed and actions is taken back instead of computed again.
    pub(super) fn switch(&mut self, variant: Option<String>, seed: Option<u64>) {
        let t = self.now();
        let mut actions = self.run.engine.user_actions().to_vec();
        // Only a run without actions still waiting to be replayed is what its key says.
        let parkable = self.pending_timed.is_empty();
        let old_key = runs::RunKey::of(&self.scenario_ref, &self.run);
        let pending_before = self.pending_timed.clone();
        actions.append(&mut self.pending_timed);
        clusterscope_core::small_sort::sort_by_key(&mut actions, |a| a.at.0);
        let v = variant.unwrap_or_else(|| self.run.variant.clone());
        let seed = seed.unwrap_or(self.run.seed);
        let r = self.scenario_ref.clone();
        let key = runs::RunKey::new(&r, &v, seed, &actions);
        if let Some(mut kept) = self.runs.take(&key) {
            // Swapped, not rebuilt: the kept run goes on screen, this one into the holder.
            std::mem::swap(&mut self.run, &mut kept.run);
            std::mem::swap(&mut self.samples, &mut kept.samples);
            std::mem::swap(&mut self.marks, &mut kept.marks);
            if parkable {
                self.runs.park(old_key, kept.run, kept.samples, kept.marks);
            }
            let (cost, replay) = (self.step_cost_ms, self.replay_cost_ms);
            self.reset_view_state(false);
            self.step_cost_ms = cost;
            self.replay_cost_ms = replay;
            self.marks.update(&*self.run.engine);
            self.session_rev += 1;
            self.scrub_to(t.min(self.end()));
            return;
        }
        let scenario = self.run.scenario.clone();
        if let Some((run, samples, marks)) =
            self.load(r, Some(scenario), Some(&v), Some(seed), Some(Vec::new()))
        {
            if parkable {
                self.runs.park(old_key, run, samples, marks);
            }
            self.pending_timed = actions;
            if t > 0 || !self.pending_timed.is_empty() {
                self.start_seek(Seek::Time(t));
            }
        } else {
            self.pending_timed = pending_before;
        }
    }

    pub(super) fn import(&mut self, file: &str, text: String) {
        let scenario = match crate::reader::parse(file, &text, &self.limits) {
            Ok(s) => s,
            Err(e) => {
                self.error(format!(
                    "Import failed: {} Your current session is unchanged.",
                    sentence(&e.to_string())
                ));
                return;
            }
        };
        let title = scenario.raw.title.clone();
        // An exported session: its session line restores what a permalink carries (branches,
        // bookmarks, the exact cursor time, selection, compare); the file's seed and recorded
        // actions are taken as the file has them (a person may have edited them).
        let damaged = match session::session_of_export(&text, &self.limits) {
            Some(Ok(mut s)) => {
                s.seed = scenario.raw.seed;
                s.actions = scenario.raw.recorded.clone();
                if scenario.variant(&s.variant).is_err() {
                    s.variant = Run::default_variant(&scenario);
                    s.compare = None;
                }
                match self.restore(s) {
                    Ok(()) => {
                        self.info(format!("Imported {file}: {title}"));
                        return;
                    }
                    Err(e) => Some(e),
                }
            }
            // The session reader's part not loaded yet (the split release build): the import
            // waits for it (`store.rs`) and is applied again, nothing changed meanwhile.
            Some(Err(e)) if crate::reader::session_wanted() => {
                self.error(format!("Import failed: {}", sentence(&e)));
                return;
            }
            Some(Err(e)) => Some(e),
            None => None,
        };
        let variant = marked_variant(&text)
            .filter(|v| scenario.variant(v).is_ok())
            .map(str::to_string);
        let cursor = marked_cursor(&text);
        if self
            .load(
                ScenarioRef::Custom(session::without_session_line(&text)),
                Some(scenario),
                variant.as_deref(),
                None,
                None,
            )
            .is_some()
        {
            self.user_expects.clear();
            match damaged {
                Some(e) => self.info(format!(
                    "Imported {file}: {title}, without its session (branches, bookmarks): {}",
                    sentence(&e)
                )),
                None => self.info(format!("Imported {file}: {title}")),
            }
            // An exported session opens where it was exported.
            if let Some(t) = cursor.filter(|t| *t > self.now()) {
                self.start_seek(Seek::Time(t.min(self.end())));
            }
        }
    }

    pub(super) fn open_session(&mut self, text: &str) -> Result<(), String> {
        let s = Session::decode(text, &self.limits)?;
        self.restore(s)
    }

    /// Replace the session by `s` (its scenario, variant, seed, actions, cursor and selected
    /// node). On error nothing changes.
    pub(super) fn restore(&mut self, s: Session) -> Result<(), String> {
        let scenario = resolve(&s.scenario)?;
        scenario.variant(&s.variant)?;
        let (sref, scenario, mine) = split_mine(s.scenario, scenario, s.expects, &self.limits)?;
        self.install(
            sref,
            scenario,
            Some(&s.variant),
            Some(s.seed),
            Some(s.actions),
        )?;
        if let Some(id) = s
            .selected
            .as_deref()
            .and_then(|n| self.run.scenario.topo.id(n))
        {
            self.update(Msg::SelectNode(Some(id)));
        }
        self.restore_branches(s.branches, s.branch);
        self.bookmarks = s.bookmarks;
        self.user_expects = mine;
        // The exact time shared (between two events, it is after the cursor's step), applied
        // once the step is reached.
        self.step_time = s.at_us;
        if s.cursor < self.cursor() {
            self.jump_to_step(s.cursor);
        } else if s.cursor > self.cursor() {
            self.start_seek(Seek::Step(s.cursor));
        }
        if self.seek.is_none() {
            self.settle_step_time();
        }
        if s.compare != self.compare.as_ref().map(|c| c.variant.clone()) {
            self.set_compare(s.compare);
        }
        Ok(())
    }
}

/// A session's scenario and the person's expectations (`Session::expects`): the rows an
/// exported file has among its `[[expect]]` are taken out of the file's and kept as the
/// person's (a file whose rest is a built-in scenario opens as that built-in again); a row whose
/// name the file's expectations now use (edited in the file) is the file's. The rows are checked
/// against the scenario: an error names the row and the fix.
fn split_mine(
    r: ScenarioRef,
    scenario: Scenario,
    rows: Vec<clusterscope_core::scenario::ExpectSpec>,
    limits: &Limits,
) -> Result<
    (
        ScenarioRef,
        Scenario,
        Vec<clusterscope_core::scenario::ExpectSpec>,
    ),
    String,
> {
    use clusterscope_core::user_expect::{split_user_expects, with_user_expects};
    if rows.is_empty() {
        return Ok((r, scenario, rows));
    }
    let (r, base) = match r {
        ScenarioRef::Custom(_) => {
            let (base, found) = split_user_expects(&scenario, &rows, limits)?;
            if found.is_empty() {
                (r, base)
            } else {
                let same_builtin = crate::builtins::get(base.name()).ok().filter(|b| {
                    // The export sets the seed and the recorded actions (the session has them).
                    let mut raw = base.raw.clone();
                    raw.seed = b.raw.seed;
                    raw.recorded.clone_from(&b.raw.recorded);
                    b.raw == raw && b.section == base.section
                });
                match same_builtin {
                    Some(b) => (ScenarioRef::Builtin(b.name().to_string()), b),
                    None => (ScenarioRef::Custom(base.to_toml(&base.raw)?), base),
                }
            }
        }
        b => (b, scenario),
    };
    let theirs: Vec<&str> = base.raw.expect.iter().map(|e| e.name.as_str()).collect();
    let mine: Vec<_> = rows
        .into_iter()
        .filter(|e| !theirs.contains(&e.name.as_str()))
        .collect();
    with_user_expects(&base, &mine, limits)
        .map_err(|e| format!("its expectations of the person's: {e}"))?;
    Ok((r, base, mine))
}
