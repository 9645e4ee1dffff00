//! The app's state and every transition of it. **No DOM access here**: this module only uses
//! `clusterscope-core` and `std`, so it runs (and is tested) anywhere. Components render a
//! [`Model`] and dispatch [`Msg`]s; side effects that need the browser (storage, URL, downloads,
//! files, the animation frame) live in `crate::platform` and the components.

mod act;
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
mod store;
pub mod teach;
pub mod timeline_fork;
pub mod trial;
mod update;
pub mod user_expects;

use clusterscope_core::engine::action::{Action, RecordedAction};
use clusterscope_core::engine::NodeId;
use clusterscope_core::limits::Limits;
use clusterscope_core::model::MatrixSummary;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::{self, ScenarioRef, Session, PERMALINK_VERSION};
use clusterscope_core::time::{fmt_time, Micros};
pub use memory::PAGE_HEAP_BYTES;
pub use msg::Msg;
use nav::{Marks, NavKind};
use samples::Samples;
use std::cell::RefCell;
use std::rc::Rc;
pub use store::Store;

/// What a model's inspector keeps of a node before a cursor move, to highlight what the move
/// changed (`crate::models::snapshot`; `None`: nothing).
pub type Snapshot = fn(&Run, NodeId) -> Option<Rc<dyn std::any::Any>>;

/// The scenario opened when there is no link and no saved session (its text is compiled in).
pub const DEFAULT_SCENARIO: &str = crate::builtins::DEFAULT;
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
/// One run playing (not compare): the simulation and the app's render of a frame together aim
/// at this, so a frame whose render (measured, smoothed: `Model::render_ms_est`) leaves room
/// gives the simulation more than [`PLAY_FRAME_MS`], up to [`PLAY_FRAME_ROOM_MAX_MS`], and the
/// browser's style, layout and paint still fit a 60 Hz frame (issue 44: 100x at 251 nodes
/// replays ~3,300 steps a frame, ~6.6 ms in Chromium, just over the fixed 6 ms share, so it fell
/// behind, was boosted to half of each frame and dropped to ~30 fps).
pub const PLAY_FRAME_FIT_MS: f64 = 12.5;
/// The most a frame that is not boosted gives the simulation (see [`PLAY_FRAME_FIT_MS`]).
pub const PLAY_FRAME_ROOM_MAX_MS: f64 = 9.0;
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
/// While the scrubber is dragged (issue 44), a move whose exact frame needs at most this much
/// replay (at the measured cost of a replayed step) shows that frame at once; a longer one shows
/// a keyframe: the nearest checkpoint at or before the time pointed at (or the state shown, when
/// it is between the two), replayed on towards that time for at most this much
/// ([`Model::scrub_approx`]). A drag update's render at 251 nodes takes ~6 ms more and the
/// browser's style, paint and canvas commit ~8 ms: ~17 ms of main-thread CPU an update at 5 ms,
/// ~14 at 2 ms (issue 44, AMD EPYC). Less replay per update leaves more for the release's
/// exact frame (at 2 ms, 45-70 ms of its replay against 1-37 at 5), hence 3.
pub const SCRUB_PREVIEW_MS: f64 = 3.0;
/// Cost of one simulation step assumed until one is measured (251 nodes in Chromium: ~6 µs).
pub const STEP_COST_MS_GUESS: f64 = 0.01;
/// Most nodes shown in the sequence diagram.
pub const MAX_SEQ_NODES: usize = 6;
/// Above this many nodes the sequence diagram follows the selected node and the peers it
/// exchanged messages with (until the person picks its nodes), instead of the first few nodes,
/// which in a large cluster rarely talk to each other.
pub const SEQ_AUTO_ABOVE: usize = 8;

/// A built-in scenario in the picker.
#[derive(Clone, Debug, PartialEq)]
pub struct CatalogEntry {
    pub name: String,
    pub nodes: u32,
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
    summary_memo: RefCell<Vec<(matrix_view::SummaryKey, Rc<MatrixSummary>)>>,
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
    /// While the scrubber is dragged, the time it points at when the state shown is not that
    /// time's but an earlier one: a keyframe (the nearest checkpoint at or before it, or the state
    /// already shown), replayed on towards it for at most [`SCRUB_PREVIEW_MS`]. `None`: the state
    /// shown is at the cursor. The exact frame follows on release or when the drag rests
    /// ([`Msg::ScrubSettle`]), as a video player scrubs on keyframes and refines (issue 44).
    pub scrub_approx: Option<Micros>,
    /// The scrubber is being dragged and has moved since it last rested (issue 44): the
    /// DOM-heavy panels (header, inspector, sequence, plots, log) and the sequence diagram's
    /// choice of partners wait meanwhile, and say so; a rest ([`Msg::ScrubSettle`]) or the
    /// release brings them to the exact frame.
    pub scrub_moving: bool,
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
    /// A built-in scenario's text being downloaded, and the messages waiting for it
    /// (`store.rs`, `crate::builtins`).
    pub download: Option<Download>,
    /// The saved session could not be restored (its built-in's text did not download): the
    /// autosave keeps it until the person changes this session (the `session_rev` it failed
    /// at), so a reload once online brings it back.
    pub keep_saved_until_edit: Option<u64>,
}

/// A built-in scenario's text being downloaded (`crate::builtins::download`, started by the app
/// when this appears) and the messages that wait for it, in the order they came: the one that
/// asked for the text first, then whatever came meanwhile, so nothing overtakes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Download {
    /// The built-in scenario, or with `part` the model (`crate::platform::load_model`:
    /// its code, in the split release build) or compare's code (`compare::PART`).
    pub name: &'static str,
    pub part: bool,
    /// Which download this is (the app starts one per new value).
    pub id: u64,
    pub waiting: Vec<Msg>,
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
    crate::builtins::catalog()
        .iter()
        .map(|e| CatalogEntry {
            nodes: e.nodes,
            name: e.name.to_string(),
        })
        .collect()
}

fn resolve(r: &ScenarioRef) -> Result<Scenario, String> {
    match r {
        ScenarioRef::Builtin(name) => crate::builtins::get(name),
        ScenarioRef::Custom(text) => {
            crate::reader::parse("scenario.toml", text, &Limits::browser())
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

impl Model {
    /// The default scenario (or the first built-in one).
    pub fn new() -> Model {
        let catalog = Rc::new(catalog());
        let r = ScenarioRef::Builtin(DEFAULT_SCENARIO.to_string());
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
            scrub_approx: None,
            scrub_moving: false,
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
            download: None,
            keep_saved_until_edit: None,
        };
        m.after_install(true);
        m
    }

    // ---- read-only accessors for the view ----

    pub fn now(&self) -> Micros {
        self.run.engine.now()
    }
    /// Where the timeline's cursor is: the state's time, or while a drag shows a keyframe's
    /// state, the time dragged to ([`Model::scrub_approx`]).
    pub fn cursor_time(&self) -> Micros {
        self.scrub_approx.unwrap_or_else(|| self.now())
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
}

impl Default for Model {
    fn default() -> Self {
        Self::new()
    }
}
