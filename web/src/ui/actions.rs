//! The topology card's actions: the selected node's panel (`ui::panels::NodePanel`: restart,
//! stop, kill, stall, isolate...) and the selected link's (`LinkPanel`: drop, heal, loss,
//! latency). The node panel sits at the bottom of the topology card, below the fold at every
//! size the app is laid out for (1366 x 768, 1920 x 1080, 390 x 844: its top at 864, 1176 and
//! 1252 px in the default scenario's first frame), and the link panel comes only with a click on
//! a link, so in the split release build their code is the part `actions` of the wasm
//! (`crate::in_part!`, issue 44), fetched right after the first frame is painted (`kit::use_part_after_paint`,
//! from `ui::app`, an embedded replay too) rather than before it: its bytes move behind the first
//! paint, they do not go away. Meanwhile the panel is a placeholder of the node panel's height
//! in the default scenario (style.css, `.panel-wait`) with nothing focusable in it; a failed fetch
//! says so with a button that fetches the part again (`data-part="error"`).
//!
//! Elsewhere (debug builds, tests, `CLUSTERSCOPE_SPLIT=0`) the panels are drawn at once.

use super::panels::{LinkPanel, NodePanel};
use crate::kit::{Handle, PartLoad};
use clusterscope_core::engine::NodeId;
use yew::prelude::*;

/// The part's name (`platform::load_part`).
pub const PART: &str = "actions";

/// What the panel acts on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Target {
    Node(NodeId),
    Link(NodeId, NodeId),
}

/// Whether the part is in, being fetched, or failed, and how to fetch it again: given by the app
/// to the panels below it (a context, so that the panel is drawn again when the part comes even
/// when the topology card is not).
#[derive(Clone, PartialEq)]
pub struct ActionsLoad {
    pub load: PartLoad,
    pub retry: Callback<Option<String>>,
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
    let load = ctx
        .as_ref()
        .map_or_else(PartLoad::at_start, |c| c.load.clone());
    if matches!(load, PartLoad::Loaded(_)) {
        let drawn = crate::in_part!(
            actions,
            panels,
            (Handle, bool, Target) => Html,
            (p.s.clone(), p.dark, p.target),
            |(s, dark, target): (Handle, bool, Target)| match target {
                Target::Node(id) => html! { <NodePanel {s} {dark} {id} /> },
                Target::Link(a, b) => html! { <LinkPanel {s} {dark} {a} {b} /> },
            }
        );
        if let Some(h) = drawn {
            return h;
        }
    }
    let note = match (&load, &ctx) {
        (PartLoad::Failed(part), Some(c)) => {
            crate::kit::part_retry("The actions' code", part, &c.retry)
        }
        _ => html! { <p class="muted small">{ "Loading the actions…" }</p> },
    };
    let state = load.wait_state();
    let kind = match p.target {
        Target::Node(_) => "node",
        Target::Link(..) => "link",
    };
    html! {
        <div class="panel panel-wait" data-part={state} data-wait={kind}>{ note }</div>
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
