//! The one place the web app names models: each model's own panels live in its folder here
//! (`gossip/`, `raft/`, `ozone/`, `mutation/`), and [`Inspector`] picks the selected node's
//! inspector by the run's model (in the split release build, every model's but gossip's from the
//! part of the wasm that holds its engine too: `ask`, issue 44). Every
//! other panel (topology, timeline, sequence diagram, log, threads, plots, matrix) is generic
//! and draws from what the model declares (`clusterscope_core::model::Model`). A model without
//! panels of its own (ping-pong) gets the generic inspector: its threads and its `views_json`
//! entry (in the split build from ping-pong's part).

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

/// What the app asks of a model's own panels.
pub enum Ask<'a> {
    /// The selected node's inspector card.
    Inspector(&'a PanelProps),
    /// What to keep of node `NodeId` before a cursor move ([`snapshot`]).
    Snapshot(&'a Run, NodeId),
}

/// The panels' answer to an [`Ask`].
pub enum Answer {
    Inspector(Html),
    Snapshot(Option<Rc<dyn Any>>),
}

/// A model's panels answering `ask`, or `None` when they are a part of the split release build
/// not loaded yet (every model's but gossip's are the part of its engine, fetched together when
/// a scenario of it is opened: `platform::load_model`; ARCHITECTURE.md, "The split build").
/// Each model's panels are reached only through its arm here (`crate::in_part!`), so that a
/// part holds one model's panels.
#[cfg_attr(
    not(any(feature = "gossip", feature = "raft")),
    allow(unused_variables)
)]
fn ask(model: &str, ask: Ask) -> Option<Answer> {
    match model {
        #[cfg(feature = "gossip")]
        "gossip" => Some(match ask {
            Ask::Inspector(p) => {
                Answer::Inspector(html! { <gossip::inspector::GossipInspector ..p.clone() /> })
            }
            Ask::Snapshot(run, id) => Answer::Snapshot(gossip::snapshot(run, id)),
        }),
        #[cfg(feature = "raft")]
        "raft" => crate::in_part!(raft, panels, Ask<'_> => Answer, ask, |ask| match ask {
            Ask::Inspector(p) => {
                Answer::Inspector(html! { <raft::inspector::RaftInspector ..p.clone() /> })
            }
            Ask::Snapshot(run, id) => Answer::Snapshot(raft::snapshot(run, id)),
        }),
        #[cfg(feature = "ozone")]
        "ozone" => crate::in_part!(ozone, panels, Ask<'_> => Answer, ask, |ask| match ask {
            Ask::Inspector(p) => Answer::Inspector(html! { <ozone::OzoneInspector ..p.clone() /> }),
            Ask::Snapshot(run, id) => Answer::Snapshot(raft::snapshot(run, id)),
        }),
        #[cfg(feature = "mutation-tracking")]
        "mutation-tracking" => {
            crate::in_part!(mutation_tracking, panels, Ask<'_> => Answer, ask, |ask| match ask {
                Ask::Inspector(p) => {
                    Answer::Inspector(html! { <mutation::panel::MutationInspector ..p.clone() /> })
                }
                Ask::Snapshot(..) => Answer::Snapshot(None),
            })
        }
        // Ping-pong (and a model without panels of its own): the generic inspector.
        _ => generic(ask),
    }
}

/// The generic inspector's answer: in the split release build a second split point of
/// ping-pong's part (the only model without panels of its own; issue 44), so its code is not in
/// the main module.
#[cfg(feature = "pingpong")]
fn generic(ask: Ask) -> Option<Answer> {
    crate::in_part!(pingpong, panels, Ask<'_> => Answer, ask, generic_answer)
}

#[cfg(not(feature = "pingpong"))]
fn generic(ask: Ask) -> Option<Answer> {
    Some(generic_answer(ask))
}

fn generic_answer(ask: Ask) -> Answer {
    match ask {
        Ask::Inspector(p) => Answer::Inspector(html! { <generic::GenericInspector ..p.clone() /> }),
        Ask::Snapshot(..) => Answer::Snapshot(None),
    }
}

/// What the model's inspector keeps of a node before a cursor move, to highlight what the move
/// changed (gossip: the endpoint state map; raft: every node's views, for the log strips). The
/// app hands it to the state (`Model::with_snapshots`), which does not know these panels.
/// `None` too while the model's panels are not loaded (the split build).
pub fn snapshot(run: &Run, id: NodeId) -> Option<Rc<dyn Any>> {
    match ask(run.engine.model(), Ask::Snapshot(run, id)) {
        Some(Answer::Snapshot(s)) => s,
        _ => None,
    }
}

/// The selected node's inspector card. In the split release build a model's panels come with its
/// engine (`platform::load_model`, before its scenario runs); should they be missing (a
/// compare side), the card says "Loading…", fetches them, and names the part if that fails.
#[function_component(Inspector)]
pub fn inspector(p: &PanelProps) -> Html {
    let model = p.m().borrow().run.engine.model();
    // The outcome of a fetch this card started: `Err` names the part that did not load.
    let fetched = use_state(|| None::<Result<(), String>>);
    let answer = ask(model, Ask::Inspector(p));
    let missing = answer.is_none();
    {
        let fetched = fetched.clone();
        use_effect_with((model, missing), move |&(model, missing)| {
            if missing {
                wasm_bindgen_futures::spawn_local(async move {
                    let r = crate::platform::load_model(model).await.map_err(|_| {
                        format!(
                            "the {model} model's panels did not load (a part of the app, \
                             split/; check the connection and open the scenario again)"
                        )
                    });
                    fetched.set(Some(r));
                });
            }
        });
    }
    match answer {
        Some(Answer::Inspector(h)) => h,
        _ => match &*fetched {
            Some(Err(e)) => html! {
                <section class="card insp-card" aria-label="Inspector" id="inspector" data-part="error">
                    <div class="card-head"><h2>{ "Inspector" }</h2></div>
                    <p class="muted" role="alert">{ e }</p>
                </section>
            },
            _ => html! {
                <section class="card insp-card" aria-label="Inspector" id="inspector" data-part="loading">
                    <div class="card-head"><h2>{ "Inspector" }</h2></div>
                    <p class="muted">{ "Loading…" }</p>
                </section>
            },
        },
    }
}
