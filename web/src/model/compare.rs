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
//! The first behavioural divergence (`clusterscope_core::diff`: events, then the state where the
//! log lines say the paths differ, a log line's wording only when nothing else differs) is found
//! with two runs of its own (no checkpoints) advanced in lockstep, one moment at a time, by
//! `diff::Lockstep`, a budget of steps at a time ([`SEARCH_OPEN_STEPS`] when compare opens, then
//! a frame's budget with every message, or to the end on "jump to divergence"), so opening a
//! compare of a large cluster never blocks the page for long.
//!
//! In the split release build compare's code (opening, following, the search, the bar and the
//! sides: `ui::compare`) is the part [`PART`] of the wasm (`crate::in_part!`, issue 44), fetched
//! when compare is first opened: the message waits for it in `Model::download` as a scenario's
//! model does (`store.rs`; a link with compare on too), a failed fetch is an error naming the
//! part, the session unchanged, and picking the variant again retries.

use super::*;
use clusterscope_core::diff::{self, DivKind, Divergence};
use clusterscope_core::SimError;

/// The part of the split release build's wasm that holds compare's code (see the module doc).
pub const PART: &str = "compare";

thread_local! {
    /// The variant a compare was asked with while its part was not loaded ([`take_wanted`]).
    static WANTED: std::cell::Cell<Option<String>> = const { std::cell::Cell::new(None) };
}

/// What [`in_part`] runs.
enum Call {
    /// Open compare with this variant ([`Model::set_compare`]).
    Open(String),
    /// Keep the other side in step ([`Model::sync_compare`]).
    Sync,
    /// [`Model::jump_to_divergence`].
    Jump,
}

/// `call` run in compare's part (`crate::in_part!`): what it answers (whether the page changed,
/// for `Sync`), or `None` when the part is not loaded (nothing ran). One split point for the
/// three: code two points share stays in the main module (`wasm-split-cli`).
fn in_part(m: &mut Model, call: Call) -> Option<bool> {
    crate::in_part!(compare, enter, (&'_ mut Model, Call) => bool, (m, call),
    |(m, call): (&mut Model, Call)| match call {
        Call::Open(v) => {
            m.open_compare(v);
            true
        }
        Call::Sync => m.sync_compare_on(),
        Call::Jump => {
            m.jump_to_divergence_on();
            true
        }
    })
}

/// The variant compare was last asked to open with while [`PART`] was not loaded (the split
/// release build): `store.rs` fetches the part and asks again.
pub fn take_wanted() -> Option<String> {
    WANTED.with(|w| w.take())
}

/// Steps (of both search runs together) spent on finding the divergence when compare opens.
pub const SEARCH_OPEN_STEPS: u64 = 200_000;
/// Above this many nodes, the differing matrix cells are recomputed only when the replay
/// settles (not in every frame while playing): N x N cells per side cost too much per frame.
pub const LIVE_CELLS_MAX_NODES: usize = 64;

/// Where the search for the first divergence stands.
pub enum DivState {
    /// Not decided yet: the search runs have been compared up to [`Search::reached`].
    Searching(Box<Search>),
    /// The first behaviour that differs.
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
    /// What has been compared so far (`diff::Lockstep`).
    lockstep: diff::Lockstep,
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
            // The next moment: the earlier of both runs' next events and pending actions.
            let [a, b] = &mut self.runs;
            let mut goal = diff::Lockstep::next_goal(&mut *a.engine, &mut *b.engine, self.end);
            for p in &self.pending {
                if let Some(x) = p.first() {
                    goal = goal.min(x.at.0.max(self.reached));
                }
            }
            for (run, pending) in self.runs.iter_mut().zip(self.pending.iter_mut()) {
                if !reach(run, pending, goal, &mut left)? {
                    return Ok(None);
                }
            }
            self.reached = goal;
            let [a, b] = &self.runs;
            if let Some(d) = self.lockstep.compare(&*a.engine, &*b.engine) {
                return Ok(Some(DivState::Found(d)));
            }
            if goal >= self.end {
                let l = std::mem::take(&mut self.lockstep);
                return Ok(Some(l.finish().map_or(DivState::Same, DivState::Found)));
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
    /// The other side is not at this side's time yet (it follows over frames, see
    /// [`Model::follow`]): the page stays busy meanwhile.
    pub behind: bool,
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
            DivState::Found(d) => format!(
                "first divergence at {} on {}: {}",
                fmt_time(d.time_us),
                d.node,
                match d.kind {
                    DivKind::Event => "what happens differs",
                    DivKind::State => "the state differs",
                    DivKind::Log => "a log line's wording only",
                }
            ),
            DivState::Same => {
                "no divergence: both variants behave and log the same to the end".to_string()
            }
            DivState::Failed(e) => format!("the search for a divergence stopped: {e}"),
        }
    }
}

/// The matrix cells that differ between two sides (same topology), row-major. Up to
/// [`LIVE_CELLS_MAX_NODES`] nodes, a cell differs when anything of it does (class, text, mark);
/// above, where the matrix is drawn as one pixel block per cell's class, when its class does:
/// what the picture shows (the whole cells' sentences cost N x N formatted strings per side,
/// most of a compare jump's time at 251 nodes, and after a divergence nearly every sentence
/// differs in a heartbeat number anyway).
pub fn differing_cells(a: &Model, b: &Model) -> Vec<(NodeId, NodeId)> {
    differing_cells_by(a, b, a.n() > LIVE_CELLS_MAX_NODES)
}

/// [`differing_cells`] comparing the classes alone (`classes_only`) or whole cells.
pub fn differing_cells_by(a: &Model, b: &Model, classes_only: bool) -> Vec<(NodeId, NodeId)> {
    let (ea, eb) = (&*a.run.engine, &*b.run.engine);
    if ea.matrix().is_none() || eb.matrix().is_none() || a.n() != b.n() {
        return Vec::new();
    }
    let n = a.n() as NodeId;
    // Classes only: a block per side, all n x n cells row-major, compared below.
    let (mut ca, mut cb) = (Vec::new(), Vec::new());
    if classes_only {
        let all: Vec<NodeId> = (0..n).collect();
        ea.matrix_classes(&all, &all, &mut ca);
        eb.matrix_classes(&all, &all, &mut cb);
    }
    let mut out = Vec::new();
    for o in 0..n {
        for p in 0..n {
            let differs = if classes_only {
                let i = (o * n + p) as usize;
                ca[i] != cb[i]
            } else {
                let (x, y) = (ea.matrix_cell(o, p), eb.matrix_cell(o, p));
                x.class != y.class || x.text != y.text || x.mark != y.mark
            };
            if differs {
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
            if let Some(c) = self.compare.take() {
                self.park_other(c);
                self.session_rev += 1;
            }
            return;
        };
        if in_part(self, Call::Open(v.clone())).is_none() {
            WANTED.with(|w| w.set(Some(v)));
        }
    }

    /// [`Model::set_compare`] with a variant, compare's part loaded.
    fn open_compare(&mut self, v: String) {
        match self.build_compare(&v) {
            Ok(c) => {
                self.compare = Some(c);
                self.budget_kept_runs();
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

    fn build_compare(&mut self, v: &str) -> Result<Compare, String> {
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
        // Nearly in order already (the recorded actions are): the small insertion sort.
        clusterscope_core::small_sort::sort_by_key(&mut timed, |a| a.at.0);

        // A run of that variant kept from a variant switch (issue 20) is taken as it is, computed
        // as far as it was: no second copy, no recomputation (only without recorded actions,
        // which the other side replays by time).
        let key = runs::RunKey::new(&self.scenario_ref, v, self.run.seed, &[]);
        let kept = if timed.is_empty() {
            self.runs.take(&key)
        } else {
            None
        };
        let (run, kept) = match kept {
            Some(k) => (k.run, Some((k.samples, k.marks))),
            None => (Run::new(sc.clone(), v, seed, &table, &opts)?, None),
        };
        let mut o = Model::from_run(self.catalog.clone(), self.scenario_ref.clone(), run);
        o.snapshot_of = self.snapshot_of;
        if let Some((samples, marks)) = kept {
            o.samples = samples;
            o.marks = marks;
            o.marks.update(&*o.run.engine);
        }
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
            lockstep: diff::Lockstep::default(),
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
            behind: false,
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
    /// whether compare itself changed what the page shows beyond what this side's message did
    /// (opened, rebuilt or closed, the search decided): the sides move with this side's
    /// messages, so a message that needs no render (a quiet frame of a seek) needs none here
    /// either.
    pub(crate) fn sync_compare(&mut self) -> bool {
        if self.compare.is_none() {
            return false;
        }
        // Compare is on only once its part is in (`set_compare`).
        in_part(self, Call::Sync).unwrap_or(false)
    }

    /// [`Model::sync_compare`] with compare on.
    fn sync_compare_on(&mut self) -> bool {
        let Some(built_for) = self.compare.as_ref().map(|c| c.built_for) else {
            return false;
        };
        if built_for != self.session_rev {
            let old = self.compare.take().expect("compare is on");
            let v = old.variant.clone();
            // Parked first, so the rebuild takes it back when its key still matches.
            self.park_other(old);
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
                // The budget came back whole when the old side was parked.
                self.session_rev += 1;
                return true;
            }
        }
        let mut changed = built_for != self.session_rev;
        let searching = self.searching();
        let budget = self.steps_per_frame;
        self.advance_search(budget);
        changed |= searching != self.searching();
        let mut c = self.compare.take().expect("compare is on");
        {
            let mut o = c.other.borrow_mut();
            let sel = self.selected.filter(|i| (*i as usize) < o.n());
            if o.selected != sel {
                o.selected = sel;
                o.prev_node = None;
            }
            if o.now() != self.now() || o.cursor() == 0 {
                let was_behind = c.behind;
                let replays = o.frontier_time() >= self.now();
                c.behind = !o.follow(self.now(), self.follow_budget(was_behind, replays));
                // Caught up after this side stopped: show where it arrived.
                changed |= was_behind && !c.behind;
            } else {
                c.behind = false;
            }
        }
        if !self.busy() {
            self.compare = Some(c);
            self.budget_kept_runs();
            c = self.compare.take().expect("compare is on");
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
        changed
    }

    /// A closed or rebuilt compare's other side goes back to the kept runs (one holder of runs:
    /// `model/runs.rs`), computed as far as it was with its samples and marks, so a variant
    /// switch to it or a compare with it again takes it back instead of computing it. Keyed by
    /// its own variant, seed and recorded actions; the budget trims as for any parked run. Call
    /// with the compare session taken out of `self.compare`: the kept runs get their whole
    /// budget back first.
    fn park_other(&mut self, c: Compare) {
        self.budget_kept_runs();
        // The page's components hold the side only while rendering: between messages the
        // compare session is its one owner.
        let Ok(cell) = Rc::try_unwrap(c.other) else {
            return;
        };
        let o = cell.into_inner();
        let key = runs::RunKey::of(&self.scenario_ref, &o.run);
        self.runs.park(key, o.run, o.samples, o.marks);
    }

    /// The kept runs' budget while compare is open: what is left of [`runs::KEPT_RUNS_BYTES`]
    /// beside the other side's run (it is a run kept beside the one on screen too); all of it
    /// once compare closes. The oldest kept runs go first.
    pub(crate) fn budget_kept_runs(&mut self) {
        let other = self
            .compare
            .as_ref()
            .map_or(0, |c| runs::run_bytes(&c.other.borrow().run));
        self.runs.budget = runs::KEPT_RUNS_BYTES.saturating_sub(other);
        self.runs.trim();
    }

    /// Whether the divergence search is still going.
    fn searching(&self) -> bool {
        matches!(
            self.compare.as_ref().map(|c| &c.div),
            Some(DivState::Searching(_))
        )
    }

    /// Move this (other) side toward virtual time `t` with about `budget` steps of replay or
    /// computation: back, or forward past a checkpoint within the computed trace, through the
    /// nearest checkpoint (a restore, no steps), then forward (applying actions due). Returns
    /// whether it got there; if not, the next call goes on from where this one stopped.
    pub(crate) fn follow(&mut self, t: Micros, budget: u64) -> bool {
        let t = t.min(self.end());
        self.snapshot();
        let trace = self.run.engine.trace();
        // At or beyond the last record (the end) that is the furthest step computed: this side
        // then goes through its last checkpoint too, not step by step from where it stood.
        let k = nav::step_at_time(trace, t);
        let from = self.run.engine.replay_from(k);
        if t < self.now() || from > self.cursor() {
            self.engine_ok(|m| m.run.engine.jump_to_step(from));
        }
        self.forward_within(t, budget)
    }

    /// Steps the other side of a compare may take for one message: while playing, as many as
    /// it needs (both sides move in lockstep, each a frame's slice); while seeking, a frame's
    /// budget like this side's; after a jump this side made at once, what such a jump may take
    /// ([`JUMP_SYNC_MS`] at this side's measured cost per replayed step). What is left is done in the
    /// next frames (the page stays busy until both sides are there).
    /// Once behind, each later frame gets a seek's frame ([`SEEK_FRAME_MS`]).
    /// `other_replays`: the other side has computed up to this side's time (its move is a replay,
    /// not new steps).
    fn follow_budget(&self, behind: bool, other_replays: bool) -> u64 {
        let (ms, per_step) = if self.playing {
            return u64::MAX;
        } else if self.seek.is_some() {
            return self.steps_per_frame;
        } else if behind {
            (SEEK_FRAME_MS, self.step_cost_ms)
        } else if other_replays {
            (JUMP_SYNC_MS, self.replay_cost_est())
        } else {
            (JUMP_SYNC_MS, self.step_cost_ms)
        };
        ((ms / per_step.max(1e-6)) as u64).max(MIN_STEPS_PER_FRAME)
    }

    /// Whether the other side of a compare is still on its way to this side's time.
    pub fn compare_behind(&self) -> bool {
        self.compare.as_ref().is_some_and(|c| c.behind)
    }

    /// Both sides to the first divergence (finishing the search first if need be).
    pub(super) fn jump_to_divergence(&mut self) {
        if self.compare.is_none() {
            self.info("Compare is off: pick a variant to compare with first.".into());
            return;
        }
        // Compare is on only once its part is in (`set_compare`).
        let _ = in_part(self, Call::Jump);
    }

    /// [`Model::jump_to_divergence`] with compare on.
    fn jump_to_divergence_on(&mut self) {
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
                // There, and its node selected: its inspector shows what differs.
                let t = d.time_us;
                let node = self
                    .run
                    .scenario
                    .topo
                    .names
                    .iter()
                    .position(|n| *n == d.node);
                self.scrub_to(t);
                if let Some(i) = node {
                    self.update(Msg::SelectNode(Some(i as NodeId)));
                }
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
