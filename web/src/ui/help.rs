//! The keyboard-shortcut overlay (`?`). In the split release build its code is in the part
//! `actions`, drawn through `ui::actions::Actions` (issue 44).

use crate::kit::PanelProps;
use crate::model::Msg;
use yew::prelude::*;

const KEYS: &[(&str, &str)] = &[
    ("space", "play / pause"),
    ("→", "step one event"),
    ("←", "step back one event"),
    (
        "shift+→ or i",
        "next interesting event (state change, log line, fault)",
    ),
    ("shift+← or I", "previous interesting event"),
    ("d / D", "next / previous delivery"),
    ("x / X", "next / previous dropped message"),
    ("c / C", "next / previous caption"),
    (
        "n / N",
        "next / previous moment the model marks on the timeline (Raft: elections, terms, commits)",
    ),
    ("Home / End", "jump to start / compute to the end"),
    (
        "b",
        "bookmark the cursor: a name and a short note, on the timeline and in the link",
    ),
    ("] / [", "faster / slower"),
    (
        "z / Z / 0",
        "zoom the timeline in / out around the cursor / whole run (also: wheel, shift+drag a range; a plain drag scrubs, a right-click offers forks)",
    ),
    (", / .", "move the zoomed timeline left / right"),
    (
        "m",
        "message by message: each message crosses its link in 600 ms",
    ),
    (
        "f",
        "presentation mode (fullscreen, larger type; Esc leaves it; not on a phone)",
    ),
    ("w", "explain the selected node's state"),
    ("Esc", "pause, close this help, leave presentation mode"),
    ("?", "this help"),
];

#[function_component(Help)]
pub fn help(p: &PanelProps) -> Html {
    let close = {
        let s = p.s.clone();
        Callback::from(move |_| s.dispatch(Msg::SetHelp(false)))
    };
    let stop = Callback::from(|e: MouseEvent| e.stop_propagation());
    let (quick, model) = {
        let m = p.s.model.borrow();
        (m.run.engine.quick_keys(), m.run.engine.model())
    };
    html! {
        <div class="overlay" onclick={close.clone()} id="help">
            <div class="dialog" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts" onclick={stop}>
                <div class="panel-head">
                    <h2>{ "Keyboard shortcuts" }</h2>
                    <button class="btn icon ghost" onclick={close} aria-label="Close">{ "×" }</button>
                </div>
                <table class="keys">
                    <>{ for KEYS.iter().map(|(k, v)| html!{ <tr><td><kbd>{ *k }</kbd></td><td>{ *v }</td></tr> }) }</>
                </table>
                { crate::kit::slot((!quick.is_empty()).then(|| html! {
                    <>
                    <h3 class="keys-model">{ format!("One-key actions ({}; recorded as your actions)", model) }</h3>
                    <table class="keys" id="quick-keys">
                        <>{ for quick.iter().map(|q| html!{ <tr><td><kbd>{ q.key.to_string() }</kbd></td><td>{ q.label }</td></tr> }) }</>
                    </table>
                    </>
                })) }
                <p class="muted small">
                    { "Click a node or a link in the topology to act on it; your actions are recorded on the timeline (purple) and in the permalink. Acting at an earlier point starts a new future from there: when that would discard actions you recorded later, the app asks first, and Undo (in the status line) brings them back. Click a log line or a chapter (under the caption) to move the cursor there; “pause at captions” stops playing at each caption. The session is saved in this browser and in the URL." }
                </p>
            </div>
        </div>
    }
}
