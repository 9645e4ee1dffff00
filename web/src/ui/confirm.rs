//! The question before acting would discard later recorded actions (`Model::confirm`), an in-app
//! dialog (a `window.confirm` would block the page and the tests), and the status line's Undo.

use crate::kit::PanelProps;
use crate::model::Msg;
use yew::prelude::*;

#[function_component(ConfirmDiscard)]
pub fn confirm_discard(p: &PanelProps) -> Html {
    let m = p.s.model.borrow();
    let Some(q) = m.confirm.as_ref() else {
        return html! {};
    };
    let yes = {
        let s = p.s.clone();
        Callback::from(move |_| s.dispatch(Msg::ConfirmDiscard))
    };
    let no = {
        let s = p.s.clone();
        Callback::from(move |_| s.dispatch(Msg::CancelDiscard))
    };
    let stop = Callback::from(|e: MouseEvent| e.stop_propagation());
    let n = q.later.len();
    let lines = q.lines();
    html! {
        <div class="overlay" id="confirm-discard" onclick={no.clone()} data-later={n.to_string()}>
            <div class="dialog" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" onclick={stop}>
                <h2 id="confirm-title">{ format!("Discard {n} later recorded action{}?", if n == 1 { "" } else { "s" }) }</h2>
                <p>{ format!("“{}” at {} starts a new future from here. These actions you recorded after the cursor would be discarded:", q.action.describe(), crate::kit::t(m.now())) }</p>
                <ul class="discard-list">
                    <>{ for lines.into_iter().take(12).map(|l| html! { <li class="mono small">{ l }</li> }) }</>
                    <>{ for (n > 12).then(|| html! { <li class="muted small">{ format!("… and {} more", n - 12) }</li> }) }</>
                </ul>
                <p class="muted small">{ "After acting, Undo (in the status line) brings them back." }</p>
                <div class="dialog-buttons">
                    <button id="discard-cancel" class="btn" onclick={no}>{ "Keep them (cancel)" }</button>
                    <button id="discard-confirm" class="btn danger" onclick={yes}>{ "Discard them and act" }</button>
                </div>
            </div>
        </div>
    }
}
