//! [`Msg`]: everything a person can do in the app, and what the animation loop reports; the
//! reducer (`Model::update`, in `mod.rs`) applies them.

use super::*;

/// Everything a person can do, and what the animation loop reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    LoadBuiltin(String),
    SetVariant(String),
    SetSeed(u64),
    /// An imported scenario file (name, contents).
    ImportScenario {
        file: String,
        text: String,
    },
    /// An imported file's bytes: decoded by the same rule as the CLI (size, UTF-8;
    /// `clusterscope_core::text::scenario_text`), then imported as `ImportScenario`.
    ImportFile {
        file: String,
        bytes: Vec<u8>,
    },
    /// A chosen file over the size limit, refused before it is read
    /// (`clusterscope_core::text::check_size`, the CLI's rule).
    ImportTooLarge {
        file: String,
        size: u64,
    },
    /// A permalink's text (what follows `#`).
    OpenPermalink(String),
    /// The download of a built-in scenario's text ended (`Model::download`).
    Downloaded {
        name: &'static str,
        result: Result<(), String>,
    },
    /// A session saved in the browser (same encoding as a permalink).
    RestoreSaved(String),
    /// Keep the session of a link on trial (`trial.rs`): it replaces the saved session.
    KeepLinkSession,
    /// Leave the session of a link on trial for the saved session shown before it.
    BackToSaved,
    TogglePlay,
    Pause,
    /// An animation frame: `dt_ms` of real time passed; the previous tick took `cost_ms`, and
    /// the render it caused `render_ms` (0 when it rendered nothing).
    Tick {
        dt_ms: f64,
        cost_ms: f64,
        render_ms: f64,
    },
    StepEvent,
    StepBack,
    Next(NavKind),
    Prev(NavKind),
    NextCaption,
    PrevCaption,
    /// Move the cursor to chapter `i` (a caption, 0-based: the embed form's `chapter`).
    Chapter(usize),
    JumpToStart,
    JumpToEnd,
    ScrubTo(Micros),
    SetSpeed(f64),
    SelectNode(Option<NodeId>),
    ToggleSeqNode(NodeId),
    /// Replace the sequence diagram's nodes with the selected node and its recent partners.
    SeqRecentPartners,
    SelectLink(Option<(NodeId, NodeId)>),
    SelectMsg(Option<u64>),
    /// Fork the run at the step that sent message `msg`: deliver, drop or delay it there (a
    /// recorded `Action::Message`; later recorded actions go only after asking, with Undo).
    Fork {
        msg: u64,
        fate: clusterscope_core::engine::action::MsgFate,
    },
    UserAction(Action),
    /// Act although that discards later recorded actions (answers [`Model::confirm`]).
    ConfirmDiscard,
    /// Do not act ([`Model::confirm`] is dropped, nothing changes).
    CancelDiscard,
    /// Restore the session as it was before the last action that discarded a future.
    Undo,
    ShowError(String),
    ShowInfo(String),
    DismissBanner,
    SetHelp(bool),
    SetTheme(Theme),
    /// Playing stops at each caption ([`Model::caption_pause`]).
    SetCaptionPause(bool),
    /// A check of the session's expectations finished (`ui::checks`): its session revision
    /// and results.
    Checked(u64, Rc<Vec<clusterscope_core::runner::ExpectResult>>),
    /// The person drags the timeline's scrubber (true at mouse down, false when released): the
    /// DOM-heavy panels follow at most every `ui::app::SLOW_PANEL_MS` meanwhile, as while playing,
    /// and a move may show a keyframe (`Model::scrub_approx`), made exact on release (issue 44).
    SetScrubbing(bool),
    /// The drag rests (no move for `ui::timeline::SCRUB_REST_MS`): show the exact frame at the
    /// time dragged to in place of a keyframe's (issue 44; a release does the same).
    ScrubSettle,
    /// Teaching aids: timeline zoom, presentation mode, message-by-message mode, explain
    /// (`teach.rs`).
    Teach(teach::TeachMsg),
    /// Compare mode: show this variant beside the current one on the same cursor (`None`: off).
    Compare(Option<String>),
    /// Move both sides of a compare to the first divergence (finding it first if need be).
    JumpToDivergence,
    /// Show this branch of the session (`branches.rs`), at the cursor's time.
    SwitchBranch(usize),
    /// Evaluate the expectations of the branches not evaluated yet (large clusters).
    EvaluateBranches,
    /// Fork at a record's time (a log line): the cursor goes there and the action is taken
    /// (kill / restart a node, stall a thread); before the computed future it is a new branch.
    ForkAt {
        at: Micros,
        action: Action,
    },
    /// A worker's answer for branch `index`'s expectations, evaluated with `actions`
    /// ([`Model::branch_jobs`]).
    BranchEvaluated {
        index: usize,
        actions: Vec<RecordedAction>,
        outcome: branches::Outcome,
    },
    /// The next / previous moment the model marks (`model/lecture.rs`: n / N).
    NextMoment,
    PrevMoment,
    /// A model's one-key action (`Model::quick_keys`): recorded as user actions.
    QuickKey(char),
    /// Drop the person's recorded actions: the scenario's own run, at the cursor's time (Undo
    /// brings them back).
    BackToScript,
    /// A named bookmark with a note at the cursor's time (`bookmarks.rs`).
    AddBookmark {
        name: String,
        note: String,
    },
    RemoveBookmark(usize),
    /// The cursor goes to bookmark `i`'s time.
    GoToBookmark(usize),
    /// Open or close the form naming a bookmark at the cursor (`b`).
    SetBookmarkForm(bool),
    /// An expectation of the person's (the expectation editor, `user_expects.rs`).
    AddExpect(Box<clusterscope_core::scenario::ExpectSpec>),
    RemoveExpect(usize),
}

impl Msg {
    /// Whether this message may open a built-in scenario, and so wait for its text to be
    /// downloaded and be applied again (`store.rs`).
    pub fn may_open_builtin(&self) -> bool {
        matches!(
            self,
            Msg::LoadBuiltin(_)
                | Msg::OpenPermalink(_)
                | Msg::RestoreSaved(_)
                | Msg::ImportScenario { .. }
                | Msg::ImportFile { .. }
                | Msg::BackToSaved
        )
    }

    /// Whether the person changes the session with this (acts in it, switches variant, seed or
    /// branch, opens another scenario): a link's session on trial is then theirs (`trial.rs`).
    pub fn edits_session(&self) -> bool {
        matches!(
            self,
            Msg::LoadBuiltin(_)
                | Msg::SetVariant(_)
                | Msg::SetSeed(_)
                | Msg::ImportScenario { .. }
                | Msg::ImportFile { .. }
                | Msg::Fork { .. }
                | Msg::UserAction(_)
                | Msg::ConfirmDiscard
                | Msg::Undo
                | Msg::SwitchBranch(_)
                | Msg::ForkAt { .. }
                | Msg::QuickKey(_)
                | Msg::BackToScript
        )
    }
}
