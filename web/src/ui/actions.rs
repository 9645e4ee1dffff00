//! The topology card's actions and what only a click opens: the selected node's panel
//! (`ui::panels::NodePanel`: restart, stop, kill, stall, isolate...), the selected link's
//! (`LinkPanel`: drop, heal, loss, latency), the keyboard-shortcut overlay (`ui::help`, `?`), the
//! branch list under the timeline (`ui::branches`, shown from two branches on), the timeline's
//! fork bar (`ui::timeline_fork::bar`) and the Expectations card's rows (`ui::check_rows`, in a
//! card closed unless the person opens it; its summary stays in the main module). The node panel sits at the bottom of the topology card,
//! below the fold at every size the app is laid out for (1366 x 768, 1920 x 1080, 390 x 844: its
//! top at 864, 1176 and 1252 px in the default scenario's first frame); the rest comes with a
//! click (a restored session with branches shows its list in the first frame). So in the split
//! release build their code is the part `actions` of the wasm (`crate::in_part!`, one split
//! point for all: a second would copy what they share; issue 44), fetched right after the first
//! frame is painted (`kit::use_part_after_paint`, from `ui::app`, an embedded replay too) rather
//! than before it: its bytes move behind the first paint, they do not go away. Gossip's "explain
//! this state" is the part's second split point, in core (`gossip/model.rs`), which the topology
//! card asks once the part is in. Meanwhile each is a placeholder in its place (the node panel's
//! height in the default scenario, style.css `.panel-wait`; the help's dialog; the fork bar's and
//! the branch list's row) with nothing focusable but the dialog's and the bar's close buttons; a
//! failed fetch says so with a button that fetches the part again (`data-part="error"`).
//!
//! Elsewhere (debug builds, tests, `CLUSTERSCOPE_SPLIT=0`) they are drawn at once.

use super::panels::{LinkPanel, NodePanel};
use crate::kit::{Handle, PartLoad};
use crate::model::timeline_fork::TimelinePick;
use crate::model::Msg;
use crate::sweep::check_wire::Checked;
use clusterscope_core::engine::NodeId;
use clusterscope_core::time::Micros;
use std::rc::Rc;
use yew::prelude::*;

/// The part's name (`platform::load_part`).
pub const PART: &str = "actions";

/// What the part draws: the panel of what it acts on, or one of the pieces a click opens
/// (each with the store revision it shows, `kit::PanelProps::rev`).
#[derive(Clone, PartialEq)]
pub enum Target {
    Node(NodeId),
    Link(NodeId, NodeId),
    /// The keyboard-shortcut overlay (`ui::help`, `?`).
    Help(u64),
    /// The branch list under the timeline (`ui::branches`), drawn only with two branches or more.
    Branches(u64),
    /// The timeline's fork bar (`ui::timeline_fork::bar`) for a pick, and what closes it.
    Fork(Rc<TimelinePick>, Callback<MouseEvent>),
    /// The Expectations card's rows (`ui::check_rows::rows`) of a finished check at the cursor.
    Checks(Rc<Checked>, Micros),
}

/// Whether the part is in, being fetched, or failed, and how to fetch it again: given by the app
/// to the panels below it (a context, so that the panel is drawn again when the part comes even
/// when the topology card is not).
#[derive(Clone, PartialEq)]
pub struct ActionsLoad {
    pub load: PartLoad,
    pub retry: Callback<Option<String>>,
}

impl ActionsLoad {
    /// The part's state as the app gives it (`ctx`: this context, if any), else its state at the
    /// start ([`PartLoad::at_start`]): what the panels and the topology's explanation wait on.
    pub fn now(ctx: Option<&ActionsLoad>) -> PartLoad {
        ctx.map_or_else(PartLoad::at_start, |c| c.load.clone())
    }
}

#[derive(Properties, Clone, PartialEq)]
pub struct ActionsProps {
    pub s: Handle,
    pub dark: bool,
    pub target: Target,
}

/// The selected node's or link's panel when the part is in, else its placeholder (the app gives
/// the part's state, [`ActionsLoad`], to everything below it).
#[function_component(Actions)]
pub fn actions(p: &ActionsProps) -> Html {
    let ctx = use_context::<ActionsLoad>();
    let load = ActionsLoad::now(ctx.as_ref());
    if matches!(load, PartLoad::Loaded(_)) {
        let drawn = crate::in_part!(
            actions,
            panels,
            (Handle, bool, Target) => Html,
            (p.s.clone(), p.dark, p.target.clone()),
            |(s, dark, target): (Handle, bool, Target)| match target {
                Target::Node(id) => html! { <NodePanel {s} {dark} {id} /> },
                Target::Link(a, b) => html! { <LinkPanel {s} {dark} {a} {b} /> },
                Target::Help(rev) => html! { <super::help::Help {s} {dark} {rev} /> },
                Target::Branches(rev) => {
                    html! { <super::branches::BranchList {s} {dark} {rev} /> }
                }
                Target::Fork(pick, close) => {
                    let m = s.model.borrow();
                    super::timeline_fork::bar(&m, &s, &pick, close)
                }
                Target::Checks(c, now) => super::check_rows::rows(&s, &c, now),
            }
        );
        if let Some(h) = drawn {
            return h;
        }
    }
    let (what, loading) = match p.target {
        Target::Node(_) | Target::Link(..) => ("The actions' code", "Loading the actions…"),
        Target::Help(_) => ("The shortcuts' code", "Loading the shortcuts…"),
        Target::Branches(_) => ("The branch list's code", "Loading the branches…"),
        Target::Fork(..) => ("The fork bar's code", "Loading the fork actions…"),
        Target::Checks(..) => ("The expectations' rows' code", "Loading the expectations…"),
    };
    let note = match (&load, &ctx) {
        (PartLoad::Failed(part), Some(c)) => crate::kit::part_retry(what, part, &c.retry),
        // A row's text in the fork bar and the branch list (a paragraph's margins would make
        // their row taller than theirs), a paragraph in a panel or the dialog.
        _ if matches!(p.target, Target::Fork(..) | Target::Branches(_)) => {
            html! { <span class="muted small">{ loading }</span> }
        }
        _ => html! { <p class="muted small">{ loading }</p> },
    };
    let state = load.wait_state();
    match &p.target {
        Target::Node(_) | Target::Link(..) => {
            let kind = if matches!(p.target, Target::Node(_)) {
                "node"
            } else {
                "link"
            };
            html! {
                <div class="panel panel-wait" data-part={state} data-wait={kind}>{ note }</div>
            }
        }
        // The overlay and its dialog as the help's, the note in it; a click outside or Esc
        // closes it as it closes the help.
        Target::Help(_) => {
            let close = {
                let s = p.s.clone();
                Callback::from(move |_| s.dispatch(Msg::SetHelp(false)))
            };
            let stop = Callback::from(|e: MouseEvent| e.stop_propagation());
            html! {
                <div class="overlay" onclick={close.clone()} id="help-wait">
                    <div class="dialog" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts"
                        data-part={state} onclick={stop}>
                        <div class="panel-head">
                            <h2>{ "Keyboard shortcuts" }</h2>
                            <button class="btn icon ghost" onclick={close} aria-label="Close">{ "×" }</button>
                        </div>
                        { note }
                    </div>
                </div>
            }
        }
        // The list's row: its label and the note where the branches' buttons come.
        Target::Branches(_) => html! {
            <div class="branches" id="branches-wait" data-part={state}>
                <span class="muted small">{ "Branches" }</span>
                { note }
            </div>
        },
        // Where the rows come in the card (closed unless the person opened it).
        Target::Checks(..) => html! {
            <div class="checks-note" id="checks-wait" data-part={state}>{ note }</div>
        },
        // The bar's row under the timeline, with its close button.
        Target::Fork(pick, close) => html! {
            <div class="log-fork tl-fork" id="tl-fork-wait" data-part={state}>
                <span class="muted small">{ format!("Fork at {}:", crate::kit::t(pick.at)) }</span>
                { note }
                <button id="tl-fork-close" class="icon" title="Close" aria-label="Close the fork bar" onclick={close.clone()}>{ "×" }</button>
            </div>
        },
    }
}

/// The action panel for a selection: the selected link's (`link`) before the selected node's
/// (`node`), else a hint to click one. The topology card's and compare's row of actions.
pub fn for_selection(
    s: &Handle,
    dark: bool,
    link: Option<(NodeId, NodeId)>,
    node: Option<NodeId>,
) -> Html {
    let target = match (link, node) {
        (Some((a, b)), _) => Target::Link(a, b),
        (None, Some(id)) => Target::Node(id),
        _ => return html! { <p class="muted small">{ "Click a node or a link to act on it." }</p> },
    };
    html! { <Actions s={s.clone()} {dark} {target} /> }
}
