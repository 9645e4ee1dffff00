//! The dock's lecture line (issue 40): "what just happened" after each step or jump, in the
//! model's words (`Driver::what_happened`; a marked moment the cursor is just after is named
//! with its kind), and once a person acted in a scripted scenario, the notice that the captions
//! and expectations describe the original run, with the way back to it (`Msg::BackToScript`).

use crate::kit::PanelProps;
use crate::model::Msg;
use yew::prelude::*;

#[function_component(LectureLine)]
pub fn lecture_line(p: &PanelProps) -> Html {
    let m = p.s.model.borrow();
    let busy = m.playing || m.seek.is_some();
    // While playing the line would change every frame: it says what the step did once the
    // cursor rests.
    let what = (!busy).then(|| m.what_happened()).flatten();
    let moment = m.moment_here().map(|k| {
        let kind = m.marks.kinds.get(k.kind as usize).map_or("", |x| x.name);
        (kind.to_string(), k.text.clone())
    });
    let line = match (&moment, &what) {
        (Some((kind, text)), Some(w)) if w != text => format!("{kind}: {text} — {w}"),
        (Some((kind, text)), _) => format!("{kind}: {text}"),
        (None, Some(w)) => w.clone(),
        // While the scrubber is dragged the line keeps its height (a no-break space), or the
        // dock would change height, and the page lay out again, at every update (issue 44).
        (None, None) if m.scrubbing => "\u{a0}".to_string(),
        (None, None) => String::new(),
    };
    let changed = m.script_changed().then(|| {
        let s = p.s.clone();
        let back = Callback::from(move |_| s.dispatch(Msg::BackToScript));
        let n = m.run.engine.user_actions().len();
        html! {
            <span id="script-changed" class="script-changed" role="note">
                { format!("You changed the script ({n} action{}): captions and expectations describe the original run. ", if n == 1 { "" } else { "s" }) }
                <button id="back-to-script" class="btn small-btn" onclick={back}
                    title="Drop your recorded actions and show the scenario's own run at this time (Undo brings them back)">{ "back to the original run" }</button>
            </span>
        }
    });
    html! {
        <div id="lecture-line" class="lecture-line" aria-live="polite">
            <span id="what-happened" class={classes!("what-happened", moment.is_some().then_some("moment"))}
                title={if line.trim().is_empty() { "What the step before the cursor did, in the model's words".to_string() } else { line.clone() }}>
                { crate::kit::slot((!line.trim().is_empty()).then(|| html! { <b>{ "Just now: " }</b> })) }
                { line }
            </span>
            { crate::kit::slot(changed) }
        </div>
    }
}
