//! The app's state and every transition of it. **No DOM access here**: this module only uses
//! `clusterscope-core` and `std`, so it runs (and is tested) anywhere. Components render a
//! [`Model`] and dispatch [`Msg`]s; side effects that need the browser (storage, URL, downloads,
//! files, the animation frame) live in `crate::platform` and the components.

pub mod bookmarks;
pub mod branches;
pub mod compare;
mod cursor;
pub mod export;
pub mod history;
pub mod lecture;
mod load;
pub mod matrix_view;
mod memory;
mod msg;
pub mod nav;
pub mod runs;
pub mod samples;
pub mod seq;
pub mod speed;
pub mod teach;
pub mod timeline_fork;
pub mod trial;
pub mod user_expects;

use clusterscope_core::engine::action::{Action, RecordedAction};
use clusterscope_core::engine::NodeId;
use clusterscope_core::limits::Limits;
use clusterscope_core::model::MatrixSummary;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::{builtin, Scenario};
use clusterscope_core::session::{self, ScenarioRef, Session, PERMALINK_VERSION};
use clusterscope_core::time::{fmt_time, Micros};
pub use memory::PAGE_HEAP_BYTES;
pub use msg::Msg;
use nav::{Marks, NavKind};
use samples::Samples;
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// What a model's inspector keeps of a node before a cursor move, to highlight what the move
/// changed (`crate::models::snapshot`; `None`: nothing).
pub type Snapshot = fn(&Run, NodeId) -> Option<Rc<dyn std::any::Any>>;

/// The scenario opened when there is no link and no saved session.
pub const DEFAULT_SCENARIO: &str = "cassandra-21636-packet-loss";
/// Slowest and fastest replay speeds (virtual seconds per real second).
pub const SPEED_MIN: f64 = 1e-4;
pub const SPEED_MAX: f64 = 1e3;
/// Per-frame step budget bounds; the budget adapts to keep a frame's simulation work under
/// [`PLAY_FRAME_MS`] while playing (rendering needs the rest of a 16 ms frame).
pub const MIN_STEPS_PER_FRAME: u64 = 20;
pub const MAX_STEPS_PER_FRAME: u64 = 200_000;
/// Simulation time per animation frame the step budget aims at, while playing and while seeking.
pub const PLAY_FRAME_MS: f64 = 6.0;
pub const SEEK_FRAME_MS: f64 = 45.0;
/// While playing falls behind the chosen speed, the simulation gets up to half of each frame's
/// real time (the rest renders), at most this much: the picture updates less often, and playing
/// gets closer to the speed asked for (issue 20).
pub const PLAY_FRAME_MAX_MS: f64 = 40.0;
/// The same bound in compare mode, where a frame also renders the other side: both sides'
/// simulation stays within this, so that where two large renders take most of a frame the
/// picture keeps near 60 fps (issue 18: frames <= 16 ms while playing both sides) rather than
/// the frame growing with the simulation's share of it.
pub const PLAY_FRAME_COMPARE_MAX_MS: f64 = 10.0;
/// A boosted compare frame's simulation share is also at most this less the measured time of a
/// render of both sides (smoothed, `Model::render_ms_est`), and at least [`PLAY_FRAME_MS`]: a
/// machine that renders two 251-node sides in 7-8 ms keeps the frame near 60 fps instead of
/// giving the simulation a fixed 10 ms on top.
pub const COMPARE_FRAME_MS: f64 = 15.0;
/// While a seek computes (End, a link's cursor, a switch), the app renders its progress at most
/// this often; the frames in between only compute (issue 20: rendering every frame made End
/// several times slower than the engine).
pub const SEEK_RENDER_MS: f64 = 500.0;
/// A jump whose replay is estimated to fit in this many ms happens at once; a longer one shows
/// the restored checkpoint at once and replays the rest in frames (each frame also renders, so
/// that costs more time in all). The estimate is the measured cost of a replayed step
/// (`Model::replay_cost_est`; until a jump has been timed, half the cost of computing one, which
/// also records it): a replay of one checkpoint span of the 251-node rolling upgrade (~55k
/// events, ~110-150 ms in Chromium) mostly happens at once, in compare on both sides.
pub const JUMP_SYNC_MS: f64 = 150.0;
/// Cost of one simulation step assumed until one is measured (251 nodes in Chromium: ~6 µs).
pub const STEP_COST_MS_GUESS: f64 = 0.01;
/// Most nodes shown in the sequence diagram.
pub const MAX_SEQ_NODES: usize = 6;
/// Above this many nodes the sequence diagram follows the selected node and the peers it
/// exchanged messages with (until the person picks its nodes), instead of the first few nodes,
/// which in a large cluster rarely talk to each other.
pub const SEQ_AUTO_ABOVE: usize = 8;
/// A line in exported scenario files naming the variant the recorded actions belong to.
pub const VARIANT_MARKER: &str = "# clusterscope: variant = ";
/// A line in exported scenario files naming the virtual time (µs) the cursor was at (an import
/// opens there).
pub const CURSOR_MARKER: &str = "# clusterscope: cursor at us = ";

/// A built-in scenario in the picker.
#[derive(Clone, Debug, PartialEq)]
pub struct CatalogEntry {
    pub name: String,
    pub title: String,
    pub nodes: u32,
}

/// What identifies a memoised matrix summary ([`Model::matrix_summary`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct SummaryKey {
    run: usize,
    session: u64,
    step: u64,
    frontier: u64,
    now: Micros,
    limit: usize,
}

impl SummaryKey {
    fn same_state(&self, o: &SummaryKey) -> bool {
        SummaryKey { limit: 0, ..*self } == SummaryKey { limit: 0, ..*o }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Seek {
    /// Advance to this virtual time.
    Time(Micros),
    /// Advance to this step count.
    Step(u64),
    /// Advance until a step produces a matching record.
    Until(NavKind),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BannerKind {
    Error,
    Info,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Banner {
    pub kind: BannerKind,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
    pub fn parse(s: &str) -> Theme {
        match s {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::Auto,
        }
    }
    pub fn next(self) -> Theme {
        match self {
            Theme::Auto => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Auto,
        }
    }
}

/// The app state.
pub struct Model {
    pub catalog: Rc<Vec<CatalogEntry>>,
    pub scenario_ref: ScenarioRef,
    pub run: Run,
    /// Captions of the current variant, by time.
    pub captions: Vec<(Micros, String)>,
    /// Each caption's index in the scenario file (what its checks name), parallel to `captions`.
    pub caption_index: Vec<u32>,
    /// The last finished check of the session's expectations (`ui::checks`): its session
    /// revision and results, which the caption reads to say whether its claims held.
    pub checked: Option<(u64, Rc<Vec<clusterscope_core::runner::ExpectResult>>)>,
    pub playing: bool,
    /// Virtual seconds per real second.
    pub speed: f64,
    frac_us: f64,
    pub seek: Option<Seek>,
    pub steps_per_frame: u64,
    budget_used_up: bool,
    last_tick_steps: u64,
    /// Measured cost of one simulation step (smoothed), for sizing frames: computing new
    /// steps, which also records them (about twice a replay's cost per step).
    pub step_cost_ms: f64,
    /// Measured cost of one replayed step (smoothed over jumps that replayed enough steps to
    /// time), for deciding whether a jump's replay fits [`JUMP_SYNC_MS`]; `None` until measured.
    pub replay_cost_ms: Option<f64>,
    /// Measured time of the app's render after a frame's simulation (smoothed over frames that
    /// rendered; 0 until one is measured): a boosted compare frame leaves it room
    /// ([`COMPARE_FRAME_MS`]).
    pub render_ms_est: f64,
    pub selected: Option<NodeId>,
    pub seq_nodes: Vec<NodeId>,
    /// The sequence diagram's nodes follow the selection and its partners ([`SEQ_AUTO_ABOVE`]).
    pub seq_auto: bool,
    pub selected_link: Option<(NodeId, NodeId)>,
    pub selected_msg: Option<u64>,
    pub banner: Option<Banner>,
    pub samples: Samples,
    pub marks: Marks,
    /// What the model's inspector keeps of the selected node before the last cursor move, to
    /// highlight what the move changed (taken by [`Model::snapshot_of`]; gossip: the endpoint
    /// state map).
    pub prev_node: Option<(NodeId, std::rc::Rc<dyn std::any::Any>)>,
    /// How [`Model::prev_node`] is taken: handed in by the app ([`Model::with_snapshots`],
    /// `crate::models::snapshot`), because the state does not know the model panels that read it.
    snapshot_of: Snapshot,
    /// User actions from another variant or seed, re-applied when the replay reaches their time.
    pub pending_timed: Vec<RecordedAction>,
    /// Bumps whenever the session (scenario, variant, seed, actions) changes.
    pub session_rev: u64,
    /// The last matrix summaries asked of the state shown (see [`Model::matrix_summary`]).
    summary_memo: RefCell<Vec<(SummaryKey, Rc<MatrixSummary>)>>,
    pub help_open: bool,
    pub theme: Theme,
    /// The limits runs and imports get (`Limits::browser()`; tests lower them).
    pub limits: Limits,
    /// An action waiting for consent because it would discard later recorded actions.
    pub confirm: Option<history::PendingDiscard>,
    /// The session before the last action that discarded recorded actions ([`Msg::Undo`]).
    pub undo: Option<history::UndoPoint>,
    /// Playing stops at each caption's time (a lecture: read, explain, play on).
    pub caption_pause: bool,
    /// Runs of other variants and seeds kept for switching back (issue 20).
    pub runs: runs::Runs,
    /// What playing achieves, in virtual seconds per real second, and whether it falls behind
    /// the chosen speed ([`speed::Achieved`]).
    pub achieved: speed::Achieved,
    /// The scrubber is being dragged ([`Msg::SetScrubbing`]).
    pub scrubbing: bool,
    /// Real time since the last render while a seek computes (renders are throttled to
    /// [`SEEK_RENDER_MS`]).
    seek_quiet_ms: f64,
    /// Timeline zoom, presentation mode, message-by-message mode, explain ([`teach::Teach`]).
    pub teach: teach::Teach,
    /// Compare mode: the other variant's side, on this side's cursor (`compare.rs`).
    pub compare: Option<compare::Compare>,
    /// The session's branches (a fork or an action at an earlier cursor keeps the old future).
    pub branches: branches::Branches,
    /// A session opened from a link, until its recorded actions have run: the autosave keeps
    /// the session shown before it meanwhile (`trial.rs`).
    pub trial: Option<trial::Trial>,
    /// The page's live heap at which the simulation stops ([`PAGE_HEAP_BYTES`]; tests lower it).
    pub heap_limit: usize,
    /// Named bookmarks on the timeline, by time (`bookmarks.rs`).
    pub bookmarks: Vec<clusterscope_core::session::Bookmark>,
    /// A restored session's exact cursor time, applied once the seek to its step arrives
    /// (`Session::at_us`: the cursor may stand between two events).
    pub step_time: Option<Micros>,
    /// The cursor's time when a "nothing more that way" notice was shown: the notice goes when
    /// the cursor moves (`bookmarks.rs`, [`Model::drop_stale_notice`]).
    pub notice_at: Option<(Micros, String)>,
    /// The form naming a new bookmark at the cursor is open (`ui::bookmarks`).
    pub bookmark_form: bool,
    /// Expectations the person added (`user_expects.rs`): checked, swept and exported with the
    /// scenario's own.
    pub user_expects: Vec<clusterscope_core::scenario::ExpectSpec>,
}

/// The longest banner text: a message quoting a huge input is cut here.
pub const MAX_BANNER_CHARS: usize = 600;

pub fn run_options() -> RunOptions {
    RunOptions {
        checkpointing: true,
        body_budget: 4 << 20,
        limits: Limits::browser(),
    }
}

/// The built-in scenarios, for the picker.
pub fn catalog() -> Vec<CatalogEntry> {
    builtin::all()
        .into_iter()
        .map(|s| CatalogEntry {
            nodes: s.topo.len(),
            name: s.raw.name,
            title: s.raw.title,
        })
        .collect()
}

fn resolve(r: &ScenarioRef) -> Result<Scenario, String> {
    match r {
        ScenarioRef::Builtin(name) => builtin::get(name).map_err(|e| e.to_string()),
        ScenarioRef::Custom(text) => {
            Scenario::parse("scenario.toml", text, &Limits::browser()).map_err(|e| e.to_string())
        }
    }
}

/// `text` ending with one full stop (messages from core may already end with `.` or `?`).
fn sentence(text: &str) -> String {
    let t = text.trim_end();
    if t.ends_with(['.', '?', '!']) {
        t.to_string()
    } else {
        format!("{t}.")
    }
}

/// The cursor time named in an exported file's marker line, if any.
pub fn marked_cursor(text: &str) -> Option<Micros> {
    text.lines()
        .find_map(|l| l.strip_prefix(CURSOR_MARKER).map(|v| v.trim().parse().ok()))
        .flatten()
}

/// The variant named in an exported file's marker line, if any.
pub fn marked_variant(text: &str) -> Option<&str> {
    text.lines().find_map(|l| {
        l.strip_prefix(VARIANT_MARKER)
            .map(|v| v.trim().trim_matches('"'))
    })
}

impl Model {
    /// The default scenario (or the first built-in one).
    pub fn new() -> Model {
        let catalog = Rc::new(catalog());
        let name = if catalog.iter().any(|c| c.name == DEFAULT_SCENARIO) {
            DEFAULT_SCENARIO.to_string()
        } else {
            catalog
                .first()
                .map(|c| c.name.clone())
                .expect("at least one built-in scenario")
        };
        let r = ScenarioRef::Builtin(name);
        let scenario = resolve(&r).expect("built-in scenarios parse");
        let variant = Run::default_variant(&scenario);
        let run = Run::new(
            scenario,
            &variant,
            None,
            &toml::Table::new(),
            &run_options(),
        )
        .expect("built-in scenarios run");
        Model::from_run(catalog, r, run)
    }

    /// This state with the model panels' snapshots ([`Snapshot`]): the app's, and the tests'.
    pub fn with_snapshots(mut self, snapshot_of: Snapshot) -> Model {
        self.snapshot_of = snapshot_of;
        self
    }

    /// A model showing `run` (at time zero, or where a kept run compare takes stands).
    fn from_run(catalog: Rc<Vec<CatalogEntry>>, r: ScenarioRef, run: Run) -> Model {
        let mut m = Model {
            catalog,
            scenario_ref: r,
            samples: Samples::new(&*run.engine, run.scenario.duration()),
            run,
            captions: Vec::new(),
            caption_index: Vec::new(),
            checked: None,
            playing: false,
            speed: 10.0,
            frac_us: 0.0,
            seek: None,
            steps_per_frame: 2_000,
            budget_used_up: false,
            last_tick_steps: 0,
            step_cost_ms: STEP_COST_MS_GUESS,
            replay_cost_ms: None,
            render_ms_est: 0.0,
            selected: None,
            seq_nodes: Vec::new(),
            seq_auto: false,
            selected_link: None,
            selected_msg: None,
            banner: None,
            marks: Marks::default(),
            prev_node: None,
            snapshot_of: |_, _| None,
            pending_timed: Vec::new(),
            session_rev: 0,
            summary_memo: RefCell::new(Vec::new()),
            help_open: false,
            theme: Theme::Auto,
            limits: Limits::browser(),
            confirm: None,
            undo: None,
            caption_pause: false,
            runs: runs::Runs::default(),
            achieved: speed::Achieved::default(),
            scrubbing: false,
            seek_quiet_ms: 0.0,
            teach: teach::Teach::default(),
            compare: None,
            branches: Default::default(),
            trial: None,
            heap_limit: PAGE_HEAP_BYTES,
            bookmarks: Vec::new(),
            step_time: None,
            notice_at: None,
            bookmark_form: false,
            user_expects: Vec::new(),
        };
        m.after_install(true);
        m
    }

    // ---- read-only accessors for the view ----

    pub fn now(&self) -> Micros {
        self.run.engine.now()
    }
    pub fn cursor(&self) -> u64 {
        self.run.engine.steps()
    }
    pub fn end(&self) -> Micros {
        self.run.scenario.duration()
    }
    pub fn frontier(&self) -> u64 {
        self.run.engine.frontier()
    }
    pub fn frontier_time(&self) -> Micros {
        nav::frontier_time(self.run.engine.trace()).max(self.now())
    }
    /// The model's matrix summary of the state shown (`Driver::matrix_summary`), memoised: the
    /// matrix card (its list, its sentence and its aria text) and the topology each ask on every
    /// render, and at 251 nodes each answer is a pass over 63,001 cells (~0.7 ms in wasm). Keyed
    /// by everything that identifies the state: the run, the session, the step and the time.
    pub fn matrix_summary(&self, limit: usize) -> Rc<MatrixSummary> {
        /// Summaries kept: the card's three limits.
        const KEPT: usize = 4;
        let key = SummaryKey {
            run: &*self.run.engine as *const dyn clusterscope_core::model::Driver as *const ()
                as usize,
            session: self.session_rev,
            step: self.cursor(),
            frontier: self.frontier(),
            now: self.now(),
            limit,
        };
        let mut memo = self.summary_memo.borrow_mut();
        if let Some((_, v)) = memo.iter().find(|(k, _)| *k == key) {
            return v.clone();
        }
        let v = Rc::new(self.run.engine.matrix_summary(limit));
        memo.retain(|(k, _)| k.same_state(&key));
        if memo.len() >= KEPT {
            memo.remove(0);
        }
        memo.push((key, v.clone()));
        v
    }

    pub fn n(&self) -> usize {
        self.run.scenario.topo.names.len()
    }
    pub fn name(&self, id: NodeId) -> &str {
        self.run.scenario.topo.name(id)
    }
    pub fn at_end(&self) -> bool {
        self.now() >= self.end()
    }
    pub fn busy(&self) -> bool {
        self.playing || self.seek.is_some() || self.compare_behind()
    }
    /// The caption in effect at the cursor.
    pub fn caption_now(&self) -> Option<(usize, &(Micros, String))> {
        let now = self.now();
        let i = self.captions.partition_point(|c| c.0 <= now);
        i.checked_sub(1).map(|k| (k, &self.captions[k]))
    }

    /// The session as a permalink would carry it.
    pub fn session(&self) -> Session {
        Session {
            v: PERMALINK_VERSION,
            scenario: self.scenario_ref.clone(),
            variant: self.run.variant.clone(),
            seed: self.run.seed,
            actions: self.run.engine.user_actions().to_vec(),
            cursor: self.cursor(),
            selected: self.selected.map(|i| self.name(i).to_string()),
            compare: self.compare.as_ref().map(|c| c.variant.clone()),
            branches: self.branch_refs(),
            branch: self.branches.current,
            at_us: Some(self.now()),
            bookmarks: self.bookmarks.clone(),
            expects: self.user_expects.clone(),
        }
    }

    /// The session as a scenario file whose recorded actions replay exactly.
    pub fn export_scenario(&self) -> Result<String, String> {
        let body = session::export_scenario(
            &self.checked_scenario().1,
            self.run.seed,
            self.run.engine.user_actions(),
        )?;
        // The session line carries everything a permalink does (branches, bookmarks, the exact
        // cursor time, selection, compare); the two markers before it say the same for a reader
        // (and for files exported before the session line).
        Ok(format!(
            "# Exported from Clusterscope at {} (step {}).\n{VARIANT_MARKER}\"{}\"\n{CURSOR_MARKER}{}\n{}{body}",
            fmt_time(self.now()),
            self.cursor(),
            self.run.variant,
            self.now(),
            session::session_line(&self.session(), self.run.scenario.name()),
        ))
    }

    /// The trace up to the cursor as JSON lines.
    pub fn export_trace(&self) -> String {
        let t = self.run.engine.trace();
        export::trace_jsonl(
            t,
            &self.run.scenario.topo,
            t.rec_index_at_step(self.cursor()),
        )
    }

    /// Suggested file name stem for downloads.
    pub fn file_stem(&self) -> String {
        format!(
            "{}-{}-seed{}",
            self.run.scenario.name(),
            self.run.variant,
            self.run.seed
        )
    }

    // ---- transitions ----

    /// Apply one message. Returns whether anything visible changed.
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::LoadBuiltin(name) => {
                // A new scenario: the run replaced is dropped (kept runs stay within their
                // budget and are taken back only for their own scenario).
                if self
                    .load(ScenarioRef::Builtin(name), None, None, None, None)
                    .is_some()
                {
                    self.bookmarks.clear();
                    self.user_expects.clear();
                }
            }
            Msg::SetVariant(v) => self.switch(Some(v), None),
            Msg::SetSeed(s) => self.switch(None, Some(s)),
            Msg::ImportScenario { file, text } => self.import(&file, text),
            Msg::ImportFile { file, bytes } => {
                let max = self.limits.max_scenario_bytes;
                match clusterscope_core::text::scenario_text(&file, bytes, max) {
                    Ok(text) => self.import(&file, text),
                    Err(e) => self.error(format!(
                        "Import failed: {} Your current session is unchanged.",
                        sentence(&e)
                    )),
                }
            }
            Msg::ImportTooLarge { file, size } => {
                let max = self.limits.max_scenario_bytes;
                if let Err(e) = clusterscope_core::text::check_size(&file, size, max) {
                    self.error(format!(
                        "Import failed: {} Your current session is unchanged.",
                        sentence(&e)
                    ));
                }
            }
            Msg::OpenPermalink(text) => self.open_link(&text),
            Msg::KeepLinkSession => self.keep_link_session(),
            Msg::BackToSaved => self.back_to_saved(),
            Msg::RestoreSaved(text) => {
                if let Err(e) = self.open_session(&text) {
                    self.error(format!(
                        "The saved session could not be restored: {}",
                        sentence(&e)
                    ));
                }
            }
            Msg::TogglePlay => {
                if self.busy() {
                    self.playing = false;
                    self.seek = None;
                } else {
                    if self.at_end() {
                        self.scrub_to(0);
                    }
                    self.playing = true;
                    self.frac_us = 0.0;
                    self.achieved.reset();
                }
            }
            Msg::Pause => {
                if !self.busy() {
                    return false;
                }
                self.playing = false;
                self.seek = None;
            }
            Msg::Tick {
                dt_ms,
                cost_ms,
                render_ms,
            } => {
                self.note_render(render_ms);
                let changed = self.tick(dt_ms, cost_ms);
                self.follow_view();
                return changed;
            }
            Msg::StepEvent => {
                self.stop();
                self.snapshot();
                if self.engine_ok(|m| m.step_once()) {
                    self.after_move();
                }
            }
            Msg::StepBack => {
                self.stop();
                let c = self.cursor();
                if c > 0 {
                    self.snapshot();
                    self.jump_to_step(c - 1);
                }
            }
            Msg::Next(kind) => {
                self.stop();
                self.start_seek(Seek::Until(kind));
            }
            Msg::Prev(kind) => {
                self.stop();
                self.prev(kind);
            }
            Msg::NextCaption => {
                self.stop();
                let now = self.now();
                match self.captions.iter().find(|c| c.0 > now) {
                    Some(c) => {
                        let t = c.0;
                        self.scrub_to(t);
                    }
                    None => self.notice("No more captions after the cursor.".into()),
                }
            }
            Msg::Chapter(i) => {
                self.stop();
                match self.captions.get(i) {
                    Some(c) => {
                        let t = c.0;
                        self.scrub_to(t);
                    }
                    None => self.error(format!(
                        "chapter {i}: this replay has {} chapter(s), numbered from 0",
                        self.captions.len()
                    )),
                }
            }
            Msg::PrevCaption => {
                self.stop();
                let now = self.now();
                match self.captions.iter().rev().find(|c| c.0 < now) {
                    Some(c) => {
                        let t = c.0;
                        self.scrub_to(t);
                    }
                    None => self.scrub_to(0),
                }
            }
            Msg::JumpToStart => {
                self.stop();
                self.scrub_to(0);
            }
            Msg::JumpToEnd => {
                self.stop();
                let end = self.end();
                self.scrub_to(end);
            }
            Msg::ScrubTo(t) => {
                self.seek = None;
                self.scrub_to(t.min(self.end()));
            }
            Msg::SetSpeed(s) => {
                self.achieved.reset();
                self.speed = if s.is_finite() {
                    s.clamp(SPEED_MIN, SPEED_MAX)
                } else {
                    1.0
                };
            }
            Msg::SelectNode(id) => {
                let id = id.filter(|i| (*i as usize) < self.n());
                self.selected = id;
                self.prev_node = None;
                if let Some(i) = id {
                    self.selected_link = None;
                    if self.seq_auto {
                        self.follow_partners(true);
                    } else if !self.seq_nodes.contains(&i) {
                        if self.seq_nodes.len() >= MAX_SEQ_NODES {
                            self.seq_nodes.remove(0);
                        }
                        self.seq_nodes.push(i);
                    }
                }
            }
            Msg::ToggleSeqNode(id) => {
                if (id as usize) < self.n() {
                    self.seq_auto = false;
                    if let Some(p) = self.seq_nodes.iter().position(|x| *x == id) {
                        self.seq_nodes.remove(p);
                    } else {
                        if self.seq_nodes.len() >= MAX_SEQ_NODES {
                            self.seq_nodes.remove(0);
                        }
                        self.seq_nodes.push(id);
                    }
                }
            }
            Msg::SeqRecentPartners => {
                let Some(sel) = self.selected else {
                    return false;
                };
                let t = self.run.engine.trace();
                let mut nodes = vec![sel];
                nodes.extend(seq::recent_partners(
                    t,
                    self.cursor(),
                    sel,
                    MAX_SEQ_NODES - 1,
                    400_000,
                ));
                self.seq_nodes = nodes;
                self.seq_auto = false;
            }
            Msg::SelectLink(l) => {
                let n = self.n() as NodeId;
                self.selected_link = l.filter(|(a, b)| a != b && *a < n && *b < n);
            }
            Msg::SelectMsg(m) => self.selected_msg = m,
            Msg::Fork { msg, fate } => self.fork(msg, fate),
            Msg::UserAction(a) => self.user_action(a),
            Msg::ConfirmDiscard => self.confirm_discard(),
            Msg::CancelDiscard => self.confirm = None,
            Msg::Undo => self.undo(),
            Msg::ShowError(e) => self.error(e),
            Msg::ShowInfo(e) => self.info(e),
            Msg::DismissBanner => self.banner = None,
            Msg::SetHelp(b) => self.help_open = b,
            Msg::SetTheme(t) => self.theme = t,
            Msg::SetCaptionPause(b) => self.caption_pause = b,
            Msg::Checked(rev, results) => self.checked = Some((rev, results)),
            Msg::SetScrubbing(b) => {
                if self.scrubbing == b {
                    return false;
                }
                self.scrubbing = b;
            }
            Msg::Teach(t) => return self.teach_update(t),
            Msg::Compare(v) => self.set_compare(v),
            Msg::JumpToDivergence => self.jump_to_divergence(),
            Msg::SwitchBranch(i) => self.switch_branch(i),
            Msg::EvaluateBranches => self.branches.requested = true,
            Msg::ForkAt { at, action } => self.fork_at(at, action),
            Msg::BranchEvaluated {
                index,
                actions,
                outcome,
            } => self.branch_evaluated(index, actions, outcome),
            Msg::NextMoment => self.next_moment(),
            Msg::PrevMoment => self.prev_moment(),
            Msg::QuickKey(k) => self.quick_key(k),
            Msg::BackToScript => self.back_to_script(),
            Msg::AddBookmark { name, note } => self.add_bookmark(name, note),
            Msg::RemoveBookmark(i) => self.remove_bookmark(i),
            Msg::GoToBookmark(i) => self.go_to_bookmark(i),
            Msg::SetBookmarkForm(b) => {
                self.stop();
                self.bookmark_form = b;
            }
            Msg::AddExpect(e) => self.add_expect(*e),
            Msg::RemoveExpect(i) => self.remove_expect(i),
        }
        true
    }

    fn error(&mut self, text: String) {
        self.banner = Some(Banner {
            kind: BannerKind::Error,
            text: clusterscope_core::text::clip(&text, MAX_BANNER_CHARS),
        });
    }

    fn info(&mut self, text: String) {
        self.banner = Some(Banner {
            kind: BannerKind::Info,
            text,
        });
    }

    fn stop(&mut self) {
        self.playing = false;
        self.seek = None;
        self.step_time = None;
    }

    /// Run `f`; an engine error stops playback and shows a banner. Returns whether it succeeded.
    fn engine_ok(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<(), clusterscope_core::SimError>,
    ) -> bool {
        let frontier = self.frontier();
        match f(self).and_then(|()| self.check_heap(frontier)) {
            Ok(()) => true,
            Err(e) => {
                self.stop();
                let text = self
                    .trial_failure(&e)
                    .unwrap_or_else(|| format!("The simulation stopped: {e}"));
                self.error(text);
                self.after_move();
                false
            }
        }
    }

    /// Bookkeeping after the engine moved: index new records, keep samples current.
    fn after_move(&mut self) {
        self.marks.update(&*self.run.engine);
        if self.seq_auto && !self.busy() {
            self.follow_partners(false);
        }
    }

    /// While [`Model::seq_auto`]: show the selected node and the peers it last exchanged
    /// messages with, when the diagram's nodes exchanged nothing lately (or `force`).
    fn follow_partners(&mut self, force: bool) {
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
    fn snapshot(&mut self) {
        self.prev_node = self
            .selected
            .and_then(|id| (self.snapshot_of)(&self.run, id).map(|snap| (id, snap)));
    }

    fn apply_action(&mut self, a: Action) -> Result<(), clusterscope_core::SimError> {
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
    fn fork(&mut self, msg: u64, fate: clusterscope_core::engine::action::MsgFate) {
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

    fn user_action(&mut self, a: Action) {
        self.stop();
        if self.ask_before_discarding(&a) {
            return;
        }
        self.act(a, None);
    }

    /// Apply a person's action now; `undo` is the session to go back to when it discarded
    /// recorded actions (kept for [`Msg::Undo`] once the action is accepted).
    fn act(&mut self, a: Action, undo: Option<history::UndoPoint>) {
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

impl Default for Model {
    fn default() -> Self {
        Self::new()
    }
}

/// The reducer Yew holds: a shared [`Model`] plus a revision so that every change re-renders.
pub struct Store {
    pub model: Rc<RefCell<Model>>,
    pub rev: u64,
}

impl Store {
    pub fn new(model: Model) -> Self {
        Store {
            model: Rc::new(RefCell::new(model)),
            rev: 0,
        }
    }
}

impl PartialEq for Store {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.model, &o.model) && self.rev == o.rev
    }
}

impl Reducible for Store {
    type Action = Msg;

    fn reduce(self: Rc<Self>, msg: Msg) -> Rc<Self> {
        let changed = {
            let mut m = self.model.borrow_mut();
            // A test's planted failure (`crash::fail_next_update`) happens here, as a bug would.
            crate::crash::planted_failure();
            let edits = msg.edits_session();
            let rev = m.session_rev;
            let changed = m.update(msg);
            // A "nothing more after the cursor" notice goes once the cursor moved.
            let changed = m.drop_stale_notice() || changed;
            // A link's session on trial passes, fails, or is kept by the person's change.
            let kept = edits && m.session_rev != rev;
            let trial = m.follow_trial(kept);
            // Compare mode: the other side follows this side's cursor and session.
            m.sync_compare() || changed || trial
        };
        if changed {
            Rc::new(Store {
                model: self.model.clone(),
                rev: self.rev + 1,
            })
        } else {
            self
        }
    }
}
