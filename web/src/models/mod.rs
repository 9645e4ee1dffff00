//! The one place the web app names models: each model's own panels live in its folder here
//! (`gossip/`, `raft/`, `ozone/`, `mutation/`), and [`Inspector`] picks the selected node's inspector by the run's model. Every
//! other panel (topology, timeline, sequence diagram, log, threads, plots, matrix) is generic
//! and draws from what the model declares (`clusterscope_core::model::Model`). A model without
//! panels of its own gets the generic inspector: its threads and its `views_json` entry.

pub mod generic;
#[cfg(feature = "gossip")]
pub mod gossip;
#[cfg(feature = "mutation-tracking")]
pub mod mutation;
#[cfg(feature = "ozone")]
pub mod ozone;
#[cfg(feature = "raft")]
pub mod raft;

use crate::kit::PanelProps;
use clusterscope_core::engine::NodeId;
use clusterscope_core::runner::Run;
use std::any::Any;
use std::rc::Rc;
use yew::prelude::*;

/// What the model's inspector keeps of a node before a cursor move, to highlight what the move
/// changed (gossip: the endpoint state map; raft: every node's views, for the log strips). The
/// app hands it to the state (`Model::with_snapshots`), which does not know these panels.
#[cfg_attr(
    not(any(feature = "gossip", feature = "raft")),
    allow(unused_variables)
)]
pub fn snapshot(run: &Run, id: NodeId) -> Option<Rc<dyn Any>> {
    match run.engine.model() {
        #[cfg(feature = "gossip")]
        "gossip" => gossip::snapshot(run, id),
        #[cfg(feature = "raft")]
        "raft" | "ozone" => raft::snapshot(run, id),
        _ => None,
    }
}

/// The selected node's inspector card.
#[function_component(Inspector)]
pub fn inspector(p: &PanelProps) -> Html {
    let model = p.m().borrow().run.engine.model();
    match model {
        #[cfg(feature = "gossip")]
        "gossip" => html! { <gossip::inspector::GossipInspector ..p.clone() /> },
        #[cfg(feature = "raft")]
        "raft" => html! { <raft::inspector::RaftInspector ..p.clone() /> },
        #[cfg(feature = "ozone")]
        "ozone" => html! { <ozone::OzoneInspector ..p.clone() /> },
        #[cfg(feature = "mutation-tracking")]
        "mutation-tracking" => html! { <mutation::panel::MutationInspector ..p.clone() /> },
        _ => html! { <generic::GenericInspector ..p.clone() /> },
    }
}
