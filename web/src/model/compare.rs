//! Compare mode (issue 18): a second variant of the same scenario, seed and recorded actions
//! beside the session's own, on one virtual-time cursor.
//!
//! The other side is a whole [`Model`] of its own (its run, samples, marks, inspector
//! snapshot), held in [`Compare::other`] and driven by this one: after every message
//! ([`Model::sync_compare`], called by `Store::reduce`) it moves to this side's virtual time, takes
//! its selected node, and is rebuilt when this side's session changes (an action, a seed, another
//! scenario that has the same variant). The person's actions are recorded on this side and
//! replayed on the other by time, as a variant switch does.
//!
//! The first divergence is found with two runs of its own (no checkpoints) advanced in lockstep
//! over virtual time and compared record by record with `clusterscope_core::diff::same_rec`, a
//! budget of steps at a time ([`SEARCH_OPEN_STEPS`] when compare opens, then a frame's budget with
//! every message, or to the end on "jump to divergence"), so opening a compare of a large
//! cluster never blocks the page for long.

use super::*;
use clusterscope_core::diff::{self, Divergence};
use clusterscope_core::SimError;

/// Steps (of both search runs together) spent on finding the divergence when compare opens.
pub const SEARCH_OPEN_STEPS: u64 = 200_000;
/// Virtual time the search runs advance between comparisons.
const SEARCH_SLICE_US: Micros = 250_000;
/// A move of the other side forward within its computed trace by more than this many steps
/// restores a checkpoint (as a jump does) instead of stepping there.
const JUMP_FORWARD_STEPS: u64 = 2_000;
/// Above this many nodes, the differing matrix cells are recomputed only when the replay
/// settles (not in every frame while playing): N x N cells per side cost too much per frame.
pub const LIVE_CELLS_MAX_NODES: usize = 64;

/// Where the search for the first divergence stands.
pub enum DivState {
    /// Not decided yet: the search runs have been compared up to [`Search::reached`].
    Searching(Box<Search>),
    /// The first record that differs.
    Found(Divergence),
    /// The two runs do not differ up to the end of the scenario.
    Same,
    /// A search run stopped (a limit).
    Failed(String),
}

/// Two runs of their own, advanced and compared in lockstep.
pub struct Search {
    runs: [Run; 2],
    /// Actions each run applies when it reaches their time (the other variant replays the
    /// recorded actions by time).
    pending: [Vec<RecordedAction>; 2],
    /// Records compared so far (equal on both sides).
    compared: usize,
    /// Virtual time both runs reached.
    reached: Micros,
    end: Micros,
}

impl Search {
    pub fn reached(&self) -> Micros {
        self.reached
    }

    /// Work on the search for about `budget` steps. `Some` once it is decided.
    fn advance(&mut self, budget: u64) -> Result<Option<DivState>, SimError> {
        let mut left = budget.max(1);
        while left > 0 {
            let goal = self.reached.saturating_add(SEARCH_SLICE_US).min(self.end);
            for (run, pending) in self.runs.iter_mut().zip(self.pending.iter_mut()) {
                if !reach(run, pending, goal, &mut left)? {
                    return Ok(None);
                }
            }
            self.reached = goal;
            let [a, b] = &self.runs;
            let (ta, tb) = (a.engine.trace(), b.engine.trace());
            let (na, nb) = (ta.recs.len(), tb.recs.len());
            let common = na.min(nb);
            while self.compared < common {
                let i = self.compared;
                let (ra, rb) = (
                    ta.recs.get(i).expect("index < len"),
                    tb.recs.get(i).expect("index < len"),
                );
                if !diff::same_rec(ta, &ra, tb, &rb) {
                    return Ok(Some(DivState::Found(diff::divergence(
                        &*a.engine, &*b.engine, i,
                    ))));
                }
                self.compared += 1;
            }
            if na != nb {
                // Both reached `goal`: the longer side has a record the other does not.
                return Ok(Some(DivState::Found(diff::divergence(
                    &*a.engine, &*b.engine, common,
                ))));
            }
            if goal >= self.end {
                return Ok(Some(DivState::Same));
            }
        }
        Ok(None)
    }
}

/// Advance `run` to `goal`, applying `pending` actions at their times, within `left` steps.
/// Returns whether it got there. An action the run refuses is skipped (the side's own replay
/// says so in its banner).
fn reach(
    run: &mut Run,
    pending: &mut Vec<RecordedAction>,
    goal: Micros,
    left: &mut u64,
) -> Result<bool, SimError> {
    loop {
        let e = &mut run.engine;
        let stop = pending.first().map_or(goal, |a| a.at.0.min(goal));
        let n = e.run_until(stop, *left)?;
        // A budget used up may have left events due at `stop` itself.
        let exhausted = n >= *left;
        *left -= n;
        if exhausted || e.now() < stop {
            return Ok(false);
        }
        if pending.first().is_some_and(|a| a.at.0 <= e.now()) {
            let a = pending.remove(0);
            let _ = e.apply_user_action(a.action);
            continue;
        }
        return Ok(e.now() >= goal);
    }
}

/// The compare session: the other side and what is known of how it differs.
pub struct Compare {
    /// The other side's variant.
    pub variant: String,
    /// The other side: a model driven by this one (never compared itself).
    pub other: Rc<RefCell<Model>>,
    pub div: DivState,
    /// Matrix cells (observer, peer) that differ between the sides at the cursor, once the
    /// cursor is at or after the divergence (`None`: not computed now, see
    /// [`LIVE_CELLS_MAX_NODES`]).
    pub cells: Option<Vec<(NodeId, NodeId)>>,
    /// The cursors (this side, other side) `cells` is for.
    cells_at: (u64, u64),
    /// This side's `session_rev` the other side was built for.
    built_for: u64,
}

impl Compare {
    pub fn divergence(&self) -> Option<&Divergence> {
        match &self.div {
            DivState::Found(d) => Some(d),
            _ => None,
        }
    }

    /// One line on where the search stands, for the compare bar.
    pub fn status(&self) -> String {
        match &self.div {
            DivState::Searching(s) => format!(
                "looking for the first divergence… (compared up to {})",
                fmt_time(s.reached())
            ),
            DivState::Found(d) => {
                format!("first divergence at {} on {}", fmt_time(d.time_us), d.node)
            }
            DivState::Same => {
                "no divergence: both variants record the same events to the end".to_string()
            }
            DivState::Failed(e) => format!("the search for a divergence stopped: {e}"),
        }
    }
}

/// A record (`rec_json`) as one short line: its kind, verb, peers and text.
pub fn rec_line(v: Option<&serde_json::Value>) -> String {
    let Some(v) = v else {
        return "nothing by then".into();
    };
    let mut parts = Vec::new();
    for k in [
        "node", "kind", "verb", "to", "from", "reason", "level", "text", "state", "action",
    ] {
        if let Some(x) = v.get(k) {
            let s = match x {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            parts.push(match k {
                "to" => format!("→ {s}"),
                "from" => format!("← {s}"),
                _ => s,
            });
        }
    }
    clusterscope_core::text::clip(&parts.join(" "), 160)
}

/// The matrix cells that differ between two sides (same topology), row-major.
pub fn differing_cells(a: &Model, b: &Model) -> Vec<(NodeId, NodeId)> {
    let (ea, eb) = (&*a.run.engine, &*b.run.engine);
    if ea.matrix().is_none() || eb.matrix().is_none() || a.n() != b.n() {
        return Vec::new();
    }
    let n = a.n() as NodeId;
    let mut out = Vec::new();
    for o in 0..n {
        for p in 0..n {
            let (x, y) = (ea.matrix_cell(o, p), eb.matrix_cell(o, p));
            if x.class != y.class || x.text != y.text || x.mark != y.mark {
                out.push((o, p));
            }
        }
    }
    out
}

impl Model {
    /// Open compare with variant `v` beside this one, or close it (`None`).
    pub(super) fn set_compare(&mut self, v: Option<String>) {
        let Some(v) = v else {
            if self.compare.take().is_some() {
                self.session_rev += 1;
            }
            return;
        };
        match self.build_compare(&v) {
            Ok(c) => {
                self.compare = Some(c);
                self.session_rev += 1;
                if let Some(c) = self.compare.as_mut() {
                    c.built_for = self.session_rev;
                }
                self.advance_search(SEARCH_OPEN_STEPS);
            }
            Err(e) => self.error(format!(
                "Could not compare with “{v}”: {} Nothing was changed.",
                sentence(&e)
            )),
        }
    }

    fn build_compare(&self, v: &str) -> Result<Compare, String> {
        if v == self.run.variant {
            return Err(format!(
                "“{v}” is the variant shown; pick another one to compare with"
            ));
        }
        let sc = &self.run.scenario;
        sc.variant(v)?;
        let opts = RunOptions {
            limits: self.limits.clone(),
            ..run_options()
        };
        let seed = Some(self.run.seed);
        let table = toml::Table::new();
        let mine = self.run.engine.user_actions().to_vec();
        let mut timed = mine.clone();
        timed.extend(self.pending_timed.iter().cloned());
        timed.sort_by_key(|a| a.at.0);

        let run = Run::new(sc.clone(), v, seed, &table, &opts)?;
        let mut o = Model::from_run(self.catalog.clone(), self.scenario_ref.clone(), run);
        o.limits = self.limits.clone();
        o.pending_timed = timed.clone();
        o.selected = self.selected.filter(|i| (*i as usize) < o.n());
        o.seq_nodes = self.seq_nodes.clone();

        let search_opts = RunOptions {
            checkpointing: false,
            ..opts
        };
        let mut a = Run::new(sc.clone(), &self.run.variant, seed, &table, &search_opts)?;
        a.engine.set_user_actions(mine);
        let b = Run::new(sc.clone(), v, seed, &table, &search_opts)?;
        let search = Search {
            runs: [a, b],
            pending: [self.pending_timed.clone(), timed],
            compared: 0,
            reached: 0,
            end: self.end(),
        };
        Ok(Compare {
            variant: v.to_string(),
            other: Rc::new(RefCell::new(o)),
            div: DivState::Searching(Box::new(search)),
            cells: None,
            cells_at: (u64::MAX, u64::MAX),
            built_for: self.session_rev,
        })
    }

    /// Work on the divergence search for about `budget` steps.
    fn advance_search(&mut self, budget: u64) {
        let Some(c) = self.compare.as_mut() else {
            return;
        };
        if let DivState::Searching(s) = &mut c.div {
            match s.advance(budget) {
                Ok(Some(d)) => c.div = d,
                Ok(None) => {}
                Err(e) => c.div = DivState::Failed(e.to_string()),
            }
        }
    }

    /// Keep the other side of a compare in step with this one (see the module doc). Returns
    /// whether compare is on (the view then changes with every message).
    pub(crate) fn sync_compare(&mut self) -> bool {
        let Some(built_for) = self.compare.as_ref().map(|c| c.built_for) else {
            return false;
        };
        if built_for != self.session_rev {
            let v = self
                .compare
                .take()
                .map(|c| c.variant)
                .expect("compare is on");
            if v != self.run.variant && self.run.scenario.variant(&v).is_ok() {
                match self.build_compare(&v) {
                    Ok(c) => self.compare = Some(c),
                    Err(e) => self.error(format!("Compare closed: {}", sentence(&e))),
                }
            } else {
                self.info(format!(
                    "Compare closed: this session has no other variant “{v}” to compare with."
                ));
            }
            if self.compare.is_none() {
                self.session_rev += 1;
                return true;
            }
        }
        let budget = self.steps_per_frame;
        self.advance_search(budget);
        let mut c = self.compare.take().expect("compare is on");
        {
            let mut o = c.other.borrow_mut();
            let sel = self.selected.filter(|i| (*i as usize) < o.n());
            if o.selected != sel {
                o.selected = sel;
                o.prev_node = None;
            }
            if o.now() != self.now() || o.cursor() == 0 {
                o.goto_time(self.now());
            }
        }
        let after = c.divergence().is_some_and(|d| self.now() >= d.time_us);
        let at = (self.cursor(), c.other.borrow().cursor());
        if !after {
            c.cells = Some(Vec::new());
            c.cells_at = at;
        } else if self.busy() && self.n() > LIVE_CELLS_MAX_NODES {
            c.cells = None;
        } else if c.cells.is_none() || c.cells_at != at {
            c.cells = Some(differing_cells(self, &c.other.borrow()));
            c.cells_at = at;
        }
        self.compare = Some(c);
        true
    }

    /// Move this (other) side to virtual time `t`: forward by computing (replaying actions due),
    /// back through the nearest checkpoint. Synchronous: the side it follows already sized the
    /// move to a frame.
    fn goto_time(&mut self, t: Micros) {
        let t = t.min(self.end());
        self.snapshot();
        let trace = self.run.engine.trace();
        // Within the computed trace (back, or forward by more than a few steps) a jump restores
        // the nearest checkpoint; beyond it, compute forward (applying actions due).
        let within = t <= nav::frontier_time(trace);
        let k = nav::step_at_time(trace, t).unwrap_or(0);
        if within && (t < self.now() || k > self.cursor() + JUMP_FORWARD_STEPS) {
            self.engine_ok(|m| m.run.engine.jump_to_step(k));
            self.engine_ok(|m| m.run.engine.run_until(t, 1).map(|_| ()));
        } else {
            let mut left = u64::MAX;
            self.engine_ok(|m| m.forward_to_time(t, &mut left).map(|_| ()));
        }
        self.after_move();
    }

    /// Both sides to the first divergence (finishing the search first if need be).
    pub(super) fn jump_to_divergence(&mut self) {
        if self.compare.is_none() {
            self.info("Compare is off: pick a variant to compare with first.".into());
            return;
        }
        while matches!(
            self.compare.as_ref().map(|c| &c.div),
            Some(DivState::Searching(_))
        ) {
            self.advance_search(1 << 20);
        }
        self.stop();
        let c = self.compare.as_ref().expect("compare is on");
        match &c.div {
            DivState::Found(d) => {
                let t = d.time_us;
                self.scrub_to(t);
            }
            DivState::Same => {
                let msg = c.status();
                self.info(format!("Nothing to jump to: {msg}."));
            }
            DivState::Failed(e) => {
                let e = e.clone();
                self.error(format!("The search for a divergence stopped: {e}"));
            }
            DivState::Searching(_) => unreachable!("searched to the end"),
        }
    }
}
