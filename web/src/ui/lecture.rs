//! The dock's lecture line (issue 40): "what just happened" after each step or jump, in the
//! model's words (`Driver::what_happened`; a marked moment the cursor is just after is named
//! with its kind), and once a person acted in a scripted scenario, the notice that the captions
//! and expectations describe the original run, with the way back to it (`Msg::BackToScript`).
//! While a drag of the scrubber shows a keyframe's frame (issue 44) the line says that instead:
//! "≈ frame at T · exact on release" (`#scrub-approx`).

use crate::kit::PanelProps;
use crate::model::Msg;
use yew::prelude::*;

#[function_component(LectureLine)]
pub fn lecture_line(p: &PanelProps) -> Html {
    let m = p.s.model.borrow();
    let busy = m.playing || m.seek.is_some();
    // While playing the line would change every frame: it says what the step did once the
    // cursor rests.
    // A drag of the scrubber showing a keyframe's frame (issue 44): the line says so instead,
    // "≈ frame at T · exact on release" (over the timeline it covered the faults' marks).
    let approx = m.scrub_approx;
    let what = (!busy && approx.is_none())
        .then(|| m.what_happened())
        .flatten();
    let moment = m.moment_here().map(|k| {
        let kind = m.marks.kinds.get(k.kind as usize).map_or("", |x| x.name);
        (kind.to_string(), k.text.clone())
    });
    let line = match (&moment, &what) {
        (Some((kind, text)), Some(w)) if w != text => format!("{kind}: {text} — {w}"),
        (Some((kind, text)), _) => format!("{kind}: {text}"),
        (None, Some(w)) => w.clone(),
        // Empty, the line keeps its height (a no-break space): else the dock changed height
        // whenever a step said nothing (while playing, at step 0, after a bare send), which
        // moved and resized the topology under it (`--topo-top`): every element restyled and
        // every canvas redrawn a second time, ~25 ms of a jump at 251 nodes, and at every
        // update of a scrubber drag (issue 44).
        (None, None) => "\u{a0}".to_string(),
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
    let said = match approx {
        Some(at) => {
            let frame = crate::kit::t(m.now());
            html! {
                <span id="scrub-approx" class="scrub-approx" data-frame-us={m.now().to_string()} data-cursor-us={at.to_string()}
                    title="While the scrubber is dragged, the frame shown is the nearest stored state before the pointer, replayed on a little; releasing it (or resting) shows the exact frame">
                    { format!("≈ frame at {frame} · exact on release") }
                </span>
            }
        }
        None => html! {
            <span id="what-happened" class={classes!("what-happened", moment.is_some().then_some("moment"))}
                title={if line.trim().is_empty() { "What the step before the cursor did, in the model's words".to_string() } else { line.clone() }}>
                { crate::kit::slot((!line.trim().is_empty()).then(|| html! { <b>{ "Just now: " }</b> })) }
                { line }
            </span>
        },
    };
    html! {
        <div id="lecture-line" class="lecture-line" aria-live="polite">
            { said }
            { crate::kit::slot(changed) }
        </div>
    }
}
