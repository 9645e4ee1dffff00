//! How the cursor moves: jumps (restore a checkpoint and replay, at once when the replay fits
//! [`JUMP_SYNC_MS`] at its measured cost), seeks over frames, the animation frame's tick while
//! playing, and going forward to a time, a step or the next record of a kind.

use super::*;

impl Model {
    pub(super) fn jump_to_step(&mut self, step: u64) {
        self.engine_ok(|m| m.run.engine.jump_to_step(step));
        self.after_move();
    }

    pub(super) fn step_once(&mut self) -> Result<(), clusterscope_core::SimError> {
        if self.at_end() {
            return Ok(());
        }
        self.run.engine.step()?;
        self.sample();
        Ok(())
    }

    pub(super) fn sample(&mut self) {
        self.samples.maybe_sample(&*self.run.engine, self.selected);
    }

    /// Move to virtual time `t`. A jump restores the nearest state held at or before `t` (a
    /// checkpoint, or the current state) and replays from there: at once when that replay fits
    /// [`JUMP_SYNC_MS`] (at the measured cost of a replayed step), else the rest is replayed in
    /// time-boxed frames (a seek) so the page keeps answering. Past the last record (the end of a
    /// run computed to its end, or beyond what is computed), what is left of that budget goes on
    /// at once too, and a seek computes the rest.
    pub(super) fn scrub_to(&mut self, t: Micros) {
        crate::platform::perf::model_start();
        self.scrub_to_inner(t);
        crate::platform::perf::model_end();
    }

    fn scrub_to_inner(&mut self, t: Micros) {
        self.snapshot();
        let trace = self.run.engine.trace();
        let frontier_t = nav::frontier_time(trace);
        let k = nav::step_at_time(trace, t);
        let from = self.run.engine.replay_from(k);
        let replay = k - from;
        let per_step = self.replay_cost_est();
        if replay as f64 * per_step <= JUMP_SYNC_MS {
            let t0 = crate::platform::clock_ms();
            self.jump_to_step(k);
            self.note_replay(replay, t0);
            if self.now() > t && k > 0 {
                // The state held at step k is one whose clock ran on past `t` with no event
                // (the end of a run whose last event is before its end, kept as a checkpoint):
                // rebuild step k from the step before it, then settle at `t` (issue 41: "C" at
                // the end of Figure 8 did not move the cursor back).
                self.jump_to_step(k - 1);
                self.engine_ok(|m| m.run.engine.run_until(t, 1).map(|_| ()));
            }
            if t <= frontier_t {
                // Settle the clock at exactly `t` (no event is due before it).
                self.engine_ok(|m| m.run.engine.run_until(t, 1).map(|_| ()));
                self.after_move();
                return;
            }
            let left_ms = JUMP_SYNC_MS - replay as f64 * per_step;
            if self.forward_within(t, (left_ms / self.step_cost_ms.max(1e-6)) as u64) {
                return;
            }
            self.start_seek(Seek::Time(t));
            return;
        }
        if from != self.cursor() {
            self.jump_to_step(from);
        }
        self.start_seek(Seek::Time(t));
    }

    /// A drag of the scrubber to time `t` (issue 44): the exact frame when its replay fits
    /// [`SCRUB_PREVIEW_MS`]; else a keyframe, as a video player scrubs: the nearest checkpoint at
    /// or before `t` (no restore when the state shown is already between it and `t`), replayed
    /// on towards `t` for at most [`SCRUB_PREVIEW_MS`], never computing past what is computed.
    /// What is shown is then marked approximate ([`Model::scrub_approx`]) until
    /// [`Model::settle_scrub`].
    pub(super) fn scrub_preview(&mut self, t: Micros) {
        let t = t.min(self.end());
        let trace = self.run.engine.trace();
        let frontier_t = nav::frontier_time(trace);
        let k = nav::step_at_time(trace, t);
        let from = self.run.engine.replay_from(k);
        let per_step = self.replay_cost_est().max(1e-6);
        if t <= frontier_t && (k - from) as f64 * per_step <= SCRUB_PREVIEW_MS {
            self.scrub_approx = None;
            self.scrub_to(t);
            return;
        }
        self.snapshot();
        if from != self.cursor() {
            // A checkpoint's step: a restore, nothing replayed.
            self.jump_to_step(from);
        }
        // Replay on for SCRUB_PREVIEW_MS by the clock (in slices: the estimate of a step's
        // cost can be off on a busy machine), or by the estimate where there is no clock.
        let target = t.min(frontier_t);
        let t0 = crate::platform::clock_ms();
        let budget = (SCRUB_PREVIEW_MS / per_step) as u64;
        let slice = if t0.is_some() {
            (budget / 4).max(1)
        } else {
            budget
        };
        let mut left = budget;
        while self.now() < target && left > 0 {
            let n = slice.min(left);
            self.forward_within(target, n);
            left -= n;
            if let (Some(a), Some(b)) = (t0, crate::platform::clock_ms()) {
                if b - a >= SCRUB_PREVIEW_MS {
                    break;
                }
            }
        }
        self.scrub_approx = (self.now() != t).then_some(t);
    }

    /// The drag rested or ended: replace a keyframe's frame by the exact one at the time dragged
    /// to (replayed from the state shown, which is at or before it; a seek when that is long).
    pub(super) fn settle_scrub(&mut self) {
        if let Some(t) = self.scrub_approx.take() {
            self.scrub_to(t);
        }
    }

    /// The drag rested or ended (issue 44): what waited while it moved catches up (the
    /// sequence diagram's partners; the panels render, see [`Model::scrub_moving`]). Whether
    /// anything waited.
    pub(super) fn scrub_rest(&mut self) -> bool {
        if !std::mem::take(&mut self.scrub_moving) {
            return false;
        }
        self.follow_partners_if_auto();
        true
    }

    /// Go forward towards time `t` taking at most `budget` steps (at least one), then show
    /// where that arrived; whether `t` was reached (or the run ended).
    pub(super) fn forward_within(&mut self, t: Micros, budget: u64) -> bool {
        let mut left = budget.max(1);
        let mut done = false;
        self.engine_ok(|m| {
            let r = m.forward_to_time(t, &mut left);
            done = *r.as_ref().unwrap_or(&true);
            r.map(|_| ())
        });
        self.after_move();
        done || self.now() >= t
    }

    /// What one replayed step is expected to cost: as measured by earlier jumps, or until a jump
    /// has been timed, half the measured cost of computing one (which also records it), itself
    /// measured over both sides' work in compare mode.
    pub(crate) fn replay_cost_est(&self) -> f64 {
        let sides = if self.compare.is_some() { 2.0 } else { 1.0 };
        self.replay_cost_ms
            .unwrap_or(self.step_cost_ms / (2.0 * sides))
    }

    /// Time a jump's replay of `steps` steps that started at `t0` (when there is a clock: the
    /// browser's; the model's native tests have none), if it replayed enough to time.
    fn note_replay(&mut self, steps: u64, t0: Option<f64>) {
        /// Fewer replayed steps are mostly the restore and the bookkeeping.
        const MIN_TIMED_STEPS: u64 = 5_000;
        if steps < MIN_TIMED_STEPS {
            return;
        }
        if let (Some(a), Some(b)) = (t0, crate::platform::clock_ms()) {
            let per = (b - a).max(0.0) / steps as f64;
            self.replay_cost_ms = Some(self.replay_cost_ms.map_or(per, |c| 0.7 * c + 0.3 * per));
        }
    }

    /// A restored session (a link opened, a reload) computing its run to the session's cursor:
    /// the steps done and the cursor's, while it does. The page shows this progress in place of
    /// the cluster's panels meanwhile and mounts them at the cursor (issue 44: at 251 nodes the
    /// panels' first frame and each progress render on the way cost as much as a slice of the
    /// run, for frames nobody had asked to see). A pause ends it where the run is.
    pub fn opening(&self) -> Option<(u64, u64)> {
        match self.seek {
            Some(Seek::Step(k)) => Some((self.cursor(), k)),
            _ => None,
        }
    }

    pub(super) fn start_seek(&mut self, s: Seek) {
        self.snapshot();
        self.seek = Some(s);
        self.seek_quiet_ms = 0.0;
        let budget = self.steps_per_frame;
        self.process(budget);
    }

    pub(super) fn prev(&mut self, kind: NavKind) {
        let trace = self.run.engine.trace();
        let c = self.cursor();
        // The latest match whose step is before the cursor's previous step, so that repeated presses
        // walk backwards (landing just after each match).
        let target = trace
            .recs
            .range(..trace.rec_index_at_step(c))
            .rev()
            .take(2_000_000)
            .find(|r| r.step + 1 < c && kind.matches(r, trace))
            .map(|r| r.step + 1);
        self.snapshot();
        match target {
            Some(s) => self.jump_to_step(s),
            None => {
                self.jump_to_step(0);
                self.notice(format!("No earlier {} before the cursor.", kind.label()));
            }
        }
    }

    /// The previous frame's render took `render_ms` (0: it rendered nothing, which says nothing
    /// about what a render costs).
    pub(super) fn note_render(&mut self, render_ms: f64) {
        if render_ms > 0.0 && render_ms.is_finite() {
            self.render_ms_est = if self.render_ms_est == 0.0 {
                render_ms
            } else {
                0.7 * self.render_ms_est + 0.3 * render_ms
            };
        }
    }

    /// The simulation's share of a frame while playing and not boosted: what
    /// [`PLAY_FRAME_FIT_MS`] leaves beside the measured render for one run, [`PLAY_FRAME_MS`]
    /// in compare mode or before a render was measured.
    pub fn play_share(&self) -> f64 {
        if self.compare.is_some() || self.render_ms_est <= 0.0 {
            return PLAY_FRAME_MS;
        }
        (PLAY_FRAME_FIT_MS - self.render_ms_est).clamp(PLAY_FRAME_MS, PLAY_FRAME_ROOM_MAX_MS)
    }

    pub(super) fn tick(&mut self, dt_ms: f64, cost_ms: f64) -> bool {
        if !self.busy() {
            return false;
        }
        if !self.playing && self.seek.is_none() {
            // Only the other side of a compare is still moving (`sync_compare` moves it).
            return false;
        }
        if self.teach.msg_mode && self.playing && self.seek.is_none() {
            return self.msg_tick(dt_ms);
        }
        // Adapt the step budget to what a frame can afford: a little while playing (the picture
        // must stay smooth), more while seeking (only progress is shown).
        let normal = self.play_share();
        let target = if self.seek.is_some() {
            SEEK_FRAME_MS
        } else if self.achieved.boosted {
            let max = if self.compare.is_some() {
                (COMPARE_FRAME_MS - self.render_ms_est)
                    .clamp(PLAY_FRAME_MS, PLAY_FRAME_COMPARE_MAX_MS)
            } else {
                PLAY_FRAME_MAX_MS
            };
            (dt_ms * 0.5).clamp(normal, max.max(normal))
        } else {
            normal
        };
        if self.last_tick_steps >= 50 && cost_ms > 0.0 {
            let per_step = cost_ms / self.last_tick_steps as f64;
            self.step_cost_ms = 0.7 * self.step_cost_ms + 0.3 * per_step;
            // Size the budget from the measured cost per step (smoothed), so it converges in a
            // frame or two whatever the cluster size.
            let ideal = self.last_tick_steps as f64 / cost_ms * target;
            let next = if ideal < self.steps_per_frame as f64 || self.budget_used_up {
                (self.steps_per_frame as f64 + ideal) / 2.0
            } else {
                self.steps_per_frame as f64
            };
            self.steps_per_frame = (next as u64).clamp(MIN_STEPS_PER_FRAME, MAX_STEPS_PER_FRAME);
        } else if cost_ms > target * 1.25 {
            self.steps_per_frame =
                ((self.steps_per_frame as f64 * 0.6) as u64).max(MIN_STEPS_PER_FRAME);
        } else if cost_ms < target * 0.6 && self.budget_used_up {
            self.steps_per_frame =
                ((self.steps_per_frame as f64 * 1.4) as u64 + 1).min(MAX_STEPS_PER_FRAME);
        }
        let steps_before = self.cursor();
        self.snapshot();
        if self.seek.is_some() {
            let budget = self.steps_per_frame;
            self.process(budget);
            self.last_tick_steps = self.cursor().saturating_sub(steps_before);
            // While computing new steps, render the progress now and then (the end of the seek
            // always); a replay within the computed trace (a long jump) renders every frame.
            self.seek_quiet_ms += dt_ms.max(0.0);
            let computing = self.cursor() >= self.frontier();
            // In compare mode a jump's replay is quiet too: every render draws both sides.
            let quiet = computing || self.compare.is_some();
            if self.seek.is_some() && quiet && self.seek_quiet_ms < SEEK_RENDER_MS {
                return false;
            }
            self.seek_quiet_ms = 0.0;
            return true;
        } else {
            let now_before = self.now();
            let real_dt = dt_ms;
            let dt_ms = dt_ms.clamp(0.0, 100.0);
            let target = self.now() as f64 + self.frac_us + self.speed * dt_ms * 1000.0;
            let t = target.floor();
            self.frac_us = target - t;
            let t = (t as Micros).min(self.end());
            // "Pause at captions": play stops at the next caption's time.
            let caption_stop = self
                .caption_pause
                .then(|| self.captions.iter().map(|c| c.0).find(|c| *c > self.now()))
                .flatten()
                .filter(|c| *c <= t);
            let t = caption_stop.unwrap_or(t);
            let mut left = self.steps_per_frame;
            let done = {
                let mut out = Ok(false);
                let ok = self.engine_ok(|m| {
                    out = m.forward_to_time(t, &mut left);
                    out.clone().map(|_| ())
                });
                ok && out.unwrap_or(false)
            };
            self.budget_used_up = left == 0;
            if !done {
                // Falling behind: do not accumulate a debt of virtual time.
                self.frac_us = 0.0;
            }
            let advanced = self.now().saturating_sub(now_before) as f64;
            // A frame longer than the 100 ms cap asked for less than the chosen speed: short.
            let reached = done && real_dt <= 100.0;
            self.achieved
                .frame(real_dt, advanced, reached, self.speed, cost_ms, normal);
            if self.at_end() || caption_stop.is_some_and(|c| self.now() >= c) {
                self.playing = false;
                self.frac_us = 0.0;
            }
            self.after_move();
        }
        self.last_tick_steps = self.cursor().saturating_sub(steps_before);
        true
    }

    /// Work on the pending seek with a step budget.
    fn process(&mut self, budget: u64) {
        let Some(seek) = self.seek else { return };
        let mut left = budget;
        let mut found = true;
        let mut res: Result<bool, clusterscope_core::SimError> = Ok(false);
        let ok = self.engine_ok(|m| {
            res = match seek {
                Seek::Time(t) => m.forward_to_time(t, &mut left),
                Seek::Step(k) => m.forward_to_step(k, &mut left),
                Seek::Until(kind) => m.forward_until(kind, &mut left).map(|r| match r {
                    Some(f) => {
                        found = f;
                        true
                    }
                    None => false,
                }),
            };
            res.clone().map(|_| ())
        });
        self.budget_used_up = left == 0;
        if !ok || res.unwrap_or(true) {
            self.seek = None;
            if ok && matches!(seek, Seek::Step(_)) {
                self.settle_step_time();
            }
            if !found {
                if let Seek::Until(kind) = seek {
                    self.notice(format!(
                        "No {} before the end of the scenario.",
                        kind.label()
                    ));
                }
            }
        }
        self.after_move();
    }

    /// Advance to time `t` (at most the end), sampling and applying pending timed actions. Returns
    /// whether `t` was reached within the budget.
    pub(super) fn forward_to_time(
        &mut self,
        t: Micros,
        left: &mut u64,
    ) -> Result<bool, clusterscope_core::SimError> {
        let t = t.min(self.end());
        while *left > 0 {
            let action_at = self.pending_timed.first().map(|a| a.at.0);
            let stop = t
                .min(self.samples.next_due())
                .min(action_at.unwrap_or(Micros::MAX));
            let n = self.run.engine.run_until(stop, *left)?;
            *left -= n;
            if self.now() < stop {
                return Ok(false);
            }
            self.sample();
            if action_at.is_some_and(|a| a <= self.now()) {
                let ra = self.pending_timed.remove(0);
                if let Err(e) = self.apply_action(ra.action.clone()) {
                    self.info(format!(
                        "A recorded action could not be replayed here: {} ({e})",
                        ra.action.describe()
                    ));
                }
            }
            if self.now() >= t && self.pending_timed.first().is_none_or(|a| a.at.0 > t) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Advance to step `k` (a link's cursor), never past the scenario's end. Runs the engine in
    /// stretches up to the next sample's time (not one step per call: issue 20, a link at 90%
    /// of the 251-node run spent much of its time around each step).
    fn forward_to_step(
        &mut self,
        k: u64,
        left: &mut u64,
    ) -> Result<bool, clusterscope_core::SimError> {
        let end = self.end();
        while self.cursor() < k {
            if *left == 0 {
                return Ok(false);
            }
            let stop = end.min(self.samples.next_due());
            let want = (*left).min(k - self.cursor());
            // Events (and recorded actions) up to `stop`, at most `want` of them; the clock
            // moves to `stop` only when none is left before it.
            let n = self.run.engine.run_until(stop, want)?;
            *left -= n;
            self.sample();
            if n < want && self.now() >= end {
                return Ok(true);
            }
        }
        Ok(true)
    }

    /// `Some(found)` when done (found a match, or reached the end), `None` when out of budget.
    fn forward_until(
        &mut self,
        kind: NavKind,
        left: &mut u64,
    ) -> Result<Option<bool>, clusterscope_core::SimError> {
        let end = self.end();
        while *left > 0 {
            let user_due = self
                .run
                .engine
                .user_actions()
                .iter()
                .any(|a| a.step == self.cursor());
            if !user_due && self.run.engine.next_time().is_none_or(|t| t > end) {
                self.run.engine.run_until(end, 1)?;
                return Ok(Some(false));
            }
            let s = self.cursor();
            if !self.run.engine.step()? {
                return Ok(Some(false));
            }
            *left -= 1;
            self.sample();
            if kind == NavKind::Moment {
                self.marks.update(&*self.run.engine);
                if self.marks.moment_at(s) {
                    return Ok(Some(true));
                }
                continue;
            }
            let trace = self.run.engine.trace();
            if nav::recs_of_step(trace, s).any(|r| kind.matches(&r, trace)) {
                return Ok(Some(true));
            }
        }
        Ok(None)
    }
}
